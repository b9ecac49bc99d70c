// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * behalf_probe - the calls jailrun's unix socket guard runs on the
 * command's behalf, each tried the way that reaches the guard (an explicit
 * address, or control data), and what the kernel answered.
 *
 *   behalf_probe TEST...      print "TEST RESULT" per line, RESULT being
 *                             "ok" or the errno's name
 *
 * Tests (each needs a privilege an unprivileged process lacks; run inside
 * a sandbox, each must fail as it fails for such a process outside):
 *   rtnl-addr     RTM_NEWADDR 10.9.9.9/32 on lo (sendto with an address:
 *                 the kernel then checks only the sender's capabilities,
 *                 net/netlink/af_netlink.c NETLINK_SKB_DST)
 *   rtnl-link     RTM_NEWLINK of a dummy link (sendmsg with an address)
 *   rtnl-route    RTM_NEWROUTE 10.9.9.0/24 via lo
 *   rtnl-netns    RTM_NEWLINK moving lo to this very netns (IFLA_NET_NS_FD)
 *   so-mark       a UDP datagram with SO_MARK in its control data
 *   so-priority   a UDP datagram with SO_PRIORITY 7 in its control data
 *   connect:PATH  connect a unix stream socket to PATH
 * A netlink request is acknowledged: its RESULT is the ack's error.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <arpa/inet.h>
#include <linux/if_addr.h>
#include <linux/if_link.h>
#include <linux/netlink.h>
#include <linux/rtnetlink.h>
#include <net/if.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include <sys/un.h>

static const char *errname(int e)
{
	switch (e) {
	case 0:
		return "ok";
	case EPERM:
		return "EPERM";
	case EACCES:
		return "EACCES";
	case EINVAL:
		return "EINVAL";
	case ECONNREFUSED:
		return "ECONNREFUSED";
	case ENOENT:
		return "ENOENT";
	case EOPNOTSUPP:
		return "EOPNOTSUPP";
	case EEXIST:
		return "EEXIST";
	case ENODEV:
		return "ENODEV";
	case ENETUNREACH:
		return "ENETUNREACH";
	default: {
		static char b[32];

		snprintf(b, sizeof(b), "errno%d", e);
		return b;
	}
	}
}

struct req {
	struct nlmsghdr h;
	char body[512];
};

static void add_attr(struct req *r, unsigned short type, const void *d,
		     size_t len)
{
	struct rtattr *a =
	    (struct rtattr *)((char *)r + NLMSG_ALIGN(r->h.nlmsg_len));

	a->rta_type = type;
	a->rta_len = (unsigned short)RTA_LENGTH(len);
	if (len)
		memcpy(RTA_DATA(a), d, len);
	r->h.nlmsg_len = NLMSG_ALIGN(r->h.nlmsg_len) + RTA_ALIGN(a->rta_len);
}

/* Send @r to the kernel with an explicit address; return the ack's errno. */
static int rtnl_talk(struct req *r, int use_sendmsg)
{
	struct sockaddr_nl k = { .nl_family = AF_NETLINK };
	char buf[8192];
	int fd = socket(AF_NETLINK, SOCK_RAW | SOCK_CLOEXEC, NETLINK_ROUTE);
	ssize_t n;

	if (fd < 0)
		return errno;
	r->h.nlmsg_flags |= NLM_F_REQUEST | NLM_F_ACK;
	r->h.nlmsg_seq = 1;
	if (use_sendmsg) {
		struct iovec v = { .iov_base = r, .iov_len = r->h.nlmsg_len };
		struct msghdr m = { .msg_name = &k,
				    .msg_namelen = sizeof(k),
				    .msg_iov = &v,
				    .msg_iovlen = 1 };

		n = sendmsg(fd, &m, 0);
	} else {
		n = sendto(fd, r, r->h.nlmsg_len, 0, (struct sockaddr *)&k,
			   sizeof(k));
	}
	if (n < 0) {
		int e = errno;

		close(fd);
		return e;
	}
	n = recv(fd, buf, sizeof(buf), 0);
	close(fd);
	if (n < (ssize_t)NLMSG_LENGTH(sizeof(struct nlmsgerr)))
		return EIO;
	struct nlmsghdr *h = (struct nlmsghdr *)buf;

	if (h->nlmsg_type != NLMSG_ERROR)
		return EIO;
	return -((struct nlmsgerr *)NLMSG_DATA(h))->error;
}

static int rtnl_addr(void)
{
	struct req r = { 0 };
	struct ifaddrmsg *ifa = NLMSG_DATA(&r.h);
	struct in_addr a;

	r.h.nlmsg_len = NLMSG_LENGTH(sizeof(*ifa));
	r.h.nlmsg_type = RTM_NEWADDR;
	r.h.nlmsg_flags = NLM_F_CREATE | NLM_F_EXCL;
	ifa->ifa_family = AF_INET;
	ifa->ifa_prefixlen = 32;
	ifa->ifa_index = if_nametoindex("lo");
	inet_pton(AF_INET, "10.9.9.9", &a);
	add_attr(&r, IFA_LOCAL, &a, sizeof(a));
	add_attr(&r, IFA_ADDRESS, &a, sizeof(a));
	return rtnl_talk(&r, 0);
}

static int rtnl_link(void)
{
	struct req r = { 0 };
	struct ifinfomsg *ifi = NLMSG_DATA(&r.h);
	struct rtattr *li;
	const char *name = "jrprobe0", *kind = "dummy";

	r.h.nlmsg_len = NLMSG_LENGTH(sizeof(*ifi));
	r.h.nlmsg_type = RTM_NEWLINK;
	r.h.nlmsg_flags = NLM_F_CREATE | NLM_F_EXCL;
	add_attr(&r, IFLA_IFNAME, name, strlen(name) + 1);
	li = (struct rtattr *)((char *)&r + NLMSG_ALIGN(r.h.nlmsg_len));
	add_attr(&r, IFLA_LINKINFO, NULL, 0);
	add_attr(&r, IFLA_INFO_KIND, kind, strlen(kind));
	li->rta_len = (unsigned short)((char *)&r + r.h.nlmsg_len - (char *)li);
	return rtnl_talk(&r, 1);
}

static int rtnl_route(void)
{
	struct req r = { 0 };
	struct rtmsg *rt = NLMSG_DATA(&r.h);
	struct in_addr a;
	int oif = (int)if_nametoindex("lo");

	r.h.nlmsg_len = NLMSG_LENGTH(sizeof(*rt));
	r.h.nlmsg_type = RTM_NEWROUTE;
	r.h.nlmsg_flags = NLM_F_CREATE | NLM_F_EXCL;
	rt->rtm_family = AF_INET;
	rt->rtm_dst_len = 24;
	rt->rtm_table = RT_TABLE_MAIN;
	rt->rtm_protocol = RTPROT_BOOT;
	rt->rtm_scope = RT_SCOPE_LINK;
	rt->rtm_type = RTN_UNICAST;
	inet_pton(AF_INET, "10.9.9.0", &a);
	add_attr(&r, RTA_DST, &a, sizeof(a));
	add_attr(&r, RTA_OIF, &oif, sizeof(oif));
	return rtnl_talk(&r, 0);
}

static int rtnl_netns(void)
{
	struct req r = { 0 };
	struct ifinfomsg *ifi = NLMSG_DATA(&r.h);
	int ns = open("/proc/self/ns/net", O_RDONLY | O_CLOEXEC), e;

	if (ns < 0)
		return errno;
	r.h.nlmsg_len = NLMSG_LENGTH(sizeof(*ifi));
	r.h.nlmsg_type = RTM_NEWLINK;
	ifi->ifi_index = (int)if_nametoindex("lo");
	add_attr(&r, IFLA_NET_NS_FD, &ns, sizeof(ns));
	e = rtnl_talk(&r, 1);
	close(ns);
	return e;
}

/* A UDP datagram to 127.0.0.1:9 with one SOL_SOCKET control message. */
static int udp_cmsg(int type, int value)
{
	struct sockaddr_in to = { .sin_family = AF_INET,
				  .sin_port = htons(9),
				  .sin_addr.s_addr = htonl(INADDR_LOOPBACK) };
	union {
		char buf[CMSG_SPACE(sizeof(int))];
		struct cmsghdr align;
	} u;
	struct iovec v = { .iov_base = "x", .iov_len = 1 };
	struct msghdr m = { .msg_name = &to,
			    .msg_namelen = sizeof(to),
			    .msg_iov = &v,
			    .msg_iovlen = 1,
			    .msg_control = u.buf,
			    .msg_controllen = sizeof(u.buf) };
	struct cmsghdr *c;
	int fd = socket(AF_INET, SOCK_DGRAM | SOCK_CLOEXEC, 0), e = 0;

	if (fd < 0)
		return errno;
	memset(&u, 0, sizeof(u));
	c = CMSG_FIRSTHDR(&m);
	c->cmsg_level = SOL_SOCKET;
	c->cmsg_type = type;
	c->cmsg_len = CMSG_LEN(sizeof(int));
	memcpy(CMSG_DATA(c), &value, sizeof(value));
	if (sendmsg(fd, &m, 0) < 0)
		e = errno;
	close(fd);
	return e;
}

static int unix_connect(const char *path)
{
	struct sockaddr_un a = { .sun_family = AF_UNIX };
	int fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0), e = 0;

	if (fd < 0)
		return errno;
	if (strlen(path) >= sizeof(a.sun_path)) {
		close(fd);
		return ENAMETOOLONG;
	}
	strcpy(a.sun_path, path);
	if (connect(fd, (struct sockaddr *)&a, sizeof(a)) < 0)
		e = errno;
	close(fd);
	return e;
}

int main(int argc, char **argv)
{
	for (int i = 1; i < argc; i++) {
		const char *t = argv[i];
		int e;

		if (strcmp(t, "rtnl-addr") == 0)
			e = rtnl_addr();
		else if (strcmp(t, "rtnl-link") == 0)
			e = rtnl_link();
		else if (strcmp(t, "rtnl-route") == 0)
			e = rtnl_route();
		else if (strcmp(t, "rtnl-netns") == 0)
			e = rtnl_netns();
		else if (strcmp(t, "so-mark") == 0)
			e = udp_cmsg(SO_MARK, 42);
		else if (strcmp(t, "so-priority") == 0)
			e = udp_cmsg(SO_PRIORITY, 7);
		else if (strncmp(t, "connect:", 8) == 0)
			e = unix_connect(t + 8);
		else {
			fprintf(stderr, "behalf_probe: unknown test %s\n", t);
			return 2;
		}
		printf("%s %s\n", strncmp(t, "connect:", 8) ? t : "connect",
		       errname(e));
	}
	return 0;
}
