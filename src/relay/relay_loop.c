// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * relay_loop.c - the relay thread (see relay.h): the loop, the slots, the
 * sweep.
 *
 * Theory of operation
 *
 * One thread, one epoll instance, level-triggered, non-blocking sockets.
 * Every registration carries a typed reference in epoll_data.u64 (union
 * relay_ref in relay_loop.h: a type and a slot index) and relay_loop()
 * dispatches on the type in one switch. Resolver jobs carry the same
 * union as their tag, with the slot's generation in it. Connections live
 * in a table of --max-conns slots allocated once; a slot's generation
 * counter is bumped when it is freed, so a resolver result that arrives
 * for a slot that has since been reused is recognised and dropped.
 *
 * The modules around this loop (relay_loop.h draws their layers) are
 * reached through tables only: a connection's kind gives its struct
 * relay_ops, an epoll reference's type (or a resolver tag's) the struct
 * relay_module that owns it. This file names none of them but in those
 * tables. It owns what they share: a connection's slot and its events,
 * its HEAD state reads, its answers (relay_reply(), REPLY, LINGER), the
 * timeouts, accepting, and the audit line, which relay_audit() alone
 * writes.
 *
 * Refusals are answered, never left hanging (relay_reply() builds every
 * answer); out of memory, out_of_memory() says why 503. A timer sweeps
 * the slots four times a second for header, connect and idle timeouts.
 *
 * Out of file descriptors: one spare descriptor is held from the start.
 * When accept4() fails with EMFILE, the spare is closed, the waiting
 * connection is accepted with it, answered 503 and closed, and the spare
 * is taken back; if even that fails, the listeners are taken out of the
 * epoll set's interest until a connection closes. A level-triggered
 * listener left armed with a queued connection we cannot accept would wake
 * the thread forever (100% CPU).
 */
#include <errno.h>
#include <fcntl.h>
#include <malloc.h>
#include <pthread.h>
#include <signal.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/epoll.h>
#include <sys/eventfd.h>
#include <sys/socket.h>
#include <sys/timerfd.h>
#include <time.h>
#include <unistd.h>

#include "buf.h"
#include "cleanup.h"
#include "clock.h"
#include "fdlimit.h"
#include "localaddr.h"
#include "log.h"
#include "relay_loop.h"
#include "selfcheck.h"

#define NO_SLOT UINT32_MAX

/* Each connection kind's handlers (relay_loop.h, the registry). */
static const struct relay_ops *const kind_ops[] = {
	[KIND_PROXY] = &relay_proxy_ops,
	[KIND_DNS_TCP] = &relay_dns_tcp_ops,
	[KIND_TRANSPARENT] = &relay_transparent_ops,
	[KIND_LANE] = &relay_lane_ops,
	[KIND_PUBLISH] = &relay_lane_ops,
};

/* The module that owns each epoll reference type and resolver tag the
 * loop does not handle itself. */
static const struct relay_module *const ref_module[] = {
	[REF_FACTORY] = &relay_lane_module,
	[REF_DNS_UDP] = &relay_dns_module,
	[REF_CONTROL_LISTEN] = &relay_control_module,
	[REF_CONTROL_CLIENT] = &relay_control_module,
	[REF_RESOLVE_DNS] = &relay_dns_module,
};

/* Every module, in the order they start (and are swept and stopped). */
static const struct relay_module *const modules[] = {
	&relay_lane_module,   &relay_control_module, &relay_dns_module,
	&relay_tunnel_module, &relay_ask_module,
};

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

uint32_t relay_slot_of(const struct jr_relay *r, const struct conn *c)
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
	c->ops = kind_ops[kind];
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

static const char *via_name(enum conn_kind kind)
{
	switch (kind) {
	case KIND_PROXY:
		return "proxy";
	case KIND_TRANSPARENT:
		return "transparent";
	case KIND_LANE:
		return "lane";
	case KIND_PUBLISH:
		return "publish";
	case KIND_DNS_TCP:
	case KIND_DNS_UDP:
	default:
		return "dns";
	}
}

/*
 * relay_audit - write the audit line of a connection or DNS query: the one
 * place a line is written, so every kind says "via", and its duration, the
 * same way.
 * @kind: who: sets rec->via
 * @rec: the record, without via and duration_ms
 * @t_start: when the connection or query began (jr_clock_ms())
 */
void relay_audit(struct jr_relay *r, enum conn_kind kind,
		 struct jr_audit_record *rec, uint64_t t_start)
{
	rec->via = via_name(kind);
	rec->duration_ms = jr_clock_ms() - t_start;
	jr_audit_connection(r->cfg.audit, rec);
}

/*
 * relay_audit_conn - audit @c now (once: it is marked logged). A DNS/TCP
 * connection is not itself audited: each of its queries is.
 */
void relay_audit_conn(struct jr_relay *r, struct conn *c)
{
	struct jr_audit_record rec = {
		.id = c->id,
		.method = c->have_req ? c->req.method : NULL,
		.host = c->host,
		.port = c->port,
		.address = c->addr[0] ? c->addr : NULL,
		.original = c->original[0] ? c->original : NULL,
		.allowed = c->allowed,
		.reason = c->reason,
		.status = c->status,
		.bytes_up = c->bytes_up,
		.bytes_down = c->bytes_down,
	};

	c->logged = true;
	if (c->kind != KIND_DNS_TCP)
		relay_audit(r, c->kind, &rec, c->t_start);
}

void relay_close_fd(int *fd)
{
	if (*fd >= 0)
		close(*fd);
	*fd = -1;
}

static void accept_resume(struct jr_relay *r);

void relay_conn_free(struct jr_relay *r, struct conn *c)
{
	if (c->st == ST_FREE)
		return;
	if (c->st == ST_HELD && !c->reason)
		c->reason = "ask-abandoned"; /* the client left, or the run */
	if (!c->logged)
		relay_audit_conn(r, c);
	if (c->ask_id) /* no longer waiting for the decision */
		relay_ask_leave(r, c->ask_id);
	c->ask_id = 0;
	/* close() removes the fds from the epoll set. */
	relay_close_fd(&c->cfd);
	relay_close_fd(&c->ufd);
	if (c->ops->release) /* a tunnel's pipes, a DNS/TCP query's slot */
		c->ops->release(r, c);
	free(c->in);
	free(c->out);
	free(c->up);
	free(c->res);
	if (c->have_req)
		jr_http_request_release(&c->req);
	c->in = c->out = c->up = NULL;
	c->res = NULL;
	c->st = ST_FREE;
	c->gen++;
	c->next_free = r->free_head;
	r->free_head = relay_slot_of(r, c);
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

/* Queue @len bytes for the client (copied). */
int relay_queue_out(struct conn *c, const void *buf, size_t len)
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

/*
 * relay_reply - answer @c ourselves and close after (REPLY -> LINGER): the
 * one place an answer is built (jr_http_response()). A connection with no
 * protocol to answer in (its ops' refuse(), unless its first bytes were an
 * HTTP request) is ended that way instead, with the same audit fields.
 * @status: the HTTP status, also the audit line's
 * @deny_tag: X-Jailrun-Deny, or NULL
 * @reason: the audit reason
 * @allowed: the policy's verdict
 * @fmt: the one-line body (--deny-message goes under a 403's)
 */
void relay_reply(struct jr_relay *r, struct conn *c, int status,
		 const char *deny_tag, const char *reason, bool allowed,
		 const char *fmt, ...)
{
	/* Room for the longest host, its reason and --deny-message. */
	char body[1024], resp[1536];
	va_list ap;
	int n;

	if (c->ops->refuse && !c->answer_http) {
		c->ops->refuse(r, c, status, reason, allowed);
		return;
	}
	va_start(ap, fmt);
	vsnprintf(body, sizeof(body), fmt, ap);
	va_end(ap);
	/* --deny-message: on a line of its own under every refusal. */
	if (status == 403 && r->cfg.deny_message)
		snprintf(body + strlen(body), sizeof(body) - strlen(body),
			 "\n%s", r->cfg.deny_message);
	n = jr_http_response(resp, sizeof(resp), status, deny_tag, body);
	c->status = status;
	c->reason = reason;
	c->allowed = allowed;
	relay_close_fd(&c->ufd);
	c->uev = UINT32_MAX;
	if (n < 0 || relay_queue_out(c, resp, (size_t)n) < 0) {
		relay_conn_free(r, c);
		return;
	}
	relay_audit_conn(r, c);
	c->st = ST_REPLY;
	c->deadline = jr_clock_ms() + RELAY_LINGER_MS;
	relay_want_events(r, c);
}

/**
 * relay_conn_reset() - refuse @c with a TCP reset and audit it: how a
 * connection with no protocol to answer in is refused (captured
 * connections, lanes).
 * @r: relay
 * @c: the connection, before any of its bytes went upstream
 * @reason: the audit reason
 * @allowed: the policy's verdict (true when the refusal is a failure of
 *	an allowed connection, e.g. the upstream did not answer)
 */
void relay_conn_reset(struct jr_relay *r, struct conn *c, const char *reason,
		      bool allowed)
{
	static const struct linger reset = { .l_onoff = 1, .l_linger = 0 };

	c->reason = reason;
	c->allowed = allowed;
	if (setsockopt(c->cfd, SOL_SOCKET, SO_LINGER, &reset, sizeof(reset)) <
	    0) {
		/* then the client sees a FIN: still refused, still at once */
	}
	relay_conn_free(r, c);
}

/*
 * relay_refuse_reset - a refuse() for struct relay_ops: relay_reply() on
 * such a connection resets it instead, audited with @status and @reason.
 */
void relay_refuse_reset(struct jr_relay *r, struct conn *c, int status,
			const char *reason, bool allowed)
{
	relay_close_fd(&c->ufd);
	c->uev = UINT32_MAX;
	c->status = status;
	relay_conn_reset(r, c, reason, allowed);
}

/**
 * relay_hold_conn() - hold @c for an operator's decision (--ask): no
 * event but its client's hang-up is watched and no timeout of the sweep
 * applies until relay_held_release() hands it to its ops' asked().
 * @r: relay
 * @c: the connection, decided on by the policy, nothing sent upstream
 * @ask_id: its request in r->ask (relay_ask.c made it)
 * @why: the policy's refusal, given if it is not approved
 */
void relay_hold_conn(struct jr_relay *r, struct conn *c, uint64_t ask_id,
		     enum jr_deny_reason why)
{
	c->ask_id = ask_id;
	c->ask_why = why;
	c->st = ST_HELD;
	relay_want_events(r, c);
}

void relay_audit_event(struct jr_relay *r, const char *event, const char *fmt,
		       ...)
{
	char detail[640];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(detail, sizeof(detail), fmt, ap);
	va_end(ap);
	if (r->cfg.audit)
		jr_audit_event(r->cfg.audit, event, detail);
	jr_verbose("%s: %s", event, detail);
}

/* --ask tty: tell the runner's prompt (askprompt.c) the held set changed.
 * Never blocks: a counter already past zero says the same. */
void relay_ask_notify(struct jr_relay *r)
{
	uint64_t one = 1;

	if (r->cfg.ask_notify >= 0 &&
	    write(r->cfg.ask_notify, &one, sizeof(one)) < 0) {
		/* EAGAIN: the counter is full, the runner will look anyway */
	}
}

void relay_ask_leave(struct jr_relay *r, uint64_t id)
{
	if (!r->ask)
		return;
	jr_ask_leave(r->ask, id);
	relay_ask_notify(r); /* the last waiter gone: no longer held */
}

/**
 * relay_held_release() - everything held as request @ask_id was decided
 * @v: each held connection goes to its ops' asked(), each module's own
 * (the DNS forwarder's queries) to the module's asked().
 * Return: how many connections were released (modules' items not
 * counted).
 */
unsigned relay_held_release(struct jr_relay *r, uint64_t ask_id,
			    enum relay_ask_verdict v)
{
	unsigned n = 0;

	for (uint32_t i = 0; i < r->n_fresh; i++) {
		struct conn *c = &r->conns[i];

		if (c->st != ST_HELD || c->ask_id != ask_id)
			continue;
		c->ask_id = 0; /* decided: it leaves the table with it */
		c->st = ST_HEAD;
		n++;
		if (c->ops->asked)
			c->ops->asked(r, c, v);
		else
			relay_conn_free(r, c);
	}
	for (size_t i = 0; i < ARRAY_SIZE(modules); i++)
		if (modules[i]->asked)
			modules[i]->asked(r, ask_id, v);
	return n;
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
void relay_out_of_memory(struct jr_relay *r, struct conn *c)
{
	if (c->kind == KIND_PROXY && c->st != ST_RELAY && c->st != ST_REPLY &&
	    c->st != ST_LINGER) {
		relay_reply(r, c, 503, NULL, "out-of-memory", true,
			    "jailrun: out of memory, try again");
		return;
	}
	c->reason = "out-of-memory";
	relay_conn_free(r, c);
}

/* ------------------------------------------------------------ buffers */

/* Send what is left of @buf; 0 when done or the socket is full, -1 on error. */
int relay_flush_buf(int fd, const char *buf, size_t len, size_t *off)
{
	while (*off < len) {
		ssize_t n = send(fd, buf + *off, len - *off, MSG_NOSIGNAL);

		if (n < 0)
			return errno == EAGAIN || errno == EINTR ? 0 : -1;
		*off += (size_t)n;
	}
	return 0;
}

/*
 * Make room in the client input buffer for at least one more read:
 * doubling from RELAY_HEAD_CHUNK, never beyond @limit (the caller notices a
 * full buffer). Return: 0 or -ENOMEM.
 */
int relay_grow_in(struct conn *c, size_t limit)
{
	size_t need = c->in_len + RELAY_HEAD_CHUNK;

	return jr_buf_reserve(&c->in, &c->in_cap, need < limit ? need : limit,
			      RELAY_HEAD_CHUNK, limit);
}

/* Read what the client sent in HEAD state (proxy or DNS/TCP). */
static void head_readable(struct jr_relay *r, struct conn *c)
{
	/* A proxy head, or a captured connection's first bytes (an HTTP
	 * head or a TLS hello, both at most 64 KiB), or a DNS query. */
	size_t limit =
	    c->kind == KIND_DNS_TCP ? 2 + JR_DNS_UDP_MAX : JR_HTTP_HEAD_MAX + 1;
	size_t before = c->in_len;
	ssize_t n;

	if (relay_grow_in(c, limit) < 0) {
		relay_out_of_memory(r, c);
		return;
	}
	n = recv(c->cfd, c->in + c->in_len, c->in_cap - c->in_len, 0);
	if (n < 0) {
		if (errno != EAGAIN && errno != EINTR)
			relay_conn_free(r, c);
		return;
	}
	if (n == 0 && c->ops->client_eof && c->in_len) {
		/* first bytes that decided nothing yet, and no more to come */
		c->ops->client_eof(r, c);
		return;
	}
	if (n == 0) {
		/* idle close; a captured connection is audited anyway: it
		 * was decided on at accept */
		c->logged = c->kind == KIND_DNS_TCP ||
			    (c->in_len == 0 && c->kind != KIND_TRANSPARENT);
		relay_conn_free(r, c);
		return;
	}
	c->in_len += (size_t)n;
	c->t_last = jr_clock_ms();
	c->ops->head(r, c, before);
}

/* ------------------------------------------------------------ events */

void relay_want_events(struct jr_relay *r, struct conn *c)
{
	uint32_t ce = 0, ue = 0;
	uint32_t slot = relay_slot_of(r, c);

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
	case ST_HELD:
		/* Only a hang-up: what the client sends meanwhile stays in
		 * the kernel for after the decision. */
		ce = EPOLLRDHUP;
		break;
	case ST_RELAY:
		if (c->out_off < c->out_len || c->uc_pending)
			ce |= EPOLLOUT;
		if (c->up_off < c->up_len || c->cu_pending)
			ue |= EPOLLOUT;
		if (c->sni_pending) {
			if (c->out_off == c->out_len)
				ce |= EPOLLIN;
		} else if (c->tunnel) {
			if (!c->c_eof &&
			    relay_pipe_room(c->pipe_cu, c->cu_pending,
					    c->cu_size) &&
			    c->up_off == c->up_len)
				ce |= EPOLLIN;
		} else if (!c->c_done && c->up_off == c->up_len) {
			ce |= EPOLLIN;
		}
		if (!c->u_eof &&
		    relay_pipe_room(c->pipe_uc, c->uc_pending, c->uc_size) &&
		    c->out_off == c->out_len)
			ue |= EPOLLIN;
		break;
	case ST_FREE:
		return;
	}
	ep_set(r, c->cfd, &c->cev, ce, relay_ref(REF_CLIENT, slot, 0));
	ep_set(r, c->ufd, &c->uev, ue, relay_ref(REF_UPSTREAM, slot, 0));
}

static void reply_writable(struct jr_relay *r, struct conn *c)
{
	if (relay_flush_buf(c->cfd, c->out, c->out_len, &c->out_off) < 0) {
		relay_conn_free(r, c);
		return;
	}
	if (c->out_off < c->out_len)
		return;
	free(c->out);
	c->out = NULL;
	c->out_len = c->out_off = 0;
	if (c->ops->replied) {
		c->ops->replied(r, c);
		return;
	}
	/* Half-close, then wait (bounded) for the client's EOF: closing with
	 * unread input would send a RST that can destroy our answer before
	 * the client reads it (RFC 9112 9.6). */
	shutdown(c->cfd, SHUT_WR);
	c->st = ST_LINGER;
	c->deadline = jr_clock_ms() + RELAY_LINGER_MS;
	relay_want_events(r, c);
}

static void linger_readable(struct jr_relay *r, struct conn *c)
{
	char buf[4096];
	ssize_t n = recv(c->cfd, buf, sizeof(buf), 0);

	if (n == 0 || (n < 0 && errno != EAGAIN && errno != EINTR))
		relay_conn_free(r, c);
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
		if (c->ops->pump)
			c->ops->pump(r, c);
		break;
	case ST_HELD:
		/* The client ended its side while held: it is gone, as a
		 * proxy client that ends its side before an answer is. */
		c->reason = "ask-abandoned";
		relay_conn_free(r, c);
		break;
	default:
		if (ev & (EPOLLERR | EPOLLHUP))
			relay_conn_free(r, c);
		break;
	}
}

static void upstream_event(struct jr_relay *r, struct conn *c, uint32_t ev)
{
	if (c->st == ST_CONNECT && c->ops->connect_done) {
		c->ops->connect_done(r, c);
	} else if (c->st == ST_RELAY && (ev & EPOLLERR) &&
		   c->ops->upstream_error) {
		c->ops->upstream_error(r, c);
	} else if (c->st == ST_RELAY && c->ops->pump) {
		c->ops->pump(r, c);
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
	relay_audit(r, kind, &rec, jr_clock_ms());
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

	ev.data.u64 = relay_ref(REF_LISTEN_PROXY, 0, 0);
	if (epoll_ctl(r->epfd, EPOLL_CTL_MOD, r->cfg.listeners.proxy, &ev) < 0)
		jr_debug("relay: epoll_ctl: %s", strerror(errno));
	ev.data.u64 = relay_ref(REF_LISTEN_DNS_TCP, 0, 0);
	if (epoll_ctl(r->epfd, EPOLL_CTL_MOD, r->cfg.listeners.dns_tcp, &ev) <
	    0)
		jr_debug("relay: epoll_ctl: %s", strerror(errno));
	ev.data.u64 = relay_ref(REF_LISTEN_TRANSPARENT, 0, 0);
	if (r->cfg.listeners.transparent >= 0 &&
	    epoll_ctl(r->epfd, EPOLL_CTL_MOD, r->cfg.listeners.transparent,
		      &ev) < 0)
		jr_debug("relay: epoll_ctl: %s", strerror(errno));
	ev.data.u64 = relay_ref(REF_LISTEN_TRANSPARENT6, 0, 0);
	if (r->cfg.listeners.transparent6 >= 0 &&
	    epoll_ctl(r->epfd, EPOLL_CTL_MOD, r->cfg.listeners.transparent6,
		      &ev) < 0)
		jr_debug("relay: epoll_ctl: %s", strerror(errno));
	for (size_t i = 0; i < ARRAY_SIZE(modules); i++)
		if (modules[i]->arm)
			modules[i]->arm(r, on);
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
 * Say why connections are refused or wait, once (it can recur at every
 * connection and every close). Out of descriptors, the numbers and the fix
 * (fdlimit.c): raising the limit or lowering --max-conns is up to the user.
 */
static void accept_warn(struct jr_relay *r, int err)
{
	char why[512];

	if (r->accept_warned)
		return;
	r->accept_warned = true;
	if (err != EMFILE) {
		jr_warn(
		    "relay: cannot accept connections (%s); waiting for one to close",
		    strerror(err));
		return;
	}
	jr_fds_explain_current(why, sizeof(why), r->cfg.max_conns);
	jr_warn(
	    "relay: out of file descriptors: new connections get a 503 or wait until one closes; %s",
	    why);
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

	accept_warn(r, err);
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
	listeners_arm(r, false);
	return false;
}

static void accept_conns(struct jr_relay *r, int lfd, enum conn_kind kind,
			 uint32_t idx)
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
		if (c->ops->accepted)
			c->ops->accepted(r, c, idx);
		else
			relay_want_events(r, c);
	}
}

/* The module that owns @ref's type, or NULL (the loop's own). */
static const struct relay_module *module_of(union relay_ref ref)
{
	return ref.type < ARRAY_SIZE(ref_module) ? ref_module[ref.type] : NULL;
}

/* Hand each resolver result to the slot it was asked for, if still there. */
static void resolver_results(struct jr_relay *r)
{
	struct jr_resolve_result *res = malloc(sizeof(*res));

	if (!res)
		return;
	while (jr_resolver_take(r->resolver, res) == 1) {
		union relay_ref ref = { .u64 = res->tag };
		const struct relay_module *m = module_of(ref);

		if (m && m->resolved) {
			m->resolved(r, ref, res);
		} else if (ref.type == REF_RESOLVE_CONN &&
			   ref.slot < r->cfg.max_conns) {
			struct conn *c = &r->conns[ref.slot];

			if (c->st == ST_RESOLVE &&
			    relay_ref_gen_is(ref, c->gen) && c->ops->resolved)
				c->ops->resolved(r, c, res);
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
			if (now >= c->deadline && c->ops->head_timeout) {
				c->ops->head_timeout(r, c);
			} else if (now >= c->deadline) {
				/* A slow client cannot hold a slot forever. */
				c->reason = "header-timeout";
				c->logged =
				    c->kind == KIND_DNS_TCP || !c->in_len;
				relay_conn_free(r, c);
			}
			break;
		case ST_RESOLVE:
			if (c->kind != KIND_DNS_TCP && now >= c->deadline)
				relay_reply(
				    r, c, 504, NULL, "upstream-timeout", true,
				    "jailrun: resolving %s took longer than %llu ms",
				    c->host,
				    (unsigned long long)
					r->cfg.connect_timeout_ms);
			break;
		case ST_CONNECT:
			if (now >= c->deadline && c->ops->connect_timeout)
				c->ops->connect_timeout(r, c);
			break;
		case ST_RELAY:
			if (now - c->t_last >= r->cfg.idle_timeout_ms) {
				c->reason = "idle-timeout";
				relay_conn_free(r, c);
			}
			break;
		case ST_REPLY:
		case ST_LINGER:
			/* A client that does not read its answer, or never
			 * closes, does not keep the slot. */
			if (now >= c->deadline)
				relay_conn_free(r, c);
			break;
		case ST_HELD: /* the held table's deadline (relay_ask.c) */
		case ST_FREE:
			break;
		}
	}
	for (size_t i = 0; i < ARRAY_SIZE(modules); i++)
		if (modules[i]->sweep)
			modules[i]->sweep(r, now);
	/* A flood's count is written soon after it stops (audit.c). */
	if (r->cfg.audit)
		jr_audit_flush_expired(r->cfg.audit);
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
			union relay_ref ref = { .u64 = evs[i].data.u64 };
			struct conn *c = ref.slot < r->cfg.max_conns
					     ? &r->conns[ref.slot]
					     : NULL;

			switch ((enum relay_ref_type)ref.type) {
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
				accept_conns(r, r->cfg.listeners.proxy,
					     KIND_PROXY, 0);
				break;
			case REF_LISTEN_DNS_TCP:
				accept_conns(r, r->cfg.listeners.dns_tcp,
					     KIND_DNS_TCP, 0);
				break;
			case REF_LISTEN_TRANSPARENT:
				accept_conns(r, r->cfg.listeners.transparent,
					     KIND_TRANSPARENT, 0);
				break;
			case REF_LISTEN_TRANSPARENT6:
				accept_conns(r, r->cfg.listeners.transparent6,
					     KIND_TRANSPARENT, 0);
				break;
			case REF_LISTEN_LANE:
				if (ref.slot < JR_LANE_MAX)
					accept_conns(
					    r, r->cfg.lane_listen[ref.slot],
					    KIND_LANE, ref.slot);
				break;
			case REF_LISTEN_LANE_LOCAL:
				if (ref.slot < JR_LANE_MAX)
					accept_conns(
					    r, r->cfg.lane_local[ref.slot],
					    KIND_LANE, ref.slot);
				break;
			case REF_LISTEN_LANE_LOCAL6:
				if (ref.slot < JR_LANE_MAX)
					accept_conns(
					    r, r->cfg.lane_local6[ref.slot],
					    KIND_LANE, ref.slot);
				break;
			case REF_LISTEN_PUBLISH:
				if (ref.slot < JR_PUBLISH_MAX)
					accept_conns(
					    r, r->cfg.publish_listen[ref.slot],
					    KIND_PUBLISH, ref.slot);
				break;
			case REF_FACTORY:
			case REF_DNS_UDP:
			case REF_CONTROL_LISTEN:
			case REF_CONTROL_CLIENT:
				module_of(ref)->event(r, ref, evs[i].events);
				break;
			case REF_CLIENT:
				if (c && c->st != ST_FREE)
					client_event(r, c, evs[i].events);
				break;
			case REF_UPSTREAM:
				if (c && c->st != ST_FREE)
					upstream_event(r, c, evs[i].events);
				break;
			case REF_RESOLVE_CONN:
			case REF_RESOLVE_DNS:
				break; /* resolver tags, never registered */
			}
		}
	}
	return NULL;
}

/* ------------------------------------------------------------ setup */

static int add_fd(struct jr_relay *r, int fd, enum relay_ref_type t)
{
	struct epoll_event ev = { .events = EPOLLIN,
				  .data.u64 = relay_ref(t, 0, 0) };

	return epoll_ctl(r->epfd, EPOLL_CTL_ADD, fd, &ev) < 0 ? -errno : 0;
}

static void relay_free(struct jr_relay *r)
{
	if (r->conns)
		for (uint32_t i = 0; i < r->n_fresh; i++)
			relay_conn_free(r, &r->conns[i]);
	free(r->conns);
	for (size_t i = 0; i < ARRAY_SIZE(modules); i++)
		if (modules[i]->stop)
			modules[i]->stop(r);
	jr_resolver_stop(r->resolver);
	jr_localaddr_close(r->localaddr);
	relay_close_fd(&r->cfg.listeners.proxy);
	relay_close_fd(&r->cfg.listeners.dns_udp);
	relay_close_fd(&r->cfg.listeners.dns_tcp);
	relay_close_fd(&r->cfg.listeners.transparent);
	relay_close_fd(&r->cfg.listeners.transparent6);
	relay_close_fd(&r->epfd);
	relay_close_fd(&r->stopfd);
	relay_close_fd(&r->timerfd);
	relay_close_fd(&r->reserve_fd);
	/* The thread has ended (or never ran): no lock needed. */
	if (r->fakeip && r->cfg.audit)
		r->cfg.audit->synthetic_names = jr_fakeip_count(r->fakeip);
	jr_fakeip_free(r->fakeip);
	free(r);
}

int jr_relay_start(const struct jr_relay_config *cfg, struct jr_relay **out,
		   struct jr_err *err)
{
	struct jr_relay *r = calloc(1, sizeof(*r));
	struct jr_fakeip *fakeip = cfg->fakeip;
	struct itimerspec its = {
		.it_interval.tv_nsec = RELAY_SWEEP_MS * 1000000L,
		.it_value.tv_nsec = RELAY_SWEEP_MS * 1000000L,
	};
	sigset_t all, old;
	int e;

	if (!r) {
		jr_fakeip_free(fakeip);
		close(cfg->listeners.proxy);
		close(cfg->listeners.dns_udp);
		close(cfg->listeners.dns_tcp);
		if (cfg->listeners.transparent >= 0)
			close(cfg->listeners.transparent);
		if (cfg->listeners.transparent6 >= 0)
			close(cfg->listeners.transparent6);
		if (cfg->control)
			close(cfg->control_fd);
		if (cfg->ask_client >= 0)
			close(cfg->ask_client);
		return jr_err_set(err, ENOMEM, "out of memory");
	}
	r->cfg = *cfg;
	r->cfg.fakeip = NULL; /* owned as r->fakeip */
	if (cfg->transparent)
		r->fakeip = fakeip;
	else
		jr_fakeip_free(fakeip);
	if (!cfg->control)
		r->cfg.control_fd = -1;
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
	/* The whole pool (JR_FAKEIP_V4_NAMES); memory grows with use only. */
	if (cfg->transparent && !r->fakeip &&
	    jr_fakeip_new(0, &r->fakeip) < 0) {
		relay_free(r);
		return jr_err_set(err, ENOMEM,
				  "out of memory for the synthetic addresses");
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
	    (e = add_fd(r, cfg->listeners.dns_udp, REF_DNS_UDP)) < 0 ||
	    (cfg->listeners.transparent >= 0 &&
	     (e = add_fd(r, cfg->listeners.transparent,
			 REF_LISTEN_TRANSPARENT)) < 0) ||
	    (cfg->listeners.transparent6 >= 0 &&
	     (e = add_fd(r, cfg->listeners.transparent6,
			 REF_LISTEN_TRANSPARENT6)) < 0)) {
		relay_free(r);
		return jr_err_set(err, -e, "cannot set up the relay: %s",
				  strerror(-e));
	}
	for (size_t i = 0; i < ARRAY_SIZE(modules); i++) {
		if (modules[i]->start && (e = modules[i]->start(r, err)) < 0) {
			relay_free(r);
			return e;
		}
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
