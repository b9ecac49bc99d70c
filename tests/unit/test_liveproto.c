// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * Unit tests for liveproto.c (the messages of live sandboxes: jailrun
 * start/exec/ls/stop). Each test names the broken encoder or checker it
 * would catch.
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

#include "liveproto.h"

static char buf[JR_LIVE_MSG_MAX + 1];
static struct jr_live_req in, out;

/* Names that become NAME.sock: a checker that let '/', "..", a leading
 * dash (an option to rm) or an empty or overlong name through fails. */
static void test_name(void **state)
{
	static const char *const good[] = { "a", "box-1", "Agent_7.x", "0" };
	static const char *const bad[] = { "",	  ".",	 "..",	".hidden",
					   "-rf", "a/b", "a b", "x\n",
					   "é",	  "a:b" };
	char longest[JR_LIVE_NAME_MAX + 2];
	struct jr_err e = { 0 };

	(void)state;
	for (size_t i = 0; i < sizeof(good) / sizeof(good[0]); i++)
		assert_int_equal(jr_live_name_check(good[i], &e), 0);
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		memset(&e, 0, sizeof(e));
		assert_int_equal(jr_live_name_check(bad[i], &e), -EINVAL);
		assert_non_null(strstr(e.msg, "1 to 64 characters"));
	}
	memset(longest, 'a', sizeof(longest));
	longest[JR_LIVE_NAME_MAX] = '\0';
	assert_int_equal(jr_live_name_check(longest, &e), 0);
	longest[JR_LIVE_NAME_MAX] = 'a';
	longest[JR_LIVE_NAME_MAX + 1] = '\0';
	assert_int_equal(jr_live_name_check(longest, &e), -EINVAL);
}

/* The socket paths jailrun(1) names: root's under /run/jailrun, a
 * user's under $XDG_RUNTIME_DIR/jailrun, none without XDG_RUNTIME_DIR. */
static void test_socket_path(void **state)
{
	char p[108];
	struct jr_err e = { 0 };

	(void)state;
	assert_int_equal(jr_live_socket_path(0, NULL, "x", p, sizeof(p), &e),
			 0);
	assert_string_equal(p, "/run/jailrun/x.sock");
	assert_int_equal(
	    jr_live_socket_path(0, "/run/user/0", NULL, p, sizeof(p), &e), 0);
	assert_string_equal(p, "/run/jailrun");
	assert_int_equal(jr_live_socket_path(1000, "/run/user/1000", "box", p,
					     sizeof(p), &e),
			 0);
	assert_string_equal(p, "/run/user/1000/jailrun/box.sock");
	assert_int_equal(jr_live_socket_path(1000, NULL, "x", p, sizeof(p), &e),
			 -ENOENT);
	assert_non_null(strstr(e.msg, "XDG_RUNTIME_DIR"));
	assert_int_equal(
	    jr_live_socket_path(1000, "relative", "x", p, sizeof(p), &e),
	    -ENOENT);
	assert_int_equal(
	    jr_live_socket_path(1000, "/run/user/1000", "box", p, 20, &e),
	    -ENAMETOOLONG);
	/* --ask's own policy socket, beside NAME.sock */
	assert_int_equal(jr_live_control_path(0, NULL, "x", p, sizeof(p), &e),
			 0);
	assert_string_equal(p, "/run/jailrun/x.ctl");
	assert_int_equal(jr_live_control_path(1000, "/run/user/1000", "box", p,
					      sizeof(p), &e),
			 0);
	assert_string_equal(p, "/run/user/1000/jailrun/box.ctl");
	assert_int_equal(
	    jr_live_control_path(1000, NULL, "x", p, sizeof(p), &e), -ENOENT);
	assert_int_equal(
	    jr_live_control_path(1000, "/run/user/1000", "box", p, 30, &e),
	    -ENAMETOOLONG);
	assert_non_null(strstr(e.msg, "box.ctl"));
	/* what a sandbox says after its start returned, beside NAME.sock */
	assert_int_equal(jr_live_log_path(0, NULL, "x", p, sizeof(p), &e), 0);
	assert_string_equal(p, "/run/jailrun/x.log");
	assert_int_equal(
	    jr_live_log_path(1000, "/run/user/1000", "box", p, sizeof(p), &e),
	    0);
	assert_string_equal(p, "/run/user/1000/jailrun/box.log");
	assert_int_equal(jr_live_log_path(1000, NULL, "x", p, sizeof(p), &e),
			 -ENOENT);
	assert_int_equal(
	    jr_live_log_path(1000, "/run/user/1000", "box", p, 30, &e),
	    -ENAMETOOLONG);
	assert_non_null(strstr(e.msg, "log /run/user/1000/jailrun/box.log"));
}

/* An exec request round-trips: argv words with newlines, quotes and
 * empty words, env entries and the cwd come back as they went, in
 * order. An encoder that lost a word, merged two, or dropped the cwd
 * fails here. */
static void test_roundtrip(void **state)
{
	struct jr_err e = { 0 };
	int n;

	(void)state;
	memset(&in, 0, sizeof(in));
	in.type = JR_LIVE_EXEC;
	in.id = 7;
	in.argv[0] = "sh";
	in.argv[1] = "-c";
	in.argv[2] = "echo \"a\nb\" ''";
	in.argv[3] = "";
	in.argc = 4;
	in.env[0] = "A=1";
	in.env[1] = "EMPTY=";
	in.n_env = 2;
	in.cwd = "/tmp/x y";
	in.flags = JR_LIVE_F_TTY;
	n = jr_live_req_encode(&in, buf, sizeof(buf), &e);
	assert_true(n > 0);
	assert_int_equal(jr_live_req_decode(buf, (size_t)n, &out, &e), 0);
	assert_int_equal(out.type, JR_LIVE_EXEC);
	assert_int_equal(out.id, 7);
	assert_int_equal(out.argc, 4);
	for (size_t i = 0; i < 4; i++)
		assert_string_equal(out.argv[i], in.argv[i]);
	assert_null(out.argv[4]);
	assert_int_equal(out.n_env, 2);
	assert_string_equal(out.env[1], "EMPTY=");
	assert_string_equal(out.cwd, "/tmp/x y");
	assert_int_equal(out.flags, JR_LIVE_F_TTY);

	/* no cwd, no env */
	in.n_env = 0;
	in.cwd = NULL;
	n = jr_live_req_encode(&in, buf, sizeof(buf), &e);
	assert_int_equal(jr_live_req_decode(buf, (size_t)n, &out, &e), 0);
	assert_null(out.cwd);
	assert_int_equal(out.n_env, 0);

	/* the other requests carry no strings */
	memset(&in, 0, sizeof(in));
	in.type = JR_LIVE_SIGNAL;
	in.signo = 2;
	n = jr_live_req_encode(&in, buf, sizeof(buf), &e);
	assert_int_equal(n, (int)sizeof(struct jr_live_hdr));
	assert_int_equal(jr_live_req_decode(buf, (size_t)n, &out, &e), 0);
	assert_int_equal(out.signo, 2);
	in.type = JR_LIVE_STOP;
	n = jr_live_req_encode(&in, buf, sizeof(buf), &e);
	assert_int_equal(jr_live_req_decode(buf, (size_t)n, &out, &e), 0);
	assert_int_equal(out.type, JR_LIVE_STOP);
}

/* Encode a one-word exec of "true" for the tests to damage. */
static int good_exec(void)
{
	struct jr_err e = { 0 };

	memset(&in, 0, sizeof(in));
	in.type = JR_LIVE_EXEC;
	in.argv[0] = "true";
	in.argc = 1;
	in.env[0] = "K=V";
	in.n_env = 1;
	return jr_live_req_encode(&in, buf, sizeof(buf), &e);
}

static void set_hdr(size_t off, uint32_t v)
{
	memcpy(buf + off, &v, sizeof(v));
}

/* Damaged or lying messages are refused whole: a decoder that trusted
 * the counts (reading past the message), took a short message, ignored
 * trailing bytes, or let a bad --env or a relative cwd through fails. */
static void test_decode_bad(void **state)
{
	struct jr_err e = { 0 };
	int n;

	(void)state;
	n = good_exec();
	assert_int_equal(jr_live_req_decode(buf, (size_t)n, &out, &e), 0);
	/* too short for a head */
	assert_int_equal(jr_live_req_decode(buf, 8, &out, &e), -EBADMSG);
	/* a wrong magic */
	buf[0] ^= 1;
	assert_int_equal(jr_live_req_decode(buf, (size_t)n, &out, &e),
			 -EBADMSG);
	buf[0] ^= 1;
	/* a len that does not match what came */
	assert_int_equal(jr_live_req_decode(buf, (size_t)n - 1, &out, &e),
			 -EBADMSG);
	/* more argv words than there are strings */
	set_hdr(offsetof(struct jr_live_hdr, argc), 3);
	assert_int_equal(jr_live_req_decode(buf, (size_t)n, &out, &e),
			 -EBADMSG);
	/* no command */
	set_hdr(offsetof(struct jr_live_hdr, argc), 0);
	assert_int_equal(jr_live_req_decode(buf, (size_t)n, &out, &e),
			 -EBADMSG);
	/* fewer strings counted than sent: trailing bytes */
	set_hdr(offsetof(struct jr_live_hdr, argc), 1);
	set_hdr(offsetof(struct jr_live_hdr, n_env), 0);
	assert_int_equal(jr_live_req_decode(buf, (size_t)n, &out, &e),
			 -EBADMSG);
	/* an unknown flag; a flag on a request that takes none */
	n = good_exec();
	set_hdr(offsetof(struct jr_live_hdr, flags), 2);
	assert_int_equal(jr_live_req_decode(buf, (size_t)n, &out, &e),
			 -EBADMSG);
	memset(&in, 0, sizeof(in));
	in.type = JR_LIVE_STATUS;
	in.flags = JR_LIVE_F_TTY;
	n = jr_live_req_encode(&in, buf, sizeof(buf), &e);
	assert_int_equal(jr_live_req_decode(buf, (size_t)n, &out, &e),
			 -EBADMSG);
	/* an unknown type */
	n = good_exec();
	set_hdr(offsetof(struct jr_live_hdr, type), 99);
	assert_int_equal(jr_live_req_decode(buf, (size_t)n, &out, &e),
			 -EBADMSG);
	/* a string without its NUL at the end of the message */
	n = good_exec();
	buf[n - 1] = 'x';
	assert_int_equal(jr_live_req_decode(buf, (size_t)n, &out, &e),
			 -EBADMSG);
	/* a bad --env entry, a relative cwd, an empty command name */
	memset(&in, 0, sizeof(in));
	in.type = JR_LIVE_EXEC;
	in.argv[0] = "true";
	in.argc = 1;
	in.env[0] = "1X=y";
	in.n_env = 1;
	n = jr_live_req_encode(&in, buf, sizeof(buf), &e);
	assert_int_equal(jr_live_req_decode(buf, (size_t)n, &out, &e), -EINVAL);
	assert_non_null(strstr(e.msg, "--env '1X=y'"));
	in.n_env = 0;
	in.cwd = "tmp";
	n = jr_live_req_encode(&in, buf, sizeof(buf), &e);
	assert_int_equal(jr_live_req_decode(buf, (size_t)n, &out, &e), -EINVAL);
	in.cwd = NULL;
	in.argv[0] = "";
	n = jr_live_req_encode(&in, buf, sizeof(buf), &e);
	assert_int_equal(jr_live_req_decode(buf, (size_t)n, &out, &e), -EINVAL);
	/* a signal out of range; a STOP with strings */
	memset(&in, 0, sizeof(in));
	in.type = JR_LIVE_SIGNAL;
	in.signo = 0;
	n = jr_live_req_encode(&in, buf, sizeof(buf), &e);
	assert_int_equal(jr_live_req_decode(buf, (size_t)n, &out, &e), -EINVAL);
	n = good_exec();
	set_hdr(offsetof(struct jr_live_hdr, type), JR_LIVE_STOP);
	assert_int_equal(jr_live_req_decode(buf, (size_t)n, &out, &e),
			 -EBADMSG);
}

/* What does not fit is refused by the encoder with a message that says
 * what to do, never cut short. */
static void test_encode_limits(void **state)
{
	static char big[JR_LIVE_MSG_MAX];
	struct jr_err e = { 0 };

	(void)state;
	memset(big, 'x', sizeof(big) - 1);
	memset(&in, 0, sizeof(in));
	in.type = JR_LIVE_EXEC;
	in.argv[0] = big;
	in.argc = 1;
	assert_int_equal(jr_live_req_encode(&in, buf, sizeof(buf), &e), -E2BIG);
	assert_non_null(strstr(e.msg, "stdin"));
	in.argv[0] = "true";
	in.argc = JR_LIVE_ARGV_MAX + 1;
	assert_int_equal(jr_live_req_encode(&in, buf, sizeof(buf), &e), -E2BIG);
}

static void test_env_check(void **state)
{
	struct jr_err e = { 0 };

	(void)state;
	assert_int_equal(jr_live_env_check("A_1=x=y", &e), 0);
	assert_int_equal(jr_live_env_check("_=", &e), 0);
	assert_int_equal(jr_live_env_check("=x", &e), -EINVAL);
	assert_int_equal(jr_live_env_check("NOEQ", &e), -EINVAL);
	assert_int_equal(jr_live_env_check("A-B=1", &e), -EINVAL);
	assert_int_equal(jr_live_env_check("9A=1", &e), -EINVAL);
}

/* A pool's --json/--log: a check that missed --json=FILE or the word
 * after --log, or let a value without {n} through (N runners, one file),
 * fails; so does a replacement that missed a second {n} or the tail. */
static void test_pool_paths(void **state)
{
	char *ok[] = { "--net", "none", "--json", "/d/t-{n}.json",
		       "--log={n}.log" };
	char *no_n[] = { "--allow", "x:80", "--log", "/d/audit.log" };
	char *no_n_eq[] = { "--json=/d/sum.json" };
	char *not_path[] = { "--allow", "{n}" };
	char *ctl_ok[] = { "--control", "/r/c-{n}.sock" };
	char *ctl_no_n[] = { "--control=/r/c.sock" };
	char *ctl_fd[] = { "--control-fd", "3" };
	struct jr_err e = { 0 };
	const char *v = NULL;
	char *s;

	(void)state;
	assert_int_equal(jr_pool_check_paths(ok, 5, &e), 0);
	assert_true(jr_pool_path_value(ok, 3, &v));
	assert_string_equal(v, "/d/t-{n}.json");
	assert_true(jr_pool_path_value(ok, 4, &v));
	assert_string_equal(v, "{n}.log");
	assert_false(jr_pool_path_value(ok, 1, &v));
	assert_false(jr_pool_path_value(not_path, 1, &v));
	assert_int_equal(jr_pool_check_paths(no_n, 4, &e), -EINVAL);
	assert_non_null(strstr(e.msg, "/d/audit.log"));
	memset(&e, 0, sizeof(e));
	assert_int_equal(jr_pool_check_paths(no_n_eq, 1, &e), -EINVAL);
	assert_int_equal(jr_pool_check_paths(not_path, 2, &e), 0);
	/* N sandboxes on one --control socket: the second cannot bind it */
	assert_int_equal(jr_pool_check_paths(ctl_ok, 2, &e), 0);
	assert_true(jr_pool_path_value(ctl_ok, 1, &v));
	assert_string_equal(v, "/r/c-{n}.sock");
	assert_int_equal(jr_pool_check_paths(ctl_no_n, 1, &e), -EINVAL);
	assert_non_null(strstr(e.msg, "/r/c.sock"));
	memset(&e, 0, sizeof(e));
	assert_int_equal(jr_pool_check_paths(ctl_fd, 2, &e), -EINVAL);
	assert_non_null(strstr(e.msg, "--control-fd"));
	s = jr_pool_with_seq("--json=/d/{n}/t-{n}.json", 4294967295u);
	assert_non_null(s);
	assert_string_equal(s, "--json=/d/4294967295/t-4294967295.json");
	free(s);
	s = jr_pool_with_seq("{n}", 7);
	assert_string_equal(s, "7");
	free(s);
	s = jr_pool_with_seq("{n", 7);
	assert_string_equal(s, "{n");
	free(s);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_name),
		cmocka_unit_test(test_pool_paths),
		cmocka_unit_test(test_socket_path),
		cmocka_unit_test(test_roundtrip),
		cmocka_unit_test(test_decode_bad),
		cmocka_unit_test(test_encode_limits),
		cmocka_unit_test(test_env_check),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
