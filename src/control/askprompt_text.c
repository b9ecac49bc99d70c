// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * askprompt_text.c - the pure part of --ask tty (see askprompt_text.h).
 *
 * Theory of operation: the answer read here is the relay's own
 * (relay_control.c, answer_pending(), written with json.c), so its shape
 * is known: "pending" is an array of flat objects whose members are "id"
 * (a decimal string), "host" (a string), "port" (a number or null), "via"
 * (a string) and "age_ms". Only the first object is read, and only those
 * members; the reader is still strict about what it takes (bounded
 * strings, no escapes, digits only), so a malformed answer is refused,
 * never half read. The host is a name the relay already validated; the
 * prompt still prints only printable ASCII, since it goes to the caller's
 * terminal.
 */
#include <errno.h>
#include <stdbool.h>
#include <stdio.h>
#include <string.h>

#include "askprompt_text.h"

/* [p, end) with @needle found: where it starts, or NULL. */
static const char *find(const char *p, const char *end, const char *needle)
{
	size_t n = strlen(needle);

	for (; p && (size_t)(end - p) >= n; p++)
		if (memcmp(p, needle, n) == 0)
			return p;
	return NULL;
}

/* The value of "key": in the object [obj, end), or NULL. */
static const char *member(const char *obj, const char *end, const char *key)
{
	char pat[24];
	const char *p;

	snprintf(pat, sizeof(pat), "\"%s\":", key);
	p = find(obj, end, pat);
	return p ? p + strlen(pat) : NULL;
}

/* A JSON string without escapes at @p into @out (@cap bytes with NUL). */
static int take_string(const char *p, const char *end, char *out, size_t cap)
{
	size_t n = 0;

	if (!p || p >= end || *p++ != '"')
		return -EINVAL;
	for (; p < end && *p != '"'; p++) {
		if (*p == '\\' || n + 1 >= cap)
			return -EINVAL;
		out[n++] = *p;
	}
	if (p >= end || n == 0)
		return -EINVAL;
	out[n] = '\0';
	return 0;
}

/* Decimal digits at @p (at most @max) into *@v. */
static int take_uint(const char *p, const char *end, uint64_t max, uint64_t *v)
{
	uint64_t x = 0;
	size_t n = 0;

	for (; p < end && *p >= '0' && *p <= '9'; p++, n++) {
		if (x > (max - (uint64_t)(*p - '0')) / 10)
			return -EINVAL;
		x = x * 10 + (uint64_t)(*p - '0');
	}
	if (n == 0)
		return -EINVAL;
	*v = x;
	return 0;
}

int jr_askprompt_first(const char *line, size_t len,
		       struct jr_askprompt_req *out)
{
	const char *end = line + len, *arr, *obj, *oend, *p;
	char id[24];
	uint64_t v;

	if (!find(line, end, "\"ok\":true"))
		return -EINVAL;
	arr = member(line, end, "pending");
	if (!arr || arr >= end || *arr != '[')
		return -EINVAL;
	obj = arr + 1;
	if (obj < end && *obj == ']')
		return 0;
	if (obj >= end || *obj != '{')
		return -EINVAL;
	oend = memchr(obj, '}', (size_t)(end - obj));
	if (!oend)
		return -EINVAL;
	memset(out, 0, sizeof(*out));
	if (take_string(member(obj, oend, "id"), oend, id, sizeof(id)) < 0 ||
	    take_uint(id, id + strlen(id), UINT64_MAX, &out->id) < 0 ||
	    out->id == 0 ||
	    take_string(member(obj, oend, "host"), oend, out->host,
			sizeof(out->host)) < 0 ||
	    take_string(member(obj, oend, "via"), oend, out->via,
			sizeof(out->via)) < 0)
		return -EINVAL;
	p = member(obj, oend, "port");
	if (!p)
		return -EINVAL;
	if ((size_t)(oend - p) >= 4 && memcmp(p, "null", 4) == 0)
		out->port = 0;
	else if (take_uint(p, oend, 65535, &v) < 0 || v == 0)
		return -EINVAL;
	else
		out->port = (unsigned)v;
	return 1;
}

/* @in as printable ASCII into @out (@cap bytes with NUL): the prompt goes
 * to the caller's terminal, where a control byte would act. */
static void printable(const char *in, char *out, size_t cap)
{
	size_t i;

	for (i = 0; i + 1 < cap && in[i]; i++)
		out[i] = in[i] >= 0x20 && in[i] < 0x7f ? in[i] : '?';
	out[i] = '\0';
}

size_t jr_askprompt_format(const struct jr_askprompt_req *req, char *buf,
			   size_t len)
{
	char host[JR_ASK_HOST_MAX + 1], via[sizeof(req->via)];
	char what[JR_ASK_HOST_MAX + 48];
	int n;

	printable(req->host, host, sizeof(host));
	printable(req->via, via, sizeof(via));
	if (req->port == 0)
		snprintf(what, sizeof(what), "%s (DNS lookup)", host);
	else
		snprintf(what, sizeof(what),
			 strchr(host, ':') ? "[%s]:%u (via %s)"
					   : "%s:%u (via %s)",
			 host, req->port, via);
	n = snprintf(buf, len,
		     "\r\njailrun: the command asks for %s: allow [o]nce, "
		     "[a]lways, or [d]eny? ",
		     what);
	if (n < 0 || len == 0)
		return 0;
	return (size_t)n < len ? (size_t)n : len - 1;
}

enum jr_askprompt_key jr_askprompt_key(unsigned char c)
{
	switch (c) {
	case 'o':
	case 'O':
	case 'y':
	case 'Y':
		return JR_ASKPROMPT_ONCE;
	case 'a':
	case 'A':
		return JR_ASKPROMPT_ALWAYS;
	case 'd':
	case 'D':
	case 'n':
	case 'N':
		return JR_ASKPROMPT_DENY;
	default:
		return JR_ASKPROMPT_AGAIN;
	}
}
