// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * link.c - links of the worker network namespace, through libnl-3 route.
 *
 * Theory of operation: a new netns holds only "lo", down. It is brought up
 * by an RTM_NEWLINK change and then read back: jailrun never assumes a
 * kernel request did what it asked. The read-back also checks the ifindex
 * the nftables rules match on ("iif/oif lo" compile to ifindex 1).
 *
 * The sandbox's link (relaynet.c) is set up with one socket per netns and,
 * per end, one batch: every request of that end in one sendmsg(2), every
 * ack read and matched to its request by sequence number, then one dump
 * of links, of addresses and of routes proving all of it at once. One
 * request at a time, each with its own socket, get and read-back, cost
 * 25 round trips and 8 sockets for what is now 10 and 2.
 */

#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <sys/socket.h>
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

JR_DEFINE_CLEANUP(struct rtnl_addr, rtnl_addr_put)
JR_DEFINE_CLEANUP(struct nl_addr, nl_addr_put)
JR_DEFINE_CLEANUP(struct nl_cache, nl_cache_free)
JR_DEFINE_CLEANUP(struct rtnl_route, rtnl_route_put)

/*
 * find_link - @ifname's link object and index in @sk's netns.
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

int jr_link_open(struct nl_sock **out, struct jr_err *err)
{
	int r = route_socket(out, err);

	/* The batches below read their acks themselves and check each
	 * one's sequence number; libnl's own check would then expect the
	 * wrong one for the read-back dumps on the same socket. Every
	 * answer is read in full before the next request, so a dump's
	 * reply is the only thing that can arrive. */
	if (r == 0)
		nl_socket_disable_seq_check(*out);
	return r;
}

void jr_link_close(struct nl_sock *sk)
{
	nl_socket_free(sk);
}

int jr_link_create_veth(struct nl_sock *sk, const char *name,
			const char *peer_name, int peer_netns_fd,
			struct jr_err *err)
{
	_cleanup_(rtnl_link_putp) struct rtnl_link *veth = NULL;
	_cleanup_(rtnl_link_putp) struct rtnl_link *peer = NULL;
	int r;

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
	/* @name up at creation (IFF_UP in its ifinfomsg: the kernel applies
	 * it before it answers), not in one more request that would wait
	 * for the RTNL again: on a busy host every netns torn down holds it
	 * a while. Not the peer: the kernel brings it up before the pair is
	 * joined, and veth_open() refuses that (ENOTCONN). jr_link_setup()
	 * reads it back. */
	rtnl_link_set_flags(veth, IFF_UP);
	r = rtnl_link_add(sk, veth, NLM_F_CREATE | NLM_F_EXCL);
	if (r < 0)
		return jr_err_set(
		    err, EIO,
		    "cannot create the veth pair %s/%s: %s (is the veth module available? try: sudo modprobe veth)",
		    name, peer_name, nl_geterror(r));
	/* That it appeared is read back by jr_link_setup() (find_link()). */
	return 0;
}

/*
 * A batch: several rtnetlink requests sent in one sendmsg(2) and every
 * ack collected, instead of one round trip each. rtnetlink handles the
 * messages of one send in order, each on its own (a failed one does not
 * stop the next), and acks each before sendmsg() returns, so all the
 * answers are queued by then: they are read without waiting, and a
 * missing one is an error, not a hang. The first failure in batch order
 * is the one reported, in the words the one-request-at-a-time code used.
 */
#define BATCH_MAX 8

struct batch {
	size_t n;
	struct nl_msg *msg[BATCH_MAX];
	char what[BATCH_MAX][96]; /* "cannot bring up eth0" */
	const char *hint[BATCH_MAX];
};

static void batch_free(struct batch *b)
{
	for (size_t i = 0; i < b->n; i++)
		nlmsg_free(b->msg[i]);
	b->n = 0;
}

/* Queue @msg (built by libnl; NULL with @built < 0 when that failed);
 * a failure of it will read "@what: <error>@hint". */
__attribute__((format(printf, 5, 6))) static int
batch_add(struct batch *b, int built, struct nl_msg *msg, const char *hint,
	  const char *fmt, ...)
{
	va_list ap;

	if (built < 0 || !msg || b->n == BATCH_MAX) {
		if (msg)
			nlmsg_free(msg);
		return -ENOMEM;
	}
	va_start(ap, fmt);
	vsnprintf(b->what[b->n], sizeof(b->what[b->n]), fmt, ap);
	va_end(ap);
	b->hint[b->n] = hint ? hint : "";
	b->msg[b->n++] = msg;
	return 0;
}

static int batch_run(struct nl_sock *sk, struct batch *b, struct jr_err *err)
{
	union {
		char buf[8192];
		struct nlmsghdr align;
	} u;
	bool seen[BATCH_MAX] = { false };
	size_t len = 0, got = 0, failed = b->n;
	uint32_t first_seq = 0;
	int failed_code = 0, r;

	memset(u.buf, 0, sizeof(u.buf));
	for (size_t i = 0; i < b->n; i++) {
		struct nlmsghdr *h;

		nl_complete_msg(sk, b->msg[i]);
		h = nlmsg_hdr(b->msg[i]);
		h->nlmsg_flags |= NLM_F_ACK;
		if (i == 0)
			first_seq = h->nlmsg_seq;
		if (h->nlmsg_seq != first_seq + i ||
		    len + NLMSG_ALIGN(h->nlmsg_len) > sizeof(u.buf))
			return jr_err_set(err, EIO, "%s: bad netlink batch",
					  b->what[i]);
		memcpy(u.buf + len, h, h->nlmsg_len);
		len += NLMSG_ALIGN(h->nlmsg_len);
	}
	r = nl_sendto(sk, u.buf, len);
	if (r < 0)
		return jr_err_set(err, EIO, "%s: %s", b->what[0],
				  nl_geterror(r));
	while (got < b->n) {
		ssize_t k = recv(nl_socket_get_fd(sk), u.buf, sizeof(u.buf),
				 MSG_DONTWAIT | MSG_TRUNC);
		struct nlmsghdr *h = &u.align;
		int left;

		if (k < 0 && errno == EINTR)
			continue;
		if (k < 0 || (size_t)k > sizeof(u.buf))
			return jr_err_set(
			    err, EIO,
			    "%s: no complete answer from the kernel%s%s",
			    b->what[got], k < 0 ? ": " : "",
			    k < 0 ? strerror(errno) : "");
		for (left = (int)k; NLMSG_OK(h, left);
		     h = NLMSG_NEXT(h, left)) {
			const struct nlmsgerr *e = NLMSG_DATA(h);
			uint32_t i = h->nlmsg_seq - first_seq;

			if (h->nlmsg_type != NLMSG_ERROR || i >= b->n ||
			    seen[i] || h->nlmsg_len < NLMSG_LENGTH(sizeof(*e)))
				continue;
			seen[i] = true;
			got++;
			if (e->error && i < failed) {
				failed = i;
				failed_code = e->error;
			}
		}
	}
	if (failed < b->n)
		return jr_err_set(err, EIO, "%s: %s%s", b->what[failed],
				  nl_geterror(nl_syserr2nlerr(-failed_code)),
				  b->hint[failed]);
	return 0;
}

/* Queue RTM_NEWLINK setting IFF_UP on @ifindex. */
static int push_up(struct batch *b, int ifindex, const char *what)
{
	_cleanup_(rtnl_link_putp) struct rtnl_link *orig = rtnl_link_alloc();
	_cleanup_(rtnl_link_putp) struct rtnl_link *change = rtnl_link_alloc();
	struct nl_msg *msg = NULL;
	int r = -ENOMEM;

	if (orig && change) {
		rtnl_link_set_ifindex(orig, ifindex);
		rtnl_link_set_flags(change, IFF_UP);
		r = rtnl_link_build_change_request(orig, change, 0, &msg);
	}
	return batch_add(b, r, msg, NULL, "%s", what);
}

/* Queue RTM_NEWADDR: @family address @addr (@len bytes)/@prefix with the
 * IFA_F_* @flags on @ifindex (@ifname). */
static int push_addr(struct batch *b, const char *ifname, int ifindex,
		     int family, const void *addr, size_t len,
		     unsigned int prefix, unsigned int flags)
{
	_cleanup_(rtnl_addr_putp) struct rtnl_addr *ra = rtnl_addr_alloc();
	_cleanup_(nl_addr_putp) struct nl_addr *local =
	    nl_addr_build(family, addr, len);
	const bool v6 = family == AF_INET6;
	struct nl_msg *msg = NULL;
	int r = -ENOMEM;

	if (ra && local) {
		nl_addr_set_prefixlen(local, (int)prefix);
		rtnl_addr_set_ifindex(ra, ifindex);
		if (flags)
			rtnl_addr_set_flags(ra, flags);
		r = rtnl_addr_set_local(ra, local);
		if (r == 0)
			r = rtnl_addr_build_add_request(ra, 0, &msg);
	}
	return batch_add(
	    b, r, msg,
	    v6 ? " (is IPv6 disabled? net.ipv6.conf.default.disable_ipv6)" : "",
	    "cannot add an %saddress to %s", v6 ? "IPv6 " : "", ifname);
}

/* Queue RTM_NEWROUTE: the @family default route via @gw (@len bytes) in
 * the main table. */
static int push_default_route(struct batch *b, int family, const void *gw,
			      size_t len)
{
	_cleanup_(rtnl_route_putp) struct rtnl_route *route =
	    rtnl_route_alloc();
	_cleanup_(nl_addr_putp) struct nl_addr *dst = NULL;
	_cleanup_(nl_addr_putp) struct nl_addr *via = NULL;
	const struct in6_addr any = IN6ADDR_ANY_INIT;
	struct rtnl_nexthop *nh = rtnl_route_nh_alloc();
	struct nl_msg *msg = NULL;
	int r = -ENOMEM;

	dst = nl_addr_build(family, &any, len);
	via = nl_addr_build(family, gw, len);
	if (route && nh && dst && via) {
		nl_addr_set_prefixlen(dst, 0);
		rtnl_route_set_family(route, (uint8_t)family);
		rtnl_route_set_table(route, RT_TABLE_MAIN);
		rtnl_route_set_dst(route, dst);
		rtnl_route_nh_set_gateway(nh, via);
		rtnl_route_add_nexthop(route, steal_pointer(&nh)); /* owns it */
		r = rtnl_route_build_add_request(
		    route, NLM_F_CREATE | NLM_F_EXCL, &msg);
	}
	if (nh)
		rtnl_route_nh_free(nh);
	return batch_add(b, r, msg, NULL, "cannot add the %sdefault route",
			 family == AF_INET6 ? "IPv6 " : "");
}

/* Is link @name in @cache up (and, with @want_index, at that index)? */
static int link_up_in(struct nl_cache *cache, const char *name, int want_index,
		      const char *who, struct jr_err *err)
{
	_cleanup_(rtnl_link_putp) struct rtnl_link *l =
	    rtnl_link_get_by_name(cache, name);

	if (!l || !(rtnl_link_get_flags(l) & IFF_UP))
		return jr_err_set(err, EIO, "%s is not up after bringing it up",
				  who);
	if (want_index && rtnl_link_get_ifindex(l) != want_index)
		return jr_err_set(
		    err, EPROTO,
		    "%s has ifindex %d, not %d: the nftables loopback rules would not match it",
		    who, rtnl_link_get_ifindex(l), want_index);
	return 0;
}

int jr_link_lo_up(struct jr_err *err)
{
	_cleanup_(nl_socket_freep) struct nl_sock *sk = NULL;
	_cleanup_(rtnl_link_putp) struct rtnl_link *after = NULL;
	struct batch b = { .n = 0 };
	int r;

	r = jr_link_open(&sk, err);
	if (r < 0)
		return r;
	/* lo is index 1 in every netns (link.h): no need to look it up
	 * first; the read-back checks the name at that index. */
	r = push_up(&b, JR_LOOPBACK_IFINDEX,
		    "cannot bring up lo in the sandbox");
	if (r < 0)
		return jr_err_set(err, ENOMEM,
				  "cannot build the netlink request for lo");
	r = batch_run(sk, &b, err);
	batch_free(&b);
	if (r < 0)
		return r;
	r = rtnl_link_get_kernel(sk, 0, "lo", &after);
	if (r < 0)
		return jr_err_set(err, EIO, "cannot read link lo: %s",
				  nl_geterror(r));
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

/* Does @ifindex carry @family address @addr (@len bytes)/@prefix in
 * @cache, usable: an IPv6 one not tentative (a tentative address can be
 * neither bound nor used as a source)? */
static int addr_in(struct nl_cache *cache, const char *ifname, int ifindex,
		   int family, const void *addr, size_t len,
		   unsigned int prefix, struct jr_err *err)
{
	_cleanup_(nl_addr_putp) struct nl_addr *want =
	    nl_addr_build(family, addr, len);
	struct nl_object *obj;

	if (!want)
		return jr_err_set(err, ENOMEM,
				  "cannot allocate an address object");
	nl_addr_set_prefixlen(want, (int)prefix);
	for (obj = nl_cache_get_first(cache); obj;
	     obj = nl_cache_get_next(obj)) {
		struct rtnl_addr *a = (struct rtnl_addr *)obj;

		if (rtnl_addr_get_ifindex(a) == ifindex &&
		    rtnl_addr_get_family(a) == family &&
		    nl_addr_cmp(rtnl_addr_get_local(a), want) == 0 &&
		    rtnl_addr_get_prefixlen(a) == (int)prefix &&
		    !(rtnl_addr_get_flags(a) & IFA_F_TENTATIVE))
			return 0;
	}
	return jr_err_set(err, EIO, "%s: %sthe address did not read back",
			  ifname, family == AF_INET6 ? "IPv6: " : "");
}

/* Is the @family default route via @gw (@len bytes) in @cache's main
 * table, with that one next hop? */
static int route_in(struct nl_cache *cache, int family, const void *gw,
		    size_t len, struct jr_err *err)
{
	_cleanup_(nl_addr_putp) struct nl_addr *via =
	    nl_addr_build(family, gw, len);
	struct nl_object *obj;

	if (!via)
		return jr_err_set(err, ENOMEM,
				  "cannot allocate a route object");
	for (obj = nl_cache_get_first(cache); obj;
	     obj = nl_cache_get_next(obj)) {
		struct rtnl_route *rt = (struct rtnl_route *)obj;
		struct rtnl_nexthop *n;

		if (rtnl_route_get_family(rt) != family ||
		    rtnl_route_get_table(rt) != RT_TABLE_MAIN ||
		    !rtnl_route_get_dst(rt) ||
		    nl_addr_get_prefixlen(rtnl_route_get_dst(rt)) != 0 ||
		    rtnl_route_get_nnexthops(rt) != 1)
			continue;
		n = rtnl_route_nexthop_n(rt, 0);
		if (n && rtnl_route_nh_get_gateway(n) &&
		    nl_addr_cmp(rtnl_route_nh_get_gateway(n), via) == 0)
			return 0;
	}
	return jr_err_set(err, EIO, "the %sdefault route did not read back",
			  family == AF_INET6 ? "IPv6 " : "");
}

int jr_link_setup(struct nl_sock *sk, const struct jr_link_plan *p,
		  struct jr_err *err)
{
	_cleanup_(rtnl_link_putp) struct rtnl_link *link = NULL;
	_cleanup_(nl_cache_freep) struct nl_cache *links = NULL;
	_cleanup_(nl_cache_freep) struct nl_cache *addrs = NULL;
	_cleanup_(nl_cache_freep) struct nl_cache *routes = NULL;
	struct batch b = { .n = 0 };
	char up[96];
	int r = 0, ifindex;

	ifindex = find_link(sk, p->ifname, &link, err);
	if (ifindex < 0)
		return ifindex;
	/* The order of the one-at-a-time code: the IPv4 address, the link
	 * up, its route (whose gateway needs the /prefix route of the
	 * address on an up link), then the IPv6 address and route (the
	 * gateway on its /64, which the address brings). No duplicate
	 * address detection: the link has two ends, both ours, and DAD
	 * would keep the address tentative (unusable) for a second (RFC
	 * 4862 5.4, RetransTimer x DupAddrDetectTransmits). */
	snprintf(up, sizeof(up), "cannot bring up %s", p->ifname);
	if (p->lo_too)
		r = push_up(&b, JR_LOOPBACK_IFINDEX,
			    "cannot bring up lo in the sandbox");
	if (r == 0)
		r = push_addr(&b, p->ifname, ifindex, AF_INET, &p->addr,
			      sizeof(p->addr), p->prefix, 0);
	if (r == 0 && !p->created_up)
		r = push_up(&b, ifindex, up);
	if (r == 0 && p->gw)
		r = push_default_route(&b, AF_INET, p->gw, sizeof(*p->gw));
	if (r == 0 && p->addr6)
		r = push_addr(&b, p->ifname, ifindex, AF_INET6, p->addr6,
			      sizeof(*p->addr6), p->prefix6, IFA_F_NODAD);
	if (r == 0 && p->addr6 && p->gw6)
		r = push_default_route(&b, AF_INET6, p->gw6, sizeof(*p->gw6));
	if (r < 0) {
		batch_free(&b);
		return jr_err_set(err, ENOMEM,
				  "cannot build the netlink requests for %s",
				  p->ifname);
	}
	r = batch_run(sk, &b, err);
	batch_free(&b);
	if (r < 0)
		return r;

	/* Read back what was asked, one dump per kind. */
	r = rtnl_link_alloc_cache(sk, AF_UNSPEC, &links);
	if (r < 0)
		return jr_err_set(err, EIO, "cannot read links back: %s",
				  nl_geterror(r));
	if (p->lo_too) {
		r = link_up_in(links, "lo", JR_LOOPBACK_IFINDEX,
			       "lo in the sandbox", err);
		if (r < 0)
			return r;
	}
	r = link_up_in(links, p->ifname, 0, p->ifname, err);
	if (r < 0)
		return r;
	r = rtnl_addr_alloc_cache(sk, &addrs);
	if (r < 0)
		return jr_err_set(err, EIO, "cannot read addresses back: %s",
				  nl_geterror(r));
	r = addr_in(addrs, p->ifname, ifindex, AF_INET, &p->addr,
		    sizeof(p->addr), p->prefix, err);
	if (r == 0 && p->addr6)
		r = addr_in(addrs, p->ifname, ifindex, AF_INET6, p->addr6,
			    sizeof(*p->addr6), p->prefix6, err);
	if (r < 0 || !p->gw)
		return r;
	r = rtnl_route_alloc_cache(sk, AF_UNSPEC, 0, &routes);
	if (r < 0)
		return jr_err_set(err, EIO, "cannot read routes back: %s",
				  nl_geterror(r));
	r = route_in(routes, AF_INET, p->gw, sizeof(*p->gw), err);
	if (r == 0 && p->addr6 && p->gw6)
		r = route_in(routes, AF_INET6, p->gw6, sizeof(*p->gw6), err);
	return r;
}

bool jr_link_ipv6_available(void)
{
	_cleanup_close_ int fd =
	    open(JR_LINK_IPV6_SYSCTL, O_RDONLY | O_CLOEXEC);
	char v[4] = { 0 };

	return fd >= 0 && read(fd, v, sizeof(v) - 1) > 0 && v[0] == '0';
}
