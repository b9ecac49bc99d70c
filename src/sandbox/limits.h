/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * limits.h - resource limits asked for on the command line: --rlimit
 * (setrlimit in the pre-exec child) and --memory, --pids, --cpus (a cgroup
 * of the sandbox's own, cgroup.c). Parsing is pure and unit-tested.
 */
#ifndef JR_LIMITS_H
#define JR_LIMITS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "err.h"

/* The resources --rlimit knows (setrlimit(2)), in one fixed order. */
enum jr_rlimit_name {
	JR_RLIMIT_NOFILE = 0,
	JR_RLIMIT_NPROC,
	JR_RLIMIT_AS,
	JR_RLIMIT_FSIZE,
	JR_RLIMIT_CPU,
	JR_RLIMIT_CORE,
	JR_RLIMIT_STACK,
	JR_RLIMIT_COUNT,
};

/* "unlimited": RLIM_INFINITY, allowed only where the hard limit is. */
#define JR_RLIMIT_UNLIMITED UINT64_MAX

/* cpu.max / cpu.cfs_period_us: the kernel's default period. */
#define JR_CPU_PERIOD_US 100000ULL
#define JR_CPUS_MAX_MILLI 1024000ULL /* 1024 CPUs */
#define JR_PIDS_MAX 4194304ULL	     /* PID_MAX_LIMIT */
#define JR_MEMORY_MIN (1ULL << 20)   /* less cannot even start the sandbox */

struct jr_limits {
	/* --rlimit: set[i] says whether resource i was given (last wins). */
	bool rlimit_set[JR_RLIMIT_COUNT];
	uint64_t rlimit[JR_RLIMIT_COUNT]; /* soft = hard = this */
	uint64_t memory;		  /* --memory bytes, 0: none */
	uint64_t pids;			  /* --pids, 0: none */
	uint64_t cpus_milli;		  /* --cpus x 1000, 0: none */
};

/* The name --rlimit takes for @r ("nofile", ...). */
const char *jr_rlimit_name(enum jr_rlimit_name r);

/* Whether any limit needs a cgroup (--memory, --pids, --cpus). */
bool jr_limits_need_cgroup(const struct jr_limits *l);

/*
 * jr_limits_parse_rlimit - parse "NAME=VALUE" for --rlimit into @l.
 * VALUE is a number, with k/m/g for the sizes (as, fsize, core, stack),
 * or "unlimited". Return: 0 or -EINVAL with @err naming the rule.
 */
int jr_limits_parse_rlimit(const char *arg, struct jr_limits *l,
			   struct jr_err *err);

/* --memory BYTES (k/m/g), --pids N, --cpus N (up to 3 decimals). */
int jr_limits_parse_memory(const char *arg, struct jr_limits *l,
			   struct jr_err *err);
int jr_limits_parse_pids(const char *arg, struct jr_limits *l,
			 struct jr_err *err);
int jr_limits_parse_cpus(const char *arg, struct jr_limits *l,
			 struct jr_err *err);

/*
 * jr_rlimits_check - in the runner, before anything runs: every --rlimit
 * must be at most the current hard limit, since no process in the sandbox
 * may raise one (that takes CAP_SYS_RESOURCE in the initial user
 * namespace). Return: 0 or -EPERM with @err saying what to raise.
 */
int jr_rlimits_check(const struct jr_limits *l, struct jr_err *err);

/*
 * jr_rlimits_apply - in the pre-exec child: setrlimit() each given
 * resource, soft = hard, and read it back. Return: 0 or -errno.
 */
int jr_rlimits_apply(const struct jr_limits *l, struct jr_err *err);

#endif
