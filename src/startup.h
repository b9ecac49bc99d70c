/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * startup.h - where jailrun's start-up time goes, phase by phase.
 *
 * The runner times its own steps with CLOCK_MONOTONIC as consecutive laps
 * (each interval between two laps belongs to exactly one phase), and init
 * reports the phases it does (in SETUP_OK and EXEC_OK, initproto.h). Init runs
 * in no time namespace of its own, so both read the same clock.
 *
 * Every phase is its own full duration, whichever process ran it. Three
 * stretches run in parallel: while init does mounts, init_setup and
 * relaynet, the runner builds the seccomp filter and installs the worker
 * table (seccomp, nft); and while init finishes its setup after SETUP_OK
 * (init.c finish_setup(), counted in init_setup), the runner does its
 * relay phase. parallel_us is how much of the runner's seccomp, nft and
 * relay intervals lay inside init's setup interval (SETUP_OK's span) or
 * its finish (EXEC_OK's span), measured from both processes' timestamps;
 * each span is checked against every lap, as init's finish may begin
 * while the runner's nft lap still runs (init sent SETUP_OK first); every other init phase lies
 * inside the runner interval that waited for it. So the critical path is
 * sum(phases) - parallel_us, never more than the total; what is left over
 * ("waiting") is message latency and scheduling: on a loaded machine, the
 * time one process waited for the CPU before it saw the other's message.
 * --json gives "parallel" beside the phases, -v a "parallel -X" term.
 */
#ifndef JR_STARTUP_H
#define JR_STARTUP_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "clock.h"
#include <time.h>

/* In the order they happen; the names are the --json keys (jailrun(1)). */
enum jr_startup_phase {
	JR_PHASE_PREPARE,    /* runner: options, ids, policy, audit, pty */
	JR_PHASE_SECCOMP,    /* runner, beside init's setup: build the
				filter with libseccomp */
	JR_PHASE_CLONE,	     /* runner: clone(2) into the new namespaces */
	JR_PHASE_MAPS,	     /* runner: write uid_map/gid_map */
	JR_PHASE_MOUNTS,     /* init: the filesystem layout (fslayout.c) */
	JR_PHASE_INIT_SETUP, /* init: hostname, lo, nft sockets */
	JR_PHASE_RELAYNET,   /* init: relay netns, veth, route, resolv.conf */
	JR_PHASE_NFT,	     /* runner, beside init's setup: install the
				worker ruleset, read it back */
	JR_PHASE_RELAY,	     /* runner: start relay and watchdog threads */
	JR_PHASE_SELFCHECK,  /* init: the relay answers through the rules */
	JR_PHASE_EXEC,	     /* init: fork, drop privileges, seccomp, execve */
	JR_PHASE_COUNT,
};

struct jr_startup {
	uint64_t us[JR_PHASE_COUNT]; /* microseconds per phase */
	uint64_t total_us;	     /* main() entry to "command started" */
	bool complete;		     /* the command started: total is set */
	uint64_t teardown_us; /* command's end (init's EXIT) to the summary */
	/* Of the phases, the runner's inside init's setup span (above). */
	uint64_t parallel_us;
	/* Runner bookkeeping, CLOCK_MONOTONIC in microseconds. */
	uint64_t begin, last, end_of_run;
};

/* The --json key of @p ("clone", "init_setup", ...). */
const char *jr_startup_phase_name(enum jr_startup_phase p);

/* Start timing at @t0 (the runner's main() entry). */
void jr_startup_begin(struct jr_startup *s, uint64_t t0);

/*
 * jr_startup_lap - the time since the previous lap belongs to @p.
 * Return: the lap's end (now), for intervals init's phases lie in.
 */
uint64_t jr_startup_lap(struct jr_startup *s, enum jr_startup_phase p);

/*
 * jr_startup_wait_done - the runner waited since its last lap for init,
 * which spent @a_us in phase @a and @b_us in phase @b meanwhile; the rest
 * of the wait is not attributed. Not clamped: a report longer than the
 * wait would be a bug (two clocks, or a phase timed twice) that the
 * integration tests must see as phases summing to more than the total.
 */
void jr_startup_wait_done(struct jr_startup *s, enum jr_startup_phase a,
			  uint64_t a_us, enum jr_startup_phase b,
			  uint64_t b_us);

/*
 * jr_startup_waited - the time since the last lap was a wait for init
 * that no phase of init's covers (a message on its way): not attributed.
 * Return: now, the start of what follows.
 */
uint64_t jr_startup_waited(struct jr_startup *s);

/*
 * jr_startup_overlap - init's setup ran from @s0 to @s1 (its clock, which
 * is ours); the runner ran a phase from @r0 to @r1 meanwhile. Adds to
 * parallel_us the part of [@r0, @r1] inside [@s0, @s1].
 */
void jr_startup_overlap(struct jr_startup *s, uint64_t s0, uint64_t s1,
			uint64_t r0, uint64_t r1);

/* A stretch of the runner's own laps, CLOCK_MONOTONIC µs; [0, 0]: a lap
 * not taken (yet), which overlaps nothing. */
struct jr_startup_span {
	uint64_t t0, t1;
};

/*
 * jr_startup_beside - init worked over [@s0, @s1] (its setup, or its
 * finish after SETUP_OK): add to parallel_us what of it lay inside each
 * of the runner's @n @laps. Every lap is checked against every span of
 * init's, since either side may run ahead: init's finish can begin while
 * the runner's nft lap still runs (init sent SETUP_OK first).
 */
void jr_startup_beside(struct jr_startup *s, uint64_t s0, uint64_t s1,
		       const struct jr_startup_span *laps, size_t n);

/* init also spent @us in phase @p during the same wait (no lap). */
void jr_startup_add(struct jr_startup *s, enum jr_startup_phase p, uint64_t us);

/* The command started now: fix the total. */
void jr_startup_complete(struct jr_startup *s);

/* The critical path: the sum of the phases less parallel_us (at most
 * total_us). */
uint64_t jr_startup_sum(const struct jr_startup *s);

/*
 * jr_startup_format - one line for -v: each phase in ms, what of them ran
 * in parallel, the unattributed rest and the total. Writes at most @size bytes
 * into @buf.
 */
void jr_startup_format(const struct jr_startup *s, char *buf, size_t size);

#endif
