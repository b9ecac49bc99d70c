/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * envplan.h - the command's environment: what --clearenv, --unsetenv,
 * --env-file and --setenv ask for, checked and put in order before
 * anything runs.
 *
 * The order the pre-exec child applies it in (jailrun(1), ENVIRONMENT):
 *  1. jailrun's environment, or with --clearenv only jailrun's own
 *     variables already in it (CA bundle paths, secret placeholders);
 *  2. the variables naming host sockets go (fspolicy.c);
 *  3. HOME, USER, LOGNAME and SHELL of the command's user;
 *  4. --env-file lines, file by file, line by line;
 *  5. jailrun's own variables (proxy, NO_PROXY, lanes and --lane-env,
 *     CA paths): a
 *     line of an env file naming one is dropped with a warning, so an
 *     .env file written for the host never silently breaks the proxy;
 *  6. --setenv, in order (the last of a name wins): explicit, so it wins
 *     over jailrun's own too, with a warning at start;
 *  7. --unsetenv (the same name in --setenv is refused: choose one);
 *  8. PATH loses the directories the command's user cannot search.
 */
#ifndef JR_ENVPLAN_H
#define JR_ENVPLAN_H

#include <stdbool.h>
#include <stddef.h>

#include "err.h"

/* An env file larger than this is refused: it is a list of variables. */
#define JR_ENV_FILE_MAX (1024 * 1024)

/* The proxy variables the sandbox's init sets (allowlist mode). */
extern const char *const jr_env_proxy_vars[];
extern const size_t jr_env_n_proxy_vars;
/* The CA bundle variables --secret/--inspect point at the trust bundle. */
extern const char *const jr_env_ca_vars[];
extern const size_t jr_env_n_ca_vars;

struct jr_env_var {
	char *name;
	char *value;
};

struct jr_env_plan {
	bool clear;		 /* --clearenv */
	struct jr_env_var *file; /* --env-file lines, in order */
	size_t n_file;
	struct jr_env_var *set; /* --setenv, in order */
	size_t n_set;
	struct jr_env_var *lane; /* --lane-env, expanded: jailrun's own */
	size_t n_lane;
	char **unset; /* --unsetenv */
	size_t n_unset;
	/* jailrun's own variables in this run: kept by --clearenv, never
	 * taken from an env file */
	char **own;
	size_t n_own;
	/* the command's user (its passwd entry): HOME NULL when it has
	 * none; init falls back to /tmp when HOME cannot be searched */
	char *home;
	char *user;
	char *shell;
};

/*
 * jr_env_name_rule - is @name (@len bytes) fit to be an environment
 * variable's name? Return: NULL if so, else the rule it breaks.
 */
const char *jr_env_name_rule(const char *name, size_t len);

/*
 * jr_env_parse_setenv - split a --setenv NAME=VALUE into @out (copies).
 * Return: 0, or -EINVAL/-ENOMEM with @err naming @arg and the rule.
 */
int jr_env_parse_setenv(const char *arg, struct jr_env_var *out,
			struct jr_err *err);

/* jr_env_check_unsetenv - a --unsetenv NAME; 0 or -EINVAL with @err. */
int jr_env_check_unsetenv(const char *arg, struct jr_err *err);

/*
 * jr_env_plan_add_file - append the variables of an env file's text
 * (@len bytes, read from @path) to @p. One NAME=VALUE a line; blank lines
 * and lines whose first non-blank is '#' are skipped; VALUE is literal.
 * A name in @p->own is dropped with a warning. Return: 0, or <0 with
 * @err naming @path:LINE and the rule; then nothing of the file is kept.
 */
int jr_env_plan_add_file(struct jr_env_plan *p, const char *text, size_t len,
			 const char *path, struct jr_err *err);

/* jr_env_plan_add_own - note @name as one of jailrun's own variables. */
int jr_env_plan_add_own(struct jr_env_plan *p, const char *name);

/* jr_env_plan_is_own - is @name one of jailrun's own variables? */
bool jr_env_plan_is_own(const struct jr_env_plan *p, const char *name);

/*
 * jr_env_plan_check - the plan as a whole: a name both in --setenv and
 * --unsetenv is refused. Return: 0 or -EINVAL with @err.
 */
int jr_env_plan_check(const struct jr_env_plan *p, struct jr_err *err);

/* Free everything @p holds; it is then empty. */
void jr_env_plan_release(struct jr_env_plan *p);

/*
 * jr_env_path_prune - @path without the directories @searchable says the
 * command cannot search (it returns -EACCES for those; a missing one is
 * kept: it costs a shell nothing). @dropped is told each one dropped,
 * once, also when @path names it twice.
 * Return: a new string (free it), or NULL when out of memory.
 */
char *jr_env_path_prune(const char *path,
			int (*searchable)(const char *dir, void *ctx),
			void (*dropped)(const char *dir, void *ctx), void *ctx);

#endif
