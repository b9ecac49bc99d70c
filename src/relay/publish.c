// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * publish.c - published ports (--publish, see publish.h).
 *
 * Theory of operation: a published connection comes in on a listener the
 * runner bound in its own netns (jr_publish_bind(), before the command
 * runs, so a port in use is exit 125), and must go out over the veth to
 * the command's address in the worker netns, as if from the gateway. A
 * socket belongs for life to the netns it was created in, and the runner
 * never enters the sandbox's namespaces (rootless it could not: setns(2)
 * wants CAP_SYS_ADMIN in the runner's own user namespace). So the relay
 * netns gets a socket factory: a small process init forks while it is in
 * the relay netns (relaynet.c), which for each byte the runner writes
 * creates one TCP socket there and passes it back with SCM_RIGHTS. The
 * relay thread connects it to the worker and splices (relay_lane.c), and
 * the worker's nft accepts exactly that: new TCP from the gateway to a
 * published port, and its replies (ruleset.c).
 *
 * Why a process and not init itself: init lives in the worker netns, and
 * a setns(2) there and back per connection would show init in a foreign
 * netns to the watchdog's /proc walk now and then; a thread in init
 * would make init's later fork of the command unsafe. The factory holds
 * nothing but its end of the socketpair, no capabilities and no dumpable
 * flag (so nothing can ptrace it); it dies with init (PDEATHSIG) and with
 * the runner's end (EOF). It announces itself once, so the runner learns
 * its pid (SCM_CREDENTIALS, translated into the runner's pid namespace)
 * and the watchdog accepts that one process outside the worker netns.
 * Only when --publish is given: no process, no cost otherwise.
 */
#include <errno.h>
#include <linux/capability.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/socket.h>
#include <sys/syscall.h>
#include <unistd.h>
#include <arpa/inet.h>
#include <netinet/in.h>

#include "cleanup.h"
#include "publish.h"

/* The factory's loop; never returns. */
__attribute__((noreturn)) static void factory_main(int end)
{
	struct __user_cap_header_struct hdr = {
		.version = _LINUX_CAPABILITY_VERSION_3,
	};
	struct __user_cap_data_struct data[2] = { 0 };
	char hello = 'H';

	prctl(PR_SET_PDEATHSIG, SIGKILL);
	if (getppid() != 1) /* init died before the signal was armed */
		_exit(0);
	prctl(PR_SET_DUMPABLE, 0);
	if (prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) < 0 ||
	    syscall(SYS_capset, &hdr, data) < 0)
		_exit(1);
	/* Nothing of init's but our end stays open. */
	if (end > 0)
		syscall(SYS_close_range, 0, (unsigned int)end - 1, 0);
	syscall(SYS_close_range, (unsigned int)end + 1, ~0U, 0);
	if (send(end, &hello, 1, MSG_NOSIGNAL) != 1)
		_exit(1);
	for (;;) {
		char req, status = 0;
		struct iovec iov = { .iov_base = &status, .iov_len = 1 };
		union {
			char buf[CMSG_SPACE(sizeof(int))];
			struct cmsghdr align;
		} u;
		struct msghdr mh = { .msg_iov = &iov, .msg_iovlen = 1 };
		ssize_t n = recv(end, &req, 1, 0);
		int fd;

		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0)
			_exit(0); /* the runner is gone */
		fd = socket(AF_INET, SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC,
			    0);
		if (fd < 0) {
			status = (char)(errno < 128 ? errno : EIO);
		} else {
			struct cmsghdr *cm;

			memset(&u, 0, sizeof(u));
			mh.msg_control = u.buf;
			mh.msg_controllen = sizeof(u.buf);
			cm = CMSG_FIRSTHDR(&mh);
			cm->cmsg_level = SOL_SOCKET;
			cm->cmsg_type = SCM_RIGHTS;
			cm->cmsg_len = CMSG_LEN(sizeof(int));
			memcpy(CMSG_DATA(cm), &fd, sizeof(int));
		}
		n = sendmsg(end, &mh, MSG_NOSIGNAL);
		if (fd >= 0)
			close(fd);
		if (n < 0 && errno != EINTR && errno != ENOBUFS)
			_exit(0);
	}
}

int jr_publish_factory_start(int *fd, struct jr_err *err)
{
	int sv[2], one = 1;
	pid_t pid;

	if (socketpair(AF_UNIX, SOCK_SEQPACKET | SOCK_CLOEXEC, 0, sv) < 0)
		return jr_err_set(
		    err, errno,
		    "--publish: socketpair for the socket factory: %s",
		    strerror(errno));
	/* Set before the factory's first send: its pid rides along. */
	if (setsockopt(sv[0], SOL_SOCKET, SO_PASSCRED, &one, sizeof(one)) < 0) {
		int e = errno;

		close(sv[0]);
		close(sv[1]);
		return jr_err_set(err, e, "--publish: SO_PASSCRED: %s",
				  strerror(e));
	}
	pid = fork();
	if (pid < 0) {
		int e = errno;

		close(sv[0]);
		close(sv[1]);
		return jr_err_set(
		    err, e, "--publish: cannot start the socket factory: %s",
		    strerror(e));
	}
	if (pid == 0)
		factory_main(sv[1]);
	close(sv[1]);
	*fd = sv[0];
	return 0;
}

int jr_publish_factory_hello(int fd, pid_t *pid, struct jr_err *err)
{
	char b;
	struct iovec iov = { .iov_base = &b, .iov_len = 1 };
	union {
		char buf[CMSG_SPACE(sizeof(struct ucred))];
		struct cmsghdr align;
	} u;
	struct msghdr mh = {
		.msg_iov = &iov,
		.msg_iovlen = 1,
		.msg_control = u.buf,
		.msg_controllen = sizeof(u.buf),
	};
	struct cmsghdr *cm;
	ssize_t n;

	do
		n = recvmsg(fd, &mh, MSG_CMSG_CLOEXEC);
	while (n < 0 && errno == EINTR);
	if (n != 1 || b != 'H')
		return jr_err_set(
		    err, n < 0 ? errno : EPROTO,
		    "--publish: the socket factory did not start");
	for (cm = CMSG_FIRSTHDR(&mh); cm; cm = CMSG_NXTHDR(&mh, cm)) {
		struct ucred cred;

		if (cm->cmsg_level != SOL_SOCKET ||
		    cm->cmsg_type != SCM_CREDENTIALS)
			continue;
		memcpy(&cred, CMSG_DATA(cm), sizeof(cred));
		if (cred.pid <= 0)
			break;
		*pid = cred.pid;
		return 0;
	}
	return jr_err_set(err, EPROTO,
			  "--publish: the socket factory's pid is unknown");
}

int jr_publish_bind(const struct jr_lanes *l, int *fds, struct jr_err *err)
{
	size_t i;
	int e;

	for (i = 0; i < l->n_publish; i++)
		fds[i] = -1;
	for (i = 0; i < l->n_publish; i++) {
		const struct jr_publish *p = &l->publish[i];
		int one = 1;

		fds[i] = socket(p->addr.ss_family,
				SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
		if (fds[i] < 0)
			goto fail;
		/* SO_REUSEADDR only lets us past a TIME_WAIT of our own; a
		 * listener or a connection bound there still fails. */
		if (setsockopt(fds[i], SOL_SOCKET, SO_REUSEADDR, &one,
			       sizeof(one)) < 0 ||
		    bind(fds[i], (const struct sockaddr *)&p->addr,
			 p->addr_len) < 0 ||
		    listen(fds[i], SOMAXCONN) < 0)
			goto fail;
	}
	return 0;
fail:
	e = errno;
	for (size_t j = 0; j <= i && j < l->n_publish; j++)
		if (fds[j] >= 0) {
			close(fds[j]);
			fds[j] = -1;
		}
	return jr_err_set(
	    err, e, "--publish %s: cannot listen on the host: %s%s",
	    l->publish[i].text, strerror(e),
	    e == EADDRINUSE
		? " (another program uses that port; pick another HOSTPORT)"
		: "");
}
