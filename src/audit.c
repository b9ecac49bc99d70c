// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * audit.c - the audit log and the allow/deny counts (see audit.h).
 *
 * Theory of operation: each record becomes one JSON line, written with a
 * single write(2) on an O_APPEND descriptor, so lines from one run never
 * interleave and several jailrun processes may share one log file (POSIX
 * makes appends of one write atomic with respect to the file offset). The
 * relay thread and the main thread both log, hence the mutex; it also
 * guards the counters. A failing log write is remembered and reported once
 * at exit, but never stops the sandbox: an unwritable log is an operator
 * problem, not a reason to cut an agent's connection mid-stream.
 *
 * Floods. The command decides how many records there are: a loop of DNS
 * queries for a denied name wrote 21 MB in five seconds. So a record that
 * is identical to one written less than JR_AUDIT_REPEAT_MS ago (identical
 * but for id, time, byte counts and duration: its "key", the line with
 * those zeroed) is only counted. When the window is over, the repeats
 * become one line: the last of them, with "bytes_up"/"bytes_down" summed
 * over them and "repeated":N (a single repeat is written as itself), and
 * the next window opens; so a flood that goes on writes one line a window
 * and a window without repeats frees the key.
 * Every line stands for "repeated" records (1 when absent), so a reader
 * that sums them gets every record; the counters here, and --learn, count
 * each record as it comes, written or not. JR_AUDIT_REPEAT_SLOTS keys are
 * followed at once, so interleaved floods (A and AAAA queries, two names
 * in turn) collapse too; a new key past that pushes out the oldest, its
 * count written first. The windows end on the next record of any key, on
 * the relay's timer (jr_audit_flush_expired()), before any event line,
 * and at close, which is also when a clock jump (the window runs on the
 * wall clock the lines carry) ends them early: never late.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "audit.h"
#include "cleanup.h"
#include "clock.h"
#include "learn.h"
#include "json.h"
#include "outfile.h"

int jr_audit_open(struct jr_audit *a, const char *path, int fd,
		  const struct jr_audit_tag *tag, struct jr_err *err)
{
	memset(a, 0, sizeof(*a));
	a->fd = -1;
	if (tag)
		a->tag = *tag;
	pthread_mutex_init(&a->lock, NULL);
	if (path) {
		/* Not a link or a file another user planted (outfile.h). */
		a->fd = jr_outfile_open("--log", path, true, 0600, err);
		if (a->fd < 0) {
			int e = a->fd;

			a->fd = -1;
			return e;
		}
		a->own_fd = true;
	} else if (fd >= 0) {
		int fl = fcntl(fd, F_GETFD);

		if (fl < 0)
			return jr_err_set(
			    err, errno,
			    "--log-fd %d: not an open file descriptor", fd);
		/* Ours now: it must not reach the command. */
		if (fcntl(fd, F_SETFD, fl | FD_CLOEXEC) < 0)
			return jr_err_set(err, errno, "--log-fd %d: %s", fd,
					  strerror(errno));
		a->fd = fd;
	}
	return 0;
}

/*
 * begin_line() - open a line's object with what every line starts with:
 * "time" (RFC 3339 UTC, milliseconds), then the run's "run_id" and
 * "label" (@tag; each only when set).
 */
static void begin_line(struct jr_json *j, const struct jr_audit_tag *tag,
		       uint64_t unix_ms)
{
	char when[JR_CLOCK_UTC_SIZE];

	jr_clock_format_utc(unix_ms, when);
	jr_json_init(j);
	jr_json_object_begin(j);
	jr_json_key(j, "time");
	jr_json_string(j, when);
	if (tag && tag->run_id) {
		jr_json_key(j, "run_id");
		jr_json_string(j, tag->run_id);
	}
	if (tag && tag->label) {
		jr_json_key(j, "label");
		jr_json_string(j, tag->label);
	}
}

static char *finish_line(struct jr_json *j)
{
	const char *text = jr_json_finish(j);
	char *line = NULL;

	if (text && (line = malloc(j->len + 2))) {
		memcpy(line, text, j->len);
		line[j->len] = '\n';
		line[j->len + 1] = '\0';
	}
	jr_json_release(j);
	return line;
}

char *jr_audit_format_record(const struct jr_audit_record *r,
			     const struct jr_audit_tag *tag, uint64_t unix_ms,
			     uint64_t repeated)
{
	struct jr_json j;

	begin_line(&j, tag, unix_ms);
	jr_json_key(&j, "event");
	jr_json_string(&j, "connection");
	jr_json_key(&j, "id");
	jr_json_uint(&j, r->id);
	jr_json_key(&j, "via");
	jr_json_string(&j, r->via);
	jr_json_key(&j, "method");
	jr_json_string(&j, r->method);
	jr_json_key(&j, "host");
	jr_json_string(&j, r->host);
	jr_json_key(&j, "port");
	if (r->port)
		jr_json_uint(&j, r->port);
	else
		jr_json_null(&j);
	jr_json_key(&j, "address");
	jr_json_string(&j, r->address);
	if (r->original) {
		jr_json_key(&j, "original_address");
		jr_json_string(&j, r->original);
	}
	if (r->inspected) {
		jr_json_key(&j, "path");
		jr_json_string(&j, r->path);
		jr_json_key(&j, "secret_injected");
		jr_json_bool(&j, r->secret_injected);
	}
	jr_json_key(&j, "verdict");
	jr_json_string(&j, r->allowed ? "allow" : "deny");
	jr_json_key(&j, "reason");
	jr_json_string(&j, r->reason);
	jr_json_key(&j, "status");
	if (r->status >= 0)
		jr_json_int(&j, r->status);
	else
		jr_json_null(&j);
	jr_json_key(&j, "bytes_up");
	jr_json_uint(&j, r->bytes_up);
	jr_json_key(&j, "bytes_down");
	jr_json_uint(&j, r->bytes_down);
	jr_json_key(&j, "duration_ms");
	jr_json_uint(&j, r->duration_ms);
	if (repeated > 1) {
		jr_json_key(&j, "repeated");
		jr_json_uint(&j, repeated);
	}
	jr_json_object_end(&j);
	return finish_line(&j);
}

static void write_line(struct jr_audit *a, const char *line)
{
	size_t len = strlen(line);
	ssize_t n;

	if (a->fd < 0)
		return;
	do {
		n = write(a->fd, line, len);
	} while (n < 0 && errno == EINTR);
	if (n != (ssize_t)len && !a->write_error)
		a->write_error = n < 0 ? errno : EIO;
}

static void count_denied(struct jr_audit *a, const struct jr_audit_record *r)
{
	char dest[sizeof(a->denied_dest[0].dest)];

	if (r->host && r->port)
		snprintf(dest, sizeof(dest), "%s:%u", r->host, r->port);
	else
		snprintf(dest, sizeof(dest), "%s",
			 r->host ? r->host : "(bad request)");
	for (size_t i = 0; i < a->n_denied_dest; i++) {
		if (strcmp(a->denied_dest[i].dest, dest) == 0) {
			a->denied_dest[i].count++;
			return;
		}
	}
	if (a->n_denied_dest == JR_AUDIT_MAX_DENIED) {
		a->denied_dest_truncated = true;
		return;
	}
	memcpy(a->denied_dest[a->n_denied_dest].dest, dest, sizeof(dest));
	a->denied_dest[a->n_denied_dest++].count = 1;
}

/* ------------------------------------------------------------ repeats */

static uint64_t fnv1a(const char *s)
{
	uint64_t h = 0xcbf29ce484222325ULL;

	for (; *s; s++)
		h = (h ^ (unsigned char)*s) * 0x100000001b3ULL;
	return h;
}

/* @r's line without what differs between repeats. */
static char *record_key(const struct jr_audit_record *r)
{
	struct jr_audit_record k = *r;

	k.id = 0;
	k.bytes_up = k.bytes_down = k.duration_ms = 0;
	return jr_audit_format_record(&k, NULL, 0, 0);
}

/* Copy @r's strings into one allocation, @s->strs, for @s->last. */
static int repeat_keep(struct jr_audit_repeat *s,
		       const struct jr_audit_record *r)
{
	const char **f[] = { &s->last.via,	&s->last.method,
			     &s->last.host,	&s->last.address,
			     &s->last.original, &s->last.reason,
			     &s->last.path };
	size_t size = 0, off = 0;

	s->last = *r;
	for (size_t i = 0; i < ARRAY_SIZE(f); i++)
		if (*f[i])
			size += strlen(*f[i]) + 1;
	s->strs = malloc(size ? size : 1);
	if (!s->strs)
		return -ENOMEM;
	for (size_t i = 0; i < ARRAY_SIZE(f); i++) {
		size_t n;

		if (!*f[i])
			continue;
		n = strlen(*f[i]) + 1;
		memcpy(s->strs + off, *f[i], n);
		*f[i] = s->strs + off;
		off += n;
	}
	return 0;
}

static void repeat_clear(struct jr_audit_repeat *s)
{
	free(s->key);
	free(s->strs);
	memset(s, 0, sizeof(*s));
}

/* Write the line for @s's repeats, if any; the window stays open. */
static void repeat_write(struct jr_audit *a, struct jr_audit_repeat *s)
{
	struct jr_audit_record r;
	char *line;

	if (!s->n)
		return;
	r = s->last;
	r.bytes_up = s->bytes_up;
	r.bytes_down = s->bytes_down;
	line = jr_audit_format_record(&r, &a->tag, s->last_ms, s->n);
	if (line)
		write_line(a, line);
	else if (!a->write_error)
		a->write_error = ENOMEM;
	free(line);
	s->n = s->bytes_up = s->bytes_down = 0;
}

static void repeat_add(struct jr_audit_repeat *s,
		       const struct jr_audit_record *r, uint64_t unix_ms)
{
	s->n++;
	s->last.id = r->id;
	s->last.duration_ms = r->duration_ms;
	s->last_ms = unix_ms;
	s->bytes_up += r->bytes_up;
	s->bytes_down += r->bytes_down;
}

/* Is @s's window over at @unix_ms? A clock that went back ends it too. */
static bool repeat_expired(const struct jr_audit_repeat *s, uint64_t unix_ms)
{
	return unix_ms < s->opened_ms ||
	       unix_ms - s->opened_ms >= JR_AUDIT_REPEAT_MS;
}

/*
 * flush_expired() - at @unix_ms, end every window that is over: one with
 * repeats writes their line and opens the next window (a flood that goes
 * on writes a line a window); one without is freed.
 */
static void flush_expired(struct jr_audit *a, uint64_t unix_ms)
{
	for (size_t i = 0; i < JR_AUDIT_REPEAT_SLOTS; i++) {
		struct jr_audit_repeat *s = &a->repeats[i];

		if (!s->key || !repeat_expired(s, unix_ms))
			continue;
		if (s->n) {
			repeat_write(a, s);
			s->opened_ms = unix_ms;
		} else {
			repeat_clear(s);
		}
	}
}

static void flush_all(struct jr_audit *a)
{
	for (size_t i = 0; i < JR_AUDIT_REPEAT_SLOTS; i++) {
		if (a->repeats[i].key)
			repeat_write(a, &a->repeats[i]);
		repeat_clear(&a->repeats[i]);
	}
}

/*
 * log_record() - write @line for @r (whose key is @key, taken) unless it
 * repeats one written within the window. Under a->lock.
 */
static void log_record(struct jr_audit *a, const struct jr_audit_record *r,
		       uint64_t unix_ms, const char *line, char *key)
{
	uint64_t hash = fnv1a(key);
	struct jr_audit_repeat *s = NULL, *slot = NULL;

	flush_expired(a, unix_ms);
	for (size_t i = 0; i < JR_AUDIT_REPEAT_SLOTS && !s; i++)
		if (a->repeats[i].key && a->repeats[i].hash == hash &&
		    strcmp(a->repeats[i].key, key) == 0)
			s = &a->repeats[i];
	if (s) {
		repeat_add(s, r, unix_ms);
		free(key);
		return;
	}
	write_line(a, line);
	for (size_t i = 0; i < JR_AUDIT_REPEAT_SLOTS; i++) {
		struct jr_audit_repeat *c = &a->repeats[i];

		if (!c->key) {
			slot = c;
			break;
		}
		if (!slot || c->opened_ms < slot->opened_ms)
			slot = c;
	}
	if (slot->key) {
		repeat_write(a, slot);
		repeat_clear(slot);
	}
	if (repeat_keep(slot, r) < 0) {
		free(key); /* not followed: its repeats are written each */
		return;
	}
	slot->key = key;
	slot->hash = hash;
	slot->opened_ms = unix_ms;
}

void jr_audit_connection_at(struct jr_audit *a, const struct jr_audit_record *r,
			    uint64_t unix_ms)
{
	char *line = jr_audit_format_record(r, &a->tag, unix_ms, 0);
	char *key = line ? record_key(r) : NULL;

	pthread_mutex_lock(&a->lock);
	if (r->allowed) {
		a->allowed++;
	} else {
		enum jr_deny_fix fix = jr_deny_fix_of(r->reason, false);

		a->denied++;
		count_denied(a, r);
		a->deny_fixes |= 1u << fix;
		if (fix == JR_FIX_HTTP_RULE || fix == JR_FIX_HTTP_PATH ||
		    fix == JR_FIX_INSPECT)
			a->http_rule_denied++;
	}
	jr_learn_record(a->learn, r);
	if (line && key)
		log_record(a, r, unix_ms, line, key);
	else if (line)
		write_line(a, line); /* no memory to collapse it: as it is */
	else if (!a->write_error)
		a->write_error = ENOMEM;
	pthread_mutex_unlock(&a->lock);
	free(line);
}

void jr_audit_connection(struct jr_audit *a, const struct jr_audit_record *r)
{
	jr_audit_connection_at(a, r, jr_clock_unix_ms());
}

void jr_audit_flush_expired_at(struct jr_audit *a, uint64_t unix_ms)
{
	pthread_mutex_lock(&a->lock);
	flush_expired(a, unix_ms);
	pthread_mutex_unlock(&a->lock);
}

void jr_audit_flush_expired(struct jr_audit *a)
{
	jr_audit_flush_expired_at(a, jr_clock_unix_ms());
}

void jr_audit_close(struct jr_audit *a)
{
	pthread_mutex_lock(&a->lock);
	flush_all(a);
	pthread_mutex_unlock(&a->lock);
	if (a->own_fd && a->fd >= 0)
		close(a->fd);
	a->fd = -1;
	pthread_mutex_destroy(&a->lock);
}

void jr_audit_event(struct jr_audit *a, const char *event, const char *detail)
{
	struct jr_json j;
	char *line;

	begin_line(&j, &a->tag, jr_clock_unix_ms());
	jr_json_key(&j, "event");
	jr_json_string(&j, event);
	jr_json_key(&j, "detail");
	jr_json_string(&j, detail);
	jr_json_object_end(&j);
	line = finish_line(&j);
	pthread_mutex_lock(&a->lock);
	flush_all(a);
	if (line)
		write_line(a, line);
	pthread_mutex_unlock(&a->lock);
	free(line);
}

void jr_audit_firewall_refused(struct jr_audit *a, const char *protocol,
			       const char *address, int port)
{
	struct jr_json j;
	char *line;

	begin_line(&j, &a->tag, jr_clock_unix_ms());
	jr_json_key(&j, "event");
	jr_json_string(&j, "firewall-refused");
	jr_json_key(&j, "protocol");
	jr_json_string(&j, protocol);
	jr_json_key(&j, "address");
	jr_json_string(&j, address);
	jr_json_key(&j, "port");
	if (port >= 0)
		jr_json_uint(&j, (uint64_t)port);
	else
		jr_json_null(&j);
	jr_json_object_end(&j);
	line = finish_line(&j);
	pthread_mutex_lock(&a->lock);
	if (line)
		write_line(a, line);
	pthread_mutex_unlock(&a->lock);
	free(line);
}

char *jr_audit_denied_line(const struct jr_audit *a)
{
	size_t size = 64, len = 0;
	char *out;

	if (!a->denied)
		return NULL;
	for (size_t i = 0; i < a->n_denied_dest; i++)
		size += strlen(a->denied_dest[i].dest) + 32;
	out = malloc(size);
	if (!out)
		return NULL;
	len += (size_t)snprintf(
	    out + len, size - len,
	    "denied %llu connection%s:", (unsigned long long)a->denied,
	    a->denied == 1 ? "" : "s");
	for (size_t i = 0; i < a->n_denied_dest; i++)
		len += (size_t)snprintf(
		    out + len, size - len, "%s %s (%llu)", i ? "," : "",
		    a->denied_dest[i].dest,
		    (unsigned long long)a->denied_dest[i].count);
	if (a->denied_dest_truncated)
		snprintf(out + len, size - len, ", ...");
	return out;
}

/* The audit reasons of each kind of fix; everything else is JR_FIX_NONE. */
static const struct {
	const char *reason;
	enum jr_deny_fix fix;
} deny_fixes[] = {
	{ "not-allowed", JR_FIX_ALLOW },
	{ "port-not-allowed", JR_FIX_ALLOW },
	{ "special-address", JR_FIX_PRIVATE },
	{ "local-address", JR_FIX_PRIVATE },
	{ "http-rule", JR_FIX_HTTP_RULE },
	{ "http-path", JR_FIX_HTTP_PATH },
	{ "http-rules-need-inspection", JR_FIX_INSPECT },
	{ "secret-misuse", JR_FIX_SECRET_HOST },
	{ "secret-plaintext", JR_FIX_SECRET_HTTPS },
	{ "managed-deny", JR_FIX_MANAGED },
};

enum jr_deny_fix jr_deny_fix_of(const char *reason, bool net_public)
{
	for (size_t i = 0; reason && i < ARRAY_SIZE(deny_fixes); i++) {
		if (strcmp(reason, deny_fixes[i].reason) != 0)
			continue;
		if (net_public && deny_fixes[i].fix == JR_FIX_ALLOW)
			return JR_FIX_PRIVATE;
		return deny_fixes[i].fix;
	}
	return JR_FIX_NONE;
}

const char *jr_deny_fix_text(enum jr_deny_fix f)
{
	switch (f) {
	case JR_FIX_ALLOW:
		return "add --allow for what the command needs";
	case JR_FIX_PRIVATE:
		return "refused by the address guard; --allow-private opens a private range";
	case JR_FIX_HTTP_RULE:
		return "a request no --allow-http rule allows: add a rule for its method and path";
	case JR_FIX_HTTP_PATH:
		return "a request path no --allow-http rule can allow (a dot segment, an encoded slash, ...): the command must send it normalised";
	case JR_FIX_INSPECT:
		return "a tunnel or TLS to a host with --allow-http rules cannot be checked: give it an https:// rule or --inspect it, or use plain http";
	case JR_FIX_SECRET_HOST:
		return "a secret's placeholder went to a host its --secret does not name";
	case JR_FIX_SECRET_HTTPS:
		return "plain http to a host bound to a secret: use https, or --secret-allow-plaintext";
	case JR_FIX_MANAGED:
		return "denied by the administrator's managed policy, which no option loosens";
	case JR_FIX_NONE:
	case JR_FIX_COUNT:
		break;
	}
	return "the audit log (--log) says why each was refused";
}

char *jr_audit_deny_hint(const struct jr_audit *a, bool net_public)
{
	unsigned int fixes = a->deny_fixes;
	size_t size = 1, len = 0;
	char *out;

	if (!a->denied || !fixes)
		return NULL;
	/* Recorded without the mode: under --net public, an ALLOW is the
	 * address guard's (jr_deny_fix_of()). */
	if (net_public && (fixes & (1u << JR_FIX_ALLOW)))
		fixes = (fixes & ~(1u << JR_FIX_ALLOW)) | 1u << JR_FIX_PRIVATE;
	for (int f = 0; f < JR_FIX_COUNT; f++)
		if (fixes & (1u << f))
			size += strlen(jr_deny_fix_text(f)) + 2;
	out = malloc(size);
	if (!out)
		return NULL;
	out[0] = '\0';
	for (int f = 0; f < JR_FIX_COUNT; f++)
		if (fixes & (1u << f))
			len += (size_t)snprintf(out + len, size - len, "%s%s",
						len ? "; " : "",
						jr_deny_fix_text(f));
	return out;
}
