// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * live.c - the runner's side of a live sandbox (jailrun start).
 *
 * Theory of operation: `jailrun start NAME` is a run whose command is
 * the zygote (zygote.c): the same options, the same lockdown and the
 * same verification, and the same runner afterwards, owning the relay,
 * the watchdog and the unix socket guard. What this file adds:
 *
 *  - before anything is set up, the fork that leaves the start caller
 *    waiting on a pipe: it exits 0 once the zygote runs (the lockdown
 *    verified, jr_live_ready()), or with the runner's status (125 and
 *    its message on stderr) if the set-up fails; the runner goes on in
 *    a session of its own;
 *  - NAME.sock, in a directory only the caller can enter (0700) and
 *    itself 0600, and checked again by peer credentials on each
 *    connection: a live sandbox runs commands as its caller, so only the
 *    caller (or root) may ask it to;
 *  - the socketpair to the zygote, made before the clone, init's end
 *    inherited by init and by the pre-exec child that becomes the
 *    zygote;
 *  - the clients, served from the runner's event loop (sandbox.c,
 *    supervise()) through one epoll fd: an exec's request is checked
 *    (liveproto.c), given an id and passed to the zygote with the
 *    client's three fds; the zygote's answers go back to the client that
 *    asked. A client that goes away takes its command with it (SIGKILL to
 *    its process group), as a terminal that closes would.
 *
 * Stopping is ending the sandbox as a run ends it: init killed, the PID
 * namespace with it, then the runner's usual release (cgroup, relay,
 * watchdog, tables gone with the netns) and main()'s summary and audit
 * end; `jailrun stop` waits for the runner's pidfd, so when it returns
 * nothing is left. SIGTERM, SIGINT and SIGHUP to the runner, and
 * --idle-stop's timer (armed while no command runs), stop it the same way.
 */

#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/epoll.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/timerfd.h>
#include <sys/un.h>
#include <sys/wait.h>
#include <unistd.h>

#include "cleanup.h"
#include "clock.h"
#include "exitcode.h"
#include "io.h"
#include "live.h"
#include "log.h"
#include "options.h"

/* epoll references: a client's slot, or one of these. */
enum live_ref {
	LIVE_REF_LISTEN = JR_LIVE_CONNS_MAX,
	LIVE_REF_ZYGOTE,
	LIVE_REF_IDLE,
};

/* One request at a time, one byte more than a request may be. */
static char msgbuf[JR_LIVE_MSG_MAX + 1];

/* --pool N (1..JR_POOL_MAX), or the internal --pool-member FD: the
 * pool manager's pipe, told 'R' once the member is ready (pool.c). */
static int pool_arg(struct jr_live *l, const char *opt, const char *val,
		    struct jr_err *err)
{
	char *end = NULL;
	long v = -1;

	if (val) {
		errno = 0;
		v = strtol(val, &end, 10);
		if (errno || end == val || *end)
			v = -1;
	}
	if (strcmp(opt, "--pool") == 0) {
		if (v < 1 || v > JR_POOL_MAX)
			return jr_err_set(
			    err, EINVAL,
			    "--pool %s: expected a number of sandboxes from 1 to %d",
			    val ? val : "(missing)", JR_POOL_MAX);
		l->pool = (uint32_t)v;
		return 0;
	}
	if (v < 3 || v > 1024 || fcntl((int)v, F_SETFD, FD_CLOEXEC) < 0)
		return jr_err_set(err, EINVAL,
				  "--pool-member is internal to --pool");
	l->member = true;
	l->foreground = true;
	l->ready_fd = (int)v;
	return 0;
}

int jr_live_start_args(int argc, char **argv, struct jr_live *l,
		       char ***run_argv, struct jr_err *err)
{
	char **v;
	int i = 3, n = 0, end = argc;

	*l = (struct jr_live){ .ready_fd = -1, .idle_timer = -1, .log_fd = -1 };
	l->listen_fd = l->zygote = l->zygote_child = l->epfd = l->null_fd = -1;
	for (size_t k = 0; k < JR_LIVE_CONNS_MAX; k++)
		l->conns[k].fd = -1;
	if (argc < 3)
		return jr_err_set(
		    err, EINVAL,
		    "usage: jailrun start NAME [--foreground] [--idle-stop SECONDS] [--pool N] [OPTIONS]");
	for (; i < argc; i++) {
		if (strcmp(argv[i], "--foreground") == 0) {
			l->foreground = true;
		} else if (strcmp(argv[i], "--pool") == 0 ||
			   strcmp(argv[i], "--pool-member") == 0) {
			if (pool_arg(l, argv[i],
				     i + 1 < argc ? argv[i + 1] : NULL,
				     err) < 0)
				return -EINVAL;
			i++;
		} else if (strcmp(argv[i], "--idle-stop") == 0) {
			if (i + 1 >= argc ||
			    jr_parse_duration_ms(argv[i + 1],
						 &l->idle_stop_ms) < 0)
				return jr_err_set(
				    err, EINVAL,
				    "--idle-stop %s: expected seconds > 0 and <= %llu, at most 3 decimals (e.g. 600)",
				    i + 1 < argc ? argv[i + 1] : "(missing)",
				    JR_DURATION_MAX_S);
			i++;
		} else {
			break;
		}
	}
	/* A pool's members have names no user can give (a leading '.'):
	 * jailrun ls does not list them, no start can take them. */
	if (jr_live_name_check(argv[2] + (l->member && argv[2][0] == '.'),
			       err) < 0)
		return -EINVAL;
	snprintf(l->name, sizeof(l->name), "%s", argv[2]);
	if (l->pool && l->member)
		return jr_err_set(err, EINVAL,
				  "--pool: not with --pool-member");
	/* A "--" that ends the options with nothing after it is fine. */
	if (end > i && strcmp(argv[end - 1], "--") == 0)
		end--;
	v = calloc((size_t)(end - i) + 4, sizeof(*v));
	if (!v)
		return jr_err_set(err, ENOMEM, "out of memory");
	v[n++] = argv[0];
	for (; i < end; i++)
		v[n++] = argv[i];
	v[n++] = (char *)"--";
	v[n++] = (char *)JR_LIVE_COMMAND;
	*run_argv = v;
	return n;
}

/* Copy what is in @from to our stderr, without waiting for more. */
static void copy_stderr(int from)
{
	char buf[4096];
	ssize_t n;

	while ((n = read(from, buf, sizeof(buf))) > 0)
		if (jr_write_all(STDERR_FILENO, buf, (size_t)n) < 0)
			break;
}

/*
 * wait_ready - the start caller's side: relay the runner's messages
 * from @err_rd until @ready_rd says ready ('R': exit 0) or ends (the
 * runner's status). Not until @err_rd ends: processes the runner forks
 * (the guard's helper) hold it for the sandbox's lifetime.
 */
static int wait_ready(int ready_rd, int err_rd, pid_t runner)
{
	int status = 0;
	char c = 0;
	ssize_t n = -1;

	for (;;) {
		struct pollfd p[2] = { { .fd = ready_rd, .events = POLLIN },
				       { .fd = err_rd, .events = POLLIN } };

		if (poll(p, 2, -1) < 0 && errno != EINTR)
			break;
		if (p[1].revents)
			copy_stderr(err_rd);
		if (p[0].revents) {
			do {
				n = read(ready_rd, &c, 1);
			} while (n < 0 && errno == EINTR);
			break;
		}
	}
	copy_stderr(err_rd);
	if (n == 1 && c == 'R')
		return 0;
	while (waitpid(runner, &status, 0) < 0 && errno == EINTR)
		;
	copy_stderr(err_rd);
	return WIFEXITED(status) && WEXITSTATUS(status) ? WEXITSTATUS(status)
							: JR_EXIT_FAILURE;
}

int jr_live_daemonize(struct jr_live *l, int *exit_status, struct jr_err *err)
{
	int ready[2], errp[2] = { -1, -1 }, null;
	pid_t pid;

	if (l->foreground)
		return 0;
	if (pipe2(ready, O_CLOEXEC) < 0)
		return jr_err_set(err, errno, "pipe2: %s", strerror(errno));
	if (pipe2(errp, O_CLOEXEC | O_NONBLOCK) < 0) {
		close(ready[0]);
		close(ready[1]);
		return jr_err_set(err, errno, "pipe2: %s", strerror(errno));
	}
	fflush(NULL);
	pid = fork();
	if (pid < 0) {
		close(ready[0]);
		close(ready[1]);
		close(errp[0]);
		close(errp[1]);
		return jr_err_set(err, errno, "fork: %s", strerror(errno));
	}
	if (pid == 0) {
		close(ready[0]);
		close(errp[0]);
		l->ready_fd = ready[1];
		/* Our messages reach the caller through a pipe it reads
		 * until ready: whatever still holds our stderr afterwards
		 * (init, the guard's helper) holds that pipe, never the
		 * caller's own stderr, which a $(jailrun start) waits on. */
		null = open("/dev/null", O_RDWR | O_CLOEXEC);
		if (setsid() < 0 || null < 0 || dup2(null, STDIN_FILENO) < 0 ||
		    dup2(null, STDOUT_FILENO) < 0 ||
		    fcntl(errp[1], F_SETFL, 0) < 0 ||
		    dup2(errp[1], STDERR_FILENO) < 0)
			return jr_err_set(
			    err, errno,
			    "cannot detach the live sandbox's runner: %s",
			    strerror(errno));
		close(null);
		close(errp[1]);
		return 0;
	}
	close(ready[1]);
	close(errp[1]);
	*exit_status = wait_ready(ready[0], errp[0], pid);
	close(ready[0]);
	close(errp[0]);
	return 1;
}

/* The socket directory: made 0700 if missing; else it must be ours and
 * closed to others, or someone else could swap NAME.sock. */
static int live_dir(const char *dir, struct jr_err *err)
{
	struct stat st;

	if (mkdir(dir, 0700) < 0 && errno != EEXIST)
		return jr_err_set(err, errno, "cannot create %s: %s", dir,
				  strerror(errno));
	if (lstat(dir, &st) < 0)
		return jr_err_set(err, errno, "%s: %s", dir, strerror(errno));
	if (!S_ISDIR(st.st_mode) || st.st_uid != geteuid() ||
	    (st.st_mode & 077))
		return jr_err_set(
		    err, EPERM,
		    "%s must be a directory of uid %u with mode 0700 (it is %s, uid %u, mode %04o): remove it, jailrun makes it",
		    dir, (unsigned)geteuid(),
		    S_ISDIR(st.st_mode) ? "a directory" : "not a directory",
		    (unsigned)st.st_uid, (unsigned)(st.st_mode & 07777));
	return 0;
}

/* Does a live sandbox answer on @sun? (Else the file is a dead one's.) */
static bool socket_answers(const struct sockaddr_un *sun)
{
	_cleanup_close_ int fd =
	    socket(AF_UNIX, SOCK_SEQPACKET | SOCK_CLOEXEC, 0);

	return fd < 0 ||
	       connect(fd, (const struct sockaddr *)sun, sizeof(*sun)) == 0 ||
	       errno != ECONNREFUSED;
}

static int live_listen(struct jr_live *l, struct jr_err *err)
{
	struct sockaddr_un sun = { .sun_family = AF_UNIX };
	_cleanup_close_ int fd = -1;
	struct stat st;
	mode_t old;
	int r, e;

	snprintf(sun.sun_path, sizeof(sun.sun_path), "%s", l->path);
	fd = socket(AF_UNIX, SOCK_SEQPACKET | SOCK_CLOEXEC | SOCK_NONBLOCK, 0);
	if (fd < 0)
		return jr_err_set(err, errno, "socket: %s", strerror(errno));
	old = umask(0177);
	r = bind(fd, (struct sockaddr *)&sun, sizeof(sun));
	e = errno;
	if (r < 0 && e == EADDRINUSE && !socket_answers(&sun) &&
	    unlink(l->path) == 0) {
		r = bind(fd, (struct sockaddr *)&sun, sizeof(sun));
		e = errno;
	}
	umask(old);
	if (r < 0 && e == EADDRINUSE)
		return jr_err_set(
		    err, e,
		    "a live sandbox named '%s' already runs (%s answers): stop it first (jailrun stop %s) or choose another name",
		    l->name, l->path, l->name);
	if (r < 0)
		return jr_err_set(err, e, "%s: cannot create the socket: %s",
				  l->path, strerror(e));
	if (lstat(l->path, &st) < 0 || !S_ISSOCK(st.st_mode) ||
	    (st.st_mode & 07777) != 0600 || st.st_uid != geteuid()) {
		unlink(l->path);
		return jr_err_set(
		    err, EPERM,
		    "%s: the socket is not mode 0600 and ours after bind; refusing to serve it",
		    l->path);
	}
	if (listen(fd, 16) < 0) {
		e = errno;
		unlink(l->path);
		return jr_err_set(err, e, "%s: listen: %s", l->path,
				  strerror(e));
	}
	l->listen_fd = steal_fd(&fd);
	return 0;
}

static int watch(struct jr_live *l, int fd, uint64_t ref)
{
	struct epoll_event ev = { .events = EPOLLIN, .data.u64 = ref };

	return epoll_ctl(l->epfd, EPOLL_CTL_ADD, fd, &ev) < 0 ? -errno : 0;
}

/* --idle-stop: (re)start the countdown when the last command ended (or
 * at start), stop it while one runs. */
static void arm_idle(struct jr_live *l, bool on)
{
	struct itimerspec its = { 0 };

	if (l->idle_timer < 0)
		return;
	if (on) {
		its.it_value.tv_sec = (time_t)(l->idle_stop_ms / 1000);
		its.it_value.tv_nsec =
		    (long)(l->idle_stop_ms % 1000) * 1000000L;
	}
	if (timerfd_settime(l->idle_timer, 0, &its, NULL) < 0)
		jr_warn("--idle-stop: timerfd_settime: %s", strerror(errno));
}

/* How many clients have a command running now. */
static uint32_t execs_running(const struct jr_live *l)
{
	uint32_t n = 0;

	for (size_t i = 0; i < JR_LIVE_CONNS_MAX; i++)
		n += l->conns[i].fd >= 0 && l->conns[i].running;
	return n;
}

/*
 * NAME.log, once NAME is ours (its socket bound): the last start's
 * messages replaced. Without it (an odd directory, no space) the
 * sandbox still runs; its later messages are lost, as the start says.
 */
static void open_log(struct jr_live *l)
{
	struct jr_err err = { 0 };
	struct stat st;
	int fd;

	if (jr_live_log_path(geteuid(), getenv("XDG_RUNTIME_DIR"), l->name,
			     l->log_path, sizeof(l->log_path), &err) < 0) {
		jr_warn("%s: its messages after the start are dropped",
			err.msg);
		l->log_path[0] = '\0';
		return;
	}
	/* O_NONBLOCK: a FIFO put there must not hang the start; it is
	 * refused below as not a regular file. */
	fd = open(l->log_path,
		  O_WRONLY | O_CREAT | O_TRUNC | O_APPEND | O_NOFOLLOW |
		      O_NONBLOCK | O_CLOEXEC,
		  0600);
	if (fd < 0 || fstat(fd, &st) < 0 || !S_ISREG(st.st_mode) ||
	    st.st_uid != geteuid() || fchmod(fd, 0600) < 0) {
		jr_warn(
		    "%s: %s: the live sandbox's messages after the start are dropped",
		    l->log_path,
		    fd < 0 ? strerror(errno) : "not a file of ours");
		if (fd >= 0)
			close(fd);
		l->log_path[0] = '\0';
		return;
	}
	l->log_fd = fd;
}

void jr_live_detach_stderr(struct jr_live *l)
{
	/* A member has no log (open_log()); the pool's manager, no
	 * null_fd (it runs no sandbox of its own). */
	int to = l->log_fd >= 0 ? l->log_fd : l->null_fd;
	int null = -1;

	if (l->foreground && !l->member)
		return;
	if (to < 0) {
		null = open("/dev/null", O_WRONLY | O_CLOEXEC);
		to = null;
	}
	if (to < 0 || dup2(to, STDERR_FILENO) < 0)
		jr_warn("cannot detach stderr: %s", strerror(errno));
	else if (to == l->log_fd)
		jr_log_set_budget(JR_LIVE_LOG_MAX);
	if (null >= 0)
		close(null);
}

/* NAME.log with nothing in it says nothing: it goes with the sandbox. */
static void close_log(struct jr_live *l)
{
	struct stat fst, pst;

	if (l->log_fd < 0)
		return;
	if (fstat(l->log_fd, &fst) == 0 && fst.st_size == 0 &&
	    lstat(l->log_path, &pst) == 0 && pst.st_ino == fst.st_ino &&
	    pst.st_dev == fst.st_dev)
		unlink(l->log_path);
	close(l->log_fd);
	l->log_fd = -1;
}

int jr_live_bind(struct jr_live *l, struct jr_err *err)
{
	char dir[sizeof(l->path)];
	int r;

	l->started_unix_ms = jr_clock_unix_ms();
	if (jr_live_socket_path(geteuid(), getenv("XDG_RUNTIME_DIR"), NULL, dir,
				sizeof(dir), err) < 0 ||
	    live_dir(dir, err) < 0)
		return -EINVAL;
	r = jr_live_socket_path(geteuid(), getenv("XDG_RUNTIME_DIR"), l->name,
				l->path, sizeof(l->path), err);
	if (r < 0 || live_listen(l, err) < 0) {
		l->path[0] = '\0';
		return -EINVAL;
	}
	if (!l->foreground && !l->member)
		open_log(l);
	return 0;
}

int jr_live_open(struct jr_live *l, struct jr_err *err)
{
	int sv[2], r;

	if (jr_live_bind(l, err) < 0)
		return -EINVAL;
	if (socketpair(AF_UNIX, SOCK_SEQPACKET | SOCK_CLOEXEC, 0, sv) < 0)
		return jr_err_set(err, errno, "socketpair: %s",
				  strerror(errno));
	l->zygote = sv[0];
	l->zygote_child = sv[1];
	l->null_fd = open("/dev/null", O_RDWR | O_CLOEXEC);
	l->epfd = epoll_create1(EPOLL_CLOEXEC);
	if (l->null_fd < 0 || l->epfd < 0 ||
	    fcntl(l->zygote, F_SETFL, O_NONBLOCK) < 0)
		return jr_err_set(err, errno, "live sandbox: %s",
				  strerror(errno));
	if (l->idle_stop_ms) {
		l->idle_timer =
		    timerfd_create(CLOCK_MONOTONIC, TFD_CLOEXEC | TFD_NONBLOCK);
		if (l->idle_timer < 0)
			return jr_err_set(err, errno, "timerfd_create: %s",
					  strerror(errno));
		arm_idle(l, true);
	}
	r = watch(l, l->listen_fd, LIVE_REF_LISTEN);
	if (r == 0)
		r = watch(l, l->zygote, LIVE_REF_ZYGOTE);
	if (r == 0 && l->idle_timer >= 0)
		r = watch(l, l->idle_timer, LIVE_REF_IDLE);
	if (r < 0)
		return jr_err_set(err, -r, "epoll_ctl: %s", strerror(-r));
	return 0;
}

void jr_live_in_init(struct jr_live *l)
{
	/* init never writes to stdio (it reports through the protocol);
	 * holding the start caller's terminal or pipe would keep it open
	 * for the sandbox's lifetime. */
	for (int fd = 0; fd < 3; fd++)
		if (dup2(l->null_fd, fd) < 0)
			_exit(1);
	close(l->null_fd);
	if (l->log_fd >= 0)
		close(l->log_fd);
	close(l->listen_fd);
	close(l->zygote);
	close(l->epfd);
	if (l->ready_fd >= 0)
		close(l->ready_fd);
}

void jr_live_after_clone(struct jr_live *l)
{
	if (l->zygote_child >= 0)
		close(l->zygote_child);
	l->zygote_child = -1;
}

void jr_live_ready(struct jr_live *l)
{
	jr_verbose("live sandbox %s ready: %s", l->name, l->path);
	if (l->ready_fd >= 0) {
		/* A pool's member that holds requests on its own NAME.ctl
		 * says so: the pool then serves POOL.ctl (pool_ctl.c). */
		if (write(l->ready_fd,
			  l->member && l->control_path[0] ? "A" : "R", 1) != 1)
			jr_warn("the caller of jailrun start is gone");
		close(l->ready_fd);
		l->ready_fd = -1;
	}
	jr_live_detach_stderr(l);
}

static void send_reply(struct jr_live_conn *c, const struct jr_live_reply *r)
{
	if (send(c->fd, r, sizeof(*r), MSG_DONTWAIT | MSG_NOSIGNAL) < 0)
		jr_debug("live: a client did not take its answer: %s",
			 strerror(errno));
}

static void refuse(struct jr_live_conn *c, int code, const char *msg)
{
	struct jr_live_reply r = { .type = JR_LIVE_REFUSED, .code = code };

	snprintf(r.msg, sizeof(r.msg), "%s", msg);
	send_reply(c, &r);
}

/* A SIGNAL for @c's command, to the zygote. */
static void signal_exec(struct jr_live *l, const struct jr_live_conn *c,
			int signo)
{
	struct jr_live_req req = { .type = JR_LIVE_SIGNAL,
				   .id = c->id,
				   .signo = signo };
	struct jr_err err = { 0 };
	char buf[sizeof(struct jr_live_hdr)];
	int n = jr_live_req_encode(&req, buf, sizeof(buf), &err);

	if (n > 0 &&
	    send(l->zygote, buf, (size_t)n, MSG_DONTWAIT | MSG_NOSIGNAL) < 0)
		jr_warn("live: cannot pass signal %d on: %s", signo,
			strerror(errno));
}

static void drop_conn(struct jr_live *l, struct jr_live_conn *c)
{
	bool ran = c->running;

	if (ran)
		signal_exec(l, c, SIGKILL); /* its client is gone */
	close(c->fd);			    /* also leaves the epoll set */
	*c = (struct jr_live_conn){ .fd = -1 };
	/* Only the end of a command restarts --idle-stop's countdown: a
	 * client that ran none (jailrun ls polling every sandbox, a stop,
	 * a refused request) is not use, or a monitor would keep a
	 * forgotten sandbox alive for ever. */
	if (ran && !execs_running(l))
		arm_idle(l, true);
}

/* Tell a client of another user why it is turned away (it would
 * otherwise see only a reset connection); nothing else is read from it
 * or done for it. */
static void refuse_peer(int fd)
{
	struct jr_live_reply r = { .type = JR_LIVE_REFUSED, .code = EACCES };

	snprintf(r.msg, sizeof(r.msg),
		 "it belongs to uid %u: only that user and root may use it",
		 (unsigned)geteuid());
	if (send(fd, &r, sizeof(r), MSG_DONTWAIT | MSG_NOSIGNAL) < 0)
		jr_debug("live: a refused client did not take its answer: %s",
			 strerror(errno));
}

int jr_live_accept(int listen_fd)
{
	int fd;

	while ((fd = accept4(listen_fd, NULL, NULL,
			     SOCK_CLOEXEC | SOCK_NONBLOCK)) >= 0) {
		struct ucred cred;
		socklen_t len = sizeof(cred);

		/* The directory and the mode say it already; this says it
		 * again, from the kernel, for each client. */
		if (getsockopt(fd, SOL_SOCKET, SO_PEERCRED, &cred, &len) == 0 &&
		    (cred.uid == geteuid() || cred.uid == 0))
			return fd;
		refuse_peer(fd);
		close(fd);
	}
	return -1;
}

static void accept_conn(struct jr_live *l)
{
	int fd;

	while ((fd = jr_live_accept(l->listen_fd)) >= 0) {
		size_t i;

		for (i = 0; i < JR_LIVE_CONNS_MAX && l->conns[i].fd >= 0; i++)
			;
		if (i == JR_LIVE_CONNS_MAX || watch(l, fd, i) < 0) {
			struct jr_live_conn tmp = { .fd = fd };

			refuse(&tmp, EBUSY,
			       "the live sandbox serves too many clients");
			close(fd);
			continue;
		}
		l->conns[i] = (struct jr_live_conn){ .fd = fd };
	}
}

/* EXEC: checked, numbered, and passed to the zygote with its fds. */
static void pass_exec(struct jr_live *l, struct jr_live_conn *c, size_t len,
		      const int *fds, int nfds)
{
	struct iovec iov = { .iov_base = msgbuf, .iov_len = len };
	char cbuf[CMSG_SPACE(3 * sizeof(int))] = { 0 };
	struct msghdr mh = {
		.msg_iov = &iov,
		.msg_iovlen = 1,
		.msg_control = cbuf,
		.msg_controllen = sizeof(cbuf),
	};
	struct cmsghdr *cm = CMSG_FIRSTHDR(&mh);
	struct jr_live_hdr h;

	if (c->running || nfds != 3) {
		refuse(c, EINVAL,
		       c->running ? "one command per connection"
				  : "an exec request carries three fds");
		return;
	}
	memcpy(&h, msgbuf, sizeof(h));
	h.id = ++l->next_id;
	memcpy(msgbuf, &h, sizeof(h));
	cm->cmsg_level = SOL_SOCKET;
	cm->cmsg_type = SCM_RIGHTS;
	cm->cmsg_len = CMSG_LEN(3 * sizeof(int));
	memcpy(CMSG_DATA(cm), fds, 3 * sizeof(int));
	/* Never wait on the zygote: a sandbox that does not read its
	 * requests must not stall the runner's loop. */
	if (sendmsg(l->zygote, &mh, MSG_DONTWAIT | MSG_NOSIGNAL) < 0) {
		refuse(c, errno,
		       errno == EAGAIN
			   ? "the live sandbox does not take requests (busy)"
			   : "the live sandbox is gone");
		return;
	}
	c->id = h.id;
	c->running = true;
	l->total++;
	arm_idle(l, false);
}

static void answer_status(struct jr_live *l, struct jr_live_conn *c)
{
	struct jr_live_reply r = {
		.type = JR_LIVE_STATE,
		.runner_pid = (int32_t)getpid(),
		.started_unix_ms = l->started_unix_ms,
		.execs_total = l->total,
	};

	r.execs_running = execs_running(l);
	snprintf(r.mode, sizeof(r.mode), "%s", l->mode);
	snprintf(r.msg, sizeof(r.msg), "%s", l->name);
	send_reply(c, &r);
}

/* One message from client @c. */
static void serve_conn(struct jr_live *l, struct jr_live_conn *c)
{
	static struct jr_live_req req;
	int fds[3], nfds = 0;
	struct jr_err err = { 0 };
	ssize_t n = jr_recv_fds(c->fd, msgbuf, sizeof(msgbuf), MSG_DONTWAIT,
				fds, 3, &nfds);

	if (n == -EAGAIN || n == -EINTR)
		return;
	if (n <= 0 && n != -EMSGSIZE) {
		drop_conn(l, c);
		return;
	}
	if (n == -EMSGSIZE ||
	    jr_live_req_decode(msgbuf, (size_t)n, &req, &err) < 0)
		refuse(c, err.code ? err.code : E2BIG,
		       err.code ? err.msg : "the request is too large");
	else if (req.type == JR_LIVE_EXEC)
		pass_exec(l, c, (size_t)n, fds, nfds);
	else if (req.type == JR_LIVE_SIGNAL && c->running)
		signal_exec(l, c, req.signo);
	else if (req.type == JR_LIVE_STATUS)
		answer_status(l, c);
	else if (req.type == JR_LIVE_STOP) {
		struct jr_live_reply r = { .type = JR_LIVE_STOPPING };

		jr_verbose("live sandbox %s: stop asked", l->name);
		send_reply(c, &r);
		l->stop = true;
	}
	for (int i = 0; i < nfds && i < 3; i++)
		close(fds[i]);
}

/* The zygote's answers, each to the client whose exec it is about. */
static void serve_zygote(struct jr_live *l)
{
	struct jr_live_reply r;
	ssize_t n;

	while ((n = read(l->zygote, &r, sizeof(r))) == (ssize_t)sizeof(r)) {
		for (size_t i = 0; i < JR_LIVE_CONNS_MAX; i++) {
			struct jr_live_conn *c = &l->conns[i];

			if (c->fd < 0 || !c->running || c->id != r.id)
				continue;
			if (r.type != JR_LIVE_STARTED)
				c->running = false;
			if (!execs_running(l))
				arm_idle(l, true);
			r.msg[sizeof(r.msg) - 1] = '\0';
			send_reply(c, &r);
		}
	}
	if (n == 0 || (n < 0 && errno != EAGAIN && errno != EINTR)) {
		/* The zygote is gone; init reports it and the sandbox ends. */
		epoll_ctl(l->epfd, EPOLL_CTL_DEL, l->zygote, NULL);
	}
}

void jr_live_dispatch(struct jr_live *l)
{
	struct epoll_event ev[16];
	int n = epoll_wait(l->epfd, ev, 16, 0);

	for (int i = 0; i < n; i++) {
		uint64_t ref = ev[i].data.u64;

		if (ref == LIVE_REF_LISTEN)
			accept_conn(l);
		else if (ref == LIVE_REF_ZYGOTE)
			serve_zygote(l);
		else if (ref == LIVE_REF_IDLE) {
			jr_verbose("live sandbox %s: --idle-stop expired",
				   l->name);
			l->stop = true;
		} else if (ref < JR_LIVE_CONNS_MAX && l->conns[ref].fd >= 0)
			serve_conn(l, &l->conns[ref]);
	}
}

void jr_live_ended(struct jr_live *l, const char *why)
{
	struct jr_live_reply r = { .type = JR_LIVE_ENDED };

	snprintf(r.msg, sizeof(r.msg), "%s", why);
	for (size_t i = 0; i < JR_LIVE_CONNS_MAX; i++)
		if (l->conns[i].fd >= 0 && l->conns[i].running)
			send_reply(&l->conns[i], &r);
}

void jr_live_close(struct jr_live *l)
{
	/* First: a new client finds no sandbox rather than a dead one. */
	if (l->path[0])
		unlink(l->path);
	l->path[0] = '\0';
	close_log(l);
	for (size_t i = 0; i < JR_LIVE_CONNS_MAX; i++)
		if (l->conns[i].fd >= 0) {
			close(l->conns[i].fd);
			l->conns[i].fd = -1;
		}
	int *fds[] = { &l->listen_fd, &l->zygote,  &l->zygote_child, &l->epfd,
		       &l->ready_fd,  &l->null_fd, &l->idle_timer };
	for (size_t i = 0; i < ARRAY_SIZE(fds); i++) {
		if (*fds[i] >= 0)
			close(*fds[i]);
		*fds[i] = -1;
	}
}
