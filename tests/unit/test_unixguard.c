// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * Unit tests for the pure parts of unixguard.c: how a sockaddr given to
 * connect/sendto/sendmsg is read (as net/unix/af_unix.c reads it), the
 * decision table, and the kernel dev_t that unix_diag reports.
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
	/* Not unix: nothing a path could reach. */
	assert_int_equal(jr_unixguard_decide(JR_UG_CONNECT, AF_INET,
					     SOCK_STREAM, JR_UG_ADDR_INVALID),
			 JR_UG_CONTINUE);
	assert_int_equal(jr_unixguard_decide(JR_UG_SENDMSG, AF_INET6,
					     SOCK_DGRAM, JR_UG_ADDR_INVALID),
			 JR_UG_CONTINUE);
	assert_int_equal(jr_unixguard_decide(JR_UG_SENDMMSG, AF_NETLINK,
					     SOCK_RAW, JR_UG_ADDR_NONE),
			 JR_UG_CONTINUE);

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
		assert_int_equal(jr_unixguard_decide(c, AF_UNIX, SOCK_DGRAM,
						     JR_UG_ADDR_NONE),
				 JR_UG_CONTINUE);
		/* Stream and seqpacket ignore or refuse an address. */
		assert_int_equal(jr_unixguard_decide(c, AF_UNIX, SOCK_STREAM,
						     JR_UG_ADDR_PATH),
				 JR_UG_CONTINUE);
		assert_int_equal(jr_unixguard_decide(c, AF_UNIX, SOCK_SEQPACKET,
						     JR_UG_ADDR_PATH),
				 JR_UG_CONTINUE);
	}
	/* sendmmsg with an address on a unix datagram socket: refused. */
	assert_int_equal(jr_unixguard_decide(JR_UG_SENDMMSG, AF_UNIX,
					     SOCK_DGRAM, JR_UG_ADDR_PATH),
			 JR_UG_REFUSE);
	assert_int_equal(jr_unixguard_decide(JR_UG_SENDMMSG, AF_UNIX,
					     SOCK_DGRAM, JR_UG_ADDR_NONE),
			 JR_UG_CONTINUE);
	/* A call we cannot read (i386 socketcall): refused. */
	assert_int_equal(jr_unixguard_decide(JR_UG_OTHER, AF_UNIX, SOCK_STREAM,
					     JR_UG_ADDR_PATH),
			 JR_UG_REFUSE);
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

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_parse_addr),
		cmocka_unit_test(test_decide),
		cmocka_unit_test(test_kdev),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
