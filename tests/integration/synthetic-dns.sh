#!/bin/bash
# Synthetic DNS answers for transparent egress (--transparent on), in a
# lab, as root and rootless: an allowed name's A query is answered with an
# address of 198.18.0.0/15, the same one on every query, over UDP, TCP and
# libc, different for another name, without the real name being looked up;
# AAAA gets the name's address of fd6a:7272:6970::/64 (the same number)
# when the sandbox link has IPv6, else an empty answer; a denied name
# gets NXDOMAIN, for A and AAAA alike, and is never forwarded; the audit
# line names the address.
# Fails if: the forwarder ignores --transparent (a real address comes
# back, or the lab DNS server sees allowed.test), a name's address changes
# between queries or transports, two names share one, a synthetic AAAA is
# answered without IPv6 (or none, or another number's, with it), a denied
# name resolves (A or AAAA) or leaves, the audit line
# lacks the address, the summary miscounts the names, or --transparent off
# answers synthetic addresses.
# Nothing here depends on the lab host's own address: the queries go to
# the nameserver of the sandbox's resolv.conf.
. "${JR_TOP_SRCDIR:-$(dirname "$0")/../..}/tests/lib.sh"
. "$JR_TOP_SRCDIR/tests/lab/lib.sh"
jr_require_sandbox
lab_setup --timeout 900 synthetic-dns # a hang guard, not a time limit
lab_on_exit jr_cleanup_tmp

install -m 644 "$JR_TOP_SRCDIR/tests/lab/servers.py" "$JR_TMP/servers.py"
ALLOWED4=$(lab_addr allowed.test 4)
# Does the sandbox get IPv6? jailrun asks the same file, in the netns it
# runs in (link.h, jr_link_ipv6_available()).
if [ "$(lab_host cat /proc/sys/net/ipv6/conf/default/disable_ipv6 2>/dev/null)" = 0 ]; then
	export JR_SANDBOX_IPV6=1
else
	export JR_SANDBOX_IPV6=0
fi

# Inside the sandbox: every query, its answer as JSON on one line. The
# timeouts only guard against a hang; the relay answers these at once.
QUERIES='
import importlib.util, json, socket, sys
spec = importlib.util.spec_from_file_location("servers", sys.argv[1])
s = importlib.util.module_from_spec(spec); spec.loader.exec_module(s)
ns = [l.split()[1] for l in open("/etc/resolv.conf") if l.startswith("nameserver")][0]
q = lambda name, t="A", tcp=False: s.dns_query(name, t, ns, tcp, timeout=30)
r = {"udp1": q("allowed.test"), "udp2": q("allowed.test"),
     "tcp": q("allowed.test", tcp=True), "raw": q("raw.test"),
     "aaaa": q("allowed.test", "AAAA"), "aaaa_tcp": q("allowed.test", "AAAA", True),
     "denied": q("denied.test"), "denied_tcp": q("denied.test", tcp=True),
     "denied_aaaa": q("denied.test", "AAAA"),
     "libc": socket.gethostbyname("allowed.test")}
print("RESULT " + json.dumps(r))
'

# check_result MODE - turn the RESULT line in $OUT into ok/fail lines.
check_result() {
	local m=$1 verdict desc
	while read -r verdict desc; do
		if [ "$verdict" = OK ]; then ok "$m: $desc"; else fail "$m: $desc"; fi
	done < <(python3 - "$OUT" <<'EOF'
import ipaddress, json, sys
lines = [l for l in sys.argv[1].splitlines() if l.startswith("RESULT ")]
if not lines:
    print("FAIL no RESULT line from inside the sandbox"); sys.exit(0)
r = json.loads(lines[0][len("RESULT "):])
pool = ipaddress.ip_network("198.18.0.0/15")
def check(cond, desc, detail):
    print(("OK " if cond else "FAIL ") + desc + ("" if cond else ": %r" % (detail,)))
rc, addrs = r["udp1"]
a = addrs[0] if rc == 0 and len(addrs) == 1 else None
check(a is not None and ipaddress.ip_address(a) in pool,
      "allowed.test A is one address in 198.18.0.0/15", r["udp1"])
check(r["udp2"] == [0, [a]], "a second query gets the same address", r["udp2"])
check(r["tcp"] == [0, [a]], "DNS over TCP gets the same address", r["tcp"])
check(r["libc"] == a, "libc (resolv.conf) gets the same address", r["libc"])
rc, raw = r["raw"]
check(rc == 0 and len(raw) == 1 and ipaddress.ip_address(raw[0]) in pool and raw[0] != a,
      "raw.test gets another address of the pool", r["raw"])
import os
if os.environ.get("JR_SANDBOX_IPV6") == "1":
    num = int(ipaddress.ip_address(a)) - int(pool.network_address) if a else 0
    six = str(ipaddress.ip_address("fd6a:7272:6970::") + num)
    check(num > 0 and r["aaaa"] == [0, [six]] and r["aaaa_tcp"] == [0, [six]],
          "AAAA is the name's IPv6 synthetic address %s (same number as A), over UDP and TCP" % six,
          (r["aaaa"], r["aaaa_tcp"]))
else:
    check(r["aaaa"] == [0, []] and r["aaaa_tcp"] == [0, []],
          "AAAA is an empty NOERROR answer (no IPv6 in the sandbox)", (r["aaaa"], r["aaaa_tcp"]))
check(r["denied"][0] == 3 and r["denied_tcp"][0] == 3,
      "denied.test is NXDOMAIN over UDP and TCP", (r["denied"], r["denied_tcp"]))
check(r["denied_aaaa"][0] == 3,
      "denied.test AAAA is NXDOMAIN too (not the empty answer of an allowed name)",
      r["denied_aaaa"])
EOF
	)
}

for m in $(jr_modes); do
	lab_logs_clear
	rm -f "$JR_W/audit-$m.log"
	expect_status 0 "$m: queries with --transparent on" jl "$m" --transparent on \
		--allow allowed.test --allow raw.test:9000 --log-fd 3 \
		--json "$JR_W/sum-$m.json" -- \
		python3 -c "$QUERIES" "$JR_TMP/servers.py" 3>"$JR_W/audit-$m.log"
	check_result "$m"
	addr=$(python3 - "$OUT" <<'EOF'
import json, sys
l = [x for x in sys.argv[1].splitlines() if x.startswith("RESULT ")]
print(json.loads(l[0][7:])["udp1"][1][0] if l and json.loads(l[0][7:])["udp1"][1] else "none")
EOF
	)
	if lab_dns_queried allowed.test || lab_dns_queried raw.test; then
		fail "$m: an allowed name was resolved upstream at DNS time"
	else
		ok "$m: allowed names were not resolved upstream"
	fi
	if lab_dns_queried denied.test; then
		fail "$m: denied.test reached the lab DNS server"
	else
		ok "$m: denied.test never left"
	fi
	if grep -F '"via":"dns"' "$JR_W/audit-$m.log" | grep -F '"host":"allowed.test"' |
		grep -qF "\"address\":\"$addr\""; then
		ok "$m: the audit line names the synthetic address"
	else
		fail "$m: no audit line with $addr: $(cat "$JR_W/audit-$m.log")"
	fi

	if python3 -c 'import json, sys; sys.exit(json.load(open(sys.argv[1]))["network"]["synthetic_names"] != 2)' \
		"$JR_W/sum-$m.json"; then
		ok "$m: the JSON summary counts 2 synthetic names"
	else
		fail "$m: synthetic_names in the summary: $(cat "$JR_W/sum-$m.json")"
	fi

	# --transparent off: real answers, as before.
	lab_logs_clear
	expect_status 0 "$m: --transparent off" jl "$m" --transparent off \
		--allow allowed.test -- getent ahostsv4 allowed.test
	expect_output_has "$m: off answers the real address" "$ALLOWED4"
	if grep -q '^198\.1[89]\.' <<<"$OUT"; then
		fail "$m: off answered a synthetic address: $OUT"
	else
		ok "$m: off answers no synthetic address"
	fi
done

finish
