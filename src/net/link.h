/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * link.h - network links of the sandbox (libnl-3 route).
 */
#ifndef JR_LINK_H
#define JR_LINK_H

#include <netinet/in.h>
#include <stdbool.h>

#include "err.h"

/*
 * The loopback device is the first device registered in every network
 * namespace (net_dev_init() registers loopback_net_ops before any other
 * pernet device operations) and the kernel insists that it gets index 1:
 * include/net/net_namespace.h defines LOOPBACK_IFINDEX 1 and
 * loopback_net_init() BUG()s otherwise. lo can be neither deleted nor moved
 * to another namespace (NETIF_F_NETNS_LOCAL), and indexes are unique within
 * a namespace, so in the worker namespace index 1 is lo for its lifetime.
 * The nft rules match loopback by this index (ruleset.c).
 */
#define JR_LOOPBACK_IFINDEX 1

/*
 * jr_link_lo_up - bring up "lo" in the current network namespace, read it
 * back, and check it is up and has ifindex JR_LOOPBACK_IFINDEX.
 * Return: 0 or -errno with @err set.
 */
int jr_link_lo_up(struct jr_err *err);

struct nl_sock;

/*
 * jr_link_open - a route netlink socket of the current netns, for every
 * request jr_link_create_veth() and jr_link_setup() make there (a socket
 * stays in the netns it was made in, whatever netns its user moves to).
 * Free it with jr_link_close().
 * Return: 0 or -errno with @err set.
 */
int jr_link_open(struct nl_sock **out, struct jr_err *err);

/* jr_link_close - free a socket of jr_link_open(). */
void jr_link_close(struct nl_sock *sk);

/*
 * jr_link_create_veth - create a veth pair: @name in @sk's netns, its
 * peer @peer_name in the netns of @peer_netns_fd (an open
 * /proc/.../ns/net). The pair exists only while both namespaces do: when
 * either goes away the kernel deletes both ends. jr_link_setup() on @name
 * reads back that it appeared. @name is created up, the peer down.
 * Return: 0 or -errno with @err set.
 */
int jr_link_create_veth(struct nl_sock *sk, const char *name,
			const char *peer_name, int peer_netns_fd,
			struct jr_err *err);

/*
 * struct jr_link_plan - what jr_link_setup() gives one link.
 * @ifname: the link (in the socket's netns)
 * @created_up: it was created up (jr_link_create_veth()): no request to
 *       bring it up, only the read-back that it is
 * @lo_too: also bring lo up (and read back that it is index 1)
 * @addr, @prefix: its IPv4 address
 * @gw: the IPv4 default route's gateway, or NULL for no default route
 * @addr6, @prefix6: its IPv6 address (no DAD), or NULL for none
 * @gw6: with @addr6, the IPv6 default route's gateway (on @addr6's
 *       prefix), or NULL
 */
struct jr_link_plan {
	const char *ifname;
	bool created_up;
	bool lo_too;
	struct in_addr addr;
	unsigned int prefix;
	const struct in_addr *gw;
	const struct in6_addr *addr6;
	unsigned int prefix6;
	const struct in6_addr *gw6;
};

/*
 * jr_link_setup - configure @p->ifname in @sk's netns as @p says, in one
 * batch of requests (one send, every ack read), then read back, with one
 * dump of links, addresses and (with a route) routes: the links up, the
 * addresses present and usable (not tentative), the default routes there
 * with their gateways. Any failure names the step, as each request on
 * its own did.
 * Return: 0 or -errno with @err set.
 */
int jr_link_setup(struct nl_sock *sk, const struct jr_link_plan *p,
		  struct jr_err *err);

/*
 * Where jr_link_ipv6_available() looks. A new network namespace takes
 * its IPv6 defaults from this file's namespace or from the kernel's
 * defaults (net.core.devconf_inherit_init_net), so disable_ipv6=0 here
 * means a fresh netns of the sandbox has IPv6 too; the file is missing
 * when the kernel has no IPv6 at all (ipv6.disable=1, or not built).
 */
#define JR_LINK_IPV6_SYSCTL "/proc/sys/net/ipv6/conf/default/disable_ipv6"

/*
 * jr_link_ipv6_available - does the kernel give new network namespaces
 * IPv6 (JR_LINK_IPV6_SYSCTL reads 0)?
 */
bool jr_link_ipv6_available(void);

#endif
