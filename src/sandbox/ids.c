// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * ids.c - resolving --user into the command's uid/gid.
 *
 * Theory of operation: see ids.h. Names are looked up with getpwnam(3) and
 * getgrnam(3) in the host's databases before any namespace exists, because
 * inside the sandbox only the one mapped id is meaningful.
 */

#include <errno.h>
#include <grp.h>
#include <pwd.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ids.h"

#define JR_NOBODY_FALLBACK 65534

int jr_parse_id(const char *s, unsigned int *id)
{
	unsigned long long v = 0;

	if (!s || !*s)
		return -EINVAL;
	for (const char *p = s; *p; p++) {
		if (*p < '0' || *p > '9')
			return -EINVAL;
		v = v * 10 + (unsigned)(*p - '0');
		/* (uid_t)-1 means "unchanged" to setresuid(2): never an id. */
		if (v >= 0xffffffffULL)
			return -EINVAL;
	}
	if (s[0] == '0' && s[1] != '\0')
		return -EINVAL; /* "007" is more likely a typo than an id */
	*id = (unsigned int)v;
	return 0;
}

static int lookup_user(const char *name, struct jr_ids *out, bool *have_gid,
		       struct jr_err *err)
{
	unsigned int id;
	struct passwd *pw;

	if (jr_parse_id(name, &id) == 0) {
		out->uid = id;
		errno = 0;
		pw = getpwuid(id);
		if (pw) {
			out->gid = pw->pw_gid;
			*have_gid = true;
			snprintf(out->name, sizeof(out->name), "%s",
				 pw->pw_name);
		} else {
			snprintf(out->name, sizeof(out->name), "%u", id);
		}
		return 0;
	}
	errno = 0;
	pw = getpwnam(name);
	if (!pw)
		return jr_err_set(
		    err, errno ? errno : ENOENT,
		    "--user %s: no such user (give a user name from /etc/passwd or a numeric UID)",
		    name);
	out->uid = pw->pw_uid;
	out->gid = pw->pw_gid;
	*have_gid = true;
	snprintf(out->name, sizeof(out->name), "%s", pw->pw_name);
	return 0;
}

static int lookup_group(const char *name, gid_t *gid, struct jr_err *err)
{
	unsigned int id;
	struct group *gr;

	if (jr_parse_id(name, &id) == 0) {
		*gid = id;
		return 0;
	}
	errno = 0;
	gr = getgrnam(name);
	if (!gr)
		return jr_err_set(
		    err, errno ? errno : ENOENT,
		    "--user: no such group '%s' (give a group name from /etc/group or a numeric GID)",
		    name);
	*gid = gr->gr_gid;
	return 0;
}

static int parse_spec(const char *spec, struct jr_ids *out, struct jr_err *err)
{
	char user[256];
	const char *colon = strchr(spec, ':');
	size_t ulen = colon ? (size_t)(colon - spec) : strlen(spec);
	bool have_gid = false;
	int r;

	if (ulen == 0 || ulen >= sizeof(user))
		return jr_err_set(
		    err, EINVAL,
		    "--user %s: expected USER or UID, optionally followed by :GROUP or :GID",
		    spec);
	memcpy(user, spec, ulen);
	user[ulen] = '\0';
	r = lookup_user(user, out, &have_gid, err);
	if (r < 0)
		return r;
	if (colon) {
		if (!colon[1] || strchr(colon + 1, ':'))
			return jr_err_set(
			    err, EINVAL,
			    "--user %s: expected USER or UID, optionally followed by :GROUP or :GID",
			    spec);
		r = lookup_group(colon + 1, &out->gid, err);
		if (r < 0)
			return r;
		have_gid = true;
	}
	if (!have_gid)
		out->gid =
		    out->uid; /* a bare unknown UID: its own group number */
	return 0;
}

static void default_privileged(const struct jr_caller *c, struct jr_ids *out)
{
	unsigned int uid, gid;
	struct passwd *pw;

	/* sudo's caller, if sudo says who that was and it was not root. */
	if (c->sudo_uid && jr_parse_id(c->sudo_uid, &uid) == 0 && uid != 0 &&
	    c->sudo_gid && jr_parse_id(c->sudo_gid, &gid) == 0) {
		out->uid = uid;
		out->gid = gid;
		pw = getpwuid(uid);
		if (pw)
			snprintf(out->name, sizeof(out->name), "%s",
				 pw->pw_name);
		else
			snprintf(out->name, sizeof(out->name), "%u", uid);
		return;
	}
	pw = getpwnam("nobody");
	out->uid = pw ? pw->pw_uid : JR_NOBODY_FALLBACK;
	out->gid = pw ? pw->pw_gid : JR_NOBODY_FALLBACK;
	snprintf(out->name, sizeof(out->name), "nobody");
}

/*
 * Host id 0 is never the command's without --host-root: an inside uid or
 * gid 0 maps to the unprivileged host id jailrun would otherwise use (the
 * sudo caller, else nobody). Inside, it is still 0: "fake root", the owner
 * of what it creates, with no power over anything of the host's.
 */
static void map_fake_root(const struct jr_caller *c, struct jr_ids *out)
{
	struct jr_ids unpriv;

	if (out->uid != 0 && out->gid != 0)
		return;
	memset(&unpriv, 0, sizeof(unpriv));
	default_privileged(c, &unpriv);
	if (out->uid == 0)
		out->host_uid = unpriv.uid;
	if (out->gid == 0)
		out->host_gid = unpriv.gid;
}

static int resolve_privileged(const char *spec, bool host_root,
			      const struct jr_caller *c, struct jr_ids *out,
			      struct jr_err *err)
{
	int r;

	out->privileged = true;
	if (!spec && !host_root) {
		default_privileged(c, out);
	} else {
		/* --host-root alone means --user root. */
		r = parse_spec(spec ? spec : "0", out, err);
		if (r < 0)
			return r;
		if (!spec)
			snprintf(out->name, sizeof(out->name), "root");
	}
	if (host_root && out->uid != 0)
		return jr_err_set(
		    err, EINVAL,
		    "--host-root runs the command as host uid 0; it cannot be combined with --user %s (uid %u)",
		    spec, (unsigned)out->uid);
	out->host_uid = out->uid;
	out->host_gid = out->gid;
	if (!host_root)
		map_fake_root(c, out);
	return 0;
}

int jr_ids_resolve(const char *spec, bool host_root, const struct jr_caller *c,
		   struct jr_ids *out, struct jr_err *err)
{
	struct jr_ids want;
	struct passwd *pw;
	int r;

	memset(out, 0, sizeof(*out));
	memset(&want, 0, sizeof(want));

	if (c->uid != c->euid || c->gid != c->egid)
		return jr_err_set(
		    err, EPERM,
		    "jailrun is running set-user-ID or set-group-ID; it is designed to need neither: remove the bit (chmod u-s,g-s) and run it as yourself or as root");

	if (c->euid == 0)
		return resolve_privileged(spec, host_root, c, out, err);

	if (host_root)
		return jr_err_set(
		    err, EPERM,
		    "--host-root: without root, the command can never be host uid 0; leave it out (--user root gives a uid 0 inside the sandbox that is you outside)");

	/* Rootless: only the caller's own ids can be mapped, to themselves or
	 * to 0 inside (--user root). */
	out->privileged = false;
	out->uid = out->host_uid = c->uid;
	out->gid = out->host_gid = c->gid;
	snprintf(out->name, sizeof(out->name), "%u", (unsigned)c->uid);
	pw = getpwuid(c->uid);
	if (pw)
		snprintf(out->name, sizeof(out->name), "%s", pw->pw_name);
	if (!spec)
		return 0;
	r = parse_spec(spec, &want, err);
	if (r < 0)
		return r;
	if ((want.uid != c->uid && want.uid != 0) ||
	    (strchr(spec, ':') && want.gid != c->gid && want.gid != 0))
		return jr_err_set(
		    err, EPERM,
		    "--user %s: without root, jailrun can only run the command as yourself (uid %u, gid %u) or as root inside the sandbox (--user root, which is still you outside); run jailrun as root to choose another user",
		    spec, (unsigned)c->uid, (unsigned)c->gid);
	if (want.uid == 0) {
		out->uid = 0;
		out->gid = 0; /* root's group, unless one was given */
		snprintf(out->name, sizeof(out->name), "%s", want.name);
	}
	if (strchr(spec, ':'))
		out->gid = want.gid;
	return 0;
}
