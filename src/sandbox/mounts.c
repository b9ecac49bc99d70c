// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * mounts.c - mount namespace setup inside the sandbox.
 *
 * Theory of operation: the mount namespace is a copy of the caller's. First
 * everything is made MS_PRIVATE recursively, so no mount made here (or by
 * the command) propagates to the host, and no host mount event reaches in.
 * Then every mount is made nosuid, recursively, with one mount_setattr(2).
 * Then a new procfs instance is mounted over /proc: its pid view is the new
 * PID namespace, so the command sees only its own processes. /proc/sys is
 * bind-mounted onto itself and remounted read-only, last (init writes the
 * relay netns's sysctls first); the remount must repeat nosuid,nodev,noexec
 * because the kernel refuses to clear flags that are set on the mount below
 * (mount(2), "MS_REMOUNT"). Files jailrun generates for the sandbox
 * (resolv.conf) are shown read-only from a detached tmpfs that no path of
 * the sandbox reaches.
 *
 * Closing the last fd of a detached mount unmounts it, and the kernel
 * waits for an RCU grace period before returning from that close(2)
 * (namespace_unlock -> synchronize_rcu_expedited): one to a few ms per
 * mount on a busy VM. So the tmpfs fds are not closed during setup but
 * kept until jr_mounts_close_detached(), which init calls once the command
 * is running. For the same reason the isolated layout's lazy unmount of
 * the host's old root runs in a child beside init (detach_pid below).
 */

#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <fcntl.h>
#include <sched.h>
#include <sys/fsuid.h>
#include <sys/mount.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "cleanup.h"
#include "io.h"

#include "inspect_start.h" /* jr_trust_paths */
#include "mounts.h"

/* Detached tmpfs mounts whose unmount waits for init's
 * jr_mounts_close_detached(); init is a process of its own, so one list. */
static int detached[32];
static size_t n_detached;

/* Keep @fd open until jr_mounts_close_detached(); close it now if the
 * list is full (correct, only slower). */
void jr_mounts_defer_close(int fd)
{
	if (n_detached < ARRAY_SIZE(detached))
		detached[n_detached++] = fd;
	else
		close(fd);
}

void jr_mounts_close_detached(void)
{
	while (n_detached)
		close(detached[--n_detached]);
}

/*
 * The old root's lazy unmount (fslayout.c, step 7) runs in a child beside
 * init. Unmounting frees mounts, and the kernel frees them only after an
 * RCU grace period, which umount2(2) waits for (namespace_unlock ->
 * synchronize_rcu_expedited): 0.3 to 3 ms on a busy VM, a third of the
 * layout's time, spent waiting and not computing. In the child it
 * overlaps init's network setup instead.
 *
 * Until the unmount is done, the old root (the host's writable tree) is
 * stacked on the new "/", and a walk that reaches "/" through ".." steps
 * onto it (follow_dotdot, then the mounts on top are followed): "/etc/.."
 * or a symlink such as /etc/resolv.conf -> ../run/... would lead there.
 * Lookups that start at "/" or at the cwd and never climb to "/" do not.
 * So everything that may follow a host symlink waits for the child first:
 * jr_mounts_bind_text() does, and init calls jr_mounts_detach_wait()
 * (through jr_fs_apply_finish()) before it opens the landlock rules'
 * paths, well before the runner is told the sandbox is ready; the command
 * never runs before that, and if the unmount failed, never (fail closed).
 * What init does in between: links and routes by netlink, sysctls and
 * the read-only bind under /proc/sys (our own procfs, no symlinks).
 *
 * The child shares init's memory (CLONE_VM: no page tables copied, nothing
 * to copy on write) but not its cwd: it took the new root, where the old
 * one is stacked, at the clone, and init's chdir into the workdir does
 * not move it. It runs on its own stack and makes one system call; if that
 * fails, its errno lands in init's (the same TLS), which does not matter:
 * init then fails the setup anyway. If init dies first, the child dies
 * with it (init is the PID namespace's reaper).
 */
static pid_t detach_pid = -1;
static char detach_stack[64 * 1024] __attribute__((aligned(16)));

static int detach_old_root(void *arg)
{
	(void)arg;
	if (umount2(".", MNT_DETACH) < 0)
		return errno & 0xff ? errno & 0xff : EIO;
	return 0;
}

int jr_mounts_detach_start(void)
{
	detach_pid = clone(detach_old_root, detach_stack + sizeof(detach_stack),
			   CLONE_VM | SIGCHLD, NULL);
	if (detach_pid >= 0)
		return 0;
	/* No child to be had (a tight pids limit): in line. */
	return umount2(".", MNT_DETACH) < 0 ? -errno : 0;
}

int jr_mounts_detach_wait(struct jr_err *err)
{
	int status, code;

	if (detach_pid < 0)
		return 0;
	while (waitpid(detach_pid, &status, 0) < 0)
		if (errno != EINTR)
			return jr_err_set(
			    err, errno,
			    "cannot detach the host's tree: waitpid: %s",
			    strerror(errno));
	detach_pid = -1;
	if (WIFEXITED(status) && WEXITSTATUS(status) == 0)
		return 0;
	code = WIFEXITED(status) ? WEXITSTATUS(status) : EIO;
	return jr_err_set(err, code, "cannot detach the host's tree: %s",
			  strerror(code));
}

int jr_mounts_setup(struct jr_err *err)
{
	const unsigned long procflags = MS_NOSUID | MS_NODEV | MS_NOEXEC;
	struct mount_attr nosuid = { .attr_set = MOUNT_ATTR_NOSUID };

	if (mount(NULL, "/", NULL, MS_REC | MS_PRIVATE, NULL) < 0)
		return jr_err_set(err, errno,
				  "cannot make the sandbox mounts private: %s",
				  strerror(errno));
	/*
	 * Every mount nosuid, as in the isolated layout: a set-user-ID file
	 * found or made here starts as the caller, not its owner. The
	 * seccomp filter keeps the command from setting the bits, and
	 * no_new_privs already keeps exec from honouring them; this is the
	 * third wall. Adding a flag to a locked mount is allowed
	 * (mount_namespaces(7)); only clearing one is not.
	 */
	if (mount_setattr(AT_FDCWD, "/", AT_RECURSIVE, &nosuid,
			  sizeof(nosuid)) < 0)
		return jr_err_set(
		    err, errno,
		    "cannot make the sandbox's mounts nosuid: %s (jailrun needs Linux >= 5.12 for mount_setattr)",
		    strerror(errno));
	if (mount("proc", "/proc", "proc", procflags, NULL) < 0)
		return jr_err_set(
		    err, errno,
		    "cannot mount a new /proc in the sandbox: %s (inside a container, /proc is often partly masked, which forbids this; run jailrun on the host)",
		    strerror(errno));
	return 0;
}

int jr_mounts_proc_sys_readonly(struct jr_err *err)
{
	const unsigned long procflags = MS_NOSUID | MS_NODEV | MS_NOEXEC;

	if (mount("/proc/sys", "/proc/sys", NULL, MS_BIND, NULL) < 0)
		return jr_err_set(
		    err, errno,
		    "cannot bind-mount /proc/sys in the sandbox: %s",
		    strerror(errno));
	if (mount(NULL, "/proc/sys", NULL,
		  MS_BIND | MS_REMOUNT | MS_RDONLY | procflags, NULL) < 0)
		return jr_err_set(
		    err, errno,
		    "cannot make /proc/sys read-only in the sandbox: %s",
		    strerror(errno));
	return 0;
}

/*
 * create_file_as - create @name in @dirfd holding @text, owned by @uid/@gid.
 *
 * The file must be created with a mapped fsuid/fsgid (see mounts.h), but
 * init must not change its own credentials to get one: any change of
 * fsuid or fsgid clears the parent-death signal (commit_creds() in
 * kernel/cred.c), which is what ties init to the runner, and the old
 * fsuid cannot even be put back when it is not mapped (setfsuid(2)
 * returns the overflow id for it). So a short-lived child, whose
 * credentials die with it, switches fsuid/fsgid and writes the file; init
 * then checks the owner it got.
 * vfork, as make_points() in fslayout.c: a fork copied init's page tables
 * and left every page init wrote afterwards to a copy-on-write fault. The
 * child only changes its own credentials and makes system calls (its
 * errno and stack frame are all it writes of init's memory), and it
 * never returns from here.
 * Return: 0 or -errno.
 */
static int create_file_as(int dirfd, const char *name, const char *text,
			  uid_t uid, gid_t gid)
{
	struct stat st;
	int status;
	pid_t pid;

	pid = vfork();
	if (pid < 0)
		return -errno;
	if (pid == 0) {
		int fd, r;

		setfsgid(gid);
		setfsuid(uid);
		/* setfsuid(2) reports no error: read the ids back. */
		if ((uid_t)setfsuid((uid_t)-1) != uid ||
		    (gid_t)setfsgid((gid_t)-1) != gid)
			_exit(EPERM);
		fd = openat(dirfd, name,
			    O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0644);
		if (fd < 0)
			_exit(errno & 0xff ? errno & 0xff : EIO);
		r = jr_write_all(fd, text, strlen(text));
		if (r == 0 && close(fd) < 0)
			r = -errno;
		_exit(r < 0 ? (-r & 0xff ? -r & 0xff : EIO) : 0);
	}
	while (waitpid(pid, &status, 0) < 0)
		if (errno != EINTR)
			return -errno;
	if (!WIFEXITED(status))
		return -EIO;
	if (WEXITSTATUS(status))
		return -WEXITSTATUS(status);
	if (fstatat(dirfd, name, &st, AT_SYMLINK_NOFOLLOW) < 0)
		return -errno;
	if (!S_ISREG(st.st_mode) || st.st_uid != uid || st.st_gid != gid)
		return -EPERM;
	return 0;
}

int jr_mounts_bind_text(const char *target, const char *text, uid_t uid,
			gid_t gid, struct jr_err *err)
{
	_cleanup_close_ int fs = -1, mnt = -1, tree = -1;
	struct mount_attr ro = {
		.attr_set = MOUNT_ATTR_RDONLY | MOUNT_ATTR_NOSUID |
			    MOUNT_ATTR_NODEV | MOUNT_ATTR_NOEXEC,
	};
	char uid_s[16], gid_s[16], size_s[32];
	int r;

	/* @target may be a symlink that climbs to "/" (see detach_pid). */
	r = jr_mounts_detach_wait(err);
	if (r < 0)
		return r;
	/*
	 * A memfd cannot be bind-mounted (its mount is not in our
	 * namespace), so: a detached tmpfs (fsopen/fsmount, never attached
	 * anywhere), one file in it, a detached clone of just that file
	 * (open_tree), made read-only, moved onto @target.
	 */
	fs = fsopen("tmpfs", FSOPEN_CLOEXEC);
	if (fs < 0)
		return jr_err_set(
		    err, errno,
		    "cannot create a tmpfs for %s: %s (jailrun needs Linux >= 5.12)",
		    target, strerror(errno));
	snprintf(uid_s, sizeof(uid_s), "%u", (unsigned)uid);
	snprintf(gid_s, sizeof(gid_s), "%u", (unsigned)gid);
	/* 64k, or room for a larger text (a CA bundle, secrets.c). */
	snprintf(size_s, sizeof(size_s), "%zuk", strlen(text) / 1024 + 64);
	if (fsconfig(fs, FSCONFIG_SET_STRING, "size", size_s, 0) < 0 ||
	    fsconfig(fs, FSCONFIG_SET_STRING, "mode", "0755", 0) < 0 ||
	    fsconfig(fs, FSCONFIG_SET_STRING, "uid", uid_s, 0) < 0 ||
	    fsconfig(fs, FSCONFIG_SET_STRING, "gid", gid_s, 0) < 0 ||
	    fsconfig(fs, FSCONFIG_CMD_CREATE, NULL, NULL, 0) < 0)
		return jr_err_set(err, errno,
				  "cannot configure a tmpfs for %s: %s", target,
				  strerror(errno));
	mnt = fsmount(fs, FSMOUNT_CLOEXEC, 0);
	if (mnt < 0)
		return jr_err_set(err, errno, "cannot mount a tmpfs for %s: %s",
				  target, strerror(errno));
	r = create_file_as(mnt, "file", text, uid, gid);
	if (r < 0)
		return jr_err_set(err, -r, "cannot create the file for %s: %s",
				  target, strerror(-r));
	tree = open_tree(mnt, "file", OPEN_TREE_CLONE | OPEN_TREE_CLOEXEC);
	if (tree < 0)
		return jr_err_set(err, errno,
				  "cannot clone the file mount for %s: %s",
				  target, strerror(errno));
	if (mount_setattr(tree, "", AT_EMPTY_PATH, &ro, sizeof(ro)) < 0)
		return jr_err_set(err, errno, "cannot make %s read-only: %s",
				  target, strerror(errno));
	/* Follow a symlinked target (systemd-resolved's stub, for one). In
	 * the isolated layout that stub lived under the host's /run, which
	 * is an empty tmpfs here: then the mount goes on the symlink itself,
	 * and a path walk that reaches the symlink finds the file mounted
	 * on it before it would follow the link. */
	r = move_mount(tree, "", AT_FDCWD, target,
		       MOVE_MOUNT_F_EMPTY_PATH | MOVE_MOUNT_T_SYMLINKS);
	if (r < 0 && errno == ENOENT)
		r = move_mount(tree, "", AT_FDCWD, target,
			       MOVE_MOUNT_F_EMPTY_PATH);
	if (r < 0)
		return jr_err_set(
		    err, errno,
		    "cannot mount over %s: %s (it must exist on the host, as a file or a symlink to one)",
		    target, strerror(errno));
	jr_mounts_defer_close(steal_fd(&mnt));
	return 0;
}

const char *const jr_hidden_sockets[] = {
	"/run/docker.sock", /* Docker */
	"/var/run/docker.sock",
	"/run/containerd/containerd.sock", /* containerd */
	"/run/podman/podman.sock",	   /* Podman */
	"/run/buildkit/buildkitd.sock",	   /* BuildKit */
	"/run/dbus/system_bus_socket",	   /* D-Bus system bus */
	"/var/run/dbus/system_bus_socket",
	"/run/systemd/private",		   /* systemd's private API */
	"/run/user/%u/bus",		   /* the user's D-Bus session */
	"/run/user/%u/docker.sock",	   /* rootless Docker */
	"/run/user/%u/podman/podman.sock", /* rootless Podman */
	"/run/user/%u/systemd/private",	   /* systemd --user */
	NULL,
};

static void expand(const char *pattern, uid_t caller_uid, char *out,
		   size_t size)
{
	const char *pct = strstr(pattern, "%u");

	if (!pct) {
		snprintf(out, size, "%s", pattern);
		return;
	}
	snprintf(out, size, "%.*s%u%s", (int)(pct - pattern), pattern,
		 (unsigned)caller_uid, pct + 2);
}

bool jr_mounts_is_hidden_socket(const char *path, uid_t caller_uid)
{
	char p[256];

	for (size_t i = 0; jr_hidden_sockets[i]; i++) {
		expand(jr_hidden_sockets[i], caller_uid, p, sizeof(p));
		if (strcmp(p, path) == 0)
			return true;
	}
	return false;
}

int jr_mounts_hide_sockets(char *const *exposed, size_t n_exposed,
			   uid_t caller_uid, uid_t uid, gid_t gid,
			   unsigned int *hidden, struct jr_err *err)
{
	for (size_t i = 0; jr_hidden_sockets[i]; i++) {
		char path[256], canon[PATH_MAX], exp[PATH_MAX];
		struct stat st;
		bool keep = false;
		int r;

		expand(jr_hidden_sockets[i], caller_uid, path, sizeof(path));
		/* Compare where the paths lead: /var/run is a symlink to
		 * /run, and --expose of either name means the same socket. */
		if (!realpath(path, canon) || stat(canon, &st) < 0 ||
		    !S_ISSOCK(st.st_mode))
			continue;
		for (size_t j = 0; j < n_exposed; j++)
			keep |= realpath(exposed[j], exp) &&
				strcmp(exp, canon) == 0;
		if (keep)
			continue;
		r = jr_mounts_bind_text(path, "", uid, gid, err);
		if (r == -ENOENT && lstat(path, &st) < 0 && errno == ENOENT) {
			/* Gone between the look and the mount (a daemon
			 * restarting): nothing to cover, and the one it
			 * makes next is refused by the unix socket guard
			 * (unixguard.c) like any host socket. */
			if (err)
				memset(err, 0, sizeof(*err));
			continue;
		}
		if (r < 0)
			return jr_err_prefix(
			    err,
			    "cannot hide the host daemon socket %s (use --expose %s to pass it on deliberately): ",
			    path, path);
		if (hidden)
			(*hidden)++;
	}
	return 0;
}

int jr_mounts_trust_bundle(const char *bundle, uid_t uid, gid_t gid,
			   struct jr_err *err)
{
	struct stat st;
	int r;

	for (size_t i = 0; i < JR_TRUST_PATHS_N; i++) {
		if (stat(jr_trust_paths[i], &st) < 0 || !S_ISREG(st.st_mode))
			continue;
		r = jr_mounts_bind_text(jr_trust_paths[i], bundle, uid, gid,
					err);
		if (r < 0)
			return jr_err_prefix(
			    err, "cannot show the sandbox's CA bundle: ");
	}
	return 0;
}
