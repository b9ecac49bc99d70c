/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * fakeip.h - synthetic addresses for allowed names (transparent egress).
 *
 * The sandbox's DNS forwarder answers an allowed name with an address of
 * a per-sandbox pool instead of the name's real address; a connection to
 * that address is captured in the relay netns and the relay finds the
 * name again here. A program that ignores the proxy then still reaches
 * an allowed *name*, on any TCP protocol, and the relay decides with the
 * name, never with an address the command chose.
 *
 * IPv4 pool: 198.18.0.0/15 (RFC 2544 benchmarking space: never routed).
 * IPv6 pool: JR_FAKEIP_V6_PREFIX/64 (a ULA prefix, RFC 4193), used only
 * when the sandbox has IPv6. One name gets one address per family, stable
 * for the life of the sandbox; addresses are never reused for another
 * name, so a connection can never reach a name its DNS answer did not
 * name. Pure data structure: no I/O, no locking (the relay thread owns it).
 */
#ifndef JR_FAKEIP_H
#define JR_FAKEIP_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <netinet/in.h>
#include <sys/socket.h>

#define JR_FAKEIP_V4_PREFIX "198.18.0.0"
#define JR_FAKEIP_V4_LEN 15
#define JR_FAKEIP_V6_PREFIX "fd6a:7272:6970::" /* "jrrip" */
#define JR_FAKEIP_V6_LEN 64

/*
 * The pool size: names a /15 holds without its network (198.18.0.0) and
 * broadcast (198.19.255.255) addresses, 198.18.0.1 .. 198.19.255.254.
 * Name n gets the IPv4 address 198.18.0.0 + n and the IPv6 address
 * JR_FAKEIP_V6_PREFIX + n, so the IPv6 pool is as large.
 */
#define JR_FAKEIP_V4_NAMES ((1u << (32 - JR_FAKEIP_V4_LEN)) - 2) /* 131070 */

struct jr_fakeip;

/*
 * jr_fakeip_new - an empty table that hands out at most @capacity names
 * (0: the size of the IPv4 pool less its network and broadcast
 * addresses). Return: 0 and *out, or -ENOMEM.
 */
int jr_fakeip_new(size_t capacity, struct jr_fakeip **out);

void jr_fakeip_free(struct jr_fakeip *f);

/*
 * jr_fakeip_assign - the synthetic address of @name (lower-case, no
 * trailing dot, at most JR_HOST_MAX), assigning one on first use.
 * @family: AF_INET (@out is a struct in_addr) or AF_INET6 (struct
 *          in6_addr)
 * Return: 0, -ENOSPC when the pool is exhausted (the DNS answer is then
 * SERVFAIL), -ENOMEM, or -EINVAL for a bad family or name.
 */
int jr_fakeip_assign(struct jr_fakeip *f, const char *name, int family,
		     void *out);

/*
 * jr_fakeip_lookup - the name @sa (AF_INET or AF_INET6; its port is
 * ignored; a v4-mapped IPv6 address counts as IPv4) was handed out for.
 * Return: the name (owned by @f, valid until jr_fakeip_free), or NULL if
 * @sa is outside the pools or was never handed out.
 */
const char *jr_fakeip_lookup(const struct jr_fakeip *f,
			     const struct sockaddr *sa);

/* Is @sa inside one of the two pools (handed out or not)? */
bool jr_fakeip_in_pool(const struct sockaddr *sa);

/* How many names have an address; for the JSON summary and -v. */
size_t jr_fakeip_count(const struct jr_fakeip *f);

#endif
