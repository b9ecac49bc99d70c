/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * mounts.h - the sandbox's mount namespace, set up by its PID 1.
 */
#ifndef JR_MOUNTS_H
#define JR_MOUNTS_H

#include <stdbool.h>
#include <stddef.h>
#include <sys/types.h>

#include "err.h"

/*
 * jr_mounts_setup - make every mount private (nothing propagates back to
 * the host) and mount a fresh /proc for the new PID namespace: the whole
 * of the --fs host layout (the isolated one is fslayout.c's). Must run in
 * the new mount and PID namespaces with CAP_SYS_ADMIN over them.
 * Return: 0 or -errno with @err set.
 */
int jr_mounts_setup(struct jr_err *err);

/*
 * jr_mounts_proc_sys_readonly - make /proc/sys read-only. Last, because
 * the setup writes a few sysctls of the sandbox's own namespaces first.
 * Return: 0 or -errno with @err set.
 */
int jr_mounts_proc_sys_readonly(struct jr_err *err);

/*
 * jr_mounts_bind_text - show @text, read-only, at @target (an existing
 * file, or a symlink to one, e.g. /etc/resolv.conf) in this mount
 * namespace only. The content lives on a private tmpfs that no path of
 * the sandbox reaches, so nothing inside can rewrite it. The file is
 * created as @uid/@gid: the creator's own ids may not be mapped in the
 * sandbox's user namespace (root's are not), and the kernel refuses to
 * create a file whose owner it cannot represent (EOVERFLOW). A short-lived
 * child creates it: the caller's own credentials never change, so its
 * parent-death signal survives (init relies on it).
 * Return: 0 or -errno with @err set.
 */
int jr_mounts_bind_text(const char *target, const char *text, uid_t uid,
			gid_t gid, struct jr_err *err);

/*
 * jr_mounts_trust_bundle - (init, in the sandbox's mount namespace) show
 * @bundle (jr_inspect_start()'s host bundle + the sandbox's CA) read-only
 * over each of jr_trust_paths that exists there, with jr_mounts_bind_text().
 * Return: 0 or -errno with @err set.
 */
int jr_mounts_trust_bundle(const char *bundle, uid_t uid, gid_t gid,
			   struct jr_err *err);

/*
 * jr_mounts_close_detached - close the private tmpfs mounts that
 * jr_mounts_bind_text() kept open. Unmounting them waits for an RCU grace
 * period, so init does it once the command runs, not before (mounts.c).
 */
void jr_mounts_close_detached(void);

/* Keep the detached mount @fd open until jr_mounts_close_detached(). */
void jr_mounts_defer_close(int fd);

/*
 * jr_mounts_detach_start - lazily unmount the old root stacked on "/"
 * after pivot_root(".", "."), in a child beside init (or in line when no
 * child can be made). Call with the cwd on the new root.
 * Return: 0 or -errno (errno set) when it could not even start.
 */
int jr_mounts_detach_start(void);

/*
 * jr_mounts_detach_wait - wait for jr_mounts_detach_start()'s child.
 * Return: 0 (also with nothing to wait for) or -errno with @err set: the
 * host's tree may still be reachable, nothing may run.
 */
int jr_mounts_detach_wait(struct jr_err *err);

/*
 * The unix sockets of host daemons that would open connections, start
 * containers or run units on the command's behalf: a pathname unix socket
 * is reachable from any network namespace. "%u" stands for the caller's
 * uid (rootless Docker/Podman and the user's D-Bus session live under
 * /run/user/UID).
 */
extern const char *const jr_hidden_sockets[];

/*
 * jr_mounts_hide_sockets - cover each socket of jr_hidden_sockets that
 * exists with an empty read-only file (connect(2) then fails with
 * ECONNREFUSED), except the paths in @exposed (--expose).
 * @caller_uid: fills "%u"
 * @uid/@gid: owner of the covering files (see jr_mounts_bind_text)
 * @hidden: incremented per socket hidden (for -v); may be NULL
 * Return: 0 or -errno with @err set: a socket that cannot be hidden is a
 * failure, not a warning.
 */
int jr_mounts_hide_sockets(char *const *exposed, size_t n_exposed,
			   uid_t caller_uid, uid_t uid, gid_t gid,
			   unsigned int *hidden, struct jr_err *err);

/* Is @path one of jr_hidden_sockets (after "%u" expansion)? */
bool jr_mounts_is_hidden_socket(const char *path, uid_t caller_uid);

#endif
