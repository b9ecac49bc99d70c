// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * options.c - command-line parsing.
 *
 * Theory of operation: getopt_long with a leading '+' so parsing stops at
 * the first non-option; everything after it (or after "--") is the command,
 * untouched. Every rejection names the option and the rule it broke, because
 * an eval rig reading "exit 125" from a script needs the reason in one line.
 * Nothing here looks anything up (users, files): that is done later, so this
 * file stays pure and unit-tested.
 */

#include <errno.h>
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "options.h"

const char jr_usage_text[] =
	"Usage: jailrun [OPTIONS] [--] COMMAND [ARG...]\n"
	"       jailrun --check\n"
	"\n"
	"Run COMMAND in fresh user, network, PID, mount, IPC and UTS namespaces\n"
	"with no capabilities, no_new_privs, and an nftables ruleset installed and\n"
	"verified before the command starts.\n"
	"\n"
	"Options:\n"
	"  --net MODE          network mode; MODE is 'none' (only loopback; the\n"
	"                      default)\n"
	"  --timeout SECONDS   kill the whole sandbox after SECONDS (decimals allowed)\n"
	"                      and exit 124\n"
	"  --user USER|UID[:GROUP|GID]\n"
	"                      when started as root, run COMMAND as this user\n"
	"                      (default: the sudo caller, else nobody); 'root' must\n"
	"                      be asked for explicitly. Without root, COMMAND\n"
	"                      always runs as the caller.\n"
	"  --json FILE         write a JSON summary of the run to FILE at exit\n"
	"  --check             check this host can run sandboxes, then exit\n"
	"  -v, --verbose       say what jailrun is doing (twice: debug detail)\n"
	"  -q, --quiet         print only errors\n"
	"  -h, --help          show this help and exit\n"
	"  -V, --version       show the version and exit\n"
	"\n"
	"Exit status: COMMAND's own; 125 jailrun failed before COMMAND ran;\n"
	"126 COMMAND not executable; 127 COMMAND not found; 128+N COMMAND killed\n"
	"by signal N; 124 --timeout expired.\n"
	"\n"
	"See jailrun(1) for details.\n";

enum {
	OPT_NET = 0x100,
	OPT_TIMEOUT,
	OPT_USER,
	OPT_JSON,
	OPT_CHECK,
};

static const struct option jr_long_options[] = {
	{ "net", required_argument, NULL, OPT_NET },
	{ "timeout", required_argument, NULL, OPT_TIMEOUT },
	{ "user", required_argument, NULL, OPT_USER },
	{ "json", required_argument, NULL, OPT_JSON },
	{ "check", no_argument, NULL, OPT_CHECK },
	{ "verbose", no_argument, NULL, 'v' },
	{ "quiet", no_argument, NULL, 'q' },
	{ "help", no_argument, NULL, 'h' },
	{ "version", no_argument, NULL, 'V' },
	{ NULL, 0, NULL, 0 },
};

const char *jr_net_mode_name(enum jr_net_mode mode)
{
	switch (mode) {
	case JR_NET_NONE:
		return "none";
	}
	return "unknown";
}

static int parse_net_mode(const char *s, enum jr_net_mode *mode,
			  struct jr_err *err)
{
	if (strcmp(s, "none") == 0) {
		*mode = JR_NET_NONE;
		return 0;
	}
	return jr_err_set(err, EINVAL,
			  "--net %s: unknown network mode (this version knows: none)",
			  s);
}

int jr_parse_duration_ms(const char *s, uint64_t *ms)
{
	uint64_t whole = 0, frac = 0;
	int frac_digits = 0;
	const char *p = s;

	if (!s || !*s)
		return -EINVAL;
	for (; *p >= '0' && *p <= '9'; p++) {
		whole = whole * 10 + (uint64_t)(*p - '0');
		if (whole > 31536000)
			return -EINVAL;
	}
	if (p == s && *p != '.')
		return -EINVAL;
	if (*p == '.') {
		p++;
		if (!(*p >= '0' && *p <= '9'))
			return -EINVAL;
		for (; *p >= '0' && *p <= '9'; p++) {
			if (++frac_digits > 3)
				return -EINVAL;
			frac = frac * 10 + (uint64_t)(*p - '0');
		}
		for (int i = frac_digits; i < 3; i++)
			frac *= 10;
	}
	if (*p != '\0')
		return -EINVAL;
	*ms = whole * 1000 + frac;
	if (*ms == 0 || *ms > 31536000ULL * 1000)
		return -EINVAL;
	return 0;
}

int jr_options_parse(int argc, char **argv, struct jr_options *opts,
		     struct jr_err *err)
{
	bool saw_user = false;
	int c;

	memset(opts, 0, sizeof(*opts));
	opts->net = JR_NET_NONE;

	optind = 0; /* full re-initialisation (glibc), so tests can call us again */
	opterr = 0; /* our own messages, which name the rule */
	while ((c = getopt_long(argc, argv, "+:hVvq", jr_long_options, NULL)) != -1) {
		switch (c) {
		case 'h':
			opts->action = JR_ACTION_HELP;
			return 0;
		case 'V':
			opts->action = JR_ACTION_VERSION;
			return 0;
		case 'v':
			if (opts->verbosity < 0)
				return jr_err_set(err, EINVAL,
						  "-v and -q cannot be combined");
			opts->verbosity++;
			break;
		case 'q':
			if (opts->verbosity > 0)
				return jr_err_set(err, EINVAL,
						  "-v and -q cannot be combined");
			opts->verbosity = -1;
			break;
		case OPT_NET:
			if (parse_net_mode(optarg, &opts->net, err) < 0)
				return -EINVAL;
			break;
		case OPT_TIMEOUT:
			if (jr_parse_duration_ms(optarg, &opts->timeout_ms) < 0)
				return jr_err_set(err, EINVAL,
						  "--timeout %s: expected seconds > 0 and <= 31536000, at most 3 decimals (e.g. 30 or 1.5)",
						  optarg);
			break;
		case OPT_USER:
			if (saw_user)
				return jr_err_set(err, EINVAL,
						  "--user given twice");
			if (!*optarg)
				return jr_err_set(err, EINVAL,
						  "--user: empty user name");
			saw_user = true;
			opts->user = optarg;
			break;
		case OPT_JSON:
			if (!*optarg)
				return jr_err_set(err, EINVAL,
						  "--json: empty file name");
			opts->json_path = optarg;
			break;
		case OPT_CHECK:
			opts->action = JR_ACTION_CHECK;
			break;
		case ':':
			return jr_err_set(err, EINVAL,
					  "option '%s' needs an argument; see jailrun --help",
					  argv[optind - 1]);
		case '?':
		default:
			if (optopt && optopt < 0x100)
				return jr_err_set(err, EINVAL,
						  "unknown option '-%c'; see jailrun --help",
						  optopt);
			if (optopt)
				return jr_err_set(err, EINVAL,
						  "option '%s' takes no argument; see jailrun --help",
						  argv[optind - 1]);
			return jr_err_set(err, EINVAL,
					  "unknown option '%s'; see jailrun --help",
					  argv[optind - 1]);
		}
	}

	if (opts->action == JR_ACTION_CHECK) {
		if (optind < argc)
			return jr_err_set(err, EINVAL,
					  "--check takes no command (got '%s')",
					  argv[optind]);
		return 0;
	}
	if (optind >= argc)
		return jr_err_set(err, EINVAL,
				  "no command given; usage: jailrun [OPTIONS] -- COMMAND [ARG...]");
	if (!*argv[optind])
		return jr_err_set(err, EINVAL, "the command name is empty");
	opts->command = &argv[optind];
	opts->command_argc = argc - optind;
	return 0;
}
