// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * Unit tests for cgroup.c's cgroup v2 path, which this project's machine
 * cannot run for real (memory, pids and cpu are bound to v1 there, and a
 * private cgroup2 mount lists none of them).
 *
 * cgroup.c is included, not linked, to reach its static functions. A
 * temporary directory plays the host: a /proc/self/cgroup and a
 * /proc/self/mountinfo for a v2-only host, a container whose cgroup2 mount
 * is rooted below "/", and a hybrid host (this one); the cgroup directories
 * they name, with cgroup.controllers and cgroup.subtree_control. The
 * kernel's interface files are plain files here, created by the test, so
 * what is checked is which hierarchy each controller is taken from, which
 * files are written with which values, the read-back, and which files the
 * report reads: not what the kernel does with them.
 *
 * The sweep of a killed runner's directories runs on plain directories:
 * which names it takes, and that it never takes a live runner's, another
 * PID namespace's, or a directory that is not empty.
 */
#include <errno.h>
#include <fcntl.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>
#include <cmocka.h>

#include "cgroup.c"

static char top[256];

static void put(const char *rel, const char *text)
{
	char path[700];
	FILE *f;

	snprintf(path, sizeof(path), "%s/%s", top, rel);
	f = fopen(path, "we");
	assert_non_null(f);
	fputs(text, f);
	assert_int_equal(fclose(f), 0);
}

static void get(const char *rel, char *buf, size_t len)
{
	char path[700];

	snprintf(path, sizeof(path), "%s/%s", top, rel);
	assert_int_equal(read_text(path, buf, len), 0);
}

static void mkdir_rel(const char *rel)
{
	char path[2048];

	snprintf(path, sizeof(path), "%s/%s", top, rel);
	assert_int_equal(mkdir(path, 0755), 0);
}

static void unlink_rel(const char *rel)
{
	char path[700];

	snprintf(path, sizeof(path), "%s/%s", top, rel);
	assert_int_equal(unlink(path), 0);
}

static int setup(void **state)
{
	const char *tmp = getenv("TMPDIR");

	(void)state;
	snprintf(top, sizeof(top), "%s/jr-cgroup-XXXXXX", tmp ? tmp : "/tmp");
	return mkdtemp(top) ? 0 : -1;
}

static int teardown(void **state)
{
	char cmd[300];

	(void)state;
	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", top);
	return system(cmd) == 0 ? 0 : -1;
}

/* Parse the fake proc files into @lo. */
static void layout(struct cg_layout *lo)
{
	char cg[700], mi[700];

	snprintf(cg, sizeof(cg), "%s/proc-cgroup", top);
	snprintf(mi, sizeof(mi), "%s/proc-mountinfo", top);
	assert_int_equal(discover_from(lo, cg, mi), 0);
}

/* A v2-only host: every controller from the runner's v2 cgroup. */
static void test_v2_host(void **state)
{
	struct cg_layout lo;
	char want[600], mi[900];
	const char *home;
	bool v2;

	(void)state;
	mkdir_rel("sys");
	mkdir_rel("sys/user.slice");
	mkdir_rel("sys/user.slice/run.scope");
	put("sys/user.slice/run.scope/cgroup.controllers",
	    "cpuset cpu io memory pids\n");
	put("proc-cgroup", "0::/user.slice/run.scope\n");
	snprintf(
	    mi, sizeof(mi),
	    "24 1 0:22 / /proc rw,nosuid - proc proc rw\n"
	    "35 24 0:30 / %s/sys rw,nosuid,nodev shared:9 - cgroup2 cgroup2 rw,nsdelegate\n",
	    top);
	put("proc-mountinfo", mi);
	layout(&lo);
	snprintf(want, sizeof(want), "%s/sys/user.slice/run.scope", top);
	assert_string_equal(lo.v2_dir, want);
	assert_string_equal(lo.v2_controllers, "cpuset cpu io memory pids");
	for (int c = CG_MEMORY; c <= CG_CPU; c++) {
		home = ctrl_home(&lo, c, &v2);
		assert_non_null(home);
		assert_string_equal(home, want);
		assert_true(v2);
	}
	/* v2 has no freezer controller: cgroup.kill ends the tasks. */
	assert_null(ctrl_home(&lo, CG_FREEZER, &v2));

	/* A controller the parent does not offer is nobody's. */
	put("sys/user.slice/run.scope/cgroup.controllers", "cpu memory\n");
	layout(&lo);
	assert_null(ctrl_home(&lo, CG_PIDS, &v2));
	assert_non_null(ctrl_home(&lo, CG_MEMORY, &v2));
}

/* A container: cgroup2 mounted with its root below "/" (a cgroup
 * namespace, or a bind of a subtree); the path is made relative to it. */
static void test_v2_container(void **state)
{
	struct cg_layout lo;
	char want[600], mi[900];
	bool v2;

	(void)state;
	mkdir_rel("c");
	mkdir_rel("c/job");
	put("c/job/cgroup.controllers", "memory pids\n");
	put("proc-cgroup", "0::/machine.slice/box.scope/job\n");
	snprintf(
	    mi, sizeof(mi),
	    "40 30 0:30 /machine.slice/box.scope %s/c rw - cgroup2 cgroup2 rw\n",
	    top);
	put("proc-mountinfo", mi);
	layout(&lo);
	snprintf(want, sizeof(want), "%s/c/job", top);
	assert_string_equal(lo.v2_dir, want);
	assert_non_null(ctrl_home(&lo, CG_PIDS, &v2));
	assert_true(v2);

	/* A mount of another subtree does not hold the runner. */
	snprintf(mi, sizeof(mi),
		 "40 30 0:30 /other.slice %s/c rw - cgroup2 cgroup2 rw\n", top);
	put("proc-mountinfo", mi);
	layout(&lo);
	assert_string_equal(lo.v2_dir, "");
	assert_null(ctrl_home(&lo, CG_PIDS, &v2));
}

/* A hybrid host (this one): a controller on a v1 hierarchy is taken from
 * there, even when the v2 tree would list it too. */
static void test_hybrid_host(void **state)
{
	struct cg_layout lo;
	char want[600], mi[1200];
	const char *home;
	bool v2;

	(void)state;
	mkdir_rel("unified");
	mkdir_rel("unified/user.slice");
	put("unified/user.slice/cgroup.controllers", "memory\n");
	mkdir_rel("memory");
	mkdir_rel("memory/user.slice");
	mkdir_rel("pids");
	mkdir_rel("pids/user.slice");
	put("proc-cgroup", "12:memory:/user.slice\n"
			   "5:pids:/user.slice\n"
			   "3:cpu,cpuacct:/user.slice\n"
			   "0::/user.slice\n");
	snprintf(mi, sizeof(mi),
		 "30 25 0:26 / %s/unified rw - cgroup2 cgroup2 rw\n"
		 "31 25 0:27 / %s/memory rw - cgroup cgroup rw,memory\n"
		 "32 25 0:28 / %s/pids rw - cgroup cgroup rw,pids\n",
		 top, top, top);
	put("proc-mountinfo", mi);
	layout(&lo);
	home = ctrl_home(&lo, CG_MEMORY, &v2);
	snprintf(want, sizeof(want), "%s/memory/user.slice", top);
	assert_non_null(home);
	assert_string_equal(home, want);
	assert_false(v2);
	home = ctrl_home(&lo, CG_PIDS, &v2);
	snprintf(want, sizeof(want), "%s/pids/user.slice", top);
	assert_string_equal(home, want);
	assert_false(v2);
	/* cpu: on v1 by /proc/self/cgroup, but that hierarchy is not
	 * mounted, and v2 does not list it: nowhere. */
	assert_null(ctrl_home(&lo, CG_CPU, &v2));
}

/* v2_enable: "+memory" into the parent's cgroup.subtree_control, once. */
static void test_v2_enable(void **state)
{
	struct jr_cgroup *cg = calloc(1, sizeof(*cg));
	struct jr_err err = { 0 };
	char parent[600], got[256];

	(void)state;
	assert_non_null(cg);
	snprintf(cg->name, sizeof(cg->name), "jailrun.1.test");
	mkdir_rel("p");
	snprintf(parent, sizeof(parent), "%s/p", top);
	put("p/cgroup.subtree_control", "");
	assert_int_equal(v2_enable(cg, parent, CG_MEMORY, &err), 0);
	get("p/cgroup.subtree_control", got, sizeof(got));
	assert_string_equal(got, "+memory");
	assert_true(cg->v2_enabled[CG_MEMORY]);
	assert_string_equal(cg->runner_leaf, "");

	/* Already handed down: nothing written, nothing to undo. */
	put("p/cgroup.subtree_control", "cpu pids\n");
	assert_int_equal(v2_enable(cg, parent, CG_PIDS, &err), 0);
	get("p/cgroup.subtree_control", got, sizeof(got));
	assert_string_equal(got, "cpu pids");
	assert_false(cg->v2_enabled[CG_PIDS]);

	/* No such file (not a cgroup2 directory): an error with the fix. */
	unlink_rel("p/cgroup.subtree_control");
	assert_true(v2_enable(cg, parent, CG_CPU, &err) < 0);
	assert_non_null(strstr(err.msg, "cannot enable the cgroup v2 cpu"));
	assert_non_null(strstr(err.msg, "Delegate=yes"));
	free(cg);
}

/* apply_limits on a v2 directory: memory.max, memory.swap.max = 0,
 * pids.max, cpu.max "QUOTA PERIOD", each read back. */
static void test_v2_limits(void **state)
{
	struct jr_cgroup *cg = calloc(1, sizeof(*cg));
	struct jr_limits l = { .memory = 64ULL << 20,
			       .pids = 20,
			       .cpus_milli = 500 };
	struct jr_err err = { 0 };
	char got[256];

	(void)state;
	assert_non_null(cg);
	mkdir_rel("leaf");
	put("leaf/memory.max", "");
	put("leaf/memory.swap.max", "");
	put("leaf/pids.max", "");
	put("leaf/cpu.max", "");
	cg->n = 1;
	snprintf(cg->h[0].dir, sizeof(cg->h[0].dir), "%s/leaf", top);
	cg->h[0].v2 = true;
	cg->h[0].ctrl[CG_MEMORY] = cg->h[0].ctrl[CG_PIDS] =
	    cg->h[0].ctrl[CG_CPU] = true;
	assert_int_equal(apply_limits(cg, &l, &err), 0);
	get("leaf/memory.max", got, sizeof(got));
	assert_string_equal(got, "67108864");
	get("leaf/memory.swap.max", got, sizeof(got));
	assert_string_equal(got, "0");
	get("leaf/pids.max", got, sizeof(got));
	assert_string_equal(got, "20");
	get("leaf/cpu.max", got, sizeof(got));
	assert_string_equal(got, "50000 100000");

	/* No swap accounting (no memory.swap.max): not an error. */
	unlink_rel("leaf/memory.swap.max");
	assert_int_equal(apply_limits(cg, &l, &err), 0);

	/* cpu.max reading back something else: the limit is not in force. */
	put("leaf/cpu.max", "max 100000 and more\n");
	assert_true(apply_limits(cg, &l, &err) < 0);
	assert_non_null(strstr(err.msg, "cpu.max reads back"));
	assert_non_null(strstr(err.msg, "not in force"));

	/* A limit file that cannot be written: refused, never dropped. */
	put("leaf/cpu.max", "");
	unlink_rel("leaf/pids.max");
	assert_true(apply_limits(cg, &l, &err) < 0);
	assert_non_null(strstr(err.msg, "pids.max"));
	free(cg);
}

/* read_report on v2: memory.peak, memory.events oom_kill, pids.peak,
 * pids.events max; layout "v2", or "mixed" beside a v1 hierarchy. */
static void test_v2_report(void **state)
{
	struct jr_cgroup *cg = calloc(1, sizeof(*cg));
	struct jr_cgroup_report rep;

	(void)state;
	assert_non_null(cg);
	mkdir_rel("r");
	put("r/memory.peak", "1234567\n");
	put("r/memory.events", "low 0\nhigh 0\nmax 9\noom 2\noom_kill 1\n");
	put("r/pids.peak", "7\n");
	put("r/pids.events", "max 3\n");
	cg->n = 1;
	snprintf(cg->h[0].dir, sizeof(cg->h[0].dir), "%s/r", top);
	cg->h[0].v2 = true;
	cg->h[0].ctrl[CG_MEMORY] = cg->h[0].ctrl[CG_PIDS] = true;
	read_report(cg, &rep);
	assert_string_equal(rep.layout, "v2");
	assert_true(rep.have_memory_peak);
	assert_int_equal(rep.memory_peak, 1234567);
	assert_true(rep.have_oom_kills);
	assert_int_equal(rep.oom_kills, 1);
	assert_true(rep.have_pids_peak);
	assert_int_equal(rep.pids_peak, 7);
	assert_true(rep.have_pids_refused);
	assert_int_equal(rep.pids_refused, 3);

	/* A kernel without pids.peak: null, never a guess. */
	put("r/pids.peak", "");
	read_report(cg, &rep);
	assert_false(rep.have_pids_peak);

	/* cpu on a v1 hierarchy beside it. */
	mkdir_rel("v1cpu");
	cg->n = 2;
	snprintf(cg->h[1].dir, sizeof(cg->h[1].dir), "%s/v1cpu", top);
	cg->h[1].ctrl[CG_CPU] = true;
	read_report(cg, &rep);
	assert_string_equal(rep.layout, "mixed");
	free(cg);
}

static bool exists_rel(const char *rel)
{
	char path[2048];
	struct stat st;

	snprintf(path, sizeof(path), "%s/%s", top, rel);
	return lstat(path, &st) == 0;
}

/* A pid no process has: a child's, reaped. */
static pid_t dead_pid(void)
{
	pid_t pid = fork();
	int status;

	assert_true(pid >= 0);
	if (pid == 0)
		_exit(0);
	assert_int_equal(waitpid(pid, &status, 0), pid);
	return pid;
}

static void test_sweep(void **state)
{
	unsigned long long ns = own_pidns();
	pid_t dead = dead_pid();
	char gone[3][128], kept[10][128];

	(void)state;
	assert_true(ns != 0);
	snprintf(gone[0], 128, "jailrun.%d.%llx.0123abcd", (int)dead, ns);
	snprintf(gone[1], 128, "jailrun.%d.%llx.0123abcd.runner", (int)dead,
		 ns);
	snprintf(gone[2], 128, "jailrun.%d.%llx.ffffffff", (int)dead, ns);
	/* alive: our parent, ourselves */
	snprintf(kept[0], 128, "jailrun.%d.%llx.0123abcd", (int)getppid(), ns);
	snprintf(kept[1], 128, "jailrun.%d.%llx.0123abcd", (int)getpid(), ns);
	/* another PID namespace's runner: its pid means nothing here */
	snprintf(kept[2], 128, "jailrun.%d.%llx.0123abcd", (int)dead, ns + 1);
	/* not the name a runner makes */
	snprintf(kept[3], 128, "jailrun.%d.0123abcd", (int)dead); /* older */
	snprintf(kept[4], 128, "jailrun.%d.%llx.0123abc", (int)dead, ns);
	snprintf(kept[5], 128, "jailrun.%d.%llx.0123abcdx", (int)dead, ns);
	snprintf(kept[6], 128, "jailrun.0%d.%llx.0123abcd", (int)dead, ns);
	snprintf(kept[7], 128, "jailrun.%d.%llx.0123abcd.other", (int)dead, ns);
	/* a killed runner's, but not empty (a task still in it) */
	snprintf(kept[8], 128, "jailrun.%d.%llx.99999999", (int)dead, ns);
	/* a file, not a directory */
	snprintf(kept[9], 128, "jailrun.%d.%llx.88888888", (int)dead, ns);

	for (int i = 0; i < 3; i++)
		mkdir_rel(gone[i]);
	for (int i = 0; i < 9; i++)
		mkdir_rel(kept[i]);
	{
		char rel[200];

		snprintf(rel, sizeof(rel), "%s/cgroup.procs", kept[8]);
		put(rel, "4242\n");
	}
	put(kept[9], "");

	assert_int_equal(sweep_in(top, ns), 3);
	for (int i = 0; i < 3; i++)
		assert_false(exists_rel(gone[i]));
	for (int i = 0; i < 10; i++)
		assert_true(exists_rel(kept[i]));
	/* no PID namespace known: nothing is judged */
	mkdir_rel(gone[0]);
	assert_int_equal(sweep_in(top, 0), 0);
	assert_true(exists_rel(gone[0]));
	/* no such parent: nothing to do */
	assert_int_equal(sweep_in("/nonexistent/jr-cgroup", ns), 0);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(test_v2_host, setup, teardown),
		cmocka_unit_test_setup_teardown(test_v2_container, setup,
						teardown),
		cmocka_unit_test_setup_teardown(test_hybrid_host, setup,
						teardown),
		cmocka_unit_test_setup_teardown(test_v2_enable, setup,
						teardown),
		cmocka_unit_test_setup_teardown(test_v2_limits, setup,
						teardown),
		cmocka_unit_test_setup_teardown(test_v2_report, setup,
						teardown),
		cmocka_unit_test_setup_teardown(test_sweep, setup, teardown),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
