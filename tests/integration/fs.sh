#!/bin/bash
# The isolated filesystem (jailrun(1), FILESYSTEM), root and rootless.
#
# A fake home (HOME, owned by the command's user) holds .ssh/id_ed25519,
# .aws/credentials and .bashrc; the working directory is a git repository
# with .git/hooks. Each attack is first shown to work WITHOUT jailrun, as the
# same user (baseline), then must fail under default jailrun.
# Fails if: a secret is readable, a shell rc file, a git hook, a directory
# outside the working directory or ~/.config/autostart can be written, the
# host's /tmp is listed or a unix socket there connected, the working
# directory is not writable or its file does not reach the host, an option
# (--rw --ro --hide --tmpfs --workdir --fs host) does not do what it says or
# accepts bad input, a symlink (planted, or swapped in during setup) leads to
# a secret, the user's cgroup can be frozen or killed, or a pty of the same
# uid opened outside is reachable through /dev/pts.
. "${JR_TOP_SRCDIR:-$(dirname "$0")/../..}/tests/lib.sh"
jr_require_sandbox
command -v python3 >/dev/null || skip "python3 is needed"
command -v git >/dev/null || skip "git is needed"

NOBODY="$JR_NOBODY_UID:$JR_NOBODY_GID"
# Outside /tmp, so that "outside the working directory" means the read-only
# host tree and not only the private /tmp. Root may write /var/lib.
if [ "$(id -u)" -eq 0 ]; then
	BASE=$(mktemp -d /var/lib/jailrun-fs.XXXXXX)
else
	BASE=$(mktemp -d "$HOME/.jailrun-fs.XXXXXX")
fi
chmod 755 "$BASE"
FH=$BASE/home        # the fake home
REPO=$BASE/repo      # the working directory
OUTD=$BASE/outside   # a directory of the user's outside it
STOP=$BASE/stop      # every helper process stops when this exists
MARK=$(mktemp /tmp/jailrun-fs-marker.XXXXXX)
SOCKDIR=$(mktemp -d /tmp/jailrun-fs-sock.XXXXXX)
HELPERS=()
fs_cleanup() {
	touch "$STOP" 2>/dev/null || true
	local p
	for p in "${HELPERS[@]}"; do
		kill "$p" 2>/dev/null || true
		wait "$p" 2>/dev/null || true
	done
	[ -z "${CG:-}" ] || rmdir "$CG" 2>/dev/null || true
	rm -rf "$BASE" "$MARK" "$SOCKDIR"
	jr_cleanup_tmp
}
trap fs_cleanup EXIT

mkdir -p "$FH/.ssh" "$FH/.aws" "$FH/.config" "$OUTD" "$REPO/sub" "$REPO/cache"
echo SECRET-SSH-KEY >"$FH/.ssh/id_ed25519"
echo SECRET-AWS-KEY >"$FH/.aws/credentials"
echo "# rc" >"$FH/.bashrc"
echo HOST-CACHE >"$REPO/cache/host-file"
echo PRIVATE-TEXT >"$REPO/private.txt"
git -C "$REPO" init -q
mkdir -p "$REPO/.git/hooks"
ln -s "$FH/.ssh" "$REPO/ssh-link"
chown -R "$NOBODY" "$FH" "$REPO" "$OUTD"
chmod 700 "$FH/.ssh"

# A host process of the command's uid listening on a unix socket in /tmp.
chmod 777 "$SOCKDIR"
SOCK=$SOCKDIR/s
setpriv --reuid="$JR_NOBODY_UID" --regid="$JR_NOBODY_GID" --clear-groups -- \
	timeout 600 python3 - "$SOCK" "$STOP" <<'PY' &
import os, socket, sys
s = socket.socket(socket.AF_UNIX)
s.bind(sys.argv[1]); s.listen(16); s.settimeout(0.2)
open(sys.argv[1] + ".ready", "w").close()
while not os.path.exists(sys.argv[2]):
    try:
        c, _ = s.accept(); c.sendall(b"hello"); c.close()
    except socket.timeout:
        pass
PY
HELPERS+=($!)
wait_until 30 test -e "$SOCK.ready" || fail "the host listener never became ready"

# A pty of the same uid opened outside; its name is written when ready.
PTYNAME=$BASE/ptyname
setpriv --reuid="$JR_NOBODY_UID" --regid="$JR_NOBODY_GID" --clear-groups -- \
	timeout 600 python3 - "$PTYNAME" "$STOP" <<'PY' &
import os, sys, time
m, s = os.openpty()
with open(sys.argv[1] + ".tmp", "w") as f:
    f.write(os.ttyname(s))
os.rename(sys.argv[1] + ".tmp", sys.argv[1])
while not os.path.exists(sys.argv[2]):
    time.sleep(0.1)   # a helper's idle loop, not a test wait
PY
HELPERS+=($!)
# The helper writes as nobody into $BASE: let it.
chmod 777 "$BASE"
wait_until 30 test -s "$PTYNAME" || fail "the outside pty never appeared"
PTS=$(cat "$PTYNAME")
chmod 755 "$BASE"

# base CMD... - the attack without jailrun: the same user, HOME and cwd.
base() {
	(cd "$REPO" && setpriv --reuid="$JR_NOBODY_UID" --regid="$JR_NOBODY_GID" \
		--clear-groups -- env HOME="$FH" timeout 60 "$@")
}
# fj MODE ARGS... - jailrun as MODE's caller with the fake home, in $REPO,
# with the variables of FJ_ENV added. The command's own HOME would be its
# user's (jailrun(1) ENVIRONMENT): --setenv points it at the caller's
# home, so the attacks aim at the home jailrun must protect.
FJ_ENV=()
fj() {
	local mode=$1
	shift
	if [ "$mode" = rootless ] && [ "$(id -u)" -eq 0 ]; then
		(cd "$REPO" && exec setpriv --reuid="$JR_NOBODY_UID" --regid="$JR_NOBODY_GID" \
			--clear-groups -- env HOME="$FH" "${FJ_ENV[@]}" timeout -k 5 "$JR_RUN_LIMIT" "$JR" --setenv HOME="$FH" "$@")
	else
		(cd "$REPO" && exec env HOME="$FH" "${FJ_ENV[@]}" timeout -k 5 "$JR_RUN_LIMIT" "$JR" --setenv HOME="$FH" "$@")
	fi
}
lacks() { # DESC NEEDLE - $OUTD must not contain NEEDLE
	if grep -qF -- "$2" <<<"$OUT"; then fail "$1: output has '$2': $OUT"; else ok "$1"; fi
}
host_unchanged() { # DESC FILE CONTENT
	if [ "$(cat "$2" 2>/dev/null)" = "$3" ]; then ok "$1"; else fail "$1: $2 is now: $(cat "$2" 2>&1)"; fi
}
host_absent() { # DESC PATH
	if [ -e "$2" ]; then fail "$1: $2 exists on the host"; rm -rf "$2"; else ok "$1"; fi
}

CONNECT='import socket,sys
s=socket.socket(socket.AF_UNIX)
try:
    s.connect(sys.argv[1]); print("CONNECTED", s.recv(5))
except OSError as e:
    print("REFUSED", e.errno)'
ROOTCHK='import os
def mnt(p):
    fd = os.open(p, os.O_PATH)
    m = [l.split()[1] for l in open("/proc/self/fdinfo/%d" % fd) if l.startswith("mnt_id:")]
    os.close(fd)
    return m
print("ROOT", "same" if mnt("/") == mnt("/..") else "other",
      "ro" if os.statvfs("/..").f_flag & os.ST_RDONLY else "rw")'
ATTACKS='
cat "$HOME/.ssh/id_ed25519"
cat "$HOME/.aws/credentials"
echo evil >>"$HOME/.bashrc" && echo BASHRC-APPENDED
mkdir -p "$HOME/.config/autostart" && echo x >"$HOME/.config/autostart/x" && echo AUTOSTART-MADE
echo x >"$2/x" && echo OUTSIDE-WRITTEN
echo evil >.git/hooks/pre-commit && echo HOOK-WRITTEN
ls /tmp
python3 -c "$1" "$0"
true'

###########################################################################
# Baseline: every attack works without jailrun.
expect_status 0 "baseline: the attacks" base sh -c "$ATTACKS" "$SOCK" "$CONNECT" "$OUTD"
for w in SECRET-SSH-KEY SECRET-AWS-KEY BASHRC-APPENDED AUTOSTART-MADE OUTSIDE-WRITTEN HOOK-WRITTEN \
	"$(basename "$MARK")" "CONNECTED b'hello'"; do
	expect_output_has "baseline: $w" "$w"
done
echo "# rc" >"$FH/.bashrc"
rm -rf "$FH/.config/autostart" "$OUTD/x" "$REPO/.git/hooks/pre-commit"
chown -R "$NOBODY" "$FH"
expect_status 0 "baseline: the outside pty opens" base python3 -c 'import os,sys; os.open(sys.argv[1], os.O_RDWR|os.O_NOCTTY); print("PTY-OPENED")' "$PTS"
expect_output_has "baseline: pty" PTY-OPENED

for m in $(jr_modes); do
	# Every attack fails; the host is unchanged afterwards.
	expect_status 0 "$m: the attacks under jailrun" fj "$m" -- sh -c "$ATTACKS" "$SOCK" "$CONNECT" "$OUTD"
	for w in SECRET-SSH-KEY SECRET-AWS-KEY BASHRC-APPENDED AUTOSTART-MADE OUTSIDE-WRITTEN HOOK-WRITTEN \
		"$(basename "$MARK")" CONNECTED; do
		lacks "$m: blocked: $w" "$w"
	done
	expect_output_has "$m: the host's /tmp socket is not there" "REFUSED 2"
	host_unchanged "$m: .bashrc unchanged on the host" "$FH/.bashrc" "# rc"
	host_absent "$m: no autostart entry on the host" "$FH/.config/autostart"
	host_absent "$m: nothing written outside" "$OUTD/x"
	host_absent "$m: no git hook on the host" "$REPO/.git/hooks/pre-commit"

	# The working directory is writable, its files reach the host, and the
	# command starts there.
	rm -f "$REPO/made-inside"
	expect_status 0 "$m: write in the working directory" fj "$m" -- sh -c 'pwd; echo IN >made-inside'
	expect_output_has "$m: starts in the working directory" "$REPO"
	host_unchanged "$m: the file is on the host" "$REPO/made-inside" IN

	# The host's old root is gone before the command starts: while it is
	# stacked on the new "/" (pivot_root, until init's detach finishes),
	# "/.." is that writable host root, another mount than "/".
	expect_status 0 "$m: /.. is /" fj "$m" -- python3 -c "$ROOTCHK"
	expect_output_has "$m: /.. is the sandbox's read-only /" "ROOT same ro"

	# A symlink in the working directory to ~/.ssh gives nothing.
	expect_status 1 "$m: symlink to ~/.ssh" fj "$m" -- cat ssh-link/id_ed25519
	lacks "$m: nothing through the symlink" SECRET-SSH-KEY

	# /, the home and a parent of it are refused as the working directory.
	for w in / "$FH" "$BASE"; do
		expect_status 125 "$m: --workdir $w refused" fj "$m" --workdir "$w" -- true
		expect_output_has "$m: --workdir $w: the fix" "pass --workdir DIR or --rw DIR"
	done
	# --workdir: another directory, writable, the command starts there.
	expect_status 0 "$m: --workdir" fj "$m" --workdir "$OUTD" -- sh -c 'pwd; echo W >w-file'
	expect_output_has "$m: --workdir: starts there" "$OUTD"
	host_unchanged "$m: --workdir: written" "$OUTD/w-file" W
	rm -f "$OUTD/w-file"
	expect_status 125 "$m: --workdir missing" fj "$m" --workdir "$BASE/nonexistent" -- true
	expect_output_has "$m: --workdir missing is named" "$BASE/nonexistent"

	# --rw: another writable root; a missing path is refused by name.
	expect_status 0 "$m: --rw" fj "$m" --rw "$OUTD" -- sh -c "echo R >'$OUTD/rw-file'"
	host_unchanged "$m: --rw: written" "$OUTD/rw-file" R
	rm -f "$OUTD/rw-file"
	expect_status 125 "$m: --rw missing" fj "$m" --rw "$BASE/nope" -- true
	expect_output_has "$m: --rw missing is named" "$BASE/nope"
	# --rw naming a protected path makes that one writable.
	expect_status 0 "$m: --rw .git/hooks" fj "$m" --rw "$REPO/.git/hooks" -- sh -c 'echo H >.git/hooks/pre-commit'
	host_unchanged "$m: --rw .git/hooks: written" "$REPO/.git/hooks/pre-commit" H
	rm -f "$REPO/.git/hooks/pre-commit"

	# --ro: read-only inside the writable working directory.
	expect_status 0 "$m: --ro" fj "$m" --ro "$REPO/sub" -- sh -c 'echo x >sub/f && echo SUB-WRITTEN; echo y >top-f && echo TOP-WRITTEN'
	lacks "$m: --ro: the subdirectory stays read-only" SUB-WRITTEN
	expect_output_has "$m: --ro: the rest stays writable" TOP-WRITTEN
	host_absent "$m: --ro: nothing on the host" "$REPO/sub/f"
	rm -f "$REPO/top-f"
	expect_status 125 "$m: --ro missing" fj "$m" --ro "$REPO/nope" -- true
	expect_output_has "$m: --ro missing is named" "$REPO/nope"

	# --hide: covered, empty; an empty path is bad input.
	expect_status 0 "$m: --hide" fj "$m" --hide "$REPO/private.txt" -- sh -c 'cat private.txt; echo END'
	lacks "$m: --hide: the content is gone" PRIVATE-TEXT
	expect_status 125 "$m: --hide ''" fj "$m" --hide '' -- true

	# --tmpfs: a fresh, empty, writable tmpfs; nothing reaches the host.
	expect_status 0 "$m: --tmpfs" fj "$m" --tmpfs "$REPO/cache" -- sh -c 'ls cache; echo T >cache/t && echo TMPFS-WRITTEN'
	lacks "$m: --tmpfs: the host's files are not shown" host-file
	expect_output_has "$m: --tmpfs: writable" TMPFS-WRITTEN
	host_absent "$m: --tmpfs: nothing on the host" "$REPO/cache/t"
	expect_status 125 "$m: --tmpfs missing" fj "$m" --tmpfs "$REPO/nope" -- true
	expect_output_has "$m: --tmpfs missing is named" "$REPO/nope"
	expect_status 125 "$m: --tmpfs on a file" fj "$m" --tmpfs "$REPO/private.txt" -- true
	expect_status 125 "$m: --tmpfs-size bad" fj "$m" --tmpfs-size 12q -- true

	# The tmpfs bound, as statfs shows it inside: /tmp, /var/tmp, /dev/shm
	# and /run share 1 GiB (256 MiB each), a --tmpfs takes a fifth then;
	# never half the RAM each, as before. --tmpfs-size overrides it.
	# (--memory, the bound when given, is checked in limits.sh.)
	SIZES='for p in /tmp /var/tmp /dev/shm /run "$@"; do echo "size $p $(($(stat -f -c "%b * %S" "$p")))"; done'
	expect_status 0 "$m: tmpfs sizes" fj "$m" -- sh -c "$SIZES" sh
	for p in /tmp /var/tmp /dev/shm /run; do
		expect_output_has "$m: $p holds 256 MiB, a quarter of 1 GiB" "size $p $((256 << 20))"
	done
	expect_status 0 "$m: tmpfs sizes with a --tmpfs" fj "$m" --tmpfs "$REPO/cache" -- sh -c "$SIZES" sh "$REPO/cache"
	for p in /tmp "$REPO/cache"; do
		expect_output_has "$m: with a --tmpfs, $p holds a fifth of 1 GiB" "size $p $(((1 << 30) / 5 / 4096 * 4096))"
	done
	expect_status 0 "$m: --tmpfs-size" fj "$m" --tmpfs-size 8m -- sh -c "$SIZES" sh
	for p in /tmp /var/tmp /dev/shm /run; do
		expect_output_has "$m: --tmpfs-size 8m: $p holds 8 MiB" "size $p $((8 << 20))"
	done

	# --fs host: today's behaviour, secrets readable (what it gives up).
	expect_status 0 "$m: --fs host" fj "$m" --fs host -- cat "$FH/.ssh/id_ed25519"
	expect_output_has "$m: --fs host reads the secret" SECRET-SSH-KEY
	expect_status 125 "$m: --fs host --rw" fj "$m" --fs host --rw "$OUTD" -- true
	expect_status 125 "$m: --fs bogus" fj "$m" --fs bogus -- true

	# JSON: the filesystem object.
	expect_status 0 "$m: --json" fj "$m" --json "$REPO/s.json" --rw "$OUTD" --tmpfs-size 8m -- true
	LL_ABI=$("$JR" --check 2>/dev/null | sed -n 's/.*landlock: ABI \([0-9]*\).*/\1/p' | sed -n 1p)
	if python3 - "$REPO/s.json" "$REPO" "$OUTD" "${LL_ABI:-none}" <<'PY'
import json, sys
d = json.load(open(sys.argv[1]))
f = d["filesystem"]
assert f["mode"] == "isolated", f
assert f["writable"] == [sys.argv[2], sys.argv[3]], f
assert f["hidden"] >= 2, f          # .ssh and .aws of the fake home
assert f["tmpfs_size"] == 8 << 20, f
# the ABI --check reports (Landlock applied), or null without Landlock
want = None if sys.argv[4] == "none" else int(sys.argv[4])
assert f["landlock"] == want, (f, want)
assert d["startup_us"]["mounts"] > 0, d["startup_us"]
PY
	then ok "$m: JSON filesystem object"; else fail "$m: JSON: $(cat "$REPO/s.json")"; fi
	rm -f "$REPO/s.json"

	# Read-only / cannot be remounted, even as --user root.
	expect_status 0 "$m: remount / rw" fj "$m" --user root -- sh -c 'mount -o remount,rw / 2>&1 || echo REMOUNT-FAILED; echo x >/etc/jr-x 2>&1 || echo WRITE-FAILED'
	expect_output_has "$m: remount refused" REMOUNT-FAILED
	expect_output_has "$m: / not writable" WRITE-FAILED
	host_absent "$m: nothing in /etc" /etc/jr-x

	# The outside pty of the same uid is not reachable through /dev/pts.
	expect_status 0 "$m: outside pty" fj "$m" -- python3 -c '
import os, sys
try:
    os.open(sys.argv[1], os.O_RDWR | os.O_NOCTTY); print("PTY-OPENED")
except OSError as e:
    print("PTY-REFUSED", e.errno)' "$PTS"
	lacks "$m: the outside pty is out of reach" PTY-OPENED

	# Variables naming host sockets go, unless --expose passes the socket,
	# which is then bound at its path in the private /tmp and connectable.
	FJ_ENV=(TMUX="$SOCK,1,0" TMUX_PANE=%1 SSH_AUTH_SOCK=/tmp/ssh-none/agent.1 DISPLAY=:0)
	ENVCHK='env | grep -E "^(TMUX|TMUX_PANE|SSH_AUTH_SOCK|DISPLAY)=" | sed "s/^/VAR /"; python3 -c "$0" "$1"'
	expect_status 0 "$m: socket variables" fj "$m" -- sh -c "$ENVCHK" "$CONNECT" "$SOCK"
	lacks "$m: no socket variable left" "VAR "
	expect_output_has "$m: the socket is not there" "REFUSED 2"
	expect_status 0 "$m: --expose" fj "$m" --expose "$SOCK" -- sh -c "$ENVCHK" "$CONNECT" "$SOCK"
	expect_output_has "$m: --expose keeps TMUX" "VAR TMUX=$SOCK,1,0"
	expect_output_has "$m: --expose keeps TMUX_PANE" "VAR TMUX_PANE=%1"
	lacks "$m: --expose: the others still go" "VAR SSH_AUTH_SOCK"
	lacks "$m: --expose: DISPLAY still goes" "VAR DISPLAY"
	expect_output_has "$m: --expose: connectable" "CONNECTED b'hello'"
	FJ_ENV=()
done

###########################################################################
# A symlink swapped in while jailrun sets up never redirects a mount: a
# swapper flips --rw "$REPO/flip" between a directory and a symlink to the
# fake home's .ssh; the secret must never be readable or writable.
cat >"$BASE/swap.sh" <<EOF
while [ ! -e "$STOP.swap" ]; do
	rm -rf "$REPO/flip"; mkdir "$REPO/flip"
	rm -rf "$REPO/flip"; ln -s "$FH/.ssh" "$REPO/flip"
done
EOF
timeout 600 bash "$BASE/swap.sh" &
SWAP=$!
HELPERS+=("$SWAP")
leaks=0 runs=0 refused=0
for m in $(jr_modes); do
	for i in $(seq 100); do
		set +e
		OUT=$(fj "$m" --rw "$REPO/flip" -- sh -c 'cat "$HOME/.ssh/id_ed25519" flip/id_ed25519; echo x >flip/id_ed25519' 2>&1)
		st=$?
		set -e
		runs=$((runs + 1))
		[ "$st" != 125 ] || refused=$((refused + 1))
		if grep -qF SECRET-SSH-KEY <<<"$OUT"; then leaks=$((leaks + 1)); fi
	done
done
touch "$STOP.swap"
wait "$SWAP" || true
echo "race: $runs runs, $refused refused at setup (a symlink found: fail closed)"
if [ "$leaks" -eq 0 ]; then ok "race: the secret never read ($runs runs)"; else fail "race: the secret was read $leaks times"; fi
host_unchanged "race: the secret never written" "$FH/.ssh/id_ed25519" SECRET-SSH-KEY

###########################################################################
# cgroups: a delegated cgroup of the command's user, jailrun started inside
# it. Without jailrun the user freezes and kills it; inside, its cgroup
# namespace root at /sys/fs/cgroup is read-only.
CG2=$(findmnt -n -t cgroup2 -o TARGET 2>/dev/null | sed -n 1p || true)
if [ "$(id -u)" -ne 0 ] || [ -z "$CG2" ] || [ ! -e "$CG2/cgroup.procs" ]; then
	skip_part "cgroup: needs root and a cgroup2 mount"
	[ "${JAILRUN_TEST_MUST_WORK:-0}" != 1 ] || fail "cgroup: cannot set up a delegated cgroup"
else
	CG=$CG2/jailrun-fs-$$
	mkdir "$CG"
	chown "$NOBODY" "$CG" "$CG/cgroup.procs" "$CG/cgroup.freeze" "$CG/cgroup.kill" "$CG/cgroup.subtree_control"
	expect_status 0 "baseline: cgroup.freeze as the user" base sh -c "echo 0 >'$CG/cgroup.freeze' && echo 1 >'$CG/cgroup.kill' && echo CG-WRITTEN"
	expect_output_has "baseline: the user writes its cgroup" CG-WRITTEN
	for m in $(jr_modes); do
		# Root puts the runner in the cgroup, then becomes the caller.
		if [ "$m" = rootless ]; then
			cmd=(setpriv --reuid="$JR_NOBODY_UID" --regid="$JR_NOBODY_GID" --clear-groups -- env HOME="$FH")
		else
			cmd=(env HOME="$FH")
		fi
		expect_status 0 "$m: cgroup writes inside" bash -c 'echo $$ >"$1/cgroup.procs"; shift; cd "$0"; exec "$@"' "$REPO" "$CG" \
			"${cmd[@]}" timeout -k 5 "$JR_RUN_LIMIT" "$JR" -- sh -c '
				cat /proc/self/cgroup
				for f in /sys/fs/cgroup/cgroup.freeze "$0/cgroup.freeze"; do
					echo 0 >"$f" 2>/dev/null && echo "WROTE $f"
				done
				# Success here would kill this very sandbox: status 137.
				for f in /sys/fs/cgroup/cgroup.kill "$0/cgroup.kill"; do
					echo 1 >"$f" 2>/dev/null && echo "WROTE $f"
				done; true' "$CG"
		lacks "$m: no cgroup file written" WROTE
		expect_output_has "$m: a cgroup namespace (its root is /)" "0::/"
	done
	# Every run reaped all it started (init, the guard's executor): the
	# cgroup is empty, and goes.
	if rmdir "$CG" 2>/dev/null; then
		ok "the delegated cgroup is empty after the runs, and removed"
		CG=
	else
		fail "the delegated cgroup $CG still holds: $(cat "$CG/cgroup.procs" 2>&1 | tr '\n' ' ')"
	fi
fi

finish
