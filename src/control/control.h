/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * control.h - the runner's side of the live policy socket: make the
 * --control PATH socket, take an inherited --control-fd, remove the
 * socket file at exit. The relay serves it (relay_control.c); `jailrun
 * ctl` talks to it (control_client.h).
 */
#ifndef JR_CONTROL_H
#define JR_CONTROL_H

#include "err.h"

/*
 * jr_control_listen - a listening unix stream socket at @path, mode 0600,
 * owned by the effective uid; verified with lstat() after bind. A stale
 * socket there (one nobody listens on any more: a jailrun that was
 * killed) is replaced; anything else at @path is an error.
 * Return: the fd (CLOEXEC), or -errno with @err naming @path.
 */
int jr_control_listen(const char *path, struct jr_err *err);

/*
 * jr_control_adopt_fd - check that @fd is a unix stream socket (listening
 * or connected) and make it close-on-exec, so the sandbox never gets it.
 * Return: 0 or -errno with @err naming the option.
 */
int jr_control_adopt_fd(int fd, struct jr_err *err);

/* Remove the socket file jr_control_listen() made, if it is still ours. */
void jr_control_unlink(const char *path);

#endif
