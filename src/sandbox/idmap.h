/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * idmap.h - writable roots the command owns although another host user
 * does: idmapped mounts (mount_setattr(2) MOUNT_ATTR_IDMAP), made by the
 * runner started as root (see idmap.c).
 */
#ifndef JR_IDMAP_H
#define JR_IDMAP_H

#include <stdbool.h>
#include <sys/stat.h>
#include <sys/types.h>

#include "err.h"
#include "fslayout.h"
#include "ids.h"

/* Whether a writable root is idmapped, and if not, why not. */
enum jr_idmap_verdict {
	JR_IDMAP_YES = 0,     /* owner seen as the command's user */
	JR_IDMAP_SAME_OWNER,  /* the command's user owns it already */
	JR_IDMAP_ROOTLESS,    /* only root may idmap a host filesystem */
	JR_IDMAP_OFF,	      /* --idmap off */
	JR_IDMAP_SECCOMP_OFF, /* no filter to refuse set-user-ID bits */
	JR_IDMAP_STICKY,      /* a shared directory: owners are per file */
};

/* What jr_idmap_decide() weighs, for one writable root. */
struct jr_idmap_case {
	bool privileged; /* jailrun started by root */
	bool enabled;	 /* --idmap on (the default) */
	bool seccomp;	 /* --seccomp on (the default) */
	uid_t owner;	 /* the root's owner on the host */
	mode_t mode;	 /* its st_mode */
	uid_t host_uid;	 /* the command's uid on the host */
};

/* jr_idmap_decide - pure: idmap this writable root or not, and why. */
enum jr_idmap_verdict jr_idmap_decide(const struct jr_idmap_case *c);

/* jr_idmap_verdict_why - the reason a root is not idmapped, for a message
 * ("" for JR_IDMAP_YES). */
const char *jr_idmap_verdict_why(enum jr_idmap_verdict v);

/*
 * jr_idmap_may_write - pure: whether the mode bits of @st let a process
 * with exactly uid @uid and gid @gid (no supplementary groups: the
 * command has none) write in it. ACLs are not read: a "false" is a
 * "probably not", worded so in the warning.
 */
bool jr_idmap_may_write(const struct stat *st, uid_t uid, gid_t gid);

/*
 * jr_fs_idmap_prepare - for each writable root of @plan that
 * jr_idmap_decide() says to idmap, a detached recursive clone of it,
 * idmapped so that its owner and group on the host are @ids's host ids
 * (nosuid, nodev), kept in the op (idmap_fd) for init to attach instead
 * of its own clone. A root the kernel cannot idmap (its filesystem does
 * not support it) is left as it is, with a warning that says what to
 * do. Started by root, warns, too, when the command cannot write its
 * working directory.
 * Runs in the runner, before init is cloned (init inherits the fds);
 * jr_fs_plan_release() closes the runner's.
 * Return: 0 or -errno with @err set.
 */
int jr_fs_idmap_prepare(struct jr_fs_plan *plan, const struct jr_ids *ids,
			bool enabled, bool seccomp, struct jr_err *err);

#endif
