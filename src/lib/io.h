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

#endif
