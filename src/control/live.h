/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * live.h - the runner's side of a live sandbox (jailrun start): the
 * socket NAME.sock, the socketpair to the zygote (zygote.h), the start
 * caller waiting for "ready", and the clients of jailrun exec, ls and
 * stop (liveproto.h says what they send).
 */
#ifndef JR_LIVE_H
#define JR_LIVE_H

#include <stdbool.h>
#include <stdint.h>
#include <sys/types.h>

#include "err.h"
#include "liveproto.h"

/* The most sandboxes one pool keeps. */
#define JR_POOL_MAX 64

/* Clients served at once (each jailrun exec holds one while it runs). */
#define JR_LIVE_CONNS_MAX 64

struct jr_live_conn {
	int fd;	     /* -1: a free slot */
	uint32_t id; /* its exec, while one runs */
	bool running;
};

struct jr_live {
	char name[JR_LIVE_NAME_MAX + 1];
	char path[108]; /* NAME.sock; "" until it exists */
	/* NAME.ctl: --ask's policy socket when no --control names one
	 * ("" otherwise); a pool's member then says 'A' when ready, not 'R' */
	char control_path[108];
	bool foreground;
	uint32_t pool; /* --pool N: a pool manager of N sandboxes (pool.c) */
	bool member;   /* --pool-member: one of a pool's sandboxes */
	uint64_t idle_stop_ms; /* --idle-stop; 0: never */
	int idle_timer;	       /* timerfd, armed while no command runs */
	int listen_fd;
	int zygote;	  /* the runner's end of the socketpair */
	int zygote_child; /* init's end, until the clone */
	int epfd;	  /* the above and the clients: one fd to poll */
	int ready_fd;	  /* the start caller's pipe; -1: none */
	int null_fd;	  /* /dev/null: init's stdio, ours once ready */
	/* NAME.log: our stderr once the start caller has gone (not with
	 * --foreground or in a pool's member); -1: none */
	int log_fd;
	char log_path[108];
	bool stop;     /* jailrun stop asked */
	char mode[32]; /* for jailrun ls */
	uint64_t started_unix_ms;
	uint32_t next_id, total;
	struct jr_live_conn conns[JR_LIVE_CONNS_MAX];
};

/*
 * jr_live_start_args - split "jailrun start NAME [--foreground]
 * [--idle-stop SECONDS] OPTIONS [--]" (@argc/@argv as main() got them)
 * into @l's name and settings and a
 * run's vector in *@run_argv (argv[0], the OPTIONS, "--" and
 * JR_LIVE_COMMAND), malloc'd; @l is initialised first (every fd -1),
 * so jr_live_close() is safe from here on. Return: the vector's length,
 * or <0 with @err set.
 */
int jr_live_start_args(int argc, char **argv, struct jr_live *l,
		       char ***run_argv, struct jr_err *err);

/* JR_LIVE_COMMAND, the command a live sandbox's run vector ends with, is
 * in options.h: the option rules know a live start by it. */

/*
 * jr_live_daemonize - unless --foreground, fork: the child (we return 0
 * in it) goes on in a session of its own with stdin and stdout on
 * /dev/null; the parent waits until the child says ready (exit 0) or
 * ends (its status, 125 if it said nothing), and *@exit_status is set
 * for it to exit with (return 1). Return: 0 in the child, 1 in the
 * parent, <0 with @err set.
 */
int jr_live_daemonize(struct jr_live *l, int *exit_status, struct jr_err *err);

/*
 * jr_live_open - make the socket directory (0700, ours) and NAME.sock
 * (0600), refusing a name a live sandbox already serves, and the
 * zygote's socketpair. Return: 0, or <0 with @err set.
 */
int jr_live_open(struct jr_live *l, struct jr_err *err);

/*
 * jr_live_accept - the next client waiting on the non-blocking
 * @listen_fd (a live sandbox's or a pool's socket) whose peer, by
 * SO_PEERCRED, is the caller who started it or root; any other is
 * sent a refusal that names the owner's uid, and closed. Return: its fd (O_CLOEXEC, O_NONBLOCK), or -1 when
 * no allowed client waits (errno from accept4: EAGAIN when none).
 */
int jr_live_accept(int listen_fd);

/*
 * jr_live_bind - jr_live_open()'s first half, all a pool manager needs:
 * the socket directory and NAME.sock, listening. Return: 0, or <0 with
 * @err set.
 */
int jr_live_bind(struct jr_live *l, struct jr_err *err);

/*
 * jr_pool_main - jailrun start NAME --pool N: the manager of @l->pool
 * sandboxes, each started as `jailrun start` with @opts (@nopts words,
 * the start's OPTIONS). Return: the exit status (jailrun(1) LIVE
 * SANDBOXES).
 */
int jr_pool_main(struct jr_live *l, char **opts, int nopts);

/* In the clone child (init), before anything else: close the runner's
 * ends and give init /dev/null as stdio. */
void jr_live_in_init(struct jr_live *l);

/* In the runner after the clone: init's end closed. */
void jr_live_after_clone(struct jr_live *l);

/* The zygote runs, the lockdown verified: tell the start caller; from
 * here on (unless --foreground) our stderr is NAME.log (a member's:
 * /dev/null), jr_live_detach_stderr(). */
void jr_live_ready(struct jr_live *l);

/*
 * jr_live_detach_stderr - the start caller has its answer: let go of its
 * stderr. What a sandbox or pool started in the background says from
 * then on (a warning, why it stopped) goes to NAME.log (mode 0600,
 * beside NAME.sock, made anew at each start of NAME, at most
 * JR_LIVE_LOG_MAX bytes), which jr_live_close() removes if nothing was
 * written to it; with --foreground stderr stays (a service manager's
 * journal), and a pool's member writes nowhere (its pool says what
 * matters).
 */
void jr_live_detach_stderr(struct jr_live *l);

/* NAME.log's most (jr_log_set_budget()): /run is memory, and a runner
 * that warns in a loop (a command tampering with its rules without end)
 * must not fill it. */
#define JR_LIVE_LOG_MAX (1024u * 1024)

/*
 * jr_live_dispatch - serve what is ready on l->epfd without blocking;
 * jailrun stop sets l->stop (as SIGTERM, SIGINT and SIGHUP to the
 * runner do, sandbox.c), and the runner then ends the sandbox.
 */
void jr_live_dispatch(struct jr_live *l);

/*
 * jr_live_ended - the sandbox ended while commands ran in it (the
 * runner's --timeout, a tamper with --on-tamper kill, its init gone):
 * tell each of their clients @why, which jailrun exec prints, as a run
 * prints it, before it exits 125. Its stderr, the runner's own, went to
 * /dev/null once the sandbox was ready.
 */
void jr_live_ended(struct jr_live *l, const char *why);

/* Everything closed, NAME.sock removed. */
void jr_live_close(struct jr_live *l);

/*
 * jr_live_client_main - jailrun exec, ls and stop (@argv[0] is the
 * subcommand). Return: the exit status.
 */
int jr_live_client_main(int argc, char **argv);

#endif
