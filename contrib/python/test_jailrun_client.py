# SPDX-License-Identifier: GPL-2.0-or-later
"""Tests of jailrun_client against a real `jailrun start`.

Run by tests/integration/pyclient.sh in its lab, as root and rootless:
$JAILRUN is the jailrun to drive, $JR_ALLOWED_URL a URL the sandbox's
policy allows, $JR_DENIED_URL one it does not, $JR_NAME a sandbox name of
the test's own. `python3 -m unittest -v test_jailrun_client`.
"""

import os
import subprocess
import sys
import time
import unittest

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from jailrun_client import JailrunError, Sandbox, live_names  # noqa: E402

NAME = os.environ.get("JR_NAME", "pyclient")
ALLOWED = os.environ["JR_ALLOWED_URL"]
DENIED = os.environ["JR_DENIED_URL"]
ALLOWED_HOST = ALLOWED.split("/")[2]
FETCH = ("import sys, urllib.request\n"
         "try:\n"
         "    urllib.request.urlopen(sys.argv[1], timeout=20).read()\n"
         "    print('reached')\n"
         "except Exception as e:\n"
         "    print('refused', e)\n")


class LiveSandbox(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        cls.sb = Sandbox(NAME, allow=[ALLOWED_HOST]).start()

    @classmethod
    def tearDownClass(cls):
        if cls.sb.started:
            cls.sb.stop()

    def test_exec_status_and_output(self):
        self.assertEqual(self.sb.exec(["sh", "-c", "echo out; echo err >&2; exit 3"]),
                         (3, b"out\n", b"err\n"))
        self.assertEqual(self.sb.exec(["true"])[0], 0)

    def test_exec_conventions(self):
        self.assertEqual(self.sb.exec(["/nonexistent/jr-py"])[0], 127)
        self.assertEqual(self.sb.exec(["sh", "-c", "kill -9 $$"])[0], 128 + 9)

    def test_input(self):
        self.assertEqual(self.sb.exec(["tr", "a-z", "A-Z"], input=b"hello")[1], b"HELLO")

    def test_state_kept_between_execs(self):
        self.sb.write_file("/tmp/jr-py-state", "kept")
        self.assertEqual(self.sb.read_file("/tmp/jr-py-state"), b"kept")
        self.assertEqual(self.sb.exec(["cat", "/tmp/jr-py-state"])[1], b"kept")

    def test_env_and_cwd(self):
        st, out, _ = self.sb.exec(["sh", "-c", 'echo "$JR_PY_X $PWD"'],
                                  env={"JR_PY_X": "x1"}, cwd="/tmp")
        self.assertEqual((st, out), (0, b"x1 /tmp\n"))

    def test_policy_holds(self):
        self.assertEqual(self.sb.exec(["python3", "-c", FETCH, ALLOWED])[1].split()[0], b"reached")
        self.assertEqual(self.sb.exec(["python3", "-c", FETCH, DENIED])[1].split()[0], b"refused")

    def test_no_capabilities_and_filtered(self):
        status = self.sb.exec(["cat", "/proc/self/status"])[1].decode()
        fields = dict(l.split(":", 1) for l in status.splitlines() if ":" in l)
        self.assertEqual(int(fields["CapEff"].strip(), 16), 0)
        self.assertEqual(fields["Seccomp"].strip(), "2")
        self.assertEqual(fields["NoNewPrivs"].strip(), "1")

    def test_timeout_kills(self):
        with self.assertRaises(subprocess.TimeoutExpired):
            self.sb.exec(["sleep", "617"], timeout=1)
        # The command dies with its killed client: wait (bounded, a hang
        # guard) until no such process is left in the sandbox.
        alive = ("import os\n"
                 "print(sum(1 for p in os.listdir('/proc') if p.isdigit() and\n"
                 "    open('/proc/%s/cmdline' % p, 'rb').read() == b'sleep\\0' b'617\\0'))\n")
        deadline = time.monotonic() + 60
        while self.sb.exec(["python3", "-c", alive])[1].strip() != b"0":
            self.assertLess(time.monotonic(), deadline, "the timed-out command lives on")
            time.sleep(0.05)
        # the sandbox goes on
        self.assertEqual(self.sb.exec(["true"])[0], 0)

    def test_jailrun_errors(self):
        with self.assertRaises(JailrunError) as cm:
            self.sb.exec(["true"], cwd="/nonexistent/jr-py")
        self.assertEqual(cm.exception.status, 125)
        with self.assertRaises(TypeError):
            self.sb.exec("echo not a list")

    def test_listed(self):
        self.assertIn(NAME, live_names())


class Approval(unittest.TestCase):
    """--ask on a live sandbox, decided through the client."""

    def held(self, sb, host):
        deadline = time.monotonic() + 60  # a hang guard, not a time limit
        while True:
            for r in sb.pending():
                if r["host"] == host:
                    return r
            self.assertLess(time.monotonic(), deadline, "never held: %s" % host)
            time.sleep(0.05)

    def test_deny_then_decided(self):
        denied_host = DENIED.split("/")[2]
        with Sandbox(NAME + "-ask", allow=[ALLOWED_HOST], options=["--ask"]) as sb:
            self.assertEqual(sb.pending(), [])
            args = [sb.jailrun, "exec", sb.name, "--", "python3", "-c", FETCH]
            fetch = subprocess.Popen(args + [DENIED], stdout=subprocess.PIPE)
            r = self.held(sb, denied_host)
            self.assertEqual((r["port"], r["via"]), (80, "proxy"))
            sb.deny(r["id"])
            self.assertEqual(fetch.communicate(timeout=60)[0].split()[0], b"refused")
            with self.assertRaises(JailrunError):
                sb.approve(r["id"])  # decided already: no such request
            self.assertEqual(sb.pending(), [])


class Lifecycle(unittest.TestCase):
    def test_with_block_stops(self):
        name = NAME + "-with"
        with Sandbox(name, options=["--net", "none"]) as sb:
            self.assertIn(name, live_names())
            self.assertEqual(sb.exec(["true"])[0], 0)
        self.assertNotIn(name, live_names())
        with self.assertRaises(JailrunError):
            Sandbox(name).exec(["true"])

    def test_refused_start(self):
        with self.assertRaises(JailrunError) as cm:
            Sandbox(NAME + "-bad", allow=["bad entry!"]).start()
        self.assertEqual(cm.exception.status, 125)
        self.assertIn(b"bad entry!", cm.exception.stderr)


if __name__ == "__main__":
    unittest.main()
