#!/bin/bash
# Signal forwarding through jailrun and PID 1 to the command, and the end
# of everything the command spawned.
# Fails if: a forwarded signal does not reach the command, or an orphan
# survives the command.
. "${JR_TOP_SRCDIR:-$(dirname "$0")/../..}/tests/lib.sh"
jr_require_sandbox

# wait_for_file FILE - bounded wait for the command to be ready.
wait_for_file() {
	for _ in $(seq 1 200); do
		[ -s "$1" ] && return 0
		sleep 0.05
	done
	return 1
}

for m in $(jr_modes); do
	for sig in INT TERM HUP QUIT USR1 USR2 WINCH; do
		ready="$JR_W/ready-$m-$sig"
		rm -f "$ready"
		as_mode "$m" timeout -k 5 "$JR_RUN_LIMIT" "$JR" -- sh -c "
			trap 'echo got-$sig; exit 42' $sig
			echo up > '$ready'
			i=0; while [ \$i -lt 300 ]; do sleep 0.1; i=\$((i+1)); done
			exit 9" >"$JR_TMP/out-$m-$sig" 2>&1 &
		pid=$!
		if ! wait_for_file "$ready"; then
			fail "$m: SIG$sig: the command never started"
			kill -KILL "$pid" 2>/dev/null || true
			continue
		fi
		# $pid is the timeout/setpriv wrapper; signal jailrun itself.
		jpid=$(pgrep -o -f "^$JR -- sh -c")
		kill "-$sig" "$jpid"
		set +e
		wait "$pid"
		st=$?
		set -e
		if [ "$st" = 42 ] && grep -q "got-$sig" "$JR_TMP/out-$m-$sig"; then
			ok "$m: SIG$sig forwarded to the command"
		else
			fail "$m: SIG$sig: status $st, output: $(cat "$JR_TMP/out-$m-$sig")"
		fi
	done

	# When the command exits, nothing it spawned survives.
	marker="jr-orphan-$m-$$"
	expect_status 0 "$m: command leaves a background child" \
		jr "$m" -- bash -c "(exec -a $marker sleep 300) & (setsid bash -c 'exec -a $marker sleep 300' &) ; sleep 0.2; exit 0"
	sleep 0.2
	if pgrep -f "$marker" >/dev/null; then
		fail "$m: orphans survive the command: $(pgrep -af "$marker")"
		pkill -KILL -f "$marker" || true
	else
		ok "$m: no orphan survives the command"
	fi

	# PID 1 reaps orphans while the command runs (no zombies pile up).
	expect_status 0 "$m: zombies are reaped" jr "$m" -- sh -c '
		for i in 1 2 3 4 5; do (sleep 0.01 &) ; done
		sleep 0.5
		grep -l "^State:.*Z" /proc/[0-9]*/status 2>/dev/null | wc -l'
	if [ "$(printf '%s' "$OUT" | tail -n1 | tr -d ' ')" = 0 ]; then ok "$m: no zombie left"; else fail "$m: zombies: $OUT"; fi

	# A kill of jailrun itself takes the sandbox down.
	marker="jr-runner-killed-$m-$$"
	as_mode "$m" "$JR" -- bash -c "exec -a $marker sleep 300" &
	pid=$!
	marker_pid "$marker" >/dev/null || true
	jpid=$(pgrep -o -f "^$JR -- bash -c exec -a $marker")
	kill -KILL "$jpid" 2>/dev/null || true
	wait "$pid" 2>/dev/null || true
	gone=no
	for _ in $(seq 1 100); do
		if ! pgrep -f "$marker" >/dev/null; then gone=yes; break; fi
		sleep 0.05
	done
	if [ $gone = yes ]; then ok "$m: SIGKILL of jailrun kills the sandbox"; else
		fail "$m: sandbox survives its runner"
		pkill -KILL -f "$marker" || true
	fi
done

finish
