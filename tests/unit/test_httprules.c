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
 * a host they do not name. The decisions are at the top of src/httprules.c.
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
	{ "GET http://a.test/x/%2e%2e/y", "dot segment" },
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
	{ "/%41%62%7e%2D%2e%5F", "/Ab~-._", NULL }, /* unreserved: decoded */
	{ "/%20%3a%3F%25", "/%20%3A%3F%25", NULL }, /* others: kept, upper */
	{ "/a//b", "/a//b", NULL },
	{ "/a.b/..c/c../...", "/a.b/..c/c../...", NULL },
	{ "/a;p=1/b:c@d!$&'()*+,=", "/a;p=1/b:c@d!$&'()*+,=", NULL },
	{ "/.x", "/.x", NULL },
	{ "", NULL, "starting with '/'" },
	{ "*", NULL, "starting with '/'" },
	{ "a/b", NULL, "starting with '/'" },
	{ "http://a.test/", NULL, "starting with '/'" },
	{ "/repos/our-org/../other", NULL, "dot segment" },
	{ "/repos/our-org/..", NULL, "dot segment" },
	{ "/repos/./x", NULL, "dot segment" },
	{ "/.", NULL, "dot segment" },
	{ "/..", NULL, "dot segment" },
	{ "/ok/%2e%2e/other", NULL, "dot segment" },
	{ "/ok/%2E%2E/other", NULL, "dot segment" },
	{ "/ok/.%2e/other", NULL, "dot segment" },
	{ "/ok/%2e/other", NULL, "dot segment" },
	{ "/ok/..;/other", NULL, "dot segment" },
	{ "/ok/..;x=1/other", NULL, "dot segment" },
	{ "/ok/.;/other", NULL, "dot segment" },
	{ "/ok/..?x", NULL, "dot segment" },
	{ "/ok%2Fother", NULL, "encoded slash" },
	{ "/ok%2fother", NULL, "encoded slash" },
	{ "/ok%5cother", NULL, "encoded slash" },
	{ "/ok%00", NULL, "NUL" },
	{ "/ok/%252e%252e/other", NULL, "double-encoded" },
	{ "/ok/%252E", NULL, "double-encoded" },
	{ "/ok%252fother", NULL, "double-encoded" },
	{ "/ok%255c", NULL, "double-encoded" },
	{ "/ok%2500", NULL, "double-encoded" },
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
	{ "http", "allowed.test", 80, "POST", "/submit;x", RULE },
	{ "http", "allowed.test", 80, "GET", "/ok/", OK },
	{ "http", "allowed.test", 80, "GET", "/ok", RULE },
	{ "http", "allowed.test", 80, "HEAD", "/ok/x", RULE },
	{ "http", "allowed.test", 80, "GET", "/other", RULE },
	{ "http", "allowed.test", 80, "GET", "/ok/../other", PATH },
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
