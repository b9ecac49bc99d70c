/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * localaddr.h - would a connect to this address stay on this host?
 *
 * The SSRF guard's question that policy.c cannot answer by itself: the
 * runner host's own addresses (a service bound to 0.0.0.0 answers on every
 * one of them) are not a fixed range. The kernel is asked, per connect,
 * how it would route the address (RTM_GETROUTE, as `ip route get` does);
 * see the theory of operation in localaddr.c.
 */
#ifndef JR_LOCALADDR_H
#define JR_LOCALADDR_H

#include <sys/socket.h>

#include "err.h"

struct jr_localaddr;

/*
 * jr_localaddr_open - open a NETLINK_ROUTE socket in the calling thread's
 * network namespace: the one the relay's upstream sockets are made in.
 * Return: 0 and *out, or -errno with @err set.
 */
int jr_localaddr_open(struct jr_localaddr **out, struct jr_err *err);

/* Close it; NULL is fine. */
void jr_localaddr_close(struct jr_localaddr *la);

/*
 * jr_localaddr_is_local - ask the kernel how it would route @sa now.
 * @la: from jr_localaddr_open(); one thread at a time
 * @sa: AF_INET or AF_INET6 socket address (port ignored). An IPv4-mapped
 *      IPv6 address is asked as the IPv4 address it carries (that is what
 *      connect(2) on an AF_INET6 socket does with it); an IPv4-compatible
 *      or NAT64 (64:ff9b::/96) one is asked both ways, and is local if
 *      either answer is; so is a 6to4 one (2002::/16) with the IPv4 end
 *      point it carries in bits 16-47.
 *
 * Return: 1 if the route is local, broadcast, multicast or anycast (the
 * connection would be delivered on this host), 0 if it is unicast or the
 * kernel has no route (unreachable, prohibited: connect(2) fails the same
 * way), or -errno when the question could not be asked or the answer not
 * read; the caller refuses the address then (fail closed).
 */
int jr_localaddr_is_local(struct jr_localaddr *la, const struct sockaddr *sa);

#endif
