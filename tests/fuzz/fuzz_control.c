// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * fuzz_control.c - libFuzzer target for the live policy socket's request
 * grammar (control_proto.c) and the policy changes it drives
 * (livepolicy.c), the way the relay applies them.
 *
 * The input is cut into lines, as the relay cuts a client's bytes; each
 * line is parsed and, when it parses, applied to one live policy that
 * starts from a fixed allowlist, so sequences of allow, remove and lock
 * are explored too. Besides ASan/UBSan/leak findings, it aborts on broken
 * invariants: a refusal must say why and leave the policy byte for byte as
 * it was; an accepted request has a known op, an entry exactly when the op
 * takes one, an entry of ASCII without NUL, an id exactly when it is an
 * approve or deny, and "always" only on an approve; an allow that reports a
 * change adds one live entry that then matches, one that reports none
 * changes nothing; a remove takes away exactly what it reports, and no
 * entry identical to the removed one is left; lock leaves no live entry and
 * every start entry.
 *
 * Build and run: FUZZ_ONLY=control tests/fuzz/run.sh (it lists the
 * sources the target links; control_proto.c reaches asktable.c and the
 * policy parsers).
 */
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "control_proto.h"
#include "fuzz.h"
#include "livepolicy.h"

static const char *const start_entries[] = {
	"allowed.test",
	"*.example.org:443",
	"192.0.2.0/24",
	"raw.test:9000",
};
#define N_START (sizeof(start_entries) / sizeof(start_entries[0]))

static void invariant(int ok, const char *what)
{
	if (!ok) {
		fprintf(stderr, "invariant broken: %s\n", what);
		abort();
	}
}

static struct jr_policy *snapshot(const struct jr_livepolicy *lp)
{
	struct jr_policy *s = calloc(1, sizeof(*s));

	check(s);
	s->n = lp->p.n;
	s->entries = calloc(lp->p.n + 1, sizeof(*s->entries));
	check(s->entries);
	memcpy(s->entries, lp->p.entries, lp->p.n * sizeof(*s->entries));
	return s;
}

static int same_policy(const struct jr_policy *s, const struct jr_policy *p)
{
	return s->n == p->n &&
	       !memcmp(s->entries, p->entries, p->n * sizeof(*p->entries));
}

static void drop(struct jr_policy *s)
{
	free(s->entries);
	free(s);
}

static void apply(struct jr_livepolicy *lp, const struct jr_control_req *req)
{
	struct jr_policy *before = snapshot(lp);
	struct jr_allow_entry removed;
	struct jr_err err = { 0 };
	size_t n_live = jr_livepolicy_n_live(lp);
	int r;

	switch (req->op) {
	case JR_CONTROL_ALLOW:
		r = jr_livepolicy_allow(lp, req->entry, &err);
		if (r < 0) {
			invariant(err.msg[0] != '\0', "a refusal without why");
			invariant(same_policy(before, &lp->p),
				  "a refused allow changed the policy");
		} else if (r == 0) {
			invariant(same_policy(before, &lp->p),
				  "an allow of a present entry changed it");
		} else {
			invariant(lp->p.n == before->n + 1, "allow added != 1");
			invariant(lp->live[lp->p.n - 1], "added, not live");
			invariant(jr_livepolicy_n_live(lp) == n_live + 1,
				  "live count");
			invariant(lp->p.entries[lp->p.n - 1].kind !=
				      JR_ALLOW_ADDR,
				  "a live address entry was taken");
		}
		break;
	case JR_CONTROL_REMOVE:
		r = jr_livepolicy_remove(lp, req->entry, &removed, &err);
		if (r < 0) {
			invariant(err.msg[0] != '\0', "a refusal without why");
			invariant(same_policy(before, &lp->p),
				  "a refused remove changed the policy");
			break;
		}
		invariant(r >= 1 && lp->p.n + (size_t)r == before->n,
			  "remove count");
		for (size_t i = 0; i < lp->p.n; i++) {
			const struct jr_allow_entry *e = &lp->p.entries[i];

			invariant(!(e->kind == removed.kind &&
				    e->port == removed.port &&
				    (e->kind == JR_ALLOW_ADDR
					 ? e->family == removed.family &&
					       e->prefix == removed.prefix &&
					       !memcmp(e->addr, removed.addr,
						       sizeof(e->addr))
					 : !strcmp(e->name, removed.name))),
				  "an identical entry survived remove");
		}
		break;
	case JR_CONTROL_LOCK: {
		size_t d = jr_livepolicy_lock(lp);

		invariant(d == n_live, "lock dropped != live entries");
		invariant(jr_livepolicy_n_live(lp) == 0, "live after lock");
		invariant(lp->p.n == before->n - d, "lock count");
		break;
	}
	case JR_CONTROL_STATUS:
	case JR_CONTROL_LIST:
	case JR_CONTROL_PENDING:
		break;
	case JR_CONTROL_APPROVE:
	case JR_CONTROL_DENY:
		invariant(req->id != 0, "an approve or deny without an id");
		break;
	}
	drop(before);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct jr_livepolicy lp;
	struct jr_policy start;
	struct jr_err err = { 0 };
	size_t off = 0;

	jr_policy_init(&start);
	for (size_t i = 0; i < N_START; i++)
		check(jr_policy_add(&start, start_entries[i], &err) == 0);
	check(jr_livepolicy_init(&lp, &start) == 0);
	jr_policy_free(&start);

	while (off < size) {
		const uint8_t *nl = memchr(data + off, '\n', size - off);
		size_t len = nl ? (size_t)(nl - (data + off)) : size - off;
		struct jr_control_req req;

		memset(&err, 0, sizeof(err));
		if (len <= JR_CONTROL_LINE_MAX &&
		    jr_control_parse((const char *)data + off, len, &req,
				     &err) == 0) {
			size_t el = strlen(req.entry);
			int takes = req.op == JR_CONTROL_ALLOW ||
				    req.op == JR_CONTROL_REMOVE;

			int names = req.op == JR_CONTROL_APPROVE ||
				    req.op == JR_CONTROL_DENY;

			invariant(req.op >= JR_CONTROL_ALLOW &&
				      req.op <= JR_CONTROL_DENY,
				  "unknown op accepted");
			invariant(strcmp(jr_control_op_name(req.op), "?"),
				  "an accepted op without a name");
			invariant(takes == (el > 0), "entry where none goes");
			invariant(!req.close || req.op == JR_CONTROL_REMOVE,
				  "close with another op");
			invariant(names == (req.id != 0), "id where none goes");
			invariant(!req.member || names,
				  "a pool's sandbox where no id goes");
			invariant(!req.always || req.op == JR_CONTROL_APPROVE,
				  "always with another op");
			for (size_t i = 0; i < el; i++)
				invariant((unsigned char)req.entry[i] < 0x80,
					  "non-ASCII in an entry");
			apply(&lp, &req);
		} else if (len <= JR_CONTROL_LINE_MAX) {
			invariant(err.msg[0] != '\0', "a refusal without why");
		}
		off += len + 1;
	}
	/* A pool's copy of any bytes: at least as long, never cut. */
	{
		static char out[65536];
		int n = jr_control_pool_ids((const char *)data, size, 7, out,
					    sizeof(out));

		invariant(n == -ENOSPC ||
			      (n >= 0 && (size_t)n >= size && out[n] == '\0'),
			  "a pool's copy cut short");
	}
	/* start entries are never live, and lock leaves them all */
	jr_livepolicy_lock(&lp);
	invariant(jr_livepolicy_n_live(&lp) == 0, "live after the last lock");
	jr_livepolicy_free(&lp);
	return 0;
}
