// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * gitsweep.c - the git files a command may add but must not leave behind.
 *
 * Theory of operation. The layout (fslayout.c) pins a writable
 * repository's .git (a mount point cannot be renamed) and makes what
 * exists of its code-bearing entries read-only: config, hooks, commondir,
 * config.worktree. What does not exist at start cannot be covered: a mount
 * needs an existing file, and jailrun does not create files in the user's
 * tree. Nor can Landlock or seccomp refuse one name in a directory where
 * git itself must create its lock files. So a command could write
 * .git/commondir pointing at a directory of its own whose config names a
 * core.fsmonitor or a hook, or a .git/hooks where there was none, and the
 * host's git would run that code at the user's next git command.
 *
 * The last line is here: before the command runs, each git directory is
 * opened O_PATH and which of the protected table's read-only .git entries
 * (hooks, config, config.worktree, commondir, modules) exist in it is
 * noted; after the
 * sandbox is gone (every process of it dead with its PID namespace), each
 * watched name that appeared is renamed aside, relative to that pinned
 * descriptor (renameat(2): no path is resolved again), and a warning
 * names it. The repository keeps working without them: none of them is
 * created by git itself in a repository that lacked it, except hooks by
 * `git init`, which a rename of a fresh hooks/ directory does not harm,
 * and modules by `git submodule`, which needs a config write refused
 * inside anyway.
 * A git command the user runs on the host *while* the sandbox runs still
 * sees them; the man page says so.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "fspolicy.h"
#include "gitsweep.h"
#include "log.h"

/*
 * The names watched are the protected table's own (fspolicy.c): each
 * entry kept read-only directly in .git (hooks, config, commondir...),
 * with the reason written there. One table says what git follows to code.
 */
struct jr_gitsweep_dir {
	int fd;
	char *path;
	bool *present; /* per row of jr_fs_protected[]: there at arm time */
};

static bool exists_at(int dirfd, const char *name)
{
	struct stat st;

	return fstatat(dirfd, name, &st, AT_SYMLINK_NOFOLLOW) == 0;
}

static int arm_one(struct jr_gitsweep *s, const char *gitdir)
{
	struct jr_gitsweep_dir *d;
	struct stat st;
	int fd = open(gitdir, O_PATH | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);

	if (fd < 0) {
		if (errno != ENOENT && errno != ENOTDIR)
			jr_verbose("git: cannot watch %s (%s)", gitdir,
				   strerror(errno));
		return 0;
	}
	if (fstat(fd, &st) < 0) {
		close(fd);
		return 0;
	}
	for (size_t i = 0; i < s->n; i++) {
		struct stat o;

		if (fstat(s->dirs[i].fd, &o) == 0 && o.st_dev == st.st_dev &&
		    o.st_ino == st.st_ino) {
			close(fd);
			return 0; /* the same directory reached twice */
		}
	}
	d = realloc(s->dirs, (s->n + 1) * sizeof(*d));
	if (!d) {
		close(fd);
		return -ENOMEM;
	}
	s->dirs = d;
	d = &s->dirs[s->n];
	d->path = strdup(gitdir);
	d->present = calloc(jr_fs_n_protected, sizeof(*d->present));
	if (!d->path || !d->present) {
		free(d->path);
		free(d->present);
		close(fd);
		return -ENOMEM;
	}
	d->fd = fd;
	for (size_t i = 0; i < jr_fs_n_protected; i++) {
		const char *name = jr_fs_git_child(&jr_fs_protected[i]);

		d->present[i] = name && exists_at(fd, name);
	}
	s->n++;
	return 0;
}

int jr_gitsweep_arm(struct jr_gitsweep *s, const struct jr_fs_plan *plan)
{
	char path[4096];
	int r;

	s->dirs = NULL;
	s->n = 0;
	if (plan->mode == JR_FS_HOST)
		return 0;
	for (size_t i = 0; i < plan->n_ops; i++) {
		if (plan->ops[i].kind != JR_FS_OP_RW)
			continue;
		if (snprintf(path, sizeof(path), "%s/.git",
			     plan->ops[i].path) >= (int)sizeof(path))
			continue;
		r = arm_one(s, path);
		if (r < 0)
			return r;
	}
	for (size_t i = 0; i < plan->n_gitdirs; i++) {
		r = arm_one(s, plan->gitdirs[i]);
		if (r < 0)
			return r;
	}
	return 0;
}

/* Rename @name of @d aside; return true if it was. */
static bool set_aside(struct jr_gitsweep_dir *d, const char *name)
{
	char to[128];

	for (int n = 0; n < 100; n++) {
		if (n == 0)
			snprintf(to, sizeof(to), "%s.jailrun-quarantine", name);
		else
			snprintf(to, sizeof(to), "%s.jailrun-quarantine.%d",
				 name, n);
		if (renameat2(d->fd, name, d->fd, to, RENAME_NOREPLACE) == 0) {
			jr_warn("the command created %s/%s, which git on the "
				"host would follow to run code: moved to %s/%s",
				d->path, name, d->path, to);
			return true;
		}
		if (errno != EEXIST)
			break;
	}
	jr_warn("the command created %s/%s, which git on the host would "
		"follow to run code, and it could not be moved aside (%s): "
		"remove it before running git there",
		d->path, name, strerror(errno));
	return false;
}

size_t jr_gitsweep_run(struct jr_gitsweep *s)
{
	size_t moved = 0;

	for (size_t i = 0; i < s->n; i++)
		for (size_t w = 0; w < jr_fs_n_protected; w++) {
			const char *name = jr_fs_git_child(&jr_fs_protected[w]);

			if (name && !s->dirs[i].present[w] &&
			    exists_at(s->dirs[i].fd, name) &&
			    set_aside(&s->dirs[i], name))
				moved++;
		}
	return moved;
}

void jr_gitsweep_release(struct jr_gitsweep *s)
{
	for (size_t i = 0; i < s->n; i++) {
		close(s->dirs[i].fd);
		free(s->dirs[i].path);
		free(s->dirs[i].present);
	}
	free(s->dirs);
	s->dirs = NULL;
	s->n = 0;
}
