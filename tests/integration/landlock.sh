#!/bin/bash
# Landlock, the second wall (landlock.c).
# Fails if: a write outside the writable roots, which the command's user may
# do on the host (baseline) and inside with --landlock off, is not refused
# by Landlock (EACCES, not the EROFS of a read-only mount) by default; a
# write in the working directory, /tmp or /dev/null is refused; in the
# allowlist mode a TCP connect to a loopback port no entry names is not
# refused while one to an allowed port works; --landlock require on a
# kernel without Landlock (a seccomp filter answering ENOSYS) does not exit
# 125 with a message, or --landlock auto there fails to run the command.
. "${JR_TOP_SRCDIR:-$(dirname "$0")/../..}/tests/lib.sh"
jr_require_sandbox
command -v python3 >/dev/null || skip "python3 is needed"
[ -x "$JR_TMP/nolandlock" ] || skip "tests/helpers/nolandlock is not built"

# Outside every writable root (the working directory, /tmp, /var/tmp,
# /dev/shm, /run), where the command's user may write on the host.
if [ "$(id -u)" -eq 0 ]; then OUTSIDE="/var/lib/jailrun-ll-$$"; else OUTSIDE="$HOME/.jailrun-ll-$$"; fi
ll_cleanup() {
	rm -rf "$OUTSIDE"-*
	jr_cleanup_tmp
}
trap ll_cleanup EXIT

# The mount layer must not be the one refusing: switch it off with --fs
# host. There Landlock leaves the host writable unless --landlock require
# asks it to confine writes to the working directory (ON).
FS=(--fs host)
ON=(--landlock require)

as_cmd_uid() {
	if [ "$(id -u)" -eq 0 ]; then
		setpriv --reuid="$JR_NOBODY_UID" --regid="$JR_NOBODY_GID" --clear-groups -- "$@"
	else
		"$@"
	fi
}

# The kernel must have Landlock for the wall to be shown; the ENOSYS part
# below runs either way.
if grep -q "landlock: ABI" <<<"$("$JR" --check 2>/dev/null || true)"; then HAVE_LL=1; else HAVE_LL=0; fi

for m in $(jr_modes); do
	out="$OUTSIDE-$m"
	mkdir -m 777 "$out"
	expect_status 0 "baseline: $m's user writes $out without jailrun" \
		as_cmd_uid sh -c "echo x > '$out/base'"
	if [ "$HAVE_LL" = 1 ]; then
		expect_status 0 "$m: with --landlock off the write outside succeeds (no other layer refuses it)" \
			jr "$m" "${FS[@]}" --landlock off -- sh -c "echo x > '$out/off'"
		expect_status 0 "$m: --fs host alone keeps the host writable (Landlock auto restricts no write there)" \
			jr "$m" "${FS[@]}" -- sh -c "echo x > '$out/host'"
		expect_status 1 "$m: Landlock refuses the write outside the writable roots" \
			jr "$m" "${FS[@]}" "${ON[@]}" -- sh -c "echo x > '$out/on' || exit 1"
		expect_output_has "$m: refused with EACCES (Landlock), not EROFS" "Permission denied"
		if [ -e "$out/on" ]; then fail "$m: $out/on was created"; else ok "$m: $out/on not created"; fi
		expect_status 1 "$m: Landlock refuses mkdir outside" \
			jr "$m" "${FS[@]}" "${ON[@]}" -- sh -c "mkdir '$out/d' || exit 1"
		expect_status 0 "$m: writes in the working directory, /tmp and /dev/null work" \
			jr "$m" "${FS[@]}" "${ON[@]}" -- sh -c "echo x > '$JR_W/ll-$m.txt' && rm '$JR_W/ll-$m.txt' && echo x > /tmp/ll-$$-$m && rm /tmp/ll-$$-$m && echo x > /dev/null"
		expect_status 0 "$m: -v names the Landlock layer" jr "$m" -v -- true
		expect_output_has "$m: -v: landlock ABI" "landlock: ABI"

		# TCP connect on ABI >= 4: only allowed ports (loopback inside,
		# nothing leaves the sandbox).
		if grep -q "landlock: ABI.*TCP connect" <<<"$("$JR" --check 2>/dev/null || true)"; then
			tcp='
import socket, errno, sys
res = []
for port in (8443, 8080):
    s = socket.socket(); s.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    s.bind(("127.0.0.1", port)); s.listen()
    c = socket.socket(); c.settimeout(10)
    try:
        c.connect(("127.0.0.1", port)); res.append("%d:ok" % port)
    except OSError as e:
        res.append("%d:%s" % (port, errno.errorcode.get(e.errno, e.errno)))
print(" ".join(res))'
			expect_status 0 "$m: allowlist: loopback TCP under Landlock" \
				jr "$m" --allow example.test:8443 -- python3 -c "$tcp"
			expect_output_has "$m: TCP to an allowed port works" "8443:ok"
			expect_output_has "$m: TCP to a port no entry names is refused by Landlock" "8080:EACCES"
			expect_status 0 "$m: allowlist: loopback TCP without Landlock" \
				jr "$m" --landlock off --allow example.test:8443 -- python3 -c "$tcp"
			expect_output_has "$m: without Landlock the other port connects (nft allows loopback)" "8080:ok"
		fi
	fi

	# A kernel without Landlock, simulated.
	expect_status 125 "$m: --landlock require without Landlock exits 125" \
		as_mode "$m" timeout -k 5 "$JR_RUN_LIMIT" "$JR_TMP/nolandlock" "$JR" --landlock require -- true
	expect_output_has "$m: and says why" "--landlock require: this kernel offers no Landlock"
	expect_status 0 "$m: --landlock auto without Landlock still runs the command" \
		as_mode "$m" timeout -k 5 "$JR_RUN_LIMIT" "$JR_TMP/nolandlock" "$JR" -v -- true
	expect_output_has "$m: -v says Landlock is not available" "landlock: not available"
done

finish
