/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * hostsfile.h - the sandbox's /etc/hosts under transparent egress.
 *
 * A name the host pins in /etc/hosts never reaches the DNS forwarder: a
 * program that ignores the proxy reads the file (nsswitch "files") and
 * connects to the pinned address, which the worker's rules refuse even
 * when the policy allows the name. So the sandbox is shown a rewritten
 * copy: an allowed pinned name gets its synthetic address (fakeip.h),
 * numbered before the relay starts, and a captured connection to it is
 * judged by name like any other; the relay then resolves the name in the
 * runner's namespace, where getaddrinfo(3) reads the host's file and
 * finds the pinned address, which the SSRF guard checks as usual.
 */
#ifndef JR_HOSTSFILE_H
#define JR_HOSTSFILE_H

#include <stdbool.h>
#include <stddef.h>

#include "err.h"
#include "fakeip.h"
#include "policy.h"

/* The most of the host's /etc/hosts jailrun reads (blocklists run to a
 * few MiB). */
#define JR_HOSTSFILE_MAX (32u << 20)

/*
 * jr_hostsfile_rewrite - the sandbox's /etc/hosts from the host's.
 * @text, @len: the host's file (any bytes)
 * @p: the policy at start
 * @f: the synthetic table, before any DNS answer: each allowed pinned
 *     name is numbered here, in the file's order
 * @ipv6: the sandbox link has IPv6: also a synthetic IPv6 line
 * @out: the new text (malloc'd, NUL-terminated), or NULL when it would
 *       be the host's file unchanged
 * @n_pinned: how many names got synthetic addresses
 *
 * Per line: comments, blank lines, and lines whose address cannot lead
 * out (unspecified 0.0.0.0/8 and ::, multicast and above 224/3, ff00::/8)
 * are kept as they are. A name the policy allows (case-insensitive, one
 * trailing dot ignored) is moved to a line of its own with its synthetic
 * address, unless it is a localhost name (localhost, *.localhost,
 * localhost.*, ip6-localhost, ip6-loopback) or sits on a loopback line
 * under --net public (every name matches there; 127.0.1.1 HOSTNAME must
 * stay the sandbox's own). The other names of a loopback line stay where
 * they are; the other names of any other address are left out: their
 * address is refused anyway, and out of the file they go to the DNS
 * forwarder, which answers NXDOMAIN and logs the refusal. Lines whose
 * address does not parse are left out (glibc ignores them too).
 * Return: 0, -ENOMEM, -ENOSPC (the synthetic pool is full).
 */
int jr_hostsfile_rewrite(const char *text, size_t len,
			 const struct jr_policy *p, struct jr_fakeip *f,
			 bool ipv6, char **out, size_t *n_pinned);

/*
 * jr_hostsfile_read - read @path (a regular file, at most
 * JR_HOSTSFILE_MAX bytes) into *@text (malloc'd, NUL-terminated; *@len
 * bytes without the NUL). A missing file is 0 with *@text NULL.
 * Return: 0 or -errno with @err set.
 */
int jr_hostsfile_read(const char *path, char **text, size_t *len,
		      struct jr_err *err);

#endif
