// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * test_transparent.c - what the first bytes of a captured connection
 * decide (relay_transparent_decide(), relay_transparent.c): the TLS name,
 * the HTTP method and the Host header. Every expected verdict is written
 * out here: a reader that lets a ClientHello for another name through,
 * takes a second Host header, lets a request through unchecked because
 * its method is not a standard one ("GETX", "PROPFIND") or an empty line
 * comes first (servers route both by Host), or refuses a protocol it has
 * no name to check in fails a vector.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "http.h"
#include "relay_transparent.h"

/* A minimal TLS 1.2 ClientHello record, with an SNI of @sni unless NULL. */
static size_t hello(uint8_t *w, const char *sni)
{
	size_t n = 0, ext_len = sni ? 9 + strlen(sni) : 0;
	size_t body = 2 + 32 + 1 + 4 + 2 + 2 + ext_len;

	w[n++] = 0x16, w[n++] = 3, w[n++] = 1; /* handshake, TLS 1.0 record */
	w[n++] = (uint8_t)((body + 4) >> 8), w[n++] = (uint8_t)(body + 4);
	w[n++] = 1; /* ClientHello */
	w[n++] = 0, w[n++] = (uint8_t)(body >> 8), w[n++] = (uint8_t)body;
	w[n++] = 3, w[n++] = 3; /* TLS 1.2 */
	memset(w + n, 0x5a, 32), n += 32;
	w[n++] = 0;		      /* no session id */
	w[n++] = 0, w[n++] = 2;	      /* one suite */
	w[n++] = 0x00, w[n++] = 0x2f; /* TLS_RSA_WITH_AES_128_CBC_SHA */
	w[n++] = 1, w[n++] = 0;	      /* null compression */
	w[n++] = (uint8_t)(ext_len >> 8), w[n++] = (uint8_t)ext_len;
	if (sni) {
		size_t l = strlen(sni);

		w[n++] = 0, w[n++] = 0; /* server_name */
		w[n++] = (uint8_t)((l + 5) >> 8), w[n++] = (uint8_t)(l + 5);
		w[n++] = (uint8_t)((l + 3) >> 8), w[n++] = (uint8_t)(l + 3);
		w[n++] = 0; /* host_name */
		w[n++] = (uint8_t)(l >> 8), w[n++] = (uint8_t)l;
		memcpy(w + n, sni, l), n += l;
	}
	return n;
}

static void decide(const void *buf, size_t len, const char *host, bool is_addr,
		   uint16_t port, struct relay_head_decision *d)
{
	/* A copy of exactly @len bytes: ASan sees any read past the end. */
	char *copy = malloc(len ? len : 1);

	assert_non_null(copy);
	memcpy(copy, buf, len);
	relay_transparent_decide(copy, len, host, is_addr, port, d);
	free(copy);
}

static void test_tls_sni(void **state)
{
	uint8_t w[512];
	struct relay_head_decision d;
	size_t n;

	(void)state;
	n = hello(w, "allowed.test");
	decide(w, n, "allowed.test", false, 443, &d);
	assert_int_equal(d.verdict, RELAY_HEAD_GO);
	assert_false(d.http);
	assert_string_equal(d.seen, "allowed.test");
	/* case and a trailing dot do not make another name */
	decide(w, n, "Allowed.TEST.", false, 443, &d);
	assert_int_equal(d.verdict, RELAY_HEAD_GO);

	n = hello(w, "denied.test");
	decide(w, n, "allowed.test", false, 443, &d);
	assert_int_equal(d.verdict, RELAY_HEAD_RESET);
	assert_string_equal(d.reason, "sni-mismatch");
	assert_string_equal(d.seen, "denied.test");
	/* a suffix or a prefix of the name is another name */
	n = hello(w, "xallowed.test");
	decide(w, n, "allowed.test", false, 443, &d);
	assert_int_equal(d.verdict, RELAY_HEAD_RESET);
	n = hello(w, "allowed.tes");
	decide(w, n, "allowed.test", false, 443, &d);
	assert_int_equal(d.verdict, RELAY_HEAD_RESET);
}

static void test_tls_partial_and_missing(void **state)
{
	uint8_t w[512];
	struct relay_head_decision d;
	size_t n = hello(w, "allowed.test");

	(void)state;
	/* every prefix of a good hello waits, never decides */
	for (size_t k = 1; k < n; k++) {
		decide(w, k, "allowed.test", false, 443, &d);
		if (d.verdict != RELAY_HEAD_MORE)
			fail_msg("prefix of %zu bytes decided %d", k,
				 d.verdict);
	}
	n = hello(w, NULL);
	decide(w, n, "allowed.test", false, 443, &d);
	assert_int_equal(d.verdict, RELAY_HEAD_RESET);
	assert_string_equal(d.reason, "sni-missing");
	/* without SNI, fine for an address entry, as for CONNECT */
	decide(w, n, "192.0.2.10", true, 443, &d);
	assert_int_equal(d.verdict, RELAY_HEAD_GO);
	/* a handshake record that is not a ClientHello */
	n = hello(w, "allowed.test");
	w[5] = 2;
	decide(w, n, "allowed.test", false, 443, &d);
	assert_int_equal(d.verdict, RELAY_HEAD_RESET);
	assert_string_equal(d.reason, "tls-malformed");
}

static const struct {
	const char *head;
	const char *host;
	uint16_t port;
	enum relay_head_verdict verdict;
	bool http;
	const char *seen;
} http_vec[] = {
	{ "GET / HTTP/1.1\r\nHost: allowed.test\r\n\r\n", "allowed.test", 80,
	  RELAY_HEAD_GO, true, "allowed.test" },
	{ "POST /x HTTP/1.1\r\nhost:ALLOWED.test:80\r\n\r\n", "allowed.test",
	  80, RELAY_HEAD_GO, true, "allowed.test" },
	{ "PATCH / HTTP/1.1\nHost: allowed.test \n\n", "allowed.test", 80,
	  RELAY_HEAD_GO, true, "allowed.test" },
	{ "GET / HTTP/1.1\r\nHost: denied.test\r\n\r\n", "allowed.test", 80,
	  RELAY_HEAD_HTTP_403, true, "denied.test" },
	{ "GET / HTTP/1.1\r\nHost: allowed.test.evil\r\n\r\n", "allowed.test",
	  80, RELAY_HEAD_HTTP_403, true, "allowed.test.evil" },
	/* no Host, two Hosts (RFC 9112 3.2), an empty or a bad one: 400 */
	{ "GET / HTTP/1.1\r\nAccept: */*\r\n\r\n", "allowed.test", 80,
	  RELAY_HEAD_HTTP_400, true, "" },
	{ "GET / HTTP/1.1\r\nHost: allowed.test\r\nHost: denied.test\r\n\r\n",
	  "allowed.test", 80, RELAY_HEAD_HTTP_400, true, "" },
	{ "GET / HTTP/1.1\r\nHost: \r\n\r\n", "allowed.test", 80,
	  RELAY_HEAD_HTTP_400, true, "" },
	{ "GET / HTTP/1.1\r\nHost: a.test:99999\r\n\r\n", "a.test", 80,
	  RELAY_HEAD_HTTP_400, true, "" },
	/* a head not complete yet waits */
	{ "GET / HTTP/1.1\r\nHost: allowed.test\r\n", "allowed.test", 80,
	  RELAY_HEAD_MORE, true, "" },
	{ "GE", "allowed.test", 80, RELAY_HEAD_MORE, false, "" },
	{ "OPTIONS", "allowed.test", 80, RELAY_HEAD_MORE, false, "" },
	/* Any method on a line that names an HTTP version is a request to a
	 * server (issue 21: a server routes "GETX" or WebDAV's PROPFIND by
	 * Host like a GET), and so is one after an empty line (RFC 9112 2.2
	 * lets a server skip it): the Host is checked. */
	{ "GETX / HTTP/1.1\r\nHost: denied.test\r\n\r\n", "allowed.test", 80,
	  RELAY_HEAD_HTTP_403, true, "denied.test" },
	{ "get / HTTP/1.1\r\nHost: denied.test\r\n\r\n", "allowed.test", 80,
	  RELAY_HEAD_HTTP_403, true, "denied.test" },
	{ "PROPFIND /d HTTP/1.1\r\nHost: allowed.test\r\n\r\n", "allowed.test",
	  80, RELAY_HEAD_GO, true, "allowed.test" },
	{ "FOO\t/x http/1.0\r\nHost: denied.test\r\n\r\n", "allowed.test", 80,
	  RELAY_HEAD_HTTP_403, true, "denied.test" },
	{ "\r\nGET / HTTP/1.1\r\nHost: denied.test\r\n\r\n", "allowed.test", 80,
	  RELAY_HEAD_HTTP_403, true, "denied.test" },
	{ "\r\n", "allowed.test", 80, RELAY_HEAD_MORE, true, "" },
	/* HTTP/2 with prior knowledge: no Host to check, a 400 */
	{ "PRI * HTTP/2.0\r\n\r\nSM\r\n\r\n", "allowed.test", 80,
	  RELAY_HEAD_HTTP_400, true, "" },
	/* a token and a space: wait for the line to say what it is */
	{ "FOO /x", "allowed.test", 80, RELAY_HEAD_MORE, false, "" },
	{ "GETX", "allowed.test", 80, RELAY_HEAD_MORE, false, "" },
	/* other protocols' first lines name no HTTP version: no name to
	 * check, they go on */
	{ "SSH-2.0-OpenSSH_9.2\r\n", "raw.test", 22, RELAY_HEAD_GO, false, "" },
	{ "SSH-2.0-OpenSSH_9.2 Debian-2\r\n", "raw.test", 22, RELAY_HEAD_GO,
	  false, "" },
	{ "hello\n", "raw.test", 9000, RELAY_HEAD_GO, false, "" },
	{ "EHLO client.test\r\n", "raw.test", 25, RELAY_HEAD_GO, false, "" },
	{ "a1 LOGIN user pass\r\n", "raw.test", 143, RELAY_HEAD_GO, false, "" },
	{ "get key\r\n", "raw.test", 11211, RELAY_HEAD_GO, false, "" },
	{ "*1\r\n$4\r\nPING\r\n", "raw.test", 6379, RELAY_HEAD_GO, false, "" },
	{ "<?xml version='1.0'?>", "raw.test", 5222, RELAY_HEAD_GO, false, "" },
};

static void test_http(void **state)
{
	(void)state;
	for (size_t i = 0; i < sizeof(http_vec) / sizeof(http_vec[0]); i++) {
		struct relay_head_decision d;

		decide(http_vec[i].head, strlen(http_vec[i].head),
		       http_vec[i].host, false, http_vec[i].port, &d);
		if (d.verdict != http_vec[i].verdict ||
		    d.http != http_vec[i].http ||
		    strcmp(d.seen, http_vec[i].seen) != 0)
			fail_msg("vector %zu: verdict %d http %d seen '%s'", i,
				 d.verdict, d.http, d.seen);
		if ((d.verdict == RELAY_HEAD_HTTP_400) !=
			(d.reason && !strcmp(d.reason, "bad-request")) ||
		    (d.verdict == RELAY_HEAD_HTTP_403) !=
			(d.reason && !strcmp(d.reason, "host-mismatch")))
			fail_msg("vector %zu: reason %s", i,
				 d.reason ? d.reason : "(none)");
	}
}

/* A head longer than the proxy's limit without an end is refused, not
 * waited on forever. */
static void test_http_head_limit(void **state)
{
	size_t n = JR_HTTP_HEAD_MAX + 16;
	char *buf = malloc(n);
	struct relay_head_decision d;

	(void)state;
	assert_non_null(buf);
	memset(buf, 'a', n);
	memcpy(buf, "GET / HTTP/1.1\r\nX: ", 19);
	decide(buf, n, "allowed.test", false, 80, &d);
	free(buf);
	assert_int_equal(d.verdict, RELAY_HEAD_HTTP_400);
	assert_true(d.http);
}

/* A first line with a control byte in it is no request line, complete
 * or not: git's pkt-line has a NUL and no newline. */
static void test_not_a_request_line(void **state)
{
	static const char git[] =
	    "0032git-upload-pack /project.git\0host=raw.test\0";
	struct relay_head_decision d;

	(void)state;
	decide(git, sizeof(git) - 1, "raw.test", false, 9418, &d);
	assert_int_equal(d.verdict, RELAY_HEAD_GO);
	assert_false(d.http);
	decide("FOO /x\x01", 7, "raw.test", false, 80, &d);
	assert_int_equal(d.verdict, RELAY_HEAD_GO);
	assert_false(d.http);
}

/* A token that never ends is not waited on forever: at the head limit it
 * is taken for a request (a 400), as a server with a large limit might. */
static void test_token_limit(void **state)
{
	size_t n = JR_HTTP_HEAD_MAX;
	char *buf = malloc(n);
	struct relay_head_decision d;

	(void)state;
	assert_non_null(buf);
	memset(buf, 'A', n);
	decide(buf, n - 1, "allowed.test", false, 80, &d);
	assert_int_equal(d.verdict, RELAY_HEAD_MORE);
	decide(buf, n, "allowed.test", false, 80, &d);
	assert_int_equal(d.verdict, RELAY_HEAD_HTTP_400);
	assert_true(d.http);
	memcpy(buf, "FOO ", 4);
	decide(buf, n, "allowed.test", false, 80, &d);
	assert_int_equal(d.verdict, RELAY_HEAD_HTTP_400);
	free(buf);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_tls_sni),
		cmocka_unit_test(test_tls_partial_and_missing),
		cmocka_unit_test(test_http),
		cmocka_unit_test(test_http_head_limit),
		cmocka_unit_test(test_not_a_request_line),
		cmocka_unit_test(test_token_limit),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
