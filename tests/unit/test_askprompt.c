// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * Unit tests for askprompt_text.c, the pure part of --ask tty: reading
 * the oldest request of the relay's "pending" answer, the prompt's words,
 * and what each key decides. Each test names the bug it would catch.
 */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>
#include <cmocka.h>

#include "askprompt_text.h"

static int first(const char *s, struct jr_askprompt_req *q)
{
	return jr_askprompt_first(s, strlen(s), q);
}

/* The first entry, not the last, and a lookup's null port: a reader that
 * took the newest request or misread null fails here. */
static void test_first(void **state)
{
	struct jr_askprompt_req q;

	(void)state;
	assert_int_equal(
	    first("{\"ok\":true,\"op\":\"pending\",\"pending\":["
		  "{\"id\":\"3\",\"host\":\"x.test\",\"port\":443,"
		  "\"via\":\"proxy\",\"age_ms\":12},"
		  "{\"id\":\"4\",\"host\":\"y.test\",\"port\":null,"
		  "\"via\":\"dns\",\"age_ms\":1}]}",
		  &q),
	    1);
	assert_true(q.id == 3);
	assert_string_equal(q.host, "x.test");
	assert_int_equal(q.port, 443);
	assert_string_equal(q.via, "proxy");
	assert_int_equal(
	    first("{\"ok\":true,\"op\":\"pending\",\"pending\":["
		  "{\"id\":\"18446744073709551615\",\"host\":\"y.test\","
		  "\"port\":null,\"via\":\"dns\",\"age_ms\":1}]}",
		  &q),
	    1);
	assert_true(q.id == UINT64_MAX);
	assert_int_equal(q.port, 0);
	assert_int_equal(
	    first("{\"ok\":true,\"op\":\"pending\",\"pending\":[]}", &q), 0);
}

/* Answers of another shape are refused, never half read: an error answer,
 * escapes, a port out of range, an id of 0 or overflowing, no end. */
static void test_first_bad(void **state)
{
	static const char *const bad[] = {
		"{\"ok\":false,\"error\":\"this run holds no requests\"}",
		"{\"ok\":true,\"op\":\"status\"}",
		"{\"ok\":true,\"pending\":[{\"id\":\"3\",\"host\":\"x\\u0007\","
		"\"port\":1,\"via\":\"proxy\"}]}",
		"{\"ok\":true,\"pending\":[{\"id\":\"3\",\"host\":\"x\","
		"\"port\":65536,\"via\":\"proxy\"}]}",
		"{\"ok\":true,\"pending\":[{\"id\":\"0\",\"host\":\"x\","
		"\"port\":1,\"via\":\"proxy\"}]}",
		"{\"ok\":true,\"pending\":[{\"id\":\"18446744073709551616\","
		"\"host\":\"x\",\"port\":1,\"via\":\"proxy\"}]}",
		"{\"ok\":true,\"pending\":[{\"id\":\"3\",\"host\":\"x\","
		"\"port\":1,\"via\":\"proxy\"",
		"{\"ok\":true,\"pending\":[{\"id\":\"3\",\"host\":\"\","
		"\"port\":1,\"via\":\"proxy\"}]}",
		"{\"ok\":true,\"pending\":[{\"id\":\"3\",\"port\":1,"
		"\"via\":\"proxy\"}]}",
	};
	struct jr_askprompt_req q;

	(void)state;
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++)
		assert_int_equal(first(bad[i], &q), -EINVAL);
}

/* The words of the brief, a lookup's form, an IPv6 literal in brackets,
 * and only printable ASCII on the terminal. */
static void test_format(void **state)
{
	struct jr_askprompt_req q = { .id = 1, .port = 443, .via = "proxy" };
	char buf[512];

	(void)state;
	strcpy(q.host, "x.test");
	jr_askprompt_format(&q, buf, sizeof(buf));
	assert_string_equal(buf,
			    "\r\njailrun: the command asks for x.test:443 (via "
			    "proxy): allow [o]nce, [a]lways, or [d]eny? ");
	q.port = 0;
	strcpy(q.via, "dns");
	jr_askprompt_format(&q, buf, sizeof(buf));
	assert_string_equal(buf,
			    "\r\njailrun: the command asks for x.test (DNS "
			    "lookup): allow [o]nce, [a]lways, or [d]eny? ");
	q.port = 80;
	strcpy(q.via, "transparent");
	strcpy(q.host, "2001:db8::1");
	jr_askprompt_format(&q, buf, sizeof(buf));
	assert_non_null(strstr(buf, "[2001:db8::1]:80 (via transparent)"));
	strcpy(q.host, "a\033]52;c;x\007b\x9b");
	jr_askprompt_format(&q, buf, sizeof(buf));
	assert_non_null(strstr(buf, "a?]52;c;x?b?:80"));
	for (size_t i = 0; buf[i]; i++)
		assert_true(buf[i] == '\r' || buf[i] == '\n' ||
			    (buf[i] >= 0x20 && buf[i] < 0x7f));
	/* Truncation keeps the buffer terminated. */
	assert_int_equal(jr_askprompt_format(&q, buf, 8), 7);
	assert_int_equal(strlen(buf), 7);
}

/* Each key's decision; anything else asks again (Enter, a space, Ctrl-C
 * must not approve). */
static void test_keys(void **state)
{
	(void)state;
	assert_int_equal(jr_askprompt_key('o'), JR_ASKPROMPT_ONCE);
	assert_int_equal(jr_askprompt_key('y'), JR_ASKPROMPT_ONCE);
	assert_int_equal(jr_askprompt_key('a'), JR_ASKPROMPT_ALWAYS);
	assert_int_equal(jr_askprompt_key('d'), JR_ASKPROMPT_DENY);
	assert_int_equal(jr_askprompt_key('n'), JR_ASKPROMPT_DENY);
	assert_int_equal(jr_askprompt_key('\r'), JR_ASKPROMPT_AGAIN);
	assert_int_equal(jr_askprompt_key(' '), JR_ASKPROMPT_AGAIN);
	assert_int_equal(jr_askprompt_key(3), JR_ASKPROMPT_AGAIN);
	assert_int_equal(jr_askprompt_key('x'), JR_ASKPROMPT_AGAIN);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_first),
		cmocka_unit_test(test_first_bad),
		cmocka_unit_test(test_format),
		cmocka_unit_test(test_keys),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
