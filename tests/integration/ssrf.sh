#!/bin/bash
# The SSRF guard end to end, in a lab, as root and rootless: an allowed name
# that resolves to the host jailrun runs on (where a service listens on
# 0.0.0.0:8081), to a cloud metadata address outside 169.254/16, or into a
# private range is refused with the reason, and the service never sees the
# request; naming the address explicitly opens it. Every refused service is
# first shown to answer from the lab host without jailrun (positive control),
# so a refusal cannot pass because nothing was listening.
# Fails if: the host's own address (IPv4, IPv6, IPv4-mapped) is reached
# through an allowed name, a LAN CIDR or 0.0.0.0/0; a metadata address
# (100.100.100.200, 168.63.129.16, fd00:ec2::254) or a private one is
# reached through a name or a broad CIDR; an explicit entry does not open
# what it names; the audit log does not carry the reason; a failed route
# lookup lets the connect go ahead instead of refusing (fail closed).
. "${JR_TOP_SRCDIR:-$(dirname "$0")/../..}/tests/lib.sh"
. "$JR_TOP_SRCDIR/tests/lab/lib.sh"
jr_require_sandbox
lab_setup --timeout 600 ssrf
lab_on_exit jr_cleanup_tmp

SELF4=$(lab_addr lab-host.test 4)
ANY=lab-host-any
C=(curl -sS -m 10 -i)

# served_outside NAME URL - the positive control: without jailrun, from the
# lab host, URL answers and NAME served it.
served_outside() {
	expect_status 0 "control: $2 answers from the lab host without jailrun" \
		lab_host curl -sS -m 10 "$2"
	expect_output_has "control: $2 is served by $1" "served-by: $1"
}

served_outside "$ANY" "http://$SELF4:8081/control"
served_outside "$ANY" "http://lab-host.test:8081/control"
served_outside alibaba-metadata.test http://alibaba-metadata.test/control
served_outside azure-metadata.test http://azure-metadata.test/control
served_outside private.test http://private.test/control
if [ "$LAB_IPV6" = 1 ]; then
	served_outside "$ANY" "http://[$(lab_addr lab-host.test 6)]:8081/control"
	served_outside aws-metadata6.test http://aws-metadata6.test/control
fi

# A blackhole route to other.test in the lab host (gone with the lab).
lab_host ip route add blackhole "$(lab_addr other.test 4)/32"
if [ "$LAB_IPV6" = 1 ]; then lab_host ip -6 route add blackhole "$(lab_addr other.test 6)/128"; fi

for m in $(jr_modes); do
	# --- the host's own address, reached through an allowed name
	lab_logs_clear
	expect_status 0 "$m: a name resolving to the lab host" jl "$m" --allow lab-host.test:8081 \
		--log "$JR_W/audit-$m.log" -- sh -c '
		curl -sS -m 10 -i http://lab-host.test:8081/get
		curl -sS -m 10 -i -p http://lab-host.test:8081/connect || true'
	expect_output_has "$m: refused as the host's own" "X-Jailrun-Deny: local-address"
	expect_output_has "$m: the body says why" "is an address of the host jailrun runs on"
	if [ "$(grep -c 'X-Jailrun-Deny: local-address' <<<"$OUT")" = 2 ]; then
		ok "$m: GET and CONNECT both refused"
	else
		fail "$m: GET and CONNECT not both refused: $OUT"
	fi
	if grep -q '"reason":"local-address"' "$JR_W/audit-$m.log"; then
		ok "$m: the audit log says local-address"
	else
		fail "$m: audit log: $(cat "$JR_W/audit-$m.log")"
	fi
	never_served "$m" "$ANY"

	# --- literals: a LAN CIDR, 0.0.0.0/0 and mapped forms do not name it
	expect_status 0 "$m: literals of the lab host under broad entries" jl "$m" \
		--allow 198.51.100.0/24 --allow 0.0.0.0/0 --allow ::/0 -- sh -c "
		for u in http://$SELF4:8081/lit 'http://[::ffff:$SELF4]:8081/mapped'; do
			curl -sS -m 10 -i \"\$u\" | grep -E '^X-Jailrun-Deny'; done; true"
	if [ "$(grep -c 'X-Jailrun-Deny: local-address' <<<"$OUT")" = 2 ]; then
		ok "$m: $SELF4 and ::ffff:$SELF4 refused as local-address"
	else
		fail "$m: broad entries opened the lab host: $OUT"
	fi
	never_served "$m" "$ANY"

	# --- named exactly, it opens (IPv4 only: the IPv6 address stays shut)
	expect_status 0 "$m: the lab host named explicitly" jl "$m" --allow lab-host.test:8081 \
		--allow "$SELF4:8081" -- "${C[@]}" http://lab-host.test:8081/explicit
	expect_output_has "$m: explicit entry reaches the host service" "served-by: $ANY"
	expect_output_has "$m: over the named address" "client: $SELF4"

	# --- cloud metadata outside 169.254/16, by name and by literal
	lab_logs_clear
	names="alibaba-metadata.test azure-metadata.test"
	lits="http://100.100.100.200/ http://168.63.129.16/ http://[::ffff:168.63.129.16]/ http://[64:ff9b::100.100.100.200]/"
	if [ "$LAB_IPV6" = 1 ]; then
		names="$names aws-metadata6.test"
		lits="$lits http://[fd00:ec2::254]/"
	fi
	allow=()
	for n in $names; do allow+=(--allow "$n"); done
	expect_status 0 "$m: metadata names allowed by name" jl "$m" "${allow[@]}" -- sh -c "
		for n in $names; do curl -sS -m 10 -i http://\$n/ | grep -E '^X-Jailrun-Deny|^served-by'; done; true"
	want=$(wc -w <<<"$names")
	if [ "$(grep -c 'X-Jailrun-Deny: special-address' <<<"$OUT")" = "$want" ] && ! grep -q served-by <<<"$OUT"; then
		ok "$m: every metadata name refused as special-address ($want)"
	else
		fail "$m: metadata names: $OUT"
	fi
	expect_status 0 "$m: metadata literals under 0.0.0.0/0 ::/0" jl "$m" --allow 0.0.0.0/0 --allow ::/0 -- sh -c "
		for u in $lits; do curl -sS -m 10 -i \"\$u\" | grep -E '^X-Jailrun-Deny|^served-by'; done; true"
	want=$(wc -w <<<"$lits")
	if [ "$(grep -c 'X-Jailrun-Deny: special-address' <<<"$OUT")" = "$want" ] && ! grep -q served-by <<<"$OUT"; then
		ok "$m: every metadata literal refused as special-address ($want)"
	else
		fail "$m: metadata literals: $OUT"
	fi
	for n in $names; do never_served "$m" "$n"; done
	expect_status 0 "$m: Azure's address named explicitly" jl "$m" --allow 168.63.129.16:80 -- \
		"${C[@]}" http://168.63.129.16/explicit
	expect_output_has "$m: the explicit entry reaches it" "served-by: azure-metadata.test"

	# --- private ranges: refused through a name, open when named
	lab_logs_clear
	expect_status 0 "$m: a name resolving into 10/8" jl "$m" --allow private.test -- \
		"${C[@]}" http://private.test/
	expect_output_has "$m: private refused" "X-Jailrun-Deny: special-address"
	never_served "$m" private.test
	expect_status 0 "$m: the private address named too" jl "$m" --allow private.test \
		--allow "$(lab_addr private.test 4)" -- "${C[@]}" http://private.test/named
	expect_output_has "$m: private served when named" "served-by: private.test"

	# --- fail closed: a route lookup the kernel answers with an error
	# (a blackhole route: EINVAL) refuses the address (403 guard-failed);
	# treating the error as "not local" would try the connect (502)
	expect_status 0 "$m: an address whose route lookup fails" jl "$m" --allow other.test -- \
		"${C[@]}" http://other.test/blackholed
	expect_output_has "$m: refused as guard-failed" "X-Jailrun-Deny: guard-failed"
	never_served "$m" other.test
done

finish
