// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * relay_transparent.c - captured TCP: connections a program made without
 * the proxy, redirected to the relay in the relay netns.
 *
 * Theory of operation
 *
 * The worker's nft rules let TCP to the synthetic pool (fakeip.h) and to
 * the allowlist's IPv4 address entries out through the veth; the relay
 * netns's one nat rule redirects it to the transparent listener
 * (ruleset.c, nft/jailrun-relay.nft). Accepting such a connection, the
 * relay reads where the command meant to go from the conntrack entry of
 * the redirect (SO_ORIGINAL_DST) and decides, per connection, before any
 * upstream socket exists:
 *
 *   original destination
 *     synthetic address -> the name it was handed out for
 *                          (jr_fakeip_lookup; never handed out: reset)
 *     anything else     -> the address itself, as text (the worker only
 *                          lets out addresses an entry names)
 *   jr_policy_check_name(name or address, port)      denied: reset
 *     (with --ask, held first: relay_ask.c; approved, on from here)
 *   peek at the first client bytes (HEAD state):
 *     a TLS ClientHello  -> its SNI must be the name     else: reset
 *     an HTTP request    -> its Host must be the name    else: 403
 *     anything else      -> go on
 *     nothing within RELAY_TRANSPARENT_PEEK_MS (a server-speaks-first
 *     protocol: SMTP, databases; or a slow client) -> go on, and the
 *     first client bytes, whenever they come, meet the same checks
 *     before any reaches the upstream (transparent_late_head())
 *   relay_upstream_start(): the relay's resolver (cached), the SSRF
 *   guard on every address, connect to the address that passed, then a
 *   spliced tunnel whose first bytes are the ones peeked at; or, for an
 *   HTTP request, the proxy's one-request exchange.
 *
 * Every request on captured plain HTTP is checked, not only a first one
 * that comes in time. An HTTP request is read as the proxy reads one
 * (transparent_read_request(): absolute form, http.c's strict parser, the
 * rewritten head with Host from the name and "Connection: close", exactly
 * its body), so nothing after it reaches the upstream on that connection:
 * a kept-alive client's next request goes on a new connection, whose
 * first bytes are checked. What an HTTP server would take for a request
 * is judged broadly (http_request_start(): any method on a line naming
 * an HTTP version, an empty line first), so another method or a blank
 * line first does not turn a request into an unchecked tunnel. So plain
 * ws:// does not upgrade through capture, as through the proxy (Upgrade
 * is hop-by-hop and dropped); wss:// is TLS, a tunnel.
 *
 * So the relay decides with the name the DNS answer was for, never with
 * an address the command chose; an address that is not ours and not in
 * the allowlist never even reaches the listener (the worker resets it).
 *
 * Refusals are TCP resets (SO_LINGER 0, then close): there is no protocol
 * to answer in, and a reset fails a client at once. The exception is a
 * request that was recognised as HTTP: it gets the proxy's answer (a 403
 * with X-Jailrun-Deny and the reason, or 502/504 when the upstream does
 * not answer), built by relay_reply() like every other. Every connection
 * gets one audit line with "via":"transparent", the name and port, the
 * original destination and, once connected, the upstream address.
 *
 * Why the peek comes before the connect: a connection whose TLS name or
 * HTTP Host is refused then never reaches the upstream at all, not even
 * its TCP handshake. Its cost is nothing for clients that speak first (a
 * TLS or HTTP client sends at once) and up to one peek window plus a
 * sweep tick for protocols where the server speaks first.
 */
#include <arpa/inet.h>
#include <errno.h>
#include <linux/netfilter_ipv4.h>
#include <linux/netfilter_ipv6/ip6_tables.h>
#include <netinet/in.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/socket.h>

#include "cleanup.h"
#include "clock.h"
#include "host.h"
#include "http.h"
#include "log.h"
#include "relay_ask.h"
#include "relay_httprules.h"
#include "relay_inspect.h"
#include "relay_loop.h"
#include "relay_transparent.h"
#include "relay_tunnel.h"
#include "relay_upstream.h"
#include "clienthello.h"

#ifndef SO_ORIGINAL_DST
#define SO_ORIGINAL_DST 80 /* linux/netfilter_ipv4.h */
#endif
#ifndef IP6T_SO_ORIGINAL_DST
#define IP6T_SO_ORIGINAL_DST 80
#endif

/* The methods of RFC 9110 9.3 and PATCH (RFC 5789): what a request starts
 * with. Anything else is not read as HTTP. */
static const char *const http_methods[] = {
	"GET",	   "HEAD",    "POST",  "PUT",	"DELETE",
	"CONNECT", "OPTIONS", "TRACE", "PATCH",
};

/**
 * original_dst() - where the command meant to connect, from the conntrack
 * entry of the redirect.
 * @fd: the accepted socket
 * @ss: the original destination
 *
 * Return: 0, or -errno (ENOENT: the connection was not redirected).
 */
static int original_dst(int fd, struct sockaddr_storage *ss)
{
	socklen_t len = sizeof(struct sockaddr_in);
	struct sockaddr_storage local;
	socklen_t llen = sizeof(local);

	memset(ss, 0, sizeof(*ss));
	if (getsockname(fd, (struct sockaddr *)&local, &llen) < 0)
		return -errno;
	if (local.ss_family == AF_INET6) {
		len = sizeof(struct sockaddr_in6);
		if (getsockopt(fd, SOL_IPV6, IP6T_SO_ORIGINAL_DST, ss, &len) <
		    0)
			return -errno;
	} else if (getsockopt(fd, SOL_IP, SO_ORIGINAL_DST, ss, &len) < 0) {
		return -errno;
	}
	/* A connection made to the listener's own address and port was not
	 * redirected: it names no destination. */
	if (ss->ss_family == local.ss_family &&
	    ((ss->ss_family == AF_INET &&
	      !memcmp(&((struct sockaddr_in *)ss)->sin_addr,
		      &((struct sockaddr_in *)&local)->sin_addr,
		      sizeof(struct in_addr)) &&
	      ((struct sockaddr_in *)ss)->sin_port ==
		  ((struct sockaddr_in *)&local)->sin_port) ||
	     (ss->ss_family == AF_INET6 &&
	      !memcmp(&((struct sockaddr_in6 *)ss)->sin6_addr,
		      &((struct sockaddr_in6 *)&local)->sin6_addr,
		      sizeof(struct in6_addr)) &&
	      ((struct sockaddr_in6 *)ss)->sin6_port ==
		  ((struct sockaddr_in6 *)&local)->sin6_port)))
		return -ENOENT;
	return 0;
}

/* Allowed (by the policy, or an operator at @from): wait for the first
 * bytes, for at most the peek window from @from. */
static void transparent_allowed(struct jr_relay *r, struct conn *c,
				uint64_t from)
{
	/* A client that goes away now was not refused. */
	c->allowed = true;
	c->t_peek = from;
	c->deadline = from + RELAY_TRANSPARENT_PEEK_MS;
	relay_want_events(r, c);
}

/*
 * transparent_accepted - a captured connection was accepted into @c
 * (KIND_TRANSPARENT, ST_HEAD): find its destination, check the policy,
 * and wait for its first bytes. @idx: unused (one listener per family).
 */
static void transparent_accepted(struct jr_relay *r, struct conn *c,
				 uint32_t idx)
{
	struct sockaddr_storage ss;
	enum jr_deny_reason why;
	const void *a;
	int e;

	(void)idx;
	e = original_dst(c->cfd, &ss);
	if (e < 0) {
		jr_debug(
		    "relay: a captured connection has no original destination: %s",
		    strerror(-e));
		relay_conn_reset(r, c, "no-original-destination", false);
		return;
	}
	a = ss.ss_family == AF_INET
		? (const void *)&((struct sockaddr_in *)&ss)->sin_addr
		: (const void *)&((struct sockaddr_in6 *)&ss)->sin6_addr;
	if (!inet_ntop(ss.ss_family, a, c->original, sizeof(c->original)))
		snprintf(c->original, sizeof(c->original), "?");
	c->port = ntohs(ss.ss_family == AF_INET
			    ? ((struct sockaddr_in *)&ss)->sin_port
			    : ((struct sockaddr_in6 *)&ss)->sin6_port);

	if (jr_fakeip_in_pool((struct sockaddr *)&ss)) {
		c->host = r->fakeip ? jr_fakeip_lookup(r->fakeip,
						       (struct sockaddr *)&ss)
				    : NULL;
		if (!c->host) {
			/* In the pool but never handed out: no name, so no
			 * decision but no. */
			relay_conn_reset(r, c, "unknown-synthetic-address",
					 false);
			return;
		}
	} else {
		/* A literal destination: the worker lets out only what an
		 * address entry names; the policy says so again here. */
		c->host = c->original;
	}
	why = jr_policy_check_name(r->cfg.policy, c->host, c->port);
	if (why == JR_ALLOWED) {
		transparent_allowed(r, c, c->t_start);
		return;
	}
	switch (relay_ask_conn(r, c, why, JR_ASK_VIA_TRANSPARENT)) { /* --ask */
	case RELAY_ASK_HELD:
		return;
	case RELAY_ASK_FULL:
		relay_conn_reset(r, c, "ask-full", false);
		return;
	case RELAY_ASK_NOT_HELD:
		break;
	}
	relay_conn_reset(r, c, jr_deny_reason_name(why), false);
}

/*
 * transparent_asked - a held captured connection was decided (--ask):
 * approved, its peek starts now (what its client sent meanwhile waits in
 * the kernel and is read as its first bytes); else reset, as the policy
 * would have, audited with why.
 */
static void transparent_asked(struct jr_relay *r, struct conn *c,
			      enum relay_ask_verdict v)
{
	if (v == RELAY_ASK_APPROVED)
		transparent_allowed(r, c, jr_clock_ms());
	else
		relay_conn_reset(
		    r, c, v == RELAY_ASK_DENIED ? "ask-denied" : "ask-timeout",
		    false);
}

/**
 * http_method_prefix() - do the first @len bytes of @buf begin an HTTP
 * request line?
 * @buf: client bytes
 * @len: how many
 *
 * Return: 1 (a method and a space), 0 (not HTTP), -1 (too short to tell).
 */
static int http_method_prefix(const char *buf, size_t len)
{
	bool maybe = false;

	for (size_t i = 0; i < ARRAY_SIZE(http_methods); i++) {
		size_t ml = strlen(http_methods[i]);

		if (len > ml) {
			if (!memcmp(buf, http_methods[i], ml) && buf[ml] == ' ')
				return 1;
		} else if (!memcmp(buf, http_methods[i], len)) {
			maybe = true;
		}
	}
	return maybe ? -1 : 0;
}

/* RFC 9110 5.6.2 tchar: what a method is made of. */
static bool is_tchar(unsigned char c)
{
	return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') ||
	       (c >= '0' && c <= '9') || (c && strchr("!#$%&'*+-.^_`|~", c));
}

/**
 * http_request_start() - would an HTTP server take the first @len bytes
 * of @buf for the start of a request?
 * @buf: client bytes (at least one)
 * @len: how many
 *
 * More than a method of http_methods[] and a space: a server routes a
 * request by its Host whatever the method (WebDAV's PROPFIND, a made-up
 * one), and may skip empty lines before the request line (RFC 9112 2.2).
 * So also an empty line first, and a token and whitespace on a first line
 * that names an HTTP version (" HTTP/", any case, as some servers read
 * it; "PRI * HTTP/2.0" too, HTTP/2's prior-knowledge preface, whose
 * :authority no Host check would see). A first line with a control byte
 * other than CR and HTAB in it is no request line (git's pkt-line has a
 * NUL); other protocols' first lines ("EHLO x", "a1 LOGIN u p") name no
 * HTTP version.
 *
 * Return: 1 (HTTP), 0 (not HTTP), -1 (too few bytes to tell).
 */
static int http_request_start(const char *buf, size_t len)
{
	size_t i = 0;

	if (buf[0] == '\r' || buf[0] == '\n')
		return 1;
	switch (http_method_prefix(buf, len)) {
	case 1:
		return 1;
	case -1:
		return -1;
	}
	while (i < len && is_tchar((unsigned char)buf[i]))
		i++;
	if (i == len) /* a long enough "method" is a 400 */
		return len >= JR_HTTP_HEAD_MAX ? 1 : -1;
	if (!i || (buf[i] != ' ' && buf[i] != '\t'))
		return 0;
	for (; i < len && buf[i] != '\n'; i++) {
		unsigned char c = (unsigned char)buf[i];

		if ((c < 0x20 && c != '\r' && c != '\t') || c == 0x7F)
			return 0;
		if ((c == ' ' || c == '\t') && len - i > 5 &&
		    !strncasecmp(buf + i + 1, "HTTP/", 5))
			return 1;
	}
	if (i == len) /* the first line is not complete yet */
		return len >= JR_HTTP_HEAD_MAX ? 1 : -1;
	return 0;
}

/**
 * http_host() - the host of the one Host header of a request head.
 * @buf: client bytes, starting with a request line
 * @len: how many
 * @port: the port the connection is for (a Host without one means it)
 * @host: out, JR_HOST_MAX + 1 bytes
 *
 * Return: 1 with @host set, 0 if the head is not complete yet, -EINVAL if
 * it has no Host, more than one (RFC 9112 3.2: a 400), a malformed one,
 * or is longer than JR_HTTP_HEAD_MAX.
 */
static int http_host(const char *buf, size_t len, uint16_t port, char *host)
{
	const char *end = memmem(buf, len, "\r\n\r\n", 4);
	const char *p, *line, *found = NULL;
	size_t found_len = 0;
	struct jr_err err = { 0 };
	bool v6;
	uint16_t hport;

	if (!end)
		end = memmem(buf, len, "\n\n", 2);
	if (!end)
		return len >= JR_HTTP_HEAD_MAX ? -EINVAL : 0;
	p = memchr(buf, '\n', (size_t)(end - buf));
	while (p && p < end) {
		const char *eol;
		size_t n;

		line = p + 1;
		eol = memchr(line, '\n', (size_t)(end + 1 - line));
		if (!eol)
			eol = end;
		n = (size_t)(eol - line);
		if (n && line[n - 1] == '\r')
			n--;
		if (n > 5 && !strncasecmp(line, "host:", 5)) {
			const char *v = line + 5;
			size_t vl = n - 5;

			if (found)
				return -EINVAL;
			while (vl && (*v == ' ' || *v == '\t'))
				v++, vl--;
			while (vl && (v[vl - 1] == ' ' || v[vl - 1] == '\t'))
				vl--;
			found = v;
			found_len = vl;
		}
		p = eol < end ? eol : NULL;
	}
	if (!found || !found_len)
		return -EINVAL;
	if (jr_http_parse_authority(found, found_len, port, host,
				    JR_HOST_MAX + 1, &v6, &hport, &err) < 0)
		return -EINVAL;
	return 1;
}

/* Do @a and @b name the same host (case, one trailing dot aside)? */
static bool same_host(const char *a, const char *b)
{
	size_t al = strlen(a), bl = strlen(b);

	if (al && a[al - 1] == '.')
		al--;
	if (bl && b[bl - 1] == '.')
		bl--;
	return al == bl && !strncasecmp(a, b, al);
}

/*
 * absolute_form() - @c's captured request "METHOD /path HTTP/1.1..." as
 * "METHOD http://host[:port]/path HTTP/1.1...", the rest of c->in after it
 * unchanged, into a new buffer; an IPv6 literal host in brackets (RFC 3986
 * 3.2.2). Return: the buffer (its length in @len), NULL with *@bad set for
 * a target not in origin-form, NULL for ENOMEM.
 */
static char *absolute_form(const struct conn *c, size_t *len, bool *bad)
{
	const char *sp = memchr(c->in, ' ', c->in_len);
	char authority[JR_HOST_MAX + 16];
	bool v6 = strchr(c->host, ':') != NULL;
	size_t ml, al, rest;
	char *buf;

	*bad = !sp || (size_t)(sp + 1 - c->in) >= c->in_len || sp[1] != '/';
	if (*bad)
		return NULL;
	snprintf(authority, sizeof(authority), "%s%s%s", v6 ? "[" : "", c->host,
		 v6 ? "]" : "");
	if (c->port != 80)
		snprintf(authority + strlen(authority),
			 sizeof(authority) - strlen(authority), ":%u", c->port);
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
 * transparent_read_request() - the captured HTTP request in c->in, its
 * Host checked, read as the proxy reads one: put in absolute form (the
 * name the connection is for, before the target) and parsed by http.c's
 * strict parser into c->req. From then on the connection carries this
 * one request: upstream_connected() relays it as the proxy relays one
 * (the rewritten head, Host from the name, "Connection: close", exactly
 * the body), so a second request on a kept-alive connection never
 * reaches the upstream unread; the client sends it again on a new
 * connection, whose first request is checked.
 * Return: true with c->have_req set; false when @c was answered (400, 503).
 */
static bool transparent_read_request(struct jr_relay *r, struct conn *c)
{
	struct jr_err err = { 0 };
	size_t len = 0;
	bool bad;
	char *buf;
	long hl;

	buf = absolute_form(c, &len, &bad);
	if (!buf) {
		if (!bad) {
			relay_out_of_memory(r, c);
			return false;
		}
		relay_reply(
		    r, c, 400, NULL, "bad-request", false,
		    "jailrun: a captured HTTP request to %s must have a target starting with '/'",
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
	return true;
}

/*
 * transparent_checks() - what a decided captured connection meets before
 * any of its bytes goes upstream: an HTTP request is read as the proxy
 * reads one, then the --allow-http rules, then, for HTTP, the secrets.
 * Return: true to go on; false when @c was answered or closed.
 */
static bool transparent_checks(struct jr_relay *r, struct conn *c)
{
	if (c->answer_http && !transparent_read_request(r, c))
		return false;
	if (!relay_httprules_transparent(r, c)) /* --allow-http */
		return false;
	return !(c->have_req && relay_inspect_plain(r, c)); /* --secret */
}

/* The peek is over: connect, carrying the bytes read so far. */
static void transparent_go(struct jr_relay *r, struct conn *c)
{
	if (transparent_checks(r, c))
		relay_upstream_start(r, c);
}

/*
 * transparent_half_closed() - the client of @c ended its side with its
 * first bytes undecided (c->in, maybe none): nothing more will come, so
 * decide with what there is. Part of an HTTP head or of a TLS hello
 * cannot be checked: refused, as the peek refuses them. Nothing, or a
 * first line that names no HTTP version ("PING", a token that could have
 * been a method): nothing for any server to route, it goes on.
 * Return: true to go on; false when @c was answered or closed.
 */
static bool transparent_half_closed(struct jr_relay *r, struct conn *c)
{
	if (c->answer_http) {
		relay_reply(r, c, 400, NULL, "bad-request", false,
			    "jailrun: bad request: incomplete head");
		return false;
	}
	if (c->in_len && (uint8_t)c->in[0] == 0x16) {
		relay_conn_reset(r, c, "tls-incomplete", false);
		return false;
	}
	return true;
}

/**
 * relay_transparent_decide() - what the first bytes of a captured
 * connection say about it. Pure, so the TLS / HTTP reading is unit tested
 * without a relay (tests/unit/test_transparent.c).
 * @buf: the client bytes so far (at least one)
 * @len: how many
 * @host: the name (or address, as text) the connection is for
 * @host_is_address: @host is a literal address: a ClientHello without SNI
 *	is then fine, as for CONNECT; for a name it cannot be checked
 * @port: the original destination port (a Host without a port means it)
 * @d: out: the verdict, whether the bytes are HTTP, the audit reason of a
 *	refusal and the SNI or Host seen
 *
 * A TLS handshake record must carry an SNI equal to @host (else a reset);
 * a request line must have exactly one valid Host naming @host (else 400
 * or 403); anything else has no name to check and goes on.
 */
void relay_transparent_decide(const char *buf, size_t len, const char *host,
			      bool host_is_address, uint16_t port,
			      struct relay_head_decision *d)
{
	size_t used = 0;
	int h;

	d->verdict = RELAY_HEAD_MORE;
	d->http = false;
	d->reason = NULL;
	d->seen[0] = '\0';
	if (!len)
		return;
	if ((uint8_t)buf[0] == 0x16) { /* a TLS handshake record */
		switch (jr_tls_client_hello_sni((const uint8_t *)buf, len,
						d->seen, sizeof(d->seen),
						&used)) {
		case JR_TLS_NEED_MORE:
			d->seen[0] = '\0';
			return;
		case JR_TLS_SNI_FOUND:
			if (!same_host(host, d->seen)) {
				d->verdict = RELAY_HEAD_RESET;
				d->reason = "sni-mismatch";
				return;
			}
			d->verdict = RELAY_HEAD_GO;
			return;
		case JR_TLS_NO_SNI:
			d->seen[0] = '\0';
			d->verdict =
			    host_is_address ? RELAY_HEAD_GO : RELAY_HEAD_RESET;
			d->reason = host_is_address ? NULL : "sni-missing";
			return;
		case JR_TLS_NOT_TLS:
			d->seen[0] = '\0';
			break;
		case JR_TLS_MALFORMED:
		default:
			d->seen[0] = '\0';
			d->verdict = RELAY_HEAD_RESET;
			d->reason = "tls-malformed";
			return;
		}
	}
	switch (http_request_start(buf, len)) {
	case -1:
		return;
	case 0:
		d->verdict = RELAY_HEAD_GO; /* neither TLS nor HTTP */
		return;
	}
	d->http = true;
	h = http_host(buf, len, port, d->seen);
	if (h == 0) {
		d->seen[0] = '\0';
		return;
	}
	if (h < 0) {
		d->seen[0] = '\0';
		d->verdict = RELAY_HEAD_HTTP_400;
		d->reason = "bad-request";
		return;
	}
	if (!same_host(host, d->seen)) {
		d->verdict = RELAY_HEAD_HTTP_403;
		d->reason = "host-mismatch";
		return;
	}
	d->verdict = RELAY_HEAD_GO;
}

/* Decide on c->in, the first client bytes so far. */
static void transparent_decide_conn(const struct conn *c,
				    struct relay_head_decision *d)
{
	struct sockaddr_storage ss;
	socklen_t sl;

	relay_transparent_decide(c->in, c->in_len, c->host,
				 relay_literal_address(c->host, &ss, &sl),
				 c->port, d);
}

/*
 * transparent_refused() - carry out a refusing decision @d on @c.
 * Return: true if @d refused (@c is answered or closed), false for
 * RELAY_HEAD_GO and RELAY_HEAD_MORE.
 */
static bool transparent_refused(struct jr_relay *r, struct conn *c,
				const struct relay_head_decision *d)
{
	switch (d->verdict) {
	case RELAY_HEAD_MORE:
	case RELAY_HEAD_GO:
		return false;
	case RELAY_HEAD_RESET:
		if (d->seen[0])
			jr_debug("relay: captured %s carried TLS for %s",
				 c->host, d->seen);
		relay_conn_reset(r, c, d->reason, false);
		return true;
	case RELAY_HEAD_HTTP_400:
		relay_reply(
		    r, c, 400, NULL, "bad-request", false,
		    "jailrun: a captured HTTP request to %s needs exactly one valid Host header",
		    c->host);
		return true;
	case RELAY_HEAD_HTTP_403:
		relay_reply(
		    r, c, 403, "host-mismatch", "host-mismatch", false,
		    "jailrun: this connection was for %s, but the request is for %s",
		    c->host, d->seen);
		return true;
	}
	return false;
}

/*
 * transparent_head - more first bytes of a captured connection
 * arrived (c->in, @before of them were there already): decide by the TLS
 * name or the HTTP Host, or wait for more.
 */
static void transparent_head(struct jr_relay *r, struct conn *c, size_t before)
{
	struct relay_head_decision d;

	c->bytes_up += c->in_len - before;
	/* Bytes came: from now on the whole head has the header timeout. */
	c->deadline = c->t_peek + r->cfg.header_timeout_ms;
	transparent_decide_conn(c, &d);
	if (d.http)
		c->answer_http = true;
	if (d.verdict == RELAY_HEAD_MORE || transparent_refused(r, c, &d))
		return;
	transparent_go(r, c);
}

/*
 * transparent_client_eof - the client of @c (ST_HEAD) ended its side
 * after first bytes that decided nothing yet: decide with them.
 */
static void transparent_client_eof(struct jr_relay *r, struct conn *c)
{
	if (transparent_half_closed(r, c))
		transparent_go(r, c);
}

/*
 * transparent_late_head - the first client bytes of a captured
 * connection that was connected on the peek's timeout: nothing came
 * within RELAY_TRANSPARENT_PEEK_MS, so the server may speak first (SMTP,
 * databases), or the client is slow. Whenever those bytes come, and
 * whatever the server said before, they are read and decided as at the
 * peek (relay_transparent_decide()): a TLS hello must name c->host, an
 * HTTP request must have c->host as its Host and is then relayed as the
 * proxy relays one (transparent_read_request()), anything else is
 * tunnelled. None of them reaches the upstream before that. Called by
 * relay_pump() while c->late_head; the upstream's bytes flow meanwhile.
 * Return: 0 to go on (a tunnel from now on, or waiting for more bytes);
 * -1 when @c was closed, answered or became an HTTP exchange: the caller
 * stops there.
 */
static int transparent_late_head(struct jr_relay *r, struct conn *c)
{
	struct relay_head_decision d = { .verdict = RELAY_HEAD_MORE };

	while (d.verdict == RELAY_HEAD_MORE) {
		ssize_t n;

		/* relay_transparent_decide() decides by JR_HTTP_HEAD_MAX
		 * bytes (a TLS hello is no longer), so the buffer never
		 * fills up undecided. */
		if (relay_grow_in(c, JR_HTTP_HEAD_MAX + 1) < 0) {
			relay_out_of_memory(r, c);
			return -1;
		}
		n = recv(c->cfd, c->in + c->in_len, c->in_cap - c->in_len, 0);
		if (n < 0) {
			if (errno == EAGAIN || errno == EINTR)
				return 0;
			relay_conn_free(r, c);
			return -1;
		}
		if (n == 0) {
			/* What came goes on, and the tunnel passes the EOF
			 * on too, unless it cannot be checked. */
			c->late_head = false;
			if (!transparent_half_closed(r, c))
				return -1;
			return relay_tunnel_pass_head(r, c);
		}
		c->in_len += (size_t)n;
		c->bytes_up += (uint64_t)n;
		c->t_last = jr_clock_ms();
		transparent_decide_conn(c, &d);
		if (d.http)
			c->answer_http = true;
	}
	c->late_head = false;
	if (transparent_refused(r, c, &d) || !transparent_checks(r, c))
		return -1;
	if (c->have_req) {
		relay_tunnel_exchange(r, c);
		return -1;
	}
	return relay_tunnel_pass_head(r, c);
}

/*
 * transparent_timeout - the sweep found @c (ST_HEAD) past its
 * deadline: with no byte yet, the server speaks first, so connect; with a
 * partial TLS hello or HTTP head, the client is too slow: reset.
 */
static void transparent_timeout(struct jr_relay *r, struct conn *c)
{
	if (!c->in_len) {
		transparent_go(r, c);
		return;
	}
	relay_conn_reset(r, c, "header-timeout", false);
}

/*
 * transparent_connected - the upstream of a captured connection accepted.
 * A plain HTTP request, read and checked, is relayed as the proxy's one
 * request; a TLS hello to an inspected name goes to TLS inspection; else
 * a tunnel from the first byte, its TLS name checked against c->host.
 * Connected on the peek's timeout, before any client byte: those bytes,
 * whenever they come, are decided as at the peek (transparent_late_head())
 * before any goes upstream.
 */
static void transparent_connected(struct jr_relay *r, struct conn *c)
{
	if (c->have_req) {
		relay_tunnel_exchange(r, c);
		return;
	}
	if (relay_inspect_captured(r, c)) /* TLS inspection */
		return;
	relay_tunnel_start(c, true);
	c->late_head = !c->in_len;
	relay_tunnel_run(r, c);
	/* The bytes peeked at are in c->in and the client may send nothing
	 * more before an answer: pass them on now rather than wait for an
	 * event that may never come. */
	relay_pump(r, c);
}

/* Captured connections: a peek, then the upstream path and a tunnel. */
const struct relay_ops relay_transparent_ops = {
	.accepted = transparent_accepted,
	.head = transparent_head,
	.client_eof = transparent_client_eof,
	.head_timeout = transparent_timeout,
	.refuse = relay_refuse_reset,
	.resolved = relay_upstream_resolved,
	.connect_done = relay_connect_done,
	.connect_timeout = relay_connect_timeout,
	.connected = transparent_connected,
	.pump = relay_pump,
	.upstream_error = relay_upstream_error,
	.late_head = transparent_late_head,
	.asked = transparent_asked,
	.release = relay_tunnel_release,
};
