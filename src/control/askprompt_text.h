/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * askprompt_text.h - the pure part of --ask tty (askprompt.h): read the
 * first held request out of the relay's "pending" answer, word the prompt,
 * and map the key pressed to a decision. No I/O.
 */
#ifndef JR_ASKPROMPT_TEXT_H
#define JR_ASKPROMPT_TEXT_H

#include <stddef.h>
#include <stdint.h>

#include "asktable.h"

/* One held request as the prompt shows it. */
struct jr_askprompt_req {
	uint64_t id;
	char host[JR_ASK_HOST_MAX + 1];
	unsigned port; /* 0: a DNS lookup (the answer's "port":null) */
	char via[16];  /* "proxy", "transparent", "dns" */
};

/* What a key at the prompt means. */
enum jr_askprompt_key {
	JR_ASKPROMPT_AGAIN = 0, /* not a choice: ask again */
	JR_ASKPROMPT_ONCE,	/* o, y: approve this request */
	JR_ASKPROMPT_ALWAYS,	/* a: approve and add its entry */
	JR_ASKPROMPT_DENY,	/* d, n: deny */
};

/*
 * jr_askprompt_first - the oldest held request in a "pending" answer line
 * ({"ok":true,"op":"pending","pending":[{"id":"3","host":...},...]}).
 * @line: the answer, without its newline; need not be NUL-terminated
 * @len: its length
 * @out: filled when a request is found
 * Return: 1 and @out, 0 when nothing is held, -EINVAL for an answer that
 * is not a "pending" answer of this shape.
 */
int jr_askprompt_first(const char *line, size_t len,
		       struct jr_askprompt_req *out);

/*
 * jr_askprompt_format - the prompt for @req into @buf (always terminated):
 * "\r\njailrun: the command asks for x.test:443 (via proxy): allow [o]nce,
 * [a]lways, or [d]eny? ". A byte of the host that is not printable ASCII
 * is shown as '?'.
 * Return: the prompt's length.
 */
size_t jr_askprompt_format(const struct jr_askprompt_req *req, char *buf,
			   size_t len);

/* jr_askprompt_key - what the key @c means at the prompt. */
enum jr_askprompt_key jr_askprompt_key(unsigned char c);

#endif
