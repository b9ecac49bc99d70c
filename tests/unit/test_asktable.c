// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * Unit tests for asktable.c (the requests held for an operator under
 * --ask). Each test names the broken table it would catch.
 */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <cmocka.h>

#include "asktable.h"

static struct jr_asktable t;

/* Add, find, list in order, remove: ids that are reused, entries that
 * lose their fields or a find that returns a removed entry fail here. */
static void test_add_find(void **state)
{
	uint64_t a, b, c;
	bool joined;
	const struct jr_ask_entry *e;

	(void)state;
	jr_ask_init(&t, 30000);
	assert_int_equal(
	    jr_ask_hold(&t, "x.test", 443, JR_ASK_VIA_PROXY, 1000, &a, &joined),
	    0);
	assert_false(joined);
	assert_int_equal(a, 1);
	assert_int_equal(jr_ask_hold(&t, "y.test", 80, JR_ASK_VIA_TRANSPARENT,
				     1500, &b, &joined),
			 0);
	assert_int_equal(b, 2);
	e = jr_ask_find(&t, a);
	assert_non_null(e);
	assert_string_equal(e->host, "x.test");
	assert_int_equal(e->port, 443);
	assert_int_equal(e->via, JR_ASK_VIA_PROXY);
	assert_int_equal(e->t_start, 1000);
	assert_int_equal(e->deadline, 31000);
	assert_int_equal(e->waiters, 1);
	assert_int_equal(jr_ask_count(&t), 2);
	assert_null(jr_ask_find(&t, 0));
	assert_null(jr_ask_find(&t, 3));

	jr_ask_remove(&t, a);
	assert_null(jr_ask_find(&t, a));
	assert_int_equal(jr_ask_count(&t), 1);
	/* The freed slot is reused, the id is not. */
	assert_int_equal(
	    jr_ask_hold(&t, "z.test", 22, JR_ASK_VIA_PROXY, 2000, &c, &joined),
	    0);
	assert_int_equal(c, 3);
	assert_int_equal(jr_ask_next(&t, 0)->id, 2);
	assert_int_equal(jr_ask_next(&t, 2)->id, 3);
	assert_null(jr_ask_next(&t, 3));
	jr_ask_remove(&t, 99); /* unknown: nothing happens */
	assert_int_equal(jr_ask_count(&t), 2);
}

/* DNS queries for one name join one entry (any letter case); the entry
 * goes with its last waiter. Connections never join. A table that made
 * one entry per retry, or that dropped an entry while a query still
 * waited, fails here. */
static void test_join_leave(void **state)
{
	uint64_t a, b, c, d, p1, p2;
	bool joined;

	(void)state;
	jr_ask_init(&t, 30000);
	assert_int_equal(
	    jr_ask_hold(&t, "x.test", 0, JR_ASK_VIA_DNS, 0, &a, &joined), 0);
	assert_false(joined);
	assert_int_equal(
	    jr_ask_hold(&t, "X.Test", 0, JR_ASK_VIA_DNS, 5000, &b, &joined), 0);
	assert_true(joined);
	assert_int_equal(a, b);
	assert_int_equal(jr_ask_find(&t, a)->waiters, 2);
	/* the retry does not move the deadline: 30 s from the first */
	assert_int_equal(jr_ask_find(&t, a)->deadline, 30000);
	assert_int_equal(
	    jr_ask_hold(&t, "other.test", 0, JR_ASK_VIA_DNS, 0, &c, &joined),
	    0);
	assert_int_not_equal(c, a);
	/* a connection to the same name is a request of its own */
	assert_int_equal(
	    jr_ask_hold(&t, "x.test", 443, JR_ASK_VIA_PROXY, 0, &p1, &joined),
	    0);
	assert_false(joined);
	assert_int_equal(
	    jr_ask_hold(&t, "x.test", 443, JR_ASK_VIA_PROXY, 0, &p2, &joined),
	    0);
	assert_false(joined);
	assert_int_not_equal(p1, p2);
	assert_int_not_equal(p1, a);

	jr_ask_leave(&t, a);
	assert_non_null(jr_ask_find(&t, a));
	jr_ask_leave(&t, a);
	assert_null(jr_ask_find(&t, a));
	/* a new query after that is a new request */
	assert_int_equal(
	    jr_ask_hold(&t, "x.test", 0, JR_ASK_VIA_DNS, 0, &d, &joined), 0);
	assert_false(joined);
	assert_true(d > p2);
	jr_ask_leave(&t, 12345); /* unknown: nothing happens */
}

/* Expiry by deadline, oldest first; nothing before its time. */
static void test_expire(void **state)
{
	uint64_t a, b;
	bool joined;

	(void)state;
	jr_ask_init(&t, 1000);
	assert_int_equal(
	    jr_ask_hold(&t, "b.test", 1, JR_ASK_VIA_PROXY, 500, &b, &joined),
	    0);
	assert_int_equal(
	    jr_ask_hold(&t, "a.test", 1, JR_ASK_VIA_PROXY, 100, &a, &joined),
	    0);
	assert_int_equal(jr_ask_expired(&t, 1099), 0);
	assert_int_equal(jr_ask_expired(&t, 1100), a);
	assert_int_equal(jr_ask_expired(&t, 5000), b); /* the older id */
	jr_ask_remove(&t, b);
	assert_int_equal(jr_ask_expired(&t, 5000), a);
	jr_ask_remove(&t, a);
	assert_int_equal(jr_ask_expired(&t, UINT64_MAX), 0);
}

/* Bounded: the (JR_ASK_MAX + 1)th request is refused, a DNS retry of a
 * held name still joins, and a freed slot takes a new one. */
static void test_full(void **state)
{
	char host[32];
	uint64_t id, first = 0;
	bool joined;

	(void)state;
	jr_ask_init(&t, 1000);
	for (int i = 0; i < JR_ASK_MAX; i++) {
		snprintf(host, sizeof(host), "h%d.test", i);
		assert_int_equal(
		    jr_ask_hold(&t, host, 0, JR_ASK_VIA_DNS, 0, &id, &joined),
		    0);
		if (!first)
			first = id;
	}
	assert_int_equal(jr_ask_count(&t), JR_ASK_MAX);
	assert_int_equal(jr_ask_hold(&t, "more.test", 443, JR_ASK_VIA_PROXY, 0,
				     &id, &joined),
			 -ENOSPC);
	assert_int_equal(
	    jr_ask_hold(&t, "h7.test", 0, JR_ASK_VIA_DNS, 0, &id, &joined), 0);
	assert_true(joined);
	jr_ask_remove(&t, first);
	assert_int_equal(jr_ask_hold(&t, "more.test", 443, JR_ASK_VIA_PROXY, 0,
				     &id, &joined),
			 0);
	assert_int_equal(id, JR_ASK_MAX + 1);
}

/* Hosts the table cannot name are refused, not cut. */
static void test_bad_host(void **state)
{
	char longname[JR_ASK_HOST_MAX + 2];
	uint64_t id;
	bool joined;

	(void)state;
	jr_ask_init(&t, 1000);
	memset(longname, 'a', sizeof(longname) - 1);
	longname[sizeof(longname) - 1] = '\0';
	assert_int_equal(
	    jr_ask_hold(&t, "", 1, JR_ASK_VIA_PROXY, 0, &id, &joined), -EINVAL);
	assert_int_equal(
	    jr_ask_hold(&t, longname, 1, JR_ASK_VIA_PROXY, 0, &id, &joined),
	    -EINVAL);
	longname[JR_ASK_HOST_MAX] = '\0';
	assert_int_equal(
	    jr_ask_hold(&t, longname, 1, JR_ASK_VIA_PROXY, 0, &id, &joined), 0);
	assert_int_equal(strlen(jr_ask_find(&t, id)->host), JR_ASK_HOST_MAX);
}

/* Only the allowlist's own refusals are held: a table that held a managed
 * deny or a special address would let an operator override the guard. */
static void test_may_hold(void **state)
{
	(void)state;
	assert_true(jr_ask_may_hold(JR_DENY_NOT_ALLOWED));
	assert_true(jr_ask_may_hold(JR_DENY_PORT));
	assert_false(jr_ask_may_hold(JR_ALLOWED));
	assert_false(jr_ask_may_hold(JR_DENY_MANAGED));
	assert_false(jr_ask_may_hold(JR_DENY_SPECIAL_ADDR));
	assert_false(jr_ask_may_hold(JR_DENY_LOCAL_ADDR));
	assert_false(jr_ask_may_hold(JR_DENY_BAD_HOST));
	assert_false(jr_ask_may_hold(JR_DENY_GUARD_FAILED));
}

static void test_parse_id(void **state)
{
	uint64_t id = 7;

	(void)state;
	assert_int_equal(jr_ask_parse_id("3", &id), 0);
	assert_int_equal(id, 3);
	assert_int_equal(jr_ask_parse_id("18446744073709551615", &id), 0);
	assert_int_equal(id, UINT64_MAX);
	id = 7;
	assert_int_equal(jr_ask_parse_id("18446744073709551616", &id), -EINVAL);
	assert_int_equal(jr_ask_parse_id("", &id), -EINVAL);
	assert_int_equal(jr_ask_parse_id("0", &id), -EINVAL);
	assert_int_equal(jr_ask_parse_id("03", &id), -EINVAL);
	assert_int_equal(jr_ask_parse_id("-3", &id), -EINVAL);
	assert_int_equal(jr_ask_parse_id("+3", &id), -EINVAL);
	assert_int_equal(jr_ask_parse_id("3 ", &id), -EINVAL);
	assert_int_equal(jr_ask_parse_id("3x", &id), -EINVAL);
	assert_int_equal(id, 7); /* untouched on failure */
	assert_string_equal(jr_ask_via_name(JR_ASK_VIA_PROXY), "proxy");
	assert_string_equal(jr_ask_via_name(JR_ASK_VIA_TRANSPARENT),
			    "transparent");
	assert_string_equal(jr_ask_via_name(JR_ASK_VIA_DNS), "dns");
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_add_find),
		cmocka_unit_test(test_join_leave),
		cmocka_unit_test(test_expire),
		cmocka_unit_test(test_full),
		cmocka_unit_test(test_bad_host),
		cmocka_unit_test(test_may_hold),
		cmocka_unit_test(test_parse_id),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
