// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * seccomp.c - the command's seccomp filter.
 *
 * Theory of operation: the namespaces and the dropped privileges already
 * keep the command from most of what is listed here; the filter is the
 * second wall, and the only one for the few things the kernel does not
 * namespace or lets an unprivileged user do: vsock and other socket
 * families, the session keyring, io_uring (which opens and connects
 * sockets without calling socket(2) or connect(2)), user namespaces, and
 * set-user-ID or set-group-ID bits on the files it leaves in host trees.
 *
 * The default action is ALLOW and every rule answers with an errno, never
 * a kill: a program that meets a rule sees the same error it would see on
 * a kernel built without the feature, or from the kernel's own permission
 * check, and takes the fallback path it already has. We pick, for each
 * rule, the errno the kernel itself gives in that case (ENOSYS for
 * optional syscalls callers probe for: io_uring, clone3, keyctl, openat2;
 * EAFNOSUPPORT / EPROTONOSUPPORT for socket families and netlink
 * protocols; EPERM for the rest).
 *
 * rules[] below is the whole policy, one row per syscall (or per
 * condition), each with its reason; the man page's SECCOMP section is
 * written from it. The filter is built with libseccomp and exported as
 * classic BPF (seccomp_export_bpf(3)) into a memfd we read back; the
 * pre-exec child then makes one seccomp(2) call, with no allocation and
 * no libseccomp in it (crun does the same, libcrun/seccomp.c). Since the
 * program depends only on the options and on what the kernel supports,
 * it is built at build time for every combination (seccomp_gen.c,
 * seccomp_prebuilt.c) and the runner picks one; building it here at run
 * time is the fallback, and what a unit test compares the prebuilt
 * programs with. With --allow-nested the namespace and mount rows are
 * left out: what the command builds then has no link out and no power over
 * jailrun's namespaces.
 *
 * Limits: with a default of ALLOW, a syscall this table does not name
 * passes, including ones newer than libseccomp's tables (open_tree_attr,
 * Linux 6.15, is unknown to libseccomp 2.5 and gets a row only when built
 * against a libseccomp that knows it; fchmodat2, which would bypass the
 * mode rows, is the exception: see resolve_by_name()); the kernel's own
 * checks still apply. Syscalls allowed whatever their arguments cost
 * nothing per call: the kernel caches that verdict (Linux 5.11+) and
 * skips the program. open and openat, whose flags and mode are looked at,
 * run it at each call, as ioctl and socket do.
 *
 * ABIs: on x86 the kernel takes syscalls from three ABIs in one process
 * (x86_64, i386 through int 0x80, x32 with bit 30 set in the number), and
 * seccomp sees each with its own AUDIT_ARCH and numbering. The filter
 * covers all three, so a 32-bit or x32 syscall meets the same rules; an
 * ABI the filter does not know (none on x86; 32-bit ARM compat on arm64)
 * kills the process rather than passing unfiltered.
 */

#include <errno.h>
#include <fcntl.h>
#include <sched.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <unistd.h>
#include <linux/net.h>
#include <linux/netlink.h>
#include <linux/seccomp.h>
#include <seccomp.h> /* libseccomp's */

#include "cleanup.h"
#include "seccomp.h"

/* With src on the -I path, <seccomp.h> is this project's header. A static
 * assertion rather than #error, so that cppcheck can still walk this
 * branch. */
#ifndef SCMP_VER_MAJOR
_Static_assert(
    0,
    "<seccomp.h> found jailrun's src/guard/seccomp.h, not libseccomp's: add src with -iquote, not -I (as Makefile.am does)");
#endif

/* Linux 5.19; older uapi headers lack it. */
#ifdef SECCOMP_FILTER_FLAG_WAIT_KILLABLE_RECV
#define JR_SECCOMP_FILTER_FLAG_WAIT_KILLABLE_RECV                              \
	SECCOMP_FILTER_FLAG_WAIT_KILLABLE_RECV
#else
#define JR_SECCOMP_FILTER_FLAG_WAIT_KILLABLE_RECV (1UL << 5)
#endif

#ifndef CLONE_NEWUSER
#define CLONE_NEWUSER 0x10000000
#endif
#ifndef CLONE_NEWNET
#define CLONE_NEWNET 0x40000000
#endif

/* O_TMPFILE is __O_TMPFILE | O_DIRECTORY: the first bit alone asks for an
 * unnamed file, whose mode the kernel takes as O_CREAT's (build_open_how()
 * in fs/open.c); without O_DIRECTORY the call fails anyway. */
#define JR_O_TMPFILE_BIT (O_TMPFILE & ~O_DIRECTORY)

/* fchmodat2 (Linux 6.6) has one number on the architectures of the
 * common syscall table (x86 and arm64 among them), for the probe in
 * resolve_by_name(); elsewhere the uapi header must give it. */
#if defined(__NR_fchmodat2)
#define JR_NR_FCHMODAT2 __NR_fchmodat2
#elif defined(__x86_64__) || defined(__i386__) || defined(__aarch64__)
#define JR_NR_FCHMODAT2 452
#endif

/*
 * clone(2), NOTES: the raw syscall's argument order differs per
 * architecture; on s390 and CRIS the flags are the second argument.
 * libseccomp does not reorder them, so we say where they are. Every ABI
 * one build covers (x86_64/i386/x32, or arm64) has them first.
 */
#if defined(__s390__) || defined(__CRIS__)
#define JR_CLONE_FLAGS_ARG 1
#else
#define JR_CLONE_FLAGS_ARG 0
#endif

/* The socket families the command may create, and the one netlink protocol. */
static const int allowed_families[] = { AF_UNIX, AF_INET, AF_INET6,
					AF_NETLINK };

struct jr_seccomp_rule {
	const char *name; /* the syscall, for messages */
	int nr;		  /* SCMP_SYS(): native or libseccomp pseudo number */
	int errnum;	  /* what the caller sees */
	bool nested;	  /* dropped with --allow-nested */
	bool families;	  /* socket(2): expanded from allowed_families[] */
	bool by_name;	  /* @nr looked up by @name when the filter is built */
	unsigned int nargs;
	struct scmp_arg_cmp args[2];
	const char *reason;
};

/* clang-format off */
#define SYS(n) .name = #n, .nr = SCMP_SYS(n)
#define CMP(a, o, x) { .arg = (a), .op = (o), .datum_a = (x) }
/* Equal in the low 32 bits: for an int or unsigned int argument the kernel
 * ignores the upper half of the register, so must we. */
#define CMP_LO32(a, x) { .arg = (a), .op = SCMP_CMP_MASKED_EQ, .datum_a = 0xffffffffU, .datum_b = (x) }
#define CMP_BITS(a, m) { .arg = (a), .op = SCMP_CMP_MASKED_EQ, .datum_a = (m), .datum_b = (m) }

#define REASON_MOUNT                                                           \
	"mounts are the sandbox's shape; the command holds no capability " \
	"over its mount namespace, this also closes the filesystem-context " \
	"parsers (fsconfig: CVE-2022-0185). Permitted with --allow-nested, " \
	"where they can only act on a mount namespace the command made: " \
	"the mounts it inherits stay locked (mount_namespaces(7))"
#define REASON_CLOCK                                                           \
	"the clocks are the host's (time_namespaces(7) does not cover " \
	"CLOCK_REALTIME); a PTP clock opened for writing is adjusted with " \
	"no capability check"

#define REASON_SUID                                                            \
	"a set-user-ID or set-group-ID program left in a host tree runs, for " \
	"any local user who starts it, as its owner: the command's user, or " \
	"root with --host-root; EPERM, as the kernel answers a caller who may " \
	"not set the bit"
#define REASON_SUID_NEW                                                        \
	"a new file with S_ISUID or S_ISGID in its mode: " REASON_SUID

static const struct jr_seccomp_rule rules[] = {
	/*
	 * i386's socketcall(2) multiplexer carries socket()'s arguments in
	 * memory, where BPF cannot read them. libseccomp turns every
	 * argument rule on socket/socketpair below into a rule on the whole
	 * socketcall sub-call, so i386 programs that use socketcall (glibc
	 * built for kernels before 4.3, which is every distribution's i386
	 * glibc, and musl) cannot create sockets at all; those using the
	 * direct socket syscall (359, Linux 4.3+) get the same family rules
	 * as 64-bit ones. These two rows come first: libseccomp rejects
	 * (EEXIST) a shorter rule added after a longer one with another
	 * action on the same syscall, and socket's netlink row below has
	 * EPROTONOSUPPORT.
	 */
	{ SYS(socketcall), .errnum = EAFNOSUPPORT, .nargs = 1,
	  .args = { CMP(0, SCMP_CMP_EQ, SYS_SOCKET) },
	  .reason = "i386 only: the family is in memory, out of the filter's sight; refused for every family rather than allowed for every family" },
	{ SYS(socketcall), .errnum = EAFNOSUPPORT, .nargs = 1,
	  .args = { CMP(0, SCMP_CMP_EQ, SYS_SOCKETPAIR) },
	  .reason = "i386 only: as socketcall(SYS_SOCKET)" },

	/* Socket families. */
	{ SYS(socket), .errnum = EAFNOSUPPORT, .families = true,
	  .reason = "only AF_UNIX, AF_INET, AF_INET6 and AF_NETLINK: AF_VSOCK talks to the hypervisor and its guests, outside the sandbox's network namespace and firewall; the others (AF_PACKET, AF_BLUETOOTH, AF_CAN, AF_TIPC...) are rarely used kernel code, some of it loaded on demand; EAFNOSUPPORT is the kernel's own answer for a family it lacks, so libraries fall back" },
	{ SYS(socket), .errnum = EPROTONOSUPPORT, .nargs = 2,
	  .args = { CMP(0, SCMP_CMP_EQ, AF_NETLINK),
		    CMP(2, SCMP_CMP_NE, NETLINK_ROUTE) },
	  .reason = "netlink only as NETLINK_ROUTE (getifaddrs(3), if_nametoindex(3)): NETLINK_NETFILTER (the sandbox's firewall), NETLINK_AUDIT, sock_diag, uevents... are kernel attack surface the command does not need; EPROTONOSUPPORT is what libaudit, sudo and friends read as 'not in this kernel' and carry on" },
	{ SYS(socketpair), .errnum = EAFNOSUPPORT, .nargs = 1,
	  .args = { CMP(0, SCMP_CMP_NE, AF_UNIX) },
	  .reason = "socketpair(2) is for AF_UNIX; for another family the kernel first creates a socket of it (loading its module) and then mostly answers EOPNOTSUPP" },
	{ SYS(io_uring_setup), .errnum = ENOSYS,
	  .reason = "io_uring opens, binds and connects sockets (IORING_OP_SOCKET...) past every socket rule here, and is a large attack surface; ENOSYS as on kernels without it, so liburing users fall back to plain syscalls" },
	{ SYS(io_uring_enter), .errnum = ENOSYS, .reason = "as io_uring_setup" },
	{ SYS(io_uring_register), .errnum = ENOSYS, .reason = "as io_uring_setup" },

	/* Namespaces. The command may not make new ones unless told so. */
	{ SYS(unshare), .errnum = EPERM, .nested = true, .nargs = 1,
	  .args = { CMP_BITS(0, CLONE_NEWUSER) },
	  .reason = "a new user namespace gives back every capability over the namespaces made with it, and the kernel code reachable only with them (nf_tables, ...); the other CLONE_NEW* need a capability the command does not hold" },
	{ SYS(unshare), .errnum = EPERM, .nested = true, .nargs = 1,
	  .args = { CMP_BITS(0, CLONE_NEWNET) },
	  .reason = "a network namespace of its own is outside the sandbox's firewall" },
	{ SYS(clone), .errnum = EPERM, .nested = true, .nargs = 1,
	  .args = { CMP_BITS(JR_CLONE_FLAGS_ARG, CLONE_NEWUSER) },
	  .reason = "as unshare(CLONE_NEWUSER)" },
	{ SYS(clone), .errnum = EPERM, .nested = true, .nargs = 1,
	  .args = { CMP_BITS(JR_CLONE_FLAGS_ARG, CLONE_NEWNET) },
	  .reason = "as unshare(CLONE_NEWNET)" },
	{ SYS(clone3), .errnum = ENOSYS, .nested = true,
	  .reason = "its flags are in memory, out of the filter's sight; ENOSYS makes glibc (2.34+) and other callers fall back to clone(2), whose flags the rules above see" },
	{ SYS(setns), .errnum = EPERM, .nested = true,
	  .reason = "the namespace type is that of the file descriptor (nstype 0 accepts any, a pidfd several), which the filter cannot see; the command has no business in another namespace" },

	/* Mounts. */
	{ SYS(mount), .errnum = EPERM, .nested = true, .reason = REASON_MOUNT },
	{ SYS(umount2), .errnum = EPERM, .nested = true, .reason = REASON_MOUNT },
	{ SYS(umount), .errnum = EPERM, .nested = true, .reason = "i386 only: as umount2" },
	{ SYS(move_mount), .errnum = EPERM, .nested = true, .reason = REASON_MOUNT },
	{ SYS(open_tree), .errnum = EPERM, .nested = true, .reason = REASON_MOUNT },
	{ SYS(fsopen), .errnum = EPERM, .nested = true, .reason = REASON_MOUNT },
	{ SYS(fsconfig), .errnum = EPERM, .nested = true, .reason = REASON_MOUNT },
	{ SYS(fsmount), .errnum = EPERM, .nested = true, .reason = REASON_MOUNT },
	{ SYS(fspick), .errnum = EPERM, .nested = true, .reason = REASON_MOUNT },
	{ SYS(mount_setattr), .errnum = EPERM, .nested = true, .reason = REASON_MOUNT },
#ifdef __SNR_open_tree_attr
	{ SYS(open_tree_attr), .errnum = EPERM, .nested = true, .reason = REASON_MOUNT },
#endif
	{ SYS(pivot_root), .errnum = EPERM, .nested = true, .reason = REASON_MOUNT },

	/* Kernel attack surface an unprivileged program does not need. */
	{ SYS(bpf), .errnum = EPERM,
	  .reason = "eBPF verifier and maps are a recurring source of kernel exploits; EPERM is what kernel.unprivileged_bpf_disabled answers" },
	{ SYS(perf_event_open), .errnum = EPERM,
	  .reason = "kernel exploits and side channels (kernel addresses, other processes); EPERM is what perf_event_paranoid answers" },
	{ SYS(userfaultfd), .errnum = EPERM,
	  .reason = "stalls the kernel in the middle of a copy from user memory, the standard way to win an exploit's race; EPERM is what vm.unprivileged_userfaultfd=0 answers" },
	{ SYS(keyctl), .errnum = ENOSYS,
	  .reason = "the session keyring is inherited from the caller and is not namespaced: it may hold the caller's secrets (Kerberos tickets, ecryptfs and fscrypt v1 keys); ENOSYS as on a kernel without CONFIG_KEYS, which keyutils callers handle" },
	{ SYS(add_key), .errnum = ENOSYS, .reason = "as keyctl" },
	{ SYS(request_key), .errnum = ENOSYS, .reason = "as keyctl" },
	{ SYS(open_by_handle_at), .errnum = EPERM,
	  .reason = "opens an inode from a (guessable) handle, past the mount tree and directory permissions: the 'shocker' container escape; name_to_handle_at stays allowed: its handles are useless without this call, and systemd and util-linux use it to identify mounts" },

	/* Whole-machine state: the kernel asks for a capability in the
	 * initial user namespace, which the command never has. Refused here
	 * as well so that a mistake elsewhere does not open them. */
	{ SYS(kexec_load), .errnum = EPERM, .reason = "replaces the running kernel" },
	{ SYS(kexec_file_load), .errnum = EPERM, .reason = "replaces the running kernel" },
	{ SYS(init_module), .errnum = EPERM, .reason = "loads kernel code" },
	{ SYS(finit_module), .errnum = EPERM, .reason = "loads kernel code" },
	{ SYS(delete_module), .errnum = EPERM, .reason = "unloads kernel code" },
	{ SYS(reboot), .errnum = EPERM, .reason = "reboots the machine (in a PID namespace: kills its init)" },
	{ SYS(swapon), .errnum = EPERM, .reason = "machine-wide memory configuration" },
	{ SYS(swapoff), .errnum = EPERM, .reason = "machine-wide memory configuration" },
	{ SYS(acct), .errnum = EPERM, .reason = "machine-wide process accounting to a file of the caller's choosing" },
	{ SYS(quotactl), .errnum = EPERM, .reason = "filesystem quota administration; the command's own quota report (Q_GETQUOTA) is lost too" },
	{ SYS(quotactl_fd), .errnum = EPERM, .reason = "as quotactl" },
	{ SYS(lookup_dcookie), .errnum = EPERM, .reason = "oprofile's, removed from recent kernels; refused for older ones" },
	{ SYS(nfsservctl), .errnum = EPERM, .reason = "knfsd control, gone from Linux 3.1; refused for older kernels" },
	{ SYS(vhangup), .errnum = EPERM, .reason = "hangs up the terminal, which is jailrun's pty; needs CAP_SYS_TTY_CONFIG anyway" },
	{ SYS(settimeofday), .errnum = EPERM, .reason = REASON_CLOCK },
	{ SYS(stime), .errnum = EPERM, .reason = "i386 only: " REASON_CLOCK },
	{ SYS(clock_settime), .errnum = EPERM, .reason = REASON_CLOCK },
	{ SYS(clock_settime64), .errnum = EPERM, .reason = "i386 only: " REASON_CLOCK },
	/*
	 * adjtimex and clock_adjtime on a static clock stay allowed: the
	 * mode that says "read only" (modes == 0, what ntp_gettime(3),
	 * chronyc and timedatectl use) is inside struct timex, out of the
	 * filter's sight, and the kernel refuses every other mode without
	 * CAP_SYS_TIME in the initial user namespace.
	 */
	{ SYS(clock_adjtime), .errnum = EPERM, .nargs = 1,
	  .args = { CMP_BITS(0, 0x80000000U) },
	  .reason = "negative clock ids: fd-based clocks (PTP, dynamic posix clocks) are adjusted with only the file's write mode as a check; CPU-time clocks, also negative, cannot be adjusted anyway" },
	{ SYS(clock_adjtime64), .errnum = EPERM, .nargs = 1,
	  .args = { CMP_BITS(0, 0x80000000U) },
	  .reason = "i386 only: as clock_adjtime" },

	/*
	 * Set-user-ID and set-group-ID bits. The command may write host
	 * trees (the working directory, --rw, and with --fs host whatever
	 * its user may write); a program it leaves there with S_ISUID runs,
	 * for any local user, as the file's owner: the command's user, or
	 * root with --host-root. no_new_privs and nosuid mounts disarm such
	 * a file inside only. Each call that sets a mode is refused when
	 * the mode has either bit: one row per bit, as BPF compares under a
	 * mask for equality and "either bit" is two tests. The mode is an
	 * umode_t, so the bit test reads the low bits only, as the kernel
	 * does.
	 */
	{ SYS(chmod), .errnum = EPERM, .nargs = 1, .args = { CMP_BITS(1, S_ISUID) },
	  .reason = REASON_SUID },
	{ SYS(chmod), .errnum = EPERM, .nargs = 1, .args = { CMP_BITS(1, S_ISGID) },
	  .reason = REASON_SUID },
	{ SYS(fchmod), .errnum = EPERM, .nargs = 1, .args = { CMP_BITS(1, S_ISUID) },
	  .reason = REASON_SUID },
	{ SYS(fchmod), .errnum = EPERM, .nargs = 1, .args = { CMP_BITS(1, S_ISGID) },
	  .reason = REASON_SUID },
	{ SYS(fchmodat), .errnum = EPERM, .nargs = 1, .args = { CMP_BITS(2, S_ISUID) },
	  .reason = REASON_SUID },
	{ SYS(fchmodat), .errnum = EPERM, .nargs = 1, .args = { CMP_BITS(2, S_ISGID) },
	  .reason = REASON_SUID },
	/* Linux 6.6; resolved by name (the uapi headers may predate it). */
	{ .name = "fchmodat2", .by_name = true, .errnum = EPERM, .nargs = 1,
	  .args = { CMP_BITS(2, S_ISUID) }, .reason = REASON_SUID },
	{ .name = "fchmodat2", .by_name = true, .errnum = EPERM, .nargs = 1,
	  .args = { CMP_BITS(2, S_ISGID) }, .reason = REASON_SUID },
	/* A new file takes its mode from the call, S_ISUID and S_ISGID
	 * included (the umask holds only permission bits): open(2) and
	 * openat(2) with O_CREAT, or with O_TMPFILE (an unnamed file that
	 * linkat(2) then names). Without either flag the kernel ignores the
	 * mode, and so do these rows. */
	{ SYS(creat), .errnum = EPERM, .nargs = 1, .args = { CMP_BITS(1, S_ISUID) },
	  .reason = REASON_SUID_NEW },
	{ SYS(creat), .errnum = EPERM, .nargs = 1, .args = { CMP_BITS(1, S_ISGID) },
	  .reason = REASON_SUID_NEW },
	{ SYS(open), .errnum = EPERM, .nargs = 2,
	  .args = { CMP_BITS(1, O_CREAT), CMP_BITS(2, S_ISUID) }, .reason = REASON_SUID_NEW },
	{ SYS(open), .errnum = EPERM, .nargs = 2,
	  .args = { CMP_BITS(1, O_CREAT), CMP_BITS(2, S_ISGID) }, .reason = REASON_SUID_NEW },
	{ SYS(open), .errnum = EPERM, .nargs = 2,
	  .args = { CMP_BITS(1, JR_O_TMPFILE_BIT), CMP_BITS(2, S_ISUID) }, .reason = REASON_SUID_NEW },
	{ SYS(open), .errnum = EPERM, .nargs = 2,
	  .args = { CMP_BITS(1, JR_O_TMPFILE_BIT), CMP_BITS(2, S_ISGID) }, .reason = REASON_SUID_NEW },
	{ SYS(openat), .errnum = EPERM, .nargs = 2,
	  .args = { CMP_BITS(2, O_CREAT), CMP_BITS(3, S_ISUID) }, .reason = REASON_SUID_NEW },
	{ SYS(openat), .errnum = EPERM, .nargs = 2,
	  .args = { CMP_BITS(2, O_CREAT), CMP_BITS(3, S_ISGID) }, .reason = REASON_SUID_NEW },
	{ SYS(openat), .errnum = EPERM, .nargs = 2,
	  .args = { CMP_BITS(2, JR_O_TMPFILE_BIT), CMP_BITS(3, S_ISUID) }, .reason = REASON_SUID_NEW },
	{ SYS(openat), .errnum = EPERM, .nargs = 2,
	  .args = { CMP_BITS(2, JR_O_TMPFILE_BIT), CMP_BITS(3, S_ISGID) }, .reason = REASON_SUID_NEW },
	{ SYS(openat2), .errnum = ENOSYS,
	  .reason = "its flags and mode are in struct open_how, in memory, out of the filter's sight: open(O_CREAT, 04755) through it would make a set-user-ID file; ENOSYS as on kernels before 5.6, so its few users (systemd, container runtimes) fall back to openat(2), whose mode the rows above see" },
	{ SYS(mknod), .errnum = EPERM, .nargs = 1, .args = { CMP_BITS(1, S_ISUID) },
	  .reason = "mknod(S_IFREG | 04755) makes a regular file: " REASON_SUID_NEW },
	{ SYS(mknod), .errnum = EPERM, .nargs = 1, .args = { CMP_BITS(1, S_ISGID) },
	  .reason = "as mknod with S_ISUID" },
	{ SYS(mknodat), .errnum = EPERM, .nargs = 1, .args = { CMP_BITS(2, S_ISUID) },
	  .reason = "as mknod with S_ISUID" },
	{ SYS(mknodat), .errnum = EPERM, .nargs = 1, .args = { CMP_BITS(2, S_ISGID) },
	  .reason = "as mknod with S_ISUID" },

	/* Terminals. */
	{ SYS(ioctl), .errnum = EPERM, .nargs = 1, .args = { CMP_LO32(1, TIOCSTI) },
	  .reason = "pushes input into a terminal: typed commands into the caller's shell when the terminal is shared (CVE-2017-5226); the request is compared in its low 32 bits, as the kernel reads it" },
	{ SYS(ioctl), .errnum = EPERM, .nargs = 1, .args = { CMP_LO32(1, TIOCLINUX) },
	  .reason = "virtual console selection and paste: input injection as TIOCSTI" },
};

/*
 * The unix socket guard (unixguard.c): these calls go to the runner's
 * supervisor (SECCOMP_RET_USER_NOTIF), because a pathname AF_UNIX address
 * reaches host sockets past the network namespace and read-only mounts,
 * and BPF cannot read the address to tell. sendto(2) with a NULL address
 * (send(2)) goes only to the connected peer, vetted at connect time: it is
 * not trapped, so ordinary sends cost nothing. bind(2) creates a new
 * inode and never reaches a host socket: not trapped.
 */
struct jr_seccomp_notify_rule {
	const char *name;
	int nr;
	unsigned int nargs;
	struct scmp_arg_cmp args[1];
};

static const struct jr_seccomp_notify_rule notify_rules[] = {
	{ SYS(connect) },
	{ SYS(sendto), .nargs = 1, .args = { CMP(4, SCMP_CMP_NE, 0) } },
	{ SYS(sendmsg) },
	{ SYS(sendmmsg) },
};

#undef SYS
#undef CMP
#undef CMP_LO32
#undef CMP_BITS
/* clang-format on */

static inline void jr_scmp_ctx_freep(scmp_filter_ctx *ctx)
{
	if (*ctx)
		seccomp_release(*ctx);
}

static bool family_allowed(int family)
{
	for (size_t i = 0; i < ARRAY_SIZE(allowed_families); i++)
		if (allowed_families[i] == family)
			return true;
	return false;
}

/*
 * add_family_rules - socket(2) refused for every family not in
 * allowed_families[]. BPF has no "not in set" test, and libseccomp does not
 * take two comparisons of one argument in one rule, so: one EQ rule for
 * each refused family below the largest allowed one, and one GE rule above
 * it. On a 64-bit ABI the comparison covers all 64 bits, so a family with
 * garbage in the upper half is refused too (the kernel would read only the
 * low half): fail closed.
 */
static int add_family_rules(scmp_filter_ctx ctx,
			    const struct jr_seccomp_rule *r)
{
	struct scmp_arg_cmp cmp = { .arg = 0, .op = SCMP_CMP_EQ };
	int max = 0;
	int rc;

	for (size_t i = 0; i < ARRAY_SIZE(allowed_families); i++)
		if (allowed_families[i] > max)
			max = allowed_families[i];
	for (int family = 0; family < max; family++) {
		if (family_allowed(family))
			continue;
		cmp.datum_a = (scmp_datum_t)family;
		rc = seccomp_rule_add_array(
		    ctx, SCMP_ACT_ERRNO((uint32_t)r->errnum), r->nr, 1, &cmp);
		if (rc < 0)
			return rc;
	}
	cmp.op = SCMP_CMP_GE;
	cmp.datum_a = (scmp_datum_t)max + 1;
	return seccomp_rule_add_array(ctx, SCMP_ACT_ERRNO((uint32_t)r->errnum),
				      r->nr, 1, &cmp);
}

/* Every ABI this machine's kernel may accept from one process. */
static int add_arches(scmp_filter_ctx ctx)
{
#if defined(__x86_64__) || defined(__i386__)
	static const uint32_t arches[] = { SCMP_ARCH_X86_64, SCMP_ARCH_X86,
					   SCMP_ARCH_X32 };

	for (size_t i = 0; i < ARRAY_SIZE(arches); i++) {
		int rc = seccomp_arch_add(ctx, arches[i]);

		if (rc < 0 && rc != -EEXIST) /* EEXIST: the native one */
			return rc;
	}
#else
	(void)ctx; /* native only; other ABIs meet the bad-arch action */
#endif
	return 0;
}

/*
 * set_layout - the program as a binary tree over the syscall numbers
 * (libseccomp >= 2.5, SCMP_FLTATR_CTL_OPTIMIZE 2) rather than a chain.
 * The rules and so every answer are the same (test_seccomp's
 * test_tree_equals_chain runs both on the same inputs); what changes is
 * how many tests a syscall passes before its answer: the kernel runs the
 * program for each syscall number and ABI when the filter is loaded
 * (seccomp_cache_prepare(), for the verdicts it caches), in the pre-exec
 * child on the way to the command's start: about 0.3 ms for the chain,
 * 0.1 ms for the tree here. @linear keeps the chain (the test's
 * reference).
 */
static int set_layout(scmp_filter_ctx ctx, bool linear)
{
#if SCMP_VER_MAJOR > 2 || (SCMP_VER_MAJOR == 2 && SCMP_VER_MINOR >= 5)
	if (!linear)
		return seccomp_attr_set(ctx, SCMP_FLTATR_CTL_OPTIMIZE, 2);
#else
	(void)ctx;
	(void)linear;
#endif
	return 0;
}

/*
 * resolve_by_name - the number of a by_name row's syscall, from
 * libseccomp's own table. A libseccomp older than the syscall does not
 * know it: then the row is left out if the kernel lacks the syscall too
 * (nothing to refuse), and the build fails if the kernel has it, as the
 * filter could not keep its promise (fchmodat2 would set S_ISUID past
 * the fchmodat rows).
 * At build time (@build_time) an unknown name is an error instead.
 * Return: 1 with *@nr set, 0 to leave the row out, or -errno with @err set.
 */
static int resolve_by_name(const struct jr_seccomp_rule *r, bool build_time,
			   int *nr, struct jr_err *err)
{
	*nr = seccomp_syscall_resolve_name(r->name);
	if (*nr != __NR_SCMP_ERROR)
		return 1;
	/* The kernel of the machine that builds says nothing about the one
	 * that runs: no prebuilt program then (seccomp_gen.c). */
	if (build_time)
		return jr_err_set(err, ENOSYS,
				  "libseccomp does not know the system call %s",
				  r->name);
#ifdef JR_NR_FCHMODAT2
	if (strcmp(r->name, "fchmodat2") == 0) {
		/* A bad fd: the kernel says EBADF, or ENOSYS without it. */
		if (syscall(JR_NR_FCHMODAT2, -1, "", 0, 0) < 0 &&
		    errno == ENOSYS)
			return 0;
		return jr_err_set(
		    err, ENOSYS,
		    "this kernel has fchmodat2, which libseccomp %u.%u.%u does not know, so the seccomp filter cannot refuse set-user-ID bits through it; upgrade libseccomp (2.5.5 or later) and rebuild jailrun",
		    seccomp_version()->major, seccomp_version()->minor,
		    seccomp_version()->micro);
	}
#endif
	return jr_err_set(
	    err, ENOSYS,
	    "libseccomp does not know the system call %s, which the seccomp filter must refuse (%s); upgrade libseccomp",
	    r->name, r->reason);
}

/*
 * export_bpf - the filter as classic BPF in a malloc'd buffer.
 * seccomp_export_bpf() (libseccomp 2.5) only writes to an fd; a memfd keeps
 * it off the filesystem.
 */
static int export_bpf(scmp_filter_ctx ctx, struct sock_fprog *prog,
		      struct jr_err *err)
{
	_cleanup_close_ int fd = -1;
	_cleanup_free_ struct sock_filter *buf = NULL;
	struct stat st;
	size_t size, done = 0;
	int rc;

	fd = memfd_create("jailrun-seccomp", MFD_CLOEXEC);
	if (fd < 0)
		return jr_err_set(
		    err, errno,
		    "cannot create a memfd for the seccomp filter: %s",
		    strerror(errno));
	rc = seccomp_export_bpf(ctx, fd);
	if (rc < 0)
		return jr_err_set(err, -rc,
				  "cannot export the seccomp filter: %s",
				  strerror(-rc));
	if (fstat(fd, &st) < 0)
		return jr_err_set(err, errno, "fstat of the seccomp filter: %s",
				  strerror(errno));
	size = (size_t)st.st_size;
	if (size == 0 || size % sizeof(struct sock_filter) != 0 ||
	    size / sizeof(struct sock_filter) > BPF_MAXINSNS)
		return jr_err_set(
		    err, EINVAL,
		    "the exported seccomp filter has an unusable size (%zu bytes; at most %d instructions)",
		    size, BPF_MAXINSNS);
	buf = malloc(size);
	if (!buf)
		return jr_err_set(err, ENOMEM,
				  "out of memory for the seccomp filter");
	while (done < size) {
		ssize_t n =
		    pread(fd, (char *)buf + done, size - done, (off_t)done);

		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0)
			return jr_err_set(
			    err, n < 0 ? errno : EIO,
			    "cannot read back the seccomp filter: %s",
			    n < 0 ? strerror(errno) : "short read");
		done += (size_t)n;
	}
	prog->len = (unsigned short)(size / sizeof(struct sock_filter));
	prog->filter = steal_pointer(&buf);
	return 0;
}

int jr_seccomp_build_libseccomp(const struct jr_seccomp_options *o,
				struct jr_seccomp_filter *out,
				struct jr_err *err)
{
	_cleanup_(jr_scmp_ctx_freep) scmp_filter_ctx ctx = NULL;
	bool allow_nested = o && o->allow_nested;
	int rc;

	out->prog.len = 0;
	out->prog.filter = NULL;
	out->notify = false;

	ctx = seccomp_init(SCMP_ACT_ALLOW);
	if (!ctx)
		return jr_err_set(
		    err, ENOMEM,
		    "cannot create a seccomp filter (seccomp_init)");
	/*
	 * An ABI the filter does not cover must not pass unfiltered; killing
	 * the whole process (not only the thread, libseccomp's default) makes
	 * the failure plain. libseccomp takes KILL_PROCESS only once it has
	 * asked the kernel (seccomp(SECCOMP_GET_ACTION_AVAIL), Linux 4.14):
	 * where the runner cannot ask (under valgrind, or a filter of its
	 * own), the thread is killed instead.
	 */
	rc = o && o->kill_thread
		 ? -EOPNOTSUPP
		 : seccomp_attr_set(ctx, SCMP_FLTATR_ACT_BADARCH,
				    SCMP_ACT_KILL_PROCESS);
	if (rc < 0)
		rc = seccomp_attr_set(ctx, SCMP_FLTATR_ACT_BADARCH,
				      SCMP_ACT_KILL_THREAD);
	if (rc < 0)
		return jr_err_set(
		    err, -rc,
		    "cannot set the seccomp bad-architecture action: %s",
		    strerror(-rc));
	rc = set_layout(ctx, o && o->linear);
	if (rc < 0)
		return jr_err_set(err, -rc,
				  "cannot set the seccomp filter's layout: %s",
				  strerror(-rc));
	rc = add_arches(ctx);
	if (rc < 0)
		return jr_err_set(
		    err, -rc,
		    "cannot add the 32-bit ABIs to the seccomp filter: %s",
		    strerror(-rc));

	for (size_t i = 0; i < ARRAY_SIZE(rules); i++) {
		const struct jr_seccomp_rule *r = &rules[i];
		int nr = r->nr;

		if (r->nested && allow_nested)
			continue;
		if (r->by_name) {
			rc = resolve_by_name(r, o && o->build_time, &nr, err);
			if (rc < 0)
				return rc;
			if (rc == 0)
				continue;
		}
		if (r->families)
			rc = add_family_rules(ctx, r);
		else
			rc = seccomp_rule_add_array(
			    ctx, SCMP_ACT_ERRNO((uint32_t)r->errnum), nr,
			    r->nargs, r->args);
		if (rc < 0)
			return jr_err_set(
			    err, -rc,
			    "cannot add the seccomp rule for %s (%s): %s",
			    r->name, r->reason, strerror(-rc));
	}
	if (o && o->unix_guard) {
		for (size_t i = 0; i < ARRAY_SIZE(notify_rules); i++) {
			const struct jr_seccomp_notify_rule *r =
			    &notify_rules[i];

			rc = seccomp_rule_add_array(ctx, SCMP_ACT_NOTIFY, r->nr,
						    r->nargs, r->args);
			if (rc < 0)
				return jr_err_set(
				    err, -rc,
				    "cannot add the unix socket guard's rule for %s: %s (the kernel needs seccomp user notification, Linux >= 5.5)",
				    r->name, strerror(-rc));
		}
		out->notify = true;
	}
	return export_bpf(ctx, &out->prog, err);
}

int jr_seccomp_load(const struct jr_seccomp_filter *f, int *listener,
		    struct jr_err *err)
{
	long r;

	if (listener)
		*listener = -1;
	/*
	 * seccomp(2): without no_new_privs the kernel takes a filter only
	 * from a caller with CAP_SYS_ADMIN in its namespace. jr_privs_drop()
	 * sets it; if it is not set the privileges were not dropped, and we
	 * refuse rather than lean on the capability.
	 */
	if (prctl(PR_GET_NO_NEW_PRIVS, 0, 0, 0, 0) != 1)
		return jr_err_set(
		    err, EPERM,
		    "no_new_privs is not set: the seccomp filter is loaded only after the privileges are dropped");
	if (!f->prog.filter || f->prog.len == 0)
		return jr_err_set(err, EINVAL, "no seccomp filter was built");
	if (f->notify) {
		int interruptible = 0;

		/*
		 * No prctl() fallback: that form has no listener. The guard
		 * runs calls on the task's behalf, so a non-fatal signal
		 * must not interrupt a call it has already received
		 * (seccomp_unotify(2)): the call would be restarted and run
		 * twice (a duplicate TCP send, EISCONN on a connect).
		 * WAIT_KILLABLE_RECV (Linux 5.19) keeps the wait killable
		 * only once the supervisor has the notification; an older
		 * kernel refuses the flag with EINVAL, and only then do we
		 * load without it (the runner says so at -v).
		 */
		r = syscall(SYS_seccomp, SECCOMP_SET_MODE_FILTER,
			    SECCOMP_FILTER_FLAG_NEW_LISTENER |
				JR_SECCOMP_FILTER_FLAG_WAIT_KILLABLE_RECV,
			    &f->prog);
		if (r < 0 && errno == EINVAL) {
			interruptible = 1;
			r = syscall(SYS_seccomp, SECCOMP_SET_MODE_FILTER,
				    SECCOMP_FILTER_FLAG_NEW_LISTENER, &f->prog);
		}
		if (r < 0 || !listener)
			return jr_err_set(
			    err, r < 0 ? errno : EINVAL,
			    "cannot load the seccomp filter with the unix socket guard's listener: %s",
			    r < 0 ? strerror(errno) : "nowhere to put it");
		*listener = (int)r;
		return interruptible;
	}
	if (syscall(SYS_seccomp, SECCOMP_SET_MODE_FILTER, 0, &f->prog) == 0)
		return 0;
	/* Linux before 3.17 has only the prctl() form. */
	if (errno == ENOSYS &&
	    prctl(PR_SET_SECCOMP, SECCOMP_MODE_FILTER, &f->prog, 0, 0) == 0)
		return 0;
	return jr_err_set(err, errno, "cannot load the seccomp filter: %s",
			  strerror(errno));
}

int jr_seccomp_to_memfd(const struct jr_seccomp_filter *f, struct jr_err *err)
{
	const unsigned seals =
	    F_SEAL_WRITE | F_SEAL_SHRINK | F_SEAL_GROW | F_SEAL_SEAL;
	size_t len = (size_t)f->prog.len * sizeof(struct sock_filter);
	const char *p = (const char *)f->prog.filter;
	_cleanup_close_ int fd = -1;

	if (!f->prog.filter || !f->prog.len)
		return jr_err_set(err, EINVAL, "no seccomp filter was built");
	fd = memfd_create("jailrun-seccomp", MFD_CLOEXEC | MFD_ALLOW_SEALING);
	if (fd < 0)
		return jr_err_set(err, errno,
				  "cannot hand the seccomp filter over: "
				  "memfd_create: %s",
				  strerror(errno));
	while (len) {
		ssize_t n = write(fd, p, len);

		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0)
			return jr_err_set(err, n < 0 ? errno : EIO,
					  "cannot hand the seccomp filter "
					  "over: write: %s",
					  n < 0 ? strerror(errno) : "short");
		p += n;
		len -= (size_t)n;
	}
	if (fcntl(fd, F_ADD_SEALS, seals) < 0)
		return jr_err_set(err, errno,
				  "cannot hand the seccomp filter over: "
				  "F_ADD_SEALS: %s",
				  strerror(errno));
	return steal_fd(&fd);
}

int jr_seccomp_from_memfd(int fd, bool notify, struct jr_seccomp_filter *out,
			  struct jr_err *err)
{
	const int need = F_SEAL_WRITE | F_SEAL_SHRINK | F_SEAL_GROW;
	struct sock_filter *buf;
	size_t len, got = 0;
	struct stat st;
	int seals;

	out->prog.len = 0;
	out->prog.filter = NULL;
	out->notify = false;
	seals = fcntl(fd, F_GET_SEALS);
	if (seals < 0 || (seals & need) != need)
		return jr_err_set(err, seals < 0 ? errno : EPERM,
				  "the seccomp filter from the runner is not "
				  "in a sealed memfd");
	if (fstat(fd, &st) < 0)
		return jr_err_set(err, errno,
				  "cannot read the seccomp filter: fstat: %s",
				  strerror(errno));
	len = (size_t)st.st_size;
	if (st.st_size <= 0 || len % sizeof(struct sock_filter) ||
	    len / sizeof(struct sock_filter) > BPF_MAXINSNS)
		return jr_err_set(err, EINVAL,
				  "the seccomp filter from the runner has %lld "
				  "bytes: not 1 to %d whole instructions",
				  (long long)st.st_size, BPF_MAXINSNS);
	buf = malloc(len);
	if (!buf)
		return jr_err_set(err, ENOMEM, "out of memory");
	while (got < len) {
		ssize_t n = pread(fd, (char *)buf + got, len - got, (off_t)got);

		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0) {
			free(buf);
			return jr_err_set(err, n < 0 ? errno : EIO,
					  "cannot read the seccomp filter: %s",
					  n < 0 ? strerror(errno) : "short");
		}
		got += (size_t)n;
	}
	out->prog.filter = buf;
	out->prog.len = (unsigned short)(len / sizeof(struct sock_filter));
	out->notify = notify;
	return 0;
}

void jr_seccomp_release(struct jr_seccomp_filter *f)
{
	if (!f)
		return;
	free(f->prog.filter);
	f->prog.filter = NULL;
	f->prog.len = 0;
	f->notify = false;
}
