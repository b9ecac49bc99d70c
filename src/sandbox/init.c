// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * init.c - PID 1 of the sandbox.
 *
 * Theory of operation: the runner clone()s this process into new user,
 * network, PID, mount, IPC and UTS namespaces. It is the only process that
 * holds capabilities over them, so it does the setup that needs them
 * (hostname, mounts, lo; in the allowlist mode the relay netns, the veth,
 * addresses, route and resolv.conf). Before any of it, it hands the runner
 * the NETLINK_NETFILTER sockets of the worker netns (NFT_EARLY), through
 * which the runner installs and verifies the rules while init sets up;
 * after it, the relay's listening sockets (SETUP_OK). What only init
 * itself needs (its own last mounts, the wait for the old root, the
 * Landlock ruleset: finish_setup()) it does after SETUP_OK, while the
 * runner starts the relay. Only once that is done, the runner has said GO
 * (with the seccomp filter it built meanwhile), and
 * (allowlist) the relay has answered a self-check through the worker's
 * own route and rules, does it fork the command.
 *
 * As PID 1 of a PID namespace it reaps every orphan; the kernel only
 * delivers signals to it that it has asked for (pid_namespaces(7)), so it
 * keeps the forwarded ones blocked and takes them with sigwaitinfo(),
 * passing each to the command. When the command ends, init reports the
 * status and exits; the kernel then SIGKILLs everything left in the PID
 * namespace, so nothing the command spawned survives it.
 *
 * Two ties bind init to the runner, so that a runner killed even by
 * SIGKILL takes the sandbox with it: PR_SET_PDEATHSIG, and a pidfd of the
 * runner, opened by the runner before the clone and inherited. The
 * parent-death signal alone is not enough: it is cleared by any change of
 * init's credentials (commit_creds() in kernel/cred.c), and a runner that
 * dies before it is armed is never noticed. So init arms it, re-arms it
 * after the setup, reads it back, and then asks the pidfd whether the
 * runner is still there (which closes the race); while the command runs,
 * the pidfd is watched beside the signals. Errors before the command runs
 * are sent to the runner as one line; only the runner decides what to
 * print and which status to exit with.
 */

#include <arpa/inet.h>
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <sched.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/prctl.h>
#include <sys/signalfd.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>
#include <linux/netlink.h>

#include "cleanup.h"
#include "cmdenv.h"
#include "initproto.h"
#include "err.h"
#include "fslayout.h"
#include "init.h"
#include "limits.h"
#include "link.h"
#include "log.h"
#include "mounts.h"
#include "privs.h"
#include "relaynet.h"
#include "selfcheck.h"
#include "startup.h"
#include "unixguard.h"
#include "userns.h"
#include "zygote.h"

#define JR_HOSTNAME "jailrun"
/* The relay is one veth hop away and local: generous for a loaded CI host. */
#define JR_SELFCHECK_TIMEOUT_MS 5000

const int jr_forwarded_signals[] = { SIGINT,  SIGTERM, SIGHUP,	SIGQUIT,
				     SIGUSR1, SIGUSR2, SIGWINCH };
const int jr_forwarded_signals_count =
    (int)(sizeof(jr_forwarded_signals) / sizeof(jr_forwarded_signals[0]));

/* How long the relay netns took (setup_allowlist), for SETUP_OK's phase
 * report. A static is enough: init is a process of its own. */
static uint64_t relaynet_us;
/* How long the filesystem layout took (jr_fs_apply), likewise. */
static uint64_t mounts_us;
/* finish_setup(), after SETUP_OK: when it ran (for EXEC_OK's report) and
 * why it failed (code 0: it did not). */
static uint64_t finish_span[2];
static struct jr_err finish_err;

/* The command's seccomp filter, from the memfd GO carried (initproto.h). */
static struct jr_seccomp_filter seccomp_filter;

/* The Landlock ruleset, built after the mounts and applied by the pre-exec
 * child; -1 when Landlock is not used. */
static int landlock_ruleset = -1;

/* What the pre-exec child tells init through the exec-status pipe. */
struct exec_report {
	int stage; /* JR_INITPROTO_EXEC_STAGE_* */
	int code;  /* errno */
	char msg[400];
};

/* Has the runner died? Its pidfd turns readable when it has (pidfd_open(2)). */
static bool runner_gone(int pidfd)
{
	struct pollfd p = { .fd = pidfd, .events = POLLIN };

	return poll(&p, 1, 0) != 0; /* an error counts as gone: fail closed */
}

/*
 * tie_to_runner - (re-)arm the parent-death signal, read it back, then make
 * sure the runner did not die before it was armed. Called first thing and
 * again after the setup: the setup must not change init's credentials (see
 * jr_mounts_bind_text()), but if anything ever does, this puts the tie back
 * before the command can run.
 */
static void tie_to_runner(int pidfd)
{
	int sig = 0;

	if (prctl(PR_SET_PDEATHSIG, SIGKILL, 0, 0, 0) < 0 ||
	    prctl(PR_GET_PDEATHSIG, &sig, 0, 0, 0) < 0 || sig != SIGKILL)
		_exit(1);
	if (runner_gone(pidfd))
		_exit(1);
}

static void send_or_die(int proto, const struct jr_initproto_msg *m,
			const int *fds, size_t nfds)
{
	/* If the runner is gone there is nobody to serve: just leave. */
	if (jr_initproto_send(proto, m, fds, nfds) < 0)
		_exit(1);
}

static void setup_fail(int proto, const struct jr_err *e)
{
	struct jr_initproto_msg m;

	jr_initproto_msg_init(&m, JR_INITPROTO_SETUP_FAIL, e->code, "%s",
			      e->msg);
	send_or_die(proto, &m, NULL, 0);
	_exit(1);
}

/*
 * The worker's side of the allowlist topology: the relay netns with its
 * listeners, eth0 with G+1 and the default route via G (both made by
 * jr_relaynet_create(); with IPv6 also JR_LINK6_WORKER/64 without DAD and
 * the IPv6 default route to the relay's end: a failure there is a setup
 * failure, exit 125, since the runner planned the rules and the relay for
 * IPv6 and guessing now would be a sandbox other than the one verified);
 * resolv.conf and /etc/hosts follow after SETUP_OK (bind_relay_files()).
 * Fills the listener slots of @fds (JR_INITPROTO_FD_PROXY,
 * JR_INITPROTO_FD_DNS_UDP, JR_INITPROTO_FD_DNS_TCP) and, with
 * --transparent on, JR_INITPROTO_FD_TRANSPARENT, JR_INITPROTO_FD_NFT_RELAY
 * and JR_INITPROTO_FD_NFT_RELAY_MONITOR.
 */
static int setup_allowlist(const struct jr_init_args *a, int *fds,
			   struct jr_err *err)
{
	_cleanup_close_ int worker_ns = -1;
	struct jr_relay_listeners l;
	int relay_nft[2] = { -1, -1 };
	int r;

	worker_ns = open("/proc/self/ns/net", O_RDONLY | O_CLOEXEC);
	if (worker_ns < 0)
		return jr_err_set(err, errno,
				  "cannot open the worker netns: %s",
				  strerror(errno));
	r = jr_relaynet_create(
	    worker_ns, &a->gateway, a->transparent, a->ipv6, &l, relay_nft,
	    a->lanes, a->lane_ipv6,
	    &fds[jr_initproto_setup_nfds(a->net, a->transparent, a->ipv6)],
	    err);
	if (r < 0)
		return r;
	fds[JR_INITPROTO_FD_PROXY] = l.proxy;
	fds[JR_INITPROTO_FD_DNS_UDP] = l.dns_udp;
	fds[JR_INITPROTO_FD_DNS_TCP] = l.dns_tcp;
	if (a->transparent) {
		fds[JR_INITPROTO_FD_TRANSPARENT] = l.transparent;
		fds[JR_INITPROTO_FD_NFT_RELAY] = relay_nft[0];
		fds[JR_INITPROTO_FD_NFT_RELAY_MONITOR] = relay_nft[1];
		if (a->ipv6)
			fds[JR_INITPROTO_FD_TRANSPARENT6] = l.transparent6;
	}
	return 0;
}

/*
 * bind_relay_files - (allowlist) /etc/resolv.conf naming the relay's DNS
 * forwarder, /etc/hosts with the pinned names, and the trust bundle,
 * each bound read-only. Part of finish_setup(): init's own mounts, which
 * the runner does not wait for.
 */
static int bind_relay_files(const struct jr_init_args *a, struct jr_err *err)
{
	char resolv[128], gw[INET_ADDRSTRLEN];
	int r;

	inet_ntop(AF_INET, &a->gateway.relay, gw, sizeof(gw));
	/* The nameserver stays the IPv4 gateway, also with IPv6: the
	 * worker always has IPv4, an AAAA question needs no IPv6 transport
	 * to be answered, and one DNS rule and listener is one less way
	 * out to keep right. */
	/* Short timeouts: the relay is one hop away and answers or refuses
	 * at once; a lost datagram should not stall a lookup for 5 s. With
	 * --ask a refused name is held for a decision: then the longest
	 * timeout glibc takes (30 s, RES_MAXRETRANS in resolv.h), twice, so
	 * the lookup is still waiting when the operator answers (each retry
	 * joins the held request, asktable.c). */
	snprintf(
	    resolv, sizeof(resolv),
	    "# jailrun: the relay's DNS forwarder\nnameserver %s\noptions timeout:%d attempts:2\n",
	    gw, a->ask ? 30 : 2);
	r = jr_mounts_bind_text("/etc/resolv.conf", resolv, a->ids->uid,
				a->ids->gid, err);
	if (r == 0 && a->etc_hosts)
		r = jr_mounts_bind_text("/etc/hosts", a->etc_hosts, a->ids->uid,
					a->ids->gid, err);
	if (r < 0 || !a->trust_bundle)
		return r;
	return jr_mounts_trust_bundle(a->trust_bundle, a->ids->uid, a->ids->gid,
				      err);
}

/*
 * What init does with its capabilities before SETUP_OK, while the runner
 * installs the rules (the rest, after it: finish_setup()). Fills the
 * slots of @fds (enum jr_initproto_fd) from JR_INITPROTO_FDS_EARLY on
 * that the mode sends; *@nfds says up to where.
 */
static int setup_namespaces(const struct jr_init_args *a, int *fds,
			    size_t *nfds, struct jr_err *err)
{
	int r;

	/* The first use of the namespace's capabilities: where a security
	 * module (Ubuntu's AppArmor userns restriction) lets the namespace be
	 * created but strips its capabilities, this is where it shows. */
	if (sethostname(JR_HOSTNAME, strlen(JR_HOSTNAME)) < 0)
		return jr_userns_explain(
		    "cannot use the sandbox's user namespace (sethostname)",
		    errno, err);
	{
		uint64_t t = jr_clock_us();

		r = jr_fs_apply(a->fs, a->pty_slave, a->caller_uid,
				a->ids->host_uid, a->expose, a->n_expose, err);
		if (r < 0)
			return r;
		mounts_us = jr_clock_us() - t;
	}
	r = jr_link_lo_up(err);
	if (r < 0)
		return r;
	if (a->net == JR_NET_ALLOWLIST) {
		uint64_t t = jr_clock_us();

		r = setup_allowlist(a, fds, err);
		if (r < 0)
			return r;
		relaynet_us = jr_clock_us() - t;
	}
	*nfds = jr_initproto_setup_nfds(a->net, a->transparent, a->ipv6);
	if (a->net == JR_NET_ALLOWLIST && a->lanes)
		*nfds += jr_lanes_nfds(a->lanes, a->lane_ipv6);
	/* Made here, in the worker netns: unix_diag lists the sockets of
	 * its own netns only, which is the question unixguard.c asks. */
	fds[JR_INITPROTO_FD_UNIX_DIAG] =
	    socket(AF_NETLINK, SOCK_RAW | SOCK_CLOEXEC, NETLINK_SOCK_DIAG);
	if (fds[JR_INITPROTO_FD_UNIX_DIAG] < 0)
		return jr_err_set(
		    err, errno,
		    "cannot open a sock_diag netlink socket in the sandbox: %s (the unix socket guard needs it; is CONFIG_UNIX_DIAG set? try: sudo modprobe unix_diag)",
		    strerror(errno));
	return 0;
}

/*
 * finish_setup - what init does with its capabilities after SETUP_OK:
 * its own mounts (the relay's files, /proc/sys read-only), the wait for
 * the host's old root to be gone, and the Landlock ruleset. Nothing the
 * runner does before GO needs them, so they run beside its relay table,
 * relay and watchdog instead of before them (docs/performance.md, cold
 * start); the command still starts only after them, since init reads GO
 * only once they are done (jr_init_main()).
 */
static int finish_setup(const struct jr_init_args *a, struct jr_err *err)
{
	int r;

	if (a->net == JR_NET_ALLOWLIST) {
		r = bind_relay_files(a, err);
		if (r < 0)
			return r;
	}
	r = jr_mounts_proc_sys_readonly(err);
	if (r < 0)
		return r;
	/* The host's old root gone: landlock's paths must not reach it. */
	r = jr_fs_apply_finish(err);
	if (r < 0)
		return r;
	/* After the mounts: the paths are opened as the command sees them. */
	if (a->landlock && a->landlock->abi > 0) {
		r = jr_landlock_build(a->landlock, err);
		if (r < 0)
			return r;
		landlock_ruleset = r;
	}
	return 0;
}

/*
 * send_nft_early - open the worker netns's two netfilter sockets (slots
 * [0, JR_INITPROTO_FDS_EARLY) of enum jr_initproto_fd) and send them to the
 * runner at once, so that it installs and verifies the worker table while we
 * set up the rest. Safe before the setup: the worker ruleset matches an
 * interface by index only for lo, which exists from the netns's creation
 * on, and otherwise by address (ruleset.c), so eth0 not existing yet
 * changes nothing; and nothing this process does before GO sends a packet
 * in the worker netns (the relay self-check runs after GO, inside the
 * finished rules). What matters is unchanged: the command runs only after
 * GO, and the runner sends GO only once every table is verified and the
 * relay and watchdog run (sandbox.c).
 */
static void send_nft_early(int proto)
{
	struct jr_err err = { 0 };
	struct jr_initproto_msg m;
	int fds[JR_INITPROTO_FDS_EARLY];

	for (int i = 0; i < JR_INITPROTO_FDS_EARLY; i++) {
		fds[i] = socket(AF_NETLINK, SOCK_RAW | SOCK_CLOEXEC,
				NETLINK_NETFILTER);
		if (fds[i] < 0) {
			jr_err_set(
			    &err, errno,
			    "cannot open a netfilter netlink socket in the sandbox: %s (is nf_tables available? try: sudo modprobe nf_tables)",
			    strerror(errno));
			setup_fail(proto, &err);
		}
	}
	jr_initproto_msg_init(&m, JR_INITPROTO_NFT_EARLY, 0, NULL);
	send_or_die(proto, &m, fds, JR_INITPROTO_FDS_EARLY);
	/* The runner holds them now; no copy may reach the command. */
	for (int i = 0; i < JR_INITPROTO_FDS_EARLY; i++)
		close(fds[i]);
}

/*
 * recv_go - wait for GO; with --seccomp on, take the filter from the
 * memfd it carries. Anything else ends init: ABORT or the runner gone
 * (exit 1, nothing to tell), a filter missing or malformed (EXEC_FAIL,
 * which the runner reports: exit 125).
 */
static void recv_go(const struct jr_init_args *a)
{
	struct jr_err err = { 0 };
	struct jr_initproto_msg m;
	int fd = -1;
	size_t nfd = 1;
	int r;

	r = jr_initproto_recv(a->proto, &m, &fd, &nfd);
	if (r < 0 || m.type != JR_INITPROTO_GO) {
		if (nfd)
			close(fd);
		_exit(1);
	}
	if (!a->seccomp) {
		if (nfd)
			close(fd);
		return;
	}
	if (nfd != 1)
		r = jr_err_set(
		    &err, EPROTO,
		    "the seccomp filter did not arrive from the runner, refusing to run the command");
	else
		r = jr_seccomp_from_memfd(fd,
					  m.status == JR_INITPROTO_GO_NOTIFY,
					  &seccomp_filter, &err);
	if (nfd)
		close(fd);
	if (r < 0) {
		jr_initproto_msg_init(&m, JR_INITPROTO_EXEC_FAIL, err.code,
				      "%s", err.msg);
		m.status = JR_INITPROTO_EXEC_STAGE_PREEXEC;
		send_or_die(a->proto, &m, NULL, 0);
		_exit(0);
	}
}

/* The proxy variables tools look for (curl, wget, pip, git, Python, Go, Node
 * libraries...), lowercase and uppercase as both are read. */
static int set_proxy_env(struct in_addr gw, struct jr_err *err)
{
	static const char no_proxy[] = "localhost,127.0.0.1,::1";
	char addr[INET_ADDRSTRLEN], url[64];

	inet_ntop(AF_INET, &gw, addr, sizeof(addr));
	snprintf(url, sizeof(url), "http://%s:%d", addr, JR_PROXY_PORT);
	for (size_t i = 0; i < jr_env_n_proxy_vars; i++)
		if (setenv(jr_env_proxy_vars[i], url, 1) < 0)
			return jr_err_set(err, errno, "setenv: %s",
					  strerror(errno));
	/* Node's built-in fetch and http ignore the variables above unless
	 * told to read them (Node >= 22.21/24.5); transparent capture
	 * catches older Nodes, this keeps newer ones on the proxy and its
	 * per-request policy. */
	if (setenv("NO_PROXY", no_proxy, 1) < 0 ||
	    setenv("no_proxy", no_proxy, 1) < 0 ||
	    setenv("NODE_USE_ENV_PROXY", "1", 1) < 0)
		return jr_err_set(err, errno, "setenv: %s", strerror(errno));
	return 0;
}

/*
 * The model lane's variables: JAILRUN_LANE_<PORT> for each host lane,
 * each --lane-env (expanded in the runner, cmdenv.c), and
 * host.jailrun.internal in NO_PROXY, so clients connect to the lane
 * directly (the proxy does not serve it: the lane is a gateway port).
 */
static int set_lane_env(const struct jr_lanes *l,
			const struct jr_env_plan *plan, struct jr_err *err)
{
	char name[32], url[64], no_proxy[256];
	const char *old;

	if (!l->n_host)
		return 0;
	for (size_t i = 0; i < l->n_lane; i++) {
		if (!l->lane[i].host)
			continue;
		snprintf(name, sizeof(name), "JAILRUN_LANE_%u",
			 l->lane[i].port);
		snprintf(url, sizeof(url), "http://%s:%u", JR_LANE_HOST_NAME,
			 l->lane[i].port);
		if (setenv(name, url, 1) < 0)
			return jr_err_set(err, errno, "setenv: %s",
					  strerror(errno));
	}
	for (size_t i = 0; i < plan->n_lane; i++)
		if (setenv(plan->lane[i].name, plan->lane[i].value, 1) < 0)
			return jr_err_set(err, errno, "setenv %s: %s",
					  plan->lane[i].name, strerror(errno));
	old = getenv("NO_PROXY");
	snprintf(no_proxy, sizeof(no_proxy), "%s%s%s", old ? old : "",
		 old && *old ? "," : "", JR_LANE_HOST_NAME);
	if (setenv("NO_PROXY", no_proxy, 1) < 0 ||
	    setenv("no_proxy", no_proxy, 1) < 0)
		return jr_err_set(err, errno, "setenv: %s", strerror(errno));
	return 0;
}

/*
 * jr_exec_search - execv() @argv[0], searching $PATH the way the shells do
 * (POSIX XCU 2.9.1.1): a directory we cannot search, or one without the
 * file, is skipped. execvp(3) instead reports EACCES when any directory on
 * PATH was unsearchable, which would turn "not found" (127) into "not
 * executable" (126) for an unprivileged command with root's PATH. A file
 * without a #! line is run by /bin/sh, as execvp(3) and the shells do.
 * Returns only on failure, with errno set.
 */
void jr_exec_search(char *const argv[])
{
	const char *path = getenv("PATH");
	const char *name = argv[0];
	size_t nlen = strlen(name);
	int found_errno = ENOENT;

	if (strchr(name, '/')) {
		execv(name, argv);
		if (errno == ENOEXEC)
			goto shell;
		return;
	}
	if (!path)
		path = "/usr/local/bin:/usr/bin:/bin";
	while (*path) {
		const char *end = strchrnul(path, ':');
		size_t dlen = (size_t)(end - path);
		char full[4096];
		struct stat st;

		if (dlen + 1 + nlen + 1 <= sizeof(full)) {
			/* An empty entry means the current directory. */
			if (dlen) {
				memcpy(full, path, dlen);
				full[dlen] = '/';
				memcpy(full + dlen + 1, name, nlen + 1);
			} else {
				memcpy(full, name, nlen + 1);
			}
			if (stat(full, &st) == 0 && S_ISREG(st.st_mode)) {
				execv(full, argv);
				if (errno == ENOEXEC) {
					name = full;
					goto shell;
				}
				/* Found but not runnable: remember, keep looking
				 * like the shells do. */
				found_errno = errno;
			}
		}
		path = *end ? end + 1 : end;
	}
	errno = found_errno;
	return;

shell : {
	size_t argc = 0;

	while (argv[argc])
		argc++;
	char *sh_argv[argc + 2];

	sh_argv[0] = (char *)"/bin/sh";
	sh_argv[1] = (char *)name;
	for (size_t i = 1; i <= argc; i++)
		sh_argv[i + 1] = argv[i];
	execv("/bin/sh", sh_argv);
	errno = ENOEXEC;
}
}

/*
 * command_env - the command's environment in the order envplan.h gives:
 * its user's HOME, USER, LOGNAME, SHELL and the env files, then jailrun's
 * own variables (the proxy, the lanes), then --setenv and --unsetenv,
 * and PATH pruned last.
 */
static int command_env(const struct jr_init_args *a, struct jr_err *err)
{
	if (jr_cmdenv_base(a->env, err) < 0)
		return -1;
	if (a->net == JR_NET_ALLOWLIST &&
	    set_proxy_env(a->gateway.relay, err) < 0)
		return -1;
	if (a->net == JR_NET_ALLOWLIST && a->lanes &&
	    set_lane_env(a->lanes, a->env, err) < 0)
		return -1;
	return jr_cmdenv_finish(a->env, err);
}

/* The pre-exec child: becomes the command or reports why not. */
__attribute__((noreturn)) static void exec_command(const struct jr_init_args *a,
						   int report_fd)
{
	struct exec_report rep;
	struct jr_err err = { 0 };
	sigset_t none;

	memset(&rep, 0, sizeof(rep));
	rep.stage = JR_INITPROTO_EXEC_STAGE_PREEXEC;

	/* A new session: no controlling terminal to inject keystrokes into
	 * (TIOCSTI needs the target to be our controlling tty, tty_ioctl(4)). */
	if (setsid() < 0) {
		jr_err_set(&err, errno, "setsid failed: %s", strerror(errno));
		goto fail;
	}
	if (a->pty_slave >= 0) {
		if (ioctl(a->pty_slave, TIOCSCTTY, 0) < 0) {
			jr_err_set(
			    &err, errno,
			    "cannot make the pseudo-terminal the controlling terminal: %s",
			    strerror(errno));
			goto fail;
		}
		for (int fd = 0; fd < 3; fd++) {
			if (a->pty_std[fd] && dup2(a->pty_slave, fd) < 0) {
				jr_err_set(&err, errno,
					   "dup2 of the pseudo-terminal: %s",
					   strerror(errno));
				goto fail;
			}
		}
	}
	/* --clearenv first; then variables naming host sockets (TMUX,
	 * SSH_AUTH_SOCK...) go, unless the socket is passed with --expose
	 * (fspolicy.c, jr_env_rules). */
	jr_cmdenv_clear(a->env);
	jr_fs_scrub_env(a->fs);
	if (jr_privs_drop(a->ids, &err) < 0)
		goto fail;
	/* After no_new_privs (which Landlock needs), before the filter. */
	if (landlock_ruleset >= 0 &&
	    jr_landlock_apply(landlock_ruleset, &err) < 0)
		goto fail;
	/* As the command, after the drop: HOME and PATH are judged by what
	 * it can search (cmdenv.c). */
	if (command_env(a, &err) < 0)
		goto fail;

	/* Everything but 0, 1, 2 closes at exec, even fds we did not open
	 * ourselves (inherited from whoever started jailrun). */
	if (close_range(3, ~0U, CLOSE_RANGE_CLOEXEC) < 0) {
		jr_err_set(&err, errno, "close_range failed: %s",
			   strerror(errno));
		goto fail;
	}
	sigemptyset(&none);
	signal(SIGPIPE, SIG_DFL);
	sigprocmask(SIG_SETMASK, &none, NULL);
	/* The command's limits, not jailrun's: set last before the filter. */
	if (a->limits && jr_rlimits_apply(a->limits, &err) < 0)
		goto fail;

	/* Last: from here on only what the command itself may do is left to
	 * do (the filter needs no_new_privs, set by jr_privs_drop()). */
	if (a->seccomp) {
		int listener = -1;
		int interruptible =
		    jr_seccomp_load(&seccomp_filter, &listener, &err);

		if (interruptible < 0)
			goto fail;
		/* From here our own connect/sendmsg would wait for a
		 * supervisor: only write/read until the runner has it. */
		if (listener >= 0 &&
		    jr_unixguard_handover(a->proto, listener, interruptible > 0,
					  &err) < 0)
			goto fail;
	}

	/* A live sandbox: this process stays, as the zygote (zygote.c). */
	if (a->live_fd >= 0) {
		if (jr_zygote_prepare(a->live_fd, report_fd, &err) < 0)
			goto fail;
		close(report_fd); /* EOF: ready, as an exec would say */
		jr_zygote_serve(a->live_fd);
	}
	jr_exec_search(a->command);

	rep.stage = JR_INITPROTO_EXEC_STAGE_EXEC;
	jr_err_set(&err, errno, "%s: %s", a->command[0], strerror(errno));
fail:
	rep.code = err.code;
	snprintf(rep.msg, sizeof(rep.msg), "%.399s", err.msg);
	if (write(report_fd, &rep, sizeof(rep)) < 0) {
		/* nothing left to tell it to */
	}
	_exit(JR_INITPROTO_EXEC_STAGE_EXEC == rep.stage ? 127 : 125);
}

/*
 * Forward signals, reap orphans; returns the command's wait status. The
 * signals stay blocked and are read from a signalfd, so that one poll()
 * also watches the runner's pidfd: if the runner dies, init exits at once
 * and the kernel kills every process of the PID namespace with it.
 */
static int supervise(pid_t cmd, const sigset_t *set, int runner_pidfd)
{
	_cleanup_close_ int sfd = signalfd(-1, set, SFD_CLOEXEC | SFD_NONBLOCK);

	if (sfd < 0) {
		/* Cannot watch: leaving takes the command down (fail closed). */
		kill(cmd, SIGKILL);
		_exit(1);
	}
	for (;;) {
		struct pollfd p[2] = {
			{ .fd = sfd, .events = POLLIN },
			{ .fd = runner_pidfd, .events = POLLIN },
		};
		struct signalfd_siginfo si;

		if (poll(p, 2, -1) < 0) {
			if (errno == EINTR)
				continue;
			kill(cmd, SIGKILL);
			_exit(1);
		}
		if (p[1].revents)
			_exit(1); /* the runner is gone: so is the sandbox */
		while (read(sfd, &si, sizeof(si)) == (ssize_t)sizeof(si)) {
			int sig = (int)si.ssi_signo;

			if (sig != SIGCHLD) {
				kill(cmd, sig);
				continue;
			}
			for (;;) {
				int status;
				pid_t pid = waitpid(-1, &status, WNOHANG);

				if (pid <= 0)
					break;
				if (pid == cmd)
					return status;
			}
		}
	}
}

/* The signals init forwards, and SIGCHLD: blocked, read from a signalfd
 * by supervise(). */
static void block_signals(sigset_t *set)
{
	sigemptyset(set);
	for (int i = 0; i < jr_forwarded_signals_count; i++)
		sigaddset(set, jr_forwarded_signals[i]);
	sigaddset(set, SIGCHLD);
	sigprocmask(SIG_BLOCK, set, NULL);
}

/*
 * run_setup - after MAPS_DONE: the cgroup namespace, NFT_EARLY, the
 * namespaces' setup, then SETUP_OK with its phases and the fds the
 * runner takes over. Any failure is SETUP_FAIL and exit.
 */
static void run_setup(const struct jr_init_args *a)
{
	struct jr_err err = { 0 };
	struct jr_initproto_msg m;
	int fds[JR_INITPROTO_MAX_FDS];
	size_t nfds = 0;
	uint64_t t_setup;
	int r;

	r = jr_initproto_recv(a->proto, &m, NULL, NULL);
	if (r < 0 || m.type != JR_INITPROTO_MAPS_DONE)
		_exit(1);
	/* The runner has moved us into the sandbox's cgroup (cgroup.c): root
	 * the cgroup namespace there, so the command sees it as "/". */
	if (a->cgroup_ns && unshare(CLONE_NEWCGROUP) < 0) {
		jr_err_set(&err, errno, "unshare(CLONE_NEWCGROUP): %s",
			   strerror(errno));
		setup_fail(a->proto, &err);
	}

	t_setup = jr_clock_us();
	send_nft_early(a->proto);
	if (setup_namespaces(a, fds, &nfds, &err) < 0)
		setup_fail(a->proto, &err);
	/* The last point where init's credentials could have changed. */
	tie_to_runner(a->runner_pidfd);
	jr_initproto_msg_init(&m, JR_INITPROTO_SETUP_OK, 0, NULL);
	m.span_us[0] = t_setup;
	m.span_us[1] = jr_clock_us();
	m.phase_us[0] = m.span_us[1] - t_setup - relaynet_us - mounts_us;
	m.phase_us[1] = relaynet_us;
	m.phase_us[2] = mounts_us;
	/* Slots [0, JR_INITPROTO_FDS_EARLY) went with NFT_EARLY. */
	send_or_die(a->proto, &m, &fds[JR_INITPROTO_FDS_EARLY],
		    nfds - JR_INITPROTO_FDS_EARLY);
	/* The runner holds them now; no copy may reach the command. */
	for (size_t i = JR_INITPROTO_FDS_EARLY; i < nfds; i++)
		close(fds[i]);
	finish_span[0] = jr_clock_us();
	if (finish_setup(a, &finish_err) < 0 && !finish_err.code)
		finish_err.code = EIO;
	finish_span[1] = jr_clock_us();
}

/* A failure of finish_setup(), told after GO as a pre-exec failure (the
 * runner no longer reads SETUP_FAIL then): the command never starts. */
static void report_finish_failure(const struct jr_init_args *a)
{
	struct jr_initproto_msg m;

	if (!finish_err.code)
		return;
	jr_initproto_msg_init(&m, JR_INITPROTO_EXEC_FAIL, finish_err.code, "%s",
			      finish_err.msg);
	m.status = JR_INITPROTO_EXEC_STAGE_PREEXEC;
	send_or_die(a->proto, &m, NULL, 0);
	_exit(0);
}

/* (allowlist) Is the relay answering? If not, the command never starts:
 * EXEC_FAIL at the pre-exec stage, and exit. */
static void selfcheck_relay(const struct jr_init_args *a)
{
	struct jr_err err = { 0 };
	struct jr_initproto_msg m;

	if (jr_selfcheck_relay(a->gateway.relay, JR_SELFCHECK_TIMEOUT_MS,
			       &err) < 0) {
		jr_initproto_msg_init(&m, JR_INITPROTO_EXEC_FAIL, err.code,
				      "%s", err.msg);
		m.status = JR_INITPROTO_EXEC_STAGE_PREEXEC;
		send_or_die(a->proto, &m, NULL, 0);
		_exit(0);
	}
}

/*
 * await_exec - the command's exec report on @report_rd: EOF (the
 * O_CLOEXEC pipe closed by a successful execve) returns; a report of a
 * failure, or a torn one (fail closed: the command is killed), becomes
 * EXEC_FAIL, and init exits.
 */
static void await_exec(const struct jr_init_args *a, pid_t cmd, int report_rd)
{
	struct jr_err err = { 0 };
	struct jr_initproto_msg m;
	struct exec_report rep;
	ssize_t n;

	do {
		n = read(report_rd, &rep, sizeof(rep));
	} while (n < 0 && errno == EINTR);
	close(report_rd);
	if (n == (ssize_t)sizeof(rep)) {
		int status;

		rep.msg[sizeof(rep.msg) - 1] = '\0';
		jr_initproto_msg_init(&m, JR_INITPROTO_EXEC_FAIL, rep.code,
				      "%s", rep.msg);
		m.status = rep.stage;
		while (waitpid(cmd, &status, 0) < 0 && errno == EINTR)
			;
		send_or_die(a->proto, &m, NULL, 0);
		_exit(0);
	}
	if (n != 0) {
		/* A torn report: we cannot tell what ran. Fail closed. */
		kill(cmd, SIGKILL);
		jr_err_set(&err, EIO, "lost the exec report of the command");
		jr_initproto_msg_init(&m, JR_INITPROTO_EXEC_FAIL, err.code,
				      "%s", err.msg);
		m.status = JR_INITPROTO_EXEC_STAGE_PREEXEC;
		send_or_die(a->proto, &m, NULL, 0);
		_exit(0);
	}
}

void jr_init_main(const struct jr_init_args *a)
{
	struct jr_err err = { 0 };
	struct jr_initproto_msg m;
	int report[2];
	sigset_t set;
	uint64_t t_check, t_exec, selfcheck_us;
	pid_t cmd;

	/* A name of its own in ps, top and /proc/PID/comm: without it init
	 * shows as a second "jailrun", a clone of the runner. Cosmetic: only
	 * tools and tests read it, so a failure (there is none for a name of
	 * fewer than 16 bytes) changes nothing else. */
	(void)prctl(PR_SET_NAME, "jailrun-init", 0, 0, 0);
	/* Die with the runner, even if it is already gone. */
	tie_to_runner(a->runner_pidfd);
	block_signals(&set);
	run_setup(a);
	recv_go(a);
	report_finish_failure(a);

	t_check = jr_clock_us();
	if (a->net == JR_NET_ALLOWLIST)
		selfcheck_relay(a);
	t_exec = jr_clock_us();
	selfcheck_us = a->net == JR_NET_ALLOWLIST ? t_exec - t_check : 0;
	if (pipe2(report, O_CLOEXEC) < 0) {
		jr_err_set(&err, errno, "pipe2: %s", strerror(errno));
		setup_fail(a->proto, &err);
	}
	/*
	 * vfork: the child borrows init's memory until it execs or _exits,
	 * while init waits. A fork copied init's page tables, and every page
	 * the child then wrote (environment, heap, stack) took a copy-on-write
	 * fault with a TLB flush, and execve then tore the copy down again:
	 * milliseconds on a busy VM, on the path to the command's start.
	 * exec_command() is written for this: it never returns (execve or
	 * _exit), uses no other thread, and what it changes in the shared
	 * memory (the environment) init never reads; credentials, signal
	 * mask, fd table and seccomp filter are the child's own. So vfork
	 * stays here, in the function the child never returns to.
	 */
	if (a->live_fd >= 0)
		cmd = fork(); /* the zygote never execs: it cannot borrow */
	else
		cmd = vfork();
	if (cmd < 0) {
		jr_err_set(&err, errno, "cannot fork the command: %s",
			   strerror(errno));
		setup_fail(a->proto, &err);
	}
	if (cmd == 0) {
		close(report[0]);
		exec_command(a, report[1]);
	}
	close(report[1]);
	if (landlock_ruleset >= 0)
		close(landlock_ruleset);
	if (a->pty_slave >= 0)
		close(
		    a->pty_slave); /* so the runner sees EIO when the command is done */
	await_exec(a, cmd, report[0]);

	jr_initproto_msg_init(&m, JR_INITPROTO_EXEC_OK, 0, NULL);
	m.phase_us[0] = selfcheck_us;
	m.phase_us[1] = jr_clock_us() - t_exec;
	/* finish_setup(): init_setup's too, beside the runner's relay phase. */
	m.phase_us[2] = finish_span[1] - finish_span[0];
	m.span_us[0] = finish_span[0];
	m.span_us[1] = finish_span[1];
	send_or_die(a->proto, &m, NULL, 0);
	/* Off the start-up path: each close waits for an RCU grace period. */
	jr_mounts_close_detached();

	jr_initproto_msg_init(&m, JR_INITPROTO_EXIT, 0, NULL);
	m.status = supervise(cmd, &set, a->runner_pidfd);
	send_or_die(a->proto, &m, NULL, 0);
	_exit(0);
}
