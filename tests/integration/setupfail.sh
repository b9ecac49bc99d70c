#!/bin/bash
# Set-up failures while the runner and init work at once (sandbox.c
# lockdown(): the runner installs the worker table while init sets up).
# With strace's fault injection, as root and rootless.
#
# Fails if:
#  - a sandbox whose namespace capabilities are gone (sethostname and the
#    nft install both EPERM, as under Ubuntu's AppArmor userns restriction)
#    does not exit 125, runs the command, or reports the nft install
#    instead of init's own failure, which names the cause and the fix
#    (a runner that reports its own nft error first fails here);
#  - the --json summary of that run does not say setup-failed with the
#    cause, its run id and its label;
#  - the positive control: the same strace wrapping without injection does
#    not run the command (so the cases above fail for the injection).
#  - a step init finishes after SETUP_OK, beside the runner's relay phase
#    (init.c finish_setup(): here the Landlock ruleset, with --allow and
#    --net none) fails and the command runs anyway, the exit is not 125,
#    the cause is not named, or the summary does not say setup-failed.
. "${JR_TOP_SRCDIR:-$(dirname "$0")/../..}/tests/lib.sh"
jr_require_sandbox
command -v strace >/dev/null || skip "needs strace (contrib/dev.sh deps installs it)"

# st MODE STRACE-ARGS... -- JAILRUN-ARGS...: jailrun under strace -f.
# LeakSanitizer cannot run under ptrace (in the sanitizer build it would
# abort at exit), so leak detection is off for these runs; the other
# tests look for leaks.
st() {
	local mode=$1 s=()
	shift
	while [ "$1" != -- ]; do s+=("$1"); shift; done
	shift
	as_mode "$mode" env ASAN_OPTIONS="${ASAN_OPTIONS:+$ASAN_OPTIONS:}detect_leaks=0" \
		timeout -k 5 "$JR_RUN_LIMIT" strace -f -qq -o /dev/null "${s[@]}" "$JR" "$@"
}

for m in $(jr_modes); do
	expect_status 0 "$m: control: under strace the command runs" \
		st "$m" -e trace=sethostname -- --net none -- echo RAN-OK
	expect_output_has "$m: control: its output" "RAN-OK"

	rm -f "$JR_W/lockdown-$m.json"
	expect_status 125 "$m: capabilities gone: exit 125" \
		st "$m" -e trace=sethostname,sendto -e inject=sethostname:error=EPERM \
		-e inject=sendto:error=EPERM -- --net none --label lockdown \
		--json "$JR_W/lockdown-$m.json" -- echo RAN-BAD
	expect_output_has "$m: capabilities gone: init's cause reported" \
		"cannot use the sandbox's user namespace (sethostname)"
	if grep -qF "RAN-BAD" <<<"$OUT"; then fail "$m: capabilities gone: the command ran"; else ok "$m: capabilities gone: the command did not run"; fi
	# A failed lockdown still writes the summary a rig files (issue 23).
	if python3 -c 'import json, sys
d = json.load(open(sys.argv[1]))
assert d["ended"] == "setup-failed" and d["exit_status"] == 125, d
assert len(d["run_id"]) == 32 and d["label"] == "lockdown", d
assert "sethostname" in d["error"], d["error"]' "$JR_W/lockdown-$m.json" 2>/dev/null; then
		ok "$m: capabilities gone: the summary says setup-failed, with the cause"
	else
		fail "$m: capabilities gone: summary: $(cat "$JR_W/lockdown-$m.json" 2>&1)"
	fi
	if grep -qF "sandbox firewall" <<<"$OUT"; then
		fail "$m: capabilities gone: the nft error was reported instead: $OUT"
	else
		ok "$m: capabilities gone: one message, init's"
	fi
	for net in "--allow example.test" "--net none"; do
		rm -f "$JR_W/finish-$m.json"
		# shellcheck disable=SC2086 # $net is two words on purpose
		expect_status 125 "$m: $net: Landlock ruleset refused after SETUP_OK: exit 125" \
			st "$m" -e trace=landlock_add_rule -e inject=landlock_add_rule:error=EPERM \
			-- $net --json "$JR_W/finish-$m.json" -- echo RAN-BAD
		expect_output_has "$m: $net: the cause is named" "landlock: cannot grant"
		if grep -qF "RAN-BAD" <<<"$OUT"; then fail "$m: $net: the command ran"; else ok "$m: $net: the command did not run"; fi
		if python3 -c 'import json, sys
d = json.load(open(sys.argv[1]))
assert d["ended"] == "setup-failed" and d["exit_status"] == 125, d
assert "landlock" in d["error"], d["error"]' "$JR_W/finish-$m.json" 2>/dev/null; then
			ok "$m: $net: the summary says setup-failed, with the cause"
		else
			fail "$m: $net: summary: $(cat "$JR_W/finish-$m.json" 2>&1)"
		fi
	done
done
finish
