/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * fdlimit.h - how many file descriptors the runner needs for --max-conns,
 * and the sentence that says so when the limit is lower.
 */
#ifndef JR_FDLIMIT_H
#define JR_FDLIMIT_H

#include <stddef.h>

/* What one relay connection holds at the least: its two sockets. An idle
 * tunnel holds no pipe (relay_tunnel.c takes one only while bytes move,
 * and copies when none can be had). */
#define JR_FDS_PER_CONN 2

/* The runner's own descriptors besides its connections (listeners,
 * netlink, the watchdog, the guard, setup), with room to spare: setting
 * up a sandbox needs about 20 before the relay accepts anything. */
#define JR_FDS_RUNNER 64

/* jr_fds_needed - descriptors for @max_conns connections at once:
 * max_conns x JR_FDS_PER_CONN + JR_FDS_RUNNER. */
unsigned long long jr_fds_needed(unsigned int max_conns);

/* Pass as @hard for an unlimited hard limit (RLIM_INFINITY). */
#define JR_FDS_UNLIMITED (~0ULL)

/*
 * jr_fds_explain - write into @buf (@size bytes) what --max-conns
 * @max_conns needs, the limit (@soft, @hard) and the fix, e.g.
 *   "--max-conns 2048 needs 4160 descriptors (2 per connection, an idle
 *   tunnel too, + 64 for the runner); the limit is 1024 (hard 1024):
 *   raise it (ulimit -n 4160, or LimitNOFILE=4160 in a systemd unit) or
 *   lower --max-conns to 480"
 * The lower --max-conns that fits @soft is named only when there is one.
 * Return: snprintf's (the text is cut at @size - 1 bytes).
 */
int jr_fds_explain(char *buf, size_t size, unsigned int max_conns,
		   unsigned long long soft, unsigned long long hard);

/* jr_fds_explain_current - jr_fds_explain() with the runner's limit as it
 * is now (getrlimit(2)); an empty text if it cannot be read. */
int jr_fds_explain_current(char *buf, size_t size, unsigned int max_conns);

#endif
