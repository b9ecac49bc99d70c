/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * container.h - why jailrun cannot make its sandbox inside this container,
 * and the container setting that fixes it (jailrun(1), CONTAINERS).
 */
#ifndef JR_CONTAINER_H
#define JR_CONTAINER_H

#include <stdbool.h>
#include <stddef.h>

#include "err.h"

/*
 * jr_ctr_status_field - the value of field @name ("Seccomp", "CapEff") in
 * the text of /proc/PID/status, read as a number in @base (10, or 16 for
 * capability sets).
 * Return: 0 with *@value set, or -ENOENT if the field is absent or not a
 * number.
 */
int jr_ctr_status_field(const char *status, const char *name, int base,
			unsigned long long *value);

/*
 * jr_ctr_idmap_covers - whether the uid_map or gid_map text @map (lines of
 * "first-inside first-outside count", as read in the namespace itself)
 * gives id @id a meaning in that namespace.
 */
bool jr_ctr_idmap_covers(const char *map, unsigned long id);

/*
 * jr_ctr_masked_paths - the mounts that hide parts of the @fstype mount at
 * @mountpoint in @mountinfo (the text of /proc/self/mountinfo): the
 * children of its topmost instance, except those on directories the
 * kernel keeps empty for mounts (binfmt_misc, cgroup, debugfs...), which
 * do not count (fs/namespace.c, mnt_already_visible()). Their mountpoints
 * go to @out, ", "-separated, cut with "..." if @len is short.
 * Return: how many there are; 0 if none, or if there is no such mount.
 */
size_t jr_ctr_masked_paths(const char *mountinfo, const char *mountpoint,
			   const char *fstype, char *out, size_t len);

/*
 * jr_ctr_explain_mount - @err for a fresh @fstype that could not be mounted
 * on @mountpoint (@code the errno): when the container masks parts of the
 * one it has (read from /proc/self/mountinfo), which, and the setting that
 * unmasks them. Otherwise a plain "cannot mount a new FSTYPE" line.
 * Return: -@code.
 */
int jr_ctr_explain_mount(const char *fstype, const char *mountpoint, int code,
			 struct jr_err *err);

/*
 * jr_ctr_seccomp_refuses - which of the calls a sandbox is made with the
 * seccomp filter this process runs under (Seccomp: 2, as in a container)
 * refuses, found by asking each in a form the kernel itself answers with
 * EINVAL. sethostname can be judged only where this process holds
 * CAP_SYS_ADMIN over its UTS namespace (in the sandbox's user namespace).
 * Return: the calls, as words for a message, or NULL if no filter refuses
 * them (or there is no filter).
 */
const char *jr_ctr_seccomp_refuses(void);

/*
 * jr_ctr_explain_map - @err for an id map that could not be written
 * (@code), when this process's own user namespace is why: @id (a uid if
 * @kind is "uid", else a gid) has no meaning in it, or jailrun is root
 * without the CAP_SETUID/CAP_SETGID that mapping another id needs.
 * Return: -@code with @err set, or 0 if neither is the cause.
 */
int jr_ctr_explain_map(const char *what, const char *kind, unsigned long id,
		       int code, struct jr_err *err);

#endif
