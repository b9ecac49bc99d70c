// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * relay_dns.c - the sandbox's DNS forwarder, on the relay thread.
 *
 * Theory of operation
 *
 * Queries arrive on UDP and on TCP (length-prefixed, RFC 1035 4.2.2). A
 * name the policy does not allow gets NXDOMAIN at once (with --ask, once
 * an operator denies it or --ask-timeout passes: relay_ask.c) and is never
 * resolved; an allowed A/AAAA query is resolved by the host's resolver and
 * answered; other types of allowed names get an empty answer.
 *
 * Under transparent egress (cfg.transparent, r->fakeip) an allowed name is
 * not resolved at all: its A query (and AAAA query, when the sandbox link
 * has IPv6) is answered at once with the name's synthetic address
 * (fakeip.h, relay_dns_synthetic()), which a captured
 * connection later maps back to the name. Pool exhaustion answers
 * SERVFAIL with an audit line saying so.
 *
 * A query waits in one of RELAY_DNS_PENDING slots (r->dns) while the
 * resolver works, tagged with REF_RESOLVE_DNS, its slot and generation;
 * the relay's sweep answers SERVFAIL to one that waited longer than the
 * connect timeout (dns_sweep()). A UDP query is answered with sendto() to its peer; a
 * DNS/TCP connection (a struct conn of KIND_DNS_TCP) gets its answer
 * queued as its REPLY, then reads the next query. Each query writes one
 * audit line ("via":"dns"); the DNS/TCP connection itself writes none.
 */
#include <arpa/inet.h>
#include <errno.h>
#include <netdb.h>
#include <stdbool.h>
#include <stdint.h>
#include <string.h>
#include <strings.h>
#include <sys/socket.h>

#include "clock.h"
#include "log.h"
#include "relay_ask.h"
#include "relay_dns.h"
#include "relay_loop.h"
#include "selfcheck.h"

#define RELAY_DNS_TTL 30 /* seconds; short: the host's view may change */
#define RELAY_DNS_TCP_ANSWER_MAX 2048
/*
 * Seconds, for synthetic answers. Any TTL is right while the sandbox lives:
 * a name's synthetic address never changes and never goes to another
 * name. The TTL only bounds how long a cache could keep an address that
 * means nothing once this relay is gone; a minute keeps that short while a
 * program that resolves before each connection still asks rarely, and
 * each answer costs no upstream lookup. (The real answers' 30 s reflects
 * the host's view changing, which does not apply here.)
 */
#define RELAY_FAKEIP_TTL 60

static void dns_release(struct jr_relay *r, int slot)
{
	if (r->dns[slot].ask_id) /* held, and no longer waiting */
		relay_ask_leave(r, r->dns[slot].ask_id);
	r->dns[slot].ask_id = 0;
	r->dns[slot].used = false;
	r->dns[slot].gen++;
}

static int dns_alloc(struct jr_relay *r)
{
	for (int i = 0; i < RELAY_DNS_PENDING; i++) {
		if (!r->dns[i].used) {
			r->dns[i].used = true;
			r->dns[i].conn = -1;
			r->dns[i].ask_id = 0;
			r->dns[i].id = ++r->next_id;
			r->dns[i].t_start = jr_clock_ms();
			r->dns[i].deadline =
			    r->dns[i].t_start + r->cfg.connect_timeout_ms;
			return i;
		}
	}
	return -1;
}

static const char *qtype_name(uint16_t t)
{
	switch (t) {
	case JR_DNS_TYPE_A:
		return "A";
	case JR_DNS_TYPE_AAAA:
		return "AAAA";
	default:
		return "other";
	}
}

/* @address: the address answered, when it is ours to say (synthetic). */
static void dns_audit(struct jr_relay *r, struct dns_pending *d, bool allowed,
		      const char *reason, int rcode, const char *address)
{
	struct jr_audit_record rec = {
		.id = d->id,
		.method = qtype_name(d->q.qtype),
		.host = d->q.name,
		.address = address,
		.allowed = allowed,
		.reason = reason,
		.status = rcode,
	};

	relay_audit(r, d->conn < 0 ? KIND_DNS_UDP : KIND_DNS_TCP, &rec,
		    d->t_start);
}

/* Send a built answer to the asker (UDP peer or DNS/TCP connection). */
static void dns_send(struct jr_relay *r, int slot, const uint8_t *ans, long len)
{
	struct dns_pending *d = &r->dns[slot];

	if (len > 0 && d->conn < 0) {
		if (sendto(r->cfg.listeners.dns_udp, ans, (size_t)len,
			   MSG_DONTWAIT, (struct sockaddr *)&d->peer,
			   d->peer_len) < 0)
			jr_debug("relay: DNS sendto: %s", strerror(errno));
	} else if (len > 0) {
		struct conn *c = &r->conns[d->conn];
		uint8_t pfx[2] = { (uint8_t)(len >> 8), (uint8_t)len };

		c->dns_slot = -1;
		if (relay_queue_out(c, pfx, 2) < 0 ||
		    relay_queue_out(c, ans, (size_t)len) < 0) {
			dns_release(r, slot);
			relay_out_of_memory(r, c);
			return;
		}
		c->st = ST_REPLY;
		c->t_last = jr_clock_ms();
		c->deadline = c->t_last + r->cfg.header_timeout_ms;
		relay_want_events(r, c);
	}
	dns_release(r, slot);
}

static void dns_answer_ttl(struct jr_relay *r, int slot, int rcode,
			   const struct jr_dns_addr *addrs, size_t n,
			   uint32_t ttl)
{
	struct dns_pending *d = &r->dns[slot];
	/* Over TCP there is no 512-byte limit (RFC 1035 4.2.2): all the
	 * addresses fit, and a TCP client must never see TC. */
	uint8_t ans[RELAY_DNS_TCP_ANSWER_MAX];
	size_t room = d->conn < 0 ? JR_DNS_UDP_MAX : sizeof(ans);
	long len =
	    jr_dns_build_response(&d->q, rcode, addrs, n, ttl, ans, room);

	dns_send(r, slot, ans, len);
}

static void dns_answer(struct jr_relay *r, int slot, int rcode,
		       const struct jr_dns_addr *addrs, size_t n)
{
	dns_answer_ttl(r, slot, rcode, addrs, n, RELAY_DNS_TTL);
}

/*
 * relay_dns_synthetic - the answer to an allowed name's query under
 * transparent egress. Pure: the table @f and the query @q decide.
 *
 * A (class IN): the name's synthetic IPv4 address, assigned on first use.
 * The real name is not resolved: the transparent path resolves it when a
 * connection to the synthetic address arrives, through the relay's
 * resolver and the SSRF guard; the command never learns the real address.
 * AAAA (class IN), when the sandbox link has IPv6 (@ipv6): the name's
 * synthetic IPv6 address (same number, JR_FAKEIP_V6_PREFIX), so an
 * IPv6-only or IPv6-first client is captured too; the real name may well
 * have no IPv6 address, which does not matter: the relay connects over
 * whichever family the name resolves to. Without @ipv6: an empty NOERROR
 * answer (NODATA, RFC 2308 2.2: the name exists, with no address of that
 * family), as a synthetic IPv6 answer would send a client to an address
 * it has no route to and cost it a timeout before falling back to IPv4.
 * Other types: empty NOERROR, as without transparent egress.
 * @addr, @n: the answer's address, and 1, or 0 for none
 * @reason: the audit reason on failure, else NULL
 * Return: the rcode: NOERROR, or SERVFAIL when the pool is exhausted
 * ("fakeip-exhausted") or memory ran out.
 */
int relay_dns_synthetic(struct jr_fakeip *f, const struct jr_dns_query *q,
			bool ipv6, struct jr_dns_addr *addr, size_t *n,
			const char **reason)
{
	int e;

	*n = 0;
	*reason = NULL;
	if (q->qclass != JR_DNS_CLASS_IN ||
	    (q->qtype != JR_DNS_TYPE_A &&
	     (q->qtype != JR_DNS_TYPE_AAAA || !ipv6)))
		return JR_DNS_RCODE_NOERROR;
	memset(addr, 0, sizeof(*addr));
	addr->family = q->qtype == JR_DNS_TYPE_A ? AF_INET : AF_INET6;
	e = jr_fakeip_assign(f, q->name, addr->family, addr->addr);
	if (e == -ENOSPC) {
		*reason = "fakeip-exhausted";
		return JR_DNS_RCODE_SERVFAIL;
	}
	if (e < 0) {
		*reason = e == -ENOMEM ? "out-of-memory" : "bad-name";
		return JR_DNS_RCODE_SERVFAIL;
	}
	*n = 1;
	return JR_DNS_RCODE_NOERROR;
}

/* Answer an allowed name's query from the synthetic pool, at once. */
static void dns_synthetic(struct jr_relay *r, int slot)
{
	struct dns_pending *d = &r->dns[slot];
	struct jr_dns_addr addr = { 0 };
	char text[INET6_ADDRSTRLEN] = "";
	const char *reason;
	size_t n;
	int rcode = relay_dns_synthetic(r->fakeip, &d->q, r->cfg.ipv6, &addr,
					&n, &reason);

	if (n && !inet_ntop(addr.family, addr.addr, text, sizeof(text)))
		text[0] = '\0';
	if (rcode == JR_DNS_RCODE_SERVFAIL && !r->fakeip_warned) {
		/* Once: every later query would say the same. Each one still
		 * has its audit line. */
		jr_warn("relay: no synthetic address for %s (%s); names that "
			"have one keep working",
			d->q.name, reason);
		r->fakeip_warned = true;
	}
	dns_audit(r, d, true, reason, rcode, text[0] ? text : NULL);
	dns_answer_ttl(r, slot, rcode, &addr, n, RELAY_FAKEIP_TTL);
}

/*
 * host.jailrun.internal, with host lanes: the gateway, where the relay
 * listens on each host lane's port. A: the gateway; AAAA and other types:
 * empty NOERROR (the worker link is IPv4 only).
 */
static void dns_lane_host(struct jr_relay *r, int slot)
{
	struct dns_pending *d = &r->dns[slot];
	struct jr_dns_addr addr = { .family = AF_INET };
	char text[INET_ADDRSTRLEN];
	size_t n = 0;

	if (d->q.qclass == JR_DNS_CLASS_IN && d->q.qtype == JR_DNS_TYPE_A) {
		memcpy(addr.addr, &r->cfg.gateway, 4);
		n = 1;
	}
	inet_ntop(AF_INET, &r->cfg.gateway, text, sizeof(text));
	dns_audit(r, d, true, NULL, JR_DNS_RCODE_NOERROR, n ? text : NULL);
	dns_answer(r, slot, JR_DNS_RCODE_NOERROR, &addr, n);
}

/* Is @name the host lanes' name (and are there any)? */
static bool lane_dns_name(const struct jr_relay *r, const char *name)
{
	return r->cfg.lanes && r->cfg.lanes->n_host &&
	       strcasecmp(name, JR_LANE_HOST_NAME) == 0;
}

/* An allowed name's query (by the policy or an operator): answer it from
 * the synthetic pool, or start resolving. */
static void dns_allowed(struct jr_relay *r, int slot)
{
	struct dns_pending *d = &r->dns[slot];
	int family;

	if (r->fakeip) {
		dns_synthetic(r, slot);
		return;
	}
	if (d->q.qclass != JR_DNS_CLASS_IN ||
	    (d->q.qtype != JR_DNS_TYPE_A && d->q.qtype != JR_DNS_TYPE_AAAA)) {
		dns_audit(r, d, true, NULL, JR_DNS_RCODE_NOERROR, NULL);
		dns_answer(r, slot, JR_DNS_RCODE_NOERROR, NULL, 0);
		return;
	}
	family = d->q.qtype == JR_DNS_TYPE_A ? AF_INET : AF_INET6;
	if (jr_resolver_submit(
		r->resolver, relay_ref(REF_RESOLVE_DNS, (uint32_t)slot, d->gen),
		d->q.name, family) < 0) {
		dns_audit(r, d, true, "resolver-busy", JR_DNS_RCODE_SERVFAIL,
			  NULL);
		dns_answer(r, slot, JR_DNS_RCODE_SERVFAIL, NULL, 0);
	}
}

/* Refuse a query: NXDOMAIN, audited with @reason. */
static void dns_refuse(struct jr_relay *r, int slot, const char *reason)
{
	dns_audit(r, &r->dns[slot], false, reason, JR_DNS_RCODE_NXDOMAIN, NULL);
	dns_answer(r, slot, JR_DNS_RCODE_NXDOMAIN, NULL, 0);
}

/* A query sits parsed in r->dns[slot]: answer it or start resolving. */
static void dns_query(struct jr_relay *r, int slot)
{
	struct dns_pending *d = &r->dns[slot];
	enum jr_deny_reason why;

	if (strcmp(d->q.name, JR_HEALTH_DNS_NAME) == 0) {
		dns_answer(r, slot, JR_DNS_RCODE_NXDOMAIN, NULL, 0);
		return;
	}
	if (lane_dns_name(r, d->q.name)) {
		dns_lane_host(r, slot);
		return;
	}
	why = jr_policy_name_verdict(r->cfg.policy, d->q.name);
	if (why == JR_ALLOWED) {
		dns_allowed(r, slot);
		return;
	}
	/* Never resolved, never forwarded: the question itself could be
	 * the message (secret.evil.com). With --ask, held first. */
	switch (relay_ask_dns(r, d->q.name, why, &d->ask_id)) {
	case RELAY_ASK_HELD:
		return; /* dns_sweep() leaves it to the held table */
	case RELAY_ASK_FULL:
		dns_refuse(r, slot, "ask-full");
		return;
	case RELAY_ASK_NOT_HELD:
		break;
	}
	dns_refuse(r, slot, jr_deny_reason_name(JR_DENY_NOT_ALLOWED));
}

static void dns_resolved(struct jr_relay *r, int slot,
			 const struct jr_resolve_result *res)
{
	struct dns_pending *d = &r->dns[slot];
	struct jr_dns_addr addrs[JR_RESOLVE_MAX_ADDRS];
	size_t n = 0;
	int rcode;

	for (size_t i = 0; !res->error && i < res->n; i++) {
		const struct sockaddr *sa =
		    (const struct sockaddr *)&res->addrs[i];

		addrs[n].family = sa->sa_family;
		if (sa->sa_family == AF_INET)
			memcpy(addrs[n++].addr,
			       &((const struct sockaddr_in *)sa)->sin_addr, 4);
		else if (sa->sa_family == AF_INET6)
			memcpy(addrs[n++].addr,
			       &((const struct sockaddr_in6 *)sa)->sin6_addr,
			       16);
	}
	if (!res->error)
		rcode = JR_DNS_RCODE_NOERROR;
	else if (res->error == EAI_NONAME || res->error == EAI_NODATA)
		/* The name exists for the policy, not for the world: say so
		 * for A (NXDOMAIN would also hide the other family). */
		rcode = JR_DNS_RCODE_NOERROR;
	else
		rcode = JR_DNS_RCODE_SERVFAIL;
	dns_audit(r, d, true, rcode ? "resolve-failed" : NULL, rcode, NULL);
	dns_answer(r, slot, rcode, addrs, n);
}

/*
 * Parse the query in r->dns[slot]. A malformed one is dropped (the slot is
 * released, nothing is sent); a well-formed one that is not a plain query
 * gets NOTIMP. Return: 0 if it is a query to answer.
 */
static int dns_parse(struct jr_relay *r, int slot)
{
	struct dns_pending *d = &r->dns[slot];
	int e = jr_dns_parse_query(d->msg, d->len, &d->q);
	uint8_t ans[JR_DNS_UDP_MAX];

	if (e == -EOPNOTSUPP) {
		long len = jr_dns_build_error(
		    d->msg, d->len, JR_DNS_RCODE_NOTIMP, ans, sizeof(ans));

		if (len > 0) {
			dns_send(r, slot, ans, len);
			return -1;
		}
	}
	if (e < 0)
		dns_release(r, slot);
	return e < 0 ? -1 : 0;
}

static void dns_udp_readable(struct jr_relay *r)
{
	for (int i = 0; i < RELAY_ACCEPT_BATCH; i++) {
		struct dns_pending tmp;
		int slot;
		ssize_t n;

		tmp.peer_len = sizeof(tmp.peer);
		n = recvfrom(r->cfg.listeners.dns_udp, tmp.msg, sizeof(tmp.msg),
			     MSG_DONTWAIT | MSG_TRUNC,
			     (struct sockaddr *)&tmp.peer, &tmp.peer_len);
		if (n < 0)
			return; /* EAGAIN or a transient error */
		if ((size_t)n > sizeof(tmp.msg))
			continue; /* truncated: not a query we can answer */
		slot = dns_alloc(r);
		if (slot < 0)
			continue; /* all busy: the client retries */
		memcpy(&r->dns[slot].peer, &tmp.peer, tmp.peer_len);
		r->dns[slot].peer_len = tmp.peer_len;
		memcpy(r->dns[slot].msg, tmp.msg, (size_t)n);
		r->dns[slot].len = (size_t)n;
		if (dns_parse(r, slot) == 0)
			dns_query(r, slot);
	}
}

/* DNS over TCP: a complete length-prefixed query in c->in? */
static void dns_tcp_input(struct jr_relay *r, struct conn *c)
{
	size_t len;
	int slot;

	if (c->in_len < 2)
		return;
	len = ((size_t)(uint8_t)c->in[0] << 8) | (uint8_t)c->in[1];
	if (len == 0 || len > JR_DNS_UDP_MAX) {
		relay_conn_free(r, c); /* we only answer plain queries */
		return;
	}
	if (c->in_len < 2 + len)
		return;
	slot = dns_alloc(r);
	if (slot < 0) {
		relay_conn_free(r, c);
		return;
	}
	memcpy(r->dns[slot].msg, c->in + 2, len);
	r->dns[slot].len = len;
	r->dns[slot].conn = (int)relay_slot_of(r, c);
	memmove(c->in, c->in + 2 + len, c->in_len - 2 - len);
	c->in_len -= 2 + len;
	c->dns_slot = slot;
	c->st = ST_RESOLVE;
	relay_want_events(r, c);
	if (dns_parse(r, slot) == 0) {
		dns_query(r, slot);
	} else if (c->dns_slot == slot) {
		/* Malformed (a NOTIMP answer would have cleared dns_slot):
		 * the slot is released already; drop the connection. */
		c->dns_slot = -1;
		relay_conn_free(r, c);
	}
}

/* Queries the resolver did not answer in time get SERVFAIL. */
static void dns_sweep(struct jr_relay *r, uint64_t now)
{
	for (int i = 0; i < RELAY_DNS_PENDING; i++) {
		struct dns_pending *d = &r->dns[i];

		if (d->used && !d->ask_id && now >= d->deadline) {
			dns_audit(r, d, true, "resolve-timeout",
				  JR_DNS_RCODE_SERVFAIL, NULL);
			dns_answer(r, i, JR_DNS_RCODE_SERVFAIL, NULL, 0);
		}
	}
}

/* A DNS/TCP connection's client sent more (@before: unused). */
static void dns_tcp_head(struct jr_relay *r, struct conn *c, size_t before)
{
	(void)before;
	dns_tcp_input(r, c);
}

/* A DNS/TCP answer is out: ready for the next query on the connection. */
static void dns_tcp_replied(struct jr_relay *r, struct conn *c)
{
	c->st = ST_HEAD;
	c->deadline = jr_clock_ms() + r->cfg.header_timeout_ms;
	relay_want_events(r, c);
	if (c->in_len)
		dns_tcp_input(r, c);
}

/* A DNS/TCP connection is freed: so is the query it waits for. */
static void dns_tcp_release(struct jr_relay *r, struct conn *c)
{
	if (c->dns_slot >= 0)
		dns_release(r, c->dns_slot);
}

/*
 * Held request @id was decided (--ask): every query waiting on it (a
 * retry, the A and AAAA of one lookup) is answered as if allowed, with a
 * fresh resolver timeout, or gets NXDOMAIN, audited with why.
 */
static void dns_module_asked(struct jr_relay *r, uint64_t id,
			     enum relay_ask_verdict v)
{
	for (int i = 0; i < RELAY_DNS_PENDING; i++) {
		struct dns_pending *d = &r->dns[i];

		if (!d->used || d->ask_id != id)
			continue;
		d->ask_id = 0;
		if (v == RELAY_ASK_APPROVED) {
			d->deadline = jr_clock_ms() + r->cfg.connect_timeout_ms;
			dns_allowed(r, i);
		} else {
			dns_refuse(r, i,
				   v == RELAY_ASK_DENIED ? "ask-denied"
							 : "ask-timeout");
		}
	}
}

/* The resolver answered a pending query, if it is still the one asked. */
static void dns_module_resolved(struct jr_relay *r, union relay_ref ref,
				const struct jr_resolve_result *res)
{
	struct dns_pending *d = &r->dns[ref.slot % RELAY_DNS_PENDING];

	if (ref.slot < RELAY_DNS_PENDING && d->used &&
	    relay_ref_gen_is(ref, d->gen))
		dns_resolved(r, (int)ref.slot, res);
}

/* REF_DNS_UDP: queries on the UDP socket. */
static void dns_module_event(struct jr_relay *r, union relay_ref ref,
			     uint32_t events)
{
	(void)ref;
	(void)events;
	dns_udp_readable(r);
}

/* DNS/TCP connections: queries in, answers out, never an upstream. */
const struct relay_ops relay_dns_tcp_ops = {
	.head = dns_tcp_head,
	.replied = dns_tcp_replied,
	.release = dns_tcp_release,
};

/* The forwarder outside connections: UDP, pending queries, timeouts. */
const struct relay_module relay_dns_module = {
	.event = dns_module_event,
	.resolved = dns_module_resolved,
	.sweep = dns_sweep,
	.asked = dns_module_asked,
};
