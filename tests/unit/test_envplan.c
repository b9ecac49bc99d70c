// SPDX-License-Identifier: GPL-2.0-or-later
/* Unit tests for envplan.c: the name rule, --setenv, env files, the plan's
 * checks and PATH pruning. */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "envplan.h"
#include "options.h"

static void test_name_rule(void **state)
{
	(void)state;
	assert_null(jr_env_name_rule("PATH", 4));
	assert_null(jr_env_name_rule("npm_config_cache", 16));
	assert_null(jr_env_name_rule("A.B-c", 5));
	assert_string_equal(jr_env_name_rule("", 0), "the name is empty");
	assert_string_equal(jr_env_name_rule("A=B", 3),
			    "a name cannot contain '='");
	assert_string_equal(jr_env_name_rule("A\0B", 3),
			    "a name cannot contain a NUL byte");
	assert_string_equal(jr_env_name_rule("A B", 3),
			    "a name is printable ASCII without spaces");
	assert_non_null(jr_env_name_rule("A\tB", 3));
	assert_non_null(jr_env_name_rule("\xc3\xa9", 2));
	assert_non_null(jr_env_name_rule("A\x7f", 2));
}

static void test_setenv(void **state)
{
	struct jr_env_var v = { 0 };
	struct jr_err e = { 0 };

	(void)state;
	assert_int_equal(jr_env_parse_setenv("A=1", &v, &e), 0);
	assert_string_equal(v.name, "A");
	assert_string_equal(v.value, "1");
	free(v.name);
	free(v.value);
	/* The first '=' ends the name; the value keeps the rest. */
	assert_int_equal(jr_env_parse_setenv("B=x=y", &v, &e), 0);
	assert_string_equal(v.name, "B");
	assert_string_equal(v.value, "x=y");
	free(v.name);
	free(v.value);
	/* An empty value is a value. */
	assert_int_equal(jr_env_parse_setenv("HTTPS_PROXY=", &v, &e), 0);
	assert_string_equal(v.value, "");
	free(v.name);
	free(v.value);

	assert_int_equal(jr_env_parse_setenv("NOVALUE", &v, &e), -EINVAL);
	assert_string_equal(e.msg, "--setenv NOVALUE: expected NAME=VALUE");
	assert_int_equal(jr_env_parse_setenv("=x", &v, &e), -EINVAL);
	assert_string_equal(e.msg, "--setenv =x: the name is empty");
	assert_int_equal(jr_env_parse_setenv("A B=x", &v, &e), -EINVAL);
	assert_string_equal(
	    e.msg, "--setenv A B=x: a name is printable ASCII without spaces");
}

static void test_unsetenv(void **state)
{
	struct jr_err e = { 0 };

	(void)state;
	assert_int_equal(jr_env_check_unsetenv("TERM", &e), 0);
	assert_int_equal(jr_env_check_unsetenv("", &e), -EINVAL);
	assert_string_equal(e.msg, "--unsetenv : the name is empty");
	assert_int_equal(jr_env_check_unsetenv("A=1", &e), -EINVAL);
	assert_string_equal(e.msg, "--unsetenv A=1: a name cannot contain '='");
}

#define ADD(p, text, e)                                                        \
	jr_env_plan_add_file((p), (text), sizeof(text) - 1, "f.env", (e))

static void test_file(void **state)
{
	struct jr_env_plan p = { 0 };
	struct jr_err e = { 0 };

	(void)state;
	assert_int_equal(ADD(&p,
			     "# a comment\n"
			     "\n"
			     "   \t\n"
			     "  # an indented comment\n"
			     "A=1\n"
			     "B= two words \n"
			     "C=\"quoted\"\n"
			     "D=\n"
			     "E=x=y#not a comment",
			     &e),
			 0);
	assert_int_equal(p.n_file, 5);
	assert_string_equal(p.file[0].name, "A");
	assert_string_equal(p.file[0].value, "1");
	assert_string_equal(p.file[1].value, " two words ");
	/* Literal: quotes stay, as in docker's --env-file. */
	assert_string_equal(p.file[2].value, "\"quoted\"");
	assert_string_equal(p.file[3].value, "");
	assert_string_equal(p.file[4].name, "E");
	assert_string_equal(p.file[4].value, "x=y#not a comment");
	jr_env_plan_release(&p);
	assert_int_equal(p.n_file, 0);
}

/* Each bad line: file:line and the rule, and nothing of the file kept. */
static void test_file_errors(void **state)
{
	static const struct {
		const char *text;
		size_t len;
		const char *msg;
	} bad[] = {
#define BAD(t, m) { t, sizeof(t) - 1, m }
		BAD("A=1\nNOEQUALS\n",
		    "--env-file f.env:2: expected NAME=VALUE"),
		BAD("A=1\n\n=x\n", "--env-file f.env:3: the name is empty"),
		BAD(" A=1\n",
		    "--env-file f.env:1: a name is printable ASCII without spaces"),
		BAD("export A=1\n",
		    "--env-file f.env:1: no 'export ': the file is NAME=VALUE lines, not a shell script"),
		BAD("A=1\r\n",
		    "--env-file f.env:1: the line ends in a carriage return (a DOS file? convert it with dos2unix)"),
		BAD("A=1\nB=x\0y\n",
		    "--env-file f.env:2: a NUL byte (an env file is text)"),
		BAD("# x\0y\n",
		    "--env-file f.env:1: a NUL byte (an env file is text)"),
#undef BAD
	};
	struct jr_env_plan p = { 0 };
	struct jr_err e = { 0 };

	(void)state;
	assert_int_equal(ADD(&p, "KEEP=1\n", &e), 0);
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		assert_int_equal(jr_env_plan_add_file(&p, bad[i].text,
						      bad[i].len, "f.env", &e),
				 -EINVAL);
		assert_string_equal(e.msg, bad[i].msg);
		/* The earlier file's variable stays, this file's are gone. */
		assert_int_equal(p.n_file, 1);
		assert_string_equal(p.file[0].name, "KEEP");
	}
	jr_env_plan_release(&p);
}

/* An env file never sets one of jailrun's own variables. */
static void test_file_own(void **state)
{
	struct jr_env_plan p = { 0 };
	struct jr_err e = { 0 };

	(void)state;
	assert_int_equal(jr_env_plan_add_own(&p, "HTTPS_PROXY"), 0);
	assert_int_equal(jr_env_plan_add_own(&p, "HTTPS_PROXY"), 0);
	assert_int_equal(p.n_own, 1);
	assert_true(jr_env_plan_is_own(&p, "HTTPS_PROXY"));
	assert_false(jr_env_plan_is_own(&p, "https_proxy"));
	assert_int_equal(
	    ADD(&p, "A=1\nHTTPS_PROXY=http://host:8080\nB=2\n", &e), 0);
	assert_int_equal(p.n_file, 2);
	assert_string_equal(p.file[0].name, "A");
	assert_string_equal(p.file[1].name, "B");
	jr_env_plan_release(&p);
}

static void test_plan_check(void **state)
{
	struct jr_env_var set[1] = { { (char *)"A", (char *)"1" } };
	char *unset[2] = { (char *)"B", (char *)"A" };
	struct jr_env_plan p = { .set = set, .n_set = 1, .unset = unset };
	struct jr_err e = { 0 };

	(void)state;
	p.n_unset = 1;
	assert_int_equal(jr_env_plan_check(&p, &e), 0);
	p.n_unset = 2;
	assert_int_equal(jr_env_plan_check(&p, &e), -EINVAL);
	assert_string_equal(
	    e.msg, "--unsetenv A and --setenv A=...: both name A; keep one");
}

/* The fake searchability: a directory under /root is not searchable,
 * /missing does not exist, everything else is. */
static int fake_search(const char *dir, void *ctx)
{
	(void)ctx;
	if (strncmp(dir, "/root", 5) == 0)
		return -EACCES;
	if (strcmp(dir, "/missing") == 0)
		return -ENOENT;
	return 0;
}

static char dropped_log[256];

static void fake_dropped(const char *dir, void *ctx)
{
	(void)ctx;
	strncat(dropped_log, dir,
		sizeof(dropped_log) - strlen(dropped_log) - 2);
	strcat(dropped_log, ";");
}

static void check_prune(const char *in, const char *want, const char *gone)
{
	char *out;

	dropped_log[0] = '\0';
	out = jr_env_path_prune(in, fake_search, fake_dropped, NULL);
	assert_non_null(out);
	assert_string_equal(out, want);
	assert_string_equal(dropped_log, gone);
	free(out);
}

static void test_path_prune(void **state)
{
	(void)state;
	check_prune("/usr/bin:/bin", "/usr/bin:/bin", "");
	check_prune("/root/.pyenv/bin:/usr/bin:/root/.cargo/bin:/bin",
		    "/usr/bin:/bin", "/root/.pyenv/bin;/root/.cargo/bin;");
	/* Missing directories cost nothing: kept. */
	check_prune("/missing:/usr/bin", "/missing:/usr/bin", "");
	/* Empty entries are the working directory (POSIX): kept. */
	check_prune(":/usr/bin::", ":/usr/bin::", "");
	check_prune("/root/x", "", "/root/x;");
	/* Named twice: dropped both times, told once (-v says it once). */
	check_prune("/root/x:/usr/bin:/root/x:/root/xy", "/usr/bin",
		    "/root/x;/root/xy;");
	check_prune("", "", "");
}

/* The options: repeatable, checked at parse time, exit 125 material. */
static void test_options(void **state)
{
	char *argv[] = { "jailrun",    "--setenv",   "A=1",	   "--setenv",
			 "A=2",	       "--unsetenv", "TERM",	   "--clearenv",
			 "--env-file", "x.env",	     "--env-file", "y.env",
			 "--",	       "true",	     NULL };
	char *bad1[] = { "jailrun", "--setenv", "A", "--", "true", NULL };
	char *bad2[] = { "jailrun", "--unsetenv", "A=1", "--", "true", NULL };
	char *bad3[] = { "jailrun", "--env-file", "", "--", "true", NULL };
	struct jr_options o;
	struct jr_err e = { 0 };

	(void)state;
	assert_int_equal(jr_options_parse(14, argv, &o, &e), 0);
	assert_int_equal(o.n_env_set, 2);
	assert_string_equal(o.env_set[1], "A=2");
	assert_int_equal(o.n_env_unset, 1);
	assert_true(o.clearenv);
	assert_int_equal(o.n_env_files, 2);
	assert_string_equal(o.env_files[1], "y.env");
	jr_options_release(&o);

	assert_int_equal(jr_options_parse(5, bad1, &o, &e), -EINVAL);
	assert_string_equal(e.msg, "--setenv A: expected NAME=VALUE");
	assert_int_equal(jr_options_parse(5, bad2, &o, &e), -EINVAL);
	assert_string_equal(e.msg, "--unsetenv A=1: a name cannot contain '='");
	assert_int_equal(jr_options_parse(5, bad3, &o, &e), -EINVAL);
	assert_string_equal(e.msg, "--env-file: empty file name");
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_name_rule),
		cmocka_unit_test(test_setenv),
		cmocka_unit_test(test_unsetenv),
		cmocka_unit_test(test_file),
		cmocka_unit_test(test_file_errors),
		cmocka_unit_test(test_file_own),
		cmocka_unit_test(test_plan_check),
		cmocka_unit_test(test_path_prune),
		cmocka_unit_test(test_options),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
