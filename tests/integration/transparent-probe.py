#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-or-later
"""transparent-probe.py CASE [ARGS] - one client case of transparent.sh, run
INSIDE a sandbox, ignoring the proxy (no proxy variables are read). Prints
one line "CASE: RESULT ..." and exits 0 when the client saw what the case
is named for, 1 otherwise. Every socket has a timeout (a hang guard, not a
bound: the assertions are on the kind of outcome, never on time).

A case whose name ends in "6" (resolve6, raw-http6, reset6, refused6,
sni6, udp6) is the same case over IPv6 only: names are looked up for AAAA
and every socket is AF_INET6 (transparent6.sh)."""
import socket
import ssl
import sys
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
    msg = b"transparent-echo-" + b"x" * 100000
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
