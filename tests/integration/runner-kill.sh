#!/bin/bash
# The runner is SIGKILLed while the command runs: the sandbox must end with
# it, leave nothing behind, and let nothing out meanwhile. In a lab, for
# each network mode (--net none, --allow) and each caller: root, rootless,
# and sudo-style (root with SUDO_UID/SUDO_GID/SUDO_USER naming another
# unprivileged user).
#
# Fails if:
#  - a process of the sandbox (its PID namespace) is still alive 10 s after
#    the runner's SIGKILL (the target is well under a second; the observed
#    time is printed, not judged: it includes this script's polling);
#  - the sandbox's network, mount or user namespace is still referenced by
#    any process, open fd or mount afterwards, or an nft table named
#    jailrun shows up in the lab host;
#  - (allowlist) the relay did not work before the kill (positive
#    control), or a request the command makes after the runner's death
#    reaches the lab internet, or a direct connection succeeds.
# Against a jailrun whose init loses its parent-death signal (a credential
# change in init, as jr_mounts_bind_text() once did when started by root)
# and does not watch the runner, the root and sudo allowlist cases fail:
# the command lives on.
. "${JR_TOP_SRCDIR:-$(dirname "$0")/../..}/tests/lib.sh"
. "$JR_TOP_SRCDIR/tests/lab/lib.sh"
jr_require_sandbox
command -v nft >/dev/null || skip "needs nft (to look for leftover tables)"
lab_setup --timeout 400 runner-kill
lab_on_exit jr_cleanup_tmp
lab_on_exit 'kill_survivors'

RAW4=$(lab_addr raw.test 4)
# sudo-style: another unprivileged user than the rootless caller (nobody).
SUDO_NAME=daemon
SUDO_ID=$(id -u "$SUDO_NAME" 2>/dev/null) || { SUDO_NAME=nobody; SUDO_ID=$JR_NOBODY_UID; }
SUDO_GROUP=$(id -g "$SUDO_NAME")
INIT=

# A find(1) pattern matching exactly the link text $1 ("pid:[N]"...).
lname() {
	local s=${1//[/\\[}
	echo "${s//]/\\]}"
}

# Every live process whose PID namespace is $1 (one find, not a fork per
# pid: the machine may be busy). A zombie is not alive: once the runner is
# gone, init's zombie waits for whoever inherits it to reap it.
pidns_members() {
	local p line
	for p in $(find /proc/[0-9]*/ns -maxdepth 1 -name pid -lname "$(lname "$1")" 2>/dev/null | cut -d/ -f3); do
		line=
		{ read -r line <"/proc/$p/stat"; } 2>/dev/null || continue
		line=${line##*) }
		case ${line%% *} in Z | X) ;; *) echo "$p" ;; esac
	done
}

# ns_ident FILE - a never-reused id of the namespace FILE (/proc/PID/ns/X,
# an fd or a mount of one) stands for: NS_GET_ID (Linux >= 6.18), else for
# a network namespace its cookie (SO_NETNS_COOKIE, >= 5.14), else nothing.
ns_ident() {
	python3 - "$1" <<'PY' 2>/dev/null || true
import fcntl, os, socket, struct, sys
fd = os.open(sys.argv[1], os.O_RDONLY)
try:
    print("id", struct.unpack("Q", fcntl.ioctl(fd, (2 << 30) | (8 << 16) | (0xb7 << 8) | 0xd, bytes(8)))[0])
except OSError:
    if os.readlink("/proc/self/fd/%d" % fd).startswith("net:"):
        os.setns(fd, os.CLONE_NEWNET)
        print("cookie", struct.unpack("Q", socket.socket().getsockopt(socket.SOL_SOCKET, 71, 8))[0])
PY
}

# Who still refers to namespace $1 ("net:[N]"...): a process's ns link, an
# open fd, or a mount of it. Namespace inode numbers are reused at once,
# and other tests make namespaces beside this one: a reference counts only
# if its ns_ident is the sandbox's ($3), or, where the kernel gives no
# such id, if it is held by a process started before the kill ($2, clock
# ticks since boot, /proc/PID/stat field 22).
ns_referenced() {
	local ref p start state
	find /proc/[0-9]*/ns /proc/[0-9]*/fd -maxdepth 1 -lname "$(lname "$1")" 2>/dev/null |
		while read -r ref; do
			# A zombie (the dead init, waiting for the host's PID 1
			# to reap it) keeps its credentials, and so the user
			# namespace, until it is reaped: that is the reaper's
			# pace, not something the sandbox left running.
			p=$(cut -d/ -f3 <<<"$ref")
			state=$(sed 's/.*) //' "/proc/$p/stat" 2>/dev/null | cut -d' ' -f1)
			case $state in '' | Z | X) continue ;; esac
			if [ -n "$3" ]; then
				[ "$(ns_ident "$ref")" = "$3" ] || continue
			else
				start=$(sed 's/.*) //' "/proc/$p/stat" 2>/dev/null | cut -d' ' -f20)
				[ -n "$start" ] && [ "$start" -le "$2" ] || continue
			fi
			echo "$ref"
		done
	# Field 5: where it is mounted (ip netns add does that).
	grep -F " $1 " /proc/self/mountinfo | while read -r ref; do
		p=$(cut -d' ' -f5 <<<"$ref")
		[ -z "$3" ] || [ "$(ns_ident "$p")" = "$3" ] || continue
		echo "$ref"
	done || true
}

kill_survivors() {
	if [ -n "$INIT" ] && [ -e "/proc/$INIT" ]; then
		kill -KILL "$INIT" 2>/dev/null || true
	fi
	return 0
}

# jrun CALLER ARGS... - jailrun in the lab host as CALLER, in the background.
jrun() {
	local c=$1
	shift
	case $c in
	root | rootless) jl "$c" "$@" ;;
	sudo) lab_host timeout -k 5 "$JR_RUN_LIMIT" env -C "$JR_TMP" SUDO_UID="$SUDO_ID" \
		SUDO_GID="$SUDO_GROUP" SUDO_USER="$SUDO_NAME" "$JR" "$@" ;;
	esac
}

expected_uid() {
	case $1 in
	sudo) echo "$SUDO_ID" ;;
	*) echo "$JR_NOBODY_UID" ;;
	esac
}

for caller in ${RK_CALLERS:-root rootless sudo}; do
	for net in ${RK_NETS:-none allowlist}; do
		id=$caller-$net-$$
		ready=$JR_W/rk-$id.ready
		go=$JR_W/rk-$id.go
		after=$JR_W/rk-$id.after
		before=$JR_W/rk-$id.before
		if [ $net = allowlist ]; then
			netargs=(--allow allowed.test)
			# Positive control: the relay serves the command before the kill.
			probe="curl -sS -m 10 -o /dev/null -w '%{http_code}' http://allowed.test/rk-before-$id >'$before' 2>&1 || true"
			# After the runner's death: through the proxy, and straight out.
			attempt="{ curl -sS -m 3 http://allowed.test/rk-after-$id; echo curl=\$?;
				timeout 3 bash -c 'exec 3<>/dev/tcp/$RAW4/7'; echo direct=\$?; } >'$after' 2>&1"
		else
			netargs=(--net none)
			probe=:
			attempt="{ timeout 3 bash -c 'exec 3<>/dev/tcp/$RAW4/7'; echo direct=\$?; } >'$after' 2>&1"
		fi
		lab_logs_clear
		rm -f "$ready" "$go" "$after" "$before"
		jrun "$caller" "${netargs[@]}" -- bash -c "
			$probe
			(exec -a rk-child-$id sleep 300) &
			id -u >'$ready.tmp'; mv '$ready.tmp' '$ready'
			i=0; while [ ! -e '$go' ] && [ \$i -lt 1000 ]; do sleep 0.01; i=\$((i+1)); done
			$attempt
			sleep 300" </dev/null >"$JR_TMP/rk-$id.out" 2>&1 &
		bg=$!
		# A readiness wait, generous for a busy machine (not a judgement).
		for _ in $(seq 1 3000); do
			[ -e "$ready" ] && break
			kill -0 "$bg" 2>/dev/null || break
			sleep 0.01
		done
		if [ ! -e "$ready" ]; then
			fail "$caller/$net: the command never got ready: $(cat "$JR_TMP/rk-$id.out")"
			wait "$bg" || true
			continue
		fi
		runner=$(pgrep -o -f "^$JR .*rk-child-$id" || true)
		# The runner's children: init, named jailrun-init (so that ps
		# tells it from the runner), and the unix socket guard's
		# executor (jr-behalf), which is in the sandbox's user
		# namespace too and must end with the runner as well (the
		# namespace checks below see it if it does not).
		INIT=
		kids=
		for p in $(pgrep -P "$runner" || true); do
			kids="$kids $p:$(cat "/proc/$p/comm" 2>/dev/null)"
			[ "$(cat "/proc/$p/comm" 2>/dev/null)" = jailrun-init ] && INIT=$p
		done
		if [ -z "$runner" ] || [ -z "$INIT" ]; then
			fail "$caller/$net: cannot find the runner ($runner) or init, named jailrun-init, among its children:$kids"
			continue
		fi
		ok "$caller/$net: init is named jailrun-init in ps (pid $INIT)"
		if [ "$(cat "$ready")" = "$(expected_uid "$caller")" ]; then
			ok "$caller/$net: the command runs as uid $(cat "$ready")"
		else
			fail "$caller/$net: the command runs as uid $(cat "$ready"), want $(expected_uid "$caller")"
		fi
		pidns=$(readlink "/proc/$INIT/ns/pid")
		netns=$(readlink "/proc/$INIT/ns/net")
		mntns=$(readlink "/proc/$INIT/ns/mnt")
		userns=$(readlink "/proc/$INIT/ns/user")
		declare -A ident=()
		for ns in net mnt user; do
			ident[$ns]=$(ns_ident "/proc/$INIT/ns/$ns")
			[ -n "${ident[$ns]}" ] || echo "info: no id for the $ns namespace here: references to it judged by start time"
		done
		members=$(pidns_members "$pidns" | wc -l)
		# init, bash, the sleep child (and bash's own sleep): at least 3.
		if [ "$members" -ge 3 ]; then ok "$caller/$net: $members processes in the sandbox"; else
			fail "$caller/$net: only $members processes in the sandbox"
		fi
		if [ $net = allowlist ]; then
			if [ "$(cat "$before")" = 200 ] && lab_web_served allowed.test "/rk-before-$id"; then
				ok "$caller/$net: the relay served the command before the kill"
			else
				fail "$caller/$net: the relay did not serve the command before the kill: $(cat "$before")"
			fi
		fi

		# Microseconds, read without a fork (bash >= 5).
		t0=${EPOCHREALTIME/[.,]/}
		t0_ticks=$(cut -d' ' -f22 /proc/self/stat)
		kill -KILL "$runner"
		touch "$go"
		# init ends last: the kernel kills the rest of the PID namespace
		# and waits for it before init becomes a zombie. So watch init
		# cheaply (bash builtins only), then confirm with a full scan.
		gone_us=
		while [ $((${EPOCHREALTIME/[.,]/} - t0)) -lt 10000000 ]; do
			state=
			{ read -r line </proc/"$INIT"/stat && state=${line##*) } && state=${state%% *}; } 2>/dev/null || true
			if [ -z "$state" ] || [ "$state" = Z ] || [ "$state" = X ]; then
				gone_us=$((${EPOCHREALTIME/[.,]/} - t0))
				break
			fi
			sleep 0.002
		done
		wait "$bg" 2>/dev/null || true
		left=$(pidns_members "$pidns")
		if [ -n "$gone_us" ] && [ -z "$left" ]; then
			ok "$caller/$net: every process of the sandbox is gone after the runner's SIGKILL"
			echo "info: $caller/$net: init gone $((gone_us / 1000)).$(printf '%03d' $((gone_us % 1000))) ms after the SIGKILL, as seen from outside (includes this script's polling)"
		else
			fail "$caller/$net: the sandbox outlived its runner by 10 s (init state: ${state:-gone}): $(for p in $left; do tr '\0' ' ' <"/proc/$p/cmdline"; echo; done)"
		fi

		for ns in "$netns" "$mntns" "$userns"; do
			refs=$(ns_referenced "$ns" "$t0_ticks" "${ident[${ns%%:*}]}")
			if [ -z "$refs" ]; then ok "$caller/$net: $ns is gone"; else
				fail "$caller/$net: $ns is still referenced: $refs"
			fi
		done
		if tables=$(lab_host nft list tables 2>&1) && ! grep -q jailrun <<<"$tables"; then
			ok "$caller/$net: no jailrun nft table in the lab host"
		else
			fail "$caller/$net: nft tables in the lab host: $tables"
		fi

		# Only now (the checks above must see a survivor's namespaces).
		if [ -n "$(pidns_members "$pidns")" ]; then
			kill_survivors
			for _ in $(seq 1 100); do [ -z "$(pidns_members "$pidns")" ] && break; sleep 0.05; done
		fi
		INIT=

		# Nothing went out while the sandbox outlived the runner.
		if [ $net = allowlist ] && lab_web_served allowed.test "/rk-after-$id"; then
			fail "$caller/$net: a request made after the runner's death reached allowed.test"
		else
			ok "$caller/$net: no request after the runner's death reached the lab"
		fi
		if [ -e "$after" ]; then
			echo "info: $caller/$net: the command outlived the runner long enough to try: $(tr '\n' ' ' <"$after")"
			if grep -q '^direct=0$' "$after" || grep -q '^curl=0$' "$after"; then
				fail "$caller/$net: a connection succeeded after the runner's death: $(cat "$after")"
			else
				ok "$caller/$net: every connection after the runner's death failed"
			fi
		fi
	done
done

finish
