#!/bin/bash
# The on-behalf rule: whatever jailrun does for the command (the unix
# socket guard's connects and sends, unixguard_behalf.c) runs with the
# command's rights and no more. Root and rootless.
#
# Fails if:
#  - a privileged call made through the guard (rtnetlink address, link,
#    route and netns-move requests sent with an explicit address, SO_MARK
#    and SO_PRIORITY control data) answers other than it answers an
#    unprivileged process outside, and other than the kernel answers the
#    command itself with the guard off (--seccomp off). The jailrun of
#    96f75a3 ran them with the runner's capabilities: rtnl-addr and
#    rtnl-route succeeded inside, rtnl-link and rtnl-netns reached the
#    kernel's later checks;
#  - an --expose'd socket that only root may connect to (root's, 0600) is
#    connectable from inside: the command runs as nobody;
#  - the daemon behind an --expose'd socket sees a peer uid other than the
#    command's (96f75a3: root's uid 0 when root ran jailrun);
#  - renaming the exposed socket's directory and putting a symlink to
#    another host socket at the exposed path reaches that socket (96f75a3
#    resolved the exposed path again at every connect); the socket that
#    was exposed stays reachable under its new name (pinned by inode);
#  - jailrun's own --control socket is connectable from inside, even when
#    it is named with --expose (96f75a3: the command could widen its own
#    allowlist);
#  - -v prints a socket path the command chose with its escape sequences
#    (96f75a3 printed it raw: the command could write to the terminal).
. "${JR_TOP_SRCDIR:-$(dirname "$0")/../..}/tests/lib.sh"
jr_require_sandbox
command -v python3 >/dev/null || skip "python3 is needed"
if [ -x /usr/bin/python3 ]; then PY=/usr/bin/python3; else PY=$(command -v python3); fi
PROBE_SRC="$JR_TOP_BUILDDIR/tests/helpers/behalf_probe"
[ -x "$PROBE_SRC" ] || skip "tests/helpers/behalf_probe is not built"
install -m 755 "$PROBE_SRC" "$JR_TMP/behalf_probe"
install -m 755 "$JR_TOP_SRCDIR/tests/integration/behalf.py" "$JR_TMP/behalf.py"
P="$JR_TMP/behalf_probe"
B="$JR_TMP/behalf.py"
CALLS=(rtnl-addr rtnl-link rtnl-route rtnl-netns so-mark so-priority)
TAG="jailrun-behalf-$$"
VIS="/var/lib/$TAG" # visible inside on the read-only host tree
SWAPDIR="/tmp/$TAG" # bound into the sandbox's private /tmp by --expose
LISTENERS=()

behalf_cleanup() {
	local p
	for p in "${LISTENERS[@]}"; do kill "$p" 2>/dev/null || true; done
	rm -rf "$VIS" "$SWAPDIR" "$SWAPDIR.old"
	jr_cleanup_tmp
}
trap behalf_cleanup EXIT

# serve AS PATH MODE OUT - a peercred daemon on PATH, run as AS (root or
# nobody), ready when the socket has its mode.
serve() {
	local as=$1 path=$2 mode=$3 out=$4
	: >"$out"
	chmod 666 "$out" # the daemon may run as nobody
	if [ "$as" = root ]; then
		"$PY" "$B" peercred "$path" "$mode" "$out" &
	else
		setpriv --reuid="$JR_NOBODY_UID" --regid="$JR_NOBODY_GID" \
			--clear-groups -- "$PY" "$B" peercred "$path" "$mode" "$out" &
	fi
	LISTENERS+=($!)
	wait_until 30 test -S "$path" || { fail "daemon on $path never came up"; return 1; }
	wait_until 30 sh -c "[ \"\$(stat -c %a '$path')\" = '$mode' ]" ||
		fail "daemon on $path never set mode $mode"
}

[ "$(id -u)" -eq 0 ] || skip "needs root (host daemons of root and of nobody)"
mkdir -m 755 "$VIS" "$SWAPDIR"
chown "$JR_NOBODY_UID:$JR_NOBODY_GID" "$VIS" "$SWAPDIR"

# What an unprivileged process gets outside (in a network namespace of
# its own, so that nothing could touch the host's even if it were let).
BASE=$(unshare -n setpriv --reuid="$JR_NOBODY_UID" --regid="$JR_NOBODY_GID" \
	--clear-groups -- "$P" "${CALLS[@]}" 2>&1) || true
if grep -q ' ok$' <<<"$BASE" || [ "$(wc -l <<<"$BASE")" -ne ${#CALLS[@]} ]; then
	fail "baseline: an unprivileged process outside is not refused: $BASE"
else
	ok "baseline: each call is refused to an unprivileged process outside"
fi

serve root "$VIS/root-only.sock" 600 "$JR_W/root-only.log"
serve nobody "$VIS/open.sock" 666 "$JR_W/open.log"
serve nobody "$VIS/victim.sock" 666 "$JR_W/victim.log"
serve nobody "$SWAPDIR/agent.sock" 666 "$JR_W/agent.log"
ESC=$(printf '\033')
ESCSOCK="$VIS/esc${ESC}]0;pwned$(printf '\007')${ESC}[31m.sock"
serve nobody "$ESCSOCK" 666 "$JR_W/esc.log"
expect_status 5 "baseline: root's 0600 socket refuses nobody outside" \
	setpriv --reuid="$JR_NOBODY_UID" --regid="$JR_NOBODY_GID" --clear-groups -- \
	"$PY" "$B" connect "$VIS/root-only.sock"

for m in $(jr_modes); do
	want_uid=$(jr_expected_uid "$m")

	# 1. The table: inside, through the guard, as outside.
	for net in none public; do
		IN=$(jr "$m" --net "$net" -- "$P" "${CALLS[@]}" 2>&1) || true
		if [ "$IN" = "$BASE" ]; then
			ok "$m --net $net: every call made through the guard is refused as outside"
		else
			fail "$m --net $net: calls through the guard answer otherwise than outside: inside: $IN; outside: $BASE"
		fi
	done
	OFF=$(jr "$m" --net none --seccomp off -- "$P" "${CALLS[@]}" 2>/dev/null) || true
	if [ "$OFF" = "$BASE" ]; then
		ok "$m: without the guard (--seccomp off) the kernel answers the same"
	else
		fail "$m: --seccomp off answers otherwise: $OFF; outside: $BASE"
	fi

	# 2. A socket only root may connect to.
	expect_status 5 "$m: root's 0600 --expose'd socket refuses the command (EACCES)" \
		jr "$m" --expose "$VIS/root-only.sock" -- "$PY" "$B" connect "$VIS/root-only.sock"
	if [ -s "$JR_W/root-only.log" ]; then
		fail "$m: root's daemon was reached: $(tr '\n' ' ' <"$JR_W/root-only.log")"
	fi

	# 3. The peer the daemon sees is the command.
	: >"$JR_W/open.log" # (made 0666 by serve)
	expect_status 0 "$m: an --expose'd socket is connectable" \
		jr "$m" --expose "$VIS/open.sock" -- "$PY" "$B" connect "$VIS/open.sock"
	got=$(cat "$JR_W/open.log")
	if [ "$got" = "$want_uid" ]; then
		ok "$m: the daemon sees the command's uid ($got)"
	else
		fail "$m: the daemon sees uid '$got', want the command's $want_uid"
	fi

	# 4. The exposed path swapped for a symlink to another host socket.
	rm -rf "$SWAPDIR.old"
	: >"$JR_W/victim.log"
	expect_status 3 "$m: a symlink swapped in at the --expose'd path reaches nothing" \
		jr "$m" --expose "$SWAPDIR/agent.sock" -- \
		"$PY" "$B" swap "$SWAPDIR" agent.sock "$VIS/victim.sock"
	if [ -s "$JR_W/victim.log" ]; then
		fail "$m: the swapped-in host socket was reached"
	fi
	expect_status 0 "$m: the exposed socket itself stays reachable after a rename" \
		jr "$m" --expose "$SWAPDIR/agent.sock" -- sh -c \
		"mv $SWAPDIR $SWAPDIR.x && exec $PY $B connect $SWAPDIR.x/agent.sock"

	# 5. jailrun's own control socket, even when named with --expose.
	ctl="$VIS/ctl-$m.sock"
	expect_status 3 "$m: the --control socket is never reachable from inside" \
		jr "$m" --allow allowed.test --control "$ctl" --expose "$ctl" -- "$PY" "$B" connect "$ctl"
	rm -f "$ctl"

	# 6. A path the command names is logged printable: escape
	# sequences would reach the user's terminal through -v.
	expect_status 3 "$m: a host socket with escapes in its name is refused" \
		jr "$m" -v -- "$PY" "$B" connect "$ESCSOCK"
	expect_output_has "$m: -v says it refused a host socket" "a host socket, refused"
	if grep -q "$ESC" <<<"$OUT"; then
		fail "$m: -v printed the command's escape sequences raw"
	else
		ok "$m: -v printed the path without its escape sequences"
	fi
done
finish
