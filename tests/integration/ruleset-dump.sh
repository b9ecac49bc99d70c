#!/bin/bash
# The live ruleset of a running sandbox, dumped by nft(8) from inside its
# network namespace, equals the reviewed reference text in nft/.
# Fails if: the installed table differs in any chain, hook, policy, rule or
# flag from nft/jailrun-none.nft.
. "${JR_TOP_SRCDIR:-$(dirname "$0")/../..}/tests/lib.sh"
jr_require_sandbox
command -v nft >/dev/null || skip "nft(8) is needed to dump the ruleset (apt-get install nftables)"
command -v nsenter >/dev/null || skip "nsenter(1) is needed"

reference=$(nft_normalise <"$JR_TOP_SRCDIR/nft/jailrun-none.nft")

for m in $(jr_modes); do
	marker="jr-dump-$m-$$"
	as_mode "$m" timeout -k 5 "$JR_RUN_LIMIT" "$JR" --net none -- bash -c "exec -a $marker sleep 30" &
	pid=$!
	if ! cpid=$(marker_pid "$marker"); then
		fail "$m: the sandboxed command never started"
		kill "$pid" 2>/dev/null || true
		continue
	fi
	if [ "$(id -u)" -eq 0 ]; then
		live=$(nsenter --net="/proc/$cpid/ns/net" nft list table inet jailrun 2>&1 || true)
		all=$(nsenter --net="/proc/$cpid/ns/net" nft list ruleset 2>&1 || true)
	else
		live=$(nsenter --preserve-credentials -U -n -t "$cpid" nft list table inet jailrun 2>&1 || true)
		all=$(nsenter --preserve-credentials -U -n -t "$cpid" nft list ruleset 2>&1 || true)
	fi
	jpid=$(pgrep -o -f "^$JR --net none -- bash -c exec -a $marker" || true)
	[ -n "$jpid" ] && kill -TERM "$jpid"
	wait "$pid" 2>/dev/null || true

	if [ "$(printf '%s\n' "$live" | nft_normalise)" = "$reference" ]; then
		ok "$m: live table equals nft/jailrun-none.nft"
	else
		fail "$m: live table differs from nft/jailrun-none.nft:"
		diff <(printf '%s\n' "$reference") <(printf '%s\n' "$live" | nft_normalise) || true
	fi
	if [ "$(printf '%s\n' "$all" | nft_normalise)" = "$reference" ]; then
		ok "$m: the table is the whole ruleset of the sandbox netns"
	else
		fail "$m: the sandbox netns holds more than our table: $all"
	fi
	# Sanity: the dump really came from another netns than ours.
	if grep -q 'inet jailrun' <<<"$(nft list tables 2>/dev/null)"; then
		fail "$m: a jailrun table exists in the test's own netns"
	else
		ok "$m: no jailrun table in the caller's network namespace"
	fi
done

finish
