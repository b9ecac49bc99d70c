// SPDX-License-Identifier: GPL-2.0-or-later
/* Unit tests for fspolicy.c: path rules, the tables, socket variables. */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "fspolicy.h"

static void norm_is(const char *cwd, const char *in, const char *want)
{
	char out[256];

	assert_int_equal(jr_fs_normalize(cwd, in, out, sizeof(out)), 0);
	assert_string_equal(out, want);
}

static void test_normalize(void **state)
{
	char small[8];

	norm_is("/", "/", "/");
	norm_is("/w", "x", "/w/x");
	norm_is("/w", "./x/", "/w/x");
	norm_is("/w", "//a//b/.", "/a/b");
	norm_is("/w/p", "../q", "/w/q");
	norm_is("/", "/../..", "/");
	norm_is("/a", "..", "/");
	norm_is("/a", "/x/../y/./z", "/y/z");
	/* too long is an error, not a truncation */
	assert_int_equal(
	    jr_fs_normalize("/", "/abcdefgh", small, sizeof(small)),
	    -ENAMETOOLONG);
}

static void test_within_depth(void **state)
{
	assert_true(jr_fs_path_within("/a/b", "/a"));
	assert_true(jr_fs_path_within("/a", "/a"));
	assert_false(jr_fs_path_within("/ab", "/a")); /* not a prefix match */
	assert_true(jr_fs_path_within("/x", "/"));
	assert_false(jr_fs_path_within("/a", "/a/b"));
	assert_int_equal(jr_fs_depth("/"), 0);
	assert_int_equal(jr_fs_depth("/tmp"), 1);
	assert_int_equal(jr_fs_depth("/tmp/a/b"), 3);
}

static void test_tables(void **state)
{
	static const char *const must_protect[] = {
		".git",
		".git/hooks",
		".git/config",
		".git/config.worktree",
		".git/commondir",
		".git/worktrees",
		".git/modules",
		".husky",
		".pre-commit-config.yaml",
		"lefthook.yml",
		".gitmodules",
		".envrc",
		".vscode",
		".idea",
		".bashrc",
		".bash_profile",
		".profile",
		".zshrc",
	};
	static const char *const must_hide[] = {
		".ssh",
		".gnupg",
		".aws",
		".azure",
		".kube",
		".docker",
		".netrc",
		".git-credentials",
		".npmrc",
		".pypirc",
		".password-store",
		".config/gh",
		".mozilla",
		".config/gcloud",
		".cargo/credentials.toml",
		".local/share/keyrings",
		".config/chromium",
		/* issue 21 */
		".claude/.credentials.json",
		".codex/auth.json",
		".bash_history",
		".pgpass",
		".vault-token",
		".env",
	};

	for (size_t i = 0; i < sizeof(must_protect) / sizeof(*must_protect);
	     i++) {
		bool found = false;

		for (size_t j = 0; j < jr_fs_n_protected; j++)
			found |= strcmp(jr_fs_protected[j].path,
					must_protect[i]) == 0;
		assert_true(found);
	}
	for (size_t i = 0; i < sizeof(must_hide) / sizeof(*must_hide); i++) {
		bool found = false;

		for (size_t j = 0; j < jr_fs_n_hidden; j++)
			found |=
			    strcmp(jr_fs_hidden[j].path, must_hide[i]) == 0;
		assert_true(found);
	}
	/* Every row has a reason, and paths are relative. */
	for (size_t j = 0; j < jr_fs_n_protected; j++)
		assert_true(jr_fs_protected[j].path[0] != '/' &&
			    jr_fs_protected[j].reason[0]);
	for (size_t j = 0; j < jr_fs_n_hidden; j++)
		assert_true(jr_fs_hidden[j].path[0] != '/' &&
			    jr_fs_hidden[j].reason[0]);
	for (size_t j = 0; j < jr_env_n_rules; j++)
		assert_true(jr_env_rules[j].reason[0]);
}

/* Rows are kept in order, and a mount hides what was kept beneath it
 * before: a row comes after every row that is a parent of it (.git is
 * pinned before .git/hooks is made read-only inside the pinned .git). */
static void test_protected_parents_first(void **state)
{
	(void)state;
	for (size_t j = 0; j < jr_fs_n_protected; j++)
		for (size_t k = j + 1; k < jr_fs_n_protected; k++) {
			const char *p = jr_fs_protected[k].path;
			size_t n = strlen(p);

			if (strncmp(jr_fs_protected[j].path, p, n) == 0 &&
			    jr_fs_protected[j].path[n] == '/')
				fail_msg("%s comes before its parent %s",
					 jr_fs_protected[j].path, p);
		}
	/* .git itself is pinned and stays writable: git must work. */
	assert_string_equal(jr_fs_protected[0].path, ".git");
	assert_int_equal(jr_fs_protected[0].keep, JR_FS_KEEP_PIN);
}

/* jailrun(1), FILESYSTEM, lists every row of both tables (the rows with
 * a "*" are described in words). */
static void test_man_page_lists_every_path(void **state)
{
	const char *top = getenv("JR_TOP_SRCDIR");
	char path[4096], *text, *w, *section;
	FILE *fp;
	long size;

	(void)state;
	if (!top)
		top = ".";
	snprintf(path, sizeof(path), "%s/man/jailrun.1", top);
	fp = fopen(path, "r");
	if (!fp)
		skip();
	assert_int_equal(fseek(fp, 0, SEEK_END), 0);
	size = ftell(fp);
	rewind(fp);
	text = calloc(1, (size_t)size + 1);
	assert_non_null(text);
	assert_int_equal(fread(text, 1, (size_t)size, fp), (size_t)size);
	fclose(fp);
	/* roff's \- is a '-'. */
	for (w = text; *w; w++)
		if (w[0] == '\\' && w[1] == '-')
			memmove(w, w + 1, strlen(w + 1) + 1);
	section = strstr(text, "\n.SH FILESYSTEM\n");
	assert_non_null(section);
	w = strstr(section + 1, "\n.SH ");
	if (w)
		*w = '\0';
	for (size_t i = 0; i < jr_fs_n_protected; i++)
		if (!strchr(jr_fs_protected[i].path, '*') &&
		    !strstr(section, jr_fs_protected[i].path))
			fail_msg("jailrun.1, FILESYSTEM, does not list '%s'",
				 jr_fs_protected[i].path);
	for (size_t i = 0; i < jr_fs_n_hidden; i++)
		if (!strstr(section, jr_fs_hidden[i].path))
			fail_msg("jailrun.1, FILESYSTEM, does not list '%s'",
				 jr_fs_hidden[i].path);
	free(text);
}

static const char *fake_env(const char *name)
{
	if (strcmp(name, "XDG_RUNTIME_DIR") == 0)
		return "/run/user/1000";
	if (strcmp(name, "TMUX") == 0)
		return "/tmp/tmux-1000/default,123,0";
	if (strcmp(name, "SSH_AUTH_SOCK") == 0)
		return "/tmp/ssh-x/agent.1";
	return NULL;
}

static void test_env(void **state)
{
	const char *none[] = { NULL };
	const char *exp[] = { "/tmp/tmux-1000/default",	  "/tmp/ssh-x/agent.1",
			      "/run/user/1000/bus",	  "/tmp/.X11-unix/X0",
			      "/run/user/1000/wayland-0", "/run/docker.sock" };

	/* Not a socket variable: kept. */
	assert_true(jr_env_keep("PATH", "/usr/bin", fake_env, none, 0));
	assert_true(jr_env_keep("HOME", "/home/u", fake_env, none, 0));
	/* Socket variables: removed unless exposed. */
	assert_false(jr_env_keep("TMUX", "/tmp/tmux-1000/default,123,0",
				 fake_env, none, 0));
	assert_true(jr_env_keep("TMUX", "/tmp/tmux-1000/default,123,0",
				fake_env, exp, 6));
	assert_false(jr_env_keep("TMUX_PANE", "%1", fake_env, none, 0));
	assert_true(jr_env_keep("TMUX_PANE", "%1", fake_env, exp, 6));
	assert_false(jr_env_keep("SSH_AUTH_SOCK", "/tmp/ssh-x/agent.1",
				 fake_env, none, 0));
	assert_true(jr_env_keep("SSH_AUTH_SOCK", "/tmp/ssh-x/agent.1", fake_env,
				exp, 6));
	/* A different socket than the exposed one: removed. */
	assert_false(jr_env_keep("SSH_AUTH_SOCK", "/tmp/ssh-y/agent.2",
				 fake_env, exp, 6));
	assert_false(jr_env_keep("SSH_AGENT_PID", "42", fake_env, none, 0));
	assert_false(jr_env_keep("DBUS_SESSION_BUS_ADDRESS",
				 "unix:path=/run/user/1000/bus", fake_env, none,
				 0));
	assert_true(jr_env_keep("DBUS_SESSION_BUS_ADDRESS",
				"unix:path=/run/user/1000/bus,guid=ab",
				fake_env, exp, 6));
	assert_false(jr_env_keep("DBUS_SESSION_BUS_ADDRESS",
				 "unix:abstract=/tmp/dbus-x", fake_env, exp,
				 6));
	assert_false(jr_env_keep("DISPLAY", ":0", fake_env, none, 0));
	assert_true(jr_env_keep("DISPLAY", ":0.0", fake_env, exp, 6));
	assert_false(jr_env_keep("DISPLAY", ":1", fake_env, exp, 6));
	assert_false(jr_env_keep("DISPLAY", "host:0", fake_env, exp, 6));
	assert_false(
	    jr_env_keep("WAYLAND_DISPLAY", "wayland-0", fake_env, none, 0));
	assert_true(
	    jr_env_keep("WAYLAND_DISPLAY", "wayland-0", fake_env, exp, 6));
	assert_false(jr_env_keep("XDG_RUNTIME_DIR", "/run/user/1000", fake_env,
				 none, 0));
	assert_true(jr_env_keep("XDG_RUNTIME_DIR", "/run/user/1000/", fake_env,
				exp, 6));
	assert_false(jr_env_keep("DOCKER_HOST", "unix:///var/run/docker.sock",
				 fake_env, exp, 6));
	assert_true(jr_env_keep("DOCKER_HOST", "unix:///run/docker.sock",
				fake_env, exp, 6));
	assert_false(jr_env_keep("STY", "123.pts-0", fake_env, exp, 6));
	/* Path spelled with dots still matches the normalized exposure. */
	assert_true(jr_env_keep("SSH_AUTH_SOCK", "/tmp/./ssh-x//agent.1",
				fake_env, exp, 6));
}

/* What gitsweep.c looks for comes from the protected table: exactly its
 * read-only entries directly in .git. A row added there is swept too; a
 * pinned or nested one is not (git writes in .git/worktrees/NAME). */
/* A --rw of a read-only row of a writable root lifts it without a mount
 * (git renames config.lock over .git/config: a mountpoint there is EBUSY);
 * a pinned row, or anything else, is not lifted. */
static void test_rw_lifts(void **state)
{
	(void)state;
	assert_true(jr_fs_rw_lifts("/w", "/w/.git/config"));
	assert_true(jr_fs_rw_lifts("/w", "/w/.git/hooks"));
	assert_true(jr_fs_rw_lifts("/w", "/w/.git/modules"));
	assert_true(jr_fs_rw_lifts("/w", "/w/.vscode"));
	assert_true(jr_fs_rw_lifts("/w", "/w/.git/worktrees/x/commondir"));
	assert_true(jr_fs_rw_lifts("/", "/.git/config"));
	/* Pinned rows keep their own (writable) mount, their pin. */
	assert_false(jr_fs_rw_lifts("/w", "/w/.git"));
	assert_false(jr_fs_rw_lifts("/w", "/w/.git/worktrees"));
	assert_false(jr_fs_rw_lifts("/w", "/w/.git/worktrees/x"));
	/* Not a row of that root: below a row, in a subdirectory, the root
	 * itself, outside it, a prefix that is not a component. */
	assert_false(jr_fs_rw_lifts("/w", "/w/.git/hooks/pre-commit"));
	assert_false(jr_fs_rw_lifts("/w", "/w/sub/.git/config"));
	assert_false(jr_fs_rw_lifts("/w", "/w"));
	assert_false(jr_fs_rw_lifts("/w", "/x/.git/config"));
	assert_false(jr_fs_rw_lifts("/w", "/wx/.git/config"));
	assert_false(jr_fs_rw_lifts("/w", "/w/.git/worktrees/x/y/commondir"));
	assert_false(jr_fs_rw_lifts("/w", "/w/.git/config.lock"));
	assert_int_equal(jr_fs_protected_row("/w", "/w/.git"), 0);
	assert_int_equal(jr_fs_protected_row("/w", "/w/file"), -1);
}

static void test_git_children(void **state)
{
	static const char *const want[] = { "hooks", "config",
					    "config.worktree", "commondir",
					    "modules" };
	size_t found = 0;

	(void)state;
	for (size_t i = 0; i < jr_fs_n_protected; i++) {
		const char *name = jr_fs_git_child(&jr_fs_protected[i]);
		bool listed = false;

		if (!name)
			continue;
		for (size_t w = 0; w < sizeof(want) / sizeof(want[0]); w++)
			listed |= strcmp(name, want[w]) == 0;
		assert_true(listed);
		found++;
	}
	assert_int_equal(found, sizeof(want) / sizeof(want[0]));
	assert_null(jr_fs_git_child(&(struct jr_fs_protect){
	    .path = ".git/worktrees/*/commondir", .keep = JR_FS_KEEP_RO }));
	assert_null(jr_fs_git_child(
	    &(struct jr_fs_protect){ .path = ".git", .keep = JR_FS_KEEP_PIN }));
	assert_null(jr_fs_git_child(&(struct jr_fs_protect){
	    .path = ".git/worktrees", .keep = JR_FS_KEEP_PIN }));
}

/* Which empty tmpfs hides a host path inside: the deepest mount decides. */
static void test_hidden_by_tmpfs(void **state)
{
	const char *tmpfs[] = { "/dev/shm", "/tmp", "/var/tmp", "/run",
				"/w/cache" };
	const char *shown[] = { "/tmp/proj", "/w", "/tmp/x.sh" };
	const size_t nt = sizeof(tmpfs) / sizeof(tmpfs[0]);
	const size_t ns = sizeof(shown) / sizeof(shown[0]);

	(void)state;
	assert_string_equal(
	    jr_fs_hidden_by_tmpfs("/tmp/s.sh", tmpfs, nt, shown, ns), "/tmp");
	assert_string_equal(
	    jr_fs_hidden_by_tmpfs("/run/user/0/x", tmpfs, nt, shown, ns),
	    "/run");
	/* a --ro/--rw (or the working directory) shows it */
	assert_null(
	    jr_fs_hidden_by_tmpfs("/tmp/proj/run.sh", tmpfs, nt, shown, ns));
	assert_null(jr_fs_hidden_by_tmpfs("/tmp/x.sh", tmpfs, nt, shown, ns));
	/* a --tmpfs inside a writable root hides again */
	assert_string_equal(
	    jr_fs_hidden_by_tmpfs("/w/cache/f", tmpfs, nt, shown, ns),
	    "/w/cache");
	/* the read-only host tree, and names that only share a prefix */
	assert_null(jr_fs_hidden_by_tmpfs("/usr/bin/sh", tmpfs, nt, shown, ns));
	assert_null(jr_fs_hidden_by_tmpfs("/tmpfoo/x", tmpfs, nt, shown, ns));
	/* the table fslayout.c mounts */
	assert_int_equal(jr_fs_n_private_tmpfs, 4);
}

/* The tmpfs bound: --tmpfs-size wins, then --memory for each, else 1 GiB
 * shared evenly; never half the RAM each (the old default). */
static void test_tmpfs_size(void **state)
{
	(void)state;
	/* Four mounts share 1 GiB: 256 MiB each, 1 GiB together. */
	assert_int_equal(jr_fs_tmpfs_size(0, 0, 0), 256ULL << 20);
	assert_int_equal(jr_fs_tmpfs_size(0, 0, 0) * JR_FS_PRIVATE_TMPFS,
			 JR_FS_TMPFS_TOTAL);
	/* A --tmpfs takes a share too, in whole pages; the sum stays within. */
	assert_int_equal(jr_fs_tmpfs_size(0, 0, 1) % 4096, 0);
	assert_true(jr_fs_tmpfs_size(0, 0, 1) * 5 <= JR_FS_TMPFS_TOTAL);
	assert_true(jr_fs_tmpfs_size(0, 0, 1) * 5 >
		    JR_FS_TMPFS_TOTAL - 5 * 4096);
	/* --memory: each mount may use all of it (the cgroup bounds the sum). */
	assert_int_equal(jr_fs_tmpfs_size(0, 512ULL << 20, 3), 512ULL << 20);
	assert_int_equal(jr_fs_tmpfs_size(0, (64ULL << 20) + 100, 0),
			 64ULL << 20);
	assert_int_equal(jr_fs_tmpfs_size(0, 100, 0), 4096);
	/* --tmpfs-size is the override, taken as given. */
	assert_int_equal(jr_fs_tmpfs_size(8ULL << 30, 512ULL << 20, 0),
			 8ULL << 30);
	assert_int_equal(jr_fs_tmpfs_size(4096, 0, 7), 4096);
	/* Absurd counts still give a page. */
	assert_int_equal(jr_fs_tmpfs_size(0, 0, 1 << 20), 4096);
}

/* What a missing --rw/--tmpfs may create below the caller's home. */
static void test_below_home(void **state)
{
	(void)state;
	assert_string_equal(jr_fs_below_home("~/.npm", "/root/.npm", "/root"),
			    ".npm");
	assert_string_equal(jr_fs_below_home("/home/a/.cache/pip",
					     "/home/a/.cache/pip", "/home/a"),
			    ".cache/pip");
	/* the home itself, a sibling, a prefix that is not a component */
	assert_null(jr_fs_below_home("/root", "/root", "/root"));
	assert_null(jr_fs_below_home("/rootx/a", "/rootx/a", "/root"));
	assert_null(jr_fs_below_home("/etc/x", "/etc/x", "/root"));
	/* a home of / holds everything: never create there */
	assert_null(jr_fs_below_home("/etc/x", "/etc/x", "/"));
	assert_null(jr_fs_below_home("/etc/x", "/etc/x", "rel"));
	/* ".." may pass through a symlink: its lexical form is no proof */
	assert_null(jr_fs_below_home("/root/l/../x", "/root/x", "/root"));
	assert_null(jr_fs_below_home("/root/..", "/", "/root"));
	/* names that only start with dots are ordinary */
	assert_string_equal(
	    jr_fs_below_home("/root/..x/...", "/root/..x/...", "/root"),
	    "..x/...");
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_normalize),
		cmocka_unit_test(test_within_depth),
		cmocka_unit_test(test_tables),
		cmocka_unit_test(test_hidden_by_tmpfs),
		cmocka_unit_test(test_protected_parents_first),
		cmocka_unit_test(test_man_page_lists_every_path),
		cmocka_unit_test(test_env),
		cmocka_unit_test(test_git_children),
		cmocka_unit_test(test_rw_lifts),
		cmocka_unit_test(test_tmpfs_size),
		cmocka_unit_test(test_below_home),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
