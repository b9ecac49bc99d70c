/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * userns.h - the sandbox's user namespace: id maps, and telling a person why
 * user namespaces are unavailable and how to fix it.
 */
#ifndef JR_USERNS_H
#define JR_USERNS_H

#include <sys/types.h>

#include "err.h"
#include "ids.h"

/*
 * jr_userns_write_maps - map @ids->uid/gid to @ids->host_uid/host_gid in
 * @pid's user ns.
 * Rootless, setgroups(2) is denied first (user_namespaces(7): required
 * before an unprivileged process may write gid_map).
 * Return: 0 or -errno with @err set.
 */
int jr_userns_write_maps(pid_t pid, const struct jr_ids *ids,
			 struct jr_err *err);

/*
 * jr_userns_explain - turn a failure to create or use a user namespace into
 * one actionable line: reads the sysctls that commonly forbid them
 * (kernel.unprivileged_userns_clone, user.max_user_namespaces,
 * kernel.apparmor_restrict_unprivileged_userns) and names the fix.
 * @what: what failed, e.g. "cannot create the sandbox namespaces"
 * @code: the errno seen
 * Return: -code.
 */
int jr_userns_explain(const char *what, int code, struct jr_err *err);

/* Read a small integer sysctl from /proc/sys/...; -errno if unreadable. */
int jr_read_sysctl_int(const char *path, long *value);

#endif
