#!/bin/bash
# Placeholder secrets and TLS inspection end to end (issue 13), in a lab,
# as root and rootless. The lab's HTTPS servers (their own CA, trusted by
# jailrun through --upstream-ca) echo the request headers they received
# (GET /headers), so the test sees what the relay forwarded.
# Fails if: the bound host does not receive the real value (a header, the
# Basic credentials, through the proxy and through transparent capture);
# the request target is rewritten; the command sees the real value (env,
# /proc/self/environ, /proc/1/environ, or any sandbox process's environ
# read from the host); the placeholder does not keep the prefix and the
# length; a placeholder sent to another host (plain HTTP through the proxy
# or captured, or an inspected https host) is not refused with
# secret-misuse, audited and counted; a placeholder sent to a bound host
# on a port its binding does not name (https :8443 through the proxy or
# captured, plain HTTP :80 even with --secret-allow-plaintext, issue 21)
# is not refused as secret-misuse, or the real value reaches it; a
# binding that names :8443 does not get the value there; plain HTTP
# (proxy or captured) to a bound host and port is not refused (or is,
# with --secret-allow-plaintext); curl, Python urllib (and requests) and Node
# fetch do not work through inspection; an upstream that does not verify
# is not answered 502 with the verification error; a client that does not
# trust the sandbox's CA gets through; the real value appears in the audit
# log, the summary, jailrun's output or any file it wrote; a PEM private
# key appears in the sandbox's tmpfs mounts or trust bundle, or in a file
# created on the host during the run; a non-inspected host is inspected;
# the file of a NAME=file:PATH secret can be read inside (in the working
# directory, in a root-owned directory, through a symlink, outside the
# working directory under --ro, with --fs host), or a root-only directory
# holding it stops jailrun.
. "${JR_TOP_SRCDIR:-$(dirname "$0")/../..}/tests/lib.sh"
. "$JR_TOP_SRCDIR/tests/lab/lib.sh"
jr_require_sandbox
lab_setup --timeout 900 secrets # a hang guard, not a time limit
lab_on_exit jr_cleanup_tmp

install -m 644 "$LAB_CA" "$JR_W/ca.pem"
CA="$JR_W/ca.pem"
# The secrets: unique per run, so a grep for them finds this run only.
REAL_F="sk-ant-api03-$(head -c 24 /dev/urandom | od -An -tx1 | tr -d ' \n')Zz"
REAL_E="ghp_$(head -c 18 /dev/urandom | od -An -tx1 | tr -d ' \n')"
printf '%s\n' "$REAL_F" >"$JR_W/key"
chmod 644 "$JR_W/key"
NODE=$(command -v node || true)
START="$JR_TMP/start-marker"
: >"$START"

# jle MODE ARGS... - jl with GKEY=$REAL_E in jailrun's own environment.
jle() {
	local c=$1
	shift
	case $c in
	root) lab_host timeout -k 5 "$JR_RUN_LIMIT" env -C "$JR_TMP" GKEY="$REAL_E" "$JR" "$@" </dev/null ;;
	rootless) lab_host_as nobody timeout -k 5 "$JR_RUN_LIMIT" \
		env -C "$JR_TMP" HOME="$JR_HOME" GKEY="$REAL_E" "$JR" "$@" </dev/null ;;
	esac
}

# mkkey PATH MODE - a copy of the file secret's value at PATH, readable
# by MODE's caller only (the caller reads it; the command runs as that user
# too, so only hiding keeps it from the command).
mkkey() {
	install -m 600 "$JR_W/key" "$1"
	[ "$2" = root ] || [ "$(id -u)" -ne 0 ] || chown "$JR_NOBODY_UID:$JR_NOBODY_GID" "$1"
	[ "$2" != root ] || chmod 644 "$1"
}
# files_empty DESC N - $OUT has N "file PATH <...>" lines, each empty.
files_empty() {
	local n bad
	n=$(grep -c '^file .* <' <<<"$OUT" || true)
	bad=$(grep '^file .* <' <<<"$OUT" | grep -v '<>$' || true)
	if [ "$n" = "$2" ] && [ -z "$bad" ]; then ok "$1: the secret's file reads empty inside ($n)"
	else fail "$1: $n file lines (want $2), with content: ${bad:-none}; output: $OUT"; fi
}

not_in_output() {
	if grep -qF -- "$2" <<<"$OUT"; then fail "$1: output has '$2': $OUT"; else ok "$1"; fi
}

for m in $(jr_modes); do
	log="$JR_W/audit-$m.log"
	sum="$JR_W/sum-$m.json"
	: >"$log"
	chmod 666 "$log"
	lab_logs_clear
	S=(--allow allowed.test --allow a.allowed.test --allow other.test --upstream-ca "$CA"
		--secret "FKEY=file:$JR_W/key@allowed.test" --secret GKEY@allowed.test,a.allowed.test)

	# ------------------------------------------------ what the command holds
	expect_status 0 "$m: the command holds placeholders" jle "$m" "${S[@]}" -- sh -c '
		echo "F=$FKEY"; echo "G=$GKEY"
		for f in /proc/self/environ /proc/1/environ; do
			if cat "$f" >/dev/null 2>&1; then cat "$f" | tr "\0" "\n" | grep KEY= | sed "s|^|$f: |"
			else echo "$f: unreadable"; fi
		done
		env | grep -c KEY=
		echo "keyfile <$(cat "$0" 2>&1)>"' "$JR_W/key"
	not_in_output "$m: the file secret's value is not in the command's env, /proc or its file" "$REAL_F"
	expect_output_has "$m: the secret's file, in the working directory, reads empty inside" "keyfile <>"
	not_in_output "$m: the env secret's value is not in the command's env or /proc" "$REAL_E"
	PH_F=$(sed -n 's/^F=//p' <<<"$OUT")
	PH_G=$(sed -n 's/^G=//p' <<<"$OUT")
	if [[ ${#PH_F} == "${#REAL_F}" && $PH_F == sk-ant-api03-* && $PH_F != "$REAL_F" ]]; then
		ok "$m: placeholder keeps the prefix and length ($PH_F)"
	else fail "$m: placeholder '$PH_F' for a ${#REAL_F}-character sk-ant-api03- key"; fi
	if [[ ${#PH_G} == "${#REAL_E}" && $PH_G == ghp_* && $PH_G =~ ^ghp_[0-9a-f]+$ ]]; then
		ok "$m: placeholder keeps the prefix, length and hex class ($PH_G)"
	else fail "$m: placeholder '$PH_G' for a ${#REAL_E}-character hex ghp_ key"; fi
	expect_output_has "$m: /proc/self/environ has the placeholder" "/proc/self/environ: FKEY=sk-ant-api03-"

	# The sandbox's processes seen from the host: init is a clone of the
	# runner, so its environment block is the runner's, scrubbed in place.
	rm -f "$JR_W/ready-$m"
	jle "$m" "${S[@]}" -- bash -c "touch $JR_W/ready-$m; exec -a jrsecrets-wait-$m sleep 60" &
	bg=$!
	if wait_until 60 test -e "$JR_W/ready-$m"; then
		leaked=0 n=0
		for p in $(pgrep -f "jrsecrets-wait-$m|secret FKEY=file:$JR_W/key"); do
			n=$((n + 1))
			if grep -qF -e "$REAL_E" -e "$REAL_F" <<<"$(tr '\0' '\n' <"/proc/$p/environ" 2>/dev/null || true)"; then
				leaked=1
				fail "$m: pid $p ($(tr '\0' ' ' <"/proc/$p/cmdline" | cut -c1-60)) has a real value in its environ"
			fi
		done
		((n >= 3)) && ((leaked == 0)) && ok "$m: no real value in the environ of the runner, init or the command ($n processes)"
		((n >= 3)) || fail "$m: found only $n sandbox processes"
	else
		fail "$m: the waiting command never started"
	fi
	pkill -f "^jrsecrets-wait-$m" || true
	wait "$bg" || true

	# ------------------------------------------------ bound host: real value
	expect_status 0 "$m: curl through the proxy, headers to the bound host" jle "$m" "${S[@]}" \
		--log "$log" --json "$sum" -- sh -c '
		curl -sS -f -H "x-api-key: $FKEY" -H "Authorization: Bearer $GKEY" "https://allowed.test/headers?q=$FKEY"'
	expect_output_has "$m: x-api-key arrived as the real value" "header: x-api-key: $REAL_F"
	expect_output_has "$m: Authorization arrived as the real value" "header: Authorization: Bearer $REAL_E"
	expect_output_has "$m: served over https by allowed.test" "scheme: https"
	not_in_output "$m: no placeholder reached the bound host in a header" "header: x-api-key: sk-ant-api03-$(cut -c14- <<<"$PH_F")"
	expect_output_has "$m: the request target is not rewritten (placeholder in the query)" "path: /headers?q=sk-ant-api03-"
	not_in_output "$m: the real value is not in the target" "path: /headers?q=$REAL_F"
	basic=$(printf 'user:%s' "$REAL_E" | base64 -w0)
	expect_status 0 "$m: Basic auth to the bound host" jle "$m" "${S[@]}" -- sh -c '
		curl -sS -f -u "user:$GKEY" https://a.allowed.test/headers'
	expect_output_has "$m: Basic credentials decoded, replaced, encoded" "header: Authorization: Basic $basic"
	expect_output_has "$m: the second bound host got it" "served-by: a.allowed.test"

	# ------------------------------------------------ clients
	expect_status 0 "$m: Python urllib through inspection" jle "$m" "${S[@]}" -- python3 -c '
import os, urllib.request
r = urllib.request.Request("https://allowed.test/headers", headers={"X-Api-Key": os.environ["FKEY"]})
print(urllib.request.urlopen(r, timeout=20).read().decode())'
	expect_output_has "$m: urllib: the real value arrived" "header: X-Api-Key: $REAL_F"
	if jle "$m" "${S[@]}" -- python3 -c 'import requests' >/dev/null 2>&1; then
		expect_status 0 "$m: Python requests through inspection" jle "$m" "${S[@]}" -- python3 -c '
import os, requests
print(requests.get("https://allowed.test/headers", headers={"X-Api-Key": os.environ["FKEY"]}, timeout=20).text)'
		expect_output_has "$m: requests: the real value arrived" "header: X-Api-Key: $REAL_F"
	else
		echo "info: $m: python3 requests cannot be imported inside: its case is not run"
	fi
	if [ -n "$NODE" ]; then
		expect_status 0 "$m: Node fetch (NODE_EXTRA_CA_CERTS from jailrun)" jle "$m" "${S[@]}" -- "$NODE" -e '
fetch("https://allowed.test/headers", { headers: { "x-api-key": process.env.FKEY } })
  .then(r => r.text()).then(t => console.log(t, "extra-ca:", process.env.NODE_EXTRA_CA_CERTS))
  .catch(e => { console.error("fetch failed:", e.cause || e); process.exit(1); });'
		expect_output_has "$m: Node: the real value arrived" "header: x-api-key: $REAL_F"
	else
		fail "$m: node is not installed (contrib/dev.sh installs nodejs)"
	fi
	expect_status 0 "$m: curl --noproxy (transparent capture) through inspection" jle "$m" "${S[@]}" \
		--log "$log" -- sh -c 'curl --noproxy "*" -sS -f -H "x-api-key: $FKEY" https://allowed.test/headers'
	expect_output_has "$m: captured: the real value arrived" "header: x-api-key: $REAL_F"

	# ------------------------------------------------ misuse
	expect_status 0 "$m: placeholder to another host over plain HTTP" jle "$m" "${S[@]}" --log "$log" -- sh -c '
		curl -sS -i -H "x-api-key: $FKEY" http://other.test/headers'
	expect_output_has "$m: plain HTTP: 403" "HTTP/1.1 403"
	expect_output_has "$m: plain HTTP: X-Jailrun-Deny: secret-misuse" "X-Jailrun-Deny: secret-misuse"
	expect_status 0 "$m: placeholder to another, inspected, host over https" jle "$m" "${S[@]}" \
		--inspect other.test --log "$log" --json "$sum" -- sh -c '
		curl -sS -i -H "x-api-key: $GKEY" https://other.test/headers'
	expect_output_has "$m: https: 403 secret-misuse" "X-Jailrun-Deny: secret-misuse"
	if grep -q '"secret_misuse": *1' "$sum"; then ok "$m: the summary counts the misuse"
	else fail "$m: summary lacks secret_misuse 1: $(cat "$sum")"; fi
	misuse=$(grep '"reason":"secret-misuse"' "$log" || true)
	if grep -q '"via":"inspect"' <<<"$misuse" && grep -q '"via":"proxy"' <<<"$misuse"; then
		ok "$m: audit: secret-misuse lines, inspected and plain"
	else fail "$m: audit lacks the secret-misuse lines: $(cat "$log")"; fi
	never_served "$m" other.test

	# ------------------------------------------------ host and port (issue 21)
	# A binding without a port is port 443 only. Before, the value went to
	# the bound host on every port: allowed.test:8443 echoed it back.
	for via in proxy captured; do
		NP=""
		[[ $via == captured ]] && NP="--noproxy '*'"
		expect_status 0 "$m: $via: placeholders to the bound host on :8443" jle "$m" "${S[@]}" \
			--log "$log" -- sh -c "curl $NP -sS -i -H \"x-api-key: \$FKEY\" \
			-H \"Authorization: Bearer \$GKEY\" https://allowed.test:8443/headers"
		expect_output_has "$m: $via: :8443: 403 secret-misuse" "X-Jailrun-Deny: secret-misuse"
		expect_output_has "$m: $via: :8443: the answer says which binding would send it there" \
			"allowed.test:8443 in --secret"
		not_in_output "$m: $via: :8443: the file secret's value did not reach it" "$REAL_F"
		not_in_output "$m: $via: :8443: the env secret's value did not reach it" "$REAL_E"
		not_in_output "$m: $via: :8443: nothing was served" "served-by: allowed.test"
	done
	if grep -q '"port":8443' <<<"$(grep '"reason":"secret-misuse"' "$log")"; then
		ok "$m: audit: secret-misuse on port 8443"
	else fail "$m: audit lacks secret-misuse on port 8443: $(grep 8443 "$log" || true)"; fi
	# A binding with a port: there, and only there.
	P=(--allow allowed.test --upstream-ca "$CA" --secret "GKEY@allowed.test:8443")
	expect_status 0 "$m: GKEY@allowed.test:8443: the value goes to :8443" jle "$m" "${P[@]}" -- sh -c '
		curl -sS -f -H "Authorization: Bearer $GKEY" https://allowed.test:8443/headers'
	expect_output_has "$m: :8443 binding: the real value arrived" "header: Authorization: Bearer $REAL_E"
	expect_output_has "$m: :8443 binding: served on :8443" "server-port: 8443"
	expect_status 0 "$m: GKEY@allowed.test:8443: not to :443" jle "$m" "${P[@]}" -- sh -c '
		curl -sS -i -H "Authorization: Bearer $GKEY" https://allowed.test/headers'
	expect_output_has "$m: :8443 binding: :443 is secret-misuse" "X-Jailrun-Deny: secret-misuse"
	not_in_output "$m: :8443 binding: the value did not reach :443" "$REAL_E"

	# ------------------------------------------------ plain HTTP
	# Plain HTTP to port 80 of a host bound without a port (443): the
	# placeholder is misuse, --secret-allow-plaintext or not (before, the
	# flag sent the real value there in clear); without a placeholder
	# the request is an ordinary allowed one. The flag sends the value in
	# clear only where a binding names the port (allowed.test:80).
	SP=(--allow allowed.test --allow other.test --upstream-ca "$CA" --secret "FKEY=file:$JR_W/key@allowed.test:80")
	for via in proxy captured; do
		NP=""
		[[ $via == captured ]] && NP="--noproxy '*'"
		for flag in "" --secret-allow-plaintext; do
			what="$m: $via: plain HTTP to :80 of a :443 binding ${flag:-(no flag)}"
			expect_status 0 "$what" jle "$m" "${S[@]}" ${flag:+"$flag"} --log "$log" -- sh -c "
				curl $NP -sS -i -H \"x-api-key: \$FKEY\" http://allowed.test/headers"
			expect_output_has "$what: secret-misuse" "X-Jailrun-Deny: secret-misuse"
			not_in_output "$what: no real value" "$REAL_F"
		done
		expect_status 0 "$m: $via: plain HTTP to :80 of a :443 binding, no placeholder" jle "$m" "${S[@]}" -- \
			sh -c "curl $NP -sS -f http://allowed.test/headers"
		expect_output_has "$m: $via: plain :80 without a placeholder is served" "served-by: allowed.test"
		expect_status 0 "$m: $via: plain HTTP to a :80 binding" jle "$m" "${SP[@]}" -- sh -c "
			curl $NP -sS -i -H \"x-api-key: \$FKEY\" http://allowed.test/headers"
		expect_output_has "$m: $via: plain HTTP to a bound host and port: secret-plaintext" \
			"X-Jailrun-Deny: secret-plaintext"
		expect_status 0 "$m: $via: plain HTTP to a :80 binding, --secret-allow-plaintext" jle "$m" "${SP[@]}" \
			--secret-allow-plaintext -- sh -c "curl $NP -sS -f -H \"x-api-key: \$FKEY\" http://allowed.test/headers"
		expect_output_has "$m: $via: :80 binding, --secret-allow-plaintext: the real value arrived" \
			"header: x-api-key: $REAL_F"
	done
	# Captured plain HTTP (curl ignoring the proxy: transparent capture) is
	# read like the proxy's: without that it went out as a bare tunnel, the
	# placeholder reached other.test and the bound host got it in clear.
	expect_status 0 "$m: captured plain HTTP: placeholder to another host" jle "$m" "${S[@]}" \
		--log "$log" -- sh -c 'curl --noproxy "*" -sS -i -H "x-api-key: $FKEY" http://other.test/headers'
	expect_output_has "$m: captured plain HTTP: 403 secret-misuse" "X-Jailrun-Deny: secret-misuse"
	never_served "$m: captured plain HTTP" other.test

	# ------------------------------------------------ failures are clean
	expect_status 0 "$m: an upstream that does not verify (no --upstream-ca)" jle "$m" \
		--allow allowed.test --secret GKEY@allowed.test -- sh -c '
		curl -sS -i https://allowed.test/headers'
	expect_output_has "$m: 502" "HTTP/1.1 502"
	expect_output_has "$m: 502 says why" "certificate verification failed"
	expect_status 60 "$m: a client that does not trust the sandbox's CA fails" jle "$m" "${S[@]}" -- \
		curl -sS --cacert "$CA" https://allowed.test/headers
	expect_status 0 "$m: a host neither bound nor --inspect is not inspected" jle "$m" "${S[@]}" -- \
		curl -sS -f --cacert "$CA" https://other.test/headers
	expect_output_has "$m: other.test's own certificate (lab CA) verified end to end" "served-by: other.test"

	# ------------------------------------------------ the secret's file, hidden
	# Every file a NAME=file:PATH secret was read from reads empty inside
	# (each "file PATH <content>" line has none), and the relay still
	# injects the value read before the sandbox existed. The files belong
	# to the user the command runs as (readable, so hiding is what stops
	# it) in directories that belong to root when the test does.
	rd=$JR_W/sf-rootdir-$m
	mkdir -m 755 "$rd"
	mkkey "$rd/key" "$m"
	ln -s key "$JR_W/sf-link-$m"
	expect_status 0 "$m: file secrets in a root-owned directory and through a symlink" jle "$m" \
		--allow allowed.test --upstream-ca "$CA" --secret "RKEY=file:$rd/key@allowed.test" \
		--secret "LKEY=file:$JR_W/sf-link-$m@allowed.test" -- sh -c '
		for f in "$@"; do echo "file $f <$(cat "$f" 2>&1)>"; done
		curl -sS -f -H "x-api-key: $RKEY" -H "x-other: $LKEY" https://allowed.test/headers' sh \
		"$rd/key" "$JR_W/sf-link-$m" "$JR_W/key"
	files_empty "$m: root-owned directory, symlink" 3
	expect_output_has "$m: the value of the hidden file in a root-owned directory is injected" "header: x-api-key: $REAL_F"
	expect_output_has "$m: the value read through the symlink is injected" "header: x-other: $REAL_F"
	mkdir -m 755 "$JR_W/sf-wd-$m" "$JR_W/sf-out-$m"
	[ "$(id -u)" -ne 0 ] || chown "$JR_NOBODY_UID:$JR_NOBODY_GID" "$JR_W/sf-wd-$m"
	mkkey "$JR_W/sf-out-$m/key" "$m"
	expect_status 0 "$m: a file secret outside the working directory, shown by --ro" jle "$m" \
		--workdir "$JR_W/sf-wd-$m" --ro "$JR_W/sf-out-$m" --allow allowed.test --upstream-ca "$CA" \
		--secret "OKEY=file:$JR_W/sf-out-$m/key@allowed.test" -- sh -c '
		ls "$(dirname "$0")" && echo "file $0 <$(cat "$0" 2>&1)>"' "$JR_W/sf-out-$m/key"
	files_empty "$m: outside the working directory, under --ro" 1
	expect_status 0 "$m: a file secret with --fs host" jle "$m" --fs host "${S[@]}" -- sh -c '
		echo "file $0 <$(cat "$0" 2>&1)>"; curl -sS -f -H "x-api-key: $FKEY" https://allowed.test/headers' "$JR_W/key"
	files_empty "$m: --fs host" 1
	expect_output_has "$m: --fs host: the value is injected" "header: x-api-key: $REAL_F"
	if [ "$m" = root ]; then
		# A directory the command's user cannot enter: nothing it could
		# read, and no reason for jailrun to stop.
		mkdir -m 700 "$JR_W/sf-root700"
		install -m 600 "$JR_W/key" "$JR_W/sf-root700/key"
		expect_status 0 "root: a file secret in a root-only (0700) directory" jle root \
			--allow allowed.test --upstream-ca "$CA" --secret "PKEY=file:$JR_W/sf-root700/key@allowed.test" \
			-- sh -c 'echo "file $0 <$(cat "$0" 2>/dev/null)>"; curl -sS -f -H "x-api-key: $PKEY" https://allowed.test/headers' \
			"$JR_W/sf-root700/key"
		files_empty "root: root-only directory" 1
		expect_output_has "root: root-only directory: the value is injected" "header: x-api-key: $REAL_F"
	fi
	if [ "$(cat "$JR_W/key" "$rd/key" "$JR_W/sf-out-$m/key")" = "$(printf '%s\n%s\n%s' "$REAL_F" "$REAL_F" "$REAL_F")" ]; then
		ok "$m: the secrets' files are untouched on the host"
	else fail "$m: a secret's file changed on the host"; fi

	# ------------------------------------------------ no key material
	expect_status 0 "$m: no private key in the sandbox's tmpfs mounts or trust bundle" jle "$m" "${S[@]}" -- sh -c '
		grep -c "BEGIN CERTIFICATE" /etc/ssl/certs/ca-certificates.crt >/dev/null || exit 3
		if grep -rlsI -e "PRIVATE KEY" /tmp /var/tmp /dev/shm /run /etc/ssl/certs/ca-certificates.crt; then exit 1; fi
		echo "trust: $SSL_CERT_FILE $NODE_EXTRA_CA_CERTS $REQUESTS_CA_BUNDLE $CURL_CA_BUNDLE $GIT_SSL_CAINFO"
		echo clean'
	expect_output_has "$m: nothing with PRIVATE KEY inside" "clean"
	expect_output_has "$m: the five trust variables" "trust: /etc/ssl/certs/ca-certificates.crt /etc/ssl/certs/ca-certificates.crt /etc/ssl/certs/ca-certificates.crt /etc/ssl/certs/ca-certificates.crt /etc/ssl/certs/ca-certificates.crt"
done

# ------------------------------------------------ the real values, nowhere
hits=$(grep -rlF -e "$REAL_F" -e "$REAL_E" "$JR_W" "$JR_TMP" 2>/dev/null |
	grep -v -e "^$JR_W/key\$" -e "^$JR_W/sf-[^/]*/key\$" || true)
if [ -z "$hits" ]; then ok "no real value in any audit log, summary or file jailrun wrote"
else fail "a real value in: $hits"; fi
# Every lab's own CA and server keys live under /run/jailrun-lab (made by
# the lab tool, this test's and the other tests' running meanwhile). The
# match is a PEM key's own first line, so the suite's logs (which may live
# under /tmp, and name what this test looks for) never match.
new_keys=$(find /tmp /var/tmp /dev/shm /run -xdev -type f -newer "$START" -size -2M 2>/dev/null |
	xargs -r grep -lsE -e '-----BEGIN ([A-Z0-9]+ )?PRIVATE KEY-----' 2>/dev/null |
	grep -v "^/run/jailrun-lab/" || true)
if [ -z "$new_keys" ]; then ok "no PEM private key in a file made on the host during the runs"
else fail "PEM private keys written during the run: $new_keys"; fi
finish
