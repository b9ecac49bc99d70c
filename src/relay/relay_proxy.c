// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * relay_proxy.c - the HTTP proxy's request path, on the relay thread.
 *
 * Theory of operation
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
 *          then the response until the upstream closes (relay_tunnel.c).
 *
 * The relay connects to the very address the guard checked: resolution
 * happens once, in the relay's resolver, and the sockaddr that passed
 * jr_policy_check_address() is the one given to connect(2). From RESOLVE
 * to CONNECT the path knows only c->host and c->port, not the HTTP
 * request (relay_upstream_start()), so any connection whose destination
 * name is decided can take it: that is how transparent capture connects
 * (relay-internal.h).
 *
 * Refusals are answered, never left hanging: 403 with X-Jailrun-Deny and a
 * one-line body saying why, 400 for a malformed request, 502 when the
 * upstream refuses, 504 when it does not answer in time, 503 when every
 * slot is taken, when no file descriptor is left, or when memory runs out
 * (relay_out_of_memory() says why 503). Every answer is built by
 * jr_http_response() in relay_reply().
 */
#include <arpa/inet.h>
#include <errno.h>
#include <netdb.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#include "clock.h"
#include "localaddr.h"
#include "log.h"
#include "relay-internal.h"
#include "selfcheck.h"

/* Answer the proxy client ourselves and close after (REPLY -> LINGER). */
void relay_reply(struct jr_relay *r, struct conn *c, int status,
		 const char *deny_tag, const char *reason, bool allowed,
		 const char *fmt, ...)
{
	/* Room for the longest host, its reason and --deny-message. */
	char body[1024], resp[1536];
	va_list ap;
	int n;

	/* A captured connection has no protocol to answer in, unless its
	 * first bytes were an HTTP request: then it gets this answer. */
	if ((c->kind == KIND_TRANSPARENT && !c->answer_http) ||
	    c->kind == KIND_LANE || c->kind == KIND_PUBLISH) {
		relay_transparent_refuse(r, c, status, reason, allowed);
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
	case JR_DENY_MANAGED:
		return "is denied by the administrator's managed policy";
	case JR_DENY_NOT_ALLOWED:
	default:
		return "is not in the allowlist";
	}
}

static void deny(struct jr_relay *r, struct conn *c, enum jr_deny_reason why)
{
	relay_reply(r, c, 403, jr_deny_reason_name(why),
		    jr_deny_reason_name(why), false, "jailrun: %s %s", c->host,
		    deny_text(why));
}

/* Literal host: no resolution, but the same guard. */
bool relay_literal_address(const char *host, struct sockaddr_storage *ss,
			   socklen_t *len)
{
	struct sockaddr_in *sin = (struct sockaddr_in *)ss;
	struct sockaddr_in6 *sin6 = (struct sockaddr_in6 *)ss;

	memset(ss, 0, sizeof(*ss));
	if (inet_pton(AF_INET, host, &sin->sin_addr) == 1) {
		sin->sin_family = AF_INET;
		*len = sizeof(*sin);
		return true;
	}
	if (inet_pton(AF_INET6, host, &sin6->sin6_addr) == 1) {
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
		    r->cfg.policy, (struct sockaddr *)&res->addrs[i], c->port);

		if (why == JR_ALLOWED)
			why = guard_local(r, (struct sockaddr *)&res->addrs[i],
					  c->port);
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
		relay_reply(r, c, 403, jr_deny_reason_name(refused),
			    jr_deny_reason_name(refused), false,
			    "jailrun: %s resolves to %s, %s", c->host,
			    first_refused, deny_text(refused));
		return;
	}
	c->next_addr = 0;
	relay_connect_next(r, c);
}

/*
 * relay_upstream_start - connect @c to its destination, c->host port
 * c->port, which the policy allowed by name: resolve it in the relay's
 * resolver (a literal address is taken as it is), keep the addresses the
 * guard passes, connect to each in turn until one answers, then relay
 * (upstream_connected()). Every failure goes through relay_reply().
 */
void relay_upstream_start(struct jr_relay *r, struct conn *c)
{
	struct sockaddr_storage ss;
	socklen_t len;

	c->res = calloc(1, sizeof(*c->res));
	if (!c->res) {
		relay_out_of_memory(r, c);
		return;
	}
	c->deadline = jr_clock_ms() + r->cfg.connect_timeout_ms;
	if (relay_literal_address(c->host, &ss, &len)) {
		c->res->addrs[0] = ss;
		c->res->lens[0] = len;
		c->res->n = 1;
		guard_and_connect(r, c);
		return;
	}
	if (jr_resolver_submit(
		r->resolver,
		relay_ref(REF_RESOLVE_CONN, relay_slot_of(r, c), c->gen),
		c->host, AF_UNSPEC) < 0) {
		relay_reply(r, c, 503, NULL, "resolver-busy", true,
			    "jailrun: too many lookups in progress, try again");
		return;
	}
	c->st = ST_RESOLVE;
	relay_want_events(r, c);
}

static void proxy_request(struct jr_relay *r, struct conn *c)
{
	enum jr_deny_reason why;

	c->host = c->req.host;
	c->port = c->req.port;
	why = jr_policy_check_name(r->cfg.policy, c->host, c->port);
	if (why != JR_ALLOWED) {
		deny(r, c, why);
		return;
	}
	if (!relay_httprules_proxy(r, c)) /* --allow-http */
		return;
	if (relay_inspect_plain(r, c)) /* secrets on plain HTTP */
		return;
	relay_upstream_start(r, c);
}

/* The resolver answered for @c (in ST_RESOLVE, same generation). */
void relay_upstream_resolved(struct jr_relay *r, struct conn *c,
			     const struct jr_resolve_result *res)
{
	if (res->error) {
		relay_reply(r, c, 502, NULL, "resolve-failed", true,
			    "jailrun: cannot resolve %s: %s", c->host,
			    gai_strerror(res->error));
		return;
	}
	*c->res = *res;
	guard_and_connect(r, c);
}

/*
 * relay_proxy_connected - the proxy's side of a connected upstream: our
 * "200" and a tunnel for a CONNECT, else the rewritten head of the one
 * request in c->req, its body by its framing, and the response. Also a
 * captured HTTP request's (relay_transparent.c), read the same way.
 */
void relay_proxy_connected(struct jr_relay *r, struct conn *c)
{
	bool tunnel = c->req.form == JR_HTTP_FORM_CONNECT;
	char head[64];
	int n, e;

	if (tunnel && relay_inspect_connect(r, c)) /* TLS inspection */
		return;
	relay_tunnel_start(c, tunnel);
	if (tunnel) {
		n = jr_http_connect_established(head, sizeof(head));
		if (n < 0 || relay_queue_out(c, head, (size_t)n) < 0) {
			relay_out_of_memory(r, c);
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
	} else {
		jr_http_body_init(&c->body, &c->req);
		c->c_done = c->body.done;
		e = relay_queue_up(c, c->req.upstream_head,
				   c->req.upstream_head_len);
		if (!e)
			e = relay_feed_body(c, c->in + c->req.head_len,
					    c->in_len - c->req.head_len);
		if (e == -ENOMEM) {
			relay_out_of_memory(r, c);
			return;
		}
		if (e < 0) {
			relay_conn_free(r, c); /* malformed chunked framing */
			return;
		}
		free(c->in);
		c->in = NULL;
		c->in_len = c->in_cap = 0;
	}
	relay_tunnel_run(r, c);
}

/* The upstream accepted: hand @c over to its kind's relaying. */
static void upstream_connected(struct jr_relay *r, struct conn *c)
{
	c->status = 200;
	c->allowed = true;
	/* The addresses are spent; a long-lived tunnel should not keep them. */
	free(c->res);
	c->res = NULL;
	switch (c->kind) {
	case KIND_PROXY:
		relay_proxy_connected(r, c);
		break;
	case KIND_TRANSPARENT:
		if (c->have_req) { /* plain HTTP, read and checked: one
				      request, as the proxy's */
			relay_proxy_connected(r, c);
			break;
		}
		if (relay_inspect_captured(r, c)) /* TLS inspection */
			break;
		/* A captured connection is a tunnel from its first byte, its
		 * TLS name checked against c->host (relay_transparent.c).
		 * Connected on the peek's timeout, before any client byte:
		 * those bytes, whenever they come, are decided as at the peek
		 * (relay_transparent_late_head()) before any goes upstream. */
		relay_tunnel_start(c, true);
		c->late_head = !c->in_len;
		relay_tunnel_run(r, c);
		/* The bytes peeked at are in c->in and the client may send
		 * nothing more before an answer: pass them on now rather
		 * than wait for an event that may never come. */
		relay_pump(r, c);
		break;
	case KIND_LANE:
	case KIND_PUBLISH:
		relay_lane_connected(r, c);
		break;
	case KIND_DNS_TCP:
	case KIND_DNS_UDP:
		relay_conn_free(r, c); /* never connects */
		break;
	}
}

/*
 * relay_connect_next - connect to the next of c->res (guard-checked) on
 * c->port; when none is left, 502.
 */
void relay_connect_next(struct jr_relay *r, struct conn *c)
{
	while (c->next_addr < c->res->n) {
		struct sockaddr_storage *ss = &c->res->addrs[c->next_addr];
		socklen_t len = c->res->lens[c->next_addr];
		int fd;

		c->next_addr++;
		set_port(ss, c->port);
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
		relay_want_events(r, c);
		return;
	}
	relay_reply(r, c, 502, NULL, "upstream-refused", true,
		    "jailrun: cannot connect to %s port %u (%s): %s", c->host,
		    c->port, c->addr,
		    strerror(c->last_errno ? c->last_errno : EIO));
}

/* The connect in progress finished: relay, or try the next address. */
void relay_connect_done(struct jr_relay *r, struct conn *c)
{
	int soerr = 0;
	socklen_t len = sizeof(soerr);

	if (getsockopt(c->ufd, SOL_SOCKET, SO_ERROR, &soerr, &len) < 0)
		soerr = errno;
	if (soerr == 0) {
		upstream_connected(r, c);
		return;
	}
	c->last_errno = soerr;
	relay_close_fd(&c->ufd);
	c->uev = UINT32_MAX;
	relay_connect_next(r, c);
}

/*
 * relay_proxy_head - the client of a proxy connection sent more of its
 * head; @before bytes were there already. Answer the health check, or
 * parse once the head may be complete and start the request.
 */
void relay_proxy_head(struct jr_relay *r, struct conn *c, size_t before)
{
	size_t limit = JR_HTTP_HEAD_MAX + 1;
	struct jr_err err = { 0 };
	size_t from;
	long hl;

	if (c->in_len >= strlen(JR_HEALTH_REQUEST) &&
	    memcmp(c->in, JR_HEALTH_REQUEST, strlen(JR_HEALTH_REQUEST)) == 0) {
		char resp[256];
		int len = jr_http_response(resp, sizeof(resp), 200, NULL, "ok");

		c->logged =
		    true; /* the runner's own check, not the command's */
		if (len < 0 || relay_queue_out(c, resp, (size_t)len) < 0) {
			relay_out_of_memory(r, c);
			return;
		}
		c->st = ST_REPLY;
		relay_want_events(r, c);
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
		relay_out_of_memory(r, c);
		return;
	}
	if (hl < 0) {
		relay_reply(r, c, 400, NULL, "bad-request", false,
			    "jailrun: bad request: %s", err.msg);
		return;
	}
	c->have_req = true;
	proxy_request(r, c);
}
