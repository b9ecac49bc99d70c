/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * clock.h - the one monotonic clock jailrun measures with.
 *
 * Deadlines, durations in the audit log and the summary, and the
 * watchdog's restore times all read CLOCK_MONOTONIC: it never jumps when
 * the wall clock is set (clock_gettime(2)), so a timeout neither fires
 * early nor never. It stops while the system is suspended, which no
 * jailrun figure needs to count.
 */
#ifndef JR_CLOCK_H
#define JR_CLOCK_H

#include <stdint.h>

/* jr_clock_ms - monotonic time in milliseconds, from an arbitrary origin. */
uint64_t jr_clock_ms(void);

/* jr_clock_us - the same clock in microseconds. */
uint64_t jr_clock_us(void);

#endif
