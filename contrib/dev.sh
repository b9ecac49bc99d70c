#!/bin/bash
# contrib/dev.sh - set up a fresh Debian/Ubuntu machine, build, and run.
#
#   contrib/dev.sh demo    install build deps, build, run the demo in a lab
#   contrib/dev.sh test    install build deps, build, run the whole suite:
#                          make format-check and make cppcheck, then
#                          make check (as root: root and rootless modes),
#                          make check again under ASan+UBSan, the libFuzzer
#                          targets (FUZZ_SECONDS each, default 20), and
#                          make distcheck
#   contrib/dev.sh bench   install build deps, build, run the benchmark
#                          (bench/run; squid, tinyproxy and bubblewrap are
#                          compared when installed: apt-get install squid
#                          tinyproxy bubblewrap)
#   contrib/dev.sh deps    only install the Debian packages
#   contrib/dev.sh build   only configure and build (in ./build)
#
# Needs root (or sudo) for apt-get and for the network lab.
set -euo pipefail

top=$(cd "$(dirname "$0")/.." && pwd)
cd "$top"

# Every package jailrun's build, tests, lab and demo use.
PACKAGES=(
	build-essential autoconf automake libtool pkg-config
	libnl-3-dev libnl-route-3-dev libmnl-dev libnftnl-dev libseccomp-dev
	libssl-dev libcmocka-dev
	nftables iproute2 util-linux procps python3 curl openssl ca-certificates
	strace jq
	man-db
	python3-venv python3-pip golang-go cargo
	nodejs
	systemd
	podman crun uidmap slirp4netns
	clang libclang-rt-14-dev
	clang-format cppcheck
	# tests/integration/slurm.sh and the Slurm plugin (contrib/slurm). The
	# test runs its own munged, slurmctld and slurmd in a container; on a
	# host with systemd, Debian's packages also enable munge.service (and
	# slurmd/slurmctld, which wait for an /etc/slurm/slurm.conf).
	slurm-wlm munge libslurm-dev
)

as_root() {
	if [ "$(id -u)" -eq 0 ]; then "$@"; else sudo "$@"; fi
}

# nscd for tests/integration/nscd.sh: unpacked, never installed. The
# package's maintainer scripts would start a host-wide nscd, and every
# program on the machine (the lab's included) would then send its name
# lookups through it, to the real resolver. The test runs this copy in a
# private mount namespace of its own.
NSCD_DIR=/var/cache/jailrun-test/nscd
nscd_unpacked() {
	local tmp
	[ -x "$NSCD_DIR/usr/sbin/nscd" ] && return
	tmp=$(mktemp -d)
	if (cd "$tmp" && apt-get download -q nscd) &&
		as_root mkdir -p "$NSCD_DIR" &&
		as_root dpkg-deb -x "$tmp"/nscd_*.deb "$NSCD_DIR"; then
		echo "dev.sh: nscd unpacked in $NSCD_DIR (not installed)"
	else
		echo "dev.sh: could not fetch nscd; tests/integration/nscd.sh will skip" >&2
	fi
	rm -rf "$tmp"
}

deps() {
	deps_packages
	npm_present
	nscd_unpacked
}

# npm for the cache and recipe tests: Debian's nodejs leaves it to the npm
# package; a NodeSource nodejs carries its own and conflicts with that
# package, so it is installed only when no npm is there.
npm_present() {
	command -v npm >/dev/null && return
	echo "dev.sh: installing npm"
	as_root env DEBIAN_FRONTEND=noninteractive apt-get install -y -q --no-install-recommends npm
}

deps_packages() {
	local missing=()
	for p in "${PACKAGES[@]}"; do
		grep -q 'install ok installed' <<<"$(dpkg-query -W -f='${Status}' "$p" 2>/dev/null)" || missing+=("$p")
	done
	if [ ${#missing[@]} -eq 0 ]; then
		echo "dev.sh: all build and test packages are installed"
		return
	fi
	echo "dev.sh: installing ${missing[*]}"
	as_root apt-get update -q
	as_root env DEBIAN_FRONTEND=noninteractive apt-get install -y -q --no-install-recommends "${missing[@]}"
}

build() {
	[ -x configure ] && [ configure -nt configure.ac ] && [ Makefile.in -nt Makefile.am ] || autoreconf -fi
	mkdir -p build
	(cd build && { [ -f Makefile ] || ../configure -q; } && make -j"$(nproc)")
}

# Print the totals of an automake test-suite.log; add them to the sums.
TOTAL_PASS=0 TOTAL_FAIL=0 TOTAL_SKIP=0
count() {
	local log=$1 p f s e x
	p=$(sed -n 's/^# PASS: *//p' "$log"); f=$(sed -n 's/^# FAIL: *//p' "$log")
	s=$(sed -n 's/^# SKIP: *//p' "$log"); e=$(sed -n 's/^# ERROR: *//p' "$log")
	x=$(sed -n 's/^# XPASS: *//p' "$log")
	TOTAL_PASS=$((TOTAL_PASS + ${p:-0})); TOTAL_FAIL=$((TOTAL_FAIL + ${f:-0} + ${e:-0} + ${x:-0}))
	TOTAL_SKIP=$((TOTAL_SKIP + ${s:-0}))
}

# Name every test of a build tree that failed or errored, each with the
# end of its log: the last lines of a CI run's output are often all that is
# kept, and "ERROR: 2" alone does not say which script died or why.
failures() {
	local dir=$1 trs log
	[ -d "$dir" ] || return 0
	while IFS= read -r trs; do
		log=${trs%.trs}.log
		echo "--- $dir: ${log#"$dir"/}"
		grep -E '^:test-result: (FAIL|ERROR|XPASS)' "$trs" | head -5 || true
		[ -f "$log" ] || continue
		# the failed checks themselves (a TAP script's "not ok" lines,
		# cut), then where the log ended
		grep -E '^not ok' "$log" | head -n 10 | cut -c1-600 | sed 's/^/    /' || true
		echo "    ..."
		tail -n 15 "$log" | cut -c1-600 | sed 's/^/    /'
	done < <(grep -rlE --include='*.trs' '^:test-result: (FAIL|ERROR|XPASS)' "$dir" | sort)
}

run_tests() {
	local rc=0
	build
	echo "dev.sh: static checks (make format-check, make cppcheck)"
	if (cd build && make -s format-check && make -s cppcheck); then
		TOTAL_PASS=$((TOTAL_PASS + 2))
	else
		rc=1; TOTAL_FAIL=$((TOTAL_FAIL + 1))
	fi
	echo "dev.sh: make check"
	(cd build && make -j"$(nproc)" check) || rc=1
	[ -f build/test-suite.log ] && count build/test-suite.log
	[ $rc -eq 0 ] || { cat build/test-suite.log; }

	# The whole suite again with jailrun and the unit tests built with
	# ASan+UBSan: the integration tests drive the relay and the runner
	# through paths unit tests cannot reach.
	echo "dev.sh: make check under AddressSanitizer + UndefinedBehaviorSanitizer"
	mkdir -p build-asan
	(cd build-asan && { [ -f Makefile ] || ../configure -q --enable-sanitizers; } &&
		make -j"$(nproc)" check) || { rc=1; cat build-asan/test-suite.log; }
	[ -f build-asan/test-suite.log ] && count build-asan/test-suite.log

	echo "dev.sh: fuzzing the parsers (${FUZZ_SECONDS:-20} s per target)"
	if FUZZ_SECONDS=${FUZZ_SECONDS:-20} tests/fuzz/run.sh | tee build/fuzz.log; then
		TOTAL_PASS=$((TOTAL_PASS + $(grep -c '^ok: fuzz_' build/fuzz.log)))
	else
		rc=1
		TOTAL_FAIL=$((TOTAL_FAIL + $(grep -c '^FAIL: fuzz_' build/fuzz.log) + 0))
	fi

	if [ $rc -eq 0 ]; then
		echo "dev.sh: make distcheck"
		(cd build && make -j"$(nproc)" distcheck >distcheck.log 2>&1) || {
			tail -50 build/distcheck.log; rc=1; TOTAL_FAIL=$((TOTAL_FAIL + 1)); }
		[ $rc -eq 0 ] && grep -E '^=+$|archives ready' build/distcheck.log | tail -2 || true
	fi
	if [ $rc -ne 0 ]; then
		echo "dev.sh: what failed"
		failures build
		failures build-asan
		grep '^FAIL: fuzz_' build/fuzz.log 2>/dev/null || true
	fi
	echo "tests: $TOTAL_PASS passed, $TOTAL_FAIL failed, $TOTAL_SKIP skipped"
	return $rc
}

# The demo's lab and the root half of the suite need root: re-run as root.
case "${1:-}" in
demo | test | bench)
	if [ "$(id -u)" -ne 0 ]; then
		echo "dev.sh: the lab and the root-mode tests need root; re-running with sudo"
		exec sudo --preserve-env=JAILRUN_TEST_MUST_WORK "$0" "$@"
	fi
	;;
esac

case "${1:-}" in
deps) deps ;;
build) deps; build ;;
demo) deps; build; JAILRUN="$top/build/jailrun" as_root "$top/tests/lab/demo.sh" ;;
test) deps; run_tests ;;
bench) deps; build; "$top/bench/run" "$top/build/jailrun" ;;
*)
	sed -n '2,15p' "$0" | sed 's/^# \{0,1\}//'
	exit 2
	;;
esac
