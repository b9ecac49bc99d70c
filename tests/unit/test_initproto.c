// SPDX-License-Identifier: GPL-2.0-or-later
/* Unit tests for initproto.c: framing, fd passing, CLOEXEC, EOF, junk. */
#include <errno.h>
#include <fcntl.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <unistd.h>
#include <cmocka.h>

#include "initproto.h"

static int sv[2];

static int setup(void **state)
{
	return socketpair(AF_UNIX, SOCK_SEQPACKET | SOCK_CLOEXEC, 0, sv);
}

static int teardown(void **state)
{
	close(sv[0]);
	close(sv[1]);
	return 0;
}

static void test_roundtrip(void **state)
{
	struct jr_initproto_msg m, got;

	jr_initproto_msg_init(&m, JR_INITPROTO_EXIT, 7, "status %d", 3);
	m.status = 0x300;
	assert_int_equal(jr_initproto_send(sv[0], &m, NULL, 0), 0);
	assert_int_equal(jr_initproto_recv(sv[1], &got, NULL, NULL), 0);
	assert_int_equal(got.type, JR_INITPROTO_EXIT);
	assert_int_equal(got.code, 7);
	assert_int_equal(got.status, 0x300);
	assert_string_equal(got.msg, "status 3");
}

/*
 * NFT_EARLY carries the first JR_INITPROTO_FDS_EARLY slots (the worker's
 * three netfilter sockets: nft, its monitor, NFLOG) and SETUP_OK the rest:
 * fails if the early message is out of the accepted type range, or the
 * slots stop being the prefix the runner's fds[] array and init's rely on.
 */
static void test_early_slots(void **state)
{
	struct jr_initproto_msg m, got;
	int p[2], early[3], fds[JR_INITPROTO_MAX_FDS];
	size_t nfds = JR_INITPROTO_FDS_EARLY;

	assert_int_equal(JR_INITPROTO_FD_NFT, 0);
	assert_int_equal(JR_INITPROTO_FD_NFT_MONITOR, 1);
	assert_int_equal(JR_INITPROTO_FD_NFLOG, 2);
	assert_int_equal(JR_INITPROTO_FDS_EARLY, 3);
	assert_true(JR_INITPROTO_FDS_NONE > JR_INITPROTO_FDS_EARLY);
	assert_int_equal(jr_initproto_setup_nfds(JR_NET_NONE, false, false),
			 JR_INITPROTO_FDS_NONE);
	assert_int_equal(pipe(p), 0);
	early[0] = p[0];
	early[1] = p[1];
	early[2] = p[0];
	jr_initproto_msg_init(&m, JR_INITPROTO_NFT_EARLY, 0, NULL);
	assert_int_equal(jr_initproto_send(sv[0], &m, early, 3), 0);
	assert_int_equal(jr_initproto_recv(sv[1], &got, fds, &nfds), 0);
	assert_int_equal(got.type, JR_INITPROTO_NFT_EARLY);
	assert_int_equal(nfds, JR_INITPROTO_FDS_EARLY);
	for (size_t i = 0; i < nfds; i++)
		close(fds[i]);
	/* SETUP_OK's span rides along, the clock init read. */
	jr_initproto_msg_init(&m, JR_INITPROTO_SETUP_OK, 0, NULL);
	m.span_us[0] = 11;
	m.span_us[1] = 22;
	assert_int_equal(jr_initproto_send(sv[0], &m, NULL, 0), 0);
	assert_int_equal(jr_initproto_recv(sv[1], &got, NULL, NULL), 0);
	assert_int_equal(got.span_us[0], 11);
	assert_int_equal(got.span_us[1], 22);
	close(p[0]);
	close(p[1]);
}

static void test_fd_passing_is_cloexec(void **state)
{
	struct jr_initproto_msg m, got;
	int p[2], fds[JR_INITPROTO_MAX_FDS];
	size_t nfds = JR_INITPROTO_MAX_FDS;
	struct stat a, b;

	assert_int_equal(pipe(p), 0); /* deliberately without O_CLOEXEC */
	jr_initproto_msg_init(&m, JR_INITPROTO_SETUP_OK, 0, NULL);
	assert_int_equal(jr_initproto_send(sv[0], &m, &p[0], 1), 0);
	assert_int_equal(jr_initproto_recv(sv[1], &got, fds, &nfds), 0);
	assert_int_equal(nfds, 1);
	assert_int_not_equal(fds[0], p[0]);
	assert_int_equal(fstat(fds[0], &a), 0);
	assert_int_equal(fstat(p[0], &b), 0);
	assert_int_equal(a.st_ino, b.st_ino);
	assert_true(fcntl(fds[0], F_GETFD) & FD_CLOEXEC);
	close(fds[0]);
	close(p[0]);
	close(p[1]);
}

static void test_unexpected_fds_are_closed(void **state)
{
	struct jr_initproto_msg m, got;
	int p[2], probe;

	assert_int_equal(pipe2(p, O_CLOEXEC), 0);
	jr_initproto_msg_init(&m, JR_INITPROTO_GO, 0, NULL);
	assert_int_equal(jr_initproto_send(sv[0], &m, p, 2), 0);
	assert_int_equal(jr_initproto_recv(sv[1], &got, NULL, NULL), 0);
	/* The two received fds would be the lowest free numbers: they must
	 * have been closed again, so the next open gets the same number. */
	probe = dup(p[0]);
	assert_true(probe >= 0);
	assert_true(probe < p[0] || probe == p[1] + 1);
	close(probe);
	close(p[0]);
	close(p[1]);
}

static void test_eof_and_junk(void **state)
{
	struct jr_initproto_msg got;
	char junk[5] = "abcd";

	assert_int_equal(send(sv[0], junk, sizeof(junk), 0),
			 (ssize_t)sizeof(junk));
	assert_int_equal(jr_initproto_recv(sv[1], &got, NULL, NULL), -EBADMSG);
	memset(&got, 0, sizeof(got));
	got.type = 999;
	assert_int_equal(send(sv[0], &got, sizeof(got), 0),
			 (ssize_t)sizeof(got));
	assert_int_equal(jr_initproto_recv(sv[1], &got, NULL, NULL), -EBADMSG);
	close(sv[0]);
	sv[0] = socket(AF_UNIX, SOCK_DGRAM | SOCK_CLOEXEC, 0);
	assert_int_equal(jr_initproto_recv(sv[1], &got, NULL, NULL), -EPIPE);
}

static void test_too_many_fds(void **state)
{
	struct jr_initproto_msg m;
	int fds[JR_INITPROTO_MAX_FDS + 1] = { 0 };

	jr_initproto_msg_init(&m, JR_INITPROTO_GO, 0, NULL);
	assert_int_equal(
	    jr_initproto_send(sv[0], &m, fds, JR_INITPROTO_MAX_FDS + 1),
	    -EINVAL);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(test_roundtrip, setup,
						teardown),
		cmocka_unit_test_setup_teardown(test_early_slots, setup,
						teardown),
		cmocka_unit_test_setup_teardown(test_fd_passing_is_cloexec,
						setup, teardown),
		cmocka_unit_test_setup_teardown(test_unexpected_fds_are_closed,
						setup, teardown),
		cmocka_unit_test_setup_teardown(test_eof_and_junk, setup,
						teardown),
		cmocka_unit_test_setup_teardown(test_too_many_fds, setup,
						teardown),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
