// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * spank_args.c - the pure part of spank_jailrun.so and jailrun-slurm-exec.
 *
 * Theory of operation. Slurm 22.05's SPANK API gives a task's argv to a
 * plugin (S_JOB_ARGV) as the step's own array: its strings may be replaced,
 * the array cannot grow. So the plugin cannot prepend "jailrun OPTIONS --";
 * it replaces argv[0] by jailrun-slurm-exec and hands over, in the task's
 * environment, the original argv[0] and the jailrun options (each followed
 * by a newline). The helper execs "jailrun OPTIONS -- ARGV0 ARGV[1..]"
 * with an environment that no longer holds them. Everything Slurm does between the
 * plugin's task_init and the exec (TaskProlog, TMPDIR, the user's rlimits)
 * still happens, and the task's exit status is jailrun's, which is the
 * command's own (125 when jailrun refuses).
 *
 * Each --jail-* value is checked here, in srun or sbatch, before the job is
 * submitted (and again in slurmstepd): a bad value is an error naming the
 * option and the rule. What jailrun itself checks (an entry's grammar, a
 * profile's existence) it refuses in the task, with 125.
 */
#include "spank_args.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* jrs_value_check - a value is non-empty, bounded and has no control byte. */
int jrs_value_check(const char *opt, const char *val, char *msg, size_t msglen)
{
	size_t n;

	if (!val || !*val) {
		snprintf(msg, msglen, "--%s: the value is empty", opt);
		return -EINVAL;
	}
	n = strnlen(val, JRS_VALUE_MAX + 1);
	if (n > JRS_VALUE_MAX) {
		snprintf(msg, msglen, "--%s: the value is longer than %d bytes",
			 opt, JRS_VALUE_MAX);
		return -EINVAL;
	}
	for (size_t i = 0; i < n; i++) {
		if ((unsigned char)val[i] < 0x20 || val[i] == 0x7f) {
			snprintf(
			    msg, msglen,
			    "--%s: the value '%.64s' holds a control character",
			    opt, val);
			return -EINVAL;
		}
	}
	return 0;
}

/* Appends ARG and a newline. */
static int args_append(struct jrs_args *a, const char *arg)
{
	size_t n = strlen(arg);
	char *t = realloc(a->text, a->len + n + 2);

	if (!t)
		return -ENOMEM;
	memcpy(t + a->len, arg, n);
	t[a->len + n] = '\n';
	t[a->len + n + 1] = '\0';
	a->text = t;
	a->len += n + 1;
	return 0;
}

static int args_append_pair(struct jrs_args *a, const char *opt,
			    const char *val)
{
	int r = args_append(a, opt);

	return r < 0 ? r : args_append(a, val);
}

/* jail-allow: ENTRY[,ENTRY...], each one --allow; an empty entry is an error. */
static int add_allow_list(struct jrs_args *a, const char *val, char *msg,
			  size_t msglen)
{
	const char *p = val;

	for (;;) {
		const char *comma = strchr(p, ',');
		size_t n = comma ? (size_t)(comma - p) : strlen(p);
		char entry[JRS_VALUE_MAX + 1];
		int r;

		if (n == 0) {
			snprintf(
			    msg, msglen,
			    "--jail-allow: an empty entry in '%.64s' (entries are separated by single commas)",
			    val);
			return -EINVAL;
		}
		memcpy(entry, p, n);
		entry[n] = '\0';
		r = args_append_pair(a, "--allow", entry);
		if (r < 0)
			return r;
		if (!comma)
			return 0;
		p = comma + 1;
	}
}

/* Checks VAL for option OPT (jail-allow, ...): the rules of each option. */
static int opt_check(const char *opt, const char *val, char *msg, size_t msglen)
{
	int r = jrs_value_check(opt, val, msg, msglen);

	if (r < 0)
		return r;
	if (strcmp(opt, "jail-allow") == 0) {
		struct jrs_args scratch = { 0 };

		r = add_allow_list(&scratch, val, msg, msglen);
		jrs_args_free(&scratch);
		return r;
	}
	if (strcmp(opt, "jail-profile") == 0 &&
	    (strchr(val, '/') || val[0] == '.')) {
		snprintf(
		    msg, msglen,
		    "--jail-profile: '%.64s' is not a profile name (no '/', no leading '.')",
		    val);
		return -EINVAL;
	}
	if (strcmp(opt, "jail-net") == 0 && strcmp(val, "allowlist") &&
	    strcmp(val, "none") && strcmp(val, "public")) {
		snprintf(
		    msg, msglen,
		    "--jail-net: '%.64s' is not one of allowlist, none, public",
		    val);
		return -EINVAL;
	}
	if ((strcmp(opt, "jail-json") == 0 || strcmp(opt, "jail-log") == 0) &&
	    val[0] != '/') {
		snprintf(
		    msg, msglen,
		    "--%s: '%.64s' is not an absolute directory (tasks start in their own working directory)",
		    opt, val);
		return -EINVAL;
	}
	return 0;
}

static const char *const opt_names[JRS_NOPTS] = { "jail-allow", "jail-profile",
						  "jail-net",	"jail-lane",
						  "jail-json",	"jail-log" };

/**
 * jrs_opts_set - check and keep the value of one --jail-* option.
 * @o:      the options given so far
 * @which:  the option (enum jrs_opt)
 * @val:    its value, as the user gave it
 * @msg:    filled with what is wrong on -EINVAL
 * @msglen: its size
 *
 * The last value given wins, as for Slurm's own options: Slurm calls a
 * plugin's option callback more than once for one option (in slurmstepd,
 * for the job's environment and again for the step's options).
 * Return: 0, -EINVAL for a bad value (with @msg), -ENOMEM.
 */
int jrs_opts_set(struct jrs_opts *o, int which, const char *val, char *msg,
		 size_t msglen)
{
	char *copy;
	int r;

	if (which < 0 || which >= JRS_NOPTS) {
		snprintf(msg, msglen,
			 "option %d is not an option of spank_jailrun", which);
		return -EINVAL;
	}
	r = opt_check(opt_names[which], val, msg, msglen);
	if (r < 0)
		return r;
	copy = strdup(val);
	if (!copy)
		return -ENOMEM;
	free(o->val[which]);
	o->val[which] = copy;
	return 0;
}

/* jrs_opts_any - true if any --jail-* option was given. */
int jrs_opts_any(const struct jrs_opts *o)
{
	for (int i = 0; i < JRS_NOPTS; i++)
		if (o->val[i])
			return 1;
	return 0;
}

/* Appends OPT DIR/NAME.EXT when DIR was given (NULL: nothing to add). */
static int add_task_file(struct jrs_args *a, const char *opt, const char *dir,
			 const char *name, const char *ext)
{
	char path[2 * JRS_VALUE_MAX], msg[160];
	int n, r;

	if (!dir)
		return 0;
	n = snprintf(path, sizeof(path), "%s/%s.%s", dir, name, ext);
	if (n < 0 || (size_t)n >= sizeof(path))
		return -ENAMETOOLONG;
	r = jrs_value_check(opt, path, msg, sizeof(msg));
	return r < 0 ? r : args_append_pair(a, opt, path);
}

/**
 * jrs_opts_args - the jailrun options for the --jail-* options given.
 * @o:    the options
 * @task: the task's name, JOB.STEP.TASK (jrs_task_name): its label, and
 *        the base name of its summary and audit log
 * @a:    filled: the options, each followed by '\n'
 *
 * Return: 0, -EINVAL or -ENAMETOOLONG for a bad file name, -ENOMEM.
 */
int jrs_opts_args(const struct jrs_opts *o, const char *task,
		  struct jrs_args *a)
{
	char msg[160], label[160];
	int r = 0;

	if (o->val[JRS_ALLOW])
		r = add_allow_list(a, o->val[JRS_ALLOW], msg, sizeof(msg));
	if (r == 0 && o->val[JRS_PROFILE])
		r = args_append_pair(a, "--profile", o->val[JRS_PROFILE]);
	if (r == 0 && o->val[JRS_NET])
		r = args_append_pair(a, "--net", o->val[JRS_NET]);
	if (r == 0 && o->val[JRS_LANE])
		r = args_append_pair(a, "--lane", o->val[JRS_LANE]);
	/* The label ties each summary and audit line to its Slurm task. */
	snprintf(label, sizeof(label), "slurm %s", task);
	if (r == 0)
		r = args_append_pair(a, "--label", label);
	if (r == 0)
		r = add_task_file(a, "--json", o->val[JRS_JSON], task, "json");
	if (r == 0)
		r = add_task_file(a, "--log", o->val[JRS_LOG], task, "log");
	return r;
}

void jrs_args_free(struct jrs_args *a)
{
	free(a->text);
	a->text = NULL;
	a->len = 0;
}

void jrs_opts_free(struct jrs_opts *o)
{
	for (int i = 0; i < JRS_NOPTS; i++) {
		free(o->val[i]);
		o->val[i] = NULL;
	}
}

/* Slurm's special step ids by name, as sacct prints them. */
static void step_name(char *buf, size_t len, uint32_t step)
{
	if (step == 0xfffffffbU)
		snprintf(buf, len, "batch");
	else if (step == 0xfffffffcU)
		snprintf(buf, len, "extern");
	else if (step == 0xfffffffaU)
		snprintf(buf, len, "interactive");
	else
		snprintf(buf, len, "%u", step);
}

/* Only digits: the array ids come from the task's environment. */
static int all_digits(const char *s)
{
	if (!s || !*s)
		return 0;
	for (; *s; s++)
		if (*s < '0' || *s > '9')
			return 0;
	return 1;
}

/**
 * jrs_task_name - the name of one task, JOB.STEP.TASK, where JOB is
 * ARRAYJOB_ARRAYTASK in an array (as sacct names it) and the job id
 * otherwise; STEP is a number, or batch, extern, interactive.
 *
 * Return: 0, or -ENAMETOOLONG.
 */
int jrs_task_name(char *buf, size_t len, const char *array_job,
		  const char *array_task, uint32_t job, uint32_t step,
		  uint32_t task)
{
	char s[16];
	int n;

	step_name(s, sizeof(s), step);
	if (all_digits(array_job) && all_digits(array_task) &&
	    strlen(array_job) < 12 && strlen(array_task) < 12)
		n = snprintf(buf, len, "%s_%s.%s.%u", array_job, array_task, s,
			     task);
	else
		n = snprintf(buf, len, "%u.%s.%u", job, s, task);
	return n < 0 || (size_t)n >= len ? -ENAMETOOLONG : 0;
}

/**
 * jrs_exec_argv - jailrun's argv: JAILRUN, the options in ARGS (each ended
 * by '\n'), "--", ARGV0, then ARGV[1..ARGC-1].
 *
 * Return: a NULL-terminated array pointing into one copy of ARGS and into
 * the arguments given (an exec follows: the caller does not free it), or
 * NULL with errno set (EINVAL when ARGS is not newline-ended).
 */
char **jrs_exec_argv(const char *jailrun, const char *args, const char *argv0,
		     int argc, char *const *argv)
{
	size_t nargs = 0, alen = strlen(args), i = 0;
	char **out, *copy;

	if (alen && args[alen - 1] != '\n') {
		errno = EINVAL;
		return NULL;
	}
	for (size_t k = 0; k < alen; k++)
		nargs += args[k] == '\n';
	out = calloc(nargs + (argc > 1 ? (size_t)argc : 1) + 3, sizeof(*out));
	copy = alen ? strdup(args) : NULL;
	if (!out || (alen && !copy)) {
		free(out);
		free(copy);
		errno = ENOMEM;
		return NULL;
	}
	out[i++] = (char *)jailrun;
	for (char *p = copy; p && *p;) {
		char *nl = strchr(p, '\n');

		*nl = '\0';
		out[i++] = p;
		p = nl + 1;
	}
	out[i++] = "--";
	out[i++] = (char *)argv0;
	for (int k = 1; k < argc; k++)
		out[i++] = argv[k];
	out[i] = NULL;
	return out;
}

/**
 * jrs_env_without_handover - ENV without the plugin's JAILRUN_SPANK_*
 * variables, for the exec of jailrun.
 *
 * Return: a NULL-terminated array pointing at ENV's strings (free the array
 * only), or NULL when out of memory.
 */
char **jrs_env_without_handover(char *const *env)
{
	static const char *const drop[] = { JRS_ENV_ARGS "=", JRS_ENV_ARGV0 "=",
					    JRS_ENV_JAILRUN "=" };
	size_t n = 0, k = 0;
	char **out;

	while (env && env[n])
		n++;
	out = calloc(n + 1, sizeof(*out));
	if (!out)
		return NULL;
	for (size_t i = 0; i < n; i++) {
		int keep = 1;

		for (size_t d = 0; d < sizeof(drop) / sizeof(drop[0]); d++)
			if (strncmp(env[i], drop[d], strlen(drop[d])) == 0)
				keep = 0;
		if (keep)
			out[k++] = env[i];
	}
	return out;
}

/**
 * jrs_cmdline_multi_prog - whether a NUL-separated command line (srun's
 * /proc/self/cmdline) asks for --multi-prog.
 *
 * With --multi-prog each task's argv comes from a file that slurmstepd
 * reads, and S_JOB_ARGV holds that file's name: the plugin cannot wrap
 * such tasks, so srun refuses the pair. A command that itself takes an
 * argument "--multi-prog" is refused too (the message says why).
 */
int jrs_cmdline_multi_prog(const char *buf, size_t len)
{
	static const char opt[] = "--multi-prog";
	size_t i = 0;

	while (i < len) {
		const char *arg = buf + i;
		size_t n = strnlen(arg, len - i);

		if ((n == sizeof(opt) - 1 ||
		     (n > sizeof(opt) - 1 && arg[sizeof(opt) - 1] == '=')) &&
		    strncmp(arg, opt, sizeof(opt) - 1) == 0)
			return 1;
		i += n + 1;
	}
	return 0;
}
