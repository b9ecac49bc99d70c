// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * nflog.c - attributing the firewall's refusals: one audit line per
 * packet the worker's closing rejects refuse.
 *
 * Theory of operation: the rejects count each packet on a named counter
 * (ruleset.c; the summary's firewall_refused) and, before that, hand it
 * to nfnetlink_log group JR_NFLOG_GROUP (`log group N`). Log groups are
 * per network namespace, so the socket that binds the group must be one
 * of the worker netns: init opens it there with the nftables sockets and
 * passes it in NFT_EARLY (initproto.h, JR_INITPROTO_FD_NFLOG); the
 * runner, which holds CAP_NET_ADMIN over the sandbox's user namespace as
 * its owner, binds it and is its only holder. The command can neither
 * read the group (no CAP_NET_ADMIN, and seccomp refuses NETLINK_NETFILTER)
 * nor bind it first: the runner binds before installing the rules, and a
 * group has one listener.
 *
 * The binding asks for the packet's first JR_NFLOG_COPY bytes (enough for
 * the IP header and the ports) and a queue threshold of 1: nfnetlink_log
 * then sends each message at once, from the context of the sending
 * process, so the message of a packet the command sent is queued on this
 * socket before the command's send returns. When the sandbox is gone,
 * one last drain therefore sees every message there will be.
 *
 * A thread reads them (poll on the socket and a stop eventfd) and writes
 * a "firewall-refused" line per packet through audit.c, rate-limited
 * (nflogmsg.h: JR_NFLOG_BURST at once, JR_NFLOG_RATE a second). A flood
 * beyond the socket's receive buffer makes the kernel drop messages and
 * report ENOBUFS once; the counters still count every packet, and the
 * last line says how many refusals have no line of their own. Only
 * datagrams from the kernel (nl_pid 0) are read: a process of the netns
 * with CAP_NET_ADMIN could unicast forgeries to the port id.
 */
#include <arpa/inet.h>
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <pthread.h>
#include <signal.h>
#include <stdalign.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/eventfd.h>
#include <sys/socket.h>
#include <unistd.h>

#include <linux/netfilter/nfnetlink.h>
#include <linux/netfilter/nfnetlink_log.h>
#include <linux/netlink.h>

#include <libmnl/libmnl.h>

#include "cleanup.h"
#include "clock.h"
#include "log.h"
#include "nflog.h"
#include "nflogmsg.h"
#include "ruleset.h" /* JR_NFLOG_GROUP */

/* Bytes of each refused packet copied: an IPv6 header (40) and the
 * transport header's ports, with room to spare. */
#define JR_NFLOG_COPY 128
/* One receive: a netlink datagram of nfnetlink_log is at most its
 * buffer size (NFULA_CFG_NLBUFSIZ, 4 KiB by default). */
#define JR_NFLOG_RECV_SIZE 65536

struct jr_nflog {
	int fd;
	int stopfd;
	bool running;
	pthread_t thread;
	struct jr_audit *audit;
	struct jr_nflog_limit limit;
	struct jr_nflog_stats st; /* written by the thread only */
};

/* Send @nlh and read the kernel's answer to it. Return: 0 or -errno. */
static int nflog_talk(struct jr_nflog *l, const struct nlmsghdr *nlh)
{
	alignas(struct nlmsghdr) char buf[4096];
	struct sockaddr_nl kernel = { .nl_family = AF_NETLINK };
	struct sockaddr_nl from;
	socklen_t fromlen;
	ssize_t n;

	if (sendto(l->fd, nlh, nlh->nlmsg_len, 0, (struct sockaddr *)&kernel,
		   sizeof(kernel)) < 0)
		return -errno;
	/* nfnetlink answers inside sendmsg(): the ACK is queued already. */
	for (;;) {
		const struct nlmsghdr *r = (const void *)buf;

		fromlen = sizeof(from);
		n = recvfrom(l->fd, buf, sizeof(buf), MSG_DONTWAIT,
			     (struct sockaddr *)&from, &fromlen);
		if (n < 0)
			return errno == EAGAIN ? -ETIMEDOUT : -errno;
		if (from.nl_pid != 0 || !mnl_nlmsg_ok(r, (int)n) ||
		    r->nlmsg_seq != nlh->nlmsg_seq)
			continue;
		if (r->nlmsg_type != NLMSG_ERROR ||
		    r->nlmsg_len < NLMSG_HDRLEN + sizeof(struct nlmsgerr))
			return -EPROTO;
		return ((const struct nlmsgerr *)mnl_nlmsg_get_payload(r))
		    ->error;
	}
}

/*
 * nflog_bind() - bind group JR_NFLOG_GROUP to the socket: copy
 * JR_NFLOG_COPY bytes of each packet, send each message at once.
 */
static int nflog_bind(struct jr_nflog *l)
{
	alignas(struct nlmsghdr) char buf[MNL_SOCKET_BUFFER_SIZE];
	struct nlmsghdr *nlh = mnl_nlmsg_put_header(buf);
	struct nfulnl_msg_config_cmd cmd = { .command = NFULNL_CFG_CMD_BIND };
	struct nfulnl_msg_config_mode mode = {
		.copy_range = htonl(JR_NFLOG_COPY),
		.copy_mode = NFULNL_COPY_PACKET,
	};
	struct nfgenmsg *nfg;

	nlh->nlmsg_type = (NFNL_SUBSYS_ULOG << 8) | NFULNL_MSG_CONFIG;
	nlh->nlmsg_flags = NLM_F_REQUEST | NLM_F_ACK;
	nlh->nlmsg_seq = (uint32_t)jr_clock_us();
	nfg = mnl_nlmsg_put_extra_header(nlh, sizeof(*nfg));
	nfg->nfgen_family = AF_UNSPEC;
	nfg->version = NFNETLINK_V0;
	nfg->res_id = htons(JR_NFLOG_GROUP);
	/* The command first: it creates the instance the rest configures. */
	mnl_attr_put(nlh, NFULA_CFG_CMD, sizeof(cmd), &cmd);
	mnl_attr_put(nlh, NFULA_CFG_MODE, sizeof(mode), &mode);
	mnl_attr_put_u32(nlh, NFULA_CFG_QTHRESH, htonl(1));
	return nflog_talk(l, nlh);
}

int jr_nflog_open(int fd, struct jr_nflog **out, struct jr_err *err)
{
	_cleanup_close_ int owned = fd;
	struct sockaddr_nl sa = { .nl_family = AF_NETLINK };
	struct jr_nflog *l;
	int proto = 0, r;
	socklen_t plen = sizeof(proto);

	if (fd < 0)
		return jr_err_set(err, EBADF, "no NFLOG socket was passed");
	if (getsockopt(fd, SOL_SOCKET, SO_PROTOCOL, &proto, &plen) < 0 ||
	    proto != NETLINK_NETFILTER)
		return jr_err_set(
		    err, EPROTOTYPE,
		    "the socket passed for NFLOG is not a NETLINK_NETFILTER socket");
	if (fcntl(fd, F_SETFD, FD_CLOEXEC) < 0 ||
	    bind(fd, (struct sockaddr *)&sa, sizeof(sa)) < 0)
		return jr_err_set(err, errno,
				  "cannot set up the NFLOG socket: %s",
				  strerror(errno));
	l = calloc(1, sizeof(*l));
	if (!l)
		return jr_err_set(err, ENOMEM, "out of memory");
	l->fd = steal_fd(&owned);
	l->stopfd = -1;
	r = nflog_bind(l);
	if (r < 0) {
		jr_nflog_stop(l, NULL);
		return jr_err_set(
		    err, -r,
		    "cannot bind NFLOG group %d in the sandbox: %s (is nfnetlink_log available? try: sudo modprobe nfnetlink_log)",
		    JR_NFLOG_GROUP, strerror(-r));
	}
	*out = l;
	return 0;
}

/* One refused packet: its audit line, if the rate limit allows. */
static void nflog_packet(struct jr_nflog *l, const struct jr_nflog_packet *p)
{
	if (!jr_nflog_limit_take(&l->limit, jr_clock_ms()))
		return;
	jr_audit_firewall_refused(l->audit, p->protocol, p->address, p->port);
	l->st.logged++;
}

/*
 * nflog_drain() - read every queued datagram without blocking.
 * Return: false when the socket failed for good (stop reading).
 */
static bool nflog_drain(struct jr_nflog *l)
{
	_cleanup_free_ char *buf = malloc(JR_NFLOG_RECV_SIZE);

	if (!buf)
		return true;
	for (;;) {
		struct sockaddr_nl from;
		socklen_t fromlen = sizeof(from);
		const struct nlmsghdr *nlh;
		ssize_t n;
		int left;

		n = recvfrom(l->fd, buf, JR_NFLOG_RECV_SIZE, MSG_DONTWAIT,
			     (struct sockaddr *)&from, &fromlen);
		if (n < 0) {
			if (errno == EINTR)
				continue;
			if (errno == ENOBUFS) {
				l->st.overruns++;
				continue;
			}
			return errno == EAGAIN;
		}
		if (from.nl_pid != 0)
			continue;
		left = (int)n;
		for (nlh = (const void *)buf; mnl_nlmsg_ok(nlh, left);
		     nlh = mnl_nlmsg_next(nlh, &left)) {
			struct jr_nflog_packet p;

			if (jr_nflog_parse_msg(nlh, nlh->nlmsg_len,
					       JR_NFLOG_GROUP, &p) == 1)
				nflog_packet(l, &p);
		}
	}
}

static void *nflog_loop(void *arg)
{
	struct jr_nflog *l = arg;
	struct pollfd pfd[2] = {
		{ .fd = l->stopfd, .events = POLLIN },
		{ .fd = l->fd, .events = POLLIN },
	};
	bool reading = true;

	while (reading) {
		if (poll(pfd, 2, -1) < 0) {
			if (errno == EINTR)
				continue;
			break;
		}
		if (pfd[1].revents)
			reading = nflog_drain(l);
		if (pfd[0].revents)
			break;
	}
	/* Stopped: what the command's last packets left in the queue. */
	if (reading)
		nflog_drain(l);
	return NULL;
}

int jr_nflog_start(struct jr_nflog *l, struct jr_audit *audit,
		   struct jr_err *err)
{
	sigset_t all, old;
	int r;

	l->audit = audit;
	l->stopfd = eventfd(0, EFD_CLOEXEC | EFD_NONBLOCK);
	if (l->stopfd < 0)
		return jr_err_set(err, errno,
				  "cannot start the NFLOG reader: %s",
				  strerror(errno));
	sigfillset(&all);
	pthread_sigmask(SIG_SETMASK, &all, &old);
	r = pthread_create(&l->thread, NULL, nflog_loop, l);
	pthread_sigmask(SIG_SETMASK, &old, NULL);
	if (r)
		return jr_err_set(err, r, "cannot start the NFLOG reader: %s",
				  strerror(r));
	l->running = true;
	return 0;
}

void jr_nflog_stop(struct jr_nflog *l, struct jr_nflog_stats *st)
{
	uint64_t one = 1;

	if (!l)
		return;
	if (l->running) {
		if (write(l->stopfd, &one, sizeof(one)) < 0) {
			/* a fresh eventfd cannot refuse 1 */
		}
		pthread_join(l->thread, NULL);
	}
	l->st.suppressed = l->limit.suppressed;
	if (l->audit && (l->st.suppressed || l->st.overruns)) {
		char detail[160];

		snprintf(
		    detail, sizeof(detail),
		    "%llu refusals over the rate limit (%d at once, then %d a second) have no line%s",
		    (unsigned long long)l->st.suppressed, JR_NFLOG_BURST,
		    JR_NFLOG_RATE,
		    l->st.overruns
			? "; the kernel also dropped messages (queue full)"
			: "");
		jr_audit_event(l->audit, "firewall-refused-unlogged", detail);
	}
	if (st)
		*st = l->st;
	if (l->stopfd >= 0)
		close(l->stopfd);
	close(l->fd);
	free(l);
}
