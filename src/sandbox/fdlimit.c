// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * fdlimit.c - the runner's descriptor budget, said with numbers.
 *
 * Theory of operation: every relay connection holds its two sockets for
 * as long as it lives, and nothing more while idle (a pipe is taken only
 * while bytes sit in it, relay_tunnel.c), so --max-conns connections
 * need max_conns x 2 descriptors plus the runner's own. When the limit is
 * lower, start-up warns (main.c) and the relay answers 503 once it runs
 * out (relay_loop.c): both say the same numbers from here, so a user knows how
 * far to raise `ulimit -n`, or how far to lower --max-conns instead.
 * jr_fds_explain() is pure (unit-tested); jr_fds_explain_current() reads
 * the limit (getrlimit(2)) and calls it.
 */
#include <stdio.h>
#include <sys/resource.h>

#include "fdlimit.h"

unsigned long long jr_fds_needed(unsigned int max_conns)
{
	return (unsigned long long)max_conns * JR_FDS_PER_CONN + JR_FDS_RUNNER;
}

/* @n as text, "unlimited" for JR_FDS_UNLIMITED. */
static const char *limit_text(char *buf, size_t size, unsigned long long n)
{
	if (n == JR_FDS_UNLIMITED)
		snprintf(buf, size, "unlimited");
	else
		snprintf(buf, size, "%llu", n);
	return buf;
}

int jr_fds_explain(char *buf, size_t size, unsigned int max_conns,
		   unsigned long long soft, unsigned long long hard)
{
	unsigned long long need = jr_fds_needed(max_conns), fits = 0;
	char soft_s[24], hard_s[24], lower[64] = "";

	/* The --max-conns the soft limit holds, if lowering it would help. */
	if (soft > JR_FDS_RUNNER && soft != JR_FDS_UNLIMITED)
		fits = (soft - JR_FDS_RUNNER) / JR_FDS_PER_CONN;
	if (fits && fits < max_conns)
		snprintf(lower, sizeof(lower), " or lower --max-conns to %llu",
			 fits);
	return snprintf(
	    buf, size,
	    "--max-conns %u needs %llu descriptors (%d per connection, an idle tunnel too, + %d for the runner); the limit is %s (hard %s): raise it (ulimit -n %llu, or LimitNOFILE=%llu in a systemd unit)%s",
	    max_conns, need, JR_FDS_PER_CONN, JR_FDS_RUNNER,
	    limit_text(soft_s, sizeof(soft_s), soft),
	    limit_text(hard_s, sizeof(hard_s), hard), need, need, lower);
}

int jr_fds_explain_current(char *buf, size_t size, unsigned int max_conns)
{
	struct rlimit rl;

	if (getrlimit(RLIMIT_NOFILE, &rl) < 0) {
		if (size)
			buf[0] = '\0';
		return 0;
	}
	return jr_fds_explain(
	    buf, size, max_conns,
	    rl.rlim_cur == RLIM_INFINITY ? JR_FDS_UNLIMITED : rl.rlim_cur,
	    rl.rlim_max == RLIM_INFINITY ? JR_FDS_UNLIMITED : rl.rlim_max);
}
