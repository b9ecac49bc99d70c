/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * tls_sessions.h - the upstream TLS session cache of TLS inspection: the
 * sessions (TLS 1.3 tickets, TLS 1.2 sessions) the upstreams gave, kept
 * per host and port so that the next inspected connection to the same
 * upstream resumes instead of doing a full handshake (issue 13).
 */
#ifndef JR_TLS_SESSIONS_H
#define JR_TLS_SESSIONS_H

#include <stddef.h>
#include <stdint.h>

#include <openssl/ssl.h>

#define JR_TLS_SESSIONS_HOSTS 64   /* upstreams remembered */
#define JR_TLS_SESSIONS_PER_HOST 4 /* sessions kept per upstream */

struct jr_tls_sessions;

/* A new, empty cache; NULL when out of memory. */
struct jr_tls_sessions *jr_tls_sessions_new(void);

/*
 * jr_tls_sessions_take - a session to offer to @host:@port, with a
 * reference for the caller (SSL_SESSION_free() it), or NULL. A TLS 1.3
 * session leaves the cache (a ticket is used once, RFC 8446 C.4); a
 * TLS 1.2 one stays. Expired and no longer resumable ones are dropped.
 * @host is compared case-insensitively.
 */
SSL_SESSION *jr_tls_sessions_take(struct jr_tls_sessions *c, const char *host,
				  uint16_t port);

/*
 * jr_tls_sessions_put - remember @sess (a verified connection's, from
 * @host:@port) with a reference of the cache's own. Not resumable ones
 * are ignored; the oldest session of the host, and the least recently
 * used host, go out when full.
 */
void jr_tls_sessions_put(struct jr_tls_sessions *c, const char *host,
			 uint16_t port, SSL_SESSION *sess);

/* Sessions held for @host:@port (tests). */
size_t jr_tls_sessions_count(struct jr_tls_sessions *c, const char *host,
			     uint16_t port);

/* Free every session and the cache. NULL is a no-op. */
void jr_tls_sessions_free(struct jr_tls_sessions *c);

#endif
