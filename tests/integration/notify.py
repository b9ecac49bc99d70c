#!/usr/bin/env python3
"""notify.py - a stand-in service manager for tests/integration/notify.sh.

Binds an abstract AF_UNIX datagram socket, runs the command given after
"--" with NOTIFY_SOCKET (and the WATCHDOG_* of the options) set, and
prints every message it receives, one per line, as
"MSG <sender pid> <message with newlines as |>". Once it has seen
--stop-after WATCHDOG=1 pings (or READY=1 with 0), it creates --stop-file,
which tells the test's command to end. Ends when the command has exited
and no message is left, or after --limit seconds (a hang guard).
"""
import argparse
import os
import select
import socket
import struct
import subprocess
import sys
import time

ap = argparse.ArgumentParser()
ap.add_argument("--watchdog-usec")
ap.add_argument("--watchdog-pid")
ap.add_argument("--stop-file", required=True)
ap.add_argument("--stop-after", type=int, default=0)
ap.add_argument("--limit", type=float, default=60)
ap.add_argument("cmd", nargs=argparse.REMAINDER)
a = ap.parse_args()
cmd = a.cmd[1:] if a.cmd and a.cmd[0] == "--" else a.cmd

name = "jailrun-notify-test-%d" % os.getpid()
s = socket.socket(socket.AF_UNIX, socket.SOCK_DGRAM | socket.SOCK_CLOEXEC)
s.bind("\0" + name)
s.setsockopt(socket.SOL_SOCKET, socket.SO_PASSCRED, 1)
env = dict(os.environ, NOTIFY_SOCKET="@" + name)
if a.watchdog_usec:
    env["WATCHDOG_USEC"] = a.watchdog_usec
if a.watchdog_pid:
    env["WATCHDOG_PID"] = a.watchdog_pid
p = subprocess.Popen(cmd, env=env)
print("PID %d" % p.pid, flush=True)
end = time.monotonic() + a.limit
pings = 0
stopped = False
while time.monotonic() < end:
    r, _, _ = select.select([s], [], [], 0.1)
    if not r:
        if p.poll() is not None:
            break
        continue
    msg, anc, _, _ = s.recvmsg(4096, socket.CMSG_SPACE(12))
    pid = -1
    for level, typ, data in anc:
        if level == socket.SOL_SOCKET and typ == socket.SCM_CREDENTIALS:
            pid = struct.unpack("iII", data[:12])[0]
    text = msg.decode(errors="replace")
    print("MSG %d %s" % (pid, text.replace("\n", "|")), flush=True)
    lines = text.split("\n")
    pings += "WATCHDOG=1" in lines
    if not stopped and (("READY=1" in lines and a.stop_after == 0)
                        or (a.stop_after and pings >= a.stop_after)):
        open(a.stop_file, "w").close()
        stopped = True
if p.poll() is None:
    p.kill()
    print("HANG: the command was still running after %s s" % a.limit)
print("EXIT %d" % p.wait(), flush=True)
