// SPDX-License-Identifier: GPL-2.0-or-later
/* Unit tests for fspolicy.c: path rules, the tables, socket variables. */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
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
		".git/hooks", ".git/config", ".gitmodules", ".envrc",
		".vscode",    ".idea",	     ".bashrc",	    ".bash_profile",
		".profile",   ".zshrc",
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

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_normalize),
		cmocka_unit_test(test_within_depth),
		cmocka_unit_test(test_tables),
		cmocka_unit_test(test_env),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
