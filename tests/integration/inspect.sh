#!/bin/bash
# TLS inspection's upstream side (issue 13), in a lab, as root and
# rootless: the session an upstream gives on one inspected connection is
# resumed by the next connection to the same upstream, and never offered
# to another one. jailrun says at -vv, per inspected connection, whether
# its upstream handshake was resumed ("TLS session resumed"), offered a
# cached session the upstream refused, or had none cached.
# Fails if: the second or third of three sequential inspected requests to
# one host does not resume (no session cached: the tickets were never read
# or kept, or each connection's last one was marked not resumable, as
# OpenSSL 3 does when an upstream closes without close_notify, which
# leaves the second connection, resumed, with no good ticket for the
# third); the first request claims a session; a session of allowed.test is offered to
# a.allowed.test; a resumed request does not reach the upstream or gets
# the wrong answer; a live remove --close leaves an inspected connection
# open, does not count it, or its audit line does not say policy-removed.
. "${JR_TOP_SRCDIR:-$(dirname "$0")/../..}/tests/lib.sh"
. "$JR_TOP_SRCDIR/tests/lab/lib.sh"
jr_require_sandbox
lab_setup --timeout 900 inspect # a hang guard, not a time limit
lab_on_exit jr_cleanup_tmp

install -m 644 "$LAB_CA" "$JR_W/ca.pem"
CA="$JR_W/ca.pem"

# session_lines HOST - the -vv "TLS session" verdicts for HOST in $OUT, in
# order, one a line ("resumed", "offered, ...", "none cached ...").
session_lines() {
	sed -n "s/^jailrun: inspect [0-9]*: upstream $1 port 443: TLS session //p" <<<"$OUT"
}

for m in $(jr_modes); do
	log="$JR_W/audit-$m.log"
	: >"$log"
	chmod 666 "$log"
	I=(-vv --allow allowed.test --allow a.allowed.test --upstream-ca "$CA"
		--inspect allowed.test --inspect a.allowed.test --log "$log")

	# ------------------------------------------------ resumption
	lab_logs_clear
	expect_status 0 "$m: three sequential inspected requests to one host" jl "$m" "${I[@]}" -- sh -c '
		for n in 1 2 3; do curl -sS -f https://allowed.test/headers?n=$n || exit; done'
	got=$(session_lines allowed.test | tr '\n' '|')
	if [[ $got == "none cached (full handshake)|resumed|resumed|" ]]; then
		ok "$m: the first upstream handshake was full, the next two resumed"
	else
		fail "$m: upstream TLS sessions of allowed.test: '$got', want 'none cached (full handshake)|resumed|resumed|'; output: $OUT"
	fi
	expect_output_has "$m: the resumed request was answered" "path: /headers?n=2"
	if lab_web_served allowed.test "/headers?n=2"; then ok "$m: the resumed request reached allowed.test"
	else fail "$m: allowed.test never served /headers?n=2: $(cat "$LAB_WEBLOG")"; fi
	audit_has "$m: audit: the resumed request's line" "$log" '"via":"inspect"' '"path":"/headers?n=2"' '"status":200'

	# ------------------------------------------------ never another host's
	expect_status 0 "$m: allowed.test, then a.allowed.test" jl "$m" "${I[@]}" -- sh -c '
		curl -sS -f https://allowed.test/headers && curl -sS -f https://a.allowed.test/headers'
	got=$(session_lines a.allowed.test | tr '\n' '|')
	if [[ $got == "none cached (full handshake)|" ]]; then
		ok "$m: allowed.test's session was not offered to a.allowed.test"
	else
		fail "$m: upstream TLS sessions of a.allowed.test: '$got', want 'none cached (full handshake)|'; output: $OUT"
	fi
	expect_output_has "$m: a.allowed.test answered" "served-by: a.allowed.test"

	# ------------------------------------------------ remove --close
	# An inspected connection left the relay's slots at the handoff; a
	# live remove --close must end it too. The request waits on the
	# upstream (/delay/60), so only the close can end it early.
	S="$JR_W/ictl-$m.sock"
	mark="$JR_W/held-$m"
	rm -f "$mark".*
	clog="$JR_W/audit-close-$m.log"
	: >"$clog"
	chmod 666 "$clog"
	jl "$m" --allow allowed.test --upstream-ca "$CA" --inspect allowed.test \
		--control "$S" --log "$clog" -- python3 -c '
import os, socket, ssl, sys
mark = sys.argv[1]
proxy = os.environ["HTTPS_PROXY"].split("//")[1].rstrip("/").rsplit(":", 1)
s = socket.create_connection((proxy[0], int(proxy[1])), timeout=120)
s.sendall(b"CONNECT allowed.test:443 HTTP/1.1\r\nHost: allowed.test:443\r\n\r\n")
head = b""
while b"\r\n\r\n" not in head:
    head += s.recv(1)
assert head.startswith(b"HTTP/1.1 200"), head
t = ssl.create_default_context().wrap_socket(s, server_hostname="allowed.test")
t.sendall(b"GET /delay/60 HTTP/1.1\r\nHost: allowed.test\r\n\r\n")
open(mark + ".sent", "w").close()
got = b""
try:
    while True:
        b = t.recv(4096)
        if not b:
            break
        got += b
    what = "EOF after %d bytes %r" % (len(got), got[:40])
except (OSError, ssl.SSLError) as e:
    what = "ERROR %s after %d bytes" % (type(e).__name__, len(got))
with open(mark + ".tmp", "w") as f:
    f.write(what + "\n")
os.rename(mark + ".tmp", mark + ".ended")
' "$mark" >"$JR_W/irun-$m.out" 2>&1 &
	pid=$!
	if wait_until 120 test -e "$mark.sent"; then
		ok "$m: an inspected request is waiting on allowed.test"
	else
		fail "$m: the inspected request never went out: $(cat "$JR_W/irun-$m.out")"
	fi
	expect_status 0 "$m: ctl remove allowed.test --close" \
		as_mode "$m" "$JR" ctl "$S" remove allowed.test --close
	expect_output_has "$m: the inspected connection is counted as closed" '"closed":1'
	if wait_until 120 test -e "$mark.ended"; then
		if grep -q "HTTP/1" "$mark.ended"; then
			fail "$m: the inspected request was answered, not closed: $(cat "$mark.ended")"
		else
			ok "$m: the inspected connection was closed ($(cat "$mark.ended"))"
		fi
	else
		fail "$m: the inspected connection is still open after remove --close"
	fi
	st=0
	wait "$pid" || st=$?
	[ "$st" = 0 ] && ok "$m: the sandbox ended (status 0)" ||
		fail "$m: jailrun exited $st: $(cat "$JR_W/irun-$m.out")"
	audit_has "$m: audit: the cut request's line says policy-removed" "$clog" \
		'"via":"inspect"' '"host":"allowed.test"' '"reason":"policy-removed"'
done
finish
