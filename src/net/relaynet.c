// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * relaynet.c - building the relay network namespace (see relaynet.h).
 *
 * Theory of operation: init opens a route netlink socket in the worker
 * netns, unshares a new network namespace (owned by the sandbox's user
 * namespace, so no privilege on the host is involved), turns forwarding
 * off, creates the veth pair with its peer placed straight into the
 * worker netns, configures both ends (link.c: per netns one socket and
 * one batch of requests, then one read-back dump per kind: lo, the relay
 * end's addresses and up from the relay's socket; eth0's addresses, up
 * and default routes from the worker's, without going back there first),
 * opens the relay's listening sockets on the gateway address, and returns
 * to the worker netns with setns(2) (init holds CAP_SYS_ADMIN over both).
 * Every socket stays in the netns it was created in, so the listeners are
 * the relay's, and init passes them on to the runner with the rest.
 *
 * This used to be a forked child that sent the sockets back over a
 * socketpair. A fork copies init's page tables and every page either side
 * writes afterwards takes a copy-on-write fault with a TLB flush, and the
 * child had to be scheduled, exit and be reaped: on a busy VM (where
 * faults and wake-ups are dear) a few milliseconds of start-up for
 * nothing the setns cannot do.
 *
 * Transparent capture (--transparent on) adds a fourth listener, G:3129,
 * and a NETLINK_NETFILTER socket made here, in the relay netns, which the
 * runner uses to install and verify the table that redirects captured TCP
 * to that listener (ruleset.c, JR_RULESET_RELAY), and a second one on
 * which the watchdog hears of every change to that netns's nf_tables
 * (watchdog.c), as it does for the worker's. The kernel needs
 * nothing else from this netns to accept those packets: the redirect
 * (prerouting, before the route lookup) rewrites the destination to G,
 * an address of the receiving interface, so the packet is local and no
 * forwarding, route_localnet (only for 127/8) or AnyIP route is needed;
 * rp_filter, when the host's default turns it on here, checks the
 * source, G+1, which the /30 route leads back to through the same veth.
 *
 * IPv6 (with transparent capture, when the kernel has it): jr-relay also
 * gets JR_LINK6_RELAY/64 (no DAD: both ends are ours) and a second,
 * IPv6-only transparent listener. The redirect of an IPv6 connection
 * makes the destination an address of the receiving interface: since
 * Linux 6.6 the first usable one of the destination's scope, the ULA;
 * before, simply the first in the list, which can be the link-local one.
 * So that listener is bound to [::]:3129, not to the ULA: it takes the
 * redirected connection whichever address the kernel chose, and nothing
 * else can reach it (the worker's rules let no IPv6 out but to the pool,
 * and nothing else lives in this netns). The
 * relay netns keeps no IPv6 route but the link's /64, and IPv6
 * forwarding is switched off and read back as IPv4's is. The DNS stays
 * on IPv4 only (see init.c).
 *
 * Forwarding: a new netns copies the IPv4 forwarding setting of the
 * host's initial netns (net.core.devconf_inherit_init_net=0 semantics), so
 * on a router or Docker host it would start enabled. It is switched off and
 * read back. It would not matter for reachability (the relay netns has no
 * route off its /30), but the brief says it stays off, and two walls are
 * better than one.
 */
#include <arpa/inet.h>
#include <errno.h>
#include <fcntl.h>
#include <sched.h>
#include <stdio.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>
#include <netinet/in.h>
#include <linux/netlink.h>

#include "cleanup.h"
#include "link.h"
#include "publish.h"
#include "relaynet.h"

/*
 * write_sysctl - make @path read @value: read it first and write only if
 * it differs (a fresh netns mostly has the value already, and the read is
 * the proof either way), then read it back after a write.
 */
static int write_sysctl(const char *path, const char *value, struct jr_err *err)
{
	_cleanup_close_ int fd = open(path, O_RDWR | O_CLOEXEC);
	char back[16] = { 0 };
	size_t len = strlen(value);

	if (fd < 0)
		return jr_err_set(err, errno, "cannot open %s: %s", path,
				  strerror(errno));
	if (pread(fd, back, sizeof(back) - 1, 0) > (ssize_t)len &&
	    strncmp(back, value, len) == 0 && back[len] == '\n')
		return 0;
	if (write(fd, value, len) != (ssize_t)len)
		return jr_err_set(err, errno ? errno : EIO, "cannot write %s",
				  path);
	memset(back, 0, sizeof(back));
	if (pread(fd, back, sizeof(back) - 1, 0) <= 0 ||
	    strncmp(back, value, len) != 0)
		return jr_err_set(err, EIO, "%s did not read back as %s", path,
				  value);
	return 0;
}

static int listen_on(int type, struct in_addr addr, uint16_t port,
		     struct jr_err *err)
{
	_cleanup_close_ int fd = -1;
	struct sockaddr_in sin = {
		.sin_family = AF_INET,
		.sin_addr = addr,
		.sin_port = htons(port),
	};
	int one = 1;

	fd = socket(AF_INET, type | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
	if (fd < 0)
		return jr_err_set(err, errno, "socket: %s", strerror(errno));
	if (setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof(one)) < 0 ||
	    bind(fd, (struct sockaddr *)&sin, sizeof(sin)) < 0)
		return jr_err_set(
		    err, errno, "cannot bind the relay's %s port %u: %s",
		    type == SOCK_STREAM ? "TCP" : "UDP", port, strerror(errno));
	if (type == SOCK_STREAM && listen(fd, SOMAXCONN) < 0)
		return jr_err_set(err, errno, "listen: %s", strerror(errno));
	return steal_fd(&fd);
}

/* A TCP listener on [@addr]:@port, IPv6 only: the transparent one on
 * [::] (see the top of the file for why not the ULA) and a host lane's on
 * [::1] take no IPv4 connection; their IPv4 twins are sockets of their
 * own. */
static int listen_tcp6(const struct in6_addr *addr, uint16_t port,
		       struct jr_err *err)
{
	_cleanup_close_ int fd = -1;
	struct sockaddr_in6 sin6 = {
		.sin6_family = AF_INET6,
		.sin6_addr = *addr,
		.sin6_port = htons(port),
	};
	int one = 1;

	fd = socket(AF_INET6, SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
	if (fd < 0)
		return jr_err_set(err, errno, "socket: %s", strerror(errno));
	if (setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof(one)) < 0 ||
	    setsockopt(fd, IPPROTO_IPV6, IPV6_V6ONLY, &one, sizeof(one)) < 0 ||
	    bind(fd, (struct sockaddr *)&sin6, sizeof(sin6)) < 0 ||
	    listen(fd, SOMAXCONN) < 0)
		return jr_err_set(err, errno,
				  "cannot listen on TCP port %u: %s", port,
				  strerror(errno));
	return steal_fd(&fd);
}

JR_DEFINE_CLEANUP(struct nl_sock, jr_link_close)

/* The work in the new netns (init is in it while this runs). @wsk: a
 * route netlink socket of the worker netns, for eth0. */
static int build(int worker_netns_fd, struct nl_sock *wsk,
		 const struct jr_gateway *gw, bool transparent, bool ipv6,
		 struct jr_relay_listeners *l, int nft[2],
		 const struct jr_lanes *lanes, int *lane_fds, size_t n_lane_fds,
		 struct jr_err *err)
{
	_cleanup_(jr_link_closep) struct nl_sock *sk = NULL;
	struct in6_addr relay6, worker6;
	struct jr_link_plan relay = {
		.ifname = JR_RELAY_IFNAME,
		.created_up = true,
		.lo_too = true,
		.addr = gw->relay,
		.prefix = gw->prefix,
		.addr6 = ipv6 ? &relay6 : NULL,
		.prefix6 = JR_LINK6_PREFIX,
	};
	/* The worker's eth0: G+1, the default route via G; with IPv6
	 * JR_LINK6_WORKER/64 and the IPv6 default route to the relay's end.
	 * Only the synthetic pool's TCP (and UDP, to be refused there) may
	 * use IPv6 (ruleset.c). */
	struct jr_link_plan worker = {
		.ifname = JR_WORKER_IFNAME,
		.addr = gw->worker,
		.prefix = gw->prefix,
		.gw = &gw->relay,
		.addr6 = ipv6 ? &worker6 : NULL,
		.prefix6 = JR_LINK6_PREFIX,
		.gw6 = &relay6,
	};
	size_t k = 0;
	int r;

	if (inet_pton(AF_INET6, JR_LINK6_RELAY, &relay6) != 1 ||
	    inet_pton(AF_INET6, JR_LINK6_WORKER, &worker6) != 1)
		return jr_err_set(err, EINVAL, "bad JR_LINK6_* addresses");
	if (unshare(CLONE_NEWNET) < 0)
		return jr_err_set(
		    err, errno, "cannot create the relay network namespace: %s",
		    strerror(errno));
	r = jr_link_open(&sk, err);
	if (r < 0)
		return r;
	r = write_sysctl("/proc/sys/net/ipv4/ip_forward", "0", err);
	if (r == 0)
		r = write_sysctl("/proc/sys/net/ipv4/conf/all/forwarding", "0",
				 err);
	if (r < 0)
		return jr_err_prefix(
		    err, "cannot turn forwarding off in the relay namespace: ");
	if (ipv6) {
		r = write_sysctl("/proc/sys/net/ipv6/conf/all/forwarding", "0",
				 err);
		if (r < 0)
			return jr_err_prefix(
			    err,
			    "cannot turn IPv6 forwarding off in the relay namespace: ");
	}
	/* Both ends of the link, each configured in one batch and read
	 * back (link.c); eth0 through @wsk, from here. */
	r = jr_link_create_veth(sk, JR_RELAY_IFNAME, JR_WORKER_IFNAME,
				worker_netns_fd, err);
	if (r == 0)
		r = jr_link_setup(sk, &relay, err);
	if (r == 0)
		r = jr_link_setup(wsk, &worker, err);
	if (r < 0)
		return r;
	l->proxy = listen_on(SOCK_STREAM, gw->relay, JR_PROXY_PORT, err);
	if (l->proxy < 0)
		return l->proxy;
	l->dns_udp = listen_on(SOCK_DGRAM, gw->relay, JR_DNS_PORT, err);
	if (l->dns_udp < 0)
		return l->dns_udp;
	l->dns_tcp = listen_on(SOCK_STREAM, gw->relay, JR_DNS_PORT, err);
	if (l->dns_tcp < 0)
		return l->dns_tcp;
	/* The model lane: one listener on the gateway per host lane; and
	 * the socket factory that makes the relay's connections to the
	 * command's published ports, here in the relay netns (publish.h). */
	for (size_t i = 0; lanes && i < lanes->n_lane; i++) {
		if (!lanes->lane[i].host)
			continue;
		lane_fds[k] =
		    listen_on(SOCK_STREAM, gw->relay, lanes->lane[i].port, err);
		if (lane_fds[k] < 0)
			return jr_err_prefix(
			    err, "--lane %s: ", lanes->lane[i].text);
		k++;
	}
	if (lanes && lanes->n_publish) {
		/* the last, after the loopback listeners (loopback_lanes()) */
		r = jr_publish_factory_start(&lane_fds[n_lane_fds - 1], err);
		if (r < 0)
			return r;
	}
	if (!transparent)
		return 0;
	l->transparent =
	    listen_on(SOCK_STREAM, gw->relay, JR_TRANSPARENT_PORT, err);
	if (l->transparent < 0)
		return l->transparent;
	if (ipv6) {
		l->transparent6 =
		    listen_tcp6(&in6addr_any, JR_TRANSPARENT_PORT, err);
		if (l->transparent6 < 0)
			return jr_err_prefix(
			    err,
			    "cannot open the relay's IPv6 transparent port: ");
	}
	/* The table's owner, and the watchdog's notifications of it. */
	for (int i = 0; i < 2; i++) {
		nft[i] = socket(AF_NETLINK, SOCK_RAW | SOCK_CLOEXEC,
				NETLINK_NETFILTER);
		if (nft[i] < 0)
			return jr_err_set(
			    err, errno,
			    "cannot open a netfilter netlink socket in the relay namespace: %s (is nf_tables available? try: sudo modprobe nf_tables)",
			    strerror(errno));
	}
	return 0;
}

/*
 * The host lanes on the worker's own loopback: a listener on 127.0.0.1 at
 * each host lane's port, and with @ipv6 one on [::1], made here in the
 * worker netns (a socket keeps the netns it was made in), that the relay
 * accepts on like the gateway listener, so a config that says
 * http://127.0.0.1:PORT or localhost:PORT works unchanged, whichever
 * address a client takes for localhost first (glibc sorts ::1 first when
 * /etc/hosts names both, and a client that tries only the first would be
 * refused). Loopback is accepted by the worker's rules, so no rule
 * changes; the destination is still only the lane's. Into @fds: one per
 * host lane in --lane order, then (@ipv6) the [::1] ones in that order.
 */
static int loopback_lanes(const struct jr_lanes *lanes, bool ipv6, int *fds,
			  struct jr_err *err)
{
	struct in_addr lo = { .s_addr = htonl(INADDR_LOOPBACK) };
	size_t k = 0;

	for (size_t i = 0; i < lanes->n_lane; i++) {
		const struct jr_lane *lane = &lanes->lane[i];

		if (!lane->host)
			continue;
		fds[k] = listen_on(SOCK_STREAM, lo, lane->port, err);
		if (fds[k] < 0)
			return jr_err_prefix(
			    err, "--lane %s: on the sandbox's 127.0.0.1:%u: ",
			    lane->text, lane->port);
		if (ipv6) {
			fds[lanes->n_host + k] =
			    listen_tcp6(&in6addr_loopback, lane->port, err);
			if (fds[lanes->n_host + k] < 0)
				return jr_err_prefix(
				    err,
				    "--lane %s: on the sandbox's [::1]:%u (the host has IPv6, so the sandbox's loopback should too): ",
				    lane->text, lane->port);
		}
		k++;
	}
	return 0;
}

int jr_relaynet_create(int worker_netns_fd, const struct jr_gateway *gw,
		       bool transparent, bool ipv6,
		       struct jr_relay_listeners *out, int nft_out[2],
		       const struct jr_lanes *lanes, bool lane_ipv6,
		       int *lane_fds, struct jr_err *err)
{
	size_t n_lane_fds = lanes ? jr_lanes_nfds(lanes, lane_ipv6) : 0;

	_cleanup_(jr_link_closep) struct nl_sock *wsk = NULL;
	struct jr_relay_listeners l = { .proxy = -1,
					.dns_udp = -1,
					.dns_tcp = -1,
					.transparent = -1,
					.transparent6 = -1 };
	int nft[2] = { -1, -1 };
	int r;

	for (size_t i = 0; i < n_lane_fds; i++)
		lane_fds[i] = -1;
	/* Made before the unshare, so it is the worker netns's; and so are
	 * the lanes' loopback listeners. */
	r = jr_link_open(&wsk, err);
	if (r == 0 && lanes)
		r = loopback_lanes(lanes, lane_ipv6, &lane_fds[lanes->n_host],
				   err);
	if (r == 0)
		r = build(worker_netns_fd, wsk, gw, transparent,
			  transparent && ipv6, &l, nft, lanes, lane_fds,
			  n_lane_fds, err);
	/* Back to the worker netns whatever happened (if the unshare itself
	 * failed, we never left it and this is a no-op). Init must not stay
	 * in the relay netns: the command would start there. */
	if (setns(worker_netns_fd, CLONE_NEWNET) < 0) {
		int e = errno;

		r = jr_err_set(
		    err, e, "cannot return to the worker network namespace: %s",
		    strerror(e));
	}
	if (r < 0) {
		if (l.proxy >= 0)
			close(l.proxy);
		if (l.dns_udp >= 0)
			close(l.dns_udp);
		if (l.dns_tcp >= 0)
			close(l.dns_tcp);
		if (l.transparent >= 0)
			close(l.transparent);
		if (l.transparent6 >= 0)
			close(l.transparent6);
		for (int i = 0; i < 2; i++)
			if (nft[i] >= 0)
				close(nft[i]);
		for (size_t i = 0; i < n_lane_fds; i++)
			if (lane_fds[i] >= 0)
				close(lane_fds[i]);
		return r;
	}
	*out = l;
	nft_out[0] = nft[0];
	nft_out[1] = nft[1];
	return 0;
}
