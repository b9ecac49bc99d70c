// SPDX-License-Identifier: GPL-2.0-or-later
/* Unit tests for outfile.c: which names are descriptors, which files are
 * refused, and that a refused file is left exactly as it was. */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include <cmocka.h>

#include "outfile.h"

static void test_std_fd(void **state)
{
	static const struct {
		const char *path;
		int fd;
	} cases[] = {
		{ "-", 1 },
		{ "/dev/stdout", 1 },
		{ "/dev/stderr", 2 },
		{ "/dev/fd/63", 63 },
		{ "/dev/fd/0", 0 },
		{ "/proc/self/fd/7", 7 },
		{ "/dev/fd/", -1 },
		{ "/dev/fd/07", -1 },
		{ "/dev/fd/-1", -1 },
		{ "/dev/fd/+1", -1 },
		{ "/dev/fd/1x", -1 },
		{ "/dev/fd/99999999999", -1 },
		{ "/proc/1/fd/1", -1 },
		{ "--", -1 },
		{ "./-", -1 },
		{ "/dev/stdout/", -1 },
		{ "/tmp/x.json", -1 },
		{ "", -1 },
	};

	(void)state;
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		if (jr_outfile_std_fd(cases[i].path) != cases[i].fd)
			fail_msg("%s: %d, want %d", cases[i].path,
				 jr_outfile_std_fd(cases[i].path), cases[i].fd);
	}
}

static void test_refusal(void **state)
{
	struct stat st = { 0 };

	(void)state;
	st.st_mode = S_IFREG | 0644;
	st.st_nlink = 1;
	st.st_uid = 1000;
	assert_null(jr_outfile_refusal(&st, 1000));  /* the caller's */
	assert_non_null(jr_outfile_refusal(&st, 0)); /* root: a user's */
	assert_non_null(jr_outfile_refusal(&st, 1001));
	st.st_uid = 0;
	assert_null(jr_outfile_refusal(&st, 0));    /* root's own */
	assert_null(jr_outfile_refusal(&st, 1000)); /* a shared root log */
	st.st_nlink = 2;
	assert_non_null(jr_outfile_refusal(&st, 0)); /* a hard link */
	st.st_mode = S_IFIFO | 0600;
	st.st_uid = 1001;
	assert_non_null(jr_outfile_refusal(&st, 1000));
	st.st_uid = 1000;
	assert_null(jr_outfile_refusal(&st, 1000)); /* FIFOs: one name ok */
	st.st_mode = S_IFCHR | 0666;
	st.st_uid = 1001;
	assert_null(jr_outfile_refusal(&st, 0)); /* /dev/null, a tty */
	st.st_mode = S_IFBLK | 0660;
	st.st_uid = 0;
	assert_non_null(jr_outfile_refusal(&st, 0));
	st.st_mode = S_IFSOCK | 0600;
	assert_non_null(jr_outfile_refusal(&st, 0));
	st.st_mode = S_IFDIR | 0755;
	assert_non_null(jr_outfile_refusal(&st, 0));
}

static char dir[] = "/tmp/jailrun-outfile-XXXXXX";

/* @name in the test's directory, into @buf (256 bytes). */
static char *in_dir(char *buf, const char *name)
{
	snprintf(buf, 256, "%s/%s", dir, name);
	return buf;
}

static void put_file(const char *path, const char *text)
{
	int fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);

	assert_true(fd >= 0);
	assert_int_equal(write(fd, text, strlen(text)), (ssize_t)strlen(text));
	close(fd);
}

static void expect_file(const char *path, const char *text)
{
	char buf[256];
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	ssize_t n;

	assert_true(fd >= 0);
	n = read(fd, buf, sizeof(buf) - 1);
	close(fd);
	assert_true(n >= 0);
	buf[n] = '\0';
	assert_string_equal(buf, text);
}

static void test_open(void **state)
{
	struct jr_err e = { 0 };
	char target[256], other[256], fresh[256], missing[256];
	int fd;

	(void)state;
	assert_non_null(mkdtemp(dir));
	in_dir(target, "target");
	in_dir(other, "other");
	in_dir(fresh, "new.json");
	in_dir(missing, "no/such");
	/* A new file: created with the mode given, close-on-exec. */
	fd = jr_outfile_open("--json", fresh, false, 0640, &e);
	assert_true(fd >= 0);
	assert_true(fcntl(fd, F_GETFD) & FD_CLOEXEC);
	{
		struct stat st;

		assert_int_equal(fstat(fd, &st), 0);
		assert_int_equal(st.st_mode & 07777, 0640);
	}
	close(fd);

	/* One's own file: the summary replaces it, the log appends. */
	put_file(target, "old contents\n");
	fd = jr_outfile_open("--log", target, true, 0600, &e);
	assert_true(fd >= 0);
	assert_int_equal(write(fd, "more\n", 5), 5);
	close(fd);
	expect_file(target, "old contents\nmore\n");
	fd = jr_outfile_open("--json", target, false, 0644, &e);
	assert_true(fd >= 0);
	assert_int_equal(write(fd, "{}\n", 3), 3);
	close(fd);
	expect_file(target, "{}\n");

	/* A symbolic link: refused, its target untouched. */
	assert_int_equal(symlink(target, other), 0);
	assert_int_equal(jr_outfile_open("--json", other, false, 0644, &e),
			 -ELOOP);
	assert_non_null(strstr(e.msg, "is a symbolic link"));
	assert_non_null(strstr(e.msg, "or - for standard output"));
	assert_int_equal(jr_outfile_open("--log", other, true, 0600, &e),
			 -ELOOP);
	assert_non_null(strstr(e.msg, "--log-fd"));
	expect_file(target, "{}\n");

	/* A hard link: refused, untouched. */
	assert_int_equal(unlink(other), 0);
	assert_int_equal(link(target, other), 0);
	assert_int_equal(jr_outfile_open("--json", other, false, 0644, &e),
			 -EPERM);
	assert_non_null(strstr(e.msg, "hard links"));
	expect_file(target, "{}\n");
	assert_int_equal(unlink(other), 0);

	/* Another user's file: refused, not truncated. */
	if (geteuid() == 0) {
		put_file(other, "theirs\n");
		assert_int_equal(chown(other, 65534, 65534), 0);
		assert_int_equal(
		    jr_outfile_open("--json", other, false, 0644, &e), -EPERM);
		assert_non_null(strstr(e.msg, "belongs to uid 65534"));
		expect_file(other, "theirs\n");
		/* ... and their FIFO, before waiting for a reader. */
		assert_int_equal(unlink(other), 0);
		assert_int_equal(mkfifo(other, 0666), 0);
		assert_int_equal(chown(other, 65534, 65534), 0);
		assert_int_equal(
		    jr_outfile_open("--log", other, true, 0600, &e), -EPERM);
		assert_int_equal(unlink(other), 0);
	}

	/* A directory; a missing parent. */
	assert_true(jr_outfile_open("--json", dir, false, 0644, &e) < 0);
	assert_int_equal(jr_outfile_open("--json", missing, false, 0644, &e),
			 -ENOENT);
	assert_non_null(strstr(e.msg, "cannot open for writing"));

	/* /dev/null is a character device: written, whoever owns it. */
	fd = jr_outfile_open("--log", "/dev/null", true, 0600, &e);
	assert_true(fd >= 0);
	close(fd);

	assert_int_equal(unlink(target), 0);
	assert_int_equal(unlink(fresh), 0);
	assert_int_equal(rmdir(dir), 0);
}

/* "-" and its kin are the runner's own descriptor, duplicated. */
static void test_open_std(void **state)
{
	struct jr_err e = { 0 };
	struct stat a, b;
	int fd;

	(void)state;
	fd = jr_outfile_open("--json", "-", false, 0644, &e);
	assert_true(fd > 2);
	assert_true(fcntl(fd, F_GETFD) & FD_CLOEXEC);
	assert_int_equal(fstat(fd, &a), 0);
	assert_int_equal(fstat(STDOUT_FILENO, &b), 0);
	assert_true(a.st_dev == b.st_dev && a.st_ino == b.st_ino);
	close(fd);
	assert_int_equal(
	    jr_outfile_open("--json", "/dev/fd/987", false, 0644, &e), -EBADF);
	assert_non_null(strstr(e.msg, "descriptor 987 is not open"));
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_std_fd),
		cmocka_unit_test(test_refusal),
		cmocka_unit_test(test_open),
		cmocka_unit_test(test_open_std),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
