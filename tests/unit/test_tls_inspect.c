// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * test_tls_inspect.c - the sandbox CA and its leaves, checked with
 * OpenSSL's own verifier: the CA is a P-256 CA (critical basic
 * constraints, pathlen 0) valid from a few minutes ago to the lifetime
 * plus the margin; a leaf for a name (and for an address) verifies
 * against it for that name only, as a TLS server certificate; the second
 * request for a name is served from the cache; no PEM output holds a
 * private key; the response head gets "Connection: close". A CA that a
 * client would reject, a leaf for the wrong name, a cache that re-mints,
 * or a response head that keeps "keep-alive" fails here.
 */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <cmocka.h>
#include <openssl/evp.h>
#include <openssl/pem.h>
#include <openssl/x509.h>
#include <openssl/x509v3.h>

#include "secrets.h"
#include "tls_inspect.h"

static struct jr_secrets set;
static struct jr_inspect *in;

static int setup(void **state)
{
	struct jr_inspect_config cfg = {
		.secrets = &set,
		.lifetime_ms = 3600 * 1000,
		.idle_timeout_ms = 1000,
	};
	struct jr_err err = { 0 };

	(void)state;
	if (jr_inspect_new(&cfg, &in, &err) < 0) {
		fprintf(stderr, "jr_inspect_new: %s\n", err.msg);
		return -1;
	}
	return 0;
}

static int teardown(void **state)
{
	(void)state;
	jr_inspect_free(in);
	return 0;
}

static X509 *pem_cert(const char *pem)
{
	BIO *b = BIO_new_mem_buf(pem, -1);
	X509 *x = PEM_read_bio_X509(b, NULL, NULL, NULL);

	BIO_free(b);
	return x;
}

static void test_ca(void **state)
{
	const char *pem = jr_inspect_ca_pem(in);
	X509 *ca = pem_cert(pem);
	EVP_PKEY *k;
	time_t lo = time(NULL) - 240, hi = time(NULL) + 3600 + 24 * 3600 + 60;
	char name[64];

	(void)state;
	assert_null(strstr(pem, "PRIVATE"));
	assert_non_null(ca);
	assert_int_equal(X509_check_ca(ca), 1);
	assert_true(X509_get_extension_flags(ca) & EXFLAG_CA);
	assert_int_equal(X509_get_pathlen(ca), 0);
	k = X509_get0_pubkey(ca);
	assert_int_equal(EVP_PKEY_get_base_id(k), EVP_PKEY_EC);
	assert_int_equal(EVP_PKEY_get_group_name(k, name, sizeof(name), NULL),
			 1);
	assert_string_equal(name, "prime256v1");
	/* from at most now - 5 min ... to lifetime + a day */
	assert_true(X509_cmp_time(X509_get0_notBefore(ca), &lo) < 0);
	assert_true(X509_cmp_time(X509_get0_notAfter(ca), &hi) < 0);
	lo = time(NULL) + 3600;
	assert_true(X509_cmp_time(X509_get0_notAfter(ca), &lo) > 0);
	X509_free(ca);
}

/* Verify @leaf_pem for @host (name or address) as a TLS server. */
static int verify(const char *leaf_pem, const char *host, bool ip)
{
	X509 *ca = pem_cert(jr_inspect_ca_pem(in)), *leaf = pem_cert(leaf_pem);
	X509_STORE *st = X509_STORE_new();
	X509_STORE_CTX *ctx = X509_STORE_CTX_new();
	X509_VERIFY_PARAM *p;
	int ok;

	X509_STORE_add_cert(st, ca);
	X509_STORE_CTX_init(ctx, st, leaf, NULL);
	p = X509_STORE_CTX_get0_param(ctx);
	X509_VERIFY_PARAM_set_purpose(p, X509_PURPOSE_SSL_SERVER);
	X509_VERIFY_PARAM_set_flags(p, X509_V_FLAG_X509_STRICT);
	if (ip)
		X509_VERIFY_PARAM_set1_ip_asc(p, host);
	else
		X509_VERIFY_PARAM_set1_host(p, host, 0);
	ok = X509_verify_cert(ctx);
	X509_STORE_CTX_free(ctx);
	X509_STORE_free(st);
	X509_free(ca);
	X509_free(leaf);
	return ok;
}

static void test_leaf(void **state)
{
	char *a = jr_inspect_leaf_pem(in, "api.example.com");
	char *b = jr_inspect_leaf_pem(in, "api.example.com");
	char *c = jr_inspect_leaf_pem(in, "other.example.com");
	char *d = jr_inspect_leaf_pem(in, "192.0.2.7");

	(void)state;
	assert_non_null(a);
	assert_non_null(c);
	assert_null(strstr(a, "PRIVATE"));
	assert_int_equal(verify(a, "api.example.com", false), 1);
	assert_int_equal(verify(a, "other.example.com", false), 0);
	assert_int_equal(verify(c, "other.example.com", false), 1);
	assert_int_equal(verify(d, "192.0.2.7", true), 1);
	assert_int_equal(verify(d, "192.0.2.8", true), 0);
	/* the cache: the same certificate, not a second one */
	assert_string_equal(a, b);
	assert_string_not_equal(a, c);
	free(a);
	free(b);
	free(c);
	free(d);
}

static void test_leaf_cache_bounded(void **state)
{
	char first_a[4096], name[64], *p;

	(void)state;
	p = jr_inspect_leaf_pem(in, "h0.test");
	snprintf(first_a, sizeof(first_a), "%s", p);
	free(p);
	for (int i = 1; i <= JR_INSPECT_LEAF_CACHE + 1; i++) {
		snprintf(name, sizeof(name), "h%d.test", i);
		free(jr_inspect_leaf_pem(in, name));
	}
	/* h0 was the least recently used: minted again, a new serial */
	p = jr_inspect_leaf_pem(in, "h0.test");
	assert_string_not_equal(p, first_a);
	assert_int_equal(verify(p, "h0.test", false), 1);
	free(p);
}

static void test_response_head(void **state)
{
	static const char head[] =
	    "HTTP/1.1 201 Created\r\nConnection: keep-alive\r\n"
	    "Keep-Alive: timeout=5\r\nContent-Length: 3\r\n\r\n";
	char *out = NULL;
	size_t len = 0;
	int status = 0;

	(void)state;
	assert_int_equal(
	    jr_inspect_response_head(head, strlen(head), &out, &len, &status),
	    0);
	assert_int_equal(status, 201);
	out[len] = '\0';
	assert_string_equal(
	    out,
	    "HTTP/1.1 201 Created\r\nContent-Length: 3\r\nConnection: close\r\n\r\n");
	free(out);
	assert_int_equal(jr_inspect_response_head("SSH-2.0-x\r\n\r\n", 13, &out,
						  &len, &status),
			 -EINVAL);
	assert_int_equal(jr_inspect_response_head("HTTP/1.1 99 x\r\n\r\n", 17,
						  &out, &len, &status),
			 -EINVAL);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_ca),
		cmocka_unit_test(test_leaf),
		cmocka_unit_test(test_leaf_cache_bounded),
		cmocka_unit_test(test_response_head),
	};

	return cmocka_run_group_tests(tests, setup, teardown);
}
