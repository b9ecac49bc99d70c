// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * test_clienthello.c - the ClientHello SNI reader. The hellos are assembled here
 * from records, handshake header, fields and extensions, independently of
 * clienthello.c, and five real ones, captured from OpenSSL and curl on loopback,
 * are kept as bytes. Every stream is checked whole and on its prefixes,
 * each in a heap buffer of exactly that length (so ASan and valgrind see a
 * read past @len): NEED_MORE before the exact prefix length where the
 * verdict is due, the verdict from there on, the length hint of NEED_MORE
 * in range, and the name "" on anything but SNI_FOUND. A parser that
 * decides a byte early or late, takes a wrong name, miscounts @consumed or
 * accepts one broken length fails a vector.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "cleanup.h"
#include "clienthello.h"

/* The name buffer the tests pass: more than the 254 any name needs. */
#define SNI_BUF 300

/* Offsets in the stream hello_named() builds (one record). */
#define OFF_REC_VERSION 1
#define OFF_REC_LEN 3
#define OFF_HS_TYPE 5
#define OFF_HS_LEN 6
#define OFF_VERSION 9
#define OFF_SID_LEN 43
#define OFF_SUITES_LEN 76
#define OFF_COMP_LEN 84
#define OFF_EXTS_LEN 86
#define OFF_SNI_EXT 98 /* after supported_groups (4 + 6 bytes) */
#define OFF_SNI_LIST_LEN (OFF_SNI_EXT + 4)
#define OFF_NAME_TYPE (OFF_SNI_EXT + 6)
#define OFF_NAME_LEN (OFF_SNI_EXT + 7)
#define OFF_NAME (OFF_SNI_EXT + 9)

/* ------------------------------------------------------------ bytes */

struct wire {
	uint8_t *b;
	size_t n, cap;
};

static void wire_release(struct wire *w)
{
	free(w->b);
	w->b = NULL;
	w->n = w->cap = 0;
}

#define _cleanup_wire_ _cleanup_(wire_release)

static void put(struct wire *w, const void *p, size_t n)
{
	if (w->n + n > w->cap) {
		size_t cap = (w->n + n) * 2 + 64;
		uint8_t *nb = realloc(w->b, cap);

		assert_non_null(nb);
		w->b = nb;
		w->cap = cap;
	}
	if (n)
		memcpy(w->b + w->n, p, n);
	w->n += n;
}

static void put_u8(struct wire *w, unsigned v)
{
	uint8_t b = (uint8_t)v;

	put(w, &b, 1);
}

static void put_u16(struct wire *w, unsigned v)
{
	put_u8(w, v >> 8);
	put_u8(w, v);
}

static void put_u24(struct wire *w, unsigned v)
{
	put_u8(w, v >> 16);
	put_u16(w, v);
}

static void put_fill(struct wire *w, uint8_t v, size_t n)
{
	while (n--)
		put_u8(w, v);
}

static void put_str(struct wire *w, const char *s)
{
	put(w, s, strlen(s));
}

static void put_wire(struct wire *w, const struct wire *x)
{
	put(w, x->b, x->n);
}

/* "16 03 01": pairs of hex digits, spaces ignored. */
static void put_hex(struct wire *w, const char *hex)
{
	unsigned v;

	while (*hex) {
		if (*hex == ' ') {
			hex++;
			continue;
		}
		assert_int_equal(sscanf(hex, "%2x", &v), 1);
		put_u8(w, v);
		hex += 2;
	}
}

/* Overwrite bytes at @at with @hex. */
static void patch_hex(struct wire *w, size_t at, const char *hex)
{
	_cleanup_wire_ struct wire p = { 0 };

	put_hex(&p, hex);
	assert_true(at + p.n <= w->n);
	memcpy(w->b + at, p.b, p.n);
}

static unsigned get_u16(const struct wire *w, size_t at)
{
	return (unsigned)w->b[at] << 8 | w->b[at + 1];
}

static void set_u16(struct wire *w, size_t at, unsigned v)
{
	w->b[at] = (uint8_t)(v >> 8);
	w->b[at + 1] = (uint8_t)v;
}

/* ------------------------------------------------------- assembling */

/* legacy_version, random, a 32-byte legacy_session_id (TLS 1.3 style) */
static void put_head(struct wire *b, unsigned version)
{
	put_u16(b, version);
	put_fill(b, 0x11, 32);
	put_u8(b, 32);
	put_fill(b, 0x22, 32);
}

/* cipher_suites and legacy_compression_methods as a client sends them */
static void put_suites_comp(struct wire *b)
{
	put_u16(b, 6);
	put_hex(b, "13 01 13 02 c0 2f");
	put_u8(b, 1);
	put_u8(b, 0);
}

static void put_ext_hex(struct wire *e, unsigned type, const char *hex)
{
	_cleanup_wire_ struct wire d = { 0 };

	put_hex(&d, hex);
	put_u16(e, type);
	put_u16(e, (unsigned)d.n);
	put_wire(e, &d);
}

/* server_name (RFC 6066 3) with one host_name of @n bytes */
static void put_ext_sni(struct wire *e, const void *name, size_t n)
{
	put_u16(e, 0);
	put_u16(e, (unsigned)n + 5);
	put_u16(e, (unsigned)n + 3);
	put_u8(e, 0);
	put_u16(e, (unsigned)n);
	put(e, name, n);
}

static void put_groups(struct wire *e)
{
	put_ext_hex(e, 0x000a, "00 04 00 1d 00 17"); /* supported_groups */
}

/* what clients send after server_name: sigalgs, versions, EMS (empty) */
static void put_exts_more(struct wire *e)
{
	put_ext_hex(e, 0x000d, "00 04 04 03 08 04");
	put_ext_hex(e, 0x002b, "04 03 04 03 03");
	put_ext_hex(e, 0x0017, "");
}

/* a ClientHello body; @exts is the extensions block, NULL for none */
static void put_body(struct wire *b, const struct wire *exts)
{
	put_head(b, 0x0303);
	put_suites_comp(b);
	if (exts) {
		put_u16(b, (unsigned)exts->n);
		put_wire(b, exts);
	}
}

static void put_handshake(struct wire *h, unsigned type,
			  const struct wire *body)
{
	put_u8(h, type);
	put_u24(h, (unsigned)body->n);
	put_wire(h, body);
}

static void put_record(struct wire *w, unsigned type, unsigned version,
		       const void *p, size_t n)
{
	put_u8(w, type);
	put_u16(w, version);
	put_u16(w, (unsigned)n);
	put(w, p, n);
}

/*
 * @hs in handshake records: the first ones of @sizes bytes (a size of 0
 * ends the list), the rest in records of at most 2^14.
 */
static void put_records(struct wire *w, const struct wire *hs,
			const size_t *sizes)
{
	size_t off = 0, n;

	for (; sizes && *sizes && off < hs->n; sizes++, off += n) {
		n = *sizes < hs->n - off ? *sizes : hs->n - off;
		put_record(w, 22, 0x0301, hs->b + off, n);
	}
	for (; off < hs->n; off += n) {
		n = hs->n - off < 16384 ? hs->n - off : 16384;
		put_record(w, 22, 0x0301, hs->b + off, n);
	}
}

/* The ClientHello handshake message with the extensions block @exts. */
static void hs_with_exts(struct wire *hs, const struct wire *exts)
{
	_cleanup_wire_ struct wire body = { 0 };

	put_body(&body, exts);
	put_handshake(hs, 1, &body);
}

/* ... naming @name (@n bytes) between supported_groups and sigalgs. */
static void hs_named(struct wire *hs, const void *name, size_t n)
{
	_cleanup_wire_ struct wire e = { 0 };

	put_groups(&e);
	put_ext_sni(&e, name, n);
	put_exts_more(&e);
	hs_with_exts(hs, &e);
}

/* The whole stream: that hello in one record. */
static void hello_named_n(struct wire *w, const void *name, size_t n)
{
	_cleanup_wire_ struct wire hs = { 0 };

	hs_named(&hs, name, n);
	put_records(w, &hs, NULL);
}

static void hello_named(struct wire *w, const char *name)
{
	hello_named_n(w, name, strlen(name));
}

static void hello_with_exts(struct wire *w, const struct wire *exts)
{
	_cleanup_wire_ struct wire hs = { 0 };

	hs_with_exts(&hs, exts);
	put_records(w, &hs, NULL);
}

/* ------------------------------------------------------------ check */

/* One call on an exact-size heap copy of the first @len bytes. */
static enum jr_tls_sni call(const uint8_t *buf, size_t len, char *sni,
			    size_t sni_size, size_t *consumed)
{
	uint8_t *copy = malloc(len ? len : 1);
	enum jr_tls_sni r;

	assert_non_null(copy);
	if (len)
		memcpy(copy, buf, len);
	memset(sni, 'X', SNI_BUF);
	if (consumed)
		*consumed = 12345;
	r = jr_tls_client_hello_sni(copy, len, sni, sni_size, consumed);
	free(copy);
	return r;
}

static bool complete(enum jr_tls_sni v)
{
	return v == JR_TLS_SNI_FOUND || v == JR_TLS_NO_SNI;
}

/* Prefix lengths to try: all of them for short streams. */
static bool worth_trying(size_t k, size_t n, size_t decided)
{
	if (n <= 4096)
		return true;
	return k < 300 || k % 97 == 0 || k + 8 >= n ||
	       (k + 8 >= decided && k <= decided + 8) ||
	       (k + 8 >= JR_TLS_HELLO_MAX && k <= JR_TLS_HELLO_MAX + 8) ||
	       (k % 16389 <= 6 || k % 16389 >= 16383);
}

/*
 * check_stream - the verdict on @buf and on each of its prefixes.
 * @verdict/@want_sni: the answer for the whole stream
 * @decided: the shortest prefix that has the verdict, for NOT_TLS and
 *           MALFORMED; for SNI_FOUND and NO_SNI it is the hello's length,
 *           which is also @consumed: @n - @trailing
 */
static void check_stream(const char *what, const uint8_t *buf, size_t n,
			 enum jr_tls_sni verdict, const char *want_sni,
			 size_t decided, size_t trailing)
{
	char sni[SNI_BUF];
	size_t used, k;
	enum jr_tls_sni r;

	if (complete(verdict))
		decided = n - trailing;
	assert_true(decided <= n);
	for (k = 0; k <= n; k++) {
		if (!worth_trying(k, n, decided))
			continue;
		r = call(buf, k, sni, SNI_BUF, &used);
		if (k < decided) {
			if (r != JR_TLS_NEED_MORE)
				fail_msg(
				    "%s: %zu of %zu bytes: verdict %d, want NEED_MORE until %zu",
				    what, k, n, r, decided);
			if (used <= k || used > JR_TLS_HELLO_MAX)
				fail_msg("%s: %zu bytes: hint %zu", what, k,
					 used);
			if (complete(verdict) && used > decided)
				fail_msg(
				    "%s: %zu bytes: hint %zu past the hello's end %zu",
				    what, k, used, decided);
			if (verdict == JR_TLS_NOT_TLS && used != k + 1)
				fail_msg(
				    "%s: %zu bytes: hint %zu delays NOT_TLS",
				    what, k, used);
			if (sni[0])
				fail_msg(
				    "%s: %zu bytes: name '%.20s' on NEED_MORE",
				    what, k, sni);
			continue;
		}
		if (r != verdict)
			fail_msg(
			    "%s: %zu of %zu bytes: verdict %d, want %d from %zu bytes on",
			    what, k, n, r, verdict, decided);
		if (verdict == JR_TLS_SNI_FOUND) {
			if (strcmp(sni, want_sni))
				fail_msg("%s: name '%s', want '%s'", what, sni,
					 want_sni);
		} else if (sni[0]) {
			fail_msg("%s: name '%.20s' with verdict %d", what, sni,
				 r);
		}
		if (used != (complete(verdict) ? n - trailing : 0))
			fail_msg("%s: %zu bytes: consumed %zu", what, k, used);
	}
	/* @consumed may be NULL */
	r = call(buf, n, sni, SNI_BUF, NULL);
	if (r != verdict)
		fail_msg("%s: verdict %d without @consumed", what, r);
}

/* ---------------------------------------------------------- vectors */

/* b_std: 5 + 4 + 77 fixed + 2 + 54 of extensions */
#define STD_LEN 142

/*
 * The smallest ClientHello, 41 bytes of body: no session id, one cipher
 * suite, one compression method, no extensions. @cut drops the last byte.
 */
static void b_smallest(struct wire *w, bool cut)
{
	_cleanup_wire_ struct wire body = { 0 }, hs = { 0 };

	put_u16(&body, 0x0303);
	put_fill(&body, 0x11, 32);
	put_hex(&body, "00 00 02 13 01 01 00");
	assert_int_equal(body.n, 41);
	body.n -= cut;
	put_handshake(&hs, 1, &body);
	put_records(w, &hs, NULL);
}

static void b_smallest_hello(struct wire *w)
{
	b_smallest(w, false);
}

static void b_hello_of_40(struct wire *w)
{
	b_smallest(w, true);
}

static void b_std(struct wire *w)
{
	hello_named(w, "allowed.test");
}

static void b_sni_only(struct wire *w)
{
	_cleanup_wire_ struct wire e = { 0 };

	put_ext_sni(&e, "allowed.test", 12);
	hello_with_exts(w, &e);
}

static void b_sni_first(struct wire *w)
{
	_cleanup_wire_ struct wire e = { 0 };

	put_ext_sni(&e, "allowed.test", 12);
	put_groups(&e);
	put_exts_more(&e);
	hello_with_exts(w, &e);
}

static void b_sni_last(struct wire *w)
{
	_cleanup_wire_ struct wire e = { 0 };

	put_groups(&e);
	put_exts_more(&e);
	put_ext_sni(&e, "allowed.test", 12);
	hello_with_exts(w, &e);
}

static void b_no_sid(struct wire *w)
{
	_cleanup_wire_ struct wire e = { 0 }, body = { 0 }, hs = { 0 };

	put_ext_sni(&e, "allowed.test", 12);
	put_u16(&body, 0x0303);
	put_fill(&body, 0x11, 32);
	put_u8(&body, 0);
	put_suites_comp(&body);
	put_u16(&body, (unsigned)e.n);
	put_wire(&body, &e);
	put_handshake(&hs, 1, &body);
	put_records(w, &hs, NULL);
}

/* TLS 1.3 middlebox compatibility CCS and early data after the hello */
static void b_trailing(struct wire *w)
{
	hello_named(w, "allowed.test");
	put_hex(w, "14 03 03 00 01 01");
	put_hex(w, "17 03 03 00 05 01 02 03 04 05");
}

static void b_split(struct wire *w, const size_t *sizes)
{
	_cleanup_wire_ struct wire hs = { 0 };

	hs_named(&hs, "allowed.test", 12);
	put_records(w, &hs, sizes);
}

static void b_two_records(struct wire *w)
{
	static const size_t sizes[] = { 4, 0 }; /* the handshake header */

	b_split(w, sizes);
}

/* the name is at handshake offset 102..113: cut it after 3 bytes */
static void b_three_records(struct wire *w)
{
	static const size_t sizes[] = { 1, 104, 0 };

	b_split(w, sizes);
}

static void b_one_byte_records(struct wire *w)
{
	static const size_t sizes[] = {
		1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1,
		1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1,
		1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1,
		1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1,
		1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1,
		1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1,
		1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1,
		1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1,
		1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1,
		1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 0
	};
	_cleanup_wire_ struct wire hs = { 0 };

	hs_named(&hs, "allowed.test", 12);
	assert_true(hs.n < ARRAY_SIZE(sizes)); /* every byte its record */
	put_records(w, &hs, sizes);
}

static void b_no_sni(struct wire *w)
{
	_cleanup_wire_ struct wire e = { 0 };

	put_groups(&e);
	put_exts_more(&e);
	hello_with_exts(w, &e);
}

static void b_no_ext_block(struct wire *w)
{
	_cleanup_wire_ struct wire hs = { 0 };

	hs_with_exts(&hs, NULL);
	put_records(w, &hs, NULL);
}

static void b_empty_ext_block(struct wire *w)
{
	_cleanup_wire_ struct wire e = { 0 };

	hello_with_exts(w, &e);
}

static void b_http(struct wire *w)
{
	put_str(w, "GET / HTTP/1.1\r\nHost: allowed.test\r\n\r\n");
}

static void b_ssh(struct wire *w)
{
	put_str(w, "SSH-2.0-OpenSSH_9.6p1 Ubuntu-3ubuntu13\r\n");
}

static void b_16_00(struct wire *w)
{
	put_hex(w, "16 00 01 00 05 01 02 03 04 05");
}

static void b_16_01(struct wire *w)
{
	put_hex(w, "16 01 00 00");
}

static void b_alert_not_3(struct wire *w)
{
	put_hex(w, "15 15 15 15");
}

static void b_ssl2_other_msg(struct wire *w)
{
	put_hex(w, "80 2e 02 03 01 00 15");
}

static void b_ssl2_version_2x(struct wire *w)
{
	put_hex(w, "80 2e 01 02 03 00 15");
}

static void b_ssl2_version_0003(struct wire *w)
{
	put_hex(w, "80 2e 01 00 03 00 15");
}

static void b_telnet(struct wire *w)
{
	put_hex(w, "ff fb 01 ff fb 03 ff fd 18");
}

static void b_nul(struct wire *w)
{
	put_hex(w, "00 00 00 00 00 00");
}

/* RFC 5246 E.2, as old OpenSSL sent it: 3 suites, 16-byte challenge */
static void b_ssl2_hello(struct wire *w)
{
	put_hex(w, "80 1a 01 03 01 00 09 00 00 00 10"
		   "00 00 2f 00 00 35 00 00 0a"
		   "00 11 22 33 44 55 66 77 88 99 aa bb cc dd ee ff");
}

static void b_ssl2_pure(struct wire *w)
{
	put_hex(w, "80 1a 01 00 02 00 09 00 00 00 10"
		   "07 00 c0 05 00 80 03 00 80"
		   "00 11 22 33 44 55 66 77 88 99 aa bb cc dd ee ff");
}

static void b_alert_first(struct wire *w)
{
	put_hex(w, "15 03 01 00 02 01 5a"); /* warning, user_canceled */
	hello_named(w, "evil.test");
}

static void b_ccs_first(struct wire *w)
{
	put_hex(w, "14 03 03 00 01 01");
	hello_named(w, "evil.test");
}

static void b_appdata_first(struct wire *w)
{
	put_hex(w, "17 03 03 00 02 00 00");
	hello_named(w, "evil.test");
}

static void b_heartbeat_first(struct wire *w)
{
	put_hex(w, "18 03 03 00 03 01 00 00");
	hello_named(w, "evil.test");
}

/* the handshake length one short of the record: a byte after the hello */
static void b_hs_short(struct wire *w)
{
	b_std(w);
	w->b[OFF_HS_LEN + 2]--;
}

/* the record one byte longer than the hello, that byte after it */
static void b_record_extra(struct wire *w)
{
	b_std(w);
	set_u16(w, OFF_REC_LEN, get_u16(w, OFF_REC_LEN) + 1);
	put_u8(w, 1);
}

/* the extensions block length says one more or one less */
static void b_exts_long(struct wire *w)
{
	b_std(w);
	set_u16(w, OFF_EXTS_LEN, get_u16(w, OFF_EXTS_LEN) + 1);
}

static void b_exts_short(struct wire *w)
{
	b_std(w);
	set_u16(w, OFF_EXTS_LEN, get_u16(w, OFF_EXTS_LEN) - 1);
}

/* the message ends one byte after the compression methods */
static void b_stray_byte(struct wire *w)
{
	_cleanup_wire_ struct wire body = { 0 }, hs = { 0 };

	put_body(&body, NULL);
	put_u8(&body, 0);
	put_handshake(&hs, 1, &body);
	put_records(w, &hs, NULL);
}

/* 3 bytes left where an extension header needs 4 */
static void b_ext_header_cut(struct wire *w)
{
	_cleanup_wire_ struct wire e = { 0 };

	put_ext_sni(&e, "allowed.test", 12);
	put_hex(&e, "00 0a 00");
	hello_with_exts(w, &e);
}

/* the last extension claims a byte more than the block holds */
static void b_ext_past_block(struct wire *w)
{
	_cleanup_wire_ struct wire e = { 0 };

	put_ext_sni(&e, "allowed.test", 12);
	put_hex(&e, "00 0a 00 05 00 02 00 1d");
	hello_with_exts(w, &e);
}

static void b_dup_sni(struct wire *w)
{
	_cleanup_wire_ struct wire e = { 0 };

	put_ext_sni(&e, "allowed.test", 12);
	put_groups(&e);
	put_ext_sni(&e, "evil.test", 9);
	hello_with_exts(w, &e);
}

static void b_dup_groups(struct wire *w)
{
	_cleanup_wire_ struct wire e = { 0 };

	put_groups(&e);
	put_ext_sni(&e, "allowed.test", 12);
	put_groups(&e);
	hello_with_exts(w, &e);
}

static void b_sni_empty(struct wire *w)
{
	_cleanup_wire_ struct wire e = { 0 };

	put_groups(&e);
	put_hex(&e, "00 00 00 00");
	put_exts_more(&e);
	hello_with_exts(w, &e);
}

/* two entries, consistent lengths: host_name "allowed.test", then @type */
static void b_two_entries(struct wire *w, unsigned type)
{
	_cleanup_wire_ struct wire e = { 0 };

	put_groups(&e);
	put_u16(&e, 0);
	put_u16(&e, 2 + 15 + 12);
	put_u16(&e, 15 + 12);
	put_u8(&e, 0);
	put_u16(&e, 12);
	put_str(&e, "allowed.test");
	put_u8(&e, type);
	put_u16(&e, 9);
	put_str(&e, "evil.test");
	put_exts_more(&e);
	hello_with_exts(w, &e);
}

static void b_two_host_names(struct wire *w)
{
	b_two_entries(w, 0);
}

static void b_host_name_and_type1(struct wire *w)
{
	b_two_entries(w, 1);
}

/* the hello in records of 50 bytes and the rest; @second replaces the
 * second record's header */
static void b_second_record(struct wire *w, const char *second)
{
	static const size_t sizes[] = { 50, 0 };

	b_split(w, sizes);
	patch_hex(w, 5 + 50, second);
}

static void b_alert_inside(struct wire *w)
{
	b_second_record(w, "15 03 03");
}

static void b_ccs_inside(struct wire *w)
{
	b_second_record(w, "14");
}

static void b_appdata_inside(struct wire *w)
{
	b_second_record(w, "17");
}

static void b_second_v0300(struct wire *w)
{
	b_second_record(w, "16 03 00");
}

static void b_second_v0203(struct wire *w)
{
	b_second_record(w, "16 02 03");
}

static void b_second_len0(struct wire *w)
{
	b_second_record(w, "16 03 01 00 00");
}

static void b_second_len_over(struct wire *w)
{
	b_second_record(w, "16 03 01 40 01");
}

/* the second record one byte longer than the rest of the message */
static void b_second_past_end(struct wire *w)
{
	b_split(w, (const size_t[]){ 50, 0 });
	set_u16(w, 5 + 50 + 3, get_u16(w, 5 + 50 + 3) + 1);
	put_u8(w, 0);
}

/*
 * The handshake message, the extensions block and its last extension
 * (extended_master_secret, empty) each one byte longer than the record
 * holds; application data follows instead of that byte.
 */
static void b_hs_long_then_appdata(struct wire *w)
{
	b_std(w);
	assert_int_equal(w->n, STD_LEN);
	w->b[OFF_HS_LEN + 2]++;
	set_u16(w, OFF_EXTS_LEN, get_u16(w, OFF_EXTS_LEN) + 1);
	assert_int_equal(get_u16(w, w->n - 4), 0x0017);
	set_u16(w, w->n - 2, 1);
	put_hex(w, "17 03 03 00 01 00");
}

/*
 * A hello whose records take @total bytes: four records, the first three
 * full, padded (RFC 7685 padding extension) to size.
 */
static void b_hello_total(struct wire *w, size_t total)
{
	_cleanup_wire_ struct wire e = { 0 }, hs = { 0 };
	size_t hs_total = total - 4 * 5, base;

	put_ext_sni(&e, "allowed.test", 12);
	hs_with_exts(&hs, &e);
	base = hs.n + 4; /* with an empty padding extension */
	assert_true(hs_total > base && hs_total > 3 * 16384);
	wire_release(&hs);
	put_u16(&e, 0x0015);
	put_u16(&e, (unsigned)(hs_total - base));
	put_fill(&e, 0, hs_total - base);
	hs_with_exts(&hs, &e);
	assert_int_equal(hs.n, hs_total);
	put_records(w, &hs, NULL);
	assert_int_equal(w->n, total);
}

static void b_hello_max(struct wire *w)
{
	b_hello_total(w, JR_TLS_HELLO_MAX);
}

static void b_hello_max_plus1(struct wire *w)
{
	b_hello_total(w, JR_TLS_HELLO_MAX + 1);
}

static void b_hs_len_huge(struct wire *w)
{
	b_std(w);
	patch_hex(w, OFF_HS_LEN, "ff ff ff");
}

/*
 * A padded hello of 11004 handshake bytes in one-byte records: 66024
 * bytes. Its handshake length looks small enough, but at 6 stream bytes
 * per handshake byte it cannot fit: refused at the record header where
 * the least possible total passes JR_TLS_HELLO_MAX, before that many bytes
 * are in. The records go on past the limit.
 */
static void b_one_byte_records_over(struct wire *w)
{
	_cleanup_wire_ struct wire e = { 0 }, hs = { 0 };
	size_t k, pad;

	put_ext_sni(&e, "allowed.test", 12);
	hs_with_exts(&hs, &e);
	pad = 11004 - hs.n - 4;
	wire_release(&hs);
	put_u16(&e, 0x0015);
	put_u16(&e, (unsigned)pad);
	put_fill(&e, 0, pad);
	hs_with_exts(&hs, &e);
	assert_int_equal(hs.n, 11004);
	for (k = 0; k < hs.n; k++)
		put_record(w, 22, 0x0301, hs.b + k, 1);
}

struct vector {
	const char *what;
	void (*build)(struct wire *w);
	size_t at; /* overwrite bytes at @at with @hex, unless NULL */
	const char *hex;
	enum jr_tls_sni verdict;
	const char *sni; /* SNI_FOUND: the name */
	size_t decided;	 /* NOT_TLS, MALFORMED: shortest prefix decided */
	size_t trailing; /* SNI_FOUND, NO_SNI: bytes after the hello */
};

#define FOUND(what, build, at, hex)                                            \
	{                                                                      \
		what, build, at, hex, JR_TLS_SNI_FOUND, "allowed.test", 0, 0   \
	}
#define NOSNI(what, build)                                                     \
	{                                                                      \
		what, build, 0, NULL, JR_TLS_NO_SNI, NULL, 0, 0                \
	}
#define NOTTLS(what, build, decided)                                           \
	{                                                                      \
		what, build, 0, NULL, JR_TLS_NOT_TLS, NULL, decided, 0         \
	}
#define BAD(what, build, at, hex, decided)                                     \
	{                                                                      \
		what, build, at, hex, JR_TLS_MALFORMED, NULL, decided, 0       \
	}

/* The handshake offset of the name in b_std: 0x66 = 102. */
static const struct vector vectors[] = {
	/* found */
	FOUND("SNI among other extensions", b_std, 0, NULL),
	FOUND("record version 0x0302", b_std, OFF_REC_VERSION, "03 02"),
	FOUND("record version 0x0303", b_std, OFF_REC_VERSION, "03 03"),
	FOUND("legacy_version 0x0301", b_std, OFF_VERSION, "03 01"),
	FOUND("legacy_version 0x0302", b_std, OFF_VERSION, "03 02"),
	FOUND("SNI the only extension", b_sni_only, 0, NULL),
	FOUND("SNI the first extension", b_sni_first, 0, NULL),
	FOUND("SNI the last extension", b_sni_last, 0, NULL),
	FOUND("empty session id", b_no_sid, 0, NULL),
	{ "CCS and early data after the hello", b_trailing, 0, NULL,
	  JR_TLS_SNI_FOUND, "allowed.test", 0, 6 + 10 },
	FOUND("two records, cut after the handshake header", b_two_records, 0,
	      NULL),
	FOUND("three records, the name cut", b_three_records, 0, NULL),
	FOUND("one record per handshake byte", b_one_byte_records, 0, NULL),
	FOUND("exactly JR_TLS_HELLO_MAX bytes", b_hello_max, 0, NULL),
	/* no name */
	NOSNI("no server_name", b_no_sni),
	NOSNI("no extensions block (TLS 1.2 and below)", b_no_ext_block),
	NOSNI("empty extensions block", b_empty_ext_block),
	NOSNI("the smallest hello", b_smallest_hello),
	/* not TLS, from as few bytes as possible */
	NOTTLS("HTTP request", b_http, 1),
	NOTTLS("SSH banner", b_ssh, 1),
	NOTTLS("NUL bytes", b_nul, 1),
	NOTTLS("handshake type, version not 3.x", b_16_00, 2),
	NOTTLS("handshake type, version 1.x", b_16_01, 2),
	NOTTLS("alert type, version not 3.x", b_alert_not_3, 2),
	NOTTLS("SSL 2.0 header, not CLIENT-HELLO", b_ssl2_other_msg, 3),
	NOTTLS("SSL 2.0 CLIENT-HELLO shape, version 2.3", b_ssl2_version_2x, 4),
	NOTTLS("SSL 2.0 CLIENT-HELLO shape, version 0.3", b_ssl2_version_0003,
	       5),
	NOTTLS("telnet IAC WILL ECHO", b_telnet, 4),
	/* TLS-shaped, but not a hello we can vouch for */
	BAD("SSL 2.0 compatible hello, TLS 1.0", b_ssl2_hello, 0, NULL, 4),
	BAD("SSL 2.0 hello", b_ssl2_pure, 0, NULL, 5),
	BAD("warning alert before the hello", b_alert_first, 0, NULL, 2),
	BAD("change_cipher_spec before the hello", b_ccs_first, 0, NULL, 2),
	BAD("application data before the hello", b_appdata_first, 0, NULL, 2),
	BAD("heartbeat before the hello", b_heartbeat_first, 0, NULL, 2),
	BAD("record version 0x0300", b_std, OFF_REC_VERSION, "03 00", 3),
	BAD("record version 0x0304", b_std, OFF_REC_VERSION, "03 04", 3),
	BAD("record version 0x03ff", b_std, OFF_REC_VERSION, "03 ff", 3),
	BAD("record length 0", b_std, OFF_REC_LEN, "00 00", 5),
	BAD("record length 2^14 + 1", b_std, OFF_REC_LEN, "40 01", 5),
	BAD("record length 0xffff", b_std, OFF_REC_LEN, "ff ff", 5),
	BAD("handshake type server_hello", b_std, OFF_HS_TYPE, "02", 6),
	BAD("handshake type hello_request", b_std, OFF_HS_TYPE, "00", 6),
	BAD("handshake length 40", b_std, OFF_HS_LEN, "00 00 28", 9),
	/* refused on its length, before the missing byte is noticed */
	BAD("a hello of 40 bytes in its own record", b_hello_of_40, 0, NULL, 9),
	BAD("handshake length 2^24 - 1", b_std, OFF_HS_LEN, "ff ff ff", 9),
	BAD("handshake length 2^24 - 1 (patched)", b_hs_len_huge, 0, NULL, 9),
	BAD("handshake shorter than its record", b_hs_short, 0, NULL, 9),
	BAD("a byte after the hello in its record", b_record_extra, 0, NULL, 9),
	BAD("over JR_TLS_HELLO_MAX by one byte", b_hello_max_plus1, 0, NULL, 9),
	BAD("one-byte records past JR_TLS_HELLO_MAX", b_one_byte_records_over,
	    0, NULL, 6 * 10905 + 5),
	BAD("legacy_version 0x0300", b_std, OFF_VERSION, "03 00", 11),
	BAD("legacy_version 0x0304", b_std, OFF_VERSION, "03 04", 11),
	BAD("legacy_version 0x0203", b_std, OFF_VERSION, "02 03", 11),
	BAD("session id of 33 bytes", b_std, OFF_SID_LEN, "21", 44),
	BAD("odd cipher suites length", b_std, OFF_SUITES_LEN, "00 07", 78),
	BAD("no cipher suites", b_std, OFF_SUITES_LEN, "00 00", 78),
	BAD("cipher suites past the message", b_std, OFF_SUITES_LEN, "ff fe",
	    78),
	BAD("no compression method", b_std, OFF_COMP_LEN, "00", 85),
	BAD("compression methods past the message", b_std, OFF_COMP_LEN, "ff",
	    85),
	/* the compression byte itself is skipped, never needed */
	BAD("one stray byte after the compression methods", b_stray_byte, 0,
	    NULL, 85),
	BAD("extensions block one byte longer", b_exts_long, 0, NULL, 88),
	BAD("extensions block one byte shorter", b_exts_short, 0, NULL, 88),
	BAD("extension header cut short", b_ext_header_cut, 0, NULL,
	    5 + 83 + 21),
	BAD("extension past the block", b_ext_past_block, 0, NULL,
	    5 + 83 + 21 + 4),
	BAD("duplicate server_name", b_dup_sni, 0, NULL, 5 + 83 + 21 + 10 + 2),
	BAD("duplicate supported_groups", b_dup_groups, 0, NULL,
	    5 + 83 + 10 + 21 + 2),
	BAD("server_name without data", b_sni_empty, 0, NULL, OFF_SNI_EXT + 4),
	BAD("server_name list past the extension", b_std, OFF_SNI_LIST_LEN,
	    "00 10", OFF_SNI_LIST_LEN + 2),
	BAD("server_name list short of the extension", b_std, OFF_SNI_LIST_LEN,
	    "00 0e", OFF_SNI_LIST_LEN + 2),
	BAD("empty server_name list", b_std, OFF_SNI_LIST_LEN, "00 00",
	    OFF_SNI_LIST_LEN + 2),
	BAD("name type 1", b_std, OFF_NAME_TYPE, "01", OFF_NAME_TYPE + 1),
	BAD("name type 255", b_std, OFF_NAME_TYPE, "ff", OFF_NAME_TYPE + 1),
	BAD("name length 0", b_std, OFF_NAME_LEN, "00 00", OFF_NAME),
	BAD("name length past the list", b_std, OFF_NAME_LEN, "00 0d",
	    OFF_NAME),
	BAD("name length short of the list", b_std, OFF_NAME_LEN, "00 0b",
	    OFF_NAME),
	BAD("two host_name entries", b_two_host_names, 0, NULL, OFF_NAME),
	BAD("a host_name and a type 1 entry", b_host_name_and_type1, 0, NULL,
	    OFF_NAME),
	/* records of the same hello */
	BAD("alert record before the hello is complete", b_alert_inside, 0,
	    NULL, 5 + 50 + 1),
	BAD("change_cipher_spec inside the hello", b_ccs_inside, 0, NULL,
	    5 + 50 + 1),
	BAD("application data inside the hello", b_appdata_inside, 0, NULL,
	    5 + 50 + 1),
	BAD("second record version 0x0300", b_second_v0300, 0, NULL,
	    5 + 50 + 3),
	BAD("second record version 0x0203", b_second_v0203, 0, NULL,
	    5 + 50 + 2),
	BAD("second record length 0", b_second_len0, 0, NULL, 5 + 50 + 5),
	BAD("second record length 2^14 + 1", b_second_len_over, 0, NULL,
	    5 + 50 + 5),
	BAD("second record past the end of the hello", b_second_past_end, 0,
	    NULL, 5 + 50 + 5),
	BAD("hello longer than its records, then application data",
	    b_hs_long_then_appdata, 0, NULL, STD_LEN + 1),
};

static void test_std_layout(void **state)
{
	_cleanup_wire_ struct wire w = { 0 };

	/* the offsets the patched vectors rely on */
	b_std(&w);
	assert_int_equal(w.n, STD_LEN);
	assert_int_equal(get_u16(&w, OFF_REC_LEN), STD_LEN - 5);
	assert_int_equal(w.b[OFF_HS_TYPE], 1);
	assert_int_equal(w.b[OFF_HS_LEN + 2], STD_LEN - 9);
	assert_int_equal(get_u16(&w, OFF_VERSION), 0x0303);
	assert_int_equal(w.b[OFF_SID_LEN], 32);
	assert_int_equal(get_u16(&w, OFF_SUITES_LEN), 6);
	assert_int_equal(w.b[OFF_COMP_LEN], 1);
	assert_int_equal(get_u16(&w, OFF_EXTS_LEN), STD_LEN - OFF_EXTS_LEN - 2);
	assert_int_equal(get_u16(&w, OFF_SNI_EXT), 0);
	assert_int_equal(get_u16(&w, OFF_SNI_LIST_LEN), 15);
	assert_int_equal(w.b[OFF_NAME_TYPE], 0);
	assert_int_equal(get_u16(&w, OFF_NAME_LEN), 12);
	assert_memory_equal(w.b + OFF_NAME, "allowed.test", 12);
}

static void test_vectors(void **state)
{
	size_t i;

	for (i = 0; i < ARRAY_SIZE(vectors); i++) {
		const struct vector *v = &vectors[i];
		_cleanup_wire_ struct wire w = { 0 };

		v->build(&w);
		if (v->hex)
			patch_hex(&w, v->at, v->hex);
		check_stream(v->what, w.b, w.n, v->verdict, v->sni, v->decided,
			     v->trailing);
	}
}

/* ------------------------------------------------------------ names */

static const struct {
	const char *name;
	size_t n;	  /* 0: strlen(name) */
	const char *want; /* NULL: MALFORMED */
	size_t decided;	  /* MALFORMED: name bytes needed to decide */
} names[] = {
	{ "allowed.test", 0, "allowed.test", 0 },
	{ "Allowed.TEST", 0, "allowed.test", 0 },
	{ "allowed.test.", 0, "allowed.test", 0 }, /* one dot folded */
	{ "ALLOWED.TEST.", 0, "allowed.test", 0 },
	{ "a", 0, "a", 0 },
	{ "Z", 0, "z", 0 },
	{ "xn--bcher-kva.example", 0, "xn--bcher-kva.example", 0 },
	{ "0-9.a-z.A-Z", 0, "0-9.a-z.a-z", 0 },
	/* RFC 6066 forbids address literals, but H decides: returned */
	{ "192.0.2.1", 0, "192.0.2.1", 0 },
	{ "-a-.test", 0, "-a-.test", 0 },
	{ "", 0, NULL, 0 },
	{ ".", 0, NULL, 1 },
	{ "..", 0, NULL, 1 },
	{ ".allowed.test", 0, NULL, 1 },
	{ "allowed..test", 0, NULL, 9 },
	{ "allowed.test..", 0, NULL, 14 },
	{ "allowed_test", 0, NULL, 8 },
	{ "allowed test", 0, NULL, 8 },
	{ "allowed.test:443", 0, NULL, 13 },
	{ "*.allowed.test", 0, NULL, 1 },
	{ "allowed.test/", 0, NULL, 13 },
	{ "allowed.t\xc3\xa9st", 0, NULL, 10 },
	{ "allowed\0.test", 13, NULL, 8 },
	{ "allowed.test\r\n", 0, NULL, 13 },
	{ "\x7f", 0, NULL, 1 },
	{ "allowed.test\xff", 0, NULL, 13 },
};

static void check_name(const char *what, const char *name, size_t n,
		       const char *want, size_t decided)
{
	_cleanup_wire_ struct wire w = { 0 };

	hello_named_n(&w, name, n);
	check_stream(what, w.b, w.n, want ? JR_TLS_SNI_FOUND : JR_TLS_MALFORMED,
		     want, OFF_NAME + decided, 0);
}

static void test_names(void **state)
{
	size_t i;

	for (i = 0; i < ARRAY_SIZE(names); i++)
		check_name(names[i].name, names[i].name,
			   names[i].n ? names[i].n : strlen(names[i].name),
			   names[i].want, names[i].decided);
}

static void test_long_names(void **state)
{
	char l63[64], n253[260], n254[260], buf[300];

	memset(l63, 'a', 63);
	l63[63] = '\0';
	/* 63.63.63.61 = 253 */
	snprintf(n253, sizeof(n253), "%s.%s.%s.%.61s", l63, l63, l63, l63);
	snprintf(n254, sizeof(n254), "%s.%s.%s.%.62s", l63, l63, l63, l63);
	assert_int_equal(strlen(n253), 253);
	assert_int_equal(strlen(n254), 254);

	snprintf(buf, sizeof(buf), "%s.test", l63);
	check_name("label of 63", buf, strlen(buf), buf, 0);
	snprintf(buf, sizeof(buf), "a%s.test", l63);
	check_name("label of 64", buf, strlen(buf), NULL, 64);
	snprintf(buf, sizeof(buf), "x.%sa", l63);
	check_name("last label of 64", buf, strlen(buf), NULL, 66);
	check_name("name of 253", n253, 253, n253, 0);
	snprintf(buf, sizeof(buf), "%s.", n253);
	check_name("name of 253 and a dot", buf, 254, n253, 0);
	/* 254 bytes without a dot: refused once the last byte is read */
	check_name("name of 254", n254, 254, NULL, 254);
	/* over 254 bytes: refused on the length alone */
	snprintf(buf, sizeof(buf), "%s.", n254);
	check_name("name of 254 and a dot", buf, 255, NULL, 0);
	snprintf(buf, sizeof(buf), "%s..", n253);
	check_name("name of 253 and two dots", buf, 255, NULL, 0);
}

/* ------------------------------------------------------ first bytes */

static void test_first_bytes(void **state)
{
	char sni[SNI_BUF];
	uint8_t two[2];
	size_t used;
	unsigned b;

	for (b = 0; b < 256; b++) {
		bool tls_type = b >= 20 && b <= 24;
		enum jr_tls_sni r;

		two[0] = (uint8_t)b;
		two[1] = 3;
		r = call(two, 1, sni, SNI_BUF, &used);
		if (tls_type || b >= 0x80) {
			if (r != JR_TLS_NEED_MORE || used != 2)
				fail_msg("byte 0x%02x: %d, hint %zu", b, r,
					 used);
		} else if (r != JR_TLS_NOT_TLS || used != 0) {
			fail_msg("byte 0x%02x: %d, want NOT_TLS at once", b, r);
		}
		r = call(two, 2, sni, SNI_BUF, &used);
		if (b == 22 || b >= 0x80)
			assert_int_equal(r, JR_TLS_NEED_MORE);
		else if (tls_type)
			assert_int_equal(r, JR_TLS_MALFORMED);
		else
			assert_int_equal(r, JR_TLS_NOT_TLS);
	}
	assert_int_equal(call(two, 0, sni, SNI_BUF, &used), JR_TLS_NEED_MORE);
	assert_int_equal(used, 1);
}

/* ------------------------------------------------------- real hellos */

/*
 * Captured on loopback: a listener on 127.0.0.1 kept the client's first
 * bytes (openssl 3.0 s_client, curl 8 with OpenSSL 3.0).
 */
/* openssl s_client -servername allowed.test (TLS 1.3 offer): 318 bytes */
static const uint8_t real_openssl13[] = {
	0x16, 0x03, 0x01, 0x01, 0x39, 0x01, 0x00, 0x01, 0x35, 0x03, 0x03, 0x5d,
	0xdb, 0x4c, 0x84, 0x39, 0x5c, 0xb0, 0xc2, 0x4d, 0x62, 0x4f, 0xd1, 0x5d,
	0xda, 0x8c, 0xc8, 0x80, 0xd5, 0x41, 0x30, 0xe9, 0x0d, 0x0f, 0xf3, 0xef,
	0x26, 0x50, 0x73, 0x0a, 0xbc, 0x5c, 0x1d, 0x20, 0xc4, 0x18, 0xf2, 0x34,
	0x11, 0x2f, 0x9a, 0x08, 0x76, 0x4e, 0x76, 0x51, 0x92, 0xd7, 0xb3, 0x92,
	0x59, 0x00, 0x60, 0x6e, 0xd0, 0x40, 0x6c, 0x24, 0x53, 0x32, 0x5c, 0xe3,
	0xc5, 0x38, 0x5c, 0x4f, 0x00, 0x3e, 0x13, 0x02, 0x13, 0x03, 0x13, 0x01,
	0xc0, 0x2c, 0xc0, 0x30, 0x00, 0x9f, 0xcc, 0xa9, 0xcc, 0xa8, 0xcc, 0xaa,
	0xc0, 0x2b, 0xc0, 0x2f, 0x00, 0x9e, 0xc0, 0x24, 0xc0, 0x28, 0x00, 0x6b,
	0xc0, 0x23, 0xc0, 0x27, 0x00, 0x67, 0xc0, 0x0a, 0xc0, 0x14, 0x00, 0x39,
	0xc0, 0x09, 0xc0, 0x13, 0x00, 0x33, 0x00, 0x9d, 0x00, 0x9c, 0x00, 0x3d,
	0x00, 0x3c, 0x00, 0x35, 0x00, 0x2f, 0x00, 0xff, 0x01, 0x00, 0x00, 0xae,
	0x00, 0x00, 0x00, 0x11, 0x00, 0x0f, 0x00, 0x00, 0x0c, 0x61, 0x6c, 0x6c,
	0x6f, 0x77, 0x65, 0x64, 0x2e, 0x74, 0x65, 0x73, 0x74, 0x00, 0x0b, 0x00,
	0x04, 0x03, 0x00, 0x01, 0x02, 0x00, 0x0a, 0x00, 0x16, 0x00, 0x14, 0x00,
	0x1d, 0x00, 0x17, 0x00, 0x1e, 0x00, 0x19, 0x00, 0x18, 0x01, 0x00, 0x01,
	0x01, 0x01, 0x02, 0x01, 0x03, 0x01, 0x04, 0x00, 0x23, 0x00, 0x00, 0x00,
	0x16, 0x00, 0x00, 0x00, 0x17, 0x00, 0x00, 0x00, 0x0d, 0x00, 0x2a, 0x00,
	0x28, 0x04, 0x03, 0x05, 0x03, 0x06, 0x03, 0x08, 0x07, 0x08, 0x08, 0x08,
	0x09, 0x08, 0x0a, 0x08, 0x0b, 0x08, 0x04, 0x08, 0x05, 0x08, 0x06, 0x04,
	0x01, 0x05, 0x01, 0x06, 0x01, 0x03, 0x03, 0x03, 0x01, 0x03, 0x02, 0x04,
	0x02, 0x05, 0x02, 0x06, 0x02, 0x00, 0x2b, 0x00, 0x09, 0x08, 0x03, 0x04,
	0x03, 0x03, 0x03, 0x02, 0x03, 0x01, 0x00, 0x2d, 0x00, 0x02, 0x01, 0x01,
	0x00, 0x33, 0x00, 0x26, 0x00, 0x24, 0x00, 0x1d, 0x00, 0x20, 0x27, 0x45,
	0xc8, 0xb3, 0x1e, 0x2e, 0xb9, 0x0f, 0xe0, 0x94, 0x50, 0xb7, 0xed, 0xfb,
	0x3c, 0xda, 0xda, 0x99, 0x5a, 0xa2, 0xd3, 0xe3, 0xcf, 0x8d, 0x4a, 0x66,
	0xd7, 0x36, 0x08, 0xb3, 0xa4, 0x0a,
};
/* openssl s_client -servername allowed.test -tls1_2: 209 bytes */
static const uint8_t real_openssl12[] = {
	0x16, 0x03, 0x01, 0x00, 0xcc, 0x01, 0x00, 0x00, 0xc8, 0x03, 0x03, 0xf0,
	0x07, 0x20, 0x88, 0x16, 0xa3, 0x2d, 0x8c, 0xfd, 0x67, 0x01, 0x60, 0xe4,
	0xa9, 0x87, 0xf6, 0x68, 0x5f, 0x45, 0x88, 0xb5, 0x5d, 0x8c, 0x1a, 0xb7,
	0x71, 0x4f, 0x7b, 0x98, 0x7f, 0xfd, 0x77, 0x00, 0x00, 0x38, 0xc0, 0x2c,
	0xc0, 0x30, 0x00, 0x9f, 0xcc, 0xa9, 0xcc, 0xa8, 0xcc, 0xaa, 0xc0, 0x2b,
	0xc0, 0x2f, 0x00, 0x9e, 0xc0, 0x24, 0xc0, 0x28, 0x00, 0x6b, 0xc0, 0x23,
	0xc0, 0x27, 0x00, 0x67, 0xc0, 0x0a, 0xc0, 0x14, 0x00, 0x39, 0xc0, 0x09,
	0xc0, 0x13, 0x00, 0x33, 0x00, 0x9d, 0x00, 0x9c, 0x00, 0x3d, 0x00, 0x3c,
	0x00, 0x35, 0x00, 0x2f, 0x00, 0xff, 0x01, 0x00, 0x00, 0x67, 0x00, 0x00,
	0x00, 0x11, 0x00, 0x0f, 0x00, 0x00, 0x0c, 0x61, 0x6c, 0x6c, 0x6f, 0x77,
	0x65, 0x64, 0x2e, 0x74, 0x65, 0x73, 0x74, 0x00, 0x0b, 0x00, 0x04, 0x03,
	0x00, 0x01, 0x02, 0x00, 0x0a, 0x00, 0x0c, 0x00, 0x0a, 0x00, 0x1d, 0x00,
	0x17, 0x00, 0x1e, 0x00, 0x19, 0x00, 0x18, 0x00, 0x23, 0x00, 0x00, 0x00,
	0x16, 0x00, 0x00, 0x00, 0x17, 0x00, 0x00, 0x00, 0x0d, 0x00, 0x2a, 0x00,
	0x28, 0x04, 0x03, 0x05, 0x03, 0x06, 0x03, 0x08, 0x07, 0x08, 0x08, 0x08,
	0x09, 0x08, 0x0a, 0x08, 0x0b, 0x08, 0x04, 0x08, 0x05, 0x08, 0x06, 0x04,
	0x01, 0x05, 0x01, 0x06, 0x01, 0x03, 0x03, 0x03, 0x01, 0x03, 0x02, 0x04,
	0x02, 0x05, 0x02, 0x06, 0x02,
};
/* openssl s_client -noservername: 297 bytes */
static const uint8_t real_openssl_nosni[] = {
	0x16, 0x03, 0x01, 0x01, 0x24, 0x01, 0x00, 0x01, 0x20, 0x03, 0x03, 0x7b,
	0xce, 0x13, 0x21, 0x60, 0x69, 0x83, 0xd7, 0xf4, 0x0a, 0x22, 0xcf, 0xad,
	0x62, 0xc7, 0x81, 0x5c, 0x38, 0x8a, 0xbb, 0xe7, 0x31, 0x25, 0xc7, 0xfa,
	0xb1, 0xed, 0xd6, 0x98, 0x4e, 0x24, 0x82, 0x20, 0xcc, 0xbc, 0x32, 0x89,
	0x69, 0x9d, 0x19, 0x0d, 0x35, 0x95, 0x80, 0xd3, 0x7c, 0xb0, 0x7c, 0xf7,
	0x84, 0x9b, 0xba, 0x9e, 0xd9, 0x29, 0xce, 0x5f, 0x33, 0xc8, 0xde, 0x88,
	0x81, 0x3b, 0x2e, 0x19, 0x00, 0x3e, 0x13, 0x02, 0x13, 0x03, 0x13, 0x01,
	0xc0, 0x2c, 0xc0, 0x30, 0x00, 0x9f, 0xcc, 0xa9, 0xcc, 0xa8, 0xcc, 0xaa,
	0xc0, 0x2b, 0xc0, 0x2f, 0x00, 0x9e, 0xc0, 0x24, 0xc0, 0x28, 0x00, 0x6b,
	0xc0, 0x23, 0xc0, 0x27, 0x00, 0x67, 0xc0, 0x0a, 0xc0, 0x14, 0x00, 0x39,
	0xc0, 0x09, 0xc0, 0x13, 0x00, 0x33, 0x00, 0x9d, 0x00, 0x9c, 0x00, 0x3d,
	0x00, 0x3c, 0x00, 0x35, 0x00, 0x2f, 0x00, 0xff, 0x01, 0x00, 0x00, 0x99,
	0x00, 0x0b, 0x00, 0x04, 0x03, 0x00, 0x01, 0x02, 0x00, 0x0a, 0x00, 0x16,
	0x00, 0x14, 0x00, 0x1d, 0x00, 0x17, 0x00, 0x1e, 0x00, 0x19, 0x00, 0x18,
	0x01, 0x00, 0x01, 0x01, 0x01, 0x02, 0x01, 0x03, 0x01, 0x04, 0x00, 0x23,
	0x00, 0x00, 0x00, 0x16, 0x00, 0x00, 0x00, 0x17, 0x00, 0x00, 0x00, 0x0d,
	0x00, 0x2a, 0x00, 0x28, 0x04, 0x03, 0x05, 0x03, 0x06, 0x03, 0x08, 0x07,
	0x08, 0x08, 0x08, 0x09, 0x08, 0x0a, 0x08, 0x0b, 0x08, 0x04, 0x08, 0x05,
	0x08, 0x06, 0x04, 0x01, 0x05, 0x01, 0x06, 0x01, 0x03, 0x03, 0x03, 0x01,
	0x03, 0x02, 0x04, 0x02, 0x05, 0x02, 0x06, 0x02, 0x00, 0x2b, 0x00, 0x09,
	0x08, 0x03, 0x04, 0x03, 0x03, 0x03, 0x02, 0x03, 0x01, 0x00, 0x2d, 0x00,
	0x02, 0x01, 0x01, 0x00, 0x33, 0x00, 0x26, 0x00, 0x24, 0x00, 0x1d, 0x00,
	0x20, 0x64, 0x56, 0xd6, 0x56, 0xfa, 0x58, 0xbc, 0x1c, 0xcc, 0x04, 0xde,
	0xd7, 0x54, 0x90, 0x7d, 0x05, 0x10, 0xde, 0x6c, 0xdc, 0x5a, 0xb3, 0x29,
	0xea, 0xac, 0xf1, 0x4c, 0xd3, 0x26, 0xfe, 0x70, 0x00,
};
/* openssl s_client -servername Allowed.TEST: 318 bytes */
static const uint8_t real_openssl_upper[] = {
	0x16, 0x03, 0x01, 0x01, 0x39, 0x01, 0x00, 0x01, 0x35, 0x03, 0x03, 0x21,
	0xf4, 0xc6, 0x51, 0xa1, 0xf4, 0x71, 0x9a, 0xd5, 0xa4, 0xce, 0x4d, 0xfd,
	0xb1, 0x2d, 0xad, 0xc5, 0xd4, 0x02, 0x41, 0x58, 0xed, 0x1e, 0xf7, 0x80,
	0xa7, 0x4b, 0xca, 0x7e, 0x98, 0x96, 0xe9, 0x20, 0x74, 0xeb, 0x81, 0x3b,
	0x4a, 0x64, 0x1b, 0xb4, 0x40, 0x68, 0x28, 0x04, 0xb4, 0xb2, 0x22, 0x1b,
	0x88, 0x69, 0xe8, 0x6a, 0x3d, 0x1b, 0xde, 0x75, 0xdc, 0xf7, 0x91, 0x74,
	0x9d, 0xf1, 0x7f, 0x00, 0x00, 0x3e, 0x13, 0x02, 0x13, 0x03, 0x13, 0x01,
	0xc0, 0x2c, 0xc0, 0x30, 0x00, 0x9f, 0xcc, 0xa9, 0xcc, 0xa8, 0xcc, 0xaa,
	0xc0, 0x2b, 0xc0, 0x2f, 0x00, 0x9e, 0xc0, 0x24, 0xc0, 0x28, 0x00, 0x6b,
	0xc0, 0x23, 0xc0, 0x27, 0x00, 0x67, 0xc0, 0x0a, 0xc0, 0x14, 0x00, 0x39,
	0xc0, 0x09, 0xc0, 0x13, 0x00, 0x33, 0x00, 0x9d, 0x00, 0x9c, 0x00, 0x3d,
	0x00, 0x3c, 0x00, 0x35, 0x00, 0x2f, 0x00, 0xff, 0x01, 0x00, 0x00, 0xae,
	0x00, 0x00, 0x00, 0x11, 0x00, 0x0f, 0x00, 0x00, 0x0c, 0x41, 0x6c, 0x6c,
	0x6f, 0x77, 0x65, 0x64, 0x2e, 0x54, 0x45, 0x53, 0x54, 0x00, 0x0b, 0x00,
	0x04, 0x03, 0x00, 0x01, 0x02, 0x00, 0x0a, 0x00, 0x16, 0x00, 0x14, 0x00,
	0x1d, 0x00, 0x17, 0x00, 0x1e, 0x00, 0x19, 0x00, 0x18, 0x01, 0x00, 0x01,
	0x01, 0x01, 0x02, 0x01, 0x03, 0x01, 0x04, 0x00, 0x23, 0x00, 0x00, 0x00,
	0x16, 0x00, 0x00, 0x00, 0x17, 0x00, 0x00, 0x00, 0x0d, 0x00, 0x2a, 0x00,
	0x28, 0x04, 0x03, 0x05, 0x03, 0x06, 0x03, 0x08, 0x07, 0x08, 0x08, 0x08,
	0x09, 0x08, 0x0a, 0x08, 0x0b, 0x08, 0x04, 0x08, 0x05, 0x08, 0x06, 0x04,
	0x01, 0x05, 0x01, 0x06, 0x01, 0x03, 0x03, 0x03, 0x01, 0x03, 0x02, 0x04,
	0x02, 0x05, 0x02, 0x06, 0x02, 0x00, 0x2b, 0x00, 0x09, 0x08, 0x03, 0x04,
	0x03, 0x03, 0x03, 0x02, 0x03, 0x01, 0x00, 0x2d, 0x00, 0x02, 0x01, 0x01,
	0x00, 0x33, 0x00, 0x26, 0x00, 0x24, 0x00, 0x1d, 0x00, 0x20, 0x5c, 0x47,
	0xa9, 0x7b, 0x99, 0x12, 0x5c, 0x67, 0x95, 0xb0, 0x64, 0xff, 0xd4, 0xb0,
	0x2b, 0xd4, 0xaf, 0x08, 0xb3, 0xcd, 0x1d, 0x2d, 0x8a, 0x0f, 0xbe, 0x0f,
	0xfb, 0x30, 0xe6, 0x16, 0xf4, 0x34,
};
/* curl https://allowed.test:PORT/ (ALPN, padding to 512): 517 bytes */
static const uint8_t real_curl[] = {
	0x16, 0x03, 0x01, 0x02, 0x00, 0x01, 0x00, 0x01, 0xfc, 0x03, 0x03, 0xa7,
	0x01, 0xbb, 0xdb, 0xc2, 0x97, 0x2d, 0xee, 0xcc, 0xd3, 0x72, 0xea, 0x27,
	0xcf, 0xd1, 0xd2, 0xc5, 0xd3, 0x44, 0xcb, 0xa6, 0xbc, 0x6f, 0xd3, 0x2d,
	0x2b, 0xa6, 0x1f, 0xb9, 0xb1, 0x62, 0x68, 0x20, 0xac, 0x81, 0xb0, 0x20,
	0x6f, 0xd0, 0x61, 0x74, 0xe2, 0xad, 0x97, 0x4a, 0x8e, 0x9b, 0x83, 0xf1,
	0x8e, 0xbb, 0xc8, 0xc5, 0x28, 0x13, 0x6c, 0xc7, 0x41, 0x09, 0x2b, 0xaa,
	0x60, 0x22, 0x4c, 0xf1, 0x00, 0x3e, 0x13, 0x02, 0x13, 0x03, 0x13, 0x01,
	0xc0, 0x2c, 0xc0, 0x30, 0x00, 0x9f, 0xcc, 0xa9, 0xcc, 0xa8, 0xcc, 0xaa,
	0xc0, 0x2b, 0xc0, 0x2f, 0x00, 0x9e, 0xc0, 0x24, 0xc0, 0x28, 0x00, 0x6b,
	0xc0, 0x23, 0xc0, 0x27, 0x00, 0x67, 0xc0, 0x0a, 0xc0, 0x14, 0x00, 0x39,
	0xc0, 0x09, 0xc0, 0x13, 0x00, 0x33, 0x00, 0x9d, 0x00, 0x9c, 0x00, 0x3d,
	0x00, 0x3c, 0x00, 0x35, 0x00, 0x2f, 0x00, 0xff, 0x01, 0x00, 0x01, 0x75,
	0x00, 0x00, 0x00, 0x11, 0x00, 0x0f, 0x00, 0x00, 0x0c, 0x61, 0x6c, 0x6c,
	0x6f, 0x77, 0x65, 0x64, 0x2e, 0x74, 0x65, 0x73, 0x74, 0x00, 0x0b, 0x00,
	0x04, 0x03, 0x00, 0x01, 0x02, 0x00, 0x0a, 0x00, 0x16, 0x00, 0x14, 0x00,
	0x1d, 0x00, 0x17, 0x00, 0x1e, 0x00, 0x19, 0x00, 0x18, 0x01, 0x00, 0x01,
	0x01, 0x01, 0x02, 0x01, 0x03, 0x01, 0x04, 0x00, 0x10, 0x00, 0x0e, 0x00,
	0x0c, 0x02, 0x68, 0x32, 0x08, 0x68, 0x74, 0x74, 0x70, 0x2f, 0x31, 0x2e,
	0x31, 0x00, 0x16, 0x00, 0x00, 0x00, 0x17, 0x00, 0x00, 0x00, 0x31, 0x00,
	0x00, 0x00, 0x0d, 0x00, 0x2a, 0x00, 0x28, 0x04, 0x03, 0x05, 0x03, 0x06,
	0x03, 0x08, 0x07, 0x08, 0x08, 0x08, 0x09, 0x08, 0x0a, 0x08, 0x0b, 0x08,
	0x04, 0x08, 0x05, 0x08, 0x06, 0x04, 0x01, 0x05, 0x01, 0x06, 0x01, 0x03,
	0x03, 0x03, 0x01, 0x03, 0x02, 0x04, 0x02, 0x05, 0x02, 0x06, 0x02, 0x00,
	0x2b, 0x00, 0x09, 0x08, 0x03, 0x04, 0x03, 0x03, 0x03, 0x02, 0x03, 0x01,
	0x00, 0x2d, 0x00, 0x02, 0x01, 0x01, 0x00, 0x33, 0x00, 0x26, 0x00, 0x24,
	0x00, 0x1d, 0x00, 0x20, 0xcf, 0xdf, 0x85, 0x2d, 0x9f, 0xcb, 0x68, 0xa0,
	0x84, 0x4d, 0xa8, 0x09, 0xfe, 0x99, 0xd6, 0x42, 0xe9, 0x61, 0xc0, 0xa4,
	0x36, 0x43, 0x7d, 0x4a, 0x7d, 0x40, 0x29, 0x74, 0x4c, 0x6c, 0x90, 0x05,
	0x00, 0x15, 0x00, 0xb1, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00,
	0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00,
	0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00,
	0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00,
	0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00,
	0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00,
	0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00,
	0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00,
	0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00,
	0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00,
	0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00,
	0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00,
	0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00,
	0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00,
	0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00,
	0x00,
};

static const struct {
	const char *what;
	const uint8_t *b;
	size_t n;
	enum jr_tls_sni verdict;
} reals[] = {
	{ "openssl TLS 1.3", real_openssl13, sizeof(real_openssl13),
	  JR_TLS_SNI_FOUND },
	{ "openssl TLS 1.2", real_openssl12, sizeof(real_openssl12),
	  JR_TLS_SNI_FOUND },
	{ "openssl without SNI", real_openssl_nosni, sizeof(real_openssl_nosni),
	  JR_TLS_NO_SNI },
	{ "openssl Allowed.TEST", real_openssl_upper,
	  sizeof(real_openssl_upper), JR_TLS_SNI_FOUND },
	{ "curl", real_curl, sizeof(real_curl), JR_TLS_SNI_FOUND },
};

/* The real hello's handshake message, from its one record. */
static void real_handshake(struct wire *hs, const uint8_t *b, size_t n)
{
	assert_true(n > 9 && b[0] == 22 && b[1] == 3);
	assert_int_equal((size_t)b[3] << 8 | b[4], n - 5);
	put(hs, b + 5, n - 5);
}

static void test_real_hellos(void **state)
{
	char sni[SNI_BUF], what[128];
	size_t i, k, used;

	for (i = 0; i < ARRAY_SIZE(reals); i++) {
		const uint8_t *b = reals[i].b;
		size_t n = reals[i].n;
		enum jr_tls_sni v = reals[i].verdict;
		_cleanup_wire_ struct wire hs = { 0 }, ones = { 0 };
		const char *name =
		    v == JR_TLS_SNI_FOUND ? "allowed.test" : NULL;

		check_stream(reals[i].what, b, n, v, name, 0, 0);

		/* every split into two reads, into one buffer as the relay
		 * keeps it */
		for (k = 1; k < n; k++) {
			uint8_t *in = malloc(n);

			assert_non_null(in);
			memcpy(in, b, k);
			if (jr_tls_client_hello_sni(in, k, sni, SNI_BUF,
						    &used) != JR_TLS_NEED_MORE)
				fail_msg("%s: first read of %zu", reals[i].what,
					 k);
			memcpy(in + k, b + k, n - k);
			if (jr_tls_client_hello_sni(in, n, sni, SNI_BUF,
						    &used) != v ||
			    used != n || (name && strcmp(sni, name)))
				fail_msg("%s: second read after %zu",
					 reals[i].what, k);
			free(in);
		}

		/* the same message cut into two records at every point */
		real_handshake(&hs, b, n);
		for (k = 1; k < hs.n; k++) {
			_cleanup_wire_ struct wire w = { 0 };
			const size_t sizes[] = { k, 0 };

			put_records(&w, &hs, sizes);
			assert_int_equal(w.n, n + 5);
			if (call(w.b, w.n, sni, SNI_BUF, &used) != v ||
			    used != n + 5 || (name && strcmp(sni, name)))
				fail_msg("%s: two records cut at %zu",
					 reals[i].what, k);
			/* every prefix of some of them */
			if (k % 41 == 1) {
				snprintf(what, sizeof(what),
					 "%s: two records cut at %zu",
					 reals[i].what, k);
				check_stream(what, w.b, w.n, v, name, 0, 0);
			}
		}
		/* three records */
		for (k = 1; k + 13 < hs.n; k += 7) {
			_cleanup_wire_ struct wire w = { 0 };
			const size_t sizes[] = { k, 13, 0 };

			put_records(&w, &hs, sizes);
			snprintf(what, sizeof(what),
				 "%s: three records cut at %zu, %zu",
				 reals[i].what, k, k + 13);
			check_stream(what, w.b, w.n, v, name, 0, 0);
		}
		/* one record per byte */
		for (k = 0; k < hs.n; k++)
			put_record(&ones, 22, 0x0301, hs.b + k, 1);
		snprintf(what, sizeof(what), "%s: one-byte records",
			 reals[i].what);
		check_stream(what, ones.b, ones.n, v, name, 0, 0);
	}
}

/* ------------------------------------------------------- sni buffer */

static void test_sni_buffer(void **state)
{
	_cleanup_wire_ struct wire w = { 0 }, dot = { 0 }, none = { 0 };
	char sni[64];
	size_t used, i;

	b_std(&w);
	/* "allowed.test" needs 13 bytes: 12 is refused, never cut */
	memset(sni, 'X', sizeof(sni));
	assert_int_equal(jr_tls_client_hello_sni(w.b, w.n, sni, 12, &used),
			 JR_TLS_MALFORMED);
	assert_int_equal(used, 0);
	assert_int_equal(sni[0], '\0');
	for (i = 12; i < sizeof(sni); i++)
		assert_int_equal(sni[i], 'X');
	memset(sni, 'X', sizeof(sni));
	assert_int_equal(jr_tls_client_hello_sni(w.b, w.n, sni, 13, &used),
			 JR_TLS_SNI_FOUND);
	assert_string_equal(sni, "allowed.test");
	assert_int_equal(used, w.n);
	for (i = 13; i < sizeof(sni); i++)
		assert_int_equal(sni[i], 'X');
	/* 13 bytes on the wire with the dot, 13 with the NUL in @sni */
	hello_named(&dot, "allowed.test.");
	memset(sni, 'X', sizeof(sni));
	assert_int_equal(jr_tls_client_hello_sni(dot.b, dot.n, sni, 13, &used),
			 JR_TLS_SNI_FOUND);
	assert_string_equal(sni, "allowed.test");
	for (i = 13; i < sizeof(sni); i++)
		assert_int_equal(sni[i], 'X');
	/* no buffer at all: a name cannot be delivered, no name can; a
	 * NULL @sni is no room whatever @sni_size says */
	assert_int_equal(jr_tls_client_hello_sni(w.b, w.n, NULL, 0, &used),
			 JR_TLS_MALFORMED);
	assert_int_equal(jr_tls_client_hello_sni(w.b, w.n, NULL, 300, &used),
			 JR_TLS_MALFORMED);
	assert_int_equal(used, 0);
	b_no_sni(&none);
	assert_int_equal(
	    jr_tls_client_hello_sni(none.b, none.n, NULL, 0, &used),
	    JR_TLS_NO_SNI);
	assert_int_equal(used, none.n);
	assert_int_equal(
	    jr_tls_client_hello_sni(none.b, none.n, NULL, 300, &used),
	    JR_TLS_NO_SNI);
	assert_int_equal(used, none.n);
}

/* ------------------------------------------------------------- hint */

/*
 * A relay that calls again only once the hint's length is in, with the
 * client sending one byte at a time: the number of calls it makes.
 */
static size_t calls_waiting(const struct wire *w, enum jr_tls_sni want)
{
	char sni[SNI_BUF];
	size_t len = 0, used, calls = 0;
	enum jr_tls_sni r;

	for (;;) {
		calls++;
		r = call(w->b, len, sni, SNI_BUF, &used);
		if (r != JR_TLS_NEED_MORE)
			break;
		assert_true(used > len && used <= w->n);
		len = used;
	}
	assert_int_equal(r, want);
	return calls;
}

static void test_hint(void **state)
{
	_cleanup_wire_ struct wire std = { 0 }, ones = { 0 }, big = { 0 },
				   real = { 0 };
	char sni[SNI_BUF];
	size_t used, calls;

	b_std(&std);
	/* 0 to 5 bytes, then the record header says where the hello ends */
	assert_int_equal(calls_waiting(&std, JR_TLS_SNI_FOUND), 7);
	assert_int_equal(call(std.b, 5, sni, SNI_BUF, &used), JR_TLS_NEED_MORE);
	assert_int_equal(used, STD_LEN);
	put(&real, real_curl, sizeof(real_curl));
	assert_int_equal(calls_waiting(&real, JR_TLS_SNI_FOUND), 7);

	/* one-byte records: the hint runs ahead geometrically, not by one */
	b_one_byte_records(&ones);
	calls = calls_waiting(&ones, JR_TLS_SNI_FOUND);
	if (calls > 60)
		fail_msg("%zu calls for %zu bytes of one-byte records", calls,
			 ones.n);
	/* before the handshake header is known: at least a minimal hello */
	assert_int_equal(call(ones.b, 6, sni, SNI_BUF, &used),
			 JR_TLS_NEED_MORE);
	assert_int_equal(used, 6 + 44 + 5);

	/* a padded hello of JR_TLS_HELLO_MAX in four records */
	b_hello_max(&big);
	assert_int_equal(call(big.b, 9, sni, SNI_BUF, &used), JR_TLS_NEED_MORE);
	assert_int_equal(used, JR_TLS_HELLO_MAX);
	assert_true(calls_waiting(&big, JR_TLS_SNI_FOUND) <= 10);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_std_layout),
		cmocka_unit_test(test_vectors),
		cmocka_unit_test(test_names),
		cmocka_unit_test(test_long_names),
		cmocka_unit_test(test_first_bytes),
		cmocka_unit_test(test_real_hellos),
		cmocka_unit_test(test_sni_buffer),
		cmocka_unit_test(test_hint),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
