/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * confline.h - the line grammar that jailrun.conf(5) files and the
 * managed policy share: "keyword value", comments, quotes, line numbers.
 *
 * Its own module so that both readers (conffile.c, managed.c) depend on
 * it and neither on the other's file format.
 */
#ifndef JR_CONFLINE_H
#define JR_CONFLINE_H

#include <stdbool.h>
#include <stddef.h>

#include "err.h"

/* A configuration file larger than this is refused: it is not one. */
#define JR_CONFIG_MAX_BYTES (1024 * 1024)

/* White space between a keyword, its value and a comment. */
static inline bool jr_conf_is_space(char c)
{
	return c == ' ' || c == '\t' || c == '\r';
}

/*
 * jr_conf_split - one line of a file, split in place: the keyword and the
 * value (rest of the line, white space trimmed, a '#' after white space
 * starts a comment; a value in double quotes runs to the last quote).
 * Return: 0 blank or comment, 1 a line (@value NULL if none), or -EINVAL
 * with @why.
 */
int jr_conf_split(char *line, char **kw, char **value, const char **why);

/*
 * jr_conf_line_fn - what jr_conf_each_line() calls for each line that is
 * not blank or a comment. @origin is "name:line" for messages; @kw and
 * @value (NULL if none) are jr_conf_split()'s, valid during the call only.
 * Return: 0, or -errno with @err set (stops the walk).
 */
typedef int (*jr_conf_line_fn)(void *ctx, const char *origin, char *kw,
			       char *value, struct jr_err *err);

/*
 * jr_conf_each_line - the one line walk of jailrun.conf(5) and the managed
 * policy: cut @text into lines, refuse a NUL byte, split each line with
 * jr_conf_split() and hand the keyword lines to @fn, so both files number
 * lines and word their errors the same way.
 * @name: the file's name, for origins ("name:line")
 * Return: 0 or -errno; @err is "name:line: what is wrong".
 */
int jr_conf_each_line(const char *name, const char *text, size_t len,
		      jr_conf_line_fn fn, void *ctx, struct jr_err *err);

#endif
