// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * relay_tunnel.c - moving bytes once the upstream is connected.
 *
 * Theory of operation
 *
 * Tunnels move bytes with splice(2) socket -> pipe -> socket, so payload
 * never enters user space. A direction holds a pipe only while bytes sit
 * in it: it takes one from a small pool of empty pipes when it may have
 * bytes to move, and gives it back as soon as the pipe is drained again
 * (the bytes went out whole), so an idle tunnel costs its two sockets and
 * 10,000 idle tunnels fit in 20,000 descriptors. A pipe the destination
 * did not drain stays with its direction until it is: its bytes are the
 * stream's next ones. Taking and giving back are array operations; pipes
 * are only made when the pool is empty and closed when it is full. When
 * no pipe can be made (out of descriptors), the direction moves a
 * buffer's worth through user space instead (copy_dir()), slower but
 * never stuck.
 *
 * A read side that reaches EOF is passed on as shutdown(SHUT_WR) once its
 * pipe (or buffer) is drained (half-close), and the tunnel ends when both
 * directions have. Request bodies of absolute-form requests are copied
 * instead, through jr_http_body_feed(), because the relay must stop at
 * the exact end of the body: nothing after it may reach the upstream.
 *
 * Before a tunnel forwards anything from the client, its first bytes are
 * read as a TLS ClientHello: the server name in it must be the host the
 * policy allowed (sni_check()). A captured connection connected before its
 * client spoke has them decided as at its peek instead, TLS or HTTP, by
 * its kind (c->ops->late_head(), relay_transparent.c).
 *
 * A relayed connection that one side resets is reset on the other side
 * too, and its audit line says which side ("upstream-reset").
 */
#include <errno.h>
#include <fcntl.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/socket.h>
#include <unistd.h>

#include "buf.h"
#include "clock.h"
#include "host.h"
#include "log.h"
#include "relay_loop.h"
#include "relay_tunnel.h"
#include "relay_upstream.h"
#include "clienthello.h"

/*
 * pipe_take - an empty pipe for a direction that may have bytes to move:
 * from the pool, else a new one, made RELAY_PIPE_SIZE large when the
 * kernel lets us (fewer wakeups per megabyte; fs.pipe-max-size and the
 * user's pipe page budget may refuse, and then the default size serves).
 * @size gets the pipe's real capacity: the bound relay_want_events() and
 * splice_dir() fill it to.
 * Return: 0, or -errno (p[] stays -1).
 */
static int pipe_take(struct jr_relay *r, int p[2], size_t *size)
{
	int sz;

	if (r->pipe_pool_n) {
		struct relay_pipe *rp = &r->pipe_pool[--r->pipe_pool_n];

		p[0] = rp->fd[0];
		p[1] = rp->fd[1];
		*size = rp->size;
		return 0;
	}
	if (pipe2(p, O_CLOEXEC | O_NONBLOCK) < 0) {
		p[0] = p[1] = -1;
		return -errno;
	}
	/* May be refused (EPERM over the user's pipe budget): the size read
	 * back below is the one used. */
	(void)fcntl(p[0], F_SETPIPE_SZ, RELAY_PIPE_SIZE);
	sz = fcntl(p[0], F_GETPIPE_SZ);
	*size = sz > 0 ? (size_t)sz : 4096; /* a pipe holds a page at least */
	return 0;
}

/*
 * pipe_give - a direction is done with its pipe @p holding @pending bytes:
 * an empty one goes back to the pool (if there is room), one with bytes in
 * it is closed (its connection is going away).
 */
static void pipe_give(struct jr_relay *r, int p[2], size_t size, size_t pending)
{
	if (p[0] < 0)
		return;
	if (!pending && r->pipe_pool_n < RELAY_PIPE_POOL) {
		struct relay_pipe *rp = &r->pipe_pool[r->pipe_pool_n++];

		rp->fd[0] = p[0];
		rp->fd[1] = p[1];
		rp->size = size;
		p[0] = p[1] = -1;
		return;
	}
	relay_close_fd(&p[0]);
	relay_close_fd(&p[1]);
}

/* relay_tunnel_release - @c is being freed: its pipes go back or close. */
void relay_tunnel_release(struct jr_relay *r, struct conn *c)
{
	pipe_give(r, c->pipe_cu, c->cu_size, c->cu_pending);
	pipe_give(r, c->pipe_uc, c->uc_size, c->uc_pending);
	c->cu_pending = c->uc_pending = 0;
}

/* pipes_free - the relay is going away: close the pooled pipes. */
static void pipes_free(struct jr_relay *r)
{
	while (r->pipe_pool_n) {
		struct relay_pipe *rp = &r->pipe_pool[--r->pipe_pool_n];

		relay_close_fd(&rp->fd[0]);
		relay_close_fd(&rp->fd[1]);
	}
}

int relay_queue_up(struct conn *c, const void *buf, size_t len)
{
	if (!len)
		return 0;
	if (jr_buf_reserve(&c->up, &c->up_cap, c->up_len + len, 4096,
			   SIZE_MAX) < 0)
		return -ENOMEM;
	memcpy(c->up + c->up_len, buf, len);
	c->up_len += len;
	return 0;
}

/* Feed client bytes of an absolute-form request body towards upstream. */
int relay_feed_body(struct conn *c, const char *buf, size_t n)
{
	long take;

	if (c->c_done)
		return 0;
	take = jr_http_body_feed(&c->body, buf, n);
	if (take < 0)
		return -EINVAL;
	if (take && relay_queue_up(c, buf, (size_t)take) < 0)
		return -ENOMEM;
	if (c->body.done)
		c->c_done = true; /* anything after the body is never sent */
	return 0;
}

/*
 * relay_tunnel_start - @c relays from now on: both ways spliced for a
 * @tunnel, else upstream -> client spliced and the request body copied by
 * its framing. A tunnel holds the client's bytes until sni_check() has
 * seen them. No pipe is taken here: splice_dir() takes one when a
 * direction has bytes to move (and copies when none can be had), so
 * starting cannot fail.
 */
void relay_tunnel_start(struct conn *c, bool tunnel)
{
	c->tunnel = tunnel;
	c->sni_pending = tunnel;
}

/* relay_tunnel_run - from now on @c moves bytes (ST_RELAY). */
void relay_tunnel_run(struct jr_relay *r, struct conn *c)
{
	c->st = ST_RELAY;
	c->t_last = jr_clock_ms();
	relay_want_events(r, c);
}

/*
 * relay_tunnel_exchange - relay the one request in c->req over @c's
 * connected upstream: our "200" and a tunnel for a CONNECT, else the
 * rewritten head, its body by its framing, and the response. The proxy's
 * requests, and a captured HTTP request read the same way.
 */
void relay_tunnel_exchange(struct jr_relay *r, struct conn *c)
{
	bool tunnel = c->req.form == JR_HTTP_FORM_CONNECT;
	char head[64];
	int n, e;

	relay_tunnel_start(c, tunnel);
	if (tunnel) {
		n = jr_http_connect_established(head, sizeof(head));
		if (n < 0 || relay_queue_out(c, head, (size_t)n) < 0) {
			relay_out_of_memory(r, c);
			return;
		}
		/* Keep what followed the head: it may be the ClientHello. Most
		 * clients wait for our answer first; then the head buffer is
		 * released and sni_check() allocates when bytes arrive, so an
		 * idle tunnel holds no buffer. */
		memmove(c->in, c->in + c->req.head_len,
			c->in_len - c->req.head_len);
		c->in_len -= c->req.head_len;
		if (!c->in_len) {
			free(c->in);
			c->in = NULL;
			c->in_cap = 0;
		}
	} else {
		jr_http_body_init(&c->body, &c->req);
		c->c_done = c->body.done;
		e = relay_queue_up(c, c->req.upstream_head,
				   c->req.upstream_head_len);
		if (!e)
			e = relay_feed_body(c, c->in + c->req.head_len,
					    c->in_len - c->req.head_len);
		if (e == -ENOMEM) {
			relay_out_of_memory(r, c);
			return;
		}
		if (e < 0) {
			relay_conn_free(r, c); /* malformed chunked framing */
			return;
		}
		free(c->in);
		c->in = NULL;
		c->in_len = c->in_cap = 0;
	}
	relay_tunnel_run(r, c);
}

/* Which end of a splice_dir() failed, or that it had no pipe to use. */
enum splice_fail {
	SPLICE_OK = 0,
	SPLICE_SRC_FAILED,
	SPLICE_DST_FAILED,
	SPLICE_NO_PIPE,
};

/* One wakeup moves at most this many pipefuls per direction: enough to
 * spare most epoll round trips, few enough that other connections wait
 * for no more than a few hundred kilobytes of copying. */
#define RELAY_SPLICE_ROUNDS 4

/* One direction of a tunnel: its source and destination, and its pipe. */
struct splice_way {
	int src, dst;
	int *p; /* the direction's pipe, p[0] < 0 while it holds none */
	size_t *size, *pending;
	bool *src_eof;
	uint64_t *count;
};

/*
 * splice_dir - move bytes src -> pipe -> dst, until the source has no
 * more for now, the destination takes no more, or RELAY_SPLICE_ROUNDS
 * pipefuls went through. The pipe is taken from the pool first if the
 * direction holds none, and given back when it ends up drained. When the
 * source fails, what it sent before is still passed on as far as dst
 * takes it now (a server that resets right after a complete answer loses
 * nothing).
 * Return: SPLICE_OK; SPLICE_NO_PIPE when no pipe could be had (nothing
 * moved); or which end failed with a hard error (errno says how), so the
 * audit line can say which side reset the connection.
 */
static enum splice_fail splice_dir(struct jr_relay *r,
				   const struct splice_way *w)
{
	int src_err = 0;
	ssize_t n;

	if (w->p[0] < 0) {
		if (*w->src_eof)
			return SPLICE_OK; /* drained, and nothing more comes */
		if (pipe_take(r, w->p, w->size) < 0)
			return SPLICE_NO_PIPE;
	}
	for (int round = 0; round < RELAY_SPLICE_ROUNDS; round++) {
		bool src_dry = false, dst_full = false;

		while (!*w->src_eof && *w->pending < *w->size) {
			n = splice(w->src, NULL, w->p[1], NULL,
				   *w->size - *w->pending,
				   SPLICE_F_MOVE | SPLICE_F_NONBLOCK);
			if (n > 0) {
				*w->pending += (size_t)n;
				*w->count += (uint64_t)n;
			} else if (n == 0) {
				*w->src_eof = true;
			} else if (errno == EAGAIN || errno == EINTR) {
				src_dry = true;
				break;
			} else {
				src_err = errno;
				break;
			}
		}
		while (*w->pending) {
			n = splice(w->p[0], NULL, w->dst, NULL, *w->pending,
				   SPLICE_F_MOVE | SPLICE_F_NONBLOCK);
			if (n > 0) {
				*w->pending -= (size_t)n;
			} else if (n < 0 &&
				   (errno == EAGAIN || errno == EINTR)) {
				dst_full = true;
				break;
			} else if (!src_err) {
				return SPLICE_DST_FAILED;
			} else {
				break; /* the source's failure is the news */
			}
		}
		/* Another round only if the pipe was the limit: it was full,
		 * and it went out whole. */
		if (src_err || src_dry || dst_full || *w->src_eof)
			break;
	}
	if (!*w->pending)
		pipe_give(r, w->p, *w->size, 0);
	errno = src_err;
	return src_err ? SPLICE_SRC_FAILED : SPLICE_OK;
}

/* Does the ClientHello's @sni name the host the CONNECT asked for? */
static bool sni_matches(const char *host, const char *sni)
{
	size_t hl = strlen(host);

	if (hl && host[hl - 1] == '.')
		hl--; /* the policy ignores one trailing dot; so do we */
	return strlen(sni) == hl && strncasecmp(host, sni, hl) == 0;
}

static void tunnel_refused(struct jr_relay *r, struct conn *c,
			   const char *reason)
{
	c->allowed = false;
	c->reason = reason;
	relay_conn_free(r, c); /* nothing was forwarded: close both sides */
}

/*
 * The first client bytes of a CONNECT tunnel: if they are a TLS
 * ClientHello, its server name must be the host the policy allowed (an
 * allowed CONNECT must not carry TLS for another site through the same
 * address, e.g. a CDN); nothing is forwarded before that is known, and
 * what cannot be read as a hello is refused (fail closed). Bytes that are
 * not TLS at all pass: the policy allowed the destination, and plain
 * protocols (SSH, a database) have no name to check.
 * Return: 0 to go on (decided, or waiting for more bytes), -1 if the
 * connection was closed.
 */
static int sni_check(struct jr_relay *r, struct conn *c)
{
	struct sockaddr_storage ss;
	socklen_t sl;
	char sni[JR_HOST_MAX + 1];
	size_t used;

	for (;;) {
		enum jr_tls_sni v = JR_TLS_NEED_MORE;
		ssize_t n;

		/* The parser starts over on every call; its hint says how many
		 * bytes it needs at least, so a client dribbling its hello one
		 * byte at a time costs a few parses, not one per byte. */
		if (c->in_len && c->in_len >= c->sni_need) {
			v = jr_tls_client_hello_sni((const uint8_t *)c->in,
						    c->in_len, sni, sizeof(sni),
						    &used);
			if (v == JR_TLS_NEED_MORE)
				c->sni_need = used;
		}
		switch (v) {
		case JR_TLS_NEED_MORE:
			break;
		case JR_TLS_SNI_FOUND:
			if (!sni_matches(c->host, sni)) {
				jr_debug("relay: CONNECT %s carried TLS for %s",
					 c->host, sni);
				tunnel_refused(r, c, "sni-mismatch");
				return -1;
			}
			goto pass;
		case JR_TLS_NO_SNI:
			/* Normal for an address; for a name it cannot be checked. */
			if (relay_literal_address(c->host, &ss, &sl))
				goto pass;
			tunnel_refused(r, c, "sni-missing");
			return -1;
		case JR_TLS_NOT_TLS:
			goto pass;
		case JR_TLS_MALFORMED:
		default:
			tunnel_refused(r, c, "tls-malformed");
			return -1;
		}
		if (relay_grow_in(c, JR_TLS_HELLO_MAX) < 0) {
			relay_out_of_memory(r, c);
			return -1;
		}
		if (c->in_len == c->in_cap) {
			tunnel_refused(r, c, "tls-malformed");
			return -1;
		}
		n = recv(c->cfd, c->in + c->in_len, c->in_cap - c->in_len, 0);
		if (n < 0)
			return errno == EAGAIN || errno == EINTR
				   ? 0
				   : (relay_conn_free(r, c), -1);
		if (n == 0) {
			/* EOF before the hello was complete: nothing to check,
			 * so nothing goes out. */
			tunnel_refused(r, c, "tls-incomplete");
			return -1;
		}
		c->in_len += (size_t)n;
		c->bytes_up += (uint64_t)n;
		c->t_last = jr_clock_ms();
	}
pass:
	return relay_tunnel_pass_head(r, c);
}

/*
 * relay_tunnel_pass_head - the first client bytes of a tunnel, held in
 * c->in until they were judged (sni_check(), or for a captured connection
 * c->ops->late_head()), passed: they go upstream first, and the
 * tunnel splices from now on.
 * Return: 0, or -1 when @c was closed (out of memory).
 */
int relay_tunnel_pass_head(struct jr_relay *r, struct conn *c)
{
	c->sni_pending = false;
	if (relay_queue_up(c, c->in, c->in_len) < 0) {
		relay_out_of_memory(r, c);
		return -1;
	}
	free(c->in);
	c->in = NULL;
	c->in_len = c->in_cap = 0;
	return 0;
}

/* How moving bytes failed: which side, so the audit line can say so. */
enum pump_fail {
	PUMP_OK = 0,
	PUMP_CLIENT_FAILED,   /* errno from the client socket */
	PUMP_UPSTREAM_FAILED, /* errno from the upstream socket */
	PUMP_NO_MEMORY,
};

/* Copy an absolute-form request body client -> up buffer, by the framing. */
static enum pump_fail copy_body(struct conn *c)
{
	char buf[RELAY_COPY_BUF];
	ssize_t n;
	int e;

	while (!c->c_done && c->up_off == c->up_len) {
		n = recv(c->cfd, buf, sizeof(buf), 0);
		if (n < 0)
			return errno == EAGAIN || errno == EINTR
				   ? PUMP_OK
				   : PUMP_CLIENT_FAILED;
		if (n == 0) {
			/* The client ended before its body did: nothing more
			 * is coming, let the upstream judge what it got. */
			c->c_done = true;
			break;
		}
		c->bytes_up += (uint64_t)n;
		c->up_len = c->up_off = 0;
		e = relay_feed_body(c, buf, (size_t)n);
		if (e == -ENOMEM)
			return PUMP_NO_MEMORY;
		if (e < 0) {
			errno = -e; /* malformed chunked framing */
			return PUMP_CLIENT_FAILED;
		}
		if (relay_flush_buf(c->ufd, c->up, c->up_len, &c->up_off) < 0)
			return PUMP_UPSTREAM_FAILED;
	}
	return PUMP_OK;
}

/*
 * copy_dir - a tunnel direction that could get no pipe (out of
 * descriptors) moves one buffer's worth through user space: what the
 * destination does not take at once waits in @c's up buffer (client ->
 * upstream, @up) or out buffer, which relay_pump() flushes before this
 * direction reads again, and relay_want_events() polls for. Slower than
 * splicing, but the tunnel never stalls on a pipe it cannot have.
 */
static enum pump_fail copy_dir(struct conn *c, bool up)
{
	char buf[RELAY_COPY_BUF];
	int src = up ? c->cfd : c->ufd, dst = up ? c->ufd : c->cfd;
	ssize_t n, sent;
	int e;

	n = recv(src, buf, sizeof(buf), 0);
	if (n == 0) {
		*(up ? &c->c_eof : &c->u_eof) = true;
		return PUMP_OK;
	}
	if (n < 0)
		return errno == EAGAIN || errno == EINTR ? PUMP_OK
		       : up				 ? PUMP_CLIENT_FAILED
							 : PUMP_UPSTREAM_FAILED;
	*(up ? &c->bytes_up : &c->bytes_down) += (uint64_t)n;
	sent = send(dst, buf, (size_t)n, MSG_NOSIGNAL);
	if (sent < 0) {
		if (errno != EAGAIN && errno != EINTR)
			return up ? PUMP_UPSTREAM_FAILED : PUMP_CLIENT_FAILED;
		sent = 0;
	}
	if (sent == n)
		return PUMP_OK;
	if (up) {
		c->up_len = c->up_off = 0; /* flushed: the caller checked */
		e = relay_queue_up(c, buf + sent, (size_t)(n - sent));
	} else {
		c->out_len = c->out_off = 0;
		e = relay_queue_out(c, buf + sent, (size_t)(n - sent));
	}
	return e < 0 ? PUMP_NO_MEMORY : PUMP_OK;
}

/*
 * One side of a relayed connection failed with @err: record which (a
 * reset upstream is "upstream-reset" in the audit line) and close both.
 * In a tunnel the other side gets a reset too (SO_LINGER 0), as it would
 * on a direct connection: a FIN would tell it that a cut-off stream ended
 * normally, and a tunnel has no framing of its own to show the truncation.
 * A proxied HTTP exchange is closed with a FIN: its framing shows a
 * truncated body, and an answer the server completed before resetting
 * still arrives whole.
 */
static void pump_failed(struct jr_relay *r, struct conn *c, enum pump_fail side,
			int err)
{
	static const struct linger reset = { .l_onoff = 1, .l_linger = 0 };
	bool reset_kind = err == ECONNRESET || err == EPIPE;
	int other;

	if (side == PUMP_NO_MEMORY) {
		relay_out_of_memory(r, c);
		return;
	}
	if (side == PUMP_UPSTREAM_FAILED) {
		c->reason = reset_kind ? "upstream-reset" : "upstream-error";
		other = c->cfd;
	} else {
		c->reason = reset_kind ? "client-reset" : "client-error";
		other = c->ufd;
	}
	jr_debug("relay: connection %llu: %s: %s", (unsigned long long)c->id,
		 c->reason, strerror(err));
	if (other >= 0 && c->tunnel &&
	    setsockopt(other, SOL_SOCKET, SO_LINGER, &reset, sizeof(reset)) <
		0) {
		/* then the other side sees a FIN: still no hang */
	}
	relay_conn_free(r, c);
}

/*
 * pump_way - one direction of a relayed connection, @up (client ->
 * upstream) or down: splice what the source has (copy_dir() when no pipe
 * can be had), then pass the source's EOF on as shutdown(SHUT_WR) once
 * nothing of it waits on our side: not in the pipe, not in the buffer of
 * our own bytes for that destination.
 * Return: PUMP_OK, or which side failed (errno says how).
 */
static enum pump_fail pump_way(struct jr_relay *r, struct conn *c, bool up)
{
	const struct splice_way w = {
		.src = up ? c->cfd : c->ufd,
		.dst = up ? c->ufd : c->cfd,
		.p = up ? c->pipe_cu : c->pipe_uc,
		.size = up ? &c->cu_size : &c->uc_size,
		.pending = up ? &c->cu_pending : &c->uc_pending,
		.src_eof = up ? &c->c_eof : &c->u_eof,
		.count = up ? &c->bytes_up : &c->bytes_down,
	};
	/* the destination's buffer of our own bytes, and its shutdown */
	const size_t *off = up ? &c->up_off : &c->out_off;
	const size_t *len = up ? &c->up_len : &c->out_len;
	bool *dst_shut = up ? &c->u_shut : &c->c_shut;
	enum pump_fail fail;
	enum splice_fail sf;

	sf = splice_dir(r, &w);
	if (sf == SPLICE_NO_PIPE) {
		fail = copy_dir(c, up);
		if (fail != PUMP_OK)
			return fail;
	} else if (sf != SPLICE_OK) {
		/* the source is the client when going up */
		return (sf == SPLICE_SRC_FAILED) == up ? PUMP_CLIENT_FAILED
						       : PUMP_UPSTREAM_FAILED;
	}
	if (*w.src_eof && !*w.pending && *off == *len && !*dst_shut) {
		shutdown(w.dst, SHUT_WR);
		*dst_shut = true;
	}
	return PUMP_OK;
}

void relay_pump(struct jr_relay *r, struct conn *c)
{
	bool tunnel = c->tunnel;
	uint64_t up0 = c->bytes_up, down0 = c->bytes_down;
	enum pump_fail fail = PUMP_OK;

	/* Our own bytes first, in each direction. The SNI check goes between
	 * the two: it needs our "200" out, and the hello it releases into the
	 * up buffer should leave in this same pass, not after another wakeup. */
	if (relay_flush_buf(c->cfd, c->out, c->out_len, &c->out_off) < 0) {
		fail = PUMP_CLIENT_FAILED;
		goto failed;
	}
	if (c->sni_pending && c->out_off == c->out_len &&
	    (c->late_head ? c->ops->late_head(r, c) : sni_check(r, c)) < 0)
		return;
	if (relay_flush_buf(c->ufd, c->up, c->up_len, &c->up_off) < 0) {
		fail = PUMP_UPSTREAM_FAILED;
		goto failed;
	}

	/* client -> upstream */
	if (c->up_off == c->up_len && !c->sni_pending) {
		fail = tunnel ? pump_way(r, c, true) : copy_body(c);
		if (fail != PUMP_OK)
			goto failed;
	}

	/* upstream -> client, once our own answer is out */
	if (c->out_off == c->out_len) {
		fail = pump_way(r, c, false);
		if (fail != PUMP_OK)
			goto failed;
	}
	if (c->bytes_up != up0 || c->bytes_down != down0)
		c->t_last = jr_clock_ms();

	if (tunnel && c->c_shut && c->u_shut)
		goto done; /* both sides said all they had to say */
	if (!tunnel && c->c_shut) {
		/*
		 * One request per connection: the response ends the exchange.
		 * The client may have sent more than the body (a pipelined
		 * request we will not serve); closing with it unread would
		 * reset the connection and could cut off the response's tail
		 * still in our send queue, so linger for its EOF instead.
		 */
		relay_audit_conn(r, c);
		relay_close_fd(&c->ufd);
		c->uev = UINT32_MAX;
		c->st = ST_LINGER;
		c->deadline = jr_clock_ms() + RELAY_LINGER_MS;
	}
	relay_want_events(r, c);
	return;
done:
	relay_conn_free(r, c);
	return;
failed:
	pump_failed(r, c, fail, errno);
}

/*
 * relay_upstream_error - EPOLLERR on a relayed connection's upstream: a
 * reset. Pass on what it sent before (the read that meets the error ends
 * the connection); EPOLLERR is reported whatever we asked for, so if the
 * client's side is full and the error is still pending, end it now rather
 * than wake up for it again and again.
 */
void relay_upstream_error(struct jr_relay *r, struct conn *c)
{
	uint32_t gen = c->gen;
	int soerr = 0;
	socklen_t len = sizeof(soerr);

	relay_pump(r, c);
	if (c->gen != gen || c->st != ST_RELAY)
		return;
	if (getsockopt(c->ufd, SOL_SOCKET, SO_ERROR, &soerr, &len) < 0 ||
	    !soerr)
		soerr = ECONNRESET;
	pump_failed(r, c, PUMP_UPSTREAM_FAILED, soerr);
}

/* The tunnel's part outside connections: its pool of empty pipes. */
const struct relay_module relay_tunnel_module = {
	.stop = pipes_free,
};
