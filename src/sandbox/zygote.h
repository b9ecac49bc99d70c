/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * zygote.h - the process of a live sandbox (jailrun start) that forks
 * each jailrun exec's command, so that every command inherits the
 * sandbox's namespaces, credentials, Landlock domain and seccomp filter
 * instead of having them applied again (docs/design/sandbox.md, "Live
 * sandboxes").
 */
#ifndef JR_ZYGOTE_H
#define JR_ZYGOTE_H

#include "err.h"

/*
 * jr_zygote_prepare - called by the pre-exec child where a run would exec
 * the command: make this process undumpable, give it /dev/null as stdio
 * and close every descriptor but @chan (the runner's socketpair end,
 * liveproto.h) and @keep (init's exec report pipe, closed by the caller
 * once this succeeded). Return: 0, or <0 with @err set.
 */
int jr_zygote_prepare(int chan, int keep, struct jr_err *err);

/*
 * jr_zygote_serve - the loop: one fork per EXEC request on @chan, each
 * child's start and end reported back; never returns (EOF on @chan, the
 * runner gone, ends it).
 */
__attribute__((noreturn)) void jr_zygote_serve(int chan);

#endif
