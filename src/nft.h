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
 * jr_nft_verify - read the whole ruleset of the namespace back and compare
 * it with @rs: exactly one table (ours, same flags), exactly our chains
 * (type, hook, priority, policy) and exactly our rules, expression by
 * expression, in order.
 * Return: 0 if equal, -EPROTO with @err describing the first difference, or
 * another -errno if the read itself failed.
 */
int jr_nft_verify(struct mnl_socket *nl, const struct jr_ruleset *rs,
		  struct jr_err *err);

#endif
