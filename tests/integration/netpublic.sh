#!/bin/bash
# --net public, --allow-private, --deny-message and --learn end to end, in
# a lab, as root and rootless: "open, but not to the host, and on the
# record". Every refused service is first shown to answer from the lab
# host without jailrun, so a refusal cannot pass because nothing listened.
# Fails if: --net public does not reach a name no entry names (proxy and
# transparent); a name resolving to loopback (loopback.test), the metadata
# address (metadata.test), a private address (private.test) or the lab
# host itself (lab-host.test), or the host's loopback service named by
# address, is reached, or refused without its reason in the 403 and the
# audit log; a connection or a DNS query is missing from the audit log;
# the summary does not say "public"; --transparent off does not forward
# DNS; --allow-private does not open the range it names, or opens more
# (metadata); --deny-message is not in the 403 body; --learn does not write
# an --allow-file that lets the same command pass under --net allowlist
# (and without which it fails), lists a refused destination as an entry,
# or is not written atomically beside FILE; a bad value runs anything.
. "${JR_TOP_SRCDIR:-$(dirname "$0")/../..}/tests/lib.sh"
. "$JR_TOP_SRCDIR/tests/lab/lib.sh"
jr_require_sandbox
lab_setup --timeout 900 netpublic   # a hang guard, not a time limit
lab_on_exit jr_cleanup_tmp

install -m 755 "$JR_TOP_SRCDIR/tests/lab/servers.py" "$JR_TMP/servers.py"
C=(curl -sS -m 10)
CT=(curl --noproxy '*' -sS -m 10)
CTS="curl --noproxy '*' -sS -m 10" # the same, for sh -c (no glob)
# The proxy for an address curl's NO_PROXY would send direct (127.0.0.1).
CP='curl -sS -m 10 -x "$HTTP_PROXY" --noproxy ""'
MSG='ask the operator to add the host to the allowlist'

# Positive controls: each target answers from the lab host without jailrun.
for u in http://denied.test/control http://127.0.0.1:8080/control \
	http://metadata.test/control http://private.test/control \
	http://lab-host.test:8081/control; do
	expect_status 0 "control: $u answers from the lab host" lab_host curl -sS -m 10 "$u"
	expect_output_has "control: $u served" "served-by:"
done

for m in $(jr_modes); do
	log="$JR_W/audit-$m.log"
	: >"$log"
	chmod 666 "$log"
	lab_logs_clear

	# ------------------------------------------------ public: reached
	expect_status 0 "$m: --net public reaches denied.test through the proxy" \
		jl "$m" --net public --log "$log" --json "$JR_W/sum-$m.json" -- \
		"${C[@]}" http://denied.test/np-proxy
	expect_output_has "$m: served by denied.test (proxy)" "served-by: denied.test"
	expect_status 0 "$m: --net public reaches denied.test transparently" \
		jl "$m" --net public --log "$log" -- "${CT[@]}" http://denied.test/np-transparent
	expect_output_has "$m: served by denied.test (transparent)" "path: /np-transparent"
	expect_status 0 "$m: --net public: raw TCP to raw.test:9000, transparently" \
		jl "$m" --net public --log "$log" -- python3 "$JR_TMP/servers.py" tcp raw.test 9000 np-echo
	expect_output_has "$m: raw.test echoed" "np-echo"
	if python3 -c 'import json,sys; d=json.load(open(sys.argv[1])); sys.exit(d["network"]["mode"] != "public")' \
		"$JR_W/sum-$m.json"; then
		ok "$m: the summary says \"mode\":\"public\""
	else
		fail "$m: summary: $(cat "$JR_W/sum-$m.json")"
	fi

	# ------------------------------------------------ public: the guard
	lab_logs_clear
	expect_status 0 "$m: --net public: loopback, metadata, private, the lab host" \
		jl "$m" --net public --log "$log" --deny-message "$MSG" -- sh -c "
		${C[*]} -i http://loopback.test:8080/np-rebind
		${C[*]} -i http://metadata.test/np-meta
		$CP -i http://127.0.0.1:8080/np-canary
		${C[*]} -i http://lab-host.test:8081/np-self
		$CTS -i http://private.test/np-private; true"
	if [ "$(grep -c 'X-Jailrun-Deny: special-address' <<<"$OUT")" = 4 ]; then
		ok "$m: loopback.test, metadata.test, 127.0.0.1, private.test refused as special-address"
	else
		fail "$m: not 4 special-address refusals: $OUT"
	fi
	expect_output_has "$m: lab-host.test refused as local-address" "X-Jailrun-Deny: local-address"
	expect_output_has "$m: the body says where loopback.test resolves" \
		"jailrun: loopback.test resolves to 127.0.0.1, is a loopback"
	expect_output_has "$m: --deny-message is in the 403 body" "$MSG"
	if [ "$(grep -c "^$MSG" <<<"$OUT")" = 5 ]; then
		ok "$m: --deny-message under each of the 5 refusals"
	else
		fail "$m: --deny-message not under each refusal: $OUT"
	fi
	if grep -q served-by <<<"$OUT"; then fail "$m: a guarded target answered: $OUT"; else ok "$m: no guarded target answered"; fi
	never_served "$m" lab-host-loopback
	never_served "$m" metadata.test
	never_served "$m" private.test
	never_served "$m" lab-host-any

	# ------------------------------------------------ public: the record
	audit_has "$m: audit: proxy to denied.test allowed" "$log" \
		'"via":"proxy"' '"host":"denied.test"' '"verdict":"allow"' '"status":200'
	audit_has "$m: audit: transparent to denied.test allowed" "$log" \
		'"via":"transparent"' '"host":"denied.test"' '"verdict":"allow"'
	audit_has "$m: audit: the DNS query for denied.test" "$log" \
		'"via":"dns"' '"method":"A"' '"host":"denied.test"' '"verdict":"allow"'
	audit_has "$m: audit: the DNS query for raw.test" "$log" \
		'"via":"dns"' '"host":"raw.test"'
	audit_has "$m: audit: transparent to raw.test:9000" "$log" \
		'"via":"transparent"' '"host":"raw.test"' '"port":9000' '"verdict":"allow"'
	audit_has "$m: audit: loopback.test refused with the reason" "$log" \
		'"host":"loopback.test"' '"address":"127.0.0.1"' '"verdict":"deny"' '"reason":"special-address"'
	audit_has "$m: audit: metadata.test refused with the reason" "$log" \
		'"host":"metadata.test"' '"address":"169.254.169.254"' '"reason":"special-address"'
	audit_has "$m: audit: the host's loopback canary refused" "$log" \
		'"host":"127.0.0.1"' '"port":8080' '"reason":"special-address"'
	audit_has "$m: audit: lab-host.test refused as local-address" "$log" \
		'"host":"lab-host.test"' '"reason":"local-address"'
	audit_has "$m: audit: private.test (transparent) refused" "$log" \
		'"via":"transparent"' '"host":"private.test"' '"address":"10.77.0.10"' '"reason":"special-address"'
	audit_has "$m: audit: the DNS query for private.test" "$log" \
		'"via":"dns"' '"host":"private.test"'

	# ------------------------------------------------ public, --transparent off: DNS forwarded
	lab_logs_clear
	expect_status 0 "$m: --net public --transparent off: DNS is forwarded" \
		jl "$m" --net public --transparent off -- python3 -c \
		'import socket; print("addr", socket.gethostbyname("denied.test"))'
	expect_output_has "$m: denied.test resolves to its real address" "addr $(lab_addr denied.test 4)"
	if lab_dns_queried denied.test; then ok "$m: the lab DNS was asked for denied.test"
	else fail "$m: the query was not forwarded: $(cat "$LAB_DNSLOG")"; fi

	# ------------------------------------------------ --allow-private
	lab_logs_clear
	expect_status 0 "$m: --allow-private 10.77.0.0/16 opens private.test" \
		jl "$m" --net public --allow-private 10.77.0.0/16 -- sh -c "
		${C[*]} -i http://private.test/np-ap-proxy | grep -E '^served-by|^X-Jailrun-Deny'
		$CTS -i http://private.test/np-ap-transparent | grep -E '^served-by|^X-Jailrun-Deny'
		${C[*]} -i http://metadata.test/np-ap-meta | grep -E '^served-by|^X-Jailrun-Deny'; true"
	if [ "$(grep -c 'served-by: private.test' <<<"$OUT")" = 2 ]; then
		ok "$m: private.test reached through the proxy and transparently"
	else
		fail "$m: private.test not reached both ways: $OUT"
	fi
	expect_output_has "$m: metadata.test stays refused" "X-Jailrun-Deny: special-address"
	never_served "$m" metadata.test
	expect_status 0 "$m: --allow-private with an allowlist" \
		jl "$m" --allow private.test --allow-private 10.77.0.10:80 -- "${C[@]}" http://private.test/np-ap-list
	expect_output_has "$m: private.test reached under allowlist" "served-by: private.test"
	expect_status 125 "$m: --allow-private 0.0.0.0/0 is refused" \
		jl "$m" --net public --allow-private 0.0.0.0/0 -- true
	expect_output_has "$m: and says why" "--allow-private '0.0.0.0/0': opening every address"

	# ------------------------------------------------ --deny-message, allowlist
	expect_status 0 "$m: --deny-message under --net allowlist" \
		jl "$m" --allow allowed.test --deny-message "$MSG" -- "${C[@]}" -i http://denied.test/np-dm
	expect_output_has "$m: the 403 says not-allowed" "X-Jailrun-Deny: not-allowed"
	expect_output_has "$m: and carries the message" "$MSG"
	expect_status 0 "$m: --deny-message at the end of the denied line (terminal)" \
		jl_tty "$m" --net public --deny-message "$MSG" -- "${C[@]}" -o /dev/null http://metadata.test/np-tty
	expect_output_has "$m: the denied line ends with it" \
		"jailrun: denied 1 connection: metadata.test:80 (1) (refused by the address guard; --allow-private opens a private range) $MSG"
	expect_status 125 "$m: a --deny-message with a newline is refused" \
		jl "$m" --net public --deny-message "$(printf 'a\nb')" -- true
	expect_output_has "$m: and says why" "--deny-message: control character 0x0a"

	# ------------------------------------------------ --learn
	learned="$JR_W/learned-$m.txt"
	rm -f "$learned"
	LEARN_CMD="${C[*]} -f -o /dev/null http://allowed.test/np-learn &&
		python3 $JR_TMP/servers.py tcp raw.test 9000 np-learn &&
		! ${C[*]} -f -o /dev/null http://metadata.test/np-learn-meta"
	expect_status 0 "$m: --learn: the command runs like --net public" \
		jl "$m" --learn "$learned" -- sh -c "$LEARN_CMD"
	if [ -f "$learned" ]; then ok "$m: --learn wrote the file"; else fail "$m: no $learned"; fi
	if [ "$(stat -c %a "$learned" 2>/dev/null)" = 644 ]; then ok "$m: mode 0644"
	else fail "$m: mode $(stat -c %a "$learned" 2>/dev/null)"; fi
	if ls "$learned".* >/dev/null 2>&1; then fail "$m: a temporary file was left: $(ls "$learned".*)"
	else ok "$m: no temporary file left beside it"; fi
	if [ "$(grep -v '^#' "$learned" | sed 's/ *#.*//' | grep -v '^$')" = "allowed.test:80
raw.test:9000" ]; then
		ok "$m: the entries are allowed.test:80 and raw.test:9000, sorted"
	else
		fail "$m: learned entries: $(cat "$learned")"
	fi
	if grep -q '^allowed.test:80 # 1 connection$' "$learned"; then ok "$m: with its count"
	else fail "$m: no count: $(cat "$learned")"; fi
	if grep -q '^# refused: metadata.test:80 # 1 connection, special-address$' "$learned"; then
		ok "$m: metadata.test is a comment with its reason"
	else
		fail "$m: metadata.test not listed as refused: $(cat "$learned")"
	fi
	expect_status 0 "$m: the same command passes with --net allowlist --allow-file" \
		jl "$m" --net allowlist --allow-file "$learned" -- sh -c "$LEARN_CMD"
	expect_output_has "$m: raw.test echoed under the learned allowlist" "np-learn"
	expect_status 22 "$m: and fails without it (the file is what opens it)" \
		jl "$m" --net allowlist --allow raw.test:9000 -- sh -c "$LEARN_CMD"
	expect_status 125 "$m: --learn into a missing directory fails before running" \
		jl "$m" --learn "$JR_W/no-such-dir/learned.txt" -- touch "$JR_W/ran-$m"
	expect_output_has "$m: and names the file" "--learn $JR_W/no-such-dir/learned.txt: cannot create"
	if [ -e "$JR_W/ran-$m" ]; then fail "$m: the command ran"; else ok "$m: the command did not run"; fi
done

finish
