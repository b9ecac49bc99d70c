// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * localaddr.c - is an address this host's own? (see localaddr.h)
 *
 * Theory of operation
 *
 * policy.c refuses fixed special ranges (loopback, link-local, private,
 * metadata, ...). The runner host's own addresses are not a fixed range:
 * a public address on eth0, a VPN address, an address added a minute ago.
 * A service bound to 0.0.0.0 answers on every one of them, so a name that
 * an agent may reach and that resolves to one of them leads back into the
 * host. The question the guard needs answered is not "is this one of the
 * addresses I saw at start-up" but "would this connect land on this host",
 * and the kernel answers exactly that: RTM_GETROUTE for the destination,
 * as `ip route get` does, returns the route type the connect would use.
 * RTN_LOCAL (an address of this netns, or any address of a `local` route
 * such as 127.0.0.0/8 or an AnyIP prefix), RTN_BROADCAST, RTN_MULTICAST
 * and RTN_ANYCAST all deliver on this host; RTN_UNICAST leaves it.
 *
 * Why per connect rather than an address cache kept current from
 * RTNLGRP_IPV4_IFADDR/RTNLGRP_IPV6_IFADDR: the route lookup is current by
 * construction (no window between an address appearing and a notification
 * being read, no lost notifications on ENOBUFS to recover from), it sees
 * `local` routes that are not interface addresses, and it needs no thread
 * or state. Its cost is one netlink round trip on the relay thread, a
 * few microseconds (docs/architecture.md has the figure): the kernel
 * handles an rtnetlink request synchronously inside sendmsg(2), so the
 * answer is queued before the send returns and the receive never waits;
 * IPv4 and IPv6 RTM_GETROUTE do not take the RTNL lock. The receive is
 * MSG_DONTWAIT all the same: an answer that is not there is a failure,
 * never a stall of the relay.
 *
 * The route is asked in the netns the socket was opened in, which must be
 * the one the relay's upstream sockets live in (the runner's), with no
 * mark, source or interface, as the relay's connect(2) has none either.
 *
 * A "no route" answer (ENETUNREACH, EHOSTUNREACH, EACCES for prohibit) is
 * an answer: the connect cannot land anywhere, and it fails with the same
 * error. Anything else going wrong (socket errors, a truncated, foreign or
 * malformed reply, an unexpected error code such as EINVAL, which is also
 * what a blackhole route answers) is returned as -errno and the caller
 * refuses the address: fail closed.
 */
#include <errno.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <netinet/in.h>
#include <sys/socket.h>

#include <libmnl/libmnl.h>
#include <linux/rtnetlink.h>

#include "cleanup.h"
#include "localaddr.h"

/* A route reply is a few hundred bytes; this holds any single message. */
#define LOCALADDR_BUF 8192

struct jr_localaddr {
	struct mnl_socket *nl;
	unsigned int portid;
	uint32_t seq;
	char buf[LOCALADDR_BUF];
};

JR_DEFINE_CLEANUP(struct mnl_socket, mnl_socket_close)

int jr_localaddr_open(struct jr_localaddr **out, struct jr_err *err)
{
	_cleanup_(mnl_socket_closep) struct mnl_socket *nl = NULL;
	struct jr_localaddr *la;
	int e;

	nl = mnl_socket_open2(NETLINK_ROUTE, SOCK_CLOEXEC);
	if (!nl) {
		e = errno;
		return jr_err_set(
		    err, e,
		    "cannot open a NETLINK_ROUTE socket to check upstream addresses against this host's own: %s",
		    strerror(e));
	}
	if (mnl_socket_bind(nl, 0, MNL_SOCKET_AUTOPID) < 0) {
		e = errno;
		return jr_err_set(err, e,
				  "cannot bind the NETLINK_ROUTE socket: %s",
				  strerror(e));
	}
	la = calloc(1, sizeof(*la));
	if (!la)
		return jr_err_set(err, ENOMEM, "out of memory");
	la->portid = mnl_socket_get_portid(nl);
	la->nl = steal_pointer(&nl);
	*out = la;
	return 0;
}

void jr_localaddr_close(struct jr_localaddr *la)
{
	if (!la)
		return;
	mnl_socket_close(la->nl);
	free(la);
}

/* The kernel's "there is no route" answers: connect(2) fails likewise. */
static bool localaddr_no_route(int e)
{
	return e == ENETUNREACH || e == EHOSTUNREACH || e == EACCES;
}

/*
 * localaddr_route_type() - one RTM_GETROUTE round trip.
 * @family: AF_INET or AF_INET6; @addr: 4 or 16 bytes, network order
 * Return: the route type (RTN_*), RTN_UNREACHABLE for a no-route answer,
 * or -errno.
 */
static int localaddr_route_type(struct jr_localaddr *la, int family,
				const void *addr)
{
	size_t alen = family == AF_INET ? 4 : 16;
	int fd = mnl_socket_get_fd(la->nl);
	struct nlmsghdr *nlh;
	struct rtmsg *rtm;
	uint32_t seq;

	nlh = mnl_nlmsg_put_header(la->buf);
	nlh->nlmsg_type = RTM_GETROUTE;
	nlh->nlmsg_flags = NLM_F_REQUEST;
	seq = ++la->seq;
	nlh->nlmsg_seq = seq;
	rtm = mnl_nlmsg_put_extra_header(nlh, sizeof(*rtm));
	rtm->rtm_family = (unsigned char)family;
	rtm->rtm_dst_len = (unsigned char)(alen * 8);
	mnl_attr_put(nlh, RTA_DST, alen, addr);
	if (mnl_socket_sendto(la->nl, nlh, nlh->nlmsg_len) < 0)
		return -errno;

	/*
	 * The answer is queued before sendto() returns (see the top).
	 * Messages with another sequence number are left over from a round
	 * trip that failed half-way: skip them.
	 */
	for (;;) {
		ssize_t n = recv(fd, la->buf, sizeof(la->buf), MSG_DONTWAIT);

		if (n < 0)
			return errno == EAGAIN || errno == EWOULDBLOCK
				   ? -ETIMEDOUT
				   : -errno;
		nlh = (struct nlmsghdr *)la->buf;
		for (int left = (int)n; mnl_nlmsg_ok(nlh, left);
		     nlh = mnl_nlmsg_next(nlh, &left)) {
			if (nlh->nlmsg_seq != seq ||
			    (nlh->nlmsg_pid && nlh->nlmsg_pid != la->portid))
				continue;
			if (nlh->nlmsg_type == NLMSG_ERROR) {
				const struct nlmsgerr *ne =
				    mnl_nlmsg_get_payload(nlh);

				if (nlh->nlmsg_len <
				    mnl_nlmsg_size(sizeof(*ne)))
					return -EBADMSG;
				if (ne->error == 0)
					return -EBADMSG; /* an ACK, no route */
				if (localaddr_no_route(-ne->error))
					return RTN_UNREACHABLE;
				return ne->error < 0 ? ne->error : -EBADMSG;
			}
			if (nlh->nlmsg_type != RTM_NEWROUTE ||
			    nlh->nlmsg_len < mnl_nlmsg_size(sizeof(*rtm)))
				return -EBADMSG;
			rtm = mnl_nlmsg_get_payload(nlh);
			if (rtm->rtm_family != family)
				return -EBADMSG;
			return rtm->rtm_type;
		}
	}
}

/* Does a route of @type deliver on this host? */
static bool localaddr_type_is_local(int type)
{
	return type == RTN_LOCAL || type == RTN_BROADCAST ||
	       type == RTN_MULTICAST || type == RTN_ANYCAST;
}

/* Ask for one address; 1 local, 0 not, -errno. */
static int localaddr_ask(struct jr_localaddr *la, int family, const void *addr)
{
	int type = localaddr_route_type(la, family, addr);

	if (type < 0)
		return type;
	return localaddr_type_is_local(type) ? 1 : 0;
}

int jr_localaddr_is_local(struct jr_localaddr *la, const struct sockaddr *sa)
{
	static const uint8_t mapped[12] = { [10] = 0xff, [11] = 0xff };
	static const uint8_t compat[12] = { 0 };
	static const uint8_t nat64[12] = { 0x00, 0x64, 0xff, 0x9b };
	const char *raw = (const char *)sa;
	uint8_t a6[16], a4[4];
	sa_family_t family;
	int r6;

	if (!la || !sa)
		return -EINVAL;
	/* Byte copies: @sa may sit at any alignment, like policy.c's. */
	memcpy(&family, raw + offsetof(struct sockaddr, sa_family),
	       sizeof(family));
	if (family == AF_INET) {
		memcpy(a4, raw + offsetof(struct sockaddr_in, sin_addr), 4);
		return localaddr_ask(la, AF_INET, a4);
	}
	if (family != AF_INET6)
		return -EAFNOSUPPORT;
	memcpy(a6, raw + offsetof(struct sockaddr_in6, sin6_addr), 16);
	memcpy(a4, a6 + 12, 4);
	if (memcmp(a6, mapped, 12) == 0)
		return localaddr_ask(la, AF_INET, a4);
	r6 = localaddr_ask(la, AF_INET6, a6);
	if (r6 != 0)
		return r6;
	/* ::a.b.c.d (but not :: and ::1) and 64:ff9b::a.b.c.d carry an
	 * IPv4 address that a translator or a stack could deliver to. */
	if ((memcmp(a6, compat, 12) == 0 &&
	     (a4[0] | a4[1] | a4[2] | (a4[3] & 0xfe)) != 0) ||
	    memcmp(a6, nat64, 12) == 0)
		return localaddr_ask(la, AF_INET, a4);
	/* 2002:a.b.c.d::/48 (6to4, RFC 3056 2) is sent, encapsulated, to
	 * the IPv4 end point it carries in bits 16-47: if that is this
	 * host, the packet is delivered here. */
	if (a6[0] == 0x20 && a6[1] == 0x02) {
		memcpy(a4, a6 + 2, 4);
		return localaddr_ask(la, AF_INET, a4);
	}
	return 0;
}
