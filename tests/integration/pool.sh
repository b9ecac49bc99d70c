#!/bin/bash
# Warm pools (jailrun start NAME --pool N), in a lab, as root and rootless.
# Fails if: start --pool does not return 0 once its sandboxes are ready;
# ls does not show the pool with its ready/busy counts, or shows its
# members; an exec sees the state of an earlier one (a file it wrote, a
# background process it left); an exec's status does not pass through;
# an allowed lab host is not reached from a pool's sandbox, or a denied
# one is; --json without {n} is not refused; each task's JSON summary is
# not written to its own {n} file; stop leaves a process of the pool
# (manager, member runners, sandboxes), a socket, or an nft table in the
# lab host; a SIGKILLed manager leaves a process, a member's socket or an
# nft table behind, or blocks a new start of the same name; a
# --foreground pool does not say READY=1 exactly once (its members must
# not), or does not exit 0 at stop.
. "${JR_TOP_SRCDIR:-$(dirname "$0")/../..}/tests/lib.sh"
. "$JR_TOP_SRCDIR/tests/lab/lib.sh"
jr_require_sandbox
command -v nft >/dev/null || skip "needs nft (to look for leftover tables)"
lab_setup --timeout 600 pool # a hang guard, not a time limit
lab_on_exit jr_cleanup_tmp
lab_on_exit pool_cleanup

XDG="$JR_W/xdg" # the rootless caller's XDG_RUNTIME_DIR
# A python3 every caller can run (a pyenv shim under /root is not).
if [ -x /usr/bin/python3 ]; then PYTHON=/usr/bin/python3; else PYTHON=$(command -v python3); fi
mkdir -m 700 "$XDG"
[ "$(id -u)" -ne 0 ] || chown "$JR_NOBODY_UID:$JR_NOBODY_GID" "$XDG"
STARTED=()
NPIDS=()
pool_cleanup() {
	local s
	for s in "${STARTED[@]}"; do
		lv "${s%%:*}" stop "${s#*:}" >/dev/null 2>&1 || true
	done
	for s in "${NPIDS[@]}"; do kill "$s" 2>/dev/null || true; done
}

# lv CALLER ARGS... - jailrun in the lab host as CALLER, with LV_ENV's
# NAME=VALUE words in its environment.
LV_ENV=()
lv() {
	local c=$1
	shift
	case $c in
	root) lab_host timeout -k 5 "$JR_RUN_LIMIT" env -C "$JR_TMP" "${LV_ENV[@]}" "$JR" "$@" ;;
	rootless) lab_host_as nobody timeout -k 5 "$JR_RUN_LIMIT" \
		env -C "$JR_TMP" HOME="$JR_HOME" XDG_RUNTIME_DIR="$XDG" "${LV_ENV[@]}" "$JR" "$@" ;;
	esac
}
sock_dir() {
	if [ "$1" = root ]; then echo /run/jailrun; else echo "$XDG/jailrun"; fi
}
# descendants PID - PID and every process under it.
descendants() {
	local c
	echo "$1"
	for c in $(pgrep -P "$1" 2>/dev/null); do descendants "$c"; done
}
none_alive() {
	local p
	for p in "$@"; do
		[ -e "/proc/$p" ] && [ "$(cut -d' ' -f3 "/proc/$p/stat" 2>/dev/null)" != Z ] && return 1
	done
	return 0
}
ls_pid() { lv "$m" ls | awk -v n="$1" '$1 == n { print $2 }'; }
pool_ready() { lv "$m" ls | grep -q "^$1 .*pool: $2 ready"; }

for m in $(jr_modes); do
	N=pool-$$-$m
	D="$(sock_dir "$m")"
	mkdir -p "$JR_W/json-$m"
	chmod 777 "$JR_W/json-$m"
	lab_logs_clear

	expect_status 125 "$m: --json without {n} is refused" \
		lv "$m" start "$N" --pool 2 --net none --json "$JR_W/x.json"
	expect_output_has "$m: ... saying to use {n}" "{n}"

	expect_status 0 "$m: start --pool 2 returns once ready" \
		lv "$m" start "$N" --pool 2 --allow allowed.test:80 --json "$JR_W/json-$m/task-{n}.json"
	STARTED+=("$m:$N")
	MGR=$(ls_pid "$N")
	# Without a pool, each wait below would run out: one failure is enough.
	[ -n "$MGR" ] || {
		fail "$m: no pool named $N in ls: $(lv "$m" ls 2>&1)"
		continue
	}
	expect_status 0 "$m: ls" lv "$m" ls
	expect_output_has "$m: ls shows the pool, 2 ready" "pool: 2 ready, 0 busy"
	grep -q '^\.' <<<"$OUT" && fail "$m: ls shows the members: $OUT" || ok "$m: ls does not list the pool's members"

	# ---------------------------------------------------- five fresh tasks
	for t in 1 2 3 4 5; do
		expect_status 0 "$m: task $t sees no file of an earlier task" \
			lv "$m" exec "$N" -- sh -c 'test ! -e /tmp/mark'
		wait_until 60 pool_ready "$N" 2 || fail "$m: the pool never got back to 2 ready: $(lv "$m" ls 2>&1)"
		expect_status 0 "$m: task $t leaves a file and a background process" \
			lv "$m" exec "$N" -- sh -c 'echo x >/tmp/mark; setsid sleep 100000 </dev/null >/dev/null 2>&1 & exit 0'
		wait_until 60 pool_ready "$N" 2 || fail "$m: the pool never got back to 2 ready"
		expect_status 0 "$m: task $t: no process of an earlier task" \
			lv "$m" exec "$N" -- sh -c '! cat /proc/[0-9]*/comm 2>/dev/null | grep -qx sleep'
	done
	wait_until 60 pool_ready "$N" 2 || fail "$m: the pool never got back to 2 ready"
	expect_status 3 "$m: an exec's status passes through (3)" lv "$m" exec "$N" -- sh -c 'exit 3'
	expect_status 137 "$m: ... and a signal's (128+9)" lv "$m" exec "$N" -- sh -c 'kill -9 $$'
	expect_status 127 "$m: ... and a missing command's (127)" lv "$m" exec "$N" -- /no/such/command
	expect_status 0 "$m: allowed.test reached from a pool's sandbox" \
		lv "$m" exec "$N" -- curl -sS -m 10 -o /dev/null http://allowed.test/pool-allowed
	expect_status 1 "$m: other.test refused directly" lv "$m" exec "$N" -- \
		sh -c "curl --noproxy '*' -sS -m 10 http://other.test/pool-direct >/dev/null 2>&1 || exit 1"
	OUT=$(lv "$m" exec "$N" -- curl -sS -m 10 -o /dev/null -w '%{http_code}' http://other.test/pool-denied 2>&1) || true
	[ "$OUT" = 403 ] && ok "$m: other.test refused by the proxy (403)" || fail "$m: other.test through the proxy: $OUT"
	never_served "$m: pool" other.test

	# ---------------------------------------------------------------- stop
	PROCS=$(descendants "${MGR:-0}")
	expect_status 0 "$m: stop" lv "$m" stop "$N"
	# shellcheck disable=SC2086
	none_alive $PROCS && ok "$m: stop leaves no process of the pool" ||
		fail "$m: left after stop: $(ps -o pid,args -p "$(echo $PROCS | tr ' ' ,)" 2>&1)"
	left=$(ls -a "$D" 2>/dev/null | grep -E "^(\.pool-$MGR-.*|$N)\.sock\$" || true)
	[ -z "$left" ] && ok "$m: stop leaves no socket" || fail "$m: sockets left: $left"
	tables=$(lab_host nft list tables 2>&1 | grep -i jailrun || true)
	[ -z "$tables" ] && ok "$m: no jailrun nft table in the lab host" || fail "$m: nft tables left: $tables"
	n=$(find "$JR_W/json-$m" -name 'task-*.json' | wc -l)
	[ "$n" -ge 20 ] && ok "$m: a JSON summary per sandbox ($n files)" || fail "$m: $n JSON summaries: $(ls "$JR_W/json-$m")"

	# ---------------------------------------------- SIGKILL of the manager
	expect_status 0 "$m: start a pool to kill" lv "$m" start "$N-k" --pool 2 --net none
	STARTED+=("$m:$N-k")
	MGR=$(ls_pid "$N-k")
	PROCS=$(descendants "${MGR:-0}")
	[ "$(wc -w <<<"$PROCS")" -ge 5 ] && ok "$m: the manager has its members" || fail "$m: processes: $PROCS"
	kill -9 "${MGR:-none}" || fail "$m: no manager to kill"
	# shellcheck disable=SC2086
	if wait_until 60 none_alive $PROCS; then
		ok "$m: a SIGKILLed manager takes every member with it"
	else
		fail "$m: left after the manager's SIGKILL: $(ps -o pid,args -p "$(echo $PROCS | tr ' ' ,)" 2>&1)"
	fi
	tables=$(lab_host nft list tables 2>&1 | grep -i jailrun || true)
	[ -z "$tables" ] && ok "$m: ... and no nft table" || fail "$m: nft tables left: $tables"
	# The member runners stop as on jailrun stop: their sockets go too.
	if wait_until 60 sh -c "! ls -a '$D' | grep -q '^\.pool-$MGR-'"; then
		ok "$m: ... and no socket of its members"
	else
		fail "$m: member sockets left: $(ls -a "$D" | grep "^\.pool-$MGR-")"
	fi
	expect_status 125 "$m: exec after the manager died" lv "$m" exec "$N-k" -- true
	expect_status 0 "$m: the same name starts again" lv "$m" start "$N-k" --pool 1 --net none
	expect_status 0 "$m: ... and stops" lv "$m" stop "$N-k"

	# ------------------------------------- --foreground, a service manager
	# A datagram socket stands for systemd's: one READY=1 (the pool's,
	# once both members are ready), never one from a member.
	NS="$JR_W/notify-$m.sock"
	"$PYTHON" -c 'import os, socket, sys
s = socket.socket(socket.AF_UNIX, socket.SOCK_DGRAM)
s.bind(sys.argv[1])
os.chmod(sys.argv[1], 0o777)
open(sys.argv[2], "w").close()
with open(sys.argv[2], "a") as out:
    while True:
        out.write(s.recv(4096).decode().replace("\n", " ") + "\n")
        out.flush()' "$NS" "$JR_W/notify-$m.log" &
	NPID=$!
	NPIDS+=("$NPID")
	wait_until 30 test -e "$JR_W/notify-$m.log" || fail "$m: the notify socket never listened"
	LV_ENV=(NOTIFY_SOCKET="$NS")
	lv "$m" start "$N-fg" --pool 2 --foreground --net none >"$JR_W/fg-$m.out" 2>&1 &
	FG=$!
	LV_ENV=()
	STARTED+=("$m:$N-fg")
	wait_until 60 grep -q READY=1 "$JR_W/notify-$m.log" || fail "$m: --foreground: no READY=1: $(cat "$JR_W/fg-$m.out")"
	expect_status 0 "$m: --foreground: the pool serves" lv "$m" exec "$N-fg" -- true
	expect_status 0 "$m: --foreground: stop" lv "$m" stop "$N-fg"
	st=0
	wait "$FG" || st=$?
	[ "$st" = 0 ] && ok "$m: the foreground pool exits 0 at stop" || fail "$m: the foreground pool exited $st: $(cat "$JR_W/fg-$m.out")"
	wait_until 60 grep -q STOPPING=1 "$JR_W/notify-$m.log" || fail "$m: --foreground: no STOPPING=1"
	kill "$NPID" 2>/dev/null || true
	[ "$(grep -c READY=1 "$JR_W/notify-$m.log")" = 1 ] && ok "$m: --foreground: READY=1 once, from the pool alone" ||
		fail "$m: notifications: $(cat "$JR_W/notify-$m.log")"
done
finish
