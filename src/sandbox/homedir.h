/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * homedir.h - create a missing --rw/--tmpfs directory under the caller's
 * home (see homedir.c).
 */
#ifndef JR_HOMEDIR_H
#define JR_HOMEDIR_H

#include "err.h"

/*
 * jr_fs_make_home_dir - create @arg, the missing path of --@opt, with
 * every missing parent, when it lies below the caller's home: mode 0700,
 * owned by the home's owner, without following any symlink. Refused, with
 * a message saying "mkdir -p", when it is not below the home, when a
 * component is a symlink or not a directory, or when the caller is neither
 * root nor the home's owner.
 * Return: 0 (created, or it appeared meanwhile), 1 when @arg is not below
 * the home (nothing done, @err untouched), or -errno with @err set.
 */
int jr_fs_make_home_dir(const char *opt, const char *arg, struct jr_err *err);

#endif
