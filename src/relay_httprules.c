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
 *   captured plain HTTP    relay_httprules_transparent(): the request is
 *                          rewritten to the absolute form and parsed by the
 *                          proxy's own strict parser, checked the same way,
 *                          and then relayed as the proxy relays it (one
 *                          request, Connection: close) instead of as a bare
 *                          tunnel, in which a keep-alive client's second
 *                          request would pass unread.
 *
 * With --secret, every captured plain HTTP request is read this way too
 * (ruled host or not), so that relay_inspect_plain() sees its head as it
 * sees the proxy's: placeholders refused on a host they are not bound to,
 * swapped on one they are.
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
#include "relay-internal.h"
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
 * absolute_form() - @c's captured request "METHOD /path HTTP/1.1..." as
 * "METHOD http://host[:port]/path HTTP/1.1...", the rest of c->in after it
 * unchanged, into a new buffer. Return: the buffer (its length in @len),
 * NULL with *@bad set for a target not in origin-form, NULL for ENOMEM.
 */
static char *absolute_form(const struct conn *c, size_t *len, bool *bad)
{
	const char *sp = memchr(c->in, ' ', c->in_len);
	char authority[JR_HOST_MAX + 16];
	size_t ml, al, rest;
	char *buf;

	*bad = !sp || (size_t)(sp + 1 - c->in) >= c->in_len || sp[1] != '/';
	if (*bad)
		return NULL;
	snprintf(authority, sizeof(authority), c->port == 80 ? "%s" : "%s:%u",
		 c->host, c->port);
	ml = (size_t)(sp + 1 - c->in); /* "METHOD " */
	al = strlen("http://") + strlen(authority);
	rest = c->in_len - ml;
	buf = malloc(ml + al + rest + 1);
	if (!buf)
		return NULL;
	memcpy(buf, c->in, ml);
	memcpy(buf + ml, "http://", 7);
	memcpy(buf + ml + 7, authority, al - 7);
	memcpy(buf + ml + al, sp + 1, rest);
	*len = ml + al + rest;
	buf[*len] = '\0';
	return buf;
}

/*
 * relay_httprules_transparent - a captured connection @c, allowed by the
 * policy and its first bytes seen, is about to connect. A host without
 * rules: go on as a tunnel. A host with rules: a plain HTTP request is
 * parsed, checked and then relayed as the proxy relays one (c->have_req
 * tells upstream_connected() so); anything else is refused.
 * Return: true to connect; false when @c was answered or closed.
 */
bool relay_httprules_transparent(struct jr_relay *r, struct conn *c)
{
	const struct jr_secrets *set = r->cfg.secrets;
	bool ruled = jr_httprules_host_has_rules(rules_of(r), c->host);
	struct jr_err err = { 0 };
	size_t len = 0;
	bool bad;
	char *buf;
	long hl;

	/* With --secret, captured plain HTTP is read like the proxy's too:
	 * a placeholder in it must meet relay_inspect_plain() (misuse,
	 * plaintext to a bound host), and a keep-alive second request must
	 * not pass unread. */
	if (!ruled && !(set && set->n && c->answer_http && c->in_len))
		return true;
	if (!c->answer_http || !c->in_len) {
		if (inspected(r, c, true))
			return true; /* relay_inspect_captured() takes it */
		refuse_opaque(r, c);
		return false;
	}
	buf = absolute_form(c, &len, &bad);
	if (!buf) {
		if (!bad) {
			relay_out_of_memory(r, c);
			return false;
		}
		relay_reply(
		    r, c, 400, NULL, "bad-request", false,
		    "jailrun: a captured request to %s, which has --allow-http rules, must have a target starting with '/'",
		    c->host);
		return false;
	}
	hl = jr_http_parse_request(buf, len, &c->req, &err);
	if (hl <= 0) {
		free(buf);
		if (hl == -ENOMEM) {
			relay_out_of_memory(r, c);
			return false;
		}
		relay_reply(r, c, 400, NULL, "bad-request", false,
			    "jailrun: bad request: %s",
			    hl ? err.msg : "incomplete head");
		return false;
	}
	c->have_req = true;
	free(c->in);
	c->in = buf;
	c->in_len = c->in_cap = len;
	if (ruled && !check_request(r, c))
		return false;
	return !relay_inspect_plain(r, c); /* --secret */
}
