/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * buf.h - growing a heap byte buffer, the one way jailrun does it.
 */
#ifndef JR_BUF_H
#define JR_BUF_H

#include <stddef.h>

/*
 * jr_buf_reserve - make the heap buffer *@buf of *@cap bytes hold at least
 * @need bytes.
 * @buf: the buffer (NULL when *@cap is 0); moved by realloc() if it grows
 * @cap: its size, updated
 * @need: bytes wanted in all
 * @first: the size of the first allocation
 * @limit: the most it may ever hold
 *
 * The size doubles from @first, so appending byte by byte costs amortised
 * O(1) copies, and is cut at @limit.
 * Return: 0; -E2BIG if @need exceeds @limit; -ENOMEM. On failure the
 * buffer and *@cap are unchanged.
 */
int jr_buf_reserve(char **buf, size_t *cap, size_t need, size_t first,
		   size_t limit);

#endif
