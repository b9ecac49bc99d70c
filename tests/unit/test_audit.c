// SPDX-License-Identifier: GPL-2.0-or-later
/* Unit tests for audit.c: the JSON line, the counts, the log file. */
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
#include <cmocka.h>

#include "audit.h"

static void test_format_allow(void **state)
{
	struct jr_audit_record r = {
		.id = 7,
		.via = "proxy",
		.method = "CONNECT",
		.host = "api.example.com",
		.port = 443,
		.address = "192.0.2.7",
		.allowed = true,
		.status = 200,
		.bytes_up = 517,
		.bytes_down = 4096,
		.duration_ms = 85,
	};
	char *line = jr_audit_format_record(&r, 1795953600123ULL);

	assert_non_null(line);
	assert_string_equal(
	    line,
	    "{\"time\":\"2026-11-29T12:00:00.123Z\",\"event\":\"connection\",\"id\":7,"
	    "\"via\":\"proxy\",\"method\":\"CONNECT\",\"host\":\"api.example.com\","
	    "\"port\":443,\"address\":\"192.0.2.7\",\"verdict\":\"allow\",\"reason\":null,"
	    "\"status\":200,\"bytes_up\":517,\"bytes_down\":4096,\"duration_ms\":85}\n");
	free(line);
}

static void test_format_deny_and_nulls(void **state)
{
	struct jr_audit_record r = {
		.id = 1,
		.via = "dns",
		.method = "A",
		.host = "secret\".evil.com",
		.reason = "not-allowed",
		.status = -1,
	};
	char *line = jr_audit_format_record(&r, 0);

	assert_non_null(line);
	assert_non_null(strstr(line, "\"time\":\"1970-01-01T00:00:00.000Z\""));
	assert_non_null(strstr(line, "\"host\":\"secret\\\".evil.com\""));
	assert_non_null(strstr(
	    line,
	    "\"port\":null,\"address\":null,\"verdict\":\"deny\",\"reason\":\"not-allowed\",\"status\":null"));
	free(line);
}

static void test_counts_and_denied_line(void **state)
{
	struct jr_audit a;
	struct jr_err e = { 0 };
	struct jr_audit_record deny1 = { .via = "proxy",
					 .host = "denied.test",
					 .port = 443,
					 .status = 403 };
	struct jr_audit_record deny2 = { .via = "dns",
					 .host = "evil.test",
					 .status = 3 };
	struct jr_audit_record allow = { .via = "proxy",
					 .host = "ok.test",
					 .port = 80,
					 .allowed = true,
					 .status = 200 };
	char *line;

	assert_int_equal(jr_audit_open(&a, NULL, -1, &e), 0);
	assert_null(jr_audit_denied_line(&a));
	jr_audit_connection(&a, &deny1);
	jr_audit_connection(&a, &deny1);
	jr_audit_connection(&a, &deny2);
	jr_audit_connection(&a, &allow);
	assert_int_equal(a.allowed, 1);
	assert_int_equal(a.denied, 3);
	assert_int_equal(a.n_denied_dest, 2);
	line = jr_audit_denied_line(&a);
	assert_non_null(line);
	assert_string_equal(
	    line, "denied 3 connections: denied.test:443 (2), evil.test (1)");
	free(line);
	for (int i = 0; i < JR_AUDIT_MAX_DENIED + 5; i++) {
		char host[32];
		struct jr_audit_record d = { .via = "proxy",
					     .host = host,
					     .port = 1 };

		snprintf(host, sizeof(host), "h%d.test", i);
		jr_audit_connection(&a, &d);
	}
	assert_int_equal(a.n_denied_dest, JR_AUDIT_MAX_DENIED);
	assert_true(a.denied_dest_truncated);
	line = jr_audit_denied_line(&a);
	assert_non_null(strstr(line, ", ..."));
	free(line);
	jr_audit_close(&a);
}

/* The hint names the fix each denial calls for, not always --allow. */
static void test_deny_hint(void **state)
{
	static const struct {
		const char *reason;
		enum jr_deny_fix fix;
	} cases[] = {
		{ "not-allowed", JR_FIX_ALLOW },
		{ "port-not-allowed", JR_FIX_ALLOW },
		{ "special-address", JR_FIX_PRIVATE },
		{ "local-address", JR_FIX_PRIVATE },
		{ "http-rule", JR_FIX_HTTP_RULE },
		{ "http-path", JR_FIX_HTTP_PATH },
		{ "http-rules-need-inspection", JR_FIX_INSPECT },
		{ "secret-misuse", JR_FIX_SECRET_HOST },
		{ "secret-plaintext", JR_FIX_SECRET_HTTPS },
		{ "managed-deny", JR_FIX_MANAGED },
		{ "bad-request", JR_FIX_NONE },
		{ "policy-removed", JR_FIX_NONE },
		{ NULL, JR_FIX_NONE },
	};
	struct jr_audit a;
	struct jr_err e = { 0 };
	struct jr_audit_record rule = { .via = "proxy",
					.host = "api.test",
					.port = 80,
					.reason = "http-rule",
					.status = 403 };
	struct jr_audit_record misuse = { .via = "inspect",
					  .host = "other.test",
					  .port = 443,
					  .reason = "secret-misuse",
					  .status = 403 };
	struct jr_audit_record notallowed = { .via = "proxy",
					      .host = "denied.test",
					      .port = 80,
					      .reason = "not-allowed",
					      .status = 403 };
	char *hint;

	(void)state;
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++)
		assert_int_equal(jr_deny_fix_of(cases[i].reason, false),
				 cases[i].fix);
	assert_int_equal(jr_deny_fix_of("not-allowed", true), JR_FIX_PRIVATE);
	assert_int_equal(jr_deny_fix_of("http-rule", true), JR_FIX_HTTP_RULE);
	/* every kind has its own text */
	for (int f = 0; f < JR_FIX_COUNT; f++)
		for (int g = f + 1; g < JR_FIX_COUNT; g++)
			assert_string_not_equal(jr_deny_fix_text(f),
						jr_deny_fix_text(g));

	assert_int_equal(jr_audit_open(&a, NULL, -1, &e), 0);
	assert_null(jr_audit_deny_hint(&a, false));
	jr_audit_connection(&a, &rule);
	jr_audit_connection(&a, &rule);
	hint = jr_audit_deny_hint(&a, false);
	assert_non_null(hint);
	assert_string_equal(hint, jr_deny_fix_text(JR_FIX_HTTP_RULE));
	assert_null(strstr(hint, "add --allow"));
	free(hint);
	jr_audit_connection(&a, &misuse);
	jr_audit_connection(&a, &notallowed);
	hint = jr_audit_deny_hint(&a, false);
	assert_non_null(hint);
	/* one hint per kind, in jr_deny_fix order */
	assert_non_null(strstr(hint, "add --allow for what the command needs; "
				     "a request no --allow-http rule allows"));
	assert_non_null(strstr(hint, "; a secret's placeholder went to a host "
				     "its --secret does not name"));
	free(hint);
	/* --net public: no allowlist to add to */
	hint = jr_audit_deny_hint(&a, true);
	assert_non_null(hint);
	assert_null(strstr(hint, "add --allow"));
	assert_non_null(strstr(hint, "--allow-private opens a private range"));
	free(hint);
	jr_audit_close(&a);
}

static void test_log_file(void **state)
{
	char path[] = "/tmp/jailrun-audit-XXXXXX";
	int fd = mkstemp(path);
	struct jr_audit a;
	struct jr_err e = { 0 };
	struct jr_audit_record r = { .via = "proxy",
				     .host = "x.test",
				     .port = 80,
				     .allowed = true,
				     .status = 200 };
	char buf[4096];
	ssize_t n;
	int lines = 0;

	assert_true(fd >= 0);
	close(fd);
	assert_int_equal(jr_audit_open(&a, path, -1, &e), 0);
	assert_true(fcntl(a.fd, F_GETFD) & FD_CLOEXEC);
	jr_audit_connection(&a, &r);
	jr_audit_event(&a, "lifecycle", "command started");
	jr_audit_close(&a);
	fd = open(path, O_RDONLY);
	n = read(fd, buf, sizeof(buf) - 1);
	close(fd);
	unlink(path);
	assert_true(n > 0);
	buf[n] = '\0';
	for (char *p = buf; *p; p++)
		lines += *p == '\n';
	assert_int_equal(lines, 2);
	assert_non_null(strstr(buf, "\"host\":\"x.test\""));
	assert_non_null(strstr(
	    buf, "\"event\":\"lifecycle\",\"detail\":\"command started\"}\n"));
}

static void test_open_errors(void **state)
{
	struct jr_audit a;
	struct jr_err e = { 0 };

	assert_int_equal(jr_audit_open(&a, "/nonexistent/dir/log", -1, &e),
			 -ENOENT);
	assert_non_null(strstr(e.msg, "--log /nonexistent/dir/log"));
	jr_audit_close(&a);
	assert_int_equal(jr_audit_open(&a, NULL, 987, &e), -EBADF);
	assert_non_null(strstr(e.msg, "--log-fd 987"));
	jr_audit_close(&a);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_format_allow),
		cmocka_unit_test(test_format_deny_and_nulls),
		cmocka_unit_test(test_counts_and_denied_line),
		cmocka_unit_test(test_deny_hint),
		cmocka_unit_test(test_log_file),
		cmocka_unit_test(test_open_errors),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
