// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * test_buf.c - jr_buf_reserve(): first size, doubling, the limit, and an
 * unchanged buffer when it refuses.
 */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "buf.h"

static void test_first_then_doubling(void **state)
{
	char *b = NULL;
	size_t cap = 0;

	(void)state;
	assert_int_equal(jr_buf_reserve(&b, &cap, 1, 16, SIZE_MAX), 0);
	assert_non_null(b);
	assert_int_equal(cap, 16);
	/* Enough room already: nothing moves. */
	assert_int_equal(jr_buf_reserve(&b, &cap, 16, 16, SIZE_MAX), 0);
	assert_int_equal(cap, 16);
	memset(b, 'x', cap);
	assert_int_equal(jr_buf_reserve(&b, &cap, 17, 16, SIZE_MAX), 0);
	assert_int_equal(cap, 32);
	/* Several doublings at once for a big append; contents kept. */
	assert_int_equal(jr_buf_reserve(&b, &cap, 200, 16, SIZE_MAX), 0);
	assert_int_equal(cap, 256);
	assert_int_equal(b[15], 'x');
	free(b);
}

static void test_limit(void **state)
{
	char *b = NULL, *before;
	size_t cap = 0;

	(void)state;
	/* A first size above the limit is cut to it. */
	assert_int_equal(jr_buf_reserve(&b, &cap, 10, 4096, 514), 0);
	assert_int_equal(cap, 514);
	free(b);

	b = NULL;
	cap = 0;
	assert_int_equal(jr_buf_reserve(&b, &cap, 300, 256, 300), 0);
	/* Doubling stops at the limit, not past it. */
	assert_int_equal(cap, 300);
	before = b;
	assert_int_equal(jr_buf_reserve(&b, &cap, 301, 256, 300), -E2BIG);
	assert_ptr_equal(b, before);
	assert_int_equal(cap, 300);
	free(b);
}

static void test_zero_first(void **state)
{
	char *b = NULL;
	size_t cap = 0;

	(void)state;
	assert_int_equal(jr_buf_reserve(&b, &cap, 5, 0, SIZE_MAX), 0);
	assert_true(cap >= 5);
	free(b);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_first_then_doubling),
		cmocka_unit_test(test_limit),
		cmocka_unit_test(test_zero_first),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
