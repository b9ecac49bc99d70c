/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * managed.h - the administrator's managed policy (JR_POLICY_FILE,
 * /etc/jailrun/policy.conf): deny entries no configuration or option can
 * loosen, and require lines that pin an option to a set of values.
 */
#ifndef JR_MANAGED_H
#define JR_MANAGED_H

#include <stdbool.h>
#include <stddef.h>

#include "err.h"
#include "policy.h"

/* "require OPTION VALUE[|VALUE...]" */
struct jr_managed_require {
	const char *option; /* the long option's name (getopt table's) */
	char **values;	    /* point into split_owner */
	size_t n_values;
	char *split_owner;
	char *text;   /* "VALUE|VALUE", as written */
	char *origin; /* "file:line" */
};

struct jr_managed {
	bool present;	       /* a policy file was read */
	struct jr_policy deny; /* deny entries, the --allow grammar */
	char **deny_origin;    /* per deny entry, "file:line" */
	struct jr_managed_require *req;
	size_t n_req;
};

void jr_managed_init(struct jr_managed *m);
void jr_managed_release(struct jr_managed *m);

/*
 * jr_managed_load - read the managed policy at @path. Absent: no policy,
 * 0. Present, it must be a regular file owned by root and not writable by
 * group or others, in a directory that is the same; otherwise (or if it
 * cannot be read) the refusal says why: running without the policy would
 * be a silently wider one.
 * Return: 0 or -errno with @err set.
 */
int jr_managed_load(struct jr_managed *m, const char *path, struct jr_err *err);

/*
 * jr_managed_parse_text - the policy's lines (pure; the fuzzer's entry):
 * '#' comments, blank lines, "deny ENTRY", "require OPTION VALUES".
 * Return: 0 or -EINVAL with "name:line: what is wrong".
 */
int jr_managed_parse_text(struct jr_managed *m, const char *name,
			  const char *text, size_t len, struct jr_err *err);

/*
 * jr_allow_entries_overlap - could one destination match both? Names
 * against names, address ranges against address ranges, ports equal or
 * either any. A name and an address never overlap here: the relay's
 * decision-time check covers what resolution brings (policy.h deny).
 */
bool jr_allow_entries_overlap(const struct jr_allow_entry *a,
			      const struct jr_allow_entry *b);

/*
 * jr_managed_check_entry - the hook for every allow entry, also those
 * added while a sandbox runs: refused when a managed deny overlaps it.
 * @what: how the entry is named in the message ("--allow x (file:3)")
 * Return: 0 or -EPERM with both entries named.
 */
int jr_managed_check_entry(const struct jr_managed *m,
			   const struct jr_allow_entry *a, const char *what,
			   struct jr_err *err);

/*
 * jr_managed_check_address - the hook for a destination the relay never
 * asks the policy about (a host lane, --lane ADDR:PORT): refused when a
 * managed deny matches @sa on @port, as it would at decision time.
 * @what: how the destination is named in the message
 * Return: 0 or -EPERM with the destination and the deny named.
 */
int jr_managed_check_address(const struct jr_managed *m,
			     const struct sockaddr *sa, uint16_t port,
			     const char *what, struct jr_err *err);

#endif
