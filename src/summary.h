/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * summary.h - the --json summary written when jailrun ends.
 *
 * The format is a contract with eval rigs (documented in jailrun(1), JSON
 * SUMMARY): fields are only ever added, never renamed.
 */
#ifndef JR_SUMMARY_H
#define JR_SUMMARY_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#include "audit.h"
#include "cgroup.h"
#include "fslayout.h"
#include "startup.h"

/* How the run ended; the "ended" field. */
enum jr_end {
	JR_END_EXITED = 0,   /* command exited by itself */
	JR_END_SIGNALED,     /* command killed by a signal */
	JR_END_TIMEOUT,	     /* --timeout expired, sandbox killed */
	JR_END_SETUP_FAILED, /* jailrun failed before the command ran */
	JR_END_EXEC_FAILED,  /* command not found / not executable */
	JR_END_TAMPER,	     /* the watchdog ended the sandbox */
};

struct jr_summary {
	char *const *command;
	int command_argc;
	enum jr_end ended;
	int exit_status; /* jailrun's own exit status */
	int signal;	 /* for JR_END_SIGNALED */
	uint64_t wall_ms;
	const char *net_mode;
	bool rules_verified;
	size_t nft_chains, nft_rules;
	uid_t uid; /* inside the sandbox */
	gid_t gid;
	uid_t host_uid; /* what uid/gid are on the host */
	gid_t host_gid;
	bool rootless;
	const char *error; /* one line, for SETUP/EXEC_FAILED, else NULL */
	/* Relay counts (network mode allowlist); NULL audit: none. */
	const struct jr_audit *audit;
	size_t allow_entries;
	/* --secret/--inspect (secrets.h): "network"."secrets", written only
	 * when @secrets_on; counts, never a value. */
	bool secrets_on;
	size_t secrets_bound;
	uint64_t inspected_requests, secret_injected, secret_misuse;
	/* Watchdog. */
	unsigned int tamper_events, restores;
	/* git files the command added that git would follow to code,
	 * moved aside at exit (gitsweep.c) */
	unsigned int git_quarantined;
	uint64_t max_restore_us;
	/* The filesystem layout; NULL: "filesystem" is null. */
	const struct jr_fs_plan *fs;
	int landlock_abi; /* "filesystem"."landlock"; 0: null */
	/* Start-up phases; NULL or not complete: "startup_us" is null. */
	const struct jr_startup *startup;
	/* "limits" (cgroup.c): NULL: null. */
	const struct jr_limits *limits;
	const struct jr_cgroup_report *limits_report;
};

const char *jr_end_name(enum jr_end end);

/*
 * jr_summary_to_json - render @s as one JSON object followed by a newline.
 * Return: 0 and *out (malloc'd), or -ENOMEM.
 */
int jr_summary_to_json(const struct jr_summary *s, char **out);

#endif
