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

#endif
