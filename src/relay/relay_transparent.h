/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * relay_transparent.h - the pure part of captured TCP
 * (relay_transparent.c), for its unit tests (tests/unit/test_transparent.c).
 * The relay reaches the module only through relay_transparent_ops
 * (relay_loop.h); no other relay module includes this header.
 */
#ifndef JR_RELAY_TRANSPARENT_H
#define JR_RELAY_TRANSPARENT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "host.h"

/* What the first bytes of a captured connection decide. */
enum relay_head_verdict {
	RELAY_HEAD_MORE,     /* too few bytes to tell: wait */
	RELAY_HEAD_GO,	     /* connect: the name matched, or none to see */
	RELAY_HEAD_RESET,    /* refuse with a TCP reset (TLS) */
	RELAY_HEAD_HTTP_400, /* HTTP without exactly one valid Host */
	RELAY_HEAD_HTTP_403, /* HTTP whose Host is another name */
};
struct relay_head_decision {
	enum relay_head_verdict verdict;
	bool http;		    /* the bytes began an HTTP request */
	const char *reason;	    /* the audit reason of a refusal */
	char seen[JR_HOST_MAX + 1]; /* the SNI or Host found, or "" */
};
void relay_transparent_decide(const char *buf, size_t len, const char *host,
			      bool host_is_address, uint16_t port,
			      struct relay_head_decision *d);

#endif
