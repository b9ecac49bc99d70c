// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * relay_ask.c - per-request approval (--ask), on the relay thread.
 *
 * Theory of operation
 *
 * With --ask, a proxy request, a captured connection or a DNS lookup
 * that the allowlist alone refuses (JR_DENY_NOT_ALLOWED, JR_DENY_PORT:
 * jr_ask_may_hold()) is not refused at once. It gets an entry in the
 * held table (asktable.h, owned here as r->ask) and waits:
 *
 *   a connection: ST_HELD (relay_hold_conn()), no event watched but its
 *     client's hang-up, which drops it (audited "ask-abandoned");
 *   a DNS query: its pending slot (relay_dns.c) keeps ask_id and is
 *     skipped by the forwarder's own timeout.
 *
 * The operator answers on the control socket (relay_control.c: pending,
 * approve, deny), or the sweep finds the entry past --ask-timeout.
 * relay_ask_decide() writes the decision's one audit line
 * ("event":"ask"), counts it for the summary, and hands every item held
 * as that request to relay_held_release() (relay_loop.c), which calls
 * each connection's ops->asked() and each module's asked(). Approved,
 * an item goes on exactly where the policy check left it (--allow-http,
 * inspection, the resolver and the SSRF guard still to come, so an
 * approval never opens a special or local address); denied or timed out,
 * it gets the refusal the policy would have given (403 with the policy's
 * X-Jailrun-Deny, a reset, NXDOMAIN), audited "ask-denied" or
 * "ask-timeout". A managed deny, a bad name and a literal special or
 * local address (relay_guard_literal()) are never held: the policy calls
 * a literal 127.0.0.1 without an entry "not-allowed", but no approval
 * could get it past the guard. A name is held whatever it resolves to;
 * the guard judges its addresses after the approval. When the table is full, the request is refused at
 * once and audited "ask-full".
 *
 * Everything runs on the relay thread, between two events, so a decision
 * never races the request it decides.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

#include "clock.h"
#include "log.h"
#include "relay_ask.h"
#include "relay_upstream.h"

/* "x.test:443 via proxy", "x.test via dns" */
static void describe(const struct jr_ask_entry *e, char *buf, size_t len)
{
	if (e->via == JR_ASK_VIA_DNS)
		snprintf(buf, len, "%s via dns", e->host);
	else
		snprintf(buf, len, "%s:%u via %s", e->host, (unsigned)e->port,
			 jr_ask_via_name(e->via));
}

/* Hold @host:@port: a new request is audited, a joined one is not. */
static enum relay_ask_hold hold(struct jr_relay *r, const char *host,
				uint16_t port, enum jr_deny_reason why,
				enum jr_ask_via via, uint64_t *id)
{
	char what[320];
	bool joined;
	int e;

	if (!r->ask || !jr_ask_may_hold(why))
		return RELAY_ASK_NOT_HELD;
	/* A literal special or local address: the guard would refuse it
	 * after any approval, so it is refused now, never held. */
	if (port && relay_guard_literal(r, host, port) != JR_ALLOWED)
		return RELAY_ASK_NOT_HELD;
	e = jr_ask_hold(r->ask, host, port, via, jr_clock_ms(), id, &joined);
	if (e == -ENOSPC)
		return RELAY_ASK_FULL;
	if (e < 0)
		return RELAY_ASK_NOT_HELD;
	if (!joined) {
		describe(jr_ask_find(r->ask, *id), what, sizeof(what));
		relay_audit_event(r, "ask", "held %llu: %s (%s)",
				  (unsigned long long)*id, what,
				  jr_deny_reason_name(why));
		relay_ask_notify(r);
	}
	return RELAY_ASK_HELD;
}

enum relay_ask_hold relay_ask_conn(struct jr_relay *r, struct conn *c,
				   enum jr_deny_reason why, enum jr_ask_via via)
{
	uint64_t id;
	enum relay_ask_hold h = hold(r, c->host, c->port, why, via, &id);

	if (h == RELAY_ASK_HELD)
		relay_hold_conn(r, c, id, why);
	return h;
}

enum relay_ask_hold relay_ask_dns(struct jr_relay *r, const char *name,
				  enum jr_deny_reason why, uint64_t *id)
{
	return hold(r, name, 0, why, JR_ASK_VIA_DNS, id);
}

const struct jr_asktable *relay_ask_table(const struct jr_relay *r)
{
	return r->ask;
}

int relay_ask_decide(struct jr_relay *r, uint64_t id, enum relay_ask_verdict v,
		     const char *note)
{
	const struct jr_ask_entry *e = r->ask ? jr_ask_find(r->ask, id) : NULL;
	static const char *const verb[] = {
		[RELAY_ASK_APPROVED] = "approved",
		[RELAY_ASK_DENIED] = "denied by the operator",
		[RELAY_ASK_TIMED_OUT] = "ask-timeout",
	};
	char what[320];
	int waiters;

	if (!e)
		return -ENOENT;
	describe(e, what, sizeof(what));
	waiters = (int)e->waiters;
	relay_audit_event(r, "ask", "%s %llu: %s after %llu ms%s%s", verb[v],
			  (unsigned long long)id, what,
			  (unsigned long long)(jr_clock_ms() - e->t_start),
			  note ? "; " : "", note ? note : "");
	if (v == RELAY_ASK_APPROVED)
		r->ask_approved++;
	else if (v == RELAY_ASK_DENIED)
		r->ask_denied++;
	else
		r->ask_timed_out++;
	/* Out of the table first: what is released must not find it. */
	jr_ask_remove(r->ask, id);
	relay_held_release(r, id, v);
	relay_ask_notify(r);
	return waiters;
}

unsigned relay_ask_release_allowed(struct jr_relay *r, uint64_t by)
{
	const struct jr_ask_entry *e;
	uint64_t after = 0;
	unsigned n = 0;
	char note[64];

	if (!r->ask)
		return 0;
	snprintf(note, sizeof(note), "allowed by the entry approved for %llu",
		 (unsigned long long)by);
	while ((e = jr_ask_next(r->ask, after))) {
		bool allowed =
		    e->via == JR_ASK_VIA_DNS
			? jr_policy_name_allowed(r->cfg.policy, e->host)
			: jr_policy_check_name(r->cfg.policy, e->host,
					       e->port) == JR_ALLOWED;

		after = e->id;
		if (allowed &&
		    relay_ask_decide(r, e->id, RELAY_ASK_APPROVED, note) >= 0)
			n++;
	}
	return n;
}

/* ------------------------------------------------------------ module */

static int ask_start(struct jr_relay *r, struct jr_err *err)
{
	if (!r->cfg.ask)
		return 0;
	r->ask = malloc(sizeof(*r->ask));
	if (!r->ask)
		return jr_err_set(err, ENOMEM,
				  "out of memory for the --ask table");
	jr_ask_init(r->ask, r->cfg.ask_timeout_ms);
	return 0;
}

/* The sweep's tick: refuse what waited past --ask-timeout. */
static void ask_sweep(struct jr_relay *r, uint64_t now)
{
	uint64_t id;

	if (!r->ask)
		return;
	while ((id = jr_ask_expired(r->ask, now)))
		relay_ask_decide(r, id, RELAY_ASK_TIMED_OUT, NULL);
}

/* The thread has ended (or never ran): the counts go to the summary. */
static void ask_stop(struct jr_relay *r)
{
	if (r->cfg.audit && r->ask) {
		r->cfg.audit->ask_approved = r->ask_approved;
		r->cfg.audit->ask_denied = r->ask_denied;
		r->cfg.audit->ask_timed_out = r->ask_timed_out;
	}
	free(r->ask);
	r->ask = NULL;
}

/* --ask: the held table's life and its deadline. */
const struct relay_module relay_ask_module = {
	.start = ask_start,
	.stop = ask_stop,
	.sweep = ask_sweep,
};
