#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-or-later
"""relayns.py PID ADDR PORT CMD... - run CMD in the network namespace of the
listening socket bound to ADDR:PORT that process PID (a jailrun runner)
holds. The relay netns has no process of its own (its listeners pin it), so
this is the way in: pidfd_getfd(2) copies the runner's socket, the
SIOCGSKNS ioctl gives that socket's netns, setns(2) enters it. Needs
CAP_SYS_PTRACE over PID and CAP_SYS_ADMIN over the netns's user namespace
(root has both, for a rootless runner's sandbox too). Exit 1 if no such
socket."""
import ctypes
import os
import socket
import sys

SYS_PIDFD_OPEN = 434
SYS_PIDFD_GETFD = 438
SIOCGSKNS = 0x894C
CLONE_NEWNET = 0x40000000

libc = ctypes.CDLL(None, use_errno=True)
libc.syscall.restype = ctypes.c_long


def fail(msg):
    print("relayns: " + msg, file=sys.stderr)
    sys.exit(1)


def main():
    if len(sys.argv) < 5:
        fail("usage: relayns.py PID ADDR PORT CMD...")
    pid, addr, port, cmd = int(sys.argv[1]), sys.argv[2], int(sys.argv[3]), sys.argv[4:]
    pidfd = libc.syscall(SYS_PIDFD_OPEN, pid, 0)
    if pidfd < 0:
        fail("pidfd_open(%d): %s" % (pid, os.strerror(ctypes.get_errno())))
    for name in os.listdir("/proc/%d/fd" % pid):
        try:
            if not os.readlink("/proc/%d/fd/%s" % (pid, name)).startswith("socket:"):
                continue
        except OSError:
            continue
        fd = libc.syscall(SYS_PIDFD_GETFD, pidfd, int(name), 0)
        if fd < 0:
            continue
        try:
            s = socket.socket(fileno=fd)
        except OSError:
            os.close(fd)
            continue
        try:
            ok = s.family == socket.AF_INET and s.type == socket.SOCK_STREAM and \
                s.getsockname() == (addr, port)
        except OSError:
            ok = False
        if ok:
            ns = libc.ioctl(s.fileno(), SIOCGSKNS)
            if ns < 0:
                fail("SIOCGSKNS: %s" % os.strerror(ctypes.get_errno()))
            if libc.setns(ns, CLONE_NEWNET) < 0:
                fail("setns: %s" % os.strerror(ctypes.get_errno()))
            os.execvp(cmd[0], cmd)
        s.close()
    fail("process %d holds no TCP socket bound to %s:%d" % (pid, addr, port))


main()
