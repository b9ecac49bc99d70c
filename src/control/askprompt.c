// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * askprompt.c - --ask tty, the runner's side (see askprompt.h).
 *
 * Theory of operation
 *
 * The relay thread owns the held requests (relay_ask.c). This module, on
 * the runner's main thread, is one more control client of it: the relay
 * takes one end of a socketpair as a client at start (relay_control.c)
 * and this end sends the same JSON lines as "jailrun ctl" (pending,
 * approve, deny), so a decision made here goes the one way every other
 * decision goes, audit line included. The relay writes an eventfd each
 * time the held set changes; on it, this module asks for "pending" and
 * prompts for the first (the oldest) request. One prompt at a time: when
 * a change shows the prompted request gone (decided on --control, timed
 * out, its client gone), it says "(decided elsewhere)" and moves on.
 *
 * The terminal is /dev/tty, opened at start with O_NOCTTY|O_CLOEXEC; it
 * is never the command's pty, and the command never has it. The key is
 * read with ICANON and ECHO off (VMIN 1), and the modes found are put
 * back after it: under a relayed pty the terminal is raw already. While
 * the prompt is up, supervise() neither reads stdin for the command nor
 * copies the command's output, so the key cannot reach the command and
 * the output cannot tear the prompt; the kernel keeps both waiting.
 *
 * The relay answers between two of its events, so the request and its
 * answer are a blocking exchange here, bounded by a poll timeout in case
 * the relay thread is gone.
 */
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <poll.h>
#include <stdio.h>
#include <string.h>
#include <sys/eventfd.h>
#include <sys/socket.h>
#include <unistd.h>

#include "askprompt.h"
#include "cleanup.h"
#include "io.h"
#include "log.h"

/* How long the relay may take to answer one line (it answers between two
 * of its events; this only bounds a relay that is gone). */
#define ASKPROMPT_ANSWER_MS 10000

void jr_askprompt_init(struct jr_askprompt *a)
{
	a->tty = a->notify = a->ctl = a->relay_ctl = -1;
	a->up = false;
	a->saved_valid = false;
}

int jr_askprompt_open(struct jr_askprompt *a, struct jr_err *err)
{
	_cleanup_close_ int tty = -1, ev = -1;
	int sv[2];

	tty = open("/dev/tty", O_RDWR | O_CLOEXEC | O_NOCTTY);
	if (tty < 0)
		return jr_err_set(err, errno,
				  "--ask tty: jailrun has no controlling "
				  "terminal (/dev/tty: %s): use --ask with "
				  "--control PATH",
				  strerror(errno));
	ev = eventfd(0, EFD_CLOEXEC | EFD_NONBLOCK);
	if (ev < 0)
		return jr_err_set(err, errno, "--ask tty: eventfd: %s",
				  strerror(errno));
	if (socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, sv) < 0)
		return jr_err_set(err, errno, "--ask tty: socketpair: %s",
				  strerror(errno));
	a->ctl = sv[0];
	a->relay_ctl = sv[1];
	a->tty = steal_fd(&tty);
	a->notify = steal_fd(&ev);
	return 0;
}

bool jr_askprompt_up(const struct jr_askprompt *a)
{
	return a->up;
}

/* Best effort: a terminal that went away takes no prompt. */
static void say(struct jr_askprompt *a, const char *text)
{
	if (jr_write_all(a->tty, text, strlen(text)) < 0)
		jr_debug("--ask tty: writing the terminal: %s",
			 strerror(errno));
}

/*
 * exchange() - send @req (one line) and read the relay's answer line into
 * a->ans. Return: the answer's length (no newline), or -errno.
 */
static ssize_t exchange(struct jr_askprompt *a, const char *req)
{
	size_t len = 0;
	char *nl;

	if (jr_write_all(a->ctl, req, strlen(req)) < 0)
		return -EPIPE;
	for (;;) {
		struct pollfd p = { .fd = a->ctl, .events = POLLIN };
		ssize_t n;
		int r = poll(&p, 1, ASKPROMPT_ANSWER_MS);

		if (r < 0 && errno == EINTR)
			continue;
		if (r <= 0)
			return -ETIMEDOUT;
		n = recv(a->ctl, a->ans + len, sizeof(a->ans) - 1 - len, 0);
		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0)
			return -EPIPE;
		len += (size_t)n;
		nl = memchr(a->ans, '\n', len);
		if (nl) {
			*nl = '\0';
			return nl - a->ans;
		}
		if (len == sizeof(a->ans) - 1)
			return -E2BIG;
	}
}

/* Show the prompt for @req: the terminal reads one key, unechoed. */
static void prompt_up(struct jr_askprompt *a,
		      const struct jr_askprompt_req *req)
{
	char text[JR_ASK_HOST_MAX + 160];
	struct termios t;

	if (!a->up) {
		a->saved_valid = tcgetattr(a->tty, &a->saved) == 0;
		if (a->saved_valid) {
			t = a->saved;
			t.c_lflag &= ~(tcflag_t)(ICANON | ECHO);
			t.c_cc[VMIN] = 1;
			t.c_cc[VTIME] = 0;
			if (tcsetattr(a->tty, TCSANOW, &t) < 0)
				jr_debug("--ask tty: terminal modes: %s",
					 strerror(errno));
		}
	}
	a->req = *req;
	a->up = true;
	jr_askprompt_format(req, text, sizeof(text));
	say(a, text);
}

/* Take the prompt down after @what was said; the modes go back. */
static void prompt_down(struct jr_askprompt *a, const char *what)
{
	say(a, what);
	say(a, "\r\n");
	if (a->saved_valid && tcsetattr(a->tty, TCSANOW, &a->saved) < 0)
		jr_debug("--ask tty: terminal modes: %s", strerror(errno));
	a->saved_valid = false;
	a->up = false;
}

void jr_askprompt_changed(struct jr_askprompt *a)
{
	struct jr_askprompt_req first;
	uint64_t n;
	ssize_t len;
	int r;

	if (a->notify < 0 || a->tty < 0)
		return;
	if (read(a->notify, &n, sizeof(n)) < 0 && errno != EAGAIN)
		return;
	/* In the background, reading the terminal would stop us (SIGTTIN):
	 * the request waits for --control or its timeout, and the next
	 * change looks again. */
	if (!a->up && tcgetpgrp(a->tty) != getpgrp()) {
		jr_debug("--ask tty: not the terminal's foreground job: not "
			 "asking");
		return;
	}
	len = exchange(a, "{\"op\":\"pending\"}\n");
	if (len < 0) {
		jr_debug("--ask tty: the relay did not answer: %s",
			 strerror((int)-len));
		return;
	}
	r = jr_askprompt_first(a->ans, (size_t)len, &first);
	if (r < 0) {
		jr_debug("--ask tty: unexpected answer: %s", a->ans);
		return;
	}
	if (a->up && r == 1 && first.id == a->req.id)
		return; /* still the one on the terminal */
	if (a->up)
		prompt_down(a, "(decided elsewhere)");
	if (r == 1)
		prompt_up(a, &first);
}

/* Send the decision @k for the prompted request. */
static void decide(struct jr_askprompt *a, enum jr_askprompt_key k)
{
	static const char *const said[] = {
		[JR_ASKPROMPT_ONCE] = "allowed once",
		[JR_ASKPROMPT_ALWAYS] = "allowed always",
		[JR_ASKPROMPT_DENY] = "denied",
	};
	char req[128];
	ssize_t len;

	snprintf(req, sizeof(req), "{\"op\":\"%s\",\"id\":\"%" PRIu64 "\"%s}\n",
		 k == JR_ASKPROMPT_DENY ? "deny" : "approve", a->req.id,
		 k == JR_ASKPROMPT_ALWAYS ? ",\"always\":true" : "");
	len = exchange(a, req);
	if (len >= 0 && strstr(a->ans, "\"ok\":true"))
		prompt_down(a, said[k]);
	else
		prompt_down(a, "(decided elsewhere)");
}

void jr_askprompt_key_ready(struct jr_askprompt *a)
{
	unsigned char c;
	enum jr_askprompt_key k;
	ssize_t n;
	char text[JR_ASK_HOST_MAX + 160];

	if (!a->up)
		return;
	do {
		n = read(a->tty, &c, 1);
	} while (n < 0 && errno == EINTR);
	if (n <= 0) {
		/* The terminal is gone: nobody can answer here any more;
		 * the request waits for --control or its timeout. */
		prompt_down(a, "");
		close(a->tty);
		a->tty = -1;
		return;
	}
	k = jr_askprompt_key(c);
	if (k == JR_ASKPROMPT_AGAIN) {
		jr_askprompt_format(&a->req, text, sizeof(text));
		say(a, text);
		return;
	}
	decide(a, k);
	/* The next held request, if any: our decision also wrote the
	 * eventfd, which only repeats this look. */
	jr_askprompt_changed(a);
}

void jr_askprompt_cancel(struct jr_askprompt *a, const char *why)
{
	if (a->up)
		prompt_down(a, why);
}

void jr_askprompt_close(struct jr_askprompt *a)
{
	jr_askprompt_cancel(a, "");
	if (a->tty >= 0)
		close(a->tty);
	if (a->notify >= 0)
		close(a->notify);
	if (a->ctl >= 0)
		close(a->ctl);
	if (a->relay_ctl >= 0)
		close(a->relay_ctl);
	jr_askprompt_init(a);
}
