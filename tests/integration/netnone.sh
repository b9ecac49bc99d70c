#!/bin/bash
# --net none: only lo exists, loopback works, everything else fails at once.
# Fails if: the sandbox has another link, a connect off loopback succeeds or
# hangs, or loopback itself is broken.
. "${JR_TOP_SRCDIR:-$(dirname "$0")/../..}/tests/lib.sh"
jr_require_sandbox
command -v python3 >/dev/null || skip "python3 is needed"

for m in $(jr_modes); do
	expect_status 0 "$m: links" jr "$m" --net none -- cat /proc/net/dev
	links=$(printf '%s\n' "$OUT" | awk -F: 'NR>2 {gsub(/ /,"",$1); print $1}' | tr '\n' ' ')
	if [ "$links" = "lo " ]; then ok "$m: only lo in the sandbox"; else fail "$m: links: $links"; fi

	# Off-loopback TCP and UDP fail immediately (no route; the nft output
	# policy is drop behind that). The addresses are documentation ranges
	# inside the sandbox's empty netns: nothing ever leaves it.
	expect_status 0 "$m: off-loopback connects fail at once" jr "$m" --net none -- python3 -c '
import socket, time, errno
for fam, addr in ((socket.AF_INET, ("192.0.2.1", 80)), (socket.AF_INET6, ("2001:db8::1", 80))):
    s = socket.socket(fam, socket.SOCK_STREAM)
    s.settimeout(5)
    t = time.monotonic()
    try:
        s.connect(addr)
        print("CONNECTED", addr); raise SystemExit(1)
    except OSError as e:
        dt = time.monotonic() - t
        print("refused", addr, errno.errorcode.get(e.errno, e.errno), "%.3f" % dt)
        if dt > 1.0: raise SystemExit(2)
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
	# invisible inside.
	name="jailrun-test-$m-$$"
	python3 -c '
import socket, sys, time
s = socket.socket(socket.AF_UNIX); s.bind("\0" + sys.argv[1]); s.listen(1); time.sleep(20)
' "$name" &
lpid=$!
	sleep 0.3
	expect_status 0 "$m: host abstract socket" jr "$m" --net none -- python3 -c '
import socket, sys
s = socket.socket(socket.AF_UNIX)
try:
    s.connect("\0" + sys.argv[1]); print("REACHED")
except OSError as e:
    print("unreachable", e.strerror)
' "$name"
	kill "$lpid" 2>/dev/null || true
	wait "$lpid" 2>/dev/null || true
	expect_output_has "$m: host abstract unix socket unreachable" "unreachable"
done

finish
