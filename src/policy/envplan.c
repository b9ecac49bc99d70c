// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * envplan.c - checking and ordering what the options ask of the command's
 * environment.
 *
 * Theory of operation: see envplan.h for the order. Everything here is
 * pure (no process state is read or changed), so the runner checks it all
 * before anything is cloned, and a bad entry stops the run with exit 125
 * naming the entry and the rule; the pre-exec child (sandbox/cmdenv.c)
 * only applies a plan already known to be good.
 */

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cleanup.h"
#include "envplan.h"
#include "log.h"

const char *const jr_env_proxy_vars[] = {
	"HTTP_PROXY", "HTTPS_PROXY", "ALL_PROXY",
	"http_proxy", "https_proxy", "all_proxy",
};
const size_t jr_env_n_proxy_vars = ARRAY_SIZE(jr_env_proxy_vars);

const char *const jr_env_ca_vars[] = {
	"SSL_CERT_FILE",  "NODE_EXTRA_CA_CERTS", "REQUESTS_CA_BUNDLE",
	"CURL_CA_BUNDLE", "GIT_SSL_CAINFO",
};
const size_t jr_env_n_ca_vars = ARRAY_SIZE(jr_env_ca_vars);

/*
 * The name rule: what execve(2) itself cannot carry ('=' ends the name,
 * NUL the string) and what no shell or tool could ever name (empty,
 * spaces, control bytes, non-ASCII) is refused, rather than passed on to
 * fail somewhere later.
 */
const char *jr_env_name_rule(const char *name, size_t len)
{
	if (len == 0)
		return "the name is empty";
	for (size_t i = 0; i < len; i++) {
		unsigned char c = (unsigned char)name[i];

		if (c == '=')
			return "a name cannot contain '='";
		if (c == '\0')
			return "a name cannot contain a NUL byte";
		if (c <= ' ' || c >= 0x7f)
			return "a name is printable ASCII without spaces";
	}
	return NULL;
}

int jr_env_parse_setenv(const char *arg, struct jr_env_var *out,
			struct jr_err *err)
{
	const char *eq = strchr(arg, '=');
	const char *rule;

	if (!eq)
		return jr_err_set(err, EINVAL,
				  "--setenv %s: expected NAME=VALUE", arg);
	rule = jr_env_name_rule(arg, (size_t)(eq - arg));
	if (rule)
		return jr_err_set(err, EINVAL, "--setenv %s: %s", arg, rule);
	out->name = strndup(arg, (size_t)(eq - arg));
	out->value = strdup(eq + 1);
	if (!out->name || !out->value) {
		free(out->name);
		free(out->value);
		out->name = out->value = NULL;
		return jr_err_set(err, ENOMEM, "out of memory");
	}
	return 0;
}

int jr_env_check_unsetenv(const char *arg, struct jr_err *err)
{
	const char *rule = jr_env_name_rule(arg, strlen(arg));

	if (rule)
		return jr_err_set(err, EINVAL, "--unsetenv %s: %s", arg, rule);
	return 0;
}

int jr_env_plan_add_own(struct jr_env_plan *p, const char *name)
{
	char **g;

	if (jr_env_plan_is_own(p, name))
		return 0;
	g = realloc(p->own, (p->n_own + 1) * sizeof(*g));
	if (!g)
		return -ENOMEM;
	p->own = g;
	p->own[p->n_own] = strdup(name);
	if (!p->own[p->n_own])
		return -ENOMEM;
	p->n_own++;
	return 0;
}

bool jr_env_plan_is_own(const struct jr_env_plan *p, const char *name)
{
	for (size_t i = 0; i < p->n_own; i++)
		if (strcmp(p->own[i], name) == 0)
			return true;
	return false;
}

static int append_var(struct jr_env_plan *p, const char *name, size_t nlen,
		      const char *value, size_t vlen)
{
	struct jr_env_var *g = realloc(p->file, (p->n_file + 1) * sizeof(*g));

	if (!g)
		return -ENOMEM;
	p->file = g;
	g[p->n_file].name = strndup(name, nlen);
	g[p->n_file].value = strndup(value, vlen);
	if (!g[p->n_file].name || !g[p->n_file].value) {
		free(g[p->n_file].name);
		free(g[p->n_file].value);
		return -ENOMEM;
	}
	p->n_file++;
	return 0;
}

/* Blank, or a comment: nothing but spaces and tabs before a '#' or the end. */
static bool line_is_empty(const char *s, size_t len)
{
	size_t i = 0;

	while (i < len && (s[i] == ' ' || s[i] == '\t'))
		i++;
	return i == len || s[i] == '#';
}

/* The rule a NAME=VALUE line of an env file breaks, or NULL. */
static const char *file_line_rule(const char *s, size_t len)
{
	const char *eq;

	if (memchr(s, '\0', len))
		return "a NUL byte (an env file is text)";
	if (len && s[len - 1] == '\r')
		return "the line ends in a carriage return (a DOS file? convert it with dos2unix)";
	eq = memchr(s, '=', len);
	if (!eq)
		return "expected NAME=VALUE";
	if (len > 7 && strncmp(s, "export ", 7) == 0)
		return "no 'export ': the file is NAME=VALUE lines, not a shell script";
	return jr_env_name_rule(s, (size_t)(eq - s));
}

/* Drop the entries from @from on (a file that failed part way). */
static void truncate_file_vars(struct jr_env_plan *p, size_t from)
{
	while (p->n_file > from) {
		p->n_file--;
		free(p->file[p->n_file].name);
		free(p->file[p->n_file].value);
	}
}

int jr_env_plan_add_file(struct jr_env_plan *p, const char *text, size_t len,
			 const char *path, struct jr_err *err)
{
	size_t first = p->n_file, lineno = 0;
	const char *s = text, *end = text + len;

	while (s < end) {
		const char *nl = memchr(s, '\n', (size_t)(end - s));
		size_t l = nl ? (size_t)(nl - s) : (size_t)(end - s);
		const char *rule, *eq;
		size_t nlen;

		lineno++;
		if (!line_is_empty(s, l) || memchr(s, '\0', l)) {
			rule = file_line_rule(s, l);
			if (rule) {
				truncate_file_vars(p, first);
				return jr_err_set(err, EINVAL,
						  "--env-file %s:%zu: %s", path,
						  lineno, rule);
			}
			eq = memchr(s, '=', l);
			nlen = (size_t)(eq - s);
			if (append_var(p, s, nlen, eq + 1, l - nlen - 1) < 0) {
				truncate_file_vars(p, first);
				return jr_err_set(err, ENOMEM, "out of memory");
			}
			if (jr_env_plan_is_own(p,
					       p->file[p->n_file - 1].name)) {
				jr_warn(
				    "--env-file %s:%zu: %s is jailrun's own variable in this run: the line is ignored (--setenv %s=... sets it on purpose)",
				    path, lineno, p->file[p->n_file - 1].name,
				    p->file[p->n_file - 1].name);
				truncate_file_vars(p, p->n_file - 1);
			}
		}
		s = nl ? nl + 1 : end;
	}
	return 0;
}

int jr_env_plan_check(const struct jr_env_plan *p, struct jr_err *err)
{
	for (size_t i = 0; i < p->n_unset; i++)
		for (size_t j = 0; j < p->n_set; j++)
			if (strcmp(p->unset[i], p->set[j].name) == 0)
				return jr_err_set(
				    err, EINVAL,
				    "--unsetenv %s and --setenv %s=...: both name %s; keep one",
				    p->unset[i], p->set[j].name, p->unset[i]);
	return 0;
}

void jr_env_plan_release(struct jr_env_plan *p)
{
	for (size_t i = 0; i < p->n_file; i++) {
		free(p->file[i].name);
		free(p->file[i].value);
	}
	for (size_t i = 0; i < p->n_set; i++) {
		free(p->set[i].name);
		free(p->set[i].value);
	}
	for (size_t i = 0; i < p->n_lane; i++) {
		free(p->lane[i].name);
		free(p->lane[i].value);
	}
	for (size_t i = 0; i < p->n_unset; i++)
		free(p->unset[i]);
	for (size_t i = 0; i < p->n_own; i++)
		free(p->own[i]);
	free(p->file);
	free(p->set);
	free(p->lane);
	free(p->unset);
	free(p->own);
	free(p->home);
	free(p->user);
	free(p->shell);
	memset(p, 0, sizeof(*p));
}

/* Whether the entry @dir (@l bytes) is also one of @path's entries
 * before @at: a PATH that names a directory twice drops it twice. */
static bool entry_before(const char *path, const char *at, const char *dir,
			 size_t l)
{
	for (const char *s = path; s < at;) {
		const char *end = strchrnul(s, ':');

		if ((size_t)(end - s) == l && memcmp(s, dir, l) == 0)
			return true;
		if (!*end)
			break;
		s = end + 1;
	}
	return false;
}

char *jr_env_path_prune(const char *path,
			int (*searchable)(const char *dir, void *ctx),
			void (*dropped)(const char *dir, void *ctx), void *ctx)
{
	size_t len = strlen(path), o = 0;
	_cleanup_free_ char *dir = malloc(len + 1);
	char *out = malloc(len + 1);
	bool first = true;

	if (!dir || !out) {
		free(out);
		return NULL;
	}
	for (const char *s = path;;) {
		const char *end = strchrnul(s, ':');
		size_t l = (size_t)(end - s);

		memcpy(dir, s, l);
		dir[l] = '\0';
		/* An empty entry is the working directory: always kept. */
		if (l == 0 || searchable(dir, ctx) != -EACCES) {
			if (!first)
				out[o++] = ':';
			memcpy(out + o, dir, l);
			o += l;
			first = false;
		} else if (!entry_before(path, s, dir, l)) {
			dropped(dir, ctx);
		}
		if (!*end)
			break;
		s = end + 1;
	}
	out[o] = '\0';
	return out;
}
