#!/bin/bash
# A new user's first run (issue 23), root and rootless, in a lab
# (tests/lab): the commands such a user types, as jailrun(1) documents
# them, against stand-ins for the real servers.
#  - npm: `npm install NAME --registry URL` under --profile node and
#    --allow HOST:PORT, from a local registry stand-in (registry.py on
#    allowed.test:4873, serving the packument and the `npm pack` tarball of
#    a package made here), then the package required inside --net none;
#  - git: init, config, remote add and commit in a fresh working
#    directory, then, in the repository that now exists, config and remote
#    add with --rw .git/config (FILESYSTEM), and a commit;
#  - the model lane: Node fetch() and Python urllib through
#    --lane 127.0.0.1:8080, and once --lane localhost:8080, to the model
#    gateway stand-in on the lab host's loopback (lab-host-loopback), by
#    the SDK variables of --lane-env (OPENAI_BASE_URL, ANTHROPIC_BASE_URL,
#    MODEL LANE) and by the loopback URLs configs already hold.
# The callers' homes: rootless, $JR_HOME (nobody's); root, a home of root's
# own, 0700, as /root is; each holds the shipped profiles in
# ~/.config/jailrun/profiles (the system's directory is fixed at build
# time). Run by root, projects are root's and 0700 (mktemp -d): the
# command owns them through the idmapped working directory, and what it
# leaves there (node_modules, the lock, .git, the npm cache under --tmpfs
# of root's home, as RECIPES writes it) is root's on the host.
# Fails if: npm install fails, leaves no node_modules/NAME, a lock that
# does not name the lab registry and the tarball's sha512, or a cache
# outside the caller's ~/.npm; the registry did not serve the packument and
# the tarball; the package cannot be required; git init/config/remote
# add/commit fail in a fresh directory, or config/remote add/commit under
# --rw .git/config, or the host's repository does not show them; a lane
# request fails, does not reach the gateway (its log, the body's sha256),
# or has no "via":"lane" audit line.
. "${JR_TOP_SRCDIR:-$(dirname "$0")/../..}/tests/lib.sh"
. "$JR_TOP_SRCDIR/tests/lab/lib.sh"
jr_require_sandbox
command -v git >/dev/null || skip "git is needed"
lab_setup --timeout 900 firstrun # a hang guard, not a time limit
lab_on_exit jr_cleanup_tmp

NOBODY="$JR_NOBODY_UID:$JR_NOBODY_GID"
# Homes and projects outside /tmp, where users keep them (the sandbox's
# /tmp is its own).
BASE=$(mktemp -d /var/tmp/jailrun-firstrun.XXXXXX)
chmod 755 "$BASE"
# shellcheck disable=SC2016 # expanded at exit
lab_on_exit 'rm -rf "$BASE"'
RHOME=$BASE/roothome
mkdir -m 700 "$RHOME"
for h in "$RHOME" "$JR_HOME"; do
	mkdir -p "$h/.config/jailrun/profiles"
	cp "$JR_TOP_SRCDIR"/profiles/*.conf "$h/.config/jailrun/profiles/"
done
[ "$(id -u)" -ne 0 ] || chown -R "$NOBODY" "$JR_HOME/.config"

# home MODE - the caller's home.
home() { if [ "$1" = root ]; then echo "$RHOME"; else echo "$JR_HOME"; fi; }
# fr MODE DIR ARGS... - jailrun as MODE's caller in the lab host, in DIR,
# with the caller's home, stdin /dev/null, bounded by $JR_RUN_LIMIT.
fr() {
	local mode=$1 dir=$2
	shift 2
	if [ "$mode" = root ]; then
		lab_host timeout -k 5 "$JR_RUN_LIMIT" env -C "$dir" HOME="$RHOME" "$JR" "$@" </dev/null
	else
		lab_host_as nobody timeout -k 5 "$JR_RUN_LIMIT" env -C "$dir" HOME="$JR_HOME" "$JR" "$@" </dev/null
	fi
}
# project MODE NAME - a fresh project directory of the caller: run by
# root, root's own and 0700, as mktemp -d makes it (the command owns it
# through the idmapped working directory); rootless, the caller's.
project() {
	local d=$BASE/$1-$2
	rm -rf "$d"
	if [ "$1" = root ]; then
		mkdir -m 700 "$d"
	else
		mkdir -m 755 "$d"
		[ "$(id -u)" -ne 0 ] || chown "$NOBODY" "$d"
	fi
	echo "$d"
}
# as_caller MODE CMD... - CMD as MODE's caller on the host (its files).
as_caller() {
	if [ "$1" = rootless ] && [ "$(id -u)" -eq 0 ]; then
		shift
		setpriv --reuid="$JR_NOBODY_UID" --regid="$JR_NOBODY_GID" --clear-groups -- "$@"
	else
		shift
		"$@"
	fi
}
# roots_only MODE LABEL PATH... - run by root, every PATH is root's.
roots_only() {
	local m=$1 label=$2 owners
	shift 2
	[ "$m" = root ] || return 0
	owners=$(stat -c %u:%g "$@" 2>&1 | sort -u)
	if [ "$owners" = 0:0 ]; then ok "$m: $label: root's on the host"; else
		fail "$m: $label: owners on the host: $(stat -c '%n %u:%g' "$@" 2>&1)"; fi
}
# json_is LABEL FILE JQ-FILTER - the summary FILE satisfies the filter.
json_is() {
	if jq -e "$3" "$2" >/dev/null 2>&1; then ok "$1"; else
		fail "$1: $3 is not true of $(cat "$2" 2>&1)"; fi
}
# logged LABEL FILE LINE - FILE has the exact line LINE.
logged() {
	if grep -qxF -- "$3" "$2"; then ok "$1"; else
		fail "$1: no line '$3' in $2: $(cat "$2")"; fi
}

# ------------------------------------------------------------------ npm
# The package: made and packed here, served by the registry stand-in on a
# lab internet address, as a company's registry mirror would be.
PKG=jr-lab-greeting
REG=http://allowed.test:4873/
TGZ_URL=${REG}$PKG/-/$PKG-1.0.0.tgz
REGLOG=$BASE/registry.log
npm_ready=0
if command -v npm >/dev/null && command -v node >/dev/null; then
	mkdir -p "$BASE/pkg" "$BASE/dist"
	printf '{"name":"%s","version":"1.0.0","main":"index.js"}\n' "$PKG" >"$BASE/pkg/package.json"
	echo 'module.exports = "hello from the lab registry";' >"$BASE/pkg/index.js"
	if (cd "$BASE/pkg" && npm_config_cache=$BASE/npm-pack-cache npm pack -q \
		--pack-destination "$BASE/dist" >/dev/null 2>"$BASE/pack.err"); then
		INTEGRITY=sha512-$(openssl dgst -sha512 -binary "$BASE/dist/$PKG-1.0.0.tgz" | base64 -w0)
		: >"$REGLOG"
		lab_net python3 "$JR_TOP_SRCDIR/tests/integration/registry.py" \
			"$(lab_addr allowed.test 4)" 4873 "$REG" "$BASE/dist/$PKG-1.0.0.tgz" \
			"$REGLOG" "$BASE/registry.ready" >"$BASE/registry.out" 2>&1 &
		REGPID=$!
		lab_on_exit "kill $REGPID 2>/dev/null || true"
		if wait_until 60 test -e "$BASE/registry.ready"; then
			npm_ready=1
			ok "the registry stand-in listens on allowed.test:4873"
		else fail "the registry stand-in never started: $(cat "$BASE/registry.out")"; fi
	else fail "npm pack failed: $(cat "$BASE/pack.err")"; fi
else
	skip_part "npm: npm and node are needed (Debian: apt-get install npm)"
fi

# npm_first_run MODE - npm install from the lab registry, as the RECIPES
# write it with the registry and its allow entry added.
npm_first_run() {
	local m=$1 d lock h log sum
	log=$JR_W/npm-$m.log
	sum=$JR_W/npm-$m.json
	h=$(home "$m")
	d=$(project "$m" npm)
	as_caller "$m" sh -c "echo '{\"name\":\"first\",\"version\":\"1.0.0\"}' >$d/package.json"
	# Root's caches are in its home, which the command may not enter:
	# RECIPES gives the command an empty private home holding them.
	local roothome=()
	[ "$m" != root ] || roothome=(--tmpfs "$h")
	: >"$REGLOG"
	: >"$log"
	chmod 666 "$log"
	expect_status 0 "$m: npm install $PKG --registry $REG" \
		fr "$m" "$d" "${roothome[@]}" --allow allowed.test:4873 --profile node --log "$log" --json "$sum" -- \
		npm install "$PKG" --registry "$REG"
	if [ -f "$d/node_modules/$PKG/package.json" ] && [ -f "$d/node_modules/$PKG/index.js" ]; then
		ok "$m: npm: node_modules/$PKG is in the project"
	else fail "$m: npm: no node_modules/$PKG: $(find "$d" -maxdepth 3 2>&1 | head -30)"; fi
	lock=$(jq -r --arg k "node_modules/$PKG" '.packages[$k] | "\(.resolved) \(.integrity)"' \
		"$d/package-lock.json" 2>&1 || true)
	if [ "$lock" = "$TGZ_URL $INTEGRITY" ]; then
		ok "$m: npm: the lock names the lab registry's tarball and its sha512"
	else fail "$m: npm: the lock says '$lock', want '$TGZ_URL $INTEGRITY'"; fi
	logged "$m: npm: the registry served the packument" "$REGLOG" "GET /$PKG 200"
	logged "$m: npm: the registry served the tarball" "$REGLOG" "GET /$PKG/-/$PKG-1.0.0.tgz 200"
	if [ -d "$h/.npm/_cacache" ]; then ok "$m: npm: the cache is the caller's ~/.npm (the profile)"
	else fail "$m: npm: no $h/.npm/_cacache: $(ls -la "$h" "$h/.npm" 2>&1)"; fi
	roots_only "$m" "npm: the project's files and the cache" "$d" "$d/package-lock.json" \
		"$d/node_modules/$PKG/index.js" "$h/.npm" "$h/.npm/_cacache"
	audit_has "$m: npm: audit: the registry allowed" "$log" \
		'"host":"allowed.test"' '"port":4873' '"verdict":"allow"'
	json_is "$m: npm: the summary: exited 0, the registry allowed, nothing denied" "$sum" \
		'.ended == "exited" and .exit_status == 0 and .network.allowed >= 2 and .network.denied == 0'
	# What was installed runs, with no network at all.
	expect_status 0 "$m: npm: the package is required under --net none" \
		fr "$m" "$d" --net none -- node -e "console.log(require('$PKG'))"
	expect_output_has "$m: npm: the package's code ran" "hello from the lab registry"
}

# ------------------------------------------------------------------ git
GURL=https://git.test.invalid/first.git
GURL2=https://git.test.invalid/upstream.git
# hgit DIR ARGS... - git on the host, reading the command's repository.
hgit() { git -c safe.directory='*' -C "$@"; }

git_first_run() {
	local m=$1 d
	d=$(project "$m" git)
	# Day one: a fresh directory, no option needed (a new .git is the
	# command's own, FILESYSTEM).
	expect_status 0 "$m: git init, config, remote add, commit in a fresh directory" \
		fr "$m" "$d" -- sh -c 'git init -q -b main && git config user.name first &&
			git config user.email first@test.invalid && git remote add origin '"$GURL"' &&
			echo one >f && git add f && git commit -q -m first && echo GIT-DAY-ONE'
	expect_output_has "$m: git: day one ran to its end" GIT-DAY-ONE
	if [ "$(hgit "$d" log -1 --format='%s %an' 2>&1)" = "first first" ] &&
		[ "$(hgit "$d" config remote.origin.url 2>&1)" = "$GURL" ]; then
		ok "$m: git: the host's repository has the commit, the author and the remote"
	else fail "$m: git: the host's repository: $(hgit "$d" log -1 2>&1; cat "$d/.git/config" 2>&1)"; fi
	# Day two: the repository exists, its config is protected; the man
	# page's --rw .git/config opens it.
	expect_status 0 "$m: git: config in the existing repository, by default" \
		fr "$m" "$d" -- sh -c 'git config user.name second 2>/dev/null || echo CONFIG-REFUSED'
	expect_output_has "$m: git: the protected config refuses it by default" CONFIG-REFUSED
	expect_status 0 "$m: git: --rw .git/config: config, remote add, commit" \
		fr "$m" "$d" --rw .git/config -- sh -c 'git config user.name second &&
			git remote add upstream '"$GURL2"' && echo two >>f && git commit -q -am second &&
			echo GIT-DAY-TWO'
	expect_output_has "$m: git: day two ran to its end" GIT-DAY-TWO
	if [ "$(hgit "$d" log --format='%s %an' 2>&1 | tr '\n' ,)" = "second second,first first," ] &&
		[ "$(hgit "$d" config remote.upstream.url 2>&1)" = "$GURL2" ]; then
		ok "$m: git: the host's repository has both commits and the new remote"
	else fail "$m: git: the host's repository: $(hgit "$d" log 2>&1; cat "$d/.git/config" 2>&1)"; fi
	roots_only "$m" "git: the repository the command made" "$d/f" "$d/.git" "$d/.git/config" "$d/.git/HEAD"
}

# ------------------------------------------------------------------ lane
# The gateway stand-in is the lab host's loopback service (127.0.0.1:8080):
# it echoes the method, the path and the body's sha256.
OAI_BODY='{"model":"m","messages":[{"role":"user","content":"hi"}]}'
ANT_BODY='{"model":"m","max_tokens":1,"messages":[]}'
OAI_SHA=$(printf '%s' "$OAI_BODY" | sha256sum | cut -d' ' -f1)
ANT_SHA=$(printf '%s' "$ANT_BODY" | sha256sum | cut -d' ' -f1)
# The agent: Node fetch() as the OpenAI SDK calls its base URL, Python
# urllib as the Anthropic SDK does, then both by the loopback URLs a
# config written for the host holds. Each answer on one line, tagged.
# shellcheck disable=SC2016 # expanded inside
AGENT='node -e '\''
async function post(tag, url, body) {
	const r = await fetch(url, {method: "POST", body, headers: {"content-type": "application/json"}});
	console.log(tag + " " + r.status + " " + (await r.text()).replace(/\n/g, " | "));
}
(async () => {
	await post("NODE-SDK", process.env.OPENAI_BASE_URL + "/chat/completions", process.argv[1]);
	await post("NODE-LOOP", "http://localhost:8080/v1/chat/completions", process.argv[1]);
})().catch(e => { console.log("NODE-ERROR", e, e.cause); process.exit(3); });
'\'' "$OAI_BODY" &&
python3 -c '\''
import os, sys, urllib.request
def post(tag, url, body):
    req = urllib.request.Request(url, data=body.encode(), headers={"content-type": "application/json"})
    with urllib.request.urlopen(req, timeout=30) as r:
        print(tag, r.status, r.read().decode().replace("\n", " | "))
post("PY-SDK", os.environ["ANTHROPIC_BASE_URL"] + "/v1/messages", sys.argv[1])
post("PY-LOOP", "http://127.0.0.1:8080/v1/messages", sys.argv[1])
'\'' "$ANT_BODY"'

# lane_line TAG - the agent's answer line for TAG.
lane_line() { grep "^$1 " <<<"$OUT" || true; }
# lane_answer LABEL TAG PATH SHA - TAG's answer: 200 from the gateway,
# POST PATH with the body whose sha256 is SHA.
lane_answer() {
	local l
	l=$(lane_line "$2")
	case $l in
	"$2 200 served-by: lab-host-loopback |"*"method: POST | path: $3 |"*"received-sha256: $4 |"*)
		ok "$1" ;;
	*) fail "$1: '$l'; the agent said: $OUT" ;;
	esac
}

lane_first_run() {
	local m=$1 lane=$2 log sum n
	log=$JR_W/lane-$m.log
	sum=$JR_W/lane-$m.json
	: >"$log"
	chmod 666 "$log"
	lab_logs_clear
	if ! command -v node >/dev/null; then
		skip_part "$m: lane $lane: node is needed for fetch()"
		return
	fi
	expect_status 0 "$m: --lane $lane with --lane-env: Node fetch() and Python urllib" \
		fr "$m" "$JR_TMP" --net none --lane "$lane" \
		--lane-env 'OPENAI_BASE_URL=http://{lane}/v1' \
		--lane-env 'ANTHROPIC_BASE_URL=http://{lane}' \
		--log "$log" --json "$sum" -- \
		env OAI_BODY="$OAI_BODY" ANT_BODY="$ANT_BODY" sh -c "$AGENT"
	lane_answer "$m: $lane: Node fetch() at OPENAI_BASE_URL reached the gateway" \
		NODE-SDK /v1/chat/completions "$OAI_SHA"
	lane_answer "$m: $lane: Node fetch() at localhost:8080 reached the gateway" \
		NODE-LOOP /v1/chat/completions "$OAI_SHA"
	lane_answer "$m: $lane: Python urllib at ANTHROPIC_BASE_URL reached the gateway" \
		PY-SDK /v1/messages "$ANT_SHA"
	lane_answer "$m: $lane: Python urllib at 127.0.0.1:8080 reached the gateway" \
		PY-LOOP /v1/messages "$ANT_SHA"
	n=$(awk '$2 == "lab-host-loopback" && $5 == "POST" && $7 == 200' "$LAB_WEBLOG" | wc -l)
	if [ "$n" = 4 ]; then ok "$m: $lane: the gateway logged the 4 requests"
	else fail "$m: $lane: the gateway logged $n POSTs, want 4: $(cat "$LAB_WEBLOG")"; fi
	n=$(audit_count "$log" '"via":"lane"')
	if [ "$n" -ge 4 ]; then ok "$m: $lane: 4 \"via\":\"lane\" audit lines"
	else fail "$m: $lane: $n lane audit lines, want 4: $(cat "$log")"; fi
	json_is "$m: $lane: the summary: exited 0, mode none (with a lane), the lane in the policy" "$sum" \
		".ended == \"exited\" and .exit_status == 0 and .network.mode == \"none\" and .policy.lanes == [\"$lane\"]"
}

for m in $(jr_modes); do
	if [ "$npm_ready" = 1 ]; then npm_first_run "$m"; fi
	git_first_run "$m"
	lane_first_run "$m" 127.0.0.1:8080
	lane_first_run "$m" localhost:8080
done

finish
