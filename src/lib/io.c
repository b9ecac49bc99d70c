// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * io.c - see io.h.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#include "cleanup.h"
#include "io.h"

int jr_write_all(int fd, const void *buf, size_t len)
{
	const char *p = buf;

	while (len) {
		ssize_t n = write(fd, p, len);

		if (n < 0) {
			if (errno == EINTR)
				continue;
			return -errno;
		}
		p += n;
		len -= (size_t)n;
	}
	return 0;
}

/* At most this many descriptors in one jr_recv_fds() (its control
 * buffer is on the stack). */
#define JR_RECV_FDS_MAX 16

ssize_t jr_recv_fds(int sock, void *buf, size_t len, int flags, int *fds,
		    int max_fds, int *n_fds)
{
	union {
		char buf[CMSG_SPACE(JR_RECV_FDS_MAX * sizeof(int))];
		struct cmsghdr align;
	} ctl;
	struct iovec iov = { .iov_base = buf, .iov_len = len };
	struct msghdr mh = {
		.msg_iov = &iov,
		.msg_iovlen = 1,
		.msg_control = ctl.buf,
		.msg_controllen = CMSG_SPACE((size_t)max_fds * sizeof(int)),
	};
	ssize_t n;
	int got = 0;

	*n_fds = 0;
	if (max_fds < 0 || max_fds > JR_RECV_FDS_MAX)
		return -EINVAL;
	for (int i = 0; i < max_fds; i++)
		fds[i] = -1;
	n = recvmsg(sock, &mh, flags | MSG_CMSG_CLOEXEC);
	if (n < 0)
		return -errno;
	for (struct cmsghdr *c = CMSG_FIRSTHDR(&mh); c;
	     c = CMSG_NXTHDR(&mh, c)) {
		size_t k;

		if (c->cmsg_level != SOL_SOCKET || c->cmsg_type != SCM_RIGHTS)
			continue;
		k = (c->cmsg_len - CMSG_LEN(0)) / sizeof(int);
		for (size_t i = 0; i < k; i++) {
			int fd;

			memcpy(&fd, CMSG_DATA(c) + i * sizeof(int), sizeof(fd));
			if (got < max_fds)
				fds[got++] = fd;
			else
				close(fd); /* cannot happen: the kernel
					    * truncates to the buffer */
		}
	}
	*n_fds = got;
	if (mh.msg_flags & (MSG_TRUNC | MSG_CTRUNC)) {
		for (int i = 0; i < got; i++) {
			close(fds[i]);
			fds[i] = -1;
		}
		*n_fds = 0;
		return -EMSGSIZE;
	}
	return n;
}

int jr_close_all_but(int *keep, size_t n)
{
	unsigned from = STDERR_FILENO + 1;

	/* An insertion sort: a handful of numbers, and no qsort(), which
	 * may allocate, after a fork. */
	for (size_t i = 1; i < n; i++)
		for (size_t j = i; j > 0 && keep[j - 1] > keep[j]; j--) {
			int t = keep[j];

			keep[j] = keep[j - 1];
			keep[j - 1] = t;
		}
	for (size_t i = 0; i < n; i++) {
		if (keep[i] < 0 || (unsigned)keep[i] < from)
			continue;
		if ((unsigned)keep[i] > from &&
		    close_range(from, (unsigned)keep[i] - 1, 0) < 0)
			return -errno;
		from = (unsigned)keep[i] + 1;
	}
	return close_range(from, ~0U, 0) < 0 ? -errno : 0;
}

int jr_read_regular(const char *path, const char *label, size_t max,
		    char **text, size_t *len, struct stat *st,
		    struct jr_err *err)
{
	_cleanup_close_ int fd = -1;
	_cleanup_free_ char *buf = NULL;
	size_t n = 0;
	ssize_t r;

	/* O_NONBLOCK: a FIFO must not hang the open; it is refused below
	 * as not a regular file (reads of a regular file never block). */
	fd = open(path, O_RDONLY | O_CLOEXEC | O_NOCTTY | O_NONBLOCK);
	if (fd < 0)
		return jr_err_set(err, errno, "%s: cannot read: %s", label,
				  strerror(errno));
	if (fstat(fd, st) < 0)
		return jr_err_set(err, errno, "%s: fstat: %s", label,
				  strerror(errno));
	if (!S_ISREG(st->st_mode))
		return jr_err_set(err, EINVAL, "%s: not a regular file", label);
	if ((uint64_t)st->st_size > max)
		return jr_err_set(err, EFBIG, "%s: larger than %zu bytes",
				  label, max);
	buf = malloc((size_t)st->st_size + 1);
	if (!buf)
		return jr_err_set(err, ENOMEM, "out of memory");
	while (n < (size_t)st->st_size) {
		r = read(fd, buf + n, (size_t)st->st_size - n);
		if (r < 0 && errno == EINTR)
			continue;
		if (r < 0)
			return jr_err_set(err, errno, "%s: cannot read: %s",
					  label, strerror(errno));
		if (r == 0)
			break;
		n += (size_t)r;
	}
	buf[n] = '\0';
	*text = steal_pointer(&buf);
	*len = n;
	return 0;
}
