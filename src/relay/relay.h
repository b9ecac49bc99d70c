/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * relay.h - the relay thread: the sandbox's only way out.
 *
 * One epoll loop in one thread of the runner serves the HTTP proxy port
 * and the DNS ports whose listening sockets live in the relay netns, and
 * opens upstream connections from the runner's own network namespace, to
 * allowlisted destinations only.
 */
#ifndef JR_RELAY_H
#define JR_RELAY_H

#include <stdbool.h>
#include <stdint.h>

#include "audit.h"
#include "err.h"
#include "policy.h"
#include "relaynet.h"
#include "secrets.h"
#include "tls_inspect.h"

struct jr_relay_config {
	const struct jr_policy *policy;
	struct jr_relay_listeners listeners; /* the relay takes ownership */
	unsigned int max_conns;
	uint64_t header_timeout_ms;
	uint64_t connect_timeout_ms;
	uint64_t idle_timeout_ms;
	struct jr_audit *audit;
	/*
	 * Transparent egress (--transparent on, the default): the DNS
	 * forwarder answers an allowed name with a synthetic address
	 * (fakeip.h) instead of resolving it, and connections captured by
	 * the relay netns's redirect arrive on listeners.transparent
	 * (relay_transparent.c).
	 */
	bool transparent;
	/*
	 * With @transparent: the synthetic table, with the names the host
	 * pins in /etc/hosts already numbered (hostsfile.h), or NULL for a
	 * fresh one. The relay takes ownership, also on failure.
	 */
	struct jr_fakeip *fakeip;
	/*
	 * With @transparent: the sandbox link has IPv6 (relaynet.h). AAAA
	 * for an allowed name is then answered with the name's synthetic
	 * IPv6 address, and captured IPv6 TCP arrives on
	 * listeners.transparent6.
	 */
	bool ipv6;
	/* --deny-message: a line added to the body of every 403, or NULL. */
	const char *deny_message;
	/*
	 * The model lane and published ports (relay_lane.c). The relay
	 * takes ownership of every fd here; -1 where there is none.
	 * @lanes: the parsed --lane and --publish, or NULL
	 * @lane_listen: a gateway listener per host lane, in --lane order
	 * @lane_local: the same lanes' listeners on the worker's 127.0.0.1
	 * @lane_local6: and on its [::1] (-1: the host has no IPv6)
	 * @publish_listen: a host listener per --publish (publish.h)
	 * @factory: the publish socket factory's end (publish.h)
	 * @gateway: host.jailrun.internal resolves to it (with host lanes)
	 * @worker: the command's address, where published ports connect to
	 */
	const struct jr_lanes *lanes;
	int lane_listen[JR_LANE_MAX];
	int lane_local[JR_LANE_MAX];
	int lane_local6[JR_LANE_MAX];
	int publish_listen[JR_PUBLISH_MAX];
	int factory;
	struct in_addr gateway;
	struct in_addr worker;
	/*
	 * --control / --control-fd (relay_control.c): when @control is set,
	 * the relay takes @control_fd (a listening or connected unix
	 * stream socket), decides with its own changeable copy of @policy,
	 * and serves live policy changes on it. @control_check_uid: refuse
	 * clients whose SO_PEERCRED uid is not the runner's.
	 */
	bool control;
	int control_fd;
	bool control_check_uid;
	/*
	 * --ask (relay_ask.c): with @control, a request the allowlist alone
	 * refuses is held for up to @ask_timeout_ms for a decision on the
	 * control socket instead of refused at once.
	 */
	bool ask;
	uint64_t ask_timeout_ms;
	/*
	 * --ask tty (askprompt.h): @ask_client, when >= 0, is one more
	 * control client the relay takes at start (the runner's end of a
	 * socketpair; the control module starts for it even without
	 * @control); @ask_notify, when >= 0, is an eventfd the relay writes
	 * each time the held set changes. The runner owns @ask_notify.
	 */
	int ask_client;
	int ask_notify;
	/* Secrets and TLS inspection (secrets.h, tls_inspect.h); NULL when
	 * no --secret or --inspect is given. */
	struct jr_secrets *secrets;
	struct jr_inspect *inspect;
};

struct jr_relay;

/*
 * jr_relay_start - start the relay thread.
 * Return: 0 and *out, or -errno with @err set (the listeners are closed).
 */
int jr_relay_start(const struct jr_relay_config *cfg, struct jr_relay **out,
		   struct jr_err *err);

/*
 * jr_relay_stop - stop serving, close every connection (each is logged),
 * join the thread and free. NULL is a no-op.
 */
void jr_relay_stop(struct jr_relay *r);

#endif
