// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * relay_httprules.c - the relay's side of --allow-http: where the rules of
 * httprules.h are enforced, on the relay thread.
 *
 * Theory of operation
 *
 * A host some rule names (jr_httprules_host_has_rules()) may be reached
 * only by requests the relay reads and checks one by one, before any byte
 * of them goes upstream. The relay reads requests in two places:
 *
 *   proxy, absolute form   relay_httprules_proxy(): the request target
 *                          checked is the one sent upstream (the first
 *                          line of the rewritten head), so what is judged
 *                          is what the server gets. One request per
 *                          connection, "Connection: close" (http.h), so a
 *                          second request never rides on a checked one.
 *   captured plain HTTP    relay_httprules_transparent(): every captured
 *                          HTTP request, ruled host or not, is rewritten to
 *                          the absolute form and parsed by the proxy's own
 *                          strict parser (relay_transparent.c), and then
 *                          relayed as the proxy relays it (one request,
 *                          Connection: close) instead of as a bare tunnel,
 *                          in which a keep-alive client's second request
 *                          would pass unread; here it is checked the same
 *                          way as the proxy's. relay_inspect_plain() sees
 *                          its head as it sees the proxy's (--secret).
 *
 * Everything else that reaches such a host cannot be read request by
 * request: a CONNECT tunnel, a captured TLS connection, a captured
 * connection in another protocol or one where the server speaks first.
 * Those are refused in one place, refuse_opaque(), with the reason
 * "http-rules-need-inspection". That is the place TLS inspection
 * (tls_inspect.c) takes over from once merged.
 *
 * Refusals are 403s built by relay_reply() with X-Jailrun-Deny and the
 * audit reason (jr_http_verdict_name()); a captured connection that did not
 * speak HTTP is reset instead, as every captured refusal is.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "httprules.h"
#include "relay_httprules.h"
#include "relay_loop.h"
#include "secrets.h"

static const struct jr_httprules *rules_of(const struct jr_relay *r)
{
	return r->cfg.policy ? r->cfg.policy->http_rules : NULL;
}

/*
 * inspected() - will TLS inspection read @c's requests? A host with rules
 * is inspected whenever inspection runs (jr_secrets_inspects() counts
 * ruled hosts, main.c starts inspection for https rules), and then each
 * request inside is checked in tls_inspect.c's serve_request(). A
 * captured connection qualifies only if its first bytes are a TLS
 * ClientHello: exactly the test relay_inspect_captured() applies.
 */
static bool inspected(const struct jr_relay *r, const struct conn *c,
		      bool captured)
{
	if (!r->cfg.inspect || !jr_secrets_inspects(r->cfg.secrets, c->host))
		return false;
	return !captured || (c->in_len && (uint8_t)c->in[0] == 0x16);
}

/*
 * refuse_opaque() - @c goes to a host with HTTP rules, but its requests
 * cannot be read (a tunnel nothing inspects, another protocol): refuse
 * it, fail closed.
 */
static void refuse_opaque(struct jr_relay *r, struct conn *c)
{
	const char *name = jr_http_verdict_name(JR_HTTP_NEED_INSPECTION);

	relay_reply(
	    r, c, 403, name, name, false,
	    "jailrun: %s has --allow-http rules; a CONNECT tunnel or a TLS connection to it cannot be checked request by request without TLS inspection, so it is refused",
	    c->host);
}

/* Refuse @c's request with @v, saying which request and why. */
static void refuse_request(struct jr_relay *r, struct conn *c,
			   enum jr_http_verdict v, const char *target,
			   const char *why)
{
	const char *name = jr_http_verdict_name(v);

	relay_reply(r, c, 403, name, name, false,
		    "jailrun: %s %.200s on %s refused: %s", c->req.method,
		    target, c->host, why ? why : "no rule allows it");
}

/* Check the parsed request of @c against the rules; refuse if need be. */
static bool check_request(struct jr_relay *r, struct conn *c)
{
	const char *why = NULL;
	enum jr_http_verdict v;
	char *target = jr_http_upstream_target(&c->req);

	if (!target) {
		relay_reply(r, c, 403, "http-rule", "http-rule", false,
			    "jailrun: the request to %s could not be checked",
			    c->host);
		return false;
	}
	v = jr_httprules_check(rules_of(r), "http", c->host, c->port,
			       c->req.method, target, &why);
	if (v != JR_HTTP_ALLOWED)
		refuse_request(r, c, v, target, why);
	free(target);
	return v == JR_HTTP_ALLOWED;
}

/*
 * relay_httprules_proxy - the proxy's request in @c (the policy allowed
 * its host and port) against the HTTP rules. Return: true to go on; false
 * when @c was answered (refused).
 */
bool relay_httprules_proxy(struct jr_relay *r, struct conn *c)
{
	if (!jr_httprules_host_has_rules(rules_of(r), c->host))
		return true;
	if (c->req.form == JR_HTTP_FORM_CONNECT) {
		if (inspected(r, c, false))
			return true; /* relay_inspect_connect() takes it */
		refuse_opaque(r, c);
		return false;
	}
	return check_request(r, c);
}

/*
 * relay_httprules_transparent - a captured connection @c, allowed by the
 * policy and its first bytes decided, is about to connect. A host without
 * rules: go on. A host with rules: a plain HTTP request, already read as
 * the proxy reads one (c->have_req, relay_transparent.c), is checked;
 * anything else is refused unless TLS inspection takes it.
 * Return: true to connect; false when @c was answered or closed.
 */
bool relay_httprules_transparent(struct jr_relay *r, struct conn *c)
{
	if (!jr_httprules_host_has_rules(rules_of(r), c->host))
		return true;
	if (!c->have_req) {
		if (inspected(r, c, true))
			return true; /* relay_inspect_captured() takes it */
		refuse_opaque(r, c);
		return false;
	}
	return check_request(r, c);
}
