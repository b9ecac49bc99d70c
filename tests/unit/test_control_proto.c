// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * Unit tests for control_proto.c (the request grammar of the live policy
 * socket) and livepolicy.c (the changeable allowlist it drives). Each
 * test names the broken parser or policy it would catch.
 */
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

#include "control_proto.h"
#include "livepolicy.h"

static int parse(const char *s, struct jr_control_req *req, struct jr_err *e)
{
	return jr_control_parse(s, strlen(s), req, e);
}

/* Every op in its plain form, with white space and escapes: a parser
 * that mixed up ops, lost the entry or the close flag fails here. */
static void test_parse_good(void **state)
{
	struct jr_control_req q;
	struct jr_err e = { 0 };

	(void)state;
	assert_int_equal(
	    parse("{\"op\":\"allow\",\"entry\":\"x.test\"}", &q, &e), 0);
	assert_int_equal(q.op, JR_CONTROL_ALLOW);
	assert_string_equal(q.entry, "x.test");
	assert_false(q.close);
	assert_int_equal(
	    parse(" { \"entry\" : \"x.test:443\" , \"op\":\"remove\",\r\n"
		  "\"close\": true }\r",
		  &q, &e),
	    0);
	assert_int_equal(q.op, JR_CONTROL_REMOVE);
	assert_string_equal(q.entry, "x.test:443");
	assert_true(q.close);
	assert_int_equal(
	    parse("{\"op\":\"remove\",\"entry\":\"a\",\"close\":false}", &q,
		  &e),
	    0);
	assert_false(q.close);
	assert_int_equal(parse("{\"op\":\"lock\"}", &q, &e), 0);
	assert_int_equal(q.op, JR_CONTROL_LOCK);
	assert_int_equal(parse("{\"op\":\"status\"}", &q, &e), 0);
	assert_int_equal(q.op, JR_CONTROL_STATUS);
	assert_int_equal(parse("{\"op\":\"list\"}", &q, &e), 0);
	assert_int_equal(q.op, JR_CONTROL_LIST);
	assert_int_equal(
	    parse("{\"op\":\"allow\",\"entry\":\"\\u0078.te\\/st\"}", &q, &e),
	    0);
	assert_string_equal(q.entry, "x.te/st");
	/* counted, not NUL-terminated: bytes past len are not read */
	assert_int_equal(jr_control_parse("{\"op\":\"list\"}XXXX", 13, &q, &e),
			 0);
}

/* Bad JSON, unknown ops and keys, wrong types, duplicates, missing or
 * extra members: each refused with a message. A lenient parser (last key
 * wins, numbers as strings, trailing garbage ignored) fails here. */
/* The --ask ops: an id as a string of digits, "always" with approve
 * only. A parser that took a number for the id, lost "always", let an id
 * with a sign or a leading zero through, or took "always" on deny fails
 * here. */
static void test_parse_ask(void **state)
{
	static const struct {
		const char *in, *needle;
	} bad[] = {
		{ "{\"op\":\"approve\"}", "needs an \"id\"" },
		{ "{\"op\":\"deny\"}", "needs an \"id\"" },
		{ "{\"op\":\"approve\",\"id\":3}", "must be a string" },
		{ "{\"op\":\"approve\",\"id\":\"\"}", "not a request number" },
		{ "{\"op\":\"approve\",\"id\":\"0\"}", "not a request number" },
		{ "{\"op\":\"approve\",\"id\":\"03\"}",
		  "not a request number" },
		{ "{\"op\":\"approve\",\"id\":\"-3\"}",
		  "not a request number" },
		{ "{\"op\":\"approve\",\"id\":\"3x\"}",
		  "not a request number" },
		{ "{\"op\":\"approve\",\"id\":\"99999999999999999999\"}",
		  "not a request number" },
		{ "{\"op\":\"approve\",\"id\":\"1\",\"id\":\"2\"}",
		  "\"id\" appears twice" },
		{ "{\"op\":\"deny\",\"id\":\"1\",\"always\":true}",
		  "\"always\" goes with \"op\":\"approve\" only" },
		{ "{\"op\":\"approve\",\"id\":\"1\",\"always\":\"yes\"}",
		  "true or false" },
		{ "{\"op\":\"pending\",\"id\":\"1\"}", "takes no \"id\"" },
		{ "{\"op\":\"allow\",\"entry\":\"x\",\"id\":\"1\"}",
		  "takes no \"id\"" },
		{ "{\"op\":\"approve\",\"id\":\"1\",\"entry\":\"x\"}",
		  "takes no \"entry\"" },
		{ "{\"op\":\"pending\",\"always\":true}", "\"always\" goes" },
		/* a pool's K.N: both parts as an id */
		{ "{\"op\":\"deny\",\"id\":\"0.1\"}", "not a request number" },
		{ "{\"op\":\"deny\",\"id\":\"3.0\"}", "not a request number" },
		{ "{\"op\":\"deny\",\"id\":\"3.\"}", "not a request number" },
		{ "{\"op\":\"deny\",\"id\":\".1\"}", "not a request number" },
		{ "{\"op\":\"deny\",\"id\":\"3.1.2\"}",
		  "not a request number" },
		{ "{\"op\":\"deny\",\"id\":\"03.1\"}", "not a request number" },
		{ "{\"op\":\"deny\",\"id\":\"4294967296.1\"}",
		  "not a request number" },
		{ "{\"op\":\"deny\",\"id\":\"12345678901234567.1\"}",
		  "not a request number" },
	};
	struct jr_control_req q;
	struct jr_err e = { 0 };

	(void)state;
	assert_int_equal(parse("{\"op\":\"pending\"}", &q, &e), 0);
	assert_int_equal(q.op, JR_CONTROL_PENDING);
	assert_string_equal(jr_control_op_name(q.op), "pending");
	assert_int_equal(parse("{\"op\":\"approve\",\"id\":\"3\"}", &q, &e), 0);
	assert_int_equal(q.op, JR_CONTROL_APPROVE);
	assert_int_equal(q.id, 3);
	assert_false(q.always);
	assert_int_equal(
	    parse("{\"always\":true,\"id\":\"18446744073709551615\","
		  "\"op\":\"approve\"}",
		  &q, &e),
	    0);
	assert_int_equal(q.id, UINT64_MAX);
	assert_true(q.always);
	assert_int_equal(parse("{\"op\":\"deny\",\"id\":\"12\"}", &q, &e), 0);
	assert_int_equal(q.op, JR_CONTROL_DENY);
	assert_int_equal(q.id, 12);
	assert_int_equal(q.member, 0);
	assert_int_equal(
	    parse("{\"op\":\"approve\",\"id\":\"4294967295.7\"}", &q, &e), 0);
	assert_int_equal(q.member, UINT32_MAX);
	assert_int_equal(q.id, 7);
	assert_int_equal(parse("{\"op\":\"deny\",\"id\":\"3.12\"}", &q, &e), 0);
	assert_int_equal(q.member, 3);
	assert_int_equal(q.id, 12);
	assert_string_equal(jr_control_op_name(q.op), "deny");
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		memset(&e, 0, sizeof(e));
		if (parse(bad[i].in, &q, &e) != -EINVAL ||
		    !strstr(e.msg, bad[i].needle))
			fail_msg("%s: got '%s', want '%s'", bad[i].in, e.msg,
				 bad[i].needle);
	}
}

/* A sandbox's answer as its pool's socket passes it on: every id made
 * K.N, nothing else touched (a host with a quote in it is escaped by the
 * relay's writer, so it cannot look like an id key); too small a buffer
 * is an error, never a cut answer. */
static void test_pool_ids(void **state)
{
	static const char pending[] =
	    "{\"ok\":true,\"op\":\"pending\",\"pending\":[{\"id\":\"1\","
	    "\"host\":\"a.test\",\"port\":443,\"via\":\"proxy\",\"age_ms\":5},"
	    "{\"id\":\"12\",\"host\":\"x\\\"id\\\":\\\"y\",\"port\":null,"
	    "\"via\":\"dns\",\"age_ms\":7}]}";
	static const char want[] =
	    "{\"ok\":true,\"op\":\"pending\",\"pending\":[{\"id\":\"3.1\","
	    "\"host\":\"a.test\",\"port\":443,\"via\":\"proxy\",\"age_ms\":5},"
	    "{\"id\":\"3.12\",\"host\":\"x\\\"id\\\":\\\"y\",\"port\":null,"
	    "\"via\":\"dns\",\"age_ms\":7}]}";
	char out[512];

	(void)state;
	assert_int_equal(
	    jr_control_pool_ids(pending, strlen(pending), 3, out, sizeof(out)),
	    (int)strlen(want));
	assert_string_equal(out, want);
	assert_int_equal(
	    jr_control_pool_ids("{\"ok\":false}", 12, 7, out, sizeof(out)), 12);
	assert_string_equal(out, "{\"ok\":false}");
	assert_int_equal(
	    jr_control_pool_ids(pending, strlen(pending), 3, out, strlen(want)),
	    -ENOSPC);
	assert_int_equal(jr_control_pool_ids(pending, strlen(pending), 3, out,
					     strlen(want) + 1),
			 (int)strlen(want));
}

static void test_parse_bad(void **state)
{
	static const struct {
		const char *in, *needle;
	} bad[] = {
		{ "", "empty" },
		{ "   ", "empty" },
		{ "[\"op\"]", "not a JSON object" },
		{ "{", "expected a key" },
		{ "{\"op\":\"list\"", "expected ',' or '}'" },
		{ "{\"op\":\"list\"}}", "bytes after the object" },
		{ "{\"op\":\"list\"}{\"op\":\"lock\"}",
		  "bytes after the object" },
		{ "{\"op\" \"list\"}", "expected ':'" },
		{ "{\"op\":\"list\",}", "expected a key" },
		{ "{op:\"list\"}", "expected a key" },
		{ "{\"op\":\"frob\"}", "unknown op \"frob\"" },
		{ "{\"op\":\"ALLOW\",\"entry\":\"x\"}", "unknown op" },
		{ "{\"op\":1}", "must be a string" },
		{ "{\"op\":null}", "must be a string" },
		{ "{\"op\":\"list\",\"x\":\"y\"}", "unknown key \"x\"" },
		{ "{\"op\":\"list\",\"averyveryverylongkey\":1}",
		  "unknown key" },
		{ "{\"op\":\"list\",\"op\":\"lock\"}", "\"op\" appears twice" },
		{ "{\"op\":\"allow\",\"entry\":\"a\",\"entry\":\"b\"}",
		  "\"entry\" appears twice" },
		{ "{\"op\":\"remove\",\"entry\":\"a\",\"close\":1}",
		  "true or false" },
		{ "{\"op\":\"remove\",\"entry\":\"a\",\"close\":tru}",
		  "true or false" },
		{ "{\"op\":\"remove\",\"entry\":\"a\",\"close\":true,\"close\":true}",
		  "\"close\" appears twice" },
		{ "{}", "no \"op\"" },
		{ "{\"entry\":\"a\"}", "no \"op\"" },
		{ "{\"op\":\"allow\"}", "needs an \"entry\"" },
		{ "{\"op\":\"allow\",\"entry\":\"\"}", "needs an \"entry\"" },
		{ "{\"op\":\"lock\",\"entry\":\"a\"}", "takes no \"entry\"" },
		{ "{\"op\":\"allow\",\"entry\":\"a\",\"close\":true}",
		  "goes with \"op\":\"remove\" only" },
		{ "{\"op\":\"allow\",\"entry\":\"a\tb\"}",
		  "control character" },
		{ "{\"op\":\"allow\",\"entry\":\"caf\xc3\xa9.test\"}",
		  "non-ASCII" },
		{ "{\"op\":\"allow\",\"entry\":\"\\u0000x\"}",
		  "U+0001..U+007F" },
		{ "{\"op\":\"allow\",\"entry\":\"\\u00e9\"}",
		  "U+0001..U+007F" },
		{ "{\"op\":\"allow\",\"entry\":\"\\u12\"}", "four hex digits" },
		{ "{\"op\":\"allow\",\"entry\":\"\\u12", "not terminated" },
		{ "{\"op\":\"allow\",\"entry\":\"\\u12zz\"}",
		  "four hex digits" },
		{ "{\"op\":\"allow\",\"entry\":\"\\x\"}", "unknown escape" },
		{ "{\"op\":\"allow\",\"entry\":\"abc", "not terminated" },
		{ "{\"op\":\"allow\",\"entry\":\"abc\\", "not terminated" },
	};
	struct jr_control_req q;

	(void)state;
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		struct jr_err e = { 0 };

		if (parse(bad[i].in, &q, &e) != -EINVAL ||
		    !strstr(e.msg, bad[i].needle))
			fail_msg("'%s': expected an error with '%s', got '%s'",
				 bad[i].in, bad[i].needle, e.msg);
	}
}

/* An entry of JR_CONTROL_ENTRY_MAX bytes is taken, one more is refused
 * (not cut short: a truncated entry would allow another destination). */
static void test_parse_entry_length(void **state)
{
	char line[JR_CONTROL_ENTRY_MAX + 64], *p;
	struct jr_control_req q;
	struct jr_err e = { 0 };

	(void)state;
	p = line + sprintf(line, "{\"op\":\"allow\",\"entry\":\"");
	memset(p, 'a', JR_CONTROL_ENTRY_MAX);
	strcpy(p + JR_CONTROL_ENTRY_MAX, "\"}");
	assert_int_equal(parse(line, &q, &e), 0);
	assert_int_equal(strlen(q.entry), JR_CONTROL_ENTRY_MAX);
	memset(p, 'a', JR_CONTROL_ENTRY_MAX + 1);
	strcpy(p + JR_CONTROL_ENTRY_MAX + 1, "\"}");
	assert_int_equal(parse(line, &q, &e), -EINVAL);
	assert_non_null(strstr(e.msg, "longer than 512"));
}

/* allow / remove / lock on the live copy: a live entry is matched, an
 * identical one is not added twice, remove finds "X.Test." as "x.test",
 * lock drops only live entries and keeps the start ones, a bad entry and
 * a live address entry leave the policy unchanged. */
static void test_livepolicy(void **state)
{
	struct jr_policy start;
	struct jr_livepolicy lp;
	struct jr_allow_entry removed;
	struct jr_err e = { 0 };

	(void)state;
	jr_policy_init(&start);
	assert_int_equal(jr_policy_add(&start, "a.test", &e), 0);
	assert_int_equal(jr_policy_add(&start, "192.0.2.1:80", &e), 0);
	assert_int_equal(jr_livepolicy_init(&lp, &start), 0);
	jr_policy_free(&start); /* the copy owns its entries */
	assert_int_equal(lp.p.n, 2);
	assert_int_equal(jr_policy_check_name(&lp.p, "x.test", 443),
			 JR_DENY_NOT_ALLOWED);

	assert_int_equal(jr_livepolicy_allow(&lp, "x.test", &e), 1);
	assert_int_equal(jr_policy_check_name(&lp.p, "x.test", 443),
			 JR_ALLOWED);
	assert_true(jr_policy_name_allowed(&lp.p, "x.test"));
	assert_int_equal(jr_livepolicy_allow(&lp, "X.TEST.", &e), 0);
	assert_int_equal(jr_livepolicy_allow(&lp, "a.test", &e), 0);
	assert_int_equal(jr_livepolicy_allow(&lp, "*.w.test:443", &e), 1);
	assert_int_equal(lp.p.n, 4);
	assert_int_equal(jr_livepolicy_n_live(&lp), 2);
	assert_int_equal(lp.changes, 2);

	/* refused, unchanged */
	assert_int_equal(jr_livepolicy_allow(&lp, "foo.*.test", &e), -EINVAL);
	assert_non_null(strstr(e.msg, "entry 'foo.*.test': "));
	assert_null(strstr(e.msg, "--allow"));
	assert_int_equal(jr_livepolicy_allow(&lp, "198.51.100.7", &e), -EINVAL);
	assert_non_null(strstr(e.msg, "cannot be added live"));
	assert_int_equal(jr_livepolicy_allow(&lp, "10.0.0.0/8", &e), -EINVAL);
	assert_int_equal(lp.p.n, 4);
	assert_int_equal(jr_policy_check_name(&lp.p, "198.51.100.7", 80),
			 JR_DENY_NOT_ALLOWED);

	/* remove */
	assert_int_equal(jr_livepolicy_remove(&lp, "X.Test.", &removed, &e), 1);
	assert_string_equal(removed.name, "x.test");
	assert_int_equal(jr_policy_check_name(&lp.p, "x.test", 443),
			 JR_DENY_NOT_ALLOWED);
	assert_int_equal(jr_livepolicy_remove(&lp, "x.test", NULL, &e),
			 -ENOENT);
	assert_non_null(strstr(e.msg, "not in the policy"));
	assert_int_equal(jr_livepolicy_remove(&lp, "a.test:80", NULL, &e),
			 -ENOENT); /* another port: another entry */
	assert_int_equal(jr_livepolicy_remove(&lp, "a..test", NULL, &e),
			 -EINVAL);
	assert_int_equal(lp.p.n, 3);
	/* a start address entry can be removed */
	assert_int_equal(jr_livepolicy_remove(&lp, "192.0.2.1:80", NULL, &e),
			 1);
	assert_int_equal(jr_policy_check_name(&lp.p, "192.0.2.1", 80),
			 JR_DENY_NOT_ALLOWED);

	/* lock: the live wildcard goes, the start name stays */
	assert_int_equal(jr_livepolicy_allow(&lp, "y.test", &e), 1);
	assert_int_equal(jr_livepolicy_lock(&lp), 2);
	assert_int_equal(lp.p.n, 1);
	assert_string_equal(lp.p.entries[0].name, "a.test");
	assert_int_equal(jr_policy_check_name(&lp.p, "y.test", 80),
			 JR_DENY_NOT_ALLOWED);
	assert_int_equal(jr_policy_check_name(&lp.p, "v.w.test", 443),
			 JR_DENY_NOT_ALLOWED);
	assert_int_equal(jr_policy_check_name(&lp.p, "a.test", 80), JR_ALLOWED);
	assert_int_equal(jr_livepolicy_lock(&lp), 0);
	assert_int_equal(jr_livepolicy_n_live(&lp), 0);

	/* many additions grow the live marks with the policy */
	for (int i = 0; i < 100; i++) {
		char name[32];

		snprintf(name, sizeof(name), "n%d.test", i);
		assert_int_equal(jr_livepolicy_allow(&lp, name, &e), 1);
	}
	assert_int_equal(jr_livepolicy_n_live(&lp), 100);
	assert_int_equal(jr_livepolicy_lock(&lp), 100);
	assert_int_equal(lp.p.n, 1);
	jr_livepolicy_free(&lp);
}

/* The ports a rule fixed at start may use: the start policy's without
 * live changes; any port with them (a live entry may bring a new port,
 * and a Landlock rule built from the start ports would refuse it). */
static void test_port_scope(void **state)
{
	struct jr_policy start;
	const struct jr_policy *p;
	struct jr_err e = { 0 };

	(void)state;
	jr_policy_init(&start);
	assert_int_equal(jr_policy_add(&start, "a.test:443", &e), 0);
	assert_ptr_equal(jr_livepolicy_port_scope(false, &start), &start);
	p = jr_livepolicy_port_scope(true, &start);
	assert_int_equal(p->n, 1);
	assert_int_equal(p->entries[0].port, 0);
	jr_policy_free(&start);
}

/* An empty start policy (--net allowlist, no --allow: start closed,
 * allow later). */
static void test_livepolicy_empty_start(void **state)
{
	struct jr_policy start;
	struct jr_livepolicy lp;
	struct jr_err e = { 0 };

	(void)state;
	jr_policy_init(&start);
	assert_int_equal(jr_livepolicy_init(&lp, &start), 0);
	assert_false(jr_policy_name_allowed(&lp.p, "x.test"));
	assert_int_equal(jr_livepolicy_allow(&lp, "x.test", &e), 1);
	assert_true(jr_policy_name_allowed(&lp.p, "x.test"));
	assert_int_equal(jr_livepolicy_lock(&lp), 1);
	assert_false(jr_policy_name_allowed(&lp.p, "x.test"));
	jr_livepolicy_free(&lp);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_parse_good),
		cmocka_unit_test(test_pool_ids),
		cmocka_unit_test(test_parse_bad),
		cmocka_unit_test(test_parse_ask),
		cmocka_unit_test(test_parse_entry_length),
		cmocka_unit_test(test_livepolicy),
		cmocka_unit_test(test_livepolicy_empty_start),
		cmocka_unit_test(test_port_scope),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
