#!/bin/bash
# Host unix sockets: none connectable from inside unless --expose'd; the
# sandbox's own sockets work (unixguard.c).
#
# Each host listener runs as the command's own uid (nobody), and is first
# shown reachable without jailrun (the baseline). Fails if: a host socket
# in the working directory, a fake $HOME, /var/tmp or /run is connectable
# from inside (the pre-unixguard jailrun connects to every one of them); one
# created after the sandbox started is; one whose daemon re-creates it is;
# a symlink in the working directory leads to one; a datagram reaches a
# host datagram socket; an --expose'd one is NOT connectable (the exception
# broken); a socket made inside (stream in the working directory and in
# /tmp, datagram to a path, socketpair) does not work (the guard refusing
# too much); the guard is not reported by -v; a two-thread command that
# swaps an AF_UNIX socket and a path in under an AF_INET connect between
# the guard's look and the kernel's re-read reaches the host (the guard
# before it ran every connect on behalf: 297 host connections in 5 runs
# of 3000 attempts, every run won); a sendmsg() whose msg_namelen another
# thread fills in after the guard's look delivers to a host datagram
# socket (the guard that CONTINUEd sends without an address: 14 of 3000),
# or fd passing over a datagram socketpair stops working; a send with an
# AF_INET address on a UDP socket whose fd number another thread swaps for
# an unconnected AF_UNIX datagram socket (the address rewritten into a
# host socket's path) delivers to the host (the guard that CONTINUEd sends
# on non-unix sockets); a send run on behalf and interrupted by a handled
# signal is sent twice (a listener without WAIT_KILLABLE_RECV); EPIPE of a
# send run on behalf without MSG_NOSIGNAL does not raise SIGPIPE in the
# command; a connect run on
# behalf does not
# answer as the kernel would (non-blocking, AF_UNSPEC, bad addresses).
#
# /tmp, /var/tmp and /run are private tmpfs inside (fslayout.c), so a
# host socket there is not even seen; those two places are probed under
# --fs host, where the guard alone must refuse. Elsewhere the host's
# sockets stay visible on the read-only tree: $VIS (a fresh directory
# under /var/lib) is where the late, restarting, datagram and exposed
# daemons listen, so only the guard stands between them and the command.
. "${JR_TOP_SRCDIR:-$(dirname "$0")/../..}/tests/lib.sh"
jr_require_sandbox
command -v python3 >/dev/null || skip "python3 is needed"
if [ -x /usr/bin/python3 ]; then PY=/usr/bin/python3; else PY=$(command -v python3); fi

install -m 755 "$JR_TOP_SRCDIR/tests/integration/unixsock.py" "$JR_TMP/unixsock.py"
U="$JR_TMP/unixsock.py"
TAG="jailrun-ug-$$"
LISTENERS=()
RUNDIR=""
VISDIR=""

ug_cleanup() {
	local p
	for p in "${LISTENERS[@]}"; do kill "$p" 2>/dev/null || true; done
	rm -f /var/tmp/"$TAG"-*
	[ -z "$RUNDIR" ] || rm -rf "$RUNDIR"
	[ -z "$VISDIR" ] || rm -rf "$VISDIR"
	jr_cleanup_tmp
}
trap ug_cleanup EXIT

# exec_cmd_uid CMD... - exec CMD as the uid the command gets (nobody),
# replacing the (sub)shell: in the background, $! is then the daemon
# itself, and ug_cleanup's kill reaches it (a function run with & is a
# subshell that would stay its parent, and killing that subshell
# orphaned the daemon).
exec_cmd_uid() {
	if [ "$(id -u)" -eq 0 ]; then
		exec setpriv --reuid="$JR_NOBODY_UID" --regid="$JR_NOBODY_GID" --clear-groups -- "$@"
	else
		exec "$@"
	fi
}

# as_cmd_uid CMD... - run CMD as that uid, in the foreground.
as_cmd_uid() {
	(exec_cmd_uid "$@")
}

# listen PATH [stream|dgram|restart ARGS] - a host daemon on PATH, ready
# when the socket exists.
listen() {
	local path=$1
	shift
	case ${1:-stream} in
	restart) shift; exec_cmd_uid "$PY" "$U" restart "$path" "$@" & ;;
	count) shift; exec_cmd_uid "$PY" "$U" count "$path" "$@" & ;;
	dgcount) shift; exec_cmd_uid "$PY" "$U" dgcount "$path" "$@" & ;;
	*) exec_cmd_uid "$PY" "$U" listen "$path" "${1:-stream}" & ;;
	esac
	LISTENERS+=($!)
	if ! wait_until 30 test -S "$path"; then
		fail "listener on $path never came up"
		return 1
	fi
}

# baseline DESC PATH [sendto] - reachable without jailrun.
baseline() {
	expect_status 0 "baseline: $1 reachable without jailrun" \
		as_cmd_uid "$PY" "$U" "${3:-connect}" "$2"
}

if [ "$(id -u)" -eq 0 ]; then
	RUNDIR="/run/$TAG"
	VISDIR="/var/lib/$TAG"
	mkdir -m 755 "$RUNDIR" "$VISDIR"
	chown "$JR_NOBODY_UID:$JR_NOBODY_GID" "$RUNDIR" "$VISDIR"
	VIS=$VISDIR
else
	VIS=$JR_TMP/vis # under /tmp: hidden by the layout, not by the guard
	mkdir -m 777 "$VIS"
fi

for m in $(jr_modes); do
	wd="$JR_TMP/wd-$m" # inside the working directory ($JR_TMP)
	home="$JR_TMP/home-$m"
	mkdir -m 777 "$wd" "$home"

	# Host listeners, each first reached from outside.
	declare -A where=(
		["working directory"]="$wd/host.sock"
		["\$HOME"]="$home/.tmux-sock"
		["$VIS"]="$VIS/$m.sock"
		["/var/tmp (--fs host)"]="/var/tmp/$TAG-$m.sock"
	)
	[ -z "$RUNDIR" ] || where["/run (--fs host)"]="$RUNDIR/$m.sock"
	for k in "${!where[@]}"; do
		p=${where[$k]}
		fs=()
		case $k in *"--fs host"*) fs=(--fs host) ;; esac
		listen "$p" || continue
		baseline "$k socket" "$p"
		expect_status 3 "$m: a host socket in $k is refused" \
			jr "$m" "${fs[@]}" -- "$PY" "$U" connect "$p"
		expect_output_has "$m: $k: ECONNREFUSED" "Connection refused"
		if [ ${#fs[@]} -gt 0 ]; then
			expect_status 4 "$m: ${k% (*} is not even seen in the default layout" \
				jr "$m" -- "$PY" "$U" connect "$p"
			expect_output_has "$m: ${k% (*}: ENOENT" "No such file"
		fi
	done
	unset where

	# The working directory's socket by a relative path, and through a
	# symlink the command makes next to it.
	expect_status 3 "$m: a host socket by a relative path is refused" \
		jr "$m" -- "$PY" "$U" connect "wd-$m/host.sock"
	expect_status 3 "$m: a symlink to a host socket is refused" \
		jr "$m" -- sh -c "ln -s '$VIS/$m.sock' '$wd/link.sock' && exec '$PY' '$U' connect '$wd/link.sock'"

	# A host datagram socket.
	dg="$VIS/$m-dgram.sock"
	if listen "$dg" dgram; then
		baseline "datagram socket" "$dg" sendto
		expect_status 3 "$m: a datagram to a host socket is refused" \
			jr "$m" -- "$PY" "$U" sendto "$dg"
	fi

	# A daemon that starts after the sandbox: the inside process says it
	# is running, then the listener is made, then the inside tries.
	late="$VIS/$m-late.sock"
	jr "$m" -v -- "$PY" "$U" late "$wd/ready" "$wd/go" "$late" >"$JR_TMP/late-$m.out" 2>&1 &
	jpid=$!
	if wait_until 60 test -e "$wd/ready" && listen "$late"; then
		baseline "late socket" "$late"
		touch "$wd/go"
		set +e
		wait "$jpid"
		st=$?
		set -e
		OUT=$(cat "$JR_TMP/late-$m.out")
		if [ "$st" = 3 ]; then ok "$m: a socket created after the start is refused"; else
			fail "$m: late socket: status $st, want 3: $OUT"; fi
		expect_output_has "$m: -v reports the guard" "unix socket guard"
	else
		kill "$jpid" 2>/dev/null || true
		fail "$m: the inside process never became ready: $(cat "$JR_TMP/late-$m.out")"
	fi

	# A daemon that deletes and re-creates its socket mid-run.
	rs="$VIS/$m-restart.sock"
	if listen "$rs" restart "$wd/trigger" "$wd/done"; then
		baseline "restarting daemon" "$rs"
		expect_status 0 "$m: a re-created host socket stays refused" \
			jr "$m" -- "$PY" "$U" restarted "$rs" "$wd/trigger" "$wd/done"
		baseline "restarted daemon" "$rs"
	fi

	# --expose passes one through.
	ex="$VIS/$m-expose.sock"
	if listen "$ex"; then
		expect_status 0 "$m: an --expose'd host socket is connectable" \
			jr "$m" --expose "$ex" -- "$PY" "$U" connect "$ex"
		expect_output_has "$m: the exposed daemon answered" "connected: host"
	fi

	# The race: connect() on fd F with an AF_INET address while another
	# thread dup2()s an AF_UNIX socket onto F and rewrites the address
	# into the host socket's path. The host listener counts what it
	# accepts; one baseline connect after the run (accepts are served in
	# order) makes the count final: exactly 1 means the command got none.
	race="$wd/race.sock"
	if listen "$race" count "$wd/race.count"; then
		expect_status 0 "$m: the connect race never reaches a host socket" \
			jr "$m" -- "$PY" "$U" race "$race" 3000 20
		expect_output_has "$m: the race ran" "race: "
		baseline "race listener" "$race"
		n=$(cat "$wd/race.count")
		if [ "$n" = 1 ]; then ok "$m: the host listener accepted nothing from inside"; else
			fail "$m: the host listener accepted $((n - 1)) connection(s) from inside"; fi
	fi

	# The send race: sendmsg() on an unconnected AF_UNIX datagram socket
	# while another thread flips msg_namelen between 0 and the length of
	# the host socket's path. A guard that lets a send it saw without an
	# address go on (CONTINUE) has the kernel re-read the msghdr, and
	# the datagram reaches the host whenever the length was filled in
	# meanwhile. The host socket counts datagrams and names the last;
	# one baseline datagram after the run makes the count final.
	srace="$VIS/$m-sendrace.sock"
	if listen "$srace" dgcount "$wd/sendrace.count"; then
		expect_status 0 "$m: the send race never reaches a host socket" \
			jr "$m" -- "$PY" "$U" sendrace "$srace" 3000 20
		expect_output_has "$m: the send race ran" "sendrace: "
		expect_output_has "$m: fd passing over a datagram socketpair still works" \
			"SCM_RIGHTS over a datagram socketpair: ok"
		baseline "send race listener" "$srace" sendto
		wait_until 30 grep -q " sendto-probe\$" "$wd/sendrace.count" || true
		n=$(cat "$wd/sendrace.count")
		if [ "$n" = "1 sendto-probe" ]; then ok "$m: the host datagram socket got nothing from inside"; else
			fail "$m: the host datagram socket counted '$n' (want '1 sendto-probe')"; fi
	fi

	# The fd-swap race: sendto() and sendmsg() with an AF_INET address
	# on a UDP socket while another thread dup2()s an unconnected
	# AF_UNIX datagram socket onto its number and rewrites the address
	# into a host datagram socket's path. A guard that CONTINUEs sends
	# on sockets that are not unix datagram ones has the kernel re-read
	# both, and the datagram reaches the host. The host socket is in the
	# working directory, in view inside in both modes.
	swr="$wd/swaprace.sock"
	if listen "$swr" dgcount "$wd/swaprace.count"; then
		expect_status 0 "$m: the fd-swap race ran" \
			jr "$m" -- "$PY" "$U" swaprace "$swr" 3000 20
		expect_output_has "$m: the fd-swap race sent" "swaprace: "
		baseline "fd-swap race listener" "$swr" sendto
		wait_until 30 grep -q " sendto-probe\$" "$wd/swaprace.count" || true
		n=$(cat "$wd/swaprace.count")
		if [ "$n" = "1 sendto-probe" ]; then ok "$m: the fd-swap race never reaches a host socket"; else
			fail "$m: the fd-swap race: the host datagram socket counted '$n' (want '1 sendto-probe')"; fi
	fi

	# A handled signal (SA_RESTART) hammered at a thread sending over a
	# TCP connection and a datagram socketpair inside: a call the guard
	# ran, interrupted before its answer, would be restarted and run
	# again (a listener without SECCOMP_FILTER_FLAG_WAIT_KILLABLE_RECV):
	# a record twice in the stream.
	expect_status 0 "$m: a signal never makes a send run on behalf twice" \
		jr "$m" -- "$PY" "$U" sigdup 2000
	expect_output_has "$m: the TCP stream has every record once" "sigdup tcp: 2000 records for 2000"
	expect_output_has "$m: the socketpair has every record once" "sigdup dgram: 2000 records for 2000"

	# SIGPIPE: the guard sends with MSG_NOSIGNAL (the signal would be
	# its own) and raises it in the command when the command's flags
	# lacked it. A guard that only added MSG_NOSIGNAL leaves a child
	# with SIGPIPE at its default alive with EPIPE.
	expect_status 0 "$m: a send run on behalf raises SIGPIPE as the kernel would" \
		jr "$m" -- "$PY" "$U" sigpipe
	expect_output_has "$m: SIGPIPE kills at its default" "sigpipe default flags 0: killed by SIGPIPE: ok"
	expect_output_has "$m: SIGPIPE comes when blocked" "sigpipe blocked flags 0: EPIPE, then SIGPIPE pending: ok"

	# Connects of other families, now run on the command's behalf,
	# answer as the kernel would (O_NONBLOCK of the shared open file,
	# AF_UNSPEC disconnect, the kernel's EINVAL and EFAULT).
	expect_status 0 "$m: inet connects run on behalf act as the kernel's" \
		jr "$m" -- "$PY" "$U" inet
	expect_output_has "$m: non-blocking TCP connect: EINPROGRESS" "inet non-blocking tcp: EINPROGRESS"
	expect_output_has "$m: AF_UNSPEC disconnects UDP" "inet udp disconnected: ENOTCONN"

	# Sockets made inside keep working.
	expect_status 0 "$m: sockets made inside work" \
		jr "$m" -- "$PY" "$U" inside "$wd"
	expect_output_has "$m: inside stream in the working directory" "x.sock: ok"
	expect_output_has "$m: inside stream in /tmp" "inside stream /tmp/"
	expect_output_has "$m: inside datagram" "inside dgram sendto"
	expect_output_has "$m: inside socketpair" "inside socketpair: ok"
	expect_output_has "$m: inside, from a thread" "inside stream from a thread: ok"
done

finish
