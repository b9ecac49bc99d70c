// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * runid.c - making the run id (see runid.h).
 *
 * Theory of operation: 128 random bits from getrandom(2), written as hex.
 * The id names a run; it guards nothing, so the pool need not be
 * initialised: GRND_NONBLOCK is asked first, and only if the kernel's
 * pool is not ready yet (early boot, EAGAIN) does jailrun wait for it,
 * which is brief on any kernel since 5.4 (the jitter entropy source).
 * Uniqueness, not secrecy, is what the bits buy: two runs are expected
 * to share an id only after about 2^64 runs (the birthday bound).
 */
#include <errno.h>
#include <string.h>
#include <sys/random.h>

#include "runid.h"

void jr_run_id_format(const uint8_t bytes[JR_RUN_ID_BYTES],
		      char out[JR_RUN_ID_SIZE])
{
	static const char hex[] = "0123456789abcdef";

	for (size_t i = 0; i < JR_RUN_ID_BYTES; i++) {
		out[2 * i] = hex[bytes[i] >> 4];
		out[2 * i + 1] = hex[bytes[i] & 15];
	}
	out[2 * JR_RUN_ID_BYTES] = '\0';
}

/* Fill @buf wholly from getrandom(2) with @flags; a short read retries. */
static int fill_random(uint8_t *buf, size_t len, unsigned int flags)
{
	size_t got = 0;

	while (got < len) {
		ssize_t n = getrandom(buf + got, len - got, flags);

		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0)
			return -errno;
		got += (size_t)n;
	}
	return 0;
}

int jr_run_id_new(char out[JR_RUN_ID_SIZE], struct jr_err *err)
{
	uint8_t bytes[JR_RUN_ID_BYTES];
	int r = fill_random(bytes, sizeof(bytes), GRND_NONBLOCK);

	if (r == -EAGAIN)
		r = fill_random(bytes, sizeof(bytes), 0);
	if (r < 0)
		return jr_err_set(
		    err, -r,
		    "cannot make a run id: getrandom: %s (the kernel gives no random bytes; check that getrandom(2) is not blocked by a seccomp filter around jailrun)",
		    strerror(-r));
	jr_run_id_format(bytes, out);
	return 0;
}
