// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * dns.c - parse one DNS query, build one response (RFC 1035).
 *
 * Theory of operation
 *
 * The relay's forwarder needs exactly one thing from a query: the name and
 * type asked for, so that the policy can decide between resolving it on the
 * host and answering NXDOMAIN. A name that the policy refuses is never sent
 * on: the lookup of secret.evil.com is itself the exfiltration. So the
 * parser is strict where that decision is made, and reads nothing else:
 *
 * - The header (RFC 1035 4.1.1) must say QR=0, OPCODE=0, QDCOUNT=1,
 *   ANCOUNT=0, NSCOUNT=0. A message with QR=1 is a response sent to us and
 *   is dropped, never answered: answering responses is how two servers end
 *   up in a loop. Another OPCODE is well formed but not ours (NOTIMP).
 *   Everything else in the header (AA, TC, Z, AD, CD, RCODE) has no meaning
 *   in a query we answer and is ignored.
 *
 * - The question (4.1.2) is a sequence of labels. The top two bits of a
 *   length byte pick its kind: 00 a label of up to 63 bytes, 11 a
 *   compression pointer (4.1.4), 01 an extended label (deprecated by RFC
 *   6891 5), 10 unassigned. Only 00 is accepted: a query has nothing before
 *   its question to point at, so no legitimate client compresses it, and a
 *   name that is read in one pass cannot loop. Since a label length is six
 *   bits, "top bits not 00" and "label longer than 63" are the same test.
 *   Every byte of a label must be printable ASCII (0x21..0x7e) other than
 *   '.': RFC 2181 11 allows any octet, but a name the policy cannot write
 *   down cannot be on the allowlist, and "a.b" as one label must not match
 *   the two labels a.b. The text form is at most 253 characters (255 octets
 *   on the wire, RFC 1035 2.3.4), lowercased for the policy (comparisons
 *   are case-insensitive, RFC 4343), without the trailing dot, "" for the
 *   root.
 *
 * - Nothing after the question is read. The additional section usually
 *   holds an EDNS OPT record (RFC 6891 6.1); we answer without one, as a
 *   server of RFC 1035 alone does, so a UDP answer must fit 512 bytes
 *   (RFC 1035 4.2.1): the caller's out_size. RFC 6891 7 asks a server without EDNS to answer
 *   FORMERR instead; clients then retry without OPT and get the same answer
 *   a round trip later, so we do not. Bytes after the question, and
 *   whatever ARCOUNT claims, are therefore neither trusted nor checked.
 *
 * A response echoes the question byte for byte, original case included
 * (resolvers that randomise the case of their queries, "DNS 0x20", check
 * it), and names each answer with a pointer to offset 12, where the
 * question's name always starts (RFC 1035 4.1.4). Answers are A or AAAA
 * records of class IN with one TTL (RFC 2181 5.2: the TTLs of an RRSet are
 * equal); any other question gets NOERROR without answers, NODATA (RFC
 * 2308 2.2). The answers that fit are kept and TC is set when one does not
 * (RFC 1035 4.1.1; RFC 2181 9 allows the partial RRSet); nothing is ever
 * written past the buffer, and no message is longer than the 65535 bytes a
 * TCP length prefix can carry (RFC 1035 4.2.2), which also bounds ANCOUNT.
 * NXDOMAIN carries no SOA: such a negative answer is not cached (RFC 2308
 * 5), which is what we want for a name the policy may allow tomorrow.
 *
 * Both builders may write into the buffer the query was read from: the
 * question is moved with memmove() and the header is written from values
 * read before it.
 */

#include <errno.h>
#include <string.h>
#include <sys/socket.h>

#include "dns.h"

#define DNS_HDR_LEN 12
#define DNS_QTYPE_QCLASS_LEN 4
/* Answer record without its RDATA: pointer, TYPE, CLASS, TTL, RDLENGTH. */
#define DNS_RR_FIXED_LEN 12
/* RFC 1035 4.1.4: 0b11 then offset 12, the question's name. */
#define DNS_PTR_QNAME 0xc00c
/* RFC 2181 8: a TTL is 0 to 2^31 - 1 seconds. */
#define DNS_TTL_MAX 0x7fffffffu

_Static_assert(sizeof(((struct jr_dns_query *)0)->name) == JR_HOST_MAX + 1,
	       "jr_dns_query.name holds the longest name and its NUL");

/* Header byte 2 and byte 3 (RFC 1035 4.1.1). */
#define DNS_QR 0x80
#define DNS_OPCODE 0x78
#define DNS_TC 0x02
#define DNS_RD 0x01
#define DNS_RA 0x80
#define DNS_RCODE_MAX 0x0f /* four bits */

static uint16_t get16(const uint8_t *p)
{
	return (uint16_t)(p[0] << 8 | p[1]);
}

static uint8_t *put16(uint8_t *p, uint16_t v)
{
	p[0] = v >> 8;
	p[1] = v & 0xff;
	return p + 2;
}

static uint8_t *put32(uint8_t *p, uint32_t v)
{
	p = put16(p, v >> 16);
	return put16(p, v & 0xffff);
}

/**
 * parse_qname - read the question's name, which must not be compressed.
 * @msg: the message
 * @len: its length
 * @name: where to write the text form, lowercase, without trailing dot
 *
 * The name starts right after the header. Each length byte is checked
 * against what is left of the message before the label is read, so the
 * name can neither run past @msg nor, at 253 characters plus NUL, past
 * @name.
 *
 * Return: the length of the name on the wire, or -EBADMSG.
 */
static int parse_qname(const uint8_t *msg, size_t len,
		       char name[JR_HOST_MAX + 1])
{
	size_t pos = DNS_HDR_LEN, n = 0;

	for (;;) {
		uint8_t label_len;

		if (pos >= len)
			return -EBADMSG; /* no root label before the end */
		label_len = msg[pos++];
		if (label_len == 0)
			break;
		if (label_len > JR_HOST_LABEL_MAX || label_len > len - pos)
			return -EBADMSG;
		/* Text form: a dot before every label but the first. */
		if (n + !!n + label_len > JR_HOST_MAX)
			return -EBADMSG;
		if (n)
			name[n++] = '.';
		for (; label_len; label_len--) {
			uint8_t c = msg[pos++];

			if (c < 0x21 || c > 0x7e || c == '.')
				return -EBADMSG;
			name[n++] = c >= 'A' && c <= 'Z' ? c - 'A' + 'a' : c;
		}
	}
	name[n] = '\0';
	return (int)(pos - DNS_HDR_LEN);
}

/**
 * jr_dns_parse_query - parse a query message (no TCP length prefix).
 * @msg: the message
 * @len: its length
 * @q: filled on success; unspecified after an error. q->question points
 *	into @msg, which must outlive it.
 *
 * Return: 0; -EBADMSG for a message to drop (malformed, not exactly one
 * question, or a response); -EOPNOTSUPP for a readable header whose OPCODE
 * is not QUERY, to answer with NOTIMP.
 */
int jr_dns_parse_query(const uint8_t *msg, size_t len, struct jr_dns_query *q)
{
	size_t qtype_off;
	int name_len;

	if (len < DNS_HDR_LEN || msg[2] & DNS_QR)
		return -EBADMSG;
	if (msg[2] & DNS_OPCODE)
		return -EOPNOTSUPP;
	if (get16(msg + 4) != 1 || get16(msg + 6) != 0 || get16(msg + 8) != 0)
		return -EBADMSG;
	name_len = parse_qname(msg, len, q->name);
	if (name_len < 0)
		return name_len;
	qtype_off = DNS_HDR_LEN + (size_t)name_len;
	if (len - qtype_off < DNS_QTYPE_QCLASS_LEN)
		return -EBADMSG;

	q->id = get16(msg);
	q->rd = msg[2] & DNS_RD;
	q->qtype = get16(msg + qtype_off);
	q->qclass = get16(msg + qtype_off + 2);
	q->question = msg + DNS_HDR_LEN;
	q->question_len = (size_t)name_len + DNS_QTYPE_QCLASS_LEN;
	return 0;
}

/*
 * The header of a response: QR=1 with @flags (OPCODE, TC, RD); AA=0, we
 * hold no zone; RA=1, to the sandbox we are its recursive resolver;
 * Z/AD/CD=0; NSCOUNT=ARCOUNT=0.
 */
static void put_header(uint8_t *p, uint16_t id, uint8_t flags, int rcode,
		       uint16_t qdcount, uint16_t ancount)
{
	p = put16(p, id);
	*p++ = DNS_QR | flags;
	*p++ = DNS_RA | rcode;
	p = put16(p, qdcount);
	p = put16(p, ancount);
	p = put16(p, 0);
	put16(p, 0);
}

/*
 * The family of the addresses that answer @q with @rcode, AF_UNSPEC if none
 * do: only a NOERROR answer to an IN question for A or AAAA has records.
 */
static int answer_family(const struct jr_dns_query *q, int rcode)
{
	if (rcode != JR_DNS_RCODE_NOERROR || q->qclass != JR_DNS_CLASS_IN)
		return AF_UNSPEC;
	switch (q->qtype) {
	case JR_DNS_TYPE_A:
		return AF_INET;
	case JR_DNS_TYPE_AAAA:
		return AF_INET6;
	default:
		return AF_UNSPEC;
	}
}

/**
 * jr_dns_build_response - answer @q.
 * @q: the parsed query
 * @rcode: RCODE, 0..15
 * @addrs: addresses; those whose family does not match the question are
 *	skipped, and all are ignored unless @rcode is NOERROR and the
 *	question is class IN, type A or AAAA (otherwise NOERROR is NODATA)
 * @n_addrs: number of @addrs
 * @ttl: TTL of every answer, clamped to 2^31 - 1 (RFC 2181 8)
 * @out: the response; may be the buffer @q was parsed from
 * @out_size: its size; at most 65535 bytes of it are used
 *
 * Return: the length of the response; -ENOSPC if not even the header and
 * the question fit (nothing is written then); -EINVAL for a bad @rcode.
 */
long jr_dns_build_response(const struct jr_dns_query *q, int rcode,
			   const struct jr_dns_addr *addrs, size_t n_addrs,
			   uint32_t ttl, uint8_t *out, size_t out_size)
{
	int family = answer_family(q, rcode);
	uint16_t rdlength = family == AF_INET6 ? 16 : 4;
	size_t rr_len = DNS_RR_FIXED_LEN + rdlength;
	uint8_t flags = q->rd ? DNS_RD : 0;
	uint16_t ancount = 0;
	uint8_t *p, *end;
	size_t i;

	if (rcode < 0 || rcode > DNS_RCODE_MAX)
		return -EINVAL;
	if (out_size > JR_DNS_TCP_MAX)
		out_size = JR_DNS_TCP_MAX;
	if (out_size < DNS_HDR_LEN || q->question_len > out_size - DNS_HDR_LEN)
		return -ENOSPC;
	if (ttl > DNS_TTL_MAX)
		ttl = DNS_TTL_MAX;

	memmove(out + DNS_HDR_LEN, q->question, q->question_len);
	p = out + DNS_HDR_LEN + q->question_len;
	end = out + out_size;
	for (i = 0; family != AF_UNSPEC && i < n_addrs; i++) {
		if (addrs[i].family != family)
			continue;
		if ((size_t)(end - p) < rr_len) {
			flags |= DNS_TC;
			break;
		}
		p = put16(p, DNS_PTR_QNAME);
		p = put16(p, q->qtype);
		p = put16(p, JR_DNS_CLASS_IN);
		p = put32(p, ttl);
		p = put16(p, rdlength);
		memcpy(p, addrs[i].addr, rdlength);
		p += rdlength;
		ancount++;
	}
	put_header(out, q->id, flags, rcode, 1, ancount);
	return p - out;
}

/**
 * jr_dns_build_error - a bare error response to @msg.
 * @msg: the message answered; only its 12-byte header is read
 * @len: its length
 * @rcode: RCODE, 0..15 (FORMERR, SERVFAIL, NOTIMP)
 * @out: the response; may be @msg
 * @out_size: its size
 *
 * ID, OPCODE and RD are echoed (RFC 1035 4.1.1), every count is zero.
 *
 * Return: the length of the response (12); -EBADMSG if @msg has no
 * complete header or is itself a response (never answer those); -ENOSPC;
 * -EINVAL for a bad @rcode.
 */
long jr_dns_build_error(const uint8_t *msg, size_t len, int rcode, uint8_t *out,
			size_t out_size)
{
	uint16_t id;
	uint8_t flags;

	if (rcode < 0 || rcode > DNS_RCODE_MAX)
		return -EINVAL;
	if (len < DNS_HDR_LEN || msg[2] & DNS_QR)
		return -EBADMSG;
	if (out_size < DNS_HDR_LEN)
		return -ENOSPC;
	id = get16(msg);
	flags = msg[2] & (DNS_OPCODE | DNS_RD);
	put_header(out, id, flags, rcode, 0, 0);
	return DNS_HDR_LEN;
}
