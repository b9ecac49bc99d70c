/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * publish.h - published ports (--publish): the host-side listeners and the
 * socket factory in the relay netns that lets the runner connect to the
 * command over the veth.
 */
#ifndef JR_PUBLISH_H
#define JR_PUBLISH_H

#include <stddef.h>
#include <sys/types.h>

#include "err.h"
#include "lane.h"

/*
 * jr_publish_factory_start - fork the socket factory. Called by init while
 * it is in the relay netns (relaynet.c), so every socket the factory makes
 * belongs to the relay netns.
 * @fd: the runner's end: a SOCK_SEQPACKET socket (close-on-exec); write
 *      one byte, read one message with one byte (0, or an errno) and, on
 *      0, a TCP socket of the relay netns (SCM_RIGHTS, non-blocking).
 *      Its first message, sent at start, carries no fd and announces the
 *      factory; SO_PASSCRED is set on @fd, so that message tells the
 *      runner the factory's pid in the runner's pid namespace.
 * Return: 0 or -errno with @err set.
 */
int jr_publish_factory_start(int *fd, struct jr_err *err);

/*
 * jr_publish_factory_hello - the runner reads the factory's first message
 * (blocking, during setup) and learns its pid, so the watchdog knows the
 * one process of the sandbox that lives outside the worker netns.
 * Return: 0 and *@pid, or -errno with @err set.
 */
int jr_publish_factory_hello(int fd, pid_t *pid, struct jr_err *err);

/*
 * jr_publish_bind - bind and listen on every published host address
 * (runner's netns), before the command runs: a port in use is an error
 * (exit 125) that names the --publish.
 * @fds: l->n_publish listeners out, non-blocking, close-on-exec
 * Return: 0 or -errno with @err set (nothing left open).
 */
int jr_publish_bind(const struct jr_lanes *l, int *fds, struct jr_err *err);

#endif
