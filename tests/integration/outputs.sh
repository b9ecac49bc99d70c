#!/bin/bash
# The files jailrun writes for its caller, against a hostile command and a
# hostile neighbour (issue 21), as root and rootless:
#  - the audit log stays small under a flood from inside (20000 DNS queries
#    and 3000 proxy CONNECTs for a denied name), while its lines, summed by
#    "repeated", and the --json summary still count every one;
#  - --json and --log never follow a symbolic link another user planted
#    (in /tmp, and in that user's own directory) nor write another user's
#    file: exit 125, the target untouched; "-" and /dev/stdout are stdout;
#  - --learn's FILE is written by the runner alone: the command, which can
#    write FILE's directory, finds no temporary file of ours to replace,
#    and a link it leaves at FILE is replaced, not followed.
# Fails if: a flood writes a line per event, a line or the summary loses
# an event, a planted link or file is written or truncated, a refusal is
# not 125 with a message naming the option, --json - writes a file named
# "-", or --learn's FILE holds anything the command wrote.
. "${JR_TOP_SRCDIR:-$(dirname "$0")/../..}/tests/lib.sh"
jr_require_sandbox
command -v python3 >/dev/null || skip "python3 is needed"

# The flood, run inside: sequential (each answer awaited, so none is lost
# to a full socket buffer), A and AAAA in turn; then CONNECTs.
cat >"$JR_TMP/flood.py" <<'PY'
import socket, struct, sys
n_dns, n_connect, name = int(sys.argv[1]), int(sys.argv[2]), sys.argv[3]
ns = [l.split()[1] for l in open("/etc/resolv.conf")
      if l.startswith("nameserver")][0]
s = socket.socket(socket.AF_INET6 if ":" in ns else socket.AF_INET,
                  socket.SOCK_DGRAM)
s.settimeout(30)
q = b"".join(bytes([len(p)]) + p.encode() for p in name.split(".")) + b"\0"
nx = 0
for i in range(n_dns):
    qid = i & 0xffff
    s.sendto(struct.pack(">HHHHHH", qid, 0x0100, 1, 0, 0, 0) + q +
             struct.pack(">HH", 1 if i % 2 == 0 else 28, 1), (ns, 53))
    while True:
        data = s.recv(512)
        if struct.unpack(">H", data[:2])[0] == qid:
            break
    nx += (data[3] & 15) == 3
refused = 0
for i in range(n_connect):
    c = socket.create_connection((ns, 3128), timeout=30)
    c.sendall(b"CONNECT %s:443 HTTP/1.1\r\nHost: %s:443\r\n\r\n" %
              (name.encode(), name.encode()))
    refused += c.recv(64).startswith(b"HTTP/1.1 403")
    c.close()
print("NXDOMAIN", nx, "REFUSED", refused)
PY
chmod 644 "$JR_TMP/flood.py"

# check_flood LOG JSON EVENTS - what a flood of EVENTS denials left.
check_flood() {
	python3 - "$@" <<'PY'
import json, sys
log, summary, events = sys.argv[1], sys.argv[2], int(sys.argv[3])
lines = open(log).read().splitlines()
recs = [json.loads(l) for l in lines]
conn = [r for r in recs if r["event"] == "connection"]
stand_for = sum(r.get("repeated", 1) for r in conn)
dns = sum(r.get("repeated", 1) for r in conn if r["via"] == "dns")
proxy = sum(r.get("repeated", 1) for r in conn if r["via"] == "proxy")
net = json.load(open(summary))["network"]
dest = {d["destination"]: d["count"] for d in net["denied_destinations"]}
print("lines", len(lines), "connection lines", len(conn),
      "stand for", stand_for, "(dns", dns, "proxy", proxy, ")",
      "summary denied", net["denied"], "destinations", dest)
ok = True
def check(what, held):
    global ok
    print(("check held: " if held else "CHECK BROKEN: ") + what)
    ok = ok and held
check("every line is a deny of denied.test",
      all(r["verdict"] == "deny" and r["host"] == "denied.test" for r in conn))
# About one line a second per kind: a flood that took a run's whole
# time limit would still stay far below this.
check("lines << events", len(conn) <= events // 20)
check("the lines stand for every event", stand_for == events)
check("the summary counts every event", net["denied"] == events)
check("the summary's destinations too",
      dest.get("denied.test", 0) + dest.get("denied.test:443", 0) == events)
check("a count line says how many", any(r.get("repeated", 1) > 1 for r in conn))
sys.exit(0 if ok else 1)
PY
}

OTHER_UID=12345 # a third user: neither the caller nor the command
for m in $(jr_modes); do
	if [ "$m" = root ]; then caller_uid=0; else caller_uid=$JR_NOBODY_UID; fi

	# --- the audit log under a flood
	rm -f "$JR_W/flood.log" "$JR_W/flood.json"
	expect_status 0 "$m: a flood of denied queries and CONNECTs" jr "$m" \
		--net allowlist --allow allowed.test \
		--log "$JR_W/flood.log" --json "$JR_W/flood.json" -- \
		python3 "$JR_TMP/flood.py" 20000 3000 denied.test
	expect_output_has "$m: every query answered NXDOMAIN, every CONNECT 403" \
		"NXDOMAIN 20000 REFUSED 3000"
	expect_status 0 "$m: the log is bounded and counts every event" \
		check_flood "$JR_W/flood.log" "$JR_W/flood.json" 23000
	echo "$OUT"

	# --- --json and --log: "-" is stdout, no file named "-"
	rm -f "$JR_TMP/-"
	expect_status 0 "$m: --json - writes the summary to stdout" \
		jr "$m" --net none --json - -- true
	expect_output_has "$m: the summary came on stdout" '"jailrun_version":'
	if [ -e "$JR_TMP/-" ]; then fail "$m: --json - made a file named -"; else ok "$m: no file named -"; fi
	expect_status 0 "$m: --json /dev/stdout still works" \
		jr "$m" --net none --json /dev/stdout -- true
	expect_output_has "$m: the summary came on /dev/stdout" '"jailrun_version":'
	expect_status 0 "$m: --log - writes the log to stdout" \
		jr "$m" --net none --log - -- true
	expect_output_has "$m: the log came on stdout" '"event":"lifecycle"'

	if [ "$(id -u)" -ne 0 ]; then
		echo "note: planting another user's links and files needs root"
		continue
	fi
	# --- another user's link, in /tmp and in their own directory, to a
	# file of the caller's (root's own, when root runs jailrun)
	target=$(mktemp /tmp/jailrun-target.XXXXXX)
	echo "precious $m" >"$target"
	chown "$caller_uid" "$target"
	theirs=$(mktemp -d /tmp/jailrun-theirs.XXXXXX)
	chmod 755 "$theirs"
	chown "$OTHER_UID:$OTHER_UID" "$theirs"
	link_tmp=/tmp/jailrun-planted.$$.$m
	ln -sfn "$target" "$link_tmp"
	ln -sfn "$target" "$theirs/out"
	chown -h "$OTHER_UID:$OTHER_UID" "$link_tmp" "$theirs/out"
	for opt in --json --log; do
		for l in "$link_tmp" "$theirs/out"; do
			expect_status 125 "$m: $opt through $l is refused" \
				jr "$m" --net none "$opt" "$l" -- true
			expect_output_has "$m: $opt $l: says it is a link" \
				"$opt $l: is a symbolic link, which jailrun does not follow"
			if [ "$(cat "$target")" = "precious $m" ]; then
				ok "$m: $opt $l: the target is untouched"
			else
				fail "$m: $opt $l: the target was written: $(head -c 200 "$target")"
				echo "precious $m" >"$target"
			fi
		done
	done
	# another user's own file: not written, not truncated
	echo "their data" >"$theirs/file"
	chown "$OTHER_UID:$OTHER_UID" "$theirs/file"
	chmod 666 "$theirs/file" # writable by anyone: only jailrun's own rule stops it
	for opt in --json --log; do
		expect_status 125 "$m: $opt into another user's file is refused" \
			jr "$m" --net none "$opt" "$theirs/file" -- true
		expect_output_has "$m: $opt: says whose it is" \
			"$opt $theirs/file: belongs to uid $OTHER_UID"
		if [ "$(cat "$theirs/file")" = "their data" ]; then
			ok "$m: $opt: their file is untouched"
		else
			fail "$m: $opt: their file was written: $(head -c 200 "$theirs/file")"
			echo "their data" >"$theirs/file"
		fi
	done
	rm -rf "$theirs" "$link_tmp" "$target"

	# --- --learn: FILE's directory is the command's to write (owned by
	# the command's user); the command looks for our temporary file to
	# replace, and leaves a link at FILE to a file of the caller's.
	d=$(mktemp -d /tmp/jailrun-learn.XXXXXX)
	chmod 755 "$d"
	chown "$JR_NOBODY_UID:$JR_NOBODY_GID" "$d"
	target=$(mktemp /tmp/jailrun-target.XXXXXX)
	echo "precious $m" >"$target"
	chown "$caller_uid" "$target"
	chmod 644 "$target"
	expect_status 0 "$m: --learn with a command that attacks FILE" \
		as_mode "$m" env -C "$d" timeout -k 5 "$JR_RUN_LIMIT" "$JR" \
		--learn "$d/learned.txt" -- sh -c '
			for f in learned.txt.*; do
				[ -e "$f" ] || continue
				echo "TEMP-SEEN $f"
				rm -f "$f"; echo "evil.test:443 # planted" >"$f"
			done
			ln -s "$1" learned.txt && echo LINK-PLANTED' sh "$target"
	expect_output_has "$m: the command could plant its link" "LINK-PLANTED"
	if grep -q TEMP-SEEN <<<"$OUT"; then
		fail "$m: the command saw a temporary file of ours: $OUT"
	else
		ok "$m: no temporary file of ours while the command ran"
	fi
	if [ -f "$d/learned.txt" ] && [ ! -L "$d/learned.txt" ] &&
		[ "$(stat -c %u "$d/learned.txt")" = "$caller_uid" ] &&
		grep -q '^# jailrun --learn:' "$d/learned.txt" &&
		! grep -q evil.test "$d/learned.txt"; then
		ok "$m: FILE is the runner's own file"
	else
		fail "$m: FILE is not the runner's: $(ls -la "$d"; cat "$d/learned.txt")"
	fi
	if [ "$(cat "$target")" = "precious $m" ]; then
		ok "$m: --learn did not write through the link"
	else
		fail "$m: --learn wrote through the link: $(head -c 200 "$target")"
	fi
	rm -rf "$d" "$target"
done

finish
