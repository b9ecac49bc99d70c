# shellcheck shell=bash
# live-leftovers.sh - note what a live sandbox or a pool holds, and check that
# nothing of it is left (leftovers.py does the looking). Sourced by
# live.sh and pool.sh; uses their lv and m, and PYTHON. Root only: as
# anyone else the record is skipped and the check says nothing.
# m (the mode) is the sourcing test's.
# shellcheck disable=SC2154

# left_record LABEL FILE PID MIN-NETNS - note what runner (or manager)
# PID holds; at least MIN-NETNS network namespaces of its own, or the
# later check would judge nothing.
left_record() {
	local out n
	if [ "$(id -u)" -ne 0 ]; then
		skip_part "$1: leftovers.py needs root"
		return
	fi
	# (Not 0: every process descends from it.)
	if [ "${3:-0}" = 0 ]; then
		fail "$1: no pid to note (jailrun ls: $(lv "$m" ls 2>&1))"
		return
	fi
	out=$(JR_TMP=$JR_TMP JR_HOME=$JR_HOME "$PYTHON" "$JR_TOP_SRCDIR/tests/integration/leftovers.py" \
		record "$2" "$3" 2>&1) || true
	n=$(sed -n 's/.* netns \([0-9]*\) .*/\1/p' <<<"$out")
	if [ "${n:-0}" -ge "$4" ]; then ok "$1: noted $out"; else fail "$1: leftovers.py record: $out"; fi
}
# left_check LABEL FILE - nothing noted by left_record is left.
left_check() {
	local out
	[ "$(id -u)" -eq 0 ] || return 0
	if out=$(JR_TMP=$JR_TMP JR_HOME=$JR_HOME "$PYTHON" "$JR_TOP_SRCDIR/tests/integration/leftovers.py" \
		check "$2" 2>&1); then
		ok "$1: $out"
	else
		fail "$1: $out"
	fi
}
