/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * cmdenv.h - the command's environment: the plan made in the runner from
 * the options and the command's passwd entry, applied in the pre-exec
 * child (envplan.h says in which order, and why).
 */
#ifndef JR_CMDENV_H
#define JR_CMDENV_H

#include "envplan.h"
#include "err.h"
#include "ids.h"
#include "options.h"

/*
 * jr_cmdenv_plan - in the runner, after the secrets and the CA are set up
 * (their variables are jailrun's own): read the env files, check every
 * entry, note jailrun's own variables and the command's user's HOME,
 * USER/LOGNAME and SHELL. Return: 0, or <0 with @err naming the bad entry
 * and the rule (exit 125, nothing runs); @p is released then.
 */
int jr_cmdenv_plan(struct jr_env_plan *p, const struct jr_options *opts,
		   const struct jr_ids *ids, struct jr_err *err);

/* In the pre-exec child, first: --clearenv keeps only jailrun's own. */
void jr_cmdenv_clear(const struct jr_env_plan *p);

/*
 * jr_cmdenv_base - in the pre-exec child, as the command's user (after
 * the privileges are dropped, so "can it search HOME" is asked as the
 * command): HOME, USER, LOGNAME, SHELL, then the env files' variables.
 */
int jr_cmdenv_base(const struct jr_env_plan *p, struct jr_err *err);

/*
 * jr_cmdenv_finish - in the pre-exec child, after jailrun's own
 * variables: --setenv, --unsetenv, and PATH without the directories the
 * command cannot search (each named at -v).
 */
int jr_cmdenv_finish(const struct jr_env_plan *p, struct jr_err *err);

#endif
