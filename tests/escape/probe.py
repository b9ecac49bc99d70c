#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-or-later
"""probe.py - escape attempts for tests/escape/escape.sh (standard library only).

Each sub-command makes one kind of attempt and prints what happened, one
"RESULT ..." line per attempt; escape.sh decides what is a pass. The same
sub-command runs inside jailrun (where it must be stopped) and in the lab
host without jailrun (the baseline, where it must work), so a pass under
jailrun means jailrun stopped it. Every socket operation has a timeout.

  tcp ADDR PORT [ADDR PORT...]     direct TCP connect
  udp ADDR PORT                    one datagram, wait for the echo
  icmp ADDR                        ICMP echo through a ping (DGRAM) socket, then a RAW one
  packet                           AF_PACKET socket, read one frame
  nfnl-list                        NETLINK_NETFILTER: dump the nftables tables
  nfnl-flush                       NETLINK_NETFILTER: delete every table (nft flush ruleset)
  setns [--all-proc] [--connect ADDR PORT] PATH...
                                   setns(2) into namespace files, then connect
  procs                            the processes this /proc shows
  status                           capabilities, no_new_privs, seccomp
  unix PATH | abstract NAME        connect to a unix socket, read its greeting
  listen-unix PATH SECONDS | listen-abstract NAME SECONDS   [--stop-file F]
                                   the host side: a greeting server (mode 0777 for PATH),
                                   until SECONDS pass or F exists
  tiocsti [--fd0]                  TIOCSTI on a pty of our own (and on fd 0)
  pty-run SECONDS -- ARGV...       run ARGV on a new pty (controlling terminal), print its output
  http-raw TARGET SHAPE...         raw HTTP request shapes (see SHAPES), TARGET is
                                   proxy (100.64.77.1:3128) or ADDR:PORT (direct)
  flood --proxy ADDR:PORT ...      slowloris + connection flood + a real request
  sni ...                          CONNECT tunnel + TLS with a chosen SNI
  loop-connect ADDR PORT SECONDS MARKER   connect every few ms, count successes
  nft-tamper-watch PID             (outside, root) add a table in PID's netns,
                                   time its removal
  ifaces                           network interfaces of this netns
"""

import argparse
import ctypes
import errno
import fcntl
import json
import os
import select
import socket
import ssl
import struct
import sys
import termios
import time

PROXY = ("100.64.77.1", 3128)


def ename(e):
    if isinstance(e, OSError) and e.errno:
        return errno.errorcode.get(e.errno, str(e.errno))
    if isinstance(e, socket.timeout):
        return "TIMEOUT"
    return type(e).__name__


def out(*a):
    print(*a, flush=True)


# ------------------------------------------------------------------ raw network

def cmd_tcp(a):
    args = a.rest
    for i in range(0, len(args), 2):
        host, port = args[i], int(args[i + 1])
        t = time.monotonic()
        try:
            fam = socket.AF_INET6 if ":" in host else socket.AF_INET
            s = socket.socket(fam, socket.SOCK_STREAM)
            s.settimeout(10)        # a hang guard: a refusal is an error, not a timeout
            s.connect((host, port))
            s.close()
            out("RESULT tcp %s:%d CONNECTED" % (host, port))
        except OSError as e:
            out("RESULT tcp %s:%d blocked %s in %.3f s" % (host, port, ename(e), time.monotonic() - t))


def cmd_udp(a):
    fam = socket.AF_INET6 if ":" in a.addr else socket.AF_INET
    s = socket.socket(fam, socket.SOCK_DGRAM)
    s.settimeout(1.5)
    try:
        s.connect((a.addr, a.port))
        s.send(b"jailrun-escape-udp")
        data = s.recv(1000)
        out("RESULT udp %s:%d REPLY %r" % (a.addr, a.port, data))
    except OSError as e:
        out("RESULT udp %s:%d no-reply %s" % (a.addr, a.port, ename(e)))


def icmp_checksum(b):
    if len(b) % 2:
        b += b"\0"
    s = sum(struct.unpack("!%dH" % (len(b) // 2), b))
    s = (s >> 16) + (s & 0xFFFF)
    s += s >> 16
    return ~s & 0xFFFF


def cmd_icmp(a):
    ident = os.getpid() & 0xFFFF
    payload = b"jailrun-escape-icmp"
    notes = []
    for kind, st in (("dgram", socket.SOCK_DGRAM), ("raw", socket.SOCK_RAW)):
        try:
            s = socket.socket(socket.AF_INET, st, socket.IPPROTO_ICMP)
        except OSError as e:
            notes.append("%s-socket:%s" % (kind, ename(e)))
            continue
        s.settimeout(1.0)
        hdr = struct.pack("!BBHHH", 8, 0, 0, ident, 1)
        pkt = struct.pack("!BBHHH", 8, 0, icmp_checksum(hdr + payload), ident, 1) + payload
        try:
            s.sendto(pkt, (a.addr, 0))
            deadline = time.monotonic() + 1.0
            while time.monotonic() < deadline:
                data, src = s.recvfrom(2000)
                if st == socket.SOCK_RAW:
                    data = data[(data[0] & 0xF) * 4:]      # skip the IP header
                if data[:1] == b"\0" and src[0] == a.addr and payload in data:
                    out("RESULT icmp %s ECHO-REPLY via %s socket" % (a.addr, kind))
                    return
            notes.append("%s:no-reply" % kind)
        except OSError as e:
            notes.append("%s-send:%s" % (kind, ename(e)))
        finally:
            s.close()
    out("RESULT icmp %s no-reply (%s)" % (a.addr, ", ".join(notes)))


def cmd_packet(a):
    try:
        s = socket.socket(socket.AF_PACKET, socket.SOCK_RAW, socket.htons(0x0003))
    except OSError as e:
        out("RESULT packet socket %s" % ename(e))
        return
    s.settimeout(1.0)
    try:
        data = s.recv(65535)
        out("RESULT packet socket CREATED, read a %d-byte frame" % len(data))
    except OSError as e:
        out("RESULT packet socket CREATED (no frame within 1 s: %s)" % ename(e))


def cmd_ifaces(a):
    out("RESULT ifaces " + " ".join(sorted(n for _, n in socket.if_nameindex())))


# ------------------------------------------------------------------ nfnetlink

NETLINK_NETFILTER = 12
NFNL_SUBSYS_NFTABLES = 10
NFT_MSG_NEWTABLE, NFT_MSG_GETTABLE, NFT_MSG_DELTABLE = 0, 1, 2
NLM_F_REQUEST, NLM_F_ACK, NLM_F_DUMP = 1, 4, 0x300
NLMSG_ERROR, NLMSG_DONE = 2, 3


def nlmsg(mtype, flags, seq, family=0, res_id=0, payload=b""):
    body = struct.pack("=BBH", family, 0, socket.htons(res_id)) + payload
    return struct.pack("=IHHII", 16 + len(body), mtype, flags, seq, 0) + body


def nl_messages(data):
    off = 0
    while off + 16 <= len(data):
        ln, mtype, flags, seq, pid = struct.unpack_from("=IHHII", data, off)
        if ln < 16:
            break
        yield mtype, data[off + 16:off + ln]
        off += (ln + 3) & ~3


def nfnl_socket():
    s = socket.socket(socket.AF_NETLINK, socket.SOCK_RAW, NETLINK_NETFILTER)
    s.settimeout(2.0)
    s.bind((0, 0))
    return s


NLM_F_DUMP_INTR = 0x10


def nfnl_tables(s):
    """The tables, as "family:name". A dump that crossed a ruleset change
    (the watchdog's restore) is flagged NLM_F_DUMP_INTR and may list a
    table twice or miss one: it is taken again, as nft does."""
    for _ in range(50):
        names, intr = nfnl_tables_once(s)
        if not intr:
            return names
    return names


def nfnl_tables_once(s):
    s.send(nlmsg((NFNL_SUBSYS_NFTABLES << 8) | NFT_MSG_GETTABLE, NLM_F_REQUEST | NLM_F_DUMP, 1))
    names = []
    intr = False
    while True:
        data = s.recv(1 << 16)
        off = 0
        while off + 16 <= len(data):
            ln, mtype, flags, _, _ = struct.unpack_from("=IHHII", data, off)
            if ln < 16:
                break
            body = data[off + 16:off + ln]
            off += (ln + 3) & ~3
            intr = intr or bool(flags & NLM_F_DUMP_INTR)
            if mtype == NLMSG_DONE:
                return names, intr
            if mtype == NLMSG_ERROR:
                (err,) = struct.unpack_from("=i", body)
                if err:
                    raise OSError(-err, os.strerror(-err))
                continue
            fam = body[0]
            aoff = 4
            while aoff + 4 <= len(body):
                alen, atype = struct.unpack_from("=HH", body, aoff)
                if alen < 4:
                    break
                if atype & 0x7FFF == 1:       # NFTA_TABLE_NAME
                    names.append("%s:%s" % ({1: "inet", 2: "ip", 10: "ip6", 7: "bridge",
                                             3: "arp", 5: "netdev"}.get(fam, fam),
                                            body[aoff + 4:aoff + alen].rstrip(b"\0").decode()))
                aoff += (alen + 3) & ~3


def cmd_nfnl_list(a):
    try:
        s = nfnl_socket()
    except OSError as e:
        out("RESULT nfnl-list socket %s" % ename(e))
        return
    try:
        out("RESULT nfnl-list LISTED tables=[%s]" % " ".join(nfnl_tables(s)))
    except OSError as e:
        out("RESULT nfnl-list dump %s" % ename(e))


def cmd_nfnl_flush(a):
    try:
        s = nfnl_socket()
    except OSError as e:
        out("RESULT nfnl-flush socket %s" % ename(e))
        return
    batch = (nlmsg(0x10, NLM_F_REQUEST, 1, res_id=NFNL_SUBSYS_NFTABLES)
             + nlmsg((NFNL_SUBSYS_NFTABLES << 8) | NFT_MSG_DELTABLE, NLM_F_REQUEST | NLM_F_ACK, 2)
             + nlmsg(0x11, NLM_F_REQUEST, 3, res_id=NFNL_SUBSYS_NFTABLES))
    try:
        s.send(batch)
        data = s.recv(1 << 16)
        for mtype, body in nl_messages(data):
            if mtype == NLMSG_ERROR:
                (err,) = struct.unpack_from("=i", body)
                if err:
                    out("RESULT nfnl-flush refused %s" % errno.errorcode.get(-err, -err))
                    return
        out("RESULT nfnl-flush FLUSHED")
    except OSError as e:
        out("RESULT nfnl-flush send %s" % ename(e))


# ------------------------------------------------------------------ namespaces, procs

def cmd_setns(a):
    libc = ctypes.CDLL(None, use_errno=True)
    paths = list(a.paths)
    if a.all_proc:
        for p in sorted(os.listdir("/proc")):
            if p.isdigit():
                for ns in ("net", "user", "mnt", "pid", "uts", "ipc", "cgroup", "time"):
                    paths.append("/proc/%s/ns/%s" % (p, ns))
    entered = 0
    for p in paths:
        try:
            fd = os.open(p, os.O_RDONLY | os.O_CLOEXEC)
        except OSError as e:
            out("RESULT setns %s open %s" % (p, ename(e)))
            continue
        if libc.setns(fd, 0) == 0:
            out("RESULT setns %s ENTERED" % p)
            entered += 1
        else:
            out("RESULT setns %s %s" % (p, errno.errorcode.get(ctypes.get_errno(), "?")))
        os.close(fd)
    out("RESULT setns tried=%d entered=%d" % (len(paths), entered))
    if a.connect:
        cmd_tcp(argparse.Namespace(rest=a.connect))


def cmd_procs(a):
    pids = sorted(int(p) for p in os.listdir("/proc") if p.isdigit())
    names = []
    for p in pids:
        try:
            with open("/proc/%d/comm" % p) as f:
                names.append("%d:%s" % (p, f.read().strip()))
        except OSError:
            names.append("%d:?" % p)
    out("RESULT procs count=%d %s" % (len(pids), " ".join(names[:40])))


def cmd_status(a):
    want = ("CapInh", "CapPrm", "CapEff", "CapBnd", "CapAmb", "NoNewPrivs", "Seccomp")
    got = {}
    with open("/proc/self/status") as f:
        for line in f:
            k, _, v = line.partition(":")
            if k in want:
                got[k] = v.strip()
    out("RESULT status uid=%d " % os.getuid() + " ".join("%s=%s" % (k, got.get(k, "-")) for k in want))


# ------------------------------------------------------------------ unix sockets

def unix_connect(addr, label):
    s = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    s.settimeout(2)
    try:
        s.connect(addr)
        data = s.recv(200)
        out("RESULT %s CONNECTED greeting=%r" % (label, data.decode(errors="replace").strip()))
    except OSError as e:
        out("RESULT %s %s" % (label, ename(e)))


def cmd_unix(a):
    unix_connect(a.path, "unix %s" % a.path)


def cmd_abstract(a):
    unix_connect("\0" + a.name, "abstract @%s" % a.name)


def serve_greeting(addr, seconds, greeting, ready=None, stop_file=None):
    s = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    s.bind(addr)
    if ready:
        ready()
    s.listen(64)
    s.settimeout(0.2)
    deadline = time.monotonic() + seconds
    out("listening")
    while time.monotonic() < deadline and not (stop_file and os.path.exists(stop_file)):
        try:
            c, _ = s.accept()
        except socket.timeout:
            continue
        try:
            c.sendall(greeting.encode())
        except OSError:
            pass
        c.close()


def cmd_listen_unix(a):
    try:
        os.unlink(a.path)
    except FileNotFoundError:
        pass
    old = os.umask(0)
    try:
        serve_greeting(a.path, a.seconds, "fake-daemon-at-%s\n" % a.path,
                       ready=lambda: os.chmod(a.path, 0o777), stop_file=a.stop_file)
    finally:
        os.umask(old)
        try:
            os.unlink(a.path)
        except OSError:
            pass


def cmd_listen_abstract(a):
    serve_greeting("\0" + a.name, a.seconds, "host-abstract-%s\n" % a.name, stop_file=a.stop_file)


# ------------------------------------------------------------------ TIOCSTI

def tiocsti(fd, label):
    try:
        fcntl.ioctl(fd, termios.TIOCSTI, b"#")
        out("RESULT tiocsti %s INJECTED" % label)
    except OSError as e:
        out("RESULT tiocsti %s %s" % (label, ename(e)))


def cmd_tiocsti(a):
    master, slave = os.openpty()
    # Make the new pty our controlling terminal where we can (a new session),
    # so that only a filter, not the kernel's "not your tty" check, stops it.
    pid = os.fork()
    if pid == 0:
        try:
            os.setsid()
            fcntl.ioctl(slave, termios.TIOCSCTTY, 0)
        except OSError:
            pass
        tiocsti(slave, "own-pty")
        os._exit(0)
    os.waitpid(pid, 0)
    if a.fd0:
        tiocsti(0, "fd0(isatty=%s)" % os.isatty(0))


def cmd_pty_run(a):
    """Run argv with a new pty as its controlling terminal and fds 0-2; print its output."""
    import pty
    import signal
    master, slave = pty.openpty()
    pid = os.fork()
    if pid == 0:
        os.setsid()
        fcntl.ioctl(slave, termios.TIOCSCTTY, 0)
        for fd in (0, 1, 2):
            os.dup2(slave, fd)
        os.close(master)
        os.close(slave)
        os.execvp(a.argv[0], a.argv)
    os.close(slave)
    buf = b""
    deadline = time.monotonic() + a.seconds
    status = None
    eof = False
    while time.monotonic() < deadline:
        if not eof:
            r, _, _ = select.select([master], [], [], 0.1)
            if r:
                try:
                    d = os.read(master, 4096)
                except OSError:          # EIO: every slave fd is closed
                    d = b""
                buf += d
                eof = not d
        else:
            time.sleep(0.02)
        wp, st = os.waitpid(pid, os.WNOHANG)
        if wp:
            status = st
            break
    if status is None:
        try:
            os.kill(pid, signal.SIGKILL)
        except OSError:
            pass
        _, status = os.waitpid(pid, 0)
        out("RESULT pty-run TIMEOUT")
    try:
        while True:
            r, _, _ = select.select([master], [], [], 0.2)
            if not r:
                break
            d = os.read(master, 4096)
            if not d:
                break
            buf += d
    except OSError:
        pass
    sys.stdout.write(buf.decode(errors="replace").replace("\r\n", "\n"))
    out("RESULT pty-run exit=%d" % os.waitstatus_to_exitcode(status))


# ------------------------------------------------------------------ HTTP shapes

SMUG = "GET /SMUGGLED-%s HTTP/1.1\r\nHost: denied.test\r\nConnection: close\r\n\r\n"


def shapes():
    d = {}

    def body_post(name, headers, body):
        d[name] = ("POST http://allowed.test/shape-%s HTTP/1.1\r\nHost: allowed.test\r\n%s\r\n" % (name, headers)
                   + body)

    s = SMUG % "clte"
    body_post("clte", "Content-Length: %d\r\nTransfer-Encoding: chunked\r\n" % (5 + len(s)), "0\r\n\r\n" + s)
    s = SMUG % "tecl"
    body_post("tecl", "Transfer-Encoding: chunked\r\nContent-Length: %d\r\n" % (5 + len(s)), "0\r\n\r\n" + s)
    s = SMUG % "tete-dup"
    body_post("tete-dup", "Transfer-Encoding: chunked\r\nTransfer-Encoding: identity\r\n", "0\r\n\r\n" + s)
    s = SMUG % "te-xchunked"
    body_post("te-xchunked", "Transfer-Encoding: xchunked\r\n", "0\r\n\r\n" + s)
    s = SMUG % "te-space"
    body_post("te-space", "Transfer-Encoding : chunked\r\n", "0\r\n\r\n" + s)
    s = SMUG % "te-list"
    body_post("te-list", "Transfer-Encoding: identity, chunked\r\n", "0\r\n\r\n" + s)
    s = SMUG % "te-tab"
    body_post("te-tab", "Transfer-Encoding:\tchunked\r\n", "0\r\n\r\n" + s)
    s = SMUG % "cl-conflict"
    body_post("cl-conflict", "Content-Length: 0\r\nContent-Length: %d\r\n" % len(s), s)
    s = SMUG % "cl-list"
    body_post("cl-list", "Content-Length: 0, %d\r\n" % len(s), s)
    s = SMUG % "bare-lf"
    d["bare-lf"] = ("POST http://allowed.test/shape-bare-lf HTTP/1.1\nHost: allowed.test\nContent-Length: 0\n\n"
                    + s)
    s = SMUG % "bare-cr"
    d["bare-cr"] = ("POST http://allowed.test/shape-bare-cr HTTP/1.1\r\nHost: allowed.test\r\n"
                    "X-A: 1\rContent-Length: 0\r\n\r\n" + s)
    s = SMUG % "obs-fold"
    body_post("obs-fold", "Content-Length: %d\r\nX-Fold: x\r\n Transfer-Encoding: chunked\r\n" % (5 + len(s)),
              "0\r\n\r\n" + s)
    d["pipeline"] = ("GET http://allowed.test/shape-pipeline HTTP/1.1\r\nHost: allowed.test\r\n\r\n"
                     "GET http://denied.test/SMUGGLED-pipeline HTTP/1.1\r\nHost: denied.test\r\nConnection: close\r\n\r\n")
    d["abs-host"] = "GET http://allowed.test/shape-abs-host HTTP/1.1\r\nHost: denied.test\r\n\r\n"
    return d


def http_exchange(target, raw, timeout=5.0):
    s = socket.create_connection(target, timeout=timeout)
    s.sendall(raw.encode() if isinstance(raw, str) else raw)
    data = b""
    deadline = time.monotonic() + timeout
    try:
        while time.monotonic() < deadline:
            b = s.recv(65536)
            if not b:
                break
            data += b
    except OSError:
        pass
    s.close()
    return data.decode(errors="replace")


def summarize(resp):
    line = resp.split("\r\n", 1)[0] if resp else "(no answer)"
    served = [l.split(": ", 1)[1] for l in resp.split("\n") if l.startswith("served-by: ")]
    hosts = [l.split(": ", 1)[1] for l in resp.split("\n") if l.startswith("host-header: ")]
    deny = [l.split(": ", 1)[1].strip() for l in resp.split("\r\n") if l.lower().startswith("x-jailrun-deny:")]
    return "status=[%s] responses=%d served-by=%s host-header=%s deny=%s" % (
        line.strip(), resp.count("HTTP/1."), ",".join(served) or "-", ",".join(hosts) or "-",
        ",".join(deny) or "-")


def cmd_http_raw(a):
    if a.target == "proxy":
        target = PROXY
    else:
        h, _, p = a.target.rpartition(":")
        target = (h.strip("[]"), int(p))
    sh = shapes()
    names = a.shapes or list(sh)
    for n in names:
        if n == "connect-inner":
            out("RESULT shape %s %s" % (n, connect_inner(target)))
            continue
        try:
            resp = http_exchange(target, sh[n], timeout=a.timeout)
            out("RESULT shape %s %s" % (n, summarize(resp)))
        except OSError as e:
            out("RESULT shape %s error %s" % (n, ename(e)))


def connect_inner(target):
    """CONNECT allowed.test:80, then a request for denied.test inside the tunnel."""
    try:
        s = socket.create_connection(target, timeout=5)
        s.sendall(b"CONNECT allowed.test:80 HTTP/1.1\r\nHost: allowed.test:80\r\n\r\n")
        head = b""
        while b"\r\n\r\n" not in head:
            b = s.recv(1)
            if not b:
                break
            head += b
        first = head.split(b"\r\n", 1)[0].decode(errors="replace")
        if " 200" not in first:
            return "connect=[%s]" % first
        s.sendall(b"GET http://denied.test/TUNNEL-inner HTTP/1.1\r\nHost: denied.test\r\nConnection: close\r\n\r\n")
        data = b""
        while True:
            b = s.recv(65536)
            if not b:
                break
            data += b
        return "connect=[%s] inner: %s" % (first, summarize(data.decode(errors="replace")))
    except OSError as e:
        return "error %s" % ename(e)


def cmd_proxy_get(a):
    """Raw requests through the proxy: each arg is REQUEST-TARGET or CONNECT=HOST:PORT."""
    for t in a.targets:
        if t.startswith("CONNECT="):
            hp = t.split("=", 1)[1]
            raw = "CONNECT %s HTTP/1.1\r\nHost: %s\r\n\r\n" % (hp, hp)
            try:
                s = socket.create_connection(PROXY, timeout=5)
                s.sendall(raw.encode())
                first = s.recv(4096).decode(errors="replace")
                s.close()
            except OSError as e:
                first = "error %s" % ename(e)
            out("RESULT get %s => %s" % (t, summarize(first)))
            continue
        raw = "GET %s HTTP/1.1\r\nConnection: close\r\n\r\n" % t
        try:
            out("RESULT get %s => %s" % (t, summarize(http_exchange(PROXY, raw, timeout=a.timeout))))
        except OSError as e:
            out("RESULT get %s => error %s" % (t, ename(e)))


# ------------------------------------------------------------------ slowloris / flood

def cmd_flood(a):
    import resource
    soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    resource.setrlimit(resource.RLIMIT_NOFILE, (min(hard, a.flood + a.slow + 512), hard))
    h, _, p = a.proxy.rpartition(":")
    target = (h, int(p))
    real_req = b"GET http://allowed.test/real-%s HTTP/1.1\r\nConnection: close\r\n\r\n"

    def real(tag, budget):
        """Retry one real request until served; the seconds it took or None."""
        t0 = time.monotonic()
        tries = 0
        while time.monotonic() - t0 < budget:
            tries += 1
            try:
                r = http_exchange(target, real_req % tag.encode(), timeout=3)
                if "served-by: allowed.test" in r:
                    return time.monotonic() - t0, tries
            except OSError:
                pass
            time.sleep(0.1)
        return None, tries

    def relay_closed(s):
        """True if the relay has answered or closed S (never blocks)."""
        try:
            d = s.recv(4096)
            return not d or b"HTTP/1.1" in d
        except BlockingIOError:
            return False
        except OSError:
            return True

    # Phase 1: slowloris, one header byte per second per client. A real
    # request must be served while the relay still holds every slowloris
    # client (before its header timeout cut any of them): an order of
    # events, not a time. Then every slowloris client must be cut; how long
    # that took is printed; --slow-seconds only guards against hanging.
    slow = []
    for _ in range(a.slow):
        s = socket.create_connection(target, timeout=5)
        s.setblocking(False)
        slow.append(s)
    head = b"GET http://allowed.test/slow HTTP/1.1\r\nX-Slow: " + b"a" * 64
    t_slow = time.monotonic()
    for s in slow:
        s.send(head[:1])
    sent = 1
    tt, tries = real("during-slowloris", a.budget)
    held = sum(1 for s in slow if not relay_closed(s))
    open_ = set(slow)
    last = time.monotonic()
    while open_ and time.monotonic() - t_slow < a.slow_seconds:
        for s in list(open_):
            if relay_closed(s):
                open_.discard(s)
        if open_ and time.monotonic() - last >= 1.0:
            for s in open_:
                try:
                    s.send(head[sent:sent + 1])
                except OSError:
                    pass
            sent += 1
            last = time.monotonic()
        time.sleep(0.05)
    t_cut = time.monotonic() - t_slow
    closed = len(slow) - len(open_)
    for s in slow:
        s.close()
    out("RESULT slowloris clients=%d real-request=%s held-when-served=%d closed-by-relay=%d "
        "all-cut-after=%.1fs" % (a.slow, "served in %.2f s" % tt if tt is not None else "NOT-SERVED",
                                 held, closed, t_cut))

    # Phase 2: a flood of idle connections, more than --max-conns.
    flood = []
    refused = 0
    t0 = time.monotonic()
    for _ in range(a.flood):
        try:
            s = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
            s.setblocking(False)
            s.connect_ex(target)
            flood.append(s)
        except OSError:
            refused += 1
    t_open = time.monotonic() - t0
    tt, tries = real("during-flood", a.budget)
    # Count the 503s the overflow received: wait until each connection was
    # answered or closed (the relay cuts the idle ones it accepted at its
    # header timeout); the deadline only guards against hanging.
    n503 = 0
    other = 0
    deadline = time.monotonic() + a.budget
    pending = {s.fileno(): s for s in flood}
    poller = select.poll()
    for fd in pending:
        poller.register(fd, select.POLLIN)
    while pending and time.monotonic() < deadline:
        for fd, _ in poller.poll(50):
            s = pending.pop(fd, None)
            poller.unregister(fd)
            if s is None:
                continue
            try:
                d = s.recv(4096)
            except OSError:
                d = b""
            if b" 503 " in d and b"connection-limit" in d:
                n503 += 1
            else:
                other += 1
    for s in flood:
        s.close()
    out("RESULT flood connections=%d opened-in=%.2fs local-errors=%d got-503=%d other-closed=%d "
        "real-request=%s tries=%d" % (a.flood, t_open, refused, n503, other,
                                      "served in %.2f s" % tt if tt is not None else "NOT-SERVED", tries))
    tt, tries = real("after", a.budget)
    out("RESULT after-flood real-request=%s" % ("served in %.2f s" % tt if tt is not None else "NOT-SERVED"))


# ------------------------------------------------------------------ TLS SNI

def cmd_sni(a):
    """CONNECT HOST:443, then TLS with server_hostname=SNI (or none)."""
    if a.direct:
        h, _, p = a.direct.rpartition(":")
        try:
            raw = socket.create_connection((h, int(p)), timeout=5)
        except OSError as e:
            out("RESULT sni %s connect %s" % (a.sni, ename(e)))
            return
        connect_line = "direct"
    else:
        raw = socket.create_connection(PROXY, timeout=5)
        raw.sendall(("CONNECT %s HTTP/1.1\r\nHost: %s\r\n\r\n" % (a.connect, a.connect)).encode())
        head = b""
        while b"\r\n\r\n" not in head:
            b = raw.recv(1)
            if not b:
                break
            head += b
        connect_line = head.split(b"\r\n", 1)[0].decode(errors="replace")
        if " 200" not in connect_line:
            out("RESULT sni %s connect=[%s] refused" % (a.sni, connect_line))
            return
    if a.verify:
        ctx = ssl.create_default_context(cafile=a.cafile)
    else:
        # No verification: if the relay let the hello through, the handshake
        # with the allowed server would complete, which is what we look for.
        ctx = ssl.SSLContext(ssl.PROTOCOL_TLS_CLIENT)
        ctx.check_hostname = False
        ctx.verify_mode = ssl.CERT_NONE
    sni = None if a.sni == "-" else a.sni
    raw.settimeout(5)
    try:
        t = ctx.wrap_socket(raw, server_hostname=sni)
    except (OSError, ssl.SSLError) as e:
        out("RESULT sni %s connect=[%s] handshake-failed %s" % (a.sni, connect_line, type(e).__name__))
        return
    try:
        t.sendall(("GET /%s HTTP/1.1\r\nHost: %s\r\nConnection: close\r\n\r\n"
                   % (a.path, sni or "none")).encode())
        data = b""
        while True:
            b = t.recv(65536)
            if not b:
                break
            data += b
        out("RESULT sni %s connect=[%s] HANDSHAKE-OK %s" % (a.sni, connect_line,
                                                            summarize(data.decode(errors="replace"))))
    except (OSError, ssl.SSLError) as e:
        out("RESULT sni %s connect=[%s] HANDSHAKE-OK then %s" % (a.sni, connect_line, type(e).__name__))


# ------------------------------------------------------------------ watchdog

def cmd_loop_connect(a):
    """Connect again and again for SECONDS, or with --stop-file until that
    file exists (then SECONDS only guards against hanging)."""
    ok = tries = 0
    errs = {}
    deadline = time.monotonic() + a.seconds
    while time.monotonic() < deadline and not (a.stop_file and os.path.exists(a.stop_file)):
        tries += 1
        s = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
        s.settimeout(0.5)
        try:
            s.connect((a.addr, a.port))
            s.sendall(b"GET /LOOP-%s HTTP/1.1\r\nHost: denied.test\r\nConnection: close\r\n\r\n" % a.marker.encode())
            ok += 1
        except OSError as e:
            errs[ename(e)] = errs.get(ename(e), 0) + 1
        s.close()
        time.sleep(0.003)
    out("RESULT loop-connect %s:%d attempts=%d successes=%d errors=%s" % (
        a.addr, a.port, tries, ok, json.dumps(errs, sort_keys=True)))


def cmd_nft_tamper_watch(a):
    """Root, outside: enter PID's netns, flush, add an evil table, time its removal."""
    import subprocess
    libc = ctypes.CDLL(None, use_errno=True)
    fd = os.open("/proc/%d/ns/net" % a.pid, os.O_RDONLY)
    if libc.setns(fd, 0) != 0:
        out("RESULT tamper setns %s" % errno.errorcode.get(ctypes.get_errno()))
        return
    s = nfnl_socket()
    out("RESULT tamper before tables=[%s]" % " ".join(nfnl_tables(s)))
    r = subprocess.run(["nft", "flush", "ruleset"], capture_output=True, text=True, timeout=5)
    out("RESULT tamper flush-ruleset rc=%d %s" % (r.returncode, r.stderr.strip().splitlines()[:1]))
    out("RESULT tamper after-flush tables=[%s]" % " ".join(nfnl_tables(s)))
    t0 = time.monotonic()
    r = subprocess.run(["nft", "-f", "-"], input=(
        "table inet evil {\n chain evilout { type filter hook output priority -300; policy accept; }\n"
        " chain evilin { type filter hook input priority -300; policy accept; }\n}\n"),
        capture_output=True, text=True, timeout=5)
    t_added = time.monotonic()
    out("RESULT tamper add-evil rc=%d %s" % (r.returncode, r.stderr.strip().splitlines()[:1]))
    gone = None
    seen = False
    while time.monotonic() - t_added < a.wait:
        names = nfnl_tables(s)
        if "inet:evil" in names:
            seen = True
        else:
            gone = time.monotonic()
            break
        time.sleep(0.002)
    if gone is None:
        out("RESULT tamper evil-table STILL-THERE after %g s" % a.wait)
    else:
        out("RESULT tamper evil-table removed %.1f ms after nft returned (%.1f ms after nft started; "
            "seen by our poll: %s)" % ((gone - t_added) * 1000, (gone - t0) * 1000, seen))
    out("RESULT tamper final tables=[%s]" % " ".join(nfnl_tables(s)))


# ------------------------------------------------------------------ main

# ------------------------------------------------------------------ filesystem

def _fs_try(label, fn):
    """Run fn(); print RESULT fs LABEL OK [detail] or the errno's name."""
    try:
        r = fn()
        out("RESULT fs %s OK%s" % (label, "" if r is None else " " + str(r)))
    except OSError as e:
        out("RESULT fs %s %s" % (label, ename(e)))


def _fs_libc():
    import ctypes
    return ctypes.CDLL(None, use_errno=True)


def _fs_sys(libc, nr, *args):
    """A raw syscall; OSError with errno on -1."""
    import ctypes
    r = libc.syscall(nr, *args)
    if r == -1:
        e = ctypes.get_errno()
        raise OSError(e, os.strerror(e))
    return None


def _fs_write(path, flags):
    fd = os.open(path, os.O_WRONLY | flags, 0o644)
    try:
        os.write(fd, b"escape\n")
    finally:
        os.close(fd)


def _fs_read(path):
    with open(path) as f:
        d = f.read().split()
    return d[0] if d else "(empty)"


def _fs_reopen(path, how):
    """open PATH with O_PATH (or read-only), then reopen /proc/self/fd/N
    for writing: the magic link must not give more than the mount does."""
    fd = os.open(path, how)
    try:
        _fs_write("/proc/self/fd/%d" % fd, os.O_APPEND)
    finally:
        os.close(fd)


def _fs_mounts(libc, prefix, home):
    """The mount family of calls, each on its own (x86_64 numbers)."""
    MS_RDONLY, MS_REMOUNT, MS_BIND, MNT_DETACH = 1, 32, 4096, 2
    b = lambda s: s.encode()
    _fs_try(prefix + "mount-tmpfs-over-workdir",
            lambda: _fs_sys(libc, 165, b("none"), b("."), b("tmpfs"), 0, None))
    _fs_try(prefix + "umount-gitconfig",
            lambda: _fs_sys(libc, 166, b(".git/config"), MNT_DETACH))
    _fs_try(prefix + "umount-ssh-cover",
            lambda: _fs_sys(libc, 166, b(home + "/.ssh"), MNT_DETACH))
    _fs_try(prefix + "remount-root-rw",
            lambda: _fs_sys(libc, 165, None, b("/"), None, MS_REMOUNT | MS_BIND, None))
    _fs_try(prefix + "pivot-root",
            lambda: _fs_sys(libc, 155, b("."), b(".")))
    _fs_try(prefix + "open-tree-clone-root",
            lambda: _fs_sys(libc, 428, -100, b("/"), 1 | 0x80000 | 0x8000))
    def clone_rw():
        # A detached clone of the whole tree, then the read-only flag
        # cleared on it: the lock inherited from the sandbox must hold.
        import ctypes
        fd = libc.syscall(428, -100, b("/"), 1 | 0x80000 | 0x8000)
        if fd < 0:
            e = ctypes.get_errno()
            raise OSError(e, os.strerror(e))
        attr = struct.pack("QQQQ", 0, 1, 0, 0)   # attr_clr MOUNT_ATTR_RDONLY
        try:
            _fs_sys(libc, 442, fd, b(""), 0x1000 | 0x8000, attr, len(attr))
        finally:
            os.close(fd)
    _fs_try(prefix + "clone-clear-rdonly", clone_rw)
    def clone_reveal():
        # A non-recursive clone of "/" would leave the cover of ~/.ssh
        # behind and show what it hides (the kernel refuses it for a tree
        # with locked submounts).
        import ctypes
        fd = libc.syscall(428, -100, b("/"), 1 | 0x80000)
        if fd < 0:
            e = ctypes.get_errno()
            raise OSError(e, os.strerror(e))
        try:
            return _fs_read("/proc/self/fd/%d%s/.ssh/id_ed25519" % (fd, home))
        finally:
            os.close(fd)
    _fs_try(prefix + "clone-nonrecursive-reveal", clone_reveal)
    # After all that, the walls are still there:
    _fs_try(prefix + "after-bashrc-append",
            lambda: _fs_write(home + "/.bashrc", os.O_APPEND))
    _fs_try(prefix + "after-gitconfig-append",
            lambda: _fs_write(".git/config", os.O_APPEND))
    _fs_try(prefix + "after-ssh-read",
            lambda: _fs_read(home + "/.ssh/id_ed25519"))


def cmd_fs(a):
    """Filesystem escape attempts from the working directory (the cwd)
    against the fake home a.home and a directory a.outside outside it.
    With --nested, first enter a new user+mount namespace (where the
    sandbox allows one) and try to lift what was inherited."""
    home, outside = a.home, a.outside
    libc = _fs_libc()
    tag = str(os.getpid())
    if a.nested:
        _fs_try("nested-unshare",
                lambda: _fs_sys(libc, 272, 0x10000000 | 0x00020000))  # CLONE_NEWUSER|CLONE_NEWNS
        _fs_mounts(libc, "nested-", home)
        return
    # Positive controls: the working directory is writable, the host tree
    # readable, /tmp writable.
    _fs_try("control-workdir-write", lambda: _fs_write("control-" + tag, os.O_CREAT))
    _fs_try("control-bashrc-read", lambda: _fs_read(home + "/.bashrc"))
    def tmp_write():
        _fs_write("/tmp/control-" + tag, os.O_CREAT)
        os.unlink("/tmp/control-" + tag)   # the baseline's /tmp is the host's
    _fs_try("control-tmp-write", tmp_write)
    # Writes to the read-only host and to protected paths.
    _fs_try("etc-create", lambda: _fs_write("/etc/jailrun-escape-" + tag, os.O_CREAT | os.O_EXCL))
    _fs_try("bashrc-append", lambda: _fs_write(home + "/.bashrc", os.O_APPEND))
    _fs_try("hook-create", lambda: _fs_write(".git/hooks/pre-commit", os.O_CREAT))
    _fs_try("gitconfig-append", lambda: _fs_write(".git/config", os.O_APPEND))
    # Secrets.
    _fs_try("ssh-read", lambda: _fs_read(home + "/.ssh/id_ed25519"))
    _fs_try("aws-read", lambda: _fs_read(home + "/.aws/credentials"))
    # Symlinks and "..": out of the working directory.
    _fs_try("planted-symlink-read", lambda: _fs_read("ssh-link/id_ed25519"))
    def inner_link():
        os.symlink(home + "/.ssh", "inner-link-" + tag)
        return _fs_read("inner-link-%s/id_ed25519" % tag)
    _fs_try("inner-symlink-read", inner_link)
    _fs_try("dotdot-read", lambda: _fs_read(os.path.relpath(home + "/.ssh/id_ed25519")))
    _fs_try("dotdot-write", lambda: _fs_write(os.path.relpath(outside) + "/dotdot-" + tag, os.O_CREAT))
    def symlink_write():
        os.symlink(home + "/.bashrc", "rc-link-" + tag)
        _fs_write("rc-link-" + tag, os.O_APPEND)
    _fs_try("symlink-write", symlink_write)
    # Hard links to a protected file and to a file outside, then a write.
    def hardlink(src, name):
        os.link(src, name + tag)
        _fs_write(name + tag, os.O_APPEND)
    _fs_try("hardlink-gitconfig", lambda: hardlink(".git/config", "cfg-link-"))
    _fs_try("hardlink-bashrc", lambda: hardlink(home + "/.bashrc", "rc-hard-"))
    # /proc/self/root and /proc/1/root.
    _fs_try("proc-self-root-ssh-read", lambda: _fs_read("/proc/self/root" + home + "/.ssh/id_ed25519"))
    _fs_try("proc-self-root-bashrc-append", lambda: _fs_write("/proc/self/root" + home + "/.bashrc", os.O_APPEND))
    _fs_try("proc-1-root-ssh-read", lambda: _fs_read("/proc/1/root" + home + "/.ssh/id_ed25519"))
    _fs_try("proc-1-root-bashrc-append", lambda: _fs_write("/proc/1/root" + home + "/.bashrc", os.O_APPEND))
    # O_PATH (and read-only) descriptors reopened for writing.
    _fs_try("opath-reopen-gitconfig", lambda: _fs_reopen(".git/config", os.O_PATH))
    _fs_try("rdonly-reopen-bashrc", lambda: _fs_reopen(home + "/.bashrc", os.O_RDONLY))
    _fs_try("opath-reopen-ssh-dir", lambda: _fs_read("/proc/self/fd/%d/id_ed25519" % os.open(home + "/.ssh", os.O_PATH)))
    # The mount family, without a namespace of its own.
    _fs_mounts(libc, "", home)


def main():
    p = argparse.ArgumentParser()
    sub = p.add_subparsers(dest="cmd", required=True)
    s = sub.add_parser("tcp"); s.add_argument("rest", nargs="+")
    s = sub.add_parser("udp"); s.add_argument("addr"); s.add_argument("port", type=int)
    s = sub.add_parser("icmp"); s.add_argument("addr")
    sub.add_parser("packet")
    sub.add_parser("ifaces")
    sub.add_parser("nfnl-list")
    sub.add_parser("nfnl-flush")
    s = sub.add_parser("setns")
    s.add_argument("--all-proc", action="store_true")
    s.add_argument("--connect", nargs=2)
    s.add_argument("paths", nargs="*")
    sub.add_parser("procs")
    sub.add_parser("status")
    s = sub.add_parser("unix"); s.add_argument("path")
    s = sub.add_parser("abstract"); s.add_argument("name")
    s = sub.add_parser("listen-unix"); s.add_argument("path"); s.add_argument("seconds", type=float)
    s.add_argument("--stop-file")
    s = sub.add_parser("listen-abstract"); s.add_argument("name"); s.add_argument("seconds", type=float)
    s.add_argument("--stop-file")
    s = sub.add_parser("tiocsti"); s.add_argument("--fd0", action="store_true")
    s = sub.add_parser("pty-run"); s.add_argument("seconds", type=float); s.add_argument("argv", nargs="+")
    s = sub.add_parser("http-raw"); s.add_argument("target"); s.add_argument("shapes", nargs="*")
    s.add_argument("--timeout", type=float, default=5.0)
    s = sub.add_parser("proxy-get"); s.add_argument("targets", nargs="+")
    s.add_argument("--timeout", type=float, default=5.0)
    s = sub.add_parser("flood")
    s.add_argument("--proxy", default="%s:%d" % PROXY)
    s.add_argument("--slow", type=int, default=300)
    s.add_argument("--slow-seconds", type=int, default=30)
    s.add_argument("--flood", type=int, default=3000)
    s.add_argument("--budget", type=float, default=30.0)
    s = sub.add_parser("sni")
    s.add_argument("--connect", default="allowed.test:443")
    s.add_argument("--direct")
    s.add_argument("--cafile")
    s.add_argument("--verify", action="store_true")
    s.add_argument("--path", default="sni-probe")
    s.add_argument("sni")
    s = sub.add_parser("loop-connect"); s.add_argument("addr"); s.add_argument("port", type=int)
    s.add_argument("seconds", type=float); s.add_argument("marker")
    s.add_argument("--stop-file")
    s = sub.add_parser("fs"); s.add_argument("home"); s.add_argument("outside")
    s.add_argument("--nested", action="store_true")
    s = sub.add_parser("nft-tamper-watch"); s.add_argument("pid", type=int)
    s.add_argument("--wait", type=float, default=20.0, help="hang guard for the removal (seconds)")
    a = p.parse_args()
    fn = globals()["cmd_" + a.cmd.replace("-", "_")]
    fn(a)
    return 0


if __name__ == "__main__":
    sys.exit(main())
