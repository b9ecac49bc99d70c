// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * zygote.c - the process of a live sandbox that becomes each jailrun
 * exec's command.
 *
 * Theory of operation: a run's pre-exec child drops its privileges,
 * enters the Landlock domain, loads the seccomp filter (handing the unix
 * socket guard's listener to the runner) and execs the command
 * (init.c). In a live sandbox it does all of that and then, instead of
 * the exec, comes here: it stays, as the sandbox's zygote, and forks one
 * child per EXEC request that arrives on the socketpair the runner made
 * before the clone (liveproto.h). A child inherits everything that makes
 * the sandbox: the namespaces, the ids without capabilities, no_new_privs,
 * the Landlock domain and the seccomp filter, whose notifications the
 * same guard serves. Nothing is applied a second time and nothing enters
 * from outside (no setns(2)), so an exec'd command cannot be confined
 * less than the zygote is, and the zygote no less than a run's command.
 *
 * Each child starts a session of its own (as a run's command does: no
 * controlling terminal to push input into), takes the three descriptors
 * the client passed as its stdio, the request's --env entries on top of
 * the command environment the zygote was given, its --cwd, and execs
 * through jr_exec_search() (init.c: 127/126 as the shells). What fails
 * before or at the exec is told to the zygote through an O_CLOEXEC pipe,
 * as init's pre-exec child does; EOF on it means the exec succeeded.
 *
 * The zygote runs as the command's user, inside the sandbox, so what a
 * command could do to it matters (docs/design/sandbox.md): it is
 * undumpable (PR_SET_DUMPABLE 0), so a process of the same uid can
 * neither ptrace it, nor read its memory, nor take its descriptors with
 * pidfd_getfd(2); it holds no descriptor but its socketpair end, which a
 * command can therefore not reach; and a command can still kill it (same
 * uid), which ends the sandbox: init reports the zygote's end and exits.
 * That is a denial of service to the sandbox itself, never a way out.
 */

#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/prctl.h>
#include <sys/signalfd.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <unistd.h>

#include "init.h"
#include "initproto.h"
#include "io.h"
#include "liveproto.h"
#include "zygote.h"

/* Commands running at once; the runner serves fewer clients than this. */
#define JR_ZYGOTE_MAX_EXECS 256

struct zygote_exec {
	uint32_t id;
	pid_t pid; /* 0: a free slot */
};

static struct zygote_exec execs[JR_ZYGOTE_MAX_EXECS];
/* One request at a time; static so that neither fork nor the stack pays
 * for its size. One byte more than a request may be. */
static char msgbuf[JR_LIVE_MSG_MAX + 1];
static struct jr_live_req req;

int jr_zygote_prepare(int chan, int keep, struct jr_err *err)
{
	int keep_fds[2] = { chan, keep };
	int null, r;

	/* Its own name in ps (cosmetic, as init's: a failure changes
	 * nothing else). */
	(void)prctl(PR_SET_NAME, "jailrun-zygote", 0, 0, 0);
	/* Same uid as every command: without this, any of them could
	 * ptrace it or copy its socketpair end (pidfd_getfd(2) needs
	 * PTRACE_MODE_ATTACH, which an undumpable task refuses). */
	if (prctl(PR_SET_DUMPABLE, 0, 0, 0, 0) < 0 ||
	    prctl(PR_GET_DUMPABLE, 0, 0, 0, 0) != 0)
		return jr_err_set(
		    err, errno,
		    "live sandbox: cannot make the zygote undumpable: %s",
		    strerror(errno));
	null = open("/dev/null", O_RDWR | O_CLOEXEC);
	if (null < 0)
		return jr_err_set(err, errno,
				  "live sandbox: cannot open /dev/null: %s",
				  strerror(errno));
	for (int fd = 0; fd < 3; fd++)
		if (dup2(null, fd) < 0) {
			r = -errno;
			close(null);
			return jr_err_set(err, -r,
					  "live sandbox: dup2 /dev/null: %s",
					  strerror(-r));
		}
	close(null);
	r = jr_close_all_but(keep_fds, 2);
	if (r < 0)
		return jr_err_set(err, -r, "live sandbox: close_range: %s",
				  strerror(-r));
	return 0;
}

/* A reply to the runner; write(2), not sendmsg(2), which the unix socket
 * guard's filter would send to the runner to judge (seccomp.c). */
static void reply(int chan, const struct jr_live_reply *r)
{
	ssize_t n;

	do {
		n = write(chan, r, sizeof(*r));
	} while (n < 0 && errno == EINTR);
	if (n != (ssize_t)sizeof(*r))
		_exit(1); /* the runner is gone: so is the sandbox */
}

static void reply_failed(int chan, uint32_t id, int stage, int code,
			 const char *msg)
{
	struct jr_live_reply r = {
		.type = JR_LIVE_FAILED,
		.id = id,
		.code = code,
		.status = stage,
	};

	snprintf(r.msg, sizeof(r.msg), "%s", msg);
	reply(chan, &r);
}

/* The forked child: becomes the request's command, or reports why not. */
__attribute__((noreturn)) static void become_command(const int *fds, int report)
{
	struct jr_live_reply r = {
		.type = JR_LIVE_FAILED,
		.status = JR_INITPROTO_EXEC_STAGE_PREEXEC,
	};
	sigset_t none;
	const char *what = "setsid";

	if (setsid() < 0)
		goto fail;
	what = "dup2 of the client's stdio";
	for (int fd = 0; fd < 3; fd++)
		if (dup2(fds[fd], fd) < 0)
			goto fail;
	/* The client's own pty (never its terminal: live_client.c) becomes
	 * our controlling terminal, as a run's pty does (init.c). */
	what = "cannot make the pseudo-terminal the controlling terminal";
	if (req.flags & JR_LIVE_F_TTY) {
		int fd = 0;

		while (fd < 3 && isatty(fd) != 1)
			fd++;
		if (fd == 3)
			errno = ENOTTY;
		if (fd == 3 || ioctl(fd, TIOCSCTTY, 0) < 0)
			goto fail;
	}
	what = "putenv";
	for (size_t i = 0; i < req.n_env; i++)
		if (putenv((char *)req.env[i]) != 0)
			goto fail;
	if (req.cwd && chdir(req.cwd) < 0) {
		r.code = errno;
		snprintf(r.msg, sizeof(r.msg), "--cwd %.200s: %s", req.cwd,
			 strerror(errno));
		goto report;
	}
	sigemptyset(&none);
	sigprocmask(SIG_SETMASK, &none, NULL);
	jr_exec_search((char *const *)req.argv);
	r.status = JR_INITPROTO_EXEC_STAGE_EXEC;
	r.code = errno;
	snprintf(r.msg, sizeof(r.msg), "%.200s: %s", req.argv[0],
		 strerror(errno));
	goto report;
fail:
	r.code = errno;
	snprintf(r.msg, sizeof(r.msg), "%s: %s", what, strerror(errno));
report:
	if (write(report, &r, sizeof(r)) < 0) {
		/* the zygote reads EOF and a short report as a failure */
	}
	_exit(r.status == JR_INITPROTO_EXEC_STAGE_EXEC ? 127 : 125);
}

/* The slot of the command with @pid, or (@pid 0) of exec @id. */
static struct zygote_exec *exec_slot(uint32_t id, pid_t pid)
{
	for (size_t i = 0; i < JR_ZYGOTE_MAX_EXECS; i++)
		if ((pid && execs[i].pid == pid) ||
		    (!pid && execs[i].pid && execs[i].id == id))
			return &execs[i];
	return NULL;
}

static struct zygote_exec *free_slot(void)
{
	for (size_t i = 0; i < JR_ZYGOTE_MAX_EXECS; i++)
		if (!execs[i].pid)
			return &execs[i];
	return NULL;
}

/* EXEC: fork the command and say whether it started. */
static void spawn(int chan, const int *fds)
{
	struct zygote_exec *slot = free_slot();
	struct jr_live_reply r = { .type = JR_LIVE_STARTED, .id = req.id };
	int report[2];
	ssize_t n;
	pid_t pid;

	if (!slot) {
		reply_failed(chan, req.id, JR_INITPROTO_EXEC_STAGE_PREEXEC,
			     EAGAIN,
			     "the live sandbox runs too many commands at once");
		return;
	}
	if (pipe2(report, O_CLOEXEC) < 0) {
		reply_failed(chan, req.id, JR_INITPROTO_EXEC_STAGE_PREEXEC,
			     errno, "pipe2 failed in the live sandbox");
		return;
	}
	pid = fork();
	if (pid == 0) {
		close(report[0]);
		become_command(fds, report[1]);
	}
	close(report[1]);
	if (pid < 0) {
		close(report[0]);
		reply_failed(chan, req.id, JR_INITPROTO_EXEC_STAGE_PREEXEC,
			     errno, "cannot fork in the live sandbox");
		return;
	}
	do {
		n = read(report[0], &r, sizeof(r));
	} while (n < 0 && errno == EINTR);
	close(report[0]);
	if (n == 0) {
		*slot = (struct zygote_exec){ .id = req.id, .pid = pid };
		r = (struct jr_live_reply){ .type = JR_LIVE_STARTED,
					    .id = req.id,
					    .pid = pid };
		reply(chan, &r);
		return;
	}
	if (n != (ssize_t)sizeof(r)) {
		/* A torn report: we cannot tell what runs. Fail closed. */
		kill(pid, SIGKILL);
		reply_failed(chan, req.id, JR_INITPROTO_EXEC_STAGE_PREEXEC, EIO,
			     "lost the exec report of the command");
		return;
	}
	/* Reaped by reap(), which finds no slot and says nothing more. */
	r.id = req.id;
	r.msg[sizeof(r.msg) - 1] = '\0';
	reply(chan, &r);
}

/* SIGNAL: to the command's process group (its own session, so the group
 * is its pid), or to it alone once the group is gone. */
static void forward_signal(void)
{
	struct zygote_exec *slot = exec_slot(req.id, 0);

	if (slot && kill(-slot->pid, req.signo) < 0)
		kill(slot->pid, req.signo);
}

static void reap(int chan)
{
	int status;
	pid_t pid;

	while ((pid = waitpid(-1, &status, WNOHANG)) > 0) {
		struct zygote_exec *slot = exec_slot(0, pid);
		struct jr_live_reply r = { .type = JR_LIVE_EXITED };

		if (!slot)
			continue;
		r.id = slot->id;
		r.status = status;
		slot->pid = 0;
		reply(chan, &r);
	}
}

/* One request from @chan; fds beyond the three stdio are closed. */
static void take_request(int chan)
{
	int fds[3], nfds = 0;
	struct jr_err err = { 0 };
	ssize_t n;

	n = jr_recv_fds(chan, msgbuf, sizeof(msgbuf), 0, fds, 3, &nfds);
	if (n == -EINTR || n == -EAGAIN)
		return;
	if (n <= 0 && n != -EMSGSIZE)
		_exit(0); /* the runner is gone: so is the sandbox */
	/* A truncated request (the runner checks each before passing it
	 * on) is decoded from what fits, for its id, and refused. */
	if (jr_live_req_decode(msgbuf, n > 0 ? (size_t)n : sizeof(msgbuf), &req,
			       &err) < 0 ||
	    n == -EMSGSIZE) {
		if (req.type == JR_LIVE_EXEC)
			reply_failed(chan, req.id,
				     JR_INITPROTO_EXEC_STAGE_PREEXEC, EBADMSG,
				     err.code ? err.msg : "truncated request");
	} else if (req.type == JR_LIVE_EXEC && nfds == 3) {
		spawn(chan, fds);
	} else if (req.type == JR_LIVE_EXEC) {
		reply_failed(chan, req.id, JR_INITPROTO_EXEC_STAGE_PREEXEC,
			     EBADMSG, "exec request without its three fds");
	} else if (req.type == JR_LIVE_SIGNAL) {
		forward_signal();
	}
	for (int i = 0; i < 3 && i < nfds; i++)
		close(fds[i]);
}

void jr_zygote_serve(int chan)
{
	sigset_t chld;
	int sfd;

	sigemptyset(&chld);
	sigaddset(&chld, SIGCHLD);
	if (sigprocmask(SIG_BLOCK, &chld, NULL) < 0)
		_exit(1);
	sfd = signalfd(-1, &chld, SFD_CLOEXEC | SFD_NONBLOCK);
	if (sfd < 0)
		_exit(1); /* init reports our end: the sandbox stops */
	for (;;) {
		struct pollfd p[2] = {
			{ .fd = chan, .events = POLLIN },
			{ .fd = sfd, .events = POLLIN },
		};
		struct signalfd_siginfo si;

		if (poll(p, 2, -1) < 0) {
			if (errno == EINTR)
				continue;
			_exit(1);
		}
		if (p[1].revents) {
			while (read(sfd, &si, sizeof(si)) > 0)
				;
			reap(chan);
		}
		if (p[0].revents)
			take_request(chan);
	}
}
