// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * unixguard_behalf.c - the executor: runs the guard's calls on the
 * command's behalf with exactly the command's rights.
 *
 * Theory of operation. The guard (unixguard.c) never lets the kernel
 * re-read a trapped call (no SECCOMP_USER_NOTIF_FLAG_CONTINUE: a second
 * thread of the command could swap the fd or the address in between), so
 * it runs each allowed connect and send itself, on the task's own socket
 * and with its copies of the address and bytes. Whoever makes that call is
 * who the kernel checks: capabilities for rtnetlink (a netlink send with
 * an explicit address is checked against the sender alone,
 * NETLINK_SKB_DST in net/netlink/af_netlink.c), SO_MARK and friends, the
 * fsuid for a unix socket's write permission, the peer credentials a
 * daemon reads. The runner is the wrong caller for all of them: it owns
 * the sandbox's user namespace, and the owner of a user namespace holds
 * every capability in it whatever its capability sets say
 * (security/commoncap.c, cap_capable()), so even a runner thread that
 * dropped its capabilities could still add addresses to the sandbox's
 * links or move them between sandboxes; and a root runner connects to a
 * 0600 socket of root's as root. Issue 21 found both.
 *
 * So the calls are run by this process, forked by the guard's thread
 * before the command starts: it enters the sandbox's user namespace
 * (setns(2): a single-threaded process not sharing its fs_struct may),
 * switches to the command's uid and gid there and drops every capability,
 * the bounding set, the ambient set, with the securebits locked and
 * no_new_privs (privs.c, the very code the command's pre-exec child runs),
 * then makes itself undumpable. It stays in the runner's other namespaces:
 * the calls act on the task's sockets, which carry their own network
 * namespace, and the host's PID namespace keeps it out of the command's
 * sight and signals. For the kernel it is the command: same ids, same
 * groups, no capability, in the same user namespace.
 *
 * Plumbing. One SOCK_SEQPACKET pair per caller slot (the guard's thread,
 * and each of its send workers) carries a request, the task's socket and
 * the pinned inode (SCM_RIGHTS), then, when the send passes descriptors,
 * a second message with those; the answer comes back on the same pair,
 * tagged with the request's sequence number so that an answer to a call
 * abandoned by an interrupted caller is never taken for the next one.
 * The bytes (up to JR_UG_MAX_SEND) and control data travel in a shared
 * anonymous mapping, one slot per pair, made before the fork: the guard
 * copies them from the task straight into the slot (process_vm_readv),
 * and the executor sends from there. MSG_ZEROCOPY sends go from a private
 * copy, since the kernel keeps reading those pages after sendmsg returns.
 *
 * The executor is the child of a multi-threaded process: after fork(2) it
 * uses only system calls and code of its own that allocates nothing.
 * PR_SET_PDEATHSIG ends it with the guard's thread; jr_behalf_stop()
 * kills and reaps it.
 */
#include <errno.h>
#include <poll.h>
#include <sched.h>
#include <signal.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <sys/socket.h>
#include <sys/syscall.h>
#include <sys/un.h>
#include <sys/wait.h>
#include <unistd.h>

#include "cleanup.h"
#include "io.h"
#include "privs.h"
#include "unixguard_behalf.h"
#include "unixguard_parse.h"

#define SLOT_SIZE (JR_UG_MAX_SEND + JR_UG_MAX_CONTROL)

struct jr_behalf {
	pid_t pid;
	int pidfd;
	char *arena;
	size_t n_slots;
	int *chan; /* the guard's end of each slot's pair */
	uint64_t *seq;
};

/* What goes over a pair: the request (with descriptors), the answer. */
struct wire_req {
	uint64_t seq;
	struct jr_behalf_req rq;
};

/* An answer's ret for a request the executor could not read. */
#define BAD_REQUEST INT64_MIN

struct wire_resp {
	uint64_t seq;
	int64_t ret;
	char msg[200]; /* the start-up answer's reason */
};

char *jr_behalf_bytes(struct jr_behalf *b, size_t slot)
{
	return b->arena + slot * SLOT_SIZE;
}

char *jr_behalf_control(struct jr_behalf *b, size_t slot)
{
	return b->arena + slot * SLOT_SIZE + JR_UG_MAX_SEND;
}

/* ------------------------------------------------------------------ */
/* The executor (child side): system calls only                        */

static void put_uint(char *dst, unsigned v)
{
	char tmp[12];
	size_t n = 0;

	do {
		tmp[n++] = (char)('0' + v % 10);
		v /= 10;
	} while (v);
	while (n)
		*dst++ = tmp[--n];
	*dst = '\0';
}

/* Receive one message of @len bytes at @buf with up to @max_fds
 * descriptors into @fds. Return: bytes, 0 at EOF, -errno. */
static ssize_t recv_fds(int ch, void *buf, size_t len, int *fds, size_t max_fds,
			size_t *n_fds)
{
	union {
		char buf[CMSG_SPACE(sizeof(int) * (JR_UG_MAX_FDS + 2))];
		struct cmsghdr align;
	} u;
	struct iovec v = { .iov_base = buf, .iov_len = len };
	struct msghdr m = { .msg_iov = &v,
			    .msg_iovlen = 1,
			    .msg_control = u.buf,
			    .msg_controllen =
				CMSG_SPACE(sizeof(int) * max_fds) };
	struct jr_ug_cmsg c;
	size_t pos = 0;
	ssize_t n;

	*n_fds = 0;
	do {
		n = recvmsg(ch, &m, MSG_CMSG_CLOEXEC);
	} while (n < 0 && errno == EINTR);
	if (n < 0)
		return -errno;
	while (jr_ug_cmsg_next(m.msg_control, m.msg_controllen, &pos, &c) ==
	       1) {
		if (c.level != SOL_SOCKET || c.type != SCM_RIGHTS)
			continue;
		for (size_t i = 0; i < c.data_len / sizeof(int); i++) {
			int fd;

			memcpy(&fd,
			       (char *)m.msg_control + c.data_off +
				   i * sizeof(int),
			       sizeof(fd));
			if (*n_fds < max_fds)
				fds[(*n_fds)++] = fd;
			else
				close(fd);
		}
	}
	if (m.msg_flags & (MSG_TRUNC | MSG_CTRUNC))
		return -EPROTO;
	return n;
}

/* Run one request; its descriptors: @fds[0] the socket, then the pinned
 * inode if any, then the rights. Return: the result or -errno. */
static int64_t run(const struct jr_behalf_req *rq, char *slot, int *fds,
		   size_t n_fds)
{
	union {
		struct sockaddr_storage ss;
		struct sockaddr_un un;
	} to;
	socklen_t tolen = 0;
	size_t first = 1 + (rq->pinned ? 1 : 0);
	int sfd = fds[0];

	if (n_fds != first + rq->n_rights || rq->addrlen > sizeof(to) ||
	    rq->off > JR_UG_MAX_SEND || rq->len > JR_UG_MAX_SEND - rq->off ||
	    rq->control_off > JR_UG_MAX_CONTROL ||
	    rq->controllen > JR_UG_MAX_CONTROL - rq->control_off)
		return BAD_REQUEST;
	memset(&to, 0, sizeof(to));
	if (rq->pinned) {
		/* The inode the guard checked, by its descriptor here: a
		 * path swapped meanwhile changes nothing. */
		static const char pfx[] = "/proc/self/fd/";

		to.un.sun_family = AF_UNIX;
		memcpy(to.un.sun_path, pfx, sizeof(pfx) - 1);
		put_uint(to.un.sun_path + sizeof(pfx) - 1, (unsigned)fds[1]);
		tolen = (socklen_t)(offsetof(struct sockaddr_un, sun_path) +
				    strlen(to.un.sun_path) + 1);
	} else if (rq->addrlen) {
		memcpy(&to, &rq->addr, rq->addrlen);
		tolen = rq->addrlen;
	}
	if (rq->op == JR_BEHALF_CONNECT)
		return connect(sfd, tolen ? (struct sockaddr *)&to : NULL,
			       tolen) < 0
			   ? -errno
			   : 0;
	if (rq->op != JR_BEHALF_SEND)
		return BAD_REQUEST;

	char control[JR_UG_MAX_CONTROL];
	struct iovec v = { .iov_base = slot + rq->off, .iov_len = rq->len };
	struct msghdr m = { .msg_name = tolen ? &to : NULL,
			    .msg_namelen = tolen,
			    .msg_iov = &v,
			    .msg_iovlen = 1 };
	void *zc = NULL;
	ssize_t n;

	if (rq->controllen) {
		memcpy(control, slot + JR_UG_MAX_SEND + rq->control_off,
		       rq->controllen);
		if (jr_ug_rights_rewrite(control, rq->controllen, fds + first,
					 rq->n_rights) < 0)
			return -EINVAL;
		m.msg_control = control;
		m.msg_controllen = rq->controllen;
	}
	if ((rq->flags & MSG_ZEROCOPY) && rq->len) {
		/* Pages the kernel may still read after we return: a
		 * private copy, left to the kernel's references by munmap. */
		zc = mmap(NULL, rq->len, PROT_READ | PROT_WRITE,
			  MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
		if (zc == MAP_FAILED)
			return -ENOMEM;
		memcpy(zc, v.iov_base, rq->len);
		v.iov_base = zc;
	}
	n = sendmsg(sfd, &m, rq->flags | MSG_NOSIGNAL);
	n = n < 0 ? -errno : n;
	if (zc)
		munmap(zc, rq->len);
	return n;
}

/* Serve one request on pair @ch. Return: false at EOF (the guard left). */
static bool serve_one(int ch, char *slot)
{
	struct wire_req w;
	struct wire_resp resp;
	int fds[JR_UG_MAX_FDS + 2];
	size_t n_fds = 0, more = 0;
	ssize_t n = recv_fds(ch, &w, sizeof(w), fds, 2, &n_fds);

	if (n == 0)
		return false;
	memset(&resp, 0, sizeof(resp));
	if (n != (ssize_t)sizeof(w) || n_fds == 0) {
		resp.ret = BAD_REQUEST;
	} else {
		resp.seq = w.seq;
		if (w.rq.n_rights) {
			char one;

			n = recv_fds(ch, &one, 1, fds + n_fds, JR_UG_MAX_FDS,
				     &more);
			if (n == 0)
				return false;
			n_fds += more;
		}
		resp.ret = n < 0 ? BAD_REQUEST : run(&w.rq, slot, fds, n_fds);
	}
	for (size_t i = 0; i < n_fds; i++)
		close(fds[i]);
	while (send(ch, &resp, sizeof(resp), MSG_NOSIGNAL) < 0 &&
	       errno == EINTR)
		;
	return true;
}

static _Noreturn void serve_all(const int *ch, size_t n, char *arena)
{
	struct pollfd p[n];

	for (;;) {
		for (size_t i = 0; i < n; i++)
			p[i] = (struct pollfd){ .fd = ch[i], .events = POLLIN };
		if (poll(p, n, -1) < 0) {
			if (errno == EINTR)
				continue;
			_exit(1);
		}
		for (size_t i = 0; i < n; i++) {
			if (p[i].revents & POLLIN) {
				if (!serve_one(ch[i], arena + i * SLOT_SIZE))
					_exit(0);
			} else if (p[i].revents &
				   (POLLHUP | POLLERR | POLLNVAL)) {
				_exit(0); /* the guard is gone */
			}
		}
	}
}

static _Noreturn void child(const struct jr_behalf_config *cfg, int *ends,
			    char *arena, pid_t parent)
{
	struct wire_resp resp;
	struct jr_err err = { 0 };
	int keep[cfg->n_slots + 1];
	int r;

	memset(&resp, 0, sizeof(resp));
	/* Named apart from the runner and init in ps(1) and for tests. */
	prctl(PR_SET_NAME, "jr-behalf", 0, 0, 0);
	memcpy(keep, ends, cfg->n_slots * sizeof(int));
	keep[cfg->n_slots] = cfg->userns;
	r = jr_close_all_but(keep, cfg->n_slots + 1);
	if (r < 0) {
		jr_err_set(&err, -r, "cannot close the runner's descriptors");
	} else if (setns(cfg->userns, CLONE_NEWUSER) < 0) {
		r = jr_err_set(&err, errno,
			       "cannot enter the sandbox's user namespace: %s",
			       strerror(errno));
	} else {
		close(cfg->userns);
		r = jr_privs_drop(cfg->ids, &err);
	}
	/* Both are reset by the id switch: set them after it. */
	if (r == 0 && (prctl(PR_SET_DUMPABLE, 0, 0, 0, 0) < 0 ||
		       prctl(PR_SET_PDEATHSIG, SIGKILL, 0, 0, 0) < 0))
		r = jr_err_set(&err, errno, "prctl: %s", strerror(errno));
	if (r == 0 && getppid() != parent)
		_exit(1); /* the runner is gone already */
	resp.ret = r < 0 ? r : 0;
	if (r < 0) {
		/* Cut to what the answer holds. */
		memcpy(resp.msg, err.msg, sizeof(resp.msg) - 1);
		resp.msg[sizeof(resp.msg) - 1] = '\0';
	}
	if (send(ends[0], &resp, sizeof(resp), MSG_NOSIGNAL) < 0 || r < 0)
		_exit(1);
	serve_all(ends, cfg->n_slots, arena);
}

/* ------------------------------------------------------------------ */
/* The guard's side                                                    */

int jr_behalf_spawn(const struct jr_behalf_config *cfg, struct jr_behalf **out,
		    struct jr_err *err)
{
	_cleanup_free_ int *ends = NULL;
	struct jr_behalf *b;
	struct wire_resp resp;
	pid_t parent = getpid(), pid;
	ssize_t n;
	int r;

	*out = NULL;
	b = calloc(1, sizeof(*b));
	ends = calloc(cfg->n_slots, sizeof(*ends));
	if (!b || !ends) {
		free(b);
		return jr_err_set(err, ENOMEM, "out of memory");
	}
	b->pid = -1;
	b->pidfd = -1;
	b->n_slots = cfg->n_slots;
	b->chan = calloc(cfg->n_slots, sizeof(*b->chan));
	b->seq = calloc(cfg->n_slots, sizeof(*b->seq));
	if (!b->chan || !b->seq) {
		jr_behalf_stop(b);
		return jr_err_set(err, ENOMEM, "out of memory");
	}
	for (size_t i = 0; i < cfg->n_slots; i++)
		b->chan[i] = ends[i] = -1;
	b->arena = mmap(NULL, cfg->n_slots * SLOT_SIZE, PROT_READ | PROT_WRITE,
			MAP_SHARED | MAP_ANONYMOUS, -1, 0);
	if (b->arena == MAP_FAILED) {
		b->arena = NULL;
		r = jr_err_set(err, errno, "unix socket guard: mmap: %s",
			       strerror(errno));
		goto fail;
	}
	for (size_t i = 0; i < cfg->n_slots; i++) {
		int sp[2];

		if (socketpair(AF_UNIX, SOCK_SEQPACKET | SOCK_CLOEXEC, 0, sp) <
		    0) {
			r = jr_err_set(err, errno,
				       "unix socket guard: socketpair: %s",
				       strerror(errno));
			goto fail;
		}
		b->chan[i] = sp[0];
		ends[i] = sp[1];
	}
	pid = fork();
	if (pid < 0) {
		r = jr_err_set(
		    err, errno,
		    "unix socket guard: cannot fork its executor: %s",
		    strerror(errno));
		goto fail;
	}
	if (pid == 0)
		child(cfg, ends, b->arena, parent);
	b->pid = pid;
	b->pidfd = (int)syscall(SYS_pidfd_open, pid, 0);
	for (size_t i = 0; i < cfg->n_slots; i++) {
		close(ends[i]);
		ends[i] = -1;
	}
	do {
		n = recv(b->chan[0], &resp, sizeof(resp), 0);
	} while (n < 0 && errno == EINTR);
	if (n != (ssize_t)sizeof(resp)) {
		r = jr_err_set(err, EIO,
			       "unix socket guard: its executor died starting");
		goto fail;
	}
	if (resp.ret < 0) {
		resp.msg[sizeof(resp.msg) - 1] = '\0';
		r = jr_err_set(
		    err, (int)-resp.ret,
		    "unix socket guard: cannot give its executor the command's rights: %s",
		    resp.msg);
		goto fail;
	}
	*out = b;
	return 0;
fail:
	for (size_t i = 0; i < cfg->n_slots; i++)
		if (ends[i] >= 0)
			close(ends[i]);
	jr_behalf_stop(b);
	return r;
}

ssize_t jr_behalf_call(struct jr_behalf *b, size_t slot,
		       const struct jr_behalf_req *rq, int sfd, int pinned,
		       const int *rights, size_t n_rights)
{
	union {
		char buf[CMSG_SPACE(sizeof(int) * JR_UG_MAX_FDS)];
		struct cmsghdr align;
	} u;
	struct wire_req w = { .seq = ++b->seq[slot], .rq = *rq };
	struct wire_resp resp;
	struct iovec v = { .iov_base = &w, .iov_len = sizeof(w) };
	struct msghdr m = { .msg_iov = &v, .msg_iovlen = 1 };
	struct cmsghdr *c;
	int fds[2] = { sfd, pinned };
	size_t nf = rq->pinned ? 2 : 1;
	char one = 0;
	ssize_t n;

	if (n_rights > JR_UG_MAX_FDS)
		return -ETOOMANYREFS;
	w.rq.n_rights = (uint32_t)n_rights;
	memset(&u, 0, sizeof(u));
	m.msg_control = u.buf;
	m.msg_controllen = CMSG_SPACE(sizeof(int) * nf);
	c = CMSG_FIRSTHDR(&m);
	c->cmsg_level = SOL_SOCKET;
	c->cmsg_type = SCM_RIGHTS;
	c->cmsg_len = CMSG_LEN(sizeof(int) * nf);
	memcpy(CMSG_DATA(c), fds, sizeof(int) * nf);
	n = sendmsg(b->chan[slot], &m, MSG_NOSIGNAL);
	if (n < 0)
		return errno == EINTR ? -EINTR : -ECHILD;
	if (n_rights) {
		v.iov_base = &one;
		v.iov_len = 1;
		m.msg_controllen = CMSG_SPACE(sizeof(int) * n_rights);
		c = CMSG_FIRSTHDR(&m);
		c->cmsg_level = SOL_SOCKET;
		c->cmsg_type = SCM_RIGHTS;
		c->cmsg_len = CMSG_LEN(sizeof(int) * n_rights);
		memcpy(CMSG_DATA(c), rights, sizeof(int) * n_rights);
		if (sendmsg(b->chan[slot], &m, MSG_NOSIGNAL) < 0)
			return errno == EINTR ? -EINTR : -ECHILD;
	}
	for (;;) {
		n = recv(b->chan[slot], &resp, sizeof(resp), 0);
		if (n < 0 && errno == EINTR)
			return -EINTR; /* stopping: the answer is dropped */
		if (n != (ssize_t)sizeof(resp))
			return -ECHILD;
		if (resp.seq == w.seq)
			return resp.ret == BAD_REQUEST ? -ECHILD
						       : (ssize_t)resp.ret;
		/* An answer to a call its caller gave up on: not ours. */
	}
}

void jr_behalf_stop(struct jr_behalf *b)
{
	if (!b)
		return;
	if (b->pid > 0) {
		if (b->pidfd >= 0)
			syscall(SYS_pidfd_send_signal, b->pidfd, SIGKILL, NULL,
				0);
		else
			kill(b->pid, SIGKILL);
		while (waitpid(b->pid, NULL, 0) < 0 && errno == EINTR)
			;
	}
	if (b->pidfd >= 0)
		close(b->pidfd);
	for (size_t i = 0; b->chan && i < b->n_slots; i++)
		if (b->chan[i] >= 0)
			close(b->chan[i]);
	if (b->arena)
		munmap(b->arena, b->n_slots * SLOT_SIZE);
	free(b->chan);
	free(b->seq);
	free(b);
}
