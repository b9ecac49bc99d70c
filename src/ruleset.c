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
 * another socket skips it; and the kernel deletes the table when the owning
 * socket is released. Nothing in the sandbox can therefore loosen the
 * rules, and no rules outlive the runner that holds the socket.
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
#include <stdint.h>
#include <stdlib.h>

#include <linux/netfilter.h>
#include <linux/netfilter/nf_tables.h>
#include <linux/netfilter_ipv4.h>

#include <libnftnl/chain.h>
#include <libnftnl/expr.h>
#include <libnftnl/rule.h>
#include <libnftnl/table.h>

#include "cleanup.h"
#include "err.h"
#include "ruleset-internal.h"
#include "ruleset.h"

JR_DEFINE_CLEANUP(struct nftnl_expr, nftnl_expr_free)

/*
 * The loopback device is the first device registered in every network
 * namespace (net_dev_init() registers loopback_net_ops before any other
 * pernet device operations) and the kernel insists that it gets index 1:
 * include/net/net_namespace.h defines LOOPBACK_IFINDEX 1 and
 * loopback_net_init() BUG()s otherwise. lo can be neither deleted nor moved
 * to another namespace (NETIF_F_NETNS_LOCAL), and indexes are unique within
 * a namespace, so in the worker namespace index 1 is lo for its lifetime.
 */
#define JR_LOOPBACK_IFINDEX 1U

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
 *
 * Return: 0 or -ENOMEM.
 */
static int ruleset_add_table(struct jr_ruleset *rs)
{
	_cleanup_(nftnl_table_freep) struct nftnl_table *t = NULL;

	t = nftnl_table_alloc();
	if (!t)
		return -ENOMEM;
	nftnl_table_set_u32(t, NFTNL_TABLE_FAMILY, NFPROTO_INET);
	if (nftnl_table_set_str(t, NFTNL_TABLE_NAME, JR_NFT_TABLE) < 0)
		return -ENOMEM;
	nftnl_table_set_u32(t, NFTNL_TABLE_FLAGS, NFT_TABLE_F_OWNER);
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
static int rule_add_meta_load(struct nftnl_rule *r, uint32_t key,
			      uint32_t dreg)
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
 * rule_add_cmp_eq() - append "[ cmp eq reg @sreg @data ]".
 * @r: rule
 * @sreg: register holding the value to compare
 * @data: value to compare with, in the register's byte order
 * @len: length of @data
 *
 * Return: 0 or -ENOMEM.
 */
static int rule_add_cmp_eq(struct nftnl_rule *r, uint32_t sreg,
			   const void *data, uint32_t len)
{
	_cleanup_(nftnl_expr_freep) struct nftnl_expr *e = NULL;

	e = nftnl_expr_alloc("cmp");
	if (!e)
		return -ENOMEM;
	nftnl_expr_set_u32(e, NFTNL_EXPR_CMP_SREG, sreg);
	nftnl_expr_set_u32(e, NFTNL_EXPR_CMP_OP, NFT_CMP_EQ);
	if (nftnl_expr_set(e, NFTNL_EXPR_CMP_DATA, data, len) < 0)
		return -ENOMEM;
	nftnl_rule_add_expr(r, steal_pointer(&e));
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
	    rule_add_cmp_eq(r, NFT_REG_1, &lo, sizeof(lo)) < 0 ||
	    rule_add_verdict(r, NF_ACCEPT) < 0)
		return -ENOMEM;
	return ruleset_append_rule(rs, &r);
}

/**
 * ruleset_add_base() - the closed base every network mode starts from.
 * @rs: empty ruleset
 *
 * Return: 0 or -ENOMEM.
 */
static int ruleset_add_base(struct jr_ruleset *rs)
{
	size_t i;

	if (ruleset_add_table(rs) < 0)
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
	if (!rs || ruleset_add_base(rs) < 0)
		return ruleset_oom(err);

	switch (params->mode) {
	case JR_NET_NONE:
		/* The base alone: loopback only, everything else dropped. */
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
