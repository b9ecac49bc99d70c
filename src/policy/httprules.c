// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * httprules.c - HTTP method and path rules (--allow-http): parsing the
 * rules, normalising request paths, and matching one against the other.
 *
 * Theory of operation
 *
 * A rule is parsed once, at startup, into a struct jr_http_rule: its
 * methods, its scheme, its host (a name or a "*." wildcard, in the
 * --allow grammar), its port (80 or 443 unless given) and its path prefix,
 * normalised by the very function that later normalises request paths, so
 * the two are compared in one form. Anything the grammar does not take is
 * refused with a message naming the rule: a rule that means something
 * other than what its author read is worse than none.
 *
 * For each request the relay has read (a plain HTTP request through the
 * proxy or captured, or, once TLS inspection is in, a request inside an
 * inspected connection), it asks jr_httprules_check(). A host that no rule
 * names is not governed by rules. A host that some rule names allows only
 * the requests one of its rules matches; the relay refuses, before any
 * byte goes upstream, every connection to such a host that it cannot read
 * request by request (jr_httprules_host_has_rules()).
 *
 * Decisions (each pinned by tests/unit/test_httprules.c):
 *  - The rules of a host govern all of it: every port, both schemes. A
 *    rule for https://h/ does not leave http://h:8080/ open to anything
 *    an --allow entry would let through, and a CONNECT tunnel to h:80
 *    cannot carry unchecked plain HTTP.
 *  - A rule's host is allowed implicitly, on the rule's port only
 *    (jr_httprule_policy_entry()): a rule without the connection it
 *    governs would be a rule nobody can use.
 *  - Methods are case-sensitive (RFC 9110 9.1) and compared exactly. A
 *    rule must write them in uppercase: "get" is a valid method, but one
 *    no server implements, so in a rule it is almost surely a mistake. "*"
 *    alone means every method. CONNECT is refused in a rule: it opens a
 *    tunnel, not a request the path rules could judge.
 *  - Address literals are refused as rule hosts: the rules are written for
 *    names, and a literal would be matched against the text a client
 *    wrote, which has many spellings for one address.
 *  - Path normalisation (RFC 3986 6.2.2): percent-escapes of unreserved
 *    characters (2.3) other than '.' are decoded, since "%7E" and "~" are
 *    the same resource to every server; other escapes stay escaped, hex
 *    in uppercase (6.2.2.1). A checked path is judged by what the most
 *    lenient server could make of it, so what servers disagree about is
 *    refused rather than guessed (reason "http-path"):
 *     - dot segments: a server resolves "/ok/../other" to "/other" (RFC
 *       3986 5.2.4; a client has no need to send them, they are meant for
 *       references, not request targets), and so are segments that some
 *       server reads as one: "..." and segments of dots with spaces or
 *       '+' ("..%20": Windows drops trailing dots and spaces from a name,
 *       other servers trim);
 *     - an encoded dot ("%2e"): RFC 3986 2.3 says not to encode it, and a
 *       server that decodes after resolving dot segments sees a '..' the
 *       check did not;
 *     - ';', raw or encoded: path parameters, which some servers strip
 *       before resolving dot segments (Tomcat: "..;/" is "../") and some
 *       after decoding ("..%3B");
 *     - encoded '/' and '' (one server decodes them into separators,
 *       another does not), a raw '' (a separator on some servers);
 *     - controls, raw or encoded ("%09", "%0A", NUL, DEL), and every byte
 *       outside RFC 3986's pchar;
 *     - escaped bytes >= 0x80 that are not well-formed UTF-8 (RFC 3629 4):
 *       the overlong "%C0%AE" is '.' to a lax UTF-8 decoder; and the code
 *       points of refused_code_points[], which Unicode folding (NFKC,
 *       "best fit") turns into '.', '/', '', '%', ';' or a space, or
 *       which are invisible and dropped by some;
 *     - an encoded '%' before two hex digits ("%252e", "%25252e"): it is
 *       an escape again after one decoding, harmless to a server that
 *       decodes once, which is the rule (RFC 3986 2.4), but exactly the
 *       traversal to one that decodes until nothing is left;
 *     - a fragment (never part of a request target, RFC 9110 7.1).
 *    tests/fuzz/fuzz_path.c holds the normaliser to that standard: an
 *    independent decoder that decodes repeatedly, folds, trims, strips
 *    parameters and resolves dot segments must find every accepted path
 *    under the prefix that allowed it.
 *  - Prefixes end on segment boundaries. A prefix ending in '/' covers
 *    the paths that start with it ("/repos/our-org/" covers
 *    "/repos/our-org/x" but not "/repos/our-org" itself); any other
 *    prefix covers itself and the paths below it ("/repos/our-org" covers
 *    "/repos/our-org" and "/repos/our-org/x", never
 *    "/repos/our-organisation"). A plain string prefix would let
 *    "/repos/our-org" admit a sibling organisation.
 *  - The query is not part of the match: rules are about resources, and a
 *    query's grammar is the application's. A rule may not contain one.
 */
#include <errno.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "httprules.h"

const char *jr_http_verdict_name(enum jr_http_verdict v)
{
	switch (v) {
	case JR_HTTP_ALLOWED:
		return "allowed";
	case JR_HTTP_DENY_RULE:
		return "http-rule";
	case JR_HTTP_DENY_PATH:
		return "http-path";
	case JR_HTTP_NEED_INSPECTION:
		return "http-rules-need-inspection";
	}
	return "http-rule";
}

static bool is_alpha(unsigned char c)
{
	return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z');
}

static bool is_digit(unsigned char c)
{
	return c >= '0' && c <= '9';
}

static int hex_value(unsigned char c)
{
	if (is_digit(c))
		return c - '0';
	if (c >= 'a' && c <= 'f')
		return c - 'a' + 10;
	if (c >= 'A' && c <= 'F')
		return c - 'A' + 10;
	return -1;
}

/* RFC 3986 2.3: unreserved = ALPHA / DIGIT / "-" / "." / "_" / "~" */
static bool is_unreserved(unsigned char c)
{
	return is_alpha(c) || is_digit(c) || c == '-' || c == '.' || c == '_' ||
	       c == '~';
}

/*
 * RFC 3986 3.3: pchar, less pct-encoded (handled apart) and less ';', which
 * starts the path parameters some servers strip before they resolve dot
 * segments (Tomcat reads "..;/" as "../"): refused, see the top.
 */
static bool is_pchar(unsigned char c)
{
	return is_unreserved(c) || (c && strchr("!$&'()*+,=:@", c));
}

/* RFC 9110 5.6.2: tchar, what a method (a token) is made of. */
static bool is_tchar(unsigned char c)
{
	return is_alpha(c) || is_digit(c) ||
	       (c && strchr("!#$%&'*+-.^_`|~", c));
}

/* The byte "%HH" at @t[@i] stands for, or -1 if it is not an escape. */
static int escape_at(const char *t, size_t len, size_t i)
{
	int hi, lo;

	if (i + 2 >= len || t[i] != '%')
		return -1;
	hi = hex_value((unsigned char)t[i + 1]);
	lo = hex_value((unsigned char)t[i + 2]);
	return hi < 0 || lo < 0 ? -1 : hi * 16 + lo;
}

/*
 * Code points refused when escaped in a path (as well-formed UTF-8), in
 * order. Some servers and frameworks fold Unicode before they route (NFKC,
 * IIS's "best fit" mappings) or drop what does not show; what such a step
 * turns into a '.', '/', '\', '%', ';' or a space could rebuild a dot
 * segment, a separator or an escape that was refused in its plain form.
 * A request path has no need of any of them.
 */
static const struct {
	uint32_t lo, hi;
} refused_code_points[] = {
	{ 0x0080, 0x00A0 },   /* C1 controls; NO-BREAK SPACE (NFKC ' ') */
	{ 0x00AD, 0x00AD },   /* SOFT HYPHEN: invisible, often dropped */
	{ 0x034F, 0x034F },   /* COMBINING GRAPHEME JOINER: invisible */
	{ 0x037E, 0x037E },   /* GREEK QUESTION MARK: ';' even under NFC */
	{ 0x061C, 0x061C },   /* ARABIC LETTER MARK: invisible */
	{ 0x115F, 0x1160 },   /* HANGUL fillers: invisible */
	{ 0x1680, 0x1680 },   /* OGHAM SPACE MARK */
	{ 0x17B4, 0x17B5 },   /* KHMER inherent vowels: invisible */
	{ 0x180B, 0x180F },   /* MONGOLIAN selectors and vowel separator */
	{ 0x2000, 0x200F },   /* spaces (NFKC ' '), zero widths, LRM, RLM */
	{ 0x2024, 0x2026 },   /* dot leaders, ellipsis: NFKC '.' '..' '...' */
	{ 0x2028, 0x202F },   /* line and paragraph separators, bidi
				 controls, NARROW NO-BREAK SPACE */
	{ 0x205F, 0x206F },   /* MEDIUM MATHEMATICAL SPACE, word joiner,
				 invisible operators, bidi isolates */
	{ 0x3000, 0x3000 },   /* IDEOGRAPHIC SPACE (NFKC ' ') */
	{ 0x3164, 0x3164 },   /* HANGUL FILLER */
	{ 0xFE00, 0xFE0F },   /* variation selectors: invisible */
	{ 0xFE14, 0xFE14 },   /* vertical ';' */
	{ 0xFE19, 0xFE19 },   /* vertical ellipsis: NFKC '...' */
	{ 0xFE30, 0xFE30 },   /* vertical two dot leader: NFKC '..' */
	{ 0xFE52, 0xFE52 },   /* SMALL FULL STOP: NFKC '.' */
	{ 0xFE54, 0xFE54 },   /* SMALL SEMICOLON */
	{ 0xFE68, 0xFE68 },   /* SMALL REVERSE SOLIDUS: NFKC '\' */
	{ 0xFE6A, 0xFE6A },   /* SMALL PERCENT SIGN */
	{ 0xFEFF, 0xFEFF },   /* ZERO WIDTH NO-BREAK SPACE (BOM) */
	{ 0xFF05, 0xFF05 },   /* FULLWIDTH PERCENT SIGN */
	{ 0xFF0E, 0xFF0F },   /* FULLWIDTH FULL STOP, FULLWIDTH SOLIDUS */
	{ 0xFF1B, 0xFF1B },   /* FULLWIDTH SEMICOLON */
	{ 0xFF3C, 0xFF3C },   /* FULLWIDTH REVERSE SOLIDUS */
	{ 0xFFA0, 0xFFA0 },   /* HALFWIDTH HANGUL FILLER */
	{ 0xFFF0, 0xFFFB },   /* specials, interlinear annotation controls */
	{ 0x1BCA0, 0x1BCA3 }, /* shorthand format controls */
	{ 0x1D173, 0x1D17A }, /* musical format controls */
	{ 0xE0000, 0xE0FFF }, /* tags, variation selectors supplement */
};

static bool code_point_refused(uint32_t cp)
{
	for (size_t i = 0;
	     i < sizeof(refused_code_points) / sizeof(refused_code_points[0]);
	     i++)
		if (cp >= refused_code_points[i].lo &&
		    cp <= refused_code_points[i].hi)
			return true;
	return false;
}

/*
 * utf8_escapes - the escaped UTF-8 sequence that starts at @t[@i] (whose
 * first escape stands for a byte >= 0x80): its code point into @cp and its
 * length in bytes of @t into @used. Well-formed only, as RFC 3629 4
 * defines it: no overlong form (%C0%AE, %E0%80%AE for '.'), no surrogate,
 * nothing past U+10FFFF, no stray continuation byte, no truncation; every
 * byte of it escaped.
 * Return: 0, or -1 if the sequence is not well-formed.
 */
static int utf8_escapes(const char *t, size_t len, size_t i, uint32_t *cp,
			size_t *used)
{
	int b = escape_at(t, len, i), lo = 0x80, hi = 0xBF;
	size_t n;

	if (b >= 0xC2 && b <= 0xDF) {
		n = 2;
	} else if (b >= 0xE0 && b <= 0xEF) {
		n = 3;
		lo = b == 0xE0 ? 0xA0 : 0x80; /* overlong below */
		hi = b == 0xED ? 0x9F : 0xBF; /* surrogates above */
	} else if (b >= 0xF0 && b <= 0xF4) {
		n = 4;
		lo = b == 0xF0 ? 0x90 : 0x80; /* overlong below */
		hi = b == 0xF4 ? 0x8F : 0xBF; /* past U+10FFFF above */
	} else {
		return -1; /* 0x80-0xC1: continuation or overlong; 0xF5-0xFF */
	}
	*cp = (uint32_t)b & (0x7Fu >> n);
	for (size_t k = 1; k < n; k++) {
		b = escape_at(t, len, i + 3 * k);
		if (b < lo || b > hi)
			return -1;
		*cp = *cp << 6 | ((uint32_t)b & 0x3F);
		lo = 0x80;
		hi = 0xBF;
	}
	*used = 3 * n;
	return 0;
}

/*
 * Is the normalised segment @s (@n bytes) a dot segment, or one a lenient
 * server could read as one: only dots, spaces (%20) and '+' (also %2B: a
 * space to form decoders), with a dot? "..%20" is ".." to a server that trims
 * (Windows drops trailing spaces and dots from a name), and "..." is ".."
 * to some.
 */
static bool is_dot_segment(const char *s, size_t n)
{
	bool dot = false;

	for (size_t i = 0; i < n; i++) {
		if (s[i] == '.') {
			dot = true;
		} else if (s[i] == '%' && i + 2 < n && s[i + 1] == '2' &&
			   (s[i + 2] == '0' || s[i + 2] == 'B')) {
			i += 2;
		} else if (s[i] != '+') {
			return false;
		}
	}
	return dot;
}

/* Why an escape of the ASCII byte @v is refused, or NULL. */
static const char *escape_refused(int v)
{
	if (v == '.')
		return "an encoded dot (%2E) is not allowed in a path: send '.' as it is";
	if (v == '/' || v == '\\')
		return "an encoded slash (%2F or %5C) is not allowed in a path";
	if (v == 0)
		return "an encoded NUL (%00) is not allowed in a path";
	if (v < 0x20 || v == 0x7F)
		return "an encoded control character (such as %09 or %0A) is not allowed in a path";
	if (v == ';')
		return "an encoded ';' (%3B) is not allowed in a path: some servers strip path parameters after decoding";
	return NULL;
}

#define WHY_DOT_SEGMENT                                                        \
	"a dot segment ('.', '..', '...', or dots with spaces) is not allowed in a path"

long jr_httprules_normalise_path(const char *t, size_t len, char *out,
				 const char **why)
{
	static const char hex[] = "0123456789ABCDEF";
	size_t i = 0, o = 0, seg = 0;

	if (!len || t[0] != '/') {
		*why = "the request target is not a path starting with '/'";
		return -EINVAL;
	}
	while (i < len) {
		unsigned char c = (unsigned char)t[i];
		uint32_t cp;
		size_t used;
		int v;

		if (c == '?')
			break;
		if (c == '#') {
			*why = "a fragment ('#') is not part of a request";
			return -EINVAL;
		}
		if (c == '\\') {
			*why = "a backslash is not allowed in a path";
			return -EINVAL;
		}
		if (c == ';') {
			*why =
			    "a ';' (path parameters, which some servers strip) is not allowed in a path";
			return -EINVAL;
		}
		if (c == '/') {
			if (is_dot_segment(out + seg, o - seg)) {
				*why = WHY_DOT_SEGMENT;
				return -EINVAL;
			}
			out[o++] = '/';
			seg = o;
			i++;
			continue;
		}
		if (c != '%') {
			if (!is_pchar(c)) {
				*why =
				    "a byte that RFC 3986 does not allow in a path";
				return -EINVAL;
			}
			out[o++] = (char)c;
			i++;
			continue;
		}
		v = escape_at(t, len, i);
		if (v < 0) {
			*why = "a '%' not followed by two hex digits";
			return -EINVAL;
		}
		if (v >= 0x80) {
			if (utf8_escapes(t, len, i, &cp, &used) < 0) {
				*why =
				    "escaped bytes that are not well-formed UTF-8 (such as the overlong %C0%AE) are not allowed in a path";
				return -EINVAL;
			}
			if (code_point_refused(cp)) {
				*why =
				    "an escaped control, space, invisible character or a compatibility form of '.', '/', '\\', '%' or ';' (such as %EF%BC%8E) is not allowed in a path";
				return -EINVAL;
			}
			for (size_t k = 0; k < used; k += 3) {
				v = escape_at(t, len, i + k);
				out[o++] = '%';
				out[o++] = hex[v >> 4];
				out[o++] = hex[v & 15];
			}
			i += used;
			continue;
		}
		if ((*why = escape_refused(v)))
			return -EINVAL;
		if (is_unreserved((unsigned char)v)) {
			out[o++] = (char)v;
		} else {
			out[o++] = '%';
			out[o++] = hex[v >> 4];
			out[o++] = hex[v & 15];
		}
		i += 3;
	}
	if (is_dot_segment(out + seg, o - seg)) {
		*why = WHY_DOT_SEGMENT;
		return -EINVAL;
	}
	if (i < len && memchr(t + i, '#', len - i)) {
		*why = "a fragment ('#') is not part of a request";
		return -EINVAL;
	}
	/* An encoded '%' followed by two hex digits is an escape again after
	 * one decoding ("%252e", "%25252e", also spelt "%25%32%65", which
	 * the decoding of unreserved escapes above completes): refused in
	 * the normal form, whatever it would stand for. */
	for (size_t k = 0; k + 5 <= o; k++)
		if (out[k] == '%' && out[k + 1] == '2' && out[k + 2] == '5' &&
		    hex_value((unsigned char)out[k + 3]) >= 0 &&
		    hex_value((unsigned char)out[k + 4]) >= 0) {
			*why =
			    "a multiply-encoded escape (an encoded '%' before two hex digits, such as %252e or %25252e) is not allowed in a path";
			return -EINVAL;
		}
	out[o] = '\0';
	return (long)o;
}

/* Plain decimal 1..65535 without leading zeros (as --allow ports). */
static bool parse_port(const char *s, size_t n, uint16_t *port)
{
	unsigned long v = 0;

	if (!n || n > 5 || s[0] == '0')
		return false;
	for (size_t i = 0; i < n; i++) {
		if (!is_digit((unsigned char)s[i]))
			return false;
		v = v * 10 + (unsigned long)(s[i] - '0');
	}
	if (v < 1 || v > 65535)
		return false;
	*port = (uint16_t)v;
	return true;
}

/*
 * A host name in the --allow grammar (RFC 1123 2.1): labels of 1-63
 * letters, digits and '-', a last label that is not all digits; lowercased
 * into @out, one trailing dot dropped. Return: NULL or what is wrong.
 */
static const char *parse_host(const char *s, size_t n, char *out)
{
	size_t label = 0;
	bool all_digits = true;

	if (n && s[n - 1] == '.')
		n--;
	if (!n)
		return "the host is empty";
	if (n > JR_HOST_MAX)
		return "the host name is longer than 253 characters";
	for (size_t i = 0; i < n; i++) {
		unsigned char c = (unsigned char)s[i];

		if (c == '.') {
			if (!label)
				return "the host has an empty label";
			label = 0;
			all_digits = true;
			out[i] = '.';
			continue;
		}
		if (c == '*')
			return "a wildcard may only be the whole first label of the host, as in 'https://*.example.com/'";
		if (c == '[' || c == ':')
			return "address literals are not allowed, name the host";
		if (!is_alpha(c) && !is_digit(c) && c != '-')
			return "the host must be a name of letters, digits, '.' and '-'";
		if (++label > JR_HOST_LABEL_MAX)
			return "a label of the host is longer than 63 characters";
		if (!is_digit(c))
			all_digits = false;
		out[i] = (char)(c >= 'A' && c <= 'Z' ? c + 32 : c);
	}
	if (!label)
		return "the host has an empty label";
	if (all_digits)
		return "address literals are not allowed, name the host";
	out[n] = '\0';
	return NULL;
}

static int rule_error(struct jr_err *err, const char *text, const char *what)
{
	return jr_err_set(err, EINVAL, "--allow-http '%.*s': %s", 200, text,
			  what);
}

/* METHODS: "*" or a comma list of uppercase tokens, no CONNECT. */
static const char *parse_methods(const char *s, size_t n,
				 struct jr_http_rule *rule)
{
	size_t i = 0;

	if (n == 1 && s[0] == '*') {
		rule->any_method = true;
		return NULL;
	}
	while (i <= n) {
		size_t start = i, m;

		while (i < n && s[i] != ',')
			i++;
		m = i - start;
		if (!m)
			return "an empty method in the method list (write them as GET,HEAD)";
		if (m > JR_HTTPRULE_METHOD_MAX)
			return "a method is longer than 31 characters";
		for (size_t k = start; k < i; k++) {
			unsigned char c = (unsigned char)s[k];

			if (c == '*')
				return "'*' (every method) must stand alone";
			if (c >= 'a' && c <= 'z')
				return "methods are case-sensitive and written in uppercase (GET, not get)";
			if (!is_tchar(c))
				return "a method must be a token (letters, digits and !#$%&'*+-.^_`|~)";
		}
		if (m == 7 && !memcmp(s + start, "CONNECT", 7))
			return "CONNECT opens a tunnel, not a request a path rule can judge";
		if (rule->n_methods == JR_HTTPRULE_METHODS_MAX)
			return "more than 16 methods in one rule";
		memcpy(rule->methods[rule->n_methods], s + start, m);
		rule->methods[rule->n_methods++][m] = '\0';
		i++; /* past the comma, or past the end */
	}
	return NULL;
}

/* URL-PREFIX: scheme://host[:port][/path]. */
static const char *parse_url(const char *s, size_t n, struct jr_http_rule *rule)
{
	size_t a, alen, colon;
	const char *why;
	long pl;

	if (n >= 7 && !strncasecmp(s, "http://", 7)) {
		a = 7;
	} else if (n >= 8 && !strncasecmp(s, "https://", 8)) {
		a = 8;
		rule->https = true;
	} else {
		return "the URL prefix must start with http:// or https://";
	}
	alen = strcspn(s + a, "/?#");
	if (a + alen > n)
		alen = n - a;
	if (memchr(s + a, '@', alen))
		return "userinfo (user@) is not allowed in the URL";
	if (alen && s[a] == '[')
		return "address literals are not allowed, name the host";
	colon = alen;
	for (size_t i = 0; i < alen; i++)
		if (s[a + i] == ':')
			colon = i; /* the last ':' (an IPv6 literal is refused
				      below anyway) */
	rule->port = rule->https ? 443 : 80;
	if (colon < alen &&
	    !parse_port(s + a + colon + 1, alen - colon - 1, &rule->port))
		return "the port must be a number from 1 to 65535 without leading zeros";
	if (colon >= 2 && s[a] == '*' && s[a + 1] == '.') {
		rule->wildcard = true;
		why = parse_host(s + a + 2, colon - 2, rule->host);
	} else {
		why = parse_host(s + a, colon, rule->host);
	}
	if (why)
		return why;
	s += a + alen;
	n -= a + alen;
	if (!n) {
		strcpy(rule->path, "/");
		return NULL;
	}
	if (memchr(s, '?', n))
		return "a rule's prefix is a path: the query is not matched, leave out '?...'";
	if (memchr(s, '#', n))
		return "a fragment ('#') is not part of a request";
	if (n > JR_HTTPRULE_PATH_MAX)
		return "the path prefix is longer than 1024 characters";
	pl = jr_httprules_normalise_path(s, n, rule->path, &why);
	if (pl < 0)
		return why;
	return NULL;
}

int jr_httprule_parse(const char *text, struct jr_http_rule *out,
		      struct jr_err *err)
{
	const char *s = text, *sp, *why;
	size_t n = strlen(text);

	memset(out, 0, sizeof(*out));
	if (n > JR_HTTPRULE_TEXT_MAX)
		return rule_error(err, text,
				  "the rule is longer than 1400 characters");
	memcpy(out->text, text, n + 1);
	while (n && (*s == ' ' || *s == '\t'))
		s++, n--;
	while (n && (s[n - 1] == ' ' || s[n - 1] == '\t'))
		n--;
	sp = memchr(s, ' ', n);
	if (!sp || memchr(s, '\t', n))
		return rule_error(
		    err, text,
		    "expected 'METHODS URL-PREFIX' separated by one space, as in 'GET,HEAD https://api.example.com/repos/'");
	if (memchr(sp + 1, ' ', n - (size_t)(sp + 1 - s)))
		return rule_error(
		    err, text,
		    "expected 'METHODS URL-PREFIX' separated by one space, as in 'GET,HEAD https://api.example.com/repos/'");
	why = parse_methods(s, (size_t)(sp - s), out);
	if (!why)
		why = parse_url(sp + 1, n - (size_t)(sp + 1 - s), out);
	if (why) {
		memset(out, 0, sizeof(*out));
		return rule_error(err, text, why);
	}
	return 0;
}

void jr_httprules_init(struct jr_httprules *r)
{
	r->rules = NULL;
	r->n = r->cap = 0;
}

void jr_httprules_free(struct jr_httprules *r)
{
	free(r->rules);
	jr_httprules_init(r);
}

int jr_httprules_add(struct jr_httprules *r, const char *text,
		     struct jr_err *err)
{
	struct jr_http_rule rule;
	int e = jr_httprule_parse(text, &rule, err);

	if (e < 0)
		return e;
	if (r->n == JR_HTTPRULES_MAX)
		return jr_err_set(err, E2BIG,
				  "--allow-http: more than %d rules",
				  JR_HTTPRULES_MAX);
	if (r->n == r->cap) {
		size_t cap = r->cap ? r->cap * 2 : 8;
		struct jr_http_rule *p = realloc(r->rules, cap * sizeof(*p));

		if (!p)
			return jr_err_set(err, ENOMEM,
					  "--allow-http: out of memory");
		r->rules = p;
		r->cap = cap;
	}
	r->rules[r->n++] = rule;
	return 0;
}

int jr_httprule_policy_entry(const struct jr_http_rule *rule, char *out,
			     size_t size)
{
	int n = snprintf(out, size, "%s%s:%u", rule->wildcard ? "*." : "",
			 rule->host, rule->port);

	return n < 0 || (size_t)n >= size ? -ENOSPC : 0;
}

/* @host lowercased without one trailing dot into @out; false if too long. */
static bool host_key(const char *host, char *out)
{
	size_t n = strlen(host);

	if (n && host[n - 1] == '.')
		n--;
	if (n > JR_HOST_MAX)
		return false;
	for (size_t i = 0; i < n; i++) {
		unsigned char c = (unsigned char)host[i];

		out[i] = (char)(c >= 'A' && c <= 'Z' ? c + 32 : c);
	}
	out[n] = '\0';
	return true;
}

/* Does @rule's host take @key (lowercase, no trailing dot)? */
static bool rule_host_matches(const struct jr_http_rule *rule, const char *key)
{
	size_t kl, sl;

	if (!rule->wildcard)
		return !strcmp(rule->host, key);
	kl = strlen(key);
	sl = strlen(rule->host);
	return kl > sl + 1 && key[kl - sl - 1] == '.' &&
	       !strcmp(key + kl - sl, rule->host);
}

bool jr_httprules_host_has_rules(const struct jr_httprules *r, const char *host)
{
	char key[JR_HOST_MAX + 1];

	if (!r || !r->n || !host_key(host, key))
		return false;
	for (size_t i = 0; i < r->n; i++)
		if (rule_host_matches(&r->rules[i], key))
			return true;
	return false;
}

/* Is @path covered by @prefix (see the decisions at the top)? */
static bool path_under(const char *prefix, const char *path)
{
	size_t n = strlen(prefix);

	if (strncmp(path, prefix, n))
		return false;
	if (prefix[n - 1] == '/')
		return true;
	return path[n] == '\0' || path[n] == '/';
}

static bool rule_has_method(const struct jr_http_rule *rule, const char *method)
{
	if (rule->any_method)
		return true;
	for (size_t i = 0; i < rule->n_methods; i++)
		if (!strcmp(rule->methods[i], method))
			return true;
	return false;
}

enum jr_http_verdict jr_httprules_check(const struct jr_httprules *r,
					const char *scheme, const char *host,
					uint16_t port, const char *method,
					const char *target, const char **reason)
{
	char key[JR_HOST_MAX + 1];
	const char *why = NULL;
	bool https = !strcmp(scheme, "https");
	char *path;
	long pl;

	if (!reason)
		reason = &why;
	*reason = NULL;
	if (!jr_httprules_host_has_rules(r, host))
		return JR_HTTP_ALLOWED;
	if (!host_key(host, key)) {
		*reason = "the host name is too long";
		return JR_HTTP_DENY_RULE;
	}
	path = malloc(strlen(target) + 1);
	if (!path) {
		*reason = "out of memory checking the request";
		return JR_HTTP_DENY_RULE;
	}
	pl = jr_httprules_normalise_path(target, strlen(target), path, reason);
	if (pl < 0) {
		free(path);
		return JR_HTTP_DENY_PATH;
	}
	for (size_t i = 0; i < r->n; i++) {
		const struct jr_http_rule *rule = &r->rules[i];

		if (rule->https == https && rule->port == port &&
		    rule_host_matches(rule, key) &&
		    rule_has_method(rule, method) &&
		    path_under(rule->path, path)) {
			free(path);
			return JR_HTTP_ALLOWED;
		}
	}
	free(path);
	*reason = "no --allow-http rule allows this method and path";
	return JR_HTTP_DENY_RULE;
}
