#!/bin/bash
# Transparent egress over IPv6, end to end, in a lab with IPv6, as root
# and rootless: the sandbox link gets ULA addresses, an allowed name's AAAA
# is a synthetic address of fd6a:7272:6970::/64, and IPv6-only clients
# (curl -6 --noproxy, a Python AF_INET6 socket) reach the allowed name
# through the relay netns's IPv6 redirect; every refusal is as fast and as
# silent as over IPv4, and nothing refused reaches the lab.
# Fails if: the sandbox has no IPv6 address or route (or the link's /64
# overlaps the pool); AAAA for an allowed name is not one address of the
# IPv6 pool, or a denied name's AAAA is answered or forwarded; an allowed
# name is unreachable over IPv6 (HTTP, HTTPS with the lab CA, a raw
# socket), i.e. ND, the worker's IPv6 accept, the IPv6 redirect, the IPv6
# listener or IP6T_SO_ORIGINAL_DST is broken; a port the entry does not
# allow, a synthetic address never handed out, TLS with another SNI, the
# name's real IPv6 address or the relay's own IPv6 address gets through
# or reaches a lab server or the lab DNS; UDP 443 over IPv6 is not refused
# with ICMPv6 port-unreachable (a timeout or EPERM instead); the audit
# lacks "via":"transparent" with the IPv6 original address; where jailrun
# sees no IPv6 (disable_ipv6=1 in its netns), -v does not say so, AAAA is
# answered, or an IPv6 connect gets anything but an immediate refusal.
. "${JR_TOP_SRCDIR:-$(dirname "$0")/../..}/tests/lib.sh"
. "$JR_TOP_SRCDIR/tests/lab/lib.sh"
jr_require_sandbox
[ -r /proc/sys/net/ipv6/conf/default/disable_ipv6 ] ||
	skip "the kernel has no IPv6 (no /proc/sys/net/ipv6)"
lab_setup --timeout 900 transparent6 # a hang guard, not a time limit
lab_on_exit jr_cleanup_tmp
[ "${LAB_IPV6:-0}" = 1 ] || skip "the lab has no IPv6"

install -m 644 "$LAB_CA" "$JR_W/ca.pem"
install -m 755 "$JR_TOP_SRCDIR/tests/integration/transparent-probe.py" "$JR_TMP/probe.py"
CA="$JR_W/ca.pem"
P=(python3 "$JR_TMP/probe.py")
ALLOWED6=$(lab_addr allowed.test 6)
C=(curl -6 --noproxy '*' -sS -m 10)
ALLOW=(--allow allowed.test --allow raw.test:9000)

for m in $(jr_modes); do
	log="$JR_W/audit6-$m.log"
	: >"$log"
	chmod 666 "$log"
	lab_logs_clear

	# ---------------------------------------------------- the link
	expect_status 0 "$m: the sandbox has IPv6 (-v says so)" jl "$m" -v "${ALLOW[@]}" -- \
		python3 -c '
import socket
s = socket.socket(socket.AF_INET6, socket.SOCK_DGRAM)
s.connect(("fd6a:7272:6970::1", 9))   # routing only: nothing is sent
print("source", s.getsockname()[0])'
	expect_output_has "$m: -v reports IPv6 on" "IPv6: on"
	expect_output_has "$m: the worker's source is its link address" "source fd6a:7272:6970:1::2"

	# ---------------------------------------------------- allowed
	expect_status 0 "$m: allowed.test AAAA is one address of the IPv6 pool" \
		jl "$m" "${ALLOW[@]}" -- "${P[@]}" resolve6 allowed.test
	expect_status 0 "$m: curl -6 --noproxy http://allowed.test/" jl "$m" "${ALLOW[@]}" --log "$log" -- \
		"${C[@]}" http://allowed.test/t6-http
	expect_output_has "$m: HTTP over IPv6 served by allowed.test" "served-by: allowed.test"
	expect_output_has "$m: HTTP path arrived" "path: /t6-http"
	expect_status 0 "$m: curl -6 --noproxy https://allowed.test/" jl "$m" "${ALLOW[@]}" --log "$log" -- \
		"${C[@]}" --cacert "$CA" https://allowed.test/t6-https
	expect_output_has "$m: HTTPS over IPv6 served by allowed.test" "served-by: allowed.test"
	expect_output_has "$m: HTTPS scheme" "scheme: https"
	expect_status 0 "$m: a Python AF_INET6 socket to allowed.test:80" jl "$m" "${ALLOW[@]}" -- \
		"${P[@]}" raw-http6
	audit_has "$m: audit: captured IPv6 HTTPS allowed, via transparent" "$log" \
		'"via":"transparent"' '"host":"allowed.test"' '"port":443' \
		'"original_address":"fd6a:7272:6970::' '"verdict":"allow"'
	if lab_web_served allowed.test /t6-https; then ok "$m: the lab server saw the IPv6 request"
	else fail "$m: the lab server never saw /t6-https"; fi
	# An IPv6 address entry: captured plain HTTP to a literal is read as
	# the proxy reads a request (http://[addr]/...), brackets and all.
	expect_status 0 "$m: curl -6 --noproxy http://[$ALLOWED6]/ with --allow [$ALLOWED6]:80" \
		jl "$m" --allow "[$ALLOWED6]:80" -- "${C[@]}" -g "http://[$ALLOWED6]/t6-literal"
	expect_output_has "$m: the IPv6 literal is served by allowed.test" "served-by: allowed.test"
	expect_output_has "$m: with its path" "path: /t6-literal"

	# ---------------------------------------------------- refused
	lab_logs_clear
	: >"$log"
	expect_status 6 "$m: a denied name has no AAAA" jl "$m" "${ALLOW[@]}" --log "$log" -- \
		"${C[@]}" http://denied.test/t6-denied
	expect_status 0 "$m: allowed name, port not allowed (raw.test:7)" jl "$m" "${ALLOW[@]}" --log "$log" -- \
		"${P[@]}" reset6 raw.test 7
	expect_status 0 "$m: a synthetic IPv6 address never handed out" jl "$m" "${ALLOW[@]}" --log "$log" -- \
		"${P[@]}" reset6 fd6a:7272:6970::fffe 80
	expect_status 0 "$m: TLS to allowed.test's IPv6 synthetic address, SNI denied.test" \
		jl "$m" "${ALLOW[@]}" --log "$log" -- "${P[@]}" sni6 allowed.test denied.test "$CA"
	expect_status 0 "$m: the real IPv6 address of allowed.test ($ALLOWED6)" jl "$m" "${ALLOW[@]}" -- \
		"${P[@]}" refused6 "$ALLOWED6" 80
	expect_output_has "$m: refused by the worker's rules" "ConnectionRefusedError"
	expect_status 0 "$m: the relay's own IPv6 address, transparent port" jl "$m" "${ALLOW[@]}" -- \
		"${P[@]}" refused6 fd6a:7272:6970:1::1 3129
	expect_status 0 "$m: UDP 443 over IPv6 to allowed.test's synthetic address" jl "$m" "${ALLOW[@]}" -- \
		"${P[@]}" udp6 allowed.test
	expect_output_has "$m: UDP refused with ICMPv6 port-unreachable" "ConnectionRefusedError"
	echo "info: $m: IPv6 UDP 443 refusal as measured inside: $(grep -o 'after [0-9.]* ms' <<<"$OUT")"
	for reason in port-not-allowed sni-mismatch unknown-synthetic-address; do
		audit_has "$m: audit: $reason over IPv6, via transparent" "$log" \
			'"via":"transparent"' '"verdict":"deny"' "\"reason\":\"$reason\"" \
			'"original_address":"fd6a:7272:6970::'
	done
	audit_has "$m: audit: the deny names the name, port and IPv6 original address" "$log" \
		'"via":"transparent"' '"host":"raw.test"' '"port":7' '"original_address":"fd6a:7272:6970::' \
		'"reason":"port-not-allowed"'
	never_served "$m" denied.test
	never_served "$m" allowed.test
	never_served "$m" raw.test
	for n in denied.test allowed.test raw.test; do
		if lab_dns_queried "$n"; then fail "$m: the lab DNS was asked for $n"
		else ok "$m: the lab DNS never saw $n"; fi
	done
done

# ---------------------------------------------------- jailrun sees no IPv6
# disable_ipv6=1 as the default of the lab host netns (where jailrun runs;
# devices already there keep theirs): jailrun must build an IPv4-only
# sandbox, answer AAAA empty and leave IPv6 refused.
lab_on_exit 'lab_host sysctl -qw net.ipv6.conf.default.disable_ipv6=0'
lab_host sysctl -qw net.ipv6.conf.default.disable_ipv6=1
NO6='
import errno, socket
try:
    print("aaaa", socket.getaddrinfo("allowed.test", 80, socket.AF_INET6))
except socket.gaierror as e:
    print("no-aaaa", e)
s = socket.socket(socket.AF_INET6, socket.SOCK_STREAM)
s.settimeout(10)   # a hang guard: the refusal is immediate
try:
    s.connect(("fd6a:7272:6970::1", 80))
    print("v6-connected")
except OSError as e:
    print("v6-refused", errno.errorcode.get(e.errno, e))
print("v4", socket.gethostbyname("allowed.test"))'
for m in $(jr_modes); do
	expect_status 0 "$m: without IPv6 as jailrun sees it" jl "$m" -v "${ALLOW[@]}" -- python3 -c "$NO6"
	expect_output_has "$m: -v says IPv6 is off" "IPv6: off"
	expect_output_has "$m: AAAA is empty" "no-aaaa"
	if grep -qE "v6-refused (ENETUNREACH|EHOSTUNREACH|ECONNREFUSED)" <<<"$OUT"; then
		ok "$m: an IPv6 connect is refused at once"
	else
		fail "$m: IPv6 connect: $OUT"
	fi
	expect_output_has "$m: IPv4 still synthetic" "v4 198.1"
done
lab_host sysctl -qw net.ipv6.conf.default.disable_ipv6=0

finish
