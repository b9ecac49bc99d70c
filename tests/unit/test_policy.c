// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * test_policy.c - the allowlist grammar and its decisions, table-driven.
 *
 * Each table row is one vector; each would fail under a concrete mistake:
 * a rejected entry that gets accepted (or accepted with another message),
 * a wildcard that matches its apex or a look-alike name, a port scope that
 * leaks, a numeric host read as a name, a special address that gets through
 * the guard, an --allow-file error without its line number. The decisions
 * these vectors pin are explained at the top of src/policy/policy.c.
 */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <arpa/inet.h>
#include <sys/socket.h>
#include <sys/un.h>

#include <cmocka.h>

#include "cleanup.h"
#include "err.h"
#include "policy.h"

#define A JR_ALLOWED
#define NOT JR_DENY_NOT_ALLOWED
#define PORT JR_DENY_PORT
#define BAD JR_DENY_BAD_HOST
#define SPECIAL JR_DENY_SPECIAL_ADDR
#define LOCAL JR_DENY_LOCAL_ADDR

/* The limit policy.c enforces; a test below fills it exactly. */
#define MAX_ENTRIES 4096

/* "x" repeated @n times, then @tail, in a static buffer of @buf. */
static const char *repeat(char *buf, size_t size, char c, size_t n,
			  const char *tail)
{
	assert_true(n + strlen(tail) < size);
	memset(buf, c, n);
	strcpy(buf + n, tail);
	return buf;
}

/*
 * policy_from() - a policy of the space-separated entries in @list.
 * A vector whose policy does not parse is a broken test, so fail loudly.
 */
static void policy_from(struct jr_policy *p, const char *list)
{
	char *copy = strdup(list), *save = NULL;
	struct jr_err err = { 0 };

	assert_non_null(copy);
	jr_policy_init(p);
	for (char *tok = strtok_r(copy, " ", &save); tok;
	     tok = strtok_r(NULL, " ", &save))
		if (jr_policy_add(p, tok, &err) != 0)
			fail_msg("test policy '%s' does not parse: %s", list,
				 err.msg);
	free(copy);
}

/* ------------------------------------------------------ parse: rejects */

struct reject_vec {
	const char *entry;
	const char *rule;  /* a word of the rule, must be in the message */
	const char *also;  /* another substring (a suggestion), or NULL */
	const char *shown; /* the entry as the message quotes it, if escaped */
};

#define REJECT(entry, rule)                                                    \
	{                                                                      \
		entry, rule, NULL, NULL                                        \
	}
#define REJECT_HINT(entry, rule, also)                                         \
	{                                                                      \
		entry, rule, also, NULL                                        \
	}
#define REJECT_SHOWN(entry, rule, shown)                                       \
	{                                                                      \
		entry, rule, NULL, shown                                       \
	}

static char long_label[80], long_name[300], long_entry[320];
static char long_suffix[300], max_suffix[300], max_name[300];
static char max_below[300], label_63[80];

static void make_long_strings(void)
{
	/* A 64-character label; a 254-character name of 63-char labels. */
	repeat(long_label, sizeof(long_label), 'a', 64, ".com");
	snprintf(long_name, sizeof(long_name), "%.63s.%.63s.%.63s.%.62s",
		 long_label, long_label, long_label, long_label);
	assert_int_equal(strlen(long_name), 254);
	/* 253 characters: the longest valid name. */
	snprintf(max_name, sizeof(max_name), "%.63s.%.63s.%.63s.%.61s",
		 long_label, long_label, long_label, long_label);
	assert_int_equal(strlen(max_name), 253);
	/* "*." + 252: valid as a name, but nothing fits below it. */
	snprintf(long_suffix, sizeof(long_suffix), "*.%.63s.%.63s.%.63s.%.60s",
		 long_label, long_label, long_label, long_label);
	assert_int_equal(strlen(long_suffix), 2 + 252);
	/* "*." + 251, and the 253-character name just below it. */
	snprintf(max_suffix, sizeof(max_suffix), "*.%.63s.%.63s.%.63s.%.59s",
		 long_label, long_label, long_label, long_label);
	snprintf(max_below, sizeof(max_below), "b%s", max_suffix + 1);
	assert_int_equal(strlen(max_below), 253);
	snprintf(label_63, sizeof(label_63), "%.63s.example.com", long_label);
	repeat(long_entry, sizeof(long_entry), 'a', 300, "");
}

static const struct reject_vec reject_vectors[] = {
	/* wildcards */
	REJECT("*", "bare wildcard"),
	REJECT("*.", "needs a suffix"),
	REJECT("*..", "needs a suffix"),
	REJECT("a.*", "whole first label"),
	REJECT("f*o.com", "whole first label"),
	REJECT("**.a.com", "whole first label"),
	REJECT("*.*.a.com", "whole first label"),
	REJECT_HINT("foo.*.com", "whole first label", "'*.example.com'"),
	REJECT("*example.com", "whole first label"),
	REJECT("*.0.1", "all digits"),
	REJECT("*.10.0.0.1", "all digits"),
	REJECT("*.a_b.com", "underscore"),
	REJECT(long_suffix, "too long"),
	/* labels and characters */
	REJECT("a..b", "empty label"),
	REJECT(".a", "empty label"),
	REJECT(".example.com", "empty label"),
	REJECT("example.com..", "empty label"),
	REJECT(".", "empty"),
	REJECT("", "empty"),
	REJECT(long_label, "63"),
	REJECT(long_name, "253"),
	REJECT("a_b.com", "underscore"),
	REJECT("_dmarc.example.com", "underscore"),
	REJECT("-a.com", "'-'"),
	REJECT("a-.com", "'-'"),
	REJECT("a.-b.com", "'-'"),
	REJECT("exa!mple.com", "'!' is not allowed"),
	REJECT("exa%mple.com", "'%' is not allowed"),
	REJECT_SHOWN("b\xc3\xbc"
		     "cher.de",
		     "punycode", "b\\xc3\\xbccher.de"),
	REJECT_SHOWN("example.com\n", "control", "example.com\\x0a"),
	REJECT("exa mple.com", "space"),
	REJECT("example.123", "all digits"),
	REJECT(long_entry, "at most 299"),
	/* URLs, paths, user information */
	REJECT("http://example.com", "URL"),
	REJECT("https://example.com:443/x", "URL"),
	REJECT("example.com/x", "path"),
	REJECT("example.com:443/x", "path"),
	REJECT("u@example.com", "user information"),
	REJECT("u:p@example.com:443", "user information"),
	/* ports */
	REJECT("example.com:0", "port 0"),
	REJECT("example.com:65536", "out of range"),
	REJECT("example.com:99999999999999999999", "out of range"),
	REJECT("example.com:", "missing"),
	REJECT("example.com:http", "not a decimal"),
	REJECT("example.com:+80", "not a decimal"),
	REJECT("example.com:-1", "not a decimal"),
	REJECT("example.com:080", "leading zeros"),
	REJECT("example.com:00", "leading zeros"),
	REJECT(":80", "host is missing"),
	REJECT("[2001:db8::1]:", "missing"),
	REJECT("[2001:db8::1]:0", "port 0"),
	REJECT("[2001:db8::1]:65536", "out of range"),
	REJECT("[2001:db8::1]x", "only ':port'"),
	REJECT("[2001:db8::1", "closing"),
	REJECT("2001:db8::1]:80", "without '['"),
	REJECT("[]:80", "empty brackets"),
	REJECT("[192.0.2.1]:80", "only for IPv6"),
	REJECT("[example.com]:80", "only for IPv6"),
	REJECT("example.com:80:90", "not a valid IPv6"),
	/* IPv4 addresses and numeric look-alikes */
	REJECT("0.1", "not a valid IPv4"),
	REJECT("1.2.3", "not a valid IPv4"),
	REJECT("256.1.1.1", "not a valid IPv4"),
	REJECT("01.2.3.4", "not a valid IPv4"),
	REJECT("1.2.3.4.5", "not a valid IPv4"),
	REJECT("1.2.3.4.", "not a valid IPv4"),
	REJECT("2130706433", "not a valid IPv4"),
	REJECT("0x7f000001", "numeric"),
	REJECT("0x7f.0.0.1", "numeric"),
	REJECT("0x7f.1", "numeric"),
	/* IPv6 addresses */
	REJECT("2001:db8::g", "not a valid IPv6"),
	REJECT("1:2:3:4:5:6:7:8:9", "not a valid IPv6"),
	REJECT("2001:db8:::1", "not a valid IPv6"),
	REJECT("fe80::1%eth0", "zone"),
	REJECT("[fe80::1%eth0]:443", "zone"),
	REJECT_HINT("::ffff:192.0.2.7", "IPv4-mapped", "'192.0.2.7'"),
	REJECT_HINT("[::ffff:192.0.2.7]:443", "IPv4-mapped", "'192.0.2.7'"),
	REJECT_HINT("::ffff:0:0/96", "IPv4-mapped", "'0.0.0.0/0'"),
	REJECT_HINT("::ffff:10.0.0.0/104", "IPv4-mapped", "'10.0.0.0/8'"),
	REJECT_HINT("64:ff9b::192.0.2.7", "NAT64", "'192.0.2.7'"),
	REJECT_HINT("64:ff9b::/96", "NAT64", "'0.0.0.0/0'"),
	REJECT_HINT("::192.0.2.7", "IPv4-compatible", "'192.0.2.7'"),
	REJECT_HINT("::/96", "IPv4-compatible", "'0.0.0.0/0'"),
	/* CIDR */
	REJECT_HINT("10.0.0.1/8", "host bits", "'10.0.0.0/8'"),
	REJECT_HINT("192.0.2.1/31", "host bits", "'192.0.2.0/31'"),
	REJECT("10.0.0.0/33", "out of range"),
	REJECT("10.0.0.0/", "missing after '/'"),
	REJECT("10.0.0.0/08", "leading zeros"),
	REJECT("10.0.0.0/-1", "not a decimal"),
	REJECT("10.0.0.0/8/8", "not a decimal"),
	REJECT("/24", "missing before '/'"),
	REJECT("0.1/8", "not a valid IPv4"),
	REJECT_HINT("2001:db8::1/64", "host bits", "'2001:db8::/64'"),
	REJECT("2001:db8::/129", "out of range"),
	REJECT("[2001:db8::/32]:0", "port 0"),
	REJECT_HINT("[2001:db8::1/64]:443", "host bits", "'2001:db8::/64'"),
};

static void test_rejects(void **state)
{

	for (size_t i = 0; i < ARRAY_SIZE(reject_vectors); i++) {
		struct jr_policy p;
		struct jr_err err = { 0 };
		char quoted[400];
		int r;

		jr_policy_init(&p);
		r = jr_policy_add(&p, reject_vectors[i].entry, &err);
		if (r != -EINVAL)
			fail_msg("'%s': expected -EINVAL, got %d (%s)",
				 reject_vectors[i].entry, r, err.msg);
		assert_int_equal(p.n, 0);
		assert_int_equal(err.code, EINVAL);
		snprintf(quoted, sizeof(quoted), "--allow '%s': ",
			 reject_vectors[i].shown ? reject_vectors[i].shown
						 : reject_vectors[i].entry);
		if (strncmp(err.msg, quoted, strlen(quoted)) != 0)
			fail_msg("'%s': message does not start with [%s]: %s",
				 reject_vectors[i].entry, quoted, err.msg);
		if (!strstr(err.msg, reject_vectors[i].rule))
			fail_msg("'%s': message lacks '%s': %s",
				 reject_vectors[i].entry,
				 reject_vectors[i].rule, err.msg);
		if (reject_vectors[i].also &&
		    !strstr(err.msg, reject_vectors[i].also))
			fail_msg("'%s': message lacks '%s': %s",
				 reject_vectors[i].entry,
				 reject_vectors[i].also, err.msg);
		if (strchr(err.msg, '\n'))
			fail_msg("'%s': message is not one line",
				 reject_vectors[i].entry);
		jr_policy_free(&p);
	}
}

/* ------------------------------------------------------ parse: accepts */

struct accept_vec {
	const char *entry;
	enum jr_allow_kind kind;
	const char *value; /* name, wildcard suffix, or address text */
	uint8_t prefix;	   /* ADDR only */
	uint16_t port;
};

#define HOST(entry, name, port)                                                \
	{                                                                      \
		entry, JR_ALLOW_HOST, name, 0, port                            \
	}
#define WILD(entry, suffix, port)                                              \
	{                                                                      \
		entry, JR_ALLOW_WILDCARD, suffix, 0, port                      \
	}
#define ADDR(entry, addr, prefix, port)                                        \
	{                                                                      \
		entry, JR_ALLOW_ADDR, addr, prefix, port                       \
	}

static void check_accepted(const struct accept_vec *v,
			   const struct jr_allow_entry *e)
{
	uint8_t want[16] = { 0 };
	int family;

	if (e->kind != v->kind)
		fail_msg("'%s': kind %d, expected %d", v->entry, e->kind,
			 v->kind);
	if (e->port != v->port)
		fail_msg("'%s': port %u, expected %u", v->entry, e->port,
			 v->port);
	if (strcmp(e->text, v->entry) != 0)
		fail_msg("'%s': text '%s'", v->entry, e->text);
	if (v->kind != JR_ALLOW_ADDR) {
		if (strcmp(e->name, v->value) != 0)
			fail_msg("'%s': name '%s', expected '%s'", v->entry,
				 e->name, v->value);
		return;
	}
	family = strchr(v->value, ':') ? AF_INET6 : AF_INET;
	assert_int_equal(inet_pton(family, v->value, want), 1);
	if (e->family != family || e->prefix != v->prefix ||
	    memcmp(e->addr, want, family == AF_INET ? 4 : 16) != 0)
		fail_msg("'%s': family %d prefix %u, expected %s/%u", v->entry,
			 e->family, e->prefix, v->value, v->prefix);
}

static const struct accept_vec accept_vectors[] = {
	HOST("example.com", "example.com", 0),
	HOST("Example.COM.", "example.com", 0),
	HOST("example.com:443", "example.com", 443),
	HOST("example.com:1", "example.com", 1),
	HOST("example.com:65535", "example.com", 65535),
	WILD("*.example.com", "example.com", 0),
	WILD("*.Example.Com.:8443", "example.com", 8443),
	WILD("*.com", "com", 0),
	HOST("xn--bcher-kva.de", "xn--bcher-kva.de", 0),
	HOST("a-b.c-d.com", "a-b.c-d.com", 0),
	HOST("1password.com", "1password.com", 0),
	HOST("1.2.3.com", "1.2.3.com", 0),
	HOST("0x7f.example.com", "0x7f.example.com", 0),
	HOST("localhost", "localhost", 0),
	ADDR("192.0.2.7", "192.0.2.7", 32, 0),
	ADDR("192.0.2.7:80", "192.0.2.7", 32, 80),
	ADDR("192.0.2.0/24", "192.0.2.0", 24, 0),
	ADDR("10.0.0.0/8:443", "10.0.0.0", 8, 443),
	ADDR("0.0.0.0/0", "0.0.0.0", 0, 0),
	ADDR("2001:db8::1", "2001:db8::1", 128, 0),
	ADDR("2001:db8::1:443", "2001:db8::1:443", 128, 0),
	ADDR("[2001:db8::1]:443", "2001:db8::1", 128, 443),
	ADDR("[2001:DB8::1]", "2001:db8::1", 128, 0),
	ADDR("2001:db8::/32", "2001:db8::", 32, 0),
	ADDR("[2001:db8::/32]:443", "2001:db8::", 32, 443),
	ADDR("::1", "::1", 128, 0),
	ADDR("::", "::", 128, 0),
	ADDR("::/127", "::", 127, 0),
	ADDR("::/0", "::", 0, 0),
	ADDR("::fffe:0:0/95", "::fffe:0:0", 95, 0),
};

static const struct accept_vec accept_longest_vectors[] = {
	HOST(max_name, max_name, 0),
	HOST(label_63, label_63, 0),
	WILD(max_suffix, max_suffix + 2, 0),
};

static void test_accepts(void **state)
{
	struct jr_policy p;
	struct jr_err err = { 0 };
	size_t i;

	jr_policy_init(&p);
	for (i = 0; i < ARRAY_SIZE(accept_vectors); i++) {
		if (jr_policy_add(&p, accept_vectors[i].entry, &err) != 0)
			fail_msg("'%s' refused: %s", accept_vectors[i].entry,
				 err.msg);
		assert_int_equal(p.n, i + 1);
		check_accepted(&accept_vectors[i], &p.entries[i]);
	}
	for (size_t j = 0; j < ARRAY_SIZE(accept_longest_vectors); j++, i++) {
		if (jr_policy_add(&p, accept_longest_vectors[j].entry, &err) !=
		    0)
			fail_msg("'%s' refused: %s",
				 accept_longest_vectors[j].entry, err.msg);
		check_accepted(&accept_longest_vectors[j], &p.entries[i]);
	}
	/* The longest suffix still has a name below it, of 253 characters. */
	assert_int_equal(jr_policy_check_name(&p, max_below, 1), A);
	jr_policy_free(&p);
}

/* ---------------------------------------------------------- check_name */

struct name_vec {
	const char *policy; /* space-separated entries */
	const char *host;
	uint16_t port;
	enum jr_deny_reason want;
};

static void run_name_vectors(const struct name_vec *v, size_t n)
{
	for (size_t i = 0; i < n; i++) {
		struct jr_policy p;
		enum jr_deny_reason got;

		policy_from(&p, v[i].policy);
		got = jr_policy_check_name(&p, v[i].host, v[i].port);
		if (got != v[i].want)
			fail_msg(
			    "policy '%s', host '%s' port %u: %s, expected %s",
			    v[i].policy, v[i].host, v[i].port,
			    jr_deny_reason_name(got),
			    jr_deny_reason_name(v[i].want));
		jr_policy_free(&p);
	}
}

static const struct name_vec name_exact_vectors[] = {
	/* exact: that name only, any case, one trailing dot */
	{ "example.com", "example.com", 443, A },
	{ "example.com", "EXAMPLE.COM", 443, A },
	{ "example.com", "example.com.", 443, A },
	{ "Example.COM.", "eXample.Com.", 80, A },
	{ "example.com", "a.example.com", 443, NOT },
	{ "example.com", "notexample.com", 443, NOT },
	{ "example.com", "example.com.evil.com", 443, NOT },
	{ "example.com", "evil-example.com", 443, NOT },
	{ "example.com", "example.co", 443, NOT },
	{ "example.com", "example.comm", 443, NOT },
	{ "example.com", "example.com..", 443, BAD },
	{ "example.com", ".example.com", 443, BAD },
	/* wildcard: strictly below the suffix, at any depth */
	{ "*.example.com", "a.example.com", 443, A },
	{ "*.example.com", "x.y.example.com", 443, A },
	{ "*.example.com", "A.EXAMPLE.COM.", 443, A },
	{ "*.example.com", "example.com", 443, NOT },
	{ "*.example.com", "example.com.", 443, NOT },
	{ "*.example.com", "notexample.com", 443, NOT },
	{ "*.example.com", "xexample.com", 443, NOT },
	{ "*.example.com", "evil-example.com", 443, NOT },
	{ "*.example.com", "example.com.evil.com", 443, NOT },
	{ "*.example.com", "a.example.com.evil.com", 443, NOT },
	{ "*.example.com", "a.example.co", 443, NOT },
	{ "*.example.com", "*.example.com", 443, BAD },
	{ "*.example.com", "a..example.com", 443, BAD },
	{ "*.com", "example.com", 443, A },
	{ "*.com", "com", 443, NOT },
	/* both: the apex needs its own entry */
	{ "example.com *.example.com", "example.com", 443, A },
	{ "example.com *.example.com", "w.example.com", 443, A },
};

static void test_check_name_exact_and_wildcard(void **state)
{

	run_name_vectors(name_exact_vectors, ARRAY_SIZE(name_exact_vectors));
}

static const struct name_vec name_port_vectors[] = {
	{ "example.com:443", "example.com", 443, A },
	{ "example.com:443", "example.com", 80, PORT },
	{ "example.com:443", "example.com", 0, PORT },
	{ "example.com:443", "other.com", 443, NOT },
	{ "example.com:443 example.com:80", "example.com", 80, A },
	{ "example.com:443 example.com:80", "example.com", 8080, PORT },
	{ "example.com:443 example.com", "example.com", 8080, A },
	{ "*.api.example.com:8443", "x.api.example.com", 8443, A },
	{ "*.api.example.com:8443", "x.api.example.com", 443, PORT },
	{ "*.api.example.com:8443", "api.example.com", 8443, NOT },
	{ "other.com", "other.com", 1, A },
	{ "other.com", "other.com", 65535, A },
	{ "other.com", "other.com", 0, PORT },
	{ "192.0.2.7:443", "192.0.2.7", 443, A },
	{ "192.0.2.7:443", "192.0.2.7", 444, PORT },
	{ "[2001:db8::1]:443", "2001:db8::1", 443, A },
	{ "[2001:db8::1]:443", "2001:db8::1", 80, PORT },
	{ "2001:db8::1:443", "2001:db8::1", 443, NOT },
	{ "2001:db8::1:443", "2001:db8::1:443", 80, A },
};

static void test_check_name_ports(void **state)
{

	run_name_vectors(name_port_vectors, ARRAY_SIZE(name_port_vectors));
}

/* A policy open to every name and address: only BAD can come back. */
#define OPEN "*.example.com *.com example.com 0.0.0.0/0 ::/0"

static const struct name_vec name_bad_vectors[] = {
	/* what inet_aton(3) would read as 127.0.0.1 */
	{ OPEN, "2130706433", 80, BAD },
	{ OPEN, "0x7f.1", 80, BAD },
	{ OPEN, "0x7f000001", 80, BAD },
	{ OPEN, "127.1", 80, BAD },
	{ OPEN, "127.0.1", 80, BAD },
	{ OPEN, "017.0.0.1", 80, BAD },
	{ OPEN, "0177.0.0.1", 80, BAD },
	{ OPEN, "0x7F.0.0.1", 80, BAD },
	{ OPEN, "1.2.3.4.", 80, BAD },
	{ OPEN, "256.1.1.1", 80, BAD },
	{ OPEN, "1.2.3.4.5", 80, BAD },
	/* not names by the grammar */
	{ OPEN, "", 80, BAD },
	{ OPEN, ".", 80, BAD },
	{ OPEN, "a_b.example.com", 80, BAD },
	{ OPEN, "-a.example.com", 80, BAD },
	{ OPEN, "a-.example.com", 80, BAD },
	{ OPEN, "x.123", 80, BAD },
	{ OPEN, "exa mple.com", 80, BAD },
	{ OPEN, "example.com ", 80, BAD },
	{ OPEN,
	  "b\xc3\xbc"
	  "cher.example.com",
	  80, BAD },
	{ OPEN, "example.com:443", 80, BAD },
	{ OPEN, "[::1]", 80, BAD },
	{ OPEN, "[2001:db8::1]", 80, BAD },
	{ OPEN, "fe80::1%eth0", 80, BAD },
	{ OPEN, "http://example.com", 80, BAD },
	{ OPEN, "u@example.com", 80, BAD },
	{ OPEN, long_name, 80, BAD },
	{ OPEN, long_label, 80, BAD },
	/* and their well-formed neighbours are fine */
	{ OPEN, "127.0.0.1", 80, A },
	{ OPEN, "0x7f.example.com", 80, A },
	{ OPEN, label_63, 80, A },
	{ OPEN, max_name, 80, NOT }, /* valid, so not BAD; no entry */
};

static void test_check_name_bad_hosts(void **state)
{

	run_name_vectors(name_bad_vectors, ARRAY_SIZE(name_bad_vectors));
	assert_int_equal(jr_policy_check_name(NULL, "example.com", 80), BAD);
	{
		struct jr_policy p;

		policy_from(&p, OPEN);
		assert_int_equal(jr_policy_check_name(&p, NULL, 80), BAD);
		jr_policy_free(&p);
	}
}

#define NETS "192.0.2.0/24:443 198.51.100.7 2001:db8::/32"

static const struct name_vec name_literal_vectors[] = {
	/* CIDR boundaries */
	{ NETS, "192.0.2.0", 443, A },
	{ NETS, "192.0.2.255", 443, A },
	{ NETS, "192.0.3.0", 443, NOT },
	{ NETS, "192.0.1.255", 443, NOT },
	{ NETS, "192.0.2.7", 80, PORT },
	{ NETS, "198.51.100.7", 22, A },
	{ NETS, "198.51.100.8", 22, NOT },
	{ NETS, "198.51.100.6", 22, NOT },
	{ NETS, "2001:db8::1", 1, A },
	{ NETS, "2001:DB8:FFFF:FFFF:FFFF:FFFF:FFFF:FFFF", 1, A },
	{ NETS, "2001:db9::", 1, NOT },
	{ NETS, "2001:db7:ffff:ffff:ffff:ffff:ffff:ffff", 1, NOT },
	{ "10.0.0.0/31", "10.0.0.1", 80, A },
	{ "10.0.0.0/31", "10.0.0.2", 80, NOT },
	{ "10.0.0.128/25", "10.0.0.127", 80, NOT },
	{ "10.0.0.128/25", "10.0.0.128", 80, A },
	{ "10.0.0.128/25", "10.0.0.255", 80, A },
	{ "0.0.0.0/0", "255.255.255.255", 80, A },
	{ "2001:db8::/127", "2001:db8::1", 80, A },
	{ "2001:db8::/127", "2001:db8::2", 80, NOT },
	/* IPv4 carried in IPv6 is matched as IPv4 */
	{ NETS, "::ffff:192.0.2.7", 443, A },
	{ NETS, "::ffff:198.51.100.8", 443, NOT },
	{ NETS, "64:ff9b::198.51.100.7", 443, A },
	{ NETS, "::198.51.100.7", 443, A },
	{ "::/0", "::ffff:8.8.8.8", 443, NOT },
	{ "::/0", "64:ff9b::8.8.8.8", 443, NOT },
	{ "::/0", "::8.8.8.8", 443, NOT },
	{ "::/0", "::1", 443, A },
	{ "::/0", "::", 443, A },
	{ "::/0", "2001:db8::1", 443, A },
	{ "0.0.0.0/0", "::ffff:8.8.8.8", 443, A },
	/* no cross-matching between names and addresses */
	{ "example.com", "93.184.216.34", 443, NOT },
	{ "192.0.2.7", "192.0.2.7.nip.io", 443, NOT },
	{ "*.example.com 0.0.0.0/0", "10.0.0.1.example.com", 443, A },
	{ "10.0.0.1", "10.0.0.1", 443, A },
	{ "10.0.0.1", "0.1", 443, BAD },
};

static void test_check_name_literals(void **state)
{

	run_name_vectors(name_literal_vectors,
			 ARRAY_SIZE(name_literal_vectors));
}

/* ------------------------------------------------------- check_address */

struct addr_vec {
	const char *policy;
	const char *addr;
	uint16_t port;
	enum jr_deny_reason want;
};

typedef enum jr_deny_reason (*addr_check_fn)(const struct jr_policy *,
					     const struct sockaddr *, uint16_t);

static enum jr_deny_reason check_text_with(addr_check_fn check,
					   const struct jr_policy *p,
					   const char *text, uint16_t port)
{
	struct sockaddr_in6 sin6 = { .sin6_family = AF_INET6 };
	struct sockaddr_in sin = { .sin_family = AF_INET };

	if (strchr(text, ':')) {
		assert_int_equal(inet_pton(AF_INET6, text, &sin6.sin6_addr), 1);
		sin6.sin6_port = htons(1); /* ignored */
		return check(p, (struct sockaddr *)&sin6, port);
	}
	assert_int_equal(inet_pton(AF_INET, text, &sin.sin_addr), 1);
	sin.sin_port = htons(1);
	return check(p, (struct sockaddr *)&sin, port);
}

static void run_vectors_with(addr_check_fn check, const struct addr_vec *v,
			     size_t n)
{
	for (size_t i = 0; i < n; i++) {
		struct jr_policy p;
		enum jr_deny_reason got;

		policy_from(&p, v[i].policy);
		got = check_text_with(check, &p, v[i].addr, v[i].port);
		if (got != v[i].want)
			fail_msg(
			    "policy '%s', address %s port %u: %s, expected %s",
			    v[i].policy, v[i].addr, v[i].port,
			    jr_deny_reason_name(got),
			    jr_deny_reason_name(v[i].want));
		jr_policy_free(&p);
	}
}

static void run_addr_vectors(const struct addr_vec *v, size_t n)
{
	run_vectors_with(jr_policy_check_address, v, n);
}

/* An empty policy: only the guard speaks. */
static const struct addr_vec special_vectors[] = {
	{ "", "0.0.0.0", 80, SPECIAL },
	{ "", "0.255.255.255", 80, SPECIAL },
	{ "", "1.0.0.0", 80, A },
	{ "", "127.0.0.1", 80, SPECIAL },
	{ "", "127.255.255.255", 80, SPECIAL },
	{ "", "126.255.255.255", 80, A },
	{ "", "128.0.0.0", 80, A },
	{ "", "169.254.169.254", 80, SPECIAL },
	{ "", "169.254.0.0", 80, SPECIAL },
	{ "", "169.253.255.255", 80, A },
	{ "", "169.255.0.0", 80, A },
	{ "", "224.0.0.1", 80, SPECIAL },
	{ "", "239.255.255.255", 80, SPECIAL },
	{ "", "223.255.255.255", 80, A },
	{ "", "240.0.0.0", 80, A },
	{ "", "255.255.255.255", 80, SPECIAL },
	{ "", "255.255.255.254", 80, A },
	{ "", "10.0.0.1", 80, SPECIAL },
	{ "", "192.168.1.1", 80, SPECIAL },
	{ "", "100.64.77.1", 80, SPECIAL },
	{ "", "8.8.8.8", 0, PORT },
	{ "", "::", 80, SPECIAL },
	{ "", "::1", 80, SPECIAL },
	{ "", "fe80::1", 80, SPECIAL },
	{ "", "febf:ffff:ffff:ffff:ffff:ffff:ffff:ffff", 80, SPECIAL },
	{ "", "fe7f:ffff:ffff:ffff:ffff:ffff:ffff:ffff", 80, A },
	/* site-local, deprecated (RFC 3879) but still a site's (issue 21) */
	{ "", "fec0::1", 80, SPECIAL },
	{ "", "feff:ffff:ffff:ffff:ffff:ffff:ffff:ffff", 80, SPECIAL },
	{ "", "ff02::1", 80, SPECIAL },
	{ "", "ff00::", 80, SPECIAL },
	{ "", "feff::1", 80, SPECIAL },
	{ "", "fd00::1", 80, SPECIAL },
	{ "", "2001:db8::1", 80, A },
	/* IPv4 carried in IPv6 is judged as that IPv4 address */
	{ "", "::ffff:127.0.0.1", 80, SPECIAL },
	{ "", "::ffff:169.254.169.254", 80, SPECIAL },
	{ "", "::ffff:0.0.0.0", 80, SPECIAL },
	{ "", "::ffff:255.255.255.255", 80, SPECIAL },
	{ "", "::ffff:224.0.0.1", 80, SPECIAL },
	{ "", "::ffff:8.8.8.8", 80, A },
	{ "", "::127.0.0.1", 80, SPECIAL },
	{ "", "::169.254.169.254", 80, SPECIAL },
	{ "", "::2", 80, SPECIAL },
	{ "", "::8.8.8.8", 80, A },
	{ "", "64:ff9b::127.0.0.1", 80, SPECIAL },
	{ "", "64:ff9b::a9fe:a9fe", 80, SPECIAL },
	{ "", "64:ff9b::8.8.8.8", 80, A },
	/* local-use NAT64 (RFC 8215): the site's own translator, the IPv4
	 * position unknown, so the whole /48 is special (issue 21) */
	{ "", "64:ff9b:1::a9fe:a9fe", 80, SPECIAL },
	{ "", "64:ff9b:1::8.8.8.8", 80, SPECIAL },
	{ "", "64:ff9b:1:ffff:ffff:ffff:ffff:ffff", 80, SPECIAL },
	{ "", "64:ff9b:0:ffff::1", 80, A },
	{ "", "64:ff9b:2::1", 80, A },
	/* 6to4 (RFC 3056): judged by the IPv4 end point in bits 16-47
	 * (issue 21) */
	{ "", "2002:7f00:1::1", 80, SPECIAL },
	{ "", "2002:a9fe:a9fe::1", 80, SPECIAL },
	{ "", "2002:a00:1:2::3", 80, SPECIAL },
	{ "", "2002:c0a8:101::1", 80, SPECIAL },
	{ "", "2002:ac10::1", 80, SPECIAL },
	{ "", "2002:6440:1::1", 80, SPECIAL },
	{ "", "2002:6464:64c8::1", 80, SPECIAL },
	{ "", "2002:a83f:8110::1", 80, SPECIAL },
	{ "", "2002::1", 80, SPECIAL },
	{ "", "2002:e000:1::1", 80, SPECIAL },
	{ "", "2002:ffff:ffff::1", 80, SPECIAL },
	{ "", "2002:808:808::1", 80, A },
	{ "", "2002:c000:20a:ffff::1", 80, A },
	{ "", "2002:7eff:ffff::1", 80, A },
	{ "", "2003:7f00:1::1", 80, A },
};

static void test_guard_special_ranges(void **state)
{

	run_addr_vectors(special_vectors, ARRAY_SIZE(special_vectors));
}

static const struct addr_vec explicit_vectors[] = {
	{ "127.0.0.1:8080", "127.0.0.1", 8080, A },
	{ "127.0.0.1:8080", "127.0.0.1", 22, PORT },
	{ "127.0.0.1:8080", "127.0.0.2", 8080, SPECIAL },
	{ "127.0.0.1:8080", "::ffff:127.0.0.1", 8080, A },
	{ "127.0.0.1:8080", "::1", 8080, SPECIAL },
	{ "127.0.0.0/8", "127.1.2.3", 80, A },
	{ "169.254.169.254", "169.254.169.254", 80, A },
	{ "169.254.169.254", "169.254.169.253", 80, SPECIAL },
	{ "169.254.169.254", "64:ff9b::169.254.169.254", 80, A },
	{ "169.254.169.254", "::ffff:169.254.169.254", 80, A },
	{ "::1", "::1", 80, A },
	{ "::1", "::", 80, SPECIAL },
	{ "::", "::", 80, A },
	{ "0.0.0.0", "0.0.0.0", 80, A },
	{ "0.0.0.0", "::ffff:0.0.0.0", 80, A },
	{ "0.0.0.0", "::", 80, SPECIAL },
	{ "fe80::/10", "fe80::1", 80, A },
	{ "fe80::1", "fe80::1", 80, A },
	{ "fe80::1", "fe80::2", 80, SPECIAL },
	{ "224.0.0.0/4:5353", "224.0.0.251", 5353, A },
	{ "224.0.0.0/4:5353", "224.0.0.251", 53, PORT },
	{ "ff02::fb", "ff02::fb", 5353, A },
	{ "255.255.255.255", "255.255.255.255", 67, A },
	/* broad entries do not name special addresses */
	{ "0.0.0.0/0 ::/0", "127.0.0.1", 80, SPECIAL },
	{ "0.0.0.0/0 ::/0", "::1", 80, SPECIAL },
	{ "0.0.0.0/0 ::/0", "169.254.169.254", 80, SPECIAL },
	{ "0.0.0.0/0 ::/0", "ff02::1", 80, SPECIAL },
	{ "0.0.0.0/0 ::/0", "::ffff:127.0.0.1", 80, SPECIAL },
	{ "0.0.0.0/0 ::/0", "8.8.8.8", 80, A },
	{ "128.0.0.0/1", "255.255.255.255", 80, SPECIAL },
	{ "126.0.0.0/7", "127.0.0.1", 80, SPECIAL },
	{ "fe80::/9", "fe80::1", 80, SPECIAL },
	/* names never open an address */
	{ "localhost", "127.0.0.1", 80, SPECIAL },
	{ "*.internal", "169.254.169.254", 80, SPECIAL },
	/* the prefixes of issue 21: broad entries do not open them, an
	 * entry inside the narrowest range does */
	{ "::/0", "fec0::1", 80, SPECIAL },
	{ "fec0::/10", "fec0::1", 80, A },
	{ "fc00::/7", "fec0::1", 80, SPECIAL },
	{ "::/0", "64:ff9b:1::a9fe:a9fe", 80, SPECIAL },
	{ "64:ff9b:1::/48", "64:ff9b:1::a9fe:a9fe", 80, A },
	{ "169.254.169.254", "64:ff9b:1::a9fe:a9fe", 80, SPECIAL },
	{ "0.0.0.0/0 ::/0", "2002:7f00:1::1", 80, SPECIAL },
	{ "2002::/16", "2002:7f00:1::1", 80, SPECIAL },
	{ "127.0.0.0/8", "2002:7f00:1::1", 80, SPECIAL },
	{ "2002:7f00::/24", "2002:7f00:1::1", 80, A },
	{ "2002:7f00::/24", "2002:7e00:1::1", 80, A },
	{ "2002:a9fe:a9fe::1", "2002:a9fe:a9fe::1", 80, A },
	{ "[2002:a9fe:a9fe::1]:80", "2002:a9fe:a9fe::1", 443, PORT },
	{ "2002:a9fe::/32", "2002:a9fe:a9fe::1", 80, A },
	/* nested: the Alibaba address's image is narrower than 100.64/10's */
	{ "2002:6440::/26", "2002:6440:1::1", 80, A },
	{ "2002:6440::/26", "2002:6464:64c8::1", 80, SPECIAL },
	{ "::/0", "2002:808:808::1", 80, A },
};

static void test_guard_explicit_entries(void **state)
{

	run_addr_vectors(explicit_vectors, ARRAY_SIZE(explicit_vectors));
}

/*
 * Private, shared and cloud metadata addresses (issue 8): refused unless an
 * entry inside the narrowest special range names them, in every IPv4-in-
 * IPv6 form too. Each row fails if that range is missing from the table,
 * too wide or too narrow, or if nesting lets a wider entry open it.
 */
static const struct addr_vec metadata_vectors[] = {
	{ "", "100.100.100.200", 80, SPECIAL },
	{ "", "::ffff:100.100.100.200", 80, SPECIAL },
	{ "", "::100.100.100.200", 80, SPECIAL },
	{ "", "64:ff9b::100.100.100.200", 80, SPECIAL },
	{ "", "168.63.129.16", 80, SPECIAL },
	{ "", "::ffff:168.63.129.16", 80, SPECIAL },
	{ "", "::ffff:a83f:8110", 80, SPECIAL },
	{ "", "64:ff9b::a83f:8110", 80, SPECIAL },
	{ "", "168.63.129.15", 80, A },
	{ "", "168.63.129.17", 80, A },
	{ "", "fd00:ec2::254", 80, SPECIAL },
	{ "", "FD00:EC2:0:0:0:0:0:254", 80, SPECIAL },
	{ "", "169.254.169.254", 80, SPECIAL },
	/* broad entries do not name them */
	{ "0.0.0.0/0 ::/0", "100.100.100.200", 80, SPECIAL },
	{ "0.0.0.0/0 ::/0", "168.63.129.16", 80, SPECIAL },
	{ "0.0.0.0/0 ::/0", "fd00:ec2::254", 80, SPECIAL },
	{ "0.0.0.0/0 ::/0", "::ffff:168.63.129.16", 80, SPECIAL },
	{ "168.0.0.0/8", "168.63.129.16", 80, SPECIAL },
	{ "168.63.129.0/24", "168.63.129.16", 80, SPECIAL },
	{ "168.0.0.0/8", "168.63.129.17", 80, A },
	/* nesting: the narrowest range decides */
	{ "100.64.0.0/10", "100.100.100.200", 80, SPECIAL },
	{ "100.64.0.0/10", "100.100.100.201", 80, A },
	{ "100.100.100.0/24", "100.100.100.200", 80, SPECIAL },
	{ "fc00::/7", "fd00:ec2::254", 80, SPECIAL },
	{ "fd00::/8", "fd00:ec2::254", 80, SPECIAL },
	{ "fd00:ec2::/32", "fd00:ec2::254", 80, SPECIAL },
	{ "fd00:ec2::/32", "fd00:ec2::253", 80, A },
	/* named exactly, they open */
	{ "100.100.100.200", "100.100.100.200", 80, A },
	{ "100.100.100.200", "::ffff:100.100.100.200", 80, A },
	{ "168.63.129.16:80", "168.63.129.16", 80, A },
	{ "168.63.129.16:80", "168.63.129.16", 32526, PORT },
	{ "168.63.129.16:80", "64:ff9b::168.63.129.16", 80, A },
	{ "fd00:ec2::254", "fd00:ec2::254", 80, A },
	{ "[fd00:ec2::254]:80", "fd00:ec2::254", 443, PORT },
};

static const struct addr_vec private_vectors[] = {
	/* RFC 1918, every edge */
	{ "", "10.0.0.0", 80, SPECIAL },
	{ "", "10.255.255.255", 80, SPECIAL },
	{ "", "9.255.255.255", 80, A },
	{ "", "11.0.0.0", 80, A },
	{ "", "172.16.0.0", 80, SPECIAL },
	{ "", "172.31.255.255", 80, SPECIAL },
	{ "", "172.15.255.255", 80, A },
	{ "", "172.32.0.0", 80, A },
	{ "", "192.168.0.0", 80, SPECIAL },
	{ "", "192.168.255.255", 80, SPECIAL },
	{ "", "192.167.255.255", 80, A },
	{ "", "192.169.0.0", 80, A },
	/* RFC 6598 shared address space */
	{ "", "100.64.0.0", 80, SPECIAL },
	{ "", "100.127.255.255", 80, SPECIAL },
	{ "", "100.63.255.255", 80, A },
	{ "", "100.128.0.0", 80, A },
	/* RFC 4193 unique local */
	{ "", "fc00::", 80, SPECIAL },
	{ "", "fdff:ffff:ffff:ffff:ffff:ffff:ffff:ffff", 80, SPECIAL },
	{ "", "fbff:ffff:ffff:ffff:ffff:ffff:ffff:ffff", 80, A },
	{ "", "fe00::", 80, A },
	/* IPv4-mapped, -compatible and NAT64 forms */
	{ "", "::ffff:10.1.2.3", 80, SPECIAL },
	{ "", "::ffff:172.16.0.1", 80, SPECIAL },
	{ "", "::ffff:192.168.1.1", 80, SPECIAL },
	{ "", "::ffff:100.64.0.1", 80, SPECIAL },
	{ "", "::ffff:a00:1", 80, SPECIAL },
	{ "", "::10.1.2.3", 80, SPECIAL },
	{ "", "64:ff9b::192.168.1.1", 80, SPECIAL },
	{ "", "64:ff9b::6440:1", 80, SPECIAL },
	/* not explicit: entries wider than the range */
	{ "0.0.0.0/0", "10.1.2.3", 80, SPECIAL },
	{ "0.0.0.0/0", "::ffff:10.1.2.3", 80, SPECIAL },
	{ "0.0.0.0/1", "10.1.2.3", 80, SPECIAL },
	{ "8.0.0.0/6", "10.1.2.3", 80, SPECIAL },
	{ "172.0.0.0/8", "172.16.0.1", 80, SPECIAL },
	{ "192.0.0.0/8", "192.168.1.1", 80, SPECIAL },
	{ "100.0.0.0/8", "100.64.0.1", 80, SPECIAL },
	{ "::/0", "fd12::1", 80, SPECIAL },
	{ "fc00::/6", "fd12::1", 80, SPECIAL },
	/* names never open an address */
	{ "mirror.lan", "10.1.2.3", 80, SPECIAL },
	{ "*.internal", "fd12::1", 80, SPECIAL },
	/* explicit: an entry inside the range */
	{ "10.0.0.0/8", "10.1.2.3", 80, A },
	{ "10.0.0.0/8", "::ffff:10.1.2.3", 80, A },
	{ "10.0.0.0/8", "64:ff9b::10.1.2.3", 80, A },
	{ "10.1.2.3:443", "10.1.2.3", 443, A },
	{ "10.1.2.3:443", "10.1.2.3", 80, PORT },
	{ "10.1.2.3:443", "10.1.2.4", 443, SPECIAL },
	{ "172.16.0.0/12", "172.31.0.1", 80, A },
	{ "192.168.0.0/24", "192.168.0.7", 80, A },
	{ "192.168.0.0/24", "192.168.1.7", 80, SPECIAL },
	{ "100.64.0.0/10", "100.64.77.1", 80, A },
	{ "fc00::/7", "fd12::1", 80, A },
	{ "fd12::/16", "fd12::1", 80, A },
	{ "fd12::1", "fd12::2", 80, SPECIAL },
	/* the entry opens its own range only */
	{ "10.0.0.0/8", "192.168.1.1", 80, SPECIAL },
	{ "10.0.0.0/8", "127.0.0.1", 80, SPECIAL },
	{ "fc00::/7", "::1", 80, SPECIAL },
};

/*
 * jr_policy_check_local_address(): the kernel said the address is this
 * host's. Only an entry naming exactly it, or one inside a range that
 * leads to this host by definition, opens it; rows fail if a CIDR of the
 * LAN, 0.0.0.0/0 or a name opens the host, or an exact entry does not.
 */
static const struct addr_vec local_vectors[] = {
	{ "", "198.51.100.2", 80, LOCAL },
	{ "", "2001:db8:ffff::2", 80, LOCAL },
	{ "", "::ffff:198.51.100.2", 80, LOCAL },
	{ "0.0.0.0/0 ::/0", "198.51.100.2", 80, LOCAL },
	{ "0.0.0.0/0 ::/0", "2001:db8:ffff::2", 80, LOCAL },
	{ "0.0.0.0/0 ::/0", "::ffff:198.51.100.2", 80, LOCAL },
	{ "198.51.100.0/24", "198.51.100.2", 80, LOCAL },
	{ "198.51.100.0/31", "198.51.100.2", 80, LOCAL },
	{ "2001:db8:ffff::/64", "2001:db8:ffff::2", 80, LOCAL },
	{ "10.0.0.0/8", "10.0.0.2", 80, LOCAL },
	{ "lab-host.test", "198.51.100.2", 80, LOCAL },
	{ "198.51.100.3", "198.51.100.2", 80, LOCAL },
	/* named exactly */
	{ "198.51.100.2", "198.51.100.2", 80, A },
	{ "198.51.100.2:8081", "198.51.100.2", 8081, A },
	{ "198.51.100.2:8081", "198.51.100.2", 22, PORT },
	{ "198.51.100.2:8081", "::ffff:198.51.100.2", 8081, A },
	{ "198.51.100.2:8081", "64:ff9b::198.51.100.2", 8081, A },
	{ "198.51.100.2", "198.51.100.2", 0, PORT },
	{ "2001:db8:ffff::2", "2001:db8:ffff::2", 80, A },
	{ "[2001:db8:ffff::2]:80", "2001:db8:ffff::2", 81, PORT },
	{ "10.0.0.2", "10.0.0.2", 80, A },
	/* loopback and "this host" ranges lead here by definition */
	{ "127.0.0.0/8", "127.0.0.1", 80, A },
	{ "127.0.0.1:8080", "127.0.0.1", 8080, A },
	{ "127.0.0.1:8080", "127.0.0.2", 8080, LOCAL },
	{ "0.0.0.0/8", "0.0.0.0", 80, A },
	{ "::1", "::1", 80, A },
	{ "::", "::", 80, A },
	/* a 6to4 image does not lead here by definition: named exactly */
	{ "2002:7f00::/24", "2002:7f00:1::1", 80, LOCAL },
	{ "2002:7f00:1::1", "2002:7f00:1::1", 80, A },
	/* other special ranges do not */
	{ "169.254.0.0/16", "169.254.1.1", 80, LOCAL },
	{ "fe80::/10", "fe80::1", 80, LOCAL },
	{ "224.0.0.0/4", "224.0.0.1", 80, LOCAL },
	{ "224.0.0.1", "224.0.0.1", 80, A },
};

static void test_guard_private_and_metadata(void **state)
{
	run_addr_vectors(metadata_vectors, ARRAY_SIZE(metadata_vectors));
	run_addr_vectors(private_vectors, ARRAY_SIZE(private_vectors));
}

static void test_local_address(void **state)
{
	struct sockaddr_un sun = { .sun_family = AF_UNIX };
	struct sockaddr_in sin = { .sin_family = AF_INET };
	struct jr_policy p;

	run_vectors_with(jr_policy_check_local_address, local_vectors,
			 ARRAY_SIZE(local_vectors));
	policy_from(&p, "0.0.0.0/0");
	assert_int_equal(
	    jr_policy_check_local_address(&p, (struct sockaddr *)&sun, 80),
	    BAD);
	assert_int_equal(
	    jr_policy_check_local_address(NULL, (struct sockaddr *)&sin, 80),
	    BAD);
	jr_policy_free(&p);
}

/* --net public: names pass, the guard is unchanged. */
static void test_match_any(void **state)
{
	struct jr_policy p;

	jr_policy_init(&p);
	p.match_any = true;
	assert_int_equal(jr_policy_check_name(&p, "denied.test", 80),
			 JR_ALLOWED);
	assert_int_equal(jr_policy_check_name(&p, "Any.Name.TEST.", 9000),
			 JR_ALLOWED);
	assert_int_equal(jr_policy_check_name(&p, "198.51.100.30", 443),
			 JR_ALLOWED);
	assert_int_equal(jr_policy_check_name(&p, "2001:db8::1", 443),
			 JR_ALLOWED);
	assert_true(jr_policy_name_allowed(&p, "whatever.example"));
	/* still not a destination: port 0, bad hosts */
	assert_int_equal(jr_policy_check_name(&p, "a.test", 0), JR_DENY_PORT);
	assert_int_equal(jr_policy_check_name(&p, "2130706433", 80),
			 JR_DENY_BAD_HOST);
	assert_int_equal(jr_policy_check_name(&p, "a_b.test", 80),
			 JR_DENY_BAD_HOST);
	assert_false(jr_policy_name_allowed(&p, "0x7f.1"));
	/* the guard: the same answers as in allowlist mode */
	assert_int_equal(
	    check_text_with(jr_policy_check_address, &p, "127.0.0.1", 8080),
	    JR_DENY_SPECIAL_ADDR);
	assert_int_equal(
	    check_text_with(jr_policy_check_address, &p, "169.254.169.254", 80),
	    JR_DENY_SPECIAL_ADDR);
	assert_int_equal(
	    check_text_with(jr_policy_check_address, &p, "10.77.0.10", 80),
	    JR_DENY_SPECIAL_ADDR);
	assert_int_equal(check_text_with(jr_policy_check_address, &p,
					 "::ffff:127.0.0.1", 80),
			 JR_DENY_SPECIAL_ADDR);
	assert_int_equal(
	    check_text_with(jr_policy_check_address, &p, "192.0.2.10", 80),
	    JR_ALLOWED);
	assert_int_equal(check_text_with(jr_policy_check_local_address, &p,
					 "198.51.100.2", 8081),
			 JR_DENY_LOCAL_ADDR);
	jr_policy_free(&p);
}

/* --allow-private: the guard only, inside one special range. */
static void test_allow_private(void **state)
{
	static const char *const bad[] = {
		"0.0.0.0/0", "::/0",	     "10.0.0.0/7",	"8.8.8.0/24",
		"fc00::/6",  "db.lan",	     "*.lan",		"10.0.0.1/8",
		"",	     "10.0.0.0/8:0", "::ffff:10.0.0.1", "1.2.3.4/33",
	};
	struct jr_err err = { 0 };
	struct jr_policy p;

	jr_policy_init(&p);
	for (size_t i = 0; i < ARRAY_SIZE(bad); i++) {
		if (jr_policy_add_private(&p, bad[i], &err) != -EINVAL)
			fail_msg("--allow-private '%s' accepted", bad[i]);
		if (!strstr(err.msg, "--allow-private '"))
			fail_msg("'%s': message does not name it: %s", bad[i],
				 err.msg);
	}
	assert_int_equal(p.n_private, 0);

	assert_int_equal(jr_policy_add_private(&p, "10.77.0.0/16", &err), 0);
	assert_int_equal(jr_policy_add_private(&p, "192.168.1.5:5432", &err),
			 0);
	assert_int_equal(jr_policy_add_private(&p, "127.0.0.1:8080", &err), 0);
	assert_int_equal(jr_policy_add_private(&p, "198.51.100.2:8081", &err),
			 0);
	assert_int_equal(p.n_private, 4);
	assert_int_equal(p.n, 0); /* never an allowlist entry */
	/* no name and no literal is admitted by them */
	assert_int_equal(jr_policy_check_name(&p, "10.77.0.10", 80),
			 JR_DENY_NOT_ALLOWED);
	assert_false(jr_policy_name_allowed(&p, "10.77.0.10"));
	/* the guard opens what they name, on their port */
	assert_int_equal(
	    check_text_with(jr_policy_check_address, &p, "10.77.0.10", 80),
	    JR_ALLOWED);
	assert_int_equal(
	    check_text_with(jr_policy_check_address, &p, "10.78.0.10", 80),
	    JR_DENY_SPECIAL_ADDR);
	assert_int_equal(
	    check_text_with(jr_policy_check_address, &p, "192.168.1.5", 5432),
	    JR_ALLOWED);
	assert_int_equal(
	    check_text_with(jr_policy_check_address, &p, "192.168.1.5", 22),
	    JR_DENY_PORT);
	assert_int_equal(
	    check_text_with(jr_policy_check_address, &p, "169.254.169.254", 80),
	    JR_DENY_SPECIAL_ADDR);
	/* this host: only where named exactly (or loopback, by definition) */
	assert_int_equal(
	    check_text_with(jr_policy_check_local_address, &p, "10.77.0.2", 80),
	    JR_DENY_LOCAL_ADDR);
	assert_int_equal(check_text_with(jr_policy_check_local_address, &p,
					 "198.51.100.2", 8081),
			 JR_ALLOWED);
	assert_int_equal(check_text_with(jr_policy_check_local_address, &p,
					 "127.0.0.1", 8080),
			 JR_ALLOWED);
	assert_int_equal(check_text_with(jr_policy_check_local_address, &p,
					 "127.0.0.1", 8081),
			 JR_DENY_PORT);
	jr_policy_free(&p);
	assert_null(p.private_entries);
	assert_int_equal(p.n_private, 0);
}

/*
 * The prefixes issue 21 added, beyond the vectors: --allow-private takes
 * a range inside each (and not 2002::/16, which is special only where it
 * carries a special IPv4 end point), and a managed deny of an IPv4 range
 * covers the 6to4 addresses whose end point it holds.
 */
static void test_guard_issue21_prefixes(void **state)
{
	static const char *const good[] = {
		"fec0::/10",	     "fec0:1::/32",   "64:ff9b:1::/48",
		"64:ff9b:1:2::/64",  "2002:a00::/24", "2002:7f00:1::/48",
		"2002:a9fe:a9fe::1",
	};
	static const char *const bad[] = {
		"2002::/16",
		"2002:800::/24",
		"64:ff9b::/32",
	};
	struct jr_err err = { 0 };
	struct jr_policy p, deny;

	(void)state;
	jr_policy_init(&p);
	for (size_t i = 0; i < ARRAY_SIZE(good); i++)
		if (jr_policy_add_private(&p, good[i], &err) != 0)
			fail_msg("--allow-private '%s' refused: %s", good[i],
				 err.msg);
	for (size_t i = 0; i < ARRAY_SIZE(bad); i++)
		if (jr_policy_add_private(&p, bad[i], &err) != -EINVAL)
			fail_msg("--allow-private '%s' accepted", bad[i]);
	assert_int_equal(
	    check_text_with(jr_policy_check_address, &p, "2002:a01::1", 80),
	    JR_ALLOWED);
	assert_int_equal(
	    check_text_with(jr_policy_check_address, &p, "2002:b00::1", 80),
	    JR_ALLOWED);
	assert_int_equal(
	    check_text_with(jr_policy_check_address, &p, "2002:c0a8::1", 80),
	    JR_DENY_SPECIAL_ADDR);
	jr_policy_free(&p);

	policy_from(&deny, "10.0.0.0/8 [2001:db8::1]:22");
	policy_from(&p, "::/0 2002:a00::/24");
	p.deny = &deny;
	assert_int_equal(
	    check_text_with(jr_policy_check_address, &p, "2002:a00:1::1", 443),
	    JR_DENY_MANAGED);
	assert_int_equal(check_text_with(jr_policy_check_address, &p,
					 "2002:808:808::1", 443),
			 JR_ALLOWED);
	{
		struct sockaddr_in6 sin6 = { .sin6_family = AF_INET6 };

		assert_int_equal(
		    inet_pton(AF_INET6, "2002:a01:203::4", &sin6.sin6_addr), 1);
		assert_ptr_equal(
		    jr_policy_deny_address(&deny, (struct sockaddr *)&sin6, 80),
		    &deny.entries[0]);
		assert_int_equal(
		    inet_pton(AF_INET6, "2001:db8::1", &sin6.sin6_addr), 1);
		assert_null(jr_policy_deny_address(
		    &deny, (struct sockaddr *)&sin6, 80));
		assert_ptr_equal(
		    jr_policy_deny_address(&deny, (struct sockaddr *)&sin6, 22),
		    &deny.entries[1]);
		assert_int_equal(
		    inet_pton(AF_INET6, "::ffff:10.1.2.3", &sin6.sin6_addr), 1);
		assert_ptr_equal(
		    jr_policy_deny_address(&deny, (struct sockaddr *)&sin6, 80),
		    &deny.entries[0]);
	}
	jr_policy_free(&p);
	jr_policy_free(&deny);
}

static void test_guard_bad_sockaddr(void **state)
{
	struct sockaddr_un sun = { .sun_family = AF_UNIX };
	struct jr_policy p;
	/* An unaligned sockaddr: the guard must copy, not cast. */
	union {
		char raw[1 + sizeof(struct sockaddr_in)];
		struct sockaddr_in6 align;
	} u;
	struct sockaddr_in sin = { .sin_family = AF_INET };

	policy_from(&p, "0.0.0.0/0");
	assert_int_equal(jr_policy_check_address(&p, NULL, 80), BAD);
	assert_int_equal(
	    jr_policy_check_address(&p, (struct sockaddr *)&sun, 80), BAD);
	assert_int_equal(
	    jr_policy_check_address(NULL, (struct sockaddr *)&sin, 80), BAD);
	assert_int_equal(inet_pton(AF_INET, "127.0.0.1", &sin.sin_addr), 1);
	memcpy(u.raw + 1, &sin, sizeof(sin));
	assert_int_equal(jr_policy_check_address(
			     &p, (const struct sockaddr *)(u.raw + 1), 80),
			 SPECIAL);
	jr_policy_free(&p);
}

/* ---------------------------------------------------------- name_allowed */

struct name_allowed_vec {
	const char *host;
	bool want;
};

static const struct name_allowed_vec name_allowed_vectors[] = {
	{ "example.com", true },      { "EXAMPLE.com.", true },
	{ "a.example.org", true },    { "example.org", false },
	{ "192.0.2.7", true },	      { "192.0.2.8", false },
	{ "evil.com", false },	      { "127.1", false },
	{ "a_b.example.org", false },
};

static void test_name_allowed(void **state)
{
	struct jr_policy p;

	policy_from(&p, "example.com:443 *.example.org 192.0.2.7:80");
	for (size_t i = 0; i < ARRAY_SIZE(name_allowed_vectors); i++) {
		if (jr_policy_name_allowed(&p, name_allowed_vectors[i].host) !=
		    name_allowed_vectors[i].want)
			fail_msg("name_allowed('%s') != %d",
				 name_allowed_vectors[i].host,
				 name_allowed_vectors[i].want);
	}
	jr_policy_free(&p);
	assert_false(jr_policy_name_allowed(&p, "example.com"));
}

/* ---------------------------------------------------------- small parts */

struct normalise_vec {
	const char *in, *out;
};

static const struct normalise_vec normalise_vectors[] = {
	{ "Example.COM.", "example.com" },
	{ "example.com", "example.com" },
	{ "a..", "a." },
	{ ".", "" },
	{ "", "" },
	{ "XN--BCHER-KVA.DE", "xn--bcher-kva.de" },
	{ "\xc3\x9c.de", "\xc3\x9c.de" }, /* bytes >= 0x80 untouched */
};

static void test_normalise(void **state)
{

	for (size_t i = 0; i < ARRAY_SIZE(normalise_vectors); i++) {
		char buf[64];

		snprintf(buf, sizeof(buf), "%s", normalise_vectors[i].in);
		jr_host_normalise(buf);
		assert_string_equal(buf, normalise_vectors[i].out);
	}
	jr_host_normalise(NULL);
}

static void test_reason_names(void **state)
{
	assert_string_equal(jr_deny_reason_name(JR_ALLOWED), "allowed");
	assert_string_equal(jr_deny_reason_name(NOT), "not-allowed");
	assert_string_equal(jr_deny_reason_name(PORT), "port-not-allowed");
	assert_string_equal(jr_deny_reason_name(BAD), "bad-host");
	assert_string_equal(jr_deny_reason_name(SPECIAL), "special-address");
	assert_string_equal(jr_deny_reason_name(LOCAL), "local-address");
	assert_string_equal(jr_deny_reason_name(JR_DENY_GUARD_FAILED),
			    "guard-failed");
	assert_string_equal(jr_deny_reason_name((enum jr_deny_reason)99),
			    "unknown");
}

/* A refused entry leaves the policy as it was; limits; free is idempotent. */
static void test_storage(void **state)
{
	struct jr_policy p;
	struct jr_err err = { 0 };
	char entry[32];

	jr_policy_init(&p);
	assert_int_equal(jr_policy_add(&p, "a.example.com", &err), 0);
	assert_int_equal(jr_policy_add(&p, "foo.*.com", &err), -EINVAL);
	assert_int_equal(p.n, 1);
	assert_int_equal(jr_policy_add(&p, "b.example.com", NULL), 0);
	assert_int_equal(jr_policy_add(&p, "b..com", NULL), -EINVAL);
	assert_int_equal(jr_policy_add(NULL, "b.com", &err), -EINVAL);
	assert_int_equal(jr_policy_add(&p, NULL, &err), -EINVAL);
	for (int i = 2; i < MAX_ENTRIES; i++) {
		snprintf(entry, sizeof(entry), "h%d.example.com", i);
		assert_int_equal(jr_policy_add(&p, entry, &err), 0);
	}
	assert_int_equal(p.n, MAX_ENTRIES);
	assert_int_equal(jr_policy_add(&p, "one-more.example.com", &err),
			 -E2BIG);
	assert_non_null(strstr(err.msg, "--allow 'one-more.example.com'"));
	assert_non_null(strstr(err.msg, "4096"));
	assert_int_equal(p.n, MAX_ENTRIES);
	/* The last entry still matches: the array grew correctly. */
	assert_int_equal(jr_policy_check_name(&p, "h4095.example.com", 1), A);
	assert_int_equal(jr_policy_check_name(&p, "a.example.com", 1), A);
	jr_policy_free(&p);
	assert_null(p.entries);
	assert_int_equal(p.n, 0);
	jr_policy_free(&p);
	jr_policy_free(NULL);
}

/* --------------------------------------------------------- --allow-file */

struct file_fixture {
	char path[4096];
};

/* Write @len bytes of @content to a new temporary file. */
static void write_temp(struct file_fixture *f, const char *content, size_t len)
{
	int fd;

	const char *dir = getenv("TMPDIR");

	snprintf(f->path, sizeof(f->path), "%s/jailrun-policy-XXXXXX",
		 dir && *dir ? dir : "/tmp");
	fd = mkstemp(f->path);
	assert_true(fd >= 0);
	assert_int_equal(write(fd, content, len), (ssize_t)len);
	assert_int_equal(close(fd), 0);
}

static void test_file_ok(void **state)
{
	static const char content[] = "# model API and mirror\n"
				      "\n"
				      "   api.example.com:443   \n"
				      "\t*.mirror.example.org\t# any port\n"
				      "192.0.2.0/24:443 #trailing\n"
				      "[2001:db8::1]:8443\r\n"
				      "   # indented comment\n"
				      "last.example.net";
	struct file_fixture f = { { 0 } };
	struct jr_policy p;
	struct jr_err err = { 0 };

	write_temp(&f, content, sizeof(content) - 1);
	jr_policy_init(&p);
	assert_int_equal(jr_policy_add(&p, "first.example.com", &err), 0);
	if (jr_policy_add_file(&p, f.path, &err) != 0)
		fail_msg("%s", err.msg);
	unlink(f.path);
	assert_int_equal(p.n, 6);
	assert_string_equal(p.entries[1].text, "api.example.com:443");
	assert_int_equal(p.entries[1].port, 443);
	assert_int_equal(p.entries[2].kind, JR_ALLOW_WILDCARD);
	assert_string_equal(p.entries[2].name, "mirror.example.org");
	assert_int_equal(p.entries[2].port, 0);
	assert_int_equal(p.entries[3].prefix, 24);
	assert_string_equal(p.entries[4].text, "[2001:db8::1]:8443");
	assert_string_equal(p.entries[5].name, "last.example.net");
	assert_int_equal(jr_policy_check_name(&p, "x.mirror.example.org", 21),
			 A);
	assert_int_equal(jr_policy_check_name(&p, "api.example.com", 80), PORT);
	jr_policy_free(&p);
}

struct file_error_vec {
	const char *content;
	size_t len; /* 0: strlen */
	unsigned int line;
	const char *entry; /* quoted in the message, or NULL */
	const char *rule;
};

static const char nul_line[] = "ok.example.com\nbad\0line\n";

static const struct file_error_vec file_error_vectors[] = {
	{ "ok.example.com\n# fine\nfoo.*.com\nlater.example.com\n", 0, 3,
	  "foo.*.com", "whole first label" },
	{ "a.example.com\n  a_b.example.com  # underscore\n", 0, 2,
	  "a_b.example.com", "underscore" },
	{ "a.example.com b.example.com\n", 0, 1, "a.example.com b.example.com",
	  "space" },
	{ "\n\n\n\nexample.com:080\n", 0, 5, "example.com:080",
	  "leading zeros" },
	{ nul_line, sizeof(nul_line) - 1, 2, NULL, "NUL" },
	{ "http://example.com/\n", 0, 1, "http://example.com/", "URL" },
};

static void test_file_errors(void **state)
{

	for (size_t i = 0; i < ARRAY_SIZE(file_error_vectors); i++) {
		struct file_fixture f = { { 0 } };
		struct jr_policy p;
		struct jr_err err = { 0 };
		char where[sizeof(f.path) + 32], quoted[128];
		size_t len = file_error_vectors[i].len
				 ? file_error_vectors[i].len
				 : strlen(file_error_vectors[i].content);

		write_temp(&f, file_error_vectors[i].content, len);
		jr_policy_init(&p);
		assert_int_equal(jr_policy_add(&p, "kept.example.com", &err),
				 0);
		assert_int_equal(jr_policy_add_file(&p, f.path, &err), -EINVAL);
		/* the same answer when nobody wants the message */
		assert_int_equal(jr_policy_add_file(&p, f.path, NULL), -EINVAL);
		unlink(f.path);
		snprintf(where, sizeof(where), "%s:%u: ", f.path,
			 file_error_vectors[i].line);
		if (strncmp(err.msg, where, strlen(where)) != 0)
			fail_msg(
			    "vector %zu: message does not start with [%s]: %s",
			    i, where, err.msg);
		snprintf(quoted, sizeof(quoted), "'%s': ",
			 file_error_vectors[i].entry
			     ? file_error_vectors[i].entry
			     : "");
		if (file_error_vectors[i].entry && !strstr(err.msg, quoted))
			fail_msg("vector %zu: message lacks [%s]: %s", i,
				 quoted, err.msg);
		if (!strstr(err.msg, file_error_vectors[i].rule))
			fail_msg("vector %zu: message lacks '%s': %s", i,
				 file_error_vectors[i].rule, err.msg);
		/* all or nothing: only the entry added before the file */
		assert_int_equal(p.n, 1);
		assert_string_equal(p.entries[0].name, "kept.example.com");
		jr_policy_free(&p);
	}
}

static void test_file_system_errors(void **state)
{
	struct file_fixture f = { { 0 } };
	struct jr_policy p;
	struct jr_err err = { 0 };
	char *big;
	size_t len = 0;

	jr_policy_init(&p);
	assert_int_equal(
	    jr_policy_add_file(&p, "/nonexistent/jailrun/allow", &err),
	    -ENOENT);
	assert_non_null(strstr(err.msg, "'/nonexistent/jailrun/allow'"));
	assert_int_equal(jr_policy_add_file(&p, "/", &err), -EISDIR);
	assert_non_null(strstr(err.msg, "'/'"));
	assert_int_equal(jr_policy_add_file(&p, NULL, &err), -EINVAL);

	/* An empty file adds nothing and is not an error. */
	write_temp(&f, "", 0);
	assert_int_equal(jr_policy_add_file(&p, f.path, &err), 0);
	unlink(f.path);
	assert_int_equal(p.n, 0);

	/* One entry too many: the limit, with its line number. */
	big = malloc((size_t)(MAX_ENTRIES + 1) * 32);
	assert_non_null(big);
	for (int i = 0; i <= MAX_ENTRIES; i++)
		len += (size_t)sprintf(big + len, "h%d.example.com\n", i);
	write_temp(&f, big, len);
	free(big);
	assert_int_equal(jr_policy_add_file(&p, f.path, &err), -E2BIG);
	assert_non_null(strstr(err.msg, ":4097: 'h4096.example.com'"));
	unlink(f.path);
	assert_int_equal(p.n, 0);
	jr_policy_free(&p);
}

/*
 * Every table counts itself: the total is a constant, whatever ran before,
 * and a table that shrinks below the brief's floor breaks the build.
 */
#define POLICY_VECTORS                                                         \
	(ARRAY_SIZE(reject_vectors) + ARRAY_SIZE(accept_vectors) +             \
	 ARRAY_SIZE(accept_longest_vectors) + ARRAY_SIZE(name_exact_vectors) + \
	 ARRAY_SIZE(name_port_vectors) + ARRAY_SIZE(name_bad_vectors) +        \
	 ARRAY_SIZE(name_literal_vectors) + ARRAY_SIZE(special_vectors) +      \
	 ARRAY_SIZE(explicit_vectors) + ARRAY_SIZE(metadata_vectors) +         \
	 ARRAY_SIZE(private_vectors) + ARRAY_SIZE(local_vectors) +             \
	 ARRAY_SIZE(name_allowed_vectors) + ARRAY_SIZE(normalise_vectors) +    \
	 ARRAY_SIZE(file_error_vectors))

_Static_assert(POLICY_VECTORS >= 100, "the brief asks for at least 100");

static void test_vector_count(void **state)
{
	print_message("policy vectors: %zu\n", (size_t)POLICY_VECTORS);
}

static int setup_strings(void **state)
{
	make_long_strings();
	return 0;
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_rejects),
		cmocka_unit_test(test_accepts),
		cmocka_unit_test(test_check_name_exact_and_wildcard),
		cmocka_unit_test(test_check_name_ports),
		cmocka_unit_test(test_check_name_bad_hosts),
		cmocka_unit_test(test_check_name_literals),
		cmocka_unit_test(test_guard_special_ranges),
		cmocka_unit_test(test_guard_explicit_entries),
		cmocka_unit_test(test_guard_private_and_metadata),
		cmocka_unit_test(test_local_address),
		cmocka_unit_test(test_guard_issue21_prefixes),
		cmocka_unit_test(test_guard_bad_sockaddr),
		cmocka_unit_test(test_name_allowed),
		cmocka_unit_test(test_match_any),
		cmocka_unit_test(test_allow_private),
		cmocka_unit_test(test_normalise),
		cmocka_unit_test(test_reason_names),
		cmocka_unit_test(test_storage),
		cmocka_unit_test(test_file_ok),
		cmocka_unit_test(test_file_errors),
		cmocka_unit_test(test_file_system_errors),
		cmocka_unit_test(test_vector_count),
	};

	return cmocka_run_group_tests(tests, setup_strings, NULL);
}
