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
 * Pure: nothing is bound, connected or resolved here.
 */
#include <arpa/inet.h>
#include <errno.h>
#include <stdio.h>
#include <string.h>

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
		out->host =
		    parse_literal(s, hlen, AF_INET, &out->addr, &out->addr_len);
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
