#!/bin/bash
# An eval rig's view (issue 23): 50 tasks per mode (root, the rigs' usual
# caller, and rootless), in a lab (tests/lab), each with --json and
# --label: successes, exit codes, timeouts, policy errors that end in
# set-up failures (exit 125), denied and allowed connections, commands
# that cannot be run, signals, an OOM kill and a refused fork. Then the
# results table is made by the ONE jq command jailrun(1) shows under JSON
# SUMMARY, taken from the man page and run as written, from the JSON files
# alone, failures included.
# Fails if: the man page has no such command, or README another; a task
# leaves no JSON (exit 125 included); the table's header, or a row's
# label, ended, exit status, signal, limits_hit, allowed, denied or refused
# by the firewall (none
# or some) is not what its task was made to do; a run id is malformed or
# shared; a started_at is
# not an RFC 3339 time; a failure's error is missing or another row has
# one; the allowed connections did not reach the lab's server, or a
# denied one did.
# shellcheck disable=SC2016 # the tasks' shell code expands inside the sandbox
. "${JR_TOP_SRCDIR:-$(dirname "$0")/../..}/tests/lib.sh"
. "$JR_TOP_SRCDIR/tests/lab/lib.sh"
jr_require_sandbox
command -v jq >/dev/null || skip "jq is needed (contrib/dev.sh deps installs it)"
lab_setup --timeout 900 rig # a hang guard, not a time limit
lab_on_exit jr_cleanup_tmp

# rig_command - the jq command of JSON SUMMARY in jailrun(1): the .nf
# block that starts with "jq ", roff escapes undone, lines kept.
rig_command() {
	awk '
	/^\.SH / { in_s = ($0 == ".SH JSON SUMMARY"); next }
	!in_s { next }
	/^\.nf/ { nf = 1; n = 0; next }
	/^\.fi/ { if (jq) exit; nf = 0; next }
	nf {
		gsub(/\\-/, "-"); gsub(/\\\(aq/, "\047")
		if (n++ == 0) jq = ($0 ~ /^jq /)
		if (jq) print
	}' "$JR_TOP_SRCDIR/man/jailrun.1"
}
JQ_CMD=$(rig_command)
case $JQ_CMD in
"jq "*" out/*.json") ok "JSON SUMMARY shows the rig's jq command" ;;
*) fail "no rig jq command (ending in out/*.json) under JSON SUMMARY in jailrun(1): '$JQ_CMD'" ;;
esac
# README shows the same command.
README_CMD=$(awk '/^```/ { if (p) exit; f = !f; next }
	f && /^jq -r -s / { p = 1 } p { print }' "$JR_TOP_SRCDIR/README.md")
if [ -n "$JQ_CMD" ] && [ "$README_CMD" = "$JQ_CMD" ]; then ok "README shows the man page's jq command"
else fail "README's rig jq command is not the man page's: '$README_CMD'"; fi
HEADER=$(printf '%s\t' run_id label started_at ended exit_status signal limits_hit allowed denied refused error)
HEADER=${HEADER%$'\t'}

# A file the command may read but not execute (exit 126).
printf 'not a program\n' >"$JR_TMP/rig-noexec"
chmod 644 "$JR_TMP/rig-noexec"
export JR_RIG_OUTSIDE=1 # what --clearenv must drop
GET=(curl -sS -f -m 10)
ATE='a = bytearray(b"x") * (400 << 20)' # 400 MiB, every page written

for m in $(jr_modes); do
	d="$JR_W/rig-$m"
	mkdir -m 1777 "$d" "$d/out"
	expected="$JR_TMP/expected-$m"
	: >"$expected"
	declare -A errs=()
	lab_logs_clear
	RUN=jl # in the lab host
	# task LABEL 'STATUS ENDED SIGNAL LIMITS ALLOWED DENIED [REFUSED]'
	# ARGS... - one task and the row it must leave: SIGNAL and LIMITS "-"
	# for none, ALLOWED, DENIED and REFUSED (by the firewall; default 0)
	# "0" (none) or "+" (at least one).
	task() {
		local label="$m $1" want
		read -r -a want <<<"$2"
		shift 2
		expect_status "${want[0]}" "$m: task $label" "$RUN" "$m" \
			--json "$d/out/${label#* }.json" --label "$label" "$@"
		# A rig files every task, failures included: no file, no row.
		[ -s "$d/out/${label#* }.json" ] ||
			fail "$m: task $label left no JSON summary (jailrun's own output: $OUT)"
		printf '%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\n' "$label" "${want[1]}" "${want[0]}" \
			"${want[2]}" "${want[3]}" "${want[4]}" "${want[5]}" "${want[6]:-0}" >>"$expected"
	}
	# Successes, with the options rigs use.
	task t01 '0 exited - - 0 0' --net none -- true
	task t02 '0 exited - - 0 0' --net none -- echo hello
	task t03 '0 exited - - 0 0' --net none -- sh -c 'test -d /tmp'
	task t04 '0 exited - - 0 0' --net none -- ls /
	task t05 '0 exited - - 0 0' --net none -- python3 -c pass
	task t06 '0 exited - - + 0' --allow allowed.test -- "${GET[@]}" -o /dev/null http://allowed.test/t06
	task t07 '0 exited - - + 0' --net public -- "${GET[@]}" -o /dev/null http://other.test/t07
	task t08 '0 exited - - 0 0' --net none --fs host -- true
	task t09 '0 exited - - 0 0' --net none --user root -- sh -c 'test "$(id -u)" = 0'
	task t10 '0 exited - - 0 0' --net none --setenv JR_RIG=ten -- sh -c 'test "$JR_RIG" = ten'
	task t11 '0 exited - - 0 0' --net none --clearenv -- sh -c 'test -z "${JR_RIG_OUTSIDE:-}"'
	task t12 '0 exited - - 0 0' --net none --timeout 120 -- true
	task t13 '0 exited - - 0 0' --net none --rlimit nofile=64 -- sh -c 'test "$(ulimit -n)" = 64'
	task t14 '0 exited - - 0 0' --net none --tmpfs-size 16m -- sh -c 'echo x >/tmp/x'
	task t15 '0 exited - - 0 0' --net none --hide /etc/hostname -- sh -c '! test -s /etc/hostname'
	# The command's own failures.
	task t16 '3 exited - - 0 0' --net none -- sh -c 'exit 3'
	task t17 '42 exited - - 0 0' --net none -- sh -c 'exit 42'
	task t18 '1 exited - - 0 0' --net none -- false
	task t19 '2 exited - - 0 0' --net none -- sh -c 'echo x >/etc/jr-rig'
	task t20 '255 exited - - 0 0' --net none -- sh -c 'exit 255'
	task t21 '7 exited - - 0 0' --net none -- python3 -c 'import sys; sys.exit(7)'
	task t22 '1 exited - - 0 0' --net none -- python3 -c 'raise SystemExit("task failed")'
	task t23 '22 exited - - + 0' --allow allowed.test -- "${GET[@]}" -o /dev/null http://allowed.test/status/404
	# Timeouts.
	task t24 '124 timeout - timeout 0 0' --net none --timeout 0.3 -- sleep 60
	task t25 '124 timeout - timeout 0 0' --allow allowed.test --timeout 0.3 -- sleep 60
	task t26 '124 timeout - timeout 0 0' --net public --timeout 0.3 -- python3 -c 'import time; time.sleep(60)'
	task t27 '124 timeout - timeout 0 0' --net none --timeout 0.3 -- sh -c 'trap "" TERM; sleep 60'
	# Policy errors: set-up failures, with the error in the row.
	task t28 '125 setup-failed - - 0 0' --allow 'bad entry!' -- true
	errs[t28]='bad entry!'
	task t29 '125 setup-failed - - 0 0' --net none --rw /nonexistent/jr-rig -- true
	errs[t29]=/nonexistent/jr-rig
	task t30 '125 setup-failed - - 0 0' --lane 127.0.0.1:0 -- true
	errs[t30]='the port must be 1..65535'
	task t31 '125 setup-failed - - 0 0' --lane-env 'OPENAI_BASE_URL=http://{lane}/v1' -- true
	errs[t31]='add --lane'
	task t32 '125 setup-failed - - 0 0' --lane 127.0.0.1:3128 -- true
	errs[t32]="one of the relay's own ports"
	task t33 '125 setup-failed - - 0 0' --user jr-rig-no-such-user -- true
	errs[t33]='no such user'
	task t34 '125 setup-failed - - 0 0' --lane 127.0.0.1:8080 --publish 18080:8080 -- true
	errs[t34]='by the lane'
	task t35 '125 setup-failed - - 0 0' --net none --rlimit nofile=999999999 -- true
	errs[t35]='above the hard limit'
	# Denied (and allowed) connections.
	task t36 '1 exited - - 0 +' --allow allowed.test -- \
		python3 -c 'import socket; socket.getaddrinfo("denied.test", 443)'
	task t37 '22 exited - - 0 +' --allow allowed.test -- "${GET[@]}" -o /dev/null http://denied.test/t37
	task t38 '1 exited - - 0 +' --allow allowed.test -- \
		python3 -c 'import urllib.request; urllib.request.urlopen("http://other.test/t38", timeout=10)'
	# A raw address, past the proxy: the firewall refuses it (a reset).
	task t39 '1 exited - - 0 0 +' --allow allowed.test -- python3 -c \
		'import socket; socket.create_connection(("192.0.2.10", 80), timeout=10)'
	task t40 '22 exited - - + +' --allow allowed.test -- sh -c \
		"${GET[*]} -o /dev/null http://allowed.test/t40 && ${GET[*]} -o /dev/null http://denied.test/t40"
	# Commands that cannot run, and signals.
	task t41 '127 exec-failed - - 0 0' --net none -- /nonexistent/jr-rig
	errs[t41]='/nonexistent/jr-rig: No such file or directory'
	task t42 '126 exec-failed - - 0 0' --net none -- ./rig-noexec
	errs[t42]='./rig-noexec: Permission denied'
	task t43 '137 signaled 9 - 0 0' --net none -- sh -c 'kill -9 $$'
	task t44 '143 signaled 15 - 0 0' --net none -- sh -c 'kill -TERM $$'
	task t45 '129 signaled 1 - 0 0' --net none -- sh -c 'kill -HUP $$'
	task t46 '138 signaled 10 - 0 0' --net none -- \
		python3 -c 'import os, signal; os.kill(os.getpid(), signal.SIGUSR1)'
	# Limits: the OOM killer and a refused fork, where the caller may
	# make a cgroup (root; rootless only in a delegated subtree); where
	# it may not, the same tasks are set-up failures that say so. Out of
	# the lab (--net none needs none): 'ip netns exec' mounts a /sys
	# without the cgroup filesystems.
	RUN=jr
	if jr "$m" --net none --pids 64 -- true >/dev/null 2>&1; then
		task t47 '137 oom-killed 9 memory 0 0' --net none --memory 64m -- python3 -c "$ATE"
		errs[t47]="OOM killer"
		task t48 '2 exited - pids 0 0' --net none --pids 4 -- \
			sh -c 'for i in 1 2 3 4 5 6 7 8; do sleep 60 & done; wait'
	else
		task t47 '125 setup-failed - - 0 0' --net none --memory 64m -- python3 -c "$ATE"
		errs[t47]="needs a cgroup"
		task t48 '125 setup-failed - - 0 0' --net none --pids 4 -- true
		errs[t48]="needs a cgroup"
	fi
	RUN=jl
	task t49 '0 exited - - 0 0' --net none -q -- true
	task t50 '0 exited - - 0 0' --net none --workdir "$d" -- sh -c 'test "$PWD" = "$1"' sh "$d"

	# The rig's one command, as the man page writes it, from the rig's
	# directory.
	if [ -n "$JQ_CMD" ] && (cd "$d" && bash -c "$JQ_CMD") >"$JR_TMP/table-$m" 2>"$JR_TMP/jq-$m.err"; then
		ok "$m: the jq command made the table"
	else fail "$m: the jq command failed: $(cat "$JR_TMP/jq-$m.err")"; fi
	cat "$JR_TMP/table-$m"
	if [ "$(head -1 "$JR_TMP/table-$m")" = "$HEADER" ]; then ok "$m: the table's header"
	else fail "$m: the table's header: '$(head -1 "$JR_TMP/table-$m")', want '$HEADER'"; fi
	tail -n +2 "$JR_TMP/table-$m" >"$JR_TMP/rows-$m"
	# label, ended, status, signal, limits, allowed, denied and refused
	# as the expectations write them.
	awk -F'\t' -v OFS='\t' '{
		print $2, $4, $5, ($6 == "" ? "-" : $6), ($7 == "" ? "-" : $7),
			($8 > 0 ? "+" : "0"), ($9 > 0 ? "+" : "0"), ($10 > 0 ? "+" : "0") }' \
		"$JR_TMP/rows-$m" >"$JR_TMP/got-$m"
	if diff -u "$expected" "$JR_TMP/got-$m" >"$JR_TMP/diff-$m"; then
		ok "$m: the table: 50 rows, each task's label, ended, status, signal, limits_hit, allowed, denied and refused"
	else
		fail "$m: the table differs from the tasks: $(cat "$JR_TMP/diff-$m")"
	fi
	# Each row (the diff above counts them) has its own run id and a time.
	rows=$(wc -l <"$JR_TMP/rows-$m")
	n_ids=$(cut -f1 "$JR_TMP/rows-$m" | grep -cE '^[0-9a-f]{32}$' || true)
	n_unique=$(cut -f1 "$JR_TMP/rows-$m" | sort -u | wc -l)
	if [ "$n_ids" = "$rows" ] && [ "$n_unique" = "$rows" ]; then
		ok "$m: $rows run ids, all different"
	else
		fail "$m: run ids of $rows rows: $n_ids well-formed, $n_unique different"
	fi
	n=$(cut -f3 "$JR_TMP/rows-$m" | grep -cE '^[0-9]{4}-[0-9]{2}-[0-9]{2}T[0-9]{2}:[0-9]{2}:[0-9]{2}\.[0-9]{3}Z$' || true)
	if [ "$n" = "$rows" ]; then ok "$m: $rows started_at times"
	else fail "$m: $n well-formed started_at times in $rows rows"; fi
	# The errors: each failure's says why; no other row has one. (The
	# label and the error, split on a character read does not collapse,
	# as it does tabs.)
	bad=
	while IFS=$'\x1f' read -r label error; do
		t=${label#* }
		if [ -n "${errs[$t]:-}" ]; then
			case $error in *"${errs[$t]}"*) ;; *) bad+=" $t: '$error' lacks '${errs[$t]}';" ;; esac
		elif [ -n "$error" ]; then
			bad+=" $t: an error: '$error';"
		fi
	done < <(awk -F'\t' '{ print $2 "\037" $11 }' "$JR_TMP/rows-$m")
	if [ -z "$bad" ]; then ok "$m: each failure's error is in its row, and only there"
	else fail "$m: errors:$bad"; fi
	# What the connections did, as the lab's servers saw it.
	for p in /t06 /t40; do
		if lab_web_served allowed.test "$p"; then ok "$m: allowed.test served $p"
		else fail "$m: allowed.test never served $p"; fi
	done
	if lab_web_served other.test /t07; then ok "$m: public: other.test served /t07"
	else fail "$m: other.test never served /t07"; fi
	never_served "$m: the denied connections" denied.test
	if lab_web_served other.test /t38; then fail "$m: other.test served the denied /t38"
	else ok "$m: other.test never served the denied /t38"; fi
	unset errs
done
finish
