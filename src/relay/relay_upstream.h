/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * relay_upstream.h - the upstream connect path (relay_upstream.c), a
 * service of the relay's protocols: resolve, guard, connect, next
 * address. Builds on relay_loop.h only; see there for the layers.
 */
#ifndef JR_RELAY_UPSTREAM_H
#define JR_RELAY_UPSTREAM_H

#include <stdbool.h>
#include <sys/socket.h>

#include "policy.h"
#include "relay_loop.h"
#include "resolver.h"

/*
 * relay_upstream_start - connect @c to c->host port c->port, which the
 * policy allowed by name; c->ops->connected() once connected, an answer
 * through relay_reply() on any failure.
 */
void relay_upstream_start(struct jr_relay *r, struct conn *c);

/* Is @host a literal address? Then *@ss, *@len hold it (port 0). */
bool relay_literal_address(const char *host, struct sockaddr_storage *ss,
			   socklen_t *len);

/*
 * relay_guard_literal - the SSRF guard's verdict on @host:@port when @host
 * is a literal address (special ranges, this host's own addresses), the
 * one relay_upstream_start() would give; JR_ALLOWED for a name, which the
 * guard judges only once it is resolved.
 */
enum jr_deny_reason relay_guard_literal(struct jr_relay *r, const char *host,
					uint16_t port);

/* The end of a refusal's sentence: why @why refused ("is not in ..."). */
const char *relay_deny_text(enum jr_deny_reason why);

/* Connect to the next address in c->res (already guard-checked). */
void relay_connect_next(struct jr_relay *r, struct conn *c);

/*
 * relay_connect_wait - @fd, a socket whose connect(2) is under way, becomes
 * @c's upstream: ST_CONNECT until it is writable (relay_connect_done()) or
 * the connect timeout passes.
 */
void relay_connect_wait(struct jr_relay *r, struct conn *c, int fd);

/* The handlers a kind that connects out puts in its struct relay_ops:
 * .resolved, .connect_done, .connect_timeout. */
void relay_upstream_resolved(struct jr_relay *r, struct conn *c,
			     const struct jr_resolve_result *res);
void relay_connect_done(struct jr_relay *r, struct conn *c);
void relay_connect_timeout(struct jr_relay *r, struct conn *c);

#endif
