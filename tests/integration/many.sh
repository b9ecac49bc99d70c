#!/bin/bash
# Many sandboxes at once: JR_MANY (default 50) `jailrun --allow allowed.test`
# started together in a lab, as root and rootless. Each must reach
# allowed.test through a relay of its own, in a network namespace of its
# own, while all of them are alive at the same time; afterwards nothing of
# them may be left.
# Fails if: a sandbox fails (its status and output are shown); two
# sandboxes share a network namespace; a relay serves, or logs, another
# sandbox's request (the same gateway address in every sandbox is only
# possible when each has its own relay netns); a summary is missing or does
# not count exactly its own request; a jailrun process, a process in one
# of the sandboxes' network namespaces, a veth in the lab host or a
# cgroup directory survives the runs.
. "${JR_TOP_SRCDIR:-$(dirname "$0")/../..}/tests/lib.sh"
. "$JR_TOP_SRCDIR/tests/lab/lib.sh"
jr_require_sandbox
lab_setup --timeout 1800 many # a hang guard, not a time limit: generous
lab_on_exit jr_cleanup_tmp
lab_on_exit 'exec 9>&- 2>/dev/null || true'

N=${JR_MANY:-50}
# Per sandbox: a hang guard only. Fifty start-ups on two busy cores queue
# for the CPU; nothing here judges how long they take.
JR_RUN_LIMIT=${JR_MANY_RUN_LIMIT:-600}

cg_leftovers() {
	find /sys/fs/cgroup -mindepth 1 -maxdepth 8 -type d -name 'jailrun.*' 2>/dev/null | sort
}
links_before=$(lab_host ip -o link show | awk -F': ' '{ print $2 }' | sort | tr '\n' ' ')
cg_before=$(cg_leftovers)

for m in $(jr_modes); do
	d="$JR_W/many-$m"
	mkdir -m 1777 "$d"
	lab_logs_clear
	# (No cgroup limits: the lab host's mount namespace, made like 'ip
	# netns exec' does, has no cgroup filesystem; limits.sh covers them.)
	# The barrier: every sandbox's command takes a shared lock on go.lock
	# once it has reached allowed.test, and blocks while we hold it
	# exclusively; so all N are alive together when we look at them.
	: >"$d/go.lock"
	chmod 644 "$d/go.lock"
	exec 9<"$d/go.lock"
	flock -x 9
	# The start barrier: each runner waits for a shared lock on start.lock
	# (no polling), released once every one of them is queued.
	: >"$d/start.lock"
	exec 8<"$d/start.lock"
	flock -x 8
	pids=()
	for i in $(seq 1 "$N"); do
		(
			set +e
			as_flock() { flock -s "$d/start.lock" true; }
			as_flock
			jl "$m" --allow allowed.test --json "$d/s-$i.json" --log "$d/audit-$i.log" \
				-- sh -c '
set -e
curl -sS -m 120 -o "$1/body-$2" "http://allowed.test/many-$2"
readlink /proc/self/ns/net >"$1/ns-$2.tmp"
mv "$1/ns-$2.tmp" "$1/ns-$2"
exec flock -s "$1/go.lock" true' sh "$d" "$i" >"$d/out-$i" 2>&1
			echo $? >"$d/st-$i"
		) &
		pids+=($!)
	done
	flock -u 8
	exec 8<&-
	# Wait (bounded) until every sandbox has reached allowed.test or ended.
	all_there() {
		local i
		for i in $(seq 1 "$N"); do
			[ -e "$d/ns-$i" ] || [ -e "$d/st-$i" ] || return 1
		done
	}
	if wait_until 1200 all_there; then ok "$m: all $N sandboxes reached allowed.test or ended"; else fail "$m: some sandboxes neither reached allowed.test nor ended"; fi
	nss=$(cat "$d"/ns-* 2>/dev/null | sort || true)
	nalive=$(grep -c . <<<"$nss" || true)
	ndistinct=$(sort -u <<<"$nss" | grep -c . || true)
	[ "$nalive" = "$N" ] && ok "$m: $N sandboxes alive at once, each past its allowed.test fetch" ||
		fail "$m: only $nalive of $N sandboxes got through"
	[ "$ndistinct" = "$nalive" ] && ok "$m: $ndistinct distinct network namespaces" ||
		fail "$m: network namespaces shared: $(uniq -d <<<"$nss" | head -3)"
	# Release them all and count the results.
	flock -u 9
	exec 9<&-
	for p in "${pids[@]}"; do wait "$p" || true; done
	good=0
	for i in $(seq 1 "$N"); do
		st=$(cat "$d/st-$i" 2>/dev/null || echo none)
		if [ "$st" = 0 ] && grep -q "^path: /many-$i$" "$d/body-$i" 2>/dev/null; then
			good=$((good + 1))
		else
			fail "$m: sandbox $i: status $st: $(head -c 600 "$d/out-$i" 2>/dev/null)"
		fi
	done
	[ "$good" = "$N" ] && ok "$m: $good of $N exited 0 with allowed.test's answer to their own request"
	# Each relay served its own sandbox, and only it.
	if python3 - "$d" "$N" <<'PY'
import json, sys
d, n = sys.argv[1], int(sys.argv[2])
bad = []
for i in range(1, n + 1):
    s = json.load(open(f"{d}/s-{i}.json"))
    if s["exit_status"] != 0 or s["network"]["allowed"] != 1 or s["network"]["denied"] != 0 \
            or not s["network"]["rules_verified"]:
        bad.append((i, "summary", s["exit_status"], s["network"]))
    conns = [json.loads(l) for l in open(f"{d}/audit-{i}.log")]
    conns = [e for e in conns if "verdict" in e]
    # One relay per sandbox: its log holds exactly the one request its
    # own command made (any other sandbox's would make it two or more).
    if len(conns) != 1 or conns[0]["verdict"] != "allow" or conns[0]["host"] != "allowed.test":
        bad.append((i, "audit", conns[:3]))
if bad:
    print(bad[:5])
    sys.exit(1)
PY
	then ok "$m: every summary counts exactly one allowed request, every relay logged its own"
	else fail "$m: summaries or audit logs of other sandboxes' traffic"; fi
	served=$(awk '$2 == "allowed.test" && $6 ~ /^\/many-/ { print $6 }' "$LAB_WEBLOG" | sort -u | grep -c . || true)
	[ "$served" = "$N" ] && ok "$m: allowed.test served $N distinct requests" || fail "$m: allowed.test served $served distinct requests"

	# Nothing left: no runner, no process in their netns, no link, no cgroup.
	left=$(pgrep -f "^$JR " || true)
	[ -z "$left" ] && ok "$m: no jailrun process left" || fail "$m: jailrun processes left: $left"
	held=$(for p in /proc/[0-9]*; do readlink "$p/ns/net" 2>/dev/null; done | sort -u | comm -12 - <(sort -u <<<"$nss") || true)
	[ -z "$held" ] && ok "$m: no process is left in any of the $N network namespaces" || fail "$m: still alive: $held"
	links=$(lab_host ip -o link show | awk -F': ' '{ print $2 }' | sort | tr '\n' ' ')
	[ "$links" = "$links_before" ] && ok "$m: the lab host's links are as before ($links)" || fail "$m: lab host links: $links (before: $links_before)"
	cg_left=$(comm -13 <(echo "$cg_before") <(cg_leftovers) | grep . || true)
	[ -z "$cg_left" ] && ok "$m: no cgroup directory left" || fail "$m: cgroups left: $cg_left"
done

finish
