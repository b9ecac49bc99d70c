/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * lane.h - the model lane (--lane) and published ports (--publish): their
 * grammar, parsed into plain structs. Pure: no I/O, unit-tested.
 *
 *   --lane HOST:PORT      HOST an IPv4 literal or [IPv6] literal: a host
 *                         endpoint (typically on the host's loopback). The
 *                         relay listens on the gateway at PORT and forwards
 *                         to HOST:PORT from the runner's netns; the one
 *                         destination the SSRF guard does not ask about.
 *   --lane NAME:PORT      an --allow entry NAME:PORT that holds in every
 *                         mode, --net none included.
 *   --lane localhost:PORT the host's loopback, 127.0.0.1:PORT: a host lane.
 *   --lane-env NAME=TEMPLATE
 *                         NAME for the command, the template's {lane}
 *                         (the only host lane) and {lane:PORT} replaced
 *                         by host.jailrun.internal:PORT.
 *   --publish [ADDR:]HOSTPORT:PORT
 *                         inbound: a listener on the host at ADDR (default
 *                         127.0.0.1; [v6] in brackets) port HOSTPORT
 *                         forwards to the command's PORT over the veth.
 */
#ifndef JR_LANE_H
#define JR_LANE_H

#include <netinet/in.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/socket.h>

#include "err.h"
#include "host.h"

/* Host lanes and published ports each take a descriptor slot in the
 * SETUP_OK hand-over or a listener in the runner; a bound keeps both
 * small and fixed. */
#define JR_LANE_MAX 16
#define JR_PUBLISH_MAX 16

/* A --lane-env value, expanded, with its NUL: a URL, not a document. */
#define JR_LANE_ENV_MAX 1024

/* The name that resolves to the gateway inside (relay_dns.c). */
#define JR_LANE_HOST_NAME "host.jailrun.internal"

struct jr_lane {
	bool host;		      /* HOST:PORT with an address literal */
	struct sockaddr_storage addr; /* host: the endpoint, port set */
	socklen_t addr_len;
	uint16_t port;		    /* host byte order */
	char text[JR_HOST_MAX + 8]; /* as given: NAME:PORT is an allow entry */
};

struct jr_publish {
	struct sockaddr_storage addr; /* host side: ADDR:HOSTPORT */
	socklen_t addr_len;
	uint16_t host_port; /* host byte order */
	uint16_t port;	    /* the command's port, host byte order */
	char text[JR_HOST_MAX + 16];
};

struct jr_lanes {
	struct jr_lane lane[JR_LANE_MAX];
	size_t n_lane;
	size_t n_host; /* how many of lane[] are host lanes */
	struct jr_publish publish[JR_PUBLISH_MAX];
	size_t n_publish;
};

/* How many fds init hands over for the lanes after the mode's own
 * (initproto.h): a gateway listener per host lane, then a listener on the
 * sandbox's own 127.0.0.1:PORT per host lane, with @loopback6 one on its
 * [::1]:PORT per host lane, and the publish socket factory when anything
 * is published. */
static inline size_t jr_lanes_nfds(const struct jr_lanes *l, bool loopback6)
{
	return (loopback6 ? 3 : 2) * l->n_host + (l->n_publish ? 1 : 0);
}

/*
 * jr_lane_parse - parse one --lane value.
 * Return: 0, or -EINVAL with @err naming the value and the rule.
 */
int jr_lane_parse(const char *s, struct jr_lane *out, struct jr_err *err);

/*
 * jr_publish_parse - parse one --publish value.
 * Return: 0, or -EINVAL with @err naming the value and the rule.
 */
int jr_publish_parse(const char *s, struct jr_publish *out, struct jr_err *err);

/*
 * jr_lanes_add_lane / jr_lanes_add_publish - parse and append, refusing
 * more than the maximum, a second host lane on the same gateway port, a
 * host lane on a port of the relay's own (@reserved, @n_reserved), a
 * second publish of the same host address and port, and a host lane and
 * a publish of the same command port (the lane holds it on loopback).
 * Return: 0 or -EINVAL with @err set.
 */
int jr_lanes_add_lane(struct jr_lanes *l, const char *s,
		      const uint16_t *reserved, size_t n_reserved,
		      struct jr_err *err);
int jr_lanes_add_publish(struct jr_lanes *l, const char *s, struct jr_err *err);

/* The gateway ports of the host lanes, in order; returns how many. */
size_t jr_lanes_host_ports(const struct jr_lanes *l, uint16_t *ports,
			   size_t max);
/* The command's ports that are published, in order; returns how many. */
size_t jr_lanes_publish_ports(const struct jr_lanes *l, uint16_t *ports,
			      size_t max);

/*
 * jr_lanes_check_secret - may --secret @spec bind its @host (as
 * jr_secret_spec_parse() keeps it) with the lanes @l? Not when @host is
 * host.jailrun.internal or the address of a host lane ("localhost" as
 * 127.0.0.1), on any port: the lane is a TCP tunnel the relay never looks
 * into, so the server would get the placeholder.
 * Return: 0, or -EINVAL with @err naming the secret, the lane and the fix.
 */
int jr_lanes_check_secret(const struct jr_lanes *l, const char *spec,
			  const char *host, struct jr_err *err);

/*
 * jr_lane_env_expand - one --lane-env NAME=TEMPLATE. In TEMPLATE, {lane}
 * is host.jailrun.internal:PORT of the only host lane, {lane:PORT} that
 * of the host lane on PORT, {{ and }} a literal brace; any other brace,
 * a template naming no lane, or a lane @l does not have is refused.
 * @l NULL checks the grammar only (the lanes may come later).
 * @name, @value: NULL, or set to malloc'd copies (free both).
 * Return: 0, or -EINVAL/-ENOMEM with @err naming @arg and the rule.
 */
int jr_lane_env_expand(const struct jr_lanes *l, const char *arg, char **name,
		       char **value, struct jr_err *err);

#endif
