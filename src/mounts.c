// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * mounts.c - mount namespace setup inside the sandbox.
 *
 * Theory of operation: the mount namespace is a copy of the caller's. First
 * everything is made MS_PRIVATE recursively, so no mount made here (or by
 * the command) propagates to the host, and no host mount event reaches in.
 * Then a new procfs instance is mounted over /proc: its pid view is the new
 * PID namespace, so the command sees only its own processes. /proc/sys is
 * bind-mounted onto itself and remounted read-only; the remount must repeat
 * nosuid,nodev,noexec because the kernel refuses to clear flags that are
 * set on the mount below (mount(2), "MS_REMOUNT").
 */

#include <errno.h>
#include <string.h>
#include <sys/mount.h>

#include "mounts.h"

int jr_mounts_setup(struct jr_err *err)
{
	const unsigned long procflags = MS_NOSUID | MS_NODEV | MS_NOEXEC;

	if (mount(NULL, "/", NULL, MS_REC | MS_PRIVATE, NULL) < 0)
		return jr_err_set(err, errno,
				  "cannot make the sandbox mounts private: %s",
				  strerror(errno));
	if (mount("proc", "/proc", "proc", procflags, NULL) < 0)
		return jr_err_set(err, errno,
				  "cannot mount a new /proc in the sandbox: %s (inside a container, /proc is often partly masked, which forbids this; run jailrun on the host)",
				  strerror(errno));
	if (mount("/proc/sys", "/proc/sys", NULL, MS_BIND, NULL) < 0)
		return jr_err_set(err, errno,
				  "cannot bind-mount /proc/sys in the sandbox: %s",
				  strerror(errno));
	if (mount(NULL, "/proc/sys", NULL,
		  MS_BIND | MS_REMOUNT | MS_RDONLY | procflags, NULL) < 0)
		return jr_err_set(err, errno,
				  "cannot make /proc/sys read-only in the sandbox: %s",
				  strerror(errno));
	return 0;
}
