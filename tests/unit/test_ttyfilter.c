// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * Unit tests for ttyfilter.c: every rule of the table drops an example of
 * its sequence (and is the rule that counts it), what programs need in a
 * pane passes byte for byte, any split of the stream gives the same output
 * as one piece, strings are bounded, both terminators end them, and a
 * dropped sequence never splices its neighbours into a new one.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "ttyfilter.h"

#define S(lit) (const uint8_t *)(lit), sizeof(lit) - 1

/* Filter @in in one piece into a malloc'd buffer; *outlen its length. */
static uint8_t *filter(struct jr_ttyfilter *f, bool c1, const uint8_t *in,
		       size_t n, size_t *outlen)
{
	uint8_t *out = malloc(JR_TTYFILTER_OUT_MAX(n));

	assert_non_null(out);
	jr_ttyfilter_init(f, c1);
	*outlen = jr_ttyfilter_feed(f, in, n, out);
	assert_true(*outlen <= JR_TTYFILTER_OUT_MAX(n));
	return out;
}

static void expect(const uint8_t *in, size_t n, bool c1, const char *want)
{
	struct jr_ttyfilter f;
	size_t len;
	uint8_t *out = filter(&f, c1, in, n, &len);

	if (len != strlen(want) || memcmp(out, want, len) != 0) {
		fprintf(stderr, "got %zu bytes:", len);
		for (size_t i = 0; i < len; i++)
			fprintf(stderr, " %02x", out[i]);
		fprintf(stderr, "\nwant %zu bytes\n", strlen(want));
		fail();
	}
	free(out);
}

/* One example per rule, named by its `show`; between "A" and "B". */
static const struct {
	const char *show;
	const char *seq;
} examples[] = {
	{ "OSC 0, 1, 2", "\033]0;pwned\a" },
	{ "OSC 3", "\033]3;WM_NAME=x\a" },
	{ "OSC 4, 5, 6, 104, 105, 106", "\033]4;1;rgb:ff/00/00\033\\" },
	{ "OSC 7", "\033]7;file://host/etc\a" },
	{ "OSC 8", "\033]8;;file:///etc/passwd\033\\" },
	{ "OSC 9", "\033]9;6;\"Shell\"\a" },
	{ "OSC 10-19, 110-119", "\033]11;?\a" },
	{ "OSC 21", "\033]21;foreground=?\033\\" },
	{ "OSC 22", "\033]22;watch\a" },
	{ "OSC 46", "\033]46;/home/u/.bashrc\a" },
	{ "OSC 50", "\033]50;#+1\a" },
	{ "OSC 51", "\033]51;Efind-file \"~/.ssh\"\a" },
	{ "OSC 52", "\033]52;c;cm0gLXJmIH4K\a" },
	{ "OSC 99", "\033]99;;hello\033\\" },
	{ "OSC 133, 633", "\033]633;E;rm -rf ~\a" },
	{ "OSC 777", "\033]777;notify;t;b\a" },
	{ "OSC 1337", "\033]1337;File=name=eA==:eA==\a" },
	{ "OSC 5113", "\033]5113;ac=send;id=1\033\\" },
	{ "OSC 5522", "\033]5522;type=write\033\\" },
	{ "OSC 30001, 30101", "\033]30001\033\\" },
	{ "any other OSC", "\033]424242;x\a" },
	{ "DCS (ESC P)", "\033P$qm\033\\" },
	{ "SOS (ESC X)", "\033Xhello\033\\" },
	{ "PM (ESC ^)", "\033^hello\033\\" },
	{ "APC (ESC _)", "\033_Ga=T,t=f;L2V0Yy9wYXNzd2Q=\033\\" },
	{ "CSI ... t", "\033[21t" },
	{ "CSI ... i", "\033[5i" },
	{ "CSI 3 J", "\033[3J" },
	{ "CSI ... * y", "\033[1;1;1;1;1;1*y" },
	{ "CSI ... $ u", "\033[2$u" },
	{ "CSI ... $ |", "\033[132$|" },
	{ "CSI ... * |", "\033[72*|" },
	{ "CSI ? 3 h, CSI ? 3 l", "\033[?3h" },
	{ "CSI ... # P, # Q, # R", "\033[#R" },
	{ "ESC % ...", "\033%@" },
	{ "ENQ (0x05)", "\005" },
	{ "cut short, malformed or too long", "\033[1;2\030" },
};

static size_t rule_index(const char *show)
{
	for (size_t i = 0; i < jr_ttyfilter_rules_count; i++)
		if (!strcmp(jr_ttyfilter_rules[i].show, show))
			return i;
	fail_msg("no rule named '%s'", show);
	return 0;
}

static void test_every_rule_drops_its_example(void **state)
{
	(void)state;
	assert_int_equal(sizeof(examples) / sizeof(examples[0]),
			 jr_ttyfilter_rules_count);
	for (size_t i = 0; i < sizeof(examples) / sizeof(examples[0]); i++) {
		char in[256];
		struct jr_ttyfilter f;
		size_t len, r = rule_index(examples[i].show);
		uint8_t *out;
		const char *want = "AB";

		snprintf(in, sizeof(in), "A%sB", examples[i].seq);
		out = filter(&f, false, (const uint8_t *)in, strlen(in), &len);
		/* CAN cancels the sequence and is itself passed on. */
		if (strchr(examples[i].seq, '\030'))
			want = "A\030B";
		if (len != strlen(want) || memcmp(out, want, len))
			fail_msg("%s: not dropped (%zu bytes out)",
				 examples[i].show, len);
		if (f.dropped[r] != 1 || f.dropped_total != 1)
			fail_msg("%s: counted %llu times, %llu in all",
				 examples[i].show,
				 (unsigned long long)f.dropped[r],
				 (unsigned long long)f.dropped_total);
		free(out);
		/* The 8-bit C1 form (C2 xx) of each string introducer. */
		if (examples[i].seq[0] == '\033' &&
		    strchr("]PX^_", examples[i].seq[1])) {
			snprintf(in, sizeof(in), "A\xc2%c%sB",
				 examples[i].seq[1] + 0x40,
				 examples[i].seq + 2);
			out = filter(&f, false, (const uint8_t *)in, strlen(in),
				     &len);
			if (len != 2 || memcmp(out, "AB", 2) || !f.dropped[r])
				fail_msg("%s: C1 form not dropped",
					 examples[i].show);
			free(out);
		}
		/* And the CSI ones in 8-bit form. */
		if (!strncmp(examples[i].seq, "\033[", 2) &&
		    !strchr(examples[i].seq, '\030')) {
			snprintf(in, sizeof(in), "A\xc2\x9b%sB",
				 examples[i].seq + 2);
			out = filter(&f, false, (const uint8_t *)in, strlen(in),
				     &len);
			if (len != 2 || memcmp(out, "AB", 2))
				fail_msg("%s: C1 form not dropped",
					 examples[i].show);
			free(out);
		}
	}
}

/* What programs need in a pane passes unchanged. */
static void test_pane_sequences_pass(void **state)
{
	static const char *pass[] = {
		"\033[1;31mred\033[0m",
		"\033[38;2;10;20;30;48;5;17mtruecolour\033[m",
		"\033[38:2::10:20:30mcolon form\033[m",
		"\033[10;20H\033[2J\033[K\033[3A\033[5C",
		"\033[?1049h\033[?25l\033[?1000;1006h\033[?2004h",
		"\033[?1049l\033[?25h",
		"\033[1;24r\033[4l\033[2 q",
		"\033[6n",	/* DSR: cursor position, for line editors */
		"\033[5n",	/* DSR: status */
		"\033[c",	/* DA1 */
		"\033[>c",	/* DA2 */
		"\033[?2026$p", /* DECRQM */
		"\033[>0q",	/* XTVERSION */
		"\033[2J",	/* ED 2: clear the screen, not the scrollback */
		"\0337\0338\033=\033>\033M\033(0qqq\033(B\033c",
		"tab\there\r\nbell\a bs\b",
		"\xc2\x9b"
		"1mC1 CSI\xc2\x9b"
		"0m",
		"\xc2\x85 NEL, \xc2\x8d RI",
	};
	(void)state;
	for (size_t i = 0; i < sizeof(pass) / sizeof(pass[0]); i++)
		expect((const uint8_t *)pass[i], strlen(pass[i]), false,
		       pass[i]);
}

static void test_utf8_text_intact(void **state)
{
	const char *text =
	    "h\xc3\xa9llo w\xc3\xb6rld \xe2\x80\x94 \xe2\x9c\x93 "
	    "\xe6\x97\xa5\xe6\x9c\xac \xf0\x9f\x99\x82 \xe2\x9d\xaf "
	    "\xef\xbf\xbd \xf4\x8f\xbf\xbf";

	(void)state;
	expect((const uint8_t *)text, strlen(text), false, text);
	/* An 8-bit terminal would read 0x9f (APC) in the emoji and 0x9d
	 * (OSC) in U+276F as string introducers: U+FFFD for those two. */
	expect((const uint8_t *)text, strlen(text), true,
	       "h\xc3\xa9llo w\xc3\xb6rld \xe2\x80\x94 \xe2\x9c\x93 "
	       "\xe6\x97\xa5\xe6\x9c\xac \xef\xbf\xbd \xef\xbf\xbd "
	       "\xef\xbf\xbd \xf4\x8f\xbf\xbf");
	/* "Ý" is C3 9D: OSC to an 8-bit terminal. */
	expect(S("\xc3\x9d"
		 "52;c;eA==\a"),
	       true,
	       "\xef\xbf\xbd"
	       "52;c;eA==\a");
	expect(S("\xc3\x9d"), false, "\xc3\x9d");
}

/* Invalid UTF-8 becomes U+FFFD, so no terminal decodes a C1 from it. */
static void test_invalid_utf8(void **state)
{
	(void)state;
	/* A raw C1 OSC is invalid UTF-8: the text after it is text. */
	expect(S("\x9d"
		 "52;c;eA==\a"),
	       false,
	       "\xef\xbf\xbd"
	       "52;c;eA==\a");
	expect(S("\x9b"
		 "1m"),
	       false,
	       "\xef\xbf\xbd"
	       "1m");
	/* Overlong ESC and ']' (a lax decoder would see ESC ]). */
	expect(S("\xe0\x80\x9b\xc1\x9d"), false,
	       "\xef\xbf\xbd\xef\xbf\xbd\xef\xbf\xbd\xef\xbf\xbd"
	       "\xef\xbf\xbd");
	/* Cut short: one U+FFFD per maximal subpart, then a fresh start. */
	expect(S("\xe2\x9c"
		 "a\xf0\x9f\x99"
		 "\033[1m"),
	       false,
	       "\xef\xbf\xbd"
	       "a\xef\xbf\xbd\033[1m");
	/* Surrogates and beyond U+10FFFF. */
	expect(S("\xed\xa0\x80\xf4\x90\x80\x80"), false,
	       "\xef\xbf\xbd\xef\xbf\xbd\xef\xbf\xbd\xef\xbf\xbd"
	       "\xef\xbf\xbd\xef\xbf\xbd\xef\xbf\xbd");
}

static void test_terminators(void **state)
{
	(void)state;
	expect(S("a\033]52;c;eA==\abc"), false, "abc");
	expect(S("a\033]52;c;eA==\033\\bc"), false, "abc");
	expect(S("a\033]52;c;eA==\x9c"
		 "bc"),
	       false, "abc");
	expect(S("a\033]52;c;eA==\xc2\x9c"
		 "bc"),
	       false, "abc");
	expect(S("a\xc2\x9d"
		 "52;c;eA==\xc2\x9c"
		 "bc"),
	       false, "abc");
	/* BEL does not end a DCS; ST does. */
	expect(S("a\033Pq#0\a!\033\\bc"), false, "abc");
	/* CAN cancels a string; ESC + another byte ends it and starts a
	 * new sequence. */
	expect(S("a\033]0;t\030bc"), false, "abc");
	expect(S("a\033]0;t\033[1mbc"), false, "a\033[1mbc");
}

/* Dropping never splices the neighbours into a new sequence. */
static void test_no_splicing(void **state)
{
	(void)state;
	/* ESC ESC: the first ESC is cut short, and not written alone. */
	expect(S("\033\033]0;x\a]52;c;eA==\a"), false, "]52;c;eA==\a");
	expect(S("\033[1\033]0;x\a]52;\a"), false, "]52;\a");
	/* A UTF-8 lead, a dropped string, then continuation bytes. */
	expect(S("\xc2\033]0;x\a\x9d"
		 "52;\a"),
	       false,
	       "\xef\xbf\xbd\xef\xbf\xbd"
	       "52;\a");
	/* ENQ inside a CSI is dropped, the CSI kept. */
	expect(S("\033[1\005m"), false, "\033[1m");
	/* C0 inside a CSI is executed on the way: kept in place. */
	expect(S("\033[1\nm"), false, "\033[1\nm");
	/* A non-ASCII byte cuts a CSI short. */
	expect(S("\033[1\xc3\xa9m"), false, "\xc3\xa9m");
	/* Malformed: a private marker after a parameter. */
	expect(S("\033[1?3hx"), false, "x");
	/* DECCOLM hidden among other modes. */
	expect(S("\033[?25;3hx"), false, "x");
	expect(S("\033[?25;30hx"), false, "\033[?25;30hx");
	/* tmux passthrough: the DCS ends at the escaped ESC, the OSC 52
	 * inside is dropped on its own, and a bare ST is left. */
	expect(S("a\033Ptmux;\033\033]52;c;eA==\a\033\\b"), false, "a\033\\b");
}

/* Unterminated strings are swallowed without being kept, and given up
 * after JR_TTYFILTER_STRING_MAX bytes; long CSIs are dropped whole. */
static void test_bounded(void **state)
{
	size_t n = JR_TTYFILTER_STRING_MAX + 4096, len, total = 0;
	uint8_t *in = malloc(n), *out = malloc(JR_TTYFILTER_OUT_MAX(4096));
	struct jr_ttyfilter f;

	(void)state;
	assert_true(sizeof(struct jr_ttyfilter) < 4096);
	memcpy(in, "\033]52;c;", 7);
	memset(in + 7, 'A', n - 7);
	jr_ttyfilter_init(&f, false);
	for (size_t off = 0; off < n; off += 4096) {
		size_t k = n - off < 4096 ? n - off : 4096;

		len = jr_ttyfilter_feed(&f, in + off, k, out);
		for (size_t i = 0; i < len; i++)
			assert_int_equal(out[i], 'A');
		total += len;
	}
	/* ESC ] is the introducer; the limit's worth of string and the one
	 * byte that crossed it are gone; the rest is text. */
	assert_int_equal(total, n - 2 - JR_TTYFILTER_STRING_MAX - 1);
	assert_int_equal(f.dropped[rule_index("OSC 52")], 1);

	/* A CSI over JR_TTYFILTER_SEQ_MAX: dropped whole, up to its final. */
	memcpy(in, "\033[", 2);
	memset(in + 2, '1', 1000);
	memcpy(in + 1002, "mok", 3);
	jr_ttyfilter_init(&f, false);
	len = jr_ttyfilter_feed(&f, in, 1005, out);
	assert_int_equal(len, 2);
	assert_memory_equal(out, "ok", 2);
	assert_int_equal(
	    f.dropped[rule_index("cut short, malformed or too long")], 1);
	free(in);
	free(out);
}

static const char mixed[] =
    "plain \033[1;31mred\033[0m \xe2\x9c\x93 \xf0\x9f\x99\x82"
    "\033]0;title\a\033]52;c;eA==\033\\\033]8;;http://x/\033\\link"
    "\033]8;;\033\\\033Ptmux;\033\033]52;c;eA==\a\033\\\033[21t"
    "\033[6n\xc2\x9b"
    "1m\xc2\x9d"
    "2;t\xc2\x9c\x9d\xe2\x9c"
    "x"
    "\033%@\033[3J\033[?1049h\033_G;x\033\\\005end\033[1";

/* Feeding the stream in any two pieces, or byte by byte, gives the same
 * output as one piece. */
static void test_split_anywhere(void **state)
{
	size_t n = sizeof(mixed) - 1, whole_len, len;
	struct jr_ttyfilter f;
	uint8_t *whole;
	uint8_t out[JR_TTYFILTER_OUT_MAX(sizeof(mixed))];
	const uint8_t *in = (const uint8_t *)mixed;

	(void)state;
	for (int c1 = 0; c1 < 2; c1++) {
		whole = filter(&f, c1, in, n, &whole_len);
		for (size_t cut = 0; cut <= n; cut++) {
			jr_ttyfilter_init(&f, c1);
			len = jr_ttyfilter_feed(&f, in, cut, out);
			len +=
			    jr_ttyfilter_feed(&f, in + cut, n - cut, out + len);
			assert_int_equal(len, whole_len);
			assert_memory_equal(out, whole, len);
		}
		jr_ttyfilter_init(&f, c1);
		len = 0;
		for (size_t i = 0; i < n; i++)
			len += jr_ttyfilter_feed(&f, in + i, 1, out + len);
		assert_int_equal(len, whole_len);
		assert_memory_equal(out, whole, len);
		free(whole);
	}
	/* And the whole thing keeps only what belongs in a pane. */
	expect(in, n, false,
	       "plain \033[1;31mred\033[0m \xe2\x9c\x93 \xf0\x9f\x99\x82"
	       "link\033\\\033[6n\xc2\x9b"
	       "1m\xef\xbf\xbd\xef\xbf\xbd"
	       "x"
	       "\033[?1049hend");
}

static void test_locale(void **state)
{
	(void)state;
	assert_true(jr_ttyfilter_locale_utf8(NULL, NULL, "en_US.UTF-8"));
	assert_true(jr_ttyfilter_locale_utf8(NULL, "C.utf8", "C"));
	assert_true(jr_ttyfilter_locale_utf8("", "", "de_DE.utf8"));
	/* LC_ALL wins over LANG, as in setlocale(3). */
	assert_false(jr_ttyfilter_locale_utf8("C", NULL, "en_US.UTF-8"));
	assert_false(jr_ttyfilter_locale_utf8(NULL, NULL, "de_DE.ISO-8859-1"));
	assert_false(jr_ttyfilter_locale_utf8(NULL, NULL, NULL));
	assert_false(jr_ttyfilter_locale_utf8(NULL, NULL, "POSIX"));
}

static void test_describe(void **state)
{
	struct jr_ttyfilter f;
	char buf[256];
	size_t len;
	uint8_t *out;

	(void)state;
	out = filter(&f, false,
		     S("\033]52;c;eA==\a\033]0;a\a\033]2;b\a\033[21t"), &len);
	assert_int_equal(len, 0);
	assert_int_equal(jr_ttyfilter_describe(&f, buf, sizeof(buf)), 4);
	assert_string_equal(buf, "OSC 0, 1, 2 (2), OSC 52 (1), CSI ... t (1)");
	jr_ttyfilter_describe(&f, buf, 8);
	assert_int_equal(strlen(buf), 7);
	free(out);
}

/* jailrun(1), TERMINAL, lists every rule of the table. */
static void test_man_page_lists_every_rule(void **state)
{
	const char *top = getenv("JR_TOP_SRCDIR");
	char path[4096], *text, *w, *section;
	FILE *fp;
	long size;

	(void)state;
	if (!top)
		top = ".";
	snprintf(path, sizeof(path), "%s/man/jailrun.1", top);
	fp = fopen(path, "r");
	if (!fp)
		skip();
	assert_int_equal(fseek(fp, 0, SEEK_END), 0);
	size = ftell(fp);
	rewind(fp);
	text = calloc(1, (size_t)size + 1);
	assert_non_null(text);
	assert_int_equal(fread(text, 1, (size_t)size, fp), (size_t)size);
	fclose(fp);
	/* roff's \- is a '-'. */
	for (w = text; *w; w++)
		if (w[0] == '\\' && w[1] == '-')
			memmove(w, w + 1, strlen(w + 1) + 1);
	section = strstr(text, "\n.SH TERMINAL\n");
	assert_non_null(section);
	w = strstr(section + 1, "\n.SH ");
	if (w)
		*w = '\0';
	for (size_t i = 0; i < jr_ttyfilter_rules_count; i++)
		if (!strstr(section, jr_ttyfilter_rules[i].show))
			fail_msg("jailrun.1, TERMINAL, does not list '%s'",
				 jr_ttyfilter_rules[i].show);
	free(text);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_every_rule_drops_its_example),
		cmocka_unit_test(test_pane_sequences_pass),
		cmocka_unit_test(test_utf8_text_intact),
		cmocka_unit_test(test_invalid_utf8),
		cmocka_unit_test(test_terminators),
		cmocka_unit_test(test_no_splicing),
		cmocka_unit_test(test_bounded),
		cmocka_unit_test(test_split_anywhere),
		cmocka_unit_test(test_locale),
		cmocka_unit_test(test_describe),
		cmocka_unit_test(test_man_page_lists_every_rule),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
