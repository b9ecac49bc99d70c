/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * selfcheck.h - proving the relay answers, from the worker netns, through
 * the very path (routes, nftables rules, veth) the command will use.
 */
#ifndef JR_SELFCHECK_H
#define JR_SELFCHECK_H

#include <netinet/in.h>

#include "err.h"

/* What the relay answers specially, without logging (see relay_proxy.c,
 * relay_dns.c). */
#define JR_HEALTH_REQUEST                                                      \
	"GET /.jailrun/health HTTP/1.1\r\nHost: jailrun\r\n\r\n"
#define JR_HEALTH_DNS_NAME "health.jailrun.invalid"

/*
 * jr_selfcheck_relay - ask the proxy port for its health page and the DNS
 * port (UDP and TCP) for JR_HEALTH_DNS_NAME, each within @timeout_ms.
 * Return: 0 if all three answered as expected, else -errno with @err
 * saying which did not.
 */
int jr_selfcheck_relay(struct in_addr gw, int timeout_ms, struct jr_err *err);

#endif
