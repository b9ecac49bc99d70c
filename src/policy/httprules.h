/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * httprules.h - HTTP method and path rules (--allow-http): the rule
 * grammar, the request-path normaliser and the one question the relay (and
 * the TLS inspection loop) asks of every request. Pure: no I/O.
 *
 * Rule grammar (see jailrun(1), HTTP RULES):
 *   METHODS SP URL-PREFIX
 *   METHODS    = "*" / method *( "," method )   method: uppercase token
 *   URL-PREFIX = ( "http://" / "https://" ) HOST [ ":" PORT ] [ PATH ]
 *   HOST       = name / "*." name            (the --allow name grammar)
 * e.g. 'GET,HEAD https://api.github.com/repos/our-org/'.
 *
 * A host that any rule names (on any port, by either scheme) allows only
 * the requests one of its rules matches: same scheme, same host, same port,
 * a listed method, and a normalised path under the rule's prefix. The
 * reasons for each choice are at the top of httprules.c.
 */
#ifndef JR_HTTPRULES_H
#define JR_HTTPRULES_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "err.h"
#include "host.h"

#define JR_HTTPRULES_MAX 1024	   /* rules per sandbox */
#define JR_HTTPRULE_METHODS_MAX 16 /* methods per rule */
#define JR_HTTPRULE_METHOD_MAX 31  /* bytes of one method */
#define JR_HTTPRULE_PATH_MAX 1024  /* bytes of a rule's path prefix */
#define JR_HTTPRULE_TEXT_MAX 1400  /* bytes of a rule as given */

struct jr_http_rule {
	bool any_method; /* METHODS was "*" */
	char methods[JR_HTTPRULE_METHODS_MAX][JR_HTTPRULE_METHOD_MAX + 1];
	size_t n_methods;
	bool https;		    /* https:// (else http://) */
	bool wildcard;		    /* host is "*.<host>": strictly below it */
	char host[JR_HOST_MAX + 1]; /* lowercase, no trailing dot; the
				       suffix of a wildcard, without "*." */
	uint16_t port;		    /* explicit, or 80 / 443 */
	char path[JR_HTTPRULE_PATH_MAX + 1]; /* normalised prefix, from '/' */
	char text[JR_HTTPRULE_TEXT_MAX + 1]; /* as given, for messages */
};

struct jr_httprules {
	struct jr_http_rule *rules;
	size_t n, cap;
};

/* The verdict on one request; stable names for the audit log. */
enum jr_http_verdict {
	JR_HTTP_ALLOWED = 0,	 /* "allowed": a rule matches, or the host
				    has no rules */
	JR_HTTP_DENY_RULE,	 /* "http-rule": the host has rules and none
				    allows this method and path */
	JR_HTTP_DENY_PATH,	 /* "http-path": the request target was
				    refused by the normaliser (dot segment,
				    encoded dot or slash, ';', control,
				    overlong UTF-8, fragment, ...) */
	JR_HTTP_NEED_INSPECTION, /* "http-rules-need-inspection": the host
				    has rules but the connection cannot be
				    read (CONNECT, TLS): refused */
};

const char *jr_http_verdict_name(enum jr_http_verdict v);

/*
 * jr_httprule_parse - parse one --allow-http rule into @out.
 * On error, @err names the rule and what is wrong with it, e.g.
 *   "--allow-http 'GET http://a.test/x/../y': the path: a dot segment
 *    ('.' or '..') is not allowed"
 * Return: 0 or -EINVAL.
 */
int jr_httprule_parse(const char *text, struct jr_http_rule *out,
		      struct jr_err *err);

void jr_httprules_init(struct jr_httprules *r);
void jr_httprules_free(struct jr_httprules *r);

/*
 * jr_httprules_add - parse @text and append it.
 * Return: 0, -EINVAL (see jr_httprule_parse()), -E2BIG (more than
 * JR_HTTPRULES_MAX rules) or -ENOMEM. On error @r is unchanged.
 */
int jr_httprules_add(struct jr_httprules *r, const char *text,
		     struct jr_err *err);

/*
 * jr_httprule_policy_entry - the --allow entry a rule implies, "host:port"
 * or "*.suffix:port", into @out: a rule's host is allowed implicitly, on
 * the rule's port only. Return: 0 or -ENOSPC.
 */
int jr_httprule_policy_entry(const struct jr_http_rule *rule, char *out,
			     size_t size);

/*
 * jr_httprules_host_has_rules - does any rule name @host (any case, one
 * trailing dot ignored), on any port and by either scheme? Such a host is
 * reached only by requests a rule allows, so a connection to it that
 * cannot be read request by request must be refused.
 * @r may be NULL (no rules).
 */
bool jr_httprules_host_has_rules(const struct jr_httprules *r,
				 const char *host);

/*
 * jr_httprules_normalise_path - the normalised path of a request target.
 * @target: origin-form, "/path[?query]" (@len bytes, need not end in NUL)
 * @out: at least @len + 1 bytes; the path, NUL-terminated, without the query
 * @why: on refusal, a static sentence saying why
 *
 * Percent-escapes of unreserved characters (RFC 3986 2.3) other than '.'
 * are decoded, every other escape is kept with its hex in uppercase (RFC
 * 3986 6.2.2.1); refused: a target not starting with '/', a fragment
 * ('#'), a backslash, a ';' (also %3B), a byte outside RFC 3986 pchar, a
 * malformed escape, an encoded '.', '/', '\', NUL or other control, a dot
 * segment ('.', '..', '...', dots with spaces or '+'), escaped bytes that
 * are not well-formed UTF-8 (overlong "%C0%AE"), a code point Unicode
 * folding turns into one of those (see the top of httprules.c), and an
 * encoded '%' before two hex digits ("%252e", "%25252e").
 *
 * Return: the length of @out, or -EINVAL.
 */
long jr_httprules_normalise_path(const char *target, size_t len, char *out,
				 const char **why);

/*
 * jr_httprules_check - may this request go out?
 * @r: the rules (NULL: none)
 * @scheme: "http" or "https"
 * @host: the request's host (any case, one trailing dot ignored)
 * @port: the port the connection goes to
 * @method: the request method, compared exactly (case-sensitive)
 * @target: the origin-form request target as sent upstream, NUL-terminated
 * @reason: set to a static sentence for the refusal (may be NULL)
 *
 * A host no rule names is not governed by rules: JR_HTTP_ALLOWED. Else the
 * request must match one rule of the same scheme, host and port, listing
 * @method (or "*"), whose path prefix covers the normalised path: a prefix
 * ending in '/' covers the paths that start with it; any other prefix
 * covers itself and the paths below it ("/a/b" covers "/a/b" and
 * "/a/b/c", not "/a/bc"). The query is not matched.
 *
 * Return: JR_HTTP_ALLOWED, JR_HTTP_DENY_PATH or JR_HTTP_DENY_RULE (also
 * when memory runs out: fail closed).
 */
enum jr_http_verdict jr_httprules_check(const struct jr_httprules *r,
					const char *scheme, const char *host,
					uint16_t port, const char *method,
					const char *target,
					const char **reason);

#endif
