// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * openssl_lazy.c - load OpenSSL when TLS inspection starts (see
 * openssl_lazy.h for why jailrun is not linked against it).
 *
 * Theory of operation: jr_inspect_new() calls jr_openssl_load() before
 * its first OpenSSL call; every other OpenSSL call in tls_inspect.c (and
 * in tls_sessions.c, whose cache jr_inspect_new() makes after the load) is
 * reached only through a struct jr_inspect that jr_inspect_new() made,
 * so no call can go through a pointer that is still NULL. The load runs
 * once (pthread_once): dlopen() of libssl with RTLD_NOW, so a library
 * that lacks a function fails here and not in the middle of a handshake,
 * then one dlsym() per function. Any failure is kept and returned to
 * every caller: inspection (and with it --secret, --inspect and https://
 * --allow-http rules) refuses to start, exit 125 with the reason; a run
 * that does not inspect never loads OpenSSL at all. The handle is never
 * closed: the relay's threads use OpenSSL until the process exits.
 */

#include <dlfcn.h>
#include <errno.h>
#include <pthread.h>
#include <stdio.h>

#define JR_OPENSSL_LAZY_IMPL
#include "openssl_lazy.h"

#define JR_STR2(x) #x
#define JR_STR(x) JR_STR2(x)
/* The soname of the OpenSSL major version jailrun was built with. */
#define JR_LIBSSL "libssl.so." JR_STR(OPENSSL_SHLIB_VERSION)

struct jr_openssl_funcs jr_openssl;

static pthread_once_t load_once = PTHREAD_ONCE_INIT;
static int load_errno;
static char load_msg[256];

static void load(void)
{
	void *h = dlopen(JR_LIBSSL, RTLD_NOW | RTLD_LOCAL);
	const char *e;

	if (!h) {
		e = dlerror();
		load_errno = ELIBACC;
		snprintf(
		    load_msg, sizeof(load_msg),
		    "cannot load OpenSSL (%s), which TLS inspection needs: %s (install libssl3)",
		    JR_LIBSSL, e ? e : "unknown error");
		return;
	}
#define JR_OPENSSL_SYM(name)                                                   \
	do {                                                                   \
		jr_openssl.name = (__typeof__(name) *)dlsym(h, #name);         \
		if (!jr_openssl.name) {                                        \
			load_errno = ELIBACC;                                  \
			snprintf(load_msg, sizeof(load_msg),                   \
				 "cannot load OpenSSL: %s has no %s",          \
				 JR_LIBSSL, #name);                            \
			return;                                                \
		}                                                              \
	} while (0);
	JR_OPENSSL_FUNCS(JR_OPENSSL_SYM)
#undef JR_OPENSSL_SYM
}

int jr_openssl_load(struct jr_err *err)
{
	pthread_once(&load_once, load);
	if (load_errno)
		return jr_err_set(err, load_errno, "%s", load_msg);
	return 0;
}
