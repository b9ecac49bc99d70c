/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * relay_ask.h - per-request approval (--ask), a service of the relay
 * loop: a request the allowlist alone refuses is held for a decision on
 * the control socket. See relay_ask.c.
 */
#ifndef JR_RELAY_ASK_H
#define JR_RELAY_ASK_H

#include <stdbool.h>
#include <stdint.h>

#include "asktable.h"
#include "relay_loop.h"

enum relay_ask_hold {
	RELAY_ASK_NOT_HELD, /* refuse as without --ask */
	RELAY_ASK_HELD,	    /* wait for the decision */
	RELAY_ASK_FULL,	    /* refuse as without --ask, audited "ask-full" */
};

/*
 * relay_ask_conn - the policy refused @c with @why: hold it (ST_HELD)
 * when --ask is on and @why may be held (jr_ask_may_hold()).
 * @via: how it came (proxy or transparent)
 */
enum relay_ask_hold relay_ask_conn(struct jr_relay *r, struct conn *c,
				   enum jr_deny_reason why,
				   enum jr_ask_via via);

/*
 * relay_ask_dns - the policy refused the lookup of @name with @why: hold
 * it when --ask is on and @why may be held; *@id is then the request the
 * query waits for (a query for a name already held joins its request).
 */
enum relay_ask_hold relay_ask_dns(struct jr_relay *r, const char *name,
				  enum jr_deny_reason why, uint64_t *id);

/* The held requests, or NULL without --ask. */
const struct jr_asktable *relay_ask_table(const struct jr_relay *r);

/*
 * relay_ask_decide - an operator decided request @id (approve or deny).
 * Writes the decision's audit line (@note, if not NULL, is added to it:
 * an entry added by "always"), counts it, and releases what it held.
 * Return: how many connections and queries were waiting (>= 0), or
 * -ENOENT when no request @id is held.
 */
int relay_ask_decide(struct jr_relay *r, uint64_t id, enum relay_ask_verdict v,
		     const char *note);

/*
 * relay_ask_release_allowed - approve every held request the policy now
 * allows (after "approve --always" added an entry for request @by).
 * Return: how many requests were approved.
 */
unsigned relay_ask_release_allowed(struct jr_relay *r, uint64_t by);

#endif
