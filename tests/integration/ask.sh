#!/bin/bash
# Per-request approval (--ask with --control, jailrun ctl pending / approve
# / deny) end to end, in a lab, as root and rootless. One sandbox per mode
# runs the commands the test hands it (as in control.sh); a request the
# allowlist refuses is started in the background there, the test waits
# for it in "pending" (polling, bounded), decides, and reads its result.
# Fails if: --ask without a control socket is not a usage error (125)
# saying to add --control; a refused proxy request, a captured connection
# or a DNS lookup is refused at once instead of held, or is not listed
# with its id, host, port and via; an approved one does not get the lab
# server's answer (or the synthetic address); "approve once" lets a second
# request through unasked; "approve --always" does not add the entry or
# lets the next request be held again; a denied one is not refused as the
# policy refuses (403 with X-Jailrun-Deny: not-allowed, a reset,
# NXDOMAIN); a held request outlives --ask-timeout, or its refusal is not
# audited ask-timeout; a managed deny is held; a capture held past the header timeout is reset
# once approved instead of given its first bytes' header timeout from
# then; an approval lets a name resolving to 127.0.0.1
# past the SSRF guard, or a literal special address is held at all; an
# unknown id is not an error (ctl status 1); a decision has no "ask" audit
# line, or the connection lines lack ask-denied / ask-timeout; the log or
# the summary does not validate against docs/schema, or the summary's
# "ask" counts are wrong; a live sandbox (jailrun start --control --ask)
# does not hold and release a request of a command exec'd in it (or
# takes a pool's K.N id for its own); one
# started with --ask and no --control has no NAME.ctl of mode 0600 beside
# NAME.sock, jailrun ctl NAME cannot list and deny its held request, or
# NAME.ctl is left after stop; a run with --ask and no socket runs because
# its command has the name of jailrun start's stand-in.
. "${JR_TOP_SRCDIR:-$(dirname "$0")/../..}/tests/lib.sh"
. "$JR_TOP_SRCDIR/tests/lab/lib.sh"
jr_require_sandbox
command -v python3 >/dev/null || skip "python3 is needed"
lab_setup --timeout 900 ask # a hang guard, not a time limit
lab_on_exit jr_cleanup_tmp
JR_RUN_LIMIT=600 # one sandbox serves a whole mode's checks
install -m 644 "$JR_TOP_SRCDIR/tests/integration/schemacheck.py" "$JR_TMP/schemacheck.py"
XDG="$JR_W/xdg" # the rootless caller's XDG_RUNTIME_DIR (jailrun start)
mkdir -m 700 "$XDG"
[ "$(id -u)" -ne 0 ] || chown "$JR_NOBODY_UID:$JR_NOBODY_GID" "$XDG"

. "$JR_TOP_SRCDIR/tests/integration/steps.sh"
# slow.py HOST ADDR DIR - a captured HTTP client that sends half its head,
# waits for DIR/slow.go, sends the rest and prints the answer.
cat >"$JR_TMP/slow.py" <<'PY'
import os, socket, sys, time
host, addr, d = sys.argv[1:4]
s = socket.create_connection((addr, 80), timeout=120)
s.sendall(b"GET /slow HTTP/1.1\r\n")
while not os.path.exists(d + "/slow.go"):
    time.sleep(0.02)
s.sendall(("Host: %s\r\nConnection: close\r\n\r\n" % host).encode())
out = b""
while True:
    b = s.recv(4096)
    if not b:
        break
    out += b
sys.stdout.write(out.decode(errors="replace"))
PY
chmod 644 "$JR_TMP/slow.py"
# A python3 every caller can run (a pyenv shim under /root is not).
if [ -x /usr/bin/python3 ]; then PYTHON=/usr/bin/python3; else PYTHON=$(command -v python3); fi

# bg NAME CMD - start CMD in the sandbox in the background: its output
# goes to $D/NAME.out, its status to $D/NAME.rc once it ends.
bg() {
	inside "{ ( $2 ) >$D/$1.out 2>&1; echo \$? >$D/$1.rc.tmp; mv $D/$1.rc.tmp $D/$1.rc; } &"
}
# bg_ok LABEL NAME WANT-RC NEEDLE - the background command NAME ended
# (waiting for its status file) with WANT-RC and NEEDLE in its output.
bg_ok() {
	local label=$1 name=$2 want=$3 needle=$4 rc out
	if ! wait_until 120 test -e "$D/$name.rc"; then
		fail "$m: $label: it never ended: $(cat "$D/$name.out" 2>&1)"
		return
	fi
	rc=$(cat "$D/$name.rc")
	out=$(cat "$D/$name.out")
	if { [ "$want" = '!0' ] && [ "$rc" != 0 ]; } || [ "$rc" = "$want" ]; then
		if [ -z "$needle" ] || grep -qF -- "$needle" <<<"$out"; then
			ok "$m: $label"
			return
		fi
	fi
	fail "$m: $label: status $rc (want $want), output: $out"
}
# ctl ARGS... - jailrun ctl on the mode's socket $S as the mode's caller.
# (XDG_RUNTIME_DIR: where a rootless caller's live sandboxes are, for a
# NAME in $S.)
ctl() { as_mode "$m" env XDG_RUNTIME_DIR="$XDG" "$JR" ctl "$S" "$@"; }
# ctl_ok LABEL WANT-RC NEEDLE... -- ARGS - ctl, its status and answer.
ctl_ok() {
	local label=$1 want=$2 n
	shift 2
	local needles=()
	while [ $# -gt 0 ] && [ "$1" != -- ]; do needles+=("$1"); shift; done
	shift
	expect_status "$want" "$m: ctl $*: $label" ctl "$@"
	for n in "${needles[@]}"; do expect_output_has "$m: ctl $*: answer has $n" "$n"; done
}
# held_id HOST VIA [PORT] - print the id of the held request for HOST via
# VIA (and PORT), polling "pending" until it is listed (bounded).
PENDING_PY='import json, sys
a = json.loads(sys.stdin.read())
for e in a.get("pending", []):
    if e["host"] == sys.argv[1] and e["via"] == sys.argv[2] and \
       (len(sys.argv) < 4 or str(e["port"]) == sys.argv[3]):
        assert isinstance(e["id"], str) and isinstance(e["age_ms"], int)
        print(e["id"]); sys.exit(0)
sys.exit(1)'
find_held() { ctl pending 2>/dev/null | python3 -c "$PENDING_PY" "$@" >"$JR_W/held.id" 2>/dev/null; }
held_id() {
	if wait_until 120 find_held "$@"; then
		cat "$JR_W/held.id"
	else
		echo "none"
	fi
}
# n_held_is N HOST - exactly N requests for HOST are pending.
n_held_is() {
	[ "$(ctl pending 2>/dev/null | python3 -c 'import json, sys
print(sum(e["host"] == sys.argv[1] for e in json.loads(sys.stdin.read())["pending"]))' "$2" 2>/dev/null)" = "$1" ]
}
# aged_past ID MS - request ID has waited more than MS (its age_ms).
aged_past() {
	ctl pending 2>/dev/null | python3 -c 'import json, sys
sys.exit(not any(e["id"] == sys.argv[1] and e["age_ms"] > int(sys.argv[2])
                 for e in json.loads(sys.stdin.read())["pending"]))' "$1" "$2" 2>/dev/null
}
# age_of ID - request ID's age_ms, or 0.
age_of() {
	ctl pending 2>/dev/null | python3 -c 'import json, sys
print(([e["age_ms"] for e in json.loads(sys.stdin.read())["pending"] if e["id"] == sys.argv[1]] + [0])[0])' "$1" 2>/dev/null || echo 0
}
# held_ok LABEL HOST VIA [PORT] - wait for the request; $ID is its id.
held_ok() {
	local label=$1
	shift
	ID=$(held_id "$@")
	if [ "$ID" != none ]; then
		ok "$m: $label: held as request $ID ($*)"
	else
		fail "$m: $label: never listed in pending ($*): $(ctl pending 2>&1)"
	fi
}
# with_etc DIR CMD... - CMD with DIR as /etc/jailrun (config.sh's): the
# managed policy of a test's own.
with_etc() {
	local src=$1
	shift
	unshare -m --propagation private -- bash -c '
		set -e
		src=$1; t=$2; shift 2
		mount -t tmpfs -o mode=755 jr-ask-test "$t"
		mkdir "$t/u" "$t/w"
		mount -t overlay overlay -o "lowerdir=/etc,upperdir=$t/u,workdir=$t/w" /etc
		cp -a "$src" /etc/jailrun
		exec "$@"' with_etc "$src" "$JR_TMP/ovl" "$@"
}
mkdir "$JR_TMP/ovl"
E_DENY="$JR_TMP/etc-deny"
mkdir -m 755 "$E_DENY"
printf 'deny managed.test\n' >"$E_DENY/policy.conf"
chmod 644 "$E_DENY/policy.conf"
# jle MODE ARGS... - jailrun in the lab host under that managed policy.
jle() {
	local m=$1 user=()
	shift
	[ "$m" = root ] || user=(--user nobody)
	with_etc "$E_DENY" "$LAB_TOOL" exec "$LAB_NAME" host "${user[@]}" -- \
		timeout -k 5 "$JR_RUN_LIMIT" env -C "$JR_TMP" HOME="$JR_HOME" "$JR" "$@" </dev/null
}
# lv CALLER ARGS... - jailrun in the lab host as CALLER (live.sh's).
lv() {
	local c=$1
	shift
	case $c in
	root) lab_host timeout -k 5 "$JR_RUN_LIMIT" env -C "$JR_TMP" "$JR" "$@" ;;
	rootless) lab_host_as nobody timeout -k 5 "$JR_RUN_LIMIT" \
		env -C "$JR_TMP" HOME="$JR_HOME" XDG_RUNTIME_DIR="$XDG" "$JR" "$@" ;;
	esac
}
CURL='curl -sS -m 200 -o /dev/null -w %{http_code}'
CURLI='curl -sS -m 200 -i'
CURLN="curl --noproxy '*' -sS -m 200"

for m in $(jr_modes); do
	D="$JR_W/d-$m"
	mkdir -m 1777 "$D"
	S="$JR_W/ctl-$m.sock"
	log="$JR_W/audit-$m.log"
	sum="$JR_W/sum-$m.json"
	: >"$log"
	chmod 666 "$log"
	STEP=0
	lab_logs_clear

	# ------------------------------------------------ usage
	expect_status 125 "$m: --ask without a control socket is a usage error" \
		jr "$m" --allow allowed.test --ask -- true
	expect_output_has "$m: and says what to add" "add --control PATH"
	expect_status 125 "$m: ... whatever the command is called (jailrun start's stand-in)" \
		jr "$m" --allow allowed.test --ask -- jailrun-live
	expect_output_has "$m: ... saying what to add" "add --control PATH"
	expect_status 125 "$m: --ask-timeout 0 is refused" \
		jr "$m" --allow allowed.test --control "$S" --ask --ask-timeout 0 -- true
	expect_output_has "$m: naming the value" "--ask-timeout 0: expected whole seconds from 1 to 3600"

	# The deadline is far: every decision below is the operator's.
	jl "$m" --allow allowed.test:80 --control "$S" --ask --ask-timeout 600 \
		--log "$log" --json "$sum" -- "$JR_TMP/inside.sh" "$D" \
		>"$JR_W/run-$m.out" 2>&1 &
	pid=$!
	in_ok "the sandbox runs" 0 "" true
	[ "$IN_RC" = 0 ] || continue # nothing below can pass; the log says why
	in_ok "the command's resolver waits for a held lookup" 0 "options timeout:30 attempts:2" \
		"cat /etc/resolv.conf"
	ctl_ok "nothing held yet" 0 '{"ok":true,"op":"pending","pending":[]}' -- pending

	# ------------------------------------------------ proxy: once, deny
	bg p1 "$CURLI http://denied.test/once1"
	held_ok "a proxy request to denied.test" denied.test proxy 80
	ctl_ok "pending lists it" 0 "{\"id\":\"$ID\",\"host\":\"denied.test\",\"port\":80,\"via\":\"proxy\",\"age_ms\":" -- pending
	ctl_ok "approve once" 0 "{\"ok\":true,\"op\":\"approve\",\"id\":\"$ID\"}" -- approve "$ID"
	bg_ok "approved: the lab's denied.test answers" p1 0 "served-by: denied.test"
	lab_web_served denied.test /once1 && ok "$m: the lab served /once1" ||
		fail "$m: the lab never served /once1"
	ctl_ok "a decided id is gone" 1 '"ok":false' "no held request $ID" -- approve "$ID"
	bg p2 "$CURLI http://denied.test/once2"
	held_ok "once is once: the next request is held again" denied.test proxy 80
	ctl_ok "deny" 0 "{\"ok\":true,\"op\":\"deny\",\"id\":\"$ID\"}" -- deny "$ID"
	bg_ok "denied: 403 as the policy refuses" p2 0 "HTTP/1.1 403"
	grep -q "X-Jailrun-Deny: not-allowed" "$D/p2.out" &&
		ok "$m: denied: X-Jailrun-Deny: not-allowed" ||
		fail "$m: denied: no X-Jailrun-Deny: not-allowed: $(cat "$D/p2.out")"
	lab_web_served denied.test /once2 && fail "$m: the lab served /once2 though denied" ||
		ok "$m: the lab never saw /once2"
	ctl_ok "an unknown id" 1 '"ok":false' 'no held request 999' -- deny 999
	ctl_ok "a bad id" 1 '"ok":false' 'not a request number' -- deny 0x1

	# ------------------------------------------------ proxy: always
	bg w1 "$CURL http://other.test/always1"
	held_ok "a proxy request to other.test" other.test proxy 80
	first=$ID
	bg w1b "$CURL http://other.test/always1b"
	if wait_until 120 n_held_is 2 other.test; then ok "$m: a second request to other.test is held too"; else
		fail "$m: the second request to other.test was never held: $(ctl pending 2>&1)"; fi
	ctl_ok "approve --always" 0 '"entry":"other.test:80","also_approved":1' -- approve "$first" --always
	bg_ok "approved: other.test answers" w1 0 200
	bg_ok "the other held request the entry allows is approved with it" w1b 0 200
	in_ok "always: the next request goes straight through" 0 200 \
		"$CURL -m 20 http://other.test/always2"
	ctl_ok "always: a live entry" 0 '{"entry":"other.test:80","live":true}' -- list
	ctl_ok "always: nothing held" 0 '"pending":[]' -- pending

	# ------------------------------------------------ a client that leaves
	bg a1 "$CURL http://denied.test/abandon & p=\$!; while [ ! -e $D/a1.go ]; do sleep 0.02; done; kill \$p; wait \$p"
	held_ok "a request whose client gives up" denied.test proxy 80
	: >"$D/a1.go"
	bg_ok "its client gave up (killed)" a1 '!0' ""
	if wait_until 120 n_held_is 0 denied.test; then ok "$m: the request left pending with its client"; else
		fail "$m: the abandoned request is still pending: $(ctl pending 2>&1)"; fi

	# ------------------------------------------------ DNS
	bg d1 "getent ahostsv4 dnsheld.test"
	held_ok "a lookup of dnsheld.test" dnsheld.test dns
	ctl_ok "pending: a lookup has no port" 0 '"host":"dnsheld.test","port":null,"via":"dns"' -- pending
	ctl_ok "approve the lookup" 0 '"ok":true' -- approve "$ID"
	bg_ok "approved: a synthetic address" d1 0 "198.1"
	bg d2 "getent ahostsv4 dnsdenied.test"
	held_ok "a lookup of dnsdenied.test" dnsdenied.test dns
	ctl_ok "deny the lookup" 0 '"ok":true' -- deny "$ID"
	bg_ok "denied: the name does not resolve" d2 2 ""
	lab_dns_queried dnsdenied.test && fail "$m: the lab DNS was asked for a denied name" ||
		ok "$m: the lab DNS never saw dnsdenied.test"

	# ------------------------------------------------ transparent
	bg t0 "getent ahostsv4 denied.test"
	held_ok "a lookup of denied.test" denied.test dns
	ctl_ok "approve it" 0 '"ok":true' -- approve "$ID"
	bg_ok "denied.test has a synthetic address" t0 0 "198.1"
	fake=$(awk 'NR == 1 { print $1 }' "$D/t0.out")
	bg t1 "$CURLN --resolve denied.test:80:$fake http://denied.test/capt1"
	held_ok "a captured connection to denied.test" denied.test transparent 80
	ctl_ok "approve it" 0 '"ok":true' -- approve "$ID"
	bg_ok "approved: captured, the lab's denied.test answers" t1 0 "served-by: denied.test"
	bg t2 "$CURLN --resolve denied.test:80:$fake http://denied.test/capt2"
	held_ok "the next captured connection" denied.test transparent 80
	ctl_ok "deny it" 0 '"ok":true' -- deny "$ID"
	bg_ok "denied: reset" t2 '!0' ""
	grep -qi "reset\|Recv failure\|Empty reply" "$D/t2.out" &&
		ok "$m: the denied capture was reset" ||
		fail "$m: the denied capture: $(cat "$D/t2.out")"
	lab_web_served denied.test /capt2 && fail "$m: the lab served /capt2 though denied" ||
		ok "$m: the lab never saw /capt2"

	# A capture held longer than the header timeout (10 s) gets the whole
	# header timeout for its first bytes from its approval, not from its
	# accept (which would reset it at the next tick of the sweep).
	# A lookup held meanwhile is the clock: the rest of the head is sent
	# once its age_ms (jailrun's own clock) has grown by 600 ms since the
	# approval, two ticks of the sweep that would have reset it.
	bg clk "getent ahostsv4 clock.test"
	held_ok "a lookup held as a clock" clock.test dns
	clk=$ID
	bg slow "$PYTHON $JR_TMP/slow.py denied.test $fake $D"
	held_ok "a captured connection that sent half its head" denied.test transparent 80
	if wait_until 120 aged_past "$ID" 10500; then ok "$m: held past the header timeout (jailrun's age_ms)"; else
		fail "$m: the held capture never aged: $(ctl pending 2>&1)"; fi
	ctl_ok "approve it" 0 '"ok":true' -- approve "$ID"
	t0=$(age_of "$clk")
	wait_until 120 aged_past "$clk" $((t0 + 600)) || fail "$m: the clock lookup stopped aging"
	: >"$D/slow.go"
	bg_ok "approved after the header timeout: its head completes and is answered" slow 0 "served-by: denied.test"
	ctl_ok "deny the clock" 0 '"ok":true' -- deny "$clk"
	bg_ok "the clock lookup is refused" clk 2 ""

	# ------------------------------------------------ never overrides the guard
	bg s1 "$CURLI http://loopback.test:8080/ssrf1"
	held_ok "loopback.test (127.0.0.1 by name) is held: the policy's refusal" loopback.test proxy 8080
	ctl_ok "approve it" 0 '"ok":true' -- approve "$ID"
	bg_ok "approved, still refused by the SSRF guard" s1 0 "X-Jailrun-Deny: special-address"
	in_ok "a literal special address is refused at once, never held" 0 "HTTP/1.1 403" \
		"curl --noproxy '' -sS -m 20 -i http://127.0.0.1:8080/ssrf2"
	ctl_ok "nothing held" 0 '"pending":[]' -- pending

	# ------------------------------------------------ the end
	post exit
	st=0
	wait "$pid" || st=$?
	[ "$st" = 0 ] && ok "$m: the sandbox ended (status 0)" ||
		fail "$m: the sandbox: jailrun exited $st: $(cat "$JR_W/run-$m.out")"
	n_app=$(grep -c '"event":"ask","detail":"approved ' "$log" || true)
	n_den=$(grep -c '"event":"ask","detail":"denied by the operator ' "$log" || true)
	[ "$n_app" = 8 ] && [ "$n_den" = 4 ] &&
		ok "$m: an ask line per decision (8 approved, 4 denied)" ||
		fail "$m: ask lines: $n_app approved, $n_den denied: $(grep '"ask"' "$log")"
	grep -q '"event":"ask","detail":"approved [0-9]*: other.test:80 via proxy after [0-9]* ms; always: entry '"'"'other.test:80'"'"' added"' "$log" &&
		ok "$m: the always line names the entry" ||
		fail "$m: no always line: $(grep '"ask"' "$log")"
	grep -q '"host":"denied.test","port":80,.*"reason":"ask-abandoned"' "$log" &&
		ok "$m: the abandoned request is audited ask-abandoned" ||
		fail "$m: no ask-abandoned line: $(grep denied.test "$log")"
	grep -q '"event":"ask","detail":"approved [0-9]*: other.test:80 via proxy after [0-9]* ms; allowed by the entry approved for '"$first"'"' "$log" &&
		ok "$m: the request approved with the entry says so" ||
		fail "$m: no line for the request approved with the entry: $(grep '"ask"' "$log")"
	n=$(grep -c '"verdict":"deny","reason":"ask-denied"' "$log" || true)
	[ "$n" = 4 ] && ok "$m: four connection or query lines say ask-denied" ||
		fail "$m: $n ask-denied lines: $(grep ask-denied "$log")"
	expect_status 0 "$m: the audit log validates" \
		python3 "$JR_TMP/schemacheck.py" "$JR_TOP_SRCDIR/docs/schema/audit.schema.json" --lines "$log"
	expect_status 0 "$m: the summary validates" \
		python3 "$JR_TMP/schemacheck.py" "$JR_TOP_SRCDIR/docs/schema/summary.schema.json" "$sum"
	if python3 -c 'import json, sys; a = json.load(open(sys.argv[1]))["network"]["ask"]; sys.exit(a != {"approved": 8, "denied": 4, "timed_out": 0})' "$sum"; then
		ok "$m: the summary counts 8 approved, 4 denied"
	else
		fail "$m: the summary's ask: $(cat "$sum")"
	fi

	# ------------------------------------------------ timeout
	: >"$log"
	expect_status 0 "$m: --ask-timeout 1: a held request is refused when it passes" \
		jl "$m" --allow allowed.test --control "$S" --ask --ask-timeout 1 --log "$log" \
		--json "$sum" -- sh -c "curl -sS -m 200 -i http://denied.test/late; getent ahostsv4 late.test; echo getent=\$?"
	expect_output_has "$m: timeout: 403 as the policy refuses" "X-Jailrun-Deny: not-allowed"
	expect_output_has "$m: timeout: the lookup is refused too" "getent=2"
	grep -q '"event":"ask","detail":"ask-timeout [0-9]*: denied.test:80 via proxy' "$log" &&
		ok "$m: timeout: the ask line says ask-timeout" ||
		fail "$m: timeout: no ask-timeout line: $(grep '"ask"' "$log")"
	grep -q '"host":"denied.test","port":80.*"verdict":"deny","reason":"ask-timeout"' "$log" &&
		ok "$m: timeout: the connection line's reason is ask-timeout" ||
		fail "$m: timeout: the connection line: $(grep denied.test "$log")"
	if python3 -c 'import json, sys; a = json.load(open(sys.argv[1]))["network"]["ask"]; sys.exit(a != {"approved": 0, "denied": 0, "timed_out": 2})' "$sum"; then
		ok "$m: timeout: the summary counts 2 timed out"
	else
		fail "$m: timeout: the summary's ask: $(cat "$sum")"
	fi

	# ------------------------------------------------ a managed deny
	# Refused at once (a held request would wait out curl's -m 60: 28).
	: >"$log"
	expect_status 0 "$m: a managed deny is never held" \
		jle "$m" --allow allowed.test --control "$S" --ask --ask-timeout 600 --log "$log" \
		-- curl -sS -m 60 -i http://managed.test/m1
	expect_output_has "$m: managed deny: refused as managed-deny" "X-Jailrun-Deny: managed-deny"
	grep -q '"event":"ask"' "$log" && fail "$m: managed deny: an ask line: $(grep '"ask"' "$log")" ||
		ok "$m: managed deny: no ask line"

	# ------------------------------------------------ a live sandbox
	N="ask-$m"
	expect_status 0 "$m: jailrun start --control --ask" \
		lv "$m" start "$N" --allow allowed.test --control "$S" --ask
	lv "$m" exec "$N" -- curl -sS -m 200 http://denied.test/live1 >"$D/live.out" 2>&1 &
	epid=$!
	held_ok "live: a request of an exec'd command is held" denied.test proxy 80
	ctl_ok "live: a pool's K.N id is refused on a sandbox's socket" 1 \
		"names a request of a pool's sandbox" -- deny "1.$ID"
	ctl_ok "live: approve it" 0 '"ok":true' -- approve "$ID"
	st=0
	wait "$epid" || st=$?
	[ "$st" = 0 ] && grep -q "served-by: denied.test" "$D/live.out" &&
		ok "$m: live: approved, the lab answers" ||
		fail "$m: live: status $st: $(cat "$D/live.out")"
	expect_status 0 "$m: live: stop" lv "$m" stop "$N"

	# ------------------------------- a live sandbox's own policy socket
	# Without --control, jailrun start --ask serves NAME.ctl beside
	# NAME.sock (mode 0600), and jailrun ctl NAME reaches it.
	expect_status 0 "$m: jailrun start --ask, no --control" \
		lv "$m" start "$N-own" --allow allowed.test --ask
	if [ "$m" = root ]; then dir=/run/jailrun; else dir=$XDG/jailrun; fi
	want="600 $(as_mode "$m" id -un)"
	got=$(stat -c '%a %U' "$dir/$N-own.ctl" 2>&1 || true)
	[ "$got" = "$want" ] && ok "$m: live: NAME.ctl is there, $got" ||
		fail "$m: live: $dir/$N-own.ctl: '$got', not '$want'"
	lv "$m" exec "$N-own" -- curl -sS -m 200 -o /dev/null -w '%{http_code}' \
		http://denied.test/live-own >"$D/live-own.out" 2>&1 &
	epid=$!
	S_PATH=$S
	S="$N-own" # jailrun ctl NAME
	held_ok "live, jailrun ctl NAME: the request is held" denied.test proxy 80
	ctl_ok "live, jailrun ctl NAME: deny it" 0 '"ok":true' -- deny "$ID"
	S=$S_PATH
	st=0
	wait "$epid" || st=$?
	[ "$st" = 0 ] && [ "$(cat "$D/live-own.out")" = 403 ] &&
		ok "$m: live, jailrun ctl NAME: denied, the command got 403" ||
		fail "$m: live, jailrun ctl NAME: status $st: $(cat "$D/live-own.out")"
	expect_status 0 "$m: live, jailrun ctl NAME: stop" lv "$m" stop "$N-own"
	[ ! -e "$dir/$N-own.ctl" ] && ok "$m: stop removed NAME.ctl" ||
		fail "$m: $dir/$N-own.ctl is left after stop"
done
finish
