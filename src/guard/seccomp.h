/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * seccomp.h - the command's seccomp filter: built with libseccomp at build
 * time for every combination of options (seccomp_gen.c) and picked by the
 * runner (after the clone, while init sets up), or built at run time with
 * libseccomp where no prebuilt program fits; shipped to init in a sealed
 * memfd, loaded by the pre-exec child last before execve().
 */
#ifndef JR_SECCOMP_H
#define JR_SECCOMP_H

#include <stdbool.h>
#include <linux/filter.h>

#include "err.h"

struct jr_seccomp_options {
	bool allow_nested; /* --allow-nested: unshare/clone/setns of user and
			      net namespaces permitted */
	bool unix_guard;   /* connect/sendto/sendmsg/sendmmsg go to the
			      runner's supervisor (unixguard.c) */
	/* Build and test only: an ABI the filter does not know kills the
	 * thread (SECCOMP_RET_KILL_THREAD), as on a kernel without
	 * SECCOMP_RET_KILL_PROCESS; the runner sets it from its probe. */
	bool kill_thread;
	/* Build time (seccomp_gen): a by-name syscall libseccomp does not
	 * know fails the build, instead of being left out after asking the
	 * kernel of the machine that builds (resolve_by_name()). */
	bool build_time;
	/* Test only: libseccomp's default layout, a chain of tests, as the
	 * reference for the binary tree (set_layout() in seccomp.c). */
	bool linear;
};

struct jr_seccomp_filter {
	struct sock_fprog prog; /* points into a private buffer */
	bool notify;		/* has SECCOMP_RET_USER_NOTIF rules: load
				   with a listener */
};

/*
 * jr_seccomp_build - the filter for every ABI the kernel accepts on this
 * machine (x86_64: native, i386 via int 0x80, x32), as BPF: the prebuilt
 * program for @o and this kernel's answers (seccomp_prebuilt.c), or one
 * built now by jr_seccomp_build_libseccomp() where none fits.
 * Return: 0 or -errno with @err set.
 */
int jr_seccomp_build(const struct jr_seccomp_options *o,
		     struct jr_seccomp_filter *out, struct jr_err *err);

/*
 * jr_seccomp_build_libseccomp - build the filter with libseccomp now, and
 * export it as BPF. What seccomp_gen runs at build time, and the fallback.
 * Return: 0 or -errno with @err set.
 */
int jr_seccomp_build_libseccomp(const struct jr_seccomp_options *o,
				struct jr_seccomp_filter *out,
				struct jr_err *err);

/* One program of the build-time table (seccomp_bpf.h, made by
 * seccomp_gen). */
struct jr_seccomp_prebuilt {
	bool allow_nested, unix_guard, kill_thread;
	unsigned short len;
	const struct sock_filter *insns;
};

/*
 * jr_seccomp_prebuilt_find - the build-time program for @o (its
 * allow_nested, unix_guard and kill_thread), or NULL: none was built
 * (seccomp_gen's libseccomp could not make every row, see seccomp_gen.c).
 */
const struct jr_seccomp_prebuilt *
jr_seccomp_prebuilt_find(const struct jr_seccomp_options *o);

/* How many programs the build-time table holds (8, or 0). */
size_t jr_seccomp_prebuilt_count(void);

/*
 * jr_seccomp_load - install @f in the calling thread (after no_new_privs).
 * Async-signal-safe apart from error formatting: meant for the pre-exec
 * child. When @f->notify, *@listener receives the notification fd
 * (SECCOMP_FILTER_FLAG_NEW_LISTENER, O_CLOEXEC), else -1. The listener's
 * waits are SECCOMP_FILTER_FLAG_WAIT_KILLABLE_RECV where the kernel has it.
 * Return: 0; 1 when a listener was made without WAIT_KILLABLE_RECV (the
 * kernel refused it: a signal can restart a call the guard already ran);
 * or -errno with @err set.
 */
int jr_seccomp_load(const struct jr_seccomp_filter *f, int *listener,
		    struct jr_err *err);

/*
 * jr_seccomp_to_memfd - the BPF program of @f in a new memfd (O_CLOEXEC),
 * sealed against write, shrink, grow and further seals, for the ride to
 * init with GO (initproto.h): the runner builds the filter after the clone,
 * while init sets up, and init must load exactly what was built.
 * Return: the fd, or -errno with @err set.
 */
int jr_seccomp_to_memfd(const struct jr_seccomp_filter *f, struct jr_err *err);

/*
 * jr_seccomp_from_memfd - read the program of such a memfd into @out
 * (released with jr_seccomp_release()); @notify is GO's word on its
 * user-notification rules. Refused, -errno with @err set: a memfd without
 * the seals (the runner could still change it), a size that is not a
 * whole number of instructions, empty, or above BPF_MAXINSNS.
 */
int jr_seccomp_from_memfd(int fd, bool notify, struct jr_seccomp_filter *out,
			  struct jr_err *err);

void jr_seccomp_release(struct jr_seccomp_filter *f);

#endif
