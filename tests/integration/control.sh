#!/bin/bash
# Live policy changes (--control, --control-fd, jailrun ctl) end to end, in
# a lab, as root and rootless. One sandbox per mode runs the commands the
# test hands it (inside.sh) while the test changes its policy through the
# socket, so every check is "the same running sandbox, before and after".
# Fails if: an allowed-live name is not reached through the proxy or
# transparently (a new DNS answer); a removed name is still reached through
# the proxy, through the synthetic address it was given while allowed, or
# still resolves; lock leaves a live entry or drops a start one; remove
# without close ends a tunnel, or remove with close leaves it open; a live
# entry on a port the start policy never named cannot be reached (a port
# rule fixed at start, such as Landlock's, standing in the way); bad
# JSON, an unknown op, a bad entry, a live address entry, a duplicate key
# or an overlong line is not answered with an error, or changes the
# policy; a ninth client is served, or a client that never reads its
# answers stalls the relay (proxy or socket); another uid can use the socket (a user against root's socket, root
# and a third uid against a user's); the command inside can reach its own
# control socket; the socket is not mode 0600 or outlives the run; status
# and list miscount; the audit log lacks a control line per change; the
# summary's control_changes is wrong; --control-fd does not answer or
# leaks its fd into the sandbox; a listening --control-fd does not serve
# each connection as a client (jailrun ctl, one connection per request), or
# its changes do not reach the sandbox's policy.
. "${JR_TOP_SRCDIR:-$(dirname "$0")/../..}/tests/lib.sh"
. "$JR_TOP_SRCDIR/tests/lab/lib.sh"
jr_require_sandbox
lab_setup --timeout 900 control # a hang guard, not a time limit
lab_on_exit jr_cleanup_tmp
JR_RUN_LIMIT=600 # one sandbox serves a whole mode's checks

install -m 755 "$JR_TOP_SRCDIR/tests/integration/control.py" "$JR_TMP/control.py"
# A python3 every caller can run (a pyenv shim under /root is not).
if [ -x /usr/bin/python3 ]; then PYTHON=/usr/bin/python3; else PYTHON=$(command -v python3); fi
PY=("$PYTHON" "$JR_TMP/control.py")
. "$JR_TOP_SRCDIR/tests/integration/steps.sh"

# ctl_ok LABEL WANT-RC NEEDLE... - jailrun ctl as the mode's caller.
ctl_ok() {
	local label=$1 want=$2 n
	shift 2
	local needles=()
	while [ $# -gt 0 ] && [ "$1" != -- ]; do needles+=("$1"); shift; done
	shift
	expect_status "$want" "$m: ctl $*: $label" as_mode "$m" "$JR" ctl "$S" "$@"
	for n in "${needles[@]}"; do expect_output_has "$m: ctl $*: answer has $n" "$n"; done
}
# ended_ok LABEL PID OUT - the jailrun running in the background as PID
# ended with status 0; else its output (file OUT) goes into the failure.
ended_ok() {
	local st=0
	wait "$2" || st=$?
	[ "$st" = 0 ] && ok "$m: $1 ended (status 0)" ||
		fail "$m: $1: jailrun exited $st: $(cat "$3")"
}
CURL='curl -sS -m 10 -o /dev/null -w %{http_code}'
CURLN="curl --noproxy '*' -sS -m 10"

for m in $(jr_modes); do
	D="$JR_W/d-$m"
	mkdir -m 1777 "$D"
	S="$JR_W/ctl-$m.sock" # in the sandbox's view too: it must not reach it
	log="$JR_W/audit-$m.log"
	sum="$JR_W/sum-$m.json"
	: >"$log"
	chmod 666 "$log"
	STEP=0
	lab_logs_clear
	if [ "$m" = root ]; then owner=0; else owner=$JR_NOBODY_UID; fi

	# Every start entry names its port: Landlock's TCP rule (where the
	# kernel has it) would be built from them without --control.
	jl "$m" --allow allowed.test:80 --allow raw.test:9000 --control "$S" \
		--log "$log" --json "$sum" -- "$JR_TMP/inside.sh" "$D" \
		>"$JR_W/run-$m.out" 2>&1 &
	pid=$!
	in_ok "the sandbox runs" 0 "" true
	if [ "$(stat -c '%F %a %u' "$S" 2>&1)" = "socket 600 $owner" ]; then
		ok "$m: the control socket is mode 0600, owned by uid $owner"
	else
		fail "$m: the control socket: $(stat -c '%F %a %u' "$S" 2>&1)"
	fi
	ctl_ok "the start policy" 0 '"entries":2,' '"live_entries":0,' '"changes":0,' -- status

	# ------------------------------------------------ allow, reach, remove
	in_ok "before allow: other.test refused by the proxy (403)" 0 403 \
		"$CURL http://other.test/before-p"
	in_ok "before allow: other.test does not resolve" '!0' "" "getent hosts other.test"
	ctl_ok "other.test added" 0 '"ok":true' '"changed":true' -- allow other.test
	ctl_ok "again: already there" 0 '"changed":false' -- allow OTHER.test.
	in_ok "after allow: other.test through the proxy" 0 "served-by: other.test" \
		"curl -sS -m 10 http://other.test/p1"
	in_ok "after allow: other.test resolves to a synthetic address" 0 "198.1" \
		"getent ahostsv4 other.test"
	fake=$(awk 'NR == 1 { print $1 }' <<<"$IN_OUT")
	in_ok "after allow: other.test transparently (curl --noproxy)" 0 "served-by: other.test" \
		"$CURLN http://other.test/t1"
	ctl_ok "other.test removed" 0 '"removed":1' '"closed":0' -- remove other.test
	in_ok "after remove: the proxy refuses other.test (403)" 0 403 \
		"$CURL http://other.test/p2"
	in_ok "after remove: other.test does not resolve" '!0' "" "getent hosts other.test"
	in_ok "after remove: its synthetic address $fake is refused" '!0' "" \
		"$CURLN --resolve other.test:80:$fake http://other.test/t2"
	for p in /p2 /t2; do
		if lab_web_served other.test "$p"; then
			fail "$m: other.test served $p after remove"
		else
			ok "$m: other.test never served $p after remove"
		fi
	done
	ctl_ok "not in the policy any more" 1 '"ok":false' 'not in the policy' -- remove other.test

	# ------------------------------------------------ lock
	ctl_ok "denied.test added" 0 '"changed":true' -- allow denied.test
	in_ok "denied.test reached once allowed" 0 "served-by: denied.test" \
		"curl -sS -m 10 http://denied.test/l1"
	ctl_ok "lock drops the one live entry" 0 '"dropped":1' -- lock
	in_ok "after lock: denied.test refused (403)" 0 403 "$CURL http://denied.test/l2"
	in_ok "after lock: allowed.test (a start entry) still reached" 0 "served-by: allowed.test" \
		"curl -sS -m 10 http://allowed.test/l3"
	ctl_ok "after lock" 0 \
		'"entries":[{"entry":"allowed.test:80","live":false},{"entry":"raw.test:9000","live":false}]}' -- list

	# ------------------------------------------------ bad requests
	before=$(as_mode "$m" "$JR" ctl "$S" list)
	expect_status 0 "$m: bad requests answered" as_mode "$m" "${PY[@]}" raw "$S" \
		'{bad' '{"op":"frob"}' '{"op":"allow","entry":"foo.*.test"}' \
		'{"op":"allow","entry":"192.0.2.10"}' '{"op":"status","op":"lock"}' \
		'{"op":"lock","entry":"x.test"}' '{"op":"allow","entry":"x.test"}x' '@long'
	expect_output_has "$m: bad JSON" '{"ok":false,"error":"bad JSON: expected a key in double quotes"}'
	expect_output_has "$m: unknown op" '{"ok":false,"error":"an unknown op \"frob\"'
	expect_output_has "$m: bad entry, policy.c's message" \
		"{\"ok\":false,\"error\":\"entry 'foo.*.test': a wildcard may only be the whole first label"
	expect_output_has "$m: a live address entry" "cannot be added live"
	expect_output_has "$m: a duplicate key" '"the key \"op\" appears twice"'
	expect_output_has "$m: an entry where none goes" 'takes no \"entry\"'
	expect_output_has "$m: bytes after the object" 'bytes after the object'
	expect_output_has "$m: an overlong line" '{"ok":false,"error":"a request line longer than 4096 bytes"}'
	if [ "$(grep -c '"ok":false' <<<"$OUT")" = 8 ] && ! grep -q '"ok":true' <<<"$OUT"; then
		ok "$m: all eight bad requests refused"
	else
		fail "$m: bad requests: $OUT"
	fi
	after=$(as_mode "$m" "$JR" ctl "$S" list)
	if [ "$before" = "$after" ]; then ok "$m: the policy is unchanged"; else
		fail "$m: the policy changed: $before -> $after"; fi

	# ------------------------------------------------ bounded clients
	expect_status 0 "$m: eight clients at once" as_mode "$m" "${PY[@]}" crowd "$S"
	expect_output_has "$m: the ninth is told" '{"ok":false,"error":"too many control clients (at most 8 at once)"}'
	as_mode "$m" "${PY[@]}" stall "$S" "$D/stall" >"$D/stall.log" 2>&1 &
	stall_pid=$!
	if wait_until 60 test -e "$D/stall.stalled"; then
		ok "$m: a client that reads nothing has filled its socket ($(cat "$D/stall.stalled") bytes sent)"
	else
		fail "$m: the stalling client never filled its socket: $(cat "$D/stall.log")"
	fi
	ctl_ok "another client is still served" 0 '"ok":true' -- status
	in_ok "the proxy still serves allowed.test" 0 "served-by: allowed.test" \
		"curl -sS -m 10 http://allowed.test/stall"
	touch "$D/stall.release"
	wait "$stall_pid" || fail "$m: the stalling client failed: $(cat "$D/stall.log")"

	# ------------------------------------------------ close
	in_ok "a tunnel to raw.test:9000 is held open" 0 "" \
		"$PYTHON $JR_TMP/control.py hold raw.test 9000 $D/hold >$D/hold.log 2>&1 & true"
	if wait_until 60 test -e "$D/hold.connected"; then ok "$m: the tunnel is open"; else
		fail "$m: the tunnel never opened: $(cat "$D/hold.log")"; fi
	ctl_ok "one tunnel open" 0 '"tunnels":1,' -- status
	ctl_ok "remove without close" 0 '"removed":1' '"closed":0' -- remove raw.test:9000
	touch "$D/hold.again"
	if wait_until 60 test -e "$D/hold.again.ok"; then
		ok "$m: the tunnel still echoes after a remove without close"
	else
		fail "$m: the tunnel ended without close: $(cat "$D/hold.ended" "$D/hold.log" 2>&1)"
	fi
	ctl_ok "raw.test:9000 back, live" 0 '"changed":true' -- allow raw.test:9000
	ctl_ok "remove with close" 0 '"removed":1' '"closed":1' -- remove raw.test:9000 --close
	if wait_until 60 test -e "$D/hold.ended"; then
		ok "$m: the tunnel ended ($(cat "$D/hold.ended"))"
	else
		fail "$m: the tunnel is still open after remove --close"
	fi
	ctl_ok "no tunnel left" 0 '"tunnels":0,' '"changes":7,' -- status

	# ------------------------------------------------ a port new to the policy
	ctl_ok "raw.test:7, a port no start entry names" 0 '"changed":true' -- allow raw.test:7
	in_ok "a connection to raw.test:7" 0 "" \
		"$PYTHON $JR_TMP/control.py hold raw.test 7 $D/hold7 >$D/hold7.log 2>&1 & true"
	if wait_until 60 test -e "$D/hold7.connected"; then ok "$m: raw.test:7 echoes"; else
		fail "$m: raw.test:7 never connected: $(cat "$D/hold7.log")"; fi
	ctl_ok "and closed again" 0 '"closed":1' -- remove raw.test:7 --close
	if wait_until 60 test -e "$D/hold7.ended"; then ok "$m: raw.test:7 ended"; else
		fail "$m: raw.test:7 still open after remove --close"; fi

	# ------------------------------------------------ who may connect
	in_ok "the command cannot use its own control socket" '!0' "cannot connect" \
		"$PYTHON $JR_TMP/control.py raw $S '{\"op\":\"allow\",\"entry\":\"evil.test\"}'"
	if [ "$m" = root ]; then
		expect_status 125 "$m: nobody cannot connect to root's socket" \
			as_mode rootless "$JR" ctl "$S" allow evil.test
		expect_output_has "$m: and is told why" "cannot connect to $S"
	else
		expect_status 1 "$m: root is turned away from nobody's socket (SO_PEERCRED)" \
			"$JR" ctl "$S" allow evil.test
		expect_output_has "$m: and is told why" "uid 0 may not change this sandbox's policy (only uid $owner"
		expect_status 125 "$m: a third uid cannot connect" \
			setpriv --reuid=12345 --regid=12345 --clear-groups -- "$JR" ctl "$S" allow evil.test
	fi
	ctl_ok "none of them changed anything" 0 '"changes":9,' '"entries":1,' -- status

	# ------------------------------------------------ the end
	post exit # no rc file: the sandbox's end is the answer
	ended_ok "the sandbox" "$pid" "$JR_W/run-$m.out"
	[ ! -e "$S" ] && ok "$m: the socket is gone" || fail "$m: the socket outlived the run"
	n=$(grep -c '"event":"control","detail":"\(allow\|remove\|lock\)' "$log" || true)
	[ "$n" = 9 ] && ok "$m: nine control lines in the audit log" ||
		fail "$m: $n control lines in the audit log: $(grep control "$log")"
	grep -q '"host":"raw.test","port":9000.*"reason":"policy-removed"' "$log" &&
		ok "$m: the closed tunnel is audited as policy-removed" ||
		fail "$m: no policy-removed line: $(grep raw.test "$log")"
	if python3 -c 'import json, sys; sys.exit(json.load(open(sys.argv[1]))["network"]["control_changes"] != 9)' "$sum"; then
		ok "$m: the summary counts 9 control changes"
	else
		fail "$m: control_changes in the summary: $(cat "$sum")"
	fi

	# ------------------------------------------------ --control-fd
	rm -f "$D/fd.done"
	if [ "$m" = root ]; then who=(); else who=(--user nobody); fi
	expect_status 0 "$m: --control-fd answers on an inherited socket" \
		"${PY[@]}" fdrun "$D/fd" -- "$LAB_TOOL" exec "$LAB_NAME" host "${who[@]}" -- \
		timeout -k 5 120 env -C "$JR_TMP" HOME="$JR_HOME" "$JR" --allow allowed.test \
		--control-fd '{fd}' -- sh -c "$JR_TMP/fdcheck; echo \$? >$D/fdcheck.rc;
			while [ ! -e $D/fd.done ]; do sleep 0.02; done"
	expect_output_has "$m: --control-fd status" '{"ok":true,"op":"status","entries":1,'
	if [ "$(cat "$D/fdcheck.rc" 2>&1)" = 0 ]; then
		ok "$m: the control fd did not reach the command"
	else
		fail "$m: a descriptor reached the command: $OUT"
	fi

	# ------------------------------------------------ --control-fd, listening
	# The caller binds and listens; jailrun gets the listening socket as
	# fd N and serves each connection to it: here four jailrun ctl runs,
	# each its own client, change and read this sandbox's policy, and the
	# command sees the change (403 before the allow, 200 after).
	L="$JR_W/lfd-$m.sock"
	rm -f "$L" "$D"/lfd.*
	"${PY[@]}" fdlisten "$L" "$owner" -- "$LAB_TOOL" exec "$LAB_NAME" host "${who[@]}" -- \
		timeout -k 5 120 env -C "$JR_TMP" HOME="$JR_HOME" "$JR" --allow allowed.test \
		--control-fd '{fd}' -- sh -c "$JR_TMP/fdcheck; echo \$? >$D/lfd.fdcheck;
			$CURL http://other.test/lfd-before >$D/lfd.before; : >$D/lfd.ready
			while [ ! -e $D/lfd.go ]; do sleep 0.02; done
			$CURL http://other.test/lfd-after >$D/lfd.after; : >$D/lfd.checked
			while [ ! -e $D/lfd.done ]; do sleep 0.02; done" >"$JR_W/lfd-$m.out" 2>&1 &
	lpid=$!
	if wait_until 120 test -e "$D/lfd.ready"; then
		ok "$m: listening --control-fd: the sandbox runs"
	else
		fail "$m: listening --control-fd: the sandbox never ran: $(cat "$JR_W/lfd-$m.out")"
	fi
	S=$L
	ctl_ok "listening --control-fd" 0 '"entries":1,' '"live_entries":0,' -- status
	ctl_ok "listening --control-fd" 0 '"ok":true' '"changed":true' -- allow other.test
	ctl_ok "listening --control-fd, a third client" 0 '"live_entries":1,' '"changes":1,' -- status
	ctl_ok "listening --control-fd, a fourth client" 0 'other.test' -- list
	: >"$D/lfd.go"
	wait_until 120 test -e "$D/lfd.checked" || true
	[ "$(cat "$D/lfd.before" 2>&1)" = 403 ] && ok "$m: listening --control-fd: other.test refused before the allow" ||
		fail "$m: listening --control-fd: before the allow: $(cat "$D/lfd.before" 2>&1)"
	[ "$(cat "$D/lfd.after" 2>&1)" = 200 ] && ok "$m: listening --control-fd: other.test reached after the allow" ||
		fail "$m: listening --control-fd: after the allow: $(cat "$D/lfd.after" 2>&1)"
	[ "$(cat "$D/lfd.fdcheck" 2>&1)" = 0 ] && ok "$m: the listening control fd did not reach the command" ||
		fail "$m: a descriptor reached the command: $(cat "$D/lfd.fdcheck" 2>&1)"
	: >"$D/lfd.done"
	ended_ok "listening --control-fd: the sandbox" "$lpid" "$JR_W/lfd-$m.out"
done
finish
