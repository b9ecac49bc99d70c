/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * pty.h - a pseudo-terminal of the sandbox's own, relayed by the runner.
 *
 * When any of jailrun's standard streams is a terminal, the command must
 * not get that terminal: with it, TIOCSTI could push keystrokes into the
 * caller's shell, and its output would reach the terminal unfiltered. It
 * gets a new pty in place of each stream that is a terminal instead; the
 * runner copies bytes both ways (input only when stdin is the terminal),
 * puts the real terminal in raw mode (the pty's own line discipline does
 * the cooking) and passes window-size changes on.
 */
#ifndef JR_PTY_H
#define JR_PTY_H

#include <stdbool.h>
#include <stddef.h>
#include <termios.h>

#include "err.h"
#include "ttyfilter.h"

struct jr_pty {
	int master;	 /* -1: no pty in use */
	int slave;	 /* given to the sandbox; the runner closes its copy */
	bool std_tty[3]; /* which of our fds 0,1,2 are terminals */
	int tty_fd;	 /* the first of them: modes and window size */
	int out_fd;	 /* where the command's terminal output goes, or -1 */
	bool saved_valid;
	struct termios saved; /* the caller's terminal, restored at exit */
	bool foreground;      /* we own the terminal: relay input, raw mode */
	bool in_eof;
	char inbuf[4096]; /* stdin bytes not yet accepted by the master */
	size_t in_len, in_off;
	bool raw_tty;		    /* --raw-tty: relay output unfiltered */
	bool tracking;		    /* @filter follows the output's modes */
	bool filtering;		    /* output goes through @filter */
	struct jr_ttyfilter filter; /* drops what acts outside the pane */
};

/* Initialise @p as "no pty". */
void jr_pty_init(struct jr_pty *p);

/*
 * jr_pty_open - if stdin, stdout or stderr is a terminal, allocate a pty
 * whose slave copies its settings and window size. Does nothing otherwise
 * (p->master == -1).
 * Return: 0 or -errno with @err set.
 */
int jr_pty_open(struct jr_pty *p, struct jr_err *err);

/* Put the caller's terminal in raw mode (best effort; restored later). */
void jr_pty_raw(struct jr_pty *p);

/* Restore the caller's terminal settings. Idempotent. */
void jr_pty_restore(struct jr_pty *p);

/* Copy the caller's window size to the pty (on SIGWINCH). */
void jr_pty_sync_winsize(struct jr_pty *p);

/* Move bytes stdin -> pty. Return: 0, or -EPIPE at stdin EOF. */
int jr_pty_pump_in(struct jr_pty *p);

/* Move queued stdin bytes into the master (when it is writable). */
int jr_pty_flush_in(struct jr_pty *p);

/*
 * Move bytes pty -> out_fd, through the terminal filter unless raw_tty
 * (see ttyfilter.h). Return: >0 bytes moved, 0 nothing available
 * (EAGAIN), -EIO once every slave fd is closed (the command is gone).
 */
int jr_pty_pump_out(struct jr_pty *p);

/*
 * jr_pty_reset_modes - write to the caller's terminal the resets of the
 * modes the command's output left set (alternate screen, mouse, hidden
 * cursor, charset, keyboard protocol: ttymodes.h), if it is a terminal.
 * Call once the command's last output is relayed. Idempotent.
 */
void jr_pty_reset_modes(struct jr_pty *p);

/* Close everything (resetting the modes first); under -v, say what the
 * filter dropped. */
void jr_pty_close(struct jr_pty *p);

#endif
