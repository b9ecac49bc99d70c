#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-or-later
"""unixsock.py - both sides of tests/integration/unixsock.sh.

Host side (outside jailrun):
  listen PATH [stream|dgram]     bind PATH, answer every stream client
                                 "host\\n"; runs until killed
  restart PATH TRIGGER DONE      as listen, and when TRIGGER appears:
                                 unlink PATH, bind it again (a restarting
                                 daemon), then create DONE
  count PATH FILE                as listen (stream), and write the number
                                 of connections accepted so far to FILE
                                 before answering each

Either side:
  connect PATH                   exit 0 and print "connected: <reply>" when
                                 a stream connect works; exit 3 on
                                 ECONNREFUSED, 4 on another error
  sendto PATH                    the same for a datagram sent to PATH
  late READY GO PATH             write READY, wait for GO (30 s hang guard),
                                 then as connect PATH
  restarted PATH TRIGGER DONE    connect PATH, write TRIGGER, wait for DONE,
                                 connect again; exit 0 only if both refused
  race PATH N SECONDS            the check-then-continue race: one thread
                                 connect()s fd F to a closed 127.0.0.1
                                 port, N times or for SECONDS, while
                                 another dup2()s an AF_UNIX / AF_INET
                                 socket onto F and flips the address
                                 memory between the AF_INET address and
                                 PATH; exit 0 if no connect succeeded
  dgcount PATH FILE              bind a datagram socket on PATH; after each
                                 datagram write "N LAST" to FILE: how many
                                 arrived, and the last one's payload
  sendrace PATH N SECONDS        the send race: one thread sendmsg()s on
                                 an unconnected AF_UNIX datagram socket,
                                 N times or for SECONDS, with a msghdr
                                 whose msg_name is PATH and whose
                                 msg_namelen another thread flips between
                                 0 and its length; also sends an
                                 SCM_RIGHTS datagram over a socketpair
                                 (fd passing must still work); exit 0 if
                                 no send succeeded and the fd arrived
  swaprace PATH N SECONDS        the fd-swap race: one thread sends with
                                 sendto() and sendmsg() and an AF_INET
                                 address on UDP socket F, N times or for
                                 SECONDS, while another dup2()s an
                                 unconnected AF_UNIX datagram socket onto
                                 F and rewrites the address into PATH;
                                 the host side counts what arrives
  sigdup N                       a handled signal (SA_RESTART) sent to a
                                 thread over and over while it sendmsg()s
                                 N numbered records over a TCP connection
                                 and over a datagram socketpair inside;
                                 exit 0 if the receivers saw every record
                                 exactly once, in order
  sigpipe                        a sendmsg() without MSG_NOSIGNAL on a
                                 stream socket whose peer is gone, in a
                                 child: with SIGPIPE at its default the
                                 child dies of it, with it blocked the
                                 call says EPIPE and SIGPIPE comes; with
                                 MSG_NOSIGNAL only EPIPE; exit 0 if so
  cost N                         N sendto() with an address on a UDP
                                 socket to a local one, and N sendmsg()
                                 on a connected loopback TCP socket;
                                 prints the ns per call of each (the
                                 guard's cost; run it with and without
                                 --seccomp off to compare)
  inet                           connects of other families, which the
                                 guard runs on the command's behalf, act
                                 as the kernel's: UDP connect and AF_UNSPEC
                                 disconnect, non-blocking TCP connect
                                 (EINPROGRESS), blocking TCP connect, TCP
                                 AF_UNSPEC, EINVAL for an address longer
                                 than sockaddr_storage, EFAULT for NULL;
                                 exit 0 if all do
  inside DIR                     sockets made inside work: stream in
                                 DIR/x.sock and /tmp/<unique>.sock between
                                 two processes, a datagram sendto a path,
                                 socketpair; exit 0 if all do
"""
import ctypes
import errno
import os
import socket
import struct
import sys
import threading
import time


def wait_file(path, limit=30.0):
    # A hang guard for a readiness file, not a latency bound.
    end = time.monotonic() + limit
    while not os.path.exists(path):
        if time.monotonic() > end:
            print(f"timed out waiting for {path}")
            sys.exit(5)
        time.sleep(0.01)


def serve(path, kind):
    typ = socket.SOCK_DGRAM if kind == "dgram" else socket.SOCK_STREAM
    s = socket.socket(socket.AF_UNIX, typ)
    s.bind(path)
    os.chmod(path, 0o777)
    if typ == socket.SOCK_STREAM:
        s.listen(64)
    return s


def answer(s):
    if s.type == socket.SOCK_DGRAM:
        s.recv(4096)
        return
    c, _ = s.accept()
    c.sendall(b"host\n")
    c.close()


def listen(path, kind="stream"):
    s = serve(path, kind)
    while True:
        answer(s)


def restart(path, trigger, done):
    s = serve(path, "stream")
    s.setblocking(False)
    while not os.path.exists(trigger):
        try:
            answer(s)
        except BlockingIOError:
            time.sleep(0.01)
    s.close()
    os.unlink(path)
    s = serve(path, "stream")
    with open(done, "w"):
        pass
    while True:
        answer(s)


def tally(out, line):
    """Write LINE to OUT whole: a reader sees the old count or the new
    one, never half a line (rename(2) replaces atomically)."""
    with open(out + ".tmp", "w") as f:
        f.write(line + "\n")
    os.rename(out + ".tmp", out)


def count(path, out):
    s = serve(path, "stream")
    n = 0
    tally(out, "0")
    while True:
        c, _ = s.accept()
        n += 1
        tally(out, f"{n}")
        try:
            c.sendall(b"host\n")
        except OSError:
            pass  # a racing client may be gone already
        c.close()


def race(path, attempts, seconds):
    """Win the window between the guard's look at a non-unix connect and
    the kernel's own re-read of the fd table and the address (what
    SECCOMP_USER_NOTIF_FLAG_CONTINUE does), if there is one."""
    libc = ctypes.CDLL(None, use_errno=True)
    probe = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
    probe.bind(("127.0.0.1", 0))
    port = probe.getsockname()[1]
    probe.close()  # nobody listens there now: ECONNREFUSED
    size = 110  # sizeof(struct sockaddr_un)
    inet = struct.pack("=H", socket.AF_INET) + struct.pack(
        "!H4s", port, socket.inet_aton("127.0.0.1"))
    inet = inet.ljust(size, b"\0")
    unix = (struct.pack("=H", socket.AF_UNIX) + path.encode()).ljust(size, b"\0")
    buf = ctypes.create_string_buffer(inet, size)
    keep = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
    fd = keep.fileno()
    stop = threading.Event()

    def flip():
        while not stop.is_set():
            for fam, addr in ((socket.AF_UNIX, unix), (socket.AF_INET, inet)):
                s = socket.socket(fam, socket.SOCK_STREAM)
                os.dup2(s.fileno(), fd)
                s.close()
                ctypes.memmove(buf, addr, size)

    t = threading.Thread(target=flip, daemon=True)
    t.start()
    end = time.monotonic() + seconds
    done = won = 0
    errs = {}
    while done < attempts and time.monotonic() < end:
        r = libc.connect(fd, buf, size)
        done += 1
        if r == 0:
            won += 1
        else:
            e = errno.errorcode.get(ctypes.get_errno(), "?")
            errs[e] = errs.get(e, 0) + 1
    stop.set()
    t.join()
    print(f"race: {done} connects, {won} connected; errors {errs}")
    return 0 if won == 0 else 1


def dgcount(path, out):
    s = serve(path, "dgram")
    n = 0
    tally(out, "0 -")
    while True:
        b = s.recv(4096)
        n += 1
        tally(out, f"{n} {b.decode(errors='replace') or '-'}")


class MsgHdr(ctypes.Structure):
    _fields_ = [("name", ctypes.c_void_p), ("namelen", ctypes.c_uint32),
                ("iov", ctypes.c_void_p), ("iovlen", ctypes.c_size_t),
                ("control", ctypes.c_void_p), ("controllen", ctypes.c_size_t),
                ("flags", ctypes.c_int)]


class IoVec(ctypes.Structure):
    _fields_ = [("base", ctypes.c_void_p), ("len", ctypes.c_size_t)]


def sendrace(path, attempts, seconds):
    """Win the window between the guard's read of a msghdr with no
    address and the kernel's own re-read (SECCOMP_USER_NOTIF_FLAG_CONTINUE)
    by filling the address length in, if there is one."""
    libc = ctypes.CDLL(None, use_errno=True)
    size = 110  # sizeof(struct sockaddr_un)
    addr = ctypes.create_string_buffer(
        (struct.pack("=H", socket.AF_UNIX) + path.encode()).ljust(size, b"\0"), size)
    data = ctypes.create_string_buffer(b"inside", 6)
    iov = IoVec(ctypes.cast(data, ctypes.c_void_p), 6)
    msg = MsgHdr(ctypes.cast(addr, ctypes.c_void_p), 0,
                 ctypes.cast(ctypes.pointer(iov), ctypes.c_void_p), 1, None, 0, 0)
    d = socket.socket(socket.AF_UNIX, socket.SOCK_DGRAM)
    stop = threading.Event()

    def flip():
        while not stop.is_set():
            msg.namelen = size
            msg.namelen = 0

    t = threading.Thread(target=flip, daemon=True)
    t.start()
    end = time.monotonic() + seconds
    done = won = 0
    errs = {}
    while done < attempts and time.monotonic() < end:
        r = libc.sendmsg(d.fileno(), ctypes.byref(msg), 0)
        done += 1
        if r >= 0:
            won += 1
        else:
            e = errno.errorcode.get(ctypes.get_errno(), "?")
            errs[e] = errs.get(e, 0) + 1
    stop.set()
    t.join()
    print(f"sendrace: {done} sends, {won} sent; errors {errs}")
    # fd passing over a datagram socketpair, with and without an address
    # in the msghdr, still works through the guard.
    a, b = socket.socketpair(socket.AF_UNIX, socket.SOCK_DGRAM)
    r, w = os.pipe()
    socket.send_fds(a, [b"fd"], [w])
    os.close(w)
    msg_, fds, _, _ = socket.recv_fds(b, 16, 1)
    passed = msg_ == b"fd" and len(fds) == 1
    if passed:
        os.write(fds[0], b"through")
        os.close(fds[0])
        passed = os.read(r, 16) == b"through"
    print(f"sendrace: SCM_RIGHTS over a datagram socketpair: {'ok' if passed else 'FAILED'}")
    return 0 if won == 0 and passed else 1


def swaprace(path, attempts, seconds):
    """Win the window between the guard's look at a send on a UDP socket
    and the kernel's own re-read of the fd table and the address (what
    SECCOMP_USER_NOTIF_FLAG_CONTINUE does), if there is one."""
    libc = ctypes.CDLL(None, use_errno=True)
    sink = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
    sink.bind(("127.0.0.1", 0))  # open, never read: UDP sends succeed
    port = sink.getsockname()[1]
    size = 110  # sizeof(struct sockaddr_un)
    inet = struct.pack("=H", socket.AF_INET) + struct.pack(
        "!H4s", port, socket.inet_aton("127.0.0.1"))
    inet = inet.ljust(size, b"\0")
    unix = (struct.pack("=H", socket.AF_UNIX) + path.encode()).ljust(size, b"\0")
    buf = ctypes.create_string_buffer(inet, size)
    data = ctypes.create_string_buffer(b"inside", 6)
    iov = IoVec(ctypes.cast(data, ctypes.c_void_p), 6)
    msg = MsgHdr(ctypes.cast(buf, ctypes.c_void_p), size,
                 ctypes.cast(ctypes.pointer(iov), ctypes.c_void_p), 1, None, 0, 0)
    keep = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
    fd = keep.fileno()
    stop = threading.Event()

    def flip():
        while not stop.is_set():
            for fam, addr in ((socket.AF_UNIX, unix), (socket.AF_INET, inet)):
                s = socket.socket(fam, socket.SOCK_DGRAM)
                os.dup2(s.fileno(), fd)
                s.close()
                ctypes.memmove(buf, addr, size)

    t = threading.Thread(target=flip, daemon=True)
    t.start()
    end = time.monotonic() + seconds
    done = 0
    errs = {}
    while done < attempts and time.monotonic() < end:
        if done % 2:
            r = libc.sendmsg(fd, ctypes.byref(msg), socket.MSG_DONTWAIT)
        else:
            r = libc.sendto(fd, data, 6, socket.MSG_DONTWAIT, buf, size)
        done += 1
        if r < 0:
            e = errno.errorcode.get(ctypes.get_errno(), "?")
            errs[e] = errs.get(e, 0) + 1
    stop.set()
    t.join()
    print(f"swaprace: {done} sends; errors {errs}")
    return 0


def sigdup(count):
    """A send the guard ran, then interrupted by a signal before its
    answer, is restarted and run again unless the listener's wait is
    killable (SECCOMP_FILTER_FLAG_WAIT_KILLABLE_RECV): the records would
    arrive twice."""
    import signal
    libc = ctypes.CDLL(None, use_errno=True)
    signals = [0]

    def handler(signum, frame):
        signals[0] += 1

    signal.signal(signal.SIGUSR1, handler)
    signal.siginterrupt(signal.SIGUSR1, False)  # SA_RESTART
    me = threading.get_ident()
    ok = True

    def sendmsg_all(fd, payload):
        # sendmsg() with no address: trapped, and run on behalf.
        pos = 0
        while pos < len(payload):
            chunk = ctypes.create_string_buffer(payload[pos:], len(payload) - pos)
            iov = IoVec(ctypes.cast(chunk, ctypes.c_void_p), len(payload) - pos)
            msg = MsgHdr(None, 0, ctypes.cast(ctypes.pointer(iov), ctypes.c_void_p),
                         1, None, 0, 0)
            r = libc.sendmsg(fd, ctypes.byref(msg), 0)
            if r < 0:
                e = ctypes.get_errno()
                if e == errno.EINTR:
                    continue
                raise OSError(e, os.strerror(e))
            pos += r

    def run(kind, a, b, recv_all):
        stop = threading.Event()
        got = []

        def hammer():
            while not stop.is_set():
                signal.pthread_kill(me, signal.SIGUSR1)

        r = threading.Thread(target=recv_all, args=(b, got), daemon=True)
        h = threading.Thread(target=hammer, daemon=True)
        r.start()
        h.start()
        for i in range(count):
            sendmsg_all(a.fileno(), struct.pack("!I", i))
        stop.set()
        h.join()
        if kind == "tcp":
            a.shutdown(socket.SHUT_WR)
        else:
            a.send(b"end")  # send(2): no address, not trapped
        r.join(60)
        want = list(range(count))
        good = got == want
        bad = next((i for i, (x, y) in enumerate(zip(got, want)) if x != y), None)
        print(f"sigdup {kind}: {len(got)} records for {count}, {signals[0]} signals: "
              + ("ok" if good else f"BAD (first difference at record {bad})"))
        return good

    def recv_stream(s, got):
        data = b""
        while True:
            b_ = s.recv(65536)
            if not b_:
                break
            data += b_
        got.extend(struct.unpack(f"!{len(data) // 4}I", data[:len(data) // 4 * 4]))

    def recv_dgram(s, got):
        while True:
            b_ = s.recv(16)
            if b_ == b"end":
                break
            got.append(struct.unpack("!I", b_)[0])

    lst = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
    lst.bind(("127.0.0.1", 0))
    lst.listen(1)
    c = socket.create_connection(lst.getsockname())
    s, _ = lst.accept()
    ok = run("tcp", c, s, recv_stream) and ok
    a, b = socket.socketpair(socket.AF_UNIX, socket.SOCK_DGRAM)
    ok = run("dgram", a, b, recv_dgram) and ok
    return 0 if ok else 1


def sigpipe():
    """The guard sends with MSG_NOSIGNAL (SIGPIPE would be its own) and
    raises SIGPIPE in the task itself when the task's flags lacked it."""
    import signal

    def child(how, flags):
        pid = os.fork()
        if pid:
            return os.waitpid(pid, 0)[1]
        code = 0
        try:
            if how == "default":
                signal.signal(signal.SIGPIPE, signal.SIG_DFL)
            else:  # blocked: it stays pending, and we wait for it
                signal.signal(signal.SIGPIPE, signal.SIG_DFL)
                signal.pthread_sigmask(signal.SIG_BLOCK, [signal.SIGPIPE])
            a, b = socket.socketpair(socket.AF_UNIX, socket.SOCK_STREAM)
            b.close()
            try:
                a.sendmsg([b"x"], [], flags)  # trapped: run on behalf
            except BrokenPipeError:
                code = 10
            if how == "blocked":
                # The guard raises it just after the call returns.
                if flags:
                    got = signal.SIGPIPE in signal.sigpending()
                else:
                    got = signal.sigtimedwait([signal.SIGPIPE], 10) is not None
                code += 1 if got else 0
        finally:
            os._exit(code)

    ok = True
    for how, flags, want, desc in (
            ("default", 0, -signal.SIGPIPE, "killed by SIGPIPE"),
            ("default", socket.MSG_NOSIGNAL, 10, "EPIPE, no signal"),
            ("blocked", 0, 11, "EPIPE, then SIGPIPE pending"),
            ("blocked", socket.MSG_NOSIGNAL, 10, "EPIPE, no signal")):
        st = child(how, flags)
        got = -os.WTERMSIG(st) if os.WIFSIGNALED(st) else os.WEXITSTATUS(st)
        good = got == want
        ok = ok and good
        print(f"sigpipe {how} {'MSG_NOSIGNAL' if flags else 'flags 0'}: "
              f"{desc}: {'ok' if good else f'got {got}, want {want}'}")
    return 0 if ok else 1


def cost(n):
    """What a send run on behalf costs, per call."""
    payload = b"x" * 64
    rx = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
    rx.bind(("127.0.0.1", 0))  # never read: a full queue drops, sendto succeeds
    tx = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
    addr = rx.getsockname()
    t0 = time.perf_counter_ns()
    for _ in range(n):
        tx.sendto(payload, addr)
    udp = (time.perf_counter_ns() - t0) / n
    lst = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
    lst.bind(("127.0.0.1", 0))
    lst.listen(1)
    c = socket.create_connection(lst.getsockname())
    s, _ = lst.accept()

    def drain():
        while s.recv(1 << 20):
            pass

    d = threading.Thread(target=drain, daemon=True)
    d.start()
    t0 = time.perf_counter_ns()
    for _ in range(n):
        c.sendmsg([payload])
    tcp = (time.perf_counter_ns() - t0) / n
    c.close()
    d.join(30)
    print(f"cost udp sendto: {udp:.0f} ns/call")
    print(f"cost tcp sendmsg: {tcp:.0f} ns/call")
    return 0


def inet():
    libc = ctypes.CDLL(None, use_errno=True)
    unspec = ctypes.create_string_buffer(
        struct.pack("=H", socket.AF_UNSPEC).ljust(16, b"\0"), 16)
    got = []

    def raw(s, buf, n):
        r = libc.connect(s.fileno(), buf, n)
        return "0" if r == 0 else errno.errorcode.get(ctypes.get_errno())

    d = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
    d.connect(("127.0.0.1", 9))
    got.append(("udp connect", d.getpeername()[1], 9))
    got.append(("udp AF_UNSPEC", raw(d, unspec, 16), "0"))
    try:
        d.getpeername()
        got.append(("udp disconnected", "still connected", "ENOTCONN"))
    except OSError as e:
        got.append(("udp disconnected", errno.errorcode[e.errno], "ENOTCONN"))
    lst = socket.socket()
    lst.bind(("127.0.0.1", 0))
    lst.listen(4)
    t = socket.socket()
    t.setblocking(False)
    r = t.connect_ex(lst.getsockname())
    got.append(("non-blocking tcp", errno.errorcode.get(r, "0"), "EINPROGRESS"))
    lst.accept()[0].close()
    b = socket.socket()
    b.settimeout(None)
    b.connect(lst.getsockname())
    got.append(("blocking tcp", b.getpeername() == lst.getsockname(), True))
    lst.accept()[0].close()
    got.append(("tcp AF_UNSPEC", raw(b, unspec, 16), "0"))
    k = socket.socket()
    got.append(("long address", raw(k, ctypes.create_string_buffer(200), 200),
                "EINVAL"))
    got.append(("NULL address", raw(k, None, 16), "EFAULT"))
    ok = True
    for what, have, want in got:
        print(f"inet {what}: {have}{'' if have == want else f' (want {want})'}")
        ok &= have == want
    return 0 if ok else 1


def try_connect(path):
    c = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    c.settimeout(30)
    try:
        c.connect(path)
        print("connected:", c.recv(64).decode().strip())
        return 0
    except OSError as e:
        print(f"connect {path}: {e}")
        return 3 if e.errno == errno.ECONNREFUSED else 4


def try_sendto(path):
    d = socket.socket(socket.AF_UNIX, socket.SOCK_DGRAM)
    try:
        d.sendto(b"sendto-probe", path)
        print(f"sent to {path}")
        return 0
    except OSError as e:
        print(f"sendto {path}: {e}")
        return 3 if e.errno == errno.ECONNREFUSED else 4


def stream_pair(path):
    """A server and a client in two processes, through PATH."""
    s = serve(path, "stream")
    pid = os.fork()
    if pid == 0:
        os._exit(try_connect(path))
    answer(s)
    _, st = os.waitpid(pid, 0)
    os.unlink(path)
    return os.waitstatus_to_exitcode(st) == 0


def inside(d):
    ok = True
    for path in (os.path.join(d, "x.sock"), f"/tmp/jr-ug-{os.getpid()}.sock"):
        good = stream_pair(path)
        print(f"inside stream {path}: {'ok' if good else 'FAILED'}")
        ok &= good
    path = os.path.join(d, "d.sock")
    r = socket.socket(socket.AF_UNIX, socket.SOCK_DGRAM)
    r.bind(path)
    good = try_sendto(path) == 0 and r.recv(16) == b"sendto-probe"
    os.unlink(path)
    print(f"inside dgram sendto {path}: {'ok' if good else 'FAILED'}")
    ok &= good
    # From a thread other than the main one (pidfd_open of a thread id).
    path = os.path.join(d, "t.sock")
    s = serve(path, "stream")
    got = []
    t = threading.Thread(target=lambda: got.append(try_connect(path)))
    t.start()
    answer(s)
    t.join()
    os.unlink(path)
    good = got == [0]
    print(f"inside stream from a thread: {'ok' if good else 'FAILED'}")
    ok &= good
    a, b = socket.socketpair()
    a.send(b"pair")
    good = b.recv(16) == b"pair"
    print(f"inside socketpair: {'ok' if good else 'FAILED'}")
    ok &= good
    return 0 if ok else 1


def main(argv):
    cmd, args = argv[1], argv[2:]
    if cmd == "listen":
        listen(*args)
    elif cmd == "restart":
        restart(*args)
    elif cmd == "count":
        count(*args)
    elif cmd == "dgcount":
        dgcount(*args)
    elif cmd == "sendrace":
        return sendrace(args[0], int(args[1]), float(args[2]))
    elif cmd == "swaprace":
        return swaprace(args[0], int(args[1]), float(args[2]))
    elif cmd == "sigpipe":
        return sigpipe()
    elif cmd == "cost":
        return cost(int(args[0]))
    elif cmd == "sigdup":
        return sigdup(int(args[0]))
    elif cmd == "race":
        return race(args[0], int(args[1]), float(args[2]))
    elif cmd == "connect":
        return try_connect(args[0])
    elif cmd == "sendto":
        return try_sendto(args[0])
    elif cmd == "late":
        ready, go, path = args
        with open(ready, "w"):
            pass
        wait_file(go)
        return try_connect(path)
    elif cmd == "restarted":
        path, trigger, done = args
        first = try_connect(path)
        with open(trigger, "w"):
            pass
        wait_file(done)
        second = try_connect(path)
        return 0 if first == 3 and second == 3 else 1
    elif cmd == "inet":
        return inet()
    elif cmd == "inside":
        return inside(args[0])
    else:
        print(f"unknown command {cmd}")
        return 2
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
