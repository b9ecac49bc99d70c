# SPDX-License-Identifier: GPL-2.0-or-later
"""jailrun_client - drive jailrun's live sandboxes from a Python harness.

Standard library only (Python >= 3.8). It runs the jailrun command line
(jailrun(1), LIVE SANDBOXES) rather than speaking its socket protocol,
which is jailrun's private business: what the man page documents is what
this module relies on, exit statuses included.

    from jailrun_client import Sandbox

    with Sandbox("task-42", allow=["api.example.com"]) as sb:
        status, out, err = sb.exec(["python3", "-c", "print(6 * 7)"])
        sb.write_file("notes.txt", b"hello")
        data = sb.read_file("notes.txt")

A sandbox keeps its state between exec() calls: its files, its network
policy, its limits. stop() (or leaving the with block) ends it and leaves
nothing behind.

Started with options=["--ask"], a request the allowlist refuses waits for
a decision: pending() lists the held ones, approve(id) or deny(id)
decides (jailrun ctl NAME, jailrun(1) Per-request approval).
"""

import json
import os
import shlex
import subprocess

__all__ = ["Sandbox", "JailrunError", "live_names"]

# jailrun's own failure (jailrun(1), EXIT STATUS).
EXIT_JAILRUN = 125


class JailrunError(RuntimeError):
    """jailrun itself failed (exit 125): the message is jailrun's."""

    def __init__(self, what, status, stderr):
        self.status = status
        self.stderr = stderr
        msg = stderr.decode(errors="replace").strip() if stderr else ""
        super().__init__("%s: status %d%s" % (what, status, ": " + msg if msg else ""))


class Sandbox:
    """One live sandbox, named NAME, on this host.

    allow: --allow entries; options: any further jailrun options, as a
    list of arguments (e.g. ["--net", "none", "--memory", "2g"]); jailrun:
    the jailrun binary (default: "jailrun" on PATH, or $JAILRUN).
    """

    def __init__(self, name, allow=(), options=(), jailrun=None):
        self.name = name
        self.allow = list(allow)
        self.options = list(options)
        self.jailrun = jailrun or os.environ.get("JAILRUN", "jailrun")
        self.started = False

    def _run(self, args, **kw):
        return subprocess.run([self.jailrun] + args, stdout=subprocess.PIPE,
                              stderr=subprocess.PIPE, **kw)

    def start(self, idle_stop=None):
        """Build the sandbox; returns once its lockdown is verified.

        idle_stop: seconds without a command after which jailrun stops it
        by itself (--idle-stop). Raises JailrunError if jailrun refuses.
        """
        args = ["start", self.name]
        if idle_stop is not None:
            args += ["--idle-stop", str(idle_stop)]
        for a in self.allow:
            args += ["--allow", a]
        p = self._run(args + self.options, stdin=subprocess.DEVNULL)
        if p.returncode != 0:
            raise JailrunError("jailrun start %s" % self.name, p.returncode, p.stderr)
        self.started = True
        return self

    def exec(self, argv, input=None, timeout=None, env=None, cwd=None):
        """Run argv in the sandbox; returns (status, stdout, stderr).

        status follows a run's conventions: the command's own, 126/127
        when it cannot be run, 128+N when signal N killed it. input: bytes
        for its stdin (else it reads nothing). timeout: seconds, after
        which the command is killed and subprocess.TimeoutExpired raised.
        env: {NAME: VALUE} on top of the sandbox's environment; cwd: the
        working directory inside. Raises JailrunError when jailrun itself
        fails (no such sandbox, a cwd that does not exist).
        """
        if isinstance(argv, str):
            raise TypeError("argv is a list of arguments; for a shell line use ['sh', '-c', line]")
        args = ["exec", self.name]
        for k, v in (env or {}).items():
            args += ["--env", "%s=%s" % (k, v)]
        if cwd is not None:
            args += ["--cwd", cwd]
        args += ["--"] + list(argv)
        # jailrun exec passes its own stdio to the command; when it dies
        # (the timeout's kill), the command is killed with it.
        p = subprocess.run([self.jailrun] + args, input=input if input is not None else b"",
                           stdout=subprocess.PIPE, stderr=subprocess.PIPE, timeout=timeout)
        if p.returncode == EXIT_JAILRUN and p.stderr.startswith(b"jailrun"):
            raise JailrunError("jailrun exec %s -- %s" % (self.name, shlex.join(argv)),
                               p.returncode, p.stderr)
        return p.returncode, p.stdout, p.stderr

    def read_file(self, path):
        """The bytes of path inside the sandbox (as its user reads it)."""
        status, out, err = self.exec(["cat", "--", path])
        if status != 0:
            raise OSError("cannot read %s in sandbox %s: %s"
                          % (path, self.name, err.decode(errors="replace").strip()))
        return out

    def write_file(self, path, data):
        """Write data (bytes or str) to path inside the sandbox."""
        if isinstance(data, str):
            data = data.encode()
        status, _, err = self.exec(["sh", "-c", 'cat > "$1"', "sh", path], input=data)
        if status != 0:
            raise OSError("cannot write %s in sandbox %s: %s"
                          % (path, self.name, err.decode(errors="replace").strip()))

    def _ctl(self, *op):
        """jailrun ctl NAME OP...: the answer, as a dict."""
        p = self._run(["ctl", self.name] + list(op), stdin=subprocess.DEVNULL)
        if p.returncode == EXIT_JAILRUN:
            raise JailrunError("jailrun ctl %s %s" % (self.name, " ".join(op)),
                               p.returncode, p.stderr)
        answer = json.loads(p.stdout.decode())
        if not answer.get("ok"):
            raise JailrunError("jailrun ctl %s %s: %s" % (self.name, " ".join(op),
                                                         answer.get("error")),
                               p.returncode, p.stderr)
        return answer

    def pending(self):
        """The held requests (started with --ask): a list of dicts with
        id, host, port (None for a lookup), via and age_ms."""
        return self._ctl("pending")["pending"]

    def approve(self, request_id, always=False):
        """Let held request request_id through; always: also allow its
        host (and port) for the rest of the sandbox's life."""
        self._ctl("approve", str(request_id), *(["--always"] if always else []))

    def deny(self, request_id):
        """Refuse held request request_id, as the allowlist would have."""
        self._ctl("deny", str(request_id))

    def stop(self):
        """End the sandbox; returns once nothing of it is left."""
        p = self._run(["stop", self.name], stdin=subprocess.DEVNULL)
        self.started = False
        if p.returncode != 0:
            raise JailrunError("jailrun stop %s" % self.name, p.returncode, p.stderr)

    def __enter__(self):
        return self.start() if not self.started else self

    def __exit__(self, *exc):
        if self.started:
            self.stop()
        return False


def live_names(jailrun=None):
    """The names of this user's live sandboxes (jailrun ls)."""
    j = jailrun or os.environ.get("JAILRUN", "jailrun")
    p = subprocess.run([j, "ls"], stdout=subprocess.PIPE, stderr=subprocess.PIPE, check=False)
    if p.returncode != 0:
        raise JailrunError("jailrun ls", p.returncode, p.stderr)
    lines = p.stdout.decode().splitlines()
    return [l.split()[0] for l in lines[1:] if l.strip()]
