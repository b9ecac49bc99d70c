#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-or-later
"""leftovers.py - what a live sandbox or a pool holds, and whether any of it
is left once it is stopped (live.sh, pool.sh). Run as root.

  leftovers.py record FILE PID  - note what the runner or pool manager PID
      and every process under it hold that neither PID's own namespaces
      nor this test's are: their pids (with start times), the PID and
      network namespaces they made
      (those of their processes, and of every socket they hold: the relay
      netns has no process, its listeners pin it; pidfd_getfd(2) and the
      SIOCGSKNS ioctl reach it), the cgroups they are in that PID is not,
      and this process's mountinfo (the host's mount namespace).
      Prints "processes N netns N pidns N cgroups N".
  leftovers.py check FILE       - after the stop: exit 1, printing each
      thing left, if a noted process still runs, a noted namespace is still
      referenced (a task, an open nsfs fd, a socket, a mount of it), a
      noted cgroup directory exists, a mount was added to the host's mount
      namespace, or a noted netns that is still referenced holds an nft
      table. A namespace left is printed with the process (and fd) it was
      noted from.

Namespace inode numbers are reused as soon as one is freed, and other
tests make namespaces meanwhile: a namespace is named by NS_GET_ID (Linux
6.18; a 64-bit id never reused), and one that only shares the inode number
is not counted. Without NS_GET_ID the namespaces are not judged (said).
"""
import ctypes
import fcntl
import json
import os
import re
import struct
import subprocess
import sys

SYS_PIDFD_OPEN = 434
SYS_PIDFD_GETFD = 438
SIOCGSKNS = 0x894C
NS_GET_ID = (2 << 30) | (8 << 16) | (0xB7 << 8) | 0xD
libc = ctypes.CDLL(None, use_errno=True)
libc.syscall.restype = ctypes.c_long


def ns_id(fd):
    """The never-reused id of the namespace open at fd, or None."""
    try:
        return struct.unpack("Q", fcntl.ioctl(fd, NS_GET_ID, bytes(8)))[0]
    except OSError:
        return None


def ns_id_of_path(path):
    try:
        fd = os.open(path, os.O_RDONLY | os.O_CLOEXEC)
    except OSError:
        return None
    try:
        return ns_id(fd)
    finally:
        os.close(fd)


def stat_of(pid):
    """(ppid, state, start time) of pid, or None."""
    try:
        with open("/proc/%d/stat" % pid) as f:
            s = f.read()
    except OSError:
        return None
    rest = s[s.rindex(")") + 2:].split()
    return int(rest[1]), rest[0], int(rest[19])


def pids():
    return [int(p) for p in os.listdir("/proc") if p.isdigit()]


def alive(pid, start=None):
    st = stat_of(pid)
    return st is not None and st[1] not in "ZX" and (start is None or st[2] == start)


def descendants(root):
    children = {}
    for p in pids():
        st = stat_of(p)
        if st:
            children.setdefault(st[0], []).append(p)
    out, todo = [], [root]
    while todo:
        p = todo.pop()
        out.append(p)
        todo.extend(children.get(p, []))
    return out


def socket_netns(pid):
    """{ns id: (inode, fd)} of the netns of every socket pid holds."""
    out = {}
    pidfd = libc.syscall(SYS_PIDFD_OPEN, pid, 0)
    if pidfd < 0:
        return out
    try:
        for name in os.listdir("/proc/%d/fd" % pid):
            try:
                if not os.readlink("/proc/%d/fd/%s" % (pid, name)).startswith("socket:"):
                    continue
            except OSError:
                continue
            fd = libc.syscall(SYS_PIDFD_GETFD, pidfd, int(name), 0)
            if fd < 0:
                continue
            ns = libc.ioctl(fd, SIOCGSKNS)
            os.close(fd)
            if ns < 0:
                continue
            i = ns_id(ns)
            if i is not None:
                out[i] = (os.fstat(ns).st_ino, "fd %s" % name)
            os.close(ns)
    except OSError:
        pass
    finally:
        os.close(pidfd)
    return out


def cgroups(pid):
    """{hierarchy line prefix "N:controllers": path} of pid."""
    out = {}
    try:
        with open("/proc/%d/cgroup" % pid) as f:
            for line in f:
                n, ctrl, path = line.rstrip("\n").split(":", 2)
                out[n + ":" + ctrl] = path
    except OSError:
        pass
    return out


def cgroup_dir(hier, path):
    """Where hierarchy hier's cgroup path is in this mount namespace."""
    ctrl = hier.split(":", 1)[1]
    with open("/proc/self/mountinfo") as f:
        for line in f:
            a, b = line.split(" - ")
            fields, after = a.split(), b.split()
            fstype, opts = after[0], after[2].split(",")
            root, mnt = fields[3], fields[4]
            if ctrl == "" and fstype != "cgroup2":
                continue
            if ctrl != "" and (fstype != "cgroup" or not set(ctrl.split(",")) <= set(opts)):
                continue
            if path == root or path.startswith(root.rstrip("/") + "/"):
                return mnt + path[len(root.rstrip("/")):]
    return None


def mounts():
    """The host mount namespace's mounts, as "id mountpoint fstype"; but
    what the other tests that may run now make: the labs' netns mounts
    (/run/netns, nsfs) and mounts under another test's directories."""
    me = os.environ.get("JR_TMP", "/nonexistent")
    home = os.environ.get("JR_HOME", "/nonexistent")
    out = []
    with open("/proc/self/mountinfo") as f:
        for line in f:
            a, b = line.split(" - ")
            fields = a.split()
            mid, mnt, fstype = fields[0], fields[4], b.split()[0]
            if fstype == "nsfs" or mnt == "/run/netns" or mnt.startswith("/run/netns/"):
                continue
            if re.match(r"^/tmp/jailrun-(test|home)\.", mnt) and not (
                    mnt.startswith(me) or mnt.startswith(home)):
                continue
            if mnt.startswith("/mnt/"):
                continue
            out.append("%s %s %s" % (mid, mnt, fstype))
    return out


def record(path, root):
    procs = descendants(root)
    # Namespaces it was started in, or that this test runs in, are not
    # its own: it could make neither, and both outlive it.
    own_net = {ns_id_of_path("/proc/%d/ns/net" % root), ns_id_of_path("/proc/self/ns/net")}
    own_pid = {ns_id_of_path("/proc/%d/ns/pid" % root), ns_id_of_path("/proc/self/ns/pid")}
    own_cg = cgroups(root)
    rec = {"procs": [], "netns": {}, "pidns": {}, "cgroups": {}, "mounts": mounts(),
           "have_ns_id": None not in own_net, "seen": {}}
    for p in procs:
        st = stat_of(p)
        if not st:
            continue
        name = open("/proc/%d/comm" % p).read().strip()
        rec["procs"].append([p, st[2], name])
        nets = socket_netns(p)
        i = ns_id_of_path("/proc/%d/ns/net" % p)
        if i is not None:
            nets[i] = (os.stat("/proc/%d/ns/net" % p).st_ino, "ns/net")
        for i, (ino, where) in nets.items():
            if i not in own_net:
                rec["netns"][str(i)] = ino
                # Where it was seen first: said if it is left.
                rec["seen"].setdefault("net " + str(i), "process %d (%s) %s" % (p, name, where))
        i = ns_id_of_path("/proc/%d/ns/pid" % p)
        if i is not None and i not in own_pid:
            rec["pidns"][str(i)] = os.stat("/proc/%d/ns/pid" % p).st_ino
            rec["seen"].setdefault("pid " + str(i), "process %d (%s)" % (p, name))
        for hier, cg in cgroups(p).items():
            if own_cg.get(hier) != cg:
                d = cgroup_dir(hier, cg)
                if d:
                    rec["cgroups"][d] = hier
    with open(path, "w") as f:
        json.dump(rec, f)
    print("processes %d netns %d pidns %d cgroups %d" % (
        len(rec["procs"]), len(rec["netns"]), len(rec["pidns"]), len(rec["cgroups"])))


def ns_refs(kind, noted):
    """Every reference to a noted namespace of kind ("net", "pid"):
    {id: [(where, a path that opens it, or None)]}. A zombie keeps its
    namespaces until reaped: not counted."""
    inos = set(noted.values())
    found = {}

    def judge(path, ino, where):
        if ino not in inos:
            return
        i = ns_id_of_path(path)
        if i is not None and str(i) in noted:
            found.setdefault(str(i), []).append((where, path))

    for p in pids():
        if not alive(p):
            continue
        try:
            tasks = os.listdir("/proc/%d/task" % p)
        except OSError:
            continue
        for t in tasks:
            path = "/proc/%d/task/%s/ns/%s" % (p, t, kind)
            try:
                judge(path, os.stat(path).st_ino, "task %s (%s)" % (t, comm(p)))
            except OSError:
                pass
        try:
            fds = os.listdir("/proc/%d/fd" % p)
        except OSError:
            continue
        for fd in fds:
            path = "/proc/%d/fd/%s" % (p, fd)
            try:
                link = os.readlink(path)
            except OSError:
                continue
            m = re.match(r"^%s:\[(\d+)\]$" % kind, link)
            if m:
                judge(path, int(m.group(1)), "fd %s of %d (%s)" % (fd, p, comm(p)))
        if kind == "net":
            for i, ino in socket_netns(p).items():
                if str(i) in noted:
                    found.setdefault(str(i), []).append(("a socket of %d (%s)" % (p, comm(p)), None))
    with open("/proc/self/mountinfo") as f:
        for line in f:
            fields = line.split()
            m = re.match(r"^%s:\[(\d+)\]$" % kind, fields[3])
            if m:
                judge(fields[4], int(m.group(1)), "mounted on " + fields[4])
    return found


def comm(p):
    try:
        with open("/proc/%d/comm" % p) as f:
            return f.read().strip()
    except OSError:
        return "?"


def nft_tables(refs):
    """The nft tables of a netns still referenced by refs (ns_refs), entered
    through a task, fd or mount of it."""
    for _, path in refs:
        if path:
            r = subprocess.run(["nsenter", "--net=" + path, "nft", "list", "tables"],
                               capture_output=True, text=True)
            return r.stdout.strip().replace("\n", "; ") or "(none)"
    return "(held by a socket only: not entered)"


def check(path):
    with open(path) as f:
        rec = json.load(f)
    left = []
    for p, start, name in rec["procs"]:
        if alive(p, start):
            left.append("process %d (%s)" % (p, name))
    if rec["have_ns_id"]:
        for kind in ("pid", "net"):
            for i, refs in ns_refs(kind, rec[kind + "ns"]).items():
                left.append("%s namespace id %s (inode %s; noted from %s): %s" % (
                    kind, i, rec[kind + "ns"][i], rec.get("seen", {}).get(kind + " " + i, "?"),
                    ", ".join(w for w, _ in refs)))
                if kind == "net":
                    left.append("  its nft tables: " + nft_tables(refs))
    else:
        print("info: no NS_GET_ID here: namespaces not judged")
    for d, hier in rec["cgroups"].items():
        if os.path.exists(d):
            try:
                procs = open(os.path.join(d, "cgroup.procs")).read().split()
            except OSError:
                procs = ["?"]
            left.append("cgroup %s (%s), processes: %s" % (d, hier, " ".join(procs) or "none"))
    before = set(rec["mounts"])
    for m in mounts():
        if m not in before:
            left.append("mount " + m)
    for line in left:
        print("left: " + line)
    if left:
        sys.exit(1)
    print("nothing left of %d processes, %d netns, %d pidns, %d cgroups" % (
        len(rec["procs"]), len(rec["netns"]), len(rec["pidns"]), len(rec["cgroups"])))


def main():
    if len(sys.argv) == 4 and sys.argv[1] == "record":
        record(sys.argv[2], int(sys.argv[3]))
    elif len(sys.argv) == 3 and sys.argv[1] == "check":
        check(sys.argv[2])
    else:
        sys.exit("usage: leftovers.py record FILE PID | check FILE")


main()
