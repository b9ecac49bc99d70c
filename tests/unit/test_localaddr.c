// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * test_localaddr.c - localaddr.c against the real kernel.
 *
 * The test first moves itself into a new network namespace (and, without
 * CAP_SYS_ADMIN, a new user namespace that maps the caller to root), so
 * the addresses and routes it adds with ip(8) never touch the machine's
 * own network; it exits 77 (skipped) if it cannot. The namespace gets a
 * veth pair with 192.0.2.1/24 and 2001:db8:1::1/64 on v0, an AnyIP
 * `local` route, a blackhole and a prohibit route.
 *
 * Each vector would fail under a concrete mistake: a route type taken for
 * local that is not (or the other way round), an IPv4-mapped address asked
 * as IPv6 (the kernel would say "unreachable": a miss), a NAT64 or
 * IPv4-compatible address not asked as IPv4, a cached view that does not
 * follow an address added or removed during the run, an error answer
 * taken for "not local" (fail open).
 *
 * It also prints the cost of one check (mean over many round trips); the
 * figure is reported, not judged.
 */
#include <arpa/inet.h>
#include <errno.h>
#include <fcntl.h>
#include <linux/netlink.h>
#include <linux/rtnetlink.h>
#include <poll.h>
#include <sched.h>
#include <setjmp.h>
#include <stdbool.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <time.h>
#include <unistd.h>

#include <cmocka.h>

#include "cleanup.h"
#include "netns_test.h"
#include "err.h"
#include "localaddr.h"

#define BENCH_ROUNDS 20000

static struct jr_localaddr *la;

/* ip(8) in our private namespace; a failure is a broken test set-up. */
static void ip(const char *args)
{
	char cmd[256];
	int rc;

	snprintf(cmd, sizeof(cmd), "ip %s", args);
	rc = system(cmd);
	if (rc != 0)
		fail_msg("'%s' failed (%d)", cmd, rc);
}

/*
 * IPv6 puts an address's local route in from a workqueue (addrconf's DAD
 * work, which runs even with nodad), so `ip -6 addr add` may return before
 * a connect to the address would stay here. A socket subscribed to
 * RTNLGRP_IPV6_ROUTE before the add hears the route go in: route6_watch()
 * opens it, route6_wait_local() waits for @addr's RTN_LOCAL route. The
 * 10 s poll bound only ends a test that would otherwise hang.
 */
static int route6_watch(void)
{
	struct sockaddr_nl snl = { .nl_family = AF_NETLINK,
				   .nl_groups = RTMGRP_IPV6_ROUTE };
	int fd = socket(AF_NETLINK, SOCK_RAW | SOCK_CLOEXEC, NETLINK_ROUTE);

	if (fd < 0 || bind(fd, (struct sockaddr *)&snl, sizeof(snl)) < 0)
		fail_msg("cannot watch IPv6 routes: %s", strerror(errno));
	return fd;
}

/* Does @nlh put in the local route of @want? */
static bool is_local_route6(const struct nlmsghdr *nlh,
			    const struct in6_addr *want)
{
	const struct rtmsg *rt = NLMSG_DATA(nlh);
	const struct rtattr *a = RTM_RTA(rt);
	int len = (int)RTM_PAYLOAD(nlh);

	if (nlh->nlmsg_type != RTM_NEWROUTE || rt->rtm_family != AF_INET6 ||
	    rt->rtm_type != RTN_LOCAL || rt->rtm_dst_len != 128)
		return false;
	for (; RTA_OK(a, len); a = RTA_NEXT(a, len))
		if (a->rta_type == RTA_DST && RTA_PAYLOAD(a) == sizeof(*want) &&
		    memcmp(RTA_DATA(a), want, sizeof(*want)) == 0)
			return true;
	return false;
}

static void route6_wait_local(int fd, const char *addr)
{
	struct in6_addr want;
	char buf[16384];

	assert_int_equal(inet_pton(AF_INET6, addr, &want), 1);
	for (;;) {
		struct pollfd pfd = { .fd = fd, .events = POLLIN };
		struct nlmsghdr *nlh = (struct nlmsghdr *)buf;
		ssize_t n;
		int len;

		if (poll(&pfd, 1, 10000) != 1)
			fail_msg("no local route for %s after 10 s", addr);
		n = recv(fd, buf, sizeof(buf), 0);
		if (n < 0)
			fail_msg("recv: %s", strerror(errno));
		for (len = (int)n; NLMSG_OK(nlh, len);
		     nlh = NLMSG_NEXT(nlh, len))
			if (is_local_route6(nlh, &want)) {
				close(fd);
				return;
			}
	}
}

static int is_local_text(const char *text)
{
	struct sockaddr_in6 sin6 = { .sin6_family = AF_INET6 };
	struct sockaddr_in sin = { .sin_family = AF_INET };

	if (strchr(text, ':')) {
		assert_int_equal(inet_pton(AF_INET6, text, &sin6.sin6_addr), 1);
		return jr_localaddr_is_local(la, (struct sockaddr *)&sin6);
	}
	assert_int_equal(inet_pton(AF_INET, text, &sin.sin_addr), 1);
	return jr_localaddr_is_local(la, (struct sockaddr *)&sin);
}

struct local_vec {
	const char *addr;
	int want; /* 1 local, 0 not, <0 that error */
};

static const struct local_vec local_vectors[] = {
	/* RTN_LOCAL: loopback, the interface's own, an AnyIP prefix */
	{ "127.0.0.1", 1 },
	{ "127.1.2.3", 1 },
	{ "0.0.0.0", 1 },
	{ "192.0.2.1", 1 },
	{ "203.0.113.99", 1 },
	{ "::1", 1 },
	{ "2001:db8:1::1", 1 },
	/* RTN_BROADCAST, RTN_MULTICAST */
	{ "192.0.2.255", 1 },
	{ "ff02::1", 1 },
	/* unicast on the link: leaves the host */
	{ "192.0.2.2", 0 },
	{ "192.0.2.0", 0 },
	{ "2001:db8:1::2", 0 },
	/* no route (unreachable, prohibit): connect fails the same way */
	{ "198.51.100.1", 0 },
	{ "198.18.6.1", 0 },
	{ "2001:db8:9::1", 0 },
	/* a blackhole answers EINVAL: not a "no route" we know, fail closed */
	{ "198.18.5.1", -EINVAL },
	/* IPv4 carried in IPv6 */
	{ "::ffff:192.0.2.1", 1 },
	{ "::ffff:127.0.0.1", 1 },
	{ "::ffff:203.0.113.99", 1 },
	{ "::ffff:192.0.2.2", 0 },
	{ "64:ff9b::192.0.2.1", 1 },
	{ "64:ff9b::192.0.2.2", 0 },
	{ "::192.0.2.1", 1 },
	{ "::192.0.2.2", 0 },
	/* 6to4: its packets go to the IPv4 end point in bits 16-47 */
	{ "2002:c000:201::1", 1 },
	{ "2002:7f00:1:2::3", 1 },
	{ "2002:c000:202::1", 0 },
	/* not an IPv4-carrying prefix: asked as IPv6 only */
	{ "64:ff9b:1::c000:201", 0 },
};

static int setup_ns(void **state)
{
	struct jr_err err = { 0 };
	int watch;

	ip("link set lo up");
	ip("link add v0 type veth peer name v1");
	ip("link set v0 up");
	ip("link set v1 up");
	ip("addr add 192.0.2.1/24 dev v0");
	watch = route6_watch();
	ip("-6 addr add 2001:db8:1::1/64 dev v0 nodad");
	route6_wait_local(watch, "2001:db8:1::1");
	ip("route add local 203.0.113.0/24 dev lo");
	ip("route add blackhole 198.18.5.0/24");
	ip("route add prohibit 198.18.6.0/24");
	if (jr_localaddr_open(&la, &err) < 0)
		fail_msg("%s", err.msg);
	return 0;
}

static int teardown_ns(void **state)
{
	jr_localaddr_close(la);
	la = NULL;
	return 0;
}

static void test_route_types(void **state)
{
	for (size_t i = 0; i < ARRAY_SIZE(local_vectors); i++) {
		int got = is_local_text(local_vectors[i].addr);

		if (got != local_vectors[i].want)
			fail_msg("%s: %d, expected %d", local_vectors[i].addr,
				 got, local_vectors[i].want);
	}
}

/* Current by construction: an address added or removed now counts now. */
static void test_follows_changes(void **state)
{
	int watch;

	assert_int_equal(is_local_text("192.0.2.77"), 0);
	assert_int_equal(is_local_text("::ffff:192.0.2.77"), 0);
	assert_int_equal(is_local_text("2001:db8:1::77"), 0);
	ip("addr add 192.0.2.77/32 dev v0");
	watch = route6_watch();
	ip("-6 addr add 2001:db8:1::77/128 dev v0 nodad");
	route6_wait_local(watch, "2001:db8:1::77");
	assert_int_equal(is_local_text("192.0.2.77"), 1);
	assert_int_equal(is_local_text("::ffff:192.0.2.77"), 1);
	assert_int_equal(is_local_text("2001:db8:1::77"), 1);
	ip("addr del 192.0.2.77/32 dev v0");
	ip("-6 addr del 2001:db8:1::77/128 dev v0");
	assert_int_equal(is_local_text("192.0.2.77"), 0);
	assert_int_equal(is_local_text("2001:db8:1::77"), 0);
}

static void test_bad_input(void **state)
{
	struct sockaddr_un sun = { .sun_family = AF_UNIX };
	struct sockaddr_in sin = { .sin_family = AF_INET };
	/* An unaligned sockaddr: read by bytes, as policy.c does. */
	union {
		char raw[1 + sizeof(struct sockaddr_in)];
		struct sockaddr_in6 align;
	} u;

	assert_int_equal(jr_localaddr_is_local(la, (struct sockaddr *)&sun),
			 -EAFNOSUPPORT);
	assert_int_equal(jr_localaddr_is_local(la, NULL), -EINVAL);
	assert_int_equal(jr_localaddr_is_local(NULL, (struct sockaddr *)&sin),
			 -EINVAL);
	assert_int_equal(inet_pton(AF_INET, "192.0.2.1", &sin.sin_addr), 1);
	memcpy(u.raw + 1, &sin, sizeof(sin));
	assert_int_equal(
	    jr_localaddr_is_local(la, (const struct sockaddr *)(u.raw + 1)), 1);
}

static int cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return (x > y) - (x < y);
}

/*
 * bench() - time BENCH_ROUNDS checks of @text, one by one: the median is
 * what one check costs, the mean also carries whatever else the machine
 * was doing (preemption on a loaded host).
 */
static void bench(const char *label, const char *text)
{
	static double us[BENCH_ROUNDS];
	double sum = 0;

	for (int i = 0; i < BENCH_ROUNDS; i++) {
		struct timespec t0, t1;

		clock_gettime(CLOCK_MONOTONIC, &t0);
		assert_true(is_local_text(text) >= 0);
		clock_gettime(CLOCK_MONOTONIC, &t1);
		us[i] = (double)(t1.tv_sec - t0.tv_sec) * 1e6 +
			(double)(t1.tv_nsec - t0.tv_nsec) / 1e3;
		sum += us[i];
	}
	qsort(us, BENCH_ROUNDS, sizeof(us[0]), cmp_double);
	print_message("localaddr: %s (%s): median %.1f us, p99 %.1f us, "
		      "mean %.1f us over %d checks\n",
		      label, text, us[BENCH_ROUNDS / 2],
		      us[BENCH_ROUNDS * 99 / 100], sum / BENCH_ROUNDS,
		      BENCH_ROUNDS);
}

/* The figures for docs/architecture.md; printed, never judged. */
static void test_cost(void **state)
{
	bench("IPv4 unicast", "192.0.2.2");
	bench("IPv4 local", "192.0.2.1");
	bench("IPv6 unicast", "2001:db8:1::2");
	bench("NAT64, two lookups", "64:ff9b::192.0.2.2");
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_route_types),
		cmocka_unit_test(test_follows_changes),
		cmocka_unit_test(test_bad_input),
		cmocka_unit_test(test_cost),
	};

	if (system("ip -V >/dev/null 2>&1") != 0)
		skip_test("ip(8) from iproute2 is not installed");
	enter_private_netns();
	if (system("ip link add jrtestv0 type veth peer name jrtestv1 "
		   ">/dev/null 2>&1") != 0)
		skip_test(
		    "cannot create a veth pair in a private network namespace");
	if (system("ip link del jrtestv0") != 0)
		return 99;
	return cmocka_run_group_tests(tests, setup_ns, teardown_ns);
}
