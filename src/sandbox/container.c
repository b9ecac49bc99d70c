// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * container.c - why jailrun cannot make its sandbox inside this container,
 * and the container setting that fixes it (jailrun(1), CONTAINERS).
 *
 * Theory of operation: a container (podman, Docker, a Kubernetes pod)
 * takes three things jailrun needs, each with its own symptom:
 *  - its seccomp profile refuses a system call the sandbox needs
 *    (unshare/clone with CLONE_NEWUSER, sethostname): EPERM or ENOSYS,
 *    while /proc/self/status says Seccomp: 2, and the same call made so
 *    that the kernel itself must answer EINVAL gets the filter's answer;
 *  - it masks parts of /proc and /sys (mounts over /proc/keys,
 *    /sys/firmware...), and the kernel lets a user namespace mount a fresh
 *    proc or sysfs only where one is already fully visible (fs/namespace.c,
 *    mount_too_revealing()): EPERM from fsmount, and mounts on top of the
 *    container's /proc or /sys in /proc/self/mountinfo;
 *  - it runs jailrun as root with a user namespace that maps only root, or
 *    without CAP_SETUID/CAP_SETGID: the id map of the command's user cannot
 *    be written (EPERM), and /proc/self/uid_map or CapEff says why.
 * The parsers are pure (unit-tested); the explain functions read the files
 * and are only called on a failure path.
 */

#include <errno.h>
#include <fcntl.h>
#include <sched.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#include "cleanup.h"
#include "container.h"

/* A container's mountinfo is a few kilobytes; a host's can be long, and
 * only the mounts near the top (the /proc and /sys ones) matter. */
#define PROC_TEXT_MAX (256 * 1024)
#define MI_LINE_MAX 4096
/* CAP_SETUID and CAP_SETGID (linux/capability.h). */
#define JR_CAP_SETGID 6
#define JR_CAP_SETUID 7
#define JR_CAP_SYS_ADMIN 21
/* __NEW_UTS_LEN (linux/utsname.h): the longest name sethostname takes. */
#define JR_HOST_NAME_MAX 64

/*
 * Directories the kernel keeps empty for mounts (register_sysctl_mount_point,
 * sysfs_create_mount_point): a mount there hides nothing, so the kernel
 * does not count it against a fresh proc or sysfs.
 */
static const char *const empty_mountpoints[] = {
	"/proc/sys/fs/binfmt_misc",
	"/sys/fs/cgroup",
	"/sys/kernel/debug",
	"/sys/kernel/tracing",
	"/sys/kernel/security",
	"/sys/kernel/config",
	"/sys/fs/bpf",
	"/sys/fs/pstore",
	"/sys/fs/selinux",
	"/sys/fs/fuse/connections",
	"/sys/firmware/efi/efivars",
};

/* The line after the one @p is in, or NULL after the last. */
static const char *next_line(const char *p)
{
	p = strchr(p, '\n');
	return p && p[1] ? p + 1 : NULL;
}

int jr_ctr_status_field(const char *status, const char *name, int base,
			unsigned long long *value)
{
	size_t n = strlen(name);

	for (const char *p = *status ? status : NULL; p; p = next_line(p)) {
		char *end;

		if (strncmp(p, name, n) != 0 || p[n] != ':')
			continue;
		p += n + 1;
		p += strspn(p, " \t");
		errno = 0;
		*value = strtoull(p, &end, base);
		if (errno || end == p || (*end && *end != '\n'))
			return -ENOENT;
		return 0;
	}
	return -ENOENT;
}

bool jr_ctr_idmap_covers(const char *map, unsigned long id)
{
	unsigned long first, outside, count;
	int used;

	for (const char *p = map; p && *p;) {
		if (sscanf(p, " %lu %lu %lu%n", &first, &outside, &count,
			   &used) != 3)
			return false;
		if (id >= first && id - first < count)
			return true;
		p = next_line(p + used);
	}
	return false;
}

/* One line of mountinfo: "ID PARENT MAJ:MIN ROOT MOUNTPOINT OPTS [TAGS] -
 * FSTYPE SOURCE SUPEROPTS" (proc(5)); the fields jailrun needs. */
struct mi_line {
	unsigned long id, parent;
	char mountpoint[MI_LINE_MAX];
	char fstype[64];
};

static bool parse_mi_line(const char *line, struct mi_line *l)
{
	const char *sep = strstr(line, " - ");

	return sep &&
	       sscanf(line, "%lu %lu %*s %*s %4095s", &l->id, &l->parent,
		      l->mountpoint) == 3 &&
	       sscanf(sep + 3, "%63s", l->fstype) == 1;
}

/* Call @fn on each parsable line of @mountinfo. */
static void each_mi_line(const char *mountinfo,
			 void (*fn)(const struct mi_line *l, void *arg),
			 void *arg)
{
	char buf[MI_LINE_MAX];
	struct mi_line l;

	for (const char *p = mountinfo; p && *p;) {
		const char *nl = strchr(p, '\n');
		size_t n = nl ? (size_t)(nl - p) : strlen(p);

		if (n < sizeof(buf)) {
			memcpy(buf, p, n);
			buf[n] = '\0';
			if (parse_mi_line(buf, &l))
				fn(&l, arg);
		}
		p = nl ? nl + 1 : NULL;
	}
}

struct masked_walk {
	const char *mountpoint, *fstype;
	unsigned long top;
	bool found;
	char *out;
	size_t len, used, count;
};

/* The topmost mount of the wanted type on the mountpoint: the last one. */
static void find_top(const struct mi_line *l, void *arg)
{
	struct masked_walk *w = arg;

	if (strcmp(l->mountpoint, w->mountpoint) == 0 &&
	    strcmp(l->fstype, w->fstype) == 0) {
		w->top = l->id;
		w->found = true;
	}
}

static bool hides_nothing(const char *mountpoint)
{
	for (size_t i = 0; i < ARRAY_SIZE(empty_mountpoints); i++)
		if (strcmp(mountpoint, empty_mountpoints[i]) == 0)
			return true;
	return false;
}

/* Append @s to the ", "-separated list; "..." once it no longer fits. */
static void list_add(struct masked_walk *w, const char *s)
{
	int n;

	if (!w->len || w->used >= w->len - 1)
		return;
	n = snprintf(w->out + w->used, w->len - w->used, "%s%s",
		     w->count ? ", " : "", s);
	if (n >= 0 && (size_t)n < w->len - w->used) {
		w->used += (size_t)n;
		return;
	}
	/* Did not fit: end the list with "..." where room allows. */
	w->used = w->len - 1;
	if (w->len > 4)
		memcpy(w->out + w->len - 4, "...", 4);
}

/* A mount on the top instance, over something it hides. */
static void collect_children(const struct mi_line *l, void *arg)
{
	struct masked_walk *w = arg;

	if (l->parent != w->top || l->id == w->top ||
	    hides_nothing(l->mountpoint))
		return;
	list_add(w, l->mountpoint);
	w->count++;
}

size_t jr_ctr_masked_paths(const char *mountinfo, const char *mountpoint,
			   const char *fstype, char *out, size_t len)
{
	struct masked_walk w = { .mountpoint = mountpoint,
				 .fstype = fstype,
				 .out = out,
				 .len = len };

	if (len)
		out[0] = '\0';
	each_mi_line(mountinfo, find_top, &w);
	if (!w.found)
		return 0;
	each_mi_line(mountinfo, collect_children, &w);
	return w.count;
}

/* Read a /proc text file whole (st_size says 0 there): malloc'd, or NULL. */
static char *read_proc_text(const char *path)
{
	_cleanup_close_ int fd = open(path, O_RDONLY | O_CLOEXEC);
	_cleanup_free_ char *buf = NULL;
	size_t used = 0;
	ssize_t n;

	if (fd < 0)
		return NULL;
	buf = malloc(PROC_TEXT_MAX);
	if (!buf)
		return NULL;
	while (used < PROC_TEXT_MAX - 1) {
		n = read(fd, buf + used, PROC_TEXT_MAX - 1 - used);
		if (n < 0)
			return NULL;
		if (n == 0)
			break;
		used += (size_t)n;
	}
	buf[used] = '\0';
	return steal_pointer(&buf);
}

int jr_ctr_explain_mount(const char *fstype, const char *mountpoint, int code,
			 struct jr_err *err)
{
	_cleanup_free_ char *mi = NULL;
	char paths[200];

	if (code == EPERM)
		mi = read_proc_text("/proc/self/mountinfo");
	if (!mi ||
	    !jr_ctr_masked_paths(mi, mountpoint, fstype, paths, sizeof(paths)))
		return jr_err_set(err, code, "cannot mount a new %s: %s",
				  fstype, strerror(code));
	return jr_err_set(
	    err, code,
	    "cannot mount a new %s: %s: %s is masked in this container (%s mounted over it), and the kernel refuses a fresh %s while any of it is hidden; unmask /proc and /sys (podman: --security-opt unmask=ALL; docker: --security-opt systempaths=unconfined; Kubernetes: securityContext.procMount: Unmasked, with hostUsers: false); see CONTAINERS in jailrun(1)",
	    fstype, strerror(code), mountpoint, paths, fstype);
}

static bool seccomp_filtered(void)
{
	_cleanup_free_ char *status = read_proc_text("/proc/self/status");
	unsigned long long mode;

	/* SECCOMP_MODE_FILTER (linux/seccomp.h). */
	return status &&
	       jr_ctr_status_field(status, "Seccomp", 10, &mode) == 0 &&
	       mode == 2;
}

/*
 * Whether the filter refuses the namespace calls: an unshare and a clone
 * with CLONE_NEWUSER and a flag the kernel never accepts with it
 * (CLONE_PTRACE is no unshare flag; clone refuses CLONE_NEWUSER with
 * CLONE_FS), so the kernel answers EINVAL before any permission check and
 * creates nothing. Any other answer is the filter's.
 */
static bool userns_calls_refused(void)
{
	long r;
	int status;

	if (unshare(CLONE_NEWUSER | CLONE_PTRACE) < 0 && errno != EINVAL)
		return true;
	r = syscall(SYS_clone, CLONE_NEWUSER | CLONE_FS | SIGCHLD, NULL, NULL,
		    NULL, NULL);
	if (r == 0)
		_exit(0); /* no kernel does this; never run on */
	if (r > 0) {
		while (waitpid((pid_t)r, &status, 0) < 0 && errno == EINTR)
			;
		return false;
	}
	return errno != EINVAL;
}

/*
 * Whether the filter refuses sethostname: asked with a name longer than
 * the kernel takes, by a process that holds CAP_SYS_ADMIN in its UTS
 * namespace's owner (init in the sandbox's new user namespace), the kernel
 * answers EINVAL and changes nothing. Without that capability the test
 * says nothing (EPERM either way).
 */
static bool sethostname_refused(const char *status)
{
	char name[JR_HOST_NAME_MAX + 2];
	unsigned long long caps;

	if (jr_ctr_status_field(status, "CapEff", 16, &caps) < 0 ||
	    !(caps & (1ULL << JR_CAP_SYS_ADMIN)))
		return false;
	memset(name, 'x', sizeof(name));
	return sethostname(name, sizeof(name)) < 0 && errno != EINVAL;
}

const char *jr_ctr_seccomp_refuses(void)
{
	_cleanup_free_ char *status = NULL;
	bool ns, host;

	if (!seccomp_filtered())
		return NULL;
	status = read_proc_text("/proc/self/status");
	ns = userns_calls_refused();
	host = status && sethostname_refused(status);
	if (ns && host)
		return "unshare and clone with CLONE_NEWUSER, and sethostname";
	if (ns)
		return "unshare and clone with CLONE_NEWUSER";
	return host ? "sethostname" : NULL;
}

int jr_ctr_explain_map(const char *what, const char *kind, unsigned long id,
		       int code, struct jr_err *err)
{
	bool uid = strcmp(kind, "uid") == 0;
	_cleanup_free_ char *map = NULL;
	_cleanup_free_ char *status = NULL;
	unsigned long long caps;
	int cap = uid ? JR_CAP_SETUID : JR_CAP_SETGID;

	if (code != EPERM)
		return 0;
	map = read_proc_text(uid ? "/proc/self/uid_map" : "/proc/self/gid_map");
	if (map && !jr_ctr_idmap_covers(map, id))
		return jr_err_set(
		    err, code,
		    "%s: %s: %s %lu (the command's outside the sandbox: as root, jailrun runs it as nobody unless --user says otherwise) is not mapped in the user namespace jailrun runs in (a container's; see /proc/self/%s_map); run jailrun as a non-root user there (podman or docker: --user UID; Kubernetes: securityContext.runAsUser with runAsNonRoot: true), which needs no mapping, or give the container a user namespace that maps %s %lu",
		    what, strerror(code), kind, id, kind, kind, id);
	if (geteuid() != 0)
		return 0;
	status = read_proc_text("/proc/self/status");
	if (status && jr_ctr_status_field(status, "CapEff", 16, &caps) == 0 &&
	    !(caps & (1ULL << cap)))
		return jr_err_set(
		    err, code,
		    "%s: %s: jailrun runs as root without %s, which mapping %s %lu into the sandbox needs (a container that drops capabilities: Kubernetes capabilities.drop: [ALL], podman --cap-drop); run jailrun as a non-root user there (podman or docker: --user UID; Kubernetes: securityContext.runAsUser with runAsNonRoot: true), which needs no capability, or keep CAP_SETUID, CAP_SETGID and CAP_SYS_PTRACE",
		    what, strerror(code), uid ? "CAP_SETUID" : "CAP_SETGID",
		    kind, id);
	return 0;
}
