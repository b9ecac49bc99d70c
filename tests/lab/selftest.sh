#!/usr/bin/env bash
# shellcheck disable=SC2317 # check functions are called through lab_check
# SPDX-License-Identifier: GPL-2.0-or-later
#
# selftest.sh - the lab works and is closed: build a lab, reach every service
# from the lab host with no sandbox involved, prove the lab is not connected
# to this machine's network, tear it down and prove nothing is left.
# Automake test in TAP (tests/tap.sh): one "ok N" / "not ok N" per check.
set -euo pipefail

here=$(cd "$(dirname "$0")" && pwd)
# shellcheck source=../tap.sh
. "$here/../tap.sh"
# shellcheck source=lib.sh
. "$here/lib.sh"

ms() { echo $(( ($(date +%s%N) - t0) / 1000000 )); }
t0=$(date +%s%N)
# This machine's own network configuration, read (never changed) to prove
# the lab leaves it alone.
machine_net() { ip -o link | awk '{print $2}'; ip -4 route; ip -6 route; }
machine_before=$(machine_net)

lab_setup --timeout 300 selftest   # a hang guard, not a time limit: generous
echo "lab $LAB_NAME is up after $(ms) ms; checking it"

py=/usr/bin/python3
[[ -x $py ]] || py=python3
srv=$here/servers.py
webnames="allowed.test a.allowed.test deep.b.allowed.test other.test denied.test"
# Timeouts only guard against hanging (the machine may be loaded): generous.
curl_=(curl -sS --max-time 30 --connect-timeout 10)
H() { lab_host "$@"; }                  # in the lab host
N() { lab_net "$@"; }                   # in the lab internet
body_has() { grep -qxF -- "$1"; }       # stdin has this exact line
ifnames() { ip -o link | awk '{print $2}' | sed 's/@.*//; s/:$//' | sort | tr '\n' ' '; }

# ------------------------------------------------------------ isolation
echo "# isolation: the lab is not connected to this machine's network"
lab_check "the lab host is a network namespace other than this machine's" \
	test "$(readlink /proc/self/ns/net)" != "$(H readlink /proc/self/ns/net)"
lab_check "the lab host has exactly lo and eth0" test "$(H bash -c "$(declare -f ifnames); ifnames")" = "eth0 lo "
peer_is() { grep -q "link-netns $LAB_NET_NS .*veth" <<<"$(H ip -d -o link show eth0 || true)" &&
	grep -q "link-netns $LAB_HOST_NS .*veth" <<<"$(N ip -d -o link show uplink0 || true)"; }
lab_check "eth0 is a veth whose only peer is uplink0 in the lab internet" peer_is
lab_check "the lab internet has exactly lo and uplink0" test "$(N bash -c "$(declare -f ifnames); ifnames")" = "lo uplink0 "
no_default() { [[ -z $(N ip -4 route show default) && -z $(N ip -6 route show default) ]]; }
lab_check "the lab internet has no default route (nowhere further to go)" no_default
# (no "! cmd | grep -q": under pipefail a SIGPIPE of the writer would turn
# a found line into a pass of the negated check)
host_routes() { [[ -z $(H ip -4 route | grep -v 'dev eth0 ') && -z $(H ip -6 route | grep -v 'dev eth0 ') ]]; }
lab_check "every lab host route leads into the lab internet" host_routes
no_fwd() { [[ $(H cat /proc/sys/net/ipv4/ip_forward) == 0 && $(N cat /proc/sys/net/ipv4/ip_forward) == 0 ]]; }
lab_check "IP forwarding is off in both lab namespaces" no_fwd
lab_check "this machine's links and routes are unchanged by lab up" test "$(machine_net)" = "$machine_before"

# ------------------------------------------------------------ names
echo "# name resolution in the lab host (hosts file, then the lab DNS)"
resolves() { grep -q "^$3 .*STREAM" <<<"$(H getent "ahostsv$2" "$1" || true)"; }
for n in $webnames; do
	v4=$(lab_addr "$n" 4)
	lab_check "$n -> $v4 (A from the lab DNS)" resolves "$n" 4 "$v4"
	if [[ $LAB_IPV6 == 1 ]]; then
		v6=$(lab_addr "$n" 6)
		lab_check "$n -> $v6 (AAAA from the lab DNS)" resolves "$n" 6 "$v6"
	fi
done
lab_check "loopback.test -> 127.0.0.1 (hosts file)" resolves loopback.test 4 127.0.0.1
lab_check "metadata.test -> 169.254.169.254 (hosts file)" resolves metadata.test 4 169.254.169.254
dns() { H "$py" "$srv" dns "$@"; }
dns_special() { [[ $(dns loopback.test) == 127.0.0.1 && $(dns metadata.test) == 169.254.169.254 ]]; }
lab_check "the lab DNS itself answers loopback.test and metadata.test" dns_special
lab_check "the lab DNS answers over TCP too" test "$(dns --tcp other.test)" = "$(lab_addr other.test)"
nx() { [[ $(dns no-such-name.test) == NXDOMAIN ]] && ! H getent hosts no-such-name.test; }
lab_check "an unknown name gets NXDOMAIN" nx

# ------------------------------------------------------------ web
echo "# web servers (names from the lab DNS, TLS verified against the lab CA)"
served() {   # served NAME URL [curl options]: the body says NAME served it
	local n=$1 url=$2 out
	shift 2
	out=$(H "${curl_[@]}" "$@" "$url") || return 1
	body_has "served-by: $n" <<<"$out" && body_has "path: /${url#*://*/}" <<<"$out"
}
for n in $webnames; do
	lab_check "http://$n/ is served by $n" served "$n" "http://$n/selftest/http"
	lab_check "https://$n/ is served by $n, certificate verified" \
		served "$n" "https://$n/selftest/https" --cacert "$LAB_CA"
	if [[ $LAB_IPV6 == 1 ]]; then
		lab_check "https://$n/ over IPv6 is served by $n" served "$n" "https://$n/v6" -6 --cacert "$LAB_CA"
	fi
done
wrong_cert() { ! H "${curl_[@]}" --cacert "$LAB_CA" --resolve "denied.test:443:$(lab_addr allowed.test)" \
	https://denied.test/ 2>/dev/null; }
lab_check "certificate checks are real: denied.test at allowed.test's address fails" wrong_cert
lab_check "the lab CA is needed: https without --cacert fails" \
	bash -c "! '$LAB_TOOL' exec '$LAB_NAME' ${curl_[*]} https://allowed.test/ 2>/dev/null"
size=$((10 * 1024 * 1024 + 7))
pattern() { [[ $(H "${curl_[@]}" "http://allowed.test/bytes/$size" | sha256sum | cut -d' ' -f1) == \
	"$("$py" "$srv" pattern-sha256 "$size")" ]]; }
lab_check "GET /bytes/$size streams the lab pattern (sha256 matches)" pattern
post() { H "${curl_[@]}" --data-binary hello http://other.test/up | body_has "received-bytes: 5"; }
lab_check "POST bodies are received, counted and hashed" post
as_nobody() { "$LAB_TOOL" exec "$LAB_NAME" host --user nobody "${curl_[@]}" --cacert "$LAB_CA" \
	https://allowed.test/ | body_has "served-by: allowed.test"; }
lab_check "an unprivileged user (nobody) in the lab host gets the same answers" as_nobody

# ------------------------------------------------------------ raw, metadata, loopback
echo "# echo, metadata and loopback services"
echo_ok() { [[ $(H "$py" "$srv" "$1" "$2" 7 "$3") == "$3" ]]; }
raw4=$(lab_addr raw.test 4)
lab_check "TCP echo at $raw4:7" echo_ok tcp "$raw4" tcp-hello
lab_check "UDP echo at $raw4:7" echo_ok udp "$raw4" udp-hello
if [[ $LAB_IPV6 == 1 ]]; then
	raw6=$(lab_addr raw.test 6)
	lab_check "TCP echo at [$raw6]:7" echo_ok tcp "$raw6" tcp6-hello
	lab_check "UDP echo at [$raw6]:7" echo_ok udp "$raw6" udp6-hello
fi
lab_check "metadata server at http://169.254.169.254/" \
	served metadata.test http://169.254.169.254/latest/meta-data/
lab_check "metadata server as http://metadata.test/" served metadata.test http://metadata.test/x
lab_check "loopback-only service at http://127.0.0.1:8080/" served lab-host-loopback http://127.0.0.1:8080/l
lab_check "loopback-only service as http://loopback.test:8080/" \
	served lab-host-loopback http://loopback.test:8080/l
not_from_net() { ! N "${curl_[@]}" http://127.0.0.1:8080/ 2>/dev/null &&
	! N "${curl_[@]}" "http://$(lab_addr allowed.test):8080/" 2>/dev/null; }
lab_check "the loopback service cannot be reached from the lab internet" not_from_net

# ------------------------------------------------------------ logs
echo "# logs"
queried() { lab_dns_queried allowed.test && lab_dns_queried deep.b.allowed.test &&
	lab_dns_queried no-such-name.test; }
lab_check "the DNS log recorded the lookups made" queried
lab_check "the DNS log has no query for a name nobody asked (never-asked.test)" \
	bash -c "! grep -q never-asked '$LAB_DNSLOG'"
lab_check "the web log shows the request denied.test served" lab_web_served denied.test /selftest/http
lab_check "lab status: every service answering" "$LAB_TOOL" status "$LAB_NAME"

# ------------------------------------------------------------ teardown
echo "# teardown"
"$LAB_TOOL" down "$LAB_NAME"
gone() {
	! grep -qE "^($LAB_HOST_NS|$LAB_NET_NS)( |\$)" <<<"$(ip netns list)" &&
	[[ ! -e $LAB_STATE && ! -e /etc/netns/$LAB_HOST_NS && ! -e /etc/netns/$LAB_NET_NS ]] &&
	# (the first grep's status, 2 for a vanished /proc entry or SIGPIPE,
	# must not decide under pipefail: a server found must fail the check)
	! { grep -lzx -- "[-]-state=$LAB_STATE" /proc/[0-9]*/cmdline 2>/dev/null || true; } | grep -q .
}
lab_check "lab down leaves no netns, state, /etc/netns entry or server" gone
lab_check "this machine's links and routes are as before" test "$(machine_net)" = "$machine_before"
lab_check "lab down again is a no-op that succeeds" "$LAB_TOOL" down "$LAB_NAME"

echo "selftest took $(ms) ms"
lab_finish
