/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * clock.h - the one monotonic clock jailrun measures with.
 *
 * Deadlines, durations in the audit log and the summary, and the
 * watchdog's restore times all read CLOCK_MONOTONIC: it never jumps when
 * the wall clock is set (clock_gettime(2)), so a timeout neither fires
 * early nor never. It stops while the system is suspended, which no
 * jailrun figure needs to count.
 *
 * The wall clock (CLOCK_REALTIME) is read only to stamp records for
 * people and rigs (the audit log's "time", the summary's "started_at"),
 * never to measure: jr_clock_unix_ms() and jr_clock_format_utc().
 */
#ifndef JR_CLOCK_H
#define JR_CLOCK_H

#include <stdint.h>

/* jr_clock_ms - monotonic time in milliseconds, from an arbitrary origin. */
uint64_t jr_clock_ms(void);

/* jr_clock_us - the same clock in microseconds. */
uint64_t jr_clock_us(void);

/* jr_clock_unix_ms - the wall clock in milliseconds since the epoch. */
uint64_t jr_clock_unix_ms(void);

/* RFC 3339 UTC with milliseconds: "2026-11-29T12:00:00.123Z" and NUL. */
#define JR_CLOCK_UTC_SIZE 25

/*
 * jr_clock_format_utc - @unix_ms as RFC 3339 (section 5.6) UTC with
 * milliseconds, e.g. "2026-11-29T12:00:00.123Z". Pure.
 * @out: at least JR_CLOCK_UTC_SIZE bytes
 */
void jr_clock_format_utc(uint64_t unix_ms, char out[JR_CLOCK_UTC_SIZE]);

#endif
