/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * nflogmsg.h - what one nfnetlink_log (NFLOG) message says about a packet
 * the worker's firewall refused, and the rate limit of the audit lines
 * written for them. Pure: parsed from bytes, unit-tested without a kernel
 * (tests/unit/test_nflogmsg.c); nflog.c does the socket.
 */
#ifndef JR_NFLOGMSG_H
#define JR_NFLOGMSG_H

#include <netinet/in.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* One refused packet, as the audit line names it. */
struct jr_nflog_packet {
	const char *protocol; /* "tcp", "udp", "icmp", "icmpv6", "sctp",
					   or "ip-proto-N" (in @proto_buf) */
	char proto_buf[16];
	char address[INET6_ADDRSTRLEN]; /* the destination */
	int port;			/* destination port; -1: none (not
					   TCP/UDP/SCTP, or a later fragment) */
};

/*
 * jr_nflog_parse_packet - the destination of the IPv4 or IPv6 packet
 * @pkt (@len bytes, from its network header on, as NFULA_PAYLOAD carries
 * it: possibly cut short at the copy range).
 * IPv6 extension headers are not walked: the protocol is then the first
 * next-header value, without a port.
 * Return: 0 and *out, or -EINVAL if the bytes are not a packet of either.
 */
int jr_nflog_parse_packet(const uint8_t *pkt, size_t len,
			  struct jr_nflog_packet *out);

/*
 * jr_nflog_parse_msg - one netlink message of an NFLOG socket.
 * @buf: the message (struct nlmsghdr on), @len: its length
 * @group: the log group jailrun bound; other groups are refused
 * Return: 1 and *out for an NFULNL_MSG_PACKET of @group with a payload, 0
 * for anything else to skip (an ACK, a message without a payload), or
 * -EINVAL for a malformed one.
 */
int jr_nflog_parse_msg(const void *buf, size_t len, uint16_t group,
		       struct jr_nflog_packet *out);

/*
 * The audit lines for refusals: at most JR_NFLOG_BURST at once, then
 * JR_NFLOG_RATE a second (a token bucket), so that a command flooding
 * refused packets cannot fill the disk; the rest are counted, not written.
 * The counters (firewall_refused) count every packet regardless.
 */
#define JR_NFLOG_BURST 100
#define JR_NFLOG_RATE 10

struct jr_nflog_limit {
	uint64_t tokens_milli; /* tokens * 1000 */
	uint64_t last_ms;      /* when they were last topped up */
	bool started;
	uint64_t suppressed; /* refusals not written */
};

/*
 * jr_nflog_limit_take - may a line be written at @now_ms (a monotonic
 * clock)? Counts it in @l->suppressed if not.
 */
bool jr_nflog_limit_take(struct jr_nflog_limit *l, uint64_t now_ms);

#endif
