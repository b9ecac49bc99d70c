// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * live_stdio.c - jailrun exec's stdio for the command (live_stdio.h).
 *
 * A run never hands the command the caller's terminal: it gets a pty,
 * and what it writes reaches the terminal through the filter that drops
 * the sequences acting outside the pane (clipboard, titles, reports...).
 * Handed the terminal itself, it could also reconfigure it (modes,
 * window size) for the caller. jailrun exec keeps that rule without a
 * pty: each of fds 0, 1, 2 that is a terminal is replaced by a pipe;
 * input is copied from the terminal as the terminal delivers it (the
 * caller's line discipline still edits and echoes), output is filtered
 * on its way to the terminal. Anything else (files, pipes, sockets) is
 * passed as it is: the command reads and writes it directly.
 */

#include <errno.h>
#include <fcntl.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "io.h"
#include "live_stdio.h"

int jr_live_stdio_open(struct jr_live_stdio *s, struct jr_err *err)
{
	bool utf8 = jr_ttyfilter_locale_utf8(
	    getenv("LC_ALL"), getenv("LC_CTYPE"), getenv("LANG"));

	for (int fd = 0; fd < 3; fd++) {
		s->pass[fd] = fd;
		s->ours[fd] = s->sandbox[fd] = -1;
	}
	s->in_len = 0;
	for (int fd = 0; fd < 3; fd++) {
		int p[2];

		if (isatty(fd) != 1)
			continue;
		if (pipe2(p, O_CLOEXEC) < 0)
			return jr_err_set(err, errno, "pipe2: %s",
					  strerror(errno));
		/* stdin: the command reads p[0]; output: it writes p[1]. */
		s->sandbox[fd] = fd == 0 ? p[0] : p[1];
		s->ours[fd] = fd == 0 ? p[1] : p[0];
		s->pass[fd] = s->sandbox[fd];
		if (fcntl(s->ours[fd], F_SETFL, O_NONBLOCK) < 0)
			return jr_err_set(err, errno, "fcntl: %s",
					  strerror(errno));
		if (fd > 0)
			jr_ttyfilter_init(&s->filter[fd], !utf8);
	}
	return 0;
}

void jr_live_stdio_sent(struct jr_live_stdio *s)
{
	for (int fd = 0; fd < 3; fd++)
		if (s->sandbox[fd] >= 0) {
			close(s->sandbox[fd]);
			s->sandbox[fd] = -1;
		}
}

int jr_live_stdio_poll(const struct jr_live_stdio *s, struct pollfd *p)
{
	int n = 0;

	/* Input: the terminal is read only when the last read has gone
	 * into the pipe, so neither side is ever waited on. */
	if (s->ours[0] >= 0)
		p[n++] = s->in_len ? (struct pollfd){ .fd = s->ours[0],
						      .events = POLLOUT }
				   : (struct pollfd){ .fd = STDIN_FILENO,
						      .events = POLLIN };
	for (int fd = 1; fd < 3; fd++)
		if (s->ours[fd] >= 0)
			p[n++] = (struct pollfd){ .fd = s->ours[fd],
						  .events = POLLIN };
	return n;
}

/* Read what @fd's pipe holds, filtered to our @fd. Return: false at EOF. */
static bool relay_out(struct jr_live_stdio *s, int fd)
{
	uint8_t in[16384], out[JR_TTYFILTER_OUT_MAX(16384)];
	ssize_t n = read(s->ours[fd], in, sizeof(in));
	size_t kept;

	if (n < 0)
		return errno == EAGAIN || errno == EINTR;
	if (n == 0)
		return false;
	kept = jr_ttyfilter_feed(&s->filter[fd], in, (size_t)n, out);
	(void)jr_write_all(fd, out, kept); /* a gone terminal: nothing to do */
	return true;
}

static void close_ours(struct jr_live_stdio *s, int fd)
{
	close(s->ours[fd]);
	s->ours[fd] = -1;
}

/* The terminal -> the command's stdin pipe; @revents for either. */
static void relay_in(struct jr_live_stdio *s, int fd, short revents)
{
	ssize_t r;

	if (fd == STDIN_FILENO) {
		r = read(STDIN_FILENO, s->in, sizeof(s->in));
		if (r > 0)
			s->in_len = (size_t)r;
		else if (r == 0 || (errno != EINTR && errno != EAGAIN))
			close_ours(s, 0); /* EOF (^D): the command's too */
		return;
	}
	if (revents & POLLERR) {
		close_ours(s, 0); /* the command closed its stdin */
		return;
	}
	r = write(s->ours[0], s->in, s->in_len);
	if (r > 0) {
		memmove(s->in, s->in + r, s->in_len - (size_t)r);
		s->in_len -= (size_t)r;
	} else if (r < 0 && errno != EINTR && errno != EAGAIN) {
		close_ours(s, 0);
	}
}

void jr_live_stdio_pump(struct jr_live_stdio *s, const struct pollfd *p, int n)
{
	for (int i = 0; i < n; i++) {
		if (!p[i].revents)
			continue;
		if (p[i].fd == STDIN_FILENO || p[i].fd == s->ours[0]) {
			if (s->ours[0] >= 0)
				relay_in(s, p[i].fd, p[i].revents);
			continue;
		}
		for (int fd = 1; fd < 3; fd++)
			if (s->ours[fd] == p[i].fd && !relay_out(s, fd))
				close_ours(s, fd);
	}
}

void jr_live_stdio_finish(struct jr_live_stdio *s)
{
	for (int fd = 1; fd < 3; fd++)
		while (s->ours[fd] >= 0) {
			struct pollfd p = { .fd = s->ours[fd],
					    .events = POLLIN };

			/* Only what is there: a process the command left
			 * behind may hold the pipe open for long. */
			if (poll(&p, 1, 0) <= 0 || !relay_out(s, fd) ||
			    !(p.revents & POLLIN))
				close_ours(s, fd);
		}
	jr_live_stdio_sent(s);
	if (s->ours[0] >= 0)
		close_ours(s, 0);
}
