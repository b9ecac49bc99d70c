// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * ruleset.c - the nftables ruleset of the worker network namespace, built as
 * libnftnl objects.
 *
 * Theory of operation
 *
 * Every network mode starts from the same closed base: one table, inet
 * jailrun, with a base chain on each of the input, output and forward hooks
 * whose policy is drop, and loopback accepted on input and output. A mode
 * that lets traffic out (the allowlist mode, later) only appends accept rules
 * for its gateway and relay ports to that base; nothing is ever opened by
 * removing a rule, so a mode that forgets a rule fails closed.
 *
 * The table carries NFT_TABLE_F_OWNER. The kernel then ties the table to the
 * netlink socket that created it (NFTA_TABLE_OWNER is that socket's port id):
 * any other socket that names the table in a request that changes something
 * gets EPERM, even with CAP_NET_ADMIN in the namespace; "flush ruleset" from
 * another socket skips it. Nothing in the sandbox can therefore loosen the
 * rules. Without NFT_TABLE_F_PERSIST the kernel deletes the table when the
 * owning socket is released; with it (Linux >= 6.9, see ruleset.h) the
 * table stays until the namespace goes.
 *
 * This file is pure: it allocates objects and never talks to the kernel, so
 * the exact expressions of every rule are unit-tested (tests/unit/
 * test_ruleset.c), and nft/jailrun-none.nft is the same ruleset as nft text.
 * nft.c turns the objects into one netlink batch and compares them with
 * what the kernel reports back.
 *
 * Transparent capture (--transparent on) adds two things. In the worker's
 * output chain, TCP to the synthetic pool (fakeip.h) and to the IPv4
 * address entries of the allowlist, and UDP to the pool, are accepted
 * next to the relay's ports. And a second, separate ruleset for the relay
 * netns (JR_RULESET_RELAY): the same owned table name, with a nat chain
 * that redirects that TCP to the relay's transparent listener and a
 * filter chain that answers that UDP with ICMP port-unreachable. Why redirect
 * and not tproxy is in docs/architecture.md ("Transparent egress"). When the
 * sandbox link has IPv6 (params->ipv6), both get the same rules for IPv6 (the
 * IPv6 pool and entries, the redirect to the IPv6 listener), and the worker
 * accepts the neighbour discovery IPv6 needs on its link; without it every IPv6
 * packet meets the closing reject, as before.
 *
 * The allowlist's two closing rejects each name a counter object of the
 * table (JR_NFT_COUNTER_TCP, JR_NFT_COUNTER_OTHER) through an objref
 * expression, so every packet the firewall refuses is counted where the
 * runner can read it back by name at exit, without parsing rule handles;
 * a named object is also what a rule cannot be changed to point away from
 * without a new rule (which the owner flag forbids). With log_refused they
 * also hand the packet to NFLOG group JR_NFLOG_GROUP, which the runner
 * reads for an audit line per refusal (nflog.c).
 *
 * Interfaces are matched by index (meta iif/oif), not by name (iifname):
 * the runner builds the ruleset outside the worker namespace and never
 * enters it, so it cannot ask that namespace for an index by name, and the
 * one interface the base needs is lo, whose index is fixed (see
 * JR_LOOPBACK_IFINDEX). Matching the index is also a single 32-bit compare
 * instead of a 16-byte string compare on every packet.
 */

#include <errno.h>
#include <netinet/in.h>
#include <netinet/icmp6.h>
#include <netinet/ip.h>
#include <netinet/ip6.h>
#include <netinet/ip_icmp.h>
#include <netinet/tcp.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>

#include <linux/netfilter.h>
#include <linux/netfilter/nf_tables.h>
#include <linux/netfilter_ipv4.h>
#include <linux/netfilter/nf_conntrack_common.h>
#include <linux/netfilter/nf_nat.h>
#include <arpa/inet.h>
#include <net/if.h>

#include <libnftnl/chain.h>
#include <libnftnl/expr.h>
#include <libnftnl/object.h>
#include <libnftnl/rule.h>
#include <libnftnl/table.h>

#include "cleanup.h"
#include "err.h"
#include "ruleset-internal.h"
#include "fakeip.h"
#include "link.h"     /* JR_LOOPBACK_IFINDEX */
#include "relaynet.h" /* JR_RELAY_IFNAME */
#include "ruleset.h"

JR_DEFINE_CLEANUP(struct nftnl_expr, nftnl_expr_free)

/* What `nft` calls "priority filter": NF_IP_PRI_FILTER, also used by inet. */
#define JR_PRIO_FILTER NF_IP_PRI_FILTER
/* MLDv2 listener report (RFC 3810 5.2); netinet/icmp6.h names only MLDv1. */
#define JR_MLD2_REPORT 143

/**
 * struct jr_base_chain - a base chain every network mode starts from.
 * @name: chain name, also what nft prints
 * @hook: netfilter hook (NF_INET_*)
 * @lo_key: NFT_META_IIF or NFT_META_OIF to accept loopback traffic in this
 *	chain, 0 for no loopback rule (forward: nothing is routed through
 *	the sandbox)
 */
struct jr_base_chain {
	const char *name;
	uint32_t hook;
	uint32_t lo_key;
};

static const struct jr_base_chain jr_base_chains[] = {
	{ "input", NF_INET_LOCAL_IN, NFT_META_IIF },
	{ "output", NF_INET_LOCAL_OUT, NFT_META_OIF },
	{ "forward", NF_INET_FORWARD, 0 },
};

/**
 * ruleset_oom() - the one error the builder can meet.
 * @err: error to fill
 *
 * libnftnl reports only allocation failures from the setters used here.
 *
 * Return: -ENOMEM.
 */
static int ruleset_oom(struct jr_err *err)
{
	return jr_err_set(err, ENOMEM,
			  "out of memory building the nftables ruleset");
}

/**
 * ruleset_add_table() - create the table of @rs.
 * @rs: ruleset without a table
 * @persist: also flag it NFT_TABLE_F_PERSIST
 *
 * Return: 0 or -ENOMEM.
 */
static int ruleset_add_table(struct jr_ruleset *rs, bool persist)
{
	_cleanup_(nftnl_table_freep) struct nftnl_table *t = NULL;

	t = nftnl_table_alloc();
	if (!t)
		return -ENOMEM;
	nftnl_table_set_u32(t, NFTNL_TABLE_FAMILY, NFPROTO_INET);
	if (nftnl_table_set_str(t, NFTNL_TABLE_NAME, JR_NFT_TABLE) < 0)
		return -ENOMEM;
	nftnl_table_set_u32(t, NFTNL_TABLE_FLAGS,
			    NFT_TABLE_F_OWNER |
				(persist ? NFT_TABLE_F_PERSIST : 0));
	rs->table = steal_pointer(&t);
	return 0;
}

/**
 * ruleset_add_counter() - add the named counter object @name to the table.
 * @rs: ruleset with a table
 * @name: counter name (JR_NFT_COUNTER_*)
 *
 * Created at zero; the kernel counts from there.
 *
 * Return: 0 or -ENOMEM.
 */
static int ruleset_add_counter(struct jr_ruleset *rs, const char *name)
{
	_cleanup_(nftnl_obj_freep) struct nftnl_obj *o = NULL;
	struct nftnl_obj **objs;

	o = nftnl_obj_alloc();
	if (!o)
		return -ENOMEM;
	nftnl_obj_set_u32(o, NFTNL_OBJ_FAMILY, NFPROTO_INET);
	nftnl_obj_set_u32(o, NFTNL_OBJ_TYPE, NFT_OBJECT_COUNTER);
	/* libnftnl 1.2's object setters return nothing; a failed strdup()
	 * leaves the attribute unset. */
	nftnl_obj_set_str(o, NFTNL_OBJ_TABLE, JR_NFT_TABLE);
	nftnl_obj_set_str(o, NFTNL_OBJ_NAME, name);
	if (!nftnl_obj_is_set(o, NFTNL_OBJ_TABLE) ||
	    !nftnl_obj_is_set(o, NFTNL_OBJ_NAME))
		return -ENOMEM;
	objs = reallocarray(rs->objs, rs->n_objs + 1, sizeof(*objs));
	if (!objs)
		return -ENOMEM;
	rs->objs = objs;
	rs->objs[rs->n_objs++] = steal_pointer(&o);
	return 0;
}

/**
 * ruleset_add_chain() - append a base chain.
 * @rs: ruleset with a table
 * @name: chain name
 * @type: "filter" or "nat"
 * @hook: NF_INET_* hook
 * @prio: priority (JR_PRIO_FILTER, NF_IP_PRI_NAT_DST)
 * @policy: NF_DROP or NF_ACCEPT
 *
 * Return: 0 or -ENOMEM.
 */
static int ruleset_add_chain(struct jr_ruleset *rs, const char *name,
			     const char *type, uint32_t hook, int32_t prio,
			     uint32_t policy)
{
	_cleanup_(nftnl_chain_freep) struct nftnl_chain *c = NULL;
	struct nftnl_chain **chains;

	c = nftnl_chain_alloc();
	if (!c)
		return -ENOMEM;
	nftnl_chain_set_u32(c, NFTNL_CHAIN_FAMILY, NFPROTO_INET);
	if (nftnl_chain_set_str(c, NFTNL_CHAIN_TABLE, JR_NFT_TABLE) < 0 ||
	    nftnl_chain_set_str(c, NFTNL_CHAIN_NAME, name) < 0 ||
	    nftnl_chain_set_str(c, NFTNL_CHAIN_TYPE, type) < 0)
		return -ENOMEM;
	nftnl_chain_set_u32(c, NFTNL_CHAIN_HOOKNUM, hook);
	nftnl_chain_set_s32(c, NFTNL_CHAIN_PRIO, prio);
	nftnl_chain_set_u32(c, NFTNL_CHAIN_POLICY, policy);

	chains = reallocarray(rs->chains, rs->n_chains + 1, sizeof(*chains));
	if (!chains)
		return -ENOMEM;
	rs->chains = chains;
	rs->chains[rs->n_chains++] = steal_pointer(&c);
	return 0;
}

/**
 * ruleset_add_base_chain() - append a filter base chain with policy drop.
 * @rs: ruleset with a table
 * @name: chain name
 * @hook: NF_INET_* hook
 *
 * Return: 0 or -ENOMEM.
 */
static int ruleset_add_base_chain(struct jr_ruleset *rs, const char *name,
				  uint32_t hook)
{
	return ruleset_add_chain(rs, name, "filter", hook, JR_PRIO_FILTER,
				 NF_DROP);
}

/**
 * rule_new() - allocate an empty rule in chain @chain of the jailrun table.
 * @chain: chain name
 *
 * Return: the rule, or NULL when out of memory.
 */
static struct nftnl_rule *rule_new(const char *chain)
{
	_cleanup_(nftnl_rule_freep) struct nftnl_rule *r = NULL;

	r = nftnl_rule_alloc();
	if (!r)
		return NULL;
	nftnl_rule_set_u32(r, NFTNL_RULE_FAMILY, NFPROTO_INET);
	if (nftnl_rule_set_str(r, NFTNL_RULE_TABLE, JR_NFT_TABLE) < 0 ||
	    nftnl_rule_set_str(r, NFTNL_RULE_CHAIN, chain) < 0)
		return NULL;
	return steal_pointer(&r);
}

/**
 * rule_add_meta_load() - append "[ meta load @key => reg @dreg ]".
 * @r: rule
 * @key: NFT_META_* key
 * @dreg: destination register
 *
 * Return: 0 or -ENOMEM.
 */
static int rule_add_meta_load(struct nftnl_rule *r, uint32_t key, uint32_t dreg)
{
	struct nftnl_expr *e = nftnl_expr_alloc("meta");

	if (!e)
		return -ENOMEM;
	nftnl_expr_set_u32(e, NFTNL_EXPR_META_KEY, key);
	nftnl_expr_set_u32(e, NFTNL_EXPR_META_DREG, dreg);
	nftnl_rule_add_expr(r, e);
	return 0;
}

/**
 * rule_add_verdict() - append "[ immediate reg 0 @verdict ]".
 * @r: rule
 * @verdict: NF_ACCEPT, NF_DROP, ...
 *
 * Return: 0 or -ENOMEM.
 */
static int rule_add_verdict(struct nftnl_rule *r, int verdict)
{
	struct nftnl_expr *e = nftnl_expr_alloc("immediate");

	if (!e)
		return -ENOMEM;
	nftnl_expr_set_u32(e, NFTNL_EXPR_IMM_DREG, NFT_REG_VERDICT);
	nftnl_expr_set_u32(e, NFTNL_EXPR_IMM_VERDICT, (uint32_t)verdict);
	nftnl_rule_add_expr(r, e);
	return 0;
}

/**
 * rule_add_cmp() - append "[ cmp @op reg @sreg @data ]".
 * @r: rule
 * @op: NFT_CMP_EQ, NFT_CMP_NEQ, ...
 * @sreg: register holding the value to compare
 * @data: value to compare with, in the register's byte order
 * @len: length of @data
 *
 * Return: 0 or -ENOMEM.
 */
static int rule_add_cmp(struct nftnl_rule *r, uint32_t op, uint32_t sreg,
			const void *data, uint32_t len)
{
	_cleanup_(nftnl_expr_freep) struct nftnl_expr *e = NULL;

	e = nftnl_expr_alloc("cmp");
	if (!e)
		return -ENOMEM;
	nftnl_expr_set_u32(e, NFTNL_EXPR_CMP_SREG, sreg);
	nftnl_expr_set_u32(e, NFTNL_EXPR_CMP_OP, op);
	if (nftnl_expr_set(e, NFTNL_EXPR_CMP_DATA, data, len) < 0)
		return -ENOMEM;
	nftnl_rule_add_expr(r, steal_pointer(&e));
	return 0;
}

/**
 * rule_add_payload_load() - append "[ payload load @len b @ @base + @off
 * => reg @dreg ]".
 * @r: rule
 * @base: NFT_PAYLOAD_NETWORK_HEADER or NFT_PAYLOAD_TRANSPORT_HEADER
 * @off: offset in the header
 * @len: bytes to load
 * @dreg: destination register
 *
 * Return: 0 or -ENOMEM.
 */
static int rule_add_payload_load(struct nftnl_rule *r, uint32_t base,
				 uint32_t off, uint32_t len, uint32_t dreg)
{
	struct nftnl_expr *e = nftnl_expr_alloc("payload");

	if (!e)
		return -ENOMEM;
	nftnl_expr_set_u32(e, NFTNL_EXPR_PAYLOAD_BASE, base);
	nftnl_expr_set_u32(e, NFTNL_EXPR_PAYLOAD_OFFSET, off);
	nftnl_expr_set_u32(e, NFTNL_EXPR_PAYLOAD_LEN, len);
	nftnl_expr_set_u32(e, NFTNL_EXPR_PAYLOAD_DREG, dreg);
	nftnl_rule_add_expr(r, e);
	return 0;
}

/**
 * rule_add_ct_state_in() - append "ct state @mask" as nft compiles it:
 * "[ ct load state => reg 1 ] [ bitwise reg 1 = (reg 1 & @mask) ^ 0 ]
 * [ cmp neq reg 1 0 ]".
 * @r: rule
 * @mask: NF_CT_STATE_BIT() bits
 *
 * Return: 0 or -ENOMEM.
 */
static int rule_add_ct_state_in(struct nftnl_rule *r, uint32_t mask)
{
	_cleanup_(nftnl_expr_freep) struct nftnl_expr *ct = NULL;
	_cleanup_(nftnl_expr_freep) struct nftnl_expr *bw = NULL;
	const uint32_t zero = 0;

	ct = nftnl_expr_alloc("ct");
	bw = nftnl_expr_alloc("bitwise");
	if (!ct || !bw)
		return -ENOMEM;
	nftnl_expr_set_u32(ct, NFTNL_EXPR_CT_KEY, NFT_CT_STATE);
	nftnl_expr_set_u32(ct, NFTNL_EXPR_CT_DREG, NFT_REG_1);
	nftnl_expr_set_u32(bw, NFTNL_EXPR_BITWISE_SREG, NFT_REG_1);
	nftnl_expr_set_u32(bw, NFTNL_EXPR_BITWISE_DREG, NFT_REG_1);
	nftnl_expr_set_u32(bw, NFTNL_EXPR_BITWISE_LEN, sizeof(mask));
	if (nftnl_expr_set(bw, NFTNL_EXPR_BITWISE_MASK, &mask, sizeof(mask)) <
		0 ||
	    nftnl_expr_set(bw, NFTNL_EXPR_BITWISE_XOR, &zero, sizeof(zero)) < 0)
		return -ENOMEM;
	nftnl_rule_add_expr(r, steal_pointer(&ct));
	nftnl_rule_add_expr(r, steal_pointer(&bw));
	return rule_add_cmp(r, NFT_CMP_NEQ, NFT_REG_1, &zero, sizeof(zero));
}

/**
 * rule_add_reject() - append "[ reject type @type code @code ]".
 * @r: rule
 * @type: NFT_REJECT_TCP_RST or NFT_REJECT_ICMPX_UNREACH
 * @code: for ICMPX, NFT_REJECT_ICMPX_*
 *
 * Return: 0 or -ENOMEM.
 */
static int rule_add_reject(struct nftnl_rule *r, uint32_t type, uint8_t code)
{
	struct nftnl_expr *e = nftnl_expr_alloc("reject");

	if (!e)
		return -ENOMEM;
	nftnl_expr_set_u32(e, NFTNL_EXPR_REJECT_TYPE, type);
	nftnl_expr_set_u8(e, NFTNL_EXPR_REJECT_CODE, code);
	nftnl_rule_add_expr(r, e);
	return 0;
}

/**
 * rule_add_counter_ref() - append "[ objref type 1 name @name ]", nft's
 * `counter name "@name"`: count the packet on the table's counter @name.
 * @r: rule
 * @name: a counter object of the same table (ruleset_add_counter())
 *
 * Return: 0 or -ENOMEM.
 */
static int rule_add_counter_ref(struct nftnl_rule *r, const char *name)
{
	_cleanup_(nftnl_expr_freep) struct nftnl_expr *e = NULL;

	e = nftnl_expr_alloc("objref");
	if (!e)
		return -ENOMEM;
	nftnl_expr_set_u32(e, NFTNL_EXPR_OBJREF_IMM_TYPE, NFT_OBJECT_COUNTER);
	if (nftnl_expr_set_str(e, NFTNL_EXPR_OBJREF_IMM_NAME, name) < 0)
		return -ENOMEM;
	nftnl_rule_add_expr(r, steal_pointer(&e));
	return 0;
}

/**
 * rule_add_log_group() - append "[ log group @group ]", nft's
 * `log group N`: hand the packet to nfnetlink_log group @group.
 * @r: rule
 * @group: NFLOG group
 *
 * Return: 0 or -ENOMEM.
 */
static int rule_add_log_group(struct nftnl_rule *r, uint16_t group)
{
	struct nftnl_expr *e = nftnl_expr_alloc("log");

	if (!e)
		return -ENOMEM;
	nftnl_expr_set_u16(e, NFTNL_EXPR_LOG_GROUP, group);
	nftnl_rule_add_expr(r, e);
	return 0;
}

/**
 * rule_add_bitwise_mask() - append "[ bitwise reg @reg = (reg @reg & @mask)
 * ^ 0 ]".
 * @r: rule
 * @reg: register
 * @mask: mask, in the register's byte order
 * @len: length of @mask
 *
 * Return: 0 or -ENOMEM.
 */
static int rule_add_bitwise_mask(struct nftnl_rule *r, uint32_t reg,
				 const void *mask, uint32_t len)
{
	_cleanup_(nftnl_expr_freep) struct nftnl_expr *e = NULL;
	const uint8_t zero[16] = { 0 };

	e = nftnl_expr_alloc("bitwise");
	if (!e)
		return -ENOMEM;
	nftnl_expr_set_u32(e, NFTNL_EXPR_BITWISE_SREG, reg);
	nftnl_expr_set_u32(e, NFTNL_EXPR_BITWISE_DREG, reg);
	nftnl_expr_set_u32(e, NFTNL_EXPR_BITWISE_LEN, len);
	if (nftnl_expr_set(e, NFTNL_EXPR_BITWISE_MASK, mask, len) < 0 ||
	    nftnl_expr_set(e, NFTNL_EXPR_BITWISE_XOR, zero, len) < 0)
		return -ENOMEM;
	nftnl_rule_add_expr(r, steal_pointer(&e));
	return 0;
}

/**
 * rule_add_daddr() - append "ip daddr @addr/@prefix" (AF_INET) or "ip6
 * daddr @addr/@prefix" (AF_INET6), or "!=" with NFT_CMP_NEQ, as nft
 * compiles it for an inet table: the nfproto test, then the destination
 * address, loaded as whole bytes when the prefix ends on a byte boundary
 * and as the whole address through a mask when it does not; a /0 needs
 * no address test at all.
 * @r: rule
 * @family: AF_INET or AF_INET6
 * @addr: the network, network byte order, host bits zero (4 or 16 bytes)
 * @prefix: 0..32 or 0..128
 * @op: NFT_CMP_EQ or NFT_CMP_NEQ (only with a full-length @prefix)
 *
 * Return: 0 or -ENOMEM.
 */
static int rule_add_daddr(struct nftnl_rule *r, int family, const uint8_t *addr,
			  unsigned int prefix, uint32_t op)
{
	const bool v6 = family == AF_INET6;
	const uint8_t nfproto = v6 ? NFPROTO_IPV6 : NFPROTO_IPV4;
	const uint32_t daddr = v6 ? offsetof(struct ip6_hdr, ip6_dst)
				  : offsetof(struct iphdr, daddr);
	const uint32_t len = v6 ? 16 : 4;
	uint8_t mask[16] = { 0 };

	if (rule_add_meta_load(r, NFT_META_NFPROTO, NFT_REG_1) < 0 ||
	    rule_add_cmp(r, NFT_CMP_EQ, NFT_REG_1, &nfproto, sizeof(nfproto)) <
		0)
		return -ENOMEM;
	if (prefix == 0)
		return 0;
	if (prefix % 8 == 0)
		return rule_add_payload_load(r, NFT_PAYLOAD_NETWORK_HEADER,
					     daddr, prefix / 8,
					     NFT_REG_1) < 0 ||
			       rule_add_cmp(r, op, NFT_REG_1, addr,
					    prefix / 8) < 0
			   ? -ENOMEM
			   : 0;
	for (unsigned int i = 0; i < prefix; i++)
		mask[i / 8] |= (uint8_t)(0x80 >> (i % 8));
	if (rule_add_payload_load(r, NFT_PAYLOAD_NETWORK_HEADER, daddr, len,
				  NFT_REG_1) < 0 ||
	    rule_add_bitwise_mask(r, NFT_REG_1, mask, len) < 0 ||
	    rule_add_cmp(r, op, NFT_REG_1, addr, len) < 0)
		return -ENOMEM;
	return 0;
}

/**
 * rule_add_l4proto() - append "meta l4proto @proto".
 * @r: rule
 * @proto: IPPROTO_TCP, IPPROTO_UDP
 *
 * Return: 0 or -ENOMEM.
 */
static int rule_add_l4proto(struct nftnl_rule *r, uint8_t proto)
{
	if (rule_add_meta_load(r, NFT_META_L4PROTO, NFT_REG_1) < 0 ||
	    rule_add_cmp(r, NFT_CMP_EQ, NFT_REG_1, &proto, sizeof(proto)) < 0)
		return -ENOMEM;
	return 0;
}

/**
 * rule_add_redirect() - append "redirect to :@port" as nft compiles it:
 * "[ immediate reg 1 @port ] [ redir proto_min reg 1 proto_max reg 1
 * flags 0x2 ]".
 * @r: rule
 * @port: host byte order
 *
 * The destination address becomes the primary address of the interface
 * the packet came in on (the gateway, on the relay's end of the veth);
 * the original one stays in the conntrack entry, where SO_ORIGINAL_DST
 * reads it.
 *
 * Return: 0 or -ENOMEM.
 */
static int rule_add_redirect(struct nftnl_rule *r, uint16_t port)
{
	_cleanup_(nftnl_expr_freep) struct nftnl_expr *imm = NULL;
	_cleanup_(nftnl_expr_freep) struct nftnl_expr *redir = NULL;
	const uint16_t nport = htons(port);

	imm = nftnl_expr_alloc("immediate");
	redir = nftnl_expr_alloc("redir");
	if (!imm || !redir)
		return -ENOMEM;
	nftnl_expr_set_u32(imm, NFTNL_EXPR_IMM_DREG, NFT_REG_1);
	if (nftnl_expr_set(imm, NFTNL_EXPR_IMM_DATA, &nport, sizeof(nport)) < 0)
		return -ENOMEM;
	/* The kernel fills in proto_max = proto_min when it is left out and
	 * reports it back, so it is set here, as the read-back shows it. */
	nftnl_expr_set_u32(redir, NFTNL_EXPR_REDIR_REG_PROTO_MIN, NFT_REG_1);
	nftnl_expr_set_u32(redir, NFTNL_EXPR_REDIR_REG_PROTO_MAX, NFT_REG_1);
	nftnl_expr_set_u32(redir, NFTNL_EXPR_REDIR_FLAGS,
			   NF_NAT_RANGE_PROTO_SPECIFIED);
	nftnl_rule_add_expr(r, steal_pointer(&imm));
	nftnl_rule_add_expr(r, steal_pointer(&redir));
	return 0;
}

/**
 * ruleset_append_rule() - append @r to @rs.
 * @rs: ruleset
 * @r: rule; on success @rs owns it and *@r is NULL
 *
 * Return: 0 or -ENOMEM.
 */
static int ruleset_append_rule(struct jr_ruleset *rs, struct nftnl_rule **r)
{
	struct nftnl_rule **rules;

	rules = reallocarray(rs->rules, rs->n_rules + 1, sizeof(*rules));
	if (!rules)
		return -ENOMEM;
	rs->rules = rules;
	rs->rules[rs->n_rules++] = steal_pointer(r);
	return 0;
}

/**
 * ruleset_add_lo_accept() - append "meta @key lo accept" to @chain.
 * @rs: ruleset
 * @chain: chain name
 * @key: NFT_META_IIF or NFT_META_OIF
 *
 * Return: 0 or -ENOMEM.
 */
static int ruleset_add_lo_accept(struct jr_ruleset *rs, const char *chain,
				 uint32_t key)
{
	_cleanup_(nftnl_rule_freep) struct nftnl_rule *r = NULL;
	/* meta iif/oif load the index as a u32 in host byte order. */
	const uint32_t lo = JR_LOOPBACK_IFINDEX;

	r = rule_new(chain);
	if (!r)
		return -ENOMEM;
	if (rule_add_meta_load(r, key, NFT_REG_1) < 0 ||
	    rule_add_cmp(r, NFT_CMP_EQ, NFT_REG_1, &lo, sizeof(lo)) < 0 ||
	    rule_add_verdict(r, NF_ACCEPT) < 0)
		return -ENOMEM;
	return ruleset_append_rule(rs, &r);
}

/**
 * ruleset_add_gateway_accept() - "ip daddr @gw @l4proto dport @port accept"
 * in the output chain, compiled as nft does for an inet table: the nfproto
 * test first, so the IPv4 header offset is only read from IPv4 packets.
 * @rs: ruleset
 * @gw: gateway address, network byte order
 * @l4proto: IPPROTO_TCP or IPPROTO_UDP
 * @port: destination port, host byte order
 *
 * Return: 0 or -ENOMEM.
 */
static int ruleset_add_gateway_accept(struct jr_ruleset *rs, struct in_addr gw,
				      uint8_t l4proto, uint16_t port)
{
	_cleanup_(nftnl_rule_freep) struct nftnl_rule *r = NULL;
	const uint8_t ipv4 = NFPROTO_IPV4;
	const uint16_t dport = htons(port);

	r = rule_new("output");
	if (!r)
		return -ENOMEM;
	if (rule_add_meta_load(r, NFT_META_NFPROTO, NFT_REG_1) < 0 ||
	    rule_add_cmp(r, NFT_CMP_EQ, NFT_REG_1, &ipv4, sizeof(ipv4)) < 0 ||
	    rule_add_payload_load(r, NFT_PAYLOAD_NETWORK_HEADER,
				  offsetof(struct iphdr, daddr), 4,
				  NFT_REG_1) < 0 ||
	    rule_add_cmp(r, NFT_CMP_EQ, NFT_REG_1, &gw.s_addr, 4) < 0 ||
	    rule_add_meta_load(r, NFT_META_L4PROTO, NFT_REG_1) < 0 ||
	    rule_add_cmp(r, NFT_CMP_EQ, NFT_REG_1, &l4proto, sizeof(l4proto)) <
		0 ||
	    rule_add_payload_load(r, NFT_PAYLOAD_TRANSPORT_HEADER,
				  offsetof(struct tcphdr, dest), 2,
				  NFT_REG_1) < 0 ||
	    rule_add_cmp(r, NFT_CMP_EQ, NFT_REG_1, &dport, sizeof(dport)) < 0 ||
	    rule_add_verdict(r, NF_ACCEPT) < 0)
		return -ENOMEM;
	return ruleset_append_rule(rs, &r);
}

/**
 * ruleset_add_publish() - a published port @port of the command: on
 * input "ip saddr @gw tcp dport @port accept" (the relay's connection
 * over the veth; new or not), on output "ip daddr @gw tcp sport @port ct
 * state established accept" (the command's replies on it, never a
 * connection of its own). Compiled as nft does for an inet table.
 * @rs: ruleset
 * @gw: gateway address, network byte order
 * @port: the command's port, host byte order
 *
 * Return: 0 or -ENOMEM.
 */
static int ruleset_add_publish(struct jr_ruleset *rs, struct in_addr gw,
			       uint16_t port)
{
	static const struct {
		const char *chain;
		uint32_t addr_off, port_off;
		bool established;
	} dirs[] = {
		{ "input", offsetof(struct iphdr, saddr),
		  offsetof(struct tcphdr, dest), false },
		{ "output", offsetof(struct iphdr, daddr),
		  offsetof(struct tcphdr, source), true },
	};
	const uint8_t ipv4 = NFPROTO_IPV4, tcp = IPPROTO_TCP;
	const uint16_t nport = htons(port);

	for (size_t i = 0; i < ARRAY_SIZE(dirs); i++) {
		_cleanup_(nftnl_rule_freep) struct nftnl_rule *r = NULL;

		r = rule_new(dirs[i].chain);
		if (!r ||
		    rule_add_meta_load(r, NFT_META_NFPROTO, NFT_REG_1) < 0 ||
		    rule_add_cmp(r, NFT_CMP_EQ, NFT_REG_1, &ipv4,
				 sizeof(ipv4)) < 0 ||
		    rule_add_payload_load(r, NFT_PAYLOAD_NETWORK_HEADER,
					  dirs[i].addr_off, 4, NFT_REG_1) < 0 ||
		    rule_add_cmp(r, NFT_CMP_EQ, NFT_REG_1, &gw.s_addr, 4) < 0 ||
		    rule_add_meta_load(r, NFT_META_L4PROTO, NFT_REG_1) < 0 ||
		    rule_add_cmp(r, NFT_CMP_EQ, NFT_REG_1, &tcp, sizeof(tcp)) <
			0 ||
		    rule_add_payload_load(r, NFT_PAYLOAD_TRANSPORT_HEADER,
					  dirs[i].port_off, 2, NFT_REG_1) < 0 ||
		    rule_add_cmp(r, NFT_CMP_EQ, NFT_REG_1, &nport,
				 sizeof(nport)) < 0 ||
		    (dirs[i].established &&
		     rule_add_ct_state_in(
			 r, NF_CT_STATE_BIT(IP_CT_ESTABLISHED)) < 0) ||
		    rule_add_verdict(r, NF_ACCEPT) < 0 ||
		    ruleset_append_rule(rs, &r) < 0)
			return -ENOMEM;
	}
	return 0;
}

/**
 * ruleset_add_out() - "ip daddr @addr/@prefix meta l4proto @proto accept",
 * or with @port "ip daddr @addr/@prefix tcp dport @port accept", in the
 * output chain; "ip6 daddr" for @family AF_INET6.
 * @rs: ruleset
 * @family: AF_INET (@addr 4 bytes) or AF_INET6 (16)
 * @addr: network, network byte order
 * @prefix: 0..32 or 0..128
 * @proto: IPPROTO_TCP or IPPROTO_UDP
 * @port: 0 for any, else host byte order
 *
 * Return: 0 or -ENOMEM.
 */
static int ruleset_add_out(struct jr_ruleset *rs, int family,
			   const uint8_t *addr, unsigned int prefix,
			   uint8_t proto, uint16_t port)
{
	_cleanup_(nftnl_rule_freep) struct nftnl_rule *r = NULL;
	const uint16_t dport = htons(port);

	r = rule_new("output");
	if (!r || rule_add_daddr(r, family, addr, prefix, NFT_CMP_EQ) < 0 ||
	    rule_add_l4proto(r, proto) < 0)
		return -ENOMEM;
	if (port &&
	    (rule_add_payload_load(r, NFT_PAYLOAD_TRANSPORT_HEADER,
				   offsetof(struct tcphdr, dest), 2,
				   NFT_REG_1) < 0 ||
	     rule_add_cmp(r, NFT_CMP_EQ, NFT_REG_1, &dport, sizeof(dport)) < 0))
		return -ENOMEM;
	if (rule_add_verdict(r, NF_ACCEPT) < 0)
		return -ENOMEM;
	return ruleset_append_rule(rs, &r);
}

/**
 * ruleset_add_icmpv6() - "icmpv6 type T @verdict" in @chain for each of
 * @types, as nft compiles it for an inet table (nfproto, l4proto, then the
 * type byte).
 * @rs: ruleset
 * @chain: "input" or "output"
 * @types: ICMPv6 types
 * @n: number of @types
 * @verdict: NF_ACCEPT or NF_DROP
 *
 * Return: 0 or -ENOMEM.
 */
static int ruleset_add_icmpv6(struct jr_ruleset *rs, const char *chain,
			      const uint8_t *types, size_t n, int verdict)
{
	const uint8_t ipv6 = NFPROTO_IPV6, icmpv6 = IPPROTO_ICMPV6;

	for (size_t i = 0; i < n; i++) {
		_cleanup_(nftnl_rule_freep) struct nftnl_rule *r = NULL;

		r = rule_new(chain);
		if (!r ||
		    rule_add_meta_load(r, NFT_META_NFPROTO, NFT_REG_1) < 0 ||
		    rule_add_cmp(r, NFT_CMP_EQ, NFT_REG_1, &ipv6,
				 sizeof(ipv6)) < 0 ||
		    rule_add_l4proto(r, icmpv6) < 0 ||
		    rule_add_payload_load(r, NFT_PAYLOAD_TRANSPORT_HEADER, 0, 1,
					  NFT_REG_1) < 0 ||
		    rule_add_cmp(r, NFT_CMP_EQ, NFT_REG_1, &types[i], 1) < 0 ||
		    rule_add_verdict(r, verdict) < 0 ||
		    ruleset_append_rule(rs, &r) < 0)
			return -ENOMEM;
	}
	return 0;
}

/**
 * ruleset_add_nd() - "icmpv6 type nd-neighbor-solicit accept" and
 * "icmpv6 type nd-neighbor-advert accept" in @chain.
 * @rs: ruleset
 * @chain: "input" or "output"
 *
 * IPv6 finds the link-layer address of the other end with neighbour
 * discovery (RFC 4861 7), ICMPv6 that conntrack does not track (no
 * "established" for it): under the drop policy, without these, a connect
 * to the relay's end fails with EHOSTUNREACH once the neighbour entry
 * fails. Nothing else of ICMPv6 gets in (router advertisements, redirects:
 * the link's addresses and route are jailrun's alone) or out on its own;
 * errors about the command's own connections come in as "related".
 *
 * Return: 0 or -ENOMEM.
 */
static int ruleset_add_nd(struct jr_ruleset *rs, const char *chain)
{
	static const uint8_t types[] = { ND_NEIGHBOR_SOLICIT,
					 ND_NEIGHBOR_ADVERT };

	return ruleset_add_icmpv6(rs, chain, types, ARRAY_SIZE(types),
				  NF_ACCEPT);
}

/**
 * ruleset_add_link_chatter_drop() - drop, uncounted, the ICMPv6 the
 * worker's kernel sends on its own when the link has IPv6: multicast
 * listener reports and done messages (MLDv1, RFC 2710 3; MLDv2, RFC 3810
 * 5.2), sent for the solicited-node group of every address it takes, and
 * router solicitations (RFC 4861 6.3.7).
 * @rs: ruleset
 *
 * They met the closing reject before and went nowhere all the same (no
 * ICMP error answers a multicast packet); dropping them here keeps them
 * off the refusal counters, which count what the command tried. The
 * command cannot send these itself: it has no raw socket (no
 * CAP_NET_RAW), and ping sockets send echo requests only.
 *
 * Return: 0 or -ENOMEM.
 */
static int ruleset_add_link_chatter_drop(struct jr_ruleset *rs)
{
	static const uint8_t types[] = { MLD_LISTENER_REPORT,
					 MLD_LISTENER_REDUCTION,
					 ND_ROUTER_SOLICIT, JR_MLD2_REPORT };

	return ruleset_add_icmpv6(rs, "output", types, ARRAY_SIZE(types),
				  NF_DROP);
}

/**
 * ruleset_add_transparent_out() - the worker's way out for captured TCP.
 * @rs: ruleset
 * @p: the policy, for its address entries; @p->ipv6
 *
 * TCP to the synthetic pool goes to the veth (the default route leads
 * there), where the relay netns redirects it to the relay; so does TCP
 * to an address or CIDR the allowlist names, on its port if it names
 * one. The relay decides again per connection; these rules are the first
 * wall, so a name's real address (192.0.2.10 for allowed.test) is reset
 * here unless an entry names it. Without @p->ipv6 IPv6 entries get no
 * rule: the worker has no IPv6 address or route, so there is nothing to
 * let out. With it, the same again for IPv6: neighbour discovery
 * (ruleset_add_nd()), the IPv6 pool and the IPv6 entries.
 *
 * UDP to the pool goes out too, only to be refused by the relay netns
 * with ICMP port-unreachable (ruleset_add_relay()): a QUIC client (UDP
 * 443 to an allowed name) then gets ECONNREFUSED on its connected socket
 * at once and falls back to TCP, which is captured, as it would on a real
 * network. Refused here instead, in the output hook, the send itself
 * fails with EPERM, which QUIC stacks do not read as "use TCP".
 *
 * Return: 0 or -ENOMEM.
 */
static int ruleset_add_transparent_out(struct jr_ruleset *rs,
				       const struct jr_ruleset_params *p)
{
	struct in_addr pool;
	struct in6_addr pool6;

	if (inet_pton(AF_INET, JR_FAKEIP_V4_PREFIX, &pool) != 1 ||
	    inet_pton(AF_INET6, JR_FAKEIP_V6_PREFIX, &pool6) != 1 ||
	    ruleset_add_out(rs, AF_INET, (const uint8_t *)&pool.s_addr,
			    JR_FAKEIP_V4_LEN, IPPROTO_TCP, 0) < 0 ||
	    ruleset_add_out(rs, AF_INET, (const uint8_t *)&pool.s_addr,
			    JR_FAKEIP_V4_LEN, IPPROTO_UDP, 0) < 0)
		return -ENOMEM;
	for (size_t i = 0; p->policy && i < p->policy->n; i++) {
		const struct jr_allow_entry *e = &p->policy->entries[i];

		if (e->kind != JR_ALLOW_ADDR || e->family != AF_INET)
			continue;
		if (ruleset_add_out(rs, AF_INET, e->addr, e->prefix,
				    IPPROTO_TCP, e->port) < 0)
			return -ENOMEM;
	}
	if (!p->ipv6)
		return 0;
	if (ruleset_add_nd(rs, "output") < 0 ||
	    ruleset_add_out(rs, AF_INET6, pool6.s6_addr, JR_FAKEIP_V6_LEN,
			    IPPROTO_TCP, 0) < 0 ||
	    ruleset_add_out(rs, AF_INET6, pool6.s6_addr, JR_FAKEIP_V6_LEN,
			    IPPROTO_UDP, 0) < 0)
		return -ENOMEM;
	for (size_t i = 0; p->policy && i < p->policy->n; i++) {
		const struct jr_allow_entry *e = &p->policy->entries[i];

		if (e->kind != JR_ALLOW_ADDR || e->family != AF_INET6)
			continue;
		if (ruleset_add_out(rs, AF_INET6, e->addr, e->prefix,
				    IPPROTO_TCP, e->port) < 0)
			return -ENOMEM;
	}
	return 0;
}

/**
 * rule_add_from_veth_not_gw() - "iifname "jr-relay" ip daddr != @gw
 * meta l4proto @proto": what came in over the veth for anywhere but the
 * gateway's own address.
 * @r: rule
 * @gw: network byte order
 * @proto: IPPROTO_TCP or IPPROTO_UDP
 *
 * "iifname" matches the name, not the index: the runner builds this
 * without entering the relay netns, and the name is ours (relaynet.h).
 *
 * Return: 0 or -ENOMEM.
 */
static int rule_add_from_veth_not_gw(struct nftnl_rule *r, struct in_addr gw,
				     uint8_t proto)
{
	char ifname[IFNAMSIZ] = JR_RELAY_IFNAME;

	if (rule_add_meta_load(r, NFT_META_IIFNAME, NFT_REG_1) < 0 ||
	    rule_add_cmp(r, NFT_CMP_EQ, NFT_REG_1, ifname, sizeof(ifname)) <
		0 ||
	    rule_add_daddr(r, AF_INET, (const uint8_t *)&gw.s_addr, 32,
			   NFT_CMP_NEQ) < 0 ||
	    rule_add_l4proto(r, proto) < 0)
		return -ENOMEM;
	return 0;
}

/**
 * rule_add_from_veth_not_gw6() - rule_add_from_veth_not_gw() for IPv6:
 * "iifname "jr-relay" ip6 daddr != JR_LINK6_RELAY meta l4proto @proto".
 * @r: rule
 * @proto: IPPROTO_TCP or IPPROTO_UDP
 *
 * Return: 0 or -ENOMEM (-EINVAL for a bad JR_LINK6_RELAY).
 */
static int rule_add_from_veth_not_gw6(struct nftnl_rule *r, uint8_t proto)
{
	char ifname[IFNAMSIZ] = JR_RELAY_IFNAME;
	struct in6_addr gw6;

	if (inet_pton(AF_INET6, JR_LINK6_RELAY, &gw6) != 1)
		return -EINVAL;
	if (rule_add_meta_load(r, NFT_META_IIFNAME, NFT_REG_1) < 0 ||
	    rule_add_cmp(r, NFT_CMP_EQ, NFT_REG_1, ifname, sizeof(ifname)) <
		0 ||
	    rule_add_daddr(r, AF_INET6, gw6.s6_addr, 128, NFT_CMP_NEQ) < 0 ||
	    rule_add_l4proto(r, proto) < 0)
		return -ENOMEM;
	return 0;
}

/**
 * ruleset_add_relay() - the relay netns's table: a nat chain on
 * prerouting whose only rule sends TCP that comes in on the veth, for any
 * address but the gateway's, to the relay's transparent listener; and a
 * filter chain on prerouting that answers UDP to such addresses with ICMP
 * port-unreachable (see ruleset_add_transparent_out() for why here).
 * @rs: ruleset with the table
 * @p: gateway and transparent port
 *
 * Connections to the gateway itself (proxy, DNS) are left alone. Policy
 * accept in both: they only rewrite and refuse; the relay netns has no
 * route out, and forwarding is off. With @p->ipv6 each chain gets the
 * same rule again for IPv6 (ICMPv6 port-unreachable, code 4 of RFC 4443
 * 3.1), for anything but the relay's own JR_LINK6_RELAY; the redirect
 * then lands on the IPv6 transparent listener there (relaynet.h).
 *
 * Return: 0 or -ENOMEM.
 */
static int ruleset_add_relay(struct jr_ruleset *rs,
			     const struct jr_ruleset_params *p)
{
	_cleanup_(nftnl_rule_freep) struct nftnl_rule *r = NULL;
	_cleanup_(nftnl_rule_freep) struct nftnl_rule *udp = NULL;

	if (ruleset_add_chain(rs, "prerouting", "nat", NF_INET_PRE_ROUTING,
			      NF_IP_PRI_NAT_DST, NF_ACCEPT) < 0 ||
	    ruleset_add_chain(rs, "refuse", "filter", NF_INET_PRE_ROUTING,
			      JR_PRIO_FILTER, NF_ACCEPT) < 0)
		return -ENOMEM;
	r = rule_new("prerouting");
	if (!r || rule_add_from_veth_not_gw(r, p->gateway, IPPROTO_TCP) < 0 ||
	    rule_add_redirect(r, p->transparent_port) < 0 ||
	    ruleset_append_rule(rs, &r) < 0)
		return -ENOMEM;
	udp = rule_new("refuse");
	if (!udp ||
	    rule_add_from_veth_not_gw(udp, p->gateway, IPPROTO_UDP) < 0 ||
	    rule_add_reject(udp, NFT_REJECT_ICMP_UNREACH, ICMP_PORT_UNREACH) <
		0 ||
	    ruleset_append_rule(rs, &udp) < 0)
		return -ENOMEM;
	if (!p->ipv6)
		return 0;
	r = rule_new("prerouting");
	if (!r || rule_add_from_veth_not_gw6(r, IPPROTO_TCP) < 0 ||
	    rule_add_redirect(r, p->transparent_port) < 0 ||
	    ruleset_append_rule(rs, &r) < 0)
		return -ENOMEM;
	udp = rule_new("refuse");
	if (!udp || rule_add_from_veth_not_gw6(udp, IPPROTO_UDP) < 0 ||
	    rule_add_reject(udp, NFT_REJECT_ICMP_UNREACH,
			    ICMP6_DST_UNREACH_NOPORT) < 0 ||
	    ruleset_append_rule(rs, &udp) < 0)
		return -ENOMEM;
	return 0;
}

/**
 * ruleset_add_allowlist() - what the allowlist mode adds to the base.
 * @rs: ruleset holding the base
 * @p: gateway and relay ports
 *
 * Replies from the relay come back as established traffic; the worker may
 * send only to the relay's proxy (TCP) and DNS (UDP and TCP) ports. Every
 * other TCP connection is answered with a reset and every other packet
 * with ICMP administratively prohibited (for IPv4 and IPv6 alike, via
 * icmpx), so a refused connect fails in microseconds instead of hanging
 * until a timeout. UDP and TCP to the relay use the same port offset
 * (struct udphdr and struct tcphdr both start with source, dest).
 *
 * Return: 0 or -ENOMEM.
 */
static int ruleset_add_allowlist(struct jr_ruleset *rs,
				 const struct jr_ruleset_params *p)
{
	_cleanup_(nftnl_rule_freep) struct nftnl_rule *est = NULL;
	_cleanup_(nftnl_rule_freep) struct nftnl_rule *rst = NULL;
	_cleanup_(nftnl_rule_freep) struct nftnl_rule *icmpx = NULL;
	const uint8_t tcp = IPPROTO_TCP;

	est = rule_new("input");
	if (!est ||
	    rule_add_ct_state_in(est, NF_CT_STATE_BIT(IP_CT_ESTABLISHED) |
					  NF_CT_STATE_BIT(IP_CT_RELATED)) < 0 ||
	    rule_add_verdict(est, NF_ACCEPT) < 0 ||
	    ruleset_append_rule(rs, &est) < 0)
		return -ENOMEM;
	/* IPv6 neighbour discovery in (ruleset_add_nd()); out with the
	 * transparent rules. */
	if (p->transparent && p->ipv6 && ruleset_add_nd(rs, "input") < 0)
		return -ENOMEM;

	if (ruleset_add_gateway_accept(rs, p->gateway, IPPROTO_TCP,
				       p->proxy_port) < 0 ||
	    ruleset_add_gateway_accept(rs, p->gateway, IPPROTO_UDP,
				       p->dns_port) < 0 ||
	    ruleset_add_gateway_accept(rs, p->gateway, IPPROTO_TCP,
				       p->dns_port) < 0)
		return -ENOMEM;
	/* The model lane and published ports (lane.h): after the relay's
	 * own ports, before the transparent rules. */
	for (size_t i = 0; i < p->n_lane_ports; i++)
		if (ruleset_add_gateway_accept(rs, p->gateway, IPPROTO_TCP,
					       p->lane_ports[i]) < 0)
			return -ENOMEM;
	for (size_t i = 0; i < p->n_publish_ports; i++)
		if (ruleset_add_publish(rs, p->gateway, p->publish_ports[i]) <
		    0)
			return -ENOMEM;
	if (p->transparent && ruleset_add_transparent_out(rs, p) < 0)
		return -ENOMEM;

	/* The kernel's own IPv6 link chatter is not a refusal; eth0 has an
	 * IPv6 link-local address wherever the kernel has IPv6, with or
	 * without p->ipv6. */
	if (ruleset_add_link_chatter_drop(rs) < 0)
		return -ENOMEM;
	/* What the closing rejects count (ruleset_add_counter()). */
	if (ruleset_add_counter(rs, JR_NFT_COUNTER_TCP) < 0 ||
	    ruleset_add_counter(rs, JR_NFT_COUNTER_OTHER) < 0)
		return -ENOMEM;
	rst = rule_new("output");
	if (!rst || rule_add_meta_load(rst, NFT_META_L4PROTO, NFT_REG_1) < 0 ||
	    rule_add_cmp(rst, NFT_CMP_EQ, NFT_REG_1, &tcp, sizeof(tcp)) < 0 ||
	    rule_add_counter_ref(rst, JR_NFT_COUNTER_TCP) < 0 ||
	    (p->log_refused && rule_add_log_group(rst, JR_NFLOG_GROUP) < 0) ||
	    rule_add_reject(rst, NFT_REJECT_TCP_RST, 0) < 0 ||
	    ruleset_append_rule(rs, &rst) < 0)
		return -ENOMEM;

	icmpx = rule_new("output");
	if (!icmpx || rule_add_counter_ref(icmpx, JR_NFT_COUNTER_OTHER) < 0 ||
	    (p->log_refused && rule_add_log_group(icmpx, JR_NFLOG_GROUP) < 0) ||
	    rule_add_reject(icmpx, NFT_REJECT_ICMPX_UNREACH,
			    NFT_REJECT_ICMPX_ADMIN_PROHIBITED) < 0 ||
	    ruleset_append_rule(rs, &icmpx) < 0)
		return -ENOMEM;
	return 0;
}

/**
 * ruleset_add_base() - the closed base every network mode starts from.
 * @rs: empty ruleset
 * @persist: also flag the table NFT_TABLE_F_PERSIST (see ruleset.h)
 *
 * Return: 0 or -ENOMEM.
 */
static int ruleset_add_base(struct jr_ruleset *rs, bool persist)
{
	size_t i;

	if (ruleset_add_table(rs, persist) < 0)
		return -ENOMEM;
	for (i = 0; i < ARRAY_SIZE(jr_base_chains); i++) {
		if (ruleset_add_base_chain(rs, jr_base_chains[i].name,
					   jr_base_chains[i].hook) < 0)
			return -ENOMEM;
	}
	for (i = 0; i < ARRAY_SIZE(jr_base_chains); i++) {
		if (!jr_base_chains[i].lo_key)
			continue;
		if (ruleset_add_lo_accept(rs, jr_base_chains[i].name,
					  jr_base_chains[i].lo_key) < 0)
			return -ENOMEM;
	}
	return 0;
}

int jr_ruleset_build(const struct jr_ruleset_params *params,
		     struct jr_ruleset **out, struct jr_err *err)
{
	_cleanup_(jr_ruleset_freep) struct jr_ruleset *rs = NULL;

	rs = calloc(1, sizeof(*rs));
	if (!rs)
		return ruleset_oom(err);
	if (params->netns == JR_RULESET_RELAY) {
		if (params->mode != JR_NET_ALLOWLIST || !params->transparent ||
		    !params->transparent_port ||
		    params->gateway.s_addr == htonl(INADDR_ANY))
			return jr_err_set(
			    err, EINVAL,
			    "the relay ruleset needs transparent capture, a gateway address and a port");
		if (ruleset_add_table(rs, params->persist) < 0 ||
		    ruleset_add_relay(rs, params) < 0)
			return ruleset_oom(err);
		*out = steal_pointer(&rs);
		return 0;
	}
	if (ruleset_add_base(rs, params->persist) < 0)
		return ruleset_oom(err);

	switch (params->mode) {
	case JR_NET_NONE:
		/* The base alone: loopback only, everything else dropped. */
		break;
	case JR_NET_ALLOWLIST:
		if (!params->proxy_port || !params->dns_port ||
		    params->gateway.s_addr == htonl(INADDR_ANY) ||
		    (params->transparent && !params->transparent_port))
			return jr_err_set(
			    err, EINVAL,
			    "the allowlist ruleset needs a gateway address and relay ports");
		if (ruleset_add_allowlist(rs, params) < 0)
			return ruleset_oom(err);
		break;
	default:
		return jr_err_set(err, EINVAL,
				  "network mode %d has no nftables ruleset",
				  (int)params->mode);
	}

	*out = steal_pointer(&rs);
	return 0;
}

void jr_ruleset_free(struct jr_ruleset *rs)
{
	size_t i;

	if (!rs)
		return;
	for (i = 0; i < rs->n_rules; i++)
		nftnl_rule_free(rs->rules[i]);
	free(rs->rules);
	for (i = 0; i < rs->n_chains; i++)
		nftnl_chain_free(rs->chains[i]);
	free(rs->chains);
	for (i = 0; i < rs->n_objs; i++)
		nftnl_obj_free(rs->objs[i]);
	free(rs->objs);
	if (rs->table)
		nftnl_table_free(rs->table);
	free(rs);
}

size_t jr_ruleset_chain_count(const struct jr_ruleset *rs)
{
	return rs->n_chains;
}

size_t jr_ruleset_rule_count(const struct jr_ruleset *rs)
{
	return rs->n_rules;
}

size_t jr_ruleset_counter_count(const struct jr_ruleset *rs)
{
	return rs->n_objs;
}
