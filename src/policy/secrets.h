/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * secrets.h - placeholder credentials (--secret) and which hosts the relay
 * inspects (--inspect). Pure logic here (spec grammar, placeholders,
 * request-head rewriting, Basic auth); loading the real values, locking
 * their memory and scrubbing them from the runner's environment is in
 * secrets.c too, in the functions marked "runner".
 */
#ifndef JR_SECRETS_H
#define JR_SECRETS_H

#include <stdatomic.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#include "err.h"

#define JR_SECRET_NAME_MAX 128	 /* an environment variable name */
#define JR_SECRET_VALUE_MIN 8	 /* shorter cannot hide in a placeholder */
#define JR_SECRET_VALUE_MAX 4096 /* a header field, not a file */
#define JR_SECRET_HOSTS_MAX 16	 /* hosts one secret is bound to */
#define JR_SECRETS_MAX 32	 /* --secret options */
#define JR_INSPECT_HOSTS_MAX 64	 /* --inspect options */

struct jr_inspect;

struct jr_secret {
	char *name;	 /* the environment variable */
	char *file;	 /* NAME=file:PATH, or NULL: jailrun's own env */
	char **hosts;	 /* lowercase, no trailing dot */
	uint16_t *ports; /* ports[i] is where hosts[i] gets the value */
	size_t n_hosts;
	char *value;	   /* the real value (locked memory), or NULL */
	char *placeholder; /* same length as the value */
	size_t len;
	/* The file read (NAME=file:PATH), as fstat(2) saw it then, so that
	 * the layout hides that very file (jr_secret_file_canon()). */
	bool file_named; /* a regular file with a name: to be hidden */
	dev_t file_dev;
	ino_t file_ino;
};

/* Everything the relay needs to inspect: shared read-only by the relay and
 * the inspection threads once the sandbox runs; only the counters change. */
struct jr_secrets {
	struct jr_secret s[JR_SECRETS_MAX];
	size_t n;
	char *inspect[JR_INSPECT_HOSTS_MAX]; /* --inspect, normalised */
	size_t n_inspect;
	bool allow_plaintext;	 /* --secret-allow-plaintext */
	const char *upstream_ca; /* --upstream-ca FILE, or NULL */
	/* --allow-http rules (the policy's; read-only once the relay runs,
	 * so the inspection threads may read them): a host they name is
	 * inspected, and each request inside is checked against them. */
	const struct jr_httprules *http_rules;
	void *locked; /* the page(s) holding the values */
	size_t locked_size;
	atomic_uint_fast64_t misuse;	/* requests refused secret-misuse */
	atomic_uint_fast64_t injected;	/* requests a real value went into */
	atomic_uint_fast64_t inspected; /* requests seen inside TLS */
	/* Set by jr_inspect_start() (inspect_start.h), in the runner: */
	struct jr_inspect *inspect_ctx; /* tls_inspect.h */
	char *trust_bundle;		/* host bundle + our CA, PEM */
	const char *trust_path;		/* where the command finds it */
};

/* The port a binding without one means: the value goes over https only. */
#define JR_SECRET_PORT_DEFAULT 443

/*
 * jr_secret_spec_parse - parse one --secret argument:
 * "NAME@HOST[,HOST...]" or "NAME=file:PATH@HOST[,HOST...]".
 * NAME is a portable environment variable name ([A-Za-z_][A-Za-z0-9_]*);
 * each HOST a host name or address literal (no wildcard), optionally with
 * a port: "NAME:PORT", "V4:PORT", "[V6]:PORT" ("[V6]" or a bare V6 has
 * none; as in --allow, every colon of an unbracketed V6 is the address's).
 * Without a port a host is bound on JR_SECRET_PORT_DEFAULT only.
 * @out: filled (name, file, hosts allocated); release with
 * jr_secret_release().
 * Return: 0 or -EINVAL/-ENOMEM with @err naming the rule.
 */
int jr_secret_spec_parse(const char *spec, struct jr_secret *out,
			 struct jr_err *err);
void jr_secret_release(struct jr_secret *s);

/*
 * jr_inspect_host_parse - normalise an --inspect HOST (lowercase, trailing
 * dot dropped) into @out (JR_HOST_MAX + 1 bytes).
 * Return: 0 or -EINVAL with @err set.
 */
int jr_inspect_host_parse(const char *host, char *out, struct jr_err *err);

/*
 * jr_secret_prefix_len - the length of the non-secret prefix of @value
 * (sk-ant-, ghp_, xoxb-, ...; see the table in secrets.c), 0 for none.
 */
size_t jr_secret_prefix_len(const char *value, size_t len);

/*
 * jr_secret_make_placeholder - write a placeholder for @value into @out
 * (@len + 1 bytes): the same prefix, the same length, the rest drawn from
 * the smallest character class the real value's rest fits (digits, hex,
 * alphanumerics, URL-safe base64, base64; anything else: alphanumerics),
 * one character per byte of @rnd (@len bytes). Pure.
 */
void jr_secret_make_placeholder(const char *value, size_t len,
				const uint8_t *rnd, char *out);

/* Is @host (any case, optional trailing dot) on @port bound to @s? */
bool jr_secret_bound_to(const struct jr_secret *s, const char *host,
			uint16_t port);

/*
 * Does the relay terminate TLS to @host: bound to a secret (on any port:
 * a placeholder sent to a bound host on a port it is not bound to must be
 * seen, to be refused as misuse) or --inspect?
 */
bool jr_secrets_inspects(const struct jr_secrets *set, const char *host);

/* Is @host on @port bound to any secret? */
bool jr_secrets_host_bound(const struct jr_secrets *set, const char *host,
			   uint16_t port);

/* What jr_secrets_rewrite_head() found. */
struct jr_secrets_verdict {
	unsigned injected;	 /* placeholders replaced by real values */
	const char *misuse_name; /* a secret whose placeholder was headed
				      elsewhere (its NAME), or NULL */
	bool misuse_port;	 /* ... elsewhere only by its port: the
				      secret is bound to the host, on other
				      ports */
};

/*
 * jr_secrets_rewrite_head - the request head to send to @host on @port.
 * @head/@len: a complete request head (request line, fields, empty line)
 * @out/@out_len: on success a malloc'd copy with every placeholder of a
 *	secret bound to @host:@port replaced by its value in the fields,
 *	including inside "Authorization: Basic" credentials (decoded,
 *	replaced, encoded again). The request line (method, target, version)
 *	is never rewritten: a placeholder in the path or query reaches even
 *	a bound host as the placeholder.
 * @v: what happened
 *
 * A placeholder of a secret NOT bound to @host:@port anywhere in the head
 * (request line, any field, decoded Basic credentials) is misuse: @v says
 * which, and nothing is written to @out.
 * Return: 0 (sent as @out), 1 (misuse: refuse), or -ENOMEM.
 */
int jr_secrets_rewrite_head(const struct jr_secrets *set, const char *host,
			    uint16_t port, const char *head, size_t len,
			    char **out, size_t *out_len,
			    struct jr_secrets_verdict *v);

/*
 * jr_secrets_misuse_message - the one text of a secret-misuse refusal of a
 * request to @host:@port (what jr_secrets_rewrite_head() put in @v), for
 * the proxy's and the inspection's 403 alike, into @buf (@size bytes).
 * When the secret is bound to @host on other ports only, it says how to
 * bind this one.
 */
void jr_secrets_misuse_message(const struct jr_secrets_verdict *v,
			       const char *host, uint16_t port, char *buf,
			       size_t size);

/*
 * jr_base64_decode / jr_base64_encode - RFC 4648 section 4 (with padding).
 * decode: @out holds at least @n * 3 / 4 + 3 bytes; returns the length or
 * -EINVAL. encode: @out holds at least (@n + 2) / 3 * 4 + 1; returns the
 * length (NUL-terminated).
 */
long jr_base64_decode(const char *in, size_t n, uint8_t *out);
size_t jr_base64_encode(const uint8_t *in, size_t n, char *out);

/* ------------------------------------------------------------ runner */

/*
 * jr_secrets_load - read each secret's real value (jailrun's environment
 * variable NAME, or the file, one trailing newline stripped) into locked
 * memory (mlock, excluded from core dumps), make its placeholder with
 * getrandom(2), and leave NAME=<placeholder> in the runner's environment
 * for the command to inherit. The real value's bytes in the environment
 * block (what /proc/PID/environ shows, in the runner and in every process
 * forked from it) are overwritten with the placeholder, not just unset.
 * Return: 0 or -errno with @err naming the secret and what to do.
 */
int jr_secrets_load(struct jr_secrets *set, struct jr_err *err);

/*
 * jr_secret_file_canon - where the file of @s (NAME=file:PATH) lives, for
 * the filesystem layout to hide it inside the sandbox, as the table's
 * credentials are (fslayout.c): its canonical path (realpath(3), with the
 * caller's view and rights), checked to lead to the very file
 * jr_secrets_load() read (device and inode), so that a path changed in
 * between cannot steer the cover onto another file.
 * @out: PATH_MAX bytes.
 * Return: 1 with @out set; 0 when there is nothing to hide (an environment
 * secret, or a file that is not a regular one with a name: a pipe, a
 * terminal, an unlinked file); -errno with @err set when the path no
 * longer leads to that file (jailrun then refuses to start).
 */
int jr_secret_file_canon(const struct jr_secret *s, char *out,
			 struct jr_err *err);

/*
 * jr_secrets_prepare - (runner) what --secret and --inspect need of @set
 * before the sandbox exists: the specs and hosts of @opts, and the values
 * (jr_secrets_load()). Inspection itself is started by jr_inspect_start()
 * (inspect_start.h). Return: 0 or -errno with @err set;
 * jr_secrets_release() in every case.
 */
struct jr_options;
int jr_secrets_prepare(struct jr_secrets *set, const struct jr_options *opts,
		       struct jr_err *err);

/* Wipe and unlock the values, free everything but the inspection context,
 * which jr_inspect_stop() ends first. */
void jr_secrets_release(struct jr_secrets *set);

#endif
