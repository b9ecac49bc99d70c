#!/bin/bash
# nscd: name lookups inside jailrun go only to jailrun's forwarder, even
# with nscd running next to it (issue 9: glibc asked the host's nscd, which
# sent "exfil-....denied.test" to the real DNS server).
#
# nscd runs in a private mount namespace with its own tmpfs on /run, inside
# the lab host, so nothing else on the machine uses it; jailrun runs in
# that same mount namespace. Baseline: outside jailrun, a lookup goes
# through nscd (its hosts misses grow) and reaches the lab DNS. Fails if:
# the probe name looked up inside reaches the lab DNS (the nscd socket was
# connectable: the jailrun before unixguard.c fails here), an allowed name
# no longer resolves inside (the fallback to the forwarder broken), or the
# baseline does not go through nscd (the test would prove nothing).
. "${JR_TOP_SRCDIR:-$(dirname "$0")/../..}/tests/lib.sh"
. "$JR_TOP_SRCDIR/tests/lab/lib.sh"
jr_require_sandbox
# contrib/dev.sh deps unpacks nscd there without installing it (a
# host-wide nscd would carry every lookup on the machine).
NSCD=${JR_NSCD:-$(command -v nscd || echo /var/cache/jailrun-test/nscd/usr/sbin/nscd)}
[ -n "$NSCD" ] && [ -x "$NSCD" ] ||
	skip "nscd is needed (contrib/dev.sh deps unpacks it, or JR_NSCD=/path/to/nscd)"
command -v unshare >/dev/null || skip "unshare (util-linux) is needed"
lab_setup --timeout 600 nscd   # a hang guard, not a time limit
lab_on_exit jr_cleanup_tmp

cat >"$JR_TMP/nscd.conf" <<'EOF'
enable-cache hosts yes
positive-time-to-live hosts 60
negative-time-to-live hosts 60
persistent hosts no
shared hosts no
enable-cache passwd no
enable-cache group no
enable-cache services no
enable-cache netgroup no
EOF

# The part that runs in the private mount namespace: nscd on a private
# /run, the baseline lookup, then jailrun. Prints "key value" lines.
cat >"$JR_TMP/nscd-inner.sh" <<'EOF'
set -u
mode=$1 base=$2 probe=$3 nscd=$4 conf=$5 jr=$6 tmp=$7 nobody=$8 home=$9
mount -t tmpfs -o mode=755 jailrun-nscd-test /run || exit 90
mkdir -p /run/nscd
# Dies with this shell, whatever happens to the test.
setpriv --pdeathsig KILL "$nscd" -F -f "$conf" &
nscd_pid=$!
trap 'kill "$nscd_pid" 2>/dev/null' EXIT
i=0
until [ -S /run/nscd/socket ]; do
	i=$((i + 1)); [ $i -le 1500 ] || { echo "nscd-never-ready"; exit 91; }
	sleep 0.02
done
misses() {
	"$nscd" -g -f "$conf" 2>/dev/null | awk '/^hosts cache:/ { h = 1 }
		h && /cache misses on negative entries/ { print $1; exit }'
}
echo "misses-before $(misses)"
getent hosts "$base" >/dev/null
echo "baseline-status $?"
echo "misses-after $(misses)"
if [ "$mode" = root ]; then
	run=(env -C "$tmp")
else
	run=(setpriv --reuid="$nobody" --regid="$nobody" --clear-groups env -C "$tmp" HOME="$home")
fi
out=$("${run[@]}" timeout -k 5 60 "$jr" --allow allowed.test -- sh -c "getent hosts '$probe'; echo probe=\$?; getent hosts allowed.test >/dev/null; echo allowed=\$?" 2>&1)
echo "jailrun-status $?"
printf '%s\n' "$out" | sed 's/^/jailrun-out /'
EOF

for m in $(jr_modes); do
	base="exfil-$$-$m-base.denied.test"
	probe="exfil-$$-$m-inside.denied.test"
	OUT=$(lab_host unshare -m --propagation private bash "$JR_TMP/nscd-inner.sh" \
		"$m" "$base" "$probe" "$NSCD" "$JR_TMP/nscd.conf" "$JR" "$JR_TMP" "$JR_NOBODY_UID" "$JR_HOME" 2>&1) || true
	val() { awk -v k="$1" '$1 == k { print $2; exit }' <<<"$OUT"; }
	before=$(val misses-before)
	after=$(val misses-after)
	if [ -n "$before" ] && [ -n "$after" ] && [ "$after" -gt "$before" ]; then
		ok "baseline ($m): the lookup outside jailrun went through nscd (misses $before -> $after)"
	else
		fail "baseline ($m): nscd did not serve the lookup: $OUT"
	fi
	if lab_dns_queried "$base"; then ok "baseline ($m): nscd forwarded $base to the lab DNS"; else
		fail "baseline ($m): the lab DNS never saw $base: $OUT"; fi
	if [ "$(val jailrun-status)" = 0 ]; then ok "$m: jailrun ran"; else fail "$m: jailrun: $OUT"; fi
	if grep -q "jailrun-out allowed=0" <<<"$OUT"; then ok "$m: an allowed name resolves inside (through the forwarder)"; else
		fail "$m: allowed.test did not resolve inside: $OUT"; fi
	if grep -q "jailrun-out probe=0" <<<"$OUT"; then fail "$m: the probe name resolved inside: $OUT"; else
		ok "$m: the probe name did not resolve inside"; fi
	if lab_dns_queried "$probe"; then
		fail "$m: the lab DNS saw $probe: the lookup left through nscd"
	else
		ok "$m: the lab DNS never saw $probe"
	fi
done

finish
