#!/bin/bash
# jailrun --check: every item ok on this host, as root and rootless; exit 0.
# Fails if: an item fails or is missing, or the status lies.
. "${JR_TOP_SRCDIR:-$(dirname "$0")/../..}/tests/lib.sh"

for m in $(jr_modes); do
	expect_status 0 "$m: --check passes" as_mode "$m" timeout -k 5 "$JR_RUN_LIMIT" "$JR" --check
	for item in "user namespaces" "network namespaces" "IPC and UTS namespaces" \
		"PID and mount namespaces" "nf_tables" "seccomp filters" "pseudo-terminals" \
		"unix socket guard"; do
		if grep -q "^  ok    $item" <<<"$OUT"; then ok "$m: --check: $item ok"; else fail "$m: --check: $item: $OUT"; fi
	done
	expect_output_has "$m: --check names the unix socket layer" "unix sockets guarded by: seccomp-unotify"
	expect_output_has "$m: --check reports Landlock" "landlock: "
	expect_status 125 "$m: --check with a command is refused" as_mode "$m" timeout -k 5 "$JR_RUN_LIMIT" "$JR" --check ls
done

# A failing item makes --check fail: with user namespaces limited to 0 in a
# child user namespace (a sysctl that is per user namespace), no sandbox can
# be made, and --check must say so and exit 1.
if command -v unshare >/dev/null && unshare -U -r true 2>/dev/null; then
	expect_status 1 "--check fails where user namespaces are disabled" \
		timeout -k 5 "$JR_RUN_LIMIT" unshare -U -r --mount-proc -f -p sh -c 'echo 0 > /proc/sys/user/max_user_namespaces && exec "$0" --check' "$JR"
	expect_output_has "--check names the sysctl to fix" "user.max_user_namespaces"
	expect_output_has "--check reports FAIL" "FAIL  user namespaces"
fi

finish
