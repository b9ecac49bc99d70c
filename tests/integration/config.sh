#!/bin/bash
# Configuration files, profiles, the managed policy and --print-config,
# for real, as root and rootless. The managed policy and the system's
# profiles are read at their real paths (/etc/jailrun): each run that needs
# them runs in a private mount namespace whose /etc is an overlay of the
# host's with the test's /etc/jailrun on top, so the host's /etc is never
# touched and nothing outlives the run.
# Fails if: a file's allow does not reach the lab, or the command line does
# not win over a file; a profile is not found or the user's does not win
# over the system's; an include loop, an unknown keyword or a bad value
# runs the command or lacks file:line; a managed deny does not refuse a
# covering --allow (status 125, both named) or an --allow-file entry, or is
# not enforced at decision time (managed-deny); a host lane (--lane
# 127.0.0.1:8080, [::ffff:127.0.0.1]:8080, [::1]:8080, from the command line
# or a file) to an address a managed deny covers starts, or reaches the lab
# host's loopback service, instead of status 125 naming the lane and the
# deny (issue 21), or a lane no deny covers does not; a policy file with a bad
# owner or mode is used; a require violation runs the command;
# --print-config lies about an origin or runs the command, or omits the
# user, the working directory or a default, or does not mark a missing
# path; a misspelt keyword or option gets no "did you mean", "allow=x" no
# "keyword, space, value"; "~" or "$HOME" in a file's path is not the
# caller's home; a command argument under the host's /tmp (which the
# sandbox replaces) gets no warning, or one when --ro shows it.
. "${JR_TOP_SRCDIR:-$(dirname "$0")/../..}/tests/lib.sh"
. "$JR_TOP_SRCDIR/tests/lab/lib.sh"
jr_require_sandbox
lab_setup --timeout 900 config # a hang guard, not a time limit
lab_on_exit jr_cleanup_tmp

command -v unshare >/dev/null || skip "needs unshare (util-linux)"
grep -qw overlay /proc/filesystems || modprobe overlay 2>/dev/null || true
grep -qw overlay /proc/filesystems || skip "needs overlayfs for a private /etc/jailrun"

# root's HOME for the user's profiles: not inside $JR_TMP, the working
# directory (jailrun refuses a working directory that holds the home).
ROOT_HOME=$(mktemp -d /tmp/jailrun-roothome.XXXXXX)
chmod 755 "$ROOT_HOME"
lab_on_exit 'rm -rf "$ROOT_HOME"'
mode_home() { if [ "$1" = root ]; then echo "$ROOT_HOME"; else echo "$JR_HOME"; fi; }

# with_etc DIR CMD... - CMD in a private mount namespace where
# /etc/jailrun is a copy of DIR (owners and modes kept). The overlay's
# upper layer is a tmpfs of that namespace: it goes when CMD ends.
with_etc() {
	local src=$1
	shift
	unshare -m --propagation private -- bash -c '
		set -e
		src=$1; t=$2; shift 2
		mount -t tmpfs -o mode=755 jr-config-test "$t"
		mkdir "$t/u" "$t/w"
		mount -t overlay overlay -o "lowerdir=/etc,upperdir=$t/u,workdir=$t/w" /etc
		cp -a "$src" /etc/jailrun
		exec "$@"' with_etc "$src" "$JR_TMP/ovl" "$@"
}
mkdir "$JR_TMP/ovl"

# cj MODE ARGS... - jailrun in MODE (outside the lab) with the mode's HOME;
# under /etc/jailrun = $ETC when ETC is set.
cj() {
	local m=$1 pre=()
	shift
	[ -z "${ETC:-}" ] || pre=(with_etc "$ETC")
	if [ "$m" = rootless ] && [ "$(id -u)" -eq 0 ]; then
		"${pre[@]}" env -C "$JR_TMP" HOME="$JR_HOME" setpriv --reuid="$JR_NOBODY_UID" \
			--regid="$JR_NOBODY_GID" --clear-groups -- \
			timeout -k 5 "$JR_RUN_LIMIT" "$JR" "$@" </dev/null
	else
		"${pre[@]}" env -C "$JR_TMP" HOME="$(mode_home "$m")" \
			timeout -k 5 "$JR_RUN_LIMIT" "$JR" "$@" </dev/null
	fi
}

# jle MODE ARGS... - jailrun in the lab host, under /etc/jailrun = $ETC.
jle() {
	local m=$1 user=()
	shift
	[ "$m" = root ] || user=(--user nobody)
	with_etc "$ETC" "$LAB_TOOL" exec "$LAB_NAME" host "${user[@]}" -- \
		timeout -k 5 "$JR_RUN_LIMIT" env -C "$JR_TMP" HOME="$(mode_home "$m")" "$JR" "$@" </dev/null
}

# expect_no_output DESC NEEDLE - $OUT lacks NEEDLE.
expect_no_output() {
	if grep -qF -- "$2" <<<"$OUT"; then fail "$1: output has '$2': $OUT"; else ok "$1"; fi
}

# The seccomp mode of the command, as the kernel reports it (2: filter).
SECCOMP=(sh -c 'echo "seccomp=$(awk "/^Seccomp:/ { print \$2 }" /proc/self/status)"')

C="$JR_TMP/conf"
mkdir -m 755 "$C" "$C/sub"
printf '# the lab policy\nallow allowed.test   # the only one\n' >"$C/allow.conf"
printf 'seccomp off\n' >"$C/seccomp-off.conf"
printf 'allow a.test\ninclude sub/b.conf\n' >"$C/loop.conf"
printf '# b\ninclude ../loop.conf\n' >"$C/sub/b.conf"
printf 'allow a.test\nfrobnicate yes\n' >"$C/unknown.conf"
printf 'timeout 10\nseccomp maybe\n' >"$C/badvalue.conf"
printf 'allow api.example.com\n' >"$C/api.conf"
printf 'api.example.com\n' >"$C/api.list"
printf '# a typo\nalow allowed.test\n' >"$C/typo.conf"
printf 'allow=allowed.test\n' >"$C/equals.conf"
printf 'tmpfs ~/jr-tmpfs\nro $HOME\n' >"$C/home.conf"
chmod 644 "$C"/*.conf "$C"/sub/*.conf "$C/api.list"
# A script in the host's /tmp, outside the working directory.
VANISH=$(mktemp /tmp/jailrun-vanish.XXXXXX)
lab_on_exit 'rm -f "$VANISH"'
echo 'echo vanish-ran' >"$VANISH"
chmod 644 "$VANISH"

# /etc/jailrun trees: NAME policy-text
mketc() {
	local d="$JR_TMP/etc-$1"
	mkdir -m 755 "$d" "$d/profiles"
	printf '%b' "$2" >"$d/policy.conf"
	chmod 644 "$d/policy.conf"
	echo "$d"
}
E_NONE="$JR_TMP/etc-none"
mkdir -m 755 "$E_NONE" "$E_NONE/profiles"
# The system's profiles are where jailrun was built to read them
# (configure --with-profile-dir): /etc/jailrun/profiles, shown from an
# /etc of the test's own; make distcheck builds it to read them below its
# own install tree, where the test writes the profile itself.
SYSDIR=$({ "$JAILRUN" --profile jr-probe-nosuch --print-config 2>&1 || true; } |
	sed -n 's|.*neither \(/.*\)/jr-probe-nosuch\.conf nor.*|\1|p')
[ -n "$SYSDIR" ] || fail "the system profile directory is not named in the missing-profile error"
if [ "$SYSDIR" = /etc/jailrun/profiles ]; then
	SYSPROF=$E_NONE/profiles/worker.conf
else
	mkdir -p "$SYSDIR"
	SYSPROF=$SYSDIR/worker.conf
	# shellcheck disable=SC2016 # expanded at exit
	lab_on_exit 'rm -f "$SYSPROF"'
fi
printf 'seccomp off\ntimeout 30\n' >"$SYSPROF"
chmod 644 "$SYSPROF"
E_DENY=$(mketc deny 'deny *.example.com\n')
E_DENYNET=$(mketc denynet '# the lab web servers\ndeny 192.0.2.0/24\ndeny 2001:db8:2::/48\n')
E_DENYLO=$(mketc denylo '# the host loopback\ndeny 127.0.0.0/8\ndeny ::1\n')
printf 'lane 127.0.0.1:8080\n' >"$C/lane.conf"
chmod 644 "$C/lane.conf"
E_REQ=$(mketc req 'require seccomp on\nrequire net allowlist|none\n')
E_MODE=$(mketc mode 'deny *.example.com\n')
chmod 666 "$E_MODE/policy.conf"
E_OWNER=$(mketc owner 'deny *.example.com\n')
chown "$JR_NOBODY_UID" "$E_OWNER/policy.conf"
E_DIRMODE=$(mketc dirmode 'deny *.example.com\n')
chmod 777 "$E_DIRMODE"

for m in $(jr_modes); do
	mkdir -p "$(mode_home "$m")/.config/jailrun/profiles"
	UP="$(mode_home "$m")/.config/jailrun/profiles"

	# --- a file's allow reaches the lab; without it the same name is refused
	lab_logs_clear
	expect_status 0 "$m: allow from a file" jl "$m" --config "$C/allow.conf" -- \
		curl -sS -m 10 http://allowed.test/conf
	expect_output_has "$m: the file's allow reached allowed.test" "served-by: allowed.test"
	expect_status 0 "$m: control: another file's allow" jl "$m" --config "$C/api.conf" -- \
		curl -sS -m 10 -i http://allowed.test/
	expect_output_has "$m: control: allowed.test refused without the file's allow" \
		"X-Jailrun-Deny: not-allowed"

	# --- the command line wins over a file; the file alone holds
	expect_status 0 "$m: seccomp off from a file" cj "$m" --config "$C/seccomp-off.conf" -- "${SECCOMP[@]}"
	expect_output_has "$m: the file turned seccomp off" "seccomp=0"
	expect_status 0 "$m: command line over a file" cj "$m" --config "$C/seccomp-off.conf" \
		--seccomp on -- "${SECCOMP[@]}"
	expect_output_has "$m: the command line's seccomp on won" "seccomp=2"

	# --- profiles: the system's, then the user's on top
	ETC=$E_NONE expect_status 0 "$m: system profile" cj "$m" --profile worker -- "${SECCOMP[@]}"
	expect_output_has "$m: the system profile applied" "seccomp=0"
	printf 'seccomp on\n' >"$UP/worker.conf"
	chmod 644 "$UP/worker.conf"
	ETC=$E_NONE expect_status 0 "$m: user profile over the system's" cj "$m" --profile worker \
		--print-config
	expect_output_has "$m: the user's seccomp wins" "seccomp on	# $UP/worker.conf:1"
	expect_output_has "$m: the system's timeout holds" "timeout 30	# $SYSDIR/worker.conf:2"
	rm -f "$UP/worker.conf"
	printf 'seccomp off\n' >"$UP/mine.conf"
	chmod 644 "$UP/mine.conf"
	expect_status 0 "$m: user-only profile" cj "$m" --profile mine -- "${SECCOMP[@]}"
	expect_output_has "$m: the user profile applied" "seccomp=0"
	expect_status 125 "$m: a missing profile" cj "$m" --profile nosuch -- touch "$JR_W/ran-$m"
	expect_output_has "$m: both places named" "neither $SYSDIR/nosuch.conf nor"
	expect_status 125 "$m: a profile name with a slash" cj "$m" --profile ../x -- true

	# --- bad files: status 125, file:line, nothing runs
	rm -f "$JR_W/ran-$m"
	expect_status 125 "$m: include loop" cj "$m" --config "$C/loop.conf" -- touch "$JR_W/ran-$m"
	expect_output_has "$m: the loop's line named" "$C/sub/b.conf:2: include loop: $C/sub/../loop.conf"
	expect_status 125 "$m: unknown keyword" cj "$m" --config "$C/unknown.conf" -- touch "$JR_W/ran-$m"
	expect_output_has "$m: unknown keyword's line named" "$C/unknown.conf:2: unknown keyword 'frobnicate'"
	expect_status 125 "$m: bad value" cj "$m" --config "$C/badvalue.conf" -- touch "$JR_W/ran-$m"
	expect_output_has "$m: bad value's line named" "$C/badvalue.conf:2: --seccomp maybe: expected on or off"
	expect_status 125 "$m: unreadable file" cj "$m" --config "$C/none.conf" -- touch "$JR_W/ran-$m"
	expect_output_has "$m: unreadable file named" "$C/none.conf: cannot read"
	if [ -e "$JR_W/ran-$m" ]; then fail "$m: a refused configuration ran the command"; else
		ok "$m: no refused configuration ran the command"; fi

	# --- the managed policy: deny
	ETC=$E_DENY expect_status 125 "$m: managed deny vs --allow" cj "$m" --allow api.example.com \
		-- touch "$JR_W/ran-$m"
	expect_output_has "$m: the allow named" "allow api.example.com (command line)"
	expect_output_has "$m: the deny named" "'deny *.example.com' (/etc/jailrun/policy.conf:1)"
	ETC=$E_DENY expect_status 125 "$m: managed deny vs a file's allow" cj "$m" --config "$C/api.conf" \
		-- touch "$JR_W/ran-$m"
	expect_output_has "$m: the file's line named" "allow api.example.com ($C/api.conf:1)"
	ETC=$E_DENY expect_status 125 "$m: managed deny vs --allow-file" cj "$m" --allow-file "$C/api.list" \
		-- touch "$JR_W/ran-$m"
	expect_output_has "$m: the allow-file entry named" "allow api.example.com (an --allow-file)"
	ETC=$E_DENY expect_status 0 "$m: an allow the deny does not cover" cj "$m" --allow example.com \
		-- echo ran
	expect_output_has "$m: the apex is not below *.example.com" "ran"
	# at decision time: a name allowed by the allowlist that resolves into
	# a denied range is refused by the relay, and never reaches the lab
	lab_logs_clear
	ETC=$E_DENYNET expect_status 0 "$m: managed deny at decision time" jle "$m" --allow allowed.test \
		-- curl -sS -m 10 -i http://allowed.test/
	expect_output_has "$m: the relay said managed-deny" "X-Jailrun-Deny: managed-deny"
	never_served "$m" allowed.test
	# a host lane is connected without asking the policy, so the denies
	# are asked at start: before, the lane reached the denied loopback
	rm -f "$JR_W/ran-lane-$m"
	for lane in 127.0.0.1:8080 '[::ffff:127.0.0.1]:8080' '[::1]:8080'; do
		ETC=$E_DENYLO expect_status 125 "$m: managed deny vs --lane $lane" jle "$m" --net none \
			--lane "$lane" -- sh -c "touch $JR_W/ran-lane-$m; curl -sS -m 10 \"\$JAILRUN_LANE_8080/t-managed-lane\""
		expect_output_has "$m: --lane $lane: the lane named" "lane $lane (command line) is refused"
	done
	expect_output_has "$m: --lane [::1]:8080: the deny named" "'deny ::1' (/etc/jailrun/policy.conf:3)"
	ETC=$E_DENYLO expect_status 125 "$m: managed deny vs a file's lane" jle "$m" --net none \
		--config "$C/lane.conf" -- sh -c "touch $JR_W/ran-lane-$m; curl -sS -m 10 \"\$JAILRUN_LANE_8080/t-managed-lane\""
	expect_output_has "$m: the file's lane and the deny named" \
		"lane 127.0.0.1:8080 ($C/lane.conf:1) is refused: the managed policy's 'deny 127.0.0.0/8' (/etc/jailrun/policy.conf:2)"
	if [ -e "$JR_W/ran-lane-$m" ]; then fail "$m: a denied lane ran the command"; else
		ok "$m: no denied lane ran the command"; fi
	if lab_web_served lab-host-loopback /t-managed-lane; then
		fail "$m: a denied lane reached the lab host's loopback service"
	else ok "$m: no denied lane reached the lab host's loopback service"; fi
	# control: the same lane under a policy that does not cover it works
	ETC=$E_DENYNET expect_status 0 "$m: a lane no deny covers" jle "$m" --net none \
		--lane 127.0.0.1:8080 -- sh -c 'curl -sS -m 10 "$JAILRUN_LANE_8080/t-lane-ok"'
	expect_output_has "$m: the uncovered lane reached the loopback service" "served-by: lab-host-loopback"

	# --- the managed policy's own file must be root's
	ETC=$E_MODE expect_status 125 "$m: policy writable by others" cj "$m" -- touch "$JR_W/ran-$m"
	expect_output_has "$m: mode refused, said why" "is writable by group or others: refused"
	ETC=$E_OWNER expect_status 125 "$m: policy not owned by root" cj "$m" -- touch "$JR_W/ran-$m"
	expect_output_has "$m: owner refused, said why" "is not owned by root: refused"
	ETC=$E_DIRMODE expect_status 125 "$m: policy directory writable by others" cj "$m" -- touch "$JR_W/ran-$m"
	expect_output_has "$m: directory refused, said why" "its directory /etc/jailrun is writable by group or others"

	# --- require
	ETC=$E_REQ expect_status 125 "$m: require seccomp on vs a file's off" cj "$m" \
		--config "$C/seccomp-off.conf" -- touch "$JR_W/ran-$m"
	expect_output_has "$m: the require and the file named" \
		"requires seccomp on (/etc/jailrun/policy.conf:1), but it is off ($C/seccomp-off.conf:1)"
	ETC=$E_REQ expect_status 0 "$m: require met by the defaults" cj "$m" -- "${SECCOMP[@]}"
	expect_output_has "$m: ran with seccomp" "seccomp=2"
	if [ -e "$JR_W/ran-$m" ]; then fail "$m: a refused policy ran the command"; else
		ok "$m: no policy refusal ran the command"; fi

	# --- --print-config: every origin, nothing run
	ETC=$E_DENY expect_status 0 "$m: --print-config" cj "$m" --config "$C/allow.conf" --config \
		"$C/seccomp-off.conf" --timeout 5 --print-config -- touch "$JR_W/ran-$m"
	expect_output_has "$m: a file's line" "allow allowed.test	# $C/allow.conf:2"
	expect_output_has "$m: the later file" "seccomp off	# $C/seccomp-off.conf:1"
	expect_output_has "$m: the command line" "timeout 5	# command line"
	expect_output_has "$m: a default" "landlock auto	# default"
	expect_output_has "$m: a derived default" "net allowlist	# default (allow entries given)"
	expect_output_has "$m: the managed deny" "deny *.example.com	# /etc/jailrun/policy.conf:1 (managed policy)"
	if [ -e "$JR_W/ran-$m" ]; then fail "$m: --print-config ran the command"; else
		ok "$m: --print-config ran nothing"; fi

	# --- --print-config: the user, the working directory, missing paths
	expect_status 0 "$m: --print-config, defaults" cj "$m" --rw "$JR_TMP/no-such-dir" --print-config
	expect_output_has "$m: the effective user" "	# default (uid $(jr_expected_uid "$m"), gid"
	expect_output_has "$m: the working directory" "workdir $JR_TMP	# default (the current directory)"
	expect_output_has "$m: the gateway" "gateway 100.64.77.1/30	# default"
	expect_output_has "$m: a missing path flagged" \
		"rw $JR_TMP/no-such-dir	# command line; MISSING: $JR_TMP/no-such-dir does not exist"
	expect_output_has "$m: and said on stderr" "1 path in the configuration does not exist"

	# --- typos: did you mean, and keyword=value
	expect_status 125 "$m: a misspelt keyword" cj "$m" --config "$C/typo.conf" -- touch "$JR_W/ran-$m"
	expect_output_has "$m: the keyword it meant" "$C/typo.conf:2: unknown keyword 'alow': did you mean 'allow'?"
	expect_status 125 "$m: a misspelt option" cj "$m" --alow allowed.test -- touch "$JR_W/ran-$m"
	expect_output_has "$m: the option it meant" "unknown option '--alow'; did you mean --allow?"
	expect_status 125 "$m: keyword=value" cj "$m" --config "$C/equals.conf" -- touch "$JR_W/ran-$m"
	expect_output_has "$m: the form explained" \
		"$C/equals.conf:1: a keyword and its value are separated by white space, not '=' or ':': write the keyword, a space, then the value"
	if [ -e "$JR_W/ran-$m" ]; then fail "$m: a typo ran the command"; else
		ok "$m: no typo ran the command"; fi

	# --- ~ and $HOME in a file's paths are the caller's home
	H=$(mode_home "$m")
	mkdir -p "$H/jr-tmpfs"
	expect_status 0 "$m: ~ in a file" cj "$m" --config "$C/home.conf" --print-config
	expect_output_has "$m: ~/ expanded" "tmpfs $H/jr-tmpfs	# $C/home.conf:1"
	expect_output_has "$m: \$HOME expanded" "ro $H	# $C/home.conf:2"
	expect_status 0 "$m: ~ reaches the layout" cj "$m" --config "$C/home.conf" -- \
		sh -c "touch '$H/jr-tmpfs/new' && echo tmpfs-ok"
	expect_output_has "$m: the expanded --tmpfs was mounted" "tmpfs-ok"
	if [ -e "$H/jr-tmpfs/new" ]; then fail "$m: the file went to the host, not the tmpfs"; else
		ok "$m: the file stayed in the tmpfs"; fi

	# --- a command argument under the private /tmp: warned, with the fix
	expect_status 2 "$m: a script under the host's /tmp" cj "$m" -- sh "$VANISH"
	expect_output_has "$m: warned that /tmp is the sandbox's own" \
		"$VANISH is on the host, but the sandbox has its own empty /tmp: the command will not find it there; show it with --ro $VANISH"
	expect_status 0 "$m: the fix works" cj "$m" --ro "$VANISH" -- sh "$VANISH"
	expect_output_has "$m: the script ran" "vanish-ran"
	expect_no_output "$m: no warning once shown" "the sandbox has its own empty"
done

finish
