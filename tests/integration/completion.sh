#!/bin/bash
# Bash completion (contrib/bash-completion/jailrun), sourced in a plain
# bash without the bash-completion package, as root and rootless; and
# `make install` puts it (and jailrun.conf(5)) where they belong.
# Fails if: options do not complete (or not from --help), profile names are
# not read from the user's profile directory, `jailrun ctl` does not offer
# a live sandbox's name with a policy socket (and only those) as its
# target, then its ops and their flags, `jailrun exec` and `stop` do not
# offer the live sandboxes' names, an option's values or the command
# after -- do not complete, or make install leaves out the completion or
# the man page.
. "${JR_TOP_SRCDIR:-$(dirname "$0")/../..}/tests/lib.sh"

install -m 644 "$JR_TOP_SRCDIR/contrib/bash-completion/jailrun" "$JR_TMP/completion"
CH="$JR_TMP/chome"
mkdir -p "$CH/.config/jailrun/profiles"
# A rootless caller's live sandboxes (jailrun(1), LIVE SANDBOXES): names
# only, stand-in files where the sockets would be.
XDG="$JR_TMP/xdg"
mkdir -p "$XDG/jailrun"
touch "$XDG/jailrun/boxa.sock" "$XDG/jailrun/boxa.ctl" "$XDG/jailrun/boxb.sock"
chmod -R a+rX "$XDG"
touch "$CH/.config/jailrun/profiles/worker.conf" "$CH/.config/jailrun/profiles/other.conf"
chmod -R a+rX "$CH"

# complete MODE WORD... - the completions bash offers for the last WORD.
complete_words() {
	local m=$1
	shift
	as_mode "$m" env HOME="$CH" XDG_RUNTIME_DIR="$XDG" bash --norc --noprofile -c '
		source "$0"
		COMP_WORDS=("$@"); COMP_CWORD=$(($# - 1))
		_jailrun
		printf "%s\n" "${COMPREPLY[@]}"' "$JR_TMP/completion" "$JR" "$@"
}

# expect_completion DESC WANT DONT WORD... - WANT offered, DONT not.
expect_completion() {
	local desc=$1 want=$2 dont=$3 got
	shift 3
	got=$(complete_words "$m" "$@" 2>&1) || true
	if grep -qx -- "$want" <<<"$got" && { [ -z "$dont" ] || ! grep -qx -- "$dont" <<<"$got"; }; then
		ok "$m: $desc"
	else
		fail "$m: $desc: want '$want'${dont:+ and not '$dont'}; got: $(tr '\n' ' ' <<<"$got")"
	fi
}

for m in $(jr_modes); do
	expect_completion "an option from --help" --profile "" --prof
	expect_completion "--print-config" --print-config --profile --print-c
	expect_completion "profile names from ~/.config/jailrun/profiles" worker other --profile w
	expect_completion "ctl ops" lock status ctl /run/x.sock l
	expect_completion "ctl ops: status" status list ctl boxa s
	expect_completion "ctl ops: pending" pending "" ctl boxa p
	expect_completion "ctl approve ID --always" --always "" ctl boxa approve 3 --
	expect_completion "ctl remove ENTRY --close" --close "" ctl boxa remove x.test --
	if [ "$m" = rootless ]; then
		expect_completion "ctl: a live sandbox with its own policy socket" boxa boxb ctl box
		expect_completion "exec: the live sandboxes" boxb "" exec box
		expect_completion "stop: the live sandboxes" boxa "" stop box
	fi
	expect_completion "option values" off "" --seccomp o
	expect_completion "the command after --" echo "" --allow x -- ech
done

# make install: the completion and both man pages land in DESTDIR.
if [ -f "$JR_TOP_BUILDDIR/Makefile" ]; then
	D="$JR_TMP/destdir"
	if make -s -C "$JR_TOP_BUILDDIR" install DESTDIR="$D" >"$JR_TMP/install.log" 2>&1; then
		for f in share/man/man5/jailrun.conf.5 share/man/man1/jailrun.1; do
			if [ -n "$(find "$D" -path "*/$f" -print -quit)" ]; then ok "make install: $f"; else fail "make install: no $f"; fi
		done
		got=$(find "$D" -path '*/bash-completion/completions/jailrun' -print -quit)
		if [ -n "$got" ] && cmp -s "$got" "$JR_TOP_SRCDIR/contrib/bash-completion/jailrun"; then
			ok "make install: the bash completion (${got#"$D"})"
		else
			fail "make install: no bash completion in $(find "$D" -type f | tr '\n' ' ')"
		fi
	else
		fail "make install failed: $(tail -5 "$JR_TMP/install.log")"
	fi
else
	fail "no Makefile in $JR_TOP_BUILDDIR"
fi

finish
