/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * gitsweep.h - after the run, set aside the files the command created in a
 * writable repository's git directory that the host's git would follow
 * to run code (see gitsweep.c).
 */
#ifndef JR_GITSWEEP_H
#define JR_GITSWEEP_H

#include <stddef.h>

#include "fslayout.h"

struct jr_gitsweep_dir;

struct jr_gitsweep {
	struct jr_gitsweep_dir *dirs;
	size_t n;
};

/*
 * jr_gitsweep_arm - before the command runs: open (O_PATH, pinned) the git
 * directory of each writable root of @plan and note which watched names
 * exist in it. Nothing in the isolated layout is armed under --fs host.
 * Best effort: a directory that cannot be opened is not watched (-v says
 * so). Return: 0, or -ENOMEM.
 */
int jr_gitsweep_arm(struct jr_gitsweep *s, const struct jr_fs_plan *plan);

/*
 * jr_gitsweep_run - after the sandbox is gone: each watched name that did
 * not exist at arm time and exists now is renamed to NAME.jailrun-quarantine
 * (NAME.jailrun-quarantine.N if taken), with a warning naming it.
 * Return: how many were set aside.
 */
size_t jr_gitsweep_run(struct jr_gitsweep *s);

void jr_gitsweep_release(struct jr_gitsweep *s);

#endif
