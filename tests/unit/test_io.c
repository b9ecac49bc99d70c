// SPDX-License-Identifier: GPL-2.0-or-later
/* Unit tests for io.c's jr_recv_fds(): descriptors that come with a
 * message, and none left open when the message or its list is cut. */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>
#include <cmocka.h>

#include "io.h"

/* How many descriptors this process has open. */
static int open_fds(void)
{
	DIR *d = opendir("/proc/self/fd");
	int n = 0;

	assert_non_null(d);
	while (readdir(d))
		n++;
	closedir(d);
	return n;
}

/* Send @len bytes of @data with @n copies of stdin's descriptor. */
static void send_with_fds(int sock, const char *data, size_t len, int n)
{
	union {
		char buf[CMSG_SPACE(8 * sizeof(int))];
		struct cmsghdr align;
	} ctl;
	struct iovec iov = { .iov_base = (void *)data, .iov_len = len };
	struct msghdr mh = { .msg_iov = &iov, .msg_iovlen = 1 };
	struct cmsghdr *c;

	if (n) {
		mh.msg_control = ctl.buf;
		mh.msg_controllen = CMSG_SPACE((size_t)n * sizeof(int));
		c = CMSG_FIRSTHDR(&mh);
		c->cmsg_level = SOL_SOCKET;
		c->cmsg_type = SCM_RIGHTS;
		c->cmsg_len = CMSG_LEN((size_t)n * sizeof(int));
		for (int i = 0; i < n; i++) {
			int fd = 0;

			memcpy(CMSG_DATA(c) + (size_t)i * sizeof(int), &fd,
			       sizeof(fd));
		}
	}
	assert_int_equal(sendmsg(sock, &mh, 0), (ssize_t)len);
}

static void test_recv_fds(void **state)
{
	char buf[8];
	int sv[2], fds[3], n_fds, before;

	(void)state;
	assert_int_equal(
	    socketpair(AF_UNIX, SOCK_SEQPACKET | SOCK_CLOEXEC, 0, sv), 0);
	before = open_fds();

	/* Two descriptors with a message: both kept, close-on-exec. */
	send_with_fds(sv[0], "hello", 5, 2);
	assert_int_equal(
	    jr_recv_fds(sv[1], buf, sizeof(buf), 0, fds, 3, &n_fds), 5);
	assert_int_equal(n_fds, 2);
	assert_true(fds[0] >= 0 && fds[1] >= 0);
	assert_int_equal(fds[2], -1);
	assert_true(fcntl(fds[0], F_GETFD) & FD_CLOEXEC);
	close(fds[0]);
	close(fds[1]);

	/* More descriptors than asked for: refused, none left open. */
	send_with_fds(sv[0], "x", 1, 5);
	assert_int_equal(
	    jr_recv_fds(sv[1], buf, sizeof(buf), 0, fds, 3, &n_fds), -EMSGSIZE);
	assert_int_equal(n_fds, 0);
	assert_int_equal(open_fds(), before);

	/* A message longer than the buffer: refused, its fds closed. */
	send_with_fds(sv[0], "0123456789", 10, 1);
	assert_int_equal(
	    jr_recv_fds(sv[1], buf, sizeof(buf), 0, fds, 3, &n_fds), -EMSGSIZE);
	assert_int_equal(open_fds(), before);

	/* Nothing waiting, non-blocking: -EAGAIN; the peer gone: 0. */
	assert_int_equal(
	    jr_recv_fds(sv[1], buf, sizeof(buf), MSG_DONTWAIT, fds, 3, &n_fds),
	    -EAGAIN);
	close(sv[0]);
	assert_int_equal(
	    jr_recv_fds(sv[1], buf, sizeof(buf), 0, fds, 3, &n_fds), 0);
	/* A list longer than the helper's own buffer is refused as such. */
	assert_int_equal(
	    jr_recv_fds(sv[1], buf, sizeof(buf), 0, fds, 99, &n_fds), -EINVAL);
	close(sv[1]);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_recv_fds),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
