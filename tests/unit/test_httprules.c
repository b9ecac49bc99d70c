// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * test_httprules.c - the --allow-http grammar, the path normaliser and the
 * request check, table-driven.
 *
 * Each row would fail under a concrete mistake: a bad rule accepted (or
 * refused with a message that does not say why), a traversal or encoded
 * separator that normalises into an allowed prefix, an escape decoded that
 * must stay escaped, a prefix that matches a sibling ("/repos/our-org" vs
 * "/repos/our-organisation"), a method compared case-insensitively, a host
 * with rules that lets an unmatched request through, or rules leaking onto
 * a host they do not name. The decisions are at the top of src/policy/httprules.c.
 */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "err.h"
#include "httprules.h"

/* ------------------------------------------------------------- parser */

struct bad_rule {
	const char *text;
	const char *says; /* a substring of the message */
};

static const struct bad_rule bad_rules[] = {
	{ "", "METHODS URL-PREFIX" },
	{ "GET", "METHODS URL-PREFIX" },
	{ "GET  http://a.test/", "one space" },
	{ "GET\thttp://a.test/", "one space" },
	{ "GET http://a.test/ extra", "one space" },
	{ "get http://a.test/", "uppercase" },
	{ "Get http://a.test/", "uppercase" },
	{ "GET,,HEAD http://a.test/", "empty method" },
	{ "GET, http://a.test/", "empty method" },
	{ ",GET http://a.test/", "empty method" },
	{ "GET,* http://a.test/", "stand alone" },
	{ "CONNECT http://a.test/", "tunnel" },
	{ "G(T http://a.test/", "token" },
	{ "GET ftp://a.test/", "http:// or https://" },
	{ "GET a.test/", "http:// or https://" },
	{ "GET http://", "empty" },
	{ "GET http:///x", "empty" },
	{ "GET http://u@a.test/", "userinfo" },
	{ "GET http://a.test:0/", "port" },
	{ "GET http://a.test:65536/", "port" },
	{ "GET http://a.test:080/", "port" },
	{ "GET http://a.test:/", "port" },
	{ "GET http://a.test:x/", "port" },
	{ "GET http://192.0.2.7/", "address literals" },
	{ "GET http://[2001:db8::1]/", "address literals" },
	{ "GET http://a..test/", "empty label" },
	{ "GET http://.a.test/", "empty label" },
	{ "GET http://foo.*.test/", "wildcard" },
	{ "GET http://*/", "wildcard" },
	{ "GET http://*./", "empty" },
	{ "GET http://a_b.test/", "letters, digits" },
	{ "GET http://a.test/x?y=1", "query" },
	{ "GET http://a.test?y=1", "query" },
	{ "GET http://a.test/x#f", "fragment" },
	{ "GET http://a.test/x/../y", "dot segment" },
	{ "GET http://a.test/x/%2e%2e/y", "encoded dot" },
	{ "GET http://a.test/x/...", "dot segment" },
	{ "GET http://a.test/x;v=1/", "';'" },
	{ "GET http://a.test/x/%c0%ae", "UTF-8" },
	{ "GET http://a.test/x%2541", "multiply-encoded" },
	{ "GET http://a.test/x%2Fy", "encoded slash" },
	{ "GET http://a.test/x\\y", "backslash" },
	{ "GET http://a.test/x%zz", "two hex digits" },
	{ "GET http://a.test/x y", "one space" },
};

static void test_parse_rejects(void **state)
{
	(void)state;
	for (size_t i = 0; i < sizeof(bad_rules) / sizeof(bad_rules[0]); i++) {
		struct jr_http_rule rule;
		struct jr_err err = { 0 };
		int r = jr_httprule_parse(bad_rules[i].text, &rule, &err);

		if (r != -EINVAL)
			fail_msg("'%s' was accepted", bad_rules[i].text);
		if (!strstr(err.msg, bad_rules[i].says) ||
		    !strstr(err.msg, "--allow-http '"))
			fail_msg("'%s': message '%s' lacks '%s'",
				 bad_rules[i].text, err.msg, bad_rules[i].says);
	}
}

static void test_parse_accepts(void **state)
{
	struct jr_http_rule rule;
	struct jr_err err = { 0 };
	char entry[300];

	(void)state;
	assert_int_equal(
	    jr_httprule_parse("GET,HEAD https://API.GitHub.com./repos/our-org/",
			      &rule, &err),
	    0);
	assert_int_equal(rule.n_methods, 2);
	assert_string_equal(rule.methods[0], "GET");
	assert_string_equal(rule.methods[1], "HEAD");
	assert_false(rule.any_method);
	assert_true(rule.https);
	assert_false(rule.wildcard);
	assert_string_equal(rule.host, "api.github.com");
	assert_int_equal(rule.port, 443);
	assert_string_equal(rule.path, "/repos/our-org/");
	assert_int_equal(jr_httprule_policy_entry(&rule, entry, sizeof(entry)),
			 0);
	assert_string_equal(entry, "api.github.com:443");

	assert_int_equal(
	    jr_httprule_parse("* http://*.a.test:8080", &rule, &err), 0);
	assert_true(rule.any_method);
	assert_false(rule.https);
	assert_true(rule.wildcard);
	assert_string_equal(rule.host, "a.test");
	assert_int_equal(rule.port, 8080);
	assert_string_equal(rule.path, "/");
	assert_int_equal(jr_httprule_policy_entry(&rule, entry, sizeof(entry)),
			 0);
	assert_string_equal(entry, "*.a.test:8080");

	/* The prefix is normalised like a request path. */
	assert_int_equal(
	    jr_httprule_parse(" POST http://a.test/%7eu/%2a ", &rule, &err), 0);
	assert_string_equal(rule.path, "/~u/%2A");
	assert_int_equal(rule.port, 80);
	assert_int_equal(jr_httprule_policy_entry(&rule, entry, 5), -ENOSPC);
}

/* --------------------------------------------------------- normaliser */

struct norm_vec {
	const char *in;
	const char *out; /* NULL: refused */
	const char *why; /* for refusals: a substring of the reason */
};

static const struct norm_vec norm_vecs[] = {
	{ "/", "/", NULL },
	{ "/repos/our-org/x", "/repos/our-org/x", NULL },
	{ "/a?b=1&c=../../x", "/a", NULL }, /* the query is not the path */
	{ "/a?", "/a", NULL },
	{ "/%41%62%7e%2D%5F", "/Ab~-_", NULL },	    /* unreserved: decoded */
	{ "/%20%3a%3F%25", "/%20%3A%3F%25", NULL }, /* others: kept, upper */
	{ "/a//b", "/a//b", NULL },
	{ "/a.b/..c/c../.x./x.%20.", "/a.b/..c/c../.x./x.%20.", NULL },
	{ "/a/b:c@d!$&'()*+,=", "/a/b:c@d!$&'()*+,=", NULL },
	{ "/.x", "/.x", NULL },
	{ "/a%20b/%20/+/%2B", "/a%20b/%20/+/%2B", NULL },   /* no dot */
	{ "/%25/%25zz/%25%25", "/%25/%25zz/%25%25", NULL }, /* not escapes */
	/* Well-formed UTF-8 is kept escaped, upper: e-acute, euro, emoji,
	 * U+10FFFF, U+E000 (the first after the surrogates). */
	{ "/%c3%a9/%E2%82%ac/%f0%9f%98%80", "/%C3%A9/%E2%82%AC/%F0%9F%98%80",
	  NULL },
	{ "/%f4%8f%bf%bf/%ee%80%80", "/%F4%8F%BF%BF/%EE%80%80", NULL },
	{ "", NULL, "starting with '/'" },
	{ "*", NULL, "starting with '/'" },
	{ "a/b", NULL, "starting with '/'" },
	{ "http://a.test/", NULL, "starting with '/'" },
	{ "/repos/our-org/../other", NULL, "dot segment" },
	{ "/repos/our-org/..", NULL, "dot segment" },
	{ "/repos/./x", NULL, "dot segment" },
	{ "/.", NULL, "dot segment" },
	{ "/..", NULL, "dot segment" },
	{ "/ok/...", NULL, "dot segment" },
	{ "/ok/..../other", NULL, "dot segment" },
	{ "/ok/%2e%2e/other", NULL, "encoded dot" },
	{ "/ok/%2E%2E/other", NULL, "encoded dot" },
	{ "/ok/.%2e/other", NULL, "encoded dot" },
	{ "/ok/%2e/other", NULL, "encoded dot" },
	{ "/ok/a%2eb", NULL, "encoded dot" },
	{ "/ok/..;/other", NULL, "';'" },
	{ "/ok/..;x=1/other", NULL, "';'" },
	{ "/ok/.;/other", NULL, "';'" },
	{ "/ok;v=1/x", NULL, "';'" },
	{ "/ok/..?x", NULL, "dot segment" },
	/* The reported bypasses (issue 21): whitespace and controls after
	 * the dots, an encoded ';', an overlong '.', a triple encoding. */
	{ "/ok/..%20/other", NULL, "dot segment" },
	{ "/ok/..%09/other", NULL, "control" },
	{ "/ok/..%3B/other", NULL, "%3B" },
	{ "/ok/..%3b/other", NULL, "%3B" },
	{ "/ok/%c0%ae%c0%ae/other", NULL, "UTF-8" },
	{ "/ok/%25252e%25252e/other", NULL, "multiply-encoded" },
	/* Their neighbours. */
	{ "/ok/%20../other", NULL, "dot segment" },
	{ "/ok/.%20./other", NULL, "dot segment" },
	{ "/ok/..%20%20", NULL, "dot segment" },
	{ "/ok/..+/other", NULL, "dot segment" },
	{ "/ok/..%2b/other", NULL, "dot segment" },
	{ "/ok/..%0a/other", NULL, "control" },
	{ "/ok/..%0D%0A", NULL, "control" },
	{ "/ok/..%7f", NULL, "control" },
	{ "/ok/..%1f", NULL, "control" },
	{ "/ok/%C0%AE/other", NULL, "UTF-8" },
	{ "/ok/%e0%80%ae/other", NULL, "UTF-8" },    /* overlong, 3 bytes */
	{ "/ok/%f0%80%80%ae/other", NULL, "UTF-8" }, /* overlong, 4 bytes */
	{ "/ok/%c0%af/other", NULL, "UTF-8" },	     /* overlong '/' */
	{ "/ok/%c1%9c/other", NULL, "UTF-8" },	     /* overlong '\' */
	{ "/ok/%ed%a0%80", NULL, "UTF-8" },	     /* a surrogate */
	{ "/ok/%f4%90%80%80", NULL, "UTF-8" },	     /* past U+10FFFF */
	{ "/ok/%f5%80%80%80", NULL, "UTF-8" },
	{ "/ok/%ff", NULL, "UTF-8" },
	{ "/ok/%a9", NULL, "UTF-8" }, /* a lone continuation */
	{ "/ok/%c3", NULL, "UTF-8" }, /* truncated */
	{ "/ok/%c3/", NULL, "UTF-8" },
	{ "/ok/%e2%82", NULL, "UTF-8" },
	{ "/ok/%c3%c3%a9", NULL, "UTF-8" },
	{ "/ok/%ef%bc%8e%ef%bc%8e/other", NULL, "compatibility" }, /* U+FF0E */
	{ "/ok/%e2%80%a5/other", NULL, "compatibility" }, /* U+2025 '..' */
	{ "/ok/%e2%80%a4", NULL, "compatibility" },	  /* U+2024 '.' */
	{ "/ok/%ef%b9%92", NULL, "compatibility" },	  /* U+FE52 '.' */
	{ "/ok%ef%bc%8fother", NULL, "compatibility" },	  /* U+FF0F '/' */
	{ "/ok%ef%bc%bcother", NULL, "compatibility" },	  /* U+FF3C '\' */
	{ "/ok/%ef%bc%85%32%65", NULL, "compatibility" }, /* U+FF05 '%' */
	{ "/ok/..%cd%be", NULL, "compatibility" },	  /* U+037E ';' */
	{ "/ok/..%c2%a0", NULL, "compatibility" },	  /* NO-BREAK SPACE */
	{ "/ok/..%e3%80%80", NULL, "compatibility" },	  /* U+3000 */
	{ "/ok/..%e2%80%8b", NULL, "compatibility" },	  /* ZERO WIDTH SP */
	{ "/ok/..%ef%bb%bf", NULL, "compatibility" },	  /* BOM */
	{ "/ok/..%c2%85", NULL, "compatibility" },	  /* NEL, C1 */
	{ "/ok%2Fother", NULL, "encoded slash" },
	{ "/ok%2fother", NULL, "encoded slash" },
	{ "/ok%5cother", NULL, "encoded slash" },
	{ "/ok%00", NULL, "NUL" },
	{ "/ok/%252e%252e/other", NULL, "multiply-encoded" },
	{ "/ok/%252E", NULL, "multiply-encoded" },
	{ "/ok%252fother", NULL, "multiply-encoded" },
	{ "/ok%255c", NULL, "multiply-encoded" },
	{ "/ok%2500", NULL, "multiply-encoded" },
	{ "/ok%2541", NULL, "multiply-encoded" },
	{ "/ok/%2525252e", NULL, "multiply-encoded" },
	{ "/ok/%25%32%65", NULL, "multiply-encoded" }, /* "%252e" decoded */
	{ "/ok/%25%32e", NULL, "multiply-encoded" },
	{ "/ok/%%32%65", NULL, "two hex digits" },
	{ "/ok\\..\\other", NULL, "backslash" },
	{ "/ok#frag", NULL, "fragment" },
	{ "/ok?q#frag", NULL, "fragment" },
	{ "/ok%", NULL, "two hex digits" },
	{ "/ok%4", NULL, "two hex digits" },
	{ "/ok%g0", NULL, "two hex digits" },
	{ "/ok x", NULL, "RFC 3986" },
	{ "/ok\"", NULL, "RFC 3986" },
	{ "/ok\x7f", NULL, "RFC 3986" },
	{ "/ok\xc3\xa9", NULL, "RFC 3986" },
	{ "/ok{x}", NULL, "RFC 3986" },
};

static void test_normalise(void **state)
{
	(void)state;
	for (size_t i = 0; i < sizeof(norm_vecs) / sizeof(norm_vecs[0]); i++) {
		const struct norm_vec *v = &norm_vecs[i];
		size_t len = strlen(v->in);
		char *out = malloc(len + 1);
		const char *why = NULL;
		long n;

		assert_non_null(out);
		n = jr_httprules_normalise_path(v->in, len, out, &why);
		if (v->out) {
			if (n < 0)
				fail_msg("'%s' refused: %s", v->in, why);
			assert_string_equal(out, v->out);
			assert_int_equal(n, (long)strlen(v->out));
		} else {
			if (n >= 0)
				fail_msg("'%s' accepted as '%s'", v->in, out);
			assert_int_equal(n, -EINVAL);
			if (!why || !strstr(why, v->why))
				fail_msg("'%s': reason '%s' lacks '%s'", v->in,
					 why ? why : "(null)", v->why);
		}
		free(out);
	}
}

/* The length is the bound, not a NUL: bytes past @len are never read. */
static void test_normalise_length(void **state)
{
	char out[8];
	const char *why = NULL;

	(void)state;
	assert_int_equal(jr_httprules_normalise_path("/ab/../x", 3, out, &why),
			 3);
	assert_string_equal(out, "/ab");
	assert_int_equal(jr_httprules_normalise_path("/a%41", 3, out, &why),
			 -EINVAL);
}

/* -------------------------------------------------------------- check */

static void rules_from(struct jr_httprules *r, const char *const *texts,
		       size_t n)
{
	struct jr_err err = { 0 };

	jr_httprules_init(r);
	for (size_t i = 0; i < n; i++)
		if (jr_httprules_add(r, texts[i], &err) != 0)
			fail_msg("rule '%s' refused: %s", texts[i], err.msg);
}

struct check_vec {
	const char *scheme, *host;
	uint16_t port;
	const char *method, *target;
	enum jr_http_verdict want;
};

#define OK JR_HTTP_ALLOWED
#define RULE JR_HTTP_DENY_RULE
#define PATH JR_HTTP_DENY_PATH

static const char *const check_rules[] = {
	"GET,HEAD https://api.github.com/repos/our-org/",
	"GET http://allowed.test/ok/",
	"POST http://allowed.test/submit",
	"* http://*.wild.test:8080/any",
	"PUT http://allowed.test:8080/",
};

static const struct check_vec check_vecs[] = {
	/* The prefix ending in '/': below it only. */
	{ "https", "api.github.com", 443, "GET", "/repos/our-org/x", OK },
	{ "https", "api.github.com", 443, "HEAD", "/repos/our-org/x?y", OK },
	{ "https", "API.GITHUB.COM.", 443, "GET", "/repos/our-org/", OK },
	{ "https", "api.github.com", 443, "GET", "/repos/our-org", RULE },
	{ "https", "api.github.com", 443, "GET", "/repos/our-organisation",
	  RULE },
	{ "https", "api.github.com", 443, "GET", "/repos/other/", RULE },
	{ "https", "api.github.com", 443, "GET", "/repos/our-org/../other",
	  PATH },
	{ "https", "api.github.com", 443, "GET", "/repos/our-org/%2e%2e/x",
	  PATH },
	{ "https", "api.github.com", 443, "GET", "/repos/our-org%2Fx", PATH },
	{ "https", "api.github.com", 443, "GET", "/repos/our-org/x%00", PATH },
	{ "https", "api.github.com", 443, "GET", "/repos/our-%6Frg/x", OK },
	/* Methods: exact, case-sensitive. */
	{ "https", "api.github.com", 443, "POST", "/repos/our-org/x", RULE },
	{ "https", "api.github.com", 443, "get", "/repos/our-org/x", RULE },
	{ "https", "api.github.com", 443, "GETX", "/repos/our-org/x", RULE },
	/* Scheme and port are part of the rule. */
	{ "http", "api.github.com", 443, "GET", "/repos/our-org/x", RULE },
	{ "https", "api.github.com", 8443, "GET", "/repos/our-org/x", RULE },
	{ "http", "api.github.com", 80, "GET", "/repos/our-org/x", RULE },
	/* A prefix without '/': itself and below, on a segment boundary. */
	{ "http", "allowed.test", 80, "POST", "/submit", OK },
	{ "http", "allowed.test", 80, "POST", "/submit?x=1", OK },
	{ "http", "allowed.test", 80, "POST", "/submit/more", OK },
	{ "http", "allowed.test", 80, "POST", "/submitted", RULE },
	{ "http", "allowed.test", 80, "POST", "/submit;x", PATH },
	{ "http", "allowed.test", 80, "GET", "/ok/", OK },
	{ "http", "allowed.test", 80, "GET", "/ok", RULE },
	{ "http", "allowed.test", 80, "HEAD", "/ok/x", RULE },
	{ "http", "allowed.test", 80, "GET", "/other", RULE },
	{ "http", "allowed.test", 80, "GET", "/ok/../other", PATH },
	/* The reported bypasses, each one a path under /ok/ to a server
	 * that trims, strips parameters, decodes overlong UTF-8 or decodes
	 * until nothing is left to decode. */
	{ "http", "allowed.test", 80, "GET", "/ok/..%20/other", PATH },
	{ "http", "allowed.test", 80, "GET", "/ok/..%09/other", PATH },
	{ "http", "allowed.test", 80, "GET", "/ok/..%3B/other", PATH },
	{ "http", "allowed.test", 80, "GET", "/ok/%c0%ae%c0%ae/other", PATH },
	{ "http", "allowed.test", 80, "GET", "/ok/%25252e%25252e/other", PATH },
	{ "http", "allowed.test", 80, "GET", "/ok/a%20b/%C3%A9", OK },
	{ "http", "allowed.test", 8080, "PUT", "/anything", OK },
	{ "http", "allowed.test", 8080, "GET", "/ok/", RULE },
	/* Wildcards: strictly below, any method. */
	{ "http", "a.wild.test", 8080, "DELETE", "/any/x", OK },
	{ "http", "a.b.wild.test", 8080, "BREW", "/any", OK },
	{ "http", "a.wild.test", 8080, "GET", "/anyx", RULE },
	{ "http", "a.wild.test", 80, "GET", "/any", RULE },
	/* Hosts no rule names are not governed by the rules. */
	{ "http", "wild.test", 8080, "GET", "/../x", OK },
	{ "http", "xwild.test", 8080, "GET", "/x", OK },
	{ "http", "other.test", 80, "POST", "/x", OK },
	{ "https", "github.com", 443, "GET", "/", OK },
};

static void test_check(void **state)
{
	struct jr_httprules r;

	(void)state;
	rules_from(&r, check_rules, sizeof(check_rules) / sizeof(*check_rules));
	for (size_t i = 0; i < sizeof(check_vecs) / sizeof(check_vecs[0]);
	     i++) {
		const struct check_vec *v = &check_vecs[i];
		const char *why = "unset";
		enum jr_http_verdict got =
		    jr_httprules_check(&r, v->scheme, v->host, v->port,
				       v->method, v->target, &why);

		if (got != v->want)
			fail_msg("%s %s://%s:%u%s: got %s, want %s", v->method,
				 v->scheme, v->host, v->port, v->target,
				 jr_http_verdict_name(got),
				 jr_http_verdict_name(v->want));
		if (got == OK)
			assert_null(why);
		else
			assert_non_null(why);
	}
	jr_httprules_free(&r);
}

static void test_host_has_rules(void **state)
{
	struct jr_httprules r;

	(void)state;
	assert_false(jr_httprules_host_has_rules(NULL, "a.test"));
	rules_from(&r, check_rules, sizeof(check_rules) / sizeof(*check_rules));
	assert_true(jr_httprules_host_has_rules(&r, "api.github.com"));
	assert_true(jr_httprules_host_has_rules(&r, "Allowed.Test."));
	assert_true(jr_httprules_host_has_rules(&r, "x.y.wild.test"));
	assert_false(jr_httprules_host_has_rules(&r, "wild.test"));
	assert_false(jr_httprules_host_has_rules(&r, "github.com"));
	assert_false(jr_httprules_host_has_rules(&r, "allowed.test.evil"));
	assert_false(jr_httprules_host_has_rules(&r, ""));
	/* No rules at all: nothing is governed, nothing is refused. */
	jr_httprules_free(&r);
	assert_false(jr_httprules_host_has_rules(&r, "api.github.com"));
	assert_int_equal(
	    jr_httprules_check(&r, "http", "a.test", 80, "GET", "/../x", NULL),
	    OK);
	assert_int_equal(jr_httprules_check(NULL, "http", "a.test", 80, "GET",
					    "/../x", NULL),
			 OK);
}

static void test_add_limits(void **state)
{
	struct jr_httprules r;
	struct jr_err err = { 0 };

	(void)state;
	jr_httprules_init(&r);
	for (int i = 0; i < JR_HTTPRULES_MAX; i++)
		assert_int_equal(
		    jr_httprules_add(&r, "GET http://a.test/", &err), 0);
	assert_int_equal(jr_httprules_add(&r, "GET http://a.test/", &err),
			 -E2BIG);
	assert_int_equal(r.n, JR_HTTPRULES_MAX);
	/* A refused rule leaves the set unchanged. */
	assert_int_equal(jr_httprules_add(&r, "get http://a.test/", &err),
			 -EINVAL);
	assert_int_equal(r.n, JR_HTTPRULES_MAX);
	jr_httprules_free(&r);
	assert_int_equal(r.n, 0);
}

static void test_verdict_names(void **state)
{
	(void)state;
	assert_string_equal(jr_http_verdict_name(JR_HTTP_ALLOWED), "allowed");
	assert_string_equal(jr_http_verdict_name(JR_HTTP_DENY_RULE),
			    "http-rule");
	assert_string_equal(jr_http_verdict_name(JR_HTTP_DENY_PATH),
			    "http-path");
	assert_string_equal(jr_http_verdict_name(JR_HTTP_NEED_INSPECTION),
			    "http-rules-need-inspection");
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_parse_rejects),
		cmocka_unit_test(test_parse_accepts),
		cmocka_unit_test(test_normalise),
		cmocka_unit_test(test_normalise_length),
		cmocka_unit_test(test_check),
		cmocka_unit_test(test_host_has_rules),
		cmocka_unit_test(test_add_limits),
		cmocka_unit_test(test_verdict_names),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
