// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * relay_control.c - the live policy socket (--control PATH, --control-fd
 * N), served by the relay thread.
 *
 * Theory of operation
 *
 * The relay already decides every connection and DNS query on its one
 * thread; the control socket joins the same epoll set (REF_CONTROL_LISTEN,
 * REF_CONTROL_CLIENT), so a request is applied between two events, to the
 * relay's own copy of the policy (livepolicy.h), with no lock and no
 * decision ever seeing half a change. r->cfg.policy points at that copy
 * from the start, so the proxy, the DNS forwarder and the transparent path
 * (relay_transparent.c decides per connection, by the name behind the
 * synthetic address) all see a change from their next decision on.
 *
 * A request is one line (control_proto.h); each gets one JSON line back:
 * {"ok":true,...} or {"ok":false,"error":"..."}. A client can hurt no one
 * but itself: at most RELAY_CONTROL_CLIENTS at once (more are told so and
 * closed), at most JR_CONTROL_LINE_MAX bytes a line (a longer one is
 * answered with an error and the client closed), every socket is
 * non-blocking, and while a client's answer is unsent its further input
 * is not read, so one that never reads holds one answer of memory and
 * nothing else: the relay never waits for it.
 *
 * Who may connect: --control PATH is a socket file of mode 0600 owned by
 * the runner's uid; as defence in depth, every accepted client's
 * SO_PEERCRED uid must be that uid too (root, who passes any file mode,
 * is refused by a user's socket). --control-fd N is the caller's own
 * socket, listening or connected, and who holds it is the caller's choice:
 * no uid check there.
 *
 * Every change is one audit line ("event":"control"); the number of
 * changes goes to the --json summary ("control_changes").
 *
 * With --ask, three more ops reach the requests held for a decision
 * (relay_ask.c): "pending" lists them, "approve" and "deny" decide one by
 * its id. "approve" with "always" first adds the request's destination as
 * a live entry (counted as a change), then approves every held request it
 * allows; the decisions' audit lines are relay_ask.c's ("event":"ask").
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/epoll.h>
#include <sys/socket.h>
#include <unistd.h>

#include "clock.h"
#include "control_proto.h"
#include "json.h"
#include "livepolicy.h"
#include "log.h"
#include "relay_ask.h"
#include "relay_inspect.h"
#include "relay_loop.h"

#define RELAY_CONTROL_CLIENTS 8

struct control_client {
	int fd; /* -1: free */
	uint32_t ev;
	char in[JR_CONTROL_LINE_MAX];
	size_t in_len;
	char *out; /* the answer being sent */
	size_t out_len, out_off;
	bool closing; /* close once the answer is sent */
};

struct relay_control {
	int lfd; /* listening socket, or -1 (a connected --control-fd) */
	bool check_uid;
	uid_t owner;
	struct control_client cl[RELAY_CONTROL_CLIENTS];
	struct jr_livepolicy lp;
};

static void client_set_events(struct jr_relay *r, struct control_client *cl)
{
	struct relay_control *ctl = r->control;
	uint32_t want = cl->out ? EPOLLOUT : (cl->closing ? 0 : EPOLLIN);
	struct epoll_event ev = {
		.events = want,
		.data.u64 =
		    relay_ref(REF_CONTROL_CLIENT, (uint32_t)(cl - ctl->cl), 0),
	};

	if (cl->ev == want)
		return;
	if (epoll_ctl(r->epfd,
		      cl->ev == UINT32_MAX ? EPOLL_CTL_ADD : EPOLL_CTL_MOD,
		      cl->fd, &ev) < 0)
		jr_debug("relay: control epoll_ctl: %s", strerror(errno));
	cl->ev = want;
}

static void client_close(struct control_client *cl)
{
	relay_close_fd(&cl->fd);
	free(cl->out);
	cl->out = NULL;
	cl->out_len = cl->out_off = cl->in_len = 0;
	cl->closing = false;
	cl->ev = UINT32_MAX;
}

/* Best effort, never blocking: one error line to a client we turn away. */
static void refuse_client(int fd, const char *msg)
{
	struct jr_json j;
	const char *text;

	jr_json_init(&j);
	jr_json_object_begin(&j);
	jr_json_key(&j, "ok");
	jr_json_bool(&j, false);
	jr_json_key(&j, "error");
	jr_json_string(&j, msg);
	jr_json_object_end(&j);
	text = jr_json_finish(&j);
	if (text) {
		size_t len = strlen(text);
		char *line = malloc(len + 1);

		if (line) {
			memcpy(line, text, len);
			line[len] = '\n';
			if (send(fd, line, len + 1,
				 MSG_NOSIGNAL | MSG_DONTWAIT) < 0) {
				/* the client went; nothing to tell */
			}
			free(line);
		}
	}
	jr_json_release(&j);
	shutdown(fd, SHUT_WR);
	close(fd);
}

/* Take a client into a free slot. Return: false if there is none. */
static bool client_add(struct jr_relay *r, int fd)
{
	struct relay_control *ctl = r->control;

	for (size_t i = 0; i < RELAY_CONTROL_CLIENTS; i++) {
		struct control_client *cl = &ctl->cl[i];

		if (cl->fd >= 0)
			continue;
		cl->fd = fd;
		cl->ev = UINT32_MAX;
		client_set_events(r, cl);
		return true;
	}
	return false;
}

static void control_accept(struct jr_relay *r)
{
	struct relay_control *ctl = r->control;

	for (int i = 0; i < RELAY_ACCEPT_BATCH; i++) {
		int fd =
		    accept4(ctl->lfd, NULL, NULL, SOCK_NONBLOCK | SOCK_CLOEXEC);
		struct ucred cred;
		socklen_t len = sizeof(cred);
		char msg[160];

		if (fd < 0)
			return;
		if (ctl->check_uid) {
			if (getsockopt(fd, SOL_SOCKET, SO_PEERCRED, &cred,
				       &len) < 0) {
				refuse_client(fd, "cannot tell who you are "
						  "(SO_PEERCRED failed)");
				continue;
			}
			if (cred.uid != ctl->owner) {
				snprintf(msg, sizeof(msg),
					 "uid %u may not change this sandbox's "
					 "policy (only uid %u, its owner)",
					 (unsigned)cred.uid,
					 (unsigned)ctl->owner);
				relay_audit_event(r, "control",
						  "refused a client of uid %u",
						  (unsigned)cred.uid);
				refuse_client(fd, msg);
				continue;
			}
		}
		if (!client_add(r, fd)) {
			snprintf(
			    msg, sizeof(msg),
			    "too many control clients (at most %d at once)",
			    RELAY_CONTROL_CLIENTS);
			refuse_client(fd, msg);
		}
	}
}

/* ------------------------------------------------------------ requests */

static void json_error(struct jr_json *j, const char *msg)
{
	jr_json_key(j, "ok");
	jr_json_bool(j, false);
	jr_json_key(j, "error");
	jr_json_string(j, msg);
}

/*
 * close_removed() - end the connections that @removed allowed and the
 * policy no longer does: tunnels, connections still on their way to one
 * (resolving, connecting, a captured one being peeked at), and those
 * handed to TLS inspection (relay_inspect.c).
 * Return: how many were closed.
 */
static unsigned close_removed(struct jr_relay *r,
			      const struct jr_allow_entry *removed)
{
	struct jr_allow_entry one = *removed;
	struct jr_policy only = { .entries = &one, .n = 1, .cap = 1 };
	unsigned n = 0;

	for (uint32_t i = 0; i < r->n_fresh; i++) {
		struct conn *c = &r->conns[i];

		if (c->st == ST_FREE || c->st == ST_REPLY ||
		    c->st == ST_LINGER || !c->allowed || !c->host || !c->port ||
		    (c->kind != KIND_PROXY && c->kind != KIND_TRANSPARENT))
			continue;
		if (jr_policy_check_name(&only, c->host, c->port) !=
			JR_ALLOWED ||
		    jr_policy_check_name(r->cfg.policy, c->host, c->port) ==
			JR_ALLOWED)
			continue;
		c->reason = "policy-removed";
		relay_conn_free(r, c);
		n++;
	}
	return n + relay_inspect_cut_removed(r, &only);
}

static void count_conns(struct jr_relay *r, uint64_t *open, uint64_t *tunnels)
{
	*open = *tunnels = 0;
	for (uint32_t i = 0; i < r->n_fresh; i++) {
		const struct conn *c = &r->conns[i];

		if (c->st == ST_FREE || c->kind == KIND_DNS_TCP)
			continue;
		(*open)++;
		if (c->st == ST_RELAY)
			(*tunnels)++;
	}
}

static void answer_status(struct jr_relay *r, struct jr_json *j)
{
	struct relay_control *ctl = r->control;
	uint64_t allowed = 0, denied = 0, open, tunnels, n_clients = 0;

	if (r->cfg.audit) {
		pthread_mutex_lock(&r->cfg.audit->lock);
		allowed = r->cfg.audit->allowed;
		denied = r->cfg.audit->denied;
		pthread_mutex_unlock(&r->cfg.audit->lock);
	}
	count_conns(r, &open, &tunnels);
	for (size_t i = 0; i < RELAY_CONTROL_CLIENTS; i++)
		n_clients += ctl->cl[i].fd >= 0;
	jr_json_key(j, "entries");
	jr_json_uint(j, ctl->lp.p.n);
	jr_json_key(j, "live_entries");
	jr_json_uint(j, jr_livepolicy_n_live(&ctl->lp));
	jr_json_key(j, "changes");
	jr_json_uint(j, ctl->lp.changes);
	jr_json_key(j, "allowed");
	jr_json_uint(j, allowed);
	jr_json_key(j, "denied");
	jr_json_uint(j, denied);
	jr_json_key(j, "open_connections");
	jr_json_uint(j, open);
	jr_json_key(j, "tunnels");
	jr_json_uint(j, tunnels);
	jr_json_key(j, "control_clients");
	jr_json_uint(j, n_clients);
}

static void answer_list(struct jr_relay *r, struct jr_json *j)
{
	struct relay_control *ctl = r->control;

	jr_json_key(j, "entries");
	jr_json_array_begin(j);
	for (size_t i = 0; i < ctl->lp.p.n; i++) {
		jr_json_object_begin(j);
		jr_json_key(j, "entry");
		jr_json_string(j, ctl->lp.p.entries[i].text);
		jr_json_key(j, "live");
		jr_json_bool(j, ctl->lp.live[i]);
		jr_json_object_end(j);
	}
	jr_json_array_end(j);
}

/* --ask, "pending": the held requests in the order they came. */
static void answer_pending(struct jr_relay *r, struct jr_json *j)
{
	const struct jr_asktable *t = relay_ask_table(r);
	const struct jr_ask_entry *e;
	uint64_t now = jr_clock_ms(), after = 0;
	char id[24];

	jr_json_key(j, "pending");
	jr_json_array_begin(j);
	while (t && (e = jr_ask_next(t, after))) {
		after = e->id;
		snprintf(id, sizeof(id), "%llu", (unsigned long long)e->id);
		jr_json_object_begin(j);
		jr_json_key(j, "id");
		jr_json_string(j, id);
		jr_json_key(j, "host");
		jr_json_string(j, e->host);
		jr_json_key(j, "port");
		if (e->via == JR_ASK_VIA_DNS)
			jr_json_null(j);
		else
			jr_json_uint(j, e->port);
		jr_json_key(j, "via");
		jr_json_string(j, jr_ask_via_name(e->via));
		jr_json_key(j, "age_ms");
		jr_json_uint(j, now - e->t_start);
		jr_json_object_end(j);
	}
	jr_json_array_end(j);
}

/*
 * ask_decide() - --ask, "approve" or "deny" request @req->id. With
 * "always", the request's destination becomes a live entry first (a
 * connection's host:port; a lookup's name, every port: a lookup has
 * none), and every other held request it allows is approved with it.
 * @entry: out, the entry added ("" for none)
 * @also: out, how many other requests that entry approved
 * Return: 0, or -errno with @err set (nothing decided).
 */
static int ask_decide(struct jr_relay *r, const struct jr_control_req *req,
		      char *entry, size_t entry_len, unsigned *also,
		      struct jr_err *err)
{
	const struct jr_asktable *t = relay_ask_table(r);
	const struct jr_ask_entry *e = t ? jr_ask_find(t, req->id) : NULL;
	char note[JR_ASK_HOST_MAX + 48] = "";
	int n;

	entry[0] = '\0';
	*also = 0;
	if (req->member)
		return jr_err_set(
		    err, EINVAL,
		    "the id %u.%llu names a request of a pool's sandbox: decide it on the pool's socket (jailrun ctl POOL)",
		    req->member, (unsigned long long)req->id);
	if (!t)
		return jr_err_set(err, EINVAL,
				  "this run holds no requests: it was started "
				  "without --ask");
	if (!e)
		return jr_err_set(err, ENOENT,
				  "no held request %llu (decided, timed out or "
				  "never made: see \"op\":\"pending\")",
				  (unsigned long long)req->id);
	if (req->op == JR_CONTROL_APPROVE && req->always) {
		if (e->via == JR_ASK_VIA_DNS)
			snprintf(entry, entry_len, "%s", e->host);
		else
			snprintf(entry, entry_len,
				 strchr(e->host, ':') ? "[%s]:%u" : "%s:%u",
				 e->host, (unsigned)e->port);
		n = jr_livepolicy_allow(&r->control->lp, entry, err);
		if (n < 0) {
			entry[0] = '\0';
			return n;
		}
		snprintf(note, sizeof(note), "always: entry '%s' %s", entry,
			 n > 0 ? "added" : "already there");
	}
	relay_ask_decide(r, req->id,
			 req->op == JR_CONTROL_APPROVE ? RELAY_ASK_APPROVED
						       : RELAY_ASK_DENIED,
			 note[0] ? note : NULL);
	if (entry[0])
		*also = relay_ask_release_allowed(r, req->id);
	return 0;
}

/*
 * handle_request() - apply one request line and write its answer's
 * members into @j (an object already begun).
 */
static void handle_request(struct jr_relay *r, const char *line, size_t len,
			   struct jr_json *j)
{
	struct relay_control *ctl = r->control;
	struct jr_control_req req;
	struct jr_allow_entry removed;
	struct jr_err err = { 0 };
	unsigned closed = 0, also = 0;
	char entry[JR_ASK_HOST_MAX + 16], idtext[24];
	size_t dropped;
	int n;

	if (jr_control_parse(line, len, &req, &err) < 0) {
		json_error(j, err.msg);
		return;
	}
	switch (req.op) {
	case JR_CONTROL_ALLOW:
		n = jr_livepolicy_allow(&ctl->lp, req.entry, &err);
		if (n < 0) {
			json_error(j, err.msg);
			return;
		}
		if (n > 0)
			relay_audit_event(r, "control", "allow '%s': added",
					  req.entry);
		break;
	case JR_CONTROL_REMOVE:
		n = jr_livepolicy_remove(&ctl->lp, req.entry, &removed, &err);
		if (n < 0) {
			json_error(j, err.msg);
			return;
		}
		if (req.close)
			closed = close_removed(r, &removed);
		relay_audit_event(
		    r, "control",
		    "remove '%s': %d entr%s removed, %u connection%s closed",
		    req.entry, n, n == 1 ? "y" : "ies", closed,
		    closed == 1 ? "" : "s");
		break;
	case JR_CONTROL_APPROVE:
	case JR_CONTROL_DENY:
		if (ask_decide(r, &req, entry, sizeof(entry), &also, &err) <
		    0) {
			json_error(j, err.msg);
			return;
		}
		n = 0;
		break;
	case JR_CONTROL_PENDING:
		if (!relay_ask_table(r)) {
			json_error(j, "this run holds no requests: it was "
				      "started without --ask");
			return;
		}
		n = 0;
		break;
	case JR_CONTROL_LOCK:
		dropped = jr_livepolicy_lock(&ctl->lp);
		relay_audit_event(r, "control", "lock: %zu live entr%s dropped",
				  dropped, dropped == 1 ? "y" : "ies");
		n = (int)dropped;
		break;
	default:
		n = 0;
		break;
	}
	jr_json_key(j, "ok");
	jr_json_bool(j, true);
	jr_json_key(j, "op");
	jr_json_string(j, jr_control_op_name(req.op));
	switch (req.op) {
	case JR_CONTROL_ALLOW:
		jr_json_key(j, "entry");
		jr_json_string(j, req.entry);
		jr_json_key(j, "changed");
		jr_json_bool(j, n > 0);
		break;
	case JR_CONTROL_REMOVE:
		jr_json_key(j, "entry");
		jr_json_string(j, req.entry);
		jr_json_key(j, "removed");
		jr_json_uint(j, (uint64_t)n);
		jr_json_key(j, "closed");
		jr_json_uint(j, closed);
		break;
	case JR_CONTROL_LOCK:
		jr_json_key(j, "dropped");
		jr_json_uint(j, (uint64_t)n);
		break;
	case JR_CONTROL_STATUS:
		answer_status(r, j);
		break;
	case JR_CONTROL_LIST:
		answer_list(r, j);
		break;
	case JR_CONTROL_PENDING:
		answer_pending(r, j);
		break;
	case JR_CONTROL_APPROVE:
	case JR_CONTROL_DENY:
		snprintf(idtext, sizeof(idtext), "%llu",
			 (unsigned long long)req.id);
		jr_json_key(j, "id");
		jr_json_string(j, idtext);
		if (entry[0]) {
			jr_json_key(j, "entry");
			jr_json_string(j, entry);
			jr_json_key(j, "also_approved");
			jr_json_uint(j, also);
		}
		break;
	}
}

/* Answer @line (or, with @line NULL, @error) into cl->out. */
static void client_answer(struct jr_relay *r, struct control_client *cl,
			  const char *line, size_t len, const char *error)
{
	struct jr_json j;
	const char *text;

	jr_json_init(&j);
	jr_json_object_begin(&j);
	if (line)
		handle_request(r, line, len, &j);
	else
		json_error(&j, error);
	jr_json_object_end(&j);
	text = jr_json_finish(&j);
	if (!text) {
		jr_json_release(&j);
		text = "{\"ok\":false,\"error\":\"out of memory\"}";
		jr_json_init(&j);
	}
	cl->out_len = strlen(text) + 1;
	cl->out = malloc(cl->out_len);
	if (cl->out) {
		memcpy(cl->out, text, cl->out_len - 1);
		cl->out[cl->out_len - 1] = '\n';
	} else {
		cl->closing = true;
	}
	cl->out_off = 0;
	jr_json_release(&j);
}

/* Answer the complete lines buffered, one at a time (each answer is sent
 * before the next line is taken). */
static void client_lines(struct jr_relay *r, struct control_client *cl)
{
	while (!cl->out && !cl->closing) {
		char *nl = memchr(cl->in, '\n', cl->in_len);
		size_t used;

		if (!nl) {
			if (cl->in_len == sizeof(cl->in)) {
				client_answer(
				    r, cl, NULL, 0,
				    "a request line longer than 4096 bytes");
				cl->closing = true;
			}
			break;
		}
		used = (size_t)(nl - cl->in) + 1;
		client_answer(r, cl, cl->in, used - 1, NULL);
		memmove(cl->in, cl->in + used, cl->in_len - used);
		cl->in_len -= used;
	}
}

static void client_flush(struct jr_relay *r, struct control_client *cl)
{
	if (relay_flush_buf(cl->fd, cl->out, cl->out_len, &cl->out_off) < 0) {
		client_close(cl);
		return;
	}
	if (cl->out_off < cl->out_len)
		return;
	free(cl->out);
	cl->out = NULL;
	cl->out_len = cl->out_off = 0;
	if (cl->closing) {
		client_close(cl);
		return;
	}
	client_lines(r, cl);
}

static void control_client_event(struct jr_relay *r, uint32_t slot,
				 uint32_t events)
{
	struct control_client *cl;
	ssize_t n;

	if (!r->control || slot >= RELAY_CONTROL_CLIENTS)
		return;
	cl = &r->control->cl[slot];
	if (cl->fd < 0)
		return;
	if (cl->out) {
		if (events & (EPOLLOUT | EPOLLERR | EPOLLHUP))
			client_flush(r, cl);
	} else if (events & (EPOLLIN | EPOLLERR | EPOLLHUP)) {
		n = recv(cl->fd, cl->in + cl->in_len,
			 sizeof(cl->in) - cl->in_len, 0);
		if (n == 0 || (n < 0 && errno != EAGAIN && errno != EINTR)) {
			client_close(cl);
			return;
		}
		if (n > 0) {
			cl->in_len += (size_t)n;
			client_lines(r, cl);
		}
	}
	if (cl->fd >= 0 && cl->out && cl->out_off == 0)
		client_flush(r, cl); /* most answers go out at once */
	if (cl->fd >= 0 && cl->closing && !cl->out)
		client_close(cl); /* no answer could be made: out of memory */
	else if (cl->fd >= 0)
		client_set_events(r, cl);
}

/* ------------------------------------------------------------ setup */

/*
 * take_ask_client() - --ask tty: the runner's prompt (askprompt.c) is one
 * more client, on its socketpair, with or without --control.
 * Return: 0 or -errno with @err set.
 */
static int take_ask_client(struct jr_relay *r, struct jr_err *err)
{
	int fd = r->cfg.ask_client;

	if (fd < 0)
		return 0;
	r->cfg.ask_client = -1; /* ours now, whatever happens */
	if (fcntl(fd, F_SETFL, fcntl(fd, F_GETFL) | O_NONBLOCK) < 0 ||
	    !client_add(r, fd)) {
		close(fd);
		return jr_err_set(err, EIO,
				  "cannot serve the --ask tty prompt");
	}
	return 0;
}

/* control_start - with --control: take the socket and watch it; with
 * --ask tty: the prompt's client. */
static int control_start(struct jr_relay *r, struct jr_err *err)
{
	struct relay_control *ctl;
	int fd = r->cfg.control_fd, listening = 0;
	socklen_t len = sizeof(listening);
	struct epoll_event ev = { .events = EPOLLIN };

	if (!r->cfg.control && r->cfg.ask_client < 0)
		return 0;
	r->cfg.control_fd = -1; /* ours now, whatever happens */
	ctl = calloc(1, sizeof(*ctl));
	if (!ctl) {
		if (fd >= 0)
			close(fd);
		return jr_err_set(err, ENOMEM, "out of memory");
	}
	r->control = ctl;
	ctl->lfd = -1;
	for (size_t i = 0; i < RELAY_CONTROL_CLIENTS; i++)
		ctl->cl[i].fd = -1;
	ctl->check_uid = r->cfg.control_check_uid;
	ctl->owner = geteuid();
	if (jr_livepolicy_init(&ctl->lp, r->cfg.policy) < 0) {
		if (fd >= 0)
			close(fd);
		return jr_err_set(err, ENOMEM, "out of memory");
	}
	/* From here every decision reads the changeable copy. */
	r->cfg.policy = &ctl->lp.p;
	if (take_ask_client(r, err) < 0) {
		if (fd >= 0)
			close(fd);
		return -EIO;
	}
	if (fd < 0)
		return 0; /* --ask tty alone */

	if (getsockopt(fd, SOL_SOCKET, SO_ACCEPTCONN, &listening, &len) < 0) {
		int e = errno;

		close(fd);
		return jr_err_set(err, e, "the control socket: %s",
				  strerror(e));
	}
	if (fcntl(fd, F_SETFL, fcntl(fd, F_GETFL) | O_NONBLOCK) < 0) {
		int e = errno;

		close(fd);
		return jr_err_set(err, e, "the control socket: %s",
				  strerror(e));
	}
	if (listening) {
		ctl->lfd = fd;
		ev.data.u64 = relay_ref(REF_CONTROL_LISTEN, 0, 0);
		if (epoll_ctl(r->epfd, EPOLL_CTL_ADD, fd, &ev) < 0)
			return jr_err_set(err, errno,
					  "cannot watch the control socket: %s",
					  strerror(errno));
		return 0;
	}
	if (!client_add(r, fd)) {
		close(fd);
		return jr_err_set(err, EIO, "cannot watch the control socket");
	}
	return 0;
}

static void control_free(struct jr_relay *r)
{
	struct relay_control *ctl = r->control;

	relay_close_fd(&r->cfg.control_fd);
	relay_close_fd(&r->cfg.ask_client);
	if (!ctl)
		return;
	for (size_t i = 0; i < RELAY_CONTROL_CLIENTS; i++)
		client_close(&ctl->cl[i]);
	relay_close_fd(&ctl->lfd);
	if (r->cfg.audit)
		r->cfg.audit->control_changes = ctl->lp.changes;
	jr_livepolicy_free(&ctl->lp);
	free(ctl);
	r->control = NULL;
}

/* REF_CONTROL_LISTEN: clients to accept; REF_CONTROL_CLIENT: a client. */
static void control_event(struct jr_relay *r, union relay_ref ref,
			  uint32_t events)
{
	if (ref.type == REF_CONTROL_LISTEN)
		control_accept(r);
	else
		control_client_event(r, ref.slot, events);
}

/* The live policy socket: no connection of the table is its. */
const struct relay_module relay_control_module = {
	.start = control_start,
	.stop = control_free,
	.event = control_event,
};
