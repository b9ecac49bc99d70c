// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * fakeip.c - synthetic addresses for allowed names (see fakeip.h).
 *
 * Theory of operation
 *
 * Names get numbers 1, 2, 3, ... in the order they are first asked for,
 * and a number is an address in each pool: IPv4 198.18.0.0 + n, IPv6
 * JR_FAKEIP_V6_PREFIX + n in the interface identifier. So the reverse
 * lookup is arithmetic (address - base = n, then names[n - 1]) and needs
 * no second table, and an address can never come to mean another name:
 * numbers are only ever appended. Number 0 would be the /15's network
 * address and 131071 its broadcast address (198.19.255.255); neither is
 * handed out, which leaves JR_FAKEIP_V4_NAMES names.
 *
 * Forward lookup is an open-addressing hash table of name numbers, linear
 * probing, at most half full, doubled as it fills. The hash is FNV-1a
 * keyed with a per-table seed from getrandom(2), so the names a command
 * chooses (any under an allowed *.example.com) cannot be picked to fall in
 * one probe chain of every table.
 *
 * Memory is bounded by the capacity and grows only with use: per name, the
 * name itself (strlen + 1 bytes, malloc'd), one pointer and one family
 * byte in the names array, and two 32-bit hash slots: about 30 bytes plus
 * the name's length plus malloc's own overhead; at most ~37 MiB for the
 * full pool of 253-character names, ~8 MiB for typical 20-character ones.
 * Arrays grow by doubling, never past the capacity.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/random.h>

#include "fakeip.h"
#include "host.h"

#define V4_BASE 0xc6120000u /* 198.18.0.0, host order */
#define FAMILY_V4 1u
#define FAMILY_V6 2u

static const uint8_t v6_prefix[8] = { 0xfd, 0x6a, 0x72, 0x72,
				      0x69, 0x70, 0x00, 0x00 };

struct jr_fakeip {
	size_t capacity;   /* names at most */
	size_t n;	   /* names handed out: numbers 1..n */
	size_t n_cap;	   /* allocated entries of names and families */
	char **names;	   /* names[i]: the name of number i + 1 */
	uint8_t *families; /* FAMILY_V4 | FAMILY_V6: which were handed out */
	uint32_t *slots;   /* hash table: a number, 0 = empty */
	size_t n_slots;	   /* a power of two */
	uint64_t seed;
};

static uint64_t hash_name(const struct jr_fakeip *f, const char *name)
{
	uint64_t h = 0xcbf29ce484222325ULL ^ f->seed;

	for (const unsigned char *p = (const unsigned char *)name; *p; p++) {
		h ^= *p;
		h *= 0x100000001b3ULL;
	}
	/* FNV-1a mixes the low bits poorly; finish like splitmix64. */
	h ^= h >> 31;
	h *= 0x7fb5d329728ea185ULL;
	h ^= h >> 27;
	return h;
}

int jr_fakeip_new(size_t capacity, struct jr_fakeip **out)
{
	struct jr_fakeip *f = calloc(1, sizeof(*f));

	if (!f)
		return -ENOMEM;
	if (!capacity || capacity > JR_FAKEIP_V4_NAMES)
		capacity = JR_FAKEIP_V4_NAMES;
	f->capacity = capacity;
	/* No entropy yet (early boot): a fixed seed still works, it only
	 * loses the protection against chosen collisions. */
	if (getrandom(&f->seed, sizeof(f->seed), GRND_NONBLOCK) !=
	    (ssize_t)sizeof(f->seed))
		f->seed = 0x6a61696c72756e00ULL;
	*out = f;
	return 0;
}

void jr_fakeip_free(struct jr_fakeip *f)
{
	if (!f)
		return;
	for (size_t i = 0; i < f->n; i++)
		free(f->names[i]);
	free(f->names);
	free(f->families);
	free(f->slots);
	free(f);
}

/* The slot holding @name's number, or the empty slot where it would go. */
static size_t find_slot(const struct jr_fakeip *f, const char *name)
{
	size_t mask = f->n_slots - 1;
	size_t i = (size_t)hash_name(f, name) & mask;

	while (f->slots[i] && strcmp(f->names[f->slots[i] - 1], name) != 0)
		i = (i + 1) & mask;
	return i;
}

/* Room for one more name: entries and a table at most half full. */
static int grow(struct jr_fakeip *f)
{
	if (f->n == f->n_cap) {
		size_t cap = f->n_cap ? f->n_cap * 2 : 16;
		char **names;
		uint8_t *fam;

		if (cap > f->capacity)
			cap = f->capacity;
		names = realloc(f->names, cap * sizeof(*names));
		if (!names)
			return -ENOMEM;
		f->names = names;
		fam = realloc(f->families, cap);
		if (!fam)
			return -ENOMEM;
		f->families = fam;
		f->n_cap = cap;
	}
	if ((f->n + 1) * 2 > f->n_slots) {
		size_t n_slots = f->n_slots ? f->n_slots * 2 : 32;
		uint32_t *old = f->slots;
		size_t old_n = f->n_slots;

		f->slots = calloc(n_slots, sizeof(*f->slots));
		if (!f->slots) {
			f->slots = old;
			return -ENOMEM;
		}
		f->n_slots = n_slots;
		for (size_t i = 0; i < old_n; i++)
			if (old[i])
				f->slots[find_slot(f, f->names[old[i] - 1])] =
				    old[i];
		free(old);
	}
	return 0;
}

/* The form jr_dns_parse_query() gives a name: 1..253 printable ASCII
 * characters, no upper case, no trailing dot. */
static bool name_ok(const char *name)
{
	size_t len;

	if (!name)
		return false;
	len = strnlen(name, JR_HOST_MAX + 1);
	if (!len || len > JR_HOST_MAX || name[len - 1] == '.')
		return false;
	for (size_t i = 0; i < len; i++)
		if (name[i] <= ' ' || name[i] > '~' ||
		    (name[i] >= 'A' && name[i] <= 'Z'))
			return false;
	return true;
}

static void number_to_addr(uint32_t num, int family, void *out)
{
	if (family == AF_INET) {
		struct in_addr a = { .s_addr = htonl(V4_BASE + num) };

		memcpy(out, &a, sizeof(a));
	} else {
		struct in6_addr a;

		memcpy(a.s6_addr, v6_prefix, 8);
		for (int i = 0; i < 8; i++)
			a.s6_addr[15 - i] = (uint8_t)((uint64_t)num >> (8 * i));
		memcpy(out, &a, sizeof(a));
	}
}

int jr_fakeip_assign(struct jr_fakeip *f, const char *name, int family,
		     void *out)
{
	size_t i;
	uint32_t num;
	char *copy;
	int e;

	if (!f || !out || (family != AF_INET && family != AF_INET6) ||
	    !name_ok(name))
		return -EINVAL;
	if (f->n_slots) {
		i = find_slot(f, name);
		if (f->slots[i]) {
			num = f->slots[i];
			goto found;
		}
	}
	if (f->n >= f->capacity)
		return -ENOSPC;
	e = grow(f);
	if (e < 0)
		return e;
	copy = strdup(name);
	if (!copy)
		return -ENOMEM;
	num = (uint32_t)++f->n;
	f->names[num - 1] = copy;
	f->families[num - 1] = 0;
	f->slots[find_slot(f, name)] = num;
found:
	f->families[num - 1] |= family == AF_INET ? FAMILY_V4 : FAMILY_V6;
	number_to_addr(num, family, out);
	return 0;
}

/*
 * The number @sa stands for in its pool, 0 if outside both pools. A
 * v4-mapped IPv6 address (::ffff:198.18.0.1) is read as the IPv4 one:
 * that is what a dual-stack socket connecting to an A answer shows.
 */
static uint64_t addr_number(const struct sockaddr *sa, unsigned int *family)
{
	static const uint8_t mapped[12] = { 0, 0, 0, 0, 0,    0,
					    0, 0, 0, 0, 0xff, 0xff };
	uint32_t v4;

	if (!sa)
		return 0;
	if (sa->sa_family == AF_INET) {
		v4 = ntohl(((const struct sockaddr_in *)sa)->sin_addr.s_addr);
	} else if (sa->sa_family == AF_INET6) {
		const uint8_t *b =
		    ((const struct sockaddr_in6 *)sa)->sin6_addr.s6_addr;
		uint64_t num = 0;

		if (memcmp(b, mapped, sizeof(mapped)) == 0) {
			memcpy(&v4, b + 12, 4);
			v4 = ntohl(v4);
		} else {
			if (memcmp(b, v6_prefix, 8) != 0)
				return 0;
			for (int i = 8; i < 16; i++)
				num = num << 8 | b[i];
			*family = FAMILY_V6;
			return num;
		}
	} else {
		return 0;
	}
	if (v4 >> (32 - JR_FAKEIP_V4_LEN) != V4_BASE >> (32 - JR_FAKEIP_V4_LEN))
		return 0;
	*family = FAMILY_V4;
	return v4 - V4_BASE;
}

const char *jr_fakeip_lookup(const struct jr_fakeip *f,
			     const struct sockaddr *sa)
{
	unsigned int family = 0;
	uint64_t num = addr_number(sa, &family);

	if (!f || !num || num > f->n || !(f->families[num - 1] & family))
		return NULL;
	return f->names[num - 1];
}

bool jr_fakeip_in_pool(const struct sockaddr *sa)
{
	unsigned int family = 0;

	addr_number(sa, &family);
	return family != 0;
}

size_t jr_fakeip_count(const struct jr_fakeip *f)
{
	return f ? f->n : 0;
}
