#!/bin/bash
# Warm pools (jailrun start NAME --pool N), in a lab, as root and rootless.
# Fails if: start --pool does not return 0 once its sandboxes are ready;
# ls does not show the pool with its ready/busy counts, or shows its
# members; an exec sees the state of an earlier one (a file it wrote, a
# background process it left); an exec's status does not pass through;
# an allowed lab host is not reached from a pool's sandbox, or a denied
# one is; --json without {n} is not refused; with --ask and no
# --control, the pool serves no POOL.ctl, jailrun ctl POOL does not list
# a task's held request as K.N or deny it (the task must get 403), takes
# a live change or a bare id, or stop leaves a .sock or .ctl of it; each
# task's JSON summary is not written to its own {n} file;
# stop leaves a process of the pool (manager, member runners, sandboxes),
# a socket, or an nft table in the lab host; a SIGKILLed manager leaves
# a process, a member's socket or an nft table behind, or blocks a new
# start of the same name; a
# --foreground pool does not say READY=1 exactly once (its members must
# not), or does not exit 0 at stop.
# Also (leftovers.py, as root) if, after stop or the manager's SIGKILL,
# a process the pool had still runs, a PID or network namespace its
# sandboxes made (the relay's too) is still referenced, a cgroup directory
# of a sandbox is left (root: --pids), a mount was added to the host's
# mount namespace, or a task's JSON summary does not say "ended":"stopped";
# if a member whose init or runner is SIGKILLed, idle or running a task,
# is not replaced (the pool back to N ready, by jailrun ls), or its task's
# jailrun exec does not end with 125 and "ended before the command did",
# or a killed runner's cgroup is left; if a --foreground pool with
# WATCHDOG_USEC sends no WATCHDOG=1 pings, or one after STOPPING=1, or
# READY=1 before N sandboxes are ready; if --idle-stop is refused with
# --pool, stops a pool while a task runs, or does not stop an idle one;
# if (rootless: its socket directory is its own) a pool whose members
# can no longer start does not stop, its NAME.log does not say why, or
# jailrun exec does not name that log; if stop leaves a NAME.log with
# nothing in it.
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
pool_ready() { grep -q "^$1 .*pool: $2 ready" <<<"$(lv "$m" ls)"; }

# lvh CALLER ARGS... - lv outside the lab, where /sys/fs/cgroup is mounted
# (ip netns exec's mount namespace has none) and the runners are in the
# host's mount namespace: for --net none pools with --pids.
lvh() {
	local c=$1
	shift
	case $c in
	root) timeout -k 5 "$JR_RUN_LIMIT" env -C "$JR_TMP" "$JR" "$@" ;;
	rootless) setpriv --reuid="$JR_NOBODY_UID" --regid="$JR_NOBODY_GID" --clear-groups -- \
		timeout -k 5 "$JR_RUN_LIMIT" env -C "$JR_TMP" HOME="$JR_HOME" XDG_RUNTIME_DIR="$XDG" "$JR" "$@" ;;
	esac
}

. "$JR_TOP_SRCDIR/tests/integration/live-leftovers.sh"
# task_up PATTERN KIND - the jailrun-init (KIND init) or the runner (KIND
# runner) of the sandbox where a process matching PATTERN runs.
task_up() {
	local p
	p=$(pgrep -f -- "$1" | sed -n 1p)
	while [ -n "$p" ] && [ "$p" -gt 1 ] && [ "$(cat "/proc/$p/comm" 2>/dev/null)" != jailrun-init ]; do
		p=$(ps -o ppid= -p "$p" | tr -d ' ')
	done
	[ -n "$p" ] && [ "$p" -gt 1 ] || return 1
	if [ "$2" = init ]; then echo "$p"; else ps -o ppid= -p "$p" | tr -d ' '; fi
}
# members KIND - the init (KIND init) or runner (KIND runner) of each
# sandbox of the pool whose manager is $MGR.
members() {
	local r
	for r in $(pgrep -P "$MGR" || true); do
		if [ "$1" = init ]; then pgrep -x -P "$r" jailrun-init || true; else echo "$r"; fi
	done
}

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

	# ------------------------------------- --control and --ask in a pool
	# Each sandbox has its own live policy socket, named with {n}; one
	# path for all would make the second sandbox's start fail.
	expect_status 125 "$m: --control without {n} is refused" \
		lv "$m" start "$N-c" --pool 2 --allow allowed.test:80 --control "$JR_W/json-$m/c.sock"
	expect_output_has "$m: ... saying to use {n}" "{n}"
	expect_status 125 "$m: --control-fd is refused with a pool" \
		lv "$m" start "$N-c" --pool 2 --allow allowed.test:80 --control-fd 0
	expect_output_has "$m: ... naming it" "--control-fd"
	expect_status 0 "$m: start --pool 2 --control ...-{n}.sock --ask" \
		lv "$m" start "$N-c" --pool 2 --allow allowed.test:80 --control "$JR_W/json-$m/c-{n}.sock" --ask
	STARTED+=("$m:$N-c")
	lv "$m" exec "$N-c" -- curl -sS -m 100 -o /dev/null -w '%{http_code}' http://other.test/pool-ask \
		>"$JR_W/ask-$m.out" 2>&1 &
	ASKPID=$!
	# held_sock - the socket of the sandbox holding other.test's request,
	# into $JR_W/held.sock, with its id in $JR_W/held.id.
	held_sock() {
		local s
		for s in "$JR_W/json-$m"/c-*.sock; do
			lv "$m" ctl "$s" pending 2>/dev/null | python3 -c 'import json, sys
ids = [e["id"] for e in json.loads(sys.stdin.read())["pending"] if e["host"] == "other.test"]
sys.exit(not ids) if not ids else print(ids[0])' >"$JR_W/held.id" 2>/dev/null &&
				echo "$s" >"$JR_W/held.sock" && return 0
		done
		return 1
	}
	if wait_until 120 held_sock; then
		ok "$m: a task's refused request is held, listed on its sandbox's socket"
		expect_status 0 "$m: ... approved there" lv "$m" ctl "$(cat "$JR_W/held.sock")" approve "$(cat "$JR_W/held.id")"
	else
		fail "$m: the task's request to other.test was never held on any c-{n}.sock"
	fi
	wait "$ASKPID" || true
	[ "$(cat "$JR_W/ask-$m.out")" = 200 ] && ok "$m: ... and the task reached other.test" ||
		fail "$m: the approved task's curl: $(cat "$JR_W/ask-$m.out")"
	expect_status 0 "$m: stop the pool with --control" lv "$m" stop "$N-c"

	# ------------------------------- --ask on the pool's own socket
	# Without --control, each sandbox holds its requests on a socket of
	# its own and the pool serves POOL.ctl: jailrun ctl POOL lists every
	# task's held requests, named K.N, and decides them.
	expect_status 0 "$m: start --pool 2 --ask, no --control" \
		lv "$m" start "$N-a" --pool 2 --allow allowed.test:80 --ask
	STARTED+=("$m:$N-a")
	MGR_A=$(ls_pid "$N-a")
	[ -S "$D/$N-a.ctl" ] && ok "$m: the pool serves $N-a.ctl" || fail "$m: no $D/$N-a.ctl: $(ls -a "$D")"
	lv "$m" exec "$N-a" -- curl -sS -m 100 -o /dev/null -w '%{http_code}' http://other.test/pool-own \
		>"$JR_W/own-$m.out" 2>&1 &
	OWNPID=$!
	pool_held() {
		lv "$m" ctl "$N-a" pending 2>/dev/null | python3 -c 'import json, re, sys
ids = [e["id"] for e in json.loads(sys.stdin.read())["pending"] if e["host"] == "other.test"]
sys.exit(1) if not ids or not re.fullmatch(r"[1-9][0-9]*\.[1-9][0-9]*", ids[0]) else print(ids[0])' >"$JR_W/own.id" 2>/dev/null
	}
	if wait_until 120 pool_held; then
		ok "$m: jailrun ctl POOL pending lists the task's held request as $(cat "$JR_W/own.id")"
	else
		fail "$m: the task's request never listed on the pool's socket: $(lv "$m" ctl "$N-a" pending 2>&1)"
	fi
	expect_status 1 "$m: the pool's socket refuses a live change" lv "$m" ctl "$N-a" allow x.test
	expect_output_has "$m: ... saying what it takes" "a pool's socket takes pending, approve and deny"
	expect_status 1 "$m: ... and an id without its sandbox" lv "$m" ctl "$N-a" deny 1
	expect_status 0 "$m: deny it on the pool's socket" lv "$m" ctl "$N-a" deny "$(cat "$JR_W/own.id")"
	expect_output_has "$m: ... answered with the pool's id" "\"id\":\"$(cat "$JR_W/own.id")\""
	st=0
	wait "$OWNPID" || st=$?
	[ "$st" = 0 ] && [ "$(cat "$JR_W/own-$m.out")" = 403 ] && ok "$m: ... and the task got 403" ||
		fail "$m: the denied task's curl: status $st, $(cat "$JR_W/own-$m.out")"
	expect_status 0 "$m: stop the pool with --ask" lv "$m" stop "$N-a"
	left=$(ls -a "$D" 2>/dev/null | grep -E "^(\.pool-${MGR_A:-none}-.*|$N-a)\.(sock|ctl|log)\$" || true)
	[ -z "$left" ] && ok "$m: stop leaves no file of it (.sock, .ctl, an empty .log)" || fail "$m: left: $left"

	# ---------------------------------------------------------------- stop
	PROCS=$(descendants "${MGR:-0}")
	# Two sandboxes, each with its netns and its relay's: at least 4.
	left_record "$m: stop" "$JR_W/left-$m.json" "$MGR" 4
	expect_status 0 "$m: stop" lv "$m" stop "$N"
	left_check "$m: stop leaves nothing" "$JR_W/left-$m.json"
	# shellcheck disable=SC2086
	none_alive $PROCS && ok "$m: stop leaves no process of the pool" ||
		fail "$m: left after stop: $(ps -o pid,args -p "$(echo $PROCS | tr ' ' ,)" 2>&1)"
	left=$(ls -a "$D" 2>/dev/null | grep -E "^(\.pool-$MGR-.*|$N)\.(sock|log)\$" || true)
	[ -z "$left" ] && ok "$m: stop leaves no socket, and no log (nothing was said)" || fail "$m: left: $left"
	tables=$(lab_host nft list tables 2>&1 | grep -i jailrun || true)
	[ -z "$tables" ] && ok "$m: no jailrun nft table in the lab host" || fail "$m: nft tables left: $tables"
	n=$(find "$JR_W/json-$m" -name 'task-*.json' | wc -l)
	[ "$n" -ge 20 ] && ok "$m: a JSON summary per sandbox ($n files)" || fail "$m: $n JSON summaries: $(ls "$JR_W/json-$m")"
	# Each sandbox was stopped by the pool (after its task, or at the
	# pool's stop), never by its command: "stopped", status 0.
	if "$PYTHON" -c 'import json, sys
for f in sys.argv[1:]:
    s = json.load(open(f))
    assert s["ended"] == "stopped" and s["exit_status"] == 0, (f, s["ended"], s["exit_status"])' \
		"$JR_W/json-$m"/task-*.json 2>"$JR_W/json-err-$m"; then
		ok "$m: every sandbox's summary says \"ended\":\"stopped\", status 0"
	else
		fail "$m: summaries: $(cat "$JR_W/json-err-$m")"
	fi

	# ---------------------------------------------- SIGKILL of the manager
	expect_status 0 "$m: start a pool to kill" lv "$m" start "$N-k" --pool 2 --net none
	STARTED+=("$m:$N-k")
	MGR=$(ls_pid "$N-k")
	PROCS=$(descendants "${MGR:-0}")
	[ "$(wc -w <<<"$PROCS")" -ge 5 ] && ok "$m: the manager has its members" || fail "$m: processes: $PROCS"
	# A task runs in one of them when the manager dies.
	rm -f "$JR_W/mk-ready-$m"
	lv "$m" exec "$N-k" -- sh -c ": >'$JR_W/mk-ready-$m'; exec sleep 100077" >"$JR_W/mk-$m.out" 2>&1 &
	mkpid=$!
	wait_until 60 test -e "$JR_W/mk-ready-$m" || fail "$m: the task never started: $(cat "$JR_W/mk-$m.out")"
	PROCS=$(descendants "${MGR:-0}")
	left_record "$m: the manager's SIGKILL" "$JR_W/left-k-$m.json" "$MGR" 2
	kill -9 "${MGR:-none}" || fail "$m: no manager to kill"
	st=0
	wait "$mkpid" || st=$?
	if [ "$st" = 125 ] && grep -q "ended before the command did" "$JR_W/mk-$m.out"; then
		ok "$m: the task's jailrun exec ends with 125 when the manager dies"
	else
		fail "$m: the task's jailrun exec: status $st, $(cat "$JR_W/mk-$m.out")"
	fi
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
	left_check "$m: a SIGKILLed manager leaves nothing" "$JR_W/left-k-$m.json"
	expect_status 125 "$m: exec after the manager died" lv "$m" exec "$N-k" -- true
	expect_status 0 "$m: the same name starts again" lv "$m" start "$N-k" --pool 1 --net none
	expect_status 0 "$m: ... and stops" lv "$m" stop "$N-k"

	# ------------------------------------------- members SIGKILLed
	# Outside the lab, with --pids for root: each sandbox has a cgroup,
	# which a killed runner cannot remove (the manager must).
	limits=()
	[ "$m" = root ] && limits=(--pids 200)
	expect_status 0 "$m: start a pool whose members are killed" \
		lvh "$m" start "$N-m" --pool 2 --net none "${limits[@]}"
	STARTED+=("$m:$N-m")
	MGR=$(ls_pid "$N-m")
	left_record "$m: members to kill" "$JR_W/left-m1-$m.json" "${MGR:-0}" 2
	# replaced RUNNER - RUNNER (a member's) reaped and the pool back to 2 ready.
	replaced() { ! grep -qx "$1" <<<"$(pgrep -P "$MGR")" && pool_ready "$N-m" 2; }
	t=0
	for kind in init runner; do
		victim=$(members "$kind" | sed -n 1p)
		runner=$(ps -o ppid= -p "${victim:-0}" | tr -d ' ')
		[ "$kind" = runner ] && runner=$victim
		kill -9 "${victim:-none}" || fail "$m: no member $kind to kill"
		if wait_until 60 replaced "$runner"; then
			ok "$m: an idle member whose $kind is SIGKILLed is replaced (2 ready)"
		else
			fail "$m: after an idle member's $kind was killed: $(lv "$m" ls 2>&1)"
		fi
		# The same, while a task runs in it.
		t=$((t + 1))
		rm -f "$JR_W/mt-ready-$m-$t"
		lvh "$m" exec "$N-m" -- sh -c ": >'$JR_W/mt-ready-$m-$t'; exec sleep 10009$t" >"$JR_W/mt-$m-$t.out" 2>&1 &
		tpid=$!
		wait_until 60 test -e "$JR_W/mt-ready-$m-$t" || fail "$m: the task never started: $(cat "$JR_W/mt-$m-$t.out")"
		victim=$(task_up "^sleep 10009$t\$" "$kind" || true)
		runner=$(task_up "^sleep 10009$t\$" runner || true)
		kill -9 "${victim:-none}" || fail "$m: no $kind of the task's sandbox to kill"
		st=0
		wait "$tpid" || st=$?
		if [ "$st" = 125 ] && grep -q "ended before the command did" "$JR_W/mt-$m-$t.out"; then
			ok "$m: the task's jailrun exec ends with 125 when its sandbox's $kind is killed: $(cat "$JR_W/mt-$m-$t.out")"
		else
			fail "$m: the task's jailrun exec after its $kind's SIGKILL: status $st, $(cat "$JR_W/mt-$m-$t.out")"
		fi
		if wait_until 60 replaced "$runner"; then
			ok "$m: a busy member whose $kind is SIGKILLed is replaced (2 ready)"
		else
			fail "$m: after a busy member's $kind was killed: $(lv "$m" ls 2>&1)"
		fi
	done
	expect_status 0 "$m: the pool serves after its members were killed" lvh "$m" exec "$N-m" -- true
	wait_until 60 pool_ready "$N-m" 2 || fail "$m: the pool never got back to 2 ready"
	left_record "$m: the replacements" "$JR_W/left-m2-$m.json" "${MGR:-0}" 2
	expect_status 0 "$m: stop the pool whose members were killed" lvh "$m" stop "$N-m"
	left_check "$m: nothing is left of the killed members" "$JR_W/left-m1-$m.json"
	left_check "$m: nothing is left of their replacements" "$JR_W/left-m2-$m.json"

	# ----------------------------------------- a pool that stops by itself
	# Its members cannot start once the socket directory is not 0700
	# (made so by hand here: only the rootless caller's directory is
	# this test's own; /run/jailrun is shared with the tests beside it).
	# The pool stops after three failed starts in a row; what it said,
	# no longer to anyone's terminal, is in NAME.log, which exec names.
	if [ "$m" = rootless ]; then
		expect_status 0 "$m: start a pool whose replacements will fail" \
			lvh "$m" start "$N-f" --pool 2 --net none
		STARTED+=("$m:$N-f")
		[ -f "$D/$N-f.log" ] && [ ! -s "$D/$N-f.log" ] && ok "$m: a running pool has an empty $N-f.log" ||
			fail "$m: $D/$N-f.log: $(ls -l "$D/$N-f.log" 2>&1)"
		chmod 0711 "$D"
		expect_status 0 "$m: a task runs in a ready sandbox" lvh "$m" exec "$N-f" -- true
		wait_until 60 test ! -e "$D/$N-f.sock" && ok "$m: its replacement failing, the pool stopped" ||
			fail "$m: the pool whose members fail is still there: $(lv "$m" ls 2>&1)"
		chmod 0700 "$D"
		LOG=$(cat "$D/$N-f.log" 2>&1 || true)
		if grep -q "must be a directory of uid $JR_NOBODY_UID with mode 0700" <<<"$LOG" &&
			grep -q "pool $N-f: a sandbox of the pool could not start (see above): stopping the pool" <<<"$LOG"; then
			ok "$m: $N-f.log says why the pool stopped"
		else
			fail "$m: $N-f.log: $LOG"
		fi
		grep -q "cannot stop a member" <<<"$LOG" && fail "$m: a reaped member was signalled: $LOG" ||
			ok "$m: ... and no warning about members already reaped"
		expect_status 125 "$m: exec after the pool stopped" lvh "$m" exec "$N-f" -- true
		expect_output_has "$m: ... names the log" "(what the last one said: $D/$N-f.log)"
		rm -f "$D/$N-f.log"
	fi

	# ------------------------------------------------------ --idle-stop
	# A task that runs longer than the idle time holds the pool (the
	# sleep makes the condition; nothing waits on it); then, idle, the
	# pool stops by itself, as jailrun stop would stop it. The idle time
	# is also the window for the exec to arrive after start returns: 4 s
	# is ample even under make -j on busy cores and sanitizers.
	expect_status 0 "$m: start --pool 1 --idle-stop 4" lvh "$m" start "$N-idle" --pool 1 --idle-stop 4 --net none
	STARTED+=("$m:$N-idle")
	MGR=$(ls_pid "$N-idle")
	PROCS=
	[ -z "$MGR" ] || PROCS=$(descendants "$MGR")
	expect_status 0 "$m: --idle-stop: a running task holds the pool" \
		lvh "$m" exec "$N-idle" -- sh -c 'sleep 5; echo survived'
	expect_output_has "$m: --idle-stop: ... to its end" survived
	# Polled with jailrun ls: a client that runs no task does not hold it.
	idle_gone() { lvh "$m" ls >/dev/null 2>&1 || true; test ! -e "$D/$N-idle.sock"; }
	if wait_until 60 idle_gone; then
		ok "$m: --idle-stop: the idle pool stopped by itself, jailrun ls polling it"
	else
		fail "$m: --idle-stop: the pool is still there: $(lv "$m" ls 2>&1)"
	fi
	# shellcheck disable=SC2086
	wait_until 60 none_alive $PROCS && ok "$m: --idle-stop: no process of the pool is left" ||
		fail "$m: --idle-stop: left: $(ps -o pid,args -p "$(echo $PROCS | tr ' ' ,)" 2>&1)"

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
	LV_ENV=(NOTIFY_SOCKET="$NS" WATCHDOG_USEC=400000)
	lv "$m" start "$N-fg" --pool 2 --foreground --net none >"$JR_W/fg-$m.out" 2>&1 &
	FG=$!
	LV_ENV=()
	STARTED+=("$m:$N-fg")
	wait_until 60 grep -q READY=1 "$JR_W/notify-$m.log" || fail "$m: --foreground: no READY=1: $(cat "$JR_W/fg-$m.out")"
	# Nothing has been asked of the pool yet: what ls says now held when
	# READY=1 was sent.
	pool_ready "$N-fg" 2 && ok "$m: --foreground: READY=1 once both sandboxes are ready" ||
		fail "$m: --foreground: READY=1, but: $(lv "$m" ls 2>&1)"
	# WATCHDOG_USEC=400000: a ping every 0.2 s; three of them, waited for.
	if wait_until 60 sh -c "[ \$(grep -c WATCHDOG=1 '$JR_W/notify-$m.log') -ge 3 ]"; then
		ok "$m: --foreground: WATCHDOG=1 pings with WATCHDOG_USEC set"
	else
		fail "$m: --foreground: no WATCHDOG=1 pings: $(cat "$JR_W/notify-$m.log")"
	fi
	expect_status 0 "$m: --foreground: the pool serves" lv "$m" exec "$N-fg" -- true
	expect_status 0 "$m: --foreground: stop" lv "$m" stop "$N-fg"
	st=0
	wait "$FG" || st=$?
	[ "$st" = 0 ] && ok "$m: the foreground pool exits 0 at stop" || fail "$m: the foreground pool exited $st: $(cat "$JR_W/fg-$m.out")"
	wait_until 60 grep -q STOPPING=1 "$JR_W/notify-$m.log" || fail "$m: --foreground: no STOPPING=1"
	kill "$NPID" 2>/dev/null || true
	[ "$(grep -c READY=1 "$JR_W/notify-$m.log")" = 1 ] && ok "$m: --foreground: READY=1 once, from the pool alone" ||
		fail "$m: notifications: $(cat "$JR_W/notify-$m.log")"
	if [ "$(sed -n '/STOPPING=1/,$p' "$JR_W/notify-$m.log" | grep -c WATCHDOG=1)" = 0 ]; then
		ok "$m: --foreground: no WATCHDOG=1 after STOPPING=1"
	else
		fail "$m: --foreground: pings after STOPPING=1: $(cat "$JR_W/notify-$m.log")"
	fi
done
finish
