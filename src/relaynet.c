// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * relaynet.c - building the relay network namespace (see relaynet.h).
 *
 * Theory of operation: init forks a child that unshares a new network
 * namespace (owned by the sandbox's user namespace, so no privilege on the
 * host is involved), brings up lo, turns forwarding off, creates the veth
 * pair with its peer placed straight into the worker netns, gives the relay
 * end the gateway address, and opens the relay's listening sockets on it.
 * The sockets travel back to init over a socketpair (SCM_RIGHTS), the
 * child exits, and init passes them on to the runner with the rest.
 *
 * Forwarding: a new netns copies the IPv4 forwarding setting of the
 * host's initial netns (net.core.devconf_inherit_init_net=0 semantics), so
 * on a router or Docker host it would start enabled. It is switched off and
 * read back. It would not matter for reachability (the relay netns has no
 * route off its /30), but the brief says it stays off, and two walls are
 * better than one.
 */
#include <errno.h>
#include <fcntl.h>
#include <sched.h>
#include <stdio.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <unistd.h>
#include <netinet/in.h>

#include "cleanup.h"
#include "ctl.h"
#include "link.h"
#include "relaynet.h"

static int write_sysctl(const char *path, const char *value, struct jr_err *err)
{
	_cleanup_close_ int fd = open(path, O_RDWR | O_CLOEXEC);
	char back[16] = { 0 };
	size_t len = strlen(value);

	if (fd < 0)
		return jr_err_set(err, errno, "cannot open %s: %s", path,
				  strerror(errno));
	if (write(fd, value, len) != (ssize_t)len)
		return jr_err_set(err, errno ? errno : EIO, "cannot write %s",
				  path);
	if (pread(fd, back, sizeof(back) - 1, 0) <= 0 ||
	    strncmp(back, value, len) != 0)
		return jr_err_set(err, EIO, "%s did not read back as %s", path,
				  value);
	return 0;
}

static int listen_on(int type, struct in_addr addr, uint16_t port,
		     struct jr_err *err)
{
	_cleanup_close_ int fd = -1;
	struct sockaddr_in sin = {
		.sin_family = AF_INET,
		.sin_addr = addr,
		.sin_port = htons(port),
	};
	int one = 1;

	fd = socket(AF_INET, type | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
	if (fd < 0)
		return jr_err_set(err, errno, "socket: %s", strerror(errno));
	if (setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof(one)) < 0 ||
	    bind(fd, (struct sockaddr *)&sin, sizeof(sin)) < 0)
		return jr_err_set(
		    err, errno, "cannot bind the relay's %s port %u: %s",
		    type == SOCK_STREAM ? "TCP" : "UDP", port, strerror(errno));
	if (type == SOCK_STREAM && listen(fd, SOMAXCONN) < 0)
		return jr_err_set(err, errno, "listen: %s", strerror(errno));
	return steal_fd(&fd);
}

/*
 * The child's SETUP_OK to init carries the listeners slot by slot; both
 * ends of that hand-over are in jr_relaynet_create().
 */
enum relaynet_fd {
	RELAYNET_FD_PROXY = 0,
	RELAYNET_FD_DNS_UDP,
	RELAYNET_FD_DNS_TCP,
	RELAYNET_FDS, /* how many */
};

/* The child's work, in the new netns. */
static int build(int worker_netns_fd, const struct jr_gateway *gw,
		 struct jr_relay_listeners *l, struct jr_err *err)
{
	int r;

	if (unshare(CLONE_NEWNET) < 0)
		return jr_err_set(
		    err, errno, "cannot create the relay network namespace: %s",
		    strerror(errno));
	r = jr_link_lo_up(err);
	if (r < 0)
		return r;
	r = write_sysctl("/proc/sys/net/ipv4/ip_forward", "0", err);
	if (r == 0)
		r = write_sysctl("/proc/sys/net/ipv4/conf/all/forwarding", "0",
				 err);
	if (r < 0)
		return jr_err_prefix(
		    err, "cannot turn forwarding off in the relay namespace: ");
	r = jr_link_create_veth(JR_RELAY_IFNAME, JR_WORKER_IFNAME,
				worker_netns_fd, err);
	if (r < 0)
		return r;
	r = jr_link_configure(JR_RELAY_IFNAME, gw->relay, gw->prefix, err);
	if (r < 0)
		return r;
	l->proxy = listen_on(SOCK_STREAM, gw->relay, JR_PROXY_PORT, err);
	if (l->proxy < 0)
		return l->proxy;
	l->dns_udp = listen_on(SOCK_DGRAM, gw->relay, JR_DNS_PORT, err);
	if (l->dns_udp < 0)
		return l->dns_udp;
	l->dns_tcp = listen_on(SOCK_STREAM, gw->relay, JR_DNS_PORT, err);
	if (l->dns_tcp < 0)
		return l->dns_tcp;
	return 0;
}

int jr_relaynet_create(int worker_netns_fd, const struct jr_gateway *gw,
		       struct jr_relay_listeners *out, struct jr_err *err)
{
	_cleanup_close_ int mine = -1, theirs = -1;
	struct jr_ctl_msg m;
	int sv[2], fds[JR_CTL_MAX_FDS];
	size_t nfds = JR_CTL_MAX_FDS;
	int status, r;
	pid_t pid;

	if (socketpair(AF_UNIX, SOCK_SEQPACKET | SOCK_CLOEXEC, 0, sv) < 0)
		return jr_err_set(err, errno, "socketpair: %s",
				  strerror(errno));
	mine = sv[0];
	theirs = sv[1];
	pid = fork();
	if (pid < 0)
		return jr_err_set(err, errno, "fork: %s", strerror(errno));
	if (pid == 0) {
		struct jr_relay_listeners l = { -1, -1, -1 };
		struct jr_err e = { 0 };

		if (build(worker_netns_fd, gw, &l, &e) < 0) {
			jr_ctl_msg_init(&m, JR_CTL_SETUP_FAIL, e.code, "%s",
					e.msg);
			jr_ctl_send(theirs, &m, NULL, 0);
			_exit(1);
		}
		jr_ctl_msg_init(&m, JR_CTL_SETUP_OK, 0, NULL);
		fds[RELAYNET_FD_PROXY] = l.proxy;
		fds[RELAYNET_FD_DNS_UDP] = l.dns_udp;
		fds[RELAYNET_FD_DNS_TCP] = l.dns_tcp;
		_exit(jr_ctl_send(theirs, &m, fds, RELAYNET_FDS) < 0);
	}
	close(steal_fd(&theirs));
	r = jr_ctl_recv(mine, &m, fds, &nfds);
	while (waitpid(pid, &status, 0) < 0 && errno == EINTR)
		;
	if (r < 0)
		return jr_err_set(
		    err, EIO, "the relay namespace setup died without a word");
	if (m.type == JR_CTL_SETUP_FAIL || nfds != RELAYNET_FDS) {
		for (size_t i = 0; i < nfds; i++)
			close(fds[i]);
		if (m.type == JR_CTL_SETUP_FAIL)
			return jr_err_set(err, m.code, "%s", m.msg);
		return jr_err_set(
		    err, EPROTO,
		    "the relay namespace setup sent %zu sockets, not %d", nfds,
		    RELAYNET_FDS);
	}
	out->proxy = fds[RELAYNET_FD_PROXY];
	out->dns_udp = fds[RELAYNET_FD_DNS_UDP];
	out->dns_tcp = fds[RELAYNET_FD_DNS_TCP];
	return 0;
}
