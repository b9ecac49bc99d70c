#!/bin/bash
# OpenSSL is loaded only when TLS inspection starts (src/tls/openssl_lazy.h),
# as root and rootless.
# Fails if: a run without inspection loads libssl (jailrun linked against
# OpenSSL again, or loading it eagerly: every start pays for libcrypto's
# relocations); a run with --inspect does not load it (the check above
# would then prove nothing); a libssl that lacks a function jailrun needs
# does not stop the run before the command with exit 125 and a line
# naming the library and the function (a crash, a run without
# inspection, or a call through a NULL pointer later).
. "${JR_TOP_SRCDIR:-$(dirname "$0")/../..}/tests/lib.sh"
jr_require_sandbox

# A stand-in libssl.so.3 that loads but has none of OpenSSL's functions:
# another shared library jailrun already uses (ld.so does not check that
# the file's soname matches the name asked for).
FAKE="$JR_TMP/fakessl"
mkdir -p "$FAKE"
MNL=$(ldd "$JR" | awk '$1 ~ /^libmnl\.so/ { print $3 }')
[ -r "$MNL" ] || skip "cannot find the libmnl jailrun is linked with"
cp "$MNL" "$FAKE/libssl.so.3"
chmod -R a+rX "$FAKE"

for m in $(jr_modes); do
	expect_status 0 "$m: a run without inspection" as_mode "$m" timeout -k 5 "$JR_RUN_LIMIT" env LD_DEBUG=libs "$JR" --net none -- true
	if grep -q 'libssl\|libcrypto' <<<"$OUT"; then
		fail "$m: OpenSSL loaded without inspection: $(grep 'libssl\|libcrypto' <<<"$OUT")"
	else
		ok "$m: OpenSSL not loaded without inspection"
	fi
	expect_status 0 "$m: a run with --inspect" \
		as_mode "$m" timeout -k 5 "$JR_RUN_LIMIT" env LD_DEBUG=libs "$JR" --allow example.test --inspect example.test -- true
	if grep -q 'calling init: .*libssl\.so' <<<"$OUT"; then
		ok "$m: --inspect loaded libssl"
	else
		fail "$m: --inspect did not load libssl: $OUT"
	fi
	expect_status 125 "$m: a libssl without OpenSSL's functions is refused" \
		as_mode "$m" timeout -k 5 "$JR_RUN_LIMIT" env LD_LIBRARY_PATH="$FAKE" "$JR" --allow example.test --inspect example.test -- echo RAN
	expect_output_has "$m: the error names the library and the function" "cannot load OpenSSL: libssl.so.3 has no "
	if grep -q '^RAN$' <<<"$OUT"; then fail "$m: the command ran without OpenSSL"; else ok "$m: the command did not run"; fi
done

finish
