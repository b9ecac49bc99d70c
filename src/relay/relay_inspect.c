// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * relay_inspect.c - where the relay meets secrets and TLS inspection
 * (issue 13): two hooks on the proxy's request path, nothing else.
 *
 * Theory of operation
 *
 * relay_inspect_connect(): an allowed CONNECT whose upstream just
 * connected, to a host that is inspected (bound to a --secret, or named
 * by --inspect). Instead of "200" and a splice tunnel, both descriptors
 * leave the relay's epoll set and go to an inspection thread
 * (tls_inspect.c), which answers "200" itself and serves the request
 * inside TLS. The relay writes the CONNECT's audit line as for any tunnel
 * and frees the slot; the inspection thread writes one line per request
 * ("via":"inspect"). A CONNECT to any other host never gets here.
 *
 * relay_inspect_captured(): the same for a captured connection
 * (transparent egress) to an inspected name whose first bytes were a TLS
 * ClientHello: they go along to the handshake.
 *
 * relay_inspect_plain(): an absolute-form (plain HTTP) request that the
 * policy allowed: the proxy's, or a captured one relay_httprules.c put in
 * absolute form. To a host and port a secret is bound to it is refused
 * unless --secret-allow-plaintext (the real value would cross the network
 * in clear); a placeholder headed for a host and port it is not bound to
 * (another host, or its host on port 80 when the binding means 443) is
 * refused as secret-misuse; otherwise the head sent upstream gets its
 * real values.
 *
 * relay_inspect_cut_removed(): a live "remove --close" (relay_control.c)
 * ends the inspected connections the removed entry allowed, too: they
 * left the relay's slots at the handoff, so the inspection cuts them.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/epoll.h>

#include "log.h"
#include "relay_inspect.h"
#include "relay_loop.h"
#include "secrets.h"
#include "tls_inspect.h"

/* Take @fd out of the relay's epoll set (it moves to another thread). */
static void ep_forget(struct jr_relay *r, int fd, uint32_t *cur)
{
	if (fd >= 0 && *cur != UINT32_MAX)
		epoll_ctl(r->epfd, EPOLL_CTL_DEL, fd, NULL);
	*cur = UINT32_MAX;
}

bool relay_inspect_connect(struct jr_relay *r, struct conn *c)
{
	int e;

	if (!r->cfg.inspect || !jr_secrets_inspects(r->cfg.secrets, c->host))
		return false;
	if (c->in_len > c->req.head_len) {
		/* Bytes sent before our answer cannot be fed to the
		 * handshake the inspection thread starts afresh. */
		relay_reply(
		    r, c, 400, NULL, "inspect-early-data", false,
		    "jailrun: %s is inspected: wait for the CONNECT answer before sending",
		    c->host);
		return true;
	}
	ep_forget(r, c->cfd, &c->cev);
	ep_forget(r, c->ufd, &c->uev);
	e = jr_inspect_handoff(r->cfg.inspect, c->cfd, c->ufd, c->host, c->port,
			       c->addr, c->id);
	c->cfd = c->ufd = -1; /* the inspection's now, in every case */
	if (e < 0) {
		c->status = 503;
		c->allowed = true;
		c->reason = e == -EBUSY ? "inspect-busy" : "out-of-memory";
	} else {
		c->status = 200;
		c->allowed = true;
		c->reason = "inspected";
	}
	relay_conn_free(r, c);
	return true;
}

bool relay_inspect_captured(struct jr_relay *r, struct conn *c)
{
	int e;

	/* TLS only: the peek saw a ClientHello whose name is c->host. */
	if (!r->cfg.inspect || !c->in_len || (uint8_t)c->in[0] != 0x16 ||
	    !jr_secrets_inspects(r->cfg.secrets, c->host))
		return false;
	ep_forget(r, c->cfd, &c->cev);
	ep_forget(r, c->ufd, &c->uev);
	e = jr_inspect_handoff_captured(r->cfg.inspect, c->cfd, c->ufd, c->host,
					c->port, c->addr, c->id, c->in,
					c->in_len);
	c->cfd = c->ufd = -1;
	c->status = e < 0 ? 503 : 200;
	c->allowed = true;
	c->reason = e == -EBUSY ? "inspect-busy"
		    : e < 0	? "out-of-memory"
				: "inspected";
	relay_conn_free(r, c);
	return true;
}

bool relay_inspect_plain(struct jr_relay *r, struct conn *c)
{
	struct jr_secrets *set = r->cfg.secrets;
	struct jr_secrets_verdict v;
	char *head = NULL, msg[JR_HOST_MAX * 2 + JR_SECRET_NAME_MAX + 256];
	size_t len = 0;
	int e;

	if (!set || !set->n || c->req.form != JR_HTTP_FORM_ABSOLUTE)
		return false;
	if (jr_secrets_host_bound(set, c->host, c->port) &&
	    !set->allow_plaintext) {
		relay_reply(
		    r, c, 403, "secret-plaintext", "secret-plaintext", false,
		    "jailrun: %s port %u is bound to a secret: use https (or --secret-allow-plaintext)",
		    c->host, c->port);
		return true;
	}
	e = jr_secrets_rewrite_head(set, c->host, c->port, c->req.upstream_head,
				    c->req.upstream_head_len, &head, &len, &v);
	if (e < 0) {
		relay_out_of_memory(r, c);
		return true;
	}
	if (e == 1) {
		atomic_fetch_add(&set->misuse, 1);
		jr_secrets_misuse_message(&v, c->host, c->port, msg,
					  sizeof(msg));
		relay_reply(r, c, 403, "secret-misuse", "secret-misuse", false,
			    "%s", msg);
		return true;
	}
	if (v.injected)
		atomic_fetch_add(&set->injected, 1);
	explicit_bzero(c->req.upstream_head, c->req.upstream_head_len);
	free(c->req.upstream_head);
	c->req.upstream_head = head;
	c->req.upstream_head_len = len;
	return false;
}

/* What close_removed() asks of each inspected connection. */
struct cut_removed {
	const struct jr_relay *r;
	const struct jr_policy *removed;
};

static bool cut_match(const char *host, uint16_t port, void *arg)
{
	const struct cut_removed *x = arg;

	return jr_policy_check_name(x->removed, host, port) == JR_ALLOWED &&
	       jr_policy_check_name(x->r->cfg.policy, host, port) != JR_ALLOWED;
}

/*
 * relay_inspect_cut_removed - cut the inspected connections that the
 * entries of @removed allowed and the policy no longer does (the same
 * rule as for the relay's own connections).
 * Return: how many were cut.
 */
unsigned relay_inspect_cut_removed(struct jr_relay *r,
				   const struct jr_policy *removed)
{
	struct cut_removed x = { .r = r, .removed = removed };

	if (!r->cfg.inspect)
		return 0;
	return jr_inspect_cut(r->cfg.inspect, cut_match, &x);
}
