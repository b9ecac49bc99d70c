/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * io.h - small I/O helpers shared by the runner's modules.
 */
#ifndef JR_IO_H
#define JR_IO_H

#include <stddef.h>

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

#endif
