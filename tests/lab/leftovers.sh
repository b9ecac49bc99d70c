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

# Give watchdogs of tests that just ended a moment to finish.
left=
for _ in $(seq 25); do
	left=$(leftovers)
	[[ -z $left ]] && break
	sleep 0.2
done

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
