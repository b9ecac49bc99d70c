#!/bin/bash
# The model lane end to end, in a lab, as root and rootless. The lab host's
# loopback service (lab-host-loopback, 127.0.0.1:8080, only on the lab
# host) stands for a model gateway such as LiteLLM.
# Fails if: --lane 127.0.0.1:8080 does not reach it under --net none or
# --net allowlist (through host.jailrun.internal and $JAILRUN_LANE_8080);
# host.jailrun.internal does not resolve to the gateway; the lane's
# connection lacks its "via":"lane" audit line; without the lane the
# gateway port is open, or the relay reaches the host's loopback for the
# proxy (the lane's exemption from the SSRF guard leaks to other paths);
# --net none with a lane lets allowed.test through, answers its DNS, or
# asks the lab DNS; --lane allowed.test:80 under --net none does not reach
# allowed.test, or reaches anything else; --net none without lanes grows
# a veth; the JSON summary does not say "none" with lanes; a bad --lane
# runs anything; --lane localhost:8080 is not the host's loopback (a host
# lane, $JAILRUN_LANE_8080); a --secret bound to a host lane runs (the
# model server would get the placeholder); --lane-env (option or config
# keyword) does not give the SDK variable the lane's URL, or is lost with
# --clearenv or to an env file; a bad --lane-env template runs anything;
# the sandbox's own 127.0.0.1:8080, localhost:8080 or (IPv6 hosts)
# [::1]:8080 does not reach the lane (curl, Python), or another loopback
# port reaches something.
. "${JR_TOP_SRCDIR:-$(dirname "$0")/../..}/tests/lib.sh"
. "$JR_TOP_SRCDIR/tests/lab/lib.sh"
jr_require_sandbox
lab_setup --timeout 900 lane   # a hang guard, not a time limit
lab_on_exit jr_cleanup_tmp

C=(curl -sS -m 10)
LANE=(--lane 127.0.0.1:8080)
# The secret a --secret bound to a lane would hold (a file: the refusal
# must not depend on the variable being missing).
printf 'sk-test-lane-0123456789\n' >"$JR_W/key"
chmod 644 "$JR_W/key"
printf 'lane 127.0.0.1:8080\nlane-env ANTHROPIC_BASE_URL=http://{lane:8080}\n' >"$JR_W/lane.conf"
printf 'OPENAI_BASE_URL=http://wrong.example/v1\n' >"$JR_W/lane.env"
chmod 644 "$JR_W/lane.conf" "$JR_W/lane.env"
# What the command sees of DNS: "addr A" or "error".
RESOLVE='import socket, sys
try: print("addr", socket.gethostbyname(sys.argv[1]))
except OSError as e: print("error", e)'

for m in $(jr_modes); do
	log="$JR_W/audit-$m.log"
	: >"$log"
	chmod 666 "$log"
	lab_logs_clear

	# ---------------------------------------------- host lane, --net none
	expect_status 0 "$m: none: the lane reaches the host's loopback service" \
		jl "$m" --net none "${LANE[@]}" --log "$log" --json "$JR_W/none-$m.json" -- \
		sh -c 'echo "lane=$JAILRUN_LANE_8080"; '"${C[*]}"' "$JAILRUN_LANE_8080/t-lane-none"'
	expect_output_has "$m: none: JAILRUN_LANE_8080 is set" "lane=http://host.jailrun.internal:8080"
	expect_output_has "$m: none: served by the lab host's loopback" "served-by: lab-host-loopback"
	expect_output_has "$m: none: the path arrived" "path: /t-lane-none"
	if lab_web_served lab-host-loopback /t-lane-none; then ok "$m: none: the loopback service logged it"
	else fail "$m: none: the loopback service never saw /t-lane-none"; fi
	audit_has "$m: audit: the lane connection, via lane" "$log" \
		'"via":"lane"' '"host":"127.0.0.1"' '"port":8080' '"verdict":"allow"'
	if grep -q '"mode":"none"' "$JR_W/none-$m.json"; then ok "$m: summary: mode none with a lane"
	else fail "$m: summary: not mode none: $(cat "$JR_W/none-$m.json")"; fi
	expect_status 0 "$m: none: host.jailrun.internal is the gateway" \
		jl "$m" --net none "${LANE[@]}" -- python3 -c "$RESOLVE" host.jailrun.internal
	expect_output_has "$m: none: host.jailrun.internal -> 100.64.77.1" "addr 100.64.77.1"

	# ---------------------------------------------- as users write it
	# localhost is the host's loopback: the same host lane.
	expect_status 0 "$m: --lane localhost:8080 reaches the host's loopback" \
		jl "$m" --net none --lane localhost:8080 -- \
		sh -c 'echo "lane=$JAILRUN_LANE_8080"; '"${C[*]}"' "$JAILRUN_LANE_8080/t-localhost"'
	expect_output_has "$m: localhost: JAILRUN_LANE_8080 is set" "lane=http://host.jailrun.internal:8080"
	expect_output_has "$m: localhost: served by the lab host's loopback" "served-by: lab-host-loopback"
	expect_output_has "$m: localhost: the path arrived" "path: /t-localhost"
	# Configs that name the lane as the host's loopback work unchanged:
	# the sandbox's own 127.0.0.1:8080 and localhost:8080 are the lane
	# (and nothing else on loopback is).
	: >"$log"
	expect_status 0 "$m: none: the sandbox's 127.0.0.1:8080 and localhost:8080 are the lane" \
		jl "$m" --net none "${LANE[@]}" --log "$log" -- sh -c \
		"${C[*]} http://127.0.0.1:8080/t-loop4 && ${C[*]} http://localhost:8080/t-loopname &&
		 python3 -c 'import urllib.request; print(urllib.request.urlopen(\"http://localhost:8080/t-loop-py\").read().decode())'"
	expect_output_has "$m: 127.0.0.1:8080: the path arrived" "path: /t-loop4"
	expect_output_has "$m: localhost:8080: the path arrived" "path: /t-loopname"
	expect_output_has "$m: localhost:8080 from Python: the path arrived" "path: /t-loop-py"
	audit_has "$m: audit: the loopback connection is the lane's" "$log" \
		'"via":"lane"' '"host":"127.0.0.1"' '"port":8080' '"verdict":"allow"'
	# ... and so is its [::1]:8080 when the host has IPv6: glibc sorts ::1
	# first for a localhost that /etc/hosts gives both, and a client that
	# tries only the first address (Node 18) would be refused.
	if [ "$(lab_host cat /proc/sys/net/ipv6/conf/default/disable_ipv6 2>/dev/null)" = 0 ]; then
		expect_status 0 "$m: none: the sandbox's [::1]:8080 is the lane" \
			jl "$m" --net none "${LANE[@]}" -- "${C[@]}" -g 'http://[::1]:8080/t-loop6'
		expect_output_has "$m: [::1]:8080: the path arrived" "path: /t-loop6"
		expect_status 7 "$m: another [::1] port is not a lane" \
			jl "$m" --net none "${LANE[@]}" -- "${C[@]}" -g 'http://[::1]:8081/t-loop6-other'
	else
		skip_part "$m: the lab host has no IPv6 (net.ipv6.conf.default.disable_ipv6 is not 0): the [::1] listener is not made"
	fi
	expect_status 7 "$m: allowlist: another loopback port is not a lane" \
		jl "$m" --allow allowed.test "${LANE[@]}" -- "${C[@]}" http://127.0.0.1:8081/t-loop-other
	expect_status 0 "$m: allowlist: 127.0.0.1:8080 with the proxy variables set" \
		jl "$m" --allow allowed.test "${LANE[@]}" -- "${C[@]}" http://127.0.0.1:8080/t-loop-allow
	expect_output_has "$m: allowlist: 127.0.0.1:8080 served" "path: /t-loop-allow"
	expect_status 125 "$m: a host lane and a --publish of the same port are refused" \
		jl "$m" "${LANE[@]}" --publish 18080:8080 -- true
	expect_output_has "$m: the error says why" "port 8080 is served inside on 127.0.0.1 by the lane"
	# The SDK variables, from --lane-env: OpenAI's and Anthropic's.
	expect_status 0 "$m: --lane-env sets the SDK base URLs" \
		jl "$m" --net none --lane localhost:8080 \
		--lane-env 'OPENAI_BASE_URL=http://{lane}/v1' \
		--lane-env 'ANTHROPIC_BASE_URL=http://{lane:8080}' -- \
		sh -c 'echo "openai=$OPENAI_BASE_URL anthropic=$ANTHROPIC_BASE_URL"; '"${C[*]}"' "$OPENAI_BASE_URL/models"'
	expect_output_has "$m: lane-env: OPENAI_BASE_URL" "openai=http://host.jailrun.internal:8080/v1 "
	expect_output_has "$m: lane-env: ANTHROPIC_BASE_URL" "anthropic=http://host.jailrun.internal:8080"
	expect_output_has "$m: lane-env: the SDK's URL reaches the lane" "path: /v1/models"
	# jailrun's own: kept by --clearenv, not replaced by an env file;
	# lane-env is a config keyword too.
	expect_status 0 "$m: --lane-env from a config, with --clearenv and an env file" \
		jl "$m" --config "$JR_W/lane.conf" --clearenv --env-file "$JR_W/lane.env" \
		--lane-env 'OPENAI_BASE_URL=http://{lane}/v1' -- \
		/usr/bin/env
	expect_output_has "$m: lane-env: config keyword" "ANTHROPIC_BASE_URL=http://host.jailrun.internal:8080"
	expect_output_has "$m: lane-env: an env file does not replace it" "OPENAI_BASE_URL=http://host.jailrun.internal:8080/v1"
	expect_status 125 "$m: --lane-env with a bad template is refused" \
		jl "$m" --lane 127.0.0.1:8080 --lane-env 'OPENAI_BASE_URL=http://{lane:9999}/v1' -- true
	expect_output_has "$m: the error names the template and the fix" \
		"--lane-env OPENAI_BASE_URL=http://{lane:9999}/v1: {lane:9999} names no host lane"
	expect_status 125 "$m: --lane-env without a lane is refused" \
		jl "$m" --lane-env 'OPENAI_BASE_URL=http://{lane}/v1' -- true
	expect_output_has "$m: the error says to add a lane" "there is none; add --lane"
	# A secret bound to a host lane would reach the server as the
	# placeholder: refused, by the lane's name and by its address.
	expect_status 125 "$m: --secret bound to host.jailrun.internal is refused" \
		jl "$m" --net none --lane localhost:8080 \
		--secret "K=file:$JR_W/key@host.jailrun.internal:8080" -- true
	expect_output_has "$m: the error says why" "host.jailrun.internal is the model lane"
	expect_status 125 "$m: --secret bound to the lane's address is refused" \
		jl "$m" --allow allowed.test --lane 127.0.0.1:8080 \
		--secret "K=file:$JR_W/key@localhost:8080" -- true
	expect_output_has "$m: the error names the lane" "localhost is the address of --lane 127.0.0.1:8080"

	# --net none with a lane: nothing but the lane.
	: >"$log"
	expect_status 22 "$m: none+lane: allowed.test through the proxy is refused" \
		jl "$m" --net none "${LANE[@]}" --log "$log" -- "${C[@]}" -f http://allowed.test/t-nolane
	expect_status 0 "$m: none+lane: DNS for allowed.test" \
		jl "$m" --net none "${LANE[@]}" --log "$log" -- python3 -c "$RESOLVE" allowed.test
	expect_output_has "$m: none+lane: allowed.test is NXDOMAIN" "error [Errno -2]"
	expect_status 7 "$m: none+lane: allowed.test's address, proxy ignored, is refused" \
		jl "$m" --net none "${LANE[@]}" -- "${C[@]}" --noproxy '*' "http://$(lab_addr allowed.test 4)/t-nolane"
	audit_has "$m: audit: allowed.test denied" "$log" '"host":"allowed.test"' '"verdict":"deny"'
	# The lane's exemption is for the lane only: the proxy still refuses
	# the host's loopback (and the name that points at it).
	expect_status 0 "$m: none+lane: the proxy does not reach the host's loopback" \
		jl "$m" --net none "${LANE[@]}" --lane loopback.test:8080 -- sh -c \
		"${C[*]} --noproxy '' -i http://127.0.0.1:8080/t-ssrf | grep -E '^X-Jailrun-Deny|^served-by'
		 ${C[*]} -i http://loopback.test:8080/t-ssrf | grep -E '^X-Jailrun-Deny|^served-by'; true"
	expect_output_has "$m: 127.0.0.1:8080 through the proxy: not allowed" "X-Jailrun-Deny: not-allowed"
	expect_output_has "$m: loopback.test:8080 through the proxy: special address" "X-Jailrun-Deny: special-address"
	if lab_web_served lab-host-loopback /t-ssrf; then fail "$m: the proxy reached the host's loopback"
	else ok "$m: the proxy never reached the host's loopback"; fi

	# ---------------------------------------------- without the lane
	expect_status 7 "$m: allowlist without a lane: the gateway port is shut" \
		jl "$m" --allow allowed.test -- "${C[@]}" --noproxy '*' http://100.64.77.1:8080/t-nolane
	expect_status 0 "$m: allowlist without a lane: host.jailrun.internal" \
		jl "$m" --allow allowed.test -- python3 -c "$RESOLVE" host.jailrun.internal
	expect_output_has "$m: allowlist without a lane: host.jailrun.internal is NXDOMAIN" "error [Errno -2]"
	expect_status 0 "$m: none without lanes: loopback only, no veth" \
		jl "$m" --net none -- sh -c 'cat /proc/net/dev'
	if grep -q eth0 <<<"$OUT"; then fail "$m: --net none without lanes has a veth: $OUT"
	else ok "$m: --net none without lanes has no veth"; fi
	if lab_web_served lab-host-loopback /t-nolane; then fail "$m: reached without a lane"
	else ok "$m: never reached without a lane"; fi

	# ---------------------------------------------- host lane, allowlist
	expect_status 0 "$m: allowlist: the lane and allowed.test" \
		jl "$m" --allow allowed.test "${LANE[@]}" -- sh -c \
		"${C[*]} \"\$JAILRUN_LANE_8080/t-lane-allow\" && ${C[*]} http://allowed.test/t-allow-too"
	expect_output_has "$m: allowlist: the lane served" "path: /t-lane-allow"
	expect_output_has "$m: allowlist: allowed.test served" "served-by: allowed.test"
	# public: the lane is the one way to the host's loopback; the proxy
	# still refuses it (the guard), while any other name is reached.
	expect_status 0 "$m: public: the lane and denied.test" \
		jl "$m" --net public "${LANE[@]}" -- sh -c \
		"${C[*]} \"\$JAILRUN_LANE_8080/t-lane-public\" && ${C[*]} http://denied.test/t-public-too"
	expect_output_has "$m: public: the lane served" "path: /t-lane-public"
	expect_output_has "$m: public: denied.test served" "served-by: denied.test"
	expect_status 0 "$m: public: the proxy still refuses the host's loopback" \
		jl "$m" --net public "${LANE[@]}" -- "${C[@]}" --noproxy '' -i http://127.0.0.1:8080/t-public-loop
	expect_output_has "$m: public: loopback refused by the guard" "X-Jailrun-Deny: special-address"
	if lab_web_served lab-host-loopback /t-public-loop; then fail "$m: public: the proxy reached the host's loopback"
	else ok "$m: public: the proxy never reached the host's loopback"; fi

	# ---------------------------------------------- name lane, --net none
	lab_logs_clear
	: >"$log"
	expect_status 0 "$m: none: --lane allowed.test:80 reaches allowed.test" \
		jl "$m" --net none --lane allowed.test:80 --log "$log" --json "$JR_W/name-$m.json" -- \
		"${C[@]}" http://allowed.test/t-name-lane
	expect_output_has "$m: name lane: served by allowed.test" "served-by: allowed.test"
	expect_status 0 "$m: name lane, proxy ignored (transparent)" \
		jl "$m" --net none --lane allowed.test:80 -- "${C[@]}" --noproxy '*' http://allowed.test/t-name-lane-t
	expect_output_has "$m: name lane, transparent: served by allowed.test" "path: /t-name-lane-t"
	expect_status 22 "$m: name lane: other.test is refused" \
		jl "$m" --net none --lane allowed.test:80 --log "$log" -- "${C[@]}" -f http://other.test/t-other
	expect_status 22 "$m: name lane: allowed.test on another port is refused" \
		jl "$m" --net none --lane allowed.test:80 --log "$log" -- "${C[@]}" -f http://allowed.test:443/t-443
	expect_status 0 "$m: name lane: DNS for other.test" \
		jl "$m" --net none --lane allowed.test:80 -- python3 -c "$RESOLVE" other.test
	expect_output_has "$m: name lane: other.test is NXDOMAIN" "error [Errno -2]"
	never_served "$m" other.test
	if lab_web_served allowed.test /t-443; then fail "$m: allowed.test:443 was reached"
	else ok "$m: allowed.test:443 was never reached"; fi
	if lab_dns_queried other.test; then fail "$m: the lab DNS was asked for other.test"
	else ok "$m: the lab DNS never saw other.test"; fi
	audit_has "$m: audit: other.test denied" "$log" '"host":"other.test"' '"reason":"not-allowed"'
	if grep -q '"mode":"none"' "$JR_W/name-$m.json"; then ok "$m: summary: mode none with a name lane"
	else fail "$m: summary: not mode none: $(cat "$JR_W/name-$m.json")"; fi

	# ---------------------------------------------- bad input
	expect_status 125 "$m: --lane 127.0.0.1:0 is refused" jl "$m" --lane 127.0.0.1:0 -- true
	expect_output_has "$m: the error names the lane and the rule" "--lane 127.0.0.1:0: the port must be 1..65535"
	expect_status 125 "$m: --lane on the proxy's port is refused" jl "$m" --lane 127.0.0.1:3128 -- true
	expect_output_has "$m: the error says why" "one of the relay's own ports"
done

finish
