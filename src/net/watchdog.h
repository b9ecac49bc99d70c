/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * watchdog.h - keeping the sandbox's network lockdown true for its whole
 * life: a thread of the runner that re-verifies the worker's ruleset on
 * every nf_tables change notification and on a timer, restores it when it
 * was tampered with (or ends the sandbox), and checks that every process
 * of the sandbox is still in the worker network namespace.
 */
#ifndef JR_WATCHDOG_H
#define JR_WATCHDOG_H

#include <stdbool.h>
#include <stdint.h>
#include <sys/types.h>

#include "audit.h"
#include "err.h"
#include "ruleset.h"

struct mnl_socket;

struct jr_watchdog_config {
	struct mnl_socket *nl;	     /* the table's owner socket; from now on
					only the watchdog uses it */
	struct mnl_socket *mon;	     /* notifications; the watchdog takes it */
	const struct jr_ruleset *rs; /* what must be installed */
	uint64_t interval_ms;	     /* periodic verification */
	bool kill_on_tamper;	     /* --on-tamper kill */
	bool allow_nested;	     /* other netns allowed for the command */
	pid_t init_pid;		     /* the sandbox's PID 1, in our pid ns */
	struct jr_audit *audit;
	pid_t factory_pid; /* --publish's socket factory (publish.h), which
			      lives in the relay netns; 0: none */
	/* --transparent on: the relay netns's table (the capture rules),
	 * watched the same way; NULL: none */
	struct mnl_socket *relay_nl;	   /* its owner socket, as @nl */
	struct mnl_socket *relay_mon;	   /* notifications; taken, as @mon */
	const struct jr_ruleset *relay_rs; /* what it must hold */
};

struct jr_watchdog_report {
	unsigned int tamper_events; /* times the lockdown was found wrong */
	unsigned int restores;	    /* times it was put back */
	uint64_t max_restore_us;    /* longest detection-to-verified restore */
	bool killed;		    /* the watchdog ended the sandbox */
	char reason[512];	    /* why (first tamper, or why it killed) */
};

struct jr_watchdog;

/*
 * jr_watchdog_start - record the sandbox's namespaces and start the thread.
 * Return: 0 and *out, or -errno with @err set (cfg->mon is closed).
 */
int jr_watchdog_start(const struct jr_watchdog_config *cfg,
		      struct jr_watchdog **out, struct jr_err *err);

/* Stop the thread, fill @rep (may be NULL), free. NULL is a no-op. */
void jr_watchdog_stop(struct jr_watchdog *w, struct jr_watchdog_report *rep);

#endif
