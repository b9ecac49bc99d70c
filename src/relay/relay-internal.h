/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * relay-internal.h - the inside of the relay thread. Private to the relay's
 * modules; the rest of jailrun starts and stops a relay through relay.h.
 *
 *   relay.c         the loop, the epoll references, the connection slots,
 *                   accepting, the sweep, and the one audit writer
 *   relay_dns.c     the DNS forwarder (UDP and TCP)
 *   relay_proxy.c   the proxy request path: head, policy, resolve, guard,
 *                   connect, and the proxy's own answers
 *   relay_tunnel.c  moving bytes once connected: splice tunnel, SNI check,
 *                   request body copy, the pump
 *
 *   relay_lane.c    host lanes (--lane HOST:PORT) and published ports
 *                   (--publish): fixed destinations, bare tunnels
 *   relay_transparent.c  captured TCP (transparent egress, issue 10):
 *                   the original destination, the name behind a synthetic
 *                   address, the policy, a peek at the first bytes (TLS
 *                   name, HTTP Host), then relay_upstream_start()
 *
 * A captured connection (KIND_TRANSPARENT) is accepted by relay.c's
 * accept_conns() like the others and handed to
 * relay_transparent_accepted(); its first bytes come through
 * head_readable() to relay_transparent_head(), a silent one through the
 * sweep to relay_transparent_timeout(). Once decided it takes the proxy's
 * path from RESOLVE on (resolver, SSRF guard, connect), and
 * upstream_connected() makes it a bare tunnel whose first bytes are the
 * ones peeked at, or, for an HTTP request, the proxy's one-request
 * exchange; one connected before its client spoke has its first bytes
 * decided when they come (relay_transparent_late_head()). relay_reply()
 * resets it (SO_LINGER 0) instead of answering, unless its first bytes
 * were an HTTP request (answer_http).
 */
#ifndef JR_RELAY_INTERNAL_H
#define JR_RELAY_INTERNAL_H

#include <assert.h>
#include <netinet/in.h>
#include <pthread.h>
#include <stdbool.h>
#include <stdint.h>
#include <sys/socket.h>

#include "dns.h"
#include "fakeip.h"
#include "localaddr.h"
#include "http.h"
#include "relay.h"
#include "resolver.h"

#define RELAY_RESOLVER_THREADS 4
#define RELAY_DNS_PENDING 256 /* UDP/TCP DNS queries being resolved */
#define RELAY_LINGER_MS 2000  /* after a refusal, wait this long for EOF */
#define RELAY_SWEEP_MS 250
#define RELAY_ACCEPT_BATCH 64
#define RELAY_COPY_BUF 16384
#define RELAY_HEAD_CHUNK 4096
#define RELAY_TRIM_AFTER 64 /* connections at once before we trim */
/* Splice pipes: empty ones kept for the next direction that has bytes to
 * move (relay_tunnel.c), and the size asked for each (F_SETPIPE_SZ). */
#define RELAY_PIPE_POOL 4
#define RELAY_PIPE_SIZE (256 * 1024)
/* How long a captured connection may stay silent before the relay takes
 * it for a server-speaks-first protocol and connects (the sweep's tick
 * adds up to RELAY_SWEEP_MS). */
#define RELAY_TRANSPARENT_PEEK_MS 200

/* What an epoll registration or a resolver job is for. */
enum relay_ref_type {
	REF_STOP = 1,
	REF_TIMER,
	REF_RESOLVER,
	REF_LISTEN_PROXY,
	REF_LISTEN_DNS_TCP,
	REF_LISTEN_TRANSPARENT, /* captured TCP (relay_transparent.c) */
	REF_LISTEN_LANE,	/* a host lane's gateway listener; .slot */
	REF_LISTEN_PUBLISH,	/* a published port's host listener; .slot */
	REF_FACTORY,		/* the publish socket factory answered */
	REF_DNS_UDP,
	/* captured IPv6 TCP (relay_transparent.c) */
	REF_LISTEN_TRANSPARENT6,
	REF_CLIENT,   /* a connection's client socket; .slot */
	REF_UPSTREAM, /* a connection's upstream socket; .slot */
	/* the --control socket (relay_control.c), and a client; .slot */
	REF_CONTROL_LISTEN,
	REF_CONTROL_CLIENT,
	/* Resolver tags, not epoll registrations: */
	REF_RESOLVE_CONN, /* a connection waiting in ST_RESOLVE; .slot, .gen */
	REF_RESOLVE_DNS,  /* a pending DNS query; .slot, .gen */
};

#define RELAY_REF_GEN_BITS 24
#define RELAY_REF_GEN_MASK ((1u << RELAY_REF_GEN_BITS) - 1)

/**
 * union relay_ref - the typed reference in epoll_data.u64 and in a
 *	resolver job's tag: one layout, decoded in one place each
 *	(relay_loop() and relay_resolver_results()).
 * @slot: index in r->conns (REF_CLIENT, REF_UPSTREAM, REF_RESOLVE_CONN) or
 *	r->dns (REF_RESOLVE_DNS); 0 otherwise
 * @gen: the slot's generation, low RELAY_REF_GEN_BITS bits (resolver tags):
 *	a result for a slot freed and reused since is recognised and dropped.
 *	An epoll registration needs none: close() removes it with the slot.
 * @type: enum relay_ref_type
 * @u64: what epoll and the resolver carry
 */
union relay_ref {
	struct {
		uint32_t slot;
		uint32_t gen : RELAY_REF_GEN_BITS;
		uint32_t type : 8;
	};
	uint64_t u64;
};

static_assert(sizeof(union relay_ref) == sizeof(uint64_t),
	      "union relay_ref must fit epoll_data.u64 and a resolver tag");

static inline uint64_t relay_ref(enum relay_ref_type type, uint32_t slot,
				 uint32_t gen)
{
	union relay_ref ref = {
		.slot = slot,
		.gen = gen & RELAY_REF_GEN_MASK,
		.type = type,
	};

	return ref.u64;
}

/* Does the @gen of a decoded reference name generation @cur of a slot? */
static inline bool relay_ref_gen_is(union relay_ref ref, uint32_t cur)
{
	return ref.gen == (cur & RELAY_REF_GEN_MASK);
}

/*
 * Who a connection (or a DNS query) is: it chooses the "via" of its audit
 * line (relay_audit()) and how the connection is answered.
 */
enum conn_kind {
	KIND_PROXY,
	KIND_DNS_TCP,
	KIND_DNS_UDP,	  /* DNS queries only: never a struct conn */
	KIND_TRANSPARENT, /* relay_transparent.c */
	KIND_LANE,	  /* a host lane (relay_lane.c) */
	KIND_PUBLISH,	  /* a published port (relay_lane.c) */
};

enum conn_state {
	ST_FREE = 0,
	ST_HEAD,    /* reading a request head (proxy) or a query (DNS/TCP) */
	ST_RESOLVE, /* waiting for the resolver */
	ST_CONNECT, /* upstream connect in progress */
	ST_RELAY,   /* moving bytes */
	ST_REPLY, /* writing our own answer, then LINGER (proxy) or HEAD (DNS) */
	ST_LINGER, /* answer sent, write side shut, waiting for the client's EOF */
};

struct conn {
	enum conn_state st;
	enum conn_kind kind;
	uint32_t gen;
	uint32_t next_free;
	uint64_t id;
	int cfd, ufd;
	uint32_t cev, uev; /* events registered, or UINT32_MAX if not */

	char *in; /* client bytes not consumed yet */
	size_t in_len, in_cap;
	char *out; /* our bytes for the client */
	size_t out_len, out_off;
	char *up; /* bytes for the upstream before any splice */
	size_t up_len, up_off, up_cap;

	struct jr_http_request req; /* KIND_PROXY */
	bool have_req;
	struct jr_http_body_tracker body;

	/* The destination, once known: for the proxy, the request's
	 * (req.host, req.port); for a captured connection, the name its
	 * synthetic address was handed out for. NULL/0 before. */
	const char *host;
	uint16_t port;

	struct jr_resolve_result *res; /* addresses to try, guard-checked */
	size_t next_addr;
	int last_errno;

	/* Splice pipes, held only while a direction has bytes in one (-1
	 * when not): an idle tunnel costs its two sockets (relay_tunnel.c). */
	int pipe_cu[2], pipe_uc[2];
	size_t cu_pending, uc_pending, cu_size, uc_size;
	bool tunnel; /* ST_RELAY: both ways spliced (else an HTTP exchange) */
	bool c_eof, u_eof, c_shut, u_shut, c_done;
	bool
	    sni_pending; /* tunnel: client bytes held until the SNI is checked */
	bool late_head;	 /* ...by relay_transparent_late_head() instead: a
			    captured connection connected before its client
			    spoke */
	size_t
	    sni_need; /* below this many bytes the hello cannot be complete */

	uint64_t t_start, t_last, deadline;
	uint64_t bytes_up, bytes_down;
	int status;
	const char *reason;
	bool allowed, logged;
	char addr[INET6_ADDRSTRLEN];
	int dns_slot; /* KIND_DNS_TCP: the pending query, or -1 */
	/* KIND_TRANSPARENT: the destination the command connected to
	 * (SO_ORIGINAL_DST), as text; and whether its first bytes were an
	 * HTTP request, so refusals are answered in HTTP, not reset. */
	char original[INET6_ADDRSTRLEN];
	bool answer_http;
	/* KIND_LANE, KIND_PUBLISH: index in lanes->lane / lanes->publish;
	 * a KIND_PUBLISH in ST_RESOLVE waits for the factory's socket. */
	uint32_t lane;
};

struct dns_pending {
	bool used;
	uint32_t gen;
	int conn; /* KIND_DNS_TCP slot, or -1 for UDP */
	struct sockaddr_storage peer;
	socklen_t peer_len;
	uint8_t msg[JR_DNS_UDP_MAX];
	size_t len;
	struct jr_dns_query q;
	uint64_t t_start, deadline;
	uint64_t id;
};

struct jr_relay {
	struct jr_relay_config cfg;
	pthread_t thread;
	bool thread_started;
	int epfd, stopfd, timerfd;
	struct jr_resolver *resolver;
	struct jr_localaddr *localaddr; /* the host's own addresses */
	struct conn *conns;
	uint32_t free_head, n_used, peak_used;
	/* Slots from n_fresh on were never used: free without being on the
	 * free list, and their zeroed pages never touched. Linking all
	 * max_conns slots up front faulted in the whole array (a few MiB)
	 * at start-up: milliseconds before the command could start. */
	uint32_t n_fresh;
	struct dns_pending dns[RELAY_DNS_PENDING];
	uint64_t next_id;
	bool stopping;
	int reserve_fd;	    /* held to refuse a connection when out of fds */
	bool accept_paused; /* listeners not polled: out of fds, see
			       accept_failed() */
	bool accept_warned;
	/* Transparent egress: name <-> synthetic address; NULL when off.
	 * relay_dns.c assigns, relay_transparent.c looks up. */
	struct jr_fakeip *fakeip;
	bool fakeip_warned; /* said once that the pool is full */
	/* relay_lane.c: the host lanes' endpoint addresses as text (the
	 * audit's host), by host-lane index; socket requests written to
	 * the publish factory and not answered yet. */
	char lane_host[JR_LANE_MAX][INET6_ADDRSTRLEN];
	const struct jr_lane *lane_of[JR_LANE_MAX];
	uint32_t factory_pending;
	/* Empty splice pipes for the next tunnel direction with bytes to
	 * move (relay_tunnel.c); at most RELAY_PIPE_POOL. */
	struct relay_pipe {
		int fd[2];
		size_t size;
	} pipe_pool[RELAY_PIPE_POOL];
	uint32_t pipe_pool_n;
	/* --control: the live policy socket and the changeable policy
	 * cfg.policy points at; NULL without it (relay_control.c). */
	struct relay_control *control;
};

/* relay.c */
uint32_t relay_slot_of(const struct jr_relay *r, const struct conn *c);
void relay_close_fd(int *fd);
void relay_conn_free(struct jr_relay *r, struct conn *c);
void relay_want_events(struct jr_relay *r, struct conn *c);
int relay_queue_out(struct conn *c, const void *buf, size_t len);
int relay_flush_buf(int fd, const char *buf, size_t len, size_t *off);
int relay_grow_in(struct conn *c, size_t limit);
void relay_out_of_memory(struct jr_relay *r, struct conn *c);
void relay_audit(struct jr_relay *r, enum conn_kind kind,
		 struct jr_audit_record *rec, uint64_t t_start);
void relay_audit_conn(struct jr_relay *r, struct conn *c);

/* relay_dns.c */
void relay_dns_udp_readable(struct jr_relay *r);
void relay_dns_tcp_input(struct jr_relay *r, struct conn *c);
void relay_dns_resolved(struct jr_relay *r, int slot,
			const struct jr_resolve_result *res);
void relay_dns_release(struct jr_relay *r, int slot);
void relay_dns_sweep(struct jr_relay *r, uint64_t now);
int relay_dns_synthetic(struct jr_fakeip *f, const struct jr_dns_query *q,
			bool ipv6, struct jr_dns_addr *addr, size_t *n,
			const char **reason);

/* relay_proxy.c */
void relay_reply(struct jr_relay *r, struct conn *c, int status,
		 const char *deny_tag, const char *reason, bool allowed,
		 const char *fmt, ...) __attribute__((format(printf, 7, 8)));
void relay_proxy_head(struct jr_relay *r, struct conn *c, size_t before);
void relay_proxy_connected(struct jr_relay *r, struct conn *c);
bool relay_literal_address(const char *host, struct sockaddr_storage *ss,
			   socklen_t *len);
void relay_upstream_start(struct jr_relay *r, struct conn *c);
void relay_upstream_resolved(struct jr_relay *r, struct conn *c,
			     const struct jr_resolve_result *res);
void relay_connect_next(struct jr_relay *r, struct conn *c);
void relay_connect_done(struct jr_relay *r, struct conn *c);

/* relay_transparent.c */
void relay_transparent_accepted(struct jr_relay *r, struct conn *c);
void relay_transparent_head(struct jr_relay *r, struct conn *c, size_t before);
void relay_transparent_timeout(struct jr_relay *r, struct conn *c);
int relay_transparent_late_head(struct jr_relay *r, struct conn *c);
void relay_transparent_client_eof(struct jr_relay *r, struct conn *c);
void relay_transparent_refuse(struct jr_relay *r, struct conn *c, int status,
			      const char *reason, bool allowed);

/* What the first bytes of a captured connection decide (pure; unit tested
 * in tests/unit/test_transparent.c). */
enum relay_head_verdict {
	RELAY_HEAD_MORE,     /* too few bytes to tell: wait */
	RELAY_HEAD_GO,	     /* connect: the name matched, or none to see */
	RELAY_HEAD_RESET,    /* refuse with a TCP reset (TLS) */
	RELAY_HEAD_HTTP_400, /* HTTP without exactly one valid Host */
	RELAY_HEAD_HTTP_403, /* HTTP whose Host is another name */
};
struct relay_head_decision {
	enum relay_head_verdict verdict;
	bool http;		    /* the bytes began an HTTP request */
	const char *reason;	    /* the audit reason of a refusal */
	char seen[JR_HOST_MAX + 1]; /* the SNI or Host found, or "" */
};
void relay_transparent_decide(const char *buf, size_t len, const char *host,
			      bool host_is_address, uint16_t port,
			      struct relay_head_decision *d);

/* relay_lane.c */
int relay_lane_start(struct jr_relay *r);
void relay_lane_close(struct jr_relay *r);
void relay_lane_arm(struct jr_relay *r, bool on);
void relay_lane_accepted(struct jr_relay *r, struct conn *c, uint32_t idx);
void relay_factory_readable(struct jr_relay *r);
void relay_lane_connected(struct jr_relay *r, struct conn *c);
bool relay_lane_dns_name(const struct jr_relay *r, const char *name);
/* relay_control.c */
int relay_control_start(struct jr_relay *r, struct jr_err *err);
void relay_control_accept(struct jr_relay *r);
void relay_control_event(struct jr_relay *r, uint32_t slot, uint32_t events);
void relay_control_free(struct jr_relay *r);
/* relay_httprules.c (--allow-http) */
bool relay_httprules_proxy(struct jr_relay *r, struct conn *c);
bool relay_httprules_transparent(struct jr_relay *r, struct conn *c);
/* relay_inspect.c (issue 13: secrets and TLS inspection) */
bool relay_inspect_connect(struct jr_relay *r, struct conn *c);
bool relay_inspect_plain(struct jr_relay *r, struct conn *c);
bool relay_inspect_captured(struct jr_relay *r, struct conn *c);
unsigned relay_inspect_cut_removed(struct jr_relay *r,
				   const struct jr_policy *removed);

/* relay_tunnel.c */
void relay_tunnel_start(struct conn *c, bool tunnel);
void relay_tunnel_release(struct jr_relay *r, struct conn *c);
void relay_pipes_free(struct jr_relay *r);
/* May a tunnel direction with @pending bytes in its pipe @p (of @size
 * bytes; none held: p[0] < 0) read more from its source? */
static inline bool relay_pipe_room(const int p[2], size_t pending, size_t size)
{
	return p[0] < 0 || pending < size;
}
void relay_tunnel_run(struct jr_relay *r, struct conn *c);
int relay_tunnel_pass_head(struct jr_relay *r, struct conn *c);
int relay_queue_up(struct conn *c, const void *buf, size_t len);
int relay_feed_body(struct conn *c, const char *buf, size_t n);
void relay_pump(struct jr_relay *r, struct conn *c);
void relay_upstream_error(struct jr_relay *r, struct conn *c);

#endif
