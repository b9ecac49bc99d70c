// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * fslayout.c - the sandbox's filesystem layout (jailrun(1), FILESYSTEM).
 *
 * Theory of operation. Two halves:
 *
 * The runner plans (jr_fs_plan_build): every path option is canonicalised
 * once with realpath(3), with the caller's own view and rights, and
 * refused (exit 125, naming it) when it does not exist. Canonical paths
 * hold no symlink, so init can open each of them with openat2(2)
 * RESOLVE_NO_SYMLINKS: a symlink swapped in after planning makes the open
 * fail (fail closed) instead of redirecting a mount.
 *
 * Init builds (jr_fs_apply), in its own mount namespace, with the new
 * mount API, every step on an O_PATH descriptor:
 *  1. everything private, so nothing propagates to or from the host;
 *  2. while the host tree is still whole, detached clones
 *     (open_tree(OPEN_TREE_CLONE|AT_RECURSIVE)) of each writable root,
 *     --ro path, --expose socket and the six device nodes; fresh detached
 *     tmpfs, devpts, proc and sysfs instances (fsopen/fsmount);
 *  3. a recursive clone of "/" made read-only, nosuid, nodev with one
 *     mount_setattr(AT_RECURSIVE): the writable clones were taken before,
 *     so they keep their write access;
 *  4. a short-lived child with a mapped fsuid creates the mountpoints
 *     inside the still-detached tmpfs instances (a workdir under /tmp
 *     needs its directory in the new /tmp); init's own fsuid may not be
 *     mapped, and changing it would clear its parent-death signal;
 *  5. the clone is attached at a staging point, and each piece is moved
 *     onto its place in it, parents before children (the plan is sorted
 *     by depth); targets are opened with RESOLVE_IN_ROOT|NO_SYMLINKS;
 *  6. protected paths in each writable root get a bind on themselves,
 *     read-only or (.git) writable and pinned: a mountpoint cannot be
 *     renamed or removed, so nothing else can take its name; hidden paths
 *     an empty read-only directory or file. What init may not reach is
 *     tried with the command's rights (guard());
 *  7. pivot_root(".", ".") into the clone and a lazy unmount of the old
 *     root: the host tree is gone from the namespace. The unmount waits
 *     for an RCU grace period, so it runs in a child beside init's network
 *     setup, and init waits for it (jr_fs_apply_finish) before anything
 *     can run in the sandbox (see jr_mounts_detach_start()).
 * Mounts inherited from the host are locked in the sandbox's user
 * namespace (mount_namespaces(7)): a process there can add restrictions
 * (MOUNT_ATTR_RDONLY) but never lift the ones it inherited, nor unmount a
 * cover to see beneath. The command has no capabilities at all, and a
 * nested namespace (--allow-nested) inherits all of it locked.
 *
 * Why the new API: open_tree() and move_mount() take descriptors, so the
 * object checked is the object mounted, with no path looked up twice; and
 * one mount_setattr(AT_RECURSIVE) replaces a remount per submount, which
 * with mount(2) would need /proc/self/mountinfo parsed and every mount
 * walked. jailrun already needs Linux >= 5.12 (pidfd_open, fsopen for
 * resolv.conf, mount_setattr), so there is no mount(2) fallback: a kernel
 * without it is told so (ENOSYS), and --fs host is the way out.
 */

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <pwd.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/fsuid.h>
#include <sys/mount.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>
#include <linux/openat2.h>

#include "cleanup.h"
#include "container.h"
#include "fslayout.h"
#include "fspolicy.h"
#include "homedir.h"
#include "log.h"
#include "mounts.h"
#include "secrets.h"

#define RESOLVE_STRICT                                                         \
	(RESOLVE_IN_ROOT | RESOLVE_NO_SYMLINKS | RESOLVE_NO_MAGICLINKS)

/* ------------------------------------------------------------------ plan */

static int push_str(char ***arr, size_t *n, const char *s)
{
	char **a = realloc(*arr, (*n + 1) * sizeof(**arr));

	if (!a)
		return -ENOMEM;
	*arr = a;
	a[*n] = strdup(s);
	if (!a[*n])
		return -ENOMEM;
	(*n)++;
	return 0;
}

static void free_strs(char **arr, size_t n)
{
	for (size_t i = 0; i < n; i++)
		free(arr[i]);
	free(arr);
}

static bool has_str(char *const *arr, size_t n, const char *s)
{
	for (size_t i = 0; i < n; i++)
		if (strcmp(arr[i], s) == 0)
			return true;
	return false;
}

static int push_op(struct jr_fs_plan *p, enum jr_fs_op_kind kind,
		   const char *path)
{
	struct jr_fs_op *o = realloc(p->ops, (p->n_ops + 1) * sizeof(*o));

	if (!o)
		return -ENOMEM;
	p->ops = o;
	o[p->n_ops] = (struct jr_fs_op){ .kind = kind, .idmap_fd = -1 };
	o[p->n_ops].path = strdup(path);
	if (!o[p->n_ops].path)
		return -ENOMEM;
	p->n_ops++;
	return 0;
}

/* Canonical form of an option's path; ENOENT and friends named. */
static int canon_option(const char *opt, const char *arg, char *out,
			struct jr_err *err)
{
	if (!realpath(arg, out))
		return jr_err_set(err, errno, "--%s %s: %s", opt, arg,
				  strerror(errno));
	return 0;
}

/* canon_option() for --rw and --tmpfs: a missing directory below the
 * caller's home is created first (homedir.c), a tool cache's first run. */
static int canon_or_make(const char *opt, const char *arg, char *out,
			 struct jr_err *err)
{
	int r;

	if (realpath(arg, out))
		return 0;
	if (errno != ENOENT)
		return canon_option(opt, arg, out, err);
	r = jr_fs_make_home_dir(opt, arg, err);
	if (r < 0)
		return r;
	if (r == 0)
		jr_verbose("--%s %s: created it (mode 0700) in your home", opt,
			   arg);
	return canon_option(opt, arg, out, err);
}

bool jr_fs_plan_lifted(const struct jr_fs_plan *p, const char *path)
{
	return has_str(p->lifted, p->n_lifted, path);
}

void jr_fs_plan_release(struct jr_fs_plan *p)
{
	for (size_t i = 0; i < p->n_ops; i++) {
		if (p->ops[i].idmap_fd >= 0)
			close(p->ops[i].idmap_fd);
		free(p->ops[i].path);
	}
	for (size_t i = 0; i < p->n_hidden; i++)
		free(p->hidden[i]);
	for (size_t i = 0; i < p->n_exposed; i++)
		free(p->exposed[i]);
	free_strs(p->gitdirs, p->n_gitdirs);
	free_strs(p->lifted, p->n_lifted);
	free(p->ops);
	free(p->hidden);
	free(p->exposed);
	free(p->workdir);
	memset(p, 0, sizeof(*p));
}

/*
 * add_secret_files - hide the file of each --secret NAME=file:PATH (the
 * command holds a placeholder, so the file must not give it the value),
 * in both layouts and whatever --rw/--ro name: also inside the working
 * directory. secrets.c checks the path still leads to the file it read.
 * Return: 0 or -errno with @err set.
 */
static int add_secret_files(struct jr_fs_plan *p, const struct jr_options *opts,
			    struct jr_err *err)
{
	char canon[PATH_MAX];

	for (size_t i = 0; opts->secrets && i < opts->secrets->n; i++) {
		int r = jr_secret_file_canon(&opts->secrets->s[i], canon, err);

		if (r <= 0) {
			if (r < 0)
				return r;
			continue;
		}
		if (!has_str(p->hidden, p->n_hidden, canon) &&
		    push_str(&p->hidden, &p->n_hidden, canon) < 0)
			return jr_err_set(err, ENOMEM, "out of memory");
	}
	return 0;
}

/*
 * add_hidden - hide what @path leads to, if anything. @named: the --rw and
 * --ro arguments as given (lexically normalized, never resolved): only
 * naming the hidden path itself opts out of hiding it. Comparing resolved
 * paths would let a symlink swapped in before planning (--rw ./x, with x
 * pointing at ~/.ssh for a moment) turn an innocent option into that
 * opt-out; the race test in tests/integration/fs.sh caught exactly that.
 */
static int add_hidden(struct jr_fs_plan *p, const char *path,
		      char *const *named, size_t n_named)
{
	char canon[PATH_MAX], norm[PATH_MAX];

	if (!realpath(path, canon))
		return 0; /* nothing there: nothing to hide, nothing to make */
	if (jr_fs_normalize("/", path, norm, sizeof(norm)) == 0 &&
	    has_str(named, n_named, norm))
		return 0;
	if (has_str(p->hidden, p->n_hidden, canon))
		return 0;
	return push_str(&p->hidden, &p->n_hidden, canon);
}

/*
 * add_gitdir - where the .git file of the writable root @root leads, if it
 * has one ("gitdir: DIR", gitrepository-layout(5); a linked worktree,
 * a submodule, --separate-git-dir). Git reads hooks and config there, so
 * init keeps the .git rows of the protected table there too.
 * Return: 0 (also when there is none) or -ENOMEM.
 */
static int add_gitdir(struct jr_fs_plan *p, const char *root)
{
	char path[PATH_MAX], buf[PATH_MAX + 16], canon[PATH_MAX];
	_cleanup_close_ int fd = -1;
	struct stat st;
	ssize_t n;
	char *g;

	if (snprintf(path, sizeof(path), "%s/.git",
		     strcmp(root, "/") ? root : "") >= (int)sizeof(path))
		return 0;
	fd = open(path, O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC);
	if (fd < 0 || fstat(fd, &st) < 0 || !S_ISREG(st.st_mode))
		return 0;
	n = read(fd, buf, sizeof(buf) - 1);
	if (n <= 8)
		return 0;
	buf[n] = '\0';
	if (strncmp(buf, "gitdir: ", 8) != 0)
		return 0;
	g = buf + 8;
	g[strcspn(g, "\r\n")] = '\0';
	/* Relative to the directory of the .git file, as git reads it. */
	if (g[0] != '/' &&
	    snprintf(path, sizeof(path), "%s/%s", root, g) >= (int)sizeof(path))
		return 0;
	if (!realpath(g[0] == '/' ? g : path, canon) ||
	    has_str(p->gitdirs, p->n_gitdirs, canon))
		return 0;
	return push_str(&p->gitdirs, &p->n_gitdirs, canon);
}

static int refuse_workdir(const char *w, const char *home, const char *home2)
{
	if (strcmp(w, "/") == 0)
		return 1;
	if (home && jr_fs_path_within(home, w))
		return 1;
	if (home2 && jr_fs_path_within(home2, w))
		return 1;
	return 0;
}

/* Stable insertion sort by depth, then kind: parents first, and on one
 * path a --ro lands on top of a --rw. */
static void sort_ops(struct jr_fs_plan *p)
{
	for (size_t i = 1; i < p->n_ops; i++) {
		struct jr_fs_op o = p->ops[i];
		size_t d = jr_fs_depth(o.path), j = i;

		while (j > 0) {
			size_t dj = jr_fs_depth(p->ops[j - 1].path);

			if (dj < d || (dj == d && p->ops[j - 1].kind <= o.kind))
				break;
			p->ops[j] = p->ops[j - 1];
			j--;
		}
		p->ops[j] = o;
	}
}

static int plan_oom(struct jr_err *err)
{
	return jr_err_set(err, ENOMEM, "out of memory");
}

/*
 * plan_both_layouts - what the host layout takes as well: the --expose
 * paths, normalized and canonical (the environment scrub), the
 * --workdir, and the --secret files to hide. Return: 0 or -errno, @err set.
 */
static int plan_both_layouts(const struct jr_options *opts, const char *cwd,
			     struct jr_fs_plan *p, struct jr_err *err)
{
	char canon[PATH_MAX], norm[PATH_MAX];
	int r;

	for (size_t i = 0; i < opts->n_expose; i++) {
		if (jr_fs_normalize(cwd, opts->expose[i], norm, sizeof(norm)) ==
			0 &&
		    push_str(&p->exposed, &p->n_exposed, norm) < 0)
			return plan_oom(err);
		if (realpath(opts->expose[i], canon) &&
		    !has_str(p->exposed, p->n_exposed, canon) &&
		    push_str(&p->exposed, &p->n_exposed, canon) < 0)
			return plan_oom(err);
	}
	if (opts->workdir) {
		r = canon_option("workdir", opts->workdir, canon, err);
		if (r < 0)
			return r;
		p->workdir = strdup(canon);
		if (!p->workdir)
			return plan_oom(err);
	}
	return add_secret_files(p, opts, err);
}

/* The homes whose table entries are hidden: the caller's $HOME as
 * written, resolved, and the command user's when it is another. */
struct plan_homes {
	const char *env;   /* $HOME as written, or NULL */
	const char *home;  /* $HOME resolved, or NULL */
	const char *home2; /* the command user's, resolved, or NULL */
	char home_c[PATH_MAX], home_u[PATH_MAX];
};

static void plan_find_homes(const struct jr_ids *ids, struct plan_homes *h)
{
	struct passwd *pw;

	if (h->env && realpath(h->env, h->home_c))
		h->home = h->home_c;
	pw = getpwuid(ids->host_uid);
	if (pw && pw->pw_dir && realpath(pw->pw_dir, h->home_u) &&
	    (!h->home || strcmp(h->home, h->home_u) != 0))
		h->home2 = h->home_u;
}

/*
 * plan_workdir - the working directory (--workdir, or the current one),
 * writable unless it is / or a home or a parent of one: then refused,
 * or, with --rw and no --workdir, read-only.
 * Return: 0 or -errno, @err set.
 */
static int plan_workdir(const struct jr_options *opts, const char *cwd,
			const struct plan_homes *h, struct jr_fs_plan *p,
			struct jr_err *err)
{
	char canon[PATH_MAX];

	if (!p->workdir) {
		if (!realpath(cwd, canon))
			return jr_err_set(
			    err, errno,
			    "cannot resolve the current directory: %s",
			    strerror(errno));
		p->workdir = strdup(canon);
		if (!p->workdir)
			return plan_oom(err);
	} else {
		struct stat st;

		if (stat(p->workdir, &st) < 0 || !S_ISDIR(st.st_mode))
			return jr_err_set(err, ENOTDIR,
					  "--workdir %s: not a directory",
					  opts->workdir);
	}
	p->workdir_writable = true;
	if (refuse_workdir(p->workdir, h->home, h->home2)) {
		if (opts->workdir || !opts->n_rw)
			return jr_err_set(
			    err, EPERM,
			    "the working directory %s is /, your home directory or a parent of it, and everything in it would become writable; pass --workdir DIR or --rw DIR",
			    p->workdir);
		/* The command starts here read-only; --rw says what it may
		 * change. */
		p->workdir_writable = false;
	}
	if (p->workdir_writable && push_op(p, JR_FS_OP_RW, p->workdir) < 0)
		return plan_oom(err);
	return 0;
}

/* The --workdir, --rw and --ro arguments as given, for add_hidden().
 * Return: 0 or -ENOMEM. */
static int plan_named(const struct jr_options *opts, const char *cwd,
		      char ***named, size_t *n_named)
{
	char norm[PATH_MAX];

	if (opts->workdir &&
	    jr_fs_normalize(cwd, opts->workdir, norm, sizeof(norm)) == 0 &&
	    push_str(named, n_named, norm) < 0)
		return -ENOMEM;
	for (size_t i = 0; i < opts->n_rw + opts->n_ro; i++) {
		const char *a =
		    i < opts->n_rw ? opts->rw[i] : opts->ro[i - opts->n_rw];

		if (jr_fs_normalize(cwd, a, norm, sizeof(norm)) == 0 &&
		    push_str(named, n_named, norm) < 0)
			return -ENOMEM;
	}
	return 0;
}

/* Is there a --ro or --tmpfs at or above @path and strictly below @root?
 * Then the root's write access does not reach @path. */
static bool covered_below(const struct jr_fs_plan *p, const char *root,
			  const char *path)
{
	for (size_t i = 0; i < p->n_ops; i++)
		if (p->ops[i].kind != JR_FS_OP_RW &&
		    jr_fs_path_within(path, p->ops[i].path) &&
		    jr_fs_path_within(p->ops[i].path, root) &&
		    strcmp(p->ops[i].path, root) != 0)
			return true;
	return false;
}

/*
 * plan_lifts - mark each --rw that only lifts a read-only protection of
 * another writable root (jr_fs_rw_lifts()): a mount of its own would make
 * it a mountpoint, which git's rename of config.lock over .git/config
 * cannot replace (EBUSY), and the root already makes it writable.
 * Return: 0 or -ENOMEM.
 */
static int plan_lifts(struct jr_fs_plan *p)
{
	for (size_t i = 0; i < p->n_ops; i++) {
		const struct jr_fs_op *o = &p->ops[i];
		bool lifts = false;

		if (o->kind != JR_FS_OP_RW)
			continue;
		for (size_t j = 0; j < p->n_ops && !lifts; j++)
			lifts = j != i && p->ops[j].kind == JR_FS_OP_RW &&
				jr_fs_rw_lifts(p->ops[j].path, o->path) &&
				!covered_below(p, p->ops[j].path, o->path);
		if (lifts && !has_str(p->lifted, p->n_lifted, o->path) &&
		    push_str(&p->lifted, &p->n_lifted, o->path) < 0)
			return -ENOMEM;
	}
	return 0;
}

/*
 * plan_mount_ops - one op per --rw, --ro, --tmpfs (a directory) and
 * --expose (something there), canonical. Return: 0 or -errno, @err set.
 */
static int plan_mount_ops(const struct jr_options *opts, struct jr_fs_plan *p,
			  struct jr_err *err)
{
	char canon[PATH_MAX];
	int r;

	for (size_t i = 0; i < opts->n_rw; i++) {
		r = canon_or_make("rw", opts->rw[i], canon, err);
		if (r < 0)
			return r;
		if (push_op(p, JR_FS_OP_RW, canon) < 0)
			return plan_oom(err);
	}
	for (size_t i = 0; i < opts->n_ro; i++) {
		r = canon_option("ro", opts->ro[i], canon, err);
		if (r < 0)
			return r;
		if (push_op(p, JR_FS_OP_RO, canon) < 0)
			return plan_oom(err);
	}
	for (size_t i = 0; i < opts->n_tmpfs; i++) {
		struct stat st;

		r = canon_or_make("tmpfs", opts->tmpfs[i], canon, err);
		if (r < 0)
			return r;
		if (stat(canon, &st) < 0 || !S_ISDIR(st.st_mode))
			return jr_err_set(err, ENOTDIR,
					  "--tmpfs %s: not a directory",
					  opts->tmpfs[i]);
		if (push_op(p, JR_FS_OP_TMPFS, canon) < 0)
			return plan_oom(err);
	}
	for (size_t i = 0; i < opts->n_expose; i++) {
		struct stat st;

		/* Nothing there: nothing to pass through (as before). */
		if (!realpath(opts->expose[i], canon) || stat(canon, &st) < 0)
			continue;
		if (push_op(p, JR_FS_OP_EXPOSE, canon) < 0)
			return plan_oom(err);
	}
	if (plan_lifts(p) < 0)
		return plan_oom(err);
	return 0;
}

/*
 * plan_hidden - what is hidden: each --hide, the hidden table's entries
 * under each home unless named by --rw/--ro/--workdir (@named), and where
 * each writable root's .git file leads (add_gitdir()).
 * Return: 0 or -ENOMEM.
 */
static int plan_hidden(const struct jr_options *opts,
		       const struct plan_homes *h, char *const *named,
		       size_t n_named, struct jr_fs_plan *p)
{
	/* An explicit --rw/--ro of a table entry is a deliberate choice; a
	 * --hide always hides. */
	for (size_t i = 0; i < opts->n_hide; i++)
		if (add_hidden(p, opts->hide[i], NULL, 0) < 0)
			return -ENOMEM;
	for (int k = 0; k < 3; k++) {
		/* The caller's $HOME as written (so that --rw ~/.aws, spelled
		 * the same way, opts out), resolved, and the command user's. */
		const char *dir = k == 0 ? h->env : k == 1 ? h->home : h->home2;
		char path[PATH_MAX];

		if (!dir || dir[0] != '/')
			continue;
		for (size_t i = 0; i < jr_fs_n_hidden; i++) {
			if (snprintf(path, sizeof(path), "%s/%s", dir,
				     jr_fs_hidden[i].path) >= (int)sizeof(path))
				continue;
			if (add_hidden(p, path, named, n_named) < 0)
				return -ENOMEM;
		}
	}
	for (size_t i = 0; i < p->n_ops; i++)
		if (p->ops[i].kind == JR_FS_OP_RW &&
		    add_gitdir(p, p->ops[i].path) < 0)
			return -ENOMEM;
	return 0;
}

int jr_fs_plan_build(const struct jr_options *opts, const struct jr_ids *ids,
		     struct jr_fs_plan *p, struct jr_err *err)
{
	struct plan_homes h = { .env = getenv("HOME") };
	char cwd[PATH_MAX];
	char **named = NULL;
	size_t n_named = 0;
	int r;

	memset(p, 0, sizeof(*p));
	p->mode = opts->fs_mode;
	p->uid = ids->uid;
	p->gid = ids->gid;
	p->privileged = ids->privileged;
	if (!getcwd(cwd, sizeof(cwd))) {
		r = jr_err_set(err, errno,
			       "cannot read the current directory: %s",
			       strerror(errno));
		goto fail;
	}
	r = plan_both_layouts(opts, cwd, p, err);
	if (r < 0)
		goto fail;
	if (p->mode == JR_FS_HOST)
		return 0;

	p->tmpfs_size = jr_fs_tmpfs_size(opts->tmpfs_size, opts->limits.memory,
					 opts->n_tmpfs);
	plan_find_homes(ids, &h);
	r = plan_workdir(opts, cwd, &h, p, err);
	if (r < 0)
		goto fail;
	if (plan_named(opts, cwd, &named, &n_named) < 0)
		goto oom;
	r = plan_mount_ops(opts, p, err);
	if (r < 0)
		goto fail;
	if (plan_hidden(opts, &h, named, n_named, p) < 0)
		goto oom;
	sort_ops(p);
	free_strs(named, n_named);
	return 0;
oom:
	r = plan_oom(err);
fail:
	free_strs(named, n_named);
	jr_fs_plan_release(p);
	return r;
}

/* -------------------------------------------------------------- environ */

static const char *env_get(const char *name)
{
	return getenv(name);
}

void jr_fs_scrub_env(const struct jr_fs_plan *plan)
{
	/* Decide for every rule first, then remove: a companion
	 * (TMUX_PANE) is judged by its variable before that is gone. */
	bool drop[64] = { false };

	for (size_t i = 0; i < jr_env_n_rules && i < 64; i++) {
		const char *v = getenv(jr_env_rules[i].name);

		drop[i] = v && !jr_env_keep(jr_env_rules[i].name, v, env_get,
					    (const char *const *)plan->exposed,
					    plan->n_exposed);
	}
	for (size_t i = 0; i < jr_env_n_rules && i < 64; i++)
		if (drop[i])
			unsetenv(jr_env_rules[i].name);
}

/* ---------------------------------------------------------------- apply */

/* A detached mount, its place in the new tree, and what it is. */
struct piece {
	int fd;		   /* detached mount (open_tree/fsmount) */
	const char *where; /* absolute path in the new tree */
	bool is_dir;
	bool is_tmpfs; /* mountpoints below it are made inside it */
};

#define MAX_PIECES 160

struct build {
	const struct jr_fs_plan *plan;
	struct piece p[MAX_PIECES];
	size_t n;
	int root;    /* the read-only clone of "/" */
	int scratch; /* private tmpfs: "d" and "f", the covers */
	int console; /* the command's pty slave (host devpts), or -1 */
	struct jr_err *err;
};

static void build_release(struct build *b)
{
	for (size_t i = 0; i < b->n; i++)
		if (b->p[i].fd >= 0)
			close(b->p[i].fd);
	b->n = 0;
	if (b->root >= 0)
		close(b->root);
	b->root = -1;
}

static int add_piece(struct build *b, int fd, const char *where, bool is_dir,
		     bool is_tmpfs)
{
	if (b->n == MAX_PIECES) {
		close(fd);
		return jr_err_set(b->err, E2BIG,
				  "too many mounts in the layout (at most %d)",
				  MAX_PIECES);
	}
	b->p[b->n++] = (struct piece){
		.fd = fd, .where = where, .is_dir = is_dir, .is_tmpfs = is_tmpfs
	};
	return 0;
}

static int sys_openat2(int dirfd, const char *path, int flags,
		       unsigned long long resolve)
{
	struct open_how how = { .flags = (unsigned long long)flags | O_CLOEXEC,
				.resolve = resolve };

	return (int)syscall(SYS_openat2, dirfd, path, &how, sizeof(how));
}

static int no_new_api(struct jr_err *err, const char *what)
{
	return jr_err_set(
	    err, ENOSYS,
	    "%s: this kernel lacks the new mount API (open_tree, mount_setattr: Linux >= 5.12), which the isolated filesystem needs; upgrade the kernel or pass --fs host",
	    what);
}

/* A fresh instance of @fstype, configured by @kv pairs, detached. */
static int new_fs(const char *fstype, const char *const *kv, unsigned int attrs,
		  struct jr_err *err)
{
	_cleanup_close_ int fs = fsopen(fstype, FSOPEN_CLOEXEC);
	int mnt;

	if (fs < 0)
		return errno == ENOSYS
			   ? no_new_api(err, fstype)
			   : jr_err_set(err, errno, "cannot create a %s: %s",
					fstype, strerror(errno));
	for (; kv && kv[0]; kv += 2) {
		int r = kv[1]
			    ? fsconfig(fs, FSCONFIG_SET_STRING, kv[0], kv[1], 0)
			    : fsconfig(fs, FSCONFIG_SET_FLAG, kv[0], NULL, 0);
		if (r < 0)
			return jr_err_set(err, errno,
					  "cannot set %s on a new %s: %s",
					  kv[0], fstype, strerror(errno));
	}
	if (fsconfig(fs, FSCONFIG_CMD_CREATE, NULL, NULL, 0) < 0)
		return jr_err_set(err, errno, "cannot create a new %s: %s",
				  fstype, strerror(errno));
	mnt = fsmount(fs, FSMOUNT_CLOEXEC, attrs);
	if (mnt < 0)
		return jr_err_set(err, errno, "cannot mount a new %s: %s",
				  fstype, strerror(errno));
	return mnt;
}

static int new_tmpfs(const struct jr_fs_plan *plan, const char *mode,
		     uint64_t size, unsigned int attrs, struct jr_err *err)
{
	char uid_s[16], gid_s[16], size_s[24];
	const char *kv[] = { "size", size_s, "mode", mode, "uid",
			     uid_s,  "gid",  gid_s,  NULL };

	snprintf(uid_s, sizeof(uid_s), "%u", (unsigned)plan->uid);
	snprintf(gid_s, sizeof(gid_s), "%u", (unsigned)plan->gid);
	snprintf(size_s, sizeof(size_s), "%llu", (unsigned long long)size);
	return new_fs("tmpfs", kv, attrs, err);
}

/* What a child running as the command shares with init (as_command()). */
struct as_cmd {
	int (*fn)(void *arg);
	void *arg;
	uid_t uid;
	gid_t gid;
	bool no_ids; /* setfsuid/setfsgid did not take */
	int ret;
};

static char as_cmd_stack[64 * 1024] __attribute__((aligned(16)));

static int as_cmd_child(void *arg)
{
	struct as_cmd *a = arg;

	setfsgid(a->gid);
	setfsuid(a->uid);
	if ((uid_t)setfsuid((uid_t)-1) != a->uid ||
	    (gid_t)setfsgid((gid_t)-1) != a->gid)
		a->no_ids = true;
	else
		a->ret = a->fn(a->arg);
	return 0;
}

/*
 * as_command - run @fn(@arg) with the command's file-system ids, so that
 * it opens what the command could open. In a child (init's own fsuid may
 * be unmapped, and changing it would clear its parent-death signal) that
 * shares init's memory, descriptors and cwd (CLONE_VM, CLONE_FILES,
 * CLONE_FS: a descriptor it opens, a chdir it makes, are init's) while
 * init waits (CLONE_VFORK). It keeps init's capabilities and, run by
 * root, root's groups, which the command does not have: it can reach at
 * least what the command can.
 * Return: what @fn returned, or -errno with @err set.
 */
static int as_command(const struct jr_fs_plan *plan, int (*fn)(void *),
		      void *arg, struct jr_err *err)
{
	struct as_cmd a = { .fn = fn,
			    .arg = arg,
			    .uid = plan->uid,
			    .gid = plan->gid,
			    .ret = -EIO };
	int status;
	pid_t pid;

	pid = clone(as_cmd_child, as_cmd_stack + sizeof(as_cmd_stack),
		    CLONE_VM | CLONE_VFORK | CLONE_FILES | CLONE_FS | SIGCHLD,
		    &a);
	if (pid < 0)
		return jr_err_set(
		    err, errno,
		    "cannot start a helper with the command's rights: %s",
		    strerror(errno));
	while (waitpid(pid, &status, 0) < 0)
		if (errno != EINTR)
			return jr_err_set(err, errno, "waitpid: %s",
					  strerror(errno));
	if (a.no_ids)
		return jr_err_set(err, EPERM,
				  "cannot take the command's ids (%u:%u)",
				  (unsigned)plan->uid, (unsigned)plan->gid);
	return a.ret;
}

/* An openat2() for open_path(), as the command. */
struct open_job {
	int dirfd;
	const char *path;
	int flags;
	unsigned long long resolve;
	int fd;
};

static int open_job_run(void *arg)
{
	struct open_job *j = arg;

	j->fd = sys_openat2(j->dirfd, j->path, j->flags, j->resolve);
	return j->fd < 0 ? -errno : 0;
}

/*
 * open_path - openat2(@dirfd, @path, @flags, @resolve); when that is
 * refused (EACCES) and @plan is given, again with the command's rights
 * (see guard()): a writable root under a home init may not enter.
 * Return: the fd, or -1 with errno set.
 */
static int open_path(const struct jr_fs_plan *plan, int dirfd, const char *path,
		     int flags, unsigned long long resolve)
{
	struct open_job j = { .dirfd = dirfd,
			      .path = path,
			      .flags = flags,
			      .resolve = resolve,
			      .fd = -1 };
	int fd = sys_openat2(dirfd, path, flags, resolve);
	int r;

	if (fd >= 0 || errno != EACCES || !plan)
		return fd;
	r = as_command(plan, open_job_run, &j, NULL);
	if (j.fd < 0)
		errno = r < 0 ? -r : EACCES;
	return j.fd;
}

/* A detached clone of the host's @path (canonical), with @set applied to
 * every mount in it. With @plan, a path out of init's reach is opened
 * with the command's rights (see guard()). */
static int clone_host(const struct jr_fs_plan *plan, const char *path,
		      unsigned int set, bool *is_dir, mode_t *type,
		      struct jr_err *err)
{
	_cleanup_close_ int fd = -1;
	struct mount_attr attr = { .attr_set = set };
	struct stat st;
	int c;

	fd = open_path(plan, AT_FDCWD, path, O_PATH | O_NOFOLLOW,
		       RESOLVE_NO_SYMLINKS | RESOLVE_NO_MAGICLINKS);
	if (fd < 0)
		return jr_err_set(
		    err, errno,
		    "%s: %s (a symlink here means it changed since jailrun looked; refusing)",
		    path, strerror(errno));
	if (fstat(fd, &st) < 0)
		return jr_err_set(err, errno, "%s: %s", path, strerror(errno));
	c = open_tree(fd, "",
		      AT_EMPTY_PATH | OPEN_TREE_CLONE | OPEN_TREE_CLOEXEC |
			  AT_RECURSIVE);
	if (c < 0)
		return errno == ENOSYS
			   ? no_new_api(err, path)
			   : jr_err_set(err, errno, "cannot clone %s: %s", path,
					strerror(errno));
	if (set && mount_setattr(c, "", AT_EMPTY_PATH | AT_RECURSIVE, &attr,
				 sizeof(attr)) < 0) {
		int e = errno;

		close(c);
		return jr_err_set(err, e, "cannot restrict %s: %s", path,
				  strerror(e));
	}
	*is_dir = S_ISDIR(st.st_mode);
	if (type)
		*type = st.st_mode & S_IFMT;
	return c;
}

/* What the mountpoint-making child does, one line per path. Small on
 * purpose: init is a fresh clone of the runner, and each page it first
 * writes is a page fault (tens of us on a busy VM); a PATH_MAX buffer per
 * line made this table 700 KiB and its first writes a third of the
 * layout's time. @rel points into the piece's own path, which outlives
 * the child. */
struct mkpoint {
	int dirfd;	 /* a detached tmpfs */
	const char *rel; /* relative to @dirfd */
	char kind;	 /* 'd' dir, 'f' empty file, 'l' symlink */
	const char *link;
	mode_t mode;
};

/* mkdir -p of @rel's parents (and @rel itself for 'd') in @dirfd. */
static int make_point(const struct mkpoint *m)
{
	char buf[PATH_MAX];
	char *s;
	int fd;

	snprintf(buf, sizeof(buf), "%s", m->rel);
	for (s = strchr(buf, '/'); s; s = strchr(s + 1, '/')) {
		*s = '\0';
		if (mkdirat(m->dirfd, buf, 0755) < 0 && errno != EEXIST)
			return -errno;
		*s = '/';
	}
	switch (m->kind) {
	case 'd':
		if (mkdirat(m->dirfd, buf, m->mode) < 0 && errno != EEXIST)
			return -errno;
		return 0;
	case 'l':
		return symlinkat(m->link, m->dirfd, buf) < 0 ? -errno : 0;
	default:
		fd = openat(m->dirfd, buf,
			    O_WRONLY | O_CREAT | O_CLOEXEC | O_NOFOLLOW,
			    m->mode);
		if (fd < 0)
			return -errno;
		close(fd);
		return 0;
	}
}

/*
 * make_points - create @n mountpoints as @uid/@gid in a child (see the
 * theory of operation, step 4, and create_file_as() in mounts.c).
 *
 * vfork: the child borrows init's memory until it _exits, as the pre-exec
 * child does (init.c): a fork copied init's page tables only to throw
 * them away, and cost 10-50 ms on the loaded test machine. The child only
 * changes its own credentials (per task) and makes system calls; it never
 * returns from here. Its status says what failed.
 */
static int make_points(const struct mkpoint *m, size_t n, uid_t uid, gid_t gid,
		       bool own_ids, struct jr_err *err)
{
	int status;
	pid_t pid;

	if (!n)
		return 0;
	/* Rootless, init's own fsuid/fsgid are the mapped ones already (the
	 * caller's): no child needed. (Asking setfsuid(-1) cannot tell: an
	 * unmapped id reads as the overflow id, which is nobody's.) */
	if (own_ids) {
		mode_t old = umask(0);

		for (size_t i = 0; i < n; i++) {
			int r = make_point(&m[i]);

			if (r < 0) {
				umask(old);
				return jr_err_set(
				    err, -r,
				    "cannot create the mountpoint %s in the sandbox's tmpfs: %s",
				    m[i].rel, strerror(-r));
			}
		}
		umask(old);
		return 0;
	}
	pid = vfork();
	if (pid < 0)
		return jr_err_set(err, errno, "vfork: %s", strerror(errno));
	if (pid == 0) {
		setfsgid(gid);
		setfsuid(uid);
		if ((uid_t)setfsuid((uid_t)-1) != uid ||
		    (gid_t)setfsgid((gid_t)-1) != gid)
			_exit(EPERM);
		umask(0);
		for (size_t i = 0; i < n; i++) {
			int r = make_point(&m[i]);

			if (r < 0)
				_exit(-r & 0xff ? -r & 0xff : EIO);
		}
		_exit(0);
	}
	while (waitpid(pid, &status, 0) < 0)
		if (errno != EINTR)
			return jr_err_set(err, errno, "waitpid: %s",
					  strerror(errno));
	if (!WIFEXITED(status) || WEXITSTATUS(status))
		return jr_err_set(
		    err, WIFEXITED(status) ? WEXITSTATUS(status) : EIO,
		    "cannot create the mountpoints of the sandbox's tmpfs: %s",
		    strerror(WIFEXITED(status) ? WEXITSTATUS(status) : EIO));
	return 0;
}

/* "/a/b" -> "a/b"; "/" -> "." (openat2 relative to the new root). */
static const char *rel(const char *abs)
{
	while (*abs == '/')
		abs++;
	return *abs ? abs : ".";
}

/* Open @where inside the new tree, refusing any symlink on the way. */
static int open_in_root(int root, const char *where, struct jr_err *err)
{
	int fd =
	    sys_openat2(root, rel(where), O_PATH | O_NOFOLLOW, RESOLVE_STRICT);

	if (fd < 0)
		return jr_err_set(
		    err, errno,
		    "cannot open %s in the sandbox's tree: %s (a symlink here means it changed during setup; refusing)",
		    where, strerror(errno));
	return fd;
}

static int attach(const struct jr_fs_plan *plan, int root, int mnt,
		  const char *where, struct jr_err *err)
{
	_cleanup_close_ int t = open_path(plan, root, rel(where),
					  O_PATH | O_NOFOLLOW, RESOLVE_STRICT);

	if (t < 0)
		return jr_err_set(
		    err, errno,
		    "cannot open %s in the sandbox's tree: %s (a symlink here means it changed during setup; refusing)",
		    where, strerror(errno));
	if (move_mount(mnt, "", t, "",
		       MOVE_MOUNT_F_EMPTY_PATH | MOVE_MOUNT_T_EMPTY_PATH) < 0)
		return jr_err_set(err, errno, "cannot mount %s: %s", where,
				  strerror(errno));
	return 0;
}

#define KEEP_RO_ATTRS (MOUNT_ATTR_RDONLY | MOUNT_ATTR_NOSUID | MOUNT_ATTR_NODEV)

/*
 * on_itself - bind what @fd is, with the mounts below it, on itself. A
 * mountpoint cannot be renamed, removed or replaced (rename(2), rmdir(2),
 * unlink(2): EBUSY), so the name keeps leading to this very object.
 * @set: attributes to add, to every mount of the clone when @recursive,
 *   else to its top one only (the mounts below keep theirs)
 * Return: 0 or -errno with @err set.
 */
static int on_itself(int fd, unsigned int set, bool recursive, const char *what,
		     struct jr_err *err)
{
	struct mount_attr attr = { .attr_set = set };
	_cleanup_close_ int c = open_tree(fd, "",
					  AT_EMPTY_PATH | OPEN_TREE_CLONE |
					      OPEN_TREE_CLOEXEC | AT_RECURSIVE);

	if (c < 0 ||
	    (set && mount_setattr(
			c, "", AT_EMPTY_PATH | (recursive ? AT_RECURSIVE : 0),
			&attr, sizeof(attr)) < 0) ||
	    move_mount(c, "", fd, "",
		       MOVE_MOUNT_F_EMPTY_PATH | MOVE_MOUNT_T_EMPTY_PATH) < 0)
		return jr_err_set(err, errno, "cannot keep %s in place: %s",
				  what, strerror(errno));
	return 0;
}

/* @keep (fspolicy.h) on what @fd is, not a symlink: read-only, or pinned
 * (a directory keeps its write access, anything else is read-only). */
static int keep_on_itself(int fd, enum jr_fs_keep keep, const char *what,
			  struct jr_err *err)
{
	struct stat st;

	if (keep == JR_FS_KEEP_PIN) {
		if (fstat(fd, &st) < 0)
			return jr_err_set(err, errno, "%s: %s", what,
					  strerror(errno));
		if (S_ISDIR(st.st_mode))
			return on_itself(fd, 0, false, what, err);
	}
	return on_itself(fd, KEEP_RO_ATTRS, true, what, err);
}

/*
 * protect - keep a protected path of a writable root as @keep says. A
 * symlink there, as the last component or on the way, is pinned (it
 * cannot be replaced) and what it leads to, as the command would follow
 * it, gets @keep too. A path that does not exist is left alone: covering
 * it would need a mountpoint made on the host (jailrun(1) FILESYSTEM says
 * so).
 * Return: 1 kept, 0 nothing there, or -errno with @err set; -EACCES when
 * a directory on the way refuses the caller (guard() retries).
 */
static int protect(int root, const char *path, enum jr_fs_keep keep,
		   struct jr_err *err)
{
	_cleanup_close_ int fd = -1, parent = -1, target = -1;
	bool pinned = false;
	char dir[PATH_MAX];
	const char *name;
	struct stat st;
	int r;

	fd = sys_openat2(root, rel(path), O_PATH | O_NOFOLLOW, RESOLVE_STRICT);
	if (fd < 0 && (errno == ENOENT || errno == ENOTDIR))
		return 0;
	if (fd < 0 && errno != ELOOP)
		return jr_err_set(err, errno, "cannot open %s: %s", path,
				  strerror(errno));
	if (fd >= 0 && fstat(fd, &st) < 0)
		return jr_err_set(err, errno, "%s: %s", path, strerror(errno));
	if (fd >= 0 && !S_ISLNK(st.st_mode))
		return keep_on_itself(fd, keep, path, err) < 0 ? -EPERM : 1;
	if (fd >= 0) {
		/* The last component is a symlink (O_PATH|O_NOFOLLOW opens
		 * the link itself, openat2(2)). */
		r = on_itself(fd, KEEP_RO_ATTRS, true, path, err);
		if (r < 0)
			return r;
		pinned = true;
	} else {
		/* A symlink on the way (ELOOP); the last may be one too. */
		snprintf(dir, sizeof(dir), "%s", path);
		name = strrchr(path, '/') + 1;
		dir[name - path - 1] = '\0';
		parent = sys_openat2(root, rel(dir[0] ? dir : "/"), O_PATH,
				     RESOLVE_IN_ROOT | RESOLVE_NO_MAGICLINKS);
		if (parent < 0 && errno == EACCES)
			return jr_err_set(err, EACCES, "cannot open %s: %s",
					  dir, strerror(EACCES));
		if (parent >= 0 &&
		    fstatat(parent, name, &st, AT_SYMLINK_NOFOLLOW) == 0 &&
		    S_ISLNK(st.st_mode)) {
			_cleanup_close_ int l = sys_openat2(
			    parent, name, O_PATH | O_NOFOLLOW,
			    RESOLVE_NO_SYMLINKS | RESOLVE_NO_MAGICLINKS |
				RESOLVE_BENEATH);

			if (l < 0)
				return jr_err_set(
				    err, errno, "cannot pin the symlink %s: %s",
				    path, strerror(errno));
			r = on_itself(l, KEEP_RO_ATTRS, true, path, err);
			if (r < 0)
				return r;
			pinned = true;
		}
	}
	target = sys_openat2(root, rel(path), O_PATH,
			     RESOLVE_IN_ROOT | RESOLVE_NO_MAGICLINKS);
	if (target < 0 && errno == EACCES)
		return jr_err_set(err, EACCES, "cannot open %s: %s", path,
				  strerror(EACCES));
	if (target < 0)
		return pinned ? 1 : 0; /* dangling */
	return keep_on_itself(target, keep, path, err) < 0 ? -EPERM : 1;
}

static int hide(int root, int scratch, const char *path, struct jr_err *err)
{
	struct mount_attr ro = { .attr_set =
				     MOUNT_ATTR_RDONLY | MOUNT_ATTR_NOSUID |
				     MOUNT_ATTR_NODEV | MOUNT_ATTR_NOEXEC };
	_cleanup_close_ int fd = -1, c = -1;
	struct stat st;

	fd = sys_openat2(root, rel(path), O_PATH | O_NOFOLLOW, RESOLVE_STRICT);
	if (fd < 0 && (errno == ENOENT || errno == ENOTDIR))
		return 0; /* not in the sandbox's view at all */
	if (fd < 0)
		return jr_err_set(
		    err, errno,
		    "cannot open %s to hide it: %s (a symlink here means it changed during setup; refusing)",
		    path, strerror(errno));
	if (fstat(fd, &st) < 0)
		return jr_err_set(err, errno, "%s: %s", path, strerror(errno));
	c = open_tree(scratch, S_ISDIR(st.st_mode) ? "d" : "f",
		      OPEN_TREE_CLONE | OPEN_TREE_CLOEXEC);
	if (c < 0 || mount_setattr(c, "", AT_EMPTY_PATH, &ro, sizeof(ro)) < 0 ||
	    move_mount(c, "", fd, "",
		       MOVE_MOUNT_F_EMPTY_PATH | MOVE_MOUNT_T_EMPTY_PATH) < 0)
		return jr_err_set(err, errno, "cannot hide %s: %s", path,
				  strerror(errno));
	return 1;
}

/*
 * freeze_stop - @path is out of the caller's reach (EACCES): find the
 * directory whose search permission stops the walk and make its mount
 * read-only on itself (the mounts below keep their access), so that its
 * mode cannot be changed to let the command through (chmod(2): EROFS).
 * A symlink on the way is refused: the walk would not be the command's.
 * Return: 0 or -errno with @err set.
 */
static int freeze_stop(int root, const char *path, struct jr_err *err)
{
	_cleanup_close_ int stop = -1;
	char prefix[PATH_MAX];
	const char *r = rel(path), *end = r;
	int e = EACCES;

	if (snprintf(prefix, sizeof(prefix), "%s", r) >= (int)sizeof(prefix))
		return jr_err_set(err, ENAMETOOLONG, "%s: %s", path,
				  strerror(ENAMETOOLONG));
	do {
		int fd;

		end = strchrnul(end + (end != r), '/');
		prefix[end - r] = '\0';
		fd = sys_openat2(root, prefix, O_PATH | O_NOFOLLOW,
				 RESOLVE_STRICT);
		prefix[end - r] = *end;
		if (fd < 0 && errno == EACCES && stop >= 0)
			return on_itself(stop, KEEP_RO_ATTRS, false, path, err);
		if (fd < 0 && (errno == ENOENT || errno == ENOTDIR))
			return 0; /* gone: nothing to reach */
		if (fd < 0) {
			e = errno;
			break;
		}
		if (stop >= 0)
			close(stop);
		stop = fd;
	} while (*end);
	return jr_err_set(
	    err, e,
	    "cannot tell what keeps %s out of reach (a symlink on the way, or it changed during setup; refusing)",
	    path);
}

/* One protected or hidden path, for guard(). */
struct guard_job {
	struct build *b;
	const char *path;
	bool hide;
	enum jr_fs_keep keep;
};

static int guard_once(const struct guard_job *j)
{
	return j->hide ? hide(j->b->root, j->b->scratch, j->path, j->b->err)
		       : protect(j->b->root, j->path, j->keep, j->b->err);
}

static int freeze_job_run(void *arg)
{
	const struct guard_job *j = arg;

	return freeze_stop(j->b->root, j->path, j->b->err);
}

static int guard_as_command(void *arg)
{
	const struct guard_job *j = arg;
	int r = guard_once(j);

	if (r != -EACCES)
		return r;
	r = freeze_stop(j->b->root, j->path, j->b->err);
	return r < 0 ? r : 0;
}

/*
 * guard - protect or hide @path (step 6), whatever init's own rights.
 * Run by root, init's fsuid is root's, which is not mapped: a directory
 * the command's user owns whose group is root (a home after "chown -R
 * user DIR", mode 0700) refuses init, as neither the owner's rights nor a
 * capability in the namespace apply (capabilities need the inode's uid
 * and gid both mapped, capabilities(7)). So EACCES is tried again with
 * the command's own rights. What the command cannot reach either needs
 * no cover, as long as it stays so: the directory that stops it is made
 * read-only on itself (freeze_stop()).
 * Return: 1 done, 0 nothing there or out of the command's reach, or
 * -errno with @b->err set.
 */
static int guard(struct build *b, const char *path, bool hide_it,
		 enum jr_fs_keep keep)
{
	struct guard_job j = {
		.b = b, .path = path, .hide = hide_it, .keep = keep
	};
	int r = guard_once(&j);

	if (r != -EACCES)
		return r;
	jr_debug("filesystem: %s is out of init's reach; again with the "
		 "command's rights",
		 path);
	return as_command(b->plan, guard_as_command, &j, b->err);
}

/* The deepest tmpfs piece strictly above @where, or NULL. */
static const struct piece *tmpfs_above(const struct build *b, const char *where)
{
	const struct piece *best = NULL;

	for (size_t i = 0; i < b->n; i++) {
		const struct piece *p = &b->p[i];

		if (!p->is_tmpfs || strcmp(p->where, where) == 0 ||
		    !jr_fs_path_within(where, p->where))
			continue;
		if (!best || strlen(p->where) > strlen(best->where))
			best = p;
	}
	return best;
}

static const char *const dev_nodes[] = { "null",   "zero",    "full",
					 "random", "urandom", "tty" };

static const struct {
	const char *name, *target;
} dev_links[] = {
	{ "ptmx", "pts/ptmx" },		 { "fd", "/proc/self/fd" },
	{ "stdin", "/proc/self/fd/0" },	 { "stdout", "/proc/self/fd/1" },
	{ "stderr", "/proc/self/fd/2" },
};

/*
 * clone_console - a detached mount of the pty slave @tty. The fd itself
 * belongs to the runner's mount namespace, which open_tree() refuses to
 * clone from (EINVAL), so its name is opened in ours, without symlinks,
 * and must be the very same inode and device.
 * Return: the mount fd or -errno with @err set.
 */
static int clone_console(int tty, struct jr_err *err)
{
	_cleanup_close_ int fd = -1;
	char link[64], name[128];
	struct mount_attr attr = { .attr_set =
				       MOUNT_ATTR_NOSUID | MOUNT_ATTR_NOEXEC };
	struct stat a, st;
	ssize_t n;
	int c;

	snprintf(link, sizeof(link), "/proc/self/fd/%d", tty);
	n = readlink(link, name, sizeof(name) - 1);
	if (n <= 0 || fstat(tty, &a) < 0)
		return jr_err_set(err, errno ? errno : EIO,
				  "cannot name the terminal: %s",
				  strerror(errno ? errno : EIO));
	name[n] = '\0';
	fd = sys_openat2(AT_FDCWD, name, O_PATH | O_NOFOLLOW,
			 RESOLVE_NO_SYMLINKS | RESOLVE_NO_MAGICLINKS);
	if (fd < 0 || fstat(fd, &st) < 0 || st.st_ino != a.st_ino ||
	    st.st_dev != a.st_dev || st.st_rdev != a.st_rdev)
		return jr_err_set(err, fd < 0 ? errno : EINVAL,
				  "cannot find the terminal %s: %s", name,
				  fd < 0 ? strerror(errno) : "another file");
	c = open_tree(fd, "",
		      AT_EMPTY_PATH | OPEN_TREE_CLONE | OPEN_TREE_CLOEXEC);
	if (c < 0)
		return jr_err_set(err, errno, "cannot bind the terminal %s: %s",
				  name, strerror(errno));
	/* nosuid and noexec like every other mount of the layout. */
	if (mount_setattr(c, "", AT_EMPTY_PATH, &attr, sizeof(attr)) < 0) {
		int e = errno;

		close(c);
		return jr_err_set(err, e, "cannot restrict the terminal %s: %s",
				  name, strerror(e));
	}
	return c;
}

/* Room for the mountpoints collect() makes: one per piece, the scratch
 * covers and the /dev links. */
#define MAX_MKPOINTS (MAX_PIECES + 16)

/*
 * collect_kernel_fs - kernel filesystems of the sandbox's own namespaces.
 * proc: its pid view is the new PID namespace. sysfs: the worker netns's
 * devices, read-only. cgroup2: the sandbox's cgroup namespace root,
 * read-only, so cgroup.freeze/cgroup.kill of the user's delegated cgroups
 * cannot be written. Return: 0 or -errno with b->err set.
 */
static int collect_kernel_fs(struct build *b)
{
	struct jr_err ignored;
	int fd, r;

	fd = new_fs("proc", NULL,
		    MOUNT_ATTR_NOSUID | MOUNT_ATTR_NODEV | MOUNT_ATTR_NOEXEC,
		    b->err);
	/* EPERM in a container: its /proc is masked (container.c). */
	if (fd == -EPERM)
		return jr_ctr_explain_mount("proc", "/proc", EPERM, b->err);
	if (fd < 0)
		return fd;
	r = add_piece(b, fd, "/proc", true, false);
	if (r < 0)
		return r;
	fd = new_fs("sysfs", NULL,
		    MOUNT_ATTR_RDONLY | MOUNT_ATTR_NOSUID | MOUNT_ATTR_NODEV |
			MOUNT_ATTR_NOEXEC,
		    b->err);
	if (fd == -EPERM)
		return jr_ctr_explain_mount("sysfs", "/sys", EPERM, b->err);
	if (fd < 0)
		return fd;
	r = add_piece(b, fd, "/sys", true, false);
	if (r < 0)
		return r;
	/* Optional: an empty /sys/fs/cgroup is as safe. */
	fd = new_fs("cgroup2", NULL,
		    MOUNT_ATTR_RDONLY | MOUNT_ATTR_NOSUID | MOUNT_ATTR_NODEV |
			MOUNT_ATTR_NOEXEC,
		    &ignored);
	if (fd >= 0 && add_piece(b, fd, "/sys/fs/cgroup", true, false) < 0)
		return -E2BIG;
	return 0;
}

/* collect_dev_nodes - the host's device nodes of dev_nodes[], bound in
 * (rootless cannot mknod); each must be a character device. */
static int collect_dev_nodes(struct build *b)
{
	/* Static: a piece keeps its path. */
	static char paths[ARRAY_SIZE(dev_nodes)][16];
	int fd, r;

	for (size_t i = 0; i < ARRAY_SIZE(dev_nodes); i++) {
		bool is_dir;
		mode_t type;

		snprintf(paths[i], sizeof(paths[i]), "/dev/%s", dev_nodes[i]);
		fd = clone_host(NULL, paths[i],
				MOUNT_ATTR_NOSUID | MOUNT_ATTR_NOEXEC, &is_dir,
				&type, b->err);
		if (fd < 0)
			return fd;
		if (type != S_IFCHR) {
			close(fd);
			return jr_err_set(b->err, EINVAL,
					  "%s on the host is not a device",
					  paths[i]);
		}
		r = add_piece(b, fd, paths[i], false, false);
		if (r < 0)
			return r;
	}
	return 0;
}

/*
 * collect_dev - /dev: a tmpfs (its links go to @mk), host nodes bound in,
 * the command's terminal, a new devpts instance. Return: 0 or -errno
 * with b->err set.
 */
static int collect_dev(struct build *b, struct mkpoint *mk, size_t *n_mk)
{
	const char *kv[] = { "newinstance", NULL,   "ptmxmode", "0666",
			     "mode",	    "0620", NULL };
	size_t dev_i;
	int fd, r;

	fd = new_tmpfs(b->plan, "0755", 65536,
		       MOUNT_ATTR_NOSUID | MOUNT_ATTR_NOEXEC, b->err);
	if (fd < 0)
		return fd;
	r = add_piece(b, fd, "/dev", true, true);
	if (r < 0)
		return r;
	dev_i = b->n - 1;
	for (size_t i = 0; i < ARRAY_SIZE(dev_links); i++)
		mk[(*n_mk)++] =
		    (struct mkpoint){ b->p[dev_i].fd, dev_links[i].name, 'l',
				      dev_links[i].target, 0 };
	r = collect_dev_nodes(b);
	if (r < 0)
		return r;
	/* The command's own terminal: the runner allocated it on the host's
	 * devpts, which the new instance does not show, so ttyname(3) would
	 * find no name for it. As bubblewrap does, it is bound at
	 * /dev/console, the one node of the host's devpts the sandbox sees. */
	if (b->console >= 0) {
		r = clone_console(b->console, b->err);
		if (r < 0)
			return r;
		r = add_piece(b, r, "/dev/console", false, false);
		if (r < 0)
			return r;
	}
	fd =
	    new_fs("devpts", kv, MOUNT_ATTR_NOSUID | MOUNT_ATTR_NOEXEC, b->err);
	if (fd < 0)
		return fd;
	return add_piece(b, fd, "/dev/pts", true, false);
}

/* collect_private_tmpfs - the sandbox's own /dev/shm, /tmp, /var/tmp and
 * /run. Return: 0 or -errno with b->err set. */
static int collect_private_tmpfs(struct build *b)
{
	const struct jr_fs_private *fixed = jr_fs_private_tmpfs;
	int fd, r;

	for (size_t i = 0; i < jr_fs_n_private_tmpfs; i++) {
		bool in_dev = strncmp(fixed[i].path, "/dev/", 5) == 0;
		_cleanup_close_ int probe = -1;

		/* A host without /var/tmp (or with a symlink there, leading
		 * into the read-only tree) gets none. */
		if (!in_dev) {
			probe = sys_openat2(AT_FDCWD, fixed[i].path,
					    O_PATH | O_DIRECTORY,
					    RESOLVE_NO_SYMLINKS);
			if (probe < 0)
				continue;
		}
		fd = new_tmpfs(b->plan, fixed[i].mode, b->plan->tmpfs_size,
			       MOUNT_ATTR_NOSUID | MOUNT_ATTR_NODEV, b->err);
		if (fd < 0)
			return fd;
		r = add_piece(b, fd, fixed[i].path, true, true);
		if (r < 0)
			return r;
	}
	return 0;
}

/* collect_plan - the plan's ops: clones of the host taken now, while it
 * is whole, and --tmpfs. Return: 0 or -errno with b->err set. */
static int collect_plan(struct build *b)
{
	const struct jr_fs_plan *plan = b->plan;
	int fd, r;

	for (size_t i = 0; i < plan->n_ops; i++) {
		const struct jr_fs_op *o = &plan->ops[i];
		bool is_dir = true;

		if (o->kind == JR_FS_OP_RW &&
		    has_str(plan->lifted, plan->n_lifted, o->path))
			continue; /* writable in its root, not a mountpoint */
		switch (o->kind) {
		case JR_FS_OP_TMPFS:
			fd = new_tmpfs(plan, "0755", plan->tmpfs_size,
				       MOUNT_ATTR_NOSUID | MOUNT_ATTR_NODEV,
				       b->err);
			break;
		case JR_FS_OP_RW:
			if (o->idmap_fd >= 0) {
				/* The runner's (idmap.c); ours now. */
				fd = o->idmap_fd;
				is_dir = o->idmap_is_dir;
				break;
			}
			/* fall through */
		case JR_FS_OP_EXPOSE:
			fd = clone_host(plan, o->path,
					MOUNT_ATTR_NOSUID | MOUNT_ATTR_NODEV,
					&is_dir, NULL, b->err);
			break;
		case JR_FS_OP_RO:
		default:
			fd = clone_host(plan, o->path,
					MOUNT_ATTR_RDONLY | MOUNT_ATTR_NOSUID |
					    MOUNT_ATTR_NODEV,
					&is_dir, NULL, b->err);
			break;
		}
		if (fd < 0)
			return fd;
		r = add_piece(b, fd, o->path, is_dir,
			      o->kind == JR_FS_OP_TMPFS);
		if (r < 0)
			return r;
	}
	return 0;
}

/* Mountpoints for the pieces that land inside a tmpfs piece, added to
 * @mk while there is room. */
static void collect_mountpoints(const struct build *b, struct mkpoint *mk,
				size_t *n_mk)
{
	for (size_t i = 0; i < b->n; i++) {
		const struct piece *t = tmpfs_above(b, b->p[i].where);

		if (!t || *n_mk == MAX_MKPOINTS)
			continue;
		mk[(*n_mk)++] = (struct mkpoint){
			.dirfd = t->fd,
			.rel = b->p[i].where + strlen(t->where) + 1,
			.kind = b->p[i].is_dir ? 'd' : 'f',
			.mode = b->p[i].is_dir ? 0755 : 0644,
		};
	}
}

/* Steps 2 and 4: every detached piece, and the mountpoints in them. */
static int collect(struct build *b)
{
	const struct jr_fs_plan *plan = b->plan;
	static struct mkpoint mk[MAX_MKPOINTS];
	size_t n_mk = 0;
	int r;

	b->scratch = new_tmpfs(
	    plan, "0755", 65536,
	    MOUNT_ATTR_NOSUID | MOUNT_ATTR_NODEV | MOUNT_ATTR_NOEXEC, b->err);
	if (b->scratch < 0)
		return b->scratch;
	mk[n_mk++] = (struct mkpoint){ b->scratch, "d", 'd', NULL, 0555 };
	mk[n_mk++] = (struct mkpoint){ b->scratch, "f", 'f', NULL, 0444 };
	r = collect_kernel_fs(b);
	if (r < 0)
		return r;
	r = collect_dev(b, mk, &n_mk);
	if (r < 0)
		return r;
	r = collect_private_tmpfs(b);
	if (r < 0)
		return r;
	r = collect_plan(b);
	if (r < 0)
		return r;
	collect_mountpoints(b, mk, &n_mk);
	return make_points(mk, n_mk, plan->uid, plan->gid, !plan->privileged,
			   b->err);
}

int jr_fs_apply_finish(struct jr_err *err)
{
	return jr_mounts_detach_wait(err);
}

static int pivot(int root, struct jr_err *err)
{
	if (fchdir(root) < 0)
		return jr_err_set(err, errno, "fchdir: %s", strerror(errno));
	if (syscall(SYS_pivot_root, ".", ".") < 0)
		return jr_err_set(err, errno,
				  "cannot pivot into the sandbox's tree: %s",
				  strerror(errno));
	/* The old root now sits on top of the new one: drop it and all the
	 * host mounts under it, beside init (jr_mounts_detach_start()). */
	if (jr_mounts_detach_start() < 0)
		return jr_err_set(err, errno,
				  "cannot detach the host's tree: %s",
				  strerror(errno));
	if (chdir("/") < 0)
		return jr_err_set(err, errno, "chdir /: %s", strerror(errno));
	return 0;
}

/*
 * rw_opens - does a --rw take the protected @path of the writable root
 * @root out of its protection? When it names @path itself, or names a
 * path strictly inside @root that @path is in (--rw .git opens
 * .git/hooks, .git/config and the rest of the .git rows; .git itself
 * stays pinned by that --rw's own mount).
 */
static bool rw_opens(const struct jr_fs_plan *plan, const char *root,
		     const char *path)
{
	for (size_t k = 0; k < plan->n_ops; k++) {
		const char *q = plan->ops[k].path;

		if (plan->ops[k].kind != JR_FS_OP_RW)
			continue;
		if (strcmp(q, path) == 0 ||
		    (strcmp(q, root) != 0 && jr_fs_path_within(q, root) &&
		     jr_fs_path_within(path, q)))
			return true;
	}
	return false;
}

/*
 * guard_each - @pattern holds one "*" standing for a whole component:
 * protect what the rest names under each entry of the directory before
 * it (git's .git/worktrees/NAME). The directory is listed as the command
 * would find it, symlinks followed in the new tree.
 * Return: how many were kept, or -errno with @b->err set.
 */
static int guard_each(struct build *b, const char *root, const char *pattern,
		      enum jr_fs_keep keep)
{
	const char *star = strstr(pattern, "/*");
	char dir[PATH_MAX], path[PATH_MAX];
	_cleanup_(closedirp) DIR *d = NULL;
	struct dirent *de;
	int fd, n = 0, r;

	snprintf(dir, sizeof(dir), "%.*s", (int)(star - pattern), pattern);
	fd = open_path(b->plan, b->root, rel(dir), O_RDONLY | O_DIRECTORY,
		       RESOLVE_IN_ROOT | RESOLVE_NO_MAGICLINKS);
	if (fd < 0 && (errno == ENOENT || errno == ENOTDIR))
		return 0;
	if (fd < 0 && errno == EACCES) {
		/* Out of the command's reach too: keep it so (guard()). */
		struct guard_job j = { .b = b, .path = dir };

		r = as_command(b->plan, freeze_job_run, &j, b->err);
		return r < 0 ? r : 0;
	}
	if (fd < 0 || !(d = fdopendir(fd))) {
		r = jr_err_set(b->err, errno, "cannot list %s: %s", dir,
			       strerror(errno));
		if (fd >= 0)
			close(fd);
		return r;
	}
	while ((errno = 0, de = readdir(d))) {
		if (strcmp(de->d_name, ".") == 0 ||
		    strcmp(de->d_name, "..") == 0)
			continue;
		if (snprintf(path, sizeof(path), "%s/%s%s", dir, de->d_name,
			     star + 2) >= (int)sizeof(path))
			return jr_err_set(b->err, ENAMETOOLONG,
					  "%s/%s: name too long", dir,
					  de->d_name);
		if (rw_opens(b->plan, root, path))
			continue;
		r = guard(b, path, false, keep);
		if (r < 0)
			return r;
		n += r;
	}
	if (errno)
		return jr_err_set(b->err, errno, "cannot list %s: %s", dir,
				  strerror(errno));
	return n;
}

/*
 * protect_tree - step 6 for the writable root @dir: each protected path of
 * the table in it, unless a --rw opens it (rw_opens()). With @git_only, @dir is the git
 * directory a .git file leads to, and only the .git rows apply, with @dir
 * in the place of ".git".
 * Return: how many were kept, or -errno with @b->err set.
 */
static int protect_tree(struct build *b, const char *dir, bool git_only)
{
	const struct jr_fs_plan *plan = b->plan;
	int n = 0;

	for (size_t j = 0; j < jr_fs_n_protected; j++) {
		const char *e = jr_fs_protected[j].path;
		char path[PATH_MAX];
		int len, r;

		if (git_only && strcmp(e, ".git") == 0)
			len = snprintf(path, sizeof(path), "%s", dir);
		else if (git_only && strncmp(e, ".git/", 5) == 0)
			len = snprintf(path, sizeof(path), "%s/%s", dir, e + 5);
		else if (git_only)
			continue;
		else
			len = snprintf(path, sizeof(path), "%s/%s",
				       strcmp(dir, "/") ? dir : "", e);
		if (len >= (int)sizeof(path))
			continue;
		if (rw_opens(plan, dir, path))
			continue;
		r = strstr(path, "/*")
			? guard_each(b, dir, path, jr_fs_protected[j].keep)
			: guard(b, path, false, jr_fs_protected[j].keep);
		if (r < 0)
			return r;
		n += r;
	}
	return n;
}

static int apply_isolated(const struct jr_fs_plan *plan, int tty,
			  struct jr_err *err)
{
	struct mount_attr ro = { .attr_set = MOUNT_ATTR_RDONLY |
					     MOUNT_ATTR_NOSUID |
					     MOUNT_ATTR_NODEV };
	struct build b = { .plan = plan,
			   .root = -1,
			   .scratch = -1,
			   .console = tty,
			   .err = err };
	unsigned int n_prot = 0, n_hidden = 0;
	int r;

	r = collect(&b);
	if (r < 0)
		goto out;
	/* Step 3: the host tree, read-only all the way down. */
	b.root = open_tree(AT_FDCWD, "/",
			   OPEN_TREE_CLONE | OPEN_TREE_CLOEXEC | AT_RECURSIVE);
	if (b.root < 0) {
		r = errno == ENOSYS
			? no_new_api(err, "/")
			: jr_err_set(err, errno,
				     "cannot clone the host's tree: %s",
				     strerror(errno));
		goto out;
	}
	if (mount_setattr(b.root, "", AT_EMPTY_PATH | AT_RECURSIVE, &ro,
			  sizeof(ro)) < 0) {
		r = jr_err_set(err, errno,
			       "cannot make the host's tree read-only: %s",
			       strerror(errno));
		goto out;
	}
	/* Step 5: a place to stand while building; /tmp is covered in the
	 * sandbox anyway and the host's is untouched (private namespace). */
	if (move_mount(b.root, "", AT_FDCWD, "/tmp", MOVE_MOUNT_F_EMPTY_PATH) <
	    0) {
		r = jr_err_set(err, errno,
			       "cannot attach the sandbox's tree: %s",
			       strerror(errno));
		goto out;
	}
	for (size_t i = 0; i < b.n; i++) {
		r = attach(plan, b.root, b.p[i].fd, b.p[i].where, err);
		if (r < 0)
			goto out;
	}
	/* Populated: /dev itself read-only (its nodes and the pts and shm
	 * mounts are mounts of their own and stay writable). */
	{
		_cleanup_close_ int dev = open_in_root(b.root, "/dev", err);
		struct mount_attr dro = { .attr_set = MOUNT_ATTR_RDONLY };

		if (dev < 0 || mount_setattr(dev, "", AT_EMPTY_PATH, &dro,
					     sizeof(dro)) < 0) {
			r = dev < 0
				? dev
				: jr_err_set(err, errno,
					     "cannot make /dev read-only: %s",
					     strerror(errno));
			goto out;
		}
	}
	/* Step 6. */
	for (size_t i = 0; i < plan->n_ops + plan->n_gitdirs; i++) {
		bool git_only = i >= plan->n_ops;

		if (!git_only && plan->ops[i].kind != JR_FS_OP_RW)
			continue;
		r = protect_tree(&b,
				 git_only ? plan->gitdirs[i - plan->n_ops]
					  : plan->ops[i].path,
				 git_only);
		if (r < 0)
			goto out;
		n_prot += (unsigned)r;
	}
	for (size_t i = 0; i < plan->n_hidden; i++) {
		r = guard(&b, plan->hidden[i], true, JR_FS_KEEP_RO);
		if (r < 0)
			goto out;
		n_hidden += (unsigned)r;
	}
	/* Step 7. */
	r = pivot(b.root, err);
	if (r < 0)
		goto out;
	jr_debug("filesystem: %zu mounts, %u protected, %u hidden", b.n, n_prot,
		 n_hidden);
	r = 0;
out:
	build_release(&b);
	if (b.scratch >= 0)
		jr_mounts_defer_close(b.scratch);
	return r;
}

static int chdir_to(void *path)
{
	return chdir(path) < 0 ? -errno : 0;
}

/* The plan init applied, for jr_fs_open(); init is a process of its own. */
static const struct jr_fs_plan *applied_plan;

int jr_fs_open(const char *path)
{
	return open_path(applied_plan, AT_FDCWD, path, O_PATH, 0);
}

int jr_fs_apply(const struct jr_fs_plan *plan, int tty, uid_t caller_uid,
		uid_t host_uid, char *const *expose_literal, size_t n_expose,
		struct jr_err *err)
{
	int r;

	applied_plan = plan;
	if (mount(NULL, "/", NULL, MS_REC | MS_PRIVATE, NULL) < 0)
		return jr_err_set(err, errno,
				  "cannot make the sandbox mounts private: %s",
				  strerror(errno));
	if (plan->mode == JR_FS_ISOLATED) {
		r = apply_isolated(plan, tty, err);
	} else {
		unsigned int hidden = 0;

		r = jr_mounts_setup(err);
		if (r == 0)
			r = jr_mounts_hide_sockets(expose_literal, n_expose,
						   caller_uid, plan->uid,
						   plan->gid, &hidden, err);
		if (r == 0 && host_uid != caller_uid)
			r = jr_mounts_hide_sockets(expose_literal, n_expose,
						   host_uid, plan->uid,
						   plan->gid, &hidden, err);
		/* In this layout the plan hides only the --secret files. */
		for (size_t i = 0; r == 0 && i < plan->n_hidden; i++)
			r = jr_mounts_bind_text(plan->hidden[i], "", plan->uid,
						plan->gid, err);
	}
	if (r < 0)
		return r;
	if (!plan->workdir)
		return 0;
	r = chdir(plan->workdir) < 0 ? -errno : 0;
	/* Out of init's reach (see guard()): the command's own rights, in a
	 * child that shares init's cwd. */
	if (r == -EACCES)
		r = as_command(plan, chdir_to, plan->workdir, err);
	if (r < 0)
		return jr_err_set(err, -r,
				  "cannot enter the working directory %s: %s",
				  plan->workdir, strerror(-r));
	return 0;
}
