/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * unixguard.h - no pathname unix socket of the host is connectable from
 * inside the sandbox: the seccomp user-notification supervisor (runner
 * side), plus the pure parts (address parsing, decision table) that the unit
 * tests drive. See the theory of operation at the top of unixguard.c.
 */
#ifndef JR_UNIXGUARD_H
#define JR_UNIXGUARD_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>
#include <sys/un.h>

#include "err.h"

/* The syscalls the filter hands to the supervisor. */
enum jr_ug_call {
	JR_UG_CONNECT,
	JR_UG_SENDTO,
	JR_UG_SENDMSG,
	JR_UG_SENDMMSG,
	JR_UG_OTHER, /* a number we do not know (i386 socketcall) */
};

/* What a sockaddr given to connect/sendto/sendmsg is, for an AF_UNIX socket. */
enum jr_ug_addr {
	JR_UG_ADDR_NONE,     /* NULL or length 0: no address */
	JR_UG_ADDR_UNSPEC,   /* AF_UNSPEC: dgram disconnect */
	JR_UG_ADDR_UNNAMED,  /* only sun_family: autobind / unnamed */
	JR_UG_ADDR_ABSTRACT, /* sun_path[0] == 0: per network namespace */
	JR_UG_ADDR_PATH,     /* a pathname: the case this module exists for */
	JR_UG_ADDR_INVALID,  /* another family, or a length out of range */
};

/* What the supervisor does with one notification. */
enum jr_ug_action {
	JR_UG_ON_BEHALF,  /* run it ourselves with our copies, on our socket */
	JR_UG_CHECK_PATH, /* resolve, pin, decide; run it on the pinned inode */
	JR_UG_REFUSE,	  /* answer an error without running it */
};

/*
 * jr_unixguard_parse_addr - classify the @len bytes at @sa (a copy read from
 * the task) as an AF_UNIX address, the way net/unix/af_unix.c reads it
 * (unix_validate_addr, unix_mkname_bsd). For JR_UG_ADDR_PATH, @path receives
 * the NUL-terminated path (sun_path need not be terminated: the kernel
 * stops at the length).
 */
enum jr_ug_addr jr_unixguard_parse_addr(
    const void *sa, size_t len,
    char path[sizeof(((struct sockaddr_un *)0)->sun_path) + 1]);

/*
 * jr_unixguard_decide - the decision table: @call on a socket of @domain
 * and @type with an address of kind @addr (as an AF_UNIX address: any
 * other family reads as JR_UG_ADDR_INVALID). Every call is run on behalf
 * or refused, never continued (SECCOMP_USER_NOTIF_FLAG_CONTINUE would
 * have the kernel re-read the fd and the address). Pure.
 */
enum jr_ug_action jr_unixguard_decide(enum jr_ug_call call, int domain,
				      int type, enum jr_ug_addr addr);

/*
 * jr_unixguard_cmsg_check - may a control message of @level and @type be
 * passed on a socket of @domain in a send run on behalf? AF_UNIX: only
 * SCM_RIGHTS (the caller swaps in its own copies of the descriptors).
 * Other families: only messages the kernel checks against the socket,
 * not the sender's capabilities (the runner has more than the command).
 * Return: 0, or the -errno to answer. Pure.
 */
int jr_unixguard_cmsg_check(int domain, int level, int type);

/*
 * jr_unixguard_tcp_port_allowed - Landlock's TCP connect rule, for a
 * connect the supervisor runs itself (the runner is not under the
 * command's Landlock domain): may a socket of @domain and @type connect to
 * the @len bytes at @sa, given the allowed @ports (host order)? Only
 * AF_INET/AF_INET6 stream sockets with an AF_INET/AF_INET6 address of a
 * valid length are judged; anything else is left to the kernel (AF_UNSPEC
 * disconnects, short or mismatched addresses get the kernel's own errors).
 * False: answer EACCES, as Landlock does. Pure.
 */
bool jr_unixguard_tcp_port_allowed(const uint16_t *ports, size_t n_ports,
				   int domain, int type, const void *sa,
				   size_t len);

/*
 * jr_unixguard_kdev_matches - does a kernel-internal dev_t (what unix_diag
 * reports: MAJOR << 20 | MINOR) name the same device as a userspace st_dev?
 */
bool jr_unixguard_kdev_matches(unsigned int kdev, dev_t st_dev);

struct jr_unixguard;

struct jr_unixguard_config {
	int listener; /* seccomp notification fd; taken over */
	int diag;     /* NETLINK_SOCK_DIAG socket of the worker netns;
			      taken over */
	const char *const *expose; /* --expose paths, in the sandbox's view */
	size_t n_expose;
	/* The command's Landlock TCP connect rule (landlock.h), which the
	 * connects run on behalf must obey: copied. */
	bool tcp;
	const uint16_t *ports;
	size_t n_ports;
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
 * jr_unixguard_start - serve @cfg->listener in a thread of the runner.
 * Takes both fds of @cfg, even on failure. Return: 0 or -errno, @err set.
 */
int jr_unixguard_start(const struct jr_unixguard_config *cfg,
		       struct jr_unixguard **out, struct jr_err *err);

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
int jr_unixguard_handover(int ctl, int listener, bool interruptible,
			  struct jr_err *err);

/* UNOTIFY's status: the listener lacks WAIT_KILLABLE_RECV (@interruptible
 * above; jr_seccomp_load()). */
#define JR_UG_WAIT_INTERRUPTIBLE 1

#endif
