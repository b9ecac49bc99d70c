/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * mounts.h - the sandbox's mount namespace, set up by its PID 1.
 */
#ifndef JR_MOUNTS_H
#define JR_MOUNTS_H

#include "err.h"

/*
 * jr_mounts_setup - make every mount private (nothing propagates back to
 * the host), mount a fresh /proc for the new PID namespace, and make
 * /proc/sys read-only. Must run in the new mount and PID namespaces with
 * CAP_SYS_ADMIN over them.
 * Return: 0 or -errno with @err set.
 */
int jr_mounts_setup(struct jr_err *err);

#endif
