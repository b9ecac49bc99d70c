// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * startup.c - start-up phase accounting (see startup.h).
 *
 * Theory of operation: the runner's steps are laps on one clock, so they
 * add up to exactly the time they cover; init's steps happen while the
 * runner waits, and are charged inside that wait, or beside the runner's
 * seccomp, nft and relay laps, and then that overlap is counted once in
 * parallel_us so the critical path still adds up. Nothing here reads a
 * clock except jr_startup_lap()/wait_done()/complete(), so the arithmetic
 * and the rendering can be unit-tested with a struct filled by hand.
 */

#include <stddef.h>
#include <stdio.h>

#include "startup.h"

const char *jr_startup_phase_name(enum jr_startup_phase p)
{
	static const char *const names[JR_PHASE_COUNT] = {
		[JR_PHASE_PREPARE] = "prepare",
		[JR_PHASE_SECCOMP] = "seccomp",
		[JR_PHASE_CLONE] = "clone",
		[JR_PHASE_MAPS] = "maps",
		[JR_PHASE_MOUNTS] = "mounts",
		[JR_PHASE_INIT_SETUP] = "init_setup",
		[JR_PHASE_RELAYNET] = "relaynet",
		[JR_PHASE_NFT] = "nft",
		[JR_PHASE_RELAY] = "relay",
		[JR_PHASE_SELFCHECK] = "selfcheck",
		[JR_PHASE_EXEC] = "exec",
	};

	return (unsigned)p < JR_PHASE_COUNT ? names[p] : "unknown";
}

void jr_startup_begin(struct jr_startup *s, uint64_t t0)
{
	*s = (struct jr_startup){ .begin = t0, .last = t0 };
}

uint64_t jr_startup_lap(struct jr_startup *s, enum jr_startup_phase p)
{
	uint64_t now = jr_clock_us();

	if (s->begin) {
		s->us[p] += now - s->last;
		s->last = now;
	}
	return now;
}

void jr_startup_wait_done(struct jr_startup *s, enum jr_startup_phase a,
			  uint64_t a_us, enum jr_startup_phase b, uint64_t b_us)
{
	if (!s->begin)
		return;
	s->us[a] += a_us;
	s->us[b] += b_us;
	s->last = jr_clock_us();
}

uint64_t jr_startup_waited(struct jr_startup *s)
{
	uint64_t now = jr_clock_us();

	if (s->begin)
		s->last = now;
	return now;
}

void jr_startup_overlap(struct jr_startup *s, uint64_t s0, uint64_t s1,
			uint64_t r0, uint64_t r1)
{
	uint64_t lo = r0 > s0 ? r0 : s0, hi = r1 < s1 ? r1 : s1;

	if (s->begin && hi > lo)
		s->parallel_us += hi - lo;
}

void jr_startup_beside(struct jr_startup *s, uint64_t s0, uint64_t s1,
		       const struct jr_startup_span *laps, size_t n)
{
	for (size_t i = 0; i < n; i++)
		jr_startup_overlap(s, s0, s1, laps[i].t0, laps[i].t1);
}

void jr_startup_add(struct jr_startup *s, enum jr_startup_phase p, uint64_t us)
{
	if (s->begin)
		s->us[p] += us;
}

void jr_startup_complete(struct jr_startup *s)
{
	if (!s->begin)
		return;
	s->total_us = jr_clock_us() - s->begin;
	s->complete = true;
}

uint64_t jr_startup_sum(const struct jr_startup *s)
{
	uint64_t sum = 0;

	for (int p = 0; p < JR_PHASE_COUNT; p++)
		sum += s->us[p];
	return sum > s->parallel_us ? sum - s->parallel_us : 0;
}

void jr_startup_format(const struct jr_startup *s, char *buf, size_t size)
{
	size_t off = 0;
	uint64_t sum = jr_startup_sum(s);

	if (!size)
		return;
	buf[0] = '\0';
	for (int p = 0; p < JR_PHASE_COUNT && off < size; p++) {
		int n = snprintf(buf + off, size - off, "%s %.2f, ",
				 jr_startup_phase_name(p),
				 (double)s->us[p] / 1000.0);
		if (n < 0)
			return;
		off += (size_t)n;
	}
	if (off < size)
		snprintf(buf + off, size - off,
			 "parallel -%.2f, waiting %.2f, total %.2f ms",
			 (double)s->parallel_us / 1000.0,
			 (double)(s->total_us > sum ? s->total_us - sum : 0) /
			     1000.0,
			 (double)s->total_us / 1000.0);
}
