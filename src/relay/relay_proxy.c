// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * relay_proxy.c - the HTTP proxy's request path, on the relay thread.
 *
 * Theory of operation
 *
 * Proxy connection, one request per connection:
 *
 *   HEAD ----> (deny) -------------------------------> REPLY -> LINGER
 *     |       \--> HELD (--ask, relay_ask.c) --(deny, timeout)--^
 *     |              |  approved
 *     |  parse, check the name against the policy, --allow-http,
 *     |  secrets on plain HTTP (relay_httprules.h, relay_inspect.h)
 *     v
 *   relay_upstream_start() (relay_upstream.c): RESOLVE, guard every
 *     address, CONNECT to the next address on failure --> 403/502/504
 *     v
 *   proxy_connected(): a CONNECT to an inspected host goes to TLS
 *     inspection; else relay_tunnel_exchange() (relay_tunnel.c): CONNECT
 *     -> "200 Connection established", then a tunnel; absolute-form ->
 *     the rewritten head, exactly the request body, then the response
 *     until the upstream closes.
 *
 * Refusals are answered, never left hanging: 403 with X-Jailrun-Deny and a
 * one-line body saying why, 400 for a malformed request, 502 when the
 * upstream refuses, 504 when it does not answer in time, 503 when every
 * slot is taken, when no file descriptor is left, or when memory runs out
 * (relay_out_of_memory() says why 503). Every answer is built by
 * jr_http_response() in relay_reply() (relay_loop.c).
 *
 * This module exports only relay_proxy_ops (relay_loop.h, the registry).
 */
#include <errno.h>
#include <stdbool.h>
#include <string.h>

#include "http.h"
#include "log.h"
#include "relay_ask.h"
#include "relay_httprules.h"
#include "relay_inspect.h"
#include "relay_loop.h"
#include "relay_tunnel.h"
#include "relay_upstream.h"
#include "selfcheck.h"

/* Refuse @c as the policy does for @why; @reason: the audit's (the
 * policy's own, or why a held request was not approved). */
static void deny(struct jr_relay *r, struct conn *c, enum jr_deny_reason why,
		 const char *reason)
{
	relay_reply(r, c, 403, jr_deny_reason_name(why), reason, false,
		    "jailrun: %s %s", c->host, relay_deny_text(why));
}

/* Allowed (by the policy or an operator): the rest of the way. */
static void proxy_allowed(struct jr_relay *r, struct conn *c)
{
	if (!relay_httprules_proxy(r, c)) /* --allow-http */
		return;
	if (relay_inspect_plain(r, c)) /* secrets on plain HTTP */
		return;
	relay_upstream_start(r, c);
}

static void proxy_request(struct jr_relay *r, struct conn *c)
{
	enum jr_deny_reason why;

	c->host = c->req.host;
	c->port = c->req.port;
	why = jr_policy_check_name(r->cfg.policy, c->host, c->port);
	if (why == JR_ALLOWED) {
		proxy_allowed(r, c);
		return;
	}
	switch (relay_ask_conn(r, c, why, JR_ASK_VIA_PROXY)) { /* --ask */
	case RELAY_ASK_HELD:
		return;
	case RELAY_ASK_FULL:
		deny(r, c, why, "ask-full");
		return;
	case RELAY_ASK_NOT_HELD:
		break;
	}
	deny(r, c, why, jr_deny_reason_name(why));
}

/* A held request was decided (--ask): on as if allowed, or refused as
 * the policy would have, audited with why. */
static void proxy_asked(struct jr_relay *r, struct conn *c,
			enum relay_ask_verdict v)
{
	if (v == RELAY_ASK_APPROVED)
		proxy_allowed(r, c);
	else
		deny(r, c, c->ask_why,
		     v == RELAY_ASK_DENIED ? "ask-denied" : "ask-timeout");
}

/*
 * proxy_connected - the proxy's side of a connected upstream: a CONNECT to
 * an inspected host goes to TLS inspection, anything else is relayed as
 * the one request it is (relay_tunnel_exchange()).
 */
static void proxy_connected(struct jr_relay *r, struct conn *c)
{
	if (c->req.form == JR_HTTP_FORM_CONNECT &&
	    relay_inspect_connect(r, c)) /* TLS inspection */
		return;
	relay_tunnel_exchange(r, c);
}

/*
 * proxy_head - the client of a proxy connection sent more of its
 * head; @before bytes were there already. Answer the health check, or
 * parse once the head may be complete and start the request.
 */
static void proxy_head(struct jr_relay *r, struct conn *c, size_t before)
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

/* The proxy's connections: a head, then the upstream path and a tunnel. */
const struct relay_ops relay_proxy_ops = {
	.head = proxy_head,
	.resolved = relay_upstream_resolved,
	.connect_done = relay_connect_done,
	.connect_timeout = relay_connect_timeout,
	.connected = proxy_connected,
	.pump = relay_pump,
	.upstream_error = relay_upstream_error,
	.asked = proxy_asked,
	.release = relay_tunnel_release,
};
