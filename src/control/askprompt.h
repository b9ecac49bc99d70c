/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * askprompt.h - --ask tty: the runner asks on its controlling terminal
 * about each request the relay holds (jailrun(1), Per-request approval).
 *
 * The runner's main loop (sandbox.c, supervise()) polls the two fds this
 * module gives it and calls back; while a prompt is up it stops relaying
 * the command's pty both ways, so the key reaches jailrun, not the
 * command, and the command's output waits in the pty.
 */
#ifndef JR_ASKPROMPT_H
#define JR_ASKPROMPT_H

#include <stdbool.h>
#include <stdint.h>
#include <termios.h>

#include "askprompt_text.h"
#include "err.h"

/* The longest answer line read from the relay ("pending" with the whole
 * table is far shorter). */
#define JR_ASKPROMPT_ANSWER_MAX 65536

struct jr_askprompt {
	int tty;       /* /dev/tty; -1: --ask tty is off */
	int notify;    /* eventfd the relay writes on each change */
	int ctl;       /* our end of the control socketpair */
	int relay_ctl; /* the relay's end, until jr_relay_start() takes it */
	bool up;       /* a prompt is on the terminal */
	struct jr_askprompt_req req; /* the request it is about */
	bool saved_valid;
	struct termios saved; /* the terminal's modes before the prompt */
	char ans[JR_ASKPROMPT_ANSWER_MAX];
};

/* Initialise @a as "off". */
void jr_askprompt_init(struct jr_askprompt *a);

/*
 * jr_askprompt_open - --ask tty: open the controlling terminal (never
 * handed to the sandbox: O_CLOEXEC, and init closes it), the eventfd and
 * the socketpair whose other end (a->relay_ctl) the relay takes.
 * Return: 0 or -errno with @err set (no controlling terminal: say how to
 * ask instead).
 */
int jr_askprompt_open(struct jr_askprompt *a, struct jr_err *err);

/* The prompt is up: the pty's relay waits. */
bool jr_askprompt_up(const struct jr_askprompt *a);

/* a->notify is readable: look at what is held, prompt for the oldest. */
void jr_askprompt_changed(struct jr_askprompt *a);

/* a->tty is readable while the prompt is up: take the key. */
void jr_askprompt_key_ready(struct jr_askprompt *a);

/* Take down a prompt that is up (the command has ended), saying @why. */
void jr_askprompt_cancel(struct jr_askprompt *a, const char *why);

/* Close everything (after the relay has stopped). */
void jr_askprompt_close(struct jr_askprompt *a);

#endif
