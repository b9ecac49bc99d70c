// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * fuzz_unixguard.c - libFuzzer target for what the unix socket guard reads
 * from the command's memory (unixguard_parse.c): the control-message walk,
 * the SCM_RIGHTS count and rewrite, the msghdr layouts and the unix address.
 *
 * The input is copied into a heap block of exactly its size, so ASan sees
 * any read or write past it (issue 21's heap overflow was a cmsg_len
 * trusted past the copy). Besides sanitizer findings it aborts when: a
 * message's data range leaves the buffer or the walk does not move
 * forward; the count and the rewrite disagree on whether the buffer is
 * well formed; a rewrite with the counted descriptors fails, or changes a
 * byte outside SCM_RIGHTS data; a parsed path is longer than sun_path.
 *
 * Build and run (tests/fuzz/run.sh does this for every target):
 *   clang -g -O1 -fsanitize=fuzzer,address,undefined -Isrc -include /dev/null \
 *     src/guard/unixguard_parse.c tests/fuzz/fuzz_unixguard.c -o /tmp/fuzz_unixguard
 *   /tmp/fuzz_unixguard tests/fuzz/corpus/unixguard -max_total_time=60
 */
#include <stdbool.h>
#include <string.h>
#include <sys/socket.h>

#include "fuzz.h"
#include "unixguard_parse.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char *ctl = malloc(size ? size : 1), *orig = malloc(size ? size : 1);
	char path[JR_UG_PATH_MAX + 1];
	struct jr_ug_cmsg c;
	size_t pos = 0, last = 0;
	long count;
	int r;

	check(ctl && orig);
	memcpy(ctl, data, size);
	memcpy(orig, data, size);
	while ((r = jr_ug_cmsg_next(ctl, size, &pos, &c)) == 1) {
		check(c.data_off >= last && c.data_off <= size);
		check(c.data_len <= size - c.data_off);
		check(pos > last);
		last = pos;
	}
	count = jr_ug_rights_count(ctl, size);
	check((count < 0) == (r < 0));
	if (count >= 0 && count <= 4096) {
		int *fds = malloc(((size_t)count + 1) * sizeof(int));

		check(fds != NULL);
		for (long i = 0; i < count; i++)
			fds[i] = (int)i;
		check(jr_ug_rights_rewrite(ctl, size, fds, (size_t)count) == 0);
		if (count > 0)
			check(jr_ug_rights_rewrite(ctl, size, fds,
						   (size_t)count - 1) < 0);
		/* Only SCM_RIGHTS data may have changed. */
		pos = 0;
		while (jr_ug_cmsg_next(orig, size, &pos, &c) == 1)
			if (c.level == SOL_SOCKET && c.type == SCM_RIGHTS)
				memcpy(orig + c.data_off, ctl + c.data_off,
				       c.data_len / sizeof(int) * sizeof(int));
		check(memcmp(orig, ctl, size) == 0);
		free(fds);
	} else if (count < 0) {
		int fd = 0;

		check(jr_ug_rights_rewrite(ctl, size, &fd, 0) < 0);
	}
	if (size >= JR_UG_COMPAT_MSGHDR_SIZE) {
		struct jr_ug_msghdr h;

		jr_ug_msghdr_decode(data, true, &h);
		if (size >= jr_ug_msghdr_size(false))
			jr_ug_msghdr_decode(data, false, &h);
	}
	if (jr_unixguard_parse_addr(ctl, size, path) == JR_UG_ADDR_PATH)
		check(strlen(path) <= JR_UG_PATH_MAX);
	free(ctl);
	free(orig);
	return 0;
}
