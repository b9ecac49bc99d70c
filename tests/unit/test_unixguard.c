// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * Unit tests for the pure parts of the unix socket guard: how a sockaddr
 * given to connect/sendto/sendmsg is read (as net/unix/af_unix.c reads it),
 * the msghdr layouts and the control-message walk (unixguard_parse.c), the
 * decision table, and the kernel dev_t that unix_diag reports
 * (unixguard_decide.c).
 */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/sysmacros.h>
#include <sys/un.h>
#include <arpa/inet.h>
#include <netinet/in.h>
#include <netinet/udp.h>
#include <cmocka.h>

#include "unixguard.h"

#define OFF offsetof(struct sockaddr_un, sun_path)

static enum jr_ug_addr parse(const struct sockaddr_un *sa, size_t len,
			     char *path)
{
	return jr_unixguard_parse_addr(sa, len, path);
}

/* A parser that let a path through as abstract or unnamed would have the
 * supervisor run a host connect on the task's behalf unchecked. */
static void test_parse_addr(void **state)
{
	char path[sizeof(((struct sockaddr_un *)0)->sun_path) + 1];
	struct sockaddr_un sa;

	(void)state;
	assert_int_equal(parse(NULL, 0, path), JR_UG_ADDR_NONE);
	memset(&sa, 0, sizeof(sa));
	assert_int_equal(parse(&sa, 0, path), JR_UG_ADDR_NONE);

	sa.sun_family = AF_UNIX;
	strcpy(sa.sun_path, "/run/x.sock");
	assert_int_equal(parse(&sa, sizeof(sa), path), JR_UG_ADDR_PATH);
	assert_string_equal(path, "/run/x.sock");
	/* The length bounds the path: no NUL needed (unix_mkname_bsd). */
	assert_int_equal(parse(&sa, OFF + 4, path), JR_UG_ADDR_PATH);
	assert_string_equal(path, "/run");
	/* A path filling sun_path completely, unterminated. */
	memset(sa.sun_path, 'a', sizeof(sa.sun_path));
	assert_int_equal(parse(&sa, sizeof(sa), path), JR_UG_ADDR_PATH);
	assert_int_equal(strlen(path), sizeof(sa.sun_path));
	/* Relative paths are paths too. */
	strcpy(sa.sun_path, "x.sock");
	assert_int_equal(parse(&sa, OFF + 7, path), JR_UG_ADDR_PATH);
	assert_string_equal(path, "x.sock");

	/* Abstract: a leading NUL, whatever follows. */
	memset(sa.sun_path, 0, sizeof(sa.sun_path));
	strcpy(sa.sun_path + 1, "/run/x.sock");
	assert_int_equal(parse(&sa, OFF + 12, path), JR_UG_ADDR_ABSTRACT);
	assert_int_equal(parse(&sa, OFF + 1, path), JR_UG_ADDR_ABSTRACT);
	/* Only the family: unnamed (autobind). */
	assert_int_equal(parse(&sa, OFF, path), JR_UG_ADDR_UNNAMED);

	sa.sun_family = AF_UNSPEC;
	assert_int_equal(parse(&sa, sizeof(sa), path), JR_UG_ADDR_UNSPEC);
	sa.sun_family = AF_INET;
	assert_int_equal(parse(&sa, sizeof(sa), path), JR_UG_ADDR_INVALID);
	sa.sun_family = AF_UNIX;
	/* Too short for a family, too long for a sockaddr_un. */
	assert_int_equal(parse(&sa, 1, path), JR_UG_ADDR_INVALID);
	assert_int_equal(parse(&sa, sizeof(sa) + 1, path), JR_UG_ADDR_INVALID);
}

/* The table: a path is always checked, nothing unix is passed on with
 * CONTINUE except what the kernel itself ignores or refuses. */
static void test_decide(void **state)
{
	static const enum jr_ug_call sends[] = { JR_UG_SENDTO, JR_UG_SENDMSG };

	(void)state;
	/* A connect is never continued, whatever the family: CONTINUE lets
	 * the kernel re-read the fd and the address, which another thread
	 * may have made a unix socket and a path meanwhile. */
	assert_int_equal(jr_unixguard_decide(JR_UG_CONNECT, AF_INET,
					     SOCK_STREAM, JR_UG_ADDR_INVALID),
			 JR_UG_ON_BEHALF);
	assert_int_equal(jr_unixguard_decide(JR_UG_CONNECT, AF_INET6,
					     SOCK_DGRAM, JR_UG_ADDR_UNSPEC),
			 JR_UG_ON_BEHALF);
	assert_int_equal(jr_unixguard_decide(JR_UG_CONNECT, AF_INET,
					     SOCK_STREAM, JR_UG_ADDR_NONE),
			 JR_UG_ON_BEHALF);
	/* Even an address that reads as a unix path: the socket we took
	 * decides, and the kernel refuses the mismatch when we run it. */
	assert_int_equal(jr_unixguard_decide(JR_UG_CONNECT, AF_NETLINK,
					     SOCK_RAW, JR_UG_ADDR_PATH),
			 JR_UG_ON_BEHALF);
	/* Sends on other families: run on behalf on the socket we took,
	 * so an unconnected unix datagram socket dup2()ed over the fd
	 * number after our look is never the one that sends (the fd-swap
	 * race), even with an address that reads as a unix path. */
	assert_int_equal(jr_unixguard_decide(JR_UG_SENDTO, AF_INET, SOCK_DGRAM,
					     JR_UG_ADDR_INVALID),
			 JR_UG_ON_BEHALF);
	assert_int_equal(jr_unixguard_decide(JR_UG_SENDTO, AF_INET, SOCK_DGRAM,
					     JR_UG_ADDR_PATH),
			 JR_UG_ON_BEHALF);
	assert_int_equal(jr_unixguard_decide(JR_UG_SENDMSG, AF_INET6,
					     SOCK_DGRAM, JR_UG_ADDR_INVALID),
			 JR_UG_ON_BEHALF);
	assert_int_equal(jr_unixguard_decide(JR_UG_SENDMSG, AF_INET,
					     SOCK_STREAM, JR_UG_ADDR_NONE),
			 JR_UG_ON_BEHALF);
	assert_int_equal(jr_unixguard_decide(JR_UG_SENDMMSG, AF_NETLINK,
					     SOCK_RAW, JR_UG_ADDR_NONE),
			 JR_UG_ON_BEHALF);
	assert_int_equal(jr_unixguard_decide(JR_UG_SENDMMSG, AF_INET,
					     SOCK_DGRAM, JR_UG_ADDR_NONE),
			 JR_UG_ON_BEHALF);

	/* connect on unix: a path is checked; the rest is run on behalf
	 * with our copy, a bad address refused as the kernel would. */
	for (int t = SOCK_STREAM; t <= SOCK_SEQPACKET; t++) {
		assert_int_equal(jr_unixguard_decide(JR_UG_CONNECT, AF_UNIX, t,
						     JR_UG_ADDR_PATH),
				 JR_UG_CHECK_PATH);
		assert_int_equal(jr_unixguard_decide(JR_UG_CONNECT, AF_UNIX, t,
						     JR_UG_ADDR_ABSTRACT),
				 JR_UG_ON_BEHALF);
		assert_int_equal(jr_unixguard_decide(JR_UG_CONNECT, AF_UNIX, t,
						     JR_UG_ADDR_UNSPEC),
				 JR_UG_ON_BEHALF);
		assert_int_equal(jr_unixguard_decide(JR_UG_CONNECT, AF_UNIX, t,
						     JR_UG_ADDR_INVALID),
				 JR_UG_REFUSE);
	}

	for (size_t i = 0; i < 2; i++) {
		enum jr_ug_call c = sends[i];

		/* Datagram: the address decides where it goes. */
		assert_int_equal(jr_unixguard_decide(c, AF_UNIX, SOCK_DGRAM,
						     JR_UG_ADDR_PATH),
				 JR_UG_CHECK_PATH);
		assert_int_equal(jr_unixguard_decide(c, AF_UNIX, SOCK_DGRAM,
						     JR_UG_ADDR_ABSTRACT),
				 JR_UG_ON_BEHALF);
		/* No address: run on behalf with none (a msghdr's length
		 * is in the task's memory: the send race). */
		assert_int_equal(jr_unixguard_decide(c, AF_UNIX, SOCK_DGRAM,
						     JR_UG_ADDR_NONE),
				 JR_UG_ON_BEHALF);
		/* Stream and seqpacket ignore or refuse an address, so it is
		 * not checked, but the send still runs on the socket we took
		 * (a datagram socket swapped in would use the address). */
		assert_int_equal(jr_unixguard_decide(c, AF_UNIX, SOCK_STREAM,
						     JR_UG_ADDR_PATH),
				 JR_UG_ON_BEHALF);
		assert_int_equal(jr_unixguard_decide(c, AF_UNIX, SOCK_SEQPACKET,
						     JR_UG_ADDR_PATH),
				 JR_UG_ON_BEHALF);
	}
	/* sendmmsg with an address on a unix datagram socket: refused. */
	assert_int_equal(jr_unixguard_decide(JR_UG_SENDMMSG, AF_UNIX,
					     SOCK_DGRAM, JR_UG_ADDR_PATH),
			 JR_UG_REFUSE);
	/* Without one too: its addresses could be filled in after our look,
	 * and it is not run on behalf. */
	assert_int_equal(jr_unixguard_decide(JR_UG_SENDMMSG, AF_UNIX,
					     SOCK_DGRAM, JR_UG_ADDR_NONE),
			 JR_UG_REFUSE);
	/* A call we cannot read (i386 socketcall): refused. */
	assert_int_equal(jr_unixguard_decide(JR_UG_OTHER, AF_UNIX, SOCK_STREAM,
					     JR_UG_ADDR_PATH),
			 JR_UG_REFUSE);
}

/* Control data of a send run on behalf: the runner's capabilities over
 * the sandbox's user namespace must not lend themselves to the command
 * (SO_MARK could meet an nft rule), and descriptors or credentials pass
 * only where the kernel takes them. A check that let everything through
 * fails the refusals; one that refused everything fails fd passing and
 * IP_PKTINFO. */
static void test_cmsg_check(void **state)
{
	(void)state;
	assert_int_equal(
	    jr_unixguard_cmsg_check(AF_UNIX, SOL_SOCKET, SCM_RIGHTS), 0);
	assert_int_equal(
	    jr_unixguard_cmsg_check(AF_UNIX, SOL_SOCKET, SCM_CREDENTIALS),
	    -EPERM);
	assert_int_equal(jr_unixguard_cmsg_check(AF_UNIX, SOL_IP, IP_TTL),
			 -EPERM);
	/* The kernel's own answer on other families. */
	assert_int_equal(
	    jr_unixguard_cmsg_check(AF_INET, SOL_SOCKET, SCM_RIGHTS), -EINVAL);
	assert_int_equal(
	    jr_unixguard_cmsg_check(AF_INET6, SOL_SOCKET, SCM_CREDENTIALS),
	    -EINVAL);
	assert_int_equal(
	    jr_unixguard_cmsg_check(AF_NETLINK, SOL_SOCKET, SCM_CREDENTIALS),
	    -EINVAL);
	assert_int_equal(jr_unixguard_cmsg_check(AF_INET, SOL_SOCKET, SO_MARK),
			 -EPERM);
	assert_int_equal(
	    jr_unixguard_cmsg_check(AF_INET, SOL_SOCKET, SO_PRIORITY), -EPERM);
	assert_int_equal(jr_unixguard_cmsg_check(AF_INET, SOL_IP, IP_RETOPTS),
			 -EPERM);
	assert_int_equal(
	    jr_unixguard_cmsg_check(AF_INET6, SOL_IPV6, IPV6_HOPOPTS), -EPERM);
	assert_int_equal(
	    jr_unixguard_cmsg_check(AF_INET6, SOL_IPV6, IPV6_RTHDR), -EPERM);
	assert_int_equal(jr_unixguard_cmsg_check(AF_INET, SOL_IP, IP_PKTINFO),
			 0);
	assert_int_equal(jr_unixguard_cmsg_check(AF_INET, SOL_IP, IP_TTL), 0);
	assert_int_equal(
	    jr_unixguard_cmsg_check(AF_INET6, SOL_IPV6, IPV6_PKTINFO), 0);
	assert_int_equal(
	    jr_unixguard_cmsg_check(AF_INET6, SOL_IPV6, IPV6_TCLASS), 0);
	assert_int_equal(jr_unixguard_cmsg_check(AF_INET, SOL_UDP, UDP_SEGMENT),
			 0);
	assert_int_equal(jr_unixguard_cmsg_check(AF_INET, 12345, 1), -EPERM);
}

static bool tcp_ok(int domain, int type, const void *sa, size_t len)
{
	static const uint16_t ports[] = { 8080, 53 };

	return jr_unixguard_tcp_port_allowed(ports, 2, domain, type, sa, len);
}

/* Landlock's TCP connect rule, for connects run on behalf: a check that
 * let every port through would have the supervisor open what Landlock
 * closes (tests/integration/landlock.sh sees that end to end); one that
 * refused too much would break AF_UNSPEC disconnects or UDP. */
static void test_tcp_port(void **state)
{
	struct sockaddr_in in = { .sin_family = AF_INET };
	struct sockaddr_in6 in6 = { .sin6_family = AF_INET6 };
	struct sockaddr un = { .sa_family = AF_UNSPEC };

	(void)state;
	in.sin_port = htons(8080);
	assert_true(tcp_ok(AF_INET, SOCK_STREAM, &in, sizeof(in)));
	in.sin_port = htons(53);
	assert_true(tcp_ok(AF_INET, SOCK_STREAM, &in, sizeof(in)));
	in.sin_port = htons(22);
	assert_false(tcp_ok(AF_INET, SOCK_STREAM, &in, sizeof(in)));
	/* The port is in network order: 8080 byte-swapped is not 8080. */
	in.sin_port = 8080;
	assert_false(tcp_ok(AF_INET, SOCK_STREAM, &in, sizeof(in)));
	/* A longer length (sizeof(sockaddr_storage)) changes nothing. */
	in.sin_port = htons(22);
	{
		struct sockaddr_storage ss;

		memset(&ss, 0, sizeof(ss));
		memcpy(&ss, &in, sizeof(in));
		assert_false(tcp_ok(AF_INET, SOCK_STREAM, &ss, sizeof(ss)));
	}
	/* Too short: the kernel's EINVAL, not ours. */
	assert_true(tcp_ok(AF_INET, SOCK_STREAM, &in, sizeof(in) - 1));
	assert_true(tcp_ok(AF_INET, SOCK_STREAM, &in, 1));
	assert_true(tcp_ok(AF_INET, SOCK_STREAM, NULL, 0));

	in6.sin6_port = htons(8080);
	assert_true(tcp_ok(AF_INET6, SOCK_STREAM, &in6, sizeof(in6)));
	in6.sin6_port = htons(443);
	assert_false(tcp_ok(AF_INET6, SOCK_STREAM, &in6, sizeof(in6)));
	/* The kernel takes an RFC 2133 sockaddr_in6 (24 bytes): so do we. */
	assert_false(tcp_ok(AF_INET6, SOCK_STREAM, &in6, 24));
	assert_true(tcp_ok(AF_INET6, SOCK_STREAM, &in6, 23));
	/* An AF_INET address on an AF_INET6 socket: judged by its port. */
	assert_false(tcp_ok(AF_INET6, SOCK_STREAM, &in, sizeof(in)));

	/* AF_UNSPEC: a disconnect, which Landlock allows. */
	assert_true(tcp_ok(AF_INET, SOCK_STREAM, &un, sizeof(un)));
	/* Not TCP: UDP, unix, netlink are not Landlock's TCP rule. */
	assert_true(tcp_ok(AF_INET, SOCK_DGRAM, &in, sizeof(in)));
	assert_true(tcp_ok(AF_INET6, SOCK_DGRAM, &in6, sizeof(in6)));
	assert_true(tcp_ok(AF_UNIX, SOCK_STREAM, &in, sizeof(in)));
	/* No port at all allowed. */
	in.sin_port = htons(8080);
	assert_false(jr_unixguard_tcp_port_allowed(
	    NULL, 0, AF_INET, SOCK_STREAM, &in, sizeof(in)));
}

/* unix_diag reports sb->s_dev, the kernel's MAJOR << 20 | MINOR; stat
 * reports the userspace encoding. A mismatch would refuse every socket
 * made inside on a device with a large minor (or allow a wrong one). */
static void test_kdev(void **state)
{
	(void)state;
	assert_true(
	    jr_unixguard_kdev_matches((254U << 20) | 0U, makedev(254, 0)));
	assert_true(
	    jr_unixguard_kdev_matches((0U << 20) | 27U, makedev(0, 27)));
	assert_true(
	    jr_unixguard_kdev_matches((8U << 20) | 300U, makedev(8, 300)));
	assert_false(jr_unixguard_kdev_matches((8U << 20) | 1U, makedev(8, 2)));
	assert_false(jr_unixguard_kdev_matches((9U << 20) | 1U, makedev(8, 1)));
}

/* Put one control message header at @at of @buf. */
static void put_cmsg(char *buf, size_t at, size_t len, int level, int type)
{
	struct cmsghdr c = { .cmsg_len = len,
			     .cmsg_level = level,
			     .cmsg_type = type };

	memcpy(buf + at, &c, sizeof(c));
}

/* The heap overflow of issue 21: a cmsg_len that reaches past the
 * buffer had the guard read and write beyond its copy. The walk must
 * refuse it (EINVAL, the kernel's CMSG_OK), and never hand out a data
 * range outside the buffer. */
static void test_cmsg_walk(void **state)
{
	union {
		char buf[CMSG_SPACE(2 * sizeof(int)) + CMSG_SPACE(sizeof(int))];
		struct cmsghdr align;
	} u;
	struct jr_ug_cmsg c;
	size_t pos = 0;
	int fds[3] = { 7, 8, 9 }, got[3];

	(void)state;
	memset(&u, 0, sizeof(u));
	put_cmsg(u.buf, 0, CMSG_LEN(2 * sizeof(int)), SOL_SOCKET, SCM_RIGHTS);
	put_cmsg(u.buf, CMSG_SPACE(2 * sizeof(int)), CMSG_LEN(sizeof(int)),
		 SOL_SOCKET, SCM_RIGHTS);
	assert_int_equal(jr_ug_cmsg_next(u.buf, sizeof(u.buf), &pos, &c), 1);
	assert_int_equal(c.data_off, CMSG_LEN(0));
	assert_int_equal(c.data_len, 2 * sizeof(int));
	assert_int_equal(jr_ug_cmsg_next(u.buf, sizeof(u.buf), &pos, &c), 1);
	assert_int_equal(c.data_len, sizeof(int));
	assert_int_equal(jr_ug_cmsg_next(u.buf, sizeof(u.buf), &pos, &c), 0);
	assert_int_equal(jr_ug_rights_count(u.buf, sizeof(u.buf)), 3);
	assert_int_equal(jr_ug_rights_rewrite(u.buf, sizeof(u.buf), fds, 3), 0);
	memcpy(got, u.buf + CMSG_LEN(0), 2 * sizeof(int));
	memcpy(got + 2, u.buf + CMSG_SPACE(2 * sizeof(int)) + CMSG_LEN(0),
	       sizeof(int));
	assert_memory_equal(got, fds, sizeof(fds));
	/* Too few or too many descriptors for the messages: refused. */
	assert_int_equal(jr_ug_rights_rewrite(u.buf, sizeof(u.buf), fds, 2),
			 -EINVAL);

	/* A length past the end of the buffer (the reproducer). */
	put_cmsg(u.buf, 0, 4096, SOL_SOCKET, SCM_RIGHTS);
	pos = 0;
	assert_int_equal(jr_ug_cmsg_next(u.buf, sizeof(u.buf), &pos, &c),
			 -EINVAL);
	assert_int_equal(jr_ug_rights_count(u.buf, sizeof(u.buf)), -EINVAL);
	assert_int_equal(jr_ug_rights_rewrite(u.buf, sizeof(u.buf), fds, 3),
			 -EINVAL);
	/* The second one reaching past the end, by one byte. */
	put_cmsg(u.buf, 0, CMSG_LEN(2 * sizeof(int)), SOL_SOCKET, SCM_RIGHTS);
	put_cmsg(u.buf, CMSG_SPACE(2 * sizeof(int)),
		 sizeof(u.buf) - CMSG_SPACE(2 * sizeof(int)) + 1, SOL_SOCKET,
		 SCM_RIGHTS);
	assert_int_equal(jr_ug_rights_count(u.buf, sizeof(u.buf)), -EINVAL);
	/* Shorter than a header. */
	put_cmsg(u.buf, 0, sizeof(struct cmsghdr) - 1, SOL_SOCKET, SCM_RIGHTS);
	pos = 0;
	assert_int_equal(jr_ug_cmsg_next(u.buf, sizeof(u.buf), &pos, &c),
			 -EINVAL);
	/* Fewer bytes left than a header: the end, as CMSG_NXTHDR. */
	pos = 0;
	assert_int_equal(
	    jr_ug_cmsg_next(u.buf, sizeof(struct cmsghdr) - 1, &pos, &c), 0);
	assert_int_equal(jr_ug_rights_count(u.buf, 0), 0);
}

/* Both msghdr layouts read the same fields. */
static void test_msghdr_decode(void **state)
{
	uint32_t compat[7] = { 0x1000, 16, 0x2000, 3, 0x3000, 24, 0 };
	struct msghdr m = { .msg_name = (void *)0x10,
			    .msg_namelen = 110,
			    .msg_iov = (void *)0x20,
			    .msg_iovlen = 2,
			    .msg_control = (void *)0x30,
			    .msg_controllen = 48 };
	struct jr_ug_msghdr h;

	(void)state;
	assert_int_equal(jr_ug_msghdr_size(true), 28);
	jr_ug_msghdr_decode(compat, true, &h);
	assert_int_equal(h.name, 0x1000);
	assert_int_equal(h.namelen, 16);
	assert_int_equal(h.iov, 0x2000);
	assert_int_equal(h.iovlen, 3);
	assert_int_equal(h.control, 0x3000);
	assert_int_equal(h.controllen, 24);
	jr_ug_msghdr_decode(&m, false, &h);
	assert_int_equal(h.name, 0x10);
	assert_int_equal(h.namelen, 110);
	assert_int_equal(h.iovlen, 2);
	assert_int_equal(h.control, 0x30);
	assert_int_equal(h.controllen, 48);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_parse_addr),
		cmocka_unit_test(test_decide),
		cmocka_unit_test(test_cmsg_check),
		cmocka_unit_test(test_tcp_port),
		cmocka_unit_test(test_kdev),
		cmocka_unit_test(test_cmsg_walk),
		cmocka_unit_test(test_msghdr_decode),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
