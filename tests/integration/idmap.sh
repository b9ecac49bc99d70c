#!/bin/bash
# The working directory started by root (jailrun(1), USERS AND ID MAPPING):
# root runs the command as nobody, or as fake root, in directories root
# owns (mktemp -d, a rig's checkout), and the command owns them through an
# idmapped mount; what it creates stays root's on the host.
#
# Root: in a mktemp -d directory (root:root 0700) holding a 0600 root file,
# the command lists, reads and writes, and its files are root's on the
# host; as --user root it sees the directory as root's (0:0); a root-owned
# --rw path and a directory of another user whose group is root are
# idmapped the same way; a file of a third user stays unwritable; setting
# S_ISUID or S_ISGID is refused; the command still cannot write /etc. Not
# idmapped, with the reason: a sticky directory, --idmap off and
# --seccomp off (the start-up warning says the command cannot write its
# working directory), and a filesystem that cannot be idmapped (ramfs,
# mounted in a mount namespace of the test's own: the warning names it).
# Rootless: nothing is idmapped, and no warning, in the caller's own
# directory or in root's (the command has the caller's rights, as outside).
# Fails if any of those does not hold, or if the summary's
# filesystem.idmapped does not list exactly the idmapped roots.
. "${JR_TOP_SRCDIR:-$(dirname "$0")/../..}/tests/lib.sh"
jr_require_sandbox
command -v jq >/dev/null || skip "jq is needed"
# Root is the point; its rootless half runs as nobody, which needs root too.
[ "$(id -u)" -eq 0 ] || skip "run by root: root's directories and an unprivileged caller"

NOBODY=$JR_NOBODY_UID
OTHER=4242 # a user of no passwd entry
BASE=$(mktemp -d /var/tmp/jailrun-idmap.XXXXXX)
chmod 755 "$BASE"
cleanup() {
	umount "$BASE/ramfs" 2>/dev/null || true
	rm -rf "$BASE"
	jr_cleanup_tmp
}
trap cleanup EXIT

# run_in DIR OUT ARGS... - jailrun started by root in DIR, the summary in OUT.
run_in() {
	local dir=$1 out=$2
	shift 2
	(cd "$dir" && timeout -k 5 "$JR_RUN_LIMIT" "$JR" --json "$out" "$@")
}

# idmapped OUT - the summary's idmapped roots, one line.
idmapped() { jq -c '.filesystem.idmapped' "$1"; }

root_mktemp() {
	local d out=$BASE/mktemp.json
	d=$(mktemp -d "$BASE/task.XXXXXX") # root:root 0700, as mktemp -d makes
	echo secret >"$d/rootfile"
	chmod 600 "$d/rootfile"
	expect_status 0 "root: the command works in root's 0700 mktemp -d directory" \
		run_in "$d" "$out" -- sh -c 'ls -a >/dev/null && cat rootfile && echo new >new && mkdir sub && echo x >sub/x && stat -c %u .'
	expect_output_has "root: it reads root's 0600 file there" "secret"
	expect_output_has "root: the directory is the command's (uid $NOBODY) inside" "$NOBODY"
	if [ "$(stat -c %u:%g "$d/new" "$d/sub" "$d/sub/x" | sort -u)" = 0:0 ] &&
		[ "$(cat "$d/new")" = new ]; then
		ok "root: what it created belongs to root on the host"
	else
		fail "root: created files: $(stat -c '%n %u:%g' "$d/new" "$d/sub" "$d/sub/x" 2>&1)"
	fi
	if [ "$(idmapped "$out")" = "[\"$d\"]" ]; then
		ok "root: the summary lists the idmapped working directory"
	else
		fail "root: filesystem.idmapped is $(idmapped "$out"), want [\"$d\"]"
	fi
	expect_status 0 "root: --user root sees root's directory as its own" \
		run_in "$d" "$out" --user root -- sh -c 'stat -c %u:%g . && echo r >byroot && id -u'
	expect_output_has "root: --user root: owner 0:0 inside" "0:0"
	if [ "$(stat -c %u:%g "$d/byroot")" = 0:0 ]; then
		ok "root: --user root's file is root's on the host"
	else
		fail "root: --user root's file is $(stat -c %u:%g "$d/byroot")"
	fi
}

root_walls() {
	local d out=$BASE/walls.json
	d=$(mktemp -d "$BASE/walls.XXXXXX")
	echo data >"$d/f"
	echo other >"$d/others"
	chown "$OTHER:$OTHER" "$d/others"
	chmod 644 "$d/others"
	expect_status 0 "root: set-user-ID and set-group-ID bits stay refused in an idmapped directory" \
		run_in "$d" "$out" -- sh -c 'chmod u+s f 2>/dev/null && echo SUID-SET; chmod g+s f 2>/dev/null && echo SGID-SET; echo done'
	if [ "$(stat -c %a "$d/f")" = 644 ] && ! grep -q -- -SET <<<"$OUT"; then
		ok "root: the host file has no set-user-ID or set-group-ID bit"
	else
		fail "root: mode $(stat -c %a "$d/f"), output: $OUT"
	fi
	expect_status 0 "root: a third user's file in it is not the command's" \
		run_in "$d" "$out" -- sh -c 'echo x >>others && echo WROTE; touch /etc/jailrun-idmap-probe 2>/dev/null && echo ETC; echo done'
	if ! grep -q -e WROTE -e ETC <<<"$OUT" && [ "$(cat "$d/others")" = other ] &&
		[ ! -e /etc/jailrun-idmap-probe ]; then
		ok "root: neither the third user's file nor /etc became writable"
	else
		fail "root: $OUT; others: $(cat "$d/others")"
	fi
}

root_rw_paths() {
	local d rw grp sticky out=$BASE/rw.json
	d=$(mktemp -d "$BASE/wd.XXXXXX")
	rw=$(mktemp -d "$BASE/cache.XXXXXX") # root's, e.g. /root/.npm
	grp=$(mktemp -d "$BASE/grp.XXXXXX")  # another user's, group root
	chown "$OTHER:0" "$grp"
	chmod 770 "$grp"
	sticky=$(mktemp -d "$BASE/sticky.XXXXXX")
	chmod 1777 "$sticky"
	echo root >"$sticky/rootfile"
	chmod 644 "$sticky/rootfile"
	expect_status 0 "root: --rw of root's directory and of another user's (group root) are writable" \
		run_in "$d" "$out" --rw "$rw" --rw "$grp" --rw "$sticky" -- \
		sh -c "echo a >'$rw/a' && echo b >'$grp/b' && (echo x >>'$sticky/rootfile' 2>/dev/null && echo STICKY-WROTE; true)"
	if [ "$(stat -c %u:%g "$rw/a")" = 0:0 ] && [ "$(stat -c %u:%g "$grp/b")" = "$OTHER:0" ]; then
		ok "root: each path's files belong to its owner on the host"
	else
		fail "root: $(stat -c '%n %u:%g' "$rw/a" "$grp/b" 2>&1)"
	fi
	if ! grep -q STICKY-WROTE <<<"$OUT" && [ "$(cat "$sticky/rootfile")" = root ]; then
		ok "root: a sticky directory is not idmapped: root's file in it stays root's"
	else
		fail "root: the sticky directory's root file was written: $OUT"
	fi
	local want
	want=$(printf '%s\n' "$d" "$rw" "$grp" | sort | jq -R . | jq -sc .)
	if [ "$(jq -c '.filesystem.idmapped | sort' "$out")" = "$want" ]; then
		ok "root: filesystem.idmapped is the working directory and both --rw paths, not the sticky one"
	else
		fail "root: filesystem.idmapped is $(idmapped "$out"), want $want"
	fi
}

# no_idmap DESC REASON ARGS... - not idmapped: the warning names REASON,
# the command cannot write its working directory, the summary lists none.
no_idmap() {
	local desc=$1 reason=$2 d out=$BASE/off.json
	shift 2
	d=$(mktemp -d "$BASE/off.XXXXXX")
	expect_status 0 "root: $desc: the command still runs" \
		run_in "$d" "$out" "$@" -- sh -c 'echo x >f 2>/dev/null && echo WROTE; true'
	expect_output_has "root: $desc: warned that the command cannot write its working directory" \
		"probably cannot write its working directory $d"
	expect_output_has "root: $desc: the warning says why" "$reason"
	if ! grep -q WROTE <<<"$OUT" && [ "$(idmapped "$out")" = "[]" ]; then
		ok "root: $desc: not idmapped"
	else
		fail "root: $desc: idmapped $(idmapped "$out"); $OUT"
	fi
}

# A filesystem without idmap support: ramfs, in a mount namespace of this
# test's own (the host's mounts are not touched).
root_ramfs() {
	local out=$BASE/ramfs.json
	mkdir "$BASE/ramfs"
	expect_status 0 "root: on ramfs, which cannot be idmapped, the command still runs" \
		unshare -m --propagation private sh -c '
			mount -t ramfs -o mode=0700 none "$1" && mkdir -m 0700 "$1/wd" &&
			cd "$1/wd" && exec timeout -k 5 "$2" "$3" --json "$4" -- true' \
		sh "$BASE/ramfs" "$JR_RUN_LIMIT" "$JR" "$out"
	expect_output_has "root: the warning names the filesystem" "does not support idmapped mounts"
	expect_output_has "root: ... which is ramfs" "ramfs"
	expect_output_has "root: ... and the command cannot write its working directory" \
		"probably cannot write its working directory"
	if [ "$(idmapped "$out")" = "[]" ]; then
		ok "root: ramfs: the summary lists nothing idmapped"
	else
		fail "root: ramfs: filesystem.idmapped is $(idmapped "$out")"
	fi
}

rootless() {
	local mine theirs out=$JR_W/rootless.json
	mine=$(mktemp -d "$JR_W/mine.XXXXXX")
	chown "$NOBODY:$JR_NOBODY_GID" "$mine"
	expect_status 0 "rootless: its own directory: written, nothing to idmap" \
		as_mode rootless sh -c 'cd "$1" && exec timeout -k 5 "$2" "$3" --json "$4" -- sh -c "echo x >f"' \
		sh "$mine" "$JR_RUN_LIMIT" "$JR" "$out"
	if ! grep -q "cannot write" <<<"$OUT" && [ "$(idmapped "$out")" = "[]" ] && [ -f "$mine/f" ]; then
		ok "rootless: no warning, nothing idmapped"
	else
		fail "rootless: $OUT; idmapped $(idmapped "$out")"
	fi
	# The command has its caller's own rights there: no surprise, no warning.
	theirs=$(mktemp -d "$JR_W/theirs.XXXXXX")
	chmod 755 "$theirs"
	expect_status 0 "rootless: root's 0755 directory: the command runs" \
		as_mode rootless sh -c 'cd "$1" && exec timeout -k 5 "$2" "$3" --json "$4" -- sh -c "echo x >f 2>/dev/null && echo WROTE; true"' \
		sh "$theirs" "$JR_RUN_LIMIT" "$JR" "$out"
	if ! grep -q -e WROTE -e warning <<<"$OUT" && [ "$(idmapped "$out")" = "[]" ]; then
		ok "rootless: root's directory stays root's, without a warning"
	else
		fail "rootless: $OUT; idmapped $(idmapped "$out")"
	fi
}

root_mktemp
root_walls
root_rw_paths
no_idmap "--idmap off" "--idmap off" --idmap off
no_idmap "--seccomp off" "not idmapped under --seccomp off" --seccomp off
root_ramfs
rootless
finish
