#!/bin/bash
# Transparent egress end to end, in a lab, as root and rootless: programs
# that ignore the proxy (curl --noproxy, Node's fetch, a Python socket, a
# raw TCP protocol) reach allowed names through synthetic addresses that
# the relay captures, maps back to the name and checks; everything else is
# refused at once and never reaches the lab (its logs are the witness).
# Fails if: a proxy-ignoring client cannot reach an allowed name (HTTP,
# HTTPS, Node, a socket, echo on raw.test:9000); an allowed name does not
# resolve to a synthetic address; a denied name, a port the entry does not
# allow, a name's real address, a TLS SNI or HTTP Host for another name, or
# a synthetic address never handed out gets through, is not refused the
# way it should be (reset, ECONNREFUSED, 403), or reaches a lab server or
# the lab DNS; UDP 443 is not refused with port-unreachable; the audit log
# lacks "via":"transparent" and the reason; the SSRF guard is skipped for
# captured connections; --transparent off still captures; a captured
# plain HTTP request goes out unchecked because it was not the first on
# its connection (keep-alive) or came after the relay stopped waiting for
# the client's first bytes (late, or after a server's banner), or a
# protocol that is not HTTP stops working when the client speaks late.
. "${JR_TOP_SRCDIR:-$(dirname "$0")/../..}/tests/lib.sh"
. "$JR_TOP_SRCDIR/tests/lab/lib.sh"
jr_require_sandbox
lab_setup --timeout 900 transparent   # a hang guard, not a time limit
lab_on_exit jr_cleanup_tmp

install -m 644 "$LAB_CA" "$JR_W/ca.pem"
install -m 755 "$JR_TOP_SRCDIR/tests/integration/transparent-probe.py" "$JR_TMP/probe.py"
CA="$JR_W/ca.pem"
P=(python3 "$JR_TMP/probe.py")
ALLOWED4=$(lab_addr allowed.test 4)
C=(curl --noproxy '*' -sS -m 10)
ALLOW=(--allow allowed.test --allow raw.test:9000)
NODE=$(command -v node || true)
# With IPv6 in the sandbox (transparent6.sh), a name has an AAAA answer too
# and dual-stack clients (curl, Python's create_connection) try it first
# (glibc's RFC 3484 table puts a ULA before IPv4): the original address is
# then in the IPv6 pool. jailrun asks the same file, in its netns.
SYN='"original_address":"198.1'
if [ "$(lab_host cat /proc/sys/net/ipv6/conf/default/disable_ipv6 2>/dev/null)" = 0 ]; then
	SYN='"original_address":"fd6a:7272:6970::'
fi

# The late server (transparent-probe.py late-server), on the lab host's
# own address: port 8097 waits for the client, 8098 speaks first. Each
# connection it accepts is a line in $LATE_LOG: the probe's readiness
# signal that the relay stopped waiting for the client's first bytes and
# connected. An address entry names it, so the SSRF guard lets it through.
SELF4=$(lab_addr lab-host.test 4)
LATE_LOG="$JR_W/late-accepts"
: >"$LATE_LOG"
chmod 644 "$LATE_LOG"
lab_host python3 "$JR_TMP/probe.py" late-server "$SELF4" 8097 8098 "$LATE_LOG" "$JR_W/late-ready" &
LATE_PID=$!
lab_on_exit "kill $LATE_PID"
wait_until 60 test -e "$JR_W/late-ready" || fail "the late server did not start"
LATE=(--allow "$SELF4:8097" --allow "$SELF4:8098")

for m in $(jr_modes); do
	log="$JR_W/audit-$m.log"
	: >"$log"
	chmod 666 "$log"
	lab_logs_clear

	# ---------------------------------------------------- allowed
	expect_status 0 "$m: allowed.test resolves to a synthetic address" \
		jl "$m" "${ALLOW[@]}" -- "${P[@]}" resolve allowed.test
	expect_status 0 "$m: curl --noproxy http://allowed.test/" jl "$m" "${ALLOW[@]}" --log "$log" -- \
		"${C[@]}" http://allowed.test/t-http
	expect_output_has "$m: HTTP served by allowed.test" "served-by: allowed.test"
	expect_output_has "$m: HTTP path arrived" "path: /t-http"
	expect_status 0 "$m: curl --noproxy https://allowed.test/" jl "$m" "${ALLOW[@]}" --log "$log" -- \
		"${C[@]}" --cacert "$CA" https://allowed.test/t-https
	expect_output_has "$m: HTTPS served by allowed.test" "served-by: allowed.test"
	expect_output_has "$m: HTTPS scheme" "scheme: https"
	if [ -n "$NODE" ]; then
		expect_status 0 "$m: Node fetch, http and https" jl "$m" "${ALLOW[@]}" -- \
			env NODE_EXTRA_CA_CERTS="$CA" "$NODE" -e '
(async () => {
  for (const u of ["http://allowed.test/t-node", "https://allowed.test/t-node-tls"]) {
    const r = await fetch(u);
    console.log(r.status, (await r.text()).split("\n").filter(l => /^(served-by|scheme|path):/.test(l)).join(" "));
  }
})().catch(e => { console.error("fetch failed:", e.cause || e); process.exit(1); });'
		expect_output_has "$m: Node fetch over http" "200 served-by: allowed.test scheme: http path: /t-node"
		expect_output_has "$m: Node fetch over https" "200 served-by: allowed.test scheme: https path: /t-node-tls"
	else
		fail "$m: node is not installed (contrib/dev.sh installs nodejs)"
	fi
	expect_status 0 "$m: a Python socket to allowed.test:80" jl "$m" "${ALLOW[@]}" -- \
		"${P[@]}" raw-http
	expect_status 0 "$m: bytes echoed through raw.test:9000" jl "$m" "${ALLOW[@]}" --log "$log" -- \
		"${P[@]}" echo 9000
	expect_output_has "$m: every byte came back" "echoed 100017 of 100017 bytes"
	if lab_web_served raw.test /9000; then ok "$m: raw.test's echo on 9000 served it"
	else fail "$m: raw.test:9000 never saw the connection"; fi
	audit_has "$m: audit: captured HTTPS allowed, via transparent" "$log" \
		'"via":"transparent"' '"host":"allowed.test"' '"port":443' \
		"$SYN" '"verdict":"allow"'
	audit_has "$m: audit: the echo allowed, via transparent" "$log" \
		'"via":"transparent"' '"host":"raw.test"' '"port":9000' '"verdict":"allow"'
	# IPv4 on purpose, whatever the sandbox prefers.
	expect_status 0 "$m: curl -4 --noproxy http://allowed.test/" jl "$m" "${ALLOW[@]}" --log "$log" -- \
		"${C[@]}" -4 http://allowed.test/t-http4
	expect_output_has "$m: HTTP over IPv4 served by allowed.test" "served-by: allowed.test"
	audit_has "$m: audit: captured IPv4 HTTP allowed, via transparent" "$log" \
		'"via":"transparent"' '"host":"allowed.test"' '"port":80' \
		'"original_address":"198.1' '"verdict":"allow"'
	# The positive control for the refusal of a name's real address: an
	# address entry opens exactly it.
	expect_status 0 "$m: $ALLOWED4 with --allow $ALLOWED4:80" jl "$m" --allow "$ALLOWED4:80" -- \
		"${C[@]}" "http://$ALLOWED4/t-literal"
	expect_output_has "$m: the literal is served by allowed.test" "served-by: allowed.test"

	# ---------------------------------------------------- refused
	lab_logs_clear
	: >"$log"
	expect_status 6 "$m: a denied name does not resolve" jl "$m" "${ALLOW[@]}" --log "$log" -- \
		"${C[@]}" http://denied.test/t-denied
	expect_status 0 "$m: allowed name, port not allowed (raw.test:7)" jl "$m" "${ALLOW[@]}" --log "$log" -- \
		"${P[@]}" reset raw.test 7
	# Every entry names a port here, so Landlock (ABI >= 4) would refuse
	# the connect itself (EACCES, landlock.sh); off, the relay must.
	expect_status 0 "$m: allowed name, another port on an address entry" jl "$m" \
		--landlock off --allow "$ALLOWED4:443" --log "$log" -- "${P[@]}" reset "$ALLOWED4" 80
	expect_status 0 "$m: the real address of an allowed name ($ALLOWED4)" jl "$m" "${ALLOW[@]}" -- \
		"${P[@]}" refused "$ALLOWED4" 80
	expect_output_has "$m: refused by the worker's rules" "ConnectionRefusedError"
	expect_status 0 "$m: TLS to allowed.test's synthetic address, SNI denied.test" \
		jl "$m" "${ALLOW[@]}" --log "$log" -- "${P[@]}" sni allowed.test denied.test "$CA"
	expect_status 0 "$m: HTTP to allowed.test's synthetic address, Host: denied.test" \
		jl "$m" "${ALLOW[@]}" --log "$log" -- "${P[@]}" host allowed.test denied.test
	expect_status 0 "$m: a synthetic address never handed out" jl "$m" "${ALLOW[@]}" --log "$log" -- \
		"${P[@]}" reset 198.19.255.254 80
	expect_status 0 "$m: UDP 443 to allowed.test's synthetic address" jl "$m" "${ALLOW[@]}" -- \
		"${P[@]}" udp allowed.test
	expect_output_has "$m: UDP refused with port-unreachable" "ConnectionRefusedError"
	echo "info: $m: UDP 443 refusal as measured inside: $(grep -o 'after [0-9.]* ms' <<<"$OUT")"
	for reason in port-not-allowed sni-mismatch host-mismatch unknown-synthetic-address; do
		audit_has "$m: audit: $reason, via transparent" "$log" \
			'"via":"transparent"' '"verdict":"deny"' "\"reason\":\"$reason\"" '"original_address":"'
	done
	audit_has "$m: audit: the deny names the name, port and original address" "$log" \
		'"via":"transparent"' '"host":"raw.test"' '"port":7' "$SYN" \
		'"reason":"port-not-allowed"'
	never_served "$m" denied.test
	never_served "$m" allowed.test
	never_served "$m" raw.test

	for n in denied.test allowed.test raw.test; do
		if lab_dns_queried "$n"; then fail "$m: the lab DNS was asked for $n"
		else ok "$m: the lab DNS never saw $n"; fi
	done

	# ------------------------------------ every captured HTTP request
	lab_logs_clear
	: >"$log"
	# A second request on a kept-alive connection, for another name.
	expect_status 0 "$m: keep-alive, a second request with Host: denied.test" \
		jl "$m" "${ALLOW[@]}" --log "$log" -- "${P[@]}" keepalive allowed.test denied.test
	expect_output_has "$m: the second request was refused" "host-mismatch"
	echo "info: $m: $(grep '^keepalive:' <<<"$OUT")"
	if lab_web_served allowed.test /t-ka1; then ok "$m: the first request was served"
	else fail "$m: the first kept-alive request never reached allowed.test"; fi
	if lab_web_served allowed.test /t-ka2; then fail "$m: the second kept-alive request reached allowed.test"
	else ok "$m: the second kept-alive request never reached a server"; fi
	never_served "$m" denied.test
	# A first request sent after the relay connected (nothing came in
	# time: it took the client for one whose server speaks first).
	expect_status 0 "$m: a late first request with Host: denied.test" \
		jl "$m" "${LATE[@]}" --log "$log" -- "${P[@]}" late-host "$SELF4" 8097 "$LATE_LOG" denied.test
	expect_output_has "$m: the late request was refused" "host-mismatch"
	expect_status 0 "$m: a late first request with the right Host" \
		jl "$m" "${LATE[@]}" -- "${P[@]}" late-host "$SELF4" 8097 "$LATE_LOG" "$SELF4"
	expect_output_has "$m: the late request was served" "served-host: $SELF4"
	expect_status 0 "$m: a late line of another protocol" \
		jl "$m" "${LATE[@]}" -- "${P[@]}" late-echo "$SELF4" 8097 "$LATE_LOG"
	expect_output_has "$m: the late line came back" "late line echoed"
	# After a server's banner (a server that speaks first).
	expect_status 0 "$m: after a banner, a request with Host: denied.test" \
		jl "$m" "${LATE[@]}" --log "$log" -- "${P[@]}" banner-host "$SELF4" 8098 denied.test
	expect_output_has "$m: the request after the banner was refused" "host-mismatch"
	expect_status 0 "$m: after a banner, a line of another protocol" \
		jl "$m" "${LATE[@]}" -- "${P[@]}" banner-echo "$SELF4" 8098
	expect_output_has "$m: the line after the banner came back" "echoed"
	audit_has "$m: audit: the late request refused, via transparent" "$log" \
		'"via":"transparent"' "\"host\":\"$SELF4\"" '"port":8097' '"verdict":"deny"' \
		'"reason":"host-mismatch"' '"status":403'
	audit_has "$m: audit: the kept-alive second request refused (again on its own)" "$log" \
		'"via":"transparent"' '"host":"allowed.test"' '"verdict":"deny"' '"reason":"host-mismatch"'

	# ---------------------------------------------------- SSRF, captured
	# The curl line is written out: "${C[*]}" would leave the '*' of
	# --noproxy to this sh, which globs it, and curl would take the proxy.
	lab_logs_clear
	: >"$log"
	expect_status 0 "$m: captured names that resolve to the host or metadata" jl "$m" \
		--log "$log" --allow lab-host.test:8081 --allow alibaba-metadata.test -- sh -c "
		curl --noproxy '*' -sS -m 10 -i http://lab-host.test:8081/t-ssrf | grep -E '^X-Jailrun-Deny|^served-by'
		curl --noproxy '*' -sS -m 10 -i http://alibaba-metadata.test/t-ssrf | grep -E '^X-Jailrun-Deny|^served-by'; true"
	expect_output_has "$m: lab-host.test refused as local-address" "X-Jailrun-Deny: local-address"
	expect_output_has "$m: alibaba-metadata.test refused as special-address" "X-Jailrun-Deny: special-address"
	if grep -q served-by <<<"$OUT"; then fail "$m: an SSRF target answered: $OUT"; else ok "$m: no SSRF target answered"; fi
	never_served "$m" lab-host-any
	never_served "$m" alibaba-metadata.test
	audit_has "$m: audit: the local address refused on the captured path" "$log" \
		'"via":"transparent"' '"host":"lab-host.test"' '"reason":"local-address"'
	audit_has "$m: audit: the metadata address refused on the captured path" "$log" \
		'"via":"transparent"' '"host":"alibaba-metadata.test"' '"reason":"special-address"'

	# ---------------------------------------------------- --transparent off
	expect_status 0 "$m: --transparent off: allowed.test resolves to its real address" \
		jl "$m" "${ALLOW[@]}" --transparent off -- python3 -c \
		'import socket; print("addr", socket.gethostbyname("allowed.test"))'
	expect_output_has "$m: the real address" "addr $ALLOWED4"
	expect_status 7 "$m: --transparent off: curl --noproxy is refused" jl "$m" "${ALLOW[@]}" \
		--transparent off -- "${C[@]}" http://allowed.test/t-off
done

finish
