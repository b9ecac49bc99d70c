#!/bin/bash
# A real Slurm with the SPANK plugin (contrib/slurm/spank_jailrun.so):
# munged, slurmctld and slurmd from Debian (slurm-wlm, munge), one node,
# booted in a container this test makes itself.
#
# The container: new PID, mount, UTS and IPC namespaces (unshare) inside
# the lab's client network namespace (tests/lab), so the lab's hosts are
# reachable from where slurmd runs and the daemons' ports are the lab's,
# not the host's. Private tmpfs on /run, /tmp, /var/tmp, /var/spool,
# /var/log, /var/lib/munge and /var/lib/slurm, and on /etc/slurm and
# /etc/munge (the daemons' own configuration and key), checked before any
# daemon starts; the host's tree is read-only in it. The daemons run as
# root (SlurmUser=root, munged --force); the jobs run as nobody, and
# jailrun under them rootless. No cgroup is made: ProctrackType is
# proctrack/linuxproc (a cgroup hierarchy for Slurm would be the host's),
# which is also what kills a step's whole process tree at scancel. No
# slurmdbd either (it needs a MySQL server): the exit codes are read from
# jobcomp/filetxt, the job completion log, and `scontrol show job`; sacct
# reads the same record from slurmdbd on a real cluster.
#
# In it:
#  1. an array of 20 tasks (sbatch --array, srun in each, the plugin's
#     --jail-allow and --jail-json): the even tasks reach allowed.test, the
#     odd ones are refused denied.test; checked from each task's JSON
#     summary (named JOB_ARRAYTASK.STEP.TASK.json) and the lab's web log.
#     Fails if a task runs outside jailrun, or the allowlist is not the
#     one given;
#  2. a task that exits 3: the job's ExitCode is 3:0 and its state
#     FAILED. Fails if jailrun or the helper hides the command's status;
#  3. a policy error (--jail-net with a bad value is refused by srun
#     before submitting; a --jail-allow entry jailrun refuses gives 125 in
#     the job's ExitCode). Fails if a bad policy runs the task anyway;
#  4. scancel of a running step: no process, network namespace, nft table
#     or mount of it is left;
#  5. without --jail-*, a task runs as it would without the plugin.
# At the end the container goes, and the host is checked: its mounts, its
# /tmp canary, no process of the test left. Bounded waits only.
. "${JR_TOP_SRCDIR:-$(dirname "$0")/../..}/tests/lib.sh"
. "$JR_TOP_SRCDIR/tests/lab/lib.sh"
[ "$(id -u)" -eq 0 ] || skip "slurmd and slurmctld need root (the jobs run rootless)"
[ "$JR_ASAN" = 0 ] || skip "a sanitizer build's spank_jailrun.so cannot load into slurmstepd (which has no ASan runtime)"
jr_require_sandbox
for t in slurmctld slurmd munged sbatch srun scontrol scancel unshare nsenter findmnt; do
	command -v "$t" >/dev/null || skip "$t is needed: apt-get install slurm-wlm munge (contrib/dev.sh deps)"
done
SO=$JR_TOP_BUILDDIR/spank_jailrun.so
EXEC=$JR_TOP_BUILDDIR/jailrun-slurm-exec
[ -f "$SO" ] && [ -x "$EXEC" ] || skip "spank_jailrun.so was not built: apt-get install libslurm-dev, then re-run configure"

WAIT=60
H=$JR_TMP/slurm
C=/mnt/jrslurm
mkdir -p "$H/json" "$H/work" "$H/home"
chmod 755 "$H"
chmod 1777 "$H/json" "$H/work"
chown nobody "$H/home"
install -m 755 "$SO" "$H/spank_jailrun.so"
install -m 755 "$EXEC" "$H/jailrun-slurm-exec"
install -m 755 "$JR" "$H/jailrun"
CANARY=$(mktemp /tmp/jailrun-slurm-canary.XXXXXX)
echo "jrslurm$$" >"$CANARY"
INIT=
UNSHARE_PID=
lab_setup --timeout 600 slurm

host_mounts() {
	awk '{ t = ""; for (i = 7; i < NF; i++) if ($i == "-") { t = $(i + 1); break } }
		t != "nsfs" && $5 !~ "^/run/netns(/|$)" { print $5, t }' /proc/self/mountinfo | LC_ALL=C sort
}
host_mounts >"$H/mounts-before"

# in_container - the host pids of the container's processes but its init.
in_container() {
	local ino
	ino=$(stat -L -c %i "/proc/$INIT/ns/pid")
	stat -L -c '%i %n' /proc/[0-9]*/ns/pid 2>/dev/null |
		awk -v i="$ino" -v s="/proc/$INIT/ns/pid" '$1 == i && $2 != s { split($2, a, "/"); print a[3] }'
	return 0
}
# cx CMD... - CMD in the container, as root; cxu CMD... - as nobody, with
# the environment a job is submitted from.
cx() { timeout -k 5 "$WAIT" nsenter -t "$INIT" -m -u -i -n -p -- "$@"; }
cxu() {
	cx setpriv --reuid=nobody --regid="$(id -g nobody)" --clear-groups -- \
		env -i -C "$C/work" PATH=/usr/bin:/bin HOME="$C/home" "$@"
}
container_gone() { ! kill -0 "$UNSHARE_PID" 2>/dev/null; }

teardown() {
	local st=$? left
	trap - EXIT
	set +e
	if [ "$JR_FAILURES" != 0 ] && [ -n "$INIT" ]; then
		for f in slurmctld slurmd; do
			tap_diag "--- $f.log:"$'\n'"$(tail -n 20 "/proc/$INIT/root/var/log/slurm/$f.log" 2>&1)"
		done
	fi
	if [ -n "$UNSHARE_PID" ]; then
		# SIGKILL to the container's init takes its PID namespace down.
		[ -z "$INIT" ] || kill -KILL "$INIT" 2>/dev/null
		wait_until 30 container_gone || tap_diag "the container did not go away"
		if pgrep -f "$H/" >/dev/null; then
			fail "processes of the test are left: $(pgrep -af "$H/")"
		else
			ok "no process of the container is left"
		fi
	fi
	if [ "$(cat "$CANARY" 2>/dev/null)" = "jrslurm$$" ]; then
		ok "the canary in the host's /tmp is unchanged"
	else
		fail "the canary in the host's /tmp is gone or changed"
	fi
	rm -f "$CANARY"
	left=$(host_mounts | LC_ALL=C comm -3 "$H/mounts-before" -)
	if [ -z "$left" ]; then ok "the host's mounts are as they were"; else fail "the host's mounts changed: $left"; fi
	[ "$JR_FAILURES" = 0 ] || st=1
	[ "$st" = 0 ] || [ ! -f "$H/init.log" ] || tap_diag "--- init:"$'\n'"$(tail -n 20 "$H/init.log")"
	finish
	jr_cleanup_tmp
	exit "$st"
}
lab_on_exit teardown

# ------------------------------------------------------------ container
NODE=jrnode
cat >"$H/slurm.conf" <<EOF
ClusterName=jailrun-test
SlurmctldHost=$NODE(127.0.0.1)
SlurmUser=root
SlurmdUser=root
AuthType=auth/munge
StateSaveLocation=/var/spool/slurmctld
SlurmdSpoolDir=/var/spool/slurmd
SlurmctldPidFile=/run/slurm/slurmctld.pid
SlurmdPidFile=/run/slurm/slurmd.pid
SlurmctldLogFile=/var/log/slurm/slurmctld.log
SlurmdLogFile=/var/log/slurm/slurmd.log
SlurmctldDebug=info
SlurmdDebug=info
ProctrackType=proctrack/linuxproc
TaskPlugin=task/none
SelectType=select/cons_tres
SelectTypeParameters=CR_CPU
SchedulerType=sched/builtin
SlurmdParameters=config_overrides
ReturnToService=2
AccountingStorageType=accounting_storage/none
JobCompType=jobcomp/filetxt
JobCompLoc=/var/log/slurm/jobcomp.txt
JobAcctGatherType=jobacct_gather/none
PlugStackConfig=/etc/slurm/plugstack.conf
MpiDefault=none
MailProg=/bin/true
KillWait=5
NodeName=$NODE NodeAddr=127.0.0.1 CPUs=24 RealMemory=1000 State=UNKNOWN
PartitionName=test Nodes=$NODE Default=YES MaxTime=10 State=UP OverSubscribe=NO
EOF
{ cat /etc/hosts; echo "127.0.0.1 $NODE"; } >"$H/hosts"
printf 'required %s/spank_jailrun.so jailrun=%s/jailrun exec=%s/jailrun-slurm-exec\n' \
	"$C" "$C" "$C" >"$H/plugstack.conf"

cat >"$H/init.sh" <<'EOF'
#!/bin/bash
# PID 1 of the container: private mounts, then the three daemons.
set -euo pipefail
H=$1 C=$2 NODE=$3
exec 9<"$H"
mount --make-rprivate /
mount -t proc proc /proc
for d in /run /tmp /var/tmp /var/spool /var/log /etc/slurm /etc/munge /var/lib/munge; do
	[ -d "$d" ] || { echo "$d is missing on the host (is slurm-wlm installed?)" >&2; exit 1; }
	mount -t tmpfs -o mode=0755,nosuid,nodev tmpfs "$d"
done
chmod 1777 /tmp /var/tmp
# ip netns exec gave the lab's namespace a fresh sysfs, with nothing on
# /sys/fs/cgroup; slurmd's cgroup/v1 only checks that a cgroup file system is mounted at
# /sys/fs/cgroup/systemd (proctrack/linuxproc and task/none use no
# cgroup). A new named hierarchy of no controller, not the host's: it
# holds nothing, and the kernel frees it when this mount namespace goes.
mount -t tmpfs -o mode=0755,nosuid,nodev,noexec tmpfs /sys/fs/cgroup
mkdir /sys/fs/cgroup/systemd
mount -t cgroup -o none,name=jailrun-slurm-test-$$ cgroup /sys/fs/cgroup/systemd
chmod 0700 /etc/munge /var/lib/munge
mkdir -p "$C"
mount --bind /proc/self/fd/9 "$C"
exec 9<&-
cp "$C/slurm.conf" "$C/plugstack.conf" /etc/slurm/
# The node's name resolves without DNS (munged, slurmctld and slurmd look
# it up); the host's /etc/hosts is not changed.
mount --bind "$C/hosts" /etc/hosts
head -c 1024 /dev/urandom >/etc/munge/munge.key
chmod 0400 /etc/munge/munge.key
mkdir -p /run/munge /var/log/munge /var/log/slurm /run/slurm /var/spool/slurmctld /var/spool/slurmd
chmod 0711 /run/munge
# The host's tree read-only: /etc, /var and /usr stay as they are.
mount -o remount,bind,ro /
hostname "$NODE"
for m in /run /tmp /var/tmp /var/spool /var/log /etc/slurm /etc/munge /var/lib/munge; do
	[ "$(findmnt -n -o FSTYPE --mountpoint "$m")" = tmpfs ] || { echo "$m is not a private tmpfs" >&2; exit 1; }
done
if touch /etc/.jailrun-test-probe 2>/dev/null; then echo "/etc is writable" >&2; exit 1; fi
munged --force
# In the foreground, children of this init: nothing of theirs outlives it.
slurmctld -D >/var/log/slurm/slurmctld.out 2>&1 &
slurmd -D >/var/log/slurm/slurmd.out 2>&1 &
touch "$C/daemons-started"
# Reap orphans until the test kills this init.
while :; do wait -n 2>/dev/null || sleep 1; done
EOF
chmod 755 "$H/init.sh"

ip netns exec "$LAB_HOST_NS" unshare --pid --fork --mount --uts --ipc \
	"$H/init.sh" "$H" "$C" "$NODE" >"$H/init.log" 2>&1 &
UNSHARE_PID=$!
init_found() { INIT=$(pgrep -P "$UNSHARE_PID" || true); [ -n "$INIT" ]; }
wait_until "$WAIT" init_found || { fail "the container's init never appeared: $(cat "$H/init.log")"; exit 1; }
wait_until "$WAIT" test -e "$H/daemons-started" || { fail "the container's set-up failed: $(cat "$H/init.log")"; exit 1; }
node_idle() { cx sinfo -h -n "$NODE" -o %t 2>/dev/null | grep -qx idle; }
if wait_until "$WAIT" node_idle; then
	ok "munged, slurmctld and slurmd $(slurmd -V | cut -d' ' -f2) up in the container; node $NODE idle"
else
	fail "the node never became idle: $(cx sinfo 2>&1)"
	exit 1
fi
