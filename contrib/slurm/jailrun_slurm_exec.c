// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * jailrun_slurm_exec.c - jailrun-slurm-exec, what a Slurm task wrapped by
 * spank_jailrun.so execs first: it takes the jailrun options and the
 * task's own argv[0] out of the environment the plugin left them in
 * (spank_args.c says why) and execs "jailrun OPTIONS -- ARGV0 ARGS...".
 * Any failure exits 125, jailrun's own status for "not started".
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cleanup.h"
#include "spank_args.h"

static int refuse(const char *what, int err)
{
	fprintf(stderr, "jailrun-slurm-exec: %s%s%s\n", what, err ? ": " : "",
		err ? strerror(err) : "");
	return 125;
}

int main(int argc, char **argv)
{
	const char *args = getenv(JRS_ENV_ARGS);
	const char *argv0 = getenv(JRS_ENV_ARGV0);
	const char *jailrun = getenv(JRS_ENV_JAILRUN);
	_cleanup_free_ char **env = NULL;
	_cleanup_free_ char **jargv = NULL;

	if (!args || !argv0 || !*argv0 || !jailrun || jailrun[0] != '/')
		return refuse(
		    "started without the Slurm plugin's hand-over (" JRS_ENV_ARGS
		    ", " JRS_ENV_ARGV0 ", " JRS_ENV_JAILRUN
		    "): run it only from spank_jailrun.so",
		    0);
	/* The command never sees the hand-over. */
	env = jrs_env_without_handover(environ);
	if (!env)
		return refuse("out of memory", 0);
	jargv = jrs_exec_argv(jailrun, args, argv0, argc, argv);
	if (!jargv)
		return refuse("bad hand-over from the plugin", errno);
	execve(jailrun, jargv, env);
	fprintf(
	    stderr,
	    "jailrun-slurm-exec: cannot run %s: %s (set jailrun=PATH in plugstack.conf)\n",
	    jailrun, strerror(errno));
	return 125;
}
