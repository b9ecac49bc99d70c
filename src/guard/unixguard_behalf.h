/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * unixguard_behalf.h - the unix socket guard's executor: a process with
 * exactly the command's rights that runs the connects and sends the guard
 * makes on the command's behalf. See the theory at the top of
 * unixguard_behalf.c.
 */
#ifndef JR_UNIXGUARD_BEHALF_H
#define JR_UNIXGUARD_BEHALF_H

#include <stddef.h>
#include <stdint.h>
#include <sys/socket.h>
#include <sys/types.h>

#include "err.h"
#include "ids.h"

/* The bytes one send may carry, and its control data (both copied from
 * the task into a slot of the shared arena). */
#define JR_UG_MAX_SEND (256 * 1024)
#define JR_UG_MAX_CONTROL 4096
/* include/net/scm.h: SCM_MAX_FD. */
#define JR_UG_MAX_FDS 253

enum jr_behalf_op {
	JR_BEHALF_CONNECT = 1,
	JR_BEHALF_SEND,
};

/* One call to run. The bytes and control data are in the caller's slot:
 * bytes at jr_behalf_bytes(), control at jr_behalf_control(). */
struct jr_behalf_req {
	uint32_t op;	   /* enum jr_behalf_op */
	int32_t flags;	   /* send flags; MSG_NOSIGNAL is always added */
	uint32_t addrlen;  /* bytes of @addr; 0: none */
	uint32_t pinned;   /* 1: the address is the pinned inode passed */
	uint32_t n_rights; /* SCM_RIGHTS descriptors passed (in order) */
	uint32_t pad;
	uint64_t off, len; /* bytes to send: slot bytes [off, off + len) */
	uint64_t control_off, controllen;
	struct sockaddr_storage addr;
};

struct jr_behalf;

struct jr_behalf_config {
	int userns;		  /* the sandbox's user namespace; kept */
	const struct jr_ids *ids; /* the command's ids inside it */
	size_t n_slots;		  /* callers that may call at once */
};

/*
 * jr_behalf_spawn - fork the executor from the calling thread (its
 * descriptor table is what the child starts from: call it from a thread
 * with a small table of its own), move it into @cfg->userns as the
 * command's uid and gid, with no capability, no_new_privs, not dumpable,
 * and wait until it says so. Return: 0 or -errno, @err set.
 */
int jr_behalf_spawn(const struct jr_behalf_config *cfg, struct jr_behalf **out,
		    struct jr_err *err);

/* Slot @slot's areas: JR_UG_MAX_SEND bytes, JR_UG_MAX_CONTROL control. */
char *jr_behalf_bytes(struct jr_behalf *b, size_t slot);
char *jr_behalf_control(struct jr_behalf *b, size_t slot);

/*
 * jr_behalf_call - have the executor run @rq on the socket @sfd (with
 * @pinned, an O_PATH fd of the unix socket inode to reach, when
 * @rq->pinned; and the @n_rights descriptors @rights for SCM_RIGHTS),
 * using slot @slot. One caller per slot at a time.
 * Return: the call's result (0 or bytes sent) or its -errno, as the kernel
 * answered the executor; -EINTR if a signal interrupted the wait (the
 * guard is stopping; a late answer is told apart by its sequence number);
 * -ECHILD if the executor is gone (the caller fails closed).
 */
ssize_t jr_behalf_call(struct jr_behalf *b, size_t slot,
		       const struct jr_behalf_req *rq, int sfd, int pinned,
		       const int *rights, size_t n_rights);

/* jr_behalf_stop - kill the executor, reap it, free everything. */
void jr_behalf_stop(struct jr_behalf *b);

#endif
