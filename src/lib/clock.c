// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * clock.c - reading CLOCK_MONOTONIC, and the wall clock for stamps (see
 * clock.h).
 *
 * Theory of operation: one read of the clock, scaled. clock_gettime()
 * cannot fail for CLOCK_MONOTONIC with a valid pointer (Linux has had it
 * since 2.6), so its return value is not checked; nor is CLOCK_REALTIME's.
 */
#include <stdio.h>
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

uint64_t jr_clock_unix_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_REALTIME, &ts);
	return (uint64_t)ts.tv_sec * 1000 + (uint64_t)ts.tv_nsec / 1000000;
}

void jr_clock_format_utc(uint64_t unix_ms, char out[JR_CLOCK_UTC_SIZE])
{
	time_t secs = (time_t)(unix_ms / 1000);
	struct tm tm;
	size_t n;

	/* Years past 9999 do not fit, nor are they on any clock we run on. */
	if (!gmtime_r(&secs, &tm) || tm.tm_year > 9999 - 1900) {
		snprintf(out, JR_CLOCK_UTC_SIZE, "9999-12-31T23:59:59.999Z");
		return;
	}
	/* 19 characters for every year 0000-9999. */
	n = strftime(out, JR_CLOCK_UTC_SIZE, "%Y-%m-%dT%H:%M:%S", &tm);
	snprintf(out + n, JR_CLOCK_UTC_SIZE - n, ".%03uZ",
		 (unsigned)(unix_ms % 1000));
}
