/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * ruleset.h - the nftables ruleset jailrun means to install in the worker
 * network namespace, built as libnftnl objects. Pure: nothing here talks to
 * the kernel, so the ruleset is unit-tested and compared against the nft/
 * reference files.
 */
#ifndef JR_RULESET_H
#define JR_RULESET_H

#include <netinet/in.h>
#include <stddef.h>
#include <stdint.h>

#include "cleanup.h"
#include "err.h"
#include "options.h"
#include "policy.h"

#define JR_NFT_TABLE "jailrun"

/*
 * The named counters (NFT_OBJECT_COUNTER) of the worker table's closing
 * rejects, with --net allowlist: the TCP connections answered with a reset
 * and everything else refused (UDP, ICMP, any other protocol, IPv4 and
 * IPv6 alike). The runner reads them back at exit: the summary's
 * "network"."firewall_refused" is their sum, in packets.
 */
#define JR_NFT_COUNTER_TCP "refused_tcp"
#define JR_NFT_COUNTER_OTHER "refused_other"
/*
 * The nfnetlink_log group the same rejects send each refused packet to
 * (`log group 7`), with jr_ruleset_params.log_refused: nflog.c reads it
 * for the "firewall-refused" audit lines. Groups are per netns; any
 * number would do.
 */
#define JR_NFLOG_GROUP 7

/* Which network namespace a ruleset is for. */
enum jr_ruleset_netns {
	JR_RULESET_WORKER = 0, /* the command's: filter in and out */
	JR_RULESET_RELAY,      /* the relay's: redirect captured TCP */
};

struct jr_ruleset_params {
	enum jr_ruleset_netns netns;
	enum jr_net_mode mode;
	/* JR_NET_ALLOWLIST: where the worker may send (the relay's ports). */
	struct in_addr gateway; /* network byte order */
	uint16_t proxy_port;	/* host byte order */
	uint16_t dns_port;	/* host byte order */
	/*
	 * JR_NET_ALLOWLIST, --transparent on. Worker: TCP to the synthetic
	 * pool (fakeip.h) and to the IPv4 address/CIDR entries of @policy
	 * (on their port, if they name one) goes out too, and UDP other than
	 * DNS gets ICMP port-unreachable. Relay: TCP arriving on the veth
	 * for anything but the gateway is redirected to @transparent_port.
	 */
	bool transparent;
	uint16_t transparent_port;	/* host byte order */
	const struct jr_policy *policy; /* worker, may be NULL: no entries */
	/*
	 * With @transparent: the link has IPv6 (relaynet.h). Worker:
	 * neighbour discovery in and out, TCP (and UDP, refused in the relay
	 * netns) to the IPv6 pool and TCP to the IPv6 entries of @policy go
	 * out. Relay: the redirect and the UDP refusal for IPv6 too. Without
	 * it every IPv6 packet meets the closing reject.
	 */
	bool ipv6;
	/*
	 * JR_NET_ALLOWLIST, worker (lane.h). @lane_ports: the worker may
	 * open TCP to the gateway on each (the host lanes' listeners).
	 * @publish_ports: new TCP from the gateway to each is accepted on
	 * input, and its replies on output (published ports). Host byte
	 * order; may be NULL with a count of 0.
	 */
	const uint16_t *lane_ports;
	size_t n_lane_ports;
	const uint16_t *publish_ports;
	size_t n_publish_ports;
	/*
	 * Also set NFT_TABLE_F_PERSIST (Linux >= 6.9): the table outlives
	 * its owner socket instead of being deleted when it closes. Closing
	 * the owner of a non-persistent table waits for an RCU grace period
	 * (synchronize_rcu in nft_rcv_nl_event), which was most of jailrun's
	 * start-up cost; and a persistent table stays until the namespace
	 * goes, so the worker is never left without rules if the runner dies
	 * first. Older kernels refuse the flag (EOPNOTSUPP):
	 * jr_nft_install_owned() then builds without.
	 */
	bool persist;
	/*
	 * JR_NET_ALLOWLIST, worker: the closing rejects also log each
	 * packet to NFLOG group JR_NFLOG_GROUP. Set only once that group is
	 * bound (nflog.h): a log expression needs nfnetlink_log, and
	 * without it the rules are installed without, still counting.
	 */
	bool log_refused;
};

#ifndef NFT_TABLE_F_PERSIST
#define NFT_TABLE_F_PERSIST 0x4 /* linux/netfilter/nf_tables.h, Linux 6.9 */
#endif

struct jr_ruleset; /* opaque: table + chains + rules, in install order */

/*
 * jr_ruleset_build - build the intended ruleset for @params.
 * Return: 0 and *out (free with jr_ruleset_free), or -errno with @err set.
 */
int jr_ruleset_build(const struct jr_ruleset_params *params,
		     struct jr_ruleset **out, struct jr_err *err);
void jr_ruleset_free(struct jr_ruleset *rs);
JR_DEFINE_CLEANUP(struct jr_ruleset, jr_ruleset_free)

size_t jr_ruleset_chain_count(const struct jr_ruleset *rs);
size_t jr_ruleset_rule_count(const struct jr_ruleset *rs);
/* How many named counters @rs holds (0 or 2, see JR_NFT_COUNTER_TCP). */
size_t jr_ruleset_counter_count(const struct jr_ruleset *rs);

#endif
