#!/bin/bash
# With a terminal on stdin, the command gets its own pseudo-terminal:
# not the caller's tty, same window size, resized on SIGWINCH, input relayed,
# the caller's terminal settings restored, and TIOCSTI from inside never
# reaches the caller's terminal. What the command writes reaches the
# caller's terminal without the sequences that act outside the pane
# (clipboard, titles, links, window reports), and with --raw-tty unchanged;
# also when only the output is a terminal.
# Fails if: the command shares the caller's tty, a relay direction breaks,
# a resize is lost, the terminal is left raw, injected input escapes, an
# OSC 52 or title sequence reaches the caller's terminal, colours or text
# are lost, --raw-tty changes a byte, -v does not say what was dropped, or
# a command with stdin not a terminal writes to the caller's terminal itself,
# or the terminal modes a command leaves set (alternate screen, mouse,
# hidden cursor, charset, kitty keyboard) are not reset at exit, or are
# reset when the command did not set them.
. "${JR_TOP_SRCDIR:-$(dirname "$0")/../..}/tests/lib.sh"
jr_require_sandbox
command -v python3 >/dev/null || skip "python3 is needed"

# tty_output VARIANT [PREFIX...] - run jailrun on a new pty with a command
# that writes OSC 52, titles (7-bit and C1), a hyperlink, a title report
# request, colours and U+276F; check what the caller's side receives.
tty_output() {
	python3 - "$JR" "$@" <<'PY'
import os, pty, select, sys, time

jr, variant = sys.argv[1], sys.argv[2]
prefix = sys.argv[3:]
cmd = (r"printf 'BEFORE\033]52;c;SkFJTFJVTgo=\007\033]0;JR-TITLE\007"
       r"\033[31mRED-TEXT\033[0m\302\2352;JR-C1-TITLE\302\234"
       r"\033]8;;http://jr.invalid/\033\\LINK-TEXT\033]8;;\033\\"
       r"\033[21t\342\235\257AFTER\n'"
       r'; echo "FD1=$(readlink /proc/$$/fd/1) OUTER=$JR_OUTER_TTY"')
opts = {"filtered": [], "c-locale": [], "verbose": ["-v"],
        "raw": ["--raw-tty"], "stdin-null": []}[variant]
env = {k: v for k, v in os.environ.items()
       if k not in ("LC_ALL", "LC_CTYPE", "LANG")}
env["LC_ALL"] = "C" if variant == "c-locale" else "C.UTF-8"
pid, fd = pty.fork()
if pid == 0:
    argv = prefix + [jr] + opts + ["--", "sh", "-c", cmd]
    env["JR_OUTER_TTY"] = os.ttyname(1)
    if variant == "stdin-null":
        # Only the output is a terminal: still filtered, still a pty of
        # the command's own, not the caller's terminal.
        os.dup2(os.open("/dev/null", os.O_RDONLY), 0)
    os.execvpe(argv[0], argv, env)
deadline = time.monotonic() + 30
out = b""
while True:
    left = deadline - time.monotonic()
    if left <= 0:
        os.kill(pid, 9)
        raise SystemExit("timeout; got %r" % out)
    if not select.select([fd], [], [], left)[0]:
        continue
    try:
        data = os.read(fd, 4096)
    except OSError:
        break  # EIO: jailrun and everything on the pty are gone
    if not data:
        break
    out += data
_, status = os.waitpid(pid, 0)
print("received:", repr(out))

osc52 = b"\033]52;c;SkFJTFJVTgo=\007"
checks = [("exit 0", os.WIFEXITED(status) and os.WEXITSTATUS(status) == 0),
          ("text", b"BEFORE" in out and b"AFTER" in out),
          ("colours", b"\033[31mRED-TEXT\033[0m" in out),
          ("link text", b"LINK-TEXT" in out)]
fd1 = [l for l in out.decode(errors="replace").splitlines()
       if l.startswith("FD1=")]
inner, outer = fd1[0].split() if fd1 else ("", "")
checks += [("stdout a pty of its own",
            inner.startswith("FD1=/dev/pts/") and outer.startswith("OUTER=/dev/") and
            inner[4:] != outer[6:])]
if variant == "raw":
    checks += [("OSC 52 unchanged", osc52 in out),
               ("title unchanged", b"\033]0;JR-TITLE\007" in out),
               ("C1 title unchanged", b"\302\2352;JR-C1-TITLE\302\234" in out),
               ("title report unchanged", b"\033[21t" in out),
               ("link unchanged", b"\033]8;;http://jr.invalid/\033\\" in out),
               ("U+276F unchanged", "\u276f".encode() in out)]
else:
    checks += [("no OSC 52", b"52;c;" not in out and b"SkFJTFJVTgo" not in out),
               ("no title", b"JR-TITLE" not in out and b"JR-C1-TITLE" not in out),
               ("no OSC at all", b"\033]" not in out and b"\302\235" not in out),
               ("no title report", b"[21t" not in out),
               ("no link target", b"jr.invalid" not in out)]
    if variant == "c-locale":
        # 0x9d inside U+276F would be OSC to an 8-bit terminal.
        checks += [("U+276F replaced", "\u276f".encode() not in out and
                    b"\357\277\275AFTER" in out)]
    else:
        checks += [("U+276F intact", "\u276f".encode() + b"AFTER" in out)]
if variant == "verbose":
    checks += [("-v says what was dropped",
                b"dropped 6 terminal sequences that act outside the pane: "
                b"OSC 0, 1, 2 (2), OSC 8 (2), OSC 52 (1), CSI ... t (1) "
                b"(--raw-tty passes them)" in out)]
bad = [name for name, held in checks if not held]
for name, held in checks:
    print(("check held: " if held else "CHECK BROKEN: ") + name)
if bad:
    sys.exit(1)
print("ALL-CHECKS-HELD")
PY
}

# tty_modes VARIANT [PREFIX...] - run jailrun on a new pty with a command
# that sets terminal modes and dies without resetting them (set, raw), or
# resets them itself (clean), or sets none (none); check what the caller's
# terminal receives after the command's last byte.
tty_modes() {
	python3 - "$JR" "$@" <<'PY'
import os, pty, select, sys, time

jr, variant = sys.argv[1], sys.argv[2]
prefix = sys.argv[3:]
modes = (r"\033[?1049h\033[>1u\033[?1000h\033[?1006h\033[?25l"
         r"\033(0\016\033[?2004h")
undo = (r"\017\033(B\033[?2004l\033[?25h\033[?1006l\033[?1000l"
        r"\033[<u\033[?1049l")
cmd = {"set": "printf '%s'; echo MODES-SET; kill -9 $$" % modes,
       "raw": "printf '%s'; echo MODES-SET; kill -9 $$" % modes,
       "clean": "printf '%s%s'; echo MODES-SET" % (modes, undo),
       "none": "echo MODES-SET"}[variant]
opts = ["--raw-tty"] if variant == "raw" else []
pid, fd = pty.fork()
if pid == 0:
    argv = prefix + [jr] + opts + ["--", "sh", "-c", cmd]
    os.execvp(argv[0], argv)
deadline = time.monotonic() + 30
out = b""
while True:
    left = deadline - time.monotonic()
    if left <= 0:
        os.kill(pid, 9)
        raise SystemExit("timeout; got %r" % out)
    if not select.select([fd], [], [], left)[0]:
        continue
    try:
        data = os.read(fd, 4096)
    except OSError:
        break  # EIO: jailrun and everything on the pty are gone
    if not data:
        break
    out += data
os.waitpid(pid, 0)
after = out.split(b"MODES-SET", 1)[1] if b"MODES-SET" in out else None
print("received after the command:", repr(after))
resets = [b"\033[?1049l", b"\033[?1000l", b"\033[?1006l", b"\033[?25h",
          b"\033(B", b"\017", b"\033[?2004l"]
checks = [("the command ran", after is not None)]
if variant in ("set", "raw"):
    checks += [("reset %r" % r, after is not None and r in after)
               for r in resets]
    # The kitty entry was pushed on the alternate screen: popped there.
    checks += [("kitty entry popped before leaving the alternate screen",
                after is not None and b"\033[<1u\033[?1049l" in after),
               ("the screen is not cleared",
                after is not None and b"\033[2J" not in after and
                b"\033c" not in after)]
else:
    checks += [("nothing reset that was not set",
                after is not None and b"\033" not in after and
                b"\017" not in after)]
bad = [name for name, held in checks if not held]
for name, held in checks:
    print(("check held: " if held else "CHECK BROKEN: ") + name)
if bad:
    sys.exit(1)
print("ALL-CHECKS-HELD")
PY
}

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
# The isolated layout has a devpts of its own; the pty jailrun allocated
# outside is bound at /dev/console there (as bubblewrap does), so that is
# its name inside. --fs host keeps the host's /dev/pts.
assert (inner.startswith("/dev/pts/") or inner == "/dev/console") and \
    inner != outer_name, (inner, outer_name)
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

	for v in filtered c-locale verbose raw stdin-null; do
		expect_status 0 "$m: terminal output, $v" tty_output "$v" "${prefix[@]}"
		expect_output_has "$m: $v: every check held" "ALL-CHECKS-HELD"
	done

	for v in set raw clean none; do
		expect_status 0 "$m: terminal modes at exit, $v" tty_modes "$v" "${prefix[@]}"
		expect_output_has "$m: modes $v: every check held" "ALL-CHECKS-HELD"
	done
done

finish
