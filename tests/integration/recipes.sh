#!/bin/bash
# The RECIPES of jailrun(1), each command run as the man page writes it, in
# a lab (tests/lab), with only these stand-ins: /srv/task a fresh
# root-owned directory (0700), the lane's port 4000 the lab
# host's loopback service (8080), ./agent a script that calls the SDK base
# URLs, ./run-task.sh a script that exits 0. The profiles are read from the
# user's profile directory (the system's is fixed at build time).
# Fails if: the man page's RECIPES hold a command this test does not run
# (or it runs one that is no longer there), or a recipe fails: make test
# run by root in root's 0700 directory (idmapped), npm install and pip in a venv under their profiles
# with the cache in the caller's home, the lane reached through
# OPENAI_BASE_URL and ANTHROPIC_BASE_URL, git commit in the working
# directory, or the rig's JSON and jq line.
. "${JR_TOP_SRCDIR:-$(dirname "$0")/../..}/tests/lib.sh"
. "$JR_TOP_SRCDIR/tests/lab/lib.sh"
jr_require_sandbox
lab_setup --timeout 900 recipes # a hang guard, not a time limit
lab_on_exit jr_cleanup_tmp

# recipe_commands - the commands of the RECIPES section: each line of its
# .nf blocks, continuations (\e) joined, roff escapes undone.
recipe_commands() {
	awk '
	/^\.SH / { in_r = ($0 == ".SH RECIPES"); next }
	!in_r { next }
	/^\.nf/ { nf = 1; next }
	/^\.fi/ { nf = 0; next }
	nf {
		gsub(/\\-/, "-"); gsub(/\\\(aq/, "\047")
		if (sub(/[ \t]*\\e$/, "")) { acc = acc $0 " "; next }
		line = acc $0; acc = ""
		gsub(/[ \t]+/, " ", line)
		print line
	}' "$JR_TOP_SRCDIR/man/jailrun.1"
}

# run_recipe MODE DIR CMD - CMD as the caller of MODE in the lab host, from
# DIR, "jailrun" being the build's; output in $OUT, status checked.
run_recipe() {
	local mode=$1 dir=$2 cmd=$3 want=${4:-0} sh
	printf -v sh 'cd %q && %s' "$dir" "${cmd//jailrun /$JR }"
	if [ "$mode" = root ]; then
		expect_status "$want" "$mode: $cmd" lab_host timeout -k 5 "$JR_RUN_LIMIT" bash -c "$sh" </dev/null
	else
		expect_status "$want" "$mode: $cmd" lab_host_as nobody timeout -k 5 "$JR_RUN_LIMIT" \
			env HOME="$JR_HOME" bash -c "$sh" </dev/null
	fi
}

PH=$JR_HOME/.config/jailrun/profiles
mkdir -p "$PH"
cp "$JR_TOP_SRCDIR"/profiles/*.conf "$PH"/
[ "$(id -u)" -ne 0 ] || chown -R "$JR_NOBODY_UID:$JR_NOBODY_GID" "$JR_HOME/.config"
# A project every mode's caller owns (the rootless caller is nobody).
mkproject() {
	local d
	d=$(mktemp -d "$JR_TMP/proj.XXXXXX")
	chmod 755 "$d"
	[ "$(id -u)" -ne 0 ] || chown "$JR_NOBODY_UID:$JR_NOBODY_GID" "$d"
	echo "$d"
}
as_owner() {
	if [ "$(id -u)" -eq 0 ]; then setpriv --reuid="$JR_NOBODY_UID" \
		--regid="$JR_NOBODY_GID" --clear-groups -- env HOME="$JR_HOME" "$@"; else "$@"; fi
}

mapfile -t CMDS < <(recipe_commands)
if [ "${#CMDS[@]}" -eq 11 ]; then ok "RECIPES: ${#CMDS[@]} commands found"; else
	fail "RECIPES: only ${#CMDS[@]} commands found: ${CMDS[*]}"
fi
SRV=$(mktemp -d /var/tmp/jailrun-recipes-srv.XXXXXX 2>/dev/null || mktemp -d)
# shellcheck disable=SC2016 # expanded at exit
lab_on_exit 'rm -rf "$SRV"'
ran=()
declare -A RIG=()
for c in "${CMDS[@]}"; do
	case $c in
	"cd /srv/task && jailrun -- make test")
		ran+=("$c")
		if [ "$(id -u)" -ne 0 ]; then skip_part "root's recipe, not root"; continue; fi
		printf 'test:\n\techo built > out.txt\n' >"$SRV/Makefile"
		chmod 700 "$SRV" # root's alone, as mktemp -d makes it
		run_recipe root / "${c//\/srv\/task/$SRV}"
		if [ "$(stat -c %u:%g "$SRV/out.txt" 2>&1):$(cat "$SRV/out.txt" 2>&1)" = 0:0:built ]; then
			ok "root: make test wrote root's project directory, the file is root's"
		else fail "root: $SRV/out.txt: $(ls -lan "$SRV" 2>&1)"; fi ;;
	"jailrun --profile node -- npm install")
		ran+=("$c")
		command -v npm >/dev/null || { skip_part "npm is not installed"; continue; }
		d=$(mkproject)
		as_owner sh -c "echo '{\"name\":\"r\",\"version\":\"1.0.0\"}' > $d/package.json"
		rm -rf "$JR_HOME/.npm"
		run_recipe rootless "$d" "$c"
		if [ -e "$d/package-lock.json" ] && [ -d "$JR_HOME/.npm" ]; then
			ok "rootless: npm install wrote the lock file, the cache is ~/.npm"
		else fail "rootless: npm install: $(ls -la "$d" "$JR_HOME" 2>&1)"; fi ;;
	"jailrun --tmpfs /root --profile node -- npm install")
		ran+=("$c")
		if [ "$(id -u)" -ne 0 ]; then skip_part "root's recipe, not root"; continue; fi
		command -v npm >/dev/null || { skip_part "npm is not installed"; continue; }
		# root's project and root's home, 0700 both, as on a rig
		d=$(mktemp -d "$JR_TMP/rootproj.XXXXXX")
		echo '{"name":"r","version":"1.0.0"}' >"$d/package.json"
		RH=$(mktemp -d /var/tmp/jailrun-roothome.XXXXXX)
		lab_on_exit "rm -rf '$RH'"
		cp -r "$JR_HOME/.config" "$RH/" && chown -R 0:0 "$RH/.config"
		printf -v sh 'cd %q && HOME=%q %s' "$d" "$RH" "${c//jailrun /$JR }"
		expect_status 0 "root: $c" lab_host timeout -k 5 "$JR_RUN_LIMIT" bash -c "${sh//--tmpfs \/root/--tmpfs $RH}" </dev/null
		if [ "$(stat -c %u:%g "$d/package-lock.json" "$RH/.npm" 2>&1 | sort -u)" = 0:0 ] &&
			[ -n "$(ls -A "$RH/.npm" 2>/dev/null)" ]; then
			ok "root: npm install wrote root's project and root's ~/.npm, both still root's"
		else fail "root: npm install: $(ls -lan "$d" "$RH" "$RH/.npm" 2>&1)"; fi ;;
	"jailrun --profile node -- npm config get cache")
		ran+=("$c")
		command -v npm >/dev/null || { skip_part "npm is not installed"; continue; }
		run_recipe rootless "$(mkproject)" "$c"
		expect_output_has "rootless: npm's cache is the caller's ~/.npm" "$JR_HOME/.npm" ;;
	"jailrun --profile python -- sh -c 'python3 -m venv .venv && .venv/bin/pip install -r requirements.txt'")
		ran+=("$c")
		/usr/bin/python3 -c 'import ensurepip' 2>/dev/null || { skip_part "python3 venv is not installed"; continue; }
		d=$(mkproject)
		as_owner touch "$d/requirements.txt"
		# the Debian python3: the caller's PATH may hold a pyenv nobody cannot use
		run_recipe rootless "$d" "PATH=/usr/bin:/bin $c"
		if [ -x "$d/.venv/bin/pip" ]; then ok "rootless: the venv is in the project"; else
			fail "rootless: no $d/.venv/bin/pip"; fi ;;
	"jailrun --profile rust -- cargo build")
		ran+=("$c")
		if ! as_owner cargo --version >/dev/null 2>&1; then skip_part "no cargo toolchain here"; continue; fi
		d=$(mkproject)
		# the project directory's name (proj.XXXXXX) is no crate name
		if as_owner cargo init -q --vcs none --name recipe "$d"; then
			run_recipe rootless "$d" "$c"
		else fail "rootless: cargo init in $d failed"; fi ;;
	"jailrun --profile go -- go build ./...")
		ran+=("$c")
		if ! command -v go >/dev/null; then skip_part "go is not installed"; continue; fi
		d=$(mkproject)
		if as_owner sh -c "cd $d && go mod init r && printf 'package main\nfunc main(){}\n' > m.go"; then
			run_recipe rootless "$d" "$c"
		else fail "rootless: go mod init in $d failed"; fi ;;
	"jailrun --lane 127.0.0.1:4000 --setenv OPENAI_BASE_URL="*)
		ran+=("$c")
		t=${c//4000/8080}
		# shellcheck disable=SC2016 # expanded inside
		agent='sh -c '\''curl -sS -m 10 "$OPENAI_BASE_URL/models"; curl -sS -m 10 "$ANTHROPIC_BASE_URL/v1/messages"'\'
		for m in $(jr_modes); do
			run_recipe "$m" "$JR_TMP" "${t//.\/agent/$agent}"
			expect_output_has "$m: lane: OPENAI_BASE_URL reached the gateway" "path: /v1/models"
			expect_output_has "$m: lane: ANTHROPIC_BASE_URL too" "path: /v1/messages"
			expect_output_has "$m: lane: served by the host's loopback" "served-by: lab-host-loopback"
		done ;;
	"jailrun -- git commit -am 'fix the parser'")
		ran+=("$c")
		d=$(mkproject)
		as_owner sh -c "cd $d && git init -q && git config user.email t@e && git config user.name t &&
			echo a > f && git add f && git commit -qm init && echo b > f"
		run_recipe rootless "$d" "$c"
		if [ "$(as_owner git -C "$d" log -1 --format=%s 2>&1)" = "fix the parser" ]; then
			ok "rootless: the commit is in the host's repository"
		else fail "rootless: git log: $(as_owner git -C "$d" log -1 2>&1)"; fi ;;
	"jailrun --json out/task-42.json --label task-42 --timeout 600 -- ./run-task.sh")
		ran+=("$c")
		for m in $(jr_modes); do
			d=$(mkproject)
			as_owner sh -c "mkdir -p $d/out && printf '#!/bin/sh\necho task\n' > $d/run-task.sh && chmod 755 $d/run-task.sh"
			[ "$m" = rootless ] || chmod 1777 "$d/out"
			run_recipe "$m" "$d" "$c"
			RIG[$m]=$d
		done ;;
	"jq -r '[.label, .ended, .exit_status] | @tsv' out/*.json")
		ran+=("$c")
		for m in $(jr_modes); do
			run_recipe "$m" "${RIG[$m]}" "$c"
			if [ "$OUT" = "$(printf 'task-42\texited\t0')" ]; then ok "$m: the rig's table row"; else
				fail "$m: the rig's table row: '$OUT'"; fi
		done ;;
	*) fail "RECIPES: a command this test does not run: $c" ;;
	esac
done
if [ "${#ran[@]}" -eq "${#CMDS[@]}" ] && [ "${#ran[@]}" -eq 11 ]; then
	ok "every recipe command was run (11)"
else fail "ran ${#ran[@]} of ${#CMDS[@]} recipe commands; this test knows 11"; fi

finish
