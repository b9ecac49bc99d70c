/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * relay_loop.h - the relay loop's interface: the one header every module
 * of the relay thread builds on. Private to src/relay/; the rest of
 * jailrun starts and stops a relay through relay.h.
 *
 * Layers, and who may include whom (tests/integration/layering.sh checks
 * the #include lines of src/relay/ against this):
 *
 *   protocols   relay_proxy.c  relay_transparent.c  relay_dns.c
 *               relay_lane.c   relay_control.c
 *                   |  each exports only its handlers, as a
 *                   |  struct relay_ops per connection kind and a
 *                   |  struct relay_module (see the registry below);
 *                   |  never includes another protocol's header
 *                   v
 *   services    relay_upstream.h  resolve -> guard -> connect -> next address
 *               relay_tunnel.h    the pump: splice tunnel, SNI check, body copy
 *               relay_httprules.h --allow-http checks of a request
 *               relay_inspect.h   secrets and the TLS inspection hand-off
 *               relay_ask.h       --ask: hold a refused request for a decision
 *                   |  used by several protocols; include the loop's
 *                   |  header and other services', never a protocol's
 *                   v
 *   loop        relay_loop.h / relay_loop.c: the connection table, the
 *               epoll references and the dispatch, accepting, answers
 *               (relay_reply(), REPLY, LINGER), timeouts, the audit
 *               writer, out of memory. Includes no other relay header.
 *
 * The loop reaches what is above it only through tables: a connection's
 * kind picks its struct relay_ops (c->ops), an epoll reference's type or a
 * resolver tag picks the struct relay_module that owns it, and each module
 * is started, swept, paused and stopped through its struct relay_module.
 * A service that finishes its part (the upstream connected, a tunnel's
 * first bytes are due) calls back through c->ops, never a protocol by name.
 * A protocol's own header (relay_transparent.h, relay_dns.h) holds only
 * its pure, unit-tested functions, for its tests.
 *
 * A captured connection (KIND_TRANSPARENT) is accepted like the others
 * and handed to its ops' accepted(); its first bytes come through the
 * loop's HEAD read to head(), a silent one through the sweep to
 * head_timeout(). Once decided it takes the upstream path
 * (relay_upstream_start(): resolver, SSRF guard, connect), and connected()
 * makes it a bare tunnel whose first bytes are the ones peeked at, or, for
 * an HTTP request, the proxy's one-request exchange; one connected before
 * its client spoke has its first bytes decided when they come (late_head(),
 * called by the tunnel). relay_reply() resets it (its ops' refuse())
 * instead of answering, unless its first bytes were an HTTP request
 * (answer_http).
 */
#ifndef JR_RELAY_LOOP_H
#define JR_RELAY_LOOP_H

#include <assert.h>
#include <netinet/in.h>
#include <pthread.h>
#include <stdbool.h>
#include <stdint.h>
#include <sys/socket.h>

#include "asktable.h"
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
	REF_LISTEN_LANE_LOCAL,	/* its listener on the worker's 127.0.0.1 */
	REF_LISTEN_LANE_LOCAL6, /* and on the worker's [::1] */
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
	ST_HELD, /* --ask: waiting for an operator's decision (relay_ask.c);
		      only the client's hang-up is watched */
};

/* What an operator (or the clock) decided for a held request (--ask). */
enum relay_ask_verdict {
	RELAY_ASK_APPROVED,
	RELAY_ASK_DENIED,
	RELAY_ASK_TIMED_OUT,
};

struct conn {
	enum conn_state st;
	enum conn_kind kind;
	const struct relay_ops *ops; /* the kind's handlers, set at accept */
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
	bool late_head;	 /* ...by c->ops->late_head() instead: a
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
	/* ST_HELD: the held request's id (asktable.h) and the policy's
	 * refusal, given if it is not approved; 0 when not held. */
	uint64_t ask_id;
	enum jr_deny_reason ask_why;
	/* KIND_TRANSPARENT: when its peek began (accepted, or approved after
	 * a hold): its first bytes' header timeout counts from here. */
	uint64_t t_peek;
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
	uint64_t ask_id; /* --ask: held as this request; 0: not held */
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
	/* --ask: the held requests and the decisions so far (relay_ask.c);
	 * NULL without --ask. */
	struct jr_asktable *ask;
	uint64_t ask_approved, ask_denied, ask_timed_out;
};

/* relay_loop.c: the loop's services to every module */
uint32_t relay_slot_of(const struct jr_relay *r, const struct conn *c);
void relay_close_fd(int *fd);
void relay_conn_free(struct jr_relay *r, struct conn *c);
void relay_want_events(struct jr_relay *r, struct conn *c);
int relay_queue_out(struct conn *c, const void *buf, size_t len);
int relay_flush_buf(int fd, const char *buf, size_t len, size_t *off);
int relay_grow_in(struct conn *c, size_t limit);
void relay_out_of_memory(struct jr_relay *r, struct conn *c);
/* One audit line of @event ("control", "ask") whose detail is @fmt, also
 * said with -v: the one writer of the relay's event lines. */
void relay_audit_event(struct jr_relay *r, const char *event, const char *fmt,
		       ...) __attribute__((format(printf, 3, 4)));
/* The held set changed (a hold, a decision, a request whose last waiter
 * left): wake the runner's --ask tty prompt, if any. */
void relay_ask_notify(struct jr_relay *r);
/* A connection or DNS query held as request @id is dropped without a
 * decision (its client left); the request goes with its last waiter. */
void relay_ask_leave(struct jr_relay *r, uint64_t id);
void relay_audit(struct jr_relay *r, enum conn_kind kind,
		 struct jr_audit_record *rec, uint64_t t_start);
void relay_audit_conn(struct jr_relay *r, struct conn *c);
void relay_conn_reset(struct jr_relay *r, struct conn *c, const char *reason,
		      bool allowed);
void relay_refuse_reset(struct jr_relay *r, struct conn *c, int status,
			const char *reason, bool allowed);
void relay_reply(struct jr_relay *r, struct conn *c, int status,
		 const char *deny_tag, const char *reason, bool allowed,
		 const char *fmt, ...) __attribute__((format(printf, 7, 8)));
void relay_hold_conn(struct jr_relay *r, struct conn *c, uint64_t ask_id,
		     enum jr_deny_reason why);
unsigned relay_held_release(struct jr_relay *r, uint64_t ask_id,
			    enum relay_ask_verdict v);

/* May a tunnel direction with @pending bytes in its pipe @p (of @size
 * bytes; none held: p[0] < 0) read more from its source? */
static inline bool relay_pipe_room(const int p[2], size_t pending, size_t size)
{
	return p[0] < 0 || pending < size;
}

/**
 * struct relay_ops - what the loop and the services call for a connection
 *	of one kind (c->ops). A protocol fills in its own handlers and picks
 *	the services its connections go through. A NULL member means the
 *	loop's default, said for each.
 * @accepted: a connection was accepted (@idx: the listener's .slot);
 *	NULL: wait for its first bytes in ST_HEAD
 * @head: more client bytes arrived in ST_HEAD (@before were there)
 * @client_eof: the client ended its side in ST_HEAD after bytes that
 *	decided nothing yet; NULL: close, as for an idle client
 * @head_timeout: ST_HEAD past its deadline; NULL: close, "header-timeout"
 * @replied: our answer is out (ST_REPLY); NULL: half-close and LINGER
 * @refuse: end @c instead of an HTTP answer, in relay_reply() (unless its
 *	first bytes were HTTP: c->answer_http); NULL: answer in HTTP
 * @resolved: the resolver answered for @c in ST_RESOLVE
 * @connect_done: the upstream connect in progress finished (ST_CONNECT)
 * @connect_timeout: ST_CONNECT past its deadline
 * @connected: the upstream accepted (the upstream service's callback)
 * @pump: an event on either socket in ST_RELAY
 * @upstream_error: EPOLLERR on the upstream socket in ST_RELAY
 * @asked: @c (ST_HELD) was decided: go on as if allowed, or refuse it
 *	as the policy would have; NULL: the kind is never held
 * @late_head: the tunnel holds the first client bytes of a connection
 *	connected before its client spoke (c->late_head): judge them.
 *	Return: 0 to go on, -1 when @c was closed, answered or taken over
 * @release: @c is being freed: let go of what the kind holds for it
 */
struct relay_ops {
	void (*accepted)(struct jr_relay *r, struct conn *c, uint32_t idx);
	void (*head)(struct jr_relay *r, struct conn *c, size_t before);
	void (*client_eof)(struct jr_relay *r, struct conn *c);
	void (*head_timeout)(struct jr_relay *r, struct conn *c);
	void (*replied)(struct jr_relay *r, struct conn *c);
	void (*refuse)(struct jr_relay *r, struct conn *c, int status,
		       const char *reason, bool allowed);
	void (*resolved)(struct jr_relay *r, struct conn *c,
			 const struct jr_resolve_result *res);
	void (*connect_done)(struct jr_relay *r, struct conn *c);
	void (*connect_timeout)(struct jr_relay *r, struct conn *c);
	void (*connected)(struct jr_relay *r, struct conn *c);
	void (*pump)(struct jr_relay *r, struct conn *c);
	void (*upstream_error)(struct jr_relay *r, struct conn *c);
	int (*late_head)(struct jr_relay *r, struct conn *c);
	void (*asked)(struct jr_relay *r, struct conn *c,
		      enum relay_ask_verdict v);
	void (*release)(struct jr_relay *r, struct conn *c);
};

/**
 * struct relay_module - what a module does outside any one connection:
 *	its own epoll registrations and resolver tags, its part of starting,
 *	sweeping and stopping the relay. Every member may be NULL.
 * @start: register its listeners, set up its state (jr_relay_start())
 * @stop: close and free what it owns (the thread has ended, or never ran)
 * @event: an epoll event on one of its reference types
 * @resolved: a resolver result for one of its tags
 * @sweep: the timer's tick, after the connections' timeouts
 * @arm: accept again (@on) or pause its listeners (out of descriptors)
 * @asked: held request @id was decided: release what it holds for it
 */
struct relay_module {
	int (*start)(struct jr_relay *r, struct jr_err *err);
	void (*stop)(struct jr_relay *r);
	void (*event)(struct jr_relay *r, union relay_ref ref, uint32_t events);
	void (*resolved)(struct jr_relay *r, union relay_ref ref,
			 const struct jr_resolve_result *res);
	void (*sweep)(struct jr_relay *r, uint64_t now);
	void (*arm)(struct jr_relay *r, bool on);
	void (*asked)(struct jr_relay *r, uint64_t id,
		      enum relay_ask_verdict v);
};

/*
 * The registry: each table is defined by the module that owns it and used
 * by relay_loop.c only, which maps kinds and reference types to them.
 */
extern const struct relay_ops relay_proxy_ops;	     /* relay_proxy.c */
extern const struct relay_ops relay_transparent_ops; /* relay_transparent.c */
extern const struct relay_ops relay_dns_tcp_ops;     /* relay_dns.c */
extern const struct relay_ops relay_lane_ops; /* relay_lane.c: and publish */
extern const struct relay_module relay_dns_module;     /* relay_dns.c */
extern const struct relay_module relay_lane_module;    /* relay_lane.c */
extern const struct relay_module relay_control_module; /* relay_control.c */
extern const struct relay_module relay_tunnel_module;  /* relay_tunnel.c */
extern const struct relay_module relay_ask_module;     /* relay_ask.c */

#endif
