# shellcheck shell=bash
# steps.sh - one long-lived sandbox, driven a step at a time (sourced by
# control.sh and ask.sh, whose checks all run in one sandbox per mode).
#
# $JR_TMP/inside.sh DIR, run as the sandbox's command, runs each command
# the test writes to DIR/cmd.N, in order: its output to DIR/out.N, then
# its status to DIR/rc.N (renamed into place, so a reader never sees half
# of it). "exit" ends the sandbox. The caller sets D (that DIR), STEP=0
# for each sandbox, m (the mode) and writes the run's own output to
# $JR_W/run-$m.out.
# m (the mode) is the sourcing test's.
# shellcheck disable=SC2154
cat >"$JR_TMP/inside.sh" <<'INSIDE'
#!/bin/sh
d=$1 n=0
while :; do
	n=$((n + 1))
	while [ ! -e "$d/cmd.$n" ]; do sleep 0.02; done
	c=$(cat "$d/cmd.$n")
	[ "$c" = exit ] && exit 0
	sh -c "$c" >"$d/out.$n" 2>&1 </dev/null
	echo $? >"$d/rc.$n.tmp"
	mv "$d/rc.$n.tmp" "$d/rc.$n"
done
INSIDE
chmod 755 "$JR_TMP/inside.sh"

# post CMD - hand CMD to the mode's sandbox as the next step.
post() {
	STEP=$((STEP + 1))
	printf '%s\n' "$1" >"$D/cmd.$STEP.tmp"
	chmod 644 "$D/cmd.$STEP.tmp"
	mv "$D/cmd.$STEP.tmp" "$D/cmd.$STEP"
}
# inside CMD - run CMD in the mode's sandbox: $IN_RC, $IN_OUT.
inside() {
	post "$1"
	if wait_until 120 test -e "$D/rc.$STEP"; then
		IN_RC=$(cat "$D/rc.$STEP")
		IN_OUT=$(cat "$D/out.$STEP")
	else
		IN_RC=999
		IN_OUT="(the sandbox did not run step $STEP: $(cat "$JR_W/run-$m.out"))"
	fi
}
# in_ok LABEL WANT-RC NEEDLE CMD - inside CMD; its status WANT-RC ("!0":
# any failure) and its output has NEEDLE ("" for none).
in_ok() {
	local label=$1 want=$2 needle=$3
	inside "$4"
	if { [ "$want" = '!0' ] && [ "$IN_RC" != 0 ]; } || [ "$IN_RC" = "$want" ]; then
		if [ -z "$needle" ] || grep -qF -- "$needle" <<<"$IN_OUT"; then
			ok "$m: $label"
			return
		fi
	fi
	fail "$m: $label: status $IN_RC (want $want), output: $IN_OUT"
}
