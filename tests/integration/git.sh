#!/bin/bash
# git's settings under jailrun (jailrun(1), FILESYSTEM, protected paths),
# root and rootless, in a repository owned by the command's user and, run
# by root, in a root-owned one (a+rwX, as a rig's checkout made writable)
# and in one of the command's user with group root, 0700.
#
# Default: .git/config is read-only, so `git config user.name x` fails and
# the host's .git/config is unchanged (the wall of gitwall.sh).
# --rw .git/config: `git config`, `git remote add origin URL` and `git
# commit` work, and the host's .git/config and log show them. git writes
# config.lock and renames it over config: a mount on .git/config itself
# made that rename fail with EBUSY, so the --rw must lift the protection
# without a mount of its own. The hooks stay read-only.
# --rw .git (the dangerous form): the hooks become writable too, and .git
# itself stays pinned (cannot be renamed).
# Fails if: git config or remote add fails under --rw .git/config (EBUSY),
# the change is not on the host, the default lets the config be written,
# --rw .git/config opens the hooks, --rw .git leaves them read-only, or
# --rw .git lets .git be renamed.
. "${JR_TOP_SRCDIR:-$(dirname "$0")/../..}/tests/lib.sh"
jr_require_sandbox
command -v git >/dev/null || skip "git is needed"

NOBODY="$JR_NOBODY_UID:$JR_NOBODY_GID"
if [ "$(id -u)" -eq 0 ]; then
	BASE=$(mktemp -d /var/lib/jailrun-gitcfg.XXXXXX)
else
	BASE=$(mktemp -d "$HOME/.jailrun-gitcfg.XXXXXX")
fi
chmod 755 "$BASE"
FH=$BASE/home # the fake home of the command's user
trap 'rm -rf "$BASE"; jr_cleanup_tmp' EXIT
mkdir -p "$FH"
chown "$NOBODY" "$FH"

export GIT_AUTHOR_NAME=jr GIT_AUTHOR_EMAIL=jr@test.invalid \
	GIT_COMMITTER_NAME=jr GIT_COMMITTER_EMAIL=jr@test.invalid GIT_CONFIG_NOSYSTEM=1
# Root-owned working directories are trusted (safe.directory), inside and out.
GCFG=$BASE/gitconfig
printf '[safe]\n\tdirectory = *\n[init]\n\tdefaultBranch = main\n' >"$GCFG"
chmod 644 "$GCFG"
export GIT_CONFIG_GLOBAL=$GCFG

# mkrepo DIR OWNER [MODE] - a repository with one commit.
mkrepo() {
	rm -rf "$1"
	mkdir -p "$1"
	git -C "$1" init -q
	echo one >"$1/file"
	git -C "$1" add file
	git -C "$1" commit -q -m one
	chown -R "$2" "$1"
	[ -z "${3:-}" ] || chmod -R "$3" "$1"
}
# fj MODE DIR ARGS... - jailrun as MODE's caller, in DIR.
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

URL=https://git.test.invalid/repo.git
# The settings a user makes in a fresh checkout, then a commit.
SETTINGS='git config user.name inside-name && echo CONFIG-OK
git remote add origin '"$URL"' && echo REMOTE-OK
echo two >>file && git commit -q -am inside && echo COMMIT-OK
true'
HOOK='printf "#!/bin/sh\ntrue\n" >.git/hooks/pre-commit 2>/dev/null && echo HOOK-WRITTEN
mv .git .git.old 2>/dev/null && echo GIT-RENAMED
true'

# run_git_config LABEL MODE OWNER [CHMOD]
run_git_config() {
	local label=$1 mode=$2 owner=$3 perm=${4:-} r=$BASE/r sha
	# Default: refused, the host's config unchanged.
	mkrepo "$r" "$owner" "$perm"
	sha=$(sha256sum <"$r/.git/config")
	expect_status 0 "$label: git config by default" fj "$mode" "$r" -- \
		sh -c 'git config user.name x || echo CONFIG-REFUSED'
	expect_output_has "$label: git config fails by default" CONFIG-REFUSED
	if [ "$(sha256sum <"$r/.git/config")" = "$sha" ]; then
		ok "$label: the host's .git/config is unchanged by default"
	else
		fail "$label: .git/config changed by default: $(cat "$r/.git/config")"
	fi
	# --rw .git/config: the settings and a commit work and reach the host.
	mkrepo "$r" "$owner" "$perm"
	expect_status 0 "$label: --rw .git/config" fj "$mode" "$r" --rw .git/config -- \
		sh -c "$SETTINGS$NL$HOOK"
	for w in CONFIG-OK REMOTE-OK COMMIT-OK; do
		expect_output_has "$label: --rw .git/config: $w" "$w"
	done
	lacks "$label: --rw .git/config: no EBUSY" "resource busy"
	lacks "$label: --rw .git/config: the hooks stay read-only" HOOK-WRITTEN
	lacks "$label: --rw .git/config: .git stays pinned" GIT-RENAMED
	if [ "$(git -C "$r" config user.name)" = inside-name ] &&
		[ "$(git -C "$r" config remote.origin.url)" = "$URL" ] &&
		[ "$(git -C "$r" log -1 --format=%s)" = inside ]; then
		ok "$label: --rw .git/config: the host's .git/config and log show it"
	else
		fail "$label: --rw .git/config: not on the host: $(cat "$r/.git/config")"
	fi
	# --rw .git: the hooks too; .git itself still pinned.
	mkrepo "$r" "$owner" "$perm"
	expect_status 0 "$label: --rw .git" fj "$mode" "$r" --rw .git -- \
		sh -c "$SETTINGS$NL$HOOK"
	for w in CONFIG-OK REMOTE-OK COMMIT-OK HOOK-WRITTEN; do
		expect_output_has "$label: --rw .git: $w" "$w"
	done
	lacks "$label: --rw .git: .git stays pinned" GIT-RENAMED
	if [ -f "$r/.git/hooks/pre-commit" ] &&
		[ "$(git -C "$r" config remote.origin.url)" = "$URL" ]; then
		ok "$label: --rw .git: the hook and the remote are on the host"
	else
		fail "$label: --rw .git: not on the host: $(ls "$r/.git/hooks")"
	fi
}
NL=$'\n'

for m in $(jr_modes); do
	run_git_config "$m" "$m" "$NOBODY"
	# A --rw of a directory inside the root opens the rows below it: a
	# linked worktree's commondir (read-only by default, gitwall.sh).
	mkrepo "$BASE/w" "$NOBODY"
	git -C "$BASE/w" worktree add -q "$BASE/w/wt" 2>/dev/null
	chown -R "$NOBODY" "$BASE/w"
	expect_status 0 "$m: --rw .git/worktrees" fj "$m" "$BASE/w" --rw .git/worktrees -- \
		sh -c ': >>.git/worktrees/wt/commondir && echo COMMONDIR-WRITABLE; true'
	expect_output_has "$m: --rw .git/worktrees: the worktree's commondir is writable" COMMONDIR-WRITABLE
done
if [ "$(id -u)" -eq 0 ]; then
	for m in $(jr_modes); do
		run_git_config "$m: root-owned a+rwX" "$m" 0:0 a+rwX
	done
	# The command's user's with group root, 0700: root's init may not
	# enter (the as_command() path of fslayout.c).
	run_git_config "root: nobody:root 0700" root "$JR_NOBODY_UID:0" go-rwx
fi

finish
