#!/bin/bash
# Published ports end to end, in a lab, as root and rootless: a server the
# command starts inside is reached from the lab host's loopback through
# --publish, arriving over the veth from the gateway.
# Fails if: the server inside is not reached from the lab host's loopback,
# under --net none (no lanes: publish alone brings the relay) or --net
# allowlist; the connection does not arrive from the gateway; it lacks its
# "via":"publish" audit line; the published port is reachable from the
# lab's internet side; a second jailrun publishing the same host port
# runs its command or exits with anything but 125 and a message naming the
# --publish; a bad --publish runs anything.
. "${JR_TOP_SRCDIR:-$(dirname "$0")/../..}/tests/lib.sh"
. "$JR_TOP_SRCDIR/tests/lab/lib.sh"
jr_require_sandbox
lab_setup --timeout 900 publish   # a hang guard, not a time limit
lab_on_exit jr_cleanup_tmp

# The server inside: answers one GET with the path and the peer's address,
# after writing its readiness file (argv[2]) once it listens.
cat >"$JR_TMP/pubsrv.py" <<'PY'
import http.server, socketserver, sys
class H(http.server.BaseHTTPRequestHandler):
    def do_GET(self):
        body = ("published %s from %s\n" % (self.path, self.client_address[0])).encode()
        self.send_response(200)
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)
    def log_message(self, *a):
        pass
socketserver.TCPServer.allow_reuse_address = True
s = socketserver.TCPServer(("0.0.0.0", int(sys.argv[1])), H)
open(sys.argv[2], "w").close()
s.handle_request()
PY
chmod 644 "$JR_TMP/pubsrv.py"
LABHOST4=$(lab_addr lab-host.test 4)

# publish_case CALLER TAG HOSTPORT JAILRUN-ARGS...
publish_case() {
	local m=$1 tag=$2 hp=$3 ready="$JR_W/ready-$1-$2" log="$JR_W/audit-$1-$2.log" pid st
	shift 3
	: >"$log"
	chmod 666 "$log"
	rm -f "$ready" "$JR_W/ran-$m-$tag"
	# --watchdog-interval 0.05: the /proc walk runs many times while the
	# socket factory lives outside the worker netns (it must be let be).
	jl "$m" "$@" --log "$log" --timeout 120 --watchdog-interval 0.05 \
		--publish "127.0.0.1:$hp:8000" -- \
		python3 "$JR_TMP/pubsrv.py" 8000 "$ready" >"$JR_W/out-$m-$tag" 2>&1 &
	pid=$!
	if ! wait_until 60 test -e "$ready"; then
		fail "$m $tag: the server inside never listened: $(cat "$JR_W/out-$m-$tag")"
		kill "$pid" 2>/dev/null || true
		wait "$pid" 2>/dev/null || true
		return
	fi
	# A second sandbox on the same host port: refused before it runs.
	expect_status 125 "$m $tag: a second --publish of host port $hp fails" \
		jl "$m" --publish "127.0.0.1:$hp:9000" -- touch "$JR_W/ran-$m-$tag"
	expect_output_has "$m $tag: the error names the --publish" "--publish 127.0.0.1:$hp:9000: cannot listen on the host"
	if [ -e "$JR_W/ran-$m-$tag" ]; then fail "$m $tag: the second command ran"
	else ok "$m $tag: the second command never ran"; fi
	# Not from the lab's internet side: only the lab host's loopback.
	expect_status 7 "$m $tag: not reached from the lab internet" \
		lab_net curl -sS -m 10 "http://$LABHOST4:$hp/t-from-net"
	expect_status 0 "$m $tag: reached from the lab host's loopback" \
		lab_host curl -sS -m 10 "http://127.0.0.1:$hp/t-pub-$tag"
	expect_output_has "$m $tag: the server inside answered" "published /t-pub-$tag"
	expect_output_has "$m $tag: it came from the gateway, over the veth" "from 100.64.77.1"
	set +e
	wait "$pid"
	st=$?
	set -e
	if [ "$st" = 0 ]; then ok "$m $tag: the sandbox ended with the server (status 0)"
	else fail "$m $tag: the sandbox ended with $st: $(cat "$JR_W/out-$m-$tag")"; fi
	if grep -q '"port":8000' <<<"$(grep '"via":"publish"' "$log" || true)"; then
		ok "$m $tag: audit: the connection, via publish, port 8000"
	else
		fail "$m $tag: audit: no via publish line: $(cat "$log")"
	fi
}

for m in $(jr_modes); do
	case $m in root) base=47310 ;; *) base=47320 ;; esac
	publish_case "$m" none "$base" --net none
	publish_case "$m" allowlist "$((base + 1))" --allow allowed.test
	expect_status 125 "$m: --publish 0:80 is refused" jl "$m" --publish 0:80 -- true
	expect_output_has "$m: the error names the value and the rule" "--publish 0:80: expected [ADDR:]HOSTPORT:PORT"
done

finish
