#!/bin/bash
# --allow-http end to end, in a lab, as root and rootless: with
# 'GET,HEAD http://allowed.test/ok/' the allowed methods under the prefix
# are answered by allowed.test, through the proxy and captured (curl
# --noproxy); another method, another path and /ok/../other are refused
# with 403, the reason in X-Jailrun-Deny and in the audit log, and never
# reach the lab server (its log is the witness); a second request on a
# kept-alive connection is checked too; a host without rules is untouched;
# an https:// rule's host is inspected (CONNECT and captured TLS) and each
# request inside is checked the same way; a bad rule runs nothing.
# Fails if: the rules are not enforced on either path, the prefix matches
# past a segment boundary, a dot segment is passed on (normalised or not,
# or spelt so a lenient server reads one: ..%20, ..%09, ..%3B, overlong
# %c0%ae, triple-encoded %25252e), a captured keep-alive connection
# carries an unchecked request, rules leak onto other hosts, a CONNECT to a ruled host is tunnelled unchecked, the
# audit line lacks the reason, or a bad rule is accepted; the --json
# summary's http_rule_denied miscounts the refusals (each of the three
# reasons, proxy, captured and inspected); the terminal's denied line
# tells an http-rule refusal to add --allow.
. "${JR_TOP_SRCDIR:-$(dirname "$0")/../..}/tests/lib.sh"
. "$JR_TOP_SRCDIR/tests/lab/lib.sh"
jr_require_sandbox
lab_setup --timeout 900 httprules   # a hang guard, not a time limit
lab_on_exit jr_cleanup_tmp

install -m 644 "$LAB_CA" "$JR_W/ca.pem"
CA="$JR_W/ca.pem"
RULE=(--allow-http 'GET,HEAD http://allowed.test/ok/' --allow other.test)

# The requests, each printed as "TAG STATUS DENY-REASON" (the reason from
# X-Jailrun-Deny, "-" if none); $1 is extra curl options (--noproxy).
REQS='
set -f
r() {
	tag=$1; shift
	code=$(curl -sS -m 10 -o /dev/null -D /tmp/h -w "%{http_code}" $X "$@") || code="curl-failed-$?"
	deny=$(tr -d "\r" </tmp/h | sed -n "s/^X-Jailrun-Deny: //Ip")
	echo "$tag $code ${deny:--}"
}
r get http://allowed.test/ok/get
r head -I http://allowed.test/ok/head
r post -d x=1 http://allowed.test/ok/post
r put -X PUT -d x=1 http://allowed.test/ok/put
r other http://allowed.test/other
r boundary http://allowed.test/okay
r noslash http://allowed.test/ok
r dots --path-as-is http://allowed.test/ok/../other-dots
r encdots --path-as-is http://allowed.test/ok/%2e%2e/other-enc
r slash http://allowed.test/ok%2Fother-slash
r sp --path-as-is http://allowed.test/ok/..%20/other-sp
r tab --path-as-is http://allowed.test/ok/..%09/other-tab
r semi --path-as-is http://allowed.test/ok/..%3B/other-semi
r overlong --path-as-is http://allowed.test/ok/%c0%ae%c0%ae/other-overlong
r triple --path-as-is http://allowed.test/ok/%25252e%25252e/other-triple
r query "http://allowed.test/ok/q?next=../../x"
echo "keepalive $(curl -sS -m 10 $X -o /dev/null -o /dev/null -w "%{http_code} " http://allowed.test/ok/ka1 http://allowed.test/other-ka)"
r free -d x=1 http://other.test/anything
'

# http_rule_denied LABEL FILE N - the --json summary FILE counts N refusals
# by the HTTP rules.
http_rule_denied() {
	local got
	got=$(python3 -c 'import json, sys; print(json.load(open(sys.argv[1]))["network"]["http_rule_denied"])' "$2" 2>&1) || true
	if [ "$got" = "$3" ]; then
		ok "$1: the summary counts $3 HTTP-rule refusals"
	else
		fail "$1: http_rule_denied is '$got', want $3: $(cat "$2" 2>&1)"
	fi
}

for m in $(jr_modes); do
	for via in proxy transparent; do
		log="$JR_W/audit-$m-$via.log"
		: >"$log"
		chmod 666 "$log"
		lab_logs_clear
		X=
		[ "$via" = proxy ] || X="--noproxy *"
		sum="$JR_W/sum-$m-$via.json"
		rm -f "$sum"
		expect_status 0 "$m/$via: the requests ran" jl "$m" "${RULE[@]}" --log "$log" \
			--json "$sum" -- env X="$X" sh -c "$REQS"
		expect_output_has "$m/$via: GET under the prefix" "get 200 -"
		expect_output_has "$m/$via: HEAD under the prefix" "head 200 -"
		expect_output_has "$m/$via: POST refused" "post 403 http-rule"
		expect_output_has "$m/$via: PUT refused" "put 403 http-rule"
		expect_output_has "$m/$via: another path refused" "other 403 http-rule"
		expect_output_has "$m/$via: /okay is not under /ok/" "boundary 403 http-rule"
		expect_output_has "$m/$via: /ok is not under /ok/" "noslash 403 http-rule"
		expect_output_has "$m/$via: /ok/../other refused" "dots 403 http-path"
		expect_output_has "$m/$via: /ok/%2e%2e/other refused" "encdots 403 http-path"
		expect_output_has "$m/$via: /ok%2Fother refused" "slash 403 http-path"
		# What a lenient server reads as /ok/../ (issue 21): trailing
		# whitespace or a control, an encoded ';', an overlong '.', a
		# triple-encoded '.'.
		expect_output_has "$m/$via: /ok/..%20/other refused" "sp 403 http-path"
		expect_output_has "$m/$via: /ok/..%09/other refused" "tab 403 http-path"
		expect_output_has "$m/$via: /ok/..%3B/other refused" "semi 403 http-path"
		expect_output_has "$m/$via: /ok/%c0%ae%c0%ae/other refused" "overlong 403 http-path"
		expect_output_has "$m/$via: /ok/%25252e%25252e/other refused" "triple 403 http-path"
		expect_output_has "$m/$via: the query is not matched" "query 200 -"
		# Two URLs, one curl: the lab server keeps connections alive, so
		# the second request would ride on the first's connection if the
		# relay let it; it is checked (and refused) on its own.
		expect_output_has "$m/$via: the second request of a connection is checked" "keepalive 200 403"
		expect_output_has "$m/$via: a host without rules is untouched" "free 200 -"
		if lab_web_served allowed.test /ok/get && lab_web_served allowed.test /ok/head &&
			lab_web_served allowed.test /ok/ka1 && lab_web_served other.test /anything; then
			ok "$m/$via: the allowed requests reached their servers"
		else
			fail "$m/$via: allowed requests missing from the lab log: $(cat "$LAB_WEBLOG")"
		fi
		refused_reached=
		for p in /ok/post /ok/put /other /okay /ok /ok/../other-dots /other-dots \
			/ok/%2e%2e/other-enc /other-enc /ok%2Fother-slash /other-ka \
			/ok/..%20/other-sp /ok/..%09/other-tab /ok/..%3B/other-semi \
			/ok/%c0%ae%c0%ae/other-overlong /ok/%25252e%25252e/other-triple; do
			if lab_web_served allowed.test "$p"; then refused_reached+=" $p"; fi
		done
		if [ -z "$refused_reached" ]; then
			ok "$m/$via: no refused request reached allowed.test"
		else
			fail "$m/$via: refused requests reached allowed.test:$refused_reached"
		fi
		audit_has "$m/$via: audit: POST refused by http-rule" "$log" \
			"\"via\":\"$via\"" '"method":"POST"' '"host":"allowed.test"' '"verdict":"deny"' '"reason":"http-rule"' '"status":403'
		audit_has "$m/$via: audit: dot segment refused by http-path" "$log" \
			"\"via\":\"$via\"" '"method":"GET"' '"verdict":"deny"' '"reason":"http-path"'
		audit_has "$m/$via: audit: GET allowed" "$log" \
			"\"via\":\"$via\"" '"method":"GET"' '"host":"allowed.test"' '"verdict":"allow"' '"status":200'
		# post, put, other, boundary, noslash and the kept-alive second
		# request (http-rule), dots, encdots, slash, sp, tab, semi,
		# overlong and triple (http-path).
		http_rule_denied "$m/$via" "$sum" 14
	done

	# --- the body of a refusal says what was refused and why
	expect_status 0 "$m: a refusal's body" jl "$m" "${RULE[@]}" -- \
		curl -sS -m 10 -X DELETE http://allowed.test/ok/x
	expect_output_has "$m: the body names the request and the reason" \
		"jailrun: DELETE /ok/x on allowed.test refused: no --allow-http rule allows this method and path"

	# --- on a terminal, the denied line names the fix: a rule, not --allow
	expect_status 0 "$m: an http-rule refusal on a terminal" jl_tty "$m" "${RULE[@]}" -- \
		curl -sS -m 10 -o /dev/null -d x=1 http://allowed.test/ok/tty
	expect_output_has "$m: the denied line points at the rules" \
		"jailrun: denied 1 connection: allowed.test:80 (1) (a request no --allow-http rule allows: add a rule for its method and path)"
	if grep -qF -- "add --allow for" <<<"$OUT"; then
		fail "$m: the denied line says add --allow for an http-rule refusal: $OUT"
	else
		ok "$m: the denied line does not say add --allow"
	fi

	# --- a CONNECT tunnel to a ruled host cannot be read: refused, counted
	sum="$JR_W/sum-$m-tunnel.json"
	rm -f "$sum"
	expect_status 0 "$m: a CONNECT tunnel to a ruled host" jl "$m" "${RULE[@]}" --json "$sum" -- \
		sh -c 'curl -sS -m 10 -p http://allowed.test/ok/tunnel -o /dev/null 2>&1; true'
	http_rule_denied "$m: the tunnel (http-rules-need-inspection)" "$sum" 1

	# --- https:// rules: the host's TLS is inspected (the relay's own CA,
	# which jailrun makes the command trust), each request checked inside.
	log="$JR_W/audit-$m-tls.log"
	: >"$log"
	chmod 666 "$log"
	lab_logs_clear
	TLSRULE=(--allow-http 'GET https://allowed.test/ok/' --upstream-ca "$CA" --log "$log")
	expect_status 0 "$m: CONNECT to a host with https rules, allowed request" jl "$m" \
		"${TLSRULE[@]}" -- curl -sS -f -m 20 https://allowed.test/ok/x
	expect_output_has "$m: the allowed request reached allowed.test" "served-by: allowed.test"
	expect_status 0 "$m: CONNECT, another method" jl "$m" "${TLSRULE[@]}" -- \
		curl -sS -i -m 20 -X POST https://allowed.test/ok/x
	expect_output_has "$m: POST inside TLS refused by http-rule" "X-Jailrun-Deny: http-rule"
	sum="$JR_W/sum-$m-tls.json"
	rm -f "$sum"
	expect_status 0 "$m: CONNECT, a dot segment" jl "$m" "${TLSRULE[@]}" --json "$sum" -- \
		curl -sS -i -m 20 --path-as-is https://allowed.test/ok/../other
	expect_output_has "$m: a dot segment inside TLS refused by http-path" "X-Jailrun-Deny: http-path"
	http_rule_denied "$m: inspected" "$sum" 1
	expect_status 0 "$m: captured TLS to a host with https rules" jl "$m" "${TLSRULE[@]}" -- \
		sh -c 'curl --noproxy "*" -sS -f -m 20 https://allowed.test/ok/y && curl --noproxy "*" -sS -i -m 20 https://allowed.test/other'
	expect_output_has "$m: captured TLS, allowed request reached" "served-by: allowed.test"
	expect_output_has "$m: captured TLS, another path refused" "X-Jailrun-Deny: http-rule"
	audit_has "$m: audit: inspected GET allowed" "$log" \
		'"via":"inspect"' '"method":"GET"' '"host":"allowed.test"' '"status":200'
	audit_has "$m: audit: inspected POST refused, http-rule" "$log" \
		'"via":"inspect"' '"method":"POST"' '"reason":"http-rule"' '"status":403'
	for p in /other /ok/../other; do
		if lab_web_served allowed.test "$p"; then fail "$m: refused inspected request $p reached allowed.test"
		else ok "$m: refused inspected request $p never reached allowed.test"; fi
	done
	lab_logs_clear
	# An https rule's host is allowed on 443 only; plain HTTP to it would
	# need its own --allow, and then the host's rules govern it too.
	expect_status 0 "$m: port 80 of an https-ruled host" jl "$m" \
		--allow-http 'GET https://allowed.test/ok/' --allow allowed.test -- \
		curl -sS -m 10 -i http://allowed.test/ok/z
	expect_output_has "$m: plain HTTP to it matches no (https) rule" "X-Jailrun-Deny: http-rule"
	never_served "$m" allowed.test

	# --- a bad rule runs nothing
	rm -f "$JR_W/ran"
	expect_status 125 "$m: a bad --allow-http rule" jl "$m" \
		--allow-http 'GET http://allowed.test/ok/../x' -- touch "$JR_W/ran"
	expect_output_has "$m: the message names the rule and the problem" \
		"--allow-http 'GET http://allowed.test/ok/../x': a dot segment"
	if [ -e "$JR_W/ran" ]; then fail "$m: a command ran with a bad rule"; else ok "$m: nothing ran with a bad rule"; fi
done

finish
