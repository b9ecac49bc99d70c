/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * fslayout.h - the sandbox's filesystem: planned by the runner (paths
 * checked and canonicalised once, with the caller's view and rights),
 * built by init with the new mount API before the command starts.
 */
#ifndef JR_FSLAYOUT_H
#define JR_FSLAYOUT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#include "err.h"
#include "ids.h"
#include "options.h"

enum jr_fs_op_kind {
	JR_FS_OP_TMPFS = 0, /* --tmpfs: a fresh tmpfs */
	JR_FS_OP_RW,	    /* a writable root: the workdir, --rw */
	JR_FS_OP_RO,	    /* --ro */
	JR_FS_OP_EXPOSE,    /* --expose: a host socket passed through */
};

struct jr_fs_op {
	enum jr_fs_op_kind kind;
	char *path;	   /* canonical (no symlinks), absolute */
	int idmap_fd;	   /* JR_FS_OP_RW: the runner's idmapped clone
			    * (idmap.h), attached by init, kept until
			    * jr_fs_plan_release(); or -1 */
	bool idmap_is_dir; /* what idmap_fd's root is */
};

struct jr_fs_plan {
	enum jr_fs_mode mode;
	char *workdir;	       /* canonical; NULL: stay where we are */
	bool workdir_writable; /* false when refused but --rw was given */
	struct jr_fs_op *ops;  /* by depth, so a parent is mounted first */
	size_t n_ops;
	char **hidden; /* canonical paths that existed when planned */
	size_t n_hidden;
	char **exposed; /* --expose, normalized and canonical (env scrub) */
	size_t n_exposed;
	char **gitdirs; /* canonical: where a writable root's .git file
			 * leads; its .git rows are kept there too */
	size_t n_gitdirs;
	char **lifted; /* canonical: each --rw of a read-only protected path
			* inside another writable root, which gets no mount
			* of its own (jr_fs_rw_lifts()) */
	size_t n_lifted;
	uint64_t tmpfs_size; /* bytes, per tmpfs */
	uid_t uid;	     /* owner of the tmpfs roots, inside */
	gid_t gid;
	bool privileged; /* started by root: init's own ids are not mapped */
};

/*
 * jr_fs_plan_build - check and canonicalise every path option once.
 * A --rw/--ro/--tmpfs/--workdir path that does not exist, a workdir that
 * is /, $HOME or a parent of it, is refused here, naming the path and
 * the fix. Runs in the runner, with the caller's credentials.
 * Return: 0 or -errno with @err set.
 */
int jr_fs_plan_build(const struct jr_options *opts, const struct jr_ids *ids,
		     struct jr_fs_plan *plan, struct jr_err *err);

void jr_fs_plan_release(struct jr_fs_plan *plan);

/* jr_fs_plan_lifted - whether the writable root @path is one of
 * @plan->lifted: writable inside another root, not a mount of its own. */
bool jr_fs_plan_lifted(const struct jr_fs_plan *plan, const char *path);

/*
 * jr_fs_apply - build the layout of @plan in init's mount namespace:
 * private propagation, then (isolated) the read-only host tree with the
 * tmpfs, /dev, /proc, /sys, the writable roots, protected and hidden
 * paths, pivoted onto "/"; (host) a new /proc. Ends in the workdir.
 * @tty: the command's pty slave, shown as /dev/console, or -1
 * @caller_uid: for the host mode's /run/user/UID sockets
 * @expose_literal/@n: --expose as given (host mode)
 * Return: 0 or -errno with @err set; nothing may run after a failure.
 */
int jr_fs_apply(const struct jr_fs_plan *plan, int tty, uid_t caller_uid,
		uid_t host_uid, char *const *expose_literal, size_t n_expose,
		struct jr_err *err);

/*
 * jr_fs_apply_finish - wait for the part of jr_fs_apply() that runs beside
 * init: the lazy unmount of the host's old root (fslayout.c, step 7).
 * Init calls it before the command can run, and after its other setup,
 * which the wait overlaps.
 * Return: 0 (also when there was nothing to wait for) or -errno with @err
 * set; then the host tree may still be reachable and nothing may run.
 */
int jr_fs_apply_finish(struct jr_err *err);

/*
 * jr_fs_open - an O_PATH open of @path, in init after jr_fs_apply(): with
 * init's rights and, when those are refused (EACCES), with the command's
 * (a writable root under a home that init may not enter: see guard() in
 * fslayout.c). For the Landlock rules, which name what the command
 * reaches.
 * Return: an O_CLOEXEC fd, or -1 with errno set.
 */
int jr_fs_open(const char *path);

/*
 * jr_fs_scrub_env - remove the socket-naming variables of fspolicy.h from
 * the environment, unless their socket is in @plan->exposed. For the
 * pre-exec child.
 */
void jr_fs_scrub_env(const struct jr_fs_plan *plan);

#endif
