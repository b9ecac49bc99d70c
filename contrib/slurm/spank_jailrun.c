// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * spank_jailrun.c - a Slurm SPANK plugin: each task of a step runs under
 * jailrun, as the job's user, rootless.
 *
 * Theory of operation. The --jail-* options are registered for srun,
 * sbatch and salloc; their callbacks check each value where the user typed
 * it (srun refuses a bad one before anything is submitted) and again in
 * slurmstepd, where Slurm hands the options over. slurm_spank_task_init
 * runs in each task's own process, as the user, just before Slurm execs
 * the task: there the plugin replaces argv[0] by jailrun-slurm-exec and
 * leaves the original argv[0] and the jailrun options in the task's
 * environment (spank_args.c says why: the argv array cannot grow). Slurm's
 * cgroup (proctrack/cgroup, task/cgroup) already holds the task, so
 * jailrun and everything it starts are in it and under its limits; the
 * plugin sets none. The batch step and the extern step are never wrapped:
 * a batch script must reach slurmctld to start its steps, and its sruns
 * inherit the options and are wrapped.
 *
 * Nothing outlives the task: jailrun's sandbox (netns, relay, nft table,
 * mounts) dies with jailrun itself, and Slurm kills every process of the
 * step's cgroup at scancel, time limit or node failure.
 *
 * Each wrapped task is labelled "slurm JOB.STEP.TASK" (jailrun --label),
 * in its summary and on each audit line; --jail-json and --jail-log put
 * them in DIR/JOB.STEP.TASK.json and .log.
 *
 * plugstack.conf arguments: jailrun=PATH (the jailrun binary) and
 * exec=PATH (jailrun-slurm-exec); the defaults are where make install
 * puts them.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <slurm/slurm.h>
#include <slurm/spank.h>

#include "spank_args.h"

SPANK_PLUGIN(jailrun, 1);

static struct jrs_opts jail_opts;
static const char *jailrun_path = JRS_JAILRUN_PATH;
static const char *exec_path = JRS_EXEC_PATH;

/* One callback for every option: check the value and keep its options. */
static int jail_opt_cb(int val, const char *optarg, int remote)
{
	char msg[256];
	int r;

	r = jrs_opts_set(&jail_opts, val, optarg, msg, sizeof(msg));
	if (r < 0) {
		slurm_error("jailrun: %s",
			    r == -ENOMEM ? "out of memory" : msg);
		return -1;
	}
	return 0;
}

static struct spank_option jail_options[] = {
	{ "jail-allow", "ENTRY[,ENTRY...]",
	  "Run each task under jailrun, allowing connections to ENTRY (jailrun --allow)",
	  1, JRS_ALLOW, jail_opt_cb },
	{ "jail-profile", "NAME",
	  "Run each task under jailrun with its profile NAME (jailrun --profile)",
	  1, JRS_PROFILE, jail_opt_cb },
	{ "jail-net", "allowlist|none|public",
	  "Run each task under jailrun with this network mode (jailrun --net)",
	  1, JRS_NET, jail_opt_cb },
	{ "jail-lane", "ENDPOINT",
	  "Run each task under jailrun with the model lane ENDPOINT (jailrun --lane)",
	  1, JRS_LANE, jail_opt_cb },
	{ "jail-json", "DIR",
	  "Run each task under jailrun; its JSON summary goes to DIR/JOB.STEP.TASK.json",
	  1, JRS_JSON, jail_opt_cb },
	{ "jail-log", "DIR",
	  "Run each task under jailrun; its audit log goes to DIR/JOB.STEP.TASK.log",
	  1, JRS_LOG, jail_opt_cb },
	SPANK_OPTIONS_TABLE_END
};

/* The plugstack.conf arguments: jailrun=PATH, exec=PATH. */
static int read_plugin_args(int ac, char **av)
{
	for (int i = 0; i < ac; i++) {
		if (strncmp(av[i], "jailrun=", 8) == 0 && av[i][8] == '/')
			jailrun_path = av[i] + 8;
		else if (strncmp(av[i], "exec=", 5) == 0 && av[i][5] == '/')
			exec_path = av[i] + 5;
		else {
			slurm_error(
			    "jailrun: plugstack.conf argument '%s' is not jailrun=/PATH or exec=/PATH",
			    av[i]);
			return -1;
		}
	}
	return 0;
}

int slurm_spank_init(spank_t sp, int ac, char **av)
{
	spank_context_t ctx = spank_context();

	if (read_plugin_args(ac, av) < 0)
		return -1;
	if (ctx != S_CTX_LOCAL && ctx != S_CTX_REMOTE && ctx != S_CTX_ALLOCATOR)
		return 0;
	for (struct spank_option *o = jail_options; o->name; o++) {
		spank_err_t rc = spank_option_register(sp, o);

		if (rc != ESPANK_SUCCESS) {
			slurm_error("jailrun: cannot register --%s: %s",
				    o->name, spank_strerror(rc));
			return -1;
		}
	}
	return 0;
}

/* True if this srun's own command line asks for --multi-prog. */
static int srun_multi_prog(void)
{
	char buf[65536];
	ssize_t n;
	int fd = open("/proc/self/cmdline", O_RDONLY | O_CLOEXEC);

	if (fd < 0)
		return -1;
	n = read(fd, buf, sizeof(buf));
	close(fd);
	if (n < 0)
		return -1;
	return jrs_cmdline_multi_prog(buf, (size_t)n) ||
	       getenv("SLURM_MULTI_PROG") != NULL;
}

/*
 * In srun, after its options: --multi-prog and --jail-* do not go together
 * (jrs_cmdline_multi_prog says why); refused before anything starts.
 */
int slurm_spank_init_post_opt(spank_t sp, int ac, char **av)
{
	int mp;

	if (spank_context() != S_CTX_LOCAL || !jrs_opts_any(&jail_opts))
		return 0;
	mp = srun_multi_prog();
	if (mp < 0) {
		slurm_error(
		    "jailrun: cannot read srun's command line (/proc/self/cmdline): %m");
		return -1;
	}
	if (mp) {
		slurm_error(
		    "jailrun: --jail-* options cannot wrap srun --multi-prog (each task's command comes from the file, out of the plugin's reach): run one srun per command, or jailrun in the file's command lines");
		return -1;
	}
	return 0;
}

/* The task fails as jailrun would: exit 125, the reason on its stderr. */
static void __attribute__((noreturn)) task_refuse(const char *what)
{
	slurm_error("jailrun: %s", what);
	fprintf(stderr, "jailrun (Slurm plugin): %s\n", what);
	_exit(125);
}

/* This task's name, JOB.STEP.TASK (jrs_task_name), into NAME. */
static void task_name(spank_t sp, char *name, size_t len)
{
	uint32_t job = 0, step = 0, task = 0;
	char aj[32] = "", at[32] = "";

	if (spank_get_item(sp, S_JOB_ID, &job) != ESPANK_SUCCESS ||
	    spank_get_item(sp, S_JOB_STEPID, &step) != ESPANK_SUCCESS ||
	    spank_get_item(sp, S_TASK_GLOBAL_ID, &task) != ESPANK_SUCCESS)
		task_refuse("cannot read the job, step and task ids");
	/* Absent outside an array: the name then has the job id. */
	if (spank_getenv(sp, "SLURM_ARRAY_JOB_ID", aj, sizeof(aj)) !=
		ESPANK_SUCCESS ||
	    spank_getenv(sp, "SLURM_ARRAY_TASK_ID", at, sizeof(at)) !=
		ESPANK_SUCCESS)
		aj[0] = at[0] = '\0';
	if (jrs_task_name(name, len, aj, at, job, step, task) < 0)
		task_refuse("the task's name is too long");
}

/*
 * Whether CMD names an executable file: as given when it has a '/', else
 * found on the task's PATH (Slurm resolves a bare name after the plugin).
 */
static int task_command_executable(spank_t sp, const char *cmd)
{
	char path[4096], file[8192];
	char *dir, *save = NULL;

	if (strchr(cmd, '/'))
		return access(cmd, X_OK) == 0;
	if (spank_getenv(sp, "PATH", path, sizeof(path)) != ESPANK_SUCCESS)
		return 0;
	for (dir = strtok_r(path, ":", &save); dir;
	     dir = strtok_r(NULL, ":", &save)) {
		int n = snprintf(file, sizeof(file), "%s/%s", dir, cmd);

		if (n > 0 && (size_t)n < sizeof(file) &&
		    access(file, X_OK) == 0)
			return 1;
	}
	return 0;
}

int slurm_spank_task_init(spank_t sp, int ac, char **av)
{
	uint32_t step = 0;
	int argc = 0;
	char **argv = NULL;
	char name[128];
	struct jrs_args args = { 0 };

	if (!jrs_opts_any(&jail_opts) || !spank_remote(sp))
		return 0;
	if (spank_get_item(sp, S_JOB_STEPID, &step) != ESPANK_SUCCESS)
		task_refuse("cannot read the step id");
	if (step == SLURM_EXTERN_CONT)
		return 0;
	/* Said, not silent: a user could take the script for sandboxed. */
	if (step == SLURM_BATCH_SCRIPT) {
		fprintf(
		    stderr,
		    "jailrun (Slurm plugin): the batch script itself runs outside jailrun; each srun step in it runs under jailrun with the --jail-* options\n");
		return 0;
	}
	if (spank_get_item(sp, S_JOB_ARGV, &argc, &argv) != ESPANK_SUCCESS ||
	    argc < 1 || !argv || !argv[0])
		task_refuse("cannot read the task's command (S_JOB_ARGV)");
	/*
	 * Not executable: most likely a --multi-prog file that srun's check
	 * missed, whose tasks the rewrite would not reach. Fail closed.
	 */
	if (!task_command_executable(sp, argv[0]))
		task_refuse(
		    "the task's command is not an executable file (--jail-* cannot wrap srun --multi-prog)");
	task_name(sp, name, sizeof(name));
	if (jrs_opts_args(&jail_opts, name, &args) < 0)
		task_refuse(
		    "cannot build jailrun's options (out of memory, or a --jail-json or --jail-log path too long)");
	if (spank_setenv(sp, JRS_ENV_ARGV0, argv[0], 1) != ESPANK_SUCCESS ||
	    spank_setenv(sp, JRS_ENV_ARGS, args.text ? args.text : "", 1) !=
		ESPANK_SUCCESS ||
	    spank_setenv(sp, JRS_ENV_JAILRUN, jailrun_path, 1) !=
		ESPANK_SUCCESS)
		task_refuse(
		    "cannot hand the options to jailrun-slurm-exec (spank_setenv)");
	/* The step's own array: replacing a string is what the API permits. */
	argv[0] = strdup(exec_path);
	if (!argv[0])
		task_refuse("out of memory");
	return 0;
}
