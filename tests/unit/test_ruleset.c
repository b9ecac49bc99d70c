// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * test_ruleset.c - the pure ruleset builder: what jailrun asks the kernel
 * to install for each network mode, object by object and expression by
 * expression. Every assertion pins one property the sandbox's isolation
 * depends on (a policy, a hook, the owner flag, the loopback match), so a
 * builder change that loosens the ruleset fails here before any kernel is
 * involved.
 */
#include <netinet/in.h> /* before any linux/ header (glibc vs uapi) */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include <cmocka.h>

#include <linux/netfilter.h>
#include <linux/netfilter/nf_tables.h>

#include <libnftnl/chain.h>
#include <libnftnl/expr.h>
#include <libnftnl/object.h>
#include <libnftnl/rule.h>
#include <libnftnl/table.h>

#include "err.h"
#include "ruleset-internal.h"
#include "ruleset.h"

JR_DEFINE_CLEANUP(struct nftnl_expr_iter, nftnl_expr_iter_destroy)

static int build_none(void **state)
{
	const struct jr_ruleset_params params = { .mode = JR_NET_NONE };
	struct jr_err err = { 0 };
	struct jr_ruleset *rs = NULL;

	if (jr_ruleset_build(&params, &rs, &err) < 0) {
		print_error("jr_ruleset_build: %s\n", err.msg);
		return -1;
	}
	*state = rs;
	return 0;
}

static int free_ruleset(void **state)
{
	jr_ruleset_free(*state);
	return 0;
}

static void test_counts(void **state)
{
	const struct jr_ruleset *rs = *state;

	assert_int_equal(jr_ruleset_chain_count(rs), 3);
	assert_int_equal(jr_ruleset_rule_count(rs), 2);
	/* The counts are those of the arrays nft.c installs. */
	assert_int_equal(rs->n_chains, 3);
	assert_int_equal(rs->n_rules, 2);
	/* --net none refuses nothing with a reject, so counts nothing. */
	assert_int_equal(jr_ruleset_counter_count(rs), 0);
}

static void test_table(void **state)
{
	const struct jr_ruleset *rs = *state;
	const struct nftnl_table *t = rs->table;

	assert_non_null(t);
	assert_string_equal(nftnl_table_get_str(t, NFTNL_TABLE_NAME),
			    "jailrun");
	assert_string_equal(JR_NFT_TABLE, "jailrun");
	assert_int_equal(nftnl_table_get_u32(t, NFTNL_TABLE_FAMILY),
			 NFPROTO_INET);
	/*
	 * Exactly the owner flag: without it anything with CAP_NET_ADMIN in
	 * the namespace could rewrite the rules; with DORMANT the table would
	 * filter nothing.
	 */
	assert_true(nftnl_table_is_set(t, NFTNL_TABLE_FLAGS));
	assert_int_equal(nftnl_table_get_u32(t, NFTNL_TABLE_FLAGS),
			 NFT_TABLE_F_OWNER);
	/* The kernel assigns the owner; a userspace value would be ignored. */
	assert_false(nftnl_table_is_set(t, NFTNL_TABLE_OWNER));
	assert_false(nftnl_table_is_set(t, NFTNL_TABLE_HANDLE));
}

/* persist adds exactly NFT_TABLE_F_PERSIST, and changes nothing else. */
static void test_table_persist(void **state)
{
	const struct jr_ruleset_params params = { .mode = JR_NET_NONE,
						  .persist = true };
	const struct jr_ruleset *plain = *state;
	struct jr_ruleset *rs = NULL;
	struct jr_err err = { 0 };

	assert_int_equal(jr_ruleset_build(&params, &rs, &err), 0);
	assert_int_equal(nftnl_table_get_u32(rs->table, NFTNL_TABLE_FLAGS),
			 NFT_TABLE_F_OWNER | NFT_TABLE_F_PERSIST);
	assert_int_equal(NFT_TABLE_F_PERSIST, 0x4);
	assert_int_equal(jr_ruleset_chain_count(rs),
			 jr_ruleset_chain_count(plain));
	assert_int_equal(jr_ruleset_rule_count(rs),
			 jr_ruleset_rule_count(plain));
	jr_ruleset_free(rs);
}

static void assert_base_chain(const struct nftnl_chain *c, const char *name,
			      uint32_t hook)
{
	assert_string_equal(nftnl_chain_get_str(c, NFTNL_CHAIN_NAME), name);
	assert_string_equal(nftnl_chain_get_str(c, NFTNL_CHAIN_TABLE),
			    "jailrun");
	assert_int_equal(nftnl_chain_get_u32(c, NFTNL_CHAIN_FAMILY),
			 NFPROTO_INET);
	assert_string_equal(nftnl_chain_get_str(c, NFTNL_CHAIN_TYPE), "filter");
	assert_true(nftnl_chain_is_set(c, NFTNL_CHAIN_HOOKNUM));
	assert_int_equal(nftnl_chain_get_u32(c, NFTNL_CHAIN_HOOKNUM), hook);
	assert_true(nftnl_chain_is_set(c, NFTNL_CHAIN_PRIO));
	assert_int_equal(nftnl_chain_get_s32(c, NFTNL_CHAIN_PRIO), 0);
	/* Fail closed: whatever no rule accepts is dropped. */
	assert_true(nftnl_chain_is_set(c, NFTNL_CHAIN_POLICY));
	assert_int_equal(nftnl_chain_get_u32(c, NFTNL_CHAIN_POLICY), NF_DROP);
	/* A device would make it a netdev-style chain on one interface only. */
	assert_false(nftnl_chain_is_set(c, NFTNL_CHAIN_DEV));
	assert_false(nftnl_chain_is_set(c, NFTNL_CHAIN_DEVICES));
}

static void test_chains(void **state)
{
	const struct jr_ruleset *rs = *state;

	/* Order matters: nft.c creates them, and nft prints them, in it. */
	assert_base_chain(rs->chains[0], "input", NF_INET_LOCAL_IN);
	assert_base_chain(rs->chains[1], "output", NF_INET_LOCAL_OUT);
	assert_base_chain(rs->chains[2], "forward", NF_INET_FORWARD);
}

/*
 * The next expression of @it, which must be called @name.
 */
static struct nftnl_expr *next_expr(struct nftnl_expr_iter *it,
				    const char *name)
{
	struct nftnl_expr *e = nftnl_expr_iter_next(it);

	assert_non_null(e);
	assert_string_equal(nftnl_expr_get_str(e, NFTNL_EXPR_NAME), name);
	return e;
}

/*
 * @r must be "meta @key == 1 (lo) accept" in chain @chain, expression by
 * expression, and nothing more.
 */
static void assert_lo_accept(const struct nftnl_rule *r, const char *chain,
			     uint32_t key)
{
	_cleanup_(nftnl_expr_iter_destroyp) struct nftnl_expr_iter *it = NULL;
	const struct nftnl_expr *e;
	const uint32_t *data;
	uint32_t len = 0;

	assert_int_equal(nftnl_rule_get_u32(r, NFTNL_RULE_FAMILY),
			 NFPROTO_INET);
	assert_string_equal(nftnl_rule_get_str(r, NFTNL_RULE_TABLE), "jailrun");
	assert_string_equal(nftnl_rule_get_str(r, NFTNL_RULE_CHAIN), chain);
	/* Position and handle would make the kernel insert, not append. */
	assert_false(nftnl_rule_is_set(r, NFTNL_RULE_POSITION));
	assert_false(nftnl_rule_is_set(r, NFTNL_RULE_HANDLE));

	it = nftnl_expr_iter_create(r);
	assert_non_null(it);

	e = next_expr(it, "meta");
	assert_int_equal(nftnl_expr_get_u32(e, NFTNL_EXPR_META_KEY), key);
	assert_int_equal(nftnl_expr_get_u32(e, NFTNL_EXPR_META_DREG),
			 NFT_REG_1);
	assert_false(
	    nftnl_expr_is_set(e, NFTNL_EXPR_META_SREG)); /* a load, not a set */

	e = next_expr(it, "cmp");
	assert_int_equal(nftnl_expr_get_u32(e, NFTNL_EXPR_CMP_SREG), NFT_REG_1);
	assert_int_equal(nftnl_expr_get_u32(e, NFTNL_EXPR_CMP_OP), NFT_CMP_EQ);
	data = nftnl_expr_get(e, NFTNL_EXPR_CMP_DATA, &len);
	assert_non_null(data);
	assert_int_equal(len, sizeof(uint32_t)); /* meta iif/oif is a u32 */
	assert_int_equal(*data, 1);		 /* lo's index */

	e = next_expr(it, "immediate");
	assert_int_equal(nftnl_expr_get_u32(e, NFTNL_EXPR_IMM_DREG),
			 NFT_REG_VERDICT);
	assert_int_equal(nftnl_expr_get_u32(e, NFTNL_EXPR_IMM_VERDICT),
			 NF_ACCEPT);
	assert_false(nftnl_expr_is_set(e, NFTNL_EXPR_IMM_CHAIN));

	assert_null(nftnl_expr_iter_next(it));
}

static void test_rule_expressions(void **state)
{
	const struct jr_ruleset *rs = *state;

	assert_lo_accept(rs->rules[0], "input", NFT_META_IIF);
	assert_lo_accept(rs->rules[1], "output", NFT_META_OIF);
}

static void test_forward_has_no_rules(void **state)
{
	const struct jr_ruleset *rs = *state;
	size_t i;

	for (i = 0; i < rs->n_rules; i++)
		assert_string_not_equal(
		    nftnl_rule_get_str(rs->rules[i], NFTNL_RULE_CHAIN),
		    "forward");
}

/*
 * The text form nft.c compares with the kernel's read-back, and what
 * `nft --debug=netlink list table inet jailrun` shows for the same rules.
 */
static void test_rule_text(void **state)
{
	const struct jr_ruleset *rs = *state;
	char buf[512];

	nftnl_rule_snprintf(buf, sizeof(buf), rs->rules[0],
			    NFTNL_OUTPUT_DEFAULT, 0);
	assert_string_equal(buf, "inet jailrun input\n"
				 "  [ meta load iif => reg 1 ]\n"
				 "  [ cmp eq reg 1 0x00000001 ]\n"
				 "  [ immediate reg 0 accept ]\n");
	nftnl_rule_snprintf(buf, sizeof(buf), rs->rules[1],
			    NFTNL_OUTPUT_DEFAULT, 0);
	assert_string_equal(buf, "inet jailrun output\n"
				 "  [ meta load oif => reg 1 ]\n"
				 "  [ cmp eq reg 1 0x00000001 ]\n"
				 "  [ immediate reg 0 accept ]\n");
}

/* "icmpv6 type T drop" in output (ruleset.c, link chatter). */
#define CHATTER_RULE(type)                                                              \
	"inet jailrun output"                                                           \
	"\n  [ meta load nfproto => reg 1 ]\n  [ cmp eq reg 1 0x0000000a ]\n"           \
	"  [ meta load l4proto => reg 1 ]\n  [ cmp eq reg 1 0x0000003a ]\n"             \
	"  [ payload load 1b @ transport header + 0 => reg 1 ]\n  [ cmp eq reg 1 " type \
	" ]\n"                                                                          \
	"  [ immediate reg 0 drop ]\n"

/* The kernel's own IPv6 link chatter, dropped uncounted before the closing
 * rejects in every allowlist table: MLDv1 report and done, router
 * solicitation, MLDv2 report. */
#define CHATTER_RULES                                                          \
	CHATTER_RULE("0x00000083"), CHATTER_RULE("0x00000084"),                \
	    CHATTER_RULE("0x00000085"), CHATTER_RULE("0x0000008f")

/*
 * The allowlist mode: every rule, in order, as `nft --debug=netlink -f
 * nft/jailrun-allowlist.nft` compiles the reference text.
 */
static void test_allowlist_rules(void **state)
{
	static const char *const want[] = {
		"inet jailrun input\n  [ meta load iif => reg 1 ]\n  [ cmp eq reg 1 0x00000001 ]\n"
		"  [ immediate reg 0 accept ]\n",
		"inet jailrun output\n  [ meta load oif => reg 1 ]\n  [ cmp eq reg 1 0x00000001 ]\n"
		"  [ immediate reg 0 accept ]\n",
		"inet jailrun input\n  [ ct load state => reg 1 ]\n"
		"  [ bitwise reg 1 = ( reg 1 & 0x00000006 ) ^ 0x00000000 ]\n"
		"  [ cmp neq reg 1 0x00000000 ]\n  [ immediate reg 0 accept ]\n",
		"inet jailrun output\n  [ meta load nfproto => reg 1 ]\n  [ cmp eq reg 1 0x00000002 ]\n"
		"  [ payload load 4b @ network header + 16 => reg 1 ]\n  [ cmp eq reg 1 0x014d4064 ]\n"
		"  [ meta load l4proto => reg 1 ]\n  [ cmp eq reg 1 0x00000006 ]\n"
		"  [ payload load 2b @ transport header + 2 => reg 1 ]\n  [ cmp eq reg 1 0x0000380c ]\n"
		"  [ immediate reg 0 accept ]\n",
		"inet jailrun output\n  [ meta load nfproto => reg 1 ]\n  [ cmp eq reg 1 0x00000002 ]\n"
		"  [ payload load 4b @ network header + 16 => reg 1 ]\n  [ cmp eq reg 1 0x014d4064 ]\n"
		"  [ meta load l4proto => reg 1 ]\n  [ cmp eq reg 1 0x00000011 ]\n"
		"  [ payload load 2b @ transport header + 2 => reg 1 ]\n  [ cmp eq reg 1 0x00003500 ]\n"
		"  [ immediate reg 0 accept ]\n",
		"inet jailrun output\n  [ meta load nfproto => reg 1 ]\n  [ cmp eq reg 1 0x00000002 ]\n"
		"  [ payload load 4b @ network header + 16 => reg 1 ]\n  [ cmp eq reg 1 0x014d4064 ]\n"
		"  [ meta load l4proto => reg 1 ]\n  [ cmp eq reg 1 0x00000006 ]\n"
		"  [ payload load 2b @ transport header + 2 => reg 1 ]\n  [ cmp eq reg 1 0x00003500 ]\n"
		"  [ immediate reg 0 accept ]\n",
		CHATTER_RULES,
		"inet jailrun output\n  [ meta load l4proto => reg 1 ]\n  [ cmp eq reg 1 0x00000006 ]\n"
		"  [ objref type 1 name refused_tcp ]\n  [ reject type 1 code 0 ]\n",
		"inet jailrun output\n  [ objref type 1 name refused_other ]\n"
		"  [ reject type 2 code 3 ]\n",
	};
	struct jr_ruleset_params params = {
		.mode = JR_NET_ALLOWLIST,
		.proxy_port = 3128,
		.dns_port = 53,
	};
	struct jr_err err = { 0 };
	struct jr_ruleset *rs = NULL;
	char buf[1024];

	/* Without a gateway there is nothing to allow: refuse, do not guess. */
	assert_int_equal(jr_ruleset_build(&params, &rs, &err), -EINVAL);
	assert_null(rs);
	params.gateway.s_addr = htonl(0x64404d01); /* 100.64.77.1 */
	assert_int_equal(jr_ruleset_build(&params, &rs, &err), 0);
	assert_int_equal(jr_ruleset_chain_count(rs), 3);
	assert_int_equal(jr_ruleset_rule_count(rs), ARRAY_SIZE(want));
	for (size_t i = 0; i < ARRAY_SIZE(want); i++) {
		nftnl_rule_snprintf(buf, sizeof(buf), rs->rules[i],
				    NFTNL_OUTPUT_DEFAULT, 0);
		assert_string_equal(buf, want[i]);
	}
	/* The two counters the closing rejects name, in the table, at 0. */
	assert_int_equal(jr_ruleset_counter_count(rs), 2);
	for (size_t i = 0; i < 2; i++) {
		struct nftnl_obj *o = rs->objs[i];

		assert_string_equal(nftnl_obj_get_str(o, NFTNL_OBJ_NAME),
				    i ? JR_NFT_COUNTER_OTHER
				      : JR_NFT_COUNTER_TCP);
		assert_string_equal(nftnl_obj_get_str(o, NFTNL_OBJ_TABLE),
				    JR_NFT_TABLE);
		assert_int_equal(nftnl_obj_get_u32(o, NFTNL_OBJ_FAMILY),
				 NFPROTO_INET);
		assert_int_equal(nftnl_obj_get_u32(o, NFTNL_OBJ_TYPE),
				 NFT_OBJECT_COUNTER);
		assert_false(nftnl_obj_is_set(o, NFTNL_OBJ_CTR_PKTS));
	}
	jr_ruleset_free(rs);

	/* With the NFLOG group bound, the same rules log each packet to it
	 * between the count and the reject; nothing else changes. */
	params.log_refused = true;
	assert_int_equal(jr_ruleset_build(&params, &rs, &err), 0);
	assert_int_equal(jr_ruleset_rule_count(rs), ARRAY_SIZE(want));
	for (size_t i = 0; i < ARRAY_SIZE(want); i++) {
		const char *log;

		nftnl_rule_snprintf(buf, sizeof(buf), rs->rules[i],
				    NFTNL_OUTPUT_DEFAULT, 0);
		log = strstr(buf, "  [ log group 7 ");
		if (i < ARRAY_SIZE(want) - 2) {
			assert_string_equal(buf, want[i]);
			continue;
		}
		assert_non_null(log);
		assert_true(strstr(buf, "[ objref ") < log);
		assert_true(strstr(buf, "[ reject ") > log);
	}
	jr_ruleset_free(rs);
}

/* The allowlist rules before the transparent ones (test_allowlist_rules). */
#define GW_RULES                                                                                     \
	"inet jailrun input\n  [ meta load iif => reg 1 ]\n  [ cmp eq reg 1 0x00000001 ]\n"          \
	"  [ immediate reg 0 accept ]\n",                                                            \
	    "inet jailrun output\n  [ meta load oif => reg 1 ]\n  [ cmp eq reg 1 0x00000001 ]\n"     \
	    "  [ immediate reg 0 accept ]\n",                                                        \
	    "inet jailrun input\n  [ ct load state => reg 1 ]\n"                                     \
	    "  [ bitwise reg 1 = ( reg 1 & 0x00000006 ) ^ 0x00000000 ]\n"                            \
	    "  [ cmp neq reg 1 0x00000000 ]\n  [ immediate reg 0 accept ]\n",                        \
	    "inet jailrun output\n  [ meta load nfproto => reg 1 ]\n  [ cmp eq reg 1 0x00000002 ]\n" \
	    "  [ payload load 4b @ network header + 16 => reg 1 ]\n  [ cmp eq reg 1 0x014d4064 ]\n"  \
	    "  [ meta load l4proto => reg 1 ]\n  [ cmp eq reg 1 0x00000006 ]\n"                      \
	    "  [ payload load 2b @ transport header + 2 => reg 1 ]\n  [ cmp eq reg 1 0x0000380c ]\n" \
	    "  [ immediate reg 0 accept ]\n",                                                        \
	    "inet jailrun output\n  [ meta load nfproto => reg 1 ]\n  [ cmp eq reg 1 0x00000002 ]\n" \
	    "  [ payload load 4b @ network header + 16 => reg 1 ]\n  [ cmp eq reg 1 0x014d4064 ]\n"  \
	    "  [ meta load l4proto => reg 1 ]\n  [ cmp eq reg 1 0x00000011 ]\n"                      \
	    "  [ payload load 2b @ transport header + 2 => reg 1 ]\n  [ cmp eq reg 1 0x00003500 ]\n" \
	    "  [ immediate reg 0 accept ]\n",                                                        \
	    "inet jailrun output\n  [ meta load nfproto => reg 1 ]\n  [ cmp eq reg 1 0x00000002 ]\n" \
	    "  [ payload load 4b @ network header + 16 => reg 1 ]\n  [ cmp eq reg 1 0x014d4064 ]\n"  \
	    "  [ meta load l4proto => reg 1 ]\n  [ cmp eq reg 1 0x00000006 ]\n"                      \
	    "  [ payload load 2b @ transport header + 2 => reg 1 ]\n  [ cmp eq reg 1 0x00003500 ]\n" \
	    "  [ immediate reg 0 accept ]\n"

static void assert_rules(const struct jr_ruleset *rs, const char *const *want,
			 size_t n)
{
	char buf[1024];

	assert_int_equal(jr_ruleset_rule_count(rs), n);
	for (size_t i = 0; i < n; i++) {
		nftnl_rule_snprintf(buf, sizeof(buf), rs->rules[i],
				    NFTNL_OUTPUT_DEFAULT, 0);
		if (strcmp(buf, want[i]) != 0)
			fail_msg("rule %zu is\n%s\ninstead of\n%s", i, buf,
				 want[i]);
	}
}

/*
 * --transparent on, the worker: after the relay's ports, TCP to the
 * synthetic pool and to each IPv4 address entry (a /32 with its port, a
 * byte-aligned /24 loaded as 3 bytes, a /9 through a mask), never to names
 * or IPv6 entries, and UDP to the pool (refused in the relay netns); then
 * the TCP reset and the rest prohibited. Every rule as `nft --debug=netlink` compiles
 * nft/jailrun-allowlist.nft and the same text with the entries. Fails if
 * the pool is not let out (captured TCP would be reset in the worker), if
 * an address entry opens more than it names (wrong mask or port), if a
 * name entry opens an address, or if UDP to the pool is refused in the
 * worker (EPERM) rather than by the relay netns (ECONNREFUSED).
 */
static void test_transparent_rules(void **state)
{
	static const char *const want[] = {
		GW_RULES,
		"inet jailrun output\n  [ meta load nfproto => reg 1 ]\n  [ cmp eq reg 1 0x00000002 ]\n"
		"  [ payload load 4b @ network header + 16 => reg 1 ]\n"
		"  [ bitwise reg 1 = ( reg 1 & 0x0000feff ) ^ 0x00000000 ]\n"
		"  [ cmp eq reg 1 0x000012c6 ]\n"
		"  [ meta load l4proto => reg 1 ]\n  [ cmp eq reg 1 0x00000006 ]\n"
		"  [ immediate reg 0 accept ]\n",
		"inet jailrun output\n  [ meta load nfproto => reg 1 ]\n  [ cmp eq reg 1 0x00000002 ]\n"
		"  [ payload load 4b @ network header + 16 => reg 1 ]\n"
		"  [ bitwise reg 1 = ( reg 1 & 0x0000feff ) ^ 0x00000000 ]\n"
		"  [ cmp eq reg 1 0x000012c6 ]\n"
		"  [ meta load l4proto => reg 1 ]\n  [ cmp eq reg 1 0x00000011 ]\n"
		"  [ immediate reg 0 accept ]\n",
		"inet jailrun output\n  [ meta load nfproto => reg 1 ]\n  [ cmp eq reg 1 0x00000002 ]\n"
		"  [ payload load 4b @ network header + 16 => reg 1 ]\n  [ cmp eq reg 1 0x0a0200c0 ]\n"
		"  [ meta load l4proto => reg 1 ]\n  [ cmp eq reg 1 0x00000006 ]\n"
		"  [ payload load 2b @ transport header + 2 => reg 1 ]\n  [ cmp eq reg 1 0x0000bb01 ]\n"
		"  [ immediate reg 0 accept ]\n",
		"inet jailrun output\n  [ meta load nfproto => reg 1 ]\n  [ cmp eq reg 1 0x00000002 ]\n"
		"  [ payload load 3b @ network header + 16 => reg 1 ]\n  [ cmp eq reg 1 0x000200c0 ]\n"
		"  [ meta load l4proto => reg 1 ]\n  [ cmp eq reg 1 0x00000006 ]\n"
		"  [ immediate reg 0 accept ]\n",
		"inet jailrun output\n  [ meta load nfproto => reg 1 ]\n  [ cmp eq reg 1 0x00000002 ]\n"
		"  [ payload load 4b @ network header + 16 => reg 1 ]\n"
		"  [ bitwise reg 1 = ( reg 1 & 0x000080ff ) ^ 0x00000000 ]\n"
		"  [ cmp eq reg 1 0x0000000a ]\n"
		"  [ meta load l4proto => reg 1 ]\n  [ cmp eq reg 1 0x00000006 ]\n"
		"  [ payload load 2b @ transport header + 2 => reg 1 ]\n  [ cmp eq reg 1 0x00001600 ]\n"
		"  [ immediate reg 0 accept ]\n",
		CHATTER_RULES,
		"inet jailrun output\n  [ meta load l4proto => reg 1 ]\n  [ cmp eq reg 1 0x00000006 ]\n"
		"  [ objref type 1 name refused_tcp ]\n  [ reject type 1 code 0 ]\n",
		"inet jailrun output\n  [ objref type 1 name refused_other ]\n"
		"  [ reject type 2 code 3 ]\n",
	};
	static const char *const entries[] = {
		"allowed.test", "*.example.com", "192.0.2.10:443",
		"192.0.2.0/24", "2001:db8::/32", "10.0.0.0/9:22",
	};
	struct jr_policy policy;
	struct jr_ruleset_params params = {
		.mode = JR_NET_ALLOWLIST,
		.gateway.s_addr = htonl(0x64404d01), /* 100.64.77.1 */
		.proxy_port = 3128,
		.dns_port = 53,
		.transparent = true,
		.policy = &policy,
	};
	struct jr_err err = { 0 };
	struct jr_ruleset *rs = NULL;

	jr_policy_init(&policy);
	for (size_t i = 0; i < ARRAY_SIZE(entries); i++)
		assert_int_equal(jr_policy_add(&policy, entries[i], &err), 0);
	/* Capture without a port to redirect to: refuse, do not guess. */
	assert_int_equal(jr_ruleset_build(&params, &rs, &err), -EINVAL);
	assert_null(rs);
	params.transparent_port = 3129;
	assert_int_equal(jr_ruleset_build(&params, &rs, &err), 0);
	assert_int_equal(jr_ruleset_chain_count(rs), 3);
	assert_rules(rs, want, ARRAY_SIZE(want));
	jr_ruleset_free(rs);

	/* No policy: the pool alone (nft/jailrun-allowlist.nft). */
	params.policy = NULL;
	assert_int_equal(jr_ruleset_build(&params, &rs, &err), 0);
	assert_int_equal(jr_ruleset_rule_count(rs), ARRAY_SIZE(want) - 3);
	jr_ruleset_free(rs);
	jr_policy_free(&policy);
}

/*
 * The relay netns's table (nft/jailrun-relay.nft): one nat chain on
 * prerouting, priority dstnat, policy accept, and one rule redirecting TCP
 * from the veth for anything but the gateway to the transparent port; a
 * filter chain on prerouting answering UDP the same way with ICMP
 * port-unreachable.
 * Fails if the redirect also catches the gateway's own ports (the proxy
 * and DNS would land on the transparent listener), matches another
 * interface, or the port or its byte order is wrong.
 */
static void test_relay_rules(void **state)
{
	static const char *const want[] = {
		"inet jailrun prerouting\n  [ meta load iifname => reg 1 ]\n"
		"  [ cmp eq reg 1 0x722d726a 0x79616c65 0x00000000 0x00000000 ]\n"
		"  [ meta load nfproto => reg 1 ]\n  [ cmp eq reg 1 0x00000002 ]\n"
		"  [ payload load 4b @ network header + 16 => reg 1 ]\n  [ cmp neq reg 1 0x014d4064 ]\n"
		"  [ meta load l4proto => reg 1 ]\n  [ cmp eq reg 1 0x00000006 ]\n"
		"  [ immediate reg 1 0x0000390c ]\n"
		"  [ redir proto_min reg 1 proto_max reg 1 flags 0x2 ]\n",
		"inet jailrun refuse\n  [ meta load iifname => reg 1 ]\n"
		"  [ cmp eq reg 1 0x722d726a 0x79616c65 0x00000000 0x00000000 ]\n"
		"  [ meta load nfproto => reg 1 ]\n  [ cmp eq reg 1 0x00000002 ]\n"
		"  [ payload load 4b @ network header + 16 => reg 1 ]\n  [ cmp neq reg 1 0x014d4064 ]\n"
		"  [ meta load l4proto => reg 1 ]\n  [ cmp eq reg 1 0x00000011 ]\n"
		"  [ reject type 0 code 3 ]\n",
	};
	struct jr_ruleset_params params = {
		.netns = JR_RULESET_RELAY,
		.mode = JR_NET_ALLOWLIST,
		.gateway.s_addr = htonl(0x64404d01), /* 100.64.77.1 */
		.proxy_port = 3128,
		.dns_port = 53,
		.transparent_port = 3129,
	};
	struct jr_err err = { 0 };
	struct jr_ruleset *rs = NULL;
	const struct nftnl_chain *c;

	/* --transparent off has no relay table at all. */
	assert_int_equal(jr_ruleset_build(&params, &rs, &err), -EINVAL);
	assert_null(rs);
	params.transparent = true;
	assert_int_equal(jr_ruleset_build(&params, &rs, &err), 0);
	assert_int_equal(jr_ruleset_chain_count(rs), 2);
	c = rs->chains[0];
	assert_string_equal(nftnl_chain_get_str(c, NFTNL_CHAIN_NAME),
			    "prerouting");
	assert_string_equal(nftnl_chain_get_str(c, NFTNL_CHAIN_TYPE), "nat");
	assert_int_equal(nftnl_chain_get_u32(c, NFTNL_CHAIN_HOOKNUM),
			 NF_INET_PRE_ROUTING);
	assert_int_equal(nftnl_chain_get_s32(c, NFTNL_CHAIN_PRIO), -100);
	assert_int_equal(nftnl_chain_get_u32(c, NFTNL_CHAIN_POLICY), NF_ACCEPT);
	assert_int_equal(nftnl_table_get_u32(rs->table, NFTNL_TABLE_FLAGS),
			 NFT_TABLE_F_OWNER);
	assert_rules(rs, want, ARRAY_SIZE(want));
	jr_ruleset_free(rs);
}

#define ND_RULE(chain, type)                                                            \
	"inet jailrun " chain                                                           \
	"\n  [ meta load nfproto => reg 1 ]\n  [ cmp eq reg 1 0x0000000a ]\n"           \
	"  [ meta load l4proto => reg 1 ]\n  [ cmp eq reg 1 0x0000003a ]\n"             \
	"  [ payload load 1b @ transport header + 0 => reg 1 ]\n  [ cmp eq reg 1 " type \
	" ]\n"                                                                          \
	"  [ immediate reg 0 accept ]\n"

/*
 * --transparent on with IPv6 on the link, the worker: the IPv4 rules of
 * test_transparent_rules() unchanged and in place; neighbour solicitation
 * and advertisement accepted in (after the established rule) and out;
 * TCP and UDP to the IPv6 pool fd6a:7272:6970::/64 (8 bytes loaded), TCP
 * to each IPv6 entry (a byte-aligned /32, a /33 through a 16-byte mask),
 * never to the link's own /64 or to names; then the TCP reset and the
 * rest prohibited, last. As `nft --debug=netlink` compiles the same text.
 * Fails if IPv6 opens more than the pool and the entries (a wrong prefix
 * length or mask, ICMPv6 beyond ND), if ND is missing on either side (a
 * connect to the relay's end fails with EHOSTUNREACH), if an IPv6 rule
 * comes after the closing reject, or if the IPv4 rules change.
 */
static void test_transparent6_rules(void **state)
{
	static const char *const v6[] = {
		ND_RULE("output", "0x00000087"),
		ND_RULE("output", "0x00000088"),
		"inet jailrun output\n  [ meta load nfproto => reg 1 ]\n  [ cmp eq reg 1 0x0000000a ]\n"
		"  [ payload load 8b @ network header + 24 => reg 1 ]\n"
		"  [ cmp eq reg 1 0x72726afd 0x00007069 ]\n"
		"  [ meta load l4proto => reg 1 ]\n  [ cmp eq reg 1 0x00000006 ]\n"
		"  [ immediate reg 0 accept ]\n",
		"inet jailrun output\n  [ meta load nfproto => reg 1 ]\n  [ cmp eq reg 1 0x0000000a ]\n"
		"  [ payload load 8b @ network header + 24 => reg 1 ]\n"
		"  [ cmp eq reg 1 0x72726afd 0x00007069 ]\n"
		"  [ meta load l4proto => reg 1 ]\n  [ cmp eq reg 1 0x00000011 ]\n"
		"  [ immediate reg 0 accept ]\n",
		"inet jailrun output\n  [ meta load nfproto => reg 1 ]\n  [ cmp eq reg 1 0x0000000a ]\n"
		"  [ payload load 4b @ network header + 24 => reg 1 ]\n  [ cmp eq reg 1 0xb80d0120 ]\n"
		"  [ meta load l4proto => reg 1 ]\n  [ cmp eq reg 1 0x00000006 ]\n"
		"  [ immediate reg 0 accept ]\n",
		"inet jailrun output\n  [ meta load nfproto => reg 1 ]\n  [ cmp eq reg 1 0x0000000a ]\n"
		"  [ payload load 16b @ network header + 24 => reg 1 ]\n"
		"  [ bitwise reg 1 = ( reg 1 & 0xffffffff 0x00000080 0x00000000 0x00000000 ) ^ "
		"0x00000000 0x00000000 0x00000000 0x00000000 ]\n"
		"  [ cmp eq reg 1 0xb80d0120 0x00000080 0x00000000 0x00000000 ]\n"
		"  [ meta load l4proto => reg 1 ]\n  [ cmp eq reg 1 0x00000006 ]\n"
		"  [ immediate reg 0 accept ]\n",
	};
	static const char *const nd_in[] = {
		ND_RULE("input", "0x00000087"),
		ND_RULE("input", "0x00000088"),
	};
	static const char *const entries[] = {
		"allowed.test",
		"192.0.2.10:443",
		"2001:db8::/32",
		"2001:db8:8000::/33",
	};
	struct jr_policy policy;
	struct jr_ruleset_params params = {
		.mode = JR_NET_ALLOWLIST,
		.gateway.s_addr = htonl(0x64404d01), /* 100.64.77.1 */
		.proxy_port = 3128,
		.dns_port = 53,
		.transparent = true,
		.transparent_port = 3129,
		.policy = &policy,
	};
	struct jr_err err = { 0 };
	struct jr_ruleset *rs4 = NULL, *rs6 = NULL;
	char want[1024], got[1024];
	size_t n4, n6, k = 0;

	jr_policy_init(&policy);
	for (size_t i = 0; i < ARRAY_SIZE(entries); i++)
		assert_int_equal(jr_policy_add(&policy, entries[i], &err), 0);
	assert_int_equal(jr_ruleset_build(&params, &rs4, &err), 0);
	params.ipv6 = true;
	assert_int_equal(jr_ruleset_build(&params, &rs6, &err), 0);
	n4 = jr_ruleset_rule_count(rs4);
	n6 = jr_ruleset_rule_count(rs6);
	assert_int_equal(n6, n4 + ARRAY_SIZE(nd_in) + ARRAY_SIZE(v6));
	/* rs6 = rs4[0..2] nd_in rs4[3..n4-7] v6 rs4[n4-6..] */
	for (size_t i = 0; i < n6; i++) {
		const char *w = NULL;

		if (i >= 3 && i < 3 + ARRAY_SIZE(nd_in)) {
			w = nd_in[i - 3];
		} else if (i >= n6 - 6 - ARRAY_SIZE(v6) && i < n6 - 6) {
			/* before the link chatter drops and the rejects */
			w = v6[i - (n6 - 6 - ARRAY_SIZE(v6))];
		} else {
			nftnl_rule_snprintf(want, sizeof(want), rs4->rules[k++],
					    NFTNL_OUTPUT_DEFAULT, 0);
			w = want;
		}
		nftnl_rule_snprintf(got, sizeof(got), rs6->rules[i],
				    NFTNL_OUTPUT_DEFAULT, 0);
		if (strcmp(got, w) != 0)
			fail_msg("rule %zu is\n%s\ninstead of\n%s", i, got, w);
	}
	assert_int_equal(k, n4);
	jr_ruleset_free(rs4);
	jr_ruleset_free(rs6);

	/* IPv6 without transparent capture: nothing of it (the worker has
	 * no IPv6 then) but the drops of the kernel's link chatter. */
	params.transparent = false;
	assert_int_equal(jr_ruleset_build(&params, &rs6, &err), 0);
	k = 0;
	for (size_t i = 0; i < jr_ruleset_rule_count(rs6); i++) {
		nftnl_rule_snprintf(got, sizeof(got), rs6->rules[i],
				    NFTNL_OUTPUT_DEFAULT, 0);
		if (!strstr(got, "0x0000000a"))
			continue;
		assert_non_null(strstr(got, "[ immediate reg 0 drop ]"));
		k++;
	}
	assert_int_equal(k, 4);
	jr_ruleset_free(rs6);
	jr_policy_free(&policy);
}

/*
 * The relay netns's table with IPv6 on the link: the IPv4 rules of
 * test_relay_rules(), then in each chain the same for IPv6: anything but
 * the relay's own fd6a:7272:6970:1::1 from the veth, TCP redirected to the
 * transparent port, UDP refused with ICMPv6 port-unreachable (code 4).
 * Fails if IPv6 TCP is not captured (a v6 connect would hang or reach
 * nothing), if the exclusion names another address, or if the UDP refusal
 * uses an IPv4 code (3 is "address unreachable" in ICMPv6).
 */
static void test_relay6_rules(void **state)
{
	static const char *const want[] = {
		"inet jailrun prerouting\n  [ meta load iifname => reg 1 ]\n"
		"  [ cmp eq reg 1 0x722d726a 0x79616c65 0x00000000 0x00000000 ]\n"
		"  [ meta load nfproto => reg 1 ]\n  [ cmp eq reg 1 0x0000000a ]\n"
		"  [ payload load 16b @ network header + 24 => reg 1 ]\n"
		"  [ cmp neq reg 1 0x72726afd 0x01007069 0x00000000 0x01000000 ]\n"
		"  [ meta load l4proto => reg 1 ]\n  [ cmp eq reg 1 0x00000006 ]\n"
		"  [ immediate reg 1 0x0000390c ]\n"
		"  [ redir proto_min reg 1 proto_max reg 1 flags 0x2 ]\n",
		"inet jailrun refuse\n  [ meta load iifname => reg 1 ]\n"
		"  [ cmp eq reg 1 0x722d726a 0x79616c65 0x00000000 0x00000000 ]\n"
		"  [ meta load nfproto => reg 1 ]\n  [ cmp eq reg 1 0x0000000a ]\n"
		"  [ payload load 16b @ network header + 24 => reg 1 ]\n"
		"  [ cmp neq reg 1 0x72726afd 0x01007069 0x00000000 0x01000000 ]\n"
		"  [ meta load l4proto => reg 1 ]\n  [ cmp eq reg 1 0x00000011 ]\n"
		"  [ reject type 0 code 4 ]\n",
	};
	struct jr_ruleset_params params = {
		.netns = JR_RULESET_RELAY,
		.mode = JR_NET_ALLOWLIST,
		.gateway.s_addr = htonl(0x64404d01), /* 100.64.77.1 */
		.proxy_port = 3128,
		.dns_port = 53,
		.transparent = true,
		.transparent_port = 3129,
		.ipv6 = true,
	};
	struct jr_err err = { 0 };
	struct jr_ruleset *rs = NULL;
	char buf[1024];

	assert_int_equal(jr_ruleset_build(&params, &rs, &err), 0);
	assert_int_equal(jr_ruleset_chain_count(rs), 2);
	assert_int_equal(jr_ruleset_rule_count(rs), 4);
	for (size_t i = 0; i < ARRAY_SIZE(want); i++) {
		nftnl_rule_snprintf(buf, sizeof(buf), rs->rules[2 + i],
				    NFTNL_OUTPUT_DEFAULT, 0);
		if (strcmp(buf, want[i]) != 0)
			fail_msg("rule %zu is\n%s\ninstead of\n%s", 2 + i, buf,
				 want[i]);
	}
	jr_ruleset_free(rs);
}

/*
 * The model lane and published ports (lane.h): after the relay's ports, a
 * TCP accept to the gateway per host lane port, and per published port an
 * input accept from the gateway to it and an output accept of its
 * established replies; as `nft --debug=netlink` compiles
 * nft/jailrun-lane.nft. Fails if a lane opens more than the gateway's
 * port, or a published port lets the command open connections of its own
 * from it (no ct state) or takes connections from anyone but the gateway.
 */
static void test_lane_rules(void **state)
{
	static const char *const want[] = {
		GW_RULES,
		"inet jailrun output\n  [ meta load nfproto => reg 1 ]\n  [ cmp eq reg 1 0x00000002 ]\n"
		"  [ payload load 4b @ network header + 16 => reg 1 ]\n  [ cmp eq reg 1 0x014d4064 ]\n"
		"  [ meta load l4proto => reg 1 ]\n  [ cmp eq reg 1 0x00000006 ]\n"
		"  [ payload load 2b @ transport header + 2 => reg 1 ]\n  [ cmp eq reg 1 0x0000a00f ]\n"
		"  [ immediate reg 0 accept ]\n",
		"inet jailrun input\n  [ meta load nfproto => reg 1 ]\n  [ cmp eq reg 1 0x00000002 ]\n"
		"  [ payload load 4b @ network header + 12 => reg 1 ]\n  [ cmp eq reg 1 0x014d4064 ]\n"
		"  [ meta load l4proto => reg 1 ]\n  [ cmp eq reg 1 0x00000006 ]\n"
		"  [ payload load 2b @ transport header + 2 => reg 1 ]\n  [ cmp eq reg 1 0x0000401f ]\n"
		"  [ immediate reg 0 accept ]\n",
		"inet jailrun output\n  [ meta load nfproto => reg 1 ]\n  [ cmp eq reg 1 0x00000002 ]\n"
		"  [ payload load 4b @ network header + 16 => reg 1 ]\n  [ cmp eq reg 1 0x014d4064 ]\n"
		"  [ meta load l4proto => reg 1 ]\n  [ cmp eq reg 1 0x00000006 ]\n"
		"  [ payload load 2b @ transport header + 0 => reg 1 ]\n  [ cmp eq reg 1 0x0000401f ]\n"
		"  [ ct load state => reg 1 ]\n"
		"  [ bitwise reg 1 = ( reg 1 & 0x00000002 ) ^ 0x00000000 ]\n"
		"  [ cmp neq reg 1 0x00000000 ]\n  [ immediate reg 0 accept ]\n",
		CHATTER_RULES,
		"inet jailrun output\n  [ meta load l4proto => reg 1 ]\n  [ cmp eq reg 1 0x00000006 ]\n"
		"  [ objref type 1 name refused_tcp ]\n  [ reject type 1 code 0 ]\n",
		"inet jailrun output\n  [ objref type 1 name refused_other ]\n"
		"  [ reject type 2 code 3 ]\n",
	};
	static const uint16_t lane_ports[] = { 4000 };
	static const uint16_t publish_ports[] = { 8000 };
	const struct jr_ruleset_params params = {
		.mode = JR_NET_ALLOWLIST,
		.gateway.s_addr = htonl(0x64404d01), /* 100.64.77.1 */
		.proxy_port = 3128,
		.dns_port = 53,
		.lane_ports = lane_ports,
		.n_lane_ports = 1,
		.publish_ports = publish_ports,
		.n_publish_ports = 1,
	};
	struct jr_err err = { 0 };
	struct jr_ruleset *rs = NULL;

	assert_int_equal(jr_ruleset_build(&params, &rs, &err), 0);
	assert_rules(rs, want, ARRAY_SIZE(want));
	jr_ruleset_free(rs);
}

static void test_unknown_mode(void **state)
{
	const struct jr_ruleset_params params = { .mode =
						      (enum jr_net_mode)42 };
	struct jr_err err = { 0 };
	struct jr_ruleset *rs = NULL;

	assert_int_equal(jr_ruleset_build(&params, &rs, &err), -EINVAL);
	assert_null(rs);
	assert_int_equal(err.code, EINVAL);
	assert_non_null(strstr(err.msg, "network mode 42"));
	/* A NULL error struct is allowed: only the return value counts. */
	assert_int_equal(jr_ruleset_build(&params, &rs, NULL), -EINVAL);
	assert_null(rs);
}

static void test_free_null(void **state)
{
	jr_ruleset_free(NULL);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(test_counts, build_none,
						free_ruleset),
		cmocka_unit_test_setup_teardown(test_table, build_none,
						free_ruleset),
		cmocka_unit_test_setup_teardown(test_table_persist, build_none,
						free_ruleset),
		cmocka_unit_test_setup_teardown(test_chains, build_none,
						free_ruleset),
		cmocka_unit_test_setup_teardown(test_rule_expressions,
						build_none, free_ruleset),
		cmocka_unit_test_setup_teardown(test_forward_has_no_rules,
						build_none, free_ruleset),
		cmocka_unit_test_setup_teardown(test_rule_text, build_none,
						free_ruleset),
		cmocka_unit_test(test_allowlist_rules),
		cmocka_unit_test(test_transparent_rules),
		cmocka_unit_test(test_relay_rules),
		cmocka_unit_test(test_transparent6_rules),
		cmocka_unit_test(test_relay6_rules),
		cmocka_unit_test(test_lane_rules),
		cmocka_unit_test(test_unknown_mode),
		cmocka_unit_test(test_free_null),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
