#!/bin/bash
# The watchdog: a table added from outside is removed and logged, and
# jailrun's own measure of the restore (max_restore_us) is recorded; "nft
# flush ruleset" from outside leaves the owned table; with --on-tamper kill
# the sandbox ends with 125; a process of the sandbox in a network namespace
# jailrun did not arm ends it too, unless --allow-nested.
# No wall-clock bound here includes spawning nsenter or nft: the outside
# view of the removal is printed, not judged. To show that the watchdog
# reacts to nf_tables notifications (not to its periodic re-check), the
# tamper cases run with a re-check interval of an hour: only a notification
# can explain a removal or a kill within the test's hang guard.
# Fails if: tampering goes unnoticed or unrestored, notifications are
# ignored, the summary or log lack the event or its restore time,
# --on-tamper kill does not kill, the namespace check is blind, or
# --allow-nested does not allow (the watchdog is seen to have re-checked
# the namespaces while the nested one existed), or a table added in the
# relay netns (transparent capture) is not removed and logged.
. "${JR_TOP_SRCDIR:-$(dirname "$0")/../..}/tests/lib.sh"
jr_require_sandbox
[ "$(id -u)" -eq 0 ] || skip "tampering from outside needs root (nsenter into the sandbox's netns)"
command -v nft >/dev/null || skip "nft(8) is needed"

# Hang guard for events the test waits for (seconds).
WAIT=20
# A re-check interval no test outlives: only notifications act.
NO_TIMER=3600

# start_sleeper MODE MARKER ARGS... - a sandboxed sleep; sets CPID (its pid).
start_sleeper() {
	local m=$1 marker=$2
	shift 2
	jr "$m" "$@" -- bash -c "exec -a $marker sleep 50" >"$JR_W/out-$marker" 2>&1 &
	BG=$!
	CPID=$(marker_pid "$marker")
}

in_ns() { nsenter --net="/proc/$CPID/ns/net" "$@"; }
evil_gone() { ! grep -q 'inet evil' <<<"$(in_ns nft list tables)"; }
in_relay() { nsenter --net="/proc/$RPID/ns/net" "$@"; }
evil_gone_relay() { ! grep -q 'inet evil' <<<"$(in_relay nft list tables)"; }
# relay_ns_pids - the processes of CPID's pid namespace in another netns
# than the command's: --publish's socket factory, which lives in the relay
# netns (and, for a moment during set-up, a process on its way there).
relay_ns_pids() {
	local p n pidns netns
	pidns=$(readlink "/proc/$CPID/ns/pid") && netns=$(readlink "/proc/$CPID/ns/net") || return 1
	for p in /proc/[0-9]*; do
		[ "$(readlink "$p/ns/pid" 2>/dev/null)" = "$pidns" ] || continue
		n=$(readlink "$p/ns/net" 2>/dev/null) || continue
		if [ -n "$n" ] && [ "$n" != "$netns" ]; then echo "${p#/proc/}"; fi
	done
}
# find_relay - sets RPID to one of relay_ns_pids whose netns holds
# jailrun's capture table. Polled (wait_until): one scan can meet a process
# that is gone before nsenter opens its netns, or none yet on a loaded
# machine.
find_relay() {
	local p
	for p in $(relay_ns_pids); do
		RPID=$p
		grep -q 'inet jailrun' <<<"$(in_relay nft list tables 2>/dev/null || true)" && return 0
	done
	return 1
}
# free_port - a TCP port on host loopback nothing listens on now.
free_port() { python3 -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])'; }

# thread_switches PID - "tid voluntary-context-switches" for each thread.
thread_switches() {
	local t n
	for t in /proc/"$1"/task/*; do
		n=$(sed -n 's/^voluntary_ctxt_switches:[[:space:]]*//p' "$t/status" 2>/dev/null) || continue
		[ -n "$n" ] && echo "${t##*/} $n"
	done
}
# watchdog_ran PID SNAPSHOT N - true once a thread of PID has blocked N more
# times than in SNAPSHOT (the watchdog thread blocks in poll(2) once per
# tick, and each tick re-checks every process's netns), or once PID is gone
# (then the caller sees why from jailrun's status).
watchdog_ran() {
	local tid n old
	kill -0 "$1" 2>/dev/null || return 0
	while read -r tid n; do
		old=$(awk -v t="$tid" '$1 == t { print $2 }' <<<"$2")
		if [ -n "$old" ] && [ $((n - old)) -ge "$3" ]; then return 0; fi
	done < <(thread_switches "$1")
	return 1
}

# nested.sh READY GO - in the sandbox: report its netns, then in a new
# user+net namespace report that one and its links, say ready, and wait
# (bounded) for the test to let it go.
cat >"$JR_TMP/nested.sh" <<'EOF'
echo "outer-ns=$(readlink /proc/self/ns/net)"
exec unshare -rn sh -c '
	echo "nested-ns=$(readlink /proc/self/ns/net)"
	echo "nested-links=$(tail -n +3 /proc/net/dev | cut -d: -f1 | tr -d " " | sort | tr "\n" " ")"
	: >"$0"
	i=0
	while [ ! -e "$1" ] && [ $i -lt 1500 ]; do sleep 0.02; i=$((i + 1)); done
	[ -e "$1" ] && echo nested-released' "$1" "$2"
EOF
chmod 644 "$JR_TMP/nested.sh"

for m in $(jr_modes); do
	marker="jr-wd-$m-$$"
	rm -f "$JR_W/wd-$m.json" "$JR_W/wd-$m.log"
	start_sleeper "$m" "$marker" --json "$JR_W/wd-$m.json" --log "$JR_W/wd-$m.log" \
		--watchdog-interval "$NO_TIMER" || { fail "$m: sandbox did not start"; continue; }

	# flush from outside: the owned table stays.
	in_ns nft flush ruleset
	if grep -q 'inet jailrun' <<<"$(in_ns nft list tables)"; then ok "$m: 'nft flush ruleset' from outside leaves the table"; else fail "$m: flush removed the table"; fi

	# a foreign table: removed (on the notification), whenever that is.
	if grep -q 'inet evil' <<<"$(in_ns nft list tables)"; then fail "$m: a table inet evil exists before the test added it"; fi
	t0=$(date +%s%N)
	in_ns nft add table inet evil
	if wait_until "$WAIT" evil_gone; then
		ok "$m: foreign table removed"
		echo "tamper re-arm latency ($m), as seen from outside (includes nsenter + nft spawns; information only): $((($(date +%s%N) - t0) / 1000000)) ms"
	else
		fail "$m: foreign table still there after ${WAIT} s (watchdog interval ${NO_TIMER} s: a notification must trigger the restore)"
	fi

	kill -TERM "$(jr_runner_pid "^$JR --json $JR_W/wd-$m.json")" 2>/dev/null || true
	wait "$BG" 2>/dev/null || true
	if python3 - "$JR_W/wd-$m.json" "$JR_W/wd-$m.log" <<'PY'
import json, sys
n = json.load(open(sys.argv[1]))["network"]
assert n["tamper_events"] >= 1 and n["restores"] >= 1, n
# jailrun's own measure, detection to verified restore: one netlink batch
# and a read-back. A second would mean it waited on something.
assert 0 < n["max_restore_us"] < 1000000, n
print("watchdog restore time (detection to verified, jailrun's figure):", n["max_restore_us"], "us")
events = [json.loads(l) for l in open(sys.argv[2])]
t = [e for e in events if e["event"] == "tamper"]
assert t and "inet evil" in t[0]["detail"] and "restored" in t[0]["detail"], events
PY
	then ok "$m: summary and log record the tamper event and its restore time"; else fail "$m: summary/log: $(cat "$JR_W/wd-$m.json")"; fi

	# --on-tamper kill
	marker="jr-wdk-$m-$$"
	start_sleeper "$m" "$marker" --on-tamper kill --watchdog-interval "$NO_TIMER" --json "$JR_W/wdk-$m.json" ||
		{ fail "$m: sandbox did not start"; continue; }
	in_ns nft add table inet evil
	set +e
	wait "$BG"
	st=$?
	set -e
	if [ "$st" = 125 ] && python3 -c 'import json,sys; d=json.load(open(sys.argv[1])); assert d["ended"]=="tamper-killed" and "inet evil" in d["error"], d' "$JR_W/wdk-$m.json"; then
		ok "$m: --on-tamper kill ends the sandbox with 125"
	else
		fail "$m: --on-tamper kill: status $st, $(cat "$JR_W/wdk-$m.json" 2>/dev/null)"
	fi

	# The relay netns's table (the transparent capture rules) is watched
	# too. Its one process is --publish's socket factory: the test finds
	# the netns through it (a process of the sandbox's pid namespace in
	# another netns than the command's).
	marker="jr-wdr-$m-$$"
	rm -f "$JR_W/wdr-$m.json" "$JR_W/wdr-$m.log"
	hp=$(free_port)
	start_sleeper "$m" "$marker" --json "$JR_W/wdr-$m.json" --log "$JR_W/wdr-$m.log" \
		--allow allowed.test --publish "127.0.0.1:$hp:8000" --watchdog-interval "$NO_TIMER" ||
		{ fail "$m: sandbox with --publish did not start"; continue; }
	RPID=
	if wait_until "$WAIT" find_relay; then
		ok "$m: the relay netns holds jailrun's capture table"
		in_relay nft add table inet evil
		if wait_until "$WAIT" evil_gone_relay; then
			ok "$m: foreign table in the relay netns removed (interval ${NO_TIMER} s: on the notification)"
		else
			fail "$m: foreign table in the relay netns still there after ${WAIT} s"
		fi
		if grep -q 'inet jailrun' <<<"$(in_relay nft list tables)"; then ok "$m: the capture table is still there"; else fail "$m: the capture table is gone"; fi
	else
		fail "$m: no relay netns with jailrun's table found (pid '${RPID:-}')"
	fi
	kill -TERM "$(jr_runner_pid "^$JR --json $JR_W/wdr-$m.json")" 2>/dev/null || true
	wait "$BG" 2>/dev/null || true
	if python3 - "$JR_W/wdr-$m.json" "$JR_W/wdr-$m.log" <<'PY'
import json, sys
n = json.load(open(sys.argv[1]))["network"]
assert n["tamper_events"] >= 1 and n["restores"] >= 1, n
events = [json.loads(l) for l in open(sys.argv[2])]
t = [e for e in events if e["event"] == "tamper"]
assert t and "in the relay netns" in t[0]["detail"] and "inet evil" in t[0]["detail"] and "restored" in t[0]["detail"], t
print("relay netns restore:", t[0]["detail"])
PY
	then ok "$m: the log says the relay netns was tampered with and restored"; else fail "$m: relay netns summary/log: $(cat "$JR_W/wdr-$m.json")"; fi

	# A process in a network namespace jailrun did not arm (possible only
	# with the seccomp filter off): the sandbox ends. The nested sleep
	# outlasts any plausible detection; if it ends, the status is 0.
	expect_status 125 "$m: foreign netns ends the sandbox" jr "$m" --seccomp off --watchdog-interval 0.05 -- \
		sh -c 'unshare -rn sleep 40'
	expect_output_has "$m: and says why" "in a network namespace jailrun did not arm"

	# --allow-nested: the nested netns lives on. The nested shell says it
	# is ready (a marker file), the test waits until the watchdog thread
	# has run several more ticks (each re-checks every process's netns),
	# then lets it finish. It reports its netns and links, and the
	# sandbox's own netns, so the test can tell they differ.
	ready="$JR_W/nested-ready-$m"
	go="$JR_W/nested-go-$m"
	rm -f "$ready" "$go"
	jr "$m" --allow-nested --watchdog-interval 0.05 --json "$JR_W/nested-$m.json" -- \
		sh "$JR_TMP/nested.sh" "$ready" "$go" >"$JR_W/nested-$m.out" 2>&1 &
	bg=$!
	released=no
	if wait_until "$WAIT" test -e "$ready"; then
		rpid=$(jr_runner_pid "^$JR --allow-nested --watchdog-interval 0.05 --json $JR_W/nested-$m.json")
		snap=$(thread_switches "${rpid:-0}")
		if [ -n "$rpid" ] && wait_until "$WAIT" watchdog_ran "$rpid" "$snap" 5 && kill -0 "$rpid" 2>/dev/null; then
			released=yes
		fi
	fi
	touch "$go"
	set +e
	wait "$bg"
	st=$?
	set -e
	OUT=$(cat "$JR_W/nested-$m.out")
	if [ "$released" = yes ] && [ "$st" = 0 ]; then
		ok "$m: --allow-nested: the watchdog re-checked while the nested netns lived, and left it (status 0)"
	else
		fail "$m: --allow-nested: watchdog seen running: $released, status $st; output: $OUT"
	fi
	expect_output_has "$m: the nested shell ran to its end" "nested-released"
	expect_output_has "$m: the nested netns has only lo" "nested-links=lo "
	outer=$(sed -n 's/^outer-ns=//p' <<<"$OUT")
	nested=$(sed -n 's/^nested-ns=//p' <<<"$OUT")
	if [ -n "$outer" ] && [ -n "$nested" ] && [ "$outer" != "$nested" ]; then
		ok "$m: the nested netns is another namespace ($nested, the sandbox's is $outer)"
	else
		fail "$m: netns inside '$outer', nested '$nested'"
	fi
	if python3 -c 'import json,sys; n=json.load(open(sys.argv[1]))["network"]; assert n["tamper_events"]==0, n' "$JR_W/nested-$m.json"; then
		ok "$m: --allow-nested: no tamper event counted"
	else fail "$m: --allow-nested summary: $(cat "$JR_W/nested-$m.json")"; fi
done

finish
