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
#include <net/if.h>
#include <netlink/errno.h>
#include <netlink/netlink.h>
#include <netlink/route/link.h>
#include <string.h>

#include "cleanup.h"
#include "link.h"

JR_DEFINE_CLEANUP(struct nl_sock, nl_socket_free)
JR_DEFINE_CLEANUP(struct rtnl_link, rtnl_link_put)

static int get_lo(struct nl_sock *sk, struct rtnl_link **out, struct jr_err *err)
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

	sk = nl_socket_alloc();
	if (!sk)
		return jr_err_set(err, ENOMEM, "cannot allocate a netlink socket");
	r = nl_connect(sk, NETLINK_ROUTE);
	if (r < 0)
		return jr_err_set(err, EIO, "cannot open a route netlink socket: %s",
				  nl_geterror(r));
	r = get_lo(sk, &lo, err);
	if (r < 0)
		return r;
	change = rtnl_link_alloc();
	if (!change)
		return jr_err_set(err, ENOMEM, "cannot allocate a link object");
	rtnl_link_set_flags(change, IFF_UP);
	r = rtnl_link_change(sk, lo, change, 0);
	if (r < 0)
		return jr_err_set(err, EIO, "cannot bring up lo in the sandbox: %s",
				  nl_geterror(r));
	r = get_lo(sk, &after, err);
	if (r < 0)
		return r;
	if (!(rtnl_link_get_flags(after) & IFF_UP))
		return jr_err_set(err, EIO,
				  "lo in the sandbox is still down after bringing it up");
	if (rtnl_link_get_ifindex(after) != JR_LOOPBACK_IFINDEX)
		return jr_err_set(err, EPROTO,
				  "lo in the sandbox has ifindex %d, not %d: the nftables loopback rules would not match it",
				  rtnl_link_get_ifindex(after), JR_LOOPBACK_IFINDEX);
	return 0;
}
