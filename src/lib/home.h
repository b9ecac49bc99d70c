/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * home.h - the caller's home: what "~" and "$HOME" in a configuration
 * file mean, and the tree below which a missing --rw directory may be
 * created. One definition, so the two can never disagree.
 */
#ifndef JR_HOME_H
#define JR_HOME_H

/*
 * jr_caller_home - $HOME, as a shell run by the same caller would expand
 * it, else the passwd entry of the real uid. Return: an absolute path
 * (getenv()'s or getpwuid()'s storage), or NULL when there is none.
 */
const char *jr_caller_home(void);

#endif
