/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * log.h - jailrun's own messages on stderr, prefixed "jailrun: ".
 * -q shows only errors, -v adds progress, -vv adds debug detail.
 */
#ifndef JR_LOG_H
#define JR_LOG_H

enum jr_log_level {
	JR_LOG_ERROR = 0,
	JR_LOG_WARN = 1,
	JR_LOG_INFO = 2,
	JR_LOG_VERBOSE = 3,
	JR_LOG_DEBUG = 4,
};

void jr_log_set_level(int level);
void jr_log(enum jr_log_level level, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));

#define jr_error(...) jr_log(JR_LOG_ERROR, __VA_ARGS__)
#define jr_warn(...) jr_log(JR_LOG_WARN, __VA_ARGS__)
#define jr_info(...) jr_log(JR_LOG_INFO, __VA_ARGS__)
#define jr_verbose(...) jr_log(JR_LOG_VERBOSE, __VA_ARGS__)
#define jr_debug(...) jr_log(JR_LOG_DEBUG, __VA_ARGS__)

#endif
