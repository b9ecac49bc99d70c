// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * Unit tests for log.c's budget (jr_log_set_budget(): a live sandbox's
 * NAME.log is a file on a tmpfs that no one rotates). Each test names the
 * broken budget it would catch.
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
#include <sys/mman.h>
#include <unistd.h>
#include <cmocka.h>

#include "log.h"

static int saved_stderr = -1;
static int mem = -1;

/* stderr into a memfd of its own for each test; the budget unlimited. */
static int setup(void **state)
{
	(void)state;
	fflush(stderr);
	saved_stderr = dup(STDERR_FILENO);
	mem = memfd_create("log", MFD_CLOEXEC);
	if (saved_stderr < 0 || mem < 0 || dup2(mem, STDERR_FILENO) < 0)
		return -1;
	jr_log_set_level(JR_LOG_INFO);
	jr_log_set_budget(SIZE_MAX);
	return 0;
}

static int teardown(void **state)
{
	(void)state;
	jr_log_set_budget(SIZE_MAX);
	dup2(saved_stderr, STDERR_FILENO);
	close(saved_stderr);
	close(mem);
	return 0;
}

/* What was written to stderr since setup(), NUL-terminated (static);
 * stderr is back where it was, so that a failed assertion is seen. */
static const char *written(void)
{
	static char text[8192];
	ssize_t n = pread(mem, text, sizeof(text) - 1, 0);

	dup2(saved_stderr, STDERR_FILENO);
	assert_true(n >= 0);
	text[n] = '\0';
	return text;
}

static size_t count(const char *text, const char *needle)
{
	size_t n = 0;

	for (const char *p = text; (p = strstr(p, needle)); p += strlen(needle))
		n++;
	return n;
}

/* Without a budget every message is written whole: a default budget
 * that dropped messages fails. */
static void test_unlimited(void **state)
{
	const char *text;

	(void)state;
	for (int i = 0; i < 100; i++)
		jr_warn("message %d", i);
	text = written();
	assert_int_equal(count(text, "jailrun: warning: message "), 100);
	assert_null(strstr(text, "log is full"));
}

/* 20 bytes a message ("jailrun: message NN\n"): a budget of 100 holds 5
 * whole ones; the sixth is dropped and replaced by one notice, and no
 * later message gets through, nor a second notice. A budget that wrote
 * past itself, cut a message, or said "full" twice fails. */
static void test_budget(void **state)
{
	const char *text;

	(void)state;
	jr_log_set_budget(100);
	for (int i = 10; i < 30; i++)
		jr_info("message %d", i);
	text = written();
	assert_int_equal(count(text, "jailrun: message "), 5);
	assert_non_null(strstr(text, "jailrun: message 14\n"));
	assert_null(strstr(text, "message 15"));
	assert_int_equal(count(text, "the log is full"), 1);
	/* The messages, then the notice last. */
	assert_string_equal(
	    text + 5 * 20,
	    "jailrun: warning: the log is full: later messages are dropped\n");
}

/* A message below the level takes nothing of the budget: one that
 * counted unwritten debug lines would drop the warning that matters. */
static void test_level_before_budget(void **state)
{
	(void)state;
	jr_log_set_budget(40);
	for (int i = 0; i < 50; i++)
		jr_debug("not shown %d", i);
	jr_error("what matters");
	assert_string_equal(written(), "jailrun: what matters\n");
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(test_unlimited, setup,
						teardown),
		cmocka_unit_test_setup_teardown(test_budget, setup, teardown),
		cmocka_unit_test_setup_teardown(test_level_before_budget, setup,
						teardown),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
