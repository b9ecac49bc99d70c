#!/bin/bash
# Pooled workers under a real systemd: contrib/systemd/jailrun-worker@.service
# and jailrun-pool.target, run by systemd booted as PID 1 in a container
# this test makes itself, and jailrun's sd_notify (notify.c).
#
# The container: new PID, mount, UTS, IPC, network and cgroup namespaces
# (unshare), private tmpfs on /run, /tmp, /var/tmp, /var/lib/systemd and
# /var/log (without them systemd-tmpfiles could clean the host's /tmp: the
# mounts are checked before systemd is exec'd, and a canary in the host's
# /tmp is checked at the end), the host's tree read-only (so /etc and /var
# stay untouched), a private machine-id, a fresh sysfs (read-only) and
# /dev, and a unit search path of the test's own (SYSTEMD_UNIT_PATH without
# a trailing ':', and systemd.unit= naming a target of ours), so no unit of
# the host starts. systemd 252 then mounts its own hybrid cgroup layout
# (systemd.unified_cgroup_hierarchy=0, read from PID 1's command line in a
# container) inside the cgroup namespace, whose root is a directory this
# test made in every hierarchy of the host.
#
# The host's kernel settings. systemd 252 as PID 1 sets fs.file-max to
# LONG_MAX at its first start, in a container too: container= (set below;
# detect_container() reads it from PID 1's own environment) skips the early
# mounts, the security policies and the clock, but not
# bump_file_max_and_nr_open() (src/core/main.c), which gives up quietly
# only on EROFS, EPERM or EACCES. So, as systemd's CONTAINER_INTERFACE.md
# asks of a container manager, /proc/sys is a read-only bind mount while
# systemd boots. It is lifted once systemd runs, before any unit starts:
# an unprivileged user namespace (the workers') may mount its own /proc
# only while the /proc it comes from is fully visible, nothing mounted over
# a part of it; and PID 1 writes these settings only at its first start.
# kmod_setup() has no container check either (it loads autofs4, ipv6,
# ip_tables when they are missing): systemd runs without CAP_SYS_MODULE in
# its bounding set. Every sysctl the test can read in fs, kernel, vm,
# net.core, net.unix and user (counters the kernel moves by itself aside)
# is compared after the boot and at the end; a change fails the test, and
# is put back, so that the next run fails too instead of passing on a host
# the first run changed.
#
# Root only: systemd as PID 1 needs it. The workers themselves run
# rootless (User=nobody): jailrun builds each sandbox in a user namespace.
# The unit file under test is the contrib one, with three lines replaced:
# User=/Group= (nobody), the WORKER program, and "--profile worker" by the
# equivalent options "-v --allow allowed.test" (the profile comes from
# config files, which this test does not install).
#
# In it:
#  1. start jailrun-pool.target: 4 workers become active (Type=notify),
#     under the unit's whole hardening (systemd-units.sh scores it): in
#     each sandbox PID 1 is jailrun-init and /proc is whole, and IPv6 is on
#     when the host has it. Fails if a hardening setting breaks jailrun or
#     quietly takes something from the sandbox, or init is not named;
#  2. each sent READY only after its lockdown: jailrun's monotonic times of
#     "ruleset verified" and "command started" (EXEC_OK: the relay's
#     self-check passed) lie between the unit's ExecMainStart and
#     ActiveEnter (READY) timestamps, and the summary's start-up total
#     fits before READY too (a consistency check only: exec to main()
#     is not measured). Fails if READY is sent before verification or
#     before the command started, or never;
#  3. SIGKILL one worker's command: the unit restarts (NRestarts 1, a new
#     MainPID) in a fresh working directory. Fails if Restart=on-failure is
#     missing, jailrun hides the command's death, or the next task finds
#     the last one's file (RuntimeDirectoryPreserve=);
#  4. the watchdog: pings arrive (WatchdogTimestamp advances, STATUS= has
#     the counts); SIGSTOP one runner and systemd ends it with
#     Result=watchdog and restarts it. Fails if pings are not tied to
#     jailrun's own watchdog thread, or WatchdogSec= is missing;
#  5. hardening: an instance with RestrictNamespaces=yes exits 125 and is
#     not restarted (RestartPreventExitStatus=125), while the four workers
#     run with the unit's own hardening; the command never sees
#     NOTIFY_SOCKET or WATCHDOG_*, nor an inherited descriptor;
#  6. stop the target: no process, network namespace or nft table is left;
#     each summary and audit log is in /var/log/jailrun (LogsDirectory=),
#     mode 0600 (UMask=0077), and each working directory is gone.
# Afterwards every cgroup directory made on the host is removed (the test
# fails if one is left), as is everything else; the test also fails if the
# host's mounts, its sysctls or the canary in its /tmp changed. Bounded
# waits only.
. "${JR_TOP_SRCDIR:-$(dirname "$0")/../..}/tests/lib.sh"
[ "$(id -u)" -eq 0 ] || skip "systemd as PID 1 of a container needs root (the workers run rootless)"
jr_require_sandbox
SD_BIN=
for b in /lib/systemd/systemd /usr/lib/systemd/systemd; do
	[ -x "$b" ] && SD_BIN=$b && break
done
[ -n "$SD_BIN" ] || skip "systemd is not installed"
for t in unshare nsenter systemctl findmnt nft setpriv; do
	command -v "$t" >/dev/null || skip "$t is needed"
done

# Hang guard for each wait (seconds); generous, never a latency judgement.
WAIT=60
TAG=jrsd$$
# Host side: everything of the container under $H; inside it is $C.
H=$JR_TMP/sd
C=/mnt
CG=jailrun-test-systemd.$$
mkdir -p "$H/units/jailrun-worker@.service.d" "$H/units/jailrun-worker@rns.service.d" "$H/log"
chmod 755 "$H" "$H/units" "$H/log"
SD_PID=
UNSHARE_PID=
CANARY=$(mktemp /tmp/jailrun-systemd-canary.XXXXXX)
echo "$TAG" >"$CANARY"
# sysctl_snapshot - "path:value" of every sysctl root can read in the
# host's fs, kernel and vm trees, net.core and net.unix of the host's
# network namespace and the user namespace limits (one grep: a process per
# file is slow on a busy host), sorted. Left out: counters and values the
# kernel changes by itself (dentry, inode, file and aio counts, quota
# statistics, the last pid, a fresh random uuid, the entropy count, the pty
# count, hung tasks seen, the perf sample rate the kernel lowers under load).
SYSCTL_VOLATILE='^/proc/sys/(fs/(dentry-state|inode-nr|inode-state|file-nr|aio-nr|quota/.*)|kernel/(ns_last_pid|random/(uuid|entropy_avail)|pty/nr|hung_task_detect_count|perf_event_max_sample_rate)):'
sysctl_snapshot() {
	{ grep -rs '' /proc/sys/fs /proc/sys/kernel /proc/sys/vm /proc/sys/net/core \
		/proc/sys/net/unix /proc/sys/user || true; } | grep -vE "$SYSCTL_VOLATILE" | LC_ALL=C sort
}
# sysctl_changed - the snapshot's lines that differ now (before and after),
# nothing if none.
sysctl_changed() { diff <(echo "$SYSCTL_BEFORE") <(sysctl_snapshot) | grep '^[<>]' || true; }
# sysctl_restore - writes back every single-line value that changed, so that
# a failed run leaves the host as it found it (and the next run fails too).
sysctl_restore() {
	local line path
	while IFS= read -r line; do
		path=${line%%:*}
		[ "$(grep -c "^$path:" <<<"$SYSCTL_BEFORE")" = 1 ] || continue
		if printf '%s\n' "${line#*:}" 2>/dev/null >"$path"; then
			echo "  put back ${path#/proc/sys/}=${line#*:}"
		else
			echo "  could not put back ${path#/proc/sys/}=${line#*:}: restore it by hand"
		fi
	done < <(LC_ALL=C comm -23 <(echo "$SYSCTL_BEFORE") <(sysctl_snapshot))
}
SYSCTL_BEFORE=$(sysctl_snapshot)
[ "$(wc -l <<<"$SYSCTL_BEFORE")" -gt 100 ] || { fail "could not read the host's sysctls: $SYSCTL_BEFORE"; exit 1; }
# cgroup_mount CONTROLLERS - where the hierarchy that /proc/self/cgroup
# names by CONTROLLERS ("memory", "name=systemd"; empty: cgroup2) is mounted.
cgroup_mount() {
	if [ -z "$1" ]; then
		findmnt -rn -t cgroup2 -o TARGET | sed -n 1p
		return
	fi
	findmnt -rn -t cgroup -o TARGET,FS-OPTIONS | awk -v c="$1" '{
		n = split($2, o, ","); m = split(c, w, ","); ok = 1
		for (i = 1; i <= m; i++) {
			f = 0
			for (j = 1; j <= n; j++) if (o[j] == w[i]) f = 1
			if (!f) ok = 0
		}
		if (ok) { print $1; exit }
	}'
}
# Other work on the machine gets cgroups beside this test's own while it
# runs (a job runner's per-command cgroups): those are not the
# container's to leave or this test's to remove. OTHERS holds, per
# hierarchy where this process is not at the root, "SIBLINGS-PREFIX OWN".
OTHERS=()
while IFS=: read -r _ ctrl path; do
	[ "$path" = / ] && continue
	mnt=$(cgroup_mount "$ctrl")
	[ -n "$mnt" ] && OTHERS+=("$mnt${path%/*}/ $mnt$path")
done </proc/self/cgroup
# cgroup_dirs - every cgroup directory that may be the container's.
cgroup_dirs() {
	local d o keep
	find /sys/fs/cgroup -mindepth 1 -type d 2>/dev/null | sort |
		while read -r d; do
			keep=1
			for o in "${OTHERS[@]}"; do
				case "$d/" in
				"${o#* }"/*) ;;
				"${o%% *}"*) keep=0 ;;
				esac
			done
			[ "$keep" = 0 ] || echo "$d"
		done
}
cgroup_dirs >"$H/cg-before"
# host_mounts - the host's mount points and types (the type follows the
# "-" that ends mountinfo's optional fields), but the network namespaces
# (nsfs, /run/netns) that the lab of a test running beside this one adds
# and removes.
host_mounts() {
	awk '{ t = ""; for (i = 7; i < NF; i++) if ($i == "-") { t = $(i + 1); break } }
		t != "nsfs" && $5 !~ "^/run/netns(/|$)" { print $5, t }' /proc/self/mountinfo | LC_ALL=C sort
}
host_mounts >"$H/mounts-before"

# host_pid PID - the host's pid of the container's process PID (NSpid).
host_pid() {
	local p pidns
	pidns=$(readlink "/proc/$SD_PID/ns/pid")
	# One grep over every process (a process per pid is slow on a busy
	# host), then the namespace of the few candidates.
	for p in $(grep -lE "^NSpid:.*[[:space:]]$1\$" /proc/[0-9]*/status 2>/dev/null); do
		p=${p%/status}
		[ "$(readlink "$p/ns/pid" 2>/dev/null)" = "$pidns" ] || continue
		echo "${p#/proc/}"
		return 0
	done
	return 0
}
sctl() { timeout 30 nsenter -t "$SD_PID" -a systemctl "$@"; }
prop() { sctl show -p "$2" --value "$1"; }
unshare_gone() { ! kill -0 "$UNSHARE_PID" 2>/dev/null; }
rm_new_cgroups() {
	local d left=0
	cgroup_dirs | comm -13 "$H/cg-before" - | sort -r >"$H/cg-new"
	while read -r d; do rmdir "$d" 2>/dev/null || left=1; done <"$H/cg-new"
	[ "$left" = 0 ]
}
# teardown - on any exit: the container goes, the host is checked for
# what it left (these checks are results too), then the TAP plan, last.
teardown() {
	local st=$? left changed ncg
	trap - EXIT
	set +e
	if [ "$st" != 0 ] && [ "$JR_FAILURES" != 0 ] && [ -n "$SD_PID" ]; then
		tap_diag "--- units:"$'\n'"$(sctl status --no-pager --lines=0 'jailrun-worker@*' 2>&1 | head -n 60)"
	fi
	if [ -n "$UNSHARE_PID" ]; then
		# SIGKILL to the container's init takes its PID namespace down.
		[ -z "$SD_PID" ] || kill -KILL "$SD_PID" 2>/dev/null
		kill -KILL "$UNSHARE_PID" 2>/dev/null
		# Not a check of its own: cgroups left over fail below.
		wait_until 30 unshare_gone || tap_diag "the container did not go away"
	fi
	# The kernel empties a dead namespace's cgroups asynchronously.
	ncg=$(cgroup_dirs | comm -13 "$H/cg-before" - | wc -l)
	if ! wait_until 30 rm_new_cgroups; then
		left=$(cgroup_dirs | comm -13 "$H/cg-before" -)
		fail "cgroup directories left on the host: $left"
	else
		ok "every cgroup directory made for the container was removed ($ncg of them)"
	fi
	if [ "$(cat "$CANARY" 2>/dev/null)" != "$TAG" ]; then
		fail "the canary in the host's /tmp is gone or changed"
	else
		ok "the canary in the host's /tmp is unchanged"
	fi
	rm -f "$CANARY"
	left=$(host_mounts | LC_ALL=C comm -3 "$H/mounts-before" -)
	if [ -n "$left" ]; then
		fail "the host's mounts changed: $left"
	else
		ok "the host's mounts are as they were"
	fi
	changed=$(sysctl_changed)
	if [ -n "$changed" ]; then
		fail "a host sysctl changed (< before, > now):"$'\n'"$changed"$'\n'"$(sysctl_restore)"
	else
		ok "no host sysctl changed ($(wc -l <<<"$SYSCTL_BEFORE") compared)"
	fi
	[ "$JR_FAILURES" = 0 ] || st=1
	if [ "$st" != 0 ] && [ -f "$H/console.log" ]; then
		tap_diag "--- container console:"$'\n'"$(tail -n 30 "$H/console.log")"
		for f in "$H"/log/*.log; do
			[ -f "$f" ] && tap_diag "--- $f:"$'\n'"$(tail -n 15 "$f")"
		done
	fi
	finish
	jr_cleanup_tmp
	exit "$st"
}
trap teardown EXIT

# ---------------------------------------------------------------- units
# The contrib template, with the three replacements described above.
install -m 755 "$JR" "$H/jailrun"
sed -e "s|^ExecStart=jailrun --profile worker |ExecStart=$C/jailrun -v --allow allowed.test |" \
	-e "s|^User=jailrun-worker\$|User=nobody|" \
	-e "s|^Group=jailrun-worker\$|Group=$(id -gn nobody)|" \
	-e "s|^Environment=WORKER=.*|Environment=WORKER=$C/worker|" \
	"$JR_TOP_SRCDIR/contrib/systemd/jailrun-worker@.service" \
	>"$H/units/jailrun-worker@.service"
for want in "ExecStart=$C/jailrun -v --allow allowed.test --log /var/log/jailrun/%i.log --json /var/log/jailrun/%i.json -- \${WORKER} %i" \
	"User=nobody" "Environment=WORKER=$C/worker"; do
	grep -qxF -- "$want" "$H/units/jailrun-worker@.service" ||
		{ fail "the contrib unit changed shape: no line '$want' after the test's edits"; exit 1; }
done
cp "$JR_TOP_SRCDIR/contrib/systemd/jailrun-pool.target" "$H/units/"
# The test's own default target: nothing in it.
printf '[Unit]\nDescription=jailrun test: nothing\n' >"$H/units/jrtest.target"
# Empty stand-ins for the targets a service's default dependencies name
# (Requires=sysinit.target, After=basic.target, Conflicts=shutdown.target).
for t in sysinit basic shutdown; do
	printf '[Unit]\nDescription=jailrun test: empty %s.target\n' "$t" >"$H/units/$t.target"
done
# Test-only: the output where the test can read it, and a watchdog short
# enough that step 4 takes seconds.
cat >"$H/units/jailrun-worker@.service.d/test.conf" <<EOF
[Service]
StandardOutput=append:$C/log/%i.log
StandardError=append:$C/log/%i.log
WatchdogSec=6s
EOF
# An AddressSanitizer build: LeakSanitizer's exit check stops the process's
# threads with ptrace, which the unit's SystemCallFilter refuses, so it
# fails fatally and turns every exit status into 1. Leaks are the rest of
# the suite's to find; here the exit statuses are what is tested.
if [ "$JR_ASAN" = 1 ]; then
	printf 'Environment=ASAN_OPTIONS=detect_leaks=0\n' >>"$H/units/jailrun-worker@.service.d/test.conf"
fi
# The documented incompatibility, checked: jailrun cannot make its
# namespaces, so it refuses (125) and is not restarted.
printf '[Service]\nRestrictNamespaces=yes\n' >"$H/units/jailrun-worker@rns.service.d/rns.conf"

# The worker: proves it runs in its writable working directory, shows what
# it inherited, then waits under a name the test can find.
cat >"$H/worker" <<EOF
#!/bin/bash
env | grep -E '^(NOTIFY_SOCKET|WATCHDOG_USEC|WATCHDOG_PID)=' >inherited-env || true
ls /proc/self/fd >inherited-fds
# The sandbox's own /proc, whole (the unit's ProcSubset=pid is jailrun's,
# not the sandbox's), and its PID 1, by the name jailrun gives it.
{ cat /proc/1/comm; test -e /proc/meminfo && echo whole-proc; } >sandbox-proc
echo "\$1" >ready
exec -a "$TAG-worker-\$1" sleep infinity
EOF
chmod 755 "$H/worker"
echo 0123456789abcdef0123456789abcdef >"$H/machine-id"
: >"$H/console.log"

# ------------------------------------------------------------ container
# Runs as PID 1 of the new namespaces; ends by exec'ing systemd.
cat >"$H/init.sh" <<'EOF'
#!/bin/bash
set -euo pipefail
H=$1 C=$2 SD_BIN=$3
exec 9<"$H"
mount --make-rprivate /
# The copy of the host's mounts may hold other network namespaces' nsfs
# mounts (ip netns): drop them here, so nothing pins them and any nsfs
# mount found at the end is one the workers left. (findmnt fails when it
# finds none: on a host with no other network namespace mounted.)
{ findmnt -rn -t nsfs -o TARGET || true; } | sort -r | while read -r m; do umount -l "$m"; done
mount -t proc proc /proc
# Read-only while systemd boots, so that its writes to the host's
# fs.file-max (and any other sysctl) fail; the test lifts it once systemd
# runs (see the top of the test).
mount --bind /proc/sys /proc/sys
mount -o remount,bind,ro /proc/sys
# A fresh sysfs for the new network namespace, without the host's cgroup
# mounts below it; read-only, like a container's.
mount -t sysfs -o ro,nosuid,nodev,noexec sysfs /sys
mount -t tmpfs -o mode=0755,nosuid,nodev tmpfs /run
mount -t tmpfs -o mode=1777,nosuid,nodev tmpfs /tmp
mount -t tmpfs -o mode=1777,nosuid,nodev tmpfs /var/tmp
mount -t tmpfs -o mode=0755 tmpfs /var/lib/systemd
mount -t tmpfs -o mode=0755 tmpfs /var/log
mkdir -p "$C"
mount --bind /proc/self/fd/9 "$C"
exec 9<&-
# A minimal /dev: a few host nodes, its own devpts, a console that is a file.
mkdir -p "$C/dev"
mount -t tmpfs -o mode=0755,nosuid tmpfs "$C/dev"
for n in null zero full random urandom tty; do
	touch "$C/dev/$n"
	mount --bind "/dev/$n" "$C/dev/$n"
done
mkdir "$C/dev/pts" "$C/dev/shm"
mount -t devpts -o newinstance,ptmxmode=0666,mode=0620 devpts "$C/dev/pts"
ln -s pts/ptmx "$C/dev/ptmx"
touch "$C/dev/console"
mount --bind "$C/console.log" "$C/dev/console"
mount --move "$C/dev" /dev
mount --bind "$C/machine-id" /etc/machine-id
mount -o remount,bind,ro /etc/machine-id
# The host's tree read-only (its /etc and /var with it); $C stays writable.
mount -o remount,bind,ro /
# Verify before systemd runs: its tmpfiles must never see the host's /tmp.
for m in /run /tmp /var/tmp /var/lib/systemd /var/log; do
	[ "$(findmnt -n -o FSTYPE --mountpoint "$m")" = tmpfs ] || { echo "$m is not a private tmpfs" >&2; exit 1; }
done
if touch /etc/.jailrun-test-probe 2>/dev/null; then echo "/etc is writable" >&2; exit 1; fi
[ "$(findmnt -n -o VFS-OPTIONS --mountpoint /proc/sys | cut -d, -f1)" = ro ] || { echo "/proc/sys is not read-only" >&2; exit 1; }
touch "$C/mounts-ok"
# No CAP_SYS_MODULE: systemd must not load modules into the host's kernel.
exec setpriv --bounding-set -sys_module env -i container=jailrun-test SYSTEMD_UNIT_PATH="$C/units" \
	PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin \
	"$SD_BIN" systemd.unit=jrtest.target systemd.unified_cgroup_hierarchy=0 \
	systemd.show_status=0 </dev/null >>"$C/console.log" 2>&1
EOF
chmod 755 "$H/init.sh"

# The cgroup namespace's root: a directory of ours in every hierarchy.
for h in /sys/fs/cgroup/*/; do
	mountpoint -q "$h" || continue
	mkdir "$h$CG"
	if [ -f "$h$CG/cpuset.cpus" ]; then
		cat "${h}cpuset.cpus" >"$h$CG/cpuset.cpus"
		cat "${h}cpuset.mems" >"$h$CG/cpuset.mems"
	fi
done
(
	for h in /sys/fs/cgroup/*/; do
		[ -d "$h$CG" ] && echo "$BASHPID" >"$h$CG/cgroup.procs"
	done
	exec unshare --pid --fork --mount --uts --ipc --net --cgroup \
		"$H/init.sh" "$H" "$C" "$SD_BIN"
) >"$H/unshare.log" 2>&1 &
UNSHARE_PID=$!
disown "$UNSHARE_PID"
sd_found() { SD_PID=$(pgrep -P "$UNSHARE_PID" || true); [ -n "$SD_PID" ]; }
wait_until "$WAIT" sd_found || { fail "the container's init never appeared: $(cat "$H/unshare.log")"; exit 1; }
wait_until "$WAIT" test -e "$H/mounts-ok" || { fail "the container's mounts failed: $(cat "$H/unshare.log")"; exit 1; }
sd_booted() { [ "$(readlink "/proc/$SD_PID/exe")" = "$(readlink -f "$SD_BIN")" ]; }
wait_until "$WAIT" sd_booted || { fail "systemd was not exec'd: $(cat "$H/unshare.log")"; exit 1; }
bus_up() { [ -S "/proc/$SD_PID/root/run/systemd/private" ]; }
wait_until "$WAIT" bus_up || { fail "systemd's private bus socket never appeared"; exit 1; }
state=$(timeout "$WAIT" nsenter -t "$SD_PID" -a systemctl is-system-running --wait 2>&1 || true)
if [ "$state" = running ]; then
	ok "systemd $("$SD_BIN" --version | sed -n 1p | cut -d' ' -f2) booted as PID 1 of the container: $state"
else
	fail "systemd did not boot: '$state'"
	exit 1
fi
# The boot is where PID 1 writes kernel settings (fs.file-max above all).
changed=$(sysctl_changed)
if [ -z "$changed" ]; then
	ok "systemd's boot changed no host sysctl ($(wc -l <<<"$SYSCTL_BEFORE") compared)"
else
	fail "systemd's boot changed host sysctls (< before, > now): $changed"
fi
# CAP_SYS_MODULE is bit 16.
capbnd=$(awk '$1 == "CapBnd:" { print $2 }' "/proc/$SD_PID/status")
if [ -n "$capbnd" ] && [ $((0x$capbnd >> 16 & 1)) = 0 ]; then
	ok "systemd runs without CAP_SYS_MODULE (CapBnd $capbnd)"
else
	fail "systemd may load kernel modules: CapBnd '$capbnd'"
fi
# Lift the read-only /proc/sys before any unit starts: the workers' user
# namespaces need a fully visible /proc to mount theirs.
if timeout 30 nsenter -t "$SD_PID" -a umount /proc/sys &&
	[ -z "$(awk '$5 == "/proc/sys"' "/proc/$SD_PID/mountinfo")" ]; then
	ok "the read-only /proc/sys of the boot is lifted"
else
	fail "could not lift the read-only /proc/sys in the container"
	exit 1
fi
# No unit of the host: what runs is ours, or what systemd made itself.
others=$(sctl list-units --all --no-legend --plain --state=active,activating |
	awk '{ print $1 }' | grep -vE '\.(mount|scope|slice|device)$|^jrtest\.target$' || true)
if [ -z "$others" ]; then ok "no unit of the host was started"; else fail "units not of the test are active: $others"; fi

# ------------------------------------------------------- 1. the pool
printf "step 1 (the pool) at %ss\n" "$SECONDS"
# The target is After= its workers: start returns once all four are READY.
if sctl start jailrun-pool.target; then
	ok "jailrun-pool.target started"
else
	fail "jailrun-pool.target did not start: $(sctl status --no-pager 'jailrun-worker@*' 2>&1 | head -n 40)"
	exit 1
fi
for i in 1 2 3 4; do
	u=jailrun-worker@$i.service
	if [ "$(prop "$u" ActiveState)" = active ] &&
		wait_until "$WAIT" test -s "/proc/$SD_PID/root/run/jailrun/$i/ready"; then
		ok "$u active, its command running in /run/jailrun/$i as $(stat -c %U "/proc/$SD_PID/root/run/jailrun/$i/ready")"
	else
		fail "$u: $(prop "$u" ActiveState), no ready file"
	fi
	sp=$(tr '\n' ' ' <"/proc/$SD_PID/root/run/jailrun/$i/sandbox-proc" 2>&1)
	if [ "$sp" = "jailrun-init whole-proc " ]; then
		ok "$u: in the sandbox, PID 1 is jailrun-init and /proc is whole"
	else
		fail "$u: the sandbox's PID 1 and /proc: '$sp'"
	fi
done

# The hardening took nothing from the sandbox: IPv6 as on the host (where
# a setting hides /proc/sys from jailrun, it quietly turns IPv6 off).
if [ "$(cat /proc/sys/net/ipv6/conf/default/disable_ipv6 2>/dev/null)" = 0 ]; then
	if grep -q 'IPv6: on' "$H/log/1.log"; then
		ok "worker 1: IPv6 on in the sandbox, as on the host"
	else
		fail "worker 1: IPv6 is not on: $(grep 'IPv6' "$H/log/1.log")"
	fi
fi

# ------------------------------------------- 2. READY after the lockdown
printf "step 2 (READY after the lockdown) at %ss\n" "$SECONDS"
for i in 1 2 3 4; do
	u=jailrun-worker@$i.service
	start=$(prop "$u" ExecMainStartTimestampMonotonic)
	ready=$(prop "$u" ActiveEnterTimestampMonotonic)
	line=$(grep 'sd_notify: READY=1' "$H/log/$i.log" | tail -n 1)
	verified=$(sed -n 's/.*ruleset verified at monotonic \([0-9]*\) us.*/\1/p' <<<"$line")
	started=$(sed -n 's/.*command started at \([0-9]*\) us.*/\1/p' <<<"$line")
	if [ -n "$verified" ] && [ -n "$started" ] && [ "$start" -lt "$verified" ] &&
		[ "$verified" -le "$started" ] && [ "$started" -le "$ready" ]; then
		ok "$u: exec $start, ruleset verified $verified, command started $started, READY $ready (monotonic us)"
	else
		fail "$u: READY not after the lockdown: exec $start verified '$verified' started '$started' READY $ready; log: $line"
	fi
done

# ------------------------------------------------- 3. a command killed
printf "step 3 (a command killed) at %ss\n" "$SECONDS"
u=jailrun-worker@2.service
old=$(prop "$u" MainPID)
cmd_pid=$(pgrep -f "^$TAG-worker-2( |\$)" || true)
if [ -z "$cmd_pid" ]; then
	fail "worker 2's command not found"
else
	# Left by this run: the next start must not find it.
	echo stale >"/proc/$SD_PID/root/run/jailrun/2/left-by-the-last-task"
	kill -KILL "$cmd_pid"
	restarted() {
		[ "$(prop "$u" NRestarts)" = 1 ] && [ "$(prop "$u" ActiveState)" = active ] &&
			local p && p=$(prop "$u" MainPID) && [ "$p" != "$old" ] && [ "$p" != 0 ]
	}
	if wait_until "$WAIT" restarted; then
		ok "$u: command killed, unit restarted (NRestarts 1, MainPID $old -> $(prop "$u" MainPID))"
	else
		fail "$u not restarted: NRestarts $(prop "$u" NRestarts), $(prop "$u" ActiveState), MainPID $(prop "$u" MainPID)"
	fi
	r=/proc/$SD_PID/root/run/jailrun/2
	if wait_until "$WAIT" test -s "$r/ready" && [ ! -e "$r/left-by-the-last-task" ]; then
		ok "$u: the restarted worker has a fresh working directory (the last task's file is gone)"
	else
		fail "$u: the restarted worker's working directory: $(ls -a "$r" 2>&1 | tr '\n' ' ')"
	fi
fi

# ------------------------------------------------------ 4. the watchdog
printf "step 4 (the watchdog) at %ss\n" "$SECONDS"
u=jailrun-worker@3.service
w0=$(prop "$u" WatchdogTimestampMonotonic)
pinged() { local w; w=$(prop "$u" WatchdogTimestampMonotonic) && [ "$w" -gt "$w0" ]; }
if wait_until "$WAIT" pinged; then
	ok "$u: WATCHDOG=1 pings arrive (WatchdogTimestamp $w0 -> $(prop "$u" WatchdogTimestampMonotonic)), timeout $(prop "$u" WatchdogUSec)"
else
	fail "$u: no watchdog ping seen"
fi
status=$(prop "$u" StatusText)
if grep -qE 'connections? allowed, [0-9]+ denied' <<<"$status"; then
	ok "$u: STATUS= '$status'"
else
	fail "$u: STATUS= lacks the counts: '$status'"
fi
old=$(prop "$u" MainPID)
# MainPID is a pid of the container's namespace: signal the host pid.
runner=$(host_pid "$old")
[ -n "$runner" ] || { fail "$u: no host pid for MainPID $old"; exit 1; }
kill -STOP "$runner"
by_watchdog() { [ "$(prop "$u" Result)" = watchdog ]; }
t0=$SECONDS
if wait_until "$WAIT" by_watchdog; then
	ok "$u: runner stopped, systemd's watchdog fired (Result=watchdog) after ~$((SECONDS - t0)) s"
else
	fail "$u: watchdog did not fire: Result $(prop "$u" Result), $(prop "$u" ActiveState)"
	kill -CONT "$old" 2>/dev/null || true
fi
restarted() {
	[ "$(prop "$u" NRestarts)" = 1 ] && [ "$(prop "$u" ActiveState)" = active ] &&
		local p && p=$(prop "$u" MainPID) && [ "$p" != "$old" ] && [ "$p" != 0 ]
}
if wait_until "$WAIT" restarted; then
	ok "$u: restarted after the watchdog (MainPID $old -> $(prop "$u" MainPID)), ~$((SECONDS - t0)) s after SIGSTOP"
else
	fail "$u not restarted after the watchdog: NRestarts $(prop "$u" NRestarts), $(prop "$u" ActiveState)"
fi

# ---------------------------------------- 5. hardening and exit 125
printf "step 5 (hardening and exit 125) at %ss\n" "$SECONDS"
u=jailrun-worker@rns.service
sctl start "$u" >/dev/null 2>&1 || true
failed() { [ "$(prop "$u" ActiveState)" = failed ]; }
if wait_until "$WAIT" failed && [ "$(prop "$u" ExecMainStatus)" = 125 ] &&
	[ "$(prop "$u" NRestarts)" = 0 ]; then
	ok "$u (RestrictNamespaces=yes): jailrun refused with 125, not restarted: $(grep -m1 -i namespace "$H/log/rns.log" 2>&1 || ls "$H/log")"
else
	fail "$u: $(prop "$u" ActiveState), status $(prop "$u" ExecMainStatus), NRestarts $(prop "$u" NRestarts)"
fi
for p in NoNewPrivileges CapabilityBoundingSet ProtectSystem ProtectHome PrivateDevices RestrictAddressFamilies RestrictNamespaces SystemCallFilter; do
	v=$(prop jailrun-worker@1.service "$p" | cut -c1-60)
	echo "  worker 1 runs with $p=$v"
done
for i in 1 4; do
	r=/proc/$SD_PID/root/run/jailrun/$i
	if [ ! -s "$r/inherited-env" ]; then
		ok "worker $i: the command has no NOTIFY_SOCKET or WATCHDOG_*"
	else
		fail "worker $i: the command inherited $(cat "$r/inherited-env")"
	fi
	# ls's own: 0-2 and the directory it reads (3).
	if [ "$(tr '\n' ' ' <"$r/inherited-fds")" = "0 1 2 3 " ]; then
		ok "worker $i: the command inherited no descriptor"
	else
		fail "worker $i: the command's descriptors: $(tr '\n' ' ' <"$r/inherited-fds")"
	fi
done

# ---------------------------------------------------- 6. stop the pool
printf "step 6 (stop the pool) at %ss\n" "$SECONDS"
if sctl stop jailrun-pool.target; then ok "jailrun-pool.target stopped"; else fail "stopping jailrun-pool.target failed"; fi
# in_container - the host pids of the container's processes but its init
# (one stat(1) for every process: a process per pid is slow on a busy host).
in_container() {
	local ino
	ino=$(stat -L -c %i "/proc/$SD_PID/ns/pid")
	stat -L -c '%i %n' /proc/[0-9]*/ns/pid 2>/dev/null |
		awk -v i="$ino" -v s="/proc/$SD_PID/ns/pid" '$1 == i && $2 != s { split($2, a, "/"); print a[3] }'
	return 0
}
no_processes() { [ -z "$(in_container)" ]; }
if wait_until "$WAIT" no_processes; then
	ok "no process left in the container but its init"
else
	fail "processes left: $(for p in $(in_container); do tr '\0' ' ' <"/proc/$p/cmdline"; echo; done)"
fi
for i in 1 2 3 4; do
	u=jailrun-worker@$i.service
	j=/proc/$SD_PID/root/var/log/jailrun/$i.json
	l=/proc/$SD_PID/root/var/log/jailrun/$i.log
	if [ "$(prop "$u" ActiveState)" = inactive ] && grep -q '"rules_verified": *true' "$j" 2>/dev/null; then
		ok "$u inactive, its summary says the rules were verified"
	else
		fail "$u: $(prop "$u" ActiveState); summary: $(head -c 300 "$j" 2>/dev/null)"
	fi
	# UMask=0077: neither names hosts and paths to other accounts.
	modes="$(stat -c %a "$j" 2>&1) $(stat -c %a "$l" 2>&1)"
	if [ "$modes" = "600 600" ] && grep -q '"sandbox starting"' "$l"; then
		ok "$u: summary and audit log in /var/log/jailrun, mode 0600 (UMask=0077), the log has the run"
	else
		fail "$u: summary and audit log modes '$modes', log: $(head -c 300 "$l" 2>&1)"
	fi
	if [ ! -e "/proc/$SD_PID/root/run/jailrun/$i" ]; then
		ok "$u: its working directory was removed at the stop"
	else
		fail "$u: its working directory is left: $(ls -a "/proc/$SD_PID/root/run/jailrun/$i" | tr '\n' ' ')"
	fi
	# jailrun's own measure, main() to the command's start, taken from the
	# exec systemd recorded, must end before systemd saw READY (both of
	# the last run).
	total=$(python3 -c 'import json,sys; print(json.load(open(sys.argv[1]))["startup_us"]["total"])' "$j" 2>/dev/null || true)
	start=$(prop "$u" ExecMainStartTimestampMonotonic)
	ready=$(prop "$u" ActiveEnterTimestampMonotonic)
	if [ -n "$total" ] && [ "$total" -gt 0 ] && [ $((start + total)) -le "$ready" ]; then
		ok "$u: exec $start + start-up $total us (summary) <= READY $ready"
	else
		fail "$u: start-up total '$total' us from exec $start ends after READY $ready"
	fi
done
nsfs=$(awk '$9 == "nsfs" { print $5 }' "/proc/$SD_PID/mountinfo")
tables=$(nsenter -t "$SD_PID" -n nft list tables 2>&1 || true)
nets=$(for p in $SD_PID $(in_container); do readlink "/proc/$p/ns/net"; done | sort -u | wc -l)
if [ -z "$nsfs" ] && [ -z "$tables" ] && [ "$nets" = 1 ]; then
	ok "no network namespace (none pinned, $nets in use: the container's own) and no nft table left"
else
	fail "left behind: nsfs mounts '$nsfs', tables '$tables', $nets netns in use"
fi
# The container and its cgroups go in teardown, checked there; it prints
# the plan (finish).
