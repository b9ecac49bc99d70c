/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * nft.h - installing and verifying a jr_ruleset through a NETLINK_NETFILTER
 * socket that belongs to the worker network namespace.
 *
 * The socket is created by the sandbox's setup process inside the worker
 * netns and handed to the runner over SCM_RIGHTS; the runner (which holds
 * CAP_NET_ADMIN over the sandbox's user namespace as its owner) installs and
 * reads back the rules through it without ever entering the namespace.
 */
#ifndef JR_NFT_H
#define JR_NFT_H

#include <stdint.h>

#include <libmnl/libmnl.h>

#include "cleanup.h"
#include "err.h"
#include "ruleset.h"

/* Close (and so release the owned table of) an adopted socket. */
JR_DEFINE_CLEANUP(struct mnl_socket, mnl_socket_close)

/*
 * jr_nft_socket_from_fd - adopt a NETLINK_NETFILTER socket fd.
 * Binds it (kernel-chosen port id) and turns on NETLINK_EXT_ACK.
 * Takes ownership of @fd in every case.
 * Return: 0 and *out, or -errno with @err set.
 */
int jr_nft_socket_from_fd(int fd, struct mnl_socket **out, struct jr_err *err);

/*
 * jr_nft_install - install @rs in one atomic batch.
 * Every message asks for an ACK; all ACKs are read, and an error is mapped
 * back to the message that caused it (with the kernel's extended ACK text
 * when there is one).
 * Return: 0, or -errno with @err naming the failing object.
 */
int jr_nft_install(struct mnl_socket *nl, const struct jr_ruleset *rs,
		   struct jr_err *err);

/*
 * jr_nft_install_owned - build the ruleset @params describes and install it
 * with the table persistent (NFT_TABLE_F_PERSIST, Linux >= 6.9) and owned
 * by @nl, or, where the kernel refuses the persist flag (EOPNOTSUPP, which
 * aborts the batch whole), owned only. @params->persist is ignored.
 * @out: the ruleset installed, to verify and restore against
 * Return: 0 and *out, or -errno with @err naming the failing object.
 */
int jr_nft_install_owned(struct mnl_socket *nl,
			 const struct jr_ruleset_params *params,
			 struct jr_ruleset **out, struct jr_err *err);

/*
 * jr_nft_verify - read the whole ruleset of the namespace back and compare
 * it with @rs: exactly one table (ours, same flags), exactly our chains
 * (type, hook, priority, policy) and exactly our rules, expression by
 * expression, in order.
 * Return: 0 if equal, -EPROTO with @err describing the first difference, or
 * another -errno if the read itself failed.
 */
int jr_nft_verify(struct mnl_socket *nl, const struct jr_ruleset *rs,
		  struct jr_err *err);

/*
 * jr_nft_counters_read - the packets the refusing rules of @rs counted: the
 * sum of its named counters (ruleset.h, JR_NFT_COUNTER_TCP), read in one
 * dump. A counter that is gone adds nothing; 0 for a ruleset without
 * counters.
 * Return: 0 and *packets, or -errno with @err set.
 */
int jr_nft_counters_read(struct mnl_socket *nl, const struct jr_ruleset *rs,
			 uint64_t *packets, struct jr_err *err);

/*
 * jr_nft_restore - make the namespace's whole ruleset exactly @rs again, in
 * one atomic batch: every table present (of any family, ours included) is
 * deleted and @rs is added, so the kernel applies all of it or none.
 * A table owned by another socket cannot be deleted (EPERM): then nothing
 * changes and the caller must treat the sandbox as lost. The counters of
 * @rs are re-created from the figures the kernel held just before (set on
 * @rs's counter objects), so a restore does not lose the refusal count.
 * @removed: set to the names of the tables that were removed besides ours
 *           ("inet evil, ip nat"), for the tamper log; may be NULL
 * Return: 0, or -errno with @err set.
 */
int jr_nft_restore(struct mnl_socket *nl, const struct jr_ruleset *rs,
		   char *removed, size_t removed_size, struct jr_err *err);

/*
 * jr_nft_monitor_open - subscribe a second NETLINK_NETFILTER socket of the
 * worker netns to nf_tables change notifications (NFNLGRP_NFTABLES),
 * non-blocking, with a large receive buffer. Takes ownership of @fd.
 * Return: 0 and *out, or -errno with @err set.
 */
int jr_nft_monitor_open(int fd, struct mnl_socket **out, struct jr_err *err);

/*
 * jr_nft_monitor_drain - read every queued notification without blocking.
 * @changes: set to the number of ruleset-changing messages read (tables,
 *           chains, rules, sets, objects, flowtables: NEW and DEL)
 * Return: 0, -ENOBUFS if notifications were lost (overrun: the caller must
 * re-verify everything), or another -errno.
 */
int jr_nft_monitor_drain(struct mnl_socket *mon, unsigned int *changes);

#endif
