// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * log.c - one write(2) per message so lines from the runner and from the
 * sandbox's PID 1 (a different process sharing stderr) never interleave
 * mid-line.
 */

#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>
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

const char *jr_log_escape(const char *text, char *buf, size_t size)
{
	size_t o = 0;

	for (; *text; text++) {
		unsigned char ch = (unsigned char)*text;
		int plain = ch >= 0x20 && ch < 0x7f && ch != '\\';

		/* Room for this byte, and for "..." if more follow. */
		if (o + (plain ? 1 : 4) + (text[1] ? 3 : 0) >= size) {
			memcpy(buf + o, "...", 4);
			return buf;
		}
		if (plain)
			buf[o++] = (char)ch;
		else
			o += (size_t)snprintf(buf + o, 5, "\\x%02x", ch);
	}
	buf[o] = '\0';
	return buf;
}
