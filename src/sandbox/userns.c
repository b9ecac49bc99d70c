// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * userns.c - id maps and user-namespace diagnostics.
 *
 * Theory of operation: the runner (in the caller's user namespace) writes
 * the maps of the sandbox's new user namespace from outside, as
 * user_namespaces(7) requires of an unprivileged writer: it must be in the
 * parent namespace, map only its own ids (to any one id inside), and deny
 * setgroups first. Root uses the same single-id map (see ids.h) but keeps
 * setgroups allowed so the command can shed root's supplementary groups.
 */

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cleanup.h"
#include "container.h"
#include "userns.h"

static int explain(const char *what, int code, bool syscall_failed,
		   struct jr_err *err);

static int write_file(const char *path, const char *text)
{
	_cleanup_close_ int fd = open(path, O_WRONLY | O_CLOEXEC);
	size_t len = strlen(text);
	ssize_t n;

	if (fd < 0)
		return -errno;
	n = write(fd, text, len);
	if (n < 0)
		return -errno;
	if ((size_t)n != len)
		return -EIO;
	return 0;
}

/*
 * An id map that could not be written: when written from outside, the
 * runner's own user namespace (a container's) may be why; a write is no
 * system call a seccomp profile refuses, so that is never blamed.
 */
static int map_failed(const char *what, const char *kind, unsigned long id,
		      pid_t pid, int code, struct jr_err *err)
{
	int r =
	    pid != getpid() ? jr_ctr_explain_map(what, kind, id, code, err) : 0;

	return r < 0 ? r : explain(what, code, false, err);
}

int jr_userns_write_maps(pid_t pid, const struct jr_ids *ids,
			 struct jr_err *err)
{
	char path[64], map[64];
	int r;

	if (!ids->privileged) {
		snprintf(path, sizeof(path), "/proc/%d/setgroups", (int)pid);
		r = write_file(path, "deny");
		if (r < 0 && r != -ENOENT) /* no file: kernel < 3.19 */
			return jr_userns_explain(
			    "cannot deny setgroups in the sandbox user namespace",
			    -r, err);
	}
	snprintf(path, sizeof(path), "/proc/%d/uid_map", (int)pid);
	snprintf(map, sizeof(map), "%u %u 1\n", (unsigned)ids->uid,
		 (unsigned)ids->host_uid);
	r = write_file(path, map);
	if (r < 0)
		return map_failed("cannot write the sandbox uid_map", "uid",
				  ids->host_uid, pid, -r, err);
	snprintf(path, sizeof(path), "/proc/%d/gid_map", (int)pid);
	snprintf(map, sizeof(map), "%u %u 1\n", (unsigned)ids->gid,
		 (unsigned)ids->host_gid);
	r = write_file(path, map);
	if (r < 0)
		return map_failed("cannot write the sandbox gid_map", "gid",
				  ids->host_gid, pid, -r, err);
	return 0;
}

int jr_read_sysctl_int(const char *path, long *value)
{
	_cleanup_close_ int fd = open(path, O_RDONLY | O_CLOEXEC);
	char buf[32];
	char *end;
	ssize_t n;

	if (fd < 0)
		return -errno;
	n = read(fd, buf, sizeof(buf) - 1);
	if (n < 0)
		return -errno;
	buf[n] = '\0';
	errno = 0;
	*value = strtol(buf, &end, 10);
	if (errno || end == buf)
		return -EINVAL;
	return 0;
}

int jr_userns_explain(const char *what, int code, struct jr_err *err)
{
	return explain(what, code, true, err);
}

/* @syscall_failed: a system call failed (unshare, clone, sethostname),
 * which a seccomp filter may have refused. */
static int explain(const char *what, int code, bool syscall_failed,
		   struct jr_err *err)
{
	const char *refused;
	long v;

	if (jr_read_sysctl_int("/proc/sys/kernel/unprivileged_userns_clone",
			       &v) == 0 &&
	    v == 0 && geteuid() != 0)
		return jr_err_set(
		    err, code,
		    "%s: %s: unprivileged user namespaces are disabled (kernel.unprivileged_userns_clone=0); enable them with: sudo sysctl -w kernel.unprivileged_userns_clone=1",
		    what, strerror(code));
	if (jr_read_sysctl_int("/proc/sys/user/max_user_namespaces", &v) == 0 &&
	    v == 0)
		return jr_err_set(
		    err, code,
		    "%s: %s: user namespaces are disabled (user.max_user_namespaces=0); enable them with: sudo sysctl -w user.max_user_namespaces=15000",
		    what, strerror(code));
	if (jr_read_sysctl_int(
		"/proc/sys/kernel/apparmor_restrict_unprivileged_userns", &v) ==
		0 &&
	    v == 1 && geteuid() != 0)
		return jr_err_set(
		    err, code,
		    "%s: %s: AppArmor restricts unprivileged user namespaces (kernel.apparmor_restrict_unprivileged_userns=1, Ubuntu 23.10 and later); install the profile shipped in contrib/apparmor/jailrun (sudo cp contrib/apparmor/jailrun /etc/apparmor.d/ && sudo apparmor_parser -r /etc/apparmor.d/jailrun) or run: sudo sysctl -w kernel.apparmor_restrict_unprivileged_userns=0",
		    what, strerror(code));
	/* A container's profile answers EPERM, or ENOSYS for a call it does
	 * not list (podman's default). */
	if (syscall_failed &&
	    (code == EPERM || code == EACCES || code == ENOSYS) &&
	    (refused = jr_ctr_seccomp_refuses()))
		return jr_err_set(
		    err, code,
		    "%s: %s: the seccomp filter jailrun runs under (Seccomp: 2 in /proc/self/status; a container's profile, or systemd's SystemCallFilter=) refuses %s; give the container a profile that allows unshare, clone with CLONE_NEWUSER and sethostname (podman, docker: --security-opt seccomp=FILE; Kubernetes: securityContext.seccompProfile type: Localhost); see CONTAINERS in jailrun(1)",
		    what, strerror(code), refused);
	switch (code) {
	case ENOSPC:
		return jr_err_set(
		    err, code,
		    "%s: %s: the limit on user namespaces is reached (user.max_user_namespaces); raise it with: sudo sysctl -w user.max_user_namespaces=15000",
		    what, strerror(code));
	case EINVAL:
		return jr_err_set(
		    err, code,
		    "%s: %s: the kernel lacks user namespace support (CONFIG_USER_NS); jailrun needs Linux >= 5.12 built with user namespaces",
		    what, strerror(code));
	case EPERM:
	case EACCES:
		return jr_err_set(
		    err, code,
		    "%s: %s: user namespaces are forbidden here; inside a container (Docker's default seccomp profile, for one) run jailrun on the host or allow unshare/clone with CLONE_NEWUSER; a Linux security module may also deny it",
		    what, strerror(code));
	default:
		return jr_err_set(err, code, "%s: %s", what, strerror(code));
	}
}
