// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * check.c - jailrun --check.
 *
 * Theory of operation: each item is tried for real, the way jailrun itself
 * would use it, in a forked child (so a half-made namespace or a loaded
 * seccomp filter dies with it). The child sends its struct jr_err back
 * through a pipe. The nf_tables item installs and verifies the very ruleset
 * a sandbox gets, using the same code, inside a throwaway user+net
 * namespace; it never touches the caller's network namespace.
 */

#include <errno.h>
#include <fcntl.h>
#include <linux/netlink.h>
#include <sched.h>
#include <seccomp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mount.h>
#include <sys/prctl.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <unistd.h>
#include <stddef.h>
#include <signal.h>
#include <sys/ioctl.h>
#include <sys/syscall.h>
#include <linux/filter.h>
#include <linux/seccomp.h>
#include <libmnl/libmnl.h>

#include "cgroup.h"
#include "check.h"
#include "landlock.h"
#include "cleanup.h"
#include "container.h"
#include "err.h"
#include "nft.h"
#include "ruleset.h"
#include "userns.h"

typedef int (*check_fn)(struct jr_err *err);

/* unshare(flags) with CLONE_NEWUSER, then map our ids like jailrun does. */
static int enter_userns(int extra_flags, struct jr_err *err)
{
	/*
	 * Map our own ids, as jailrun maps the caller's. After unshare the
	 * maps are written from inside the new namespace, where even root
	 * holds no capability over the parent: so, like a rootless runner,
	 * only our own ids and with setgroups denied (user_namespaces(7)).
	 */
	const struct jr_ids self = {
		.uid = geteuid(),
		.gid = getegid(),
		.host_uid = geteuid(),
		.host_gid = getegid(),
		.privileged = false,
	};

	if (unshare(CLONE_NEWUSER | extra_flags) < 0)
		return jr_userns_explain("cannot create namespaces", errno,
					 err);
	return jr_userns_write_maps(getpid(), &self, err);
}

static int check_userns(struct jr_err *err)
{
	int r = enter_userns(CLONE_NEWUTS, err);

	if (r < 0)
		return r;
	/* Holding capabilities in it is what matters (AppArmor may let the
	 * namespace be created but strip them). */
	if (sethostname("jailrun-check", 13) < 0)
		return jr_userns_explain(
		    "no capabilities inside a new user namespace", errno, err);
	return 0;
}

static int check_netns(struct jr_err *err)
{
	return enter_userns(CLONE_NEWNET, err);
}

static int check_ipc_uts(struct jr_err *err)
{
	return enter_userns(CLONE_NEWIPC | CLONE_NEWUTS, err);
}

static int check_pidns_proc(struct jr_err *err)
{
	int status;
	pid_t pid;
	/* A network namespace of its own: sysfs is mounted only by the owner
	 * of the current one (as the sandbox's init does). */
	int r = enter_userns(CLONE_NEWPID | CLONE_NEWNS | CLONE_NEWNET, err);

	if (r < 0)
		return r;
	pid = fork();
	if (pid < 0)
		return jr_err_set(err, errno,
				  "cannot fork into a new PID namespace: %s",
				  strerror(errno));
	if (pid == 0) {
		if (getpid() != 1)
			_exit(2);
		if (mount(NULL, "/", NULL, MS_REC | MS_PRIVATE, NULL) < 0)
			_exit(3);
		if (mount("proc", "/proc", "proc",
			  MS_NOSUID | MS_NODEV | MS_NOEXEC, NULL) < 0)
			_exit(4);
		if (mount("sysfs", "/sys", "sysfs",
			  MS_RDONLY | MS_NOSUID | MS_NODEV | MS_NOEXEC,
			  NULL) < 0)
			_exit(5);
		_exit(0);
	}
	if (waitpid(pid, &status, 0) < 0)
		return jr_err_set(err, errno, "waitpid: %s", strerror(errno));
	if (!WIFEXITED(status))
		return jr_err_set(err, EIO, "the PID 1 test child died");
	switch (WEXITSTATUS(status)) {
	case 0:
		return 0;
	case 2:
		return jr_err_set(
		    err, EIO, "the new PID namespace does not start at PID 1");
	case 3:
		return jr_err_set(
		    err, EPERM,
		    "cannot make mounts private in a new mount namespace");
	case 4:
		return jr_ctr_explain_mount("proc", "/proc", EPERM, err);
	case 5:
		return jr_ctr_explain_mount("sysfs", "/sys", EPERM, err);
	default:
		return jr_err_set(err, EIO, "the PID 1 test child failed");
	}
}

static int check_nftables(struct jr_err *err)
{
	_cleanup_(mnl_socket_closep) struct mnl_socket *nl = NULL;
	_cleanup_(jr_ruleset_freep) struct jr_ruleset *rs = NULL;
	struct jr_ruleset_params params = { .mode = JR_NET_NONE };
	int fd, r;

	r = enter_userns(CLONE_NEWNET, err);
	if (r < 0)
		return r;
	fd = socket(AF_NETLINK, SOCK_RAW | SOCK_CLOEXEC, NETLINK_NETFILTER);
	if (fd < 0)
		return jr_err_set(
		    err, errno,
		    "cannot open a netfilter netlink socket: %s (kernel without CONFIG_NETFILTER_NETLINK?)",
		    strerror(errno));
	r = jr_nft_socket_from_fd(fd, &nl, err);
	if (r < 0)
		return r;
	r = jr_ruleset_build(&params, &rs, err);
	if (r < 0)
		return r;
	r = jr_nft_install(nl, rs, err);
	if (r < 0)
		return jr_err_prefix(
		    err,
		    "cannot install an nftables ruleset (is the nf_tables module available? try: sudo modprobe nf_tables): ");
	r = jr_nft_verify(nl, rs, err);
	if (r < 0)
		return jr_err_prefix(
		    err,
		    "the installed nftables ruleset did not read back as written: ");
	return 0;
}

static int check_seccomp(struct jr_err *err)
{
	scmp_filter_ctx ctx;
	int r;

	if (prctl(PR_GET_SECCOMP, 0, 0, 0, 0) < 0)
		return jr_err_set(
		    err, errno,
		    "the kernel has no seccomp support (CONFIG_SECCOMP): %s",
		    strerror(errno));
	if (prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) < 0)
		return jr_err_set(err, errno, "cannot set no_new_privs: %s",
				  strerror(errno));
	ctx = seccomp_init(SCMP_ACT_ALLOW);
	if (!ctx)
		return jr_err_set(err, ENOMEM, "seccomp_init failed");
	r = seccomp_rule_add(ctx, SCMP_ACT_ERRNO(EPERM), SCMP_SYS(acct), 0);
	if (r == 0)
		r = seccomp_load(ctx);
	seccomp_release(ctx);
	if (r < 0)
		return jr_err_set(
		    err, -r,
		    "cannot load a seccomp filter: %s (kernel without CONFIG_SECCOMP_FILTER?)",
		    strerror(-r));
	if (acct(NULL) == 0 || errno != EPERM)
		return jr_err_set(err, EIO,
				  "a loaded seccomp filter had no effect");
	return 0;
}

static int check_pty(struct jr_err *err)
{
	int fd = posix_openpt(O_RDWR | O_NOCTTY | O_CLOEXEC);

	if (fd < 0)
		return jr_err_set(
		    err, errno,
		    "cannot allocate a pseudo-terminal: %s (is devpts mounted on /dev/pts?); interactive use needs one",
		    strerror(errno));
	close(fd);
	return 0;
}

/*
 * The unix socket guard's kernel parts, for real: a filter with
 * SECCOMP_RET_USER_NOTIF and a listener, a child trapped in it and
 * answered, pidfd_getfd(2) on that child (what the runner does to the
 * command), and a unix_diag dump (NETLINK_SOCK_DIAG).
 */
static int check_unixguard(struct jr_err *err)
{
	struct sock_filter prog_insns[] = {
		BPF_STMT(BPF_LD | BPF_W | BPF_ABS,
			 offsetof(struct seccomp_data, nr)),
		BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, SYS_getppid, 0, 1),
		BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_USER_NOTIF),
		BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ALLOW),
	};
	struct sock_fprog prog = { .len = ARRAY_SIZE(prog_insns),
				   .filter = prog_insns };
	struct seccomp_notif n = { 0 };
	struct seccomp_notif_resp resp = { 0 };
	int listener, pidfd, fd, status, diag;
	pid_t pid;

	diag = socket(AF_NETLINK, SOCK_RAW | SOCK_CLOEXEC, NETLINK_SOCK_DIAG);
	if (diag < 0)
		return jr_err_set(
		    err, errno,
		    "cannot open a sock_diag socket: %s (CONFIG_UNIX_DIAG; try: sudo modprobe unix_diag)",
		    strerror(errno));
	close(diag);
	if (prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) < 0)
		return jr_err_set(err, errno, "cannot set no_new_privs: %s",
				  strerror(errno));
	listener = (int)syscall(SYS_seccomp, SECCOMP_SET_MODE_FILTER,
				SECCOMP_FILTER_FLAG_NEW_LISTENER, &prog);
	if (listener < 0)
		return jr_err_set(
		    err, errno,
		    "no seccomp user notification: %s (Linux >= 5.5 needed); the unix socket guard cannot run, so jailrun will not",
		    strerror(errno));
	pid = fork();
	if (pid < 0)
		return jr_err_set(err, errno, "fork: %s", strerror(errno));
	if (pid == 0)
		_exit(getppid() == 4242 ? 0 : 1);
	if (ioctl(listener, SECCOMP_IOCTL_NOTIF_RECV, &n) < 0)
		return jr_err_set(err, errno,
				  "cannot receive a seccomp notification: %s",
				  strerror(errno));
	pidfd = (int)syscall(SYS_pidfd_open, pid, 0);
	fd = pidfd < 0 ? -1 : (int)syscall(SYS_pidfd_getfd, pidfd, 0, 0);
	if (fd < 0) {
		int e = errno;

		kill(pid, SIGKILL);
		return jr_err_set(
		    err, e,
		    "pidfd_getfd on a child failed: %s (Linux >= 5.6; Yama ptrace_scope 3 forbids it)",
		    strerror(e));
	}
	close(fd);
	close(pidfd);
	resp.id = n.id;
	resp.val = 4242;
	if (ioctl(listener, SECCOMP_IOCTL_NOTIF_SEND, &resp) < 0)
		return jr_err_set(err, errno,
				  "cannot answer a seccomp notification: %s",
				  strerror(errno));
	while (waitpid(pid, &status, 0) < 0 && errno == EINTR)
		;
	if (!WIFEXITED(status) || WEXITSTATUS(status) != 0)
		return jr_err_set(
		    err, EIO, "a seccomp notification answer did not arrive");
	return 0;
}

/* Which layer keeps host unix sockets out, and Landlock's state. */
static void report_layers(void)
{
	int abi = jr_landlock_abi();

	/* LANDLOCK_ACCESS_FS_RESOLVE_UNIX is the first choice once jailrun
	 * learns it; no kernel it has met has it (Linux 6.18 does not). */
	printf("  info  unix sockets guarded by: seccomp-unotify "
	       "(fallback order: landlock-resolve-unix, not in this kernel; "
	       "then seccomp-unotify)\n");
	if (abi > 0)
		printf("  info  landlock: ABI %d: writes%s%s\n", abi,
		       abi >= 4 ? ", TCP connect" : "",
		       abi >= 6 ? ", abstract-socket and signal scopes" : "");
	else
		printf("  info  landlock: not available (%s): the mount "
		       "namespace and nft hold alone; --landlock require "
		       "would fail\n",
		       strerror(-abi));
}

/* Run @fn in a child; its jr_err comes back through a pipe. */
static int run_isolated(check_fn fn, struct jr_err *err)
{
	int p[2], status;
	ssize_t n;
	pid_t pid;

	if (pipe2(p, O_CLOEXEC) < 0)
		return jr_err_set(err, errno, "pipe2: %s", strerror(errno));
	pid = fork();
	if (pid < 0) {
		close(p[0]);
		close(p[1]);
		return jr_err_set(err, errno, "fork: %s", strerror(errno));
	}
	if (pid == 0) {
		struct jr_err e = { 0 };

		close(p[0]);
		if (fn(&e) < 0) {
			if (write(p[1], &e, sizeof(e)) < 0)
				_exit(2);
			_exit(1);
		}
		_exit(0);
	}
	close(p[1]);
	n = read(p[0], err, sizeof(*err));
	close(p[0]);
	while (waitpid(pid, &status, 0) < 0 && errno == EINTR)
		;
	if (WIFEXITED(status) && WEXITSTATUS(status) == 0 && n == 0)
		return 0;
	if (n != (ssize_t)sizeof(*err))
		return jr_err_set(err, EIO, "the check's child process died");
	err->msg[sizeof(err->msg) - 1] = '\0';
	return -err->code;
}

int jr_check_run(void)
{
	static const struct {
		const char *name;
		check_fn fn;
	} items[] = {
		{ "user namespaces", check_userns },
		{ "network namespaces", check_netns },
		{ "IPC and UTS namespaces", check_ipc_uts },
		{ "PID and mount namespaces, fresh /proc and /sys",
		  check_pidns_proc },
		{ "nf_tables (install and verify the sandbox ruleset)",
		  check_nftables },
		{ "seccomp filters", check_seccomp },
		{ "pseudo-terminals", check_pty },
		{ "unix socket guard (seccomp user notification, pidfd_getfd, sock_diag)",
		  check_unixguard },
	};
	int failed = 0;

	printf("jailrun %s: checking this host as uid %u (%s)\n",
	       PACKAGE_VERSION, (unsigned)geteuid(),
	       geteuid() == 0 ? "root" : "rootless");
	for (size_t i = 0; i < ARRAY_SIZE(items); i++) {
		struct jr_err e = { 0 };

		fflush(stdout);
		if (run_isolated(items[i].fn, &e) == 0) {
			printf("  ok    %s\n", items[i].name);
		} else {
			printf("  FAIL  %s: %s\n", items[i].name, e.msg);
			failed++;
		}
	}
	report_layers();
	jr_cgroup_check_report();
	if (failed)
		printf(
		    "%d check%s failed: jailrun cannot run sandboxes here until fixed\n",
		    failed, failed == 1 ? "" : "s");
	else
		printf(
		    "all checks passed: this host can run jailrun sandboxes\n");
	fflush(stdout);
	return failed ? 1 : 0;
}
