// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * unixguard_parse.c - reading what a trapped connect or send left in the
 * command's memory.
 *
 * Theory of operation. The supervisor (unixguard.c) copies the raw bytes
 * out of the task with process_vm_readv(2); everything here works on those
 * copies and on nothing else, so it can be unit-tested and fuzzed without
 * a task. Every length in them is the command's to choose: a cmsg_len that
 * reached past the buffer once had the guard read and write beyond its
 * heap copy (issue 21, "heap overflow in the guard"). So the control
 * messages are walked exactly as the kernel walks them (CMSG_OK in
 * include/linux/socket.h: a header must fit, and its cmsg_len must cover a
 * header and stay inside the buffer), and a malformed buffer is EINVAL,
 * the kernel's own answer (__scm_send()).
 */
#include <errno.h>
#include <string.h>
#include <sys/socket.h>

#include "unixguard_parse.h"

enum jr_ug_addr jr_unixguard_parse_addr(const void *sa, size_t len,
					char path[JR_UG_PATH_MAX + 1])
{
	const struct sockaddr_un *un = sa;
	const size_t off = offsetof(struct sockaddr_un, sun_path);
	size_t n;

	path[0] = '\0';
	if (!sa || len == 0)
		return JR_UG_ADDR_NONE;
	if (len < sizeof(sa_family_t) || len > sizeof(struct sockaddr_un))
		return JR_UG_ADDR_INVALID;
	if (un->sun_family == AF_UNSPEC)
		return JR_UG_ADDR_UNSPEC;
	if (un->sun_family != AF_UNIX)
		return JR_UG_ADDR_INVALID;
	if (len == off)
		return JR_UG_ADDR_UNNAMED;
	if (un->sun_path[0] == '\0')
		return JR_UG_ADDR_ABSTRACT;
	/* unix_mkname_bsd(): the path ends at the length or at a NUL. */
	n = strnlen(un->sun_path, len - off);
	memcpy(path, un->sun_path, n);
	path[n] = '\0';
	return JR_UG_ADDR_PATH;
}

size_t jr_ug_msghdr_size(bool compat)
{
	return compat ? JR_UG_COMPAT_MSGHDR_SIZE : sizeof(struct msghdr);
}

void jr_ug_msghdr_decode(const void *raw, bool compat, struct jr_ug_msghdr *h)
{
	if (compat) {
		uint32_t c[7]; /* struct compat_msghdr */

		memcpy(c, raw, sizeof(c));
		*h = (struct jr_ug_msghdr){ .name = c[0],
					    .namelen = c[1],
					    .iov = c[2],
					    .iovlen = c[3],
					    .control = c[4],
					    .controllen = c[5] };
		return;
	}
	struct msghdr m;

	memcpy(&m, raw, sizeof(m));
	*h = (struct jr_ug_msghdr){ .name = (uintptr_t)m.msg_name,
				    .namelen = m.msg_namelen,
				    .iov = (uintptr_t)m.msg_iov,
				    .iovlen = m.msg_iovlen,
				    .control = (uintptr_t)m.msg_control,
				    .controllen = m.msg_controllen };
}

int jr_ug_cmsg_next(const void *ctl, size_t len, size_t *pos,
		    struct jr_ug_cmsg *out)
{
	struct cmsghdr c;
	size_t at = *pos;

	/* __CMSG_NXTHDR / CMSG_FIRSTHDR: no room for a header is the end. */
	if (at > len || len - at < sizeof(c))
		return 0;
	memcpy(&c, (const char *)ctl + at, sizeof(c));
	/* CMSG_OK(): covers a header, stays inside the buffer. */
	if (c.cmsg_len < sizeof(c) || c.cmsg_len > len - at)
		return -EINVAL;
	out->level = c.cmsg_level;
	out->type = c.cmsg_type;
	out->data_off = at + CMSG_LEN(0);
	out->data_len = c.cmsg_len - CMSG_LEN(0);
	/* CMSG_ALIGN may step past the end: the next call sees the end. */
	*pos = at + CMSG_ALIGN(c.cmsg_len);
	if (*pos < at) /* cannot wrap: cmsg_len <= len */
		*pos = len;
	return 1;
}

static bool is_rights(const struct jr_ug_cmsg *c)
{
	return c->level == SOL_SOCKET && c->type == SCM_RIGHTS;
}

long jr_ug_rights_count(const void *ctl, size_t len)
{
	struct jr_ug_cmsg c;
	size_t pos = 0;
	long n = 0;
	int r;

	while ((r = jr_ug_cmsg_next(ctl, len, &pos, &c)) == 1)
		if (is_rights(&c))
			n += (long)(c.data_len / sizeof(int));
	return r < 0 ? r : n;
}

int jr_ug_rights_rewrite(void *ctl, size_t len, const int *fds, size_t n)
{
	struct jr_ug_cmsg c;
	size_t pos = 0, k = 0;
	int r;

	while ((r = jr_ug_cmsg_next(ctl, len, &pos, &c)) == 1) {
		size_t m;

		if (!is_rights(&c))
			continue;
		m = c.data_len / sizeof(int);
		if (m > n - k)
			return -EINVAL;
		for (size_t i = 0; i < m; i++, k++)
			memcpy((char *)ctl + c.data_off + i * sizeof(int),
			       &fds[k], sizeof(int));
	}
	if (r < 0)
		return r;
	return k == n ? 0 : -EINVAL;
}
