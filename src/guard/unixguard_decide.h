/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * unixguard_decide.h - the unix socket guard's pure decisions (see
 * unixguard_decide.c): the decision table, control messages, Landlock's
 * TCP port rule, unix_diag device numbers.
 */
#ifndef JR_UNIXGUARD_DECIDE_H
#define JR_UNIXGUARD_DECIDE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#include "unixguard_parse.h"

/* The syscalls the filter hands to the supervisor. */
enum jr_ug_call {
	JR_UG_CONNECT,
	JR_UG_SENDTO,
	JR_UG_SENDMSG,
	JR_UG_SENDMMSG,
	JR_UG_OTHER, /* a number we do not know (i386 socketcall) */
};

/* What the supervisor does with one notification. */
enum jr_ug_action {
	JR_UG_ON_BEHALF,  /* run it, with our copies, on the task's socket */
	JR_UG_CHECK_PATH, /* resolve, pin, decide; run it on the pinned inode */
	JR_UG_REFUSE,	  /* answer an error without running it */
};

/*
 * jr_unixguard_decide - the decision table: @call on a socket of @domain
 * and @type with an address of kind @addr (as an AF_UNIX address: any
 * other family reads as JR_UG_ADDR_INVALID). Every call is run on behalf
 * or refused, never continued (SECCOMP_USER_NOTIF_FLAG_CONTINUE would
 * have the kernel re-read the fd and the address). Pure.
 */
enum jr_ug_action jr_unixguard_decide(enum jr_ug_call call, int domain,
				      int type, enum jr_ug_addr addr);

/*
 * jr_unixguard_cmsg_check - may a control message of @level and @type be
 * passed on a socket of @domain in a send run on behalf? AF_UNIX: only
 * SCM_RIGHTS (passed with the supervisor's copies of the descriptors).
 * Other families: only messages the kernel checks against the socket,
 * not the sender. Return: 0, or the -errno to answer. Pure.
 */
int jr_unixguard_cmsg_check(int domain, int level, int type);

/*
 * jr_unixguard_tcp_port_allowed - Landlock's TCP connect rule, for a
 * connect run on behalf (the executor is not under the command's Landlock
 * domain): may a socket of @domain and @type connect to the @len bytes at
 * @sa, given the allowed @ports (host order)? Only AF_INET/AF_INET6 stream
 * sockets with an AF_INET/AF_INET6 address of a valid length are judged;
 * anything else is left to the kernel. False: answer EACCES, as Landlock
 * does. Pure.
 */
bool jr_unixguard_tcp_port_allowed(const uint16_t *ports, size_t n_ports,
				   int domain, int type, const void *sa,
				   size_t len);

/*
 * jr_unixguard_kdev_matches - does a kernel-internal dev_t (what unix_diag
 * reports: MAJOR << 20 | MINOR) name the same device as a userspace st_dev?
 */
bool jr_unixguard_kdev_matches(unsigned int kdev, dev_t st_dev);

#endif
