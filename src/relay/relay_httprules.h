/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * relay_httprules.h - --allow-http enforced on the relay thread
 * (relay_httprules.c), a service of the proxy and of captured
 * connections. Builds on relay_loop.h only; see there for the layers.
 */
#ifndef JR_RELAY_HTTPRULES_H
#define JR_RELAY_HTTPRULES_H

#include <stdbool.h>

#include "relay_loop.h"

/* The proxy's request in @c against the rules. Return: true to go on;
 * false when @c was answered (refused). */
bool relay_httprules_proxy(struct jr_relay *r, struct conn *c);
/* A captured connection, decided, about to connect. Return: true to
 * connect; false when @c was answered or closed. */
bool relay_httprules_transparent(struct jr_relay *r, struct conn *c);

#endif
