// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * http.c - the request heads the relay's HTTP proxy accepts, the head it
 * sends upstream in their place, the answers it writes itself, and the
 * framing of request bodies. Pure: bytes in, decisions and bytes out; no
 * I/O and no global state, so all of it is unit-tested and fuzzed.
 *
 * Theory of operation
 *
 * Strict wherever RFC 9112 offers a choice. The proxy stands between a
 * client it does not trust and servers it does not know, and every byte it
 * forwards is parsed again upstream. Request smuggling is two parsers
 * framing the same bytes differently, so where the RFCs let a recipient
 * either reject or repair a message, this parser rejects (the caller
 * answers 400), with the one exception of identical Content-Length values:
 *  - lines end in CRLF; a bare LF or bare CR anywhere in the head is
 *    refused (RFC 9112 2.2 allows taking LF alone as a line end; we do not);
 *  - no empty line before the request line (2.2 says a server SHOULD
 *    ignore one after a previous message; a fresh connection has none),
 *    no whitespace after the request line and no obs-fold (2.2, 5.2), no
 *    whitespace between a field name and its colon (5.1);
 *  - Content-Length together with Transfer-Encoding is refused (6.1 allows
 *    that or ignoring Content-Length), so is Transfer-Encoding in an
 *    HTTP/1.0 request (6.1) and any transfer coding other than exactly one
 *    "chunked" (6.3);
 *  - Content-Length is 1*DIGIT (RFC 9110 8.6) and at most INT64_MAX, so no
 *    upstream can read it as negative. Several identical values, as list
 *    ("5, 5") or as several fields, are accepted and sent on as a single
 *    field: that is the repair 8.6 describes. Values that differ are
 *    refused;
 *  - a CONNECT request with Content-Length or Transfer-Encoding is refused:
 *    RFC 9110 9.3.6 gives CONNECT no content, and accepting a length would
 *    leave open whether the bytes after the head are a body to drop or the
 *    first bytes of the tunnel;
 *  - Connection may not name Content-Length, Transfer-Encoding or Host
 *    (RFC 9110 7.6.1 forbids options for fields meant for every
 *    recipient); obeying it would strip the framing from a body the proxy
 *    still forwards.
 *
 * Stateless and prefix-stable. jr_http_parse_request() parses from the
 * start of the buffer on every call, so the relay keeps no parser state: it
 * appends what it reads and asks again. Complete lines are checked in full
 * as they arrive; the incomplete last line only for what is already
 * decided (a bare CR, a method byte that is not a tchar), so a client that
 * speaks TLS or SOCKS to the port is refused on its first read. A prefix
 * that is refused has every extension refused too, and a complete head is
 * reported with the same length whatever bytes follow it.
 *
 * Each call costs time linear in min(len, JR_HTTP_HEAD_MAX), so calling it
 * after every read of a client that trickles its head a byte at a time is
 * quadratic (seconds of CPU for 64 KiB). It need not be called that often:
 * whenever the bytes hold "\n\n" or "\n\r\n" (the earliest a head can end,
 * with CRLF or with a bare LF) the answer is never 0. So the relay calls it
 * on the first read, then only when the new bytes, with the two before
 * them, hold one of those, or when JR_HTTP_HEAD_MAX bytes are in; then a
 * connection costs at most two parses. tests/fuzz/fuzz_http.c checks the
 * "never 0" property.
 *
 * The upstream never sees the client's head. For an absolute-form request
 * a new one is written: the request line with the origin-form target and
 * HTTP/1.1 (RFC 9110 6.2: an intermediary sends its own version); Host
 * from the URI, first (RFC 9112 3.2), because the URI is what the policy
 * checked (3.2.2 has origin servers ignore the Host field of an
 * absolute-form request for the same reason); the client's fields in their
 * order minus Host and the hop-by-hop ones (RFC 9110 7.6.1), with the
 * framing field rewritten canonically so that the framing the upstream
 * reads is the framing jr_http_body_feed() enforces; "Connection: close".
 * A client's Host field is not required (the target names the destination,
 * and old clients send CONNECT without one) but, when present, it must be
 * one valid authority (RFC 9112 3.2).
 *
 * An authority is a reg-name of [A-Za-z0-9.-] or a bracketed IPv6 literal,
 * and a port of 1..65535. Percent-encoding, zone ids, IPvFuture and
 * userinfo are refused, so "http://allowed.test@denied.test/" cannot steer
 * the policy, and an unbracketed IPv6 address never has its last group
 * taken for a port. What a name means (numeric forms, wildcards) is the
 * policy's to judge; here it is only lowercased.
 *
 * The body tracker is a state machine over RFC 9112 7.1, one byte at a
 * time except for chunk data, which is counted in bulk. It is strict in the
 * same way (chunk extensions follow their grammar, trailer lines are
 * fields) and stops at the LF that ends the trailer section, so no byte
 * after the body is ever counted as body.
 */
#include <arpa/inet.h>
#include <errno.h>
#include <inttypes.h>
#include <netinet/in.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "err.h"
#include "http.h"

/* Most Connection options one request may carry (RFC 9110 7.6.1). */
#define HTTP_CONN_OPTS_MAX 16
/*
 * Largest Content-Length and chunk size: what a signed 64-bit length
 * holds, so that no upstream reads a value as negative.
 */
#define HTTP_LENGTH_MAX ((uint64_t)INT64_MAX)
/* Client bytes quoted in a message: at most this many, then "...". */
#define HTTP_QUOTE_MAX 48
#define HTTP_QUOTE_SIZE (HTTP_QUOTE_MAX + sizeof("..."))

static bool http_is_digit(unsigned char c)
{
	return c >= '0' && c <= '9';
}

static bool http_is_alpha(unsigned char c)
{
	c |= 0x20;
	return c >= 'a' && c <= 'z';
}

/* tchar, RFC 9110 5.6.2: what tokens (methods, field names) are made of. */
static bool http_is_tchar(unsigned char c)
{
	return http_is_alpha(c) || http_is_digit(c) ||
	       (c && strchr("!#$%&'*+-.^_`|~", c));
}

/* VCHAR, RFC 5234 B.1. */
static bool http_is_vchar(unsigned char c)
{
	return c > ' ' && c < 0x7f;
}

/* OWS and BWS, RFC 9110 5.6.3. */
static bool http_is_ows(unsigned char c)
{
	return c == ' ' || c == '\t';
}

/*
 * What a field value may hold, RFC 9110 5.5: field-vchar (VCHAR and
 * obs-text), SP and HTAB. NUL and the other CTLs are refused.
 */
static bool http_is_field_byte(unsigned char c)
{
	return http_is_ows(c) || http_is_vchar(c) || c >= 0x80;
}

static int http_hex_value(unsigned char c)
{
	if (http_is_digit(c))
		return c - '0';
	c |= 0x20;
	return c >= 'a' && c <= 'f' ? c - 'a' + 10 : -1;
}

/* The letters, digits, '.' and '-' of the reg-names jailrun accepts. */
static bool http_is_name_byte(unsigned char c)
{
	return http_is_alpha(c) || http_is_digit(c) || c == '.' || c == '-';
}

static bool http_is_ipv6_byte(unsigned char c)
{
	return http_hex_value(c) >= 0 || c == ':' || c == '.';
}

static char http_lower(char c)
{
	return c >= 'A' && c <= 'Z' ? c - 'A' + 'a' : c;
}

/* Length of the run at the start of @s[0..n) whose bytes satisfy @pred. */
static size_t http_span(const char *s, size_t n, bool (*pred)(unsigned char))
{
	size_t i = 0;

	while (i < n && pred((unsigned char)s[i]))
		i++;
	return i;
}

/* Index of the first byte of @s[0..n) found in @set, or @n. */
static size_t http_find_any(const char *s, size_t n, const char *set)
{
	size_t i = 0;

	while (i < n && !(s[i] && strchr(set, s[i])))
		i++;
	return i;
}

/* ASCII case-insensitive equality, independent of the locale. */
static bool http_ieq(const char *a, size_t an, const char *b, size_t bn)
{
	size_t i;

	if (an != bn)
		return false;
	for (i = 0; i < an; i++)
		if (http_lower(a[i]) != http_lower(b[i]))
			return false;
	return true;
}

static bool http_name_is(const char *s, size_t n, const char *lit)
{
	return http_ieq(s, n, lit, strlen(lit));
}

/* token = 1*tchar, RFC 9110 5.6.2. */
static bool http_is_token(const char *s, size_t n)
{
	return n && http_span(s, n, http_is_tchar) == n;
}

/* Drop the OWS around @*s[0..*n). */
static void http_trim(const char **s, size_t *n)
{
	while (*n && http_is_ows((unsigned char)(*s)[0])) {
		(*s)++;
		(*n)--;
	}
	while (*n && http_is_ows((unsigned char)(*s)[*n - 1]))
		(*n)--;
}

/**
 * http_quote() - client bytes made fit for an error message.
 * @out: HTTP_QUOTE_SIZE bytes
 * @s: the bytes
 * @n: how many
 *
 * Messages end up in the 400 body and the audit log, so a client must not
 * be able to put control bytes or a line break into either.
 *
 * Return: @out: at most HTTP_QUOTE_MAX bytes of @s, each one outside VCHAR
 * and SP shown as '?', and "..." if @s was longer.
 */
static const char *http_quote(char *out, const char *s, size_t n)
{
	size_t i;

	for (i = 0; i < n && i < HTTP_QUOTE_MAX; i++)
		out[i] = http_is_vchar((unsigned char)s[i]) || s[i] == ' '
			     ? s[i]
			     : '?';
	strcpy(out + i, i < n ? "..." : "");
	return out;
}

/**
 * http_decimal() - parse 1*DIGIT.
 * @s: the digits
 * @n: how many
 * @max: the largest value accepted
 * @v: the value, set on success
 *
 * Leading zeros are accepted: RFC 9110 8.6 and RFC 3986 3.2.3 allow them,
 * and the value is what jailrun acts on and sends on.
 *
 * Return: true, or false for no digits, a byte that is not one, or a value
 * above @max.
 */
static bool http_decimal(const char *s, size_t n, uint64_t max, uint64_t *v)
{
	uint64_t x = 0;
	size_t i;

	if (!n)
		return false;
	for (i = 0; i < n; i++) {
		unsigned int d;

		if (!http_is_digit((unsigned char)s[i]))
			return false;
		d = (unsigned char)s[i] - '0';
		if (x > (max - d) / 10)
			return false;
		x = x * 10 + d;
	}
	*v = x;
	return true;
}

/**
 * http_list_next() - the next element of a comma-separated list.
 * @v: the field value
 * @n: its length
 * @pos: where the element starts; advanced past its comma
 * @e: the element, OWS trimmed (may be empty: RFC 9110 5.6.1)
 * @en: its length
 *
 * Return: false once the list is exhausted.
 */
static bool http_list_next(const char *v, size_t n, size_t *pos, const char **e,
			   size_t *en)
{
	size_t end;

	if (*pos > n)
		return false;
	end = *pos + http_find_any(v + *pos, n - *pos, ",");
	*e = v + *pos;
	*en = end - *pos;
	http_trim(e, en);
	*pos = end + 1;
	return true;
}

/* An IPv6 address in the text forms of RFC 4291 2.2; no zone id. */
static bool http_is_ipv6(const char *s, size_t n)
{
	char text[INET6_ADDRSTRLEN];
	struct in6_addr addr;

	if (n >= sizeof(text) || http_span(s, n, http_is_ipv6_byte) != n)
		return false;
	memcpy(text, s, n);
	text[n] = '\0';
	return inet_pton(AF_INET6, text, &addr) == 1;
}

int jr_http_parse_authority(const char *s, size_t n, uint16_t default_port,
			    char *host, size_t host_size, bool *is_ipv6,
			    uint16_t *port, struct jr_err *err)
{
	char q[HTTP_QUOTE_SIZE];
	const char *h = s, *rest;
	bool v6 = n && s[0] == '[';
	size_t hn, rn, i;
	uint64_t p = default_port;

	if (!n)
		return jr_err_set(err, EINVAL, "empty authority");
	if (memchr(s, '@', n))
		return jr_err_set(err, EINVAL,
				  "'%s': userinfo (user@host) is not allowed",
				  http_quote(q, s, n));
	if (v6) {
		const char *close = memchr(s, ']', n);

		if (!close)
			return jr_err_set(err, EINVAL, "'%s': '[' without ']'",
					  http_quote(q, s, n));
		h = s + 1;
		hn = close - h;
		rest = close + 1;
	} else {
		hn = http_find_any(s, n, ":");
		rest = s + hn;
	}
	rn = s + n - rest;
	if (!hn)
		return jr_err_set(err, EINVAL, "'%s': empty host",
				  http_quote(q, s, n));
	if (v6 ? !http_is_ipv6(h, hn)
	       : http_span(h, hn, http_is_name_byte) != hn)
		return jr_err_set(
		    err, EINVAL,
		    "'%s': the host must be a name of letters, digits, '.' and '-', or an IPv6 address in brackets",
		    http_quote(q, s, n));
	if (!rn && !default_port)
		return jr_err_set(err, EINVAL, "'%s': a port is required",
				  http_quote(q, s, n));
	if (rn && (rest[0] != ':' ||
		   !http_decimal(rest + 1, rn - 1, 65535, &p) || !p))
		return jr_err_set(
		    err, EINVAL,
		    "'%s': the port must be a number from 1 to 65535",
		    http_quote(q, s, n));
	if (hn >= host_size)
		return jr_err_set(err, EINVAL, "'%s': host name too long",
				  http_quote(q, s, n));
	for (i = 0; i < hn; i++)
		host[i] = http_lower(h[i]);
	host[hn] = '\0';
	*is_ipv6 = v6;
	*port = (uint16_t)p;
	return 0;
}

/* The length of a URI scheme (RFC 3986 3.1) followed by ':', or 0. */
static size_t http_scheme_len(const char *s, size_t n)
{
	size_t i;

	if (!n || !http_is_alpha((unsigned char)s[0]))
		return 0;
	for (i = 1; i < n; i++)
		if (!http_is_alpha((unsigned char)s[i]) &&
		    !http_is_digit((unsigned char)s[i]) && !strchr("+-.", s[i]))
			break;
	return i < n && s[i] == ':' ? i : 0;
}

/* Where the origin-form of an absolute URI lies within it. */
struct http_origin {
	const char *path; /* path and query, fragment excluded */
	size_t len;
	bool slash; /* "/" goes in front: the path is empty */
};

/**
 * http_origin_split() - find the origin-form of "scheme://authority...".
 * @uri: the absolute URI
 * @n: its length
 * @o: filled on success
 *
 * RFC 9112 3.2.1: origin-form = absolute-path [ "?" query ], and an empty
 * path is sent as "/". The fragment is not part of a request target
 * (RFC 9110 7.1) and is dropped. The authority is not judged here.
 *
 * Return: 0, or -EINVAL if @uri does not start with "scheme://".
 */
static int http_origin_split(const char *uri, size_t n, struct http_origin *o)
{
	size_t s = http_scheme_len(uri, n), a, end;

	if (!s || n - s < 3 || memcmp(uri + s, "://", 3))
		return -EINVAL;
	a = s + 3;
	a += http_find_any(uri + a, n - a, "/?#");
	end = a + http_find_any(uri + a, n - a, "#");
	o->path = uri + a;
	o->len = end - a;
	o->slash = !o->len || uri[a] != '/';
	return 0;
}

int jr_http_origin_form(const char *uri, size_t n, char *out, size_t out_size)
{
	struct http_origin o;

	if (http_origin_split(uri, n, &o) < 0 || o.slash + o.len >= out_size)
		return -EINVAL;
	if (o.slash)
		out[0] = '/';
	memcpy(out + o.slash, o.path, o.len);
	out[o.slash + o.len] = '\0';
	return 0;
}

/* What jr_http_parse_request() learns on its way through the head. */
struct http_parse {
	const char *buf;
	struct jr_http_request *req;
	struct jr_err *err;
	unsigned int line_no; /* of the line being parsed, from 1 */
	size_t fields_start;  /* offset of the first field line */
	const char *target;   /* the request-target */
	size_t target_len;
	struct http_origin origin; /* ABSOLUTE: within target */
	bool http10;
	unsigned int host_fields;
	bool have_length, have_chunked;
	uint64_t length;
	const char *conn_opt[HTTP_CONN_OPTS_MAX]; /* named in Connection */
	size_t conn_opt_len[HTTP_CONN_OPTS_MAX];
	unsigned int n_conn_opts;
};

/* Give an error from a helper the context it lacks; keep its code. */
static int http_context(int r, struct jr_err *err, const char *what)
{
	if (r < 0 && err)
		jr_err_prefix(err, "%s: ", what);
	return r;
}

/**
 * http_next_line() - the next CRLF-terminated line of the head.
 * @buf: the bytes received
 * @win: how many of them may belong to the head
 * @pos: where the line starts; on success, advanced past its CRLF
 * @line: the line, CRLF excluded
 * @n: its length
 * @line_no: its number, for messages
 * @err: why the line is refused
 *
 * RFC 9112 2.2: a bare CR must be refused or replaced, a bare LF may be
 * taken as a line end. Both are refused: a line end this parser and the
 * upstream see differently is how requests get smuggled. An incomplete
 * line is refused as soon as it holds a CR that is not its last byte.
 *
 * Return: 1 for a line, 0 if the line is not complete, -EINVAL.
 */
static int http_next_line(const char *buf, size_t win, size_t *pos,
			  const char **line, size_t *n, unsigned int line_no,
			  struct jr_err *err)
{
	const char *p = buf + *pos, *lf, *cr;
	size_t avail = win - *pos, len;

	if (!avail)
		return 0;
	lf = memchr(p, '\n', avail);
	len = lf ? (size_t)(lf - p) : avail;
	cr = memchr(p, '\r', len);
	if (cr && cr + 1 < p + len)
		return jr_err_set(
		    err, EINVAL,
		    "line %u: CR not followed by LF (RFC 9112 2.2)", line_no);
	if (!lf)
		return 0;
	if (!cr)
		return jr_err_set(err, EINVAL,
				  "line %u: LF without CR (RFC 9112 2.2)",
				  line_no);
	*line = p;
	*n = len - 1;
	*pos += len + 1;
	return 1;
}

/*
 * The start of a request line still incomplete: refuse at once what cannot
 * be the start of a method (RFC 9112 3: method = token, then SP).
 */
static int http_method_prefix(struct http_parse *hp, const char *s, size_t n)
{
	size_t m = http_span(s, n, http_is_tchar);

	if (m < n && s[m] != ' ')
		return jr_err_set(
		    hp->err, EINVAL,
		    "not an HTTP request: byte 0x%02x where a method was expected",
		    (unsigned char)s[m]);
	if (m >= sizeof(hp->req->method))
		return jr_err_set(hp->err, EINVAL,
				  "method longer than %zu bytes",
				  sizeof(hp->req->method) - 1);
	if (!m && n)
		return jr_err_set(hp->err, EINVAL,
				  "request line starts with a space");
	return 0;
}

/* CONNECT host:port, RFC 9110 9.3.6: the authority-form, port required. */
static int http_connect_target(struct http_parse *hp)
{
	struct jr_http_request *req = hp->req;

	req->form = JR_HTTP_FORM_CONNECT;
	return http_context(
	    jr_http_parse_authority(hp->target, hp->target_len, 0, req->host,
				    sizeof(req->host), &req->host_is_ipv6,
				    &req->port, hp->err),
	    hp->err, "CONNECT target");
}

/* METHOD http://authority[/path][?query], RFC 9112 3.2.2. */
static int http_absolute_target(struct http_parse *hp)
{
	struct jr_http_request *req = hp->req;
	const char *t = hp->target;
	size_t n = hp->target_len, s = http_scheme_len(t, n), an;
	char q[HTTP_QUOTE_SIZE];

	http_quote(q, t, n);
	if (!s)
		return jr_err_set(
		    hp->err, EINVAL,
		    "request target '%s' is not an absolute URI: ask the proxy for http://host/path",
		    q);
	if (http_name_is(t, s, "https"))
		return jr_err_set(
		    hp->err, EINVAL,
		    "'%s': https goes through the proxy with CONNECT, not as an absolute URI",
		    q);
	if (!http_name_is(t, s, "http") || n - s < 3 || memcmp(t + s, "://", 3))
		return jr_err_set(
		    hp->err, EINVAL,
		    "request target '%s' is not an http:// URI (https goes through CONNECT)",
		    q);
	an = http_find_any(t + s + 3, n - s - 3, "/?#");
	req->form = JR_HTTP_FORM_ABSOLUTE;
	/* cannot fail: the scheme and "://" are there */
	http_origin_split(t, n, &hp->origin);
	return http_context(jr_http_parse_authority(
				t + s + 3, an, 80, req->host, sizeof(req->host),
				&req->host_is_ipv6, &req->port, hp->err),
			    hp->err, "request target");
}

/**
 * http_request_line() - method SP request-target SP HTTP-version.
 * @hp: the parse
 * @line: the line, CRLF excluded
 * @n: its length
 *
 * RFC 9112 3: exactly one SP between the parts. Only HTTP/1.1 and
 * HTTP/1.0 (2.3: the version is case-sensitive); no HTTP/0.9 request
 * without a version. The request-target is VCHAR only (RFC 9112 3.2:
 * URI characters; raw non-ASCII is refused rather than guessed at).
 * CONNECT (a case-sensitive method name, RFC 9110 9.1) takes the
 * authority-form, every other method the absolute-form.
 *
 * Return: 0 or -EINVAL.
 */
static int http_request_line(struct http_parse *hp, const char *line, size_t n)
{
	struct jr_http_request *req = hp->req;
	size_t m = http_span(line, n, http_is_tchar), tn, vn;
	const char *t, *v;
	char q[HTTP_QUOTE_SIZE];
	int r = http_method_prefix(hp, line, n);

	if (r < 0)
		return r;
	if (!n)
		return jr_err_set(
		    hp->err, EINVAL,
		    "empty line where the request line was expected");
	if (m == n)
		return jr_err_set(hp->err, EINVAL,
				  "request line '%s' has no target",
				  http_quote(q, line, n));
	memcpy(req->method, line, m);
	req->method[m] = '\0';
	t = line + m + 1;
	tn = http_span(t, line + n - t, http_is_vchar);
	if (!tn)
		return jr_err_set(
		    hp->err, EINVAL,
		    "request line '%s': no single space before the target",
		    http_quote(q, line, n));
	if (t + tn == line + n)
		return jr_err_set(
		    hp->err, EINVAL,
		    "request line '%s' has no HTTP version (HTTP/0.9 is not supported)",
		    http_quote(q, line, n));
	if (t[tn] != ' ')
		return jr_err_set(hp->err, EINVAL,
				  "request target: byte 0x%02x is not allowed",
				  (unsigned char)t[tn]);
	v = t + tn + 1;
	vn = line + n - v;
	hp->http10 = vn == 8 && !memcmp(v, "HTTP/1.0", 8);
	if (!hp->http10 && (vn != 8 || memcmp(v, "HTTP/1.1", 8)))
		return jr_err_set(
		    hp->err, EINVAL,
		    "version '%s': only HTTP/1.1 and HTTP/1.0 are supported",
		    http_quote(q, v, vn));
	hp->target = t;
	hp->target_len = tn;
	return strcmp(req->method, "CONNECT") ? http_absolute_target(hp)
					      : http_connect_target(hp);
}

/* One field line split: name, and value with OWS trimmed. */
struct http_field {
	const char *name;
	size_t name_len;
	const char *value;
	size_t value_len;
};

/**
 * http_field_split() - field-name ":" OWS field-value OWS.
 * @hp: the parse
 * @line: the line, CRLF excluded, not empty
 * @n: its length
 * @f: filled on success
 *
 * RFC 9112 5.1: the name is a token and no whitespace may precede the
 * colon (a server MUST reject that with 400). A line starting with
 * whitespace is obs-fold, or whitespace between the request line and the
 * first field; both are refused (5.2, 2.2).
 *
 * Return: 0 or -EINVAL.
 */
static int http_field_split(struct http_parse *hp, const char *line, size_t n,
			    struct http_field *f)
{
	size_t m = http_span(line, n, http_is_tchar), i;

	if (http_is_ows((unsigned char)line[0]))
		return jr_err_set(
		    hp->err, EINVAL,
		    "line %u starts with whitespace: line folding is not allowed (RFC 9112 5.2)",
		    hp->line_no);
	if (m < n && http_is_ows((unsigned char)line[m]))
		return jr_err_set(
		    hp->err, EINVAL,
		    "line %u: whitespace before ':' (RFC 9112 5.1)",
		    hp->line_no);
	if (!m || m == n || line[m] != ':')
		return jr_err_set(
		    hp->err, EINVAL,
		    "line %u is not a field: a token then ':' (RFC 9112 5.1)",
		    hp->line_no);
	for (i = m + 1; i < n; i++)
		if (!http_is_field_byte((unsigned char)line[i]))
			return jr_err_set(
			    hp->err, EINVAL,
			    "line %u: byte 0x%02x is not allowed in a field value (RFC 9110 5.5)",
			    hp->line_no, (unsigned char)line[i]);
	f->name = line;
	f->name_len = m;
	f->value = line + m + 1;
	f->value_len = n - m - 1;
	http_trim(&f->value, &f->value_len);
	return 0;
}

/* Host: ignored for routing, but one and valid (RFC 9112 3.2). */
static int http_host_field(struct http_parse *hp, const struct http_field *f)
{
	char host[sizeof(hp->req->host)];
	uint16_t port;
	bool v6;

	if (++hp->host_fields > 1)
		return jr_err_set(hp->err, EINVAL,
				  "more than one Host field (RFC 9112 3.2)");
	return http_context(jr_http_parse_authority(f->value, f->value_len, 80,
						    host, sizeof(host), &v6,
						    &port, hp->err),
			    hp->err, "Host field");
}

/* Content-Length: identical values only (RFC 9110 8.6). */
static int http_length_field(struct http_parse *hp, const struct http_field *f)
{
	char q[HTTP_QUOTE_SIZE];
	size_t pos = 0, en;
	const char *e;
	uint64_t v;

	if (hp->req->form == JR_HTTP_FORM_CONNECT)
		return jr_err_set(
		    hp->err, EINVAL,
		    "Content-Length in a CONNECT request (CONNECT has no content, RFC 9110 9.3.6)");
	if (hp->have_chunked)
		return jr_err_set(
		    hp->err, EINVAL,
		    "both Transfer-Encoding and Content-Length (RFC 9112 6.1)");
	while (http_list_next(f->value, f->value_len, &pos, &e, &en)) {
		if (!http_decimal(e, en, HTTP_LENGTH_MAX, &v))
			return jr_err_set(
			    hp->err, EINVAL,
			    "Content-Length '%s' is not a decimal number up to 2^63-1 (RFC 9110 8.6)",
			    http_quote(q, f->value, f->value_len));
		if (hp->have_length && v != hp->length)
			return jr_err_set(
			    hp->err, EINVAL,
			    "Content-Length values differ (RFC 9110 8.6)");
		hp->have_length = true;
		hp->length = v;
	}
	return 0;
}

/* Transfer-Encoding: exactly one "chunked" (RFC 9112 6.1, 6.3). */
static int http_te_field(struct http_parse *hp, const struct http_field *f)
{
	if (hp->req->form == JR_HTTP_FORM_CONNECT)
		return jr_err_set(
		    hp->err, EINVAL,
		    "Transfer-Encoding in a CONNECT request (CONNECT has no content, RFC 9110 9.3.6)");
	if (hp->http10)
		return jr_err_set(
		    hp->err, EINVAL,
		    "Transfer-Encoding in an HTTP/1.0 request (RFC 9112 6.1)");
	if (hp->have_length)
		return jr_err_set(
		    hp->err, EINVAL,
		    "both Content-Length and Transfer-Encoding (RFC 9112 6.1)");
	if (hp->have_chunked ||
	    !http_name_is(f->value, f->value_len, "chunked"))
		return jr_err_set(
		    hp->err, EINVAL,
		    "Transfer-Encoding other than a single \"chunked\" is not supported");
	hp->have_chunked = true;
	return 0;
}

/* Connection: remember the options, hop-by-hop fields to drop. */
static int http_connection_field(struct http_parse *hp,
				 const struct http_field *f)
{
	static const char *const end_to_end[] = { "content-length",
						  "transfer-encoding", "host" };
	char q[HTTP_QUOTE_SIZE];
	size_t pos = 0, en, i;
	const char *e;

	while (http_list_next(f->value, f->value_len, &pos, &e, &en)) {
		if (!en)
			continue;
		if (!http_is_token(e, en))
			return jr_err_set(
			    hp->err, EINVAL,
			    "Connection option '%s' is not a token",
			    http_quote(q, e, en));
		for (i = 0; i < sizeof(end_to_end) / sizeof(end_to_end[0]); i++)
			if (http_name_is(e, en, end_to_end[i]))
				return jr_err_set(
				    hp->err, EINVAL,
				    "Connection may not name %s (RFC 9110 7.6.1)",
				    end_to_end[i]);
		if (hp->n_conn_opts == HTTP_CONN_OPTS_MAX)
			return jr_err_set(hp->err, EINVAL,
					  "more than %d Connection options",
					  HTTP_CONN_OPTS_MAX);
		hp->conn_opt[hp->n_conn_opts] = e;
		hp->conn_opt_len[hp->n_conn_opts++] = en;
	}
	return 0;
}

static int http_field_line(struct http_parse *hp, const char *line, size_t n)
{
	struct http_field f = { 0 };
	int r = http_field_split(hp, line, n, &f);

	if (r < 0)
		return r;
	if (http_name_is(f.name, f.name_len, "host"))
		return http_host_field(hp, &f);
	if (http_name_is(f.name, f.name_len, "content-length"))
		return http_length_field(hp, &f);
	if (http_name_is(f.name, f.name_len, "transfer-encoding"))
		return http_te_field(hp, &f);
	if (http_name_is(f.name, f.name_len, "connection"))
		return http_connection_field(hp, &f);
	return 0;
}

/*
 * Fields the upstream must not get (RFC 9110 7.6.1: Connection and what it
 * names, and the fields it lists as hop-by-hop: Proxy-Connection,
 * Keep-Alive, TE, Upgrade), plus Proxy-Authorization, which is meant for
 * this proxy alone, and Host, which is written from the URI instead.
 */
static bool http_is_dropped(const struct http_parse *hp, const char *name,
			    size_t n)
{
	static const char *const fixed[] = {
		"host", "connection", "proxy-connection",    "keep-alive",
		"te",	"upgrade",    "proxy-authorization",
	};
	size_t i;

	for (i = 0; i < sizeof(fixed) / sizeof(fixed[0]); i++)
		if (http_name_is(name, n, fixed[i]))
			return true;
	for (i = 0; i < hp->n_conn_opts; i++)
		if (http_ieq(name, n, hp->conn_opt[i], hp->conn_opt_len[i]))
			return true;
	return false;
}

/* A writer that only counts while @p is NULL: measure, allocate, write. */
struct http_out {
	char *p;
	size_t len;
};

static void http_put(struct http_out *o, const char *s, size_t n)
{
	if (o->p)
		memcpy(o->p + o->len, s, n);
	o->len += n;
}

static void http_puts(struct http_out *o, const char *s)
{
	http_put(o, s, strlen(s));
}

/**
 * http_emit_upstream() - write (or measure) the head sent upstream.
 * @hp: a parse that reached the end of an absolute-form head
 * @head_len: the length of that head
 * @o: where to write
 *
 * See the theory of operation at the top. The field lines were all
 * checked by http_field_split(), so a line here always has its colon.
 */
static void http_emit_upstream(const struct http_parse *hp, size_t head_len,
			       struct http_out *o)
{
	const struct jr_http_request *req = hp->req;
	size_t pos = hp->fields_start, end = head_len - 2;
	bool length_sent = false;
	char num[48];

	http_puts(o, req->method);
	http_puts(o, hp->origin.slash ? " /" : " ");
	http_put(o, hp->origin.path, hp->origin.len);
	http_puts(o, " HTTP/1.1\r\nHost: ");
	http_puts(o, req->host_is_ipv6 ? "[" : "");
	http_puts(o, req->host);
	http_puts(o, req->host_is_ipv6 ? "]" : "");
	if (req->port != 80) {
		snprintf(num, sizeof(num), ":%u", req->port);
		http_puts(o, num);
	}
	http_puts(o, "\r\n");
	while (pos < end) {
		const char *line = hp->buf + pos;
		size_t n =
		    (const char *)memchr(line, '\n', end - pos) - line + 1;
		size_t name_len = (const char *)memchr(line, ':', n) - line;

		pos += n;
		if (http_is_dropped(hp, line, name_len))
			continue;
		if (http_name_is(line, name_len, "content-length")) {
			if (!length_sent) {
				snprintf(num, sizeof(num),
					 "Content-Length: %" PRIu64 "\r\n",
					 hp->length);
				http_puts(o, num);
			}
			length_sent = true;
		} else if (http_name_is(line, name_len, "transfer-encoding")) {
			http_puts(o, "Transfer-Encoding: chunked\r\n");
		} else {
			http_put(o, line, n);
		}
	}
	http_puts(o, "Connection: close\r\n\r\n");
}

static int http_build_upstream(struct http_parse *hp, size_t head_len)
{
	struct jr_http_request *req = hp->req;
	struct http_out o = { 0 };

	http_emit_upstream(hp, head_len, &o);
	o.p = malloc(o.len + 1);
	if (!o.p)
		return jr_err_set(hp->err, ENOMEM,
				  "no memory for the upstream request head");
	o.len = 0;
	http_emit_upstream(hp, head_len, &o);
	o.p[o.len] = '\0';
	req->upstream_head = o.p;
	req->upstream_head_len = o.len;
	return 0;
}

/* The head is complete: the body, and the head to send upstream. */
static long http_finish(struct http_parse *hp, size_t head_len)
{
	struct jr_http_request *req = hp->req;

	req->head_len = head_len;
	if (hp->have_chunked) {
		req->body = JR_HTTP_BODY_CHUNKED;
	} else if (hp->have_length) {
		req->body = JR_HTTP_BODY_LENGTH;
		req->body_length = hp->length;
	}
	if (req->form == JR_HTTP_FORM_ABSOLUTE) {
		int r = http_build_upstream(hp, head_len);

		if (r < 0)
			return r;
	}
	return head_len;
}

static long http_parse_head(struct http_parse *hp, size_t len)
{
	size_t win = len < JR_HTTP_HEAD_MAX ? len : JR_HTTP_HEAD_MAX;
	size_t pos = 0, n = 0;
	const char *line = NULL;
	int r;

	for (;;) {
		r = http_next_line(hp->buf, win, &pos, &line, &n,
				   hp->line_no + 1, hp->err);
		if (r <= 0)
			break;
		hp->line_no++;
		if (hp->line_no == 1) {
			r = http_request_line(hp, line, n);
			hp->fields_start = pos;
		} else if (!n) {
			return http_finish(hp, pos);
		} else {
			r = http_field_line(hp, line, n);
		}
		if (r < 0)
			return r;
	}
	if (r < 0)
		return r;
	if (!hp->line_no) {
		r = http_method_prefix(hp, hp->buf, win);
		if (r < 0)
			return r;
	}
	if (len >= JR_HTTP_HEAD_MAX)
		return jr_err_set(hp->err, EMSGSIZE,
				  "request head larger than %d bytes",
				  JR_HTTP_HEAD_MAX);
	return 0;
}

long jr_http_parse_request(const char *buf, size_t len,
			   struct jr_http_request *req, struct jr_err *err)
{
	struct http_parse hp = { .buf = buf, .req = req, .err = err };
	long r;

	memset(req, 0, sizeof(*req));
	r = http_parse_head(&hp, len);
	/* Nothing is allocated unless the parse succeeded. */
	if (r <= 0)
		memset(req, 0, sizeof(*req));
	return r;
}

void jr_http_request_release(struct jr_http_request *req)
{
	free(req->upstream_head);
	req->upstream_head = NULL;
	req->upstream_head_len = 0;
}

/*
 * RFC 9110 15 (and RFC 6585 5 for 431), the statuses the proxy sends; 200
 * is the relay's answer to the runner's health check.
 */
static const struct {
	int status;
	const char *reason;
} http_reasons[] = {
	{ 200, "OK" },
	{ 400, "Bad Request" },
	{ 403, "Forbidden" },
	{ 405, "Method Not Allowed" },
	{ 407, "Proxy Authentication Required" },
	{ 408, "Request Timeout" },
	{ 413, "Content Too Large" },
	{ 414, "URI Too Long" },
	{ 431, "Request Header Fields Too Large" },
	{ 500, "Internal Server Error" },
	{ 501, "Not Implemented" },
	{ 502, "Bad Gateway" },
	{ 503, "Service Unavailable" },
	{ 504, "Gateway Timeout" },
	{ 505, "HTTP Version Not Supported" },
};

static const char *http_reason(int status)
{
	size_t i;

	for (i = 0; i < sizeof(http_reasons) / sizeof(http_reasons[0]); i++)
		if (http_reasons[i].status == status)
			return http_reasons[i].reason;
	return NULL;
}

/* snprintf()'s answer as this module's: bytes written, or -ENOSPC. */
static int http_fitted(int r, size_t size)
{
	return r < 0 || (size_t)r >= size ? -ENOSPC : r;
}

/**
 * jr_http_response() - see http.h.
 *
 * Also -EINVAL for a status not in http_reasons[] or a deny tag that is
 * not a token: both are the caller's bugs, and the tag goes into a field
 * where a CR or LF would split the response. A NULL @body_line sends an
 * empty body.
 */
int jr_http_response(char *out, size_t size, int status, const char *deny_tag,
		     const char *body_line)
{
	const char *reason = http_reason(status);
	size_t body_len = body_line ? strlen(body_line) + 1 : 0;

	if (!reason || (deny_tag && !http_is_token(deny_tag, strlen(deny_tag))))
		return -EINVAL;
	return http_fitted(
	    snprintf(out, size,
		     "HTTP/1.1 %d %s\r\n"
		     "Content-Type: text/plain\r\n"
		     "Content-Length: %zu\r\n"
		     "Connection: close\r\n"
		     "%s%s%s"
		     "\r\n"
		     "%s%s",
		     status, reason, body_len,
		     deny_tag ? "X-Jailrun-Deny: " : "",
		     deny_tag ? deny_tag : "", deny_tag ? "\r\n" : "",
		     body_line ? body_line : "", body_line ? "\n" : ""),
	    size);
}

int jr_http_connect_established(char *out, size_t size)
{
	return http_fitted(
	    snprintf(out, size, "HTTP/1.1 200 Connection established\r\n\r\n"),
	    size);
}

/*
 * Chunked framing, RFC 9112 7.1:
 *   chunked-body = *chunk last-chunk trailer-section CRLF
 *   chunk        = chunk-size [ chunk-ext ] CRLF chunk-data CRLF
 *   chunk-ext    = *( BWS ";" BWS ext-name [ BWS "=" BWS ext-val ] )
 *   ext-val      = token / quoted-string
 * Whitespace is accepted only where BWS stands (not before the CRLF).
 */
enum http_chunk_state {
	CHUNK_SIZE_FIRST,     /* first hex digit of chunk-size */
	CHUNK_SIZE,	      /* more digits, or what follows them */
	CHUNK_EXT_SEMI,	      /* BWS before ";" */
	CHUNK_EXT_NAME_START, /* BWS after ";", then the name */
	CHUNK_EXT_NAME,
	CHUNK_EXT_NAME_WS,   /* BWS after the name: "=" or ";" next */
	CHUNK_EXT_VAL_START, /* BWS after "=", then token or quote */
	CHUNK_EXT_VAL_TOKEN,
	CHUNK_EXT_QUOTED,
	CHUNK_EXT_QPAIR,   /* after a backslash in quotes */
	CHUNK_EXT_VAL_END, /* after the closing quote */
	CHUNK_SIZE_LF,	   /* LF ending the chunk-size line */
	CHUNK_DATA,
	CHUNK_DATA_CR,
	CHUNK_DATA_LF,
	CHUNK_TRAILER_START, /* a trailer field, or the final CRLF */
	CHUNK_TRAILER_NAME,
	CHUNK_TRAILER_VALUE,
	CHUNK_TRAILER_LF,
	CHUNK_FINAL_LF,
	CHUNK_DONE,
	CHUNK_ERROR,
};

void jr_http_body_init(struct jr_http_body_tracker *t,
		       const struct jr_http_request *req)
{
	t->kind = req->body;
	t->remaining = req->body == JR_HTTP_BODY_LENGTH ? req->body_length : 0;
	t->state = CHUNK_SIZE_FIRST;
	t->done = req->body == JR_HTTP_BODY_NONE ||
		  (req->body == JR_HTTP_BODY_LENGTH && !t->remaining);
}

/* After a chunk-size, an ext-name or an ext-val: ";", BWS or CR. */
static int http_chunk_item_end(unsigned char c)
{
	if (c == ';')
		return CHUNK_EXT_NAME_START;
	if (http_is_ows(c))
		return CHUNK_EXT_SEMI;
	return c == '\r' ? CHUNK_SIZE_LF : CHUNK_ERROR;
}

static int http_chunk_digit(struct jr_http_body_tracker *t, int d)
{
	if (t->remaining > (HTTP_LENGTH_MAX - d) / 16)
		return CHUNK_ERROR;
	t->remaining = t->remaining * 16 + d;
	return CHUNK_SIZE;
}

/* qdtext, RFC 9110 5.6.4. */
static bool http_is_qdtext(unsigned char c)
{
	return http_is_field_byte(c) && c != '"' && c != '\\';
}

/**
 * http_chunk_step() - the state after one more byte of framing.
 * @t: the tracker; remaining accumulates the chunk-size
 * @c: the byte
 *
 * Return: the next enum http_chunk_state.
 */
static int http_chunk_step(struct jr_http_body_tracker *t, unsigned char c)
{
	int d = http_hex_value(c);

	switch (t->state) {
	case CHUNK_SIZE_FIRST:
		return d >= 0 ? http_chunk_digit(t, d) : CHUNK_ERROR;
	case CHUNK_SIZE:
		return d >= 0 ? http_chunk_digit(t, d) : http_chunk_item_end(c);
	case CHUNK_EXT_SEMI:
		if (http_is_ows(c))
			return CHUNK_EXT_SEMI;
		return c == ';' ? CHUNK_EXT_NAME_START : CHUNK_ERROR;
	case CHUNK_EXT_NAME_START:
		if (http_is_ows(c))
			return CHUNK_EXT_NAME_START;
		return http_is_tchar(c) ? CHUNK_EXT_NAME : CHUNK_ERROR;
	case CHUNK_EXT_NAME:
		if (http_is_tchar(c))
			return CHUNK_EXT_NAME;
		if (c == '=')
			return CHUNK_EXT_VAL_START;
		return http_is_ows(c) ? CHUNK_EXT_NAME_WS
				      : http_chunk_item_end(c);
	case CHUNK_EXT_NAME_WS:
		if (http_is_ows(c))
			return CHUNK_EXT_NAME_WS;
		if (c == '=')
			return CHUNK_EXT_VAL_START;
		return c == ';' ? CHUNK_EXT_NAME_START : CHUNK_ERROR;
	case CHUNK_EXT_VAL_START:
		if (http_is_ows(c))
			return CHUNK_EXT_VAL_START;
		if (c == '"')
			return CHUNK_EXT_QUOTED;
		return http_is_tchar(c) ? CHUNK_EXT_VAL_TOKEN : CHUNK_ERROR;
	case CHUNK_EXT_VAL_TOKEN:
		return http_is_tchar(c) ? CHUNK_EXT_VAL_TOKEN
					: http_chunk_item_end(c);
	case CHUNK_EXT_QUOTED:
		if (c == '"')
			return CHUNK_EXT_VAL_END;
		if (c == '\\')
			return CHUNK_EXT_QPAIR;
		return http_is_qdtext(c) ? CHUNK_EXT_QUOTED : CHUNK_ERROR;
	case CHUNK_EXT_QPAIR:
		return http_is_field_byte(c) ? CHUNK_EXT_QUOTED : CHUNK_ERROR;
	case CHUNK_EXT_VAL_END:
		return http_chunk_item_end(c);
	case CHUNK_SIZE_LF:
		if (c != '\n')
			return CHUNK_ERROR;
		return t->remaining ? CHUNK_DATA : CHUNK_TRAILER_START;
	case CHUNK_DATA_CR:
		return c == '\r' ? CHUNK_DATA_LF : CHUNK_ERROR;
	case CHUNK_DATA_LF:
		return c == '\n' ? CHUNK_SIZE_FIRST : CHUNK_ERROR;
	case CHUNK_TRAILER_START:
		if (c == '\r')
			return CHUNK_FINAL_LF;
		return http_is_tchar(c) ? CHUNK_TRAILER_NAME : CHUNK_ERROR;
	case CHUNK_TRAILER_NAME:
		if (http_is_tchar(c))
			return CHUNK_TRAILER_NAME;
		return c == ':' ? CHUNK_TRAILER_VALUE : CHUNK_ERROR;
	case CHUNK_TRAILER_VALUE:
		if (c == '\r')
			return CHUNK_TRAILER_LF;
		return http_is_field_byte(c) ? CHUNK_TRAILER_VALUE
					     : CHUNK_ERROR;
	case CHUNK_TRAILER_LF:
		return c == '\n' ? CHUNK_TRAILER_START : CHUNK_ERROR;
	case CHUNK_FINAL_LF:
		return c == '\n' ? CHUNK_DONE : CHUNK_ERROR;
	}
	return CHUNK_ERROR;
}

static long http_chunked_feed(struct jr_http_body_tracker *t, const char *buf,
			      size_t n)
{
	size_t i = 0;

	if (t->state == CHUNK_ERROR)
		return -EINVAL;
	while (i < n && t->state != CHUNK_DONE) {
		if (t->state == CHUNK_DATA) {
			size_t take =
			    n - i < t->remaining ? n - i : t->remaining;

			t->remaining -= take;
			i += take;
			if (!t->remaining)
				t->state = CHUNK_DATA_CR;
			continue;
		}
		t->state = http_chunk_step(t, (unsigned char)buf[i++]);
		if (t->state == CHUNK_ERROR)
			return -EINVAL;
	}
	t->done = t->state == CHUNK_DONE;
	return i;
}

long jr_http_body_feed(struct jr_http_body_tracker *t, const char *buf,
		       size_t n)
{
	size_t take;

	if (t->kind == JR_HTTP_BODY_CHUNKED)
		return http_chunked_feed(t, buf, n);
	if (t->done)
		return 0;
	take = n < t->remaining ? n : t->remaining;
	t->remaining -= take;
	t->done = !t->remaining;
	return take;
}

/*
 * The origin-form target in the head the proxy sends upstream,
 * "METHOD SP target SP HTTP/1.1 CRLF ...": malloc'd, or NULL.
 */
char *jr_http_upstream_target(const struct jr_http_request *req)
{
	const char *head = req->upstream_head, *t, *eol;
	size_t ml = strlen(req->method);
	static const char version[] = " HTTP/1.1";

	if (!head || strncmp(head, req->method, ml) || head[ml] != ' ')
		return NULL;
	t = head + ml + 1;
	eol = strstr(t, "\r\n");
	if (!eol || (size_t)(eol - t) < sizeof(version) - 1 ||
	    memcmp(eol - (sizeof(version) - 1), version, sizeof(version) - 1))
		return NULL;
	return strndup(t, (size_t)(eol - t) - (sizeof(version) - 1));
}
