// SPDX-License-Identifier: GPL-2.0-or-later
/* Unit tests for idmap.c: when a writable root is idmapped, and the mode
 * check behind the "cannot write its working directory" warning. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>
#include <cmocka.h>

#include "idmap.h"

/* Root runs the command as nobody in root's 0700 directory. */
static struct jr_idmap_case root_dir(void)
{
	return (struct jr_idmap_case){ .privileged = true,
				       .enabled = true,
				       .seccomp = true,
				       .owner = 0,
				       .mode = S_IFDIR | 0700,
				       .host_uid = 65534 };
}

static void test_decide(void **state)
{
	struct jr_idmap_case c = root_dir();

	(void)state;
	assert_int_equal(jr_idmap_decide(&c), JR_IDMAP_YES);
	/* another owner than root is idmapped the same way */
	c.owner = 1000;
	assert_int_equal(jr_idmap_decide(&c), JR_IDMAP_YES);
	/* the command's user owns it: nothing to do */
	c.owner = 65534;
	assert_int_equal(jr_idmap_decide(&c), JR_IDMAP_SAME_OWNER);

	c = root_dir();
	c.privileged = false;
	assert_int_equal(jr_idmap_decide(&c), JR_IDMAP_ROOTLESS);
	c = root_dir();
	c.enabled = false;
	assert_int_equal(jr_idmap_decide(&c), JR_IDMAP_OFF);
	/* no filter refusing S_ISUID: never give the command root's files */
	c = root_dir();
	c.seccomp = false;
	assert_int_equal(jr_idmap_decide(&c), JR_IDMAP_SECCOMP_OFF);
	/* a shared sticky directory, even with everything on */
	c = root_dir();
	c.mode = S_IFDIR | 01777;
	assert_int_equal(jr_idmap_decide(&c), JR_IDMAP_STICKY);
	/* a file with the sticky bit is not a shared directory */
	c.mode = S_IFREG | 01644;
	assert_int_equal(jr_idmap_decide(&c), JR_IDMAP_YES);
	/* each refusal has a reason to print, the yes none */
	assert_string_equal(jr_idmap_verdict_why(JR_IDMAP_YES), "");
	for (int v = JR_IDMAP_SAME_OWNER; v <= JR_IDMAP_STICKY; v++)
		assert_true(
		    strlen(jr_idmap_verdict_why((enum jr_idmap_verdict)v)) > 0);
}

static void test_may_write(void **state)
{
	struct stat st = { .st_uid = 0,
			   .st_gid = 0,
			   .st_mode = S_IFDIR | 0700 };

	(void)state;
	assert_false(jr_idmap_may_write(&st, 65534, 65534));
	assert_true(jr_idmap_may_write(&st, 0, 0));
	st.st_mode = S_IFDIR | 0775;
	assert_false(jr_idmap_may_write(&st, 65534, 65534));
	assert_true(jr_idmap_may_write(&st, 65534, 0)); /* by group */
	st.st_mode = S_IFDIR | 0777;
	assert_true(jr_idmap_may_write(&st, 65534, 65534));
	/* the owner's bits decide for the owner, even if others may */
	st.st_uid = 1000;
	st.st_mode = S_IFDIR | 0577;
	assert_false(jr_idmap_may_write(&st, 1000, 1000));
	/* and the group's for a member that is not the owner */
	st.st_gid = 1000;
	st.st_mode = S_IFDIR | 0707;
	assert_false(jr_idmap_may_write(&st, 2000, 1000));
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_decide),
		cmocka_unit_test(test_may_write),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
