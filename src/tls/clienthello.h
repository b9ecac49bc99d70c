/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * clienthello.h - reading the server name (SNI) out of a TLS ClientHello, so the
 * relay can check that a CONNECT tunnel to an allowed host really carries
 * TLS for that host. Pure: bytes in, a verdict out.
 */
#ifndef JR_CLIENTHELLO_H
#define JR_CLIENTHELLO_H

#include <stddef.h>
#include <stdint.h>

/*
 * The most client bytes the relay buffers while looking for the SNI: a
 * ClientHello whose records (headers included) take more is MALFORMED.
 */
#define JR_TLS_HELLO_MAX 65536

enum jr_tls_sni {
	JR_TLS_NEED_MORE = 0, /* a ClientHello so far: feed more bytes */
	JR_TLS_SNI_FOUND,     /* complete ClientHello with a host_name SNI */
	JR_TLS_NO_SNI,	      /* complete ClientHello without server_name */
	JR_TLS_NOT_TLS,	      /* the first bytes are not a TLS record */
	JR_TLS_MALFORMED,     /* looks like TLS, but broken or over the limit */
};

/*
 * jr_tls_client_hello_sni - examine the first @len bytes a client sent.
 * @buf/@len: the stream from its start (all bytes received so far)
 * @sni/@sni_size: receives the host_name, lowercase, without a trailing
 *                 dot, NUL-terminated, when JR_TLS_SNI_FOUND; "" otherwise.
 *                 Names are at most JR_HOST_MAX bytes, so JR_HOST_MAX + 1
 *                 always do; a
 *                 name that does not fit is JR_TLS_MALFORMED, never cut.
 *                 @sni may be NULL (no room) when no name is wanted.
 * @consumed: may be NULL. On JR_TLS_SNI_FOUND and JR_TLS_NO_SNI, the number
 *            of bytes the complete ClientHello took, records included
 *            (<= @len; what follows belongs to the tunnel). On
 *            JR_TLS_NEED_MORE, a length > @len below which the hello cannot
 *            be complete: calling again with fewer bytes can only answer
 *            JR_TLS_NEED_MORE or JR_TLS_MALFORMED, so the caller may wait
 *            for that many (@len + 1 while the stream may still turn out
 *            not to be TLS). 0 on JR_TLS_NOT_TLS and JR_TLS_MALFORMED.
 *
 * The ClientHello handshake message may be split over several TLS records
 * (RFC 8446 5.1) and the records over several reads: the caller calls again
 * with more bytes while the result is JR_TLS_NEED_MORE. A prefix of the
 * stream is answered JR_TLS_NEED_MORE or with the answer for the whole
 * stream, never another one; JR_TLS_NEED_MORE is never the answer once
 * @len >= JR_TLS_HELLO_MAX.
 *
 * JR_TLS_NOT_TLS is decided from the first byte for every byte below 0x80
 * other than the TLS content types 20..24, from the second byte (not 3)
 * for those, and from at most five bytes for bytes 0x80 and up (the SSL
 * 2.0 header). A TLS record of a type other than handshake first, and an
 * SSL 2.0 compatible CLIENT-HELLO, are JR_TLS_MALFORMED: servers may
 * accept what follows them, unchecked.
 *
 * Fail closed: any inconsistency (lengths that do not add up, a record
 * version other than 0x0301..0x0303, a record of another content type
 * before the hello is complete, bytes after the hello in its last record,
 * a handshake message other than client_hello, an extension type present
 * twice, a server_name list that is not exactly one host_name, an empty
 * or over-long name or label, bytes outside [A-Za-z0-9.-] in the name,
 * more than JR_TLS_HELLO_MAX bytes) is JR_TLS_MALFORMED. See clienthello.c.
 */
enum jr_tls_sni jr_tls_client_hello_sni(const uint8_t *buf, size_t len,
					char *sni, size_t sni_size,
					size_t *consumed);

#endif
