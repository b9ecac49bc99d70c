// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * test_tls_sessions.c - the upstream TLS session cache of inspection: a
 * session is offered only to the host and port it came from (case aside);
 * a TLS 1.3 ticket is taken once, a TLS 1.2 session stays; expired and
 * not resumable sessions are never offered; a host keeps at most
 * JR_TLS_SESSIONS_PER_HOST (the newest offered first) and the cache at
 * most JR_TLS_SESSIONS_HOSTS hosts (least recently used out); everything
 * is freed (ASan). A cache keyed on the name only, one that hands a
 * ticket out twice, or one that grows without bound fails here.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <time.h>

#include <cmocka.h>
#include <openssl/ssl.h>

#include "err.h"
#include "openssl_lazy.h"
#include "tls_sessions.h"

/* A resumable session (an id is enough for OpenSSL) of @version. */
static SSL_SESSION *session(int version, unsigned char tag)
{
	unsigned char id[32] = { tag, 1, 2, 3 };
	SSL_SESSION *s = SSL_SESSION_new();

	assert_non_null(s);
	assert_int_equal(SSL_SESSION_set1_id(s, id, sizeof(id)), 1);
	assert_int_equal(SSL_SESSION_set_protocol_version(s, version), 1);
	SSL_SESSION_set_time(s, time(NULL));
	SSL_SESSION_set_timeout(s, 300);
	assert_true(SSL_SESSION_is_resumable(s));
	return s;
}

static void test_keyed_by_host_and_port(void **state)
{
	struct jr_tls_sessions *c = jr_tls_sessions_new();
	SSL_SESSION *s = session(TLS1_3_VERSION, 1), *got;

	(void)state;
	assert_null(jr_tls_sessions_take(c, "a.test", 443));
	jr_tls_sessions_put(c, "a.test", 443, s);
	assert_null(jr_tls_sessions_take(c, "b.test", 443));
	assert_null(jr_tls_sessions_take(c, "a.test", 8443));
	assert_null(jr_tls_sessions_take(c, "x.a.test", 443));
	got = jr_tls_sessions_take(c, "A.Test", 443);
	assert_ptr_equal(got, s);
	SSL_SESSION_free(got);
	/* A TLS 1.3 ticket is used once. */
	assert_null(jr_tls_sessions_take(c, "a.test", 443));
	SSL_SESSION_free(s);
	jr_tls_sessions_free(c);
}

static void test_tls12_stays(void **state)
{
	struct jr_tls_sessions *c = jr_tls_sessions_new();
	SSL_SESSION *s = session(TLS1_2_VERSION, 2);

	(void)state;
	jr_tls_sessions_put(c, "a.test", 443, s);
	jr_tls_sessions_put(c, "a.test", 443, s); /* seen again: not twice */
	assert_int_equal(jr_tls_sessions_count(c, "a.test", 443), 1);
	for (int i = 0; i < 3; i++) {
		SSL_SESSION *got = jr_tls_sessions_take(c, "a.test", 443);

		assert_ptr_equal(got, s);
		SSL_SESSION_free(got);
	}
	SSL_SESSION_free(s);
	jr_tls_sessions_free(c);
}

static void test_never_offered(void **state)
{
	struct jr_tls_sessions *c = jr_tls_sessions_new();
	SSL_SESSION *blank = SSL_SESSION_new();
	SSL_SESSION *old = session(TLS1_2_VERSION, 3);

	(void)state;
	/* No id, no ticket: not resumable, not kept. */
	jr_tls_sessions_put(c, "a.test", 443, blank);
	assert_int_equal(jr_tls_sessions_count(c, "a.test", 443), 0);
	/* Expired while cached: dropped when asked for. */
	jr_tls_sessions_put(c, "b.test", 443, old);
	SSL_SESSION_set_time(old, time(NULL) - 1000);
	SSL_SESSION_set_timeout(old, 10);
	assert_null(jr_tls_sessions_take(c, "b.test", 443));
	assert_int_equal(jr_tls_sessions_count(c, "b.test", 443), 0);
	SSL_SESSION_free(blank);
	SSL_SESSION_free(old);
	jr_tls_sessions_free(c);
}

static void test_bounded(void **state)
{
	struct jr_tls_sessions *c = jr_tls_sessions_new();
	SSL_SESSION *s[JR_TLS_SESSIONS_PER_HOST + 2], *got;
	char host[32];

	(void)state;
	for (size_t i = 0; i < JR_TLS_SESSIONS_PER_HOST + 2; i++) {
		s[i] = session(TLS1_3_VERSION, (unsigned char)(10 + i));
		jr_tls_sessions_put(c, "a.test", 443, s[i]);
		SSL_SESSION_free(s[i]); /* the cache's reference remains */
	}
	assert_int_equal(jr_tls_sessions_count(c, "a.test", 443),
			 JR_TLS_SESSIONS_PER_HOST);
	got = jr_tls_sessions_take(c, "a.test", 443);
	assert_ptr_equal(got, s[JR_TLS_SESSIONS_PER_HOST + 1]); /* newest */
	SSL_SESSION_free(got);
	/* More hosts than the cache holds: the least recently used goes. */
	for (int i = 0; i < JR_TLS_SESSIONS_HOSTS; i++) {
		SSL_SESSION *t = session(TLS1_2_VERSION, (unsigned char)i);

		snprintf(host, sizeof(host), "h%d.test", i);
		jr_tls_sessions_put(c, host, 443, t);
		SSL_SESSION_free(t);
	}
	assert_int_equal(jr_tls_sessions_count(c, "a.test", 443), 0);
	assert_int_equal(jr_tls_sessions_count(c, "h0.test", 443), 1);
	assert_int_equal(jr_tls_sessions_count(c, "h63.test", 443), 1);
	jr_tls_sessions_free(c);
}

/* tls_sessions.c calls OpenSSL through the pointers jailrun loads at run
 * time (openssl_lazy.h): load them first, as jr_inspect_new() does. */
static int load_openssl(void **state)
{
	struct jr_err err = { 0 };

	(void)state;
	return jr_openssl_load(&err) < 0 ? -1 : 0;
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_keyed_by_host_and_port),
		cmocka_unit_test(test_tls12_stays),
		cmocka_unit_test(test_never_offered),
		cmocka_unit_test(test_bounded),
	};

	return cmocka_run_group_tests(tests, load_openssl, NULL);
}
