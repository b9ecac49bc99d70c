#!/bin/bash
# The manual pages (man/jailrun.1, man/jailrun.conf.5) and the README's
# option table, rendered and read as a user would.
# Fails if: groff or man warns about either page; a .BR-style line glues
# two words together (".BR persist ent:" renders "persistent:"), other than
# a suffix such as 's or s; the AUDIT LOG section says "via is proxy, dns"
# twice or lists a denial reason twice; the man page documents an audit
# "detail" that no jr_audit_event() call in src/ writes (it documented
# "command started", which was never logged); or the README lists an
# option in two rows of its option table.
. "${JR_TOP_SRCDIR:-$(dirname "$0")/../..}/tests/lib.sh"
command -v groff >/dev/null || skip "groff is needed (groff-base, with man-db)"
command -v man >/dev/null || skip "man is needed (man-db)"
command -v python3 >/dev/null || skip "python3 is needed"

PAGES=("$JR_TOP_SRCDIR/man/jailrun.1" "$JR_TOP_SRCDIR/man/jailrun.conf.5")

# --- zero warnings from groff and from man
for p in "${PAGES[@]}"; do
	n=$(basename "$p")
	w=$(groff -ww -z -man "$p" 2>&1) || true
	if [ -z "$w" ]; then ok "$n: groff -ww renders it without a warning"; else
		fail "$n: groff -ww warns: $w"; fi
	w=$(LC_ALL=C.UTF-8 MANWIDTH=80 man --warnings -l "$p" 2>&1 >/dev/null) || true
	if [ -z "$w" ]; then ok "$n: man --warnings renders it without a warning"; else
		fail "$n: man --warnings warns: $w"; fi
done

# --- no words glued together by an alternating-font macro
for p in "${PAGES[@]}"; do
	n=$(basename "$p")
	glued=$(python3 - "$p" <<'EOF'
import re, shlex, sys
# A suffix may follow a word in another font: VALUE's, VALUEs.
SUFFIX = re.compile(r"^('s|s|es)[,.;:)]*$")
for no, line in enumerate(open(sys.argv[1], encoding="utf-8"), 1):
    if not re.match(r"\.(BR|RB|IR|RI|BI|IB) ", line):
        continue
    try:
        args = shlex.split(line[4:].replace("\\", "\\\\"), posix=True)
    except ValueError:
        args = line[4:].split()
    for a, b in zip(args, args[1:]):
        if re.search(r"[A-Za-z0-9]$", a) and re.match(r"[A-Za-z0-9]", b) \
                and not SUFFIX.match(b):
            print(f"line {no}: {line.rstrip()}")
            break
EOF
	)
	if [ -z "$glued" ]; then ok "$n: no words glued by .BR and friends"; else
		fail "$n: words glued together: $glued"; fi
done

# --- the AUDIT LOG section reads once, and documents what is logged
# Wide lines and no hyphenation, so a word is never split to be counted.
AUDIT=$(groff -man -Tutf8 -P-cbou -rHY=0 -rLL=250n "${PAGES[0]}" 2>/dev/null |
	sed -n '/^AUDIT LOG/,/^[A-Z][A-Z ]*$/p' | tr -s ' \n' '  ')
if [ -n "$AUDIT" ]; then ok "jailrun.1: has an AUDIT LOG section"; else
	fail "jailrun.1: no AUDIT LOG section rendered"; fi
n=$(grep -o 'is proxy, dns' <<<"$AUDIT" | wc -l || true)
if [ "$n" -eq 1 ]; then ok "jailrun.1: 'via is proxy, dns' said once"; else
	fail "jailrun.1: 'is proxy, dns' said $n times"; fi
for reason in tls-incomplete host-mismatch unknown-synthetic-address no-original-destination; do
	n=$(grep -o -- "$reason" <<<"$AUDIT" | wc -l || true)
	if [ "$n" -eq 1 ]; then ok "jailrun.1: reason $reason listed once"; else
		fail "jailrun.1: reason $reason listed $n times"; fi
done
details=$(grep -o '"detail":"[^"]*"' "${PAGES[0]}" | sed 's/"detail":"\(.*\)"/\1/' | sort -u || true)
if [ -n "$details" ]; then ok "jailrun.1: audit details found to check"; else
	fail "jailrun.1: no \"detail\" example in the AUDIT LOG section"; fi
while IFS= read -r d; do
	[ -n "$d" ] || continue
	# in a jr_audit_event() call (its arguments may wrap a line), not a
	# comment or a verbose message
	if grep -rhF --include='*.c' -A2 'jr_audit_event(' "$JR_TOP_SRCDIR/src" |
		grep -qF -- "\"$d\""; then
		ok "jailrun.1: audit detail '$d' is written by src/"
	else
		fail "jailrun.1: audit detail '$d' is documented but never logged"
	fi
done <<<"$details"

# --- the README's option table lists each option once
# (one row may show an option twice, in two forms: counted once)
dups=$(awk -F'|' '/^\| `-/ { print $2 }' "$JR_TOP_SRCDIR/README.md" |
	while IFS= read -r row; do grep -o -- '`--[a-z-]*' <<<"$row" | sort -u || true; done |
	sort | uniq -d | tr '\n' ' ' || true)
if [ -z "$dups" ]; then ok "README: each option in one row of the table"; else
	fail "README: options in more than one row: $dups"; fi

finish
