// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * nolandlock - run a program on a "kernel without Landlock": a seccomp
 * filter answers ENOSYS to landlock_create_ruleset(2), which is what a
 * kernel built without CONFIG_SECURITY_LANDLOCK answers. For
 * tests/integration/landlock.sh (--landlock require must fail cleanly).
 *
 *   nolandlock PROGRAM [ARGS...]
 */
#include <errno.h>
#include <stddef.h>
#include <stdio.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/syscall.h>
#include <unistd.h>
#include <linux/audit.h>
#include <linux/filter.h>
#include <linux/seccomp.h>

#ifndef SYS_landlock_create_ruleset
#define SYS_landlock_create_ruleset 444
#endif

int main(int argc, char **argv)
{
	struct sock_filter insns[] = {
		BPF_STMT(BPF_LD | BPF_W | BPF_ABS,
			 offsetof(struct seccomp_data, nr)),
		BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, SYS_landlock_create_ruleset,
			 0, 1),
		BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ERRNO | ENOSYS),
		BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ALLOW),
	};
	struct sock_fprog prog = { .len = sizeof(insns) / sizeof(insns[0]),
				   .filter = insns };

	if (argc < 2) {
		fprintf(stderr, "usage: nolandlock PROGRAM [ARGS...]\n");
		return 2;
	}
	/* Only the native ABI's number is matched: enough for a test that
	 * runs native programs. */
	if (prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) < 0 ||
	    prctl(PR_SET_SECCOMP, SECCOMP_MODE_FILTER, &prog) < 0) {
		fprintf(stderr, "nolandlock: cannot load the filter: %s\n",
			strerror(errno));
		return 2;
	}
	execvp(argv[1], argv + 1);
	fprintf(stderr, "nolandlock: %s: %s\n", argv[1], strerror(errno));
	return 127;
}
