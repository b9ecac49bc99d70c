#!/bin/bash
# The allowlist relay end to end, in a lab, as root and rootless: what is
# allowed arrives at the right server, what is not is refused at once with
# the reason, and never reaches the lab (its servers' logs are the witness).
# Fails if: an allowed fetch fails or lands elsewhere, a denied one is not
# refused or reaches its server, a denied name is looked up upstream, a
# special address is reached, a raw connect hangs or passes, a transfer is
# corrupted, the relay stops serving under load, or the log/summary lie.
. "${JR_TOP_SRCDIR:-$(dirname "$0")/../..}/tests/lib.sh"
. "$JR_TOP_SRCDIR/tests/lab/lib.sh"
jr_require_sandbox
lab_setup --timeout 1200 allowlist   # a hang guard, not a time limit: generous
lab_on_exit jr_cleanup_tmp

install -m 644 "$LAB_CA" "$JR_W/ca.pem"
install -m 644 "$JR_TOP_SRCDIR/tests/lab/servers.py" "$JR_TMP/servers.py"
CA="$JR_W/ca.pem"
DENIED4=$(lab_addr denied.test 4)
ALLOWED4=$(lab_addr allowed.test 4)
RAW4=$(lab_addr raw.test 4)

for m in $(jr_modes); do
	lab_logs_clear
	# --- plain allow and deny, HTTP and HTTPS, curl and python
	expect_status 0 "$m: allowed.test over HTTP" jl "$m" --allow allowed.test -- \
		curl -sS -m 10 http://allowed.test/hello
	expect_output_has "$m: served by allowed.test" "served-by: allowed.test"
	expect_output_has "$m: origin-form path arrived" "path: /hello"
	expect_status 0 "$m: allowed.test over HTTPS" jl "$m" --allow allowed.test -- \
		curl -sS -m 10 --cacert "$CA" https://allowed.test/tls
	expect_output_has "$m: HTTPS served by allowed.test" "served-by: allowed.test"
	expect_output_has "$m: HTTPS scheme" "scheme: https"
	expect_status 0 "$m: python urllib via the proxy" jl "$m" --allow allowed.test -- \
		python3 -c 'import urllib.request; print(urllib.request.urlopen("http://allowed.test/py", timeout=10).read().decode())'
	expect_output_has "$m: urllib served by allowed.test" "served-by: allowed.test"

	expect_status 0 "$m: denied.test over HTTP" jl "$m" --allow allowed.test -- \
		curl -sS -m 10 -i http://denied.test/
	expect_output_has "$m: 403" "HTTP/1.1 403 Forbidden"
	expect_output_has "$m: deny header" "X-Jailrun-Deny: not-allowed"
	expect_output_has "$m: deny body names host and reason" "jailrun: denied.test is not in the allowlist"
	expect_status 56 "$m: denied.test over HTTPS (CONNECT refused)" jl "$m" --allow allowed.test -- \
		curl -sS -m 10 --cacert "$CA" https://denied.test/
	expect_output_has "$m: curl saw the 403" "403"
	never_served "$m" denied.test

	# --- a CONNECT tunnel carries TLS for the host it was allowed for only
	lab_logs_clear
	expect_status 0 "$m: SNI check" jl "$m" --allow allowed.test -- python3 -c '
import socket, ssl, sys
def tunnel(sni):
    s = socket.create_connection(("100.64.77.1", 3128), timeout=10)
    s.sendall(b"CONNECT allowed.test:443 HTTP/1.1\r\n\r\n")
    s.recv(100)
    ctx = ssl.create_default_context(cafile=sys.argv[1]); ctx.check_hostname = False
    try:
        t = ctx.wrap_socket(s, server_hostname=sni)
        t.sendall(b"GET /sni HTTP/1.1\r\nHost: " + sni.encode() + b"\r\nConnection: close\r\n\r\n")
        body = b""
        while True:
            b = t.recv(4096)
            if not b: break
            body += b
        print(sni, "tunnel:", body.decode().split("\r\n\r\n", 1)[1].splitlines()[0])
    except (OSError, ssl.SSLError) as e:
        print(sni, "tunnel refused:", type(e).__name__)
tunnel("allowed.test"); tunnel("denied.test")
' "$CA"
	expect_output_has "$m: matching SNI passes" "allowed.test tunnel: served-by: allowed.test"
	expect_output_has "$m: SNI for another host is refused" "denied.test tunnel refused"
	never_served "$m" denied.test

	# --- wildcard depth and apex, port scoping
	expect_status 0 "$m: wildcard" jl "$m" --allow '*.allowed.test' -- sh -c '
		curl -sS -m 10 http://a.allowed.test/; curl -sS -m 10 http://deep.b.allowed.test/
		curl -sS -m 10 http://allowed.test/'
	expect_output_has "$m: *.allowed.test reaches a.allowed.test" "served-by: a.allowed.test"
	expect_output_has "$m: *.allowed.test reaches deep.b.allowed.test" "served-by: deep.b.allowed.test"
	expect_output_has "$m: *.allowed.test does not reach the apex" "jailrun: allowed.test is not in the allowlist"
	expect_status 0 "$m: port scoping" jl "$m" --allow allowed.test:443 -- sh -c '
		curl -sS -m 10 --cacert "$0" https://allowed.test/; curl -sS -m 10 -i http://allowed.test/' "$CA"
	expect_output_has "$m: :443 allows HTTPS" "served-by: allowed.test"
	expect_output_has "$m: :443 refuses port 80" "X-Jailrun-Deny: port-not-allowed"

	# --- DNS: allowed names resolve, others get NXDOMAIN and never leave
	lab_logs_clear
	# The forwarder's real answers: --transparent off (with it on, the
	# default, allowed names get synthetic ones: synthetic-dns.sh).
	expect_status 0 "$m: DNS inside" jl "$m" --allow allowed.test --transparent off -- sh -c '
		getent ahostsv4 allowed.test | sed -n 1p
		if getent hosts denied.test; then echo DENIED-RESOLVED; else echo denied-nxdomain; fi
		python3 "$0" dns exfil-secret-1234.denied.test A --server=100.64.77.1 --tcp || true' \
		"$JR_TMP/servers.py"
	expect_output_has "$m: allowed.test resolves to its lab address" "$ALLOWED4"
	expect_output_has "$m: denied.test does not resolve" "denied-nxdomain"
	expect_output_has "$m: DNS over TCP answers NXDOMAIN" "NXDOMAIN"
	if lab_dns_queried denied.test || lab_dns_queried exfil-secret-1234.denied.test; then
		fail "$m: a denied name reached the lab DNS server"
	else
		ok "$m: denied names were never looked up upstream"
	fi
	if lab_dns_queried allowed.test; then ok "$m: allowed.test was resolved upstream"; else fail "$m: allowed.test was not looked up"; fi

	# --- tools that ignore the proxy fail at once: TCP reset, UDP refused.
	# The kind of refusal is checked, not its speed: the 10 s timeout only
	# guards against hanging, and a timeout is not a refusal.
	expect_status 0 "$m: raw TCP/UDP" jl "$m" --allow allowed.test -- python3 -c '
import errno, socket, sys, time
t = time.monotonic()
try:
    socket.create_connection((sys.argv[1], 7), timeout=10); print("TCP-CONNECTED")
except OSError as e:
    print("tcp refused: %s (in %.3f s)" % (errno.errorcode.get(e.errno, repr(e)), time.monotonic() - t))
u = socket.socket(socket.AF_INET, socket.SOCK_DGRAM); u.settimeout(1)
u.connect((sys.argv[1], 7))
try:
    u.send(b"ping"); print("UDP-REPLY", u.recv(100))
except OSError as e:
    print("udp no reply:", e.strerror or e)
' "$RAW4"
	if grep -qE 'tcp refused: (ECONNREFUSED|ENETUNREACH|EHOSTUNREACH) ' <<<"$OUT"; then ok "$m: raw TCP refused by the kernel, not timed out"; else fail "$m: raw TCP: $OUT"; fi
	expect_output_has "$m: raw UDP gets nothing" "udp no reply"

	# --- tricks that must not reach denied.test
	lab_logs_clear
	dec=$(python3 -c 'import ipaddress,sys; print(int(ipaddress.IPv4Address(sys.argv[1])))' "$DENIED4")
	hex=$(python3 -c 'import ipaddress,sys; print(hex(int(ipaddress.IPv4Address(sys.argv[1]))))' "$DENIED4")
	expect_status 0 "$m: smuggling shapes" jl "$m" --allow allowed.test -- python3 -c '
import socket, sys
def ask(raw):
    s = socket.create_connection(("100.64.77.1", 3128), timeout=10)
    s.sendall(raw.encode())
    out = b""
    while True:
        b = s.recv(65536)
        if not b: break
        out += b
    return out.decode(errors="replace")
dec, hexa, d4 = sys.argv[1:4]
tests = {
  "userinfo": "GET http://allowed.test@denied.test/ HTTP/1.1\r\nHost: denied.test\r\n\r\n",
  "hostmismatch": "GET http://allowed.test/mm HTTP/1.1\r\nHost: denied.test\r\n\r\n",
  "decimal": "GET http://%s/ HTTP/1.1\r\n\r\n" % dec,
  "hex": "GET http://%s/ HTTP/1.1\r\n\r\n" % hexa,
  "mapped": "GET http://[::ffff:%s]/ HTTP/1.1\r\n\r\n" % d4,
  "connectmapped": "CONNECT [::ffff:%s]:80 HTTP/1.1\r\n\r\n" % d4,
  "clte": "POST http://allowed.test/ HTTP/1.1\r\nContent-Length: 5\r\nTransfer-Encoding: chunked\r\n\r\n0\r\n\r\n",
  "origin": "GET / HTTP/1.1\r\nHost: denied.test\r\n\r\n",
}
for k, v in tests.items():
    print(k, "=>", ask(v).split("\r\n")[0], "|", ask(v).split("\n")[-2] if "\n" in ask(v) else "")
' "$dec" "$hex" "$DENIED4"
	expect_output_has "$m: userinfo is 400" "userinfo => HTTP/1.1 400"
	expect_output_has "$m: Host/URI mismatch goes to the URI host" "hostmismatch => HTTP/1.1 200"
	expect_output_has "$m: decimal IP is refused" "decimal => HTTP/1.1 403"
	expect_output_has "$m: hex IP is refused" "hex => HTTP/1.1 40"
	expect_output_has "$m: IPv4-mapped IPv6 is refused" "mapped => HTTP/1.1 403"
	expect_output_has "$m: CONNECT to IPv4-mapped IPv6 is refused" "connectmapped => HTTP/1.1 403"
	expect_output_has "$m: CL+TE is 400" "clte => HTTP/1.1 400"
	expect_output_has "$m: origin-form is 400" "origin => HTTP/1.1 400"
	never_served "$m" denied.test
	if lab_web_served allowed.test /mm; then ok "$m: mismatched request went to allowed.test"; else fail "$m: /mm not at allowed.test"; fi

	# --- names that resolve to loopback/metadata are refused even if allowed
	lab_logs_clear
	expect_status 0 "$m: SSRF guard" jl "$m" --allow loopback.test --allow metadata.test -- sh -c '
		curl -sS -m 10 -i http://loopback.test:8080/; curl -sS -m 10 -i http://metadata.test/'
	expect_output_has "$m: loopback.test refused" "jailrun: loopback.test resolves to 127.0.0.1"
	expect_output_has "$m: metadata.test refused" "jailrun: metadata.test resolves to 169.254.169.254"
	expect_output_has "$m: guard reason" "X-Jailrun-Deny: special-address"
	never_served "$m" lab-host-loopback
	never_served "$m" metadata.test
	expect_status 0 "$m: metadata allowed when named explicitly" jl "$m" --allow 169.254.169.254:80 -- \
		curl -sS -m 10 http://169.254.169.254/
	expect_output_has "$m: explicit metadata entry reaches it" "served-by: metadata.test"

	# --- load: 100 parallel fetches; 1000 idle connections; 200 MB intact
	expect_status 0 "$m: 100 parallel fetches" jl "$m" --allow allowed.test -- sh -c '
		seq 100 | xargs -P 100 -I{} curl -sS -m 30 -o /dev/null -w "%{http_code}\n" http://allowed.test/p{} | grep -c "^200$"'
	if [ "$(printf '%s\n' "$OUT" | tail -n1)" = 100 ]; then ok "$m: all 100 succeeded"; else fail "$m: parallel: $OUT"; fi
	expect_status 0 "$m: 1000 idle connections" jl "$m" --allow allowed.test -- python3 -c '
import resource, socket, urllib.request
soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
resource.setrlimit(resource.RLIMIT_NOFILE, (min(hard, 4096), hard))
idle = [socket.create_connection(("100.64.77.1", 3128), timeout=10) for _ in range(1000)]
print(urllib.request.urlopen("http://allowed.test/busy", timeout=10).read().decode().splitlines()[0])
print("held", len(idle))
'
	expect_output_has "$m: served while 1000 idle connections are held" "served-by: allowed.test"
	expect_output_has "$m: 1000 connections were held" "held 1000"
	want=$(python3 "$JR_TOP_SRCDIR/tests/lab/servers.py" pattern-sha256 209715200)
	expect_status 0 "$m: 200 MB download" jl "$m" --allow allowed.test -- sh -c \
		'curl -sS -m 120 http://allowed.test/bytes/209715200 | sha256sum'
	expect_output_has "$m: 200 MB arrived byte-identical" "$want"
	expect_status 0 "$m: 20 MB upload, chunked" jl "$m" --allow allowed.test -- sh -c \
		'head -c 20971520 /dev/zero | curl -sS -m 60 -H "Transfer-Encoding: chunked" --data-binary @- http://allowed.test/up'
	expect_output_has "$m: upload arrived whole" "received-bytes: 20971520"

	# --- audit log and JSON summary
	rm -f "$JR_W/audit-$m.log" "$JR_W/sum-$m.json"
	expect_status 0 "$m: run with --log and --json" jl "$m" --allow allowed.test \
		--log "$JR_W/audit-$m.log" --json "$JR_W/sum-$m.json" -- sh -c '
		curl -sS -m 10 -o /dev/null http://allowed.test/; curl -sS -m 10 -o /dev/null http://denied.test/
		getent hosts denied.test; true'
	if python3 - "$JR_W/audit-$m.log" "$JR_W/sum-$m.json" <<'PY'
import json, sys
recs = [json.loads(l) for l in open(sys.argv[1])]
conns = [r for r in recs if r["event"] == "connection"]
allow = [r for r in conns if r["verdict"] == "allow" and r["host"] == "allowed.test" and r["via"] == "proxy"]
deny = [r for r in conns if r["verdict"] == "deny" and r["host"] == "denied.test" and r["via"] == "proxy"]
dns = [r for r in conns if r["via"] == "dns" and r["host"] == "denied.test" and r["verdict"] == "deny"]
assert allow and allow[0]["port"] == 80 and allow[0]["bytes_down"] > 0 and allow[0]["address"], allow
assert deny and deny[0]["reason"] == "not-allowed" and deny[0]["status"] == 403, deny
assert dns and dns[0]["reason"] == "not-allowed", conns
for r in conns:
    for k in ("time", "id", "via", "method", "host", "port", "address", "verdict", "reason", "bytes_up", "bytes_down", "duration_ms"):
        assert k in r, (k, r)
s = json.load(open(sys.argv[2]))
n = s["network"]
assert n["mode"] == "allowlist" and n["rules_verified"] and n["allowed"] >= 1 and n["denied"] >= 2, n
assert {"destination": "denied.test:80", "count": 1} in n["denied_destinations"], n
PY
	then ok "$m: audit log and summary record allow and deny"; else fail "$m: audit/summary: $(cat "$JR_W/audit-$m.log" "$JR_W/sum-$m.json")"; fi

	# --- the live table equals the reviewed text in nft/
	marker="jr-al-dump-$m-$$"
	jl "$m" --allow allowed.test -- bash -c "exec -a $marker sleep 30" &
	bg=$!
	cpid=$(marker_pid "$marker") || true
	live=$(nsenter --net="/proc/$cpid/ns/net" nft list ruleset 2>&1 || true)
	kill -TERM "$(pgrep -o -f "^$JR --allow allowed.test -- bash -c exec -a $marker")" 2>/dev/null || true
	wait "$bg" 2>/dev/null || true
	if [ -n "$cpid" ] && [ "$(nft_normalise <<<"$live")" = "$(nft_normalise <"$JR_TOP_SRCDIR/nft/jailrun-allowlist.nft")" ]; then
		ok "$m: live ruleset equals nft/jailrun-allowlist.nft"
	else
		fail "$m: live ruleset differs from nft/jailrun-allowlist.nft: $live"
	fi

	# --- --allow-file and --log-fd
	printf '# the model API\n  allowed.test:80   # trailing comment\n\n*.b.allowed.test\n' >"$JR_W/allow-$m.txt"
	expect_status 0 "$m: --allow-file and --log-fd" jl "$m" --allow-file "$JR_W/allow-$m.txt" --log-fd 3 -- sh -c '
		curl -sS -m 10 http://allowed.test/; curl -sS -m 10 http://deep.b.allowed.test/
		curl -sS -m 10 http://a.allowed.test/' 3>"$JR_W/fd-$m.log"
	expect_output_has "$m: --allow-file entry with a port" "served-by: allowed.test"
	expect_output_has "$m: --allow-file wildcard entry" "served-by: deep.b.allowed.test"
	expect_output_has "$m: --allow-file allows nothing else" "jailrun: a.allowed.test is not in the allowlist"
	if grep -q '"host":"deep.b.allowed.test"' "$JR_W/fd-$m.log" && grep -q '"verdict":"deny"' "$JR_W/fd-$m.log"; then
		ok "$m: --log-fd receives the audit log"
	else
		fail "$m: --log-fd: $(cat "$JR_W/fd-$m.log")"
	fi
	printf 'allowed.test\nfoo.*.test\n' >"$JR_W/bad-$m.txt"
	expect_status 125 "$m: a bad line in --allow-file" jl "$m" --allow-file "$JR_W/bad-$m.txt" -- true
	expect_output_has "$m: the message names file and line" "bad-$m.txt:2"

	# --- an empty allowlist reaches nothing; bad entries run nothing
	expect_status 0 "$m: empty allowlist" jl "$m" --net allowlist -- curl -sS -m 10 -i http://allowed.test/
	expect_output_has "$m: empty allowlist refuses" "X-Jailrun-Deny: not-allowed"
	rm -f "$JR_W/ran"
	expect_status 125 "$m: bad --allow entry" jl "$m" --allow 'foo.*.com' -- touch "$JR_W/ran"
	expect_output_has "$m: the message names the entry" "'foo.*.com'"
	if [ -e "$JR_W/ran" ]; then fail "$m: a command ran with a bad --allow"; else ok "$m: nothing ran with a bad --allow"; fi
	expect_status 125 "$m: --allow with --net none" jl "$m" --net none --allow allowed.test -- true
done

finish
