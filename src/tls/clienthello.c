// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * clienthello.c - the server name (SNI) of the TLS ClientHello a client opens a
 * CONNECT tunnel with. Pure: bytes in, a verdict out; no allocation, no
 * global state, so all of it is unit-tested and fuzzed.
 *
 * Theory of operation
 *
 * The relay allows "CONNECT H:443" by the name H. Behind one address,
 * though, a TLS front end (a CDN, a shared reverse proxy) picks the site by
 * the server_name the ClientHello carries, not by the name the client
 * resolved, so a tunnel to an allowed H could still reach any other tenant
 * of the same front end ("domain fronting" at the TLS layer). The relay
 * therefore reads the client's first bytes and, when they open a TLS
 * handshake, requires its host_name to be H. This file answers what those
 * bytes are: a ClientHello naming some host (SNI_FOUND), one naming none
 * (NO_SNI), something that is not TLS at all (NOT_TLS, the tunnel
 * proceeds: SSH or a plain protocol to an allowed host is not our
 * business), or something TLS-shaped that we cannot read with certainty
 * (MALFORMED). Every doubt is MALFORMED: the parser of the front end reads
 * the same bytes after us, and any leniency of ours that differs from its
 * leniency is a way to show us one name and it another.
 *
 * Telling TLS from the rest, from as few bytes as possible. A TLS stream
 * starts with a record header (RFC 8446 5.1): content type, then a
 * ProtocolVersion whose first byte is 3. So:
 *  - byte 0 below 0x80 and not a TLS content type: NOT_TLS at once. Every
 *    text protocol (HTTP, SSH, SMTP, ...) is decided on its first byte.
 *  - byte 0 = 22 (handshake), byte 1 = 3: TLS; anything wrong from here on
 *    is MALFORMED. Byte 1 other than 3: NOT_TLS.
 *  - byte 0 = 20, 21, 23 or 24 (change_cipher_spec, alert, application_data,
 *    heartbeat) and byte 1 = 3: MALFORMED, not NOT_TLS. A server may skip
 *    such a record before the ClientHello (OpenSSL ignores warning alerts
 *    in TLS 1.2 and below, TLS 1.3 middlebox compatibility drops
 *    change_cipher_spec, RFC 8446 D.4), and a hello behind it would then
 *    pass unchecked if we had let the stream through as "not TLS".
 *  - byte 0 with its top bit set may be the two-byte header of an SSL 2.0
 *    compatible CLIENT-HELLO (RFC 5246 E.2): msg_type 1 at byte 2, version
 *    {3,x} (or SSL 2.0's {0,2}) at bytes 3-4. That hello cannot carry
 *    extensions, hence no SNI, but servers may still take it to negotiate
 *    TLS 1.0-1.2: it is MALFORMED (fail closed), the rest of the top-bit
 *    bytes are NOT_TLS after at most five bytes. RFC 8446 D.5 forbids
 *    sending this hello and RFC 6176 SSL 2.0 itself, so no client we care
 *    about is refused by this.
 *
 * Records. A handshake record is type 22, a version 0x0301..0x0303 (what
 * TLS 1.0-1.3 clients send, RFC 5246 E.1 and RFC 8446 5.1; {3,0} means SSL
 * 3.0, prohibited by RFC 7568, and any later value is unused) and a length
 * of 1..2^14: plaintext records have no expansion allowance (RFC 8446 5.1,
 * RFC 5246 6.2.1), and handshake fragments may not be empty (RFC 8446 5.1).
 * The handshake message may be fragmented over any number of records, down
 * to one byte each, its 4-byte header included; the records must follow
 * each other with nothing else between them (RFC 8446 5.1), so a record of
 * another type before the hello is complete is MALFORMED. The hello must
 * end exactly at the end of a record: in TLS 1.3 the messages before a key
 * change must align with a record boundary (RFC 8446 5.1) and in TLS 1.2 a
 * client sends nothing more before the server answers, so bytes after the
 * hello inside its last record are MALFORMED. Only the first handshake
 * message is read, and it must be a client_hello (type 1, RFC 8446 4).
 *
 * The parser never copies the message together. It walks it with a cursor
 * that knows the current record and steps over record headers as it
 * reads, so every field, the name included, may straddle records; fields
 * it does not need (random, session id, cipher suites, other extensions)
 * are skipped without their bytes having arrived, only the record headers
 * inside them are read.
 *
 * The ClientHello (RFC 8446 4.1.2, RFC 5246 7.4.1.2): legacy_version
 * 0x0301..0x0303, 32 random bytes, a session id of 0..32 bytes, cipher
 * suites of even length >= 2, compression methods of length >= 1, then
 * either the end of the message (TLS 1.2 and below may omit extensions:
 * NO_SNI) or an extensions block whose length is exactly what is left.
 * Every length is checked against the one that encloses it before anything
 * is read under it. Every extension is walked, including those after the
 * server_name, and no type may occur twice (RFC 8446 4.2, RFC 5246
 * 7.4.1.4): a front end that reads the first of two server_name extensions
 * and a relay that reads the last would disagree, and a duplicate of any
 * other type is just as much an RFC violation. Contents other than
 * server_name are not judged.
 *
 * server_name (RFC 6066 3): a ServerNameList of exactly one entry, of type
 * host_name (0). RFC 6066 allows one name per type, but defines no other
 * type, and an entry of an unknown type has no length we could trust to
 * skip it (OpenSSL refuses such lists for the same reason). The name is
 * 1..253 bytes of [A-Za-z0-9.-] in labels of 1..63 bytes (RFC 1035 2.3.4),
 * returned lowercase (RFC 4343). RFC 6066 says the name has no trailing
 * dot; one trailing dot is nevertheless folded ("a.test." is returned as
 * "a.test"), as policy.c folds it: it is the same DNS name (RFC 1034 3.1),
 * and a client that writes it (OpenSSL passes it on verbatim) must not be
 * refused for a spelling. Two trailing dots are an empty label: MALFORMED.
 * A name that looks like an address is returned as it is: RFC 6066
 * forbids it, but the relay's comparison with H decides, and an address
 * H matches only its own spelling.
 *
 * Prefixes. The relay calls again with more bytes while the answer is
 * NEED_MORE, and the parser starts over each time (no state). It reads
 * strictly in stream order, and every decision depends only on the bytes
 * read before it, so a prefix is answered NEED_MORE or with the verdict of
 * the whole stream, never another one. SNI_FOUND and NO_SNI wait until
 * every byte of the hello has arrived. The JR_TLS_HELLO_MAX limit is
 * checked against stream positions, not against @len: a hello whose
 * records would end beyond it is MALFORMED as soon as a record header or
 * the handshake length says so, and NEED_MORE is never the answer once
 * JR_TLS_HELLO_MAX bytes are in.
 *
 * Cost. A call is linear in the bytes it reads, so calling after every
 * read of a client that trickles its hello a byte at a time would be
 * quadratic. On NEED_MORE, @consumed therefore says how many bytes the
 * stream must hold at least before the hello can be complete: the end of
 * the current record plus what the handshake length still wants, with a
 * record header per 2^14 bytes. Before that length the answer can only
 * stay NEED_MORE or become MALFORMED, so a caller that waits for it loses
 * nothing but an earlier MALFORMED, and a hello sent in one-byte records
 * costs a few dozen parses instead of one per read. Before the first
 * record header is complete the hint is simply @len + 1, so that NOT_TLS is
 * never delayed.
 */

#include <stdbool.h>

#include "host.h"
#include "clienthello.h"

/* RFC 8446 5.1: ContentType, ProtocolVersion, uint16 length. */
#define TLS_RECORD_HEADER 5
/* RFC 8446 5.1, RFC 5246 6.2.1: a TLSPlaintext fragment is at most 2^14. */
#define TLS_RECORD_MAX 16384
/* RFC 8446 4: HandshakeType msg_type, uint24 length. */
#define TLS_HANDSHAKE_HEADER 4
/*
 * The shortest ClientHello body: version 2, random 32, session id length 1,
 * cipher suites 2 + 2, compression methods 1 + 1, no extensions.
 */
#define TLS_HELLO_BODY_MIN 41

enum tls_content_type {
	TLS_CT_CHANGE_CIPHER_SPEC = 20,
	TLS_CT_ALERT = 21,
	TLS_CT_HANDSHAKE = 22,
	TLS_CT_APPLICATION_DATA = 23,
	TLS_CT_HEARTBEAT = 24, /* RFC 6520 */
};

#define TLS_HT_CLIENT_HELLO 1  /* RFC 8446 4 */
#define TLS_EXT_SERVER_NAME 0  /* RFC 6066 1.1 */
#define TLS_NAME_TYPE_HOST 0   /* RFC 6066 3 */
#define TLS_SESSION_ID_MAX 32  /* RFC 8446 4.1.2 legacy_session_id<0..32> */
#define SSL2_MT_CLIENT_HELLO 1 /* RFC 5246 E.2 */

enum step {
	STEP_OK,
	STEP_MORE, /* a byte the buffer does not hold yet */
	STEP_BAD,  /* MALFORMED */
};

/*
 * The reading position in the handshake message, over the records that
 * carry it. Only record payload bytes count as handshake bytes.
 */
struct hello_cursor {
	const uint8_t *buf;
	size_t len;
	size_t pos;	 /* stream offset of the next payload byte or, when
			    rec_left is 0, of the next record header */
	size_t rec_left; /* payload bytes of the current record not read */
	size_t hs_off;	 /* handshake bytes read (or skipped) so far */
	size_t hs_end;	 /* 4 + the handshake length; 0 until it is read */
	size_t want;	 /* on STEP_MORE: the stream length needed to go on */
};

/*
 * fetch - the stream byte at @p.
 *
 * Return: STEP_OK; STEP_BAD when @p is at or past JR_TLS_HELLO_MAX (the
 * hello would need more than the limit, whatever comes: fits() already
 * refuses every record layout that would get here, so this only keeps
 * the promise that NEED_MORE never follows JR_TLS_HELLO_MAX bytes local);
 * STEP_MORE, with c->want set, when the buffer ends before @p.
 */
static enum step fetch(struct hello_cursor *c, size_t p, uint8_t *b)
{
	if (p >= JR_TLS_HELLO_MAX)
		return STEP_BAD;
	if (p >= c->len) {
		c->want = p + 1;
		return STEP_MORE;
	}
	*b = c->buf[p];
	return STEP_OK;
}

/*
 * min_total - the least stream length a complete hello could take, given
 * the records and the handshake length read so far: the end of the
 * current record plus the handshake bytes still missing, each 2^14 of them
 * behind a record header of their own.
 */
static size_t min_total(const struct hello_cursor *c)
{
	size_t covered = c->hs_off + c->rec_left, rest, end;

	if (c->hs_end) /* fits() keeps covered <= hs_end */
		rest = c->hs_end - covered;
	else if (covered < TLS_HANDSHAKE_HEADER + TLS_HELLO_BODY_MIN)
		rest = TLS_HANDSHAKE_HEADER + TLS_HELLO_BODY_MIN - covered;
	else
		rest = 0; /* the hello might end with this record */
	end = c->pos + c->rec_left;
	if (!rest)
		return end;
	return end + rest +
	       TLS_RECORD_HEADER *
		   ((rest + TLS_RECORD_MAX - 1) / TLS_RECORD_MAX);
}

/*
 * fits - whether the records read so far leave room for the hello to end
 * within JR_TLS_HELLO_MAX and at a record boundary.
 *
 * Return: STEP_OK or STEP_BAD.
 */
static enum step fits(const struct hello_cursor *c)
{
	/* a record that runs past the end of the message (RFC 8446 5.1) */
	if (c->hs_end && c->hs_off + c->rec_left > c->hs_end)
		return STEP_BAD;
	return min_total(c) > JR_TLS_HELLO_MAX ? STEP_BAD : STEP_OK;
}

/*
 * next_record - read the header of the record at c->pos, which must carry
 * the next fragment of the handshake message (RFC 8446 5.1).
 *
 * Each byte is judged as it is read, so a wrong type or version is
 * MALFORMED before the rest of the header has arrived.
 *
 * Return: STEP_OK with c->rec_left set, STEP_MORE or STEP_BAD.
 */
static enum step next_record(struct hello_cursor *c)
{
	uint8_t h[TLS_RECORD_HEADER];
	size_t i, n;

	for (i = 0; i < TLS_RECORD_HEADER; i++) {
		enum step r = fetch(c, c->pos + i, &h[i]);

		if (r != STEP_OK)
			return r;
		if ((i == 0 && h[0] != TLS_CT_HANDSHAKE) ||
		    (i == 1 && h[1] != 3) || (i == 2 && (h[2] < 1 || h[2] > 3)))
			return STEP_BAD;
	}
	n = (size_t)h[3] << 8 | h[4];
	if (n == 0 || n > TLS_RECORD_MAX)
		return STEP_BAD;
	c->pos += TLS_RECORD_HEADER;
	c->rec_left = n;
	return fits(c);
}

/*
 * hs_byte - read the next handshake byte, crossing into the next record
 * when the current one is used up. The caller has checked that the byte
 * lies inside the message.
 */
static enum step hs_byte(struct hello_cursor *c, uint8_t *b)
{
	enum step r;

	if (!c->rec_left) {
		r = next_record(c);
		if (r != STEP_OK)
			return r;
	}
	r = fetch(c, c->pos, b);
	if (r != STEP_OK)
		return r;
	c->pos++;
	c->rec_left--;
	c->hs_off++;
	return STEP_OK;
}

/* hs_uint - read an @n-byte (n <= 3) big-endian integer. */
static enum step hs_uint(struct hello_cursor *c, size_t n, size_t *v)
{
	uint8_t b = 0;

	*v = 0;
	while (n--) {
		enum step r = hs_byte(c, &b);

		if (r != STEP_OK)
			return r;
		*v = *v << 8 | b;
	}
	return STEP_OK;
}

/*
 * hs_skip - step over @n handshake bytes. Their payload need not have
 * arrived; the headers of the records they span must.
 */
static enum step hs_skip(struct hello_cursor *c, size_t n)
{
	while (n) {
		size_t take;

		if (!c->rec_left) {
			enum step r = next_record(c);

			if (r != STEP_OK)
				return r;
		}
		take = n < c->rec_left ? n : c->rec_left;
		c->pos += take;
		c->rec_left -= take;
		c->hs_off += take;
		n -= take;
	}
	return STEP_OK;
}

/* Bytes of the message left to read before @end. */
static size_t left(const struct hello_cursor *c, size_t end)
{
	return end - c->hs_off;
}

/*
 * read_vector - read the @lsize-byte length of a vector that must fit in
 * what is left before @end, and check it against [@min, @max].
 */
static enum step read_vector(struct hello_cursor *c, size_t lsize, size_t end,
			     size_t min, size_t max, size_t *n)
{
	enum step r;

	if (left(c, end) < lsize)
		return STEP_BAD;
	r = hs_uint(c, lsize, n);
	if (r != STEP_OK)
		return r;
	if (*n < min || *n > max || *n > left(c, end))
		return STEP_BAD;
	return STEP_OK;
}

static bool is_name_byte(uint8_t b)
{
	return (b >= 'a' && b <= 'z') || (b >= 'A' && b <= 'Z') ||
	       (b >= '0' && b <= '9') || b == '-';
}

/*
 * read_host_name - read a HostName of @n bytes into @sni, lowercase,
 * without one trailing dot, NUL-terminated.
 *
 * Return: STEP_OK, STEP_MORE, or STEP_BAD for a byte outside
 * [A-Za-z0-9.-], an empty or over-long label or name, or a name that does
 * not fit in @sni_size bytes with its NUL (never truncated: a cut name
 * could equal an allowed one).
 */
static enum step read_host_name(struct hello_cursor *c, size_t n, char *sni,
				size_t sni_size)
{
	size_t i, label = 0, out;
	uint8_t b = 0;

	if (n == 0 || n > JR_HOST_MAX + 1)
		return STEP_BAD;
	for (i = 0; i < n; i++) {
		enum step r = hs_byte(c, &b);

		if (r != STEP_OK)
			return r;
		if (b == '.') {
			if (!label) /* leading dot, "..", or "." alone */
				return STEP_BAD;
			label = 0;
		} else if (!is_name_byte(b) || ++label > JR_HOST_LABEL_MAX) {
			return STEP_BAD;
		}
		if (i + 1 < sni_size)
			sni[i] =
			    (b >= 'A' && b <= 'Z') ? (char)(b | 0x20) : (char)b;
	}
	out = b == '.' ? n - 1 : n; /* fold one trailing dot */
	if (out > JR_HOST_MAX || out >= sni_size)
		return STEP_BAD;
	sni[out] = '\0';
	return STEP_OK;
}

/*
 * read_server_name - the extension_data of server_name, @n bytes
 * (RFC 6066 3): a ServerNameList holding exactly one host_name.
 */
static enum step read_server_name(struct hello_cursor *c, size_t n, char *sni,
				  size_t sni_size)
{
	size_t end = c->hs_off + n, list, name_len, type;
	enum step r;

	/* server_name_list<1..2^16-1>, filling the extension exactly */
	r = read_vector(c, 2, end, 1, SIZE_MAX, &list);
	if (r != STEP_OK)
		return r;
	if (list != left(c, end))
		return STEP_BAD;
	r = hs_uint(c, 1, &type);
	if (r != STEP_OK)
		return r;
	if (type != TLS_NAME_TYPE_HOST)
		return STEP_BAD;
	/* HostName<1..2^16-1>, and nothing after it: one entry only */
	r = read_vector(c, 2, end, 1, SIZE_MAX, &name_len);
	if (r != STEP_OK)
		return r;
	if (name_len != left(c, end))
		return STEP_BAD;
	return read_host_name(c, name_len, sni, sni_size);
}

/*
 * read_extensions - walk the extensions block up to @end (RFC 8446 4.2).
 * @found: set when a server_name was read into @sni
 */
static enum step read_extensions(struct hello_cursor *c, size_t end, char *sni,
				 size_t sni_size, bool *found)
{
	uint64_t seen[65536 / 64] = { 0 }; /* a bit per extension type */

	while (left(c, end)) {
		size_t type, n;
		enum step r;

		if (left(c, end) < 4)
			return STEP_BAD;
		r = hs_uint(c, 2, &type);
		if (r != STEP_OK)
			return r;
		if (seen[type / 64] & (UINT64_C(1) << (type % 64)))
			return STEP_BAD; /* one extension per type */
		seen[type / 64] |= UINT64_C(1) << (type % 64);
		r = read_vector(c, 2, end, 0, SIZE_MAX, &n);
		if (r != STEP_OK)
			return r;
		if (type == TLS_EXT_SERVER_NAME) {
			r = read_server_name(c, n, sni, sni_size);
			*found = r == STEP_OK;
		} else {
			r = hs_skip(c, n);
		}
		if (r != STEP_OK)
			return r;
	}
	return STEP_OK;
}

/*
 * read_client_hello - the handshake message, from its header to its end.
 * @found: set when a server_name was read into @sni
 */
static enum step read_client_hello(struct hello_cursor *c, char *sni,
				   size_t sni_size, bool *found)
{
	size_t type, v, n, end;
	enum step r;

	r = hs_uint(c, 1, &type);
	if (r != STEP_OK)
		return r;
	if (type != TLS_HT_CLIENT_HELLO)
		return STEP_BAD;
	r = hs_uint(c, 3, &n);
	if (r != STEP_OK)
		return r;
	if (n < TLS_HELLO_BODY_MIN)
		return STEP_BAD;
	end = c->hs_end = TLS_HANDSHAKE_HEADER + n;
	r = fits(c);
	if (r != STEP_OK)
		return r;

	if (left(c, end) < 2 + 32) /* legacy_version, random */
		return STEP_BAD;
	r = hs_uint(c, 2, &v);
	if (r != STEP_OK)
		return r;
	if (v < 0x0301 || v > 0x0303)
		return STEP_BAD;
	r = hs_skip(c, 32);
	if (r != STEP_OK)
		return r;
	/* legacy_session_id<0..32> */
	r = read_vector(c, 1, end, 0, TLS_SESSION_ID_MAX, &n);
	if (r == STEP_OK)
		r = hs_skip(c, n);
	if (r != STEP_OK)
		return r;
	/* cipher_suites<2..2^16-2>, two bytes each */
	r = read_vector(c, 2, end, 2, SIZE_MAX, &n);
	if (r == STEP_OK && n % 2)
		r = STEP_BAD;
	if (r == STEP_OK)
		r = hs_skip(c, n);
	if (r != STEP_OK)
		return r;
	/* legacy_compression_methods<1..2^8-1> */
	r = read_vector(c, 1, end, 1, SIZE_MAX, &n);
	if (r == STEP_OK)
		r = hs_skip(c, n);
	if (r != STEP_OK)
		return r;
	/* no extensions at all: allowed up to TLS 1.2 (RFC 5246 7.4.1.2) */
	if (!left(c, end))
		return STEP_OK;
	r = read_vector(c, 2, end, 0, SIZE_MAX, &n);
	if (r != STEP_OK)
		return r;
	if (n != left(c, end))
		return STEP_BAD;
	return read_extensions(c, end, sni, sni_size, found);
}

/*
 * sniff - decide from the first bytes whether the stream is TLS at all.
 * @verdict: the answer when the stream does not open a handshake record
 * @want: on JR_TLS_NEED_MORE, the length needed to decide
 *
 * Return: true when the stream opens with a handshake record (type 22,
 * version {3,x}): read on. Otherwise false, with @verdict JR_TLS_NEED_MORE,
 * JR_TLS_NOT_TLS, or JR_TLS_MALFORMED for a TLS record of another type or
 * an SSL 2.0 compatible hello.
 */
static bool sniff(const uint8_t *buf, size_t len, enum jr_tls_sni *verdict,
		  size_t *want)
{
	*verdict = JR_TLS_NEED_MORE;
	if (len < 1) {
		*want = 1;
		return false;
	}
	switch (buf[0]) {
	case TLS_CT_HANDSHAKE:
	case TLS_CT_CHANGE_CIPHER_SPEC:
	case TLS_CT_ALERT:
	case TLS_CT_APPLICATION_DATA:
	case TLS_CT_HEARTBEAT:
		if (len < 2) {
			*want = 2;
			return false;
		}
		if (buf[1] != 3) {
			*verdict = JR_TLS_NOT_TLS;
			return false;
		}
		if (buf[0] == TLS_CT_HANDSHAKE)
			return true;
		*verdict = JR_TLS_MALFORMED;
		return false;
	default:
		break;
	}
	*verdict = JR_TLS_NOT_TLS;
	if (!(buf[0] & 0x80))
		return false;
	/* SSL 2.0 record header: length (top bit set), msg_type, version */
	if (len < 3 || (buf[2] == SSL2_MT_CLIENT_HELLO && len < 4) ||
	    (buf[2] == SSL2_MT_CLIENT_HELLO && buf[3] == 0 && len < 5)) {
		*verdict = JR_TLS_NEED_MORE;
		*want = len + 1;
		return false;
	}
	if (buf[2] == SSL2_MT_CLIENT_HELLO &&
	    (buf[3] == 3 || (buf[3] == 0 && buf[4] == 2)))
		*verdict = JR_TLS_MALFORMED;
	return false;
}

enum jr_tls_sni jr_tls_client_hello_sni(const uint8_t *buf, size_t len,
					char *sni, size_t sni_size,
					size_t *consumed)
{
	struct hello_cursor c = { .buf = buf, .len = len };
	enum jr_tls_sni verdict;
	bool found = false;
	size_t want = 0;
	enum step r;

	if (consumed)
		*consumed = 0;
	if (!sni)
		sni_size = 0; /* no room: a name found is MALFORMED */
	if (sni_size)
		sni[0] = '\0';
	if (!sniff(buf, len, &verdict, &want)) {
		if (verdict == JR_TLS_NEED_MORE && consumed)
			*consumed = want;
		return verdict;
	}

	r = read_client_hello(&c, sni, sni_size, &found);
	/* the hello ends at a record boundary, and every byte of it is in */
	if (r == STEP_OK && c.rec_left)
		r = STEP_BAD;
	if (r == STEP_OK && c.pos > len) {
		c.want = c.pos;
		r = STEP_MORE;
	}
	if (r != STEP_OK && sni_size)
		sni[0] = '\0';
	switch (r) {
	case STEP_OK:
		if (consumed)
			*consumed = c.pos;
		return found ? JR_TLS_SNI_FOUND : JR_TLS_NO_SNI;
	case STEP_MORE:
		if (consumed) {
			/*
			 * Until the first record header is complete, the
			 * next byte may still make it MALFORMED at once.
			 */
			want = c.want;
			if (c.pos >= TLS_RECORD_HEADER && min_total(&c) > want)
				want = min_total(&c);
			*consumed = want;
		}
		return JR_TLS_NEED_MORE;
	case STEP_BAD:
	default:
		return JR_TLS_MALFORMED;
	}
}
