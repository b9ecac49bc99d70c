// SPDX-License-Identifier: GPL-2.0-or-later
/* Unit tests for learn.c: what --learn writes, and that it loads back. */
#include <errno.h>
#include <fcntl.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <dirent.h>
#include <sys/stat.h>
#include <unistd.h>
#include <cmocka.h>

#include "learn.h"
#include "policy.h"

/* Entries in @dir, "." and ".." aside. */
static int count_entries(const char *dir)
{
	DIR *d = opendir(dir);
	struct dirent *e;
	int n = 0;

	assert_non_null(d);
	while ((e = readdir(d)))
		n += strcmp(e->d_name, ".") && strcmp(e->d_name, "..");
	closedir(d);
	return n;
}

static void record(struct jr_learn *l, const char *via, const char *host,
		   uint16_t port, bool allowed, const char *reason)
{
	struct jr_audit_record r = {
		.via = via,
		.host = host,
		.port = port,
		.allowed = allowed,
		.reason = reason,
	};

	jr_learn_record(l, &r);
}

static void feed(struct jr_learn *l)
{
	record(l, "proxy", "raw.test", 9000, true, NULL);
	record(l, "transparent", "Allowed.Test.", 80, true, NULL);
	record(l, "proxy", "allowed.test", 80, true, "upstream-refused");
	record(l, "proxy", "metadata.test", 80, false, "special-address");
	record(l, "proxy", "metadata.test", 80, false, "special-address");
	record(l, "dns", "allowed.test", 0, true, NULL);   /* not a dest */
	record(l, "proxy", NULL, 0, false, "bad-request"); /* no host */
	record(l, "transparent", "2001:db8::1", 443, true, NULL);
	record(l, "proxy", "::ffff:192.0.2.1", 443, true, NULL);
	record(l, "proxy", "allowed.test", 443, false, "sni-mismatch");
	record(l, "proxy", "allowed.test", 443, true, NULL);
}

static void test_format(void **state)
{
	struct jr_learn l = { .dirfd = -1 };
	char *text;

	feed(&l);
	text = jr_learn_format(&l);
	assert_non_null(text);
	assert_string_equal(
	    text,
	    "# jailrun --learn: 5 destinations reached, 1 only refused.\n"
	    "# A starting point to review, then use with\n"
	    "#   jailrun --net allowlist --allow-file FILE\n"
	    "[2001:db8::1]:443 # 1 connection\n"
	    "# not an entry: [::ffff:192.0.2.1]:443 # 1 connection\n"
	    "allowed.test:443 # 1 connection, 1 refused (sni-mismatch)\n"
	    "allowed.test:80 # 2 connections\n"
	    "raw.test:9000 # 1 connection\n"
	    "# refused: metadata.test:80 # 2 connections, special-address\n");
	free(text);
	jr_learn_release(&l);
}

/* The file, committed, loads with --allow-file and means what it says. */
static void test_commit_loads_back(void **state)
{
	char dir[] = "/tmp/jr-learn-XXXXXX", path[64];
	struct jr_err err = { 0 };
	struct jr_learn l;
	struct jr_policy p;
	struct stat st;

	assert_non_null(mkdtemp(dir));
	snprintf(path, sizeof(path), "%s/allow.txt", dir);
	assert_int_equal(jr_learn_open(&l, path, &err), 0);
	assert_int_equal(fcntl(l.dirfd, F_GETFD) & FD_CLOEXEC, FD_CLOEXEC);
	/* nothing in the directory while the command runs */
	assert_int_equal(count_entries(dir), 0);
	feed(&l);
	assert_int_equal(jr_learn_commit(&l, &err), 0);
	jr_learn_release(&l);
	assert_int_equal(stat(path, &st), 0);
	assert_int_equal(st.st_mode & 07777, 0644);

	jr_policy_init(&p);
	if (jr_policy_add_file(&p, path, &err) != 0)
		fail_msg("the learned file does not load: %s", err.msg);
	assert_int_equal(p.n, 4); /* the mapped literal is a comment */
	assert_int_equal(jr_policy_check_name(&p, "allowed.test", 80),
			 JR_ALLOWED);
	assert_int_equal(jr_policy_check_name(&p, "raw.test", 9000),
			 JR_ALLOWED);
	assert_int_equal(jr_policy_check_name(&p, "raw.test", 7), JR_DENY_PORT);
	assert_int_equal(jr_policy_check_name(&p, "metadata.test", 80),
			 JR_DENY_NOT_ALLOWED);
	jr_policy_free(&p);
	assert_int_equal(unlink(path), 0);
	assert_int_equal(rmdir(dir), 0); /* no temporary file left behind */
}

/*
 * Whatever the command left in FILE's directory, the runner writes a file
 * of its own: a link at FILE is replaced, not followed; files named like
 * a temporary one are left alone; a directory renamed away changes
 * nothing (FILE's directory was pinned at start).
 */
static void test_commit_own_file(void **state)
{
	char dir[] = "/tmp/jr-learn-XXXXXX", sub[64], moved[64], path[80],
	     target[64], planted[96], buf[64];
	struct jr_err err = { 0 };
	struct jr_learn l;
	struct stat st;
	ssize_t n;
	int fd;

	(void)state;
	assert_non_null(mkdtemp(dir));
	snprintf(sub, sizeof(sub), "%s/work", dir);
	snprintf(moved, sizeof(moved), "%s/moved", dir);
	snprintf(path, sizeof(path), "%s/allow.txt", sub);
	snprintf(target, sizeof(target), "%s/target", dir);
	assert_int_equal(mkdir(sub, 0755), 0);
	fd = open(target, O_WRONLY | O_CREAT | O_CLOEXEC, 0644);
	assert_true(fd >= 0);
	assert_int_equal(write(fd, "untouched\n", 10), 10);
	close(fd);
	assert_int_equal(jr_learn_open(&l, path, &err), 0);
	feed(&l);
	/* "the command": moves the directory, makes a new one with a link
	 * at FILE and a file named like a temporary one */
	assert_int_equal(rename(sub, moved), 0);
	assert_int_equal(mkdir(sub, 0755), 0);
	assert_int_equal(symlink(target, path), 0);
	snprintf(planted, sizeof(planted), "%s/allow.txt.AAAAAA", moved);
	fd = open(planted, O_WRONLY | O_CREAT | O_CLOEXEC, 0644);
	assert_true(fd >= 0);
	assert_int_equal(write(fd, "evil.test:443\n", 14), 14);
	close(fd);
	assert_int_equal(jr_learn_commit(&l, &err), 0);
	jr_learn_release(&l);
	/* written in the pinned directory, as a file of its own */
	snprintf(path, sizeof(path), "%s/allow.txt", moved);
	assert_int_equal(lstat(path, &st), 0);
	assert_true(S_ISREG(st.st_mode));
	assert_int_equal(st.st_uid, geteuid());
	fd = open(path, O_RDONLY | O_CLOEXEC);
	n = read(fd, buf, sizeof(buf) - 1);
	close(fd);
	assert_true(n > 0);
	buf[n] = '\0';
	assert_non_null(strstr(buf, "# jailrun --learn: 5 destinations"));
	/* the link's target and the planted file are as they were */
	fd = open(target, O_RDONLY | O_CLOEXEC);
	n = read(fd, buf, sizeof(buf) - 1);
	close(fd);
	buf[n > 0 ? n : 0] = '\0';
	assert_string_equal(buf, "untouched\n");
	assert_int_equal(count_entries(moved), 2); /* FILE, the planted one */
	assert_int_equal(unlink(planted), 0);
	assert_int_equal(unlink(path), 0);
	snprintf(path, sizeof(path), "%s/allow.txt", sub);
	assert_int_equal(unlink(path), 0);
	assert_int_equal(rmdir(moved), 0);
	assert_int_equal(rmdir(sub), 0);
	assert_int_equal(unlink(target), 0);
	assert_int_equal(rmdir(dir), 0);
}

static void test_open_fails_early(void **state)
{
	struct jr_err err = { 0 };
	struct jr_learn l;

	assert_true(jr_learn_open(&l, "/nonexistent-dir/x/allow.txt", &err) <
		    0);
	assert_non_null(
	    strstr(err.msg, "--learn /nonexistent-dir/x/allow.txt"));
}

/* Released without a commit: the temporary file goes, FILE is untouched. */
static void test_release_without_commit(void **state)
{
	char dir[] = "/tmp/jr-learn-XXXXXX", path[64];
	struct jr_err err = { 0 };
	struct jr_learn l;

	assert_non_null(mkdtemp(dir));
	snprintf(path, sizeof(path), "%s/allow.txt", dir);
	assert_int_equal(jr_learn_open(&l, path, &err), 0);
	feed(&l);
	jr_learn_release(&l);
	assert_int_equal(access(path, F_OK), -1);
	assert_int_equal(rmdir(dir), 0);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_format),
		cmocka_unit_test(test_commit_loads_back),
		cmocka_unit_test(test_commit_own_file),
		cmocka_unit_test(test_open_fails_early),
		cmocka_unit_test(test_release_without_commit),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
