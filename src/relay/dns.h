/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * dns.h - the DNS messages the relay's forwarder understands (RFC 1035).
 * Pure: parse one query, build one response. The forwarder answers A and
 * AAAA for allowlisted names from the host's resolver, NXDOMAIN for every
 * other name (never forwarded), and drops what it cannot parse.
 */
#ifndef JR_DNS_H
#define JR_DNS_H

#include <netinet/in.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "host.h"

#define JR_DNS_UDP_MAX 512   /* RFC 1035 4.2.1, without EDNS */
#define JR_DNS_TCP_MAX 65535 /* RFC 1035 4.2.2 length prefix */

#define JR_DNS_TYPE_A 1
#define JR_DNS_TYPE_AAAA 28
#define JR_DNS_CLASS_IN 1

#define JR_DNS_RCODE_NOERROR 0
#define JR_DNS_RCODE_FORMERR 1
#define JR_DNS_RCODE_SERVFAIL 2
#define JR_DNS_RCODE_NXDOMAIN 3
#define JR_DNS_RCODE_NOTIMP 4
#define JR_DNS_RCODE_REFUSED 5

struct jr_dns_query {
	uint16_t id;
	bool rd;		    /* recursion desired, echoed */
	char name[JR_HOST_MAX + 1]; /* lowercase, no trailing dot, "" for the
				       root */
	uint16_t qtype, qclass;
	size_t question_len;	 /* bytes of the question section, to echo */
	const uint8_t *question; /* points into the parsed message */
};

/*
 * jr_dns_parse_query - parse a query message (without the TCP length
 * prefix). Accepted: QR=0, OPCODE=0 (QUERY), QDCOUNT=1, ANCOUNT=0,
 * NSCOUNT=0; additional records (EDNS OPT) are ignored. The question name
 * must be uncompressed, labels 1..63 bytes, name <= 253 characters in text
 * form; a label containing '.', or a byte outside printable ASCII, is
 * malformed.
 * Return: 0, or -EBADMSG (drop it), or -EOPNOTSUPP (a well-formed message
 * that is not a plain query: answer NOTIMP when the header is readable).
 */
int jr_dns_parse_query(const uint8_t *msg, size_t len, struct jr_dns_query *q);

struct jr_dns_addr {
	int family; /* AF_INET or AF_INET6 */
	uint8_t addr[16];
};

/*
 * jr_dns_build_response - a response to @q: header (QR=1, AA=0, RD echoed,
 * RA=1, @rcode), the question echoed, and one answer record per address in
 * @addrs whose family matches the qtype (A: AF_INET, AAAA: AF_INET6), with
 * @ttl, the name as a compression pointer to the question. Answers that do
 * not fit @out_size are left out and TC is set.
 * Return: the length, or -ENOSPC if not even the header and question fit.
 */
long jr_dns_build_response(const struct jr_dns_query *q, int rcode,
			   const struct jr_dns_addr *addrs, size_t n_addrs,
			   uint32_t ttl, uint8_t *out, size_t out_size);

/*
 * jr_dns_build_error - a bare error response (FORMERR/NOTIMP/SERVFAIL):
 * the id and opcode of @msg echoed, counts zero. Needs at least the 12
 * header bytes of @msg. Return: the length, or -EBADMSG / -ENOSPC.
 */
long jr_dns_build_error(const uint8_t *msg, size_t len, int rcode, uint8_t *out,
			size_t out_size);

#endif
