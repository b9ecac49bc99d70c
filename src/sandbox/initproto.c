// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * initproto.c - framing for the runner-init protocol (see initproto.h).
 */

#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#include "initproto.h"

void jr_initproto_msg_init(struct jr_initproto_msg *m,
			   enum jr_initproto_type type, int code,
			   const char *fmt, ...)
{
	va_list ap;

	memset(m, 0, sizeof(*m));
	m->type = type;
	m->code = code;
	if (fmt) {
		va_start(ap, fmt);
		vsnprintf(m->msg, sizeof(m->msg), fmt, ap);
		va_end(ap);
	}
}

int jr_initproto_send(int sock, const struct jr_initproto_msg *m,
		      const int *fds, size_t nfds)
{
	union {
		char buf[CMSG_SPACE(sizeof(int) * JR_INITPROTO_MAX_FDS)];
		struct cmsghdr align;
	} u;
	struct iovec iov = { .iov_base = (void *)m, .iov_len = sizeof(*m) };
	struct msghdr mh = { .msg_iov = &iov, .msg_iovlen = 1 };
	ssize_t n;

	if (nfds > JR_INITPROTO_MAX_FDS)
		return -EINVAL;
	if (nfds) {
		struct cmsghdr *c;

		memset(&u, 0, sizeof(u));
		mh.msg_control = u.buf;
		mh.msg_controllen = CMSG_SPACE(sizeof(int) * nfds);
		c = CMSG_FIRSTHDR(&mh);
		c->cmsg_level = SOL_SOCKET;
		c->cmsg_type = SCM_RIGHTS;
		c->cmsg_len = CMSG_LEN(sizeof(int) * nfds);
		memcpy(CMSG_DATA(c), fds, sizeof(int) * nfds);
	}
	do {
		n = sendmsg(sock, &mh, MSG_NOSIGNAL);
	} while (n < 0 && errno == EINTR);
	if (n < 0)
		return -errno;
	if ((size_t)n != sizeof(*m))
		return -EMSGSIZE;
	return 0;
}

int jr_initproto_recv(int sock, struct jr_initproto_msg *m, int *fds,
		      size_t *nfds)
{
	return jr_initproto_recv_cred(sock, m, fds, nfds, NULL);
}

int jr_initproto_recv_cred(int sock, struct jr_initproto_msg *m, int *fds,
			   size_t *nfds, pid_t *pid)
{
	union {
		/* Room for the credentials SO_PASSCRED adds, too. */
		char buf[CMSG_SPACE(sizeof(int) * JR_INITPROTO_MAX_FDS) +
			 CMSG_SPACE(sizeof(struct ucred))];
		struct cmsghdr align;
	} u;
	struct iovec iov = { .iov_base = m, .iov_len = sizeof(*m) };
	struct msghdr mh = {
		.msg_iov = &iov,
		.msg_iovlen = 1,
		.msg_control = u.buf,
		.msg_controllen = sizeof(u.buf),
	};
	size_t room = nfds ? *nfds : 0, got = 0;
	struct cmsghdr *c;
	ssize_t n;

	if (nfds)
		*nfds = 0;
	if (pid)
		*pid = 0;
	do {
		n = recvmsg(sock, &mh, MSG_CMSG_CLOEXEC);
	} while (n < 0 && errno == EINTR);
	if (n < 0)
		return -errno;

	/* Take every passed fd first, so none leaks on a malformed message. */
	for (c = CMSG_FIRSTHDR(&mh); c; c = CMSG_NXTHDR(&mh, c)) {
		size_t cnt;
		int tmp[JR_INITPROTO_MAX_FDS];

		if (pid && c->cmsg_level == SOL_SOCKET &&
		    c->cmsg_type == SCM_CREDENTIALS &&
		    c->cmsg_len >= CMSG_LEN(sizeof(struct ucred))) {
			struct ucred uc;

			memcpy(&uc, CMSG_DATA(c), sizeof(uc));
			*pid = uc.pid;
		}
		if (c->cmsg_level != SOL_SOCKET || c->cmsg_type != SCM_RIGHTS)
			continue;
		cnt = (c->cmsg_len - CMSG_LEN(0)) / sizeof(int);
		if (cnt > JR_INITPROTO_MAX_FDS)
			cnt = JR_INITPROTO_MAX_FDS;
		memcpy(tmp, CMSG_DATA(c), cnt * sizeof(int));
		for (size_t i = 0; i < cnt; i++) {
			if (got < room)
				fds[got++] = tmp[i];
			else
				close(tmp[i]);
		}
	}
	if (nfds)
		*nfds = got;

	if (n == 0)
		return -EPIPE;
	if ((size_t)n != sizeof(*m) ||
	    (mh.msg_flags & (MSG_TRUNC | MSG_CTRUNC)) ||
	    m->type < JR_INITPROTO_MAPS_DONE ||
	    m->type > JR_INITPROTO_TYPE_LAST) {
		for (size_t i = 0; i < got; i++)
			close(fds[i]);
		if (nfds)
			*nfds = 0;
		return -EBADMSG;
	}
	m->msg[sizeof(m->msg) - 1] = '\0';
	return 0;
}
