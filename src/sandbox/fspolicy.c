// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * fspolicy.c - the protected and hidden tables, path rules and the
 * socket-variable scrubbing of the isolated filesystem (see fspolicy.h).
 *
 * Theory of operation: each table says what is covered and why; the
 * kernel side (fslayout.c) only applies it. Paths here are compared as
 * strings after a lexical normalisation, never by touching the
 * filesystem, so every rule is a unit test. The tables are printed in
 * jailrun(1), FILESYSTEM: a change here is a change there.
 */

#include <errno.h>
#include <fnmatch.h>
#include <stdio.h>
#include <string.h>

#include "fspolicy.h"

#define N_OF(a) (sizeof(a) / sizeof((a)[0]))

const struct jr_fs_protect jr_fs_protected[] = {
	/* First: the .git entries below are kept inside the pinned .git. */
	{ ".git",
	  "where git finds the repository; renamed away, a new one with its own hooks and config would take its place",
	  JR_FS_KEEP_PIN },
	{ ".git/hooks", "git runs these scripts on commit, checkout, push",
	  JR_FS_KEEP_RO },
	{ ".git/config",
	  "core.hooksPath, core.fsmonitor, aliases, filters, include.path run commands or read other files",
	  JR_FS_KEEP_RO },
	{ ".git/config.worktree",
	  "read as config too when extensions.worktreeConfig is set",
	  JR_FS_KEEP_RO },
	{ ".git/commondir",
	  "names the directory whose config and hooks git uses instead",
	  JR_FS_KEEP_RO },
	/* A linked worktree's own git directory: pinned and writable (its
	 * HEAD, index and reflogs change; git gc expires them); what says
	 * where its config and hooks are: read-only. */
	{ ".git/worktrees", "linked worktrees' git directories",
	  JR_FS_KEEP_PIN },
	{ ".git/worktrees/*", "one linked worktree's git directory",
	  JR_FS_KEEP_PIN },
	{ ".git/worktrees/*/commondir", "as .git/commondir, for the worktree",
	  JR_FS_KEEP_RO },
	{ ".git/worktrees/*/config.worktree",
	  "as .git/config.worktree, for the worktree", JR_FS_KEEP_RO },
	{ ".git/modules",
	  "submodules' repositories: git status and others recurse into them, running their hooks and config",
	  JR_FS_KEEP_RO },
	{ ".gitmodules", "submodule URLs and update commands git follows",
	  JR_FS_KEEP_RO },
	/* Hook managers: the hook git runs (or core.hooksPath) leads here. */
	{ ".husky", "husky's hooks, which core.hooksPath names",
	  JR_FS_KEEP_RO },
	{ ".githooks", "the hooks directory core.hooksPath often names",
	  JR_FS_KEEP_RO },
	{ ".pre-commit-config.yaml", "the commands pre-commit's hook runs",
	  JR_FS_KEEP_RO },
	{ "lefthook.yml", "the commands lefthook's hooks run", JR_FS_KEEP_RO },
	{ ".lefthook.yml", "the same, as lefthook also reads it",
	  JR_FS_KEEP_RO },
	{ ".envrc", "direnv evaluates it when a shell enters the directory",
	  JR_FS_KEEP_RO },
	{ ".vscode", "tasks, launch and settings an editor runs",
	  JR_FS_KEEP_RO },
	{ ".idea", "run configurations and tools an IDE runs", JR_FS_KEEP_RO },
	{ ".bashrc", "bash runs it at every interactive start", JR_FS_KEEP_RO },
	{ ".bash_profile", "bash runs it at every login", JR_FS_KEEP_RO },
	{ ".profile", "sh and bash run it at every login", JR_FS_KEEP_RO },
	{ ".zshrc", "zsh runs it at every interactive start", JR_FS_KEEP_RO },
};
const size_t jr_fs_n_protected = N_OF(jr_fs_protected);

const char *jr_fs_git_child(const struct jr_fs_protect *e)
{
	const char *name;

	if (e->keep != JR_FS_KEEP_RO || strncmp(e->path, ".git/", 5) != 0)
		return NULL;
	name = e->path + 5;
	return strchr(name, '/') ? NULL : name;
}

int jr_fs_protected_row(const char *root, const char *path)
{
	size_t n = strcmp(root, "/") == 0 ? 0 : strlen(root);
	const char *rel;

	if (!jr_fs_path_within(path, root) || path[n] != '/' || !path[n + 1])
		return -1;
	rel = path + n + 1;
	for (size_t i = 0; i < jr_fs_n_protected; i++)
		if (fnmatch(jr_fs_protected[i].path, rel, FNM_PATHNAME) == 0)
			return (int)i;
	return -1;
}

bool jr_fs_rw_lifts(const char *root, const char *path)
{
	int row = jr_fs_protected_row(root, path);

	return row >= 0 && jr_fs_protected[row].keep == JR_FS_KEEP_RO;
}

const struct jr_fs_entry jr_fs_hidden[] = {
	{ ".ssh", "ssh private keys, known hosts, agent configuration" },
	{ ".gnupg", "GnuPG private keys and agent sockets" },
	{ ".aws", "AWS access keys" },
	{ ".azure", "Azure CLI tokens" },
	{ ".config/gcloud", "Google Cloud credentials and access tokens" },
	{ ".kube",
	  "Kubernetes cluster credentials (config: client keys, tokens)" },
	{ ".docker", "registry credentials (config.json: auths)" },
	{ ".netrc", "passwords for curl, git, ftp" },
	{ ".git-credentials", "git's stored HTTPS passwords" },
	{ ".config/gh", "GitHub CLI token (hosts.yml)" },
	{ ".npmrc", "npm registry token" },
	{ ".pypirc", "PyPI upload token" },
	{ ".cargo/credentials.toml", "crates.io token" },
	{ ".pgpass", "PostgreSQL passwords" },
	{ ".vault-token", "HashiCorp Vault token" },
	{ ".env", "dotenv file: API keys exported by the user's tools" },
	{ ".claude/.credentials.json", "Claude Code's OAuth tokens" },
	{ ".codex/auth.json", "Codex CLI's OpenAI API key and tokens" },
	{ ".bash_history",
	  "commands typed, with the passwords and tokens given on them" },
	{ ".zsh_history", "the same for zsh" },
	{ ".password-store", "pass(1) password store" },
	{ ".local/share/keyrings", "GNOME keyring" },
	{ ".mozilla", "Firefox profiles: cookies, saved passwords" },
	{ ".config/google-chrome", "Chrome profiles: cookies, passwords" },
	{ ".config/chromium", "Chromium profiles: cookies, passwords" },
	{ ".config/BraveSoftware", "Brave profiles: cookies, passwords" },
	{ ".config/microsoft-edge", "Edge profiles: cookies, passwords" },
	{ ".config/vivaldi", "Vivaldi profiles: cookies, passwords" },
	{ ".thunderbird", "mail profiles and saved passwords" },
};
const size_t jr_fs_n_hidden = N_OF(jr_fs_hidden);

const struct jr_env_rule jr_env_rules[] = {
	{ "TMUX", JR_ENV_FIRST_PATH, NULL,
	  "the tmux server: new-window runs commands outside the sandbox" },
	{ "TMUX_PANE", JR_ENV_COMPANION, "TMUX", "goes with TMUX" },
	{ "STY", JR_ENV_ALWAYS, NULL, "GNU screen's session, same as tmux" },
	{ "SSH_AUTH_SOCK", JR_ENV_PATH, NULL,
	  "ssh-agent: signs with the user's keys" },
	{ "SSH_AGENT_PID", JR_ENV_COMPANION, "SSH_AUTH_SOCK",
	  "goes with SSH_AUTH_SOCK" },
	{ "GPG_AGENT_INFO", JR_ENV_FIRST_PATH, NULL,
	  "gpg-agent: decrypts and signs" },
	{ "DBUS_SESSION_BUS_ADDRESS", JR_ENV_UNIX_URL, NULL,
	  "the session bus: starts programs, reads keyrings" },
	{ "DBUS_SYSTEM_BUS_ADDRESS", JR_ENV_UNIX_URL, NULL,
	  "the system bus: systemd, NetworkManager, polkit" },
	{ "DISPLAY", JR_ENV_X11, NULL,
	  "the X server: keystrokes into every window" },
	{ "WAYLAND_DISPLAY", JR_ENV_RUNTIME, NULL,
	  "the Wayland compositor: the user's screen and input" },
	{ "XDG_RUNTIME_DIR", JR_ENV_DIR, NULL,
	  "the user's runtime directory of sockets (bus, pipewire, gpg)" },
	{ "PULSE_SERVER", JR_ENV_UNIX_URL, NULL, "PulseAudio: the microphone" },
	{ "DOCKER_HOST", JR_ENV_UNIX_URL, NULL,
	  "the Docker daemon: root on the host" },
	{ "CONTAINER_HOST", JR_ENV_UNIX_URL, NULL,
	  "the Podman service: containers on the host" },
	{ "SWAYSOCK", JR_ENV_PATH, NULL, "sway's IPC: runs commands" },
	{ "I3SOCK", JR_ENV_PATH, NULL, "i3's IPC: runs commands" },
	{ "KITTY_LISTEN_ON", JR_ENV_UNIX_URL, NULL,
	  "kitty's remote control: runs commands in new windows" },
	{ "NVIM", JR_ENV_PATH, NULL, "the parent Neovim's RPC socket" },
	{ "NVIM_LISTEN_ADDRESS", JR_ENV_PATH, NULL, "Neovim's RPC socket" },
	{ "VSCODE_IPC_HOOK_CLI", JR_ENV_PATH, NULL,
	  "VS Code's IPC: opens files and runs tasks" },
	{ "GNOME_KEYRING_CONTROL", JR_ENV_DIR, NULL, "the GNOME keyring" },
};
const size_t jr_env_n_rules = N_OF(jr_env_rules);

int jr_fs_normalize(const char *cwd, const char *path, char *out, size_t size)
{
	size_t len = 0;
	const char *p;
	int pass;

	if (size < 2)
		return -ENAMETOOLONG;
	out[0] = '\0';
	/* Pass 0 walks @cwd (for a relative @path), pass 1 walks @path. */
	for (pass = path[0] == '/' ? 1 : 0; pass < 2; pass++) {
		p = pass == 0 ? cwd : path;
		while (*p) {
			const char *end = strchrnul(p, '/');
			size_t n = (size_t)(end - p);

			if (n == 0 || (n == 1 && p[0] == '.')) {
				/* nothing */
			} else if (n == 2 && p[0] == '.' && p[1] == '.') {
				while (len > 0 && out[len - 1] != '/')
					len--;
				if (len > 0)
					len--; /* the '/' before it */
				out[len] = '\0';
			} else {
				if (len + 1 + n + 1 > size)
					return -ENAMETOOLONG;
				out[len++] = '/';
				memcpy(out + len, p, n);
				len += n;
				out[len] = '\0';
			}
			p = *end ? end + 1 : end;
		}
	}
	if (len == 0) {
		out[0] = '/';
		out[1] = '\0';
	}
	return 0;
}

bool jr_fs_path_within(const char *path, const char *dir)
{
	size_t n = strlen(dir);

	if (strcmp(dir, "/") == 0)
		return path[0] == '/';
	return strncmp(path, dir, n) == 0 &&
	       (path[n] == '\0' || path[n] == '/');
}

/* Does @path have a ".." component? */
static bool has_dotdot(const char *path)
{
	for (const char *c = path; (c = strstr(c, "..")); c += 2)
		if ((c == path || c[-1] == '/') &&
		    (c[2] == '\0' || c[2] == '/'))
			return true;
	return false;
}

const char *jr_fs_below_home(const char *arg, const char *norm,
			     const char *home)
{
	size_t n = strlen(home);

	if (home[0] != '/' || strcmp(home, "/") == 0 || has_dotdot(arg))
		return NULL;
	if (strncmp(norm, home, n) != 0 || norm[n] != '/' || !norm[n + 1])
		return NULL;
	return norm + n + 1;
}

size_t jr_fs_depth(const char *path)
{
	size_t d = 0;

	for (const char *p = path; *p; p++)
		if (*p == '/' && p[1])
			d++;
	return d;
}

const struct jr_fs_private jr_fs_private_tmpfs[] = {
	{ "/dev/shm", "1777" },
	{ "/tmp", "1777" },
	{ "/var/tmp", "1777" },
	{ "/run", "0755" },
};
const size_t jr_fs_n_private_tmpfs = N_OF(jr_fs_private_tmpfs);
/* jr_fs_tmpfs_size() shares its bound among these. */
_Static_assert(N_OF(jr_fs_private_tmpfs) == JR_FS_PRIVATE_TMPFS,
	       "JR_FS_PRIVATE_TMPFS counts jr_fs_private_tmpfs[]");

const char *jr_fs_hidden_by_tmpfs(const char *path, const char *const *tmpfs,
				  size_t n_tmpfs, const char *const *shown,
				  size_t n_shown)
{
	const char *hider = NULL;
	size_t depth = 0, d;

	for (size_t i = 0; i < n_tmpfs; i++)
		if (jr_fs_path_within(path, tmpfs[i]) &&
		    (d = jr_fs_depth(tmpfs[i])) >= depth) {
			hider = tmpfs[i];
			depth = d;
		}
	/* A bind as deep as the tmpfs is mounted after it (on it). */
	for (size_t i = 0; hider && i < n_shown; i++)
		if (jr_fs_path_within(path, shown[i]) &&
		    jr_fs_depth(shown[i]) >= depth)
			hider = NULL;
	return hider;
}

uint64_t jr_fs_tmpfs_size(uint64_t requested, uint64_t memory, size_t n_extra)
{
	const uint64_t page = 4096;
	uint64_t size;

	if (requested)
		return requested;
	size = memory ? memory
		      : JR_FS_TMPFS_TOTAL / (JR_FS_PRIVATE_TMPFS + n_extra);
	size -= size % page;
	return size < page ? page : size;
}

static bool is_exposed(const char *path, size_t len, const char *const *exposed,
		       size_t n)
{
	char buf[4096], norm[4096];

	if (!len || len >= sizeof(buf))
		return false;
	memcpy(buf, path, len);
	buf[len] = '\0';
	if (buf[0] != '/' || jr_fs_normalize("/", buf, norm, sizeof(norm)) < 0)
		return false;
	for (size_t i = 0; i < n; i++)
		if (strcmp(norm, exposed[i]) == 0)
			return true;
	return false;
}

/* Is an exposed path inside the directory @dir? */
static bool exposes_within(const char *dir, const char *const *exposed,
			   size_t n)
{
	char norm[4096];

	if (dir[0] != '/' || jr_fs_normalize("/", dir, norm, sizeof(norm)) < 0)
		return false;
	for (size_t i = 0; i < n; i++)
		if (jr_fs_path_within(exposed[i], norm))
			return true;
	return false;
}

/* The socket path in "unix:path=P,guid=..." (D-Bus), "unix://P" (Docker),
 * "unix:P" (kitty, Pulse); NULL when the value names no unix path. */
static const char *unix_url_path(const char *v, size_t *len)
{
	const char *p = strstr(v, "unix:path=");

	if (p)
		p += strlen("unix:path=");
	else if ((p = strstr(v, "unix://")))
		p += strlen("unix://");
	else if ((p = strstr(v, "unix:")))
		p += strlen("unix:");
	else if (v[0] == '/')
		p = v;
	else
		return NULL;
	*len = strcspn(p, ",;");
	return p;
}

static const struct jr_env_rule *find_rule(const char *name)
{
	for (size_t i = 0; i < jr_env_n_rules; i++)
		if (strcmp(jr_env_rules[i].name, name) == 0)
			return &jr_env_rules[i];
	return NULL;
}

bool jr_env_keep(const char *name, const char *value,
		 const char *(*getenv_fn)(const char *name),
		 const char *const *exposed, size_t n_exposed)
{
	const struct jr_env_rule *r = find_rule(name);
	const char *p, *rt;
	char buf[4096];
	size_t len;

	if (!r)
		return true;
	switch (r->kind) {
	case JR_ENV_PATH:
		return is_exposed(value, strlen(value), exposed, n_exposed);
	case JR_ENV_FIRST_PATH:
		return is_exposed(value, strcspn(value, ","), exposed,
				  n_exposed);
	case JR_ENV_UNIX_URL:
		p = unix_url_path(value, &len);
		return p && is_exposed(p, len, exposed, n_exposed);
	case JR_ENV_X11: {
		unsigned int d = 0;
		char end = 0;

		/* Only the local form ":N" or ":N.S" names a unix socket; a
		 * TCP display ("host:N") is the network's business. */
		if (value[0] != ':' ||
		    sscanf(value + 1, "%u%c", &d, &end) < 1 ||
		    (end && end != '.'))
			return false;
		snprintf(buf, sizeof(buf), "/tmp/.X11-unix/X%u", d);
		return is_exposed(buf, strlen(buf), exposed, n_exposed);
	}
	case JR_ENV_RUNTIME:
		if (value[0] == '/')
			return is_exposed(value, strlen(value), exposed,
					  n_exposed);
		rt = getenv_fn("XDG_RUNTIME_DIR");
		if (!rt || snprintf(buf, sizeof(buf), "%s/%s", rt, value) >=
			       (int)sizeof(buf))
			return false;
		return is_exposed(buf, strlen(buf), exposed, n_exposed);
	case JR_ENV_DIR:
		return exposes_within(value, exposed, n_exposed);
	case JR_ENV_COMPANION:
		p = getenv_fn(r->companion);
		return p && jr_env_keep(r->companion, p, getenv_fn, exposed,
					n_exposed);
	case JR_ENV_ALWAYS:
		return false;
	}
	return false;
}
