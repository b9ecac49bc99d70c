// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * cmdenv.c - the command's environment, planned in the runner and applied
 * in the pre-exec child.
 *
 * Theory of operation: every entry an option or env file gives is checked
 * in the runner (envplan.c), so a bad one stops the run before anything
 * is cloned. The command's passwd entry is read there too, in the host's
 * databases, like its ids (ids.c). What can only be judged as the
 * command, inside the sandbox's mounts (can it search HOME, each PATH
 * directory?), is asked in the pre-exec child after the privileges are
 * dropped: access(2) then answers for the command's own ids, without a
 * capability. The child runs in init's vfork (init.c): it only changes
 * the environment, which init never reads.
 */

#include <errno.h>
#include <fcntl.h>
#include <pwd.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "cleanup.h"
#include "cmdenv.h"
#include "io.h"
#include "lane.h"
#include "log.h"
#include "secrets.h"

/* Where HOME points when the passwd entry's cannot be searched (nobody's
 * /nonexistent): a private tmpfs by default, writable by every user and
 * gone at exit, so a tool's cache neither fails nor lands in the project. */
#define JR_FALLBACK_HOME "/tmp"
/* passwd(5): an empty shell field means /bin/sh. */
#define JR_FALLBACK_SHELL "/bin/sh"

/* The names jailrun itself sets or has set in this run (envplan.h). */
static int note_own(struct jr_env_plan *p, const struct jr_options *opts)
{
	static const char *const proxy_extra[] = { "NO_PROXY", "no_proxy",
						   "NODE_USE_ENV_PROXY" };
	const struct jr_secrets *s = opts->secrets;
	char name[32];
	int r = 0;

	if (opts->net == JR_NET_ALLOWLIST) {
		for (size_t i = 0; i < jr_env_n_proxy_vars && !r; i++)
			r = jr_env_plan_add_own(p, jr_env_proxy_vars[i]);
		for (size_t i = 0; i < ARRAY_SIZE(proxy_extra) && !r; i++)
			r = jr_env_plan_add_own(p, proxy_extra[i]);
		for (size_t i = 0; i < opts->lanes.n_lane && !r; i++) {
			if (!opts->lanes.lane[i].host)
				continue;
			snprintf(name, sizeof(name), "JAILRUN_LANE_%u",
				 opts->lanes.lane[i].port);
			r = jr_env_plan_add_own(p, name);
		}
	}
	if (s && s->trust_bundle)
		for (size_t i = 0; i < jr_env_n_ca_vars && !r; i++)
			r = jr_env_plan_add_own(p, jr_env_ca_vars[i]);
	for (size_t i = 0; s && i < s->n && !r; i++)
		r = jr_env_plan_add_own(p, s->s[i].name);
	return r;
}

/*
 * --lane-env, expanded (lane.h): jailrun's own variables, set next to
 * JAILRUN_LANE_<PORT> (init.c), so an env file cannot drop them and
 * --clearenv keeps them. A name jailrun already sets is refused: the
 * proxy or a secret's placeholder would be lost without a word.
 */
static int plan_lane_env(struct jr_env_plan *p, const struct jr_options *opts,
			 struct jr_err *err)
{
	struct jr_env_var *v;

	if (!opts->n_lane_env)
		return 0;
	p->lane = calloc(opts->n_lane_env, sizeof(*p->lane));
	if (!p->lane)
		return jr_err_set(err, ENOMEM, "out of memory");
	for (size_t i = 0; i < opts->n_lane_env; i++) {
		v = &p->lane[p->n_lane];
		if (jr_lane_env_expand(&opts->lanes, opts->lane_env[i],
				       &v->name, &v->value, err) < 0)
			return -EINVAL;
		p->n_lane++;
		if (jr_env_plan_is_own(p, v->name))
			return jr_err_set(
			    err, EINVAL,
			    "--lane-env %s: %s is one of jailrun's own variables in this run (proxy, lane, CA or --secret); choose another name",
			    opts->lane_env[i], v->name);
	}
	for (size_t i = 0; i < p->n_lane; i++)
		if (jr_env_plan_add_own(p, p->lane[i].name) < 0)
			return jr_err_set(err, ENOMEM, "out of memory");
	return 0;
}

/* An env file: a regular file, read whole, at most JR_ENV_FILE_MAX. */
static int read_env_file(const char *path, char **text, size_t *len,
			 struct jr_err *err)
{
	_cleanup_free_ char *label = NULL;
	struct stat st;

	if (asprintf(&label, "--env-file %s", path) < 0) {
		label = NULL;
		return jr_err_set(err, ENOMEM, "out of memory");
	}
	return jr_read_regular(path, label, JR_ENV_FILE_MAX, text, len, &st,
			       err);
}

/* --setenv and --unsetenv into @p; a name of jailrun's own is said. */
static int plan_options(struct jr_env_plan *p, const struct jr_options *opts,
			struct jr_err *err)
{
	p->set = calloc(opts->n_env_set + 1, sizeof(*p->set));
	p->unset = calloc(opts->n_env_unset + 1, sizeof(*p->unset));
	if (!p->set || !p->unset)
		return jr_err_set(err, ENOMEM, "out of memory");
	for (size_t i = 0; i < opts->n_env_set; i++) {
		if (jr_env_parse_setenv(opts->env_set[i], &p->set[i], err) < 0)
			return -EINVAL;
		p->n_set++;
		if (jr_env_plan_is_own(p, p->set[i].name))
			jr_warn(
			    "--setenv %s: replaces jailrun's own variable for the command (the proxy, lane or CA setting it needs may no longer reach it)",
			    p->set[i].name);
	}
	for (size_t i = 0; i < opts->n_env_unset; i++) {
		if (jr_env_check_unsetenv(opts->env_unset[i], err) < 0)
			return -EINVAL;
		p->unset[i] = strdup(opts->env_unset[i]);
		if (!p->unset[i])
			return jr_err_set(err, ENOMEM, "out of memory");
		p->n_unset++;
		if (jr_env_plan_is_own(p, p->unset[i]))
			jr_warn(
			    "--unsetenv %s: removes jailrun's own variable for the command (the proxy, lane or CA setting it needs may no longer reach it)",
			    p->unset[i]);
	}
	return jr_env_plan_check(p, err);
}

/* SHELL: the login shell when /etc/shells lists it, else /bin/sh: nobody's
 * /usr/sbin/nologin would make every tool that runs $SHELL -c fail. */
static const char *usable_shell(const char *shell)
{
	const char *s, *found = NULL;

	if (!shell || !*shell)
		return JR_FALLBACK_SHELL;
	setusershell();
	while ((s = getusershell()))
		if (strcmp(s, shell) == 0) {
			found = shell;
			break;
		}
	endusershell();
	return found ? found : JR_FALLBACK_SHELL;
}

static int plan_identity(struct jr_env_plan *p, const struct jr_ids *ids,
			 struct jr_err *err)
{
	struct passwd *pw;

	errno = 0;
	pw = getpwuid(ids->uid);
	if (pw && pw->pw_dir && pw->pw_dir[0] == '/') {
		p->home = strdup(pw->pw_dir);
		if (!p->home)
			return jr_err_set(err, ENOMEM, "out of memory");
	}
	p->user = strdup(pw ? pw->pw_name : ids->name);
	p->shell = strdup(usable_shell(pw ? pw->pw_shell : NULL));
	if (!p->user || !p->shell)
		return jr_err_set(err, ENOMEM, "out of memory");
	return 0;
}

int jr_cmdenv_plan(struct jr_env_plan *p, const struct jr_options *opts,
		   const struct jr_ids *ids, struct jr_err *err)
{
	int r;

	memset(p, 0, sizeof(*p));
	p->clear = opts->clearenv;
	if (note_own(p, opts) < 0) {
		r = jr_err_set(err, ENOMEM, "out of memory");
		goto fail;
	}
	r = plan_lane_env(p, opts, err);
	if (r == 0)
		r = plan_options(p, opts, err);
	for (size_t i = 0; i < opts->n_env_files && r == 0; i++) {
		_cleanup_free_ char *text = NULL;
		size_t len = 0;

		r = read_env_file(opts->env_files[i], &text, &len, err);
		if (r == 0)
			r = jr_env_plan_add_file(p, text, len,
						 opts->env_files[i], err);
	}
	if (r == 0)
		r = plan_identity(p, ids, err);
	if (r < 0)
		goto fail;
	jr_verbose(
	    "environment: %s, %zu from env files, %zu --setenv, %zu --unsetenv; HOME %s, USER %s, SHELL %s",
	    p->clear ? "cleared (--clearenv)" : "inherited", p->n_file,
	    p->n_set, p->n_unset,
	    p->home ? p->home : "(none: " JR_FALLBACK_HOME ")", p->user,
	    p->shell);
	return 0;
fail:
	jr_env_plan_release(p);
	return r;
}

/* ------------------------------------------------ the pre-exec child */

extern char **environ;

void jr_cmdenv_clear(const struct jr_env_plan *p)
{
	char **keep = environ;

	if (!p->clear || !environ)
		return;
	/* In place, by hand: unsetenv() cannot remove an entry without a
	 * name or without '=', and the array is ours to edit (environ(7)). */
	for (char **e = environ; *e; e++) {
		const char *eq = strchr(*e, '=');
		size_t l = eq ? (size_t)(eq - *e) : 0;
		bool own = false;

		for (size_t i = 0; eq && i < p->n_own && !own; i++)
			own = strlen(p->own[i]) == l &&
			      strncmp(p->own[i], *e, l) == 0;
		if (own)
			*keep++ = *e;
	}
	*keep = NULL;
}

static int set_var(const char *name, const char *value, struct jr_err *err)
{
	if (setenv(name, value, 1) < 0)
		return jr_err_set(err, errno, "setenv %s: %s", name,
				  strerror(errno));
	return 0;
}

/* A HOME the command can use: a directory it can search. */
static bool home_usable(const char *home)
{
	struct stat st;

	return home && stat(home, &st) == 0 && S_ISDIR(st.st_mode) &&
	       access(home, X_OK) == 0;
}

int jr_cmdenv_base(const struct jr_env_plan *p, struct jr_err *err)
{
	const char *home = p->home;

	if (!home_usable(home)) {
		jr_verbose("HOME is " JR_FALLBACK_HOME
			   ": %s's home %s is not a directory %s can search",
			   p->user, home ? home : "(none)", p->user);
		home = JR_FALLBACK_HOME;
	}
	if (set_var("HOME", home, err) < 0 ||
	    set_var("USER", p->user, err) < 0 ||
	    set_var("LOGNAME", p->user, err) < 0 ||
	    set_var("SHELL", p->shell, err) < 0)
		return -1;
	for (size_t i = 0; i < p->n_file; i++)
		if (set_var(p->file[i].name, p->file[i].value, err) < 0)
			return -1;
	return 0;
}

static int dir_searchable(const char *dir, void *ctx)
{
	(void)ctx;
	return access(dir, X_OK) == 0 ? 0 : -errno;
}

static void dir_dropped(const char *dir, void *ctx)
{
	const struct jr_env_plan *p = ctx;
	char esc[JR_LOG_ESCAPED(256)];

	jr_verbose("PATH: dropped %s: %s cannot search it",
		   jr_log_escape(dir, esc, sizeof(esc)), p->user);
}

int jr_cmdenv_finish(const struct jr_env_plan *p, struct jr_err *err)
{
	const char *path;
	char *pruned;
	int r;

	for (size_t i = 0; i < p->n_set; i++)
		if (set_var(p->set[i].name, p->set[i].value, err) < 0)
			return -1;
	for (size_t i = 0; i < p->n_unset; i++)
		unsetenv(p->unset[i]);
	path = getenv("PATH");
	if (!path)
		return 0;
	pruned =
	    jr_env_path_prune(path, dir_searchable, dir_dropped, (void *)p);
	if (!pruned)
		return jr_err_set(err, ENOMEM, "out of memory");
	r = set_var("PATH", pruned, err);
	free(pruned);
	return r;
}
