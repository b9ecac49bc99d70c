// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * notify.c - sd_notify(3) spoken directly (see notify.h).
 *
 * Theory of operation
 *
 * The protocol is one datagram per message, newline-separated VAR=value
 * lines, sent to the AF_UNIX SOCK_DGRAM address in $NOTIFY_SOCKET (a path,
 * or an abstract name written with a leading '@'); the service manager
 * learns the sender from SCM_CREDENTIALS, which the kernel attaches for it
 * (NotifyAccess=main: the sender must be the unit's main process, and any
 * thread of the runner is). We do not link libsystemd for this: the client
 * side is about forty lines, jailrun's dependencies stay the ones a
 * minimal host has, and nothing beyond the documented protocol is used.
 *
 * Nothing here keeps a descriptor: each message opens a SOCK_CLOEXEC
 * socket, sends and closes it. So no descriptor of the service manager's
 * exists while the runner clones the sandbox's init (the first message is
 * sent after the lockdown), and none can ever reach the sandbox; the
 * variables themselves are removed from the environment before the clone.
 *
 * When each message goes:
 *  - READY=1 when init reports the command started (EXEC_OK). The
 *    ruleset was verified before GO, and init runs the relay self-check
 *    after GO and before it forks the command, so EXEC_OK is the first
 *    moment both hold. Sending it at GO would be too early: the
 *    self-check has not run yet, and a unit ordered after the worker
 *    could start while the relay does not yet answer.
 *  - WATCHDOG=1 after each timer tick of the rule watchdog that ended
 *    with the lockdown verified (watchdog.c). A watchdog that stalls or
 *    ended the sandbox sends nothing more, and WatchdogSec= acts.
 *  - STATUS= with the allowed/denied counts on a watchdog tick after
 *    READY, when they changed (at most once a second) or every minute.
 *  - STOPPING=1 when the sandbox starts going down (SIGTERM, or the
 *    command ended); no WATCHDOG=1 follows it.
 *
 * Failures to send are ignored (sd_notify's callers do the same): the
 * service manager notices a missing READY or WATCHDOG by itself.
 */
#include <errno.h>
#include <pthread.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <unistd.h>

#include "audit.h"
#include "clock.h"
#include "log.h"
#include "notify.h"

#define STATUS_MIN_GAP_US 1000000ULL  /* at most one STATUS= a second */
#define STATUS_REFRESH_US 60000000ULL /* and one a minute anyway */

static struct {
	struct sockaddr_un addr;
	socklen_t addr_len; /* 0: no service manager listens */
	bool ready_sent, stopping_sent;
	uint64_t verified_us;
	uint64_t watchdog_ms; /* half of WATCHDOG_USEC; 0: no watchdog */
	/* Watchdog thread only. */
	uint64_t status_us, status_allowed, status_denied;
	bool status_sent;
} nt;

static void notify_send(const char *msg)
{
	int fd;

	if (!nt.addr_len)
		return;
	fd = socket(AF_UNIX, SOCK_DGRAM | SOCK_CLOEXEC, 0);
	if (fd < 0)
		return;
	if (sendto(fd, msg, strlen(msg), MSG_NOSIGNAL,
		   (const struct sockaddr *)&nt.addr, nt.addr_len) < 0)
		jr_debug("sd_notify %s: %s", msg, strerror(errno));
	close(fd);
}

void jr_notify_init(uint64_t *interval_ms)
{
	const char *sock = getenv("NOTIFY_SOCKET");
	const char *usec = getenv("WATCHDOG_USEC");
	const char *pid = getenv("WATCHDOG_PID");
	size_t len = sock ? strlen(sock) : 0;
	unsigned long long wd = 0;

	/* Only a path or an abstract name ('@'); sd_notify(3) also knows
	 * vsock addresses, which a local runner has no use for. */
	if (len > 1 && len < sizeof(nt.addr.sun_path) &&
	    (sock[0] == '/' || sock[0] == '@')) {
		nt.addr.sun_family = AF_UNIX;
		memcpy(nt.addr.sun_path, sock, len);
		if (sock[0] == '@')
			nt.addr.sun_path[0] = '\0';
		nt.addr_len =
		    (socklen_t)(offsetof(struct sockaddr_un, sun_path) + len +
				(sock[0] == '/'));
	} else if (sock) {
		jr_warn(
		    "NOTIFY_SOCKET=%s is not a unix socket address: not notifying the service manager",
		    sock);
	}
	/* sd_watchdog_enabled(3): WATCHDOG_PID, when set, names the process
	 * the watchdog is meant for. */
	if (usec && (!pid || strtol(pid, NULL, 10) == (long)getpid()))
		wd = strtoull(usec, NULL, 10);
	if (wd && nt.addr_len) {
		uint64_t half_ms = wd / 2000;

		if (half_ms < 10)
			half_ms = 10; /* the option's floor; WatchdogSec= that
					 short cannot be served anyway */
		nt.watchdog_ms = half_ms;
		if (*interval_ms > half_ms) {
			jr_verbose(
			    "WATCHDOG_USEC=%llu: rule watchdog interval shortened from %.3f to %.3f s",
			    wd, (double)*interval_ms / 1000.0,
			    (double)half_ms / 1000.0);
			*interval_ms = half_ms;
		}
	}
	unsetenv("NOTIFY_SOCKET");
	unsetenv("WATCHDOG_USEC");
	unsetenv("WATCHDOG_PID");
}

uint64_t jr_notify_watchdog_ms(void)
{
	return nt.watchdog_ms;
}

void jr_notify_verified(void)
{
	nt.verified_us = jr_clock_us();
}

void jr_notify_ready(void)
{
	if (__atomic_load_n(&nt.ready_sent, __ATOMIC_ACQUIRE))
		return;
	__atomic_store_n(&nt.ready_sent, true, __ATOMIC_RELEASE);
	if (!nt.addr_len)
		return;
	jr_verbose(
	    "sd_notify: READY=1 (ruleset verified at monotonic %llu us, relay self-checked and command started at %llu us)",
	    (unsigned long long)nt.verified_us,
	    (unsigned long long)jr_clock_us());
	notify_send("READY=1\nSTATUS=lockdown verified, command running");
}

void jr_notify_watchdog_tick(struct jr_audit *audit)
{
	uint64_t now, allowed = 0, denied = 0;
	char msg[160];

	if (!nt.addr_len ||
	    __atomic_load_n(&nt.stopping_sent, __ATOMIC_SEQ_CST))
		return;
	/* Counts only after READY: READY carries a STATUS= of its own,
	 * which would otherwise replace the counts of a tick that came
	 * first (the watchdog is armed before the command starts) until
	 * they next change. */
	if (!audit || !__atomic_load_n(&nt.ready_sent, __ATOMIC_ACQUIRE)) {
		notify_send("WATCHDOG=1");
		return;
	}
	now = jr_clock_us();
	pthread_mutex_lock(&audit->lock);
	allowed = audit->allowed;
	denied = audit->denied;
	pthread_mutex_unlock(&audit->lock);
	if (nt.status_sent && now - nt.status_us < STATUS_REFRESH_US &&
	    ((allowed == nt.status_allowed && denied == nt.status_denied) ||
	     now - nt.status_us < STATUS_MIN_GAP_US)) {
		notify_send("WATCHDOG=1");
		return;
	}
	snprintf(
	    msg, sizeof(msg),
	    "WATCHDOG=1\nSTATUS=lockdown verified; %llu connection%s allowed, %llu denied",
	    (unsigned long long)allowed, allowed == 1 ? "" : "s",
	    (unsigned long long)denied);
	notify_send(msg);
	nt.status_sent = true;
	nt.status_us = now;
	nt.status_allowed = allowed;
	nt.status_denied = denied;
}

void jr_notify_stopping(void)
{
	/* Read by the watchdog thread: after STOPPING=1 it pings no more
	 * (systemd stops the unit's watchdog when it begins stopping). */
	if (__atomic_exchange_n(&nt.stopping_sent, true, __ATOMIC_SEQ_CST))
		return;
	notify_send("STOPPING=1");
}
