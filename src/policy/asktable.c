// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * asktable.c - the requests held for an operator's decision (see
 * asktable.h).
 *
 * Theory of operation
 *
 * With --ask, a connection or DNS lookup that the allowlist alone refuses
 * is not refused at once but held, and listed on the control socket until
 * an operator approves or denies it or its deadline passes. This table is
 * the list: a fixed array of JR_ASK_MAX entries, each with an id that is
 * never reused in a run (so a late "approve 3" can never reach a request
 * that came after 3 was decided), a deadline, and the number of waiters.
 * The relay thread alone owns it (relay_ask.c), so there is no lock.
 *
 * Bounded on purpose: a command that asks for a thousand names must not
 * make the runner hold a thousand connections; once the table is full,
 * further requests are refused at once, as without --ask.
 *
 * One DNS question is often asked several times: a stub resolver asks A
 * and AAAA together and retries after a few seconds (glibc every 5 s by
 * default, resolv.conf(5) "timeout"). Each of those queries joins the
 * entry its name already has, so the operator sees one request and one
 * decision answers them all. Connections never join: each is one request,
 * and "approve once" lets exactly that one through.
 */
#include <errno.h>
#include <string.h>
#include <strings.h>

#include "asktable.h"

void jr_ask_init(struct jr_asktable *t, uint64_t timeout_ms)
{
	memset(t, 0, sizeof(*t));
	t->timeout_ms = timeout_ms;
}

bool jr_ask_may_hold(enum jr_deny_reason why)
{
	return why == JR_DENY_NOT_ALLOWED || why == JR_DENY_PORT;
}

static struct jr_ask_entry *find(struct jr_asktable *t, uint64_t id)
{
	if (!id)
		return NULL;
	for (size_t i = 0; i < JR_ASK_MAX; i++)
		if (t->e[i].id == id)
			return &t->e[i];
	return NULL;
}

const struct jr_ask_entry *jr_ask_find(const struct jr_asktable *t, uint64_t id)
{
	return find((struct jr_asktable *)t, id);
}

int jr_ask_hold(struct jr_asktable *t, const char *host, uint16_t port,
		enum jr_ask_via via, uint64_t now, uint64_t *id, bool *joined)
{
	struct jr_ask_entry *free_e = NULL;
	size_t len = strlen(host);

	*joined = false;
	if (!len || len > JR_ASK_HOST_MAX)
		return -EINVAL;
	for (size_t i = 0; i < JR_ASK_MAX; i++) {
		struct jr_ask_entry *e = &t->e[i];

		if (!e->id) {
			if (!free_e)
				free_e = e;
			continue;
		}
		/* DNS names are case-insensitive (RFC 4343). */
		if (via == JR_ASK_VIA_DNS && e->via == JR_ASK_VIA_DNS &&
		    !strcasecmp(e->host, host)) {
			e->waiters++;
			*id = e->id;
			*joined = true;
			return 0;
		}
	}
	if (!free_e)
		return -ENOSPC;
	memset(free_e, 0, sizeof(*free_e));
	free_e->id = ++t->next_id;
	memcpy(free_e->host, host, len + 1);
	free_e->port = port;
	free_e->via = via;
	free_e->t_start = now;
	free_e->deadline = now + t->timeout_ms;
	free_e->waiters = 1;
	*id = free_e->id;
	return 0;
}

void jr_ask_leave(struct jr_asktable *t, uint64_t id)
{
	struct jr_ask_entry *e = find(t, id);

	if (e && --e->waiters == 0)
		memset(e, 0, sizeof(*e));
}

void jr_ask_remove(struct jr_asktable *t, uint64_t id)
{
	struct jr_ask_entry *e = find(t, id);

	if (e)
		memset(e, 0, sizeof(*e));
}

uint64_t jr_ask_expired(const struct jr_asktable *t, uint64_t now)
{
	uint64_t best = 0;

	for (size_t i = 0; i < JR_ASK_MAX; i++) {
		const struct jr_ask_entry *e = &t->e[i];

		if (e->id && e->deadline <= now && (!best || e->id < best))
			best = e->id;
	}
	return best;
}

const struct jr_ask_entry *jr_ask_next(const struct jr_asktable *t,
				       uint64_t after)
{
	const struct jr_ask_entry *best = NULL;

	for (size_t i = 0; i < JR_ASK_MAX; i++) {
		const struct jr_ask_entry *e = &t->e[i];

		if (e->id > after && (!best || e->id < best->id))
			best = e;
	}
	return best;
}

size_t jr_ask_count(const struct jr_asktable *t)
{
	size_t n = 0;

	for (size_t i = 0; i < JR_ASK_MAX; i++)
		n += t->e[i].id != 0;
	return n;
}

int jr_ask_parse_id(const char *s, uint64_t *id)
{
	uint64_t v = 0;

	if (!s[0] || s[0] == '0')
		return -EINVAL;
	for (const char *p = s; *p; p++) {
		unsigned d;

		if (*p < '0' || *p > '9')
			return -EINVAL;
		d = (unsigned)(*p - '0');
		if (v > (UINT64_MAX - d) / 10)
			return -EINVAL;
		v = v * 10 + d;
	}
	*id = v;
	return 0;
}

const char *jr_ask_via_name(enum jr_ask_via via)
{
	switch (via) {
	case JR_ASK_VIA_PROXY:
		return "proxy";
	case JR_ASK_VIA_TRANSPARENT:
		return "transparent";
	case JR_ASK_VIA_DNS:
		return "dns";
	}
	return "?";
}
