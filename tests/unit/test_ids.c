// SPDX-License-Identifier: GPL-2.0-or-later
/* Unit tests for ids.c: who the command runs as, root and rootless. */
#include <errno.h>
#include <pwd.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>
#include <cmocka.h>

#include "ids.h"

static uid_t nobody_uid(void)
{
	struct passwd *pw = getpwnam("nobody");

	return pw ? pw->pw_uid : 65534;
}

static const struct jr_caller root = {
	.uid = 0, .euid = 0, .gid = 0, .egid = 0
};
static const struct jr_caller alice = {
	.uid = 1000, .euid = 1000, .gid = 1000, .egid = 1000
};

static void test_root_defaults_to_nobody(void **state)
{
	struct jr_ids ids;
	struct jr_err e = { 0 };

	assert_int_equal(jr_ids_resolve(NULL, false, &root, &ids, &e), 0);
	assert_true(ids.privileged);
	assert_int_equal(ids.uid, nobody_uid());
	assert_int_not_equal(ids.uid, 0);
	assert_string_equal(ids.name, "nobody");
}

static void test_root_defaults_to_sudo_caller(void **state)
{
	struct jr_caller c = root;
	struct jr_ids ids;
	struct jr_err e = { 0 };

	c.sudo_uid = "1234";
	c.sudo_gid = "2345";
	assert_int_equal(jr_ids_resolve(NULL, false, &c, &ids, &e), 0);
	assert_int_equal(ids.uid, 1234);
	assert_int_equal(ids.gid, 2345);
	/* sudo from root itself: not a reason to run as root. */
	c.sudo_uid = "0";
	c.sudo_gid = "0";
	assert_int_equal(jr_ids_resolve(NULL, false, &c, &ids, &e), 0);
	assert_int_equal(ids.uid, nobody_uid());
	/* garbage in SUDO_UID is ignored, not trusted */
	c.sudo_uid = "12x";
	assert_int_equal(jr_ids_resolve(NULL, false, &c, &ids, &e), 0);
	assert_int_equal(ids.uid, nobody_uid());
}

static void test_root_explicit_users(void **state)
{
	struct jr_ids ids;
	struct jr_err e = { 0 };

	assert_int_equal(jr_ids_resolve("root", false, &root, &ids, &e), 0);
	assert_int_equal(ids.uid, 0);
	assert_int_equal(ids.gid, 0);
	assert_int_not_equal(ids.host_uid, 0);
	assert_int_equal(jr_ids_resolve("0", false, &root, &ids, &e), 0);
	assert_int_equal(ids.uid, 0);
	assert_int_not_equal(ids.host_uid, 0);
	assert_int_equal(jr_ids_resolve("4242", false, &root, &ids, &e), 0);
	assert_int_equal(ids.uid, 4242);
	assert_int_equal(ids.host_uid, 4242);
	assert_int_equal(ids.gid, 4242); /* unknown uid: its own number */
	assert_int_equal(jr_ids_resolve("4242:77", false, &root, &ids, &e), 0);
	assert_int_equal(ids.gid, 77);
	assert_int_equal(jr_ids_resolve("nobody:root", false, &root, &ids, &e),
			 0);
	assert_int_equal(ids.uid, nobody_uid());
	assert_int_equal(ids.gid, 0);
}

static void test_bad_specs(void **state)
{
	static const char *const bad[] = {
		"no-such-user-jailrun",
		":0",
		"0:",
		"0:1:2",
		"4294967295",
		"99999999999",
		"007",
		"nobody:no-such-group-jailrun",
		"-1",
	};
	struct jr_ids ids;

	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		struct jr_err e = { 0 };

		if (jr_ids_resolve(bad[i], false, &root, &ids, &e) >= 0)
			fail_msg("--user %s was accepted", bad[i]);
		assert_true(e.msg[0] != '\0');
	}
}

static void test_rootless(void **state)
{
	struct jr_ids ids;
	struct jr_err e = { 0 };

	assert_int_equal(jr_ids_resolve(NULL, false, &alice, &ids, &e), 0);
	assert_false(ids.privileged);
	assert_int_equal(ids.uid, 1000);
	assert_int_equal(ids.gid, 1000);
	assert_int_equal(jr_ids_resolve("1000", false, &alice, &ids, &e), 0);
	assert_int_equal(jr_ids_resolve("1000:1000", false, &alice, &ids, &e),
			 0);
	assert_int_equal(ids.host_uid, 1000);
	assert_int_equal(jr_ids_resolve("1001", false, &alice, &ids, &e),
			 -EPERM);
	assert_non_null(strstr(e.msg, "without root"));
	assert_int_equal(jr_ids_resolve("1000:1001", false, &alice, &ids, &e),
			 -EPERM);
}

/* --user root rootless: uid 0 inside, the caller outside. */
static void test_rootless_fake_root(void **state)
{
	struct jr_ids ids;
	struct jr_err e = { 0 };

	assert_int_equal(jr_ids_resolve("root", false, &alice, &ids, &e), 0);
	assert_int_equal(ids.uid, 0);
	assert_int_equal(ids.gid, 0);
	assert_int_equal(ids.host_uid, 1000);
	assert_int_equal(ids.host_gid, 1000);
	assert_string_equal(ids.name, "root");
	assert_int_equal(jr_ids_resolve("0:1000", false, &alice, &ids, &e), 0);
	assert_int_equal(ids.uid, 0);
	assert_int_equal(ids.gid, 1000);
	assert_int_equal(ids.host_gid, 1000);
	assert_int_equal(jr_ids_resolve("1000:0", false, &alice, &ids, &e), 0);
	assert_int_equal(ids.uid, 1000);
	assert_int_equal(ids.gid, 0);
	assert_int_equal(ids.host_gid, 1000);
	/* Never host root without root. */
	assert_int_equal(jr_ids_resolve("root", true, &alice, &ids, &e),
			 -EPERM);
	assert_non_null(strstr(e.msg, "--host-root"));
	assert_int_equal(jr_ids_resolve(NULL, true, &alice, &ids, &e), -EPERM);
}

/* --user root under root: uid 0 inside, the sudo caller or nobody outside. */
static void test_root_fake_root(void **state)
{
	struct jr_caller c = root;
	struct jr_ids ids;
	struct jr_err e = { 0 };

	assert_int_equal(jr_ids_resolve("root", false, &root, &ids, &e), 0);
	assert_int_equal(ids.uid, 0);
	assert_int_equal(ids.gid, 0);
	assert_int_equal(ids.host_uid, nobody_uid());
	assert_int_not_equal(ids.host_uid, 0);
	assert_int_not_equal(ids.host_gid, 0);
	c.sudo_uid = "1234";
	c.sudo_gid = "2345";
	assert_int_equal(jr_ids_resolve("0", false, &c, &ids, &e), 0);
	assert_int_equal(ids.uid, 0);
	assert_int_equal(ids.host_uid, 1234);
	assert_int_equal(ids.host_gid, 2345);
	/* A group 0 is mapped away too; other ids map to themselves. */
	assert_int_equal(jr_ids_resolve("4242:0", false, &c, &ids, &e), 0);
	assert_int_equal(ids.uid, 4242);
	assert_int_equal(ids.host_uid, 4242);
	assert_int_equal(ids.gid, 0);
	assert_int_equal(ids.host_gid, 2345);
	assert_int_equal(jr_ids_resolve("root:77", false, &c, &ids, &e), 0);
	assert_int_equal(ids.host_uid, 1234);
	assert_int_equal(ids.gid, 77);
	assert_int_equal(ids.host_gid, 77);
}

/* --host-root: the only way to host uid 0. */
static void test_host_root(void **state)
{
	struct jr_caller c = root;
	struct jr_ids ids;
	struct jr_err e = { 0 };

	c.sudo_uid = "1234";
	c.sudo_gid = "2345";
	assert_int_equal(jr_ids_resolve(NULL, true, &c, &ids, &e), 0);
	assert_int_equal(ids.uid, 0);
	assert_int_equal(ids.host_uid, 0);
	assert_int_equal(ids.gid, 0);
	assert_int_equal(ids.host_gid, 0);
	assert_string_equal(ids.name, "root");
	assert_int_equal(jr_ids_resolve("root", true, &c, &ids, &e), 0);
	assert_int_equal(ids.host_uid, 0);
	assert_int_equal(jr_ids_resolve("0:77", true, &c, &ids, &e), 0);
	assert_int_equal(ids.host_uid, 0);
	assert_int_equal(ids.host_gid, 77);
	assert_int_equal(jr_ids_resolve("nobody", true, &c, &ids, &e), -EINVAL);
	assert_non_null(strstr(e.msg, "--host-root"));
}

static void test_setuid_refused(void **state)
{
	struct jr_caller c = alice;
	struct jr_ids ids;
	struct jr_err e = { 0 };

	c.euid = 0;
	assert_int_equal(jr_ids_resolve(NULL, false, &c, &ids, &e), -EPERM);
	assert_non_null(strstr(e.msg, "set-user-ID"));
	c = alice;
	c.egid = 0;
	assert_int_equal(jr_ids_resolve(NULL, false, &c, &ids, &e), -EPERM);
}

static void test_parse_id(void **state)
{
	unsigned int id;

	assert_int_equal(jr_parse_id("0", &id), 0);
	assert_int_equal(id, 0);
	assert_int_equal(jr_parse_id("4294967294", &id), 0);
	assert_int_equal(id, 4294967294U);
	assert_int_equal(jr_parse_id("4294967295", &id), -EINVAL);
	assert_int_equal(jr_parse_id("", &id), -EINVAL);
	assert_int_equal(jr_parse_id("1a", &id), -EINVAL);
	assert_int_equal(jr_parse_id("+1", &id), -EINVAL);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_root_defaults_to_nobody),
		cmocka_unit_test(test_root_defaults_to_sudo_caller),
		cmocka_unit_test(test_root_explicit_users),
		cmocka_unit_test(test_bad_specs),
		cmocka_unit_test(test_rootless),
		cmocka_unit_test(test_rootless_fake_root),
		cmocka_unit_test(test_root_fake_root),
		cmocka_unit_test(test_host_root),
		cmocka_unit_test(test_setuid_refused),
		cmocka_unit_test(test_parse_id),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
