// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * link.c - links of the worker network namespace, through libnl-3 route.
 *
 * Theory of operation: a new netns holds only "lo", down. It is brought up
 * by an RTM_NEWLINK change and then read back: jailrun never assumes a
 * kernel request did what it asked. The read-back also checks the ifindex
 * the nftables rules match on ("iif/oif lo" compile to ifindex 1).
 */

#include <errno.h>
#include <fcntl.h>
#include <net/if.h>
#include <netlink/errno.h>
#include <netlink/netlink.h>
#include <netlink/route/addr.h>
#include <netlink/route/link.h>
#include <netlink/route/link/veth.h>
#include <netlink/route/route.h>
#include <string.h>
#include <unistd.h>

#include "cleanup.h"
#include "link.h"

JR_DEFINE_CLEANUP(struct nl_sock, nl_socket_free)
JR_DEFINE_CLEANUP(struct rtnl_link, rtnl_link_put)

static int route_socket(struct nl_sock **out, struct jr_err *err)
{
	_cleanup_(nl_socket_freep) struct nl_sock *sk = nl_socket_alloc();
	int r;

	if (!sk)
		return jr_err_set(err, ENOMEM,
				  "cannot allocate a netlink socket");
	r = nl_connect(sk, NETLINK_ROUTE);
	if (r < 0)
		return jr_err_set(err, EIO,
				  "cannot open a route netlink socket: %s",
				  nl_geterror(r));
	*out = steal_pointer(&sk);
	return 0;
}

static int get_lo(struct nl_sock *sk, struct rtnl_link **out,
		  struct jr_err *err)
{
	int r = rtnl_link_get_kernel(sk, 0, "lo", out);

	if (r < 0)
		return jr_err_set(err, EIO, "cannot read link lo: %s",
				  nl_geterror(r));
	return 0;
}

int jr_link_lo_up(struct jr_err *err)
{
	_cleanup_(nl_socket_freep) struct nl_sock *sk = NULL;
	_cleanup_(rtnl_link_putp) struct rtnl_link *lo = NULL;
	_cleanup_(rtnl_link_putp) struct rtnl_link *change = NULL;
	_cleanup_(rtnl_link_putp) struct rtnl_link *after = NULL;
	int r;

	r = route_socket(&sk, err);
	if (r < 0)
		return r;
	r = get_lo(sk, &lo, err);
	if (r < 0)
		return r;
	change = rtnl_link_alloc();
	if (!change)
		return jr_err_set(err, ENOMEM, "cannot allocate a link object");
	rtnl_link_set_flags(change, IFF_UP);
	r = rtnl_link_change(sk, lo, change, 0);
	if (r < 0)
		return jr_err_set(err, EIO,
				  "cannot bring up lo in the sandbox: %s",
				  nl_geterror(r));
	r = get_lo(sk, &after, err);
	if (r < 0)
		return r;
	if (!(rtnl_link_get_flags(after) & IFF_UP))
		return jr_err_set(
		    err, EIO,
		    "lo in the sandbox is still down after bringing it up");
	if (rtnl_link_get_ifindex(after) != JR_LOOPBACK_IFINDEX)
		return jr_err_set(
		    err, EPROTO,
		    "lo in the sandbox has ifindex %d, not %d: the nftables loopback rules would not match it",
		    rtnl_link_get_ifindex(after), JR_LOOPBACK_IFINDEX);
	return 0;
}

int jr_link_create_veth(const char *name, const char *peer_name,
			int peer_netns_fd, struct jr_err *err)
{
	_cleanup_(nl_socket_freep) struct nl_sock *sk = NULL;
	_cleanup_(rtnl_link_putp) struct rtnl_link *veth = NULL;
	_cleanup_(rtnl_link_putp) struct rtnl_link *peer = NULL;
	_cleanup_(rtnl_link_putp) struct rtnl_link *check = NULL;
	int r;

	r = route_socket(&sk, err);
	if (r < 0)
		return r;
	veth = rtnl_link_veth_alloc();
	if (!veth)
		return jr_err_set(err, ENOMEM,
				  "cannot allocate a veth link object");
	rtnl_link_set_name(veth, name);
	/* rtnl_link_veth_get_peer() takes a reference: put it (cleanup). */
	peer = rtnl_link_veth_get_peer(veth);
	if (!peer)
		return jr_err_set(err, ENOMEM, "cannot allocate the veth peer");
	rtnl_link_set_name(peer, peer_name);
	rtnl_link_set_ns_fd(peer, peer_netns_fd);
	/*
	 * One queue each way on both ends, asked for at creation. Without
	 * IFLA_NUM_{TX,RX}_QUEUES the kernel allocates one per possible CPU
	 * and veth_newlink() then shrinks the real count to 1 on the
	 * registered device, which waits for an RCU grace period
	 * (netif_set_real_num_tx_queues -> synchronize_net) once per end:
	 * 1-2 ms each on a busy VM, and a multi-queue veth buys a relay that
	 * is one epoll thread nothing.
	 */
	rtnl_link_set_num_tx_queues(veth, 1);
	rtnl_link_set_num_rx_queues(veth, 1);
	rtnl_link_set_num_tx_queues(peer, 1);
	rtnl_link_set_num_rx_queues(peer, 1);
	r = rtnl_link_add(sk, veth, NLM_F_CREATE | NLM_F_EXCL);
	if (r < 0)
		return jr_err_set(
		    err, EIO,
		    "cannot create the veth pair %s/%s: %s (is the veth module available? try: sudo modprobe veth)",
		    name, peer_name, nl_geterror(r));
	r = rtnl_link_get_kernel(sk, 0, name, &check);
	if (r < 0)
		return jr_err_set(err, EIO, "the veth %s did not appear: %s",
				  name, nl_geterror(r));
	return 0;
}

JR_DEFINE_CLEANUP(struct rtnl_addr, rtnl_addr_put)
JR_DEFINE_CLEANUP(struct nl_addr, nl_addr_put)
JR_DEFINE_CLEANUP(struct nl_cache, nl_cache_free)
JR_DEFINE_CLEANUP(struct rtnl_route, rtnl_route_put)

/* Does @ifindex carry @want (address and prefix, of its family) in the
 * kernel now? An IPv6 one must also be usable already: not tentative (a
 * tentative address can be neither bound nor used as a source). */
static int addr_present(struct nl_sock *sk, int ifindex, struct nl_addr *want,
			struct jr_err *err)
{
	_cleanup_(nl_cache_freep) struct nl_cache *cache = NULL;
	struct nl_object *obj;
	int r = rtnl_addr_alloc_cache(sk, &cache);

	if (r < 0)
		return jr_err_set(err, EIO, "cannot read addresses back: %s",
				  nl_geterror(r));
	for (obj = nl_cache_get_first(cache); obj;
	     obj = nl_cache_get_next(obj)) {
		struct rtnl_addr *a = (struct rtnl_addr *)obj;

		if (rtnl_addr_get_ifindex(a) == ifindex &&
		    rtnl_addr_get_family(a) == nl_addr_get_family(want) &&
		    nl_addr_cmp(rtnl_addr_get_local(a), want) == 0 &&
		    rtnl_addr_get_prefixlen(a) ==
			(int)nl_addr_get_prefixlen(want) &&
		    !(rtnl_addr_get_flags(a) & IFA_F_TENTATIVE))
			return 0;
	}
	return jr_err_set(err, EIO, "the address did not read back");
}

/*
 * find_link - @ifname's link object and index in the current netns.
 */
static int find_link(struct nl_sock *sk, const char *ifname,
		     struct rtnl_link **link, struct jr_err *err)
{
	int r = rtnl_link_get_kernel(sk, 0, ifname, link);

	if (r < 0)
		return jr_err_set(err, EIO, "cannot find link %s: %s", ifname,
				  nl_geterror(r));
	return rtnl_link_get_ifindex(*link);
}

/*
 * add_address - give link @ifindex (@ifname) the @family address @addr
 * (@len bytes) with @prefix and the IFA_F_* @flags, and read it back
 * usable (addr_present()).
 */
static int add_address(struct nl_sock *sk, const char *ifname, int ifindex,
		       int family, const void *addr, size_t len,
		       unsigned int prefix, unsigned int flags,
		       struct jr_err *err)
{
	_cleanup_(rtnl_addr_putp) struct rtnl_addr *ra = rtnl_addr_alloc();
	_cleanup_(nl_addr_putp) struct nl_addr *local =
	    nl_addr_build(family, addr, len);
	const bool v6 = family == AF_INET6;
	int r;

	if (!ra || !local)
		return jr_err_set(err, ENOMEM,
				  "cannot allocate an address object");
	nl_addr_set_prefixlen(local, (int)prefix);
	rtnl_addr_set_ifindex(ra, ifindex);
	if (flags)
		rtnl_addr_set_flags(ra, flags);
	r = rtnl_addr_set_local(ra, local);
	if (r == 0)
		r = rtnl_addr_add(sk, ra, 0);
	if (r < 0)
		return jr_err_set(
		    err, EIO, "cannot add an %saddress to %s: %s%s",
		    v6 ? "IPv6 " : "", ifname, nl_geterror(r),
		    v6 ? " (is IPv6 disabled? net.ipv6.conf.default.disable_ipv6)"
		       : "");
	r = addr_present(sk, ifindex, local, err);
	if (r < 0)
		return jr_err_prefix(err, "%s: %s", ifname, v6 ? "IPv6: " : "");
	return 0;
}

int jr_link_configure(const char *ifname, struct in_addr addr,
		      unsigned int prefix, struct jr_err *err)
{
	_cleanup_(nl_socket_freep) struct nl_sock *sk = NULL;
	_cleanup_(rtnl_link_putp) struct rtnl_link *link = NULL;
	_cleanup_(rtnl_link_putp) struct rtnl_link *change = NULL;
	_cleanup_(rtnl_link_putp) struct rtnl_link *after = NULL;
	int r, ifindex;

	r = route_socket(&sk, err);
	if (r < 0)
		return r;
	ifindex = find_link(sk, ifname, &link, err);
	if (ifindex < 0)
		return ifindex;
	r = add_address(sk, ifname, ifindex, AF_INET, &addr, sizeof(addr),
			prefix, 0, err);
	if (r < 0)
		return r;

	change = rtnl_link_alloc();
	if (!change)
		return jr_err_set(err, ENOMEM, "cannot allocate a link object");
	rtnl_link_set_flags(change, IFF_UP);
	r = rtnl_link_change(sk, link, change, 0);
	if (r < 0)
		return jr_err_set(err, EIO, "cannot bring up %s: %s", ifname,
				  nl_geterror(r));

	r = rtnl_link_get_kernel(sk, ifindex, NULL, &after);
	if (r < 0 || !(rtnl_link_get_flags(after) & IFF_UP))
		return jr_err_set(err, EIO, "%s is not up after bringing it up",
				  ifname);
	return 0;
}

/*
 * default_route - add the default route of @family via @gw (@len bytes)
 * in the main table of the current netns, and read it back.
 */
static int default_route(int family, const void *gw, size_t len,
			 struct jr_err *err)
{
	_cleanup_(nl_socket_freep) struct nl_sock *sk = NULL;
	_cleanup_(rtnl_route_putp) struct rtnl_route *route = NULL;
	_cleanup_(nl_addr_putp) struct nl_addr *dst = NULL;
	_cleanup_(nl_addr_putp) struct nl_addr *via = NULL;
	_cleanup_(nl_cache_freep) struct nl_cache *cache = NULL;
	struct rtnl_nexthop *nh;
	const struct in6_addr any = IN6ADDR_ANY_INIT;
	const char *what = family == AF_INET6 ? "IPv6 " : "";
	struct nl_object *obj;
	int r;

	r = route_socket(&sk, err);
	if (r < 0)
		return r;
	route = rtnl_route_alloc();
	nh = rtnl_route_nh_alloc();
	dst = nl_addr_build(family, &any, len);
	via = nl_addr_build(family, gw, len);
	if (!route || !nh || !dst || !via) {
		if (nh)
			rtnl_route_nh_free(nh);
		return jr_err_set(err, ENOMEM,
				  "cannot allocate a route object");
	}
	nl_addr_set_prefixlen(dst, 0);
	rtnl_route_set_family(route, (uint8_t)family);
	rtnl_route_set_table(route, RT_TABLE_MAIN);
	rtnl_route_set_dst(route, dst);
	rtnl_route_nh_set_gateway(nh, via);
	rtnl_route_add_nexthop(route, nh); /* the route owns nh now */
	r = rtnl_route_add(sk, route, NLM_F_CREATE | NLM_F_EXCL);
	if (r < 0)
		return jr_err_set(err, EIO,
				  "cannot add the %sdefault route: %s", what,
				  nl_geterror(r));

	r = rtnl_route_alloc_cache(sk, family, 0, &cache);
	if (r < 0)
		return jr_err_set(err, EIO, "cannot read routes back: %s",
				  nl_geterror(r));
	for (obj = nl_cache_get_first(cache); obj;
	     obj = nl_cache_get_next(obj)) {
		struct rtnl_route *rt = (struct rtnl_route *)obj;
		struct rtnl_nexthop *n;

		if (rtnl_route_get_table(rt) != RT_TABLE_MAIN ||
		    nl_addr_get_prefixlen(rtnl_route_get_dst(rt)) != 0 ||
		    rtnl_route_get_nnexthops(rt) != 1)
			continue;
		n = rtnl_route_nexthop_n(rt, 0);
		if (n && rtnl_route_nh_get_gateway(n) &&
		    nl_addr_cmp(rtnl_route_nh_get_gateway(n), via) == 0)
			return 0;
	}
	return jr_err_set(err, EIO, "the %sdefault route did not read back",
			  what);
}

int jr_link_default_route(struct in_addr gw, struct jr_err *err)
{
	return default_route(AF_INET, &gw, sizeof(gw), err);
}

int jr_link_default_route6(const struct in6_addr *gw, struct jr_err *err)
{
	return default_route(AF_INET6, gw, sizeof(*gw), err);
}

int jr_link_add_addr6(const char *ifname, const struct in6_addr *addr,
		      unsigned int prefix, struct jr_err *err)
{
	_cleanup_(nl_socket_freep) struct nl_sock *sk = NULL;
	_cleanup_(rtnl_link_putp) struct rtnl_link *link = NULL;
	int r, ifindex;

	r = route_socket(&sk, err);
	if (r < 0)
		return r;
	ifindex = find_link(sk, ifname, &link, err);
	if (ifindex < 0)
		return ifindex;
	/* No duplicate address detection: the link has two ends, both
	 * ours, and DAD would keep the address tentative (unusable) for a
	 * second (RFC 4862 5.4, RetransTimer x DupAddrDetectTransmits). */
	return add_address(sk, ifname, ifindex, AF_INET6, addr, sizeof(*addr),
			   prefix, IFA_F_NODAD, err);
}

bool jr_link_ipv6_available(void)
{
	_cleanup_close_ int fd =
	    open(JR_LINK_IPV6_SYSCTL, O_RDONLY | O_CLOEXEC);
	char v[4] = { 0 };

	return fd >= 0 && read(fd, v, sizeof(v) - 1) > 0 && v[0] == '0';
}
