// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * landlock.c - Landlock as a second wall behind the mount layer and nft.
 *
 * Theory of operation: the mount namespace makes the host read-only and
 * nft keeps TCP to the relay; a mistake in either (a mount left writable,
 * a rule the kernel read differently) should not be an escape on its own.
 * Landlock (landlock(7)) lets an unprivileged process restrict itself and
 * its descendants for good, checked by the kernel on each access, whatever
 * the mount table says.
 *
 * The ABI is asked at run time (landlock_create_ruleset with
 * LANDLOCK_CREATE_RULESET_VERSION), in the runner, so that -v, --check and
 * --landlock require see the same answer; a kernel without it is not a
 * failure unless --landlock require. What the command gets:
 *  - filesystem writes (write, truncate, create, remove, rename/link
 *    across directories, every node type) only beneath the writable roots
 *    (the working directory and --rw paths, given by the caller), the
 *    tmpfs mounts (/tmp, /var/tmp, /dev/shm, /run), the sandbox's /proc
 *    (uid_map for nested namespaces, oom_score_adj; /proc/sys is
 *    read-only) and the device nodes a
 *    program writes to (/dev/null, zero, full, random, urandom, tty, ptmx,
 *    /dev/pts). Reads are not restricted here: hiding secrets is the mount
 *    layer's job, and a read rule list would have to name every library.
 *  - ABI >= 4, --net allowlist: TCP connect only to the relay's ports
 *    (proxy 3128, DNS 53) and every port an --allow entry names. Landlock
 *    matches the port only, not the address, so an entry that allows any
 *    port makes the rule inexpressible: then it is left out and -v says
 *    so. Not in --net none: there only loopback exists, and a port rule
 *    would break servers the command runs for itself. TCP bind is not
 *    restricted: a port bound in the worker netns serves no one outside.
 *  - ABI >= 6: LANDLOCK_SCOPE_ABSTRACT_UNIX_SOCKET (no connect to an
 *    abstract socket made outside the sandbox's domain, beside the netns
 *    that already separates them) and LANDLOCK_SCOPE_SIGNAL (no signal to
 *    a process outside the domain: init, or anything a pidfd reaches).
 * LANDLOCK_ACCESS_FS_RESOLVE_UNIX (connect to pathname unix sockets) is
 * not in Linux 6.18; unixguard.c is the wall for that.
 *
 * The ruleset is built by init after the mounts, so the paths are opened
 * in the sandbox's own view, and applied by the pre-exec child after
 * no_new_privs and before the seccomp filter. The uapi header of the build
 * machine may predate the later ABIs, so the constants and the attribute
 * layout are spelled out here as the kernel defines them.
 */

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "cleanup.h"
#include "fslayout.h"
#include "fspolicy.h"
#include "landlock.h"
#include "log.h"

#ifndef SYS_landlock_create_ruleset
#define SYS_landlock_create_ruleset 444
#define SYS_landlock_add_rule 445
#define SYS_landlock_restrict_self 446
#endif

/* include/uapi/linux/landlock.h */
#define LL_CREATE_RULESET_VERSION (1U << 0)
#define LL_RULE_PATH_BENEATH 1
#define LL_RULE_NET_PORT 2
#define LL_FS_WRITE_FILE (1ULL << 1)
#define LL_FS_REMOVE_DIR (1ULL << 4)
#define LL_FS_REMOVE_FILE (1ULL << 5)
#define LL_FS_MAKE_CHAR (1ULL << 6)
#define LL_FS_MAKE_DIR (1ULL << 7)
#define LL_FS_MAKE_REG (1ULL << 8)
#define LL_FS_MAKE_SOCK (1ULL << 9)
#define LL_FS_MAKE_FIFO (1ULL << 10)
#define LL_FS_MAKE_BLOCK (1ULL << 11)
#define LL_FS_MAKE_SYM (1ULL << 12)
#define LL_FS_REFER (1ULL << 13)		  /* ABI 2 */
#define LL_FS_TRUNCATE (1ULL << 14)		  /* ABI 3 */
#define LL_NET_CONNECT_TCP (1ULL << 1)		  /* ABI 4 */
#define LL_SCOPE_ABSTRACT_UNIX_SOCKET (1ULL << 0) /* ABI 6 */
#define LL_SCOPE_SIGNAL (1ULL << 1)		  /* ABI 6 */

struct ll_ruleset_attr {
	uint64_t handled_access_fs;
	uint64_t handled_access_net; /* ABI 4 */
	uint64_t scoped;	     /* ABI 6 */
};

struct ll_path_beneath_attr {
	uint64_t allowed_access;
	int32_t parent_fd;
} __attribute__((packed));

struct ll_net_port_attr {
	uint64_t allowed_access;
	uint64_t port;
};

/* Beside the private tmpfs mounts (fspolicy.c's jr_fs_private_tmpfs[],
 * one list for the layout and these rules): */
const char *const jr_landlock_fixed_writable[] = {
	/* the sandbox's own procfs: /proc/self/uid_map for nested namespaces
	 * (--allow-nested), oom_score_adj, comm...; /proc/sys is mounted
	 * read-only, and the rest is the kernel's own permission checks */
	"/proc",
	/* device nodes programs open for writing (bubblewrap's --dev set) */
	"/dev/null",
	"/dev/zero",
	"/dev/full",
	"/dev/random",
	"/dev/urandom",
	"/dev/tty",
	"/dev/ptmx",
	"/dev/pts",
};
const size_t jr_landlock_n_fixed_writable =
    sizeof(jr_landlock_fixed_writable) / sizeof(jr_landlock_fixed_writable[0]);

int jr_landlock_abi(void)
{
	long v = syscall(SYS_landlock_create_ruleset, NULL, 0,
			 LL_CREATE_RULESET_VERSION);

	return v < 0 ? -errno : (int)v;
}

static uint64_t handled_fs(int abi)
{
	uint64_t a = LL_FS_WRITE_FILE | LL_FS_REMOVE_DIR | LL_FS_REMOVE_FILE |
		     LL_FS_MAKE_CHAR | LL_FS_MAKE_DIR | LL_FS_MAKE_REG |
		     LL_FS_MAKE_SOCK | LL_FS_MAKE_FIFO | LL_FS_MAKE_BLOCK |
		     LL_FS_MAKE_SYM;

	if (abi >= 2)
		a |= LL_FS_REFER;
	if (abi >= 3)
		a |= LL_FS_TRUNCATE;
	return a;
}

static bool has_port(const uint16_t *ports, size_t n, uint16_t p)
{
	for (size_t i = 0; i < n; i++)
		if (ports[i] == p)
			return true;
	return false;
}

int jr_landlock_plan(enum jr_landlock_mode mode, enum jr_net_mode net,
		     const struct jr_policy *policy,
		     const char *const *writable, size_t n_writable,
		     struct jr_landlock_config *cfg, struct jr_err *err)
{
	int abi;

	memset(cfg, 0, sizeof(*cfg));
	if (mode == JR_LANDLOCK_OFF) {
		jr_verbose("landlock: off (--landlock off)");
		return 0;
	}
	abi = jr_landlock_abi();
	if (abi <= 0) {
		if (mode == JR_LANDLOCK_REQUIRE)
			return jr_err_set(
			    err, abi < 0 ? -abi : ENOSYS,
			    "--landlock require: this kernel offers no Landlock (%s); use a kernel with CONFIG_SECURITY_LANDLOCK and landlock in lsm=, or --landlock auto",
			    strerror(abi < 0 ? -abi : ENOSYS));
		jr_verbose("landlock: not available (%s); the mount layer "
			   "and nft are the walls",
			   strerror(abi < 0 ? -abi : ENOSYS));
		return 0;
	}
	cfg->abi = abi;
	cfg->fs = writable != NULL;
	cfg->writable = writable;
	cfg->n_writable = n_writable;
	cfg->scopes = abi >= 6;
	if (abi >= 4 && net == JR_NET_ALLOWLIST) {
		/* --net public: every port of every host. */
		bool any = policy->match_any;

		cfg->ports = calloc(policy->n + 2, sizeof(*cfg->ports));
		if (!cfg->ports)
			return jr_err_set(err, ENOMEM, "out of memory");
		cfg->ports[cfg->n_ports++] = JR_PROXY_PORT;
		cfg->ports[cfg->n_ports++] = JR_DNS_PORT;
		for (size_t i = 0; !any && i < policy->n; i++) {
			uint16_t p = policy->entries[i].port;

			if (p == 0) {
				any = true;
				break;
			}
			if (!has_port(cfg->ports, cfg->n_ports, p))
				cfg->ports[cfg->n_ports++] = p;
		}
		cfg->tcp = !any;
		if (any)
			jr_verbose(
			    "landlock: TCP connect not restricted: an --allow entry allows every port, which a port rule cannot express (nft still holds TCP to the relay)");
	}
	if (!cfg->fs && !cfg->tcp && !cfg->scopes) {
		/* Nothing left to restrict: landlock_create_ruleset(2)
		 * refuses an empty ruleset (ENOMSG). */
		cfg->abi = 0;
		jr_verbose("landlock: nothing to restrict (--fs host leaves "
			   "the host writable)");
		return 0;
	}
	if (!cfg->fs)
		jr_verbose("landlock: --fs host: writes not restricted "
			   "(--landlock require confines them to the "
			   "working directory)");
	else
		jr_verbose("landlock: ABI %d: writes only beneath %zu "
			   "writable root%s and the tmpfs and device nodes",
			   abi, n_writable, n_writable == 1 ? "" : "s");
	if (cfg->tcp || cfg->scopes)
		jr_verbose("landlock: ABI %d%s%s", abi,
			   cfg->tcp ? "; TCP connect only to the relay's and "
				      "allowed ports"
				    : "",
			   cfg->scopes ? "; abstract unix sockets and signals "
					 "scoped"
				       : "");
	return 0;
}

void jr_landlock_config_release(struct jr_landlock_config *cfg)
{
	free(cfg->ports);
	cfg->ports = NULL;
	cfg->n_ports = 0;
}

static int add_path(int ruleset, const char *path, uint64_t fs,
		    struct jr_err *err)
{
	_cleanup_close_ int fd = jr_fs_open(path);
	struct ll_path_beneath_attr pb;
	struct stat st;

	if (fd < 0 || fstat(fd, &st) < 0) {
		/* Nothing there: nothing to grant (and, read-only around
		 * it, nothing that could be created). */
		jr_debug("landlock: %s: %s, skipped", path, strerror(errno));
		return 0;
	}
	/* Only file rights may be granted on a non-directory (EINVAL). */
	pb.allowed_access =
	    S_ISDIR(st.st_mode) ? fs : fs & (LL_FS_WRITE_FILE | LL_FS_TRUNCATE);
	pb.parent_fd = fd;
	if (syscall(SYS_landlock_add_rule, ruleset, LL_RULE_PATH_BENEATH, &pb,
		    0) < 0)
		return jr_err_set(
		    err, errno, "landlock: cannot grant writes beneath %s: %s",
		    path, strerror(errno));
	return 0;
}

int jr_landlock_build(const struct jr_landlock_config *cfg, struct jr_err *err)
{
	struct ll_ruleset_attr attr = { 0 };
	_cleanup_close_ int ruleset = -1;
	size_t size = sizeof(attr.handled_access_fs);
	int r;

	attr.handled_access_fs = cfg->fs ? handled_fs(cfg->abi) : 0;
	if (cfg->tcp) {
		attr.handled_access_net = LL_NET_CONNECT_TCP;
		size = offsetof(struct ll_ruleset_attr, scoped);
	}
	if (cfg->scopes) {
		attr.scoped = LL_SCOPE_ABSTRACT_UNIX_SOCKET | LL_SCOPE_SIGNAL;
		size = sizeof(attr);
	}
	ruleset = (int)syscall(SYS_landlock_create_ruleset, &attr, size, 0);
	if (ruleset < 0)
		return jr_err_set(err, errno,
				  "landlock: cannot create the ruleset: %s",
				  strerror(errno));
	/* The ruleset fd is O_CLOEXEC (landlock_create_ruleset(2)). */
	for (size_t i = 0; cfg->fs && i < cfg->n_writable; i++) {
		r = add_path(ruleset, cfg->writable[i], attr.handled_access_fs,
			     err);
		if (r < 0)
			return r;
	}
	for (size_t i = 0; cfg->fs && i < jr_fs_n_private_tmpfs; i++) {
		r = add_path(ruleset, jr_fs_private_tmpfs[i].path,
			     attr.handled_access_fs, err);
		if (r < 0)
			return r;
	}
	for (size_t i = 0; cfg->fs && i < jr_landlock_n_fixed_writable; i++) {
		r = add_path(ruleset, jr_landlock_fixed_writable[i],
			     attr.handled_access_fs, err);
		if (r < 0)
			return r;
	}
	for (size_t i = 0; cfg->tcp && i < cfg->n_ports; i++) {
		struct ll_net_port_attr np = {
			.allowed_access = LL_NET_CONNECT_TCP,
			.port = cfg->ports[i],
		};

		if (syscall(SYS_landlock_add_rule, ruleset, LL_RULE_NET_PORT,
			    &np, 0) < 0)
			return jr_err_set(
			    err, errno,
			    "landlock: cannot allow TCP port %u: %s",
			    (unsigned int)cfg->ports[i], strerror(errno));
	}
	return steal_fd(&ruleset);
}

int jr_landlock_apply(int ruleset, struct jr_err *err)
{
	if (syscall(SYS_landlock_restrict_self, ruleset, 0) < 0)
		return jr_err_set(err, errno,
				  "landlock: cannot restrict the command: %s",
				  strerror(errno));
	return 0;
}
