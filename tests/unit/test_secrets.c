// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * test_secrets.c - the pure half of secrets.c: the --secret grammar, the
 * placeholder generator, request-head rewriting (fields, Basic auth, the
 * request line left alone), misuse detection, base64. A rewrite that
 * touches the target, misses a field or a Basic credential, lets a
 * placeholder through to a host it is not bound to, or a placeholder that
 * loses the prefix, the length or the character class fails here; so does
 * a binding that lends the value to its host on a port it does not name
 * (issue 21: a host-only binding meant every port).
 * Also the runner's jr_secret_file_canon(), on files in a temporary
 * directory: the file to hide must be the one read, or nothing runs.
 */
#include <errno.h>
#include <fcntl.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <linux/limits.h> /* PATH_MAX */

#include <cmocka.h>

#include "secrets.h"

static void test_spec_good(void **state)
{
	struct jr_secret s;
	struct jr_err err = { 0 };

	(void)state;
	assert_int_equal(
	    jr_secret_spec_parse("API_KEY@api.example.com", &s, &err), 0);
	assert_string_equal(s.name, "API_KEY");
	assert_null(s.file);
	assert_int_equal(s.n_hosts, 1);
	assert_string_equal(s.hosts[0], "api.example.com");
	assert_int_equal(s.ports[0], 443);
	jr_secret_release(&s);
	assert_int_equal(
	    jr_secret_spec_parse("K=file:/run/a@b/key@A.Example.COM.,b.test",
				 &s, &err),
	    0);
	assert_string_equal(s.name, "K");
	assert_string_equal(s.file, "/run/a@b/key");
	assert_int_equal(s.n_hosts, 2);
	assert_string_equal(s.hosts[0], "a.example.com");
	assert_string_equal(s.hosts[1], "b.test");
	assert_int_equal(s.ports[0], 443);
	assert_int_equal(s.ports[1], 443);
	jr_secret_release(&s);
}

/* HOST:PORT, [V6]:PORT, [V6] and a bare V6; a host without one is 443. */
static void test_spec_ports(void **state)
{
	static const struct {
		const char *host;
		uint16_t port;
	} want[] = {
		{ "api.test", 8443 },	{ "api.test", 80 },
		{ "api.test", 443 },	{ "2001:db8::1", 9000 },
		{ "2001:db8::2", 443 }, { "2001:db8::3", 443 },
		{ "192.0.2.1", 8080 },	{ "192.0.2.2", 443 },
		{ "api.test", 65535 },	{ "2001:db8::4:1", 443 },
	};
	struct jr_secret s;
	struct jr_err err = { 0 };

	(void)state;
	assert_int_equal(
	    jr_secret_spec_parse("K@api.test:8443,API.test.:80,api.test,"
				 "[2001:db8::1]:9000,[2001:DB8::2],2001:db8::3,"
				 "192.0.2.1:8080,192.0.2.2,api.test:65535,"
				 "2001:db8::4:1",
				 &s, &err),
	    0);
	assert_int_equal(s.n_hosts, sizeof(want) / sizeof(want[0]));
	for (size_t i = 0; i < s.n_hosts; i++) {
		assert_string_equal(s.hosts[i], want[i].host);
		assert_int_equal(s.ports[i], want[i].port);
	}
	assert_true(jr_secret_bound_to(&s, "api.test", 8443));
	assert_true(jr_secret_bound_to(&s, "API.TEST.", 80));
	assert_true(jr_secret_bound_to(&s, "api.test", 443));
	assert_false(jr_secret_bound_to(&s, "api.test", 9000));
	assert_true(jr_secret_bound_to(&s, "2001:db8::1", 9000));
	assert_false(jr_secret_bound_to(&s, "2001:db8::1", 443));
	assert_true(jr_secret_bound_to(&s, "192.0.2.2", 443));
	assert_false(jr_secret_bound_to(&s, "192.0.2.2", 80));
	jr_secret_release(&s);
	/* the file path may hold ':' and '@'; the bindings follow the last @ */
	assert_int_equal(
	    jr_secret_spec_parse("K=file:/a:1@b/k@h.test:9", &s, &err), 0);
	assert_string_equal(s.file, "/a:1@b/k");
	assert_string_equal(s.hosts[0], "h.test");
	assert_int_equal(s.ports[0], 9);
	jr_secret_release(&s);
}

static void test_spec_bad(void **state)
{
	static const char *const bad[] = {
		"NOHOST",
		"1X@h.test",
		"A-B@h.test",
		"@h.test",
		"K@",
		"K@h.test,",
		"K@*.h.test",
		"K@https://h.test",
		"K@h.test:",
		"K@h.test:0",
		"K@h.test:65536",
		"K@h.test:99999999999999999999",
		"K@h.test:0443",
		"K@h.test:+443",
		"K@h.test:44a",
		"K@h.test: 443",
		"K@:443",
		"K@a:b:c",
		"K@h.test:1:2",
		"K@[h.test]:443",
		"K@[192.0.2.1]:443",
		"K@[2001:db8::1",
		"K@[2001:db8::1]x",
		"K@[2001:db8::1]:",
		"K@[2001:db8::1]:0",
		"K@[]:443",
		"K@h.test:443,h.test:x",
		"K=value@h.test",
		"K=file:@h.test",
		"K@a..b",
		"K@h.test..",
		"K@.h.test",
		"K@.",
		"K@h.test..:8443",
	};
	struct jr_secret s;

	(void)state;
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		struct jr_err err = { 0 };

		if (jr_secret_spec_parse(bad[i], &s, &err) != -EINVAL)
			fail_msg("accepted '%s'", bad[i]);
		assert_non_null(strstr(err.msg, "--secret"));
	}
}

static void test_placeholder_shape(void **state)
{
	uint8_t rnd[128];
	char out[129];

	(void)state;
	for (size_t i = 0; i < sizeof(rnd); i++)
		rnd[i] = (uint8_t)(i * 37 + 11);
	jr_secret_make_placeholder("sk-ant-api03-AbCdEfGh_-12345678", 32, rnd,
				   out);
	assert_int_equal(strlen(out), 32);
	assert_memory_equal(out, "sk-ant-api03-", 13);
	/* hex stays hex, digits stay digits */
	jr_secret_make_placeholder("ghp_0123456789abcdef0123", 24, rnd, out);
	assert_memory_equal(out, "ghp_", 4);
	for (size_t i = 4; i < 24; i++)
		assert_non_null(strchr("0123456789abcdef", out[i]));
	jr_secret_make_placeholder("1234567890123", 13, rnd, out);
	for (size_t i = 0; i < 13; i++)
		assert_true(out[i] >= '0' && out[i] <= '9');
	/* unknown prefix: none kept; odd characters: alphanumerics */
	jr_secret_make_placeholder("zz!!zz!!zz!!", 12, rnd, out);
	for (size_t i = 0; i < 12; i++)
		assert_non_null(strchr(
		    "0123456789abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ",
		    out[i]));
	/* a prefix with too little after it is not kept */
	assert_int_equal(jr_secret_prefix_len("sk-abc", 6), 0);
	assert_int_equal(jr_secret_prefix_len("xoxb-1234567890", 15), 5);
}

/* Two secrets: A bound to api.test (443), B to other.test on 443 and
 * 8080. */
static struct jr_secrets *two(void)
{
	static struct jr_secrets set;
	static char *ha[] = { "api.test" },
		    *hb[] = { "other.test", "other.test" };
	static uint16_t pa[] = { 443 }, pb[] = { 443, 8080 };

	memset(&set, 0, sizeof(set));
	set.s[0] = (struct jr_secret){ .name = "A",
				       .hosts = ha,
				       .ports = pa,
				       .n_hosts = 1,
				       .value = "sk-REALVALUEAAAA",
				       .placeholder = "sk-PLACEHOLDERAA",
				       .len = 16 };
	set.s[1] = (struct jr_secret){ .name = "B",
				       .hosts = hb,
				       .ports = pb,
				       .n_hosts = 2,
				       .value = "REALVALUEBBBB",
				       .placeholder = "PLACEHOLDERBB",
				       .len = 13 };
	set.n = 2;
	return &set;
}

static struct jr_secrets_verdict
rewrite_port(const char *host, uint16_t port, const char *in, int want_rc,
	     const char *want, unsigned want_injected, const char *want_misuse)
{
	struct jr_secrets_verdict v;
	char *out = NULL;
	size_t len = 0;
	int rc = jr_secrets_rewrite_head(two(), host, port, in, strlen(in),
					 &out, &len, &v);

	assert_int_equal(rc, want_rc);
	if (want) {
		assert_non_null(out);
		assert_string_equal(out, want);
		assert_int_equal(len, strlen(want));
	} else {
		assert_null(out);
	}
	assert_int_equal(v.injected, want_injected);
	if (want_misuse)
		assert_string_equal(v.misuse_name, want_misuse);
	else
		assert_null(v.misuse_name);
	free(out);
	return v;
}

/* rewrite_port() on 443, where a binding without a port applies. */
static void rewrite(const char *host, const char *in, int want_rc,
		    const char *want, unsigned want_injected,
		    const char *want_misuse)
{
	rewrite_port(host, 443, in, want_rc, want, want_injected, want_misuse);
}

static void test_rewrite_fields(void **state)
{
	(void)state;
	rewrite(
	    "api.test",
	    "GET /x HTTP/1.1\r\nHost: api.test\r\nx-api-key: sk-PLACEHOLDERAA\r\n"
	    "Authorization: Bearer sk-PLACEHOLDERAA\r\nX-Other: asksk-PLACEHOLDERAAx\r\n\r\n",
	    0,
	    "GET /x HTTP/1.1\r\nHost: api.test\r\nx-api-key: sk-REALVALUEAAAA\r\n"
	    "Authorization: Bearer sk-REALVALUEAAAA\r\nX-Other: asksk-REALVALUEAAAAx\r\n\r\n",
	    3, NULL);
	/* trailing dot and case of the host */
	rewrite("API.test.", "GET / HTTP/1.1\r\nk: sk-PLACEHOLDERAA\r\n\r\n", 0,
		"GET / HTTP/1.1\r\nk: sk-REALVALUEAAAA\r\n\r\n", 1, NULL);
	/* nothing to do: an identical copy */
	rewrite("api.test", "GET / HTTP/1.1\r\nA: b\r\n\r\n", 0,
		"GET / HTTP/1.1\r\nA: b\r\n\r\n", 0, NULL);
}

static void test_rewrite_target_untouched(void **state)
{
	(void)state;
	rewrite("api.test",
		"GET /x?k=sk-PLACEHOLDERAA HTTP/1.1\r\nA: b\r\n\r\n", 0,
		"GET /x?k=sk-PLACEHOLDERAA HTTP/1.1\r\nA: b\r\n\r\n", 0, NULL);
}

static void test_rewrite_misuse(void **state)
{
	(void)state;
	/* A's placeholder to another host: in a field, in the target */
	rewrite("evil.test", "GET / HTTP/1.1\r\nx: sk-PLACEHOLDERAA\r\n\r\n", 1,
		NULL, 0, "A");
	rewrite("evil.test", "GET /?sk-PLACEHOLDERAA HTTP/1.1\r\nx: y\r\n\r\n",
		1, NULL, 0, "A");
	/* B's placeholder to A's host, next to A's own: refused whole */
	rewrite(
	    "api.test",
	    "GET / HTTP/1.1\r\nx: sk-PLACEHOLDERAA\r\ny: PLACEHOLDERBB\r\n\r\n",
	    1, NULL, 0, "B");
}

/*
 * The port is part of the binding: A (api.test, no port: 443) goes to
 * api.test:443 only; B to other.test on 443 and 8080. Its own host on
 * another port is misuse, and the verdict says it was only the port.
 */
static void test_rewrite_ports(void **state)
{
	static const char a_in[] =
	    "GET / HTTP/1.1\r\nx: sk-PLACEHOLDERAA\r\n\r\n";
	static const char b_in[] = "GET / HTTP/1.1\r\nx: PLACEHOLDERBB\r\n\r\n";
	struct jr_secrets_verdict v;
	char msg[1024], basic[256], b64in[64];

	(void)state;
	rewrite_port("api.test", 443, a_in, 0,
		     "GET / HTTP/1.1\r\nx: sk-REALVALUEAAAA\r\n\r\n", 1, NULL);
	v = rewrite_port("api.test", 9000, a_in, 1, NULL, 0, "A");
	assert_true(v.misuse_port);
	v = rewrite_port("api.test", 80, a_in, 1, NULL, 0, "A");
	assert_true(v.misuse_port);
	jr_secrets_misuse_message(&v, "api.test", 80, msg, sizeof(msg));
	assert_non_null(strstr(msg, "placeholder of A"));
	assert_non_null(strstr(msg, "api.test:80"));
	v = rewrite_port("evil.test", 443, a_in, 1, NULL, 0, "A");
	assert_false(v.misuse_port);
	jr_secrets_misuse_message(&v, "evil.test", 443, msg, sizeof(msg));
	assert_null(strstr(msg, "evil.test:443"));
	assert_non_null(strstr(msg, "its own hosts"));
	rewrite_port("other.test", 8080, b_in, 0,
		     "GET / HTTP/1.1\r\nx: REALVALUEBBBB\r\n\r\n", 1, NULL);
	rewrite_port("other.test", 443, b_in, 0,
		     "GET / HTTP/1.1\r\nx: REALVALUEBBBB\r\n\r\n", 1, NULL);
	v = rewrite_port("other.test", 8443, b_in, 1, NULL, 0, "B");
	assert_true(v.misuse_port);
	/* in the request line and in Basic credentials alike */
	rewrite_port("api.test", 8443,
		     "GET /?sk-PLACEHOLDERAA HTTP/1.1\r\nx: y\r\n\r\n", 1, NULL,
		     0, "A");
	jr_base64_encode((const uint8_t *)"user:sk-PLACEHOLDERAA", 21, b64in);
	snprintf(basic, sizeof(basic),
		 "GET / HTTP/1.1\r\nAuthorization: Basic %s\r\n\r\n", b64in);
	v = rewrite_port("api.test", 8443, basic, 1, NULL, 0, "A");
	assert_true(v.misuse_port);
	/* A's placeholder on B's second port: another host, not a port */
	v = rewrite_port("other.test", 8080, a_in, 1, NULL, 0, "A");
	assert_false(v.misuse_port);
	/* an IPv6 host is bracketed in the fix the message names */
	v.misuse_name = "K";
	v.misuse_port = true;
	jr_secrets_misuse_message(&v, "2001:db8::1", 8443, msg, sizeof(msg));
	assert_non_null(strstr(msg, "[2001:db8::1]:8443"));
}

static void test_rewrite_basic(void **state)
{
	char line[256], want[256], b64in[128], b64out[128];

	(void)state;
	jr_base64_encode((const uint8_t *)"user:sk-PLACEHOLDERAA", 21, b64in);
	jr_base64_encode((const uint8_t *)"user:sk-REALVALUEAAAA", 21, b64out);
	snprintf(line, sizeof(line),
		 "GET / HTTP/1.1\r\nAuthorization: Basic %s\r\n\r\n", b64in);
	snprintf(want, sizeof(want),
		 "GET / HTTP/1.1\r\nAuthorization: Basic %s\r\n\r\n", b64out);
	rewrite("api.test", line, 0, want, 1, NULL);
	rewrite("evil.test", line, 1, NULL, 0, "A");
	/* After a token that carried A's placeholder, the rest of the field
	 * is text like any other: B's placeholder there is misuse, A's own is
	 * replaced (both went out untouched before; found by fuzz_secrets). */
	snprintf(
	    line, sizeof(line),
	    "GET / HTTP/1.1\r\nAuthorization: Basic %s PLACEHOLDERBB\r\n\r\n",
	    b64in);
	rewrite("api.test", line, 1, NULL, 0, "B");
	snprintf(
	    line, sizeof(line),
	    "GET / HTTP/1.1\r\nAuthorization: Basic %s sk-PLACEHOLDERAA\r\n\r\n",
	    b64in);
	snprintf(
	    want, sizeof(want),
	    "GET / HTTP/1.1\r\nAuthorization: Basic %s sk-REALVALUEAAAA\r\n\r\n",
	    b64out);
	rewrite("api.test", line, 0, want, 2, NULL);
	/* not base64: taken as text, left alone */
	rewrite("evil.test",
		"GET / HTTP/1.1\r\nAuthorization: Basic !!\r\n\r\n", 0,
		"GET / HTTP/1.1\r\nAuthorization: Basic !!\r\n\r\n", 0, NULL);
}

static void test_base64(void **state)
{
	uint8_t out[64];
	char enc[64];

	(void)state;
	assert_int_equal(jr_base64_encode((const uint8_t *)"f", 1, enc), 4);
	assert_string_equal(enc, "Zg==");
	jr_base64_encode((const uint8_t *)"foobar", 6, enc);
	assert_string_equal(enc, "Zm9vYmFy");
	assert_int_equal(jr_base64_decode("Zm9vYg==", 8, out), 4);
	assert_memory_equal(out, "foob", 4);
	assert_int_equal(jr_base64_decode("Zm9", 3, out), -EINVAL);
	assert_int_equal(jr_base64_decode("Zm=v", 4, out), -EINVAL);
	assert_int_equal(jr_base64_decode("Z===", 4, out), -EINVAL);
}

static void test_inspects(void **state)
{
	struct jr_secrets *set = two();
	char h[300];
	struct jr_err err = { 0 };

	(void)state;
	assert_true(jr_secrets_inspects(set, "api.test"));
	assert_true(jr_secrets_host_bound(set, "OTHER.test", 443));
	assert_true(jr_secrets_host_bound(set, "other.test.", 8080));
	assert_false(jr_secrets_host_bound(set, "other.test", 80));
	assert_false(jr_secrets_host_bound(set, "api.test", 80));
	assert_false(jr_secrets_host_bound(set, "api.test", 8080));
	assert_false(jr_secrets_inspects(set, "x.api.test"));
	assert_int_equal(jr_inspect_host_parse("Web.Test.", h, &err), 0);
	assert_string_equal(h, "web.test");
	set->inspect[0] = h;
	set->n_inspect = 1;
	assert_true(jr_secrets_inspects(set, "web.test"));
	assert_false(jr_secrets_host_bound(set, "web.test", 443));
	assert_int_equal(jr_inspect_host_parse("*.x", h, &err), -EINVAL);
	assert_false(jr_secrets_inspects(NULL, "api.test"));
}

/* A set with one secret read from @path: jr_secrets_load()'s result. */
static int load_file(struct jr_secrets *set, const char *path)
{
	char spec[PATH_MAX + 64];
	struct jr_err err = { 0 };

	memset(set, 0, sizeof(*set));
	snprintf(spec, sizeof(spec), "JR_TEST_FILE_SECRET=file:%s@api.test",
		 path);
	assert_int_equal(jr_secret_spec_parse(spec, &set->s[0], &err), 0);
	set->n = 1;
	return jr_secrets_load(set, &err);
}

static void write_file(const char *path, const char *text)
{
	FILE *f = fopen(path, "w");

	assert_non_null(f);
	assert_true(fputs(text, f) >= 0);
	assert_int_equal(fclose(f), 0);
}

/* Fails if the path to hide is not the canonical path of the file read
 * (through a symlink too), if a file replaced or removed after the read
 * goes unnoticed, or if a pipe, an unlinked file or an environment secret
 * is given a path to hide. */
static void test_file_canon(void **state)
{
	char dir[] = "/tmp/jr-test-secrets-XXXXXX", key[PATH_MAX],
	     link[PATH_MAX], other[PATH_MAX], want[PATH_MAX], got[PATH_MAX],
	     proc[64];
	const char *value = "sk-test-0123456789abcdef\n";
	struct jr_secrets *set = calloc(1, sizeof(*set));
	struct jr_err err = { 0 };
	int p[2], fd;

	(void)state;
	assert_non_null(set);
	assert_non_null(mkdtemp(dir));
	snprintf(key, sizeof(key), "%s/key", dir);
	snprintf(link, sizeof(link), "%s/link", dir);
	snprintf(other, sizeof(other), "%s/other", dir);
	write_file(key, value);
	assert_int_equal(symlink("key", link), 0);
	assert_non_null(realpath(key, want));

	/* Through the symlink: the file it leads to. */
	assert_int_equal(load_file(set, link), 0);
	assert_int_equal(jr_secret_file_canon(&set->s[0], got, &err), 1);
	assert_string_equal(got, want);
	/* Replaced after the read: refused. */
	write_file(other, value);
	assert_int_equal(rename(other, key), 0);
	assert_int_equal(jr_secret_file_canon(&set->s[0], got, &err), -ESTALE);
	assert_non_null(strstr(err.msg, "no longer the file jailrun read"));
	/* Gone after the read: refused. */
	assert_int_equal(unlink(key), 0);
	assert_int_equal(jr_secret_file_canon(&set->s[0], got, &err), -ENOENT);
	jr_secrets_release(set);

	/* A pipe has no name to hide. */
	assert_int_equal(pipe(p), 0);
	assert_true(write(p[1], value, strlen(value)) > 0);
	close(p[1]);
	snprintf(proc, sizeof(proc), "/proc/self/fd/%d", p[0]);
	assert_int_equal(load_file(set, proc), 0);
	assert_int_equal(jr_secret_file_canon(&set->s[0], got, &err), 0);
	jr_secrets_release(set);
	close(p[0]);

	/* Nor has an unlinked file. */
	write_file(key, value);
	fd = open(key, O_RDONLY | O_CLOEXEC);
	assert_true(fd >= 0);
	assert_int_equal(unlink(key), 0);
	snprintf(proc, sizeof(proc), "/proc/self/fd/%d", fd);
	assert_int_equal(load_file(set, proc), 0);
	assert_int_equal(jr_secret_file_canon(&set->s[0], got, &err), 0);
	jr_secrets_release(set);
	close(fd);

	/* Nor an environment secret. */
	memset(set, 0, sizeof(*set));
	assert_int_equal(
	    setenv("JR_TEST_ENV_SECRET", "ghp_0123456789abcdef", 1), 0);
	assert_int_equal(jr_secret_spec_parse("JR_TEST_ENV_SECRET@api.test",
					      &set->s[0], &err),
			 0);
	set->n = 1;
	assert_int_equal(jr_secrets_load(set, &err), 0);
	assert_int_equal(jr_secret_file_canon(&set->s[0], got, &err), 0);
	jr_secrets_release(set);

	assert_int_equal(unlink(link), 0);
	assert_int_equal(rmdir(dir), 0);
	free(set);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_spec_good),
		cmocka_unit_test(test_spec_ports),
		cmocka_unit_test(test_spec_bad),
		cmocka_unit_test(test_placeholder_shape),
		cmocka_unit_test(test_rewrite_fields),
		cmocka_unit_test(test_rewrite_target_untouched),
		cmocka_unit_test(test_rewrite_misuse),
		cmocka_unit_test(test_rewrite_ports),
		cmocka_unit_test(test_rewrite_basic),
		cmocka_unit_test(test_base64),
		cmocka_unit_test(test_inspects),
		cmocka_unit_test(test_file_canon),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
