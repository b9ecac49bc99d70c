/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * sandbox.h - the runner's side of one sandbox, from clone() to the
 * command's end.
 */
#ifndef JR_SANDBOX_H
#define JR_SANDBOX_H

#include <stdbool.h>
#include <stddef.h>

#include "cgroup.h"
#include "err.h"
#include "fslayout.h"
#include "ids.h"
#include "audit.h"
#include "options.h"
#include "policy.h"
#include "startup.h"
#include "summary.h"
#include "watchdog.h"

struct jr_run_result {
	enum jr_end ended;
	int exit_status; /* what jailrun exits with */
	int signal;	 /* JR_END_SIGNALED: the signal */
	bool rules_verified;
	size_t nft_chains, nft_rules;
	/* Packets the worker's closing rejects refused (nft.h,
	 * jr_nft_counters_read()); 0 when no sandbox was made. @..._unread:
	 * the counters were there but could not be read. */
	uint64_t firewall_refused;
	bool firewall_refused_unread;
	struct jr_watchdog_report watchdog;
	int landlock_abi; /* the Landlock ABI applied to the command; 0: none */
	struct jr_err err; /* for SETUP_FAILED / EXEC_FAILED / TAMPER */
	/* Start-up phases; the caller may jr_startup_begin() it before the
	 * call to count its own preparation, and jr_sandbox_run keeps that. */
	struct jr_startup startup;
	struct jr_cgroup_report limits; /* --memory/--pids/--cpus (cgroup.c) */
};

/*
 * jr_sandbox_run - create the sandbox, lock it down, verify the lockdown,
 * run the command and wait for it.
 * @opts: parsed options
 * @ids: who the command runs as
 * @fs: the filesystem layout, planned (fslayout.h)
 * @policy: the allowlist (JR_NET_ALLOWLIST)
 * @audit: where the relay logs and counts
 * @res: how it ended; filled in every case (@res->startup is kept, see
 *        struct jr_run_result)
 *
 * Must be called while the process is single-threaded (it forks).
 * Return: 0 if the command ran (its status is in @res), -errno if jailrun
 * failed before it ran (then @res->err says why and exit_status is 125).
 */
int jr_sandbox_run(const struct jr_options *opts, const struct jr_ids *ids,
		   const struct jr_fs_plan *fs, const struct jr_policy *policy,
		   struct jr_audit *audit, struct jr_run_result *res);

#endif
