// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * libFuzzer target for nflogmsg.c: the input is one netlink message as
 * the runner's NFLOG socket would read it (from the kernel, but the
 * parser trusts no length in it). Parse it as a message of group 7 and,
 * from the same bytes, as a bare packet; check what the parser promises:
 * a protocol name, a NUL-terminated address, a port in range or -1. The
 * buffer is allocated at the input's exact size so that ASan sees one
 * byte too far.
 *
 *   clang -g -O1 -fsanitize=fuzzer,address,undefined -Isrc/net \
 *	src/net/nflogmsg.c tests/fuzz/fuzz_nflog.c -o fuzz_nflog -lmnl
 *   ./fuzz_nflog tests/fuzz/corpus/nflog
 */
#include <stdlib.h>
#include <string.h>

#include "fuzz.h"
#include "nflogmsg.h"

static void check_packet(const struct jr_nflog_packet *p)
{
	check(p->protocol && p->protocol[0]);
	check(memchr(p->address, '\0', sizeof(p->address)));
	check(p->port >= -1 && p->port <= 65535);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct jr_nflog_packet p;
	uint8_t *buf = malloc(size ? size : 1);
	int r;

	if (!buf)
		return 0;
	memcpy(buf, data, size);
	memset(&p, 0, sizeof(p));
	r = jr_nflog_parse_msg(buf, size, 7, &p);
	check(r >= -22 && r <= 1);
	if (r == 1)
		check_packet(&p);
	memset(&p, 0, sizeof(p));
	if (jr_nflog_parse_packet(buf, size, &p) == 0)
		check_packet(&p);
	free(buf);
	return 0;
}
