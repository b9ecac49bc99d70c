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

/*
 * jr_link_create_veth - create a veth pair: @name in the current netns,
 * its peer @peer_name in the netns of @peer_netns_fd (an open
 * /proc/.../ns/net). The pair exists only while both namespaces do: when
 * either goes away the kernel deletes both ends.
 * Return: 0 or -errno with @err set.
 */
int jr_link_create_veth(const char *name, const char *peer_name,
			int peer_netns_fd, struct jr_err *err);

/*
 * jr_link_configure - give @ifname (current netns) the IPv4 address
 * @addr/@prefix, bring it up, and read both back.
 * Return: 0 or -errno with @err set.
 */
int jr_link_configure(const char *ifname, struct in_addr addr,
		      unsigned int prefix, struct jr_err *err);

/*
 * jr_link_default_route - add the IPv4 default route via @gw (current
 * netns) and read it back.
 * Return: 0 or -errno with @err set.
 */
int jr_link_default_route(struct in_addr gw, struct jr_err *err);

/*
 * jr_link_default_route6 - the IPv6 default route via @gw (current
 * netns), read back. @gw must be on a prefix of a link (an address added
 * with jr_link_add_addr6() brings its prefix route).
 * Return: 0 or -errno with @err set.
 */
int jr_link_default_route6(const struct in6_addr *gw, struct jr_err *err);

/*
 * jr_link_add_addr6 - give @ifname (current netns, already up) the IPv6
 * address @addr/@prefix without duplicate address detection
 * (IFA_F_NODAD), and read it back, usable (not tentative).
 * Return: 0 or -errno with @err set.
 */
int jr_link_add_addr6(const char *ifname, const struct in6_addr *addr,
		      unsigned int prefix, struct jr_err *err);

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
