// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * livepolicy.c - the relay's changeable copy of the allowlist (see
 * livepolicy.h).
 *
 * Theory of operation
 *
 * The relay decides every connection and DNS query with
 * r->cfg.policy. With --control, that pointer names the p of a struct
 * jr_livepolicy the relay owns: a copy of the start policy that the
 * control requests change in place, on the relay thread, between two
 * events. Nothing else reads it, so there is no lock and no moment when
 * a decision sees half a change; each change applies to the next
 * connection and the next DNS query, while connections already decided
 * keep going (remove's "close" ends those explicitly).
 *
 * Entries are parsed by policy.c, so a live entry means exactly what the
 * same --allow would have meant, and is refused with the same message.
 * Identity for remove and for "already allowed" is the parsed form (kind,
 * name or network, prefix, port), not the text: "X.test." and "x.test"
 * are one entry, as they are one destination. A parallel array marks the
 * entries added live, which is what lock drops.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "livepolicy.h"
#include "managed.h"

static bool entry_same(const struct jr_allow_entry *a,
		       const struct jr_allow_entry *b)
{
	if (a->kind != b->kind || a->port != b->port)
		return false;
	if (a->kind == JR_ALLOW_ADDR)
		return a->family == b->family && a->prefix == b->prefix &&
		       !memcmp(a->addr, b->addr, sizeof(a->addr));
	return !strcmp(a->name, b->name);
}

/* Make the live marks as long as the policy's capacity. */
static int live_reserve(struct jr_livepolicy *lp, size_t n)
{
	bool *nl;

	if (n <= lp->live_cap)
		return 0;
	nl = realloc(lp->live, n * sizeof(*nl));
	if (!nl)
		return -ENOMEM;
	memset(nl + lp->live_cap, 0, (n - lp->live_cap) * sizeof(*nl));
	lp->live = nl;
	lp->live_cap = n;
	return 0;
}

int jr_livepolicy_init(struct jr_livepolicy *lp, const struct jr_policy *start)
{
	memset(lp, 0, sizeof(*lp));
	jr_policy_init(&lp->p);
	if (start && start->n) {
		lp->p.entries = calloc(start->n, sizeof(*lp->p.entries));
		if (!lp->p.entries)
			return -ENOMEM;
		memcpy(lp->p.entries, start->entries,
		       start->n * sizeof(*lp->p.entries));
		lp->p.n = lp->p.cap = start->n;
	}
	/* What the control socket never changes comes along as it is: the
	 * public mode's match-everything, and the --allow-private ranges. */
	if (start) {
		lp->p.match_any = start->match_any;
		lp->p.deny = start->deny; /* the runner's; outlives the relay */
		lp->p.http_rules = start->http_rules; /* likewise */
		if (start->n_private) {
			lp->p.private_entries = calloc(
			    start->n_private, sizeof(*lp->p.private_entries));
			if (!lp->p.private_entries) {
				jr_livepolicy_free(lp);
				return -ENOMEM;
			}
			memcpy(lp->p.private_entries, start->private_entries,
			       start->n_private *
				   sizeof(*lp->p.private_entries));
			lp->p.n_private = start->n_private;
		}
	}
	if (live_reserve(lp, lp->p.n ? lp->p.n : 1) < 0) {
		jr_livepolicy_free(lp);
		return -ENOMEM;
	}
	return 0;
}

void jr_livepolicy_free(struct jr_livepolicy *lp)
{
	jr_policy_free(&lp->p);
	free(lp->live);
	lp->live = NULL;
	lp->live_cap = 0;
}

/*
 * reword() - policy.c's messages begin "--allow 'ENTRY': "; a live entry
 * did not come from --allow, so say "entry 'ENTRY': " instead.
 */
static void reword(struct jr_err *err)
{
	char msg[JR_ERR_MSG_MAX];

	if (!err || strncmp(err->msg, "--allow ", 8))
		return;
	memcpy(msg, err->msg + 8, sizeof(msg) - 8);
	msg[sizeof(msg) - 9] = '\0';
	jr_err_set(err, err->code, "entry %s", msg);
}

/* @entry parsed by policy.c into @out. Return: 0 or -errno, @err set. */
static int parse_one(const char *entry, struct jr_allow_entry *out,
		     struct jr_err *err)
{
	struct jr_policy tmp;
	int r;

	jr_policy_init(&tmp);
	r = jr_policy_add(&tmp, entry, err);
	if (r == 0)
		*out = tmp.entries[0];
	else
		reword(err);
	jr_policy_free(&tmp);
	return r;
}

int jr_livepolicy_allow(struct jr_livepolicy *lp, const char *entry,
			struct jr_err *err)
{
	struct jr_allow_entry e;
	int r = parse_one(entry, &e, err);

	if (r < 0)
		return r;
	if (e.kind == JR_ALLOW_ADDR)
		return jr_err_set(
		    err, EINVAL,
		    "entry '%s': address and CIDR entries cannot be added live (the sandbox firewall lets TCP out only to the address entries given at start); give it with --allow at start, or allow a name",
		    e.text);
	/* The managed policy's denies hold against live additions too (the
	 * decisions ask them again; this names the deny at once). */
	for (size_t i = 0; lp->p.deny && i < lp->p.deny->n; i++)
		if (jr_allow_entries_overlap(&lp->p.deny->entries[i], &e))
			return jr_err_set(
			    err, EPERM,
			    "entry '%s': the managed policy denies '%s'",
			    e.text, lp->p.deny->entries[i].text);
	for (size_t i = 0; i < lp->p.n; i++)
		if (entry_same(&lp->p.entries[i], &e))
			return 0;
	r = jr_policy_add(&lp->p, entry, err);
	if (r < 0) {
		reword(err);
		return r;
	}
	if (live_reserve(lp, lp->p.cap) < 0) {
		lp->p.n--; /* back to what it was */
		return jr_err_set(err, ENOMEM, "out of memory");
	}
	lp->live[lp->p.n - 1] = true;
	lp->changes++;
	return 1;
}

int jr_livepolicy_remove(struct jr_livepolicy *lp, const char *entry,
			 struct jr_allow_entry *removed, struct jr_err *err)
{
	struct jr_allow_entry e;
	size_t j = 0;
	int n = 0;
	int r = parse_one(entry, &e, err);

	if (r < 0)
		return r;
	for (size_t i = 0; i < lp->p.n; i++) {
		if (entry_same(&lp->p.entries[i], &e)) {
			n++;
			continue;
		}
		lp->p.entries[j] = lp->p.entries[i];
		lp->live[j] = lp->live[i];
		j++;
	}
	if (!n)
		return jr_err_set(err, ENOENT,
				  "entry '%s': not in the policy (see "
				  "{\"op\":\"list\"})",
				  e.text);
	lp->p.n = j;
	lp->changes++;
	if (removed)
		*removed = e;
	return n;
}

size_t jr_livepolicy_lock(struct jr_livepolicy *lp)
{
	size_t j = 0, n = 0;

	for (size_t i = 0; i < lp->p.n; i++) {
		if (lp->live[i]) {
			n++;
			continue;
		}
		lp->p.entries[j] = lp->p.entries[i];
		lp->live[j] = false;
		j++;
	}
	lp->p.n = j;
	if (n)
		lp->changes++;
	return n;
}

const struct jr_policy *jr_livepolicy_port_scope(bool live,
						 const struct jr_policy *start)
{
	static struct jr_allow_entry any_port = { .kind = JR_ALLOW_HOST,
						  .name = "*",
						  .port = 0 };
	static const struct jr_policy any = { .entries = &any_port,
					      .n = 1,
					      .cap = 1 };

	return live ? &any : start;
}

size_t jr_livepolicy_n_live(const struct jr_livepolicy *lp)
{
	size_t n = 0;

	for (size_t i = 0; i < lp->p.n; i++)
		n += lp->live[i];
	return n;
}
