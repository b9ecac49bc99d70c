#!/bin/bash
# The relay's layers (src/relay/relay_loop.h draws them), checked on the
# #include lines of src/relay/: the loop includes no other relay module's
# header; a service includes the loop's and other services' only; a
# protocol includes the loop's, the services' and its own, never another
# protocol's; nothing outside those includes a relay module's header (the
# rest of jailrun goes through relay.h). Every offending line is printed.
# Fails if: any file breaks its layer, a relay_*.c or relay_*.h is in no
# layer of the table below, or the check itself misses a forbidden
# include planted in a copy of the tree (a protocol including another's
# header, a service including a protocol's, the loop including a
# service's).
. "${JR_TOP_SRCDIR:-$(dirname "$0")/../..}/tests/lib.sh"

# The table: each relay module by layer (file names without .c/.h).
LOOP="relay_loop"
SERVICES="relay_upstream relay_tunnel relay_httprules relay_inspect relay_ask"
PROTOCOLS="relay_proxy relay_transparent relay_dns relay_lane relay_control"

# layer_of NAME - loop, service, protocol, or "" for no relay module.
layer_of() {
	local m
	[ "$1" = "$LOOP" ] && { echo loop; return; }
	for m in $SERVICES; do [ "$1" = "$m" ] && { echo service; return; }; done
	for m in $PROTOCOLS; do [ "$1" = "$m" ] && { echo protocol; return; }; done
	echo ""
}

# allowed FROM FROM_LAYER TO TO_LAYER - may module FROM include TO's header?
allowed() {
	case "$2:$4" in
	*:loop) return 0 ;;
	service:service | protocol:service) return 0 ;;
	protocol:protocol) [ "$1" = "$3" ] ;;
	*) return 1 ;;
	esac
}

# check_tree SRC - print each offending line of SRC/src; return how many.
check_tree() {
	local src=$1 bad=0 f base from lto lfrom line num inc
	for f in "$src"/src/relay/relay_*.[ch]; do
		base=$(basename "$f")
		from=${base%.*}
		if [ -z "$(layer_of "$from")" ]; then
			echo "$f: in no layer of tests/integration/layering.sh's table"
			bad=$((bad + 1))
		fi
	done
	while IFS=: read -r f num line; do
		inc=$(sed -n 's/^[[:space:]]*#[[:space:]]*include[[:space:]]*"\([^"]*\)\.h".*/\1/p' <<<"$line")
		lto=$(layer_of "$inc")
		[ -n "$lto" ] || continue
		base=$(basename "$f")
		from=${base%.*}
		lfrom=$(layer_of "$from")
		if [ -z "$lfrom" ]; then
			echo "$f:$num: $line  <- only the relay's modules include $inc.h (the rest of jailrun: relay.h)"
			bad=$((bad + 1))
		elif ! allowed "$from" "$lfrom" "$inc" "$lto"; then
			echo "$f:$num: $line  <- a $lfrom may not include a $lto's header ($inc.h)"
			bad=$((bad + 1))
		fi
	done < <(grep -rn --include='*.c' --include='*.h' \
		'^[[:space:]]*#[[:space:]]*include[[:space:]]*"' "$src/src")
	return "$bad"
}

out=$(check_tree "$JR_TOP_SRCDIR") && n0=0 || n0=$?
if [ "$n0" -eq 0 ]; then
	ok "src/relay/ keeps its layers (loop <- services <- protocols)"
else
	echo "$out"
	fail "$n0 include line(s) break the relay's layers"
fi

# The check must see a forbidden include: plant one of each kind in a copy
# (one more offending line than the tree itself has).
plant() {
	local desc=$1 file=$2 header=$3 copy="$JR_TMP/tree" got
	rm -rf "$copy"
	mkdir -p "$copy/src"
	cp -r "$JR_TOP_SRCDIR/src/relay" "$copy/src/"
	sed -i "0,/^#include \"/s//#include \"$header\"\n&/" "$copy/src/relay/$file"
	got=$(check_tree "$copy") && n=0 || n=$?
	if [ "$n" -eq $((n0 + 1)) ] && grep -q "relay/$file:.*$header" <<<"$got"; then
		ok "the check refuses $desc: $(grep "relay/$file:.*$header" <<<"$got" | sed "s|$copy/||")"
	else
		fail "the check missed $desc ($n offending lines: $got)"
	fi
}
plant "a protocol including another protocol's header" \
	relay_dns.c relay_transparent.h
plant "a service including a protocol's header" \
	relay_tunnel.c relay_dns.h
plant "the loop including a service's header" \
	relay_loop.c relay_tunnel.h
plant "a parser including a relay module's header" \
	http.c relay_loop.h

finish
