/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * fspolicy.h - what the isolated filesystem protects and hides, as tables
 * with a reason per row, and the pure path and environment rules around
 * them. No I/O here: fslayout.c applies it, tests/unit/test_fspolicy.c
 * checks it.
 */
#ifndef JR_FSPOLICY_H
#define JR_FSPOLICY_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* How a protected path is kept. */
enum jr_fs_keep {
	JR_FS_KEEP_RO = 0, /* read-only, on itself */
	JR_FS_KEEP_PIN,	   /* pinned in place: a mount on itself, which
			    * cannot be renamed, removed or replaced; a
			    * directory stays writable, anything else is
			    * made read-only */
};

struct jr_fs_entry {
	const char *path;   /* relative to a home */
	const char *reason; /* why, for the man page */
};

struct jr_fs_protect {
	const char *path;   /* relative to a writable root */
	const char *reason; /* why, for the man page */
	enum jr_fs_keep keep;
};

/* Kept in every writable root: files a later, unsandboxed program runs
 * code from, and the directory that says where git finds them. */
extern const struct jr_fs_protect jr_fs_protected[];
extern const size_t jr_fs_n_protected;

/*
 * jr_fs_git_child - the name of @e in a git directory when @e is kept
 * read-only directly in .git (".git/hooks" -> "hooks"), else NULL: what
 * gitsweep.c looks for, new, after a run.
 */
const char *jr_fs_git_child(const struct jr_fs_protect *e);

/*
 * jr_fs_protected_row - which row of jr_fs_protected[] @path is in the
 * writable root @root ("*" in a row stands for one whole component).
 * Both canonical and absolute; @path must lie strictly below @root.
 * Return: the row's index, or -1 when @path is no protected path of @root.
 */
int jr_fs_protected_row(const char *root, const char *path);

/*
 * jr_fs_rw_lifts - does a --rw of @path, inside the writable root @root,
 * only lift a read-only protection (jailrun(1) FILESYSTEM)? True when
 * @path is a JR_FS_KEEP_RO row of @root: it gets no mount of its own, as a
 * mountpoint cannot be renamed over (git's config.lock -> config is EBUSY),
 * and the root already gives it write access. A pinned row (.git, a
 * linked worktree's directory) keeps its own writable mount, which is its
 * pin.
 */
bool jr_fs_rw_lifts(const char *root, const char *path);

/* Covered with an empty read-only file or directory in the caller's and
 * the command user's home: credentials and tokens. */
extern const struct jr_fs_entry jr_fs_hidden[];
extern const size_t jr_fs_n_hidden;

/* The sandbox's own empty tmpfs mounts, over the host's directories of
 * the same name (jailrun(1), FILESYSTEM). */
struct jr_fs_private {
	const char *path;
	const char *mode; /* of the tmpfs root */
};
extern const struct jr_fs_private jr_fs_private_tmpfs[];
extern const size_t jr_fs_n_private_tmpfs;

/*
 * jr_fs_hidden_by_tmpfs - which empty tmpfs, if any, covers the host's
 * @path inside the sandbox: the deepest of @tmpfs (a private tmpfs or a
 * --tmpfs) and @shown (a bind of the host: a writable root, --ro,
 * --expose) that holds @path decides. All normalized.
 * Return: that tmpfs's path, or NULL when the command sees the host's
 * @path (or the host's read-only view of it).
 */
const char *jr_fs_hidden_by_tmpfs(const char *path, const char *const *tmpfs,
				  size_t n_tmpfs, const char *const *shown,
				  size_t n_shown);

/*
 * jr_fs_normalize - make @path absolute (against @cwd when relative) and
 * lexically clean: no "//", "." or trailing "/"; ".." removes the previous
 * component (it is never allowed above "/"). Symlinks are not looked at.
 * Return: 0, or -ENAMETOOLONG when it does not fit @size.
 */
int jr_fs_normalize(const char *cwd, const char *path, char *out, size_t size);

/* Is @path equal to @dir or below it? Both normalized. */
bool jr_fs_path_within(const char *path, const char *dir);

/*
 * jr_fs_below_home - the part of @arg strictly below the home @home, for
 * creating a missing --rw/--tmpfs directory there. @norm: @arg normalized
 * (jr_fs_normalize()); @home: normalized. A home of "/" holds everything,
 * and ".." in @arg may lead through a symlink elsewhere than its lexical
 * form says: both give NULL.
 * Return: a pointer into @norm (no leading '/'), or NULL.
 */
const char *jr_fs_below_home(const char *arg, const char *norm,
			     const char *home);

/* Number of components of a normalized path ("/" has 0). */
size_t jr_fs_depth(const char *path);

/* How many private tmpfs mounts every isolated layout has
 * (jr_fs_private_tmpfs[]: /tmp, /var/tmp, /dev/shm and /run). */
#define JR_FS_PRIVATE_TMPFS 4
/* Without --memory, what every tmpfs of a sandbox may hold together. */
#define JR_FS_TMPFS_TOTAL (1ULL << 30)

/*
 * jr_fs_tmpfs_size - the size= of each of the sandbox's tmpfs mounts.
 * @requested: --tmpfs-size in bytes, 0 when not given: it wins
 * @memory: --memory in bytes, 0 when not given
 * @n_extra: the number of --tmpfs mounts
 *
 * With --memory, each gets all of it: tmpfs pages are charged to the
 * sandbox's cgroup, so together they can never hold more, and a share
 * would only fill one mount while the others sit empty. Without, the
 * JR_FS_TMPFS_TOTAL is shared evenly, so that together they never hold
 * more than that. Whole pages, at least one.
 * Return: bytes.
 */
uint64_t jr_fs_tmpfs_size(uint64_t requested, uint64_t memory, size_t n_extra);

/*
 * The environment variables that name a host socket (or the directory
 * holding them), and how to find the socket path in the value.
 */
enum jr_env_kind {
	JR_ENV_PATH,	   /* the value is the socket's path */
	JR_ENV_FIRST_PATH, /* path before the first ',' (TMUX) */
	JR_ENV_UNIX_URL,   /* unix:path=P or unix://P inside the value */
	JR_ENV_X11,	   /* ":N" -> /tmp/.X11-unix/XN */
	JR_ENV_RUNTIME,	   /* name relative to $XDG_RUNTIME_DIR (Wayland) */
	JR_ENV_DIR,	   /* a directory of sockets: kept if one is exposed */
	JR_ENV_COMPANION,  /* goes with the variable named in .companion */
	JR_ENV_ALWAYS,	   /* never meaningful inside: always removed */
};

struct jr_env_rule {
	const char *name;
	enum jr_env_kind kind;
	const char *companion; /* JR_ENV_COMPANION */
	const char *reason;
};

extern const struct jr_env_rule jr_env_rules[];
extern const size_t jr_env_n_rules;

/*
 * jr_env_keep - should the variable @name=@value reach the command?
 * @getenv_fn: reads other variables (XDG_RUNTIME_DIR, the companions),
 *   so that the rule stays pure and testable
 * @exposed/@n_exposed: --expose paths, normalized
 * Return: true to keep (not a socket variable, or its socket is exposed).
 */
bool jr_env_keep(const char *name, const char *value,
		 const char *(*getenv_fn)(const char *name),
		 const char *const *exposed, size_t n_exposed);

#endif
