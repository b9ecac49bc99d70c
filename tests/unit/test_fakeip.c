// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * Unit tests for fakeip.c, the synthetic-address table of transparent
 * egress, and for relay_dns_synthetic(), the DNS answer the forwarder
 * builds from it. The relay trusts a captured connection's name only
 * because this table maps addresses back exactly: each test names the
 * broken table it would catch.
 */
#include <arpa/inet.h>
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <cmocka.h>

#include "dns.h"
#include "fakeip.h"
#include "host.h"
#include "relay_dns.h"

static struct sockaddr_storage sa4(const char *text, uint16_t port)
{
	struct sockaddr_storage ss = { 0 };
	struct sockaddr_in *sin = (struct sockaddr_in *)&ss;

	sin->sin_family = AF_INET;
	sin->sin_port = htons(port);
	assert_int_equal(inet_pton(AF_INET, text, &sin->sin_addr), 1);
	return ss;
}

static struct sockaddr_storage sa6(const char *text)
{
	struct sockaddr_storage ss = { 0 };
	struct sockaddr_in6 *sin6 = (struct sockaddr_in6 *)&ss;

	sin6->sin6_family = AF_INET6;
	assert_int_equal(inet_pton(AF_INET6, text, &sin6->sin6_addr), 1);
	return ss;
}

static const char *lookup(const struct jr_fakeip *f, const char *text)
{
	struct sockaddr_storage ss =
	    strchr(text, ':') ? sa6(text) : sa4(text, 443);

	return jr_fakeip_lookup(f, (const struct sockaddr *)&ss);
}

static void text4(const struct in_addr *a, char *out)
{
	assert_non_null(inet_ntop(AF_INET, a, out, INET_ADDRSTRLEN));
}

/* Catches: a name getting a new address on each query (a client that
 * resolved twice would hold an address the relay forgot), and the first
 * address not being 198.18.0.1 (the network address handed out). */
static void test_stable(void **state)
{
	struct jr_fakeip *f;
	struct in_addr a, b;
	struct in6_addr a6, b6;
	char t[INET_ADDRSTRLEN], t6[INET6_ADDRSTRLEN];

	(void)state;
	assert_int_equal(jr_fakeip_new(0, &f), 0);
	assert_int_equal(jr_fakeip_count(f), 0);
	assert_int_equal(jr_fakeip_assign(f, "allowed.test", AF_INET, &a), 0);
	assert_int_equal(jr_fakeip_assign(f, "allowed.test", AF_INET, &b), 0);
	assert_memory_equal(&a, &b, sizeof(a));
	text4(&a, t);
	assert_string_equal(t, "198.18.0.1");
	assert_int_equal(jr_fakeip_assign(f, "allowed.test", AF_INET6, &a6), 0);
	assert_int_equal(jr_fakeip_assign(f, "allowed.test", AF_INET6, &b6), 0);
	assert_memory_equal(&a6, &b6, sizeof(a6));
	assert_non_null(inet_ntop(AF_INET6, &a6, t6, sizeof(t6)));
	assert_string_equal(t6, "fd6a:7272:6970::1");
	assert_int_equal(jr_fakeip_count(f), 1);
	jr_fakeip_free(f);
}

/* Catches: two names sharing an address (a connection for one would reach
 * the other), a lookup returning the wrong name after the hash table grew
 * (a rehash that loses or swaps entries), and a changed address for an old
 * name after growth. */
static void test_distinct_and_reverse(void **state)
{
	enum { N = 3000 };
	struct jr_fakeip *f;
	struct in_addr first[N];
	char name[64];

	(void)state;
	assert_int_equal(jr_fakeip_new(0, &f), 0);
	for (int i = 0; i < N; i++) {
		snprintf(name, sizeof(name), "host%d.example.test", i);
		assert_int_equal(jr_fakeip_assign(f, name, AF_INET, &first[i]),
				 0);
		for (int j = 0; j < i && j < 8; j++)
			assert_memory_not_equal(&first[i], &first[j],
						sizeof(first[i]));
	}
	assert_int_equal(jr_fakeip_count(f), N);
	for (int i = 0; i < N; i++) {
		struct sockaddr_in sin = { .sin_family = AF_INET,
					   .sin_addr = first[i] };
		struct in_addr again;

		snprintf(name, sizeof(name), "host%d.example.test", i);
		assert_int_equal(jr_fakeip_assign(f, name, AF_INET, &again), 0);
		assert_memory_equal(&again, &first[i], sizeof(again));
		assert_string_equal(
		    jr_fakeip_lookup(f, (struct sockaddr *)&sin), name);
	}
	/* Sequential: number N is 198.18.0.0 + N (3000 = 0x0bb8). */
	assert_string_equal(lookup(f, "198.18.11.184"),
			    "host2999.example.test");
	assert_int_equal(jr_fakeip_count(f), N);
	jr_fakeip_free(f);
}

/* Catches: an address never handed out mapping to a name (the relay would
 * connect a guessed address to some allowed name), addresses outside the
 * pool mapping at all, and the network address 198.18.0.0 counting. */
static void test_never_handed_out(void **state)
{
	struct jr_fakeip *f;
	struct in_addr a;
	struct sockaddr_storage ss;

	(void)state;
	assert_int_equal(jr_fakeip_new(0, &f), 0);
	assert_null(lookup(f, "198.18.0.1")); /* empty table */
	assert_int_equal(jr_fakeip_assign(f, "allowed.test", AF_INET, &a), 0);
	assert_string_equal(lookup(f, "198.18.0.1"), "allowed.test");
	assert_null(lookup(f, "198.18.0.0"));	     /* network */
	assert_null(lookup(f, "198.18.0.2"));	     /* next, not yet */
	assert_null(lookup(f, "198.19.255.255"));    /* broadcast */
	assert_null(lookup(f, "198.51.100.10"));     /* a real address */
	assert_null(lookup(f, "199.18.0.1"));	     /* near the pool */
	assert_null(lookup(f, "fd6a:7272:6970::2")); /* never handed out */
	/* allowed.test got no IPv6 address yet: its would-be one is not it */
	assert_null(lookup(f, "fd6a:7272:6970::1"));
	assert_null(lookup(f, "fd6a:7272:6971::1")); /* other /64 */
	assert_null(lookup(f, "::1"));
	assert_null(jr_fakeip_lookup(f, NULL));
	ss = sa4("198.18.0.1", 80);
	ss.ss_family = AF_UNIX;
	assert_null(jr_fakeip_lookup(f, (struct sockaddr *)&ss));

	ss = sa4("198.18.0.0", 0);
	assert_true(jr_fakeip_in_pool((struct sockaddr *)&ss));
	ss = sa4("198.19.255.255", 0);
	assert_true(jr_fakeip_in_pool((struct sockaddr *)&ss));
	ss = sa4("198.20.0.0", 0);
	assert_false(jr_fakeip_in_pool((struct sockaddr *)&ss));
	ss = sa4("198.17.255.255", 0);
	assert_false(jr_fakeip_in_pool((struct sockaddr *)&ss));
	ss = sa6("fd6a:7272:6970::abcd");
	assert_true(jr_fakeip_in_pool((struct sockaddr *)&ss));
	ss = sa6("fd6a:7272:6970:1::1");
	assert_false(jr_fakeip_in_pool((struct sockaddr *)&ss));
	ss = sa6("::ffff:198.18.3.4");
	assert_true(jr_fakeip_in_pool((struct sockaddr *)&ss));
	jr_fakeip_free(f);
}

/* Catches: a dual-stack socket's view of an A answer (::ffff:198.18.0.1,
 * what SO_ORIGINAL_DST-like reads on an AF_INET6 socket give) not being
 * recognised, so the relay would refuse an allowed connection. */
static void test_v4_mapped(void **state)
{
	struct jr_fakeip *f;
	struct in_addr a;
	struct in6_addr a6;

	(void)state;
	assert_int_equal(jr_fakeip_new(0, &f), 0);
	assert_int_equal(jr_fakeip_assign(f, "allowed.test", AF_INET, &a), 0);
	assert_int_equal(jr_fakeip_assign(f, "raw.test", AF_INET6, &a6), 0);
	assert_string_equal(lookup(f, "::ffff:198.18.0.1"), "allowed.test");
	assert_null(lookup(f, "::ffff:198.18.0.3"));
	assert_null(lookup(f, "::ffff:198.51.100.10"));
	/* raw.test was handed out as IPv6 only: its IPv4 twin is not it. */
	assert_null(lookup(f, "::ffff:198.18.0.2"));
	assert_null(lookup(f, "198.18.0.2"));
	assert_string_equal(lookup(f, "fd6a:7272:6970::2"), "raw.test");
	jr_fakeip_free(f);
}

/* Catches: a full pool reusing an address (the first name's address going
 * to a new name) instead of failing, a failed assign counting, and a full
 * pool refusing the names it already has. */
static void test_exhaustion(void **state)
{
	struct jr_fakeip *f;
	struct in_addr a;
	struct in6_addr a6;
	char name[32];

	(void)state;
	assert_int_equal(jr_fakeip_new(3, &f), 0);
	for (int i = 0; i < 3; i++) {
		snprintf(name, sizeof(name), "n%d.test", i);
		assert_int_equal(jr_fakeip_assign(f, name, AF_INET, &a), 0);
	}
	assert_int_equal(jr_fakeip_assign(f, "n3.test", AF_INET, &a), -ENOSPC);
	assert_int_equal(jr_fakeip_assign(f, "n4.test", AF_INET6, &a6),
			 -ENOSPC);
	assert_int_equal(jr_fakeip_count(f), 3);
	assert_int_equal(jr_fakeip_assign(f, "n0.test", AF_INET, &a), 0);
	assert_string_equal(lookup(f, "198.18.0.1"), "n0.test");
	assert_string_equal(lookup(f, "198.18.0.3"), "n2.test");
	assert_null(lookup(f, "198.18.0.4"));
	jr_fakeip_free(f);

	/* A capacity past the pool is the pool. */
	assert_int_equal(jr_fakeip_new(SIZE_MAX, &f), 0);
	assert_int_equal(jr_fakeip_assign(f, "x.test", AF_INET, &a), 0);
	jr_fakeip_free(f);
}

/* The last addresses of the full pool: 198.19.255.254 is handed out, the
 * broadcast 198.19.255.255 never. Catches an off-by-one at either end. */
static void test_full_pool(void **state)
{
	struct jr_fakeip *f;
	struct in_addr a;
	char name[32], t[INET_ADDRSTRLEN];

	(void)state;
	assert_int_equal(JR_FAKEIP_V4_NAMES, 131070);
	assert_int_equal(jr_fakeip_new(0, &f), 0);
	for (unsigned int i = 0; i < JR_FAKEIP_V4_NAMES; i++) {
		snprintf(name, sizeof(name), "h%u.t", i);
		assert_int_equal(jr_fakeip_assign(f, name, AF_INET, &a), 0);
	}
	text4(&a, t);
	assert_string_equal(t, "198.19.255.254");
	assert_int_equal(jr_fakeip_assign(f, "one.more", AF_INET, &a), -ENOSPC);
	assert_string_equal(lookup(f, "198.19.255.254"), "h131069.t");
	assert_null(lookup(f, "198.19.255.255"));
	jr_fakeip_free(f);
}

/* Catches: names the DNS parser never produces being accepted (an upper-
 * case twin would get a second address for the same name), a bad family,
 * and NULLs. */
static void test_bad_input(void **state)
{
	struct jr_fakeip *f;
	struct in6_addr a;
	char long_name[JR_HOST_MAX + 2];

	(void)state;
	assert_int_equal(jr_fakeip_new(0, &f), 0);
	assert_int_equal(jr_fakeip_assign(f, "", AF_INET, &a), -EINVAL);
	assert_int_equal(jr_fakeip_assign(f, NULL, AF_INET, &a), -EINVAL);
	assert_int_equal(jr_fakeip_assign(f, "a.test", AF_UNIX, &a), -EINVAL);
	assert_int_equal(jr_fakeip_assign(f, "a.test", AF_INET, NULL), -EINVAL);
	assert_int_equal(jr_fakeip_assign(NULL, "a.test", AF_INET, &a),
			 -EINVAL);
	assert_int_equal(jr_fakeip_assign(f, "A.test", AF_INET, &a), -EINVAL);
	assert_int_equal(jr_fakeip_assign(f, "a.test.", AF_INET, &a), -EINVAL);
	assert_int_equal(jr_fakeip_assign(f, "a b.test", AF_INET, &a), -EINVAL);
	assert_int_equal(jr_fakeip_assign(f, "a\x7f.test", AF_INET, &a),
			 -EINVAL);
	memset(long_name, 'a', sizeof(long_name) - 1);
	long_name[sizeof(long_name) - 1] = '\0';
	assert_int_equal(jr_fakeip_assign(f, long_name, AF_INET, &a), -EINVAL);
	long_name[JR_HOST_MAX] = '\0'; /* exactly the limit */
	assert_int_equal(jr_fakeip_assign(f, long_name, AF_INET, &a), 0);
	assert_int_equal(jr_fakeip_count(f), 1);
	assert_int_equal(jr_fakeip_count(NULL), 0);
	jr_fakeip_free(f);
	jr_fakeip_free(NULL);
}

static struct jr_dns_query query(const char *name, uint16_t qtype)
{
	static const uint8_t question[] = { 1, 'x', 0, 0, 1, 0, 1 };
	struct jr_dns_query q = { .id = 0x1234,
				  .rd = true,
				  .qtype = qtype,
				  .qclass = JR_DNS_CLASS_IN,
				  .question = question,
				  .question_len = sizeof(question) };

	snprintf(q.name, sizeof(q.name), "%s", name);
	return q;
}

/* The forwarder's answer under transparent egress. Catches: an A answer
 * that is not the synthetic address (the real one would bypass capture),
 * a different address on the second query, a synthetic AAAA while the
 * sandbox has no IPv6 (or none, or another name's, when it has), and a
 * full pool answering anything but SERVFAIL. */
static void test_dns_synthetic(void **state)
{
	struct jr_fakeip *f;
	struct jr_dns_query q = query("allowed.test", JR_DNS_TYPE_A);
	struct jr_dns_addr addr, again;
	const char *reason;
	uint8_t msg[JR_DNS_UDP_MAX];
	size_t n;
	long len;

	(void)state;
	assert_int_equal(jr_fakeip_new(1, &f), 0);
	assert_int_equal(relay_dns_synthetic(f, &q, false, &addr, &n, &reason),
			 JR_DNS_RCODE_NOERROR);
	assert_int_equal(n, 1);
	assert_null(reason);
	assert_int_equal(addr.family, AF_INET);
	assert_memory_equal(addr.addr, "\xc6\x12\x00\x01", 4); /* 198.18.0.1 */
	assert_int_equal(relay_dns_synthetic(f, &q, false, &again, &n, &reason),
			 JR_DNS_RCODE_NOERROR);
	assert_memory_equal(again.addr, addr.addr, 4);

	/* On the wire: one A record, rdata 198.18.0.1, TTL 60. */
	len = jr_dns_build_response(&q, JR_DNS_RCODE_NOERROR, &addr, 1, 60, msg,
				    sizeof(msg));
	assert_true(len >= 12 + 7 + 16);
	assert_int_equal(msg[7], 1); /* ANCOUNT */
	assert_memory_equal(msg + len - 4, addr.addr, 4);
	assert_memory_equal(msg + len - 10, "\0\0\0\x3c", 4); /* TTL 60 */

	q = query("allowed.test", JR_DNS_TYPE_AAAA);
	assert_int_equal(relay_dns_synthetic(f, &q, false, &addr, &n, &reason),
			 JR_DNS_RCODE_NOERROR);
	assert_int_equal(n, 0);
	/* With IPv6 on the link: the same name's IPv6 address, number 1 in
	 * fd6a:7272:6970::/64, on every query, no pool entry spent. */
	assert_int_equal(relay_dns_synthetic(f, &q, true, &addr, &n, &reason),
			 JR_DNS_RCODE_NOERROR);
	assert_int_equal(n, 1);
	assert_null(reason);
	assert_int_equal(addr.family, AF_INET6);
	assert_memory_equal(
	    addr.addr, "\xfd\x6a\x72\x72\x69\x70\0\0\0\0\0\0\0\0\0\x01", 16);
	assert_int_equal(relay_dns_synthetic(f, &q, true, &again, &n, &reason),
			 JR_DNS_RCODE_NOERROR);
	assert_memory_equal(again.addr, addr.addr, 16);
	len = jr_dns_build_response(&q, JR_DNS_RCODE_NOERROR, &addr, 1, 60, msg,
				    sizeof(msg));
	assert_true(len > 16);
	assert_memory_equal(msg + len - 16, addr.addr, 16);
	assert_int_equal(jr_fakeip_count(f), 1);
	q = query("allowed.test", 15 /* MX */);
	assert_int_equal(relay_dns_synthetic(f, &q, false, &addr, &n, &reason),
			 JR_DNS_RCODE_NOERROR);
	assert_int_equal(n, 0);
	q = query("other.test", JR_DNS_TYPE_A);
	q.qclass = 3; /* CH: no address, and no pool entry spent */
	assert_int_equal(relay_dns_synthetic(f, &q, false, &addr, &n, &reason),
			 JR_DNS_RCODE_NOERROR);
	assert_int_equal(n, 0);
	assert_int_equal(jr_fakeip_count(f), 1);

	q = query("other.test", JR_DNS_TYPE_A); /* the pool holds one name */
	assert_int_equal(relay_dns_synthetic(f, &q, false, &addr, &n, &reason),
			 JR_DNS_RCODE_SERVFAIL);
	assert_int_equal(n, 0);
	assert_string_equal(reason, "fakeip-exhausted");
	jr_fakeip_free(f);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_stable),
		cmocka_unit_test(test_distinct_and_reverse),
		cmocka_unit_test(test_never_handed_out),
		cmocka_unit_test(test_v4_mapped),
		cmocka_unit_test(test_exhaustion),
		cmocka_unit_test(test_full_pool),
		cmocka_unit_test(test_bad_input),
		cmocka_unit_test(test_dns_synthetic),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
