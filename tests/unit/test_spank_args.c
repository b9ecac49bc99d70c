// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * Unit tests for contrib/slurm/spank_args.c: the --jail-* values the Slurm
 * plugin accepts and refuses, the jailrun options they become, the
 * summary's file name, and jailrun-slurm-exec's argv.
 */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "spank_args.h"

static void test_values_refused(void **state)
{
	struct jrs_opts o = { 0 };
	char msg[256];

	assert_int_equal(jrs_opts_set(&o, JRS_NET, "bogus", msg, sizeof(msg)),
			 -EINVAL);
	assert_non_null(strstr(msg, "--jail-net: 'bogus' is not one of"));
	assert_int_equal(
	    jrs_opts_set(&o, JRS_ALLOW, "a.test,,b.test", msg, sizeof(msg)),
	    -EINVAL);
	assert_non_null(strstr(msg, "--jail-allow: an empty entry"));
	assert_int_equal(
	    jrs_opts_set(&o, JRS_ALLOW, "a.test,", msg, sizeof(msg)), -EINVAL);
	assert_int_equal(jrs_opts_set(&o, JRS_ALLOW, "", msg, sizeof(msg)),
			 -EINVAL);
	assert_non_null(strstr(msg, "--jail-allow: the value is empty"));
	assert_int_equal(jrs_opts_set(&o, JRS_ALLOW, "a.test\n--net\npublic",
				      msg, sizeof(msg)),
			 -EINVAL);
	assert_non_null(strstr(msg, "control character"));
	assert_int_equal(
	    jrs_opts_set(&o, JRS_PROFILE, "../etc/x", msg, sizeof(msg)),
	    -EINVAL);
	assert_int_equal(jrs_opts_set(&o, JRS_PROFILE, "a/b", msg, sizeof(msg)),
			 -EINVAL);
	assert_int_equal(
	    jrs_opts_set(&o, JRS_JSON, "rel/dir", msg, sizeof(msg)), -EINVAL);
	assert_non_null(
	    strstr(msg, "--jail-json: 'rel/dir' is not an absolute directory"));
	assert_int_equal(jrs_opts_set(&o, JRS_LOG, "log", msg, sizeof(msg)),
			 -EINVAL);
	assert_non_null(strstr(msg, "--jail-log: 'log' is not an absolute"));
	assert_int_equal(jrs_opts_set(&o, JRS_NOPTS, "x", msg, sizeof(msg)),
			 -EINVAL);
	assert_false(jrs_opts_any(&o));
}

static void test_options_built(void **state)
{
	struct jrs_opts o = { 0 };
	struct jrs_args a = { 0 };
	char msg[256];

	assert_int_equal(
	    jrs_opts_set(&o, JRS_ALLOW, "x.test", msg, sizeof(msg)), 0);
	/* Given again (slurmstepd sees an option twice): the last wins. */
	assert_int_equal(
	    jrs_opts_set(&o, JRS_ALLOW, "a.test,b.test:443", msg, sizeof(msg)),
	    0);
	assert_int_equal(jrs_opts_set(&o, JRS_NET, "none", msg, sizeof(msg)),
			 0);
	assert_int_equal(
	    jrs_opts_set(&o, JRS_PROFILE, "python", msg, sizeof(msg)), 0);
	assert_int_equal(
	    jrs_opts_set(&o, JRS_LANE, "model:8080", msg, sizeof(msg)), 0);
	assert_true(jrs_opts_any(&o));
	/* Without --jail-json and --jail-log: only the label names the task. */
	assert_int_equal(jrs_opts_args(&o, "7_1.0.0", &a), 0);
	assert_string_equal(a.text,
			    "--allow\na.test\n--allow\nb.test:443\n"
			    "--profile\npython\n--net\nnone\n"
			    "--lane\nmodel:8080\n--label\nslurm 7_1.0.0\n");
	jrs_args_free(&a);
	assert_int_equal(jrs_opts_set(&o, JRS_JSON, "/j", msg, sizeof(msg)), 0);
	assert_int_equal(jrs_opts_set(&o, JRS_LOG, "/l", msg, sizeof(msg)), 0);
	assert_int_equal(jrs_opts_args(&o, "7_1.0.0", &a), 0);
	assert_non_null(strstr(a.text, "--label\nslurm 7_1.0.0\n"
				       "--json\n/j/7_1.0.0.json\n"
				       "--log\n/l/7_1.0.0.log\n"));
	jrs_args_free(&a);
	/* A name that would put a control character into a path. */
	assert_int_equal(jrs_opts_args(&o, "\001", &a), -EINVAL);
	jrs_args_free(&a);
	jrs_opts_free(&o);
	assert_false(jrs_opts_any(&o));
}

static void test_task_name(void **state)
{
	char b[64];

	assert_int_equal(jrs_task_name(b, sizeof(b), "", "", 42, 0, 3), 0);
	assert_string_equal(b, "42.0.3");
	assert_int_equal(jrs_task_name(b, sizeof(b), "40", "7", 47, 1, 0), 0);
	assert_string_equal(b, "40_7.1.0");
	/* Not digits (the task's environment is the user's): the job id. */
	assert_int_equal(jrs_task_name(b, sizeof(b), "../x", "7", 47, 0, 0), 0);
	assert_string_equal(b, "47.0.0");
	assert_int_equal(jrs_task_name(b, sizeof(b), "", "", 5, 0xfffffffbU, 0),
			 0);
	assert_string_equal(b, "5.batch.0");
	assert_int_equal(jrs_task_name(b, 8, "", "", 123456, 0, 0),
			 -ENAMETOOLONG);
}

static void test_exec_argv(void **state)
{
	char *argv[] = { "/usr/libexec/jailrun/jailrun-slurm-exec", "-c",
			 "exit 3", NULL };
	char **v = jrs_exec_argv("/usr/bin/jailrun", "--net\nnone\n", "/bin/sh",
				 3, argv);

	assert_non_null(v);
	assert_string_equal(v[0], "/usr/bin/jailrun");
	assert_string_equal(v[1], "--net");
	assert_string_equal(v[2], "none");
	assert_string_equal(v[3], "--");
	assert_string_equal(v[4], "/bin/sh");
	assert_string_equal(v[5], "-c");
	assert_string_equal(v[6], "exit 3");
	assert_null(v[7]);
	free(v[1]);
	free(v);
	v = jrs_exec_argv("/usr/bin/jailrun", "", "/bin/true", 1, argv);
	assert_non_null(v);
	assert_string_equal(v[1], "--");
	assert_string_equal(v[2], "/bin/true");
	assert_null(v[3]);
	free(v);
	errno = 0;
	assert_null(
	    jrs_exec_argv("/usr/bin/jailrun", "--net\nnone", "/x", 1, argv));
	assert_int_equal(errno, EINVAL);
}

static void test_env_without_handover(void **state)
{
	char *env[] = { "PATH=/bin",
			"JAILRUN_SPANK_ARGS=--net\nnone\n",
			"JAILRUN_SPANK_ARGV0=/bin/sh",
			"HOME=/h",
			"JAILRUN_SPANK_JAILRUN=/usr/bin/jailrun",
			"JAILRUN_SPANK_ARGSX=kept",
			NULL };
	char **e = jrs_env_without_handover(env);

	assert_non_null(e);
	assert_string_equal(e[0], "PATH=/bin");
	assert_string_equal(e[1], "HOME=/h");
	assert_string_equal(e[2], "JAILRUN_SPANK_ARGSX=kept");
	assert_null(e[3]);
	free(e);
}

static void test_multi_prog(void **state)
{
	static const char mp[] = "srun\0-n\0002\0--multi-prog\0conf";
	static const char mpeq[] = "srun\0--multi-prog=yes\0conf";
	static const char plain[] = "srun\0-n\0001\0--multi-progress\0x";
	static const char cut[] = "srun\0--multi-pro";

	assert_true(jrs_cmdline_multi_prog(mp, sizeof(mp)));
	assert_true(jrs_cmdline_multi_prog(mpeq, sizeof(mpeq)));
	assert_false(jrs_cmdline_multi_prog(plain, sizeof(plain)));
	assert_false(jrs_cmdline_multi_prog(cut, sizeof(cut) - 1));
	assert_false(jrs_cmdline_multi_prog("", 0));
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_values_refused),
		cmocka_unit_test(test_options_built),
		cmocka_unit_test(test_task_name),
		cmocka_unit_test(test_exec_argv),
		cmocka_unit_test(test_env_without_handover),
		cmocka_unit_test(test_multi_prog),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
