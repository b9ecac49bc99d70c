#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-or-later
"""Helpers of tests/integration/control.sh (standard library only).

  control.py raw SOCKET LINE...   send each LINE to the control socket and
                                  print each answer line; "@long" sends a
                                  5000-byte line. Exit 1 if it cannot connect.
  control.py hold HOST PORT PREFIX
                                  in the sandbox: open a TCP connection to an
                                  echo server, check one echo, create
                                  PREFIX.connected; then for every PREFIX.again
                                  that appears, echo once more and create
                                  PREFIX.again.ok; when the connection ends,
                                  write how ("eof", "reset") to PREFIX.ended.
  control.py crowd SOCKET        open 8 clients (each answered), then a 9th:
                                  print its answer (the limit's error line).
  control.py stall SOCKET PREFIX  one client sends requests without reading a
                                  single answer until the socket is full, then
                                  creates PREFIX.stalled and holds on until
                                  PREFIX.release appears.
  control.py fdrun PREFIX -- CMD...
                                  run CMD with one end of a socketpair inherited
                                  ("{fd}" in CMD becomes its number), ask
                                  {"op":"status"} on the other end, print the
                                  answer, create PREFIX.done, wait for CMD.
  control.py fdlisten PATH UID -- CMD...
                                  bind a unix stream socket at PATH (mode 0600,
                                  owned by UID), listen, run CMD with it
                                  inherited ("{fd}" becomes its number), close
                                  this process's copy and wait for CMD: the
                                  test connects to PATH meanwhile.
Every wait is bounded (a hang guard).
"""
import os
import select
import socket
import subprocess
import sys
import time

LIMIT = 120  # seconds: a hang guard, never a latency judgement


def read_line(s):
    buf = b""
    s.settimeout(30)
    while not buf.endswith(b"\n"):
        chunk = s.recv(65536)
        if not chunk:
            break
        buf += chunk
    return buf.decode(errors="replace")


def raw(path, lines):
    s = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    try:
        s.connect(path)
    except OSError as e:
        print("cannot connect: %s" % e)
        return 1
    for line in lines:
        data = b"x" * 5000 if line == "@long" else line.encode()
        try:
            s.sendall(data + b"\n")
        except OSError as e:
            print("send failed: %s" % e)
            return 1
        ans = read_line(s)
        print(ans.rstrip("\n") if ans else "(connection closed)")
    return 0


def hold(host, port, prefix):
    s = socket.create_connection((host, int(port)), timeout=30)
    s.sendall(b"hello\n")
    if read_exact(s, 6) != b"hello\n":
        return 1
    open(prefix + ".connected", "w").close()
    end = time.monotonic() + LIMIT
    s.setblocking(False)
    while time.monotonic() < end:
        if os.path.exists(prefix + ".again") and not os.path.exists(prefix + ".again.ok"):
            s.setblocking(True)
            s.sendall(b"again\n")
            if read_exact(s, 6) == b"again\n":
                open(prefix + ".again.ok", "w").close()
            s.setblocking(False)
        r, _, _ = select.select([s], [], [], 0.05)
        if r:
            try:
                data = s.recv(4096)
                how = "eof" if not data else None
            except ConnectionResetError:
                how = "reset"
            if how:
                with open(prefix + ".ended", "w") as f:
                    f.write(how + "\n")
                return 0
    return 1


def read_exact(s, n):
    s.settimeout(30)
    buf = b""
    while len(buf) < n:
        chunk = s.recv(n - len(buf))
        if not chunk:
            break
        buf += chunk
    return buf


def crowd(path):
    held = []
    for _ in range(8):
        s = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
        s.connect(path)
        s.sendall(b'{"op":"status"}\n')
        if not read_line(s).startswith('{"ok":true'):
            print("a client within the limit was not served")
            return 1
        held.append(s)
    s = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    s.connect(path)
    print(read_line(s).rstrip("\n") or "(closed without an answer)")
    for s in held:
        s.close()
    # Gone for the relay too, so the next test step finds free slots.
    end = time.monotonic() + LIMIT
    while time.monotonic() < end:
        s = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
        s.connect(path)
        s.sendall(b'{"op":"status"}\n')
        ans = read_line(s)
        s.close()
        if '"control_clients":1}' in ans:
            return 0
        time.sleep(0.02)
    print("the eight clients were never let go: " + ans)
    return 1


def stall(path, prefix):
    s = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    s.connect(path)
    s.sendall(b'{"op":"status"}\n')
    if not read_line(s).startswith('{"ok":true'):
        print("not served")
        return 1
    s.setblocking(False)
    req = b'{"op":"list"}\n' * 256
    end = time.monotonic() + LIMIT
    sent = 0
    while time.monotonic() < end:
        try:
            sent += s.send(req)
        except BlockingIOError:
            break
    open(prefix + ".stalled", "w").write("%d\n" % sent)
    while not os.path.exists(prefix + ".release") and time.monotonic() < end:
        time.sleep(0.02)
    return 0


def fdrun(prefix, cmd):
    a, b = socket.socketpair(socket.AF_UNIX, socket.SOCK_STREAM)
    fd = b.fileno()
    os.set_inheritable(fd, True)
    p = subprocess.Popen([c.replace("{fd}", str(fd)) for c in cmd], pass_fds=[fd])
    b.close()
    a.sendall(b'{"op":"status"}\n')
    print(read_line(a).rstrip("\n"))
    sys.stdout.flush()
    open(prefix + ".done", "w").close()
    return p.wait(timeout=LIMIT)


def fdlisten(path, uid, cmd):
    s = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    s.bind(path)
    os.chmod(path, 0o600)
    os.chown(path, int(uid), -1)
    s.listen(8)
    fd = s.fileno()
    os.set_inheritable(fd, True)
    p = subprocess.Popen([c.replace("{fd}", str(fd)) for c in cmd], pass_fds=[fd])
    s.close()  # CMD's is the only listener: its accept() serves each client
    return p.wait(timeout=LIMIT)


def main(argv):
    if argv[1] == "raw":
        return raw(argv[2], argv[3:])
    if argv[1] == "hold":
        return hold(argv[2], argv[3], argv[4])
    if argv[1] == "crowd":
        return crowd(argv[2])
    if argv[1] == "stall":
        return stall(argv[2], argv[3])
    if argv[1] == "fdrun":
        return fdrun(argv[2], argv[4:])
    if argv[1] == "fdlisten":
        return fdlisten(argv[2], argv[3], argv[5:])
    print("usage: see the top of control.py", file=sys.stderr)
    return 2


if __name__ == "__main__":
    sys.exit(main(sys.argv))
