# shellcheck shell=bash
# SPDX-License-Identifier: GPL-2.0-or-later
#
# tests/lab/lib.sh - what a test script sources to run inside a jailrun lab.
#
#   . "$JR_TOP_SRCDIR/tests/lab/lib.sh"
#   lab_setup [--timeout SECONDS] [HINT]   make a fresh lab (skips if impossible)
#   lab_host CMD...            run CMD in the lab host netns, as root
#   lab_host_as USER CMD...    same, as USER (setpriv; uid/gid/groups only)
#   lab_net CMD...             run CMD in the lab internet netns
#   lab_ca | lab_dnslog | lab_weblog     paths (also $LAB_CA $LAB_DNSLOG $LAB_WEBLOG)
#   lab_addr HOST [4|6]        a lab address, e.g. lab_addr allowed.test 6
#   lab_dns_queried NAME       true if the lab DNS server saw a query for NAME
#   lab_web_served NAME [PATH] true if NAME's web server answered a request
#                              (for PATH, if given), readiness probes excepted
#   lab_logs_clear             empty the DNS and web logs
#   lab_check LABEL CMD...     run CMD; print "ok - LABEL" or "FAIL - LABEL"
#                              (with CMD's output); lab_finish exits 1 if any failed
#   lab_on_exit 'SHELL CODE'   extra cleanup, run before the labs go down
#   skip MSG / fail MSG        exit 77 / exit 1 (skip becomes fail when
#                              JAILRUN_TEST_MUST_WORK=1); also lab_skip, lab_fail
#
# A test that sourced tests/tap.sh first (tests/lib.sh does) reports in TAP,
# as make check reads it: lab_check prints "ok N - LABEL" / "not ok N -
# LABEL", lab_finish the plan, a skip "1..0 # SKIP MSG" with exit 0, a
# failure "not ok" and the plan. Without it (bench/), the lines above.
#
# lab_setup installs EXIT/INT/TERM/HUP traps that take every lab of this test
# down (use lab_on_exit rather than your own EXIT trap), and starts a watchdog
# in its own session that takes the lab down when the test exits however it
# exits (even SIGKILL), and after SECONDS (default $LAB_TEST_TIMEOUT or 300)
# tears the lab down and stops the test: a hard overall timeout.

LAB_TOOL=${LAB_TOOL:-$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)/lab}
_jrlab_labs=()
_jrlab_cleanups=()
_jrlab_failed=0
_jrlab_traps=

_jrlab_me() { basename "$0"; }
# True if the test speaks TAP (it sourced tests/tap.sh).
_jrlab_tap() { declare -F tap_plan >/dev/null; }

lab_skip() {
	if [[ ${JAILRUN_TEST_MUST_WORK:-0} == 1 ]]; then
		lab_fail "$* (this would be a skip, but JAILRUN_TEST_MUST_WORK=1)"
	fi
	_jrlab_tap && tap_skip_all "$(_jrlab_me): $*"
	echo "SKIP: $(_jrlab_me): $*" >&2
	exit 77
}

lab_fail() {
	if _jrlab_tap; then
		tap_not_ok "$(_jrlab_me): $*"
		tap_plan
		exit 1
	fi
	echo "FAIL: $(_jrlab_me): $*" >&2
	exit 1
}

declare -F skip >/dev/null || skip() { lab_skip "$@"; }
declare -F fail >/dev/null || fail() { lab_fail "$@"; }

# Skip unless this machine can build labs.
lab_require() {
	local c
	[[ $(id -u) -eq 0 ]] || lab_skip "needs root (it builds network namespaces)"
	ip netns list >/dev/null 2>&1 || lab_skip "'ip netns' is not available"
	for c in curl openssl python3 timeout setsid setpriv; do
		command -v "$c" >/dev/null || lab_skip "needs $c"
	done
	[[ -x $LAB_TOOL ]] || lab_fail "no lab tool at $LAB_TOOL"
}

lab_on_exit() { _jrlab_cleanups+=("$1"); }

# lab_run_prefix - "RUN." for the labs of this test run (JR_TEST_RUN, set
# once per `make check` by the harness), nothing outside one. Every lab
# name, and so its netns, state and server arguments, starts with it:
# leftovers.sh judges only its own run's labs. RUN has no dot, so "RUN."
# names exactly one run.
lab_run_prefix() {
	[[ -n ${JR_TEST_RUN:-} ]] || return 0
	printf '%s.' "$(printf '%s' "$JR_TEST_RUN" | tr -c 'A-Za-z0-9_-' '-' | cut -c1-12)"
}

_jrlab_on_exit() {
	local rc=$? c n
	trap - EXIT INT TERM HUP
	for c in "${_jrlab_cleanups[@]}"; do eval "$c" || true; done
	for n in "${_jrlab_labs[@]}"; do "$LAB_TOOL" down "$n" || true; done
	exit "$rc"
}

_jrlab_on_signal() {
	echo "$(_jrlab_me): got SIG$1; taking the lab down" >&2
	exit "$2"
}

lab_setup() {
	local timeout=${LAB_TEST_TIMEOUT:-300} hint='' name rc=0
	while (($#)); do
		case $1 in
		--timeout) timeout=$2; shift 2 ;;
		*) hint=$1; shift ;;
		esac
	done
	lab_require
	hint=${hint:-$(_jrlab_me)}
	hint=${hint%.sh}
	hint=$(printf '%s' "$hint" | tr -c 'A-Za-z0-9_.-' '-' | cut -c1-24)
	name=$hint-$$
	local run
	run=$(lab_run_prefix)
	[[ -z $run ]] || name=$run${hint:0:16}-$$   # 13+16+1+7+2 <= 40 chars
	((${#_jrlab_labs[@]} == 0)) || name=$name-${#_jrlab_labs[@]}
	_jrlab_labs+=("$name")
	if [[ -z $_jrlab_traps ]]; then
		_jrlab_traps=1
		trap _jrlab_on_exit EXIT
		trap '_jrlab_on_signal INT 130' INT
		trap '_jrlab_on_signal TERM 143' TERM
		trap '_jrlab_on_signal HUP 129' HUP
	fi
	# The watchdog: own session (no terminal signals), outlives this shell.
	setsid "$LAB_TOOL" _watchdog "$name" "$$" "$timeout" </dev/null >/dev/null &
	"$LAB_TOOL" up "$name" || rc=$?
	((rc == 0)) || { ((rc == 77)) && lab_skip "lab up says this machine cannot run labs"; }
	((rc == 0)) || lab_fail "lab up $name failed (exit $rc)"
	eval "$("$LAB_TOOL" env "$name")"
	export LAB_NAME LAB_HOST_NS LAB_NET_NS LAB_STATE LAB_CA LAB_DNSLOG LAB_WEBLOG LAB_IPV6 LAB_TOOL
	# Look nobody up once here, not in every $(...) that runs as nobody.
	_jrlab_user_opts nobody || true
}

# lab_host, lab_host_as, lab_net and lab_addr do what `lab exec` and `lab
# addr` do, without starting the lab tool (a bash script) for each: tests
# run hundreds of commands in the lab, and on a loaded machine every extra
# process start costs a noticeable fraction of a second. The command ends
# up the same: ip netns exec NS [setpriv ...] CMD.
lab_host() { ip netns exec "$LAB_HOST_NS" "$@"; }
declare -A _jrlab_user=()
# _jrlab_user_opts USER - fill _jrlab_user[USER] with setpriv's options:
# as `lab exec --user`, a user name, or a bare uid without groups.
_jrlab_user_opts() {
	local u=$1 id
	[[ -z ${_jrlab_user[$u]:-} ]] || return 0
	if id=$(id -u "$u" 2>/dev/null); then
		_jrlab_user[$u]="--reuid=$id --regid=$(id -g "$u") --init-groups"
	elif [[ $u =~ ^[0-9]+$ ]]; then
		_jrlab_user[$u]="--reuid=$u --regid=$u --clear-groups"
	else
		echo "lab_host_as: unknown user $u" >&2
		return 1
	fi
}
lab_host_as() {
	local u=$1
	shift
	_jrlab_user_opts "$u" || return 1
	# shellcheck disable=SC2086 # three options, split on purpose
	ip netns exec "$LAB_HOST_NS" setpriv ${_jrlab_user[$u]} -- "$@"
}
lab_net() { ip netns exec "$LAB_NET_NS" "$@"; }
lab_ca() { echo "$LAB_CA"; }
lab_dnslog() { echo "$LAB_DNSLOG"; }
lab_weblog() { echo "$LAB_WEBLOG"; }
lab_addr() {
	awk -v n="$1" -v f="${2:-4}" '$2 == n { a = (f == 6) ? $4 : $3; if (a != "-") { print a; found = 1 } }
		END { exit !found }' "$LAB_STATE/plan" || { echo "lab_addr: no IPv${2:-4} address for '$1' in lab $LAB_NAME" >&2; return 1; }
}

# dns.log lines: EPOCH PROTO CLIENT NAME TYPE RCODE (names lower-case, no
# trailing dot).
lab_dns_queried() {
	local n=${1,,}
	awk -v n="${n%.}" '$4 == n { f = 1 } END { exit !f }' "$LAB_DNSLOG"
}

# web.log lines: EPOCH SERVED-BY SCHEME CLIENT METHOD PATH STATUS BYTES
lab_web_served() {
	awk -v n="$1" -v p="${2:-}" '$2 == n && $6 != "/lab-probe" && (p == "" || $6 == p) { f = 1 }
		END { exit !f }' "$LAB_WEBLOG"
}

lab_logs_clear() { : >"$LAB_DNSLOG"; : >"$LAB_WEBLOG"; }

lab_check() {
	local label=$1 out rc=0
	shift
	out=$("$@" 2>&1) || rc=$?
	if ((rc == 0)); then
		if _jrlab_tap; then tap_ok "$label"; else echo "ok   - $label"; fi
	elif _jrlab_tap; then
		tap_not_ok "$label (exit $rc)${out:+$'\n'$(head -20 <<<"$out")}"
		_jrlab_failed=1
	else
		echo "FAIL - $label (exit $rc)"
		[[ -z $out ]] || head -20 <<<"$out" | sed 's/^/       | /'
		_jrlab_failed=1
	fi
	return 0
}

lab_finish() {
	! _jrlab_tap || tap_plan
	if ((_jrlab_failed)); then
		echo "$(_jrlab_me): some checks FAILED"
		exit 1
	fi
	echo "$(_jrlab_me): all checks passed"
	exit 0
}
