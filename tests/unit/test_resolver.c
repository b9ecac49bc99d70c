// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * Unit tests for resolver.c: results come back tagged through the eventfd,
 * a repeated lookup is answered from the cache (the hit counter says so),
 * an answer older than JR_RESOLVER_CACHE_MS is looked up again (an injected
 * clock is stepped past it: no sleeping), and stop never hangs. Only
 * "localhost" is looked up: /etc/hosts answers it, so no DNS query leaves
 * the machine.
 */
#include <arpa/inet.h>
#include <netinet/in.h>
#include <poll.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>
#include <cmocka.h>

#include "resolver.h"

static void take_one(struct jr_resolver *r, struct jr_resolve_result *res)
{
	struct pollfd p = { .fd = jr_resolver_fd(r), .events = POLLIN };

	for (int i = 0; i < 300; i++) {
		if (jr_resolver_take(r, res) == 1)
			return;
		assert_true(poll(&p, 1, 100) >= 0);
	}
	fail_msg("no resolver result within 30 s (a hang guard)");
}

static void assert_loopback(const struct jr_resolve_result *res)
{
	const struct sockaddr_in *sin =
	    (const struct sockaddr_in *)&res->addrs[0];

	assert_int_equal(res->error, 0);
	assert_true(res->n >= 1);
	assert_int_equal(sin->sin_family, AF_INET);
	assert_int_equal(ntohl(sin->sin_addr.s_addr), INADDR_LOOPBACK);
}

/* The injected clock: read by worker threads, stepped by the test. */
static uint64_t fake_now;

static uint64_t fake_clock(void)
{
	return __atomic_load_n(&fake_now, __ATOMIC_SEQ_CST);
}

static void set_fake_now(uint64_t ms)
{
	__atomic_store_n(&fake_now, ms, __ATOMIC_SEQ_CST);
}

static void assert_stats(struct jr_resolver *r, uint64_t lookups, uint64_t hits)
{
	struct jr_resolver_stats st;

	jr_resolver_get_stats(r, &st);
	assert_int_equal(st.lookups, lookups);
	assert_int_equal(st.hits, hits);
}

static void test_lookup_and_cache(void **state)
{
	struct jr_resolver *r = NULL;
	struct jr_resolve_result res;
	struct jr_err err = { 0 };
	const uint64_t t0 = 1000000;

	assert_int_equal(jr_resolver_start(2, &r, &err), 0);
	set_fake_now(t0);
	jr_resolver_set_clock(r, fake_clock);
	assert_int_equal(jr_resolver_take(r, &res), 0); /* nothing yet */
	assert_stats(r, 0, 0);

	/* First lookup: a worker resolves it, and the answer is cached at t0
	 * (before it is posted, so it is there once we took it). */
	assert_int_equal(jr_resolver_submit(r, 42, "localhost", AF_INET), 0);
	take_one(r, &res);
	assert_int_equal(res.tag, 42);
	assert_loopback(&res);
	assert_stats(r, 1, 0);

	/* Again: same answer, new tag, served from the cache. */
	assert_int_equal(jr_resolver_submit(r, 43, "localhost", AF_INET), 0);
	take_one(r, &res);
	assert_int_equal(res.tag, 43);
	assert_loopback(&res);
	assert_int_equal(jr_resolver_take(r, &res), 0);
	assert_stats(r, 2, 1);

	/* Another family is another key: not a hit. */
	assert_int_equal(jr_resolver_submit(r, 44, "localhost", AF_UNSPEC), 0);
	take_one(r, &res);
	assert_int_equal(res.tag, 44);
	assert_stats(r, 3, 1);

	/* The last millisecond of the entry's life: still a hit. */
	set_fake_now(t0 + JR_RESOLVER_CACHE_MS - 1);
	assert_int_equal(jr_resolver_submit(r, 45, "localhost", AF_INET), 0);
	take_one(r, &res);
	assert_int_equal(res.tag, 45);
	assert_loopback(&res);
	assert_stats(r, 4, 2);

	/* Expired: looked up again (a miss), and cached anew from then. */
	set_fake_now(t0 + JR_RESOLVER_CACHE_MS);
	assert_int_equal(jr_resolver_submit(r, 46, "localhost", AF_INET), 0);
	take_one(r, &res);
	assert_int_equal(res.tag, 46);
	assert_loopback(&res);
	assert_stats(r, 5, 2);
	set_fake_now(t0 + 2 * JR_RESOLVER_CACHE_MS - 1);
	assert_int_equal(jr_resolver_submit(r, 47, "localhost", AF_INET), 0);
	take_one(r, &res);
	assert_int_equal(res.tag, 47);
	assert_stats(r, 6, 3);

	jr_resolver_stop(r);
}

static void test_many_tags(void **state)
{
	struct jr_resolver *r = NULL;
	struct jr_resolve_result res;
	struct jr_err err = { 0 };
	unsigned int seen = 0;

	assert_int_equal(jr_resolver_start(4, &r, &err), 0);
	for (uint64_t t = 0; t < 32; t++)
		assert_int_equal(jr_resolver_submit(r, t, "localhost", AF_INET),
				 0);
	for (int i = 0; i < 32; i++) {
		take_one(r, &res);
		assert_true(res.tag < 32);
		assert_false(seen & (1u << res.tag));
		seen |= 1u << res.tag;
		assert_loopback(&res);
	}
	assert_int_equal(seen, 0xffffffffu);
	jr_resolver_stop(r);
}

static void test_stop_null(void **state)
{
	jr_resolver_stop(NULL);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_lookup_and_cache),
		cmocka_unit_test(test_many_tags),
		cmocka_unit_test(test_stop_null),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
