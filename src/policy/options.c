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

#include <arpa/inet.h>
#include <errno.h>
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "host.h"
#include "httprules.h"
#include "options.h"
#include "policy.h"
#include "secrets.h"

const char jr_usage_text[] =
    "Usage: jailrun [OPTIONS] [--] COMMAND [ARG...]\n"
    "       jailrun --check\n"
    "       jailrun ctl PATH allow|remove ENTRY [--close] | lock | status | list\n"
    "\n"
    "Run COMMAND in fresh user, network, PID, mount, IPC and UTS namespaces\n"
    "with no capabilities, no_new_privs, and an nftables ruleset installed and\n"
    "verified before the command starts.\n"
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
    "                      relay maps back (default on; off: proxy and DNS only)\n"
    "  --lane ENDPOINT     the model lane, in every --net mode (repeatable):\n"
    "                      ADDRESS:PORT (e.g. 127.0.0.1:4000, [::1]:4000) is a\n"
    "                      host service, reached inside at\n"
    "                      host.jailrun.internal:PORT ($JAILRUN_LANE_PORT);\n"
    "                      NAME:PORT is an --allow entry that holds even\n"
    "                      under --net none\n"
    "  --publish [ADDR:]HOSTPORT:PORT\n"
    "                      listen on the host at ADDR (default 127.0.0.1)\n"
    "                      port HOSTPORT and forward to the command's PORT\n"
    "                      (repeatable)\n"
    "  --control PATH      serve live policy changes on a unix socket at PATH\n"
    "                      (mode 0600, your uid only); see 'jailrun ctl'\n"
    "  --control-fd N      the same on an inherited unix stream socket N,\n"
    "                      listening or connected\n"
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
    "                      such as .git/hooks makes that one writable\n"
    "  --ro PATH           read-only, also inside a writable root (repeatable)\n"
    "  --hide PATH         cover with an empty read-only file or directory\n"
    "  --tmpfs PATH        a fresh private tmpfs on PATH (repeatable)\n"
    "  --tmpfs-size SIZE   size of each tmpfs, bytes or with k/m/g (default:\n"
    "                      half the RAM, the kernel's own tmpfs default)\n"
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
    "                      (- for stdout; never a symlink or another user's file)\n"
    "  --raw-tty           relay terminal output unchanged; by default the\n"
    "                      sequences that act outside the pane (clipboard,\n"
    "                      titles...) are dropped, see jailrun(1) TERMINAL\n"
    "  --check             check this host can run sandboxes, then exit\n"
    "  --config FILE       read options from FILE, jailrun.conf(5) (repeatable;\n"
    "                      later files win, the command line wins last)\n"
    "  --profile NAME      read /etc/jailrun/profiles/NAME.conf, then\n"
    "                      ~/.config/jailrun/profiles/NAME.conf\n"
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

enum {
	OPT_NET = 0x100,
	OPT_ALLOW,
	OPT_ALLOW_FILE,
	OPT_GATEWAY,
	OPT_LOG,
	OPT_LOG_FD,
	OPT_MAX_CONNS,
	OPT_HEADER_TIMEOUT,
	OPT_CONNECT_TIMEOUT,
	OPT_IDLE_TIMEOUT,
	OPT_SECCOMP,
	OPT_LANDLOCK,
	OPT_ALLOW_NESTED,
	OPT_EXPOSE,
	OPT_ON_TAMPER,
	OPT_WATCHDOG_INTERVAL,
	OPT_TIMEOUT,
	OPT_USER,
	OPT_HOST_ROOT,
	OPT_JSON,
	OPT_RAW_TTY,
	OPT_CHECK,
	OPT_RW,
	OPT_RO,
	OPT_HIDE,
	OPT_TMPFS,
	OPT_TMPFS_SIZE,
	OPT_WORKDIR,
	OPT_FS,
	OPT_TRANSPARENT,
	OPT_ALLOW_PRIVATE,
	OPT_DENY_MESSAGE,
	OPT_LEARN,
	OPT_LANE,
	OPT_PUBLISH,
	OPT_CONTROL,
	OPT_CONTROL_FD,
	OPT_CONFIG,
	OPT_PROFILE,
	OPT_PRINT_CONFIG,
	OPT_ALLOW_HTTP,
	OPT_SECRET,
	OPT_INSPECT,
	OPT_UPSTREAM_CA,
	OPT_SECRET_ALLOW_PLAINTEXT,
	OPT_RLIMIT,
	OPT_MEMORY,
	OPT_PIDS,
	OPT_CPUS,
};

static const struct option jr_long_options[] = {
	{ "net", required_argument, NULL, OPT_NET },
	{ "allow", required_argument, NULL, OPT_ALLOW },
	{ "allow-file", required_argument, NULL, OPT_ALLOW_FILE },
	{ "gateway", required_argument, NULL, OPT_GATEWAY },
	{ "log", required_argument, NULL, OPT_LOG },
	{ "log-fd", required_argument, NULL, OPT_LOG_FD },
	{ "max-conns", required_argument, NULL, OPT_MAX_CONNS },
	{ "header-timeout", required_argument, NULL, OPT_HEADER_TIMEOUT },
	{ "connect-timeout", required_argument, NULL, OPT_CONNECT_TIMEOUT },
	{ "idle-timeout", required_argument, NULL, OPT_IDLE_TIMEOUT },
	{ "seccomp", required_argument, NULL, OPT_SECCOMP },
	{ "landlock", required_argument, NULL, OPT_LANDLOCK },
	{ "allow-nested", no_argument, NULL, OPT_ALLOW_NESTED },
	{ "expose", required_argument, NULL, OPT_EXPOSE },
	{ "on-tamper", required_argument, NULL, OPT_ON_TAMPER },
	{ "watchdog-interval", required_argument, NULL, OPT_WATCHDOG_INTERVAL },
	{ "timeout", required_argument, NULL, OPT_TIMEOUT },
	{ "user", required_argument, NULL, OPT_USER },
	{ "host-root", no_argument, NULL, OPT_HOST_ROOT },
	{ "json", required_argument, NULL, OPT_JSON },
	{ "raw-tty", no_argument, NULL, OPT_RAW_TTY },
	{ "check", no_argument, NULL, OPT_CHECK },
	{ "rw", required_argument, NULL, OPT_RW },
	{ "ro", required_argument, NULL, OPT_RO },
	{ "hide", required_argument, NULL, OPT_HIDE },
	{ "tmpfs", required_argument, NULL, OPT_TMPFS },
	{ "tmpfs-size", required_argument, NULL, OPT_TMPFS_SIZE },
	{ "workdir", required_argument, NULL, OPT_WORKDIR },
	{ "fs", required_argument, NULL, OPT_FS },
	{ "transparent", required_argument, NULL, OPT_TRANSPARENT },
	{ "allow-private", required_argument, NULL, OPT_ALLOW_PRIVATE },
	{ "deny-message", required_argument, NULL, OPT_DENY_MESSAGE },
	{ "learn", required_argument, NULL, OPT_LEARN },
	{ "lane", required_argument, NULL, OPT_LANE },
	{ "publish", required_argument, NULL, OPT_PUBLISH },
	{ "control", required_argument, NULL, OPT_CONTROL },
	{ "control-fd", required_argument, NULL, OPT_CONTROL_FD },
	{ "config", required_argument, NULL, OPT_CONFIG },
	{ "profile", required_argument, NULL, OPT_PROFILE },
	{ "print-config", no_argument, NULL, OPT_PRINT_CONFIG },
	{ "allow-http", required_argument, NULL, OPT_ALLOW_HTTP },
	{ "secret", required_argument, NULL, OPT_SECRET },
	{ "inspect", required_argument, NULL, OPT_INSPECT },
	{ "upstream-ca", required_argument, NULL, OPT_UPSTREAM_CA },
	{ "secret-allow-plaintext", no_argument, NULL,
	  OPT_SECRET_ALLOW_PLAINTEXT },
	{ "rlimit", required_argument, NULL, OPT_RLIMIT },
	{ "memory", required_argument, NULL, OPT_MEMORY },
	{ "pids", required_argument, NULL, OPT_PIDS },
	{ "cpus", required_argument, NULL, OPT_CPUS },
	{ "verbose", no_argument, NULL, 'v' },
	{ "quiet", no_argument, NULL, 'q' },
	{ "help", no_argument, NULL, 'h' },
	{ "version", no_argument, NULL, 'V' },
	{ NULL, 0, NULL, 0 },
};

const struct option *jr_options_long_table(void)
{
	return jr_long_options;
}

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
static int check_path_option(const char *name, const char *arg,
			     struct jr_err *err)
{
	if (!*arg)
		return jr_err_set(err, EINVAL, "--%s: empty path", name);
	if (strlen(arg) >= 4096)
		return jr_err_set(err, EINVAL, "--%s: path too long", name);
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
 * check_deny_message() - --deny-message goes into HTTP bodies and a
 * terminal line: bounded, and no control characters (a newline would
 * end the body's line, an escape sequence would act on the terminal).
 */
static int check_deny_message(const char *s, struct jr_err *err)
{
	size_t len = strlen(s);

	if (len == 0)
		return jr_err_set(err, EINVAL, "--deny-message: empty text");
	if (len > JR_DENY_MESSAGE_MAX)
		return jr_err_set(
		    err, EINVAL,
		    "--deny-message: at most %d bytes, this one has %zu",
		    JR_DENY_MESSAGE_MAX, len);
	for (size_t i = 0; i < len; i++) {
		unsigned char c = (unsigned char)s[i];

		if (c < 0x20 || c == 0x7f)
			return jr_err_set(
			    err, EINVAL,
			    "--deny-message: control character 0x%02x at byte %zu; one line of printable text only",
			    c, i + 1);
	}
	return 0;
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
	mask = prefix == 0 ? 0 : ~0U << (32 - prefix);
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

void jr_options_release(struct jr_options *opts)
{
	free(opts->allow);
	free(opts->allow_files);
	free(opts->expose);
	free(opts->rw);
	free(opts->ro);
	free(opts->hide);
	free(opts->tmpfs);
	free(opts->allow_private);
	opts->allow_private = NULL;
	opts->n_allow_private = 0;
	free(opts->allow_http);
	opts->allow_http = NULL;
	opts->n_allow_http = 0;
	free(opts->secret);
	free(opts->inspect);
	opts->secret = opts->inspect = NULL;
	opts->n_secret = opts->n_inspect = 0;
	opts->allow = opts->allow_files = opts->expose = NULL;
	opts->rw = opts->ro = opts->hide = opts->tmpfs = NULL;
	opts->n_allow = opts->n_allow_files = opts->n_expose = 0;
	opts->n_rw = opts->n_ro = opts->n_hide = opts->n_tmpfs = 0;
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
static int check_allow_http(const char *arg, struct jr_err *err)
{
	struct jr_http_rule *rule = malloc(sizeof(*rule));
	int r;

	if (!rule)
		return jr_err_set(err, ENOMEM, "out of memory");
	r = jr_httprule_parse(arg, rule, err);
	free(rule);
	return r;
}

static int parse_args(int argc, char **argv, struct jr_options *opts,
		      struct jr_err *err)
{
	bool saw_user = false, saw_net = false;
	unsigned long v;
	int c;

	memset(opts, 0, sizeof(*opts));
	opts->net = JR_NET_NONE;
	opts->log_fd = -1;
	opts->control_fd = -1;
	opts->max_conns = JR_DEFAULT_MAX_CONNS;
	opts->header_timeout_ms = JR_DEFAULT_HEADER_TIMEOUT_MS;
	opts->idle_timeout_ms = JR_DEFAULT_IDLE_TIMEOUT_MS;
	opts->connect_timeout_ms = JR_DEFAULT_CONNECT_TIMEOUT_MS;
	opts->watchdog_interval_ms = JR_DEFAULT_WATCHDOG_INTERVAL_MS;
	opts->seccomp = true;
	opts->transparent = true;
	if (jr_parse_gateway(JR_DEFAULT_GATEWAY, &opts->gateway) < 0)
		return jr_err_set(err, EINVAL, "bad built-in gateway");
	/* argc bounds how many of each there can be. */
	opts->allow = calloc((size_t)argc + 1, sizeof(*opts->allow));
	opts->allow_files =
	    calloc((size_t)argc + 1, sizeof(*opts->allow_files));
	opts->expose = calloc((size_t)argc + 1, sizeof(*opts->expose));
	opts->rw = calloc((size_t)argc + 1, sizeof(*opts->rw));
	opts->ro = calloc((size_t)argc + 1, sizeof(*opts->ro));
	opts->hide = calloc((size_t)argc + 1, sizeof(*opts->hide));
	opts->tmpfs = calloc((size_t)argc + 1, sizeof(*opts->tmpfs));
	opts->allow_private =
	    calloc((size_t)argc + 1, sizeof(*opts->allow_private));
	opts->allow_http = calloc((size_t)argc + 1, sizeof(*opts->allow_http));
	opts->secret = calloc((size_t)argc + 1, sizeof(*opts->secret));
	opts->inspect = calloc((size_t)argc + 1, sizeof(*opts->inspect));
	if (!opts->allow || !opts->allow_files || !opts->expose || !opts->rw ||
	    !opts->ro || !opts->hide || !opts->tmpfs || !opts->allow_private ||
	    !opts->allow_http || !opts->secret || !opts->inspect) {
		jr_options_release(opts);
		return jr_err_set(err, ENOMEM, "out of memory");
	}

	optind =
	    0; /* full re-initialisation (glibc), so tests can call us again */
	opterr = 0; /* our own messages, which name the rule */
	while ((c = getopt_long(argc, argv, "+:hVvq", jr_long_options, NULL)) !=
	       -1) {
		switch (c) {
		case 'h':
			opts->action = JR_ACTION_HELP;
			return 0;
		case 'V':
			opts->action = JR_ACTION_VERSION;
			return 0;
		case 'v':
			if (opts->verbosity < 0)
				return jr_err_set(
				    err, EINVAL,
				    "-v and -q cannot be combined");
			opts->verbosity++;
			break;
		case 'q':
			if (opts->verbosity > 0)
				return jr_err_set(
				    err, EINVAL,
				    "-v and -q cannot be combined");
			opts->verbosity = -1;
			break;
		case OPT_NET:
			if (parse_net_mode(optarg, &opts->net,
					   &opts->net_public, err) < 0)
				return -EINVAL;
			saw_net = true;
			break;
		case OPT_ALLOW:
			opts->allow[opts->n_allow++] = optarg;
			break;
		case OPT_ALLOW_FILE:
			opts->allow_files[opts->n_allow_files++] = optarg;
			break;
		case OPT_GATEWAY:
			if (jr_parse_gateway(optarg, &opts->gateway) < 0)
				return jr_err_set(
				    err, EINVAL,
				    "--gateway %s: expected an IPv4 host address with a prefix of 1..30, e.g. " JR_DEFAULT_GATEWAY
				    " (the next address, for the command, must be in the same network; not loopback, link-local or multicast)",
				    optarg);
			break;
		case OPT_SECCOMP:
			if (parse_on_off("seccomp", optarg, &opts->seccomp,
					 err) < 0)
				return -EINVAL;
			break;
		case OPT_LANDLOCK:
			if (strcmp(optarg, "auto") == 0)
				opts->landlock = JR_LANDLOCK_AUTO;
			else if (strcmp(optarg, "require") == 0)
				opts->landlock = JR_LANDLOCK_REQUIRE;
			else if (strcmp(optarg, "off") == 0)
				opts->landlock = JR_LANDLOCK_OFF;
			else
				return jr_err_set(
				    err, EINVAL,
				    "--landlock %s: expected auto, require or off",
				    optarg);
			break;
		case OPT_ALLOW_NESTED:
			opts->allow_nested = true;
			break;
		case OPT_EXPOSE:
			if (optarg[0] != '/')
				return jr_err_set(
				    err, EINVAL,
				    "--expose %s: expected an absolute path",
				    optarg);
			opts->expose[opts->n_expose++] = optarg;
			break;
		case OPT_ON_TAMPER:
			if (strcmp(optarg, "restore") == 0)
				opts->tamper_kill = false;
			else if (strcmp(optarg, "kill") == 0)
				opts->tamper_kill = true;
			else
				return jr_err_set(
				    err, EINVAL,
				    "--on-tamper %s: expected restore or kill",
				    optarg);
			break;
		case OPT_WATCHDOG_INTERVAL:
			if (parse_timeout_option("watchdog-interval", optarg,
						 &opts->watchdog_interval_ms,
						 err) < 0)
				return -EINVAL;
			if (opts->watchdog_interval_ms < 10)
				return jr_err_set(
				    err, EINVAL,
				    "--watchdog-interval %s: at least 0.01 seconds",
				    optarg);
			break;
		case OPT_LOG:
			if (!*optarg)
				return jr_err_set(err, EINVAL,
						  "--log: empty file name");
			opts->log_path = optarg;
			break;
		case OPT_LOG_FD:
			if (parse_uint(optarg, 1 << 20, &v) < 0 || v < 3)
				return jr_err_set(
				    err, EINVAL,
				    "--log-fd %s: expected an open file descriptor number >= 3",
				    optarg);
			opts->log_fd = (int)v;
			break;
		case OPT_MAX_CONNS:
			if (parse_uint(optarg, 65536, &v) < 0 || v < 1)
				return jr_err_set(
				    err, EINVAL,
				    "--max-conns %s: expected a number from 1 to 65536",
				    optarg);
			opts->max_conns = (unsigned int)v;
			break;
		case OPT_HEADER_TIMEOUT:
			if (parse_timeout_option("header-timeout", optarg,
						 &opts->header_timeout_ms,
						 err) < 0)
				return -EINVAL;
			break;
		case OPT_CONNECT_TIMEOUT:
			if (parse_timeout_option("connect-timeout", optarg,
						 &opts->connect_timeout_ms,
						 err) < 0)
				return -EINVAL;
			break;
		case OPT_IDLE_TIMEOUT:
			if (parse_timeout_option("idle-timeout", optarg,
						 &opts->idle_timeout_ms,
						 err) < 0)
				return -EINVAL;
			break;
		case OPT_TIMEOUT:
			if (parse_timeout_option("timeout", optarg,
						 &opts->timeout_ms, err) < 0)
				return -EINVAL;
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
		case OPT_HOST_ROOT:
			opts->host_root = true;
			break;
		case OPT_JSON:
			if (!*optarg)
				return jr_err_set(err, EINVAL,
						  "--json: empty file name");
			opts->json_path = optarg;
			break;
		case OPT_RAW_TTY:
			opts->raw_tty = true;
			break;
		case OPT_CHECK:
			opts->action = JR_ACTION_CHECK;
			break;
		case OPT_RW:
			if (check_path_option("rw", optarg, err) < 0)
				return -EINVAL;
			opts->rw[opts->n_rw++] = optarg;
			break;
		case OPT_RO:
			if (check_path_option("ro", optarg, err) < 0)
				return -EINVAL;
			opts->ro[opts->n_ro++] = optarg;
			break;
		case OPT_HIDE:
			if (check_path_option("hide", optarg, err) < 0)
				return -EINVAL;
			opts->hide[opts->n_hide++] = optarg;
			break;
		case OPT_TMPFS:
			if (check_path_option("tmpfs", optarg, err) < 0)
				return -EINVAL;
			opts->tmpfs[opts->n_tmpfs++] = optarg;
			break;
		case OPT_TMPFS_SIZE:
			if (jr_parse_size(optarg, &opts->tmpfs_size) < 0)
				return jr_err_set(
				    err, EINVAL,
				    "--tmpfs-size %s: expected bytes from 4096, optionally with k, m or g (e.g. 512m)",
				    optarg);
			break;
		case OPT_WORKDIR:
			if (opts->workdir)
				return jr_err_set(err, EINVAL,
						  "--workdir given twice");
			if (check_path_option("workdir", optarg, err) < 0)
				return -EINVAL;
			opts->workdir = optarg;
			break;
		case OPT_FS:
			if (strcmp(optarg, "host") == 0)
				opts->fs_mode = JR_FS_HOST;
			else if (strcmp(optarg, "isolated") == 0)
				opts->fs_mode = JR_FS_ISOLATED;
			else
				return jr_err_set(
				    err, EINVAL,
				    "--fs %s: expected isolated or host",
				    optarg);
			break;
		case OPT_TRANSPARENT:
			if (parse_on_off("transparent", optarg,
					 &opts->transparent, err) < 0)
				return -EINVAL;
			break;
		case OPT_ALLOW_PRIVATE:
			if (jr_policy_parse_private(optarg, NULL, err) < 0)
				return -EINVAL;
			opts->allow_private[opts->n_allow_private++] = optarg;
			break;
		case OPT_DENY_MESSAGE:
			if (check_deny_message(optarg, err) < 0)
				return -EINVAL;
			opts->deny_message = optarg;
			break;
		case OPT_LEARN:
			if (!*optarg)
				return jr_err_set(err, EINVAL,
						  "--learn: empty file name");
			if (opts->learn_path)
				return jr_err_set(err, EINVAL,
						  "--learn given twice");
			opts->learn_path = optarg;
			break;
		case OPT_LANE: {
			static const uint16_t relay_ports[] = {
				JR_PROXY_PORT, JR_DNS_PORT, JR_TRANSPARENT_PORT
			};

			if (jr_lanes_add_lane(&opts->lanes, optarg, relay_ports,
					      3, err) < 0)
				return -EINVAL;
			break;
		}
		case OPT_PUBLISH:
			if (jr_lanes_add_publish(&opts->lanes, optarg, err) < 0)
				return -EINVAL;
			break;
		case OPT_CONTROL:
			if (!*optarg)
				return jr_err_set(err, EINVAL,
						  "--control: empty path");
			if (strlen(optarg) >= 108)
				return jr_err_set(
				    err, EINVAL,
				    "--control %s: a unix socket path has at most 107 bytes",
				    optarg);
			opts->control_path = optarg;
			break;
		case OPT_CONTROL_FD:
			if (parse_uint(optarg, 1 << 20, &v) < 0 || v < 3)
				return jr_err_set(
				    err, EINVAL,
				    "--control-fd %s: expected an open file descriptor number >= 3",
				    optarg);
			opts->control_fd = (int)v;
			break;
		case OPT_CONFIG:
			if (!*optarg)
				return jr_err_set(err, EINVAL,
						  "--config: empty file name");
			break;
		case OPT_PROFILE:
			if (!jr_profile_name_valid(optarg))
				return jr_err_set(
				    err, EINVAL,
				    "--profile %s: expected a name of 1 to 64 letters, digits, '_' or '-'",
				    optarg);
			opts->profile = optarg;
			break;
		case OPT_PRINT_CONFIG:
			opts->action = JR_ACTION_PRINT_CONFIG;
			break;
		case OPT_ALLOW_HTTP:
			if (check_allow_http(optarg, err) < 0)
				return -EINVAL;
			opts->allow_http[opts->n_allow_http++] = optarg;
			break;
		case OPT_SECRET: {
			struct jr_secret sec;

			if (opts->n_secret == JR_SECRETS_MAX)
				return jr_err_set(err, EINVAL,
						  "--secret: at most %d",
						  JR_SECRETS_MAX);
			if (jr_secret_spec_parse(optarg, &sec, err) < 0)
				return -EINVAL;
			jr_secret_release(&sec);
			opts->secret[opts->n_secret++] = optarg;
			break;
		}
		case OPT_INSPECT: {
			char host[JR_HOST_MAX + 1];

			if (opts->n_inspect == JR_INSPECT_HOSTS_MAX)
				return jr_err_set(err, EINVAL,
						  "--inspect: at most %d",
						  JR_INSPECT_HOSTS_MAX);
			if (jr_inspect_host_parse(optarg, host, err) < 0)
				return -EINVAL;
			opts->inspect[opts->n_inspect++] = optarg;
			break;
		}
		case OPT_UPSTREAM_CA:
			if (opts->upstream_ca)
				return jr_err_set(err, EINVAL,
						  "--upstream-ca given twice");
			if (!*optarg)
				return jr_err_set(
				    err, EINVAL,
				    "--upstream-ca: expected a PEM file");
			opts->upstream_ca = optarg;
			break;
		case OPT_SECRET_ALLOW_PLAINTEXT:
			opts->secret_allow_plaintext = true;
			break;
		case OPT_RLIMIT:
			if (jr_limits_parse_rlimit(optarg, &opts->limits, err) <
			    0)
				return -EINVAL;
			break;
		case OPT_MEMORY:
			if (jr_limits_parse_memory(optarg, &opts->limits, err) <
			    0)
				return -EINVAL;
			break;
		case OPT_PIDS:
			if (jr_limits_parse_pids(optarg, &opts->limits, err) <
			    0)
				return -EINVAL;
			break;
		case OPT_CPUS:
			if (jr_limits_parse_cpus(optarg, &opts->limits, err) <
			    0)
				return -EINVAL;
			break;
		case ':':
			return jr_err_set(
			    err, EINVAL,
			    "option '%s' needs an argument; see jailrun --help",
			    argv[optind - 1]);
		case '?':
		default:
			if (optopt && optopt < 0x100)
				return jr_err_set(
				    err, EINVAL,
				    "unknown option '-%c'; see jailrun --help",
				    optopt);
			if (optopt)
				return jr_err_set(
				    err, EINVAL,
				    "option '%s' takes no argument; see jailrun --help",
				    argv[optind - 1]);
			return jr_err_set(
			    err, EINVAL,
			    "unknown option '%s'; see jailrun --help",
			    argv[optind - 1]);
		}
	}

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
	if (opts->fs_mode == JR_FS_HOST &&
	    (opts->n_rw || opts->n_ro || opts->n_hide || opts->n_tmpfs ||
	     opts->tmpfs_size))
		return jr_err_set(
		    err, EINVAL,
		    "--rw, --ro, --hide, --tmpfs and --tmpfs-size shape the isolated filesystem and mean nothing with --fs host; drop them or --fs host");
	if (opts->log_path && opts->log_fd >= 0)
		return jr_err_set(err, EINVAL,
				  "--log and --log-fd cannot be combined");
	if (opts->control_path && opts->control_fd >= 0)
		return jr_err_set(
		    err, EINVAL,
		    "--control and --control-fd cannot be combined");
	if ((opts->control_path || opts->control_fd >= 0) &&
	    opts->net != JR_NET_ALLOWLIST)
		return jr_err_set(
		    err, EINVAL,
		    "--control/--control-fd change the allowlist and need --net allowlist, not --net %s",
		    jr_net_mode_name(opts->net));
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

int jr_options_parse(int argc, char **argv, struct jr_options *opts,
		     struct jr_err *err)
{
	int r = parse_args(argc, argv, opts, err);

	if (r < 0)
		jr_options_release(opts);
	return r;
}
