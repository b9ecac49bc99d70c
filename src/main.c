// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * main.c - jailrun's entry point: parse, decide who runs the command, run
 * the sandbox, report, and exit with the contract's status.
 *
 * Only this file (and the pre-exec child) decides to exit; everything below
 * returns errors as values (docs/architecture.md, "Errors").
 */

#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "audit.h"
#include "notify.h"
#include "check.h"
#include "cleanup.h"
#include "clock.h"
#include "cmdenv.h"
#include "control.h"
#include "control_client.h"
#include "conffile.h"
#include "io.h"
#include "exitcode.h"
#include "fdlimit.h"
#include "fslayout.h"
#include "idmap.h"
#include "fspolicy.h"
#include "ids.h"
#include "learn.h"
#include "live.h"
#include "log.h"
#include "options.h"
#include "outfile.h"
#include "policy.h"
#include "httprules.h"
#include "runid.h"
#include "sandbox.h"
#include "gitsweep.h"
#include "inspect_start.h"
#include "secrets.h"
#include "startup.h"
#include "summary.h"

static int write_summary(int fd, const char *path, const struct jr_summary *s)
{
	_cleanup_free_ char *text = NULL;
	int r;

	if (fd < 0)
		return 0;
	r = jr_summary_to_json(s, &text);
	if (r < 0) {
		jr_error("cannot render the JSON summary: %s", strerror(-r));
		return r;
	}
	r = jr_write_all(fd, text, strlen(text));
	if (r == 0 && fsync(fd) < 0 && errno != EINVAL && errno != EROFS)
		r = -errno;
	if (r < 0)
		jr_error("cannot write the JSON summary to %s: %s", path,
			 strerror(-r));
	return r;
}

/*
 * --allow-http rules: kept for the whole run (the relay reads them through
 * policy->http_rules), static so an early exit leaves nothing unreachable.
 * Each rule's host:port is allowed implicitly (httprules.c says why).
 */
static struct jr_httprules http_rules;

static int load_http_rules(const struct jr_options *opts,
			   struct jr_policy *policy, struct jr_err *err)
{
	char entry[JR_HOST_MAX + 16];

	jr_httprules_init(&http_rules);
	for (size_t i = 0; i < opts->n_allow_http; i++) {
		const struct jr_http_rule *rule;

		if (jr_httprules_add(&http_rules, opts->allow_http[i], err) < 0)
			return -EINVAL;
		rule = &http_rules.rules[http_rules.n - 1];
		if (jr_httprule_policy_entry(rule, entry, sizeof(entry)) < 0)
			return jr_err_set(
			    err, EINVAL, "--allow-http '%.200s': host too long",
			    rule->text);
		if (jr_policy_add(policy, entry, err) < 0)
			return jr_err_prefix(
			    err, "--allow-http '%.200s': ", rule->text);
	}
	policy->http_rules = http_rules.n ? &http_rules : NULL;
	return 0;
}

/* Does an --allow-http rule need TLS inspection (an https:// rule)? */
static bool https_rules(const struct jr_policy *policy)
{
	const struct jr_httprules *hr = policy->http_rules;

	for (size_t i = 0; hr && i < hr->n; i++)
		if (hr->rules[i].https)
			return true;
	return false;
}

static int fail_early(struct jr_options *opts, struct jr_policy *policy,
		      const struct jr_err *err)
{
	jr_error("%s", err->msg);
	jr_policy_free(policy);
	jr_options_release(opts);
	return JR_EXIT_FAILURE;
}

/* Fewer descriptors than this and setting up a sandbox fails half-way
 * (allowlist mode needs about 20 before the relay accepts anything). */
#define JR_MIN_FDS JR_FDS_RUNNER

/*
 * A tunnel holds two sockets, and a pipe per direction while bytes sit in
 * it (relay_tunnel.c): with the default soft limit of 1024 descriptors the
 * relay would run dry long before --max-conns. Raise
 * the soft limit towards the hard one. The command inherits the raised soft
 * limit, which only lets it use what its hard limit already allowed.
 * A hard limit below JR_MIN_FDS is refused up front with a message that
 * says what to raise, instead of a setup step failing on an EMFILE.
 * Return: 0, or -EMFILE with @err set.
 */
static int raise_fd_limit(const struct jr_options *opts, struct jr_err *err)
{
	struct rlimit rl;
	rlim_t want, need;
	char why[512];

	if (getrlimit(RLIMIT_NOFILE, &rl) < 0)
		return 0;
	if (rl.rlim_max < JR_MIN_FDS) {
		if (opts->net != JR_NET_ALLOWLIST)
			return jr_err_set(
			    err, EMFILE,
			    "the file descriptor limit is too low to set up a sandbox: it is %llu (hard %llu), jailrun needs at least %d: raise it (ulimit -n %d)",
			    (unsigned long long)rl.rlim_cur,
			    (unsigned long long)rl.rlim_max, JR_MIN_FDS,
			    JR_MIN_FDS);
		jr_fds_explain_current(why, sizeof(why), opts->max_conns);
		return jr_err_set(
		    err, EMFILE,
		    "the file descriptor limit is too low to set up a sandbox (at least %d): %s",
		    JR_MIN_FDS, why);
	}
	want = opts->net == JR_NET_ALLOWLIST ? (rlim_t)opts->max_conns * 6 + 64
					     : JR_MIN_FDS;
	/* Two sockets a connection is the least the relay can do with: a
	 * direction that gets no pipe copies instead. */
	need = opts->net == JR_NET_ALLOWLIST ? jr_fds_needed(opts->max_conns)
					     : JR_MIN_FDS;
	if (rl.rlim_cur >= want)
		return 0;
	rl.rlim_cur = want < rl.rlim_max ? want : rl.rlim_max;
	if (setrlimit(RLIMIT_NOFILE, &rl) < 0 || rl.rlim_cur < need) {
		jr_fds_explain_current(why, sizeof(why), opts->max_conns);
		jr_warn(
		    "too few file descriptors for --max-conns relay connections: %s",
		    why);
	}
	return 0;
}

/* On a terminal, say at exit what was denied and what would fix it. */
static void report_denied(const struct jr_audit *audit,
			  const struct jr_options *opts)
{
	_cleanup_free_ char *line = NULL, *hint = NULL;

	if (opts->net != JR_NET_ALLOWLIST || opts->verbosity < 0 ||
	    !isatty(STDERR_FILENO))
		return;
	line = jr_audit_denied_line(audit);
	hint = jr_audit_deny_hint(audit, opts->net_public);
	if (line)
		jr_info("%s (%s)%s%s", line,
			hint ? hint : jr_deny_fix_text(JR_FIX_NONE),
			opts->deny_message ? " " : "",
			opts->deny_message ? opts->deny_message : "");
}

/*
 * learn_finish() - --learn: write FILE from what the relay saw, unless
 * the command never ran (FILE then stays as it was). The relay thread
 * has been joined: the table is ours alone.
 */
static void learn_finish(struct jr_learn *learn, const struct jr_options *opts,
			 const struct jr_run_result *res)
{
	struct jr_err err = { 0 };

	if (!opts->learn_path)
		return;
	if (res->ended == JR_END_SETUP_FAILED)
		jr_warn("--learn %s: not written, the command never ran",
			opts->learn_path);
	else if (jr_learn_commit(learn, &err) < 0)
		jr_error("%s", err.msg);
	else
		jr_verbose("--learn: wrote %s (%zu destination%s)",
			   opts->learn_path, learn->n,
			   learn->n == 1 ? "" : "s");
	jr_learn_release(learn);
}

/* Everything one run holds, from the configuration to the summary. */
struct run {
	struct jr_options opts;
	struct jr_config cfg;
	struct jr_policy policy;
	struct jr_ids ids;
	struct jr_audit audit;
	struct jr_fs_plan fs;
	struct jr_env_plan env; /* the command's environment (envplan.h) */
	struct jr_learn learn;
	struct jr_gitsweep gitsweep;
	struct jr_run_result res;
	int json_fd;	   /* --json FILE, opened before the run; -1: none */
	uint64_t start_ms; /* when main() began, for the summary's wall_ms */
	uint64_t start_unix_ms;	     /* the same, for "started_at" */
	char run_id[JR_RUN_ID_SIZE]; /* made once, at start (runid.h) */
	bool ids_known, audit_open, fs_planned; /* how far set-up got */
};

/*
 * load_config() - configuration files, profiles and the managed policy
 * first: they become options before the command line's own (conffile.c).
 * Return: 0, or JR_EXIT_FAILURE with the reason printed.
 */
static int load_config(struct run *run, int argc, char **argv)
{
	struct jr_err err = { 0 };

	jr_config_init(&run->cfg);
	if (jr_config_build(&run->cfg, JR_POLICY_FILE, argc, argv, &run->opts,
			    &err) < 0) {
		jr_error("%s", err.msg);
		return JR_EXIT_FAILURE;
	}
	jr_policy_init(&run->policy);
	/* The managed denies are asked again at each relay decision. */
	if (run->cfg.managed.deny.n)
		run->policy.deny = &run->cfg.managed.deny;
	jr_log_set_level(JR_LOG_INFO + run->opts.verbosity);
	/* Before any sandbox: the command never inherits NOTIFY_SOCKET. */
	jr_notify_init(&run->opts.watchdog_interval_ms);
	return 0;
}

static int resolve_ids(struct run *run, struct jr_err *err);

/*
 * --print-config: the settings with the user and working directory a run
 * would have, then the same allow and lane checks a run would make, so a
 * config that cannot run does not print as fine. A missing path is marked
 * in the output and said on stderr; it does not change the status (a run
 * may still create it, or not need it).
 */
static int print_config(struct run *run)
{
	struct jr_options *opts = &run->opts;
	struct jr_config_effective eff = { 0 };
	struct jr_err err = { 0 };
	char cwd[4096], note[160];
	size_t missing;

	if (resolve_ids(run, &err) < 0)
		return fail_early(opts, &run->policy, &err);
	snprintf(note, sizeof(note),
		 "uid %u, gid %u inside; uid %u, gid %u on the host",
		 (unsigned)run->ids.uid, (unsigned)run->ids.gid,
		 (unsigned)run->ids.host_uid, (unsigned)run->ids.host_gid);
	eff.user = run->ids.name;
	eff.user_note = note;
	if (!opts->workdir && getcwd(cwd, sizeof(cwd)))
		eff.workdir = cwd;
	missing = jr_config_print(&run->cfg, opts, &eff, stdout);
	if (missing)
		jr_warn(
		    "%zu path%s in the configuration do%s not exist (marked MISSING above)",
		    missing, missing == 1 ? "" : "s", missing == 1 ? "es" : "");
	for (size_t i = 0; i < opts->n_allow; i++)
		if (jr_policy_add(&run->policy, opts->allow[i], &err) < 0)
			return fail_early(opts, &run->policy, &err);
	if (jr_config_check_allow(&run->cfg, &run->policy, &err) < 0 ||
	    jr_config_check_lanes(&run->cfg, &opts->lanes, &err) < 0)
		return fail_early(opts, &run->policy, &err);
	/* a run checks them as it plans the environment (cmdenv.c) */
	for (size_t i = 0; i < opts->n_lane_env; i++)
		if (jr_lane_env_expand(&opts->lanes, opts->lane_env[i], NULL,
				       NULL, &err) < 0)
			return fail_early(opts, &run->policy, &err);
	jr_policy_free(&run->policy);
	jr_options_release(opts);
	return fflush(stdout) == 0 ? 0 : JR_EXIT_FAILURE;
}

/*
 * run_other_action() - --help, --version, --check and --print-config.
 * Return: the exit status of the action, or -1 when the action is a run.
 */
static int run_other_action(struct run *run)
{
	switch (run->opts.action) {
	case JR_ACTION_HELP:
		fputs(jr_usage_text, stdout);
		jr_options_release(&run->opts);
		return 0;
	case JR_ACTION_VERSION:
		printf("jailrun %s\n", PACKAGE_VERSION);
		jr_options_release(&run->opts);
		return 0;
	case JR_ACTION_CHECK:
		jr_options_release(&run->opts);
		return jr_check_run();
	case JR_ACTION_PRINT_CONFIG:
		/* A configuration that cannot run does not print as fine. */
		if (run->opts.setup_err.code)
			return fail_early(&run->opts, &run->policy,
					  &run->opts.setup_err);
		return print_config(run);
	case JR_ACTION_RUN:
		break;
	}
	return -1;
}

/* Who the command runs as, from --user, --host-root and our caller. */
static int resolve_ids(struct run *run, struct jr_err *err)
{
	const struct jr_options *opts = &run->opts;
	struct jr_ids *ids = &run->ids;
	struct jr_caller caller = {
		.uid = getuid(),
		.euid = geteuid(),
		.gid = getgid(),
		.egid = getegid(),
		.sudo_uid = getenv("SUDO_UID"),
		.sudo_gid = getenv("SUDO_GID"),
	};

	if (jr_ids_resolve(opts->user, opts->host_root, &caller, ids, err) < 0)
		return -EINVAL;
	if (ids->host_uid == 0)
		jr_warn(
		    "--host-root: the command runs as host uid 0 (without capabilities, but it can read, change and chmod every root-owned file it can reach)");
	jr_verbose(
	    "command runs as %s (uid %u, gid %u inside; uid %u, gid %u on the host), %s",
	    ids->name, (unsigned)ids->uid, (unsigned)ids->gid,
	    (unsigned)ids->host_uid, (unsigned)ids->host_gid,
	    ids->privileged ? "started by root" : "rootless");
	return 0;
}

/*
 * load_policy() - every allow entry, from each option that makes one.
 * Bad policy input: the entry and the rule it broke, nothing runs.
 */
static int load_policy(struct run *run, struct jr_err *err)
{
	const struct jr_options *opts = &run->opts;
	struct jr_policy *policy = &run->policy;

	for (size_t i = 0; i < opts->n_allow; i++)
		if (jr_policy_add(policy, opts->allow[i], err) < 0)
			return -EINVAL;
	for (size_t i = 0; i < opts->n_allow_files; i++)
		if (jr_policy_add_file(policy, opts->allow_files[i], err) < 0)
			return -EINVAL;
	for (size_t i = 0; i < opts->n_allow_private; i++)
		if (jr_policy_add_private(policy, opts->allow_private[i], err) <
		    0)
			return -EINVAL;
	policy->match_any = opts->net_public;
	/* A NAME:PORT lane is an allow entry, in every mode (lane.h). */
	for (size_t i = 0; i < opts->lanes.n_lane; i++)
		if (!opts->lanes.lane[i].host &&
		    jr_policy_add(policy, opts->lanes.lane[i].text, err) < 0)
			return -EINVAL;
	if (load_http_rules(opts, policy, err) < 0)
		return -EINVAL;
	/* The managed policy's denies hold against every allow entry, those
	 * --allow-http adds for its hosts included, and against host lanes,
	 * which the relay connects without asking the policy. */
	if (jr_config_check_allow(&run->cfg, policy, err) < 0 ||
	    jr_config_check_lanes(&run->cfg, &opts->lanes, err) < 0)
		return -EINVAL;
	return 0;
}

/*
 * start_secrets() - --secret/--inspect: values read and scrubbed from our
 * environment, the CA made, before anything is cloned from this process.
 * On failure nothing of it is left (opts.secrets is NULL).
 */
static int start_secrets(struct run *run, struct jr_err *err)
{
	struct jr_options *opts = &run->opts;

	if (!opts->n_secret && !opts->n_inspect && !https_rules(&run->policy))
		return 0;
	opts->secrets = calloc(1, sizeof(*opts->secrets));
	if (opts->secrets)
		opts->secrets->http_rules = run->policy.http_rules;
	if (!opts->secrets ||
	    jr_secrets_prepare(opts->secrets, opts, err) < 0 ||
	    jr_inspect_start(opts->secrets, opts, &run->audit, err) < 0) {
		if (!opts->secrets) {
			jr_err_set(err, ENOMEM, "out of memory");
		} else {
			jr_inspect_stop(opts->secrets);
			jr_secrets_release(opts->secrets);
		}
		free(opts->secrets);
		opts->secrets = NULL;
		return -EINVAL;
	}
	return 0;
}

/* What start_secrets() made, when a later step fails or the run ends. */
static void release_secrets(struct jr_options *opts)
{
	if (!opts->secrets)
		return;
	jr_inspect_stop(opts->secrets);
	jr_secrets_release(opts->secrets);
	free(opts->secrets);
	opts->secrets = NULL;
}

/* Every path option checked and canonicalised once, here. */
static int plan_fs(struct run *run, struct jr_err *err)
{
	const struct jr_fs_plan *fs = &run->fs;
	size_t n_paths;

	if (jr_fs_plan_build(&run->opts, &run->ids, &run->fs, err) < 0)
		return -EINVAL;
	if (run->opts.fs_mode == JR_FS_HOST) {
		jr_verbose(
		    "--fs host: the command sees the host's files as your permissions allow");
		return 0;
	}
	if (jr_fs_idmap_prepare(&run->fs, &run->ids, run->opts.idmap,
				run->opts.seccomp, err) < 0) {
		jr_fs_plan_release(&run->fs);
		return -EINVAL;
	}
	n_paths = fs->n_ops - (fs->workdir_writable ? 1 : 0);
	jr_verbose(
	    "filesystem: host read-only, working directory %s (%s), %zu path option%s, %zu secret%s hidden, tmpfs %llu MiB each",
	    fs->workdir, fs->workdir_writable ? "writable" : "read-only",
	    n_paths, n_paths == 1 ? "" : "s", fs->n_hidden,
	    fs->n_hidden == 1 ? "" : "s",
	    (unsigned long long)(fs->tmpfs_size >> 20));
	return 0;
}

/* The command's environment: after start_secrets(), whose CA and
 * placeholder variables are jailrun's own (envplan.h). */
static int plan_env(struct run *run, struct jr_err *err)
{
	if (jr_cmdenv_plan(&run->env, &run->opts, &run->ids, err) < 0)
		return -EINVAL;
	run->opts.env = &run->env;
	return 0;
}

/*
 * warn_vanishing_args() - an argument of the command that names a host
 * file under a tmpfs of the sandbox (jailrun -- /tmp/script.sh) is not
 * there inside: say so before the command fails on it, with the fix.
 */
static void warn_vanishing_args(const struct run *run)
{
	const struct jr_fs_plan *fs = &run->fs;
	_cleanup_free_ const char **tmpfs = NULL, **shown = NULL;
	size_t n_tmpfs = 0, n_shown = 0;
	char norm[4096];
	struct stat st;

	if (fs->mode != JR_FS_ISOLATED)
		return;
	tmpfs = calloc(jr_fs_n_private_tmpfs + fs->n_ops + 1, sizeof(*tmpfs));
	shown = calloc(fs->n_ops + 2, sizeof(*shown));
	if (!tmpfs || !shown)
		return; /* only a hint */
	for (size_t i = 0; i < jr_fs_n_private_tmpfs; i++)
		tmpfs[n_tmpfs++] = jr_fs_private_tmpfs[i].path;
	for (size_t i = 0; i < fs->n_ops; i++) {
		if (fs->ops[i].kind == JR_FS_OP_TMPFS)
			tmpfs[n_tmpfs++] = fs->ops[i].path;
		else
			shown[n_shown++] = fs->ops[i].path;
	}
	if (fs->workdir)
		shown[n_shown++] = fs->workdir;
	for (int i = 0; i < run->opts.command_argc; i++) {
		const char *arg = run->opts.command[i], *hider;

		if (arg[0] != '/' ||
		    jr_fs_normalize("/", arg, norm, sizeof(norm)) < 0 ||
		    lstat(arg, &st) < 0)
			continue;
		hider =
		    jr_fs_hidden_by_tmpfs(norm, tmpfs, n_tmpfs, shown, n_shown);
		if (hider)
			jr_warn(
			    "%s is on the host, but the sandbox has its own empty %s: the command will not find it there; show it with --ro %s (or --rw), or put it in the working directory",
			    arg, hider, arg);
	}
}

/*
 * open_outputs() - the other files a run writes (the JSON summary is
 * opened first of all, open_json()), opened before anything runs: a
 * path we cannot write is a bad option and must fail first.
 * Return: 0, or <0 with @err set; a --learn directory opened here is
 * released again.
 */
static int open_outputs(struct run *run, struct jr_err *err)
{
	struct jr_options *opts = &run->opts;
	int r;

	/* --learn: FILE's directory checked and pinned now (the file itself
	 * is written at exit, learn.c). */
	if (opts->learn_path) {
		if (jr_learn_open(&run->learn, opts->learn_path, err) < 0)
			return -EINVAL;
		run->audit.learn = &run->learn;
	}
	/* Made last, so no early failure leaves the socket file behind. */
	if (opts->control_path) {
		r = jr_control_listen(opts->control_path, err);
		if (r < 0) {
			jr_learn_release(&run->learn);
			return -EINVAL;
		}
		opts->control_fd = r;
	}
	return 0;
}

/*
 * open_json() - --json FILE, opened before any other set-up step, so that
 * every failure after the options were parsed still writes the summary
 * (ended "setup-failed"). Not a link or a file another user planted
 * (outfile.h). Return: 0, or <0 with @err set; the file is main()'s to
 * close.
 */
static int open_json(struct run *run, struct jr_err *err)
{
	const char *path = run->opts.json_path;

	if (!path)
		return 0;
	run->json_fd = jr_outfile_open("--json", path, false, 0644, err);
	return run->json_fd < 0 ? -EINVAL : 0;
}

static void fill_summary(struct run *run, size_t git_quarantined,
			 struct jr_summary *sum);

/*
 * fail_setup() - a set-up step failed after the options were parsed:
 * say why, end the audit log with it, write the summary ("ended":
 * "setup-failed", the message in "error") and release what set-up made.
 * Return: JR_EXIT_FAILURE.
 */
static int fail_setup(struct run *run, const struct jr_err *err)
{
	struct jr_options *opts = &run->opts;
	struct jr_summary sum;

	jr_error("%s", err->msg);
	run->res.ended = JR_END_SETUP_FAILED;
	run->res.exit_status = JR_EXIT_FAILURE;
	run->res.err = *err;
	if (run->audit_open)
		jr_audit_event(&run->audit, "lifecycle",
			       jr_end_name(run->res.ended));
	fill_summary(run, 0, &sum);
	write_summary(run->json_fd, opts->json_path, &sum);
	if (run->audit_open)
		jr_audit_close(&run->audit);
	if (run->fs_planned)
		jr_fs_plan_release(&run->fs);
	jr_env_plan_release(&run->env); /* empty until plan_env() */
	release_secrets(opts);
	jr_httprules_free(&http_rules);
	jr_policy_free(&run->policy);
	jr_options_release(opts);
	return JR_EXIT_FAILURE;
}

/*
 * prepare_run() - everything between the options and the sandbox: the
 * JSON file, who runs, the policy, the audit log, limits, secrets, the
 * filesystem plan and the other output files, in the order that lets
 * each failure undo only what came before it (fail_setup()).
 * Return: 0, or JR_EXIT_FAILURE with the reason printed.
 */
static int prepare_run(struct run *run)
{
	struct jr_options *opts = &run->opts;
	const struct jr_audit_tag tag = { run->run_id, opts->label };
	struct jr_err err = { 0 };

	/* No summary can be written where the summary cannot go. */
	if (open_json(run, &err) < 0)
		return fail_early(opts, &run->policy, &err);
	/* A policy error of the command line, now with its summary. */
	if (opts->setup_err.code) {
		err = opts->setup_err;
		return fail_setup(run, &err);
	}
	/* The rules let --ask go without a socket on a live start's vector
	 * only; a run whose command has that name still needs one. */
	if (!opts->live && jr_options_check_ask_channel(opts, &err) < 0)
		return fail_setup(run, &err);
	/* An inherited control socket never reaches the sandbox. */
	if (opts->control_fd >= 0 &&
	    jr_control_adopt_fd(opts->control_fd, &err) < 0)
		return fail_setup(run, &err);
	if (resolve_ids(run, &err) < 0)
		return fail_setup(run, &err);
	run->ids_known = true;
	if (load_policy(run, &err) < 0 ||
	    jr_audit_open(&run->audit, opts->log_path, opts->log_fd, &tag,
			  &err) < 0)
		return fail_setup(run, &err);
	run->audit_open = true;
	if (raise_fd_limit(opts, &err) < 0 ||
	    jr_rlimits_check(&opts->limits, &err) < 0 ||
	    start_secrets(run, &err) < 0 || plan_env(run, &err) < 0 ||
	    plan_fs(run, &err) < 0)
		return fail_setup(run, &err);
	run->fs_planned = true;
	warn_vanishing_args(run);
	if (open_outputs(run, &err) < 0)
		return fail_setup(run, &err);
	return 0;
}

/*
 * run_command() - the sandbox itself, and what must follow it at once:
 * the inspected requests ended and .git swept for files the command left.
 * Return: how many git files were quarantined.
 */
static size_t run_command(struct run *run)
{
	struct jr_options *opts = &run->opts;
	struct jr_run_result *res = &run->res;
	size_t git_quarantined;
	int r;

	/* The git files the layout cannot cover, noted before the run. */
	if (jr_gitsweep_arm(&run->gitsweep, &run->fs) < 0)
		jr_warn(
		    "git: out of memory: new files in .git are not looked for at exit");
	jr_audit_event(&run->audit, "lifecycle", "sandbox starting");
	if (!opts->seccomp)
		jr_audit_event(&run->audit, "lifecycle",
			       "seccomp filter disabled (--seccomp off)");
	r = jr_sandbox_run(opts, &run->ids, &run->fs, &run->policy, &run->audit,
			   res);
	jr_control_unlink(opts->control_path);
	if (r == 0 && jr_end_with_oom(res->ended, res->exit_status,
				      &res->limits) == JR_END_OOM) {
		res->ended = JR_END_OOM;
		jr_err_set(
		    &res->err, ENOMEM,
		    "the command was killed by the kernel's OOM killer at --memory %llu bytes: raise --memory if it needs more",
		    (unsigned long long)opts->limits.memory);
	}
	if (r < 0)
		jr_error("%s", res->err.msg);
	else if (res->ended == JR_END_EXEC_FAILED ||
		 res->ended == JR_END_SETUP_FAILED ||
		 res->ended == JR_END_TAMPER)
		jr_error("%s", res->err.msg);
	else if (res->err.code)
		jr_warn("%s", res->err.msg);

	if (opts->secrets)
		jr_inspect_stop(opts->secrets); /* inspected requests end */
	/* Every process of the sandbox is gone: nothing can race this. */
	git_quarantined = jr_gitsweep_run(&run->gitsweep);
	jr_gitsweep_release(&run->gitsweep);
	return git_quarantined;
}

/*
 * fill_summary() - the end-of-run summary (summary.h) of what
 * run_command() saw, or of how far set-up got before it failed.
 */
static void fill_summary(struct run *run, size_t git_quarantined,
			 struct jr_summary *sum)
{
	const struct jr_options *opts = &run->opts;
	struct jr_run_result *res = &run->res;

	*sum = (struct jr_summary){
		.run_id = run->run_id,
		.label = opts->label,
		.started_unix_ms = run->start_unix_ms,
		.ended_unix_ms = jr_clock_unix_ms(),
		.limits_hit = jr_limits_hit_of(res->ended, &res->limits),
		.policy = opts,
		.command = opts->command,
		.command_argc = opts->command_argc,
		.ended = res->ended,
		.exit_status = res->exit_status,
		.signal = res->signal,
		.wall_ms = jr_clock_ms() - run->start_ms,
		.net_mode = jr_options_net_mode(opts),
		.rules_verified = res->rules_verified,
		.nft_chains = res->nft_chains,
		.nft_rules = res->nft_rules,
		.firewall_refused = res->firewall_refused,
		.firewall_refused_unread = res->firewall_refused_unread,
		.user_unknown = !run->ids_known,
		.uid = run->ids.uid,
		.gid = run->ids.gid,
		.host_uid = run->ids.host_uid,
		.host_gid = run->ids.host_gid,
		.rootless = !run->ids.privileged,
		.error = res->err.code ? res->err.msg : NULL,
		.audit = opts->net == JR_NET_ALLOWLIST && run->audit_open
			     ? &run->audit
			     : NULL,
		.allow_entries = run->policy.n,
		.tamper_events = res->watchdog.tamper_events,
		.git_quarantined = (unsigned int)git_quarantined,
		.restores = res->watchdog.restores,
		.max_restore_us = res->watchdog.max_restore_us,
		.fs = run->fs_planned ? &run->fs : NULL,
		.landlock_abi = res->landlock_abi,
	};
	if (res->startup.end_of_run)
		res->startup.teardown_us =
		    jr_clock_us() - res->startup.end_of_run;
	sum->startup = &res->startup;
	if (opts->secrets) {
		sum->secrets_on = true;
		sum->secrets_bound = opts->secrets->n;
		sum->inspected_requests = opts->secrets->inspected;
		sum->secret_injected = opts->secrets->injected;
		sum->secret_misuse = opts->secrets->misuse;
	}
	sum->limits = &opts->limits;
	sum->limits_report = &res->limits;
}

/*
 * finish_run() - report the run (start-up times, denials, --learn, the
 * audit log's end, the JSON summary) and release what it held.
 * Return: the exit status: the command's, by the contract.
 */
static int finish_run(struct run *run, const struct jr_summary *sum)
{
	struct jr_options *opts = &run->opts;
	struct jr_run_result *res = &run->res;

	if (res->startup.complete) {
		char line[512];

		jr_startup_format(&res->startup, line, sizeof(line));
		jr_verbose("start-up in ms: %s", line);
		jr_verbose("after the command: %.2f ms to reap the sandbox",
			   (double)res->startup.teardown_us / 1000.0);
	}
	report_denied(&run->audit, opts);
	learn_finish(&run->learn, opts, res);
	jr_audit_event(&run->audit, "lifecycle", jr_end_name(res->ended));
	if (run->audit.write_error)
		jr_warn("the audit log could not be written completely: %s",
			strerror(run->audit.write_error));
	/* A summary we could not write is reported, but does not change the
	 * status: 125 means "the command did not run", and it may have. */
	write_summary(run->json_fd, opts->json_path, sum);
	jr_audit_close(&run->audit);
	jr_policy_free(&run->policy);
	jr_httprules_free(&http_rules);
	jr_fs_plan_release(&run->fs);
	jr_env_plan_release(&run->env);
	release_secrets(opts);
	jr_options_release(opts);
	return res->exit_status;
}

/*
 * live_prepare() - jailrun start: the run's vector must end with the
 * zygote's stand-in, not a command of the caller's; then the caller is
 * left waiting (jr_live_daemonize()) and the socket made.
 * Return: -1 to go on with the run, else the exit status.
 */
static int live_prepare(struct run *run, struct jr_live *live)
{
	struct jr_options *opts = &run->opts;
	struct jr_err err = { 0 };
	int status = 0;

	if (opts->command_argc != 1 ||
	    strcmp(opts->command[0], JR_LIVE_COMMAND) != 0) {
		jr_err_set(
		    &err, EINVAL,
		    "jailrun start takes no command (got '%.200s'): start the sandbox, then run commands in it with jailrun exec %s -- COMMAND",
		    opts->command[0], live->name);
		return fail_early(opts, &run->policy, &err);
	}
	if (opts->ask_tty) {
		jr_err_set(
		    &err, EINVAL,
		    "--ask tty asks on the terminal of a run; jailrun start runs in the background without one: use --ask, and jailrun ctl %s",
		    live->name);
		return fail_early(opts, &run->policy, &err);
	}
	/* --ask without a socket named: the sandbox's own, NAME.ctl beside
	 * NAME.sock (jailrun ctl NAME); a pool's sandbox's is reached
	 * through the pool's (pool_ctl.c). */
	if (opts->ask && !opts->control_path && opts->control_fd < 0) {
		if (jr_live_control_path(geteuid(), getenv("XDG_RUNTIME_DIR"),
					 live->name, live->control_path,
					 sizeof(live->control_path), &err) < 0)
			return fail_early(opts, &run->policy, &err);
		opts->control_path = live->control_path;
	}
	if (jr_live_daemonize(live, &status, &err) != 0) {
		if (err.code)
			jr_error("%s", err.msg);
		jr_policy_free(&run->policy);
		jr_options_release(opts);
		return err.code ? JR_EXIT_FAILURE : status;
	}
	/* The background runner keeps none of its caller's descriptors
	 * but those the options name: a pipe a caller waits on must not
	 * stay open for the sandbox's lifetime. */
	if (!live->foreground) {
		int keep[] = { opts->log_fd, opts->control_fd, live->ready_fd };
		int r = jr_close_all_but(keep, ARRAY_SIZE(keep));

		if (r < 0) {
			jr_err_set(&err, -r, "close_range: %s", strerror(-r));
			return fail_early(opts, &run->policy, &err);
		}
	}
	if (jr_live_open(live, &err) < 0)
		return fail_early(opts, &run->policy, &err);
	snprintf(live->mode, sizeof(live->mode), "%s, %s",
		 jr_options_net_mode(opts), geteuid() ? "rootless" : "root");
	opts->live = live;
	return -1;
}

/* A run, or with @live a live sandbox (jailrun start), from its vector. */
static int run_main(int argc, char **argv, struct jr_live *live)
{
	struct run run = { .learn = { .dirfd = -1 }, .json_fd = -1 };
	struct jr_summary sum;
	struct jr_err err = { 0 };
	int status;

	run.start_ms = jr_clock_ms();
	run.start_unix_ms = jr_clock_unix_ms();
	/* From here the start-up phases are timed (startup.h). */
	jr_startup_begin(&run.res.startup, jr_clock_us());

	if (jr_run_id_new(run.run_id, &err) < 0) {
		jr_error("%s", err.msg);
		return JR_EXIT_FAILURE;
	}
	status = load_config(&run, argc, argv);
	if (status == 0)
		status = run_other_action(&run);
	if (status < 0 && live)
		status = live_prepare(&run, live);
	if (status < 0) {
		status = prepare_run(&run);
		if (status == 0) {
			fill_summary(&run, run_command(&run), &sum);
			/* The exec'd commands' clients hear why, not only
			 * that, the sandbox went under them. */
			if (live && run.res.err.code)
				jr_live_ended(live, run.res.err.msg);
			status = finish_run(&run, &sum);
		}
	}
	if (run.json_fd >= 0)
		close(run.json_fd);
	jr_config_release(&run.cfg);
	return status;
}

/* jailrun start NAME [--foreground] [OPTIONS]: see live.h. */
static int live_start(int argc, char **argv)
{
	static struct jr_live live;
	_cleanup_free_ char **run_argv = NULL;
	struct jr_err err = { 0 };
	int n, status;

	n = jr_live_start_args(argc, argv, &live, &run_argv, &err);
	if (n < 0) {
		jr_error("%s", err.msg);
		jr_live_close(&live);
		return JR_EXIT_FAILURE;
	}
	/* A pool: its options go to its members, less the "--" and the
	 * zygote's stand-in that end the run's vector. */
	if (live.pool)
		status = jr_pool_main(&live, run_argv + 1, n - 3);
	else
		status = run_main(n, run_argv, &live);
	jr_live_close(&live);
	return status;
}

int main(int argc, char **argv)
{
	/* The pty relay writes to our stdout; if that goes away we want
	 * EPIPE, not death (the sandbox would die with us, unreported). */
	signal(SIGPIPE, SIG_IGN);

	if (argc > 1 && strcmp(argv[1], "ctl") == 0)
		return jr_control_client_main(argc - 1, argv + 1);
	/* Live sandboxes (live.h); a command of one of these names runs
	 * after "--", as one named ctl does. */
	if (argc > 1 && strcmp(argv[1], "start") == 0)
		return live_start(argc, argv);
	if (argc > 1 &&
	    (strcmp(argv[1], "exec") == 0 || strcmp(argv[1], "ls") == 0 ||
	     strcmp(argv[1], "stop") == 0))
		return jr_live_client_main(argc - 1, argv + 1);
	return run_main(argc, argv, NULL);
}
