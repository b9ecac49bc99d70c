// SPDX-License-Identifier: GPL-2.0-or-later
/* Unit tests for options.c: every accepted form and every rejection. */
#include <arpa/inet.h>
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>
#include <cmocka.h>

#include "options.h"

#define ARGV(...) ((char *[]){ "jailrun", __VA_ARGS__, NULL })
#define ARGC(...)                                                              \
	((int)(sizeof((char *[]){ "jailrun", __VA_ARGS__ }) / sizeof(char *)))
#define PARSE(o, e, ...)                                                       \
	jr_options_parse(ARGC(__VA_ARGS__), ARGV(__VA_ARGS__), (o), (e))

static void test_command_after_dashdash(void **state)
{
	struct jr_options o;
	struct jr_err e = { 0 };

	assert_int_equal(PARSE(&o, &e, "--", "sh", "-c", "exit 3"), 0);
	assert_int_equal(o.action, JR_ACTION_RUN);
	assert_int_equal(o.command_argc, 3);
	assert_string_equal(o.command[0], "sh");
	assert_string_equal(o.command[1], "-c");
	assert_string_equal(o.command[2], "exit 3");
	assert_null(o.command[3]);
	assert_int_equal(o.net, JR_NET_NONE);
	assert_int_equal(o.timeout_ms, 0);
	assert_null(o.user);
	assert_false(o.host_root);
	assert_null(o.json_path);
	jr_options_release(&o);
}

static void test_host_root_option(void **state)
{
	struct jr_options o;
	struct jr_err e = { 0 };

	assert_int_equal(PARSE(&o, &e, "--host-root", "true"), 0);
	assert_true(o.host_root);
	assert_null(o.user); /* ids.c decides what it means with --user */
	jr_options_release(&o);
	assert_int_equal(
	    PARSE(&o, &e, "--user", "root", "--host-root", "--", "id"), 0);
	assert_true(o.host_root);
	assert_string_equal(o.user, "root");
	jr_options_release(&o);
	assert_int_equal(PARSE(&o, &e, "--host-root=yes", "true"), -EINVAL);
	assert_non_null(strstr(e.msg, "takes no argument"));
	/* After the command, it is the command's. */
	assert_int_equal(PARSE(&o, &e, "true", "--host-root"), 0);
	assert_false(o.host_root);
	jr_options_release(&o);
	assert_non_null(strstr(jr_usage_text, "--host-root"));
}

static void test_command_options_not_ours(void **state)
{
	struct jr_options o;
	struct jr_err e = { 0 };

	/* Parsing stops at the first non-option: "-v" belongs to ls. */
	assert_int_equal(PARSE(&o, &e, "ls", "-v", "--net", "x"), 0);
	assert_int_equal(o.verbosity, 0);
	assert_int_equal(o.command_argc, 4);
	assert_string_equal(o.command[1], "-v");
	jr_options_release(&o);
}

static void test_all_options(void **state)
{
	struct jr_options o;
	struct jr_err e = { 0 };

	assert_int_equal(PARSE(&o, &e, "-vv", "--net", "none", "--timeout",
			       "2.5", "--user", "nobody:nogroup", "--json",
			       "/tmp/x.json", "--", "true"),
			 0);
	assert_int_equal(o.verbosity, 2);
	assert_int_equal(o.timeout_ms, 2500);
	assert_string_equal(o.user, "nobody:nogroup");
	assert_string_equal(o.json_path, "/tmp/x.json");
	jr_options_release(&o);
	assert_int_equal(
	    PARSE(&o, &e, "--net=none", "--timeout=1", "-q", "true"), 0);
	assert_int_equal(o.verbosity, -1);
	assert_int_equal(o.timeout_ms, 1000);
	jr_options_release(&o);
}

static void test_help_version_check(void **state)
{
	struct jr_options o;
	struct jr_err e = { 0 };

	assert_int_equal(PARSE(&o, &e, "--help"), 0);
	assert_int_equal(o.action, JR_ACTION_HELP);
	jr_options_release(&o);
	assert_int_equal(PARSE(&o, &e, "-h"), 0);
	assert_int_equal(o.action, JR_ACTION_HELP);
	jr_options_release(&o);
	assert_int_equal(PARSE(&o, &e, "-V"), 0);
	assert_int_equal(o.action, JR_ACTION_VERSION);
	jr_options_release(&o);
	assert_int_equal(PARSE(&o, &e, "--check"), 0);
	assert_int_equal(o.action, JR_ACTION_CHECK);
	jr_options_release(&o);
	assert_int_equal(PARSE(&o, &e, "--check", "ls"), -EINVAL);
	assert_non_null(strstr(e.msg, "--check takes no command"));
}

static void expect_reject(const char *needle, int argc, char **argv)
{
	struct jr_options o;
	struct jr_err e = { 0 };

	assert_int_equal(jr_options_parse(argc, argv, &o, &e), -EINVAL);
	if (!strstr(e.msg, needle))
		fail_msg("message '%s' does not contain '%s'", e.msg, needle);
}

#define REJECT(needle, ...)                                                    \
	expect_reject(needle, ARGC(__VA_ARGS__), ARGV(__VA_ARGS__))

static void test_rejections(void **state)
{
	expect_reject("no command given", 1, (char *[]){ "jailrun", NULL });
	REJECT("no command given", "--");
	REJECT("no command given", "-v");
	REJECT("unknown option '--frobnicate'", "--frobnicate", "true");
	REJECT("unknown option '-x'", "-x", "true");
	REJECT("'--net' needs an argument", "--net");
	REJECT("--net public: unknown network mode", "--net", "public", "true");
	REJECT(
	    "--net everything: unknown network mode (known: allowlist, none)",
	    "--net", "everything", "true");
	REJECT("--timeout 0: expected seconds", "--timeout", "0", "true");
	REJECT("--timeout -1", "--timeout", "-1", "true");
	REJECT("--timeout 1.2345", "--timeout", "1.2345", "true");
	REJECT("--timeout 10s", "--timeout", "10s", "true");
	REJECT("--timeout 99999999", "--timeout", "99999999", "true");
	REJECT("--user given twice", "--user", "a", "--user", "b", "true");
	REJECT("--user: empty", "--user", "", "true");
	REJECT("--json: empty", "--json", "", "true");
	REJECT("-v and -q", "-v", "-q", "true");
	REJECT("-v and -q", "-q", "-v", "true");
	REJECT("takes no argument", "--check=yes");
	REJECT("the command name is empty", "--", "");
}

static void test_duration(void **state)
{
	uint64_t ms;

	assert_int_equal(jr_parse_duration_ms("1", &ms), 0);
	assert_int_equal(ms, 1000);
	assert_int_equal(jr_parse_duration_ms("0.001", &ms), 0);
	assert_int_equal(ms, 1);
	assert_int_equal(jr_parse_duration_ms(".5", &ms), 0);
	assert_int_equal(ms, 500);
	assert_int_equal(jr_parse_duration_ms("31536000", &ms), 0);
	assert_int_equal(ms, 31536000000ULL);
	assert_int_equal(jr_parse_duration_ms("31536001", &ms), -EINVAL);
	/* The man page's bound holds for the fraction too. */
	assert_int_equal(jr_parse_duration_ms("31536000.001", &ms), -EINVAL);
	assert_int_equal(jr_parse_duration_ms("0.0", &ms), -EINVAL);
	assert_int_equal(jr_parse_duration_ms("1.", &ms), -EINVAL);
	assert_int_equal(jr_parse_duration_ms(".", &ms), -EINVAL);
	assert_int_equal(jr_parse_duration_ms("", &ms), -EINVAL);
	assert_int_equal(jr_parse_duration_ms(" 1", &ms), -EINVAL);
	assert_int_equal(jr_parse_duration_ms("1e3", &ms), -EINVAL);
	assert_int_equal(jr_parse_duration_ms("184467440737095516160", &ms),
			 -EINVAL);
}

static void test_allowlist_options(void **state)
{
	struct jr_options o;
	struct jr_err e = { 0 };
	char gw[INET_ADDRSTRLEN];

	assert_int_equal(PARSE(&o, &e, "true"), 0);
	assert_int_equal(o.net, JR_NET_NONE);
	jr_options_release(&o);

	assert_int_equal(PARSE(&o, &e, "--allow", "a.test", "--allow",
			       "*.b.test:443", "--allow-file", "/x", "--",
			       "curl"),
			 0);
	assert_int_equal(o.net, JR_NET_ALLOWLIST); /* implied */
	assert_int_equal(o.n_allow, 2);
	assert_string_equal(o.allow[0], "a.test");
	assert_string_equal(o.allow[1], "*.b.test:443");
	assert_int_equal(o.n_allow_files, 1);
	assert_string_equal(o.allow_files[0], "/x");
	assert_int_equal(o.max_conns, JR_DEFAULT_MAX_CONNS);
	assert_int_equal(o.header_timeout_ms, JR_DEFAULT_HEADER_TIMEOUT_MS);
	assert_int_equal(o.idle_timeout_ms, JR_DEFAULT_IDLE_TIMEOUT_MS);
	assert_int_equal(o.connect_timeout_ms, JR_DEFAULT_CONNECT_TIMEOUT_MS);
	assert_int_equal(o.log_fd, -1);
	inet_ntop(AF_INET, &o.gateway.relay, gw, sizeof(gw));
	assert_string_equal(gw, "100.64.77.1");
	inet_ntop(AF_INET, &o.gateway.worker, gw, sizeof(gw));
	assert_string_equal(gw, "100.64.77.2");
	assert_int_equal(o.gateway.prefix, 30);
	jr_options_release(&o);

	assert_int_equal(PARSE(&o, &e, "--net", "allowlist", "--gateway",
			       "10.9.0.1/24", "--log-fd", "7", "--max-conns",
			       "10", "--header-timeout", "1.5",
			       "--connect-timeout", "2", "--idle-timeout", "60",
			       "true"),
			 0);
	assert_int_equal(o.n_allow, 0);
	assert_int_equal(o.net, JR_NET_ALLOWLIST);
	assert_int_equal(o.log_fd, 7);
	assert_int_equal(o.max_conns, 10);
	assert_int_equal(o.header_timeout_ms, 1500);
	assert_int_equal(o.connect_timeout_ms, 2000);
	assert_int_equal(o.idle_timeout_ms, 60000);
	inet_ntop(AF_INET, &o.gateway.worker, gw, sizeof(gw));
	assert_string_equal(gw, "10.9.0.2");
	jr_options_release(&o);

	REJECT("need --net allowlist", "--net", "none", "--allow", "a.test",
	       "true");
	REJECT("--log and --log-fd", "--log", "/x", "--log-fd", "5", "true");
	REJECT("--log-fd 2", "--log-fd", "2", "true");
	REJECT("--max-conns 0", "--max-conns", "0", "true");
	REJECT("--max-conns 70000", "--max-conns", "70000", "true");
	REJECT("--idle-timeout 0", "--idle-timeout", "0", "true");
	REJECT("--gateway 10.0.0.1", "--gateway", "10.0.0.1", "true");
}

/* --landlock: auto by default; each word, and a wrong one refused. A
 * parser that ignored the option or mixed up the words fails here. */
static void test_landlock_option(void **state)
{
	struct jr_options o;
	struct jr_err e = { 0 };

	(void)state;
	assert_int_equal(PARSE(&o, &e, "true"), 0);
	assert_int_equal(o.landlock, JR_LANDLOCK_AUTO);
	jr_options_release(&o);
	assert_int_equal(PARSE(&o, &e, "--landlock", "require", "true"), 0);
	assert_int_equal(o.landlock, JR_LANDLOCK_REQUIRE);
	jr_options_release(&o);
	assert_int_equal(PARSE(&o, &e, "--landlock", "off", "true"), 0);
	assert_int_equal(o.landlock, JR_LANDLOCK_OFF);
	jr_options_release(&o);
	assert_int_equal(PARSE(&o, &e, "--landlock", "require", "--landlock",
			       "auto", "true"),
			 0);
	assert_int_equal(o.landlock, JR_LANDLOCK_AUTO);
	jr_options_release(&o);
	REJECT("--landlock yes: expected auto, require or off", "--landlock",
	       "yes", "true");
}

static void test_hardening_options(void **state)
{
	struct jr_options o;
	struct jr_err e = { 0 };

	assert_int_equal(PARSE(&o, &e, "true"), 0);
	assert_true(o.seccomp);
	assert_true(o.transparent);
	assert_false(o.allow_nested);
	assert_false(o.tamper_kill);
	assert_int_equal(o.watchdog_interval_ms,
			 JR_DEFAULT_WATCHDOG_INTERVAL_MS);
	assert_int_equal(o.n_expose, 0);
	jr_options_release(&o);

	assert_int_equal(PARSE(&o, &e, "--seccomp", "off", "--allow-nested",
			       "--on-tamper", "kill", "--watchdog-interval",
			       "0.25", "--expose", "/run/docker.sock",
			       "--expose", "/run/dbus/system_bus_socket",
			       "true"),
			 0);
	assert_false(o.seccomp);
	assert_true(o.transparent); /* independent of --seccomp */
	assert_true(o.allow_nested);
	assert_true(o.tamper_kill);
	assert_int_equal(o.watchdog_interval_ms, 250);
	assert_int_equal(o.n_expose, 2);
	assert_string_equal(o.expose[1], "/run/dbus/system_bus_socket");
	jr_options_release(&o);

	/* --transparent off: the proxy and DNS only; the last one wins. */
	assert_int_equal(PARSE(&o, &e, "--allow", "example.com",
			       "--transparent", "off", "true"),
			 0);
	assert_false(o.transparent);
	assert_true(o.seccomp);
	jr_options_release(&o);
	assert_int_equal(PARSE(&o, &e, "--transparent", "off", "--transparent",
			       "on", "true"),
			 0);
	assert_true(o.transparent);
	jr_options_release(&o);

	REJECT("--seccomp maybe: expected on or off", "--seccomp", "maybe",
	       "true");
	REJECT("'--transparent' needs an argument", "--transparent");
	REJECT("--on-tamper ignore: expected restore or kill", "--on-tamper",
	       "ignore", "true");
	REJECT("--expose docker.sock: expected an absolute path", "--expose",
	       "docker.sock", "true");
	REJECT("--watchdog-interval 0.001: at least 0.01",
	       "--watchdog-interval", "0.001", "true");
}

/* --transparent: on by default (the capture exists: synthetic answers
 * and the redirect go together), on and off parse, anything else is
 * refused. */
static void test_transparent(void **state)
{
	struct jr_options o;
	struct jr_err e = { 0 };

	(void)state;
	assert_int_equal(PARSE(&o, &e, "true"), 0);
	assert_true(o.transparent);
	jr_options_release(&o);
	assert_int_equal(PARSE(&o, &e, "--transparent", "on", "true"), 0);
	assert_true(o.transparent);
	jr_options_release(&o);
	assert_int_equal(PARSE(&o, &e, "--transparent", "on", "--transparent",
			       "off", "true"),
			 0);
	assert_false(o.transparent);
	jr_options_release(&o);
	REJECT("--transparent yes: expected on or off", "--transparent", "yes",
	       "true");
	assert_non_null(strstr(jr_usage_text, "--transparent on|off"));
}

static void test_gateway(void **state)
{
	static const char *const good[] = { "100.64.77.1/30", "10.0.0.1/8",
					    "192.0.2.5/29", "172.16.0.1/16" };
	static const char *const bad[] = {
		"100.64.77.0/30", /* the network address */
		"100.64.77.2/30", /* G+1 would be the broadcast */
		"100.64.77.1/31", "100.64.77.1/32",
		"100.64.77.1/0",  "127.0.0.1/8",
		"169.254.0.1/16", "224.0.0.1/4",
		"0.0.0.1/8",	  "100.64.77.1",
		"100.64.77.1/",	  "100.64.77.1/030",
		"100.64.77.1/3x", "2001:db8::1/64",
		"1.2.3/24",	  "",
	};
	struct jr_gateway g;

	for (size_t i = 0; i < sizeof(good) / sizeof(good[0]); i++)
		if (jr_parse_gateway(good[i], &g) != 0)
			fail_msg("gateway %s refused", good[i]);
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++)
		if (jr_parse_gateway(bad[i], &g) == 0)
			fail_msg("gateway %s accepted", bad[i]);
}

/* Terminal output is filtered unless --raw-tty is given. */
static void test_raw_tty(void **state)
{
	struct jr_options o;
	struct jr_err e = { 0 };

	assert_int_equal(PARSE(&o, &e, "--", "true"), 0);
	assert_false(o.raw_tty);
	jr_options_release(&o);
	assert_int_equal(PARSE(&o, &e, "--raw-tty", "--", "true"), 0);
	assert_true(o.raw_tty);
	jr_options_release(&o);
	assert_int_equal(PARSE(&o, &e, "--raw-tty=yes", "true"), -EINVAL);
	assert_non_null(strstr(e.msg, "--raw-tty"));
	assert_non_null(strstr(jr_usage_text, "--raw-tty"));
}

static void test_filesystem_options(void **state)
{
	struct jr_options o;
	struct jr_err e = { 0 };
	uint64_t b;

	/* Defaults: isolated, no paths, the default size. */
	assert_int_equal(PARSE(&o, &e, "true"), 0);
	assert_int_equal(o.fs_mode, JR_FS_ISOLATED);
	assert_int_equal(o.n_rw + o.n_ro + o.n_hide + o.n_tmpfs, 0);
	assert_int_equal(o.tmpfs_size, 0);
	assert_null(o.workdir);
	jr_options_release(&o);
	/* Repeatable, in order, literal (no globbing, relative kept). */
	assert_int_equal(PARSE(&o, &e, "--rw", "/a", "--rw", "b/*", "--ro",
			       "/a/c", "--hide", "/h", "--tmpfs", "/t",
			       "--tmpfs-size", "64m", "--workdir", "/w", "--",
			       "true"),
			 0);
	assert_int_equal(o.n_rw, 2);
	assert_string_equal(o.rw[0], "/a");
	assert_string_equal(o.rw[1], "b/*");
	assert_int_equal(o.n_ro, 1);
	assert_string_equal(o.ro[0], "/a/c");
	assert_int_equal(o.n_hide, 1);
	assert_int_equal(o.n_tmpfs, 1);
	assert_int_equal(o.tmpfs_size, 64ULL << 20);
	assert_string_equal(o.workdir, "/w");
	jr_options_release(&o);
	assert_int_equal(
	    PARSE(&o, &e, "--fs", "host", "--workdir", "/w", "true"), 0);
	assert_int_equal(o.fs_mode, JR_FS_HOST);
	jr_options_release(&o);
	assert_int_equal(PARSE(&o, &e, "--fs", "isolated", "true"), 0);
	assert_int_equal(o.fs_mode, JR_FS_ISOLATED);
	jr_options_release(&o);

	/* Bad input: each names the option. */
	assert_int_equal(PARSE(&o, &e, "--fs", "none", "true"), -EINVAL);
	assert_non_null(strstr(e.msg, "--fs none"));
	assert_int_equal(PARSE(&o, &e, "--rw", "", "true"), -EINVAL);
	assert_non_null(strstr(e.msg, "--rw: empty path"));
	assert_int_equal(PARSE(&o, &e, "--ro", "", "true"), -EINVAL);
	assert_int_equal(PARSE(&o, &e, "--hide", "", "true"), -EINVAL);
	assert_int_equal(PARSE(&o, &e, "--tmpfs", "", "true"), -EINVAL);
	assert_int_equal(PARSE(&o, &e, "--workdir", "", "true"), -EINVAL);
	assert_int_equal(
	    PARSE(&o, &e, "--workdir", "/a", "--workdir", "/b", "true"),
	    -EINVAL);
	assert_non_null(strstr(e.msg, "--workdir given twice"));
	assert_int_equal(PARSE(&o, &e, "--tmpfs-size", "12q", "true"), -EINVAL);
	assert_non_null(strstr(e.msg, "--tmpfs-size 12q"));
	assert_int_equal(PARSE(&o, &e, "--rw"), -EINVAL);
	/* --fs host has no layout to shape. */
	assert_int_equal(PARSE(&o, &e, "--fs", "host", "--rw", "/a", "true"),
			 -EINVAL);
	assert_non_null(strstr(e.msg, "--fs host"));
	assert_int_equal(
	    PARSE(&o, &e, "--tmpfs-size", "1m", "--fs", "host", "true"),
	    -EINVAL);

	/* Sizes. */
	assert_int_equal(jr_parse_size("4096", &b), 0);
	assert_int_equal(b, 4096);
	assert_int_equal(jr_parse_size("1K", &b), -EINVAL); /* < 4096 */
	assert_int_equal(jr_parse_size("8k", &b), 0);
	assert_int_equal(b, 8192);
	assert_int_equal(jr_parse_size("2G", &b), 0);
	assert_int_equal(b, 2ULL << 30);
	assert_int_equal(jr_parse_size("", &b), -EINVAL);
	assert_int_equal(jr_parse_size("-1m", &b), -EINVAL);
	assert_int_equal(jr_parse_size("1.5g", &b), -EINVAL);
	assert_int_equal(jr_parse_size("1mb", &b), -EINVAL);
	assert_int_equal(jr_parse_size("99999999999999999999", &b), -EINVAL);
	assert_int_equal(jr_parse_size("2000000000g", &b), -EINVAL);
}

/* --rlimit, --memory, --pids, --cpus (limits.c). */
static void test_limits_options(void **state)
{
	struct jr_options o;
	struct jr_err e = { 0 };

	assert_int_equal(PARSE(&o, &e, "--rlimit", "nofile=64", "--rlimit",
			       "fsize=1m", "--rlimit", "core=unlimited",
			       "--rlimit", "nofile=128", "--memory", "64m",
			       "--pids", "20", "--cpus", "0.5", "true"),
			 0);
	assert_true(o.limits.rlimit_set[JR_RLIMIT_NOFILE]);
	assert_int_equal(o.limits.rlimit[JR_RLIMIT_NOFILE],
			 128); /* last wins */
	assert_int_equal(o.limits.rlimit[JR_RLIMIT_FSIZE], 1 << 20);
	assert_true(o.limits.rlimit[JR_RLIMIT_CORE] == JR_RLIMIT_UNLIMITED);
	assert_false(o.limits.rlimit_set[JR_RLIMIT_NPROC]);
	assert_int_equal(o.limits.memory, 64ULL << 20);
	assert_int_equal(o.limits.pids, 20);
	assert_int_equal(o.limits.cpus_milli, 500);
	assert_true(jr_limits_need_cgroup(&o.limits));
	jr_options_release(&o);
	assert_int_equal(
	    PARSE(&o, &e, "--rlimit", "cpu=10", "--cpus", "2", "true"), 0);
	assert_int_equal(o.limits.cpus_milli, 2000);
	assert_false(jr_limits_need_cgroup(&(struct jr_limits){ 0 }));
	jr_options_release(&o);

	static const char *const bad[][3] = {
		{ "--rlimit", "nofile", "expected NAME=VALUE" },
		{ "--rlimit", "=5", "expected NAME=VALUE" },
		{ "--rlimit", "files=5", "unknown resource 'files'" },
		{ "--rlimit", "nofile=-1", "whole number" },
		{ "--rlimit", "nofile=1k", "whole number" }, /* a count */
		{ "--rlimit", "as=1t", "number of bytes" },
		{ "--rlimit", "nofile=99999999999999999999", "whole number" },
		{ "--memory", "1000", "--memory 1000" },
		{ "--memory", "64mb", "--memory 64mb" },
		{ "--memory", "", "--memory" },
		{ "--pids", "1", "from 2" },
		{ "--pids", "0x10", "--pids 0x10" },
		{ "--pids", "5000000", "--pids 5000000" },
		{ "--cpus", "0", "--cpus 0" },
		{ "--cpus", "0.001", "--cpus 0.001" },
		{ "--cpus", "1.", "--cpus 1." },
		{ "--cpus", "2000", "--cpus 2000" },
		{ "--cpus", "-1", "--cpus -1" },
	};
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		memset(&e, 0, sizeof(e));
		assert_int_equal(
		    jr_options_parse(4,
				     (char *[]){ "jailrun", (char *)bad[i][0],
						 (char *)bad[i][1], "true",
						 NULL },
				     &o, &e),
		    -EINVAL);
		if (!strstr(e.msg, bad[i][2]))
			fail_msg("%s %s: message '%s' lacks '%s'", bad[i][0],
				 bad[i][1], e.msg, bad[i][2]);
	}
	assert_non_null(strstr(jr_usage_text, "--rlimit NAME=N"));
	assert_non_null(strstr(jr_usage_text, "--memory BYTES"));
	assert_non_null(strstr(jr_usage_text, "--pids N"));
	assert_non_null(strstr(jr_usage_text, "--cpus N"));
}

static void test_usage_mentions_every_option(void **state)
{
	static const char *const opts[] = { "--net",
					    "--timeout",
					    "--user",
					    "--json",
					    "--check",
					    "--verbose",
					    "--quiet",
					    "--help",
					    "--version",
					    "--allow",
					    "--allow-file",
					    "--gateway",
					    "--log",
					    "--log-fd",
					    "--max-conns",
					    "--header-timeout",
					    "--connect-timeout",
					    "--idle-timeout",
					    "--transparent",
					    "--seccomp",
					    "--allow-nested",
					    "--expose",
					    "--on-tamper",
					    "--watchdog-interval",
					    "--workdir",
					    "--rw",
					    "--ro",
					    "--hide",
					    "--tmpfs",
					    "--tmpfs-size",
					    "--fs" };

	for (size_t i = 0; i < sizeof(opts) / sizeof(opts[0]); i++)
		if (!strstr(jr_usage_text, opts[i]))
			fail_msg("--help does not mention %s", opts[i]);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_command_after_dashdash),
		cmocka_unit_test(test_command_options_not_ours),
		cmocka_unit_test(test_all_options),
		cmocka_unit_test(test_landlock_option),
		cmocka_unit_test(test_host_root_option),
		cmocka_unit_test(test_help_version_check),
		cmocka_unit_test(test_rejections),
		cmocka_unit_test(test_duration),
		cmocka_unit_test(test_allowlist_options),
		cmocka_unit_test(test_hardening_options),
		cmocka_unit_test(test_raw_tty),
		cmocka_unit_test(test_gateway),
		cmocka_unit_test(test_filesystem_options),
		cmocka_unit_test(test_transparent),
		cmocka_unit_test(test_usage_mentions_every_option),
		cmocka_unit_test(test_limits_options),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
