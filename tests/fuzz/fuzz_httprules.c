// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * fuzz_httprules.c - libFuzzer target for the --allow-http rule parser and
 * the request-path normaliser.
 *
 * The input is tried three ways: as a rule (a NUL-terminated copy, so
 * embedded NULs cut it as a C caller would), as a request target for the
 * normaliser (the raw bytes, with their length: NULs included), and as a
 * target checked against a fixed rule set. Besides ASan/UBSan/leak
 * findings, it aborts on broken invariants: an accepted rule has a host, a
 * port, methods and a normalised path prefix; a normalised path is no
 * longer than its input, is its own normal form, starts with '/', and holds
 * no dot segment, no '?', '#', '\' or NUL and no escape of '/', '\', NUL or
 * an unreserved character; a request the rules allow is under a prefix.
 *
 * Build and run (see also tests/fuzz/corpus/httprules/):
 *   clang -g -O1 -fsanitize=fuzzer,address,undefined -Isrc -include /dev/null \
 *     src/lib/err.c src/policy/httprules.c tests/fuzz/fuzz_httprules.c -o /tmp/fuzz_httprules
 *   /tmp/fuzz_httprules tests/fuzz/corpus/httprules -max_total_time=60
 */
#include <ctype.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fuzz.h"
#include "httprules.h"

static const char *const fixed_rules[] = {
	"GET,HEAD http://allowed.test/ok/",
	"POST http://allowed.test/submit",
	"* http://*.wild.test/any",
};

static struct jr_httprules fixed;

static void fixed_rules_once(void)
{
	static int ready;
	struct jr_err err = { 0 };

	if (ready)
		return;
	jr_httprules_init(&fixed);
	for (size_t i = 0; i < sizeof(fixed_rules) / sizeof(fixed_rules[0]);
	     i++)
		if (jr_httprules_add(&fixed, fixed_rules[i], &err) != 0) {
			fprintf(stderr, "fixed rule refused: %s\n", err.msg);
			abort();
		}
	ready = 1;
}

/* The normal form's own invariants (see the top). */
static void check_normal_form(const char *out, size_t n)
{
	const char *why = NULL;
	char *again = malloc(n + 1);

	check(again);
	check(n >= 1 && out[0] == '/');
	check(strlen(out) == n);
	check(!strpbrk(out, "?#\\"));
	check(!strstr(out, "/./") && !strstr(out, "/../"));
	check(!(n >= 2 && !strcmp(out + n - 2, "/.")));
	check(!(n >= 3 && !strcmp(out + n - 3, "/..")));
	for (size_t i = 0; i < n; i++)
		if (out[i] == '%') {
			char hex[3] = { out[i + 1], out[i + 2], 0 };
			unsigned long v = strtoul(hex, NULL, 16);

			check(isxdigit((unsigned char)hex[0]) &&
			      isxdigit((unsigned char)hex[1]));
			check(!islower((unsigned char)hex[0]) &&
			      !islower((unsigned char)hex[1]));
			check(v != '/' && v != '\\' && v != 0);
			check(!isalnum((int)v) && !strchr("-._~", (int)v));
		}
	check(jr_httprules_normalise_path(out, n, again, &why) == (long)n);
	check(!memcmp(out, again, n));
	free(again);
}

static void fuzz_rule(const char *text)
{
	struct jr_http_rule *rule = malloc(sizeof(*rule));
	struct jr_err err = { 0 };
	char entry[JR_HOST_MAX + 16];

	check(rule);
	if (jr_httprule_parse(text, rule, &err) == 0) {
		check(rule->host[0] && rule->port);
		check(rule->any_method || rule->n_methods);
		check(jr_httprule_policy_entry(rule, entry, sizeof(entry)) ==
		      0);
		check_normal_form(rule->path, strlen(rule->path));
	} else {
		check(err.msg[0]);
	}
	free(rule);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char *text = malloc(size + 1), *out = malloc(size + 1);
	const char *why = NULL;
	long n;

	check(text && out);
	memcpy(text, data, size);
	text[size] = '\0';
	fuzz_rule(text);

	n = jr_httprules_normalise_path(text, size, out, &why);
	if (n >= 0) {
		check((size_t)n <= size);
		check_normal_form(out, (size_t)n);
	} else {
		check(why && why[0]);
	}

	fixed_rules_once();
	if (!memchr(data, 0, size)) {
		enum jr_http_verdict v = jr_httprules_check(
		    &fixed, "http", "allowed.test", 80, "GET", text, &why);

		if (v == JR_HTTP_ALLOWED)
			check(n >= 0 && !strncmp(out, "/ok/", 4));
		v = jr_httprules_check(&fixed, "http", "a.wild.test", 80,
				       "BREW", text, &why);
		if (v == JR_HTTP_ALLOWED)
			check(n >= 0 && !strncmp(out, "/any", 4) &&
			      (out[4] == '\0' || out[4] == '/'));
	}
	free(text);
	free(out);
	return 0;
}
