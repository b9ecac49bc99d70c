// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * pool_ctl.c - a warm pool's policy socket, POOL.ctl (jailrun start POOL
 * --pool N --ask, without --control): the requests that all of its
 * sandboxes hold, listed and decided on one socket, jailrun ctl POOL.
 *
 * Theory of operation: each sandbox of such a pool holds its requests on
 * a policy socket of its own, NAME.ctl beside its NAME.sock (main.c, as
 * for any live sandbox started with --ask), and says 'A' instead of 'R'
 * when it is ready; the manager (pool.c) then serves POOL.ctl here. A
 * client sends one request line and reads one answer line, as on a
 * sandbox's socket (control_proto.h):
 *  - "pending": each sandbox's own pending list, every id N of sandbox K
 *    (its {n}) written "K.N", merged into one list;
 *  - "approve"/"deny" of "K.N": sent to sandbox K as N, its answer passed
 *    back with the id written K.N again (a sandbox's task that ended took
 *    its held requests with it: no such sandbox, an error answer);
 *  - anything else is refused: a pool's policy is its start options, and
 *    each task starts from them, so a live change has no sandbox to last in.
 * The answers of the sandboxes are the relay's own, written by one JSON
 * writer: a pending answer is taken apart only at its fixed head and tail
 * and its "id" values (jr_control_pool_ids()); anything else from a
 * sandbox is passed on or left out, never parsed further.
 *
 * The manager answers in its loop, one client at a time, every wait
 * bounded by JR_POOL_CTL_WAIT_MS (a client's line, each sandbox's
 * answer), so a stuck client or sandbox delays the pool's dispatch by
 * that much at most. Only the pool's owner (or root) is answered: the
 * socket is mode 0600 (jr_control_listen()) and each peer's uid is
 * checked, as the relay checks its own control clients.
 */
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <unistd.h>

#include "cleanup.h"
#include "clock.h"
#include "control.h"
#include "control_proto.h"
#include "json.h"
#include "liveproto.h"
#include "log.h"
#include "pool_ctl.h"

/* A sandbox's answer: at most JR_ASK_MAX held requests of a few hundred
 * bytes each (hosts are at most 255). */
#define MEMBER_ANSWER_MAX (256u * 1024)

static const char pending_head[] =
    "{\"ok\":true,\"op\":\"pending\",\"pending\":[";
static const char pending_tail[] = "]}";

void jr_pool_ctl_init(struct jr_pool_ctl *pc)
{
	pc->fd = -1;
	pc->path[0] = '\0';
}

int jr_pool_ctl_open(struct jr_pool_ctl *pc, const char *pool,
		     struct jr_err *err)
{
	int r = jr_live_control_path(geteuid(), getenv("XDG_RUNTIME_DIR"), pool,
				     pc->path, sizeof(pc->path), err);

	if (r < 0)
		return r;
	r = jr_control_listen(pc->path, err);
	if (r < 0) {
		pc->path[0] = '\0';
		return r;
	}
	pc->fd = r;
	/* Served from the pool's loop: an accept must never wait. */
	if (fcntl(pc->fd, F_SETFL, O_NONBLOCK) < 0) {
		r = jr_err_set(err, errno, "%s: fcntl: %s", pc->path,
			       strerror(errno));
		jr_pool_ctl_close(pc);
		return r;
	}
	return 0;
}

void jr_pool_ctl_close(struct jr_pool_ctl *pc)
{
	if (pc->fd >= 0)
		close(pc->fd);
	if (pc->path[0])
		jr_control_unlink(pc->path);
	jr_pool_ctl_init(pc);
}

/* Wait until @fd is readable (or writable, @out), at most until
 * @deadline (jr_clock_ms()). Return: 0, or -ETIMEDOUT / -errno. */
static int wait_fd(int fd, bool out, uint64_t deadline)
{
	struct pollfd p = { .fd = fd, .events = out ? POLLOUT : POLLIN };

	for (;;) {
		uint64_t now = jr_clock_ms();
		int r;

		if (now >= deadline)
			return -ETIMEDOUT;
		r = poll(&p, 1, (int)(deadline - now));
		if (r > 0)
			return 0;
		if (r == 0)
			return -ETIMEDOUT;
		if (errno != EINTR)
			return -errno;
	}
}

/* Read one line (its newline dropped) from non-blocking @fd into @buf
 * (@cap bytes, NUL-terminated). Return: its length, or -errno. */
static ssize_t read_line(int fd, char *buf, size_t cap, uint64_t deadline)
{
	size_t n = 0;

	for (;;) {
		ssize_t r = read(fd, buf + n, cap - 1 - n);
		char *nl;

		if (r > 0) {
			n += (size_t)r;
			buf[n] = '\0';
			nl = memchr(buf, '\n', n);
			if (nl) {
				*nl = '\0';
				return nl - buf;
			}
			if (n == cap - 1)
				return -EMSGSIZE;
			continue;
		}
		if (r == 0)
			return -ECONNRESET;
		if (errno == EINTR)
			continue;
		if (errno != EAGAIN)
			return -errno;
		r = wait_fd(fd, false, deadline);
		if (r < 0)
			return r;
	}
}

/* Write all of @s and a newline to non-blocking @fd. */
static int write_line(int fd, const char *s, uint64_t deadline)
{
	size_t len = strlen(s), off = 0;

	while (off <= len) {
		const char *p = off < len ? s + off : "\n";
		size_t want = off < len ? len - off : 1;
		ssize_t w = send(fd, p, want, MSG_NOSIGNAL);

		if (w > 0) {
			off += (size_t)w;
			continue;
		}
		if (w < 0 && errno == EINTR)
			continue;
		if (w < 0 && errno != EAGAIN)
			return -errno;
		if (wait_fd(fd, true, deadline) < 0)
			return -ETIMEDOUT;
	}
	return 0;
}

/* Send request @line to the sandbox whose policy socket is @path; its
 * answer into @ans (@cap bytes). Return: the answer's length, or -errno
 * (ENOENT, ECONNREFUSED: that sandbox holds nothing, or is gone). */
static ssize_t ask_member(const char *path, const char *line, char *ans,
			  size_t cap)
{
	struct sockaddr_un sun = { .sun_family = AF_UNIX };
	uint64_t deadline = jr_clock_ms() + JR_POOL_CTL_WAIT_MS;
	_cleanup_close_ int fd =
	    socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC | SOCK_NONBLOCK, 0);
	int r;

	if (fd < 0)
		return -errno;
	snprintf(sun.sun_path, sizeof(sun.sun_path), "%s", path);
	/* A local listener accepts or refuses at once; EAGAIN is a full
	 * backlog, for which waiting is what the deadline allows. */
	if (connect(fd, (struct sockaddr *)&sun, sizeof(sun)) < 0) {
		if (errno != EAGAIN && errno != EINPROGRESS)
			return -errno;
		if (wait_fd(fd, true, deadline) < 0)
			return -ETIMEDOUT;
	}
	r = write_line(fd, line, deadline);
	if (r < 0)
		return r;
	return read_line(fd, ans, cap, deadline);
}

/* {"ok":false,"error":@msg} into @j. */
static void json_error(struct jr_json *j, const char *msg)
{
	jr_json_object_begin(j);
	jr_json_key(j, "ok");
	jr_json_bool(j, false);
	jr_json_key(j, "error");
	jr_json_string(j, msg);
	jr_json_object_end(j);
}

/* "pending": every sandbox's list, merged, ids written K.N. Return: the
 * answer line (malloc'd), or NULL when out of memory. */
static char *merged_pending(const struct jr_pool_ctl_member *m, size_t n,
			    char *ans, char *rew)
{
	const size_t hlen = sizeof(pending_head) - 1;
	const size_t tlen = sizeof(pending_tail) - 1;
	char *text = NULL;
	size_t size = 0;
	FILE *f = open_memstream(&text, &size);
	bool first = true;

	if (!f)
		return NULL;
	fputs(pending_head, f);
	for (size_t i = 0; i < n; i++) {
		ssize_t len = ask_member(m[i].path, "{\"op\":\"pending\"}", ans,
					 MEMBER_ANSWER_MAX);
		size_t inner;
		int w;

		/* No socket (no --ask there, or gone), or an answer that is
		 * not a list (an error): that sandbox holds nothing to list. */
		if (len < 0)
			continue;
		if ((size_t)len < hlen + tlen ||
		    memcmp(ans, pending_head, hlen) != 0 ||
		    memcmp(ans + len - tlen, pending_tail, tlen) != 0) {
			jr_warn(
			    "pool: sandbox %u answered pending with '%.200s'",
			    m[i].seq, ans);
			continue;
		}
		inner = (size_t)len - hlen - tlen;
		if (!inner)
			continue;
		w = jr_control_pool_ids(ans + hlen, inner, m[i].seq, rew,
					2 * MEMBER_ANSWER_MAX);
		if (w < 0)
			continue;
		fprintf(f, "%s%s", first ? "" : ",", rew);
		first = false;
	}
	fputs(pending_tail, f);
	if (fclose(f) != 0) {
		free(text);
		return NULL;
	}
	return text;
}

/* The answer in @j, as one line (malloc'd), or NULL; @j released. */
static char *take_text(struct jr_json *j)
{
	const char *t = jr_json_finish(j);
	char *line = t ? strdup(t) : NULL;

	jr_json_release(j);
	return line;
}

/* {"ok":false,"error":@msg} as one line (malloc'd), or NULL. */
static char *error_text(const char *msg)
{
	struct jr_json j;

	jr_json_init(&j);
	json_error(&j, msg);
	return take_text(&j);
}

/* approve/deny @req (a pool's K.N) on sandbox K. Return: the answer line
 * (malloc'd), or NULL when out of memory. */
static char *decide(const struct jr_control_req *req,
		    const struct jr_pool_ctl_member *m, size_t n, char *ans,
		    char *rew)
{
	const struct jr_pool_ctl_member *k = NULL;
	_cleanup_free_ char *fwd = NULL;
	struct jr_json j;
	char id[24], msg[200];
	ssize_t len;

	if (!req->member)
		return error_text(
		    "a pool's requests are named K.N, its sandbox and the request (see \"op\":\"pending\")");
	for (size_t i = 0; i < n; i++)
		if (m[i].seq == req->member)
			k = &m[i];
	if (!k) {
		snprintf(
		    msg, sizeof(msg),
		    "no sandbox %u in this pool now (its task ended, and its held requests with it: see \"op\":\"pending\")",
		    req->member);
		return error_text(msg);
	}
	/* The sandbox's own request: the same op, its own id. */
	snprintf(id, sizeof(id), "%llu", (unsigned long long)req->id);
	jr_json_init(&j);
	jr_json_object_begin(&j);
	jr_json_key(&j, "op");
	jr_json_string(&j, jr_control_op_name(req->op));
	jr_json_key(&j, "id");
	jr_json_string(&j, id);
	if (req->always) {
		jr_json_key(&j, "always");
		jr_json_bool(&j, true);
	}
	jr_json_object_end(&j);
	fwd = take_text(&j);
	if (!fwd)
		return NULL;
	len = ask_member(k->path, fwd, ans, MEMBER_ANSWER_MAX);
	if (len < 0) {
		snprintf(msg, sizeof(msg), "sandbox %u did not answer: %s",
			 k->seq, strerror((int)-len));
		return error_text(msg);
	}
	if (jr_control_pool_ids(ans, (size_t)len, k->seq, rew,
				2 * MEMBER_ANSWER_MAX) < 0)
		return error_text("the sandbox's answer is too long");
	return strdup(rew);
}

/* The answer to request @line, as one line (malloc'd), or NULL. */
static char *answer(const char *line, size_t len,
		    const struct jr_pool_ctl_member *m, size_t n)
{
	static char ans[MEMBER_ANSWER_MAX], rew[2 * MEMBER_ANSWER_MAX];
	struct jr_control_req req;
	struct jr_err err = { 0 };

	if (jr_control_parse(line, len, &req, &err) < 0)
		return error_text(err.msg);
	if (req.op == JR_CONTROL_PENDING)
		return merged_pending(m, n, ans, rew);
	if (req.op == JR_CONTROL_APPROVE || req.op == JR_CONTROL_DENY)
		return decide(&req, m, n, ans, rew);
	return error_text(
	    "a pool's socket takes pending, approve and deny: its policy is its start options, from which each task starts");
}

/* One client: its line, our answer. */
static void serve_client(int fd, const struct jr_pool_ctl_member *m, size_t n)
{
	uint64_t deadline = jr_clock_ms() + JR_POOL_CTL_WAIT_MS;
	static char line[JR_CONTROL_LINE_MAX + 1];
	struct ucred cred;
	socklen_t clen = sizeof(cred);
	_cleanup_free_ char *text = NULL;
	ssize_t len;

	if (getsockopt(fd, SOL_SOCKET, SO_PEERCRED, &cred, &clen) < 0 ||
	    (cred.uid != geteuid() && cred.uid != 0))
		return;
	len = read_line(fd, line, sizeof(line), deadline);
	if (len < 0)
		return;
	text = answer(line, (size_t)len, m, n);
	if (text)
		write_line(fd, text, deadline);
}

void jr_pool_ctl_serve(struct jr_pool_ctl *pc,
		       const struct jr_pool_ctl_member *m, size_t n)
{
	/* A few per round: the pool's own work comes between. */
	for (int i = 0; i < 8 && pc->fd >= 0; i++) {
		int fd =
		    accept4(pc->fd, NULL, NULL, SOCK_CLOEXEC | SOCK_NONBLOCK);

		if (fd < 0)
			return;
		serve_client(fd, m, n);
		close(fd);
	}
}
