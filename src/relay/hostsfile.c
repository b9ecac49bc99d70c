// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * hostsfile.c - the sandbox's /etc/hosts under transparent egress (see
 * hostsfile.h).
 *
 * Theory of operation
 *
 * The runner reads the host's /etc/hosts before it clones the sandbox,
 * rewrites it here and hands the text to init, which shows it read-only
 * over /etc/hosts like resolv.conf (jr_mounts_bind_text()). The file is
 * read as the glibc "files" backend reads it (nss/nss_files/files-hosts.c):
 * one address and its names per line, '#' to the end of the line is a
 * comment, the address is an IPv6 address (inet_pton) or an IPv4 address
 * in any inet_aton(3) form. The names of one address are judged one by
 * one with the policy the relay starts with; a name the policy allows is
 * numbered in the synthetic table @f before the relay thread exists, so
 * the DNS forwarder later answers the very same address for it, and the
 * relay maps a captured connection back to it (fakeip.h). Lines are
 * rewritten in place, so the file still reads in the host's order. When
 * no line changes, there is nothing to show and nothing is mounted.
 */
#include <arpa/inet.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "buf.h"
#include "cleanup.h"
#include "host.h"
#include "hostsfile.h"

#define HOSTS_HEADER                                                                    \
	"# jailrun: the host's /etc/hosts, rewritten for the sandbox: a name it pins\n" \
	"# that the policy allows has a synthetic address (the relay connects to the\n" \
	"# pinned one); other names of addresses outside this host are left out.\n"

/* What an address on a line means for the sandbox. */
enum addr_kind {
	ADDR_BAD,      /* does not parse: glibc ignores the line */
	ADDR_INERT,    /* unspecified or multicast: leads nowhere out */
	ADDR_LOOPBACK, /* the sandbox's own loopback */
	ADDR_OUT,      /* anything else: a destination outside */
};

struct rewrite {
	char *buf;
	size_t len, cap;
	const struct jr_policy *p;
	struct jr_fakeip *f;
	bool ipv6;
	size_t n_pinned;
};

static bool is_space(char c)
{
	return c == ' ' || c == '\t' || c == '\r' || c == '\v' || c == '\f';
}

static int put(struct rewrite *w, const char *s, size_t n)
{
	int e = jr_buf_reserve(&w->buf, &w->cap, w->len + n + 1, 4096,
			       (size_t)JR_HOSTSFILE_MAX * 2);

	if (e < 0)
		return e == -E2BIG ? -ENOMEM : e;
	memcpy(w->buf + w->len, s, n);
	w->len += n;
	w->buf[w->len] = '\0';
	return 0;
}

static int put_str(struct rewrite *w, const char *s)
{
	return put(w, s, strlen(s));
}

static enum addr_kind v4_kind(uint32_t h)
{
	if (h >> 24 == 127)
		return ADDR_LOOPBACK;
	if (h >> 24 == 0 || h >> 29 == 7) /* 0.0.0.0/8, 224.0.0.0/3 */
		return ADDR_INERT;
	return ADDR_OUT;
}

/* @tok: NUL-terminated. The address forms glibc's parser takes. */
static enum addr_kind addr_kind(const char *tok)
{
	static const uint8_t mapped[12] = { 0, 0, 0, 0, 0,    0,
					    0, 0, 0, 0, 0xff, 0xff };
	struct in6_addr a6;
	struct in_addr a4;
	uint32_t v4;

	if (inet_pton(AF_INET6, tok, &a6) == 1) {
		if (IN6_IS_ADDR_LOOPBACK(&a6))
			return ADDR_LOOPBACK;
		if (IN6_IS_ADDR_UNSPECIFIED(&a6) || IN6_IS_ADDR_MULTICAST(&a6))
			return ADDR_INERT;
		if (memcmp(a6.s6_addr, mapped, sizeof(mapped)) == 0) {
			memcpy(&v4, a6.s6_addr + 12, 4);
			return v4_kind(ntohl(v4));
		}
		return ADDR_OUT;
	}
	if (inet_aton(tok, &a4))
		return v4_kind(ntohl(a4.s_addr));
	return ADDR_BAD;
}

static bool localhost_name(const char *n)
{
	size_t len = strlen(n);

	return strcmp(n, "localhost") == 0 ||
	       strncmp(n, "localhost.", 10) == 0 ||
	       (len > 10 && strcmp(n + len - 10, ".localhost") == 0) ||
	       strcmp(n, "ip6-localhost") == 0 ||
	       strcmp(n, "ip6-loopback") == 0;
}

/*
 * pinned_name - is the name token @tok (@n bytes) one to give a synthetic
 * address? Fills @name (JR_HOST_MAX + 1 bytes) with its lower-case form,
 * without a trailing dot, as the DNS forwarder sees it.
 */
static bool pinned_name(const struct rewrite *w, enum addr_kind kind,
			const char *tok, size_t n, char *name)
{
	if (n && tok[n - 1] == '.')
		n--;
	if (!n || n > JR_HOST_MAX)
		return false;
	for (size_t i = 0; i < n; i++) {
		char c = tok[i];

		if (c <= ' ' || c > '~')
			return false;
		name[i] = c >= 'A' && c <= 'Z' ? (char)(c - 'A' + 'a') : c;
	}
	name[n] = '\0';
	if (localhost_name(name) || (kind == ADDR_LOOPBACK && w->p->match_any))
		return false;
	return jr_policy_name_allowed(w->p, name);
}

/* The next whitespace-separated token of [*pos, end), or NULL. */
static const char *next_token(const char **pos, const char *end, size_t *n)
{
	const char *s = *pos, *t;

	while (s < end && is_space(*s))
		s++;
	if (s == end)
		return NULL;
	for (t = s; t < end && !is_space(*t); t++)
		;
	*pos = t;
	*n = (size_t)(t - s);
	return s;
}

/* Give @name its synthetic line(s), once: a name the table already had
 * was written for an earlier line. */
static int put_synthetic(struct rewrite *w, const char *name)
{
	size_t before = jr_fakeip_count(w->f);
	char text[INET6_ADDRSTRLEN], line[INET6_ADDRSTRLEN + JR_HOST_MAX + 4];
	unsigned char addr[sizeof(struct in6_addr)];
	int e;

	e = jr_fakeip_assign(w->f, name, AF_INET, addr);
	if (e < 0)
		return e;
	if (jr_fakeip_count(w->f) == before)
		return 0;
	w->n_pinned++;
	inet_ntop(AF_INET, addr, text, sizeof(text));
	snprintf(line, sizeof(line), "%s\t%s\n", text, name);
	e = put_str(w, line);
	if (e < 0 || !w->ipv6)
		return e;
	e = jr_fakeip_assign(w->f, name, AF_INET6, addr);
	if (e < 0)
		return e;
	inet_ntop(AF_INET6, addr, text, sizeof(text));
	snprintf(line, sizeof(line), "%s\t%s\n", text, name);
	return put_str(w, line);
}

/*
 * rewrite_line - one line [@s, @end) (no newline). Return: 1 when the
 * line was written as it is (the caller copies it), 0 when its
 * replacement was written, or -errno.
 */
static int rewrite_line(struct rewrite *w, const char *s, const char *end)
{
	const char *hash = memchr(s, '#', (size_t)(end - s));
	const char *cend = hash ? hash : end, *pos = s, *tok;
	char addr[INET6_ADDRSTRLEN + 8], name[JR_HOST_MAX + 1];
	enum addr_kind kind;
	size_t n, n_names = 0, n_pinned = 0;
	int e;

	if (memchr(s, '\0', (size_t)(end - s)))
		return 0; /* the text goes to init as a C string */
	tok = next_token(&pos, cend, &n);
	if (!tok)
		return 1;
	if (n >= sizeof(addr))
		return 0;
	memcpy(addr, tok, n);
	addr[n] = '\0';
	kind = addr_kind(addr);
	if (kind == ADDR_BAD)
		return 0;
	if (kind == ADDR_INERT)
		return 1;
	for (const char *p = pos; (tok = next_token(&p, cend, &n)); n_names++)
		n_pinned += pinned_name(w, kind, tok, n, name);
	if (kind == ADDR_LOOPBACK && !n_pinned)
		return 1;
	if (kind == ADDR_LOOPBACK && n_pinned < n_names) {
		/* The names that stay the sandbox's own, on their address. */
		if ((e = put_str(w, addr)) < 0)
			return e;
		for (const char *p = pos; (tok = next_token(&p, cend, &n));)
			if (!pinned_name(w, kind, tok, n, name) &&
			    ((e = put(w, " ", 1)) < 0 ||
			     (e = put(w, tok, n)) < 0))
				return e;
		if ((e = put(w, "\n", 1)) < 0)
			return e;
	}
	for (const char *p = pos; (tok = next_token(&p, cend, &n));)
		if (pinned_name(w, kind, tok, n, name) &&
		    (e = put_synthetic(w, name)) < 0)
			return e;
	return 0;
}

int jr_hostsfile_rewrite(const char *text, size_t len,
			 const struct jr_policy *p, struct jr_fakeip *f,
			 bool ipv6, char **out, size_t *n_pinned)
{
	struct rewrite w = { .p = p, .f = f, .ipv6 = ipv6 };
	const char *s = text, *end = text + len;
	bool changed = false;
	int e;

	*out = NULL;
	*n_pinned = 0;
	e = put_str(&w, HOSTS_HEADER);
	while (e == 0 && s < end) {
		const char *nl = memchr(s, '\n', (size_t)(end - s));
		const char *eol = nl ? nl : end;

		e = rewrite_line(&w, s, eol);
		if (e == 1)
			e = put(&w, s, (size_t)(eol - s) + (nl != NULL));
		else if (e == 0)
			changed = true;
		s = nl ? nl + 1 : end;
	}
	if (e < 0 || !changed) {
		free(w.buf);
		return e < 0 ? e : 0;
	}
	*out = w.buf;
	*n_pinned = w.n_pinned;
	return 0;
}

int jr_hostsfile_read(const char *path, char **text, size_t *len,
		      struct jr_err *err)
{
	_cleanup_close_ int fd = open(path, O_RDONLY | O_CLOEXEC | O_NOCTTY);
	_cleanup_free_ char *buf = NULL;
	struct stat st;
	size_t got = 0;
	ssize_t r;

	*text = NULL;
	*len = 0;
	if (fd < 0 && errno == ENOENT)
		return 0;
	if (fd < 0 || fstat(fd, &st) < 0)
		return jr_err_set(
		    err, errno,
		    "cannot read %s: %s (it is rewritten for transparent egress; --transparent off skips that)",
		    path, strerror(errno));
	if (!S_ISREG(st.st_mode) || st.st_size > (off_t)JR_HOSTSFILE_MAX)
		return jr_err_set(
		    err, EFBIG,
		    "%s is not a regular file of at most %u MiB, which transparent egress rewrites for the sandbox; use --transparent off",
		    path, JR_HOSTSFILE_MAX >> 20);
	buf = malloc((size_t)st.st_size + 1);
	if (!buf)
		return jr_err_set(err, ENOMEM, "out of memory for %s", path);
	/* Read what fstat saw; a file that grew meanwhile is cut there. */
	while (got < (size_t)st.st_size &&
	       (r = read(fd, buf + got, (size_t)st.st_size - got)) != 0) {
		if (r < 0 && errno == EINTR)
			continue;
		if (r < 0)
			return jr_err_set(err, errno, "cannot read %s: %s",
					  path, strerror(errno));
		got += (size_t)r;
	}
	buf[got] = '\0';
	*text = steal_pointer(&buf);
	*len = got;
	return 0;
}
