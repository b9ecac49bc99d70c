/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * resolver.h - name resolution off the relay's event loop.
 *
 * getaddrinfo(3) blocks; the relay must not. A few worker threads take
 * jobs from a queue, resolve with the host's resolver, and post results
 * to a completion list whose eventfd the relay's epoll watches. The relay
 * enforces its own deadline: a result that arrives after the relay gave
 * up is recognised by its (slot, generation) tag and dropped.
 */
#ifndef JR_RESOLVER_H
#define JR_RESOLVER_H

#include <stddef.h>
#include <stdint.h>
#include <sys/socket.h>

#include "err.h"

#define JR_RESOLVE_MAX_ADDRS 16

/*
 * Successful answers are kept this long: enough that a burst of
 * connections to one host (a package install, parallel fetches) costs one
 * lookup, short enough to follow the host's view. getaddrinfo() reports no
 * TTL. Public so that tests can step an injected clock past it.
 */
#define JR_RESOLVER_CACHE_MS 5000

/* Counters, for tests and diagnostics: every submit is a lookup; a lookup
 * answered from the cache (no worker ran) is also a hit. */
struct jr_resolver_stats {
	uint64_t lookups;
	uint64_t hits;
};

struct jr_resolve_result {
	uint64_t tag; /* the caller's (slot, generation) tag */
	int error;    /* 0, or an EAI_* code from getaddrinfo */
	size_t n;
	struct sockaddr_storage addrs[JR_RESOLVE_MAX_ADDRS];
	socklen_t lens[JR_RESOLVE_MAX_ADDRS];
};

struct jr_resolver;

/*
 * jr_resolver_start - a pool of up to @threads workers, started on demand
 * (the first when the first lookup is queued).
 * Return: 0 and *out, or -errno with @err set.
 */
int jr_resolver_start(unsigned int threads, struct jr_resolver **out,
		      struct jr_err *err);

/* The eventfd that becomes readable when results are waiting. */
int jr_resolver_fd(const struct jr_resolver *r);

/*
 * jr_resolver_submit - queue a lookup of @host (@family AF_UNSPEC, AF_INET
 * or AF_INET6), tagged @tag. Return: 0, or -EAGAIN if the queue is full.
 */
int jr_resolver_submit(struct jr_resolver *r, uint64_t tag, const char *host,
		       int family);

/*
 * jr_resolver_take - pop one finished result into @out.
 * Return: 1 if one was taken, 0 if none is waiting.
 */
int jr_resolver_take(struct jr_resolver *r, struct jr_resolve_result *out);

/*
 * jr_resolver_stop - stop taking jobs and release the resolver. Workers
 * blocked inside getaddrinfo() finish on their own (it has its own
 * timeouts); the last one out frees the shared state, so this never waits
 * for a slow DNS server.
 */
void jr_resolver_stop(struct jr_resolver *r);

/* jr_resolver_get_stats - copy the counters of @r into @out. */
void jr_resolver_get_stats(struct jr_resolver *r,
			   struct jr_resolver_stats *out);

/*
 * jr_resolver_set_clock - make @r read time (milliseconds, monotonic) from
 * @now_ms instead of CLOCK_MONOTONIC; NULL restores the real clock. For
 * tests: cache expiry can then be checked by stepping the clock, without
 * sleeping. @now_ms is called from worker threads with @r's lock held.
 */
void jr_resolver_set_clock(struct jr_resolver *r, uint64_t (*now_ms)(void));

#endif
