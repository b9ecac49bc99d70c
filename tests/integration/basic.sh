#!/bin/bash
# Exit status contract, JSON summary, --user, bad options.
# Fails if: a status is not passed through, 125/126/127/124/128+N are
# mapped wrongly, the summary lies, or a bad option runs anything.
. "${JR_TOP_SRCDIR:-$(dirname "$0")/../..}/tests/lib.sh"
jr_require_sandbox

# The start-up breakdown jailrun measures inside itself (never a wall-clock
# bound): every phase present, a whole number of microseconds, the phases
# summing to no more than the total, the total inside the run's wall time,
# and the relay phases non-zero exactly in the allowlist mode. Fails if a
# phase is missing or renamed, timed twice, timed by init on another clock,
# or charged to the wrong mode.
check_startup() { # NAME SUMMARY.json MODE(allowlist|none)
	if python3 - "$2" "$3" <<'PY'
import json, sys
d = json.load(open(sys.argv[1]))
s = d["startup_us"]
phases = ["prepare", "seccomp", "clone", "maps", "mounts", "init_setup", "relaynet",
          "nft", "relay", "selfcheck", "exec"]
assert list(s) == phases + ["parallel", "total"], s
assert all(isinstance(s[k], int) and s[k] >= 0 for k in s), s
# Phases are their own durations; "parallel" is what of them ran at the
# same time (the runner's seccomp and nft beside init's setup, its relay
# phase beside init's finish after SETUP_OK), at most those three: the
# critical path fits in the total.
assert s["parallel"] <= s["seccomp"] + s["nft"] + s["relay"], s
assert sum(s[k] for k in phases) - s["parallel"] <= s["total"], s
assert s["total"] <= d["wall_time_ms"] * 1000 + 999, (s, d["wall_time_ms"])
# Real work in every mode (the watchdog starts in "relay" in both).
for k in ["clone", "mounts", "init_setup", "nft", "relay", "exec"]:
    assert s[k] > 0, (k, s)
allow = sys.argv[2] == "allowlist"
for k in ["relaynet", "selfcheck"]:
    assert (s[k] > 0) == allow, (k, s)
assert isinstance(d["teardown_us"], int) and d["teardown_us"] >= 0, d
PY
	then ok "$1: start-up phases present and within the total"
	else fail "$1: start-up phases: $(cat "$2")"; fi
}

for m in $(jr_modes); do
	expect_status 0 "$m: true exits 0" jr "$m" --net none -- true
	expect_status 3 "$m: exit 3 passes through" jr "$m" --net none -- sh -c 'exit 3'
	expect_status 255 "$m: exit 255 passes through" jr "$m" -- sh -c 'exit 255'
	expect_status 127 "$m: missing command is 127" jr "$m" -- /nonexistent/cmd
	expect_output_has "$m: 127 message names the command" "/nonexistent/cmd: No such file or directory"
	expect_status 127 "$m: command not on PATH is 127" jr "$m" -- jailrun-no-such-command
	printf '#!/bin/sh\necho hi\n' >"$JR_TMP/notexec"
	chmod 644 "$JR_TMP/notexec"
	expect_status 126 "$m: non-executable file is 126" jr "$m" -- "$JR_TMP/notexec"
	expect_output_has "$m: 126 message says permission denied" "Permission denied"
	expect_status 137 "$m: SIGKILL death is 137" jr "$m" -- sh -c 'kill -KILL $$'
	expect_status 143 "$m: SIGTERM death is 143" jr "$m" -- sh -c 'kill -TERM $$'

	# --timeout: 124, and the whole sandbox (a background child too) dies.
	marker="jr-timeout-$m-$$"
	expect_status 124 "$m: --timeout expiry is 124" \
		jr "$m" --timeout 0.5 --json "$JR_W/t-$m.json" -- \
		bash -c "sleep 300 & exec -a $marker sleep 300"
	if python3 -c 'import json,sys; d=json.load(open(sys.argv[1])); assert d["ended"]=="timeout" and d["exit_status"]==124, d' "$JR_W/t-$m.json"; then
		ok "$m: summary says timeout"
	else
		fail "$m: summary after timeout: $(cat "$JR_W/t-$m.json")"
	fi
	if pgrep -f "$marker" >/dev/null; then
		fail "$m: processes of the timed-out sandbox survive"
		pkill -KILL -f "$marker" || true
	else
		ok "$m: nothing of the timed-out sandbox survives"
	fi

	# The JSON summary of a normal run.
	expect_status 3 "$m: run with --json" jr "$m" --json "$JR_W/s-$m.json" -- sh -c 'exit 3'
	if python3 - "$JR_W/s-$m.json" "$(jr_expected_uid "$m")" "$m" <<'PY'
import json, sys
d = json.load(open(sys.argv[1]))
assert d["exit_status"] == 3, d
assert d["ended"] == "exited", d
assert d["command"] == ["sh", "-c", "exit 3"], d
assert d["network"]["mode"] == "hermetic", d
assert d["network"]["rules_verified"] is True, d
assert d["network"]["nft_chains"] == 3, d
assert sorted(d["namespaces"]) == sorted(["user", "net", "pid", "mnt", "ipc", "uts"]), d
assert d["user"]["uid"] == int(sys.argv[2]), d
assert d["user"]["rootless"] == (sys.argv[3] == "rootless"), d
assert isinstance(d["wall_time_ms"], int) and d["wall_time_ms"] >= 0, d
assert d["error"] is None, d
assert d["jailrun_version"], d
PY
	then ok "$m: JSON summary fields"; else fail "$m: JSON summary: $(cat "$JR_W/s-$m.json")"; fi
	check_startup "$m: --net none" "$JR_W/s-$m.json" none
	# The allowlist mode builds the relay netns and self-checks the relay;
	# nothing leaves it (no connection is made).
	expect_status 0 "$m: --allow run with --json" \
		jr "$m" --allow startup.invalid --json "$JR_W/a-$m.json" -- true
	check_startup "$m: --allow" "$JR_W/a-$m.json" allowlist
	# The overlap is real: the runner's seccomp/nft work ran inside init's
	# setup span, by both processes' own timestamps ("parallel" > 0). A
	# runner that installs only after SETUP_OK can never show it (its nft
	# starts after the span ends); a starved runner can miss it once, so
	# up to 5 runs, and one is enough.
	par=0
	for i in 1 2 3 4 5; do
		jr "$m" --allow startup.invalid --json "$JR_W/p-$m.json" -- true || break
		par=$(python3 -c 'import json,sys; print(json.load(open(sys.argv[1]))["startup_us"]["parallel"])' "$JR_W/p-$m.json" 2>/dev/null || echo 0)
		[ "${par:-0}" -gt 0 ] && break
	done
	if [ "${par:-0}" -gt 0 ]; then ok "$m: --allow: nft and seccomp ran beside init's setup (${par} us)"
	else fail "$m: --allow: no overlap of the runner's work with init's setup: $(cat "$JR_W/p-$m.json")"; fi
	# init builds the relay netns itself and must setns back before the
	# command starts: the command sees the worker's eth0, never the relay's
	# jr-relay (there it would be outside the sandbox's rules).
	expect_status 0 "$m: --allow: interfaces of the command's netns" \
		jr "$m" --allow startup.invalid -- cat /proc/self/net/dev
	if grep -Eq '^ *eth0:' <<<"$OUT" && ! grep -q 'jr-relay' <<<"$OUT"; then
		ok "$m: --allow: the command runs in the worker netns"
	else fail "$m: --allow: the command's netns: $OUT"; fi

	expect_status 127 "$m: run with --json, missing command" \
		jr "$m" --json "$JR_W/f-$m.json" -- /nonexistent/cmd
	if python3 -c 'import json,sys; d=json.load(open(sys.argv[1])); assert d["ended"]=="exec-failed" and d["exit_status"]==127 and "No such file" in d["error"] and d["startup_us"] is None, d' "$JR_W/f-$m.json"; then
		ok "$m: summary says exec-failed"
	else
		fail "$m: summary after exec failure: $(cat "$JR_W/f-$m.json")"
	fi

	# Identity and UTS namespace.
	expect_status 0 "$m: id inside" jr "$m" -- sh -c 'echo "uid=$(id -u) host=$(hostname)"'
	expect_output_has "$m: command runs as expected uid" "uid=$(jr_expected_uid "$m") "
	expect_output_has "$m: hostname is jailrun" "host=jailrun"

	# Bad input: 125, a clear message, nothing runs.
	rm -f "$JR_W/ran"
	expect_status 125 "$m: unknown option is 125" jr "$m" --bogus -- touch "$JR_W/ran"
	expect_output_has "$m: message names the option" "unknown option '--bogus'"
	expect_status 125 "$m: bad --timeout is 125" jr "$m" --timeout abc -- touch "$JR_W/ran"
	expect_status 125 "$m: bad --net is 125" jr "$m" --net everything -- touch "$JR_W/ran"
	expect_status 125 "$m: no command is 125" jr "$m"
	expect_status 125 "$m: unwritable --json is 125" jr "$m" --json /nonexistent/dir/x.json -- touch "$JR_W/ran"
	if [ -e "$JR_W/ran" ]; then fail "$m: a command ran despite bad options"; else ok "$m: nothing ran on bad options"; fi
done

# --user, when started by root.
if [ "$(id -u)" -eq 0 ]; then
	expect_status 0 "root: default user is nobody" jr root -- id -u
	expect_output_has "root: id -u is nobody's" "$JR_NOBODY_UID"
	expect_status 0 "root: default user is the sudo caller" \
		env SUDO_UID=4321 SUDO_GID=4322 timeout -k 5 "$JR_RUN_LIMIT" "$JR" -- sh -c 'echo "$(id -u):$(id -g):$(id -G)"'
	expect_output_has "root: sudo caller's ids, no root groups" "4321:4322:4322"
	expect_status 0 "root: --user root is explicit" jr root --user root -- sh -c 'echo "uid=$(id -u)"'
	expect_output_has "root: --user root runs as 0" "uid=0"
	# Only --host-root is host uid 0 (privs.sh checks what each can do).
	if grep -q "runs as host uid 0" <<<"$OUT"; then fail "root: --user root claims host uid 0: $OUT"; else
		ok "root: --user root is not host uid 0"
	fi
	expect_status 0 "root: --host-root" jr root --host-root -- sh -c 'echo "uid=$(id -u)"'
	expect_output_has "root: --host-root runs as 0" "uid=0"
	expect_output_has "root: --host-root is warned about" "runs as host uid 0"
	expect_status 0 "root: --user 1234:5678" jr root --user 1234:5678 -- sh -c 'echo "$(id -u):$(id -g)"'
	expect_output_has "root: --user numeric ids" "1234:5678"
	expect_status 125 "root: --user unknown name is 125" jr root --user no-such-user-jr -- true
	expect_output_has "root: message names the user" "no-such-user-jr: no such user"
	expect_status 0 "rootless: --user root is uid 0 inside" jr rootless --user root -- sh -c 'echo "uid=$(id -u)"'
	expect_output_has "rootless: --user root runs as 0 inside" "uid=0"
	expect_status 125 "rootless: --user of another user is refused" jr rootless --user 4321 -- true
	expect_output_has "rootless: message says why" "without root"
	expect_status 125 "rootless: --host-root is refused" jr rootless --host-root -- true
	expect_output_has "rootless: --host-root message says why" "without root"
fi

# --help and the man page list the same options.
expect_status 0 "--help exits 0" "$JR" --help
man_opts=$(grep -E '^\.BR? ' "$JR_TOP_SRCDIR/man/jailrun.1" | grep -oE '\\-\\-[a-z]([a-z]|\\-)*' | sed 's/\\-/-/g' | sort -u)
if [ "$(echo "$man_opts" | wc -w)" -ge 15 ]; then ok "the man page documents $(echo "$man_opts" | wc -w) options"; else fail "option list from the man page: $man_opts"; fi
for opt in $man_opts; do
	expect_output_has "--help mentions $opt (from the man page)" "$opt"
done
# ...and the other way round: every long option --help shows is in the man page.
for opt in $(printf '%s\n' "$OUT" | grep -oE '^  (-[a-zA-Z], )?--[a-z-]+' | grep -oE -- '--[a-z-]+' | sort -u); do
	if grep -qx -- "$opt" <<<"$man_opts"; then ok "man page documents $opt (from --help)"; else fail "man page lacks $opt"; fi
done
expect_status 0 "--version exits 0" "$JR" --version
expect_output_has "--version prints the version" "jailrun "

finish
