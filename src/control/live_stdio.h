/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * live_stdio.h - what jailrun exec passes a live sandbox's command as its
 * fds 0, 1 and 2: its own, except a terminal, which is replaced by a pipe
 * that jailrun exec relays, output through the terminal filter
 * (ttyfilter.h), as a run relays its pty.
 */
#ifndef JR_LIVE_STDIO_H
#define JR_LIVE_STDIO_H

#include <poll.h>
#include <stdbool.h>

#include "err.h"
#include "ttyfilter.h"

struct jr_live_stdio {
	int pass[3];	/* what the command gets as fds 0, 1, 2 */
	int ours[3];	/* our end of a pipe that replaced a terminal; -1 */
	int sandbox[3]; /* its other end, closed once sent; -1 */
	struct jr_ttyfilter filter[3]; /* [1], [2] */
	char in[4096]; /* read from the terminal, not yet in the pipe */
	size_t in_len;
};

/* The fds each relay pipe needs in a poll set, at most. */
#define JR_LIVE_STDIO_POLLFDS 3

/*
 * jr_live_stdio_open - decide and make the pipes. Return: 0, or <0 with
 * @err set.
 */
int jr_live_stdio_open(struct jr_live_stdio *s, struct jr_err *err);

/* After the request went: the sandbox's ends are its own now. */
void jr_live_stdio_sent(struct jr_live_stdio *s);

/* Fill @p with what to wait for; returns how many. */
int jr_live_stdio_poll(const struct jr_live_stdio *s, struct pollfd *p);

/* Move what @p says is ready; @n as jr_live_stdio_poll() returned. */
void jr_live_stdio_pump(struct jr_live_stdio *s, const struct pollfd *p, int n);

/* The command ended: what its output pipes hold now, then close all. */
void jr_live_stdio_finish(struct jr_live_stdio *s);

#endif
