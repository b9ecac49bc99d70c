// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * fuzz_authority.c - libFuzzer target: jr_http_parse_authority() and
 * jr_http_origin_form().
 *
 *   clang -g -O1 -fsanitize=fuzzer,address,undefined -Isrc \
 *     src/lib/err.c src/relay/http.c tests/fuzz/fuzz_authority.c -o fuzz_authority
 *   ./fuzz_authority tests/fuzz/corpus/authority
 *
 * The first byte picks the default port (byte % 3: none, 80, 443), the
 * rest is the authority; the whole input is also tried as an absolute
 * URI. Besides memory errors, it aborts when:
 *  - an accepted authority held '@', or an empty, uppercase or
 *    out-of-charset host, or port 0, or no port where one is required;
 *  - an IPv6 host is not an address inet_pton() reads, or one in a name;
 *  - "host:port" written back from the result ("[host]:port" for IPv6)
 *    does not parse to the same result;
 *  - a refusal wrote to the outputs;
 *  - an origin-form does not start with '/', holds a '#', or is not the
 *    path and query of the URI.
 */
#include <arpa/inet.h>
#include <errno.h>
#include <netinet/in.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "http.h"
#include "fuzz.h"

static void check_host(const char *host, bool v6)
{
	struct in6_addr a;
	const char *p;

	check(host[0]);
	for (p = host; *p; p++)
		check((*p >= 'a' && *p <= 'z') || (*p >= '0' && *p <= '9') ||
		      *p == '.' || *p == '-' || (v6 && *p == ':'));
	check(v6 == (inet_pton(AF_INET6, host, &a) == 1));
}

static void check_authority(const char *s, size_t n, uint16_t def)
{
	char host[64], again[64], text[128];
	bool v6 = true, v6_again;
	uint16_t port = 0, port_again;
	struct jr_err err;

	memset(host, 'X', sizeof(host));
	if (jr_http_parse_authority(s, n, def, host, sizeof(host), &v6, &port,
				    &err) < 0) {
		check(err.code == EINVAL);
		check(host[0] == 'X' && v6 && !port);
		return;
	}
	check(!memchr(s, '@', n));
	check(strlen(host) < sizeof(host));
	check_host(host, v6);
	check(port && (def || memchr(s, ':', n)));
	check(v6 == (s[0] == '['));
	snprintf(text, sizeof(text), v6 ? "[%s]:%u" : "%s:%u", host, port);
	check(!jr_http_parse_authority(text, strlen(text), 0, again,
				       sizeof(again), &v6_again, &port_again,
				       NULL));
	check(!strcmp(host, again) && v6 == v6_again && port == port_again);
}

/* memmem() without _GNU_SOURCE. */
static const char *find(const char *hay, size_t n, const char *needle, size_t m)
{
	size_t i;

	for (i = 0; i + m <= n; i++)
		if (!memcmp(hay + i, needle, m))
			return hay + i;
	return NULL;
}

static void check_origin(const char *s, size_t n)
{
	char out[256];
	const char *q;
	size_t len;

	if (jr_http_origin_form(s, n, out, sizeof(out)) < 0)
		return;
	len = strlen(out);
	check(out[0] == '/' && !strchr(out, '#'));
	/* what follows the authority, with "/" in front if it was empty */
	q = find(s, n, "://", 3);
	check(q);
	if (out[1] == '\0' || out[1] == '?')
		check(len == 1 || find(q, s + n - q, out + 1, len - 1));
	else
		check(find(q + 3, s + n - q - 3, out, len));
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static const uint16_t defaults[] = { 0, 80, 443 };

	if (!size)
		return 0;
	check_authority((const char *)data + 1, size - 1,
			defaults[data[0] % 3]);
	check_origin((const char *)data, size);
	return 0;
}
