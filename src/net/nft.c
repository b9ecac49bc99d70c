// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * nft.c - installing a jr_ruleset in the worker network namespace and
 * reading it back, through a NETLINK_NETFILTER socket of that namespace.
 *
 * Theory of operation
 *
 * The socket is created inside the worker namespace and handed to the
 * runner, which binds it and from then on is the only holder. The table is
 * created with NFT_TABLE_F_OWNER, so the kernel ties it to this socket: only
 * requests sent through it may change the table, and (unless the table is
 * also NFT_TABLE_F_PERSIST) the table goes away when the socket is released. jr_nft_socket_from_fd() therefore marks the
 * socket close-on-exec: a process that inherited it could rewrite the rules.
 * jr_nft_install_owned() asks for NFT_TABLE_F_PERSIST too and, where the
 * kernel (before 6.9) refuses that flag with EOPNOTSUPP, which aborts the
 * batch whole, installs the owner-only table instead.
 *
 * Installing is one nfnetlink batch: BATCH_BEGIN, the table, its chains,
 * their rules, BATCH_END. nf_tables applies a batch as one transaction, so
 * the namespace has either the whole ruleset or none of it. Every message
 * between BEGIN and END carries NLM_F_ACK and its own sequence number, so
 * the kernel answers each one (an ACK, or the error it caused, with the
 * extended ACK when NETLINK_EXT_ACK is on), and an error maps back to the
 * object that caused it by sequence number. BEGIN and END carry no
 * NLM_F_ACK: Linux before 6.10 never answers them. A failure of the batch
 * as a whole (no CAP_NET_ADMIN, no nf_tables, a failed commit) comes back
 * as an error for BEGIN's sequence number, and should the kernel ever drop
 * a batch without a word, the messages it did not answer are the error.
 *
 * The kernel processes a batch synchronously inside sendmsg():
 * netlink_unicast_kernel() runs nfnetlink_rcv() in the sender's context,
 * and all answers are queued on the socket before sendmsg() returns (nft's
 * mnl_batch_talk() relies on the same). So the answers are read without
 * blocking until the queue is empty, and any message left unanswered then
 * is an error rather than a reason to wait.
 *
 * Verifying reads back everything nf_tables holds in the namespace (the
 * tables of every family, every chain and every rule, not just ours) and
 * requires it to be exactly the intended ruleset: one table with the same
 * flags, owned by this socket, holding nothing but our chains; the chains
 * with the same type, hook, priority and policy; and in each chain the
 * same rules in the same order, compared by their libnftnl text form once
 * the attributes the kernel assigns (handle, position) are removed. The
 * three dumps are bracketed by reading the ruleset generation id; if it
 * moved, or the kernel flagged a dump as interrupted, they are read again.
 *
 * Restoring is the install batch with one NFT_MSG_DELTABLE in front for
 * every table a dump just listed (of every family, ours included):
 * BEGIN, the deletions, the table, chains, rules, END. It is still one
 * transaction: the old ruleset is either replaced whole or left alone.
 * Tables are deleted by family and name, the lookup in which nf_tables
 * checks ownership: deleting a table owned by another socket is EPERM,
 * which aborts the batch. There is a window between the dump and the
 * batch. A table deleted in it makes its DELTABLE fail with ENOENT, and one
 * created in it with our table's name makes NEWTABLE fail; both mean "list
 * again", and jr_nft_restore() does, a few times. A table of another name
 * created in it survives the batch unnoticed here: the caller verifies
 * after restoring and finds it then.
 *
 * Monitoring uses a second socket of the namespace subscribed to the
 * NFNLGRP_NFTABLES multicast group, on which nf_tables announces every
 * object each commit adds or deletes (after the commit, so a verify that
 * follows the notification sees the change). The socket is only a hint
 * that it is time to verify: notifications can be lost when its receive
 * queue overflows (the kernel then reports ENOBUFS once), and nothing a
 * notification says is trusted beyond "something changed".
 *
 * Only datagrams whose sender is the kernel (nl_pid 0) are read: the
 * sockets live in the sandbox's namespace, where a process with
 * CAP_NET_ADMIN there could unicast forged "ACKs" or notifications to
 * their port ids.
 */
#include <errno.h>
#include <netinet/in.h>
#include <fcntl.h>
#include <limits.h>
#include <stdalign.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <time.h>

#include <linux/netfilter.h>
#include <linux/netfilter/nf_tables.h>
#include <linux/netfilter/nfnetlink.h>
#include <linux/netlink.h>

#include <libmnl/libmnl.h>
#include <libnftnl/batch.h>
#include <libnftnl/chain.h>
#include <libnftnl/common.h>
#include <libnftnl/gen.h>
#include <libnftnl/object.h>
#include <libnftnl/rule.h>
#include <libnftnl/table.h>

#include "cleanup.h"
#include "err.h"
#include "log.h"
#include "nft.h"
#include "ruleset-internal.h"
#include "ruleset.h"

JR_DEFINE_CLEANUP(struct nftnl_batch, nftnl_batch_free)
JR_DEFINE_CLEANUP(struct nftnl_gen, nftnl_gen_free)
JR_DEFINE_CLEANUP(struct nftnl_table_list_iter, nftnl_table_list_iter_destroy)
JR_DEFINE_CLEANUP(struct nftnl_chain_list_iter, nftnl_chain_list_iter_destroy)
JR_DEFINE_CLEANUP(struct nftnl_rule_list_iter, nftnl_rule_list_iter_destroy)
JR_DEFINE_CLEANUP(struct nftnl_obj_list, nftnl_obj_list_free)
JR_DEFINE_CLEANUP(struct nftnl_obj_list_iter, nftnl_obj_list_iter_destroy)

/*
 * Upper bound of one message jailrun builds. libnftnl writes messages
 * without bounds checks, so each must fit in the overrun area of a batch
 * page; a rule is a few hundred bytes, far below this.
 */
#define JR_NFT_MSG_MAX 16384
/* A batch page; a ruleset of jailrun's size fits in one. */
#define JR_NFT_BATCH_PAGE 65536
/*
 * Receive buffer: a dump datagram is at most 32 KiB (netlink_dump() caps
 * its skb there), and an error ACK echoes the failed message (at most
 * JR_NFT_MSG_MAX) plus the extended ACK.
 */
#define JR_NFT_RECV_SIZE 65536
/* Stateful objects a ruleset may hold (ruleset.h: two counters). */
#define JR_NFT_MAX_OBJS 8
/* How often the dumps are retried while the ruleset keeps changing. */
#define JR_NFT_DUMP_TRIES 3
/* Room for one rule in libnftnl's text form. */
#define JR_NFT_RULE_TEXT 4096
/*
 * Receive buffer room per message of a batch: a success ACK is a small skb
 * (its truesize, which the queue limit counts, is well under this); error
 * ACKs, which echo the request, are covered by the batch's own size on top.
 * nft budgets the same (NFT_MNL_ACK_MAXSIZE in nftables' src/mnl.c).
 */
#define JR_NFT_ACK_ROOM 1024
/*
 * Receive buffer asked for the monitor socket. Losing notifications is
 * harmless (the caller re-verifies on ENOBUFS), so this only has to absorb
 * the bursts between two drains; it also bounds the kernel memory that a
 * sandbox flooding changes can pin in the queue. Without CAP_NET_ADMIN in
 * the initial user namespace the kernel caps it at net.core.rmem_max.
 */
#define JR_NFT_MONITOR_RCVBUF (4 * 1024 * 1024)
/*
 * Datagrams one jr_nft_monitor_drain() reads at most: more than a full
 * receive queue of the size above holds, so the bound only ends a drain
 * that new notifications keep feeding, rather than starving the caller.
 */
#define JR_NFT_MONITOR_MAX_READS 65536

/**
 * nft_seq_alloc() - reserve @n consecutive sequence numbers.
 * @n: how many
 *
 * The numbers only have to tell the answers to this request from those to
 * an earlier request abandoned half-read on the same socket; starting from
 * the clock, as nft does, is plenty. Not thread-safe: the runner does all
 * of its nftables work from one thread.
 *
 * Return: the first of the @n numbers.
 */
static uint32_t nft_seq_alloc(uint32_t n)
{
	static uint32_t next;
	uint32_t first;

	if (!next)
		next = (uint32_t)time(NULL);
	first = next;
	next += n;
	return first;
}

/**
 * nft_recv() - receive one datagram sent by the kernel.
 * @nl: socket
 * @buf: buffer of JR_NFT_RECV_SIZE bytes
 * @flags: 0 or MSG_DONTWAIT
 *
 * Datagrams from any other sender are dropped (see the top of this file).
 *
 * Return: the length of the datagram, or -errno (-EAGAIN when @flags has
 * MSG_DONTWAIT and nothing is queued, -ENOBUFS when the kernel had to drop
 * messages because the receive queue was full).
 */
static ssize_t nft_recv(const struct mnl_socket *nl, void *buf, int flags)
{
	for (;;) {
		struct sockaddr_nl from;
		struct iovec iov = { .iov_base = buf,
				     .iov_len = JR_NFT_RECV_SIZE };
		struct msghdr msg = {
			.msg_name = &from,
			.msg_namelen = sizeof(from),
			.msg_iov = &iov,
			.msg_iovlen = 1,
		};
		ssize_t n;

		n = recvmsg(mnl_socket_get_fd(nl), &msg, flags);
		if (n < 0) {
			if (errno == EINTR)
				continue;
			return -errno;
		}
		/* Before the size: a forged datagram may be any size. */
		if (msg.msg_namelen != sizeof(from) ||
		    from.nl_family != AF_NETLINK || from.nl_pid != 0)
			continue;
		if (msg.msg_flags & MSG_TRUNC)
			return -EMSGSIZE;
		return n;
	}
}

/**
 * nft_adopt() - take over a NETLINK_NETFILTER socket fd and bind it.
 * @fd: the socket; owned from here on, closed on failure
 * @what: what the socket is for, in error messages ("nftables socket")
 * @out: set to the bound socket
 * @err: set on failure
 *
 * Checks that @fd is a netlink socket of protocol NETLINK_NETFILTER, makes
 * it close-on-exec and binds it to a port id the kernel chooses.
 *
 * Return: 0, or -errno with @err set.
 */
static int nft_adopt(int fd, const char *what, struct mnl_socket **out,
		     struct jr_err *err)
{
	_cleanup_close_ int owned = fd;
	_cleanup_(mnl_socket_closep) struct mnl_socket *nl = NULL;
	int domain, proto, e;
	socklen_t len;

	if (fd < 0)
		return jr_err_set(err, EBADF, "no %s was passed", what);

	len = sizeof(domain);
	if (getsockopt(fd, SOL_SOCKET, SO_DOMAIN, &domain, &len) < 0) {
		e = errno;
		return jr_err_set(err, e, "the %s (fd %d) is not usable: %s",
				  what, fd, strerror(e));
	}
	len = sizeof(proto);
	if (getsockopt(fd, SOL_SOCKET, SO_PROTOCOL, &proto, &len) < 0) {
		e = errno;
		return jr_err_set(err, e,
				  "cannot query the protocol of the %s: %s",
				  what, strerror(e));
	}
	if (domain != AF_NETLINK || proto != NETLINK_NETFILTER)
		return jr_err_set(
		    err, EPROTOTYPE,
		    "the socket passed as the %s is not a NETLINK_NETFILTER socket (domain %d, protocol %d)",
		    what, domain, proto);

	/*
	 * Whoever holds the install socket may rewrite the table it will own,
	 * and the monitor socket is the runner's view of the sandbox: neither
	 * may leak into anything the runner executes.
	 */
	if (fcntl(fd, F_SETFD, FD_CLOEXEC) < 0) {
		e = errno;
		return jr_err_set(err, e,
				  "cannot make the %s close-on-exec: %s", what,
				  strerror(e));
	}

	nl = mnl_socket_fdopen(fd);
	if (!nl) {
		e = errno;
		return jr_err_set(err, e, "cannot adopt the %s: %s", what,
				  strerror(e));
	}
	steal_fd(&owned);

	if (mnl_socket_bind(nl, 0, MNL_SOCKET_AUTOPID) < 0) {
		e = errno;
		return jr_err_set(
		    err, e, "cannot bind the %s: %s%s", what, strerror(e),
		    e == EINVAL ? " (it must be handed over unbound)" : "");
	}
	*out = steal_pointer(&nl);
	return 0;
}

/**
 * nft_sock_grow_buf() - make a socket buffer hold at least @size bytes.
 * @nl: socket
 * @force_opt: SO_RCVBUFFORCE or SO_SNDBUFFORCE
 * @opt: SO_RCVBUF or SO_SNDBUF
 * @size: bytes wanted
 *
 * The FORCE option ignores net.core.[rw]mem_max but needs CAP_NET_ADMIN
 * in the initial user namespace (socket(7)), which a runner in a user
 * namespace lacks; the plain option then gets as close as the sysctl
 * allows. A buffer that is already large enough is left alone.
 *
 * Return: 0, or -errno if neither option could be set.
 */
static int nft_sock_grow_buf(const struct mnl_socket *nl, int force_opt,
			     int opt, int size)
{
	int fd = mnl_socket_get_fd(nl), cur = 0;
	socklen_t len = sizeof(cur);

	/* The kernel reports (and stores) twice what was asked for. */
	if (getsockopt(fd, SOL_SOCKET, opt, &cur, &len) == 0 && cur >= size)
		return 0;
	if (setsockopt(fd, SOL_SOCKET, force_opt, &size, sizeof(size)) == 0)
		return 0;
	if (setsockopt(fd, SOL_SOCKET, opt, &size, sizeof(size)) == 0)
		return 0;
	return -errno;
}

int jr_nft_socket_from_fd(int fd, struct mnl_socket **out, struct jr_err *err)
{
	_cleanup_(mnl_socket_closep) struct mnl_socket *nl = NULL;
	int one = 1, ret;

	ret = nft_adopt(fd, "nftables socket", &nl, err);
	if (ret < 0)
		return ret;
	if (mnl_socket_setsockopt(nl, NETLINK_EXT_ACK, &one, sizeof(one)) < 0) {
		int e = errno;

		return jr_err_set(
		    err, e,
		    "cannot enable extended ACKs on the nftables socket: %s (Linux 4.12 or later is needed)",
		    strerror(e));
	}

	*out = steal_pointer(&nl);
	return 0;
}

/*
 * Installing
 */

/* What a message of the install (or restore) batch does. */
enum nft_obj {
	NFT_OBJ_BATCH,
	NFT_OBJ_DELTABLE, /* deletes a table (restore only) */
	NFT_OBJ_TABLE,
	NFT_OBJ_OBJECT, /* a named counter (ruleset.h) */
	NFT_OBJ_CHAIN,
	NFT_OBJ_RULE,
};

/**
 * struct nft_batch_msg - one message of the install batch.
 * @nlh: the message, inside the batch's pages
 * @answered: the kernel sent an ACK or an error for it
 */
struct nft_batch_msg {
	const struct nlmsghdr *nlh;
	bool answered;
};

/**
 * struct nft_install - state of one install or restore batch.
 * @rs: what is installed
 * @del: tables deleted before @rs is added (family and name only); NULL
 *	for a plain install
 * @n_del: number of @del
 * @restore: this is jr_nft_restore()'s batch (changes the error hints)
 * @seq: sequence number of BATCH_BEGIN; message i has @seq + i
 * @msgs: the messages, BEGIN first and END last; only valid inside
 *	install_talk()
 * @n_msgs: number of @msgs
 * @err_index: index of the first message the kernel rejected, or @n_msgs
 * @err_code: its positive errno
 * @ext_msg: the kernel's extended ACK text for @err_index, or ""
 * @ext_off: offset of the attribute the kernel blamed, 0 if none
 */
struct nft_install {
	const struct jr_ruleset *rs;
	struct nftnl_table *const *del;
	size_t n_del;
	bool restore;
	uint32_t seq;
	struct nft_batch_msg *msgs;
	size_t n_msgs;
	size_t err_index;
	int err_code;
	char ext_msg[256];
	uint32_t ext_off;
};

/**
 * install_obj() - what message @i of the batch does.
 * @in: install state
 * @i: message index
 * @index: set to the index in in->del, rs->objs, rs->chains or rs->rules
 *
 * The batch is BEGIN, @in->n_del deletions, the table, its objects, the
 * chains, the rules, END.
 *
 * Return: the kind of message.
 */
static enum nft_obj install_obj(const struct nft_install *in, size_t i,
				size_t *index)
{
	const struct jr_ruleset *rs = in->rs;

	*index = 0;
	if (i == 0 || i == in->n_msgs - 1)
		return NFT_OBJ_BATCH;
	i--;
	if (i < in->n_del) {
		*index = i;
		return NFT_OBJ_DELTABLE;
	}
	i -= in->n_del;
	if (i == 0)
		return NFT_OBJ_TABLE;
	i--;
	if (i < rs->n_objs) {
		*index = i;
		return NFT_OBJ_OBJECT;
	}
	i -= rs->n_objs;
	if (i < rs->n_chains) {
		*index = i;
		return NFT_OBJ_CHAIN;
	}
	*index = i - rs->n_chains;
	return NFT_OBJ_RULE;
}

/**
 * nft_family_name() - the nft keyword of an NFPROTO_* family.
 * @family: NFPROTO_* value
 *
 * Return: a static string.
 */
static const char *nft_family_name(uint32_t family)
{
	switch (family) {
	case NFPROTO_INET:
		return "inet";
	case NFPROTO_IPV4:
		return "ip";
	case NFPROTO_IPV6:
		return "ip6";
	case NFPROTO_ARP:
		return "arp";
	case NFPROTO_BRIDGE:
		return "bridge";
	case NFPROTO_NETDEV:
		return "netdev";
	default:
		return "unknown-family";
	}
}

/*
 * Room for a whole table name as nft_name_escape() writes it: the kernel
 * allows NFT_NAME_MAXLEN - 1 = 255 bytes, each at most 4 once escaped.
 */
#define JR_NFT_NAME_TEXT JR_LOG_ESCAPED(255)
/* Room for a table name in an error message, which has more to say. */
#define JR_NFT_NAME_SHORT 100

/* An object name read from the kernel (any bytes but NUL, chosen by
 * whoever made it), fit for the tamper log: jr_log_escape(). */
static const char *nft_name_escape(const char *name, char *buf, size_t size)
{
	return jr_log_escape(name ? name : "(unnamed)", buf, size);
}

/**
 * table_describe() - "the table inet jailrun", for a person.
 * @t: table with family and name
 * @buf: output
 * @len: size of @buf
 *
 * Long names are cut short (JR_NFT_NAME_SHORT) so that the message still
 * says what is wrong with the table.
 */
static void table_describe(const struct nftnl_table *t, char *buf, size_t len)
{
	char name[JR_NFT_NAME_SHORT];

	snprintf(buf, len, "the table %s %s",
		 nft_family_name(nftnl_table_get_u32(t, NFTNL_TABLE_FAMILY)),
		 nft_name_escape(nftnl_table_get_str(t, NFTNL_TABLE_NAME), name,
				 sizeof(name)));
}

/**
 * rule_position() - the 1-based position of rule @k within its chain.
 * @rs: ruleset
 * @k: index in rs->rules
 *
 * Return: the position, as nft users count rules.
 */
static size_t rule_position(const struct jr_ruleset *rs, size_t k)
{
	const char *chain = nftnl_rule_get_str(rs->rules[k], NFTNL_RULE_CHAIN);
	size_t j, pos = 1;

	for (j = 0; j < k; j++) {
		if (!strcmp(nftnl_rule_get_str(rs->rules[j], NFTNL_RULE_CHAIN),
			    chain))
			pos++;
	}
	return pos;
}

/**
 * install_describe() - name what message @i does, for a person.
 * @in: install state
 * @i: message index
 * @buf: output
 * @len: size of @buf
 */
static void install_describe(const struct nft_install *in, size_t i, char *buf,
			     size_t len)
{
	const struct jr_ruleset *rs = in->rs;
	size_t k;

	switch (install_obj(in, i, &k)) {
	case NFT_OBJ_BATCH:
		snprintf(buf, len, "the batch as a whole");
		break;
	case NFT_OBJ_DELTABLE: {
		char table[JR_NFT_NAME_SHORT + 32];

		table_describe(in->del[k], table, sizeof(table));
		snprintf(buf, len, "the removal of %s", table);
		break;
	}
	case NFT_OBJ_TABLE:
		table_describe(rs->table, buf, len);
		break;
	case NFT_OBJ_OBJECT:
		snprintf(buf, len, "the counter '%s'",
			 nftnl_obj_get_str(rs->objs[k], NFTNL_OBJ_NAME));
		break;
	case NFT_OBJ_CHAIN:
		snprintf(buf, len, "the '%s' chain",
			 nftnl_chain_get_str(rs->chains[k], NFTNL_CHAIN_NAME));
		break;
	case NFT_OBJ_RULE:
		snprintf(buf, len, "rule %zu of the '%s' chain",
			 rule_position(rs, k),
			 nftnl_rule_get_str(rs->rules[k], NFTNL_RULE_CHAIN));
		break;
	}
}

/**
 * attr_name() - the name of top-level attribute @type of an @obj message.
 * @obj: kind of message
 * @type: attribute type
 *
 * Only the attributes jailrun sends are named.
 *
 * Return: a static string, or NULL.
 */
static const char *attr_name(enum nft_obj obj, uint16_t type)
{
	switch (obj) {
	case NFT_OBJ_DELTABLE:
	case NFT_OBJ_TABLE:
		switch (type) {
		case NFTA_TABLE_NAME:
			return "name";
		case NFTA_TABLE_FLAGS:
			return "flags";
		}
		break;
	case NFT_OBJ_OBJECT:
		switch (type) {
		case NFTA_OBJ_TABLE:
			return "table";
		case NFTA_OBJ_NAME:
			return "name";
		case NFTA_OBJ_TYPE:
			return "type";
		case NFTA_OBJ_DATA:
			return "data";
		}
		break;
	case NFT_OBJ_CHAIN:
		switch (type) {
		case NFTA_CHAIN_TABLE:
			return "table";
		case NFTA_CHAIN_NAME:
			return "name";
		case NFTA_CHAIN_HOOK:
			return "hook";
		case NFTA_CHAIN_POLICY:
			return "policy";
		case NFTA_CHAIN_TYPE:
			return "type";
		}
		break;
	case NFT_OBJ_RULE:
		switch (type) {
		case NFTA_RULE_TABLE:
			return "table";
		case NFTA_RULE_CHAIN:
			return "chain";
		case NFTA_RULE_EXPRESSIONS:
			return "expressions";
		}
		break;
	case NFT_OBJ_BATCH:
		break;
	}
	return NULL;
}

/**
 * expr_blamed() - which expression of a rule message @off points into.
 * @exprs: the NFTA_RULE_EXPRESSIONS nest
 * @base: the message @off is relative to
 * @off: offset the kernel blamed
 * @buf: output, e.g. "expression 2 (cmp)"
 * @len: size of @buf
 */
static void expr_blamed(const struct nlattr *exprs, const void *base,
			uint32_t off, char *buf, size_t len)
{
	const struct nlattr *e, *a;
	unsigned int n = 0;

	mnl_attr_for_each_nested (e, exprs) {
		size_t start = (size_t)((const char *)e - (const char *)base);

		n++;
		if (off < start || off >= start + mnl_attr_get_payload_len(e) +
					      MNL_ATTR_HDRLEN)
			continue;
		snprintf(buf, len, "expression %u", n);
		mnl_attr_for_each_nested (a, e) {
			if (mnl_attr_get_type(a) == NFTA_EXPR_NAME &&
			    mnl_attr_validate(a, MNL_TYPE_NUL_STRING) == 0)
				snprintf(buf, len, "expression %u (%s)", n,
					 mnl_attr_get_str(a));
		}
		return;
	}
}

/**
 * install_blamed() - describe the attribute the kernel's extended ACK
 * pointed at (NLMSGERR_ATTR_OFFS), found in our copy of the message.
 * @in: install state with an error recorded
 * @buf: output, "" when there is nothing to say
 * @len: size of @buf
 *
 * nf_tables mostly reports *which* attribute it rejected rather than a
 * text, so this is often the most precise part of the error.
 */
static void install_blamed(const struct nft_install *in, char *buf, size_t len)
{
	const struct nlmsghdr *nlh = in->msgs[in->err_index].nlh;
	const struct nlattr *a;
	enum nft_obj obj;
	size_t k;

	buf[0] = '\0';
	obj = install_obj(in, in->err_index, &k);
	if (!in->ext_off || in->ext_off >= nlh->nlmsg_len)
		return;
	mnl_attr_for_each (a, nlh, sizeof(struct nfgenmsg)) {
		size_t start = (size_t)((const char *)a - (const char *)nlh);
		const char *name;
		char expr[64] = "";

		if (in->ext_off < start ||
		    in->ext_off >=
			start + mnl_attr_get_payload_len(a) + MNL_ATTR_HDRLEN)
			continue;
		if (obj == NFT_OBJ_RULE &&
		    mnl_attr_get_type(a) == NFTA_RULE_EXPRESSIONS)
			expr_blamed(a, nlh, in->ext_off, expr, sizeof(expr));
		if (expr[0]) {
			snprintf(buf, len, " (in %s)", expr);
			return;
		}
		name = attr_name(obj, mnl_attr_get_type(a));
		if (name)
			snprintf(buf, len, " (in its %s)", name);
		else
			snprintf(buf, len, " (in its attribute %u)",
				 mnl_attr_get_type(a));
		return;
	}
}

/**
 * install_hint() - what a person can do about error @code on @obj.
 * @in: install state
 * @obj: kind of message the kernel rejected
 * @code: positive errno
 *
 * Return: a static string starting with ": ", or "".
 */
static const char *install_hint(const struct nft_install *in, enum nft_obj obj,
				int code)
{
	/*
	 * A restore lists the tables first; these mean the list was stale,
	 * even after jr_nft_restore() listed them again.
	 */
	if (obj == NFT_OBJ_DELTABLE && code == ENOENT)
		return ": it disappeared after jailrun listed the tables, again and again: something in the sandbox keeps changing them";
	if (in->restore && obj == NFT_OBJ_TABLE &&
	    (code == EEXIST || code == EPERM))
		return ": a table of that name appeared after jailrun listed the tables, again and again: something in the sandbox keeps changing them";

	switch (code) {
	case EPERM:
		if (obj == NFT_OBJ_TABLE)
			return ": a table of that name already exists and belongs to another netlink socket, so the network namespace is not the fresh one jailrun created";
		return ": jailrun needs CAP_NET_ADMIN in the user namespace that owns the sandbox's network namespace";
	case EEXIST:
		return ": it already exists, so the network namespace is not the fresh one jailrun created";
	case EAFNOSUPPORT:
		return ": the kernel lacks the inet family of nf_tables (CONFIG_NF_TABLES_INET)";
	case EOPNOTSUPP:
	case ENOENT:
		switch (obj) {
		case NFT_OBJ_BATCH:
			return ": the kernel lacks nf_tables (CONFIG_NF_TABLES) or cannot load the nf_tables module";
		case NFT_OBJ_DELTABLE:
			break;
		case NFT_OBJ_TABLE:
			return ": the kernel lacks nf_tables support for owned tables (Linux 5.12 or later)";
		case NFT_OBJ_OBJECT:
			return ": the kernel lacks nf_tables counter objects (Linux 4.10 or later, CONFIG_NFT_COUNTER)";
		case NFT_OBJ_CHAIN:
			return ": the kernel lacks nf_tables (CONFIG_NF_TABLES, CONFIG_NF_TABLES_INET) or the filter chain type for this hook";
		case NFT_OBJ_RULE:
			return ": the kernel lacks nf_tables (CONFIG_NF_TABLES) or an expression this rule uses";
		}
		break;
	case ENOMEM:
	case ENOBUFS:
		return ": the kernel is short of memory; try again";
	case EINVAL:
	case ERANGE:
	case E2BIG:
		return ": the kernel does not understand what jailrun sent; please report this with the output of uname -r";
	}
	return "";
}

/**
 * install_ack() - account for one NLMSG_ERROR answer.
 * @in: install state
 * @nlh: the answer
 *
 * Return: 0, or -EPROTO if it is malformed.
 */
static int install_ack(struct nft_install *in, const struct nlmsghdr *nlh)
{
	const struct nlmsgerr *e;
	const struct nlattr *a;
	size_t i, hlen;

	if (nlh->nlmsg_len < mnl_nlmsg_size(sizeof(*e)))
		return -EPROTO;
	e = mnl_nlmsg_get_payload(nlh);
	i = nlh->nlmsg_seq - in->seq;
	if (i >= in->n_msgs)
		return 0; /* the answer to an earlier, abandoned request */
	in->msgs[i].answered = true;
	if (e->error == 0)
		return 0;

	/*
	 * The kernel goes on after an error, and later messages often fail
	 * only because an earlier one did (no table, no chain): report the
	 * earliest one.
	 */
	if (i >= in->err_index)
		return 0;
	in->err_index = i;
	in->err_code = e->error < 0 ? -e->error : e->error;
	in->ext_msg[0] = '\0';
	in->ext_off = 0;

	if (!(nlh->nlmsg_flags & NLM_F_ACK_TLVS))
		return 0;
	/* The extended ACK follows the echoed request unless it was capped. */
	hlen = sizeof(*e);
	if (!(nlh->nlmsg_flags & NLM_F_CAPPED)) {
		if (e->msg.nlmsg_len < NLMSG_HDRLEN)
			return -EPROTO;
		hlen += e->msg.nlmsg_len - NLMSG_HDRLEN;
	}
	if (hlen > mnl_nlmsg_get_payload_len(nlh))
		return -EPROTO;
	mnl_attr_for_each (a, nlh, hlen) {
		switch (mnl_attr_get_type(a)) {
		case NLMSGERR_ATTR_MSG:
			if (mnl_attr_validate(a, MNL_TYPE_NUL_STRING) == 0)
				snprintf(in->ext_msg, sizeof(in->ext_msg), "%s",
					 mnl_attr_get_str(a));
			break;
		case NLMSGERR_ATTR_OFFS:
			if (mnl_attr_validate(a, MNL_TYPE_U32) == 0)
				in->ext_off = mnl_attr_get_u32(a);
			break;
		}
	}
	return 0;
}

/**
 * batch_tail() - where the next message of @b goes, zeroed.
 * @b: batch
 *
 * libmnl 1.0.4 leaves the padding after an attribute uninitialised, and
 * heap garbage has no business in what is sent to the kernel. Between
 * messages a page always has its whole overrun area (JR_NFT_MSG_MAX) free:
 * nftnl_batch_update() starts a new page once the current one is full.
 *
 * Return: the buffer for the next message.
 */
static void *batch_tail(struct nftnl_batch *b)
{
	return memset(nftnl_batch_buffer(b), 0, JR_NFT_MSG_MAX);
}

/**
 * install_build() - write the batch for @in into @b.
 * @in: install state; its @msgs are filled
 * @b: empty batch
 *
 * Return: 0 or -ENOMEM.
 */
static int install_build(struct nft_install *in, struct nftnl_batch *b)
{
	const struct jr_ruleset *rs = in->rs;
	struct nlmsghdr *nlh;
	size_t i = 0, k;

	in->msgs[i].nlh = nftnl_batch_begin(batch_tail(b), in->seq);
	if (nftnl_batch_update(b) < 0)
		return -ENOMEM;
	i++;

	/*
	 * By family and name (in->del carries nothing else): that lookup
	 * checks the table's owner, and it names what is deleted the way
	 * the error message does.
	 */
	for (k = 0; k < in->n_del; k++) {
		nlh = nftnl_nlmsg_build_hdr(
		    batch_tail(b), NFT_MSG_DELTABLE,
		    nftnl_table_get_u32(in->del[k], NFTNL_TABLE_FAMILY),
		    NLM_F_ACK, in->seq + i);
		nftnl_table_nlmsg_build_payload(nlh, in->del[k]);
		in->msgs[i++].nlh = nlh;
		if (nftnl_batch_update(b) < 0)
			return -ENOMEM;
	}

	/*
	 * EXCL: in a fresh namespace, nothing of ours may exist yet; in a
	 * restore, the deletions above have just freed the name.
	 */
	nlh = nftnl_nlmsg_build_hdr(
	    batch_tail(b), NFT_MSG_NEWTABLE,
	    nftnl_table_get_u32(rs->table, NFTNL_TABLE_FAMILY),
	    NLM_F_CREATE | NLM_F_EXCL | NLM_F_ACK, in->seq + i);
	nftnl_table_nlmsg_build_payload(nlh, rs->table);
	in->msgs[i++].nlh = nlh;
	if (nftnl_batch_update(b) < 0)
		return -ENOMEM;

	/* Before the chains: the rules that name them must resolve. */
	for (k = 0; k < rs->n_objs; k++) {
		nlh = nftnl_nlmsg_build_hdr(
		    batch_tail(b), NFT_MSG_NEWOBJ,
		    nftnl_obj_get_u32(rs->objs[k], NFTNL_OBJ_FAMILY),
		    NLM_F_CREATE | NLM_F_EXCL | NLM_F_ACK, in->seq + i);
		nftnl_obj_nlmsg_build_payload(nlh, rs->objs[k]);
		in->msgs[i++].nlh = nlh;
		if (nftnl_batch_update(b) < 0)
			return -ENOMEM;
	}

	for (k = 0; k < rs->n_chains; k++) {
		nlh = nftnl_nlmsg_build_hdr(
		    batch_tail(b), NFT_MSG_NEWCHAIN,
		    nftnl_chain_get_u32(rs->chains[k], NFTNL_CHAIN_FAMILY),
		    NLM_F_CREATE | NLM_F_EXCL | NLM_F_ACK, in->seq + i);
		nftnl_chain_nlmsg_build_payload(nlh, rs->chains[k]);
		in->msgs[i++].nlh = nlh;
		if (nftnl_batch_update(b) < 0)
			return -ENOMEM;
	}

	/* APPEND: without it NEWRULE inserts at the head of the chain. */
	for (k = 0; k < rs->n_rules; k++) {
		nlh = nftnl_nlmsg_build_hdr(
		    batch_tail(b), NFT_MSG_NEWRULE,
		    nftnl_rule_get_u32(rs->rules[k], NFTNL_RULE_FAMILY),
		    NLM_F_CREATE | NLM_F_APPEND | NLM_F_ACK, in->seq + i);
		nftnl_rule_nlmsg_build_payload(nlh, rs->rules[k]);
		in->msgs[i++].nlh = nlh;
		if (nftnl_batch_update(b) < 0)
			return -ENOMEM;
	}

	in->msgs[i].nlh = nftnl_batch_end(batch_tail(b), in->seq + i);
	if (nftnl_batch_update(b) < 0)
		return -ENOMEM;
	return 0;
}

/**
 * buf_size() - @bytes as a socket buffer size, saturated.
 * @bytes: wanted
 *
 * Return: @bytes, or INT_MAX / 2 if larger (the kernel doubles it).
 */
static int buf_size(size_t bytes)
{
	return bytes > INT_MAX / 2 ? INT_MAX / 2 : (int)bytes;
}

/**
 * install_send() - send the whole batch @b in one sendmsg().
 * @nl: socket
 * @b: batch
 * @n_msgs: number of messages in @b
 *
 * nfnetlink only treats messages as one batch when they arrive in one
 * datagram, so every page goes out in a single sendmsg(), which the send
 * buffer must hold. Every answer is queued before sendmsg() returns (see
 * the top of this file), so the receive buffer must hold all of them at
 * once; an overflow would lose answers (ENOBUFS). A restore of a namespace
 * with many tables can exceed the defaults, so both buffers are grown
 * first when needed, as nft's mnl_batch_talk() does. Growing is best
 * effort: where the limits stop it, the send fails with EMSGSIZE or the
 * lost answers are reported.
 *
 * Return: 0 or -errno.
 */
static int install_send(const struct mnl_socket *nl, struct nftnl_batch *b,
			size_t n_msgs)
{
	struct sockaddr_nl kernel = { .nl_family = AF_NETLINK };
	int n_iov = nftnl_batch_iovec_len(b);
	_cleanup_free_ struct iovec *iov = NULL;
	struct msghdr msg = {
		.msg_name = &kernel,
		.msg_namelen = sizeof(kernel),
	};
	size_t total = 0;
	ssize_t sent;
	int i;

	iov = calloc((size_t)n_iov, sizeof(*iov));
	if (!iov)
		return -ENOMEM;
	nftnl_batch_iovec(b, iov, (uint32_t)n_iov);
	for (i = 0; i < n_iov; i++)
		total += iov[i].iov_len;
	msg.msg_iov = iov;
	msg.msg_iovlen = (size_t)n_iov;

	/* netlink_sendmsg() refuses a datagram over the send buffer - 32. */
	(void)nft_sock_grow_buf(nl, SO_SNDBUFFORCE, SO_SNDBUF,
				buf_size(total + 32));
	(void)nft_sock_grow_buf(nl, SO_RCVBUFFORCE, SO_RCVBUF,
				buf_size(n_msgs * JR_NFT_ACK_ROOM + total));

	sent = sendmsg(mnl_socket_get_fd(nl), &msg, 0);
	if (sent < 0)
		return -errno;
	/* A netlink datagram is sent whole or not at all. */
	if ((size_t)sent != total)
		return -EIO;
	return 0;
}

/**
 * install_read_acks() - read every answer the kernel queued for the batch.
 * @nl: socket
 * @in: install state
 *
 * Return: 0, or -errno if reading failed; -ENOBUFS if the receive queue
 * overflowed and some answers were lost (the rest are still read).
 */
static int install_read_acks(const struct mnl_socket *nl,
			     struct nft_install *in)
{
	_cleanup_free_ void *buf = NULL;
	uint32_t portid = mnl_socket_get_portid(nl);
	bool lost = false;

	buf = malloc(JR_NFT_RECV_SIZE);
	if (!buf)
		return -ENOMEM;
	for (;;) {
		const struct nlmsghdr *nlh;
		ssize_t n;
		int len, ret;

		/* Everything is queued already: see the top of this file. */
		n = nft_recv(nl, buf, MSG_DONTWAIT);
		if (n == -EAGAIN)
			return lost ? -ENOBUFS : 0;
		if (n == -ENOBUFS) {
			lost = true;
			continue;
		}
		if (n < 0)
			return (int)n;
		len = (int)n;
		for (nlh = buf; mnl_nlmsg_ok(nlh, len);
		     nlh = mnl_nlmsg_next(nlh, &len)) {
			if (nlh->nlmsg_type != NLMSG_ERROR ||
			    !mnl_nlmsg_portid_ok(nlh, portid))
				continue;
			ret = install_ack(in, nlh);
			if (ret < 0)
				return ret;
		}
	}
}

/**
 * install_report() - turn the kernel's answers to the batch into a result.
 * @in: install state after install_read_acks()
 * @lost: install_read_acks() reported lost answers (-ENOBUFS)
 * @outcome: what a rejected batch means, e.g. "nothing was installed"
 * @err: set on failure
 *
 * Return: 0 if the kernel acknowledged every message, or -errno with @err
 * naming the earliest failing object.
 */
static int install_report(const struct nft_install *in, bool lost,
			  const char *outcome, struct jr_err *err)
{
	char what[JR_NFT_NAME_SHORT + 64];
	size_t i;

	if (in->err_index < in->n_msgs) {
		char blamed[128];
		size_t k;
		enum nft_obj obj = install_obj(in, in->err_index, &k);

		/*
		 * nft_table_lookup() refuses a table owned by another socket
		 * with EPERM; lacking CAP_NET_ADMIN would have failed the
		 * batch as a whole instead.
		 */
		if (obj == NFT_OBJ_DELTABLE && in->err_code == EPERM) {
			table_describe(in->del[k], what, sizeof(what));
			return jr_err_set(
			    err, EPERM,
			    "%s is owned by another netlink socket and cannot be removed, so %s (%s%s%s)",
			    what, outcome, strerror(EPERM),
			    in->ext_msg[0] ? "; kernel: " : "", in->ext_msg);
		}
		install_describe(in, in->err_index, what, sizeof(what));
		install_blamed(in, blamed, sizeof(blamed));
		return jr_err_set(err, in->err_code,
				  "nftables rejected %s%s, so %s: %s%s%s%s%s",
				  what, blamed, outcome, strerror(in->err_code),
				  in->ext_msg[0] ? " (kernel: " : "",
				  in->ext_msg, in->ext_msg[0] ? ")" : "",
				  install_hint(in, obj, in->err_code));
	}
	if (lost)
		return jr_err_set(
		    err, ENOBUFS,
		    "the kernel dropped some answers to the nftables batch (receive queue full); whether it was applied is unknown");

	/* BEGIN and END carry no NLM_F_ACK; everything between must be answered. */
	for (i = 1; i + 1 < in->n_msgs; i++) {
		if (in->msgs[i].answered)
			continue;
		install_describe(in, i, what, sizeof(what));
		return jr_err_set(
		    err, EPROTO,
		    "the kernel did not acknowledge %s in the nftables batch; whether it was applied is unknown",
		    what);
	}
	return 0;
}

/**
 * install_exchange() - build and send the batch for @in, read the answers.
 * @nl: socket
 * @in: install state with @msgs allocated
 * @b: empty batch
 * @outcome: see install_report()
 * @err: set on failure
 *
 * Return: see install_report().
 */
static int install_exchange(const struct mnl_socket *nl, struct nft_install *in,
			    struct nftnl_batch *b, const char *outcome,
			    struct jr_err *err)
{
	int ret;

	if (install_build(in, b) < 0)
		return jr_err_set(err, ENOMEM,
				  "out of memory building the nftables batch");

	ret = install_send(nl, b, in->n_msgs);
	if (ret < 0)
		return jr_err_set(
		    err, -ret,
		    "cannot send the nftables batch to the kernel: %s",
		    strerror(-ret));

	ret = install_read_acks(nl, in);
	if (ret < 0 && ret != -ENOBUFS)
		return jr_err_set(
		    err, -ret,
		    "cannot read the kernel's answers to the nftables batch: %s",
		    strerror(-ret));
	return install_report(in, ret == -ENOBUFS, outcome, err);
}

/**
 * install_talk() - send the batch for @in and map the kernel's answers.
 * @nl: socket
 * @in: install state with @rs, @del, @n_del and @restore set; on return,
 *	@err_index and @err_code say which message the kernel rejected, if
 *	any (@msgs is gone by then)
 * @outcome: what a rejected batch means, e.g. "nothing was installed"
 * @err: set on failure
 *
 * Return: 0 once the kernel has acknowledged every message, or -errno with
 * @err naming the failing object.
 */
static int install_talk(const struct mnl_socket *nl, struct nft_install *in,
			const char *outcome, struct jr_err *err)
{
	_cleanup_(nftnl_batch_freep) struct nftnl_batch *b = NULL;
	_cleanup_free_ struct nft_batch_msg *msgs = NULL;
	int ret;

	/* BEGIN, deletions, table, chains, rules, END. */
	in->n_msgs =
	    3 + in->n_del + in->rs->n_objs + in->rs->n_chains + in->rs->n_rules;
	in->err_index = in->n_msgs;
	in->err_code = 0;
	msgs = calloc(in->n_msgs, sizeof(*msgs));
	b = nftnl_batch_alloc(JR_NFT_BATCH_PAGE, JR_NFT_MSG_MAX);
	if (!msgs || !b)
		return jr_err_set(err, ENOMEM,
				  "out of memory building the nftables batch");
	in->msgs = msgs;
	in->seq = nft_seq_alloc((uint32_t)in->n_msgs);

	ret = install_exchange(nl, in, b, outcome, err);
	in->msgs = NULL; /* freed on return, and its messages live in @b */
	return ret;
}

int jr_nft_install(struct mnl_socket *nl, const struct jr_ruleset *rs,
		   struct jr_err *err)
{
	struct nft_install in = { .rs = rs };

	return install_talk(nl, &in, "nothing was installed", err);
}

int jr_nft_install_owned(struct mnl_socket *nl,
			 const struct jr_ruleset_params *params,
			 struct jr_ruleset **out, struct jr_err *err)
{
	_cleanup_(jr_ruleset_freep) struct jr_ruleset *rs = NULL;
	struct jr_ruleset_params p = *params;
	int ret;

	p.persist = true;
	ret = jr_ruleset_build(&p, &rs, err);
	if (ret < 0)
		return ret;
	ret = jr_nft_install(nl, rs, err);
	if (ret == -EOPNOTSUPP) {
		/*
		 * A kernel before 6.9 does not know NFT_TABLE_F_PERSIST. The
		 * batch was refused whole, so nothing is installed: install
		 * the owner-only table instead (see ruleset.h for what the
		 * flag buys).
		 */
		jr_debug(
		    "nftables: no persistent tables here, installing an owned one");
		jr_ruleset_free(steal_pointer(&rs));
		p.persist = false;
		ret = jr_ruleset_build(&p, &rs, err);
		if (ret == 0)
			ret = jr_nft_install(nl, rs, err);
	}
	if (ret < 0)
		return ret;
	*out = steal_pointer(&rs);
	return 0;
}

/*
 * Reading back
 */

typedef int (*nft_reply_cb)(const struct nlmsghdr *nlh, void *data);

/**
 * query_status() - what an NLMSG_ERROR or NLMSG_DONE message reports.
 * @nlh: the message
 *
 * Return: 0 (an ACK, or a dump that ended well) or -errno.
 */
static int query_status(const struct nlmsghdr *nlh)
{
	const void *payload = mnl_nlmsg_get_payload(nlh);

	if (nlh->nlmsg_type == NLMSG_ERROR) {
		const struct nlmsgerr *e = payload;

		if (nlh->nlmsg_len < mnl_nlmsg_size(sizeof(*e)))
			return -EPROTO;
		return e->error <= 0 ? e->error : -e->error;
	}
	/* NLMSG_DONE carries the final status of the dump as an int. */
	if (mnl_nlmsg_get_payload_len(nlh) >= sizeof(int)) {
		int status;

		memcpy(&status, payload, sizeof(status));
		if (status < 0)
			return status;
	}
	return 0;
}

/**
 * nft_query() - send @req and hand each reply to @cb until the kernel is done.
 * @nl: socket
 * @req: a GET request; its sequence number identifies the replies
 * @reply_type: the NFT_MSG_* type every reply must have
 * @cb: called for each reply; returns 0 or -errno
 * @data: passed to @cb
 * @interrupted: set to true if the kernel marks a reply NLM_F_DUMP_INTR
 *	(the ruleset changed while it was being dumped)
 *
 * Reads to the end even after @cb failed, so that no stale replies are left
 * on the socket for the next request.
 *
 * Return: 0 once the kernel has finished (NLMSG_DONE after a dump, the ACK
 * after a plain request), or the first -errno.
 */
static int nft_query(const struct mnl_socket *nl, const struct nlmsghdr *req,
		     uint8_t reply_type, nft_reply_cb cb, void *data,
		     bool *interrupted)
{
	_cleanup_free_ void *buf = NULL;
	uint32_t portid = mnl_socket_get_portid(nl);
	int ret = 0;

	buf = malloc(JR_NFT_RECV_SIZE);
	if (!buf)
		return -ENOMEM;
	if (mnl_socket_sendto(nl, req, req->nlmsg_len) < 0)
		return -errno;
	for (;;) {
		const struct nlmsghdr *nlh;
		ssize_t n;
		int len;

		n = nft_recv(nl, buf, 0);
		if (n < 0)
			return (int)n;
		len = (int)n;
		for (nlh = buf; mnl_nlmsg_ok(nlh, len);
		     nlh = mnl_nlmsg_next(nlh, &len)) {
			int status;

			if (nlh->nlmsg_seq != req->nlmsg_seq ||
			    !mnl_nlmsg_portid_ok(nlh, portid))
				continue; /* stale: for an abandoned request */
			if (nlh->nlmsg_flags & NLM_F_DUMP_INTR)
				*interrupted = true;
			switch (nlh->nlmsg_type) {
			case NLMSG_NOOP:
				continue;
			case NLMSG_ERROR:
			case NLMSG_DONE:
				status = query_status(nlh);
				return ret < 0 ? ret : status;
			case NLMSG_OVERRUN:
				return -ENOBUFS;
			}
			if (ret < 0)
				continue;
			if (NFNL_SUBSYS_ID(nlh->nlmsg_type) !=
				NFNL_SUBSYS_NFTABLES ||
			    NFNL_MSG_TYPE(nlh->nlmsg_type) != reply_type)
				ret = -EPROTO;
			else
				ret = cb(nlh, data);
		}
	}
}

/**
 * nft_parse_errno() - turn a failed nftnl_*_nlmsg_parse() into -errno.
 *
 * libnftnl reports ENOMEM from strdup() and anything else for a message it
 * cannot make sense of.
 *
 * Return: -ENOMEM or -EPROTO.
 */
static int nft_parse_errno(void)
{
	return errno == ENOMEM ? -ENOMEM : -EPROTO;
}

/**
 * struct nft_gen - the answer to NFT_MSG_GETGEN.
 * @id: the ruleset generation; every committed transaction changes it
 * @seen: the kernel sent it
 */
struct nft_gen {
	uint32_t id;
	bool seen;
};

/**
 * gen_cb() - parse the NFT_MSG_NEWGEN reply into the struct nft_gen @data.
 * @nlh: reply
 * @data: struct nft_gen
 *
 * Return: 0 or -errno.
 */
static int gen_cb(const struct nlmsghdr *nlh, void *data)
{
	_cleanup_(nftnl_gen_freep) struct nftnl_gen *g = NULL;
	struct nft_gen *gen = data;

	g = nftnl_gen_alloc();
	if (!g)
		return -ENOMEM;
	if (nftnl_gen_nlmsg_parse(nlh, g) < 0)
		return nft_parse_errno();
	if (!nftnl_gen_is_set(g, NFTNL_GEN_ID))
		return -EPROTO;
	gen->id = nftnl_gen_get_u32(g, NFTNL_GEN_ID);
	gen->seen = true;
	return 0;
}

/**
 * table_cb() - parse one NFT_MSG_NEWTABLE reply onto the table list @data.
 * @nlh: reply
 * @data: struct nftnl_table_list
 *
 * Return: 0 or -errno.
 */
static int table_cb(const struct nlmsghdr *nlh, void *data)
{
	_cleanup_(nftnl_table_freep) struct nftnl_table *t = NULL;

	t = nftnl_table_alloc();
	if (!t)
		return -ENOMEM;
	if (nftnl_table_nlmsg_parse(nlh, t) < 0)
		return nft_parse_errno();
	nftnl_table_list_add_tail(steal_pointer(&t), data);
	return 0;
}

/**
 * chain_cb() - parse one NFT_MSG_NEWCHAIN reply onto the chain list @data.
 * @nlh: reply
 * @data: struct nftnl_chain_list
 *
 * Return: 0 or -errno.
 */
static int chain_cb(const struct nlmsghdr *nlh, void *data)
{
	_cleanup_(nftnl_chain_freep) struct nftnl_chain *c = NULL;

	c = nftnl_chain_alloc();
	if (!c)
		return -ENOMEM;
	if (nftnl_chain_nlmsg_parse(nlh, c) < 0)
		return nft_parse_errno();
	nftnl_chain_list_add_tail(steal_pointer(&c), data);
	return 0;
}

/**
 * rule_cb() - parse one NFT_MSG_NEWRULE reply onto the rule list @data.
 * @nlh: reply
 * @data: struct nftnl_rule_list
 *
 * Return: 0 or -errno.
 */
static int rule_cb(const struct nlmsghdr *nlh, void *data)
{
	_cleanup_(nftnl_rule_freep) struct nftnl_rule *r = NULL;

	r = nftnl_rule_alloc();
	if (!r)
		return -ENOMEM;
	if (nftnl_rule_nlmsg_parse(nlh, r) < 0)
		return nft_parse_errno();
	nftnl_rule_list_add_tail(steal_pointer(&r), data);
	return 0;
}

/**
 * obj_cb() - parse one NFT_MSG_NEWOBJ reply onto the object list @data.
 * @nlh: reply
 * @data: struct nftnl_obj_list
 *
 * Return: 0 or -errno.
 */
static int obj_cb(const struct nlmsghdr *nlh, void *data)
{
	_cleanup_(nftnl_obj_freep) struct nftnl_obj *o = NULL;

	o = nftnl_obj_alloc();
	if (!o)
		return -ENOMEM;
	if (nftnl_obj_nlmsg_parse(nlh, o) < 0)
		return nft_parse_errno();
	nftnl_obj_list_add_tail(steal_pointer(&o), data);
	return 0;
}

/**
 * nft_get() - send a GET request of type @get and collect the replies.
 * @nl: socket
 * @get: NFT_MSG_GET*
 * @flags: NLM_F_DUMP for a dump, NLM_F_ACK for a single object
 * @reply_type: NFT_MSG_NEW* of the replies
 * @cb: parses one reply into @data
 * @data: passed to @cb
 * @interrupted: see nft_query()
 *
 * Dumps ask for NFPROTO_UNSPEC: every family, not only inet.
 *
 * Return: 0 or -errno.
 */
static int nft_get(const struct mnl_socket *nl, uint16_t get, uint16_t flags,
		   uint8_t reply_type, nft_reply_cb cb, void *data,
		   bool *interrupted)
{
	alignas(struct nlmsghdr) char
	    req[NLMSG_HDRLEN + NLMSG_ALIGN(sizeof(struct nfgenmsg))];
	const struct nlmsghdr *nlh;

	nlh = nftnl_nlmsg_build_hdr(req, get, NFPROTO_UNSPEC, flags,
				    nft_seq_alloc(1));
	return nft_query(nl, nlh, reply_type, cb, data, interrupted);
}

/**
 * struct nft_readback - everything nf_tables holds in the namespace.
 * @tables: tables of all families
 * @chains: chains of all tables
 * @rules: rules of all chains, in the order the kernel evaluates them
 * @objs: stateful objects of all tables
 */
struct nft_readback {
	struct nftnl_table_list *tables;
	struct nftnl_chain_list *chains;
	struct nftnl_rule_list *rules;
	struct nftnl_obj_list *objs;
};

/**
 * readback_clear() - free what @rb holds and empty it.
 * @rb: read-back state
 */
static void readback_clear(struct nft_readback *rb)
{
	if (rb->tables)
		nftnl_table_list_free(rb->tables);
	if (rb->chains)
		nftnl_chain_list_free(rb->chains);
	if (rb->rules)
		nftnl_rule_list_free(rb->rules);
	if (rb->objs)
		nftnl_obj_list_free(rb->objs);
	*rb = (struct nft_readback){ 0 };
}

/**
 * readback_once() - dump tables, chains, rules and objects into @rb.
 * @nl: socket
 * @rb: emptied and filled
 * @consistent: set to whether the three dumps saw one and the same ruleset
 *
 * The generation id is read before and after: nf_tables bumps it on every
 * commit, so if it is the same, the four dumps saw one ruleset.
 *
 * Return: 0 or -errno.
 */
static int readback_once(const struct mnl_socket *nl, struct nft_readback *rb,
			 bool *consistent)
{
	struct nft_gen before = { 0 }, after = { 0 };
	bool interrupted = false;
	int ret;

	readback_clear(rb);
	rb->tables = nftnl_table_list_alloc();
	rb->chains = nftnl_chain_list_alloc();
	rb->rules = nftnl_rule_list_alloc();
	rb->objs = nftnl_obj_list_alloc();
	if (!rb->tables || !rb->chains || !rb->rules || !rb->objs)
		return -ENOMEM;

	ret = nft_get(nl, NFT_MSG_GETGEN, NLM_F_ACK, NFT_MSG_NEWGEN, gen_cb,
		      &before, &interrupted);
	if (ret < 0)
		return ret;
	ret = nft_get(nl, NFT_MSG_GETTABLE, NLM_F_DUMP, NFT_MSG_NEWTABLE,
		      table_cb, rb->tables, &interrupted);
	if (ret < 0)
		return ret;
	ret = nft_get(nl, NFT_MSG_GETCHAIN, NLM_F_DUMP, NFT_MSG_NEWCHAIN,
		      chain_cb, rb->chains, &interrupted);
	if (ret < 0)
		return ret;
	ret = nft_get(nl, NFT_MSG_GETRULE, NLM_F_DUMP, NFT_MSG_NEWRULE, rule_cb,
		      rb->rules, &interrupted);
	if (ret < 0)
		return ret;
	ret = nft_get(nl, NFT_MSG_GETOBJ, NLM_F_DUMP, NFT_MSG_NEWOBJ, obj_cb,
		      rb->objs, &interrupted);
	if (ret < 0)
		return ret;
	ret = nft_get(nl, NFT_MSG_GETGEN, NLM_F_ACK, NFT_MSG_NEWGEN, gen_cb,
		      &after, &interrupted);
	if (ret < 0)
		return ret;
	if (!before.seen || !after.seen)
		return -EPROTO;
	*consistent = !interrupted && before.id == after.id;
	return 0;
}

/**
 * verify_table() - @tables must be exactly the table of @rs, owned by @portid.
 * @rs: intended ruleset
 * @tables: read back
 * @portid: port id of the installing socket
 * @ours_out: set to our table in @tables
 * @err: the difference
 *
 * Return: 0, -EPROTO on a difference, -ENOMEM.
 */
static int verify_table(const struct jr_ruleset *rs,
			const struct nftnl_table_list *tables, uint32_t portid,
			const struct nftnl_table **ours_out, struct jr_err *err)
{
	_cleanup_(
	    nftnl_table_list_iter_destroyp) struct nftnl_table_list_iter *it =
	    NULL;
	uint32_t family = nftnl_table_get_u32(rs->table, NFTNL_TABLE_FAMILY);
	const char *name = nftnl_table_get_str(rs->table, NFTNL_TABLE_NAME);
	uint32_t flags = nftnl_table_get_u32(rs->table, NFTNL_TABLE_FLAGS);
	const struct nftnl_table *ours = NULL;
	struct nftnl_table *t;
	unsigned int a;

	it = nftnl_table_list_iter_create(tables);
	if (!it)
		return jr_err_set(
		    err, ENOMEM,
		    "out of memory comparing the nftables ruleset");
	while ((t = nftnl_table_list_iter_next(it))) {
		uint32_t f = nftnl_table_get_u32(t, NFTNL_TABLE_FAMILY);
		const char *n = nftnl_table_get_str(t, NFTNL_TABLE_NAME);

		char foreign[JR_NFT_NAME_SHORT];

		if (f == family && n && !strcmp(n, name)) {
			ours = t;
			continue;
		}
		/* The sandbox named it: escaped, as restore_removed() does. */
		return jr_err_set(err, EPROTO,
				  "there is a table %s %s besides table %s %s",
				  nft_family_name(f),
				  nft_name_escape(n, foreign, sizeof(foreign)),
				  nft_family_name(family), name);
	}
	if (!ours)
		return jr_err_set(err, EPROTO, "table %s %s is missing",
				  nft_family_name(family), name);

	for (a = 0; a <= NFTNL_TABLE_MAX; a++) {
		/* What the kernel assigns, and what is compared below. */
		if (a == NFTNL_TABLE_HANDLE || a == NFTNL_TABLE_USE ||
		    a == NFTNL_TABLE_OWNER || a == NFTNL_TABLE_FLAGS)
			continue;
		if (nftnl_table_is_set(rs->table, (uint16_t)a) !=
		    nftnl_table_is_set(ours, (uint16_t)a))
			return jr_err_set(
			    err, EPROTO,
			    "table %s %s has libnftnl attribute %u %s",
			    nft_family_name(family), name, a,
			    nftnl_table_is_set(ours, (uint16_t)a) ? "set"
								  : "unset");
	}
	if (nftnl_table_get_u32(ours, NFTNL_TABLE_FLAGS) != flags)
		return jr_err_set(
		    err, EPROTO, "table %s %s has flags %#x instead of %#x",
		    nft_family_name(family), name,
		    nftnl_table_get_u32(ours, NFTNL_TABLE_FLAGS), flags);
	if (flags & NFT_TABLE_F_OWNER) {
		if (!nftnl_table_is_set(ours, NFTNL_TABLE_OWNER) ||
		    nftnl_table_get_u32(ours, NFTNL_TABLE_OWNER) != portid)
			return jr_err_set(
			    err, EPROTO,
			    "table %s %s is owned by netlink port %u, not by jailrun's socket (port %u)",
			    nft_family_name(family), name,
			    nftnl_table_get_u32(ours, NFTNL_TABLE_OWNER),
			    portid);
	}
	*ours_out = ours;
	return 0;
}

/**
 * verify_table_use() - the table of @rs holds nothing but its chains and
 * objects.
 * @rs: intended ruleset
 * @ours: our table, read back
 * @err: the difference
 *
 * The kernel's use count of a table counts its chains, sets, maps,
 * flowtables and stateful objects; once the chains and objects are known
 * to be ours, any surplus is a set, map or flowtable, which jailrun never
 * creates.
 *
 * Return: 0 or -EPROTO.
 */
static int verify_table_use(const struct jr_ruleset *rs,
			    const struct nftnl_table *ours, struct jr_err *err)
{
	uint32_t use = nftnl_table_get_u32(ours, NFTNL_TABLE_USE);

	if (use != rs->n_chains + rs->n_objs)
		return jr_err_set(
		    err, EPROTO,
		    "table %s %s has a use count of %u instead of %zu: it holds sets, maps or flowtables besides its chains and counters",
		    nft_family_name(
			nftnl_table_get_u32(ours, NFTNL_TABLE_FAMILY)),
		    nftnl_table_get_str(ours, NFTNL_TABLE_NAME), use,
		    rs->n_chains + rs->n_objs);
	return 0;
}

/**
 * obj_is() - whether @o is the object family/table/name/type of @want.
 * @o: read back (libnftnl 1.2 object getters take no const)
 * @want: intended
 *
 * The counter's packets and bytes are not compared: they change with
 * every refusal, by design.
 *
 * Return: true if it is.
 */
static bool obj_is(struct nftnl_obj *o, struct nftnl_obj *want)
{
	const char *t = nftnl_obj_get_str(o, NFTNL_OBJ_TABLE);
	const char *n = nftnl_obj_get_str(o, NFTNL_OBJ_NAME);

	return nftnl_obj_get_u32(o, NFTNL_OBJ_FAMILY) ==
		   nftnl_obj_get_u32(want, NFTNL_OBJ_FAMILY) &&
	       t && !strcmp(t, nftnl_obj_get_str(want, NFTNL_OBJ_TABLE)) && n &&
	       !strcmp(n, nftnl_obj_get_str(want, NFTNL_OBJ_NAME)) &&
	       nftnl_obj_get_u32(o, NFTNL_OBJ_TYPE) ==
		   nftnl_obj_get_u32(want, NFTNL_OBJ_TYPE);
}

/**
 * verify_objects() - the namespace holds exactly the objects of @rs.
 * @rs: intended ruleset
 * @objs: read back, of every table
 * @err: the difference
 *
 * Each intended counter must be there once, with its type, and nothing
 * else: verify_table() has already left no other table to hold one.
 *
 * Return: 0, -EPROTO on a difference, -ENOMEM.
 */
static int verify_objects(const struct jr_ruleset *rs,
			  struct nftnl_obj_list *objs, struct jr_err *err)
{
	_cleanup_(nftnl_obj_list_iter_destroyp) struct nftnl_obj_list_iter *it =
	    NULL;
	size_t seen[JR_NFT_MAX_OBJS] = { 0 };
	struct nftnl_obj *o;
	size_t k;

	if (rs->n_objs > JR_NFT_MAX_OBJS)
		return jr_err_set(err, EPROTO,
				  "the ruleset has more objects than %d",
				  JR_NFT_MAX_OBJS);
	it = nftnl_obj_list_iter_create(objs);
	if (!it)
		return jr_err_set(
		    err, ENOMEM,
		    "out of memory comparing the nftables ruleset");
	while ((o = nftnl_obj_list_iter_next(it))) {
		const char *n = nftnl_obj_get_str(o, NFTNL_OBJ_NAME);
		char name[JR_NFT_NAME_SHORT];

		for (k = 0; k < rs->n_objs && !obj_is(o, rs->objs[k]); k++)
			;
		if (k == rs->n_objs)
			return jr_err_set(
			    err, EPROTO,
			    "there is an object %s of type %u that jailrun did not create",
			    nft_name_escape(n, name, sizeof(name)),
			    nftnl_obj_get_u32(o, NFTNL_OBJ_TYPE));
		seen[k]++;
	}
	for (k = 0; k < rs->n_objs; k++)
		if (seen[k] != 1)
			return jr_err_set(
			    err, EPROTO, "the counter '%s' is %s",
			    nftnl_obj_get_str(rs->objs[k], NFTNL_OBJ_NAME),
			    seen[k] ? "there more than once" : "missing");
	return 0;
}

/**
 * nft_hook_name() - the nft keyword of an NF_INET_* hook.
 * @hook: hook number
 *
 * Return: a static string.
 */
static const char *nft_hook_name(uint32_t hook)
{
	switch (hook) {
	case NF_INET_PRE_ROUTING:
		return "prerouting";
	case NF_INET_LOCAL_IN:
		return "input";
	case NF_INET_FORWARD:
		return "forward";
	case NF_INET_LOCAL_OUT:
		return "output";
	case NF_INET_POST_ROUTING:
		return "postrouting";
	case NF_INET_INGRESS:
		return "ingress";
	default:
		return "unknown-hook";
	}
}

/**
 * nft_verdict_name() - the nft keyword of a chain policy.
 * @policy: NF_ACCEPT or NF_DROP
 *
 * Return: a static string.
 */
static const char *nft_verdict_name(uint32_t policy)
{
	switch (policy) {
	case NF_ACCEPT:
		return "accept";
	case NF_DROP:
		return "drop";
	default:
		return "unknown-verdict";
	}
}

/**
 * chain_difference() - how read-back chain @got differs from intended @want.
 * @want: intended chain
 * @got: read back, same family, table and name
 * @buf: the first difference, e.g. "policy accept instead of drop"
 * @len: size of @buf
 *
 * Besides type, hook, priority, policy and flags, any attribute set on one
 * and not on the other (a device, a comment, counters) is a difference; only
 * what the kernel assigns by itself (handle, use count) is left out.
 *
 * Return: true if they differ.
 */
static bool chain_difference(const struct nftnl_chain *want,
			     const struct nftnl_chain *got, char *buf,
			     size_t len)
{
	const char *wt = nftnl_chain_get_str(want, NFTNL_CHAIN_TYPE);
	const char *gt = nftnl_chain_get_str(got, NFTNL_CHAIN_TYPE);
	uint32_t wh = nftnl_chain_get_u32(want, NFTNL_CHAIN_HOOKNUM);
	uint32_t gh = nftnl_chain_get_u32(got, NFTNL_CHAIN_HOOKNUM);
	int32_t wp = nftnl_chain_get_s32(want, NFTNL_CHAIN_PRIO);
	int32_t gp = nftnl_chain_get_s32(got, NFTNL_CHAIN_PRIO);
	uint32_t wv = nftnl_chain_get_u32(want, NFTNL_CHAIN_POLICY);
	uint32_t gv = nftnl_chain_get_u32(got, NFTNL_CHAIN_POLICY);
	/* The kernel reports NFT_CHAIN_BASE on base chains by itself. */
	uint32_t wf = nftnl_chain_get_u32(want, NFTNL_CHAIN_FLAGS);
	uint32_t gf = nftnl_chain_get_u32(got, NFTNL_CHAIN_FLAGS) &
		      ~(uint32_t)NFT_CHAIN_BASE;
	unsigned int a;

	if (!wt || !gt || strcmp(wt, gt) != 0) {
		snprintf(buf, len, "type %s instead of %s", gt ? gt : "(none)",
			 wt ? wt : "(none)");
		return true;
	}
	if (wh != gh) {
		snprintf(buf, len, "hook %s instead of %s", nft_hook_name(gh),
			 nft_hook_name(wh));
		return true;
	}
	if (wp != gp) {
		snprintf(buf, len, "priority %d instead of %d", gp, wp);
		return true;
	}
	if (wv != gv) {
		snprintf(buf, len, "policy %s instead of %s",
			 nft_verdict_name(gv), nft_verdict_name(wv));
		return true;
	}
	if (wf != gf) {
		snprintf(buf, len, "flags %#x instead of %#x", gf, wf);
		return true;
	}
	for (a = 0; a <= NFTNL_CHAIN_MAX; a++) {
		switch (a) {
		case NFTNL_CHAIN_HANDLE:
		case NFTNL_CHAIN_USE:
		case NFTNL_CHAIN_FLAGS:
			continue;
		}
		if (nftnl_chain_is_set(want, (uint16_t)a) !=
		    nftnl_chain_is_set(got, (uint16_t)a)) {
			snprintf(buf, len, "libnftnl attribute %u %s", a,
				 nftnl_chain_is_set(got, (uint16_t)a)
				     ? "set"
				     : "unset");
			return true;
		}
	}
	return false;
}

/**
 * same_chain() - whether @a and @b name the same chain.
 * @a: chain
 * @b: chain
 *
 * Return: true if family, table and name match.
 */
static bool same_chain(const struct nftnl_chain *a, const struct nftnl_chain *b)
{
	const char *at = nftnl_chain_get_str(a, NFTNL_CHAIN_TABLE);
	const char *bt = nftnl_chain_get_str(b, NFTNL_CHAIN_TABLE);
	const char *an = nftnl_chain_get_str(a, NFTNL_CHAIN_NAME);
	const char *bn = nftnl_chain_get_str(b, NFTNL_CHAIN_NAME);

	return nftnl_chain_get_u32(a, NFTNL_CHAIN_FAMILY) ==
		   nftnl_chain_get_u32(b, NFTNL_CHAIN_FAMILY) &&
	       at && bt && !strcmp(at, bt) && an && bn && !strcmp(an, bn);
}

/**
 * verify_chains() - @chains must be exactly the chains of @rs.
 * @rs: intended ruleset
 * @chains: read back (of every table: verify_table() saw only ours)
 * @err: the difference
 *
 * Return: 0, -EPROTO on a difference, -ENOMEM.
 */
static int verify_chains(const struct jr_ruleset *rs,
			 const struct nftnl_chain_list *chains,
			 struct jr_err *err)
{
	_cleanup_(
	    nftnl_chain_list_iter_destroyp) struct nftnl_chain_list_iter *it =
	    NULL;
	_cleanup_free_ bool *seen = NULL;
	struct nftnl_chain *c;
	size_t i;

	seen = calloc(rs->n_chains + 1, sizeof(*seen));
	it = nftnl_chain_list_iter_create(chains);
	if (!seen || !it)
		return jr_err_set(
		    err, ENOMEM,
		    "out of memory comparing the nftables ruleset");
	while ((c = nftnl_chain_list_iter_next(it))) {
		/*
		 * Whoever added the chain named it (only through our socket
		 * today, but that is nft.c's promise to keep, not this
		 * message's): escaped, as restore_removed() does.
		 */
		char name[JR_NFT_NAME_SHORT];
		char diff[128];

		nft_name_escape(nftnl_chain_get_str(c, NFTNL_CHAIN_NAME), name,
				sizeof(name));
		for (i = 0; i < rs->n_chains; i++) {
			if (same_chain(rs->chains[i], c))
				break;
		}
		if (i == rs->n_chains)
			return jr_err_set(
			    err, EPROTO,
			    "there is a chain '%s' that jailrun did not create",
			    name);
		if (chain_difference(rs->chains[i], c, diff, sizeof(diff)))
			return jr_err_set(err, EPROTO, "the '%s' chain has %s",
					  name, diff);
		seen[i] = true;
	}
	for (i = 0; i < rs->n_chains; i++) {
		if (!seen[i])
			return jr_err_set(err, EPROTO,
					  "the '%s' chain is missing",
					  nftnl_chain_get_str(
					      rs->chains[i], NFTNL_CHAIN_NAME));
	}
	return 0;
}

/**
 * rule_text() - the canonical one-line text of rule @r.
 * @r: rule
 * @buf: JR_NFT_RULE_TEXT bytes
 *
 * libnftnl's text form lists family, table, chain and every expression
 * with all of its operands. Line breaks and runs of blanks become one
 * space so that the text fits in an error message.
 *
 * That holds for the expressions jailrun uses today: meta, cmp,
 * immediate (verdict and data), payload, bitwise (mask and xor), ct,
 * reject (type and code) and redir (both port registers and the flags:
 * the kernel sets proto_max to proto_min when it is left out and reports
 * it, which is why ruleset.c sets it). Before adding another kind, check
 * that libnftnl prints all of its attributes; a stateful one (counter,
 * limit, quota) also prints values the kernel keeps changing, which must
 * be cleared first.
 *
 * Return: 0, or -EOVERFLOW if the rule does not fit (never for jailrun's).
 */
static int rule_text(const struct nftnl_rule *r, char *buf)
{
	int n = nftnl_rule_snprintf(buf, JR_NFT_RULE_TEXT, r,
				    NFTNL_OUTPUT_DEFAULT, 0);
	char *in, *out;

	if (n < 0 || n >= JR_NFT_RULE_TEXT)
		return -EOVERFLOW;
	for (in = out = buf; *in; in++) {
		char ch = *in;

		if (ch == '\n')
			ch = ' ';
		if (ch == ' ' && (out == buf || out[-1] == ' '))
			continue;
		*out++ = ch;
	}
	if (out > buf && out[-1] == ' ')
		out--;
	*out = '\0';
	return 0;
}

/**
 * rule_in_chain() - index of the next rule of chain @chain in @rules.
 * @rules: array of rules
 * @n: number of @rules
 * @from: first index to look at
 * @chain: the chain, for its family, table and name
 *
 * Return: the index, or @n if there is none.
 */
static size_t rule_in_chain(struct nftnl_rule *const *rules, size_t n,
			    size_t from, const struct nftnl_chain *chain)
{
	uint32_t family = nftnl_chain_get_u32(chain, NFTNL_CHAIN_FAMILY);
	const char *table = nftnl_chain_get_str(chain, NFTNL_CHAIN_TABLE);
	const char *name = nftnl_chain_get_str(chain, NFTNL_CHAIN_NAME);

	for (; from < n; from++) {
		const char *t =
		    nftnl_rule_get_str(rules[from], NFTNL_RULE_TABLE);
		const char *c =
		    nftnl_rule_get_str(rules[from], NFTNL_RULE_CHAIN);

		if (nftnl_rule_get_u32(rules[from], NFTNL_RULE_FAMILY) ==
			family &&
		    t && c && !strcmp(t, table) && !strcmp(c, name))
			break;
	}
	return from;
}

/**
 * verify_rules() - each chain of @rs must hold exactly its rules, in order.
 * @rs: intended ruleset
 * @rules: read back, in the kernel's order; the kernel-assigned handle
 *	and position are removed from them
 * @err: the difference
 *
 * Return: 0, -EPROTO on a difference, -ENOMEM, -EOVERFLOW.
 */
static int verify_rules(const struct jr_ruleset *rs,
			struct nftnl_rule_list *rules, struct jr_err *err)
{
	_cleanup_(
	    nftnl_rule_list_iter_destroyp) struct nftnl_rule_list_iter *it =
	    NULL;
	_cleanup_free_ struct nftnl_rule **got = NULL;
	_cleanup_free_ char *want_text = NULL;
	_cleanup_free_ char *got_text = NULL;
	size_t n_got = 0, matched = 0, c;
	struct nftnl_rule *r;

	it = nftnl_rule_list_iter_create(rules);
	want_text = malloc(JR_NFT_RULE_TEXT);
	got_text = malloc(JR_NFT_RULE_TEXT);
	if (!it || !want_text || !got_text)
		return jr_err_set(
		    err, ENOMEM,
		    "out of memory comparing the nftables ruleset");
	while ((r = nftnl_rule_list_iter_next(it))) {
		struct nftnl_rule **more;

		more = reallocarray(got, n_got + 1, sizeof(*got));
		if (!more)
			return jr_err_set(
			    err, ENOMEM,
			    "out of memory comparing the nftables ruleset");
		got = more;
		nftnl_rule_unset(r, NFTNL_RULE_HANDLE);
		nftnl_rule_unset(r, NFTNL_RULE_POSITION);
		got[n_got++] = r;
	}

	for (c = 0; c < rs->n_chains; c++) {
		const struct nftnl_chain *chain = rs->chains[c];
		const char *name = nftnl_chain_get_str(chain, NFTNL_CHAIN_NAME);
		size_t w = 0, g = 0, pos;

		for (pos = 1;; pos++, w++, g++) {
			w = rule_in_chain(rs->rules, rs->n_rules, w, chain);
			g = rule_in_chain(got, n_got, g, chain);
			if (w == rs->n_rules && g == n_got)
				break;
			if ((w < rs->n_rules &&
			     rule_text(rs->rules[w], want_text) < 0) ||
			    (g < n_got && rule_text(got[g], got_text) < 0))
				return jr_err_set(
				    err, EOVERFLOW,
				    "rule %zu of the '%s' chain is too long to compare",
				    pos, name);
			if (g == n_got)
				return jr_err_set(
				    err, EPROTO,
				    "rule %zu of the '%s' chain is missing: %s",
				    pos, name, want_text);
			if (w == rs->n_rules)
				return jr_err_set(
				    err, EPROTO,
				    "the '%s' chain has an extra rule %zu: %s",
				    name, pos, got_text);
			if (strcmp(want_text, got_text) != 0)
				return jr_err_set(
				    err, EPROTO,
				    "rule %zu of the '%s' chain is \"%s\" instead of \"%s\"",
				    pos, name, got_text, want_text);
			matched++;
		}
	}
	/* verify_chains() leaves no other chain for a rule to be in. */
	if (matched != n_got)
		return jr_err_set(
		    err, EPROTO,
		    "there are %zu rules in chains jailrun did not create",
		    n_got - matched);
	return 0;
}

int jr_nft_verify(struct mnl_socket *nl, const struct jr_ruleset *rs,
		  struct jr_err *err)
{
	_cleanup_(readback_clear) struct nft_readback rb = { 0 };
	const struct nftnl_table *ours = NULL;
	bool consistent = false;
	int tries, ret;

	for (tries = 0; !consistent; tries++) {
		if (tries == JR_NFT_DUMP_TRIES)
			return jr_err_set(
			    err, EAGAIN,
			    "the nftables ruleset of the sandbox's network namespace kept changing while jailrun read it back");
		ret = readback_once(nl, &rb, &consistent);
		if (ret < 0)
			return jr_err_set(
			    err, -ret,
			    "cannot read the nftables ruleset back from the kernel: %s",
			    strerror(-ret));
	}

	ret =
	    verify_table(rs, rb.tables, mnl_socket_get_portid(nl), &ours, err);
	if (ret == 0)
		ret = verify_chains(rs, rb.chains, err);
	if (ret == 0)
		ret = verify_objects(rs, rb.objs, err);
	if (ret == 0)
		ret = verify_rules(rs, rb.rules, err);
	if (ret == 0)
		ret = verify_table_use(rs, ours, err);
	if (ret == -EPROTO && err)
		jr_err_prefix(
		    err,
		    "the nftables ruleset in the sandbox's network namespace is not the one jailrun installed: ");
	return ret;
}

int jr_nft_counters_read(struct mnl_socket *nl, const struct jr_ruleset *rs,
			 uint64_t *packets, struct jr_err *err)
{
	_cleanup_(nftnl_obj_list_freep) struct nftnl_obj_list *objs = NULL;
	_cleanup_(nftnl_obj_list_iter_destroyp) struct nftnl_obj_list_iter *it =
	    NULL;
	bool interrupted = false;
	uint64_t sum = 0;
	struct nftnl_obj *o;
	int ret;

	*packets = 0;
	if (!rs->n_objs)
		return 0;
	objs = nftnl_obj_list_alloc();
	if (!objs)
		return jr_err_set(
		    err, ENOMEM, "out of memory reading the nftables counters");
	/* One dump: every counter's figure at the same instant. */
	ret = nft_get(nl, NFT_MSG_GETOBJ, NLM_F_DUMP, NFT_MSG_NEWOBJ, obj_cb,
		      objs, &interrupted);
	if (ret < 0)
		return jr_err_set(
		    err, -ret,
		    "cannot read the nftables counters of the sandbox's network namespace: %s",
		    strerror(-ret));
	it = nftnl_obj_list_iter_create(objs);
	if (!it)
		return jr_err_set(
		    err, ENOMEM, "out of memory reading the nftables counters");
	while ((o = nftnl_obj_list_iter_next(it))) {
		for (size_t k = 0; k < rs->n_objs; k++)
			if (obj_is(o, rs->objs[k]) &&
			    nftnl_obj_is_set(o, NFTNL_OBJ_CTR_PKTS))
				sum += nftnl_obj_get_u64(o, NFTNL_OBJ_CTR_PKTS);
	}
	*packets = sum;
	return 0;
}

/*
 * Restoring
 */

JR_DEFINE_CLEANUP(struct nftnl_table_list, nftnl_table_list_free)

/**
 * struct nft_restore_list - the tables a restore deletes.
 * @tables: family and name of each table the dump listed, in its order
 * @foreign: for each of @tables, whether it is anything but the table
 *	this socket owns (a namesake of ours that another socket owns, or
 *	that nobody owns, counts as foreign): what the tamper log reports
 * @n: number of @tables
 */
struct nft_restore_list {
	struct nftnl_table **tables;
	bool *foreign;
	size_t n;
};

/**
 * restore_list_clear() - free what @l holds and empty it.
 * @l: list
 */
static void restore_list_clear(struct nft_restore_list *l)
{
	size_t i;

	for (i = 0; i < l->n; i++)
		nftnl_table_free(l->tables[i]);
	free(l->tables);
	free(l->foreign);
	*l = (struct nft_restore_list){ 0 };
}

/**
 * restore_list_add() - append table @family @name to @l.
 * @l: list
 * @family: NFPROTO_* value
 * @name: table name
 * @foreign: see struct nft_restore_list
 *
 * Return: 0 or -ENOMEM.
 */
static int restore_list_add(struct nft_restore_list *l, uint32_t family,
			    const char *name, bool foreign)
{
	_cleanup_(nftnl_table_freep) struct nftnl_table *t = NULL;
	struct nftnl_table **tables;
	bool *flags;

	t = nftnl_table_alloc();
	if (!t)
		return -ENOMEM;
	nftnl_table_set_u32(t, NFTNL_TABLE_FAMILY, family);
	if (nftnl_table_set_str(t, NFTNL_TABLE_NAME, name) < 0)
		return -ENOMEM;
	tables = reallocarray(l->tables, l->n + 1, sizeof(*tables));
	if (!tables)
		return -ENOMEM;
	l->tables = tables;
	flags = reallocarray(l->foreign, l->n + 1, sizeof(*flags));
	if (!flags)
		return -ENOMEM;
	l->foreign = flags;
	l->tables[l->n] = steal_pointer(&t);
	l->foreign[l->n] = foreign;
	l->n++;
	return 0;
}

/**
 * restore_list_fill() - list every table of the namespace, of every family.
 * @nl: socket (the one that owns, or is to own, the table of @rs)
 * @rs: intended ruleset
 * @l: empty list, filled
 *
 * The dump is not bracketed by generation ids as jr_nft_verify()'s are: a
 * stale list can only make the batch fail (and jr_nft_restore() list
 * again) or miss a table the caller's verification finds.
 *
 * Return: 0 or -errno.
 */
static int restore_list_fill(const struct mnl_socket *nl,
			     const struct jr_ruleset *rs,
			     struct nft_restore_list *l)
{
	_cleanup_(nftnl_table_list_freep) struct nftnl_table_list *dumped =
	    NULL;
	_cleanup_(
	    nftnl_table_list_iter_destroyp) struct nftnl_table_list_iter *it =
	    NULL;
	uint32_t our_family =
	    nftnl_table_get_u32(rs->table, NFTNL_TABLE_FAMILY);
	const char *our_name = nftnl_table_get_str(rs->table, NFTNL_TABLE_NAME);
	uint32_t portid = mnl_socket_get_portid(nl);
	bool interrupted = false;
	struct nftnl_table *t;
	int ret;

	dumped = nftnl_table_list_alloc();
	if (!dumped)
		return -ENOMEM;
	ret = nft_get(nl, NFT_MSG_GETTABLE, NLM_F_DUMP, NFT_MSG_NEWTABLE,
		      table_cb, dumped, &interrupted);
	if (ret < 0)
		return ret;
	it = nftnl_table_list_iter_create(dumped);
	if (!it)
		return -ENOMEM;
	while ((t = nftnl_table_list_iter_next(it))) {
		uint32_t family = nftnl_table_get_u32(t, NFTNL_TABLE_FAMILY);
		const char *name = nftnl_table_get_str(t, NFTNL_TABLE_NAME);
		bool ours;

		if (!name)
			return -EPROTO;
		ours = family == our_family && !strcmp(name, our_name) &&
		       (nftnl_table_get_u32(t, NFTNL_TABLE_FLAGS) &
			NFT_TABLE_F_OWNER) &&
		       nftnl_table_is_set(t, NFTNL_TABLE_OWNER) &&
		       nftnl_table_get_u32(t, NFTNL_TABLE_OWNER) == portid;
		ret = restore_list_add(l, family, name, !ours);
		if (ret < 0)
			return ret;
	}
	return 0;
}

/**
 * restore_removed() - "inet evil, ip nat": the foreign tables of @l.
 * @l: list
 * @buf: output, may be NULL; a list that does not fit ends in "...";
 *	names are escaped (nft_name_escape())
 * @size: size of @buf
 */
static void restore_removed(const struct nft_restore_list *l, char *buf,
			    size_t size)
{
	size_t i, used = 0;

	if (!buf || !size)
		return;
	buf[0] = '\0';
	for (i = 0; i < l->n; i++) {
		char name[JR_NFT_NAME_TEXT];
		int n;

		if (!l->foreign[i])
			continue;
		n = snprintf(
		    buf + used, size - used, "%s%s %s", used ? ", " : "",
		    nft_family_name(
			nftnl_table_get_u32(l->tables[i], NFTNL_TABLE_FAMILY)),
		    nft_name_escape(
			nftnl_table_get_str(l->tables[i], NFTNL_TABLE_NAME),
			name, sizeof(name)));
		if (n < 0 || (size_t)n >= size - used) {
			if (size >= 4)
				memcpy(buf + size - 4, "...", 4);
			return;
		}
		used += (size_t)n;
	}
}

/**
 * restore_raced() - whether @in failed because its table list went stale.
 * @in: install state after install_talk()
 *
 * A listed table deleted before the batch makes its DELTABLE fail with
 * ENOENT; a table with our name created before the batch makes NEWTABLE
 * fail with EEXIST (or EPERM if its creator owns it).
 *
 * Return: true if listing again and retrying may succeed.
 */
static bool restore_raced(const struct nft_install *in)
{
	size_t k;

	if (in->err_index >= in->n_msgs)
		return false;
	switch (install_obj(in, in->err_index, &k)) {
	case NFT_OBJ_DELTABLE:
		return in->err_code == ENOENT;
	case NFT_OBJ_TABLE:
		return in->err_code == EEXIST || in->err_code == EPERM;
	default:
		return false;
	}
}

/**
 * restore_carry_counters() - start the counters a restore re-creates from
 * the figures the kernel holds now.
 * @nl: socket
 * @rs: the ruleset to restore; its counter objects get the figures
 *
 * A restore deletes our table too, and with it the refusal counters; a
 * counter created with packets and bytes starts from them, so what was
 * refused before the tamper is not lost (but for packets refused between
 * this read and the batch). A counter not found keeps what it was given
 * before (0, or the figures of an earlier restore). Best effort: a failed
 * read changes nothing.
 */
static void restore_carry_counters(const struct mnl_socket *nl,
				   const struct jr_ruleset *rs)
{
	_cleanup_(nftnl_obj_list_freep) struct nftnl_obj_list *objs = NULL;
	_cleanup_(nftnl_obj_list_iter_destroyp) struct nftnl_obj_list_iter *it =
	    NULL;
	bool interrupted = false;
	struct nftnl_obj *o;

	if (!rs->n_objs)
		return;
	objs = nftnl_obj_list_alloc();
	if (!objs || nft_get(nl, NFT_MSG_GETOBJ, NLM_F_DUMP, NFT_MSG_NEWOBJ,
			     obj_cb, objs, &interrupted) < 0)
		return;
	it = nftnl_obj_list_iter_create(objs);
	while (it && (o = nftnl_obj_list_iter_next(it))) {
		for (size_t k = 0; k < rs->n_objs; k++) {
			if (!obj_is(o, rs->objs[k]) ||
			    !nftnl_obj_is_set(o, NFTNL_OBJ_CTR_PKTS))
				continue;
			nftnl_obj_set_u64(
			    rs->objs[k], NFTNL_OBJ_CTR_PKTS,
			    nftnl_obj_get_u64(o, NFTNL_OBJ_CTR_PKTS));
			nftnl_obj_set_u64(
			    rs->objs[k], NFTNL_OBJ_CTR_BYTES,
			    nftnl_obj_get_u64(o, NFTNL_OBJ_CTR_BYTES));
		}
	}
}

int jr_nft_restore(struct mnl_socket *nl, const struct jr_ruleset *rs,
		   char *removed, size_t removed_size, struct jr_err *err)
{
	int tries;

	if (removed && removed_size)
		removed[0] = '\0';
	for (tries = 1;; tries++) {
		_cleanup_(restore_list_clear) struct nft_restore_list l = { 0 };
		struct nft_install in = { .rs = rs, .restore = true };
		int ret;

		ret = restore_list_fill(nl, rs, &l);
		if (ret < 0)
			return jr_err_set(
			    err, -ret,
			    "cannot restore the nftables ruleset of the sandbox's network namespace: cannot list its tables: %s",
			    strerror(-ret));
		in.del = l.tables;
		in.n_del = l.n;
		restore_carry_counters(nl, rs);
		ret = install_talk(nl, &in, "nothing was changed", err);
		if (ret == 0) {
			restore_removed(&l, removed, removed_size);
			return 0;
		}
		if (tries < JR_NFT_DUMP_TRIES && restore_raced(&in))
			continue;
		if (err)
			jr_err_prefix(
			    err,
			    "cannot restore the nftables ruleset of the sandbox's network namespace: ");
		return ret;
	}
}

/*
 * Monitoring
 */

/*
 * NFT_MSG_DESTROY* (Linux 6.3): delete, but no error if absent. The
 * kernel announces such a deletion with the DESTROY type itself, and uapi
 * headers older than 6.3 lack the names; the values are ABI.
 */
#define JR_NFT_MSG_DESTROYTABLE 26
#define JR_NFT_MSG_DESTROYFLOWTABLE 32

/**
 * monitor_is_change() - whether notification type @type changes the ruleset.
 * @type: nlmsg_type of a notification
 *
 * Objects are counted, not commits: every commit that changes anything
 * announces each object it adds, updates or deletes (NEW for an update,
 * e.g. a new chain policy) and then NFT_MSG_NEWGEN, which is not counted:
 * it never comes without object messages, and counting it would count
 * every commit twice. Set elements count too: they change what a rule
 * matches. NFT_MSG_TRACE goes to another group, and the device events of
 * newer kernels (NEWDEV/DELDEV: an interface joined or left a netdev
 * hook) change no rule.
 *
 * Return: true for NEW, DEL and DESTROY of tables, chains, rules, sets,
 * set elements, stateful objects and flowtables.
 */
static bool monitor_is_change(uint16_t type)
{
	if (NFNL_SUBSYS_ID(type) != NFNL_SUBSYS_NFTABLES)
		return false;
	switch (NFNL_MSG_TYPE(type)) {
	case NFT_MSG_NEWTABLE:
	case NFT_MSG_DELTABLE:
	case NFT_MSG_NEWCHAIN:
	case NFT_MSG_DELCHAIN:
	case NFT_MSG_NEWRULE:
	case NFT_MSG_DELRULE:
	case NFT_MSG_NEWSET:
	case NFT_MSG_DELSET:
	case NFT_MSG_NEWSETELEM:
	case NFT_MSG_DELSETELEM:
	case NFT_MSG_NEWOBJ:
	case NFT_MSG_DELOBJ:
	case NFT_MSG_NEWFLOWTABLE:
	case NFT_MSG_DELFLOWTABLE:
		return true;
	}
	return NFNL_MSG_TYPE(type) >= JR_NFT_MSG_DESTROYTABLE &&
	       NFNL_MSG_TYPE(type) <= JR_NFT_MSG_DESTROYFLOWTABLE;
}

int jr_nft_monitor_open(int fd, struct mnl_socket **out, struct jr_err *err)
{
	_cleanup_(mnl_socket_closep) struct mnl_socket *nl = NULL;
	int group = NFNLGRP_NFTABLES, flags, e, ret;

	ret = nft_adopt(fd, "nftables monitor socket", &nl, err);
	if (ret < 0)
		return ret;
	fd = mnl_socket_get_fd(nl);

	/* Belt and braces: jr_nft_monitor_drain() never blocks either way. */
	flags = fcntl(fd, F_GETFL);
	if (flags < 0 || fcntl(fd, F_SETFL, flags | O_NONBLOCK) < 0) {
		e = errno;
		return jr_err_set(
		    err, e,
		    "cannot make the nftables monitor socket non-blocking: %s",
		    strerror(e));
	}

	ret = nft_sock_grow_buf(nl, SO_RCVBUFFORCE, SO_RCVBUF,
				JR_NFT_MONITOR_RCVBUF);
	if (ret < 0)
		return jr_err_set(
		    err, -ret,
		    "cannot enlarge the receive buffer of the nftables monitor socket: %s",
		    strerror(-ret));

	/*
	 * The socket option rather than bind(2)'s nl_groups mask: the mask
	 * only reaches groups 1 to 32 and is kept for compatibility
	 * (netlink(7)), the option takes any group number; and binding stays
	 * the one step nft_adopt() does for both sockets, so a refused
	 * subscription is reported as such. Either way the kernel requires
	 * CAP_NET_ADMIN over the namespace (netlink_allowed()).
	 */
	if (mnl_socket_setsockopt(nl, NETLINK_ADD_MEMBERSHIP, &group,
				  sizeof(group)) < 0) {
		e = errno;
		return jr_err_set(
		    err, e,
		    "cannot subscribe the nftables monitor socket to ruleset changes: %s%s",
		    strerror(e),
		    e == EPERM
			? ": jailrun needs CAP_NET_ADMIN in the user namespace that owns the sandbox's network namespace"
			: "");
	}

	*out = steal_pointer(&nl);
	return 0;
}

/*
 * @changes may be NULL. Notifications queued while the drain runs are read
 * too, up to JR_NFT_MONITOR_MAX_READS datagrams; anything left stays
 * queued, and the socket readable, for the next drain. A datagram too large
 * for the buffer (never one of the kernel's: nf_tables notifications fit
 * in NLMSG_GOODSIZE) is treated like a lost one.
 */
int jr_nft_monitor_drain(struct mnl_socket *mon, unsigned int *changes)
{
	_cleanup_free_ void *buf = NULL;
	unsigned int n_changes = 0, reads;
	bool lost = false;
	int ret = 0;

	if (changes)
		*changes = 0;
	if (!mon)
		return -EBADF;
	buf = malloc(JR_NFT_RECV_SIZE);
	if (!buf)
		return -ENOMEM;
	for (reads = 0; reads < JR_NFT_MONITOR_MAX_READS; reads++) {
		const struct nlmsghdr *nlh;
		ssize_t n;
		int len;

		n = nft_recv(mon, buf, MSG_DONTWAIT);
		if (n == -EAGAIN)
			break;
		/*
		 * The queue overflowed (the kernel reports that once, on the
		 * next read) or a datagram did not fit: keep
		 * going, so that the queue empties and the socket leaves its
		 * congested state, then report the loss.
		 */
		if (n == -ENOBUFS || n == -EMSGSIZE) {
			lost = true;
			continue;
		}
		if (n < 0) {
			ret = (int)n;
			break;
		}
		len = (int)n;
		for (nlh = buf; mnl_nlmsg_ok(nlh, len);
		     nlh = mnl_nlmsg_next(nlh, &len)) {
			if (monitor_is_change(nlh->nlmsg_type) &&
			    n_changes < UINT_MAX)
				n_changes++;
		}
	}
	if (changes)
		*changes = n_changes;
	if (ret < 0)
		return ret;
	return lost ? -ENOBUFS : 0;
}
