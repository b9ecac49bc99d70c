# shellcheck shell=bash
# SPDX-License-Identifier: GPL-2.0-or-later
#
# tests/tap.sh - TAP (the Test Anything Protocol) for the shell tests.
#
# make check runs every *.sh test through automake's tap-driver.sh, which
# reads the script's stdout and counts each "ok N" / "not ok N" line as a
# test of its own: test-suite.log and make's summary show every check, not
# one result per script.
#
#   tap_ok DESC          "ok N - DESC"
#   tap_not_ok DESC      "not ok N - DESC"
#   tap_skip REASON      "ok N # SKIP REASON": one check that could not run
#   tap_skip_all REASON  the script ends here: "1..0 # SKIP REASON" and exit
#                        0 if nothing ran yet, else tap_skip and the plan
#   tap_diag TEXT        each line of TEXT as "# TEXT" (read, never counted)
#   tap_plan             "1..N", printed last (a late plan)
#
# A result is one line: the lines of DESC after its first follow as
# diagnostics. A script that dies before its plan (set -e, a timeout) has
# none, and tap-driver reports that as an error, as it does a non-zero
# exit status: a half-run script cannot read as passed.
#
# Only these functions may print lines that start with "ok", "not ok",
# "1.." or "Bail out!" on stdout. A test captures what its commands print
# or sends it to stderr (tap-driver copies stderr to the log unread). A
# stray result line cannot pass unnoticed: the plan counts only the
# lines printed here, so tap-driver reports an out-of-order result or the
# wrong number of results.

TAP_N=0
TAP_FAILED=0

# tap_diag TEXT - TEXT as diagnostics, one "# " line per line.
tap_diag() {
	local lines
	mapfile -t lines <<<"$1"
	printf '# %s\n' "${lines[@]}"
}

# _tap_result OK|NOT DESC [DIRECTIVE] - one numbered result line.
_tap_result() {
	local first=${2%%$'\n'*} lc
	TAP_N=$((TAP_N + 1))
	# A "#" followed by SKIP or TODO would read as a directive that this
	# result does not have: escape it (tap-driver honours "\#").
	lc=${first,,}
	if [[ $lc =~ \#[[:space:]]*(skip|todo)([^a-z0-9_]|$) ]]; then
		first=${first//\#/\\#}
	fi
	if [ "$1" = OK ]; then
		printf 'ok %d%s%s\n' "$TAP_N" "${first:+ - $first}" "${3:+ # $3}"
	else
		TAP_FAILED=$((TAP_FAILED + 1))
		printf 'not ok %d%s\n' "$TAP_N" "${first:+ - $first}"
	fi
	[[ $2 != *$'\n'* ]] || tap_diag "${2#*$'\n'}"
}

tap_ok() { _tap_result OK "$*"; }
tap_not_ok() { _tap_result NOT "$*"; }

tap_skip() {
	local reason=${*%%$'\n'*}
	TAP_N=$((TAP_N + 1))
	printf 'ok %d # SKIP %s\n' "$TAP_N" "$reason"
	[[ $* != *$'\n'* ]] || tap_diag "${*#*$'\n'}"
}

tap_plan() { printf '1..%d\n' "$TAP_N"; }

# tap_skip_all REASON - end the script as skipped. Exit 0: to automake a
# TAP script's non-zero status is an error, never a skip (no 77 here).
tap_skip_all() {
	local reason=${*%%$'\n'*}
	[[ $* != *$'\n'* ]] || tap_diag "${*#*$'\n'}"
	if [ "$TAP_N" -eq 0 ]; then
		printf '1..0 # SKIP %s\n' "$reason"
		exit 0
	fi
	tap_skip "$reason"
	tap_plan
	[ "$TAP_FAILED" -eq 0 ] || exit 1
	exit 0
}
