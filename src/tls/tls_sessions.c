// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * tls_sessions.c - the upstream TLS session cache of TLS inspection.
 *
 * Theory of operation
 *
 * Every inspected connection opens a TLS connection of its own to the
 * upstream (tls_inspect.c). A full handshake there is a key exchange and
 * a certificate chain to verify, CPU on both ends and the larger part of
 * what inspection adds to a fresh connection (issue 13). The upstream
 * hands out sessions (TLS 1.3: NewSessionTicket messages after the
 * handshake; TLS 1.2: the session of the handshake itself); offering one
 * on the next connection to the same upstream resumes it: no certificate,
 * no verification, one round trip less of work.
 *
 * What a session may be offered to: only the upstream that issued it.
 * The key is the host name (or address literal) the connection was
 * verified for, and the port. The verification settings (--upstream-ca
 * or the host's store) belong to the one client context of the cache's
 * owner (struct jr_inspect makes one cache per context), so a session is
 * never offered under other trust. A resumed connection keeps the
 * verification of the handshake that made the session (OpenSSL keeps the
 * verified peer chain and result in it); tls_inspect.c checks the host
 * name against that certificate again before it sends anything.
 *
 * TLS 1.3 tickets are used once (RFC 8446 C.4: reuse lets a network
 * observer link connections): taking one removes it, and each connection
 * brings new ones (OpenSSL servers send two). TLS 1.2 sessions stay until
 * they expire or OpenSSL marks them not resumable (a fatal alert on a
 * connection that used one, RFC 5246 7.2: the object is shared, so the
 * mark is seen here).
 *
 * Bounded: JR_TLS_SESSIONS_HOSTS upstreams (least recently used out),
 * JR_TLS_SESSIONS_PER_HOST sessions each (oldest out). Inspection threads
 * call in concurrently: one mutex around everything, held only for array
 * work (no I/O, no crypto).
 */
#include <pthread.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <time.h>

#include "host.h"
#include "openssl_lazy.h"
#include "tls_sessions.h"

struct sess_host {
	char host[JR_HOST_MAX + 1]; /* "" : free */
	uint16_t port;
	SSL_SESSION *s[JR_TLS_SESSIONS_PER_HOST]; /* oldest first */
	size_t n;
	uint64_t used;
};

struct jr_tls_sessions {
	pthread_mutex_t lock;
	uint64_t tick;
	struct sess_host hosts[JR_TLS_SESSIONS_HOSTS];
};

struct jr_tls_sessions *jr_tls_sessions_new(void)
{
	struct jr_tls_sessions *c = calloc(1, sizeof(*c));

	if (c)
		pthread_mutex_init(&c->lock, NULL);
	return c;
}

static struct sess_host *find(struct jr_tls_sessions *c, const char *host,
			      uint16_t port)
{
	for (size_t i = 0; i < JR_TLS_SESSIONS_HOSTS; i++) {
		struct sess_host *h = &c->hosts[i];

		if (h->host[0] && h->port == port &&
		    strcasecmp(h->host, host) == 0)
			return h;
	}
	return NULL;
}

static void drop(struct sess_host *h, size_t i)
{
	SSL_SESSION_free(h->s[i]);
	memmove(&h->s[i], &h->s[i + 1], (h->n - i - 1) * sizeof(h->s[0]));
	h->s[--h->n] = NULL;
}

static bool usable(SSL_SESSION *s, time_t now)
{
	time_t end = SSL_SESSION_get_time(s) + SSL_SESSION_get_timeout(s);

	return SSL_SESSION_is_resumable(s) && now < end;
}

SSL_SESSION *jr_tls_sessions_take(struct jr_tls_sessions *c, const char *host,
				  uint16_t port)
{
	time_t now = time(NULL);
	SSL_SESSION *out = NULL;
	struct sess_host *h;

	pthread_mutex_lock(&c->lock);
	h = find(c, host, port);
	if (h) {
		h->used = ++c->tick;
		for (size_t i = h->n; i-- > 0;)
			if (!usable(h->s[i], now))
				drop(h, i);
		if (h->n) {
			/* The newest: the longest left to live. */
			out = h->s[h->n - 1];
			/* TLS 1.3: its reference is now the caller's. */
			if (SSL_SESSION_get_protocol_version(out) >=
			    TLS1_3_VERSION)
				h->s[--h->n] = NULL;
			else
				SSL_SESSION_up_ref(out);
		}
	}
	pthread_mutex_unlock(&c->lock);
	return out;
}

void jr_tls_sessions_put(struct jr_tls_sessions *c, const char *host,
			 uint16_t port, SSL_SESSION *sess)
{
	struct sess_host *h;

	if (!sess || !SSL_SESSION_is_resumable(sess) ||
	    strlen(host) > JR_HOST_MAX || !host[0])
		return;
	pthread_mutex_lock(&c->lock);
	h = find(c, host, port);
	if (!h) {
		h = &c->hosts[0];
		for (size_t i = 0; i < JR_TLS_SESSIONS_HOSTS; i++) {
			struct sess_host *k = &c->hosts[i];

			if (!k->host[0]) {
				h = k;
				break;
			}
			if (k->used < h->used)
				h = k;
		}
		while (h->n)
			drop(h, h->n - 1);
		snprintf(h->host, sizeof(h->host), "%s", host);
		h->port = port;
	}
	for (size_t i = 0; i < h->n; i++)
		if (h->s[i] == sess)
			goto out; /* a TLS 1.2 session seen again */
	if (h->n == JR_TLS_SESSIONS_PER_HOST)
		drop(h, 0);
	SSL_SESSION_up_ref(sess);
	h->s[h->n++] = sess;
out:
	h->used = ++c->tick;
	pthread_mutex_unlock(&c->lock);
}

size_t jr_tls_sessions_count(struct jr_tls_sessions *c, const char *host,
			     uint16_t port)
{
	struct sess_host *h;
	size_t n;

	pthread_mutex_lock(&c->lock);
	h = find(c, host, port);
	n = h ? h->n : 0;
	pthread_mutex_unlock(&c->lock);
	return n;
}

void jr_tls_sessions_free(struct jr_tls_sessions *c)
{
	if (!c)
		return;
	for (size_t i = 0; i < JR_TLS_SESSIONS_HOSTS; i++)
		while (c->hosts[i].n)
			drop(&c->hosts[i], c->hosts[i].n - 1);
	pthread_mutex_destroy(&c->lock);
	free(c);
}
