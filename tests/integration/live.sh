#!/bin/bash
# Live sandboxes (jailrun start/exec/ls/stop), in a lab, as root and
# rootless: one sandbox per mode, started once, many commands exec'd in it.
# Fails if: start does not return 0 once ready, or leaves the caller's
# output open (the test's $(...) would hang); the socket is not 0600 in a
# 0700 directory of the caller's; state is not kept between two execs (a
# file the first writes, the second reads); stdin, stdout or stderr do
# not go through, or --env/--cwd are not applied; the exit status is not
# the command's with a run's conventions (0, 3, 126, 127, 128+9); an
# exec'd command has capabilities, no seccomp filter (Seccomp: 2), no
# no_new_privs, or runs outside the sandbox's pid namespace; an allowed
# lab host is not reached from an exec'd command, or a denied one is; a
# write Landlock refuses in a run is not refused to an exec'd command
# (--fs host --landlock require, EACCES where the host lets the user
# write), or a host unix socket the guard refuses in a run is reached;
# ls does not list a running sandbox with its mode; a name already live,
# a bad name, or a command given to start is not refused with 125 and a
# message naming the rule; stop leaves a process of the
# sandbox's pid namespace, the runner, its socket (or its NAME.log, empty
# while it runs, when nothing was said), its cgroup, or an nft
# table in the lab host, or the JSON summary or the audit log's end
# unwritten; a SIGKILLed
# runner leaves a process behind, or its stale socket blocks a new start
# of the same name; --foreground does not serve, or does not stop on
# SIGTERM with status 0; --idle-stop stops a sandbox while a command runs,
# or does not stop an idle one (jailrun ls polling it); a terminal
# reaches the command (it must get a pty of its own, its controlling
# terminal, its output filtered: OSC 52 dropped); the zygote's environ
# or its fds can be read by a command; a SIGTERM to jailrun exec does not reach
# the command.
# Also (leftovers.py, as root) if, after stop or the runner's SIGKILL, a
# process the sandbox had still runs, its PID or network namespace (the
# relay's too) is still referenced, its cgroup directory is left (root:
# --pids; a killed runner's is left after the next start with --pids), or
# a mount was added to the host's mount namespace; or if the
# summary of a stopped sandbox does not say "ended":"stopped" (status 0),
# its audit log does not end with "stopped", or either does not validate
# against docs/schema.
. "${JR_TOP_SRCDIR:-$(dirname "$0")/../..}/tests/lib.sh"
. "$JR_TOP_SRCDIR/tests/lab/lib.sh"
jr_require_sandbox
command -v nft >/dev/null || skip "needs nft (to look for leftover tables)"
lab_setup --timeout 600 live # a hang guard, not a time limit
lab_on_exit jr_cleanup_tmp
lab_on_exit live_cleanup

# Outside every writable root, where the command's user (nobody) may write
# on the host: Landlock, not the mounts or the permissions, must refuse.
OUTSIDE=/var/lib/jailrun-live-ll-$$
mkdir -m 1777 "$OUTSIDE"
XDG="$JR_W/xdg" # the rootless caller's XDG_RUNTIME_DIR
mkdir -m 700 "$XDG"
[ "$(id -u)" -ne 0 ] || chown "$JR_NOBODY_UID:$JR_NOBODY_GID" "$XDG"
STARTED=()
# A python3 every caller can run (a pyenv shim under /root is not).
if [ -x /usr/bin/python3 ]; then PYTHON=/usr/bin/python3; else PYTHON=$(command -v python3); fi
# A host daemon's unix socket, which no option exposes.
HOSTSOCK="$OUTSIDE/daemon.sock"
UNIX_CONNECT='import socket, sys; socket.socket(socket.AF_UNIX).connect(sys.argv[1]); print("connected")'
"$PYTHON" -c 'import os, socket, sys
s = socket.socket(socket.AF_UNIX)
s.bind(sys.argv[1])
os.chmod(sys.argv[1], 0o777)
s.listen(16)
open(sys.argv[2], "w").close()
while True:
    s.accept()[0].close()' "$HOSTSOCK" "$JR_W/hostsock.ready" &
HOSTSOCK_PID=$!
wait_until 30 test -e "$JR_W/hostsock.ready" || fail "the host unix socket never listened"
live_cleanup() {
	local s
	for s in "${STARTED[@]}"; do
		lv "${s%%:*}" stop "${s#*:}" >/dev/null 2>&1 || true
	done
	kill "$HOSTSOCK_PID" 2>/dev/null || true
	rm -rf "$OUTSIDE"
}

# lv CALLER ARGS... - jailrun in the lab host as CALLER, stdio passed
# through, bounded by $JR_RUN_LIMIT.
lv() {
	local c=$1
	shift
	case $c in
	root) lab_host timeout -k 5 "$JR_RUN_LIMIT" env -C "$JR_TMP" "$JR" "$@" ;;
	rootless) lab_host_as nobody timeout -k 5 "$JR_RUN_LIMIT" \
		env -C "$JR_TMP" HOME="$JR_HOME" XDG_RUNTIME_DIR="$XDG" "$JR" "$@" ;;
	esac
}
# lvh CALLER ARGS... - lv outside the lab, where /sys/fs/cgroup is mounted
# (ip netns exec's mount namespace has none): for --net none sandboxes.
lvh() {
	local c=$1
	shift
	case $c in
	root) timeout -k 5 "$JR_RUN_LIMIT" env -C "$JR_TMP" "$JR" "$@" ;;
	rootless) setpriv --reuid="$JR_NOBODY_UID" --regid="$JR_NOBODY_GID" --clear-groups -- \
		timeout -k 5 "$JR_RUN_LIMIT" env -C "$JR_TMP" HOME="$JR_HOME" XDG_RUNTIME_DIR="$XDG" "$JR" "$@" ;;
	esac
}

# lv_tty CALLER ARGS... - lv with a terminal as stdio (script(1)).
lv_tty() {
	local c=$1 cmd
	shift
	printf -v cmd '%q ' "$JR" "$@"
	case $c in
	root) lab_host timeout -k 5 "$JR_RUN_LIMIT" env -C "$JR_TMP" script -qec "$cmd" /dev/null </dev/null ;;
	rootless) lab_host_as nobody timeout -k 5 "$JR_RUN_LIMIT" env -C "$JR_TMP" HOME="$JR_HOME" \
		XDG_RUNTIME_DIR="$XDG" script -qec "$cmd" /dev/null </dev/null ;;
	esac
}

# sock_dir MODE - where MODE's sockets are (jailrun(1) LIVE SANDBOXES).
sock_dir() {
	if [ "$1" = root ]; then echo /run/jailrun; else echo "$XDG/jailrun"; fi
}

# exec_ok LABEL WANT-STATUS NEEDLE EXEC-ARGS... - jailrun exec, its
# status WANT-STATUS and its stdout+stderr holding NEEDLE ("" for none).
exec_ok() {
	local label=$1 want=$2 needle=$3
	shift 3
	expect_status "$want" "$m: exec: $label" lv "$m" exec "$N" "$@"
	[ -z "$needle" ] || expect_output_has "$m: exec: $label: output has '$needle'" "$needle"
}

# pidns_members NS - live processes whose pid namespace is NS ("pid:[N]").
pidns_members() {
	local p s line
	s=${1//[/\\[}
	s=${s//]/\\]}
	for p in $(find /proc/[0-9]*/ns -maxdepth 1 -name pid -lname "$s" 2>/dev/null | cut -d/ -f3); do
		line=
		{ read -r line <"/proc/$p/stat"; } 2>/dev/null || continue
		line=${line##*) }
		case ${line%% *} in Z | X) ;; *) echo "$p" ;; esac
	done
}
# alive PID - PID runs (a zombie waiting for its reaper does not).
alive() {
	local line=
	{ read -r line <"/proc/$1/stat"; } 2>/dev/null || return 1
	line=${line##*) }
	case ${line%% *} in Z | X) return 1 ;; esac
}
no_members() { [ -z "$(pidns_members "$1")" ]; }

. "$JR_TOP_SRCDIR/tests/integration/live-leftovers.sh"

# ls_pid NAME - the runner pid jailrun ls gives for NAME.
ls_pid() {
	lv "$m" ls | awk -v n="$1" '$1 == n { print $2 }'
}

for m in $(jr_modes); do
	N=live-$$-$m
	sum="$JR_W/sum-$m.json"
	log="$JR_W/audit-$m.log"
	: >"$log"
	chmod 666 "$log"
	lab_logs_clear
	if [ "$m" = root ]; then owner=0; else owner=$JR_NOBODY_UID; fi

	# -------------------------------------------------------------- start
	# $(...) waits for every holder of its pipe: a runner (or init, or the
	# zygote) that kept the caller's stdout or stderr would hang here.
	expect_status 0 "$m: start returns once ready" \
		lv "$m" start "$N" --allow allowed.test:80 --json "$sum" --log "$log"
	STARTED+=("$m:$N")
	S="$(sock_dir "$m")/$N.sock"
	if [ "$(stat -c '%F %a %u' "$S" 2>&1)" = "socket 600 $owner" ] &&
		[ "$(stat -c '%a %u' "$(dirname "$S")" 2>&1)" = "700 $owner" ]; then
		ok "$m: the socket is 0600 in a 0700 directory, both of uid $owner"
	else
		fail "$m: socket $(stat -c '%F %a %u' "$S" 2>&1), directory $(stat -c '%a %u' "$(dirname "$S")" 2>&1)"
	fi
	RUNNER=$(ls_pid "$N")
	if [ -n "$RUNNER" ] && kill -0 "$RUNNER" 2>/dev/null; then
		ok "$m: ls lists $N with its runner ($RUNNER)"
	else
		fail "$m: ls does not list $N: $(lv "$m" ls 2>&1)"
	fi
	expect_status 0 "$m: ls" lv "$m" ls
	expect_output_has "$m: ls shows the mode" "allowlist, $m"
	INIT=$(pgrep -x -P "$RUNNER" jailrun-init | sed -n 1p || true)
	PIDNS=$(readlink "/proc/$INIT/ns/pid" 2>/dev/null || echo none)

	# ------------------------------------------------------ exec: basics
	exec_ok "state: the first writes a file" 0 "" sh -c 'echo kept-$$ >/tmp/state; cat /tmp/state'
	first=$OUT
	exec_ok "state: the second reads it" 0 "$first" cat /tmp/state
	OUT=$(echo stdin-line | lv "$m" exec "$N" -- sh -c 'cat; echo to-stderr >&2' 2>"$JR_W/err-$m") || true
	if [ "$OUT" = stdin-line ] && [ "$(cat "$JR_W/err-$m")" = to-stderr ]; then
		ok "$m: exec: stdin, stdout and stderr go through, each to its own"
	else
		fail "$m: exec: stdout '$OUT', stderr '$(cat "$JR_W/err-$m")'"
	fi
	# A terminal is never handed to the command: a pty of jailrun exec's
	# stands for it (its controlling terminal, not the caller's), and its
	# output passes the terminal filter, as a run's pty does.
	OUT=$(lv_tty "$m" exec "$N" -- sh -c 'printf "a\033]52;c;SGVsbG8=\007b\n"; test -t 0 && test -t 1 && echo is-a-tty; [ "$(cut -d" " -f7 /proc/self/stat)" != 0 ] && echo has-ctty' 2>&1) || true
	# (Not "^ab": script(1) may echo a byte of its own first, "^@",
	# when its stdin ends.)
	if grep -q 'ab' <<<"$OUT" && grep -q 'is-a-tty' <<<"$OUT" && grep -q 'has-ctty' <<<"$OUT" &&
		! grep -q 'SGVsbG8' <<<"$OUT"; then
		ok "$m: exec on a terminal: the command gets a pty of its own as its terminal, OSC 52 filtered out"
	else
		fail "$m: exec on a terminal: $(od -c <<<"$OUT" | head -5)"
	fi
	exec_ok "--env and --cwd" 0 "v=x y|/etc" --env "V=x y" --cwd /etc -- sh -c 'echo "v=$V|$(pwd)"'
	exec_ok "status 0" 0 "" true
	exec_ok "status 3" 3 "" sh -c 'exit 3'
	exec_ok "not found: 127" 127 "no-such-command-x" no-such-command-x
	exec_ok "not executable: 126" 126 "" /etc/passwd
	exec_ok "SIGKILL: 128+9" 137 "" sh -c 'kill -9 $$'
	exec_ok "a bad --cwd: 125" 125 "--cwd /nonexistent" --cwd /nonexistent -- true

	# A signal to jailrun exec reaches the command (its process group):
	# the shell waits on a child, and its trap runs as the signal comes.
	rm -f "$JR_W/sig-ready-$m"
	lv "$m" exec "$N" --env "MARK=live-sig-$$-$m" -- sh -c \
		"trap 'echo got-term; kill \$! 2>/dev/null; exit 5' TERM; sleep 600 & : >'$JR_W/sig-ready-$m'; wait" \
		>"$JR_W/sig-$m.out" 2>&1 &
	sigpid=$!
	if wait_until 60 test -e "$JR_W/sig-ready-$m"; then
		pkill -TERM -f -- "MARK=live-sig-$$-$m" || true
		st=0
		wait "$sigpid" || st=$?
		if [ "$st" = 5 ] && grep -q got-term "$JR_W/sig-$m.out"; then
			ok "$m: exec: SIGTERM to jailrun exec reaches the command (status 5 from its trap)"
		else
			fail "$m: exec: SIGTERM: status $st, output $(cat "$JR_W/sig-$m.out")"
		fi
	else
		fail "$m: exec: the signal test's command never started: $(cat "$JR_W/sig-$m.out")"
		kill "$sigpid" 2>/dev/null || true
	fi

	# Only the caller who started it (or root) runs commands in it: the
	# socket's directory (0700) says so, and so does the runner for each
	# connection (SO_PEERCRED). Another user is handed the socket here
	# past the directory: in a mount namespace of its own, root's socket
	# (opened to all by hand) is bind-mounted into that user's runtime
	# directory. The runner must still refuse it, saying whose it is, and
	# its command never runs. (Not by opening /run/jailrun itself: tests
	# that run beside this one start sandboxes there, and jailrun rightly
	# refuses a socket directory that is not 0700.)
	if [ "$m" = root ]; then
		rm -f "$JR_W/intruder-$m"
		IX="$JR_W/intruder-xdg"
		mkdir -m 755 "$IX"
		mkdir -m 700 "$IX/jailrun"
		: >"$IX/jailrun/$N.sock"
		chown -R "$JR_NOBODY_UID:$JR_NOBODY_GID" "$IX"
		chmod 0666 "/run/jailrun/$N.sock"
		expect_status 125 "$m: exec by another user, the socket handed to it: refused" \
			unshare -m --propagation private sh -c 'mount --bind "$1" "$2" && shift 2 && exec "$@"' sh \
			"/run/jailrun/$N.sock" "$IX/jailrun/$N.sock" \
			setpriv --reuid="$JR_NOBODY_UID" --regid="$JR_NOBODY_GID" --clear-groups -- \
			timeout -k 5 "$JR_RUN_LIMIT" env XDG_RUNTIME_DIR="$IX" "$JR" exec "$N" -- \
			touch "$JR_W/intruder-$m"
		expect_output_has "$m: ... by the runner, which says whose it is" \
			"refused: it belongs to uid 0: only that user and root may use it"
		chmod 0600 "/run/jailrun/$N.sock"
		if [ ! -e "$JR_W/intruder-$m" ]; then ok "$m: the other user's command never ran"
		else fail "$m: the other user's command ran in root's sandbox"; fi
	fi

	# ------------------------------------------------- exec: confinement
	exec_ok "no capabilities, seccomp, no_new_privs" 0 "CapEff:	0000000000000000" \
		grep -E '^(CapEff|CapPrm|Seccomp|NoNewPrivs):' /proc/self/status
	expect_output_has "$m: exec: Seccomp: 2 (filter mode)" "Seccomp:	2"
	expect_output_has "$m: exec: NoNewPrivs: 1" "NoNewPrivs:	1"
	expect_output_has "$m: exec: no permitted capabilities" "CapPrm:	0000000000000000"
	exec_ok "uid nobody" 0 "uid=$JR_NOBODY_UID" id
	# The unix socket guard holds for exec'd commands: a host socket
	# (under /var/lib, which the layout shows read-only) that nobody
	# reaches on the host is refused inside.
	expect_status 0 "$m: baseline: nobody reaches the host unix socket" \
		setpriv --reuid="$JR_NOBODY_UID" --regid="$JR_NOBODY_GID" --clear-groups -- \
		"$PYTHON" -c "$UNIX_CONNECT" "$HOSTSOCK"
	exec_ok "the host unix socket is refused (the guard)" 1 "ConnectionRefusedError" \
		"$PYTHON" -c "$UNIX_CONNECT" "$HOSTSOCK"
	# The zygote (the command's parent) is undumpable: a command of the
	# same uid can read neither its environment nor its fds.
	exec_ok "the zygote is the parent" 0 "jailrun-zygote" sh -c 'cat /proc/$PPID/comm'
	exec_ok "the zygote's environ and fds are refused" 0 "both refused" \
		sh -c 'cat /proc/$PPID/environ >/dev/null 2>&1 || ls /proc/$PPID/fd >/dev/null 2>&1 || echo both refused'
	exec_ok "in the sandbox's pid namespace" 0 "$PIDNS" readlink /proc/self/ns/pid
	exec_ok "allowed.test reached through the relay" 0 "served-by: allowed.test" \
		curl -sS -m 10 http://allowed.test/live-allowed
	exec_ok "other.test refused by the proxy (403)" 0 403 \
		curl -sS -m 10 -o /dev/null -w '%{http_code}' http://other.test/live-denied
	exec_ok "other.test refused directly" '1' "" \
		sh -c "curl --noproxy '*' -sS -m 10 http://other.test/live-direct >/dev/null 2>&1 || exit 1"
	never_served "$m: exec" other.test

	# -------------------------------------------------- refusals at start
	expect_status 125 "$m: a name already live is refused" lv "$m" start "$N" --net none
	expect_output_has "$m: ... with a message" "already runs"
	expect_status 125 "$m: a bad name is refused" lv "$m" start "../x" --net none
	expect_output_has "$m: ... naming the rule" "1 to 64 characters"
	expect_status 125 "$m: start with a command is refused" lv "$m" start "$N-c" --net none -- true
	expect_output_has "$m: ... saying to use exec" "takes no command"
	[ ! -e "$(sock_dir "$m")/$N-c.sock" ] && ok "$m: ... and left no socket" ||
		fail "$m: a refused start left $(sock_dir "$m")/$N-c.sock"
	expect_status 125 "$m: exec in a sandbox that does not exist" lv "$m" exec "$N-none" -- true
	expect_output_has "$m: ... says so" "no live sandbox named"

	# --------------------------------------------------------------- stop
	# Started in the background, it keeps what it says from now on in
	# NAME.log beside its socket (so far: nothing).
	got=$(stat -c '%a %s' "${S%.sock}.log" 2>&1 || true)
	[ "$got" = "600 0" ] && ok "$m: a running sandbox has an empty NAME.log, mode 0600" ||
		fail "$m: ${S%.sock}.log: '$got', not '600 0'"
	# Its netns and its relay's: at least 2.
	left_record "$m: stop" "$JR_W/left-$m.json" "${RUNNER:-0}" 2
	expect_status 0 "$m: stop" lv "$m" stop "$N"
	left_check "$m: stop leaves nothing" "$JR_W/left-$m.json"
	alive "$RUNNER" && fail "$m: the runner $RUNNER outlived stop" ||
		ok "$m: the runner is gone when stop returns"
	members=$(pidns_members "$PIDNS")
	[ "$PIDNS" != none ] && [ -z "$members" ] && ok "$m: no process of the sandbox's pid namespace is left" ||
		fail "$m: pid namespace $PIDNS: left $members"
	[ ! -e "$S" ] && ok "$m: the socket is gone" || fail "$m: $S is left"
	[ ! -e "${S%.sock}.log" ] && ok "$m: ... and its log, with nothing in it" ||
		fail "$m: ${S%.sock}.log is left: $(cat "${S%.sock}.log" 2>&1)"
	tables=$(lab_host nft list tables 2>&1 | grep -i jailrun || true)
	[ -z "$tables" ] && ok "$m: no jailrun nft table in the lab host" ||
		fail "$m: nft tables left: $tables"
	if "$PYTHON" -c 'import json,sys; s=json.load(open(sys.argv[1])); assert s["ended"]=="stopped" and s["exit_status"]==0, s' "$sum" 2>"$JR_W/sum-err"; then
		ok "$m: the JSON summary is written at stop, \"ended\":\"stopped\", status 0"
	else
		fail "$m: summary: $(cat "$sum" "$JR_W/sum-err" 2>&1)"
	fi
	audit_has "$m: the audit log ends with the sandbox's end" "$log" '"event":"lifecycle"' '"detail":"stopped"'
	expect_status 0 "$m: the summary validates against docs/schema" \
		"$PYTHON" "$JR_TOP_SRCDIR/tests/integration/schemacheck.py" "$JR_TOP_SRCDIR/docs/schema/summary.schema.json" "$sum"
	expect_status 0 "$m: the audit log validates against docs/schema" \
		"$PYTHON" "$JR_TOP_SRCDIR/tests/integration/schemacheck.py" "$JR_TOP_SRCDIR/docs/schema/audit.schema.json" --lines "$log"
	audit_has "$m: the audit log has the exec'd command's connection" "$log" 'allowed.test'
	expect_status 0 "$m: ls after stop" lv "$m" ls
	grep -qF -- "$N " <<<"$OUT" && fail "$m: ls still lists $N: $OUT" || ok "$m: ls no longer lists $N"

	# ---------------------------------------------------------- Landlock
	# Outside the lab (--net none needs none), where root's --pids gets a
	# cgroup, to see it go at stop.
	limits=()
	[ "$m" = root ] && limits=(--pids 200)
	expect_status 0 "$m: start under --fs host --landlock require" \
		lvh "$m" start "$N-ll" --fs host --landlock require --net none "${limits[@]}"
	STARTED+=("$m:$N-ll")
	RUNNER=$(ls_pid "$N-ll")
	INIT=$(pgrep -x -P "${RUNNER:-0}" jailrun-init | sed -n 1p || true)
	# v1 (a pids hierarchy) or v2: the sandbox's own is named jailrun.*
	CGROUP=$(grep -o '/jailrun[^/]*$' "/proc/${INIT:-0}/cgroup" 2>/dev/null | sed -n 1p || true)
	if setpriv --reuid="$JR_NOBODY_UID" --regid="$JR_NOBODY_GID" --clear-groups -- \
		sh -c "echo x >'$OUTSIDE/host-$m'"; then
		ok "$m: baseline: nobody may write $OUTSIDE on the host"
	else
		fail "$m: baseline: nobody cannot write $OUTSIDE on the host"
	fi
	N=$N-ll exec_ok "a write outside the working directory refused (Landlock)" 1 "Permission denied" \
		sh -c "echo x >'$OUTSIDE/in-$m' || exit 1"
	[ ! -e "$OUTSIDE/in-$m" ] && ok "$m: ... and nothing was written" || fail "$m: $OUTSIDE/in-$m was written"
	N=$N-ll exec_ok "a write in the working directory works" 0 "" sh -c "echo x >'$JR_W/ll-$m'"
	left_record "$m: stop (outside the lab)" "$JR_W/left-ll-$m.json" "${RUNNER:-0}" 1
	expect_status 0 "$m: stop the Landlock sandbox" lv "$m" stop "$N-ll"
	left_check "$m: stop leaves nothing (outside the lab)" "$JR_W/left-ll-$m.json"
	if [ "$m" = root ]; then
		if [ -n "$CGROUP" ] && [ -z "$(find /sys/fs/cgroup -maxdepth 3 -name "${CGROUP#/}" 2>/dev/null)" ]; then
			ok "$m: the sandbox's cgroup ($CGROUP) is gone"
		else
			fail "$m: cgroup '$CGROUP' left (or never seen)"
		fi
	fi

	# ------------------------------------------------- SIGKILL the runner
	# Root's with --pids (outside the lab, where cgroups are mounted): a
	# killed runner cannot remove its cgroup; the next runner that makes
	# one beside it does.
	expect_status 0 "$m: start a sandbox to kill" lvh "$m" start "$N-k" --net none "${limits[@]}"
	STARTED+=("$m:$N-k")
	RUNNER=$(ls_pid "$N-k")
	INIT=$(pgrep -x -P "$RUNNER" jailrun-init | sed -n 1p || true)
	PIDNS=$(readlink "/proc/$INIT/ns/pid" 2>/dev/null || echo none)
	CGROUP=$(grep -o '/jailrun[^/]*$' "/proc/${INIT:-0}/cgroup" 2>/dev/null | sed -n 1p || true)
	# (Looked for before the kill: once the runner is reaped, any run with
	# limits beside it, another test's too, may sweep it.)
	if [ "$m" = root ]; then
		if [ -n "$CGROUP" ] && [ -n "$(find /sys/fs/cgroup -maxdepth 3 -name "${CGROUP#/}" 2>/dev/null)" ]; then
			ok "$m: the sandbox to kill has a cgroup ($CGROUP)"
		else
			fail "$m: the sandbox to kill has no cgroup ('$CGROUP' not found)"
		fi
	fi
	left_record "$m: the runner's SIGKILL" "$JR_W/left-k-$m.json" "${RUNNER:-0}" 1
	kill -9 "${RUNNER:-none}" || fail "$m: no runner to kill (ls: $(lv "$m" ls 2>&1))"
	if [ "$PIDNS" != none ] && wait_until 60 no_members "$PIDNS"; then
		ok "$m: a SIGKILLed runner takes its sandbox with it"
	else
		fail "$m: after the runner's SIGKILL, left: $(pidns_members "$PIDNS")"
	fi
	expect_status 125 "$m: exec after the runner died" lv "$m" exec "$N-k" -- true
	# A zombie still holds its pid: the sweep judges only a reaped runner.
	runner_reaped() { ! kill -0 "${RUNNER:-0}" 2>/dev/null; }
	wait_until 60 runner_reaped || fail "$m: the killed runner $RUNNER was never reaped"
	expect_status 0 "$m: the same name starts again over the dead socket" lvh "$m" start "$N-k" --net none "${limits[@]}"
	left_check "$m: a SIGKILLed runner leaves nothing once the next start has run" "$JR_W/left-k-$m.json"
	if [ "$m" = root ]; then
		if [ -z "$(find /sys/fs/cgroup -maxdepth 3 -name "${CGROUP#/}" 2>/dev/null)" ]; then
			ok "$m: the next runner with --pids removed the killed runner's cgroup"
		else
			fail "$m: the killed runner's cgroup '$CGROUP' is left after the next start"
		fi
	fi
	expect_status 0 "$m: ... and stops" lv "$m" stop "$N-k"

	# ------------------------------------------------------- --idle-stop
	# The idle time is also the window for the exec to arrive after start
	# returns: 3 s is ample even under make -j on busy cores and sanitizers.
	expect_status 0 "$m: start with --idle-stop 3" lvh "$m" start "$N-idle" --idle-stop 3 --net none
	STARTED+=("$m:$N-idle")
	# A command that runs longer than the idle time holds the sandbox
	# (the sleep makes the condition; nothing waits on it).
	N=$N-idle exec_ok "--idle-stop: a running command holds the sandbox" 0 "survived" \
		sh -c 'sleep 4; echo survived'
	# Polled with jailrun ls, which connects to every sandbox: a client
	# that runs no command must not hold it (a monitor polling ls would
	# keep a forgotten sandbox for ever).
	idle_gone() { lvh "$m" ls >/dev/null 2>&1 || true; test ! -e "$(sock_dir "$m")/$N-idle.sock"; }
	if wait_until 60 idle_gone; then
		ok "$m: --idle-stop: the idle sandbox stopped by itself, jailrun ls polling it"
	else
		fail "$m: --idle-stop: still there: $(lv "$m" ls 2>&1)"
	fi
	expect_status 125 "$m: --idle-stop without a valid value is refused" lvh "$m" start "$N-idle2" --idle-stop x
	expect_output_has "$m: ... naming the option" "--idle-stop x"

	# ------------------------------------------------------ --foreground
	lv "$m" start "$N-fg" --foreground --net none >"$JR_W/fg-$m.out" 2>&1 &
	fgpid=$!
	STARTED+=("$m:$N-fg")
	# The socket exists before the sandbox is ready; a request that comes
	# early waits in it until the zygote runs.
	wait_until 60 test -S "$(sock_dir "$m")/$N-fg.sock" ||
		fail "$m: --foreground: no socket: $(cat "$JR_W/fg-$m.out")"
	N=$N-fg exec_ok "--foreground serves" 0 "fg-ok" echo fg-ok
	# As a service manager stops it: SIGTERM to the runner.
	RUNNER=$(ls_pid "$N-fg")
	kill -TERM "${RUNNER:-none}" || fail "$m: --foreground: no runner in ls"
	st=0
	wait "$fgpid" || st=$?
	[ "$st" = 0 ] && ok "$m: the foreground jailrun stops on SIGTERM and exits 0" ||
		fail "$m: the foreground jailrun exited $st: $(cat "$JR_W/fg-$m.out")"
	[ ! -e "$(sock_dir "$m")/$N-fg.sock" ] && ok "$m: ... and removed its socket" ||
		fail "$m: $(sock_dir "$m")/$N-fg.sock left after SIGTERM"
done
finish
