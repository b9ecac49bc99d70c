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
 *
 * The three run at once, from one poll(2) loop: each was a round trip to
 * the relay thread (a wake-up of the runner's thread and one of init),
 * and in turn they were three on the way to the command's start. All
 * three must pass; a failure is reported as the first of them, in the
 * order proxy, DNS/UDP, DNS/TCP, with the message each had when they ran
 * one after the other.
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

/* One of the three checks, as a small state machine (run_probes()). */
struct probe {
	int fd;
	enum { P_CONNECT, P_SEND, P_RECV, P_DONE } state;
	const uint8_t *out; /* the request, and how much of it went */
	size_t out_len, sent;
	uint8_t in[2 + 512]; /* the answer so far */
	size_t want, got;    /* enough bytes to judge it; got so far */
	bool datagram;	     /* one recv is the whole answer */
	int err;	     /* 0, or the errno that ended it */
	int failed_in;	     /* the state it failed in */
};

/* Start @p: a non-blocking socket connecting to @gw:@port. */
static void probe_start(struct probe *p, struct in_addr gw, uint16_t port,
			int type)
{
	struct sockaddr_in sin = {
		.sin_family = AF_INET,
		.sin_addr = gw,
		.sin_port = htons(port),
	};

	p->datagram = type == SOCK_DGRAM;
	p->state = P_CONNECT;
	p->fd = socket(AF_INET, type | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
	if (p->fd < 0 ||
	    (connect(p->fd, (struct sockaddr *)&sin, sizeof(sin)) < 0 &&
	     errno != EINPROGRESS)) {
		p->err = errno;
		p->failed_in = P_CONNECT;
		p->state = P_DONE;
		return;
	}
	if (p->datagram)
		p->state = P_SEND; /* a UDP connect completes at once */
}

static void probe_fail(struct probe *p, int e)
{
	p->err = e;
	p->failed_in = p->state;
	p->state = P_DONE;
}

/* Advance @p as far as it goes without blocking. */
static void probe_step(struct probe *p)
{
	socklen_t len = sizeof(int);
	int soerr = 0;
	ssize_t n;

	if (p->state == P_CONNECT) {
		if (getsockopt(p->fd, SOL_SOCKET, SO_ERROR, &soerr, &len) < 0)
			soerr = errno;
		if (soerr)
			return probe_fail(p, soerr);
		p->state = P_SEND;
	}
	while (p->state == P_SEND) {
		n = send(p->fd, p->out + p->sent, p->out_len - p->sent,
			 MSG_NOSIGNAL);
		if (n < 0) {
			if (errno == EAGAIN || errno == EINTR)
				return;
			return probe_fail(p, errno);
		}
		p->sent += (size_t)n;
		if (p->sent == p->out_len)
			p->state = P_RECV;
	}
	while (p->state == P_RECV && p->got < p->want) {
		n = recv(p->fd, p->in + p->got, sizeof(p->in) - p->got, 0);
		if (n < 0) {
			if (errno == EAGAIN || errno == EINTR)
				return;
			return probe_fail(p, errno);
		}
		p->got += (size_t)n;
		if (n == 0 || p->datagram)
			break; /* closed, or the one datagram */
	}
	if (p->state == P_RECV)
		p->state = P_DONE;
}

/* Run the probes @p (@n of them) until each is done or @deadline passes
 * (then the ones still going fail with ETIMEDOUT, keeping what came). */
static void run_probes(struct probe *p, size_t n, long long deadline)
{
	for (;;) {
		struct pollfd fds[3];
		size_t k = 0;
		long long left;
		int r;

		for (size_t i = 0; i < n; i++) {
			if (p[i].state == P_DONE)
				continue;
			fds[k].fd = p[i].fd;
			fds[k].events = p[i].state == P_RECV ? POLLIN : POLLOUT;
			fds[k].revents = 0;
			k++;
		}
		if (!k)
			return;
		left = deadline - (long long)jr_clock_ms();
		r = left > 0 ? poll(fds, k, (int)left) : 0;
		if (r < 0 && errno != EINTR)
			r = 0; /* cannot wait: treat as the deadline */
		for (size_t i = 0, j = 0; i < n; i++) {
			if (p[i].state == P_DONE)
				continue;
			if (r == 0 && p[i].state == P_RECV && p[i].got)
				p[i].state = P_DONE; /* judge what came */
			else if (r == 0)
				probe_fail(&p[i], ETIMEDOUT);
			else if (fds[j].revents)
				probe_step(&p[i]);
			j++;
		}
	}
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

/* The proxy's verdict, with the messages the checks always had. */
static int judge_proxy(const struct probe *p, struct jr_err *err)
{
	static const char ok[] = "HTTP/1.1 200 ";

	if (p->err && p->failed_in == P_CONNECT)
		return jr_err_set(
		    err, p->err, "cannot connect to the relay's proxy port: %s",
		    strerror(p->err));
	if (p->err && p->failed_in == P_SEND)
		return jr_err_set(err, p->err,
				  "cannot send to the relay's proxy port: %s",
				  strerror(p->err));
	if (p->err && !p->got)
		return jr_err_set(err, p->err,
				  "no answer from the relay's proxy port: %s",
				  strerror(p->err));
	if (p->got < sizeof(ok) - 1 || memcmp(p->in, ok, sizeof(ok) - 1) != 0)
		return jr_err_set(
		    err, EPROTO,
		    "the relay's proxy port did not answer its health request");
	return 0;
}

/* A DNS probe's verdict (@off: the TCP length prefix to skip). */
static int judge_dns(const struct probe *p, size_t off, uint16_t id,
		     struct jr_err *err)
{
	const char *what = p->datagram ? "UDP" : "TCP";

	if (p->err && p->failed_in == P_CONNECT)
		return jr_err_set(err, p->err,
				  "cannot reach the relay's DNS %s port: %s",
				  what, strerror(p->err));
	if (!p->err && p->got >= off + 12 &&
	    is_answer_to(p->in + off, p->got - off, id))
		return 0;
	return jr_err_set(err, p->err ? p->err : EPROTO,
			  "the relay's DNS %s port did not answer a query%s%s",
			  what, p->err ? ": " : "",
			  p->err ? strerror(p->err) : "");
}

int jr_selfcheck_relay(struct in_addr gw, int timeout_ms, struct jr_err *err)
{
	long long deadline = (long long)jr_clock_ms() + timeout_ms;
	uint16_t id = (uint16_t)(getpid() ^ jr_clock_ms());
	uint8_t q[2 + 64];
	size_t qlen = health_query(q + 2, id);
	struct probe p[3] = {
		{ .out = (const uint8_t *)JR_HEALTH_REQUEST,
		  .out_len = strlen(JR_HEALTH_REQUEST),
		  .want = sizeof("HTTP/1.1 200 ") - 1 },
		{ .out = q + 2, .out_len = qlen, .want = 1 },
		{ .out = q, .out_len = qlen + 2, .want = 2 + 12 },
	};
	int r;

	q[0] = (uint8_t)(qlen >> 8);
	q[1] = (uint8_t)qlen;
	probe_start(&p[0], gw, JR_PROXY_PORT, SOCK_STREAM);
	probe_start(&p[1], gw, JR_DNS_PORT, SOCK_DGRAM);
	probe_start(&p[2], gw, JR_DNS_PORT, SOCK_STREAM);
	run_probes(p, ARRAY_SIZE(p), deadline);
	for (size_t i = 0; i < ARRAY_SIZE(p); i++)
		if (p[i].fd >= 0)
			close(p[i].fd);
	r = judge_proxy(&p[0], err);
	if (r == 0)
		r = judge_dns(&p[1], 0, id, err);
	if (r == 0)
		r = judge_dns(&p[2], 2, id, err);
	if (r < 0)
		return jr_err_prefix(
		    err,
		    "relay self-check failed, refusing to run the command: ");
	return 0;
}
