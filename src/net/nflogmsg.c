// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * nflogmsg.c - parsing the nfnetlink_log messages the worker's refusing
 * rules send, and the rate limit of the audit lines made from them.
 *
 * Theory of operation: the closing rejects of the worker's output chain
 * carry `log group N` (ruleset.c), so nf_tables hands every packet they
 * refuse to nfnetlink_log, which sends the socket bound to group N
 * (nflog.c) one NFULNL_MSG_PACKET per packet: an nfgenmsg whose res_id is
 * the group, then attributes, among them NFULA_PAYLOAD, the packet from
 * its network header on, cut at the copy range jailrun asked for. The
 * packet is the command's own outgoing one, so its destination is what
 * the command tried to reach. Everything here is bounds-checked against
 * the bytes received: the sender is the kernel (nflog.c checks nl_pid 0),
 * but the packet inside was built by the command.
 */
#include <arpa/inet.h>
#include <errno.h>
#include <netinet/in.h>
#include <stdio.h>
#include <string.h>

#include <linux/netfilter/nfnetlink.h>
#include <linux/netfilter/nfnetlink_log.h>
#include <linux/netlink.h>

#include <libmnl/libmnl.h>

#include "nflogmsg.h"

/* Transport protocols whose header starts with source and destination
 * port (RFC 793 3.1, RFC 768, RFC 9260 3.1, RFC 4340 5.1). */
static bool has_ports(uint8_t proto)
{
	return proto == IPPROTO_TCP || proto == IPPROTO_UDP ||
	       proto == IPPROTO_SCTP || proto == IPPROTO_DCCP ||
	       proto == IPPROTO_UDPLITE;
}

static void set_protocol(struct jr_nflog_packet *out, uint8_t proto)
{
	switch (proto) {
	case IPPROTO_TCP:
		out->protocol = "tcp";
		return;
	case IPPROTO_UDP:
		out->protocol = "udp";
		return;
	case IPPROTO_ICMP:
		out->protocol = "icmp";
		return;
	case IPPROTO_ICMPV6:
		out->protocol = "icmpv6";
		return;
	case IPPROTO_SCTP:
		out->protocol = "sctp";
		return;
	default:
		snprintf(out->proto_buf, sizeof(out->proto_buf), "ip-proto-%u",
			 proto);
		out->protocol = out->proto_buf;
	}
}

/* The destination port at @l4 (@avail bytes there), or -1. */
static int dest_port(const uint8_t *l4, size_t avail)
{
	if (avail < 4)
		return -1;
	return (l4[2] << 8) | l4[3];
}

int jr_nflog_parse_packet(const uint8_t *pkt, size_t len,
			  struct jr_nflog_packet *out)
{
	uint8_t proto;

	memset(out, 0, sizeof(*out));
	out->port = -1;
	if (len < 1)
		return -EINVAL;
	if (pkt[0] >> 4 == 4) {
		/* RFC 791 3.1: IHL in 32-bit words, at least 5. */
		size_t ihl = (size_t)(pkt[0] & 0x0f) * 4;
		unsigned int frag_off;

		if (len < 20 || ihl < 20)
			return -EINVAL;
		proto = pkt[9];
		if (!inet_ntop(AF_INET, pkt + 16, out->address,
			       sizeof(out->address)))
			return -EINVAL;
		set_protocol(out, proto);
		/* Only the first fragment carries the ports. */
		frag_off = ((unsigned int)(pkt[6] & 0x1f) << 8) | pkt[7];
		if (has_ports(proto) && frag_off == 0 && len > ihl)
			out->port = dest_port(pkt + ihl, len - ihl);
		return 0;
	}
	if (pkt[0] >> 4 == 6) {
		/* RFC 8200 3: a fixed 40-byte header, next header at 6. */
		if (len < 40)
			return -EINVAL;
		proto = pkt[6];
		if (!inet_ntop(AF_INET6, pkt + 24, out->address,
			       sizeof(out->address)))
			return -EINVAL;
		set_protocol(out, proto);
		if (has_ports(proto))
			out->port = dest_port(pkt + 40, len - 40);
		return 0;
	}
	return -EINVAL;
}

/* mnl_attr_parse() callback: keep NFULA_PAYLOAD in @data. */
static int payload_cb(const struct nlattr *a, void *data)
{
	const struct nlattr **payload = data;

	if (mnl_attr_type_valid(a, NFULA_MAX) > 0 &&
	    mnl_attr_get_type(a) == NFULA_PAYLOAD)
		*payload = a;
	return MNL_CB_OK;
}

int jr_nflog_parse_msg(const void *buf, size_t len, uint16_t group,
		       struct jr_nflog_packet *out)
{
	const struct nlmsghdr *nlh = buf;
	const struct nfgenmsg *nfg;
	const struct nlattr *payload = NULL;

	/* libmnl walks the attributes up to the aligned end of the
	 * message: that end must be inside @len too (the kernel aligns). */
	if (len < sizeof(*nlh) || nlh->nlmsg_len < sizeof(*nlh) ||
	    nlh->nlmsg_len > len || NLMSG_ALIGN(nlh->nlmsg_len) > len)
		return -EINVAL;
	if (nlh->nlmsg_type != ((NFNL_SUBSYS_ULOG << 8) | NFULNL_MSG_PACKET))
		return 0;
	if (nlh->nlmsg_len < NLMSG_HDRLEN + NLMSG_ALIGN(sizeof(*nfg)))
		return -EINVAL;
	nfg = mnl_nlmsg_get_payload(nlh);
	if (ntohs(nfg->res_id) != group)
		return -EINVAL;
	if (mnl_attr_parse(nlh, sizeof(*nfg), payload_cb, &payload) !=
	    MNL_CB_OK)
		return -EINVAL;
	if (!payload)
		return 0;
	return jr_nflog_parse_packet(mnl_attr_get_payload(payload),
				     mnl_attr_get_payload_len(payload), out) < 0
		   ? -EINVAL
		   : 1;
}

bool jr_nflog_limit_take(struct jr_nflog_limit *l, uint64_t now_ms)
{
	const uint64_t cap = (uint64_t)JR_NFLOG_BURST * 1000;

	if (!l->started) {
		l->tokens_milli = cap;
		l->last_ms = now_ms;
		l->started = true;
	}
	if (now_ms > l->last_ms) {
		uint64_t add = (now_ms - l->last_ms) * JR_NFLOG_RATE;

		l->tokens_milli =
		    add >= cap - l->tokens_milli ? cap : l->tokens_milli + add;
		l->last_ms = now_ms;
	}
	if (l->tokens_milli < 1000) {
		l->suppressed++;
		return false;
	}
	l->tokens_milli -= 1000;
	return true;
}
