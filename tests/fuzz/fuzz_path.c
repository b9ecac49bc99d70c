// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * fuzz_path.c - libFuzzer target: the --allow-http path normaliser
 * (jr_httprules_normalise_path() through jr_httprules_check()) against a
 * reference decoder written apart from it.
 *
 * The reference is the most lenient server a rule may stand in front of.
 * It percent-decodes every escape, again and again until nothing changes
 * (so "%25252e" ends as '.'); decodes UTF-8 without minding overlong
 * forms ("%C0%AE" is '.'); folds the Unicode forms of '.', '/', '\', '%',
 * ';' and spaces to ASCII, and drops invisible ones; takes '\' for '/' and
 * '+' for a space; cuts every segment at ';' (path parameters); trims
 * spaces and controls from both ends of a segment; reads a segment of two
 * dots or more as ".."; and last removes dot segments as RFC 3986 5.2.4
 * says. It shares no code with httprules.c.
 *
 * Properties, for every input:
 *  - whatever the rules allow, the reference puts under the prefix of the
 *    rule (as the reference reads that prefix too), on a segment boundary;
 *  - normalising changes nothing the reference can see: it reads the
 *    input and the normal form as the same path.
 * Each input is tried two ways: as "/ok/" + input against the rule
 * 'GET http://h.test/ok/' (a path that passes then has to climb out of
 * /ok/ to break the property), and split at its first '\n' into a rule
 * prefix and a suffix: the rule 'GET http://h.test' + prefix (when it
 * parses), the request prefix + suffix.
 *
 * Build and run (tests/fuzz/run.sh does this for every target):
 *   clang -g -O1 -fsanitize=fuzzer,address,undefined -Isrc -include /dev/null \
 *     src/lib/err.c src/policy/httprules.c tests/fuzz/fuzz_path.c -o /tmp/fuzz_path
 *   /tmp/fuzz_path tests/fuzz/corpus/path -max_total_time=60
 */
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fuzz.h"
#include "httprules.h"

/* A byte string the reference rewrites; never NUL-terminated by need. */
struct bytes {
	char *p;
	size_t n;
};

static void bytes_put(struct bytes *b, const char *s, size_t n)
{
	/* No pass writes more than it reads (a fold is never longer than
	 * the sequence it replaces): the buffers are sized for the input. */
	memcpy(b->p + b->n, s, n);
	b->n += n;
}

static int ref_hex(char c)
{
	if (c >= '0' && c <= '9')
		return c - '0';
	if (c >= 'a' && c <= 'f')
		return c - 'a' + 10;
	if (c >= 'A' && c <= 'F')
		return c - 'A' + 10;
	return -1;
}

/* One pass of percent-decoding: every "%HH", whatever it stands for. */
static void ref_pct_decode(const struct bytes *in, struct bytes *out)
{
	out->n = 0;
	for (size_t i = 0; i < in->n; i++) {
		int h, l;

		if (in->p[i] == '%' && i + 2 < in->n &&
		    (h = ref_hex(in->p[i + 1])) >= 0 &&
		    (l = ref_hex(in->p[i + 2])) >= 0) {
			char c = (char)(h * 16 + l);

			bytes_put(out, &c, 1);
			i += 2;
		} else {
			bytes_put(out, &in->p[i], 1);
		}
	}
}

/* What the lenient server folds a code point into (NULL: kept). */
static const char *ref_fold(uint32_t cp)
{
	static const struct {
		uint32_t cp;
		const char *to;
	} folds[] = {
		{ 0x0085, " " },   { 0x00A0, " " },   { 0x1680, " " },
		{ 0x2000, " " },   { 0x2001, " " },   { 0x2002, " " },
		{ 0x2003, " " },   { 0x2004, " " },   { 0x2005, " " },
		{ 0x2006, " " },   { 0x2007, " " },   { 0x2008, " " },
		{ 0x2009, " " },   { 0x200A, " " },   { 0x2028, " " },
		{ 0x2029, " " },   { 0x202F, " " },   { 0x205F, " " },
		{ 0x3000, " " },   { 0x00AD, "" },    { 0x200B, "" },
		{ 0x200C, "" },	   { 0x200D, "" },    { 0x2060, "" },
		{ 0xFEFF, "" },	   { 0x2024, "." },   { 0xFE52, "." },
		{ 0xFF0E, "." },   { 0x2025, ".." },  { 0xFE30, ".." },
		{ 0x2026, "..." }, { 0xFE19, "..." }, { 0xFF0F, "/" },
		{ 0xFF3C, "\\" },  { 0xFE68, "\\" },  { 0xFF05, "%" },
		{ 0xFE6A, "%" },   { 0x037E, ";" },   { 0xFE14, ";" },
		{ 0xFE54, ";" },   { 0xFF1B, ";" },
	};

	for (size_t i = 0; i < sizeof(folds) / sizeof(folds[0]); i++)
		if (folds[i].cp == cp)
			return folds[i].to;
	return NULL;
}

/*
 * One pass of lax UTF-8 decoding and folding: a lead byte and its
 * continuation bytes make a code point however long the form; one below
 * 0x80 becomes that ASCII byte, one ref_fold() knows becomes its folding.
 * '\' becomes '/' and '+' a space on the way.
 */
static void ref_utf8_fold(const struct bytes *in, struct bytes *out)
{
	out->n = 0;
	for (size_t i = 0; i < in->n; i++) {
		unsigned char c = (unsigned char)in->p[i];
		size_t len = c >= 0xF0 && c <= 0xF7   ? 4
			     : c >= 0xE0 && c <= 0xEF ? 3
			     : c >= 0xC0 && c <= 0xDF ? 2
						      : 1;
		uint32_t cp = c & (0x7Fu >> len);
		size_t k;

		for (k = 1; len > 1 && k < len && i + k < in->n; k++) {
			unsigned char cc = (unsigned char)in->p[i + k];

			if ((cc & 0xC0) != 0x80)
				break;
			cp = cp << 6 | (cc & 0x3F);
		}
		if (len > 1 && k == len) {
			const char *to = ref_fold(cp);
			char ascii = (char)cp;

			if (cp < 0x80)
				bytes_put(out, &ascii, 1);
			else if (to)
				bytes_put(out, to, strlen(to));
			else
				bytes_put(out, in->p + i, len);
			i += len - 1;
			continue;
		}
		if (c == '\\')
			c = '/';
		else if (c == '+')
			c = ' ';
		bytes_put(out, (const char *)&c, 1);
	}
}

static bool ref_trimmed(unsigned char c)
{
	return c <= 0x20 || c == 0x7F;
}

/*
 * The segments of @in, each cut at ';', trimmed, and ".." if it is two
 * dots or more, joined again by '/' into @out.
 */
static void ref_segments(const struct bytes *in, struct bytes *out)
{
	size_t i = 0;

	out->n = 0;
	while (i <= in->n) {
		size_t end = i, s, e, dots = 0;

		while (end < in->n && in->p[end] != '/')
			end++;
		e = i;
		while (e < end && in->p[e] != ';')
			e++;
		s = i;
		while (s < e && ref_trimmed((unsigned char)in->p[s]))
			s++;
		while (e > s && ref_trimmed((unsigned char)in->p[e - 1]))
			e--;
		for (size_t k = s; k < e; k++)
			dots += in->p[k] == '.';
		if (dots >= 2 && dots == e - s)
			bytes_put(out, "..", 2);
		else
			bytes_put(out, in->p + s, e - s);
		if (end < in->n)
			bytes_put(out, "/", 1);
		i = end + 1;
	}
}

static bool starts(const struct bytes *b, size_t at, const char *s)
{
	size_t n = strlen(s);

	return b->n - at >= n && !memcmp(b->p + at, s, n);
}

static bool rest_is(const struct bytes *b, size_t at, const char *s)
{
	return b->n - at == strlen(s) && starts(b, at, s);
}

/* RFC 3986 5.2.4 remove_dot_segments, step by step as written there. */
static void ref_remove_dot_segments(const struct bytes *in, struct bytes *out)
{
	size_t at = 0;

	out->n = 0;
	while (at < in->n) {
		if (starts(in, at, "../")) { /* A */
			at += 3;
		} else if (starts(in, at, "./")) {
			at += 2;
		} else if (starts(in, at, "/./")) { /* B: "/./" -> "/" */
			at += 2;
		} else if (rest_is(in, at, "/.")) {
			in->p[++at] = '/'; /* "/." -> "/" */
		} else if (starts(in, at, "/../") || rest_is(in, at, "/..")) {
			/* C: replace by "/", drop the last output segment */
			if (starts(in, at, "/../")) {
				at += 3;
			} else {
				at += 2;
				in->p[at] = '/';
			}
			while (out->n && out->p[out->n - 1] != '/')
				out->n--;
			if (out->n)
				out->n--;
		} else if (rest_is(in, at, ".") || rest_is(in, at, "..")) {
			at = in->n; /* D */
		} else { /* E: the first segment, with its leading '/' */
			size_t end = at + (in->p[at] == '/');

			while (end < in->n && in->p[end] != '/')
				end++;
			bytes_put(out, in->p + at, end - at);
			at = end;
		}
	}
}

/*
 * ref_path - what the lenient server makes of the path of target @t (@n
 * bytes; the query, from the first '?', is not the path) into @out, a
 * malloc'd buffer the caller frees.
 */
static void ref_path(const char *t, size_t n, struct bytes *out)
{
	const char *q = memchr(t, '?', n);
	size_t cap = n + 8, pass;
	struct bytes a = { malloc(cap), 0 }, b = { malloc(cap), 0 };
	struct bytes c = { malloc(cap), 0 }, tmp;

	check(a.p && b.p && c.p);
	bytes_put(&a, t, q ? (size_t)(q - t) : n);
	/* Decode and fold until nothing changes. A pass that changes
	 * anything shortens the string, or folds to ASCII that no later pass
	 * changes: n + 2 passes reach the fixed point. */
	for (pass = 0; pass < n + 2; pass++) {
		ref_pct_decode(&a, &b);
		ref_utf8_fold(&b, &c);
		if (c.n == a.n && !memcmp(a.p, c.p, a.n))
			break;
		tmp = a;
		a = c;
		c = tmp;
	}
	check(pass < n + 2);
	free(c.p);
	ref_segments(&a, &b);
	ref_remove_dot_segments(&b, &a);
	free(b.p);
	*out = a;
}

/* Is @path under @prefix in the rules' sense (httprules.h)? */
static bool ref_under(const struct bytes *prefix, const struct bytes *path)
{
	if (path->n < prefix->n || memcmp(path->p, prefix->p, prefix->n))
		return false;
	if (prefix->n && prefix->p[prefix->n - 1] == '/')
		return true;
	return path->n == prefix->n || path->p[prefix->n] == '/';
}

/* @target allowed by @rules, whose one rule has the prefix @prefix: hold
 * the normaliser to the reference. */
static void check_allowed(const char *prefix, const char *target)
{
	size_t tl = strlen(target);
	char *norm = malloc(tl + 1);
	const char *why = NULL;
	struct bytes rp, rt, rn;
	long nl;

	check(norm);
	nl = jr_httprules_normalise_path(target, tl, norm, &why);
	check(nl >= 0);
	ref_path(prefix, strlen(prefix), &rp);
	ref_path(target, tl, &rt);
	ref_path(norm, (size_t)nl, &rn);
	if (!ref_under(&rp, &rt)) {
		fprintf(stderr,
			"allowed under '%s', but the reference reads '%s' as "
			"'%.*s', not under '%.*s'\n",
			prefix, target, (int)rt.n, rt.p, (int)rp.n, rp.p);
		abort();
	}
	if (rt.n != rn.n || memcmp(rt.p, rn.p, rt.n)) {
		fprintf(
		    stderr,
		    "'%s' normalised to '%s' changes its meaning: '%.*s' vs "
		    "'%.*s'\n",
		    target, norm, (int)rt.n, rt.p, (int)rn.n, rn.p);
		abort();
	}
	free(rp.p);
	free(rt.p);
	free(rn.p);
	free(norm);
}

static void try_rule(const char *rule_text, const char *target)
{
	struct jr_httprules rules;
	struct jr_err err = { 0 };
	const char *why = NULL;

	jr_httprules_init(&rules);
	if (jr_httprules_add(&rules, rule_text, &err) == 0 &&
	    jr_httprules_check(&rules, "http", "h.test", 80, "GET", target,
			       &why) == JR_HTTP_ALLOWED) {
		check(rules.n == 1);
		check_allowed(rules.rules[0].path, target);
	}
	jr_httprules_free(&rules);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static const char ok_rule[] = "GET http://h.test/ok/";
	char *text, *target, *rule;
	const char *nl;
	size_t pl;

	/* As C strings: the relay never checks a target with a NUL in it
	 * (http.c refuses it in the request line). */
	if (memchr(data, 0, size) || size > 2 * JR_HTTPRULE_PATH_MAX)
		return 0;
	text = malloc(size + 1);
	target = malloc(size + 8);
	rule = malloc(size + sizeof(ok_rule) + 8);
	check(text && target && rule);
	memcpy(text, data, size);
	text[size] = '\0';

	snprintf(target, size + 8, "/ok/%s", text);
	try_rule(ok_rule, target);

	nl = memchr(text, '\n', size);
	pl = nl ? (size_t)(nl - text) : 0;
	if (nl && pl && text[0] == '/') {
		snprintf(rule, size + sizeof(ok_rule) + 8,
			 "GET http://h.test%.*s", (int)pl, text);
		snprintf(target, size + 8, "%.*s%s", (int)pl, text, nl + 1);
		try_rule(rule, target);
	}
	free(text);
	free(target);
	free(rule);
	return 0;
}
