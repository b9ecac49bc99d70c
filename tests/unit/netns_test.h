/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * netns_test.h - for unit tests that need a network namespace of their
 * own (test_localaddr, test_link): as root one is unshared directly,
 * otherwise a user namespace mapping the caller comes with it. Where
 * neither can be made, the test skips (exit 77), or fails when
 * JAILRUN_TEST_MUST_WORK=1, as CI sets it.
 */
#ifndef JR_TESTS_NETNS_TEST_H
#define JR_TESTS_NETNS_TEST_H

#include <errno.h>
#include <fcntl.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/* Exit 77, or 1 when JAILRUN_TEST_MUST_WORK=1 (a skip is then a failure). */
static inline void skip_test(const char *why)
{
	const char *must = getenv("JAILRUN_TEST_MUST_WORK");

	if (must && strcmp(must, "1") == 0) {
		fprintf(stderr, "FAIL (JAILRUN_TEST_MUST_WORK=1): %s\n", why);
		exit(1);
	}
	fprintf(stderr, "SKIP: %s\n", why);
	exit(77);
}

static inline int write_file(const char *path, const char *text)
{
	int fd = open(path, O_WRONLY | O_CLOEXEC);
	ssize_t n;

	if (fd < 0)
		return -errno;
	n = write(fd, text, strlen(text));
	close(fd);
	return n == (ssize_t)strlen(text) ? 0 : -EIO;
}

/* A private network namespace (and user namespace if need be), or 77. */
static inline void enter_private_netns(void)
{
	uid_t uid = getuid();
	gid_t gid = getgid();
	char map[64];

	if (unshare(CLONE_NEWNET) == 0)
		return;
	if (unshare(CLONE_NEWUSER | CLONE_NEWNET) < 0)
		skip_test("cannot make a user and network namespace");
	snprintf(map, sizeof(map), "0 %u 1", (unsigned)uid);
	if (write_file("/proc/self/uid_map", map) < 0 ||
	    write_file("/proc/self/setgroups", "deny") < 0)
		skip_test("cannot map ids in the user namespace");
	snprintf(map, sizeof(map), "0 %u 1", (unsigned)gid);
	if (write_file("/proc/self/gid_map", map) < 0)
		skip_test("cannot map ids in the user namespace");
}

#endif
