// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * json.c - see json.h. Errors are sticky: after the first failure every
 * call is a no-op and jr_json_finish() returns NULL, so callers check once.
 */

#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "buf.h"
#include "json.h"

void jr_json_init(struct jr_json *j)
{
	memset(j, 0, sizeof(*j));
	j->first[0] = true;
}

void jr_json_release(struct jr_json *j)
{
	free(j->buf);
	memset(j, 0, sizeof(*j));
}

static void put(struct jr_json *j, const char *s, size_t n)
{
	if (j->error)
		return;
	if (jr_buf_reserve(&j->buf, &j->cap, j->len + n + 1, 256, SIZE_MAX) <
	    0) {
		j->error = -ENOMEM;
		return;
	}
	memcpy(j->buf + j->len, s, n);
	j->len += n;
	j->buf[j->len] = '\0';
}

static void puts_(struct jr_json *j, const char *s)
{
	put(j, s, strlen(s));
}

/* Separator before a value: a comma unless first in its container. */
static void value_prefix(struct jr_json *j)
{
	if (j->after_key) {
		j->after_key = false;
		return;
	}
	if (!j->first[j->depth])
		put(j, ",", 1);
	j->first[j->depth] = false;
}

static void open_(struct jr_json *j, const char *c)
{
	value_prefix(j);
	if (j->depth + 1 >= JR_JSON_MAX_DEPTH) {
		j->error = -E2BIG;
		return;
	}
	puts_(j, c);
	j->first[++j->depth] = true;
}

static void close_(struct jr_json *j, const char *c)
{
	if (j->depth == 0 || j->after_key) {
		j->error = j->error ? j->error : -EINVAL;
		return;
	}
	j->depth--;
	puts_(j, c);
}

void jr_json_object_begin(struct jr_json *j)
{
	open_(j, "{");
}

void jr_json_object_end(struct jr_json *j)
{
	close_(j, "}");
}

void jr_json_array_begin(struct jr_json *j)
{
	open_(j, "[");
}

void jr_json_array_end(struct jr_json *j)
{
	close_(j, "]");
}

/* Length of the valid UTF-8 sequence at s (RFC 3629), or 0 if invalid. */
static size_t utf8_seq_len(const unsigned char *s)
{
	unsigned char c = s[0];

	if (c < 0x80)
		return 1;
	if (c >= 0xc2 && c <= 0xdf)
		return (s[1] & 0xc0) == 0x80 ? 2 : 0;
	if (c >= 0xe0 && c <= 0xef) {
		if ((s[1] & 0xc0) != 0x80 || (s[2] & 0xc0) != 0x80)
			return 0;
		if (c == 0xe0 && s[1] < 0xa0)
			return 0; /* overlong */
		if (c == 0xed && s[1] >= 0xa0)
			return 0; /* UTF-16 surrogate */
		return 3;
	}
	if (c >= 0xf0 && c <= 0xf4) {
		if ((s[1] & 0xc0) != 0x80 || (s[2] & 0xc0) != 0x80 ||
		    (s[3] & 0xc0) != 0x80)
			return 0;
		if (c == 0xf0 && s[1] < 0x90)
			return 0;
		if (c == 0xf4 && s[1] >= 0x90)
			return 0;
		return 4;
	}
	return 0;
}

static void put_escaped(struct jr_json *j, const char *str)
{
	const unsigned char *s = (const unsigned char *)str;

	put(j, "\"", 1);
	while (*s) {
		char esc[8];
		size_t n;

		switch (*s) {
		case '"':
			puts_(j, "\\\"");
			s++;
			continue;
		case '\\':
			puts_(j, "\\\\");
			s++;
			continue;
		case '\n':
			puts_(j, "\\n");
			s++;
			continue;
		case '\r':
			puts_(j, "\\r");
			s++;
			continue;
		case '\t':
			puts_(j, "\\t");
			s++;
			continue;
		default:
			break;
		}
		if (*s < 0x20 || *s == 0x7f) {
			snprintf(esc, sizeof(esc), "\\u%04x", *s);
			puts_(j, esc);
			s++;
			continue;
		}
		n = utf8_seq_len(s);
		if (n == 0) {
			puts_(j, "\\ufffd");
			s++;
			continue;
		}
		put(j, (const char *)s, n);
		s += n;
	}
	put(j, "\"", 1);
}

void jr_json_key(struct jr_json *j, const char *key)
{
	if (j->after_key) {
		j->error = j->error ? j->error : -EINVAL;
		return;
	}
	value_prefix(j);
	put_escaped(j, key);
	put(j, ":", 1);
	j->after_key = true;
}

void jr_json_string(struct jr_json *j, const char *s)
{
	value_prefix(j);
	if (!s)
		puts_(j, "null");
	else
		put_escaped(j, s);
}

void jr_json_int(struct jr_json *j, int64_t v)
{
	char num[32];

	value_prefix(j);
	snprintf(num, sizeof(num), "%" PRId64, v);
	puts_(j, num);
}

void jr_json_uint(struct jr_json *j, uint64_t v)
{
	char num[32];

	value_prefix(j);
	snprintf(num, sizeof(num), "%" PRIu64, v);
	puts_(j, num);
}

void jr_json_bool(struct jr_json *j, bool v)
{
	value_prefix(j);
	puts_(j, v ? "true" : "false");
}

void jr_json_null(struct jr_json *j)
{
	value_prefix(j);
	puts_(j, "null");
}

const char *jr_json_finish(struct jr_json *j)
{
	if (j->error || j->depth != 0 || j->after_key || !j->buf)
		return NULL;
	return j->buf;
}
