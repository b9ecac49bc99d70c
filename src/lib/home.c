// SPDX-License-Identifier: GPL-2.0-or-later
/* home.c - the caller's home (see home.h). */
#include <pwd.h>
#include <stdlib.h>
#include <unistd.h>

#include "home.h"

const char *jr_caller_home(void)
{
	const char *home = getenv("HOME");
	struct passwd *pw;

	if (!home || home[0] != '/') {
		pw = getpwuid(getuid());
		home = pw ? pw->pw_dir : NULL;
	}
	return home && home[0] == '/' ? home : NULL;
}
