// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * fdcheck - run inside the sandbox by the tests: lists every open file
 * descriptor other than 0, 1 and 2 (with what it points to) and exits 1 if
 * there is any, 0 if none. Proves no fd of the runner leaks into the command.
 */
#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

int main(void)
{
	DIR *d = opendir("/proc/self/fd");
	struct dirent *de;
	int leaked = 0;

	if (!d) {
		perror("fdcheck: /proc/self/fd");
		return 2;
	}
	while ((de = readdir(d))) {
		char path[64], target[256];
		ssize_t n;
		int fd;

		if (de->d_name[0] == '.')
			continue;
		fd = atoi(de->d_name);
		if (fd <= 2 || fd == dirfd(d))
			continue;
		snprintf(path, sizeof(path), "/proc/self/fd/%d", fd);
		n = readlink(path, target, sizeof(target) - 1);
		target[n > 0 ? n : 0] = '\0';
		printf("leaked fd %d -> %s\n", fd, target);
		leaked++;
	}
	closedir(d);
	if (!leaked)
		printf("fdcheck: only 0, 1, 2 open\n");
	return leaked ? 1 : 0;
}
