// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * Unit tests for hostsfile.c, the sandbox's /etc/hosts under transparent
 * egress. Each test names the broken rewrite it would catch: an allowed
 * pinned name keeping its real address (the bypass of issue 23), a name
 * numbered differently from what the DNS forwarder later answers, a
 * localhost entry disturbed, a denied pinned name's address shown.
 */
#include <arpa/inet.h>
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>
#include <cmocka.h>

#include "fakeip.h"
#include "hostsfile.h"
#include "policy.h"

struct fixture {
	struct jr_policy p;
	struct jr_fakeip *f;
	char *out;
	size_t n;
};

static void setup_policy(struct fixture *x, const char *const *allow)
{
	struct jr_err err;

	jr_policy_init(&x->p);
	for (; *allow; allow++)
		assert_int_equal(jr_policy_add(&x->p, *allow, &err), 0);
	assert_int_equal(jr_fakeip_new(0, &x->f), 0);
	x->out = NULL;
}

static void teardown(struct fixture *x)
{
	free(x->out);
	jr_fakeip_free(x->f);
	jr_policy_free(&x->p);
}

static int rewrite(struct fixture *x, const char *text, bool ipv6)
{
	free(x->out);
	x->out = NULL;
	return jr_hostsfile_rewrite(text, strlen(text), &x->p, x->f, ipv6,
				    &x->out, &x->n);
}

/* The bypass: an allowed pinned name must get its synthetic address, the
 * very one the DNS forwarder answers later (same table, same number). */
static void test_allowed_pinned_gets_synthetic(void **state)
{
	static const char *const allow[] = { "pinned.test", NULL };
	struct fixture x;
	unsigned char a[16];

	(void)state;
	setup_policy(&x, allow);
	assert_int_equal(rewrite(&x,
				 "127.0.0.1 localhost\n"
				 "192.0.2.10 Pinned.Test. # the lab\n",
				 false),
			 0);
	assert_non_null(x.out);
	assert_int_equal(x.n, 1);
	assert_non_null(strstr(x.out, "\n127.0.0.1 localhost\n"));
	assert_non_null(strstr(x.out, "\n198.18.0.1\tpinned.test\n"));
	assert_null(strstr(x.out, "192.0.2.10"));
	/* The forwarder's later answer for the name is the same address. */
	assert_int_equal(jr_fakeip_assign(x.f, "pinned.test", AF_INET, a), 0);
	assert_memory_equal(a, "\xc6\x12\x00\x01", 4);
	assert_int_equal(jr_fakeip_count(x.f), 1);
	teardown(&x);
}

/* Wildcard entries match pinned names; a name pinned twice (IPv4 and
 * IPv6 lines) gets one number and one line each; IPv6 when the link has
 * it. */
static void test_wildcard_and_ipv6(void **state)
{
	static const char *const allow[] = { "*.example.com:443", NULL };
	struct fixture x;

	(void)state;
	setup_policy(&x, allow);
	assert_int_equal(rewrite(&x,
				 "10.0.0.5 api.example.com\n"
				 "2001:db8::5 api.example.com\n"
				 "10.0.0.6 b.example.com\n",
				 true),
			 0);
	assert_int_equal(x.n, 2);
	assert_non_null(strstr(x.out, "198.18.0.1\tapi.example.com\n"
				      "fd6a:7272:6970::1\tapi.example.com\n"
				      "198.18.0.2\tb.example.com\n"
				      "fd6a:7272:6970::2\tb.example.com\n"));
	assert_null(strstr(x.out, "10.0.0"));
	assert_null(strstr(x.out, "2001:db8"));
	teardown(&x);
}

/* A denied pinned name is left out (its real address would be refused and
 * would tell the command an internal address); the allowed one on the
 * same line still gets its line. */
static void test_denied_left_out(void **state)
{
	static const char *const allow[] = { "ok.test", NULL };
	struct fixture x;

	(void)state;
	setup_policy(&x, allow);
	assert_int_equal(
	    rewrite(&x, "192.168.1.9 db.internal ok.test\n", false), 0);
	assert_non_null(x.out);
	assert_null(strstr(x.out, "db.internal"));
	assert_null(strstr(x.out, "192.168.1.9"));
	assert_non_null(strstr(x.out, "198.18.0.1\tok.test\n"));
	teardown(&x);
}

/* localhost lines stay exactly as they are, comments and all, even under
 * --net public; a file with nothing to change is not rewritten (no
 * mount). */
static void test_localhost_untouched(void **state)
{
	static const char *const allow[] = { "localhost", NULL };
	const char *text = "# hosts\n127.0.0.1\tlocalhost\n"
			   "::1 localhost ip6-localhost ip6-loopback # v6\n"
			   "127.0.1.1 box.lan box\n"
			   "ff02::1 ip6-allnodes\n"
			   "0.0.0.0 ads.example\n"
			   "\n   \n";
	struct fixture x;

	(void)state;
	setup_policy(&x, allow);
	assert_int_equal(rewrite(&x, text, true), 0);
	assert_null(x.out);
	assert_int_equal(jr_fakeip_count(x.f), 0);
	x.p.match_any = true;
	assert_int_equal(rewrite(&x, text, true), 0);
	assert_null(x.out);
	teardown(&x);
}

/* A name allowed by name and pinned to loopback goes through the relay
 * (whose SSRF guard judges 127.0.0.1), the rest of the line stays. */
static void test_loopback_allowed_name(void **state)
{
	static const char *const allow[] = { "loopback.test", NULL };
	struct fixture x;

	(void)state;
	setup_policy(&x, allow);
	assert_int_equal(
	    rewrite(&x, "127.0.0.1 localhost loopback.test other\n", false), 0);
	assert_non_null(x.out);
	assert_non_null(strstr(x.out, "\n127.0.0.1 localhost other\n"
				      "198.18.0.1\tloopback.test\n"));
	teardown(&x);
}

/* Lines glibc would not take are left out; no trailing newline and CRs
 * are handled; an empty file is no change. */
static void test_odd_lines(void **state)
{
	static const char *const allow[] = { "a.test", NULL };
	struct fixture x;

	(void)state;
	setup_policy(&x, allow);
	assert_int_equal(rewrite(&x, "", false), 0);
	assert_null(x.out);
	assert_int_equal(rewrite(&x,
				 "not-an-address a.test\r\n"
				 "192.0.2.1\ta.test\r",
				 false),
			 0);
	assert_non_null(x.out);
	assert_null(strstr(x.out, "not-an-address"));
	assert_non_null(strstr(x.out, "198.18.0.1\ta.test\n"));
	/* inet_aton's short form, as glibc reads it: 10.1 is 10.0.0.1. */
	assert_int_equal(rewrite(&x, "10.1 a.test\n", false), 0);
	assert_non_null(x.out);
	assert_null(strstr(x.out, "10.1"));
	teardown(&x);
}

/* jr_hostsfile_read: a missing file is no text; a file is read whole. */
static void test_read(void **state)
{
	char path[] = "/tmp/test_hostsfile.XXXXXX";
	struct jr_err err;
	char *text;
	size_t len;
	int fd = mkstemp(path);

	(void)state;
	assert_true(fd >= 0);
	assert_int_equal(write(fd, "1.2.3.4 x\n", 10), 10);
	close(fd);
	assert_int_equal(jr_hostsfile_read(path, &text, &len, &err), 0);
	assert_int_equal(len, 10);
	assert_string_equal(text, "1.2.3.4 x\n");
	free(text);
	unlink(path);
	assert_int_equal(jr_hostsfile_read(path, &text, &len, &err), 0);
	assert_null(text);
	assert_true(jr_hostsfile_read("/", &text, &len, &err) < 0);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_allowed_pinned_gets_synthetic),
		cmocka_unit_test(test_wildcard_and_ipv6),
		cmocka_unit_test(test_denied_left_out),
		cmocka_unit_test(test_localhost_untouched),
		cmocka_unit_test(test_loopback_allowed_name),
		cmocka_unit_test(test_odd_lines),
		cmocka_unit_test(test_read),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
