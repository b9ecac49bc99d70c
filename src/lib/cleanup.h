/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * cleanup.h - scope-bound ownership of resources.
 *
 * Every resource jailrun acquires is held in a variable declared with one of
 * the attributes below, so that each early "return -errno" on an error path
 * releases it. Ownership is handed on with steal_pointer()/steal_fd(), which
 * leave NULL/-1 behind so the cleanup becomes a no-op.
 */
#ifndef JR_CLEANUP_H
#define JR_CLEANUP_H

#include <dirent.h>
#include <errno.h>
#include <stdlib.h>
#include <unistd.h>

#define _cleanup_(f) __attribute__((cleanup(f)))

static inline void jr_freep(void *p)
{
	free(*(void **)p);
}

static inline void jr_closep(int *fd)
{
	if (*fd >= 0) {
		int saved = errno;

		close(*fd);
		errno = saved;
	}
}

#define _cleanup_free_ _cleanup_(jr_freep)
#define _cleanup_close_ _cleanup_(jr_closep)

#define steal_pointer(pp)                                                      \
	({                                                                     \
		__typeof__(*(pp)) _stolen = *(pp);                             \
		*(pp) = NULL;                                                  \
		_stolen;                                                       \
	})

#define steal_fd(fdp)                                                          \
	({                                                                     \
		int _stolen_fd = *(fdp);                                       \
		*(fdp) = -1;                                                   \
		_stolen_fd;                                                    \
	})

/* Define a cleanup function jr_<name>p for a type freed by free_fn(ptr). */
#define JR_DEFINE_CLEANUP(type, free_fn)                                       \
	static inline void free_fn##p(type **p)                                \
	{                                                                      \
		if (*p)                                                        \
			free_fn(*p);                                           \
	}

static inline void closedirp(DIR **d)
{
	if (*d)
		closedir(*d);
}

#define ARRAY_SIZE(a) (sizeof(a) / sizeof((a)[0]))

#endif
