// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * log.c - one write(2) per message so lines from the runner and from the
 * sandbox's PID 1 (a different process sharing stderr) never interleave
 * mid-line.
 */

#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <unistd.h>

#include "log.h"

static int jr_log_level = JR_LOG_INFO;

void jr_log_set_level(int level)
{
	jr_log_level = level;
}

void jr_log(enum jr_log_level level, const char *fmt, ...)
{
	char line[2048];
	int saved = errno;
	int n;
	va_list ap;

	if ((int)level > jr_log_level)
		return;
	n = snprintf(line, sizeof(line), "jailrun: %s",
		     level == JR_LOG_WARN ? "warning: " : "");
	va_start(ap, fmt);
	n += vsnprintf(line + n, sizeof(line) - (size_t)n, fmt, ap);
	va_end(ap);
	if (n >= (int)sizeof(line) - 1)
		n = (int)sizeof(line) - 2;
	line[n++] = '\n';
	/* Best effort: nowhere to report a failure to write to stderr. */
	if (write(STDERR_FILENO, line, (size_t)n) < 0) {
	}
	errno = saved;
}
