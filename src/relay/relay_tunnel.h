/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * relay_tunnel.h - moving bytes once the upstream is connected
 * (relay_tunnel.c), a service of the relay's protocols: the splice
 * tunnel, the SNI check, the one-request HTTP exchange, the pump. Builds
 * on relay_loop.h (and the upstream service's address test); see
 * relay_loop.h for the layers.
 */
#ifndef JR_RELAY_TUNNEL_H
#define JR_RELAY_TUNNEL_H

#include <stdbool.h>
#include <stddef.h>

#include "relay_loop.h"

/* @c relays from now on: both ways spliced for a @tunnel (its first
 * client bytes held for the SNI check), else an HTTP exchange. */
void relay_tunnel_start(struct conn *c, bool tunnel);
/* From now on @c moves bytes (ST_RELAY). */
void relay_tunnel_run(struct jr_relay *r, struct conn *c);
/* Relay the one request in c->req: "200" and a tunnel for a CONNECT,
 * else the rewritten head, exactly its body, then the response. */
void relay_tunnel_exchange(struct jr_relay *r, struct conn *c);
/* The held first client bytes in c->in were judged: send them first. */
int relay_tunnel_pass_head(struct jr_relay *r, struct conn *c);
int relay_queue_up(struct conn *c, const void *buf, size_t len);
int relay_feed_body(struct conn *c, const char *buf, size_t n);

/* The handlers a kind that relays puts in its struct relay_ops: .pump,
 * .upstream_error, .release. */
void relay_pump(struct jr_relay *r, struct conn *c);
void relay_upstream_error(struct jr_relay *r, struct conn *c);
void relay_tunnel_release(struct jr_relay *r, struct conn *c);

#endif
