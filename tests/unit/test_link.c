// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * test_link.c - link.c's batched link set-up against the real kernel.
 *
 * The test moves itself into a new network namespace (and, without
 * CAP_SYS_ADMIN, a new user namespace that maps the caller to root), and
 * each case into a fresh one of its own, so nothing it creates touches the
 * machine's network; it exits 77 (skipped) if it cannot.
 *
 * What each case would catch:
 * - both_ends: the relaynet topology (a veth with its peer in another
 *   netns, one socket per netns): a request of the batch not sent or not
 *   acted on (checked with the kernel's own views, /proc and ioctls, not
 *   with link.c's read-back), a socket that does not stay in its netns;
 * - first_failure_named: a failed request answered 0 (acks ignored: fail
 *   open), or an error put on the wrong step (an ack matched to the wrong
 *   request), or a failure on a later step reported first;
 * - ipv6_hint: the IPv6 address step's failure keeps its hint;
 * - missing_link: a link that is not there is an error naming it;
 * - lo_up: jr_link_lo_up()'s one request is sent and acted on.
 */
#include <arpa/inet.h>
#include <errno.h>
#include <fcntl.h>
#include <linux/if_addr.h>
#include <net/if.h>
#include <sched.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/socket.h>
#include <unistd.h>

#include <cmocka.h>

#include "cleanup.h"
#include "netns_test.h"
#include "err.h"
#include "link.h"

/* Each case in a netns of its own. */
static int fresh_netns(void **state)
{
	(void)state;
	if (unshare(CLONE_NEWNET) < 0)
		fail_msg("unshare(CLONE_NEWNET): %s", strerror(errno));
	return 0;
}

/* Is @ifname up in the current netns (asked with an ioctl)? */
static bool is_up(const char *ifname)
{
	_cleanup_close_ int fd = socket(AF_INET, SOCK_DGRAM | SOCK_CLOEXEC, 0);
	struct ifreq ifr = { 0 };

	assert_true(fd >= 0);
	snprintf(ifr.ifr_name, sizeof(ifr.ifr_name), "%s", ifname);
	return ioctl(fd, SIOCGIFFLAGS, &ifr) == 0 && (ifr.ifr_flags & IFF_UP);
}

/* Does /proc/self/net/@file have a line holding every one of @words? */
static bool proc_net_has(const char *file, const char *w1, const char *w2,
			 const char *w3)
{
	char path[64], line[512];
	FILE *f;
	bool found = false;

	snprintf(path, sizeof(path), "/proc/self/net/%s", file);
	f = fopen(path, "re");
	assert_non_null(f);
	while (!found && fgets(line, sizeof(line), f))
		found = strstr(line, w1) && (!w2 || strstr(line, w2)) &&
			(!w3 || strstr(line, w3));
	fclose(f);
	return found;
}

/* @hex's IFA_F_* flags on @ifname in /proc/self/net/if_inet6, with 0x100
 * added when its prefix is /64; -1 when it is not there. */
static int inet6_flags(const char *hex, const char *ifname)
{
	FILE *f = fopen("/proc/self/net/if_inet6", "re");
	char addr[33], name[IFNAMSIZ + 1];
	unsigned int idx, plen, scope, flags;
	int got = -1;

	assert_non_null(f);
	while (got < 0 && fscanf(f, "%32s %x %x %x %x %16s", addr, &idx, &plen,
				 &scope, &flags, name) == 6)
		if (!strcmp(addr, hex) && !strcmp(name, ifname))
			got = (int)flags | (plen == 64 ? 0x100 : 0);
	fclose(f);
	return got;
}

static void test_both_ends(void **state)
{
	struct nl_sock *wsk = NULL, *rsk = NULL;
	struct jr_err err = { 0 };
	struct in6_addr r6, w6;
	const bool v6 = jr_link_ipv6_available();
	struct jr_link_plan relay = { .ifname = "jr-relay",
				      .created_up = true,
				      .lo_too = true };
	struct jr_link_plan worker = { .ifname = "eth0" };
	_cleanup_close_ int worker_ns = -1;
	int r;

	(void)state;
	assert_int_equal(inet_pton(AF_INET, "100.64.77.1", &relay.addr), 1);
	assert_int_equal(inet_pton(AF_INET, "100.64.77.2", &worker.addr), 1);
	assert_int_equal(inet_pton(AF_INET6, "fd6a:7272:6970:1::1", &r6), 1);
	assert_int_equal(inet_pton(AF_INET6, "fd6a:7272:6970:1::2", &w6), 1);
	relay.prefix = worker.prefix = 30;
	relay.prefix6 = worker.prefix6 = 64;
	worker.gw = &relay.addr;
	if (v6) {
		relay.addr6 = &r6;
		worker.addr6 = &w6;
		worker.gw6 = &r6;
	}
	worker_ns = open("/proc/self/ns/net", O_RDONLY | O_CLOEXEC);
	assert_true(worker_ns >= 0);
	r = jr_link_open(&wsk, &err);
	assert_int_equal(r, 0);
	assert_int_equal(unshare(CLONE_NEWNET), 0); /* the relay's */
	r = jr_link_open(&rsk, &err);
	assert_int_equal(r, 0);
	r = jr_link_create_veth(rsk, "jr-relay", "eth0", worker_ns, &err);
	if (r == 0)
		r = jr_link_setup(rsk, &relay, &err);
	if (r == 0)
		r = jr_link_setup(wsk, &worker, &err);
	if (r < 0)
		fail_msg("%s", err.msg);

	/* The relay netns, as the kernel shows it. */
	assert_true(is_up("lo"));
	assert_true(is_up("jr-relay"));
	assert_int_equal(if_nametoindex("eth0"), 0); /* the peer went over */
	/* Its /30, and no default route (that is the worker's). */
	assert_true(
	    proc_net_has("route", "jr-relay\t004D4064", "FCFFFFFF", NULL));
	assert_false(proc_net_has("route", "jr-relay\t00000000", NULL, NULL));
	if (v6)
		assert_int_equal(inet6_flags("fd6a7272697000010000000000000001",
					     "jr-relay") &
				     (0x100 | IFA_F_TENTATIVE),
				 0x100);
	/* The worker netns. */
	assert_int_equal(setns(worker_ns, CLONE_NEWNET), 0);
	assert_true(is_up("eth0"));
	/* Default route via 100.64.77.1 (little-endian hex in /proc). */
	assert_true(
	    proc_net_has("route", "eth0\t00000000\t014D4064", NULL, NULL));
	if (v6) {
		/* Present, /64, not tentative. */
		assert_int_equal(
		    inet6_flags("fd6a7272697000010000000000000002", "eth0") &
			(0x100 | IFA_F_TENTATIVE),
		    0x100);
		/* ::/0 via fd6a:7272:6970:1::1 */
		assert_true(proc_net_has(
		    "ipv6_route", "00000000000000000000000000000000 00",
		    "fd6a7272697000010000000000000001", "eth0"));
	}
	jr_link_close(rsk);
	jr_link_close(wsk);
}

/* A veth pair a0/a1 here, a0 configured by @p; returns its error. */
static int setup_here(const struct jr_link_plan *p, struct jr_err *err)
{
	_cleanup_close_ int ns =
	    open("/proc/self/ns/net", O_RDONLY | O_CLOEXEC);
	struct nl_sock *sk = NULL;
	int r;

	assert_true(ns >= 0);
	assert_int_equal(jr_link_open(&sk, err), 0);
	r = jr_link_create_veth(sk, "a0", "a1", ns, err);
	assert_int_equal(r, 0);
	r = jr_link_setup(sk, p, err);
	jr_link_close(sk);
	return r;
}

static void test_first_failure_named(void **state)
{
	struct jr_err err = { 0 };
	struct in_addr gw;
	struct in6_addr a6, gw6;
	struct jr_link_plan p = { .ifname = "a0", .prefix = 30 };

	(void)state;
	assert_int_equal(inet_pton(AF_INET, "192.0.2.1", &p.addr), 1);
	/* Off the /30: the kernel refuses the route (no such network). */
	assert_int_equal(inet_pton(AF_INET, "198.51.100.1", &gw), 1);
	p.gw = &gw;
	if (jr_link_ipv6_available()) {
		/* Also off-link: a later failure that must not be the one
		 * reported. */
		assert_int_equal(inet_pton(AF_INET6, "2001:db8:1::1", &a6), 1);
		assert_int_equal(inet_pton(AF_INET6, "2001:db8:9::1", &gw6), 1);
		p.addr6 = &a6;
		p.prefix6 = 64;
		p.gw6 = &gw6;
	}
	assert_true(setup_here(&p, &err) < 0);
	if (strncmp(err.msg, "cannot add the default route: ", 30) != 0)
		fail_msg("wrong step named: %s", err.msg);
	/* The steps before it were done. */
	assert_true(is_up("a0"));
}

static void test_ipv6_hint(void **state)
{
	struct jr_err err = { 0 };
	struct in6_addr a6;
	struct jr_link_plan p = { .ifname = "a0", .prefix = 24 };

	(void)state;
	if (!jr_link_ipv6_available())
		skip();
	assert_int_equal(inet_pton(AF_INET, "192.0.2.1", &p.addr), 1);
	assert_int_equal(inet_pton(AF_INET6, "2001:db8:1::1", &a6), 1);
	p.addr6 = &a6;
	p.prefix6 = 64;
	/* Links made from now on have IPv6 off. */
	assert_int_equal(
	    write_file("/proc/sys/net/ipv6/conf/default/disable_ipv6", "1"), 0);
	assert_true(setup_here(&p, &err) < 0);
	if (strncmp(err.msg, "cannot add an IPv6 address to a0: ", 34) != 0 ||
	    !strstr(err.msg, "(is IPv6 disabled?"))
		fail_msg("wrong message: %s", err.msg);
}

static void test_missing_link(void **state)
{
	struct jr_err err = { 0 };
	struct nl_sock *sk = NULL;
	struct jr_link_plan p = { .ifname = "nope0", .prefix = 24 };

	(void)state;
	assert_int_equal(inet_pton(AF_INET, "192.0.2.1", &p.addr), 1);
	assert_int_equal(jr_link_open(&sk, &err), 0);
	assert_true(jr_link_setup(sk, &p, &err) < 0);
	jr_link_close(sk);
	if (!strstr(err.msg, "cannot find link nope0"))
		fail_msg("wrong message: %s", err.msg);
}

static void test_lo_up(void **state)
{
	struct jr_err err = { 0 };

	(void)state;
	assert_false(is_up("lo")); /* a new netns's lo is down */
	if (jr_link_lo_up(&err) < 0)
		fail_msg("%s", err.msg);
	assert_true(is_up("lo"));
}

int main(void)
{
#define T(f) cmocka_unit_test_setup(f, fresh_netns)
	const struct CMUnitTest tests[] = {
		T(test_both_ends), T(test_first_failure_named),
		T(test_ipv6_hint), T(test_missing_link),
		T(test_lo_up),
	};

	enter_private_netns();
	{
		struct jr_err err = { 0 };
		_cleanup_close_ int ns =
		    open("/proc/self/ns/net", O_RDONLY | O_CLOEXEC);
		struct nl_sock *sk = NULL;

		if (ns < 0 || jr_link_open(&sk, &err) < 0)
			skip_test("no route netlink socket");
		if (jr_link_create_veth(sk, "t0", "t1", ns, &err) < 0)
			skip_test("cannot create a veth pair in a private "
				  "network namespace");
		jr_link_close(sk);
	}
	return cmocka_run_group_tests(tests, NULL, NULL);
}
