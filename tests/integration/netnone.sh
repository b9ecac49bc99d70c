#!/bin/bash
# --net none: only lo exists, loopback works, everything else fails at once.
# Fails if: the sandbox has another link, a connect off loopback succeeds,
# hangs or times out instead of being refused, loopback itself is broken, or
# a host abstract unix socket (shown reachable outside) is reachable inside.
. "${JR_TOP_SRCDIR:-$(dirname "$0")/../..}/tests/lib.sh"
jr_require_sandbox
command -v python3 >/dev/null || skip "python3 is needed"
# The unprivileged user may not reach a python3 under root's home (pyenv).
if [ -x /usr/bin/python3 ]; then PY=/usr/bin/python3; else PY=$(command -v python3); fi

for m in $(jr_modes); do
	expect_status 0 "$m: links" jr "$m" --net none -- cat /proc/net/dev
	links=$(printf '%s\n' "$OUT" | awk -F: 'NR>2 {gsub(/ /,"",$1); print $1}' | tr '\n' ' ')
	if [ "$links" = "lo " ]; then ok "$m: only lo in the sandbox"; else fail "$m: links: $links"; fi

	# Off-loopback TCP and UDP fail immediately (no route; the nft output
	# policy is drop behind that). The addresses are documentation ranges
	# inside the sandbox's empty netns: nothing ever leaves it.
	# The kind of refusal is asserted, not how fast it came: an error the
	# kernel gives at once (no route, rejected), never a timeout. The 5 s
	# socket timeout only guards against hanging; the time is printed.
	expect_status 0 "$m: off-loopback connects fail at once" jr "$m" --net none -- python3 -c '
import socket, time, errno
fast = (errno.ENETUNREACH, errno.EHOSTUNREACH, errno.ECONNREFUSED, errno.EPERM, errno.EACCES)
for fam, addr in ((socket.AF_INET, ("192.0.2.1", 80)), (socket.AF_INET6, ("2001:db8::1", 80))):
    s = socket.socket(fam, socket.SOCK_STREAM)
    s.settimeout(5)
    t = time.monotonic()
    try:
        s.connect(addr)
        print("CONNECTED", addr); raise SystemExit(1)
    except OSError as e:
        dt = time.monotonic() - t
        if e.errno not in fast:
            print("NOT-REFUSED", addr, repr(e)); raise SystemExit(2)
        print("refused", addr, errno.errorcode[e.errno], "(in %.3f s, information only)" % dt)
u = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
try:
    u.sendto(b"x", ("192.0.2.1", 53)); print("UDP SENT"); raise SystemExit(3)
except OSError as e:
    print("udp refused", errno.errorcode.get(e.errno, e.errno))
'
	expect_output_has "$m: IPv4 connect refused" "refused ('192.0.2.1', 80)"
	expect_output_has "$m: IPv6 connect refused" "refused ('2001:db8::1', 80)"
	expect_output_has "$m: UDP send refused" "udp refused"

	# Loopback works: a server and a client inside the sandbox.
	expect_status 0 "$m: loopback TCP works" jr "$m" --net none -- python3 -c '
import socket, threading
srv = socket.socket(); srv.bind(("127.0.0.1", 0)); srv.listen(1)
port = srv.getsockname()[1]
def serve():
    c, _ = srv.accept(); c.sendall(b"hello-over-lo"); c.close()
threading.Thread(target=serve, daemon=True).start()
c = socket.create_connection(("127.0.0.1", port), timeout=5)
print(c.recv(100).decode())
'
	expect_output_has "$m: loopback payload arrived" "hello-over-lo"

	# Abstract unix sockets are per network namespace: a host listener is
	# invisible inside. The listener says when it listens (a ready file);
	# a client outside the sandbox, as the same user, must reach it first
	# (the positive control), then the same client inside must not.
	name="jailrun-test-$m-$$"
	ready="$JR_W/abstract-ready-$m"
	stop="$JR_W/abstract-stop-$m"
	rm -f "$ready" "$stop"
	python3 -c '
import os, socket, sys, time
s = socket.socket(socket.AF_UNIX); s.bind("\0" + sys.argv[1]); s.listen(8)
open(sys.argv[2], "w").close()
s.settimeout(0.2)
end = time.monotonic() + 120           # a hang guard; the test stops it
while time.monotonic() < end and not os.path.exists(sys.argv[3]):
    try:
        c, _ = s.accept()
    except socket.timeout:
        continue
    c.sendall(b"host-listener"); c.close()
' "$name" "$ready" "$stop" &
	lpid=$!
	client='
import errno, socket, sys
s = socket.socket(socket.AF_UNIX); s.settimeout(10)
try:
    s.connect("\0" + sys.argv[1]); print("REACHED", s.recv(100).decode())
except OSError as e:
    print("unreachable", errno.errorcode.get(e.errno, repr(e)))
'
	if wait_until 30 test -e "$ready"; then
		expect_status 0 "$m: host abstract socket, from outside" as_mode "$m" "$PY" -c "$client" "$name"
		expect_output_has "$m: the host listener answers outside the sandbox" "REACHED host-listener"
		expect_status 0 "$m: host abstract socket, from inside" jr "$m" --net none -- python3 -c "$client" "$name"
		expect_output_has "$m: host abstract unix socket unreachable (ECONNREFUSED)" "unreachable ECONNREFUSED"
	else
		fail "$m: the host listener never became ready"
	fi
	touch "$stop"
	kill "$lpid" 2>/dev/null || true
	wait "$lpid" 2>/dev/null || true
done

finish
