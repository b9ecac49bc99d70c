// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * fuzz_secrets.c - libFuzzer target for the request-head rewriter of
 * --secret (jr_secrets_rewrite_head(): placeholders swapped for real
 * values in header fields, Basic credentials decoded, rewritten and
 * encoded again) and for the base64 coder it uses.
 *
 * The input's first byte picks the host and port the head is headed for
 * (bound to one secret, two, none; in another case, with a trailing dot;
 * a bound host on a port it is not bound on); the rest is the head, and
 * also, after "K@", a --secret spec for jr_secret_spec_parse(). Three fixed secrets: placeholders are made of [A-Z0-9_] and
 * always hold '_', values of punctuation only, so a value (or base64 of
 * one: no '_' in its alphabet) can never form a placeholder, and every
 * placeholder found in the output was in the input. The request line is
 * only ever text (a Basic token there is not decoded: the proxy's parser
 * never lets a field be the first line). Besides ASan/UBSan/
 * leak findings, it aborts on broken invariants:
 *   - misuse (1) exactly when the head holds, in plain text or in a
 *     decodable Basic token, the placeholder of a secret not bound to the
 *     host; then nothing is returned;
 *   - on success the output is as long as the input (a value is as long
 *     as its placeholder, and so is a re-encoded token), its request line
 *     is unchanged, no placeholder of a secret not bound to the host is
 *     in it, decoded Basic tokens included, and no placeholder at all is
 *     left after the request line (a bound one is replaced wherever it
 *     is); without any placeholder in the input, the output is the input;
 *   - base64: decode(encode(x)) == x, and what decodes encodes back to the
 *     same text;
 *   - the binding: jr_secret_bound_to() agrees with a fixed table of
 *     which secret goes to which host and port; a spec that parses has 1
 *     to JR_SECRET_HOSTS_MAX bindings, each a non-empty lowercase host
 *     with a port from 1 to 65535 that jr_secret_bound_to() finds, and
 *     one that does not parse leaves nothing allocated and says why.
 *
 * Build and run (see also tests/fuzz/corpus/secrets/; secrets.c reaches
 * options.c, so the link list is the config target's, in run.sh):
 *   tests/fuzz/run.sh   (FUZZ_SECONDS=60)
 */
#include <errno.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "fuzz.h"
#include "secrets.h"

static char *hosts_a[] = { "api.test" };
static char *hosts_b[] = { "other.test" };
static char *hosts_c[] = { "api.test", "third.test" };
static uint16_t ports_a[] = { 443 };
static uint16_t ports_b[] = { 443 };
static uint16_t ports_c[] = { 8443, 443 };

static char ph_a[] = "PHA_0000000000";
static char ph_b[] = "PHB_11";
static char ph_c[] = "PHC_2222222222222222222222";
static char val_a[] = "!!!!!!!!!!!!!!";
static char val_b[] = "######";
static char val_c[] = "$$$$$$$$$$$$$$$$$$$$$$$$$$";

static const struct {
	const char *host;
	uint16_t port;
	bool bound[3]; /* to A, B, C: the oracle for jr_secret_bound_to() */
} targets[] = {
	{ "api.test", 443, { true, false, false } },
	{ "other.test", 443, { false, true, false } },
	{ "third.test", 443, { false, false, true } },
	{ "API.Test.", 443, { true, false, false } },
	{ "none.test", 443, { false, false, false } },
	{ "api.test", 8443, { false, false, true } },
	{ "other.test", 80, { false, false, false } },
	{ "third.test", 8443, { false, false, false } },
};

static struct jr_secrets set;

static void set_once(void)
{
	static bool ready;
	struct jr_secret *s = set.s;

	if (ready)
		return;
	s[0] = (struct jr_secret){ .name = "A",
				   .hosts = hosts_a,
				   .ports = ports_a,
				   .n_hosts = 1,
				   .value = val_a,
				   .placeholder = ph_a,
				   .len = sizeof(ph_a) - 1 };
	s[1] = (struct jr_secret){ .name = "B",
				   .hosts = hosts_b,
				   .ports = ports_b,
				   .n_hosts = 1,
				   .value = val_b,
				   .placeholder = ph_b,
				   .len = sizeof(ph_b) - 1 };
	s[2] = (struct jr_secret){ .name = "C",
				   .hosts = hosts_c,
				   .ports = ports_c,
				   .n_hosts = 2,
				   .value = val_c,
				   .placeholder = ph_c,
				   .len = sizeof(ph_c) - 1 };
	set.n = 3;
	for (size_t t = 0; t < sizeof(targets) / sizeof(targets[0]); t++)
		for (size_t i = 0; i < set.n; i++)
			check(jr_secret_bound_to(&s[i], targets[t].host,
						 targets[t].port) ==
			      targets[t].bound[i]);
	ready = true;
}

/* Does @s[0..@n] hold a placeholder: of a secret not bound to @host:@port
 * (@unbound), or of any secret? */
static bool has_placeholder(const char *s, size_t n, const char *host,
			    uint16_t port, bool unbound)
{
	for (size_t i = 0; i < set.n; i++)
		if ((!unbound || !jr_secret_bound_to(&set.s[i], host, port)) &&
		    memmem(s, n, set.s[i].placeholder, set.s[i].len))
			return true;
	return false;
}

/* The same, looking also into each decodable "Authorization: Basic"
 * token (as the rewriter reads them: the token runs to a blank). */
static bool head_has(const char *h, size_t n, const char *host, uint16_t port,
		     bool unbound)
{
	const char *end = h + n, *p = memchr(h, '\n', n);

	if (has_placeholder(h, n, host, port, unbound))
		return true;
	/* The request line is text only; each field after it. */
	p = p ? p + 1 : end;
	while (p < end) {
		const char *nl = memchr(p, '\n', (size_t)(end - p));
		const char *le = nl ? nl : end, *q, *tok, *te;
		uint8_t *dec;
		long dl;
		bool hit = false;

		while (le > p && (le[-1] == '\r' || le[-1] == '\n'))
			le--;
		q = p + 14;
		if (le - p < 14 || strncasecmp(p, "authorization:", 14) != 0)
			goto next;
		while (q < le && (*q == ' ' || *q == '\t'))
			q++;
		if (le - q < 6 || strncasecmp(q, "basic", 5) != 0 ||
		    (q[5] != ' ' && q[5] != '\t'))
			goto next;
		tok = q + 6;
		while (tok < le && (*tok == ' ' || *tok == '\t'))
			tok++;
		te = tok;
		while (te < le && *te != ' ' && *te != '\t')
			te++;
		dec = malloc((size_t)(te - tok) / 4 * 3 + 4);
		check(dec);
		dl = jr_base64_decode(tok, (size_t)(te - tok), dec);
		if (dl >= 0)
			hit = has_placeholder((const char *)dec, (size_t)dl,
					      host, port, unbound);
		free(dec);
		if (hit)
			return true;
	next:
		p = nl ? nl + 1 : end;
	}
	return false;
}

static void fuzz_base64(const uint8_t *data, size_t size)
{
	char *enc = malloc((size + 2) / 3 * 4 + 1);
	uint8_t *dec = malloc(size + 4);
	size_t el;
	long dl;

	check(enc && dec);
	el = jr_base64_encode(data, size, enc);
	check(el == (size + 2) / 3 * 4 && strlen(enc) == el);
	dl = jr_base64_decode(enc, el, dec);
	check(dl == (long)size && !memcmp(dec, data, size));
	/*
	 * The input as base64 text: what decodes encodes back to text of the
	 * same length that decodes to the same bytes. Not to the same text:
	 * the decoder accepts nonzero pad bits ("TGG=" and "TGE=" are both
	 * "La"; RFC 4648 3.5 leaves rejecting them to the decoder), on
	 * purpose, so that a placeholder in a Basic token so encoded is still
	 * seen; the rewriter re-encodes canonically.
	 */
	dl = jr_base64_decode((const char *)data, size, dec);
	if (dl >= 0) {
		char *again = malloc((size_t)dl / 3 * 4 + 8);
		uint8_t *back = malloc((size_t)dl + 4);

		check(again && back);
		check(jr_base64_encode(dec, (size_t)dl, again) == size);
		check(jr_base64_decode(again, size, back) == dl);
		check(!memcmp(back, dec, (size_t)dl));
		free(again);
		free(back);
	}
	free(enc);
	free(dec);
}

/* "K@" and the input as a --secret spec (up to its first NUL). */
static void fuzz_spec(const char *in, size_t n)
{
	char *spec = malloc(n + 3);
	struct jr_secret s;
	struct jr_err err = { 0 };

	check(spec);
	memcpy(spec, "K@", 2);
	memcpy(spec + 2, in, n);
	spec[n + 2] = '\0';
	if (jr_secret_spec_parse(spec, &s, &err) == 0) {
		check(s.n_hosts >= 1 && s.n_hosts <= JR_SECRET_HOSTS_MAX);
		for (size_t i = 0; i < s.n_hosts; i++) {
			check(s.hosts[i][0] != '\0' && s.ports[i] >= 1);
			for (const char *c = s.hosts[i]; *c; c++)
				check(*c < 'A' || *c > 'Z');
			check(jr_secret_bound_to(&s, s.hosts[i], s.ports[i]));
		}
		jr_secret_release(&s);
	} else {
		check(err.msg[0] != '\0');
	}
	check(!s.name && !s.hosts && !s.ports && !s.n_hosts);
	free(spec);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct jr_secrets_verdict v;
	const char *host, *head, *nl;
	size_t len, line, out_len = 7;
	char *out = (char *)1;
	uint16_t port;
	int r;

	if (size < 1)
		return 0;
	set_once();
	host = targets[data[0] % (sizeof(targets) / sizeof(targets[0]))].host;
	port = targets[data[0] % (sizeof(targets) / sizeof(targets[0]))].port;
	head = (const char *)data + 1;
	len = size - 1;
	fuzz_base64((const uint8_t *)head, len);
	fuzz_spec(head, len);

	r = jr_secrets_rewrite_head(&set, host, port, head, len, &out, &out_len,
				    &v);
	check(r == 0 || r == 1 || r == -ENOMEM);
	if (r == -ENOMEM) {
		check(!out);
		return 0;
	}
	check((r == 1) == head_has(head, len, host, port, true));
	if (r == 1) {
		check(!out && !out_len && v.misuse_name && !v.injected);
		return 0;
	}
	check(!v.misuse_name && out);
	check(out_len == len && out[out_len] == '\0');
	nl = memchr(head, '\n', len);
	line = nl ? (size_t)(nl - head) + 1 : len;
	check(!memcmp(out, head, line));
	check(!head_has(out, out_len, host, port, true));
	check(!has_placeholder(out + line, out_len - line, host, port, false));
	if (!head_has(head, len, host, port, false))
		check(!memcmp(out, head, len) && !v.injected);
	free(out);
	return 0;
}
