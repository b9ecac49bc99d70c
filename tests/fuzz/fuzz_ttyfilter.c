// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * fuzz_ttyfilter.c - libFuzzer target: jr_ttyfilter_feed().
 *
 *   clang -g -O1 -fsanitize=fuzzer,address,undefined -Isrc \
 *     src/sandbox/ttyfilter.c src/sandbox/ttymodes.c tests/fuzz/fuzz_ttyfilter.c \
 *     -o fuzz_ttyfilter
 *   ./fuzz_ttyfilter tests/fuzz/corpus/ttyfilter
 *
 * The first byte picks the mode (bit 0: c1_terminal) and seeds the chunk
 * sizes; the rest is what the sandbox writes. Besides memory errors, it
 * aborts when:
 *  - the output fed in chunks differs from the output fed whole;
 *  - a call writes more than JR_TTYFILTER_OUT_MAX of its input;
 *  - the output is not valid UTF-8;
 *  - a terminal reading the output would start a string (ESC ] P X ^ _,
 *    with C0 controls between as a VT parser allows, or U+0090/98/9D/9E/9F),
 *    or, in c1 mode, meet a raw C1 introducer byte other than C2 9B;
 *  - filtering the output again changes it (so every sequence let through
 *    is one the table lets through);
 *  - the output without the U+FFFD it added is not a subsequence of the
 *    input (the filter invents nothing else);
 *  - the per-rule counters do not add up;
 *  - the modes to reset at exit (ttymodes.c) differ between whole and
 *    chunked, or between the input and the filter's own output (the
 *    modes are those of what passed), or the reset does not fit.
 */
#include <stdlib.h>
#include <string.h>

#include "ttyfilter.h"
#include "fuzz.h"

static size_t run(bool c1, const uint8_t *in, size_t n, uint8_t *out,
		  unsigned seed, struct jr_ttyfilter *f)
{
	size_t off = 0, len = 0;

	jr_ttyfilter_init(f, c1);
	while (off < n) {
		size_t k = seed ? 1 + (seed + off * 7) % 13 : n - off, w;

		if (k > n - off)
			k = n - off;
		w = jr_ttyfilter_feed(f, in + off, k, out + len);
		check(w <= JR_TTYFILTER_OUT_MAX(k));
		len += w;
		off += k;
	}
	return len;
}

/* Strict UTF-8 (Unicode table 3-7), without string introducers: no
 * U+0090/98/9D/9E/9F, and in c1 mode no such raw byte either. */
static void check_utf8(const uint8_t *s, size_t n, bool c1_terminal)
{
	for (size_t i = 0; i < n;) {
		uint8_t b = s[i];
		size_t need = 1;
		uint8_t lo = 0x80, hi = 0xbf;

		if (b >= 0xc2 && b <= 0xdf)
			need = 2;
		else if (b >= 0xe0 && b <= 0xef)
			need = 3, lo = b == 0xe0 ? 0xa0 : 0x80,
			hi = b == 0xed ? 0x9f : 0xbf;
		else if (b >= 0xf0 && b <= 0xf4)
			need = 4, lo = b == 0xf0 ? 0x90 : 0x80,
			hi = b == 0xf4 ? 0x8f : 0xbf;
		else
			check(b < 0x80);
		check(i + need <= n);
		for (size_t k = 1; k < need; k++) {
			check(s[i + k] >= (k == 1 ? lo : 0x80) &&
			      s[i + k] <= (k == 1 ? hi : 0xbf));
			/* An 8-bit terminal's string introducers. */
			if (c1_terminal && !(need == 2 && b == 0xc2))
				check(!strchr("\x90\x98\x9b\x9d\x9e\x9f",
					      s[i + k]) ||
				      !s[i + k]);
		}
		if (need == 2 && b == 0xc2)
			check(!strchr("\x90\x98\x9d\x9e\x9f", s[i + 1]) ||
			      !s[i + 1]);
		i += need;
	}
}

/* No ESC ] P X ^ _, even with C0 controls between ESC and the byte. */
static void check_no_string(const uint8_t *s, size_t n)
{
	for (size_t i = 0; i < n; i++) {
		size_t k;

		if (s[i] != 0x1b)
			continue;
		for (k = i + 1; k < n && s[k] < 0x20 && s[k] != 0x1b &&
				s[k] != 0x18 && s[k] != 0x1a;
		     k++)
			;
		if (k < n)
			check(!strchr("]PX^_", s[k]) || !s[k]);
	}
}

static void check_subsequence(const uint8_t *out, size_t len, const uint8_t *in,
			      size_t n)
{
	size_t j = 0;

	for (size_t i = 0; i < len; i++) {
		if (i + 2 < len && out[i] == 0xef && out[i + 1] == 0xbf &&
		    out[i + 2] == 0xbd) {
			i += 2;
			continue;
		}
		while (j < n && in[j] != out[i])
			j++;
		check(j < n);
		j++;
	}
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct jr_ttyfilter f, g;
	char reset[JR_TTYMODES_RESET_MAX], reset2[JR_TTYMODES_RESET_MAX];
	uint8_t *whole, *chunked, *again;
	size_t n, len, len2, len3;
	uint64_t sum = 0;
	bool c1;

	if (!size)
		return 0;
	c1 = data[0] & 1;
	data++;
	n = size - 1;
	whole = malloc(JR_TTYFILTER_OUT_MAX(n));
	chunked = malloc(JR_TTYFILTER_OUT_MAX(n) * 2);
	again = malloc(JR_TTYFILTER_OUT_MAX(JR_TTYFILTER_OUT_MAX(n)));
	check(whole && chunked && again);

	len = run(c1, data, n, whole, 0, &f);
	len2 = run(c1, data, n, chunked, 1u + data[-1], &g);
	check(len == len2 && !memcmp(whole, chunked, len));
	check(jr_ttymodes_reset(&f.modes, reset) < sizeof(reset));
	check(jr_ttymodes_reset(&g.modes, reset2) < sizeof(reset2));
	check(!strcmp(reset, reset2));
	check(f.dropped_total == g.dropped_total);
	for (size_t i = 0; i < jr_ttyfilter_rules_count; i++)
		sum += f.dropped[i];
	check(sum == f.dropped_total);

	check_utf8(whole, len, c1);
	check_no_string(whole, len);
	check_subsequence(whole, len, data, n);

	len3 = run(c1, whole, len, again, 0, &g);
	check(len3 == len && !memcmp(again, whole, len));
	jr_ttymodes_reset(&g.modes, reset2);
	check(!strcmp(reset, reset2));

	free(whole);
	free(chunked);
	free(again);
	return 0;
}
