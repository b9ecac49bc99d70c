// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * fuzz_liveproto.c - libFuzzer target for the live sandboxes' request
 * reader (liveproto.c), which the runner and the zygote run on bytes a
 * client sent.
 *
 * Besides ASan/UBSan findings, it aborts on broken invariants: an
 * accepted request has a known type; an EXEC has a non-empty argv ended
 * by NULL, every string inside the message, each --env entry valid and a
 * cwd that is absolute; and the encoder, given what was decoded, writes
 * the same bytes back (so no two messages decode alike and nothing in a
 * message is ignored). A refusal always says why.
 *
 * Build and run (tests/fuzz/run.sh does this for every target):
 *   clang -g -O1 -fsanitize=fuzzer,address,undefined -Isrc -Isrc/lib \
 *     src/lib/err.c src/control/liveproto.c tests/fuzz/fuzz_liveproto.c \
 *     -o /tmp/fuzz_liveproto
 *   /tmp/fuzz_liveproto tests/fuzz/corpus/liveproto -max_total_time=60
 */
#include <string.h>

#include "fuzz.h"
#include "liveproto.h"

static char msg[JR_LIVE_MSG_MAX + 1], again[JR_LIVE_MSG_MAX + 1];
static struct jr_live_req req;

static int inside(const char *s, size_t len)
{
	return s >= msg && s + strlen(s) < msg + len;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct jr_err err = { 0 };
	int n;

	if (size > JR_LIVE_MSG_MAX)
		return 0;
	memcpy(msg, data, size);
	if (jr_live_req_decode(msg, size, &req, &err) < 0) {
		check(err.code != 0 && err.msg[0]);
		return 0;
	}
	check(req.type >= JR_LIVE_EXEC && req.type <= JR_LIVE_STOP);
	if (req.type == JR_LIVE_EXEC) {
		check(req.argc >= 1 && req.argc <= JR_LIVE_ARGV_MAX);
		check(req.argv[req.argc] == NULL && req.argv[0][0]);
		for (size_t i = 0; i < req.argc; i++)
			check(inside(req.argv[i], size));
		for (size_t i = 0; i < req.n_env; i++)
			check(inside(req.env[i], size) &&
			      jr_live_env_check(req.env[i], &err) == 0);
		check(!req.cwd || (inside(req.cwd, size) && req.cwd[0] == '/'));
	}
	n = jr_live_req_encode(&req, again, sizeof(again), &err);
	check(n == (int)size && memcmp(again, data, size) == 0);
	return 0;
}
