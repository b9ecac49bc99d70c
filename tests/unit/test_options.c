// SPDX-License-Identifier: GPL-2.0-or-later
/* Unit tests for options.c: every accepted form and every rejection. */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>
#include <cmocka.h>

#include "options.h"

#define ARGV(...) ((char *[]){ "jailrun", __VA_ARGS__, NULL })
#define ARGC(...) ((int)(sizeof((char *[]){ "jailrun", __VA_ARGS__ }) / sizeof(char *)))
#define PARSE(o, e, ...) jr_options_parse(ARGC(__VA_ARGS__), ARGV(__VA_ARGS__), (o), (e))

static void test_command_after_dashdash(void **state)
{
	struct jr_options o;
	struct jr_err e = { 0 };

	assert_int_equal(PARSE(&o, &e, "--", "sh", "-c", "exit 3"), 0);
	assert_int_equal(o.action, JR_ACTION_RUN);
	assert_int_equal(o.command_argc, 3);
	assert_string_equal(o.command[0], "sh");
	assert_string_equal(o.command[1], "-c");
	assert_string_equal(o.command[2], "exit 3");
	assert_null(o.command[3]);
	assert_int_equal(o.net, JR_NET_NONE);
	assert_int_equal(o.timeout_ms, 0);
	assert_null(o.user);
	assert_null(o.json_path);
}

static void test_command_options_not_ours(void **state)
{
	struct jr_options o;
	struct jr_err e = { 0 };

	/* Parsing stops at the first non-option: "-v" belongs to ls. */
	assert_int_equal(PARSE(&o, &e, "ls", "-v", "--net", "x"), 0);
	assert_int_equal(o.verbosity, 0);
	assert_int_equal(o.command_argc, 4);
	assert_string_equal(o.command[1], "-v");
}

static void test_all_options(void **state)
{
	struct jr_options o;
	struct jr_err e = { 0 };

	assert_int_equal(PARSE(&o, &e, "-vv", "--net", "none", "--timeout", "2.5",
			       "--user", "nobody:nogroup", "--json", "/tmp/x.json",
			       "--", "true"),
			 0);
	assert_int_equal(o.verbosity, 2);
	assert_int_equal(o.timeout_ms, 2500);
	assert_string_equal(o.user, "nobody:nogroup");
	assert_string_equal(o.json_path, "/tmp/x.json");
	assert_int_equal(PARSE(&o, &e, "--net=none", "--timeout=1", "-q", "true"), 0);
	assert_int_equal(o.verbosity, -1);
	assert_int_equal(o.timeout_ms, 1000);
}

static void test_help_version_check(void **state)
{
	struct jr_options o;
	struct jr_err e = { 0 };

	assert_int_equal(PARSE(&o, &e, "--help"), 0);
	assert_int_equal(o.action, JR_ACTION_HELP);
	assert_int_equal(PARSE(&o, &e, "-h"), 0);
	assert_int_equal(o.action, JR_ACTION_HELP);
	assert_int_equal(PARSE(&o, &e, "-V"), 0);
	assert_int_equal(o.action, JR_ACTION_VERSION);
	assert_int_equal(PARSE(&o, &e, "--check"), 0);
	assert_int_equal(o.action, JR_ACTION_CHECK);
	assert_int_equal(PARSE(&o, &e, "--check", "ls"), -EINVAL);
	assert_non_null(strstr(e.msg, "--check takes no command"));
}

static void expect_reject(const char *needle, int argc, char **argv)
{
	struct jr_options o;
	struct jr_err e = { 0 };

	assert_int_equal(jr_options_parse(argc, argv, &o, &e), -EINVAL);
	if (!strstr(e.msg, needle))
		fail_msg("message '%s' does not contain '%s'", e.msg, needle);
}

#define REJECT(needle, ...) expect_reject(needle, ARGC(__VA_ARGS__), ARGV(__VA_ARGS__))

static void test_rejections(void **state)
{
	expect_reject("no command given", 1, (char *[]){ "jailrun", NULL });
	REJECT("no command given", "--");
	REJECT("no command given", "-v");
	REJECT("unknown option '--frobnicate'", "--frobnicate", "true");
	REJECT("unknown option '-x'", "-x", "true");
	REJECT("'--net' needs an argument", "--net");
	REJECT("--net public: unknown network mode", "--net", "public", "true");
	REJECT("--timeout 0: expected seconds", "--timeout", "0", "true");
	REJECT("--timeout -1", "--timeout", "-1", "true");
	REJECT("--timeout 1.2345", "--timeout", "1.2345", "true");
	REJECT("--timeout 10s", "--timeout", "10s", "true");
	REJECT("--timeout 99999999", "--timeout", "99999999", "true");
	REJECT("--user given twice", "--user", "a", "--user", "b", "true");
	REJECT("--user: empty", "--user", "", "true");
	REJECT("--json: empty", "--json", "", "true");
	REJECT("-v and -q", "-v", "-q", "true");
	REJECT("-v and -q", "-q", "-v", "true");
	REJECT("takes no argument", "--check=yes");
	REJECT("the command name is empty", "--", "");
}

static void test_duration(void **state)
{
	uint64_t ms;

	assert_int_equal(jr_parse_duration_ms("1", &ms), 0);
	assert_int_equal(ms, 1000);
	assert_int_equal(jr_parse_duration_ms("0.001", &ms), 0);
	assert_int_equal(ms, 1);
	assert_int_equal(jr_parse_duration_ms(".5", &ms), 0);
	assert_int_equal(ms, 500);
	assert_int_equal(jr_parse_duration_ms("31536000", &ms), 0);
	assert_int_equal(ms, 31536000000ULL);
	assert_int_equal(jr_parse_duration_ms("31536001", &ms), -EINVAL);
	assert_int_equal(jr_parse_duration_ms("0.0", &ms), -EINVAL);
	assert_int_equal(jr_parse_duration_ms("1.", &ms), -EINVAL);
	assert_int_equal(jr_parse_duration_ms(".", &ms), -EINVAL);
	assert_int_equal(jr_parse_duration_ms("", &ms), -EINVAL);
	assert_int_equal(jr_parse_duration_ms(" 1", &ms), -EINVAL);
	assert_int_equal(jr_parse_duration_ms("1e3", &ms), -EINVAL);
	assert_int_equal(jr_parse_duration_ms("184467440737095516160", &ms), -EINVAL);
}

static void test_usage_mentions_every_option(void **state)
{
	static const char *const opts[] = { "--net", "--timeout", "--user",
					    "--json", "--check", "--verbose",
					    "--quiet", "--help", "--version" };

	for (size_t i = 0; i < sizeof(opts) / sizeof(opts[0]); i++)
		if (!strstr(jr_usage_text, opts[i]))
			fail_msg("--help does not mention %s", opts[i]);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_command_after_dashdash),
		cmocka_unit_test(test_command_options_not_ours),
		cmocka_unit_test(test_all_options),
		cmocka_unit_test(test_help_version_check),
		cmocka_unit_test(test_rejections),
		cmocka_unit_test(test_duration),
		cmocka_unit_test(test_usage_mentions_every_option),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
