// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * test_nflogmsg.c - parsing NFLOG messages of refused packets and the
 * rate limit of their audit lines (src/net/nflogmsg.c).
 */
#include <netinet/in.h> /* before any linux/ header (glibc vs uapi) */
#include <arpa/inet.h>
#include <errno.h>
#include <setjmp.h>
#include <stdalign.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>
#include <cmocka.h>

#include <linux/netfilter/nfnetlink.h>
#include <linux/netfilter/nfnetlink_log.h>
#include <libmnl/libmnl.h>

#include "nflogmsg.h"

/* An IPv4 header (20 bytes) to 192.0.2.1, protocol @proto, with
 * @frag_off, followed by ports 40000 -> 443 in @pkt; returns 24. */
static size_t ipv4(uint8_t *pkt, uint8_t proto, uint16_t frag_off)
{
	memset(pkt, 0, 24);
	pkt[0] = 0x45;
	pkt[6] = (uint8_t)(frag_off >> 8);
	pkt[7] = (uint8_t)frag_off;
	pkt[9] = proto;
	pkt[16] = 192, pkt[17] = 0, pkt[18] = 2, pkt[19] = 1;
	pkt[20] = 0x9c, pkt[21] = 0x40; /* 40000 */
	pkt[22] = 0x01, pkt[23] = 0xbb; /* 443 */
	return 24;
}

/*
 * IPv4: TCP and UDP name the destination and its port; ICMP and a later
 * fragment (whose ports are not there) name no port; a header cut short,
 * a bad IHL or another IP version is refused. Fails if a port is read
 * from outside the packet or from a fragment's data.
 */
static void test_ipv4(void **state)
{
	uint8_t pkt[64];
	struct jr_nflog_packet p;
	size_t n;

	(void)state;
	n = ipv4(pkt, IPPROTO_TCP, 0);
	assert_int_equal(jr_nflog_parse_packet(pkt, n, &p), 0);
	assert_string_equal(p.protocol, "tcp");
	assert_string_equal(p.address, "192.0.2.1");
	assert_int_equal(p.port, 443);

	n = ipv4(pkt, IPPROTO_UDP, 0);
	assert_int_equal(jr_nflog_parse_packet(pkt, n, &p), 0);
	assert_string_equal(p.protocol, "udp");
	assert_int_equal(p.port, 443);
	/* Copied up to the source port only: no destination port. */
	assert_int_equal(jr_nflog_parse_packet(pkt, 22, &p), 0);
	assert_int_equal(p.port, -1);

	n = ipv4(pkt, IPPROTO_ICMP, 0);
	assert_int_equal(jr_nflog_parse_packet(pkt, n, &p), 0);
	assert_string_equal(p.protocol, "icmp");
	assert_int_equal(p.port, -1);

	n = ipv4(pkt, IPPROTO_UDP, 185); /* offset 185 * 8 */
	assert_int_equal(jr_nflog_parse_packet(pkt, n, &p), 0);
	assert_int_equal(p.port, -1);

	n = ipv4(pkt, 47, 0); /* GRE */
	assert_int_equal(jr_nflog_parse_packet(pkt, n, &p), 0);
	assert_string_equal(p.protocol, "ip-proto-47");
	assert_int_equal(p.port, -1);

	/* Options: the ports are after 24 bytes of header, not 20. */
	n = ipv4(pkt, IPPROTO_TCP, 0);
	pkt[0] = 0x46;
	memset(pkt + 20, 0, 4);
	pkt[26] = 0x00, pkt[27] = 0x50; /* 80 */
	assert_int_equal(jr_nflog_parse_packet(pkt, 28, &p), 0);
	assert_int_equal(p.port, 80);

	assert_int_equal(jr_nflog_parse_packet(pkt, 19, &p), -EINVAL);
	pkt[0] = 0x44; /* IHL 16 bytes */
	assert_int_equal(jr_nflog_parse_packet(pkt, 24, &p), -EINVAL);
	pkt[0] = 0x55;
	assert_int_equal(jr_nflog_parse_packet(pkt, 24, &p), -EINVAL);
	assert_int_equal(jr_nflog_parse_packet(pkt, 0, &p), -EINVAL);
}

/*
 * IPv6: the fixed header's next header and destination; ports for UDP
 * and TCP; a header shorter than 40 bytes is refused.
 */
static void test_ipv6(void **state)
{
	uint8_t pkt[44] = { 0x60 };
	struct jr_nflog_packet p;

	(void)state;
	pkt[6] = IPPROTO_UDP;
	assert_int_equal(inet_pton(AF_INET6, "2001:db8::7", pkt + 24), 1);
	pkt[42] = 0x14, pkt[43] = 0xe9; /* 5353 */
	assert_int_equal(jr_nflog_parse_packet(pkt, sizeof(pkt), &p), 0);
	assert_string_equal(p.protocol, "udp");
	assert_string_equal(p.address, "2001:db8::7");
	assert_int_equal(p.port, 5353);

	pkt[6] = IPPROTO_ICMPV6;
	assert_int_equal(jr_nflog_parse_packet(pkt, sizeof(pkt), &p), 0);
	assert_string_equal(p.protocol, "icmpv6");
	assert_int_equal(p.port, -1);

	/* A hop-by-hop header first: the protocol is what it says, no port. */
	pkt[6] = 0;
	assert_int_equal(jr_nflog_parse_packet(pkt, sizeof(pkt), &p), 0);
	assert_string_equal(p.protocol, "ip-proto-0");
	assert_int_equal(p.port, -1);

	assert_int_equal(jr_nflog_parse_packet(pkt, 39, &p), -EINVAL);
}

/* An NFULNL_MSG_PACKET of @group into @buf, with @pkt as NFULA_PAYLOAD
 * unless @pkt is NULL. */
static struct nlmsghdr *nflog_msg(char *buf, uint16_t group, const uint8_t *pkt,
				  size_t n)
{
	struct nlmsghdr *nlh = mnl_nlmsg_put_header(buf);
	struct nfulnl_msg_packet_hdr hdr = { .hw_protocol = htons(0x0800),
					     .hook = 3 };
	struct nfgenmsg *nfg;

	nlh->nlmsg_type = (NFNL_SUBSYS_ULOG << 8) | NFULNL_MSG_PACKET;
	nfg = mnl_nlmsg_put_extra_header(nlh, sizeof(*nfg));
	nfg->nfgen_family = 2; /* NFPROTO_IPV4 */
	nfg->version = NFNETLINK_V0;
	nfg->res_id = htons(group);
	mnl_attr_put(nlh, NFULA_PACKET_HDR, sizeof(hdr), &hdr);
	mnl_attr_put_u32(nlh, NFULA_IFINDEX_OUTDEV, htonl(2));
	if (pkt)
		mnl_attr_put(nlh, NFULA_PAYLOAD, n, pkt);
	return nlh;
}

/*
 * A message as nfnetlink_log sends it gives its packet; another group's
 * is refused, a message of another type or without a payload skipped,
 * and a message longer than the bytes received refused. Fails if a
 * forged or cut message is read past its end or taken for ours.
 */
static void test_msg(void **state)
{
	alignas(struct nlmsghdr) char buf[512];
	struct jr_nflog_packet p;
	struct nlmsghdr *nlh;
	uint8_t pkt[24];
	size_t n = ipv4(pkt, IPPROTO_TCP, 0);

	(void)state;
	nlh = nflog_msg(buf, 7, pkt, n);
	assert_int_equal(jr_nflog_parse_msg(nlh, nlh->nlmsg_len, 7, &p), 1);
	assert_string_equal(p.protocol, "tcp");
	assert_string_equal(p.address, "192.0.2.1");
	assert_int_equal(p.port, 443);
	/* Cut: the header says more than was received. */
	assert_int_equal(jr_nflog_parse_msg(nlh, nlh->nlmsg_len - 1, 7, &p),
			 -EINVAL);
	assert_int_equal(jr_nflog_parse_msg(nlh, 8, 7, &p), -EINVAL);
	/* A length short of the alignment libmnl walks to (fuzz_nflog's
	 * finding: libmnl read the attributes up to NLMSG_ALIGN of it). */
	nlh->nlmsg_len -= 2;
	assert_int_equal(jr_nflog_parse_msg(nlh, nlh->nlmsg_len, 7, &p),
			 -EINVAL);

	nlh = nflog_msg(buf, 8, pkt, n);
	assert_int_equal(jr_nflog_parse_msg(nlh, nlh->nlmsg_len, 7, &p),
			 -EINVAL);

	nlh = nflog_msg(buf, 7, NULL, 0);
	assert_int_equal(jr_nflog_parse_msg(nlh, nlh->nlmsg_len, 7, &p), 0);

	nlh = nflog_msg(buf, 7, pkt, n);
	nlh->nlmsg_type = NLMSG_ERROR;
	assert_int_equal(jr_nflog_parse_msg(nlh, nlh->nlmsg_len, 7, &p), 0);

	/* A payload that is no IP packet. */
	pkt[0] = 0x15;
	nlh = nflog_msg(buf, 7, pkt, n);
	assert_int_equal(jr_nflog_parse_msg(nlh, nlh->nlmsg_len, 7, &p),
			 -EINVAL);
}

/*
 * The rate limit: JR_NFLOG_BURST lines at once, then none until time
 * passes, JR_NFLOG_RATE a second after that, never more than the burst
 * saved up; every refusal it stops is counted. Fails if a flood gets
 * more lines than the documented bound or the suppressed count is off.
 */
static void test_limit(void **state)
{
	struct jr_nflog_limit l = { 0 };
	unsigned int taken = 0;

	(void)state;
	for (int i = 0; i < JR_NFLOG_BURST + 50; i++)
		taken += jr_nflog_limit_take(&l, 1000);
	assert_int_equal(taken, JR_NFLOG_BURST);
	assert_int_equal(l.suppressed, 50);
	/* One second later: JR_NFLOG_RATE more. */
	taken = 0;
	for (int i = 0; i < 100; i++)
		taken += jr_nflog_limit_take(&l, 2000);
	assert_int_equal(taken, JR_NFLOG_RATE);
	assert_int_equal(l.suppressed, 50 + 100 - JR_NFLOG_RATE);
	/* A long quiet spell saves up the burst, no more. */
	taken = 0;
	for (int i = 0; i < 2 * JR_NFLOG_BURST; i++)
		taken += jr_nflog_limit_take(&l, 1000000);
	assert_int_equal(taken, JR_NFLOG_BURST);
	/* A clock that goes back changes nothing. */
	assert_false(jr_nflog_limit_take(&l, 5));
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_ipv4),
		cmocka_unit_test(test_ipv6),
		cmocka_unit_test(test_msg),
		cmocka_unit_test(test_limit),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
