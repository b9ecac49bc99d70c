// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * cgroup.c - the sandbox's own cgroup: --memory, --pids, --cpus.
 *
 * Theory of operation: the runner finds, for each controller it needs,
 * the hierarchy that holds it: a cgroup v1 hierarchy mounted with that
 * controller (RHEL 8, Ubuntu 20.04, "hybrid" hosts), else the cgroup v2
 * tree if its cgroup.controllers lists it. /proc/self/cgroup says where
 * the runner is in each hierarchy and /proc/self/mountinfo where each is
 * mounted; the runner's directory is mount point + (path - mount root).
 * Under it the runner makes "jailrun.<pid>.<pidns>.<random>" (one per
 * hierarchy, so v1 gets several; <pidns> is the inode of the runner's PID
 * namespace, in hex), writes the limits and reads them back, and after the
 * clone writes init's pid into each cgroup.procs, before init is told to
 * go on (MAPS_DONE): the sandbox's whole setup and everything the command
 * forks are charged and bounded. init then takes a fresh cgroup namespace
 * rooted there, so the command sees its cgroup as "/".
 *
 * Making a directory needs write access to the runner's cgroup: root, or
 * a subtree delegated to the caller (systemd's Delegate=yes). Without it
 * the run stops with exit 125 and that fix: a limit is never dropped
 * silently. On v2 a controller must be enabled in the parent's
 * cgroup.subtree_control, which the kernel refuses while the parent holds
 * processes ("no internal processes"): if the runner is the only one
 * there (jailrun alone in a delegated unit or scope), it moves itself
 * into a leaf of its own first and back at the end; otherwise the run
 * stops with the fix.
 *
 * At the end (init reaped, so its PID namespace is gone already) whatever
 * is left is killed: v2 writes cgroup.kill; v1 freezes the freezer
 * hierarchy's cgroup (when there is one), SIGKILLs every pid listed (a
 * frozen task cannot exit and free its pid, so none is reused meanwhile),
 * and thaws. The figures are read (v2 memory.peak, memory.events
 * oom_kill; v1 memory.max_usage_in_bytes, memory.oom_control oom_kill;
 * pids.peak and pids.events on both where the kernel has them), then the
 * directories are removed, retrying a bounded while as the kernel
 * finishes with the exiting tasks. A runner that is SIGKILLed cannot do
 * that; its sandbox dies with it (init's parent-death signal), and the
 * empty directories are removed by the next runner that makes a cgroup
 * beside them (sweep_in()): it knows a runner is dead when the name's
 * <pidns> is its own and no process has that pid.
 *
 * --memory bounds memory plus swap: memory.swap.max = 0 on v2,
 * memory.memsw.limit_in_bytes = the limit on v1, where the kernel
 * accounts swap.
 */

#include <ctype.h>
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/random.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "cgroup.h"
#include "cleanup.h"
#include "clock.h"
#include "json.h"
#include "log.h"

enum cg_ctrl { CG_MEMORY, CG_PIDS, CG_CPU, CG_FREEZER, CG_COUNT };

static const char *const ctrl_name[CG_COUNT] = { "memory", "pids", "cpu",
						 "freezer" };

/* How long the end waits for the kernel to let go of the tasks. */
#define CG_DRAIN_TRIES 2500 /* x 2 ms */

/* Where each controller lives, as found in /proc/self/{cgroup,mountinfo}. */
struct cg_layout {
	char v1_dir[CG_COUNT][512]; /* "": not on a v1 hierarchy */
	char v2_dir[512];	    /* "": no cgroup2 mount of our cgroup */
	char v2_controllers[256];   /* its cgroup.controllers */
};

struct cg_hier {
	char dir[600]; /* the sandbox's directory */
	bool v2;
	bool made;
	bool ctrl[CG_COUNT]; /* controllers used through it */
};

struct jr_cgroup {
	struct cg_hier h[CG_COUNT];
	size_t n;
	char name[64]; /* jailrun.<pid>.<pidns>.<random>, in each hierarchy */
	/* v2, when the runner had to leave its cgroup (v2_enable) */
	char runner_leaf[600];
	char v2_parent[600];
	bool v2_enabled[CG_COUNT]; /* controllers the runner enabled */
};

/* Does comma-separated @list hold @word? */
static bool list_has(const char *list, const char *word, char sep)
{
	size_t wl = strlen(word);

	for (const char *p = list; p && *p;) {
		const char *e = strchr(p, sep);
		size_t l = e ? (size_t)(e - p) : strlen(p);

		if (l == wl && strncmp(p, word, wl) == 0)
			return true;
		p = e ? e + 1 : NULL;
	}
	return false;
}

static int read_text(const char *path, char *buf, size_t len)
{
	_cleanup_close_ int fd = open(path, O_RDONLY | O_CLOEXEC);
	ssize_t n;

	if (fd < 0)
		return -errno;
	n = read(fd, buf, len - 1);
	if (n < 0)
		return -errno;
	buf[n] = '\0';
	while (n > 0 && buf[n - 1] == '\n')
		buf[--n] = '\0';
	return 0;
}

static int write_text(const char *path, const char *text)
{
	_cleanup_close_ int fd = open(path, O_WRONLY | O_CLOEXEC);

	if (fd < 0)
		return -errno;
	if (write(fd, text, strlen(text)) < 0)
		return -errno;
	return 0;
}

static int file_u64(const char *dir, const char *file, uint64_t *v)
{
	char path[700], buf[64], *end;

	snprintf(path, sizeof(path), "%s/%s", dir, file);
	if (read_text(path, buf, sizeof(buf)) < 0)
		return -ENOENT;
	errno = 0;
	*v = strtoull(buf, &end, 10);
	if (errno || end == buf || *end)
		return -EINVAL;
	return 0;
}

/* The value of "KEY N" in a flat keyed file (memory.events, ...). */
static int keyed_u64(const char *dir, const char *file, const char *key,
		     uint64_t *v)
{
	char path[700], buf[2048];
	size_t kl = strlen(key);

	snprintf(path, sizeof(path), "%s/%s", dir, file);
	if (read_text(path, buf, sizeof(buf)) < 0)
		return -ENOENT;
	for (char *line = buf; line && *line;) {
		char *nl = strchr(line, '\n');

		if (nl)
			*nl = '\0';
		if (strncmp(line, key, kl) == 0 && line[kl] == ' ') {
			*v = strtoull(line + kl + 1, NULL, 10);
			return 0;
		}
		line = nl ? nl + 1 : NULL;
	}
	return -ENOENT;
}

/*
 * discover_from - fill @lo from @cgroup_file (/proc/self/cgroup's format,
 * "ID:CONTROLLERS:PATH") and @mountinfo_file (/proc/self/mountinfo's: root
 * and mount point in fields 4 and 5, the filesystem type and super options
 * after " - "). The files are parameters so that tests/unit/test_cgroup.c
 * can lay out a v2, hybrid or container host in a directory of its own.
 */
static int discover_from(struct cg_layout *lo, const char *cgroup_file,
			 const char *mountinfo_file)
{
	char v1_path[CG_COUNT][256] = { { 0 } }, v2_path[256] = "";
	_cleanup_free_ char *line = NULL;
	size_t cap = 0;
	FILE *f;

	memset(lo, 0, sizeof(*lo));
	f = fopen(cgroup_file, "re");
	if (!f)
		return -errno;
	while (getline(&line, &cap, f) > 0) {
		char *c1 = strchr(line, ':'),
		     *c2 = c1 ? strchr(c1 + 1, ':') : NULL;

		if (!c2)
			continue;
		*c1 = *c2 = '\0';
		c2[1 + strcspn(c2 + 1, "\n")] = '\0';
		if (strlen(c2 + 1) >= sizeof(v2_path))
			continue;
		if (strcmp(line, "0") == 0 && c1[1] == '\0') {
			snprintf(v2_path, sizeof(v2_path), "%s", c2 + 1);
			continue;
		}
		for (int c = 0; c < CG_COUNT; c++)
			if (list_has(c1 + 1, ctrl_name[c], ','))
				snprintf(v1_path[c], sizeof(v1_path[c]), "%s",
					 c2 + 1);
	}
	fclose(f);

	f = fopen(mountinfo_file, "re");
	if (!f)
		return -errno;
	while (getline(&line, &cap, f) > 0) {
		char root[256], mnt[256], type[32], super[256];
		const char *dash = strstr(line, " - ");
		size_t rl;

		if (!dash ||
		    sscanf(line, "%*s %*s %*s %255s %255s", root, mnt) != 2 ||
		    sscanf(dash + 3, "%31s %*s %255s", type, super) != 2)
			continue;
		/* Octal escapes (a space in a path): not a cgroup mount we
		 * would use. */
		if (strchr(mnt, '\\') || strchr(root, '\\'))
			continue;
		rl = strcmp(root, "/") == 0 ? 0 : strlen(root);
		if (strcmp(type, "cgroup2") == 0 && !lo->v2_dir[0] &&
		    v2_path[0] && strncmp(v2_path, root, rl) == 0 &&
		    (v2_path[rl] == '/' || v2_path[rl] == '\0'))
			snprintf(lo->v2_dir, sizeof(lo->v2_dir), "%s%s", mnt,
				 strcmp(v2_path + rl, "/") ? v2_path + rl : "");
		if (strcmp(type, "cgroup") != 0)
			continue;
		for (int c = 0; c < CG_COUNT; c++) {
			const char *p = v1_path[c];

			if (lo->v1_dir[c][0] || !p[0] ||
			    !list_has(super, ctrl_name[c], ',') ||
			    strncmp(p, root, rl) != 0 ||
			    (p[rl] != '/' && p[rl] != '\0'))
				continue;
			snprintf(lo->v1_dir[c], sizeof(lo->v1_dir[c]), "%s%s",
				 mnt, strcmp(p + rl, "/") ? p + rl : "");
		}
	}
	fclose(f);
	if (lo->v2_dir[0]) {
		char path[600];

		snprintf(path, sizeof(path), "%s/cgroup.controllers",
			 lo->v2_dir);
		if (read_text(path, lo->v2_controllers,
			      sizeof(lo->v2_controllers)) < 0)
			lo->v2_controllers[0] = '\0';
	}
	return 0;
}

/* discover - the runner's own layout (discover_from). */
static int discover(struct cg_layout *lo)
{
	return discover_from(lo, "/proc/self/cgroup", "/proc/self/mountinfo");
}

/* The directory holding the runner for controller @c, and whether it is
 * on v2; NULL: no hierarchy has it. */
static const char *ctrl_home(const struct cg_layout *lo, int c, bool *v2)
{
	*v2 = false;
	if (lo->v1_dir[c][0])
		return lo->v1_dir[c];
	if (lo->v2_dir[0] && list_has(lo->v2_controllers, ctrl_name[c], ' ')) {
		*v2 = true;
		return lo->v2_dir;
	}
	return NULL;
}

static const char *fix_hint =
    "run jailrun as root, or under a systemd unit (or systemd-run --scope) with Delegate=yes";

/* Add (or find) the hierarchy for @parent, making the sandbox's dir. */
static int add_hier(struct jr_cgroup *cg, const char *parent, bool v2, int c,
		    struct jr_err *err)
{
	struct cg_hier *h = NULL;
	char dir[600];

	snprintf(dir, sizeof(dir), "%s/%s", parent, cg->name);
	for (size_t i = 0; i < cg->n; i++)
		if (strcmp(cg->h[i].dir, dir) == 0)
			h = &cg->h[i];
	if (!h) {
		h = &cg->h[cg->n++];
		snprintf(h->dir, sizeof(h->dir), "%s", dir);
		h->v2 = v2;
		/* The random part: runners in different PID namespaces
		 * may share a pid and a parent cgroup. */
		if (mkdir(dir, 0755) < 0) {
			int e = errno;

			return jr_err_set(
			    err, e,
			    "--%s needs a cgroup of the sandbox's own, but %s cannot be made: %s; %s",
			    c == CG_CPU ? "cpus" : ctrl_name[c], dir,
			    strerror(e), fix_hint);
		}
		h->made = true;
	}
	h->ctrl[c] = true;
	return 0;
}

/* Write @value to @file of @h; the caller checks what reads back where
 * the kernel may round (check_u64) or reformat. */
static int set_file(const struct cg_hier *h, const char *file,
		    const char *value, struct jr_err *err)
{
	char path[700], back[128];
	int r;

	snprintf(path, sizeof(path), "%s/%s", h->dir, file);
	r = write_text(path, value);
	if (r == 0)
		r = read_text(path, back, sizeof(back));
	/* cpu.max reads back exactly as written ("QUOTA PERIOD"). */
	if (r == 0 && strcmp(file, "cpu.max") == 0 && strcmp(back, value))
		return jr_err_set(
		    err, EIO,
		    "%s reads back '%s', not '%s': the limit is not in force",
		    path, back, value);
	if (r < 0)
		return jr_err_set(err, -r, "cannot set %s to %s: %s; %s", path,
				  value, strerror(-r), fix_hint);
	return 0;
}

/* Read @file back as a number and check it is within (0, @max]. The
 * kernel rounds v1 memory limits down to a page. */
static int check_u64(const struct cg_hier *h, const char *file, uint64_t want,
		     struct jr_err *err)
{
	uint64_t got = 0;

	if (file_u64(h->dir, file, &got) < 0 || got > want ||
	    got + 65536 < want)
		return jr_err_set(
		    err, EIO,
		    "%s/%s reads back %llu, not %llu: the limit is not in force",
		    h->dir, file, (unsigned long long)got,
		    (unsigned long long)want);
	return 0;
}

static int apply_limits(struct jr_cgroup *cg, const struct jr_limits *l,
			struct jr_err *err)
{
	char v[64];
	int r;

	for (size_t i = 0; i < cg->n; i++) {
		const struct cg_hier *h = &cg->h[i];

		if (h->ctrl[CG_MEMORY]) {
			snprintf(v, sizeof(v), "%llu",
				 (unsigned long long)l->memory);
			if (h->v2) {
				r = set_file(h, "memory.max", v, err);
				if (r == 0)
					r = check_u64(h, "memory.max",
						      l->memory, err);
				/* No swap: --memory is all it may use. */
				if (r == 0 && access(h->dir, F_OK) == 0) {
					char p[700];

					snprintf(p, sizeof(p),
						 "%s/memory.swap.max", h->dir);
					if (access(p, F_OK) == 0)
						r = set_file(h,
							     "memory.swap.max",
							     "0", err);
				}
			} else {
				char p[700];

				r = set_file(h, "memory.limit_in_bytes", v,
					     err);
				if (r == 0)
					r = check_u64(h,
						      "memory.limit_in_bytes",
						      l->memory, err);
				snprintf(p, sizeof(p),
					 "%s/memory.memsw.limit_in_bytes",
					 h->dir);
				if (r == 0 && access(p, F_OK) == 0)
					r = set_file(
					    h, "memory.memsw.limit_in_bytes", v,
					    err);
			}
			if (r < 0)
				return r;
		}
		if (h->ctrl[CG_PIDS]) {
			snprintf(v, sizeof(v), "%llu",
				 (unsigned long long)l->pids);
			r = set_file(h, "pids.max", v, err);
			if (r == 0)
				r = check_u64(h, "pids.max", l->pids, err);
			if (r < 0)
				return r;
		}
		if (h->ctrl[CG_CPU]) {
			uint64_t quota =
			    l->cpus_milli * JR_CPU_PERIOD_US / 1000;

			if (h->v2) {
				snprintf(v, sizeof(v), "%llu %llu",
					 (unsigned long long)quota,
					 JR_CPU_PERIOD_US);
				r = set_file(h, "cpu.max", v, err);
			} else {
				snprintf(v, sizeof(v), "%llu",
					 JR_CPU_PERIOD_US);
				r = set_file(h, "cpu.cfs_period_us", v, err);
				snprintf(v, sizeof(v), "%llu",
					 (unsigned long long)quota);
				if (r == 0)
					r = set_file(h, "cpu.cfs_quota_us", v,
						     err);
				if (r == 0)
					r = check_u64(h, "cpu.cfs_quota_us",
						      quota, err);
			}
			if (r < 0)
				return r;
		}
	}
	return 0;
}

/* Move this whole process (every thread) into the v2 cgroup @dir. */
static int move_self(const char *dir)
{
	char path[700], v[32];

	snprintf(path, sizeof(path), "%s/cgroup.procs", dir);
	snprintf(v, sizeof(v), "%d", (int)getpid());
	return write_text(path, v);
}

/*
 * v2_enable - the parent must hand @c down (cgroup.subtree_control). The
 * kernel refuses while the parent holds processes (EBUSY, the
 * no-internal-processes rule); when the only one is the runner itself
 * (jailrun alone in a delegated unit or scope), the runner moves into a
 * leaf of its own, <name>.runner, and tries again; jr_cgroup_destroy()
 * undoes both. Called before the clone, so the runner has one thread.
 */
static int v2_enable(struct jr_cgroup *cg, const char *parent, int c,
		     struct jr_err *err)
{
	char path[600], cur[256], v[32];
	int r;

	snprintf(path, sizeof(path), "%s/cgroup.subtree_control", parent);
	if (read_text(path, cur, sizeof(cur)) == 0 &&
	    list_has(cur, ctrl_name[c], ' '))
		return 0;
	snprintf(v, sizeof(v), "+%s", ctrl_name[c]);
	r = write_text(path, v);
	if (r == -EBUSY && !cg->runner_leaf[0]) {
		snprintf(cg->runner_leaf, sizeof(cg->runner_leaf),
			 "%s/%s.runner", parent, cg->name);
		snprintf(cg->v2_parent, sizeof(cg->v2_parent), "%s", parent);
		if (mkdir(cg->runner_leaf, 0755) < 0) {
			r = -errno;
			cg->runner_leaf[0] = '\0';
		} else if (move_self(cg->runner_leaf) < 0) {
			rmdir(cg->runner_leaf);
			cg->runner_leaf[0] = '\0';
			r = -EBUSY;
		} else {
			r = write_text(path, v);
		}
	}
	if (r == -EBUSY)
		return jr_err_set(
		    err, EBUSY,
		    "cannot enable the cgroup v2 %s controller below %s: other processes are in it (the kernel's no-internal-processes rule); start jailrun alone in a cgroup delegated to it (a unit with Delegate=yes, or systemd-run --scope -p Delegate=yes jailrun ...)",
		    ctrl_name[c], parent);
	if (r < 0)
		return jr_err_set(
		    err, -r,
		    "cannot enable the cgroup v2 %s controller in %s: %s; %s",
		    ctrl_name[c], path, strerror(-r), fix_hint);
	cg->v2_enabled[c] = true;
	return 0;
}

/* Undo v2_enable()'s move: hand the controllers back, return to the
 * parent, remove the leaf. */
static bool v2_restore(struct jr_cgroup *cg)
{
	char path[700], v[32];

	if (!cg->runner_leaf[0])
		return true;
	snprintf(path, sizeof(path), "%s/cgroup.subtree_control",
		 cg->v2_parent);
	for (int c = 0; c < CG_COUNT; c++) {
		if (!cg->v2_enabled[c])
			continue;
		snprintf(v, sizeof(v), "-%s", ctrl_name[c]);
		write_text(path, v);
	}
	if (move_self(cg->v2_parent) < 0 || rmdir(cg->runner_leaf) < 0)
		return false;
	return true;
}

/* The inode of this process's PID namespace: with a pid, it names one
 * process for as long as that runs. 0: unknown (no /proc). */
static unsigned long long own_pidns(void)
{
	struct stat st;

	return stat("/proc/self/ns/pid", &st) == 0
		   ? (unsigned long long)st.st_ino
		   : 0;
}

/*
 * Parse a sandbox directory's @name, "jailrun.<pid>.<pidns>.<random>",
 * optionally followed by ".runner" (v2_enable()'s leaf). Return: true and
 * *@pid, *@pidns; false for any other name (an older jailrun's, or not
 * jailrun's).
 */
static bool parse_dir_name(const char *name, pid_t *pid,
			   unsigned long long *pidns)
{
	const char *p = name + strlen("jailrun.");
	char *end;
	long v;

	if (strncmp(name, "jailrun.", strlen("jailrun.")) != 0 ||
	    !(*p >= '1' && *p <= '9'))
		return false;
	errno = 0;
	v = strtol(p, &end, 10);
	if (errno || v <= 0 || v > INT32_MAX || *end != '.' ||
	    !isxdigit((unsigned char)end[1]))
		return false;
	*pid = (pid_t)v;
	p = end + 1;
	*pidns = strtoull(p, &end, 16);
	if (errno || *end != '.')
		return false;
	p = end + 1;
	for (int i = 0; i < 8; i++, p++)
		if (!isxdigit((unsigned char)*p))
			return false;
	return *p == '\0' || strcmp(p, ".runner") == 0;
}

/*
 * Remove the empty sandbox directories in @parent that runners of PID
 * namespace @pidns (0: do nothing) made and could not remove because they
 * were killed: "jailrun.<pid>.<pidns>.<random>[.runner]" with no process
 * of that pid. A directory that holds a task is left (rmdir refuses it).
 * Return: how many were removed.
 */
static int sweep_in(const char *parent, unsigned long long pidns)
{
	_cleanup_(closedirp) DIR *d = NULL;
	struct dirent *e;
	int n = 0;

	if (!pidns)
		return 0;
	d = opendir(parent);
	if (!d)
		return 0;
	while ((e = readdir(d))) {
		unsigned long long ns;
		pid_t pid;

		if (e->d_type != DT_DIR ||
		    !parse_dir_name(e->d_name, &pid, &ns) || ns != pidns ||
		    pid == getpid())
			continue;
		/* Alive (or a pid reused, even by one we may not signal):
		 * not ours to judge. */
		if (kill(pid, 0) == 0 || errno != ESRCH)
			continue;
		/* Only an empty cgroup can be removed (EBUSY otherwise):
		 * nothing running is touched. */
		if (unlinkat(dirfd(d), e->d_name, AT_REMOVEDIR) == 0)
			n++;
	}
	return n;
}

/* Sweep each hierarchy this run may make its directories in. */
static void sweep_dead(const struct cg_layout *lo, unsigned long long pidns)
{
	int n = lo->v2_dir[0] ? sweep_in(lo->v2_dir, pidns) : 0;

	for (int c = 0; c < CG_COUNT; c++) {
		bool seen = false;

		if (!lo->v1_dir[c][0])
			continue;
		for (int b = 0; b < c; b++) /* co-mounted controllers */
			seen |= strcmp(lo->v1_dir[b], lo->v1_dir[c]) == 0;
		if (!seen)
			n += sweep_in(lo->v1_dir[c], pidns);
	}
	if (n > 0)
		jr_verbose(
		    "removed %d empty cgroup director%s of runners that were killed",
		    n, n == 1 ? "y" : "ies");
}

int jr_cgroup_create(const struct jr_limits *l, struct jr_cgroup **out,
		     struct jr_err *err)
{
	bool need[CG_COUNT] = { [CG_MEMORY] = l->memory != 0,
				[CG_PIDS] = l->pids != 0,
				[CG_CPU] = l->cpus_milli != 0 };
	static const char *const opt[CG_COUNT] = { "--memory", "--pids",
						   "--cpus", "" };
	struct cg_layout lo;
	struct jr_cgroup *cg;
	bool any_v1 = false;
	unsigned long long pidns;
	uint32_t rnd = 0;
	int r;

	*out = NULL;
	r = discover(&lo);
	if (r < 0)
		return jr_err_set(err, -r,
				  "cannot read this process's cgroups: %s",
				  strerror(-r));
	cg = calloc(1, sizeof(*cg));
	if (!cg)
		return jr_err_set(err, ENOMEM, "out of memory");
	if (getrandom(&rnd, sizeof(rnd), 0) != (ssize_t)sizeof(rnd))
		rnd = (uint32_t)jr_clock_us();
	pidns = own_pidns();
	snprintf(cg->name, sizeof(cg->name), "jailrun.%d.%llx.%08x",
		 (int)getpid(), pidns, rnd);
	sweep_dead(&lo, pidns);
	for (int c = 0; c < CG_FREEZER; c++) {
		const char *home;
		bool v2;

		if (!need[c])
			continue;
		home = ctrl_home(&lo, c, &v2);
		if (!home && !lo.v2_dir[0] && !lo.v1_dir[CG_MEMORY][0] &&
		    !lo.v1_dir[CG_PIDS][0] && !lo.v1_dir[CG_CPU][0]) {
			r = jr_err_set(
			    err, EOPNOTSUPP,
			    "%s needs a cgroup, but no cgroup filesystem holding this process is mounted here (a mount namespace of 'ip netns exec' has none; run jailrun where /sys/fs/cgroup is mounted); the limit cannot be applied",
			    opt[c]);
			goto fail;
		}
		if (!home) {
			r = jr_err_set(
			    err, EOPNOTSUPP,
			    "%s needs the cgroup %s controller, which no cgroup hierarchy of this process offers (neither cgroup v1 nor v2); the limit cannot be applied",
			    opt[c], ctrl_name[c]);
			goto fail;
		}
		if (v2) {
			r = v2_enable(cg, home, c, err);
			if (r < 0)
				goto fail;
		}
		any_v1 |= !v2;
		r = add_hier(cg, home, v2, c, err);
		if (r < 0)
			goto fail;
	}
	/* v1 has no cgroup.kill: the freezer makes the end race-free. */
	if (any_v1 && lo.v1_dir[CG_FREEZER][0]) {
		r = add_hier(cg, lo.v1_dir[CG_FREEZER], false, CG_FREEZER, err);
		if (r < 0)
			goto fail;
	}
	r = apply_limits(cg, l, err);
	if (r < 0)
		goto fail;
	*out = cg;
	return 0;
fail:
	jr_cgroup_destroy(cg, NULL);
	return r;
}

int jr_cgroup_attach(struct jr_cgroup *cg, pid_t pid, struct jr_err *err)
{
	char path[700], v[32];

	snprintf(v, sizeof(v), "%d", (int)pid);
	for (size_t i = 0; cg && i < cg->n; i++) {
		int r;

		snprintf(path, sizeof(path), "%s/cgroup.procs", cg->h[i].dir);
		r = write_text(path, v);
		if (r < 0)
			return jr_err_set(
			    err, -r,
			    "cannot move the sandbox into its cgroup (%s): %s; %s",
			    path, strerror(-r), fix_hint);
	}
	return 0;
}

/* SIGKILL every task listed in @dir/cgroup.procs; how many were listed. */
static size_t kill_listed(const char *dir)
{
	char path[700];
	size_t n = 0;
	long pid;
	FILE *f;

	snprintf(path, sizeof(path), "%s/cgroup.procs", dir);
	f = fopen(path, "re");
	if (!f)
		return 0;
	while (fscanf(f, "%ld", &pid) == 1) {
		if (pid > 0)
			kill((pid_t)pid, SIGKILL);
		n++;
	}
	fclose(f);
	return n;
}

static void pause_2ms(void)
{
	struct timespec ts = { 0, 2000000 };

	nanosleep(&ts, NULL);
}

/* End every task: cgroup.kill (v2), or freeze, kill, thaw (v1). */
static void kill_all(struct jr_cgroup *cg)
{
	const struct cg_hier *fz = NULL;

	for (size_t i = 0; i < cg->n; i++) {
		char path[700];

		if (!cg->h[i].made)
			continue;
		if (cg->h[i].ctrl[CG_FREEZER])
			fz = &cg->h[i];
		snprintf(path, sizeof(path), "%s/cgroup.kill", cg->h[i].dir);
		if (cg->h[i].v2 && write_text(path, "1") == 0)
			continue;
	}
	if (fz) {
		char path[700], state[32] = "";

		snprintf(path, sizeof(path), "%s/freezer.state", fz->dir);
		if (write_text(path, "FROZEN") == 0)
			for (int t = 0; t < 500; t++) {
				if (read_text(path, state, sizeof(state)) < 0 ||
				    strcmp(state, "FROZEN") == 0)
					break;
				pause_2ms();
			}
		kill_listed(fz->dir);
		write_text(path, "THAWED");
	}
	for (size_t i = 0; i < cg->n; i++)
		if (cg->h[i].made && !cg->h[i].v2)
			kill_listed(cg->h[i].dir);
}

static void read_report(const struct jr_cgroup *cg,
			struct jr_cgroup_report *rep)
{
	bool v1 = false, v2 = false;

	memset(rep, 0, sizeof(*rep));
	rep->used = true;
	for (size_t i = 0; i < cg->n; i++) {
		const struct cg_hier *h = &cg->h[i];

		if (h->ctrl[CG_FREEZER] && !h->ctrl[CG_MEMORY] &&
		    !h->ctrl[CG_PIDS] && !h->ctrl[CG_CPU])
			continue;
		v1 |= !h->v2;
		v2 |= h->v2;
		if (h->ctrl[CG_MEMORY]) {
			rep->have_memory_peak =
			    file_u64(h->dir,
				     h->v2 ? "memory.peak"
					   : "memory.max_usage_in_bytes",
				     &rep->memory_peak) == 0;
			rep->have_oom_kills =
			    keyed_u64(h->dir,
				      h->v2 ? "memory.events"
					    : "memory.oom_control",
				      "oom_kill", &rep->oom_kills) == 0;
		}
		if (h->ctrl[CG_PIDS]) {
			/* pids.peak: Linux >= 6.1 (v1 and v2). Older kernels
			 * have no high-water mark: null, never a guess. */
			rep->have_pids_peak =
			    file_u64(h->dir, "pids.peak", &rep->pids_peak) == 0;
			rep->have_pids_refused =
			    keyed_u64(h->dir, "pids.events", "max",
				      &rep->pids_refused) == 0;
		}
	}
	rep->layout = v1 && v2 ? "mixed" : v2 ? "v2" : "v1";
}

void jr_cgroup_destroy(struct jr_cgroup *cg, struct jr_cgroup_report *rep)
{
	bool removed = true;

	if (!cg)
		return;
	kill_all(cg);
	if (rep)
		read_report(cg, rep);
	for (size_t i = 0; i < cg->n; i++) {
		int t;

		if (!cg->h[i].made)
			continue;
		for (t = 0; t < CG_DRAIN_TRIES; t++) {
			if (rmdir(cg->h[i].dir) == 0 || errno == ENOENT)
				break;
			if (errno != EBUSY)
				break;
			kill_listed(cg->h[i].dir);
			pause_2ms();
		}
		if (access(cg->h[i].dir, F_OK) == 0)
			removed = false;
	}
	if (!v2_restore(cg))
		removed = false;
	if (rep)
		rep->removed = removed;
	free(cg);
}

/* Remove directory @dir of a dead runner's cgroup: its tasks killed,
 * retried a bounded while as in jr_cgroup_destroy(). Return: 0 or -errno. */
static int remove_left_dir(const char *dir)
{
	for (int t = 0; t < CG_DRAIN_TRIES; t++) {
		if (rmdir(dir) == 0 || errno == ENOENT)
			return 0;
		if (errno != EBUSY)
			return -errno;
		kill_listed(dir);
		pause_2ms();
	}
	return -EBUSY;
}

/* Remove every "jailrun.<@runner>.*" directory in @parent. */
static int remove_left_in(const char *parent, pid_t runner)
{
	_cleanup_(closedirp) DIR *d = opendir(parent);
	char prefix[32], dir[1024];
	struct dirent *e;
	int n = 0;

	if (!d)
		return errno == ENOENT ? 0 : -errno;
	snprintf(prefix, sizeof(prefix), "jailrun.%d.", (int)runner);
	while ((e = readdir(d))) {
		int r;

		if (strncmp(e->d_name, prefix, strlen(prefix)) != 0 ||
		    e->d_type != DT_DIR)
			continue;
		snprintf(dir, sizeof(dir), "%s/%s", parent, e->d_name);
		r = remove_left_dir(dir);
		if (r < 0)
			return r;
		n++;
	}
	return n;
}

int jr_cgroup_remove_left(pid_t runner)
{
	struct cg_layout lo;
	int r = discover(&lo), n = 0;

	if (r < 0)
		return r;
	for (int c = 0; c <= CG_COUNT && r >= 0; c++) {
		const char *parent = c == CG_COUNT ? lo.v2_dir : lo.v1_dir[c];

		r = parent[0] ? remove_left_in(parent, runner) : 0;
		n += r > 0 ? r : 0;
	}
	return r < 0 ? r : n;
}

void jr_cgroup_check_report(void)
{
	struct cg_layout lo;
	bool v1 = false;

	if (discover(&lo) < 0) {
		printf("  info  cgroups: cannot read /proc/self/cgroup: %s\n",
		       strerror(errno));
		return;
	}
	for (int c = 0; c < CG_FREEZER; c++)
		v1 |= lo.v1_dir[c][0] != '\0';
	printf("  info  cgroups: layout %s\n",
	       v1 && lo.v2_dir[0]
		   ? "hybrid (v1 controllers, a cgroup2 tree beside)"
	       : v1	      ? "v1"
	       : lo.v2_dir[0] ? "v2"
			      : "none");
	for (int c = 0; c < CG_COUNT; c++) {
		bool v2;
		const char *home = ctrl_home(&lo, c, &v2);
		char probe[600];
		bool writable;

		if (!home) {
			printf("  info  cgroups: %s: not available%s\n",
			       ctrl_name[c],
			       c == CG_FREEZER
				   ? ""
				   : " (that limit cannot be applied)");
			continue;
		}
		snprintf(probe, sizeof(probe), "%s/cgroup.procs", home);
		writable = access(home, W_OK) == 0 && access(probe, W_OK) == 0;
		printf("  info  cgroups: %s: %s at %s, %s\n", ctrl_name[c],
		       v2 ? "v2" : "v1", home,
		       writable ? "writable: --memory/--pids/--cpus usable"
				: "not writable: needs root or Delegate=yes");
	}
	{
		bool v2_any = false;

		for (int c = 0; c < CG_FREEZER; c++)
			v2_any |= lo.v2_dir[0] && list_has(lo.v2_controllers,
							   ctrl_name[c], ' ');
		printf("  info  cgroups: v2 controllers usable here: %s%s\n",
		       lo.v2_dir[0] && lo.v2_controllers[0] ? lo.v2_controllers
		       : lo.v2_dir[0]			    ? "none"
				      : "none (no cgroup2 mount)",
		       v2_any ? ""
			      : "; memory, pids and cpu are not among them: "
				"the v2 code path cannot run on this host");
	}
}

static void uint_or_null(struct jr_json *j, const char *key, bool have,
			 uint64_t v)
{
	jr_json_key(j, key);
	if (have)
		jr_json_uint(j, v);
	else
		jr_json_null(j);
}

void jr_limits_to_json(struct jr_json *j, const struct jr_limits *l,
		       const struct jr_cgroup_report *rep)
{
	bool any_rlimit = false;

	jr_json_key(j, "limits");
	for (int i = 0; l && i < JR_RLIMIT_COUNT; i++)
		any_rlimit |= l->rlimit_set[i];
	if (!l || (!any_rlimit && !jr_limits_need_cgroup(l))) {
		jr_json_null(j);
		return;
	}
	jr_json_object_begin(j);
	jr_json_key(j, "cgroup");
	if (rep && rep->used)
		jr_json_string(j, rep->layout);
	else
		jr_json_null(j);
	uint_or_null(j, "memory_max", l->memory, l->memory);
	uint_or_null(j, "memory_peak", rep && rep->have_memory_peak,
		     rep ? rep->memory_peak : 0);
	uint_or_null(j, "oom_kills", rep && rep->have_oom_kills,
		     rep ? rep->oom_kills : 0);
	uint_or_null(j, "pids_max", l->pids, l->pids);
	uint_or_null(j, "pids_peak", rep && rep->have_pids_peak,
		     rep ? rep->pids_peak : 0);
	uint_or_null(j, "pids_refused", rep && rep->have_pids_refused,
		     rep ? rep->pids_refused : 0);
	uint_or_null(j, "cpu_quota_us", l->cpus_milli,
		     l->cpus_milli * JR_CPU_PERIOD_US / 1000);
	uint_or_null(j, "cpu_period_us", l->cpus_milli, JR_CPU_PERIOD_US);
	jr_json_key(j, "cgroup_removed");
	if (rep && rep->used)
		jr_json_bool(j, rep->removed);
	else
		jr_json_null(j);
	jr_json_key(j, "rlimits");
	jr_json_object_begin(j);
	for (int i = 0; i < JR_RLIMIT_COUNT; i++) {
		if (!l->rlimit_set[i])
			continue;
		jr_json_key(j, jr_rlimit_name(i));
		if (l->rlimit[i] == JR_RLIMIT_UNLIMITED)
			jr_json_string(j, "unlimited");
		else
			jr_json_uint(j, l->rlimit[i]);
	}
	jr_json_object_end(j);
	jr_json_object_end(j);
}
