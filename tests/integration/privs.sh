#!/bin/bash
# What the command holds: no capabilities in any set, no_new_privs, locked
# securebits, no fd but 0/1/2, only its own PIDs, /proc/sys read-only,
# private mounts, no controlling terminal without a pty.
# Fails if any privilege or fd of the runner reaches the command.
. "${JR_TOP_SRCDIR:-$(dirname "$0")/../..}/tests/lib.sh"
jr_require_sandbox

for m in $(jr_modes); do
	expect_status 0 "$m: read /proc/self/status" jr "$m" -- cat /proc/self/status
	for f in CapInh CapPrm CapEff CapBnd CapAmb; do
		if grep -qE "^$f:[[:space:]]+0+$" <<<"$OUT"; then
			ok "$m: $f is empty"
		else
			fail "$m: $f not empty: $(printf '%s\n' "$OUT" | grep "^$f:")"
		fi
	done
	if grep -qE '^NoNewPrivs:[[:space:]]+1$' <<<"$OUT"; then
		ok "$m: NoNewPrivs is 1"
	else
		fail "$m: NoNewPrivs: $(printf '%s\n' "$OUT" | grep NoNewPrivs)"
	fi

	# --user root in a user namespace: exec as uid 0 must not bring
	# capabilities back (SECBIT_NOROOT, empty bounding set).
	if [ "$m" = root ]; then
		expect_status 0 "root: --user root status" jr root --user root -- cat /proc/self/status
		if grep -qE '^CapEff:[[:space:]]+0+$' <<<"$OUT" &&
			grep -qE '^CapPrm:[[:space:]]+0+$' <<<"$OUT"; then
			ok "root: --user root holds no capabilities"
		else
			fail "root: --user root has capabilities: $(printf '%s\n' "$OUT" | grep '^Cap')"
		fi
	fi

	# No fd of jailrun (nor one the caller forgot to mark CLOEXEC).
	expect_status 0 "$m: only fds 0, 1, 2 in the command" \
		as_mode "$m" bash -c "exec 7</dev/null 9>/dev/null; exec timeout -k 5 $JR_RUN_LIMIT '$JR' -- '$JR_TMP/fdcheck'"
	expect_output_has "$m: fdcheck ran" "only 0, 1, 2 open"

	# PID namespace: the command is PID 2 (init is 1) and sees no host PID.
	expect_status 0 "$m: list PIDs" jr "$m" -- sh -c 'echo "self=$$"; ls /proc | grep -E "^[0-9]+$" | tr "\n" " "'
	expect_output_has "$m: command is PID 2" "self=2"
	pids=$(printf '%s\n' "$OUT" | tail -n1)
	count=$(echo "$pids" | wc -w)
	# sh (2) plus its pipeline (ls, grep, tr) and init (1): at most 5,
	# all small numbers, where the host has hundreds.
	if [ "$count" -le 5 ] && [ "$(echo "$pids" | tr ' ' '\n' | sort -n | tail -n1)" -le 10 ]; then
		ok "$m: sees only its own PIDs ($pids)"
	else
		fail "$m: sees $count PIDs: $pids"
	fi

	# /proc/sys is read-only.
	expect_status 1 "$m: /proc/sys write fails" jr "$m" -- sh -c 'echo x 2>&1 > /proc/sys/kernel/domainname || exit 1'
	expect_output_has "$m: /proc/sys write fails as read-only" "Read-only file system"
	expect_status 0 "$m: /proc/sys mount flags" jr "$m" -- sh -c 'grep " /proc/sys " /proc/self/mountinfo'
	if grep -qE ' /proc/sys ro,' <<<"$OUT"; then ok "$m: /proc/sys is mounted ro"; else fail "$m: /proc/sys mount: $OUT"; fi

	# Mounts are private: no shared: propagation tags.
	expect_status 0 "$m: mountinfo" jr "$m" -- cat /proc/self/mountinfo
	if grep -q 'shared:' <<<"$OUT"; then fail "$m: a mount still propagates: $(printf '%s' "$OUT" | grep shared: | head -3)"; else ok "$m: all mounts private"; fi

	# Without a pty the command has no controlling terminal (TIOCSTI-proof).
	expect_status 0 "$m: no controlling tty" jr "$m" -- sh -c 'if (exec 3</dev/tty) 2>/dev/null; then echo HAS-TTY; else echo NO-TTY; fi'
	expect_output_has "$m: /dev/tty cannot be opened" "NO-TTY"

	# New IPC namespace: a host SysV queue is invisible.
	expect_status 0 "$m: ipc namespace" jr "$m" -- sh -c 'readlink /proc/self/ns/ipc'
	# The namespace line itself, not $OUT: a warning in $OUT would differ too.
	ipc=$(grep -xE 'ipc:\[[0-9]+\]' <<<"$OUT" || true)
	if [ -n "$ipc" ] && [ "$ipc" != "$(readlink /proc/self/ns/ipc)" ]; then ok "$m: own IPC namespace"; else fail "$m: IPC namespace: $OUT"; fi
done

finish
