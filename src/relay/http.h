/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * http.h - the HTTP/1.x request heads the relay's proxy port accepts, and
 * the answers it writes. Pure: bytes in, decisions and bytes out.
 *
 * The proxy serves one request per client connection: CONNECT opens a
 * tunnel; an absolute-form request (GET http://host/path HTTP/1.1) is
 * rewritten to origin-form with Host taken from the URI and
 * "Connection: close", its body (Content-Length or chunked) is forwarded,
 * then the response is relayed until the upstream closes, and the client
 * connection is closed. So every request is checked, and no second request
 * can ride on a connection that was allowed for a first.
 */
#ifndef JR_HTTP_H
#define JR_HTTP_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "err.h"
#include "host.h"

#define JR_HTTP_HEAD_MAX 65536 /* a longer head is refused with 400 */

enum jr_http_form {
	JR_HTTP_FORM_CONNECT,  /* CONNECT host:port */
	JR_HTTP_FORM_ABSOLUTE, /* METHOD http://host[:port]/path */
};

enum jr_http_body {
	JR_HTTP_BODY_NONE,
	JR_HTTP_BODY_LENGTH,  /* Content-Length: body_length bytes */
	JR_HTTP_BODY_CHUNKED, /* Transfer-Encoding: chunked */
};

struct jr_http_request {
	enum jr_http_form form;
	char method[32];
	char host[JR_HOST_MAX + 1]; /* lowercase; IPv6 literal without
				       brackets */
	bool host_is_ipv6;	    /* was written in brackets */
	uint16_t port;		    /* explicit, or 80 for http:// */
	size_t head_len;	    /* bytes of the head incl. the empty line */
	enum jr_http_body body;
	uint64_t body_length; /* for JR_HTTP_BODY_LENGTH */
	char *upstream_head;  /* ABSOLUTE: the rewritten head to send
				  (malloc'd, NUL-terminated); NULL for CONNECT */
	size_t upstream_head_len;
};

/*
 * jr_http_parse_request - parse a request head at the start of @buf.
 * @buf/@len: bytes received so far from the client
 * @req: filled on success; release with jr_http_request_release()
 * @err: on failure, the reason (for the 400 body and the audit log)
 *
 * Refused (-EINVAL or -EMSGSIZE, the caller answers 400): malformed request
 * line or header, an HTTP version other than 1.0/1.1, origin-form
 * ("GET /x"), a scheme other than http:// in absolute form (https:// has to
 * use CONNECT), userinfo in the URI or authority, a bad authority (empty
 * host, port outside 1..65535, unbalanced brackets, junk), CONNECT without
 * a port, both Content-Length and Transfer-Encoding, several
 * Content-Length values that differ or one that is not a plain decimal,
 * a Transfer-Encoding other than exactly "chunked", bare CR or LF line
 * endings where CRLF is required, obs-fold (continuation lines), a head of
 * more than JR_HTTP_HEAD_MAX bytes (-EMSGSIZE).
 *
 * Return: 0 if more bytes are needed (and @len < JR_HTTP_HEAD_MAX), the
 * head length (> 0) on success, or a negative errno.
 */
long jr_http_parse_request(const char *buf, size_t len,
			   struct jr_http_request *req, struct jr_err *err);

void jr_http_request_release(struct jr_http_request *req);

/*
 * jr_http_parse_authority - split "host:port", "[v6]:port", or, when
 * @default_port is non-zero, also "host" / "[v6]".
 * Rejects userinfo ("u@h"), empty host, bad or missing port, junk.
 * Return: 0 or -EINVAL with @err set.
 */
int jr_http_parse_authority(const char *s, size_t n, uint16_t default_port,
			    char *host, size_t host_size, bool *is_ipv6,
			    uint16_t *port, struct jr_err *err);

/*
 * jr_http_origin_form - the origin-form request-target of an absolute URI:
 * "http://h" -> "/", "http://h?x=1" -> "/?x=1", "http://h:80/p?a=1" ->
 * "/p?a=1"; a fragment is dropped. Return: 0 or -EINVAL.
 */
int jr_http_origin_form(const char *uri, size_t n, char *out, size_t out_size);

/*
 * jr_http_response - write a complete response head and a one-line text
 * body: "HTTP/1.1 <status> <reason>", Content-Type: text/plain,
 * Content-Length, Connection: close, and, when @deny_tag is non-NULL,
 * "X-Jailrun-Deny: <deny_tag>". For 200 on CONNECT use
 * jr_http_connect_established() instead.
 * Return: bytes written (< @size), or -ENOSPC.
 */
int jr_http_response(char *out, size_t size, int status, const char *deny_tag,
		     const char *body_line);

/* "HTTP/1.1 200 Connection established\r\n\r\n" into @out. */
int jr_http_connect_established(char *out, size_t size);

/*
 * Streaming request-body framing, so the proxy forwards exactly the body
 * and nothing after it.
 */
struct jr_http_body_tracker {
	enum jr_http_body kind;
	uint64_t remaining; /* LENGTH: bytes left; CHUNKED: of this chunk */
	int state;	    /* private */
	bool done;
};

void jr_http_body_init(struct jr_http_body_tracker *t,
		       const struct jr_http_request *req);

/*
 * jr_http_body_feed - how many of @n bytes at @buf belong to the body.
 * Return: a count <= @n (the body ends at that count when t->done is set
 * afterwards), or -EINVAL on malformed chunked framing.
 */
long jr_http_body_feed(struct jr_http_body_tracker *t, const char *buf,
		       size_t n);

/*
 * jr_http_upstream_target - the origin-form target in the head the proxy
 * sends upstream ("METHOD SP target SP HTTP/1.1 CRLF ..."), which is what
 * --allow-http rules are checked against. Return: malloc'd, or NULL.
 */
char *jr_http_upstream_target(const struct jr_http_request *req);

#endif
