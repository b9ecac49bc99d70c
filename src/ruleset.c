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
 * Interfaces are matched by index (meta iif/oif), not by name (iifname):
 * the runner builds the ruleset outside the worker namespace and never
 * enters it, so it cannot ask that namespace for an index by name, and the
 * one interface the base needs is lo, whose index is fixed (see
 * JR_LOOPBACK_IFINDEX). Matching the index is also a single 32-bit compare
 * instead of a 16-byte string compare on every packet.
 */

#include <errno.h>
#include <netinet/in.h>
#include <netinet/ip.h>
#include <netinet/tcp.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>

#include <linux/netfilter.h>
#include <linux/netfilter/nf_tables.h>
#include <linux/netfilter_ipv4.h>
#include <linux/netfilter/nf_conntrack_common.h>

#include <libnftnl/chain.h>
#include <libnftnl/expr.h>
#include <libnftnl/rule.h>
#include <libnftnl/table.h>

#include "cleanup.h"
#include "err.h"
#include "ruleset-internal.h"
#include "link.h" /* JR_LOOPBACK_IFINDEX */
#include "ruleset.h"

JR_DEFINE_CLEANUP(struct nftnl_expr, nftnl_expr_free)


/* What `nft` calls "priority filter": NF_IP_PRI_FILTER, also used by inet. */
#define JR_PRIO_FILTER NF_IP_PRI_FILTER

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
 * ruleset_add_base_chain() - append a base chain with policy drop.
 * @rs: ruleset with a table
 * @name: chain name
 * @hook: NF_INET_* hook
 *
 * Return: 0 or -ENOMEM.
 */
static int ruleset_add_base_chain(struct jr_ruleset *rs, const char *name,
				  uint32_t hook)
{
	_cleanup_(nftnl_chain_freep) struct nftnl_chain *c = NULL;
	struct nftnl_chain **chains;

	c = nftnl_chain_alloc();
	if (!c)
		return -ENOMEM;
	nftnl_chain_set_u32(c, NFTNL_CHAIN_FAMILY, NFPROTO_INET);
	if (nftnl_chain_set_str(c, NFTNL_CHAIN_TABLE, JR_NFT_TABLE) < 0 ||
	    nftnl_chain_set_str(c, NFTNL_CHAIN_NAME, name) < 0 ||
	    nftnl_chain_set_str(c, NFTNL_CHAIN_TYPE, "filter") < 0)
		return -ENOMEM;
	nftnl_chain_set_u32(c, NFTNL_CHAIN_HOOKNUM, hook);
	nftnl_chain_set_s32(c, NFTNL_CHAIN_PRIO, JR_PRIO_FILTER);
	nftnl_chain_set_u32(c, NFTNL_CHAIN_POLICY, NF_DROP);

	chains = reallocarray(rs->chains, rs->n_chains + 1, sizeof(*chains));
	if (!chains)
		return -ENOMEM;
	rs->chains = chains;
	rs->chains[rs->n_chains++] = steal_pointer(&c);
	return 0;
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

	if (ruleset_add_gateway_accept(rs, p->gateway, IPPROTO_TCP,
				       p->proxy_port) < 0 ||
	    ruleset_add_gateway_accept(rs, p->gateway, IPPROTO_UDP,
				       p->dns_port) < 0 ||
	    ruleset_add_gateway_accept(rs, p->gateway, IPPROTO_TCP,
				       p->dns_port) < 0)
		return -ENOMEM;

	rst = rule_new("output");
	if (!rst || rule_add_meta_load(rst, NFT_META_L4PROTO, NFT_REG_1) < 0 ||
	    rule_add_cmp(rst, NFT_CMP_EQ, NFT_REG_1, &tcp, sizeof(tcp)) < 0 ||
	    rule_add_reject(rst, NFT_REJECT_TCP_RST, 0) < 0 ||
	    ruleset_append_rule(rs, &rst) < 0)
		return -ENOMEM;

	icmpx = rule_new("output");
	if (!icmpx ||
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
	if (!rs || ruleset_add_base(rs, params->persist) < 0)
		return ruleset_oom(err);

	switch (params->mode) {
	case JR_NET_NONE:
		/* The base alone: loopback only, everything else dropped. */
		break;
	case JR_NET_ALLOWLIST:
		if (!params->proxy_port || !params->dns_port ||
		    params->gateway.s_addr == htonl(INADDR_ANY))
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
