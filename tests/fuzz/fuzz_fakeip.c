// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * fuzz_fakeip.c - fakeip.c against a reference model: a plain array of the
 * names in the order they were first assigned, searched linearly.
 *
 * Input: byte 0 is the capacity (1..256); then operations, each one byte
 * of op and a name up to the next '\n'. Op bit 0: family (IPv4/IPv6); bit
 * 1: also look up an address the op's byte chooses. Checked: a name's
 * address never changes; the address is the model's number in the pool;
 * the reverse lookup gives the name back; -ENOSPC exactly when the model
 * is full and the name is new; -EINVAL exactly for names the model
 * refuses; an address beyond the last name maps to nothing.
 */
#include <arpa/inet.h>
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "fakeip.h"
#include "fuzz.h"
#include "host.h"

#define MODEL_MAX 256

static bool model_name_ok(const char *n, size_t len)
{
	if (!len || len > JR_HOST_MAX || n[len - 1] == '.')
		return false;
	for (size_t i = 0; i < len; i++)
		if (n[i] <= ' ' || n[i] > '~' || (n[i] >= 'A' && n[i] <= 'Z'))
			return false;
	return true;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static char model[MODEL_MAX][JR_HOST_MAX + 1];
	size_t n_model = 0, cap, off = 1;
	struct jr_fakeip *f;

	if (size < 1)
		return 0;
	cap = (size_t)data[0] + 1;
	if (jr_fakeip_new(cap, &f) < 0)
		return 0;
	while (off < size) {
		uint8_t op = data[off++];
		const uint8_t *nl = memchr(data + off, '\n', size - off);
		size_t len = nl ? (size_t)(nl - (data + off)) : size - off;
		char name[JR_HOST_MAX + 2];
		int family = op & 1 ? AF_INET6 : AF_INET;
		union {
			struct in_addr v4;
			struct in6_addr v6;
		} a;
		size_t num = 0;
		int e;

		if (len > JR_HOST_MAX + 1)
			len = JR_HOST_MAX + 1;
		memcpy(name, data + off, len);
		name[len] = '\0';
		off += len + (nl ? 1 : 0);
		len = strlen(name); /* an embedded NUL ends the name */

		for (size_t i = 0; i < n_model; i++)
			if (strcmp(model[i], name) == 0)
				num = i + 1;
		e = jr_fakeip_assign(f, name, family, &a);
		if (!model_name_ok(name, len)) {
			check(e == -EINVAL);
		} else if (!num && n_model == cap) {
			check(e == -ENOSPC);
		} else {
			struct sockaddr_storage ss = { 0 };

			check(e == 0);
			if (!num) {
				snprintf(model[n_model], sizeof(model[0]), "%s",
					 name);
				num = ++n_model;
			}
			if (family == AF_INET) {
				struct sockaddr_in *sin = (void *)&ss;

				check(ntohl(a.v4.s_addr) == 0xc6120000u + num);
				sin->sin_family = AF_INET;
				sin->sin_addr = a.v4;
			} else {
				struct sockaddr_in6 *sin6 = (void *)&ss;

				check(a.v6.s6_addr[15] == (uint8_t)num);
				sin6->sin6_family = AF_INET6;
				sin6->sin6_addr = a.v6;
			}
			check(jr_fakeip_in_pool((struct sockaddr *)&ss));
			check(
			    jr_fakeip_lookup(f, (struct sockaddr *)&ss) &&
			    strcmp(jr_fakeip_lookup(f, (struct sockaddr *)&ss),
				   name) == 0);
		}
		check(jr_fakeip_count(f) == n_model);
		if (op & 2) {
			struct sockaddr_in sin = { .sin_family = AF_INET };
			uint32_t k = (uint32_t)(op >> 2);
			const char *got;

			sin.sin_addr.s_addr = htonl(0xc6120000u + k);
			got = jr_fakeip_lookup(f, (struct sockaddr *)&sin);
			if (k == 0 || k > n_model)
				check(!got);
			else if (got)
				check(strcmp(got, model[k - 1]) == 0);
		}
	}
	jr_fakeip_free(f);
	return 0;
}
