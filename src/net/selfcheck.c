// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * selfcheck.c - the readiness check run by the sandbox's init right before
 * it starts the command (see selfcheck.h).
 *
 * Theory of operation: init lives in the worker netns, so its packets meet
 * the same routes and the same nftables output chain as the command's. A
 * health request on the proxy port and a DNS query over UDP and over TCP
 * that come back prove, end to end, that the rules let the relay's ports
 * through, that the veth and addresses are up, and that the runner's relay
 * thread is serving. Each step has a deadline; anything else is a failure,
 * and the command does not start.
 */
#include <arpa/inet.h>
#include <errno.h>
#include <poll.h>
#include <stdbool.h>
#include <stdio.h>
#include <string.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

#include "cleanup.h"
#include "clock.h"
#include "dns.h"
#include "options.h"
#include "selfcheck.h"

/* Wait for @events on @fd until @deadline; -ETIMEDOUT when it passes. */
static int wait_fd(int fd, short events, long long deadline)
{
	for (;;) {
		struct pollfd p = { .fd = fd, .events = events };
		long long left = deadline - (long long)jr_clock_ms();
		int n;

		if (left <= 0)
			return -ETIMEDOUT;
		n = poll(&p, 1, (int)left);
		if (n > 0)
			return 0;
		if (n < 0 && errno != EINTR)
			return -errno;
	}
}

static int connect_to(struct in_addr gw, uint16_t port, int type,
		      long long deadline)
{
	_cleanup_close_ int fd =
	    socket(AF_INET, type | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
	struct sockaddr_in sin = {
		.sin_family = AF_INET,
		.sin_addr = gw,
		.sin_port = htons(port),
	};
	socklen_t len = sizeof(int);
	int soerr = 0, r;

	if (fd < 0)
		return -errno;
	if (connect(fd, (struct sockaddr *)&sin, sizeof(sin)) < 0) {
		if (errno != EINPROGRESS)
			return -errno;
		r = wait_fd(fd, POLLOUT, deadline);
		if (r < 0)
			return r;
		if (getsockopt(fd, SOL_SOCKET, SO_ERROR, &soerr, &len) < 0)
			return -errno;
		if (soerr)
			return -soerr;
	}
	return steal_fd(&fd);
}

static int send_all(int fd, const void *buf, size_t len, long long deadline)
{
	const char *p = buf;

	while (len) {
		ssize_t n = send(fd, p, len, MSG_NOSIGNAL);

		if (n < 0) {
			if (errno == EAGAIN) {
				int r = wait_fd(fd, POLLOUT, deadline);

				if (r < 0)
					return r;
				continue;
			}
			if (errno == EINTR)
				continue;
			return -errno;
		}
		p += n;
		len -= (size_t)n;
	}
	return 0;
}

/* Read until @want bytes arrived or the peer closed; returns bytes read. */
static ssize_t recv_some(int fd, void *buf, size_t want, long long deadline)
{
	size_t got = 0;

	while (got < want) {
		ssize_t n = recv(fd, (char *)buf + got, want - got, 0);

		if (n == 0)
			break;
		if (n < 0) {
			if (errno == EAGAIN) {
				int r = wait_fd(fd, POLLIN, deadline);

				if (r < 0)
					return got ? (ssize_t)got : r;
				continue;
			}
			if (errno == EINTR)
				continue;
			return -errno;
		}
		got += (size_t)n;
	}
	return (ssize_t)got;
}

static int check_proxy(struct in_addr gw, long long deadline,
		       struct jr_err *err)
{
	_cleanup_close_ int fd =
	    connect_to(gw, JR_PROXY_PORT, SOCK_STREAM, deadline);
	static const char ok[] = "HTTP/1.1 200 ";
	char buf[64];
	ssize_t n;
	int r;

	if (fd < 0)
		return jr_err_set(
		    err, -fd, "cannot connect to the relay's proxy port: %s",
		    strerror(-fd));
	r = send_all(fd, JR_HEALTH_REQUEST, strlen(JR_HEALTH_REQUEST),
		     deadline);
	if (r < 0)
		return jr_err_set(err, -r,
				  "cannot send to the relay's proxy port: %s",
				  strerror(-r));
	n = recv_some(fd, buf, sizeof(ok) - 1, deadline);
	if (n < 0)
		return jr_err_set(err, (int)-n,
				  "no answer from the relay's proxy port: %s",
				  strerror((int)-n));
	if ((size_t)n < sizeof(ok) - 1 || memcmp(buf, ok, sizeof(ok) - 1) != 0)
		return jr_err_set(
		    err, EPROTO,
		    "the relay's proxy port did not answer its health request");
	return 0;
}

/* A query for JR_HEALTH_DNS_NAME, type A, id @id; returns its length. */
static size_t health_query(uint8_t *q, uint16_t id)
{
	const char *name = JR_HEALTH_DNS_NAME;
	size_t n = 12;

	memset(q, 0, 12);
	q[0] = (uint8_t)(id >> 8);
	q[1] = (uint8_t)id;
	q[2] = 0x01; /* RD */
	q[5] = 1;    /* QDCOUNT */
	while (*name) {
		const char *dot = strchr(name, '.');
		size_t len = dot ? (size_t)(dot - name) : strlen(name);

		q[n++] = (uint8_t)len;
		memcpy(q + n, name, len);
		n += len;
		name += len + (dot ? 1 : 0);
	}
	q[n++] = 0;
	q[n++] = 0;
	q[n++] = JR_DNS_TYPE_A;
	q[n++] = 0;
	q[n++] = JR_DNS_CLASS_IN;
	return n;
}

static bool is_answer_to(const uint8_t *a, size_t n, uint16_t id)
{
	return n >= 12 && a[0] == (uint8_t)(id >> 8) && a[1] == (uint8_t)id &&
	       (a[2] & 0x80);
}

static int check_dns(struct in_addr gw, int type, long long deadline,
		     struct jr_err *err)
{
	const char *what = type == SOCK_DGRAM ? "UDP" : "TCP";
	_cleanup_close_ int fd = connect_to(gw, JR_DNS_PORT, type, deadline);
	uint8_t q[2 + 64], a[2 + 512];
	uint16_t id = (uint16_t)(getpid() ^ jr_clock_ms());
	size_t qlen = health_query(q + 2, id);
	ssize_t n;
	int r;

	if (fd < 0)
		return jr_err_set(err, -fd,
				  "cannot reach the relay's DNS %s port: %s",
				  what, strerror(-fd));
	if (type == SOCK_DGRAM) {
		r = send_all(fd, q + 2, qlen, deadline);
		if (r == 0)
			r = wait_fd(fd, POLLIN, deadline);
		n = r < 0 ? r : recv(fd, a, sizeof(a), 0);
		if (n >= 0 && is_answer_to(a, (size_t)n, id))
			return 0;
	} else {
		q[0] = (uint8_t)(qlen >> 8);
		q[1] = (uint8_t)qlen;
		r = send_all(fd, q, qlen + 2, deadline);
		n = r < 0 ? r : recv_some(fd, a, 2 + 12, deadline);
		if (n >= 14 && is_answer_to(a + 2, (size_t)n - 2, id))
			return 0;
	}
	return jr_err_set(err, n < 0 ? (int)-n : EPROTO,
			  "the relay's DNS %s port did not answer a query%s%s",
			  what, n < 0 ? ": " : "",
			  n < 0 ? strerror((int)-n) : "");
}

int jr_selfcheck_relay(struct in_addr gw, int timeout_ms, struct jr_err *err)
{
	long long deadline = (long long)jr_clock_ms() + timeout_ms;
	int r;

	r = check_proxy(gw, deadline, err);
	if (r == 0)
		r = check_dns(gw, SOCK_DGRAM, deadline, err);
	if (r == 0)
		r = check_dns(gw, SOCK_STREAM, deadline, err);
	if (r < 0)
		return jr_err_prefix(
		    err,
		    "relay self-check failed, refusing to run the command: ");
	return 0;
}
