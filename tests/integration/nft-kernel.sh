#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
#
# nft-kernel.sh - run tests/unit/test_nft_kernel against the real kernel,
# inside a fresh user and network namespace (unshare -Urn), where it may
# create and delete nftables tables without touching the host's firewall.
#
# Output is TAP: the test's cmocka results as they are
# (CMOCKA_MESSAGE_OUTPUT=TAP), one "ok N" per test, and its exit status.
# Skipped ("1..0 # SKIP") when no such namespace can be created or the
# kernel lacks nf_tables; JAILRUN_TEST_MUST_WORK=1 turns every skip into a
# failure (for CI). An error (exit 99) when the test is not built.
set -euo pipefail

here=$(cd "$(dirname "$0")" && pwd)
builddir=${JR_TOP_BUILDDIR:-$(cd "$here/../.." && pwd)}
test_bin=$builddir/tests/unit/test_nft_kernel
# shellcheck source=../tap.sh
. "$here/../tap.sh"

skip() {
	if [ "${JAILRUN_TEST_MUST_WORK:-0}" = 1 ]; then
		tap_not_ok "SKIP: $* (JAILRUN_TEST_MUST_WORK=1 turns this skip into a failure)"
		tap_plan
		exit 1
	fi
	tap_skip_all "$*"
}

if [ ! -x "$test_bin" ]; then
	echo "ERROR: $test_bin is not built (make check builds it)" >&2
	exit 99
fi
command -v unshare >/dev/null || skip "unshare(1) from util-linux is not installed"
unshare -Urn true 2>/dev/null ||
	skip "unshare -Urn fails: unprivileged user namespaces are disabled or not permitted here"

rc=0
out=$(mktemp /tmp/jailrun-nft-kernel.XXXXXX)
trap 'rm -f "$out"' EXIT
# Bounded, like every run in the suite: a hang is a failure (124). Its TAP
# is kept until its exit status says whether it ran at all (77: it did not,
# and printed no plan).
CMOCKA_MESSAGE_OUTPUT=TAP timeout -k 5 300 unshare -Urn "$test_bin" >"$out" || rc=$?
if [ "$rc" -eq 77 ]; then
	cat "$out" >&2
	skip "test_nft_kernel found no usable nf_tables in a fresh network namespace"
fi
cat "$out"
exit "$rc"
