/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * init.h - the sandbox's PID 1: sets up the namespaces from inside, starts
 * the command, reaps orphans, forwards signals, reports how it ended.
 */
#ifndef JR_INIT_H
#define JR_INIT_H

#include <stdbool.h>

#include "envplan.h"
#include "fslayout.h"
#include "ids.h"
#include "options.h"
#include "landlock.h"
#include "seccomp.h"

struct jr_init_args {
	int proto;	  /* runner-init protocol, init's end (initproto.h) */
	int runner_pidfd; /* pidfd of the runner: readable once it is dead */
	const struct jr_ids *ids;
	char *const *command; /* argv, NULL-terminated */
	int pty_slave;	      /* -1: no pty */
	bool pty_std[3];      /* which of fds 0,1,2 become the pty */
	enum jr_net_mode net;
	struct jr_gateway gateway; /* JR_NET_ALLOWLIST */
	bool transparent;	   /* JR_NET_ALLOWLIST: --transparent on */
	bool ipv6; /* with transparent: the link gets IPv6 (relaynet.h) */
	/* --ask: the relay may hold a lookup for a decision, so the
	 * command's resolver waits as long as glibc allows (resolv.conf) */
	bool ask;
	uid_t caller_uid;    /* the runner's uid, for /run/user/UID sockets */
	char *const *expose; /* --expose */
	size_t n_expose;
	/* --seccomp on: GO carries the filter (initproto.h), built meanwhile */
	bool seccomp;
	const struct jr_fs_plan *fs; /* the filesystem layout */
	/* Landlock (abi 0: not used) */
	const struct jr_landlock_config *landlock;
	const struct jr_lanes *lanes; /* --lane, --publish (lane.h) */
	/* the host lanes are served on the sandbox's [::1] too */
	bool lane_ipv6;
	/* --secret/--inspect: the host's CA bundle plus the sandbox's CA
	 * (secrets.c), shown over the system trust paths; NULL: none. */
	const char *trust_bundle;
	/* With transparent: the sandbox's /etc/hosts (hostsfile.h), shown
	 * read-only over the host's; NULL: the host's as it is. */
	const char *etc_hosts;
	/* --rlimit, set in the pre-exec child */
	const struct jr_limits *limits;
	/* the command's environment (envplan.h), applied by the pre-exec
	 * child */
	const struct jr_env_plan *env;
	/* moved into a cgroup of its own: take a new cgroup namespace */
	bool cgroup_ns;
	/* jailrun start: the runner's socketpair end for the zygote
	 * (zygote.h), which replaces the command; -1: a run */
	int live_fd;
};

/* Signals the runner forwards to init and init forwards to the command. */
extern const int jr_forwarded_signals[];
extern const int jr_forwarded_signals_count;

/*
 * jr_exec_search - execv() @argv[0], searched on $PATH as the shells do
 * (init.c says why not execvp(3)); returns only on failure, errno set.
 */
void jr_exec_search(char *const argv[]);

/* Runs in the new namespaces as their PID 1; never returns. */
__attribute__((noreturn)) void jr_init_main(const struct jr_init_args *a);

#endif
