/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * policy.h - the egress allowlist: grammar of --allow entries, and the
 * decisions the relay asks of it. Pure: no I/O except reading an
 * --allow-file, no resolution (the relay resolves and asks again).
 *
 * Entry grammar (see jailrun(1), ALLOWLIST):
 *   host          example.com        that name only (not its subdomains)
 *   *.suffix      *.example.com      any name below example.com, at any
 *                                    depth, never example.com itself
 *   address       192.0.2.7, 2001:db8::7
 *   CIDR          192.0.2.0/24, 2001:db8::/32
 * each optionally followed by :port ([v6]:port or [v6/len]:port for IPv6).
 * Names compare case-insensitively, a trailing dot is ignored. The rules
 * and the reasons for each choice are at the top of policy.c.
 */
#ifndef JR_POLICY_H
#define JR_POLICY_H

#include <netinet/in.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/socket.h>

#include "err.h"
#include "host.h"

enum jr_allow_kind {
	JR_ALLOW_HOST,	   /* exact name */
	JR_ALLOW_WILDCARD, /* *.suffix: strictly below suffix */
	JR_ALLOW_ADDR,	   /* address literal (prefix = full length) or CIDR */
};

struct jr_allow_entry {
	enum jr_allow_kind kind;
	char name[JR_HOST_MAX + 1]; /* HOST/WILDCARD: lowercase, no trailing
				       dot; WILDCARD: the suffix, no "*." */
	int family;		    /* ADDR: AF_INET or AF_INET6 */
	uint8_t addr[16];	    /* ADDR: network address, host bits zero */
	uint8_t prefix;		    /* ADDR: prefix length */
	uint16_t port;		    /* 0: any port */
	char text[300];		    /* the entry as given, for messages */
};

struct jr_httprules;

struct jr_policy {
	struct jr_allow_entry *entries;
	size_t n, cap;
	/* --net public and --learn: every valid name and address literal
	 * passes jr_policy_check_name() on every port but 0, and the DNS
	 * forwarder answers every valid name. The guard below is the same
	 * code as in allowlist mode and still refuses special and local
	 * addresses. */
	bool match_any;
	/* --allow-private entries (always JR_ALLOW_ADDR): they open special
	 * and local addresses to the guard only, and never admit a name or
	 * a literal by themselves; apart from @entries so that nothing that
	 * walks the allowlist (the worker's nft rules, Landlock's ports)
	 * mistakes them for destinations. */
	struct jr_allow_entry *private_entries;
	size_t n_private;
	/* The managed policy's deny entries (managed.h), or NULL: asked
	 * before the entries above at every decision (JR_DENY_MANAGED). */
	const struct jr_policy *deny;
	/* --allow-http rules (httprules.h), or NULL: a host they name takes
	 * only the requests they allow. Not owned: main() keeps them. */
	const struct jr_httprules *http_rules;
};

/* Why a destination was refused; stable strings for the audit log
 * (jr_deny_reason_name(JR_ALLOWED) is "allowed"). */
enum jr_deny_reason {
	JR_ALLOWED = 0,
	JR_DENY_NOT_ALLOWED, /* "not-allowed": no entry matches the name/address */
	JR_DENY_PORT,	  /* "port-not-allowed": name matches, port does not */
	JR_DENY_BAD_HOST, /* "bad-host": not a valid name or literal (e.g.
				   "2130706433", "0x7f.1", "127.1", underscores) */
	JR_DENY_SPECIAL_ADDR, /* "special-address": loopback, link-local,
				   unspecified, multicast, broadcast,
				   private (RFC 1918, fc00::/7), shared
				   (100.64.0.0/10), a cloud metadata address,
				   or an IPv4-mapped/compatible/NAT64 form of
				   one, not named explicitly */
	JR_DENY_LOCAL_ADDR,   /* "local-address": an address of the host
				   jailrun runs on (the kernel routes it
				   locally), not named explicitly */
	JR_DENY_GUARD_FAILED, /* "guard-failed": the local-address check
				   itself failed; refused, fail closed */
	JR_DENY_MANAGED,      /* "managed-deny": a deny entry of the managed
				   policy matches (managed.h) */
};

const char *jr_deny_reason_name(enum jr_deny_reason r);

void jr_policy_init(struct jr_policy *p);
void jr_policy_free(struct jr_policy *p);

/*
 * jr_policy_add - parse one --allow entry and append it.
 * On error, @err names the entry and the rule it broke, e.g.
 *   "--allow 'foo.*.com': a wildcard may only be the whole first label,
 *    as in '*.example.com'"
 * Return: 0, -EINVAL (the entry), -E2BIG (more than 4096 entries) or
 * -ENOMEM. On error @p is unchanged.
 */
int jr_policy_add(struct jr_policy *p, const char *entry, struct jr_err *err);

/*
 * jr_policy_add_file - add every entry of @path: one per line, blank lines
 * and '#' comments (whole-line or trailing) ignored, surrounding
 * whitespace trimmed. Errors name the file and line, then the entry:
 *   "allow.txt:3: 'foo.*.com': a wildcard may only be ..."
 * All or nothing: on error no entry of the file is added.
 * Return: 0 or -errno.
 */
int jr_policy_add_file(struct jr_policy *p, const char *path,
		       struct jr_err *err);

/*
 * jr_policy_parse_private - check one --allow-private value: an IPv4 or
 * IPv6 address or CIDR, optionally with :port as in an --allow entry,
 * that is either one address (/32, /128) or lies wholly inside one
 * special range (see JR_DENY_SPECIAL_ADDR; where they nest, the
 * narrowest that contains it). 0.0.0.0/0 and ::/0 are refused by name.
 * @e: filled on success (may be NULL)
 * Return: 0 or -EINVAL with @err naming the value and the rule.
 */
int jr_policy_parse_private(const char *text, struct jr_allow_entry *e,
			    struct jr_err *err);

/*
 * jr_policy_add_private - jr_policy_parse_private(), then keep the entry
 * for the guard (struct jr_policy, private_entries).
 * Return: 0, -EINVAL, -E2BIG (more than 4096) or -ENOMEM.
 */
int jr_policy_add_private(struct jr_policy *p, const char *text,
			  struct jr_err *err);

/*
 * jr_policy_check_name - may a connection to @host:@port be attempted?
 * @host: as the client wrote it (CONNECT authority host, URI host, DNS
 *        name): any case, optional trailing dot; an IPv6 literal without
 *        brackets. IPv4/IPv6 literals (strict inet_pton forms only) are
 *        matched against ADDR entries; anything that inet_aton would take
 *        as a number but inet_pton would not is JR_DENY_BAD_HOST. An
 *        IPv6 literal carrying an IPv4 address (::ffff:a.b.c.d,
 *        ::a.b.c.d, 64:ff9b::a.b.c.d) is matched as that IPv4 address.
 *        No cross-matching: names never match ADDR entries, literals
 *        never match HOST/WILDCARD entries.
 * @port: 1..65535 (0 is never allowed)
 * With @p->match_any every host that is valid as above is allowed on
 * every port but 0.
 * Return: JR_ALLOWED or the reason.
 */
enum jr_deny_reason jr_policy_check_name(const struct jr_policy *p,
					 const char *host, uint16_t port);

/*
 * jr_policy_name_allowed - is @host allowed on some port? (the DNS
 * forwarder's question: resolve it, or answer NXDOMAIN.) The same
 * grammar and matching as jr_policy_check_name(), ports aside; so an
 * address literal is "allowed" when an ADDR entry contains it: the
 * forwarder may want to answer a literal query itself instead.
 */
bool jr_policy_name_allowed(const struct jr_policy *p, const char *host);

/*
 * jr_policy_name_verdict - jr_policy_name_allowed()'s answer with its
 * reason: JR_ALLOWED, or why @host is refused on every port (--ask holds
 * only the allowlist's own refusals, never a managed deny or a bad name).
 */
enum jr_deny_reason jr_policy_name_verdict(const struct jr_policy *p,
					   const char *host);

/*
 * jr_policy_check_address - the resolved-address guard, asked before every
 * upstream connect with the very address that will be connected to.
 * A special address (see JR_DENY_SPECIAL_ADDR) is refused unless an ADDR
 * entry contains it, lies inside the same special range and allows @port:
 * "--allow 127.0.0.1:8080" opens that, "--allow 0.0.0.0/0" does not.
 * An --allow-private entry (@p->private_entries) counts as such an entry
 * here and in jr_policy_check_local_address(). IPv4-mapped (::ffff:a.b.c.d), IPv4-compatible (::a.b.c.d, but not ::
 * and ::1) and NAT64 (64:ff9b::a.b.c.d) IPv6 addresses are judged as the
 * IPv4 address they carry. Any other address is allowed: its name was
 * checked already (the relay then asks localaddr.h whether it is this
 * host's own, and jr_policy_check_local_address() if so). Private and
 * shared ranges and the cloud metadata addresses are special too; where
 * special ranges nest, the entry must lie inside the narrowest.
 * @sa: AF_INET or AF_INET6 socket address (its port is ignored); it need
 *      not be aligned, but must be as long as its family's sockaddr
 * @port: 1..65535 (0 is never allowed: JR_DENY_PORT)
 * Return: JR_ALLOWED or the reason (JR_DENY_PORT when an entry would have
 * allowed the special address on another port; JR_DENY_BAD_HOST for
 * another family).
 */
enum jr_deny_reason jr_policy_check_address(const struct jr_policy *p,
					    const struct sockaddr *sa,
					    uint16_t port);

/*
 * jr_policy_check_local_address - the guard's second question, asked when
 * the kernel says a connect to @sa would stay on this host (see
 * localaddr.h): a service bound to 0.0.0.0 on the runner's host answers on
 * every such address. Allowed only by an ADDR entry that contains the
 * address, admits @port, and names it: a full-length entry (/32, /128)
 * for exactly that address, or an entry inside a special range that leads
 * to this host by definition (loopback, 0.0.0.0/8, ::), which
 * jr_policy_check_address() already required. "--allow 10.0.0.0/8" does
 * not open this host's 10.0.0.2; "--allow 10.0.0.2:8080" does.
 * IPv4-carrying IPv6 forms are judged as the IPv4 address.
 * Return: JR_ALLOWED, JR_DENY_LOCAL_ADDR, JR_DENY_PORT (an entry names it
 * on another port, or @port is 0), JR_DENY_BAD_HOST (another family).
 */
enum jr_deny_reason jr_policy_check_local_address(const struct jr_policy *p,
						  const struct sockaddr *sa,
						  uint16_t port);

/*
 * jr_policy_deny_address - the deny entry of @deny (a managed policy's
 * list, jr_policy.deny) that matches @sa on @port, judged as the relay's
 * decision-time check judges it (IPv4-carrying IPv6 forms as the IPv4
 * address they carry), or NULL. For destinations the relay never asks
 * about, such as a host lane's fixed endpoint.
 * @sa: AF_INET or AF_INET6, as for jr_policy_check_address()
 */
const struct jr_allow_entry *
jr_policy_deny_address(const struct jr_policy *deny, const struct sockaddr *sa,
		       uint16_t port);

/* Normalise a host name in place (lowercase, drop one trailing dot). */
void jr_host_normalise(char *host);

#endif
