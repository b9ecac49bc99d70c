#!/bin/bash
# The watchdog: a table added from outside is removed within 100 ms and
# logged; "nft flush ruleset" from outside leaves the owned table; with
# --on-tamper kill the sandbox ends with 125; a process of the sandbox in
# a network namespace jailrun did not arm ends it too, unless
# --allow-nested.
# Fails if: tampering goes unnoticed or unrestored, the latency exceeds
# 100 ms, --on-tamper kill does not kill, or the namespace check is blind.
. "${JR_TOP_SRCDIR:-$(dirname "$0")/../..}/tests/lib.sh"
jr_require_sandbox
[ "$(id -u)" -eq 0 ] || skip "tampering from outside needs root (nsenter into the sandbox's netns)"
command -v nft >/dev/null || skip "nft(8) is needed"

# start_sleeper MODE MARKER ARGS... - a sandboxed sleep; sets CPID (its pid).
start_sleeper() {
	local m=$1 marker=$2
	shift 2
	jr "$m" "$@" -- bash -c "exec -a $marker sleep 20" >"$JR_W/out-$marker" 2>&1 &
	BG=$!
	CPID=$(marker_pid "$marker")
}

in_ns() { nsenter --net="/proc/$CPID/ns/net" "$@"; }

for m in $(jr_modes); do
	marker="jr-wd-$m-$$"
	rm -f "$JR_W/wd-$m.json"
	start_sleeper "$m" "$marker" --json "$JR_W/wd-$m.json" --log "$JR_W/wd-$m.log" ||
		{ fail "$m: sandbox did not start"; continue; }

	# flush from outside: the owned table stays.
	in_ns nft flush ruleset
	if grep -q 'inet jailrun' <<<"$(in_ns nft list tables)"; then ok "$m: 'nft flush ruleset' from outside leaves the table"; else fail "$m: flush removed the table"; fi

	# a foreign table with an accept chain: removed, quickly.
	t0=$(date +%s%N)
	in_ns nft add table inet evil
	gone=
	for _ in $(seq 1 500); do
		if ! grep -q 'inet evil' <<<"$(in_ns nft list tables)"; then gone=$(( ($(date +%s%N) - t0) / 1000000 )); break; fi
		sleep 0.002
	done
	if [ -n "$gone" ] && [ "$gone" -le 100 ]; then ok "$m: foreign table removed within 100 ms (seen gone after $gone ms)"; else fail "$m: foreign table still there: ${gone:-never removed}"; fi
	echo "tamper re-arm latency ($m), as seen from outside: ${gone:-?} ms"

	kill -TERM "$(pgrep -o -f "^$JR --json $JR_W/wd-$m.json")" 2>/dev/null || true
	wait "$BG" 2>/dev/null || true
	if python3 - "$JR_W/wd-$m.json" "$JR_W/wd-$m.log" <<'PY'
import json, sys
n = json.load(open(sys.argv[1]))["network"]
assert n["tamper_events"] >= 1 and n["restores"] >= 1, n
assert 0 < n["max_restore_us"] < 100000, n
print("watchdog restore time (detection to verified):", n["max_restore_us"], "us")
events = [json.loads(l) for l in open(sys.argv[2])]
t = [e for e in events if e["event"] == "tamper"]
assert t and "inet evil" in t[0]["detail"] and "restored" in t[0]["detail"], events
PY
	then ok "$m: summary and log record the tamper event and its restore time"; else fail "$m: summary/log: $(cat "$JR_W/wd-$m.json")"; fi

	# --on-tamper kill
	marker="jr-wdk-$m-$$"
	start_sleeper "$m" "$marker" --on-tamper kill --json "$JR_W/wdk-$m.json" ||
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

	# A process in a network namespace jailrun did not arm (possible only
	# with the seccomp filter off): the sandbox ends.
	expect_status 125 "$m: foreign netns ends the sandbox" jr "$m" --seccomp off --watchdog-interval 0.05 -- \
		sh -c 'unshare -rn sleep 5'
	expect_output_has "$m: and says why" "in a network namespace jailrun did not arm"
	expect_status 0 "$m: --allow-nested allows it" jr "$m" --allow-nested --watchdog-interval 0.05 -- \
		sh -c 'unshare -rn sh -c "sleep 0.3; tail -n +3 /proc/net/dev | cut -d: -f1 | tr -d \" \""'
	expect_output_has "$m: the nested netns has only lo" "lo"
done

finish
