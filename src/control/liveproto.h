/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * liveproto.h - the messages of live sandboxes (jailrun start/exec/ls/
 * stop, jailrun(1) LIVE SANDBOXES). Pure: no I/O.
 *
 * Two channels carry them, both SOCK_SEQPACKET (one message per send,
 * boundaries kept, EOF when the peer goes):
 *   client <-> runner   the sandbox's socket, NAME.sock (live.c)
 *   runner <-> zygote   a socketpair made before the clone (zygote.c)
 * A request is a struct jr_live_hdr followed by its strings (encoded by
 * jr_live_req_encode()); EXEC carries the client's fds 0, 1 and 2 as
 * SCM_RIGHTS. Every answer is one struct jr_live_reply.
 *
 * The conversation of one exec (client, runner, zygote):
 *   client: EXEC + strings + 3 fds  -> runner gives it an id, passes it on
 *   zygote: STARTED (pid)  or FAILED (code, stage, msg)
 *   zygote: EXITED (wait status)    -> runner passes each on to the client
 *   client: SIGNAL (signo)          forwarded to the process; a client that
 *                                   goes away is a SIGKILL
 * STATUS and STOP are answered by the runner itself.
 */
#ifndef JR_LIVEPROTO_H
#define JR_LIVEPROTO_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "err.h"

/* A sandbox name: 1..JR_LIVE_NAME_MAX of [A-Za-z0-9._-], not starting
 * with '.' or '-' (it becomes a file name, NAME.sock). */
#define JR_LIVE_NAME_MAX 64
/* The longest request; argv and environment beyond it are refused. */
#define JR_LIVE_MSG_MAX 65536
/* At most this many argv words, and --env entries, per request. */
#define JR_LIVE_ARGV_MAX 4096
#define JR_LIVE_ENV_MAX 1024

#define JR_LIVE_MAGIC 0x4a524c31u /* "JRL1" */

enum jr_live_type {
	/* requests */
	JR_LIVE_EXEC = 1,
	JR_LIVE_SIGNAL, /* signo: to the exec'd process of this connection */
	JR_LIVE_STATUS,
	JR_LIVE_STOP,
	/* replies */
	JR_LIVE_STARTED, /* pid: the process, in the sandbox's pid namespace */
	JR_LIVE_FAILED,	 /* code: errno, status: JR_INITPROTO_EXEC_STAGE_* */
	JR_LIVE_EXITED,	 /* status: its wait status */
	JR_LIVE_STATE,	 /* the answer to STATUS */
	JR_LIVE_STOPPING,
	JR_LIVE_REFUSED, /* code: errno, msg: why */
	JR_LIVE_ENDED,	 /* msg: why the sandbox ended under a running
			  * command (a tamper, its --timeout) */
};

/* The head of every request. */
struct jr_live_hdr {
	uint32_t magic;
	uint32_t type;	  /* enum jr_live_type */
	uint32_t id;	  /* runner -> zygote: which exec */
	int32_t signo;	  /* SIGNAL */
	uint32_t argc;	  /* EXEC: how many argv strings follow */
	uint32_t n_env;	  /* EXEC: how many NAME=VALUE strings follow them */
	uint32_t has_cwd; /* EXEC: 1: the cwd is the last string */
	uint32_t flags;	  /* EXEC: JR_LIVE_F_* */
	uint32_t len;	  /* bytes of strings after the head */
};

/* EXEC's flags. */
enum {
	/* the fds that are terminals are a pty the client relays: the
	 * command makes it its controlling terminal (live_client.c) */
	JR_LIVE_F_TTY = 1,
	JR_LIVE_F_ALL = JR_LIVE_F_TTY,
};

/* Every answer, zygote -> runner and runner -> client. */
struct jr_live_reply {
	uint32_t type; /* enum jr_live_type */
	uint32_t id;   /* zygote -> runner: which exec */
	int32_t code;
	int32_t status;
	int32_t pid;
	/* STATE: what jailrun ls shows */
	int32_t runner_pid;
	uint64_t started_unix_ms;
	uint32_t execs_running;
	uint32_t execs_total;
	char mode[32];
	char msg[400];
};

/* A decoded EXEC: pointers into the message buffer. */
struct jr_live_req {
	enum jr_live_type type;
	uint32_t id;
	int signo;
	const char *argv[JR_LIVE_ARGV_MAX + 1]; /* NULL-terminated */
	size_t argc;
	const char *env[JR_LIVE_ENV_MAX];
	size_t n_env;
	const char *cwd; /* NULL: the sandbox's working directory */
	uint32_t flags;	 /* JR_LIVE_F_* */
};

/*
 * jr_live_name_check - is @name a valid sandbox name (see
 * JR_LIVE_NAME_MAX)? Return: 0, or -EINVAL with @err naming the rule.
 */
int jr_live_name_check(const char *name, struct jr_err *err);

/*
 * jr_live_env_check - is @entry a NAME=VALUE for --env (NAME a shell
 * variable name)? Return: 0, or -EINVAL with @err naming the rule.
 */
int jr_live_env_check(const char *entry, struct jr_err *err);

/*
 * jr_live_socket_path - where sandbox @name's socket lives: for @euid 0
 * JR_LIVE_ROOT_DIR/NAME.sock, else $XDG_RUNTIME_DIR/jailrun/NAME.sock
 * (@xdg); @name NULL gives the directory alone.
 * Return: 0, or <0 with @err set (no XDG_RUNTIME_DIR, too long).
 */
int jr_live_socket_path(unsigned int euid, const char *xdg, const char *name,
			char *out, size_t size, struct jr_err *err);

#define JR_LIVE_ROOT_DIR "/run/jailrun"

/*
 * jr_live_control_path - the live policy socket a sandbox @name started
 * with --ask and no --control serves (jailrun ctl NAME): NAME.ctl beside
 * NAME.sock. Return: 0, or <0 with @err set (as jr_live_socket_path()).
 */
int jr_live_control_path(unsigned int euid, const char *xdg, const char *name,
			 char *out, size_t size, struct jr_err *err);

/*
 * jr_live_log_path - where a sandbox or pool @name started in the
 * background writes what it has to say once its start has returned:
 * NAME.log beside NAME.sock (live.h). Return: 0, or <0 with @err set.
 */
int jr_live_log_path(unsigned int euid, const char *xdg, const char *name,
		     char *out, size_t size, struct jr_err *err);

/*
 * jr_live_req_encode - @req as one message into @buf (@size bytes).
 * Return: its length, or <0 with @err set (too big, too many strings).
 */
int jr_live_req_encode(const struct jr_live_req *req, void *buf, size_t size,
		       struct jr_err *err);

/*
 * jr_live_req_decode - parse one message of @len bytes at @buf into
 * @req, whose strings point into @buf. Strict: the magic, a known type, the counts within their limits
 * and equal to the strings present, argv non-empty for EXEC, each --env
 * entry valid, the cwd absolute. Return: 0, or -EBADMSG / -EINVAL with
 * @err set.
 */
int jr_live_req_decode(char *buf, size_t len, struct jr_live_req *req,
		       struct jr_err *err);

/*
 * jr_pool_path_value - is @opts[@i] the value of --json, --log or
 * --control (the word after one, or --json=VALUE, ...)? Then *@value
 * points at the value. A pool's members each have their own
 * (jr_pool_with_seq()).
 */
bool jr_pool_path_value(char **opts, int i, const char **value);

/*
 * jr_pool_check_paths - with --pool, every --json, --log and --control
 * value among @opts (@nopts words) must hold "{n}", and --control-fd is
 * refused. Return: 0, or -EINVAL with @err naming the value.
 */
int jr_pool_check_paths(char **opts, int nopts, struct jr_err *err);

/* jr_pool_with_seq - @s with each "{n}" replaced by @seq; malloc'd, NULL
 * when out of memory. */
char *jr_pool_with_seq(const char *s, uint32_t seq);

/* "exec", "signal", ... for a type, or "?" */
const char *jr_live_type_name(enum jr_live_type type);

#endif
