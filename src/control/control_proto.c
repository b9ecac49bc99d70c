// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * control_proto.c - the request grammar of the live policy socket (see
 * control_proto.h).
 *
 * Theory of operation
 *
 * The control socket takes a handful of flat requests, so this is not a
 * JSON library but a recogniser for exactly that shape: one object whose
 * members are strings or the literals true and false. Everything else a
 * general parser would take (numbers, null, nesting, arrays) is refused
 * with a message, because a request we half understand must not change a
 * policy: the relay applies a request only after this returns 0. The
 * rules are RFC 8259's where they apply: white space is space, tab, CR
 * and LF (section 2); a string has no raw control characters and only the
 * escapes of section 7. Two departures, both refusals: strings are ASCII
 * only (an --allow entry is ASCII; a \u escape must name a character from
 * U+0001 to U+007F, so no NUL can cut an entry short), and a key may
 * appear once (section 4 leaves duplicates to the implementation; the
 * last-wins reading of most parsers would let {"op":"status","op":"lock"}
 * mean what its first half does not say).
 *
 * The parser reads a counted buffer and never past it; it allocates
 * nothing, so the fuzz target (tests/fuzz/fuzz_control.c) only has to
 * look for crashes and broken invariants.
 */
#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include "asktable.h"
#include "control_proto.h"

#define KEY_MAX 16 /* longer than any key we know: "unknown key" */

struct cursor {
	const unsigned char *p, *end;
};

static void skip_ws(struct cursor *c)
{
	while (c->p < c->end && (*c->p == ' ' || *c->p == '\t' ||
				 *c->p == '\r' || *c->p == '\n'))
		c->p++;
}

static int hex_digit(unsigned char ch)
{
	if (ch >= '0' && ch <= '9')
		return ch - '0';
	if (ch >= 'a' && ch <= 'f')
		return ch - 'a' + 10;
	if (ch >= 'A' && ch <= 'F')
		return ch - 'A' + 10;
	return -1;
}

/*
 * parse_string() - a JSON string at @c (which points at its '"') into
 * @out (@cap bytes, NUL-terminated). A string too long for @out sets
 * *@too_long and is still consumed, so the caller can name its key.
 * Return: 0 or -EINVAL with @err set.
 */
static int parse_string(struct cursor *c, char *out, size_t cap, bool *too_long,
			struct jr_err *err)
{
	size_t n = 0;

	*too_long = false;
	c->p++; /* the opening quote */
	while (c->p < c->end) {
		unsigned char ch = *c->p++;

		if (ch == '"') {
			out[n < cap ? n : cap - 1] = '\0';
			return 0;
		}
		if (ch < 0x20)
			return jr_err_set(
			    err, EINVAL,
			    "a control character inside a string (escape it, RFC 8259 section 7)");
		if (ch >= 0x80)
			return jr_err_set(err, EINVAL,
					  "a non-ASCII byte inside a string: "
					  "requests are ASCII");
		if (ch == '\\') {
			if (c->p >= c->end)
				break;
			ch = *c->p++;
			switch (ch) {
			case '"':
			case '\\':
			case '/':
				break;
			case 'b':
				ch = '\b';
				break;
			case 'f':
				ch = '\f';
				break;
			case 'n':
				ch = '\n';
				break;
			case 'r':
				ch = '\r';
				break;
			case 't':
				ch = '\t';
				break;
			case 'u': {
				unsigned v = 0;

				if (c->end - c->p < 4)
					return jr_err_set(
					    err, EINVAL,
					    "a string is not terminated");
				for (int i = 0; i < 4; i++) {
					int d = hex_digit(*c->p++);

					if (d < 0)
						return jr_err_set(
						    err, EINVAL,
						    "a \\u escape needs four hex digits");
					v = v * 16 + (unsigned)d;
				}
				if (v == 0 || v >= 0x80)
					return jr_err_set(
					    err, EINVAL,
					    "a \\u escape outside U+0001..U+007F: requests are ASCII");
				ch = (unsigned char)v;
				break;
			}
			default:
				return jr_err_set(
				    err, EINVAL,
				    "an unknown escape '\\%c' in a string (RFC 8259 section 7)",
				    ch >= 0x21 && ch < 0x7f ? ch : '?');
			}
		}
		if (n + 1 < cap)
			out[n++] = (char)ch;
		else
			*too_long = true;
	}
	return jr_err_set(err, EINVAL, "a string is not terminated");
}

/* The literal true or false at @c. Return: 0 or -EINVAL. */
static int parse_bool(struct cursor *c, bool *v)
{
	size_t left = (size_t)(c->end - c->p);

	if (left >= 4 && !memcmp(c->p, "true", 4)) {
		c->p += 4;
		*v = true;
		return 0;
	}
	if (left >= 5 && !memcmp(c->p, "false", 5)) {
		c->p += 5;
		*v = false;
		return 0;
	}
	return -EINVAL;
}

static int op_from_name(const char *s, enum jr_control_op *op)
{
	static const struct {
		const char *name;
		enum jr_control_op op;
	} ops[] = {
		{ "allow", JR_CONTROL_ALLOW },
		{ "remove", JR_CONTROL_REMOVE },
		{ "lock", JR_CONTROL_LOCK },
		{ "status", JR_CONTROL_STATUS },
		{ "list", JR_CONTROL_LIST },
		{ "pending", JR_CONTROL_PENDING },
		{ "approve", JR_CONTROL_APPROVE },
		{ "deny", JR_CONTROL_DENY },
	};

	for (size_t i = 0; i < sizeof(ops) / sizeof(ops[0]); i++)
		if (!strcmp(s, ops[i].name)) {
			*op = ops[i].op;
			return 0;
		}
	return -EINVAL;
}

const char *jr_control_op_name(enum jr_control_op op)
{
	switch (op) {
	case JR_CONTROL_ALLOW:
		return "allow";
	case JR_CONTROL_REMOVE:
		return "remove";
	case JR_CONTROL_LOCK:
		return "lock";
	case JR_CONTROL_STATUS:
		return "status";
	case JR_CONTROL_LIST:
		return "list";
	case JR_CONTROL_PENDING:
		return "pending";
	case JR_CONTROL_APPROVE:
		return "approve";
	case JR_CONTROL_DENY:
		return "deny";
	}
	return "?";
}

/* Which keys a request had (each may appear once). */
struct seen {
	bool op, entry, close, id, always;
};

/* A boolean member ("close", "always"), once. */
static int parse_flag(struct cursor *c, const char *key, bool *seen, bool *v,
		      struct jr_err *err)
{
	if (*seen)
		return jr_err_set(err, EINVAL, "the key \"%s\" appears twice",
				  key);
	if (parse_bool(c, v) < 0)
		return jr_err_set(err, EINVAL,
				  "the value of \"%s\" must be true or false",
				  key);
	*seen = true;
	return 0;
}

/* An id: "N", or a pool's "K.N" (K a sandbox's number, 1..UINT32_MAX),
 * each part as jr_ask_parse_id() takes it. */
static int parse_id(const char *val, struct jr_control_req *req)
{
	const char *dot = strchr(val, '.');
	char k[16];
	uint64_t v;

	req->member = 0;
	if (!dot)
		return jr_ask_parse_id(val, &req->id);
	if ((size_t)(dot - val) >= sizeof(k))
		return -EINVAL;
	memcpy(k, val, (size_t)(dot - val));
	k[dot - val] = '\0';
	if (jr_ask_parse_id(k, &v) < 0 || v > UINT32_MAX ||
	    jr_ask_parse_id(dot + 1, &req->id) < 0)
		return -EINVAL;
	req->member = (uint32_t)v;
	return 0;
}

/* The string value of "op", "entry" or "id" in @val, once each. */
static int take_string(const char *key, const char *val, bool too_long,
		       struct jr_control_req *req, struct seen *seen,
		       struct jr_err *err)
{
	bool *once = !strcmp(key, "op")	     ? &seen->op
		     : !strcmp(key, "entry") ? &seen->entry
					     : &seen->id;

	if (*once)
		return jr_err_set(err, EINVAL, "the key \"%s\" appears twice",
				  key);
	*once = true;
	if (!strcmp(key, "op")) {
		if (too_long || op_from_name(val, &req->op) < 0)
			return jr_err_set(
			    err, EINVAL,
			    "an unknown op \"%.32s%s\" (known: allow, remove, lock, status, list, pending, approve, deny)",
			    val, too_long || strlen(val) > 32 ? "..." : "");
		return 0;
	}
	if (!strcmp(key, "id")) {
		if (too_long || parse_id(val, req) < 0)
			return jr_err_set(
			    err, EINVAL,
			    "the id \"%.32s%s\" is not a request number (decimal digits, or a pool's K.N, as \"pending\" lists them)",
			    val, too_long || strlen(val) > 32 ? "..." : "");
		return 0;
	}
	if (too_long)
		return jr_err_set(err, EINVAL,
				  "the entry is longer than %d bytes",
				  JR_CONTROL_ENTRY_MAX);
	memcpy(req->entry, val, sizeof(req->entry));
	return 0;
}

/* One member's value, by key. Return: 0 or -EINVAL with @err set. */
static int parse_member(struct cursor *c, const char *key, bool key_long,
			struct jr_control_req *req, struct seen *seen,
			struct jr_err *err)
{
	char val[JR_CONTROL_ENTRY_MAX + 1];
	bool too_long;
	int r;

	if (!key_long && !strcmp(key, "close"))
		return parse_flag(c, key, &seen->close, &req->close, err);
	if (!key_long && !strcmp(key, "always"))
		return parse_flag(c, key, &seen->always, &req->always, err);
	if (key_long ||
	    (strcmp(key, "op") && strcmp(key, "entry") && strcmp(key, "id")))
		return jr_err_set(
		    err, EINVAL,
		    "an unknown key \"%s%s\" (known: op, entry, close, id, always)",
		    key, key_long ? "..." : "");
	if (c->p >= c->end || *c->p != '"')
		return jr_err_set(err, EINVAL,
				  "the value of \"%s\" must be a string", key);
	r = parse_string(c, val, sizeof(val), &too_long, err);
	if (r < 0)
		return r;
	return take_string(key, val, too_long, req, seen, err);
}

/* The members an op needs or refuses, once the object is read. */
static int check_members(const struct jr_control_req *req,
			 const struct seen *seen, struct jr_err *err)
{
	bool wants_entry =
	    req->op == JR_CONTROL_ALLOW || req->op == JR_CONTROL_REMOVE;
	bool wants_id =
	    req->op == JR_CONTROL_APPROVE || req->op == JR_CONTROL_DENY;

	if (!seen->op)
		return jr_err_set(err, EINVAL, "no \"op\" in the request");
	if (wants_entry && (!seen->entry || !req->entry[0]))
		return jr_err_set(err, EINVAL,
				  "\"op\":\"%s\" needs an \"entry\"",
				  jr_control_op_name(req->op));
	if (!wants_entry && seen->entry)
		return jr_err_set(err, EINVAL,
				  "\"op\":\"%s\" takes no \"entry\"",
				  jr_control_op_name(req->op));
	if (wants_id && !seen->id)
		return jr_err_set(err, EINVAL,
				  "\"op\":\"%s\" needs an \"id\" (see "
				  "\"op\":\"pending\")",
				  jr_control_op_name(req->op));
	if (!wants_id && seen->id)
		return jr_err_set(err, EINVAL, "\"op\":\"%s\" takes no \"id\"",
				  jr_control_op_name(req->op));
	if (seen->close && req->op != JR_CONTROL_REMOVE)
		return jr_err_set(err, EINVAL,
				  "\"close\" goes with \"op\":\"remove\" only");
	if (seen->always && req->op != JR_CONTROL_APPROVE)
		return jr_err_set(
		    err, EINVAL,
		    "\"always\" goes with \"op\":\"approve\" only");
	return 0;
}

int jr_control_parse(const char *line, size_t len, struct jr_control_req *req,
		     struct jr_err *err)
{
	struct cursor c = { (const unsigned char *)line,
			    (const unsigned char *)line + len };
	struct seen seen = { 0 };
	int r;

	memset(req, 0, sizeof(*req));
	skip_ws(&c);
	if (c.p >= c.end)
		return jr_err_set(err, EINVAL, "an empty request");
	if (*c.p != '{')
		return jr_err_set(err, EINVAL,
				  "not a JSON object: a request is one line "
				  "like {\"op\":\"status\"}");
	c.p++;
	skip_ws(&c);
	if (c.p < c.end && *c.p == '}') {
		c.p++;
	} else {
		for (;;) {
			char key[KEY_MAX + 1];
			bool key_long;

			skip_ws(&c);
			if (c.p >= c.end || *c.p != '"')
				return jr_err_set(
				    err, EINVAL,
				    "bad JSON: expected a key in double quotes");
			r = parse_string(&c, key, sizeof(key), &key_long, err);
			if (r < 0)
				return r;
			skip_ws(&c);
			if (c.p >= c.end || *c.p != ':')
				return jr_err_set(
				    err, EINVAL,
				    "bad JSON: expected ':' after a key");
			c.p++;
			skip_ws(&c);
			r = parse_member(&c, key, key_long, req, &seen, err);
			if (r < 0)
				return r;
			skip_ws(&c);
			if (c.p < c.end && *c.p == ',') {
				c.p++;
				continue;
			}
			if (c.p < c.end && *c.p == '}') {
				c.p++;
				break;
			}
			return jr_err_set(err, EINVAL,
					  "bad JSON: expected ',' or '}'");
		}
	}
	skip_ws(&c);
	if (c.p != c.end)
		return jr_err_set(err, EINVAL,
				  "bad JSON: bytes after the object (one "
				  "request per line)");
	return check_members(req, &seen, err);
}

int jr_control_pool_ids(const char *in, size_t len, uint32_t seq, char *out,
			size_t size)
{
	static const char key[] = "\"id\":\"";
	const size_t klen = sizeof(key) - 1;
	size_t o = 0;

	for (size_t i = 0; i < len;) {
		/* Inside a string the relay's writer escapes every '"', so
		 * `"id":"` is only ever a key and the start of its value. */
		if (len - i >= klen && !memcmp(in + i, key, klen)) {
			int n = snprintf(out + o, size - o, "%s%u.", key, seq);

			if (n < 0 || (size_t)n >= size - o)
				return -ENOSPC;
			o += (size_t)n;
			i += klen;
			continue;
		}
		if (o + 1 >= size)
			return -ENOSPC;
		out[o++] = in[i++];
	}
	if (o >= size)
		return -ENOSPC;
	out[o] = '\0';
	return (int)o;
}
