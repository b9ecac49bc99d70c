/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * exitcode.h - jailrun's exit status contract (see jailrun(1), EXIT STATUS).
 * The numbers follow timeout(1) and env(1) so shell scripts need no table.
 */
#ifndef JR_EXITCODE_H
#define JR_EXITCODE_H

#define JR_EXIT_TIMEOUT 124  /* --timeout expired, sandbox killed */
#define JR_EXIT_FAILURE 125  /* jailrun failed before the command ran */
#define JR_EXIT_NOEXEC 126   /* command found but could not be executed */
#define JR_EXIT_NOTFOUND 127 /* command not found */
#define JR_EXIT_SIGNAL_BASE 128

/* The exit code for a waitpid() status of the command: own code or 128+N. */
int jr_exit_code_from_wait_status(int status);

/* The exit code for a failed execve(): 127 for not found, else 126. */
int jr_exit_code_from_exec_errno(int err);

#endif
