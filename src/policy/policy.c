// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * policy.c - the egress allowlist: the grammar of --allow entries and the
 * two questions the relay asks before every upstream connection.
 *
 * Theory of operation
 *
 * An entry is parsed once, at startup, into a struct jr_allow_entry: a
 * lowercase name without its trailing dot (HOST), the suffix of a "*."
 * wildcard (WILDCARD), or a network address with its prefix length and the
 * host bits zero (ADDR); each with a port or 0 for "any". Anything the
 * grammar does not take is refused there and then, with a message naming
 * the entry and the rule it broke: a policy that means something other
 * than what its author read is worse than no policy, so nothing is guessed
 * and nothing is repaired silently (a trailing dot and letter case are the
 * only forms folded, because DNS itself folds them: RFC 1035 2.3.3 for
 * case, RFC 1034 3.1 for the root's trailing dot).
 *
 * The relay then asks, in order:
 *  1. jr_policy_check_name(host, port), with the host the client wrote.
 *     An address literal is matched only against ADDR entries, a name only
 *     against HOST and WILDCARD entries; there is no cross-matching, so no
 *     digit string can ever act as a name suffix (the Docker proxy's
 *     "--allow 0.1 admits 10.0.0.1" defect) and no name grants an address.
 *  2. jr_policy_check_address(resolved address, port), with the very
 *     address it is about to connect to. This is the SSRF guard: a name an
 *     agent may reach can still resolve to 127.0.0.1 or to the cloud
 *     metadata address, so the addresses that lead back into this host or
 *     onto its link are refused unless an ADDR entry inside that special
 *     range names them.
 * Matching is a linear walk over at most POLICY_MAX_ENTRIES entries: a
 * few string compares per entry, dwarfed by the connect it guards.
 *
 * Decisions (each one also pinned by tests/unit/test_policy.c):
 *  - A host entry matches that name only, not its subdomains. The Docker
 *    egress proxy matched subdomains too, so allowing api.example.com also
 *    allowed anything.api.example.com, names its author never wrote. Here
 *    subdomains need their own "*.api.example.com".
 *  - "*.com" (a wildcard over one label) is accepted. It is broad, but
 *    refusing it would suggest that "*.co.uk" is narrow, and telling the two
 *    apart needs the Public Suffix List, which is data that goes stale and
 *    that a sandbox should not trust. The entry reads as broad as it is, and
 *    every connection it admits is in the audit log.
 *  - A name follows the RFC 1123 2.1 host name syntax (letters, digits,
 *    '-'; labels of 1-63 characters, RFC 1035 2.3.4): no underscores, no
 *    non-ASCII bytes (an internationalised name is given in its punycode
 *    "xn--" form, RFC 5891 4.4), and a last label that is not all digits,
 *    because RFC 1123 2.1 relies on exactly that to tell names from
 *    dotted-decimal addresses. Anything inet_aton(3) would read as an
 *    address ("2130706433", "0x7f.1", "127.1", "017.0.0.1") is refused as
 *    an entry and is a bad host when checked: getaddrinfo(3) and many
 *    clients take those forms as IPv4 addresses, so treating them as names
 *    would let one string mean two destinations.
 *  - An all-digit dotted entry is an IPv4 address or an error, never a
 *    name; "0.1", "1.2.3" and "01.2.3.4" are refused as bad addresses.
 *  - Ports and prefix lengths are plain decimal without leading zeros.
 *    RFC 3986 3.2.3 would allow ":080", but the same digits are octal to
 *    strtol(s, NULL, 0) and inet_aton-style parsers; one spelling per port
 *    keeps the policy and the audit log unambiguous. Port 0 is not a
 *    destination and is refused in an entry and never allowed by a check.
 *  - A CIDR with host bits set ("10.0.0.1/8") is refused, naming the
 *    network it would have meant: masking it silently would widen an entry
 *    its author may have meant as a single host.
 *  - An IPv6 address is bracketed to carry a port ("[2001:db8::1]:443").
 *    Unbracketed, every colon belongs to the address ("2001:db8::1:443" is
 *    an address, any port), as RFC 3986 3.2.2 requires of URI authorities.
 *    Zone ids ("fe80::1%eth0", RFC 4007 11) are refused: a zone only has a
 *    meaning on one node, and link-local destinations are special anyway.
 *  - IPv6 addresses that carry an IPv4 address are judged as that IPv4
 *    address, by the guard and by literal matching alike: IPv4-mapped
 *    ::ffff:0:0/96 (RFC 4291 2.5.5.2, what an AF_INET6 socket uses to reach
 *    IPv4), IPv4-compatible ::/96 except :: and ::1 (RFC 4291 2.5.5.1,
 *    deprecated) and the NAT64 well-known prefix 64:ff9b::/96 (RFC 6052
 *    2.1), since a translator delivers to the IPv4 address it carries and
 *    RFC 6052 3.1 only asks translators, which we do not control, to drop
 *    non-global ones. Otherwise "::ffff:127.0.0.1" would slip past an
 *    IPv4-only guard, and "--allow ::/0" would open every IPv4 host. An
 *    entry inside those ranges can therefore never match and is refused,
 *    naming the IPv4 form to write instead. 6to4 (2002::/16, RFC 3056) is
 *    not unwrapped, since the IPv4 it carries is the tunnel end point, not
 *    the destination, but that end point is judged: it is where the
 *    encapsulated packet goes, so 2002:7f00:1::1 or 2002:a9fe:a9fe::1 would
 *    hand a packet to this host or the metadata address. An address whose
 *    embedded IPv4 is special lies in a special range of its own, the
 *    6to4 image of the IPv4 range (2002:7f00::/24 for 127.0.0.0/8), opened
 *    only by an entry inside it. Teredo is not unwrapped (its client
 *    address is obfuscated and reached through a relay).
 *  - The special ranges are those through which a connection reaches this
 *    host, its link or the network it sits in rather than the internet
 *    (RFC 6890 2.2.2, 2.2.3): "this network" 0.0.0.0/8 and ::, which Linux
 *    delivers locally; loopback; link-local, where most cloud metadata
 *    lives; multicast; limited broadcast; the private ranges (RFC 1918,
 *    fc00::/7 of RFC 4193, and the deprecated site-local fec0::/10 of RFC
 *    3879, which old stacks and routers still honour), the local-use NAT64
 *    prefix 64:ff9b:1::/48 (RFC 8215: a translator of the site's own,
 *    with the IPv4 at a position only its prefix length says, so the
 *    whole /48 is special) and shared address space (100.64.0.0/10, RFC
 *    6598), where the runner's own LAN, a cloud VPC and its internal
 *    services are; and the cloud metadata services that live outside
 *    169.254/16 (Alibaba 100.100.100.200, Azure's wire server
 *    168.63.129.16, AWS's IPv6 endpoint fd00:ec2::254). A name that an
 *    agent may reach but that resolves into one of these is the SSRF the
 *    guard exists for; an allowed mirror on the LAN needs its address
 *    named too ("--allow mirror.lan --allow 10.1.2.3:443").
 *  - A special address is allowed only by an ADDR entry that contains it
 *    and lies inside the same special range: "--allow 127.0.0.1:8080" or
 *    "--allow 169.254.169.254" open what they say, "--allow 0.0.0.0/0" or
 *    "--allow ::/0" do not open loopback or metadata (design.md: "unless an
 *    entry names them explicitly"). Where special ranges nest, the
 *    narrowest one decides: "--allow 100.64.0.0/10" opens the shared
 *    address space but not the Alibaba metadata address inside it, and
 *    "--allow fd00::/8" does not open fd00:ec2::254.
 *  - An address of the runner's own network namespace (asked of the
 *    kernel per connect, see localaddr.c) is a range of its own, a /32 or
 *    /128: jr_policy_check_local_address() opens it only for an ADDR entry
 *    naming exactly that address, or lying inside a special range that by
 *    definition leads to this host (loopback, "this network", ::). So
 *    "--allow 10.0.0.0/8" opens the LAN but not this host's own 10.0.0.2,
 *    where a service bound to 0.0.0.0 listens; "--allow 10.0.0.2:8080"
 *    does open it.
 *  - --net public (and --learn) set match_any: every name and literal
 *    that the grammar takes passes the name check on every port but 0,
 *    and nothing else changes. The guard is the very same code, so
 *    "open, but not to the host" is the allowlist's guard with the name
 *    check answered yes; a bad host ("2130706433") is still a bad host.
 *  - --allow-private opens a special range to the guard only, in its own
 *    list (private_entries): it is an ADDR entry for
 *    jr_policy_check_address() and jr_policy_check_local_address(), and
 *    nothing for the name check, the worker's nft rules or Landlock. It
 *    must be one address or lie inside one special range: "10.0.0.0/7"
 *    would open 10/8 and mean 11/8 too, and "0.0.0.0/0" would read as
 *    "open everything" while opening nothing (the narrowest-range rule),
 *    so both are refused with the reason. Like any entry, it opens this
 *    host's own addresses only where it names them (a /32 or /128, or a
 *    range that leads to this host by definition, such as 127.0.0.0/8).
 */

#include <arpa/inet.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cleanup.h"
#include "policy.h"

/* Enough for any sane policy, small enough that a runaway file fails. */
#define POLICY_MAX_ENTRIES 4096
/* Internal port value: "on some port", jr_policy_name_allowed()'s question. */
#define POLICY_PORT_ANY (-1)
/* Characters of an entry quoted in a message before it is cut with "...". */
#define POLICY_SHOW_MAX 320

JR_DEFINE_CLEANUP(FILE, fclose)

/* An address as the policy compares it: network byte order, 4 or 16 bytes. */
struct policy_addr {
	int family;
	uint8_t bytes[16];
};

/*
 * The ranges jr_policy_check_address() refuses unless explicitly allowed.
 * IPv4-carrying IPv6 forms are unwrapped before this table is consulted.
 * Where ranges nest, the narrowest one that contains an address decides
 * (special_range_of()), so the order here does not matter.
 * @to_host: the range leads to this host by definition (RFC 6890 "this
 *           host on this network", loopback): an entry inside it also
 *           opens an address the kernel calls local.
 */
static const struct policy_special_range {
	int family;
	uint8_t net[16];
	uint8_t prefix;
	bool to_host;
} policy_special_ranges[] = {
	/* "this network", RFC 6890 2.2.2; connect(2) to 0.0.0.0 reaches us */
	{ AF_INET, { 0 }, 8, true },
	/* private, RFC 1918 3 */
	{ AF_INET, { 10 }, 8, false },
	/* shared address space (CGNAT, cloud internal), RFC 6598 */
	{ AF_INET, { 100, 64 }, 10, false },
	/* Alibaba Cloud metadata service, inside the shared space */
	{ AF_INET, { 100, 100, 100, 200 }, 32, false },
	/* loopback, RFC 1122 3.2.1.3 */
	{ AF_INET, { 127 }, 8, true },
	/* Azure wire server (metadata, health, extensions): a public address
	 * every Azure VM reaches on its own host */
	{ AF_INET, { 168, 63, 129, 16 }, 32, false },
	/* link-local, RFC 3927; the cloud metadata service is 169.254.169.254 */
	{ AF_INET, { 169, 254 }, 16, false },
	/* private, RFC 1918 3 */
	{ AF_INET, { 172, 16 }, 12, false },
	/* private, RFC 1918 3 */
	{ AF_INET, { 192, 168 }, 16, false },
	/* multicast, RFC 5771 */
	{ AF_INET, { 224 }, 4, false },
	/* limited broadcast, RFC 919 7 */
	{ AF_INET, { 255, 255, 255, 255 }, 32, false },
	/* unspecified, RFC 4291 2.5.2; connect(2) to it reaches this host */
	{ AF_INET6, { 0 }, 128, true },
	/* loopback, RFC 4291 2.5.3 */
	{ AF_INET6, { [15] = 1 }, 128, true },
	/* local-use IPv4/IPv6 translation, RFC 8215: a NAT64 of the site's
	 * own that reaches its IPv4 network; where the IPv4 address sits
	 * depends on the prefix length the site chose (RFC 6052 2.2), so the
	 * whole /48 is special, not unwrapped as the /96 well-known one is */
	{ AF_INET6, { 0x00, 0x64, 0xff, 0x9b, 0x00, 0x01 }, 48, false },
	/* 6to4, RFC 3056 2: not special as such; an address whose embedded
	 * IPv4 end point is special lies in that range's 6to4 image, made by
	 * special_range_of() (policy_6to4_prefix), so it has no row here */
	/* unique local, RFC 4193 */
	{ AF_INET6, { 0xfc }, 7, false },
	/* AWS instance metadata over IPv6, fd00:ec2::254, inside fc00::/7 */
	{ AF_INET6,
	  { 0xfd, 0x00, 0x0e, 0xc2, [14] = 0x02, [15] = 0x54 },
	  128,
	  false },
	/* link-local, RFC 4291 2.5.6 */
	{ AF_INET6, { 0xfe, 0x80 }, 10, false },
	/* site-local, RFC 3879 (deprecated, but a stack or router that still
	 * honours it delivers inside the site, as for fc00::/7) */
	{ AF_INET6, { 0xfe, 0xc0 }, 10, false },
	/* multicast, RFC 4291 2.7 */
	{ AF_INET6, { 0xff }, 8, false },
};

/* The first 96 bits of the IPv6 forms that carry an IPv4 address. */
static const uint8_t policy_v4mapped_prefix[12] = { [10] = 0xff, [11] = 0xff };
static const uint8_t policy_v4compat_prefix[12] = { 0 };
static const uint8_t policy_nat64_prefix[12] = { 0x00, 0x64, 0xff, 0x9b };
/* 6to4, RFC 3056 2: 2002:V4ADDR::/48, the IPv4 end point in bits 16-47. */
static const uint8_t policy_6to4_prefix[2] = { 0x20, 0x02 };

/* ------------------------------------------------------------ utilities */

static bool ascii_is_digit(char c)
{
	return c >= '0' && c <= '9';
}

static char ascii_to_lower(char c)
{
	return (c >= 'A' && c <= 'Z') ? (char)(c - 'A' + 'a') : c;
}

/* Only digits and dots, at least one digit: an IPv4 address or nothing. */
static bool looks_like_ipv4(const char *s)
{
	bool digit = false;

	for (; *s; s++) {
		if (ascii_is_digit(*s))
			digit = true;
		else if (*s != '.')
			return false;
	}
	return digit;
}

static bool all_digits(const char *s, size_t len)
{
	for (size_t i = 0; i < len; i++)
		if (!ascii_is_digit(s[i]))
			return false;
	return len > 0;
}

/*
 * show_text() - quote untrusted text for a one-line message.
 * @out: destination, always NUL-terminated
 * @size: size of @out
 * @in: the text; bytes outside printable ASCII become \xNN
 *
 * Messages end up on a terminal and in a JSON log, so an entry read from a
 * file must not bring control characters along, and a huge one is cut.
 */
static void show_text(char *out, size_t size, const char *in)
{
	size_t o = 0;

	for (; *in; in++) {
		unsigned char c = (unsigned char)*in;
		int n;

		if (o + 8 >= size || o >= POLICY_SHOW_MAX) {
			snprintf(out + o, size - o, "...");
			return;
		}
		if (c >= 0x20 && c < 0x7f && c != '\\')
			n = snprintf(out + o, size - o, "%c", c);
		else
			n = snprintf(out + o, size - o, "\\x%02x", c);
		o += (size_t)n;
	}
	out[o] = '\0';
}

static int addr_len(int family)
{
	return family == AF_INET ? 4 : 16;
}

static int addr_bits(int family)
{
	return family == AF_INET ? 32 : 128;
}

/*
 * prefix_contains() - is @addr inside @net/@prefix?
 * All three are in network byte order; @prefix is at most the address size.
 */
static bool prefix_contains(const uint8_t *net, unsigned int prefix,
			    const uint8_t *addr)
{
	unsigned int whole = prefix / 8, rest = prefix % 8;
	uint8_t mask;

	if (memcmp(net, addr, whole) != 0)
		return false;
	if (rest == 0)
		return true;
	mask = (uint8_t)(0xff << (8 - rest));
	return (net[whole] & mask) == (addr[whole] & mask);
}

/* Zero the bits of @addr beyond @prefix. */
static void prefix_mask(uint8_t *addr, size_t len, unsigned int prefix)
{
	for (size_t i = 0; i < len; i++) {
		unsigned int bit = (unsigned int)i * 8;

		if (bit >= prefix)
			addr[i] = 0;
		else if (prefix - bit < 8)
			addr[i] &= (uint8_t)(0xff << (8 - (prefix - bit)));
	}
}

/*
 * ipv6_carrier_range() - which IPv4-carrying /96 holds @a?
 * @a: 16 bytes; only the first 12 are looked at
 * Return: the name of the form, for messages, or NULL.
 */
static const char *ipv6_carrier_range(const uint8_t *a)
{
	if (memcmp(a, policy_v4mapped_prefix, 12) == 0)
		return "IPv4-mapped addresses (RFC 4291 2.5.5.2)";
	if (memcmp(a, policy_nat64_prefix, 12) == 0)
		return "NAT64 addresses (RFC 6052 2.1)";
	if (memcmp(a, policy_v4compat_prefix, 12) == 0)
		return "IPv4-compatible addresses (RFC 4291 2.5.5.1)";
	return NULL;
}

/*
 * ipv6_is_own_compat() - is @a :: or ::1? They lie inside the
 * IPv4-compatible /96 but are IPv6's own unspecified and loopback
 * addresses (RFC 4291 2.5.2, 2.5.3), so they carry no IPv4 address.
 */
static bool ipv6_is_own_compat(const uint8_t *a)
{
	return memcmp(a, policy_v4compat_prefix, 12) == 0 && a[12] == 0 &&
	       a[13] == 0 && a[14] == 0 && a[15] <= 1;
}

/* Judge an IPv4-carrying IPv6 address as the IPv4 address it carries. */
static void addr_unwrap_ipv4(struct policy_addr *a)
{
	if (a->family != AF_INET6 || !ipv6_carrier_range(a->bytes) ||
	    ipv6_is_own_compat(a->bytes))
		return;
	memmove(a->bytes, a->bytes + 12, 4);
	memset(a->bytes + 4, 0, 12);
	a->family = AF_INET;
}

/*
 * addr_parse_literal() - a strict IPv4 or IPv6 literal, as inet_pton(3).
 * glibc and musl refuse leading zeros in IPv4 (they would be octal to
 * inet_aton) and zone ids in IPv6, which is what the policy wants.
 * Return: true if @s is one; @a is then filled (not unwrapped).
 */
static bool addr_parse_literal(const char *s, struct policy_addr *a)
{
	memset(a, 0, sizeof(*a));
	if (inet_pton(AF_INET, s, a->bytes) == 1)
		a->family = AF_INET;
	else if (inet_pton(AF_INET6, s, a->bytes) == 1)
		a->family = AF_INET6;
	else
		return false;
	return true;
}

/*
 * looks_numeric() - would a resolver read @name as an IPv4 address?
 * inet_aton(3) is what getaddrinfo(3) tries first on a name; it takes
 * "2130706433", "0x7f.1", "127.1" and "0177.0.0.1" as 127.0.0.1.
 */
static bool looks_numeric(const char *name)
{
	struct in_addr ignored;

	return inet_aton(name, &ignored) != 0;
}

/* --------------------------------------------------------- name grammar */

/* One byte of a host name, after lowercasing. */
static int name_char_check(char c, struct jr_err *err)
{
	unsigned char u = (unsigned char)c;

	if ((c >= 'a' && c <= 'z') || ascii_is_digit(c) || c == '-' || c == '.')
		return 0;
	if (u >= 0x80)
		return jr_err_set(
		    err, EINVAL,
		    "only ASCII is allowed in a host name; write an internationalised name in its punycode form ('xn--...', RFC 5891)");
	if (c == '_')
		return jr_err_set(
		    err, EINVAL,
		    "an underscore is not allowed in a host name (RFC 1123 2.1: letters, digits and '-')");
	if (c == '*')
		return jr_err_set(
		    err, EINVAL,
		    "a wildcard may only be the whole first label, as in '*.example.com'");
	if (u <= 0x20 || u == 0x7f)
		return jr_err_set(
		    err, EINVAL,
		    "a space or control character is not allowed in a host name");
	return jr_err_set(
	    err, EINVAL,
	    "'%c' is not allowed in a host name (RFC 1123 2.1: letters, digits, '-' and '.')",
	    c);
}

/* One label: RFC 1035 2.3.4 length, RFC 1123 2.1 hyphen placement. */
static int name_label_check(const char *label, size_t len, struct jr_err *err)
{
	if (len == 0)
		return jr_err_set(
		    err, EINVAL,
		    "empty label (a leading dot, or '..'): every label between dots needs 1 to %d characters",
		    JR_HOST_LABEL_MAX);
	if (len > JR_HOST_LABEL_MAX)
		return jr_err_set(
		    err, EINVAL,
		    "a label is at most %d characters (RFC 1035 2.3.4), this one has %zu",
		    JR_HOST_LABEL_MAX, len);
	if (label[0] == '-' || label[len - 1] == '-')
		return jr_err_set(
		    err, EINVAL,
		    "a label may not begin or end with '-' (RFC 1123 2.1)");
	return 0;
}

/*
 * name_check() - is @name a host name by the policy's grammar?
 * @name: lowercase, trailing dot already removed
 * @err: filled with the rule broken (may be NULL)
 *
 * The one grammar for entries and for checked hosts, so nothing can be
 * allowed that could not be asked for, or the other way round.
 * Return: 0 or -EINVAL.
 */
static int name_check(const char *name, struct jr_err *err)
{
	size_t len = strlen(name);
	const char *label = name;
	int r;

	if (len == 0)
		return jr_err_set(err, EINVAL, "the host name is empty");
	if (len > JR_HOST_MAX)
		return jr_err_set(
		    err, EINVAL,
		    "a host name is at most %d characters (RFC 1035 2.3.4), this one has %zu",
		    JR_HOST_MAX, len);
	for (const char *c = name; *c; c++) {
		r = name_char_check(*c, err);
		if (r < 0)
			return r;
	}
	for (const char *c = name;; c++) {
		if (*c != '.' && *c != '\0')
			continue;
		r = name_label_check(label, (size_t)(c - label), err);
		if (r < 0)
			return r;
		if (*c == '\0')
			break;
		label = c + 1;
	}
	/* RFC 1123 2.1: "the highest-level component label will be
	 * alphabetic"; this is how a resolver tells names from addresses. */
	if (all_digits(label, strlen(label)))
		return jr_err_set(
		    err, EINVAL,
		    "the last label '%s' is all digits, so resolvers would read the name as an address (RFC 1123 2.1)",
		    label);
	return 0;
}

void jr_host_normalise(char *host)
{
	size_t len;

	if (!host)
		return;
	for (char *c = host; *c; c++)
		*c = ascii_to_lower(*c);
	len = strlen(host);
	if (len > 0 && host[len - 1] == '.')
		host[len - 1] = '\0';
}

/* ------------------------------------------------------- entry grammar */

/*
 * parse_decimal() - a port or a prefix length: plain decimal, no sign, no
 * leading zeros (see "Decisions" at the top), at most @max.
 * @what: "port" or "prefix length", for the message
 * @sep: the character before it in the entry, for the message
 * Return: the value, or -EINVAL with @err filled.
 */
static long parse_decimal(const char *s, long max, const char *what, char sep,
			  struct jr_err *err)
{
	size_t len = strlen(s);
	long v = 0;

	if (len == 0)
		return jr_err_set(err, EINVAL, "the %s is missing after '%c'",
				  what, sep);
	if (!all_digits(s, len))
		return jr_err_set(err, EINVAL,
				  "the %s '%s' is not a decimal number", what,
				  s);
	if (len > 1 && s[0] == '0')
		return jr_err_set(
		    err, EINVAL,
		    "write the %s without leading zeros ('%s' could be read as octal)",
		    what, s);
	for (size_t i = 0; i < len && v <= max; i++)
		v = v * 10 + (s[i] - '0');
	if (v > max)
		return jr_err_set(err, EINVAL,
				  "the %s %s is out of range (at most %ld)",
				  what, s, max);
	return v;
}

static int parse_port(const char *s, uint16_t *port, struct jr_err *err)
{
	long v = parse_decimal(s, 65535, "port", ':', err);

	if (v < 0)
		return (int)v;
	if (v == 0)
		return jr_err_set(
		    err, EINVAL,
		    "port 0 is not a destination port (1-65535); leave the port out to allow any");
	*port = (uint16_t)v;
	return 0;
}

/*
 * entry_suggest_network() - the message for an entry whose host bits are
 * set, naming the network it would have meant.
 */
static int entry_suggest_network(const struct jr_allow_entry *e,
				 struct jr_err *err)
{
	char net[INET6_ADDRSTRLEN];

	if (!inet_ntop(e->family, e->addr, net, sizeof(net)))
		net[0] = '\0';
	return jr_err_set(
	    err, EINVAL,
	    "host bits are set after the /%u prefix; write the network '%s/%u', or the address alone",
	    e->prefix, net, e->prefix);
}

/*
 * entry_check_ipv4_carrier() - refuse an IPv6 entry that lies inside an
 * IPv4-carrying range: such addresses are judged as IPv4 (see the top), so
 * the entry could never match; name the IPv4 entry to write instead.
 * ::/127, :: and ::1 are IPv6's own and stay.
 */
static int entry_check_ipv4_carrier(const struct jr_allow_entry *e,
				    struct jr_err *err)
{
	const char *form;
	char v4[INET_ADDRSTRLEN];

	if (e->family != AF_INET6 || e->prefix < 96)
		return 0;
	form = ipv6_carrier_range(e->addr);
	if (!form || (e->prefix >= 127 && ipv6_is_own_compat(e->addr)))
		return 0;
	if (!inet_ntop(AF_INET, e->addr + 12, v4, sizeof(v4)))
		v4[0] = '\0';
	if (e->prefix == 128)
		return jr_err_set(
		    err, EINVAL,
		    "%s are judged as the IPv4 address they carry, so this entry could never match; write '%s'",
		    form, v4);
	return jr_err_set(
	    err, EINVAL,
	    "%s are judged as the IPv4 address they carry, so this entry could never match; write '%s/%u'",
	    form, v4, e->prefix - 96);
}

/*
 * parse_address() - "ADDR" or "ADDR/LEN" of @family into @e.
 * @s: mutable; the '/' is cut
 */
static int parse_address(char *s, int family, struct jr_allow_entry *e,
			 struct jr_err *err)
{
	char *slash = strchr(s, '/');
	uint8_t masked[16];
	long prefix = addr_bits(family);

	if (slash) {
		*slash = '\0';
		prefix = parse_decimal(slash + 1, addr_bits(family),
				       "prefix length", '/', err);
		if (prefix < 0)
			return (int)prefix;
	}
	if (s[0] == '\0')
		return jr_err_set(err, EINVAL,
				  "the address is missing before '/'");
	if (family == AF_INET6 && strchr(s, '%'))
		return jr_err_set(
		    err, EINVAL,
		    "zone ids ('%%eth0') are not allowed: a zone only means something on one host (RFC 4007 11), and link-local addresses are refused by the address guard anyway");
	if (inet_pton(family, s, e->addr) != 1) {
		if (family == AF_INET)
			return jr_err_set(
			    err, EINVAL,
			    "not a valid IPv4 address: write four decimal numbers 0-255 without leading zeros, as in '192.0.2.7'");
		return jr_err_set(
		    err, EINVAL,
		    "not a valid IPv6 address (RFC 4291 2.2); to give a port, bracket the address, as in '[2001:db8::1]:443'");
	}
	e->kind = JR_ALLOW_ADDR;
	e->family = family;
	e->prefix = (uint8_t)prefix;
	memcpy(masked, e->addr, sizeof(masked));
	prefix_mask(masked, (size_t)addr_len(family), e->prefix);
	if (memcmp(masked, e->addr, (size_t)addr_len(family)) != 0) {
		memcpy(e->addr, masked, sizeof(masked));
		return entry_suggest_network(e, err);
	}
	return entry_check_ipv4_carrier(e, err);
}

/* "[ADDR]", "[ADDR/LEN]", each optionally followed by ":PORT". */
static int parse_bracketed(char *s, struct jr_allow_entry *e,
			   struct jr_err *err)
{
	char *inner = s + 1, *close = strchr(s, ']');

	if (!close)
		return jr_err_set(
		    err, EINVAL,
		    "'[' without a closing ']'; write '[2001:db8::1]:443'");
	*close = '\0';
	if (close[1] == ':') {
		int r = parse_port(close + 2, &e->port, err);

		if (r < 0)
			return r;
	} else if (close[1] != '\0') {
		return jr_err_set(
		    err, EINVAL,
		    "only ':port' may follow ']', as in '[2001:db8::1]:443'");
	}
	if (inner[0] == '\0')
		return jr_err_set(
		    err, EINVAL,
		    "empty brackets: an IPv6 address belongs between '[' and ']'");
	if (!strchr(inner, ':'))
		return jr_err_set(
		    err, EINVAL,
		    "brackets are only for IPv6 addresses; write an IPv4 address or a name without them, as in '192.0.2.7:443'");
	return parse_address(inner, AF_INET6, e, err);
}

/* Store a name that name_check() accepted, so at most JR_HOST_MAX long. */
static void entry_set_name(struct jr_allow_entry *e, const char *name)
{
	size_t len = strnlen(name, sizeof(e->name) - 1);

	memcpy(e->name, name, len);
	e->name[len] = '\0';
}

/* "*.suffix": the suffix is a name by the same grammar, one wildcard only. */
static int parse_wildcard(char *s, struct jr_allow_entry *e, struct jr_err *err)
{
	char *suffix = s + 2;
	int r;

	if (strcmp(s, "*") == 0)
		return jr_err_set(
		    err, EINVAL,
		    "a bare wildcard would allow every host; name a suffix, as in '*.example.com' (--net public is the mode for everything)");
	if (s[0] != '*' || s[1] != '.' || strchr(suffix, '*'))
		return jr_err_set(
		    err, EINVAL,
		    "a wildcard may only be the whole first label, as in '*.example.com'");
	jr_host_normalise(suffix);
	if (suffix[0] == '\0')
		return jr_err_set(
		    err, EINVAL,
		    "a wildcard needs a suffix, as in '*.example.com'");
	r = name_check(suffix, err);
	if (r < 0)
		return r;
	/* The shortest name below the suffix is "a." + suffix. */
	if (strlen(suffix) + 2 > JR_HOST_MAX)
		return jr_err_set(
		    err, EINVAL,
		    "the wildcard suffix is too long for any name below it to fit in %d characters (RFC 1035 2.3.4)",
		    JR_HOST_MAX);
	e->kind = JR_ALLOW_WILDCARD;
	entry_set_name(e, suffix);
	return 0;
}

static int parse_name(char *s, struct jr_allow_entry *e, struct jr_err *err)
{
	int r;

	jr_host_normalise(s);
	if (s[0] != '\0' && looks_numeric(s))
		return jr_err_set(
		    err, EINVAL,
		    "resolvers read this as a numeric IPv4 address (inet_aton(3) takes decimal, hex, octal and short forms); write the address as four decimal numbers, as in '127.0.0.1'");
	r = name_check(s, err);
	if (r < 0)
		return r;
	e->kind = JR_ALLOW_HOST;
	entry_set_name(e, s);
	return 0;
}

/* What is left once any ":port" is cut: a name, wildcard, IPv4 or CIDR. */
static int parse_host_part(char *s, struct jr_allow_entry *e,
			   struct jr_err *err)
{
	char *slash = strchr(s, '/');

	if (s[0] == '\0')
		return jr_err_set(err, EINVAL,
				  "the host is missing before ':'");
	if (slash) {
		*slash = '\0';
		if (!looks_like_ipv4(s) && s[0] != '\0')
			return jr_err_set(
			    err, EINVAL,
			    "a path is not part of a host: jailrun allows hosts, not URLs; write the host alone, as in 'example.com'");
		*slash = '/';
		return parse_address(s, AF_INET, e, err);
	}
	if (strchr(s, '*'))
		return parse_wildcard(s, e, err);
	if (looks_like_ipv4(s))
		return parse_address(s, AF_INET, e, err);
	return parse_name(s, e, err);
}

/* Bytes no entry may hold, whatever its form. */
static int entry_bytes_check(const char *s, struct jr_err *err)
{
	for (; *s; s++) {
		unsigned char c = (unsigned char)*s;

		if (c >= 0x80)
			return jr_err_set(
			    err, EINVAL,
			    "only ASCII is allowed; write an internationalised name in its punycode form ('xn--...', RFC 5891)");
		if (c <= 0x20 || c == 0x7f)
			return jr_err_set(
			    err, EINVAL,
			    "a space or control character is not allowed in an entry");
	}
	return 0;
}

/*
 * parse_entry() - one entry into @e.
 * @text: the entry, NUL-terminated
 * @err: filled with the rule broken, without the entry (the caller says
 *       where the entry came from)
 *
 * The form is decided by its punctuation before any part is parsed, so
 * each form has one parser: '[' starts a bracketed IPv6 address, two or
 * more ':' make an unbracketed IPv6 address (never a port, RFC 3986 3.2.2),
 * one ':' separates a port.
 * Return: 0 or -EINVAL.
 */
static int parse_entry(const char *text, struct jr_allow_entry *e,
		       struct jr_err *err)
{
	char buf[sizeof(e->text)];
	size_t len = strlen(text);
	char *colon;
	int r;

	memset(e, 0, sizeof(*e));
	if (len == 0)
		return jr_err_set(err, EINVAL, "an entry may not be empty");
	if (len >= sizeof(e->text))
		return jr_err_set(
		    err, EINVAL,
		    "an entry is at most %zu characters, this one has %zu",
		    sizeof(e->text) - 1, len);
	r = entry_bytes_check(text, err);
	if (r < 0)
		return r;
	if (strstr(text, "://"))
		return jr_err_set(
		    err, EINVAL,
		    "a URL is not an entry: write the host alone, with ':port' if needed, as in 'example.com:443'");
	if (strchr(text, '@'))
		return jr_err_set(
		    err, EINVAL,
		    "user information ('user@') is not part of a host; write the host alone");
	memcpy(buf, text, len + 1);
	memcpy(e->text, text, len + 1);

	if (buf[0] == '[')
		return parse_bracketed(buf, e, err);
	if (strchr(buf, ']'))
		return jr_err_set(
		    err, EINVAL,
		    "']' without '['; write an IPv6 address with a port as '[2001:db8::1]:443'");
	colon = strchr(buf, ':');
	if (colon && strchr(colon + 1, ':'))
		return parse_address(buf, AF_INET6, e, err);
	if (colon) {
		*colon = '\0';
		if (strchr(colon + 1, '/'))
			return jr_err_set(
			    err, EINVAL,
			    "a path is not part of a host: jailrun allows hosts, not URLs; write the host alone, as in 'example.com:443'");
		r = parse_port(colon + 1, &e->port, err);
		if (r < 0)
			return r;
	}
	return parse_host_part(buf, e, err);
}

/* ------------------------------------------------------------- storage */

void jr_policy_init(struct jr_policy *p)
{
	p->entries = NULL;
	p->n = 0;
	p->cap = 0;
	p->match_any = false;
	p->private_entries = NULL;
	p->n_private = 0;
	p->deny = NULL;
	p->http_rules = NULL;
}

void jr_policy_free(struct jr_policy *p)
{
	if (!p)
		return;
	free(p->entries);
	free(p->private_entries);
	jr_policy_init(p);
}

/* Room for one more entry, doubling; never past POLICY_MAX_ENTRIES. */
static int policy_reserve(struct jr_policy *p, struct jr_err *err)
{
	struct jr_allow_entry *grown;
	size_t cap;

	if (p->n < p->cap)
		return 0;
	if (p->n >= POLICY_MAX_ENTRIES)
		return jr_err_set(err, E2BIG,
				  "too many entries: at most %d are allowed",
				  POLICY_MAX_ENTRIES);
	cap = p->cap ? p->cap * 2 : 16;
	if (cap > POLICY_MAX_ENTRIES)
		cap = POLICY_MAX_ENTRIES;
	/* cap * size is bounded by POLICY_MAX_ENTRIES: no overflow. */
	grown = realloc(p->entries, cap * sizeof(*grown));
	if (!grown)
		return jr_err_set(err, ENOMEM, "out of memory for %zu entries",
				  cap);
	p->entries = grown;
	p->cap = cap;
	return 0;
}

/* Parse and append; the message says the rule, not yet the entry. */
static int policy_add_entry(struct jr_policy *p, const char *text,
			    struct jr_err *err)
{
	struct jr_allow_entry e;
	int r;

	r = parse_entry(text, &e, err);
	if (r < 0)
		return r;
	r = policy_reserve(p, err);
	if (r < 0)
		return r;
	p->entries[p->n++] = e;
	return 0;
}

/*
 * err_prefix_entry() - put "@origin'@entry': " in front of the rule an
 * entry broke, the entry quoted safely. @err may be NULL.
 */
static void err_prefix_entry(struct jr_err *err, const char *origin,
			     const char *entry)
{
	char shown[POLICY_SHOW_MAX + 8];

	if (!err)
		return;
	show_text(shown, sizeof(shown), entry);
	jr_err_prefix(err, "%s'%s': ", origin, shown);
}

int jr_policy_add(struct jr_policy *p, const char *entry, struct jr_err *err)
{
	int r;

	if (!p || !entry)
		return jr_err_set(err, EINVAL, "--allow: no entry given");
	r = policy_add_entry(p, entry, err);
	if (r < 0)
		err_prefix_entry(err, "--allow ", entry);
	return r;
}

/*
 * policy_add_line() - one line of an --allow-file: cut a '#' comment (no
 * entry can contain '#'), trim white space, skip what is left empty.
 * @line: mutable, @len bytes as getline(3) read them (a NUL inside is an
 *        error: the rest of the line would be silently ignored otherwise)
 */
static int policy_add_line(struct jr_policy *p, char *line, size_t len,
			   struct jr_err *err)
{
	static const char space[] = " \t\r\n\v\f";
	char *start, *hash, *end;
	int r;

	if (memchr(line, '\0', len))
		return jr_err_set(
		    err, EINVAL,
		    "a NUL byte in the line; is this a text file?");
	hash = strchr(line, '#');
	if (hash)
		*hash = '\0';
	start = line + strspn(line, space);
	end = start + strlen(start);
	while (end > start && strchr(space, end[-1]))
		*--end = '\0';
	if (*start == '\0')
		return 0;
	r = policy_add_entry(p, start, err);
	if (r < 0)
		err_prefix_entry(err, "", start);
	return r;
}

int jr_policy_add_file(struct jr_policy *p, const char *path,
		       struct jr_err *err)
{
	_cleanup_(fclosep) FILE *f = NULL;
	_cleanup_free_ char *line = NULL;
	char shown[POLICY_SHOW_MAX + 8];
	size_t cap = 0, n_before;
	unsigned long lineno = 0;
	ssize_t len;
	int r;

	if (!p || !path)
		return jr_err_set(err, EINVAL, "--allow-file: no file given");
	show_text(shown, sizeof(shown), path);
	f = fopen(path, "re");
	if (!f) {
		r = errno;
		return jr_err_set(err, r, "--allow-file '%s': %s", shown,
				  strerror(r));
	}
	/* All or nothing: a file that fails half-way adds no entries. */
	n_before = p->n;
	errno = 0;
	while ((len = getline(&line, &cap, f)) >= 0) {
		lineno++;
		r = policy_add_line(p, line, (size_t)len, err);
		if (r < 0) {
			p->n = n_before;
			if (err)
				jr_err_prefix(err, "%s:%lu: ", shown, lineno);
			return r;
		}
		errno = 0;
	}
	/* getline(3) returns -1 on end of file and on error alike. */
	if (ferror(f) || !feof(f)) {
		r = errno ? errno : EIO;
		p->n = n_before;
		return jr_err_set(err, r,
				  "--allow-file '%s': reading line %lu: %s",
				  shown, lineno + 1, strerror(r));
	}
	return 0;
}

/* ------------------------------------------------------------ matching */

/*
 * port_matches() - does an entry's port admit @port?
 * @entry_port: 0 for any
 * @port: 1..65535, 0 (never admitted), or POLICY_PORT_ANY
 */
static bool port_matches(uint16_t entry_port, int port)
{
	if (port == POLICY_PORT_ANY)
		return true;
	if (port == 0)
		return false;
	return entry_port == 0 || entry_port == port;
}

/*
 * name_matches() - does a HOST or WILDCARD entry match @name?
 * @name: valid by name_check(), @len its length
 *
 * A wildcard needs the suffix preceded by a dot and at least one more
 * character: "*.example.com" is never example.com itself, never
 * notexample.com (no dot), and never example.com.evil.com (not a suffix).
 */
static bool name_matches(const struct jr_allow_entry *e, const char *name,
			 size_t len)
{
	size_t slen;

	if (e->kind == JR_ALLOW_HOST)
		return strcmp(e->name, name) == 0;
	if (e->kind != JR_ALLOW_WILDCARD)
		return false;
	slen = strlen(e->name);
	return len > slen + 1 && name[len - slen - 1] == '.' &&
	       memcmp(name + len - slen, e->name, slen) == 0;
}

static bool addr_entry_contains(const struct jr_allow_entry *e,
				const struct policy_addr *a)
{
	return e->kind == JR_ALLOW_ADDR && e->family == a->family &&
	       prefix_contains(e->addr, e->prefix, a->bytes);
}

/*
 * policy_match_name() / policy_match_addr() - the first matching entry
 * decides; if entries match the destination but none its port, the
 * answer is JR_DENY_PORT, so the log says which knob to turn.
 */
static enum jr_deny_reason policy_match_name(const struct jr_policy *p,
					     const char *name, int port)
{
	size_t len = strlen(name);
	bool name_seen = false;

	for (size_t i = 0; i < p->n; i++) {
		if (!name_matches(&p->entries[i], name, len))
			continue;
		if (port_matches(p->entries[i].port, port))
			return JR_ALLOWED;
		name_seen = true;
	}
	return name_seen ? JR_DENY_PORT : JR_DENY_NOT_ALLOWED;
}

static enum jr_deny_reason policy_match_addr(const struct jr_policy *p,
					     const struct policy_addr *a,
					     int port)
{
	bool addr_seen = false;

	for (size_t i = 0; i < p->n; i++) {
		if (!addr_entry_contains(&p->entries[i], a))
			continue;
		if (port_matches(p->entries[i].port, port))
			return JR_ALLOWED;
		addr_seen = true;
	}
	return addr_seen ? JR_DENY_PORT : JR_DENY_NOT_ALLOWED;
}

/*
 * deny_matches_name() / deny_matches_addr() - does a managed deny entry
 * match? With POLICY_PORT_ANY (the DNS question "allowed on some port?")
 * only a deny of every port counts: "deny x:22" must not hide x from the
 * resolver when x:443 is allowed.
 */
static bool deny_port(uint16_t entry_port, int port)
{
	return port == POLICY_PORT_ANY ? entry_port == 0
				       : port_matches(entry_port, port);
}

static bool deny_matches_name(const struct jr_policy *deny, const char *name,
			      int port)
{
	size_t len = strlen(name);

	for (size_t i = 0; deny && i < deny->n; i++)
		if (name_matches(&deny->entries[i], name, len) &&
		    deny_port(deny->entries[i].port, port))
			return true;
	return false;
}

/*
 * deny_entry_for_addr() - the first deny entry matching @a (unwrapped) on
 * @port, or NULL. A 6to4 address (RFC 3056 2) also matches a deny of the
 * IPv4 end point it carries, where its packets are sent, as the guard
 * judges that end point (special_range_of()).
 */
static const struct jr_allow_entry *
deny_entry_for_addr(const struct jr_policy *deny, const struct policy_addr *a,
		    int port)
{
	struct policy_addr v4 = { .family = AF_INET };
	bool is_6to4 = a->family == AF_INET6 &&
		       memcmp(a->bytes, policy_6to4_prefix, 2) == 0;

	if (is_6to4)
		memcpy(v4.bytes, a->bytes + 2, 4);
	for (size_t i = 0; deny && i < deny->n; i++)
		if ((addr_entry_contains(&deny->entries[i], a) ||
		     (is_6to4 &&
		      addr_entry_contains(&deny->entries[i], &v4))) &&
		    deny_port(deny->entries[i].port, port))
			return &deny->entries[i];
	return NULL;
}

static bool deny_matches_addr(const struct jr_policy *deny,
			      const struct policy_addr *a, int port)
{
	return deny_entry_for_addr(deny, a, port) != NULL;
}

/*
 * policy_check_host() - jr_policy_check_name() with @port possibly
 * POLICY_PORT_ANY.
 */
static enum jr_deny_reason policy_check_host(const struct jr_policy *p,
					     const char *host, int port)
{
	char name[JR_HOST_MAX + 2]; /* a full-length name and its root dot */
	struct policy_addr a;
	size_t len;

	if (!p || !host)
		return JR_DENY_BAD_HOST;
	if (addr_parse_literal(host, &a)) {
		addr_unwrap_ipv4(&a);
		if (deny_matches_addr(p->deny, &a, port))
			return JR_DENY_MANAGED;
		if (p->match_any)
			return port == 0 ? JR_DENY_PORT : JR_ALLOWED;
		return policy_match_addr(p, &a, port);
	}
	len = strnlen(host, sizeof(name));
	if (len >= sizeof(name))
		return JR_DENY_BAD_HOST;
	memcpy(name, host, len + 1);
	jr_host_normalise(name);
	if (name[0] == '\0' || looks_numeric(name) ||
	    name_check(name, NULL) < 0)
		return JR_DENY_BAD_HOST;
	if (deny_matches_name(p->deny, name, port))
		return JR_DENY_MANAGED;
	if (p->match_any)
		return port == 0 ? JR_DENY_PORT : JR_ALLOWED;
	return policy_match_name(p, name, port);
}

enum jr_deny_reason jr_policy_check_name(const struct jr_policy *p,
					 const char *host, uint16_t port)
{
	return policy_check_host(p, host, port);
}

bool jr_policy_name_allowed(const struct jr_policy *p, const char *host)
{
	return policy_check_host(p, host, POLICY_PORT_ANY) == JR_ALLOWED;
}

enum jr_deny_reason jr_policy_name_verdict(const struct jr_policy *p,
					   const char *host)
{
	return policy_check_host(p, host, POLICY_PORT_ANY);
}

/* ------------------------------------------------------ address guard */

/* The narrowest range of the table that contains @a, or NULL. */
static const struct policy_special_range *
special_table_range_of(const struct policy_addr *a)
{
	const struct policy_special_range *best = NULL;

	for (size_t i = 0; i < ARRAY_SIZE(policy_special_ranges); i++) {
		const struct policy_special_range *r;

		r = &policy_special_ranges[i];
		if (r->family == a->family &&
		    prefix_contains(r->net, r->prefix, a->bytes) &&
		    (!best || r->prefix > best->prefix))
			best = r;
	}
	return best;
}

/*
 * special_range_of() - the narrowest special range that contains @a.
 * @out: filled when there is one
 *
 * The table's ranges, and for a 6to4 address (RFC 3056 2) whose embedded
 * IPv4 end point is special, that IPv4 range's 6to4 image: 2002: followed
 * by the IPv4 range, 16 bits longer (2002:a9fe::/32 for 169.254.0.0/16).
 * It does not lead to this host by definition (to_host false): a local
 * 6to4 address is opened only by an entry naming it exactly.
 * Return: whether @a is special.
 */
static bool special_range_of(const struct policy_addr *a,
			     struct policy_special_range *out)
{
	const struct policy_special_range *best = special_table_range_of(a);

	if (a->family == AF_INET6 &&
	    memcmp(a->bytes, policy_6to4_prefix, 2) == 0) {
		struct policy_addr v4 = { .family = AF_INET };
		const struct policy_special_range *r4;

		memcpy(v4.bytes, a->bytes + 2, 4);
		r4 = special_table_range_of(&v4);
		if (r4 && (!best || 16u + r4->prefix > best->prefix)) {
			memset(out, 0, sizeof(*out));
			out->family = AF_INET6;
			memcpy(out->net, policy_6to4_prefix, 2);
			memcpy(out->net + 2, r4->net, 4);
			out->prefix = (uint8_t)(16 + r4->prefix);
			out->to_host = false;
			return true;
		}
	}
	if (best)
		*out = *best;
	return best != NULL;
}

/* Is the entry's whole network inside @r? ("names it explicitly") */
static bool entry_inside_range(const struct jr_allow_entry *e,
			       const struct policy_special_range *r)
{
	return e->family == r->family && e->prefix >= r->prefix &&
	       prefix_contains(r->net, r->prefix, e->addr);
}

/*
 * addr_from_sockaddr() - copy the address out of @sa. Byte copies, so a
 * sockaddr inside a packed or odd-offset buffer is read without undefined
 * behaviour; only the family's own sockaddr length is read.
 */
static bool addr_from_sockaddr(const struct sockaddr *sa, struct policy_addr *a)
{
	const char *raw = (const char *)sa;
	sa_family_t family;

	memset(a, 0, sizeof(*a));
	if (!sa)
		return false;
	memcpy(&family, raw + offsetof(struct sockaddr, sa_family),
	       sizeof(family));
	if (family == AF_INET)
		memcpy(a->bytes, raw + offsetof(struct sockaddr_in, sin_addr),
		       4);
	else if (family == AF_INET6)
		memcpy(a->bytes, raw + offsetof(struct sockaddr_in6, sin6_addr),
		       16);
	else
		return false;
	a->family = family;
	return true;
}

/*
 * guard_entry() - the guard's @i-th entry: the allowlist's, then the
 * --allow-private ones (0 <= @i < p->n + p->n_private).
 */
static const struct jr_allow_entry *guard_entry(const struct jr_policy *p,
						size_t i)
{
	return i < p->n ? &p->entries[i] : &p->private_entries[i - p->n];
}

int jr_policy_parse_private(const char *text, struct jr_allow_entry *e,
			    struct jr_err *err)
{
	struct policy_special_range range;
	struct jr_allow_entry tmp;
	struct policy_addr a;
	int r;

	if (!e)
		e = &tmp;
	if (!text)
		return jr_err_set(err, EINVAL, "--allow-private: no value");
	r = parse_entry(text, e, err);
	if (r == 0 && e->kind != JR_ALLOW_ADDR)
		r = jr_err_set(
		    err, EINVAL,
		    "expected an address or CIDR such as 10.1.2.0/24 or fd00::/8 (a name is opened by the guard through its address)");
	if (r == 0 && e->prefix == 0)
		r = jr_err_set(
		    err, EINVAL,
		    "opening every address to the guard is not a private range; name the range you need, such as 10.0.0.0/8 or 192.168.1.0/24");
	if (r == 0 && e->prefix < addr_bits(e->family)) {
		a.family = e->family;
		memcpy(a.bytes, e->addr, sizeof(a.bytes));
		if (!special_range_of(&a, &range) ||
		    !entry_inside_range(e, &range))
			r = jr_err_set(
			    err, EINVAL,
			    "a range must lie inside one private or special range (10.0.0.0/8, 172.16.0.0/12, 192.168.0.0/16, 100.64.0.0/10, 127.0.0.0/8, 169.254.0.0/16, fc00::/7, fe80::/10, ...); addresses outside them need no opening");
	}
	if (r < 0)
		err_prefix_entry(err, "--allow-private ", text);
	return r;
}

int jr_policy_add_private(struct jr_policy *p, const char *text,
			  struct jr_err *err)
{
	struct jr_allow_entry e, *grown;
	int r;

	if (!p)
		return jr_err_set(err, EINVAL, "--allow-private: no policy");
	r = jr_policy_parse_private(text, &e, err);
	if (r < 0)
		return r;
	if (p->n_private >= POLICY_MAX_ENTRIES)
		return jr_err_set(err, E2BIG,
				  "--allow-private: at most %d are allowed",
				  POLICY_MAX_ENTRIES);
	/* One at a time: a handful of ranges, added once at start-up. */
	grown =
	    realloc(p->private_entries, (p->n_private + 1) * sizeof(*grown));
	if (!grown)
		return jr_err_set(err, ENOMEM, "out of memory");
	p->private_entries = grown;
	p->private_entries[p->n_private++] = e;
	return 0;
}

enum jr_deny_reason jr_policy_check_address(const struct jr_policy *p,
					    const struct sockaddr *sa,
					    uint16_t port)
{
	struct policy_special_range range;
	struct policy_addr a;
	bool addr_seen = false;

	if (!p || !addr_from_sockaddr(sa, &a))
		return JR_DENY_BAD_HOST;
	addr_unwrap_ipv4(&a);
	if (deny_matches_addr(p->deny, &a, port))
		return JR_DENY_MANAGED; /* a name resolved into a denied range */
	if (!special_range_of(&a, &range))
		return port == 0 ? JR_DENY_PORT : JR_ALLOWED;
	for (size_t i = 0; i < p->n + p->n_private; i++) {
		const struct jr_allow_entry *e = guard_entry(p, i);

		if (!addr_entry_contains(e, &a) ||
		    !entry_inside_range(e, &range))
			continue;
		if (port_matches(e->port, port))
			return JR_ALLOWED;
		addr_seen = true;
	}
	return addr_seen ? JR_DENY_PORT : JR_DENY_SPECIAL_ADDR;
}

enum jr_deny_reason jr_policy_check_local_address(const struct jr_policy *p,
						  const struct sockaddr *sa,
						  uint16_t port)
{
	struct policy_special_range range;
	struct policy_addr a;
	bool addr_seen = false, special;
	unsigned int full;

	if (!p || !addr_from_sockaddr(sa, &a))
		return JR_DENY_BAD_HOST;
	if (port == 0)
		return JR_DENY_PORT;
	addr_unwrap_ipv4(&a);
	full = a.family == AF_INET ? 32 : 128;
	special = special_range_of(&a, &range);
	for (size_t i = 0; i < p->n + p->n_private; i++) {
		const struct jr_allow_entry *e = guard_entry(p, i);
		bool names_it =
		    e->prefix == full ||
		    (special && range.to_host && entry_inside_range(e, &range));

		if (!addr_entry_contains(e, &a) || !names_it)
			continue;
		if (port_matches(e->port, port))
			return JR_ALLOWED;
		addr_seen = true;
	}
	return addr_seen ? JR_DENY_PORT : JR_DENY_LOCAL_ADDR;
}

const struct jr_allow_entry *
jr_policy_deny_address(const struct jr_policy *deny, const struct sockaddr *sa,
		       uint16_t port)
{
	struct policy_addr a;

	if (!deny || !addr_from_sockaddr(sa, &a))
		return NULL;
	addr_unwrap_ipv4(&a);
	return deny_entry_for_addr(deny, &a, port);
}

const char *jr_deny_reason_name(enum jr_deny_reason r)
{
	switch (r) {
	case JR_ALLOWED:
		return "allowed";
	case JR_DENY_NOT_ALLOWED:
		return "not-allowed";
	case JR_DENY_PORT:
		return "port-not-allowed";
	case JR_DENY_BAD_HOST:
		return "bad-host";
	case JR_DENY_SPECIAL_ADDR:
		return "special-address";
	case JR_DENY_LOCAL_ADDR:
		return "local-address";
	case JR_DENY_GUARD_FAILED:
		return "guard-failed";
	case JR_DENY_MANAGED:
		return "managed-deny";
	}
	return "unknown";
}
