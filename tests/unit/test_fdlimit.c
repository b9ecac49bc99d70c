// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * test_fdlimit.c - the descriptor budget for --max-conns and the sentence
 * that says it: 2 per connection + 64, the soft and hard limit as given,
 * the fix (ulimit -n / LimitNOFILE= to the need), and a lower --max-conns
 * only when it would fit the limit and is a real step down.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include <cmocka.h>

#include "fdlimit.h"

static void test_needed(void **state)
{
	(void)state;
	/* an idle tunnel is its two sockets; the runner's own on top */
	assert_int_equal(jr_fds_needed(0), 64);
	assert_int_equal(jr_fds_needed(1), 66);
	assert_int_equal(jr_fds_needed(2048), 4160);
	/* no overflow at the largest --max-conns */
	assert_true(jr_fds_needed(UINT32_MAX) == 2ULL * UINT32_MAX + 64);
}

static void test_explain_low_soft(void **state)
{
	char buf[512];
	int n;

	(void)state;
	n = jr_fds_explain(buf, sizeof(buf), 2048, 1024, 4096);
	assert_string_equal(
	    buf,
	    "--max-conns 2048 needs 4160 descriptors (2 per connection, an idle tunnel too, + 64 for the runner); the limit is 1024 (hard 4096): raise it (ulimit -n 4160, or LimitNOFILE=4160 in a systemd unit) or lower --max-conns to 480");
	assert_int_equal(n, (int)strlen(buf));
}

static void test_explain_no_lower(void **state)
{
	char buf[512];

	(void)state;
	/* Below what the runner itself needs: lowering cannot help. */
	jr_fds_explain(buf, sizeof(buf), 2048, 32, 32);
	assert_non_null(strstr(buf, "the limit is 32 (hard 32)"));
	assert_non_null(strstr(buf, "ulimit -n 4160"));
	assert_null(strstr(buf, "lower"));
	/* Room for one connection exactly. */
	jr_fds_explain(buf, sizeof(buf), 4, 66, 66);
	assert_non_null(strstr(buf, "or lower --max-conns to 1"));
	/* The limit holds --max-conns: nothing to lower (the shortage is
	 * elsewhere, e.g. pipes or the guard). */
	jr_fds_explain(buf, sizeof(buf), 100, 264, 264);
	assert_null(strstr(buf, "lower"));
}

static void test_explain_unlimited(void **state)
{
	char buf[512];

	(void)state;
	jr_fds_explain(buf, sizeof(buf), 10, 70, JR_FDS_UNLIMITED);
	assert_non_null(strstr(buf, "the limit is 70 (hard unlimited)"));
	assert_non_null(strstr(buf, "or lower --max-conns to 3"));
	jr_fds_explain(buf, sizeof(buf), 10, JR_FDS_UNLIMITED,
		       JR_FDS_UNLIMITED);
	assert_non_null(strstr(buf, "the limit is unlimited (hard unlimited)"));
	assert_null(strstr(buf, "lower"));
}

static void test_explain_truncated(void **state)
{
	char buf[16];
	int n;

	(void)state;
	memset(buf, 'x', sizeof(buf));
	n = jr_fds_explain(buf, sizeof(buf), 2048, 1024, 4096);
	assert_true(n > (int)sizeof(buf));
	assert_int_equal(strlen(buf), sizeof(buf) - 1);
	assert_string_equal(buf, "--max-conns 204");
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_needed),
		cmocka_unit_test(test_explain_low_soft),
		cmocka_unit_test(test_explain_no_lower),
		cmocka_unit_test(test_explain_unlimited),
		cmocka_unit_test(test_explain_truncated),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
