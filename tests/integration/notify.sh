#!/bin/bash
# sd_notify without systemd (notify.c): a stand-in service manager
# (notify.py) receives what jailrun sends, as root and rootless.
# Fails if:
#  - READY=1 is missing, sent twice, or sent before the "command started"
#    step (jailrun's -v log says when the ruleset was verified and the
#    command started; READY must follow both);
#  - WATCHDOG=1 pings do not come (with WATCHDOG_USEC=400000 the rule
#    watchdog's 1 s interval must be shortened to 0.2 s, and the pings
#    keep coming until the command ends), or come when WATCHDOG_PID names
#    another process (sd_watchdog_enabled(3));
#  - STATUS= lacks the counts, or STOPPING=1 is missing at the end;
#  - a message's sender (SCM_CREDENTIALS) is not the runner, the process
#    systemd knows as MainPID (NotifyAccess=main);
#  - the command sees NOTIFY_SOCKET or WATCHDOG_*, or inherits a
#    descriptor (the notify socket among them).
. "${JR_TOP_SRCDIR:-$(dirname "$0")/../..}/tests/lib.sh"
jr_require_sandbox
command -v python3 >/dev/null || skip "python3 is needed"
install -m 644 "$JR_TOP_SRCDIR/tests/integration/notify.py" "$JR_TMP/notify.py"

# The command: record what it inherited, then wait until the receiver
# has seen what it waits for (a readiness file, bounded by notify.py).
CMD='env | grep -E "^(NOTIFY_SOCKET|WATCHDOG_USEC|WATCHDOG_PID)=" >"$0.env"; ls /proc/self/fd >"$0.fds"; while [ ! -e "$0.stop" ]; do sleep 0.02; done'

# run_notify MODE NAME ARGS... - notify.py around jailrun in MODE; the
# receiver's output in $JR_W/NAME.out, jailrun's stderr in $JR_W/NAME.err.
run_notify() {
	local mode=$1 name=$2 pre=()
	shift 2
	[ "$mode" = rootless ] && [ "$(id -u)" -eq 0 ] &&
		pre=(setpriv "--reuid=$JR_NOBODY_UID" "--regid=$JR_NOBODY_GID" --clear-groups --)
	rm -f "$JR_W/$name".*
	(cd "$JR_TMP" && HOME=$JR_HOME timeout -k 5 "$JR_RUN_LIMIT" python3 "$JR_TMP/notify.py" \
		--stop-file "$JR_W/$name.stop" "$@" -- "${pre[@]}" "$JR" -v --net none \
		-- sh -c "$CMD" "$JR_W/$name" 2>"$JR_W/$name.err") >"$JR_W/$name.out"
}

for mode in $(jr_modes); do
	n=$mode-wd
	run_notify "$mode" "$n" --watchdog-usec 400000 --stop-after 5 || true
	out=$(cat "$JR_W/$n.out")
	runner=$(sed -n 's/^PID //p' <<<"$out")
	if grep -q '^EXIT 0$' <<<"$out"; then ok "$mode: jailrun ran and exited 0"; else fail "$mode: $(tail -n 3 <<<"$out"); $(tail -n 3 "$JR_W/$n.err")"; fi
	[ "$(grep -c 'READY=1' <<<"$out")" = 1 ] && ok "$mode: READY=1 once" || fail "$mode: READY=1 $(grep -c 'READY=1' <<<"$out") times"
	# The log: verified, then command started, then READY (in that order).
	order=$(grep -nE 'installed and verified \(|command started$|sd_notify: READY=1' "$JR_W/$n.err" | cut -d: -f1 | tr '\n' ' ')
	if [ "$(wc -w <<<"$order")" = 3 ] && [ "$order" = "$(tr ' ' '\n' <<<"$order" | grep . | sort -n | tr '\n' ' ')" ]; then
		ok "$mode: READY logged after 'verified' and 'command started' (log lines $order)"
	else
		fail "$mode: log order '$order': $(grep -E 'verified|started|READY' "$JR_W/$n.err")"
	fi
	line=$(grep 'sd_notify: READY=1' "$JR_W/$n.err" || true)
	v=$(sed -n 's/.*verified at monotonic \([0-9]*\) us.*/\1/p' <<<"$line")
	c=$(sed -n 's/.*command started at \([0-9]*\) us.*/\1/p' <<<"$line")
	if [ -n "$v" ] && [ -n "$c" ] && [ "$v" -gt 0 ] && [ "$v" -le "$c" ]; then ok "$mode: verified at $v us <= command started at $c us"; else fail "$mode: times in '$line'"; fi
	if grep -q 'rule watchdog interval shortened from 1.000 to 0.200 s' "$JR_W/$n.err"; then ok "$mode: watchdog interval shortened to WATCHDOG_USEC/2"; else fail "$mode: interval not shortened: $(grep -i watchdog "$JR_W/$n.err")"; fi
	pings=$(grep -c 'WATCHDOG=1' <<<"$out" || true)
	[ "$pings" -ge 5 ] && ok "$mode: $pings WATCHDOG=1 pings" || fail "$mode: $pings WATCHDOG=1 pings"
	grep -q 'STATUS=lockdown verified; 0 connections allowed, 0 denied' <<<"$out" && ok "$mode: STATUS= with the counts" || fail "$mode: no STATUS= with counts: $out"
	[ "$(grep '^MSG' <<<"$out" | tail -n 1 | cut -d' ' -f3-)" = STOPPING=1 ] && ok "$mode: STOPPING=1 last" || fail "$mode: last message: $(grep '^MSG' <<<"$out" | tail -n 1)"
	senders=$(grep '^MSG' <<<"$out" | cut -d' ' -f2 | sort -u | tr '\n' ' ')
	[ "$senders" = "$runner " ] && ok "$mode: every message from the runner (pid $runner)" || fail "$mode: senders '$senders', runner $runner"
	[ ! -s "$JR_W/$n.env" ] && ok "$mode: the command has no NOTIFY_SOCKET or WATCHDOG_*" || fail "$mode: the command inherited $(cat "$JR_W/$n.env")"
	fds=$(tr '\n' ' ' <"$JR_W/$n.fds" 2>/dev/null || true)
	[ "$fds" = "0 1 2 3 " ] && ok "$mode: the command inherited no descriptor" || fail "$mode: the command's descriptors: '$fds'"

	# WATCHDOG_PID naming another process: the watchdog is not ours.
	n=$mode-otherpid
	run_notify "$mode" "$n" --watchdog-usec 400000 --watchdog-pid 1 || true
	out=$(cat "$JR_W/$n.out")
	if grep -q 'READY=1' <<<"$out" && ! grep -q 'WATCHDOG=1' <<<"$out" &&
		! grep -q 'interval shortened' "$JR_W/$n.err"; then
		ok "$mode: WATCHDOG_PID=1: READY, no pings, interval kept"
	else
		fail "$mode: WATCHDOG_PID=1: $out"
	fi
done
finish
