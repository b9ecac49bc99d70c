/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * fuzz.h - what every libFuzzer target here shares: the entry point's
 * prototype (-Wmissing-prototypes) and check(), an assertion that aborts
 * so libFuzzer records the input, also in builds where assert() is off.
 */
#ifndef JR_FUZZ_H
#define JR_FUZZ_H

#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

#define check(cond)                                                            \
	do {                                                                   \
		if (!(cond))                                                   \
			abort();                                               \
	} while (0)

#endif
