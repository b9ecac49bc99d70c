/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * check.h - "jailrun --check": can this host, as this user, run sandboxes?
 */
#ifndef JR_CHECK_H
#define JR_CHECK_H

/*
 * jr_check_run - try each kernel feature jailrun needs, each in a throwaway
 * child process, and print one line per item with ok/FAIL and the fix.
 * Return: 0 if every item passed, 1 otherwise (the exit status).
 */
int jr_check_run(void);

#endif
