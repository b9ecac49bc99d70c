/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * io.h - small I/O helpers shared by the runner's modules.
 */
#ifndef JR_IO_H
#define JR_IO_H

#include <stddef.h>
#include <sys/stat.h>
#include <sys/types.h>

#include "err.h"

/*
 * jr_write_all - write all of @buf to a blocking @fd, retrying on EINTR
 * and short writes. Return: 0 or -errno.
 */
int jr_write_all(int fd, const void *buf, size_t len);

/*
 * jr_close_all_but - close every descriptor of the calling task's table
 * above stdio except the @n in @keep (sorted in place). Only system calls
 * and code of its own: safe in the child of a multi-threaded fork.
 * Return: 0 or -errno.
 */
int jr_close_all_but(int *keep, size_t n);

/*
 * jr_recv_fds - one recvmsg(2) of at most @len bytes into @buf on
 * @sock with up to @max_fds descriptors (MSG_CMSG_CLOEXEC, plus @flags),
 * stored in @fds (unused slots -1) and counted in *@n_fds. A message or
 * descriptor list that did not fit (MSG_TRUNC, MSG_CTRUNC) is refused
 * and the descriptors that came with it closed: nothing half-received
 * is acted on, and nothing leaks.
 * Return: the bytes received (0 at EOF), -EMSGSIZE when truncated, or
 * -errno (-EAGAIN, -EINTR included).
 */
ssize_t jr_recv_fds(int sock, void *buf, size_t len, int flags, int *fds,
		    int max_fds, int *n_fds);

/*
 * jr_read_regular - read the regular file @path whole, at most @max bytes,
 * into a NUL-terminated *@text of *@len bytes (malloc'd; the caller frees
 * it), and its fstat(2) into *@st. A FIFO never hangs the open: it is
 * refused as not a regular file, as is anything larger than @max.
 * @label names the file in messages ("--env-file PATH", or the path).
 * Return: 0, or -errno with @err set ("LABEL: what is wrong").
 */
int jr_read_regular(const char *path, const char *label, size_t max,
		    char **text, size_t *len, struct stat *st,
		    struct jr_err *err);

#endif
