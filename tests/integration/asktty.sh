#!/bin/bash
# --ask tty: a request the allowlist refuses is held and asked about on
# jailrun's controlling terminal, in a lab, as root and rootless. jailrun
# runs on a pseudo-terminal of python3's (its controlling terminal); the
# command makes a proxy request to denied.test, then reads a line of its
# stdin and prints it. The test waits for the prompt on the master, types
# a key, waits for the request's status, then types a line for the
# command.
# Fails if: no prompt appears for the held request (or its words differ);
# 'o' does not let it through (200); 'd' does not refuse it (403); 'a'
# does not also let the next request to the same place through without a
# second prompt; the key typed at the prompt reaches the command's stdin;
# a key that is no choice decides anything; a request that times out
# or is approved on --control while on the terminal is not said to be
# "(decided elsewhere)" (or is not let through);
# --ask tty needs --control;
# without a controlling terminal jailrun runs the command instead of
# exiting 125 with the message that says to use --control; jailrun start
# takes --ask tty, with no terminal to ask on.
. "${JR_TOP_SRCDIR:-$(dirname "$0")/../..}/tests/lib.sh"
. "$JR_TOP_SRCDIR/tests/lab/lib.sh"
jr_require_sandbox
command -v python3 >/dev/null || skip "python3 is needed"
lab_setup --timeout 600 asktty # a hang guard, not a time limit
lab_on_exit jr_cleanup_tmp
XDG="$JR_W/xdg" # the rootless caller's XDG_RUNTIME_DIR (jailrun start)
mkdir -m 700 "$XDG"
[ "$(id -u)" -ne 0 ] || chown "$JR_NOBODY_UID:$JR_NOBODY_GID" "$XDG"
if [ -x /usr/bin/python3 ]; then PYTHON=/usr/bin/python3; else PYTHON=$(command -v python3); fi

# drive.py KEYS N ARGV... - run ARGV on a new pty (its controlling
# terminal). For each key in KEYS: wait for a prompt, type the key ("!":
# type nothing, wait for "(decided elsewhere)"; "@": the same after
# running $ASKTTY_ON_PROMPT). Then
# wait for N status lines ("CODE=nnn") and type "hello\r"; wait for the
# command's "GOT[...]" line and its end. Prints what the master received.
cat >"$JR_TMP/drive.py" <<'PY'
import os, pty, re, select, sys, time

keys, n = sys.argv[1], int(sys.argv[2])
argv = sys.argv[3:]
PROMPT = b"allow [o]nce, [a]lways, or [d]eny? "
pid, fd = pty.fork()
if pid == 0:
    os.execvp(argv[0], argv)
out = b""
deadline = time.monotonic() + 300  # a hang guard only


def wait_for(cond, what):
    global out
    while not cond(out):
        left = deadline - time.monotonic()
        if left <= 0:
            os.kill(pid, 9)
            sys.exit("timeout waiting for %s; got %r" % (what, out))
        if not select.select([fd], [], [], left)[0]:
            continue
        try:
            data = os.read(fd, 4096)
        except OSError:
            data = b""
        if not data:
            sys.exit("EOF waiting for %s; got %r" % (what, out))
        out += data


for i, k in enumerate(keys):
    wait_for(lambda o, i=i: o.count(PROMPT) > i, "prompt %d" % (i + 1))
    if k == "@":  # decide it on the control socket: $ASKTTY_ON_PROMPT
        os.system(os.environ["ASKTTY_ON_PROMPT"])
    if k in "!@":  # no key: the request is decided elsewhere
        wait_for(lambda o: b"(decided elsewhere)" in o, "decided elsewhere")
    else:
        os.write(fd, k.encode())
wait_for(lambda o: len(re.findall(rb"CODE=\d+", o)) >= n, "%d statuses" % n)
os.write(fd, b"hello\r")
wait_for(lambda o: re.search(rb"GOT\[[^\]]*\]", o), "the command's line")
while True:
    try:
        data = os.read(fd, 4096)
    except OSError:
        break
    if not data:
        break
    out += data
_, status = os.waitpid(pid, 0)
sys.stdout.write(out.decode(errors="replace"))
sys.stdout.write("\nEXIT=%d\n" % (os.WEXITSTATUS(status) if os.WIFEXITED(status) else 128))
PY
chmod 644 "$JR_TMP/drive.py"

# run_tty MODE KEYS N CMD - jailrun --ask tty in the lab host as MODE's
# caller on a pty, the command CMD; the master's bytes in $JR_OUT.
run_tty() {
	local m=$1 keys=$2 n=$3 cmd=$4 user=()
	shift 4
	[ "$m" = root ] || user=(setpriv --reuid="$JR_NOBODY_UID" --regid="$JR_NOBODY_GID" --clear-groups --)
	JR_OUT=$(ip netns exec "$LAB_HOST_NS" "${user[@]}" env -C "$JR_TMP" HOME="$JR_HOME" \
		"$PYTHON" "$JR_TMP/drive.py" "$keys" "$n" \
		timeout -k 5 300 "$JR" --allow allowed.test:80 --ask tty "$@" -- sh -c "$cmd" 2>&1) || true
}
# no_tty MODE ARGS... - jailrun ARGS in the lab host as MODE's caller, in
# a session of its own (setsid): no controlling terminal.
no_tty() {
	local m=$1 user=()
	shift
	[ "$m" = root ] || user=(setpriv --reuid="$JR_NOBODY_UID" --regid="$JR_NOBODY_GID" --clear-groups --)
	setsid -w ip netns exec "$LAB_HOST_NS" "${user[@]}" env -C "$JR_TMP" HOME="$JR_HOME" XDG_RUNTIME_DIR="$XDG" \
		timeout -k 5 300 "$JR" "$@" </dev/null
}
C='curl -sS -m 200 -o /dev/null -w "CODE=%{http_code}\n"'
READ='IFS= read -r line; echo "GOT[$line]"'
PROMPT_TEXT='jailrun: the command asks for denied.test:80 (via proxy): allow [o]nce, [a]lways, or [d]eny? '

has() { grep -qF -- "$2" <<<"$JR_OUT" && ok "$1" || fail "$1: no '$2' in: $JR_OUT"; }
lacks() { grep -qF -- "$2" <<<"$JR_OUT" && fail "$1: '$2' in: $JR_OUT" || ok "$1"; }

for m in $(jr_modes); do
	# ------------------------------------------------ once
	run_tty "$m" o 1 "$C http://denied.test/once; $READ"
	has "$m: the held request is asked about on the terminal" "$PROMPT_TEXT"
	has "$m: 'o' lets it through" "CODE=200"
	has "$m: the command reads its own line" "GOT[hello]"
	lacks "$m: the key pressed at the prompt never reaches the command" "GOT[o"
	has "$m: the run ends well" "EXIT=0"

	# ------------------------------------------------ a key that is no choice, then deny
	run_tty "$m" xd 1 "$C http://denied.test/deny; $READ"
	has "$m: 'd' refuses it as the policy does" "CODE=403"
	[ "$(grep -cF -- "$PROMPT_TEXT" <<<"$JR_OUT")" = 2 ] &&
		ok "$m: a key that is no choice asks again" ||
		fail "$m: a key that is no choice asks again: $JR_OUT"
	has "$m: and the command still reads its own line" "GOT[hello]"

	# ------------------------------------------------ always
	run_tty "$m" a 2 "$C http://denied.test/a1; $C http://denied.test/a2; $READ"
	[ "$(grep -c 'CODE=200' <<<"$JR_OUT")" = 2 ] &&
		ok "$m: 'a' lets it and the next request through" ||
		fail "$m: 'a' lets it and the next request through: $JR_OUT"
	[ "$(grep -cF -- "$PROMPT_TEXT" <<<"$JR_OUT")" = 1 ] &&
		ok "$m: the next request is not asked about" ||
		fail "$m: the next request is not asked about: $JR_OUT"
	has "$m: with 'a' too the command reads its own line" "GOT[hello]"

	# ------------------------------------------------ decided elsewhere
	run_tty "$m" '!' 1 "$C http://denied.test/late; $READ" --ask-timeout 1
	has "$m: a request that times out while asked about is said to be decided elsewhere" \
		"(decided elsewhere)"
	has "$m: and is refused" "CODE=403"
	has "$m: and the command then reads its own line" "GOT[hello]"

	# ------------------------------------------------ --control decides first
	S="$JR_W/ctl-$m.sock"
	export ASKTTY_ON_PROMPT="id=\$('$JR' ctl '$S' pending | '$PYTHON' -c 'import json, sys
print(json.load(sys.stdin)[\"pending\"][0][\"id\"])') && '$JR' ctl '$S' approve \"\$id\" >/dev/null"
	run_tty "$m" '@' 1 "$C http://denied.test/ctl; $READ" --control "$S"
	unset ASKTTY_ON_PROMPT
	has "$m: with --control too, a request approved on the socket is said to be decided elsewhere" \
		"(decided elsewhere)"
	has "$m: and goes through" "CODE=200"
	has "$m: and the command then reads its line" "GOT[hello]"

	# ------------------------------------------------ no terminal
	expect_status 125 "$m: --ask tty without a controlling terminal exits 125" \
		no_tty "$m" --allow allowed.test --ask tty -- sh -c 'echo COMMAND-RAN'
	expect_output_has "$m: saying what to do" \
		"--ask tty: jailrun has no controlling terminal"
	expect_output_has "$m: and what to use instead" "use --ask with --control PATH"
	grep -qF COMMAND-RAN <<<"$OUT" && fail "$m: the command ran: $OUT" ||
		ok "$m: before the command runs"

	# ------------------------------------------------ jailrun start
	expect_status 125 "$m: jailrun start refuses --ask tty" \
		no_tty "$m" start "asktty-$m" --allow allowed.test --ask tty
	expect_output_has "$m: it has no terminal to ask on" \
		"--ask tty asks on the terminal of a run; jailrun start runs in the background without one: use --ask, and jailrun ctl asktty-$m"
done
finish
