/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * landlock.h - Landlock as a second wall: filesystem writes only to the
 * writable roots, the tmpfs mounts and the device nodes; on ABI >= 4 TCP
 * connect only to the relay's and the allowed ports; on ABI >= 6 the
 * abstract-socket and signal scopes. See the top of landlock.c.
 */
#ifndef JR_LANDLOCK_H
#define JR_LANDLOCK_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "err.h"
#include "options.h"
#include "policy.h"

struct jr_landlock_config {
	int abi;		     /* the kernel's ABI; 0: not used */
	const char *const *writable; /* writable roots (plus the fixed ones) */
	size_t n_writable;
	bool fs;	 /* restrict filesystem writes at all */
	bool tcp;	 /* restrict TCP connect to @ports */
	uint16_t *ports; /* malloc'd */
	size_t n_ports;
	bool scopes; /* ABI >= 6: abstract unix sockets and signals */
};

/*
 * jr_landlock_abi - the kernel's Landlock ABI version (>= 1), or -errno:
 * -ENOSYS (no Landlock in this kernel, or a filter says so), -EOPNOTSUPP
 * (built in but disabled at boot).
 */
int jr_landlock_abi(void);

/*
 * jr_landlock_plan - decide what the command gets, in the runner: @mode
 * and the kernel's ABI, the TCP ports from @policy (none when an entry
 * allows every port, or in --net none where only loopback exists). The
 * writable list is the caller's (the writable roots of the layout); NULL:
 * no filesystem rule (--fs host), only the TCP and scope walls.
 * Return: 0 (cfg->abi 0 when Landlock is off or absent in auto mode) or
 * -errno with @err set (absent under require).
 */
int jr_landlock_plan(enum jr_landlock_mode mode, enum jr_net_mode net,
		     const struct jr_policy *policy,
		     const char *const *writable, size_t n_writable,
		     struct jr_landlock_config *cfg, struct jr_err *err);

void jr_landlock_config_release(struct jr_landlock_config *cfg);

/*
 * jr_landlock_build - the ruleset, in init after the mounts (the paths are
 * opened in the sandbox's own view). Return: an O_CLOEXEC ruleset fd, or
 * -errno with @err set.
 */
int jr_landlock_build(const struct jr_landlock_config *cfg, struct jr_err *err);

/*
 * jr_landlock_apply - restrict the calling thread with @ruleset (needs
 * no_new_privs). For the pre-exec child. Return: 0 or -errno, @err set.
 */
int jr_landlock_apply(int ruleset, struct jr_err *err);

/* The fixed writable places beside the private tmpfs mounts (fspolicy.h):
 * the sandbox's /proc and the device nodes. */
extern const char *const jr_landlock_fixed_writable[];
extern const size_t jr_landlock_n_fixed_writable;

#endif
