/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * relay_dns.h - the pure part of the DNS forwarder (relay_dns.c), for its
 * unit tests (tests/unit/test_fakeip.c). The relay reaches the module
 * only through relay_dns_module and relay_dns_tcp_ops (relay_loop.h); no
 * other relay module includes this header.
 */
#ifndef JR_RELAY_DNS_H
#define JR_RELAY_DNS_H

#include <stdbool.h>
#include <stddef.h>

#include "dns.h"
#include "fakeip.h"

/* The answer to an allowed name's query under transparent egress. */
int relay_dns_synthetic(struct jr_fakeip *f, const struct jr_dns_query *q,
			bool ipv6, struct jr_dns_addr *addr, size_t *n,
			const char **reason);

#endif
