#!/bin/bash
# Names pinned in the host's /etc/hosts under transparent egress, in a lab,
# as root and rootless. The lab host's /etc/hosts (/etc/netns/NS/hosts,
# which `ip netns exec` shows the runner) pins names the lab DNS does not
# know. Fails if: a proxy-ignoring client cannot reach an allowed pinned
# name (exact, wildcard, upper case in the file); the sandbox's /etc/hosts
# does not show the synthetic address, shows the pinned one, shows a
# pinned name the policy does not allow, or loses its localhost lines;
# the relay does not connect to the pinned address (the lab DNS is asked
# instead, or the audit names another address); a pinned name that is not
# allowed is reached; the SSRF guard lets a name pinned to 127.0.0.1
# through without an address entry, or refuses it with one; --transparent
# off rewrites the file.
. "${JR_TOP_SRCDIR:-$(dirname "$0")/../..}/tests/lib.sh"
. "$JR_TOP_SRCDIR/tests/lab/lib.sh"
jr_require_sandbox
lab_setup --timeout 600 etchosts   # a hang guard, not a time limit
lab_on_exit jr_cleanup_tmp

ALLOWED4=$(lab_addr allowed.test 4)
A4=$(lab_addr a.allowed.test 4)
# Appended in place: `ip netns exec` binds this very file over /etc/hosts.
cat >>"/etc/netns/$LAB_HOST_NS/hosts" <<HOSTS
# etchosts.sh: names only this file knows
$ALLOWED4 pinned.test
$A4 Api.Pinned.Test
$ALLOWED4 pinned-denied.test
127.0.0.1 pinned-lo.test
HOSTS
C=(curl --noproxy '*' -sS -m 10)
SYN6=0
[ "$(lab_host cat /proc/sys/net/ipv6/conf/default/disable_ipv6 2>/dev/null)" = 0 ] && SYN6=1

for m in $(jr_modes); do
	log="$JR_W/audit-$m.log"
	: >"$log"
	chmod 666 "$log"
	lab_logs_clear

	# ---------------------------------------------------- allowed
	expect_status 0 "$m: curl --noproxy reaches a name pinned in /etc/hosts" \
		jl "$m" --allow pinned.test --log "$log" -- "${C[@]}" http://pinned.test/eh-exact
	expect_output_has "$m: served by the pinned address's server" "served-by: allowed.test"
	expect_output_has "$m: with the pinned name as Host" "host-header: pinned.test"
	audit_has "$m: audit: captured, allowed, connected to the pinned address" "$log" \
		'"via":"transparent"' '"host":"pinned.test"' "\"address\":\"$ALLOWED4\"" '"verdict":"allow"'
	if lab_dns_queried pinned.test; then
		fail "$m: the lab DNS was asked for pinned.test: the relay must read the host's /etc/hosts"
	else
		ok "$m: the relay resolved pinned.test from the host's /etc/hosts, not DNS"
	fi
	expect_status 0 "$m: a wildcard entry reaches a pinned name written in upper case" \
		jl "$m" --allow '*.pinned.test' -- "${C[@]}" http://api.pinned.test/eh-wild
	expect_output_has "$m: served by a.allowed.test" "served-by: a.allowed.test"

	# ---------------------------------------------------- the file inside
	expect_status 0 "$m: the sandbox's /etc/hosts" jl "$m" --allow pinned.test -- \
		sh -c 'cat /etc/hosts; echo >>/etc/hosts 2>/dev/null && echo WRITABLE || true'
	if grep -qE "^198\.1[89]\.[0-9]+\.[0-9]+[[:space:]]+pinned\.test\$" <<<"$OUT"; then
		ok "$m: pinned.test has a synthetic address inside"
	else
		fail "$m: no synthetic line for pinned.test: $OUT"
	fi
	if [ "$SYN6" = 1 ]; then
		if grep -qE "^fd6a:7272:6970::[0-9a-f:]+[[:space:]]+pinned\.test\$" <<<"$OUT"; then
			ok "$m: and a synthetic IPv6 address (the link has IPv6)"
		else
			fail "$m: no synthetic IPv6 line for pinned.test: $OUT"
		fi
	fi
	if grep -qF -e "$ALLOWED4" -e pinned-denied.test -e WRITABLE <<<"$OUT"; then
		fail "$m: the pinned address, a pinned name not allowed, or a writable file: $OUT"
	else
		ok "$m: neither the pinned address nor the name not allowed is shown; read-only"
	fi
	expect_output_has "$m: the localhost line is kept" "127.0.0.1 localhost"
	expect_output_has "$m: a loopback name not allowed stays" "127.0.0.1 pinned-lo.test"
	expect_status 0 "$m: the resolver inside agrees" jl "$m" --allow pinned.test -- \
		getent ahostsv4 pinned.test
	expect_output_has "$m: getent answers a synthetic IPv4 address" "198.18.0.1 "

	expect_status 0 "$m: --transparent off: the host's /etc/hosts as it is" \
		jl "$m" --allow pinned.test --transparent off -- getent ahostsv4 pinned.test
	expect_output_has "$m: --transparent off: the pinned address" "$ALLOWED4 "

	# ---------------------------------------------------- refused
	lab_logs_clear
	expect_status 6 "$m: a pinned name not allowed does not resolve" \
		jl "$m" --allow pinned.test -- "${C[@]}" http://pinned-denied.test/eh-denied
	if lab_web_served allowed.test /eh-denied; then
		fail "$m: pinned-denied.test was reached"
	else
		ok "$m: pinned-denied.test was never reached"
	fi
	expect_status 0 "$m: a name pinned to 127.0.0.1 is refused by the SSRF guard" \
		jl "$m" --allow pinned-lo.test:8080 --log "$log" -- sh -c \
		"curl --noproxy '*' -sS -m 10 -i http://pinned-lo.test:8080/eh-lo | grep -E '^X-Jailrun-Deny|^served-by'; true"
	expect_output_has "$m: special-address" "X-Jailrun-Deny: special-address"
	audit_has "$m: audit: captured, refused by the guard at the pinned address" "$log" \
		'"via":"transparent"' '"host":"pinned-lo.test"' '"address":"127.0.0.1"' \
		'"verdict":"deny"' '"reason":"special-address"'
	never_served "$m" lab-host-loopback
	expect_status 0 "$m: an address entry opens it" \
		jl "$m" --allow pinned-lo.test:8080 --allow 127.0.0.1:8080 -- \
		"${C[@]}" http://pinned-lo.test:8080/eh-lo-open
	expect_output_has "$m: served by the lab host's loopback" "served-by: lab-host-loopback"
done

finish
