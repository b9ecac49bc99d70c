#!/bin/bash
# contrib/python/jailrun_client.py, the harness client of live sandboxes
# (jailrun(1), LIVE SANDBOXES; docs/harnesses.md), tested with python3's
# unittest against a real `jailrun start`, root and rootless, in a lab:
# exec's status, output and conventions (127, 128+N), stdin, state kept
# between execs (write_file, read_file), env and cwd, the policy (an
# allowed lab host reached, a denied one refused), no capabilities under
# seccomp, a timeout that kills the command and not the sandbox, jailrun's
# own failures as JailrunError (125), `with` stopping the sandbox, a start
# jailrun refuses, --ask decided through pending() and deny() (a decided
# request gone). Each unittest case is one TAP line.
# Fails if: a case fails or does not run, the lab's server did not serve
# the allowed request or served the denied one, or a sandbox is left.
. "${JR_TOP_SRCDIR:-$(dirname "$0")/../..}/tests/lib.sh"
. "$JR_TOP_SRCDIR/tests/lab/lib.sh"
jr_require_sandbox
if [ -x /usr/bin/python3 ]; then PY=/usr/bin/python3; else PY=$(command -v python3 || true); fi
[ -n "$PY" ] || skip "python3 is needed"
lab_setup --timeout 600 pyclient # a hang guard, not a time limit
lab_on_exit jr_cleanup_tmp

# The client and its tests, where the rootless caller can read them.
install -m 644 "$JR_TOP_SRCDIR/contrib/python/jailrun_client.py" \
	"$JR_TOP_SRCDIR/contrib/python/test_jailrun_client.py" "$JR_TMP/"
XDG="$JR_W/xdg" # the rootless caller's XDG_RUNTIME_DIR
mkdir -m 700 "$XDG"
[ "$(id -u)" -ne 0 ] || chown "$JR_NOBODY_UID:$JR_NOBODY_GID" "$XDG"

# py MODE ARGS... - python3 as MODE's caller in the lab host, from $JR_TMP.
py() {
	local m=$1
	shift
	if [ "$m" = root ]; then
		lab_host timeout -k 5 "$JR_RUN_LIMIT" env -C "$JR_TMP" JAILRUN="$JR" "$@"
	else
		lab_host_as nobody timeout -k 5 "$JR_RUN_LIMIT" env -C "$JR_TMP" HOME="$JR_HOME" \
			XDG_RUNTIME_DIR="$XDG" JAILRUN="$JR" "$@"
	fi
}

lab_logs_clear
for m in $(jr_modes); do
	name=pyclient-$m-$$
	set +e
	out=$(py "$m" env JR_NAME="$name" JR_ALLOWED_URL="http://allowed.test/py-$m" \
		JR_DENIED_URL="http://denied.test/py-$m" "$PY" -m unittest -v test_jailrun_client 2>&1)
	st=$?
	set -e
	n=0
	while IFS= read -r line; do
		case $line in
		"test_"*" ... ok") ok "$m: ${line% ... ok}"; n=$((n + 1)) ;;
		"test_"*" ... "*) fail "$m: $line"; n=$((n + 1)) ;;
		esac
	done <<<"$out"
	if [ "$st" = 0 ] && [ "$n" -eq 13 ] && grep -q '^Ran 13 tests' <<<"$out"; then
		ok "$m: unittest ran all 13 cases, OK"
	else
		fail "$m: unittest status $st, $n cases seen, want 13: $out"
	fi
	if lab_web_served allowed.test "/py-$m"; then ok "$m: allowed.test served the sandbox's request"
	else fail "$m: allowed.test never served /py-$m"; fi
	# Only this test's: live.sh may have sandboxes of its own meanwhile.
	left=$(py "$m" "$JR" ls 2>&1 | tail -n +2 | grep -- "^pyclient-$m-$$" || true)
	if [ -z "$left" ]; then ok "$m: none of its live sandboxes left"; else fail "$m: left: $left"; fi
done
never_served "the denied requests" denied.test
finish
