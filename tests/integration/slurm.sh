#!/bin/bash
# A real Slurm with the SPANK plugin (contrib/slurm/spank_jailrun.so):
# munged, slurmctld and slurmd from Debian (slurm-wlm, munge), one node,
# booted in a container this test makes itself.
#
# The container: new PID, mount, UTS and IPC namespaces (unshare) inside
# the lab's client network namespace (tests/lab), so the lab's hosts are
# reachable from where slurmd runs and the daemons' ports are the lab's,
# not the host's. Private tmpfs on /run, /tmp, /var/tmp, /var/spool,
# /var/log and /var/lib/munge, and on /etc/slurm and /etc/munge (the
# daemons' own configuration and key), checked before any daemon starts;
# a private /etc/hosts naming the node; the host's tree read-only. The
# daemons run as root (SlurmUser=root, munged --force); the jobs run as
# nobody, and jailrun under them rootless. No cgroup is made:
# ProctrackType is proctrack/linuxproc (a cgroup hierarchy for Slurm would
# be the host's), which is also what kills a step's whole process tree at
# scancel; slurmd only needs a cgroup file system at
# /sys/fs/cgroup/systemd, which is a new, empty named hierarchy. No
# slurmdbd either (it needs a MySQL server): the exit codes are read from
# jobcomp/filetxt, the job completion log, by `sacct -c` and `scontrol show
# job`; sacct without -c reads the same record from slurmdbd on a cluster.
#
# It takes about 90 s, most of it waiting for the time limit of step 7
# (slurmctld checks time limits every 30 s; the shortest limit is a
# minute); the other steps take about 15 s.
#
# In it:
#  1. an array of 20 tasks (sbatch --array, srun in each, the plugin's
#     --jail-allow, --jail-json and --jail-log): the even tasks reach
#     allowed.test, the odd ones are refused denied.test; checked from each
#     task's JSON
#     summary and audit log (JOB_ARRAYTASK.STEP.TASK.json and .log, each
#     labelled with the task) and the lab's web log.
#     Fails if a task runs outside jailrun, or the allowlist is not the
#     one given;
#  2. a task that exits 3: the job's ExitCode is 3:0 and its state
#     FAILED. Fails if jailrun or the helper hides the command's status;
#  3. a policy error (--jail-net with a bad value is refused by srun
#     before submitting; a --jail-allow entry jailrun refuses gives 125 in
#     the job's ExitCode). Fails if a bad policy runs the task anyway.
#     srun --multi-prog, which the plugin cannot wrap, is refused, and a
#     task whose command is not executable fails closed (125);
#  4. scancel of a running step (and, in 7, a step past its time limit):
#     none of its processes is left, nor its network namespace (where its
#     relay and nft table live), nor a mount;
#  5. without --jail-*, a task runs as it would without the plugin;
#  6. the recipe without the plugin, contrib/slurm/jailrun-array.sbatch,
#     as an array of 4: a harness on the node reaches task 0's server in
#     its sandbox through --publish, tasks 1 and 2 are refused and reach
#     as allowed, task 3's exit 3 is its job's ExitCode; a summary and an
#     audit log per task;
#  7. the time limit's step (started first, checked as in 4); then the
#     node fails during a step: every process of the container SIGKILLed
#     at once; no process, network namespace, link or nft table of the
#     sandbox is left in the lab's namespace.
# At the end the container goes, and the host is checked: its mounts, its
# sysctls, its /tmp canary, no process of the test left. Bounded waits
# only.
. "${JR_TOP_SRCDIR:-$(dirname "$0")/../..}/tests/lib.sh"
. "$JR_TOP_SRCDIR/tests/lab/lib.sh"
[ "$(id -u)" -eq 0 ] || skip "slurmd and slurmctld need root (the jobs run rootless)"
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
# sysctl_snapshot - the host's kernel settings root can read (fs, kernel,
# vm, the host network namespace's net.core and net.unix, user), but the
# counters the kernel moves by itself (as in systemd.sh).
SYSCTL_VOLATILE='^/proc/sys/(fs/(dentry-state|inode-nr|inode-state|file-nr|aio-nr|quota/.*)|kernel/(ns_last_pid|random/(uuid|entropy_avail)|pty/nr|hung_task_detect_count|perf_event_max_sample_rate)):'
sysctl_snapshot() {
	{ grep -rs '' /proc/sys/fs /proc/sys/kernel /proc/sys/vm /proc/sys/net/core \
		/proc/sys/net/unix /proc/sys/user || true; } | grep -vE "$SYSCTL_VOLATILE" | LC_ALL=C sort
}
sysctl_snapshot >"$H/sysctl-before"

# descendants [ROOT] - the host pids of every process under ROOT (default:
# the container's init), the sandboxes' included (they have PID namespaces
# of their own).
descendants() {
	ps -e -o pid=,ppid= | awk -v r="${1:-$INIT}" '{ kids[$2] = kids[$2] " " $1 }
		END { todo = r; while (todo != "") { split(todo, a, " "); todo = ""
			for (i in a) { n = split(kids[a[i]], k, " ")
				for (j = 1; j <= n; j++) { print k[j]; todo = todo " " k[j] } } } }'
}
# cx CMD... - CMD in the container, as root; cxu CMD... - as nobody, with
# the environment a job is submitted from.
cx() { timeout -k 5 "$WAIT" nsenter -t "$INIT" -m -u -i -n -p -- "$@"; }
# A sanitizer build's jailrun: LeakSanitizer's exit check would turn the
# exit statuses under test into its own (the rest of the suite finds leaks).
CX_ENV=(PATH=/usr/bin:/bin HOME="$C/home")
[ "$JR_ASAN" = 0 ] || CX_ENV+=(ASAN_OPTIONS=detect_leaks=0)
cxu() {
	cx setpriv --reuid=nobody --regid="$(id -g nobody)" --clear-groups -- \
		env -i -C "$C/work" "${CX_ENV[@]}" "$@"
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
		# Step 7 took the node down already: its processes then.
		pids=${NODE_PIDS:-}
		[ -z "$INIT" ] || ! kill -0 "$INIT" 2>/dev/null || pids="$INIT $(descendants)"
		# SIGKILL to the container's init takes its PID namespace down.
		[ -z "$INIT" ] || kill -KILL "$INIT" 2>/dev/null
		wait_until 30 container_gone || tap_diag "the container did not go away"
		none_left() { local p; for p in $pids; do ! kill -0 "$p" 2>/dev/null || return 1; done; }
		if wait_until 30 none_left; then
			ok "no process of the container is left ($(wc -w <<<"$pids") were running)"
		else
			fail "processes of the container are left: $(for p in $pids; do ps -o pid=,args= -p "$p"; done)"
		fi
	fi
	# The named cgroup hierarchy made for slurmd goes with its last mount.
	hierarchy_gone() { ! grep -q "name=jailrun-slurm-test-$$:" /proc/self/cgroup; }
	if wait_until 30 hierarchy_gone; then
		ok "the container's named cgroup hierarchy is gone"
	else
		fail "the named cgroup hierarchy jailrun-slurm-test-$$ is left: $(grep jailrun-slurm-test /proc/self/cgroup)"
	fi
	if [ "$(cat "$CANARY" 2>/dev/null)" = "jrslurm$$" ]; then
		ok "the canary in the host's /tmp is unchanged"
	else
		fail "the canary in the host's /tmp is gone or changed"
	fi
	rm -f "$CANARY"
	left=$(host_mounts | LC_ALL=C comm -3 "$H/mounts-before" -)
	if [ -z "$left" ]; then ok "the host's mounts are as they were"; else fail "the host's mounts changed: $left"; fi
	left=$(sysctl_snapshot | LC_ALL=C comm -3 "$H/sysctl-before" -)
	if [ -z "$left" ]; then
		ok "no host sysctl changed ($(wc -l <"$H/sysctl-before") compared)"
	else
		fail "host sysctls changed (left: before, right: now): $left"
	fi
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
H=$1 C=$2 NODE=$3 TAG=$4
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
mount -t cgroup -o none,name=jailrun-slurm-test-$TAG cgroup /sys/fs/cgroup/systemd
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
# From /, which every job's user can enter (slurmstepd returns to its
# working directory as the user).
cd /
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
	"$H/init.sh" "$H" "$C" "$NODE" "$$" >"$H/init.log" 2>&1 &
UNSHARE_PID=$!
init_found() { INIT=$(pgrep -P "$UNSHARE_PID" || true); [ -n "$INIT" ]; }
wait_until "$WAIT" init_found || { fail "the container's init never appeared: $(cat "$H/init.log")"; exit 1; }
wait_until "$WAIT" test -e "$H/daemons-started" || { fail "the container's set-up failed: $(cat "$H/init.log")"; exit 1; }
node_idle() { grep -qx idle <<<"$(cx sinfo -h -n "$NODE" -o %t 2>/dev/null)"; }
if wait_until "$WAIT" node_idle; then
	ok "munged, slurmctld and slurmd $(slurmd -V | cut -d' ' -f2) up in the container; node $NODE idle"
else
	fail "the node never became idle: $(cx sinfo 2>&1)"
	exit 1
fi
# Submitted from inside the container, as nobody.
cx nft list tables >"$H/tables-before" 2>&1 || true
# job_field JOB FIELD - FIELD (JobState, ExitCode) of JOB in the job
# completion log, the record sacct would read from slurmdbd.
job_field() {
	awk -v j="$1" -v f="$2" '{ id = ""; v = ""
		for (i = 1; i <= NF; i++) { split($i, kv, "=")
			if (kv[1] == "JobId") id = kv[2]
			if (kv[1] == f) v = substr($i, length(f) + 2) }
		if (id == j) print v }' "/proc/$INIT/root/var/log/slurm/jobcomp.txt" 2>/dev/null | tail -n 1
}
job_done() { [ -n "$(job_field "$1" JobState)" ]; }

# container_mounts - the container's mount points, but the network
# namespaces that the labs of tests running beside this one add and remove
# under /run/netns (they reach the container's copy of the host's mounts).
container_mounts() { awk '$5 !~ "^/run/netns(/|$)" { print $5 }' "/proc/$INIT/mountinfo" | sort; }
MOUNTS_BEFORE=$(container_mounts)
# For step 4: a job with a time limit of one minute, which it outlives.
jt=$(cxu sbatch --parsable --time=1 --jail-allow=allowed.test -o "$C/work/timelimit.out" \
	--wrap "srun bash -c 'echo up >$C/work/timelimit-ready; exec sleep 600'" 2>&1) ||
	fail "sbatch (to time out): $jt"

# -------------------------------------------------- 1. an array of 20
printf "step 1 (an array of 20 tasks) at %ss\n" "$SECONDS"
cat >"$H/task.sh" <<'EOF2'
#!/bin/bash
# Even tasks reach allowed.test, odd ones try denied.test; PID 1 says
# whether the task is in a jailrun sandbox.
i=$SLURM_ARRAY_TASK_ID
if [ $((i % 2)) = 0 ]; then host=allowed.test; else host=denied.test; fi
if curl -sSf -m 20 -o /dev/null "http://$host/slurm-$i" 2>/dev/null; then r=reached; else r=refused; fi
echo "task $i $host $r pid1=$(cat /proc/1/comm) uid=$(id -u)"
EOF2
chmod 755 "$H/task.sh"
lab_logs_clear
aj=$(cxu sbatch --parsable --array=0-19 --jail-allow=allowed.test --jail-json="$C/json" --jail-log="$C/json" \
	-o "$C/work/array-%a.out" --wrap "srun $C/task.sh" 2>&1) || { fail "sbatch --array: $aj"; exit 1; }
array_done() { [ "$(awk -v j="$aj" '$0 ~ "JobId=" j "_" || $0 ~ "ArrayJobId=" j " " { n++ } END { print n + 0 }' \
	"/proc/$INIT/root/var/log/slurm/jobcomp.txt" 2>/dev/null)" -ge 20 ]; }
wait_until 120 array_done || fail "the array job $aj did not finish: $(cx squeue 2>&1 | head)"
n_sum=0 n_ok=0 n_reached=0 n_refused=0 bad=
for i in $(seq 0 19); do
	j=$H/json/${aj}_$i.0.0.json
	[ -s "$j" ] || { bad="$bad task $i: no summary ${j##*/};"; continue; }
	n_sum=$((n_sum + 1))
	line=$(python3 - "$j" "$i" <<'EOF2'
import json, sys
d = json.load(open(sys.argv[1])); i = int(sys.argv[2])
n = d["network"]; p = d["policy"]
want_allowed, want_denied = (1, 0) if i % 2 == 0 else (0, 1)
name = sys.argv[1].rsplit("/", 1)[1][:-len(".json")]
log = [json.loads(l) for l in open(sys.argv[1][:-len(".json")] + ".log")]
good = (d["exit_status"] == 0 and d["user"]["rootless"] and n["rules_verified"]
        and d["label"] == "slurm " + name and log and all(l.get("label") == d["label"] for l in log)
        and any(l.get("event") == "connection" for l in log)
        and p["allow"] == ["allowed.test"] and n["allowed"] == want_allowed
        and n["denied"] == want_denied)
print("good" if good else "bad exit %s rootless %s allowed %s denied %s allow %s label %s, %d log lines" % (
    d["exit_status"], d["user"]["rootless"], n["allowed"], n["denied"], p["allow"], d["label"], len(log)))
EOF2
	)
	[ "$line" = good ] && n_ok=$((n_ok + 1)) || bad="$bad task $i: $line;"
	out=$(cat "$H/work/array-$i.out" 2>/dev/null)
	case $out in
	*" allowed.test reached pid1=jailrun-init uid=$JR_NOBODY_UID"*) n_reached=$((n_reached + 1)) ;;
	*" denied.test refused pid1=jailrun-init uid=$JR_NOBODY_UID"*) n_refused=$((n_refused + 1)) ;;
	*) bad="$bad task $i output: $out;" ;;
	esac
done
if [ "$n_sum" = 20 ] && [ "$n_ok" = 20 ]; then
	ok "array $aj: 20 JSON summaries and audit logs (JOB_TASK.STEP.TASK.json and .log, labelled 'slurm JOB_TASK.STEP.TASK'), each rootless, rules verified, allow [allowed.test], 1 allowed (even) or 1 denied (odd)"
else
	fail "array $aj: $n_sum summaries, $n_ok as expected:$bad"
fi
if grep -q '^jailrun (Slurm plugin): the batch script itself runs outside jailrun' "$H/work/array-0.out"; then
	ok "array $aj: the batch script says that it is not sandboxed itself, its srun steps are"
else
	fail "array $aj: no notice that the batch script is outside jailrun: $(cat "$H/work/array-0.out")"
fi
if [ "$n_reached" = 10 ] && [ "$n_refused" = 10 ]; then
	ok "array $aj: 10 tasks reached allowed.test, 10 were refused denied.test, each in a sandbox (PID 1 jailrun-init) as nobody"
else
	fail "array $aj: $n_reached reached, $n_refused refused:$bad"
fi
served=$(awk '$2 == "allowed.test" && $6 ~ "^/slurm-" { n++ } END { print n + 0 }' "$LAB_WEBLOG")
if [ "$served" = 10 ] && ! lab_web_served denied.test; then
	ok "the lab's web log: allowed.test served the 10 even tasks, denied.test nothing"
else
	fail "the lab's web log: allowed.test served $served, denied.test: $(grep -c ' denied.test ' "$LAB_WEBLOG" || true)"
fi

# --------------------------------------------- 2. a task that exits 3
printf "step 2 (exit 3) at %ss\n" "$SECONDS"
# srun --parsable is not an option: the job id is in the task's environment.
set +e
out=$(cxu srun -n 1 --jail-net=none --jail-json="$C/json" bash -c 'echo "job $SLURM_JOB_ID"; exit 3' 2>&1)
st=$?
set -e
j3=$(sed -n 's/^job \([0-9]*\)$/\1/p' <<<"$out")
if [ "$st" = 3 ] && [ -n "$j3" ] && wait_until "$WAIT" job_done "$j3" &&
	[ "$(job_field "$j3" ExitCode)" = 3:0 ] && [ "$(job_field "$j3" JobState)" = FAILED ]; then
	ok "a task that exits 3: srun exits 3; job $j3 ExitCode=3:0, JobState=FAILED (job completion log)"
else
	fail "a task that exits 3: srun $st, job '$j3' ExitCode '$(job_field "$j3" ExitCode)' state '$(job_field "$j3" JobState)': $out"
fi
sj=$(cx scontrol show job "$j3" 2>&1 | grep -o 'ExitCode=[0-9:]*' | sed -n 1p)
if [ "$sj" = ExitCode=3:0 ]; then ok "scontrol show job $j3: $sj"; else fail "scontrol show job $j3: '$sj'"; fi
# sacct, as a rig reads it; -c: from the job completion log (no slurmdbd
# here), the record a cluster's accounting keeps too.
sa=$(cx sacct -c -n -P -j "$j3" -o JobID,ExitCode,State 2>&1 | sed -n 1p)
if [ "$sa" = "$j3|3:0|FAILED" ]; then ok "sacct -c -j $j3: $sa"; else fail "sacct -c -j $j3: '$sa'"; fi
if grep -q '"exit_status": *3' "$H/json/$j3.0.0.json" 2>/dev/null; then
	ok "its summary $j3.0.0.json says exit_status 3"
else
	fail "its summary $j3.0.0.json: $(head -c 300 "$H/json/$j3.0.0.json" 2>&1)"
fi

# ------------------------------------------------- 3. policy errors
printf "step 3 (policy errors) at %ss\n" "$SECONDS"
set +e
out=$(cxu srun -n 1 --jail-net=bogus true 2>&1)
st=$?
set -e
if [ "$st" != 0 ] && grep -q "jail-net: 'bogus' is not one of allowlist, none, public" <<<"$out"; then
	ok "srun --jail-net=bogus refused before submitting (status $st): $(head -n 1 <<<"$out")"
else
	fail "srun --jail-net=bogus: status $st: $out"
fi
for bad in "--jail-profile=no-such-profile" "--jail-allow=allowed.test:99999"; do
	set +e
	out=$(cxu srun -n 1 "$bad" bash -c 'echo "job $SLURM_JOB_ID ran"' 2>&1)
	st=$?
	set -e
	if [ "$st" = 125 ] && ! grep -q ' ran$' <<<"$out" && grep -q '^jailrun' <<<"$out"; then
		ok "srun $bad: jailrun refused (srun status 125), the command never ran: $(grep -m1 '^jailrun' <<<"$out")"
	else
		fail "srun $bad: status $st: $out"
	fi
done
# --multi-prog: each task's command comes from a file the plugin cannot
# rewrite, so srun refuses the pair rather than run the tasks unwrapped;
# and a command that is not executable (such a file, had srun's check
# missed it) fails closed in the task.
printf '0 /usr/bin/env\n' >"$H/mp.conf"
set +e
out=$(cxu srun -n 1 --jail-net=none --multi-prog "$C/mp.conf" 2>&1)
st=$?
set -e
if [ "$st" != 0 ] && grep -q 'cannot wrap srun --multi-prog' <<<"$out" && ! grep -q '^PATH=' <<<"$out"; then
	ok "srun --multi-prog with --jail-net refused (status $st), no task ran: $(head -n 1 <<<"$out")"
else
	fail "srun --multi-prog with --jail-net: status $st: $out"
fi
set +e
out=$(cxu srun -n 1 --jail-net=none "$C/mp.conf" 2>&1)
st=$?
set -e
if [ "$st" = 125 ] && grep -q 'not an executable file' <<<"$out"; then
	ok "a task whose command is not executable fails closed (125): $(grep -m1 'not an executable' <<<"$out")"
else
	fail "a task whose command is not executable: status $st: $out"
fi
last=$(awk '{ for (i = 1; i <= NF; i++) if ($i ~ /^JobId=/) { split($i, a, "="); id = a[2] } } END { print id }' \
	"/proc/$INIT/root/var/log/slurm/jobcomp.txt")
if wait_until "$WAIT" job_done "$last" && [ "$(job_field "$last" ExitCode)" = 125:0 ] &&
	[ "$(job_field "$last" JobState)" = FAILED ]; then
	ok "job $last (the refused policy): ExitCode=125:0, JobState=FAILED (job completion log)"
else
	fail "job $last: ExitCode '$(job_field "$last" ExitCode)' state '$(job_field "$last" JobState)'"
fi

# ----------------------------------- 4. scancel and the time limit
printf "step 4 (scancel, and the time limit) at %ss\n" "$SECONDS"
# sandbox_seen KIND JOB - JOB's step 0 runs: its jailrun runner, every
# process under it and their network namespaces, kept in SB_PIDS and
# SB_NETS (the sandbox's, not the lab's) for sandbox_gone.
sandbox_seen() {
	local runner lab
	runner=$(jr_runner_pid "^$C/jailrun .*--label slurm $2\.0\.0 ")
	lab=$(stat -L -c %i "/proc/$INIT/ns/net")
	SB_PIDS="$runner $(descendants "$runner")"
	SB_NETS=$(for p in $SB_PIDS; do stat -L -c %i "/proc/$p/ns/net" 2>/dev/null; done | sort -u | grep -vx "$lab" || true)
	if [ -n "$runner" ] && [ -n "$SB_NETS" ]; then
		ok "$1: job $2 runs under jailrun (runner $runner, $(wc -w <<<"$SB_PIDS") processes, its own network namespace)"
	else
		fail "$1: job $2: runner '$runner', sandbox network namespaces '$SB_NETS'"
	fi
}
# sandbox_gone KIND JOB STATE - after JOB ended in STATE: none of its
# processes is left, no process is in a network namespace of its sandbox
# (nor is one mounted: the container's mounts are as they were; the
# sandbox's nft table and relay live in it), and the lab's nft tables are
# as they were.
sandbox_gone() {
	local p n nets_left mounts tables
	procs_gone() { for p in $SB_PIDS; do ! kill -0 "$p" 2>/dev/null || return 1; done; }
	if ! wait_until 150 job_done "$2" || ! wait_until "$WAIT" procs_gone; then
		fail "$1: job $2 ($(job_field "$2" JobState)): left $(for p in $SB_PIDS; do ps -o args= -p "$p"; done | tr '\n' '|')"
		return
	fi
	nets_left=
	for n in $SB_NETS; do
		! grep -qx "$n" <<<"$(stat -L -c %i /proc/[0-9]*/ns/net 2>/dev/null)" || nets_left="$nets_left $n"
	done
	mounts=$(container_mounts)
	tables=$(cx nft list tables 2>&1 || true)
	if [ "$(job_field "$2" JobState)" = "$3" ] && [ -z "$nets_left" ] &&
		[ "$mounts" = "$MOUNTS_BEFORE" ] && [ "$tables" = "$(cat "$H/tables-before")" ]; then
		ok "$1: job $2 $3; none of its $(wc -w <<<"$SB_PIDS") processes is left, its network namespace is gone, mounts (nsfs included) and the lab's nft tables are as before"
	else
		fail "$1: job $2 $(job_field "$2" JobState); network namespaces left:${nets_left:- none}; mounts changed: $(diff <(echo "$MOUNTS_BEFORE") <(echo "$mounts") | grep '^[<>]' | tr '\n' ' '); tables '$tables'"
	fi
}
# The job that reaches its time limit was started first (it ends a minute
# or so later, when slurmctld next checks time limits); scancel meanwhile.
jc=$(cxu sbatch --parsable --jail-allow=allowed.test -o "$C/work/cancel.out" \
	--wrap "srun bash -c 'curl -sS -m 20 -o /dev/null http://allowed.test/cancel; echo up >$C/work/cancel-ready; exec sleep 600'" 2>&1) ||
	fail "sbatch (to cancel): $jc"
if wait_until "$WAIT" test -s "$H/work/cancel-ready"; then
	sandbox_seen scancel "$jc"
	cx scancel "$jc"
	sandbox_gone scancel "$jc" CANCELLED
else
	fail "the job to cancel never started: $(cat "$H/work/cancel.out" 2>&1)"
fi
# The time limit's job is checked last (step 7): it ends a minute after it
# started, and steps 5 and 6 run meanwhile.
if wait_until "$WAIT" test -s "$H/work/timelimit-ready"; then
	sandbox_seen "time limit" "$jt"
	TL_PIDS=$SB_PIDS TL_NETS=$SB_NETS
else
	fail "the job to time out never started: $(cat "$H/work/timelimit.out" 2>&1)"
fi

# ------------------------------------- 5. a step without --jail-*
printf "step 5 (without --jail-*) at %ss\n" "$SECONDS"
out=$(cxu srun -n 1 cat /proc/1/comm 2>&1 || true)
if [ "$out" = init.sh ] || [ "$out" = bash ]; then
	ok "without --jail-*, the task runs as without the plugin (PID 1 is the container's $out)"
else
	fail "without --jail-*: PID 1 is '$out'"
fi

# ------------------------- 6. the recipe without the plugin (sbatch --array)
printf "step 6 (contrib/slurm/jailrun-array.sbatch) at %ss\n" "$SECONDS"
install -m 755 "$JR_TOP_SRCDIR/contrib/slurm/jailrun-array.sbatch" "$H/jailrun-array.sbatch"
# Task 0 serves one request (the harness's, through --publish), 1 tries
# denied.test, 2 reaches allowed.test, 3 exits 3.
cat >"$H/recipe-task.sh" <<'EOF2'
#!/bin/bash
case $1 in
0) exec python3 - <<'PY'
import http.server, socketserver
class H(http.server.BaseHTTPRequestHandler):
    def do_GET(self):
        body = ("served %s in the sandbox\n" % self.path).encode()
        self.send_response(200)
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)
    def log_message(self, *a):
        pass
s = socketserver.TCPServer(("0.0.0.0", 8000), H)
open("recipe-ready", "w").close()
s.handle_request()
PY
;;
1) curl -sSf -m 20 -o /dev/null http://denied.test/recipe-1 || echo "task 1 refused" ;;
2) curl -sSf -m 20 -o /dev/null http://allowed.test/recipe-2 && echo "task 2 reached" ;;
3) exit 3 ;;
esac
EOF2
chmod 755 "$H/recipe-task.sh"
ra=$(cxu sbatch --parsable --array=0-3 -o "$C/work/recipe-%a.out" \
	--export="ALL,TASK_CMD=$C/recipe-task.sh,JAILRUN=$C/jailrun,JAILRUN_ALLOW=allowed.test,JAILRUN_OUT=$C/json/recipe,JAILRUN_PUBLISH_BASE=21000" \
	"$C/jailrun-array.sbatch" 2>&1) || fail "sbatch jailrun-array.sbatch: $ra"
if wait_until "$WAIT" test -e "$H/work/recipe-ready" &&
	got=$(cx curl -sS -m 20 "http://127.0.0.1:21000/harness" 2>&1) && [ "$got" = "served /harness in the sandbox" ]; then
	ok "recipe: the harness on the node reached task 0's server in its sandbox (--publish 127.0.0.1:21000:8000)"
else
	fail "recipe: task 0's server through --publish: '${got:-}' $(cat "$H/work/recipe-0.out" 2>&1)"
fi
recipe_done() { local i; for i in 0 1 2 3; do job_done "$(task_job "$ra" "$i")" || return 1; done; }
# task_job ARRAYJOB INDEX - the job id of one array task (the completion
# log names array tasks by their own job id).
task_job() {
	awk -v a="$1" -v t="$2" '$0 ~ " ArrayJobId=" a " " && $0 ~ " ArrayTaskId=" t " " {
		for (i = 1; i <= NF; i++) if ($i ~ /^JobId=/) { split($i, k, "="); print k[2] } }' \
		"/proc/$INIT/root/var/log/slurm/jobcomp.txt" 2>/dev/null | tail -n 1
}
if wait_until "$WAIT" recipe_done; then
	codes=$(for i in 0 1 2 3; do printf '%s ' "$(job_field "$(task_job "$ra" "$i")" ExitCode)"; done)
	if [ "$codes" = "0:0 0:0 0:0 3:0 " ]; then
		ok "recipe: the 4 array tasks' ExitCodes are the tasks' own: $codes"
	else
		fail "recipe: ExitCodes $codes (want 0:0 0:0 0:0 3:0)"
	fi
else
	fail "recipe: the array $ra did not finish: $(cx squeue 2>&1 | head)"
fi
sums=$(for i in 0 1 2 3; do f=$H/json/recipe/${ra}_$i; [ -s "$f.json" ] && [ -s "$f.log" ] && echo "$i"; done | wc -l)
if [ "$sums" = 4 ] && grep -q '"denied": *1' "$H/json/recipe/${ra}_1.json" &&
	grep -q '"allowed": *1' "$H/json/recipe/${ra}_2.json" &&
	grep -q '"exit_status": *3' "$H/json/recipe/${ra}_3.json" &&
	grep -q 'task 1 refused' "$H/work/recipe-1.out" && grep -q 'task 2 reached' "$H/work/recipe-2.out" &&
	lab_web_served allowed.test /recipe-2 && ! lab_web_served denied.test; then
	ok "recipe: a summary and an audit log per task; task 1 refused denied.test, task 2 reached allowed.test (summaries, outputs, the lab's web log)"
else
	fail "recipe: $sums of 4 summary+log pairs; $(cat "$H"/work/recipe-[12].out 2>&1 | tr '\n' ' ')"
fi

# --------------------------------- 7. the time limit, then node failure
printf "step 7 (the time limit, node failure) at %ss\n" "$SECONDS"
if [ -n "${TL_PIDS:-}" ]; then
	SB_PIDS=$TL_PIDS SB_NETS=$TL_NETS
	sandbox_gone "time limit" "$jt" TIMEOUT
fi
# The node fails while a step runs: every process of it is SIGKILLed at
# once (the container's PID namespace goes), as close to a power loss as
# a test gets. Nothing of the sandbox may outlive it in the lab's network
# namespace, where the node was: no network namespace, link or nft table.
jn=$(cxu sbatch --parsable --jail-allow=allowed.test -o "$C/work/node.out" \
	--wrap "srun bash -c 'echo up >$C/work/node-ready; exec sleep 600'" 2>&1) ||
	fail "sbatch (node failure): $jn"
links_before=$(lab_host ip -o link | awk -F': ' '{ print $2 }' | sort)
if wait_until "$WAIT" test -s "$H/work/node-ready"; then
	sandbox_seen "node failure" "$jn"
	pids="$INIT $(descendants)"
	NODE_PIDS=$pids
	kill -KILL "$INIT"
	all_gone() { local p; for p in $pids; do ! kill -0 "$p" 2>/dev/null || return 1; done; }
	nets_left=
	if wait_until "$WAIT" all_gone; then
		for n in $SB_NETS; do
			! grep -qx "$n" <<<"$(stat -L -c %i /proc/[0-9]*/ns/net 2>/dev/null)" || nets_left="$nets_left $n"
		done
		tables=$(lab_host nft list tables 2>&1 || true)
		links=$(lab_host ip -o link | awk -F': ' '{ print $2 }' | sort)
		if [ -z "$nets_left" ] && [ "$tables" = "$(cat "$H/tables-before")" ] && [ "$links" = "$links_before" ]; then
			ok "node failure (every process of the node SIGKILLed during job $jn): none of its $(wc -w <<<"$pids") processes is left, the sandbox's network namespace is gone, the lab's links and nft tables are as before"
		else
			fail "node failure: network namespaces left:${nets_left:- none}; tables '$tables'; links $(diff <(echo "$links_before") <(echo "$links") | tr '\n' ' ')"
		fi
	else
		fail "node failure: processes left: $(for p in $pids; do ps -o pid=,args= -p "$p"; done)"
	fi
else
	fail "the job for the node failure never started: $(cat "$H/work/node.out" 2>&1)"
fi
printf "done at %ss\n" "$SECONDS"
