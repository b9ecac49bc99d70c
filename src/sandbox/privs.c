// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * privs.c - dropping privileges in the pre-exec child.
 *
 * Theory of operation: the process that will execve() the command was
 * forked by the sandbox's PID 1, which holds every capability over the
 * sandbox's user namespace (capabilities(7): the creator of a user namespace
 * starts with a full set in it). That power must not reach the command.
 *
 * Order matters: the securebits and the bounding set need CAP_SETPCAP, the
 * id switch needs CAP_SETUID/CAP_SETGID, so those come first and capset(2)
 * with empty sets comes last. SECBIT_NOROOT (locked) stops execve() from
 * granting capabilities to uid 0, which is what "--user root" maps to;
 * PR_SET_NO_NEW_PRIVS stops set-user-ID and file capabilities from adding
 * any back (prctl(2)). We use raw capget/capset rather than libcap: two
 * syscalls do not justify a dependency.
 */

#include <errno.h>
#include <grp.h>
#include <linux/capability.h>
#include <linux/securebits.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "privs.h"

#define JR_SECUREBITS                                                          \
	(SECBIT_NOROOT | SECBIT_NOROOT_LOCKED | SECBIT_NO_SETUID_FIXUP |       \
	 SECBIT_NO_SETUID_FIXUP_LOCKED | SECBIT_KEEP_CAPS_LOCKED |             \
	 SECBIT_NO_CAP_AMBIENT_RAISE | SECBIT_NO_CAP_AMBIENT_RAISE_LOCKED)

static int capset_empty(void)
{
	struct __user_cap_header_struct hdr = {
		.version = _LINUX_CAPABILITY_VERSION_3,
		.pid = 0,
	};
	struct __user_cap_data_struct data[_LINUX_CAPABILITY_U32S_3];

	memset(data, 0, sizeof(data));
	return (int)syscall(SYS_capset, &hdr, data);
}

static int caps_all_empty(void)
{
	struct __user_cap_header_struct hdr = {
		.version = _LINUX_CAPABILITY_VERSION_3,
		.pid = 0,
	};
	struct __user_cap_data_struct data[_LINUX_CAPABILITY_U32S_3];

	if (syscall(SYS_capget, &hdr, data) < 0)
		return -errno;
	for (size_t i = 0; i < _LINUX_CAPABILITY_U32S_3; i++)
		if (data[i].effective || data[i].permitted ||
		    data[i].inheritable)
			return -EPERM;
	return 0;
}

int jr_privs_drop(const struct jr_ids *ids, struct jr_err *err)
{
	uid_t ru, eu, su;
	gid_t rg, eg, sg;
	int cap;

	if (prctl(PR_SET_SECUREBITS, JR_SECUREBITS, 0, 0, 0) < 0)
		return jr_err_set(err, errno, "cannot lock the securebits: %s",
				  strerror(errno));

	/*
	 * Root's supplementary groups (host gid 0 among them) must go.
	 * Rootless, setgroups is denied in the namespace by design and the
	 * caller's own groups are all the command could have anyway.
	 */
	if (ids->privileged && setgroups(0, NULL) < 0)
		return jr_err_set(err, errno,
				  "cannot drop supplementary groups: %s",
				  strerror(errno));
	if (setresgid(ids->gid, ids->gid, ids->gid) < 0)
		return jr_err_set(err, errno, "cannot switch to gid %u: %s",
				  (unsigned)ids->gid, strerror(errno));
	if (setresuid(ids->uid, ids->uid, ids->uid) < 0)
		return jr_err_set(err, errno, "cannot switch to uid %u: %s",
				  (unsigned)ids->uid, strerror(errno));

	for (cap = 0;; cap++) {
		if (prctl(PR_CAPBSET_READ, cap, 0, 0, 0) < 0) {
			if (errno == EINVAL)
				break; /* past the kernel's last capability */
			return jr_err_set(
			    err, errno,
			    "cannot read the capability bounding set: %s",
			    strerror(errno));
		}
		if (prctl(PR_CAPBSET_DROP, cap, 0, 0, 0) < 0)
			return jr_err_set(
			    err, errno,
			    "cannot drop capability %d from the bounding set: %s",
			    cap, strerror(errno));
	}
	if (prctl(PR_CAP_AMBIENT, PR_CAP_AMBIENT_CLEAR_ALL, 0, 0, 0) < 0)
		return jr_err_set(err, errno,
				  "cannot clear ambient capabilities: %s",
				  strerror(errno));
	if (capset_empty() < 0)
		return jr_err_set(err, errno, "cannot drop capabilities: %s",
				  strerror(errno));
	if (prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) < 0)
		return jr_err_set(err, errno, "cannot set no_new_privs: %s",
				  strerror(errno));

	/* Read everything back. */
	if (caps_all_empty() < 0)
		return jr_err_set(
		    err, EPERM,
		    "capabilities are still held after dropping them");
	for (int c = 0; c < cap; c++)
		if (prctl(PR_CAPBSET_READ, c, 0, 0, 0) != 0)
			return jr_err_set(
			    err, EPERM,
			    "capability %d is still in the bounding set", c);
	if (prctl(PR_GET_NO_NEW_PRIVS, 0, 0, 0, 0) != 1)
		return jr_err_set(err, EPERM, "no_new_privs did not stick");
	if (prctl(PR_GET_SECUREBITS, 0, 0, 0, 0) != JR_SECUREBITS)
		return jr_err_set(err, EPERM, "securebits did not stick");
	if (getresuid(&ru, &eu, &su) < 0 || ru != ids->uid || eu != ids->uid ||
	    su != ids->uid || getresgid(&rg, &eg, &sg) < 0 || rg != ids->gid ||
	    eg != ids->gid || sg != ids->gid)
		return jr_err_set(err, EPERM,
				  "the uid/gid switch did not stick");
	return 0;
}
