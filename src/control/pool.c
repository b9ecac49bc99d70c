// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * pool.c - jailrun start NAME --pool N: a warm pool of live sandboxes.
 *
 * Theory of operation: the pool is a small manager process that owns
 * NAME.sock and runs N ordinary live sandboxes (live.c) as its children,
 * each `jailrun start .pool-PID-K --pool-member FD OPTIONS` in the
 * foreground: a name no user can give (a leading '.'), so jailrun ls
 * does not list it and no start can take it. A member says it is ready
 * (its lockdown verified) by writing 'R' on the pipe FD.
 *
 * An exec's request, with its three fds, is passed whole to a ready
 * member's socket (connected when the member became ready, so that a
 * dispatch is one sendmsg); the answers come back and SIGNALs go on, so jailrun
 * exec cannot tell a pool from a sandbox. When the command ends (or its
 * client goes), that member is stopped as jailrun stop stops a sandbox
 * (SIGTERM to its runner: every process, mount, netns, cgroup and nft
 * table gone, its JSON summary and audit end written) and a new one is
 * started: a task never sees another task's state.
 *
 * A member whose runner dies (SIGKILL) is reaped and replaced, the
 * cgroup it could not remove removed first; one that
 * ends before it is ready fails the start (its message on the start
 * caller's stderr), and later, three in a row stop the pool. Under a
 * service manager's watchdog the loop pings WATCHDOG=1 on a timerfd;
 * --idle-stop is a timerfd armed while no task runs or waits. Members stop
 * with the manager: PR_SET_PDEATHSIG (SIGTERM, a runner's stop), so a
 * killed manager leaves no sandbox, socket or cgroup behind.
 *
 * With --ask and no --control, each member holds its requests on its own
 * NAME.ctl and says 'A' when ready; the manager then serves POOL.ctl, on
 * which jailrun ctl POOL lists and decides them all (pool_ctl.c).
 */

#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/signalfd.h>
#include <sys/socket.h>
#include <sys/timerfd.h>
#include <sys/un.h>
#include <sys/wait.h>
#include <unistd.h>

#include "cgroup.h"
#include "cleanup.h"
#include "clock.h"
#include "control.h"
#include "exitcode.h"
#include "io.h"
#include "live.h"
#include "log.h"
#include "notify.h"
#include "pool_ctl.h"

/* Members that end before they are ready, in a row, that stop a pool. */
#define POOL_FAILURES_MAX 3

enum member_state { M_FREE, M_STARTING, M_READY, M_BUSY, M_STOPPING };

struct member {
	enum member_state state;
	pid_t pid;
	uint32_t seq;	/* its number: {n} in --json and --log */
	char ctl[108];	/* its own policy socket, NAME.ctl beside path */
	bool asks;	/* it said 'A': it holds requests on ctl (--ask) */
	bool was_ready; /* else its end is a failure */
	int ready_rd;	/* STARTING: its --pool-member pipe */
	int conn;	/* BUSY: our connection to its socket */
	size_t client;	/* BUSY: whose task */
	char path[108]; /* its socket */
};

struct client {
	int fd;	      /* -1: a free slot */
	bool waiting; /* an EXEC, until a member is ready */
	bool busy;    /* its EXEC passed to member @member */
	size_t member;
	uint64_t since; /* arrival order, for fairness */
	char *msg;	/* the EXEC as it came */
	size_t len;
	int fds[3];
};

struct pool {
	struct jr_live *l;
	char **opts;
	int nopts;
	struct member m[JR_POOL_MAX];
	struct client c[JR_LIVE_CONNS_MAX];
	int sfd;
	int wd_timer;	/* WATCHDOG=1 for a service manager; -1: none */
	int idle_timer; /* --idle-stop, armed while no task runs; -1: none */
	bool idle_armed;
	uint32_t seq, total, failures;
	uint64_t arrivals;
	bool stop, ready_said;
	int status;		/* the manager's exit status */
	struct jr_pool_ctl ctl; /* POOL.ctl, once a member says 'A' */
};

static char msgbuf[JR_LIVE_MSG_MAX + 1];

/* In the forked child: become member @m's runner, named @name (see
 * spawn_member()); never returns. */
static void exec_member(struct pool *p, const struct member *m,
			const char *name, int ready_wr, pid_t manager)
{
	char **argv = calloc((size_t)p->nopts + 6, sizeof(*argv));
	char fdstr[16];
	sigset_t none;
	int n = 0;

	/* Our death stops the member as jailrun stop would (SIGTERM is
	 * its runner's stop: the sandbox, its socket and cgroup go). */
	if (prctl(PR_SET_PDEATHSIG, SIGTERM) < 0 || getppid() != manager)
		_exit(JR_EXIT_FAILURE);
	sigemptyset(&none);
	if (!argv || sigprocmask(SIG_SETMASK, &none, NULL) < 0 ||
	    fcntl(ready_wr, F_SETFD, 0) < 0)
		_exit(JR_EXIT_FAILURE);
	snprintf(fdstr, sizeof(fdstr), "%d", ready_wr);
	argv[n++] = (char *)"jailrun";
	argv[n++] = (char *)"start";
	argv[n++] = (char *)name;
	argv[n++] = (char *)"--pool-member";
	argv[n++] = fdstr;
	for (int i = 0; i < p->nopts; i++) {
		const char *v;

		argv[n] = p->opts[i];
		if (jr_pool_path_value(p->opts, i, &v) &&
		    !(argv[n] = jr_pool_with_seq(p->opts[i], m->seq)))
			_exit(JR_EXIT_FAILURE);
		n++;
	}
	execv("/proc/self/exe", argv);
	_exit(JR_EXIT_FAILURE);
}

/* Start a new member in free slot @m. Return: 0 or -errno (said). */
static int spawn_member(struct pool *p, struct member *m)
{
	struct jr_err err = { 0 };
	char name[JR_LIVE_NAME_MAX + 1];
	pid_t manager = getpid(), pid;
	int pp[2];

	*m = (struct member){ .seq = ++p->seq, .ready_rd = -1, .conn = -1 };
	snprintf(name, sizeof(name), ".pool-%d-%u", (int)manager, m->seq);
	if (jr_live_socket_path(geteuid(), getenv("XDG_RUNTIME_DIR"), name,
				m->path, sizeof(m->path), &err) < 0 ||
	    jr_live_control_path(geteuid(), getenv("XDG_RUNTIME_DIR"), name,
				 m->ctl, sizeof(m->ctl), &err) < 0) {
		jr_error("%s", err.msg);
		return -EINVAL;
	}
	if (pipe2(pp, O_CLOEXEC) < 0) {
		jr_error("pool %s: pipe2: %s", p->l->name, strerror(errno));
		return -errno;
	}
	fflush(NULL);
	pid = fork();
	if (pid < 0) {
		int e = errno;

		close(pp[0]);
		close(pp[1]);
		jr_error("pool %s: fork: %s", p->l->name, strerror(e));
		return -e;
	}
	if (pid == 0) {
		close(pp[0]);
		exec_member(p, m, name, pp[1], manager);
	}
	close(pp[1]);
	m->pid = pid;
	m->ready_rd = pp[0];
	m->state = M_STARTING;
	return 0;
}

static void send_reply(int fd, const struct jr_live_reply *r)
{
	if (send(fd, r, sizeof(*r), MSG_DONTWAIT | MSG_NOSIGNAL) < 0)
		jr_debug("pool: a client did not take its answer: %s",
			 strerror(errno));
}

static void drop_client(struct client *c)
{
	if (c->fd >= 0)
		close(c->fd);
	for (int i = 0; i < 3; i++)
		if (c->fds[i] >= 0)
			close(c->fds[i]);
	free(c->msg);
	*c = (struct client){ .fd = -1, .fds = { -1, -1, -1 } };
}

/* The member's task is over (or it is to go): stop it, as jailrun stop
 * would; it is replaced once reaped. */
static void retire(struct pool *p, struct member *m)
{
	if (m->state == M_BUSY)
		drop_client(&p->c[m->client]);
	if (m->conn >= 0)
		close(m->conn);
	m->conn = -1;
	if (m->ready_rd >= 0)
		close(m->ready_rd);
	m->ready_rd = -1;
	if (m->state != M_STOPPING && m->pid > 0 && kill(m->pid, SIGTERM) < 0)
		jr_warn("pool %s: cannot stop a member (%d): %s", p->l->name,
			(int)m->pid, strerror(errno));
	m->state = M_STOPPING;
}

static void stop_pool(struct pool *p, int status)
{
	if (!p->stop) {
		jr_verbose("pool %s: stopping", p->l->name);
		jr_notify_stopping();
		p->status = status;
	}
	p->stop = true;
	if (p->l->path[0])
		unlink(p->l->path); /* a new client finds no pool */
	p->l->path[0] = '\0';
	if (p->l->listen_fd >= 0)
		close(p->l->listen_fd);
	p->l->listen_fd = -1;
	for (size_t i = 0; i < JR_LIVE_CONNS_MAX; i++)
		if (p->c[i].fd >= 0 && !p->c[i].busy)
			drop_client(&p->c[i]);
	for (size_t i = 0; i < JR_POOL_MAX; i++)
		if (p->m[i].state != M_FREE)
			retire(p, &p->m[i]);
}

static uint32_t count(const struct pool *p, enum member_state s)
{
	uint32_t n = 0;

	for (size_t i = 0; i < JR_POOL_MAX; i++)
		n += p->m[i].state == s;
	return n;
}

/* All members ready the first time: the start caller may go. */
static void say_ready(struct pool *p)
{
	if (p->ready_said || count(p, M_READY) < p->l->pool)
		return;
	p->ready_said = true;
	jr_verbose("pool %s ready: %s", p->l->name, p->l->path);
	jr_notify_ready();
	if (p->l->ready_fd >= 0) {
		if (write(p->l->ready_fd, "R", 1) != 1)
			jr_warn("the caller of jailrun start is gone");
		close(p->l->ready_fd);
		p->l->ready_fd = -1;
	}
	jr_live_detach_stderr(p->l);
}

/*
 * connect_member - open our connection to member @m's socket as soon as it
 * is ready, so that a task's dispatch is one sendmsg: the member's accept
 * and its peer credential check are done before any task waits on them.
 * Return: 0, or -1 (said; the member is to be retired).
 */
static int connect_member(struct pool *p, struct member *m)
{
	struct sockaddr_un sun = { .sun_family = AF_UNIX };
	_cleanup_close_ int fd =
	    socket(AF_UNIX, SOCK_SEQPACKET | SOCK_CLOEXEC, 0);

	snprintf(sun.sun_path, sizeof(sun.sun_path), "%s", m->path);
	if (fd < 0 || connect(fd, (struct sockaddr *)&sun, sizeof(sun)) < 0) {
		jr_warn("pool %s: cannot reach a ready member: %s", p->l->name,
			strerror(errno));
		return -1;
	}
	m->conn = steal_fd(&fd);
	return 0;
}

/*
 * serve_ctl - member @m holds requests on its own NAME.ctl: serve POOL.ctl
 * if not yet. A pool that cannot is stopped (its requests could be
 * decided nowhere). Return: 0, or -1 (said).
 */
static int serve_ctl(struct pool *p, struct member *m)
{
	struct jr_err err = { 0 };

	m->asks = true;
	if (p->ctl.fd < 0 && jr_pool_ctl_open(&p->ctl, p->l->name, &err) < 0) {
		jr_error("pool %s: %s", p->l->name, err.msg);
		retire(p, m);
		stop_pool(p, JR_EXIT_FAILURE);
		return -1;
	}
	return 0;
}

static void member_ready(struct pool *p, struct member *m)
{
	char c = 0;
	ssize_t n = read(m->ready_rd, &c, 1);

	if (n < 0 && (errno == EINTR || errno == EAGAIN))
		return;
	close(m->ready_rd);
	m->ready_rd = -1;
	if (n == 1 && (c == 'R' || c == 'A') && connect_member(p, m) == 0) {
		if (c == 'A' && serve_ctl(p, m) < 0)
			return;
		m->state = M_READY;
		m->was_ready = true;
		p->failures = 0;
		say_ready(p);
	} else {
		retire(p, m); /* it failed; its runner says why */
	}
}

/*
 * A member's runner killed by a signal (SIGKILL) could not remove its
 * sandbox's cgroup directories: remove them for it. Called before the
 * child is reaped, so that its pid, which names them, is not reused.
 */
static void remove_left_cgroups(const struct pool *p, const siginfo_t *si)
{
	int r;

	if (si->si_code != CLD_KILLED && si->si_code != CLD_DUMPED)
		return;
	r = jr_cgroup_remove_left(si->si_pid);
	if (r < 0)
		jr_warn(
		    "pool %s: the cgroup of a killed sandbox (runner %d) is left: %s",
		    p->l->name, (int)si->si_pid, strerror(-r));
	else if (r > 0)
		jr_verbose(
		    "pool %s: removed %d cgroup(s) of a killed sandbox (runner %d)",
		    p->l->name, r, (int)si->si_pid);
}

/* Reap ended members; replace them unless the pool stops. */
static void reap(struct pool *p)
{
	siginfo_t si;
	int st;
	pid_t pid;

	for (;;) {
		si.si_pid = 0;
		if (waitid(P_ALL, 0, &si, WEXITED | WNOHANG | WNOWAIT) < 0 ||
		    si.si_pid == 0)
			break;
		remove_left_cgroups(p, &si);
		pid = waitpid(si.si_pid, &st, 0);
		if (pid <= 0)
			break;
		for (size_t i = 0; i < JR_POOL_MAX; i++) {
			struct member *m = &p->m[i];

			if (m->state == M_FREE || m->pid != pid)
				continue;
			m->pid = 0; /* reaped: nothing left to signal */
			if (m->state != M_STOPPING)
				retire(p, m); /* it died by itself */
			unlink(m->path);      /* a killed runner leaves it */
			jr_control_unlink(m->ctl); /* and this one */
			m->state = M_FREE;
			if (!m->was_ready && !p->stop &&
			    (!p->ready_said ||
			     ++p->failures >= POOL_FAILURES_MAX)) {
				jr_error(
				    "pool %s: a sandbox of the pool could not start (see above): stopping the pool",
				    p->l->name);
				stop_pool(p, JR_EXIT_FAILURE);
			}
			if (!p->stop && spawn_member(p, m) < 0)
				stop_pool(p, JR_EXIT_FAILURE);
		}
	}
}

/* Pass client @c's EXEC with its fds to ready member @m. */
static int hand_over(struct pool *p, struct client *c, struct member *m)
{
	char cbuf[CMSG_SPACE(3 * sizeof(int))] = { 0 };
	struct iovec iov = { .iov_base = c->msg, .iov_len = c->len };
	struct msghdr mh = { .msg_iov = &iov,
			     .msg_iovlen = 1,
			     .msg_control = cbuf,
			     .msg_controllen = sizeof(cbuf) };
	struct cmsghdr *cm = CMSG_FIRSTHDR(&mh);

	cm->cmsg_level = SOL_SOCKET;
	cm->cmsg_type = SCM_RIGHTS;
	cm->cmsg_len = CMSG_LEN(3 * sizeof(int));
	memcpy(CMSG_DATA(cm), c->fds, 3 * sizeof(int));
	if (sendmsg(m->conn, &mh, MSG_NOSIGNAL) < 0) {
		jr_warn("pool %s: a ready member did not take a task: %s",
			p->l->name, strerror(errno));
		return -1;
	}
	for (int i = 0; i < 3; i++) {
		close(c->fds[i]);
		c->fds[i] = -1;
	}
	m->client = (size_t)(c - p->c);
	m->state = M_BUSY;
	c->member = (size_t)(m - p->m);
	c->waiting = false;
	c->busy = true;
	p->total++;
	return 0;
}

/* Waiting clients, oldest first, each to a ready member. */
static void dispatch(struct pool *p)
{
	for (;;) {
		struct client *c = NULL;
		struct member *m = NULL;

		for (size_t i = 0; i < JR_LIVE_CONNS_MAX; i++)
			if (p->c[i].fd >= 0 && p->c[i].waiting &&
			    (!c || p->c[i].since < c->since))
				c = &p->c[i];
		for (size_t i = 0; i < JR_POOL_MAX && !m; i++)
			if (p->m[i].state == M_READY)
				m = &p->m[i];
		if (!c || !m)
			return;
		if (hand_over(p, c, m) < 0)
			retire(p, m);
	}
}

static void answer_status(struct pool *p, struct client *c)
{
	struct jr_live_reply r = {
		.type = JR_LIVE_STATE,
		.runner_pid = (int32_t)getpid(),
		.started_unix_ms = p->l->started_unix_ms,
		.execs_total = p->total,
		.execs_running = count(p, M_BUSY),
	};

	snprintf(r.mode, sizeof(r.mode), "pool: %u ready, %u busy",
		 count(p, M_READY), r.execs_running);
	snprintf(r.msg, sizeof(r.msg), "%s", p->l->name);
	send_reply(c->fd, &r);
}

static void refuse(struct client *c, int code, const char *msg)
{
	struct jr_live_reply r = { .type = JR_LIVE_REFUSED, .code = code };

	snprintf(r.msg, sizeof(r.msg), "%s", msg);
	send_reply(c->fd, &r);
}

/* A first request from client @c (@n bytes in msgbuf, @fds). */
static void take_request(struct pool *p, struct client *c, size_t n, int *fds,
			 int nfds)
{
	static struct jr_live_req req;
	static char copy[JR_LIVE_MSG_MAX + 1];
	struct jr_err err = { 0 };

	memcpy(copy, msgbuf, n);
	if (jr_live_req_decode(copy, n, &req, &err) < 0) {
		refuse(c, err.code, err.msg);
	} else if (req.type == JR_LIVE_EXEC && nfds == 3 && !c->waiting) {
		c->msg = malloc(n);
		if (!c->msg) {
			refuse(c, ENOMEM, "out of memory");
			return;
		}
		memcpy(c->msg, msgbuf, n);
		c->len = n;
		memcpy(c->fds, fds, sizeof(c->fds));
		nfds = 0; /* ours now */
		c->waiting = true;
		c->since = ++p->arrivals;
	} else if (req.type == JR_LIVE_EXEC) {
		refuse(c, EINVAL, "an exec request carries three fds");
	} else if (req.type == JR_LIVE_STATUS) {
		answer_status(p, c);
	} else if (req.type == JR_LIVE_STOP) {
		struct jr_live_reply r = { .type = JR_LIVE_STOPPING };

		send_reply(c->fd, &r);
		stop_pool(p, 0);
	}
	for (int i = 0; i < nfds; i++)
		close(fds[i]);
}

/* One message from client @c. */
static void serve_client(struct pool *p, struct client *c)
{
	int fds[3] = { -1, -1, -1 }, nfds = 0;
	ssize_t n = jr_recv_fds(c->fd, msgbuf, sizeof(msgbuf), MSG_DONTWAIT,
				fds, 3, &nfds);

	if (n == -EAGAIN || n == -EINTR)
		return;
	if (n <= 0 && n != -EMSGSIZE) {
		/* Gone: a running command goes with it, as on a sandbox. */
		if (c->busy)
			retire(p, &p->m[c->member]);
		else
			drop_client(c);
		return;
	}
	if (n == -EMSGSIZE) {
		refuse(c, E2BIG, "the request is too large");
	} else if (c->busy) {
		/* SIGNAL: for the member's runner to pass on */
		if (send(p->m[c->member].conn, msgbuf, (size_t)n,
			 MSG_DONTWAIT | MSG_NOSIGNAL) < 0)
			jr_warn("pool: cannot pass a signal on: %s",
				strerror(errno));
	} else {
		take_request(p, c, (size_t)n, fds, nfds);
		nfds = 0;
	}
	for (int i = 0; i < nfds; i++)
		close(fds[i]);
}

/* An answer from busy member @m, for its client. */
static void serve_member(struct pool *p, struct member *m)
{
	struct jr_live_reply r;
	ssize_t n = recv(m->conn, &r, sizeof(r), MSG_DONTWAIT);

	if (n < 0 && (errno == EAGAIN || errno == EINTR))
		return;
	if (n != (ssize_t)sizeof(r)) {
		retire(p, m); /* the member ended first: its client sees EOF */
		return;
	}
	send_reply(p->c[m->client].fd, &r);
	if (r.type != JR_LIVE_STARTED)
		retire(p, m); /* the task is over */
}

static void accept_clients(struct pool *p)
{
	int fd;

	while ((fd = jr_live_accept(p->l->listen_fd)) >= 0) {
		size_t i;

		for (i = 0; i < JR_LIVE_CONNS_MAX && p->c[i].fd >= 0; i++)
			;
		if (i == JR_LIVE_CONNS_MAX) {
			struct client tmp = { .fd = fd };

			refuse(&tmp, EBUSY, "the pool serves too many clients");
			close(fd);
			continue;
		}
		p->c[i] = (struct client){ .fd = fd, .fds = { -1, -1, -1 } };
	}
}

static void take_signals(struct pool *p)
{
	struct signalfd_siginfo si;

	while (read(p->sfd, &si, sizeof(si)) == (ssize_t)sizeof(si)) {
		if (si.ssi_signo == SIGCHLD)
			reap(p);
		else
			stop_pool(p, 0);
	}
}

/* Read a timerfd's count; false if it had not expired. */
static bool timer_expired(int fd)
{
	uint64_t n = 0;

	return read(fd, &n, sizeof(n)) == (ssize_t)sizeof(n) && n > 0;
}

/* The manager's loop turns: the service manager's watchdog is fed. A
 * sandbox's own lockdown is watched by its runner's rule watchdog, which
 * ends it on a tamper it cannot repair (and it is replaced). */
static void watchdog_tick(struct pool *p)
{
	if (timer_expired(p->wd_timer))
		jr_notify_watchdog_tick(NULL);
}

/* --idle-stop: no task has run for that long; stop as jailrun stop. */
static void idle_expired(struct pool *p)
{
	if (!timer_expired(p->idle_timer) || !p->idle_armed)
		return;
	jr_verbose("pool %s: --idle-stop expired", p->l->name);
	stop_pool(p, 0);
}

/* --idle-stop: counting while no task runs or waits, from when the pool
 * is ready (a slow start is not idleness) and from the end of the last
 * task; stopped while one does. */
static void arm_idle(struct pool *p)
{
	struct itimerspec its = { 0 };
	bool idle = p->ready_said && count(p, M_BUSY) == 0;

	for (size_t i = 0; i < JR_LIVE_CONNS_MAX && idle; i++)
		idle = !(p->c[i].fd >= 0 && p->c[i].waiting);
	if (p->idle_timer < 0 || idle == p->idle_armed)
		return;
	if (idle) {
		its.it_value.tv_sec = (time_t)(p->l->idle_stop_ms / 1000);
		its.it_value.tv_nsec =
		    (long)(p->l->idle_stop_ms % 1000) * 1000000L;
	}
	if (timerfd_settime(p->idle_timer, 0, &its, NULL) < 0)
		jr_warn("--idle-stop: timerfd_settime: %s", strerror(errno));
	else
		p->idle_armed = idle;
}

/* A periodic timer of @ms milliseconds, or -1 (said). */
static int periodic_timer(uint64_t ms)
{
	struct itimerspec its = { 0 };
	int fd = timerfd_create(CLOCK_MONOTONIC, TFD_CLOEXEC | TFD_NONBLOCK);

	its.it_value.tv_sec = (time_t)(ms / 1000);
	its.it_value.tv_nsec = (long)(ms % 1000) * 1000000L;
	its.it_interval = its.it_value;
	if (fd < 0 || timerfd_settime(fd, 0, &its, NULL) < 0) {
		jr_error("timerfd: %s", strerror(errno));
		if (fd >= 0)
			close(fd);
		return -1;
	}
	return fd;
}

/* Who each pollfd is: a kind and a slot. */
enum poll_kind {
	PK_LISTEN,
	PK_SIGNALS,
	PK_WATCHDOG,
	PK_IDLE,
	PK_READY,
	PK_MEMBER,
	PK_CLIENT,
	PK_CTL
};

#define POLL_MAX (5 + 2 * JR_POOL_MAX + JR_LIVE_CONNS_MAX)

struct poll_set {
	struct pollfd fds[POLL_MAX];
	enum poll_kind kind[POLL_MAX];
	size_t slot[POLL_MAX];
	nfds_t n;
};

static void add(struct poll_set *s, int fd, enum poll_kind k, size_t slot)
{
	s->fds[s->n] = (struct pollfd){ .fd = fd, .events = POLLIN };
	s->kind[s->n] = k;
	s->slot[s->n++] = slot;
}

static void build_poll(struct pool *p, struct poll_set *s)
{
	s->n = 0;
	add(s, p->sfd, PK_SIGNALS, 0);
	if (p->wd_timer >= 0)
		add(s, p->wd_timer, PK_WATCHDOG, 0);
	if (p->idle_timer >= 0)
		add(s, p->idle_timer, PK_IDLE, 0);
	if (p->l->listen_fd >= 0)
		add(s, p->l->listen_fd, PK_LISTEN, 0);
	if (p->ctl.fd >= 0)
		add(s, p->ctl.fd, PK_CTL, 0);
	for (size_t i = 0; i < JR_POOL_MAX; i++) {
		if (p->m[i].ready_rd >= 0)
			add(s, p->m[i].ready_rd, PK_READY, i);
		if (p->m[i].conn >= 0)
			add(s, p->m[i].conn, PK_MEMBER, i);
	}
	for (size_t i = 0; i < JR_LIVE_CONNS_MAX; i++)
		if (p->c[i].fd >= 0)
			add(s, p->c[i].fd, PK_CLIENT, i);
}

/* Answer jailrun ctl POOL, asking the members that hold requests. */
static void serve_ctl_clients(struct pool *p)
{
	static struct jr_pool_ctl_member held[JR_POOL_MAX];
	size_t n = 0;

	for (size_t i = 0; i < JR_POOL_MAX; i++) {
		const struct member *m = &p->m[i];

		if ((m->state == M_READY || m->state == M_BUSY) && m->asks) {
			held[n].seq = m->seq;
			snprintf(held[n].path, sizeof(held[n].path), "%s",
				 m->ctl);
			n++;
		}
	}
	jr_pool_ctl_serve(&p->ctl, held, n);
}

/* The manager's loop, until stopped and every member reaped. */
static void serve(struct pool *p)
{
	static struct poll_set s;

	while (!p->stop || count(p, M_FREE) < JR_POOL_MAX) {
		build_poll(p, &s);
		if (poll(s.fds, s.n, -1) < 0) {
			if (errno == EINTR)
				continue;
			jr_error("pool %s: poll: %s", p->l->name,
				 strerror(errno));
			stop_pool(p, JR_EXIT_FAILURE);
			continue;
		}
		for (nfds_t i = 0; i < s.n; i++) {
			size_t k = s.slot[i];

			if (!s.fds[i].revents)
				continue;
			/* An fd closed earlier in this round is stale. */
			if (s.kind[i] == PK_SIGNALS)
				take_signals(p);
			else if (s.kind[i] == PK_WATCHDOG)
				watchdog_tick(p);
			else if (s.kind[i] == PK_IDLE)
				idle_expired(p);
			else if (s.kind[i] == PK_LISTEN &&
				 p->l->listen_fd == s.fds[i].fd)
				accept_clients(p);
			else if (s.kind[i] == PK_READY &&
				 p->m[k].ready_rd == s.fds[i].fd)
				member_ready(p, &p->m[k]);
			else if (s.kind[i] == PK_MEMBER &&
				 p->m[k].conn == s.fds[i].fd)
				serve_member(p, &p->m[k]);
			else if (s.kind[i] == PK_CLIENT &&
				 p->c[k].fd == s.fds[i].fd)
				serve_client(p, &p->c[k]);
			else if (s.kind[i] == PK_CTL &&
				 p->ctl.fd == s.fds[i].fd)
				serve_ctl_clients(p);
		}
		if (!p->stop)
			dispatch(p);
		if (!p->stop)
			arm_idle(p);
	}
}

/* Signals as events: SIGCHLD reaps, the rest stop the pool. */
static int pool_signals(void)
{
	static const int sigs[] = { SIGCHLD, SIGTERM, SIGINT, SIGHUP };
	sigset_t set;

	sigemptyset(&set);
	for (size_t i = 0; i < ARRAY_SIZE(sigs); i++)
		sigaddset(&set, sigs[i]);
	if (sigprocmask(SIG_BLOCK, &set, NULL) < 0)
		return -errno;
	return signalfd(-1, &set, SFD_CLOEXEC | SFD_NONBLOCK);
}

int jr_pool_main(struct jr_live *l, char **opts, int nopts)
{
	static struct pool p;
	struct jr_err err = { 0 };
	uint64_t wd_ms = 0;
	int status = 0, keep[1];

	p = (struct pool){ .l = l,
			   .opts = opts,
			   .nopts = nopts,
			   .sfd = -1,
			   .wd_timer = -1,
			   .idle_timer = -1 };
	for (size_t i = 0; i < JR_LIVE_CONNS_MAX; i++)
		p.c[i] = (struct client){ .fd = -1, .fds = { -1, -1, -1 } };
	for (size_t i = 0; i < JR_POOL_MAX; i++)
		p.m[i] = (struct member){ .ready_rd = -1, .conn = -1 };
	jr_pool_ctl_init(&p.ctl);
	if (jr_pool_check_paths(opts, nopts, &err) < 0) {
		jr_error("%s", err.msg);
		return JR_EXIT_FAILURE;
	}
	if (jr_live_daemonize(l, &status, &err) != 0) {
		if (err.code)
			jr_error("%s", err.msg);
		return err.code ? JR_EXIT_FAILURE : status;
	}
	/* As a sandbox's runner: nothing of the caller's is held (a
	 * pipe a caller waits on), but the pipe it waits on for ready. */
	keep[0] = l->ready_fd;
	if (!l->foreground && jr_close_all_but(keep, l->ready_fd >= 0) < 0) {
		jr_error("close_range: %s", strerror(errno));
		return JR_EXIT_FAILURE;
	}
	if (jr_live_bind(l, &err) < 0) {
		jr_error("%s", err.msg);
		return JR_EXIT_FAILURE;
	}
	/* The service manager hears from the pool, never from a member:
	 * this takes NOTIFY_SOCKET out of the environment they get. */
	jr_notify_init(&wd_ms);
	p.sfd = pool_signals();
	if (p.sfd < 0) {
		jr_error("pool %s: signalfd: %s", l->name, strerror(errno));
		return JR_EXIT_FAILURE;
	}
	if (jr_notify_watchdog_ms() &&
	    (p.wd_timer = periodic_timer(jr_notify_watchdog_ms())) < 0)
		return JR_EXIT_FAILURE;
	if (l->idle_stop_ms) {
		p.idle_timer =
		    timerfd_create(CLOCK_MONOTONIC, TFD_CLOEXEC | TFD_NONBLOCK);
		if (p.idle_timer < 0) {
			jr_error("timerfd_create: %s", strerror(errno));
			return JR_EXIT_FAILURE;
		}
		arm_idle(&p);
	}
	for (size_t i = 0; i < l->pool && !p.stop; i++)
		if (spawn_member(&p, &p.m[i]) < 0)
			stop_pool(&p, JR_EXIT_FAILURE);
	serve(&p);
	jr_pool_ctl_close(&p.ctl);
	close(p.sfd);
	if (p.wd_timer >= 0)
		close(p.wd_timer);
	if (p.idle_timer >= 0)
		close(p.idle_timer);
	return p.status;
}
