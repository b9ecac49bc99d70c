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
	char *line = jr_audit_format_record(&r, NULL, 1795953600123ULL, 0);

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
	char *line = jr_audit_format_record(&r, NULL, 0, 0);

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

	assert_int_equal(jr_audit_open(&a, NULL, -1, NULL, &e), 0);
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

	assert_int_equal(jr_audit_open(&a, NULL, -1, NULL, &e), 0);
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
	assert_int_equal(jr_audit_open(&a, path, -1, NULL, &e), 0);
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

/* Every line of a run carries its run id and label, right after "time":
 * records, a collapsed repeat's count line, and events (issue 23: a log
 * several runs share can be split by run). */
static void test_tagged_lines(void **state)
{
	char path[] = "/tmp/jailrun-audit-XXXXXX";
	int fd = mkstemp(path);
	const struct jr_audit_tag tag = { "0123456789abcdef0123456789abcdef",
					  "task \"7\"" };
	struct jr_audit a;
	struct jr_err e = { 0 };
	struct jr_audit_record r = { .via = "dns",
				     .method = "A",
				     .host = "d.test",
				     .reason = "not-allowed",
				     .status = 3 };
	char buf[8192];
	ssize_t n;
	int lines = 0;

	assert_true(fd >= 0);
	close(fd);
	assert_int_equal(jr_audit_open(&a, path, -1, &tag, &e), 0);
	for (int i = 0; i < 3; i++) /* one line, then one "repeated":2 */
		jr_audit_connection_at(&a, &r, 1795953600000ULL + i);
	jr_audit_event(&a, "lifecycle", "exited");
	jr_audit_close(&a);
	fd = open(path, O_RDONLY);
	n = read(fd, buf, sizeof(buf) - 1);
	close(fd);
	unlink(path);
	assert_true(n > 0);
	buf[n] = '\0';
	for (char *line = strtok(buf, "\n"); line; line = strtok(NULL, "\n")) {
		const char *after_time = strstr(line, "Z\",");

		lines++;
		assert_non_null(after_time);
		assert_int_equal(
		    strncmp(
			after_time,
			"Z\",\"run_id\":\"0123456789abcdef0123456789abcdef\","
			"\"label\":\"task \\\"7\\\"\",\"event\":",
			strlen(
			    "Z\",\"run_id\":\"0123456789abcdef0123456789abcdef\","
			    "\"label\":\"task \\\"7\\\"\",\"event\":")),
		    0);
	}
	assert_int_equal(lines, 3);

	/* no label: no "label" key, the run id still there */
	{
		const struct jr_audit_tag bare = { tag.run_id, NULL };
		char *line = jr_audit_format_record(&r, &bare, 0, 0);

		assert_non_null(line);
		assert_non_null(strstr(line, "\"run_id\":\"0123"));
		assert_null(strstr(line, "\"label\""));
		free(line);
	}
}

static void test_open_errors(void **state)
{
	struct jr_audit a;
	struct jr_err e = { 0 };

	assert_int_equal(
	    jr_audit_open(&a, "/nonexistent/dir/log", -1, NULL, &e), -ENOENT);
	assert_non_null(strstr(e.msg, "--log /nonexistent/dir/log"));
	jr_audit_close(&a);
	assert_int_equal(jr_audit_open(&a, NULL, 987, NULL, &e), -EBADF);
	assert_non_null(strstr(e.msg, "--log-fd 987"));
	jr_audit_close(&a);
}

/* ------------------------------------------------------------ repeats */

/* A log on a temporary file, read back by log_text(). */
struct tlog {
	struct jr_audit a;
	char path[64];
	int fd;
};

static void tlog_open(struct tlog *t)
{
	struct jr_err e = { 0 };

	snprintf(t->path, sizeof(t->path), "/tmp/jailrun-audit-XXXXXX");
	t->fd = mkstemp(t->path);
	assert_true(t->fd >= 0);
	assert_int_equal(jr_audit_open(&t->a, NULL, t->fd, NULL, &e), 0);
}

/* Everything written so far; malloc'd. */
static char *tlog_text(struct tlog *t)
{
	char *buf;
	off_t size = lseek(t->fd, 0, SEEK_END);
	ssize_t n;

	assert_true(size >= 0);
	buf = malloc((size_t)size + 1);
	assert_non_null(buf);
	n = pread(t->fd, buf, (size_t)size, 0);
	assert_int_equal(n, size);
	buf[n] = '\0';
	return buf;
}

static void tlog_close(struct tlog *t)
{
	jr_audit_close(&t->a);
	close(t->fd);
	unlink(t->path);
}

static size_t count_lines(const char *text)
{
	size_t n = 0;

	for (; *text; text++)
		n += *text == '\n';
	return n;
}

/*
 * The records the lines stand for: each connection line counts 1, or its
 * "repeated"; only lines with @needle if not NULL.
 */
static uint64_t lines_stand_for(const char *text, const char *needle)
{
	uint64_t sum = 0;

	while (*text) {
		const char *end = strchr(text, '\n');
		char line[2048];
		size_t len = end ? (size_t)(end - text) : strlen(text);
		const char *rep;

		assert_true(len < sizeof(line));
		memcpy(line, text, len);
		line[len] = '\0';
		if (strstr(line, "\"event\":\"connection\"") &&
		    (!needle || strstr(line, needle))) {
			rep = strstr(line, "\"repeated\":");
			sum += rep ? strtoull(rep + 11, NULL, 10) : 1;
		}
		text += len + (end ? 1 : 0);
	}
	return sum;
}

#define T0 1795953600000ULL

static struct jr_audit_record dns_deny(uint64_t id)
{
	return (struct jr_audit_record){ .id = id,
					 .via = "dns",
					 .method = "A",
					 .host = "denied.test",
					 .reason = "not-allowed",
					 .status = 5 };
}

/* A flood within one window: one line, then one count line. */
static void test_repeat_one_window(void **state)
{
	struct tlog t;
	char *text;

	(void)state;
	tlog_open(&t);
	for (uint64_t i = 0; i < 1000; i++) {
		struct jr_audit_record r = dns_deny(i + 1);

		jr_audit_connection_at(&t.a, &r, T0 + i % JR_AUDIT_REPEAT_MS);
	}
	assert_int_equal(t.a.denied, 1000); /* every record counted */
	text = tlog_text(&t);
	assert_int_equal(count_lines(text), 1);
	assert_non_null(strstr(text, "\"id\":1,"));
	assert_null(strstr(text, "\"repeated\""));
	free(text);
	/* The window not over yet: nothing more. */
	jr_audit_flush_expired_at(&t.a, T0 + JR_AUDIT_REPEAT_MS - 1);
	text = tlog_text(&t);
	assert_int_equal(count_lines(text), 1);
	free(text);
	/* Over: the count, as the last record (id 1000, its time). */
	jr_audit_flush_expired_at(&t.a, T0 + JR_AUDIT_REPEAT_MS);
	text = tlog_text(&t);
	assert_int_equal(count_lines(text), 2);
	assert_non_null(strstr(
	    text,
	    "\"id\":1000,\"via\":\"dns\",\"method\":\"A\",\"host\":\"denied.test\""));
	assert_non_null(strstr(text, "\"time\":\"2026-11-29T12:00:00.999Z\""));
	assert_non_null(strstr(text, "\"duration_ms\":0,\"repeated\":999}\n"));
	assert_int_equal(lines_stand_for(text, NULL), 1000);
	free(text);
	/* Once written, a repeat starts afresh: a line of its own. */
	{
		struct jr_audit_record r = dns_deny(1001);

		jr_audit_connection_at(&t.a, &r, T0 + 5000);
	}
	text = tlog_text(&t);
	assert_int_equal(count_lines(text), 3);
	assert_int_equal(lines_stand_for(text, NULL), 1001);
	free(text);
	tlog_close(&t);
}

/* A steady flood writes one line a window, and the lines add up. */
static void test_repeat_steady_flood(void **state)
{
	struct tlog t;
	const uint64_t n = 20000, step_us = 250; /* 5 s of 4000 a second */
	char *text;

	(void)state;
	tlog_open(&t);
	for (uint64_t i = 0; i < n; i++) {
		struct jr_audit_record r = dns_deny(i + 1);

		r.method = i % 2 ? "AAAA" : "A"; /* interleaved keys */
		jr_audit_connection_at(&t.a, &r, T0 + i * step_us / 1000);
	}
	jr_audit_close(&t.a);
	text = tlog_text(&t);
	/* 5 windows, 2 keys: a first line and a line a window each. */
	assert_true(count_lines(text) <= 2 * (5 + 2));
	assert_int_equal(lines_stand_for(text, NULL), n);
	assert_int_equal(lines_stand_for(text, "\"method\":\"AAAA\""), n / 2);
	free(text);
	close(t.fd);
	unlink(t.path);
}

/* Only what differs between repeats may differ: id, time, bytes (summed
 * in the count line) and duration. */
static void test_repeat_key(void **state)
{
	struct jr_audit_record base = { .via = "proxy",
					.method = "CONNECT",
					.host = "x.test",
					.port = 443,
					.address = "192.0.2.1",
					.allowed = true,
					.status = 200 };
	struct jr_audit_record other[7];
	struct tlog t;
	char *text;

	(void)state;
	for (size_t i = 0; i < 7; i++)
		other[i] = base;
	other[0].port = 444;
	other[1].allowed = false;
	other[2].reason = "idle-timeout";
	other[3].host = "y.test";
	other[4].via = "transparent";
	other[5].status = 502;
	other[6].address = "192.0.2.2";
	tlog_open(&t);
	for (uint64_t i = 0; i < 3; i++) {
		struct jr_audit_record r = base;

		r.id = i;
		r.bytes_up = 10 * (i + 1);
		r.bytes_down = 100 * (i + 1);
		r.duration_ms = i;
		jr_audit_connection_at(&t.a, &r, T0 + i);
	}
	for (size_t i = 0; i < 7; i++)
		jr_audit_connection_at(&t.a, &other[i], T0 + 10);
	text = tlog_text(&t);
	assert_int_equal(count_lines(text), 8); /* base once, each other */
	free(text);
	jr_audit_close(&t.a);
	text = tlog_text(&t);
	assert_int_equal(count_lines(text), 9);
	/* ids 1 and 2: bytes 20+30 and 200+300, the last one's duration */
	assert_non_null(strstr(
	    text,
	    "\"id\":2,\"via\":\"proxy\",\"method\":\"CONNECT\",\"host\":\"x.test\""));
	assert_non_null(strstr(
	    text,
	    "\"bytes_up\":50,\"bytes_down\":500,\"duration_ms\":2,\"repeated\":2}\n"));
	assert_int_equal(lines_stand_for(text, NULL), 10);
	free(text);
	close(t.fd);
	unlink(t.path);
}

/* A single repeat is written as itself, without "repeated". */
static void test_repeat_single(void **state)
{
	struct tlog t;
	struct jr_audit_record r1 = dns_deny(1), r2 = dns_deny(2);
	char *text;

	(void)state;
	tlog_open(&t);
	jr_audit_connection_at(&t.a, &r1, T0);
	jr_audit_connection_at(&t.a, &r2, T0 + 1);
	jr_audit_flush_expired_at(&t.a, T0 + 2 * JR_AUDIT_REPEAT_MS);
	text = tlog_text(&t);
	assert_int_equal(count_lines(text), 2);
	assert_null(strstr(text, "repeated"));
	assert_non_null(strstr(text, "\"id\":2,"));
	free(text);
	tlog_close(&t);
}

/* More keys than slots: the oldest is pushed out, its count written. */
static void test_repeat_slots(void **state)
{
	struct tlog t;
	char hosts[JR_AUDIT_REPEAT_SLOTS + 1][32];
	char *text;

	(void)state;
	tlog_open(&t);
	for (int round = 0; round < 3; round++)
		for (int h = 0; h <= JR_AUDIT_REPEAT_SLOTS; h++) {
			struct jr_audit_record r = dns_deny(1);

			snprintf(hosts[h], sizeof(hosts[h]), "h%d.test", h);
			r.host = hosts[h];
			jr_audit_connection_at(&t.a, &r, T0 + (uint64_t)round);
		}
	jr_audit_close(&t.a);
	text = tlog_text(&t);
	assert_int_equal(lines_stand_for(text, NULL),
			 3 * (JR_AUDIT_REPEAT_SLOTS + 1));
	assert_int_equal(lines_stand_for(text, "\"host\":\"h0.test\""), 3);
	free(text);
	close(t.fd);
	unlink(t.path);
}

/* An event line comes after every count held back; so does close. A
 * clock that goes back ends the window. */
static void test_repeat_order_and_clock(void **state)
{
	struct tlog t;
	char *text, *count, *event;

	(void)state;
	tlog_open(&t);
	for (uint64_t i = 0; i < 5; i++) {
		struct jr_audit_record r = dns_deny(i + 1);

		jr_audit_connection_at(&t.a, &r, T0);
	}
	jr_audit_event(&t.a, "lifecycle", "exited");
	text = tlog_text(&t);
	assert_int_equal(count_lines(text), 3);
	count = strstr(text, "\"repeated\":4}");
	event = strstr(text, "\"event\":\"lifecycle\"");
	assert_non_null(count);
	assert_non_null(event);
	assert_true(count < event);
	free(text);
	/* back in time: a new window at once */
	for (uint64_t i = 0; i < 3; i++) {
		struct jr_audit_record r = dns_deny(10 + i);

		jr_audit_connection_at(&t.a, &r, T0 + 100 - i * 50);
	}
	text = tlog_text(&t);
	assert_int_equal(lines_stand_for(text, NULL), 8);
	free(text);
	tlog_close(&t);
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
		cmocka_unit_test(test_repeat_one_window),
		cmocka_unit_test(test_repeat_steady_flood),
		cmocka_unit_test(test_tagged_lines),
		cmocka_unit_test(test_repeat_key),
		cmocka_unit_test(test_repeat_single),
		cmocka_unit_test(test_repeat_slots),
		cmocka_unit_test(test_repeat_order_and_clock),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
