// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * test_http.c - the proxy's HTTP head parser, the head it sends upstream,
 * its own answers, and the request body tracker. Every expected value is
 * written out here, independently of http.c: a parser that accepts one
 * smuggling vector, lets one hop-by-hop field through, miscounts one
 * byte of a chunked body, or moves one byte of a response fails a vector.
 */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "cleanup.h"
#include "err.h"
#include "http.h"

/* A byte string that may hold NULs. */
struct bytes {
	const char *s;
	size_t n;
};

#define B(lit)                                                                 \
	{                                                                      \
		lit, sizeof(lit) - 1                                           \
	}

static bool request_is_empty(const struct jr_http_request *req)
{
	static const struct jr_http_request zero;

	return !memcmp(req, &zero, sizeof(zero));
}

/* ------------------------------------------------------------ CONNECT */

static const struct {
	const char *head;
	const char *host;
	bool v6;
	uint16_t port;
} connect_ok[] = {
	{ "CONNECT example.com:443 HTTP/1.1\r\nHost: example.com:443\r\n\r\n",
	  "example.com", false, 443 },
	{ "CONNECT [2001:db8::1]:443 HTTP/1.1\r\nHost: [2001:db8::1]:443\r\n\r\n",
	  "2001:db8::1", true, 443 },
	{ "CONNECT [2001:DB8::A]:8443 HTTP/1.1\r\n\r\n", "2001:db8::a", true,
	  8443 },
	{ "CONNECT Example.COM:1 HTTP/1.0\r\n\r\n", "example.com", false, 1 },
	{ "CONNECT a.test:65535 HTTP/1.1\r\n\r\n", "a.test", false, 65535 },
	/* leading zeros: RFC 3986 port = *DIGIT; the value is what counts */
	{ "CONNECT a.test:0443 HTTP/1.1\r\n\r\n", "a.test", false, 443 },
	/* numeric forms are the policy's to judge, not the parser's */
	{ "CONNECT 192.0.2.1:443 HTTP/1.1\r\n\r\n", "192.0.2.1", false, 443 },
	{ "CONNECT [::ffff:192.0.2.1]:443 HTTP/1.1\r\n\r\n", "::ffff:192.0.2.1",
	  true, 443 },
	/* the target decides; a Host field that disagrees is only checked */
	{ "CONNECT a.test:443 HTTP/1.1\r\nHost: other.test\r\nUser-Agent: x\r\n"
	  "Proxy-Authorization: Basic dTpw\r\n\r\n",
	  "a.test", false, 443 },
};

static void test_connect_accepted(void **state)
{
	size_t i;

	for (i = 0; i < ARRAY_SIZE(connect_ok); i++) {
		const char *h = connect_ok[i].head;
		struct jr_http_request req;
		struct jr_err e = { 0 };
		long r = jr_http_parse_request(h, strlen(h), &req, &e);

		if (r != (long)strlen(h))
			fail_msg("%s: %ld %s", h, r, e.msg);
		assert_int_equal(req.form, JR_HTTP_FORM_CONNECT);
		assert_string_equal(req.method, "CONNECT");
		assert_string_equal(req.host, connect_ok[i].host);
		assert_int_equal(req.host_is_ipv6, connect_ok[i].v6);
		assert_int_equal(req.port, connect_ok[i].port);
		assert_int_equal(req.head_len, strlen(h));
		assert_int_equal(req.body, JR_HTTP_BODY_NONE);
		assert_null(req.upstream_head);
		assert_int_equal(req.upstream_head_len, 0);
		jr_http_request_release(&req);
	}
}

static const struct {
	const char *says; /* in the message: refused for this reason */
	const char *head;
} connect_bad[] = {
	{ "port is required", "CONNECT example.com HTTP/1.1\r\n\r\n" },
	{ "port must", "CONNECT example.com: HTTP/1.1\r\n\r\n" },
	{ "port must", "CONNECT example.com:0 HTTP/1.1\r\n\r\n" },
	{ "port must", "CONNECT example.com:65536 HTTP/1.1\r\n\r\n" },
	{ "port must",
	  "CONNECT example.com:99999999999999999999 HTTP/1.1\r\n\r\n" },
	{ "port must", "CONNECT example.com:+443 HTTP/1.1\r\n\r\n" },
	{ "port must", "CONNECT example.com:-1 HTTP/1.1\r\n\r\n" },
	{ "port must", "CONNECT example.com:443a HTTP/1.1\r\n\r\n" },
	{ "port must", "CONNECT example.com:0x1bb HTTP/1.1\r\n\r\n" },
	{ "port must", "CONNECT example.com:443:443 HTTP/1.1\r\n\r\n" },
	{ "without ']'", "CONNECT [2001:db8::1:443 HTTP/1.1\r\n\r\n" },
	/* an IPv6 address needs brackets: its last group is no port */
	{ "port must", "CONNECT 2001:db8::1:443 HTTP/1.1\r\n\r\n" },
	{ "port is required", "CONNECT [2001:db8::1] HTTP/1.1\r\n\r\n" },
	{ "port must", "CONNECT [2001:db8::1]443 HTTP/1.1\r\n\r\n" },
	{ "port must", "CONNECT [2001:db8::1]: HTTP/1.1\r\n\r\n" },
	{ "port must", "CONNECT [2001:db8::1]x:443 HTTP/1.1\r\n\r\n" },
	{ "host must",
	  "CONNECT [fe80::1%25eth0]:443 HTTP/1.1\r\n\r\n" }, /* zone */
	{ "host must",
	  "CONNECT [v1.fe80::1]:443 HTTP/1.1\r\n\r\n" }, /* IPvFuture */
	{ "host must", "CONNECT [192.0.2.1]:443 HTTP/1.1\r\n\r\n" },
	{ "host must", "CONNECT [2001:db8::g]:443 HTTP/1.1\r\n\r\n" },
	{ "host must", "CONNECT [1:2:3:4:5:6:7:8:9]:443 HTTP/1.1\r\n\r\n" },
	{ "empty host", "CONNECT []:443 HTTP/1.1\r\n\r\n" },
	{ "host must", "CONNECT ]:443 HTTP/1.1\r\n\r\n" },
	{ "empty host", "CONNECT :443 HTTP/1.1\r\n\r\n" },
	{ "userinfo", "CONNECT user@example.com:443 HTTP/1.1\r\n\r\n" },
	{ "userinfo", "CONNECT user:pw@example.com:443 HTTP/1.1\r\n\r\n" },
	{ "userinfo",
	  "CONNECT allowed.test:443@denied.test:443 HTTP/1.1\r\n\r\n" },
	{ "host must", "CONNECT exa_mple.com:443 HTTP/1.1\r\n\r\n" },
	{ "host must", "CONNECT ex%61mple.com:443 HTTP/1.1\r\n\r\n" },
	{ "port must", "CONNECT http://example.com:443 HTTP/1.1\r\n\r\n" },
	{ "port must", "CONNECT example.com:443/ HTTP/1.1\r\n\r\n" },
	/* CONNECT has no content (RFC 9110 9.3.6): no framing field at all */
	{ "Content-Length in a CONNECT",
	  "CONNECT example.com:443 HTTP/1.1\r\nContent-Length: 0\r\n\r\n" },
	{ "Content-Length in a CONNECT",
	  "CONNECT example.com:443 HTTP/1.1\r\nContent-Length: 5\r\n\r\n" },
	{ "Transfer-Encoding in a CONNECT",
	  "CONNECT example.com:443 HTTP/1.1\r\nTransfer-Encoding: chunked\r\n\r\n" },
	{ "more than one Host",
	  "CONNECT example.com:443 HTTP/1.1\r\nHost: a:443\r\nHost: a:443\r\n\r\n" },
	{ "Host field: 'a b'",
	  "CONNECT example.com:443 HTTP/1.1\r\nHost: a b\r\n\r\n" },
	{ "only HTTP/1.1", "CONNECT example.com:443 HTTP/2.0\r\n\r\n" },
	/* methods are case-sensitive: "connect" wants an absolute URI */
	{ "not an http:// URI", "connect example.com:443 HTTP/1.1\r\n\r\n" },
};

static void test_connect_refused(void **state)
{
	size_t i;

	for (i = 0; i < ARRAY_SIZE(connect_bad); i++) {
		const char *h = connect_bad[i].head;
		struct jr_http_request req;
		struct jr_err e = { 0 };
		long r = jr_http_parse_request(h, strlen(h), &req, &e);

		if (r != -EINVAL)
			fail_msg("accepted (%ld): %s", r, h);
		assert_int_equal(e.code, EINVAL);
		if (!strstr(e.msg, connect_bad[i].says))
			fail_msg("%s: '%s' does not say '%s'", h, e.msg,
				 connect_bad[i].says);
		if (!strstr(e.msg, "CONNECT target: ") &&
		    (strstr(connect_bad[i].says, "port") ||
		     strstr(connect_bad[i].says, "host must")))
			fail_msg("'%s' lacks its context", e.msg);
		assert_true(request_is_empty(&req));
	}
}

/* ------------------------------------------------------ absolute-form */

static const struct {
	struct bytes head;
	const char *upstream;
	const char *host;
	uint16_t port;
	enum jr_http_body body;
	uint64_t length;
} absolute_ok[] = {
	{ B("GET http://h HTTP/1.1\r\n\r\n"),
	  "GET / HTTP/1.1\r\nHost: h\r\nConnection: close\r\n\r\n", "h", 80,
	  JR_HTTP_BODY_NONE, 0 },
	{ B("GET http://h?x=1 HTTP/1.1\r\n\r\n"),
	  "GET /?x=1 HTTP/1.1\r\nHost: h\r\nConnection: close\r\n\r\n", "h", 80,
	  JR_HTTP_BODY_NONE, 0 },
	{ B("GET http://h:80/p?a=1 HTTP/1.1\r\nHost: h\r\n\r\n"),
	  "GET /p?a=1 HTTP/1.1\r\nHost: h\r\nConnection: close\r\n\r\n", "h",
	  80, JR_HTTP_BODY_NONE, 0 },
	/* scheme and host lowercased, path and query left alone */
	{ B("GET HTTP://Example.COM:8080/Path?Q=A#frag HTTP/1.1\r\n"
	    "Host: Example.COM:8080\r\n\r\n"),
	  "GET /Path?Q=A HTTP/1.1\r\nHost: example.com:8080\r\n"
	  "Connection: close\r\n\r\n",
	  "example.com", 8080, JR_HTTP_BODY_NONE, 0 },
	{ B("GET hTtP://[2001:DB8::1]:8080 HTTP/1.1\r\n\r\n"),
	  "GET / HTTP/1.1\r\nHost: [2001:db8::1]:8080\r\nConnection: close\r\n\r\n",
	  "2001:db8::1", 8080, JR_HTTP_BODY_NONE, 0 },
	{ B("GET http://[2001:db8::1]/x HTTP/1.1\r\n\r\n"),
	  "GET /x HTTP/1.1\r\nHost: [2001:db8::1]\r\nConnection: close\r\n\r\n",
	  "2001:db8::1", 80, JR_HTTP_BODY_NONE, 0 },
	/* an HTTP/1.0 request goes on as HTTP/1.1 (RFC 9110 6.2) */
	{ B("HEAD http://h/#only-a-fragment HTTP/1.0\r\nHost: h\r\n\r\n"),
	  "HEAD / HTTP/1.1\r\nHost: h\r\nConnection: close\r\n\r\n", "h", 80,
	  JR_HTTP_BODY_NONE, 0 },
	/* '@' after the authority is path or query, not userinfo */
	{ B("GET http://allowed.test/@denied.test HTTP/1.1\r\n\r\n"),
	  "GET /@denied.test HTTP/1.1\r\nHost: allowed.test\r\n"
	  "Connection: close\r\n\r\n",
	  "allowed.test", 80, JR_HTTP_BODY_NONE, 0 },
	{ B("GET http://allowed.test?@denied.test HTTP/1.1\r\n\r\n"),
	  "GET /?@denied.test HTTP/1.1\r\nHost: allowed.test\r\n"
	  "Connection: close\r\n\r\n",
	  "allowed.test", 80, JR_HTTP_BODY_NONE, 0 },
	{ B("GET http://allowed.test#@denied.test HTTP/1.1\r\n\r\n"),
	  "GET / HTTP/1.1\r\nHost: allowed.test\r\nConnection: close\r\n\r\n",
	  "allowed.test", 80, JR_HTTP_BODY_NONE, 0 },
	/* Host replaced by the URI's, placed first; hop-by-hop fields,
	 * those Connection names (before or after it, any case) and
	 * Proxy-Authorization dropped; the rest in order */
	{ B("POST http://API.test/v1/items?id=7 HTTP/1.1\r\n"
	    "Host: other.test\r\n"
	    "User-Agent: t/1\r\n"
	    "X-Early: 0\r\n"
	    "Connection: keep-alive, X-Secret, x-early\r\n"
	    "Proxy-Connection: keep-alive\r\n"
	    "Keep-Alive: timeout=5\r\n"
	    "Proxy-Authorization: Basic dTpw\r\n"
	    "TE: trailers\r\n"
	    "Upgrade: h2c\r\n"
	    "X-Secret: 1\r\n"
	    "x-secret: 2\r\n"
	    "Accept: */*\r\n"
	    "Content-Length: 5\r\n"
	    "X-After: yes\r\n"
	    "\r\n"),
	  "POST /v1/items?id=7 HTTP/1.1\r\n"
	  "Host: api.test\r\n"
	  "User-Agent: t/1\r\n"
	  "Accept: */*\r\n"
	  "Content-Length: 5\r\n"
	  "X-After: yes\r\n"
	  "Connection: close\r\n\r\n",
	  "api.test", 80, JR_HTTP_BODY_LENGTH, 5 },
	/* empty list elements are allowed (RFC 9110 5.6.1); names match
	 * whole, so X-Hopper stays */
	{ B("GET http://h/ HTTP/1.1\r\nX-Hop: 1\r\n"
	    "Connection: , ,Keep-Alive ,, X-Hop\r\nx-hop: 2\r\n"
	    "X-Hopper: 3\r\nKeep-Alive: 1\r\n\r\n"),
	  "GET / HTTP/1.1\r\nHost: h\r\nX-Hopper: 3\r\nConnection: close\r\n\r\n",
	  "h", 80, JR_HTTP_BODY_NONE, 0 },
	/* identical Content-Length values collapse into one canonical field
	 * (the repair RFC 9110 8.6 allows) */
	{ B("PUT http://h/ HTTP/1.1\r\nContent-Length: 007\r\nX: 1\r\n"
	    "content-length:7\r\nContent-Length: 7, 7\r\n\r\n"),
	  "PUT / HTTP/1.1\r\nHost: h\r\nContent-Length: 7\r\nX: 1\r\n"
	  "Connection: close\r\n\r\n",
	  "h", 80, JR_HTTP_BODY_LENGTH, 7 },
	{ B("PUT http://h/ HTTP/1.1\r\nContent-Length: 1, 1\r\n\r\n"),
	  "PUT / HTTP/1.1\r\nHost: h\r\nContent-Length: 1\r\n"
	  "Connection: close\r\n\r\n",
	  "h", 80, JR_HTTP_BODY_LENGTH, 1 },
	{ B("POST http://h/ HTTP/1.1\r\nContent-Length: 0\r\n\r\n"),
	  "POST / HTTP/1.1\r\nHost: h\r\nContent-Length: 0\r\n"
	  "Connection: close\r\n\r\n",
	  "h", 80, JR_HTTP_BODY_LENGTH, 0 },
	{ B("POST http://h/ HTTP/1.1\r\nContent-Length: 9223372036854775807\r\n\r\n"),
	  "POST / HTTP/1.1\r\nHost: h\r\nContent-Length: 9223372036854775807\r\n"
	  "Connection: close\r\n\r\n",
	  "h", 80, JR_HTTP_BODY_LENGTH, INT64_MAX },
	{ B("POST http://h:8080/u HTTP/1.1\r\ntransfer-encoding:  Chunked \r\n"
	    "X: y\r\n\r\n"),
	  "POST /u HTTP/1.1\r\nHost: h:8080\r\nTransfer-Encoding: chunked\r\n"
	  "X: y\r\nConnection: close\r\n\r\n",
	  "h", 8080, JR_HTTP_BODY_CHUNKED, 0 },
	/* other fields go on byte for byte, obs-text and odd spacing too */
	{ B("get http://h/ HTTP/1.1\r\nX-Empty:\r\nX-Sp:  a  b  \r\n"
	    "X-Utf8: caf\xc3\xa9\r\nX-Tab:\tv\r\n\r\n"),
	  "get / HTTP/1.1\r\nHost: h\r\nX-Empty:\r\nX-Sp:  a  b  \r\n"
	  "X-Utf8: caf\xc3\xa9\r\nX-Tab:\tv\r\nConnection: close\r\n\r\n",
	  "h", 80, JR_HTTP_BODY_NONE, 0 },
	/* hop-by-hop even when Connection does not name them */
	{ B("GET http://h/ HTTP/1.1\r\nKeep-Alive: 300\r\nA: 1\r\n"
	    "Proxy-Connection: keep-alive\r\nUpgrade: websocket\r\nTE: trailers\r\n"
	    "Proxy-Authorization: Basic dTpw\r\nConnection: close\r\n\r\n"),
	  "GET / HTTP/1.1\r\nHost: h\r\nA: 1\r\nConnection: close\r\n\r\n", "h",
	  80, JR_HTTP_BODY_NONE, 0 },
	{ B("M-SEARCH http://h.test./a%20b HTTP/1.1\r\n\r\n"),
	  "M-SEARCH /a%20b HTTP/1.1\r\nHost: h.test.\r\nConnection: close\r\n\r\n",
	  "h.test.", 80, JR_HTTP_BODY_NONE, 0 },
};

static void check_absolute(size_t i, const char *buf, size_t len)
{
	struct jr_http_request req;
	struct jr_err e = { 0 };
	long r = jr_http_parse_request(buf, len, &req, &e);

	if (r != (long)absolute_ok[i].head.n)
		fail_msg("vector %zu: %ld %s", i, r, e.msg);
	assert_int_equal(req.form, JR_HTTP_FORM_ABSOLUTE);
	assert_int_equal(req.head_len, absolute_ok[i].head.n);
	assert_string_equal(req.host, absolute_ok[i].host);
	assert_int_equal(req.host_is_ipv6, !!strchr(absolute_ok[i].host, ':'));
	assert_int_equal(req.port, absolute_ok[i].port);
	assert_int_equal(req.body, absolute_ok[i].body);
	assert_int_equal(req.body_length, absolute_ok[i].length);
	assert_non_null(req.upstream_head);
	assert_string_equal(req.upstream_head, absolute_ok[i].upstream);
	assert_int_equal(req.upstream_head_len,
			 strlen(absolute_ok[i].upstream));
	jr_http_request_release(&req);
	assert_null(req.upstream_head);
	jr_http_request_release(&req); /* twice is harmless */
}

static void test_absolute_rewritten(void **state)
{
	/* What follows the head is body or the next try at smuggling; it
	 * must change nothing about the head. */
	static const char tail[] = "GET http://evil.test/ HTTP/1.1\r\n\r\n\n\r";
	size_t i;

	for (i = 0; i < ARRAY_SIZE(absolute_ok); i++) {
		const struct bytes *h = &absolute_ok[i].head;
		_cleanup_free_ char *buf = malloc(h->n + sizeof(tail));

		assert_non_null(buf);
		memcpy(buf, h->s, h->n);
		memcpy(buf + h->n, tail, sizeof(tail));
		check_absolute(i, buf, h->n);
		check_absolute(i, buf, h->n + sizeof(tail) - 1);
	}
}

static const struct {
	const char *says; /* in the message: refused for this reason */
	struct bytes head;
} absolute_bad[] = {
	{ "is not an absolute URI", B("GET /x HTTP/1.1\r\nHost: a\r\n\r\n") },
	{ "is not an absolute URI",
	  B("OPTIONS * HTTP/1.1\r\nHost: a\r\n\r\n") },
	{ "https goes through the proxy with CONNECT",
	  B("GET https://a/ HTTP/1.1\r\n\r\n") },
	{ "https goes through the proxy with CONNECT",
	  B("GET HTTPS://a/ HTTP/1.1\r\n\r\n") },
	{ "not an http:// URI", B("GET ftp://a/ HTTP/1.1\r\n\r\n") },
	{ "not an http:// URI", B("GET httpx://a/ HTTP/1.1\r\n\r\n") },
	{ "not an http:// URI", B("GET http:/a/ HTTP/1.1\r\n\r\n") },
	{ "not an http:// URI", B("GET http:a HTTP/1.1\r\n\r\n") },
	{ "not an http:// URI", B("GET a:80 HTTP/1.1\r\n\r\n") },
	{ "empty authority", B("GET http:// HTTP/1.1\r\n\r\n") },
	{ "empty authority", B("GET http:///x HTTP/1.1\r\n\r\n") },
	{ "userinfo",
	  B("GET http://allowed.test@denied.test/ HTTP/1.1\r\n\r\n") },
	{ "userinfo", B("GET http://u:p@a/ HTTP/1.1\r\n\r\n") },
	{ "userinfo", B("GET http://@a/ HTTP/1.1\r\n\r\n") },
	{ "port must", B("GET http://a:0/ HTTP/1.1\r\n\r\n") },
	{ "port must", B("GET http://a:65536/ HTTP/1.1\r\n\r\n") },
	{ "port must", B("GET http://a:/ HTTP/1.1\r\n\r\n") },
	{ "port must", B("GET http://a:8a/ HTTP/1.1\r\n\r\n") },
	{ "port must", B("GET http://a:+80/ HTTP/1.1\r\n\r\n") },
	{ "without ']'", B("GET http://[::1/ HTTP/1.1\r\n\r\n") },
	{ "empty host", B("GET http://::1/ HTTP/1.1\r\n\r\n") },
	{ "port must", B("GET http://2001:db8::1:80/ HTTP/1.1\r\n\r\n") },
	{ "port must", B("GET http://[::1]x/ HTTP/1.1\r\n\r\n") },
	{ "host must", B("GET http://[fe80::1%25eth0]/ HTTP/1.1\r\n\r\n") },
	{ "host must", B("GET http://[v1.a]/ HTTP/1.1\r\n\r\n") },
	{ "empty host", B("GET http://[]/ HTTP/1.1\r\n\r\n") },
	{ "port must", B("GET http://[::1]:/ HTTP/1.1\r\n\r\n") },
	{ "host must", B("GET http://ex%61mple.com/ HTTP/1.1\r\n\r\n") },
	{ "host must", B("GET http://a_b/ HTTP/1.1\r\n\r\n") },
	{ "userinfo",
	  B("GET http://allowed.test\\@denied.test/ HTTP/1.1\r\n\r\n") },
	{ "host must", B("GET http://a\\b/ HTTP/1.1\r\n\r\n") },
	{ "host must", B("GET http://a,b/ HTTP/1.1\r\n\r\n") },
	{ "too long",
	  B("GET http://aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa"
	    "aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa"
	    "aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa"
	    "aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa/"
	    " HTTP/1.1\r\n\r\n") },
	{ "request target: byte 0x80",
	  B("GET http://a/\x80 HTTP/1.1\r\n\r\n") },
	{ "request target: byte 0x01",
	  B("GET http://a/\x01 HTTP/1.1\r\n\r\n") },
	{ "request target: byte 0x00", B("GET http://a/\0 HTTP/1.1\r\n\r\n") },
	/* framing: RFC 9112 6.1, 6.3; RFC 9110 8.6 */
	{ "both Content-Length and Transfer-Encoding",
	  B("POST http://a/ HTTP/1.1\r\nContent-Length: 5\r\n"
	    "Transfer-Encoding: chunked\r\n\r\n") },
	{ "both Transfer-Encoding and Content-Length",
	  B("POST http://a/ HTTP/1.1\r\nTransfer-Encoding: chunked\r\n"
	    "Content-Length: 5\r\n\r\n") },
	{ "values differ", B("POST http://a/ HTTP/1.1\r\nContent-Length: 5\r\n"
			     "Content-Length: 6\r\n\r\n") },
	{ "values differ",
	  B("POST http://a/ HTTP/1.1\r\nContent-Length: 5, 6\r\n\r\n") },
	{ "not a decimal",
	  B("POST http://a/ HTTP/1.1\r\nContent-Length: 5,\r\n\r\n") },
	{ "not a decimal",
	  B("POST http://a/ HTTP/1.1\r\nContent-Length: ,5\r\n\r\n") },
	{ "not a decimal",
	  B("POST http://a/ HTTP/1.1\r\nContent-Length:\r\n\r\n") },
	{ "not a decimal",
	  B("POST http://a/ HTTP/1.1\r\nContent-Length: +5\r\n\r\n") },
	{ "not a decimal",
	  B("POST http://a/ HTTP/1.1\r\nContent-Length: -1\r\n\r\n") },
	{ "not a decimal",
	  B("POST http://a/ HTTP/1.1\r\nContent-Length: 0x5\r\n\r\n") },
	{ "not a decimal",
	  B("POST http://a/ HTTP/1.1\r\nContent-Length: 5 5\r\n\r\n") },
	{ "not a decimal",
	  B("POST http://a/ HTTP/1.1\r\nContent-Length: 5;\r\n\r\n") },
	{ "not a decimal",
	  B("POST http://a/ HTTP/1.1\r\nContent-Length: 9223372036854775808\r\n\r\n") },
	{ "not a decimal",
	  B("POST http://a/ HTTP/1.1\r\nContent-Length: 18446744073709551616\r\n\r\n") },
	{ "not a decimal",
	  B("POST http://a/ HTTP/1.1\r\nContent-Length: 1\x80\r\n\r\n") },
	{ "other than a single",
	  B("POST http://a/ HTTP/1.1\r\nTransfer-Encoding: gzip, chunked\r\n\r\n") },
	{ "other than a single",
	  B("POST http://a/ HTTP/1.1\r\nTransfer-Encoding: chunked, chunked\r\n\r\n") },
	{ "other than a single",
	  B("POST http://a/ HTTP/1.1\r\nTransfer-Encoding: chunked\r\n"
	    "Transfer-Encoding: chunked\r\n\r\n") },
	{ "other than a single",
	  B("POST http://a/ HTTP/1.1\r\nTransfer-Encoding: identity\r\n\r\n") },
	{ "other than a single",
	  B("POST http://a/ HTTP/1.1\r\nTransfer-Encoding: chunked;q=1\r\n\r\n") },
	{ "other than a single",
	  B("POST http://a/ HTTP/1.1\r\nTransfer-Encoding:\r\n\r\n") },
	{ "HTTP/1.0 request",
	  B("POST http://a/ HTTP/1.0\r\nTransfer-Encoding: chunked\r\n\r\n") },
	/* line ends: RFC 9112 2.2 */
	{ "line 1: LF without CR",
	  B("GET http://a/ HTTP/1.1\nHost: a\r\n\r\n") },
	{ "line 2: LF without CR",
	  B("GET http://a/ HTTP/1.1\r\nHost: a\n\r\n") },
	{ "line 3: LF without CR",
	  B("GET http://a/ HTTP/1.1\r\nHost: a\r\n\n") },
	{ "line 1: LF without CR", B("GET http://a/ HTTP/1.1\n\n") },
	{ "line 2: CR not followed by LF",
	  B("GET http://a/ HTTP/1.1\r\nX: a\rb\r\n\r\n") },
	{ "line 1: CR not followed by LF",
	  B("GET http://a/\r HTTP/1.1\r\n\r\n") },
	{ "line 1: CR not followed by LF",
	  B("GET http://a/ HTTP/1.1\r\r\n\r\n") },
	{ "line 2: CR not followed by LF",
	  B("GET http://a/ HTTP/1.1\r\n\r\r\n") },
	/* whitespace: RFC 9112 2.2, 5.1, 5.2 */
	{ "line 3 starts with whitespace",
	  B("GET http://a/ HTTP/1.1\r\nX: a\r\n b\r\n\r\n") },
	{ "line 3 starts with whitespace",
	  B("GET http://a/ HTTP/1.1\r\nX: a\r\n\tb\r\n\r\n") },
	{ "line 2 starts with whitespace",
	  B("GET http://a/ HTTP/1.1\r\n Host: a\r\n\r\n") },
	{ "whitespace before ':'",
	  B("GET http://a/ HTTP/1.1\r\nHost : a\r\n\r\n") },
	{ "whitespace before ':'",
	  B("GET http://a/ HTTP/1.1\r\nHost\t: a\r\n\r\n") },
	{ "whitespace before ':'",
	  B("GET http://a/ HTTP/1.1\r\nX Y: 1\r\n\r\n") },
	{ "not a field", B("GET http://a/ HTTP/1.1\r\n: v\r\n\r\n") },
	{ "not a field", B("GET http://a/ HTTP/1.1\r\nX(y): 1\r\n\r\n") },
	{ "not a field", B("GET http://a/ HTTP/1.1\r\nX\x80: 1\r\n\r\n") },
	{ "not a field", B("GET http://a/ HTTP/1.1\r\nNoColon\r\n\r\n") },
	{ "byte 0x00 is not allowed in a field value",
	  B("GET http://a/ HTTP/1.1\r\nX: a\0b\r\n\r\n") },
	{ "byte 0x01 is not allowed in a field value",
	  B("GET http://a/ HTTP/1.1\r\nX: \x01\r\n\r\n") },
	{ "byte 0x7f is not allowed in a field value",
	  B("GET http://a/ HTTP/1.1\r\nX: \x7f\r\n\r\n") },
	/* request line: RFC 9112 3, 2.3 */
	{ "only HTTP/1.1", B("GET http://a/ HTTP/2.0\r\n\r\n") },
	{ "only HTTP/1.1", B("GET http://a/ HTTP/0.9\r\n\r\n") },
	{ "HTTP/0.9 is not supported", B("GET http://a/\r\n\r\n") },
	{ "only HTTP/1.1", B("GET http://a/ HTTP/1.2\r\n\r\n") },
	{ "only HTTP/1.1", B("GET http://a/ http/1.1\r\n\r\n") },
	{ "only HTTP/1.1", B("GET http://a/ HTTP/1.1 \r\n\r\n") },
	{ "only HTTP/1.1", B("GET http://a/ HTTP/1\r\n\r\n") },
	{ "only HTTP/1.1", B("GET http://a/ HTTP/11\r\n\r\n") },
	{ "no single space before the target",
	  B("GET  http://a/ HTTP/1.1\r\n\r\n") },
	{ "version ' HTTP/1.1'", B("GET http://a/  HTTP/1.1\r\n\r\n") },
	{ "byte 0x09 where a method", B("GET\thttp://a/ HTTP/1.1\r\n\r\n") },
	{ "request target: byte 0x09", B("GET http://a/\tHTTP/1.1\r\n\r\n") },
	{ "has no target", B("GET\r\n\r\n") },
	{ "method longer than 31",
	  B("ABCDEFGHIJKLMNOPQRSTUVWXYZABCDEF http://a/ HTTP/1.1\r\n\r\n") },
	{ "byte 0x28 where a method", B("GE(T http://a/ HTTP/1.1\r\n\r\n") },
	{ "empty line where the request line",
	  B("\r\nGET http://a/ HTTP/1.1\r\n\r\n") },
	{ "starts with a space", B(" GET http://a/ HTTP/1.1\r\n\r\n") },
	{ "byte 0x16 where a method",
	  B("\x16\x03\x01\x02\x00\x01\x00\x01\xfc\x03\x03") },
	{ "byte 0x05 where a method", B("\x05\x01\x00") },
	/* Host: RFC 9112 3.2 */
	{ "more than one Host",
	  B("GET http://a/ HTTP/1.1\r\nHost: a\r\nhost: a\r\n\r\n") },
	{ "Host field: 'a b': the host must",
	  B("GET http://a/ HTTP/1.1\r\nHost: a b\r\n\r\n") },
	{ "Host field: 'a, b': the host must",
	  B("GET http://a/ HTTP/1.1\r\nHost: a, b\r\n\r\n") },
	{ "Host field: 'u@a': userinfo",
	  B("GET http://a/ HTTP/1.1\r\nHost: u@a\r\n\r\n") },
	{ "Host field: empty authority",
	  B("GET http://a/ HTTP/1.1\r\nHost:\r\n\r\n") },
	{ "Host field: 'a:0': the port must",
	  B("GET http://a/ HTTP/1.1\r\nHost: a:0\r\n\r\n") },
	{ "Host field: '[::1': '[' without ']'",
	  B("GET http://a/ HTTP/1.1\r\nHost: [::1\r\n\r\n") },
	/* Connection: RFC 9110 7.6.1 */
	{ "may not name content-length",
	  B("POST http://a/ HTTP/1.1\r\nConnection: Content-Length\r\n"
	    "Content-Length: 5\r\n\r\n") },
	{ "may not name transfer-encoding",
	  B("POST http://a/ HTTP/1.1\r\nConnection: close, transfer-encoding\r\n"
	    "Transfer-Encoding: chunked\r\n\r\n") },
	{ "may not name host",
	  B("GET http://a/ HTTP/1.1\r\nConnection: host\r\n\r\n") },
	{ "'a b' is not a token",
	  B("GET http://a/ HTTP/1.1\r\nConnection: a b\r\n\r\n") },
	{ "'a/b' is not a token",
	  B("GET http://a/ HTTP/1.1\r\nConnection: a/b\r\n\r\n") },
	{ "more than 16 Connection options",
	  B("GET http://a/ HTTP/1.1\r\nConnection: a,b,c,d,e,f,g,h\r\n"
	    "Connection: i,j,k,l,m,n,o,p,q\r\n\r\n") },
};

static void test_absolute_refused(void **state)
{
	size_t i;

	for (i = 0; i < ARRAY_SIZE(absolute_bad); i++) {
		const struct bytes *h = &absolute_bad[i].head;
		struct jr_http_request req;
		struct jr_err e = { 0 };
		long r = jr_http_parse_request(h->s, h->n, &req, &e);

		if (r != -EINVAL)
			fail_msg("%s: accepted (%ld)", absolute_bad[i].says, r);
		assert_int_equal(e.code, EINVAL);
		if (!strstr(e.msg, absolute_bad[i].says))
			fail_msg("vector %zu: '%s' does not say '%s'", i, e.msg,
				 absolute_bad[i].says);
		assert_true(request_is_empty(&req));
		/* without an error struct, the same answer */
		assert_int_equal(jr_http_parse_request(h->s, h->n, &req, NULL),
				 -EINVAL);
	}
}

/* Sixteen Connection options are the most, not one fewer. */
static void test_connection_options_limit(void **state)
{
	static const char h[] =
	    "GET http://a/ HTTP/1.1\r\nConnection: a,b,c,d,e,f,g,h\r\n"
	    "Connection: i,j,k,l,m,n,o,p\r\nP: 1\r\nQ: 2\r\n\r\n";
	struct jr_http_request req;
	struct jr_err e = { 0 };

	assert_int_equal(jr_http_parse_request(h, strlen(h), &req, &e),
			 strlen(h));
	assert_string_equal(req.upstream_head,
			    "GET / HTTP/1.1\r\nHost: a\r\nQ: 2\r\n"
			    "Connection: close\r\n\r\n");
	jr_http_request_release(&req);
}

/* Where a head may end: "\n\r\n", or "\n\n" with a bare LF. */
static bool holds_head_end(const char *s, size_t n)
{
	size_t i;

	for (i = 0; i + 1 < n; i++)
		if (s[i] == '\n' &&
		    (s[i + 1] == '\n' ||
		     (i + 2 < n && s[i + 1] == '\r' && s[i + 2] == '\n')))
			return true;
	return false;
}

/*
 * A refused prefix stays refused however the head goes on: the relay may
 * answer at the first refusal without waiting for more. And a prefix that
 * holds a possible head end always has an answer: the relay calls the
 * parser only when one arrives (see http.c).
 */
static void test_refusal_is_prefix_stable(void **state)
{
	size_t i, k;

	for (i = 0; i < ARRAY_SIZE(absolute_bad); i++) {
		const struct bytes *h = &absolute_bad[i].head;
		bool refused = false;

		for (k = 0; k <= h->n; k++) {
			struct jr_http_request req;
			long r = jr_http_parse_request(h->s, k, &req, NULL);

			if (refused && r != -EINVAL)
				fail_msg("%s: prefix %zu: %ld after a refusal",
					 absolute_bad[i].says, k, r);
			if (r < 0)
				refused = true;
			else if (r)
				fail_msg("%s: prefix %zu accepted",
					 absolute_bad[i].says, k);
			else if (holds_head_end(h->s, k))
				fail_msg("%s: prefix %zu has no answer",
					 absolute_bad[i].says, k);
		}
		assert_true(refused);
	}
}

/* Refused on the first bytes that settle it, not at the end of a head. */
static void test_refused_early(void **state)
{
	static const struct bytes early[] = {
		B("\x16"), /* TLS ClientHello */
		B("\x05"), /* SOCKS5 */
		B(" "),
		B("\r"), /* leading CRLF */
		B("GET\r"),
		B("ABCDEFGHIJKLMNOPQRSTUVWXYZABCDEF"), /* method too long */
		B("GET http://a/ HTTP/1.1\n"),
		B("GET http://a/\rx"),
		B("GET http://a/ HTTP/1.1\r\nX: a\rb"),
		B("GET /x HTTP/1.1\r\n"),
		B("GET http://a/ HTTP/1.1\r\nHost : a\r\n"),
		B("POST http://a/ HTTP/1.1\r\nContent-Length: 1\r\nContent-Length: 2\r\n"),
	};
	size_t i;

	for (i = 0; i < ARRAY_SIZE(early); i++) {
		struct jr_http_request req;

		if (jr_http_parse_request(early[i].s, early[i].n, &req, NULL) !=
		    -EINVAL)
			fail_msg("vector %zu not refused early", i);
	}
}

/* Every proper prefix of a good head asks for more, and holds nothing. */
static void check_prefixes(const char *h, size_t n)
{
	size_t k;

	for (k = 0; k < n; k++) {
		struct jr_http_request req;
		struct jr_err e = { 0 };
		long r = jr_http_parse_request(h, k, &req, &e);

		if (r)
			fail_msg("prefix %zu of '%s': %ld %s", k, h, r, e.msg);
		assert_true(request_is_empty(&req));
	}
}

static void test_incomplete(void **state)
{
	size_t i;

	for (i = 0; i < ARRAY_SIZE(connect_ok); i++)
		check_prefixes(connect_ok[i].head, strlen(connect_ok[i].head));
	for (i = 0; i < ARRAY_SIZE(absolute_ok); i++)
		check_prefixes(absolute_ok[i].head.s, absolute_ok[i].head.n);
}

/* ----------------------------------------------------- the 64 KiB limit */

/* "GET http://a/ HTTP/1.1\r\nX: aaa...\r\n\r\n" of @total bytes, then @extra
 * more bytes. */
static char *long_head(size_t total, size_t extra)
{
	static const char start[] = "GET http://a/ HTTP/1.1\r\nX: ";
	char *h = malloc(total + extra);

	assert_non_null(h);
	memcpy(h, start, sizeof(start) - 1);
	memset(h + sizeof(start) - 1, 'a', total - (sizeof(start) - 1) - 4);
	memcpy(h + total - 4, "\r\n\r\n", 4);
	memset(h + total, 'z', extra);
	return h;
}

static void test_head_limit(void **state)
{
	_cleanup_free_ char *fits = long_head(JR_HTTP_HEAD_MAX, 100);
	_cleanup_free_ char *over = long_head(JR_HTTP_HEAD_MAX + 1, 100);
	_cleanup_free_ char *endless = malloc(JR_HTTP_HEAD_MAX + 1);
	struct jr_http_request req;
	struct jr_err e = { 0 };

	/* exactly JR_HTTP_HEAD_MAX bytes, request line and final CRLF in */
	assert_int_equal(
	    jr_http_parse_request(fits, JR_HTTP_HEAD_MAX - 1, &req, &e), 0);
	assert_int_equal(
	    jr_http_parse_request(fits, JR_HTTP_HEAD_MAX, &req, &e),
	    JR_HTTP_HEAD_MAX);
	assert_int_equal(req.upstream_head_len,
			 JR_HTTP_HEAD_MAX -
			     strlen("GET http://a/ HTTP/1.1\r\n") +
			     strlen("GET / HTTP/1.1\r\nHost: a\r\n") +
			     strlen("Connection: close\r\n"));
	jr_http_request_release(&req);
	assert_int_equal(
	    jr_http_parse_request(fits, JR_HTTP_HEAD_MAX + 100, &req, &e),
	    JR_HTTP_HEAD_MAX);
	jr_http_request_release(&req);

	/* one byte more: refused as soon as JR_HTTP_HEAD_MAX bytes are in */
	assert_int_equal(
	    jr_http_parse_request(over, JR_HTTP_HEAD_MAX - 1, &req, &e), 0);
	assert_int_equal(
	    jr_http_parse_request(over, JR_HTTP_HEAD_MAX, &req, &e), -EMSGSIZE);
	assert_int_equal(e.code, EMSGSIZE);
	assert_int_equal(
	    jr_http_parse_request(over, JR_HTTP_HEAD_MAX + 1, &req, &e),
	    -EMSGSIZE);
	assert_int_equal(
	    jr_http_parse_request(over, JR_HTTP_HEAD_MAX + 100, &req, &e),
	    -EMSGSIZE);
	assert_true(request_is_empty(&req));

	/* a request line that never ends */
	assert_non_null(endless);
	memcpy(endless, "GET http://a/", 13);
	memset(endless + 13, 'a', JR_HTTP_HEAD_MAX + 1 - 13);
	assert_int_equal(
	    jr_http_parse_request(endless, JR_HTTP_HEAD_MAX - 1, &req, &e), 0);
	assert_int_equal(
	    jr_http_parse_request(endless, JR_HTTP_HEAD_MAX, &req, &e),
	    -EMSGSIZE);
}

/* ------------------------------------------------------------ messages */

/* A long client string is cut in a message, not copied whole. */
static void test_message_cut(void **state)
{
	char head[300];
	struct jr_http_request req;
	struct jr_err e = { 0 };
	int n = snprintf(head, sizeof(head),
			 "GET http://%0200d@b/ HTTP/1.1\r\n\r\n", 7);

	assert_int_equal(jr_http_parse_request(head, n, &req, &e), -EINVAL);
	assert_non_null(strstr(e.msg, "'000000000000000000000000000000000000"
				      "000000000000...': userinfo"));
	assert_true(strlen(e.msg) < 120);
}

static void test_messages(void **state)
{
	static const struct {
		struct bytes head;
		const char *says;
	} m[] = {
		{ B("GET https://a/ HTTP/1.1\r\n\r\n"), "CONNECT" },
		{ B("GET /x HTTP/1.1\r\n\r\n"), "absolute URI" },
		{ B("GET http://allowed.test@denied.test/ HTTP/1.1\r\n\r\n"),
		  "userinfo" },
		{ B("CONNECT a.test HTTP/1.1\r\n\r\n"), "port is required" },
		{ B("GET http://a/ HTTP/1.1\r\nX: 1\r\n y\r\n\r\n"), "line 3" },
		{ B("GET http://a/ HTTP/1.1\r\nHost : a\r\n\r\n"), "5.1" },
		{ B("GET http://a/ HTTP/2.0\r\n\r\n"), "'HTTP/2.0'" },
		/* client bytes quoted without their control bytes */
		{ B("POST http://a/ HTTP/1.1\r\nContent-Length: 1\x80\xff\r\n\r\n"),
		  "'1\?\?'" },
		{ B("GET http://a/ HTTP/1.1\r\nHost: a:0\r\n\r\n"),
		  "Host field: " },
	};
	size_t i;

	for (i = 0; i < ARRAY_SIZE(m); i++) {
		struct jr_http_request req;
		struct jr_err e = { 0 };

		assert_true(jr_http_parse_request(m[i].head.s, m[i].head.n,
						  &req, &e) < 0);
		if (!strstr(e.msg, m[i].says))
			fail_msg("'%s' does not say '%s'", e.msg, m[i].says);
	}
}

/* ---------------------------------------------------------- authority */

static void test_authority(void **state)
{
	static const struct {
		const char *in;
		uint16_t def;
		const char *host; /* NULL: refused */
		bool v6;
		uint16_t port;
	} v[] = {
		{ "a.test:8080", 0, "a.test", false, 8080 },
		{ "a.test", 80, "a.test", false, 80 },
		{ "A.Test", 443, "a.test", false, 443 },
		{ "[::1]", 80, "::1", true, 80 },
		{ "[::1]:81", 80, "::1", true, 81 },
		{ "[2001:DB8:0:0:0:0:0:1]:1", 0, "2001:db8:0:0:0:0:0:1", true,
		  1 },
		{ "a.test", 0, NULL, false, 0 },
		{ "[::1]", 0, NULL, false, 0 },
		{ "", 80, NULL, false, 0 },
		{ ":80", 80, NULL, false, 0 },
		{ "a.test:", 80, NULL, false, 0 },
		{ "a@b", 80, NULL, false, 0 },
		{ "[::1]:80@x", 80, NULL, false, 0 },
		{ "[::1", 80, NULL, false, 0 },
		{ "[", 80, NULL, false, 0 },
		{ "::1", 80, NULL, false, 0 },
		{ "a b", 80, NULL, false, 0 },
		{ "a\tb", 80, NULL, false, 0 },
		{ "[::1%eth0]", 80, NULL, false, 0 },
		{ "[::1]]", 80, NULL, false, 0 },
		{ "[[::1]]", 80, NULL, false, 0 },
		{ "a.test:65536", 80, NULL, false, 0 },
		{ "a.test:00000000000000000000080", 0, "a.test", false, 80 },
	};
	size_t i;

	for (i = 0; i < ARRAY_SIZE(v); i++) {
		char host[256] = "unchanged";
		bool v6 = false;
		uint16_t port = 7;
		struct jr_err e = { 0 };
		int r =
		    jr_http_parse_authority(v[i].in, strlen(v[i].in), v[i].def,
					    host, sizeof(host), &v6, &port, &e);

		if (!v[i].host) {
			if (r != -EINVAL)
				fail_msg("'%s' accepted", v[i].in);
			/* nothing written on failure */
			assert_string_equal(host, "unchanged");
			assert_int_equal(port, 7);
			continue;
		}
		if (r)
			fail_msg("'%s': %s", v[i].in, e.msg);
		assert_string_equal(host, v[i].host);
		assert_int_equal(v6, v[i].v6);
		assert_int_equal(port, v[i].port);
	}
}

/* The host and its NUL must fit @host_size; no byte past it is written. */
static void test_authority_host_size(void **state)
{
	char host[8];
	bool v6;
	uint16_t port;

	memset(host, 'X', sizeof(host));
	assert_int_equal(jr_http_parse_authority("abcdefgh:1", 10, 0, host, 8,
						 &v6, &port, NULL),
			 -EINVAL);
	assert_int_equal(jr_http_parse_authority("abcdefg:1", 9, 0, host, 7,
						 &v6, &port, NULL),
			 -EINVAL);
	assert_int_equal(host[7], 'X');
	assert_int_equal(jr_http_parse_authority("abcdefg:1", 9, 0, host, 8,
						 &v6, &port, NULL),
			 0);
	assert_string_equal(host, "abcdefg");
	/* only @n bytes are read: the rest of the string is not the port */
	assert_int_equal(jr_http_parse_authority("ab:12345", 4, 0, host, 8, &v6,
						 &port, NULL),
			 0);
	assert_int_equal(port, 1);
}

/* Lengths, not NULs, end the input: inet_pton() must not see "::1" alone. */
static void test_authority_embedded_nul(void **state)
{
	static const char v6[] = "[::1\0x]:443", name[] = "a\0b:443";
	char host[64];
	bool is_v6;
	uint16_t port;

	assert_int_equal(jr_http_parse_authority(v6, sizeof(v6) - 1, 0, host,
						 sizeof(host), &is_v6, &port,
						 NULL),
			 -EINVAL);
	assert_int_equal(jr_http_parse_authority(name, sizeof(name) - 1, 0,
						 host, sizeof(host), &is_v6,
						 &port, NULL),
			 -EINVAL);
}

/* --------------------------------------------------------- origin-form */

static void test_origin_form(void **state)
{
	static const struct {
		const char *uri;
		const char *out; /* NULL: -EINVAL */
	} v[] = {
		{ "http://h", "/" },
		{ "http://h?x=1", "/?x=1" },
		{ "http://h:80/p?a=1", "/p?a=1" },
		{ "http://h/", "/" },
		{ "http://h/p/q?", "/p/q?" },
		{ "http://h#f", "/" },
		{ "http://h/p#f?x", "/p" },
		{ "http://h?x#f", "/?x" },
		{ "http://[::1]:8080/a", "/a" },
		{ "HTTP://H/A", "/A" },
		{ "h/p", NULL },
		{ "/p", NULL },
		{ "http:/h/p", NULL },
		{ "http:h", NULL },
		{ "1http://h/", NULL },
		{ "", NULL },
	};
	size_t i;

	for (i = 0; i < ARRAY_SIZE(v); i++) {
		char out[64];
		int r = jr_http_origin_form(v[i].uri, strlen(v[i].uri), out,
					    sizeof(out));

		if (!v[i].out) {
			if (r != -EINVAL)
				fail_msg("'%s' accepted", v[i].uri);
			continue;
		}
		assert_int_equal(r, 0);
		assert_string_equal(out, v[i].out);
	}
}

static void test_origin_form_size(void **state)
{
	char out[8];

	memset(out, 'X', sizeof(out));
	/* "/abcdef" and its NUL: 8 bytes */
	assert_int_equal(jr_http_origin_form("http://h/abcdef", 15, out, 8), 0);
	assert_string_equal(out, "/abcdef");
	assert_int_equal(jr_http_origin_form("http://h/abcdefg", 16, out, 8),
			 -EINVAL);
	assert_int_equal(jr_http_origin_form("http://h?abcdef", 15, out, 7),
			 -EINVAL);
	assert_int_equal(jr_http_origin_form("http://h", 8, out, 1), -EINVAL);
	assert_int_equal(jr_http_origin_form("http://h", 8, out, 2), 0);
	assert_string_equal(out, "/");
}

/* --------------------------------------------------------- responses */

static void test_response_deny(void **state)
{
	static const char want[] =
	    "HTTP/1.1 403 Forbidden\r\n"
	    "Content-Type: text/plain\r\n"
	    "Content-Length: 45\r\n"
	    "Connection: close\r\n"
	    "X-Jailrun-Deny: not-allowed\r\n"
	    "\r\n"
	    "jailrun: denied.test is not in the allowlist\n";
	char out[512];
	int n = sizeof(want) - 1;

	assert_int_equal(
	    jr_http_response(out, sizeof(out), 403, "not-allowed",
			     "jailrun: denied.test is not in the allowlist"),
	    n);
	assert_string_equal(out, want);
	/* the exact size and its NUL, not one byte less */
	assert_int_equal(
	    jr_http_response(out, n + 1, 403, "not-allowed",
			     "jailrun: denied.test is not in the allowlist"),
	    n);
	assert_int_equal(
	    jr_http_response(out, n, 403, "not-allowed",
			     "jailrun: denied.test is not in the allowlist"),
	    -ENOSPC);
	assert_int_equal(jr_http_response(NULL, 0, 403, NULL, "x"), -ENOSPC);
}

static void test_response_statuses(void **state)
{
	static const struct {
		int status;
		const char *line;
	} v[] = {
		{ 200, "HTTP/1.1 200 OK\r\n" }, /* the relay's health check */
		{ 400, "HTTP/1.1 400 Bad Request\r\n" },
		{ 403, "HTTP/1.1 403 Forbidden\r\n" },
		{ 405, "HTTP/1.1 405 Method Not Allowed\r\n" },
		{ 407, "HTTP/1.1 407 Proxy Authentication Required\r\n" },
		{ 408, "HTTP/1.1 408 Request Timeout\r\n" },
		{ 413, "HTTP/1.1 413 Content Too Large\r\n" },
		{ 414, "HTTP/1.1 414 URI Too Long\r\n" },
		{ 431, "HTTP/1.1 431 Request Header Fields Too Large\r\n" },
		{ 500, "HTTP/1.1 500 Internal Server Error\r\n" },
		{ 501, "HTTP/1.1 501 Not Implemented\r\n" },
		{ 502, "HTTP/1.1 502 Bad Gateway\r\n" },
		{ 503, "HTTP/1.1 503 Service Unavailable\r\n" },
		{ 504, "HTTP/1.1 504 Gateway Timeout\r\n" },
		{ 505, "HTTP/1.1 505 HTTP Version Not Supported\r\n" },
	};
	size_t i;

	for (i = 0; i < ARRAY_SIZE(v); i++) {
		char want[256], out[256];
		int n = snprintf(want, sizeof(want),
				 "%sContent-Type: text/plain\r\n"
				 "Content-Length: 13\r\n"
				 "Connection: close\r\n"
				 "\r\n"
				 "jailrun: why\n",
				 v[i].line);

		assert_int_equal(jr_http_response(out, sizeof(out), v[i].status,
						  NULL, "jailrun: why"),
				 n);
		assert_string_equal(out, want);
	}
}

static void test_response_refused(void **state)
{
	static const char empty_body[] = "HTTP/1.1 502 Bad Gateway\r\n"
					 "Content-Type: text/plain\r\n"
					 "Content-Length: 0\r\n"
					 "Connection: close\r\n"
					 "\r\n";
	char out[512];

	assert_int_equal(jr_http_response(out, sizeof(out), 201, NULL, "x"),
			 -EINVAL);
	assert_int_equal(jr_http_response(out, sizeof(out), 418, NULL, "x"),
			 -EINVAL);
	assert_int_equal(jr_http_response(out, sizeof(out), 0, NULL, "x"),
			 -EINVAL);
	assert_int_equal(
	    jr_http_response(out, sizeof(out), 403, "a\r\nSet-Cookie: x", "x"),
	    -EINVAL);
	assert_int_equal(jr_http_response(out, sizeof(out), 403, "", "x"),
			 -EINVAL);
	assert_int_equal(jr_http_response(out, sizeof(out), 403, "a b", "x"),
			 -EINVAL);
	assert_int_equal(jr_http_response(out, sizeof(out), 502, NULL, NULL),
			 sizeof(empty_body) - 1);
	assert_string_equal(out, empty_body);
}

static void test_connect_established(void **state)
{
	static const char want[] =
	    "HTTP/1.1 200 Connection established\r\n\r\n";
	char out[64];

	assert_int_equal(jr_http_connect_established(out, sizeof(out)),
			 sizeof(want) - 1);
	assert_string_equal(out, want);
	assert_int_equal(jr_http_connect_established(out, sizeof(want)),
			 sizeof(want) - 1);
	assert_int_equal(jr_http_connect_established(out, sizeof(want) - 1),
			 -ENOSPC);
}

/* ------------------------------------------------------- body tracker */

static void tracker(struct jr_http_body_tracker *t, enum jr_http_body kind,
		    uint64_t length)
{
	struct jr_http_request req = { .body = kind, .body_length = length };

	jr_http_body_init(t, &req);
}

/*
 * Feed @s[0..n) cut at @cuts (ascending) and check that exactly @body
 * bytes are taken and the tracker is done, or that it fails if @body is
 * negative.
 */
static void feed_cut(enum jr_http_body kind, uint64_t length, const char *s,
		     size_t n, const size_t *cuts, size_t n_cuts, long body)
{
	struct jr_http_body_tracker t;
	size_t start = 0, i;
	long taken = 0;

	tracker(&t, kind, length);
	for (i = 0; i <= n_cuts; i++) {
		size_t end = i < n_cuts ? cuts[i] : n;
		long r = jr_http_body_feed(&t, s + start, end - start);

		if (r < 0) {
			assert_int_equal(r, -EINVAL);
			assert_true(body < 0);
			/* an error stays */
			assert_int_equal(jr_http_body_feed(&t, "0\r\n\r\n", 5),
					 -EINVAL);
			assert_int_equal(jr_http_body_feed(&t, "", 0), -EINVAL);
			return;
		}
		assert_true((size_t)r <= end - start);
		/* short only where the body ends */
		if ((size_t)r < end - start)
			assert_true(t.done);
		taken += r;
		start = end;
	}
	if (body < 0)
		fail_msg("malformed body accepted: '%.*s'", (int)n, s);
	assert_true(t.done);
	assert_int_equal(taken, body);
	assert_int_equal(jr_http_body_feed(&t, "0\r\n\r\n", 5), 0);
}

/* Everything an RFC 9112 7.1 chunked body may hold, then the next
 * request: the tracker must stop at the last LF of the body. */
static const char chunked_body[] =
    "4;name=val;q=\"a\\\"b\" ; x\r\nWiki\r\n"
    "5\r\npedia\r\n"
    "E\r\n in\r\n\r\nchunks.\r\n"
    "10\r\n0\r\n\r\n0\r\n\r\n012345\r\n" /* data that looks like the end */
    "0 ; end\r\n"
    "Expires: never\r\n"
    "X-T:\r\n"
    "\r\n";
static const char next_request[] = "GET http://evil.test/ HTTP/1.1\r\n\r\n";

static void test_chunked_every_split(void **state)
{
	char buf[sizeof(chunked_body) + sizeof(next_request)];
	size_t body = sizeof(chunked_body) - 1;
	size_t n = body + sizeof(next_request) - 1;
	size_t cuts[2], i, j, k;

	memcpy(buf, chunked_body, body);
	memcpy(buf + body, next_request, sizeof(next_request));
	feed_cut(JR_HTTP_BODY_CHUNKED, 0, buf, n, NULL, 0, body);
	for (i = 0; i <= n; i++) {
		cuts[0] = i;
		feed_cut(JR_HTTP_BODY_CHUNKED, 0, buf, n, cuts, 1, body);
		for (j = i; j <= n; j++) {
			cuts[1] = j;
			feed_cut(JR_HTTP_BODY_CHUNKED, 0, buf, n, cuts, 2,
				 body);
		}
	}
	/* and one byte at a time */
	{
		struct jr_http_body_tracker t;
		size_t taken = 0;

		tracker(&t, JR_HTTP_BODY_CHUNKED, 0);
		for (k = 0; k < n; k++) {
			long r = jr_http_body_feed(&t, buf + k, 1);

			assert_true(r == 0 || r == 1);
			assert_int_equal(r, k < body);
			assert_int_equal(t.done, k + 1 >= body);
			taken += r;
		}
		assert_int_equal(taken, body);
	}
}

static void test_length_every_split(void **state)
{
	static const char buf[] =
	    "hello, worldGET http://evil.test/ HTTP/1.1\r\n\r\n";
	size_t n = sizeof(buf) - 1, cut;

	for (cut = 0; cut <= n; cut++)
		feed_cut(JR_HTTP_BODY_LENGTH, 12, buf, n, &cut, 1, 12);
	feed_cut(JR_HTTP_BODY_LENGTH, 0, buf, n, NULL, 0, 0);
	feed_cut(JR_HTTP_BODY_NONE, 0, buf, n, NULL, 0, 0);
}

static void test_tracker_init(void **state)
{
	struct jr_http_body_tracker t;

	tracker(&t, JR_HTTP_BODY_NONE, 0);
	assert_true(t.done);
	tracker(&t, JR_HTTP_BODY_LENGTH, 0);
	assert_true(t.done);
	tracker(&t, JR_HTTP_BODY_LENGTH, 3);
	assert_false(t.done);
	assert_int_equal(t.remaining, 3);
	tracker(&t, JR_HTTP_BODY_CHUNKED, 0);
	assert_false(t.done);
	/* the largest chunk size: 2^63 - 1 */
	assert_int_equal(jr_http_body_feed(&t, "7fffffffffffffff\r\nab", 20),
			 20);
	assert_int_equal(t.remaining, INT64_MAX - 2);
	assert_false(t.done);
}

static void test_chunked_good(void **state)
{
	static const char *const v[] = {
		"0\r\n\r\n",
		"00000000000000000000\r\n\r\n",
		"A\r\n0123456789\r\n0\r\n\r\n",
		"a\r\n0123456789\r\n0\r\n\r\n",
		"0001\r\nx\r\n0\r\n\r\n",
		"1;a\r\nx\r\n0\r\n\r\n",
		"1 ;a\r\nx\r\n0\r\n\r\n",
		"1\t; a\r\nx\r\n0\r\n\r\n",
		"1 \t ;a\r\nx\r\n0\r\n\r\n",
		"1;a \t = b\r\nx\r\n0\r\n\r\n",
		"1;a = b\r\nx\r\n0\r\n\r\n",
		"1;a=\"x;y\\\\\"\r\nx\r\n0\r\n\r\n",
		"1;a;b=c;d=\"\"\r\nx\r\n0\r\n\r\n",
		"1;a=\"caf\xc3\xa9\"\r\nx\r\n0\r\n\r\n",
		"0\r\nX: y\r\n\r\n",
		"0\r\nX:\t \r\n\r\n",
	};
	size_t i;

	for (i = 0; i < ARRAY_SIZE(v); i++)
		feed_cut(JR_HTTP_BODY_CHUNKED, 0, v[i], strlen(v[i]), NULL, 0,
			 strlen(v[i]));
}

static void test_chunked_malformed(void **state)
{
	static const struct bytes v[] = {
		B("\r\n"),
		B("g\r\n"),
		B("-1\r\n"),
		B("+1\r\n"),
		B(" 1\r\n"),
		B("1 \r\n"),
		B("0x1\r\n"),
		B("8000000000000000\r\n"),   /* 2^63 */
		B("10000000000000000\r\n"),  /* 2^64 would wrap to 0 */
		B("10000000000000001\r\nx"), /* 2^64 + 1 would wrap to 1 */
		B("1\n"),
		B("1\r\r\n"),
		B("1\rx"),
		B("1\r\nab"),
		B("1\r\na\n"),
		B("1\r\na\r\r"),
		B("1;\r\n"),
		B("1;=a\r\n"),
		B("1;a=\r\n"),
		B("1;a=b \r\n"),
		B("1;a b\r\n"),
		B("1;a=b=c\r\n"),
		B("1;a=\"b\r\n"),
		B("1;a=\"b\" c\r\n"),
		B("1;a=\"\\\x01\"\r\n"),
		B("1;a=\"\x01\"\r\n"),
		B("1;a=\"b\"c\r\n"),
		B("1;a=b\"\r\n"),
		B("1;(\r\n"),
		B("0\r\n x: y\r\n\r\n"), /* obs-fold */
		B("0\r\nX : y\r\n\r\n"),
		B("0\r\nX\r\n\r\n"),
		B("0\r\n:y\r\n\r\n"),
		B("0\r\nX: y\n"),
		B("0\r\nX: y\rz"),
		B("0\r\nX: \x01\r\n\r\n"),
		B("0\r\n\n"),
		B("0\r\n\r\r"),
		B("0\r\n\r\x00"),
	};
	size_t i, k;

	for (i = 0; i < ARRAY_SIZE(v); i++) {
		struct jr_http_body_tracker t;
		long r = 0;

		feed_cut(JR_HTTP_BODY_CHUNKED, 0, v[i].s, v[i].n, NULL, 0, -1);
		/* byte by byte, too */
		tracker(&t, JR_HTTP_BODY_CHUNKED, 0);
		for (k = 0; k < v[i].n && r >= 0; k++)
			r = jr_http_body_feed(&t, v[i].s + k, 1);
		if (r != -EINVAL)
			fail_msg("vector %zu accepted byte by byte", i);
	}
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_connect_accepted),
		cmocka_unit_test(test_connect_refused),
		cmocka_unit_test(test_absolute_rewritten),
		cmocka_unit_test(test_absolute_refused),
		cmocka_unit_test(test_connection_options_limit),
		cmocka_unit_test(test_refusal_is_prefix_stable),
		cmocka_unit_test(test_refused_early),
		cmocka_unit_test(test_incomplete),
		cmocka_unit_test(test_head_limit),
		cmocka_unit_test(test_messages),
		cmocka_unit_test(test_message_cut),
		cmocka_unit_test(test_authority),
		cmocka_unit_test(test_authority_host_size),
		cmocka_unit_test(test_authority_embedded_nul),
		cmocka_unit_test(test_origin_form),
		cmocka_unit_test(test_origin_form_size),
		cmocka_unit_test(test_response_deny),
		cmocka_unit_test(test_response_statuses),
		cmocka_unit_test(test_response_refused),
		cmocka_unit_test(test_connect_established),
		cmocka_unit_test(test_tracker_init),
		cmocka_unit_test(test_length_every_split),
		cmocka_unit_test(test_chunked_every_split),
		cmocka_unit_test(test_chunked_good),
		cmocka_unit_test(test_chunked_malformed),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
