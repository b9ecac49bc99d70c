#!/bin/bash
# jailrun inside an unprivileged, rootless podman container: the pod case
# (docs/scale-out.md, "Containers and Kubernetes pods"; jailrun(1),
# CONTAINERS).
#
# Podman runs as an unprivileged user (nobody) with its own runtime and
# storage directories under this test's temporary directory, in a private
# mount and PID namespace inside the lab host's network namespace:
# slirp4netns carries the container's traffic into the lab, never onto the
# real network, and when podman ends every process it left (conmon,
# slirp4netns, the rootless pause process) dies with the PID namespace. No
# registry is needed: the container's root is a directory made from the
# host's own files (the shell, curl and their libraries), cached in
# $JR_CONTAINER_CACHE (/var/cache/jailrun-tests/container) and given to
# podman with --rootfs; jailrun is copied in for each run.
#
# The least the container needs, all at once (and nothing else: no
# capability, no-new-privileges on, jailrun not root in it):
#   - a seccomp profile that allows sethostname (podman's default allows
#     unshare and clone but sethostname only with CAP_SYS_ADMIN): the
#     default profile with that one rule changed;
#   - /proc and /sys unmasked (unmask=ALL): the kernel refuses a
#     fresh proc or sysfs while any of the container's is mounted over.
# With it, an allowed lab host is reached and a denied one refused. Without
# each piece, jailrun exits 125 naming what is missing and the setting that
# grants it.
# Fails if: jailrun does not work in the least container, works in one that
# lacks a piece, or says something else than what is missing; if podman
# leaves a process, a mount or a container behind.
. "${JR_TOP_SRCDIR:-$(dirname "$0")/../..}/tests/lib.sh"
. "$JR_TOP_SRCDIR/tests/lab/lib.sh"

[ "$(id -u)" -eq 0 ] || skip "needs root (the lab, and a private mount namespace for podman)"
for c in podman crun slirp4netns newuidmap newgidmap jq nsenter unshare curl; do
	command -v "$c" >/dev/null ||
		skip "needs $c (contrib/dev.sh deps installs podman, crun, uidmap, slirp4netns, jq)"
done
CTR_DEFAULT_SECCOMP=/usr/share/containers/seccomp.json
[ -r "$CTR_DEFAULT_SECCOMP" ] || skip "no $CTR_DEFAULT_SECCOMP (podman's default seccomp profile, from containers-common)"
jr_require_sandbox
lab_setup
lab_on_exit jr_cleanup_tmp

CTR_USER=$JR_NOBODY_UID
CTR_GROUP=$JR_NOBODY_GID
CTR=$JR_TMP/ctr
mkdir -m 755 "$CTR"
CTR_HOME=$CTR/home # podman's HOME, XDG dirs: its storage and state
mkdir -m 700 "$CTR_HOME"
chown "$CTR_USER:$CTR_GROUP" "$CTR_HOME"

# ---------------------------------------------------------------- rootfs
# The host files the container needs: a shell, curl (the sandboxed
# command) and a few tools; jailrun's and their libraries follow from ldd.
CTR_CACHE=${JR_CONTAINER_CACHE:-/var/cache/jailrun-tests/container}
CTR_BINS=(/bin/sh /usr/bin/curl /usr/bin/cat /usr/bin/id /usr/bin/env /usr/bin/true)

# The files of the rootfs: each binary and every library ldd names for it
# or for jailrun (libssl is among curl's, jailrun dlopens it).
ctr_files() {
	local f
	for f in "${CTR_BINS[@]}" "$JAILRUN"; do
		[ "$f" = "$JAILRUN" ] || readlink -f "$f"
		ldd "$f" | awk '$2 == "=>" && $3 ~ /^\// { print $3 } $1 ~ /^\// { print $1 }'
	done | sort -u
}

# ctr_rootfs_build DIR - a minimal root: /usr merged, the files above at
# their paths, /etc with passwd, group, hosts, and the mountpoints crun
# needs (it cannot create them as the unprivileged user).
ctr_rootfs_build() {
	local d=$1 f b
	mkdir -p "$d"/{usr/bin,usr/lib,usr/lib64,etc,proc,sys,dev,run,tmp,var/tmp,root,home/user/work}
	ln -s usr/bin "$d/bin"
	ln -s usr/lib "$d/lib"
	ln -s usr/lib64 "$d/lib64"
	ln -s usr/bin "$d/sbin"
	chmod 1777 "$d/tmp" "$d/var/tmp"
	for f in $(ctr_files); do
		mkdir -p "$d$(dirname "$f")"
		cp -L "$f" "$d$f"
	done
	for f in "${CTR_BINS[@]}"; do
		b=$(basename "$f")
		[ -e "$d/usr/bin/$b" ] || ln -s "$(readlink -f "$f")" "$d/usr/bin/$b"
	done
	printf '%s\n' 'root:x:0:0:root:/root:/bin/sh' 'user:x:1000:1000:user:/home/user:/bin/sh' \
		'nobody:x:65534:65534:nobody:/nonexistent:/bin/sh' >"$d/etc/passwd"
	printf '%s\n' 'root:x:0:' 'user:x:1000:' 'nogroup:x:65534:' >"$d/etc/group"
	printf '127.0.0.1 localhost\n::1 localhost\n' >"$d/etc/hosts"
	echo ctr >"$d/etc/hostname"
	ln -s /proc/self/mounts "$d/etc/mtab"
}

# The cached rootfs: named by what went in (paths, sizes, times), so a host
# upgrade makes a new one; made aside and renamed, so a concurrent run
# never sees half of one.
ctr_rootfs_cached() {
	local key dir tmp
	key=$(ctr_files | xargs stat -L -c '%n %s %Y' | sha256sum | cut -c1-16)
	dir=$CTR_CACHE/rootfs-$key
	if [ ! -d "$dir" ]; then
		mkdir -p "$CTR_CACHE"
		tmp=$(mktemp -d "$CTR_CACHE/.new.XXXXXX")
		ctr_rootfs_build "$tmp"
		chmod 755 "$tmp"
		mv -T "$tmp" "$dir" 2>/dev/null || rm -rf "$tmp"
	fi
	echo "$dir"
}

CTR_CACHED=$(ctr_rootfs_cached)
tap_diag "container rootfs: $CTR_CACHED ($(du -sh "$CTR_CACHED" | cut -f1))"
# The container's own copy: podman writes in it (/run/.containerenv,
# /etc/resolv.conf...) as the unprivileged user, and it holds this build's
# jailrun. The lab's resolver is the container's (--dns none keeps it).
ROOTFS=$CTR/rootfs
cp -a "$CTR_CACHED" "$ROOTFS"
install -m 755 "$JAILRUN" "$ROOTFS/usr/bin/jailrun"
echo "nameserver $LAB_DNS4" >"$ROOTFS/etc/resolv.conf"
chown -R "$CTR_USER:$CTR_GROUP" "$ROOTFS"

# ---------------------------------------------------------------- seccomp
# The least profile: podman's default, with sethostname and setdomainname
# allowed to all (the default allows them only with CAP_SYS_ADMIN; jailrun
# names the sandbox's UTS namespace, and that is also where a user
# namespace without capabilities shows). Everything else as the default.
SECCOMP_LEAST=$CTR/seccomp-jailrun.json
jq '.syscalls |= map(.names -= ["sethostname", "setdomainname"] | select(.names | length > 0))
    | .syscalls += [{"names": ["sethostname", "setdomainname"], "action": "SCMP_ACT_ALLOW"}]' \
	"$CTR_DEFAULT_SECCOMP" >"$SECCOMP_LEAST"
# Docker's kind of default: unshare refused, clone allowed only without a
# namespace flag (CLONE_NEWNS|NEWCGROUP|NEWUTS|NEWIPC|NEWUSER|NEWPID|NEWNET
# = 0x7E020000): a container without CAP_SYS_ADMIN under Docker's profile.
# Docker refuses with EPERM, podman's profile with ENOSYS, its default
# answer: jailrun must read both as the filter's doing.
SECCOMP_NOUSERNS=$CTR/seccomp-nouserns.json
jq '.syscalls |= map(.names -= ["clone", "unshare"] | select(.names | length > 0))
    | .syscalls += [{"names": ["clone"], "action": "SCMP_ACT_ALLOW",
		     "args": [{"index": 0, "value": 2114060288, "valueTwo": 0, "op": "SCMP_CMP_MASKED_EQ"}]}]' \
	"$SECCOMP_LEAST" >"$SECCOMP_NOUSERNS"
chmod 644 "$SECCOMP_LEAST" "$SECCOMP_NOUSERNS"

# ---------------------------------------------------------------- podman
# Run as root in the private mount and PID namespace, then podman as the
# unprivileged user. The mounts made here are this namespace's only:
#  - crun needs a cgroup2 hierarchy at /sys/fs/cgroup (a hybrid v1 host has
#    a tmpfs there), and the container has no cgroup of its own anyway
#    (--cgroups=disabled: rootless podman cannot make one without systemd);
#  - slirp4netns opens /dev/net/tun, 0666 on a usual host; where it is not,
#    a node of our own with that mode is bound over it.
cat >"$CTR/enter" <<EOF
#!/bin/bash
set -e
if [ "\$(stat -f -c %T /sys/fs/cgroup)" != cgroup2fs ]; then
	mount -t cgroup2 cgroup2 /sys/fs/cgroup
fi
if [ "\$(stat -c %a /dev/net/tun)" != 666 ]; then
	mkdir -p "$CTR/dev"
	mount -t tmpfs -o mode=755 tmpfs "$CTR/dev"
	mknod -m 666 "$CTR/dev/tun" c 10 200
	mount --bind "$CTR/dev/tun" /dev/net/tun
fi
# CTR_SUBIDS=1: the user gets 65536 subordinate ids, as a Kubernetes pod
# with hostUsers: false has, from files bound over /etc/subuid and
# /etc/subgid here only (newuidmap reads them).
if [ -n "\${CTR_SUBIDS:-}" ]; then
	mount --bind "$CTR/subid" /etc/subuid
	mount --bind "$CTR/subid" /etc/subgid
fi
# A fresh runtime directory each time: the one of a PID namespace gone
# names a pause process that no longer exists.
rm -rf "$CTR_HOME/run"
mkdir -m 700 "$CTR_HOME/run"
chown $CTR_USER:$CTR_GROUP "$CTR_HOME/run"
cd "$CTR_HOME"
exec setpriv --reuid=$CTR_USER --regid=$CTR_GROUP --clear-groups -- \\
	env -i PATH=/usr/sbin:/usr/bin:/sbin:/bin HOME="$CTR_HOME" \\
	XDG_RUNTIME_DIR="$CTR_HOME/run" XDG_CONFIG_HOME="$CTR_HOME/config" \\
	XDG_DATA_HOME="$CTR_HOME/data" podman "\$@"
EOF
chmod 755 "$CTR/enter"
# The ids Kubernetes gives its first pod with a user namespace: far from
# any the host uses; only processes of this test's namespaces have them.
echo "$(id -nu "$CTR_USER"):1879048192:65536" >"$CTR/subid"
chmod 644 "$CTR/subid"

# ctr_podman ARGS... - podman as the unprivileged user, in the lab host's
# network namespace, in a PID namespace that takes every process podman
# started with it (--kill-child: also if this test is stopped).
ctr_podman() {
	timeout -k 5 "$JR_RUN_LIMIT" nsenter --net="/run/netns/$LAB_HOST_NS" \
		unshare --mount --pid --fork --kill-child --mount-proc "$CTR/enter" "$@"
}

# The container: no registry, the lab's resolver, the lab through
# slirp4netns. Inside, jailrun runs as uid 1000, the only id mapped (the
# user has no subordinate ids): container uid 1000 is podman's root, which
# is nobody on the host. Kubernetes' runAsNonRoot with runAsUser: 1000.
CTR_RUN=(run --rm --cgroups=disabled --network slirp4netns --dns none
	-w /home/user/work -e HOME=/home/user)
CTR_NONROOT=(--uidmap 1000:0:1 --gidmap 1000:0:1 --user 1000:1000
	--sysctl "net.ipv4.ping_group_range=1000 1000")
# As root in the container (podman's default user): uid 0 is the only one.
CTR_ROOT=(--sysctl "net.ipv4.ping_group_range=0 0")
CTR_SECCOMP=(--security-opt "seccomp=$SECCOMP_LEAST")
# ALL: every masked and read-only path of /proc and /sys (a glob such as
# /sys/* reaches one level only, and /sys/dev/block is two).
CTR_UNMASK=(--security-opt unmask=ALL)
# Nothing more: no capability at all, no-new-privileges (Kubernetes'
# allowPrivilegeEscalation: false).
CTR_LOCKED=(--cap-drop=ALL --security-opt no-new-privileges)
# Where AppArmor is on (Debian and Ubuntu kernels), podman confines the
# container with its containers-default profile, which has "deny mount":
# every mount jailrun makes in its own namespaces would be refused. Not
# seen here when the kernel has no AppArmor; said in the log either way.
if [ "$(cat /sys/module/apparmor/parameters/enabled 2>/dev/null)" = Y ]; then
	CTR_LOCKED+=(--security-opt apparmor=unconfined)
	tap_diag "AppArmor is on: the container runs with apparmor=unconfined (podman's default profile denies mount)"
else
	tap_diag "AppArmor is off in this kernel: podman applies no AppArmor profile"
fi

# podman's --rootfs: the first argument after the options is the root
# directory, the rest the command.
JAILED=(--rootfs "$ROOTFS" /usr/bin/jailrun --allow allowed.test -- sh -c
	'curl -sS http://allowed.test/path-in-ctr; curl -sS http://denied.test/path-in-ctr')

# ---------------------------------------------------------------- works
expect_status 0 "least container: jailrun --check passes" \
	ctr_podman "${CTR_RUN[@]}" "${CTR_NONROOT[@]}" "${CTR_SECCOMP[@]}" "${CTR_UNMASK[@]}" \
	"${CTR_LOCKED[@]}" --rootfs "$ROOTFS" /usr/bin/jailrun --check
expect_output_has "least container: --check says all passed" "all checks passed"
expect_output_has "least container: jailrun is not root there" "as uid 1000 (rootless)"

# The container really is what we think: seccomp filter on, no
# capabilities, no_new_privs, uid 1000.
expect_status 0 "least container: its process state" \
	ctr_podman "${CTR_RUN[@]}" "${CTR_NONROOT[@]}" "${CTR_SECCOMP[@]}" "${CTR_UNMASK[@]}" \
	"${CTR_LOCKED[@]}" --rootfs "$ROOTFS" cat /proc/self/status
for want in "Seccomp:	2" "CapEff:	0000000000000000" "CapBnd:	0000000000000000" \
	"NoNewPrivs:	1" "Uid:	1000	1000	1000	1000"; do
	expect_output_has "least container: $want" "$want"
done

lab_logs_clear
expect_status 0 "least container: jailrun runs the command" \
	ctr_podman "${CTR_RUN[@]}" "${CTR_NONROOT[@]}" "${CTR_SECCOMP[@]}" "${CTR_UNMASK[@]}" \
	"${CTR_LOCKED[@]}" "${JAILED[@]}"
expect_output_has "least container: the allowed host answers" "served-by: allowed.test"
expect_output_has "least container: the denied host is refused by the relay" \
	"jailrun: denied.test is not in the allowlist"
if lab_web_served allowed.test /path-in-ctr; then
	ok "least container: the lab's allowed.test served the request"
else
	fail "least container: allowed.test has no request for /path-in-ctr: $(cat "$LAB_WEBLOG")"
fi
never_served "least container" denied.test

# A read-only root (Kubernetes readOnlyRootFilesystem: true): podman puts
# a tmpfs on /tmp, the working directory the command may write.
lab_logs_clear
expect_status 0 "read-only root: jailrun runs the command" \
	ctr_podman "${CTR_RUN[@]}" "${CTR_NONROOT[@]}" "${CTR_SECCOMP[@]}" "${CTR_UNMASK[@]}" \
	"${CTR_LOCKED[@]}" --read-only -w /tmp --rootfs "$ROOTFS" /usr/bin/jailrun --allow allowed.test -- \
	sh -c 'echo written >out && cat out && curl -sS http://allowed.test/read-only-root'
expect_output_has "read-only root: the working directory is writable" "written"
expect_output_has "read-only root: the allowed host answers" "served-by: allowed.test"

# ---------------------------------------------------------------- lacks one
# expect_missing DESC NEEDLE... -- PODMAN-ARGS: jailrun exits 125 and its
# message has every NEEDLE (the last one its end: cut at jailrun's message
# limit, it would lack it).
expect_missing() {
	local desc=$1 needles=() n
	shift
	while [ "$1" != -- ]; do needles+=("$1"); shift; done
	shift
	expect_status 125 "$desc: jailrun exits 125" ctr_podman "$@"
	for n in "${needles[@]}"; do
		expect_output_has "$desc: says '$n'" "$n"
	done
}

# podman's default seccomp profile: sethostname needs CAP_SYS_ADMIN.
expect_missing "default seccomp profile" \
	"(sethostname): Operation not permitted" "seccomp filter" "refuses sethostname;" \
	"--security-opt seccomp=" "seccompProfile type: Localhost" \
	"see CONTAINERS in jailrun(1)" -- \
	"${CTR_RUN[@]}" "${CTR_NONROOT[@]}" "${CTR_UNMASK[@]}" "${CTR_LOCKED[@]}" "${JAILED[@]}"

# Docker's kind of profile: no user namespace at all.
expect_missing "seccomp profile without user namespaces" \
	"cannot create the sandbox namespaces: " "seccomp filter" \
	"refuses unshare and clone with CLONE_NEWUSER;" "seccompProfile" \
	"see CONTAINERS in jailrun(1)" -- \
	"${CTR_RUN[@]}" "${CTR_NONROOT[@]}" --security-opt "seccomp=$SECCOMP_NOUSERNS" \
	"${CTR_UNMASK[@]}" "${CTR_LOCKED[@]}" "${JAILED[@]}"

# The default masks: /proc first.
expect_missing "masked /proc" \
	"cannot mount a new proc" "/proc is masked" "/proc/keys" \
	"--security-opt unmask=ALL" "procMount: Unmasked" "hostUsers: false" \
	"see CONTAINERS in jailrun(1)" -- \
	"${CTR_RUN[@]}" "${CTR_NONROOT[@]}" "${CTR_SECCOMP[@]}" "${CTR_LOCKED[@]}" "${JAILED[@]}"

# /proc unmasked, /sys still masked.
expect_missing "masked /sys" \
	"cannot mount a new sysfs" "/sys is masked" "/sys/firmware" "procMount: Unmasked" \
	"see CONTAINERS in jailrun(1)" -- \
	"${CTR_RUN[@]}" "${CTR_NONROOT[@]}" "${CTR_SECCOMP[@]}" --security-opt "unmask=/proc/*" \
	"${CTR_LOCKED[@]}" "${JAILED[@]}"

# jailrun as the container's root: the command's user (nobody) is not
# mapped in a user namespace that maps only root.
expect_missing "root in a container that maps only root" \
	"cannot write the sandbox uid_map" "uid 65534" "is not mapped" "runAsNonRoot: true" \
	"maps uid 65534" -- \
	"${CTR_RUN[@]}" "${CTR_ROOT[@]}" "${CTR_SECCOMP[@]}" "${CTR_UNMASK[@]}" "${CTR_LOCKED[@]}" \
	"${JAILED[@]}"

# jailrun as root in a container whose user namespace maps nobody too (a
# pod with hostUsers: false): root maps the command's user, nobody, which
# takes CAP_SETUID and CAP_SETGID, and reads the sandbox's namespaces, a
# process of another uid, which takes CAP_SYS_PTRACE. With those three and
# nothing else it works; with none it says which is missing.
lab_logs_clear
CTR_SUBIDS=1 expect_status 0 "root in a pod-like container: jailrun runs the command" \
	ctr_podman "${CTR_RUN[@]}" "${CTR_SECCOMP[@]}" "${CTR_UNMASK[@]}" "${CTR_LOCKED[@]}" \
	--cap-add SETUID,SETGID,SYS_PTRACE "${JAILED[@]}"
expect_output_has "root in a pod-like container: the allowed host answers" "served-by: allowed.test"
expect_output_has "root in a pod-like container: the denied host is refused" \
	"jailrun: denied.test is not in the allowlist"
CTR_SUBIDS=1 expect_missing "root without capabilities in a pod-like container" \
	"cannot write the sandbox uid_map" "jailrun runs as root without CAP_SETUID" \
	"runAsNonRoot: true" "CAP_SETUID, CAP_SETGID and CAP_SYS_PTRACE" -- \
	"${CTR_RUN[@]}" "${CTR_SECCOMP[@]}" "${CTR_UNMASK[@]}" "${CTR_LOCKED[@]}" "${JAILED[@]}"

# --check names the mask too (and fails).
expect_status 1 "masked container: jailrun --check fails" \
	ctr_podman "${CTR_RUN[@]}" "${CTR_NONROOT[@]}" "${CTR_SECCOMP[@]}" "${CTR_LOCKED[@]}" \
	--rootfs "$ROOTFS" /usr/bin/jailrun --check
expect_output_has "masked container: --check names the masked /proc" \
	"FAIL  PID and mount namespaces, fresh /proc and /sys: cannot mount a new proc: Operation not permitted: /proc is masked"

# ---------------------------------------------------------------- leftovers
# No container in podman's storage, no podman process, no mount of ours.
expect_status 0 "podman ps -a" ctr_podman ps -a --format '{{.ID}}'
if [ -z "$(grep -v 'level=' <<<"$OUT" || true)" ]; then
	ok "no container left in podman's storage"
else
	fail "containers left: $OUT"
fi
# (By name from ps, not pgrep: pgrep matches nothing for a pattern longer
# than 15 characters.)
left=$(ps -u "$CTR_USER" -o pid=,comm= | awk '$2 ~ /^(podman|conmon|slirp4netns|crun|catatonit)$/' || true)
if [ -z "$left" ]; then ok "no podman, conmon or slirp4netns process left"; else fail "processes left: $left"; fi
left=$(ps -eo uid=,pid=,args= | awk '$1 >= 1879048192 && $1 < 1879048192 + 65536' || true)
if [ -z "$left" ]; then ok "no process of the pod-like ids left"; else fail "processes left: $left"; fi
if grep -qF "$CTR" /proc/self/mountinfo /proc/1/mountinfo; then
	fail "mounts left: $(grep -hF "$CTR" /proc/self/mountinfo /proc/1/mountinfo)"
else
	ok "no mount of the test's left"
fi
finish
