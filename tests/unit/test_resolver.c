// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * Unit tests for resolver.c: results come back tagged through the eventfd,
 * a repeated lookup is answered (from the cache) the same way, and stop
 * never hangs. Only "localhost" is looked up: /etc/hosts answers it, so no
 * DNS query leaves the machine.
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

	for (int i = 0; i < 100; i++) {
		if (jr_resolver_take(r, res) == 1)
			return;
		assert_true(poll(&p, 1, 100) >= 0);
	}
	fail_msg("no resolver result within 10 s");
}

static void assert_loopback(const struct jr_resolve_result *res)
{
	const struct sockaddr_in *sin = (const struct sockaddr_in *)&res->addrs[0];

	assert_int_equal(res->error, 0);
	assert_true(res->n >= 1);
	assert_int_equal(sin->sin_family, AF_INET);
	assert_int_equal(ntohl(sin->sin_addr.s_addr), INADDR_LOOPBACK);
}

static void test_lookup_and_cache(void **state)
{
	struct jr_resolver *r = NULL;
	struct jr_resolve_result res;
	struct jr_err err = { 0 };

	assert_int_equal(jr_resolver_start(2, &r, &err), 0);
	assert_int_equal(jr_resolver_take(r, &res), 0); /* nothing yet */

	assert_int_equal(jr_resolver_submit(r, 42, "localhost", AF_INET), 0);
	take_one(r, &res);
	assert_int_equal(res.tag, 42);
	assert_loopback(&res);

	/* Again: same answer, new tag (served from the cache). */
	assert_int_equal(jr_resolver_submit(r, 43, "localhost", AF_INET), 0);
	take_one(r, &res);
	assert_int_equal(res.tag, 43);
	assert_loopback(&res);
	assert_int_equal(jr_resolver_take(r, &res), 0);

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
		assert_int_equal(jr_resolver_submit(r, t, "localhost", AF_INET), 0);
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
