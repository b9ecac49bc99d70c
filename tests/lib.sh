# shellcheck shell=bash
# tests/lib.sh - shared helpers for jailrun's integration tests.
#
# Each test sources this, then calls its cases once per mode:
#   root      jailrun started by root (the command runs as nobody)
#   rootless  jailrun started by an unprivileged user (nobody, via setpriv)
# As a non-root user only "rootless" runs (as that user).
#
# Output is TAP (tests/tap.sh): ok and fail print "ok N - ..." and
# "not ok N - ...", finish prints the plan; the exit status is 0, or 1 if a
# check failed. skip ends the script as skipped ("1..0 # SKIP ..."); with
# JAILRUN_TEST_MUST_WORK=1 (CI) a skip is a failure.
set -euo pipefail

: "${JAILRUN:?JAILRUN must point at the jailrun binary}"
JR_TOP_SRCDIR=${JR_TOP_SRCDIR:-$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)}
JR_TOP_BUILDDIR=${JR_TOP_BUILDDIR:-$(dirname "$JAILRUN")}
# Each jailrun run in a test is bounded; nothing may hang the suite. The
# bound only ends a run that hangs: it is not a latency check, so it is
# generous enough for the suite's heaviest neighbours (many.sh's 100
# sandboxes, the booted systemd) on 2 busy cores.
JR_RUN_LIMIT=${JR_RUN_LIMIT:-150}
# The default user when root runs jailrun depends on sudo: pin it.
unset SUDO_UID SUDO_GID SUDO_USER

# shellcheck source=tap.sh
. "$JR_TOP_SRCDIR/tests/tap.sh"
JR_FAILURES=0
JR_PASSES=0
JR_NOBODY_UID=$(id -u nobody 2>/dev/null || echo 65534)
JR_NOBODY_GID=$(id -g nobody 2>/dev/null || echo 65534)

skip() {
	if [ "${JAILRUN_TEST_MUST_WORK:-0}" = 1 ]; then
		fail "SKIP: $* (JAILRUN_TEST_MUST_WORK=1 turns this skip into a failure)"
		finish || exit 1
	fi
	tap_skip_all "$*"
}

# skip_part REASON - a part of the test that cannot run here: a skipped
# result ("ok N # SKIP REASON"), and the script goes on. With
# JAILRUN_TEST_MUST_WORK=1 (CI) it is a failure, as every skip is.
skip_part() {
	if [ "${JAILRUN_TEST_MUST_WORK:-0}" = 1 ]; then
		fail "SKIP: $* (JAILRUN_TEST_MUST_WORK=1 turns this skip into a failure)"
		return
	fi
	tap_skip "$*"
}

ok() {
	JR_PASSES=$((JR_PASSES + 1))
	tap_ok "$*"
}

# fail DESC - a failed check; DESC's first line is the result, the rest
# (often a command's output) follows as TAP diagnostics.
fail() {
	JR_FAILURES=$((JR_FAILURES + 1))
	tap_not_ok "$*"
}

# finish - the totals as a diagnostic and the plan, last; false if a check
# failed (the script's exit status when it ends with finish).
finish() {
	tap_diag "$JR_PASSES passed, $JR_FAILURES failed"
	tap_plan
	[ "$JR_FAILURES" -eq 0 ]
}

# A world-readable copy of the binaries: the build tree may sit under a
# directory (e.g. /root) the unprivileged test user cannot traverse.
JR_TMP=$(mktemp -d /tmp/jailrun-test.XXXXXX)
chmod 755 "$JR_TMP"
jr_cleanup_tmp() {
	rm -rf "$JR_TMP" "${JR_HOME:-}"
}
trap jr_cleanup_tmp EXIT
# $JR_W: a directory every mode may write to (outputs, summaries).
JR_W="$JR_TMP/w"
mkdir -m 1777 "$JR_W"
# The rootless caller's $HOME. Neither $JR_TMP nor inside it: jailrun
# refuses to make the home (or a parent of it) the writable working
# directory, and the tests run from $JR_TMP, which the default layout makes
# writable (so $JR_W is writable inside, also under the private /tmp).
JR_HOME=$(mktemp -d /tmp/jailrun-home.XXXXXX)
chmod 0755 "$JR_HOME"
if [ "$(id -u)" -eq 0 ]; then chown "$(id -u nobody 2>/dev/null || echo 65534):$(id -g nobody 2>/dev/null || echo 65534)" "$JR_HOME"; fi
install -m 755 "$JAILRUN" "$JR_TMP/jailrun"
JR="$JR_TMP/jailrun"
# An AddressSanitizer build's memory figures (shadow memory, the quarantine
# of freed blocks) say nothing about jailrun's own: tests print them instead
# of judging them there.
# (Not "ldd | grep -q": under pipefail, grep leaving at the first match
# can kill ldd with SIGPIPE, and the pipeline then reads as "no match".)
case "$(ldd "$JAILRUN" 2>/dev/null || true)" in *libasan*) JR_ASAN=1 ;; *) JR_ASAN=0 ;; esac
# Sanitizer builds: the suppressions must be readable by the rootless user.
install -m 644 "$JR_TOP_SRCDIR/tests/lsan.supp" "$JR_TMP/lsan.supp"
export LSAN_OPTIONS="suppressions=$JR_TMP/lsan.supp:print_suppressions=0${LSAN_OPTIONS:+:$LSAN_OPTIONS}"
if [ -x "$JR_TOP_BUILDDIR/tests/helpers/fdcheck" ]; then
	install -m 755 "$JR_TOP_BUILDDIR/tests/helpers/fdcheck" "$JR_TMP/fdcheck"
fi
if [ -x "$JR_TOP_BUILDDIR/tests/helpers/nolandlock" ]; then
	install -m 755 "$JR_TOP_BUILDDIR/tests/helpers/nolandlock" "$JR_TMP/nolandlock"
fi

jr_modes() {
	if [ "$(id -u)" -eq 0 ]; then
		echo root rootless
	else
		echo rootless
	fi
}

# as_mode MODE CMD... - run CMD as the mode's caller, from $JR_TMP.
as_mode() {
	local mode=$1
	shift
	if [ "$mode" = rootless ] && [ "$(id -u)" -eq 0 ]; then
		(cd "$JR_TMP" && HOME=$JR_HOME exec setpriv --reuid="$JR_NOBODY_UID" \
			--regid="$JR_NOBODY_GID" --clear-groups -- "$@")
	else
		(cd "$JR_TMP" && exec "$@")
	fi
}

# jr MODE ARGS... - run jailrun in MODE, bounded in time.
jr() {
	local mode=$1
	shift
	as_mode "$mode" timeout -k 5 "$JR_RUN_LIMIT" "$JR" "$@"
}

# The uid the command should have in MODE.
jr_expected_uid() {
	if [ "$1" = root ]; then echo "$JR_NOBODY_UID"; else
		if [ "$(id -u)" -eq 0 ]; then echo "$JR_NOBODY_UID"; else id -u; fi
	fi
}

# expect_status WANT DESC CMD... - run CMD, capture output in $OUT.
expect_status() {
	local want=$1 desc=$2 st
	shift 2
	set +e
	OUT=$("$@" 2>&1)
	st=$?
	set -e
	if [ "$st" = "$want" ]; then
		ok "$desc (status $st)"
	else
		fail "$desc: status $st, want $want; output: $OUT"
	fi
}

# expect_output_has DESC NEEDLE - check $OUT from the last expect_status.
expect_output_has() {
	# A here-string, not a pipe: with pipefail, grep -q exiting at the
	# first match would make printf die of SIGPIPE and fail the check.
	if grep -qF -- "$2" <<<"$OUT"; then
		ok "$1"
	else
		fail "$1: output lacks '$2'; output: $OUT"
	fi
}

# audit_has LABEL FILE PATTERN... - one line of FILE has every PATTERN.
audit_has() {
	local label=$1 file=$2 line
	shift 2
	while IFS= read -r line; do
		local all=1 p
		for p in "$@"; do
			case $line in *"$p"*) ;; *) all=0 ;; esac
		done
		if [ "$all" = 1 ]; then
			ok "$label"
			return
		fi
	done <"$file"
	fail "$label: no line with $*: $(cat "$file")"
}

# audit_count FILE NEEDLE - how many records the lines of audit log FILE
# that contain NEEDLE stand for: a line with "repeated":N stands for N
# (repeats are collapsed, jailrun(1) AUDIT LOG), any other for one.
audit_count() {
	awk -v needle="$2" 'index($0, needle) {
		if (match($0, /"repeated":[0-9]+/)) n += substr($0, RSTART + 11, RLENGTH - 11)
		else n++
	} END { print n + 0 }' "$1" 2>/dev/null || echo 0
}

# wait_until SECONDS CMD... - poll CMD until it succeeds: a wait for a
# readiness signal (a file, a log line, a process), bounded only so that
# nothing hangs. SECONDS is a hang guard, never a latency judgement: make
# it generous. Returns 1 if CMD never succeeded.
wait_until() {
	local end=$((SECONDS + $1))
	shift
	until "$@"; do
		[ "$SECONDS" -le "$end" ] || return 1
		sleep 0.02
	done
}

# marker_pid MARKER - the pid of a command started as "exec -a MARKER ...",
# waiting for it up to 30 s (a hang guard: start-up on a loaded machine can
# take seconds). Fails if it never appears.
jr_marker_found() {
	JR_MARKER_PID=$(pgrep -f "^$1( |\$)" || true)
	[ -n "$JR_MARKER_PID" ]
}
marker_pid() {
	wait_until 30 jr_marker_found "$1" || return 1
	echo "$JR_MARKER_PID"
}

# jr_runner_pid PATTERN - the pid of the jailrun runner whose command line
# matches PATTERN (pgrep -f). The sandbox's init is a clone of the runner
# with the same command line, and both may have started in the same clock
# tick, so "pgrep -o" could pick either: the runner is the match whose
# parent is not a match. Prints nothing if none.
jr_runner_pid() {
	local all p pp
	all=" $(pgrep -f "$1" | tr '\n' ' ') "
	for p in $all; do
		pp=$(awk '{ print $4 }' "/proc/$p/stat" 2>/dev/null) || continue
		case $all in *" $pp "*) ;; *) echo "$p"; return 0 ;; esac
	done
	return 0
}

# jl CALLER ARGS... - jailrun in the lab host (tests/lab/lib.sh) as CALLER,
# root or rootless (nobody), from $JR_TMP, stdin /dev/null, bounded by
# $JR_RUN_LIMIT, and under the hard descriptor limit $JL_NOFILE if set.
jl() {
	local c=$1 lim=()
	shift
	[ -z "${JL_NOFILE:-}" ] || lim=(prlimit "--nofile=$JL_NOFILE:$JL_NOFILE")
	case $c in
	root) lab_host "${lim[@]}" timeout -k 5 "$JR_RUN_LIMIT" env -C "$JR_TMP" "$JR" "$@" </dev/null ;;
	rootless) lab_host_as nobody "${lim[@]}" timeout -k 5 "$JR_RUN_LIMIT" \
		env -C "$JR_TMP" HOME="$JR_HOME" "$JR" "$@" </dev/null ;;
	*) echo "jl: unknown caller $c" >&2; return 2 ;;
	esac
}

# jl_tty CALLER ARGS... - jl with a terminal on stderr (script(1)): the
# denied line at exit is printed only there.
jl_tty() {
	local c=$1 cmd
	shift
	printf -v cmd '%q ' "$JR" "$@"
	case $c in
	root) lab_host timeout -k 5 "$JR_RUN_LIMIT" env -C "$JR_TMP" script -qec "$cmd" /dev/null </dev/null ;;
	rootless) lab_host_as nobody timeout -k 5 "$JR_RUN_LIMIT" \
		env -C "$JR_TMP" HOME="$JR_HOME" script -qec "$cmd" /dev/null </dev/null ;;
	esac
}

# never_served LABEL NAME - NAME's lab web server answered no request.
never_served() {
	if lab_web_served "$2"; then
		fail "$1: $2 was reached: $(grep -F " $2 " "$LAB_WEBLOG" | head -3)"
	else
		ok "$1: $2 was never reached"
	fi
}

# nft_normalise - nft text without comments, indentation and blank lines,
# so a live dump compares with the reviewed files in nft/.
nft_normalise() {
	sed -e 's/#.*$//' -e 's/^[[:space:]]*//' -e 's/[[:space:]]*$//' | grep -v '^$' || true
}

# Sandboxes need user namespaces; say so clearly if the host forbids them.
jr_require_sandbox() {
	local out
	if ! out=$(as_mode rootless "$JR" --check 2>&1); then
		skip "this host cannot run jailrun sandboxes: $out"
	fi
}
