// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * fuzz_http.c - libFuzzer target: jr_http_parse_request() on the input,
 * then, for an accepted head, the body tracker over the bytes after it.
 *
 *   clang -g -O1 -fsanitize=fuzzer,address,undefined -Isrc \
 *     src/lib/err.c src/relay/http.c tests/fuzz/fuzz_http.c -o fuzz_http
 *   ./fuzz_http tests/fuzz/corpus/http
 *
 * Besides memory errors, it aborts when a property the relay relies on
 * breaks:
 *  - the answer is 0 (only below JR_HTTP_HEAD_MAX), a head length, or
 *    -EINVAL / -EMSGSIZE; whatever is not a success leaves @req empty;
 *  - the answer is never 0 once the input holds "\n\n" or "\n\r\n": the
 *    relay relies on that to call the parser only when one arrives;
 *  - a head is reported with the same length, fields and upstream head
 *    when the input is cut right after it, and one byte shorter it is
 *    incomplete: nothing after the head changes how the head is read;
 *  - the upstream head is one well-formed head: CRLF lines only, no
 *    empty line but the last, Host first, "Connection: close" last;
 *  - the body tracker takes the same bytes, ends at the same place and
 *    fails the same way whether the rest comes at once or in pieces of
 *    sizes drawn from the input; a Content-Length body takes exactly
 *    min(length, rest).
 */
#include <errno.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "http.h"
#include "fuzz.h"

static bool is_empty(const struct jr_http_request *req)
{
	static const struct jr_http_request zero;

	return !memcmp(req, &zero, sizeof(zero));
}

static void check_upstream(const struct jr_http_request *req)
{
	const char *h = req->upstream_head, *line = h, *end;
	size_t n = req->upstream_head_len;

	check(h && strlen(h) == n && n >= 4);
	check(!strncmp(h, req->method, strlen(req->method)));
	check(!strncmp(h + strlen(req->method), " /", 2));
	check(strstr(h, " HTTP/1.1\r\nHost: "));
	check(!strcmp(h + n - 21, "Connection: close\r\n\r\n"));
	/* every LF ends a CRLF line; only the last line is empty */
	while ((end = strchr(line, '\n'))) {
		check(end > line && end[-1] == '\r');
		check(!memchr(line, '\r', end - 1 - line));
		check(end - 1 != line || end + 1 == h + n);
		line = end + 1;
	}
	check(line == h + n);
}

/* Same head, same reading. */
static void check_same(const struct jr_http_request *a,
		       const struct jr_http_request *b)
{
	check(a->form == b->form && a->port == b->port &&
	      a->host_is_ipv6 == b->host_is_ipv6 &&
	      a->head_len == b->head_len && a->body == b->body &&
	      a->body_length == b->body_length &&
	      a->upstream_head_len == b->upstream_head_len);
	check(!strcmp(a->method, b->method) && !strcmp(a->host, b->host));
	check(!a->upstream_head || !memcmp(a->upstream_head, b->upstream_head,
					   a->upstream_head_len));
}

/* memmem() without _GNU_SOURCE. */
static bool contains(const char *hay, size_t n, const char *needle, size_t m)
{
	size_t i;

	for (i = 0; i + m <= n; i++)
		if (!memcmp(hay + i, needle, m))
			return true;
	return false;
}

static uint64_t rng_next(uint64_t *s)
{
	*s ^= *s << 13;
	*s ^= *s >> 7;
	*s ^= *s << 17;
	return *s;
}

/* Feed @rest to a fresh tracker in pieces; the totals and the ending. */
static long feed(const struct jr_http_request *req, const char *rest, size_t n,
		 uint64_t seed, bool *done)
{
	struct jr_http_body_tracker t;
	size_t off = 0;
	long total = 0;

	jr_http_body_init(&t, req);
	while (off < n) {
		size_t piece = seed ? rng_next(&seed) % 17 : n - off;
		long r;

		if (piece > n - off)
			piece = n - off;
		r = jr_http_body_feed(&t, rest + off, piece);
		if (r < 0) {
			check(r == -EINVAL &&
			      req->body == JR_HTTP_BODY_CHUNKED);
			return r;
		}
		check((size_t)r <= piece);
		check((size_t)r == piece || t.done);
		total += r;
		off += piece;
		if (t.done)
			break;
	}
	*done = t.done;
	/* after the end, nothing more is body */
	if (t.done)
		check(jr_http_body_feed(&t, "0\r\n\r\n", 5) == 0);
	return total;
}

static void check_body(const struct jr_http_request *req, const char *rest,
		       size_t n)
{
	uint64_t seed = 0x9e3779b97f4a7c15ULL;
	bool done_whole = false, done_pieces = false;
	long whole, pieces;
	size_t i;

	for (i = 0; i < n; i++)
		seed = (seed ^ (uint8_t)rest[i]) * 0x100000001b3ULL;
	seed |= 1;
	whole = feed(req, rest, n, 0, &done_whole);
	pieces = feed(req, rest, n, seed, &done_pieces);
	check(whole == pieces);
	if (whole >= 0)
		check(done_whole == done_pieces);
	if (req->body == JR_HTTP_BODY_LENGTH)
		check((uint64_t)whole ==
		      (req->body_length < n ? req->body_length : n));
	if (req->body == JR_HTTP_BODY_NONE)
		check(whole == 0 && done_whole);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	const char *buf = (const char *)data;
	struct jr_http_request req, cut;
	struct jr_err err;
	long r = jr_http_parse_request(buf, size, &req, &err);

	if (r <= 0) {
		check(r == 0 || r == -EINVAL || r == -EMSGSIZE || r == -ENOMEM);
		check(r || size < JR_HTTP_HEAD_MAX);
		check(r || (!contains(buf, size, "\n\n", 2) &&
			    !contains(buf, size, "\n\r\n", 3)));
		check(r == 0 || err.code == -r);
		check(is_empty(&req));
		return 0;
	}
	check((size_t)r == req.head_len && (size_t)r <= size &&
	      r <= JR_HTTP_HEAD_MAX && r >= 4);
	check(!memcmp(buf + r - 4, "\r\n\r\n", 4));
	check(req.host[0] && req.port);
	check((req.form == JR_HTTP_FORM_CONNECT) == !req.upstream_head);
	if (req.upstream_head)
		check_upstream(&req);
	if (req.form == JR_HTTP_FORM_CONNECT)
		check(req.body == JR_HTTP_BODY_NONE);

	check(jr_http_parse_request(buf, r, &cut, NULL) == r);
	check_same(&req, &cut);
	jr_http_request_release(&cut);
	check(jr_http_parse_request(buf, r - 1, &cut, NULL) == 0);

	check_body(&req, buf + r, size - r);
	jr_http_request_release(&req);
	return 0;
}
