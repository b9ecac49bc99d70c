#!/bin/bash
# The --json summary and the audit log against their JSON Schemas
# (docs/schema/), on real output, as root and rootless: a success, an exit
# code, a timeout, a denied connection, a command not found, and set-up
# failures (exit 125) at four different steps, one of them a policy error
# of the command line (a lane on the relay's port, --rw with --fs host). Every run appends to one
# shared log, which the run ids must split back into runs.
# Fails if: a summary or a log line does not validate (a field missing or
# undocumented, a bad time stamp or run id), exit 125 writes no summary or
# one without "ended":"setup-failed" and the error, --json - on exit 125
# is not on stdout, two runs share a run id, or a log line's run id or
# label is not its run's.
. "${JR_TOP_SRCDIR:-$(dirname "$0")/../..}/tests/lib.sh"
jr_require_sandbox
command -v python3 >/dev/null || skip "python3 is needed"
install -m 644 "$JR_TOP_SRCDIR/tests/integration/schemacheck.py" "$JR_TMP/schemacheck.py"
SUMMARY_SCHEMA=$JR_TOP_SRCDIR/docs/schema/summary.schema.json
AUDIT_SCHEMA=$JR_TOP_SRCDIR/docs/schema/audit.schema.json

# summary_is FILE DESC PYTHON-EXPR - a check on the summary FILE (as d).
summary_is() {
	if python3 -c 'import json, sys; d = json.load(open(sys.argv[1])); sys.exit(0 if eval(sys.argv[2]) else 1)' \
		"$1" "$3" 2>/dev/null; then
		ok "$2"
	else
		fail "$2: $3 is false in $(cat "$1" 2>/dev/null || echo 'no summary')"
	fi
}

for m in $(jr_modes); do
	d="$JR_W/$m"
	mkdir -m 1777 "$d"
	log="$d/shared.log"
	run() { # run STATUS NAME ARGS... - one run with --json, --label, --log
		local want=$1 name=$2
		shift 2
		expect_status "$want" "$m: $name" jr "$m" --label "$m $name" \
			--json "$d/$name.json" --log "$log" "$@"
	}
	run 0 success --net none -- true
	run 3 exit-code --net none -- sh -c 'exit 3'
	run 124 timeout --net none --timeout 0.3 -- sleep 60
	run 1 denied --allow allowed.test -- \
		python3 -c 'import socket; socket.getaddrinfo("denied.test", 443)'
	run 127 not-found --net none -- /nonexistent/command
	run 125 bad-allow --allow 'bad entry!' -- true
	run 125 missing-rw --net none --rw "$JR_TMP/missing" -- true
	run 125 no-user --net none --user no-such-user-jr -- true
	# policy errors found while the options are parsed (jr_options_parse_run)
	run 125 lane-port --lane 127.0.0.1:3128 -- true
	run 125 publish-lane --lane 127.0.0.1:8080 --publish 18080:8080 -- true
	run 125 host-rw --fs host --rw "$JR_TMP" -- true

	for f in "$d"/*.json; do
		expect_status 0 "$m: $(basename "$f") validates" \
			python3 "$JR_TMP/schemacheck.py" "$SUMMARY_SCHEMA" "$f"
	done
	expect_status 0 "$m: every line of the shared log validates" \
		python3 "$JR_TMP/schemacheck.py" "$AUDIT_SCHEMA" --lines "$log"
	# The checker is not vacuous: each of these breaks of a real summary
	# and a real log line must fail.
	for breakage in 'del d["run_id"]' 'd["ended"] = "exited-ish"' \
		'd["undocumented"] = 1' 'd["started_at"] = "2026-12-03 12:00:00"' \
		'd["network"]["denied"] = "1"' 'd["policy"]["allow"] = [1]'; do
		python3 -c 'import json, sys; d = json.load(open(sys.argv[1])); exec(sys.argv[2]); json.dump(d, open(sys.argv[3], "w"))' \
			"$d/success.json" "$breakage" "$JR_TMP/broken.json"
		expect_status 1 "$m: a summary with $breakage fails" \
			python3 "$JR_TMP/schemacheck.py" "$SUMMARY_SCHEMA" "$JR_TMP/broken.json"
	done
	for breakage in 'del d["run_id"]' 'd["run_id"] = "xyz"' 'd["detail"] = 3'; do
		head -n 1 "$log" | python3 -c 'import json, sys; d = json.loads(sys.stdin.readline()); exec(sys.argv[1]); json.dump(d, open(sys.argv[2], "w"))' \
			"$breakage" "$JR_TMP/broken.log"
		expect_status 1 "$m: an audit line with $breakage fails" \
			python3 "$JR_TMP/schemacheck.py" "$AUDIT_SCHEMA" --lines "$JR_TMP/broken.log"
	done

	summary_is "$d/success.json" "$m: success: exited 0, no limit hit" \
		'd["ended"] == "exited" and d["exit_status"] == 0 and d["limits_hit"] == [] and d["label"] == "'"$m"' success"'
	summary_is "$d/timeout.json" "$m: timeout: ended and limits_hit say so" \
		'd["ended"] == "timeout" and d["exit_status"] == 124 and d["limits_hit"] == ["timeout"] and d["policy"]["timeout_ms"] == 300'
	summary_is "$d/denied.json" "$m: denied: counted, the policy as given" \
		'd["network"]["denied"] >= 1 and d["policy"]["allow"] == ["allowed.test"] and d["policy"]["net"] == "allowlist"'
	summary_is "$d/not-found.json" "$m: not found: exec-failed 127" \
		'd["ended"] == "exec-failed" and d["exit_status"] == 127'
	summary_is "$d/bad-allow.json" "$m: a bad --allow entry: setup-failed with the error" \
		'd["ended"] == "setup-failed" and d["exit_status"] == 125 and "bad entry!" in d["error"] and d["policy"]["allow"] == ["bad entry!"]'
	summary_is "$d/missing-rw.json" "$m: a missing --rw path: setup-failed with the error" \
		'd["ended"] == "setup-failed" and d["error"].startswith("--rw ") and d["startup_us"] is None'
	summary_is "$d/no-user.json" "$m: an unknown --user: setup-failed, user null" \
		'd["ended"] == "setup-failed" and d["user"] is None and "no-such-user-jr" in d["error"]'
	summary_is "$d/lane-port.json" "$m: a lane on the relay's port: setup-failed with the error" \
		'd["ended"] == "setup-failed" and "port 3128 is one of the relay" in d["error"]'
	summary_is "$d/publish-lane.json" "$m: --publish of a lane's port: setup-failed with the error" \
		'd["ended"] == "setup-failed" and "publish another port" in d["error"]'
	summary_is "$d/host-rw.json" "$m: --rw with --fs host: setup-failed with the error" \
		'd["ended"] == "setup-failed" and "mean nothing with --fs host" in d["error"]'

	expect_status 0 "$m: run ids unique, each log line its run's id and label" python3 - "$d" "$log" <<'PY'
import glob, json, sys
runs = {}
for f in glob.glob(sys.argv[1] + "/*.json"):
    s = json.load(open(f))
    assert s["run_id"] not in runs, "run id shared: " + s["run_id"]
    runs[s["run_id"]] = s
lines = [json.loads(l) for l in open(sys.argv[2])]
seen = set()
for l in lines:
    s = runs.get(l["run_id"])
    assert s, "a log line of no run: %r" % l
    assert l.get("label") == s["label"], (l, s["label"])
    seen.add(s["label"])
ends = {runs[l["run_id"]]["label"]: l["detail"] for l in lines
        if l["event"] == "lifecycle" and l["detail"] != "sandbox starting"}
print(len(runs), "runs,", len(lines), "lines, runs in the log:", sorted(seen))
print("last lifecycle line of each run:", ends)
m = sys.argv[1].rsplit("/", 1)[1]
assert len(runs) == 11
# the audit log opens after the policy and the user are checked
assert m + " bad-allow" not in seen and m + " no-user" not in seen, seen
assert m + " lane-port" not in seen and m + " host-rw" not in seen, seen
assert ends[m + " missing-rw"] == "setup-failed", ends
assert ends[m + " timeout"] == "timeout", ends
assert any(l["event"] == "connection" and l["verdict"] == "deny" and
           runs[l["run_id"]]["label"] == m + " denied" for l in lines)
PY
	echo "$OUT"

	# "label" is a jailrun.conf(5) keyword too; the command line wins.
	printf 'label from config\nnet none\n' >"$d/label.conf"
	chmod 644 "$d/label.conf"
	expect_status 0 "$m: label from a config file" \
		jr "$m" --config "$d/label.conf" --json "$d/conf-label.json" -- true
	summary_is "$d/conf-label.json" "$m: the config file's label is the summary's" \
		'd["label"] == "from config"'

	# --json - on a set-up failure: the summary on stdout, nothing else.
	expect_status 125 "$m: --json - with a bad --allow entry" \
		jr "$m" --json - --allow 'bad entry!' -- true
	expect_output_has "$m: the setup-failed summary came on stdout" '"ended":"setup-failed"'
done
finish
