// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * clock.c - reading CLOCK_MONOTONIC (see clock.h).
 *
 * Theory of operation: one read of the clock, scaled. clock_gettime()
 * cannot fail for CLOCK_MONOTONIC with a valid pointer (Linux has had it
 * since 2.6), so its return value is not checked.
 */
#include <time.h>

#include "clock.h"

/* The clock in @div-ths of a second; @div divides 1e9. */
static uint64_t clock_read(uint64_t div)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * div +
	       (uint64_t)ts.tv_nsec / (1000000000ULL / div);
}

uint64_t jr_clock_ms(void)
{
	return clock_read(1000);
}

uint64_t jr_clock_us(void)
{
	return clock_read(1000000);
}
