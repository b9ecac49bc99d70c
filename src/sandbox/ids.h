/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * ids.h - which uid/gid the command runs as, and how the sandbox's user
 * namespace maps it.
 *
 * One rule for root and rootless alike: exactly one uid and one gid are
 * mapped. Rootless, the host side is the caller (the only id an
 * unprivileged process may map). Started by root, it is the --user id
 * (default: the sudo caller, else nobody). Each maps to itself, except id
 * 0: --user root (or a group 0) is uid/gid 0 inside the sandbox, mapped to
 * an unprivileged host id (the caller rootless; the sudo caller, else
 * nobody, under root). The command is host uid 0 only with --host-root.
 */
#ifndef JR_IDS_H
#define JR_IDS_H

#include <stdbool.h>
#include <sys/types.h>

#include "err.h"

struct jr_ids {
	uid_t uid;	 /* the command's uid inside the sandbox */
	gid_t gid;	 /* the command's gid inside the sandbox */
	uid_t host_uid;	 /* what @uid is on the host (the uid_map) */
	gid_t host_gid;	 /* what @gid is on the host (the gid_map) */
	bool privileged; /* jailrun started by root: setgroups allowed */
	char name[64];	 /* user name for messages, or the number */
};

/* What the environment said about the caller (injectable for tests). */
struct jr_caller {
	uid_t uid, euid;
	gid_t gid, egid;
	const char *sudo_uid; /* $SUDO_UID or NULL */
	const char *sudo_gid; /* $SUDO_GID or NULL */
};

/*
 * jr_ids_resolve - decide the command's ids.
 * @spec: --user argument or NULL
 * @host_root: --host-root: id 0 inside is host id 0 (root only)
 * @caller: the caller's ids and sudo variables
 * @out: the result
 * @err: why the spec was refused
 * Return: 0 or -errno.
 */
int jr_ids_resolve(const char *spec, bool host_root,
		   const struct jr_caller *caller, struct jr_ids *out,
		   struct jr_err *err);

/* Parse a decimal id in [0, 2^32-2]; -EINVAL otherwise. */
int jr_parse_id(const char *s, unsigned int *id);

#endif
