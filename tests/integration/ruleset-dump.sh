#!/bin/bash
# The live rulesets of a running sandbox, dumped by nft(8) from inside its
# network namespaces, equal the reviewed reference texts in nft/: the
# worker's for --net none, for --allow (transparent capture on, the
# default) and for --allow --transparent off; and the relay netns's table
# (nft/jailrun-relay.nft), which exists only with transparent capture.
# Fails if: an installed table differs in any chain, hook, policy, rule or
# flag from its reference file; a sandbox netns holds anything besides our
# table; the relay netns has a table under --transparent off, or lacks it
# (or the redirect) under --transparent on.
. "${JR_TOP_SRCDIR:-$(dirname "$0")/../..}/tests/lib.sh"
jr_require_sandbox
command -v nft >/dev/null || skip "nft(8) is needed to dump the ruleset (apt-get install nftables)"
command -v nsenter >/dev/null || skip "nsenter(1) is needed"

RELAYNS=$JR_TOP_SRCDIR/tests/helpers/relayns.py
GW=100.64.77.1

# in_netns PID CMD... - CMD in the network namespace of process PID.
in_netns() {
	local p=$1
	shift
	if [ "$(id -u)" -eq 0 ]; then
		nsenter --net="/proc/$p/ns/net" "$@"
	else
		nsenter --preserve-credentials -U -n -t "$p" "$@"
	fi
}

# The reference files are written for a kernel with IPv6, where the
# sandbox link has it too; without, jailrun installs them less their IPv6
# lines (link.h, jr_link_ipv6_available(): the same file, this netns).
ref_text() {
	if [ "$(cat /proc/sys/net/ipv6/conf/default/disable_ipv6 2>/dev/null)" = 0 ]; then
		nft_normalise <"$1"
	else
		nft_normalise <"$1" | grep -v -e 'icmpv6' -e 'ip6 ' || true
	fi
}

# compare LABEL REFERENCE-TEXT LIVE-TEXT
compare() {
	if [ "$(printf '%s\n' "$3" | nft_normalise)" = "$2" ]; then
		ok "$1"
	else
		fail "$1: differs:"
		diff <(printf '%s\n' "$2") <(printf '%s\n' "$3" | nft_normalise) || true
	fi
}

# dump_case MODE TAG REFERENCE RELAY-REFERENCE|none|- JAILRUN-ARGS...
# RELAY-REFERENCE: the relay netns must hold exactly that file's table;
# none: it must hold no table; -: no relay netns (--net none).
dump_case() {
	local m=$1 tag=$2 ref_file=$3 relay=$4 marker pid cpid jpid live all rlive=''
	shift 4
	local reference
	reference=$(ref_text "$JR_TOP_SRCDIR/nft/$ref_file")
	marker="jr-dump-$m-$tag-$$"
	as_mode "$m" timeout -k 5 "$JR_RUN_LIMIT" "$JR" "$@" -- bash -c "exec -a $marker sleep 30" </dev/null &
	pid=$!
	if ! cpid=$(marker_pid "$marker"); then
		fail "$m $tag: the sandboxed command never started"
		kill "$pid" 2>/dev/null || true
		return
	fi
	live=$(in_netns "$cpid" nft list table inet jailrun 2>&1 || true)
	all=$(in_netns "$cpid" nft list ruleset 2>&1 || true)
	jpid=$(jr_runner_pid "^$JR .*-- bash -c exec -a $marker")
	if [ "$relay" != - ] && [ "$(id -u)" -eq 0 ] && [ -n "$jpid" ]; then
		# The relay netns has no process: enter it through the proxy
		# listener the runner holds there.
		rlive=$(python3 "$RELAYNS" "$jpid" "$GW" 3128 nft list ruleset 2>&1 || echo "relayns failed")
	fi
	[ -n "$jpid" ] && kill -TERM "$jpid"
	wait "$pid" 2>/dev/null || true

	compare "$m $tag: live table equals nft/$ref_file" "$reference" "$live"
	compare "$m $tag: the table is the whole ruleset of the sandbox netns" "$reference" "$all"
	case $relay in
	-) ;;
	*)
		if [ "$(id -u)" -ne 0 ]; then
			ok "$m $tag: relay netns not checked (needs root to enter it)"
		elif [ "$relay" = none ]; then
			if [ -z "$rlive" ]; then
				ok "$m $tag: the relay netns holds no nftables table"
			else
				fail "$m $tag: the relay netns holds: $rlive"
			fi
		else
			compare "$m $tag: relay netns ruleset equals nft/$relay" \
				"$(ref_text "$JR_TOP_SRCDIR/nft/$relay")" "$rlive"
		fi
		;;
	esac
}

for m in $(jr_modes); do
	dump_case "$m" none jailrun-none.nft - --net none
	dump_case "$m" allowlist jailrun-allowlist.nft jailrun-relay.nft --allow example.com
	dump_case "$m" transparent-off jailrun-allowlist-transparent-off.nft none \
		--allow example.com --transparent off
	# --net none with a host lane and a published port (lane.sh,
	# publish.sh): the allowlist topology, plus their rules. The host
	# port is a free one: a fixed one was in use when another suite ran
	# beside this one (the ruleset names only the sandbox's 8000).
	hport=$(python3 -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])')
	dump_case "$m" lane jailrun-lane.nft jailrun-relay.nft \
		--net none --lane 127.0.0.1:4000 --publish "127.0.0.1:$hport:8000"
	# Sanity: the dump really came from another netns than ours.
	if grep -q 'inet jailrun' <<<"$(nft list tables 2>/dev/null)"; then
		fail "$m: a jailrun table exists in the test's own netns"
	else
		ok "$m: no jailrun table in the caller's network namespace"
	fi
done

finish
