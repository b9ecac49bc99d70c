/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * relay_inspect.h - where the relay meets secrets and TLS inspection
 * (relay_inspect.c), a service of the proxy, captured connections and the
 * control socket. Builds on relay_loop.h only; see there for the layers.
 */
#ifndef JR_RELAY_INSPECT_H
#define JR_RELAY_INSPECT_H

#include <stdbool.h>

#include "policy.h"
#include "relay_loop.h"

/* Each returns true when it took @c (handed off, answered or closed). */
bool relay_inspect_connect(struct jr_relay *r, struct conn *c);
bool relay_inspect_plain(struct jr_relay *r, struct conn *c);
bool relay_inspect_captured(struct jr_relay *r, struct conn *c);
/* Cut the inspected connections @removed allowed and the policy no
 * longer does. Return: how many. */
unsigned relay_inspect_cut_removed(struct jr_relay *r,
				   const struct jr_policy *removed);

#endif
