#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-or-later
#
# leftovers.sh - run after the whole suite: fail if any lab left anything
# behind: a jrlab-* network namespace, a lab server or watchdog process,
# state under /run/jailrun-lab, or an /etc/netns/jrlab-* directory.
# Automake test: 0 nothing left, 1 something left (listed), 77 not root.
#
# It only reports; `tests/lab/lab down --all` removes what it finds (or run
# this with LAB_LEFTOVERS_CLEAN=1 to do that after reporting).
set -euo pipefail

here=$(cd "$(dirname "$0")" && pwd)
# shellcheck source=lib.sh
. "$here/lib.sh"

[[ $(id -u) -eq 0 ]] || lab_skip "needs root to see network namespaces and /run"

leftovers() {
	local p
	if ip netns list >/dev/null 2>&1; then
		ip netns list | awk '$1 ~ /^jrlab-/ { print "netns " $1 }'
	fi
	for p in /run/jailrun-lab/*; do
		[[ -e $p ]] && echo "state $p"
	done
	for p in /etc/netns/jrlab-*; do
		[[ -e $p ]] && echo "file $p"
	done
	# Lab servers carry --state=/run/jailrun-lab/NAME; watchdogs _watchdog.
	# ("[-]" and "[_]" keep grep from finding itself.)
	{
		grep -lzx -- '[-]-state=/run/jailrun-lab/.*' /proc/[0-9]*/cmdline 2>/dev/null || true
		grep -lzx -- '[_]watchdog' /proc/[0-9]*/cmdline 2>/dev/null || true
	} | sort -u | while read -r p; do
		p=${p#/proc/}
		p=${p%/cmdline}
		echo "process $p: $(tr '\0' ' ' <"/proc/$p/cmdline" 2>/dev/null | cut -c1-160)"
	done
	return 0
}

# Under make -j this may start while other tests still hold their labs.
# Every lab has a watchdog "lab _watchdog NAME OWNER-PID TIMEOUT": a lab
# whose owner is alive is in use, not left over. Wait (bounded) until no
# owner is alive, then look.
owners_alive() {
	local p owner
	for p in $(grep -lzx -- '[_]watchdog' /proc/[0-9]*/cmdline 2>/dev/null); do
		owner=$(tr '\0' ' ' <"$p" 2>/dev/null | awk '{ for (i = 1; i <= NF; i++) if ($i == "_watchdog") { print $(i + 2); exit } }')
		[[ -n $owner ]] && kill -0 "$owner" 2>/dev/null && return 0
	done
	return 1
}
for _ in $(seq 1200); do
	owners_alive || break
	sleep 0.5
done

# The watchdog of a test that just ended tears its lab down, then exits:
# wait until no watchdog of an ended test runs (bounded only so nothing
# hangs: one still there then is reported as a leftover), then look once.
ended_watchdogs() {
	local p owner
	for p in $(grep -lzx -- '[_]watchdog' /proc/[0-9]*/cmdline 2>/dev/null); do
		owner=$(tr '\0' ' ' <"$p" 2>/dev/null | awk '{ for (i = 1; i <= NF; i++) if ($i == "_watchdog") { print $(i + 2); exit } }')
		[[ -n $owner ]] && ! kill -0 "$owner" 2>/dev/null && return 0
	done
	return 1
}
for _ in $(seq 600); do
	ended_watchdogs || break
	sleep 0.2
done
left=$(leftovers)

if [[ -z $left ]]; then
	echo "ok - no lab left anything behind (netns, processes, /run/jailrun-lab, /etc/netns)"
	exit 0
fi
echo "FAIL - labs left these behind:"
printf '%s\n' "$left" | sed 's/^/    /'
if [[ ${LAB_LEFTOVERS_CLEAN:-0} == 1 ]]; then
	"$here/lab" down --all || true
	echo "    (removed with: lab down --all)"
else
	echo "    remove them with: $here/lab down --all"
fi
exit 1
