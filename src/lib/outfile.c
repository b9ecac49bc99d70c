// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * outfile.c - open the files jailrun writes for its caller (see outfile.h).
 *
 * Theory of operation. jailrun, often root, writes --json and --log where
 * its caller says, and such paths are often in a directory another user
 * can write (/tmp, a shared checkout). Whoever controls a name in such a
 * directory controls what an open(2) that follows names reaches: a
 * symbolic link there once made root truncate a root-owned file with the
 * summary. fs.protected_symlinks and fs.protected_regular stop that in
 * sticky directories only, and only where they are on.
 *
 * So the last component is opened with O_NOFOLLOW (a symbolic link is
 * refused, never followed), the opened descriptor is checked with fstat
 * (who owns it, how many names it has), and only then is anything
 * written or truncated: O_TRUNC would act before the check, so the
 * summary is truncated with ftruncate(2) after it. The check is on the
 * object opened, not on the name, so a swap between two steps gains
 * nothing. The same checks are made on lstat(2) before the open, for
 * the messages and so that another user's FIFO is refused before open(2)
 * waits for a reader forever; the ones after the open are those that
 * count.
 *
 * The directories above the file are the caller's choice and are followed:
 * this guards the name jailrun creates or truncates, not a path the
 * caller built out of another user's directories.
 *
 * Rigs name descriptors as paths (/dev/stdout, bash's /dev/fd/63). Those
 * are symbolic links too, but into the runner's own descriptor table, and
 * they live in /dev and /proc, where only root and the kernel put names:
 * they, and "-" for standard output, are taken as that descriptor,
 * duplicated, without a check (like --log-fd, it is the caller's own).
 */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "cleanup.h"
#include "outfile.h"

/* "N" in decimal, no sign, no leading zero but "0", at most INT_MAX. */
static int parse_fd(const char *s)
{
	long v = 0;

	if (!*s || (s[0] == '0' && s[1]))
		return -1;
	for (; *s; s++) {
		if (*s < '0' || *s > '9')
			return -1;
		v = v * 10 + (*s - '0');
		if (v > INT_MAX)
			return -1;
	}
	return (int)v;
}

int jr_outfile_std_fd(const char *path)
{
	if (strcmp(path, "-") == 0 || strcmp(path, "/dev/stdout") == 0)
		return STDOUT_FILENO;
	if (strcmp(path, "/dev/stderr") == 0)
		return STDERR_FILENO;
	if (strncmp(path, "/dev/fd/", 8) == 0)
		return parse_fd(path + 8);
	if (strncmp(path, "/proc/self/fd/", 14) == 0)
		return parse_fd(path + 14);
	return -1;
}

const char *jr_outfile_refusal(const struct stat *st, uid_t euid)
{
	switch (st->st_mode & S_IFMT) {
	case S_IFCHR:
		return NULL; /* only root makes device nodes */
	case S_IFREG:
	case S_IFIFO:
		if (st->st_uid != euid && st->st_uid != 0)
			return "belongs to another user";
		if (S_ISREG(st->st_mode) && st->st_nlink > 1)
			return "has other names (hard links)";
		return NULL;
	case S_IFDIR:
		return "is a directory";
	default:
		return "is not a file, a FIFO or a character device";
	}
}

static int refuse(struct jr_err *err, const char *opt, const char *path,
		  const struct stat *st, const char *why)
{
	if (strcmp(why, "belongs to another user") == 0)
		return jr_err_set(
		    err, EPERM,
		    "%s %s: belongs to uid %u, not to you (uid %u) or root: jailrun does not write another user's file; remove it or name a new one",
		    opt, path, (unsigned)st->st_uid, (unsigned)geteuid());
	if (strcmp(why, "has other names (hard links)") == 0)
		return jr_err_set(
		    err, EPERM,
		    "%s %s: has %lu names (hard links), so writing it would change a file elsewhere too: remove it or name a new one",
		    opt, path, (unsigned long)st->st_nlink);
	return jr_err_set(err, EINVAL, "%s %s: %s", opt, path, why);
}

static int refuse_link(struct jr_err *err, const char *opt, const char *path)
{
	return jr_err_set(
	    err, ELOOP,
	    "%s %s: is a symbolic link, which jailrun does not follow (another user could have made it): name the file itself%s",
	    opt, path,
	    strcmp(opt, "--log") == 0 ? ", or pass a descriptor with --log-fd N"
				      : ", or - for standard output");
}

int jr_outfile_open(const char *opt, const char *path, bool append, mode_t mode,
		    struct jr_err *err)
{
	_cleanup_close_ int fd = -1;
	int std = jr_outfile_std_fd(path);
	const char *why;
	struct stat st;

	if (std >= 0) {
		fd = fcntl(std, F_DUPFD_CLOEXEC, 3);
		if (fd < 0)
			return jr_err_set(
			    err, errno, "%s %s: descriptor %d is not open: %s",
			    opt, path, std, strerror(errno));
		return steal_fd(&fd);
	}
	/* Not the check that counts (the open and fstat below are): so that
	 * another user's FIFO does not hold us in open(2) waiting for a
	 * reader, and so that the message says what is wrong whatever the
	 * kernel's own protections (fs.protected_*) make open(2) fail with. */
	if (lstat(path, &st) == 0) {
		if (S_ISLNK(st.st_mode))
			return refuse_link(err, opt, path);
		why = jr_outfile_refusal(&st, geteuid());
		if (why)
			return refuse(err, opt, path, &st, why);
	}
	fd = open(path,
		  O_WRONLY | O_CREAT | O_NOFOLLOW | O_CLOEXEC | O_NOCTTY |
		      (append ? O_APPEND : 0),
		  mode);
	if (fd < 0 && errno == ELOOP)
		return refuse_link(err, opt, path);
	if (fd < 0)
		return jr_err_set(err, errno,
				  "%s %s: cannot open for writing: %s", opt,
				  path, strerror(errno));
	if (fstat(fd, &st) < 0)
		return jr_err_set(err, errno, "%s %s: fstat: %s", opt, path,
				  strerror(errno));
	why = jr_outfile_refusal(&st, geteuid());
	if (why)
		return refuse(err, opt, path, &st, why);
	if (!append && S_ISREG(st.st_mode) && ftruncate(fd, 0) < 0)
		return jr_err_set(err, errno, "%s %s: cannot truncate it: %s",
				  opt, path, strerror(errno));
	return steal_fd(&fd);
}
