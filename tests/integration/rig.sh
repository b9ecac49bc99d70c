#!/bin/bash
# An eval rig's view (issue 23): 20 short tasks, each with --json and
# --label, then ONE jq line builds the results table from the JSON files
# alone, failures included. Root (the rigs' usual caller) and rootless.
# Fails if: a task leaves no JSON (exit 125 included), a label, an
# "ended" or an exit status in the table is not the task's, two tasks
# share a run id, a timeout's limits_hit or a set-up failure's error is
# missing, or the table cannot be built from the files alone.
. "${JR_TOP_SRCDIR:-$(dirname "$0")/../..}/tests/lib.sh"
jr_require_sandbox
command -v jq >/dev/null || skip "jq is needed (contrib/dev.sh deps installs it)"
command -v python3 >/dev/null || skip "python3 is needed"

for m in $(jr_modes); do
	d="$JR_W/rig-$m"
	mkdir -m 1777 "$d"
	expected="$JR_TMP/expected-$m"
	: >"$expected"
	# task LABEL STATUS ENDED ARGS... - one task; what the table must say.
	task() {
		local label="$m $1" want=$2 ended=$3
		shift 3
		expect_status "$want" "$m: task $label" jr "$m" \
			--json "$d/${label#* }.json" --label "$label" "$@"
		printf '%s\t%s\t%s\n' "$label" "$ended" "$want" >>"$expected"
	}
	task t01 0 exited --net none -- true
	task t02 0 exited --net none -- echo hello
	task t03 0 exited --net none -- sh -c 'test -d /tmp'
	task t04 0 exited --net none -- ls /
	task t05 0 exited --net none -- python3 -c pass
	task t06 0 exited --allow allowed.test -- true
	task t07 0 exited --net public -- true
	task t08 0 exited --net none --fs host -- true
	task t09 3 exited --net none -- sh -c 'exit 3'
	task t10 42 exited --net none -- sh -c 'exit 42'
	task t11 1 exited --net none -- false
	task t12 124 timeout --net none --timeout 0.3 -- sleep 60
	task t13 124 timeout --allow allowed.test --timeout 0.3 -- sleep 60
	task t14 125 setup-failed --allow 'bad entry!' -- true
	task t15 125 setup-failed --net none --rw /nonexistent/jr-rig -- true
	task t16 1 exited --allow allowed.test -- \
		python3 -c 'import socket; socket.getaddrinfo("denied.test", 443)'
	task t17 1 exited --net none -- python3 -c \
		'import socket; socket.create_connection(("192.0.2.1", 80), timeout=5)'
	task t18 127 exec-failed --net none -- /nonexistent/jr-rig
	task t19 137 signaled --net none -- sh -c 'kill -9 $$'
	task t20 0 exited --net none --user root -- true

	# The rig's one line: label, run id, ended, exit status, limits hit,
	# denials, error; from the JSON files alone.
	jq -r -s 'sort_by(.label)[] | [.label, .run_id, .ended, .exit_status, (.limits_hit | join(",")), .network.denied, (.error // "")] | @tsv' "$d"/*.json >"$JR_TMP/table-$m" || true
	cat "$JR_TMP/table-$m"

	if cut -f1,3,4 "$JR_TMP/table-$m" | diff -u "$expected" - >"$JR_TMP/diff-$m"; then
		ok "$m: the table: 20 tasks, each label, ended and exit status its task's"
	else
		fail "$m: the table differs from the tasks: $(cat "$JR_TMP/diff-$m")"
	fi
	n_ids=$(cut -f2 "$JR_TMP/table-$m" | grep -cE '^[0-9a-f]{32}$' || true)
	n_unique=$(cut -f2 "$JR_TMP/table-$m" | sort -u | wc -l)
	if [ "$n_ids" = 20 ] && [ "$n_unique" = 20 ]; then
		ok "$m: 20 run ids, all different"
	else
		fail "$m: run ids: $n_ids well-formed, $n_unique different"
	fi
	row() { grep -F "$m $1"$'\t' "$JR_TMP/table-$m" || true; }
	case $(row t12 | cut -f5) in
	timeout) ok "$m: the timeout's limits_hit" ;;
	*) fail "$m: t12 limits_hit: $(row t12)" ;;
	esac
	case $(row t14 | cut -f7) in
	*"bad entry!"*) ok "$m: the set-up failure's error is in the table" ;;
	*) fail "$m: t14 error: $(row t14)" ;;
	esac
	if [ "$(row t16 | cut -f6)" -ge 1 ] 2>/dev/null; then
		ok "$m: the denied connection is counted"
	else
		fail "$m: t16 denied: $(row t16)"
	fi
done
finish
