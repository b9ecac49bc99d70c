// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * relay_lane.c - the relay's side of the model lane (--lane HOST:PORT)
 * and of published ports (--publish).
 *
 * Theory of operation
 *
 * A host lane is a fixed destination: the relay listens on the gateway at
 * the lane's port (the listener was made in the relay netns by init,
 * relaynet.c) and connects every connection accepted there to the lane's
 * endpoint from the runner's own netns, typically a service on the host's
 * loopback. The policy is not asked and the SSRF guard is skipped: the
 * user named this one address and port, and a loopback endpoint is what
 * the guard would refuse. Nothing else is exempt, because nothing else
 * reaches this path: the only way in is the gateway port of a host lane,
 * and the destination is the lane's, never anything the command says.
 * The same lane is also served on the worker's own 127.0.0.1:PORT (a
 * listener init made in the worker netns, relaynet.c), so a client
 * configured with http://127.0.0.1:PORT or localhost:PORT reaches it
 * unchanged; either listener leads to the lane's endpoint only.
 * host.jailrun.internal answers with the gateway (relay_dns.c). A lane is
 * a bare tunnel from its first byte, with no TLS name to check (the
 * command may send any, e.g. host.jailrun.internal); failures are resets.
 *
 * A published port runs the other way: the relay accepts on a listener
 * the runner bound on the host (publish.c), asks the socket factory in
 * the relay netns for a socket (one byte out, one socket back, FIFO),
 * connects it to the command's address on the veth and splices. A
 * connection waiting for its socket sits in ST_RESOLVE, so the sweep's
 * connect timeout covers a factory that never answers. Every connection
 * of either kind is one audit line, "via":"lane" or "via":"publish".
 */
#include <arpa/inet.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/epoll.h>
#include <sys/socket.h>
#include <unistd.h>

#include "clock.h"
#include "log.h"
#include "relay_loop.h"
#include "relay_tunnel.h"
#include "relay_upstream.h"

static int lane_add_fd(struct jr_relay *r, int fd, enum relay_ref_type t,
		       uint32_t slot)
{
	struct epoll_event ev = { .events = EPOLLIN,
				  .data.u64 = relay_ref(t, slot, 0) };

	return epoll_ctl(r->epfd, EPOLL_CTL_ADD, fd, &ev) < 0 ? -errno : 0;
}

/*
 * lanes_register - register the lane and publish listeners and the
 * factory, and note each host lane's endpoint for the audit.
 * Return: 0 or -errno.
 */
static int lanes_register(struct jr_relay *r)
{
	const struct jr_lanes *l = r->cfg.lanes;
	uint32_t h = 0;
	int e;

	if (!l)
		return 0;
	for (size_t i = 0; i < l->n_lane; i++) {
		const struct jr_lane *lane = &l->lane[i];
		const void *a;

		if (!lane->host)
			continue;
		a = lane->addr.ss_family == AF_INET
			? (const void *)&(
			      (const struct sockaddr_in *)&lane->addr)
			      ->sin_addr
			: (const void *)&(
			      (const struct sockaddr_in6 *)&lane->addr)
			      ->sin6_addr;
		if (!inet_ntop(lane->addr.ss_family, a, r->lane_host[h],
			       sizeof(r->lane_host[h])))
			return -EINVAL;
		r->lane_of[h] = lane;
		if (r->cfg.lane_listen[h] < 0 || r->cfg.lane_local[h] < 0)
			return -EBADF;
		e = lane_add_fd(r, r->cfg.lane_listen[h], REF_LISTEN_LANE, h);
		if (e == 0)
			e = lane_add_fd(r, r->cfg.lane_local[h],
					REF_LISTEN_LANE_LOCAL, h);
		if (e == 0 && r->cfg.lane_local6[h] >= 0)
			e = lane_add_fd(r, r->cfg.lane_local6[h],
					REF_LISTEN_LANE_LOCAL6, h);
		if (e < 0)
			return e;
		h++;
	}
	for (size_t i = 0; i < l->n_publish; i++) {
		if (r->cfg.publish_listen[i] < 0)
			return -EBADF;
		e = lane_add_fd(r, r->cfg.publish_listen[i], REF_LISTEN_PUBLISH,
				(uint32_t)i);
		if (e < 0)
			return e;
	}
	if (l->n_publish) {
		if (r->cfg.factory < 0)
			return -EBADF;
		e = lane_add_fd(r, r->cfg.factory, REF_FACTORY, 0);
		if (e < 0)
			return e;
	}
	return 0;
}

/* lane_start - lanes_register(), or @err saying what failed. */
static int lane_start(struct jr_relay *r, struct jr_err *err)
{
	int e = lanes_register(r);

	if (e < 0)
		return jr_err_set(err, -e,
				  "cannot set up the relay's lanes: %s",
				  strerror(-e));
	return 0;
}

/* Close every fd of the lanes (the relay owns them). */
static void lane_close(struct jr_relay *r)
{
	for (size_t i = 0; i < JR_LANE_MAX; i++) {
		relay_close_fd(&r->cfg.lane_listen[i]);
		relay_close_fd(&r->cfg.lane_local[i]);
		relay_close_fd(&r->cfg.lane_local6[i]);
	}
	for (size_t i = 0; i < JR_PUBLISH_MAX; i++)
		relay_close_fd(&r->cfg.publish_listen[i]);
	relay_close_fd(&r->cfg.factory);
}

/* Pause or resume accepting on the lanes' listeners (out of fds). */
static void lane_arm(struct jr_relay *r, bool on)
{
	const struct jr_lanes *l = r->cfg.lanes;
	struct epoll_event ev = { .events = on ? EPOLLIN : 0 };

	if (!l)
		return;
	for (uint32_t i = 0; i < l->n_host; i++) {
		ev.data.u64 = relay_ref(REF_LISTEN_LANE, i, 0);
		if (r->cfg.lane_listen[i] >= 0 &&
		    epoll_ctl(r->epfd, EPOLL_CTL_MOD, r->cfg.lane_listen[i],
			      &ev) < 0)
			jr_debug("relay: epoll_ctl: %s", strerror(errno));
		ev.data.u64 = relay_ref(REF_LISTEN_LANE_LOCAL, i, 0);
		if (r->cfg.lane_local[i] >= 0 &&
		    epoll_ctl(r->epfd, EPOLL_CTL_MOD, r->cfg.lane_local[i],
			      &ev) < 0)
			jr_debug("relay: epoll_ctl: %s", strerror(errno));
		ev.data.u64 = relay_ref(REF_LISTEN_LANE_LOCAL6, i, 0);
		if (r->cfg.lane_local6[i] >= 0 &&
		    epoll_ctl(r->epfd, EPOLL_CTL_MOD, r->cfg.lane_local6[i],
			      &ev) < 0)
			jr_debug("relay: epoll_ctl: %s", strerror(errno));
	}
	for (uint32_t i = 0; i < l->n_publish; i++) {
		ev.data.u64 = relay_ref(REF_LISTEN_PUBLISH, i, 0);
		if (r->cfg.publish_listen[i] >= 0 &&
		    epoll_ctl(r->epfd, EPOLL_CTL_MOD, r->cfg.publish_listen[i],
			      &ev) < 0)
			jr_debug("relay: epoll_ctl: %s", strerror(errno));
	}
}

/* Connect @c to the one address in c->res (the connect path's own). */
static void lane_connect(struct jr_relay *r, struct conn *c,
			 const struct sockaddr_storage *ss, socklen_t len)
{
	c->res = calloc(1, sizeof(*c->res));
	if (!c->res) {
		relay_out_of_memory(r, c);
		return;
	}
	c->res->addrs[0] = *ss;
	c->res->lens[0] = len;
	c->res->n = 1;
	c->next_addr = 0;
	c->allowed = true;
	c->deadline = jr_clock_ms() + r->cfg.connect_timeout_ms;
	relay_connect_next(r, c);
}

/*
 * lane_accepted - a connection came in on host lane @idx's gateway
 * listener (KIND_LANE) or on published port @idx's host listener
 * (KIND_PUBLISH).
 */
static void lane_accepted(struct jr_relay *r, struct conn *c, uint32_t idx)
{
	const struct jr_lanes *l = r->cfg.lanes;
	char one = 'S';

	c->lane = idx;
	if (c->kind == KIND_LANE) {
		const struct jr_lane *lane = r->lane_of[idx];

		c->host = r->lane_host[idx];
		c->port = lane->port;
		/* Exempt from the guard: the user named this endpoint. */
		lane_connect(r, c, &lane->addr, lane->addr_len);
		return;
	}
	/* KIND_PUBLISH: the destination is the command, on the veth. */
	c->host = "worker";
	c->port = l->publish[idx].port;
	c->allowed = true;
	c->deadline = jr_clock_ms() + r->cfg.connect_timeout_ms;
	if (send(r->cfg.factory, &one, 1, MSG_DONTWAIT | MSG_NOSIGNAL) != 1) {
		relay_reply(r, c, 503, NULL, "publish-factory-failed", true,
			    "jailrun: no socket for the published port");
		return;
	}
	r->factory_pending++;
	c->st = ST_RESOLVE;
	relay_want_events(r, c);
}

/* The oldest published connection waiting for a socket, or NULL. */
static struct conn *oldest_waiting(struct jr_relay *r)
{
	struct conn *best = NULL;

	for (uint32_t i = 0; i < r->n_fresh; i++) {
		struct conn *c = &r->conns[i];

		if (c->st == ST_RESOLVE && c->kind == KIND_PUBLISH &&
		    (!best || c->id < best->id))
			best = c;
	}
	return best;
}

/*
 * factory_readable - the factory sent sockets (or errors): each goes
 * to the oldest connection waiting, which connects it to the command.
 * Sockets for connections that ended meanwhile are closed.
 */
static void factory_readable(struct jr_relay *r)
{
	for (int i = 0; i < RELAY_ACCEPT_BATCH; i++) {
		char status = 0;
		struct iovec iov = { .iov_base = &status, .iov_len = 1 };
		union {
			char buf[CMSG_SPACE(sizeof(int)) +
				 CMSG_SPACE(sizeof(struct ucred))];
			struct cmsghdr align;
		} u;
		struct msghdr mh = {
			.msg_iov = &iov,
			.msg_iovlen = 1,
			.msg_control = u.buf,
			.msg_controllen = sizeof(u.buf),
		};
		struct sockaddr_in sin = { .sin_family = AF_INET };
		struct cmsghdr *cm;
		struct conn *c;
		ssize_t n;
		int fd = -1;

		n = recvmsg(r->cfg.factory, &mh,
			    MSG_DONTWAIT | MSG_CMSG_CLOEXEC);
		if (n < 0 && (errno == EAGAIN || errno == EINTR))
			return;
		if (n <= 0) {
			/* The factory is gone: no more published
			 * connections; the waiting ones time out. */
			jr_debug("relay: the --publish socket factory ended");
			epoll_ctl(r->epfd, EPOLL_CTL_DEL, r->cfg.factory, NULL);
			relay_close_fd(&r->cfg.factory);
			return;
		}
		for (cm = CMSG_FIRSTHDR(&mh); cm; cm = CMSG_NXTHDR(&mh, cm))
			if (cm->cmsg_level == SOL_SOCKET &&
			    cm->cmsg_type == SCM_RIGHTS &&
			    cm->cmsg_len >= CMSG_LEN(sizeof(int)))
				memcpy(&fd, CMSG_DATA(cm), sizeof(int));
		if (r->factory_pending)
			r->factory_pending--;
		c = oldest_waiting(r);
		if (!c) {
			if (fd >= 0)
				close(fd);
			continue;
		}
		if (fd < 0) {
			relay_reply(
			    r, c, 503, NULL, "publish-factory-failed", true,
			    "jailrun: no socket for the published port");
			continue;
		}
		sin.sin_addr = r->cfg.worker;
		sin.sin_port = htons(c->port);
		inet_ntop(AF_INET, &sin.sin_addr, c->addr, sizeof(c->addr));
		/* The factory's socket is the one relay_connect_next() would
		 * have made, but of the relay netns: connect it here. */
		if (connect(fd, (struct sockaddr *)&sin, sizeof(sin)) < 0 &&
		    errno != EINPROGRESS) {
			c->last_errno = errno;
			close(fd);
			relay_reply(r, c, 502, NULL, "upstream-refused", true,
				    "jailrun: the published port refused");
			continue;
		}
		c->res = calloc(1, sizeof(*c->res)); /* none left to try */
		if (!c->res) {
			close(fd);
			relay_out_of_memory(r, c);
			continue;
		}
		relay_connect_wait(r, c, fd);
	}
}

/*
 * lane_connected - the lane's endpoint (or the command's published
 * port) accepted: a bare tunnel both ways from the first byte, nothing to
 * check in it.
 */
static void lane_connected(struct jr_relay *r, struct conn *c)
{
	relay_tunnel_start(c, true);
	c->sni_pending = false;
	relay_tunnel_run(r, c);
}

/* REF_FACTORY: the publish socket factory answered. */
static void lane_event(struct jr_relay *r, union relay_ref ref, uint32_t events)
{
	(void)ref;
	(void)events;
	factory_readable(r);
}

/* Host lanes (a fixed endpoint, connected at once) and published ports
 * (a socket from the factory): both then a bare tunnel. */
const struct relay_ops relay_lane_ops = {
	.accepted = lane_accepted,
	.refuse = relay_refuse_reset,
	.connect_done = relay_connect_done,
	.connect_timeout = relay_connect_timeout,
	.connected = lane_connected,
	.pump = relay_pump,
	.upstream_error = relay_upstream_error,
	.release = relay_tunnel_release,
};

/* The lanes' listeners and the factory, outside any connection. */
const struct relay_module relay_lane_module = {
	.start = lane_start,
	.stop = lane_close,
	.event = lane_event,
	.arm = lane_arm,
};
