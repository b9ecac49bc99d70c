/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * relaynet.h - the relay network namespace: the far end of the worker's
 * only link, where the relay's listening sockets live.
 */
#ifndef JR_RELAYNET_H
#define JR_RELAYNET_H

#include <stdbool.h>

#include "err.h"
#include "lane.h"
#include "options.h"

#define JR_RELAY_IFNAME "jr-relay" /* the veth end in the relay netns */
#define JR_WORKER_IFNAME "eth0"	   /* the veth end in the worker netns */

/*
 * IPv6 of the link, with transparent capture when the kernel has IPv6
 * (jr_link_ipv6_available()): a /64 of the ULA prefix whose first /64 is
 * the synthetic pool (JR_FAKEIP_V6_PREFIX, fd6a:7272:6970::/64), so the
 * link's /64 lies outside the pool. Fixed, like the pool: each sandbox has
 * its own pair of namespaces, so every sandbox may use the same ones.
 */
#define JR_LINK6_RELAY "fd6a:7272:6970:1::1"  /* jr-relay: the v6 gateway */
#define JR_LINK6_WORKER "fd6a:7272:6970:1::2" /* eth0 */
#define JR_LINK6_PREFIX 64

struct jr_relay_listeners {
	int proxy;	 /* TCP G:3128 */
	int dns_udp;	 /* UDP G:53 */
	int dns_tcp;	 /* TCP G:53 */
	int transparent; /* TCP G:3129, captured TCP (--transparent on),
			    else -1 */
	/* TCP [::]:3129, IPv6 only: captured IPv6 TCP (with IPv6), else -1 */
	int transparent6;
};

/*
 * jr_relaynet_create - make the relay netns and its listeners, and the
 * worker's end of the link: eth0 with @gw->worker, the default route via
 * @gw->relay, and with @ipv6 JR_LINK6_WORKER/64 (no DAD) and the IPv6
 * default route via JR_LINK6_RELAY, all read back.
 * @worker_netns_fd: the worker's /proc/self/ns/net, for the veth peer
 * @gw: gateway addresses
 * @transparent: also open the transparent listener and @nft_out
 * @ipv6: with @transparent, also give jr-relay JR_LINK6_RELAY/64, turn
 *       IPv6 forwarding off, and open the IPv6 transparent listener
 * @out: the listening sockets (non-blocking, close-on-exec), bound
 *       to the gateway address inside the relay netns
 * @nft_out: with @transparent, a NETLINK_NETFILTER socket of the relay
 *       netns (close-on-exec), through which the runner installs the
 *       table that redirects captured TCP (ruleset.h, JR_RULESET_RELAY),
 *       then a second one for the watchdog's notifications of that table;
 *       else -1 and -1
 *
 * Runs in the sandbox's init (which holds the user namespace's
 * capabilities), single-threaded: init unshares the relay netns, builds
 * it, and setns(2)es back into @worker_netns_fd before returning, also on
 * failure. The relay netns has no process after that: it lives exactly as
 * long as the listening sockets
 * (each socket pins its netns), which only the runner holds, and with it
 * goes the veth pair. It has no route anywhere but the /prefix link, and
 * forwarding is off.
 * @lanes: --lane and --publish; may be NULL
 * @lane_ipv6: the host lanes are served on the worker's [::1] too
 * @lane_fds: jr_lanes_nfds(@lanes, @lane_ipv6) fds: a listener on the
 *       gateway per host lane (TCP G:PORT, in --lane order), a listener
 *       in the worker netns on 127.0.0.1:PORT per host lane (the same
 *       order), with @lane_ipv6 one on [::1]:PORT per host lane (the same
 *       order), then, when anything is published, the publish socket
 *       factory's end (publish.h)
 * Return: 0 or -errno with @err set.
 */
int jr_relaynet_create(int worker_netns_fd, const struct jr_gateway *gw,
		       bool transparent, bool ipv6,
		       struct jr_relay_listeners *out, int nft_out[2],
		       const struct jr_lanes *lanes, bool lane_ipv6,
		       int *lane_fds, struct jr_err *err);

#endif
