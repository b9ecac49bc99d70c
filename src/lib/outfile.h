/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * outfile.h - the files jailrun writes for its caller (--json, --log,
 * --learn), opened so that nobody else can choose what they are.
 *
 * jailrun often runs as root, and these paths are often in /tmp or in a
 * directory another user shares: a symbolic link or a file someone else
 * planted there must not make root write, or truncate, a file it was not
 * meant to (issue 21). See outfile.c.
 */
#ifndef JR_OUTFILE_H
#define JR_OUTFILE_H

#include <stdbool.h>
#include <sys/stat.h>
#include <sys/types.h>

#include "err.h"

/*
 * jr_outfile_std_fd - the descriptor of the runner's own that @path names
 * instead of a file: "-" is standard output, and so are "/dev/stdout",
 * "/dev/stderr" (2), "/dev/fd/N" and "/proc/self/fd/N" (N), which are
 * symbolic links into the runner's own descriptor table (made by the
 * kernel and root, never by another user). Pure.
 * Return: the descriptor, or -1 when @path names a file.
 */
int jr_outfile_std_fd(const char *path);

/*
 * jr_outfile_refusal - why an opened file may not be written by a caller
 * whose effective uid is @euid, or NULL when it may. Pure (tests).
 * @st: fstat(2) of the descriptor opened with O_NOFOLLOW
 *
 * Regular files and FIFOs must belong to @euid or to root (only root
 * could have made a root-owned one) and, when regular, have one name (a
 * hard link someone made elsewhere would be written through); character
 * devices (/dev/null, a terminal) can only have been made by root and
 * pass; anything else is refused.
 */
const char *jr_outfile_refusal(const struct stat *st, uid_t euid);

/*
 * jr_outfile_open - open @path for the runner to write.
 * @opt: the option, for messages ("--json")
 * @append: append (a log) instead of replacing the contents (a summary)
 *
 * A path jr_outfile_std_fd() names is that descriptor, duplicated
 * (O_CLOEXEC), and left as it is. Otherwise the file is opened, or
 * created mode @mode, with O_NOFOLLOW | O_CLOEXEC | O_NOCTTY, checked
 * with jr_outfile_refusal(), and only then truncated (unless @append).
 * Return: the descriptor, or -errno with @err saying what is wrong with
 * the path and what to do (a symbolic link: ELOOP; another user's file:
 * EPERM).
 */
int jr_outfile_open(const char *opt, const char *path, bool append, mode_t mode,
		    struct jr_err *err);

#endif
