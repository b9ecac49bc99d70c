/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * unixguard_parse.h - the unix socket guard's readers of what a trapped
 * call left in the command's memory: a socket address, a msghdr (native or
 * compat layout) and its control messages. Pure: they see only the bytes
 * the supervisor copied out of the task, and trust none of them. Unit
 * tested (tests/unit/test_unixguard.c) and fuzzed
 * (tests/fuzz/fuzz_unixguard.c).
 */
#ifndef JR_UNIXGUARD_PARSE_H
#define JR_UNIXGUARD_PARSE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/un.h>

/* What a sockaddr given to connect/sendto/sendmsg is, for an AF_UNIX socket. */
enum jr_ug_addr {
	JR_UG_ADDR_NONE,     /* NULL or length 0: no address */
	JR_UG_ADDR_UNSPEC,   /* AF_UNSPEC: dgram disconnect */
	JR_UG_ADDR_UNNAMED,  /* only sun_family: autobind / unnamed */
	JR_UG_ADDR_ABSTRACT, /* sun_path[0] == 0: per network namespace */
	JR_UG_ADDR_PATH,     /* a pathname: the case the guard exists for */
	JR_UG_ADDR_INVALID,  /* another family, or a length out of range */
};

#define JR_UG_PATH_MAX (sizeof(((struct sockaddr_un *)0)->sun_path))

/*
 * jr_unixguard_parse_addr - classify the @len bytes at @sa (a copy read from
 * the task) as an AF_UNIX address, the way net/unix/af_unix.c reads it
 * (unix_validate_addr, unix_mkname_bsd). For JR_UG_ADDR_PATH, @path receives
 * the NUL-terminated path (sun_path need not be terminated: the kernel
 * stops at the length).
 */
enum jr_ug_addr jr_unixguard_parse_addr(const void *sa, size_t len,
					char path[JR_UG_PATH_MAX + 1]);

/* The msghdr fields the guard needs, from either layout. */
struct jr_ug_msghdr {
	uint64_t name, iov, control;
	uint32_t namelen;
	uint64_t iovlen, controllen;
};

/* Bytes of a msghdr in the task's memory: struct compat_msghdr is 28. */
#define JR_UG_COMPAT_MSGHDR_SIZE 28
size_t jr_ug_msghdr_size(bool compat);

/*
 * jr_ug_msghdr_decode - read the jr_ug_msghdr_size(@compat) bytes at @raw
 * (a copy of the task's struct msghdr or struct compat_msghdr) into @h.
 */
void jr_ug_msghdr_decode(const void *raw, bool compat, struct jr_ug_msghdr *h);

/* One control message: where its data lies in the buffer walked. */
struct jr_ug_cmsg {
	int level, type;
	size_t data_off; /* offset of CMSG_DATA() from the buffer's start */
	size_t data_len; /* cmsg_len - CMSG_LEN(0) */
};

/*
 * jr_ug_cmsg_next - the control message at *@pos of the @len bytes at
 * @ctl (native layout), as the kernel walks them (include/linux/socket.h:
 * for_each_cmsghdr with CMSG_OK): a header that does not fit, or whose
 * cmsg_len is below a header or reaches past the buffer, is EINVAL. Start
 * with *@pos = 0; *@pos moves to the next header.
 * Return: 1 with @out filled, 0 at the end, -EINVAL for a malformed one.
 */
int jr_ug_cmsg_next(const void *ctl, size_t len, size_t *pos,
		    struct jr_ug_cmsg *out);

/*
 * jr_ug_rights_rewrite - replace, in order, every descriptor number in
 * the SCM_RIGHTS messages of the @len bytes at @ctl with @fds[0..n-1].
 * Return: 0, or -EINVAL if the buffer is malformed or does not hold
 * exactly @n descriptors.
 */
int jr_ug_rights_rewrite(void *ctl, size_t len, const int *fds, size_t n);

/*
 * jr_ug_rights_count - how many descriptors the SCM_RIGHTS messages of
 * @ctl carry. Return: the count, or -EINVAL for a malformed buffer.
 */
long jr_ug_rights_count(const void *ctl, size_t len);

#endif
