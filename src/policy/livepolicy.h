/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * livepolicy.h - the relay's own, changeable copy of the allowlist, for
 * the live policy socket (--control). Pure: no I/O, no locks (the relay
 * thread alone owns it; see relay_control.c).
 */
#ifndef JR_LIVEPOLICY_H
#define JR_LIVEPOLICY_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "err.h"
#include "policy.h"

struct jr_livepolicy {
	struct jr_policy p; /* what the relay decides with */
	bool *live;	    /* live[i]: p.entries[i] was added since start */
	size_t live_cap;
	uint64_t changes; /* requests that changed the policy */
};

/*
 * jr_livepolicy_init - start from a copy of @start (entries not live).
 * Return: 0 or -ENOMEM.
 */
int jr_livepolicy_init(struct jr_livepolicy *lp, const struct jr_policy *start);
void jr_livepolicy_free(struct jr_livepolicy *lp);

/*
 * jr_livepolicy_allow - add @entry (the --allow grammar).
 * Address and CIDR entries are refused: under transparent egress the
 * worker's firewall lets TCP out only to the synthetic pool and to the
 * address entries present at start, and that firewall is not changed
 * while the command runs, so a live address entry would be a promise the
 * sandbox cannot keep for every client.
 * Return: 1 added, 0 already allowed by an identical entry (unchanged),
 * or -errno with @err naming the entry and the rule it broke (unchanged).
 */
int jr_livepolicy_allow(struct jr_livepolicy *lp, const char *entry,
			struct jr_err *err);

/*
 * jr_livepolicy_remove - remove every entry identical to @entry (same
 * kind, name or network, port), live or from the start.
 * @removed: if not NULL, set to the parsed entry (to find the connections
 *	to close)
 * Return: how many were removed (>= 1), or -errno with @err set: a bad
 * entry, or -ENOENT when no such entry is in the policy.
 */
int jr_livepolicy_remove(struct jr_livepolicy *lp, const char *entry,
			 struct jr_allow_entry *removed, struct jr_err *err);

/* jr_livepolicy_lock - drop every live entry. Return: how many. */
size_t jr_livepolicy_lock(struct jr_livepolicy *lp);

/*
 * jr_livepolicy_port_scope - the policy whose ports a rule fixed at start
 * (Landlock's TCP connect rule, landlock.c) may be built from. With live
 * changes (@live), entries with new ports can come while the command
 * runs, which a rule fixed at start cannot follow: then a policy with
 * one any-port entry, which leaves TCP to nft and the relay (they hold
 * it to the relay, and the relay asks the live policy). Else @start.
 */
const struct jr_policy *jr_livepolicy_port_scope(bool live,
						 const struct jr_policy *start);

/* How many entries are live. */
size_t jr_livepolicy_n_live(const struct jr_livepolicy *lp);

#endif
