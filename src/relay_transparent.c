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
 *   peek at the first client bytes (HEAD state):
 *     a TLS ClientHello  -> its SNI must be the name     else: reset
 *     an HTTP request    -> its Host must be the name    else: 403
 *     anything else, or nothing within RELAY_TRANSPARENT_PEEK_MS (a
 *     server-speaks-first protocol: SSH banners, SMTP, databases) -> go on
 *   relay_upstream_start(): the relay's resolver (cached), the SSRF
 *   guard on every address, connect to the address that passed, then a
 *   spliced tunnel whose first bytes are the ones peeked at.
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
#include <string.h>
#include <strings.h>
#include <sys/socket.h>

#include "cleanup.h"
#include "clock.h"
#include "host.h"
#include "http.h"
#include "log.h"
#include "relay-internal.h"
#include "tls.h"

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
 * transparent_reset() - refuse @c with a TCP reset and audit it.
 * @r: relay
 * @c: a KIND_TRANSPARENT connection, before any byte went upstream
 * @reason: the audit reason
 * @allowed: the policy's verdict (true when the refusal is a failure of
 *	an allowed connection, e.g. the upstream did not answer)
 */
static void transparent_reset(struct jr_relay *r, struct conn *c,
			      const char *reason, bool allowed)
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
 * relay_transparent_refuse - how relay_reply() ends a captured connection
 * that did not speak HTTP: a reset, audited with @status and @reason.
 */
void relay_transparent_refuse(struct jr_relay *r, struct conn *c, int status,
			      const char *reason, bool allowed)
{
	relay_close_fd(&c->ufd);
	c->uev = UINT32_MAX;
	c->status = status;
	transparent_reset(r, c, reason, allowed);
}

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

/*
 * relay_transparent_accepted - a captured connection was accepted into @c
 * (KIND_TRANSPARENT, ST_HEAD): find its destination, check the policy,
 * and wait for its first bytes.
 */
void relay_transparent_accepted(struct jr_relay *r, struct conn *c)
{
	struct sockaddr_storage ss;
	enum jr_deny_reason why;
	const void *a;
	int e;

	e = original_dst(c->cfd, &ss);
	if (e < 0) {
		jr_debug(
		    "relay: a captured connection has no original destination: %s",
		    strerror(-e));
		transparent_reset(r, c, "no-original-destination", false);
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
			transparent_reset(r, c, "unknown-synthetic-address",
					  false);
			return;
		}
	} else {
		/* A literal destination: the worker lets out only what an
		 * address entry names; the policy says so again here. */
		c->host = c->original;
	}
	why = jr_policy_check_name(r->cfg.policy, c->host, c->port);
	if (why != JR_ALLOWED) {
		transparent_reset(r, c, jr_deny_reason_name(why), false);
		return;
	}
	/* Allowed so far: a client that goes away now was not refused. */
	c->allowed = true;
	c->deadline = c->t_start + RELAY_TRANSPARENT_PEEK_MS;
	relay_want_events(r, c);
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

/* The peek is over: connect, carrying the bytes read so far. */
static void transparent_go(struct jr_relay *r, struct conn *c)
{
	if (!relay_httprules_transparent(r, c)) /* --allow-http */
		return;
	relay_upstream_start(r, c);
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
	switch (http_method_prefix(buf, len)) {
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

/*
 * relay_transparent_head - more first bytes of a captured connection
 * arrived (c->in, @before of them were there already): decide by the TLS
 * name or the HTTP Host, or wait for more.
 */
void relay_transparent_head(struct jr_relay *r, struct conn *c, size_t before)
{
	struct relay_head_decision d;
	struct sockaddr_storage ss;
	socklen_t sl;

	c->bytes_up += c->in_len - before;
	/* Bytes came: from now on the whole head has the header timeout. */
	c->deadline = c->t_start + r->cfg.header_timeout_ms;
	relay_transparent_decide(c->in, c->in_len, c->host,
				 relay_literal_address(c->host, &ss, &sl),
				 c->port, &d);
	if (d.http)
		c->answer_http = true;
	switch (d.verdict) {
	case RELAY_HEAD_MORE:
		return;
	case RELAY_HEAD_GO:
		transparent_go(r, c);
		return;
	case RELAY_HEAD_RESET:
		if (d.seen[0])
			jr_debug("relay: captured %s carried TLS for %s",
				 c->host, d.seen);
		transparent_reset(r, c, d.reason, false);
		return;
	case RELAY_HEAD_HTTP_400:
		relay_reply(
		    r, c, 400, NULL, "bad-request", false,
		    "jailrun: a captured HTTP request to %s needs exactly one valid Host header",
		    c->host);
		return;
	case RELAY_HEAD_HTTP_403:
		relay_reply(
		    r, c, 403, "host-mismatch", "host-mismatch", false,
		    "jailrun: this connection was for %s, but the request is for %s",
		    c->host, d.seen);
		return;
	}
}

/*
 * relay_transparent_timeout - the sweep found @c (ST_HEAD) past its
 * deadline: with no byte yet, the server speaks first, so connect; with a
 * partial TLS hello or HTTP head, the client is too slow: reset.
 */
void relay_transparent_timeout(struct jr_relay *r, struct conn *c)
{
	if (!c->in_len) {
		transparent_go(r, c);
		return;
	}
	transparent_reset(r, c, "header-timeout", false);
}
