/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * options.h - the command line, parsed into a plain struct. Pure: no I/O
 * besides the error message, so every rule here is unit-tested.
 */
#ifndef JR_OPTIONS_H
#define JR_OPTIONS_H

#include <netinet/in.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "err.h"
#include "lane.h"

struct jr_secrets;
struct jr_env_plan;
struct jr_live;
#include "limits.h"

enum jr_action {
	JR_ACTION_RUN = 0,
	JR_ACTION_HELP,
	JR_ACTION_VERSION,
	JR_ACTION_CHECK,
	JR_ACTION_PRINT_CONFIG, /* --print-config (conffile.h) */
};

enum jr_net_mode {
	JR_NET_NONE = 0,  /* only lo; every packet off loopback dropped */
	JR_NET_ALLOWLIST, /* only the relay, which forwards to --allow hosts */
};

/* How much of the host's filesystem the command sees (jailrun(1),
 * FILESYSTEM). */
enum jr_fs_mode {
	JR_FS_ISOLATED = 0, /* read-only host, writable roots, secrets hidden */
	JR_FS_HOST,	    /* the host tree as the user's permissions allow */
};

/* The relay's side of the worker link: relay = G, worker = G+1. */
struct jr_gateway {
	struct in_addr relay;  /* network byte order */
	struct in_addr worker; /* network byte order */
	uint8_t prefix;
};

#define JR_DEFAULT_GATEWAY "100.64.77.1/30"
#define JR_PROXY_PORT 3128
#define JR_DNS_PORT 53
#define JR_TRANSPARENT_PORT                                                    \
	3129 /* captured TCP, redirected in the relay netns */
#define JR_DEFAULT_MAX_CONNS 2048
#define JR_DEFAULT_HEADER_TIMEOUT_MS 10000
#define JR_DEFAULT_IDLE_TIMEOUT_MS 900000
#define JR_DEFAULT_CONNECT_TIMEOUT_MS 10000
#define JR_DEFAULT_WATCHDOG_INTERVAL_MS 1000

/* --landlock: the second filesystem (and TCP) wall, landlock.c. */
enum jr_landlock_mode {
	JR_LANDLOCK_AUTO = 0, /* used where the kernel has it (default) */
	JR_LANDLOCK_REQUIRE,  /* its absence is a failure (exit 125) */
	JR_LANDLOCK_OFF,
};

struct jr_options {
	enum jr_action action;
	int verbosity; /* -1 quiet, 0 normal, 1.. verbose */
	enum jr_net_mode net;
	const char **allow; /* --allow entries in order (point into argv) */
	size_t n_allow;
	const char **allow_files; /* --allow-file paths */
	size_t n_allow_files;
	struct jr_gateway gateway;
	const char *log_path; /* --log FILE, NULL: none */
	int log_fd;	      /* --log-fd N, -1: none */
	unsigned int max_conns;
	uint64_t header_timeout_ms;
	uint64_t idle_timeout_ms;
	uint64_t connect_timeout_ms;
	uint64_t timeout_ms; /* 0: no timeout */
	const char **expose; /* --expose paths (point into argv) */
	size_t n_expose;
	/* Filesystem (fslayout.h): paths point into argv, literal. */
	enum jr_fs_mode fs_mode; /* --fs isolated (default) / host */
	const char **rw;	 /* --rw */
	size_t n_rw;
	const char **ro; /* --ro */
	size_t n_ro;
	const char **hide; /* --hide */
	size_t n_hide;
	const char **tmpfs; /* --tmpfs */
	size_t n_tmpfs;
	uint64_t tmpfs_size;	 /* --tmpfs-size in bytes, 0: the default */
	const char *workdir;	 /* --workdir, NULL: the current directory */
	bool seccomp;		 /* --seccomp on (default) / off */
	bool transparent;	 /* --transparent on (default) / off */
	bool idmap;		 /* --idmap on (default) / off */
	struct jr_err setup_err; /* jr_options_parse_run(): the first policy
				  * error of the command line, or code 0 */
	bool allow_nested;	 /* --allow-nested */
	bool tamper_kill;	 /* --on-tamper kill (default: restore) */
	uint64_t watchdog_interval_ms;
	/* The command's environment (envplan.h): entries point into argv,
	 * checked here, applied in the order jailrun(1) ENVIRONMENT gives. */
	bool clearenv;	      /* --clearenv */
	const char **env_set; /* --setenv NAME=VALUE */
	size_t n_env_set;
	const char **env_unset; /* --unsetenv NAME */
	size_t n_env_unset;
	const char **env_files; /* --env-file FILE */
	size_t n_env_files;
	const struct jr_env_plan *env; /* set by main.c before the run */
	const char *user;	       /* --user spec, NULL: the default */
	bool host_root;	       /* --host-root: uid 0 inside is host uid 0 */
	const char *json_path; /* --json FILE, NULL: none */
	const char *label;     /* --label TEXT, NULL: none */
	bool raw_tty;	       /* --raw-tty: relay terminal output unfiltered */
	char *const *command;  /* NULL-terminated argv of the command */
	int command_argc;
	/* --landlock auto|require|off */
	enum jr_landlock_mode landlock;
	/* Network modes (jailrun(1), NETWORK MODES). --net public and
	 * --learn keep net = JR_NET_ALLOWLIST (the same relay, rules and
	 * guard) and set net_public: the policy then matches every name
	 * (struct jr_policy, match_any). */
	bool net_public;
	const char **allow_private; /* --allow-private values (into argv) */
	size_t n_allow_private;
	const char *deny_message; /* --deny-message TEXT, NULL: none */
	const char *learn_path;	  /* --learn FILE, NULL: none */
	/* --lane and --publish (lane.h). --net none with either runs on the
	 * allowlist plumbing (net is JR_NET_ALLOWLIST) with a policy of the
	 * lane entries only, and none_with_lanes says so: the summary and
	 * messages still call it "none" (jr_options_net_mode()). */
	struct jr_lanes lanes;
	bool none_with_lanes;
	const char **lane_env; /* --lane-env NAME=TEMPLATE (lane.h) */
	size_t n_lane_env;
	/* --control PATH (NULL: none) / --control-fd N (-1: none). main.c
	 * puts the socket it made for PATH in control_fd for the relay. */
	const char *control_path;
	int control_fd;
	/* --ask: hold what the allowlist refuses for a decision on the
	 * control socket, for up to ask_timeout_ms (--ask-timeout). */
	bool ask;
	bool ask_tty; /* --ask tty: askprompt.h asks on /dev/tty */
	uint64_t ask_timeout_ms;
	/* --config/--profile are read by conffile.c before this parse; kept
	 * here only so the command line is checked in one place. */
	const char *profile; /* the last --profile NAME */
	/* --allow-http rules in order (point into argv; httprules.h) */
	const char **allow_http;
	size_t n_allow_http;
	/* Secrets and TLS inspection (secrets.h): specs checked here, the
	 * values loaded by main.c into *secrets. */
	const char **secret; /* --secret NAME@HOST,... (point into argv) */
	size_t n_secret;
	const char **inspect; /* --inspect HOST */
	size_t n_inspect;
	const char *upstream_ca;     /* --upstream-ca FILE */
	bool secret_allow_plaintext; /* --secret-allow-plaintext */
	struct jr_secrets *secrets;  /* runtime state, set by main.c; NULL:
					no --secret and no --inspect */
	/* --rlimit, --memory, --pids, --cpus (limits.h) */
	struct jr_limits limits;
	/* jailrun start: the live sandbox (live.h), set by main.c; NULL: a
	 * run */
	struct jr_live *live;
};

/*
 * jr_options_check_ask_channel - --ask (not tty) needs a socket to be
 * decided on: --control or --control-fd. The option rules skip it for a
 * live start (its vector ends with JR_LIVE_COMMAND), which gets one of its
 * own; main.c asks again for a run, whatever its command is called.
 * Return: 0, or -EINVAL with @err saying what to add.
 */
int jr_options_check_ask_channel(const struct jr_options *opts,
				 struct jr_err *err);

/* The command a live sandbox's run vector ends with (jailrun start,
 * live.c): never executed (the zygote takes its place), shown in the JSON
 * summary. The rules between options know a live start by it: there,
 * --ask needs no --control (the sandbox's own NAME.ctl serves). */
#define JR_LIVE_COMMAND "jailrun-live"

/* Where the system's profiles are (configure --with-profile-dir; --help
 * names it, conffile.c reads it). */
#ifndef JR_PROFILE_DIR
#define JR_PROFILE_DIR "/etc/jailrun/profiles"
#endif

/* --label: at most this many bytes (summary and every audit line). */
#define JR_LABEL_MAX 128

/* --deny-message: at most this many bytes (it goes into every 403). */
#define JR_DENY_MESSAGE_MAX 256

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
 * jr_options_parse_run - jr_options_parse() for the run's own command
 * line: a value that parses but breaks a policy rule (a lane on the
 * relay's port, --rw with --fs host, options that contradict each other)
 * does not fail here but is kept in @opts->setup_err, for the caller to
 * report once --json is open: a rig gets a "setup-failed" summary for it,
 * as for a bad --allow entry. Syntax errors fail as in jr_options_parse().
 * Return: 0, or -EINVAL on bad usage.
 */
int jr_options_parse_run(int argc, char **argv, struct jr_options *opts,
			 struct jr_err *err);

/*
 * jr_options_parse_setting - one configuration line, alone: the grammar
 * of its option and value only. The rules between options (--control
 * needs --net allowlist, --inspect needs --allow, --ask needs --control)
 * cannot hold for one line of a file whose other lines, or another file,
 * or the command line, give the rest: they are checked on the merged
 * settings (jr_options_parse_run()). Return: 0, or -EINVAL.
 */
int jr_options_parse_setting(int argc, char **argv, struct jr_options *opts,
			     struct jr_err *err);

/* Free what jr_options_parse() allocated (the allow arrays). */
void jr_options_release(struct jr_options *opts);

/*
 * jr_parse_gateway - parse "A.B.C.D/LEN": the relay's address and the link
 * prefix (1..30). The worker gets the next address; both must be host
 * addresses of the network, and the range must not be loopback,
 * unspecified, link-local, multicast or broadcast.
 * Return: 0 or -EINVAL.
 */
int jr_parse_gateway(const char *s, struct jr_gateway *g);

/*
 * The longest duration an option takes, in seconds: a year (365 days), far
 * beyond any sandbox's life. Bounding it keeps the digit loop of
 * jr_parse_duration_ms() from overflowing and every deadline jailrun
 * computes (now + duration, in ms or us, in 64 bits) far from overflow.
 */
#define JR_DURATION_MAX_S 31536000ULL

/*
 * jr_parse_duration_ms - parse "SECONDS" (decimal, e.g. "1.5") into ms.
 * Accepts 0 < value <= JR_DURATION_MAX_S with at most 3 decimals.
 * Return: 0 or -EINVAL.
 */
int jr_parse_duration_ms(const char *s, uint64_t *ms);

const char *jr_net_mode_name(enum jr_net_mode mode);

/*
 * jr_options_net_mode - the network mode as the summary and the docs name
 * it: "public" (--net public, --learn), "allowlist", "none" (--net none
 * with lanes or published ports, which runs on the allowlist plumbing), or
 * "hermetic" (--net none alone: loopback only). The one place that names a
 * run's mode.
 */
const char *jr_options_net_mode(const struct jr_options *opts);
const char *jr_fs_mode_name(enum jr_fs_mode mode);

/*
 * jr_parse_size - parse "BYTES" with an optional binary suffix k, m or g
 * (any case; 64m = 64 MiB). Accepts JR_SIZE_MIN..JR_SIZE_MAX.
 * Return: 0 or -EINVAL.
 */
#define JR_SIZE_MIN 4096ULL
#define JR_SIZE_MAX (1ULL << 50)
int jr_parse_size(const char *s, uint64_t *bytes);

/*
 * jr_options_long_table - the getopt_long table, NULL-terminated: conffile.c
 * turns a file's "keyword value" into "--keyword value" with it, so every
 * option has a keyword without a second table to keep in step.
 */
struct option;
const struct option *jr_options_long_table(void);

/*
 * jr_options_word_follows - whether the word @next after option @name
 * (long name, no dashes) is that option's value though getopt takes the
 * option as a flag: "--ask tty". A walker of the words (conffile.c)
 * steps over it.
 */
bool jr_options_word_follows(const char *name, const char *next);

/* getopt's optstring beside that table: stop at the first operand ('+'),
 * ':' for a missing value, and the table's short letters (-h -V -v -q). */
#define JR_OPTIONS_SHORT "+:hVvq"

/*
 * jr_options_suggest - the long option (or one of @extra, a NULL-terminated
 * list of other words that are valid where @name was found; may be NULL)
 * nearest to the unknown @name, for a "did you mean" hint: at most two
 * edits away (an insertion, deletion, substitution or swap of neighbours),
 * one for names of up to four characters.
 * Return: that word, or NULL when none is near enough.
 */
const char *jr_options_suggest(const char *name, const char *const *extra);

/* jr_profile_name_valid - a --profile NAME: [A-Za-z0-9_-], 1..64 chars
 * (it becomes a file name, so no '/' and no '.'). */
bool jr_profile_name_valid(const char *name);

/* The --help text (kept in step with man/jailrun.1). */
extern const char jr_usage_text[];

#endif
