/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * pool_ctl.h - a warm pool's policy socket, POOL.ctl: the requests its
 * sandboxes hold under --ask, listed and decided on one socket
 * (jailrun ctl POOL). See pool_ctl.c.
 */
#ifndef JR_POOL_CTL_H
#define JR_POOL_CTL_H

#include <stddef.h>
#include <stdint.h>

#include "err.h"

/* How long a client's request line, or a sandbox's answer, may take. */
#define JR_POOL_CTL_WAIT_MS 2000

struct jr_pool_ctl {
	int fd;		/* listening; -1: not served */
	char path[108]; /* POOL.ctl */
};

/* A sandbox of the pool that may hold requests: its number ({n}) and
 * the path of its own policy socket (NAME.ctl). */
struct jr_pool_ctl_member {
	uint32_t seq;
	char path[108];
};

/* Not served yet: fd -1. */
void jr_pool_ctl_init(struct jr_pool_ctl *pc);

/*
 * jr_pool_ctl_open - serve POOL.ctl for pool @pool (beside POOL.sock,
 * mode 0600). Return: 0, or -errno with @err saying why.
 */
int jr_pool_ctl_open(struct jr_pool_ctl *pc, const char *pool,
		     struct jr_err *err);

/*
 * jr_pool_ctl_serve - take the clients waiting on the socket and answer
 * each, asking the @n sandboxes @m as the request needs. Every wait is
 * bounded by JR_POOL_CTL_WAIT_MS.
 */
void jr_pool_ctl_serve(struct jr_pool_ctl *pc,
		       const struct jr_pool_ctl_member *m, size_t n);

/* Stop serving: close the socket and remove POOL.ctl. */
void jr_pool_ctl_close(struct jr_pool_ctl *pc);

#endif
