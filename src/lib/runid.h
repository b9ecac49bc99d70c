/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * runid.h - the run id: one random name per jailrun run, in the --json
 * summary ("run_id") and on every audit line, so that a rig can tell its
 * runs apart and split a log that several runs share.
 */
#ifndef JR_RUNID_H
#define JR_RUNID_H

#include <stdint.h>

#include "err.h"

#define JR_RUN_ID_BYTES 16 /* 128 bits: no two runs ever share one */
#define JR_RUN_ID_SIZE (2 * JR_RUN_ID_BYTES + 1) /* hex and NUL */

/*
 * jr_run_id_format - @bytes as lower-case hex into @out. Pure (tests).
 */
void jr_run_id_format(const uint8_t bytes[JR_RUN_ID_BYTES],
		      char out[JR_RUN_ID_SIZE]);

/*
 * jr_run_id_new - a fresh run id from getrandom(2) into @out.
 * Return: 0, or -errno with @err set (no randomness: the kernel has none
 * to give, which no supported kernel does after boot).
 */
int jr_run_id_new(char out[JR_RUN_ID_SIZE], struct jr_err *err);

#endif
