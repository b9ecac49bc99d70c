/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * asktable.h - the requests held for an operator's decision (--ask,
 * jailrun(1) PER-REQUEST APPROVAL). Pure: no I/O, no clock of its own
 * (every time is the caller's jr_clock_ms()), no allocation.
 */
#ifndef JR_ASKTABLE_H
#define JR_ASKTABLE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "policy.h"

/* Requests held at once; one more is refused at once ("ask-full"). */
#define JR_ASK_MAX 64
/* The longest host a held request names (a DNS name is at most 253). */
#define JR_ASK_HOST_MAX 255
/* --ask-timeout: default and bounds, in seconds. */
#define JR_ASK_TIMEOUT_DEFAULT 30
#define JR_ASK_TIMEOUT_MAX 3600

enum jr_ask_via {
	JR_ASK_VIA_PROXY,
	JR_ASK_VIA_TRANSPARENT,
	JR_ASK_VIA_DNS,
};

/**
 * struct jr_ask_entry - one held request.
 * @id: its number for "approve" and "deny" (1, 2, ... in a run); 0: free
 * @host: the name (or address, as text) asked for
 * @port: its port; 0 for a DNS lookup
 * @via: who asked
 * @t_start: when it was first held
 * @deadline: when it is refused as "ask-timeout"
 * @waiters: connections or queries waiting on it (a DNS retry joins)
 */
struct jr_ask_entry {
	uint64_t id;
	char host[JR_ASK_HOST_MAX + 1];
	uint16_t port;
	enum jr_ask_via via;
	uint64_t t_start, deadline;
	unsigned waiters;
};

struct jr_asktable {
	struct jr_ask_entry e[JR_ASK_MAX];
	uint64_t next_id;
	uint64_t timeout_ms;
};

/* jr_ask_init - an empty table whose entries wait @timeout_ms. */
void jr_ask_init(struct jr_asktable *t, uint64_t timeout_ms);

/*
 * jr_ask_may_hold - may a refusal for @why be held for a decision? Only
 * the allowlist's own refusals (JR_DENY_NOT_ALLOWED, JR_DENY_PORT):
 * a managed deny, a special or local address, a bad name or a failed
 * guard is refused at once, whatever an operator would say.
 */
bool jr_ask_may_hold(enum jr_deny_reason why);

/*
 * jr_ask_hold - hold a request for @host:@port from @via at @now.
 * A DNS lookup of a name already held for DNS joins that entry (a
 * resolver's retry, or its A and AAAA queries, are one question); any
 * other request gets an entry of its own.
 * @id: its entry's id
 * @joined: set when an entry was joined rather than made
 * Return: 0, -ENOSPC when JR_ASK_MAX entries are held, -EINVAL for an
 * empty or overlong @host.
 */
int jr_ask_hold(struct jr_asktable *t, const char *host, uint16_t port,
		enum jr_ask_via via, uint64_t now, uint64_t *id, bool *joined);

/* jr_ask_find - the entry @id, or NULL. */
const struct jr_ask_entry *jr_ask_find(const struct jr_asktable *t,
				       uint64_t id);

/*
 * jr_ask_leave - one waiter of @id went away (its client closed); the
 * entry goes with its last waiter. An unknown @id is a no-op.
 */
void jr_ask_leave(struct jr_asktable *t, uint64_t id);

/* jr_ask_remove - forget @id (decided). An unknown @id is a no-op. */
void jr_ask_remove(struct jr_asktable *t, uint64_t id);

/* jr_ask_expired - the id of an entry whose deadline is at or before
 * @now (the oldest such), or 0 for none. */
uint64_t jr_ask_expired(const struct jr_asktable *t, uint64_t now);

/* jr_ask_next - the entry with the smallest id above @after, or NULL:
 * for listing in the order requests came. */
const struct jr_ask_entry *jr_ask_next(const struct jr_asktable *t,
				       uint64_t after);

/* How many entries are held. */
size_t jr_ask_count(const struct jr_asktable *t);

/*
 * jr_ask_parse_id - an id as a control request writes it: decimal digits,
 * 1 to 2^64-1, no sign, no leading zero, no space.
 * Return: 0 or -EINVAL.
 */
int jr_ask_parse_id(const char *s, uint64_t *id);

/* "proxy", "transparent", "dns" */
const char *jr_ask_via_name(enum jr_ask_via via);

#endif
