#!/bin/bash
# Signal forwarding through jailrun and PID 1 to the command, and the end
# of everything the command spawned.
# Fails if: a forwarded signal does not reach the command, an orphan
# survives the command, PID 1 leaves an orphan unreaped, or the sandbox
# survives a SIGKILL of jailrun. No sleep stands in for readiness: the
# processes write pid or ready files, and every wait is bounded.
. "${JR_TOP_SRCDIR:-$(dirname "$0")/../..}/tests/lib.sh"
jr_require_sandbox

# wait_for_file FILE - bounded wait for the command to be ready.
wait_for_file() { wait_until 30 test -s "$1"; }

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
		jpid=$(jr_runner_pid "^$JR -- sh -c")
		if [ -z "$jpid" ]; then
			fail "$m: SIG$sig: jailrun's process not found"
			kill -KILL "$pid" 2>/dev/null || true
			wait "$pid" 2>/dev/null || true
			continue
		fi
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

	# When the command exits, nothing it spawned survives. The command
	# leaves only once both children have written their pid files (they
	# exist then). jailrun returns after reaping the sandbox's PID 1, and
	# the kernel reaps every process of a PID namespace before its init
	# can be reaped, so the check needs no delay.
	marker="jr-orphan-$m-$$"
	rm -f "$JR_W/orphan1-$m" "$JR_W/orphan2-$m"
	expect_status 0 "$m: command leaves a background child" \
		jr "$m" -- bash -c "(echo \$BASHPID >'$JR_W/orphan1-$m'; exec -a $marker sleep 300) &
			(setsid bash -c 'echo \$\$ >\"\$0\"; exec -a $marker sleep 300' '$JR_W/orphan2-$m' &)
			end=\$((SECONDS + 20)); until [ -s '$JR_W/orphan1-$m' ] && [ -s '$JR_W/orphan2-$m' ]; do
				[ \$SECONDS -le \$end ] || exit 3; sleep 0.02; done
			echo children-up; exit 0"
	expect_output_has "$m: both children were running when the command left" "children-up"
	if pgrep -f "$marker" >/dev/null; then
		fail "$m: orphans survive the command: $(pgrep -af "$marker")"
		pkill -KILL -f "$marker" || true
	else
		ok "$m: no orphan survives the command"
	fi

	# PID 1 reaps orphans while the command runs (no zombies pile up):
	# five children that outlive their parent subshell (each waits for it
	# to be gone, then exits) are orphans when they exit; the command
	# waits, bounded, until each one's /proc entry is gone (reaped).
	# Unreaped, each stays a zombie and the wait runs out.
	expect_status 0 "$m: zombies are reaped" jr "$m" -- bash -c '
		pids=
		for i in 1 2 3 4 5; do
			pids="$pids $(s=$BASHPID; tail --pid=$s -s 0.01 -f /dev/null >/dev/null 2>&1 & echo $!)"
		done
		left=5 end=$((SECONDS + 20))
		while [ $left -gt 0 ] && [ $SECONDS -le $end ]; do
			left=0
			for p in $pids; do [ -e /proc/$p ] && left=$((left + 1)); done
			[ $left -gt 0 ] && sleep 0.02
		done
		echo "orphans=$pids unreaped=$left"
		grep -l "^State:.*Z" /proc/[0-9]*/status 2>/dev/null | wc -l'
	expect_output_has "$m: every orphan reaped" "unreaped=0"
	if [ "$(printf '%s' "$OUT" | tail -n1 | tr -d ' ')" = 0 ]; then ok "$m: no zombie left"; else fail "$m: zombies: $OUT"; fi

	# A kill of jailrun itself takes the sandbox down.
	marker="jr-runner-killed-$m-$$"
	as_mode "$m" timeout -k 5 "$JR_RUN_LIMIT" "$JR" -- bash -c "exec -a $marker sleep 300" &
	pid=$!
	jpid=
	if marker_pid "$marker" >/dev/null; then
		jpid=$(jr_runner_pid "^$JR -- bash -c exec -a $marker")
	fi
	if [ -z "$jpid" ]; then
		fail "$m: the sandbox or its jailrun never appeared"
		kill -KILL "$pid" 2>/dev/null || true
	fi
	kill -KILL "$jpid" 2>/dev/null || true
	wait "$pid" 2>/dev/null || true
	gone=no
	sandbox_gone() { ! pgrep -f "$marker" >/dev/null; }
	if wait_until 20 sandbox_gone; then gone=yes; fi
	if [ -n "$jpid" ] && [ $gone = yes ]; then ok "$m: SIGKILL of jailrun kills the sandbox"; else
		fail "$m: sandbox survives its runner"
		pkill -KILL -f "$marker" || true
	fi
done

finish
