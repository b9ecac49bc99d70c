#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
#
# nft-kernel.sh - run tests/unit/test_nft_kernel against the real kernel,
# inside a fresh user and network namespace (unshare -Urn), where it may
# create and delete nftables tables without touching the host's firewall.
#
# Exit status: the test's own; 77 (skipped) when no such namespace can be
# created or the kernel lacks nf_tables; 99 when the test is not built.
# JAILRUN_TEST_MUST_WORK=1 turns every skip into a failure (for CI).
set -euo pipefail

builddir=${JR_TOP_BUILDDIR:-$(cd "$(dirname "$0")/../.." && pwd)}
test_bin=$builddir/tests/unit/test_nft_kernel

skip() {
	if [ "${JAILRUN_TEST_MUST_WORK:-0}" = 1 ]; then
		echo "FAIL (JAILRUN_TEST_MUST_WORK=1): $*" >&2
		exit 1
	fi
	echo "SKIP: $*" >&2
	exit 77
}

if [ ! -x "$test_bin" ]; then
	echo "ERROR: $test_bin is not built (make check builds it)" >&2
	exit 99
fi
command -v unshare >/dev/null || skip "unshare(1) from util-linux is not installed"
unshare -Urn true 2>/dev/null ||
	skip "unshare -Urn fails: unprivileged user namespaces are disabled or not permitted here"

rc=0
# Bounded, like every run in the suite: a hang is a failure (124).
timeout -k 5 300 unshare -Urn "$test_bin" || rc=$?
if [ "$rc" -eq 77 ]; then
	skip "test_nft_kernel found no usable nf_tables in a fresh network namespace"
fi
exit "$rc"
