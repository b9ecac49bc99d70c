// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * summary.c - rendering the run summary as JSON (see summary.h).
 */

#include <errno.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>

#include "clock.h"
#include "exitcode.h"
#include "json.h"
#include "summary.h"

const char *jr_end_name(enum jr_end end)
{
	switch (end) {
	case JR_END_EXITED:
		return "exited";
	case JR_END_SIGNALED:
		return "signaled";
	case JR_END_TIMEOUT:
		return "timeout";
	case JR_END_SETUP_FAILED:
		return "setup-failed";
	case JR_END_EXEC_FAILED:
		return "exec-failed";
	case JR_END_TAMPER:
		return "tamper-killed";
	case JR_END_OOM:
		return "oom-killed";
	case JR_END_STOPPED:
		return "stopped";
	}
	return "unknown";
}

enum jr_end jr_end_with_oom(enum jr_end ended, int exit_status,
			    const struct jr_cgroup_report *rep)
{
	if (ended != JR_END_EXITED && ended != JR_END_SIGNALED)
		return ended;
	if (!rep || !rep->have_oom_kills || rep->oom_kills == 0)
		return ended;
	/* The OOM killer sends SIGKILL; a command that exits 137 on its own
	 * while another of its processes was OOM-killed is a shell telling
	 * what happened to its child (128 + 9, as jailrun itself does). */
	if (exit_status != JR_EXIT_SIGNAL_BASE + SIGKILL)
		return ended;
	return JR_END_OOM;
}

unsigned int jr_limits_hit_of(enum jr_end ended,
			      const struct jr_cgroup_report *rep)
{
	unsigned int hit = 0;

	if (ended == JR_END_OOM ||
	    (rep && rep->have_oom_kills && rep->oom_kills > 0))
		hit |= JR_LIMIT_HIT_MEMORY;
	if (rep && rep->have_pids_refused && rep->pids_refused > 0)
		hit |= JR_LIMIT_HIT_PIDS;
	if (ended == JR_END_TIMEOUT)
		hit |= JR_LIMIT_HIT_TIMEOUT;
	return hit;
}

/* "limits_hit": the names of @hit's bits, in a fixed order. */
static void limits_hit_to_json(struct jr_json *j, unsigned int hit)
{
	static const struct {
		unsigned int bit;
		const char *name;
	} names[] = {
		{ JR_LIMIT_HIT_MEMORY, "memory" },
		{ JR_LIMIT_HIT_PIDS, "pids" },
		{ JR_LIMIT_HIT_TIMEOUT, "timeout" },
	};

	jr_json_key(j, "limits_hit");
	jr_json_array_begin(j);
	for (size_t i = 0; i < sizeof(names) / sizeof(names[0]); i++)
		if (hit & names[i].bit)
			jr_json_string(j, names[i].name);
	jr_json_array_end(j);
}

static void string_array(struct jr_json *j, const char *key,
			 const char *const *v, size_t n)
{
	jr_json_key(j, key);
	jr_json_array_begin(j);
	for (size_t i = 0; i < n; i++)
		jr_json_string(j, v[i]);
	jr_json_array_end(j);
}

/*
 * "policy": what a rig needs to know what ran, as given (config files
 * and profiles included, since they become options): the network mode,
 * each kind of allow entry, the lanes, the filesystem mode, --user,
 * --timeout and --seccomp. The counts and limits are elsewhere.
 */
static void policy_to_json(struct jr_json *j, const struct jr_options *o)
{
	jr_json_key(j, "policy");
	if (!o) {
		jr_json_null(j);
		return;
	}
	jr_json_object_begin(j);
	jr_json_key(j, "net");
	jr_json_string(j, jr_options_net_mode(o));
	string_array(j, "allow", o->allow, o->n_allow);
	string_array(j, "allow_files", o->allow_files, o->n_allow_files);
	string_array(j, "allow_private", o->allow_private, o->n_allow_private);
	string_array(j, "allow_http", o->allow_http, o->n_allow_http);
	jr_json_key(j, "lanes");
	jr_json_array_begin(j);
	for (size_t i = 0; i < o->lanes.n_lane; i++)
		jr_json_string(j, o->lanes.lane[i].text);
	jr_json_array_end(j);
	jr_json_key(j, "fs");
	jr_json_string(j, jr_fs_mode_name(o->fs_mode));
	jr_json_key(j, "user");
	jr_json_string(j, o->user);
	jr_json_key(j, "timeout_ms");
	if (o->timeout_ms)
		jr_json_uint(j, o->timeout_ms);
	else
		jr_json_null(j);
	jr_json_key(j, "seccomp");
	jr_json_bool(j, o->seccomp);
	jr_json_object_end(j);
}

/* "started_at"/"ended_at": RFC 3339 UTC with milliseconds; 0: null. */
static void stamp_to_json(struct jr_json *j, const char *key, uint64_t unix_ms)
{
	char when[JR_CLOCK_UTC_SIZE];

	jr_json_key(j, key);
	if (!unix_ms) {
		jr_json_null(j);
		return;
	}
	jr_clock_format_utc(unix_ms, when);
	jr_json_string(j, when);
}

/*
 * "startup_us": each phase, how much of them ran in parallel, and the
 * total from main() to the command's start, and "teardown_us": from the command's end to the summary. null
 * when the command never started: a partial breakdown has no total to
 * compare with.
 */
static void startup_to_json(struct jr_json *j, const struct jr_startup *st)
{
	jr_json_key(j, "startup_us");
	if (!st || !st->complete) {
		jr_json_null(j);
		jr_json_key(j, "teardown_us");
		jr_json_null(j);
		return;
	}
	jr_json_object_begin(j);
	for (int p = 0; p < JR_PHASE_COUNT; p++) {
		jr_json_key(j, jr_startup_phase_name(p));
		jr_json_uint(j, st->us[p]);
	}
	/* How much of the phases ran at the same time (startup.h). */
	jr_json_key(j, "parallel");
	jr_json_uint(j, st->parallel_us);
	jr_json_key(j, "total");
	jr_json_uint(j, st->total_us);
	jr_json_object_end(j);
	jr_json_key(j, "teardown_us");
	jr_json_uint(j, st->teardown_us);
}

/*
 * "filesystem": the mode, the writable roots and those of them idmapped
 * (idmap.h), how many paths were hidden,
 * the size of each tmpfs, how many git files the command added were set
 * aside at exit (gitsweep.c), and the Landlock ABI in force (null: none).
 */
static void fs_to_json(struct jr_json *j, const struct jr_fs_plan *fs,
		       int landlock_abi, unsigned int git_quarantined)
{
	jr_json_key(j, "filesystem");
	if (!fs) {
		jr_json_null(j);
		return;
	}
	jr_json_object_begin(j);
	jr_json_key(j, "mode");
	jr_json_string(j, jr_fs_mode_name(fs->mode));
	jr_json_key(j, "writable");
	jr_json_array_begin(j);
	for (size_t i = 0; fs->mode == JR_FS_ISOLATED && i < fs->n_ops; i++)
		if (fs->ops[i].kind == JR_FS_OP_RW)
			jr_json_string(j, fs->ops[i].path);
	jr_json_array_end(j);
	jr_json_key(j, "idmapped");
	jr_json_array_begin(j);
	for (size_t i = 0; fs->mode == JR_FS_ISOLATED && i < fs->n_ops; i++)
		if (fs->ops[i].idmap_fd >= 0)
			jr_json_string(j, fs->ops[i].path);
	jr_json_array_end(j);
	jr_json_key(j, "hidden");
	jr_json_uint(j, fs->n_hidden);
	jr_json_key(j, "tmpfs_size");
	jr_json_uint(j, fs->tmpfs_size);
	jr_json_key(j, "git_quarantined");
	jr_json_uint(j, git_quarantined);
	jr_json_key(j, "landlock");
	if (landlock_abi > 0)
		jr_json_uint(j, (uint64_t)landlock_abi);
	else
		jr_json_null(j);
	jr_json_object_end(j);
}

/* "network": the mode, the firewall's figures and the relay's counts. */
static void network_to_json(struct jr_json *j, const struct jr_summary *s)
{
	const struct jr_audit *a = s->audit;

	jr_json_key(j, "network");
	jr_json_object_begin(j);
	jr_json_key(j, "mode");
	jr_json_string(j, s->net_mode);
	jr_json_key(j, "rules_verified");
	jr_json_bool(j, s->rules_verified);
	jr_json_key(j, "nft_chains");
	jr_json_uint(j, s->nft_chains);
	jr_json_key(j, "nft_rules");
	jr_json_uint(j, s->nft_rules);
	jr_json_key(j, "firewall_refused");
	if (s->firewall_refused_unread)
		jr_json_null(j);
	else
		jr_json_uint(j, s->firewall_refused);
	jr_json_key(j, "allow_entries");
	jr_json_uint(j, s->allow_entries);
	jr_json_key(j, "allowed");
	jr_json_uint(j, a ? a->allowed : 0);
	jr_json_key(j, "denied");
	jr_json_uint(j, a ? a->denied : 0);
	jr_json_key(j, "denied_destinations");
	jr_json_array_begin(j);
	for (size_t i = 0; a && i < a->n_denied_dest; i++) {
		jr_json_object_begin(j);
		jr_json_key(j, "destination");
		jr_json_string(j, a->denied_dest[i].dest);
		jr_json_key(j, "count");
		jr_json_uint(j, a->denied_dest[i].count);
		jr_json_object_end(j);
	}
	jr_json_array_end(j);
	jr_json_key(j, "synthetic_names");
	jr_json_uint(j, a ? a->synthetic_names : 0);
	jr_json_key(j, "control_changes");
	jr_json_uint(j, a ? a->control_changes : 0);
	jr_json_key(j, "http_rule_denied");
	jr_json_uint(j, a ? a->http_rule_denied : 0);
	jr_json_key(j, "ask");
	jr_json_object_begin(j);
	jr_json_key(j, "approved");
	jr_json_uint(j, a ? a->ask_approved : 0);
	jr_json_key(j, "denied");
	jr_json_uint(j, a ? a->ask_denied : 0);
	jr_json_key(j, "timed_out");
	jr_json_uint(j, a ? a->ask_timed_out : 0);
	jr_json_object_end(j);
	if (s->secrets_on) {
		jr_json_key(j, "secrets");
		jr_json_object_begin(j);
		jr_json_key(j, "bound");
		jr_json_uint(j, s->secrets_bound);
		jr_json_key(j, "inspected_requests");
		jr_json_uint(j, s->inspected_requests);
		jr_json_key(j, "injected_requests");
		jr_json_uint(j, s->secret_injected);
		jr_json_key(j, "secret_misuse");
		jr_json_uint(j, s->secret_misuse);
		jr_json_object_end(j);
	}
	jr_json_key(j, "tamper_events");
	jr_json_uint(j, s->tamper_events);
	jr_json_key(j, "restores");
	jr_json_uint(j, s->restores);
	jr_json_key(j, "max_restore_us");
	jr_json_uint(j, s->max_restore_us);
	jr_json_object_end(j);
}

/* "user": who the command ran as; null when set-up failed first. */
static void user_to_json(struct jr_json *j, const struct jr_summary *s)
{
	jr_json_key(j, "user");
	if (s->user_unknown) {
		jr_json_null(j);
		return;
	}
	jr_json_object_begin(j);
	jr_json_key(j, "uid");
	jr_json_uint(j, s->uid);
	jr_json_key(j, "gid");
	jr_json_uint(j, s->gid);
	jr_json_key(j, "host_uid");
	jr_json_uint(j, s->host_uid);
	jr_json_key(j, "host_gid");
	jr_json_uint(j, s->host_gid);
	jr_json_key(j, "rootless");
	jr_json_bool(j, s->rootless);
	jr_json_object_end(j);
}

int jr_summary_to_json(const struct jr_summary *s, char **out)
{
	static const char *const namespaces[] = { "user", "net", "pid",
						  "mnt",  "ipc", "uts" };
	struct jr_json j;
	const char *text;

	jr_json_init(&j);
	jr_json_object_begin(&j);
	jr_json_key(&j, "version");
	jr_json_uint(&j, JR_SUMMARY_VERSION);
	jr_json_key(&j, "jailrun_version");
	jr_json_string(&j, PACKAGE_VERSION);
	jr_json_key(&j, "run_id");
	jr_json_string(&j, s->run_id);
	jr_json_key(&j, "label");
	jr_json_string(&j, s->label);
	stamp_to_json(&j, "started_at", s->started_unix_ms);
	stamp_to_json(&j, "ended_at", s->ended_unix_ms);
	jr_json_key(&j, "command");
	jr_json_array_begin(&j);
	for (int i = 0; i < s->command_argc; i++)
		jr_json_string(&j, s->command[i]);
	jr_json_array_end(&j);
	jr_json_key(&j, "exit_status");
	jr_json_int(&j, s->exit_status);
	jr_json_key(&j, "ended");
	jr_json_string(&j, jr_end_name(s->ended));
	jr_json_key(&j, "signal");
	if ((s->ended == JR_END_SIGNALED || s->ended == JR_END_OOM) &&
	    s->signal > 0)
		jr_json_int(&j, s->signal);
	else
		jr_json_null(&j);
	limits_hit_to_json(&j, s->limits_hit);
	jr_json_key(&j, "wall_time_ms");
	jr_json_uint(&j, s->wall_ms);
	jr_json_key(&j, "namespaces");
	jr_json_array_begin(&j);
	for (size_t i = 0; i < sizeof(namespaces) / sizeof(namespaces[0]); i++)
		jr_json_string(&j, namespaces[i]);
	jr_json_array_end(&j);
	network_to_json(&j, s);
	user_to_json(&j, s);
	fs_to_json(&j, s->fs, s->landlock_abi, s->git_quarantined);
	jr_json_key(&j, "error");
	jr_json_string(&j, s->error);
	startup_to_json(&j, s->startup);
	jr_limits_to_json(&j, s->limits, s->limits_report);
	policy_to_json(&j, s->policy);
	jr_json_object_end(&j);

	text = jr_json_finish(&j);
	if (!text) {
		jr_json_release(&j);
		return -ENOMEM;
	}
	*out = malloc(j.len + 2);
	if (!*out) {
		jr_json_release(&j);
		return -ENOMEM;
	}
	memcpy(*out, text, j.len);
	(*out)[j.len] = '\n';
	(*out)[j.len + 1] = '\0';
	jr_json_release(&j);
	return 0;
}
