// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * buf.c - growing heap byte buffers (see buf.h).
 *
 * Theory of operation: the relay's per-connection buffers and the JSON
 * writer append to byte buffers whose final size is unknown. Doubling keeps
 * the number of reallocations logarithmic in the final size; a limit keeps
 * what a peer can make jailrun allocate bounded (the relay's head and
 * ClientHello limits).
 */
#include <errno.h>
#include <stdlib.h>

#include "buf.h"

int jr_buf_reserve(char **buf, size_t *cap, size_t need, size_t first,
		   size_t limit)
{
	size_t size = *cap ? *cap : first ? first : 1;
	char *grown;

	if (need <= *cap)
		return 0;
	if (need > limit)
		return -E2BIG;
	while (size < need)
		size = size > limit / 2 ? limit : size * 2;
	if (size > limit)
		size = limit;
	grown = realloc(*buf, size);
	if (!grown)
		return -ENOMEM;
	*buf = grown;
	*cap = size;
	return 0;
}
