/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Unit tests for lane.c: the --lane, --lane-env and --publish grammars, and
 * the --secret bindings a lane refuses. */
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

/* localhost is the host's loopback: a host lane on 127.0.0.1. */
static void test_lane_localhost(void **state)
{
	static const char *const forms[] = { "localhost:4000", "LocalHost:4000",
					     "localhost.:4000" };
	struct jr_lanes ls = { 0 };
	struct jr_lane l;
	struct jr_err err = { 0 };
	char got[INET_ADDRSTRLEN];

	(void)state;
	for (size_t i = 0; i < sizeof(forms) / sizeof(forms[0]); i++) {
		const struct sockaddr_in *sin =
		    (const struct sockaddr_in *)&l.addr;

		assert_int_equal(jr_lane_parse(forms[i], &l, &err), 0);
		assert_true(l.host);
		assert_int_equal(l.addr.ss_family, AF_INET);
		assert_int_equal(l.addr_len, sizeof(struct sockaddr_in));
		assert_non_null(
		    inet_ntop(AF_INET, &sin->sin_addr, got, sizeof(got)));
		assert_string_equal(got, "127.0.0.1");
		assert_int_equal(ntohs(sin->sin_port), 4000);
		assert_string_equal(l.text, forms[i]);
	}
	/* the same gateway port as 127.0.0.1:4000 */
	assert_int_equal(
	    jr_lanes_add_lane(&ls, "localhost:4000", NULL, 0, &err), 0);
	assert_int_equal(ls.n_host, 1);
	assert_int_equal(
	    jr_lanes_add_lane(&ls, "127.0.0.1:4000", NULL, 0, &err), -EINVAL);
	/* a name that merely contains localhost stays a name lane */
	assert_int_equal(jr_lane_parse("localhost.example.com:443", &l, &err),
			 0);
	assert_false(l.host);
	assert_int_equal(jr_lane_parse("a.localhost:4000", &l, &err), -EINVAL);
	assert_string_equal(
	    err.msg,
	    "--lane a.localhost:4000: a .localhost name is the host's loopback (RFC 6761); write the address, e.g. 127.0.0.1:4000");
}

/* A host lane holds its port on the sandbox's loopback: no --publish of
 * the same command port, in either order. */
static void test_lane_publish_port(void **state)
{
	struct jr_lanes ls = { 0 };
	struct jr_err err = { 0 };

	(void)state;
	assert_int_equal(
	    jr_lanes_add_lane(&ls, "127.0.0.1:4000", NULL, 0, &err), 0);
	assert_int_equal(jr_lanes_add_publish(&ls, "8080:4000", &err), -EINVAL);
	assert_non_null(strstr(err.msg, "served inside on 127.0.0.1"));
	assert_int_equal(jr_lanes_add_publish(&ls, "4000:8000", &err), 0);
	assert_int_equal(
	    jr_lanes_add_lane(&ls, "api.example.com:8000", NULL, 0, &err), 0);
	assert_int_equal(jr_lanes_add_lane(&ls, "[::1]:8000", NULL, 0, &err),
			 -EINVAL);
	assert_string_equal(
	    err.msg,
	    "--lane [::1]:8000: port 8000 is served inside on 127.0.0.1 by the lane, so the command cannot listen on it for --publish 4000:8000; publish another port");
	assert_int_equal(ls.n_host, 1);
	assert_int_equal(jr_lanes_nfds(&ls, false), 3);
	assert_int_equal(jr_lanes_nfds(&ls, true), 4);
}

static void add_lanes(struct jr_lanes *ls, const char *const *lanes, size_t n)
{
	struct jr_err err = { 0 };

	memset(ls, 0, sizeof(*ls));
	for (size_t i = 0; i < n; i++)
		assert_int_equal(jr_lanes_add_lane(ls, lanes[i], NULL, 0, &err),
				 0);
}

static void test_secret_on_lane(void **state)
{
	static const char *const lanes[] = { "localhost:4000", "[::1]:5000",
					     "api.example.com:443" };
	static const struct {
		const char *host;
		bool refused;
	} cases[] = {
		{ "host.jailrun.internal", true },
		{ "127.0.0.1", true },
		{ "localhost", true },
		{ "::1", true },
		{ "0:0:0:0:0:0:0:1", true },
		{ "127.0.0.2", false },
		{ "api.example.com", false }, /* a name lane: inspected */
		{ "10.0.0.1", false },
	};
	struct jr_lanes ls;

	(void)state;
	add_lanes(&ls, lanes, 3);
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		struct jr_err err = { 0 };
		int r = jr_lanes_check_secret(&ls, "K@x", cases[i].host, &err);

		if (r != (cases[i].refused ? -EINVAL : 0))
			fail_msg("%s: got %d '%s'", cases[i].host, r, err.msg);
		if (cases[i].refused && !strstr(err.msg, "placeholder"))
			fail_msg("%s: message '%s'", cases[i].host, err.msg);
	}
	/* without host lanes, only host.jailrun.internal */
	add_lanes(&ls, lanes + 2, 1);
	struct jr_err err = { 0 };

	assert_int_equal(jr_lanes_check_secret(&ls, "K@x", "127.0.0.1", &err),
			 0);
	assert_int_equal(
	    jr_lanes_check_secret(&ls, "K@x", "host.jailrun.internal", &err),
	    -EINVAL);
}

static void test_lane_env_expand(void **state)
{
	static const char *const one[] = { "127.0.0.1:4000",
					   "api.example.com:443" };
	static const char *const two[] = { "127.0.0.1:4000", "[::1]:5000" };
	static const struct {
		const char *in, *name, *value;
	} good[] = {
		{ "OPENAI_BASE_URL=http://{lane}/v1", "OPENAI_BASE_URL",
		  "http://host.jailrun.internal:4000/v1" },
		{ "ANTHROPIC_BASE_URL=http://{lane:4000}", "ANTHROPIC_BASE_URL",
		  "http://host.jailrun.internal:4000" },
		{ "X={lane}", "X", "host.jailrun.internal:4000" },
		{ "J={{\"u\":\"http://{lane}\"}}", "J",
		  "{\"u\":\"http://host.jailrun.internal:4000\"}" },
	};
	struct jr_lanes ls;
	char *name, *value;

	(void)state;
	add_lanes(&ls, one, 2);
	for (size_t i = 0; i < sizeof(good) / sizeof(good[0]); i++) {
		struct jr_err err = { 0 };

		if (jr_lane_env_expand(&ls, good[i].in, &name, &value, &err))
			fail_msg("%s: %s", good[i].in, err.msg);
		assert_string_equal(name, good[i].name);
		assert_string_equal(value, good[i].value);
		free(name);
		free(value);
	}
	add_lanes(&ls, two, 2);
	struct jr_err err = { 0 };

	assert_int_equal(jr_lane_env_expand(&ls,
					    "U=http://{lane:5000}/{lane:4000}",
					    &name, &value, &err),
			 0);
	assert_string_equal(
	    value,
	    "http://host.jailrun.internal:5000/host.jailrun.internal:4000");
	free(name);
	free(value);
	assert_int_equal(jr_lane_env_expand(&ls, "U={lane}", NULL, NULL, &err),
			 -EINVAL);
	assert_string_equal(
	    err.msg,
	    "--lane-env U={lane}: {lane} means the only host lane, and there are 2; write {lane:PORT}");
}

static void test_lane_env_refusals(void **state)
{
	static const char *const lanes[] = { "127.0.0.1:4000" };
	static const struct {
		const char *in, *msg;
	} bad[] = {
		{ "NOEQUALS", "expected NAME=TEMPLATE" },
		{ "=http://{lane}", "the name is empty" },
		{ "A B=http://{lane}", "a name is printable ASCII" },
		{ "U=http://x/v1", "the template names no lane" },
		{ "U=", "the template names no lane" },
		{ "U=http://{lan}/v1", "'{' at offset 7 is not {lane}" },
		{ "U=http://{lane/v1", "'{' at offset 7 is not {lane}" },
		{ "U={lane:}", "'{' at offset 0" },
		{ "U={lane:0}", "'{' at offset 0" },
		{ "U={lane:65536}", "'{' at offset 0" },
		{ "U={lane:04000}", "'{' at offset 0" },
		{ "U={lane}}", "'}' at offset 6" },
		{ "U={lane:5000}", "{lane:5000} names no host lane" },
	};
	struct jr_lanes ls, none = { 0 };
	char *name = NULL, *value = NULL;
	char big[JR_LANE_ENV_MAX + 16];

	(void)state;
	add_lanes(&ls, lanes, 1);
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		struct jr_err err = { 0 };
		char want[160];

		assert_int_equal(
		    jr_lane_env_expand(&ls, bad[i].in, &name, &value, &err),
		    -EINVAL);
		assert_null(name);
		snprintf(want, sizeof(want), "--lane-env %s: %s", bad[i].in,
			 bad[i].msg);
		if (strncmp(err.msg, want, strlen(want)) != 0)
			fail_msg("%s: got '%s'", bad[i].in, err.msg);
	}
	struct jr_err err = { 0 };

	/* the grammar alone (the lanes may follow) */
	assert_int_equal(
	    jr_lane_env_expand(NULL, "U={lane:5000}", NULL, NULL, &err), 0);
	assert_int_equal(
	    jr_lane_env_expand(&none, "U={lane}", NULL, NULL, &err), -EINVAL);
	assert_non_null(strstr(err.msg, "there is none"));
	/* a bounded value */
	memcpy(big, "U=", 2);
	memset(big + 2, 'a', JR_LANE_ENV_MAX);
	memcpy(big + 2 + JR_LANE_ENV_MAX, "{lane}", 7);
	assert_int_equal(jr_lane_env_expand(&ls, big, NULL, NULL, &err),
			 -EINVAL);
	assert_non_null(strstr(err.msg, "longer than"));
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_lane_forms),
		cmocka_unit_test(test_lane_refusals),
		cmocka_unit_test(test_publish_forms),
		cmocka_unit_test(test_publish_refusals),
		cmocka_unit_test(test_lane_localhost),
		cmocka_unit_test(test_lane_publish_port),
		cmocka_unit_test(test_secret_on_lane),
		cmocka_unit_test(test_lane_env_expand),
		cmocka_unit_test(test_lane_env_refusals),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
