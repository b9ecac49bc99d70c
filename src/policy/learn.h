/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * learn.h - --learn FILE: what a run reached, written at exit as an
 * --allow-file (policy.h's grammar) to review and feed back with
 * --net allowlist --allow-file FILE.
 *
 * The relay's audit records are the data (audit.c hands each connection
 * record to jr_learn_record() under the audit's own lock, so the table
 * needs no lock of its own); the main thread writes the file once the
 * relay thread has been joined.
 */
#ifndef JR_LEARN_H
#define JR_LEARN_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "audit.h"
#include "err.h"

/* Distinct destinations kept; more are counted in n_dropped. */
#define JR_LEARN_MAX 4096

struct jr_learn_dest {
	uint64_t hash;	/* of dest, compared before the string */
	char dest[280]; /* "name:port", "address:port", "[v6]:port" */
	uint64_t allowed, refused;
	char refused_reason[32]; /* the first refusal's reason */
};

struct jr_learn {
	char *path; /* the FILE to replace at the end */
	char *base; /* its last component */
	int dirfd;  /* its directory, O_PATH, pinned at start; -1: none */
	struct jr_learn_dest *dests;
	size_t n, cap;
	uint64_t n_dropped;
	bool oom;
};

/*
 * jr_learn_open - start learning: pin FILE's directory and check now that
 * a file can be made there, so that a FILE that cannot be written fails
 * before anything runs. Nothing is left in the directory: the command
 * never sees a file of ours there (learn.c says why).
 * @path: --learn FILE
 * Return: 0 or -errno with @err naming the file.
 */
int jr_learn_open(struct jr_learn *l, const char *path, struct jr_err *err);

/*
 * jr_learn_record - count one audit record: a connection (via proxy or
 * transparent) with a host and a port; others (DNS queries, bad
 * requests) are ignored. Not thread-safe: the caller serialises.
 */
void jr_learn_record(struct jr_learn *l, const struct jr_audit_record *r);

/*
 * jr_learn_format - the file's text (pure, for tests): a header comment,
 * then one entry per destination reached, sorted, each with its count as
 * a trailing comment; then each destination only refused, as a comment
 * with the reason. A destination that is not a valid --allow entry (an
 * address form the grammar refuses) is written as a comment too.
 * Return: malloc'd text, or NULL when out of memory.
 */
char *jr_learn_format(struct jr_learn *l);

/*
 * jr_learn_commit - write jr_learn_format() to a new temporary file in
 * FILE's pinned directory (created O_EXCL | O_NOFOLLOW now, once the
 * command is gone), fsync it and rename it over FILE (mode 0644, owned by
 * whoever runs jailrun).
 * Return: 0 or -errno with @err set; the temporary file is removed.
 */
int jr_learn_commit(struct jr_learn *l, struct jr_err *err);

/* Free everything (no file is left open or behind). */
void jr_learn_release(struct jr_learn *l);

#endif
