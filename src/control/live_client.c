// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * live_client.c - jailrun exec, ls and stop: the clients of a live
 * sandbox's socket (live.c serves it, liveproto.h says what goes over it).
 *
 * exec passes its own fds 0, 1 and 2 (SCM_RIGHTS): the command reads and
 * writes them directly, nothing is copied through jailrun. Signals that
 * would end the client (INT, TERM, HUP, QUIT) are passed on to the
 * command, which runs in a session of its own in the sandbox; if the
 * client dies anyway, the runner kills the command. The exit status is
 * the command's, with a run's conventions (jailrun(1) EXIT STATUS).
 *
 * stop waits, on a pidfd of the runner taken while the connection
 * names it (SO_PEERCRED), until the runner has exited: when it returns,
 * the sandbox and everything it held are gone.
 */

#include <dirent.h>
#include <errno.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/signalfd.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/time.h>
#include <sys/un.h>
#include <unistd.h>

#include "cleanup.h"
#include "clock.h"
#include "exitcode.h"
#include "initproto.h"
#include "live.h"
#include "pty.h"
#include "log.h"

static const char exec_usage[] =
    "usage: jailrun exec NAME [--env NAME=VALUE]... [--cwd DIR] [--] COMMAND [ARG...]";

/* A hint to the NAME.log that a sandbox or pool @name left, saying why
 * it ended (live.h, jr_live_detach_stderr()), or "". */
static const char *last_words(const char *name)
{
	static char hint[160];
	char path[108];
	struct jr_err err = { 0 };
	struct stat st;

	if (jr_live_log_path(geteuid(), getenv("XDG_RUNTIME_DIR"), name, path,
			     sizeof(path), &err) < 0 ||
	    lstat(path, &st) < 0 || !S_ISREG(st.st_mode) || st.st_size == 0)
		return "";
	snprintf(hint, sizeof(hint), " (what the last one said: %s)", path);
	return hint;
}

/* Connect to sandbox @name's socket. Return: the fd, or <0 (said). */
static int live_connect(const char *name)
{
	struct sockaddr_un sun = { .sun_family = AF_UNIX };
	struct jr_err err = { 0 };
	int fd;

	if (jr_live_name_check(name, &err) < 0 ||
	    jr_live_socket_path(geteuid(), getenv("XDG_RUNTIME_DIR"), name,
				sun.sun_path, sizeof(sun.sun_path), &err) < 0) {
		jr_error("%s", err.msg);
		return -EINVAL;
	}
	fd = socket(AF_UNIX, SOCK_SEQPACKET | SOCK_CLOEXEC, 0);
	if (fd < 0) {
		jr_error("socket: %s", strerror(errno));
		return -errno;
	}
	if (connect(fd, (struct sockaddr *)&sun, sizeof(sun)) < 0) {
		int e = errno;

		close(fd);
		if (e == ENOENT || e == ECONNREFUSED)
			jr_error(
			    "no live sandbox named '%s' (nothing answers on %s): start it with jailrun start %s%s",
			    name, sun.sun_path, name, last_words(name));
		else
			jr_error("%s: %s", sun.sun_path, strerror(e));
		return -e;
	}
	return fd;
}

/* Send request @req (with @fds, may be NULL) on @fd. */
static int send_req(int fd, const struct jr_live_req *req, const int *fds,
		    size_t nfds)
{
	static char buf[JR_LIVE_MSG_MAX];
	char cbuf[CMSG_SPACE(3 * sizeof(int))] = { 0 };
	struct jr_err err = { 0 };
	struct iovec iov = { .iov_base = buf };
	struct msghdr mh = { .msg_iov = &iov, .msg_iovlen = 1 };
	int n = jr_live_req_encode(req, buf, sizeof(buf), &err);

	if (n < 0) {
		jr_error("%s", err.msg);
		return n;
	}
	iov.iov_len = (size_t)n;
	if (nfds) {
		struct cmsghdr *cm;

		mh.msg_control = cbuf;
		mh.msg_controllen = CMSG_SPACE(nfds * sizeof(int));
		cm = CMSG_FIRSTHDR(&mh);
		cm->cmsg_level = SOL_SOCKET;
		cm->cmsg_type = SCM_RIGHTS;
		cm->cmsg_len = CMSG_LEN(nfds * sizeof(int));
		memcpy(CMSG_DATA(cm), fds, nfds * sizeof(int));
	}
	if (sendmsg(fd, &mh, MSG_NOSIGNAL) < 0) {
		int e = errno;
		struct jr_live_reply r;

		/* A runner that turns us away answers and closes at once,
		 * maybe before our request went: its answer is still ours
		 * to read, and says more than EPIPE. */
		if ((e == EPIPE || e == ECONNRESET) &&
		    recv(fd, &r, sizeof(r), MSG_DONTWAIT) ==
			(ssize_t)sizeof(r) &&
		    r.type == JR_LIVE_REFUSED) {
			r.msg[sizeof(r.msg) - 1] = '\0';
			jr_error("the live sandbox refused: %s", r.msg);
			return -EACCES;
		}
		jr_error("cannot send to the live sandbox: %s", strerror(e));
		return -e;
	}
	return 0;
}

/* One reply. Return: 0, -EPIPE at EOF, or another -errno. */
static int recv_reply(int fd, struct jr_live_reply *r)
{
	ssize_t n;

	do {
		n = recv(fd, r, sizeof(*r), 0);
	} while (n < 0 && errno == EINTR);
	/* A runner that closed with our request unread (one turning us
	 * away) makes the kernel report ECONNRESET, once, maybe before the
	 * answer it sent first: that answer is still queued for us. */
	if (n < 0 && errno == ECONNRESET) {
		n = recv(fd, r, sizeof(*r), MSG_DONTWAIT);
		if (n < 0)
			errno = ECONNRESET;
	}
	if (n == 0)
		return -EPIPE;
	if (n != (ssize_t)sizeof(*r))
		return n < 0 ? -errno : -EBADMSG;
	r->msg[sizeof(r->msg) - 1] = '\0';
	r->mode[sizeof(r->mode) - 1] = '\0';
	return 0;
}

/* exec's options, up to the command. Return: 0 or -EINVAL (said). */
static int exec_args(int argc, char **argv, struct jr_live_req *req)
{
	struct jr_err err = { 0 };
	int i = 2;

	while (i < argc && argv[i][0] == '-') {
		const char *a = argv[i];

		if (strcmp(a, "--") == 0) {
			i++;
			break;
		}
		if ((strcmp(a, "--env") == 0 || strcmp(a, "--cwd") == 0) &&
		    i + 1 >= argc) {
			jr_error("%s needs a value; %s", a, exec_usage);
			return -EINVAL;
		}
		if (strcmp(a, "--env") == 0) {
			if (jr_live_env_check(argv[i + 1], &err) < 0 ||
			    req->n_env == JR_LIVE_ENV_MAX) {
				jr_error("%s",
					 err.code ? err.msg : "too many --env");
				return -EINVAL;
			}
			req->env[req->n_env++] = argv[i + 1];
		} else if (strcmp(a, "--cwd") == 0) {
			if (argv[i + 1][0] != '/') {
				jr_error(
				    "--cwd '%s': the directory must be an absolute path (as the sandbox sees it)",
				    argv[i + 1]);
				return -EINVAL;
			}
			req->cwd = argv[i + 1];
		} else {
			jr_error("unknown option '%s'; %s", a, exec_usage);
			return -EINVAL;
		}
		i += 2;
	}
	if (i >= argc || !argv[i][0]) {
		jr_error("no command given; %s", exec_usage);
		return -EINVAL;
	}
	if (argc - i > JR_LIVE_ARGV_MAX) {
		jr_error("at most %d arguments", JR_LIVE_ARGV_MAX);
		return -EINVAL;
	}
	for (; i < argc; i++)
		req->argv[req->argc++] = argv[i];
	return 0;
}

/* The signals a terminal or a supervisor ends us with: passed on; and
 * SIGWINCH, for the pty's window size. */
static int forwarded_signals(void)
{
	static const int sigs[] = { SIGINT, SIGTERM, SIGHUP, SIGQUIT,
				    SIGWINCH };
	sigset_t set;

	sigemptyset(&set);
	for (size_t i = 0; i < ARRAY_SIZE(sigs); i++)
		sigaddset(&set, sigs[i]);
	if (sigprocmask(SIG_BLOCK, &set, NULL) < 0)
		return -errno;
	return signalfd(-1, &set, SFD_CLOEXEC | SFD_NONBLOCK);
}

/* After a failed start: the status a run would exit with. */
static int exec_failed(const struct jr_live_reply *r)
{
	jr_error("%s", r->msg);
	if (r->status == JR_INITPROTO_EXEC_STAGE_EXEC)
		return jr_exit_code_from_exec_errno(r->code);
	return JR_EXIT_FAILURE;
}

/*
 * relay_pty - what the pty's master has for our terminal, and our
 * terminal's input for it, as the runner relays a run's pty (sandbox.c,
 * supervise()). @final: the command ended, take only what is there.
 */
static void relay_pty(struct jr_pty *pty, const struct pollfd *pm,
		      const struct pollfd *pin, bool final)
{
	int r;

	if (pty->master < 0)
		return;
	if (pm && (pm->revents & POLLOUT))
		jr_pty_flush_in(pty);
	if (final || (pm && pm->revents))
		while ((r = jr_pty_pump_out(pty)) > 0)
			;
	if (pin && pin->revents)
		jr_pty_pump_in(pty);
}

/* Our signal @si: the pty's size, or the command's. */
static void take_signal(int fd, struct jr_pty *pty,
			const struct signalfd_siginfo *si)
{
	struct jr_live_req sig = { .type = JR_LIVE_SIGNAL,
				   .signo = (int)si->ssi_signo };

	if (si->ssi_signo == SIGWINCH) {
		if (pty->master >= 0)
			jr_pty_sync_winsize(pty);
		return;
	}
	send_req(fd, &sig, NULL, 0);
}

/* One answer from the runner: the exit status once the command has
 * ended, or -1 while it runs. */
static int take_reply(int fd, const char *name)
{
	struct jr_live_reply r;
	int rc = recv_reply(fd, &r);

	if (rc == -EPIPE) {
		jr_error("the live sandbox '%s' ended before the command did",
			 name);
		return JR_EXIT_FAILURE;
	}
	if (rc < 0) {
		jr_error("reading the live sandbox's answer: %s",
			 strerror(-rc));
		return JR_EXIT_FAILURE;
	}
	if (r.type == JR_LIVE_EXITED)
		return jr_exit_code_from_wait_status(r.status);
	if (r.type == JR_LIVE_FAILED)
		return exec_failed(&r);
	if (r.type == JR_LIVE_REFUSED) {
		jr_error("the live sandbox '%s' refused: %s", name, r.msg);
		return JR_EXIT_FAILURE;
	}
	if (r.type == JR_LIVE_ENDED) {
		jr_error(
		    "the live sandbox '%s' ended before the command did: %s",
		    name, r.msg);
		return JR_EXIT_FAILURE;
	}
	return -1; /* STARTED: it runs */
}

/* Wait for the command's end, passing signals on and relaying the pty. */
static int exec_wait(int fd, int sfd, const char *name, struct jr_pty *pty)
{
	int status = -1;

	while (status < 0) {
		struct pollfd p[4] = {
			{ .fd = fd, .events = POLLIN },
			{ .fd = sfd, .events = POLLIN },
		};
		struct pollfd *pm = NULL, *pin = NULL;
		struct signalfd_siginfo si;
		int n = 2;

		if (pty->master >= 0) {
			pm = &p[n++];
			*pm = (struct pollfd){
				.fd = pty->master,
				.events = POLLIN | (pty->in_len ? POLLOUT : 0)
			};
			if (!pty->in_eof && !pty->in_len) {
				pin = &p[n++];
				*pin = (struct pollfd){ .fd = STDIN_FILENO,
							.events = POLLIN };
			}
		}
		if (poll(p, (nfds_t)n, -1) < 0) {
			if (errno == EINTR)
				continue;
			jr_error("poll: %s", strerror(errno));
			return JR_EXIT_FAILURE;
		}
		while (read(sfd, &si, sizeof(si)) == (ssize_t)sizeof(si))
			take_signal(fd, pty, &si);
		relay_pty(pty, pm, pin, false);
		if (p[0].revents)
			status = take_reply(fd, name);
	}
	relay_pty(pty, NULL, NULL, true); /* its last output, before ours */
	return status;
}

static int live_exec(int argc, char **argv)
{
	static struct jr_live_req req = { .type = JR_LIVE_EXEC };
	_cleanup_close_ int fd = -1, sfd = -1;
	struct jr_err err = { 0 };
	struct jr_pty pty;
	int stdio[3], status = JR_EXIT_FAILURE;

	if (argc < 3) {
		jr_error("%s", exec_usage);
		return JR_EXIT_FAILURE;
	}
	if (exec_args(argc, argv, &req) < 0)
		return JR_EXIT_FAILURE;
	sfd = forwarded_signals();
	if (sfd < 0) {
		jr_error("signalfd: %s", strerror(errno));
		return JR_EXIT_FAILURE;
	}
	/* A terminal is never handed over: a pty of our own stands in for
	 * it, relayed and filtered as a run's (pty.h). */
	jr_pty_init(&pty);
	if (jr_pty_open(&pty, &err) < 0) {
		jr_error("%s", err.msg);
		return JR_EXIT_FAILURE;
	}
	for (int i = 0; i < 3; i++)
		stdio[i] = pty.std_tty[i] ? pty.slave : i;
	if (pty.master >= 0)
		req.flags |= JR_LIVE_F_TTY;
	fd = live_connect(argv[1]);
	if (fd >= 0 && send_req(fd, &req, stdio, 3) == 0) {
		if (pty.slave >= 0)
			close(
			    pty.slave); /* the command's now: EIO at its end */
		pty.slave = -1;
		jr_pty_raw(&pty);
		status = exec_wait(fd, sfd, argv[1], &pty);
	}
	jr_pty_reset_modes(&pty);
	jr_pty_restore(&pty);
	jr_pty_close(&pty);
	return status;
}

/* STATUS of the sandbox on @fd, into @r. */
static int ask_status(int fd, struct jr_live_reply *r)
{
	const struct jr_live_req req = { .type = JR_LIVE_STATUS };
	/* A runner answers from its event loop at once; one that does not
	 * must not hang the listing of the others. */
	const struct timeval tv = { .tv_sec = 10 };

	if (setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof(tv)) < 0)
		return -errno;

	if (send_req(fd, &req, NULL, 0) < 0 || recv_reply(fd, r) < 0 ||
	    r->type != JR_LIVE_STATE)
		return -EPROTO;
	return 0;
}

static void format_uptime(uint64_t ms, char *out, size_t size)
{
	uint64_t s = ms / 1000;

	if (s < 3600)
		snprintf(out, size, "%um%02us", (unsigned)(s / 60),
			 (unsigned)(s % 60));
	else
		snprintf(out, size, "%uh%02um", (unsigned)(s / 3600),
			 (unsigned)(s / 60 % 60));
}

static int live_ls(void)
{
	struct jr_err err = { 0 };
	char dir[108];
	_cleanup_(closedirp) DIR *d = NULL;
	struct dirent *e;

	if (jr_live_socket_path(geteuid(), getenv("XDG_RUNTIME_DIR"), NULL, dir,
				sizeof(dir), &err) < 0) {
		jr_error("%s", err.msg);
		return JR_EXIT_FAILURE;
	}
	printf("%-24s %8s %-20s %9s %s\n", "NAME", "PID", "MODE", "UPTIME",
	       "EXECS");
	d = opendir(dir);
	if (!d)
		return errno == ENOENT ? 0 : JR_EXIT_FAILURE;
	while ((e = readdir(d))) {
		char name[JR_LIVE_NAME_MAX + 1], up[32];
		struct jr_live_reply r;
		size_t n = strlen(e->d_name);
		int fd;

		if (n <= 5 || n - 5 > JR_LIVE_NAME_MAX ||
		    strcmp(e->d_name + n - 5, ".sock") != 0)
			continue;
		snprintf(name, sizeof(name), "%.*s", (int)(n - 5), e->d_name);
		if (jr_live_name_check(name, &err) < 0)
			continue;
		jr_log_set_level(JR_LOG_ERROR - 1); /* a dead one: no message */
		fd = live_connect(name);
		jr_log_set_level(JR_LOG_INFO);
		if (fd < 0)
			continue;
		if (ask_status(fd, &r) == 0) {
			format_uptime(jr_clock_unix_ms() - r.started_unix_ms,
				      up, sizeof(up));
			printf("%-24s %8d %-20s %9s %u running, %u in all\n",
			       name, r.runner_pid, r.mode, up, r.execs_running,
			       r.execs_total);
		}
		close(fd);
	}
	return fflush(stdout) == 0 ? 0 : JR_EXIT_FAILURE;
}

static int live_stop(int argc, char **argv)
{
	const struct jr_live_req req = { .type = JR_LIVE_STOP };
	_cleanup_close_ int fd = -1, pidfd = -1;
	struct jr_live_reply r;
	struct ucred cred;
	socklen_t len = sizeof(cred);
	struct pollfd p;

	if (argc != 2) {
		jr_error("usage: jailrun stop NAME");
		return JR_EXIT_FAILURE;
	}
	fd = live_connect(argv[1]);
	if (fd < 0)
		return JR_EXIT_FAILURE;
	/* The runner is alive while it holds this connection: its pid
	 * cannot have been reused when the pidfd is taken. */
	if (getsockopt(fd, SOL_SOCKET, SO_PEERCRED, &cred, &len) < 0 ||
	    (pidfd = (int)syscall(SYS_pidfd_open, cred.pid, 0)) < 0) {
		jr_error("cannot watch the runner of '%s': %s", argv[1],
			 strerror(errno));
		return JR_EXIT_FAILURE;
	}
	if (send_req(fd, &req, NULL, 0) < 0 || recv_reply(fd, &r) < 0 ||
	    r.type != JR_LIVE_STOPPING) {
		jr_error("the live sandbox '%s' did not take the stop",
			 argv[1]);
		return JR_EXIT_FAILURE;
	}
	p = (struct pollfd){ .fd = pidfd, .events = POLLIN };
	while (poll(&p, 1, -1) < 0)
		if (errno != EINTR) {
			jr_error("poll: %s", strerror(errno));
			return JR_EXIT_FAILURE;
		}
	return 0;
}

int jr_live_client_main(int argc, char **argv)
{
	if (strcmp(argv[0], "exec") == 0)
		return live_exec(argc, argv);
	if (strcmp(argv[0], "stop") == 0)
		return live_stop(argc, argv);
	if (argc != 1) {
		jr_error("usage: jailrun ls");
		return JR_EXIT_FAILURE;
	}
	return live_ls();
}
