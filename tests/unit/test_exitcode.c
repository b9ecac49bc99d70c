// SPDX-License-Identifier: GPL-2.0-or-later
/* Unit tests for exitcode.c, using real wait statuses from real children. */
#include <errno.h>
#include <setjmp.h>
#include <signal.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/wait.h>
#include <unistd.h>
#include <cmocka.h>

#include "exitcode.h"

static int status_of_child(int how, int arg)
{
	int status;
	pid_t p = fork();

	assert_true(p >= 0);
	if (p == 0) {
		if (how == 0)
			_exit(arg);
		signal(arg, SIG_DFL);
		raise(arg);
		_exit(99);
	}
	assert_int_equal(waitpid(p, &status, 0), p);
	return status;
}

static void test_exit_codes(void **state)
{
	assert_int_equal(jr_exit_code_from_wait_status(status_of_child(0, 0)),
			 0);
	assert_int_equal(jr_exit_code_from_wait_status(status_of_child(0, 3)),
			 3);
	assert_int_equal(jr_exit_code_from_wait_status(status_of_child(0, 125)),
			 125);
	assert_int_equal(jr_exit_code_from_wait_status(status_of_child(0, 255)),
			 255);
}

static void test_signals(void **state)
{
	assert_int_equal(
	    jr_exit_code_from_wait_status(status_of_child(1, SIGKILL)), 137);
	assert_int_equal(
	    jr_exit_code_from_wait_status(status_of_child(1, SIGTERM)), 143);
	assert_int_equal(
	    jr_exit_code_from_wait_status(status_of_child(1, SIGINT)), 130);
}

static void test_exec_errno(void **state)
{
	assert_int_equal(jr_exit_code_from_exec_errno(ENOENT), 127);
	assert_int_equal(jr_exit_code_from_exec_errno(ENOTDIR), 127);
	assert_int_equal(jr_exit_code_from_exec_errno(EACCES), 126);
	assert_int_equal(jr_exit_code_from_exec_errno(ENOEXEC), 126);
	assert_int_equal(jr_exit_code_from_exec_errno(EPERM), 126);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_exit_codes),
		cmocka_unit_test(test_signals),
		cmocka_unit_test(test_exec_errno),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
