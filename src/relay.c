// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * relay.c - the relay thread (see relay.h).
 *
 * Theory of operation
 *
 * One thread, one epoll instance, level-triggered, non-blocking sockets.
 * Every registration carries a typed reference in epoll_data.u64 (the type
 * in the high 32 bits, a slot index in the low ones) and relay_loop()
 * dispatches on the type in one switch. Connections live in a table of
 * --max-conns slots allocated once; a slot's generation counter is bumped
 * when it is freed, so a resolver result that arrives for a slot that has
 * since been reused is recognised and dropped.
 *
 * Proxy connection, one request per connection:
 *
 *   HEAD ----> (deny) -------------------------------> REPLY -> LINGER
 *     |  parse, check the name against the policy
 *     v
 *   RESOLVE (resolver threads) --> guard every address --> (deny) REPLY
 *     v
 *   CONNECT (non-blocking, next address on failure) --> 502/504 REPLY
 *     v
 *   RELAY: CONNECT -> "200 Connection established", then a tunnel;
 *          absolute-form -> the rewritten head, exactly the request body,
 *          then the response until the upstream closes.
 *
 * The relay connects to the very address the guard checked: resolution
 * happens once, in the relay's resolver, and the sockaddr that passed
 * jr_policy_check_address() is the one given to connect(2).
 *
 * Tunnels move bytes with splice(2) socket -> pipe -> socket, one pipe per
 * direction, so payload never enters user space. A read side that reaches
 * EOF is passed on as shutdown(SHUT_WR) once its pipe is drained
 * (half-close), and the tunnel ends when both directions have. Request
 * bodies of absolute-form requests are copied instead, through
 * jr_http_body_feed(), because the relay must stop at the exact end of the
 * body: nothing after it may reach the upstream.
 *
 * DNS: queries arrive on UDP and on TCP (length-prefixed, RFC 1035 4.2.2).
 * A name the policy does not allow gets NXDOMAIN at once and is never
 * resolved; an allowed A/AAAA query is resolved by the host's resolver and
 * answered; other types of allowed names get an empty answer.
 *
 * Refusals are answered, never left hanging: 403 with X-Jailrun-Deny and a
 * one-line body saying why, 400 for a malformed request, 502 when the
 * upstream refuses, 504 when it does not answer in time, 503 when every
 * slot is taken, when no file descriptor is left, or when memory runs out
 * (out_of_memory() says why 503). Every answer is built by
 * jr_http_response(). A timer sweeps the slots four times a second for
 * header, connect and idle timeouts.
 *
 * Out of file descriptors: one spare descriptor is held from the start.
 * When accept4() fails with EMFILE, the spare is closed, the waiting
 * connection is accepted with it, answered 503 and closed, and the spare
 * is taken back; if even that fails, the listeners are taken out of the
 * epoll set's interest until a connection closes. A level-triggered
 * listener left armed with a queued connection we cannot accept would wake
 * the thread forever (100% CPU).
 *
 * A relayed connection that one side resets is reset on the other side
 * too, and its audit line says which side ("upstream-reset").
 */
#include <arpa/inet.h>
#include <errno.h>
#include <fcntl.h>
#include <malloc.h>
#include <netdb.h>
#include <pthread.h>
#include <signal.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/epoll.h>
#include <sys/eventfd.h>
#include <sys/socket.h>
#include <sys/timerfd.h>
#include <time.h>
#include <unistd.h>

#include "buf.h"
#include "cleanup.h"
#include "clock.h"
#include "dns.h"
#include "host.h"
#include "http.h"
#include "localaddr.h"
#include "log.h"
#include "relay.h"
#include "resolver.h"
#include "selfcheck.h"
#include "tls.h"

#define RELAY_RESOLVER_THREADS 4
#define RELAY_DNS_PENDING 256 /* UDP/TCP DNS queries being resolved */
#define RELAY_DNS_TTL 30      /* seconds; short: the host's view may change */
#define RELAY_DNS_TCP_ANSWER_MAX 2048
#define RELAY_LINGER_MS 2000 /* after a refusal, wait this long for EOF */
#define RELAY_SWEEP_MS 250
#define RELAY_ACCEPT_BATCH 64
#define RELAY_COPY_BUF 16384
#define RELAY_HEAD_CHUNK 4096
#define RELAY_TRIM_AFTER 64 /* connections at once before we trim */

enum ref_type {
	REF_STOP = 1,
	REF_TIMER,
	REF_RESOLVER,
	REF_LISTEN_PROXY,
	REF_LISTEN_DNS_TCP,
	REF_DNS_UDP,
	REF_CLIENT,
	REF_UPSTREAM,
};

static uint64_t ref(enum ref_type t, uint32_t idx)
{
	return ((uint64_t)t << 32) | idx;
}

enum conn_kind { KIND_PROXY, KIND_DNS_TCP };

enum conn_state {
	ST_FREE = 0,
	ST_HEAD,    /* reading a request head (proxy) or a query (DNS/TCP) */
	ST_RESOLVE, /* waiting for the resolver */
	ST_CONNECT, /* upstream connect in progress */
	ST_RELAY,   /* moving bytes */
	ST_REPLY, /* writing our own answer, then LINGER (proxy) or HEAD (DNS) */
	ST_LINGER, /* answer sent, write side shut, waiting for the client's EOF */
};

struct conn {
	enum conn_state st;
	enum conn_kind kind;
	uint32_t gen;
	uint32_t next_free;
	uint64_t id;
	int cfd, ufd;
	uint32_t cev, uev; /* events registered, or UINT32_MAX if not */

	char *in; /* client bytes not consumed yet */
	size_t in_len, in_cap;
	char *out; /* our bytes for the client */
	size_t out_len, out_off;
	char *up; /* bytes for the upstream before any splice */
	size_t up_len, up_off, up_cap;

	struct jr_http_request req;
	bool have_req;
	struct jr_http_body_tracker body;

	struct jr_resolve_result *res; /* addresses to try, guard-checked */
	size_t next_addr;
	int last_errno;

	int pipe_cu[2], pipe_uc[2];
	size_t cu_pending, uc_pending, pipe_size;
	bool c_eof, u_eof, c_shut, u_shut, c_done;
	bool
	    sni_pending; /* CONNECT: client bytes held until the SNI is checked */
	size_t
	    sni_need; /* below this many bytes the hello cannot be complete */

	uint64_t t_start, t_last, deadline;
	uint64_t bytes_up, bytes_down;
	int status;
	const char *reason;
	bool allowed, logged;
	char addr[INET6_ADDRSTRLEN];
	int dns_slot; /* KIND_DNS_TCP: the pending query, or -1 */
};

struct dns_pending {
	bool used;
	uint32_t gen;
	int conn; /* KIND_DNS_TCP slot, or -1 for UDP */
	struct sockaddr_storage peer;
	socklen_t peer_len;
	uint8_t msg[JR_DNS_UDP_MAX];
	size_t len;
	struct jr_dns_query q;
	uint64_t t_start, deadline;
	uint64_t id;
};

struct jr_relay {
	struct jr_relay_config cfg;
	pthread_t thread;
	bool thread_started;
	int epfd, stopfd, timerfd;
	struct jr_resolver *resolver;
	struct jr_localaddr *localaddr; /* the host's own addresses */
	struct conn *conns;
	uint32_t free_head, n_used, peak_used;
	/* Slots from n_fresh on were never used: free without being on the
	 * free list, and their zeroed pages never touched. Linking all
	 * max_conns slots up front faulted in the whole array (a few MiB)
	 * at start-up: milliseconds before the command could start. */
	uint32_t n_fresh;
	struct dns_pending dns[RELAY_DNS_PENDING];
	uint64_t next_id;
	bool stopping;
	int reserve_fd;	    /* held to refuse a connection when out of fds */
	bool accept_paused; /* listeners not polled: out of fds, see
			       accept_failed() */
	bool accept_warned;
};

#define NO_SLOT UINT32_MAX

/* Resolver tags: bit 63 = DNS query slot (else connection slot), 62..32 =
 * generation, 31..0 = slot. */
static uint64_t make_tag(bool dns, uint32_t gen, uint32_t slot)
{
	return ((uint64_t)dns << 63) | ((uint64_t)(gen & 0x7fffffff) << 32) |
	       slot;
}

/* ------------------------------------------------------------ epoll */

static void ep_set(struct jr_relay *r, int fd, uint32_t *cur, uint32_t want,
		   uint64_t data)
{
	struct epoll_event ev = { .events = want, .data.u64 = data };

	if (fd < 0 || *cur == want)
		return;
	if (epoll_ctl(r->epfd,
		      *cur == UINT32_MAX ? EPOLL_CTL_ADD : EPOLL_CTL_MOD, fd,
		      &ev) < 0)
		jr_debug("relay: epoll_ctl: %s", strerror(errno));
	*cur = want;
}

static uint32_t slot_of(const struct jr_relay *r, const struct conn *c)
{
	return (uint32_t)(c - r->conns);
}

/* ------------------------------------------------------------ slots */

static struct conn *conn_alloc(struct jr_relay *r, enum conn_kind kind, int cfd)
{
	struct conn *c;
	uint32_t gen;

	if (r->free_head != NO_SLOT) {
		c = &r->conns[r->free_head];
		r->free_head = c->next_free;
	} else if (r->n_fresh < r->cfg.max_conns) {
		c = &r->conns[r->n_fresh++];
	} else {
		return NULL;
	}
	gen = c->gen;
	memset(c, 0, sizeof(*c));
	c->gen = gen;
	c->kind = kind;
	c->st = ST_HEAD;
	c->cfd = cfd;
	c->ufd = -1;
	c->cev = c->uev = UINT32_MAX;
	c->pipe_cu[0] = c->pipe_cu[1] = c->pipe_uc[0] = c->pipe_uc[1] = -1;
	c->id = ++r->next_id;
	c->t_start = c->t_last = jr_clock_ms();
	c->deadline = c->t_start + r->cfg.header_timeout_ms;
	c->status = -1;
	c->dns_slot = -1;
	if (++r->n_used > r->peak_used)
		r->peak_used = r->n_used;
	return c;
}

static void audit_conn(struct jr_relay *r, struct conn *c)
{
	struct jr_audit_record rec = {
		.id = c->id,
		.via = c->kind == KIND_PROXY ? "proxy" : "dns",
		.method = c->have_req ? c->req.method : NULL,
		.host = c->have_req ? c->req.host : NULL,
		.port = c->have_req ? c->req.port : 0,
		.address = c->addr[0] ? c->addr : NULL,
		.allowed = c->allowed,
		.reason = c->reason,
		.status = c->status,
		.bytes_up = c->bytes_up,
		.bytes_down = c->bytes_down,
		.duration_ms = jr_clock_ms() - c->t_start,
	};

	c->logged = true;
	if (c->kind == KIND_PROXY)
		jr_audit_connection(r->cfg.audit, &rec);
}

static void close_fd(int *fd)
{
	if (*fd >= 0)
		close(*fd);
	*fd = -1;
}

static void dns_release(struct jr_relay *r, int slot);
static void accept_resume(struct jr_relay *r);

static void conn_free(struct jr_relay *r, struct conn *c)
{
	if (c->st == ST_FREE)
		return;
	if (!c->logged)
		audit_conn(r, c);
	/* close() removes the fds from the epoll set. */
	close_fd(&c->cfd);
	close_fd(&c->ufd);
	close_fd(&c->pipe_cu[0]);
	close_fd(&c->pipe_cu[1]);
	close_fd(&c->pipe_uc[0]);
	close_fd(&c->pipe_uc[1]);
	free(c->in);
	free(c->out);
	free(c->up);
	free(c->res);
	if (c->have_req)
		jr_http_request_release(&c->req);
	if (c->dns_slot >= 0)
		dns_release(r, c->dns_slot);
	c->in = c->out = c->up = NULL;
	c->res = NULL;
	c->st = ST_FREE;
	c->gen++;
	c->next_free = r->free_head;
	r->free_head = slot_of(r, c);
	accept_resume(r); /* a descriptor is free again */
	/* A burst of connections grows the relay thread's malloc arena; once
	 * the last one is gone, give that memory back to the system (not
	 * after every lone request: trimming costs a walk of the heap). */
	if (--r->n_used == 0 && r->peak_used >= RELAY_TRIM_AFTER) {
		malloc_trim(0);
		r->peak_used = 0;
	}
}

/* ------------------------------------------------------------ replies */

static void want_events(struct jr_relay *r, struct conn *c);

/* Queue @len bytes for the client (copied). */
static int queue_out(struct conn *c, const void *buf, size_t len)
{
	char *n;

	if (!len)
		return 0;
	n = realloc(c->out, c->out_len + len);
	if (!n)
		return -ENOMEM;
	memcpy(n + c->out_len, buf, len);
	c->out = n;
	c->out_len += len;
	return 0;
}

/* Answer the proxy client ourselves and close after (REPLY -> LINGER). */
static void reply(struct jr_relay *r, struct conn *c, int status,
		  const char *deny_tag, const char *reason, bool allowed,
		  const char *fmt, ...) __attribute__((format(printf, 7, 8)));

static void reply(struct jr_relay *r, struct conn *c, int status,
		  const char *deny_tag, const char *reason, bool allowed,
		  const char *fmt, ...)
{
	char body[512], resp[1024];
	va_list ap;
	int n;

	va_start(ap, fmt);
	vsnprintf(body, sizeof(body), fmt, ap);
	va_end(ap);
	n = jr_http_response(resp, sizeof(resp), status, deny_tag, body);
	c->status = status;
	c->reason = reason;
	c->allowed = allowed;
	close_fd(&c->ufd);
	c->uev = UINT32_MAX;
	if (n < 0 || queue_out(c, resp, (size_t)n) < 0) {
		conn_free(r, c);
		return;
	}
	audit_conn(r, c);
	c->st = ST_REPLY;
	c->deadline = jr_clock_ms() + RELAY_LINGER_MS;
	want_events(r, c);
}

/*
 * out_of_memory - the one answer to running out of memory for @c.
 *
 * 503, verdict allow, reason "out-of-memory", wherever it happens. 503
 * because the condition is ours and temporary, and RFC 9110 15.6.4 says a
 * client may retry a 503 (500 would say the request itself broke
 * something). Verdict allow because the policy did not refuse anything:
 * a deny would be counted among the denied destinations, whose summary
 * tells the user to add an --allow, which would not help. The status and
 * the reason say what happened. Once bytes of the exchange have gone to
 * the client (a relayed connection) no answer can be put in front of
 * them; then the connection is closed with the same reason.
 */
static void out_of_memory(struct jr_relay *r, struct conn *c)
{
	if (c->kind == KIND_PROXY && c->st != ST_RELAY && c->st != ST_REPLY &&
	    c->st != ST_LINGER) {
		reply(r, c, 503, NULL, "out-of-memory", true,
		      "jailrun: out of memory, try again");
		return;
	}
	c->reason = "out-of-memory";
	conn_free(r, c);
}

/* ------------------------------------------------------------ DNS */

static void dns_release(struct jr_relay *r, int slot)
{
	r->dns[slot].used = false;
	r->dns[slot].gen++;
}

static int dns_alloc(struct jr_relay *r)
{
	for (int i = 0; i < RELAY_DNS_PENDING; i++) {
		if (!r->dns[i].used) {
			r->dns[i].used = true;
			r->dns[i].conn = -1;
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

static void dns_audit(struct jr_relay *r, struct dns_pending *d, bool allowed,
		      const char *reason, int rcode)
{
	struct jr_audit_record rec = {
		.id = d->id,
		.via = "dns",
		.method = qtype_name(d->q.qtype),
		.host = d->q.name,
		.allowed = allowed,
		.reason = reason,
		.status = rcode,
		.duration_ms = jr_clock_ms() - d->t_start,
	};

	jr_audit_connection(r->cfg.audit, &rec);
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
		if (queue_out(c, pfx, 2) < 0 ||
		    queue_out(c, ans, (size_t)len) < 0) {
			dns_release(r, slot);
			out_of_memory(r, c);
			return;
		}
		c->st = ST_REPLY;
		c->t_last = jr_clock_ms();
		c->deadline = c->t_last + r->cfg.header_timeout_ms;
		want_events(r, c);
	}
	dns_release(r, slot);
}

static void dns_answer(struct jr_relay *r, int slot, int rcode,
		       const struct jr_dns_addr *addrs, size_t n)
{
	struct dns_pending *d = &r->dns[slot];
	/* Over TCP there is no 512-byte limit (RFC 1035 4.2.2): all the
	 * addresses fit, and a TCP client must never see TC. */
	uint8_t ans[RELAY_DNS_TCP_ANSWER_MAX];
	size_t room = d->conn < 0 ? JR_DNS_UDP_MAX : sizeof(ans);
	long len = jr_dns_build_response(&d->q, rcode, addrs, n, RELAY_DNS_TTL,
					 ans, room);

	dns_send(r, slot, ans, len);
}

/* A query sits parsed in r->dns[slot]: answer it or start resolving. */
static void dns_query(struct jr_relay *r, int slot)
{
	struct dns_pending *d = &r->dns[slot];
	int family;

	if (strcmp(d->q.name, JR_HEALTH_DNS_NAME) == 0) {
		dns_answer(r, slot, JR_DNS_RCODE_NXDOMAIN, NULL, 0);
		return;
	}
	if (!jr_policy_name_allowed(r->cfg.policy, d->q.name)) {
		/* Never resolved, never forwarded: the question itself could
		 * be the message (secret.evil.com). */
		dns_audit(r, d, false, jr_deny_reason_name(JR_DENY_NOT_ALLOWED),
			  JR_DNS_RCODE_NXDOMAIN);
		dns_answer(r, slot, JR_DNS_RCODE_NXDOMAIN, NULL, 0);
		return;
	}
	if (d->q.qclass != JR_DNS_CLASS_IN ||
	    (d->q.qtype != JR_DNS_TYPE_A && d->q.qtype != JR_DNS_TYPE_AAAA)) {
		dns_audit(r, d, true, NULL, JR_DNS_RCODE_NOERROR);
		dns_answer(r, slot, JR_DNS_RCODE_NOERROR, NULL, 0);
		return;
	}
	family = d->q.qtype == JR_DNS_TYPE_A ? AF_INET : AF_INET6;
	if (jr_resolver_submit(r->resolver,
			       make_tag(true, d->gen, (uint32_t)slot),
			       d->q.name, family) < 0) {
		dns_audit(r, d, true, "resolver-busy", JR_DNS_RCODE_SERVFAIL);
		dns_answer(r, slot, JR_DNS_RCODE_SERVFAIL, NULL, 0);
	}
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
	dns_audit(r, d, true, rcode ? "resolve-failed" : NULL, rcode);
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
		conn_free(r, c); /* we only answer plain queries */
		return;
	}
	if (c->in_len < 2 + len)
		return;
	slot = dns_alloc(r);
	if (slot < 0) {
		conn_free(r, c);
		return;
	}
	memcpy(r->dns[slot].msg, c->in + 2, len);
	r->dns[slot].len = len;
	r->dns[slot].conn = (int)slot_of(r, c);
	memmove(c->in, c->in + 2 + len, c->in_len - 2 - len);
	c->in_len -= 2 + len;
	c->dns_slot = slot;
	c->st = ST_RESOLVE;
	want_events(r, c);
	if (dns_parse(r, slot) == 0) {
		dns_query(r, slot);
	} else if (c->dns_slot == slot) {
		/* Malformed (a NOTIMP answer would have cleared dns_slot):
		 * the slot is released already; drop the connection. */
		c->dns_slot = -1;
		conn_free(r, c);
	}
}

/* ------------------------------------------------------------ proxy */

static void start_connect(struct jr_relay *r, struct conn *c);

static const char *deny_text(enum jr_deny_reason why)
{
	switch (why) {
	case JR_DENY_PORT:
		return "is allowed, but not on this port";
	case JR_DENY_BAD_HOST:
		return "is not a valid host name or address";
	case JR_DENY_SPECIAL_ADDR:
		return "is a loopback, link-local, private, shared, metadata, multicast or unspecified address";
	case JR_DENY_LOCAL_ADDR:
		return "is an address of the host jailrun runs on";
	case JR_DENY_GUARD_FAILED:
		return "could not be checked against this host's own addresses";
	case JR_DENY_NOT_ALLOWED:
	default:
		return "is not in the allowlist";
	}
}

static void deny(struct jr_relay *r, struct conn *c, enum jr_deny_reason why)
{
	reply(r, c, 403, jr_deny_reason_name(why), jr_deny_reason_name(why),
	      false, "jailrun: %s %s", c->req.host, deny_text(why));
}

/* Literal host: no resolution, but the same guard. */
static bool literal_address(const struct conn *c, struct sockaddr_storage *ss,
			    socklen_t *len)
{
	struct sockaddr_in *sin = (struct sockaddr_in *)ss;
	struct sockaddr_in6 *sin6 = (struct sockaddr_in6 *)ss;

	memset(ss, 0, sizeof(*ss));
	if (inet_pton(AF_INET, c->req.host, &sin->sin_addr) == 1) {
		sin->sin_family = AF_INET;
		*len = sizeof(*sin);
		return true;
	}
	if (inet_pton(AF_INET6, c->req.host, &sin6->sin6_addr) == 1) {
		sin6->sin6_family = AF_INET6;
		*len = sizeof(*sin6);
		return true;
	}
	return false;
}

static void set_port(struct sockaddr_storage *ss, uint16_t port)
{
	if (ss->ss_family == AF_INET)
		((struct sockaddr_in *)ss)->sin_port = htons(port);
	else
		((struct sockaddr_in6 *)ss)->sin6_port = htons(port);
}

static void addr_text(const struct sockaddr_storage *ss, char *out, size_t size)
{
	const void *a =
	    ss->ss_family == AF_INET
		? (const void *)&((const struct sockaddr_in *)ss)->sin_addr
		: (const void *)&((const struct sockaddr_in6 *)ss)->sin6_addr;

	if (!inet_ntop(ss->ss_family, a, out, (socklen_t)size))
		snprintf(out, size, "?");
}

/*
 * guard_local() - the guard's second half: would a connect to @sa stay on
 * this host (localaddr.h)? Then only an entry naming it opens it. Asked on
 * this thread, for the very sockaddr connect(2) will get; the netlink
 * round trip does not block (localaddr.c). A failed check refuses.
 */
static enum jr_deny_reason guard_local(struct jr_relay *r,
				       const struct sockaddr *sa, uint16_t port)
{
	int local = jr_localaddr_is_local(r->localaddr, sa);

	if (local < 0) {
		jr_warn(
		    "relay: cannot check an upstream address against this host's own, refusing it: %s",
		    strerror(-local));
		return JR_DENY_GUARD_FAILED;
	}
	if (!local)
		return JR_ALLOWED;
	return jr_policy_check_local_address(r->cfg.policy, sa, port);
}

/*
 * Keep the addresses the guard allows; if it refused them all, say which.
 * From here on c->res holds only addresses that passed.
 */
static void guard_and_connect(struct jr_relay *r, struct conn *c)
{
	struct jr_resolve_result *res = c->res;
	enum jr_deny_reason refused = JR_ALLOWED;
	char first_refused[INET6_ADDRSTRLEN] = "";
	size_t kept = 0;

	for (size_t i = 0; i < res->n; i++) {
		enum jr_deny_reason why = jr_policy_check_address(
		    r->cfg.policy, (struct sockaddr *)&res->addrs[i],
		    c->req.port);

		if (why == JR_ALLOWED)
			why = guard_local(r, (struct sockaddr *)&res->addrs[i],
					  c->req.port);
		if (why != JR_ALLOWED) {
			if (!first_refused[0])
				addr_text(&res->addrs[i], first_refused,
					  sizeof(first_refused));
			refused = why;
			continue;
		}
		res->addrs[kept] = res->addrs[i];
		res->lens[kept++] = res->lens[i];
	}
	res->n = kept;
	if (!kept) {
		snprintf(c->addr, sizeof(c->addr), "%s", first_refused);
		reply(r, c, 403, jr_deny_reason_name(refused),
		      jr_deny_reason_name(refused), false,
		      "jailrun: %s resolves to %s, %s", c->req.host,
		      first_refused, deny_text(refused));
		return;
	}
	c->next_addr = 0;
	start_connect(r, c);
}

static void proxy_request(struct jr_relay *r, struct conn *c)
{
	enum jr_deny_reason why;
	struct sockaddr_storage ss;
	socklen_t len;

	why = jr_policy_check_name(r->cfg.policy, c->req.host, c->req.port);
	if (why != JR_ALLOWED) {
		deny(r, c, why);
		return;
	}
	c->res = calloc(1, sizeof(*c->res));
	if (!c->res) {
		out_of_memory(r, c);
		return;
	}
	c->deadline = jr_clock_ms() + r->cfg.connect_timeout_ms;
	if (literal_address(c, &ss, &len)) {
		c->res->addrs[0] = ss;
		c->res->lens[0] = len;
		c->res->n = 1;
		guard_and_connect(r, c);
		return;
	}
	if (jr_resolver_submit(r->resolver,
			       make_tag(false, c->gen, slot_of(r, c)),
			       c->req.host, AF_UNSPEC) < 0) {
		reply(r, c, 503, NULL, "resolver-busy", true,
		      "jailrun: too many lookups in progress, try again");
		return;
	}
	c->st = ST_RESOLVE;
	want_events(r, c);
}

static void proxy_resolved(struct jr_relay *r, struct conn *c,
			   const struct jr_resolve_result *res)
{
	if (res->error) {
		reply(r, c, 502, NULL, "resolve-failed", true,
		      "jailrun: cannot resolve %s: %s", c->req.host,
		      gai_strerror(res->error));
		return;
	}
	*c->res = *res;
	guard_and_connect(r, c);
}

static int make_pipe(int p[2], size_t *size)
{
	int sz;

	if (pipe2(p, O_CLOEXEC | O_NONBLOCK) < 0)
		return -errno;
	sz = fcntl(p[0], F_GETPIPE_SZ);
	*size = sz > 0 ? (size_t)sz : 65536;
	return 0;
}

static int queue_up(struct conn *c, const void *buf, size_t len)
{
	if (!len)
		return 0;
	if (jr_buf_reserve(&c->up, &c->up_cap, c->up_len + len, 4096,
			   SIZE_MAX) < 0)
		return -ENOMEM;
	memcpy(c->up + c->up_len, buf, len);
	c->up_len += len;
	return 0;
}

/* Feed client bytes of an absolute-form request body towards upstream. */
static int feed_body(struct conn *c, const char *buf, size_t n)
{
	long take;

	if (c->c_done)
		return 0;
	take = jr_http_body_feed(&c->body, buf, n);
	if (take < 0)
		return -EINVAL;
	if (take && queue_up(c, buf, (size_t)take) < 0)
		return -ENOMEM;
	if (c->body.done)
		c->c_done = true; /* anything after the body is never sent */
	return 0;
}

static void connected(struct jr_relay *r, struct conn *c)
{
	char head[64];
	int n, e;

	c->status = 200;
	c->allowed = true;
	/* The addresses are spent; a long-lived tunnel should not keep them. */
	free(c->res);
	c->res = NULL;
	/* Client -> upstream goes through a pipe for tunnels only: request
	 * bodies are copied, by their framing. */
	if (make_pipe(c->pipe_uc, &c->pipe_size) < 0 ||
	    (c->req.form == JR_HTTP_FORM_CONNECT &&
	     make_pipe(c->pipe_cu, &c->pipe_size) < 0)) {
		reply(r, c, 503, NULL, "out-of-fds", true,
		      "jailrun: out of file descriptors");
		return;
	}
	if (c->req.form == JR_HTTP_FORM_CONNECT) {
		n = jr_http_connect_established(head, sizeof(head));
		if (n < 0 || queue_out(c, head, (size_t)n) < 0) {
			out_of_memory(r, c);
			return;
		}
		/* Keep what followed the head: it may be the ClientHello. Most
		 * clients wait for our answer first; then the head buffer is
		 * released and sni_check() allocates when bytes arrive, so an
		 * idle tunnel holds no buffer. */
		memmove(c->in, c->in + c->req.head_len,
			c->in_len - c->req.head_len);
		c->in_len -= c->req.head_len;
		if (!c->in_len) {
			free(c->in);
			c->in = NULL;
			c->in_cap = 0;
		}
		c->sni_pending = true;
	} else {
		jr_http_body_init(&c->body, &c->req);
		c->c_done = c->body.done;
		e = queue_up(c, c->req.upstream_head, c->req.upstream_head_len);
		if (!e)
			e = feed_body(c, c->in + c->req.head_len,
				      c->in_len - c->req.head_len);
		if (e == -ENOMEM) {
			out_of_memory(r, c);
			return;
		}
		if (e < 0) {
			conn_free(r, c); /* malformed chunked framing */
			return;
		}
		free(c->in);
		c->in = NULL;
		c->in_len = c->in_cap = 0;
	}
	c->st = ST_RELAY;
	c->t_last = jr_clock_ms();
	want_events(r, c);
}

static void start_connect(struct jr_relay *r, struct conn *c)
{
	while (c->next_addr < c->res->n) {
		struct sockaddr_storage *ss = &c->res->addrs[c->next_addr];
		socklen_t len = c->res->lens[c->next_addr];
		int fd;

		c->next_addr++;
		set_port(ss, c->req.port);
		addr_text(ss, c->addr, sizeof(c->addr));
		fd = socket(ss->ss_family,
			    SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
		if (fd < 0) {
			c->last_errno = errno;
			continue;
		}
		if (connect(fd, (struct sockaddr *)ss, len) < 0 &&
		    errno != EINPROGRESS) {
			c->last_errno = errno;
			close(fd);
			continue;
		}
		c->ufd = fd;
		c->uev = UINT32_MAX;
		c->st = ST_CONNECT;
		c->deadline = jr_clock_ms() + r->cfg.connect_timeout_ms;
		want_events(r, c);
		return;
	}
	reply(r, c, 502, NULL, "upstream-refused", true,
	      "jailrun: cannot connect to %s port %u (%s): %s", c->req.host,
	      c->req.port, c->addr,
	      strerror(c->last_errno ? c->last_errno : EIO));
}

static void connect_done(struct jr_relay *r, struct conn *c)
{
	int soerr = 0;
	socklen_t len = sizeof(soerr);

	if (getsockopt(c->ufd, SOL_SOCKET, SO_ERROR, &soerr, &len) < 0)
		soerr = errno;
	if (soerr == 0) {
		connected(r, c);
		return;
	}
	c->last_errno = soerr;
	close_fd(&c->ufd);
	c->uev = UINT32_MAX;
	start_connect(r, c);
}

/*
 * Make room in the client input buffer for at least one more read:
 * doubling from RELAY_HEAD_CHUNK, never beyond @limit (the caller notices a
 * full buffer). Return: 0 or -ENOMEM.
 */
static int grow_in(struct conn *c, size_t limit)
{
	size_t need = c->in_len + RELAY_HEAD_CHUNK;

	return jr_buf_reserve(&c->in, &c->in_cap, need < limit ? need : limit,
			      RELAY_HEAD_CHUNK, limit);
}

/* Read what the client sent in HEAD state (proxy or DNS/TCP). */
static void head_readable(struct jr_relay *r, struct conn *c)
{
	size_t limit =
	    c->kind == KIND_PROXY ? JR_HTTP_HEAD_MAX + 1 : 2 + JR_DNS_UDP_MAX;
	struct jr_err err = { 0 };
	size_t before = c->in_len, from;
	ssize_t n;
	long hl;

	if (grow_in(c, limit) < 0) {
		out_of_memory(r, c);
		return;
	}
	n = recv(c->cfd, c->in + c->in_len, c->in_cap - c->in_len, 0);
	if (n < 0) {
		if (errno != EAGAIN && errno != EINTR)
			conn_free(r, c);
		return;
	}
	if (n == 0) {
		c->logged =
		    c->kind == KIND_DNS_TCP || c->in_len == 0; /* idle close */
		conn_free(r, c);
		return;
	}
	c->in_len += (size_t)n;
	c->t_last = jr_clock_ms();

	if (c->kind == KIND_DNS_TCP) {
		dns_tcp_input(r, c);
		return;
	}
	if (c->in_len >= strlen(JR_HEALTH_REQUEST) &&
	    memcmp(c->in, JR_HEALTH_REQUEST, strlen(JR_HEALTH_REQUEST)) == 0) {
		char resp[256];
		int len = jr_http_response(resp, sizeof(resp), 200, NULL, "ok");

		c->logged =
		    true; /* the runner's own check, not the command's */
		if (len < 0 || queue_out(c, resp, (size_t)len) < 0) {
			out_of_memory(r, c);
			return;
		}
		c->st = ST_REPLY;
		want_events(r, c);
		return;
	}
	/*
	 * The parser starts over on every call, so call it only when it can
	 * decide: on the first bytes (TLS or SOCKS spoken to an HTTP proxy is
	 * refused at once) and when the new bytes may end the head. A client
	 * sending one byte at a time then costs two parses, not 64 Ki.
	 */
	from = before >= 3 ? before - 3 : 0;
	if (before && c->in_len < limit &&
	    !memmem(c->in + from, c->in_len - from, "\n\n", 2) &&
	    !memmem(c->in + from, c->in_len - from, "\n\r\n", 3))
		return;
	hl = jr_http_parse_request(c->in, c->in_len, &c->req, &err);
	if (hl == 0)
		return;
	if (hl == -ENOMEM) {
		out_of_memory(r, c);
		return;
	}
	if (hl < 0) {
		reply(r, c, 400, NULL, "bad-request", false,
		      "jailrun: bad request: %s", err.msg);
		return;
	}
	c->have_req = true;
	proxy_request(r, c);
}

/* ------------------------------------------------------------ tunnel */

/* Which end of a splice_dir() failed. */
enum splice_fail { SPLICE_OK = 0, SPLICE_SRC_FAILED, SPLICE_DST_FAILED };

/*
 * Move bytes src -> pipe -> dst. When the source fails, what it sent
 * before is still passed on as far as dst takes it now (a server that
 * resets right after a complete answer loses nothing).
 * Return: SPLICE_OK, or which end failed with a hard error (errno says
 * how), so the audit line can say which side reset the connection.
 */
static enum splice_fail splice_dir(int src, int dst, int p[2], size_t pipe_size,
				   size_t *pending, bool *src_eof,
				   uint64_t *count)
{
	int src_err = 0;
	ssize_t n;

	while (!*src_eof && *pending < pipe_size) {
		n = splice(src, NULL, p[1], NULL, pipe_size - *pending,
			   SPLICE_F_MOVE | SPLICE_F_NONBLOCK);
		if (n > 0) {
			*pending += (size_t)n;
			*count += (uint64_t)n;
		} else if (n == 0) {
			*src_eof = true;
		} else if (errno == EAGAIN || errno == EINTR) {
			break;
		} else {
			src_err = errno;
			break;
		}
	}
	while (*pending) {
		n = splice(p[0], NULL, dst, NULL, *pending,
			   SPLICE_F_MOVE | SPLICE_F_NONBLOCK);
		if (n > 0)
			*pending -= (size_t)n;
		else if (n < 0 && (errno == EAGAIN || errno == EINTR))
			break;
		else if (!src_err)
			return SPLICE_DST_FAILED;
		else
			break; /* the source's failure is the news */
	}
	errno = src_err;
	return src_err ? SPLICE_SRC_FAILED : SPLICE_OK;
}

static int flush_buf(int fd, const char *buf, size_t len, size_t *off)
{
	while (*off < len) {
		ssize_t n = send(fd, buf + *off, len - *off, MSG_NOSIGNAL);

		if (n < 0)
			return errno == EAGAIN || errno == EINTR ? 0 : -1;
		*off += (size_t)n;
	}
	return 0;
}

/* Does the ClientHello's @sni name the host the CONNECT asked for? */
static bool sni_matches(const char *host, const char *sni)
{
	size_t hl = strlen(host);

	if (hl && host[hl - 1] == '.')
		hl--; /* the policy ignores one trailing dot; so do we */
	return strlen(sni) == hl && strncasecmp(host, sni, hl) == 0;
}

static void tunnel_refused(struct jr_relay *r, struct conn *c,
			   const char *reason)
{
	c->allowed = false;
	c->reason = reason;
	conn_free(r, c); /* nothing was forwarded: close both sides */
}

/*
 * The first client bytes of a CONNECT tunnel: if they are a TLS
 * ClientHello, its server name must be the host the policy allowed (an
 * allowed CONNECT must not carry TLS for another site through the same
 * address, e.g. a CDN); nothing is forwarded before that is known, and
 * what cannot be read as a hello is refused (fail closed). Bytes that are
 * not TLS at all pass: the policy allowed the destination, and plain
 * protocols (SSH, a database) have no name to check.
 * Return: 0 to go on (decided, or waiting for more bytes), -1 if the
 * connection was closed.
 */
static int sni_check(struct jr_relay *r, struct conn *c)
{
	struct sockaddr_storage ss;
	socklen_t sl;
	char sni[JR_HOST_MAX + 1];
	size_t used;

	for (;;) {
		enum jr_tls_sni v = JR_TLS_NEED_MORE;
		ssize_t n;

		/* The parser starts over on every call; its hint says how many
		 * bytes it needs at least, so a client dribbling its hello one
		 * byte at a time costs a few parses, not one per byte. */
		if (c->in_len && c->in_len >= c->sni_need) {
			v = jr_tls_client_hello_sni((const uint8_t *)c->in,
						    c->in_len, sni, sizeof(sni),
						    &used);
			if (v == JR_TLS_NEED_MORE)
				c->sni_need = used;
		}
		switch (v) {
		case JR_TLS_NEED_MORE:
			break;
		case JR_TLS_SNI_FOUND:
			if (!sni_matches(c->req.host, sni)) {
				jr_debug("relay: CONNECT %s carried TLS for %s",
					 c->req.host, sni);
				tunnel_refused(r, c, "sni-mismatch");
				return -1;
			}
			goto pass;
		case JR_TLS_NO_SNI:
			/* Normal for an address; for a name it cannot be checked. */
			if (literal_address(c, &ss, &sl))
				goto pass;
			tunnel_refused(r, c, "sni-missing");
			return -1;
		case JR_TLS_NOT_TLS:
			goto pass;
		case JR_TLS_MALFORMED:
		default:
			tunnel_refused(r, c, "tls-malformed");
			return -1;
		}
		if (grow_in(c, JR_TLS_HELLO_MAX) < 0) {
			out_of_memory(r, c);
			return -1;
		}
		if (c->in_len == c->in_cap) {
			tunnel_refused(r, c, "tls-malformed");
			return -1;
		}
		n = recv(c->cfd, c->in + c->in_len, c->in_cap - c->in_len, 0);
		if (n < 0)
			return errno == EAGAIN || errno == EINTR
				   ? 0
				   : (conn_free(r, c), -1);
		if (n == 0) {
			/* EOF before the hello was complete: nothing to check,
			 * so nothing goes out. */
			tunnel_refused(r, c, "tls-incomplete");
			return -1;
		}
		c->in_len += (size_t)n;
		c->bytes_up += (uint64_t)n;
		c->t_last = jr_clock_ms();
	}
pass:
	c->sni_pending = false;
	if (queue_up(c, c->in, c->in_len) < 0) {
		out_of_memory(r, c);
		return -1;
	}
	free(c->in);
	c->in = NULL;
	c->in_len = c->in_cap = 0;
	return 0;
}

/* How moving bytes failed: which side, so the audit line can say so. */
enum pump_fail {
	PUMP_OK = 0,
	PUMP_CLIENT_FAILED,   /* errno from the client socket */
	PUMP_UPSTREAM_FAILED, /* errno from the upstream socket */
	PUMP_NO_MEMORY,
};

/* Copy an absolute-form request body client -> up buffer, by the framing. */
static enum pump_fail copy_body(struct conn *c)
{
	char buf[RELAY_COPY_BUF];
	ssize_t n;
	int e;

	while (!c->c_done && c->up_off == c->up_len) {
		n = recv(c->cfd, buf, sizeof(buf), 0);
		if (n < 0)
			return errno == EAGAIN || errno == EINTR
				   ? PUMP_OK
				   : PUMP_CLIENT_FAILED;
		if (n == 0) {
			/* The client ended before its body did: nothing more
			 * is coming, let the upstream judge what it got. */
			c->c_done = true;
			break;
		}
		c->bytes_up += (uint64_t)n;
		c->up_len = c->up_off = 0;
		e = feed_body(c, buf, (size_t)n);
		if (e == -ENOMEM)
			return PUMP_NO_MEMORY;
		if (e < 0) {
			errno = -e; /* malformed chunked framing */
			return PUMP_CLIENT_FAILED;
		}
		if (flush_buf(c->ufd, c->up, c->up_len, &c->up_off) < 0)
			return PUMP_UPSTREAM_FAILED;
	}
	return PUMP_OK;
}

/*
 * One side of a relayed connection failed with @err: record which (a
 * reset upstream is "upstream-reset" in the audit line) and close both.
 * In a tunnel the other side gets a reset too (SO_LINGER 0), as it would
 * on a direct connection: a FIN would tell it that a cut-off stream ended
 * normally, and a tunnel has no framing of its own to show the truncation.
 * A proxied HTTP exchange is closed with a FIN: its framing shows a
 * truncated body, and an answer the server completed before resetting
 * still arrives whole.
 */
static void pump_failed(struct jr_relay *r, struct conn *c, enum pump_fail side,
			int err)
{
	static const struct linger reset = { .l_onoff = 1, .l_linger = 0 };
	bool reset_kind = err == ECONNRESET || err == EPIPE;
	int other;

	if (side == PUMP_NO_MEMORY) {
		out_of_memory(r, c);
		return;
	}
	if (side == PUMP_UPSTREAM_FAILED) {
		c->reason = reset_kind ? "upstream-reset" : "upstream-error";
		other = c->cfd;
	} else {
		c->reason = reset_kind ? "client-reset" : "client-error";
		other = c->ufd;
	}
	jr_debug("relay: connection %llu: %s: %s", (unsigned long long)c->id,
		 c->reason, strerror(err));
	if (other >= 0 && c->req.form == JR_HTTP_FORM_CONNECT &&
	    setsockopt(other, SOL_SOCKET, SO_LINGER, &reset, sizeof(reset)) <
		0) {
		/* then the other side sees a FIN: still no hang */
	}
	conn_free(r, c);
}

static void relay_pump(struct jr_relay *r, struct conn *c)
{
	bool tunnel = c->req.form == JR_HTTP_FORM_CONNECT;
	uint64_t up0 = c->bytes_up, down0 = c->bytes_down;
	enum pump_fail fail = PUMP_OK;
	enum splice_fail sf;

	/* Our own bytes first, in each direction. The SNI check goes between
	 * the two: it needs our "200" out, and the hello it releases into the
	 * up buffer should leave in this same pass, not after another wakeup. */
	if (flush_buf(c->cfd, c->out, c->out_len, &c->out_off) < 0) {
		fail = PUMP_CLIENT_FAILED;
		goto failed;
	}
	if (c->sni_pending && c->out_off == c->out_len && sni_check(r, c) < 0)
		return;
	if (flush_buf(c->ufd, c->up, c->up_len, &c->up_off) < 0) {
		fail = PUMP_UPSTREAM_FAILED;
		goto failed;
	}

	/* client -> upstream */
	if (c->up_off == c->up_len && !c->sni_pending) {
		if (tunnel) {
			sf =
			    splice_dir(c->cfd, c->ufd, c->pipe_cu, c->pipe_size,
				       &c->cu_pending, &c->c_eof, &c->bytes_up);
			if (sf != SPLICE_OK) {
				fail = sf == SPLICE_SRC_FAILED
					   ? PUMP_CLIENT_FAILED
					   : PUMP_UPSTREAM_FAILED;
				goto failed;
			}
			if (c->c_eof && !c->cu_pending && !c->u_shut) {
				shutdown(c->ufd, SHUT_WR);
				c->u_shut = true;
			}
		} else if ((fail = copy_body(c)) != PUMP_OK) {
			goto failed;
		}
	}

	/* upstream -> client, once our own answer is out */
	if (c->out_off == c->out_len) {
		sf = splice_dir(c->ufd, c->cfd, c->pipe_uc, c->pipe_size,
				&c->uc_pending, &c->u_eof, &c->bytes_down);
		if (sf != SPLICE_OK) {
			fail = sf == SPLICE_SRC_FAILED ? PUMP_UPSTREAM_FAILED
						       : PUMP_CLIENT_FAILED;
			goto failed;
		}
		if (c->u_eof && !c->uc_pending && !c->c_shut) {
			shutdown(c->cfd, SHUT_WR);
			c->c_shut = true;
		}
	}
	if (c->bytes_up != up0 || c->bytes_down != down0)
		c->t_last = jr_clock_ms();

	if (tunnel && c->c_shut && c->u_shut)
		goto done; /* both sides said all they had to say */
	if (!tunnel && c->c_shut) {
		/*
		 * One request per connection: the response ends the exchange.
		 * The client may have sent more than the body (a pipelined
		 * request we will not serve); closing with it unread would
		 * reset the connection and could cut off the response's tail
		 * still in our send queue, so linger for its EOF instead.
		 */
		audit_conn(r, c);
		close_fd(&c->ufd);
		c->uev = UINT32_MAX;
		c->st = ST_LINGER;
		c->deadline = jr_clock_ms() + RELAY_LINGER_MS;
	}
	want_events(r, c);
	return;
done:
	conn_free(r, c);
	return;
failed:
	pump_failed(r, c, fail, errno);
}

/* ------------------------------------------------------------ events */

static void want_events(struct jr_relay *r, struct conn *c)
{
	uint32_t ce = 0, ue = 0;
	uint32_t slot = slot_of(r, c);
	bool tunnel = c->have_req && c->req.form == JR_HTTP_FORM_CONNECT;

	switch (c->st) {
	case ST_HEAD:
	case ST_LINGER:
		ce = EPOLLIN;
		break;
	case ST_RESOLVE:
		ce = 0; /* the client waits; its bytes stay in the kernel */
		break;
	case ST_CONNECT:
		ue = EPOLLOUT;
		break;
	case ST_REPLY:
		ce = EPOLLOUT;
		break;
	case ST_RELAY:
		if (c->out_off < c->out_len || c->uc_pending)
			ce |= EPOLLOUT;
		if (c->up_off < c->up_len || c->cu_pending)
			ue |= EPOLLOUT;
		if (c->sni_pending) {
			if (c->out_off == c->out_len)
				ce |= EPOLLIN;
		} else if (tunnel) {
			if (!c->c_eof && c->cu_pending < c->pipe_size &&
			    c->up_off == c->up_len)
				ce |= EPOLLIN;
		} else if (!c->c_done && c->up_off == c->up_len) {
			ce |= EPOLLIN;
		}
		if (!c->u_eof && c->uc_pending < c->pipe_size &&
		    c->out_off == c->out_len)
			ue |= EPOLLIN;
		break;
	case ST_FREE:
		return;
	}
	ep_set(r, c->cfd, &c->cev, ce, ref(REF_CLIENT, slot));
	ep_set(r, c->ufd, &c->uev, ue, ref(REF_UPSTREAM, slot));
}

static void reply_writable(struct jr_relay *r, struct conn *c)
{
	if (flush_buf(c->cfd, c->out, c->out_len, &c->out_off) < 0) {
		conn_free(r, c);
		return;
	}
	if (c->out_off < c->out_len)
		return;
	free(c->out);
	c->out = NULL;
	c->out_len = c->out_off = 0;
	if (c->kind == KIND_DNS_TCP) {
		/* Ready for the next query on this connection. */
		c->st = ST_HEAD;
		c->deadline = jr_clock_ms() + r->cfg.header_timeout_ms;
		want_events(r, c);
		if (c->in_len)
			dns_tcp_input(r, c);
		return;
	}
	/* Half-close, then wait (bounded) for the client's EOF: closing with
	 * unread input would send a RST that can destroy our answer before
	 * the client reads it (RFC 9112 9.6). */
	shutdown(c->cfd, SHUT_WR);
	c->st = ST_LINGER;
	c->deadline = jr_clock_ms() + RELAY_LINGER_MS;
	want_events(r, c);
}

static void linger_readable(struct jr_relay *r, struct conn *c)
{
	char buf[4096];
	ssize_t n = recv(c->cfd, buf, sizeof(buf), 0);

	if (n == 0 || (n < 0 && errno != EAGAIN && errno != EINTR))
		conn_free(r, c);
}

static void client_event(struct jr_relay *r, struct conn *c, uint32_t ev)
{
	switch (c->st) {
	case ST_HEAD:
		head_readable(r, c);
		break;
	case ST_REPLY:
		reply_writable(r, c);
		break;
	case ST_LINGER:
		linger_readable(r, c);
		break;
	case ST_RELAY:
		relay_pump(r, c);
		break;
	default:
		if (ev & (EPOLLERR | EPOLLHUP))
			conn_free(r, c);
		break;
	}
}

static void upstream_event(struct jr_relay *r, struct conn *c, uint32_t ev)
{
	if (c->st == ST_CONNECT) {
		connect_done(r, c);
	} else if (c->st == ST_RELAY && (ev & EPOLLERR)) {
		/* A reset upstream. Pass on what it sent before (the read
		 * that meets the error ends the connection); EPOLLERR is
		 * reported whatever we asked for, so if the client's side is
		 * full and the error is still pending, end it now rather than
		 * wake up for it again and again. */
		uint32_t gen = c->gen;
		int soerr = 0;
		socklen_t len = sizeof(soerr);

		relay_pump(r, c);
		if (c->gen != gen || c->st != ST_RELAY)
			return;
		if (getsockopt(c->ufd, SOL_SOCKET, SO_ERROR, &soerr, &len) <
			0 ||
		    !soerr)
			soerr = ECONNRESET;
		pump_failed(r, c, PUMP_UPSTREAM_FAILED, soerr);
	} else if (c->st == ST_RELAY) {
		relay_pump(r, c);
	}
}

/*
 * Refuse a connection we cannot serve (no slot, or no descriptor): a proxy
 * client gets a 503 built like every other answer, then the connection is
 * closed. Best effort, never blocking: the client may not read. What it
 * already sent is read and dropped first, so the close is a FIN that lets
 * the 503 arrive, not a reset that could destroy it (RFC 9112 9.6).
 */
static void refuse_at_accept(struct jr_relay *r, int fd, enum conn_kind kind,
			     const char *reason, const char *text)
{
	struct jr_audit_record rec = {
		.id = ++r->next_id,
		.via = kind == KIND_PROXY ? "proxy" : "dns",
		.reason = reason,
		.status = kind == KIND_PROXY ? 503 : -1,
	};
	char resp[512], drain[4096];
	int n = jr_http_response(resp, sizeof(resp), 503, reason, text);

	if (kind == KIND_PROXY && n > 0 &&
	    send(fd, resp, (size_t)n, MSG_NOSIGNAL | MSG_DONTWAIT) == n) {
		shutdown(fd, SHUT_WR);
		while (recv(fd, drain, sizeof(drain), MSG_DONTWAIT) > 0) {
			/* dropped: we answered already */
		}
	}
	close(fd);
	jr_audit_connection(r->cfg.audit, &rec);
}

/* Keep one descriptor in hand for refusing connections when out of them. */
static void reserve_take(struct jr_relay *r)
{
	if (r->reserve_fd < 0)
		r->reserve_fd = fcntl(r->stopfd, F_DUPFD_CLOEXEC, 0);
}

static void listeners_arm(struct jr_relay *r, bool on)
{
	struct epoll_event ev = { .events = on ? EPOLLIN : 0 };

	ev.data.u64 = ref(REF_LISTEN_PROXY, 0);
	if (epoll_ctl(r->epfd, EPOLL_CTL_MOD, r->cfg.listeners.proxy, &ev) < 0)
		jr_debug("relay: epoll_ctl: %s", strerror(errno));
	ev.data.u64 = ref(REF_LISTEN_DNS_TCP, 0);
	if (epoll_ctl(r->epfd, EPOLL_CTL_MOD, r->cfg.listeners.dns_tcp, &ev) <
	    0)
		jr_debug("relay: epoll_ctl: %s", strerror(errno));
	r->accept_paused = !on;
}

/*
 * Listen again once a descriptor may be free: called when a connection
 * closes and on every sweep (another thread may have closed one).
 */
static void accept_resume(struct jr_relay *r)
{
	if (!r->accept_paused || r->stopping)
		return;
	reserve_take(r);
	listeners_arm(r, true);
}

/*
 * accept4() failed for lack of descriptors (or kernel memory). The epoll
 * set is level-triggered, so returning with the connection still queued
 * would wake us at once, again and again: a thread spinning at 100% CPU.
 * Instead, give up the reserve descriptor, accept the connection with it,
 * refuse it with a 503 and take the reserve back; if that cannot be done,
 * stop polling the listeners until a connection closes (accept_resume()).
 * Either way each wakeup makes progress or there is none.
 * Return: true to go on accepting.
 */
static bool accept_failed(struct jr_relay *r, int lfd, enum conn_kind kind,
			  int err)
{
	int fd = -1;

	if ((err == EMFILE || err == ENFILE) && r->reserve_fd >= 0) {
		close(r->reserve_fd);
		r->reserve_fd = -1;
		fd = accept4(lfd, NULL, NULL, SOCK_NONBLOCK | SOCK_CLOEXEC);
		if (fd >= 0)
			refuse_at_accept(
			    r, fd, kind, "out-of-fds",
			    "jailrun: out of file descriptors, try again later");
		else
			err = errno;
		reserve_take(r);
		if (fd >= 0 && r->reserve_fd >= 0)
			return true;
		if (fd < 0 && err == EAGAIN)
			return false; /* the queue is empty: nothing to wait for */
	}
	if (!r->accept_warned) /* once: a pause can recur at every close */
		jr_warn(
		    "relay: cannot accept connections (%s); waiting for one "
		    "to close",
		    strerror(err));
	r->accept_warned = true;
	listeners_arm(r, false);
	return false;
}

static void accept_proxy(struct jr_relay *r, int lfd, enum conn_kind kind)
{
	for (int i = 0; i < RELAY_ACCEPT_BATCH && !r->accept_paused; i++) {
		int fd = accept4(lfd, NULL, NULL, SOCK_NONBLOCK | SOCK_CLOEXEC);
		struct conn *c;

		if (fd < 0) {
			if (errno == EMFILE || errno == ENFILE ||
			    errno == ENOBUFS || errno == ENOMEM) {
				if (accept_failed(r, lfd, kind, errno))
					continue;
			}
			return; /* EAGAIN, or an aborted connection */
		}
		c = conn_alloc(r, kind, fd);
		if (!c) {
			refuse_at_accept(
			    r, fd, kind, "connection-limit",
			    "jailrun: too many connections, try again later");
			continue;
		}
		want_events(r, c);
	}
}

static void resolver_results(struct jr_relay *r)
{
	struct jr_resolve_result *res = malloc(sizeof(*res));

	if (!res)
		return;
	while (jr_resolver_take(r->resolver, res) == 1) {
		uint32_t slot = (uint32_t)res->tag;
		uint32_t gen = (uint32_t)(res->tag >> 32) & 0x7fffffff;

		if (res->tag >> 63) {
			if (slot < RELAY_DNS_PENDING && r->dns[slot].used &&
			    (r->dns[slot].gen & 0x7fffffff) == gen)
				dns_resolved(r, (int)slot, res);
		} else if (slot < r->cfg.max_conns) {
			struct conn *c = &r->conns[slot];

			if (c->st == ST_RESOLVE && (c->gen & 0x7fffffff) == gen)
				proxy_resolved(r, c, res);
		}
	}
	free(res);
}

static void sweep(struct jr_relay *r)
{
	uint64_t now = jr_clock_ms();
	uint64_t tick;

	if (read(r->timerfd, &tick, sizeof(tick)) < 0) {
		/* EAGAIN: spurious */
	}
	accept_resume(r);
	for (uint32_t i = 0; i < r->n_fresh; i++) {
		struct conn *c = &r->conns[i];

		switch (c->st) {
		case ST_HEAD:
			if (now >= c->deadline) {
				/* A slow client cannot hold a slot forever. */
				c->reason = "header-timeout";
				c->logged =
				    c->kind == KIND_DNS_TCP || !c->in_len;
				conn_free(r, c);
			}
			break;
		case ST_RESOLVE:
			if (c->kind == KIND_PROXY && now >= c->deadline)
				reply(
				    r, c, 504, NULL, "upstream-timeout", true,
				    "jailrun: resolving %s took longer than %llu ms",
				    c->req.host,
				    (unsigned long long)
					r->cfg.connect_timeout_ms);
			break;
		case ST_CONNECT:
			if (now >= c->deadline) {
				c->last_errno = ETIMEDOUT;
				close_fd(&c->ufd);
				c->uev = UINT32_MAX;
				if (c->next_addr < c->res->n)
					start_connect(r, c);
				else
					reply(
					    r, c, 504, NULL, "upstream-timeout",
					    true,
					    "jailrun: %s port %u (%s) did not answer within %llu ms",
					    c->req.host, c->req.port, c->addr,
					    (unsigned long long)
						r->cfg.connect_timeout_ms);
			}
			break;
		case ST_RELAY:
			if (now - c->t_last >= r->cfg.idle_timeout_ms) {
				c->reason = "idle-timeout";
				conn_free(r, c);
			}
			break;
		case ST_REPLY:
		case ST_LINGER:
			/* A client that does not read its answer, or never
			 * closes, does not keep the slot. */
			if (now >= c->deadline)
				conn_free(r, c);
			break;
		case ST_FREE:
			break;
		}
	}
	for (int i = 0; i < RELAY_DNS_PENDING; i++) {
		struct dns_pending *d = &r->dns[i];

		if (d->used && now >= d->deadline) {
			dns_audit(r, d, true, "resolve-timeout",
				  JR_DNS_RCODE_SERVFAIL);
			dns_answer(r, i, JR_DNS_RCODE_SERVFAIL, NULL, 0);
		}
	}
}

static void *relay_loop(void *arg)
{
	struct jr_relay *r = arg;
	struct epoll_event evs[64];

	/* Named, so its CPU time can be told from the other threads'
	 * (/proc/PID/task/TID/comm; tests watch it). */
	pthread_setname_np(pthread_self(), "jr-relay");

	while (!r->stopping) {
		int n = epoll_wait(r->epfd, evs, (int)ARRAY_SIZE(evs), -1);

		if (n < 0) {
			if (errno == EINTR)
				continue;
			jr_error("relay: epoll_wait: %s", strerror(errno));
			break;
		}
		for (int i = 0; i < n; i++) {
			uint64_t d = evs[i].data.u64;
			uint32_t idx = (uint32_t)d;
			struct conn *c =
			    idx < r->cfg.max_conns ? &r->conns[idx] : NULL;

			switch ((enum ref_type)(d >> 32)) {
			case REF_STOP:
				r->stopping = true;
				break;
			case REF_TIMER:
				sweep(r);
				break;
			case REF_RESOLVER:
				resolver_results(r);
				break;
			case REF_LISTEN_PROXY:
				accept_proxy(r, r->cfg.listeners.proxy,
					     KIND_PROXY);
				break;
			case REF_LISTEN_DNS_TCP:
				accept_proxy(r, r->cfg.listeners.dns_tcp,
					     KIND_DNS_TCP);
				break;
			case REF_DNS_UDP:
				dns_udp_readable(r);
				break;
			case REF_CLIENT:
				if (c && c->st != ST_FREE)
					client_event(r, c, evs[i].events);
				break;
			case REF_UPSTREAM:
				if (c && c->st != ST_FREE)
					upstream_event(r, c, evs[i].events);
				break;
			}
		}
	}
	return NULL;
}

/* ------------------------------------------------------------ setup */

static int add_fd(struct jr_relay *r, int fd, enum ref_type t)
{
	struct epoll_event ev = { .events = EPOLLIN, .data.u64 = ref(t, 0) };

	return epoll_ctl(r->epfd, EPOLL_CTL_ADD, fd, &ev) < 0 ? -errno : 0;
}

static void relay_free(struct jr_relay *r)
{
	if (r->conns)
		for (uint32_t i = 0; i < r->n_fresh; i++)
			conn_free(r, &r->conns[i]);
	free(r->conns);
	jr_resolver_stop(r->resolver);
	jr_localaddr_close(r->localaddr);
	close_fd(&r->cfg.listeners.proxy);
	close_fd(&r->cfg.listeners.dns_udp);
	close_fd(&r->cfg.listeners.dns_tcp);
	close_fd(&r->epfd);
	close_fd(&r->stopfd);
	close_fd(&r->timerfd);
	close_fd(&r->reserve_fd);
	free(r);
}

int jr_relay_start(const struct jr_relay_config *cfg, struct jr_relay **out,
		   struct jr_err *err)
{
	struct jr_relay *r = calloc(1, sizeof(*r));
	struct itimerspec its = {
		.it_interval.tv_nsec = RELAY_SWEEP_MS * 1000000L,
		.it_value.tv_nsec = RELAY_SWEEP_MS * 1000000L,
	};
	sigset_t all, old;
	int e;

	if (!r) {
		close(cfg->listeners.proxy);
		close(cfg->listeners.dns_udp);
		close(cfg->listeners.dns_tcp);
		return jr_err_set(err, ENOMEM, "out of memory");
	}
	r->cfg = *cfg;
	r->epfd = r->stopfd = r->timerfd = r->reserve_fd = -1;
	r->free_head = NO_SLOT;
	/* calloc: untouched pages stay unallocated until a slot is used
	 * (n_fresh). */
	r->conns = calloc(cfg->max_conns, sizeof(*r->conns));
	if (!r->conns) {
		relay_free(r);
		return jr_err_set(err, ENOMEM,
				  "out of memory for %u relay connections",
				  cfg->max_conns);
	}
	r->epfd = epoll_create1(EPOLL_CLOEXEC);
	r->stopfd = eventfd(0, EFD_CLOEXEC | EFD_NONBLOCK);
	r->timerfd =
	    timerfd_create(CLOCK_MONOTONIC, TFD_CLOEXEC | TFD_NONBLOCK);
	if (r->epfd < 0 || r->stopfd < 0 || r->timerfd < 0 ||
	    timerfd_settime(r->timerfd, 0, &its, NULL) < 0) {
		e = errno;
		relay_free(r);
		return jr_err_set(err, e, "cannot set up the relay: %s",
				  strerror(e));
	}
	reserve_take(r);
	if (r->reserve_fd < 0) {
		e = errno;
		relay_free(r);
		return jr_err_set(err, e,
				  "cannot set up the relay: %s; raise the file "
				  "descriptor limit (ulimit -n)",
				  strerror(e));
	}
	e = jr_resolver_start(RELAY_RESOLVER_THREADS, &r->resolver, err);
	if (e < 0) {
		relay_free(r);
		return e;
	}
	/* Opened here, in the runner's netns: where upstream sockets live. */
	e = jr_localaddr_open(&r->localaddr, err);
	if (e < 0) {
		relay_free(r);
		return e;
	}
	if ((e = add_fd(r, r->stopfd, REF_STOP)) < 0 ||
	    (e = add_fd(r, r->timerfd, REF_TIMER)) < 0 ||
	    (e = add_fd(r, jr_resolver_fd(r->resolver), REF_RESOLVER)) < 0 ||
	    (e = add_fd(r, cfg->listeners.proxy, REF_LISTEN_PROXY)) < 0 ||
	    (e = add_fd(r, cfg->listeners.dns_tcp, REF_LISTEN_DNS_TCP)) < 0 ||
	    (e = add_fd(r, cfg->listeners.dns_udp, REF_DNS_UDP)) < 0) {
		relay_free(r);
		return jr_err_set(err, -e, "cannot set up the relay: %s",
				  strerror(-e));
	}

	/* The relay thread must never take the runner's signals. */
	sigfillset(&all);
	pthread_sigmask(SIG_SETMASK, &all, &old);
	e = pthread_create(&r->thread, NULL, relay_loop, r);
	pthread_sigmask(SIG_SETMASK, &old, NULL);
	if (e) {
		relay_free(r);
		return jr_err_set(err, e, "cannot start the relay thread: %s",
				  strerror(e));
	}
	r->thread_started = true;
	*out = r;
	return 0;
}

void jr_relay_stop(struct jr_relay *r)
{
	uint64_t one = 1;

	if (!r)
		return;
	if (r->thread_started) {
		if (write(r->stopfd, &one, sizeof(one)) < 0) {
			/* cannot happen on a fresh eventfd; the join would hang */
		}
		pthread_join(r->thread, NULL);
	}
	relay_free(r);
}
