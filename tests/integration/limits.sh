#!/bin/bash
# Resource limits: --rlimit (every mode) and --memory/--pids/--cpus through
# a cgroup of the sandbox's own, on whichever layout this host has (cgroup
# v1/hybrid or v2; the test says which it exercised).
# Fails if: an rlimit does not reach the command or can be raised past the
# hard limit; a bad value runs anything; --pids does not stop a fork loop
# (the command must see EAGAIN, the summary's high-water must be <= the
# limit); --memory does not end a hog by the OOM killer or the summary does
# not count it; --cpus does not set the quota the kernel enforces; a cgroup
# directory is left behind (also after a timeout or a failed exec);
# rootless without delegation runs the command without its limit instead
# of exit 125 with the fix; --check does not report the layout.
. "${JR_TOP_SRCDIR:-$(dirname "$0")/../..}/tests/lib.sh"
jr_require_sandbox

# Where a controller lives for this process, seen from the test itself
# (not from jailrun's code): prints "v1 DIR" or "v2 DIR" or nothing.
# cg_dir CONTROLLER [PID]
cg_dir() {
	python3 - "$1" "${2:-self}" <<'PY'
import sys
ctrl, pid = sys.argv[1], sys.argv[2]
paths, v2 = {}, None
for line in open(f"/proc/{pid}/cgroup"):
    i, ctrls, path = line.rstrip("\n").split(":", 2)
    if i == "0" and ctrls == "":
        v2 = path
    for c in ctrls.split(","):
        paths[c] = path
v2dir = None
for line in open("/proc/self/mountinfo"):
    pre, post = line.split(" - ", 1)
    f = pre.split()
    root, mnt = f[3], f[4]
    fstype, _src, sup = post.split()[:3]
    rel = lambda p: p[len(root):] if root != "/" else p
    if fstype == "cgroup" and ctrl in sup.split(",") and ctrl in paths:
        print("v1", (mnt + rel(paths[ctrl])).rstrip("/"))
        sys.exit(0)
    if fstype == "cgroup2" and v2 is not None and v2dir is None:
        v2dir = (mnt + rel(v2)).rstrip("/")
if v2dir:
    try:
        have = open(v2dir + "/cgroup.controllers").read().split()
    except OSError:
        have = []
    if ctrl in have:
        print("v2", v2dir)
PY
}

# Every jailrun.* cgroup directory on the host that no live runner holds,
# sorted (to compare before and after: nothing new may be left). Each is
# named jailrun.PID.RANDOM after its runner (cgroup.c): one whose runner
# still runs is a sandbox of another test or suite running beside this
# one, in use, not left over; this test's own runners have all ended when
# it looks, so one of theirs left behind is still seen.
cg_leftovers() {
	local d pid
	find /sys/fs/cgroup -mindepth 1 -maxdepth 8 -type d -name 'jailrun.*' 2>/dev/null | sort |
		while read -r d; do
			pid=${d##*/jailrun.}
			pid=${pid%%.*}
			[ "$(cat "/proc/$pid/comm" 2>/dev/null)" = jailrun ] || echo "$d"
		done
}
CG_BEFORE=$(cg_leftovers)

read -r LAYOUT MEMDIR <<<"$(cg_dir memory)" || true
echo "cgroup layout for memory/pids/cpu on this host: ${LAYOUT:-none} (${MEMDIR:-no memory controller})"
if [ -z "$LAYOUT" ] && [ "$(id -u)" -eq 0 ]; then
	fail "no hierarchy offers the memory controller: the cgroup limits cannot be tested here"
fi
v2ctl=$(cat /sys/fs/cgroup/cgroup.controllers /sys/fs/cgroup/unified/cgroup.controllers 2>/dev/null | tr '\n' ' ' || true)
if [ "$LAYOUT" != v2 ]; then
	echo "NOTE: the cgroup v2 code path did NOT run on this host: its cgroup2 tree offers the controllers '${v2ctl% }' and memory, pids and cpu are bound to cgroup v1, where the cases below ran; a v2 host runs them through v2"
fi

# summary_check NAME FILE PYTHON-ASSERTIONS (d = the summary, l = d["limits"])
summary_check() {
	if python3 - "$2" "$3" <<'PY'
import json, sys
d = json.load(open(sys.argv[1]))
l = d["limits"]
exec(sys.argv[2])
PY
	then ok "$1"; else fail "$1: $(cat "$2")"; fi
}

for m in $(jr_modes); do
	# --rlimit reaches the command, soft and hard; jailrun's own processes
	# keep theirs (the runner needs more than 64 descriptors).
	expect_status 0 "$m: --rlimit nofile=64 fsize=1m" jr "$m" --rlimit nofile=64 --rlimit fsize=1m \
		--json "$JR_W/rl-$m.json" -- sh -c 'ulimit -n; grep -E "^Max (open files|file size)" /proc/self/limits'
	if grep -qx 64 <<<"$OUT" && grep -Eq '^Max open files +64 +64 ' <<<"$OUT" &&
		grep -Eq '^Max file size +1048576 +1048576 ' <<<"$OUT"; then
		ok "$m: the command sees nofile 64/64 and fsize 1m/1m"
	else
		fail "$m: rlimits not seen by the command: $OUT"
	fi
	summary_check "$m: summary lists the rlimits, no cgroup" "$JR_W/rl-$m.json" \
		'assert l["rlimits"] == {"nofile": 64, "fsize": 1048576}, l; assert l["cgroup"] is None, l'
	# fsize is enforced: writing past it is SIGXFSZ (128+25).
	expect_status 153 "$m: --rlimit fsize=1m stops a 2m write" jr "$m" --rlimit fsize=1m -- \
		dd if=/dev/zero of="$JR_W/big-$m" bs=1M count=2
	# Above the hard limit: refused before anything runs, with the fix.
	rm -f "$JR_W/ran-$m"
	expect_status 125 "$m: --rlimit above the hard limit is refused" as_mode "$m" \
		prlimit --nofile=200:200 timeout -k 5 "$JR_RUN_LIMIT" "$JR" --rlimit nofile=201 -- touch "$JR_W/ran-$m"
	expect_output_has "$m: the refusal names the hard limit and the fix" "above the hard limit 200"
	expect_output_has "$m: the refusal says how to raise it" "LimitNOFILE="
	expect_status 0 "$m: --rlimit at the hard limit is fine" as_mode "$m" \
		prlimit --nofile=200:200 timeout -k 5 "$JR_RUN_LIMIT" "$JR" --rlimit nofile=200 -- sh -c 'test "$(ulimit -n)" = 200'
	[ ! -e "$JR_W/ran-$m" ] && ok "$m: nothing ran after the refusal" || fail "$m: the command ran"
	# Bad values: the option and the rule, nothing runs.
	for bad in "--rlimit nofile=abc" "--rlimit stack" "--rlimit files=3" "--memory 12" \
		"--memory 5x" "--pids 1" "--pids -3" "--cpus 0" "--cpus 0.001" "--cpus x"; do
		# shellcheck disable=SC2086
		expect_status 125 "$m: $bad is refused" jr "$m" $bad -- touch "$JR_W/ran-$m"
		expect_output_has "$m: $bad: the message names the option" "${bad%% *} "
	done
	[ ! -e "$JR_W/ran-$m" ] && ok "$m: no bad value ran anything" || fail "$m: a bad value ran the command"
done

# Rootless: a cgroup limit needs a cgroup the caller may write (root, or a
# delegated subtree). Without one: exit 125 with the fix, never a run
# without the limit.
delegated=no
if [ -n "$MEMDIR" ] && as_mode rootless test -w "$MEMDIR" -a -w "$MEMDIR/cgroup.procs"; then delegated=yes; fi
for opt in "--memory 64m" "--pids 20" "--cpus 0.5"; do
	rm -f "$JR_W/ran-rootless"
	if [ "$delegated" = no ]; then
		# shellcheck disable=SC2086
		expect_status 125 "rootless: $opt without a delegated cgroup is exit 125" \
			jr rootless $opt -- touch "$JR_W/ran-rootless"
		expect_output_has "rootless: $opt: the message gives the fix" "Delegate=yes"
		[ ! -e "$JR_W/ran-rootless" ] && ok "rootless: $opt: the command did not run" ||
			fail "rootless: $opt: the command ran without its limit"
	else
		# shellcheck disable=SC2086
		expect_status 0 "rootless: $opt in a delegated cgroup" jr rootless $opt -- touch "$JR_W/ran-rootless"
	fi
done

if [ "$(id -u)" -eq 0 ] && [ -n "$LAYOUT" ]; then
	m=root
	# --pids 20: a fork loop meets EAGAIN; init and the command count.
	expect_status 0 "$m: --pids 20 with a fork loop" jr "$m" --pids 20 --json "$JR_W/pids.json" -- python3 -c '
import errno, os
r, w = os.pipe()
n = 0
while n < 1000:
    try:
        pid = os.fork()
    except OSError as e:
        print("fork:", errno.errorcode[e.errno], "after", n, flush=True)
        break
    if pid == 0:
        os.read(r, 1)
        os._exit(0)
    n += 1
'
	expect_output_has "$m: the fork loop saw EAGAIN" "fork: EAGAIN after"
	summary_check "$m: pids high-water <= 20, refusals counted, layout $LAYOUT" "$JR_W/pids.json" "
assert l['cgroup'] == '$LAYOUT', l
assert l['pids_max'] == 20, l
assert l['pids_peak'] is None or 10 <= l['pids_peak'] <= 20, l
assert l['pids_refused'] is None or l['pids_refused'] >= 1, l
assert l['cgroup_removed'] is True, l
assert l['pids_refused'] is None or 'pids' in d['limits_hit'], d['limits_hit']"
	# Inside, the cgroup namespace is rooted at the sandbox's own cgroup:
	# the command cannot name (let alone reach) the runner's.
	expect_status 0 "$m: the command's view of its cgroups" jr "$m" --pids 20 -- cat /proc/self/cgroup
	if [ -n "$OUT" ] && ! grep -qv ':/$' <<<"$OUT"; then ok "$m: every cgroup is \"/\" inside"; else fail "$m: cgroups inside: $OUT"; fi

	# --memory 64m: a hog is ended by the OOM killer, which the summary
	# counts; the peak stays at the limit.
	expect_status 137 "$m: --memory 64m ends a memory hog (SIGKILL)" jr "$m" --memory 64m \
		--json "$JR_W/mem.json" -- python3 -c '
a = []
while True:
    a.append(b"x" * (1 << 20))'
	summary_check "$m: summary counts the OOM kill, peak within the limit" "$JR_W/mem.json" "
assert l['cgroup'] == '$LAYOUT', l
assert l['memory_max'] == 64 << 20, l
assert l['oom_kills'] >= 1, l
assert 32 << 20 <= l['memory_peak'] <= 64 << 20, l
assert l['cgroup_removed'] is True, l"
	# ...and reads as an OOM kill, not as "signaled" or "exited" 137.
	summary_check "$m: the OOM kill reads oom-killed, limits_hit memory" "$JR_W/mem.json" "
assert d['ended'] == 'oom-killed' and d['exit_status'] == 137, d['ended']
assert d['limits_hit'] == ['memory'], d['limits_hit']
assert 'OOM killer' in d['error'], d['error']"
	# A shell whose child the OOM killer ended reports 128+9: the same.
	expect_status 137 "$m: --memory 64m, a hog under sh" jr "$m" --memory 64m \
		--json "$JR_W/mem-sh.json" -- sh -c 'python3 -c "
a = []
while True:
    a.append(b\"x\" * (1 << 20))"; exit $?'
	summary_check "$m: a shell's 137 after an OOM kill reads oom-killed" "$JR_W/mem-sh.json" "
assert d['ended'] == 'oom-killed' and d['signal'] is None, d"
	# --memory bounds the tmpfs mounts too: each may hold all of it (the
	# cgroup charges their pages, so together they cannot hold more);
	# --tmpfs-size still wins.
	expect_status 0 "$m: --memory 96m: the tmpfs sizes" jr "$m" --memory 96m -- \
		sh -c 'for p in /tmp /dev/shm; do echo "size $p $(($(stat -f -c "%b * %S" "$p")))"; done'
	for p in /tmp /dev/shm; do
		expect_output_has "$m: --memory 96m: $p holds 96 MiB" "size $p $((96 << 20))"
	done
	expect_status 0 "$m: --memory 96m --tmpfs-size 8m" jr "$m" --memory 96m --tmpfs-size 8m -- \
		sh -c 'echo "size /tmp $(($(stat -f -c "%b * %S" /tmp)))"'
	expect_output_has "$m: --tmpfs-size wins over --memory" "size /tmp $((8 << 20))"
	# Without the limit the same summary has no limits at all.
	expect_status 0 "$m: a run without limits" jr "$m" --json "$JR_W/nolim.json" -- true
	summary_check "$m: no limits: \"limits\" is null" "$JR_W/nolim.json" 'assert l is None, l'

	# --cpus 0.5: read the quota the kernel holds while the command runs.
	rm -f "$JR_W/cpu-ready"
	marker="jr-limits-cpu-$$"
	jr "$m" --cpus 0.5 --memory 256m --pids 50 --json "$JR_W/cpu.json" -- \
		bash -c "touch $JR_W/cpu-ready; exec -a $marker sleep 300" >"$JR_W/cpu.out" 2>&1 &
	bg=$!
	if wait_until 60 test -e "$JR_W/cpu-ready" && pid=$(marker_pid "$marker"); then
		read -r lay dir <<<"$(cg_dir cpu "$pid")"
		case $lay in
		v1) quota="$(cat "$dir/cpu.cfs_quota_us") $(cat "$dir/cpu.cfs_period_us")" ;;
		v2) quota=$(cat "$dir/cpu.max") ;;
		*) quota="no cpu cgroup" ;;
		esac
		[ "$quota" = "50000 100000" ] && ok "$m: --cpus 0.5: the command's cgroup holds quota 50000/100000 ($lay, ${dir##*/})" ||
			fail "$m: --cpus 0.5: quota '$quota' in ${dir:-?}"
		case ${dir##*/} in jailrun.*) ok "$m: the command is in a jailrun.* cgroup of its own" ;;
		*) fail "$m: the command's cgroup is $dir" ;; esac
		read -r _ mdir <<<"$(cg_dir memory "$pid")"
		read -r _ pdir <<<"$(cg_dir pids "$pid")"
		if [ "$lay" = v1 ]; then mval=$(cat "$mdir/memory.limit_in_bytes"); else mval=$(cat "$mdir/memory.max"); fi
		[ "$mval" = $((256 << 20)) ] && ok "$m: memory limit in force ($mval)" || fail "$m: memory limit '$mval' in $mdir"
		[ "$(cat "$pdir/pids.max")" = 50 ] && ok "$m: pids limit in force" || fail "$m: pids.max $(cat "$pdir/pids.max")"
		kill "$pid"
		wait "$bg" && st=0 || st=$?
		[ "$st" = 143 ] && ok "$m: the command ended by SIGTERM (143)" || fail "$m: status $st: $(cat "$JR_W/cpu.out")"
		[ -n "$dir" ] && [ ! -e "$dir" ] && ok "$m: its cgroup directory is gone" || fail "$m: $dir is left"
	else
		fail "$m: the --cpus sandbox never became ready: $(cat "$JR_W/cpu.out")"
		kill "$bg" 2>/dev/null || true
		wait "$bg" || true
	fi

	# The end removes the cgroup on every path: timeout, failed exec.
	expect_status 124 "$m: --timeout with limits" jr "$m" --pids 20 --memory 64m --timeout 0.5 -- sleep 300
	expect_status 127 "$m: failed exec with limits" jr "$m" --pids 20 --cpus 1 -- /nonexistent/cmd
fi

CG_AFTER=$(cg_leftovers)
left=$(comm -13 <(echo "$CG_BEFORE") <(echo "$CG_AFTER") | grep . || true)
[ -z "$left" ] && ok "no cgroup directory of jailrun is left" || fail "cgroup directories left: $left"

# --check reports the layout and whether v2 controllers are usable.
expect_status 0 "--check" as_mode rootless timeout -k 5 "$JR_RUN_LIMIT" "$JR" --check
expect_output_has "--check reports the cgroup layout" "cgroups: layout "
expect_output_has "--check says whether v2 controllers are usable" "cgroups: v2 controllers usable here: "
if [ "$LAYOUT" != v2 ]; then
	expect_output_has "--check says the v2 path cannot run here" "the v2 code path cannot run on this host"
fi

finish
