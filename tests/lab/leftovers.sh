#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-or-later
#
# leftovers.sh - run after the whole suite: fail if any lab of this test
# run left anything behind: a jrlab-* network namespace, a lab server or
# watchdog process, state under /run/jailrun-lab, or an /etc/netns/jrlab-*
# directory. Automake test in TAP (tests/tap.sh), one check: "ok 1" if
# nothing is left, "not ok 1" and the list (exit 1) if something is; a
# skip when not root.
#
# Only this run's labs are judged: the harness sets JR_TEST_RUN once per
# `make check`, and lib.sh starts every lab name with it ("RUN.",
# lab_run_prefix), so the namespaces, state, servers' --state= and the
# watchdogs' arguments all carry it. Labs of another suite running on the
# same machine at the same time are neither waited for nor reported.
# Without JR_TEST_RUN (run by hand) every lab on the machine is judged.
#
# It only reports; LAB_LEFTOVERS_CLEAN=1 takes this run's labs down after
# reporting (`tests/lab/lab down --all` removes every lab on the machine).
set -euo pipefail

here=$(cd "$(dirname "$0")" && pwd)
# shellcheck source=../tap.sh
. "$here/../tap.sh"
# shellcheck source=lib.sh
. "$here/lib.sh"

[[ $(id -u) -eq 0 ]] || lab_skip "needs root to see network namespaces and /run"

# This run's lab-name prefix; empty: every lab.
RUN=$(lab_run_prefix)

# ours NAME - is lab NAME one of this run's?
ours() { [[ $1 == "$RUN"* ]]; }

# Lab processes, as "PID NAME OWNER CMDLINE": servers carry
# --state=/run/jailrun-lab/NAME (OWNER -), watchdogs "_watchdog NAME
# OWNER-PID TIMEOUT". ("[-]" and "[_]" keep grep from finding itself.)
lab_procs() {
	local f p args name owner i
	for f in $({
		grep -lzx -- '[-]-state=/run/jailrun-lab/.*' /proc/[0-9]*/cmdline 2>/dev/null || true
		grep -lzx -- '[_]watchdog' /proc/[0-9]*/cmdline 2>/dev/null || true
	} | sort -u); do
		p=${f#/proc/}
		p=${p%/cmdline}
		mapfile -d '' -t args 2>/dev/null <"$f" || continue
		name='' owner=-
		for ((i = 0; i < ${#args[@]}; i++)); do
			case ${args[i]} in
			--state=/run/jailrun-lab/*) name=${args[i]#--state=/run/jailrun-lab/} ;;
			_watchdog) name=${args[i + 1]:-} owner=${args[i + 2]:--} ;;
			esac
		done
		[[ -n $name ]] || continue
		echo "$p $name $owner ${args[*]}"
	done
}

leftovers() {
	local p n
	if ip netns list >/dev/null 2>&1; then
		ip netns list | awk -v pre="jrlab-$RUN" 'index($1, pre) == 1 { print "netns " $1 }'
	fi
	for p in /run/jailrun-lab/"$RUN"*; do
		[[ -e $p ]] && echo "state $p"
	done
	for p in /etc/netns/jrlab-"$RUN"*; do
		[[ -e $p ]] && echo "file $p"
	done
	lab_procs | while read -r p n _ args; do
		if ours "$n"; then echo "process $p: $(cut -c1-160 <<<"$args")"; fi
	done
	return 0
}

# watchdogs_of alive|ended - true if a watchdog of this run's labs has an
# owner (the test that made the lab) that is alive / gone.
watchdogs_of() {
	local p n owner
	while read -r p n owner _; do
		if ! ours "$n" || [[ $owner == - ]]; then continue; fi
		if kill -0 "$owner" 2>/dev/null; then
			[[ $1 == alive ]] && return 0
		else
			[[ $1 == ended ]] && return 0
		fi
	done < <(lab_procs)
	return 1
}

# Under make -j this may start while other tests of this run still hold
# their labs. Every lab has a watchdog "lab _watchdog NAME OWNER-PID
# TIMEOUT": a lab whose owner is alive is in use, not left over. Wait
# (bounded) until no owner of this run is alive, then look.
for _ in $(seq 1200); do
	watchdogs_of alive || break
	sleep 0.5
done

# The watchdog of a test that just ended tears its lab down, then exits:
# wait until no watchdog of an ended test runs (bounded only so nothing
# hangs: one still there then is reported as a leftover), then look once.
for _ in $(seq 600); do
	watchdogs_of ended || break
	sleep 0.2
done
left=$(leftovers)

whose=${RUN:+"run ${RUN%.} (JR_TEST_RUN)"}
whose=${whose:-"this machine (no JR_TEST_RUN: every lab)"}
if [[ -z $left ]]; then
	tap_ok "no lab of $whose left anything behind (netns, processes, /run/jailrun-lab, /etc/netns)"
	tap_plan
	exit 0
fi
tap_not_ok "labs of $whose left these behind:"$'\n'"    ${left//$'\n'/$'\n'    }"
if [[ ${LAB_LEFTOVERS_CLEAN:-0} == 1 ]]; then
	for n in $("$here/lab" list | awk '{ print $1 }'); do
		if ours "$n"; then "$here/lab" down "$n" >&2; fi
	done
	tap_diag "    (removed with: lab down NAME, for each of this run's labs)"
else
	tap_diag "    remove them with: $here/lab down NAME (each listed lab), or every lab: $here/lab down --all"
fi
tap_plan
exit 1
