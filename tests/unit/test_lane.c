/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Unit tests for lane.c: the --lane and --publish grammars. */
#include <arpa/inet.h>
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "lane.h"

static void assert_v6(const struct sockaddr_storage *ss, const char *want,
		      uint16_t port)
{
	const struct sockaddr_in6 *sin6 = (const struct sockaddr_in6 *)ss;
	char got[INET6_ADDRSTRLEN];

	assert_int_equal(ss->ss_family, AF_INET6);
	assert_non_null(
	    inet_ntop(AF_INET6, &sin6->sin6_addr, got, sizeof(got)));
	assert_string_equal(got, want);
	assert_int_equal(ntohs(sin6->sin6_port), port);
}

static void test_lane_forms(void **state)
{
	struct jr_lane l;
	struct jr_err err = { 0 };

	(void)state;
	assert_int_equal(jr_lane_parse("[::1]:4000", &l, &err), 0);
	assert_true(l.host);
	assert_int_equal(l.port, 4000);
	assert_int_equal(l.addr_len, sizeof(struct sockaddr_in6));
	assert_v6(&l.addr, "::1", 4000);

	assert_int_equal(jr_lane_parse("127.0.0.1:4000", &l, &err), 0);
	assert_true(l.host);
	assert_int_equal(l.addr.ss_family, AF_INET);

	assert_int_equal(jr_lane_parse("api.example.com:443", &l, &err), 0);
	assert_false(l.host);
	assert_int_equal(l.port, 443);
}

static void test_lane_refusals(void **state)
{
	static const struct {
		const char *in, *msg;
	} bad[] = {
		{ "[::1]4000",
		  "--lane [::1]4000: expected [IPv6-ADDRESS]:PORT" },
		{ "[::1:4000",
		  "--lane [::1:4000: expected [IPv6-ADDRESS]:PORT" },
		{ "[nope]:4000",
		  "--lane [nope]:4000: expected [IPv6-ADDRESS]" },
		{ "[::1]:0", "--lane [::1]:0: the port must be 1..65535" },
		{ "::1:4000",
		  "--lane ::1:4000: an IPv6 address goes in brackets" },
		{ "noport", "--lane noport: expected HOST:PORT or NAME:PORT" },
	};
	struct jr_lane l;

	(void)state;
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		struct jr_err err = { 0 };

		assert_int_equal(jr_lane_parse(bad[i].in, &l, &err), -EINVAL);
		if (strncmp(err.msg, bad[i].msg, strlen(bad[i].msg)) != 0)
			fail_msg("%s: got '%s'", bad[i].in, err.msg);
	}
}

static void test_publish_forms(void **state)
{
	struct jr_publish p;
	struct jr_err err = { 0 };

	(void)state;
	assert_int_equal(jr_publish_parse("[::1]:8080:8000", &p, &err), 0);
	assert_int_equal(p.host_port, 8080);
	assert_int_equal(p.port, 8000);
	assert_v6(&p.addr, "::1", 8080);

	assert_int_equal(jr_publish_parse("8080:8000", &p, &err), 0);
	assert_int_equal(p.host_port, 8080);
	assert_int_equal(p.port, 8000);

	assert_int_equal(jr_publish_parse("127.0.0.1:8080:8000", &p, &err), 0);
	assert_int_equal(p.addr.ss_family, AF_INET);
}

static void test_publish_refusals(void **state)
{
	static const char *const bad[] = {
		"[::1]8080:8000", "[::1:8080:8000", "[::1]:8080:8000:1",
		"[::1]:8080",	  "8080",	    "0:8000",
	};
	struct jr_publish p;

	(void)state;
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		struct jr_err err = { 0 };
		char want[128];

		assert_int_equal(jr_publish_parse(bad[i], &p, &err), -EINVAL);
		snprintf(want, sizeof(want), "--publish %s: ", bad[i]);
		if (strncmp(err.msg, want, strlen(want)) != 0)
			fail_msg("%s: got '%s'", bad[i], err.msg);
	}
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_lane_forms),
		cmocka_unit_test(test_lane_refusals),
		cmocka_unit_test(test_publish_forms),
		cmocka_unit_test(test_publish_refusals),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
