/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * json.h - a minimal JSON writer for the summary and the audit log.
 *
 * Writing only (jailrun never parses JSON). Strings are escaped per RFC 8259
 * section 7; bytes that are not valid UTF-8 are written as U+FFFD so that a
 * hostile command name can never produce invalid JSON for the reader.
 */
#ifndef JR_JSON_H
#define JR_JSON_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define JR_JSON_MAX_DEPTH 16

struct jr_json {
	char *buf;
	size_t len, cap;
	int error; /* first -errno hit, sticky */
	int depth;
	bool first[JR_JSON_MAX_DEPTH]; /* no member written yet at depth */
	bool after_key;
};

void jr_json_init(struct jr_json *j);
void jr_json_release(struct jr_json *j);

void jr_json_object_begin(struct jr_json *j);
void jr_json_object_end(struct jr_json *j);
void jr_json_array_begin(struct jr_json *j);
void jr_json_array_end(struct jr_json *j);
void jr_json_key(struct jr_json *j, const char *key);
void jr_json_string(struct jr_json *j, const char *s);
void jr_json_int(struct jr_json *j, int64_t v);
void jr_json_uint(struct jr_json *j, uint64_t v);
void jr_json_bool(struct jr_json *j, bool v);
void jr_json_null(struct jr_json *j);

/*
 * jr_json_finish - end the document.
 * Return: the NUL-terminated text (owned by @j), or NULL if any step failed
 * (out of memory, unbalanced nesting).
 */
const char *jr_json_finish(struct jr_json *j);

#endif
