#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-or-later
#
# demo.sh - the README demo: in a closed lab network (no real traffic), show
# that the lab host reaches its web servers, that under `jailrun --allow
# allowed.test` only allowed.test is reached and everything else is refused
# at once with the reason, and what `jailrun --json` records.
#
#   sudo tests/lab/demo.sh            (JAILRUN=/path/to/jailrun to choose the
#                                      binary; default: the in-tree build)
# Exit 0 if everything behaved as described, 1 otherwise, 77 if this machine
# cannot build labs (not root, no `ip netns`). Under make check (which sets
# JR_TEST_RUN) it is a TAP test (tests/tap.sh): each thing the demo shows is
# also an "ok N" / "not ok N" line, a skip is "1..0 # SKIP" with exit 0.
set -euo pipefail

here=$(cd "$(dirname "$0")" && pwd)
tap=0
if [[ -n ${JR_TEST_RUN:-} ]]; then
	tap=1
	# shellcheck source=../tap.sh
	. "$here/../tap.sh"
fi
# shellcheck source=lib.sh
. "$here/lib.sh"

JAILRUN=${JAILRUN:-$here/../../jailrun}
export LAB_QUIET=1                     # the demo tells its own story

if [[ -t 1 ]]; then
	B=$'\e[1m' G=$'\e[32m' R=$'\e[31m' Y=$'\e[33m' D=$'\e[2m' N=$'\e[0m'
else
	B='' G='' R='' Y='' D='' N=''
fi
ms_since() { echo $(( ($(date +%s%N) - $1) / 1000000 )); }
status=0
# good DESC - a check passed (a TAP line under make check, else nothing);
# bad TEXT - one failed: TEXT is shown (under make check as a "not ok"
# line, TEXT's later lines as diagnostics).
good() { ((!tap)) || tap_ok "$*"; }
bad() {
	status=1
	if ((tap)); then tap_not_ok "${1#"${1%%[! ]*}"}"; else printf '%s\n' "$1"; fi
}

t=$(date +%s%N)
lab_setup --timeout 300 demo   # a hang guard, not a time limit: generous
printf '%sjailrun demo%s in lab "%s" (built in %s ms): a lab host, where jailrun runs,\n' \
	"$B" "$N" "$LAB_NAME" "$(ms_since "$t")"
printf 'wired to a lab internet with web servers for allowed.test and denied.test.\n'
printf '%sNothing here touches the real network.%s\n\n' "$D" "$N"

# ------------------------------------------------------------ 1. no sandbox
printf '%s1. Without a sandbox, the lab host reaches both servers:%s\n' "$B" "$N"
for n in allowed.test denied.test; do
	if out=$(lab_host curl -sS --max-time 5 "http://$n/" 2>&1); then
		printf '   $ curl http://%s/\n     %s%s%s\n' "$n" "$G" "$(head -1 <<<"$out")" "$N"
		good "without a sandbox, the lab host reaches $n"
	else
		bad "   \$ curl http://$n/"$'\n'"     ${R}failed: $(head -1 <<<"$out")${N}"
	fi
done
echo

# ------------------------------------------------------------ 2. jailrun
printf '%s2. Under jailrun --allow allowed.test, one sandbox tries the same and more:%s\n' "$B" "$N"
if [[ ! -x $JAILRUN ]]; then
	bad "   ${R}no jailrun binary at $JAILRUN${N} (build it with 'make', or set JAILRUN=/path/to/jailrun)"
	exit 1
fi
jsondir=$(mktemp -d /tmp/jailrun-demo.XXXXXX)
chmod 755 "$jsondir"
lab_on_exit "rm -rf '$jsondir'"
json=$jsondir/summary.json
install -m 644 "$LAB_CA" "$jsondir/ca.pem"
lab_logs_clear

# The command inside: plain curl and getent. jailrun gives it the proxy
# variables and a resolv.conf pointing at its relay; the last two tries
# ignore the proxy on purpose, like a tool that does not read HTTP_PROXY:
# the allowed name is still reached (transparent capture, a synthetic
# address), the denied address is not.
inner='
try() {
	label=$1; shift
	t0=$(date +%s%N)
	if out=$("$@" 2>&1); then rc=0; else rc=$?; fi
	ms=$(( ($(date +%s%N) - t0) / 1000000 ))
	printf "%s|%s|%s|%s\n" "$label" "$rc" "$ms" "$(printf "%s" "$out" | grep -m1 -E "served-by|jailrun:|curl:|^[0-9]" || printf "%s" "$out" | sed -n 1p)"
}
try "curl http://allowed.test/" curl -sS -m 10 http://allowed.test/
try "curl https://allowed.test/" curl -sS -m 10 --cacert ca.pem https://allowed.test/
try "curl http://denied.test/" curl -sS -m 10 http://denied.test/
try "curl https://denied.test/" curl -sS -m 10 --cacert ca.pem https://denied.test/
try "getent hosts denied.test" getent hosts denied.test
try "curl --noproxy \"*\" http://allowed.test/" curl -sS -m 10 --noproxy "*" http://allowed.test/
try "curl --noproxy \"*\" http://DENIED4/" curl -sS -m 10 --noproxy "*" http://DENIED4/
'
inner=${inner//DENIED4/$(lab_addr denied.test 4)}
printf '%s' "$inner" >"$jsondir/tries.sh"
t0=$(date +%s%N)
# stdin is /dev/null: a terminal on stdin would make jailrun (run under
# timeout, so not in the foreground) keep its hands off it anyway.
results=$(lab_host timeout -k 5 60 env -C "$jsondir" "$JAILRUN" --allow allowed.test \
	--json summary.json --log audit.log -- bash tries.sh </dev/null 2>&1) || true
total=$(ms_since "$t0")
# refusal LABEL RC OUT - the kind of refusal the try met, or nothing if it
# was not one of the fast, explicit refusals jailrun promises. A timeout
# (curl exit 28, after -m 10) is not one. The time is shown, not judged.
refusal() {
	case $2 in
	0) [[ $3 == jailrun:* ]] && echo "403 from the relay" ;;
	56) [[ $3 == *403* ]] && echo "CONNECT answered 403" ;;
	7) echo "connection refused" ;;       # reset or unreachable, at connect()
	2) [[ $1 == getent* ]] && echo "no such host" ;;
	esac
	return 0
}
while IFS='|' read -r label rc ms out; do
	[[ -n $label ]] || continue
	case $label in
	*//allowed.test/*) want=ok ;;
	*) want=refused ;;
	esac
	kind=$(refusal "$label" "$rc" "$out")
	if [[ $want == ok && $rc == 0 && $out == "served-by: allowed.test" ]]; then
		printf '   $ %-42s %sreached%s  %s\n' "$label" "$G" "$N" "$out"
		good "under jailrun --allow allowed.test: $label is reached"
	elif [[ $want == refused && -n $kind ]]; then
		printf '   $ %-42s %srefused%s  (%s) in %s ms: %s\n' "$label" "$G" "$N" "$kind" "$ms" "${out:-no such host}"
		good "under jailrun --allow allowed.test: $label is refused ($kind)"
	else
		bad "   \$ $label"$'\n'"     ${R}unexpected (exit $rc after $ms ms): $out${N}"
	fi
done <<<"$results"
ntries=$(grep -c '|' <<<"$results" || true)
if ((ntries == 0)); then
	bad "   ${R}jailrun did not run the command:${N} $results"
elif ((ntries != $(grep -c '^try ' <<<"$inner"))); then
	bad "   ${R}only $ntries tries reported:${N} $results"
else
	good "every one of the $ntries tries reported"
fi
if lab_web_served denied.test || lab_dns_queried denied.test; then
	bad "   ${R}denied.test was reached or looked up in the lab internet${N}"
else
	printf '   %sThe lab'"'"'s own logs confirm: denied.test was never contacted, never even\n' "$D"
	printf '   looked up. The whole sandbox ran in %s ms.%s\n' "$total" "$N"
	good "the lab's logs: denied.test was never contacted or looked up"
fi
printf '   %sThe command reaches the world only through jailrun'"'"'s relay, which forwards\n' "$D"
printf '   to allowlisted hosts; nftables rules installed and verified before the\n'
printf '   command started reject everything else at once.%s\n\n' "$N"

# ------------------------------------------------------------ 3. --json
printf '%s3. What jailrun wrote (--json summary.json):%s\n' "$B" "$N"
if [[ -s $json ]] && python3 -m json.tool "$json" >/dev/null 2>&1; then
	# one line per top-level key
	python3 -c 'import json, sys
d = json.load(open(sys.argv[1]))
if not isinstance(d, dict):
    print("   " + json.dumps(d)); sys.exit(0)
items = list(d.items())
print("   {")
for i, (k, v) in enumerate(items):
    print("     %s: %s%s" % (json.dumps(k), json.dumps(v), "," if i < len(items) - 1 else ""))
print("   }")' "$json"
	good "jailrun wrote a valid --json summary"
elif [[ -e $json ]]; then
	bad "   ${R}not valid JSON:${N} $(head -c 400 "$json")"
else
	bad "   ${R}jailrun wrote no summary${N}"
fi
echo
printf '%s4. And the audit log (--log audit.log), one JSON line per connection, e.g.:%s\n' "$B" "$N"
if [[ -s $jsondir/audit.log ]]; then
	grep '"verdict":"deny"' "$jsondir/audit.log" | sed -n 1p | sed 's/^/   /'
	grep '"verdict":"allow"' "$jsondir/audit.log" | grep '"via":"proxy"' | sed -n 1p | sed 's/^/   /'
	good "jailrun wrote an audit log"
else
	bad "   ${R}no audit log written${N}"
fi
echo
if ((status == 0)); then
	printf '%sAll as expected.%s The lab is torn down now.\n' "$G" "$N"
else
	printf '%sSomething did not behave as described (above).%s The lab is torn down now.\n' "$R" "$N"
fi
((!tap)) || tap_plan
exit "$status"
