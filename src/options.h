/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * options.h - the command line, parsed into a plain struct. Pure: no I/O
 * besides the error message, so every rule here is unit-tested.
 */
#ifndef JR_OPTIONS_H
#define JR_OPTIONS_H

#include <stdbool.h>
#include <stdint.h>

#include "err.h"

enum jr_action {
	JR_ACTION_RUN = 0,
	JR_ACTION_HELP,
	JR_ACTION_VERSION,
	JR_ACTION_CHECK,
};

enum jr_net_mode {
	JR_NET_NONE = 0, /* only lo; every packet off loopback dropped */
};

struct jr_options {
	enum jr_action action;
	int verbosity;		/* -1 quiet, 0 normal, 1.. verbose */
	enum jr_net_mode net;
	uint64_t timeout_ms;	/* 0: no timeout */
	const char *user;	/* --user spec, NULL: the default */
	const char *json_path;	/* --json FILE, NULL: none */
	char *const *command;	/* NULL-terminated argv of the command */
	int command_argc;
};

/*
 * jr_options_parse - parse argv.
 * @argc/@argv: as given to main(); argv is not modified, getopt state is reset
 * @opts: filled on success
 * @err: the reason on failure (names the option and the rule it broke)
 *
 * Return: 0, or -EINVAL on bad usage.
 */
int jr_options_parse(int argc, char **argv, struct jr_options *opts,
		     struct jr_err *err);

/*
 * jr_parse_duration_ms - parse "SECONDS" (decimal, e.g. "1.5") into ms.
 * Accepts 0 < value <= 31536000 (a year) with at most 3 decimals.
 * Return: 0 or -EINVAL.
 */
int jr_parse_duration_ms(const char *s, uint64_t *ms);

const char *jr_net_mode_name(enum jr_net_mode mode);

/* The --help text (kept in step with man/jailrun.1). */
extern const char jr_usage_text[];

#endif
