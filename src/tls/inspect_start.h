/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * inspect_start.h - TLS inspection for one run, in the runner: the
 * sandbox's CA made when the run starts (--secret, --inspect, https://
 * --allow-http rules), the trust bundle the command is shown, and the end.
 *
 * The specs and values come first from secrets.c (jr_secrets_prepare());
 * init mounts the bundle over the system trust paths
 * (jr_mounts_trust_bundle(), mounts.h).
 */
#ifndef JR_INSPECT_START_H
#define JR_INSPECT_START_H

#include "err.h"
#include "secrets.h"

/* Where distributions keep the system CA bundle, in the order looked at. */
#define JR_TRUST_PATHS_N 2
extern const char *const jr_trust_paths[JR_TRUST_PATHS_N];

struct jr_options;
struct jr_audit;

/*
 * jr_inspect_start - make the CA and TLS contexts (tls_inspect.h) into
 * @set->inspect_ctx and the trust bundle into @set->trust_bundle, and point
 * SSL_CERT_FILE, NODE_EXTRA_CA_CERTS, REQUESTS_CA_BUNDLE, CURL_CA_BUNDLE and
 * GIT_SSL_CAINFO at @set->trust_path in the environment the command
 * inherits. Return: 0 or -errno with @err set; jr_inspect_stop() in every
 * case.
 */
int jr_inspect_start(struct jr_secrets *set, const struct jr_options *opts,
		     struct jr_audit *audit, struct jr_err *err);

/* End every inspected connection and free the CA (keeps the counts);
 * idempotent. */
void jr_inspect_stop(struct jr_secrets *set);

#endif
