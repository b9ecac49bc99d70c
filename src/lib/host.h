/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * host.h - the limits on a host name, in one place for every parser that
 * reads one (policy entries, HTTP authorities, TLS SNI, DNS questions) and
 * every buffer that holds one.
 */
#ifndef JR_HOST_H
#define JR_HOST_H

/*
 * RFC 1035 2.3.4: a name is at most 255 octets on the wire, each label
 * prefixed by its length and the whole ended by the root's zero octet;
 * that leaves 253 characters in the dotted text form without the trailing
 * dot. A buffer of JR_HOST_MAX + 1 holds any name jailrun accepts, and
 * any IPv6 literal (at most 45 characters), with its NUL.
 */
#define JR_HOST_MAX 253

/* RFC 1035 2.3.4: labels are 63 octets or less. */
#define JR_HOST_LABEL_MAX 63

#endif
