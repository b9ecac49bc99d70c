#!/bin/bash
# Firewall-level refusals counted and attributed, in a lab, as root and
# rootless: a command that ignores the proxy connects to a raw IP address
# (raw.test's real one), sends UDP there, and connects to the host's end
# of the sandbox link (the gateway, where a tool looks for "the host's
# loopback" services), each exactly once. The --json summary's
# network.firewall_refused must equal the number of packets the firewall
# refused (TCP exactly: the reset answers the first SYN, nothing is
# retransmitted; UDP: one datagram, one packet), and the audit log must
# hold one "firewall-refused" line naming each destination. Every target
# is first shown to answer from the lab host without jailrun.
# Fails if: the count is missing, off by any packet (the kernel's own IPv6
# link chatter counted, a refusal not counted), 0 after refusals, not 0
# with none or on a set-up failure, or lost when the run ends by a signal;
# a refusal has no audit line, or a line names the wrong protocol,
# address or port; a flood writes more lines than the rate limit allows,
# or the lines and the suppressed count do not add up to the count; a
# summary or a line does not validate against docs/schema.
. "${JR_TOP_SRCDIR:-$(dirname "$0")/../..}/tests/lib.sh"
. "$JR_TOP_SRCDIR/tests/lab/lib.sh"
jr_require_sandbox
command -v python3 >/dev/null || skip "python3 is needed"
lab_setup --timeout 600 fwrefused # a hang guard, not a time limit
lab_on_exit jr_cleanup_tmp

install -m 755 "$JR_TOP_SRCDIR/tests/integration/firewall-refused.py" "$JR_TMP/probe.py"
install -m 644 "$JR_TOP_SRCDIR/tests/integration/schemacheck.py" "$JR_TMP/schemacheck.py"
SUMMARY_SCHEMA=$JR_TOP_SRCDIR/docs/schema/summary.schema.json
AUDIT_SCHEMA=$JR_TOP_SRCDIR/docs/schema/audit.schema.json
RAW4=$(lab_addr raw.test 4)
GW=100.64.77.1
ALLOW=(--allow allowed.test)
PROBE=(python3 "$JR_TMP/probe.py")
# The rate limit of the lines (src/net/nflogmsg.h, jailrun(1)).
BURST=100

# Positive controls: without jailrun, from the lab host, raw.test answers
# TCP on 9000 and UDP echo on 7, so a refusal inside is the firewall's.
expect_status 0 "control: $RAW4:9000 accepts TCP from the lab host" \
	lab_host python3 -c 'import socket, sys; socket.create_connection((sys.argv[1], 9000), 10).close()' "$RAW4"
expect_status 0 "control: $RAW4:7 echoes UDP from the lab host" \
	lab_host python3 -c '
import socket, sys
s = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
s.settimeout(10)
s.sendto(b"x", (sys.argv[1], 7))
assert s.recv(16) == b"x"' "$RAW4"

# json_is FILE DESC PYTHON-EXPR - a check on the summary FILE (as d).
json_is() {
	if python3 -c 'import json, sys; d = json.load(open(sys.argv[1])); sys.exit(0 if eval(sys.argv[2]) else 1)' \
		"$1" "$3" 2>/dev/null; then
		ok "$2"
	else
		fail "$2: $3 is false in $(cat "$1" 2>/dev/null || echo 'no summary')"
	fi
}

# refused_in FILE - firewall_refused of summary FILE, or "none".
refused_in() {
	python3 -c 'import json, sys; print(json.load(open(sys.argv[1]))["network"]["firewall_refused"])' \
		"$1" 2>/dev/null || echo none
}

for m in $(jr_modes); do
	d="$JR_W/$m"
	mkdir -m 1777 "$d"

	# --- each kind once
	log="$d/once.log"
	expect_status 0 "$m: the probe runs" jl "$m" "${ALLOW[@]}" --log "$log" \
		--json "$d/once.json" -- "${PROBE[@]}" \
		tcp "$RAW4" 9000 udp "$RAW4" 7 tcp "$GW" 8080
	probe_out=$OUT
	expect_output_has "$m: a TCP connect to a raw IP address is reset" "refused tcp $RAW4 9000"
	expect_output_has "$m: UDP to a raw IP address is refused" "refused udp $RAW4 7"
	expect_output_has "$m: a TCP connect to the host's end of the link is reset" "refused tcp $GW 8080"
	want=$(grep -c '^refused ' <<<"$probe_out" || true)
	got=$(refused_in "$d/once.json")
	if [ "$got" = "$want" ] && [ "$want" = 3 ]; then
		ok "$m: firewall_refused is the 3 packets refused"
	else
		fail "$m: firewall_refused is $got, the probe saw $want refused (want 3): $probe_out"
	fi
	audit_has "$m: a line names the TCP connect to $RAW4:9000" "$log" \
		'"event":"firewall-refused"' '"protocol":"tcp"' "\"address\":\"$RAW4\"" '"port":9000'
	audit_has "$m: a line names the UDP datagram to $RAW4:7" "$log" \
		'"event":"firewall-refused"' '"protocol":"udp"' "\"address\":\"$RAW4\"" '"port":7}'
	audit_has "$m: a line names the connect to $GW:8080" "$log" \
		'"event":"firewall-refused"' '"protocol":"tcp"' "\"address\":\"$GW\"" '"port":8080'
	lines=$(grep -c '"event":"firewall-refused"' "$log" || true)
	if [ "$lines" = "$got" ]; then
		ok "$m: one line per refused packet ($lines)"
	else
		fail "$m: $lines firewall-refused lines for $got refused packets: $(cat "$log")"
	fi
	expect_status 0 "$m: the summary validates" \
		python3 "$JR_TMP/schemacheck.py" "$SUMMARY_SCHEMA" "$d/once.json"
	expect_status 0 "$m: every audit line validates" \
		python3 "$JR_TMP/schemacheck.py" "$AUDIT_SCHEMA" --lines "$log"

	# --- nothing refused: 0, and no line (the kernel's own IPv6 link
	# chatter is not the command's)
	log="$d/none.log"
	expect_status 0 "$m: a run that tries nothing" jl "$m" "${ALLOW[@]}" --log "$log" \
		--json "$d/none.json" -- true
	json_is "$d/none.json" "$m: nothing refused, firewall_refused 0" \
		'd["network"]["firewall_refused"] == 0'
	if grep -q '"event":"firewall-refused' "$log"; then
		fail "$m: a run that tried nothing has firewall-refused lines: $(cat "$log")"
	else
		ok "$m: a run that tried nothing has no firewall-refused line"
	fi

	# --- a flood: every packet counted, the lines rate-limited, and the
	# lines plus the suppressed count add up to the count
	log="$d/flood.log"
	expect_status 0 "$m: a flood of 250 datagrams" jl "$m" "${ALLOW[@]}" --log "$log" \
		--json "$d/flood.json" -- "${PROBE[@]}" flood "$RAW4" 7 250
	expect_output_has "$m: every datagram of the flood refused" "flood 250 refused of 250"
	json_is "$d/flood.json" "$m: the flood counted whole" \
		'd["network"]["firewall_refused"] == 250'
	expect_status 0 "$m: flood lines: at least the burst, fewer than the packets, the rest counted as suppressed" \
		python3 - "$log" "$BURST" <<'PY'
import json, re, sys
lines = [json.loads(l) for l in open(sys.argv[1])]
n = sum(1 for l in lines if l["event"] == "firewall-refused")
unlogged = [l for l in lines if l["event"] == "firewall-refused-unlogged"]
assert len(unlogged) == 1, unlogged
suppressed = int(re.match(r"(\d+) refusals over the rate limit", unlogged[0]["detail"]).group(1))
print(n, "lines,", suppressed, "suppressed")
assert int(sys.argv[2]) <= n < 250, n
assert n + suppressed == 250, (n, suppressed)
PY
	expect_status 0 "$m: the flood's audit lines validate" \
		python3 "$JR_TMP/schemacheck.py" "$AUDIT_SCHEMA" --lines "$log"

	# --- ended by a signal: the count is read all the same
	marker="jr-fw-signal-$m-$$"
	: >"$d/signal.out"
	chmod 666 "$d/signal.out"
	jl "$m" "${ALLOW[@]}" --json "$d/signal.json" -- bash -c \
		'"$@" >"'"$d"'/signal.out"; exec -a '"$marker"' sleep 600' bash \
		"${PROBE[@]}" tcp "$RAW4" 9000 &
	bg=$!
	if pid=$(marker_pid "$marker"); then
		jpid=$(jr_runner_pid "$JR --allow allowed.test --json $d/signal.json")
		if [ -n "$jpid" ]; then
			kill -TERM "$jpid"
		else
			fail "$m: no runner found to signal"
			kill -KILL "$pid" 2>/dev/null || true
		fi
	else
		fail "$m: the signalled run never started its sleep"
	fi
	wait "$bg" || true
	if grep -q "^refused tcp $RAW4 9000" "$d/signal.out"; then
		ok "$m: the signalled run's connect was reset"
	else
		fail "$m: the signalled run's probe said: $(cat "$d/signal.out")"
	fi
	json_is "$d/signal.json" "$m: a run ended by SIGTERM still counts its refusal" \
		'd["network"]["firewall_refused"] == 1 and d["ended"] == "signaled"'

	# --- no sandbox, no firewall: 0 on a set-up failure and with --net none
	expect_status 125 "$m: a set-up failure" jl "$m" --allow 'bad entry!' \
		--json "$d/setup-failed.json" -- true
	json_is "$d/setup-failed.json" "$m: a set-up failure's summary says 0" \
		'd["ended"] == "setup-failed" and d["network"]["firewall_refused"] == 0'
	expect_status 0 "$m: --net none" jl "$m" --net none --json "$d/netnone.json" -- \
		"${PROBE[@]}" udp 127.0.0.2 7
	json_is "$d/netnone.json" "$m: --net none has no rejects to count" \
		'd["network"]["firewall_refused"] == 0'
done
finish
