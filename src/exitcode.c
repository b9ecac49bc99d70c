// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * exitcode.c - mapping how the command ended to jailrun's exit status.
 */

#include <errno.h>
#include <sys/wait.h>

#include "exitcode.h"

int jr_exit_code_from_wait_status(int status)
{
	if (WIFEXITED(status))
		return WEXITSTATUS(status);
	if (WIFSIGNALED(status))
		return JR_EXIT_SIGNAL_BASE + WTERMSIG(status);
	/* Stopped/continued are never final; treat as our own failure. */
	return JR_EXIT_FAILURE;
}

int jr_exit_code_from_exec_errno(int err)
{
	/*
	 * Like the shells (POSIX XCU 2.8.2): "not found" is 127. ENOTDIR
	 * means a path component is not a directory: also not found.
	 */
	if (err == ENOENT || err == ENOTDIR)
		return JR_EXIT_NOTFOUND;
	return JR_EXIT_NOEXEC;
}
