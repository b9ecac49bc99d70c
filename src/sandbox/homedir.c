// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * homedir.c - create a missing --rw/--tmpfs directory under the caller's
 * home (jailrun(1), --rw).
 *
 * Theory of operation. Tool caches (~/.npm, ~/.cache/pip) often do not
 * exist before a tool's first run, and a --rw of a missing path cannot be
 * mounted. The runner creates it before planning, with the caller's own
 * rights, and only where that cannot be turned against anyone:
 *  - only strictly below the caller's home (the $HOME that "~" in a
 *    config file expands to, else the caller's passwd entry): never the
 *    home itself, never "/", never a path with "..", which may lead
 *    through a symlink elsewhere than its lexical form says;
 *  - component by component from a descriptor of the home, each looked up
 *    with openat2(2) RESOLVE_BENEATH | RESOLVE_NO_SYMLINKS: a symlink
 *    anywhere below the home, even one swapped in meanwhile, is refused,
 *    so nothing is created outside it;
 *  - as the home's owner: a caller who owns it creates as itself; root
 *    creating in another user's home switches its filesystem uid and gid
 *    (setfsuid(2)) to the owner's, so the kernel checks the owner's rights
 *    (root's CAP_DAC_OVERRIDE and CAP_CHOWN are dropped while it does) and
 *    the new directories belong to the owner. Anyone else is told to run
 *    "mkdir -p" themselves.
 * Each new directory is made 0700 (fchmod after mkdirat, whatever the
 * umask): a cache is the owner's alone.
 */

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <pwd.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/fsuid.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <unistd.h>
#include <linux/openat2.h>

#include "cleanup.h"
#include "fspolicy.h"
#include "homedir.h"
#include "home.h"

#define RESOLVE_HOME                                                           \
	(RESOLVE_BENEATH | RESOLVE_NO_SYMLINKS | RESOLVE_NO_MAGICLINKS)

/* One component @name below @dirfd, no symlink followed. */
static int open_below(int dirfd, const char *name, int flags)
{
	struct open_how how = {
		.flags = (unsigned long long)(flags | O_DIRECTORY | O_NOFOLLOW |
					      O_CLOEXEC),
		.resolve = RESOLVE_HOME,
	};

	return (int)syscall(SYS_openat2, dirfd, name, &how, sizeof(how));
}

/* What went wrong at @done (the path so far, its last component @comp
 * in @dirfd), and what to do. */
static int walk_error(const char *opt, const char *arg, const char *done,
		      int dirfd, const char *comp, int e, struct jr_err *err)
{
	struct stat st;
	const char *why;

	/* O_DIRECTORY | O_NOFOLLOW on a symlink says ENOTDIR. */
	if (e == ENOTDIR &&
	    fstatat(dirfd, comp, &st, AT_SYMLINK_NOFOLLOW) == 0 &&
	    S_ISLNK(st.st_mode))
		e = ELOOP;
	why = e == ELOOP     ? "is a symbolic link, not followed"
	      : e == ENOTDIR ? "is not a directory"
			     : strerror(e);

	return jr_err_set(
	    err, e == ELOOP ? EPERM : e,
	    "--%s %s: does not exist, and jailrun will not create it: %s %s; create it yourself: mkdir -p %s",
	    opt, arg, done, why, arg);
}

/*
 * make_below - create each missing component of @rel below @homefd.
 * @home: the home's canonical path, for messages.
 * Return: 0, or -errno with @err set.
 */
static int make_below(const char *opt, const char *arg, int homefd,
		      const char *home, const char *rel, struct jr_err *err)
{
	_cleanup_close_ int dir = -1;
	char done[PATH_MAX], comp[NAME_MAX + 1];
	const char *p = rel;
	int cur = homefd;

	if (snprintf(done, sizeof(done), "%s", home) >= (int)sizeof(done))
		return jr_err_set(err, ENAMETOOLONG, "--%s %s: name too long",
				  opt, arg);
	while (*p) {
		size_t n = strcspn(p, "/");
		bool made = false;
		int fd;

		if (n > NAME_MAX)
			return jr_err_set(err, ENAMETOOLONG,
					  "--%s %s: name too long", opt, arg);
		memcpy(comp, p, n);
		comp[n] = '\0';
		p += n + (p[n] == '/');
		if (strlen(done) + 1 + n >= sizeof(done))
			return jr_err_set(err, ENAMETOOLONG,
					  "--%s %s: name too long", opt, arg);
		strcat(strcat(done, "/"), comp);
		fd = open_below(cur, comp, O_PATH);
		if (fd < 0 && errno == ENOENT) {
			if (mkdirat(cur, comp, 0700) == 0)
				made = true;
			else if (errno != EEXIST)
				return walk_error(opt, arg, done, cur, comp,
						  errno, err);
			fd = open_below(cur, comp, O_RDONLY);
		}
		if (fd < 0)
			return walk_error(opt, arg, done, cur, comp, errno,
					  err);
		if (made && fchmod(fd, 0700) < 0) {
			int e = errno;

			close(fd);
			return walk_error(opt, arg, done, cur, comp, e, err);
		}
		if (dir >= 0)
			close(dir);
		cur = dir = fd;
	}
	return 0;
}

/* The filesystem ids in force, and whether switching to them held. */
static bool set_fsids(uid_t uid, gid_t gid)
{
	setfsgid(gid);
	setfsuid(uid);
	/* An invalid id changes nothing and returns the current one. */
	return (uid_t)setfsuid((uid_t)-1) == uid &&
	       (gid_t)setfsgid((gid_t)-1) == gid;
}

int jr_fs_make_home_dir(const char *opt, const char *arg, struct jr_err *err)
{
	char cwd[PATH_MAX], norm[PATH_MAX], home_n[PATH_MAX], home_c[PATH_MAX];
	_cleanup_close_ int homefd = -1;
	const char *home = jr_caller_home(), *rel = NULL;
	bool switched = false;
	struct passwd *pw;
	struct stat st;
	gid_t gid;
	int r;

	if (!home || !getcwd(cwd, sizeof(cwd)) ||
	    jr_fs_normalize(cwd, arg, norm, sizeof(norm)) < 0)
		return 1;
	if (jr_fs_normalize("/", home, home_n, sizeof(home_n)) == 0)
		rel = jr_fs_below_home(arg, norm, home_n);
	if (!rel && realpath(home, home_c))
		rel = jr_fs_below_home(arg, norm, home_c);
	if (!rel)
		return 1; /* not below the home: the caller says so */
	if (!realpath(home, home_c))
		return jr_err_set(err, errno, "--%s %s: your home %s: %s", opt,
				  arg, home, strerror(errno));
	homefd = open(home_c, O_PATH | O_DIRECTORY | O_CLOEXEC);
	if (homefd < 0 || fstat(homefd, &st) < 0)
		return jr_err_set(err, errno, "--%s %s: your home %s: %s", opt,
				  arg, home_c, strerror(errno));
	if (st.st_uid != getuid() && geteuid() != 0)
		return jr_err_set(
		    err, EPERM,
		    "--%s %s: does not exist, and your home %s belongs to uid %u, not you: create it yourself: mkdir -p %s",
		    opt, arg, home_c, (unsigned)st.st_uid, arg);
	if (st.st_uid != geteuid()) {
		pw = getpwuid(st.st_uid);
		gid = pw ? pw->pw_gid : st.st_gid;
		switched = true;
		if (!set_fsids(st.st_uid, gid)) {
			set_fsids(geteuid(), getegid());
			return jr_err_set(
			    err, EPERM,
			    "--%s %s: cannot take the filesystem ids of %s's owner (uid %u); create it yourself: mkdir -p %s",
			    opt, arg, home_c, (unsigned)st.st_uid, arg);
		}
	}
	r = make_below(opt, arg, homefd, home_c, rel, err);
	if (switched && !set_fsids(geteuid(), getegid()))
		return jr_err_set(err, EPERM,
				  "cannot restore the filesystem ids");
	return r;
}
