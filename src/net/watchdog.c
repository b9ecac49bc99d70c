// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * watchdog.c - the lockdown watchdog (see watchdog.h).
 *
 * Theory of operation
 *
 * The table jailrun installs carries NFT_TABLE_F_OWNER, so no other socket
 * can change or delete it; what someone with CAP_NET_ADMIN over the worker
 * netns (host root, or the caller's own uid from outside the sandbox) can
 * still do is add tables of their own, or move a process of the sandbox
 * into another network namespace. The watchdog looks for both:
 *
 *  - It listens to nf_tables notifications of the worker netns on a second
 *    NETLINK_NETFILTER socket made there by init. Any change triggers a full
 *    jr_nft_verify() (the whole ruleset of the namespace must equal the
 *    intended one); so does a lost notification (ENOBUFS: the receive
 *    queue overran) and, in case a notification never came, a timer
 *    (--watchdog-interval).
 *  - On the same timer it walks /proc: every process in the sandbox's PID
 *    namespace must be in the worker netns. One that is elsewhere is in a
 *    namespace jailrun never armed: without --allow-nested that is tamper.
 *    (With --allow-nested, a netns the command made itself is allowed: it
 *    has only what the command could put there, no link to anything of
 *    jailrun's, and nothing the command can do in it loosens the worker's
 *    rules.)
 *
 * A failed verification is a tamper event: logged with what was wrong,
 * counted, and answered by jr_nft_restore() (one atomic batch that removes
 * every table and re-adds ours) followed by another verification; the
 * time from detection to verified restore is measured. With --on-tamper
 * kill, or when restoring fails, or for a process in a foreign netns, the
 * watchdog SIGKILLs the sandbox's init (which takes the PID namespace
 * down) and says why; the runner then exits 125.
 *
 * The refusal counters (ruleset.h, JR_NFT_COUNTER_TCP) are objects of the
 * table, so the verification covers them (each there once, with its type)
 * and a restore re-creates them with the figures they had. Their figures
 * are not verified: they move with every refusal, and a reset can come
 * only from outside the sandbox, from those who could kill the runner
 * anyway (docs/design/network.md), so it is not tamper.
 *
 * With --transparent on, the relay netns holds a second table of
 * jailrun's, the capture rules (ruleset.c, JR_RULESET_RELAY), owned by a
 * socket of that netns. It is watched the same way, on a notification
 * socket of its own and on the same timer, and restored the same way: a
 * table flushed or a table added there could widen nothing on its own
 * (the relay netns has no route out), but a capture rule lost would turn
 * allowed transparent connections into silent drops, and one added could
 * aim them elsewhere; either is tamper, and its log line says which netns.
 *
 * Only this thread uses the owner sockets once it runs, so the nft
 * module's sequence numbering needs no locking.
 */
#include <dirent.h>
#include <errno.h>
#include <poll.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/eventfd.h>
#include <sys/stat.h>
#include <sys/timerfd.h>
#include <time.h>
#include <unistd.h>
#include <libmnl/libmnl.h>

#include "cleanup.h"
#include "clock.h"
#include "log.h"
#include "nft.h"
#include "notify.h"
#include "watchdog.h"

struct ns_id {
	dev_t dev;
	ino_t ino;
};

struct jr_watchdog {
	struct jr_watchdog_config cfg;
	struct ns_id pidns, netns;
	pthread_t thread;
	int stopfd, timerfd;
	struct jr_watchdog_report rep; /* written by the thread only */
};

static int ns_of(pid_t pid, const char *which, struct ns_id *out)
{
	char path[64];
	struct stat st;

	snprintf(path, sizeof(path), "/proc/%d/ns/%s", (int)pid, which);
	if (stat(path, &st) < 0)
		return -errno;
	out->dev = st.st_dev;
	out->ino = st.st_ino;
	return 0;
}

static bool ns_eq(const struct ns_id *a, const struct ns_id *b)
{
	return a->dev == b->dev && a->ino == b->ino;
}

static void kill_sandbox(struct jr_watchdog *w, const char *why)
{
	if (!w->rep.killed)
		snprintf(w->rep.reason, sizeof(w->rep.reason), "%.500s", why);
	w->rep.killed = true;
	jr_error("watchdog: %s: ending the sandbox", why);
	jr_audit_event(w->cfg.audit, "tamper", why);
	kill(w->cfg.init_pid, SIGKILL);
}

/* One table the watchdog keeps as it was installed. */
struct watched {
	struct mnl_socket *nl;	     /* its owner socket */
	const struct jr_ruleset *rs; /* what it must hold */
	const char *where;	     /* "" or " in the relay netns", for logs */
};

/* The ruleset is wrong: restore it (or end the sandbox). */
static void tampered(struct jr_watchdog *w, const struct watched *t,
		     const char *what, uint64_t t0)
{
	struct jr_err err = { 0 };
	char removed[256] = "", line[1024];
	uint64_t dt;

	w->rep.tamper_events++;
	if (!w->rep.reason[0])
		snprintf(w->rep.reason, sizeof(w->rep.reason), "%.400s", what);
	if (w->cfg.kill_on_tamper) {
		snprintf(
		    line, sizeof(line),
		    "the sandbox's rules%s were tampered with (%.400s) and --on-tamper kill is set",
		    t->where, what);
		kill_sandbox(w, line);
		return;
	}
	if (jr_nft_restore(t->nl, t->rs, removed, sizeof(removed), &err) < 0 ||
	    jr_nft_verify(t->nl, t->rs, &err) < 0) {
		snprintf(
		    line, sizeof(line),
		    "the sandbox's rules%s were tampered with (%.400s) and could not be restored: %.400s",
		    t->where, what, err.msg);
		kill_sandbox(w, line);
		return;
	}
	dt = jr_clock_us() - t0;
	w->rep.restores++;
	if (dt > w->rep.max_restore_us)
		w->rep.max_restore_us = dt;
	snprintf(
	    line, sizeof(line),
	    "rules%s tampered with (%.480s); restored and verified in %llu us%s%.255s",
	    t->where, what, (unsigned long long)dt,
	    removed[0] ? ", removed: " : "", removed);
	jr_warn("watchdog: %s", line);
	jr_audit_event(w->cfg.audit, "tamper", line);
}

static void verify(struct jr_watchdog *w, const struct watched *t, uint64_t t0)
{
	struct jr_err err = { 0 };

	if (t->nl && !w->rep.killed && jr_nft_verify(t->nl, t->rs, &err) < 0)
		tampered(w, t, err.msg, t0);
}

/* Notifications came on @mon (of @t's netns): verify @t if anything
 * changed. */
static void changed(struct jr_watchdog *w, struct mnl_socket *mon,
		    const struct watched *t)
{
	uint64_t t0 = jr_clock_us();
	unsigned int changes = 0;
	int r = jr_nft_monitor_drain(mon, &changes);

	/* A lost notification (overrun) is as good as a change. */
	if (changes || r == -ENOBUFS)
		verify(w, t, t0);
	else if (r < 0 && r != -EAGAIN)
		kill_sandbox(
		    w, "the watchdog lost its nf_tables notification socket");
}

/* Every process of the sandbox must be in the worker netns. */
static void check_namespaces(struct jr_watchdog *w)
{
	_cleanup_(closedirp) DIR *proc = opendir("/proc");
	struct dirent *de;
	char line[512];

	if (!proc)
		return;
	while ((de = readdir(proc))) {
		struct ns_id pidns = { 0 }, netns = { 0 };
		char *end;
		long pid = strtol(de->d_name, &end, 10);

		if (*end || pid <= 0)
			continue;
		/* Gone meanwhile, or not ours: skip. */
		if (ns_of((pid_t)pid, "pid", &pidns) < 0 ||
		    !ns_eq(&pidns, &w->pidns))
			continue;
		if (ns_of((pid_t)pid, "net", &netns) < 0 ||
		    ns_eq(&netns, &w->netns))
			continue;
		if (w->cfg.allow_nested ||
		    (w->cfg.factory_pid && pid == w->cfg.factory_pid))
			continue;
		w->rep.tamper_events++;
		snprintf(
		    line, sizeof(line),
		    "process %ld of the sandbox is in a network namespace jailrun did not arm",
		    pid);
		kill_sandbox(w, line);
		return;
	}
}

static void *watchdog_loop(void *arg)
{
	struct jr_watchdog *w = arg;
	const struct watched worker = { w->cfg.nl, w->cfg.rs, "" };
	const struct watched relay = { w->cfg.relay_nl, w->cfg.relay_rs,
				       " in the relay netns" };
	struct pollfd pfd[4] = {
		{ .fd = w->stopfd, .events = POLLIN },
		{ .fd = w->timerfd, .events = POLLIN },
		{ .fd = mnl_socket_get_fd(w->cfg.mon), .events = POLLIN },
		{ .fd = w->cfg.relay_mon ? mnl_socket_get_fd(w->cfg.relay_mon)
					 : -1,
		  .events = POLLIN },
	};

	while (!w->rep.killed) {
		uint64_t tick;

		if (poll(pfd, 4, -1) < 0) {
			if (errno == EINTR)
				continue;
			kill_sandbox(w, "the watchdog cannot wait for events");
			break;
		}
		if (pfd[0].revents)
			break;
		if (pfd[2].revents)
			changed(w, w->cfg.mon, &worker);
		if (pfd[3].revents && !w->rep.killed)
			changed(w, w->cfg.relay_mon, &relay);
		if (pfd[1].revents &&
		    read(w->timerfd, &tick, sizeof(tick)) > 0) {
			verify(w, &worker, jr_clock_us());
			verify(w, &relay, jr_clock_us());
			if (!w->rep.killed)
				check_namespaces(w);
			/* Only a tick that ended verified feeds WatchdogSec=. */
			if (!w->rep.killed)
				jr_notify_watchdog_tick(w->cfg.audit);
		}
	}
	return NULL;
}

int jr_watchdog_start(const struct jr_watchdog_config *cfg,
		      struct jr_watchdog **out, struct jr_err *err)
{
	struct jr_watchdog *w = calloc(1, sizeof(*w));
	struct itimerspec its = { 0 };
	sigset_t all, old;
	int r;

	if (!w) {
		mnl_socket_close(cfg->mon);
		if (cfg->relay_mon)
			mnl_socket_close(cfg->relay_mon);
		return jr_err_set(err, ENOMEM, "out of memory");
	}
	w->cfg = *cfg;
	w->stopfd = eventfd(0, EFD_CLOEXEC | EFD_NONBLOCK);
	w->timerfd =
	    timerfd_create(CLOCK_MONOTONIC, TFD_CLOEXEC | TFD_NONBLOCK);
	its.it_value.tv_sec = (time_t)(cfg->interval_ms / 1000);
	its.it_value.tv_nsec = (long)(cfg->interval_ms % 1000) * 1000000L;
	its.it_interval = its.it_value;
	if (w->stopfd < 0 || w->timerfd < 0 ||
	    timerfd_settime(w->timerfd, 0, &its, NULL) < 0) {
		r = jr_err_set(err, errno, "cannot set up the watchdog: %s",
			       strerror(errno));
		goto fail;
	}
	if ((r = ns_of(cfg->init_pid, "pid", &w->pidns)) < 0 ||
	    (r = ns_of(cfg->init_pid, "net", &w->netns)) < 0) {
		r = jr_err_set(err, -r,
			       "cannot read the sandbox's namespaces: %s",
			       strerror(-r));
		goto fail;
	}
	sigfillset(&all);
	pthread_sigmask(SIG_SETMASK, &all, &old);
	r = pthread_create(&w->thread, NULL, watchdog_loop, w);
	pthread_sigmask(SIG_SETMASK, &old, NULL);
	if (r) {
		r = jr_err_set(err, r, "cannot start the watchdog: %s",
			       strerror(r));
		goto fail;
	}
	*out = w;
	return 0;
fail:
	if (w->stopfd >= 0)
		close(w->stopfd);
	if (w->timerfd >= 0)
		close(w->timerfd);
	mnl_socket_close(cfg->mon);
	if (cfg->relay_mon)
		mnl_socket_close(cfg->relay_mon);
	free(w);
	return r;
}

void jr_watchdog_stop(struct jr_watchdog *w, struct jr_watchdog_report *rep)
{
	uint64_t one = 1;

	if (!w)
		return;
	if (write(w->stopfd, &one, sizeof(one)) < 0) {
		/* a fresh eventfd cannot refuse 1 */
	}
	pthread_join(w->thread, NULL);
	if (rep)
		*rep = w->rep;
	close(w->stopfd);
	close(w->timerfd);
	mnl_socket_close(w->cfg.mon);
	if (w->cfg.relay_mon)
		mnl_socket_close(w->cfg.relay_mon);
	free(w);
}
