// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * options.c - command-line parsing.
 *
 * Theory of operation: getopt_long with a leading '+' so parsing stops at
 * the first non-option; everything after it (or after "--") is the command,
 * untouched. Each option is one row of a table (JR_OPTION_ROWS) that gives
 * getopt its table and the parser its handler, so the loop is a lookup and
 * a call; what options mean together is checked after it, in named steps.
 * Every rejection names the option and the rule it broke, because
 * an eval rig reading "exit 125" from a script needs the reason in one line.
 * Nothing here looks anything up (users, files): that is done later, so this
 * file stays pure and unit-tested.
 */

#include <arpa/inet.h>
#include <errno.h>
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "asktable.h"
#include "cleanup.h"
#include "envplan.h"
#include "host.h"
#include "httprules.h"
#include "options.h"
#include "policy.h"
#include "secrets.h"

const char jr_usage_text[] =
    "Usage: jailrun [OPTIONS] [--] COMMAND [ARG...]\n"
    "       jailrun --check\n"
    "       jailrun ctl PATH allow|remove ENTRY [--close] | lock | status | list\n"
    "                       | pending | approve ID [--always] | deny ID\n"
    "       jailrun start NAME [--foreground] [--idle-stop SECONDS] [--pool N] [OPTIONS]\n"
    "       jailrun exec NAME [--env NAME=VALUE]... [--cwd DIR] [--] COMMAND [ARG...]\n"
    "       jailrun ls | jailrun stop NAME\n"
    "\n"
    "Run COMMAND in fresh user, network, PID, mount, IPC and UTS namespaces\n"
    "with no capabilities, no_new_privs, and an nftables ruleset installed and\n"
    "verified before the command starts.\n"
    "start builds a live sandbox with the same options and returns once it is\n"
    "ready; exec runs commands in it (jailrun(1), LIVE SANDBOXES).\n"
    "\n"
    "Network:\n"
    "  --allow ENTRY       allow connections to ENTRY (repeatable): host,\n"
    "                      *.suffix, IPv4/IPv6 address or CIDR, each with an\n"
    "                      optional :port ([v6]:port); implies --net allowlist\n"
    "  --allow-file FILE   read --allow entries from FILE, one per line, # comments\n"
    "  --allow-http 'METHODS URL-PREFIX'\n"
    "                      HTTP rules (repeatable), e.g. 'GET,HEAD\n"
    "                      http://api.example.com/repos/our-org/': a host with\n"
    "                      rules takes only requests a rule allows (the rule's\n"
    "                      host:port is allowed); implies --net allowlist\n"
    "  --net MODE          'allowlist': only the relay, which forwards to --allow\n"
    "                      hosts (default when --allow is given); 'public': any\n"
    "                      host through the relay, every connection and lookup\n"
    "                      logged, loopback, link-local, metadata and private\n"
    "                      addresses still refused; 'none': only loopback\n"
    "                      (hermetic; the default otherwise), plus any --lane\n"
    "                      and --publish\n"
    "  --allow-private CIDR\n"
    "                      let the relay connect to this private or special\n"
    "                      range (repeatable), e.g. 10.1.2.0/24, 10.1.2.3:5432;\n"
    "                      this host's own addresses only where named exactly\n"
    "  --deny-message TEXT added to every 403 the relay answers and to the\n"
    "                      end-of-run denied line (at most 256 bytes)\n"
    "  --learn FILE        like --net public; at exit FILE is an --allow-file\n"
    "                      of every host:port reached (refusals as comments)\n"
    "  --gateway CIDR      the relay's address on the sandbox link\n"
    "                      (default " JR_DEFAULT_GATEWAY
    "; the command gets the next)\n"
    "  --log FILE          append the audit log (JSON lines) to FILE (- for\n"
    "                      stdout; never a symlink or another user's file)\n"
    "  --log-fd N          write the audit log to file descriptor N\n"
    "  --max-conns N       concurrent relay connections (default 2048)\n"
    "  --header-timeout SECONDS\n"
    "                      a proxy client must send its request within this\n"
    "                      (default 10)\n"
    "  --connect-timeout SECONDS\n"
    "                      upstream connect and name resolution limit; then 504\n"
    "                      (default 10)\n"
    "  --idle-timeout SECONDS\n"
    "                      close a tunnel idle this long (default 900)\n"
    "  --transparent on|off\n"
    "                      capture TCP of programs that ignore the proxy:\n"
    "                      allowed names resolve to synthetic addresses the\n"
    "                      relay maps back, in DNS and in /etc/hosts\n"
    "                      (default on; off: proxy and DNS only)\n"
    "  --lane ENDPOINT     the model lane, in every --net mode (repeatable):\n"
    "                      ADDRESS:PORT (e.g. 127.0.0.1:4000, [::1]:4000) is a\n"
    "                      host service, reached inside at\n"
    "                      host.jailrun.internal:PORT ($JAILRUN_LANE_PORT)\n"
    "                      and at 127.0.0.1:PORT (localhost:PORT is\n"
    "                      127.0.0.1:PORT);\n"
    "                      NAME:PORT is an --allow entry that holds even\n"
    "                      under --net none\n"
    "  --lane-env NAME=TEMPLATE\n"
    "                      set NAME for the command to TEMPLATE with {lane}\n"
    "                      (the only host lane) or {lane:PORT} replaced by\n"
    "                      host.jailrun.internal:PORT (repeatable), e.g.\n"
    "                      OPENAI_BASE_URL=http://{lane}/v1\n"
    "  --publish [ADDR:]HOSTPORT:PORT\n"
    "                      listen on the host at ADDR (default 127.0.0.1)\n"
    "                      port HOSTPORT and forward to the command's PORT\n"
    "                      (repeatable)\n"
    "  --control PATH      serve live policy changes on a unix socket at PATH\n"
    "                      (mode 0600, your uid only); see 'jailrun ctl'\n"
    "  --control-fd N      the same on an inherited unix stream socket N,\n"
    "                      listening or connected\n"
    "  --ask               with --control: hold a connection or lookup the\n"
    "                      allowlist refuses until 'jailrun ctl PATH approve\n"
    "                      ID [--always]' or 'deny ID' (see 'pending'); a\n"
    "                      live sandbox without --control: 'jailrun ctl NAME'\n"
    "  --ask tty           hold them the same way and ask on the controlling\n"
    "                      terminal: allow [o]nce, [a]lways, or [d]eny\n"
    "                      (--control, if given too, may decide first)\n"
    "  --ask-timeout SECONDS\n"
    "                      refuse a held request after this long (default\n"
    "                      30, 1 to 3600)\n"
    "\n"
    "Hardening:\n"
    "  --seccomp on|off    the command's seccomp filter (default on; off is for\n"
    "                      debugging and is logged loudly)\n"
    "  --landlock auto|require|off\n"
    "                      Landlock as a second wall: writes only to the\n"
    "                      working directory, the tmpfs mounts and the device\n"
    "                      nodes; TCP connect only to the relay's and the\n"
    "                      allowed ports. auto (default) uses it where the\n"
    "                      kernel has it; require fails (125) where it does not\n"
    "  --allow-nested      let the command create user and network namespaces\n"
    "                      (for commands that sandbox themselves: bwrap, browsers)\n"
    "  --expose PATH       pass this host socket through (e.g.\n"
    "                      /run/docker.sock); repeatable; also keeps the\n"
    "                      environment variable that names it (SSH_AUTH_SOCK...)\n"
    "  --on-tamper restore|kill\n"
    "                      when the sandbox's rules or network namespace are\n"
    "                      tampered with: restore them (default), or end the\n"
    "                      sandbox with status 125\n"
    "  --watchdog-interval SECONDS\n"
    "                      how often the rules are re-verified (default 1)\n"
    "\n"
    "Filesystem (default: the host read-only, the working directory writable,\n"
    "secrets hidden, private /tmp /var/tmp /dev/shm /run and a minimal /dev;\n"
    "see jailrun(1) FILESYSTEM). Paths are literal, no globs:\n"
    "  --workdir DIR       the writable working directory the command starts in\n"
    "                      (default: the current directory; never /, $HOME or a\n"
    "                      parent of it)\n"
    "  --rw PATH           also writable (repeatable); naming a protected path\n"
    "                      makes that one writable: --rw .git/config for git\n"
    "                      config and remote add, --rw .git opens the hooks too;\n"
    "                      a missing one below your home is created (0700)\n"
    "  --ro PATH           read-only, also inside a writable root (repeatable)\n"
    "  --hide PATH         cover with an empty read-only file or directory\n"
    "  --tmpfs PATH        a fresh private tmpfs on PATH (repeatable)\n"
    "  --tmpfs-size SIZE   size of each tmpfs, bytes or with k/m/g (default:\n"
    "                      --memory each, else 1 GiB shared by all of them)\n"
    "  --idmap on|off      started by root: the working directory and --rw\n"
    "                      paths another user owns are mounted idmapped, so\n"
    "                      the command owns them (default on)\n"
    "  --fs host           no filesystem walls: the whole host as your\n"
    "                      permissions allow; the command can read your\n"
    "                      secrets (~/.ssh, cloud credentials), change your\n"
    "                      shell rc files and git hooks, and reach host sockets\n"
    "\n"
    "Sandbox:\n"
    "  --timeout SECONDS   kill the whole sandbox after SECONDS (decimals allowed)\n"
    "                      and exit 124\n"
    "  --user USER|UID[:GROUP|GID]\n"
    "                      when started as root, run COMMAND as this user\n"
    "                      (default: the sudo caller, else nobody). Without\n"
    "                      root, COMMAND runs as the caller. 'root' is uid 0\n"
    "                      inside the sandbox only: on the host it is the\n"
    "                      caller (the sudo caller, else nobody, under root)\n"
    "  --host-root         DANGEROUS: uid 0 inside is host uid 0; the command\n"
    "                      can read, change and chmod the host's root-owned\n"
    "                      files (started by root only; implies --user root)\n"
    "  --setenv NAME=VALUE set NAME for the command (repeatable; wins over\n"
    "                      everything else, jailrun's proxy variables too)\n"
    "  --unsetenv NAME     remove NAME from the command's environment\n"
    "                      (repeatable)\n"
    "  --clearenv          start from an empty environment: the command gets\n"
    "                      only HOME, USER, LOGNAME, SHELL, jailrun's own\n"
    "                      variables (proxy, lanes, CA) and what --env-file\n"
    "                      and --setenv give\n"
    "  --env-file FILE     NAME=VALUE lines (# comments, blank lines; VALUE\n"
    "                      literal) for the command (repeatable). The\n"
    "                      order: see jailrun(1) ENVIRONMENT\n"
    "  --secret NAME@HOST[:PORT][,HOST[:PORT]...]\n"
    "                      the command gets a placeholder in NAME; the relay\n"
    "                      swaps in the real value (jailrun's own $NAME) in\n"
    "                      request headers to these hosts only, on port 443\n"
    "                      or the PORT given, over TLS it inspects;\n"
    "                      NAME=file:PATH@HOST... reads the value from PATH.\n"
    "                      See jailrun(1) SECRETS AND INSPECTION\n"
    "  --inspect HOST      terminate TLS to HOST too (audit each request)\n"
    "  --upstream-ca FILE  verify inspected upstreams against FILE instead\n"
    "                      of the host's CA store\n"
    "  --secret-allow-plaintext\n"
    "                      let a secret go over plain HTTP to the host:PORT\n"
    "                      its binding names\n"
    "  --json FILE         write a JSON summary of the run to FILE at exit\n"
    "                      (- for stdout; never a symlink or another user's file);\n"
    "                      written on a set-up failure (exit 125) too\n"
    "  --label TEXT        name the run in the JSON summary and on each audit\n"
    "                      line (one line, at most 128 bytes)\n"
    "  --raw-tty           relay terminal output unchanged; by default the\n"
    "                      sequences that act outside the pane (clipboard,\n"
    "                      titles...) are dropped, see jailrun(1) TERMINAL\n"
    "  --check             check this host can run sandboxes, then exit\n"
    "  --config FILE       read options from FILE, jailrun.conf(5) (repeatable;\n"
    "                      later files win, the command line wins last)\n"
    "  --profile NAME      read NAME.conf in " JR_PROFILE_DIR ",\n"
    "                      then ~/.config/jailrun/profiles/NAME.conf\n"
    "                      (shipped: node, python, rust, go)\n"
    "  --print-config      print the effective configuration, each setting\n"
    "                      with its origin, and exit without running anything\n"
    "  -v, --verbose       say what jailrun is doing (twice: debug detail)\n"
    "  -q, --quiet         print only errors\n"
    "  -h, --help          show this help and exit\n"
    "  -V, --version       show the version and exit\n"
    "\n"
    "Resource limits (see jailrun(1) RESOURCE LIMITS):\n"
    "  --rlimit NAME=N     setrlimit for the command, soft = hard = N\n"
    "                      (repeatable; nofile, nproc, as, fsize, cpu, core,\n"
    "                      stack; sizes with k/m/g; 'unlimited'); at most the\n"
    "                      current hard limit\n"
    "  --memory BYTES      memory (and swap) of the whole sandbox, k/m/g\n"
    "  --pids N            tasks of the whole sandbox, init included\n"
    "  --cpus N            CPU time, in CPUs (0.5 = half of one)\n"
    "                      --memory/--pids/--cpus use a cgroup of the\n"
    "                      sandbox's own (v1 or v2): root, or a delegated\n"
    "                      subtree (systemd Delegate=yes); else exit 125\n"
    "\n"
    "Exit status: COMMAND's own; 125 jailrun failed before COMMAND ran;\n"
    "126 COMMAND not executable; 127 COMMAND not found; 128+N COMMAND killed\n"
    "by signal N; 124 --timeout expired.\n"
    "\n"
    "See jailrun(1) for details.\n";

/*
 * The option table. Every option is one row of JR_OPTION_ROWS (further
 * down): its name, whether it takes a value, its short letter if it has
 * one, and what it does with its value. The getopt_long table (jr_options_long_table(),
 * which conffile.c, managed.c and the tests walk), the getopt values and
 * the parser's dispatch table are all made from those rows, so no option
 * can be in one and missing from another.
 */

/* What the parse carries between options besides @opts itself. */
struct parse_state {
	struct jr_options *opts;
	bool saw_net; /* --net given: --learn and --allow check against it */
	bool defer;   /* jr_options_parse_run(): policy errors to setup_err */
	int argc;     /* the words being parsed: --ask peeks at the next */
	char **argv;
};

/*
 * policy_error - @r, the result of a policy check whose message is in
 * @err; under jr_options_parse_run() the first such error is kept in
 * opts->setup_err and parsing goes on (0), so that main() reports it
 * with a summary. Return: @r, or 0 when deferred.
 */
static int policy_error(struct parse_state *ps, int r, struct jr_err *err)
{
	if (r >= 0 || !ps->defer)
		return r;
	if (!ps->opts->setup_err.code)
		ps->opts->setup_err = *err;
	return 0;
}

/* A handler's return: parsing stops here, successfully (--help). */
#define OPT_STOP 1

struct opt_def;
typedef int opt_handler(struct parse_state *ps, const struct opt_def *d,
			const char *arg, struct jr_err *err);
typedef int opt_check(const struct opt_def *d, const char *arg,
		      struct jr_err *err);
typedef int opt_limit(const char *arg, struct jr_limits *l, struct jr_err *err);

/*
 * struct opt_def - one option, as the parser sees it.
 * @name: the long name, without "--" (error messages name it)
 * @short_name: its one-letter form, or 0
 * @handle: what the option does with its value (or with nothing)
 * @field: offsetof() the struct jr_options member @handle writes
 * @count: lists: offsetof() the member that counts @field's entries
 * @check: the value's validator before it is kept, or NULL
 * @max: lists: at most this many values, 0: only argc bounds them
 * @limit: --rlimit and friends: limits.c's parser of the value
 * @action: set_action(): the action the option asks for
 * @stop: set_action(): parsing ends here (--help, --version)
 * @once: set_string(): given twice is an error
 */
struct opt_def {
	const char *name;
	int short_name;
	opt_handler *handle;
	size_t field;
	size_t count;
	opt_check *check;
	size_t max;
	opt_limit *limit;
	enum jr_action action;
	bool stop;
	bool once;
};

bool jr_profile_name_valid(const char *name)
{
	size_t n = 0;

	for (; name[n]; n++)
		if (!((name[n] >= 'a' && name[n] <= 'z') ||
		      (name[n] >= 'A' && name[n] <= 'Z') ||
		      (name[n] >= '0' && name[n] <= '9') || name[n] == '_' ||
		      name[n] == '-'))
			return false;
	return n >= 1 && n <= 64;
}

const char *jr_net_mode_name(enum jr_net_mode mode)
{
	switch (mode) {
	case JR_NET_NONE:
		return "none";
	case JR_NET_ALLOWLIST:
		return "allowlist";
	}
	return "unknown";
}

const char *jr_options_net_mode(const struct jr_options *opts)
{
	/* --net none with lanes or published ports runs on the allowlist
	 * plumbing but is still the mode the user chose. */
	if (opts->none_with_lanes)
		return jr_net_mode_name(JR_NET_NONE);
	if (opts->net == JR_NET_NONE)
		return "hermetic";
	return opts->net_public ? "public" : jr_net_mode_name(opts->net);
}

const char *jr_fs_mode_name(enum jr_fs_mode mode)
{
	return mode == JR_FS_HOST ? "host" : "isolated";
}

int jr_parse_size(const char *s, uint64_t *bytes)
{
	uint64_t v = 0, mult = 1;
	const char *p = s;

	if (!s || *s < '0' || *s > '9')
		return -EINVAL;
	for (; *p >= '0' && *p <= '9'; p++) {
		v = v * 10 + (uint64_t)(*p - '0');
		if (v > JR_SIZE_MAX)
			return -EINVAL;
	}
	switch (*p) {
	case '\0':
		break;
	case 'k':
	case 'K':
		mult = 1ULL << 10;
		p++;
		break;
	case 'm':
	case 'M':
		mult = 1ULL << 20;
		p++;
		break;
	case 'g':
	case 'G':
		mult = 1ULL << 30;
		p++;
		break;
	default:
		return -EINVAL;
	}
	if (*p != '\0' || v > JR_SIZE_MAX / mult)
		return -EINVAL;
	v *= mult;
	if (v < JR_SIZE_MIN || v > JR_SIZE_MAX)
		return -EINVAL;
	*bytes = v;
	return 0;
}

/* A filesystem path option: not empty, no NUL-free surprises. Relative
 * paths are taken from the current directory later (fslayout.c). */
static int check_path_option(const struct opt_def *d, const char *arg,
			     struct jr_err *err)
{
	if (!*arg)
		return jr_err_set(err, EINVAL, "--%s: empty path", d->name);
	if (strlen(arg) >= 4096)
		return jr_err_set(err, EINVAL, "--%s: path too long", d->name);
	return 0;
}

/* "public" is the allowlist's relay with a policy that matches every
 * name (struct jr_options, net_public). */
static int parse_net_mode(const char *s, enum jr_net_mode *mode, bool *public,
			  struct jr_err *err)
{
	*public = false;
	if (strcmp(s, "none") == 0) {
		*mode = JR_NET_NONE;
		return 0;
	}
	if (strcmp(s, "allowlist") == 0) {
		*mode = JR_NET_ALLOWLIST;
		return 0;
	}
	if (strcmp(s, "public") == 0) {
		*mode = JR_NET_ALLOWLIST;
		*public = true;
		return 0;
	}
	return jr_err_set(
	    err, EINVAL,
	    "--net %s: unknown network mode (known: allowlist, public, none)",
	    s);
}

/*
 * check_one_line() - text that goes into a line others print (an HTTP
 * body, a terminal, a rig's table): not empty, at most @max bytes, and
 * no control characters (a newline would end the line, an escape
 * sequence would act on the terminal). @opt names the option.
 */
static int check_one_line(const char *opt, const char *s, size_t max,
			  struct jr_err *err)
{
	size_t len = strlen(s);

	if (len == 0)
		return jr_err_set(err, EINVAL, "%s: empty text", opt);
	if (len > max)
		return jr_err_set(err, EINVAL,
				  "%s: at most %zu bytes, this one has %zu",
				  opt, max, len);
	for (size_t i = 0; i < len; i++) {
		unsigned char c = (unsigned char)s[i];

		if (c < 0x20 || c == 0x7f)
			return jr_err_set(
			    err, EINVAL,
			    "%s: control character 0x%02x at byte %zu; one line of printable text only",
			    opt, c, i + 1);
	}
	return 0;
}

/* --deny-message goes into every 403 body and the terminal's line. */
static int check_deny_message(const struct opt_def *d, const char *s,
			      struct jr_err *err)
{
	(void)d;
	return check_one_line("--deny-message", s, JR_DENY_MESSAGE_MAX, err);
}

/* --label names the run in the summary and on each audit line. */
static int check_label(const struct opt_def *d, const char *s,
		       struct jr_err *err)
{
	(void)d;
	return check_one_line("--label", s, JR_LABEL_MAX, err);
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
		if (whole > JR_DURATION_MAX_S)
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
	if (*ms == 0 || *ms > JR_DURATION_MAX_S * 1000)
		return -EINVAL;
	return 0;
}

static bool special_ipv4(uint32_t a)
{
	return (a >> 24) == 0 || (a >> 24) == 127 || (a >> 16) == 0xa9fe ||
	       (a >> 28) == 0xe || (a >> 28) == 0xf;
}

int jr_parse_gateway(const char *s, struct jr_gateway *g)
{
	char addr[INET_ADDRSTRLEN];
	const char *slash = strchr(s, '/');
	unsigned int prefix = 0;
	struct in_addr in;
	uint32_t a, mask, net, bcast;
	const char *p;

	if (!slash || (size_t)(slash - s) >= sizeof(addr) || !slash[1] ||
	    strlen(slash + 1) > 2)
		return -EINVAL;
	memcpy(addr, s, (size_t)(slash - s));
	addr[slash - s] = '\0';
	if (inet_pton(AF_INET, addr, &in) != 1)
		return -EINVAL;
	for (p = slash + 1; *p; p++) {
		if (*p < '0' || *p > '9')
			return -EINVAL;
		prefix = prefix * 10 + (unsigned int)(*p - '0');
	}
	/* /31 and /32 leave no room for two host addresses (RFC 3021 aside). */
	if (prefix < 1 || prefix > 30)
		return -EINVAL;
	a = ntohl(in.s_addr);
	mask = ~0U << (32 - prefix); /* prefix is 1..30 here */
	net = a & mask;
	bcast = net | ~mask;
	if (a == net || a + 1 >= bcast || special_ipv4(a))
		return -EINVAL;
	g->relay.s_addr = htonl(a);
	g->worker.s_addr = htonl(a + 1);
	g->prefix = (uint8_t)prefix;
	return 0;
}

static int parse_uint(const char *s, unsigned long max, unsigned long *v)
{
	char *end;

	if (!s || *s < '0' || *s > '9')
		return -EINVAL;
	errno = 0;
	*v = strtoul(s, &end, 10);
	if (errno || *end || *v > max)
		return -EINVAL;
	return 0;
}

static int parse_timeout_option(const char *name, const char *arg, uint64_t *ms,
				struct jr_err *err)
{
	if (jr_parse_duration_ms(arg, ms) < 0)
		return jr_err_set(
		    err, EINVAL,
		    "--%s %s: expected seconds > 0 and <= %llu, at most 3 decimals (e.g. 30 or 1.5)",
		    name, arg, JR_DURATION_MAX_S);
	return 0;
}

/* An on|off option's value, or -EINVAL naming the option. */
static int parse_on_off(const char *name, const char *arg, bool *on,
			struct jr_err *err)
{
	if (strcmp(arg, "on") == 0)
		*on = true;
	else if (strcmp(arg, "off") == 0)
		*on = false;
	else
		return jr_err_set(err, EINVAL, "--%s %s: expected on or off",
				  name, arg);
	return 0;
}

/* --allow-http: the rule's grammar, checked here so a bad rule is a usage
 * error naming it (httprules.h); main() parses it again to keep it. */
static int check_allow_http(const struct opt_def *d, const char *arg,
			    struct jr_err *err)
{
	struct jr_http_rule *rule = malloc(sizeof(*rule));
	int r;

	if (!rule)
		return jr_err_set(err, ENOMEM, "out of memory");
	r = jr_httprule_parse(arg, rule, err);
	free(rule);
	return r;
}

/* The member of @opts at @off (an offsetof() from a table row). */
static void *opt_field(struct jr_options *opts, size_t off)
{
	return (char *)opts + off;
}

static int set_flag(struct parse_state *ps, const struct opt_def *d,
		    const char *arg, struct jr_err *err)
{
	*(bool *)opt_field(ps->opts, d->field) = true;
	return 0;
}

static int set_action(struct parse_state *ps, const struct opt_def *d,
		      const char *arg, struct jr_err *err)
{
	ps->opts->action = d->action;
	return d->stop ? OPT_STOP : 0;
}

static int set_on_off(struct parse_state *ps, const struct opt_def *d,
		      const char *arg, struct jr_err *err)
{
	return parse_on_off(d->name, arg, opt_field(ps->opts, d->field), err);
}

static int set_duration(struct parse_state *ps, const struct opt_def *d,
			const char *arg, struct jr_err *err)
{
	return parse_timeout_option(d->name, arg, opt_field(ps->opts, d->field),
				    err);
}

/* --log-fd, --control-fd: an inherited descriptor, never 0..2. */
static int set_fd(struct parse_state *ps, const struct opt_def *d,
		  const char *arg, struct jr_err *err)
{
	unsigned long v;

	if (parse_uint(arg, 1 << 20, &v) < 0 || v < 3)
		return jr_err_set(
		    err, EINVAL,
		    "--%s %s: expected an open file descriptor number >= 3",
		    d->name, arg);
	*(int *)opt_field(ps->opts, d->field) = (int)v;
	return 0;
}

/* A single value, kept as given (it points into argv); the last one wins
 * unless the row says @once. */
static int set_string(struct parse_state *ps, const struct opt_def *d,
		      const char *arg, struct jr_err *err)
{
	const char **value = opt_field(ps->opts, d->field);

	if (d->once && *value)
		return jr_err_set(err, EINVAL, "--%s given twice", d->name);
	if (d->check && d->check(d, arg, err) < 0)
		return -EINVAL;
	*value = arg;
	return 0;
}

/* --config: conffile.c has read the file already; the value is only
 * checked here, so the command line is checked in one place. */
static int check_value(struct parse_state *ps, const struct opt_def *d,
		       const char *arg, struct jr_err *err)
{
	return d->check(d, arg, err);
}

/* A repeatable option: the value appended to its list (sized by
 * alloc_lists() from argc, so it cannot overflow). */
static int add_to_list(struct parse_state *ps, const struct opt_def *d,
		       const char *arg, struct jr_err *err)
{
	const char **list = *(const char ***)opt_field(ps->opts, d->field);
	size_t *n = opt_field(ps->opts, d->count);

	if (d->max && *n == d->max)
		return jr_err_set(err, EINVAL, "--%s: at most %zu", d->name,
				  d->max);
	if (d->check && d->check(d, arg, err) < 0)
		return -EINVAL;
	list[(*n)++] = arg;
	return 0;
}

static int set_limit(struct parse_state *ps, const struct opt_def *d,
		     const char *arg, struct jr_err *err)
{
	return d->limit(arg, &ps->opts->limits, err);
}

static int check_file_name(const struct opt_def *d, const char *arg,
			   struct jr_err *err)
{
	if (!*arg)
		return jr_err_set(err, EINVAL, "--%s: empty file name",
				  d->name);
	return 0;
}

static int check_user_name(const struct opt_def *d, const char *arg,
			   struct jr_err *err)
{
	if (!*arg)
		return jr_err_set(err, EINVAL, "--%s: empty user name",
				  d->name);
	return 0;
}

static int check_pem_file(const struct opt_def *d, const char *arg,
			  struct jr_err *err)
{
	if (!*arg)
		return jr_err_set(err, EINVAL, "--%s: expected a PEM file",
				  d->name);
	return 0;
}

static int check_absolute(const struct opt_def *d, const char *arg,
			  struct jr_err *err)
{
	if (arg[0] != '/')
		return jr_err_set(err, EINVAL,
				  "--%s %s: expected an absolute path", d->name,
				  arg);
	return 0;
}

/* sockaddr_un's sun_path holds 108 bytes, the NUL included (unix(7)). */
static int check_socket_path(const struct opt_def *d, const char *arg,
			     struct jr_err *err)
{
	if (!*arg)
		return jr_err_set(err, EINVAL, "--%s: empty path", d->name);
	if (strlen(arg) >= 108)
		return jr_err_set(
		    err, EINVAL,
		    "--%s %s: a unix socket path has at most 107 bytes",
		    d->name, arg);
	return 0;
}

static int check_profile(const struct opt_def *d, const char *arg,
			 struct jr_err *err)
{
	if (!jr_profile_name_valid(arg))
		return jr_err_set(
		    err, EINVAL,
		    "--%s %s: expected a name of 1 to 64 letters, digits, '_' or '-'",
		    d->name, arg);
	return 0;
}

static int check_private(const struct opt_def *d, const char *arg,
			 struct jr_err *err)
{
	return jr_policy_parse_private(arg, NULL, err);
}

/* --setenv NAME=VALUE: the name's rule (envplan.c). */
static int check_setenv(const struct opt_def *d, const char *arg,
			struct jr_err *err)
{
	struct jr_env_var v = { 0 };

	(void)d;
	if (jr_env_parse_setenv(arg, &v, err) < 0)
		return -EINVAL;
	free(v.name);
	free(v.value);
	return 0;
}

static int check_unsetenv(const struct opt_def *d, const char *arg,
			  struct jr_err *err)
{
	(void)d;
	return jr_env_check_unsetenv(arg, err);
}

/* --lane-env: the grammar only; the lanes may follow (check_lanes()). */
static int check_lane_env(const struct opt_def *d, const char *arg,
			  struct jr_err *err)
{
	(void)d;
	return jr_lane_env_expand(NULL, arg, NULL, NULL, err);
}

/* --secret: the spec's grammar only; main.c reads the values. */
static int check_secret(const struct opt_def *d, const char *arg,
			struct jr_err *err)
{
	struct jr_secret sec;

	if (jr_secret_spec_parse(arg, &sec, err) < 0)
		return -EINVAL;
	jr_secret_release(&sec);
	return 0;
}

static int check_inspect(const struct opt_def *d, const char *arg,
			 struct jr_err *err)
{
	char host[JR_HOST_MAX + 1];

	return jr_inspect_host_parse(arg, host, err);
}

/* -v and -q pull one level in opposite directions: together they are a
 * mistake, not a sum. */
static int on_verbose(struct parse_state *ps, const struct opt_def *d,
		      const char *arg, struct jr_err *err)
{
	if (ps->opts->verbosity < 0)
		return jr_err_set(err, EINVAL, "-v and -q cannot be combined");
	ps->opts->verbosity++;
	return 0;
}

static int on_quiet(struct parse_state *ps, const struct opt_def *d,
		    const char *arg, struct jr_err *err)
{
	if (ps->opts->verbosity > 0)
		return jr_err_set(err, EINVAL, "-v and -q cannot be combined");
	ps->opts->verbosity = -1;
	return 0;
}

static int on_net(struct parse_state *ps, const struct opt_def *d,
		  const char *arg, struct jr_err *err)
{
	if (parse_net_mode(arg, &ps->opts->net, &ps->opts->net_public, err) < 0)
		return -EINVAL;
	ps->saw_net = true;
	return 0;
}

static int on_gateway(struct parse_state *ps, const struct opt_def *d,
		      const char *arg, struct jr_err *err)
{
	if (jr_parse_gateway(arg, &ps->opts->gateway) < 0)
		return jr_err_set(
		    err, EINVAL,
		    "--gateway %s: expected an IPv4 host address with a prefix of 1..30, e.g. " JR_DEFAULT_GATEWAY
		    " (the next address, for the command, must be in the same network; not loopback, link-local or multicast)",
		    arg);
	return 0;
}

static int on_max_conns(struct parse_state *ps, const struct opt_def *d,
			const char *arg, struct jr_err *err)
{
	unsigned long v;

	if (parse_uint(arg, 65536, &v) < 0 || v < 1)
		return jr_err_set(
		    err, EINVAL,
		    "--max-conns %s: expected a number from 1 to 65536", arg);
	ps->opts->max_conns = (unsigned int)v;
	return 0;
}

bool jr_options_word_follows(const char *name, const char *next)
{
	return strcmp(name, "ask") == 0 && next && strcmp(next, "tty") == 0;
}

/* --ask, or --ask tty: the word right after it is its value when it is
 * "tty" (getopt has the option as a flag, so a config file's "ask", "ask
 * yes" and "ask no" keep their meaning; conffile.c emits "--ask tty"). */
static int on_ask(struct parse_state *ps, const struct opt_def *d,
		  const char *arg, struct jr_err *err)
{
	(void)d;
	(void)arg;
	(void)err;
	ps->opts->ask = true;
	if (optind < ps->argc &&
	    jr_options_word_follows("ask", ps->argv[optind])) {
		ps->opts->ask_tty = true;
		optind++;
	}
	return 0;
}

/* --ask-timeout: whole seconds; a held request waits for a person, so
 * fractions would mean nothing and a day would be a forgotten request. */
static int on_ask_timeout(struct parse_state *ps, const struct opt_def *d,
			  const char *arg, struct jr_err *err)
{
	unsigned long v;

	(void)d;
	if (parse_uint(arg, JR_ASK_TIMEOUT_MAX, &v) < 0 || v < 1)
		return jr_err_set(
		    err, EINVAL,
		    "--ask-timeout %s: expected whole seconds from 1 to %d",
		    arg, JR_ASK_TIMEOUT_MAX);
	ps->opts->ask_timeout_ms = (uint64_t)v * 1000;
	return 0;
}

static int on_landlock(struct parse_state *ps, const struct opt_def *d,
		       const char *arg, struct jr_err *err)
{
	if (strcmp(arg, "auto") == 0)
		ps->opts->landlock = JR_LANDLOCK_AUTO;
	else if (strcmp(arg, "require") == 0)
		ps->opts->landlock = JR_LANDLOCK_REQUIRE;
	else if (strcmp(arg, "off") == 0)
		ps->opts->landlock = JR_LANDLOCK_OFF;
	else
		return jr_err_set(
		    err, EINVAL, "--landlock %s: expected auto, require or off",
		    arg);
	return 0;
}

static int on_tamper(struct parse_state *ps, const struct opt_def *d,
		     const char *arg, struct jr_err *err)
{
	if (strcmp(arg, "restore") == 0)
		ps->opts->tamper_kill = false;
	else if (strcmp(arg, "kill") == 0)
		ps->opts->tamper_kill = true;
	else
		return jr_err_set(err, EINVAL,
				  "--on-tamper %s: expected restore or kill",
				  arg);
	return 0;
}

/* Below 10 ms the watchdog would spend the CPU re-reading the rules. */
static int on_watchdog_interval(struct parse_state *ps, const struct opt_def *d,
				const char *arg, struct jr_err *err)
{
	if (parse_timeout_option(d->name, arg, &ps->opts->watchdog_interval_ms,
				 err) < 0)
		return -EINVAL;
	if (ps->opts->watchdog_interval_ms < 10)
		return jr_err_set(
		    err, EINVAL,
		    "--watchdog-interval %s: at least 0.01 seconds", arg);
	return 0;
}

static int on_tmpfs_size(struct parse_state *ps, const struct opt_def *d,
			 const char *arg, struct jr_err *err)
{
	if (jr_parse_size(arg, &ps->opts->tmpfs_size) < 0)
		return jr_err_set(
		    err, EINVAL,
		    "--tmpfs-size %s: expected bytes from 4096, optionally with k, m or g (e.g. 512m)",
		    arg);
	return 0;
}

static int on_fs(struct parse_state *ps, const struct opt_def *d,
		 const char *arg, struct jr_err *err)
{
	if (strcmp(arg, "host") == 0)
		ps->opts->fs_mode = JR_FS_HOST;
	else if (strcmp(arg, "isolated") == 0)
		ps->opts->fs_mode = JR_FS_ISOLATED;
	else
		return jr_err_set(err, EINVAL,
				  "--fs %s: expected isolated or host", arg);
	return 0;
}

static int on_learn(struct parse_state *ps, const struct opt_def *d,
		    const char *arg, struct jr_err *err)
{
	if (!*arg)
		return jr_err_set(err, EINVAL, "--learn: empty file name");
	if (ps->opts->learn_path)
		return jr_err_set(err, EINVAL, "--learn given twice");
	ps->opts->learn_path = arg;
	return 0;
}

/* A lane must not take a port the relay itself listens on. */
static int on_lane(struct parse_state *ps, const struct opt_def *d,
		   const char *arg, struct jr_err *err)
{
	static const uint16_t relay_ports[] = { JR_PROXY_PORT, JR_DNS_PORT,
						JR_TRANSPARENT_PORT };

	return policy_error(ps,
			    jr_lanes_add_lane(&ps->opts->lanes, arg,
					      relay_ports,
					      ARRAY_SIZE(relay_ports), err),
			    err);
}

static int on_publish(struct parse_state *ps, const struct opt_def *d,
		      const char *arg, struct jr_err *err)
{
	return policy_error(
	    ps, jr_lanes_add_publish(&ps->opts->lanes, arg, err), err);
}

/*
 * offsetof(struct jr_options, f), and a compile error unless f has type T:
 * the handlers write through these offsets, so a row cannot point one at
 * a member of another type.
 */
#define FIELD(f, T)                                                            \
	_Generic(((struct jr_options *)0)->f, T                                \
		 : offsetof(struct jr_options, f))

/* The kinds of row: which handler, and the member it writes. */
#define FLAG(f) .handle = set_flag, .field = FIELD(f, bool)
#define ON_OFF(f) .handle = set_on_off, .field = FIELD(f, bool)
#define DURATION(f) .handle = set_duration, .field = FIELD(f, uint64_t)
#define FD(f) .handle = set_fd, .field = FIELD(f, int)
#define STRING(f, chk)                                                         \
	.handle = set_string, .field = FIELD(f, const char *), .check = chk
#define ONCE(f, chk) STRING(f, chk), .once = true
#define LIST(f, chk)                                                           \
	.handle = add_to_list, .field = FIELD(f, const char **),               \
	.count = FIELD(n_##f, size_t), .check = chk
#define LIST_MAX(f, chk, m) LIST(f, chk), .max = m
#define LIMIT(fn) .handle = set_limit, .limit = fn
#define ACTION(a) .handle = set_action, .action = a
#define ACTION_NOW(a) ACTION(a), .stop = true
#define CHECK_ONLY(chk) .handle = check_value, .check = chk
#define CUSTOM(fn) .handle = fn

#define ARG required_argument
#define NOARG no_argument

/*
 * X(ID, name, has_arg, short letter or 0, what it does). The order is the
 * order --print-config prints and conffile.c walks.
 */
#define JR_OPTION_ROWS(X)                                                      \
	X(NET, "net", ARG, 0, CUSTOM(on_net))                                  \
	X(ALLOW, "allow", ARG, 0, LIST(allow, NULL))                           \
	X(ALLOW_FILE, "allow-file", ARG, 0, LIST(allow_files, NULL))           \
	X(GATEWAY, "gateway", ARG, 0, CUSTOM(on_gateway))                      \
	X(LOG, "log", ARG, 0, STRING(log_path, check_file_name))               \
	X(LOG_FD, "log-fd", ARG, 0, FD(log_fd))                                \
	X(MAX_CONNS, "max-conns", ARG, 0, CUSTOM(on_max_conns))                \
	X(HEADER_TIMEOUT, "header-timeout", ARG, 0,                            \
	  DURATION(header_timeout_ms))                                         \
	X(CONNECT_TIMEOUT, "connect-timeout", ARG, 0,                          \
	  DURATION(connect_timeout_ms))                                        \
	X(IDLE_TIMEOUT, "idle-timeout", ARG, 0, DURATION(idle_timeout_ms))     \
	X(SECCOMP, "seccomp", ARG, 0, ON_OFF(seccomp))                         \
	X(LANDLOCK, "landlock", ARG, 0, CUSTOM(on_landlock))                   \
	X(ALLOW_NESTED, "allow-nested", NOARG, 0, FLAG(allow_nested))          \
	X(EXPOSE, "expose", ARG, 0, LIST(expose, check_absolute))              \
	X(ON_TAMPER, "on-tamper", ARG, 0, CUSTOM(on_tamper))                   \
	X(WATCHDOG_INTERVAL, "watchdog-interval", ARG, 0,                      \
	  CUSTOM(on_watchdog_interval))                                        \
	X(TIMEOUT, "timeout", ARG, 0, DURATION(timeout_ms))                    \
	X(USER, "user", ARG, 0, ONCE(user, check_user_name))                   \
	X(HOST_ROOT, "host-root", NOARG, 0, FLAG(host_root))                   \
	X(SETENV, "setenv", ARG, 0, LIST(env_set, check_setenv))               \
	X(UNSETENV, "unsetenv", ARG, 0, LIST(env_unset, check_unsetenv))       \
	X(CLEARENV, "clearenv", NOARG, 0, FLAG(clearenv))                      \
	X(ENV_FILE, "env-file", ARG, 0, LIST(env_files, check_file_name))      \
	X(JSON, "json", ARG, 0, STRING(json_path, check_file_name))            \
	X(LABEL, "label", ARG, 0, STRING(label, check_label))                  \
	X(RAW_TTY, "raw-tty", NOARG, 0, FLAG(raw_tty))                         \
	X(CHECK, "check", NOARG, 0, ACTION(JR_ACTION_CHECK))                   \
	X(RW, "rw", ARG, 0, LIST(rw, check_path_option))                       \
	X(RO, "ro", ARG, 0, LIST(ro, check_path_option))                       \
	X(HIDE, "hide", ARG, 0, LIST(hide, check_path_option))                 \
	X(TMPFS, "tmpfs", ARG, 0, LIST(tmpfs, check_path_option))              \
	X(TMPFS_SIZE, "tmpfs-size", ARG, 0, CUSTOM(on_tmpfs_size))             \
	X(WORKDIR, "workdir", ARG, 0, ONCE(workdir, check_path_option))        \
	X(FS, "fs", ARG, 0, CUSTOM(on_fs))                                     \
	X(IDMAP, "idmap", ARG, 0, ON_OFF(idmap))                               \
	X(TRANSPARENT, "transparent", ARG, 0, ON_OFF(transparent))             \
	X(ALLOW_PRIVATE, "allow-private", ARG, 0,                              \
	  LIST(allow_private, check_private))                                  \
	X(DENY_MESSAGE, "deny-message", ARG, 0,                                \
	  STRING(deny_message, check_deny_message))                            \
	X(LEARN, "learn", ARG, 0, CUSTOM(on_learn))                            \
	X(LANE, "lane", ARG, 0, CUSTOM(on_lane))                               \
	X(LANE_ENV, "lane-env", ARG, 0, LIST(lane_env, check_lane_env))        \
	X(PUBLISH, "publish", ARG, 0, CUSTOM(on_publish))                      \
	X(CONTROL, "control", ARG, 0, STRING(control_path, check_socket_path)) \
	X(CONTROL_FD, "control-fd", ARG, 0, FD(control_fd))                    \
	X(ASK, "ask", NOARG, 0, CUSTOM(on_ask))                                \
	X(ASK_TIMEOUT, "ask-timeout", ARG, 0, CUSTOM(on_ask_timeout))          \
	X(CONFIG, "config", ARG, 0, CHECK_ONLY(check_file_name))               \
	X(PROFILE, "profile", ARG, 0, STRING(profile, check_profile))          \
	X(PRINT_CONFIG, "print-config", NOARG, 0,                              \
	  ACTION(JR_ACTION_PRINT_CONFIG))                                      \
	X(ALLOW_HTTP, "allow-http", ARG, 0,                                    \
	  LIST(allow_http, check_allow_http))                                  \
	X(SECRET, "secret", ARG, 0,                                            \
	  LIST_MAX(secret, check_secret, JR_SECRETS_MAX))                      \
	X(INSPECT, "inspect", ARG, 0,                                          \
	  LIST_MAX(inspect, check_inspect, JR_INSPECT_HOSTS_MAX))              \
	X(UPSTREAM_CA, "upstream-ca", ARG, 0,                                  \
	  ONCE(upstream_ca, check_pem_file))                                   \
	X(SECRET_ALLOW_PLAINTEXT, "secret-allow-plaintext", NOARG, 0,          \
	  FLAG(secret_allow_plaintext))                                        \
	X(RLIMIT, "rlimit", ARG, 0, LIMIT(jr_limits_parse_rlimit))             \
	X(MEMORY, "memory", ARG, 0, LIMIT(jr_limits_parse_memory))             \
	X(PIDS, "pids", ARG, 0, LIMIT(jr_limits_parse_pids))                   \
	X(CPUS, "cpus", ARG, 0, LIMIT(jr_limits_parse_cpus))                   \
	X(VERBOSE, "verbose", NOARG, 'v', CUSTOM(on_verbose))                  \
	X(QUIET, "quiet", NOARG, 'q', CUSTOM(on_quiet))                        \
	X(HELP, "help", NOARG, 'h', ACTION_NOW(JR_ACTION_HELP))                \
	X(VERSION, "version", NOARG, 'V', ACTION_NOW(JR_ACTION_VERSION))

/* Each row's index; getopt returns OPT_VAL_BASE + index for a long-only
 * option (above every char, so no short letter collides). */
enum opt_row {
#define ROW_INDEX(id, name, has_arg, letter, ...) OPT_##id,
	JR_OPTION_ROWS(ROW_INDEX)
#undef ROW_INDEX
};
#define OPT_VAL_BASE 0x100

static const struct opt_def opt_defs[] = {
#define ROW_DEF(id, long_name, has_arg, letter, ...)                           \
	[OPT_##id] = { .name = long_name, .short_name = letter, __VA_ARGS__ },
	JR_OPTION_ROWS(ROW_DEF)
#undef ROW_DEF
};
#define OPT_N_ROWS ARRAY_SIZE(opt_defs)

/* One more entry than rows: the last stays zero, getopt_long's end. */
static const struct option jr_long_options[OPT_N_ROWS + 1] = {
#define ROW_GETOPT(id, long_name, has_arg, letter, ...)                        \
	[OPT_##id] = { long_name, has_arg, NULL,                               \
		       (letter) ? (letter) : OPT_VAL_BASE + OPT_##id },
	JR_OPTION_ROWS(ROW_GETOPT)
#undef ROW_GETOPT
};

#undef ARG
#undef NOARG
#undef FLAG
#undef ON_OFF
#undef DURATION
#undef FD
#undef STRING
#undef ONCE
#undef LIST
#undef LIST_MAX
#undef LIMIT
#undef ACTION
#undef ACTION_NOW
#undef CHECK_ONLY
#undef CUSTOM
#undef FIELD

const struct option *jr_options_long_table(void)
{
	return jr_long_options;
}

/* Longest word jr_options_suggest() compares; longer ones are no typo. */
#define SUGGEST_MAX 64

/* Optimal string alignment distance (Levenshtein plus the swap of two
 * neighbours, the commonest typo), or SIZE_MAX when either is too long. */
static size_t edit_distance(const char *a, const char *b)
{
	size_t la = strlen(a), lb = strlen(b);
	unsigned char d[SUGGEST_MAX + 1][SUGGEST_MAX + 1]; /* each <= 64 */

	if (la > SUGGEST_MAX || lb > SUGGEST_MAX)
		return SIZE_MAX;
	for (size_t i = 0; i <= la; i++)
		d[i][0] = (unsigned char)i;
	for (size_t j = 0; j <= lb; j++)
		d[0][j] = (unsigned char)j;
	for (size_t i = 1; i <= la; i++)
		for (size_t j = 1; j <= lb; j++) {
			unsigned sub =
			    d[i - 1][j - 1] + (a[i - 1] != b[j - 1] ? 1u : 0u);
			unsigned del = d[i - 1][j] + 1u, ins = d[i][j - 1] + 1u;
			unsigned best = sub < del ? sub : del;

			best = ins < best ? ins : best;
			if (i > 1 && j > 1 && a[i - 1] == b[j - 2] &&
			    a[i - 2] == b[j - 1] && d[i - 2][j - 2] + 1u < best)
				best = d[i - 2][j - 2] + 1u;
			d[i][j] = (unsigned char)best;
		}
	return d[la][lb];
}

const char *jr_options_suggest(const char *name, const char *const *extra)
{
	size_t limit = strlen(name) <= 4 ? 1 : 2, best_d = SIZE_MAX, d;
	const char *best = NULL;

	for (const struct option *o = jr_long_options; o->name; o++) {
		d = edit_distance(name, o->name);
		if (d < best_d) {
			best_d = d;
			best = o->name;
		}
	}
	for (size_t i = 0; extra && extra[i]; i++) {
		d = edit_distance(name, extra[i]);
		if (d < best_d) {
			best_d = d;
			best = extra[i];
		}
	}
	return best_d <= limit ? best : NULL;
}

/* The row for what getopt_long() returned, or NULL for its '?' and ':'. */
static const struct opt_def *find_def(int c)
{
	if (c >= OPT_VAL_BASE && (size_t)(c - OPT_VAL_BASE) < OPT_N_ROWS)
		return &opt_defs[c - OPT_VAL_BASE];
	for (size_t i = 0; i < OPT_N_ROWS; i++)
		if (opt_defs[i].short_name && opt_defs[i].short_name == c)
			return &opt_defs[i];
	return NULL;
}

static bool is_list(const struct opt_def *d)
{
	return d->handle == add_to_list;
}

void jr_options_release(struct jr_options *opts)
{
	for (size_t i = 0; i < OPT_N_ROWS; i++) {
		const struct opt_def *d = &opt_defs[i];
		const char ***list = opt_field(opts, d->field);

		if (!is_list(d))
			continue;
		free(*list);
		*list = NULL;
		*(size_t *)opt_field(opts, d->count) = 0;
	}
}

/* Every list option's array, argc + 1 entries: argc bounds how many
 * values any one option can have. */
static int alloc_lists(int argc, struct jr_options *opts, struct jr_err *err)
{
	for (size_t i = 0; i < OPT_N_ROWS; i++) {
		const struct opt_def *d = &opt_defs[i];
		const char ***list = opt_field(opts, d->field);

		if (!is_list(d))
			continue;
		*list = calloc((size_t)argc + 1, sizeof(**list));
		if (!*list) {
			jr_options_release(opts);
			return jr_err_set(err, ENOMEM, "out of memory");
		}
	}
	return 0;
}

static int set_defaults(int argc, struct jr_options *opts, struct jr_err *err)
{
	memset(opts, 0, sizeof(*opts));
	opts->net = JR_NET_NONE;
	opts->log_fd = -1;
	opts->control_fd = -1;
	opts->ask_timeout_ms = (uint64_t)JR_ASK_TIMEOUT_DEFAULT * 1000;
	opts->max_conns = JR_DEFAULT_MAX_CONNS;
	opts->header_timeout_ms = JR_DEFAULT_HEADER_TIMEOUT_MS;
	opts->idle_timeout_ms = JR_DEFAULT_IDLE_TIMEOUT_MS;
	opts->connect_timeout_ms = JR_DEFAULT_CONNECT_TIMEOUT_MS;
	opts->watchdog_interval_ms = JR_DEFAULT_WATCHDOG_INTERVAL_MS;
	opts->seccomp = true;
	opts->transparent = true;
	opts->idmap = true;
	if (jr_parse_gateway(JR_DEFAULT_GATEWAY, &opts->gateway) < 0)
		return jr_err_set(err, EINVAL, "bad built-in gateway");
	return alloc_lists(argc, opts, err);
}

/* "unknown option '--alow'", with the option it most likely meant. */
static int unknown_long_option(const char *arg, struct jr_err *err)
{
	char name[SUGGEST_MAX + 1];
	const char *hint;
	size_t n;

	if (strncmp(arg, "--", 2) != 0)
		return jr_err_set(err, EINVAL,
				  "unknown option '%s'; see jailrun --help",
				  arg);
	n = strcspn(arg + 2, "=");
	if (n > SUGGEST_MAX)
		n = SUGGEST_MAX;
	memcpy(name, arg + 2, n);
	name[n] = '\0';
	hint = jr_options_suggest(name, NULL);
	if (hint)
		return jr_err_set(
		    err, EINVAL,
		    "unknown option '%s'; did you mean --%s? see jailrun --help",
		    arg, hint);
	return jr_err_set(err, EINVAL,
			  "unknown option '%s'; see jailrun --help", arg);
}

/* getopt_long()'s '?' or ':' (opterr is 0) put in words that name the
 * option as the user wrote it. */
static int getopt_error(int c, char **argv, struct jr_err *err)
{
	if (c == ':')
		return jr_err_set(
		    err, EINVAL,
		    "option '%s' needs an argument; see jailrun --help",
		    argv[optind - 1]);
	if (optopt && optopt < 0x100)
		return jr_err_set(err, EINVAL,
				  "unknown option '-%c'; see jailrun --help",
				  optopt);
	if (optopt)
		return jr_err_set(
		    err, EINVAL,
		    "option '%s' takes no argument; see jailrun --help",
		    argv[optind - 1]);
	return unknown_long_option(argv[optind - 1], err);
}

/*
 * settle_net_mode() - the network mode the options add up to: --learn
 * and --allow imply theirs unless --net said otherwise, and --net none
 * with lanes runs on the allowlist plumbing.
 */
static int settle_net_mode(struct jr_options *opts, bool saw_net,
			   struct jr_err *err)
{
	if (opts->learn_path) {
		if (saw_net && !opts->net_public)
			return jr_err_set(
			    err, EINVAL,
			    "--learn runs the command like --net public and cannot be combined with --net %s",
			    jr_net_mode_name(opts->net));
		opts->net = JR_NET_ALLOWLIST;
		opts->net_public = true;
	}
	if (opts->net_public && (opts->n_allow || opts->n_allow_files))
		return jr_err_set(
		    err, EINVAL,
		    "--allow/--allow-file mean nothing with --net public or --learn, where every host is allowed; use --allow-private to open a private range");
	if (opts->n_allow || opts->n_allow_files || opts->n_allow_http) {
		if (saw_net && opts->net != JR_NET_ALLOWLIST)
			return jr_err_set(
			    err, EINVAL,
			    "--allow/--allow-file/--allow-http need --net allowlist, not --net %s",
			    jr_net_mode_name(opts->net));
		opts->net = JR_NET_ALLOWLIST;
	}
	if (opts->n_allow_private && opts->net == JR_NET_NONE)
		return jr_err_set(
		    err, EINVAL,
		    "--allow-private opens a range to the relay, and --net none has no relay; use it with --net public, --learn or --allow");
	/* --net none with lanes or published ports: the veth and the relay
	 * exist, with a policy of the lane entries only (jailrun(1), MODEL
	 * LANE). The allowlist plumbing serves it; nothing else is opened. */
	if (opts->net == JR_NET_NONE &&
	    (opts->lanes.n_lane || opts->lanes.n_publish)) {
		opts->net = JR_NET_ALLOWLIST;
		opts->none_with_lanes = true;
	}
	return 0;
}

/* Secrets and inspection act on the relay's traffic: without a relay (or
 * anything to inspect) they would silently do nothing. */
static int check_relay_options(const struct jr_options *opts,
			       struct jr_err *err)
{
	if ((opts->n_secret || opts->n_inspect || opts->upstream_ca ||
	     opts->secret_allow_plaintext) &&
	    opts->net != JR_NET_ALLOWLIST)
		return jr_err_set(
		    err, EINVAL,
		    "--secret, --inspect, --upstream-ca and --secret-allow-plaintext act on the relay: they need --allow (the hosts must be allowed too)");
	if (opts->upstream_ca && !opts->n_secret && !opts->n_inspect &&
	    !opts->n_allow_http)
		return jr_err_set(
		    err, EINVAL,
		    "--upstream-ca verifies inspected upstreams: it needs --secret, --inspect or an https --allow-http rule");
	return 0;
}

/*
 * What names the lanes: each --lane-env sets a name no other one sets, and
 * no --secret is bound to a host lane (it would never be injected there).
 * Whether a --lane-env's lanes exist is asked after the whole merge
 * (main.c, cmdenv.c): a config file's lines are each checked alone here.
 */
static int check_lanes(const struct jr_options *opts, struct jr_err *err)
{
	const char *a, *b;
	struct jr_secret sec;
	int r = 0;

	for (size_t i = 0; i < opts->n_lane_env; i++) {
		a = opts->lane_env[i];
		for (size_t j = 0; j < i; j++) {
			b = opts->lane_env[j];
			if (strcspn(a, "=") == strcspn(b, "=") &&
			    strncmp(a, b, strcspn(a, "=")) == 0)
				return jr_err_set(
				    err, EINVAL,
				    "--lane-env %s: the same variable as --lane-env %s; give each once",
				    a, b);
		}
	}
	for (size_t i = 0; i < opts->n_secret && r == 0; i++) {
		if (jr_secret_spec_parse(opts->secret[i], &sec, err) < 0)
			return -EINVAL;
		for (size_t h = 0; h < sec.n_hosts && r == 0; h++)
			r = jr_lanes_check_secret(&opts->lanes, opts->secret[i],
						  sec.hosts[h], err);
		jr_secret_release(&sec);
	}
	return r;
}

static int check_fs_options(const struct jr_options *opts, struct jr_err *err)
{
	if (opts->fs_mode == JR_FS_HOST &&
	    (opts->n_rw || opts->n_ro || opts->n_hide || opts->n_tmpfs ||
	     opts->tmpfs_size))
		return jr_err_set(
		    err, EINVAL,
		    "--rw, --ro, --hide, --tmpfs and --tmpfs-size shape the isolated filesystem and mean nothing with --fs host; drop them or --fs host");
	return 0;
}

int jr_options_check_ask_channel(const struct jr_options *opts,
				 struct jr_err *err)
{
	if (opts->ask && !opts->ask_tty && !opts->control_path &&
	    opts->control_fd < 0)
		return jr_err_set(
		    err, EINVAL,
		    "--ask holds refused requests until they are approved or denied on the live policy socket: add --control PATH (or --control-fd N)");
	return 0;
}

/* The audit log and the control socket: each by path or by fd, not both;
 * the control socket changes an allowlist, so it needs one. @live: a live
 * start (jailrun start), which has a control socket of its own for --ask
 * (main.c). */
static int check_channels(const struct jr_options *opts, bool live,
			  struct jr_err *err)
{
	if (opts->log_path && opts->log_fd >= 0)
		return jr_err_set(err, EINVAL,
				  "--log and --log-fd cannot be combined");
	if (opts->control_path && opts->control_fd >= 0)
		return jr_err_set(
		    err, EINVAL,
		    "--control and --control-fd cannot be combined");
	if (!live && jr_options_check_ask_channel(opts, err) < 0)
		return -EINVAL;
	if (opts->ask_tty && opts->net != JR_NET_ALLOWLIST)
		return jr_err_set(
		    err, EINVAL,
		    "--ask tty asks about what the allowlist refuses and needs --net allowlist, not --net %s",
		    jr_net_mode_name(opts->net));
	if ((opts->control_path || opts->control_fd >= 0) &&
	    opts->net != JR_NET_ALLOWLIST)
		return jr_err_set(
		    err, EINVAL,
		    "--control/--control-fd change the allowlist and need --net allowlist, not --net %s",
		    jr_net_mode_name(opts->net));
	return 0;
}

/* What follows the options: the command, which --check must not have and
 * --print-config ignores. */
static int take_command(int argc, char **argv, struct jr_options *opts,
			struct jr_err *err)
{
	if (opts->action == JR_ACTION_PRINT_CONFIG)
		return 0; /* a command may follow; it is not run */
	if (opts->action == JR_ACTION_CHECK) {
		if (optind < argc)
			return jr_err_set(err, EINVAL,
					  "--check takes no command (got '%s')",
					  argv[optind]);
		return 0;
	}
	if (optind >= argc)
		return jr_err_set(
		    err, EINVAL,
		    "no command given; usage: jailrun [OPTIONS] -- COMMAND [ARG...]");
	if (!*argv[optind])
		return jr_err_set(err, EINVAL, "the command name is empty");
	opts->command = &argv[optind];
	opts->command_argc = argc - optind;
	return 0;
}

/* What parse_args() checks beyond each option's own grammar. */
enum parse_scope {
	PARSE_ALL,     /* every rule; a policy error fails the parse */
	PARSE_RUN,     /* every rule; policy errors go to setup_err */
	PARSE_SETTING, /* one config line: its grammar only (the rules
			* between options wait for the merged settings) */
};

static int parse_args(int argc, char **argv, struct jr_options *opts,
		      enum parse_scope scope, struct jr_err *err)
{
	bool defer = scope == PARSE_RUN;
	struct parse_state ps = {
		.opts = opts, .defer = defer, .argc = argc, .argv = argv
	};
	const struct opt_def *d;
	int c, r;

	r = set_defaults(argc, opts, err);
	if (r < 0)
		return r;
	optind =
	    0; /* full re-initialisation (glibc), so tests can call us again */
	opterr = 0; /* our own messages, which name the rule */
	while ((c = getopt_long(argc, argv, JR_OPTIONS_SHORT, jr_long_options,
				NULL)) != -1) {
		d = find_def(c);
		if (!d)
			return getopt_error(c, argv, err);
		r = d->handle(&ps, d, optarg, err);
		if (r < 0)
			return -EINVAL;
		if (r == OPT_STOP)
			return 0;
	}
	if (scope == PARSE_SETTING)
		return take_command(argc, argv, opts, err);
	if (policy_error(&ps, settle_net_mode(opts, ps.saw_net, err), err) <
		0 ||
	    policy_error(&ps, check_relay_options(opts, err), err) < 0 ||
	    policy_error(&ps, check_lanes(opts, err), err) < 0 ||
	    policy_error(&ps, check_fs_options(opts, err), err) < 0 ||
	    policy_error(
		&ps,
		check_channels(opts,
			       optind < argc &&
				   strcmp(argv[optind], JR_LIVE_COMMAND) == 0,
			       err),
		err) < 0)
		return -EINVAL;
	return take_command(argc, argv, opts, err);
}

int jr_options_parse(int argc, char **argv, struct jr_options *opts,
		     struct jr_err *err)
{
	int r = parse_args(argc, argv, opts, PARSE_ALL, err);

	if (r < 0)
		jr_options_release(opts);
	return r;
}

int jr_options_parse_run(int argc, char **argv, struct jr_options *opts,
			 struct jr_err *err)
{
	int r = parse_args(argc, argv, opts, PARSE_RUN, err);

	if (r < 0)
		jr_options_release(opts);
	return r;
}

int jr_options_parse_setting(int argc, char **argv, struct jr_options *opts,
			     struct jr_err *err)
{
	int r = parse_args(argc, argv, opts, PARSE_SETTING, err);

	if (r < 0)
		jr_options_release(opts);
	return r;
}
