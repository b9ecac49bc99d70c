// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * fuzz_clienthello.c - libFuzzer target: jr_tls_client_hello_sni() on the input
 * as the first bytes of a client stream.
 *
 *   clang -g -O1 -fsanitize=fuzzer,address,undefined -D_GNU_SOURCE -Isrc \
 *     src/lib/err.c src/tls/clienthello.c tests/fuzz/fuzz_clienthello.c -o fuzz_clienthello
 *   ./fuzz_clienthello corpus-copy/   (a copy of tests/fuzz/corpus/tls)
 *
 * Besides memory errors, it aborts when a property the relay relies on
 * breaks:
 *  - prefixes: fed the input one byte more at a time, the answer is
 *    NEED_MORE until it is the answer for the whole input, then stays
 *    that answer, with the same name and @consumed. Each prefix is read
 *    from a copy whose bytes past the prefix are poisoned, so ASan sees a
 *    read past @len even though the input goes on;
 *  - NEED_MORE never comes once JR_TLS_HELLO_MAX bytes are in; its hint
 *    lies in (len, JR_TLS_HELLO_MAX], never beyond the end of the hello
 *    the whole input turns out to hold, and is len + 1 when the input
 *    turns out not to be TLS (NOT_TLS is never delayed);
 *  - a relay that calls again only when the hint's length is in reaches
 *    the same answer;
 *  - a complete hello takes @consumed <= len bytes, is answered the same
 *    on exactly those bytes, and not one byte earlier; the name is
 *    1..253 bytes of [a-z0-9.-], labels 1..63, "" on any other answer;
 *    a name buffer one byte too small turns SNI_FOUND into MALFORMED;
 *  - an independent reading (below: records reassembled into one buffer,
 *    then the ClientHello parsed in place, the rules of clienthello.c written
 *    again the plain way) finds a complete valid hello exactly when
 *    jr_tls_client_hello_sni() does, with the same name and length.
 */
#include <stdbool.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "clienthello.h"
#include "fuzz.h"

#if defined(__has_feature)
#if __has_feature(address_sanitizer)
#include <sanitizer/asan_interface.h>
#endif
#endif
#ifndef ASAN_POISON_MEMORY_REGION
#define ASAN_POISON_MEMORY_REGION(a, n) ((void)(a), (void)(n))
#define ASAN_UNPOISON_MEMORY_REGION(a, n) ((void)(a), (void)(n))
#endif

/* The size clienthello.h promises is always enough. */
#define NAME_SIZE 254

static bool complete(enum jr_tls_sni v)
{
	return v == JR_TLS_SNI_FOUND || v == JR_TLS_NO_SNI;
}

/* ------------------------------------------------ independent reading */

struct rd {
	const uint8_t *p;
	size_t n, off;
};

static bool rd_take(struct rd *r, size_t n, const uint8_t **out)
{
	if (n > r->n - r->off)
		return false;
	*out = r->p + r->off;
	r->off += n;
	return true;
}

static bool rd_uint(struct rd *r, size_t n, size_t *v)
{
	const uint8_t *b;

	if (!rd_take(r, n, &b))
		return false;
	for (*v = 0; n; n--)
		*v = *v << 8 | *b++;
	return true;
}

/* A length-prefixed vector, its length in [min, max]. */
static bool rd_vec(struct rd *r, size_t lsize, size_t min, size_t max,
		   struct rd *sub)
{
	const uint8_t *b;
	size_t n;

	if (!rd_uint(r, lsize, &n) || n < min || n > max || !rd_take(r, n, &b))
		return false;
	*sub = (struct rd){ b, n, 0 };
	return true;
}

static bool ref_name(struct rd *r, char *out)
{
	size_t i, label = 0, n = r->n;
	const uint8_t *s = r->p;

	if (n && s[n - 1] == '.')
		n--;
	if (n < 1 || n > 253)
		return false;
	for (i = 0; i < n; i++) {
		uint8_t c = s[i];

		if (c == '.') {
			if (!label)
				return false;
			label = 0;
			out[i] = '.';
			continue;
		}
		if (!((c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') ||
		      (c >= '0' && c <= '9') || c == '-'))
			return false;
		if (++label > 63)
			return false;
		out[i] = (char)(c >= 'A' && c <= 'Z' ? c + 32 : c);
	}
	if (!label)
		return false;
	out[n] = '\0';
	return true;
}

/*
 * ref_hello - whether @buf starts with a complete, valid ClientHello.
 * Return: JR_TLS_SNI_FOUND or JR_TLS_NO_SNI with @name and @used;
 * JR_TLS_MALFORMED for anything else (incomplete included).
 */
static enum jr_tls_sni ref_hello(const uint8_t *buf, size_t n, char *name,
				 size_t *used)
{
	static uint8_t hs[JR_TLS_HELLO_MAX];
	static uint64_t seen[1024];
	size_t p = 0, hn = 0, want = 0, v, type;
	struct rd r, body, sub, list, host;
	const uint8_t *random;
	bool found = false;

	/* records, reassembled */
	for (;;) {
		size_t rl;

		if (n - p < 5 || buf[p] != 22 || buf[p + 1] != 3 ||
		    buf[p + 2] < 1 || buf[p + 2] > 3)
			return JR_TLS_MALFORMED;
		rl = (size_t)buf[p + 3] << 8 | buf[p + 4];
		if (rl < 1 || rl > 16384 || n - p - 5 < rl ||
		    p + 5 + rl > JR_TLS_HELLO_MAX)
			return JR_TLS_MALFORMED;
		memcpy(hs + hn, buf + p + 5, rl);
		hn += rl;
		p += 5 + rl;
		if (hn >= 4) {
			want = 4 + ((size_t)hs[1] << 16 | (size_t)hs[2] << 8 |
				    hs[3]);
			if (hn >= want)
				break;
		}
	}
	if (hn != want || hs[0] != 1)
		return JR_TLS_MALFORMED;
	*used = p;

	/* the ClientHello, in one piece */
	body = (struct rd){ hs + 4, hn - 4, 0 };
	if (!rd_uint(&body, 2, &v) || v < 0x0301 || v > 0x0303 ||
	    !rd_take(&body, 32, &random) || !rd_vec(&body, 1, 0, 32, &sub) ||
	    !rd_vec(&body, 2, 2, 65534, &sub) || sub.n % 2 ||
	    !rd_vec(&body, 1, 1, 255, &sub))
		return JR_TLS_MALFORMED;
	if (body.off == body.n)
		return JR_TLS_NO_SNI;
	if (!rd_vec(&body, 2, 0, 65535, &r) || body.off != body.n)
		return JR_TLS_MALFORMED;
	memset(seen, 0, sizeof(seen));
	while (r.off < r.n) {
		if (!rd_uint(&r, 2, &type) || !rd_vec(&r, 2, 0, 65535, &sub))
			return JR_TLS_MALFORMED;
		if (seen[type / 64] >> (type % 64) & 1)
			return JR_TLS_MALFORMED;
		seen[type / 64] |= UINT64_C(1) << (type % 64);
		if (type != 0)
			continue;
		if (!rd_vec(&sub, 2, 1, 65535, &list) || sub.off != sub.n ||
		    !rd_uint(&list, 1, &type) || type != 0 ||
		    !rd_vec(&list, 2, 1, 65535, &host) || list.off != list.n ||
		    !ref_name(&host, name))
			return JR_TLS_MALFORMED;
		found = true;
	}
	return found ? JR_TLS_SNI_FOUND : JR_TLS_NO_SNI;
}

/* ------------------------------------------------------------ oracle */

static void check_name(const char *s)
{
	size_t i, n = strlen(s), label = 0;

	check(n >= 1 && n <= 253);
	for (i = 0; i < n; i++) {
		if (s[i] == '.') {
			check(label);
			label = 0;
			continue;
		}
		check((s[i] >= 'a' && s[i] <= 'z') ||
		      (s[i] >= '0' && s[i] <= '9') || s[i] == '-');
		check(++label <= 63);
	}
	check(label);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char *name = malloc(NAME_SIZE), *pname = malloc(NAME_SIZE);
	char ref[NAME_SIZE];
	uint8_t *copy = malloc(size ? size : 1);
	enum jr_tls_sni v, pv, rv;
	size_t used, pused, rused = 0, k, len;
	bool decided = false;

	check(name && pname && copy);
	/* the whole input */
	v = jr_tls_client_hello_sni(data, size, name, NAME_SIZE, &used);
	check(v <= JR_TLS_MALFORMED);
	check(v != JR_TLS_NEED_MORE || size < JR_TLS_HELLO_MAX);
	if (complete(v)) {
		check(used <= size && used >= 5 + 4 + 41 &&
		      used <= JR_TLS_HELLO_MAX);
	} else if (v == JR_TLS_NEED_MORE) {
		check(used > size && used <= JR_TLS_HELLO_MAX);
	} else {
		check(used == 0);
	}
	if (v == JR_TLS_SNI_FOUND)
		check_name(name);
	else
		check(name[0] == '\0');

	/* the independent reading agrees on complete hellos */
	rv = ref_hello(data, size, ref, &rused);
	check(complete(v) == complete(rv));
	if (complete(v)) {
		check(v == rv && used == rused);
		check(v != JR_TLS_SNI_FOUND || !strcmp(name, ref));
	}

	/* every prefix, nothing past it readable */
	if (size)
		memcpy(copy, data, size);
	ASAN_POISON_MEMORY_REGION(copy, size);
	for (k = 0; k <= size; k++) {
		pv = jr_tls_client_hello_sni(copy, k, pname, NAME_SIZE, &pused);
		if (k < size)
			ASAN_UNPOISON_MEMORY_REGION(copy + k, 1);
		if (pv == JR_TLS_NEED_MORE) {
			check(!decided); /* an answer, once given, stays */
			check(k < JR_TLS_HELLO_MAX);
			check(pused > k && pused <= JR_TLS_HELLO_MAX);
			check(!complete(v) || pused <= used);
			check(v != JR_TLS_NOT_TLS || pused == k + 1);
			check(pname[0] == '\0');
			continue;
		}
		check(pv == v);
		check(pused == used && !strcmp(pname, name));
		check(!complete(v) || decided || k == used);
		decided = true;
	}
	ASAN_UNPOISON_MEMORY_REGION(copy, size);

	/* a relay that waits for the hint's length */
	len = 0;
	for (;;) {
		pv = jr_tls_client_hello_sni(data, len, pname, NAME_SIZE,
					     &pused);
		if (pv != JR_TLS_NEED_MORE || pused > size)
			break;
		len = pused;
	}
	check(pv == JR_TLS_NEED_MORE
		  ? v == JR_TLS_NEED_MORE || v == JR_TLS_MALFORMED
		  : pv == v);
	check(pv != v || !complete(v) || !strcmp(pname, name));

	/* the name buffer: exactly enough, one byte short */
	if (v == JR_TLS_SNI_FOUND) {
		size_t need = strlen(name) + 1;

		check(jr_tls_client_hello_sni(data, size, pname, need,
					      &pused) == JR_TLS_SNI_FOUND);
		check(!strcmp(pname, name) && pused == used);
		check(jr_tls_client_hello_sni(data, size, pname, need - 1,
					      &pused) == JR_TLS_MALFORMED);
	}
	free(copy);
	free(name);
	free(pname);
	return 0;
}
