// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * seccomp_gen.c - build-time generator of seccomp_bpf.h: the command's
 * seccomp filter (seccomp.c) as BPF for each combination the runner may
 * need (seccomp_prebuilt.c), so that the runner copies a program instead
 * of building one with libseccomp on every start.
 *
 * Theory of operation: it runs seccomp.c's own libseccomp builder, the one
 * the runner falls back to, so the rules have one source. Two things of
 * the machine that builds must not leak into the programs:
 *  - the kernel's supported actions: libseccomp takes
 *    SECCOMP_RET_KILL_PROCESS and SECCOMP_RET_USER_NOTIF only once the
 *    kernel has said it has them, so the API level is set to 5 (Linux
 *    4.14's actions and 5.5's notification) and both kill actions are built
 *    on request (kill_thread); the runner asks its own kernel;
 *  - a by-name syscall that libseccomp does not know (fchmodat2 before
 *    2.5.5): at run time the row is left out only if that kernel lacks it
 *    too, which the build machine cannot tell, so build_time makes it an
 *    error here.
 * On any error the table is written empty (JR_SECCOMP_BPF_N 0) with a
 * warning, and the runner builds the filter at run time, as before.
 *
 * Usage: seccomp_gen > seccomp_bpf.h
 */

#include <errno.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <linux/seccomp.h>
#include <seccomp.h> /* libseccomp's */

#include "seccomp.h"

#define N_VARIANTS 8

static void write_program(size_t i, const struct sock_fprog *prog)
{
	printf("static const struct sock_filter jr_seccomp_bpf_%zu[%u] = {\n",
	       i, prog->len);
	for (unsigned k = 0; k < prog->len; k++) {
		const struct sock_filter *f = &prog->filter[k];

		printf("\t{ 0x%04x, %u, %u, 0x%08x },\n", f->code, f->jt, f->jf,
		       f->k);
	}
	printf("};\n\n");
}

int main(void)
{
	struct jr_seccomp_filter built[N_VARIANTS] = { 0 };
	struct jr_seccomp_options opts[N_VARIANTS] = { 0 };
	const struct scmp_version *v = seccomp_version();
	struct jr_err err = { 0 };
	size_t n = N_VARIANTS;
	int rc;

	rc = seccomp_api_set(5);
	for (size_t i = 0; rc == 0 && i < N_VARIANTS; i++) {
		opts[i] = (struct jr_seccomp_options){
			.allow_nested = i & 1,
			.unix_guard = i & 2,
			.kill_thread = i & 4,
			.build_time = true,
		};
		rc = jr_seccomp_build_libseccomp(&opts[i], &built[i], &err);
	}
	if (rc != 0) {
		fprintf(
		    stderr,
		    "seccomp_gen: warning: no prebuilt seccomp filter (%s); jailrun will build it at run time\n",
		    err.code ? err.msg : "seccomp_api_set(5) refused");
		n = 0;
	}
	printf(
	    "/* Generated at build time by seccomp_gen (src/guard/seccomp_gen.c)\n"
	    " * with libseccomp %u.%u.%u: do not edit. */\n\n",
	    v->major, v->minor, v->micro);
	for (size_t i = 0; i < n; i++)
		write_program(i, &built[i].prog);
	printf("#define JR_SECCOMP_BPF_N %zu\n\n", n);
	printf(
	    "static const struct jr_seccomp_prebuilt jr_seccomp_bpf[%zu] = {\n",
	    n ? n : 1);
	for (size_t i = 0; i < n; i++)
		printf(
		    "\t{ .allow_nested = %d, .unix_guard = %d, .kill_thread = %d,\n"
		    "\t  .len = %u, .insns = jr_seccomp_bpf_%zu },\n",
		    opts[i].allow_nested, opts[i].unix_guard,
		    opts[i].kill_thread, built[i].prog.len, i);
	if (!n)
		printf("\t{ .len = 0 },\n");
	printf("};\n");
	for (size_t i = 0; i < N_VARIANTS; i++)
		jr_seccomp_release(&built[i]);
	if (fflush(stdout) != 0 || ferror(stdout)) {
		perror("seccomp_gen: stdout");
		return 1;
	}
	return 0;
}
