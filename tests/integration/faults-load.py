#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-or-later
"""faults-load.py - clients that faults.sh runs inside a jailrun sandbox.

  limit HOLD           hold HOLD idle proxy connections, then one request
                       with http.client: print its status, deny header and
                       body, read by Content-Length (a short body raises)
  fds K WAIT_FIFO GO_FIFO
                       open K idle proxy connections (more than the runner
                       has descriptors for), say so on WAIT_FIFO, wait for
                       GO_FIFO, then wait until every connection was closed
                       by the relay: refused at once with a 503, or closed
                       by its header timeout; say so on WAIT_FIFO, wait for
                       GO_FIFO, then make one normal request
  attack SLOW FLOOD WINDOW GOOD WAIT_FIFO GO_FIFO
                       SLOW slowloris clients (a partial head, a header line
                       now and then, never finished) and a flood of FLOOD
                       connections (WINDOW at once, each a request for
                       denied.test read to the end), while a well-behaved
                       client makes at least GOOD requests for allowed.test
                       and keeps going until the flood is over. Prints the
                       well-behaved client's latencies (information only)
                       and every outcome; exit 1 if a good request failed.
  tunnels N SIZE       open N CONNECT tunnels to allowed.test:80 and keep
                       them all open; then through every one at once, POST
                       SIZE bytes of the lab pattern and GET /bytes/SIZE,
                       read slowly, round robin. Prints how many opened and
                       how many moved every byte both ways intact (the
                       server's sha256 of the upload, the pattern of the
                       download); exit 1 if any did not.

Every wait is bounded: an alarm ends the process after 120 s.
"""

import http.client
import os
import selectors
import signal
import socket
import sys
import time

PROXY = ("100.64.77.1", 3128)
signal.alarm(120)


def say(fifo, what):
    with open(fifo, "w") as f:       # blocks until faults.sh reads
        f.write(what + "\n")


def wait_go(fifo):
    with open(fifo) as f:            # blocks until faults.sh writes
        f.read()


def read_all(s):
    data = b""
    while True:
        try:
            b = s.recv(65536)
        except ConnectionResetError:
            return data, "reset"
        if not b:
            return data, "eof"
        data += b


def complete_503(data):
    """A whole 503: head, then exactly Content-Length bytes of body."""
    head, sep, body = data.partition(b"\r\n\r\n")
    if not sep or not head.startswith(b"HTTP/1.1 503 "):
        return False
    for line in head.split(b"\r\n")[1:]:
        k, _, v = line.partition(b":")
        if k.strip().lower() == b"content-length":
            return int(v) == len(body)
    return False


def cmd_limit(hold):
    idle = [socket.create_connection(PROXY, timeout=10) for _ in range(hold)]
    c = http.client.HTTPConnection(*PROXY, timeout=10)
    c.request("GET", "http://allowed.test/limit")
    r = c.getresponse()
    body = r.read()                  # IncompleteRead on a short body
    print("status", r.status)
    print("deny", r.getheader("X-Jailrun-Deny"))
    print("body", body.decode().rstrip("\n"))
    print("held", len(idle))
    return 0


def cmd_fds(k, wait_fifo, go_fifo):
    conns = [socket.create_connection(PROXY, timeout=30) for _ in range(k)]
    say(wait_fifo, "opened %d" % k)
    wait_go(go_fifo)
    refused = closed = other = 0
    for s in conns:                  # the alarm bounds this
        data, how = read_all(s)
        if complete_503(data) and b"X-Jailrun-Deny: out-of-fds" in data:
            refused += 1
        elif not data:
            closed += 1
        else:
            other += 1
            print("unexpected answer (%s): %r" % (how, data[:200]))
        s.close()
    print("refused-503 %d closed-by-timeout %d other %d" % (refused, closed, other))
    say(wait_fifo, "released")
    wait_go(go_fifo)
    c = http.client.HTTPConnection(*PROXY, timeout=10)
    c.request("GET", "http://allowed.test/after-fds")
    r = c.getresponse()
    print("after:", r.status, r.read().decode().splitlines()[0])
    return 0


def connect_to_proxy(sel, data):
    """Start a non-blocking connect to the proxy; sel reports it writable."""
    s = socket.socket()
    s.setblocking(False)
    try:
        s.connect(PROXY)
    except BlockingIOError:
        pass
    sel.register(s, selectors.EVENT_WRITE, data)


def slowloris(n, ready_w):
    """n connections that never finish their head; reopened when closed."""
    sel = selectors.DefaultSelector()
    opened = closed = 0

    def open_one():
        nonlocal opened
        connect_to_proxy(sel, "connecting")
        opened += 1

    for _ in range(n):
        open_one()
    ready = False
    last_drip = time.monotonic()
    while True:
        for key, _ in sel.select(timeout=0.5):
            s = key.fileobj
            if key.data == "connecting":
                if s.getsockopt(socket.SOL_SOCKET, socket.SO_ERROR):
                    sel.unregister(s)
                    s.close()
                    open_one()
                    continue
                try:
                    s.send(b"GET http://allowed.test/slow HTTP/1.1\r\nHost: allowed.test\r\n")
                except OSError:
                    pass
                sel.modify(s, selectors.EVENT_READ, "open")
            else:
                try:
                    b = s.recv(4096)
                except OSError:
                    b = b""
                if not b:            # the relay's header timeout
                    sel.unregister(s)
                    s.close()
                    closed += 1
                    open_one()
        live = sum(1 for k in sel.get_map().values() if k.data == "open")
        if not ready and live >= n:
            ready = True
            os.write(ready_w, b"ready %d\n" % live)
        now = time.monotonic()
        if now - last_drip >= 1.0:   # attack pacing: one header line a second
            last_drip = now
            for k in list(sel.get_map().values()):
                if k.data == "open":
                    try:
                        k.fileobj.send(b"X-Slow: 1\r\n")
                    except OSError:
                        pass
        if os.getppid() == 1:
            os._exit(0)


def flood(total, window, out_w):
    sel = selectors.DefaultSelector()
    started = done = 0
    outcomes = {}
    req = b"GET http://denied.test/flood HTTP/1.1\r\nHost: denied.test\r\n\r\n"

    def start():
        nonlocal started
        connect_to_proxy(sel, [b""])
        started += 1

    def finish(s, what):
        nonlocal done
        sel.unregister(s)
        s.close()
        done += 1
        outcomes[what] = outcomes.get(what, 0) + 1
        if started < total:
            start()

    for _ in range(min(window, total)):
        start()
    os.write(out_w, b"flooding\n")
    while done < total:
        for key, ev in sel.select(timeout=5):
            s = key.fileobj
            if ev & selectors.EVENT_WRITE:
                try:
                    s.send(req)
                    sel.modify(s, selectors.EVENT_READ, key.data)
                except OSError as e:
                    finish(s, "error-" + type(e).__name__)
                continue
            try:
                b = s.recv(65536)
            except OSError as e:
                finish(s, "error-" + type(e).__name__)
                continue
            if b:
                key.data[0] += b
                continue
            head = key.data[0].split(b"\r\n", 1)[0].decode(errors="replace")
            finish(s, head.split(" ")[1] if head.startswith("HTTP/") else "empty")
    os.write(out_w, ("flood %d: %s\n" % (done, " ".join(
        "%s=%d" % kv for kv in sorted(outcomes.items())))).encode())
    os._exit(0)


def child(fn, *args):
    r, w = os.pipe()
    pid = os.fork()
    if pid == 0:
        os.close(r)
        signal.alarm(120)            # not inherited across fork
        try:
            fn(*args, w)
        finally:
            os._exit(1)
    os.close(w)
    return pid, os.fdopen(r)


def good_request(lat):
    t = time.monotonic()
    c = http.client.HTTPConnection(*PROXY, timeout=10)
    try:
        c.request("GET", "http://allowed.test/good")
        r = c.getresponse()
        body = r.read()
        ok = r.status == 200 and b"served-by: allowed.test" in body
        err = None if ok else "status %d" % r.status
    except (OSError, http.client.HTTPException) as e:
        ok, err = False, "%s: %s" % (type(e).__name__, e)
    finally:
        c.close()
    lat.append((time.monotonic() - t) * 1000)
    return ok, err


def cmd_attack(slow, total, window, good, wait_fifo, go_fifo):
    spid, sout = child(slowloris, slow)
    print("slowloris", sout.readline().strip())
    # One request before the flood: the first lookup and upstream connection
    # are not what is measured.
    ok, err = good_request([])
    if not ok:
        print("warm-up request failed:", err)
        return 1
    fpid, fout = child(flood, total, window)
    print("flood", fout.readline().strip())
    lat, fails, during = [], [], 0
    flood_running = True
    while True:
        ok, err = good_request(lat)
        if not ok:
            fails.append(err)
        if flood_running and os.waitpid(fpid, os.WNOHANG)[0] == fpid:
            flood_running = False
        if flood_running:
            during += 1
        if not flood_running and len(lat) >= good:
            break
    print(fout.read().strip())
    say(wait_fifo, "attacked")       # faults.sh reads the runner's figures now
    wait_go(go_fifo)
    os.kill(spid, signal.SIGKILL)
    os.waitpid(spid, 0)
    lat.sort()
    p = lambda q: lat[min(len(lat) - 1, int(q * len(lat)))]
    print("good requests: %d (%d while the flood ran), failed %d"
          % (len(lat), during, len(fails)))
    print("good latency ms: p50 %.1f p99 %.1f max %.1f" % (p(0.5), p(0.99), lat[-1]))
    for e in fails[:5]:
        print("good request failed:", e)
    return 1 if fails else 0


def pattern(off, n):
    return bytes((off + i) % 251 for i in range(n))


def cmd_tunnels(n, size):
    """N tunnels at once through a runner whose descriptors fit their
    sockets but not a pipe pair each as well: every byte both ways."""
    import hashlib
    tunnels = []
    for _ in range(n):
        s = socket.socket()
        # A small receive window: the relay's sends to us fill up, so its
        # pipes hold bytes and it runs out of descriptors for more pipes.
        s.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, 8192)
        s.settimeout(30)
        s.connect(PROXY)
        s.sendall(b"CONNECT allowed.test:80 HTTP/1.1\r\nHost: allowed.test:80\r\n\r\n")
        head = b""
        while b"\r\n\r\n" not in head:
            b = s.recv(1)            # nothing past the head is ours to take
            if not b:
                break
            head += b
        if not head.startswith(b"HTTP/1.1 200"):
            print("tunnel %d refused: %r" % (len(tunnels), head[:120]))
            break
        tunnels.append(s)
    print("tunnels open %d of %d" % (len(tunnels), n))
    body = pattern(0, size)
    want_sha = hashlib.sha256(body).hexdigest()
    req = (b"POST /upload HTTP/1.1\r\nHost: allowed.test\r\nContent-Length: %d\r\n\r\n" % size
           + body + b"GET /bytes/%d HTTP/1.1\r\nHost: allowed.test\r\nConnection: close\r\n\r\n" % size)
    sel = selectors.DefaultSelector()
    state = {}
    for s in tunnels:
        s.setblocking(False)
        state[s] = [req, b""]
        sel.register(s, selectors.EVENT_READ | selectors.EVENT_WRITE)
    while state:
        events = sel.select(30)
        if not events:
            print("tunnels: no progress for 30 s")
            return 1
        for key, ev in events:
            s = key.fileobj
            out, got = state[s]
            if ev & selectors.EVENT_WRITE and out:
                try:
                    k = s.send(out[:65536])
                except BlockingIOError:
                    k = 0
                out = out[k:]
                if not out:
                    sel.modify(s, selectors.EVENT_READ)
            if ev & selectors.EVENT_READ:
                try:
                    b = s.recv(16384)    # slowly: pipes fill up meanwhile
                except BlockingIOError:
                    b = None
                if b == b"":
                    sel.unregister(s)
                    del state[s]
                    results.append(got)
                    continue
                if b:
                    got += b
            state[s] = [out, got]
    good, expect = 0, pattern(0, size)
    for got in results:
        first, _, rest = got.partition(b"\r\n\r\n")
        up = b"received-sha256: " + want_sha.encode() in rest
        second = rest.find(b"HTTP/1.1 200")
        down = second >= 0 and rest[second:].partition(b"\r\n\r\n")[2] == expect
        good += up and down
        if not (up and down):
            print("tunnel damaged: upload %s, download %s, %d bytes" % (up, down, len(got)))
    print("tunnels intact %d of %d" % (good, n))
    return 0 if good == n else 1


results = []


def main():
    a = sys.argv[1:]
    if a[0] == "limit":
        return cmd_limit(int(a[1]))
    if a[0] == "fds":
        return cmd_fds(int(a[1]), a[2], a[3])
    if a[0] == "tunnels":
        return cmd_tunnels(int(a[1]), int(a[2]))
    if a[0] == "attack":
        return cmd_attack(int(a[1]), int(a[2]), int(a[3]), int(a[4]), a[5], a[6])
    return 2


if __name__ == "__main__":
    sys.exit(main())
