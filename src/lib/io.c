// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * io.c - see io.h.
 */
#include <errno.h>
#include <unistd.h>

#include "io.h"

int jr_write_all(int fd, const void *buf, size_t len)
{
	const char *p = buf;

	while (len) {
		ssize_t n = write(fd, p, len);

		if (n < 0) {
			if (errno == EINTR)
				continue;
			return -errno;
		}
		p += n;
		len -= (size_t)n;
	}
	return 0;
}

int jr_close_all_but(int *keep, size_t n)
{
	unsigned from = STDERR_FILENO + 1;

	/* An insertion sort: a handful of numbers, and no qsort(), which
	 * may allocate, after a fork. */
	for (size_t i = 1; i < n; i++)
		for (size_t j = i; j > 0 && keep[j - 1] > keep[j]; j--) {
			int t = keep[j];

			keep[j] = keep[j - 1];
			keep[j - 1] = t;
		}
	for (size_t i = 0; i < n; i++) {
		if (keep[i] < 0 || (unsigned)keep[i] < from)
			continue;
		if ((unsigned)keep[i] > from &&
		    close_range(from, (unsigned)keep[i] - 1, 0) < 0)
			return -errno;
		from = (unsigned)keep[i] + 1;
	}
	return close_range(from, ~0U, 0) < 0 ? -errno : 0;
}
