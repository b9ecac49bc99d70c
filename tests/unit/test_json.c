// SPDX-License-Identifier: GPL-2.0-or-later
/* Unit tests for json.c: structure, escaping, invalid UTF-8, misuse. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>
#include <cmocka.h>

#include "json.h"

static void test_nesting(void **state)
{
	struct jr_json j;

	jr_json_init(&j);
	jr_json_object_begin(&j);
	jr_json_key(&j, "a");
	jr_json_int(&j, -5);
	jr_json_key(&j, "b");
	jr_json_array_begin(&j);
	jr_json_uint(&j, 18446744073709551615ULL);
	jr_json_bool(&j, true);
	jr_json_null(&j);
	jr_json_object_begin(&j);
	jr_json_object_end(&j);
	jr_json_array_end(&j);
	jr_json_key(&j, "c");
	jr_json_string(&j, NULL);
	jr_json_object_end(&j);
	assert_string_equal(
	    jr_json_finish(&j),
	    "{\"a\":-5,\"b\":[18446744073709551615,true,null,{}],\"c\":null}");
	jr_json_release(&j);
}

static const char *render(struct jr_json *j, const char *s)
{
	jr_json_init(j);
	jr_json_string(j, s);
	return jr_json_finish(j);
}

static void test_escaping(void **state)
{
	struct jr_json j;

	assert_string_equal(render(&j, "a\"b\\c\nd\te\x01\x7f"),
			    "\"a\\\"b\\\\c\\nd\\te\\u0001\\u007f\"");
	jr_json_release(&j);
	/* valid UTF-8 passes through untouched */
	assert_string_equal(
	    render(&j, "h\xc3\xa9 \xe2\x82\xac \xf0\x9f\x98\x80"),
	    "\"h\xc3\xa9 \xe2\x82\xac \xf0\x9f\x98\x80\"");
	jr_json_release(&j);
	/* invalid: lone continuation, overlong, surrogate, truncated */
	assert_string_equal(
	    render(&j, "\x80|\xc0\xaf|\xed\xa0\x80|\xe2\x82"),
	    "\"\\ufffd|\\ufffd\\ufffd|\\ufffd\\ufffd\\ufffd|\\ufffd\\ufffd\"");
	jr_json_release(&j);
}

static void test_misuse_is_reported(void **state)
{
	struct jr_json j;

	jr_json_init(&j);
	jr_json_object_begin(&j);
	assert_null(jr_json_finish(&j)); /* unbalanced */
	jr_json_release(&j);

	jr_json_init(&j);
	jr_json_array_end(&j);
	assert_null(jr_json_finish(&j)); /* close without open */
	jr_json_release(&j);

	jr_json_init(&j);
	jr_json_object_begin(&j);
	jr_json_key(&j, "k");
	jr_json_object_end(&j); /* key without value */
	assert_null(jr_json_finish(&j));
	jr_json_release(&j);

	jr_json_init(&j);
	for (int i = 0; i < JR_JSON_MAX_DEPTH + 2; i++)
		jr_json_array_begin(&j);
	assert_null(jr_json_finish(&j)); /* too deep */
	jr_json_release(&j);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_nesting),
		cmocka_unit_test(test_escaping),
		cmocka_unit_test(test_misuse_is_reported),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
