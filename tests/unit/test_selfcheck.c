// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * Unit tests for selfcheck.c: init's readiness check of the relay,
 * against a fake relay (a thread) on 127.0.0.1 in a private network
 * namespace: proxy on JR_PROXY_PORT, DNS on JR_DNS_PORT over UDP and TCP.
 * Each test says what the fake does wrong and which message must come.
 * The three checks run at once (selfcheck.c): these pin that all three
 * must still pass, and that a failure is still reported as the first of
 * proxy, DNS/UDP, DNS/TCP with the message it always had.
 */
#include <arpa/inet.h>
#include <errno.h>
#include <netinet/in.h>
#include <poll.h>
#include <pthread.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>
#include <cmocka.h>

#include "err.h"
#include "link.h"
#include "netns_test.h"
#include "options.h"
#include "selfcheck.h"

/* What the fake relay gets wrong. */
enum fake_fault {
	FAKE_NONE,
	FAKE_PROXY_503,	   /* the proxy answers, but not 200 */
	FAKE_NO_DNS_TCP,   /* nothing listens on DNS/TCP */
	FAKE_UDP_SILENT,   /* DNS/UDP never answers */
	FAKE_UDP_WRONG_ID, /* DNS/UDP answers another query */
};

struct fake {
	enum fake_fault fault;
	int proxy, udp, tcp, stop[2];
	pthread_t thread;
};

static int listen_lo(int type, uint16_t port)
{
	struct sockaddr_in sin = {
		.sin_family = AF_INET,
		.sin_addr.s_addr = htonl(INADDR_LOOPBACK),
		.sin_port = htons(port),
	};
	int fd = socket(AF_INET, type | SOCK_CLOEXEC, 0);

	assert_true(fd >= 0);
	assert_int_equal(
	    setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &(int){ 1 }, sizeof(int)),
	    0);
	assert_int_equal(bind(fd, (struct sockaddr *)&sin, sizeof(sin)), 0);
	if (type == SOCK_STREAM)
		assert_int_equal(listen(fd, 8), 0);
	return fd;
}

/* Answer one TCP client on @lfd: read @need bytes, write @ans. */
static void serve_tcp(int lfd, size_t need, const void *ans, size_t len,
		      bool dns)
{
	uint8_t buf[600];
	size_t got = 0;
	int c = accept4(lfd, NULL, NULL, SOCK_CLOEXEC);

	if (c < 0)
		return;
	while (got < need) {
		ssize_t n = recv(c, buf + got, sizeof(buf) - got, 0);

		if (n <= 0)
			break;
		got += (size_t)n;
		if (dns && got >= 2)
			need = 2 + (size_t)(buf[0] << 8 | buf[1]);
	}
	if (dns && got >= 2 + 12) {
		uint8_t a[2 + 12] = { 0, 12, buf[2], buf[3], 0x81, 0x80 };

		(void)!send(c, a, sizeof(a), MSG_NOSIGNAL);
	} else if (!dns) {
		(void)!send(c, ans, len, MSG_NOSIGNAL);
	}
	close(c);
}

static void *fake_main(void *arg)
{
	struct fake *f = arg;
	static const char ok[] = "HTTP/1.1 200 OK\r\nContent-Length: 0\r\n\r\n";
	static const char bad[] =
	    "HTTP/1.1 503 Unavailable\r\nContent-Length: 0\r\n\r\n";
	const char *head = f->fault == FAKE_PROXY_503 ? bad : ok;

	for (;;) {
		struct pollfd p[4] = {
			{ .fd = f->stop[0], .events = POLLIN },
			{ .fd = f->proxy, .events = POLLIN },
			{ .fd = f->udp, .events = POLLIN },
			{ .fd = f->tcp, .events = POLLIN },
		};

		if (poll(p, 4, -1) < 0)
			continue;
		if (p[0].revents)
			return NULL;
		if (p[1].revents)
			serve_tcp(f->proxy, 4, head, strlen(head), false);
		if (p[2].revents) {
			uint8_t q[512];
			struct sockaddr_in from;
			socklen_t fl = sizeof(from);
			ssize_t n = recvfrom(f->udp, q, sizeof(q), 0,
					     (struct sockaddr *)&from, &fl);

			if (n >= 12 && f->fault != FAKE_UDP_SILENT) {
				q[2] |= 0x80;
				if (f->fault == FAKE_UDP_WRONG_ID)
					q[1] ^= 0xff;
				(void)!sendto(f->udp, q, (size_t)n, 0,
					      (struct sockaddr *)&from, fl);
			}
		}
		if (p[3].revents)
			serve_tcp(f->tcp, 2, NULL, 0, true);
	}
}

static void fake_start(struct fake *f, enum fake_fault fault)
{
	f->fault = fault;
	f->proxy = listen_lo(SOCK_STREAM, JR_PROXY_PORT);
	f->udp = listen_lo(SOCK_DGRAM, JR_DNS_PORT);
	f->tcp =
	    fault == FAKE_NO_DNS_TCP ? -1 : listen_lo(SOCK_STREAM, JR_DNS_PORT);
	assert_int_equal(pipe2(f->stop, O_CLOEXEC), 0);
	assert_int_equal(pthread_create(&f->thread, NULL, fake_main, f), 0);
}

static void fake_stop(struct fake *f)
{
	assert_int_equal(write(f->stop[1], "x", 1), 1);
	pthread_join(f->thread, NULL);
	close(f->proxy);
	close(f->udp);
	if (f->tcp >= 0)
		close(f->tcp);
	close(f->stop[0]);
	close(f->stop[1]);
}

/* Run the check against a fake with @fault; its result, message in @e. */
static int check_with(enum fake_fault fault, int timeout_ms, struct jr_err *e)
{
	struct in_addr lo = { .s_addr = htonl(INADDR_LOOPBACK) };
	struct fake f;
	int r;

	fake_start(&f, fault);
	r = jr_selfcheck_relay(lo, timeout_ms, e);
	fake_stop(&f);
	return r;
}

/* Fails if a healthy relay is refused (a probe that never completes, a
 * TCP DNS answer read at the wrong offset). */
static void test_healthy(void **state)
{
	struct jr_err e = { 0 };

	(void)state;
	assert_int_equal(check_with(FAKE_NONE, 5000, &e), 0);
}

/* Fails if a proxy answering anything but 200 passes. */
static void test_proxy_not_200(void **state)
{
	struct jr_err e = { 0 };

	(void)state;
	assert_true(check_with(FAKE_PROXY_503, 5000, &e) < 0);
	assert_non_null(strstr(
	    e.msg, "refusing to run the command: the relay's proxy port did "
		   "not answer its health request"));
}

/* Fails if a missing DNS/TCP listener passes, or is blamed on another
 * check. */
static void test_no_dns_tcp(void **state)
{
	struct jr_err e = { 0 };

	(void)state;
	assert_true(check_with(FAKE_NO_DNS_TCP, 5000, &e) < 0);
	assert_non_null(
	    strstr(e.msg, "cannot reach the relay's DNS TCP port: "));
}

/* Fails if a DNS/UDP port that never answers passes, or the deadline is
 * not kept (the test would hang). */
static void test_udp_silent(void **state)
{
	struct jr_err e = { 0 };

	(void)state;
	assert_true(check_with(FAKE_UDP_SILENT, 300, &e) < 0);
	assert_non_null(
	    strstr(e.msg, "the relay's DNS UDP port did not answer a query: "));
	assert_int_equal(e.code, ETIMEDOUT);
}

/* Fails if an answer to another query counts. */
static void test_udp_wrong_id(void **state)
{
	struct jr_err e = { 0 };

	(void)state;
	assert_true(check_with(FAKE_UDP_WRONG_ID, 5000, &e) < 0);
	assert_non_null(
	    strstr(e.msg, "the relay's DNS UDP port did not answer a query"));
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_healthy),
		cmocka_unit_test(test_proxy_not_200),
		cmocka_unit_test(test_no_dns_tcp),
		cmocka_unit_test(test_udp_silent),
		cmocka_unit_test(test_udp_wrong_id),
	};
	struct jr_err e = { 0 };

	enter_private_netns();
	if (jr_link_lo_up(&e) < 0)
		skip_test("cannot bring lo up in a private network namespace");
	return cmocka_run_group_tests(tests, NULL, NULL);
}
