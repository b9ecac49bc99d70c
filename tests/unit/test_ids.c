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

	assert_int_equal(jr_ids_resolve(NULL, &root, &ids, &e), 0);
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
	assert_int_equal(jr_ids_resolve(NULL, &c, &ids, &e), 0);
	assert_int_equal(ids.uid, 1234);
	assert_int_equal(ids.gid, 2345);
	/* sudo from root itself: not a reason to run as root. */
	c.sudo_uid = "0";
	c.sudo_gid = "0";
	assert_int_equal(jr_ids_resolve(NULL, &c, &ids, &e), 0);
	assert_int_equal(ids.uid, nobody_uid());
	/* garbage in SUDO_UID is ignored, not trusted */
	c.sudo_uid = "12x";
	assert_int_equal(jr_ids_resolve(NULL, &c, &ids, &e), 0);
	assert_int_equal(ids.uid, nobody_uid());
}

static void test_root_explicit_users(void **state)
{
	struct jr_ids ids;
	struct jr_err e = { 0 };

	assert_int_equal(jr_ids_resolve("root", &root, &ids, &e), 0);
	assert_int_equal(ids.uid, 0);
	assert_int_equal(ids.gid, 0);
	assert_int_equal(jr_ids_resolve("0", &root, &ids, &e), 0);
	assert_int_equal(ids.uid, 0);
	assert_int_equal(jr_ids_resolve("4242", &root, &ids, &e), 0);
	assert_int_equal(ids.uid, 4242);
	assert_int_equal(ids.gid, 4242); /* unknown uid: its own number */
	assert_int_equal(jr_ids_resolve("4242:77", &root, &ids, &e), 0);
	assert_int_equal(ids.gid, 77);
	assert_int_equal(jr_ids_resolve("nobody:root", &root, &ids, &e), 0);
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

		if (jr_ids_resolve(bad[i], &root, &ids, &e) >= 0)
			fail_msg("--user %s was accepted", bad[i]);
		assert_true(e.msg[0] != '\0');
	}
}

static void test_rootless(void **state)
{
	struct jr_ids ids;
	struct jr_err e = { 0 };

	assert_int_equal(jr_ids_resolve(NULL, &alice, &ids, &e), 0);
	assert_false(ids.privileged);
	assert_int_equal(ids.uid, 1000);
	assert_int_equal(ids.gid, 1000);
	assert_int_equal(jr_ids_resolve("1000", &alice, &ids, &e), 0);
	assert_int_equal(jr_ids_resolve("1000:1000", &alice, &ids, &e), 0);
	assert_int_equal(jr_ids_resolve("root", &alice, &ids, &e), -EPERM);
	assert_non_null(strstr(e.msg, "without root"));
	assert_int_equal(jr_ids_resolve("1000:0", &alice, &ids, &e), -EPERM);
}

static void test_setuid_refused(void **state)
{
	struct jr_caller c = alice;
	struct jr_ids ids;
	struct jr_err e = { 0 };

	c.euid = 0;
	assert_int_equal(jr_ids_resolve(NULL, &c, &ids, &e), -EPERM);
	assert_non_null(strstr(e.msg, "set-user-ID"));
	c = alice;
	c.egid = 0;
	assert_int_equal(jr_ids_resolve(NULL, &c, &ids, &e), -EPERM);
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
		cmocka_unit_test(test_setuid_refused),
		cmocka_unit_test(test_parse_id),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
