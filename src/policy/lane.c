// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * lane.c - the grammar of --lane and --publish (see lane.h).
 *
 * Theory of operation: each value is split into its address part and its
 * ports by hand, with the same rules as an --allow entry (IPv6 only in
 * brackets, ports decimal 1..65535 with no sign or spaces), and the
 * address is taken with inet_pton(3) only, so "127.1" or "0x7f.0.0.1"
 * (which inet_aton would accept) are never an address literal. An
 * address literal makes a host lane; anything else is a name lane, whose
 * grammar is the allowlist's and is checked by policy.c when main.c adds
 * it, so a lane and an --allow can never disagree about what a name is.
 * "localhost" is the one name taken as an address: the host's loopback
 * 127.0.0.1, as the user means it (a name lane to it could never work:
 * the relay refuses loopback to every name). Other .localhost names
 * (RFC 6761 section 6.3) are refused with the literal to write.
 *
 * The same module checks what else names a lane: a --secret bound to a
 * host lane (refused: the lane is a TCP tunnel the relay does not look
 * into, so the server would get the placeholder), and expands the
 * --lane-env templates ({lane}, {lane:PORT}) into the URLs the command
 * reaches its lanes at.
 * Pure: nothing is bound, connected or resolved here.
 */
#include <arpa/inet.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "envplan.h"
#include "lane.h"
#include "policy.h"

/* "1".."65535": decimal digits only, no leading zero, no sign. */
static int parse_port(const char *s, size_t len, uint16_t *port)
{
	unsigned long v = 0;

	if (len == 0 || len > 5 || (s[0] == '0'))
		return -EINVAL;
	for (size_t i = 0; i < len; i++) {
		if (s[i] < '0' || s[i] > '9')
			return -EINVAL;
		v = v * 10 + (unsigned long)(s[i] - '0');
	}
	if (v < 1 || v > 65535)
		return -EINVAL;
	*port = (uint16_t)v;
	return 0;
}

/* An address literal of @len bytes at @s (no brackets) into @ss. */
static bool parse_literal(const char *s, size_t len, int family,
			  struct sockaddr_storage *ss, socklen_t *ss_len)
{
	char buf[INET6_ADDRSTRLEN];

	if (len == 0 || len >= sizeof(buf))
		return false;
	memcpy(buf, s, len);
	buf[len] = '\0';
	memset(ss, 0, sizeof(*ss));
	if (family == AF_INET) {
		struct sockaddr_in *sin = (struct sockaddr_in *)ss;

		if (inet_pton(AF_INET, buf, &sin->sin_addr) != 1)
			return false;
		sin->sin_family = AF_INET;
		*ss_len = sizeof(*sin);
		return true;
	}
	struct sockaddr_in6 *sin6 = (struct sockaddr_in6 *)ss;

	if (inet_pton(AF_INET6, buf, &sin6->sin6_addr) != 1)
		return false;
	sin6->sin6_family = AF_INET6;
	*ss_len = sizeof(*sin6);
	return true;
}

static void set_port(struct sockaddr_storage *ss, uint16_t port)
{
	if (ss->ss_family == AF_INET)
		((struct sockaddr_in *)ss)->sin_port = htons(port);
	else
		((struct sockaddr_in6 *)ss)->sin6_port = htons(port);
}

/* "localhost" (any case, one optional trailing dot), @len bytes at @s. */
static bool is_localhost(const char *s, size_t len)
{
	if (len && s[len - 1] == '.')
		len--;
	return len == 9 && strncasecmp(s, "localhost", 9) == 0;
}

/* A name under .localhost (RFC 6761 section 6.3: loopback too). */
static bool ends_localhost(const char *s, size_t len)
{
	if (len && s[len - 1] == '.')
		len--;
	return len > 10 && strncasecmp(s + len - 10, ".localhost", 10) == 0;
}

/*
 * A leading "[IPv6]:" of @s, as --lane and --publish both write it: the
 * address into @ss, and the text after the colon. NULL when @s does not
 * hold one; the caller says which grammar it broke.
 */
static const char *parse_bracketed(const char *s, struct sockaddr_storage *ss,
				   socklen_t *ss_len)
{
	const char *close = strchr(s, ']');

	if (!close || close[1] != ':' ||
	    !parse_literal(s + 1, (size_t)(close - s - 1), AF_INET6, ss,
			   ss_len))
		return NULL;
	return close + 2;
}

int jr_lane_parse(const char *s, struct jr_lane *out, struct jr_err *err)
{
	const char *colon;
	size_t hlen;

	memset(out, 0, sizeof(*out));
	if (strlen(s) >= sizeof(out->text))
		return jr_err_set(err, EINVAL, "--lane %.64s...: too long", s);
	snprintf(out->text, sizeof(out->text), "%s", s);
	if (s[0] == '[') {
		const char *port =
		    parse_bracketed(s, &out->addr, &out->addr_len);

		if (!port)
			return jr_err_set(
			    err, EINVAL,
			    "--lane %s: expected [IPv6-ADDRESS]:PORT, e.g. [::1]:4000",
			    s);
		colon = port - 1;
		out->host = true;
	} else {
		colon = strrchr(s, ':');
		if (!colon || colon == s)
			return jr_err_set(
			    err, EINVAL,
			    "--lane %s: expected HOST:PORT or NAME:PORT with a port, e.g. 127.0.0.1:4000 or api.example.com:443",
			    s);
		hlen = (size_t)(colon - s);
		if (memchr(s, ':', hlen))
			return jr_err_set(
			    err, EINVAL,
			    "--lane %s: an IPv6 address goes in brackets, e.g. [::1]:4000",
			    s);
		if (is_localhost(s, hlen))
			out->host = parse_literal("127.0.0.1", 9, AF_INET,
						  &out->addr, &out->addr_len);
		else if (ends_localhost(s, hlen))
			return jr_err_set(
			    err, EINVAL,
			    "--lane %s: a .localhost name is the host's loopback (RFC 6761); write the address, e.g. 127.0.0.1%s",
			    s, colon);
		else
			out->host = parse_literal(s, hlen, AF_INET, &out->addr,
						  &out->addr_len);
	}
	if (parse_port(colon + 1, strlen(colon + 1), &out->port) < 0)
		return jr_err_set(err, EINVAL,
				  "--lane %s: the port must be 1..65535", s);
	if (out->host) {
		set_port(&out->addr, out->port);
		return 0;
	}
	/* A name lane is an allow entry: its grammar is the allowlist's. */
	struct jr_policy p;
	struct jr_err perr = { 0 };
	int r;

	jr_policy_init(&p);
	r = jr_policy_add(&p, s, &perr);
	jr_policy_free(&p);
	if (r < 0)
		return jr_err_set(
		    err, EINVAL,
		    "--lane %s: not an address literal, and not a valid NAME:PORT entry (%s)",
		    s, perr.msg);
	return 0;
}

int jr_publish_parse(const char *s, struct jr_publish *out, struct jr_err *err)
{
	static const char usage[] =
	    "expected [ADDR:]HOSTPORT:PORT, e.g. 8080:8000, 127.0.0.1:8080:8000 or [::1]:8080:8000, ports 1..65535";
	const char *ports = s, *mid, *last;
	bool have_addr = false;

	memset(out, 0, sizeof(*out));
	if (strlen(s) >= sizeof(out->text))
		return jr_err_set(err, EINVAL, "--publish %.64s...: too long",
				  s);
	snprintf(out->text, sizeof(out->text), "%s", s);
	if (s[0] == '[') {
		ports = parse_bracketed(s, &out->addr, &out->addr_len);
		if (!ports)
			return jr_err_set(err, EINVAL, "--publish %s: %s", s,
					  usage);
		have_addr = true;
	}
	mid = strchr(ports, ':');
	last = strrchr(ports, ':');
	if (!mid)
		return jr_err_set(err, EINVAL, "--publish %s: %s", s, usage);
	if (mid != last) {
		/* ADDR:HOSTPORT:PORT, ADDR an IPv4 literal */
		if (have_addr || memchr(mid + 1, ':', (size_t)(last - mid - 1)))
			return jr_err_set(err, EINVAL, "--publish %s: %s", s,
					  usage);
		if (!parse_literal(ports, (size_t)(mid - ports), AF_INET,
				   &out->addr, &out->addr_len))
			return jr_err_set(
			    err, EINVAL,
			    "--publish %s: the address must be an IPv4 literal or an [IPv6] literal",
			    s);
		have_addr = true;
		ports = mid + 1;
		mid = last;
	}
	if (parse_port(ports, (size_t)(mid - ports), &out->host_port) < 0 ||
	    parse_port(mid + 1, strlen(mid + 1), &out->port) < 0)
		return jr_err_set(err, EINVAL, "--publish %s: %s", s, usage);
	if (!have_addr) {
		struct sockaddr_in *sin = (struct sockaddr_in *)&out->addr;

		sin->sin_family = AF_INET;
		sin->sin_addr.s_addr = htonl(INADDR_LOOPBACK);
		out->addr_len = sizeof(*sin);
	}
	set_port(&out->addr, out->host_port);
	return 0;
}

/* A host lane holds its port on the sandbox's loopback (relaynet.c), so
 * the command could not listen there for a published port. */
#define LANE_VS_PUBLISH                                                        \
	"--lane %s: port %u is served inside on 127.0.0.1 by the lane, so the command cannot listen on it for --publish %s; publish another port"

int jr_lanes_add_lane(struct jr_lanes *l, const char *s,
		      const uint16_t *reserved, size_t n_reserved,
		      struct jr_err *err)
{
	struct jr_lane lane;
	int r;

	if (l->n_lane >= JR_LANE_MAX)
		return jr_err_set(err, EINVAL, "--lane %s: at most %d lanes", s,
				  JR_LANE_MAX);
	r = jr_lane_parse(s, &lane, err);
	if (r < 0)
		return r;
	if (lane.host) {
		for (size_t i = 0; i < n_reserved; i++)
			if (reserved[i] == lane.port)
				return jr_err_set(
				    err, EINVAL,
				    "--lane %s: port %u is one of the relay's own ports on the gateway; run the service on another port",
				    s, lane.port);
		for (size_t i = 0; i < l->n_lane; i++)
			if (l->lane[i].host && l->lane[i].port == lane.port)
				return jr_err_set(
				    err, EINVAL,
				    "--lane %s: port %u is already the gateway port of --lane %s (a host lane keeps its port on the gateway)",
				    s, lane.port, l->lane[i].text);
		for (size_t i = 0; i < l->n_publish; i++)
			if (l->publish[i].port == lane.port)
				return jr_err_set(err, EINVAL, LANE_VS_PUBLISH,
						  s, lane.port,
						  l->publish[i].text);
		l->n_host++;
	}
	l->lane[l->n_lane++] = lane;
	return 0;
}

int jr_lanes_add_publish(struct jr_lanes *l, const char *s, struct jr_err *err)
{
	struct jr_publish p;
	int r;

	if (l->n_publish >= JR_PUBLISH_MAX)
		return jr_err_set(err, EINVAL,
				  "--publish %s: at most %d published ports", s,
				  JR_PUBLISH_MAX);
	r = jr_publish_parse(s, &p, err);
	if (r < 0)
		return r;
	for (size_t i = 0; i < l->n_lane; i++)
		if (l->lane[i].host && l->lane[i].port == p.port)
			return jr_err_set(err, EINVAL, LANE_VS_PUBLISH,
					  l->lane[i].text, p.port, s);
	for (size_t i = 0; i < l->n_publish; i++)
		if (l->publish[i].addr_len == p.addr_len &&
		    memcmp(&l->publish[i].addr, &p.addr, p.addr_len) == 0)
			return jr_err_set(
			    err, EINVAL,
			    "--publish %s: the same host address and port as --publish %s",
			    s, l->publish[i].text);
	l->publish[l->n_publish++] = p;
	return 0;
}

size_t jr_lanes_host_ports(const struct jr_lanes *l, uint16_t *ports,
			   size_t max)
{
	size_t n = 0;

	for (size_t i = 0; i < l->n_lane && n < max; i++)
		if (l->lane[i].host)
			ports[n++] = l->lane[i].port;
	return n;
}

size_t jr_lanes_publish_ports(const struct jr_lanes *l, uint16_t *ports,
			      size_t max)
{
	size_t n = 0;

	for (size_t i = 0; i < l->n_publish && n < max; i++)
		ports[n++] = l->publish[i].port;
	return n;
}

/* @host (a --secret binding's: lowercase, no trailing dot, a v6 literal
 * without brackets) as an address, "localhost" as 127.0.0.1. */
static bool binding_addr(const char *host, struct sockaddr_storage *ss)
{
	socklen_t len;

	if (is_localhost(host, strlen(host)))
		host = "127.0.0.1";
	return parse_literal(host, strlen(host),
			     strchr(host, ':') ? AF_INET6 : AF_INET, ss, &len);
}

static bool same_addr(const struct sockaddr_storage *a,
		      const struct sockaddr_storage *b)
{
	if (a->ss_family != b->ss_family)
		return false;
	if (a->ss_family == AF_INET)
		return ((const struct sockaddr_in *)a)->sin_addr.s_addr ==
		       ((const struct sockaddr_in *)b)->sin_addr.s_addr;
	return memcmp(&((const struct sockaddr_in6 *)a)->sin6_addr,
		      &((const struct sockaddr_in6 *)b)->sin6_addr,
		      sizeof(struct in6_addr)) == 0;
}

int jr_lanes_check_secret(const struct jr_lanes *l, const char *spec,
			  const char *host, struct jr_err *err)
{
	static const char why[] =
	    "a host lane is a plain TCP tunnel the relay does not look into, so the model server would receive the placeholder";
	static const char fix[] =
	    "keep the key in the model gateway, or give the command the real key (--setenv)";
	struct sockaddr_storage ss;

	if (strcmp(host, JR_LANE_HOST_NAME) == 0)
		return jr_err_set(err, EINVAL,
				  "--secret %s: %s is the model lane: %s; %s",
				  spec, host, why, fix);
	if (!binding_addr(host, &ss))
		return 0;
	for (size_t i = 0; i < l->n_lane; i++)
		if (l->lane[i].host && same_addr(&ss, &l->lane[i].addr))
			return jr_err_set(
			    err, EINVAL,
			    "--secret %s: %s is the address of --lane %s: %s; %s",
			    spec, host, l->lane[i].text, why, fix);
	return 0;
}

/* The host lane for a template's {lane} (@port 0: the only one) or
 * {lane:PORT}; NULL with @err set when there is none, or several. */
static const struct jr_lane *template_lane(const struct jr_lanes *l,
					   const char *arg, uint16_t port,
					   struct jr_err *err)
{
	const struct jr_lane *found = NULL;

	for (size_t i = 0; i < l->n_lane; i++)
		if (l->lane[i].host && (!port || l->lane[i].port == port))
			found = &l->lane[i];
	if (port && !found)
		jr_err_set(
		    err, EINVAL,
		    "--lane-env %s: {lane:%u} names no host lane; add --lane ADDRESS:%u (e.g. 127.0.0.1:%u)",
		    arg, port, port, port);
	else if (!port && l->n_host > 1)
		jr_err_set(
		    err, EINVAL,
		    "--lane-env %s: {lane} means the only host lane, and there are %zu; write {lane:PORT}",
		    arg, l->n_host);
	else if (!port && !found)
		jr_err_set(
		    err, EINVAL,
		    "--lane-env %s: {lane} means the only host lane, and there is none; add --lane ADDRESS:PORT (e.g. 127.0.0.1:4000)",
		    arg);
	else
		return found;
	return NULL;
}

/*
 * One placeholder at @p ("{lane}" or "{lane:PORT}", @p at the '{'): its
 * length into @used and the port (0 for {lane}) into @port; -EINVAL when
 * @p starts neither.
 */
static int parse_placeholder(const char *p, size_t *used, uint16_t *port)
{
	const char *close;

	*port = 0;
	if (strncmp(p, "{lane}", 6) == 0) {
		*used = 6;
		return 0;
	}
	if (strncmp(p, "{lane:", 6) != 0)
		return -EINVAL;
	close = strchr(p + 6, '}');
	if (!close || parse_port(p + 6, (size_t)(close - p - 6), port) < 0)
		return -EINVAL;
	*used = (size_t)(close - p + 1);
	return 0;
}

/* Append @n bytes of @s to @buf (JR_LANE_ENV_MAX bytes) at *@len. */
static bool append(char *buf, size_t *len, const char *s, size_t n)
{
	if (*len + n >= JR_LANE_ENV_MAX)
		return false;
	memcpy(buf + *len, s, n);
	*len += n;
	buf[*len] = '\0';
	return true;
}

/* The template after NAME= into @buf; with @l NULL the syntax only. */
static int expand_template(const struct jr_lanes *l, const char *arg,
			   const char *t, char *buf, struct jr_err *err)
{
	size_t len = 0, used, lanes = 0;
	uint16_t port;
	char host[sizeof(JR_LANE_HOST_NAME) + 8];
	const struct jr_lane *lane;

	buf[0] = '\0';
	for (const char *p = t; *p; p += used) {
		used = 1;
		if ((p[0] == '{' && p[1] == '{') ||
		    (p[0] == '}' && p[1] == '}')) {
			used = 2;
			if (!append(buf, &len, p, 1))
				goto too_long;
			continue;
		}
		if (*p == '}' ||
		    (*p == '{' && parse_placeholder(p, &used, &port) < 0))
			return jr_err_set(
			    err, EINVAL,
			    "--lane-env %s: '%c' at offset %zu is not {lane} or {lane:PORT} (a literal brace is written twice: {{ or }})",
			    arg, *p, (size_t)(p - t));
		if (*p != '{') {
			if (!append(buf, &len, p, 1))
				goto too_long;
			continue;
		}
		lanes++;
		if (!l)
			continue;
		lane = template_lane(l, arg, port, err);
		if (!lane)
			return -EINVAL;
		snprintf(host, sizeof(host), "%s:%u", JR_LANE_HOST_NAME,
			 lane->port);
		if (!append(buf, &len, host, strlen(host)))
			goto too_long;
	}
	if (!lanes)
		return jr_err_set(
		    err, EINVAL,
		    "--lane-env %s: the template names no lane: write {lane} or {lane:PORT}, e.g. OPENAI_BASE_URL=http://{lane}/v1 (a fixed value is --setenv)",
		    arg);
	return 0;
too_long:
	return jr_err_set(err, EINVAL,
			  "--lane-env %.64s...: longer than %d bytes", arg,
			  JR_LANE_ENV_MAX - 1);
}

int jr_lane_env_expand(const struct jr_lanes *l, const char *arg, char **name,
		       char **value, struct jr_err *err)
{
	const char *eq = strchr(arg, '=');
	const char *rule;
	char buf[JR_LANE_ENV_MAX];

	if (!eq)
		return jr_err_set(
		    err, EINVAL,
		    "--lane-env %s: expected NAME=TEMPLATE, e.g. OPENAI_BASE_URL=http://{lane}/v1",
		    arg);
	rule = jr_env_name_rule(arg, (size_t)(eq - arg));
	if (rule)
		return jr_err_set(err, EINVAL, "--lane-env %s: %s", arg, rule);
	if (expand_template(l, arg, eq + 1, buf, err) < 0)
		return -EINVAL;
	if (!name)
		return 0;
	*name = strndup(arg, (size_t)(eq - arg));
	*value = strdup(buf);
	if (!*name || !*value) {
		free(*name);
		free(*value);
		*name = *value = NULL;
		return jr_err_set(err, ENOMEM, "out of memory");
	}
	return 0;
}
