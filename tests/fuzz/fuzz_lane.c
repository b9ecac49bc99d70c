// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * fuzz_lane.c - libFuzzer target for the --lane and --publish grammar
 * (lane.c).
 *
 * The input (a NUL-terminated copy, so embedded NULs cut it as a C caller
 * would) is parsed as a --lane and as a --publish value. Besides
 * ASan/UBSan findings, it aborts on broken invariants: an accepted value
 * has ports in 1..65535 and a socket address of its family carrying the
 * port; a host lane is an address literal (never a name), a name lane is
 * an entry the allowlist accepts; a refusal says why.
 *
 * Build and run (see also tests/fuzz/corpus/lane/):
 *   clang -g -O1 -fsanitize=fuzzer,address,undefined -Isrc -include /dev/null \
 *     src/lib/err.c src/policy/policy.c src/policy/lane.c tests/fuzz/fuzz_lane.c -o /tmp/fuzz_lane
 *   /tmp/fuzz_lane tests/fuzz/corpus/lane -max_total_time=60
 */
#include <arpa/inet.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "fuzz.h"
#include "lane.h"
#include "policy.h"

static uint16_t port_of(const struct sockaddr_storage *ss)
{
	if (ss->ss_family == AF_INET)
		return ntohs(((const struct sockaddr_in *)ss)->sin_port);
	check(ss->ss_family == AF_INET6);
	return ntohs(((const struct sockaddr_in6 *)ss)->sin6_port);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char *s = malloc(size + 1);
	struct jr_lane lane;
	struct jr_publish pub;
	struct jr_err err = { 0 };

	if (!s)
		return 0;
	memcpy(s, data, size);
	s[size] = '\0';

	if (jr_lane_parse(s, &lane, &err) == 0) {
		check(lane.port >= 1);
		check(strcmp(lane.text, s) == 0);
		if (lane.host) {
			check(port_of(&lane.addr) == lane.port);
			check(lane.addr_len ==
			      (lane.addr.ss_family == AF_INET
				   ? sizeof(struct sockaddr_in)
				   : sizeof(struct sockaddr_in6)));
		} else {
			struct jr_policy p;
			struct jr_err perr = { 0 };

			jr_policy_init(&p);
			check(jr_policy_add(&p, s, &perr) == 0);
			check(p.n == 1 && p.entries[0].port == lane.port);
			jr_policy_free(&p);
		}
	} else {
		check(err.code != 0 && err.msg[0] != '\0');
	}

	memset(&err, 0, sizeof(err));
	if (jr_publish_parse(s, &pub, &err) == 0) {
		check(pub.port >= 1 && pub.host_port >= 1);
		check(port_of(&pub.addr) == pub.host_port);
	} else {
		check(err.code != 0 && err.msg[0] != '\0');
	}
	free(s);
	return 0;
}
