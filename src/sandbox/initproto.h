/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * initproto.h - the runner-init protocol: the runner and the sandbox's PID 1.
 *
 * A SOCK_SEQPACKET socketpair: one message per send, boundaries kept, EOF
 * when the peer dies. File descriptors ride along as SCM_RIGHTS and are
 * received with MSG_CMSG_CLOEXEC so they can never leak into the command.
 *
 * The conversation (runner <-> init):
 *   runner: MAPS_DONE           uid/gid maps written, init may set up
 *   init:   NFT_EARLY + fds     first thing: the worker netns's netfilter
 *           or SETUP_FAIL       sockets, slots [0, JR_INITPROTO_FDS_EARLY), so
 *                               the runner installs the worker table while
 *                               init sets up (sandbox.c, lockdown())
 *   init:   SETUP_OK + fds      mounts, lo up; the other fds of enum
 *           or SETUP_FAIL       jr_initproto_fd, slots [JR_INITPROTO_FDS_EARLY,
 *                               jr_initproto_setup_nfds()) for the mode
 *   runner: GO + filter fd      rules installed and verified; with
 *           or ABORT            --seccomp on, one sealed memfd holding the
 *                               command's BPF program (seccomp.h), and
 *                               status = JR_INITPROTO_GO_NOTIFY when it has
 *                               user-notification rules
 *   init:   EXEC_OK             command started (execve succeeded)
 *           or EXEC_FAIL        code = errno, status = 0 exec / 1 pre-exec
 *   init:   EXIT                status = waitpid() status of the command
 *
 * Between GO and EXEC_OK, when the filter has the unix socket guard, the
 * pre-exec child itself (not init) writes UNOTIFY with the number of its
 * seccomp listener fd, using write(2), and reads the runner's UNOTIFY_OK
 * or ABORT with read(2): sendmsg/recvmsg-free, because the child's sends
 * already trap into that filter. The runner learns the child's pid from
 * SCM_CREDENTIALS (SO_PASSCRED, set before GO) and takes the fd itself
 * with pidfd_getfd(2) (unixguard.c).
 */
#ifndef JR_INITPROTO_H
#define JR_INITPROTO_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#include "options.h"

/* The fixed slots, then (lane.h) up to three listeners per host lane and
 * the publish socket factory: jr_lanes_nfds() more. */
#define JR_INITPROTO_MAX_FDS (11 + 3 * JR_LANE_MAX + 1)

/*
 * The fds NFT_EARLY and SETUP_OK carry, slot by slot: NFT_EARLY the first
 * JR_INITPROTO_FDS_EARLY, SETUP_OK the rest up to jr_initproto_setup_nfds().
 * Both ends keep one array indexed by slot, so init fills each slot by its
 * name and the runner takes each by its name; a message with any other
 * count is refused. The relay's listeners come last so that a mode
 * without the relay sends a prefix.
 */
enum jr_initproto_fd {
	/* NETLINK_NETFILTER socket of the worker netns; will own the table */
	JR_INITPROTO_FD_NFT = 0,
	/* a second one, for the watchdog's change notifications */
	JR_INITPROTO_FD_NFT_MONITOR,
	/* a third, for the refusals' NFLOG messages (nflog.h) */
	JR_INITPROTO_FD_NFLOG,
	/* NETLINK_SOCK_DIAG socket of the worker netns: which unix sockets
	 * the sandbox bound (unixguard.c) */
	JR_INITPROTO_FD_UNIX_DIAG,
	/* --net allowlist only: the relay's listeners (struct
	 * jr_relay_listeners), in the relay netns */
	JR_INITPROTO_FD_PROXY,
	JR_INITPROTO_FD_DNS_UDP,
	JR_INITPROTO_FD_DNS_TCP,
	/* --net allowlist with --transparent on: the transparent listener
	 * (relay netns) and a NETLINK_NETFILTER socket of the relay netns,
	 * which will own the table that redirects captured TCP to it */
	JR_INITPROTO_FD_TRANSPARENT,
	JR_INITPROTO_FD_NFT_RELAY,
	/* a second one, for the watchdog's notifications of that table */
	JR_INITPROTO_FD_NFT_RELAY_MONITOR,
	/* with IPv6 too (relaynet.h): the IPv6 transparent listener */
	JR_INITPROTO_FD_TRANSPARENT6,
	/* how many of them NFT_EARLY sends (the rest go with SETUP_OK) */
	JR_INITPROTO_FDS_EARLY = JR_INITPROTO_FD_NFLOG + 1,
	/* how many each mode sends in all */
	JR_INITPROTO_FDS_NONE = JR_INITPROTO_FD_UNIX_DIAG + 1,
	JR_INITPROTO_FDS_ALLOWLIST = JR_INITPROTO_FD_DNS_TCP + 1,
	JR_INITPROTO_FDS_TRANSPARENT = JR_INITPROTO_FD_NFT_RELAY_MONITOR + 1,
	JR_INITPROTO_FDS_TRANSPARENT6 = JR_INITPROTO_FD_TRANSPARENT6 + 1,
};

_Static_assert(JR_INITPROTO_FDS_TRANSPARENT6 <= JR_INITPROTO_MAX_FDS,
	       "SETUP_OK carries more fds than jr_initproto_recv() takes");

/*
 * How many fds SETUP_OK carries in network mode @net (@ipv6: the sandbox
 * link has IPv6, which the runner decided before the clone and told init);
 * the lanes' fds (jr_lanes_nfds()) follow these: the host lanes' gateway
 * listeners in --lane order, their 127.0.0.1 listeners in the same order,
 * their [::1] ones (when the runner decided so) in the same order, then
 * the publish socket factory.
 */
static inline size_t jr_initproto_setup_nfds(enum jr_net_mode net,
					     bool transparent, bool ipv6)
{
	if (net != JR_NET_ALLOWLIST)
		return JR_INITPROTO_FDS_NONE;
	if (!transparent)
		return JR_INITPROTO_FDS_ALLOWLIST;
	return ipv6 ? JR_INITPROTO_FDS_TRANSPARENT6
		    : JR_INITPROTO_FDS_TRANSPARENT;
}

enum jr_initproto_type {
	JR_INITPROTO_MAPS_DONE = 1,
	JR_INITPROTO_SETUP_OK,
	JR_INITPROTO_SETUP_FAIL,
	JR_INITPROTO_GO,
	JR_INITPROTO_ABORT,
	JR_INITPROTO_EXEC_OK,
	JR_INITPROTO_EXEC_FAIL,
	JR_INITPROTO_EXIT,
	JR_INITPROTO_UNOTIFY, /* pre-exec child: code = seccomp listener fd */
	JR_INITPROTO_UNOTIFY_OK, /* runner: taken, the guard runs (else ABORT) */
	JR_INITPROTO_NFT_EARLY,	 /* init: the worker's netfilter sockets */
	JR_INITPROTO_TYPE_LAST = JR_INITPROTO_NFT_EARLY,
};

/* GO's status: the filter in its memfd has SECCOMP_RET_USER_NOTIF rules
 * (load it with a listener, struct jr_seccomp_filter's notify). */
#define JR_INITPROTO_GO_NOTIFY 1

struct jr_initproto_msg {
	uint32_t type;	/* enum jr_initproto_type */
	int32_t code;	/* errno for *_FAIL */
	int32_t status; /* wait status for EXIT; stage for EXEC_FAIL */
	int32_t pid;	/* EXEC_OK: the command's pid in the host pid ns */
	char msg[512];	/* NUL-terminated human-readable detail */
	/* Start-up phases init timed, in microseconds (startup.h):
	 * SETUP_OK: [0] init setup, [1] relay netns, [2] the filesystem
	 * layout; EXEC_OK: [0] the relay self-check, [1] fork to execve
	 * done. */
	uint64_t phase_us[3];
	/* SETUP_OK: when init's setup began and ended (CLOCK_MONOTONIC, µs,
	 * the clock both processes read): what ran beside it (startup.h). */
	uint64_t span_us[2];
};

#define JR_INITPROTO_EXEC_STAGE_EXEC 0	  /* execve() itself failed */
#define JR_INITPROTO_EXEC_STAGE_PREEXEC 1 /* dropping privileges etc. failed */

/*
 * jr_initproto_send - send @m with optional @fds (SCM_RIGHTS).
 * Return: 0 or -errno. Retries on EINTR.
 */
int jr_initproto_send(int sock, const struct jr_initproto_msg *m,
		      const int *fds, size_t nfds);

/*
 * jr_initproto_recv - receive one message; received fds are O_CLOEXEC.
 * @fds/@nfds: room for up to *nfds fds on input, the count on output; any
 * fds beyond the room are closed. May be NULL when none are expected (then
 * any received fds are closed).
 * Return: 0, -EPIPE on EOF (peer gone), -EBADMSG on a malformed message, or
 * another -errno.
 */
int jr_initproto_recv(int sock, struct jr_initproto_msg *m, int *fds,
		      size_t *nfds);

/*
 * jr_initproto_recv_cred - jr_initproto_recv(), and the sender's pid from
 * SCM_CREDENTIALS (in our pid namespace) in *@pid, 0 when none came.
 */
int jr_initproto_recv_cred(int sock, struct jr_initproto_msg *m, int *fds,
			   size_t *nfds, pid_t *pid);

/* Convenience: a message of @type with a formatted detail. */
void jr_initproto_msg_init(struct jr_initproto_msg *m,
			   enum jr_initproto_type type, int code,
			   const char *fmt, ...)
    __attribute__((format(printf, 4, 5)));

#endif
