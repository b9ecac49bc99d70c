// SPDX-License-Identifier: GPL-2.0-or-later
/* Unit tests for runid.c and the wall-clock stamp of clock.c: the names a
 * rig files runs by (the summary's "run_id", "started_at"). */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>
#include <cmocka.h>

#include "clock.h"
#include "runid.h"

static void test_format(void **state)
{
	uint8_t b[JR_RUN_ID_BYTES];
	char out[JR_RUN_ID_SIZE];

	for (size_t i = 0; i < sizeof(b); i++)
		b[i] = (uint8_t)(i * 0x11);
	memset(out, 'X', sizeof(out));
	jr_run_id_format(b, out);
	assert_string_equal(out, "00112233445566778899aabbccddeeff");
	memset(b, 0xff, sizeof(b));
	jr_run_id_format(b, out);
	assert_string_equal(out, "ffffffffffffffffffffffffffffffff");
}

/* 32 lower-case hex digits, and a fresh one each time. */
static void test_new(void **state)
{
	char a[JR_RUN_ID_SIZE], b[JR_RUN_ID_SIZE];
	struct jr_err e = { 0 };

	assert_int_equal(jr_run_id_new(a, &e), 0);
	assert_int_equal(jr_run_id_new(b, &e), 0);
	assert_int_equal(strlen(a), 32);
	assert_int_equal(strspn(a, "0123456789abcdef"), 32);
	assert_string_not_equal(a, b);
}

/* RFC 3339 section 5.6, UTC ("Z"), milliseconds always three digits. */
static void test_utc(void **state)
{
	char out[JR_CLOCK_UTC_SIZE];
	uint64_t now = jr_clock_unix_ms();

	jr_clock_format_utc(0, out);
	assert_string_equal(out, "1970-01-01T00:00:00.000Z");
	jr_clock_format_utc(1795953600123ULL, out);
	assert_string_equal(out, "2026-11-29T12:00:00.123Z");
	jr_clock_format_utc(951782400007ULL, out); /* a leap day */
	assert_string_equal(out, "2000-02-29T00:00:00.007Z");
	/* past year 9999: a fixed stamp, never a cut-off one */
	jr_clock_format_utc(253402300800000ULL, out);
	assert_string_equal(out, "9999-12-31T23:59:59.999Z");
	/* the wall clock, not the monotonic one: after 2020 */
	assert_true(now > 1577836800000ULL);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_format),
		cmocka_unit_test(test_new),
		cmocka_unit_test(test_utc),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
