/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * privs.h - stripping the command of every privilege before execve().
 */
#ifndef JR_PRIVS_H
#define JR_PRIVS_H

#include "err.h"
#include "ids.h"

/*
 * jr_privs_drop - become @ids and hold no capability, for good.
 *
 * Locks the securebits (so exec as uid 0 grants nothing and setuid changes
 * never re-grant), switches groups/gid/uid, empties the bounding, ambient,
 * inheritable, permitted and effective sets, sets no_new_privs, and then
 * reads every one of these back: a sandbox whose privileges cannot be
 * verified as dropped never runs the command.
 * Return: 0 or -errno with @err set.
 */
int jr_privs_drop(const struct jr_ids *ids, struct jr_err *err);

#endif
