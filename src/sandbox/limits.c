// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * limits.c - resource limits: parsing, and the rlimits.
 *
 * Theory of operation: --rlimit NAME=N sets soft and hard limit to N in the
 * pre-exec child, just before the command is exec'd, so jailrun's own
 * processes (runner, init) keep theirs and the command cannot raise them
 * back. Raising a hard limit needs CAP_SYS_RESOURCE in the initial user
 * namespace (setrlimit(2)), which nothing in the sandbox has, not even
 * when root started jailrun; so a value above the current hard limit is
 * refused up front in the runner (jr_rlimits_check) with what to raise,
 * rather than failing half-way. --memory, --pids and --cpus only parse
 * here; cgroup.c applies them.
 *
 * RLIMIT_NPROC is not a limit on the sandbox: the kernel counts the
 * processes of the real uid (per user namespace since Linux 5.14, and
 * every namespace level up to the initial one is checked). Rootless, the
 * command's uid is the caller's, so the caller's other processes on the
 * host count against it; --pids is the limit on the sandbox itself.
 */

#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <sys/resource.h>

#include "limits.h"

static const struct {
	const char *name;
	int resource;
	bool size;	  /* takes k/m/g */
	const char *hint; /* how to raise the hard limit */
} rlimits[JR_RLIMIT_COUNT] = {
	[JR_RLIMIT_NOFILE] = { "nofile", RLIMIT_NOFILE, false,
			       "ulimit -Hn, or LimitNOFILE= in a systemd unit" },
	[JR_RLIMIT_NPROC] = { "nproc", RLIMIT_NPROC, false,
			      "ulimit -Hu, or LimitNPROC= in a systemd unit" },
	[JR_RLIMIT_AS] = { "as", RLIMIT_AS, true,
			   "ulimit -Hv, or LimitAS= in a systemd unit" },
	[JR_RLIMIT_FSIZE] = { "fsize", RLIMIT_FSIZE, true,
			      "ulimit -Hf, or LimitFSIZE= in a systemd unit" },
	[JR_RLIMIT_CPU] = { "cpu", RLIMIT_CPU, false,
			    "ulimit -Ht, or LimitCPU= in a systemd unit" },
	[JR_RLIMIT_CORE] = { "core", RLIMIT_CORE, true,
			     "ulimit -Hc, or LimitCORE= in a systemd unit" },
	[JR_RLIMIT_STACK] = { "stack", RLIMIT_STACK, true,
			      "ulimit -Hs, or LimitSTACK= in a systemd unit" },
};

const char *jr_rlimit_name(enum jr_rlimit_name r)
{
	return r < JR_RLIMIT_COUNT ? rlimits[r].name : "unknown";
}

bool jr_limits_need_cgroup(const struct jr_limits *l)
{
	return l->memory || l->pids || l->cpus_milli;
}

/* Decimal digits, optionally k/m/g when @size; no sign, no spaces, no
 * overflow. */
static int parse_amount(const char *s, bool size, uint64_t *out)
{
	uint64_t v = 0, mult = 1;
	const char *p = s;

	if (*p < '0' || *p > '9')
		return -EINVAL;
	for (; *p >= '0' && *p <= '9'; p++) {
		if (v > (UINT64_MAX - 9) / 10)
			return -EINVAL;
		v = v * 10 + (uint64_t)(*p - '0');
	}
	if (size && *p) {
		switch (*p) {
		case 'k':
		case 'K':
			mult = 1ULL << 10;
			break;
		case 'm':
		case 'M':
			mult = 1ULL << 20;
			break;
		case 'g':
		case 'G':
			mult = 1ULL << 30;
			break;
		default:
			return -EINVAL;
		}
		p++;
	}
	if (*p || v > (UINT64_MAX - 1) / mult)
		return -EINVAL;
	*out = v * mult;
	return 0;
}

int jr_limits_parse_rlimit(const char *arg, struct jr_limits *l,
			   struct jr_err *err)
{
	const char *eq = strchr(arg, '=');
	size_t nlen = eq ? (size_t)(eq - arg) : 0;
	int r = -1;

	if (!eq || !nlen)
		return jr_err_set(
		    err, EINVAL,
		    "--rlimit %s: expected NAME=VALUE (names: nofile, nproc, as, fsize, cpu, core, stack)",
		    arg);
	for (int i = 0; i < JR_RLIMIT_COUNT; i++)
		if (strlen(rlimits[i].name) == nlen &&
		    strncmp(arg, rlimits[i].name, nlen) == 0)
			r = i;
	if (r < 0)
		return jr_err_set(
		    err, EINVAL,
		    "--rlimit %s: unknown resource '%.*s' (known: nofile, nproc, as, fsize, cpu, core, stack)",
		    arg, (int)nlen, arg);
	if (strcmp(eq + 1, "unlimited") == 0) {
		l->rlimit[r] = JR_RLIMIT_UNLIMITED;
	} else if (parse_amount(eq + 1, rlimits[r].size, &l->rlimit[r]) < 0) {
		return jr_err_set(
		    err, EINVAL,
		    rlimits[r].size
			? "--rlimit %s: expected a number of bytes, optionally with k, m or g, or 'unlimited'"
			: "--rlimit %s: expected a whole number or 'unlimited'",
		    arg);
	}
	l->rlimit_set[r] = true;
	return 0;
}

int jr_limits_parse_memory(const char *arg, struct jr_limits *l,
			   struct jr_err *err)
{
	uint64_t v;

	if (parse_amount(arg, true, &v) < 0 || v < JR_MEMORY_MIN ||
	    v > (1ULL << 50))
		return jr_err_set(
		    err, EINVAL,
		    "--memory %s: expected bytes from 1m to 1048576g, optionally with k, m or g (e.g. 512m)",
		    arg);
	l->memory = v;
	return 0;
}

int jr_limits_parse_pids(const char *arg, struct jr_limits *l,
			 struct jr_err *err)
{
	uint64_t v;

	/* Init and the command count: fewer than 2 could not even start. */
	if (parse_amount(arg, false, &v) < 0 || v < 2 || v > JR_PIDS_MAX)
		return jr_err_set(
		    err, EINVAL,
		    "--pids %s: expected a number of processes from 2 to %llu (jailrun's init counts as one)",
		    arg, JR_PIDS_MAX);
	l->pids = v;
	return 0;
}

int jr_limits_parse_cpus(const char *arg, struct jr_limits *l,
			 struct jr_err *err)
{
	uint64_t whole = 0, frac = 0;
	int digits = 0;
	const char *p = arg;

	for (; *p >= '0' && *p <= '9' && whole <= JR_CPUS_MAX_MILLI; p++)
		whole = whole * 10 + (uint64_t)(*p - '0');
	if (p == arg && *p != '.')
		goto bad;
	if (*p == '.') {
		p++;
		if (*p < '0' || *p > '9')
			goto bad;
		for (; *p >= '0' && *p <= '9'; p++) {
			if (++digits > 2)
				goto bad;
			frac = frac * 10 + (uint64_t)(*p - '0');
		}
		for (int i = digits; i < 3; i++)
			frac *= 10;
	}
	if (*p || whole > JR_CPUS_MAX_MILLI / 1000)
		goto bad;
	/* The kernel's smallest quota is 1 ms per 100 ms period: 0.01. */
	l->cpus_milli = whole * 1000 + frac;
	if (l->cpus_milli < 10 || l->cpus_milli > JR_CPUS_MAX_MILLI)
		goto bad;
	return 0;
bad:
	l->cpus_milli = 0;
	return jr_err_set(
	    err, EINVAL,
	    "--cpus %s: expected a number of CPUs from 0.01 to 1024, at most 2 decimals (e.g. 0.5 or 2)",
	    arg);
}

static rlim_t to_rlim(uint64_t v)
{
	return v == JR_RLIMIT_UNLIMITED ? RLIM_INFINITY : (rlim_t)v;
}

static void format_rlim(rlim_t v, char *buf, size_t len)
{
	if (v == RLIM_INFINITY)
		snprintf(buf, len, "unlimited");
	else
		snprintf(buf, len, "%llu", (unsigned long long)v);
}

int jr_rlimits_check(const struct jr_limits *l, struct jr_err *err)
{
	for (int i = 0; i < JR_RLIMIT_COUNT; i++) {
		struct rlimit rl;
		char want[32], hard[32];

		if (!l->rlimit_set[i])
			continue;
		if (getrlimit(rlimits[i].resource, &rl) < 0)
			return jr_err_set(err, errno,
					  "--rlimit %s: getrlimit: %s",
					  rlimits[i].name, strerror(errno));
		if (rl.rlim_max == RLIM_INFINITY ||
		    (l->rlimit[i] != JR_RLIMIT_UNLIMITED &&
		     to_rlim(l->rlimit[i]) <= rl.rlim_max))
			continue;
		format_rlim(to_rlim(l->rlimit[i]), want, sizeof(want));
		format_rlim(rl.rlim_max, hard, sizeof(hard));
		return jr_err_set(
		    err, EPERM,
		    "--rlimit %s=%s: above the hard limit %s, which no process in the sandbox may raise; ask for at most %s, or raise the hard limit before starting jailrun (%s)",
		    rlimits[i].name, want, hard, hard, rlimits[i].hint);
	}
	return 0;
}

int jr_rlimits_apply(const struct jr_limits *l, struct jr_err *err)
{
	for (int i = 0; i < JR_RLIMIT_COUNT; i++) {
		struct rlimit rl;

		if (!l->rlimit_set[i])
			continue;
		rl.rlim_cur = rl.rlim_max = to_rlim(l->rlimit[i]);
		if (setrlimit(rlimits[i].resource, &rl) < 0)
			return jr_err_set(
			    err, errno,
			    "--rlimit %s: setrlimit failed: %s (is it above the hard limit, or nofile above fs.nr_open?)",
			    rlimits[i].name, strerror(errno));
		if (getrlimit(rlimits[i].resource, &rl) < 0 ||
		    rl.rlim_cur != to_rlim(l->rlimit[i]) ||
		    rl.rlim_max != to_rlim(l->rlimit[i]))
			return jr_err_set(err, EIO,
					  "--rlimit %s: did not read back",
					  rlimits[i].name);
	}
	return 0;
}
