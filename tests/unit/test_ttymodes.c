// SPDX-License-Identifier: GPL-2.0-or-later
/* Unit tests for ttymodes.c, fed through the terminal filter as the
 * runner does: what a command leaves set, and the reset written at exit. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "ttyfilter.h"
#include "ttymodes.h"

/* The reset after @out went through a fresh filter, in chunks of @chunk. */
static const char *reset_after(const char *output, size_t chunk)
{
	static char reset[JR_TTYMODES_RESET_MAX];
	static struct jr_ttyfilter f;
	uint8_t out[JR_TTYFILTER_OUT_MAX(4096)];
	size_t len = strlen(output);

	jr_ttyfilter_init(&f, false);
	for (size_t off = 0; off < len; off += chunk) {
		size_t n = len - off < chunk ? len - off : chunk;

		jr_ttyfilter_feed(&f, (const uint8_t *)output + off, n, out);
	}
	assert_true(jr_ttymodes_reset(&f.modes, reset) < sizeof(reset));
	return reset;
}

static void expect_reset(const char *output, const char *want)
{
	/* Whole, and byte by byte: the same. */
	if (strcmp(reset_after(output, 4096), want) != 0 ||
	    strcmp(reset_after(output, 1), want) != 0)
		fail_msg("after %s: reset %s, want %s", output,
			 reset_after(output, 4096), want);
}

static void test_nothing_set(void **state)
{
	(void)state;
	expect_reset("", "");
	expect_reset("plain text\r\n\033[1;1H\033[2J\033[K", "");
	/* a program that cleans up after itself */
	expect_reset("\033[?1049h\033[?25l\033[?1000h\033[?1006h"
		     "\033[?1006l\033[?1000l\033[?25h\033[?1049l",
		     "");
	expect_reset("\033[31mred\033[0m", "");
	expect_reset("\033[1m\033[m", "");
}

/* vim, less, htop, tmux: what they set while they run. */
static void test_full_screen_program(void **state)
{
	(void)state;
	expect_reset("\033[?1049h\033[?1h\033=\033[?25l\033[?1000h"
		     "\033[?1006h\033[?2004h\033[>4;2m",
		     "\033[?1049l\033[?1l\033[?25h\033[?1000l\033[?1006l"
		     "\033[?2004l\033>\033[>4m");
	/* several modes in one sequence */
	expect_reset("\033[?1002;1006;1004h", "\033[?1002l\033[?1004l"
					      "\033[?1006l");
	expect_reset("\033[?9h\033[?1001h\033[?1003h\033[?1005h\033[?1015h"
		     "\033[?1016h\033[?2026h",
		     "\033[?9l\033[?1001l\033[?1003l\033[?1005l\033[?1015l"
		     "\033[?1016l\033[?2026l");
	expect_reset("\033[?7l\033[4h", "\033[?7h\033[4l");
	expect_reset("\033[31mstill red", "\033[m");
	expect_reset("\033[0;31m", "\033[m");
}

/* Each alternate screen is left the way it was entered; leaving by
 * another number leaves it (no 1049 l then: it would restore a cursor). */
static void test_alt_screen(void **state)
{
	(void)state;
	expect_reset("\033[?47h", "\033[?47l");
	expect_reset("\033[?1047h", "\033[?1047l");
	expect_reset("\033[?1049h\033[?47h", "\033[?1049l");
	expect_reset("\033[?1049h\033[?47l", "");
}

static void test_charsets(void **state)
{
	(void)state;
	expect_reset("\033(0lqqk", "\033(B");
	expect_reset("\033(0lqqk\033(B", "");
	expect_reset("\033)0\016lqqk", "\017");
	expect_reset("\033)0\016lqqk\017", "");
	expect_reset("\033(0\016", "\033(B\017");
	expect_reset("\033n", "\017"); /* LS2 */
	expect_reset("\033(%5", "\033(B");
}

static void test_kitty_keyboard(void **state)
{
	(void)state;
	expect_reset("\033[>1u", "\033[<1u");
	expect_reset("\033[>1u\033[>11u", "\033[<2u");
	expect_reset("\033[>1u\033[>3u\033[<u", "\033[<1u");
	expect_reset("\033[>1u\033[<u", "");
	expect_reset("\033[>1u\033[<5u", ""); /* popped more than pushed */
	/* the caller's own entry changed */
	expect_reset("\033[=5;1u", "\033[=0;1u");
	expect_reset("\033[=0;1u", "");
	expect_reset("\033[>1u\033[=5;1u", "\033[<1u");
	expect_reset("\033[?u", ""); /* a query */
	/* the alternate screen's stack is popped on it, before leaving */
	expect_reset("\033[>1u\033[?1049h\033[>5u",
		     "\033[<1u\033[?1049l\033[<1u");
	expect_reset("\033[?1049h\033[>5u\033[?1049l", "");
}

/* RIS resets everything; the 8-bit CSI counts; a sequence the filter
 * dropped or cut never reached the terminal and does not count. */
static void test_filter_view(void **state)
{
	(void)state;
	expect_reset("\033[?1049h\033[?25l\033(0\033c", "");
	expect_reset("\302\233?25l", "\033[?25h");
	expect_reset("\033[?1049\033[?25l", "\033[?25h"); /* cut by ESC */
	expect_reset("\033[?1049\030", "");		  /* CAN */
	expect_reset("\033P[?1049h\033\\", "");		  /* inside a DCS */
	expect_reset("\033[!p", "");			  /* DECSTR */
	expect_reset("\033[?25\016l", "\033[?25h\017");	  /* SO on the way */
}

/* Everything at once fits. */
static void test_everything(void **state)
{
	(void)state;
	expect_reset("\033[=5;1u\033[>1u\033[?1049h\033[>1u\033[?1;7;9;25;"
		     "1000;1001;1002;1003;1004;1005;1006;1015;1016;2004;"
		     "2026h\033[?7l\033[?25l\033[4h\033=\033[>4;1m\033[1m"
		     "\033(0\016",
		     "\033[<1u\033[?1049l\033[<1u\033[=0;1u\033[?1l\033[?7h"
		     "\033[?9l\033[?25h\033[?1000l\033[?1001l\033[?1002l"
		     "\033[?1003l\033[?1004l\033[?1005l\033[?1006l"
		     "\033[?1015l\033[?1016l\033[?2004l\033[?2026l\033[4l"
		     "\033>\033[>4m\033[m\033(B\017");
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_nothing_set),
		cmocka_unit_test(test_full_screen_program),
		cmocka_unit_test(test_alt_screen),
		cmocka_unit_test(test_charsets),
		cmocka_unit_test(test_kitty_keyboard),
		cmocka_unit_test(test_filter_view),
		cmocka_unit_test(test_everything),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
