#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-or-later
"""servers.py - the services of a jailrun test lab (Python 3 standard library only).

Sub-commands (all bounded in time):

  serve --state=DIR --role=net|host
        Run every server of one side of a lab, in the network namespace this
        process was started in (the `lab` tool starts it with `ip netns exec`):
          net:  the lab internet: HTTP :80, HTTPS :443 and :8443 for each
                web name (8443: a bound secret's host on another port),
                TCP+UDP echo :7 and TCP echo :9000 (this one logged in
                web.log), DNS :53 udp+tcp, metadata HTTP :80
          host: the lab host's loopback-only HTTP service on 127.0.0.1:8080,
                and HTTP :8081 bound to 0.0.0.0 and [::] (every lab host
                address)
        Addresses come from DIR/plan (written by `lab up`). Exits by itself
        when DIR/alive disappears (`lab down`) or after --max-lifetime seconds.
        The DNS server (UDP and TCP) stops for good when DIR/dns-stop
        appears; DIR/dns-stopped says it has (its ports are closed then).
  probe --state=DIR [--deadline=S]
        From the lab host: retry every service until all answer or the
        deadline passes; print what failed. Exit 0 if all answered.
  dns NAME [TYPE] [--server=ADDR] [--tcp]
        A tiny `dig`: print the answers (one address per line) or the rcode.
  udp ADDR PORT MESSAGE
        Send MESSAGE in one datagram, print the reply (2 s timeout).
  tcp ADDR PORT MESSAGE
        Connect, send MESSAGE, half-close, print everything received.
  pattern-sha256 N
        The sha256 of the first N bytes served by GET /bytes/N.

Web endpoints (every web server, HTTP and HTTPS):
  GET /anything      text body naming the server ("served-by: NAME"), the
                     scheme, method, path, Host header and client address
  GET /bytes/N       N bytes of the lab pattern: byte at offset k is k % 251
                     (streamed; N up to 64 GiB)
  GET /delay/S       the identity body after S seconds (S <= 60)
  GET /status/C      the identity body with HTTP status C
  GET /reset/N       announces 2N bytes, sends N bytes of the pattern, then
                     resets the connection (SO_LINGER 0): an upstream that
                     dies in the middle of a transfer
  POST|PUT /any      reads the body (Content-Length or chunked) and answers
                     with its length and sha256
"""

import argparse
import hashlib
import os
import re
import socket
import socketserver
import ssl
import struct
import sys
import threading
import time
from http.server import BaseHTTPRequestHandler

PATTERN_PERIOD = 251
CHUNK = PATTERN_PERIOD * 256          # a chunk always starts at phase 0
_PATTERN = bytes(i % PATTERN_PERIOD for i in range(CHUNK))
MAX_BYTES = 64 << 30
IDLE_TIMEOUT = 20.0                   # per socket operation, every server
# The TCP echo holds a tunnel a test keeps open while it does other things
# (control.sh's remove --close: several ctl runs, slow under ASan and load).
# At 20 s the server's own idle close raced the test's close (CI: "closed":0
# and the tunnel ended by EOF). The lab's watchdog still bounds every run.
ECHO_IDLE_TIMEOUT = 300.0
PORTS = {"http": 80, "https": 443, "https-alt": 8443, "echo": 7, "echo-alt": 9000, "dns": 53,
         "loopback": 8080, "hostany": 8081}


def log(msg):
    sys.stderr.write("%s servers[%d]: %s\n" % (time.strftime("%H:%M:%S"), os.getpid(), msg))
    sys.stderr.flush()


def family_of(addr):
    return socket.AF_INET6 if ":" in addr else socket.AF_INET


def read_plan(state):
    """The plan: lines 'ROLE NAME V4 V6' ('-' = none)."""
    plan = []
    with open(os.path.join(state, "plan")) as f:
        for line in f:
            line = line.split("#", 1)[0].split()
            if len(line) != 4:
                continue
            role, name, v4, v6 = line
            plan.append((role, name, None if v4 == "-" else v4, None if v6 == "-" else v6))
    return plan


def addrs(entry):
    return [a for a in entry[2:] if a]


# --------------------------------------------------------------------- pattern

def pattern_chunks(n):
    full, rest = divmod(n, CHUNK)
    for _ in range(full):
        yield _PATTERN
    if rest:
        yield _PATTERN[:rest]


def pattern_sha256(n):
    h = hashlib.sha256()
    for c in pattern_chunks(n):
        h.update(c)
    return h.hexdigest()


# --------------------------------------------------------------------- servers

class LineLog:
    def __init__(self, path):
        self.f = open(path, "a", buffering=1) if path else None
        self.lock = threading.Lock()

    def write(self, *fields):
        if not self.f:
            return
        line = "%.3f %s\n" % (time.time(), " ".join(str(x) for x in fields))
        with self.lock:
            self.f.write(line)


def make_tcp_server(addr, port, handler, **attrs):
    class Server(socketserver.ThreadingMixIn, socketserver.TCPServer):
        address_family = family_of(addr)
        allow_reuse_address = True
        daemon_threads = True
        request_queue_size = 128

        def server_bind(self):
            # [::] next to 0.0.0.0 on one port (hostany): IPv6 only.
            if self.address_family == socket.AF_INET6:
                self.socket.setsockopt(socket.IPPROTO_IPV6, socket.IPV6_V6ONLY, 1)
            super().server_bind()

        def handle_error(self, request, client_address):
            e = sys.exc_info()[1]
            if not isinstance(e, (ConnectionError, TimeoutError, ssl.SSLError, OSError)):
                log("%s:%d: error from %s: %r" % (addr, port, client_address, e))

    srv = Server((addr, port), handler)
    for k, v in attrs.items():
        setattr(srv, k, v)
    return srv


class WebHandler(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"
    server_version = "jailrun-lab/1"
    sys_version = ""
    timeout = IDLE_TIMEOUT

    # server attributes: lab_name, scheme, tls_ctx, weblog

    def setup(self):
        if self.server.tls_ctx is not None:
            self.request.settimeout(self.timeout)
            self.request = self.server.tls_ctx.wrap_socket(self.request, server_side=True)
        super().setup()

    def finish(self):
        try:
            super().finish()
        finally:
            if self.server.tls_ctx is not None:
                try:
                    self.request.close()
                except OSError:
                    pass

    def log_message(self, fmt, *args):
        pass

    def identity(self, extra=""):
        return ("served-by: %s\nscheme: %s\nmethod: %s\npath: %s\nhost-header: %s\nclient: %s\n%s"
                % (self.server.lab_name, self.server.scheme, self.command, self.path,
                   self.headers.get("Host", "-"), self.client_address[0], extra)).encode()

    def send_text(self, code, body, head=False):
        self.send_response(code)
        self.send_header("Content-Type", "text/plain; charset=utf-8")
        self.send_header("Content-Length", str(len(body)))
        self.send_header("X-Served-By", self.server.lab_name)
        self.end_headers()
        if not head:
            self.wfile.write(body)

    def record(self, code, nbytes):
        self.server.weblog.write(self.server.lab_name, self.server.scheme, self.client_address[0],
                                 self.command, self.path.replace(" ", "%20"), code, nbytes)

    def serve_get(self, head):
        path = self.path
        m = re.match(r"^(?:[a-z]+://[^/]*)?/([a-z]+)/([0-9.]+)/?$", path)
        kind, arg = (m.group(1), m.group(2)) if m else (None, None)
        if kind == "bytes" and arg.isdigit() and int(arg) <= MAX_BYTES:
            n = int(arg)
            self.send_response(200)
            self.send_header("Content-Type", "application/octet-stream")
            self.send_header("Content-Length", str(n))
            self.send_header("X-Served-By", self.server.lab_name)
            self.end_headers()
            sent = 0
            if not head:
                for c in pattern_chunks(n):
                    self.wfile.write(c)
                    sent += len(c)
            self.record(200, sent)
            return
        if kind == "reset" and arg.isdigit() and int(arg) <= MAX_BYTES:
            n = int(arg)
            self.send_response(200)
            self.send_header("Content-Type", "application/octet-stream")
            self.send_header("Content-Length", str(2 * n))
            self.send_header("X-Served-By", self.server.lab_name)
            self.end_headers()
            for c in pattern_chunks(n):
                self.wfile.write(c)
            self.wfile.flush()
            self.record(200, n)
            # A reset, not a FIN: close with SO_LINGER 0.
            self.request.setsockopt(socket.SOL_SOCKET, socket.SO_LINGER, struct.pack("ii", 1, 0))
            self.request.close()
            self.close_connection = True
            return
        if re.match(r"^(?:[a-z]+://[^/]*)?/headers(?:[/?]|$)", path):
            # The headers echo (issue 13): every request header as received,
            # one "header: Name: value" line each, so a test sees what an
            # inspecting relay forwarded, and on which port it arrived.
            body = self.identity("server-port: %d\n" % self.server.server_address[1] +
                                 "".join("header: %s: %s\n" % (k, v)
                                         for k, v in self.headers.items()))
            self.send_text(200, body, head)
            self.record(200, len(body))
            return
        code = 200
        if kind == "delay":
            try:
                time.sleep(min(float(arg), 60.0))
            except ValueError:
                pass
        elif kind == "status" and arg.isdigit() and 200 <= int(arg) <= 599:
            code = int(arg)
        body = self.identity()
        self.send_text(code, body, head)
        self.record(code, len(body))

    def do_GET(self):
        self.serve_get(False)

    def do_HEAD(self):
        self.serve_get(True)

    def read_body(self):
        h = hashlib.sha256()
        total = 0
        if "chunked" in self.headers.get("Transfer-Encoding", "").lower():
            while True:
                size = int(self.rfile.readline(100).split(b";")[0].strip() or b"0", 16)
                if size == 0:
                    while self.rfile.readline(1000) not in (b"\r\n", b"\n", b""):
                        pass
                    break
                while size:
                    c = self.rfile.read(min(size, 1 << 16))
                    if not c:
                        raise ConnectionError("short chunk")
                    h.update(c)
                    total += len(c)
                    size -= len(c)
                self.rfile.readline(10)
        else:
            left = int(self.headers.get("Content-Length", "0") or 0)
            while left:
                c = self.rfile.read(min(left, 1 << 16))
                if not c:
                    raise ConnectionError("short body")
                h.update(c)
                total += len(c)
                left -= len(c)
        return total, h.hexdigest()

    def do_POST(self):
        total, digest = self.read_body()
        body = self.identity("received-bytes: %d\nreceived-sha256: %s\n" % (total, digest))
        self.send_text(200, body)
        self.record(200, len(body))

    do_PUT = do_POST


class EchoTCPHandler(socketserver.BaseRequestHandler):
    def handle(self):
        s = self.request
        s.settimeout(ECHO_IDLE_TIMEOUT)
        total = 0
        try:
            while True:
                data = s.recv(65536)
                if not data:
                    return
                s.sendall(data)
                total += len(data)
        finally:
            # The 9000 listener logs to web.log (as "NAME echo CLIENT ECHO
            # /PORT 200 BYTES"), so never_served can prove nothing reached it.
            log = getattr(self.server, "weblog", None)
            if log:
                log.write(self.server.lab_name, "echo", self.client_address[0], "ECHO",
                          "/%d" % self.server.server_address[1], 200, total)


class DNSHandlerTCP(socketserver.BaseRequestHandler):
    def handle(self):
        s = self.request
        s.settimeout(10.0)
        f = s.makefile("rb")
        while True:
            hdr = f.read(2)
            if len(hdr) < 2:
                return
            (n,) = struct.unpack("!H", hdr)
            q = f.read(n)
            if len(q) < n:
                return
            r = self.server.dns.answer(q, "tcp", self.client_address[0])
            if r is not None:
                s.sendall(struct.pack("!H", len(r)) + r)


QTYPES = {1: "A", 2: "NS", 5: "CNAME", 6: "SOA", 12: "PTR", 15: "MX", 16: "TXT",
          28: "AAAA", 33: "SRV", 64: "SVCB", 65: "HTTPS", 255: "ANY"}


def parse_name(msg, off):
    labels = []
    jumps = 0
    end = None
    while True:
        if off >= len(msg):
            raise ValueError("truncated name")
        n = msg[off]
        if n == 0:
            off += 1
            break
        if n & 0xC0 == 0xC0:
            if jumps > 10:
                raise ValueError("pointer loop")
            if end is None:
                end = off + 2
            off = ((n & 0x3F) << 8) | msg[off + 1]
            jumps += 1
            continue
        labels.append(msg[off + 1:off + 1 + n].decode("ascii", "replace"))
        off += 1 + n
    return ".".join(labels), (end if end is not None else off)


class DNSZone:
    def __init__(self, plan, logpath):
        self.records = {}
        for role, name, v4, v6 in plan:
            if role in ("hostlo", "hostany"):
                continue
            self.records[name.lower()] = (v4, v6)
        self.log = LineLog(logpath)

    def answer(self, q, proto, client):
        try:
            if len(q) < 12:
                return None
            qid, flags, qd = struct.unpack("!HHH", q[:6])
            if flags & 0x8000:
                return None                     # a response: ignore
            opcode = (flags >> 11) & 0xF
            rd = flags & 0x0100
            if qd != 1 or opcode != 0:
                self.log.write(proto, client, "-", "-", "NOTIMP")
                return struct.pack("!HHHHHH", qid, 0x8000 | (opcode << 11) | rd | 4, 0, 0, 0, 0)
            name, off = parse_name(q, 12)
            qtype, qclass = struct.unpack("!HH", q[off:off + 4])
        except (ValueError, struct.error, IndexError):
            return None
        question = q[12:off + 4]
        key = name.lower().rstrip(".")
        tname = QTYPES.get(qtype, "TYPE%d" % qtype)
        answers = []
        if key not in self.records:
            rcode = 3
        else:
            rcode = 0
            v4, v6 = self.records[key]
            if qtype in (1, 255) and v4 and qclass == 1:
                answers.append(struct.pack("!HHHIH", 0xC00C, 1, 1, 60, 4) + socket.inet_pton(socket.AF_INET, v4))
            if qtype in (28, 255) and v6 and qclass == 1:
                answers.append(struct.pack("!HHHIH", 0xC00C, 28, 1, 60, 16) + socket.inet_pton(socket.AF_INET6, v6))
        self.log.write(proto, client, key or ".", tname, "NXDOMAIN" if rcode == 3 else "NOERROR")
        flags = 0x8000 | 0x0400 | rd | 0x0080 | rcode
        return struct.pack("!HHHHHH", qid, flags, 1, len(answers), 0, 0) + question + b"".join(answers)


def udp_loop(sock, fn):
    while True:
        try:
            data, peer = sock.recvfrom(65535)
        except OSError:
            if sock.fileno() < 0:
                return                          # closed: the server stopped
            continue
        if peer is None:
            return                              # shut down: the server stopped
        try:
            r = fn(data, peer)
            if r is not None:
                sock.sendto(r, peer)
        except OSError:
            pass


def udp_socket(addr, port):
    s = socket.socket(family_of(addr), socket.SOCK_DGRAM)
    s.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    s.bind((addr, port))
    return s


def tls_context(state, name):
    ctx = ssl.SSLContext(ssl.PROTOCOL_TLS_SERVER)
    d = os.path.join(state, "tls")
    ctx.load_cert_chain(os.path.join(d, name + ".pem"), os.path.join(d, name + ".key"))
    return ctx


def cmd_serve(a):
    state = a.state
    plan = read_plan(state)
    weblog = LineLog(os.path.join(state, "web.log"))
    tcp_servers = []      # (server, label)
    udp_servers = []      # (socket, fn, label)
    dns_servers = []      # what DIR/dns-stop stops: TCP servers, UDP sockets

    def web(addr, port, name, scheme, ctx):
        tcp_servers.append((make_tcp_server(addr, port, WebHandler, lab_name=name, scheme=scheme,
                                            tls_ctx=ctx, weblog=weblog),
                            "%s %s://%s:%d" % (name, scheme, addr, port)))

    if a.role == "net":
        zone = DNSZone(plan, os.path.join(state, "dns.log"))
        for role, name, v4, v6 in plan:
            for addr in addrs((role, name, v4, v6)):
                if role == "web":
                    web(addr, PORTS["http"], name, "http", None)
                    web(addr, PORTS["https"], name, "https", tls_context(state, name))
                    web(addr, PORTS["https-alt"], name, "https", tls_context(state, name))
                elif role == "metadata":
                    web(addr, PORTS["http"], name, "http", None)
                elif role == "echo":
                    tcp_servers.append((make_tcp_server(addr, PORTS["echo"], EchoTCPHandler),
                                        "echo tcp %s" % addr))
                    tcp_servers.append((make_tcp_server(addr, PORTS["echo-alt"], EchoTCPHandler,
                                                        lab_name=name, weblog=weblog),
                                        "echo tcp %s:%d" % (addr, PORTS["echo-alt"])))
                    udp_servers.append((udp_socket(addr, PORTS["echo"]), lambda d, p: d,
                                        "echo udp %s" % addr))
                elif role == "dns":
                    tcp_servers.append((make_tcp_server(addr, PORTS["dns"], DNSHandlerTCP, dns=zone),
                                        "dns tcp %s" % addr))
                    udp_servers.append((udp_socket(addr, PORTS["dns"]),
                                        lambda d, p: zone.answer(d, "udp", p[0]),
                                        "dns udp %s" % addr))
                    dns_servers += [tcp_servers[-1][0], udp_servers[-1][0]]
    else:
        for role, name, v4, v6 in plan:
            if role == "hostlo":
                for addr in addrs((role, name, v4, v6)):
                    web(addr, PORTS["loopback"], name, "http", None)
            elif role == "hostany":
                for addr in addrs((role, name, v4, v6)):
                    web(addr, PORTS["hostany"], name, "http", None)

    for srv, label in tcp_servers:
        threading.Thread(target=srv.serve_forever, kwargs={"poll_interval": 0.5},
                         name=label, daemon=True).start()
    for sock, fn, label in udp_servers:
        threading.Thread(target=udp_loop, args=(sock, fn), name=label, daemon=True).start()

    # Ready: every socket is bound and listening.
    ready = os.path.join(state, "ready-" + a.role)
    with open(ready + ".tmp", "w") as f:
        f.write("%d\n" % os.getpid())
    os.rename(ready + ".tmp", ready)
    log("role %s: %d tcp + %d udp listeners up, lifetime %ds"
        % (a.role, len(tcp_servers), len(udp_servers), a.max_lifetime))

    alive = os.path.join(state, "alive")
    deadline = time.monotonic() + a.max_lifetime
    while True:
        time.sleep(0.3)
        if dns_servers and os.path.exists(os.path.join(state, "dns-stop")):
            for srv in dns_servers:
                if isinstance(srv, socket.socket):
                    try:
                        # Wakes its reader (and says ENOTCONN: unconnected UDP).
                        srv.shutdown(socket.SHUT_RDWR)
                    except OSError:
                        pass
                    srv.close()
                else:
                    srv.shutdown()
                    srv.server_close()
            dns_servers = []
            log("DNS server stopped (dns-stop)")
            with open(os.path.join(state, "dns-stopped"), "w") as f:
                f.write("stopped\n")
        if not os.path.exists(alive):
            log("lab is going down; exiting")
            os._exit(0)
        if time.monotonic() > deadline:
            log("maximum lifetime reached; exiting")
            os._exit(0)


# --------------------------------------------------------------------- clients

def dns_query(name, qtype="A", server="127.0.0.1", tcp=False, timeout=2.0):
    """Return (rcode, [addresses])."""
    qt = {"A": 1, "AAAA": 28, "ANY": 255, "TXT": 16, "MX": 15}.get(qtype.upper())
    if qt is None:
        qt = int(qtype)
    qid = int.from_bytes(os.urandom(2), "big")
    q = struct.pack("!HHHHHH", qid, 0x0100, 1, 0, 0, 0)
    for label in name.rstrip(".").split("."):
        q += bytes([len(label)]) + label.encode()
    q += b"\0" + struct.pack("!HH", qt, 1)
    fam = family_of(server)
    if tcp:
        with socket.create_connection((server, 53), timeout=timeout) as s:
            s.sendall(struct.pack("!H", len(q)) + q)
            f = s.makefile("rb")
            (n,) = struct.unpack("!H", f.read(2))
            r = f.read(n)
    else:
        with socket.socket(fam, socket.SOCK_DGRAM) as s:
            s.settimeout(timeout)
            s.sendto(q, (server, 53))
            while True:
                r, _ = s.recvfrom(65535)
                if r[:2] == q[:2]:
                    break
    rid, flags, qd, an = struct.unpack("!HHHH", r[:8])
    off = 12
    for _ in range(qd):
        _, off = parse_name(r, off)
        off += 4
    out = []
    for _ in range(an):
        _, off = parse_name(r, off)
        t, c, ttl, ln = struct.unpack("!HHIH", r[off:off + 10])
        off += 10
        if t == 1:
            out.append(socket.inet_ntop(socket.AF_INET, r[off:off + 4]))
        elif t == 28:
            out.append(socket.inet_ntop(socket.AF_INET6, r[off:off + 16]))
        off += ln
    return flags & 0xF, out


def http_get(addr, port, host, path="/", tls_cafile=None, timeout=1.0):
    s = socket.create_connection((addr, port), timeout=timeout)
    try:
        if tls_cafile:
            ctx = ssl.create_default_context(cafile=tls_cafile)
            s = ctx.wrap_socket(s, server_hostname=host)
        s.sendall(("GET %s HTTP/1.1\r\nHost: %s\r\nConnection: close\r\n\r\n" % (path, host)).encode())
        data = b""
        while True:
            c = s.recv(65536)
            if not c:
                break
            data += c
        return data.decode("utf-8", "replace")
    finally:
        s.close()


def echo_roundtrip(addr, proto, msg=b"lab-echo-probe", timeout=1.0, port=PORTS["echo"]):
    if proto == "tcp":
        with socket.create_connection((addr, port), timeout=timeout) as s:
            s.sendall(msg)
            s.shutdown(socket.SHUT_WR)
            data = b""
            while True:
                c = s.recv(65536)
                if not c:
                    break
                data += c
            return data
    with socket.socket(family_of(addr), socket.SOCK_DGRAM) as s:
        s.settimeout(timeout)
        s.sendto(msg, (addr, PORTS["echo"]))
        return s.recvfrom(65535)[0]


def probe_checks(state):
    plan = read_plan(state)
    ca = os.path.join(state, "tls", "ca.pem")
    checks = []
    dns_srv = [e for e in plan if e[0] == "dns"][0]

    def chk(label, fn):
        checks.append((label, fn))

    for srv in addrs(dns_srv):
        for tcp in (False, True):
            def f(srv=srv, tcp=tcp):
                # The DNS server's own name: tests look for other names.
                rc, out = dns_query(dns_srv[1], "A", srv, tcp, timeout=1.0)
                if out != [dns_srv[2]]:
                    raise RuntimeError("got rcode %d %s" % (rc, out))
            chk("dns %s %s" % ("tcp" if tcp else "udp", srv), f)
    for role, name, v4, v6 in plan:
        for addr in addrs((role, name, v4, v6)):
            if role in ("web", "metadata", "hostlo", "hostany"):
                port = {"hostlo": PORTS["loopback"],
                        "hostany": PORTS["hostany"]}.get(role, PORTS["http"])
                schemes = [("http", port, None)]
                if role == "web":
                    schemes.append(("https", PORTS["https"], ca))
                    schemes.append(("https", PORTS["https-alt"], ca))
                for scheme, p, cafile in schemes:
                    def f(addr=addr, p=p, name=name, cafile=cafile):
                        body = http_get(addr, p, name, "/lab-probe", cafile)
                        if ("served-by: %s\n" % name) not in body:
                            raise RuntimeError("unexpected answer %r" % body[:80])
                    chk("%s %s://%s:%d" % (name, scheme, addr, p), f)
            elif role == "echo":
                for proto in ("tcp", "udp"):
                    def f(addr=addr, proto=proto):
                        if echo_roundtrip(addr, proto) != b"lab-echo-probe":
                            raise RuntimeError("bad echo")
                    chk("echo %s %s:7" % (proto, addr), f)

                def f9000(addr=addr):
                    if echo_roundtrip(addr, "tcp", port=PORTS["echo-alt"]) != b"lab-echo-probe":
                        raise RuntimeError("bad echo")
                chk("echo tcp %s:%d" % (addr, PORTS["echo-alt"]), f9000)
    return checks


def cmd_probe(a):
    checks = probe_checks(a.state)
    deadline = time.monotonic() + a.deadline
    errors = {}
    while True:
        pending = []
        for label, fn in checks:
            try:
                t = time.monotonic()
                fn()
                if os.environ.get("LAB_PROBE_DEBUG"):
                    print("%.3fs %s" % (time.monotonic() - t, label), file=sys.stderr)
            except Exception as e:          # noqa: BLE001 - report any failure
                errors[label] = "%s: %s" % (type(e).__name__, e)
                if os.environ.get("LAB_PROBE_DEBUG"):
                    print("%.3fs %s FAILED %s" % (time.monotonic() - t, label, errors[label]),
                          file=sys.stderr)
                pending.append((label, fn))
        checks = pending
        if not checks or time.monotonic() > deadline:
            break
        time.sleep(0.1)
    for label, _ in checks:
        print("not answering: %s (%s)" % (label, errors[label]))
    return 1 if checks else 0


def cmd_dns(a):
    rcode, out = dns_query(a.name, a.type, a.server, a.tcp, timeout=a.timeout)
    if rcode == 3:
        print("NXDOMAIN")
        return 2
    if rcode:
        print("RCODE%d" % rcode)
        return 3
    for x in out:
        print(x)
    return 0


def cmd_udp(a):
    with socket.socket(family_of(a.addr), socket.SOCK_DGRAM) as s:
        s.settimeout(a.timeout)
        s.sendto(a.message.encode(), (a.addr, a.port))
        print(s.recvfrom(65535)[0].decode("utf-8", "replace"))
    return 0


def cmd_tcp(a):
    with socket.create_connection((a.addr, a.port), timeout=a.timeout) as s:
        s.sendall(a.message.encode())
        s.shutdown(socket.SHUT_WR)
        data = b""
        while True:
            c = s.recv(65536)
            if not c:
                break
            data += c
    print(data.decode("utf-8", "replace"))
    return 0


def main():
    p = argparse.ArgumentParser(description="jailrun test lab servers")
    sub = p.add_subparsers(dest="cmd", required=True)
    s = sub.add_parser("serve")
    s.add_argument("--state", required=True)
    s.add_argument("--role", choices=("net", "host"), required=True)
    s.add_argument("--max-lifetime", type=int, default=1800)
    s = sub.add_parser("probe")
    s.add_argument("--state", required=True)
    s.add_argument("--deadline", type=float, default=15.0)
    s = sub.add_parser("dns")
    s.add_argument("name")
    s.add_argument("type", nargs="?", default="A")
    s.add_argument("--server", default="203.0.113.53")
    s.add_argument("--tcp", action="store_true")
    s.add_argument("--timeout", type=float, default=2.0)
    for n in ("udp", "tcp"):
        s = sub.add_parser(n)
        s.add_argument("addr")
        s.add_argument("port", type=int)
        s.add_argument("message")
        s.add_argument("--timeout", type=float, default=2.0)
    s = sub.add_parser("pattern-sha256")
    s.add_argument("n", type=int)
    a = p.parse_args()
    if a.cmd == "serve":
        return cmd_serve(a)
    if a.cmd == "probe":
        return cmd_probe(a)
    if a.cmd == "dns":
        return cmd_dns(a)
    if a.cmd == "udp":
        return cmd_udp(a)
    if a.cmd == "tcp":
        return cmd_tcp(a)
    if a.cmd == "pattern-sha256":
        print(pattern_sha256(a.n))
        return 0
    return 2


if __name__ == "__main__":
    try:
        sys.exit(main())
    except KeyboardInterrupt:
        sys.exit(130)
    except (OSError, ValueError) as e:
        if sys.argv[1:2] == ["serve"]:
            log("fatal: %r" % e)
        else:
            print("error: %s" % e, file=sys.stderr)
        sys.exit(1)
