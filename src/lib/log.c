// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * log.c - one write(2) per message so lines from the runner and from the
 * sandbox's PID 1 (a different process sharing stderr) never interleave
 * mid-line.
 */

#include <errno.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "log.h"

static int jr_log_level = JR_LOG_INFO;

/* Bytes still to be written (SIZE_MAX: no limit), shared by the runner's
 * threads (the relay logs too): taken with compare-and-swap so that two
 * messages never both take the last of it. */
static size_t log_budget = SIZE_MAX;
static bool log_full_said;

void jr_log_set_level(int level)
{
	jr_log_level = level;
}

void jr_log_set_budget(size_t bytes)
{
	__atomic_store_n(&log_budget, bytes, __ATOMIC_RELAXED);
	__atomic_store_n(&log_full_said, false, __ATOMIC_RELAXED);
}

/* Take @n bytes of the budget. Return: false when they are not there
 * (the message is dropped; the first drop says so, once). */
static bool take_budget(size_t n)
{
	static const char full[] =
	    "jailrun: warning: the log is full: later messages are dropped\n";
	size_t left = __atomic_load_n(&log_budget, __ATOMIC_RELAXED);

	do {
		if (left == SIZE_MAX)
			return true;
		if (n > left) {
			if (!__atomic_exchange_n(&log_full_said, true,
						 __ATOMIC_RELAXED) &&
			    write(STDERR_FILENO, full, sizeof(full) - 1) < 0) {
			}
			return false;
		}
	} while (!__atomic_compare_exchange_n(&log_budget, &left, left - n,
					      false, __ATOMIC_RELAXED,
					      __ATOMIC_RELAXED));
	return true;
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
	if (take_budget((size_t)n) &&
	    write(STDERR_FILENO, line, (size_t)n) < 0) {
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
