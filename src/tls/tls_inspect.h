/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * tls_inspect.h - TLS inspection for the hosts that need it (bound to a
 * --secret, or named by --inspect): an ephemeral CA per sandbox, leaf
 * certificates minted per name, and the request loop that decrypts,
 * rewrites and re-encrypts. All of jailrun's OpenSSL code is behind this
 * interface.
 */
#ifndef JR_TLS_INSPECT_H
#define JR_TLS_INSPECT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "audit.h"
#include "err.h"
#include "secrets.h"

#define JR_INSPECT_CONNS_MAX 256 /* inspected connections at once */
#define JR_INSPECT_LEAF_CACHE 64 /* leaf certificates kept */

struct jr_inspect_config {
	struct jr_secrets *secrets; /* which hosts, what to swap; counters */
	struct jr_audit *audit;	    /* one line per request */
	uint64_t lifetime_ms;	    /* the sandbox's --timeout, 0: none */
	uint64_t idle_timeout_ms;   /* a silent inspected connection ends */
};

struct jr_inspect;

/*
 * jr_inspect_new - make the sandbox's CA (EC P-256, key in memory only),
 * the leaf key, and the client and server TLS contexts; load the upstream
 * trust (--upstream-ca FILE, else the host's default store).
 * Return: 0 and *@out, or -errno with @err set.
 */
int jr_inspect_new(const struct jr_inspect_config *cfg, struct jr_inspect **out,
		   struct jr_err *err);

/* The CA certificate, PEM (no key). Valid while @in lives. */
const char *jr_inspect_ca_pem(const struct jr_inspect *in);

/*
 * jr_inspect_leaf_pem - the leaf certificate for @host (minted or from the
 * cache), PEM, malloc'd; for tests. NULL on failure.
 */
char *jr_inspect_leaf_pem(struct jr_inspect *in, const char *host);

/*
 * jr_inspect_handoff - serve an allowed CONNECT to @host:@port whose
 * upstream TCP connection @ufd is established (the relay resolved,
 * guarded and connected it) and whose client @cfd has not been answered
 * yet. Takes both descriptors in every case; @addr is the upstream address
 * for the audit line, @id the relay's connection id.
 * Return: 0, or -EBUSY when JR_INSPECT_CONNS_MAX are inspected already
 * (the descriptors are closed then), -errno on other failures.
 */
int jr_inspect_handoff(struct jr_inspect *in, int cfd, int ufd,
		       const char *host, uint16_t port, const char *addr,
		       uint64_t id);

/*
 * jr_inspect_handoff_captured - the same for a captured connection
 * (transparent egress): no CONNECT to answer, and the client's first
 * bytes (@early, @early_len: its ClientHello, read by the relay to check
 * the name) are fed to the handshake before the socket's. Copied.
 */
int jr_inspect_handoff_captured(struct jr_inspect *in, int cfd, int ufd,
				const char *host, uint16_t port,
				const char *addr, uint64_t id,
				const void *early, size_t early_len);

/*
 * jr_inspect_cut - end the inspected connections for which @match(host,
 * port, @arg) says yes: both sockets are shut down, so the connection's
 * thread returns from its blocking call at once, and the request's audit
 * line, if it has not been written yet, gets reason "policy-removed".
 * For a live "remove --close" (relay_control.c); @match runs on the
 * caller's thread, under the inspection's lock.
 * Return: how many were cut. NULL @in: 0.
 */
unsigned jr_inspect_cut(struct jr_inspect *in,
			bool (*match)(const char *host, uint16_t port,
				      void *arg),
			void *arg);

/*
 * jr_inspect_response_head - the response head sent to the client: the
 * upstream's, with Connection, Keep-Alive and Proxy-Connection fields
 * dropped and "Connection: close" added (one request per inspected
 * connection). @status gets the status code. Pure.
 * Return: 0 and a malloc'd *@out, -EINVAL for a head that is not HTTP/1.x,
 * -ENOMEM.
 */
int jr_inspect_response_head(const char *head, size_t len, char **out,
			     size_t *out_len, int *status);

/* Stop every inspected connection (each is cut), join, free the CA key.
 * NULL is a no-op. */
void jr_inspect_free(struct jr_inspect *in);

#endif
