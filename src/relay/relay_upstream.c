// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * relay_upstream.c - the upstream connect path, shared by every protocol
 * that connects out: resolve, guard, connect, next address.
 *
 * Theory of operation
 *
 *   relay_upstream_start(c)   c->host, c->port: decided by the caller
 *     |  a literal address is taken as it is; a name goes to the
 *     v  relay's resolver (ST_RESOLVE, tagged REF_RESOLVE_CONN)
 *   guard every address (policy, then this host's own addresses)
 *     |  none left: 403 naming the first address refused
 *     v
 *   CONNECT (non-blocking) to each kept address in turn --> 502 / 504
 *     v
 *   c->ops->connected(): the protocol relays from here
 *
 * The relay connects to the very address the guard checked: resolution
 * happens once, in the relay's resolver, and the sockaddr that passed
 * jr_policy_check_address() is the one given to connect(2). The path
 * knows only c->host and c->port, never the protocol above it, so any
 * connection whose destination name is decided can take it (the proxy,
 * captured connections), and a lane that has its one address already
 * joins at relay_connect_next(). Every failure is answered through
 * relay_reply().
 */
#include <arpa/inet.h>
#include <errno.h>
#include <netdb.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#include "clock.h"
#include "localaddr.h"
#include "log.h"
#include "relay_loop.h"
#include "relay_upstream.h"

/* relay_deny_text - the end of a refusal's sentence: why @why refused. */
const char *relay_deny_text(enum jr_deny_reason why)
{
	switch (why) {
	case JR_DENY_PORT:
		return "is allowed, but not on this port";
	case JR_DENY_BAD_HOST:
		return "is not a valid host name or address";
	case JR_DENY_SPECIAL_ADDR:
		return "is a loopback, link-local, private, shared, metadata, multicast or unspecified address";
	case JR_DENY_LOCAL_ADDR:
		return "is an address of the host jailrun runs on";
	case JR_DENY_GUARD_FAILED:
		return "could not be checked against this host's own addresses";
	case JR_DENY_MANAGED:
		return "is denied by the administrator's managed policy";
	case JR_DENY_NOT_ALLOWED:
	default:
		return "is not in the allowlist";
	}
}

/* Literal host: no resolution, but the same guard. */
bool relay_literal_address(const char *host, struct sockaddr_storage *ss,
			   socklen_t *len)
{
	struct sockaddr_in *sin = (struct sockaddr_in *)ss;
	struct sockaddr_in6 *sin6 = (struct sockaddr_in6 *)ss;

	memset(ss, 0, sizeof(*ss));
	if (inet_pton(AF_INET, host, &sin->sin_addr) == 1) {
		sin->sin_family = AF_INET;
		*len = sizeof(*sin);
		return true;
	}
	if (inet_pton(AF_INET6, host, &sin6->sin6_addr) == 1) {
		sin6->sin6_family = AF_INET6;
		*len = sizeof(*sin6);
		return true;
	}
	return false;
}

static void set_port(struct sockaddr_storage *ss, uint16_t port)
{
	if (ss->ss_family == AF_INET)
		((struct sockaddr_in *)ss)->sin_port = htons(port);
	else
		((struct sockaddr_in6 *)ss)->sin6_port = htons(port);
}

static void addr_text(const struct sockaddr_storage *ss, char *out, size_t size)
{
	const void *a =
	    ss->ss_family == AF_INET
		? (const void *)&((const struct sockaddr_in *)ss)->sin_addr
		: (const void *)&((const struct sockaddr_in6 *)ss)->sin6_addr;

	if (!inet_ntop(ss->ss_family, a, out, (socklen_t)size))
		snprintf(out, size, "?");
}

/*
 * guard_local() - the guard's second half: would a connect to @sa stay on
 * this host (localaddr.h)? Then only an entry naming it opens it. Asked on
 * this thread, for the very sockaddr connect(2) will get; the netlink
 * round trip does not block (localaddr.c). A failed check refuses.
 */
static enum jr_deny_reason guard_local(struct jr_relay *r,
				       const struct sockaddr *sa, uint16_t port)
{
	int local = jr_localaddr_is_local(r->localaddr, sa);

	if (local < 0) {
		jr_warn(
		    "relay: cannot check an upstream address against this host's own, refusing it: %s",
		    strerror(-local));
		return JR_DENY_GUARD_FAILED;
	}
	if (!local)
		return JR_ALLOWED;
	return jr_policy_check_local_address(r->cfg.policy, sa, port);
}

/* The guard on one address: the special ranges, then this host's own. */
static enum jr_deny_reason
guard_address(struct jr_relay *r, const struct sockaddr *sa, uint16_t port)
{
	enum jr_deny_reason why =
	    jr_policy_check_address(r->cfg.policy, sa, port);

	return why == JR_ALLOWED ? guard_local(r, sa, port) : why;
}

enum jr_deny_reason relay_guard_literal(struct jr_relay *r, const char *host,
					uint16_t port)
{
	struct sockaddr_storage ss;
	socklen_t len;

	if (!relay_literal_address(host, &ss, &len))
		return JR_ALLOWED;
	return guard_address(r, (struct sockaddr *)&ss, port);
}

/*
 * Keep the addresses the guard allows; if it refused them all, say which.
 * From here on c->res holds only addresses that passed.
 */
static void guard_and_connect(struct jr_relay *r, struct conn *c)
{
	struct jr_resolve_result *res = c->res;
	enum jr_deny_reason refused = JR_ALLOWED;
	char first_refused[INET6_ADDRSTRLEN] = "";
	size_t kept = 0;

	for (size_t i = 0; i < res->n; i++) {
		enum jr_deny_reason why = guard_address(
		    r, (struct sockaddr *)&res->addrs[i], c->port);

		if (why != JR_ALLOWED) {
			if (!first_refused[0])
				addr_text(&res->addrs[i], first_refused,
					  sizeof(first_refused));
			refused = why;
			continue;
		}
		res->addrs[kept] = res->addrs[i];
		res->lens[kept++] = res->lens[i];
	}
	res->n = kept;
	if (!kept) {
		snprintf(c->addr, sizeof(c->addr), "%s", first_refused);
		relay_reply(r, c, 403, jr_deny_reason_name(refused),
			    jr_deny_reason_name(refused), false,
			    "jailrun: %s resolves to %s, %s", c->host,
			    first_refused, relay_deny_text(refused));
		return;
	}
	c->next_addr = 0;
	relay_connect_next(r, c);
}

/*
 * relay_upstream_start - connect @c to its destination, c->host port
 * c->port, which the policy allowed by name: resolve it in the relay's
 * resolver (a literal address is taken as it is), keep the addresses the
 * guard passes, connect to each in turn until one answers, then relay
 * (c->ops->connected()). Every failure goes through relay_reply().
 */
void relay_upstream_start(struct jr_relay *r, struct conn *c)
{
	struct sockaddr_storage ss;
	socklen_t len;

	c->res = calloc(1, sizeof(*c->res));
	if (!c->res) {
		relay_out_of_memory(r, c);
		return;
	}
	c->deadline = jr_clock_ms() + r->cfg.connect_timeout_ms;
	if (relay_literal_address(c->host, &ss, &len)) {
		c->res->addrs[0] = ss;
		c->res->lens[0] = len;
		c->res->n = 1;
		guard_and_connect(r, c);
		return;
	}
	if (jr_resolver_submit(
		r->resolver,
		relay_ref(REF_RESOLVE_CONN, relay_slot_of(r, c), c->gen),
		c->host, AF_UNSPEC) < 0) {
		relay_reply(r, c, 503, NULL, "resolver-busy", true,
			    "jailrun: too many lookups in progress, try again");
		return;
	}
	c->st = ST_RESOLVE;
	relay_want_events(r, c);
}

/* The resolver answered for @c (in ST_RESOLVE, same generation). */
void relay_upstream_resolved(struct jr_relay *r, struct conn *c,
			     const struct jr_resolve_result *res)
{
	if (res->error) {
		relay_reply(r, c, 502, NULL, "resolve-failed", true,
			    "jailrun: cannot resolve %s: %s", c->host,
			    gai_strerror(res->error));
		return;
	}
	*c->res = *res;
	guard_and_connect(r, c);
}

/* The upstream accepted: hand @c over to its kind's relaying. */
static void upstream_connected(struct jr_relay *r, struct conn *c)
{
	c->status = 200;
	c->allowed = true;
	/* The addresses are spent; a long-lived tunnel should not keep them. */
	free(c->res);
	c->res = NULL;
	if (c->ops->connected)
		c->ops->connected(r, c);
	else
		relay_conn_free(r, c); /* a kind that never connects */
}

/*
 * relay_connect_next - connect to the next of c->res (guard-checked) on
 * c->port; when none is left, 502.
 */
void relay_connect_wait(struct jr_relay *r, struct conn *c, int fd)
{
	c->ufd = fd;
	c->uev = UINT32_MAX;
	c->st = ST_CONNECT;
	c->deadline = jr_clock_ms() + r->cfg.connect_timeout_ms;
	relay_want_events(r, c);
}

void relay_connect_next(struct jr_relay *r, struct conn *c)
{
	while (c->next_addr < c->res->n) {
		struct sockaddr_storage *ss = &c->res->addrs[c->next_addr];
		socklen_t len = c->res->lens[c->next_addr];
		int fd;

		c->next_addr++;
		set_port(ss, c->port);
		addr_text(ss, c->addr, sizeof(c->addr));
		fd = socket(ss->ss_family,
			    SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
		if (fd < 0) {
			c->last_errno = errno;
			continue;
		}
		if (connect(fd, (struct sockaddr *)ss, len) < 0 &&
		    errno != EINPROGRESS) {
			c->last_errno = errno;
			close(fd);
			continue;
		}
		relay_connect_wait(r, c, fd);
		return;
	}
	relay_reply(r, c, 502, NULL, "upstream-refused", true,
		    "jailrun: cannot connect to %s port %u (%s): %s", c->host,
		    c->port, c->addr,
		    strerror(c->last_errno ? c->last_errno : EIO));
}

/* The connect in progress finished: relay, or try the next address. */
void relay_connect_done(struct jr_relay *r, struct conn *c)
{
	int soerr = 0;
	socklen_t len = sizeof(soerr);

	if (getsockopt(c->ufd, SOL_SOCKET, SO_ERROR, &soerr, &len) < 0)
		soerr = errno;
	if (soerr == 0) {
		upstream_connected(r, c);
		return;
	}
	c->last_errno = soerr;
	relay_close_fd(&c->ufd);
	c->uev = UINT32_MAX;
	relay_connect_next(r, c);
}

/*
 * relay_connect_timeout - the sweep found @c (ST_CONNECT) past its
 * deadline: try the next address, or 504 when none is left.
 */
void relay_connect_timeout(struct jr_relay *r, struct conn *c)
{
	c->last_errno = ETIMEDOUT;
	relay_close_fd(&c->ufd);
	c->uev = UINT32_MAX;
	if (c->next_addr < c->res->n)
		relay_connect_next(r, c);
	else
		relay_reply(
		    r, c, 504, NULL, "upstream-timeout", true,
		    "jailrun: %s port %u (%s) did not answer within %llu ms",
		    c->host, c->port, c->addr,
		    (unsigned long long)r->cfg.connect_timeout_ms);
}
