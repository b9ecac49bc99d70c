/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * err.h - the one error convention of jailrun.
 *
 * A fallible function returns 0 (or a non-negative value) on success and a
 * negative errno on failure. When the caller needs to tell a person what went
 * wrong, the function also takes a struct jr_err and fills it with the errno
 * and one line saying what failed and, where we know it, what to do. Only
 * main() and the pre-exec child decide to die; everything else returns.
 */
#ifndef JR_ERR_H
#define JR_ERR_H

#include <stdarg.h>

#define JR_ERR_MSG_MAX 1024

struct jr_err {
	int code;		  /* positive errno, 0 if unset */
	char msg[JR_ERR_MSG_MAX]; /* one line, no trailing newline */
};

/*
 * jr_err_set - record an error.
 * @e: the error to fill (may be NULL: then only the return value matters)
 * @code: a positive errno value (0 is treated as EIO)
 * @fmt: printf-style message
 *
 * Return: -code, so callers can write "return jr_err_set(err, ...)".
 */
int jr_err_set(struct jr_err *e, int code, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));

/*
 * jr_err_prefix - put context in front of an error already recorded.
 * Return: -e->code.
 */
int jr_err_prefix(struct jr_err *e, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));

#endif
