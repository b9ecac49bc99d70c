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
	char *a, *a0, *jr;
	char **jargv;

	if (!args || !argv0 || !*argv0 || !jailrun || jailrun[0] != '/')
		return refuse(
		    "started without the Slurm plugin's hand-over (" JRS_ENV_ARGS
		    ", " JRS_ENV_ARGV0 ", " JRS_ENV_JAILRUN
		    "): run it only from spank_jailrun.so",
		    0);
	a = strdup(args);
	a0 = strdup(argv0);
	jr = strdup(jailrun);
	if (!a || !a0 || !jr)
		return refuse("out of memory", 0);
	/* The command never sees the hand-over. */
	if (unsetenv(JRS_ENV_ARGS) || unsetenv(JRS_ENV_ARGV0) ||
	    unsetenv(JRS_ENV_JAILRUN))
		return refuse("unsetenv", errno);
	jargv = jrs_exec_argv(jr, a, a0, argc, argv);
	if (!jargv)
		return refuse("bad hand-over from the plugin", errno);
	execv(jr, jargv);
	fprintf(
	    stderr,
	    "jailrun-slurm-exec: cannot run %s: %s (set jailrun=PATH in plugstack.conf)\n",
	    jr, strerror(errno));
	return 125;
}
