/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * summary.h - the --json summary written when jailrun ends.
 *
 * The format is a contract with eval rigs (documented in jailrun(1), JSON
 * SUMMARY, and as a JSON Schema in docs/schema/summary.schema.json):
 * fields are only ever added, never renamed. "version" is the schema's
 * version: it changes only when a field changes meaning or goes away.
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
#include "options.h"
#include "startup.h"

/* The summary's "version": the schema version, not jailrun's. */
#define JR_SUMMARY_VERSION 1

/* How the run ended; the "ended" field. */
enum jr_end {
	JR_END_EXITED = 0,   /* command exited by itself */
	JR_END_SIGNALED,     /* command killed by a signal */
	JR_END_TIMEOUT,	     /* --timeout expired, sandbox killed */
	JR_END_SETUP_FAILED, /* jailrun failed before the command ran */
	JR_END_EXEC_FAILED,  /* command not found / not executable */
	JR_END_TAMPER,	     /* the watchdog ended the sandbox */
	JR_END_OOM,	     /* the OOM killer ended the command (--memory) */
	JR_END_STOPPED,	     /* a live sandbox (or pool's) stopped as asked */
};

/* What ended or constrained a run: the "limits_hit" array, one bit each. */
enum jr_limit_hit {
	JR_LIMIT_HIT_MEMORY = 1 << 0,  /* the cgroup's OOM killer killed */
	JR_LIMIT_HIT_PIDS = 1 << 1,    /* a fork was refused at --pids */
	JR_LIMIT_HIT_TIMEOUT = 1 << 2, /* --timeout expired */
};

struct jr_summary {
	const char *run_id;			 /* runid.h */
	const char *label;			 /* --label, NULL: null */
	uint64_t started_unix_ms, ended_unix_ms; /* wall clock, for stamps */
	unsigned int limits_hit;		 /* enum jr_limit_hit bits */
	/* The options that say what ran ("policy"); NULL: null. */
	const struct jr_options *policy;
	char *const *command;
	int command_argc;
	enum jr_end ended;
	int exit_status; /* jailrun's own exit status */
	int signal;	 /* the signal that ended the command; 0: null */
	uint64_t wall_ms;
	const char *net_mode;
	bool rules_verified;
	size_t nft_chains, nft_rules;
	/* "firewall_refused": packets the worker's rejects refused;
	 * firewall_refused_unread: null (the counters could not be read) */
	uint64_t firewall_refused;
	bool firewall_refused_unread;
	bool user_unknown; /* set-up failed before the user was known: null */
	uid_t uid;	   /* inside the sandbox */
	gid_t gid;
	uid_t host_uid; /* what uid/gid are on the host */
	gid_t host_gid;
	bool rootless;
	const char
	    *error; /* one line, for SETUP/EXEC_FAILED, OOM..., or NULL */
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
 * jr_end_with_oom - how a run that ended as @ended with status
 * @exit_status reads, given what its cgroup saw (@rep, may be NULL): a
 * command that died of SIGKILL (or a shell that reports 128+9 for it)
 * while the cgroup's OOM killer killed was ended by --memory, and reads
 * JR_END_OOM; anything else is returned as it is. Pure.
 */
enum jr_end jr_end_with_oom(enum jr_end ended, int exit_status,
			    const struct jr_cgroup_report *rep);

/*
 * jr_limits_hit_of - the "limits_hit" bits of a run that ended as @ended,
 * whose cgroup saw @rep (may be NULL). Pure.
 */
unsigned int jr_limits_hit_of(enum jr_end ended,
			      const struct jr_cgroup_report *rep);

/*
 * jr_summary_to_json - render @s as one JSON object followed by a newline.
 * Return: 0 and *out (malloc'd), or -ENOMEM.
 */
int jr_summary_to_json(const struct jr_summary *s, char **out);

#endif
