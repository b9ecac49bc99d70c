// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * Unit tests for dns.c: the queries the forwarder must read, the messages
 * it must drop, and responses compared byte for byte with packets written
 * out by hand from RFC 1035 4.1. Every builder call writes into a buffer
 * followed by a guard region that must come back untouched.
 */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <cmocka.h>

#include "cleanup.h"
#include "dns.h"

struct bytes {
	const uint8_t *p;
	size_t len;
};

#define BYTES(...)                                                             \
	{                                                                      \
		(const uint8_t[]){ __VA_ARGS__ },                              \
		    sizeof((const uint8_t[]){ __VA_ARGS__ })                   \
	}

/* Names on the wire (RFC 1035 3.1) and QTYPE/QCLASS (4.1.2). */
#define N_ALLOWED 7, 'a', 'l', 'l', 'o', 'w', 'e', 'd', 4, 't', 'e', 's', 't', 0
#define N_ALLOWED_MIXED                                                        \
	7, 'A', 'l', 'L', 'o', 'W', 'e', 'D', 4, 'T', 'E', 'S', 'T', 0
#define N_SECRET                                                               \
	6, 's', 'e', 'c', 'r', 'e', 't', 4, 'e', 'v', 'i', 'l', 3, 'c', 'o',   \
	    'm', 0
#define T_A 0x00, 0x01
#define T_AAAA 0x00, 0x1c
#define T_MX 0x00, 0x0f
#define C_IN 0x00, 0x01
#define C_CH 0x00, 0x03

/*
 * A header (RFC 1035 4.1.1) field by field: ID; the two flag bytes, QR
 * OPCODE(4) AA TC RD and RA Z AD CD RCODE(4); QDCOUNT, ANCOUNT, NSCOUNT,
 * ARCOUNT.
 */
#define HDR(id, flags1, flags2, qd, an, ns, ar)                                \
	(id) >> 8, (id)&0xff, flags1, flags2, (qd) >> 8, (qd)&0xff, (an) >> 8, \
	    (an)&0xff, (ns) >> 8, (ns)&0xff, (ar) >> 8, (ar)&0xff

/* A query: ID 0x1234, RD, one question; @ar additional records. */
#define QHDR(ar) HDR(0x1234, 0x01, 0x00, 1, 0, 0, ar)
/* The same without RD. */
#define QHDR_NORD HDR(0x1234, 0x00, 0x00, 1, 0, 0, 0)

/*
 * EDNS OPT record (RFC 6891 6.1.2) as dig sends it: root owner, TYPE 41,
 * UDP size 1232, DO=0, a client COOKIE option (RFC 7873) of 8 bytes.
 */
#define OPT_COOKIE                                                             \
	0x00, 0x00, 0x29, 0x04, 0xd0, 0x00, 0x00, 0x00, 0x00, 0x00, 0x0c,      \
	    0x00, 0x0a, 0x00, 0x08, 0x01, 0x02, 0x03, 0x04, 0x05, 0x06, 0x07,  \
	    0x08

#define Q_ALLOWED_A BYTES(QHDR(0), N_ALLOWED, T_A, C_IN)
#define Q_ALLOWED_AAAA BYTES(QHDR_NORD, N_ALLOWED, T_AAAA, C_IN)
#define Q_ALLOWED_A_EDNS BYTES(QHDR(1), N_ALLOWED, T_A, C_IN, OPT_COOKIE)

static const struct bytes q_allowed_a = Q_ALLOWED_A;
static const struct bytes q_allowed_a_edns = Q_ALLOWED_A_EDNS;

#define GUARD 64
#define FILL 0xa5

static void assert_untouched(const uint8_t *p, size_t len)
{
	for (size_t i = 0; i < len; i++)
		if (p[i] != FILL)
			fail_msg("byte %zu written past the message", i);
}

/* --- parsing: accepted --------------------------------------------------- */

struct parse_ok {
	const char *what;
	struct bytes msg;
	uint16_t id;
	bool rd;
	const char *name;
	uint16_t qtype, qclass;
	size_t question_len;
};

static const struct parse_ok parse_ok_vectors[] = {
	{ "allowed.test A", BYTES(QHDR(0), N_ALLOWED, T_A, C_IN), 0x1234, true,
	  "allowed.test", 1, 1, 18 },
	{ "allowed.test AAAA, RD clear",
	  BYTES(QHDR_NORD, N_ALLOWED, T_AAAA, C_IN), 0x1234, false,
	  "allowed.test", 28, 1, 18 },
	{ "EDNS OPT with a cookie is ignored",
	  BYTES(QHDR(1), N_ALLOWED, T_AAAA, C_IN, OPT_COOKIE), 0x1234, true,
	  "allowed.test", 28, 1, 18 },
	{ "uppercase is lowered", BYTES(QHDR(0), N_ALLOWED_MIXED, T_A, C_IN),
	  0x1234, true, "allowed.test", 1, 1, 18 },
	{ "root name, NS",
	  BYTES(HDR(0xabcd, 0x01, 0x00, 1, 0, 0, 0), 0x00, 0x00, 0x02, C_IN),
	  0xabcd, true, "", 2, 1, 5 },
	{ "bytes after the question with ARCOUNT 0 are ignored",
	  BYTES(QHDR(0), N_ALLOWED, T_A, C_IN, 0xde, 0xad), 0x1234, true,
	  "allowed.test", 1, 1, 18 },
	{ "ARCOUNT 5 with nothing after the question",
	  BYTES(QHDR(5), N_ALLOWED, T_A, C_IN), 0x1234, true, "allowed.test", 1,
	  1, 18 },
	{ "AA TC Z AD CD and RCODE bits in a query are ignored",
	  BYTES(HDR(0xffff, 0x07, 0x7f, 1, 0, 0, 0), N_ALLOWED, T_A, C_IN),
	  0xffff, true, "allowed.test", 1, 1, 18 },
	{ "MX and class CH are the caller's business",
	  BYTES(QHDR(0), N_ALLOWED, T_MX, C_CH), 0x1234, true, "allowed.test",
	  15, 3, 18 },
	{ "printable edges and punctuation",
	  BYTES(QHDR(0), 3, '!', '~', '_', 4, '*', '-', 'Z', '\\', 0, 0xff,
		0xff, 0xff, 0xff),
	  0x1234, true, "!~_.*-z\\", 0xffff, 0xffff, 14 },
	{ "a..b is a then qtype 0x0162: a different question, not an error",
	  BYTES(QHDR(0), 1, 'a', 0, 1, 'b', 0, T_A, C_IN), 0x1234, true, "a",
	  0x0162, 0x0000, 7 },
};

static void test_parse_ok(void **state)
{
	for (size_t i = 0; i < ARRAY_SIZE(parse_ok_vectors); i++) {
		const struct parse_ok *v = &parse_ok_vectors[i];
		struct jr_dns_query q;
		int ret;

		memset(&q, 0x5a, sizeof(q));
		ret = jr_dns_parse_query(v->msg.p, v->msg.len, &q);
		if (ret != 0)
			fail_msg("%s: returned %d", v->what, ret);
		if (q.id != v->id || q.rd != v->rd || strcmp(q.name, v->name) ||
		    q.qtype != v->qtype || q.qclass != v->qclass ||
		    q.question_len != v->question_len ||
		    q.question != v->msg.p + 12)
			fail_msg("%s: id %#x rd %d name '%s' type %u class %u "
				 "question %+td/%zu",
				 v->what, q.id, q.rd, q.name, q.qtype, q.qclass,
				 q.question - v->msg.p, q.question_len);
	}
}

/* --- parsing: rejected --------------------------------------------------- */

struct parse_bad {
	const char *what;
	struct bytes msg;
	int err;
};

static const struct parse_bad parse_bad_vectors[] = {
	{ "empty", { (const uint8_t[]){ 0 }, 0 }, -EBADMSG },
	{ "11-byte header",
	  BYTES(0x12, 0x34, 0x01, 0x00, 0x00, 0x01, 0x00, 0x00, 0x00, 0x00,
		0x00),
	  -EBADMSG },
	{ "header without its question", BYTES(QHDR(0)), -EBADMSG },
	{ "QDCOUNT 0",
	  BYTES(HDR(0x1234, 0x01, 0x00, 0, 0, 0, 0), N_ALLOWED, T_A, C_IN),
	  -EBADMSG },
	{ "QDCOUNT 2 with two questions",
	  BYTES(HDR(0x1234, 0x01, 0x00, 2, 0, 0, 0), N_ALLOWED, T_A, C_IN,
		N_SECRET, T_A, C_IN),
	  -EBADMSG },
	{ "QDCOUNT 257",
	  BYTES(HDR(0x1234, 0x01, 0x00, 257, 0, 0, 0), N_ALLOWED, T_A, C_IN),
	  -EBADMSG },
	{ "ANCOUNT 1",
	  BYTES(HDR(0x1234, 0x01, 0x00, 1, 1, 0, 0), N_ALLOWED, T_A, C_IN),
	  -EBADMSG },
	{ "NSCOUNT 1",
	  BYTES(HDR(0x1234, 0x01, 0x00, 1, 0, 1, 0), N_ALLOWED, T_A, C_IN),
	  -EBADMSG },
	{ "QR=1: a response sent to us",
	  BYTES(HDR(0x1234, 0x81, 0x80, 1, 0, 0, 0), N_ALLOWED, T_A, C_IN),
	  -EBADMSG },
	{ "QR=1 wins over OPCODE",
	  BYTES(HDR(0x1234, 0xa0, 0x00, 1, 0, 0, 0), N_ALLOWED, T_A, C_IN),
	  -EBADMSG },
	{ "OPCODE 1 IQUERY",
	  BYTES(HDR(0x1234, 0x08, 0x00, 1, 0, 0, 0), N_ALLOWED, T_A, C_IN),
	  -EOPNOTSUPP },
	{ "OPCODE 2 STATUS",
	  BYTES(HDR(0x1234, 0x10, 0x00, 1, 0, 0, 0), N_ALLOWED, T_A, C_IN),
	  -EOPNOTSUPP },
	{ "OPCODE 4 NOTIFY, AA set",
	  BYTES(HDR(0x1234, 0x24, 0x00, 1, 0, 0, 0), N_ALLOWED, 0x00, 0x06,
		C_IN),
	  -EOPNOTSUPP },
	{ "OPCODE 5 UPDATE with prerequisites",
	  BYTES(HDR(0x1234, 0x28, 0x00, 1, 1, 0, 0), N_ALLOWED, 0x00, 0x06,
		C_IN),
	  -EOPNOTSUPP },
	{ "OPCODE 6 DSO, header only",
	  BYTES(HDR(0x1234, 0x30, 0x00, 0, 0, 0, 0)), -EOPNOTSUPP },
	{ "compression pointer as the name",
	  BYTES(QHDR(0), 0xc0, 0x0c, T_A, C_IN), -EBADMSG },
	{ "compression pointer after a label",
	  BYTES(QHDR(0), 3, 'f', 'o', 'o', 0xc0, 0x0c, T_A, C_IN), -EBADMSG },
	{ "compression pointer forward, past the question",
	  BYTES(QHDR(0), 0xc0, 0x12, T_A, C_IN, N_SECRET), -EBADMSG },
	{ "label type 01 (RFC 6891 5 binary label)",
	  BYTES(QHDR(0), 0x41, 0x08, 0xff, 0x00, T_A, C_IN), -EBADMSG },
	{ "label type 10 (unassigned)",
	  BYTES(QHDR(0), 0x80, 'a', 0x00, T_A, C_IN), -EBADMSG },
	{ "label runs past the message", BYTES(QHDR(0), 7, 'a', 'l', 'l'),
	  -EBADMSG },
	{ "label ends exactly at the message end",
	  BYTES(QHDR(0), 3, 'f', 'o', 'o'), -EBADMSG },
	{ "label one byte longer than the rest",
	  BYTES(QHDR(0), 4, 'a', 'b', 'c'), -EBADMSG },
	{ "space in a label", BYTES(QHDR(0), 3, 'a', ' ', 'b', 0, T_A, C_IN),
	  -EBADMSG },
	{ "tab in a label", BYTES(QHDR(0), 3, 'a', '\t', 'b', 0, T_A, C_IN),
	  -EBADMSG },
	{ "NUL in a label", BYTES(QHDR(0), 3, 'a', 0, 'b', 0, T_A, C_IN),
	  -EBADMSG },
	{ "DEL in a label", BYTES(QHDR(0), 3, 'a', 0x7f, 'b', 0, T_A, C_IN),
	  -EBADMSG },
	{ "byte 0x80 in a label",
	  BYTES(QHDR(0), 3, 'a', 0x80, 'b', 0, T_A, C_IN), -EBADMSG },
	{ "UTF-8 in a label", BYTES(QHDR(0), 3, 'a', 0xc3, 0xa9, 0, T_A, C_IN),
	  -EBADMSG },
	{ "'.' inside a label",
	  BYTES(QHDR(0), 12, 'a', 'l', 'l', 'o', 'w', 'e', 'd', '.', 't', 'e',
		's', 't', 0, T_A, C_IN),
	  -EBADMSG },
	{ "no QTYPE", BYTES(QHDR(0), N_ALLOWED), -EBADMSG },
	{ "half a QTYPE", BYTES(QHDR(0), N_ALLOWED, 0x00), -EBADMSG },
	{ "no QCLASS", BYTES(QHDR(0), N_ALLOWED, T_A), -EBADMSG },
	{ "half a QCLASS", BYTES(QHDR(0), N_ALLOWED, T_A, 0x00), -EBADMSG },
};

static void test_parse_bad(void **state)
{
	for (size_t i = 0; i < ARRAY_SIZE(parse_bad_vectors); i++) {
		const struct parse_bad *v = &parse_bad_vectors[i];
		struct jr_dns_query q;
		int ret = jr_dns_parse_query(v->msg.p, v->msg.len, &q);

		if (ret != v->err)
			fail_msg("%s: returned %d, want %d", v->what, ret,
				 v->err);
	}
}

/*
 * Every prefix that cuts the header or question is dropped; from the end of
 * the question on, the OPT record is not read at all.
 */
static void test_parse_every_prefix(void **state)
{
	const struct bytes *m = &q_allowed_a_edns;
	const size_t question_end = 12 + 18;

	for (size_t len = 0; len <= m->len; len++) {
		/* A copy of exactly @len bytes, so ASan sees any overread. */
		uint8_t *copy = malloc(len ? len : 1);
		struct jr_dns_query q;
		int ret;

		assert_non_null(copy);
		memcpy(copy, m->p, len);
		ret = jr_dns_parse_query(copy, len, &q);
		free(copy);
		if (ret != (len < question_end ? -EBADMSG : 0))
			fail_msg("prefix of %zu bytes: returned %d", len, ret);
	}
}

/* Every value of the two flag bytes of the header (RFC 1035 4.1.1). */
static void test_parse_header_flags(void **state)
{
	uint8_t msg[] = { QHDR(0), N_ALLOWED, T_A, C_IN };
	struct jr_dns_query q;

	for (unsigned int b2 = 0; b2 < 256; b2++) {
		for (unsigned int b3 = 0; b3 < 256; b3++) {
			int want = b2 & 0x80   ? -EBADMSG
				   : b2 & 0x78 ? -EOPNOTSUPP
					       : 0;
			int ret;

			msg[2] = (uint8_t)b2;
			msg[3] = (uint8_t)b3;
			ret = jr_dns_parse_query(msg, sizeof(msg), &q);
			if (ret != want)
				fail_msg("flags %02x %02x: returned %d", b2, b3,
					 ret);
			if (ret == 0 && q.rd != (bool)(b2 & 1))
				fail_msg("flags %02x %02x: rd %d", b2, b3,
					 q.rd);
		}
	}
}

/* Every byte value as a one-byte label: printable ASCII but '.' only. */
static void test_parse_label_bytes(void **state)
{
	uint8_t msg[] = { QHDR(0), 1, 'x', 0, T_A, C_IN };
	struct jr_dns_query q;

	for (unsigned int c = 0; c < 256; c++) {
		bool ok = c >= 0x21 && c <= 0x7e && c != '.';
		int ret;

		msg[13] = (uint8_t)c;
		ret = jr_dns_parse_query(msg, sizeof(msg), &q);
		if (ret != (ok ? 0 : -EBADMSG))
			fail_msg("byte %#x: returned %d", c, ret);
		if (ok && ((unsigned int)(unsigned char)q.name[0] !=
			       (c >= 'A' && c <= 'Z' ? c + 32 : c) ||
			   q.name[1] != '\0'))
			fail_msg("byte %#x: name '%s'", c, q.name);
	}
}

/* --- parsing: length limits (RFC 1035 2.3.4) ----------------------------- */

struct name_limit {
	const char *what;
	size_t n_labels; /* labels of @label_len bytes... */
	uint8_t label_len;
	uint8_t last_len; /* ...then one of @last_len bytes (0: none) */
	int err;
};

static const struct name_limit name_limit_vectors[] = {
	{ "one label of 63", 0, 0, 63, 0 },
	{ "one label of 64 (length byte 0x40)", 0, 0, 64, -EBADMSG },
	{ "one label of 127 (length byte 0x7f)", 0, 0, 127, -EBADMSG },
	{ "253 characters: 63.63.63.61", 3, 63, 61, 0 },
	{ "254 characters: 63.63.63.62", 3, 63, 62, -EBADMSG },
	{ "253 characters: 127 labels of 1", 127, 1, 0, 0 },
	{ "254 characters: 126 labels of 1, one of 2", 126, 1, 2, -EBADMSG },
	{ "255 characters: 128 labels of 1", 128, 1, 0, -EBADMSG },
	{ "257 characters: 63.63.63.63", 4, 63, 0, -EBADMSG },
};

/*
 * Write a query for the name @v describes, labels filled with 'X', and its
 * text form, lowercase, into @text. Return: the length of the query.
 */
static size_t build_limit_query(const struct name_limit *v, uint8_t *msg,
				char *text)
{
	static const uint8_t hdr[] = { QHDR(0) };
	size_t len = sizeof(hdr), t = 0;

	memcpy(msg, hdr, sizeof(hdr));
	for (size_t i = 0; i <= v->n_labels; i++) {
		uint8_t l = i < v->n_labels ? v->label_len : v->last_len;

		if (!l)
			continue;
		if (t)
			text[t++] = '.';
		msg[len++] = l;
		memset(msg + len, 'X', l);
		memset(text + t, 'x', l);
		len += l;
		t += l;
	}
	text[t] = '\0';
	msg[len++] = 0;
	memcpy(msg + len, (const uint8_t[]){ T_A, C_IN }, 4);
	return len + 4;
}

static void test_parse_name_limits(void **state)
{
	for (size_t i = 0; i < ARRAY_SIZE(name_limit_vectors); i++) {
		const struct name_limit *v = &name_limit_vectors[i];
		uint8_t msg[12 + 300 + 4];
		char text[300];
		struct jr_dns_query q;
		size_t len = build_limit_query(v, msg, text);
		int ret = jr_dns_parse_query(msg, len, &q);

		if (ret != v->err)
			fail_msg("%s: returned %d, want %d", v->what, ret,
				 v->err);
		if (ret == 0 && (strcmp(q.name, text) ||
				 q.question_len != len - 12 || q.qtype != 1))
			fail_msg("%s: name '%s'", v->what, q.name);
	}
}

/* --- responses ----------------------------------------------------------- */

static const struct jr_dns_addr mixed[] = {
	{ AF_INET, { 192, 0, 2, 1 } },
	{ AF_INET6, { 0x20, 0x01, 0x0d, 0xb8, [15] = 0x01 } },
	{ AF_INET, { 198, 51, 100, 7 } },
	{ AF_INET6, { 0x20, 0x01, 0x0d, 0xb8, [15] = 0x02 } },
};

static const struct jr_dns_addr only_v4[] = {
	{ AF_INET, { 192, 0, 2, 1 } },
};

/* A zeroed entry, as a caller's unfilled slot would be. */
static const struct jr_dns_addr unspec[] = {
	{ AF_UNSPEC, { 192, 0, 2, 1 } },
};

/* Answer records (RFC 1035 4.1.3), named by a pointer to offset 12. */
#define RR_A_300(a, b, c, d)                                                   \
	0xc0, 0x0c, T_A, C_IN, 0x00, 0x00, 0x01, 0x2c, 0x00, 0x04, a, b, c, d
#define RR_AAAA_60(last)                                                       \
	0xc0, 0x0c, T_AAAA, C_IN, 0x00, 0x00, 0x00, 0x3c, 0x00, 0x10, 0x20,    \
	    0x01, 0x0d, 0xb8, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, last

struct response_vec {
	const char *what;
	struct bytes query;
	int rcode;
	const struct jr_dns_addr *addrs;
	size_t n_addrs;
	uint32_t ttl;
	size_t out_size;
	long ret; /* expected: the length of @expect, or -errno */
	struct bytes expect;
};

#define RESPONSE(w, qry, rc, a, n, t, size, ...)                               \
	{                                                                      \
		.what = w, .query = qry, .rcode = rc, .addrs = a,              \
		.n_addrs = n, .ttl = t, .out_size = size,                      \
		.ret = sizeof((const uint8_t[]){ __VA_ARGS__ }),               \
		.expect = BYTES(__VA_ARGS__)                                   \
	}

#define RESPONSE_ERR(w, qry, rc, a, n, t, size, err)                           \
	{                                                                      \
		.what = w, .query = qry, .rcode = rc, .addrs = a,              \
		.n_addrs = n, .ttl = t, .out_size = size, .ret = err           \
	}

static const struct response_vec response_vectors[] = {
	RESPONSE("NXDOMAIN, addresses ignored",
		 BYTES(QHDR(0), N_SECRET, T_A, C_IN), JR_DNS_RCODE_NXDOMAIN,
		 mixed, ARRAY_SIZE(mixed), 300, 512,
		 HDR(0x1234, 0x81, 0x83, 1, 0, 0, 0), N_SECRET, T_A, C_IN),
	RESPONSE("two A answers out of mixed families", Q_ALLOWED_A,
		 JR_DNS_RCODE_NOERROR, mixed, ARRAY_SIZE(mixed), 300, 512,
		 HDR(0x1234, 0x81, 0x80, 1, 2, 0, 0), N_ALLOWED, T_A, C_IN,
		 RR_A_300(192, 0, 2, 1), RR_A_300(198, 51, 100, 7)),
	RESPONSE("two AAAA answers, RD clear echoed", Q_ALLOWED_AAAA,
		 JR_DNS_RCODE_NOERROR, mixed, ARRAY_SIZE(mixed), 60, 512,
		 HDR(0x1234, 0x80, 0x80, 1, 2, 0, 0), N_ALLOWED, T_AAAA, C_IN,
		 RR_AAAA_60(1), RR_AAAA_60(2)),
	RESPONSE("NODATA for MX", BYTES(QHDR(0), N_ALLOWED, T_MX, C_IN),
		 JR_DNS_RCODE_NOERROR, NULL, 0, 300, 512,
		 HDR(0x1234, 0x81, 0x80, 1, 0, 0, 0), N_ALLOWED, T_MX, C_IN),
	RESPONSE("NODATA for MX even if given addresses",
		 BYTES(QHDR(0), N_ALLOWED, T_MX, C_IN), JR_DNS_RCODE_NOERROR,
		 mixed, ARRAY_SIZE(mixed), 300, 512,
		 HDR(0x1234, 0x81, 0x80, 1, 0, 0, 0), N_ALLOWED, T_MX, C_IN),
	RESPONSE("NODATA for MX with an AF_UNSPEC entry",
		 BYTES(QHDR(0), N_ALLOWED, T_MX, C_IN), JR_DNS_RCODE_NOERROR,
		 unspec, ARRAY_SIZE(unspec), 300, 512,
		 HDR(0x1234, 0x81, 0x80, 1, 0, 0, 0), N_ALLOWED, T_MX, C_IN),
	RESPONSE("NODATA for A with an AF_UNSPEC entry", Q_ALLOWED_A,
		 JR_DNS_RCODE_NOERROR, unspec, ARRAY_SIZE(unspec), 300, 512,
		 HDR(0x1234, 0x81, 0x80, 1, 0, 0, 0), N_ALLOWED, T_A, C_IN),
	RESPONSE("NODATA for AAAA with only IPv4 addresses", Q_ALLOWED_AAAA,
		 JR_DNS_RCODE_NOERROR, only_v4, ARRAY_SIZE(only_v4), 300, 512,
		 HDR(0x1234, 0x80, 0x80, 1, 0, 0, 0), N_ALLOWED, T_AAAA, C_IN),
	RESPONSE("NODATA for class CH", BYTES(QHDR(0), N_ALLOWED, T_A, C_CH),
		 JR_DNS_RCODE_NOERROR, mixed, ARRAY_SIZE(mixed), 300, 512,
		 HDR(0x1234, 0x81, 0x80, 1, 0, 0, 0), N_ALLOWED, T_A, C_CH),
	RESPONSE("question echoed in its original case",
		 BYTES(QHDR(0), N_ALLOWED_MIXED, T_A, C_IN),
		 JR_DNS_RCODE_NOERROR, only_v4, 1, 300, 512,
		 HDR(0x1234, 0x81, 0x80, 1, 1, 0, 0), N_ALLOWED_MIXED, T_A,
		 C_IN, RR_A_300(192, 0, 2, 1)),
	RESPONSE("EDNS query answered without OPT", Q_ALLOWED_A_EDNS,
		 JR_DNS_RCODE_NOERROR, only_v4, 1, 300, 512,
		 HDR(0x1234, 0x81, 0x80, 1, 1, 0, 0), N_ALLOWED, T_A, C_IN,
		 RR_A_300(192, 0, 2, 1)),
	RESPONSE("root name, pointer to its single zero byte",
		 BYTES(QHDR(0), 0x00, T_A, C_IN), JR_DNS_RCODE_NOERROR, only_v4,
		 1, 300, 512, HDR(0x1234, 0x81, 0x80, 1, 1, 0, 0), 0x00, T_A,
		 C_IN, RR_A_300(192, 0, 2, 1)),
	RESPONSE("SERVFAIL with the question", Q_ALLOWED_A,
		 JR_DNS_RCODE_SERVFAIL, NULL, 0, 300, 512,
		 HDR(0x1234, 0x81, 0x82, 1, 0, 0, 0), N_ALLOWED, T_A, C_IN),
	RESPONSE("REFUSED with the question", Q_ALLOWED_A, JR_DNS_RCODE_REFUSED,
		 NULL, 0, 300, 512, HDR(0x1234, 0x81, 0x85, 1, 0, 0, 0),
		 N_ALLOWED, T_A, C_IN),
	RESPONSE("TTL 2^32-1 clamped to 2^31-1 (RFC 2181 8)", Q_ALLOWED_A,
		 JR_DNS_RCODE_NOERROR, only_v4, 1, 0xffffffff, 512,
		 HDR(0x1234, 0x81, 0x80, 1, 1, 0, 0), N_ALLOWED, T_A, C_IN,
		 0xc0, 0x0c, T_A, C_IN, 0x7f, 0xff, 0xff, 0xff, 0x00, 0x04, 192,
		 0, 2, 1),
	RESPONSE("TTL 2^31 clamped", Q_ALLOWED_A, JR_DNS_RCODE_NOERROR, only_v4,
		 1, 0x80000000, 512, HDR(0x1234, 0x81, 0x80, 1, 1, 0, 0),
		 N_ALLOWED, T_A, C_IN, 0xc0, 0x0c, T_A, C_IN, 0x7f, 0xff, 0xff,
		 0xff, 0x00, 0x04, 192, 0, 2, 1),
	RESPONSE("TTL 2^31-1 kept", Q_ALLOWED_A, JR_DNS_RCODE_NOERROR, only_v4,
		 1, 0x7fffffff, 512, HDR(0x1234, 0x81, 0x80, 1, 1, 0, 0),
		 N_ALLOWED, T_A, C_IN, 0xc0, 0x0c, T_A, C_IN, 0x7f, 0xff, 0xff,
		 0xff, 0x00, 0x04, 192, 0, 2, 1),
	RESPONSE("TTL 0", Q_ALLOWED_A, JR_DNS_RCODE_NOERROR, only_v4, 1, 0, 512,
		 HDR(0x1234, 0x81, 0x80, 1, 1, 0, 0), N_ALLOWED, T_A, C_IN,
		 0xc0, 0x0c, T_A, C_IN, 0x00, 0x00, 0x00, 0x00, 0x00, 0x04, 192,
		 0, 2, 1),
	RESPONSE("one of two A answers fits: TC", Q_ALLOWED_A,
		 JR_DNS_RCODE_NOERROR, mixed, ARRAY_SIZE(mixed), 300,
		 12 + 18 + 16 + 15, HDR(0x1234, 0x83, 0x80, 1, 1, 0, 0),
		 N_ALLOWED, T_A, C_IN, RR_A_300(192, 0, 2, 1)),
	RESPONSE("no answer fits: TC, ANCOUNT 0", Q_ALLOWED_A,
		 JR_DNS_RCODE_NOERROR, mixed, ARRAY_SIZE(mixed), 300, 12 + 18,
		 HDR(0x1234, 0x83, 0x80, 1, 0, 0, 0), N_ALLOWED, T_A, C_IN),
	RESPONSE("exact fit: no TC", Q_ALLOWED_AAAA, JR_DNS_RCODE_NOERROR,
		 mixed, ARRAY_SIZE(mixed), 60, 12 + 18 + 2 * 28,
		 HDR(0x1234, 0x80, 0x80, 1, 2, 0, 0), N_ALLOWED, T_AAAA, C_IN,
		 RR_AAAA_60(1), RR_AAAA_60(2)),
	RESPONSE("NXDOMAIN exactly fits, no TC",
		 BYTES(QHDR(0), N_SECRET, T_A, C_IN), JR_DNS_RCODE_NXDOMAIN,
		 NULL, 0, 300, 12 + 21, HDR(0x1234, 0x81, 0x83, 1, 0, 0, 0),
		 N_SECRET, T_A, C_IN),
	RESPONSE_ERR("question does not fit", Q_ALLOWED_A, JR_DNS_RCODE_NOERROR,
		     only_v4, 1, 300, 12 + 17, -ENOSPC),
	RESPONSE_ERR("header does not fit", Q_ALLOWED_A, JR_DNS_RCODE_NOERROR,
		     only_v4, 1, 300, 11, -ENOSPC),
	RESPONSE_ERR("no room at all", Q_ALLOWED_A, JR_DNS_RCODE_NXDOMAIN, NULL,
		     0, 300, 0, -ENOSPC),
	RESPONSE_ERR("RCODE 16", Q_ALLOWED_A, 16, NULL, 0, 300, 512, -EINVAL),
	RESPONSE_ERR("RCODE -1", Q_ALLOWED_A, -1, NULL, 0, 300, 512, -EINVAL),
};

static void parse_or_fail(const struct bytes *m, struct jr_dns_query *q)
{
	int ret = jr_dns_parse_query(m->p, m->len, q);

	if (ret)
		fail_msg("query does not parse: %d", ret);
}

/*
 * Build the response @v describes into a buffer of @out_size bytes plus a
 * guard; check the length against @want, the bytes against @expect, and
 * that nothing after the message was written.
 */
static void check_response(const struct response_vec *v, size_t out_size,
			   long want, const uint8_t *expect)
{
	struct jr_dns_query q;
	uint8_t *out = malloc(out_size + GUARD);
	long ret;

	assert_non_null(out);
	memset(out, FILL, out_size + GUARD);
	parse_or_fail(&v->query, &q);
	ret = jr_dns_build_response(&q, v->rcode, v->addrs, v->n_addrs, v->ttl,
				    out, out_size);
	if (ret != want)
		fail_msg("%s, %zu bytes: returned %ld, want %ld", v->what,
			 out_size, ret, want);
	if (ret >= 0 && memcmp(out, expect, (size_t)ret))
		fail_msg("%s, %zu bytes: wrong bytes", v->what, out_size);
	/* Nothing after the message, not even within @out_size. */
	assert_untouched(out + (ret > 0 ? ret : 0),
			 out_size + GUARD - (size_t)(ret > 0 ? ret : 0));
	free(out);
}

static void test_response_vectors(void **state)
{
	for (size_t i = 0; i < ARRAY_SIZE(response_vectors); i++) {
		const struct response_vec *v = &response_vectors[i];

		check_response(v, v->out_size, v->ret, v->expect.p);
	}
}

/*
 * The vectors that fit in full, answered into every smaller buffer: the
 * answers that fit are the first ones, whole; TC is set exactly when one is
 * missing; below header plus question it is -ENOSPC with nothing written.
 */
static void test_response_every_size(void **state)
{
	for (size_t i = 0; i < ARRAY_SIZE(response_vectors); i++) {
		const struct response_vec *v = &response_vectors[i];
		size_t fixed, rr_len = 0, n_answers;
		struct jr_dns_query q;
		uint8_t expect[512];

		if (v->ret < 0 || v->expect.p[2] & 0x02)
			continue;
		parse_or_fail(&v->query, &q);
		fixed = 12 + q.question_len;
		n_answers = v->expect.p[7];
		if (n_answers)
			rr_len = ((size_t)v->ret - fixed) / n_answers;
		for (size_t size = 0; size <= (size_t)v->ret + 40; size++) {
			size_t fit = 0, len;

			if (size < fixed) {
				check_response(v, size, -ENOSPC, NULL);
				continue;
			}
			if (n_answers)
				fit = (size - fixed) / rr_len;
			if (fit > n_answers)
				fit = n_answers;
			len = fixed + fit * rr_len;
			memcpy(expect, v->expect.p, len);
			if (fit < n_answers)
				expect[2] |= 0x02;
			expect[7] = (uint8_t)fit;
			check_response(v, size, (long)len, expect);
		}
	}
}

/* A DNS message is at most 65535 bytes (RFC 1035 4.2.2), whatever the buffer. */
static void test_response_tcp_max(void **state)
{
	const size_t n = 5000, out_size = 100000;
	const size_t fit = (JR_DNS_TCP_MAX - 12 - 18) / 16;
	struct jr_dns_addr *addrs = calloc(n, sizeof(*addrs));
	uint8_t *out = malloc(out_size);
	struct jr_dns_query q;
	long ret;

	assert_non_null(addrs);
	assert_non_null(out);
	for (size_t i = 0; i < n; i++) {
		addrs[i].family = AF_INET;
		memcpy(addrs[i].addr, (uint8_t[]){ 10, 0, i >> 8, i & 0xff },
		       4);
	}
	memset(out, FILL, out_size);
	parse_or_fail(&q_allowed_a, &q);
	ret = jr_dns_build_response(&q, JR_DNS_RCODE_NOERROR, addrs, n, 1, out,
				    out_size);
	assert_int_equal(ret, 12 + 18 + fit * 16);
	assert_true(ret <= JR_DNS_TCP_MAX);
	assert_int_equal(out[2], 0x83); /* TC */
	assert_int_equal(out[6] << 8 | out[7], fit);
	/* The last answer is addrs[fit - 1]. */
	assert_memory_equal(out + ret - 4, addrs[fit - 1].addr, 4);
	assert_untouched(out + ret, out_size - (size_t)ret);
	free(addrs);
	free(out);
}

/* The relay may answer in the buffer it received the query in. */
static void test_response_in_place(void **state)
{
	const struct response_vec *v = &response_vectors[1]; /* two A */
	uint8_t buf[512];
	struct jr_dns_query q;
	long ret;

	assert_string_equal(v->what, "two A answers out of mixed families");
	/* The EDNS query: its OPT record is where the answers go. */
	memcpy(buf, q_allowed_a_edns.p, q_allowed_a_edns.len);
	assert_int_equal(jr_dns_parse_query(buf, q_allowed_a_edns.len, &q), 0);
	ret = jr_dns_build_response(&q, JR_DNS_RCODE_NOERROR, mixed,
				    ARRAY_SIZE(mixed), 300, buf, sizeof(buf));
	assert_int_equal(ret, v->ret);
	assert_memory_equal(buf, v->expect.p, (size_t)ret);
}

/* --- error responses ----------------------------------------------------- */

struct error_vec {
	const char *what;
	struct bytes msg;
	int rcode;
	size_t out_size;
	long ret;
	struct bytes expect;
};

static const struct error_vec error_vectors[] = {
	{ "NOTIMP to NOTIFY: OPCODE echoed, AA not",
	  BYTES(HDR(0xbeef, 0x24, 0x00, 1, 0, 0, 0), N_ALLOWED, 0x00, 0x06,
		C_IN),
	  JR_DNS_RCODE_NOTIMP, 512, 12,
	  BYTES(HDR(0xbeef, 0xa0, 0x84, 0, 0, 0, 0)) },
	{ "NOTIMP to OPCODE 15 with RD and TC",
	  BYTES(HDR(0x0001, 0x7b, 0x00, 0, 0, 0, 0)), JR_DNS_RCODE_NOTIMP, 12,
	  12, BYTES(HDR(0x0001, 0xf9, 0x84, 0, 0, 0, 0)) },
	{ "SERVFAIL to a query with RD",
	  BYTES(QHDR(1), N_ALLOWED, T_A, C_IN, OPT_COOKIE),
	  JR_DNS_RCODE_SERVFAIL, 512, 12,
	  BYTES(HDR(0x1234, 0x81, 0x82, 0, 0, 0, 0)) },
	{ "FORMERR to a bare header with absurd counts and RCODE",
	  BYTES(HDR(0x1234, 0x00, 0x0f, 65535, 65535, 65535, 65535)),
	  JR_DNS_RCODE_FORMERR, 512, 12,
	  BYTES(HDR(0x1234, 0x80, 0x81, 0, 0, 0, 0)) },
	{ "11 bytes are no header",
	  BYTES(0x12, 0x34, 0x00, 0x00, 0x00, 0x01, 0x00, 0x00, 0x00, 0x00,
		0x00),
	  JR_DNS_RCODE_FORMERR, 512, -EBADMSG, BYTES(0) },
	{ "never answer a response",
	  BYTES(HDR(0x1234, 0x81, 0x80, 1, 0, 0, 0), N_ALLOWED, T_A, C_IN),
	  JR_DNS_RCODE_FORMERR, 512, -EBADMSG, BYTES(0) },
	{ "11 bytes of room", BYTES(QHDR(0), N_ALLOWED, T_A, C_IN),
	  JR_DNS_RCODE_SERVFAIL, 11, -ENOSPC, BYTES(0) },
	{ "RCODE 16", BYTES(QHDR(0), N_ALLOWED, T_A, C_IN), 16, 512, -EINVAL,
	  BYTES(0) },
	{ "RCODE -1", BYTES(QHDR(0), N_ALLOWED, T_A, C_IN), -1, 512, -EINVAL,
	  BYTES(0) },
};

static void test_error_vectors(void **state)
{
	for (size_t i = 0; i < ARRAY_SIZE(error_vectors); i++) {
		const struct error_vec *v = &error_vectors[i];
		uint8_t out[512 + GUARD];
		long ret;

		memset(out, FILL, sizeof(out));
		ret = jr_dns_build_error(v->msg.p, v->msg.len, v->rcode, out,
					 v->out_size);
		if (ret != v->ret)
			fail_msg("%s: returned %ld, want %ld", v->what, ret,
				 v->ret);
		if (ret > 0 && (v->expect.len != (size_t)ret ||
				memcmp(out, v->expect.p, (size_t)ret)))
			fail_msg("%s: wrong bytes", v->what);
		assert_untouched(out + (ret > 0 ? ret : 0),
				 sizeof(out) - (size_t)(ret > 0 ? ret : 0));
	}
}

static void test_error_in_place(void **state)
{
	const struct error_vec *v = &error_vectors[0]; /* NOTIMP to NOTIFY */
	uint8_t buf[64];

	memcpy(buf, v->msg.p, v->msg.len);
	assert_int_equal(
	    jr_dns_build_error(buf, v->msg.len, v->rcode, buf, sizeof(buf)),
	    12);
	assert_memory_equal(buf, v->expect.p, 12);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_parse_ok),
		cmocka_unit_test(test_parse_bad),
		cmocka_unit_test(test_parse_every_prefix),
		cmocka_unit_test(test_parse_header_flags),
		cmocka_unit_test(test_parse_label_bytes),
		cmocka_unit_test(test_parse_name_limits),
		cmocka_unit_test(test_response_vectors),
		cmocka_unit_test(test_response_every_size),
		cmocka_unit_test(test_response_tcp_max),
		cmocka_unit_test(test_response_in_place),
		cmocka_unit_test(test_error_vectors),
		cmocka_unit_test(test_error_in_place),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
