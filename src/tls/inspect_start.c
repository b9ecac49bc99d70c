/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * inspect_start.c - starting and ending TLS inspection for a run (see
 * inspect_start.h): the sandbox's CA and contexts, and the trust bundle
 * that makes the command trust it.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cleanup.h"
#include "envplan.h"
#include "inspect_start.h"
#include "options.h"
#include "tls_inspect.h"

const char *const jr_trust_paths[JR_TRUST_PATHS_N] = {
	"/etc/ssl/certs/ca-certificates.crt",
	"/etc/pki/tls/certs/ca-bundle.crt",
};

#define TRUST_BUNDLE_MAX (16u << 20)

/*
 * @set->trust_bundle: the host's CA bundle (the first of jr_trust_paths
 * that exists) with @ca_pem appended, and @set->trust_path; then the
 * variables TLS libraries read point there in the environment the command
 * inherits.
 */
static int trust_bundle(struct jr_secrets *set, const char *ca_pem,
			struct jr_err *err)
{
	_cleanup_close_ int fd = -1;
	const char *path = NULL;
	size_t len = 0, cap = 0, pl = strlen(ca_pem);
	char *buf = NULL;

	for (size_t i = 0; i < JR_TRUST_PATHS_N && fd < 0; i++) {
		fd = open(jr_trust_paths[i], O_RDONLY | O_CLOEXEC | O_NOCTTY);
		path = jr_trust_paths[i];
	}
	if (fd < 0)
		return jr_err_set(
		    err, ENOENT,
		    "--secret/--inspect: no system CA bundle at %s or %s to add the sandbox's CA to (install ca-certificates)",
		    jr_trust_paths[0], jr_trust_paths[1]);
	for (;;) {
		ssize_t k;

		if (len + 65536 > cap) {
			char *g;

			cap = cap ? cap * 2 : 262144;
			if (cap > TRUST_BUNDLE_MAX) {
				free(buf);
				return jr_err_set(err, EFBIG,
						  "%s is larger than %u bytes",
						  path, TRUST_BUNDLE_MAX);
			}
			g = realloc(buf, cap);
			if (!g) {
				free(buf);
				return jr_err_set(err, ENOMEM, "out of memory");
			}
			buf = g;
		}
		k = read(fd, buf + len, cap - len - pl - 2);
		if (k < 0 && errno == EINTR)
			continue;
		if (k < 0) {
			free(buf);
			return jr_err_set(err, errno, "cannot read %s: %s",
					  path, strerror(errno));
		}
		if (k == 0)
			break;
		len += (size_t)k;
	}
	if (len && buf[len - 1] != '\n')
		buf[len++] = '\n';
	memcpy(buf + len, ca_pem, pl + 1);
	set->trust_bundle = buf;
	set->trust_path = path;
	/* The names are envplan.h's: they are jailrun's own variables. */
	for (size_t i = 0; i < jr_env_n_ca_vars; i++)
		if (setenv(jr_env_ca_vars[i], path, 1) < 0)
			return jr_err_set(err, errno, "setenv: %s",
					  strerror(errno));
	return 0;
}

int jr_inspect_start(struct jr_secrets *set, const struct jr_options *opts,
		     struct jr_audit *audit, struct jr_err *err)
{
	struct jr_inspect_config ic = {
		.secrets = set,
		.audit = audit,
		.lifetime_ms = opts->timeout_ms,
		.idle_timeout_ms = opts->idle_timeout_ms,
	};
	int r;

	r = jr_inspect_new(&ic, &set->inspect_ctx, err);
	if (r < 0)
		return r;
	return trust_bundle(set, jr_inspect_ca_pem(set->inspect_ctx), err);
}

void jr_inspect_stop(struct jr_secrets *set)
{
	jr_inspect_free(set->inspect_ctx);
	set->inspect_ctx = NULL;
}
