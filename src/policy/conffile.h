/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * conffile.h - configuration files (jailrun.conf(5)), profiles, the managed
 * policy's require lines, and --print-config.
 *
 * A file line "keyword value" is the option "--keyword value": files are
 * turned into an argv-like vector placed before the command line's own
 * options and parsed by jr_options_parse(), the one validator. Each element
 * keeps its origin ("file:line") for messages and --print-config.
 */
#ifndef JR_CONFFILE_H
#define JR_CONFFILE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>

#include "confline.h"
#include "err.h"
#include "managed.h"
#include "options.h"

/* Include nesting bound: deeper is refused (a loop is refused earlier). */
#define JR_CONFIG_MAX_DEPTH 8
/* Settings from all files together; bounds memory on hostile input. */
#define JR_CONFIG_MAX_SETTINGS 16384

/* Where the system's files are (configure --with-policy-file, and
 * --with-profile-dir in options.h); never relocatable at run time
 * (jailrun.conf(5)). */
#ifndef JR_POLICY_FILE
#define JR_POLICY_FILE "/etc/jailrun/policy.conf"
#endif

/* One "keyword value" line of a file. */
struct jr_config_setting {
	const char *name; /* the long option's name (the getopt table's) */
	char *value;	  /* NULL: a flag */
	bool negated;	  /* a flag set to "no": drops earlier settings */
	char *origin;	  /* "file:line" */
};

/*
 * Reads a file for the parser: the text (NUL-terminated, @len without it)
 * and an identity that is equal for the same file (include loops). The
 * default reads the file system; the fuzzer supplies its own.
 * Return: 0 or -errno with @err set.
 */
typedef int (*jr_config_reader)(void *ctx, const char *path, char **text,
				size_t *len, char **identity,
				struct jr_err *err);

struct jr_config {
	struct jr_config_setting *set; /* from files, in the order read */
	size_t n, cap;
	/* The vector handed to jr_options_parse(): argv[0], the files'
	 * settings that survive (see conffile.c), the command line's own. */
	char **argv;
	const char **origin; /* per element; NULL: the command line */
	int argc;
	char **names; /* the "--keyword" elements, allocated */
	size_t n_names;
	struct jr_managed managed;
	/* include stack, for loops and the depth bound */
	char *stack[JR_CONFIG_MAX_DEPTH + 1];
	int depth;
	jr_config_reader reader;
	void *reader_ctx;
};

void jr_config_init(struct jr_config *cfg);
void jr_config_release(struct jr_config *cfg);

/*
 * jr_config_parse_text - add the settings of one file's text.
 * @name: the file's name, for origins ("name:line") and includes (relative
 *        to its directory)
 * Return: 0 or -errno; @err is "name:line: what is wrong".
 */
int jr_config_parse_text(struct jr_config *cfg, const char *name,
			 const char *text, size_t len, struct jr_err *err);

/* jr_config_load_file - read @path with the reader and parse it. */
int jr_config_load_file(struct jr_config *cfg, const char *path,
			struct jr_err *err);

/*
 * jr_config_load_profile - JR_PROFILE_DIR/NAME.conf, then
 * ~/.config/jailrun/profiles/NAME.conf: both when both exist (the user's
 * settings after the system's); neither is an error.
 */
int jr_config_load_profile(struct jr_config *cfg, const char *name,
			   struct jr_err *err);

/*
 * jr_config_build - load the managed policy (@policy_path; NULL: none),
 * every --config and --profile of @argv in order, merge, and parse the
 * result into @opts; then check the managed policy's require lines.
 * On success @opts points into @cfg: release @cfg after @opts.
 * Return: 0 or -errno with @err set (exit 125).
 */
int jr_config_build(struct jr_config *cfg, const char *policy_path, int argc,
		    char **argv, struct jr_options *opts, struct jr_err *err);

/*
 * jr_config_check_allow - the managed policy's denies against the final
 * allowlist (--allow, --allow-file contents), naming the allow's origin.
 */
int jr_config_check_allow(const struct jr_config *cfg,
			  const struct jr_policy *p, struct jr_err *err);

/*
 * jr_config_check_lanes - the managed policy's denies against each host
 * lane (--lane ADDR:PORT), a destination the relay connects to without
 * asking the policy: a lane a deny matches (address and port, as at
 * decision time) is refused, naming the lane's origin and the deny.
 * Return: 0 or -EPERM/-ENOMEM with @err set (exit 125).
 */
int jr_config_check_lanes(const struct jr_config *cfg,
			  const struct jr_lanes *lanes, struct jr_err *err);

/* What --print-config shows that the options alone do not decide: the
 * runner works it out (main.c). NULL members are not printed. */
struct jr_config_effective {
	const char *user;      /* the command's user, as --user would name it */
	const char *user_note; /* its ids inside and on the host */
	const char *workdir;   /* the current directory, when no --workdir */
};

/*
 * jr_config_print - --print-config: one line per setting, with its origin,
 * the defaults included (@eff: user and workdir; may be NULL). A path
 * that does not exist (for --log, --json, --learn and --control: whose
 * directory does not exist) gets "MISSING" in its comment.
 * Return: how many paths were marked MISSING.
 */
size_t jr_config_print(const struct jr_config *cfg,
		       const struct jr_options *opts,
		       const struct jr_config_effective *eff, FILE *out);

#endif
