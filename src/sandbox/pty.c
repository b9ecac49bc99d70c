// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * pty.c - the sandbox's pseudo-terminal (see pty.h).
 *
 * Theory of operation: the runner opens the pair itself (posix_openpt, then
 * the slave with O_NOCTTY) and hands the slave fd to the sandbox; the
 * command makes it its controlling terminal with TIOCSCTTY after setsid().
 * Opening the slave in the runner, not by path inside the sandbox, works
 * whatever uid the command ends up with. The master is non-blocking: a
 * command that stops reading must not freeze the runner, so stdin bytes the
 * master will not take yet wait in a small buffer and stdin is not read
 * again until it drains. When the last slave fd closes, reading the master
 * fails with EIO: that is "the command's side is gone" (pty(7)).
 *
 * What the command writes reaches a real terminal, which acts on some
 * escape sequences outside the pane: the clipboard (OSC 52), the title,
 * notifications, files. Unless --raw-tty, output passes through
 * ttyfilter.c on its way, which drops those (jailrun(1), TERMINAL). The
 * filter is told whether the caller's locale is UTF-8, the best guess at
 * how the terminal decodes bytes 0x80-0x9f.
 *
 * The filter also follows the modes the output sets (ttymodes.c), with
 * --raw-tty too, and at exit the runner writes their resets to the
 * caller's terminal (jr_pty_reset_modes()): a command that dies in the
 * alternate screen, with the mouse or the kitty keyboard protocol on,
 * does not leave the caller's shell unusable.
 */

#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <termios.h>
#include <unistd.h>

#include "cleanup.h"
#include "io.h"
#include "log.h"
#include "pty.h"

void jr_pty_init(struct jr_pty *p)
{
	memset(p, 0, sizeof(*p));
	p->master = -1;
	p->slave = -1;
	p->out_fd = -1;
	p->tty_fd = -1;
}

int jr_pty_open(struct jr_pty *p, struct jr_err *err)
{
	_cleanup_close_ int master = -1, slave = -1;
	struct termios tio;
	char name[128];
	int fl;

	p->tty_fd = -1;
	for (int fd = 2; fd >= 0; fd--) {
		p->std_tty[fd] = isatty(fd) == 1;
		if (p->std_tty[fd])
			p->tty_fd = fd;
	}
	/* Output to a terminal gets a pty too, stdin or not: handed the
	 * caller's terminal itself, the command would write to it unfiltered
	 * and could read and reconfigure it. */
	if (p->tty_fd < 0)
		return 0;

	master = posix_openpt(O_RDWR | O_NOCTTY | O_CLOEXEC);
	if (master < 0)
		return jr_err_set(
		    err, errno,
		    "cannot allocate a pseudo-terminal: %s (is /dev/pts mounted?)",
		    strerror(errno));
	if (grantpt(master) < 0 || unlockpt(master) < 0 ||
	    ptsname_r(master, name, sizeof(name)) != 0)
		return jr_err_set(err, errno,
				  "cannot prepare the pseudo-terminal: %s",
				  strerror(errno));
	slave = open(name, O_RDWR | O_NOCTTY | O_CLOEXEC);
	if (slave < 0)
		return jr_err_set(err, errno, "cannot open %s: %s", name,
				  strerror(errno));
	if (tcgetattr(p->tty_fd, &tio) == 0) {
		/* Only a terminal on stdin is ever put in raw mode. */
		p->saved = tio;
		p->saved_valid = p->std_tty[0];
		/* The command's terminal starts as the caller's was. */
		tcsetattr(slave, TCSANOW, &tio);
	}
	fl = fcntl(master, F_GETFL);
	if (fl < 0 || fcntl(master, F_SETFL, fl | O_NONBLOCK) < 0)
		return jr_err_set(err, errno,
				  "fcntl on the pseudo-terminal: %s",
				  strerror(errno));
	p->out_fd = p->std_tty[1]   ? STDOUT_FILENO
		    : p->std_tty[2] ? STDERR_FILENO
				    : -1;
	/* The filter parses the output even with --raw-tty, for the modes
	 * to reset at exit; only its output is not used then. */
	p->tracking = p->out_fd >= 0;
	p->filtering = p->tracking && !p->raw_tty;
	if (p->tracking) {
		bool utf8 = jr_ttyfilter_locale_utf8(
		    getenv("LC_ALL"), getenv("LC_CTYPE"), getenv("LANG"));

		jr_ttyfilter_init(&p->filter, !utf8);
	}
	/*
	 * In the background (e.g. "jailrun ... &", or under timeout(1)),
	 * reading the terminal or changing its modes would stop us with
	 * SIGTTIN/SIGTTOU. The command still gets its own pty (the caller's
	 * terminal stays out of its reach), but no input is relayed and the
	 * terminal's modes are left alone. The same without a terminal on
	 * stdin: the command keeps the stdin it was given.
	 */
	p->foreground = p->std_tty[0] && tcgetpgrp(STDIN_FILENO) == getpgrp();
	if (!p->foreground) {
		p->in_eof = true;
		p->saved_valid = false;
	}
	p->master = steal_fd(&master);
	p->slave = steal_fd(&slave);
	jr_pty_sync_winsize(p);
	return 0;
}

void jr_pty_raw(struct jr_pty *p)
{
	struct termios raw;

	if (p->master < 0 || !p->saved_valid)
		return;
	raw = p->saved;
	cfmakeraw(&raw);
	/* Best effort: in the background tcsetattr stops us with SIGTTOU
	 * unless ignored; a failure only means no raw mode. */
	tcsetattr(STDIN_FILENO, TCSADRAIN, &raw);
}

void jr_pty_restore(struct jr_pty *p)
{
	if (p->master < 0 || !p->saved_valid)
		return;
	tcsetattr(STDIN_FILENO, TCSADRAIN, &p->saved);
	p->saved_valid = false;
}

void jr_pty_sync_winsize(struct jr_pty *p)
{
	struct winsize ws;

	if (p->master < 0)
		return;
	if (ioctl(p->tty_fd, TIOCGWINSZ, &ws) == 0)
		ioctl(p->master, TIOCSWINSZ, &ws);
}

int jr_pty_flush_in(struct jr_pty *p)
{
	while (p->in_off < p->in_len) {
		ssize_t n = write(p->master, p->inbuf + p->in_off,
				  p->in_len - p->in_off);

		if (n < 0) {
			if (errno == EINTR)
				continue;
			if (errno == EAGAIN)
				return 0;
			return -errno;
		}
		p->in_off += (size_t)n;
	}
	p->in_off = p->in_len = 0;
	return 0;
}

int jr_pty_pump_in(struct jr_pty *p)
{
	ssize_t n;

	if (p->in_len)
		return jr_pty_flush_in(p);
	do {
		n = read(STDIN_FILENO, p->inbuf, sizeof(p->inbuf));
	} while (n < 0 && errno == EINTR);
	if (n <= 0) {
		p->in_eof = true;
		return -EPIPE;
	}
	p->in_len = (size_t)n;
	p->in_off = 0;
	return jr_pty_flush_in(p);
}

int jr_pty_pump_out(struct jr_pty *p)
{
	uint8_t buf[16384], clean[JR_TTYFILTER_OUT_MAX(sizeof(buf))];
	const uint8_t *out = buf;
	size_t len;
	ssize_t n;

	do {
		n = read(p->master, buf, sizeof(buf));
	} while (n < 0 && errno == EINTR);
	if (n < 0) {
		if (errno == EAGAIN)
			return 0;
		return -EIO; /* EIO: no slave left */
	}
	if (n == 0)
		return -EIO;
	len = (size_t)n;
	if (p->tracking) {
		size_t kept = jr_ttyfilter_feed(&p->filter, buf, len, clean);

		if (p->filtering) {
			len = kept;
			out = clean;
		}
	}
	/* If our own output is gone, keep draining so the command never
	 * blocks on a full pty; the bytes have nowhere to go. */
	if (p->out_fd >= 0 && len && jr_write_all(p->out_fd, out, len) < 0)
		p->out_fd = -1;
	return (int)n;
}

void jr_pty_reset_modes(struct jr_pty *p)
{
	char reset[JR_TTYMODES_RESET_MAX];
	size_t n;

	if (!p->tracking || p->out_fd < 0 || isatty(p->out_fd) != 1)
		return;
	n = jr_ttymodes_reset(&p->filter.modes, reset);
	/* Best effort: a terminal that is gone needs no reset. */
	if (n && jr_write_all(p->out_fd, reset, n) < 0)
		p->out_fd = -1;
	jr_ttymodes_init(&p->filter.modes);
}

void jr_pty_close(struct jr_pty *p)
{
	char what[512];
	uint64_t n;

	jr_pty_reset_modes(p);
	jr_pty_restore(p);
	n = p->filtering ? jr_ttyfilter_describe(&p->filter, what, sizeof(what))
			 : 0;
	if (n) {
		jr_verbose("dropped %llu terminal sequences that act outside "
			   "the pane: %s (--raw-tty passes them)",
			   (unsigned long long)n, what);
		p->filtering = false;
	}
	if (p->slave >= 0)
		close(p->slave);
	if (p->master >= 0)
		close(p->master);
	p->slave = p->master = -1;
}
