/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * cgroup.h - a cgroup of the sandbox's own for --memory, --pids and
 * --cpus, on cgroup v2 or v1 (hybrid) layouts.
 */
#ifndef JR_CGROUP_H
#define JR_CGROUP_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#include "err.h"
#include "limits.h"

struct jr_cgroup;

/* What the cgroup saw, for the summary's "limits"; have_* false: the
 * kernel does not report it (null in the JSON). */
struct jr_cgroup_report {
	bool used;	    /* a cgroup was made for the sandbox */
	const char *layout; /* "v1", "v2" or "mixed" (controllers on both) */
	bool have_memory_peak, have_oom_kills, have_pids_peak;
	bool have_pids_refused;
	uint64_t memory_peak;  /* bytes */
	uint64_t oom_kills;    /* processes the OOM killer ended */
	uint64_t pids_peak;    /* most tasks at once */
	uint64_t pids_refused; /* forks refused at pids.max */
	bool removed;	       /* every directory made was removed */
};

/*
 * jr_cgroup_create - make the sandbox's cgroup(s) under the runner's own,
 * with @l's memory, pids and cpu limits written and read back.
 * Return: 0 and *@out, or -errno with @err saying what to do (exit 125:
 * a limit that cannot be applied is never silently dropped).
 */
int jr_cgroup_create(const struct jr_limits *l, struct jr_cgroup **out,
		     struct jr_err *err);

/* jr_cgroup_attach - move @pid (the sandbox's init) into the cgroup(s). */
int jr_cgroup_attach(struct jr_cgroup *cg, pid_t pid, struct jr_err *err);

/*
 * jr_cgroup_destroy - kill whatever is left in the cgroup(s), read the
 * figures into @rep (may be NULL), remove the directories, free @cg.
 * Waits a bounded time for the processes to go.
 */
void jr_cgroup_destroy(struct jr_cgroup *cg, struct jr_cgroup_report *rep);

/*
 * jr_cgroup_remove_left - remove the cgroup directories a runner @runner
 * (a child of ours that died by a signal, not yet reaped so its pid is
 * not reused) made under our own cgroups and could not remove: whatever
 * is still in them is killed first. Return: how many were removed, or
 * -errno (the first directory that could not be).
 */
int jr_cgroup_remove_left(pid_t runner);

struct jr_json;
/*
 * jr_limits_to_json - the summary's "limits": null without any limit;
 * else the cgroup layout used, each limit and what the kernel counted
 * (null where it does not count it), and the --rlimit values.
 */
void jr_limits_to_json(struct jr_json *j, const struct jr_limits *l,
		       const struct jr_cgroup_report *rep);

/* For --check: print the layout and what jailrun could use, as "  info"
 * lines on stdout. */
void jr_cgroup_check_report(void);

#endif
