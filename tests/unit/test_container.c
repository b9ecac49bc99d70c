// SPDX-License-Identifier: GPL-2.0-or-later
/* Unit tests for container.c: the parsers behind the diagnostics for a
 * container that masks /proc and /sys, filters system calls with seccomp,
 * or maps only root. The mountinfo texts are the ones podman 4.3 (crun)
 * gives a rootless container, and a host's. */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>
#include <cmocka.h>

#include "container.h"

/* A rootless podman container with the default masks and read-only
 * paths; /sys/fs/cgroup and /proc/sys/fs/binfmt_misc hide nothing. */
static const char podman_mi[] =
    "236 200 0:47 / / rw,relatime - overlay overlay rw\n"
    "238 236 0:48 / /proc rw,nosuid,nodev,noexec,relatime - proc proc rw\n"
    "240 236 0:50 / /sys ro,nosuid,nodev,noexec,relatime - sysfs sysfs rw\n"
    "243 240 0:38 / /sys/fs/cgroup ro,nosuid - cgroup2 cgroup2 rw\n"
    "250 238 0:52 / /proc/acpi ro,relatime - tmpfs tmpfs rw,size=0k\n"
    "251 238 0:6 /null /proc/keys ro,relatime - devtmpfs devtmpfs rw\n"
    "252 238 0:6 /null /proc/timer_list ro,relatime - devtmpfs devtmpfs rw\n"
    "253 240 0:53 / /sys/firmware ro,relatime - tmpfs tmpfs rw,size=0k\n"
    "254 240 0:54 / /sys/dev/block ro,relatime - tmpfs tmpfs rw,size=0k\n"
    "255 238 0:48 /bus /proc/bus ro,relatime - proc proc rw\n"
    "258 238 0:48 /sys /proc/sys ro,relatime - proc proc rw\n"
    "259 258 0:60 / /proc/sys/fs/binfmt_misc rw shared:5 - autofs systemd-1 "
    "rw\n";

static void test_masked_proc(void **state)
{
	char out[256];

	assert_int_equal(
	    jr_ctr_masked_paths(podman_mi, "/proc", "proc", out, sizeof(out)),
	    5);
	assert_string_equal(out, "/proc/acpi, /proc/keys, /proc/timer_list, "
				 "/proc/bus, /proc/sys");
}

static void test_masked_sys(void **state)
{
	char out[256];

	assert_int_equal(
	    jr_ctr_masked_paths(podman_mi, "/sys", "sysfs", out, sizeof(out)),
	    2);
	assert_string_equal(out, "/sys/firmware, /sys/dev/block");
}

/* A host: binfmt_misc and the cgroup, debugfs, tracing mounts are on
 * directories kept empty for them, so nothing is masked. */
static void test_host_unmasked(void **state)
{
	static const char host_mi[] =
	    "22 1 0:5 / /proc rw,nosuid,nodev,noexec,relatime shared:12 - "
	    "proc proc rw\n"
	    "23 1 0:21 / /sys rw,nosuid shared:2 - sysfs sysfs rw\n"
	    "30 22 0:25 / /proc/sys/fs/binfmt_misc rw shared:13 - autofs "
	    "systemd-1 rw\n"
	    "31 23 0:26 / /sys/fs/cgroup rw shared:4 - cgroup2 cgroup2 rw\n"
	    "32 23 0:7 / /sys/kernel/debug rw shared:5 - debugfs debugfs rw\n"
	    "33 23 0:12 / /sys/kernel/tracing rw - tracefs tracefs rw\n"
	    "34 31 0:27 / /sys/fs/cgroup/x rw - tmpfs tmpfs rw\n";
	char out[64] = "junk";

	assert_int_equal(
	    jr_ctr_masked_paths(host_mi, "/proc", "proc", out, sizeof(out)), 0);
	assert_string_equal(out, "");
	assert_int_equal(
	    jr_ctr_masked_paths(host_mi, "/sys", "sysfs", out, sizeof(out)), 0);
}

/* The children of the topmost /proc count, not those of one beneath it;
 * no proc at all is nothing to report. */
static void test_topmost_and_absent(void **state)
{
	static const char mi[] = "10 1 0:5 / /proc rw - proc proc rw\n"
				 "11 10 0:6 / /proc/kcore rw - tmpfs tmpfs rw\n"
				 "12 1 0:7 / /proc rw - proc proc rw\n"
				 "13 12 0:8 / /proc/scsi rw - tmpfs tmpfs rw\n"
				 "14 1 0:9 / /procfoo rw - tmpfs tmpfs rw\n";
	char out[64];

	assert_int_equal(
	    jr_ctr_masked_paths(mi, "/proc", "proc", out, sizeof(out)), 1);
	assert_string_equal(out, "/proc/scsi");
	assert_int_equal(
	    jr_ctr_masked_paths("1 0 0:1 / / rw - ext4 /dev/x rw\n", "/proc",
				"proc", out, sizeof(out)),
	    0);
	assert_int_equal(
	    jr_ctr_masked_paths("", "/proc", "proc", out, sizeof(out)), 0);
	assert_int_equal(jr_ctr_masked_paths("garbage\n\n7 x\n", "/proc",
					     "proc", out, sizeof(out)),
			 0);
}

/* A short buffer: the count stays exact, the list ends in "...". */
static void test_masked_truncated(void **state)
{
	char out[24];

	assert_int_equal(
	    jr_ctr_masked_paths(podman_mi, "/proc", "proc", out, sizeof(out)),
	    5);
	assert_int_equal(strlen(out), sizeof(out) - 1);
	assert_string_equal(out + strlen(out) - 3, "...");
}

static void test_status_field(void **state)
{
	static const char status[] = "Name:\tjailrun\n"
				     "Uid:\t1000\t1000\t1000\t1000\n"
				     "CapEff:\t00000000800405fb\n"
				     "NoNewPrivs:\t1\n"
				     "Seccomp:\t2\n"
				     "Seccomp_filters:\t1\n";
	unsigned long long v = 0;

	assert_int_equal(jr_ctr_status_field(status, "Seccomp", 10, &v), 0);
	assert_int_equal(v, 2);
	assert_int_equal(jr_ctr_status_field(status, "CapEff", 16, &v), 0);
	assert_true(v == 0x800405fbULL);
	assert_true(v & (1ULL << 7)); /* CAP_SETUID */
	assert_int_equal(jr_ctr_status_field(status, "Seccomp_filters", 10, &v),
			 0);
	assert_int_equal(v, 1);
	/* "Seccomp" is not a prefix match of "Seccomp_filters". */
	assert_int_equal(
	    jr_ctr_status_field("Seccomp_filters:\t1\n", "Seccomp", 10, &v),
	    -ENOENT);
	assert_int_equal(jr_ctr_status_field(status, "CapAmb", 16, &v),
			 -ENOENT);
	assert_int_equal(
	    jr_ctr_status_field("Seccomp:\tx\n", "Seccomp", 10, &v), -ENOENT);
	assert_int_equal(jr_ctr_status_field("", "Seccomp", 10, &v), -ENOENT);
}

static void test_idmap_covers(void **state)
{
	/* podman's single mapping seen inside: only root. */
	static const char root_only[] = "         0      65534          1\n";
	/* A Kubernetes pod with hostUsers: false: 65536 ids. */
	static const char pod[] = "0 1879048192 65536\n";
	static const char split[] = "0 1000 1\n1000 100000 10\n";

	assert_true(jr_ctr_idmap_covers(root_only, 0));
	assert_false(jr_ctr_idmap_covers(root_only, 65534));
	assert_true(jr_ctr_idmap_covers(pod, 65534));
	assert_true(jr_ctr_idmap_covers(pod, 65535));
	assert_false(jr_ctr_idmap_covers(pod, 65536));
	assert_true(jr_ctr_idmap_covers(split, 1009));
	assert_false(jr_ctr_idmap_covers(split, 1010));
	assert_false(jr_ctr_idmap_covers(split, 999));
	assert_false(jr_ctr_idmap_covers("", 0));
	assert_false(jr_ctr_idmap_covers("bogus\n", 0));
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_masked_proc),
		cmocka_unit_test(test_masked_sys),
		cmocka_unit_test(test_host_unmasked),
		cmocka_unit_test(test_topmost_and_absent),
		cmocka_unit_test(test_masked_truncated),
		cmocka_unit_test(test_status_field),
		cmocka_unit_test(test_idmap_covers),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
