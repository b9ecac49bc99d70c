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
 * The file is replaced atomically, and by the runner alone. FILE is often
 * in the working directory, which the command can write: a temporary file
 * made there before the command starts is the command's to replace (it
 * was: rm it, write an allowlist of its own under the same name, and the
 * rename put that in place of FILE). So nothing is made there while the
 * command runs. At start, FILE's directory is opened O_PATH and kept (the
 * command renaming directories about changes nothing), and a probe file is
 * created and removed at once (so an unwritable FILE is a bad option, exit
 * 125, before anything runs). At the end, with the sandbox gone, a new
 * temporary sibling is created O_CREAT | O_EXCL | O_NOFOLLOW under a
 * random name (whatever the command left behind, never a file or link of
 * its making), written and fsync'ed, then renamed over FILE: a reader
 * never sees half a file, a link the command put at FILE is replaced, not
 * followed, and a run that never started leaves FILE as it was. Each entry line is checked with the
 * policy's own parser before it is written: a destination the grammar
 * would refuse (an IPv4-mapped IPv6 literal, say) becomes a comment, so
 * the file always loads with --allow-file.
 */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/random.h>
#include <sys/stat.h>
#include <unistd.h>

#include "cleanup.h"
#include "io.h"
#include "learn.h"
#include "policy.h"

/* A name for FILE's temporary sibling: "FILE.XXXXXX", random. */
static int tmp_name(const struct jr_learn *l, char *out, size_t size)
{
	static const char set[] = "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOP"
				  "QRSTUVWXYZ0123456789";
	unsigned char rnd[8];
	char sfx[sizeof(rnd) + 1];
	int n;

	if (getrandom(rnd, sizeof(rnd), 0) != (ssize_t)sizeof(rnd))
		return -errno;
	for (size_t i = 0; i < sizeof(rnd); i++)
		sfx[i] = set[rnd[i] % (sizeof(set) - 1)];
	sfx[sizeof(rnd)] = '\0';
	n = snprintf(out, size, "%s.%s", l->base, sfx);
	return n > 0 && (size_t)n < size ? 0 : -ENAMETOOLONG;
}

/*
 * tmp_create() - create a new file beside FILE, never one that was there
 * (O_EXCL) and never through a link (O_NOFOLLOW), into @name.
 * Return: the descriptor, or -errno.
 */
static int tmp_create(const struct jr_learn *l, char *name, size_t size)
{
	for (int tries = 0; tries < 100; tries++) {
		int r = tmp_name(l, name, size), fd;

		if (r < 0)
			return r;
		fd = openat(l->dirfd, name,
			    O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW |
				O_CLOEXEC | O_NOCTTY,
			    0644);
		if (fd >= 0)
			return fd;
		if (errno != EEXIST)
			return -errno;
	}
	return -EEXIST;
}

int jr_learn_open(struct jr_learn *l, const char *path, struct jr_err *err)
{
	_cleanup_free_ char *dir = NULL;
	char name[PATH_MAX];
	const char *slash;
	struct stat st;
	int fd;

	memset(l, 0, sizeof(*l));
	l->dirfd = -1;
	slash = strrchr(path, '/');
	l->path = strdup(path);
	l->base = strdup(slash ? slash + 1 : path);
	dir = slash ? strndup(path, slash == path ? 1 : (size_t)(slash - path))
		    : strdup(".");
	if (!l->path || !l->base || !dir) {
		jr_learn_release(l);
		return jr_err_set(err, ENOMEM, "out of memory");
	}
	if (!l->base[0] || strcmp(l->base, ".") == 0 ||
	    strcmp(l->base, "..") == 0) {
		jr_learn_release(l);
		return jr_err_set(err, EISDIR,
				  "--learn %s: names a directory: name a file",
				  path);
	}
	l->dirfd = open(dir, O_PATH | O_DIRECTORY | O_CLOEXEC);
	if (l->dirfd < 0) {
		int e = errno;

		jr_learn_release(l);
		return jr_err_set(
		    err, e,
		    "--learn %s: cannot create a file beside it: %s: %s", path,
		    dir, strerror(e));
	}
	if (fstatat(l->dirfd, l->base, &st, AT_SYMLINK_NOFOLLOW) == 0 &&
	    S_ISDIR(st.st_mode)) {
		jr_learn_release(l);
		return jr_err_set(err, EISDIR,
				  "--learn %s: is a directory: name a file",
				  path);
	}
	/* Can a file be made beside FILE? Now, not after the run. */
	fd = tmp_create(l, name, sizeof(name));
	if (fd < 0) {
		jr_learn_release(l);
		return jr_err_set(
		    err, -fd, "--learn %s: cannot create a file beside it: %s",
		    path, strerror(-fd));
	}
	close(fd);
	if (unlinkat(l->dirfd, name, 0) < 0) {
		int e = errno;

		jr_learn_release(l);
		return jr_err_set(err, e, "--learn %s: cannot remove %s: %s",
				  path, name, strerror(e));
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
	char name[PATH_MAX];
	int fd, r = 0;

	if (!text)
		return jr_err_set(err, ENOMEM, "--learn %s: out of memory",
				  l->path);
	fd = tmp_create(l, name, sizeof(name));
	if (fd < 0)
		return jr_err_set(
		    err, -fd, "--learn %s: cannot create a file beside it: %s",
		    l->path, strerror(-fd));
	/* The mode asked for, whatever the umask: the policy is no secret. */
	if (fchmod(fd, 0644) < 0)
		r = -errno;
	if (r == 0)
		r = jr_write_all(fd, text, strlen(text));
	if (r == 0 && fsync(fd) < 0)
		r = -errno;
	if (close(fd) < 0 && r == 0)
		r = -errno;
	if (r == 0 && renameat(l->dirfd, name, l->dirfd, l->base) < 0)
		r = -errno;
	if (r < 0) {
		unlinkat(l->dirfd, name, 0);
		return jr_err_set(err, -r, "--learn %s: cannot write it: %s",
				  l->path, strerror(-r));
	}
	return 0;
}

void jr_learn_release(struct jr_learn *l)
{
	if (l->dirfd >= 0)
		close(l->dirfd);
	l->dirfd = -1;
	free(l->path);
	free(l->base);
	free(l->dests);
	l->path = l->base = NULL;
	l->dests = NULL;
	l->n = l->cap = 0;
}
