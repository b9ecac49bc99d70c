// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * libFuzzer target for dns.c: the input is one query as it arrives from
 * the sandbox. Parse it; if it parses, check what the parser promises and
 * answer it into buffers whose sizes come from the input, checking what
 * the builder promises; build an error response to it either way. Every
 * buffer is allocated at its exact size so that ASan sees one byte too far.
 *
 *   clang -g -O1 -fsanitize=fuzzer,address,undefined -Isrc src/lib/err.c \
 *	src/relay/dns.c tests/fuzz/fuzz_dns.c -o fuzz_dns
 *   ./fuzz_dns tests/fuzz/corpus/dns
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>

#include "cleanup.h"
#include "dns.h"
#include "fuzz.h"

#define CHECK(cond)                                                            \
	do {                                                                   \
		if (!(cond))                                                   \
			abort();                                               \
	} while (0)

static const struct jr_dns_addr addrs[] = {
	{ AF_INET, { 192, 0, 2, 1 } },
	{ AF_INET6, { 0x20, 0x01, 0x0d, 0xb8, [15] = 1 } },
	{ AF_UNSPEC, { 0 } },
	{ AF_INET, { 198, 51, 100, 7 } },
	{ AF_INET6, { 0x20, 0x01, 0x0d, 0xb8, [15] = 2 } },
	{ AF_INET, { 203, 0, 113, 9 } },
};

static uint16_t get16(const uint8_t *p)
{
	return (uint16_t)(p[0] << 8 | p[1]);
}

/* What jr_dns_parse_query() promises about a query it accepted. */
static void check_query(const uint8_t *data, size_t size,
			const struct jr_dns_query *q)
{
	size_t n = strnlen(q->name, sizeof(q->name)), t = 0;
	const uint8_t *w = data + 12, *tail;

	CHECK(n <= 253);
	CHECK(!(data[2] & 0xf8)); /* QR=0, OPCODE=0 */
	CHECK(get16(data + 4) == 1 && get16(data + 6) == 0 &&
	      get16(data + 8) == 0);
	CHECK(q->id == get16(data) && q->rd == (data[2] & 1));
	CHECK(q->question == w && q->question_len <= size - 12);
	/* The name is the wire labels, printable, lowered, joined by dots. */
	for (; *w; w += 1 + *w) {
		CHECK(*w <= 63);
		if (t)
			CHECK(q->name[t++] == '.');
		for (size_t i = 1; i <= *w; i++) {
			uint8_t c = w[i];

			CHECK(c >= 0x21 && c <= 0x7e && c != '.');
			CHECK(q->name[t++] ==
			      (c >= 'A' && c <= 'Z' ? c - 'A' + 'a' : c));
		}
	}
	CHECK(t == n);
	tail = w + 1;
	CHECK(q->question_len == (size_t)(tail - q->question) + 4);
	CHECK(q->qtype == get16(tail) && q->qclass == get16(tail + 2));
}

/*
 * Answer @q into a buffer of exactly @out_size bytes and check the result
 * against what jr_dns_build_response() promises.
 */
static void check_response(const struct jr_dns_query *q, int rcode,
			   size_t n_addrs, uint32_t ttl, size_t out_size)
{
	_cleanup_free_ uint8_t *out = malloc(out_size ? out_size : 1);
	size_t fixed = 12 + q->question_len, rr_len, matching = 0, ancount;
	int family = AF_UNSPEC;
	uint8_t *rr;
	long ret;

	CHECK(out);
	if (rcode == JR_DNS_RCODE_NOERROR && q->qclass == JR_DNS_CLASS_IN)
		family = q->qtype == JR_DNS_TYPE_A	? AF_INET
			 : q->qtype == JR_DNS_TYPE_AAAA ? AF_INET6
							: AF_UNSPEC;
	rr_len = 12 + (family == AF_INET6 ? 16 : 4);
	for (size_t i = 0; family != AF_UNSPEC && i < n_addrs; i++)
		matching += addrs[i].family == family;

	ret =
	    jr_dns_build_response(q, rcode, addrs, n_addrs, ttl, out, out_size);
	if (rcode < 0 || rcode > 15) {
		CHECK(ret == -EINVAL);
		return;
	}
	if (out_size < fixed) {
		CHECK(ret == -ENOSPC);
		return;
	}
	CHECK(ret >= (long)fixed && (size_t)ret <= out_size);
	CHECK((size_t)ret <= JR_DNS_TCP_MAX);
	ancount = get16(out + 6);
	CHECK((size_t)ret == fixed + ancount * rr_len);
	CHECK(ancount <= matching);
	/* TC exactly when an answer is missing, and only for want of room. */
	CHECK(!!(out[2] & 0x02) == (ancount < matching));
	CHECK(ancount == matching || out_size - (size_t)ret < rr_len);
	CHECK(get16(out) == q->id);
	CHECK(out[2] == (0x80 | (ancount < matching ? 0x02 : 0) | q->rd));
	CHECK(out[3] == (0x80 | rcode));
	CHECK(get16(out + 4) == 1 && get16(out + 8) == 0 &&
	      get16(out + 10) == 0);
	CHECK(!memcmp(out + 12, q->question, q->question_len));
	rr = out + fixed;
	for (size_t i = 0, a = 0; i < ancount; i++, rr += rr_len, a++) {
		while (addrs[a].family != family)
			a++;
		CHECK(get16(rr) == 0xc00c && get16(rr + 2) == q->qtype &&
		      get16(rr + 4) == JR_DNS_CLASS_IN);
		CHECK(((uint32_t)get16(rr + 6) << 16 | get16(rr + 8)) ==
		      (ttl > 0x7fffffff ? 0x7fffffff : ttl));
		CHECK(get16(rr + 10) == rr_len - 12);
		CHECK(!memcmp(rr + 12, addrs[a].addr, rr_len - 12));
	}
}

/*
 * The relay may answer in the buffer it received the query in: the result
 * must be the same as into a separate buffer.
 */
static void check_in_place(const uint8_t *data, size_t size, size_t n_addrs)
{
	_cleanup_free_ uint8_t *buf = NULL;
	_cleanup_free_ uint8_t *apart = NULL;
	struct jr_dns_query q;
	long ret;

	if (size > JR_DNS_UDP_MAX)
		return;
	buf = malloc(JR_DNS_UDP_MAX);
	apart = malloc(JR_DNS_UDP_MAX);
	CHECK(buf && apart);
	memcpy(buf, data, size);
	CHECK(jr_dns_parse_query(buf, size, &q) == 0);
	ret = jr_dns_build_response(&q, JR_DNS_RCODE_NOERROR, addrs, n_addrs,
				    60, apart, JR_DNS_UDP_MAX);
	CHECK(jr_dns_build_response(&q, JR_DNS_RCODE_NOERROR, addrs, n_addrs,
				    60, buf, JR_DNS_UDP_MAX) == ret);
	CHECK(ret < 0 || !memcmp(buf, apart, (size_t)ret));
}

static void check_error(const uint8_t *data, size_t size, int rcode,
			size_t out_size)
{
	_cleanup_free_ uint8_t *out = malloc(out_size ? out_size : 1);
	long ret;

	CHECK(out);
	ret = jr_dns_build_error(data, size, rcode, out, out_size);
	if (rcode < 0 || rcode > 15)
		CHECK(ret == -EINVAL);
	else if (size < 12 || data[2] & 0x80)
		CHECK(ret == -EBADMSG);
	else if (out_size < 12)
		CHECK(ret == -ENOSPC);
	else
		CHECK(ret == 12 && get16(out) == get16(data) &&
		      out[2] == (0x80 | (data[2] & 0x79)) &&
		      out[3] == (0x80 | rcode) &&
		      !memcmp(out + 4, "\0\0\0\0\0\0\0\0", 8));
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	/* Knobs for the builders: the last two bytes of the input. */
	uint8_t k0 = size ? data[size - 1] : 0;
	uint8_t k1 = size > 1 ? data[size - 2] : 0;
	size_t n_addrs = k0 % (ARRAY_SIZE(addrs) + 1);
	int rcode = (k0 >> 3) - 2; /* -2..29: valid and invalid */
	uint32_t ttl = (uint32_t)k1 << 24 | k0;
	struct jr_dns_query q;
	int ret;

	ret = jr_dns_parse_query(data, size, &q);
	CHECK(ret == 0 || ret == -EBADMSG || ret == -EOPNOTSUPP);
	if (ret == -EOPNOTSUPP)
		CHECK(size >= 12 && !(data[2] & 0x80) && data[2] & 0x78);
	if (ret == 0) {
		check_query(data, size, &q);
		/* Around the header-plus-question edge, and the usual sizes. */
		check_response(&q, rcode, n_addrs, ttl,
			       12 + q.question_len + k1 % 80 - 8);
		check_response(&q, JR_DNS_RCODE_NOERROR, n_addrs, ttl, k1);
		check_response(&q, JR_DNS_RCODE_NOERROR, ARRAY_SIZE(addrs), ttl,
			       JR_DNS_UDP_MAX);
		check_response(&q, JR_DNS_RCODE_NXDOMAIN, n_addrs, ttl,
			       JR_DNS_UDP_MAX);
		check_in_place(data, size, n_addrs);
	}
	check_error(data, size, rcode, k1 % 16);
	return 0;
}
