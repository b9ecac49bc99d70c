#!/bin/bash
# The command's environment (jailrun(1), ENVIRONMENT), root and rootless.
# Fails if: HOME, USER, LOGNAME or SHELL are the caller's instead of the
# command's user's (its passwd entry; HOME /tmp when that home cannot be
# searched, SHELL /bin/sh when /etc/shells does not list the login shell),
# with the default user, --user root, --user daemon or --host-root; PATH
# keeps a directory the command cannot search, or -v does not say so;
# --setenv, --unsetenv, --clearenv or --env-file (or their config
# keywords) do not do what they say; the order (identity, env file,
# jailrun's own, --setenv, --unsetenv) differs; an env file overrides
# jailrun's proxy silently; or bad input runs the command instead of
# exiting 125 with the entry and the rule.
. "${JR_TOP_SRCDIR:-$(dirname "$0")/../..}/tests/lib.sh"
jr_require_sandbox

# pw_field USER N - field N of USER's passwd entry.
pw_field() { getent passwd "$1" | cut -d: -f"$2"; }
# want_shell USER - the SHELL the command should get.
want_shell() {
	local sh
	sh=$(pw_field "$1" 7)
	if [ -n "$sh" ] && grep -qxF -- "$sh" /etc/shells; then echo "$sh"; else echo /bin/sh; fi
}
# var NAME - NAME's value in $OUT (env's output inside), or <unset>.
var() {
	local line
	line=$(grep -m1 "^$1=" <<<"$OUT" || true)
	if [ -n "$line" ]; then printf '%s\n' "${line#*=}"; else echo '<unset>'; fi
}
# expect_var DESC NAME WANT - check NAME in $OUT.
expect_var() {
	local got
	got=$(var "$2")
	if [ "$got" = "$3" ]; then ok "$1: $2=$3"; else fail "$1: $2 is '$got', want '$3'; output: $OUT"; fi
}
# expect_identity DESC USER HOME - HOME, USER, LOGNAME, SHELL in $OUT.
expect_identity() {
	expect_var "$1" HOME "$3"
	expect_var "$1" USER "$2"
	expect_var "$1" LOGNAME "$2"
	expect_var "$1" SHELL "$(want_shell "$2")"
}
# The marker a command that must not run would leave.
RAN=$JR_W/ran
not_run() {
	if [ -e "$RAN" ]; then fail "$1: the command ran"; rm -f "$RAN"; else ok "$1: the command did not run"; fi
}

# Fixtures readable by every mode's caller.
F=$JR_TMP/envfiles
mkdir -m 755 "$F"
printf '# the project'"'"'s settings\n\nFROM_FILE=one\nSPACED= a b \nORDER=file\nHOME=/from-file\nHTTPS_PROXY=http://host-proxy:8080\n' >"$F/good.env"
printf 'OK=1\nNOEQUALS\n' >"$F/noeq.env"
printf 'OK=1\n\n=value\n' >"$F/noname.env"
printf 'export A=1\n' >"$F/export.env"
printf 'A=1\r\n' >"$F/crlf.env"
printf 'A=x\0y\n' >"$F/nul.env"
printf 'setenv CONF_A=from-config\nunsetenv CONF_GONE\nenv-file %s\n' "$F/good.env" >"$F/env.conf"
printf 'clearenv\nsetenv CONF_A=x\n' >"$F/clear.conf"
chmod 644 "$F"/*

# A directory under /root (mode 0700, root's) is one neither nobody nor a
# fake root can search; whether it exists does not matter.
LOCKED=/root/jailrun-env-test-bin
MISSING=/nonexistent-jailrun-env-test
root_locked=0
as_mode rootless test -x /root 2>/dev/null || root_locked=1

for m in $(jr_modes); do
	nobody_home=$(pw_field nobody 6)
	want_home=/tmp
	if as_mode rootless test -d "$nobody_home" -a -x "$nobody_home" 2>/dev/null; then want_home=$nobody_home; fi

	# The caller's HOME is /root (root) or $JR_HOME (rootless): neither
	# may reach the command, which runs as nobody.
	expect_status 0 "$m: default user" jr "$m" -- env
	expect_identity "$m: default user" nobody "$want_home"

	root_home=/tmp
	[ "$root_locked" = 1 ] || root_home=/root
	expect_status 0 "$m: --user root" jr "$m" --user root -- env
	expect_identity "$m: --user root (uid 0 inside, /root not searchable)" root "$root_home"

	# PATH: the unsearchable entry goes (said at -v), the missing one and
	# the rest stay, and commands are still found.
	if [ "$root_locked" = 1 ]; then
		expect_status 0 "$m: PATH pruned" as_mode "$m" env PATH="$LOCKED:$MISSING:/usr/bin:/bin" \
			timeout -k 5 "$JR_RUN_LIMIT" "$JR" -v -- env
		expect_var "$m: PATH pruned" PATH "$MISSING:/usr/bin:/bin"
		expect_output_has "$m: -v names the dropped PATH entry" "PATH: dropped $LOCKED: nobody cannot search it"
	else
		skip_part "$m: /root is searchable by nobody here: no unsearchable PATH entry to test"
	fi

	# --setenv: repeatable, the last of a name wins, '=' in the value, an
	# empty value; --unsetenv removes an inherited one.
	expect_status 0 "$m: --setenv/--unsetenv" as_mode "$m" env JR_T_GONE=1 JR_T_KEPT=1 \
		timeout -k 5 "$JR_RUN_LIMIT" "$JR" --setenv A=1 --setenv A=2 --setenv B=x=y \
		--setenv EMPTY= --unsetenv JR_T_GONE -- env
	expect_var "$m: --setenv" A 2
	expect_var "$m: --setenv" B x=y
	expect_var "$m: --setenv" EMPTY ""
	expect_var "$m: --unsetenv" JR_T_GONE '<unset>'
	expect_var "$m: inherited" JR_T_KEPT 1

	# --clearenv: nothing but the identity and what is asked for.
	expect_status 0 "$m: --clearenv" as_mode "$m" env JR_T_KEPT=1 \
		timeout -k 5 "$JR_RUN_LIMIT" "$JR" --clearenv --setenv A=1 -- env
	got=$({ grep -v '^jailrun:' <<<"$OUT" || true; } | cut -d= -f1 | LC_ALL=C sort | tr '\n' ' ')
	if [ "$got" = "A HOME LOGNAME SHELL USER " ]; then ok "$m: --clearenv: only A HOME LOGNAME SHELL USER"; else fail "$m: --clearenv: $got; output: $OUT"; fi
	# ... and jailrun's own variables stay (the proxy).
	expect_status 0 "$m: --clearenv --net public" jr "$m" --clearenv --net public -- env
	expect_var "$m: --clearenv keeps jailrun's proxy" HTTPS_PROXY "http://100.64.77.1:3128"
	expect_var "$m: --clearenv keeps jailrun's proxy" NO_PROXY "localhost,127.0.0.1,::1"
	expect_var "$m: --clearenv" PATH '<unset>'

	# The order: identity < env file < jailrun's own < --setenv, then
	# --unsetenv; inherited < env file.
	expect_status 0 "$m: order" as_mode "$m" env ORDER=inherited FROM_FILE=inherited \
		timeout -k 5 "$JR_RUN_LIMIT" "$JR" --net public --env-file "$F/good.env" \
		--setenv ORDER=setenv -- env
	expect_var "$m: env file over inherited" FROM_FILE one
	expect_var "$m: env file value literal" SPACED " a b "
	expect_var "$m: --setenv over env file" ORDER setenv
	expect_var "$m: env file over the identity" HOME /from-file
	expect_var "$m: jailrun's proxy over env file" HTTPS_PROXY "http://100.64.77.1:3128"
	expect_output_has "$m: the env file's proxy line is said to be ignored" \
		"good.env:7: HTTPS_PROXY is jailrun's own variable in this run: the line is ignored"
	# An explicit --setenv wins over jailrun's own, loudly.
	expect_status 0 "$m: --setenv HTTPS_PROXY=" jr "$m" --net public --setenv HTTPS_PROXY= -- env
	expect_var "$m: --setenv over jailrun's own" HTTPS_PROXY ""
	expect_var "$m: the others stay" http_proxy "http://100.64.77.1:3128"
	expect_output_has "$m: overriding jailrun's own is warned" \
		"warning: --setenv HTTPS_PROXY: replaces jailrun's own variable"
	expect_status 0 "$m: --unsetenv after --setenv's turn" jr "$m" --unsetenv HOME -- env
	expect_var "$m: --unsetenv HOME" HOME '<unset>'
	# Without --net public, HTTPS_PROXY is not jailrun's: the file's counts.
	expect_status 0 "$m: env file proxy under --net none" jr "$m" --env-file "$F/good.env" -- env
	expect_var "$m: --net none: the env file's HTTPS_PROXY" HTTPS_PROXY "http://host-proxy:8080"

	# The config keywords.
	expect_status 0 "$m: config keywords" as_mode "$m" env CONF_GONE=1 \
		timeout -k 5 "$JR_RUN_LIMIT" "$JR" --config "$F/env.conf" -- env
	expect_var "$m: config setenv" CONF_A from-config
	expect_var "$m: config unsetenv" CONF_GONE '<unset>'
	expect_var "$m: config env-file" FROM_FILE one
	expect_status 0 "$m: config clearenv" as_mode "$m" env CONF_GONE=1 \
		timeout -k 5 "$JR_RUN_LIMIT" "$JR" --config "$F/clear.conf" -- env
	expect_var "$m: config clearenv" CONF_GONE '<unset>'
	expect_var "$m: config clearenv" CONF_A x

	# Bad input: 125, the entry and the rule, nothing run.
	for bad in "noeq.env:2: expected NAME=VALUE" \
		"noname.env:3: the name is empty" \
		"export.env:1: no 'export '" \
		"crlf.env:1: the line ends in a carriage return" \
		"nul.env:1: a NUL byte"; do
		file=${bad%%:*}
		expect_status 125 "$m: --env-file $file refused" jr "$m" --env-file "$F/$file" -- touch "$RAN"
		expect_output_has "$m: --env-file $file: file:line and the rule" "--env-file $F/$bad"
		not_run "$m: --env-file $file"
	done
	expect_status 125 "$m: a missing env file" jr "$m" --env-file "$F/missing.env" -- touch "$RAN"
	expect_output_has "$m: a missing env file is named" "--env-file $F/missing.env: cannot read"
	not_run "$m: a missing env file"
	for bad in "--setenv=NOVALUE|--setenv NOVALUE: expected NAME=VALUE" \
		"--setenv==x|--setenv =x: the name is empty" \
		"--setenv=A B=1|--setenv A B=1: a name is printable ASCII without spaces" \
		"--unsetenv=A=1|--unsetenv A=1: a name cannot contain '='" \
		"--unsetenv=|--unsetenv : the name is empty"; do
		arg=${bad%%|*}
		expect_status 125 "$m: $arg refused" jr "$m" "$arg" -- touch "$RAN"
		expect_output_has "$m: $arg: the entry and the rule" "${bad#*|}"
		not_run "$m: $arg"
	done
	expect_status 125 "$m: --setenv and --unsetenv of one name" jr "$m" --setenv A=1 --unsetenv A -- touch "$RAN"
	expect_output_has "$m: both named" "--unsetenv A and --setenv A=...: both name A; keep one"
	not_run "$m: --setenv and --unsetenv of one name"
done

# Run by root only: another user's passwd entry, and host root.
if [ "$(id -u)" -eq 0 ]; then
	if getent passwd daemon >/dev/null; then
		dhome=$(pw_field daemon 6)
		# daemon's home (/usr/sbin on Debian) belongs to root, group root.
		expect_status 0 "root: --user daemon" jr root --user daemon -- env
		expect_identity "root: --user daemon (a root-owned home it can search)" daemon "$dhome"
	else
		skip_part "no daemon user"
	fi
	expect_status 0 "root: --host-root" jr root --host-root -- env
	expect_identity "root: --host-root" root "$(pw_field root 6)"
	# A bare uid without a passwd entry: its number, /tmp, /bin/sh.
	uid=$(awk -F: 'BEGIN { u = 54321 } { used[$3] = 1 } END { while (used[u]) u++; print u }' /etc/passwd)
	expect_status 0 "root: --user $uid (no passwd entry)" jr root --user "$uid" -- env
	expect_var "root: --user $uid" HOME /tmp
	expect_var "root: --user $uid" USER "$uid"
	expect_var "root: --user $uid" SHELL /bin/sh
fi

finish
