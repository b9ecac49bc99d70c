#!/bin/bash
# Tool caches under the caller's home (jailrun(1), --rw, RECIPES), root and
# rootless: a --rw or --tmpfs of a missing directory below HOME is created
# (mode 0700, owned by the home's owner), never through a symlink and never
# outside HOME; the node, python, rust and go profiles load with their
# paths expanded; npm inside uses the writable cache.
# Fails if: a missing ~/.npm still fails the run, the directory is created
# with another mode or owner (root creating in another user's home must
# give it to that user), a symlink component is followed or a directory is
# created outside HOME, a refusal does not say "mkdir -p", a profile does
# not load or leaves "~" unexpanded, or npm's cache is not the --rw one.
. "${JR_TOP_SRCDIR:-$(dirname "$0")/../..}/tests/lib.sh"
jr_require_sandbox

NOBODY="$JR_NOBODY_UID:$JR_NOBODY_GID"
# Root's homes outside /tmp (the sandbox's /tmp is private), owned by root
# with group root, as /root is; the rootless caller's home is $JR_HOME.
if [ "$(id -u)" -eq 0 ]; then
	BASE=$(mktemp -d /var/lib/jailrun-caches.XXXXXX)
	chmod 755 "$BASE"
fi
caches_cleanup() {
	rm -rf "${BASE:-}"
	jr_cleanup_tmp
}
trap caches_cleanup EXIT

# owner_mode PATH - "uid:gid mode" of PATH.
owner_mode() { stat -c '%u:%g %a' "$1"; }

# create_case MODE HOME OWNER [CHECK] - a --rw and a --tmpfs of missing
# directories below HOME are created as OWNER's, 0700, and the run starts
# (CHECK, when the command may look into HOME, sees them).
create_case() {
	local mode=$1 home=$2 owner=$3
	local check=${4:-"test -d '$home/.npm' && test -d '$home/.cache/x/y'"}
	expect_status 0 "$mode: --rw ~/.npm and --tmpfs ~/.cache/x/y created" \
		as_mode "$mode" env HOME="$home" "$JR" --rw "$home/.npm" \
		--tmpfs "$home/.cache/x/y" -- sh -c "$check"
	local d
	for d in .npm .cache .cache/x .cache/x/y; do
		if [ "$(owner_mode "$home/$d")" = "$owner 700" ]; then
			ok "$mode: ~/$d is $owner, 0700"
		else
			fail "$mode: ~/$d is $(owner_mode "$home/$d" 2>&1), want $owner 700"
		fi
	done
}

# refuse_cases MODE HOME - what is never created.
refuse_cases() {
	local mode=$1 home=$2 out
	ln -sfn /var/empty-$$-target "$home/lnk" 2>/dev/null ||
		as_mode "$mode" ln -sfn "/var/empty-$$-target" "$home/lnk"
	expect_status 125 "$mode: a symlink component is refused" \
		as_mode "$mode" env HOME="$home" "$JR" --rw "$home/lnk/cache" -- true
	expect_output_has "$mode: ... saying it is a symlink" "is a symbolic link"
	expect_output_has "$mode: ... and what to do" "mkdir -p $home/lnk/cache"
	if [ ! -e "/var/empty-$$-target" ]; then ok "$mode: nothing created through it"; else
		fail "$mode: /var/empty-$$-target was created"
	fi
	expect_status 125 "$mode: a path with .. is not created" \
		as_mode "$mode" env HOME="$home" "$JR" --rw "$home/a/../b" -- true
	if [ ! -e "$home/b" ] && [ ! -e "$home/a" ]; then ok "$mode: ... nothing made"; else
		fail "$mode: $home/a or $home/b was created"
	fi
	out=$JR_TMP/outside-$mode
	expect_status 125 "$mode: a missing path outside HOME is refused" \
		as_mode "$mode" env HOME="$home" "$JR" --rw "$out/cache" -- true
	expect_output_has "$mode: ... as missing" "No such file or directory"
	if [ ! -e "$out" ]; then ok "$mode: ... and not created"; else
		fail "$mode: $out was created"
	fi
}

for mode in $(jr_modes); do
	if [ "$mode" = root ]; then
		# root in a root-owned home (group root, as /root)
		RH=$BASE/roothome
		mkdir -m 700 "$RH"
		# (the command, nobody, cannot enter a 0700 root home)
		create_case root "$RH" 0:0 true
		refuse_cases root "$RH"
		# root whose HOME is another user's: the directories are theirs
		UH=$BASE/userhome
		mkdir -m 755 "$UH"
		chown "$NOBODY" "$UH"
		create_case root "$UH" "$NOBODY"
		# and root takes the user's rights to create: a directory
		# the user cannot write stays as it is
		mkdir -m 755 "$UH/.cache2" && chown 0:0 "$UH/.cache2"
		expect_status 125 "root in a user's home: the user's rights apply" \
			env HOME="$UH" "$JR" --rw "$UH/.cache2/pip" -- true
		expect_output_has "root in a user's home: ... mkdir -p" "mkdir -p $UH/.cache2/pip"
	else
		H=$JR_HOME
		create_case rootless "$H" "$(id -u "$JR_NOBODY_UID" 2>/dev/null || echo "$JR_NOBODY_UID"):$(stat -c %g "$H")"
		refuse_cases rootless "$H"
		expect_status 0 "rootless: the command writes the created cache" \
			as_mode rootless env HOME="$H" "$JR" --rw "$H/.cache/pip" -- \
			sh -c "echo hi > '$H/.cache/pip/f'"
		if [ "$(cat "$H/.cache/pip/f" 2>&1)" = hi ]; then ok "rootless: ... and it reaches the host"; else
			fail "rootless: $H/.cache/pip/f: $(cat "$H/.cache/pip/f" 2>&1)"
		fi
		if [ "$(id -u)" -eq 0 ]; then
			# a caller who does not own HOME is told to mkdir
			SH=$(mktemp -d /tmp/jailrun-caches-shared.XXXXXX)
			chmod 1777 "$SH"
			expect_status 125 "rootless: HOME not the caller's: refused" \
				as_mode rootless env HOME="$SH" "$JR" --rw "$SH/.npm" -- true
			expect_output_has "rootless: ... mkdir -p" "mkdir -p $SH/.npm"
			if [ ! -e "$SH/.npm" ]; then ok "rootless: ... nothing made"; else
				fail "rootless: $SH/.npm was created"
			fi
			rm -rf "$SH"
		fi
	fi
done

# profiles: each loads with "~" expanded (from the user's profile
# directory here: the system's is fixed at build time), and npm and pip
# inside use the --rw cache it names.
PH=$JR_HOME/.config/jailrun/profiles
mkdir -p "$PH"
cp "$JR_TOP_SRCDIR"/profiles/*.conf "$PH"/
if [ "$(id -u)" -eq 0 ]; then chown -R "$NOBODY" "$JR_HOME/.config"; fi
profile_case() {
	local name=$1
	shift
	expect_status 0 "profile $name loads" \
		as_mode rootless env HOME="$JR_HOME" "$JR" --profile "$name" --print-config
	local want
	for want in "$@"; do
		expect_output_has "profile $name: $want" "$want"
	done
	if grep -q '~' <<<"$OUT"; then fail "profile $name: a '~' is left: $OUT"; else
		ok "profile $name: every ~ expanded"
	fi
}
profile_case node "rw $JR_HOME/.npm" "setenv npm_config_cache=$JR_HOME/.npm" \
	"allow registry.npmjs.org"
profile_case python "rw $JR_HOME/.cache/pip" \
	"setenv PIP_CACHE_DIR=$JR_HOME/.cache/pip" "allow pypi.org" \
	"allow files.pythonhosted.org"
profile_case rust "rw $JR_HOME/.cargo/registry" "rw $JR_HOME/.cargo/git" \
	"setenv CARGO_HOME=$JR_HOME/.cargo" "allow crates.io" \
	"allow index.crates.io" "allow static.crates.io"
profile_case go "rw $JR_HOME/go/pkg/mod" "rw $JR_HOME/.cache/go-build" \
	"setenv GOMODCACHE=$JR_HOME/go/pkg/mod" \
	"setenv GOCACHE=$JR_HOME/.cache/go-build" "allow proxy.golang.org" \
	"allow sum.golang.org"
rm -rf "$JR_HOME/.npm" "$JR_HOME/.cache"
if command -v npm >/dev/null; then
	# shellcheck disable=SC2016 # expanded inside
	expect_status 0 "npm under --profile node" as_mode rootless \
		env HOME="$JR_HOME" "$JR" --profile node -- \
		sh -c 'npm config get cache && touch "$(npm config get cache)/w"'
	expect_output_has "npm's cache is the profile's ~/.npm" "$JR_HOME/.npm"
	if [ -e "$JR_HOME/.npm/w" ]; then ok "npm's cache is writable and kept"; else
		fail "npm's cache: $JR_HOME/.npm/w not on the host"
	fi
else
	skip_part "npm is not installed"
fi
if /usr/bin/python3 -m pip --version >/dev/null 2>&1; then
	expect_status 0 "pip under --profile python" as_mode rootless \
		env HOME="$JR_HOME" "$JR" --profile python -- \
		/usr/bin/python3 -m pip cache dir
	expect_output_has "pip's cache is the profile's" "$JR_HOME/.cache/pip"
else
	skip_part "python3 -m pip is not installed"
fi

finish
