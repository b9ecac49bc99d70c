/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * link.h - network links of the sandbox (libnl-3 route).
 */
#ifndef JR_LINK_H
#define JR_LINK_H

#include "err.h"

/* The loopback's ifindex in every new netns; the nft rules rely on it. */
#define JR_LOOPBACK_IFINDEX 1

/*
 * jr_link_lo_up - bring up "lo" in the current network namespace, read it
 * back, and check it is up and has ifindex JR_LOOPBACK_IFINDEX.
 * Return: 0 or -errno with @err set.
 */
int jr_link_lo_up(struct jr_err *err);

#endif
