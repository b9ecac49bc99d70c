/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * ruleset-internal.h - the inside of struct jr_ruleset. Private to
 * ruleset.c, which builds it, nft.c, which sends it to the kernel and
 * compares it with what the kernel reports, and their unit tests. The rest
 * of jailrun only builds, counts and frees a ruleset through ruleset.h.
 */
#ifndef JR_RULESET_INTERNAL_H
#define JR_RULESET_INTERNAL_H

#include <stddef.h>

#include <libnftnl/chain.h>
#include <libnftnl/object.h>
#include <libnftnl/rule.h>
#include <libnftnl/table.h>

#include "cleanup.h"
#include "ruleset.h"

/**
 * struct jr_ruleset - one table, its base chains and their rules.
 * @table: the table; every chain and rule names it and its family
 * @objs: its stateful objects (the named counters of the refusing rules,
 *	JR_NFT_COUNTER_*), created before the chains so the rules that name
 *	them resolve
 * @n_objs: number of entries in @objs
 * @chains: the chains, in the order they are created
 * @n_chains: number of entries in @chains
 * @rules: the rules of all chains, in the order they are appended; each
 *	names its chain (NFTNL_RULE_CHAIN), and the rules of one chain appear
 *	in the order the kernel evaluates them
 * @n_rules: number of entries in @rules
 *
 * The order of the arrays is the order of the messages in the install
 * batch, so a table precedes its objects and chains, and a chain its rules.
 */
struct jr_ruleset {
	struct nftnl_table *table;
	struct nftnl_obj **objs;
	size_t n_objs;
	struct nftnl_chain **chains;
	size_t n_chains;
	struct nftnl_rule **rules;
	size_t n_rules;
};

JR_DEFINE_CLEANUP(struct nftnl_table, nftnl_table_free)
JR_DEFINE_CLEANUP(struct nftnl_chain, nftnl_chain_free)
JR_DEFINE_CLEANUP(struct nftnl_rule, nftnl_rule_free)
JR_DEFINE_CLEANUP(struct nftnl_obj, nftnl_obj_free)

#endif
