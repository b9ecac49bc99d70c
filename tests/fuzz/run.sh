#!/bin/bash
# tests/fuzz/run.sh - build every libFuzzer target with clang (ASan+UBSan)
# and run each for FUZZ_SECONDS on a copy of its seed corpus.
# Exit 0 if no target found a crash, leak or UB; 1 otherwise; 77 without
# clang/libFuzzer (a failure when JAILRUN_TEST_MUST_WORK=1).
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
top=$(cd "$here/../.." && pwd)
secs=${FUZZ_SECONDS:-20}
CLANG=${CLANG:-clang}

skip() {
	echo "SKIP: $*"
	[ "${JAILRUN_TEST_MUST_WORK:-0}" = 1 ] && exit 1
	exit 77
}
command -v "$CLANG" >/dev/null || skip "clang not found (apt-get install clang libclang-rt-14-dev)"

work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
flags=(-g -O1 -fsanitize=fuzzer,address,undefined -fno-sanitize-recover=undefined
	-D_GNU_SOURCE -include /dev/null)
# Headers are included by their bare names from every source folder.
for d in "$top"/src "$top"/src/*/; do flags+=(-iquote "${d%/}"); done
echo 'int LLVMFuzzerTestOneInput(const unsigned char *d, unsigned long n) { (void)d; return (int)n * 0; }' >"$work/probe.c"
"$CLANG" "${flags[@]}" "$work/probe.c" -o "$work/probe" 2>/dev/null ||
	skip "clang cannot build libFuzzer targets (apt-get install libclang-rt-14-dev)"

# target  sources
targets=(
	"policy src/policy/policy.c"
	"http src/relay/http.c"
	"authority src/relay/http.c"
	"dns src/relay/dns.c"
	"fakeip src/relay/fakeip.c"
	"clienthello src/tls/clienthello.c"
	"ttyfilter src/sandbox/ttyfilter.c src/sandbox/ttymodes.c"
	"lane src/policy/lane.c src/policy/envplan.c src/policy/policy.c src/lib/log.c"
	"control src/control/control_proto.c src/policy/asktable.c src/policy/livepolicy.c src/policy/conffile.c src/policy/confline.c src/lib/home.c src/sandbox/fspolicy.c src/policy/managed.c src/policy/options.c src/policy/policy.c src/policy/lane.c src/policy/envplan.c src/policy/httprules.c src/sandbox/limits.c src/policy/secrets.c src/lib/log.c src/audit.c src/lib/outfile.c src/lib/clock.c src/relay/http.c src/lib/io.c src/lib/json.c src/policy/learn.c src/lib/buf.c"
	"config src/policy/conffile.c src/policy/confline.c src/lib/home.c src/sandbox/fspolicy.c src/policy/managed.c src/policy/options.c src/policy/policy.c src/policy/lane.c src/policy/envplan.c src/policy/httprules.c src/sandbox/limits.c src/policy/secrets.c src/lib/log.c src/audit.c src/lib/outfile.c src/lib/clock.c src/relay/http.c src/lib/io.c src/lib/json.c src/policy/learn.c src/lib/buf.c"
	"httprules src/policy/httprules.c"
	"unixguard src/guard/unixguard_parse.c"
	"path src/policy/httprules.c"
	"nflog src/net/nflogmsg.c"
	"liveproto src/control/liveproto.c"
	"secrets src/policy/secrets.c src/policy/options.c src/policy/conffile.c src/policy/confline.c src/lib/home.c src/sandbox/fspolicy.c src/policy/managed.c src/policy/policy.c src/policy/lane.c src/policy/envplan.c src/policy/httprules.c src/sandbox/limits.c src/lib/log.c src/audit.c src/lib/outfile.c src/lib/clock.c src/relay/http.c src/lib/io.c src/lib/json.c src/policy/learn.c src/lib/buf.c"
)
failed=0 passed=0
for t in "${targets[@]}"; do
	read -r name src <<<"$t"
	# FUZZ_ONLY="secrets http": those targets alone.
	[[ -z ${FUZZ_ONLY:-} || " $FUZZ_ONLY " == *" $name "* ]] || continue
	bin="$work/fuzz_$name"
	srcs=()
	for f in $src; do srcs+=("$top/$f"); done
	# options.c's checks reach secrets.c, which links OpenSSL; nflogmsg.c
	# walks attributes with libmnl.
	"$CLANG" "${flags[@]}" "$top/src/lib/err.c" "${srcs[@]}" "$here/fuzz_$name.c" -o "$bin" -lssl -lcrypto -lmnl
	mkdir -p "$work/corpus_$name"
	cp -r "$here/corpus/$name/." "$work/corpus_$name/" 2>/dev/null || true
	if (cd "$work" && "$bin" -max_total_time="$secs" -timeout=10 -rss_limit_mb=2048 \
		-print_final_stats=1 "$work/corpus_$name" >"$work/$name.log" 2>&1); then
		runs=$(sed -n 's/^stat::number_of_executed_units: *//p' "$work/$name.log")
		echo "ok: fuzz_$name: ${runs:-?} executions in ${secs}s, no finding"
		passed=$((passed + 1))
	else
		echo "FAIL: fuzz_$name found a problem:"
		tail -40 "$work/$name.log"
		cp "$work"/crash-* "$work"/leak-* "$work"/timeout-* "$top" 2>/dev/null || true
		failed=$((failed + 1))
	fi
done
echo "fuzz: $passed passed, $failed failed"
[ "$failed" -eq 0 ]
