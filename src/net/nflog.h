/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * nflog.h - one audit line per packet the worker's firewall refuses: a
 * thread of the runner reading nfnetlink_log (NFLOG) group
 * JR_NFLOG_GROUP through a socket of the worker netns.
 */
#ifndef JR_NFLOG_H
#define JR_NFLOG_H

#include <stdint.h>

#include "audit.h"
#include "err.h"

struct jr_nflog;

struct jr_nflog_stats {
	uint64_t logged;     /* audit lines written */
	uint64_t suppressed; /* refusals over the rate limit (nflogmsg.h) */
	uint64_t overruns;   /* times the kernel dropped messages (ENOBUFS) */
};

/*
 * jr_nflog_open - adopt @fd, a NETLINK_NETFILTER socket init made in the
 * worker netns (NFT_EARLY), bind it to NFLOG group JR_NFLOG_GROUP with
 * the packet's first bytes copied and no batching, and wait for the
 * kernel's ACK. Takes @fd in every case.
 * Return: 0 and *out, or -errno with @err set (the caller then installs
 * the ruleset without the log expressions: refusals are still counted).
 */
int jr_nflog_open(int fd, struct jr_nflog **out, struct jr_err *err);

/*
 * jr_nflog_start - start the thread that turns each message into a
 * "firewall-refused" audit line on @audit (rate-limited).
 * Return: 0, or -errno with @err set (@l is kept, to be stopped).
 */
int jr_nflog_start(struct jr_nflog *l, struct jr_audit *audit,
		   struct jr_err *err);

/*
 * jr_nflog_stop - read what is still queued (the command is gone: every
 * message of its packets is), stop the thread, write one
 * "firewall-refused-unlogged" line if any refusal went unwritten, fill
 * @st (may be NULL) and free. NULL is a no-op.
 */
void jr_nflog_stop(struct jr_nflog *l, struct jr_nflog_stats *st);

#endif
