// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * fuzz_policy.c - libFuzzer target for the allowlist grammar and matching.
 *
 * The input is tried three ways: as an --allow entry (a NUL-terminated
 * copy, so embedded NULs cut it as a C caller would), as a host for
 * jr_policy_check_name() against a fixed policy and against the entry it
 * produced, and as a 16-byte (IPv6) or 4-byte (IPv4) address for the guard.
 * Besides ASan/UBSan/leak findings, it aborts on broken invariants: an
 * accepted entry must match the destination it names and not what it must
 * not (a wildcard's apex), and a refusal must leave the policy untouched
 * and say why.
 *
 * Build and run (see also tests/fuzz/corpus/policy/):
 *   clang -g -O1 -fsanitize=fuzzer,address,undefined -Isrc -include /dev/null \
 *     src/lib/err.c src/policy/policy.c tests/fuzz/fuzz_policy.c -o /tmp/fuzz_policy
 *   /tmp/fuzz_policy tests/fuzz/corpus/policy -max_total_time=60
 */
#include <arpa/inet.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "policy.h"
#include "fuzz.h"

/* Entries that cover every kind, so arbitrary hosts reach every matcher. */
static const char *const fixed_entries[] = {
	"example.com",
	"*.example.org:443",
	"192.0.2.0/24",
	"127.0.0.1:8080",
	"169.254.169.254",
	"[2001:db8::/32]:443",
	"::1",
	"fe80::/10",
	"*.com",
	"0.0.0.0/0:80",
};

static struct jr_policy fixed;

static void fixed_policy_once(void)
{
	static int ready;
	struct jr_err err = { 0 };

	if (ready)
		return;
	jr_policy_init(&fixed);
	for (size_t i = 0; i < sizeof(fixed_entries) / sizeof(fixed_entries[0]);
	     i++)
		if (jr_policy_add(&fixed, fixed_entries[i], &err) != 0) {
			fprintf(stderr, "fixed entry refused: %s\n", err.msg);
			abort();
		}
	ready = 1;
}

static void invariant(int ok, const char *what, const char *entry)
{
	if (!ok) {
		fprintf(stderr, "invariant broken: %s (entry '%s')\n", what,
			entry);
		abort();
	}
}

/*
 * Is @a inside one of the /96s whose addresses are judged as IPv4? An IPv6
 * CIDR wider than /96 may start there (64:ff9b::/95); its network address
 * is then matched as IPv4 by design, so it is not a fair probe.
 */
static int ipv6_carries_ipv4(const uint8_t *a)
{
	static const uint8_t mapped[12] = { [10] = 0xff, [11] = 0xff };
	static const uint8_t nat64[12] = { 0x00, 0x64, 0xff, 0x9b };
	static const uint8_t zero[12] = { 0 };

	return !memcmp(a, mapped, 12) || !memcmp(a, nat64, 12) ||
	       !memcmp(a, zero, 12);
}

/* An accepted entry must admit what it names, on its own port. */
static void check_entry_matches_itself(const struct jr_policy *p,
				       const char *entry)
{
	const struct jr_allow_entry *e = &p->entries[0];
	uint16_t port = e->port ? e->port : 443;
	char host[JR_HOST_MAX + 3];

	switch (e->kind) {
	case JR_ALLOW_HOST:
		invariant(jr_policy_check_name(p, e->name, port) == JR_ALLOWED,
			  "host entry does not match its name", entry);
		invariant(jr_policy_name_allowed(p, e->name),
			  "host entry not allowed for DNS", entry);
		if (e->port)
			invariant(jr_policy_check_name(p, e->name,
						       (uint16_t)(port + 1)) ==
				      JR_DENY_PORT,
				  "port scope leaks", entry);
		break;
	case JR_ALLOW_WILDCARD:
		invariant(jr_policy_check_name(p, e->name, port) != JR_ALLOWED,
			  "wildcard matches its apex", entry);
		snprintf(host, sizeof(host), "a.%s", e->name);
		invariant(jr_policy_check_name(p, host, port) == JR_ALLOWED,
			  "wildcard does not match a name below it", entry);
		break;
	case JR_ALLOW_ADDR:
		if (e->family == AF_INET6 && ipv6_carries_ipv4(e->addr))
			break;
		if (!inet_ntop(e->family, e->addr, host, sizeof(host)))
			abort();
		invariant(jr_policy_check_name(p, host, port) == JR_ALLOWED,
			  "address entry does not match its network address",
			  entry);
		break;
	default:
		invariant(0, "unknown kind", entry);
	}
}

static void check_as_address(const struct jr_policy *p, const uint8_t *data,
			     size_t size)
{
	struct sockaddr_in6 sin6 = { .sin6_family = AF_INET6 };
	struct sockaddr_in sin = { .sin_family = AF_INET };
	uint16_t port = size >= 18 ? (uint16_t)(data[16] << 8 | data[17]) : 80;

	if (size >= 16) {
		memcpy(&sin6.sin6_addr, data, 16);
		(void)jr_policy_check_address(p, (struct sockaddr *)&sin6,
					      port);
		(void)jr_policy_check_local_address(p, (struct sockaddr *)&sin6,
						    port);
	}
	if (size >= 4) {
		memcpy(&sin.sin_addr, data, 4);
		(void)jr_policy_check_address(p, (struct sockaddr *)&sin, port);
		(void)jr_policy_check_local_address(p, (struct sockaddr *)&sin,
						    port);
	}
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct jr_policy p;
	struct jr_err err = { 0 };
	char *text = malloc(size + 1);
	int r;

	if (!text)
		return 0;
	memcpy(text, data, size);
	text[size] = '\0';
	fixed_policy_once();

	jr_policy_init(&p);
	r = jr_policy_add(&p, text, &err);
	if (r == 0) {
		invariant(p.n == 1, "accepted entry not stored once", text);
		check_entry_matches_itself(&p, text);
		(void)jr_policy_check_name(&p, text, 443);
		(void)jr_policy_name_allowed(&p, text);
	} else {
		invariant(p.n == 0, "refused entry stored", text);
		invariant(err.msg[0] != '\0' && !strchr(err.msg, '\n'),
			  "refusal without a one-line message", text);
	}

	(void)jr_policy_check_name(&fixed, text, 443);
	(void)jr_policy_check_name(&fixed, text, 0);
	(void)jr_policy_name_allowed(&fixed, text);
	check_as_address(&fixed, data, size);
	check_as_address(&p, data, size);

	/* --allow-private: the same parser, its own rules; an accepted
	 * value is kept for the guard only, never as an allowlist entry. */
	jr_policy_free(&p);
	r = jr_policy_add_private(&p, text, &err);
	invariant(r == 0 ? p.n_private == 1 && p.n == 0 : p.n_private == 0,
		  "--allow-private stored wrongly", text);
	invariant(r == 0 || (err.msg[0] != '\0' && !strchr(err.msg, '\n')),
		  "--allow-private refusal without a one-line message", text);
	/* --net public: names pass, the guard still speaks. */
	p.match_any = true;
	(void)jr_policy_check_name(&p, text, 443);
	(void)jr_policy_name_allowed(&p, text);
	check_as_address(&p, data, size);

	jr_host_normalise(text);
	jr_policy_free(&p);
	free(text);
	return 0;
}
