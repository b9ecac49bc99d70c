/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * audit.h - the audit log (one JSON object per line, --log / --log-fd) and
 * the counts the --json summary and the exit line report.
 *
 * Line format (jailrun(1), AUDIT LOG), fields only ever added:
 *   {"time":"2026-11-29T12:00:00.123Z","event":"connection","id":7,
 *    "via":"proxy","method":"CONNECT","host":"api.example.com","port":443,
 *    "address":"192.0.2.7","verdict":"allow","reason":null,"status":200,
 *    "bytes_up":517,"bytes_down":4096,"duration_ms":85}
 *   {"time":...,"event":"lifecycle","detail":"command started"}
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
	const char *via;     /* "proxy" or "dns" */
	const char *method;  /* CONNECT, GET, ..., or the DNS qtype "A" */
	const char *host;    /* as requested, may be NULL for a bad request */
	uint16_t port;	     /* 0 if none */
	const char *address; /* the upstream address connected to, or NULL */
	const char *original; /* "via":"transparent": the address the command
				 connected to (a synthetic one, or a
				 literal), or NULL */
	bool allowed;	     /* verdict allow/deny */
	const char *reason;  /* deny reason tag (jr_deny_reason_name, or
				"bad-request", "connection-limit", ...), or
				for an allowed connection how it failed
				("upstream-refused", "upstream-timeout"...) */
	int status;	     /* HTTP status sent, DNS rcode, or -1 */
	uint64_t bytes_up, bytes_down;
	uint64_t duration_ms;
	/* A request inside an inspected TLS connection (tls_inspect.c):
	 * "path" (the request target) and "secret_injected" are written. */
	bool inspected;
	const char *path;
	bool secret_injected; /* a real value replaced a placeholder */
};

#define JR_AUDIT_MAX_DENIED 64 /* distinct denied destinations kept */

struct jr_audit_denied {
	char dest[280]; /* "host:port", "host" (DNS), or the address */
	uint64_t count;
};

struct jr_audit {
	int fd;		      /* -1: counting only */
	bool own_fd;	      /* opened by us (--log), closed by us */
	pthread_mutex_t lock; /* the relay thread and the main thread log */
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
	int write_error; /* first errno writing the log, sticky */
	/* --learn: each connection record is also counted there, under
	 * @lock (learn.h); NULL: not learning. */
	struct jr_learn *learn;
};

/*
 * jr_audit_open - start an audit sink.
 * @path: --log FILE (opened O_APPEND, created 0600), or NULL
 * @fd: --log-fd N (must be open; kept), or -1
 * Return: 0 or -errno with @err set (the path or fd is named).
 */
int jr_audit_open(struct jr_audit *a, const char *path, int fd,
		  struct jr_err *err);
void jr_audit_close(struct jr_audit *a);

/* Log one connection or query, and count it. Thread-safe. */
void jr_audit_connection(struct jr_audit *a, const struct jr_audit_record *r);

/* Log a lifecycle event ("sandbox ready", "command started", ...). */
void jr_audit_event(struct jr_audit *a, const char *event, const char *detail);

/*
 * jr_audit_format_record - the JSON line for @r at @unix_ms (pure, for
 * tests). Return: malloc'd NUL-terminated line ending in '\n', or NULL.
 */
char *jr_audit_format_record(const struct jr_audit_record *r, uint64_t unix_ms);

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
