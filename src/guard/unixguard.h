/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * unixguard.h - no pathname unix socket of the host is connectable from
 * inside the sandbox: the seccomp user-notification supervisor (runner
 * side). Its pure parts live in unixguard_parse.h (reading the task's
 * memory) and unixguard_decide.h (the decisions); the calls it makes on
 * the command's behalf run in unixguard_behalf.h's executor, with the
 * command's rights. See the theory of operation at the top of unixguard.c.
 */
#ifndef JR_UNIXGUARD_H
#define JR_UNIXGUARD_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>
#include <sys/un.h>

#include "err.h"
#include "ids.h"
#include "unixguard_decide.h"
#include "unixguard_parse.h"

struct jr_unixguard;

/* What the guard needs before the command exists (jr_unixguard_prestart()). */
struct jr_unixguard_config {
	int diag;   /* NETLINK_SOCK_DIAG socket of the worker netns;
			      taken over */
	int userns; /* the sandbox's user namespace (the executor enters
			 it); taken over */
	const struct jr_ids *ids; /* the command's ids: copied */
	/* The command's Landlock TCP connect rule (landlock.h), which the
	 * connects run on behalf must obey: copied. */
	bool tcp;
	const uint16_t *ports;
	size_t n_ports;
};

/* The pre-exec child's hand-over (UNOTIFY, jr_unixguard_attach()). */
struct jr_unixguard_listener {
	pid_t task; /* the blocked pre-exec child: --expose paths are
			resolved and pinned in its view, once */
	int fdnum;  /* its listener's fd number, fetched with pidfd_getfd */
	const char *const *expose; /* --expose paths, in the sandbox's view */
	size_t n_expose;
	const char *control_path; /* --control socket (never reachable), or
				      NULL */
	/* The listener lacks SECCOMP_FILTER_FLAG_WAIT_KILLABLE_RECV: said
	 * at -v (a signal can restart a call already run on behalf). */
	bool interruptible;
};

/*
 * jr_unixguard_fetch_listener - take the listener fd @fdnum of the
 * (blocked) pre-exec child @pid with pidfd_getfd(2) and check that it is a
 * seccomp notification fd. Return: the fd (O_CLOEXEC) or -errno, @err set.
 */
int jr_unixguard_fetch_listener(pid_t pid, int fdnum, struct jr_err *err);

/*
 * jr_unixguard_prestart - start the guard's thread before the command
 * exists: it makes its descriptor table and forks the executor (holding
 * the command's rights) while init finishes, and then waits for
 * jr_unixguard_attach(). Not waited for here: a failure is reported by
 * attach(). Takes the fds of @cfg, even on failure.
 * Return: 0 or -errno, @err set.
 */
int jr_unixguard_prestart(const struct jr_unixguard_config *cfg,
			  struct jr_unixguard **out, struct jr_err *err);

/*
 * jr_unixguard_attach - at the pre-exec child's hand-over: pin its
 * --expose sockets, and have the thread take its listener and serve it.
 * Waits until the thread serves, or failed to start or to take the
 * listener (fail closed: the caller aborts the command). Once only.
 * Return: 0 or -errno, @err set.
 */
int jr_unixguard_attach(struct jr_unixguard *g,
			const struct jr_unixguard_listener *l,
			struct jr_err *err);

/* Counts for -v: refused connects and sends, ones run on behalf. */
struct jr_unixguard_stats {
	unsigned long notifications, continued, on_behalf, refused;
};

/* jr_unixguard_stop - stop the thread, close the fds, fill @stats. */
void jr_unixguard_stop(struct jr_unixguard *g,
		       struct jr_unixguard_stats *stats);

/*
 * jr_unixguard_handover - in the pre-exec child, after the filter is
 * loaded: tell the runner the listener's fd number over @ctl with write(2)
 * (sendmsg would trap into the very filter nobody serves yet), and wait for
 * its answer with read(2). The runner fetches the fd itself with
 * pidfd_getfd(2). @interruptible: the filter was loaded without
 * SECCOMP_FILTER_FLAG_WAIT_KILLABLE_RECV (the runner says so at -v).
 * Closes @listener. Return: 0 or -errno, @err set.
 */
int jr_unixguard_handover(int proto, int listener, bool interruptible,
			  struct jr_err *err);

/* UNOTIFY's status: the listener lacks WAIT_KILLABLE_RECV (@interruptible
 * above; jr_seccomp_load()). */
#define JR_UG_WAIT_INTERRUPTIBLE 1

#endif
