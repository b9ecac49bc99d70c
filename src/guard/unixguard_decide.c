// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * unixguard_decide.c - the unix socket guard's decisions: what is done
 * with a trapped call (run on behalf, checked by path, refused), which
 * control messages may pass, Landlock's TCP port rule for connects run on
 * behalf, and how unix_diag's device numbers compare with stat(2)'s.
 *
 * Theory of operation. Pure functions of what the supervisor saw on the
 * task's socket (SO_DOMAIN, SO_TYPE of the very file) and in its copies
 * of the task's memory (unixguard_parse.c). The call itself is then run by
 * the executor (unixguard_behalf.c) with the command's own credentials;
 * these rules decide what it is asked to run.
 */
#include <errno.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/sysmacros.h>
#include <arpa/inet.h>
#include <netinet/in.h>
#include <netinet/udp.h>

#include "unixguard_decide.h"

/* include/linux/in6.h: the shortest sockaddr_in6 tcp_v6_connect takes. */
#define JR_SIN6_LEN_RFC2133 24

enum jr_ug_action jr_unixguard_decide(enum jr_ug_call call, int domain,
				      int type, enum jr_ug_addr addr)
{
	if (call == JR_UG_OTHER)
		return JR_UG_REFUSE;
	/*
	 * Nothing is continued: CONTINUE has the kernel re-read the fd
	 * table and the task's memory, and a second thread could by then
	 * have dup2()ed an unconnected unix datagram socket over the fd
	 * number and written a host socket's path into the address. Any
	 * other family, and unix stream and seqpacket sockets (which ignore
	 * or refuse an address: unix_stream_sendmsg, unix_seqpacket_sendmsg),
	 * run on behalf with our copies on the socket we took; the kernel
	 * validates the address.
	 */
	if (domain != AF_UNIX)
		return JR_UG_ON_BEHALF;
	if (call == JR_UG_CONNECT) {
		if (addr == JR_UG_ADDR_PATH)
			return JR_UG_CHECK_PATH;
		if (addr == JR_UG_ADDR_INVALID)
			return JR_UG_REFUSE; /* EINVAL, as the kernel */
		return JR_UG_ON_BEHALF;
	}
	/* Sends: only a datagram socket goes where the address says. */
	if (type != SOCK_DGRAM)
		return JR_UG_ON_BEHALF;
	/* sendmmsg's addresses are not checked one by one: refused on a
	 * unix datagram socket, with or without one when we looked. */
	if (call == JR_UG_SENDMMSG)
		return JR_UG_REFUSE;
	if (addr == JR_UG_ADDR_PATH)
		return JR_UG_CHECK_PATH;
	if (addr == JR_UG_ADDR_INVALID)
		return JR_UG_REFUSE;
	return JR_UG_ON_BEHALF; /* none, unnamed, abstract, AF_UNSPEC */
}

int jr_unixguard_cmsg_check(int domain, int level, int type)
{
	if (level == SOL_SOCKET &&
	    (type == SCM_RIGHTS || type == SCM_CREDENTIALS)) {
		if (domain != AF_UNIX)
			return -EINVAL; /* __sock_cmsg_send() */
		/* SCM_CREDENTIALS names the sender's pid, which is the
		 * executor's, not the task's (scm_check_creds()): refused. */
		return type == SCM_RIGHTS ? 0 : -EPERM;
	}
	if (domain == AF_UNIX)
		return -EPERM;
	/*
	 * Only what the kernel checks against the socket, never against the
	 * sender. The executor holds exactly the command's rights, so a
	 * message checked against the sender would get the same answer; the
	 * list stays as a second wall. Refused: SO_MARK and SO_PRIORITY
	 * (CAP_NET_ADMIN: a mark could meet an nft rule), IP_RETOPTS and the
	 * IPv6 extension headers (CAP_NET_RAW).
	 */
	switch (level) {
	case SOL_SOCKET:
		return type == SO_TIMESTAMPING_OLD || type == SCM_TXTIME
			   ? 0
			   : -EPERM;
	case SOL_IP:
		return type == IP_PKTINFO || type == IP_TTL || type == IP_TOS
			   ? 0
			   : -EPERM;
	case SOL_IPV6:
		return type == IPV6_PKTINFO || type == IPV6_HOPLIMIT ||
			       type == IPV6_TCLASS || type == IPV6_DONTFRAG
			   ? 0
			   : -EPERM;
	case SOL_UDP:
		return type == UDP_SEGMENT ? 0 : -EPERM;
	default:
		return -EPERM;
	}
}

bool jr_unixguard_tcp_port_allowed(const uint16_t *ports, size_t n_ports,
				   int domain, int type, const void *sa,
				   size_t len)
{
	sa_family_t family;
	uint16_t port;

	/* security/landlock/net.c: only TCP sockets, only the port. */
	if ((domain != AF_INET && domain != AF_INET6) || type != SOCK_STREAM)
		return true;
	if (!sa || len < sizeof(family))
		return true; /* the kernel's EINVAL */
	memcpy(&family, sa, sizeof(family));
	if (family == AF_INET && len >= sizeof(struct sockaddr_in)) {
		struct sockaddr_in in;

		memcpy(&in, sa, sizeof(in));
		port = ntohs(in.sin_port);
	} else if (family == AF_INET6 && len >= JR_SIN6_LEN_RFC2133) {
		/* The kernel takes 24 bytes (no scope id) too. */
		memcpy(&port,
		       (const char *)sa +
			   offsetof(struct sockaddr_in6, sin6_port),
		       sizeof(port));
		port = ntohs(port);
	} else {
		return true; /* AF_UNSPEC, or what the kernel refuses */
	}
	for (size_t i = 0; i < n_ports; i++)
		if (ports[i] == port)
			return true;
	return false;
}

bool jr_unixguard_kdev_matches(unsigned int kdev, dev_t st_dev)
{
	/* include/linux/kdev_t.h: MINORBITS 20. */
	return (kdev >> 20) == major(st_dev) &&
	       (kdev & ((1U << 20) - 1)) == minor(st_dev);
}
