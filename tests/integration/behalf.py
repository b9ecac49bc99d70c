#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-or-later
"""behalf.py - both sides of tests/integration/behalf.sh.

  peercred PATH MODE OUT   (host) bind a stream socket on PATH, chmod it to
                           MODE (octal), and for every client append the
                           uid SO_PEERCRED names to OUT, then answer
                           "host\\n"; runs until killed
  connect PATH             exit 0 and print "connected: <reply>" when a
                           stream connect works; else print the errno name
                           and exit 3 (ECONNREFUSED), 5 (EACCES) or 4
  swap DIR NAME TARGET     (inside) the --expose swap: rename DIR away, make
                           a new DIR with a symlink NAME -> TARGET, then
                           connect DIR/NAME; exits as connect does
"""
import errno
import os
import socket
import struct
import sys


def peercred(path, mode, out):
    s = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    s.bind(path)
    os.chmod(path, int(mode, 8))
    s.listen(16)
    while True:
        c, _ = s.accept()
        cred = c.getsockopt(socket.SOL_SOCKET, socket.SO_PEERCRED,
                            struct.calcsize("3i"))
        _, uid, _ = struct.unpack("3i", cred)
        with open(out, "a") as f:
            f.write(f"{uid}\n")
        c.sendall(b"host\n")
        c.close()


def connect(path):
    c = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    c.settimeout(30)
    try:
        c.connect(path)
        print("connected:", c.recv(64).decode().strip())
        return 0
    except OSError as e:
        print(f"connect {ascii(path)}: {errno.errorcode.get(e.errno, e.errno)}")
        if e.errno == errno.ECONNREFUSED:
            return 3
        return 5 if e.errno == errno.EACCES else 4


def swap(d, name, target):
    os.rename(d, d + ".old")
    os.mkdir(d)
    os.symlink(target, os.path.join(d, name))
    return connect(os.path.join(d, name))


def main(argv):
    cmd = argv[1]
    if cmd == "peercred":
        peercred(argv[2], argv[3], argv[4])
    elif cmd == "connect":
        return connect(argv[2])
    elif cmd == "swap":
        return swap(argv[2], argv[3], argv[4])
    print(f"behalf.py: unknown command {cmd}", file=sys.stderr)
    return 2


if __name__ == "__main__":
    sys.exit(main(sys.argv))
