/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * audit.h - the audit log (one JSON object per line, --log / --log-fd) and
 * the counts the --json summary and the exit line report.
 *
 * Line format (jailrun(1), AUDIT LOG; docs/schema/audit.schema.json),
 * fields only ever added:
 *   {"time":"2026-11-29T12:00:00.123Z","run_id":"5f0c...","label":"t1",
 *    "event":"connection","id":7,
 *    "via":"proxy","method":"CONNECT","host":"api.example.com","port":443,
 *    "address":"192.0.2.7","verdict":"allow","reason":null,"status":200,
 *    "bytes_up":517,"bytes_down":4096,"duration_ms":85}
 *   {"time":...,"run_id":...,"event":"lifecycle","detail":"sandbox starting"}
 * "run_id" is on every line of a run; "label" only when --label is given.
 *
 * Floods: connection records identical but for id, time, byte counts and
 * duration are written once a window; the repeats that follow within it
 * become one line with "repeated":N (audit.c says how). The counts below
 * and --learn see every record.
 */
#ifndef JR_AUDIT_H
#define JR_AUDIT_H

#include <pthread.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "err.h"

struct jr_learn;

struct jr_audit_record {
	uint64_t id;
	const char *via;      /* "proxy" or "dns" */
	const char *method;   /* CONNECT, GET, ..., or the DNS qtype "A" */
	const char *host;     /* as requested, may be NULL for a bad request */
	uint16_t port;	      /* 0 if none */
	const char *address;  /* the upstream address connected to, or NULL */
	const char *original; /* "via":"transparent": the address the command
				 connected to (a synthetic one, or a
				 literal), or NULL */
	bool allowed;	      /* verdict allow/deny */
	const char *reason;   /* deny reason tag (jr_deny_reason_name, or
				"bad-request", "connection-limit", ...), or
				for an allowed connection how it failed
				("upstream-refused", "upstream-timeout"...) */
	int status;	      /* HTTP status sent, DNS rcode, or -1 */
	uint64_t bytes_up, bytes_down;
	uint64_t duration_ms;
	/* A request inside an inspected TLS connection (tls_inspect.c):
	 * "path" (the request target) and "secret_injected" are written. */
	bool inspected;
	const char *path;
	bool secret_injected; /* a real value replaced a placeholder */
};

/* What names a run on each of its lines (runid.h, --label). */
struct jr_audit_tag {
	const char *run_id; /* NULL: not written (tests) */
	const char *label;  /* NULL: not written */
};

#define JR_AUDIT_MAX_DENIED 64 /* distinct denied destinations kept */

/* A record identical to one written less than this long ago is not
 * written at once, only counted (see audit.c). */
#define JR_AUDIT_REPEAT_MS 1000
/* Distinct records whose repeats are followed at once; a further one
 * pushes out the oldest, whose count is written then. */
#define JR_AUDIT_REPEAT_SLOTS 16

/* One record being collapsed: written at @opened_ms, @n repeats since. */
struct jr_audit_repeat {
	char *key; /* its line with id, time, bytes, duration zeroed; NULL:
		      the slot is free */
	uint64_t hash;
	uint64_t opened_ms;
	uint64_t n;		     /* repeats not written yet */
	struct jr_audit_record last; /* the last of them; strings in @strs */
	char *strs;
	uint64_t last_ms;
	uint64_t bytes_up, bytes_down; /* totals over the @n */
};

struct jr_audit_denied {
	char dest[280]; /* "host:port", "host" (DNS), or the address */
	uint64_t count;
};

struct jr_audit {
	int fd;			 /* -1: counting only */
	struct jr_audit_tag tag; /* on every line; set by jr_audit_open() */
	bool own_fd;		 /* opened by us (--log), closed by us */
	pthread_mutex_t lock;	 /* the relay thread and the main thread log */
	uint64_t allowed, denied;
	struct jr_audit_denied denied_dest[JR_AUDIT_MAX_DENIED];
	size_t n_denied_dest;
	bool denied_dest_truncated;
	/* The kinds of fix the denials so far call for (jr_deny_fix_of()),
	 * one bit each, for the hint at the end of the denied line. */
	unsigned int deny_fixes;
	/* Requests the HTTP rules refused (http-rule, http-path,
	 * http-rules-need-inspection): the summary's http_rule_denied. */
	uint64_t http_rule_denied;
	/* Names given a synthetic address (transparent egress); set by the
	 * relay when it stops, after its thread has ended. */
	uint64_t synthetic_names;
	/* Live policy changes (--control); set by the relay when it stops. */
	uint64_t control_changes;
	/* --ask decisions; set by the relay when it stops. */
	uint64_t ask_approved, ask_denied, ask_timed_out;
	int write_error; /* first errno writing the log, sticky */
	/* Records being collapsed (JR_AUDIT_REPEAT_MS), under @lock. */
	struct jr_audit_repeat repeats[JR_AUDIT_REPEAT_SLOTS];
	/* --learn: each connection record is also counted there, under
	 * @lock (learn.h); NULL: not learning. */
	struct jr_learn *learn;
};

/*
 * jr_audit_open - start an audit sink.
 * @path: --log FILE (opened O_APPEND, created 0600), or NULL
 * @fd: --log-fd N (must be open; kept), or -1
 * @tag: the run id and label for every line (the strings must outlive
 * @a), or NULL for none
 * Return: 0 or -errno with @err set (the path or fd is named).
 */
int jr_audit_open(struct jr_audit *a, const char *path, int fd,
		  const struct jr_audit_tag *tag, struct jr_err *err);
/* Write every count still held back, then close. */
void jr_audit_close(struct jr_audit *a);

/* Log one connection or query, and count it. Thread-safe. */
void jr_audit_connection(struct jr_audit *a, const struct jr_audit_record *r);

/*
 * jr_audit_connection_at - jr_audit_connection() at the wall-clock time
 * @unix_ms (milliseconds since the epoch): the time written, and the clock
 * the repeat windows run on. For tests, which inject the clock.
 */
void jr_audit_connection_at(struct jr_audit *a, const struct jr_audit_record *r,
			    uint64_t unix_ms);

/*
 * jr_audit_flush_expired - write the counts of the repeats whose window is
 * over. The relay calls it on its timer, so a count is written within
 * about a window of the flood's end, not only at the next record.
 * Thread-safe. jr_audit_flush_expired_at(): at @unix_ms, for tests.
 */
void jr_audit_flush_expired(struct jr_audit *a);
void jr_audit_flush_expired_at(struct jr_audit *a, uint64_t unix_ms);

/*
 * Log a lifecycle event ("sandbox ready", "command started", ...). Every
 * count held back is written first: a line never stands for records made
 * after a later line.
 */
void jr_audit_event(struct jr_audit *a, const char *event, const char *detail);

/*
 * jr_audit_firewall_refused - the line for a packet the sandbox's
 * firewall refused (nflog.c): {"event":"firewall-refused","protocol":...,
 * "address":...,"port":N or null}. @port < 0: null. Thread-safe.
 */
void jr_audit_firewall_refused(struct jr_audit *a, const char *protocol,
			       const char *address, int port);

/*
 * jr_audit_format_record - the JSON line for @r at @unix_ms with @tag's
 * run id and label (NULL: none) (pure, for tests). @repeated > 1 adds
 * "repeated":@repeated (the line stands for that many records).
 * Return: malloc'd NUL-terminated line ending in '\n', or NULL.
 */
char *jr_audit_format_record(const struct jr_audit_record *r,
			     const struct jr_audit_tag *tag, uint64_t unix_ms,
			     uint64_t repeated);

/*
 * jr_audit_denied_line - one line for a person: "denied: a.test:443 (2),
 * b.test (1)", or NULL when nothing was denied. malloc'd.
 */
char *jr_audit_denied_line(const struct jr_audit *a);

/*
 * What a person can do about a denial, by its audit reason. The hint on a
 * terminal names the fix; "add --allow" is only one of them.
 */
enum jr_deny_fix {
	JR_FIX_ALLOW,	     /* not-allowed, port-not-allowed */
	JR_FIX_PRIVATE,	     /* special-address, local-address */
	JR_FIX_HTTP_RULE,    /* http-rule */
	JR_FIX_HTTP_PATH,    /* http-path */
	JR_FIX_INSPECT,	     /* http-rules-need-inspection */
	JR_FIX_SECRET_HOST,  /* secret-misuse */
	JR_FIX_SECRET_HTTPS, /* secret-plaintext */
	JR_FIX_MANAGED,	     /* managed-deny */
	JR_FIX_NONE,	     /* any other reason: no option is the fix */
	JR_FIX_COUNT
};

/*
 * jr_deny_fix_of - the kind of fix for a denial with audit @reason (NULL:
 * none given). @net_public: under --net public nothing is refused for
 * want of an --allow; a port refusal there is the address guard's.
 */
enum jr_deny_fix jr_deny_fix_of(const char *reason, bool net_public);

/* jr_deny_fix_text - the hint for @f, a static string. */
const char *jr_deny_fix_text(enum jr_deny_fix f);

/*
 * jr_audit_deny_hint - the hints for every kind of fix the denials so far
 * call for, in jr_deny_fix order, joined by "; "; NULL when nothing was
 * denied. @net_public as for jr_deny_fix_of(). malloc'd.
 */
char *jr_audit_deny_hint(const struct jr_audit *a, bool net_public);

#endif
