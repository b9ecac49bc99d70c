#!/bin/bash
# With a terminal on stdin, the command gets its own pseudo-terminal:
# not the caller's tty, same window size, resized on SIGWINCH, input relayed,
# the caller's terminal settings restored, and TIOCSTI from inside never
# reaches the caller's terminal.
# Fails if: the command shares the caller's tty, a relay direction breaks,
# a resize is lost, the terminal is left raw, or injected input escapes.
. "${JR_TOP_SRCDIR:-$(dirname "$0")/../..}/tests/lib.sh"
jr_require_sandbox
command -v python3 >/dev/null || skip "python3 is needed"

for m in $(jr_modes); do
	prefix=()
	if [ "$m" = rootless ] && [ "$(id -u)" -eq 0 ]; then
		prefix=(setpriv --reuid="$JR_NOBODY_UID" --regid="$JR_NOBODY_GID" --clear-groups --)
	fi
	expect_status 0 "$m: pty session" python3 - "$JR" "${prefix[@]}" <<'PY'
import fcntl, os, pty, select, signal, struct, sys, termios, time

jr = sys.argv[1]
prefix = sys.argv[2:]
deadline = time.monotonic() + 30

def set_winsize(fd, rows, cols):
    fcntl.ioctl(fd, termios.TIOCSWINSZ, struct.pack("HHHH", rows, cols, 0, 0))

master, slave = pty.openpty()
set_winsize(slave, 31, 97)
outer_name = os.ttyname(slave)
before = termios.tcgetattr(slave)
script = r'''
echo "TTY=$(tty)"
echo "SIZE=$(stty size)"
W=
trap 'echo "WINCH=$(stty size)"; W=1' WINCH
echo READY
# bash runs traps between commands, not inside the read builtin.
i=0; while [ -z "$W" ] && [ $i -lt 100 ]; do sleep 0.1; i=$((i+1)); done
read line
echo "GOT=$line"
python3 -c 'import fcntl, termios
for ch in b"echo INJECTED\n":
    try:
        fcntl.ioctl(0, termios.TIOCSTI, bytes([ch]))
    except OSError as e:
        print("TIOCSTI", e.strerror); break
else:
    print("TIOCSTI done")'
'''
pid = os.fork()
if pid == 0:
    os.setsid()
    fcntl.ioctl(slave, termios.TIOCSCTTY, 0)
    for fd in (0, 1, 2):
        os.dup2(slave, fd)
    os.close(master)
    os.execvp(prefix[0] if prefix else jr, prefix + [jr, "--", "bash", "-c", script])

buf = b""
def read_until(token):
    global buf
    while token not in buf:
        if time.monotonic() > deadline:
            raise SystemExit("timeout waiting for %r; got %r" % (token, buf))
        r, _, _ = select.select([master], [], [], 0.5)
        if r:
            try:
                data = os.read(master, 4096)
            except OSError:
                raise SystemExit("EOF waiting for %r; got %r" % (token, buf))
            buf += data

read_until(b"READY")
set_winsize(slave, 45, 120)
jpid = [int(p) for p in os.popen("pgrep -o -f '^%s -- bash -c'" % jr).read().split()]
os.kill(jpid[0], signal.SIGWINCH)
read_until(b"WINCH=45 120")
os.write(master, b"hello-through-the-pty\r")
read_until(b"GOT=hello-through-the-pty")
read_until(b"TIOCSTI")
_, status = os.waitpid(pid, 0)
# Drain the rest.
while True:
    r, _, _ = select.select([master], [], [], 0.2)
    if not r:
        break
    try:
        data = os.read(master, 4096)
    except OSError:
        break
    if not data:
        break
    buf += data
text = buf.decode(errors="replace")
print(text)
inner = [l for l in text.splitlines() if l.startswith("TTY=")][0][4:].strip()
assert inner.startswith("/dev/pts/") and inner != outer_name, (inner, outer_name)
print("OK-OWN-PTY inner=%s outer=%s" % (inner, outer_name))
assert "SIZE=31 97" in text, text
print("OK-INITIAL-SIZE")
print("OK-RESIZE")
print("OK-INPUT")
assert os.WIFEXITED(status) and os.WEXITSTATUS(status) == 0, status
after = termios.tcgetattr(slave)
assert after == before, (before, after)
print("OK-TERMIOS-RESTORED")
# Anything injected into the caller's terminal would now be readable by
# the caller's next reader of the slave.
fl = fcntl.fcntl(slave, fcntl.F_GETFL)
fcntl.fcntl(slave, fcntl.F_SETFL, fl | os.O_NONBLOCK)
try:
    leaked = os.read(slave, 4096)
except BlockingIOError:
    leaked = b""
assert b"INJECTED" not in leaked, leaked
print("OK-NO-INJECTION")
PY
	for k in OK-OWN-PTY OK-INITIAL-SIZE OK-RESIZE OK-INPUT OK-TERMIOS-RESTORED OK-NO-INJECTION; do
		expect_output_has "$m: $k" "$k"
	done

	# On a terminal, jailrun says at exit what was denied. The request is
	# refused by the relay's policy and never leaves the machine (a name
	# that is not allowed is neither resolved nor connected to).
	expect_status 0 "$m: denied summary on a terminal" python3 -c '
import os, pty, sys
pid, fd = pty.fork()
if pid == 0:
    os.execvp(sys.argv[1], sys.argv[1:])
out = b""
while True:
    try:
        b = os.read(fd, 4096)
    except OSError:
        break
    if not b:
        break
    out += b
os.waitpid(pid, 0)
print(out.decode(errors="replace"))
' "${prefix[@]}" "$JR" --net allowlist -- sh -c 'curl -sS -m 5 http://denied.test/ >/dev/null; curl -sS -m 5 http://denied.test/ >/dev/null'
	expect_output_has "$m: one line naming the denied destination" "jailrun: denied 2 connections: denied.test:80 (2) (add --allow for what the command needs)"
done

finish
