#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-or-later
"""transparent-probe.py CASE [ARGS] - one client case of transparent.sh, run
INSIDE a sandbox, ignoring the proxy (no proxy variables are read). Prints
one line "CASE: RESULT ..." and exits 0 when the client saw what the case
is named for, 1 otherwise. Every socket has a timeout (a hang guard, not a
bound: the assertions are on the kind of outcome, never on time).

A case whose name ends in "6" (resolve6, raw-http6, reset6, refused6,
sni6, udp6) is the same case over IPv6 only: names are looked up for AAAA
and every socket is AF_INET6 (transparent6.sh).

One case is not a client: "late-server" runs OUTSIDE, on the lab host, and
serves the late-* and banner-* cases (see there)."""
import os
import socket
import socketserver
import ssl
import sys
import threading
import time

T = 10.0


def out(ok, msg):
    print("%s: %s" % (sys.argv[1], msg))
    sys.exit(0 if ok else 1)


def kind(e):
    return type(e).__name__


FAMILY = socket.AF_INET6 if sys.argv[1].endswith("6") else socket.AF_INET


def synthetic(name):
    if FAMILY == socket.AF_INET:
        return socket.gethostbyname(name)
    return socket.getaddrinfo(name, None, socket.AF_INET6, socket.SOCK_STREAM)[0][4][0]


def connect(addr, port):
    """A TCP connection to ADDR (a name or a literal) in FAMILY only; for
    IPv4 as socket.create_connection does it (the cases as users write them)."""
    if FAMILY == socket.AF_INET:
        return socket.create_connection((addr, port), timeout=T)
    ai = socket.getaddrinfo(addr, port, socket.AF_INET6, socket.SOCK_STREAM)[0]
    s = socket.socket(ai[0], ai[1])
    s.settimeout(T)
    try:
        s.connect(ai[4])
    except BaseException:
        s.close()
        raise
    return s


def http_get(addr, port, host, path):
    s = connect(addr, port)
    s.sendall(("GET %s HTTP/1.1\r\nHost: %s\r\nConnection: close\r\n\r\n" % (path, host)).encode())
    data = b""
    while True:
        c = s.recv(65536)
        if not c:
            break
        data += c
    s.close()
    return data.decode(errors="replace")


def read_all(s):
    """Read S until EOF; a reset after some bytes ends it too."""
    data = b""
    while True:
        try:
            c = s.recv(65536)
        except (ConnectionResetError, BrokenPipeError):
            break
        if not c:
            break
        data += c
    return data


def read_answer(s):
    """Read S until EOF or until one whole response (with Content-Length)
    is in: a kept-alive connection that answered does not end."""
    data = b""
    while True:
        head, sep, body = data.partition(b"\r\n\r\n")
        if sep:
            length = [int(l.split(b":", 1)[1]) for l in head.split(b"\r\n")[1:]
                      if l.lower().startswith(b"content-length:")]
            if length and len(body) >= length[0]:
                return data
        try:
            c = s.recv(65536)
        except (ConnectionResetError, BrokenPipeError):
            return data
        if not c:
            return data
        data += c


def read_response(s):
    """One HTTP/1.1 response with Content-Length from S: (head, body)."""
    data = b""
    while b"\r\n\r\n" not in data:
        c = s.recv(65536)
        if not c:
            raise ConnectionError("EOF inside the response head: %r" % data)
        data += c
    head, _, body = data.partition(b"\r\n\r\n")
    length = 0
    for line in head.split(b"\r\n")[1:]:
        k, _, v = line.partition(b":")
        if k.strip().lower() == b"content-length":
            length = int(v)
    while len(body) < length:
        c = s.recv(65536)
        if not c:
            raise ConnectionError("EOF inside the response body")
        body += c
    return head.decode(errors="replace"), body.decode(errors="replace")


def deny_of(text):
    return [l.strip() for l in text.splitlines() if l.lower().startswith("x-jailrun-deny")]


def refused_403(data, reason):
    """DATA (a whole answer) is our 403 with X-Jailrun-Deny: REASON."""
    text = data.decode(errors="replace")
    first = text.splitlines()[0] if text else "empty"
    return (first.startswith("HTTP/1.1 403") and deny_of(text) == ["X-Jailrun-Deny: " + reason],
            "%s %s" % (first, deny_of(text)))


def accepts(log):
    with open(log) as f:
        return len(f.read().splitlines())


def wait_accepted(log, before):
    """The late-server logged one more connection than BEFORE: the relay
    stopped waiting for the client's first bytes and connected. A wait on
    that event; the bound is a hang guard only."""
    end = time.monotonic() + 60
    while accepts(log) <= before:
        if time.monotonic() > end:
            out(False, "the relay never connected to the late server")
        time.sleep(0.02)


def late_server(addr, ports, log, ready):
    """Serve ADDR:PORTS[0] silent and ADDR:PORTS[1] with a banner first
    (a server that speaks first, as SMTP): each accepted connection is one
    line in LOG. Then an HTTP request is answered "served-host: HOST" (its
    Host) and anything else echoed until EOF."""
    lock = threading.Lock()

    class H(socketserver.BaseRequestHandler):
        def handle(self):
            with lock, open(log, "a") as f:
                f.write("accepted %d\n" % self.server.server_address[1])
            s = self.request
            s.settimeout(T * 6)
            if self.server.banner:
                s.sendall(b"220 late-server\r\n")
            data = b""
            while b"\n" not in data:
                c = s.recv(65536)
                if not c:
                    return
                data += c
            if b" HTTP/1." not in data.split(b"\n")[0]:
                while data:
                    s.sendall(data)
                    data = s.recv(65536)
                return
            while b"\r\n\r\n" not in data:
                c = s.recv(65536)
                if not c:
                    return
                data += c
            host = "-"
            for line in data.split(b"\r\n\r\n")[0].split(b"\r\n")[1:]:
                k, _, v = line.partition(b":")
                if k.strip().lower() == b"host":
                    host = v.strip().decode(errors="replace")
            body = ("served-host: %s\n" % host).encode()
            s.sendall(b"HTTP/1.1 200 OK\r\nContent-Length: %d\r\nConnection: close\r\n\r\n"
                      % len(body) + body)

    class S(socketserver.ThreadingMixIn, socketserver.TCPServer):
        allow_reuse_address = True
        daemon_threads = True

    servers = []
    for port, banner in ((ports[0], False), (ports[1], True)):
        srv = S((addr, port), H)
        srv.banner = banner
        servers.append(srv)
        threading.Thread(target=srv.serve_forever, daemon=True).start()
    with open(ready, "w") as f:
        f.write("ready\n")
    threading.Event().wait()


def expect_reset(fn):
    """fn() must end in a reset (or refusal) of the connection: name it."""
    try:
        r = fn()
    except (ConnectionResetError, ConnectionRefusedError, BrokenPipeError) as e:
        return True, kind(e)
    except ssl.SSLError as e:
        # A reset during the handshake shows as an SSL EOF/syscall error.
        return "EOF" in str(e) or "reset" in str(e).lower(), "%s %s" % (kind(e), e)
    except OSError as e:
        return False, "%s %s" % (kind(e), e)
    return r == b"" or r == "", "got %r" % (r,)


case = sys.argv[1]
if FAMILY == socket.AF_INET6 and case not in ("resolve6", "raw-http6", "reset6", "refused6",
                                              "sni6", "udp6"):
    out(False, "unknown case")
case = case[:-1] if FAMILY == socket.AF_INET6 else case
if case == "resolve" and FAMILY == socket.AF_INET6:
    # every AAAA answer: exactly one, in the IPv6 pool fd6a:7272:6970::/64
    import ipaddress
    got = sorted({ai[4][0] for ai in socket.getaddrinfo(sys.argv[2], 80, socket.AF_INET6)})
    pool = ipaddress.ip_network("fd6a:7272:6970::/64")
    out(len(got) == 1 and ipaddress.ip_address(got[0]) in pool, "%s -> %s" % (sys.argv[2], got))
elif case == "resolve":
    a = synthetic(sys.argv[2])
    out(a.startswith("198.18.") or a.startswith("198.19."), "%s -> %s" % (sys.argv[2], a))
elif case == "raw-http":
    # A plain socket to allowed.test:80, as socket.create_connection does.
    body = http_get("allowed.test", 80, "allowed.test", "/t-raw")
    out("served-by: allowed.test" in body, body.splitlines()[0] if body else "empty")
elif case == "echo":
    # A first line, as line protocols send: a first message that is one
    # long token without end could be an HTTP method still coming, which
    # the relay cannot tell from a request (a 400 at 64 KiB).
    msg = b"transparent-echo\n" + b"x" * 100000
    s = socket.create_connection(("raw.test", int(sys.argv[2])), timeout=T)
    s.sendall(msg)
    s.shutdown(socket.SHUT_WR)
    got = b""
    while True:
        c = s.recv(65536)
        if not c:
            break
        got += c
    out(got == msg, "echoed %d of %d bytes" % (len(got), len(msg)))
elif case == "reset":
    # connect to ADDR PORT and send a request: the relay must reset it.
    addr, port = sys.argv[2], int(sys.argv[3])

    def f():
        s = connect(addr, port)
        s.sendall(b"hello\r\n")
        return s.recv(100)
    ok, how = expect_reset(f)
    out(ok, "%s:%d %s" % (addr, port, how))
elif case == "refused":
    # the worker's nft must answer the SYN with a reset: ECONNREFUSED
    addr, port = sys.argv[2], int(sys.argv[3])
    try:
        connect(addr, port).close()
        out(False, "%s:%d connected" % (addr, port))
    except ConnectionRefusedError as e:
        out(True, "%s:%d %s" % (addr, port, kind(e)))
    except OSError as e:
        out(False, "%s:%d %s %s" % (addr, port, kind(e), e))
elif case == "sni":
    # TLS to NAME's synthetic address with SNI OTHER, CA file
    name, other, ca = sys.argv[2], sys.argv[3], sys.argv[4]

    def f():
        ctx = ssl.create_default_context(cafile=ca)
        s = connect(synthetic(name), 443)
        t = ctx.wrap_socket(s, server_hostname=other)
        t.sendall(b"GET / HTTP/1.1\r\nHost: " + other.encode() + b"\r\n\r\n")
        return t.recv(100)
    ok, how = expect_reset(f)
    out(ok, "SNI %s to %s: %s" % (other, name, how))
elif case == "host":
    # HTTP to NAME's synthetic address with Host: OTHER
    name, other = sys.argv[2], sys.argv[3]
    body = http_get(synthetic(name), 80, other, "/t-host")
    first = body.splitlines()[0] if body else "empty"
    deny = [l for l in body.splitlines() if l.lower().startswith("x-jailrun-deny")]
    out(first.startswith("HTTP/1.1 403") and deny == ["X-Jailrun-Deny: host-mismatch"],
        "%s %s" % (first, deny))
elif case == "keepalive":
    # Two requests on one kept-alive connection to NAME's synthetic
    # address, the second with Host: OTHER. The second must never be
    # served: it may be answered 403 host-mismatch, or the connection may
    # end unanswered (one request per captured connection); a client then
    # sends it again on a new connection (RFC 9112 9.3.1), where it must
    # get the 403.
    name, other = sys.argv[2], sys.argv[3]
    s = connect(synthetic(name), 80)
    s.sendall(("GET /t-ka1 HTTP/1.1\r\nHost: %s\r\n\r\n" % name).encode())
    head, body = read_response(s)
    if not head.startswith("HTTP/1.1 200") or ("served-by: %s\n" % name) not in body:
        out(False, "the first request: %s %r" % (head.splitlines()[0], body[:80]))
    try:
        s.sendall(("GET /t-ka2 HTTP/1.1\r\nHost: %s\r\n\r\n" % other).encode())
        second = read_answer(s)
    except (ConnectionResetError, BrokenPipeError):
        second = b""
    s.close()
    if b"served-by" in second or b"HTTP/1.1 200" in second:
        out(False, "the second request was served: %r" % second[:200])
    if second:
        ok, how = refused_403(second, "host-mismatch")
        out(ok, "first 200; second on the same connection: %s" % how)
    again = http_get(synthetic(name), 80, other, "/t-ka2")
    ok, how = refused_403(again.encode(), "host-mismatch")
    out(ok, "first 200; second: the connection ended unanswered; again on a new one: %s" % how)
elif case in ("late-host", "late-echo"):
    # ADDR PORT LOG [HOST]: connect to the late-server, send nothing until
    # the relay has connected to it (LOG grows: the relay's wait for the
    # first bytes is over), then an HTTP request with Host: HOST (which
    # must get 403 host-mismatch unless HOST is ADDR: then served), or
    # for late-echo a line of another protocol (echoed).
    addr, port, log = sys.argv[2], int(sys.argv[3]), sys.argv[4]
    before = accepts(log)
    s = connect(addr, port)
    wait_accepted(log, before)
    if case == "late-echo":
        s.sendall(b"hello late\n")
        s.shutdown(socket.SHUT_WR)
        got = read_all(s)
        out(got == b"hello late\n", "late line echoed: %r" % got)
    host = sys.argv[5]
    s.sendall(("GET /t-late HTTP/1.1\r\nHost: %s\r\nConnection: close\r\n\r\n" % host).encode())
    got = read_all(s)
    if host == addr:
        out(got.startswith(b"HTTP/1.1 200") and ("served-host: %s" % host).encode() in got,
            "late request for %s: %r" % (host, got[:120]))
    if b"served-host" in got:
        out(False, "a late request for %s was served: %r" % (host, got[:200]))
    ok, how = refused_403(got, "host-mismatch")
    out(ok, "late request for %s: %s" % (host, how))
elif case in ("banner-host", "banner-echo"):
    # ADDR PORT [HOST]: the late-server's banner port speaks first; after
    # its banner, an HTTP request with Host: HOST must get 403
    # host-mismatch (banner-host), and a line of another protocol is
    # echoed (banner-echo).
    addr, port = sys.argv[2], int(sys.argv[3])
    s = connect(addr, port)
    banner = b""
    while not banner.endswith(b"\r\n"):
        c = s.recv(100)
        if not c:
            out(False, "no banner: %r" % banner)
        banner += c
    if banner != b"220 late-server\r\n":
        out(False, "banner %r" % banner)
    if case == "banner-echo":
        s.sendall(b"EHLO probe.test\r\n")
        s.shutdown(socket.SHUT_WR)
        got = read_all(s)
        out(got == b"EHLO probe.test\r\n", "after the banner, echoed: %r" % got)
    host = sys.argv[4]
    s.sendall(("GET /t-banner HTTP/1.1\r\nHost: %s\r\nConnection: close\r\n\r\n" % host).encode())
    got = read_all(s)
    if b"served-host" in got:
        out(False, "after the banner, a request for %s was served: %r" % (host, got[:200]))
    ok, how = refused_403(got, "host-mismatch")
    out(ok, "after the banner, a request for %s: %s" % (host, how))
elif case == "late-server":
    # ADDR PORT BANNER-PORT LOG READY: runs on the lab host, not inside.
    late_server(sys.argv[2], (int(sys.argv[3]), int(sys.argv[4])), sys.argv[5], sys.argv[6])
elif case == "udp":
    # UDP 443 (QUIC) to NAME's synthetic address: refused at once with
    # ICMP port-unreachable, seen as ECONNREFUSED on a connected socket.
    addr = synthetic(sys.argv[2])
    s = socket.socket(FAMILY, socket.SOCK_DGRAM)
    s.settimeout(T)
    s.connect((addr, 443))
    t0 = time.monotonic()
    try:
        s.send(b"\xc0quic-initial")
        s.recv(100)
        out(False, "an answer came")
    except ConnectionRefusedError as e:
        out(True, "%s after %.3f ms" % (kind(e), (time.monotonic() - t0) * 1000))
    except OSError as e:
        out(False, "%s %s after %.3f ms" % (kind(e), e, (time.monotonic() - t0) * 1000))
else:
    out(False, "unknown case")
