// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * tls_inspect.c - TLS inspection: the sandbox's own CA, leaf certificates
 * per name, and the request loop between a decrypted client and a
 * verified upstream. With tls_sessions.c (the upstream session cache),
 * the only file that includes OpenSSL.
 *
 * Theory of operation
 *
 * Which connections: only a CONNECT whose host is bound to a --secret or
 * named by --inspect (jr_secrets_inspects()). The relay does everything it
 * does for any CONNECT first (policy, resolver, SSRF guard, connect to the
 * guarded address), and only then, instead of "200" and a splice tunnel,
 * hands both descriptors to jr_inspect_handoff() (relay_inspect.c). Every
 * other connection keeps the splice path byte for byte.
 *
 * Threads, not the relay's epoll loop: each inspected connection gets a
 * thread of its own with blocking sockets (bounded by SO_RCVTIMEO and
 * SO_SNDTIMEO: the idle timeout). Why: inspection is CPU work (a leaf
 * signature, two handshakes, AES both ways) that would stall every other
 * connection of the one relay thread; and a non-blocking design needs a
 * state machine over two SSL objects whose WANT_READ/WANT_WRITE cross
 * (a client write can need an upstream read first), which is where such
 * code goes wrong. Inspected hosts are few (the API a key belongs to), so
 * a thread each (256 KiB stack, JR_INSPECT_CONNS_MAX at once) is cheap.
 * The splice path does not change at all.
 *
 * One request per inspected connection, as on the proxy's plain-HTTP
 * path: the request head is parsed by http.c (the origin-form target is
 * put behind "http://HOST" so the proxy's parser, its refusals and its
 * body framing apply unchanged: Host is written from the CONNECT host,
 * hop-by-hop fields dropped, "Connection: close" to the upstream), the
 * placeholders are swapped (secrets.c), exactly the body is forwarded,
 * and the response is relayed with "Connection: close" until the upstream
 * closes. Clients open a new connection for the next request. A client
 * that sent bytes before our "200" (a ClientHello racing the answer) is
 * refused: nothing it sent early could be fed to the handshake.
 *
 * The CA: EC P-256, made in memory at start, valid from five minutes ago
 * (clocks) to the sandbox's --timeout plus a day, or 30 days; basic
 * constraints CA:TRUE, pathlen 0. Its key is never written anywhere: it
 * lives in OpenSSL's heap of the runner, a process nothing in the sandbox
 * can read (another PID and user namespace, no ptrace). Leaves share one
 * P-256 key, so minting is one signature; they are cached by name
 * (JR_INSPECT_LEAF_CACHE, least recently used out).
 *
 * Upstream: verified against --upstream-ca FILE, or the host's default
 * store, with the host name checked (SSL_set1_host, or the address for a
 * literal). A failure answers 502 with OpenSSL's verification error inside
 * the client's TLS: never a downgrade to an unverified connection.
 * Sessions the upstream gives are kept per host and port (tls_sessions.c)
 * and offered on the next connection there: a resumed handshake skips the
 * key exchange and the chain (the larger part of inspection's cost per
 * connection). Its verification is the one the session was made with; the
 * host name is checked against the session's certificate again.
 * Toward the client: TLS 1.2 and 1.3, ALPN http/1.1 only (a client that
 * offers h2 gets http/1.1, or no ALPN and speaks HTTP/1.1 anyway).
 */
#include <arpa/inet.h>
#include <errno.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/socket.h>
#include <sys/time.h>
#include <time.h>
#include <unistd.h>

#include <openssl/bio.h>
#include <openssl/err.h>
#include <openssl/evp.h>
#include <openssl/pem.h>
#include <openssl/rand.h>
#include <openssl/ssl.h>
#include <openssl/x509.h>
#include <openssl/x509v3.h>
/* After OpenSSL's headers: its calls go through the loaded pointers. */
#include "openssl_lazy.h"

#include "cleanup.h"
#include "clock.h"
#include "host.h"
#include "http.h"
#include "httprules.h"
#include "io.h"
#include "log.h"
#include "tls_inspect.h"
#include "tls_sessions.h"

#define INSPECT_BUF 16384
#define INSPECT_STACK (256 * 1024)
#define CA_MARGIN_S (24 * 3600)
#define CA_DEFAULT_S (30 * 24 * 3600)
#define CLOCK_SKEW_S 300

struct leaf {
	char host[JR_HOST_MAX + 1];
	X509 *cert;
	uint64_t used;
};

enum slot_state { SLOT_FREE = 0, SLOT_RUNNING, SLOT_DONE };

struct inspect_conn {
	struct jr_inspect *in;
	enum slot_state st;
	pthread_t thread;
	int cfd, ufd;
	char host[JR_HOST_MAX + 1];
	char addr[INET6_ADDRSTRLEN];
	uint16_t port;
	uint64_t id;
	bool captured; /* transparent: no CONNECT to answer */
	char *early;   /* client bytes read before the handoff */
	size_t early_len;
	SSL *us;	  /* the upstream TLS, started early; NULL: failed */
	bool offered;	  /* a cached session was offered to the upstream */
	char up_why[256]; /* why it failed, for the 502 */
	/* Cut by jr_inspect_cut() (a live remove --close): its audit line
	 * says so. Set under in->lock, read by the connection's thread. */
	atomic_bool cut;
	/* Where the time goes (-vv, bench/run): jr_clock_us() at each step. */
	struct {
		uint64_t handoff, thread, accepted, upstream, head, answer;
		uint64_t cpu_accept; /* this thread's CPU time in SSL_accept */
	} t;
};

struct jr_inspect {
	struct jr_inspect_config cfg;
	EVP_PKEY *ca_key, *leaf_key;
	X509 *ca;
	char *ca_pem;
	time_t not_after;
	SSL_CTX *server, *client;
	/* Upstream sessions, for the client context (its trust) only. */
	struct jr_tls_sessions *sessions;
	pthread_mutex_t lock; /* leaves, conns */
	struct leaf leaves[JR_INSPECT_LEAF_CACHE];
	uint64_t tick;
	struct inspect_conn conns[JR_INSPECT_CONNS_MAX];
	bool stopping;
};

/* ------------------------------------------------------------ certificates */

static EVP_PKEY *p256_key(void)
{
	return EVP_EC_gen("P-256");
}

static int random_serial(X509 *x)
{
	unsigned char b[16];
	BIGNUM *bn;
	int ok;

	if (RAND_bytes(b, sizeof(b)) != 1)
		return -1;
	b[0] &= 0x7f; /* positive (RFC 5280 4.1.2.2) */
	bn = BN_bin2bn(b, sizeof(b), NULL);
	ok = bn && BN_to_ASN1_INTEGER(bn, X509_get_serialNumber(x)) != NULL;
	BN_free(bn);
	return ok ? 0 : -1;
}

static int add_ext(X509 *cert, X509 *issuer, int nid, const char *value)
{
	X509V3_CTX ctx;
	X509_EXTENSION *ex;
	int ok;

	X509V3_set_ctx_nodb(&ctx);
	X509V3_set_ctx(&ctx, issuer, cert, NULL, NULL, 0);
	ex = X509V3_EXT_conf_nid(NULL, &ctx, nid, value);
	if (!ex)
		return -1;
	ok = X509_add_ext(cert, ex, -1);
	X509_EXTENSION_free(ex);
	return ok ? 0 : -1;
}

static int make_ca(struct jr_inspect *in, struct jr_err *err)
{
	time_t now = time(NULL);
	uint64_t life = in->cfg.lifetime_ms
			    ? in->cfg.lifetime_ms / 1000 + CA_MARGIN_S
			    : CA_DEFAULT_S;
	unsigned char rnd[6];
	char cn[64];
	X509_NAME *name;
	X509 *x;

	in->ca_key = p256_key();
	in->leaf_key = p256_key();
	x = X509_new();
	if (!in->ca_key || !in->leaf_key || !x)
		goto fail;
	in->ca = x;
	if (RAND_bytes(rnd, sizeof(rnd)) != 1)
		goto fail;
	snprintf(cn, sizeof(cn), "jailrun sandbox CA %02x%02x%02x%02x%02x%02x",
		 rnd[0], rnd[1], rnd[2], rnd[3], rnd[4], rnd[5]);
	in->not_after = now + (time_t)life;
	if (!X509_set_version(x, 2) || random_serial(x) < 0 ||
	    !X509_time_adj_ex(X509_getm_notBefore(x), 0, -CLOCK_SKEW_S, &now) ||
	    !X509_time_adj_ex(X509_getm_notAfter(x), 0, (long)life, &now) ||
	    !X509_set_pubkey(x, in->ca_key))
		goto fail;
	name = X509_get_subject_name(x);
	if (!X509_NAME_add_entry_by_txt(name, "O", MBSTRING_ASC,
					(const unsigned char *)"jailrun", -1,
					-1, 0) ||
	    !X509_NAME_add_entry_by_txt(name, "CN", MBSTRING_ASC,
					(const unsigned char *)cn, -1, -1, 0) ||
	    !X509_set_issuer_name(x, name))
		goto fail;
	if (add_ext(x, x, NID_basic_constraints, "critical,CA:TRUE,pathlen:0") <
		0 ||
	    add_ext(x, x, NID_key_usage, "critical,keyCertSign,cRLSign") < 0 ||
	    add_ext(x, x, NID_subject_key_identifier, "hash") < 0 ||
	    add_ext(x, x, NID_authority_key_identifier, "keyid:always") < 0)
		goto fail;
	if (!X509_sign(x, in->ca_key, EVP_sha256()))
		goto fail;
	{
		BIO *b = BIO_new(BIO_s_mem());
		char *p;
		long n;

		if (!b || !PEM_write_bio_X509(b, x)) {
			BIO_free(b);
			goto fail;
		}
		n = BIO_get_mem_data(b, &p);
		in->ca_pem = strndup(p, (size_t)n);
		BIO_free(b);
		if (!in->ca_pem)
			goto fail;
	}
	return 0;
fail:
	return jr_err_set(
	    err, EIO, "cannot make the sandbox's inspection CA: %s",
	    ERR_reason_error_string(ERR_get_error()) ?: "OpenSSL error");
}

/* Mint the leaf for @host, signed by the CA. */
static X509 *mint_leaf(struct jr_inspect *in, const char *host)
{
	time_t now = time(NULL);
	struct in6_addr a6;
	struct in_addr a4;
	char san[JR_HOST_MAX + 8];
	X509_NAME *name;
	X509 *x = X509_new();

	if (!x)
		return NULL;
	if (inet_pton(AF_INET, host, &a4) == 1 ||
	    inet_pton(AF_INET6, host, &a6) == 1)
		snprintf(san, sizeof(san), "IP:%s", host);
	else
		snprintf(san, sizeof(san), "DNS:%s", host);
	name = X509_get_subject_name(x);
	if (!X509_set_version(x, 2) || random_serial(x) < 0 ||
	    !X509_time_adj_ex(X509_getm_notBefore(x), 0, -CLOCK_SKEW_S, &now) ||
	    !X509_time_adj_ex(X509_getm_notAfter(x), 0,
			      (long)(in->not_after - now), &now) ||
	    !X509_set_pubkey(x, in->leaf_key) ||
	    !X509_NAME_add_entry_by_txt(name, "CN", MBSTRING_ASC,
					(const unsigned char *)host, -1, -1,
					0) ||
	    !X509_set_issuer_name(x, X509_get_subject_name(in->ca)) ||
	    add_ext(x, in->ca, NID_basic_constraints, "critical,CA:FALSE") <
		0 ||
	    add_ext(x, in->ca, NID_key_usage, "critical,digitalSignature") <
		0 ||
	    add_ext(x, in->ca, NID_ext_key_usage, "serverAuth") < 0 ||
	    add_ext(x, in->ca, NID_subject_alt_name, san) < 0 ||
	    add_ext(x, in->ca, NID_subject_key_identifier, "hash") < 0 ||
	    add_ext(x, in->ca, NID_authority_key_identifier, "keyid:always") <
		0 ||
	    !X509_sign(x, in->ca_key, EVP_sha256())) {
		X509_free(x);
		return NULL;
	}
	return x;
}

/* The leaf for @host with a reference for the caller, minted on a miss. */
static X509 *leaf_get(struct jr_inspect *in, const char *host)
{
	struct leaf *victim = &in->leaves[0];
	X509 *x;

	pthread_mutex_lock(&in->lock);
	for (size_t i = 0; i < JR_INSPECT_LEAF_CACHE; i++) {
		struct leaf *l = &in->leaves[i];

		if (l->cert && strcasecmp(l->host, host) == 0) {
			l->used = ++in->tick;
			X509_up_ref(l->cert);
			x = l->cert;
			pthread_mutex_unlock(&in->lock);
			return x;
		}
		if (!l->cert || (victim->cert && l->used < victim->used))
			victim = l;
	}
	pthread_mutex_unlock(&in->lock);
	/* Minted outside the lock: two threads may both mint one name; the
	 * second simply takes another slot. */
	x = mint_leaf(in, host);
	if (!x)
		return NULL;
	pthread_mutex_lock(&in->lock);
	X509_free(victim->cert);
	snprintf(victim->host, sizeof(victim->host), "%s", host);
	victim->cert = x;
	victim->used = ++in->tick;
	X509_up_ref(x);
	pthread_mutex_unlock(&in->lock);
	return x;
}

char *jr_inspect_leaf_pem(struct jr_inspect *in, const char *host)
{
	X509 *x = leaf_get(in, host);
	BIO *b = BIO_new(BIO_s_mem());
	char *p, *out = NULL;
	long n;

	if (x && b && PEM_write_bio_X509(b, x)) {
		n = BIO_get_mem_data(b, &p);
		out = strndup(p, (size_t)n);
	}
	BIO_free(b);
	X509_free(x);
	return out;
}

const char *jr_inspect_ca_pem(const struct jr_inspect *in)
{
	return in->ca_pem;
}

/* ALPN toward the client: http/1.1 if offered, else none (RFC 7301 3.2
 * lets the server ignore the extension; the client then speaks
 * HTTP/1.1). h2 is never chosen: the request loop reads HTTP/1.1. */
static int alpn_select(SSL *ssl, const unsigned char **out,
		       unsigned char *outlen, const unsigned char *in,
		       unsigned int inlen, void *arg)
{
	static const unsigned char h11[] = "\x08http/1.1";
	unsigned char *sel;

	(void)ssl;
	(void)arg;
	if (SSL_select_next_proto(&sel, outlen, h11, sizeof(h11) - 1, in,
				  inlen) == OPENSSL_NPN_NEGOTIATED) {
		*out = sel;
		return SSL_TLSEXT_ERR_OK;
	}
	return SSL_TLSEXT_ERR_NOACK;
}

/*
 * upstream_new_session - OpenSSL's new-session callback of the client
 * context: a session from a verified upstream goes to the cache under the
 * host and port it was verified for. For TLS 1.3 this runs when the
 * tickets are read, which is during the first SSL_read after the
 * handshake (the response), never later: the connection is read before
 * it is closed. Return: 0, OpenSSL drops its reference (the cache took
 * its own).
 */
static int upstream_new_session(SSL *us, SSL_SESSION *sess)
{
	struct inspect_conn *ic = SSL_get_app_data(us);

	if (ic && SSL_get_verify_result(us) == X509_V_OK)
		jr_tls_sessions_put(ic->in->sessions, ic->host, ic->port, sess);
	return 0;
}

int jr_inspect_new(const struct jr_inspect_config *cfg, struct jr_inspect **out,
		   struct jr_err *err)
{
	struct jr_inspect *in = calloc(1, sizeof(*in));
	static const unsigned char h11[] = "\x08http/1.1";
	const char *ca = cfg->secrets ? cfg->secrets->upstream_ca : NULL;
	int r;

	r = jr_openssl_load(err); /* every OpenSSL call comes after */
	if (r < 0) {
		free(in);
		return r;
	}
	if (!in)
		return jr_err_set(err, ENOMEM, "out of memory");
	in->cfg = *cfg;
	pthread_mutex_init(&in->lock, NULL);
	r = make_ca(in, err);
	if (r < 0)
		goto fail;
	in->server = SSL_CTX_new(TLS_server_method());
	in->client = SSL_CTX_new(TLS_client_method());
	in->sessions = jr_tls_sessions_new();
	if (!in->server || !in->client || !in->sessions ||
	    !SSL_CTX_set_min_proto_version(in->server, TLS1_2_VERSION) ||
	    !SSL_CTX_set_min_proto_version(in->client, TLS1_2_VERSION)) {
		r = jr_err_set(err, EIO, "cannot make the TLS contexts: %s",
			       ERR_reason_error_string(ERR_get_error())
				   ?: "OpenSSL error");
		goto fail;
	}
	SSL_CTX_set_alpn_select_cb(in->server, alpn_select, NULL);
	SSL_CTX_set_session_cache_mode(in->server, SSL_SESS_CACHE_OFF);
	SSL_CTX_set_num_tickets(in->server, 0);
	SSL_CTX_set_verify(in->client, SSL_VERIFY_PEER, NULL);
	/* Upstream sessions: to tls_sessions.c only, never OpenSSL's own
	 * cache (it is keyed by session id, not by the host verified). */
	SSL_CTX_set_session_cache_mode(in->client,
				       SSL_SESS_CACHE_CLIENT |
					   SSL_SESS_CACHE_NO_INTERNAL_STORE);
	SSL_CTX_sess_set_new_cb(in->client, upstream_new_session);
	/*
	 * An upstream that closes without close_notify (most do after
	 * "Connection: close", the lab's Python servers too) is an
	 * "unexpected EOF", which OpenSSL 3 turns into a fatal error, and a
	 * fatal error marks the connection's current session not resumable.
	 * In TLS 1.3 that is the last ticket received, the very object the
	 * cache holds (and what SSL_get1_session() returns): seen in the lab,
	 * a resumed connection's one new ticket was always marked, so every
	 * other connection had a full handshake. Since TLS 1.1 a missing
	 * close_notify is no reason to invalidate a session (RFC 5246
	 * 7.2.1); real fatal errors still mark it. The end of the response
	 * is the client's to judge by its framing, as before: our side toward
	 * the client ends with close_notify either way.
	 */
	SSL_CTX_set_options(in->client, SSL_OP_IGNORE_UNEXPECTED_EOF);
	SSL_CTX_set_alpn_protos(in->client, h11, sizeof(h11) - 1);
	if (ca ? SSL_CTX_load_verify_file(in->client, ca) != 1
	       : SSL_CTX_set_default_verify_paths(in->client) != 1) {
		r = jr_err_set(err, EINVAL,
			       "%s%s: cannot load the upstream trust store: %s",
			       ca ? "--upstream-ca "
				  : "the host's default CA store",
			       ca ? ca : "",
			       ERR_reason_error_string(ERR_get_error())
				   ?: "no certificates");
		goto fail;
	}
	*out = in;
	return 0;
fail:
	jr_inspect_free(in);
	return r;
}

/* ------------------------------------------------------------ response */

static bool field_is(const char *line, size_t n, const char *name)
{
	size_t k = strlen(name);

	return n > k && line[k] == ':' && strncasecmp(line, name, k) == 0;
}

int jr_inspect_response_head(const char *head, size_t len, char **out,
			     size_t *out_len, int *status)
{
	const char *p = head, *end = head + len;
	char *o, *w;

	if (len < 12 || strncmp(head, "HTTP/1.", 7) != 0 || head[8] != ' ' ||
	    head[9] < '1' || head[9] > '5' || head[10] < '0' ||
	    head[10] > '9' || head[11] < '0' || head[11] > '9')
		return -EINVAL;
	*status =
	    (head[9] - '0') * 100 + (head[10] - '0') * 10 + (head[11] - '0');
	o = malloc(len + sizeof("Connection: close\r\n"));
	if (!o)
		return -ENOMEM;
	w = o;
	while (p < end) {
		const char *nl = memchr(p, '\n', (size_t)(end - p));
		size_t n = nl ? (size_t)(nl - p) + 1 : (size_t)(end - p);

		if (n <= 2 && (p[0] == '\r' || p[0] == '\n')) {
			/* The empty line: our field goes just before. */
			memcpy(w, "Connection: close\r\n", 19);
			w += 19;
			memcpy(w, p, (size_t)(end - p));
			w += end - p;
			break;
		}
		if (p != head && (field_is(p, n, "connection") ||
				  field_is(p, n, "keep-alive") ||
				  field_is(p, n, "proxy-connection"))) {
			p += n;
			continue;
		}
		memcpy(w, p, n);
		w += n;
		p += n;
	}
	*out = o;
	*out_len = (size_t)(w - o);
	return 0;
}

/* ------------------------------------------------------------ early bytes */

/*
 * A BIO that reads a captured connection's first bytes (already taken off
 * the socket by the relay's peek) and then the socket: a filter BIO over
 * the socket BIO, so the handshake sees the stream whole.
 */
struct prefix {
	char *p;
	size_t len, off;
};

static int prefix_read(BIO *b, char *out, size_t n, size_t *got)
{
	struct prefix *pf = BIO_get_data(b);
	BIO *next = BIO_next(b);
	int r;

	if (pf && pf->off < pf->len) {
		size_t k = pf->len - pf->off < n ? pf->len - pf->off : n;

		memcpy(out, pf->p + pf->off, k);
		pf->off += k;
		*got = k;
		return 1;
	}
	BIO_clear_retry_flags(b);
	r = BIO_read_ex(next, out, n, got);
	BIO_copy_next_retry(b);
	return r;
}

static int prefix_write(BIO *b, const char *in, size_t n, size_t *done)
{
	int r = BIO_write_ex(BIO_next(b), in, n, done);

	BIO_copy_next_retry(b);
	return r;
}

static long prefix_ctrl(BIO *b, int cmd, long num, void *ptr)
{
	struct prefix *pf = BIO_get_data(b);

	if (cmd == BIO_CTRL_PENDING && pf && pf->off < pf->len)
		return (long)(pf->len - pf->off);
	return BIO_ctrl(BIO_next(b), cmd, num, ptr);
}

static int prefix_free(BIO *b)
{
	struct prefix *pf = BIO_get_data(b);

	if (pf)
		free(pf->p); /* the early bytes: client_bio() gave them here */
	free(pf);
	BIO_set_data(b, NULL);
	return 1;
}

static BIO_METHOD *prefix_method;
static pthread_once_t prefix_once = PTHREAD_ONCE_INIT;

static void prefix_method_init(void)
{
	BIO_METHOD *m = BIO_meth_new(BIO_get_new_index() | BIO_TYPE_FILTER,
				     "jailrun early bytes");

	if (m && BIO_meth_set_read_ex(m, prefix_read) &&
	    BIO_meth_set_write_ex(m, prefix_write) &&
	    BIO_meth_set_ctrl(m, prefix_ctrl) &&
	    BIO_meth_set_destroy(m, prefix_free))
		prefix_method = m;
	else
		BIO_meth_free(m);
}

/* The client side's BIO: the socket, behind the early bytes if any. */
static BIO *client_bio(struct inspect_conn *ic)
{
	BIO *sock = BIO_new_socket(ic->cfd, BIO_NOCLOSE), *f;
	struct prefix *pf;

	if (!sock || !ic->early_len)
		return sock;
	pthread_once(&prefix_once, prefix_method_init);
	pf = calloc(1, sizeof(*pf));
	f = prefix_method ? BIO_new(prefix_method) : NULL;
	if (!pf || !f) {
		free(pf);
		BIO_free(f);
		BIO_free(sock);
		return NULL;
	}
	pf->p = ic->early;
	pf->len = ic->early_len;
	ic->early = NULL; /* the BIO's now */
	BIO_set_data(f, pf);
	BIO_set_init(f, 1);
	return BIO_push(f, sock);
}

/* ------------------------------------------------------------ the loop */

/* What one inspected request came to, for its audit line. */
struct req_log {
	char method[32];
	char path[512];
	int status;
	bool allowed;
	const char *reason;
	bool injected;
	uint64_t up, down;
	uint64_t t_start;
};

static void audit_request(struct inspect_conn *ic, const struct req_log *l)
{
	struct jr_audit_record rec = {
		.id = ic->id,
		.via = "inspect",
		.method = l->method[0] ? l->method : NULL,
		.host = ic->host,
		.port = ic->port,
		.address = ic->addr[0] ? ic->addr : NULL,
		.allowed = l->allowed,
		.reason = atomic_load(&ic->cut) ? "policy-removed" : l->reason,
		.status = l->status,
		.bytes_up = l->up,
		.bytes_down = l->down,
		.duration_ms = jr_clock_ms() - l->t_start,
		.inspected = true,
		.path = l->path[0] ? l->path : NULL,
		.secret_injected = l->injected,
	};

	if (ic->in->cfg.audit)
		jr_audit_connection(ic->in->cfg.audit, &rec);
}

static int ssl_write_all(SSL *s, const void *buf, size_t n)
{
	size_t done = 0;

	while (done < n) {
		size_t w = 0;

		if (SSL_write_ex(s, (const char *)buf + done, n - done, &w) !=
		    1)
			return -EIO;
		done += w;
	}
	return 0;
}

/* Our own answer inside the client's TLS: built by http.c like the
 * proxy's. */
static void answer(SSL *cs, struct req_log *l, int status, const char *tag,
		   const char *reason, bool allowed, const char *body)
{
	char resp[2048];
	int n = jr_http_response(resp, sizeof(resp), status, tag, body);

	l->status = status;
	l->reason = reason;
	l->allowed = allowed;
	if (n > 0 && ssl_write_all(cs, resp, (size_t)n) == 0)
		l->down += (uint64_t)n;
}

static void upstream_why(SSL *us, char *why, size_t size)
{
	long vr = SSL_get_verify_result(us);

	if (vr != X509_V_OK)
		snprintf(why, size, "certificate verification failed: %s",
			 X509_verify_cert_error_string(vr));
	else
		snprintf(why, size, "handshake failed: %s",
			 ERR_reason_error_string(ERR_peek_last_error())
			     ?: "connection closed");
	ERR_clear_error();
}

static void set_nonblock(int fd, bool on)
{
	int fl = fcntl(fd, F_GETFL);

	if (fl >= 0)
		fcntl(fd, F_SETFL, on ? fl | O_NONBLOCK : fl & ~O_NONBLOCK);
}

/*
 * upstream_start - send the upstream's ClientHello and return at once,
 * so that the upstream computes its answer while the client's handshake
 * runs here (issue 13: done one after the other, the two handshakes
 * added up). The TCP connection to the checked address exists already,
 * so this tells the upstream nothing a splice tunnel would not; no byte
 * of the request goes before it passed the rules (serve_request()).
 * Sets ic->us, or leaves it NULL with ic->up_why.
 */
static void upstream_start(struct inspect_conn *ic)
{
	struct in6_addr a6;
	struct in_addr a4;
	bool literal = inet_pton(AF_INET, ic->host, &a4) == 1 ||
		       inet_pton(AF_INET6, ic->host, &a6) == 1;
	SSL *us = SSL_new(ic->in->client);
	int r;

	if (!us) {
		snprintf(ic->up_why, sizeof(ic->up_why), "out of memory");
		return;
	}
	if (!SSL_set_fd(us, ic->ufd) ||
	    (literal
		 ? !X509_VERIFY_PARAM_set1_ip_asc(SSL_get0_param(us), ic->host)
		 : (!SSL_set_tlsext_host_name(us, ic->host) ||
		    !SSL_set1_host(us, ic->host)))) {
		snprintf(ic->up_why, sizeof(ic->up_why),
			 "cannot set up the upstream TLS");
		SSL_free(us);
		return;
	}
	SSL_set_app_data(us, ic); /* upstream_new_session() */
	{
		SSL_SESSION *sess =
		    jr_tls_sessions_take(ic->in->sessions, ic->host, ic->port);

		ic->offered = sess && SSL_set_session(us, sess) == 1;
		SSL_SESSION_free(sess); /* SSL_set_session took its own */
	}
	set_nonblock(ic->ufd, true);
	r = SSL_connect(us);
	set_nonblock(ic->ufd, false);
	if (r != 1) {
		int e = SSL_get_error(us, r);

		if (e != SSL_ERROR_WANT_READ && e != SSL_ERROR_WANT_WRITE) {
			upstream_why(us, ic->up_why, sizeof(ic->up_why));
			SSL_free(us);
			return;
		}
	}
	ic->us = us;
}

/*
 * upstream_resumed_ok - a resumed upstream connection carries no
 * certificate: its verification is the one of the handshake that made
 * the session, kept in it. The cache offers a session only to the host
 * and port it was verified for; this checks it again, so that a session
 * for one host never serves another even if the cache were wrong.
 */
static bool upstream_resumed_ok(struct inspect_conn *ic)
{
	X509 *peer = SSL_get0_peer_certificate(ic->us);
	struct in6_addr a6;
	struct in_addr a4;
	bool literal = inet_pton(AF_INET, ic->host, &a4) == 1 ||
		       inet_pton(AF_INET6, ic->host, &a6) == 1;

	if (!peer || SSL_get_verify_result(ic->us) != X509_V_OK)
		return false;
	return literal ? X509_check_ip_asc(peer, ic->host, 0) == 1
		       : X509_check_host(peer, ic->host, 0, 0, NULL) == 1;
}

/* upstream_finish - complete the handshake upstream_start() began
 * (blocking, bounded by the socket's timeouts), verified. */
static void upstream_finish(struct inspect_conn *ic)
{
	bool resumed;

	if (!ic->us)
		return;
	if (!SSL_is_init_finished(ic->us) && SSL_connect(ic->us) != 1) {
		upstream_why(ic->us, ic->up_why, sizeof(ic->up_why));
		SSL_free(ic->us);
		ic->us = NULL;
		return;
	}
	resumed = SSL_session_reused(ic->us) == 1;
	jr_debug("inspect %llu: upstream %s port %u: TLS session %s",
		 (unsigned long long)ic->id, ic->host, ic->port,
		 resumed       ? "resumed"
		 : ic->offered ? "offered, not resumed (full handshake)"
			       : "none cached (full handshake)");
	if (resumed && !upstream_resumed_ok(ic)) {
		snprintf(ic->up_why, sizeof(ic->up_why),
			 "a resumed session does not verify for this host");
		SSL_free(ic->us);
		ic->us = NULL;
	}
}

/* Read the client's head: its length (through "\r\n\r\n"), 0 on EOF
 * before any byte, -1 on error or a head too long. */
static long read_head(SSL *s, char *buf, size_t cap, size_t *have)
{
	for (;;) {
		char *e = *have >= 4 ? memmem(buf, *have, "\r\n\r\n", 4) : NULL;
		size_t got = 0;

		if (e)
			return (long)(e - buf) + 4;
		if (*have == cap)
			return -1;
		if (SSL_read_ex(s, buf + *have, cap - *have, &got) != 1)
			return *have ? -1 : 0;
		*have += got;
	}
}

/* The message buffer of an answer that quotes something. */
#define INSPECT_MSG_MAX (JR_ERR_MSG_MAX + 64)

/* One inspected request on its way through serve_request()'s steps: what
 * each step leaves for the next, and everything to release at the end. */
struct inspect_req {
	struct req_log l;
	char *buf;   /* the client's head, then body, then the response */
	size_t have; /* bytes in @buf */
	long hl;     /* the client's head length */
	char *abs;   /* the head in absolute-form, for the proxy's parser */
	struct jr_http_request req;
	bool parsed;
	char *head; /* the head for the upstream, secrets swapped in */
	size_t head_len;
	SSL *us;     /* the upstream, once the request may go */
	char *rhead; /* the response head for the client */
	size_t rlen;
};

/*
 * parse_request - the client's head, "METHOD /target HTTP/1.1" (only
 * origin-form inside the tunnel), put behind "http://HOST" and parsed by
 * the proxy's own parser (see the top). Return: true if parsed; false
 * when answered (or out of memory: nothing to answer with).
 */
static bool parse_request(struct inspect_conn *ic, SSL *cs,
			  struct inspect_req *r)
{
	const char *buf = r->buf, *sp1, *sp2;
	struct jr_err err = { 0 };
	char msg[INSPECT_MSG_MAX];
	size_t abs_len;
	long hl_abs;

	sp1 = memchr(buf, ' ', (size_t)r->hl);
	sp2 =
	    sp1 ? memchr(sp1 + 1, ' ', (size_t)(buf + r->hl - sp1 - 1)) : NULL;
	if (sp1) {
		snprintf(r->l.method, sizeof(r->l.method), "%.*s",
			 (int)(sp1 - buf), buf);
		if (sp2)
			snprintf(r->l.path, sizeof(r->l.path), "%.*s",
				 (int)(sp2 - sp1 - 1), sp1 + 1);
	}
	if (!sp2 || sp1[1] != '/') {
		answer(
		    cs, &r->l, 400, NULL, "bad-request", false,
		    "jailrun: bad request: an inspected connection takes origin-form requests (GET /path HTTP/1.1)");
		return false;
	}
	abs_len = (size_t)(sp1 - buf) + 8 + strlen(ic->host) + 2 +
		  (size_t)r->hl - (size_t)(sp1 + 1 - buf);
	r->abs = malloc(abs_len + 1);
	if (!r->abs)
		return false;
	{
		bool v6 = strchr(ic->host, ':') != NULL;

		abs_len = (size_t)snprintf(
		    r->abs, abs_len + 1, "%.*s http://%s%s%s%.*s",
		    (int)(sp1 - buf), buf, v6 ? "[" : "", ic->host,
		    v6 ? "]" : "", (int)(buf + r->hl - sp1 - 1), sp1 + 1);
	}
	hl_abs = jr_http_parse_request(r->abs, abs_len, &r->req, &err);
	if (hl_abs <= 0) {
		snprintf(msg, sizeof(msg), "jailrun: bad request: %s",
			 hl_abs == 0 ? "incomplete head" : err.msg);
		answer(cs, &r->l, 400, NULL, "bad-request", false, msg);
		return false;
	}
	r->parsed = true;
	return true;
}

/*
 * check_http_rules - --allow-http: the one place an inspected request is
 * checked against the rules, before anything reaches the upstream. The
 * target checked is the one sent (the whole of it, not the audit's
 * shortened copy); the secrets rewrite after it never changes it.
 * Return: true if allowed (or the host has no rules); false when answered.
 */
static bool check_http_rules(struct inspect_conn *ic, SSL *cs,
			     struct inspect_req *r)
{
	struct jr_secrets *set = ic->in->cfg.secrets;
	const char *rwhy = NULL;
	char msg[INSPECT_MSG_MAX];
	enum jr_http_verdict hv;
	char *target;

	if (!jr_httprules_host_has_rules(set->http_rules, ic->host))
		return true;
	target = jr_http_upstream_target(&r->req);
	hv = target ? jr_httprules_check(set->http_rules, "https", ic->host,
					 ic->port, r->req.method, target, &rwhy)
		    : JR_HTTP_DENY_RULE;
	free(target);
	if (hv == JR_HTTP_ALLOWED)
		return true;
	snprintf(msg, sizeof(msg), "jailrun: %s %.200s on %s refused: %s",
		 r->req.method, r->l.path, ic->host,
		 rwhy ? rwhy : "no rule allows it");
	answer(cs, &r->l, 403, jr_http_verdict_name(hv),
	       jr_http_verdict_name(hv), false, msg);
	return false;
}

/*
 * swap_secrets - the head for the upstream, with the placeholders of the
 * secrets bound to this host swapped in (secrets.c); a placeholder sent
 * where it does not belong is refused. Return: true; false when answered.
 */
static bool swap_secrets(struct inspect_conn *ic, SSL *cs,
			 struct inspect_req *r)
{
	struct jr_secrets *set = ic->in->cfg.secrets;
	struct jr_secrets_verdict v;
	char msg[INSPECT_MSG_MAX];

	atomic_fetch_add(&set->inspected, 1);
	switch (jr_secrets_rewrite_head(
	    set, ic->host, ic->port, r->req.upstream_head,
	    r->req.upstream_head_len, &r->head, &r->head_len, &v)) {
	case 0:
		break;
	case 1:
		atomic_fetch_add(&set->misuse, 1);
		jr_secrets_misuse_message(&v, ic->host, ic->port, msg,
					  sizeof(msg));
		answer(cs, &r->l, 403, "secret-misuse", "secret-misuse", false,
		       msg);
		return false;
	default:
		answer(cs, &r->l, 503, NULL, "out-of-memory", true,
		       "jailrun: out of memory");
		return false;
	}
	r->l.injected = v.injected > 0;
	if (r->l.injected)
		atomic_fetch_add(&set->injected, 1);
	return true;
}

/*
 * send_request - the head, then exactly the body (http.c's framing),
 * nothing after it, to the upstream whose handshake started before the
 * client's and finished after it. Return: true if sent (or the client
 * stopped sending: the upstream judges what it got); false when answered
 * or failed (@r->l.reason).
 */
static bool send_request(struct inspect_conn *ic, SSL *cs,
			 struct inspect_req *r)
{
	struct jr_http_body_tracker bt;
	char msg[INSPECT_MSG_MAX];
	size_t off = (size_t)r->hl;

	r->us = steal_pointer(&ic->us);
	if (!r->us) {
		snprintf(msg, sizeof(msg), "jailrun: TLS to %s port %u: %s",
			 ic->host, ic->port, ic->up_why);
		answer(cs, &r->l, 502, NULL, "upstream-tls-failed", true, msg);
		return false;
	}
	if (ssl_write_all(r->us, r->head, r->head_len) < 0) {
		r->l.reason = "upstream-error";
		return false;
	}
	jr_http_body_init(&bt, &r->req);
	while (!bt.done) {
		long take;
		size_t got = 0;

		if (off < r->have) {
			take =
			    jr_http_body_feed(&bt, r->buf + off, r->have - off);
			if (take < 0) {
				r->l.reason = "bad-request";
				return false;
			}
			if (take && ssl_write_all(r->us, r->buf + off,
						  (size_t)take) < 0) {
				r->l.reason = "upstream-error";
				return false;
			}
			off = r->have;
			continue;
		}
		if (SSL_read_ex(cs, r->buf, INSPECT_BUF, &got) != 1)
			break; /* the upstream judges what it got */
		r->l.up += got;
		off = 0;
		r->have = got;
	}
	return true;
}

/*
 * relay_response_head - read the upstream's response head, pass it to
 * the client with "Connection: close" (jr_inspect_response_head()), and
 * the bytes read after it. Return: true; false when answered or failed.
 */
static bool relay_response_head(struct inspect_conn *ic, SSL *cs,
				struct inspect_req *r)
{
	char *buf = r->buf;

	r->have = 0;
	for (;;) {
		char msg[INSPECT_MSG_MAX];
		size_t got = 0, rhl;
		char *e;

		if (SSL_read_ex(r->us, buf + r->have,
				JR_HTTP_HEAD_MAX - r->have, &got) != 1) {
			snprintf(
			    msg, sizeof(msg),
			    "jailrun: %s closed the connection without an answer",
			    ic->host);
			answer(cs, &r->l, 502, NULL, "upstream-error", true,
			       msg);
			return false;
		}
		r->have += got;
		e = memmem(buf, r->have, "\r\n\r\n", 4);
		if (!e) {
			if (r->have < JR_HTTP_HEAD_MAX)
				continue;
			answer(
			    cs, &r->l, 502, NULL, "upstream-error", true,
			    "jailrun: the upstream's answer head is too long");
			return false;
		}
		rhl = (size_t)(e - buf) + 4;
		if (jr_inspect_response_head(buf, rhl, &r->rhead, &r->rlen,
					     &r->l.status) < 0) {
			answer(
			    cs, &r->l, 502, NULL, "upstream-error", true,
			    "jailrun: the upstream's answer is not HTTP/1.x");
			return false;
		}
		ic->t.answer = jr_clock_us();
		if (ssl_write_all(cs, r->rhead, r->rlen) < 0 ||
		    ssl_write_all(cs, buf + rhl, r->have - rhl) < 0) {
			r->l.reason = "client-error";
			return false;
		}
		r->l.down += r->rlen + r->have - rhl;
		return true;
	}
}

/* relay_response_body - the rest of the response, until the upstream
 * closes (it was asked to). */
static void relay_response_body(SSL *cs, struct inspect_req *r)
{
	for (;;) {
		size_t got = 0;

		if (SSL_read_ex(r->us, r->buf, INSPECT_BUF, &got) != 1)
			break;
		if (ssl_write_all(cs, r->buf, got) < 0) {
			r->l.reason = "client-error";
			break;
		}
		r->l.down += got;
	}
}

static void inspect_req_release(struct inspect_req *r)
{
	if (r->us) {
		SSL_shutdown(r->us);
		SSL_free(r->us);
	}
	if (r->head) {
		explicit_bzero(r->head, r->head_len);
		free(r->head);
	}
	if (r->parsed)
		jr_http_request_release(&r->req);
	free(r->abs);
	free(r->rhead);
	free(r->buf);
}

/*
 * One request: head, rules, secrets, upstream, body, response. Writes
 * exactly one audit line unless the client closed without a request.
 */
static void serve_request(struct inspect_conn *ic, SSL *cs)
{
	struct inspect_req r = {
		.l = { .t_start = jr_clock_ms(), .status = -1 },
	};

	r.buf = malloc(JR_HTTP_HEAD_MAX + INSPECT_BUF);
	if (!r.buf)
		goto out;
	upstream_finish(ic);
	ic->t.upstream = jr_clock_us();
	r.hl = read_head(cs, r.buf, JR_HTTP_HEAD_MAX, &r.have);
	ic->t.head = jr_clock_us();
	if (r.hl == 0)
		goto out_quiet;
	if (r.hl < 0) {
		answer(cs, &r.l, 400, NULL, "bad-request", false,
		       "jailrun: bad request: no complete head");
		goto out;
	}
	r.l.up = (uint64_t)r.have;
	if (!parse_request(ic, cs, &r) || !check_http_rules(ic, cs, &r) ||
	    !swap_secrets(ic, cs, &r) || !send_request(ic, cs, &r) ||
	    !relay_response_head(ic, cs, &r))
		goto out;
	r.l.allowed = true;
	relay_response_body(cs, &r);
out:
	audit_request(ic, &r.l);
out_quiet:
	inspect_req_release(&r);
	ERR_clear_error();
}

static void set_blocking(int fd, uint64_t timeout_ms)
{
	struct timeval tv = {
		.tv_sec = (time_t)(timeout_ms / 1000),
		.tv_usec = (suseconds_t)(timeout_ms % 1000) * 1000,
	};
	int fl = fcntl(fd, F_GETFL), one = 1;

	if (fl >= 0)
		fcntl(fd, F_SETFL, fl & ~O_NONBLOCK);
	/* A head and its body leave as separate TLS records: without this,
	 * Nagle holds the second until the peer's delayed ACK (40 ms). */
	setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof(one));
	setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof(tv));
	setsockopt(fd, SOL_SOCKET, SO_SNDTIMEO, &tv, sizeof(tv));
}

static uint64_t thread_cpu_us(void)
{
	struct timespec ts;

	if (clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts) < 0)
		return 0;
	return (uint64_t)ts.tv_sec * 1000000 + (uint64_t)ts.tv_nsec / 1000;
}

/* -vv: where an inspected connection's time went, step by step, in us
 * since the previous step (0: the step was not reached). bench/run. */
static void log_phases(const struct inspect_conn *ic)
{
	const uint64_t t[6] = { ic->t.handoff,	ic->t.thread, ic->t.accepted,
				ic->t.upstream, ic->t.head,   ic->t.answer };
	uint64_t now = jr_clock_us();
	unsigned long long d[6];

	for (size_t i = 0; i < 6; i++) {
		uint64_t next = i < 5 ? t[i + 1] : now;

		d[i] = t[i] && next >= t[i] ? next - t[i] : 0;
	}
	jr_debug("inspect %llu: us: thread start %llu, client handshake %llu, "
		 "upstream handshake rest %llu, request head %llu, upstream "
		 "answer %llu, rest %llu; CPU in the client handshake %llu, "
		 "in all %llu",
		 (unsigned long long)ic->id, d[0], d[1], d[2], d[3], d[4], d[5],
		 (unsigned long long)ic->t.cpu_accept,
		 (unsigned long long)thread_cpu_us());
}

static void *conn_thread(void *arg)
{
	static const char established[] =
	    "HTTP/1.1 200 Connection established\r\n\r\n";
	struct inspect_conn *ic = arg;
	struct jr_inspect *in = ic->in;
	struct req_log l = { .t_start = jr_clock_ms(), .status = -1 };
	X509 *leaf = NULL;
	SSL *cs = NULL;
	const char *sni;
	int one = 1;

	ic->t.thread = jr_clock_us();
	set_blocking(ic->cfd, in->cfg.idle_timeout_ms);
	set_blocking(ic->ufd, in->cfg.idle_timeout_ms);
	if (!ic->captured &&
	    jr_write_all(ic->cfd, established, sizeof(established) - 1) < 0)
		goto done;
	upstream_start(ic);
	leaf = leaf_get(in, ic->host);
	cs = SSL_new(in->server);
	if (!leaf || !cs || !SSL_use_certificate(cs, leaf) ||
	    !SSL_use_PrivateKey(cs, in->leaf_key))
		goto done;
	{
		BIO *b = client_bio(ic);

		if (!b)
			goto done;
		SSL_set_bio(cs, b, b);
	}
	ic->t.cpu_accept = thread_cpu_us();
	if (SSL_accept(cs) != 1) {
		/* A client that does not trust the CA ends here. */
		l.reason = "client-tls-failed";
		l.allowed = false;
		audit_request(ic, &l);
		goto done;
	}
	sni = SSL_get_servername(cs, TLSEXT_NAMETYPE_host_name);
	if (sni && strcasecmp(sni, ic->host) != 0) {
		l.reason = "sni-mismatch";
		audit_request(ic, &l);
		goto done;
	}
	ic->t.accepted = jr_clock_us();
	ic->t.cpu_accept = thread_cpu_us() - ic->t.cpu_accept;
	/*
	 * The client's Finished came last and we answer nothing to it (no
	 * session tickets), so its ACK would wait for the delayed-ACK timer
	 * while a client with Nagle on (Python's, most) holds its request
	 * until that ACK: 40 ms per connection. Send the ACK now (best effort:
	 * a failure costs only that delay).
	 */
	(void)setsockopt(ic->cfd, IPPROTO_TCP, TCP_QUICKACK, &one, sizeof(one));
	serve_request(ic, cs);
	log_phases(ic);
	SSL_shutdown(cs);
done:
	SSL_free(ic->us); /* when no request took it */
	ic->us = NULL;
	SSL_free(cs);
	X509_free(leaf);
	ERR_clear_error();
	free(ic->early);
	ic->early = NULL;
	pthread_mutex_lock(&in->lock);
	close(ic->cfd);
	close(ic->ufd);
	ic->cfd = ic->ufd = -1;
	ic->st = SLOT_DONE;
	pthread_mutex_unlock(&in->lock);
	OPENSSL_thread_stop();
	return NULL;
}

static int handoff(struct jr_inspect *in, int cfd, int ufd, const char *host,
		   uint16_t port, const char *addr, uint64_t id, bool captured,
		   const void *early, size_t early_len)
{
	struct inspect_conn *ic = NULL;
	pthread_attr_t attr;
	char *copy = NULL;
	int r;

	if (early_len) {
		copy = malloc(early_len);
		if (!copy) {
			close(cfd);
			close(ufd);
			return -ENOMEM;
		}
		memcpy(copy, early, early_len);
	}

	pthread_mutex_lock(&in->lock);
	for (size_t i = 0; i < JR_INSPECT_CONNS_MAX && !in->stopping; i++) {
		struct inspect_conn *c = &in->conns[i];

		if (c->st == SLOT_DONE) {
			/* Ended: its thread returns at once. */
			pthread_join(c->thread, NULL);
			c->st = SLOT_FREE;
		}
		if (c->st == SLOT_FREE) {
			ic = c;
			break;
		}
	}
	if (!ic) {
		pthread_mutex_unlock(&in->lock);
		free(copy);
		close(cfd);
		close(ufd);
		return -EBUSY;
	}
	memset(ic, 0, sizeof(*ic));
	atomic_init(&ic->cut, false);
	ic->in = in;
	ic->cfd = cfd;
	ic->ufd = ufd;
	ic->port = port;
	ic->id = id;
	ic->captured = captured;
	ic->early = copy;
	ic->early_len = early_len;
	snprintf(ic->host, sizeof(ic->host), "%s", host);
	snprintf(ic->addr, sizeof(ic->addr), "%s", addr ? addr : "");
	ic->st = SLOT_RUNNING;
	ic->t.handoff = jr_clock_us();
	pthread_attr_init(&attr);
	pthread_attr_setstacksize(&attr, INSPECT_STACK);
	r = pthread_create(&ic->thread, &attr, conn_thread, ic);
	pthread_attr_destroy(&attr);
	if (r) {
		ic->st = SLOT_FREE;
		free(ic->early);
		ic->early = NULL;
		pthread_mutex_unlock(&in->lock);
		close(cfd);
		close(ufd);
		return -r;
	}
	pthread_mutex_unlock(&in->lock);
	return 0;
}

int jr_inspect_handoff(struct jr_inspect *in, int cfd, int ufd,
		       const char *host, uint16_t port, const char *addr,
		       uint64_t id)
{
	return handoff(in, cfd, ufd, host, port, addr, id, false, NULL, 0);
}

int jr_inspect_handoff_captured(struct jr_inspect *in, int cfd, int ufd,
				const char *host, uint16_t port,
				const char *addr, uint64_t id,
				const void *early, size_t early_len)
{
	return handoff(in, cfd, ufd, host, port, addr, id, true, early,
		       early_len);
}

unsigned jr_inspect_cut(struct jr_inspect *in,
			bool (*match)(const char *host, uint16_t port,
				      void *arg),
			void *arg)
{
	unsigned n = 0;

	if (!in)
		return 0;
	pthread_mutex_lock(&in->lock);
	for (size_t i = 0; i < JR_INSPECT_CONNS_MAX; i++) {
		struct inspect_conn *ic = &in->conns[i];

		/* RUNNING under the lock: its descriptors are still its own
		 * (the thread closes them under the lock, then says DONE). */
		if (ic->st != SLOT_RUNNING || atomic_load(&ic->cut) ||
		    !match(ic->host, ic->port, arg))
			continue;
		atomic_store(&ic->cut, true);
		shutdown(ic->cfd, SHUT_RDWR);
		shutdown(ic->ufd, SHUT_RDWR);
		n++;
	}
	pthread_mutex_unlock(&in->lock);
	return n;
}

void jr_inspect_free(struct jr_inspect *in)
{
	if (!in)
		return;
	pthread_mutex_lock(&in->lock);
	in->stopping = true;
	/* Cut every running connection: its blocked read returns. */
	for (size_t i = 0; i < JR_INSPECT_CONNS_MAX; i++)
		if (in->conns[i].st == SLOT_RUNNING) {
			shutdown(in->conns[i].cfd, SHUT_RDWR);
			shutdown(in->conns[i].ufd, SHUT_RDWR);
		}
	pthread_mutex_unlock(&in->lock);
	for (size_t i = 0; i < JR_INSPECT_CONNS_MAX; i++)
		if (in->conns[i].st != SLOT_FREE)
			pthread_join(in->conns[i].thread, NULL);
	for (size_t i = 0; i < JR_INSPECT_LEAF_CACHE; i++)
		X509_free(in->leaves[i].cert);
	SSL_CTX_free(in->server);
	SSL_CTX_free(in->client);
	jr_tls_sessions_free(in->sessions);
	X509_free(in->ca);
	EVP_PKEY_free(in->ca_key); /* OpenSSL clears key material it frees */
	EVP_PKEY_free(in->leaf_key);
	free(in->ca_pem);
	pthread_mutex_destroy(&in->lock);
	free(in);
}
