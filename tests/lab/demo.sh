#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-or-later
#
# demo.sh - the README demo: in a closed lab network (no real traffic), show
# that the lab host reaches its web servers, that the same request under
# `jailrun --net none` is refused at once, and what `jailrun --json` records.
#
#   sudo tests/lab/demo.sh            (JAILRUN=/path/to/jailrun to choose the
#                                      binary; default: the in-tree build)
# Exit 0 if everything behaved as described, 1 otherwise, 77 if this machine
# cannot build labs (not root, no `ip netns`).
set -euo pipefail

here=$(cd "$(dirname "$0")" && pwd)
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
bad() { status=1; printf '%s\n' "$*"; }

t=$(date +%s%N)
lab_setup --timeout 120 demo
printf '%sjailrun demo%s in lab "%s" (built in %s ms): a lab host, where jailrun runs,\n' \
	"$B" "$N" "$LAB_NAME" "$(ms_since "$t")"
printf 'wired to a lab internet with web servers for allowed.test and denied.test.\n'
printf '%sNothing here touches the real network.%s\n\n' "$D" "$N"

# ------------------------------------------------------------ 1. no sandbox
printf '%s1. Without a sandbox, the lab host reaches both servers:%s\n' "$B" "$N"
for n in allowed.test denied.test; do
	if out=$(lab_host curl -sS --max-time 5 "http://$n/" 2>&1); then
		printf '   $ curl http://%s/\n     %s%s%s\n' "$n" "$G" "$(head -1 <<<"$out")" "$N"
	else
		bad "   \$ curl http://$n/"$'\n'"     ${R}failed: $(head -1 <<<"$out")${N}"
	fi
done
echo

# ------------------------------------------------------------ 2. --net none
printf '%s2. Under jailrun --net none, the same requests fail at once:%s\n' "$B" "$N"
if [[ ! -x $JAILRUN ]]; then
	bad "   ${R}no jailrun binary at $JAILRUN${N} (build it with 'make', or set JAILRUN=/path/to/jailrun)"
	exit 1
fi
jsondir=$(mktemp -d /tmp/jailrun-demo.XXXXXX)
lab_on_exit "rm -rf '$jsondir'"
json=$jsondir/summary.json

# jailrun [--json FILE] -- curl URL, in the lab host; print one line.
sandboxed() {
	local url=$1 t0 ms rc=0 out cmd
	shift
	cmd="jailrun --net none${*:+ $*} -- curl $url"
	t0=$(date +%s%N)
	# stdin is /dev/null: curl needs none, and a terminal on stdin would make
	# jailrun (run under timeout, so not in the foreground) stop on SIGTTOU.
	out=$(cd "$jsondir" && lab_host timeout -k 5 30 "$JAILRUN" --net none "$@" -- \
		curl -sS --max-time 10 "$url" </dev/null 2>&1) || rc=$?
	ms=$(ms_since "$t0")
	out=$(grep -m1 . <<<"$out" || true)
	if ((rc == 0)); then
		bad "   \$ $cmd"$'\n'"     ${R}NOT refused: the sandbox reached the network: $out${N}"
	elif ((rc == 125)); then
		bad "   \$ $cmd"$'\n'"     ${R}jailrun could not set up the sandbox (exit 125): $out${N}"
	elif ((ms > 2000)); then
		bad "   \$ $cmd"$'\n'"     ${Y}refused, but only after $ms ms (exit $rc): $out${N}"
	else
		printf '   $ %s\n     %srefused: exit %s after %s ms%s  %s\n' "$cmd" "$G" "$rc" "$ms" "$N" "$out"
	fi
}
sandboxed http://allowed.test/ --json summary.json
sandboxed "http://$(lab_addr allowed.test)/"
printf '   %sThe sandbox gets its own network namespace: loopback only, and firewall rules\n' "$D"
printf '   that reject everything else. The name cannot be looked up, the address cannot\n'
printf '   be reached, and curl learns it at once instead of hanging.%s\n\n' "$N"

# ------------------------------------------------------------ 3. --json
printf '%s3. What jailrun wrote for the first run (--json summary.json):%s\n' "$B" "$N"
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
elif [[ -e $json ]]; then
	bad "   ${R}not valid JSON:${N} $(head -c 400 "$json")"
else
	bad "   ${R}jailrun wrote no summary${N}"
fi
echo
if ((status == 0)); then
	printf '%sAll as expected.%s The lab is torn down now.\n' "$G" "$N"
else
	printf '%sSomething did not behave as described (above).%s The lab is torn down now.\n' "$R" "$N"
fi
exit "$status"
