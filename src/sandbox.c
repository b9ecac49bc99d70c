// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * sandbox.c - the lifecycle of one sandbox, runner side.
 *
 * Theory of operation:
 *
 *   runner                                init (PID 1, new namespaces)
 *   ------                                ----
 *   socketpair, pty, signalfd
 *   clone(NEWUSER|NEWNET|NEWPID|...) ---> waits for MAPS_DONE
 *   write uid_map/gid_map
 *   MAPS_DONE ------------------------->  three NETLINK_NETFILTER sockets
 *             <------------------------   NFT_EARLY + those fds
 *   build the seccomp filter;             hostname, mounts, lo up,
 *   install the worker ruleset (one       (allowlist) relay netns, veth,
 *   batch), read it back, compare         route, resolv.conf
 *             <------------------------   SETUP_OK + fds
 *                                         (+ relay listeners)
 *   allowlist: the relay netns's table,
 *   start the relay thread on the
 *   listeners; the watchdog
 *   GO + filter memfd (or ABORT, ----->  (allowlist) self-check the relay;
 *   exit 125)                             fork; child drops privileges,
 *                                         loads the filter, execs
 *             <------------------------   EXEC_OK / EXEC_FAIL
 *   relay pty, forward signals,           reap, forward signals
 *   enforce --timeout
 *             <------------------------   EXIT + wait status; init exits
 *   reap init
 *
 * The clone is a raw clone(2) without a new stack (fork semantics), so the
 * child runs on a copy of our stack like after fork(); that is why this must
 * happen while the runner is single-threaded. The runner never enters the
 * sandbox's namespaces: everything that needs their capabilities is done by
 * init, and the netfilter socket init hands over lets the runner (owner of
 * the user namespace, so holding CAP_NET_ADMIN over it) talk to the worker
 * netns's nftables directly.
 *
 * The two columns overlap between MAPS_DONE and SETUP_OK: the runner's
 * seccomp and nft work runs on one CPU while init's setup runs on another
 * (startup.h counts the overlap). The order that matters does not change:
 * GO is sent only after SETUP_OK, every table verified, the relay and the
 * watchdog running, and init starts the command only after GO.
 *
 * The command is never started unless the ruleset read back from the kernel
 * equals the one we built (fail closed).
 */

#include <arpa/inet.h>
#include <errno.h>
#include <fcntl.h>
#include <stdint.h>
#include <poll.h>
#include <sched.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/signalfd.h>
#include <sys/socket.h>
#include <sys/syscall.h>
#include <sys/timerfd.h>
#include <sys/wait.h>
#include <unistd.h>
#include <libmnl/libmnl.h>

#include "askprompt.h"
#include "cgroup.h"
#include "cleanup.h"
#include "initproto.h"
#include "exitcode.h"
#include "fakeip.h"
#include "hostsfile.h"
#include "init.h"
#include "log.h"
#include "nft.h"
#include "notify.h"
#include "pty.h"
#include "publish.h"
#include "relay.h"
#include "landlock.h"
#include "link.h"
#include "live.h"
#include "livepolicy.h"
#include "seccomp.h"
#include "unixguard.h"
#include "startup.h"
#include "watchdog.h"
#include "nflog.h"
#include "ruleset.h"
#include "sandbox.h"
#include "userns.h"

#define JR_CLONE_FLAGS                                                         \
	(CLONE_NEWUSER | CLONE_NEWNET | CLONE_NEWPID | CLONE_NEWNS |           \
	 CLONE_NEWIPC | CLONE_NEWUTS | CLONE_NEWCGROUP)

/* The runner's laps that init's work may run beside (struct sandbox). */
enum runner_lap {
	LAP_SECCOMP, /* the seccomp filter (with --seccomp) */
	LAP_NFT,     /* the worker table */
	LAP_RELAY,   /* SETUP_OK to GO */
	LAP_COUNT,
};

struct sandbox {
	pid_t init_pid;
	int proto; /* runner's end */
	int sigfd;
	int timerfd;
	struct mnl_socket *nft;	      /* owns the worker's nft table */
	struct jr_ruleset *rs;	      /* what it must hold, for the watchdog */
	struct mnl_socket *nft_relay; /* owns the relay netns's table */
	struct jr_ruleset *rs_relay;  /* what it must hold, for the watchdog */
	struct mnl_socket *mon_relay; /* its notifications, for the watchdog */
	struct jr_relay *relay;	      /* JR_NET_ALLOWLIST */
	struct jr_watchdog *watchdog;
	struct jr_nflog *nflog; /* the refusals' audit lines; NULL: none */
	struct jr_seccomp_filter seccomp; /* built while init sets up */
	int seccomp_fd; /* its sealed memfd, for GO (initproto.h); -1: none */
	struct jr_pty pty;
	struct jr_askprompt ask;    /* --ask tty */
	struct jr_startup *startup; /* the phases, in the run's result */
	int unix_diag;		    /* sock_diag socket of the worker netns */
	struct jr_unixguard *unixguard; /* serves the command's filter */
	struct jr_err unixguard_err;	/* why prestart failed (code != 0) */
	/* The runner's laps that init's work may run beside: its setup
	 * (SETUP_OK's span) and its finish_setup() (EXEC_OK's span), which
	 * may start before the runner's nft lap is over (init.c). Each
	 * overlap is counted once as parallel (startup.h). */
	struct jr_startup_span laps[LAP_COUNT];
	const struct jr_options *opts;
	const struct jr_ids *ids; /* the command's (the guard's executor's) */
	struct jr_landlock_config landlock;
	const char **ll_roots; /* Landlock's writable roots (into the plan) */
	char cwd[4096];	       /* the writable root under --fs host */
	bool init_reaped;
	int init_status;
	struct jr_cgroup *cgroup; /* --memory/--pids/--cpus; NULL: none */
	bool ipv6; /* the link has IPv6 too (transparent capture, link.h) */
	/* the host lanes are served on the sandbox's [::1] too (relaynet.h) */
	bool lane_ipv6;
	/* Transparent egress: the synthetic table, numbered for the names
	 * the host pins (until the relay takes it), and the sandbox's
	 * /etc/hosts for init, NULL when the host's is shown as it is. */
	struct jr_fakeip *fakeip;
	char *etc_hosts;
};

static pid_t raw_clone(unsigned long flags)
{
	/* x86_64/aarch64 argument order: flags, stack, ptid, ctid, tls. A
	 * NULL stack gives fork() semantics (clone(2), NOTES). */
	return (pid_t)syscall(SYS_clone, flags | SIGCHLD, NULL, NULL, NULL, 0);
}

static int block_signals(int *sigfd, struct jr_err *err)
{
	sigset_t set;

	sigemptyset(&set);
	for (int i = 0; i < jr_forwarded_signals_count; i++)
		sigaddset(&set, jr_forwarded_signals[i]);
	sigaddset(&set, SIGCHLD);
	if (sigprocmask(SIG_BLOCK, &set, NULL) < 0)
		return jr_err_set(err, errno, "sigprocmask: %s",
				  strerror(errno));
	*sigfd = signalfd(-1, &set, SFD_CLOEXEC | SFD_NONBLOCK);
	if (*sigfd < 0)
		return jr_err_set(err, errno, "signalfd: %s", strerror(errno));
	return 0;
}

static void kill_and_reap(struct sandbox *sb)
{
	if (sb->init_pid <= 0 || sb->init_reaped)
		return;
	/* SIGKILL to a PID namespace's init takes the whole namespace down. */
	kill(sb->init_pid, SIGKILL);
	while (waitpid(sb->init_pid, &sb->init_status, 0) < 0 && errno == EINTR)
		;
	sb->init_reaped = true;
}

/*
 * plan_etc_hosts - (transparent egress) the synthetic table, with a
 * number for each name the host's /etc/hosts pins that @policy allows,
 * and the sandbox's rewritten /etc/hosts (hostsfile.h). Before the clone:
 * init shows the file while it sets up, before the relay thread exists.
 * Return: 0 or -errno with @err set.
 */
static int plan_etc_hosts(struct sandbox *sb, const struct jr_policy *policy,
			  struct jr_err *err)
{
	_cleanup_free_ char *text = NULL;
	size_t len, n_pinned;
	int r;

	if (jr_fakeip_new(0, &sb->fakeip) < 0)
		return jr_err_set(err, ENOMEM,
				  "out of memory for the synthetic addresses");
	r = jr_hostsfile_read("/etc/hosts", &text, &len, err);
	if (r < 0 || !text)
		return r;
	r = jr_hostsfile_rewrite(text, len, policy, sb->fakeip, sb->ipv6,
				 &sb->etc_hosts, &n_pinned);
	if (r < 0)
		return jr_err_set(
		    err, -r,
		    "cannot rewrite /etc/hosts for the sandbox: %s (--transparent off skips that)",
		    strerror(-r));
	if (sb->etc_hosts)
		jr_verbose(
		    "/etc/hosts: %zu allowed name(s) pinned by the host shown with synthetic addresses",
		    n_pinned);
	return 0;
}

/* clone the sandbox's init and give it its id maps. */
static int spawn(struct sandbox *sb, const struct jr_options *opts,
		 const struct jr_ids *ids, const struct jr_fs_plan *fs,
		 const struct jr_policy *policy, struct jr_err *err)
{
	_cleanup_close_ int child_end = -1, self_pidfd = -1;
	struct jr_initproto_msg m;
	uid_t caller_uid;
	int sv[2];
	int r;

	if (socketpair(AF_UNIX, SOCK_SEQPACKET | SOCK_CLOEXEC, 0, sv) < 0)
		return jr_err_set(err, errno, "socketpair: %s",
				  strerror(errno));
	sb->proto = sv[0];
	child_end = sv[1];

	/* Read before the clone: in the child, until its maps are written,
	 * getuid() answers the overflow uid. */
	caller_uid = getuid();
	/* init inherits this pidfd of ours and watches it: it is how init
	 * learns, without a race, that we died (see init.c). */
	self_pidfd = (int)syscall(SYS_pidfd_open, getpid(), 0);
	if (self_pidfd < 0)
		return jr_err_set(
		    err, errno, "pidfd_open: %s (jailrun needs Linux >= 5.12)",
		    strerror(errno));
	/* Decided once, here: init builds the link, this process the rules
	 * and the relay for the same answer. */
	if (opts->net == JR_NET_ALLOWLIST &&
	    (opts->transparent || opts->lanes.n_host)) {
		bool v6 = jr_link_ipv6_available(); /* one sysctl read */

		sb->ipv6 = opts->transparent && v6;
		sb->lane_ipv6 = opts->lanes.n_host && v6;
	}
	if (opts->net == JR_NET_ALLOWLIST && opts->transparent) {
		r = plan_etc_hosts(sb, policy, err);
		if (r < 0)
			return r;
	}
	jr_startup_lap(sb->startup, JR_PHASE_PREPARE);
	sb->init_pid = raw_clone(JR_CLONE_FLAGS);
	if (sb->init_pid < 0)
		return jr_userns_explain("cannot create the sandbox namespaces",
					 errno, err);
	if (sb->init_pid == 0) {
		struct jr_init_args a = {
			.proto = child_end,
			.runner_pidfd = self_pidfd,
			.ids = ids,
			.command = opts->command,
			.pty_slave = sb->pty.slave,
			.net = opts->net,
			.gateway = opts->gateway,
			.transparent = opts->transparent,
			.ipv6 = sb->ipv6,
			.lane_ipv6 = sb->lane_ipv6,
			.ask = opts->ask,
			.caller_uid = caller_uid,
			.expose = (char *const *)opts->expose,
			.n_expose = opts->n_expose,
			.seccomp = opts->seccomp,
			.fs = fs,
			.landlock = &sb->landlock,
			.lanes = &opts->lanes,
			.trust_bundle =
			    opts->secrets ? opts->secrets->trust_bundle : NULL,
			.etc_hosts = sb->etc_hosts,
			.limits = &opts->limits,
			.env = opts->env,
			.cgroup_ns = sb->cgroup != NULL,
			.live_fd = opts->live ? opts->live->zygote_child : -1,
		};

		/* The runner's ends must not stay open in init, or init would
		 * never see EOF when the runner dies. */
		close(sb->proto);
		close(sb->sigfd);
		if (sb->pty.master >= 0)
			close(sb->pty.master);
		jr_askprompt_close(&sb->ask); /* the terminal is not its */
		for (int fd = 0; fd < 3; fd++)
			a.pty_std[fd] = sb->pty.std_tty[fd];
		if (opts->live)
			jr_live_in_init(opts->live);
		jr_init_main(&a);
	}
	if (opts->live)
		jr_live_after_clone(opts->live);
	jr_startup_lap(sb->startup, JR_PHASE_CLONE);
	jr_verbose("sandbox init started (pid %d)", (int)sb->init_pid);
	/* Before MAPS_DONE: init does nothing before it, so the whole setup
	 * and every process after it are in the limits. */
	r = jr_cgroup_attach(sb->cgroup, sb->init_pid, err);
	if (r < 0)
		return r;

	r = jr_userns_write_maps(sb->init_pid, ids, err);
	if (r < 0)
		return r;
	jr_startup_lap(sb->startup, JR_PHASE_MAPS);
	jr_initproto_msg_init(&m, JR_INITPROTO_MAPS_DONE, 0, NULL);
	r = jr_initproto_send(sb->proto, &m, NULL, 0);
	if (r < 0)
		return jr_err_set(err, -r, "the sandbox init is gone: %s",
				  strerror(-r));
	return 0;
}

static void close_fds(int *fds, size_t n)
{
	for (size_t i = 0; i < n; i++)
		if (fds[i] >= 0)
			close(fds[i]);
}

/*
 * --transparent on: install the relay netns's table (the redirect of
 * captured TCP to the transparent listener) through the netfilter socket
 * init opened there, and verify it like the worker's. The socket owns the
 * table and is kept until the end. No process of the command lives in
 * that netns and none can enter it (entering needs CAP_SYS_ADMIN over the
 * sandbox's user namespace, which the command does not have), but the
 * caller's uid or host root can, so the watchdog watches its table too,
 * through the notification socket @mon_fd (watchdog.c). Takes @fd and
 * @mon_fd.
 */
static int install_relay_rules(struct sandbox *sb,
			       const struct jr_ruleset_params *worker, int fd,
			       int mon_fd, struct jr_err *err)
{
	_cleanup_(mnl_socket_closep) struct mnl_socket *nl = NULL;
	_cleanup_(jr_ruleset_freep) struct jr_ruleset *rs = NULL;
	struct jr_ruleset_params params = *worker;
	int r;

	params.netns = JR_RULESET_RELAY;
	params.policy = NULL;
	r = jr_nft_socket_from_fd(fd, &nl, err);
	if (r == 0)
		r = jr_nft_monitor_open(mon_fd, &sb->mon_relay, err);
	else
		close(mon_fd);
	if (r == 0) {
		r = jr_nft_install_owned(nl, &params, &rs, err);
		if (r < 0)
			jr_err_prefix(
			    err,
			    "cannot install the relay namespace's capture rules: ");
	}
	if (r == 0) {
		r = jr_nft_verify(nl, rs, err);
		if (r < 0)
			jr_err_prefix(
			    err,
			    "the relay namespace's capture rules did not verify, refusing to run the command: ");
	}
	if (r < 0)
		return r;
	jr_verbose(
	    "nftables table inet %s installed and verified in the relay netns (redirect of captured TCP to port %u)",
	    JR_NFT_TABLE, params.transparent_port);
	sb->nft_relay = steal_pointer(&nl);
	sb->rs_relay = steal_pointer(&rs);
	return 0;
}

/*
 * lanes_config - hand the lanes' fds (@fds: jr_lanes_nfds() of them for
 * @opts' lanes and @lane_ipv6, from SETUP_OK) to the relay's config, and
 * bind the published ports on the host now, before the command runs: a
 * port in use is exit 125. Once jr_relay_start() is called the relay
 * owns every fd; on failure here the caller still owns @fds.
 */
static int lanes_config(const struct jr_options *opts, bool lane_ipv6, int *fds,
			struct jr_relay_config *rc, pid_t *factory_pid,
			struct jr_err *err)
{
	const struct jr_lanes *l = &opts->lanes;
	size_t k = 0;
	int r;

	rc->lanes = l;
	rc->gateway = opts->gateway.relay;
	rc->worker = opts->gateway.worker;
	for (size_t i = 0; i < JR_LANE_MAX; i++)
		rc->lane_listen[i] = i < l->n_host ? fds[k++] : -1;
	for (size_t i = 0; i < JR_LANE_MAX; i++)
		rc->lane_local[i] = i < l->n_host ? fds[k++] : -1;
	for (size_t i = 0; i < JR_LANE_MAX; i++)
		rc->lane_local6[i] = lane_ipv6 && i < l->n_host ? fds[k++] : -1;
	rc->factory = l->n_publish ? fds[k++] : -1;
	for (size_t i = 0; i < JR_PUBLISH_MAX; i++)
		rc->publish_listen[i] = -1;
	r = jr_publish_bind(l, rc->publish_listen, err);
	if (r == 0 && rc->factory >= 0)
		r = jr_publish_factory_hello(rc->factory, factory_pid, err);
	if (r < 0) {
		/* The lanes' fds stay in the caller's array, which it closes. */
		close_fds(rc->publish_listen, l->n_publish);
		return r;
	}
	return 0;
}

/*
 * recv_setup_msg - init's next set-up message, which must be @type with
 * @want fds, into @m and @fds. SETUP_FAIL gives init's own message; EOF
 * (init died: the socketpair's other end is only in init) gives "died
 * during setup", never a wait. On failure no received fd stays open.
 */
static int recv_setup_msg(struct sandbox *sb, enum jr_initproto_type type,
			  size_t want, struct jr_initproto_msg *m, int *fds,
			  struct jr_err *err)
{
	size_t n = JR_INITPROTO_MAX_FDS - JR_INITPROTO_FDS_EARLY;
	int r;

	if (type == JR_INITPROTO_NFT_EARLY)
		n = JR_INITPROTO_FDS_EARLY;
	r = jr_initproto_recv(sb->proto, m, fds, &n);
	if (r < 0) {
		close_fds(fds, n);
		return jr_err_set(err, -r == EPIPE ? EIO : -r,
				  "the sandbox init died during setup");
	}
	if (m->type == JR_INITPROTO_SETUP_FAIL) {
		close_fds(fds, n);
		return jr_err_set(err, m->code, "%s", m->msg);
	}
	if (m->type != type || n != want) {
		close_fds(fds, n);
		return jr_err_set(
		    err, EPROTO,
		    "unexpected message %u with %zu fds from the sandbox init",
		    m->type, n);
	}
	return 0;
}

/*
 * init_failure_first - the worker table could not be installed or
 * verified while init set up: if init's setup failed too, its message
 * names the cause and replaces @err. Where a security module lets the
 * user namespace be created but strips its capabilities (Ubuntu's
 * AppArmor userns restriction), the install fails with EPERM, and init's
 * sethostname says why and what to do. Init sends its next message
 * without waiting for us, so this wait ends with its setup.
 */
static void init_failure_first(struct sandbox *sb, struct jr_err *err)
{
	struct jr_initproto_msg m;
	int fds[JR_INITPROTO_MAX_FDS];
	size_t n = JR_INITPROTO_MAX_FDS;
	int r;

	r = jr_initproto_recv(sb->proto, &m, fds, &n);
	close_fds(fds, n);
	if (r == 0 && m.type == JR_INITPROTO_SETUP_FAIL)
		jr_err_set(err, m.code, "%s", m.msg);
}

/*
 * build_seccomp - build the command's filter with libseccomp (the slow
 * part, ~2 ms) while init sets up, and seal it into the memfd GO carries.
 */
static int build_seccomp(struct sandbox *sb, const struct jr_options *opts,
			 struct jr_err *err)
{
	struct jr_seccomp_options so = {
		.allow_nested = opts->allow_nested,
		.unix_guard = true,
	};
	int r;

	r = jr_seccomp_build(&so, &sb->seccomp, err);
	if (r < 0)
		return r;
	r = jr_seccomp_to_memfd(&sb->seccomp, err);
	if (r < 0)
		return r;
	sb->seccomp_fd = r;
	return 0;
}

/*
 * open_nflog - with --net allowlist, bind the refusals' NFLOG group
 * through init's third early socket (@fd, taken), so that the rules can
 * log to it. Where that fails (no nfnetlink_log), the rules still count
 * every refusal: say that the audit log will not name them, and go on.
 */
static void open_nflog(struct sandbox *sb, enum jr_net_mode mode, int fd)
{
	struct jr_err err = { 0 };

	if (mode != JR_NET_ALLOWLIST) {
		close(fd);
		return;
	}
	if (jr_nflog_open(fd, &sb->nflog, &err) < 0)
		jr_warn(
		    "firewall refusals are counted but not logged one by one: %s",
		    err.msg);
}

/*
 * install_worker_table - with init's early netfilter sockets (NFT_EARLY,
 * into @fds): install the worker ruleset (@params) as the table's owner
 * and read it back. On failure, init's own message names the cause when
 * its setup failed too (init_failure_first()). @nl, @mon and @rs are the
 * caller's (cleanup attributes); *@nft0 is when the sockets came.
 * Return: 0 or -errno with @err set.
 */
static int install_worker_table(struct sandbox *sb,
				const struct jr_ruleset_params *params,
				int *fds, struct mnl_socket **nl,
				struct mnl_socket **mon, struct jr_ruleset **rs,
				uint64_t *nft0, struct jr_err *err)
{
	struct jr_ruleset_params p = *params;
	struct jr_initproto_msg m;
	int r;

	r = recv_setup_msg(sb, JR_INITPROTO_NFT_EARLY, JR_INITPROTO_FDS_EARLY,
			   &m, fds, err);
	if (r < 0)
		return r;
	*nft0 = jr_startup_waited(sb->startup);
	r = jr_nft_socket_from_fd(fds[JR_INITPROTO_FD_NFT], nl, err);
	fds[JR_INITPROTO_FD_NFT] = -1;
	if (r == 0)
		r = jr_nft_monitor_open(fds[JR_INITPROTO_FD_NFT_MONITOR], mon,
					err);
	else /* the monitor's open takes its fd, also when it fails */
		close(fds[JR_INITPROTO_FD_NFT_MONITOR]);
	fds[JR_INITPROTO_FD_NFT_MONITOR] = -1;
	if (r < 0) {
		close(fds[JR_INITPROTO_FD_NFLOG]);
		fds[JR_INITPROTO_FD_NFLOG] = -1;
		return r;
	}
	/* Bound before the rules that log to it exist. */
	open_nflog(sb, p.mode, fds[JR_INITPROTO_FD_NFLOG]);
	fds[JR_INITPROTO_FD_NFLOG] = -1;
	p.log_refused = sb->nflog != NULL;
	r = jr_nft_install_owned(*nl, &p, rs, err);
	if (r < 0)
		jr_err_prefix(err, "cannot install the sandbox firewall: ");
	if (r == 0) {
		r = jr_nft_verify(*nl, *rs, err);
		if (r < 0)
			jr_err_prefix(
			    err,
			    "the sandbox firewall did not verify, refusing to run the command: ");
	}
	if (r < 0) {
		init_failure_first(sb, err);
		return r;
	}
	return 0;
}

/*
 * recv_setup_ok - init's SETUP_OK with the rest of its fds, @want in all,
 * into the slots of @fds after the early ones; count its phases, and
 * what of the runner's own work (its laps) ran beside them. Keeps the
 * unix_diag socket for the guard. Return: 0 or -errno with @err set.
 */
static int recv_setup_ok(struct sandbox *sb, const struct jr_options *opts,
			 size_t want, int *fds, struct jr_err *err)
{
	struct jr_initproto_msg m;
	int r;

	r = recv_setup_msg(sb, JR_INITPROTO_SETUP_OK,
			   want - JR_INITPROTO_FDS_EARLY, &m,
			   &fds[JR_INITPROTO_FDS_EARLY], err);
	if (r < 0)
		return r;
	jr_startup_wait_done(sb->startup, JR_PHASE_INIT_SETUP, m.phase_us[0],
			     JR_PHASE_RELAYNET, m.phase_us[1]);
	jr_startup_add(sb->startup, JR_PHASE_MOUNTS, m.phase_us[2]);
	/* What of the runner's own work ran beside init's setup. */
	jr_startup_beside(sb->startup, m.span_us[0], m.span_us[1], sb->laps,
			  LAP_COUNT);
	sb->unix_diag = steal_fd(&fds[JR_INITPROTO_FD_UNIX_DIAG]);
	return 0;
}

/* The worker table is verified: say so (result, systemd, -v). */
static void report_verified(const struct jr_options *opts,
			    const struct jr_ruleset *rs,
			    struct jr_run_result *res)
{
	res->rules_verified = true;
	jr_notify_verified();
	res->nft_chains = jr_ruleset_chain_count(rs);
	res->nft_rules = jr_ruleset_rule_count(rs);
	jr_verbose(
	    "nftables table inet %s installed and verified (%zu chains, %zu rules, network mode %s)",
	    JR_NFT_TABLE, res->nft_chains, res->nft_rules,
	    jr_options_net_mode(opts));
}

/*
 * start_relay - (allowlist) the relay thread on the listeners init sent
 * in @fds (@nfds of them, the lanes' from @lane_base), with the lanes'
 * published ports bound first. Until jr_relay_start() the fds are ours
 * to close on failure; from then the relay's, and the process has
 * threads. Return: 0 or -errno with @err set.
 */
static int start_relay(struct sandbox *sb, const struct jr_options *opts,
		       const struct jr_policy *policy, struct jr_audit *audit,
		       int *fds, size_t nfds, size_t lane_base,
		       pid_t *factory_pid, struct jr_err *err)
{
	bool transparent = opts->net == JR_NET_ALLOWLIST && opts->transparent;
	struct jr_relay_config rc = {
		.policy = policy,
		.listeners = {
			.proxy = fds[JR_INITPROTO_FD_PROXY],
			.dns_udp = fds[JR_INITPROTO_FD_DNS_UDP],
			.dns_tcp = fds[JR_INITPROTO_FD_DNS_TCP],
			.transparent = transparent
					   ? fds[JR_INITPROTO_FD_TRANSPARENT]
					   : -1,
			.transparent6 = sb->ipv6
					    ? fds[JR_INITPROTO_FD_TRANSPARENT6]
					    : -1,
		},
		.transparent = transparent,
		.ipv6 = sb->ipv6,
		.max_conns = opts->max_conns,
		.header_timeout_ms = opts->header_timeout_ms,
		.connect_timeout_ms = opts->connect_timeout_ms,
		.idle_timeout_ms = opts->idle_timeout_ms,
		.audit = audit,
		.deny_message = opts->deny_message,
		.control = opts->control_fd >= 0,
		.control_fd = opts->control_fd,
		.control_check_uid = opts->control_path != NULL,
		.ask = opts->ask,
		.ask_timeout_ms = opts->ask_timeout_ms,
		.ask_client = -1,
		.ask_notify = sb->ask.notify,
		.secrets = opts->secrets,
		.inspect = opts->secrets ? opts->secrets->inspect_ctx : NULL,
	};
	char gw[INET_ADDRSTRLEN];
	int r;

	/* The table with the names /etc/hosts pins, for the relay to own. */
	rc.fakeip = steal_pointer(&sb->fakeip);
	r = lanes_config(opts, sb->lane_ipv6, &fds[lane_base], &rc, factory_pid,
			 err);
	if (r < 0) {
		close_fds(fds, nfds);
		jr_fakeip_free(rc.fakeip);
		return r;
	}
	/* The relay owns the prompt's client end from here, whatever
	 * happens. */
	rc.ask_client = sb->ask.relay_ctl;
	sb->ask.relay_ctl = -1;
	/* From here the process has threads: no more fork()s. */
	r = jr_relay_start(&rc, &sb->relay, err);
	if (r < 0)
		return r;
	inet_ntop(AF_INET, &opts->gateway.relay, gw, sizeof(gw));
	jr_verbose(
	    "relay listening on %s:%d (proxy) and :%d (DNS), %zu allow entries",
	    gw, JR_PROXY_PORT, JR_DNS_PORT, policy->n);
	if (transparent)
		jr_verbose(
		    "IPv6: %s",
		    sb->ipv6
			? "on (link " JR_LINK6_WORKER
			  "/64, synthetic pool " JR_FAKEIP_V6_PREFIX "/64)"
			: "off (the kernel gives new network namespaces no IPv6: " JR_LINK_IPV6_SYSCTL
			  " is missing or not 0); IPv4 only, IPv6 refused");
	return 0;
}

/*
 * start_watchdog - the watchdog, which from here on alone uses the
 * owner sockets of the tables (@mon moves to it) and re-verifies them.
 * Return: 0 or -errno with @err set.
 */
static int start_watchdog(struct sandbox *sb, const struct jr_options *opts,
			  struct jr_audit *audit, struct mnl_socket **mon,
			  pid_t factory_pid, struct jr_err *err)
{
	/* Taken before the initialiser, like diag in start_unixguard(). */
	struct mnl_socket *relay_mon = steal_pointer(&sb->mon_relay);
	struct jr_watchdog_config wc = {
		.nl = sb->nft,
		.mon = steal_pointer(mon),
		.rs = sb->rs,
		.interval_ms = opts->watchdog_interval_ms,
		.kill_on_tamper = opts->tamper_kill,
		.allow_nested = opts->allow_nested,
		.init_pid = sb->init_pid,
		.audit = audit,
		.factory_pid = factory_pid,
		.relay_nl = sb->nft_relay,
		.relay_mon = relay_mon,
		.relay_rs = sb->rs_relay,
	};
	int r;

	r = jr_watchdog_start(&wc, &sb->watchdog, err);
	if (r < 0)
		return r;
	jr_verbose(
	    "watchdog armed: rules re-verified on every change and every %.3f s",
	    (double)opts->watchdog_interval_ms / 1000.0);
	return 0;
}

/*
 * Build the seccomp filter and install the worker ruleset through init's
 * early netfilter sockets, verify it, both while init sets up; then, with
 * SETUP_OK, (allowlist) the relay netns's table and the relay on the
 * listeners init sent along, and the watchdog.
 */
static int lockdown(struct sandbox *sb, const struct jr_options *opts,
		    const struct jr_policy *policy, struct jr_audit *audit,
		    struct jr_run_result *res, struct jr_err *err)
{
	_cleanup_(mnl_socket_closep) struct mnl_socket *nl = NULL;
	_cleanup_(jr_ruleset_freep) struct jr_ruleset *rs = NULL;
	uint16_t lane_ports[JR_LANE_MAX], publish_ports[JR_PUBLISH_MAX];
	const struct jr_ruleset_params params = {
		.lane_ports = lane_ports,
		.n_lane_ports =
		    jr_lanes_host_ports(&opts->lanes, lane_ports, JR_LANE_MAX),
		.publish_ports = publish_ports,
		.n_publish_ports = jr_lanes_publish_ports(
		    &opts->lanes, publish_ports, JR_PUBLISH_MAX),
		.mode = opts->net,
		.gateway = opts->gateway.relay,
		.proxy_port = JR_PROXY_PORT,
		.dns_port = JR_DNS_PORT,
		.transparent = opts->transparent,
		.transparent_port = JR_TRANSPARENT_PORT,
		.ipv6 = sb->ipv6,
		.policy = policy,
	};
	bool transparent = opts->net == JR_NET_ALLOWLIST && opts->transparent;
	size_t want =
	    jr_initproto_setup_nfds(opts->net, opts->transparent, sb->ipv6);
	size_t lane_base = want; /* the lanes' fds follow (initproto.h) */
	pid_t factory_pid = 0;
	_cleanup_(mnl_socket_closep) struct mnl_socket *mon = NULL;
	int fds[JR_INITPROTO_MAX_FDS];
	size_t nfds = 0;
	int r;

	/* While init sets up (it got MAPS_DONE): the filter first, as the
	 * early sockets are on their way meanwhile. */
	if (opts->seccomp) {
		sb->laps[LAP_SECCOMP].t0 = sb->startup->last;
		r = build_seccomp(sb, opts, err);
		if (r < 0)
			return r;
		sb->laps[LAP_SECCOMP].t1 =
		    jr_startup_lap(sb->startup, JR_PHASE_SECCOMP);
	}
	r = install_worker_table(sb, &params, fds, &nl, &mon, &rs,
				 &sb->laps[LAP_NFT].t0, err);
	if (r < 0)
		return r;
	sb->laps[LAP_NFT].t1 = jr_startup_lap(sb->startup, JR_PHASE_NFT);

	/* The rest of init's fds fill the slots after the early ones. */
	if (opts->net == JR_NET_ALLOWLIST)
		want += jr_lanes_nfds(&opts->lanes, sb->lane_ipv6);
	r = recv_setup_ok(sb, opts, want, fds, err);
	if (r < 0)
		return r;
	nfds = want;
	sb->laps[LAP_RELAY].t0 = sb->startup->last;
	report_verified(opts, rs, res);
	/* The table is owned by this socket (NFT_TABLE_F_OWNER): only it can
	 * change the table, so it is kept open (for the watchdog's restores)
	 * until the command is gone. Without NFT_TABLE_F_PERSIST, closing it
	 * would also delete the table. */
	sb->nft = steal_pointer(&nl);
	sb->rs = steal_pointer(&rs);

	if (transparent) {
		r = install_relay_rules(
		    sb, &params, fds[JR_INITPROTO_FD_NFT_RELAY],
		    fds[JR_INITPROTO_FD_NFT_RELAY_MONITOR], err);
		fds[JR_INITPROTO_FD_NFT_RELAY] = -1;
		fds[JR_INITPROTO_FD_NFT_RELAY_MONITOR] = -1;
		if (r < 0) {
			close_fds(fds, nfds);
			return r;
		}
	}
	if (opts->net == JR_NET_ALLOWLIST) {
		r = start_relay(sb, opts, policy, audit, fds, nfds, lane_base,
				&factory_pid, err);
		if (r < 0)
			return r;
	}
	if (sb->nflog) {
		r = jr_nflog_start(sb->nflog, audit, err);
		if (r < 0)
			return r;
	}
	/* From here on only the watchdog uses the owner socket. */
	return start_watchdog(sb, opts, audit, &mon, factory_pid, err);
}

static int arm_timeout(struct sandbox *sb, uint64_t ms, struct jr_err *err)
{
	struct itimerspec its = { 0 };

	if (!ms)
		return 0;
	sb->timerfd =
	    timerfd_create(CLOCK_MONOTONIC, TFD_CLOEXEC | TFD_NONBLOCK);
	if (sb->timerfd < 0)
		return jr_err_set(err, errno, "timerfd_create: %s",
				  strerror(errno));
	its.it_value.tv_sec = (time_t)(ms / 1000);
	its.it_value.tv_nsec = (long)(ms % 1000) * 1000000L;
	if (timerfd_settime(sb->timerfd, 0, &its, NULL) < 0)
		return jr_err_set(err, errno, "timerfd_settime: %s",
				  strerror(errno));
	return 0;
}

/* What init reported, gathered by the event loop. */
struct outcome {
	bool exec_ok, exec_failed, exited, timed_out, proto_eof;
	bool stopped; /* a live sandbox ended by jailrun stop (live.h) */
	int exec_stage, exec_errno;
	char exec_msg[sizeof(((struct jr_initproto_msg *)0)->msg)];
	int status;
};

/*
 * prestart_unixguard - with the filter's notification rules, start the
 * guard's thread and executor right after GO (jr_unixguard_prestart()):
 * they get ready beside init's self-check and the pre-exec child's steps,
 * not after its hand-over. The child still waits for UNOTIFY_OK, which
 * only a serving guard gives; a failure here is kept for the hand-over,
 * which then stops the command (start_unixguard()).
 */
static void prestart_unixguard(struct sandbox *sb)
{
	struct jr_unixguard_config cfg = {
		.diag = -1,
		.userns = -1,
		.ids = sb->ids,
		/* Connects run on behalf escape the command's Landlock
		 * domain: the guard applies its TCP rule itself. */
		.tcp = sb->landlock.abi > 0 && sb->landlock.tcp,
		.ports = sb->landlock.ports,
		.n_ports = sb->landlock.n_ports,
	};
	char ns[64];

	if (!sb->seccomp.notify || sb->unix_diag < 0)
		return; /* a hand-over is then unexpected */
	cfg.diag = steal_fd(&sb->unix_diag);
	/* The executor's user namespace: the one init, and so the command,
	 * lives in (unixguard_behalf.c). */
	snprintf(ns, sizeof(ns), "/proc/%d/ns/user", (int)sb->init_pid);
	cfg.userns = open(ns, O_RDONLY | O_CLOEXEC);
	if (cfg.userns < 0) {
		jr_err_set(
		    &sb->unixguard_err, errno,
		    "unix socket guard: cannot open the sandbox's user namespace (%s)",
		    strerror(errno));
		close(cfg.diag);
		return;
	}
	jr_unixguard_prestart(&cfg, &sb->unixguard, &sb->unixguard_err);
}

/*
 * The pre-exec child's UNOTIFY: have the prestarted supervisor take its
 * seccomp listener, and let the child exec (UNOTIFY_OK), or stop it
 * (ABORT with the reason, which the child reports as a pre-exec failure:
 * exit 125).
 */
static void start_unixguard(struct sandbox *sb,
			    const struct jr_initproto_msg *in, pid_t sender)
{
	const struct jr_unixguard_listener l = {
		.task = sender,
		.fdnum = in->code,
		.expose = sb->opts->expose,
		.n_expose = sb->opts->n_expose,
		.control_path = sb->opts->control_path,
		.interruptible = in->status == JR_UG_WAIT_INTERRUPTIBLE,
	};
	struct jr_err err = { 0 };
	struct jr_initproto_msg m;
	int r;

	if (sb->unixguard_err.code)
		r = jr_err_set(&err, sb->unixguard_err.code, "%s",
			       sb->unixguard_err.msg);
	else if (!sb->unixguard || sender <= 0)
		r = jr_err_set(&err, EPROTO,
			       "unexpected seccomp listener hand-over");
	else
		r = jr_unixguard_attach(sb->unixguard, &l, &err);
	if (r < 0) {
		jr_initproto_msg_init(&m, JR_INITPROTO_ABORT, err.code, "%s",
				      err.msg);
	} else {
		jr_initproto_msg_init(&m, JR_INITPROTO_UNOTIFY_OK, 0, NULL);
		jr_verbose(
		    "unix socket guard: seccomp user notification served by the runner (host unix sockets refused unless --expose)");
	}
	jr_initproto_send(sb->proto, &m, NULL, 0);
}

static void handle_initproto(struct sandbox *sb, struct outcome *o)
{
	struct jr_initproto_msg m;
	pid_t sender = 0;
	int r = jr_initproto_recv_cred(sb->proto, &m, NULL, NULL, &sender);

	if (r == -EAGAIN || r == -EINTR)
		return;
	if (r < 0) {
		o->proto_eof = true;
		return;
	}
	switch (m.type) {
	case JR_INITPROTO_UNOTIFY:
		start_unixguard(sb, &m, sender);
		break;
	case JR_INITPROTO_EXEC_OK:
		jr_startup_wait_done(sb->startup, JR_PHASE_SELFCHECK,
				     m.phase_us[0], JR_PHASE_EXEC,
				     m.phase_us[1]);
		/* Init's setup after SETUP_OK, beside the relay phase (and
		 * the nft one, when init sent SETUP_OK first). */
		jr_startup_add(sb->startup, JR_PHASE_INIT_SETUP, m.phase_us[2]);
		jr_startup_beside(sb->startup, m.span_us[0], m.span_us[1],
				  sb->laps, LAP_COUNT);
		jr_startup_complete(sb->startup);
		o->exec_ok = true;
		jr_verbose("command started");
		jr_notify_ready(); /* verified, self-checked: notify.c */
		if (sb->opts->live)
			jr_live_ready(sb->opts->live); /* the zygote runs */
		break;
	case JR_INITPROTO_EXEC_FAIL:
		o->exec_failed = true;
		o->exec_stage = m.status;
		o->exec_errno = m.code;
		snprintf(o->exec_msg, sizeof(o->exec_msg), "%s", m.msg);
		break;
	case JR_INITPROTO_EXIT:
		sb->startup->end_of_run = jr_clock_us();
		o->exited = true;
		o->status = m.status;
		break;
	default:
		jr_debug("ignoring control message %u", m.type);
		break;
	}
}

static void handle_signals(struct sandbox *sb)
{
	struct signalfd_siginfo si;

	while (read(sb->sigfd, &si, sizeof(si)) == (ssize_t)sizeof(si)) {
		int sig = (int)si.ssi_signo;

		if (sig == SIGCHLD) {
			if (!sb->init_reaped &&
			    waitpid(sb->init_pid, &sb->init_status, WNOHANG) ==
				sb->init_pid)
				sb->init_reaped = true;
			continue;
		}
		if (sig == SIGWINCH && sb->pty.master >= 0) {
			/* The kernel signals the pty's foreground group
			 * itself when its size changes (tty_ioctl(4)). */
			jr_pty_sync_winsize(&sb->pty);
			continue;
		}
		/* A live sandbox's runner has no command to pass them to:
		 * they stop it, as jailrun stop does (live.h). */
		if (sb->opts->live &&
		    (sig == SIGTERM || sig == SIGINT || sig == SIGHUP)) {
			sb->opts->live->stop = true;
			continue;
		}
		jr_debug("forwarding signal %d", sig);
		if (sig == SIGTERM)
			jr_notify_stopping();
		if (!sb->init_reaped)
			kill(sb->init_pid, sig);
	}
}

/* Run the event loop until init is reaped and its output drained. */
static void supervise(struct sandbox *sb, uint64_t timeout_ms,
		      struct outcome *o)
{
	bool pty_open = sb->pty.master >= 0;

	while (!sb->init_reaped || !o->proto_eof || pty_open) {
		struct pollfd pfd[8];
		int n = 0, i_proto = -1, i_tmr = -1, i_mst = -1, i_in = -1;
		int i_live = -1, i_ask = -1, i_key = -1;
		/* A prompt is up: the pty waits (askprompt.h). */
		bool asking = jr_askprompt_up(&sb->ask);

		pfd[n++] = (struct pollfd){ .fd = sb->sigfd, .events = POLLIN };
		if (!o->proto_eof) {
			pfd[n] = (struct pollfd){ .fd = sb->proto,
						  .events = POLLIN };
			i_proto = n++;
		}
		if (sb->timerfd >= 0 && !sb->init_reaped) {
			pfd[n] = (struct pollfd){ .fd = sb->timerfd,
						  .events = POLLIN };
			i_tmr = n++;
		}
		if (pty_open && !asking) {
			pfd[n] = (struct pollfd){
				.fd = sb->pty.master,
				.events =
				    POLLIN | (sb->pty.in_len ? POLLOUT : 0),
			};
			i_mst = n++;
			if (!sb->pty.in_eof && !sb->pty.in_len) {
				pfd[n] = (struct pollfd){ .fd = STDIN_FILENO,
							  .events = POLLIN };
				i_in = n++;
			}
		}
		if (sb->opts->live && !sb->init_reaped) {
			pfd[n] = (struct pollfd){ .fd = sb->opts->live->epfd,
						  .events = POLLIN };
			i_live = n++;
		}
		if (sb->ask.notify >= 0 && !sb->init_reaped) {
			pfd[n] = (struct pollfd){ .fd = sb->ask.notify,
						  .events = POLLIN };
			i_ask = n++;
		}
		if (asking) {
			pfd[n] = (struct pollfd){ .fd = sb->ask.tty,
						  .events = POLLIN };
			i_key = n++;
		}
		/* Once init is reaped nothing new can arrive: drain, don't wait. */
		if (poll(pfd, (nfds_t)n, sb->init_reaped ? 0 : -1) < 0) {
			if (errno == EINTR)
				continue;
			jr_error("poll failed (%s): killing the sandbox",
				 strerror(errno));
			kill_and_reap(sb);
		}
		if (pfd[0].revents)
			handle_signals(sb);
		if (i_proto >= 0 && (pfd[i_proto].revents || sb->init_reaped))
			handle_initproto(sb, o);
		if (i_tmr >= 0 && pfd[i_tmr].revents) {
			jr_warn("--timeout %.3f expired: killing the sandbox",
				(double)timeout_ms / 1000.0);
			o->timed_out = true;
			kill_and_reap(sb);
		}
		if (i_mst >= 0 && (pfd[i_mst].revents || sb->init_reaped)) {
			int r;

			if (pfd[i_mst].revents & POLLOUT)
				jr_pty_flush_in(&sb->pty);
			while ((r = jr_pty_pump_out(&sb->pty)) > 0)
				;
			/* EIO: every slave fd is closed. After init is
			 * reaped, no process is left that could write more. */
			if (r == -EIO || sb->init_reaped)
				pty_open = false;
		}
		if (i_in >= 0 && pfd[i_in].revents)
			jr_pty_pump_in(&sb->pty);
		if (i_live >= 0 && pfd[i_live].revents)
			jr_live_dispatch(sb->opts->live);
		if (i_key >= 0 && pfd[i_key].revents)
			jr_askprompt_key_ready(&sb->ask);
		if (i_ask >= 0 && pfd[i_ask].revents)
			jr_askprompt_changed(&sb->ask);
		/* The command has ended: nothing is left to ask about, and
		 * its last output must be relayed. */
		if (sb->init_reaped)
			jr_askprompt_cancel(&sb->ask, "(the command ended)");
		if (sb->opts->live && sb->opts->live->stop && !o->stopped) {
			o->stopped = true;
			kill_and_reap(sb);
		}
	}
}

static void fill_result(const struct sandbox *sb, const struct outcome *o,
			struct jr_run_result *res)
{
	if (res->watchdog.killed) {
		/* Fail closed: whatever the command was doing, the lockdown
		 * did not hold, and the sandbox was ended for it. */
		res->ended = JR_END_TAMPER;
		res->exit_status = JR_EXIT_FAILURE;
		jr_err_set(&res->err, EPERM, "%s", res->watchdog.reason);
		return;
	}
	if (o->timed_out) {
		res->ended = JR_END_TIMEOUT;
		res->exit_status = JR_EXIT_TIMEOUT;
		return;
	}
	if (o->stopped) {
		/* As asked: jailrun stop, a signal to the runner, or
		 * --idle-stop; not a command's own end. */
		res->ended = JR_END_STOPPED;
		res->exit_status = 0;
		return;
	}
	if (o->exec_failed) {
		jr_err_set(&res->err, o->exec_errno, "%s", o->exec_msg);
		if (o->exec_stage == JR_INITPROTO_EXEC_STAGE_EXEC) {
			res->ended = JR_END_EXEC_FAILED;
			res->exit_status =
			    jr_exit_code_from_exec_errno(o->exec_errno);
		} else {
			res->ended = JR_END_SETUP_FAILED;
			res->exit_status = JR_EXIT_FAILURE;
		}
		return;
	}
	if (o->exited) {
		res->exit_status = jr_exit_code_from_wait_status(o->status);
		if (WIFSIGNALED(o->status)) {
			res->ended = JR_END_SIGNALED;
			res->signal = WTERMSIG(o->status);
		} else {
			res->ended = JR_END_EXITED;
		}
		return;
	}
	/* init ended without reporting: killed from outside, or it lost us. */
	if (WIFSIGNALED(sb->init_status)) {
		res->ended = JR_END_SIGNALED;
		res->signal = WTERMSIG(sb->init_status);
		res->exit_status = JR_EXIT_SIGNAL_BASE + res->signal;
		jr_err_set(&res->err, EINTR,
			   "the sandbox was killed from outside by signal %d",
			   res->signal);
		return;
	}
	res->ended = o->exec_ok ? JR_END_EXITED : JR_END_SETUP_FAILED;
	res->exit_status = JR_EXIT_FAILURE;
	jr_err_set(
	    &res->err, EPROTO,
	    "the sandbox init exited without reporting the command's status");
}

/*
 * read_firewall_refused() - what the worker's refusing rules counted, read
 * through the table's owner socket once the watchdog (its only other
 * user) has stopped. The socket holds the netns, so the counters are still
 * there after init is gone. A read that fails leaves the figure unknown
 * (null in the summary) rather than 0.
 */
static void read_firewall_refused(const struct sandbox *sb,
				  struct jr_run_result *res)
{
	struct jr_err err = { 0 };

	res->firewall_refused = 0;
	res->firewall_refused_unread = false;
	if (!sb->nft || !sb->rs)
		return;
	if (jr_nft_counters_read(sb->nft, sb->rs, &res->firewall_refused,
				 &err) < 0) {
		jr_warn("%s", err.msg);
		res->firewall_refused_unread = true;
		return;
	}
	jr_verbose("firewall: %llu packets refused",
		   (unsigned long long)res->firewall_refused);
}

static void sandbox_release(struct sandbox *sb, struct jr_run_result *res)
{
	struct jr_watchdog_report rep;

	kill_and_reap(sb);
	jr_cgroup_destroy(sb->cgroup, &res->limits);
	sb->cgroup = NULL;
	if (sb->unixguard) {
		struct jr_unixguard_stats st;

		jr_unixguard_stop(sb->unixguard, &st);
		sb->unixguard = NULL;
		jr_verbose(
		    "unix socket guard: %lu calls seen, %lu passed on, %lu run on behalf, %lu refused",
		    st.notifications, st.continued, st.on_behalf, st.refused);
	}
	if (sb->unix_diag >= 0)
		close(sb->unix_diag);
	sb->unix_diag = -1;
	if (sb->watchdog) {
		jr_watchdog_stop(sb->watchdog, &rep);
		sb->watchdog = NULL;
		res->watchdog = rep;
	}
	if (sb->nflog) {
		struct jr_nflog_stats st;

		/* The command is gone: every message it caused is queued. */
		jr_nflog_stop(sb->nflog, &st);
		sb->nflog = NULL;
		jr_verbose(
		    "firewall: %llu refusals logged, %llu over the rate limit",
		    (unsigned long long)st.logged,
		    (unsigned long long)st.suppressed);
	}
	read_firewall_refused(sb, res);
	jr_relay_stop(sb->relay);
	sb->relay = NULL;
	jr_askprompt_close(&sb->ask); /* after the relay: it writes notify */
	jr_fakeip_free(sb->fakeip);
	sb->fakeip = NULL;
	free(sb->etc_hosts);
	sb->etc_hosts = NULL;
	jr_ruleset_free(sb->rs);
	sb->rs = NULL;
	jr_ruleset_free(sb->rs_relay);
	sb->rs_relay = NULL;
	if (sb->mon_relay)
		mnl_socket_close(sb->mon_relay);
	sb->mon_relay = NULL;
	jr_seccomp_release(&sb->seccomp);
	if (sb->seccomp_fd >= 0)
		close(sb->seccomp_fd);
	sb->seccomp_fd = -1;
	jr_landlock_config_release(&sb->landlock);
	free(sb->ll_roots);
	jr_pty_close(&sb->pty);
	if (sb->nft)
		mnl_socket_close(sb->nft);
	sb->nft = NULL;
	if (sb->nft_relay)
		mnl_socket_close(sb->nft_relay);
	sb->nft_relay = NULL;
	if (sb->proto >= 0)
		close(sb->proto);
	if (sb->sigfd >= 0)
		close(sb->sigfd);
	if (sb->timerfd >= 0)
		close(sb->timerfd);
	sb->proto = sb->sigfd = sb->timerfd = -1;
}

/*
 * landlock_plan - Landlock's writable roots mirror the mount layer's:
 * the plan's writable roots and --tmpfs mounts (the fixed tmpfs and
 * device nodes are landlock.c's own list). Under --fs host the mount
 * layer leaves the whole host writable, and so does Landlock unless
 * --landlock require asks for it: then writes are confined to the
 * working directory (the only wall on writes in that mode).
 */
static int landlock_plan(struct sandbox *sb, const struct jr_options *opts,
			 const struct jr_fs_plan *fs,
			 const struct jr_policy *policy, struct jr_err *err)
{
	size_t n = 0;

	if (fs->mode == JR_FS_HOST) {
		if (opts->landlock != JR_LANDLOCK_REQUIRE)
			return jr_landlock_plan(opts->landlock, opts->net,
						policy, NULL, 0, &sb->landlock,
						err);
		if (fs->workdir)
			snprintf(sb->cwd, sizeof(sb->cwd), "%s", fs->workdir);
		else if (!getcwd(sb->cwd, sizeof(sb->cwd)))
			return jr_err_set(
			    err, errno, "cannot read the working directory: %s",
			    strerror(errno));
	}
	sb->ll_roots = calloc(fs->n_ops + 1, sizeof(*sb->ll_roots));
	if (!sb->ll_roots)
		return jr_err_set(err, ENOMEM, "out of memory");
	if (fs->mode == JR_FS_HOST)
		sb->ll_roots[n++] = sb->cwd;
	for (size_t i = 0; i < fs->n_ops; i++)
		if (fs->ops[i].kind == JR_FS_OP_RW ||
		    fs->ops[i].kind == JR_FS_OP_TMPFS)
			sb->ll_roots[n++] = fs->ops[i].path;
	return jr_landlock_plan(opts->landlock, opts->net, policy, sb->ll_roots,
				n, &sb->landlock, err);
}

/*
 * landlock_lane_ports - a host lane is a TCP connect to the gateway on
 * the lane's port: where Landlock (and so the unix socket guard, which
 * copies the list) restricts TCP connects, add the host lanes' ports.
 * Name lanes are allow entries and already in the list.
 */
static int landlock_lane_ports(struct jr_landlock_config *cfg,
			       const struct jr_lanes *l, struct jr_err *err)
{
	uint16_t ports[JR_LANE_MAX];
	size_t n = jr_lanes_host_ports(l, ports, JR_LANE_MAX);
	uint16_t *grown;

	if (!cfg->tcp || !n)
		return 0;
	grown = reallocarray(cfg->ports, cfg->n_ports + n, sizeof(*grown));
	if (!grown)
		return jr_err_set(err, ENOMEM, "out of memory");
	cfg->ports = grown;
	for (size_t i = 0; i < n; i++)
		cfg->ports[cfg->n_ports++] = ports[i];
	return 0;
}

int jr_sandbox_run(const struct jr_options *opts, const struct jr_ids *ids,
		   const struct jr_fs_plan *fs, const struct jr_policy *policy,
		   struct jr_audit *audit, struct jr_run_result *res)
{
	struct sandbox sb = {
		.proto = -1,
		.sigfd = -1,
		.timerfd = -1,
		.unix_diag = -1,
		.seccomp_fd = -1,
		.opts = opts,
	};
	struct jr_startup startup = res->startup;
	struct outcome o = { 0 };
	struct jr_initproto_msg m;
	int r;

	memset(res, 0, sizeof(*res));
	res->startup = startup;
	sb.startup = &res->startup;
	jr_pty_init(&sb.pty);
	sb.pty.raw_tty = opts->raw_tty;
	jr_askprompt_init(&sb.ask);

	r = block_signals(&sb.sigfd, &res->err);
	if (r < 0)
		goto fail;
	/* --ask tty: no terminal to ask on fails the run before it starts. */
	if (opts->ask_tty && !opts->live) {
		r = jr_askprompt_open(&sb.ask, &res->err);
		if (r < 0)
			goto fail;
	}
	/* --seccomp on: the filter is built after the clone, in lockdown(),
	 * while init sets up. */
	if (!opts->seccomp) {
		jr_warn(
		    "--seccomp off: the command may use io_uring, bpf, perf_event_open, keyctl, raw and packet sockets and every other syscall the kernel lets an unprivileged user, and connect to the host's unix sockets; for debugging only");
	}
	r = landlock_plan(&sb, opts, fs,
			  jr_livepolicy_port_scope(
			      opts->control_fd >= 0 || opts->ask_tty, policy),
			  &res->err);
	if (r == 0)
		r = landlock_lane_ports(&sb.landlock, &opts->lanes, &res->err);
	if (r < 0)
		goto fail;
	res->landlock_abi = sb.landlock.abi;
	/* A live sandbox's commands bring their own stdio (live.c). */
	r = opts->live ? 0 : jr_pty_open(&sb.pty, &res->err);
	if (r < 0)
		goto fail;
	if (jr_limits_need_cgroup(&opts->limits)) {
		r = jr_cgroup_create(&opts->limits, &sb.cgroup, &res->err);
		if (r < 0)
			goto fail;
	}
	sb.ids = ids;
	r = spawn(&sb, opts, ids, fs, policy, &res->err);
	/* Only the sandbox may hold the slave from now on. */
	if (sb.pty.slave >= 0) {
		close(sb.pty.slave);
		sb.pty.slave = -1;
	}
	if (r < 0)
		goto fail;
	r = lockdown(&sb, opts, policy, audit, res, &res->err);
	if (r < 0)
		goto fail;
	r = arm_timeout(&sb, opts->timeout_ms, &res->err);
	if (r < 0)
		goto fail;
	sb.laps[LAP_RELAY].t1 = jr_startup_lap(sb.startup, JR_PHASE_RELAY);

	/* The pre-exec child's UNOTIFY names its sender only through the
	 * credentials the kernel attaches (unixguard.c). */
	if (setsockopt(sb.proto, SOL_SOCKET, SO_PASSCRED, &(int){ 1 },
		       sizeof(int)) < 0) {
		r = jr_err_set(&res->err, errno, "SO_PASSCRED: %s",
			       strerror(errno));
		goto fail;
	}
	/* GO: every table verified, relay and watchdog running (lockdown());
	 * it carries the filter, which init must have to exec at all. */
	jr_initproto_msg_init(&m, JR_INITPROTO_GO, 0, NULL);
	m.status = sb.seccomp.notify ? JR_INITPROTO_GO_NOTIFY : 0;
	r = jr_initproto_send(sb.proto, &m, &sb.seccomp_fd, sb.seccomp_fd >= 0);
	if (r < 0) {
		jr_err_set(&res->err, -r, "the sandbox init is gone");
		goto fail;
	}
	prestart_unixguard(&sb);
	jr_pty_raw(&sb.pty);
	supervise(&sb, opts->timeout_ms, &o);
	jr_notify_stopping();
	/* The command's output is all relayed: put back what it left set,
	 * before anything of ours is printed on the terminal. */
	jr_pty_reset_modes(&sb.pty);
	jr_pty_restore(&sb.pty);
	sandbox_release(&sb, res);
	fill_result(&sb, &o, res);
	return 0;

fail:
	if (sb.proto >= 0 && sb.init_pid > 0) {
		jr_initproto_msg_init(&m, JR_INITPROTO_ABORT, 0, NULL);
		jr_initproto_send(sb.proto, &m, NULL, 0);
	}
	sandbox_release(&sb, res);
	res->ended = JR_END_SETUP_FAILED;
	res->exit_status = JR_EXIT_FAILURE;
	return r < 0 ? r : -EIO;
}
