// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * secrets.c - placeholder credentials: the command holds a stand-in, the
 * relay swaps in the real value on requests to the hosts it belongs to.
 *
 * Theory of operation
 *
 * A secret's real value is read once by the runner, before the sandbox
 * exists, into an mlock'ed mapping excluded from core dumps
 * (jr_secrets_load()). Its placeholder has the same length, keeps the
 * value's well-known prefix (so client libraries that check the shape,
 * "sk-ant-...", accept it) and draws the rest from the value's character
 * class with getrandom(2): random per sandbox, so a placeholder learnt in
 * one run is worth nothing in the next, and long enough (at least
 * JR_SECRET_VALUE_MIN characters overall) never to occur by chance.
 *
 * The runner overwrites the value in its own environment block in place.
 * unsetenv(3) would only drop the pointer: /proc/PID/environ reads the
 * block itself, and init (PID 1 of the sandbox, cloned from the runner
 * with a copy of its memory) would show it to the command in
 * /proc/1/environ.
 *
 * The rewrite is done on request heads only (jr_secrets_rewrite_head()):
 * header fields of a request to a bound host get the real value; the
 * request line never does (a credential in a URL ends up in every log on
 * the way), and bodies are never looked at. A placeholder of a secret in
 * a request to a host it is not bound to, in the request line, a field or
 * decoded Basic credentials, is "secret-misuse": the caller refuses the
 * request (403) and counts it.
 *
 * A binding is a host and a port: "api.example.com" means port 443, and
 * "api.example.com:8443" names another. A name says nothing about which
 * service on it is meant, so a host-only binding lent the value to every
 * port the policy opened (issue 21: an echo service on the bound host's
 * port 9000 sent the real value back to the command). The port is the
 * connection's destination port (the CONNECT's, the absolute URL's, or
 * the captured connection's original one), never a Host header's.
 * Plain HTTP is decided by the caller (relay_inspect.c): a plain request
 * to a bound host and port is refused unless --secret-allow-plaintext, so
 * the value crosses the network in clear only where a binding names the
 * port and the flag says yes; "api.example.com" alone never puts it on
 * port 80.
 *
 * Everything above the "runner" line is pure and unit-tested
 * (tests/unit/test_secrets.c).
 */
#include <arpa/inet.h>
#include <ctype.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/mman.h>
#include <sys/random.h>
#include <sys/stat.h>
#include <unistd.h>

#include "cleanup.h"
#include "host.h"
#include "httprules.h"
#include "log.h"
#include "options.h"
#include "secrets.h"

extern char **environ;

/* Prefixes that say what a key is, not what it is worth: providers
 * publish them, and secret scanners match on them. Longest first where
 * one is the start of another. */
static const char *const secret_prefixes[] = {
	"sk-ant-api03-", "sk-ant-admin01-",
	"sk-ant-",	 "sk-proj-",
	"sk-svcacct-",	 "sk-",
	"github_pat_",	 "ghp_",
	"gho_",		 "ghu_",
	"ghs_",		 "ghr_",
	"glpat-",	 "xoxb-",
	"xoxp-",	 "xoxa-",
	"xapp-",	 "hf_",
	"npm_",		 "pypi-",
	"AKIA",		 "ASIA",
	"AIza",		 "sq0atp-",
	"rk_live_",	 "sk_live_",
	"sk_test_",	 "pk_live_",
	"pk_test_",
};

size_t jr_secret_prefix_len(const char *value, size_t len)
{
	for (size_t i = 0; i < ARRAY_SIZE(secret_prefixes); i++) {
		size_t n = strlen(secret_prefixes[i]);

		/* A prefix alone, or nearly, would leave too little random. */
		if (len >= n + JR_SECRET_VALUE_MIN &&
		    memcmp(value, secret_prefixes[i], n) == 0)
			return n;
	}
	return 0;
}

/* Character classes, smallest first: the first that holds every character
 * of the value's rest is the placeholder's alphabet. */
static const char *const secret_classes[] = {
	"0123456789",
	"0123456789abcdef",
	"0123456789ABCDEF",
	"0123456789abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ",
	"0123456789abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ-_",
	"0123456789abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ+/",
};

void jr_secret_make_placeholder(const char *value, size_t len,
				const uint8_t *rnd, char *out)
{
	size_t pre = jr_secret_prefix_len(value, len);
	const char *alpha = secret_classes[3]; /* anything else: alnum */
	size_t an;

	for (size_t c = 0; c < ARRAY_SIZE(secret_classes); c++) {
		size_t i;

		for (i = pre; i < len; i++)
			if (!strchr(secret_classes[c], value[i]) || !value[i])
				break;
		if (i == len) {
			alpha = secret_classes[c];
			break;
		}
	}
	an = strlen(alpha);
	memcpy(out, value, pre);
	for (size_t i = pre; i < len; i++)
		out[i] = alpha[rnd[i] % an]; /* bias < 1/4: still >= 5 bits */
	out[len] = '\0';
}

static bool env_name_ok(const char *s, size_t n)
{
	if (!n || n > JR_SECRET_NAME_MAX || isdigit((unsigned char)s[0]))
		return false;
	for (size_t i = 0; i < n; i++)
		if (!isalnum((unsigned char)s[i]) && s[i] != '_')
			return false;
	return true;
}

/* A host name or an address literal, lowercased into @out. */
static int host_normalise(const char *s, size_t n, char *out,
			  struct jr_err *err, const char *what)
{
	struct in6_addr a6;

	if (n && s[n - 1] == '.')
		n--;
	if (!n || n > JR_HOST_MAX)
		return jr_err_set(err, EINVAL,
				  "%s: the host must be 1 to %d characters",
				  what, JR_HOST_MAX);
	for (size_t i = 0; i < n; i++) {
		unsigned char ch = (unsigned char)s[i];

		if (!isalnum(ch) && ch != '-' && ch != '.' && ch != ':')
			return jr_err_set(
			    err, EINVAL,
			    "%s: '%.*s' is not a host name or address (no wildcard or scheme: exactly these names are meant)",
			    what, (int)n, s);
		out[i] = (char)tolower(ch);
	}
	out[n] = '\0';
	/* One root dot is dropped above; any other empty label would leave a
	 * binding no host the relay sees can ever match (fuzz_secrets). */
	if (strstr(out, "..") || out[0] == '.' || out[n - 1] == '.')
		return jr_err_set(err, EINVAL, "%s: '%s' has an empty label",
				  what, out);
	if (strchr(out, ':') && inet_pton(AF_INET6, out, &a6) != 1)
		return jr_err_set(
		    err, EINVAL,
		    "%s: '%s' is not a host name or an IPv6 address", what,
		    out);
	return 0;
}

/*
 * binding_parse() - one HOST of a --secret binding, with its port.
 * @s/@n: "HOST", "HOST:PORT", "[V6]", "[V6]:PORT" or a bare V6 (whose
 *	colons are all the address's, as in --allow: RFC 3986 3.2.2 brackets
 *	an IPv6 authority that carries a port)
 * @host: JR_HOST_MAX + 1 bytes, the normalised host
 * @port: the port, JR_SECRET_PORT_DEFAULT when none is written
 * @what: "--secret NAME", for messages
 *
 * The port is plain decimal from 1 to 65535 without a leading zero, the
 * one spelling --allow takes, so the binding and the policy read alike.
 * Return: 0 or -EINVAL with @err naming the binding and the rule.
 */
static int binding_parse(const char *s, size_t n, char *host, uint16_t *port,
			 struct jr_err *err, const char *what)
{
	const char *colon = NULL, *h = s;
	size_t hn = n;
	unsigned long v = 0;

	*port = JR_SECRET_PORT_DEFAULT;
	if (n && s[0] == '[') {
		const char *close = memchr(s, ']', n);
		struct in6_addr a6;
		char v6[INET6_ADDRSTRLEN];

		if (!close || (close + 1 < s + n && close[1] != ':'))
			return jr_err_set(
			    err, EINVAL,
			    "%s: '%.*s': an IPv6 address is written [ADDR] or [ADDR]:PORT",
			    what, (int)n, s);
		h = s + 1;
		hn = (size_t)(close - h);
		if (hn < sizeof(v6)) {
			memcpy(v6, h, hn);
			v6[hn] = '\0';
		}
		if (hn >= sizeof(v6) || inet_pton(AF_INET6, v6, &a6) != 1)
			return jr_err_set(
			    err, EINVAL,
			    "%s: '%.*s': only an IPv6 address goes between brackets",
			    what, (int)n, s);
		if (close + 1 < s + n)
			colon = close + 1;
	} else {
		const char *c = memchr(s, ':', n);

		/* One colon: HOST:PORT. More: an IPv6 address, no port. */
		if (c && !memchr(c + 1, ':', (size_t)(s + n - c - 1))) {
			colon = c;
			hn = (size_t)(c - s);
		}
	}
	if (colon) {
		const char *d = colon + 1;
		size_t dn = (size_t)(s + n - d);
		bool digits = dn >= 1 && dn <= 5 && d[0] != '0';

		for (size_t i = 0; digits && i < dn; i++) {
			digits = isdigit((unsigned char)d[i]);
			v = v * 10 + (unsigned long)(d[i] - '0');
		}
		if (!digits || v > 65535)
			return jr_err_set(
			    err, EINVAL,
			    "%s: '%.*s': the port must be a decimal number from 1 to 65535, without leading zeros",
			    what, (int)n, s);
		*port = (uint16_t)v;
	}
	return host_normalise(h, hn, host, err, what);
}

int jr_inspect_host_parse(const char *host, char *out, struct jr_err *err)
{
	return host_normalise(host, strlen(host), out, err, "--inspect");
}

void jr_secret_release(struct jr_secret *s)
{
	free(s->name);
	free(s->file);
	for (size_t i = 0; i < s->n_hosts; i++)
		free(s->hosts[i]);
	free(s->hosts);
	free(s->ports);
	s->name = s->file = NULL;
	s->hosts = NULL;
	s->ports = NULL;
	s->n_hosts = 0;
}

int jr_secret_spec_parse(const char *spec, struct jr_secret *out,
			 struct jr_err *err)
{
	const char *at = strrchr(spec, '@'), *eq, *p;
	size_t name_len;
	int r;

	memset(out, 0, sizeof(*out));
	if (!at)
		return jr_err_set(
		    err, EINVAL,
		    "--secret %s: expected NAME@HOST[,HOST...] or NAME=file:PATH@HOST[,HOST...] (the hosts the secret may be sent to)",
		    spec);
	eq = memchr(spec, '=', (size_t)(at - spec));
	name_len = (size_t)((eq ? eq : at) - spec);
	if (!env_name_ok(spec, name_len))
		return jr_err_set(
		    err, EINVAL,
		    "--secret %s: NAME must be an environment variable name (letters, digits, '_', not starting with a digit, at most %d)",
		    spec, JR_SECRET_NAME_MAX);
	out->name = strndup(spec, name_len);
	if (!out->name)
		goto nomem;
	if (eq) {
		const char *path = eq + 1;

		if (strncmp(path, "file:", 5) != 0 || at - path <= 5) {
			jr_secret_release(out);
			return jr_err_set(
			    err, EINVAL,
			    "--secret %s: after '=' only file:PATH is accepted (a value on the command line would be visible in ps)",
			    spec);
		}
		out->file = strndup(path + 5, (size_t)(at - path - 5));
		if (!out->file)
			goto nomem;
	}
	p = at + 1;
	for (;;) {
		const char *end = strchrnul(p, ',');
		char host[JR_HOST_MAX + 1];
		char what[JR_SECRET_NAME_MAX + 16];
		char **grown;
		uint16_t port, *grown_ports;

		snprintf(what, sizeof(what), "--secret %s", out->name);
		r = binding_parse(p, (size_t)(end - p), host, &port, err, what);
		if (r < 0) {
			jr_secret_release(out);
			return r;
		}
		if (out->n_hosts == JR_SECRET_HOSTS_MAX) {
			jr_secret_release(out);
			return jr_err_set(err, EINVAL,
					  "%s: at most %d hosts per secret",
					  what, JR_SECRET_HOSTS_MAX);
		}
		grown = realloc(out->hosts,
				(out->n_hosts + 1) * sizeof(*out->hosts));
		if (!grown)
			goto nomem;
		out->hosts = grown;
		grown_ports = realloc(out->ports,
				      (out->n_hosts + 1) * sizeof(*out->ports));
		if (!grown_ports)
			goto nomem;
		out->ports = grown_ports;
		out->ports[out->n_hosts] = port;
		out->hosts[out->n_hosts] = strdup(host);
		if (!out->hosts[out->n_hosts])
			goto nomem;
		out->n_hosts++;
		if (!*end)
			break;
		p = end + 1;
	}
	return 0;
nomem:
	jr_secret_release(out);
	return jr_err_set(err, ENOMEM, "--secret: out of memory");
}

/*
 * secret_host_index() - the first binding of @s at or after @from whose
 * host is @host (as the relay has it: any case, maybe a trailing dot), or
 * @s->n_hosts.
 */
static size_t secret_host_index(const struct jr_secret *s, const char *host,
				size_t from)
{
	size_t hl = strlen(host);

	if (hl && host[hl - 1] == '.')
		hl--;
	for (size_t i = from; i < s->n_hosts; i++)
		if (strlen(s->hosts[i]) == hl &&
		    strncasecmp(s->hosts[i], host, hl) == 0)
			return i;
	return s->n_hosts;
}

bool jr_secret_bound_to(const struct jr_secret *s, const char *host,
			uint16_t port)
{
	for (size_t i = secret_host_index(s, host, 0); i < s->n_hosts;
	     i = secret_host_index(s, host, i + 1))
		if (s->ports[i] == port)
			return true;
	return false;
}

bool jr_secrets_host_bound(const struct jr_secrets *set, const char *host,
			   uint16_t port)
{
	for (size_t i = 0; set && i < set->n; i++)
		if (jr_secret_bound_to(&set->s[i], host, port))
			return true;
	return false;
}

/* Is @host bound to any secret, on any port? (what is inspected) */
static bool secrets_host_bound_any_port(const struct jr_secrets *set,
					const char *host)
{
	for (size_t i = 0; set && i < set->n; i++)
		if (secret_host_index(&set->s[i], host, 0) < set->s[i].n_hosts)
			return true;
	return false;
}

bool jr_secrets_inspects(const struct jr_secrets *set, const char *host)
{
	size_t hl = strlen(host);

	if (!set)
		return false;
	if (secrets_host_bound_any_port(set, host) ||
	    jr_httprules_host_has_rules(set->http_rules, host))
		return true;
	if (hl && host[hl - 1] == '.')
		hl--;
	for (size_t i = 0; i < set->n_inspect; i++)
		if (strlen(set->inspect[i]) == hl &&
		    strncasecmp(set->inspect[i], host, hl) == 0)
			return true;
	return false;
}

/* ------------------------------------------------------------ base64 */

static const char b64[] =
    "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";

size_t jr_base64_encode(const uint8_t *in, size_t n, char *out)
{
	size_t o = 0;

	for (size_t i = 0; i < n; i += 3) {
		uint32_t v = (uint32_t)in[i] << 16;

		if (i + 1 < n)
			v |= (uint32_t)in[i + 1] << 8;
		if (i + 2 < n)
			v |= in[i + 2];
		out[o++] = b64[(v >> 18) & 63];
		out[o++] = b64[(v >> 12) & 63];
		out[o++] = i + 1 < n ? b64[(v >> 6) & 63] : '=';
		out[o++] = i + 2 < n ? b64[v & 63] : '=';
	}
	out[o] = '\0';
	return o;
}

long jr_base64_decode(const char *in, size_t n, uint8_t *out)
{
	size_t o = 0, pad = 0;

	if (n % 4)
		return -EINVAL;
	for (size_t i = 0; i < n; i += 4) {
		uint32_t v = 0;

		for (size_t k = 0; k < 4; k++) {
			const char *q;

			if (in[i + k] == '=' && i + 4 == n && k >= 2) {
				pad++;
				v <<= 6;
				continue;
			}
			if (pad || !in[i + k] || !(q = strchr(b64, in[i + k])))
				return -EINVAL;
			v = (v << 6) | (uint32_t)(q - b64);
		}
		out[o++] = (uint8_t)(v >> 16);
		if (pad < 2)
			out[o++] = (uint8_t)(v >> 8);
		if (pad < 1)
			out[o++] = (uint8_t)v;
	}
	return (long)o;
}

/* ------------------------------------------------------------ rewrite */

struct out_buf {
	char *p;
	size_t len, cap;
	bool failed;
};

static void ob_put(struct out_buf *o, const char *s, size_t n)
{
	if (o->failed)
		return;
	if (o->len + n + 1 > o->cap) {
		size_t cap = (o->len + n + 1) * 2;
		char *p = malloc(cap);

		if (!p) {
			o->failed = true;
			return;
		}
		if (o->p) {
			memcpy(p, o->p, o->len);
			explicit_bzero(o->p, o->cap); /* may hold a value */
			free(o->p);
		}
		o->p = p;
		o->cap = cap;
	}
	memcpy(o->p + o->len, s, n);
	o->len += n;
	o->p[o->len] = '\0';
}

/*
 * Any placeholder in @s[0..@n] of a secret not bound to @host:@port: the
 * first one's secret, or NULL. With @count, how many bound ones there are.
 */
static const struct jr_secret *scan(const struct jr_secrets *set,
				    const char *host, uint16_t port,
				    const char *s, size_t n, unsigned *count)
{
	for (size_t i = 0; i < set->n; i++) {
		const struct jr_secret *sec = &set->s[i];
		const char *p = s, *end = s + n;

		if (!sec->placeholder)
			continue;
		while (p < end && (p = memmem(p, (size_t)(end - p),
					      sec->placeholder, sec->len))) {
			if (!jr_secret_bound_to(sec, host, port))
				return sec;
			if (count)
				(*count)++;
			p += sec->len;
		}
	}
	return NULL;
}

/*
 * misuse_found() - record in @v that @sec's placeholder (if @sec) was
 * headed for @host, where it is not bound; say whether @host is one of
 * its hosts on another port, so the message can name the fix.
 * Return: whether there was a misuse.
 */
static bool misuse_found(struct jr_secrets_verdict *v,
			 const struct jr_secret *sec, const char *host)
{
	if (!sec)
		return false;
	v->misuse_name = sec->name;
	v->misuse_port = secret_host_index(sec, host, 0) < sec->n_hosts;
	return true;
}

/* @s[0..@n] with every bound placeholder replaced, appended to @o. */
static void replace_into(const struct jr_secrets *set, const char *host,
			 uint16_t port, const char *s, size_t n,
			 struct out_buf *o)
{
	size_t i = 0;

	while (i < n) {
		const struct jr_secret *hit = NULL;

		for (size_t k = 0; k < set->n && !hit; k++) {
			const struct jr_secret *sec = &set->s[k];

			if (sec->placeholder && sec->len <= n - i &&
			    memcmp(s + i, sec->placeholder, sec->len) == 0 &&
			    jr_secret_bound_to(sec, host, port))
				hit = sec;
		}
		if (hit) {
			ob_put(o, hit->value, hit->len);
			i += hit->len;
		} else {
			ob_put(o, s + i, 1);
			i++;
		}
	}
}

/*
 * "Authorization: Basic <token>" (RFC 7617): decode, rewrite, encode.
 * Return: 1 handled (appended to @o), 0 not Basic or not decodable (the
 * caller treats the line as text), or misuse through @v.
 */
static int basic_line(const struct jr_secrets *set, const char *host,
		      uint16_t port, const char *line, size_t n,
		      struct out_buf *o, struct jr_secrets_verdict *v)
{
	static const char name[] = "authorization:";
	const char *p = line + strlen(name), *end = line + n, *tok, *tend;
	uint8_t *dec = NULL;
	char *enc = NULL;
	long dl;
	struct out_buf d = { 0 };
	unsigned cnt = 0, tcnt = 0;

	if (n < strlen(name) || strncasecmp(line, name, strlen(name)) != 0)
		return 0;
	while (end > p && (end[-1] == '\n' || end[-1] == '\r'))
		end--;
	while (p < end && (*p == ' ' || *p == '\t'))
		p++;
	if (end - p < 6 || strncasecmp(p, "basic", 5) != 0 ||
	    (p[5] != ' ' && p[5] != '\t'))
		return 0;
	tok = p + 6;
	while (tok < end && (*tok == ' ' || *tok == '\t'))
		tok++;
	tend = tok;
	while (tend < end && *tend != ' ' && *tend != '\t')
		tend++;
	/* Whatever follows the token is text like any field's (fuzz_secrets:
	 * a placeholder there went out unchecked and unreplaced). */
	if (misuse_found(
		v,
		scan(set, host, port, tend, (size_t)(line + n - tend), &tcnt),
		host))
		return 1;
	dec = malloc((size_t)(tend - tok) / 4 * 3 + 4);
	if (!dec) {
		o->failed = true;
		return 1;
	}
	dl = jr_base64_decode(tok, (size_t)(tend - tok), dec);
	if (dl < 0) {
		free(dec);
		return 0;
	}
	misuse_found(v,
		     scan(set, host, port, (const char *)dec, (size_t)dl, &cnt),
		     host);
	if (v->misuse_name || !cnt) {
		explicit_bzero(dec, (size_t)dl);
		free(dec);
		return v->misuse_name ? 1 : 0;
	}
	replace_into(set, host, port, (const char *)dec, (size_t)dl, &d);
	explicit_bzero(dec, (size_t)dl);
	free(dec);
	if (!d.failed)
		enc = malloc((d.len + 2) / 3 * 4 + 1);
	if (!enc) {
		if (d.p) {
			explicit_bzero(d.p, d.cap);
			free(d.p);
		}
		o->failed = true;
		return 1;
	}
	jr_base64_encode((const uint8_t *)d.p, d.len, enc);
	ob_put(o, line, (size_t)(tok - line));
	ob_put(o, enc, strlen(enc));
	replace_into(set, host, port, tend, (size_t)(line + n - tend), o);
	v->injected += cnt + tcnt;
	explicit_bzero(d.p, d.cap);
	free(d.p);
	explicit_bzero(enc, strlen(enc));
	free(enc);
	return 1;
}

int jr_secrets_rewrite_head(const struct jr_secrets *set, const char *host,
			    uint16_t port, const char *head, size_t len,
			    char **out, size_t *out_len,
			    struct jr_secrets_verdict *v)
{
	struct out_buf o = { 0 };
	const char *nl = memchr(head, '\n', len);
	size_t pos;

	memset(v, 0, sizeof(*v));
	*out = NULL;
	*out_len = 0;
	pos = nl ? (size_t)(nl - head) + 1 : len;
	/* The request line: never rewritten, but a misuse all the same. */
	if (misuse_found(v, scan(set, host, port, head, pos, NULL), host))
		return 1;
	ob_put(&o, head, pos);
	while (pos < len) {
		const char *line = head + pos;
		const char *e = memchr(line, '\n', len - pos);
		size_t n = e ? (size_t)(e - line) + 1 : len - pos;
		unsigned cnt = 0;

		pos += n;
		if (basic_line(set, host, port, line, n, &o, v)) {
			if (v->misuse_name)
				goto misuse;
			continue;
		}
		if (misuse_found(v, scan(set, host, port, line, n, &cnt), host))
			goto misuse;
		v->injected += cnt;
		replace_into(set, host, port, line, n, &o);
	}
	if (o.failed) {
		if (o.p) {
			explicit_bzero(o.p, o.cap);
			free(o.p);
		}
		return -ENOMEM;
	}
	*out = o.p;
	*out_len = o.len;
	return 0;
misuse:
	if (o.p) {
		explicit_bzero(o.p, o.cap);
		free(o.p);
	}
	v->injected = 0;
	return 1;
}

void jr_secrets_misuse_message(const struct jr_secrets_verdict *v,
			       const char *host, uint16_t port, char *buf,
			       size_t size)
{
	bool v6 = strchr(host, ':') != NULL;

	if (v->misuse_port)
		snprintf(
		    buf, size,
		    "jailrun: the request carries the placeholder of %s, which is bound to %s on other ports only, not %u (a binding without a port means %d; write %s%s%s:%u in --secret to send it here)",
		    v->misuse_name, host, port, JR_SECRET_PORT_DEFAULT,
		    v6 ? "[" : "", host, v6 ? "]" : "", port);
	else
		snprintf(
		    buf, size,
		    "jailrun: the request carries the placeholder of %s, which may only be sent to its own hosts",
		    v->misuse_name);
}

/* ------------------------------------------------------------ runner */

/* A value must be a header field's worth of visible ASCII: it goes into
 * request heads verbatim (RFC 9110 5.5: no CR, LF or NUL). */
static bool value_ok(const char *v, size_t n)
{
	for (size_t i = 0; i < n; i++)
		if ((unsigned char)v[i] < 0x21 || (unsigned char)v[i] > 0x7e)
			return false;
	return true;
}

static int read_value_file(struct jr_secret *s, char *buf, size_t cap,
			   size_t *len, struct jr_err *err)
{
	_cleanup_close_ int fd = open(s->file, O_RDONLY | O_CLOEXEC | O_NOCTTY);
	struct stat st;
	size_t n = 0;

	if (fd < 0)
		return jr_err_set(err, errno, "--secret %s: cannot open %s: %s",
				  s->name, s->file, strerror(errno));
	/* What was read, for the layout to hide (jr_secret_file_canon()). */
	if (fstat(fd, &st) < 0)
		return jr_err_set(err, errno, "--secret %s: cannot stat %s: %s",
				  s->name, s->file, strerror(errno));
	s->file_named = S_ISREG(st.st_mode) && st.st_nlink > 0;
	s->file_dev = st.st_dev;
	s->file_ino = st.st_ino;
	for (;;) {
		ssize_t k = read(fd, buf + n, cap - n);

		if (k < 0 && errno == EINTR)
			continue;
		if (k < 0)
			return jr_err_set(err, errno,
					  "--secret %s: cannot read %s: %s",
					  s->name, s->file, strerror(errno));
		if (k == 0)
			break;
		n += (size_t)k;
		if (n == cap)
			return jr_err_set(
			    err, EFBIG,
			    "--secret %s: %s is longer than %d bytes: a secret is one line",
			    s->name, s->file, JR_SECRET_VALUE_MAX);
	}
	if (n && buf[n - 1] == '\n')
		n--;
	if (n && buf[n - 1] == '\r')
		n--;
	*len = n;
	return 0;
}

int jr_secret_file_canon(const struct jr_secret *s, char *out,
			 struct jr_err *err)
{
	struct stat st;

	if (!s->file || !s->file_named)
		return 0;
	if (!realpath(s->file, out))
		return jr_err_set(
		    err, errno,
		    "--secret %s: %s: %s, after jailrun read it: it cannot be hidden from the command, so nothing runs",
		    s->name, s->file, strerror(errno));
	if (stat(out, &st) < 0 || st.st_dev != s->file_dev ||
	    st.st_ino != s->file_ino)
		return jr_err_set(
		    err, ESTALE,
		    "--secret %s: %s is no longer the file jailrun read (it was replaced while jailrun started): the one read cannot be hidden from the command, so nothing runs",
		    s->name, s->file);
	return 1;
}

/* Overwrite every NAME=... of the environment block in place. */
static void scrub_environ(const struct jr_secret *s)
{
	size_t nl = strlen(s->name);

	for (char **e = environ; e && *e; e++) {
		char *val;
		size_t vl;

		if (strncmp(*e, s->name, nl) != 0 || (*e)[nl] != '=')
			continue;
		val = *e + nl + 1;
		vl = strlen(val);
		if (vl == s->len)
			memcpy(val, s->placeholder, vl);
		else
			memset(val, 'x', vl);
	}
}

int jr_secrets_load(struct jr_secrets *set, struct jr_err *err)
{
	size_t page = (size_t)sysconf(_SC_PAGESIZE), need = 0;
	char *base;
	int r;

	if (!set->n)
		return 0;
	need = set->n * 2 * (JR_SECRET_VALUE_MAX + 2);
	need = (need + page - 1) / page * page;
	base = mmap(NULL, need, PROT_READ | PROT_WRITE,
		    MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (base == MAP_FAILED)
		return jr_err_set(err, errno, "--secret: cannot map memory: %s",
				  strerror(errno));
	set->locked = base;
	set->locked_size = need;
	/* Kept out of swap and core dumps where the limits allow; a failed
	 * mlock (RLIMIT_MEMLOCK) leaves the value in ordinary memory of a
	 * process nothing in the sandbox can read. */
	if (mlock(base, need) < 0)
		jr_debug("secrets: mlock: %s", strerror(errno));
	madvise(base, need, MADV_DONTDUMP);
	madvise(base, need, MADV_DONTFORK);

	for (size_t i = 0; i < set->n; i++) {
		struct jr_secret *s = &set->s[i];
		char *val = base + i * 2 * (JR_SECRET_VALUE_MAX + 2);
		char *ph = val + JR_SECRET_VALUE_MAX + 2;
		uint8_t rnd[JR_SECRET_VALUE_MAX];
		size_t len = 0;

		for (size_t k = 0; k < i; k++)
			if (strcmp(set->s[k].name, s->name) == 0)
				return jr_err_set(
				    err, EINVAL,
				    "--secret %s: given twice (list every host in one --secret NAME@HOST,HOST)",
				    s->name);
		if (s->file) {
			r = read_value_file(s, val, JR_SECRET_VALUE_MAX + 1,
					    &len, err);
			if (r < 0)
				return r;
		} else {
			const char *e = getenv(s->name);

			if (!e)
				return jr_err_set(
				    err, ENOENT,
				    "--secret %s: jailrun's environment has no %s (export it, or use --secret %s=file:PATH@HOST)",
				    s->name, s->name, s->name);
			len = strlen(e);
			if (len > JR_SECRET_VALUE_MAX)
				return jr_err_set(
				    err, EFBIG,
				    "--secret %s: the value is longer than %d bytes",
				    s->name, JR_SECRET_VALUE_MAX);
			memcpy(val, e, len);
		}
		val[len] = '\0';
		if (len < JR_SECRET_VALUE_MIN || !value_ok(val, len))
			return jr_err_set(
			    err, EINVAL,
			    "--secret %s: the value must be %d to %d visible ASCII characters (no spaces or control characters) to be replaced safely in a header",
			    s->name, JR_SECRET_VALUE_MIN, JR_SECRET_VALUE_MAX);
		s->value = val;
		s->len = len;
		do {
			if (getrandom(rnd, len, 0) != (ssize_t)len)
				return jr_err_set(err, errno ? errno : EIO,
						  "getrandom: %s",
						  strerror(errno));
			jr_secret_make_placeholder(val, len, rnd, ph);
		} while (memcmp(ph, val, len) == 0);
		explicit_bzero(rnd, sizeof(rnd));
		s->placeholder = ph;
		scrub_environ(s);
		if (setenv(s->name, ph, 1) < 0)
			return jr_err_set(err, errno, "setenv: %s",
					  strerror(errno));
	}
	return 0;
}

/* The system trust paths: Debian's and Fedora's (curl, OpenSSL, Python
 * and Node built by the distribution read one of them). */
int jr_secrets_prepare(struct jr_secrets *set, const struct jr_options *opts,
		       struct jr_err *err)
{
	int r;

	set->allow_plaintext = opts->secret_allow_plaintext;
	set->upstream_ca = opts->upstream_ca;
	for (size_t i = 0; i < opts->n_secret; i++) {
		r = jr_secret_spec_parse(opts->secret[i], &set->s[set->n], err);
		if (r < 0)
			return r;
		set->n++;
	}
	for (size_t i = 0; i < opts->n_inspect; i++) {
		char host[JR_HOST_MAX + 1];

		r = jr_inspect_host_parse(opts->inspect[i], host, err);
		if (r < 0)
			return r;
		set->inspect[set->n_inspect] = strdup(host);
		if (!set->inspect[set->n_inspect])
			return jr_err_set(err, ENOMEM, "out of memory");
		set->n_inspect++;
	}
	return jr_secrets_load(set, err);
}

void jr_secrets_release(struct jr_secrets *set)
{
	free(set->trust_bundle);
	set->trust_bundle = NULL;
	for (size_t i = 0; i < set->n; i++) {
		jr_secret_release(&set->s[i]);
		set->s[i].value = set->s[i].placeholder = NULL;
	}
	for (size_t i = 0; i < set->n_inspect; i++)
		free(set->inspect[i]);
	set->n = set->n_inspect = 0;
	if (set->locked) {
		explicit_bzero(set->locked, set->locked_size);
		munlock(set->locked, set->locked_size);
		munmap(set->locked, set->locked_size);
		set->locked = NULL;
	}
}
