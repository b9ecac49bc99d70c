// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * resolver.c - a small getaddrinfo(3) thread pool (see resolver.h).
 *
 * Theory of operation: one mutex guards a bounded job queue and a bounded
 * result queue; workers sleep on a condition variable. Posting a result
 * writes the eventfd, which the relay polls. The structure is reference
 * counted (the relay plus each worker) so that stopping never joins a
 * worker stuck in a slow lookup: stop marks the pool closed, wakes idle
 * workers, drops the relay's reference and returns; every worker drops
 * its reference on the way out and the last one frees. Worker threads are
 * detached for the same reason.
 *
 * Workers are started on demand, up to the pool's size, when a job finds
 * no idle worker: a run that never looks a name up starts none. Starting
 * them all up front put thread creations on the path to the command's
 * start (each one a chance for the runner to lose its CPU on a busy
 * machine) and made the runner wait for them to leave at the end.
 *
 * Successful answers are cached for a few seconds (JR_RESOLVER_CACHE_MS),
 * keyed by name and family: a hit is posted straight to the result queue,
 * so the relay sees one path whether or not a thread ran.
 *
 * Lookups use AI_ADDRCONFIG off (the runner's netns decides what is
 * reachable, not which families have addresses) and SOCK_STREAM to get one
 * entry per address.
 */
#include <errno.h>
#include <netdb.h>
#include <pthread.h>
#include <signal.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>
#include <sys/eventfd.h>
#include <time.h>
#include <unistd.h>

#include "clock.h"
#include "host.h"
#include "resolver.h"

#define JR_RESOLVER_QUEUE 1024
/* Cache slots; JR_RESOLVER_CACHE_MS (resolver.h) says for how long. Only
 * successful lookups are kept. */
#define JR_RESOLVER_CACHE 128
#define JR_RESOLVER_STOP_WAIT_MS 200

struct job {
	uint64_t tag;
	int family;
	char host[JR_HOST_MAX + 1];
};

struct cache_entry {
	bool used;
	int family;
	uint64_t expires_ms;
	char host[JR_HOST_MAX + 1];
	struct jr_resolve_result res;
};

struct jr_resolver {
	pthread_mutex_t lock;
	pthread_cond_t wake;
	pthread_cond_t gone; /* a worker dropped its reference */
	int efd;
	bool closed;
	unsigned int refs;
	/* Workers: the cap, how many were started, how many wait for a job. */
	unsigned int max_threads, n_threads, idle;
	struct job jobs[JR_RESOLVER_QUEUE];
	size_t job_head, job_count;
	struct jr_resolve_result *results; /* ring of JR_RESOLVER_QUEUE */
	size_t res_head, res_count;
	struct cache_entry *cache; /* JR_RESOLVER_CACHE entries */
	uint64_t (*now_ms)(void);  /* jr_clock_ms, or a test's clock */
	struct jr_resolver_stats stats;
};

/* Queue @res for the relay and wake it. Called with the lock held. */
static void post_locked(struct jr_resolver *r,
			const struct jr_resolve_result *res)
{
	uint64_t one = 1;

	if (r->res_count == JR_RESOLVER_QUEUE)
		return; /* the relay gives up on it at its deadline */
	r->results[(r->res_head + r->res_count) % JR_RESOLVER_QUEUE] = *res;
	r->res_count++;
	if (write(r->efd, &one, sizeof(one)) < 0) {
		/* counter saturated: the relay is reading anyway */
	}
}

static struct cache_entry *cache_find(struct jr_resolver *r, const char *host,
				      int family)
{
	for (size_t i = 0; i < JR_RESOLVER_CACHE; i++) {
		struct cache_entry *e = &r->cache[i];

		if (e->used && e->family == family &&
		    strcmp(e->host, host) == 0)
			return e;
	}
	return NULL;
}

/* Remember a successful answer, in place of its own entry, a free one, or
 * the one that expires first. */
static void cache_put(struct jr_resolver *r, const struct job *j,
		      const struct jr_resolve_result *res)
{
	struct cache_entry *e;

	if (res->error)
		return;
	e = cache_find(r, j->host, j->family);
	if (!e) {
		e = &r->cache[0];
		for (size_t i = 0; i < JR_RESOLVER_CACHE; i++) {
			if (!r->cache[i].used) {
				e = &r->cache[i];
				break;
			}
			if (r->cache[i].expires_ms < e->expires_ms)
				e = &r->cache[i];
		}
	}
	e->used = true;
	e->family = j->family;
	e->expires_ms = r->now_ms() + JR_RESOLVER_CACHE_MS;
	memcpy(e->host, j->host, sizeof(e->host));
	e->res = *res;
}

static void release_locked(struct jr_resolver *r)
{
	bool last = --r->refs == 0;

	pthread_cond_broadcast(&r->gone);
	pthread_mutex_unlock(&r->lock);
	if (!last)
		return;
	close(r->efd);
	pthread_cond_destroy(&r->gone);
	pthread_cond_destroy(&r->wake);
	pthread_mutex_destroy(&r->lock);
	free(r->results);
	free(r->cache);
	free(r);
}

static void resolve(const struct job *j, struct jr_resolve_result *res)
{
	struct addrinfo hints = {
		.ai_family = j->family,
		.ai_socktype = SOCK_STREAM,
	};
	struct addrinfo *ai = NULL, *p;

	memset(res, 0, sizeof(*res));
	res->tag = j->tag;
	res->error = getaddrinfo(j->host, NULL, &hints, &ai);
	if (res->error)
		return;
	for (p = ai; p && res->n < JR_RESOLVE_MAX_ADDRS; p = p->ai_next) {
		if ((p->ai_family != AF_INET && p->ai_family != AF_INET6) ||
		    p->ai_addrlen > sizeof(res->addrs[0]))
			continue;
		memcpy(&res->addrs[res->n], p->ai_addr, p->ai_addrlen);
		res->lens[res->n++] = p->ai_addrlen;
	}
	freeaddrinfo(ai);
	if (!res->n)
		res->error = EAI_NONAME;
}

static void *worker(void *arg)
{
	struct jr_resolver *r = arg;
	struct jr_resolve_result res;
	struct job j;

	pthread_mutex_lock(&r->lock);
	for (;;) {
		while (!r->closed && !r->job_count) {
			r->idle++;
			pthread_cond_wait(&r->wake, &r->lock);
			r->idle--;
		}
		if (r->closed)
			break;
		j = r->jobs[r->job_head];
		r->job_head = (r->job_head + 1) % JR_RESOLVER_QUEUE;
		r->job_count--;
		pthread_mutex_unlock(&r->lock);

		resolve(&j, &res);

		pthread_mutex_lock(&r->lock);
		if (r->closed)
			break;
		cache_put(r, &j, &res);
		post_locked(r, &res);
	}
	release_locked(r);
	return NULL;
}

/*
 * Start one more worker. Called with the lock held, when a queued job
 * finds no idle worker. Return: 0 or a positive error from pthread_create.
 */
static int spawn_worker_locked(struct jr_resolver *r)
{
	pthread_attr_t attr;
	sigset_t all, old;
	pthread_t t;
	int e;

	/* Workers must never take the signals the runner handles. */
	sigfillset(&all);
	pthread_sigmask(SIG_SETMASK, &all, &old);
	pthread_attr_init(&attr);
	pthread_attr_setdetachstate(&attr, PTHREAD_CREATE_DETACHED);
	e = pthread_create(&t, &attr, worker, r);
	pthread_attr_destroy(&attr);
	pthread_sigmask(SIG_SETMASK, &old, NULL);
	if (e)
		return e;
	r->refs++;
	r->n_threads++;
	return 0;
}

int jr_resolver_start(unsigned int threads, struct jr_resolver **out,
		      struct jr_err *err)
{
	struct jr_resolver *r = calloc(1, sizeof(*r));

	if (!r)
		return jr_err_set(err, ENOMEM, "out of memory");
	r->results = calloc(JR_RESOLVER_QUEUE, sizeof(*r->results));
	r->cache = calloc(JR_RESOLVER_CACHE, sizeof(*r->cache));
	r->efd = eventfd(0, EFD_CLOEXEC | EFD_NONBLOCK);
	if (!r->results || !r->cache || r->efd < 0) {
		int e = r->results && r->cache ? errno : ENOMEM;

		if (r->efd >= 0)
			close(r->efd);
		free(r->results);
		free(r->cache);
		free(r);
		return jr_err_set(err, e, "cannot set up the resolver: %s",
				  strerror(e));
	}
	pthread_mutex_init(&r->lock, NULL);
	pthread_cond_init(&r->wake, NULL);
	pthread_cond_init(&r->gone, NULL);
	r->refs = 1;
	r->now_ms = jr_clock_ms;

	r->max_threads = threads ? threads : 1;
	*out = r;
	return 0;
}

int jr_resolver_fd(const struct jr_resolver *r)
{
	return r->efd;
}

int jr_resolver_submit(struct jr_resolver *r, uint64_t tag, const char *host,
		       int family)
{
	struct cache_entry *hit;
	struct job *j;

	pthread_mutex_lock(&r->lock);
	r->stats.lookups++;
	hit = cache_find(r, host, family);
	if (hit && hit->expires_ms > r->now_ms()) {
		struct jr_resolve_result res = hit->res;

		r->stats.hits++;
		res.tag = tag;
		post_locked(r, &res);
		pthread_mutex_unlock(&r->lock);
		return 0;
	}
	if (r->job_count == JR_RESOLVER_QUEUE) {
		pthread_mutex_unlock(&r->lock);
		return -EAGAIN;
	}
	j = &r->jobs[(r->job_head + r->job_count) % JR_RESOLVER_QUEUE];
	j->tag = tag;
	j->family = family;
	strncpy(j->host, host, sizeof(j->host) - 1);
	j->host[sizeof(j->host) - 1] = '\0';
	r->job_count++;
	/* More jobs waiting than idle workers to take them: one more worker,
	 * up to the cap. If none can be started at all, the job would wait
	 * forever: refuse it like a full queue. */
	if (r->job_count > r->idle && r->n_threads < r->max_threads &&
	    spawn_worker_locked(r) != 0 && r->n_threads == 0) {
		r->job_count--;
		pthread_mutex_unlock(&r->lock);
		return -EAGAIN;
	}
	pthread_cond_signal(&r->wake);
	pthread_mutex_unlock(&r->lock);
	return 0;
}

int jr_resolver_take(struct jr_resolver *r, struct jr_resolve_result *out)
{
	uint64_t cnt;
	int got = 0;

	pthread_mutex_lock(&r->lock);
	if (r->res_count) {
		*out = r->results[r->res_head];
		r->res_head = (r->res_head + 1) % JR_RESOLVER_QUEUE;
		r->res_count--;
		got = 1;
	}
	if (!r->res_count && read(r->efd, &cnt, sizeof(cnt)) < 0) {
		/* EAGAIN: already drained */
	}
	pthread_mutex_unlock(&r->lock);
	return got;
}

void jr_resolver_stop(struct jr_resolver *r)
{
	struct timespec until;

	if (!r)
		return;
	pthread_mutex_lock(&r->lock);
	r->closed = true;
	pthread_cond_broadcast(&r->wake);
	/*
	 * Idle workers leave at once; give them a moment to do so (a thread
	 * still alive at process exit holds its resolver state, which leak
	 * checkers report). A worker inside a slow getaddrinfo() is not
	 * waited for beyond that: it frees everything when it gets out.
	 */
	clock_gettime(CLOCK_REALTIME, &until);
	until.tv_nsec += JR_RESOLVER_STOP_WAIT_MS * 1000000L;
	if (until.tv_nsec >= 1000000000L) {
		until.tv_sec++;
		until.tv_nsec -= 1000000000L;
	}
	while (r->refs > 1 &&
	       pthread_cond_timedwait(&r->gone, &r->lock, &until) == 0)
		;
	release_locked(r);
}

void jr_resolver_get_stats(struct jr_resolver *r, struct jr_resolver_stats *out)
{
	pthread_mutex_lock(&r->lock);
	*out = r->stats;
	pthread_mutex_unlock(&r->lock);
}

void jr_resolver_set_clock(struct jr_resolver *r, uint64_t (*now_ms)(void))
{
	pthread_mutex_lock(&r->lock);
	r->now_ms = now_ms ? now_ms : jr_clock_ms;
	pthread_mutex_unlock(&r->lock);
}
