/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * control_proto.h - the request grammar of the live policy socket
 * (--control, jailrun(1) LIVE POLICY CHANGES). Pure: no I/O.
 *
 * One request is one line holding one flat JSON object (RFC 8259) whose
 * members are strings or booleans:
 *   {"op":"allow","entry":"x.test"}
 *   {"op":"remove","entry":"x.test"}   optional "close":true
 *   {"op":"lock"}  {"op":"status"}  {"op":"list"}
 *   {"op":"pending"}
 *   {"op":"approve","id":"3"}          optional "always":true
 *   {"op":"deny","id":"3"}
 * (an id is a string of decimal digits: values are strings or booleans;
 * a pool's socket lists and takes "K.N", request N of its sandbox K)
 */
#ifndef JR_CONTROL_PROTO_H
#define JR_CONTROL_PROTO_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "err.h"

/* The longest request line, newline included; longer is an error. */
#define JR_CONTROL_LINE_MAX 4096
/* The longest "entry" value (an --allow entry is far shorter). */
#define JR_CONTROL_ENTRY_MAX 512

enum jr_control_op {
	JR_CONTROL_ALLOW = 1,
	JR_CONTROL_REMOVE,
	JR_CONTROL_LOCK,
	JR_CONTROL_STATUS,
	JR_CONTROL_LIST,
	JR_CONTROL_PENDING, /* --ask: the held requests */
	JR_CONTROL_APPROVE,
	JR_CONTROL_DENY,
};

struct jr_control_req {
	enum jr_control_op op;
	char entry[JR_CONTROL_ENTRY_MAX + 1]; /* allow/remove; "" otherwise */
	bool close;			      /* remove: close open tunnels */
	uint64_t id;			      /* approve/deny: the request */
	/* approve/deny of a pool's request, id "K.N" (pool_ctl.c): K, the
	 * number of its sandbox; 0: a plain id */
	uint32_t member;
	bool always; /* approve: add its entry */
};

/*
 * jr_control_parse - parse one request.
 * @line: the bytes of the line, without its newline (a trailing '\r' is
 *	  taken as white space); need not be NUL-terminated
 * @len: how many
 * @req: filled on success
 * @err: on failure, what is wrong, in words fit for the answer line
 *
 * Strict: one object, string keys, each key once, values that are strings
 * (ASCII only, JSON escapes allowed) or true/false; "op" required; "entry"
 * required by allow/remove and refused elsewhere; "close" only with
 * remove; "id" (decimal, 1 or more, no leading zero; or two such joined
 * by a '.', a pool's "K.N") required by approve and deny and refused
 * elsewhere; "always" only with approve; any other
 * key refused. Whether the entry is a valid --allow
 * entry is the policy's question, not this parser's.
 * Return: 0 or -EINVAL.
 */
int jr_control_parse(const char *line, size_t len, struct jr_control_req *req,
		     struct jr_err *err);

/*
 * jr_control_pool_ids - a sandbox's answer as its pool's socket gives it:
 * @in (@len bytes) copied to @out, each "id" value (as the relay writes
 * them, "id":"N") written "K.N" with K = @seq, the sandbox's number in
 * its pool. Return: @out's length (NUL-terminated), or -ENOSPC when @size
 * is too small.
 */
int jr_control_pool_ids(const char *in, size_t len, uint32_t seq, char *out,
			size_t size);

/* "allow", "remove", ... for an op, or "?" */
const char *jr_control_op_name(enum jr_control_op op);

#endif
