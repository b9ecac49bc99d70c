// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * err.c - filling struct jr_err. Messages are truncated, never overflowed:
 * an error path must not fail for want of memory, so nothing here allocates.
 */

#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "err.h"

int jr_err_set(struct jr_err *e, int code, const char *fmt, ...)
{
	va_list ap;

	if (code <= 0)
		code = EIO;
	if (!e)
		return -code;
	e->code = code;
	va_start(ap, fmt);
	vsnprintf(e->msg, sizeof(e->msg), fmt, ap);
	va_end(ap);
	return -code;
}

int jr_err_prefix(struct jr_err *e, const char *fmt, ...)
{
	char old[JR_ERR_MSG_MAX];
	size_t n;
	va_list ap;

	if (!e)
		return -EIO;
	if (e->code <= 0)
		e->code = EIO;
	memcpy(old, e->msg, sizeof(old));
	va_start(ap, fmt);
	vsnprintf(e->msg, sizeof(e->msg), fmt, ap);
	va_end(ap);
	n = strlen(e->msg);
	snprintf(e->msg + n, sizeof(e->msg) - n, "%s", old);
	return -e->code;
}
