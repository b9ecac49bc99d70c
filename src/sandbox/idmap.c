// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * idmap.c - writable roots the command owns although another host user
 * does (jailrun(1), USERS AND ID MAPPING).
 *
 * Theory of operation. Root runs a rig's tasks in directories root owns
 * (mktemp -d, a checkout), and the command runs as an unprivileged user:
 * nobody, --user NAME, or fake root mapped to nobody. Without help it
 * cannot even list its own working directory. An idmapped mount fixes
 * that for one directory and nothing else: through that mount only, the
 * directory's host owner (and group) *is* the command's host user, so
 * the command reads and writes it as its own, and what it creates is
 * stored as the owner's (root's) on the host. Elsewhere nothing changes.
 *
 * How. A user namespace made for the purpose, whose uid_map reads
 * "OWNER HOSTUID 1" (gid_map likewise): the kernel takes an inode's
 * on-disk id as an id inside that namespace and shows its outside value
 * (mount_setattr(2), "ID-mapped mounts"). Only the owner is mapped; the
 * files of any other user show as the overflow id, as they would
 * anyway in the sandbox, which maps one id.
 *
 * Who. The kernel wants CAP_SYS_ADMIN over the filesystem's user
 * namespace, the initial one for a host filesystem: only the runner
 * started as root has it (init, in the sandbox's namespace, does not).
 * So the runner clones each root (open_tree, detached, recursive),
 * applies the idmap, and init, a copy of the runner, inherits the
 * descriptor and attaches it in place of its own clone. Rootless, the
 * caller owns its directories already, and could not idmap them anyway.
 *
 * What it must not give. Being the owner of root's files lets the
 * command chmod them, and a set-user-ID root program left in the
 * directory would run as root for anyone outside: the seccomp filter
 * refuses every mode with S_ISUID or S_ISGID (seccomp.c), so a root is
 * never idmapped with --seccomp off. A sticky directory (/var/tmp-like,
 * shared by users) is never idmapped: there ownership is per file, and
 * the command would own every file of the directory's owner. Mounts are
 * nosuid and nodev as every writable root is. --idmap off turns it off.
 */

#include <errno.h>
#include <fcntl.h>
#include <sched.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <sys/mount.h>
#include <sys/stat.h>
#include <sys/statfs.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>
#include <linux/openat2.h>

#include "cleanup.h"
#include "idmap.h"
#include "log.h"
#include "userns.h"

enum jr_idmap_verdict jr_idmap_decide(const struct jr_idmap_case *c)
{
	if (!c->privileged)
		return JR_IDMAP_ROOTLESS;
	if (c->owner == c->host_uid)
		return JR_IDMAP_SAME_OWNER;
	if (S_ISDIR(c->mode) && (c->mode & S_ISVTX))
		return JR_IDMAP_STICKY;
	if (!c->enabled)
		return JR_IDMAP_OFF;
	if (!c->seccomp)
		return JR_IDMAP_SECCOMP_OFF;
	return JR_IDMAP_YES;
}

const char *jr_idmap_verdict_why(enum jr_idmap_verdict v)
{
	switch (v) {
	case JR_IDMAP_YES:
		return "";
	case JR_IDMAP_SAME_OWNER:
		return "the command's user owns it";
	case JR_IDMAP_ROOTLESS:
		return "only jailrun started by root can idmap it";
	case JR_IDMAP_OFF:
		return "--idmap off";
	case JR_IDMAP_SECCOMP_OFF:
		return "not idmapped under --seccomp off, which would let the command leave set-user-ID programs of the owner";
	case JR_IDMAP_STICKY:
		return "a sticky (shared) directory is never idmapped";
	}
	return "";
}

bool jr_idmap_may_write(const struct stat *st, uid_t uid, gid_t gid)
{
	if (st->st_uid == uid)
		return st->st_mode & S_IWUSR;
	if (st->st_gid == gid)
		return st->st_mode & S_IWGRP;
	return st->st_mode & S_IWOTH;
}

/* The name of a filesystem for the "cannot idmap" warning. */
static const char *fs_name(const char *path)
{
	static const struct {
		unsigned long magic;
		const char *name;
	} known[] = {
		{ 0x6969, "nfs" },	     { 0x858458f6, "ramfs" },
		{ 0x794c7630, "overlayfs" }, { 0x65735546, "fuse" },
		{ 0x01021997, "9p" },	     { 0xff534d42, "cifs" },
		{ 0xfe534d42, "smb" },	     { 0x2fc12fc1, "zfs" },
	};
	struct statfs sf;

	if (statfs(path, &sf) < 0)
		return "its filesystem";
	for (size_t i = 0; i < sizeof(known) / sizeof(known[0]); i++)
		if ((unsigned long)sf.f_type == known[i].magic)
			return known[i].name;
	return "its filesystem";
}

/*
 * make_userns - a user namespace mapping @owner/@group (inside) to
 * @ids's host uid/gid (outside), for MOUNT_ATTR_IDMAP. A child enters
 * it and waits on a pipe while the maps are written (by root: no
 * setgroups deny is needed) and its namespace is opened; then it goes.
 * Return: an O_CLOEXEC fd of the namespace, or -errno with @err set.
 */
static int make_userns(uid_t owner, gid_t group, const struct jr_ids *ids,
		       struct jr_err *err)
{
	struct jr_ids map = { .uid = owner,
			      .gid = group,
			      .host_uid = ids->host_uid,
			      .host_gid = ids->host_gid,
			      .privileged = true };
	char path[64];
	int pipefd[2], fd = -1, r, status;
	pid_t pid;

	if (pipe2(pipefd, O_CLOEXEC) < 0)
		return jr_err_set(err, errno, "pipe: %s", strerror(errno));
	/* fork semantics (no new stack), the child only reads and exits:
	 * async-signal-safe even if the runner has threads by now. */
	pid = (pid_t)syscall(SYS_clone, CLONE_NEWUSER | SIGCHLD, NULL, NULL,
			     NULL, 0);
	if (pid == 0) {
		char c;

		close(pipefd[1]);
		while (read(pipefd[0], &c, 1) < 0 && errno == EINTR)
			;
		_exit(0);
	}
	r = pid < 0 ? -errno : 0;
	close(pipefd[0]);
	if (r < 0) {
		close(pipefd[1]);
		return jr_err_set(
		    err, -r,
		    "cannot create a user namespace for the idmapped mount: %s",
		    strerror(-r));
	}
	r = jr_userns_write_maps(pid, &map, err);
	if (r == 0) {
		snprintf(path, sizeof(path), "/proc/%d/ns/user", (int)pid);
		fd = open(path, O_RDONLY | O_CLOEXEC);
		if (fd < 0)
			r = jr_err_set(err, errno, "%s: %s", path,
				       strerror(errno));
	}
	close(pipefd[1]); /* the child reads EOF and exits */
	while (waitpid(pid, &status, 0) < 0 && errno == EINTR)
		;
	return r < 0 ? r : fd;
}

/*
 * idmapped_clone - a detached recursive clone of @path (canonical, no
 * symlink followed), idmapped through @userns, nosuid and nodev.
 * Return: the mount fd (O_CLOEXEC), -EINVAL/-EPERM when the filesystem
 * cannot be idmapped (@err set, the caller decides), or -errno.
 */
static int idmapped_clone(const char *path, int userns, bool *is_dir,
			  struct jr_err *err)
{
	struct open_how how = { .flags = O_PATH | O_NOFOLLOW | O_CLOEXEC,
				.resolve = RESOLVE_NO_SYMLINKS |
					   RESOLVE_NO_MAGICLINKS };
	struct mount_attr attr = {
		.attr_set =
		    MOUNT_ATTR_IDMAP | MOUNT_ATTR_NOSUID | MOUNT_ATTR_NODEV,
		.userns_fd = (uint64_t)userns,
	};
	_cleanup_close_ int fd = -1;
	struct stat st;
	int c, e;

	fd = (int)syscall(SYS_openat2, AT_FDCWD, path, &how, sizeof(how));
	if (fd < 0 || fstat(fd, &st) < 0)
		return jr_err_set(
		    err, errno,
		    "%s: %s (a symlink here means it changed since jailrun looked; refusing)",
		    path, strerror(errno));
	c = open_tree(fd, "",
		      AT_EMPTY_PATH | OPEN_TREE_CLONE | OPEN_TREE_CLOEXEC |
			  AT_RECURSIVE);
	if (c < 0)
		return jr_err_set(err, errno, "cannot clone %s: %s", path,
				  strerror(errno));
	if (mount_setattr(c, "", AT_EMPTY_PATH | AT_RECURSIVE, &attr,
			  sizeof(attr)) == 0) {
		*is_dir = S_ISDIR(st.st_mode);
		return c;
	}
	e = errno;
	close(c);
	return jr_err_set(err, e, "%s", strerror(e));
}

/* One user namespace per (owner, group): roots usually share theirs. */
struct userns_cache {
	uid_t owner[8];
	gid_t group[8];
	int fd[8];
	size_t n;
};

static int cached_userns(struct userns_cache *cache, const struct stat *st,
			 const struct jr_ids *ids, struct jr_err *err)
{
	int fd;

	for (size_t i = 0; i < cache->n; i++)
		if (cache->owner[i] == st->st_uid &&
		    cache->group[i] == st->st_gid)
			return cache->fd[i];
	fd = make_userns(st->st_uid, st->st_gid, ids, err);
	if (fd < 0 || cache->n == sizeof(cache->fd) / sizeof(cache->fd[0]))
		return fd; /* past 8 owners: the caller closes it */
	cache->owner[cache->n] = st->st_uid;
	cache->group[cache->n] = st->st_gid;
	cache->fd[cache->n++] = fd;
	return fd;
}

static bool cached(const struct userns_cache *cache, int fd)
{
	for (size_t i = 0; i < cache->n; i++)
		if (cache->fd[i] == fd)
			return true;
	return false;
}

/*
 * idmap_one - idmap the writable root @o if jr_idmap_decide() says so.
 * A filesystem that refuses (EINVAL: no idmap support; EPERM) is left
 * as it is, with a warning. Return: 0 or -errno with @err set.
 */
static int idmap_one(struct jr_fs_op *o, const struct stat *st,
		     const struct jr_ids *ids, struct userns_cache *cache,
		     struct jr_err *err)
{
	struct jr_err why = { 0 };
	int userns, fd;

	userns = cached_userns(cache, st, ids, err);
	if (userns < 0)
		return userns;
	fd = idmapped_clone(o->path, userns, &o->idmap_is_dir, &why);
	if (!cached(cache, userns))
		close(userns);
	if (fd == -EINVAL || fd == -EPERM) {
		jr_warn(
		    "cannot idmap %s (%s does not support idmapped mounts: %s): the command does not own it; chown it to the command's user (uid %u), or pass --user with its owner",
		    o->path, fs_name(o->path), why.msg,
		    (unsigned)ids->host_uid);
		return 0;
	}
	if (fd < 0)
		return jr_err_set(err, -fd, "cannot idmap %s: %s", o->path,
				  why.msg);
	o->idmap_fd = fd;
	jr_verbose("%s: idmapped, its owner %u:%u is the command's user",
		   o->path, (unsigned)st->st_uid, (unsigned)st->st_gid);
	return 0;
}

/*
 * The start-up warning: a working directory the command cannot write,
 * although its caller can: root. Rootless, the command has the caller's
 * own rights there, which are no surprise.
 */
static void warn_workdir(const struct jr_fs_op *o, const struct stat *st,
			 const struct jr_ids *ids, enum jr_idmap_verdict v)
{
	if (!ids->privileged || o->idmap_fd >= 0 ||
	    jr_idmap_may_write(st, ids->host_uid, ids->host_gid))
		return;
	jr_warn(
	    "the command (host uid %u) probably cannot write its working directory %s (owner %u, group %u, mode %04o)%s%s; chown it, pass --user with its owner, or --workdir a directory the command may write",
	    (unsigned)ids->host_uid, o->path, (unsigned)st->st_uid,
	    (unsigned)st->st_gid, (unsigned)(st->st_mode & 07777),
	    v == JR_IDMAP_YES || v == JR_IDMAP_SAME_OWNER ? "" : ": ",
	    v == JR_IDMAP_YES || v == JR_IDMAP_SAME_OWNER
		? ""
		: jr_idmap_verdict_why(v));
}

/* Close every clone made so far: a failed preparation leaves none. */
static void close_clones(struct jr_fs_plan *plan)
{
	for (size_t i = 0; i < plan->n_ops; i++)
		if (plan->ops[i].idmap_fd >= 0) {
			close(plan->ops[i].idmap_fd);
			plan->ops[i].idmap_fd = -1;
		}
}

int jr_fs_idmap_prepare(struct jr_fs_plan *plan, const struct jr_ids *ids,
			bool enabled, bool seccomp, struct jr_err *err)
{
	struct userns_cache cache = { .n = 0 };
	int r = 0;

	/* Rootless: nothing to idmap and nothing to warn of (the command has
	 * the caller's rights); no stat on the start-up path either. */
	if (!ids->privileged)
		return 0;
	for (size_t i = 0; i < plan->n_ops && r == 0; i++) {
		struct jr_fs_op *o = &plan->ops[i];
		struct jr_idmap_case c = { .privileged = ids->privileged,
					   .enabled = enabled,
					   .seccomp = seccomp,
					   .host_uid = ids->host_uid };
		enum jr_idmap_verdict v;
		struct stat st;

		if (o->kind != JR_FS_OP_RW || jr_fs_plan_lifted(plan, o->path))
			continue;
		if (stat(o->path, &st) < 0) {
			r = jr_err_set(err, errno, "%s: %s", o->path,
				       strerror(errno));
			break;
		}
		c.owner = st.st_uid;
		c.mode = st.st_mode;
		v = jr_idmap_decide(&c);
		if (v == JR_IDMAP_YES)
			r = idmap_one(o, &st, ids, &cache, err);
		if (r == 0 && plan->workdir && plan->workdir_writable &&
		    strcmp(o->path, plan->workdir) == 0)
			warn_workdir(o, &st, ids, v);
	}
	for (size_t i = 0; i < cache.n; i++)
		close(cache.fd[i]);
	if (r < 0)
		close_clones(plan);
	return r;
}
