#!/bin/bash
# The walls around the working directory's git repository and the home's
# credentials (jailrun(1), FILESYSTEM), root and rootless.
#
# git: the command tries to make the host's git run its code later. It
# renames .git away and puts a copy with a hook and core.fsmonitor in its
# place; it renames .git/hooks away and puts a new one with a hook there; it
# writes a linked worktree's commondir, the hooks and config of the directory
# a .git file leads to, a hook through a symlinked .git/hooks, and a hook of
# husky's (core.hooksPath=.husky). Each is
# first shown to work WITHOUT jailrun (and for the renames, the host's next
# `git status` and `git commit` run the command's code); under jailrun each
# must fail and the host's git must run nothing of the command's. git add,
# commit, branch, gc and init keep working inside, and their results reach
# the host. Working directories owned by root (a+rwX, and nobody:root 0700 as
# `chown -R user DIR` leaves them) get the same walls.
# Homes: each credential file of the hidden table is unreadable inside. A
# home of the command's user whose group is root (nobody:root 0700), and
# root's own (root:root 0700), with jailrun run by root: jailrun starts, the
# secret stays hidden, a working directory inside the first one works.
# A new .git/commondir (which no mount can cover) is written inside and must
# be moved aside when the run ends, counted in the summary.
# Fails if: a rename of .git or .git/hooks succeeds, any hook or fsmonitor of
# the command's runs on the host, a protected file changes on the host, git
# fails inside or its commit, branch or new repository is not on the host, a
# credential is readable inside, or jailrun refuses a home whose group is root.
. "${JR_TOP_SRCDIR:-$(dirname "$0")/../..}/tests/lib.sh"
jr_require_sandbox
command -v git >/dev/null || skip "git is needed"

NOBODY="$JR_NOBODY_UID:$JR_NOBODY_GID"
if [ "$(id -u)" -eq 0 ]; then
	BASE=$(mktemp -d /var/lib/jailrun-git.XXXXXX)
else
	BASE=$(mktemp -d "$HOME/.jailrun-git.XXXXXX")
fi
chmod 755 "$BASE"
FH=$BASE/home # the fake home of the command's user
MK=$BASE/marks # the command's hooks and fsmonitors leave a file here
trap 'rm -rf "$BASE"; jr_cleanup_tmp' EXIT
mkdir -p "$FH" "$MK"
chmod 777 "$MK"
chown "$NOBODY" "$FH"

export GIT_AUTHOR_NAME=jr GIT_AUTHOR_EMAIL=jr@test.invalid \
	GIT_COMMITTER_NAME=jr GIT_COMMITTER_EMAIL=jr@test.invalid GIT_CONFIG_NOSYSTEM=1
# A global config for every git run here, inside and out: root-owned
# working directories are trusted (safe.directory), nothing else set.
GCFG=$BASE/gitconfig
printf '[safe]\n\tdirectory = *\n[init]\n\tdefaultBranch = main\n' >"$GCFG"
chmod 644 "$GCFG"
export GIT_CONFIG_GLOBAL=$GCFG

# as_user CMD... - the command's user on the host, outside any sandbox.
as_user() {
	setpriv --reuid="$JR_NOBODY_UID" --regid="$JR_NOBODY_GID" --clear-groups -- \
		env HOME="$FH" timeout 60 "$@"
}
# mkrepo DIR [OWNER] - a repository with one commit, owned by OWNER
# (default: the command's user).
mkrepo() {
	rm -rf "$1"
	mkdir -p "$1"
	git -C "$1" init -q
	echo one >"$1/file"
	git -C "$1" add file
	git -C "$1" commit -q -m one
	chown -R "${2:-$NOBODY}" "$1"
}
# fj MODE DIR ARGS... - jailrun as MODE's caller, in DIR, HOME the fake home
# (also the command's: --setenv, as its own HOME would be its user's).
fj() {
	local mode=$1 dir=$2
	shift 2
	if [ "$mode" = rootless ] && [ "$(id -u)" -eq 0 ]; then
		(cd "$dir" && exec setpriv --reuid="$JR_NOBODY_UID" --regid="$JR_NOBODY_GID" \
			--clear-groups -- env HOME="$FH" timeout -k 5 "$JR_RUN_LIMIT" "$JR" --setenv HOME="$FH" "$@")
	else
		(cd "$dir" && exec env HOME="$FH" timeout -k 5 "$JR_RUN_LIMIT" "$JR" --setenv HOME="$FH" "$@")
	fi
}
lacks() { # DESC NEEDLE - $OUT must not contain NEEDLE
	if grep -qF -- "$2" <<<"$OUT"; then fail "$1: output has '$2': $OUT"; else ok "$1"; fi
}
# in_dir DIR CMD... - CMD as the command's user, outside, in DIR.
in_dir() {
	(cd "$1" && shift && as_user "$@")
}
# host_runs_nothing DESC DIR - the host's git status and commit in DIR run
# none of the command's hooks or fsmonitors.
host_runs_nothing() {
	rm -f "$MK"/*
	(cd "$2" && as_user git status --short >/dev/null 2>&1 &&
		as_user git commit -q --allow-empty -m host >/dev/null 2>&1) || true
	if [ -n "$(ls -A "$MK")" ]; then
		fail "$1: the host's git ran the command's code: $(ls "$MK")"
	else
		ok "$1"
	fi
	rm -f "$MK"/*
}
# host_ran DESC WHAT - the baseline: the host's git ran the code (WHAT).
host_ran() {
	if [ -e "$MK/$2" ]; then ok "$1"; else fail "$1: $MK/$2 is missing: $(ls "$MK")"; fi
}
unchanged() { # DESC FILE SHA - FILE still has the content hashed SHA
	if [ "$(sha256sum <"$2" 2>/dev/null)" = "$3" ]; then ok "$1"; else fail "$1: $2 changed"; fi
}

# The attacks, run as the command's user, in the repository, $0 the marks.
# A: .git renamed away, a copy with a hook and core.fsmonitor in its place.
RENAME_GIT='m=$0
mv .git .git.old || exit 0
echo GIT-RENAMED
cp -a .git.old .git
printf "#!/bin/sh\ntouch %s/hook\n" "$m" >.git/hooks/pre-commit
chmod 755 .git/hooks/pre-commit
git config -f .git/config core.fsmonitor "touch $m/fsmonitor; false"
echo REPLACED'
# B: .git/hooks renamed away, a new one with a hook in its place.
RENAME_HOOKS='m=$0
mv .git/hooks .git/hooks.old || exit 0
echo HOOKS-RENAMED
mkdir .git/hooks
printf "#!/bin/sh\ntouch %s/hook\n" "$m" >.git/hooks/pre-commit
chmod 755 .git/hooks/pre-commit
echo REPLACED'
# C: .git removed, to make it again: its contents may go, .git stays.
REMOVE_GIT='rm -rf .git 2>/dev/null; [ -d .git ] || echo GIT-REMOVED; true'
# D: writes git would read later: a linked worktree's commondir and the
# submodule's config, the hooks and config a .git file leads to, a hook
# through a symlinked .git/hooks.
WRITES='for f in "$@"; do
	if echo "[core]" >>"$f" 2>/dev/null; then echo "WROTE $f"; fi
done; true'
# G: a new .git/commondir naming a copy of .git of the command's own, whose
# config has a core.fsmonitor: no mount can cover a file that does not
# exist, so jailrun moves it aside at exit (gitsweep.c).
COMMONDIR='m=$0
cp -a .git .evilgit && git config -f .evilgit/config core.fsmonitor "touch $m/fsmonitor; false" &&
echo ../.evilgit >.git/commondir && echo COMMONDIR-WRITTEN; true'
# F: a hook manager's directory (husky: core.hooksPath=.husky) rewritten.
HUSKY='printf "#!/bin/sh\ntouch %s/hook\n" "$0" >.husky/pre-commit && echo HUSKY-WRITTEN; true'
mkhusky() { # DIR [OWNER]
	mkrepo "$1" "${2:-}"
	mkdir "$1/.husky"
	printf '#!/bin/sh\ntrue\n' >"$1/.husky/pre-commit"
	chmod 755 "$1/.husky/pre-commit"
	git -C "$1" config core.hooksPath .husky
	chown -R "${2:-$NOBODY}" "$1"
}
# E: git at work (gc also expires the linked worktree's reflogs).
GITWORK='set -e
echo change >>file
git add file
git commit -q -m inside && echo COMMIT-OK
git branch inside-branch && echo BRANCH-OK
git gc -q && echo GC-OK
git init -q newrepo && git -C newrepo commit -q --allow-empty -m first && echo INIT-OK
cd wt && git commit -q --allow-empty -m in-worktree && echo WORKTREE-COMMIT-OK'

# The fixtures: a repository with a linked worktree and a submodule's
# repository; one whose .git is a file leading to a git directory inside the
# working directory; one whose .git/hooks is a symlink into it.
fixtures() { # PREFIX [OWNER]
	mkrepo "$1-a" "${2:-}"
	git -C "$1-a" worktree add -q "$1-a/wt" 2>/dev/null
	mkdir -p "$1-a/.git/modules/sub"
	git -C "$1-a/.git/modules/sub" init -q --bare
	rm -rf "$1-f"
	mkdir -p "$1-f"
	git -C "$1-f" init -q --separate-git-dir="$1-f/gd"
	rm -rf "$1-s"
	mkrepo "$1-s"
	mv "$1-s/.git/hooks" "$1-s/myhooks"
	ln -s ../myhooks "$1-s/.git/hooks"
	chown -R "${2:-$NOBODY}" "$1-a" "$1-f" "$1-s"
}
WRITE_TARGETS=(.git/worktrees/wt/commondir .git/modules/sub/config)

###########################################################################
# Baseline: without jailrun, every attack works and the host's git runs it.
R=$BASE/base
mkrepo "$R"
(cd "$R" && as_user sh -c "$RENAME_GIT" "$MK") >"$BASE/out" 2>&1 || true
OUT=$(cat "$BASE/out")
expect_output_has "baseline: .git renamed and replaced" REPLACED
(cd "$R" && as_user git status --short >/dev/null 2>&1 && as_user git commit -q --allow-empty -m host >/dev/null 2>&1) || true
host_ran "baseline: the new .git's fsmonitor ran on the host" fsmonitor
host_ran "baseline: the new .git's hook ran on the host" hook
rm -f "$MK"/*
mkrepo "$R"
(cd "$R" && as_user sh -c "$RENAME_HOOKS" "$MK") >"$BASE/out" 2>&1 || true
OUT=$(cat "$BASE/out")
expect_output_has "baseline: .git/hooks renamed and replaced" REPLACED
(cd "$R" && as_user git commit -q --allow-empty -m host >/dev/null 2>&1) || true
host_ran "baseline: the new hooks' hook ran on the host" hook
rm -f "$MK"/*
mkrepo "$R"
(cd "$R" && as_user sh -c "$COMMONDIR" "$MK") >"$BASE/out" 2>&1 || true
OUT=$(cat "$BASE/out")
expect_output_has "baseline: a new .git/commondir written" COMMONDIR-WRITTEN
(cd "$R" && as_user git status --short >/dev/null 2>&1) || true
host_ran "baseline: the fsmonitor behind the new commondir ran on the host" fsmonitor
rm -f "$MK"/*
fixtures "$BASE/bfx"
(cd "$BASE/bfx-a" && as_user sh -c "$WRITES" _ "${WRITE_TARGETS[@]}") >"$BASE/out" 2>&1 || true
(cd "$BASE/bfx-f" && as_user sh -c "$WRITES" _ gd/config gd/hooks/pre-commit) >>"$BASE/out" 2>&1 || true
(cd "$BASE/bfx-s" && as_user sh -c "$WRITES" _ myhooks/pre-commit) >>"$BASE/out" 2>&1 || true
OUT=$(cat "$BASE/out")
for f in "${WRITE_TARGETS[@]}" gd/config gd/hooks/pre-commit myhooks/pre-commit; do
	expect_output_has "baseline: $f written" "WROTE $f"
done
mkhusky "$R"
(cd "$R" && as_user sh -c "$HUSKY" "$MK" && as_user git commit -q --allow-empty -m host) >/dev/null 2>&1 || true
host_ran "baseline: the rewritten husky hook ran on the host" hook
rm -f "$MK"/*

# run_git_walls LABEL MODE [OWNER] - the attacks and the work under jailrun,
# in repositories owned by OWNER.
run_git_walls() {
	local label=$1 mode=$2 owner=${3:-} r=$BASE/r sha
	# A and B: refused, nothing runs on the host afterwards.
	mkrepo "$r" "$owner"
	[ -z "${REPO_MODE:-}" ] || chmod -R "$REPO_MODE" "$r"
	expect_status 0 "$label: rename .git" fj "$mode" "$r" -- sh -c "$RENAME_GIT" "$MK"
	lacks "$label: .git cannot be renamed" GIT-RENAMED
	host_runs_nothing "$label: after the .git rename" "$r"
	mkrepo "$r" "$owner"
	[ -z "${REPO_MODE:-}" ] || chmod -R "$REPO_MODE" "$r"
	expect_status 0 "$label: rename .git/hooks" fj "$mode" "$r" -- sh -c "$RENAME_HOOKS" "$MK"
	lacks "$label: .git/hooks cannot be renamed" HOOKS-RENAMED
	host_runs_nothing "$label: after the .git/hooks rename" "$r"
	# G: a new commondir: written inside, moved aside at exit, counted.
	mkrepo "$r" "$owner"
	[ -z "${REPO_MODE:-}" ] || chmod -R "$REPO_MODE" "$r"
	rm -f "$JR_W/gs-$mode.json"
	expect_status 0 "$label: a new .git/commondir" \
		fj "$mode" "$r" --json "$JR_W/gs-$mode.json" -- sh -c "$COMMONDIR" "$MK"
	expect_output_has "$label: the commondir was moved aside at exit" \
		"moved to $r/.git/commondir.jailrun-quarantine"
	if [ ! -e "$r/.git/commondir" ] && [ -f "$r/.git/commondir.jailrun-quarantine" ]; then
		ok "$label: .git/commondir is gone, its quarantined copy there"
	else
		fail "$label: .git/commondir is still in place: $(ls -a "$r/.git")"
	fi
	if grep -q '"git_quarantined":1' "$JR_W/gs-$mode.json"; then
		ok "$label: the summary counts it"
	else
		fail "$label: the summary lacks git_quarantined 1: $(cat "$JR_W/gs-$mode.json")"
	fi
	host_runs_nothing "$label: after a new commondir" "$r"
	# C: removed, emptied: .git stays, and its hooks and config.
	expect_status 0 "$label: remove .git" fj "$mode" "$r" -- sh -c "$REMOVE_GIT"
	lacks "$label: .git cannot be removed" GIT-REMOVED
	if [ -e "$r/.git/config" ] && [ -d "$r/.git/hooks" ]; then
		ok "$label: .git/config and .git/hooks stay"
	else
		fail "$label: .git lost its config or hooks"
	fi
	# E: git works inside, on a fresh repository with a linked worktree.
	mkrepo "$r" "$owner"
	git -C "$r" worktree add -q "$r/wt" 2>/dev/null
	chown -R "${owner:-$NOBODY}" "$r"
	[ -z "${REPO_MODE:-}" ] || chmod -R "$REPO_MODE" "$r"
	expect_status 0 "$label: git add, commit, branch, gc, init" fj "$mode" "$r" -- sh -c "$GITWORK"
	for w in COMMIT-OK BRANCH-OK GC-OK INIT-OK WORKTREE-COMMIT-OK; do
		expect_output_has "$label: $w" "$w"
	done
	if [ "$(git -C "$r" log -1 --format=%s 2>&1)" = inside ] &&
		git -C "$r" rev-parse -q --verify inside-branch >/dev/null &&
		[ "$(git -C "$r/newrepo" log -1 --format=%s 2>&1)" = first ]; then
		ok "$label: the commit, the branch and the new repository are on the host"
	else
		fail "$label: git's work is not on the host: $(git -C "$r" log --oneline 2>&1)"
	fi
	# D: the writes git would read later.
	fixtures "$BASE/fx" "$owner"
	[ -z "${REPO_MODE:-}" ] || chmod -R "$REPO_MODE" "$BASE/fx-a" "$BASE/fx-f" "$BASE/fx-s"
	sha=$(sha256sum <"$BASE/fx-a/.git/worktrees/wt/commondir")
	expect_status 0 "$label: worktree and submodule writes" fj "$mode" "$BASE/fx-a" -- sh -c "$WRITES" _ "${WRITE_TARGETS[@]}"
	lacks "$label: nothing written in .git/worktrees or .git/modules" WROTE
	unchanged "$label: the worktree's commondir on the host" "$BASE/fx-a/.git/worktrees/wt/commondir" "$sha"
	expect_status 0 "$label: writes where .git leads" fj "$mode" "$BASE/fx-f" -- sh -c "$WRITES"' ; mv gd gd2 2>/dev/null && echo GITDIR-RENAMED; true' _ gd/config gd/hooks/pre-commit
	lacks "$label: the git directory of a .git file is kept" WROTE
	lacks "$label: the git directory of a .git file stays in place" GITDIR-RENAMED
	expect_status 0 "$label: a hook through a symlinked .git/hooks" fj "$mode" "$BASE/fx-s" -- sh -c "$WRITES" _ myhooks/pre-commit
	lacks "$label: what .git/hooks leads to is read-only" WROTE
	# F: husky's hooks.
	mkhusky "$r" "$owner"
	[ -z "${REPO_MODE:-}" ] || chmod -R "$REPO_MODE" "$r"
	expect_status 0 "$label: rewrite a husky hook" fj "$mode" "$r" -- sh -c "$HUSKY" "$MK"
	lacks "$label: .husky is read-only" HUSKY-WRITTEN
	host_runs_nothing "$label: after the husky rewrite" "$r"
	git -C "$BASE/fx-a" status --short >/dev/null 2>&1 ||
		fail "$label: the host's git fails in the repository afterwards"
}

for m in $(jr_modes); do
	run_git_walls "$m" "$m"
done
if [ "$(id -u)" -eq 0 ]; then
	# Root-owned checkouts the command may write: world-writable, and the
	# command's user's with group root, 0700 (root's init may not enter).
	for m in $(jr_modes); do
		REPO_MODE=a+rwX run_git_walls "$m: root-owned a+rwX" "$m" 0:0
	done
	REPO_MODE=go-rwx run_git_walls "root: nobody:root 0700" root "$JR_NOBODY_UID:0"
fi

###########################################################################
# Credentials: every file of the hidden table is unreadable inside.
CREDS=(.ssh/id_ed25519 .claude/.credentials.json .codex/auth.json .bash_history
	.zsh_history .pgpass .vault-token .env .netrc .git-credentials
	.docker/config.json .kube/config .config/gh/hosts.yml .npmrc .pypirc
	.config/gcloud/application_default_credentials.json .aws/credentials)
for f in "${CREDS[@]}"; do
	mkdir -p "$(dirname "$FH/$f")"
	echo "SECRET-IN-$f" >"$FH/$f"
done
chown -R "$NOBODY" "$FH"
CATALL='for f in "$@"; do cat "$HOME/$f"; done 2>/dev/null; true'
W=$BASE/work
mkdir -p "$W"
chown "$NOBODY" "$W"
expect_status 0 "baseline: the credentials are readable" in_dir "$W" sh -c "$CATALL" _ "${CREDS[@]}"
for f in "${CREDS[@]}"; do
	expect_output_has "baseline: $f" "SECRET-IN-$f"
done
for m in $(jr_modes); do
	expect_status 0 "$m: the credentials inside" fj "$m" "$W" -- sh -c "$CATALL" _ "${CREDS[@]}"
	for f in "${CREDS[@]}"; do
		lacks "$m: $f is hidden" "SECRET-IN-$f"
	done
done

###########################################################################
# Homes whose group is root, jailrun run by root (the command is nobody).
# root_jr DIR HOME CMD... - jailrun run by root in DIR with HOME.
root_jr() {
	(cd "$1" && HOME=$2 && export HOME && shift 2 &&
		exec timeout -k 5 "$JR_RUN_LIMIT" "$JR" --setenv HOME="$HOME" -- "$@")
}
if [ "$(id -u)" -ne 0 ]; then
	skip_part "homes: needs root"
	[ "${JAILRUN_TEST_MUST_WORK:-0}" != 1 ] || fail "homes: needs root"
else
	for own in "$JR_NOBODY_UID:0" 0:0; do
		H=$BASE/home-$own
		mkdir -p "$H/.ssh" "$H/proj"
		echo "SECRET-KEY-$own" >"$H/.ssh/id_ed25519"
		chown -R "$own" "$H"
		chmod 700 "$H" "$H/.ssh"
		expect_status 0 "home $own 0700: jailrun starts" root_jr "$W" "$H" \
			sh -c 'cat "$HOME/.ssh/id_ed25519"; echo STARTED'
		expect_output_has "home $own 0700: the command ran" STARTED
		lacks "home $own 0700: the key stays hidden" "SECRET-KEY-$own"
	done
	# Out of the command's reach too (another user's home, 0700): the
	# directory that stops it is made read-only on itself.
	H=$BASE/home-other
	mkdir -p "$H/.ssh"
	echo SECRET-KEY-other >"$H/.ssh/id_ed25519"
	chown -R 4321:4321 "$H"
	chmod 700 "$H"
	expect_status 0 "another user's home 0700: jailrun starts" root_jr "$W" "$H" \
		sh -c 'cat "$HOME/.ssh/id_ed25519"; echo STARTED'
	expect_output_has "another user's home 0700: the command ran" STARTED
	lacks "another user's home 0700: the key stays out of reach" SECRET-KEY-other
	# The command's own .git it may not enter (mode 000, group root): it
	# stays so, its mode cannot be changed to reach the hooks.
	mkrepo "$BASE/r0" "$JR_NOBODY_UID:0"
	chmod 000 "$BASE/r0/.git"
	expect_status 0 "a .git of mode 000, group root: jailrun starts" \
		fj root "$BASE/r0" -- sh -c 'chmod 755 .git 2>/dev/null && echo CHMOD-DONE; echo x >.git/hooks/pre-commit 2>/dev/null && echo HOOK-WRITTEN; echo STARTED'
	expect_output_has "a .git of mode 000: the command ran" STARTED
	lacks "a .git of mode 000: its mode stays" CHMOD-DONE
	lacks "a .git of mode 000: no hook" HOOK-WRITTEN
	# A working directory in the home whose group is root: writable.
	H=$BASE/home-$JR_NOBODY_UID:0
	expect_status 0 "home nobody:root 0700: a working directory inside" \
		root_jr "$H/proj" "$H" sh -c 'echo IN >made && cat made; cat ../.ssh/id_ed25519; true'
	expect_output_has "home nobody:root 0700: the working directory is writable" IN
	lacks "home nobody:root 0700: the key stays hidden from inside" SECRET-KEY
fi

finish
