/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * spank_args.h - the pure part of the Slurm SPANK plugin: checking the
 * --jail-* values, the jailrun options they become, the summary's file
 * name, and the hand-over from the plugin to jailrun-slurm-exec.
 */
#ifndef JR_SPANK_ARGS_H
#define JR_SPANK_ARGS_H

#include <stddef.h>
#include <stdint.h>

/* The environment the plugin hands to jailrun-slurm-exec (which removes it). */
#define JRS_ENV_ARGS "JAILRUN_SPANK_ARGS"
#define JRS_ENV_ARGV0 "JAILRUN_SPANK_ARGV0"
#define JRS_ENV_JAILRUN "JAILRUN_SPANK_JAILRUN"

/* A value longer than this is refused (a host name, a path, a profile). */
#define JRS_VALUE_MAX 4096

/*
 * struct jrs_args - jailrun options collected from the --jail-* options, as
 * one string: each argument followed by '\n' (values hold no control
 * character, jrs_value_check() sees to it).
 */
struct jrs_args {
	char *text;
	size_t len;
};

/* The --jail-* options, in the order of the plugin's option table. */
enum jrs_opt {
	JRS_ALLOW,
	JRS_PROFILE,
	JRS_NET,
	JRS_LANE,
	JRS_JSON,
	JRS_LOG,
	JRS_NOPTS
};

/* struct jrs_opts - the last value given for each option, NULL if none. */
struct jrs_opts {
	char *val[JRS_NOPTS];
};

int jrs_value_check(const char *opt, const char *val, char *msg, size_t msglen);
int jrs_opts_set(struct jrs_opts *o, int which, const char *val, char *msg,
		 size_t msglen);
int jrs_opts_any(const struct jrs_opts *o);
int jrs_opts_args(const struct jrs_opts *o, const char *task,
		  struct jrs_args *a);
void jrs_opts_free(struct jrs_opts *o);
void jrs_args_free(struct jrs_args *a);
int jrs_task_name(char *buf, size_t len, const char *array_job,
		  const char *array_task, uint32_t job, uint32_t step,
		  uint32_t task);
char **jrs_exec_argv(const char *jailrun, const char *args, const char *argv0,
		     int argc, char *const *argv);
char **jrs_env_without_handover(char *const *env);
int jrs_cmdline_multi_prog(const char *buf, size_t len);

#endif
