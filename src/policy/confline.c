/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * confline.c - the line grammar of jailrun.conf(5) and the managed policy
 * (see confline.h).
 */
#include <errno.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cleanup.h"
#include "confline.h"

int jr_conf_split(char *line, char **kw, char **value, const char **why)
{
	char *p = line, *end;

	*kw = *value = NULL;
	while (jr_conf_is_space(*p))
		p++;
	if (!*p || *p == '#')
		return 0;
	*kw = p;
	while (*p && !jr_conf_is_space(*p)) {
		if (*p == '=' || *p == ':') {
			/* "allow=x": the command line's --allow=x habit. */
			*why =
			    "a keyword and its value are separated by white space, not '=' or ':': write the keyword, a space, then the value (\"allow example.com\", not \"allow=example.com\")";
			return -EINVAL;
		}
		if (!((*p >= 'a' && *p <= 'z') || (*p >= '0' && *p <= '9') ||
		      *p == '-')) {
			*why =
			    "a keyword is lower-case letters, digits and '-' (an option's long name)";
			return -EINVAL;
		}
		p++;
	}
	if (*p)
		*p++ = '\0';
	while (jr_conf_is_space(*p))
		p++;
	if (*p == '"') {
		/* A quoted value runs to the line's last '"': it may hold
		 * '#', spaces at either end, and quotes. */
		end = strrchr(p + 1, '"');
		if (!end) {
			*why =
			    "a value that opens a quote must close it on the same line";
			return -EINVAL;
		}
		*end = '\0';
		for (char *q = end + 1; *q; q++) {
			if (*q == '#')
				break;
			if (!jr_conf_is_space(*q)) {
				*why =
				    "only a comment may follow a quoted value";
				return -EINVAL;
			}
		}
		*value = p + 1;
	} else if (*p && *p != '#') {
		/* A comment starts at a '#' after white space. */
		for (end = p; *end; end++)
			if (*end == '#' && jr_conf_is_space(end[-1]))
				break;
		*end = '\0';
		while (end > p && jr_conf_is_space(end[-1]))
			*--end = '\0';
		*value = p;
	}
	if (*value)
		for (const char *q = *value; *q; q++)
			if ((unsigned char)*q < 0x20 && *q != '\t') {
				*why = "a control character in the value";
				return -EINVAL;
			}
	return 1;
}

int jr_conf_each_line(const char *name, const char *text, size_t len,
		      jr_conf_line_fn fn, void *ctx, struct jr_err *err)
{
	size_t off = 0, lineno = 0;

	while (off < len) {
		const char *nl = memchr(text + off, '\n', len - off);
		size_t ll = nl ? (size_t)(nl - (text + off)) : len - off;
		_cleanup_free_ char *line = NULL;
		char origin[4200], *kw, *value;
		const char *why = "";
		int r;

		lineno++;
		snprintf(origin, sizeof(origin), "%s:%zu", name, lineno);
		if (memchr(text + off, '\0', ll))
			return jr_err_set(err, EINVAL, "%s: a NUL byte",
					  origin);
		line = strndup(text + off, ll);
		if (!line)
			return jr_err_set(err, ENOMEM, "out of memory");
		off += ll + (nl ? 1 : 0);
		r = jr_conf_split(line, &kw, &value, &why);
		if (r < 0)
			return jr_err_set(err, EINVAL, "%s: %s", origin, why);
		if (r == 0)
			continue;
		r = fn(ctx, origin, kw, value, err);
		if (r < 0)
			return r;
	}
	return 0;
}
