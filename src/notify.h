/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * notify.h - telling a service manager how the sandbox is doing: the
 * sd_notify(3) datagram protocol on $NOTIFY_SOCKET (READY=1, STATUS=,
 * WATCHDOG=1, STOPPING=1), spoken directly. Without $NOTIFY_SOCKET every
 * call is a no-op.
 */
#ifndef JR_NOTIFY_H
#define JR_NOTIFY_H

#include <stdint.h>

struct jr_audit;

/*
 * jr_notify_init - take $NOTIFY_SOCKET, $WATCHDOG_USEC and $WATCHDOG_PID
 * out of the environment (the command must never talk to the service
 * manager as us) and remember them. With a watchdog for this process,
 * shorten *@interval_ms (--watchdog-interval) to half of WATCHDOG_USEC so
 * every period sees a ping. Call once, in main(), before any thread or
 * sandbox exists.
 */
void jr_notify_init(uint64_t *interval_ms);

/* After jr_notify_init(): how often WATCHDOG=1 is due (half of
 * WATCHDOG_USEC, at least 10 ms), or 0 without a watchdog for us. For a
 * process without a rule watchdog of its own (a pool's manager). */
uint64_t jr_notify_watchdog_ms(void);

/* The ruleset was installed, read back and verified (for READY's log). */
void jr_notify_verified(void);

/*
 * jr_notify_ready - the command started: the ruleset was verified before
 * GO and init's relay self-check passed before it executed the command.
 * Sends READY=1 once, and logs (-v) both monotonic times.
 */
void jr_notify_ready(void);

/*
 * jr_notify_watchdog_tick - the rule watchdog verified the lockdown on its
 * timer: WATCHDOG=1, and now and then STATUS= with @audit's counts (may be
 * NULL). Called from the watchdog thread only.
 */
void jr_notify_watchdog_tick(struct jr_audit *audit);

/* The sandbox is going down: STOPPING=1, once. */
void jr_notify_stopping(void);

#endif
