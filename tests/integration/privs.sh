#!/bin/bash
# What the command holds: no capabilities in any set, no_new_privs, locked
# securebits, no fd but 0/1/2, only its own PIDs, /proc/sys read-only,
# private mounts, no controlling terminal without a pty.
# Fails if any privilege or fd of the runner reaches the command, if it
# can leave a set-user-ID or set-group-ID file on the host (chmod, install,
# cp -p, a new file's mode, mknod, O_TMPFILE; also with --fs host and
# --host-root) or a mount lacks nosuid, or if
# --user root is host uid 0 (it must be uid 0 inside only: a root-only file
# outside stays unreadable, a root-owned file cannot be appended to or made
# set-user-ID), or --host-root does not do what it says, loudly.
. "${JR_TOP_SRCDIR:-$(dirname "$0")/../..}/tests/lib.sh"
jr_require_sandbox

# Set-user-ID and set-group-ID bits (issue 21): a program the command
# leaves in a host tree it may write (the working directory, --rw, the host
# under --fs host) would run, for any local user, as its owner. The script
# tries every way to leave one in a new directory DIR; SRC is an existing
# set-user-ID file of the command's user, for cp -p.
SUID_ATTACK=$JR_TMP/suid-attack.py
if [ -x /usr/bin/python3 ]; then PY=/usr/bin/python3; else PY=$(command -v python3); fi
cat >"$SUID_ATTACK" <<'PY'
import ctypes, os, shutil, stat, subprocess, sys

os.mkdir(sys.argv[1])
os.chdir(sys.argv[1])
src = sys.argv[2]


def run(*cmd):
    subprocess.run(cmd)


def attempt(name, fn):
    try:
        fn()
    except OSError as e:
        print(f"{name}: {e}")


def tmpfile():
    # An unnamed file with the mode, then named through /proc (linkat(2)).
    fd = os.open(".", os.O_TMPFILE | os.O_WRONLY, 0o4755)
    libc = ctypes.CDLL(None, use_errno=True)
    AT_FDCWD, AT_SYMLINK_FOLLOW = -100, 0x400
    if libc.linkat(AT_FDCWD, b"/proc/self/fd/%d" % fd, AT_FDCWD,
                   b"tmpfile-4755", AT_SYMLINK_FOLLOW) < 0:
        raise OSError(ctypes.get_errno(), "linkat")


for name, mode in (("chmod-u+s", "u+s"), ("chmod-g+s", "g+s"),
                   ("chmod-6755", "6755")):
    shutil.copy("/bin/true", name)
    run("chmod", mode, name)
run("install", "-m", "4755", "/bin/true", "install-4755")
run("cp", "-p", src, "cp-p")
attempt("open", lambda: os.close(
    os.open("open-4755", os.O_CREAT | os.O_WRONLY, 0o4755)))
attempt("open", lambda: os.close(
    os.open("open-2755", os.O_CREAT | os.O_WRONLY, 0o2755)))
attempt("mknod", lambda: os.mknod("mknod-4755", stat.S_IFREG | 0o4755))
attempt("O_TMPFILE", tmpfile)
os.mkdir("dir-g+s")
run("chmod", "g+s", "dir-g+s")
print("attack done")
PY
chmod 644 "$SUID_ATTACK"
SUID_ALL="chmod-6755 chmod-g+s chmod-u+s cp-p dir-g+s install-4755 mknod-4755 open-2755 open-4755 tmpfile-4755"
SUID_SRC=$JR_W/suid-src
cp /bin/true "$SUID_SRC"
[ "$(id -u)" -ne 0 ] || chown "$JR_NOBODY_UID:$JR_NOBODY_GID" "$SUID_SRC"
chmod 4755 "$SUID_SRC"
# setid_files DIR - the names in DIR with either bit, as the host sees them.
setid_files() { find "$1" -mindepth 1 -perm /6000 -printf '%f\n' | LC_ALL=C sort | tr '\n' ' ' | sed 's/ $//'; }
# The baseline, without jailrun, as the user the command runs as: every
# way works on this machine, so that none working inside is jailrun's doing.
expect_status 0 "baseline: the set-ID attack runs without jailrun" \
	as_mode rootless "$PY" "$SUID_ATTACK" "$JR_W/suid-baseline" "$SUID_SRC"
if [ "$(setid_files "$JR_W/suid-baseline")" = "$SUID_ALL" ]; then
	ok "baseline: without jailrun, all ten ways leave a set-ID file"
else
	fail "baseline: without jailrun, only these have a set-ID bit: '$(setid_files "$JR_W/suid-baseline")'; output: $OUT"
fi
# suid_inside MODE DIR ARGS... - the attack inside; the host finds no bit.
suid_inside() {
	local mode=$1 dir=$2 m
	shift 2
	m="$mode${*:+ $*}"
	expect_status 0 "$m: the set-ID attack runs inside" \
		jr "$mode" "$@" -- "$PY" "$SUID_ATTACK" "$dir" "$SUID_SRC"
	expect_output_has "$m: the attack ran to its end" "attack done"
	if [ -x "$dir/chmod-u+s" ] && [ -d "$dir/dir-g+s" ] && [ -z "$(setid_files "$dir")" ]; then
		ok "$m: no set-user-ID or set-group-ID file is left on the host ($(ls "$dir" | wc -l) files)"
	else
		fail "$m: set-ID bits on the host: '$(setid_files "$dir")'; files: $(ls -l "$dir" 2>&1); output: $OUT"
	fi
}

for m in $(jr_modes); do
	suid_inside "$m" "$JR_W/suid-$m"
	suid_inside "$m" "$JR_W/suid-fshost-$m" --fs host
	if [ "$m" = root ]; then
		suid_inside root "$JR_W/suid-hostroot" --host-root
	fi

	expect_status 0 "$m: read /proc/self/status" jr "$m" -- cat /proc/self/status
	for f in CapInh CapPrm CapEff CapBnd CapAmb; do
		if grep -qE "^$f:[[:space:]]+0+$" <<<"$OUT"; then
			ok "$m: $f is empty"
		else
			fail "$m: $f not empty: $(printf '%s\n' "$OUT" | grep "^$f:")"
		fi
	done
	if grep -qE '^NoNewPrivs:[[:space:]]+1$' <<<"$OUT"; then
		ok "$m: NoNewPrivs is 1"
	else
		fail "$m: NoNewPrivs: $(printf '%s\n' "$OUT" | grep NoNewPrivs)"
	fi

	# --user root in a user namespace: exec as uid 0 must not bring
	# capabilities back (SECBIT_NOROOT, empty bounding set).
	if [ "$m" = root ]; then
		expect_status 0 "root: --user root status" jr root --user root -- cat /proc/self/status
		if grep -qE '^CapEff:[[:space:]]+0+$' <<<"$OUT" &&
			grep -qE '^CapPrm:[[:space:]]+0+$' <<<"$OUT"; then
			ok "root: --user root holds no capabilities"
		else
			fail "root: --user root has capabilities: $(printf '%s\n' "$OUT" | grep '^Cap')"
		fi
	fi

	# --user root: uid 0 inside, an unprivileged uid outside ("fake root").
	# Root-owned files of the host are out of reach (the test must be root
	# to make them). --host-root shows the same attack succeeding. They sit
	# in $JR_W, sticky, as its own writable root: the working directory
	# around it is root's, so run by root it is idmapped, and there the
	# command owns root's files by design (idmap.sh); a sticky root is not.
	if [ "$(id -u)" -eq 0 ]; then
		secret=$JR_W/root-only-$m
		victim=$JR_W/root-owned-$m
		made=$JR_W/made-by-fake-root-$m
		attack="id -u; cat '$secret' && echo READ-OK; (echo appended >> '$victim') && echo APPEND-OK; chmod 777 '$victim' && echo CHMOD-OK; chmod 4777 '$victim' && echo SETUID-OK"
		rm -f "$secret" "$victim" "$made"
		echo "TOPSECRET-$$" >"$secret"
		chmod 600 "$secret"
		echo original >"$victim"
		chmod 644 "$victim"
		expect_status 0 "$m: --user root runs" jr "$m" --user root --rw "$JR_W" -- sh -c "$attack; touch '$made'; exit 0"
		if [ "$(printf '%s\n' "$OUT" | sed -n 1p)" = 0 ]; then ok "$m: --user root is uid 0 inside"; else
			fail "$m: --user root: id -u says $(printf '%s\n' "$OUT" | sed -n 1p)"
		fi
		if grep -q "TOPSECRET\|READ-OK" <<<"$OUT"; then fail "$m: --user root read a root-only 0600 file: $OUT"; else
			ok "$m: --user root cannot read a root-only file"
		fi
		if grep -q APPEND-OK <<<"$OUT" || [ "$(cat "$victim")" != original ]; then
			fail "$m: --user root appended to a root-owned file: $OUT"
		else ok "$m: --user root cannot append to a root-owned file"; fi
		if grep -q CHMOD-OK <<<"$OUT" || [ "$(stat -c %a "$victim")" != 644 ]; then
			fail "$m: --user root changed a root-owned file's mode to $(stat -c %a "$victim")"
		else ok "$m: --user root cannot chmod 777 or 4777 a root-owned file"; fi
		if [ "$(stat -c %u "$made" 2>/dev/null)" = "$JR_NOBODY_UID" ]; then
			ok "$m: what --user root creates belongs to uid $JR_NOBODY_UID on the host"
		else fail "$m: --user root created a file owned by '$(stat -c %u "$made" 2>/dev/null)' on the host"; fi
		rm -f "$made"

		if [ "$m" = root ]; then
			# Under sudo, fake root is the sudo caller outside.
			daemon_uid=$(id -u daemon 2>/dev/null || echo 1)
			expect_status 0 "root: sudo-style --user root" as_mode root env SUDO_UID="$daemon_uid" \
				SUDO_GID="$daemon_uid" SUDO_USER=daemon timeout -k 5 "$JR_RUN_LIMIT" "$JR" --user root --rw "$JR_W" -- \
				sh -c "$attack; touch '$made'; exit 0"
			if [ "$(printf '%s\n' "$OUT" | sed -n 1p)" = 0 ] && ! grep -q "TOPSECRET\|-OK" <<<"$OUT" &&
				[ "$(stat -c %u "$made" 2>/dev/null)" = "$daemon_uid" ]; then
				ok "root: sudo-style --user root is uid 0 inside, the sudo caller ($daemon_uid) outside"
			else
				fail "root: sudo-style --user root: owner '$(stat -c %u "$made" 2>/dev/null)', output: $OUT"
			fi
			rm -f "$made"

			# The positive control: --host-root is host root, and says so.
			expect_status 0 "root: --host-root runs" jr root --host-root --rw "$JR_W" -- sh -c "$attack; exit 0"
			expect_output_has "root: --host-root warns" "jailrun: warning: --host-root: the command runs as host uid 0"
			if grep -q "TOPSECRET-$$" <<<"$OUT" && grep -q APPEND-OK <<<"$OUT" &&
				grep -q CHMOD-OK <<<"$OUT" && [ "$(stat -c %a "$victim")" = 777 ]; then
				ok "root: --host-root reads, appends to and chmods root's files"
			else
				fail "root: --host-root is not host root: mode $(stat -c %a "$victim"), output: $OUT"
			fi
			# ... but a set-user-ID root program it cannot leave.
			if grep -q SETUID-OK <<<"$OUT" || [ "$(stat -c %a "$victim")" != 777 ]; then
				fail "root: --host-root made a root-owned file mode $(stat -c %a "$victim")"
			else ok "root: --host-root cannot set the set-user-ID bit of a root-owned file"; fi
			expect_status 125 "root: --host-root with another user is refused" jr root --host-root --user nobody -- true
			expect_output_has "root: --host-root --user nobody says why" "cannot be combined with --user nobody"
		else
			expect_status 125 "$m: --host-root without root is refused" jr "$m" --host-root -- true
			expect_output_has "$m: --host-root without root says why" "without root, the command can never be host uid 0"
		fi
		rm -f "$secret" "$victim"
	fi

	# No fd of jailrun (nor one the caller forgot to mark CLOEXEC).
	expect_status 0 "$m: only fds 0, 1, 2 in the command" \
		as_mode "$m" bash -c "exec 7</dev/null 9>/dev/null; exec timeout -k 5 $JR_RUN_LIMIT '$JR' -- '$JR_TMP/fdcheck'"
	expect_output_has "$m: fdcheck ran" "only 0, 1, 2 open"

	# PID namespace: the command is PID 3 (init is 1) and sees no host PID.
	# init's short-lived helper that detaches the host's old root beside
	# init's other setup (fslayout.c) was PID 2; started by root, the one
	# that makes the mountpoints of the private tmpfs with a mapped uid
	# came first.
	want_pid=3
	[ "$m" = root ] && want_pid=4
	expect_status 0 "$m: list PIDs" jr "$m" -- sh -c 'echo "self=$$"; ls /proc | grep -E "^[0-9]+$" | tr "\n" " "'
	expect_output_has "$m: command is PID $want_pid" "self=$want_pid"
	pids=$(printf '%s\n' "$OUT" | tail -n1)
	count=$(echo "$pids" | wc -w)
	# sh (2) plus its pipeline (ls, grep, tr) and init (1): at most 5,
	# all small numbers, where the host has hundreds.
	if [ "$count" -le 5 ] && [ "$(echo "$pids" | tr ' ' '\n' | sort -n | tail -n1)" -le 10 ]; then
		ok "$m: sees only its own PIDs ($pids)"
	else
		fail "$m: sees $count PIDs: $pids"
	fi

	# /proc/sys is read-only.
	expect_status 1 "$m: /proc/sys write fails" jr "$m" -- sh -c 'echo x 2>&1 > /proc/sys/kernel/domainname || exit 1'
	expect_output_has "$m: /proc/sys write fails as read-only" "Read-only file system"
	expect_status 0 "$m: /proc/sys mount flags" jr "$m" -- sh -c 'grep " /proc/sys " /proc/self/mountinfo'
	if grep -qE ' /proc/sys ro,' <<<"$OUT"; then ok "$m: /proc/sys is mounted ro"; else fail "$m: /proc/sys mount: $OUT"; fi

	# Mounts are private: no shared: propagation tags.
	expect_status 0 "$m: mountinfo" jr "$m" -- cat /proc/self/mountinfo
	if grep -q 'shared:' <<<"$OUT"; then fail "$m: a mount still propagates: $(printf '%s' "$OUT" | grep shared: | head -3)"; else ok "$m: all mounts private"; fi
	# Every mount nosuid (its own options, field 6), in both layouts.
	for layout in isolated host; do
		expect_status 0 "$m: mountinfo with --fs $layout" jr "$m" --fs "$layout" -- cat /proc/self/mountinfo
		bad=$(awk '$6 !~ /(^|,)nosuid(,|$)/' <<<"$OUT")
		if [ -z "$bad" ] && [ "$(wc -l <<<"$OUT")" -gt 3 ]; then
			ok "$m: with --fs $layout every mount is nosuid ($(wc -l <<<"$OUT") mounts)"
		else fail "$m: with --fs $layout these mounts are not nosuid: $bad"; fi
	done

	# Without a pty the command has no controlling terminal (TIOCSTI-proof).
	expect_status 0 "$m: no controlling tty" jr "$m" -- sh -c 'if (exec 3</dev/tty) 2>/dev/null; then echo HAS-TTY; else echo NO-TTY; fi'
	expect_output_has "$m: /dev/tty cannot be opened" "NO-TTY"

	# New IPC namespace: a host SysV queue is invisible.
	expect_status 0 "$m: ipc namespace" jr "$m" -- sh -c 'readlink /proc/self/ns/ipc'
	# The namespace line itself, not $OUT: a warning in $OUT would differ too.
	ipc=$(grep -xE 'ipc:\[[0-9]+\]' <<<"$OUT" || true)
	if [ -n "$ipc" ] && [ "$ipc" != "$(readlink /proc/self/ns/ipc)" ]; then ok "$m: own IPC namespace"; else fail "$m: IPC namespace: $OUT"; fi
done

finish
