/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * log.h - jailrun's own messages on stderr, prefixed "jailrun: ".
 * -q shows only errors, -v adds progress, -vv adds debug detail.
 */
#ifndef JR_LOG_H
#define JR_LOG_H

#include <stddef.h>

enum jr_log_level {
	JR_LOG_ERROR = 0,
	JR_LOG_WARN = 1,
	JR_LOG_INFO = 2,
	JR_LOG_VERBOSE = 3,
	JR_LOG_DEBUG = 4,
};

void jr_log_set_level(int level);

/*
 * jr_log_set_budget - from now on write at most @bytes of messages
 * (SIZE_MAX: no limit, the default), for a stderr that is a file no one
 * rotates (a live sandbox's NAME.log on a tmpfs): a message that does
 * not fit whole is dropped, and the first one dropped is replaced by one
 * line that says the log is full (written beyond the budget).
 */
void jr_log_set_budget(size_t bytes);
void jr_log(enum jr_log_level level, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));

/*
 * jr_log_escape - @text fit for a log line or an error message when
 * someone else chose it (a kernel object's name, a path the command
 * gave): bytes outside printable ASCII, and the backslash, become \xHH,
 * so no newline or terminal escape sequence reaches the user's terminal.
 * @size is at least 8; JR_LOG_ESCAPED(N) holds any N bytes whole, and a
 * text that does not fit ends in "...". Return: @buf.
 */
const char *jr_log_escape(const char *text, char *buf, size_t size);
#define JR_LOG_ESCAPED(n) (4 * (n) + 1)

#define jr_error(...) jr_log(JR_LOG_ERROR, __VA_ARGS__)
#define jr_warn(...) jr_log(JR_LOG_WARN, __VA_ARGS__)
#define jr_info(...) jr_log(JR_LOG_INFO, __VA_ARGS__)
#define jr_verbose(...) jr_log(JR_LOG_VERBOSE, __VA_ARGS__)
#define jr_debug(...) jr_log(JR_LOG_DEBUG, __VA_ARGS__)

#endif
