// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * managed.c - the administrator's managed policy.
 *
 * Theory of operation: the file is the one configuration a user cannot
 * change, so it is trusted only if only root can have written it: a
 * regular file (not a symbolic link) owned by root, not writable by group
 * or others, in a directory that is the same. Anything else (a wrong owner
 * or mode, an unreadable file, a bad line) refuses the run: going on
 * without the policy would run the command under a wider policy than the
 * administrator wrote, silently. An absent file is no policy.
 *
 * "deny ENTRY" uses the --allow grammar (policy.c parses it); an allow
 * entry that could match a destination a deny matches is refused, naming
 * both, before anything runs (jr_managed_check_entry(), also the hook for
 * entries added while a sandbox runs). A host lane (--lane ADDR:PORT) is
 * a destination the relay never asks the policy about, so it is judged
 * at start as a connection to that address and port would be at decision
 * time (jr_managed_check_address()): a lane is no way around a deny. "require OPTION VALUES" is checked
 * by conffile.c against the effective options, which it alone knows.
 *
 * A user who can make a user and mount namespace can mount something else
 * on /etc/jailrun and run jailrun there; so can one who builds their own
 * jailrun. The managed policy binds configurations and options of this
 * binary in the host's mount namespace, as sshd_config binds sshd: it is
 * not a wall against a user deliberately running other code.
 */

#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <libgen.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "cleanup.h"
#include "confline.h"
#include "managed.h"
#include "options.h"

void jr_managed_init(struct jr_managed *m)
{
	memset(m, 0, sizeof(*m));
	jr_policy_init(&m->deny);
}

void jr_managed_release(struct jr_managed *m)
{
	for (size_t i = 0; i < m->deny.n; i++)
		free(m->deny_origin[i]);
	free(m->deny_origin);
	jr_policy_free(&m->deny);
	for (size_t i = 0; i < m->n_req; i++) {
		free(m->req[i].split_owner);
		free(m->req[i].values);
		free(m->req[i].text);
		free(m->req[i].origin);
	}
	free(m->req);
	jr_managed_init(m);
}

/* Why a file or directory is not trustworthy as root's, or NULL. */
static const char *not_roots(const struct stat *st)
{
	if (st->st_uid != 0)
		return "is not owned by root";
	if (st->st_mode & (S_IWGRP | S_IWOTH))
		return "is writable by group or others";
	return NULL;
}

int jr_managed_load(struct jr_managed *m, const char *path, struct jr_err *err)
{
	_cleanup_free_ char *dir_copy = NULL, *text = NULL;
	_cleanup_close_ int fd = -1;
	struct stat st, dst;
	const char *why;
	size_t len = 0;
	ssize_t r;

	/* O_NONBLOCK: a FIFO must not hang the open; it is refused below
	 * as not a regular file (reads of a regular file never block). */
	fd = open(path,
		  O_RDONLY | O_CLOEXEC | O_NOCTTY | O_NOFOLLOW | O_NONBLOCK);
	if (fd < 0) {
		if (errno == ENOENT)
			return 0;
		if (errno == ELOOP)
			return jr_err_set(
			    err, ELOOP,
			    "managed policy %s is a symbolic link: refused; make it a regular file owned by root, mode 0644",
			    path);
		return jr_err_set(
		    err, errno,
		    "cannot read the managed policy %s: %s; it must be readable by every user (owned by root, mode 0644)",
		    path, strerror(errno));
	}
	if (fstat(fd, &st) < 0)
		return jr_err_set(err, errno, "managed policy %s: fstat: %s",
				  path, strerror(errno));
	if (!S_ISREG(st.st_mode))
		return jr_err_set(
		    err, EPERM,
		    "managed policy %s is not a regular file: refused", path);
	why = not_roots(&st);
	if (why)
		return jr_err_set(
		    err, EPERM,
		    "managed policy %s %s: refused (chown root %s; chmod go-w %s)",
		    path, why, path, path);
	dir_copy = strdup(path);
	if (!dir_copy)
		return jr_err_set(err, ENOMEM, "out of memory");
	if (stat(dirname(dir_copy), &dst) < 0)
		return jr_err_set(err, errno, "managed policy %s: stat %s: %s",
				  path, dir_copy, strerror(errno));
	why = not_roots(&dst);
	if (why)
		return jr_err_set(
		    err, EPERM,
		    "managed policy %s: its directory %s %s: refused (chown root %s; chmod go-w %s)",
		    path, dir_copy, why, dir_copy, dir_copy);
	if (st.st_size > JR_CONFIG_MAX_BYTES)
		return jr_err_set(err, EFBIG,
				  "managed policy %s: larger than %d bytes",
				  path, JR_CONFIG_MAX_BYTES);
	text = malloc((size_t)st.st_size + 1);
	if (!text)
		return jr_err_set(err, ENOMEM, "out of memory");
	while (len < (size_t)st.st_size) {
		r = read(fd, text + len, (size_t)st.st_size - len);
		if (r < 0 && errno == EINTR)
			continue;
		if (r < 0)
			return jr_err_set(
			    err, errno, "cannot read the managed policy %s: %s",
			    path, strerror(errno));
		if (r == 0)
			break;
		len += (size_t)r;
	}
	text[len] = '\0';
	m->present = true;
	return jr_managed_parse_text(m, path, text, len, err);
}

/* The option a require line names, or NULL: an option with a value or a
 * flag, never an action. */
static const struct option *requirable(const char *name)
{
	static const char *const actions[] = { "help",	  "version",
					       "check",	  "config",
					       "profile", "print-config" };
	const struct option *o;

	for (size_t i = 0; i < ARRAY_SIZE(actions); i++)
		if (strcmp(name, actions[i]) == 0)
			return NULL;
	for (o = jr_options_long_table(); o->name; o++)
		if (strcmp(o->name, name) == 0)
			return o;
	return NULL;
}

/* One value of a require line, checked by the one validator. */
static int check_require_value(const struct option *o, const char *v,
			       struct jr_err *err)
{
	char opt[80];
	char *argv[] = { (char *)"jailrun", opt, (char *)v, (char *)"--",
			 (char *)"true",    NULL };
	struct jr_options tmp;

	if (o->has_arg == no_argument) {
		if (strcmp(v, "yes") && strcmp(v, "no"))
			return jr_err_set(err, EINVAL,
					  "%s is a flag: expected yes or no",
					  o->name);
		return 0;
	}
	snprintf(opt, sizeof(opt), "--%s", o->name);
	/* The value's grammar: whether it fits the other options is the
	 * merged run's question (jr_options_parse_setting()). */
	if (jr_options_parse_setting(5, argv, &tmp, err) < 0)
		return -EINVAL;
	jr_options_release(&tmp);
	return 0;
}

static int add_require(struct jr_managed *m, const char *origin,
		       const char *value, struct jr_err *err)
{
	_cleanup_free_ char *text = NULL, *org = NULL, *split = NULL;
	_cleanup_free_ char **values = NULL;
	struct jr_managed_require *grown;
	const struct option *o;
	size_t n = 1;
	char *p, *sp;

	/* "OPTION VALUE[|VALUE...]" */
	sp = strpbrk(value, " \t");
	if (!sp)
		return jr_err_set(
		    err, EINVAL,
		    "%s: require needs an option and its permitted values, e.g. 'require seccomp on' or 'require net allowlist|none'",
		    origin);
	text = strdup(sp + strspn(sp, " \t"));
	if (!text)
		return jr_err_set(err, ENOMEM, "out of memory");
	split = strdup(text); /* cut at each '|'; values[0] owns it */
	org = strdup(origin);
	if (!split || !org)
		return jr_err_set(err, ENOMEM, "out of memory");
	*sp = '\0';
	o = requirable(value);
	if (!o)
		return jr_err_set(
		    err, EINVAL,
		    "%s: require %s: not an option that can be required (see jailrun.conf(5))",
		    origin, value);
	for (p = split; *p; p++)
		if (*p == '|')
			n++;
	values = calloc(n + 1, sizeof(*values));
	if (!values)
		return jr_err_set(err, ENOMEM, "out of memory");
	n = 0;
	for (p = split;;) {
		char *bar = strchr(p, '|');

		if (bar)
			*bar = '\0';
		if (!*p)
			return jr_err_set(err, EINVAL,
					  "%s: require %s: an empty value",
					  origin, o->name);
		if (check_require_value(o, p, err) < 0)
			return jr_err_prefix(err, "%s: require %s: ", origin,
					     o->name);
		values[n++] = p;
		if (!bar)
			break;
		p = bar + 1;
	}
	grown = realloc(m->req, (m->n_req + 1) * sizeof(*m->req));
	if (!grown)
		return jr_err_set(err, ENOMEM, "out of memory");
	m->req = grown;
	m->req[m->n_req++] = (struct jr_managed_require){
		.option = o->name,
		.values = steal_pointer(&values),
		.split_owner = steal_pointer(&split),
		.n_values = n,
		.text = steal_pointer(&text),
		.origin = steal_pointer(&org),
	};
	return 0;
}

static int add_deny(struct jr_managed *m, const char *origin, const char *value,
		    struct jr_err *err)
{
	_cleanup_free_ char *org = strdup(origin);
	char **grown;
	int r;

	if (!org)
		return jr_err_set(err, ENOMEM, "out of memory");
	grown =
	    realloc(m->deny_origin, (m->deny.n + 1) * sizeof(*m->deny_origin));
	if (!grown)
		return jr_err_set(err, ENOMEM, "out of memory");
	m->deny_origin = grown;
	r = jr_policy_add(&m->deny, value, err);
	if (r < 0) {
		/* policy.c says "--allow 'x': ..."; this is a deny. */
		jr_err_prefix(err, "%s: deny: ", origin);
		return r;
	}
	m->deny_origin[m->deny.n - 1] = steal_pointer(&org);
	return 0;
}

/* One line of the managed policy (jr_conf_line_fn). */
static int managed_line(void *ctx, const char *origin, char *kw, char *value,
			struct jr_err *err)
{
	struct jr_managed *m = ctx;

	if (!value)
		return jr_err_set(err, EINVAL, "%s: %s needs a value", origin,
				  kw);
	if (strcmp(kw, "deny") == 0)
		return add_deny(m, origin, value, err);
	if (strcmp(kw, "require") == 0)
		return add_require(m, origin, value, err);
	return jr_err_set(
	    err, EINVAL,
	    "%s: unknown keyword '%s' (the managed policy holds deny and require lines; see jailrun.conf(5))",
	    origin, kw);
}

int jr_managed_parse_text(struct jr_managed *m, const char *name,
			  const char *text, size_t len, struct jr_err *err)
{
	return jr_conf_each_line(name, text, len, managed_line, m, err);
}

/* Is @name strictly below @suffix ("a.b.c" below "b.c")? */
static bool name_below(const char *name, const char *suffix)
{
	size_t n = strlen(name), s = strlen(suffix);

	return n > s + 1 && name[n - s - 1] == '.' &&
	       strcmp(name + n - s, suffix) == 0;
}

static bool prefixes_overlap(const uint8_t *a, const uint8_t *b,
			     unsigned int bits)
{
	unsigned int whole = bits / 8, rest = bits % 8;

	if (memcmp(a, b, whole) != 0)
		return false;
	if (!rest)
		return true;
	return ((a[whole] ^ b[whole]) & (uint8_t)(0xff << (8 - rest))) == 0;
}

bool jr_allow_entries_overlap(const struct jr_allow_entry *a,
			      const struct jr_allow_entry *b)
{
	bool a_name = a->kind != JR_ALLOW_ADDR,
	     b_name = b->kind != JR_ALLOW_ADDR;

	if (a->port && b->port && a->port != b->port)
		return false;
	if (a_name != b_name)
		return false;
	if (!a_name) {
		unsigned int bits =
		    a->prefix < b->prefix ? a->prefix : b->prefix;

		return a->family == b->family &&
		       prefixes_overlap(a->addr, b->addr, bits);
	}
	if (a->kind == JR_ALLOW_HOST && b->kind == JR_ALLOW_HOST)
		return strcmp(a->name, b->name) == 0;
	if (a->kind == JR_ALLOW_HOST)
		return name_below(a->name, b->name);
	if (b->kind == JR_ALLOW_HOST)
		return name_below(b->name, a->name);
	/* two wildcards: one suffix equal to or below the other */
	return strcmp(a->name, b->name) == 0 || name_below(a->name, b->name) ||
	       name_below(b->name, a->name);
}

int jr_managed_check_entry(const struct jr_managed *m,
			   const struct jr_allow_entry *a, const char *what,
			   struct jr_err *err)
{
	for (size_t i = 0; i < m->deny.n; i++)
		if (jr_allow_entries_overlap(a, &m->deny.entries[i]))
			return jr_err_set(
			    err, EPERM,
			    "%s is refused: the managed policy's 'deny %s' (%s) covers it, and no configuration or option can loosen it",
			    what, m->deny.entries[i].text, m->deny_origin[i]);
	return 0;
}

int jr_managed_check_address(const struct jr_managed *m,
			     const struct sockaddr *sa, uint16_t port,
			     const char *what, struct jr_err *err)
{
	const struct jr_allow_entry *d =
	    jr_policy_deny_address(&m->deny, sa, port);

	if (!d)
		return 0;
	return jr_err_set(
	    err, EPERM,
	    "%s is refused: the managed policy's 'deny %s' (%s) covers it, and no configuration or option can loosen it",
	    what, d->text, m->deny_origin[d - m->deny.entries]);
}
