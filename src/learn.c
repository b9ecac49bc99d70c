// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * learn.c - --learn FILE: an --allow-file of what the run reached.
 *
 * Theory of operation
 *
 * A --learn run is a --net public run (every name passes the policy, the
 * SSRF guard still refuses), so the relay's own decisions are the record
 * of what the command needs. Every connection's audit record passes
 * through jr_audit_connection(), which already holds the audit's lock to
 * count it; it hands the record to jr_learn_record() there, on the relay
 * thread, and no second lock is taken. The table is read only after the
 * relay thread has been joined (main.c), so reading needs no lock either.
 *
 * A destination is "host:port" as the client asked for it, the host
 * folded the way the policy folds it (lowercase, no trailing dot), an
 * IPv6 literal in brackets: exactly an --allow entry. Lookups are
 * expected to be rare next to connections and distinct destinations few,
 * so the table is an array searched linearly, each string compared only
 * when its 64-bit hash matches; past JR_LEARN_MAX destinations more are
 * counted and said in the file, never grown without bound.
 *
 * The file is replaced atomically: a temporary sibling is created with
 * mkostemp(O_CLOEXEC) before the command starts (so an unwritable FILE is
 * a bad option, exit 125), written and fsync'ed at the end, then renamed
 * over FILE. A reader never sees half a file, and a run that never
 * started leaves FILE as it was. Each entry line is checked with the
 * policy's own parser before it is written: a destination the grammar
 * would refuse (an IPv4-mapped IPv6 literal, say) becomes a comment, so
 * the file always loads with --allow-file.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "cleanup.h"
#include "io.h"
#include "learn.h"
#include "policy.h"

int jr_learn_open(struct jr_learn *l, const char *path, struct jr_err *err)
{
	memset(l, 0, sizeof(*l));
	l->fd = -1;
	l->path = strdup(path);
	if (!l->path || asprintf(&l->tmp_path, "%s.XXXXXX", path) < 0) {
		l->tmp_path = NULL;
		jr_learn_release(l);
		return jr_err_set(err, ENOMEM, "out of memory");
	}
	l->fd = mkostemp(l->tmp_path, O_CLOEXEC);
	if (l->fd < 0) {
		int e = errno;

		free(l->tmp_path);
		l->tmp_path = NULL;
		jr_learn_release(l);
		return jr_err_set(
		    err, e, "--learn %s: cannot create a file beside it: %s",
		    path, strerror(e));
	}
	/* mkostemp(3) makes it 0600; the learned policy is no secret. */
	if (fchmod(l->fd, 0644) < 0) {
		int e = errno;

		jr_learn_release(l);
		return jr_err_set(err, e, "--learn %s: %s", path, strerror(e));
	}
	return 0;
}

static uint64_t fnv1a(const char *s)
{
	uint64_t h = 0xcbf29ce484222325ULL;

	for (; *s; s++)
		h = (h ^ (unsigned char)*s) * 0x100000001b3ULL;
	return h;
}

/* "host:port" as an --allow entry would say it; false if it does not fit. */
static bool dest_text(char *out, size_t size, const char *host, uint16_t port)
{
	char name[sizeof(((struct jr_learn_dest *)0)->dest)];
	int n;

	if (strlen(host) >= sizeof(name))
		return false;
	strcpy(name, host);
	jr_host_normalise(name);
	if (strchr(name, ':'))
		n = snprintf(out, size, "[%s]:%u", name, port);
	else
		n = snprintf(out, size, "%s:%u", name, port);
	return n > 0 && (size_t)n < size;
}

static struct jr_learn_dest *learn_find(struct jr_learn *l, const char *dest,
					uint64_t hash)
{
	struct jr_learn_dest *grown;

	for (size_t i = 0; i < l->n; i++)
		if (l->dests[i].hash == hash &&
		    strcmp(l->dests[i].dest, dest) == 0)
			return &l->dests[i];
	if (l->n == JR_LEARN_MAX) {
		l->n_dropped++;
		return NULL;
	}
	if (l->n == l->cap) {
		size_t cap = l->cap ? l->cap * 2 : 32;

		grown = realloc(l->dests, cap * sizeof(*grown));
		if (!grown) {
			l->oom = true;
			return NULL;
		}
		l->dests = grown;
		l->cap = cap;
	}
	memset(&l->dests[l->n], 0, sizeof(l->dests[l->n]));
	l->dests[l->n].hash = hash;
	strcpy(l->dests[l->n].dest, dest);
	return &l->dests[l->n++];
}

void jr_learn_record(struct jr_learn *l, const struct jr_audit_record *r)
{
	char dest[sizeof(((struct jr_learn_dest *)0)->dest)];
	struct jr_learn_dest *d;

	if (!l || !r->host || !r->port || !r->via || strcmp(r->via, "dns") == 0)
		return;
	if (!dest_text(dest, sizeof(dest), r->host, r->port))
		return;
	d = learn_find(l, dest, fnv1a(dest));
	if (!d)
		return;
	if (r->allowed) {
		d->allowed++;
		return;
	}
	if (!d->refused++)
		snprintf(d->refused_reason, sizeof(d->refused_reason), "%s",
			 r->reason ? r->reason : "refused");
}

static int dest_cmp(const void *a, const void *b)
{
	return strcmp(((const struct jr_learn_dest *)a)->dest,
		      ((const struct jr_learn_dest *)b)->dest);
}

/* Would --allow-file take @dest as an entry? */
static bool is_entry(const char *dest)
{
	struct jr_policy p;
	bool ok;

	jr_policy_init(&p);
	ok = jr_policy_add(&p, dest, NULL) == 0;
	jr_policy_free(&p);
	return ok;
}

static const char *plural(uint64_t n)
{
	return n == 1 ? "" : "s";
}

char *jr_learn_format(struct jr_learn *l)
{
	uint64_t reached = 0, refused = 0;
	char *text = NULL;
	size_t len = 0;
	FILE *b;

	if (l->n)
		qsort(l->dests, l->n, sizeof(*l->dests), dest_cmp);
	for (size_t i = 0; i < l->n; i++) {
		if (l->dests[i].allowed)
			reached++;
		else
			refused++;
	}
	b = open_memstream(&text, &len);
	if (!b)
		return NULL;
	fprintf(b,
		"# jailrun --learn: %llu destination%s reached, %llu "
		"only refused.\n"
		"# A starting point to review, then use with\n"
		"#   jailrun --net allowlist --allow-file FILE\n",
		(unsigned long long)reached, plural(reached),
		(unsigned long long)refused);
	if (l->n_dropped || l->oom)
		fprintf(b,
			"# INCOMPLETE: %llu connection%s to further "
			"destinations not recorded (at most %d kept)\n",
			(unsigned long long)l->n_dropped, plural(l->n_dropped),
			JR_LEARN_MAX);
	for (size_t i = 0; i < l->n; i++) {
		const struct jr_learn_dest *d = &l->dests[i];

		if (!d->allowed)
			continue;
		fprintf(b, "%s%s # %llu connection%s",
			is_entry(d->dest) ? "" : "# not an entry: ", d->dest,
			(unsigned long long)d->allowed, plural(d->allowed));
		if (d->refused)
			fprintf(b, ", %llu refused (%s)",
				(unsigned long long)d->refused,
				d->refused_reason);
		fprintf(b, "\n");
	}
	for (size_t i = 0; i < l->n; i++) {
		const struct jr_learn_dest *d = &l->dests[i];

		if (d->allowed)
			continue;
		fprintf(b, "# refused: %s # %llu connection%s, %s\n", d->dest,
			(unsigned long long)d->refused, plural(d->refused),
			d->refused_reason);
	}
	if (fclose(b) != 0) {
		free(text);
		return NULL;
	}
	return text;
}

int jr_learn_commit(struct jr_learn *l, struct jr_err *err)
{
	_cleanup_free_ char *text = jr_learn_format(l);
	int r;

	if (!text)
		return jr_err_set(err, ENOMEM, "--learn %s: out of memory",
				  l->path);
	r = jr_write_all(l->fd, text, strlen(text));
	if (r == 0 && fsync(l->fd) < 0)
		r = -errno;
	if (r == 0 && close(l->fd) < 0)
		r = -errno;
	l->fd = -1;
	if (r == 0 && rename(l->tmp_path, l->path) < 0)
		r = -errno;
	if (r < 0)
		return jr_err_set(err, -r, "--learn %s: cannot write it: %s",
				  l->path, strerror(-r));
	free(l->tmp_path);
	l->tmp_path = NULL;
	return 0;
}

void jr_learn_release(struct jr_learn *l)
{
	if (l->fd >= 0)
		close(l->fd);
	l->fd = -1;
	if (l->tmp_path)
		unlink(l->tmp_path);
	free(l->tmp_path);
	free(l->path);
	free(l->dests);
	l->tmp_path = l->path = NULL;
	l->dests = NULL;
	l->n = l->cap = 0;
}
