// SPDX-License-Identifier: GPL-2.0-or-later
/* Unit tests for options.c: every accepted form and every rejection. */
#include <arpa/inet.h>
#include <errno.h>
#include <getopt.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
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

/* --label: one line of printable text, bounded; the last one wins. */
static void test_label(void **state)
{
	struct jr_options o;
	struct jr_err e = { 0 };
	char long_label[JR_LABEL_MAX + 2];

	assert_int_equal(PARSE(&o, &e, "true"), 0);
	assert_null(o.label);
	jr_options_release(&o);
	assert_int_equal(PARSE(&o, &e, "--label", "a", "--label",
			       "task 7: npm install (retry)", "true"),
			 0);
	assert_string_equal(o.label, "task 7: npm install (retry)");
	jr_options_release(&o);
	memset(long_label, 'x', JR_LABEL_MAX);
	long_label[JR_LABEL_MAX] = '\0';
	assert_int_equal(PARSE(&o, &e, "--label", long_label, "true"), 0);
	jr_options_release(&o);
	long_label[JR_LABEL_MAX] = 'x';
	long_label[JR_LABEL_MAX + 1] = '\0';
	REJECT("--label: at most 128 bytes, this one has 129", "--label",
	       long_label, "true");
	REJECT("--label: empty text", "--label", "", "true");
	REJECT("--label: control character 0x0a at byte 2", "--label", "a\nb",
	       "true");
	REJECT("--label: control character 0x1b at byte 1", "--label",
	       "\x1b[2J", "true");
	REJECT("--label: control character 0x7f at byte 1", "--label", "\x7f",
	       "true");
}

static void test_rejections(void **state)
{
	expect_reject("no command given", 1, (char *[]){ "jailrun", NULL });
	REJECT("no command given", "--");
	REJECT("no command given", "-v");
	REJECT("unknown option '--frobnicate'", "--frobnicate", "true");
	REJECT("unknown option '-x'", "-x", "true");
	REJECT("'--net' needs an argument", "--net");
	REJECT(
	    "--net everything: unknown network mode (known: allowlist, public, none)",
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

/* --control PATH / --control-fd N: kept; refused without the allowlist
 * (no relay to serve them), combined, with a bad fd or an empty or
 * overlong path. A parser that dropped the option, or let it pass under
 * --net none where nothing would serve it, fails here. */
static void test_control(void **state)
{
	struct jr_options o;
	struct jr_err e = { 0 };

	(void)state;
	assert_int_equal(PARSE(&o, &e, "true"), 0);
	assert_null(o.control_path);
	assert_int_equal(o.control_fd, -1);
	jr_options_release(&o);
	assert_int_equal(PARSE(&o, &e, "--allow", "a.test", "--control",
			       "/run/x.sock", "true"),
			 0);
	assert_string_equal(o.control_path, "/run/x.sock");
	jr_options_release(&o);
	assert_int_equal(
	    PARSE(&o, &e, "--net", "allowlist", "--control-fd", "5", "true"),
	    0);
	assert_int_equal(o.control_fd, 5);
	jr_options_release(&o);
	REJECT(
	    "--control/--control-fd change the allowlist and need --net allowlist, not --net none",
	    "--control", "/run/x.sock", "true");
	REJECT("--control and --control-fd cannot be combined", "--allow",
	       "a.test", "--control", "/x", "--control-fd", "5", "true");
	REJECT("--control-fd 1: expected an open file descriptor number >= 3",
	       "--allow", "a.test", "--control-fd", "1", "true");
	REJECT("--control: empty path", "--allow", "a.test", "--control", "",
	       "true");
	REJECT(
	    "a unix socket path has at most 107 bytes", "--allow", "a.test",
	    "--control",
	    "/0123456789012345678901234567890123456789012345678901234567890123456789012345678901234567890123456789012345678901234567890123456789",
	    "true");
}

/* --ask and --ask tty: the word tty right after --ask is its value, not
 * the command; "--ask -- tty" still runs tty; --ask tty needs no control
 * socket but the allowlist; --ask alone still needs one. A parser that
 * ran "tty" as the command, dropped the word, or refused --ask tty
 * without --control fails here. */
static void test_ask_tty(void **state)
{
	struct jr_options o;
	struct jr_err e = { 0 };

	(void)state;
	assert_int_equal(
	    PARSE(&o, &e, "--allow", "a.test", "--ask", "tty", "true"), 0);
	assert_true(o.ask);
	assert_true(o.ask_tty);
	assert_string_equal(o.command[0], "true");
	jr_options_release(&o);
	assert_int_equal(PARSE(&o, &e, "--allow", "a.test", "--control",
			       "/run/x.sock", "--ask", "--", "tty"),
			 0);
	assert_true(o.ask);
	assert_false(o.ask_tty);
	assert_string_equal(o.command[0], "tty");
	jr_options_release(&o);
	assert_int_equal(PARSE(&o, &e, "--allow", "a.test", "--control",
			       "/run/x.sock", "--ask", "tty", "--", "true"),
			 0);
	assert_true(o.ask_tty);
	jr_options_release(&o);
	REJECT("--ask holds refused requests until they are approved or "
	       "denied on the live policy socket: add --control PATH",
	       "--allow", "a.test", "--ask", "true");
	/* A live start's vector: the sandbox serves a socket of its own
	 * (main.c); a run of that name is refused there, not here. */
	assert_int_equal(
	    PARSE(&o, &e, "--allow", "a.test", "--ask", "--", JR_LIVE_COMMAND),
	    0);
	assert_true(o.ask);
	assert_null(o.control_path);
	assert_int_equal(jr_options_check_ask_channel(&o, &e), -EINVAL);
	assert_non_null(strstr(e.msg, "add --control PATH"));
	jr_options_release(&o);
	REJECT("--ask tty asks about what the allowlist refuses and needs "
	       "--net allowlist, not --net none",
	       "--ask", "tty", "true");
	assert_non_null(strstr(jr_usage_text, "--ask tty"));
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

/*
 * --lane and --publish: the forms, and --net none with either runs on the
 * allowlist plumbing while still being called "none". Fails if a name
 * lane is taken for a host endpoint or the reverse, a port out of range
 * or a relay port passes, an IPv6 endpoint without brackets passes, or a
 * hermetic --net none (no lanes) changes.
 */
static void test_lane_and_publish(void **state)
{
	struct jr_options o;
	struct jr_err e = { 0 };
	const struct sockaddr_in *sin;
	const struct sockaddr_in6 *sin6;

	assert_int_equal(PARSE(&o, &e, "--net", "none", "--lane",
			       "127.0.0.1:4000", "--lane", "[::1]:4001",
			       "--lane", "api.example.com:443", "true"),
			 0);
	assert_int_equal(o.net, JR_NET_ALLOWLIST);
	assert_true(o.none_with_lanes);
	assert_string_equal(jr_options_net_mode(&o), "none");
	assert_int_equal(o.lanes.n_lane, 3);
	assert_int_equal(o.lanes.n_host, 2);
	assert_true(o.lanes.lane[0].host);
	sin = (const struct sockaddr_in *)&o.lanes.lane[0].addr;
	assert_int_equal(sin->sin_family, AF_INET);
	assert_int_equal(ntohs(sin->sin_port), 4000);
	assert_int_equal(ntohl(sin->sin_addr.s_addr), 0x7f000001);
	sin6 = (const struct sockaddr_in6 *)&o.lanes.lane[1].addr;
	assert_int_equal(sin6->sin6_family, AF_INET6);
	assert_int_equal(ntohs(sin6->sin6_port), 4001);
	assert_false(o.lanes.lane[2].host);
	assert_string_equal(o.lanes.lane[2].text, "api.example.com:443");
	assert_int_equal(o.lanes.lane[2].port, 443);
	jr_options_release(&o);

	/* With --allow it is the allowlist, and says so. */
	assert_int_equal(PARSE(&o, &e, "--allow", "a.test", "--lane",
			       "127.0.0.1:4000", "true"),
			 0);
	assert_false(o.none_with_lanes);
	assert_string_equal(jr_options_net_mode(&o), "allowlist");
	jr_options_release(&o);
	/* Without lanes, --net none is untouched (hermetic). */
	assert_int_equal(PARSE(&o, &e, "--net", "none", "true"), 0);
	assert_int_equal(o.net, JR_NET_NONE);
	assert_false(o.none_with_lanes);
	jr_options_release(&o);

	assert_int_equal(PARSE(&o, &e, "--publish", "8080:8000", "--publish",
			       "0.0.0.0:8081:8000", "--publish",
			       "[::1]:8082:9000", "true"),
			 0);
	assert_int_equal(o.net, JR_NET_ALLOWLIST); /* publish needs the veth */
	assert_true(o.none_with_lanes);
	assert_int_equal(o.lanes.n_publish, 3);
	sin = (const struct sockaddr_in *)&o.lanes.publish[0].addr;
	assert_int_equal(ntohl(sin->sin_addr.s_addr), 0x7f000001); /* default */
	assert_int_equal(ntohs(sin->sin_port), 8080);
	assert_int_equal(o.lanes.publish[0].port, 8000);
	sin = (const struct sockaddr_in *)&o.lanes.publish[1].addr;
	assert_int_equal(sin->sin_addr.s_addr, 0);
	sin6 = (const struct sockaddr_in6 *)&o.lanes.publish[2].addr;
	assert_int_equal(sin6->sin6_family, AF_INET6);
	assert_int_equal(ntohs(sin6->sin6_port), 8082);
	assert_int_equal(o.lanes.publish[2].port, 9000);
	jr_options_release(&o);

	REJECT("--lane 127.0.0.1:0: the port must be 1..65535", "--lane",
	       "127.0.0.1:0", "true");
	REJECT("--lane 127.0.0.1:65536: the port must be 1..65535", "--lane",
	       "127.0.0.1:65536", "true");
	REJECT("--lane 127.0.0.1:+80: the port", "--lane", "127.0.0.1:+80",
	       "true");
	REJECT("--lane 127.0.0.1: expected HOST:PORT", "--lane", "127.0.0.1",
	       "true");
	REJECT("--lane ::1:4000: an IPv6 address goes in brackets", "--lane",
	       "::1:4000", "true");
	REJECT("--lane [::1:4000: expected [IPv6-ADDRESS]:PORT", "--lane",
	       "[::1:4000", "true");
	REJECT("--lane foo.*.test:443: not an address literal", "--lane",
	       "foo.*.test:443", "true");
	REJECT("port 3128 is one of the relay's own ports", "--lane",
	       "127.0.0.1:3128", "true");
	REJECT("port 53 is one of the relay's own ports", "--lane",
	       "127.0.0.1:53", "true");
	REJECT("port 4000 is already the gateway port of --lane 127.0.0.1:4000",
	       "--lane", "127.0.0.1:4000", "--lane", "[::1]:4000", "true");
	REJECT("--publish 8080: expected [ADDR:]HOSTPORT:PORT", "--publish",
	       "8080", "true");
	REJECT("--publish 0:80: expected", "--publish", "0:80", "true");
	REJECT("--publish 80:0: expected", "--publish", "80:0", "true");
	REJECT("--publish example.com:80:80: the address must be", "--publish",
	       "example.com:80:80", "true");
	REJECT("--publish 1:2:3:4: expected", "--publish", "1:2:3:4", "true");
	REJECT("the same host address and port as --publish 8080:80",
	       "--publish", "8080:80", "--publish", "127.0.0.1:8080:81",
	       "true");
	/* issue 23: what users write for the lane */
	assert_int_equal(PARSE(&o, &e, "--lane", "localhost:4000", "--lane-env",
			       "OPENAI_BASE_URL=http://{lane}/v1", "true"),
			 0);
	assert_true(o.lanes.lane[0].host);
	assert_int_equal(o.n_lane_env, 1);
	assert_string_equal(o.lane_env[0], "OPENAI_BASE_URL=http://{lane}/v1");
	jr_options_release(&o);
	REJECT("--lane-env U=http://x: the template names no lane",
	       "--lane-env", "U=http://x", "true");
	REJECT("--lane-env U={lane:8000}: the same variable as --lane-env "
	       "U={lane}",
	       "--lane", "127.0.0.1:4000", "--lane", "127.0.0.1:8000",
	       "--lane-env", "U={lane}", "--lane-env", "U={lane:8000}", "true");
	REJECT("--secret K@host.jailrun.internal:4000: host.jailrun.internal "
	       "is the model lane",
	       "--allow", "a.test", "--lane", "127.0.0.1:4000", "--secret",
	       "K@host.jailrun.internal:4000", "true");
	REJECT("--secret K@a.test,127.0.0.1:4000: 127.0.0.1 is the address "
	       "of --lane localhost:4000",
	       "--allow", "a.test", "--lane", "localhost:4000", "--secret",
	       "K@a.test,127.0.0.1:4000", "true");
	REJECT("--lane 127.0.0.1:8000: port 8000 is served inside on "
	       "127.0.0.1 by the lane",
	       "--publish", "8080:8000", "--lane", "127.0.0.1:8000", "true");
}

/* --allow-http: kept in order, implies allowlist; a bad rule names itself. */
static void test_allow_http_option(void **state)
{
	struct jr_options o;
	struct jr_err e = { 0 };

	(void)state;
	assert_int_equal(PARSE(&o, &e, "--allow-http",
			       "GET,HEAD http://a.test/ok/", "--allow-http",
			       "* https://*.b.test/", "true"),
			 0);
	assert_int_equal(o.net, JR_NET_ALLOWLIST);
	assert_int_equal(o.n_allow_http, 2);
	assert_string_equal(o.allow_http[0], "GET,HEAD http://a.test/ok/");
	assert_string_equal(o.allow_http[1], "* https://*.b.test/");
	jr_options_release(&o);
	assert_null(o.allow_http);

	REJECT("--allow-http 'get http://a.test/': methods are case-sensitive",
	       "--allow-http", "get http://a.test/", "true");
	REJECT("--allow-http 'GET http://a.test/x/../y': a dot segment",
	       "--allow-http", "GET http://a.test/x/../y", "true");
	REJECT("--allow-http 'GET a.test': the URL prefix must start with",
	       "--allow-http", "GET a.test", "true");
	REJECT("need --net allowlist", "--net", "none", "--allow-http",
	       "GET http://a.test/", "true");
}

/*
 * The parser dispatches through a table made from the same rows as
 * jr_options_long_table(): each option must reach its own rule. An empty
 * value is refused by every option that takes one (but --allow and
 * --allow-file, which keep it for the policy to refuse), and the refusal
 * names that option; a row pointing at another option's handler or member
 * would name the other one, or succeed.
 */
static void test_each_option_reaches_its_own_rule(void **state)
{
	for (const struct option *o = jr_options_long_table(); o->name; o++) {
		char opt[64], *argv[] = { (char *)"jailrun", opt,
					  (char *)"",	     (char *)"--",
					  (char *)"true",    NULL };
		struct jr_options opts;
		struct jr_err e = { 0 };
		size_t len;

		if (o->has_arg != required_argument)
			continue;
		len = (size_t)snprintf(opt, sizeof(opt), "--%s", o->name);
		if (!strcmp(o->name, "allow") ||
		    !strcmp(o->name, "allow-file")) {
			assert_int_equal(jr_options_parse(5, argv, &opts, &e),
					 0);
			assert_int_equal(opts.n_allow + opts.n_allow_files, 1);
			assert_string_equal(!strcmp(o->name, "allow")
						? opts.allow[0]
						: opts.allow_files[0],
					    "");
			jr_options_release(&opts);
			continue;
		}
		if (jr_options_parse(5, argv, &opts, &e) != -EINVAL)
			fail_msg("%s '' was accepted", opt);
		if (strncmp(e.msg, opt, len) != 0 ||
		    (e.msg[len] != ' ' && e.msg[len] != ':'))
			fail_msg("%s '': the error names another rule: %s", opt,
				 e.msg);
	}
}

/* The flags, each set by its own row (and --help/--version at once). */
static void test_each_flag_sets_its_own_member(void **state)
{
	struct jr_options o;
	struct jr_err e = { 0 };

	assert_int_equal(PARSE(&o, &e, "--allow-nested", "true"), 0);
	assert_true(o.allow_nested);
	assert_false(o.host_root || o.raw_tty || o.secret_allow_plaintext);
	jr_options_release(&o);
	assert_int_equal(PARSE(&o, &e, "--raw-tty", "true"), 0);
	assert_true(o.raw_tty);
	assert_false(o.host_root || o.allow_nested);
	jr_options_release(&o);
	assert_int_equal(PARSE(&o, &e, "--allow", "a.example",
			       "--secret-allow-plaintext", "true"),
			 0);
	assert_true(o.secret_allow_plaintext);
	assert_false(o.raw_tty || o.allow_nested || o.host_root);
	jr_options_release(&o);
	assert_int_equal(PARSE(&o, &e, "--print-config", "--net", "bogus"),
			 -EINVAL);
	assert_int_equal(PARSE(&o, &e, "--print-config"), 0);
	assert_int_equal(o.action, JR_ACTION_PRINT_CONFIG);
	jr_options_release(&o);
	assert_int_equal(PARSE(&o, &e, "--check"), 0);
	assert_int_equal(o.action, JR_ACTION_CHECK);
	jr_options_release(&o);
	/* --help and --version end the parse: what follows is not read. */
	assert_int_equal(PARSE(&o, &e, "--version", "--net", "bogus"), 0);
	assert_int_equal(o.action, JR_ACTION_VERSION);
	jr_options_release(&o);
	assert_int_equal(PARSE(&o, &e, "-h", "--net", "bogus"), 0);
	assert_int_equal(o.action, JR_ACTION_HELP);
	jr_options_release(&o);
	assert_int_equal(PARSE(&o, &e, "--verbose", "-v", "true"), 0);
	assert_int_equal(o.verbosity, 2);
	jr_options_release(&o);
	assert_int_equal(PARSE(&o, &e, "--quiet", "true"), 0);
	assert_int_equal(o.verbosity, -1);
	jr_options_release(&o);
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
					    "--lane",
					    "--publish",
					    "--control",
					    "--control-fd",
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
					    "--fs",
					    "--allow-private",
					    "--deny-message",
					    "--learn",
					    "--allow-http" };

	for (size_t i = 0; i < sizeof(opts) / sizeof(opts[0]); i++)
		if (!strstr(jr_usage_text, opts[i]))
			fail_msg("--help does not mention %s", opts[i]);
}

/* --net public, --learn, --allow-private, --deny-message (NETWORK MODES). */
static void test_network_modes(void **state)
{
	struct jr_options o;
	struct jr_err e = { 0 };
	char long_msg[JR_DENY_MESSAGE_MAX + 2];

	assert_int_equal(PARSE(&o, &e, "true"), 0);
	assert_string_equal(jr_options_net_mode(&o), "hermetic");
	jr_options_release(&o);
	assert_int_equal(PARSE(&o, &e, "--allow", "a.test", "true"), 0);
	assert_string_equal(jr_options_net_mode(&o), "allowlist");
	jr_options_release(&o);

	/* public: the allowlist's relay, every name */
	assert_int_equal(PARSE(&o, &e, "--net", "public", "true"), 0);
	assert_int_equal(o.net, JR_NET_ALLOWLIST);
	assert_true(o.net_public);
	assert_string_equal(jr_options_net_mode(&o), "public");
	jr_options_release(&o);
	/* the last --net wins, as for every option */
	assert_int_equal(
	    PARSE(&o, &e, "--net", "public", "--net", "none", "true"), 0);
	assert_false(o.net_public);
	assert_string_equal(jr_options_net_mode(&o), "hermetic");
	jr_options_release(&o);

	/* --learn implies public */
	assert_int_equal(PARSE(&o, &e, "--learn", "/tmp/l.txt", "true"), 0);
	assert_true(o.net_public);
	assert_string_equal(o.learn_path, "/tmp/l.txt");
	assert_string_equal(jr_options_net_mode(&o), "public");
	jr_options_release(&o);
	assert_int_equal(
	    PARSE(&o, &e, "--net", "public", "--learn", "f", "true"), 0);
	jr_options_release(&o);

	/* --allow-private: good values */
	assert_int_equal(
	    PARSE(&o, &e, "--net", "public", "--allow-private", "10.77.0.0/16",
		  "--allow-private", "192.168.1.5:5432", "--allow-private",
		  "fd77::/64", "--allow-private", "198.51.100.2", "true"),
	    0);
	assert_int_equal(o.n_allow_private, 4);
	assert_string_equal(o.allow_private[1], "192.168.1.5:5432");
	jr_options_release(&o);
	assert_int_equal(PARSE(&o, &e, "--allow", "a.test", "--allow-private",
			       "10.0.0.0/8", "true"),
			 0);
	jr_options_release(&o);

	/* --deny-message: good value */
	assert_int_equal(PARSE(&o, &e, "--deny-message",
			       "ask the operator to add the host", "true"),
			 0);
	assert_string_equal(o.deny_message, "ask the operator to add the host");
	jr_options_release(&o);
	memset(long_msg, 'x', JR_DENY_MESSAGE_MAX);
	long_msg[JR_DENY_MESSAGE_MAX] = '\0';
	assert_int_equal(PARSE(&o, &e, "--deny-message", long_msg, "true"), 0);
	jr_options_release(&o);

	/* and every rejection names the option and the rule */
	REJECT("--allow-private '0.0.0.0/0': opening every address", "--net",
	       "public", "--allow-private", "0.0.0.0/0", "true");
	REJECT("--allow-private '::/0': opening every address", "--net",
	       "public", "--allow-private", "::/0", "true");
	REJECT("--allow-private '10.0.0.0/7': a range must lie inside one",
	       "--net", "public", "--allow-private", "10.0.0.0/7", "true");
	REJECT("--allow-private '8.8.8.0/24': a range must lie inside one",
	       "--net", "public", "--allow-private", "8.8.8.0/24", "true");
	REJECT("--allow-private 'db.lan': expected an address or CIDR", "--net",
	       "public", "--allow-private", "db.lan", "true");
	REJECT("--allow-private '10.0.0.1/8'", "--net", "public",
	       "--allow-private", "10.0.0.1/8", "true");
	REJECT("--allow-private opens a range to the relay, and --net none",
	       "--allow-private", "10.0.0.0/8", "true");
	REJECT("--allow/--allow-file mean nothing with --net public", "--net",
	       "public", "--allow", "a.test", "true");
	REJECT("--allow/--allow-file mean nothing with --net public", "--learn",
	       "f", "--allow-file", "g", "true");
	REJECT(
	    "--learn runs the command like --net public and cannot be combined with --net none",
	    "--net", "none", "--learn", "f", "true");
	REJECT(
	    "--learn runs the command like --net public and cannot be combined with --net allowlist",
	    "--learn", "f", "--net", "allowlist", "true");
	REJECT("--learn given twice", "--learn", "f", "--learn", "g", "true");
	REJECT("--learn: empty file name", "--learn", "", "true");
	REJECT("--deny-message: empty text", "--deny-message", "", "true");
	REJECT("--deny-message: control character 0x0a at byte 4",
	       "--deny-message", "ask\nme", "true");
	REJECT("--deny-message: control character 0x1b at byte 1",
	       "--deny-message", "\x1b[31m", "true");
	long_msg[JR_DENY_MESSAGE_MAX] = 'x';
	long_msg[JR_DENY_MESSAGE_MAX + 1] = '\0';
	REJECT("--deny-message: at most 256 bytes, this one has 257",
	       "--deny-message", long_msg, "true");
}

static void test_config_options(void **state)
{
	struct jr_options o;
	struct jr_err e = { 0 };

	/* conffile.c reads them; the parse only checks them. */
	assert_int_equal(PARSE(&o, &e, "--config", "a.conf", "--profile",
			       "worker_1-x", "--", "true"),
			 0);
	assert_string_equal(o.profile, "worker_1-x");
	jr_options_release(&o);
	REJECT("--config: empty file name", "--config", "", "true");
	REJECT("--profile ../x: expected a name", "--profile", "../x", "true");
	REJECT("--profile a.b: expected a name", "--profile", "a.b", "true");
	REJECT("--profile : expected a name", "--profile", "", "true");
	/* --print-config needs no command, and runs none. */
	assert_int_equal(PARSE(&o, &e, "--print-config"), 0);
	assert_int_equal(o.action, JR_ACTION_PRINT_CONFIG);
	jr_options_release(&o);
	assert_int_equal(PARSE(&o, &e, "--print-config", "--", "true"), 0);
	assert_int_equal(o.action, JR_ACTION_PRINT_CONFIG);
	jr_options_release(&o);
	REJECT("takes no argument", "--print-config=yes");
	assert_non_null(strstr(jr_usage_text, "--config FILE"));
	assert_non_null(strstr(jr_usage_text, "--profile NAME"));
	assert_non_null(strstr(jr_usage_text, "--print-config"));
}

/* --secret, --inspect, --upstream-ca, --secret-allow-plaintext (issue
 * 13): good specs kept in order; a bad spec, a host with a port, a value
 * on the command line, and any of them without --allow refused by name. */
static void test_secret_options(void **state)
{
	struct jr_options o;
	struct jr_err e = { 0 };

	(void)state;
	assert_int_equal(PARSE(&o, &e, "--allow", "api.test", "--secret",
			       "K@api.test", "--secret",
			       "F=file:/run/k@api.test,b.test", "--inspect",
			       "b.test", "--upstream-ca", "/etc/ca.pem",
			       "--secret-allow-plaintext", "true"),
			 0);
	assert_int_equal(o.n_secret, 2);
	assert_string_equal(o.secret[0], "K@api.test");
	assert_string_equal(o.secret[1], "F=file:/run/k@api.test,b.test");
	assert_int_equal(o.n_inspect, 1);
	assert_string_equal(o.inspect[0], "b.test");
	assert_string_equal(o.upstream_ca, "/etc/ca.pem");
	assert_true(o.secret_allow_plaintext);
	assert_null(o.secrets);
	jr_options_release(&o);

	REJECT("--secret K: expected NAME@HOST", "--allow", "a.test",
	       "--secret", "K", "true");
	REJECT("--secret 1K@a.test: NAME must be", "--allow", "a.test",
	       "--secret", "1K@a.test", "true");
	/* a binding takes a port (issue 21); --inspect is per host */
	assert_int_equal(PARSE(&o, &e, "--allow", "a.test", "--secret",
			       "K@a.test:8443,[2001:db8::1]:443", "true"),
			 0);
	jr_options_release(&o);
	REJECT("the port must be a decimal number from 1 to 65535", "--allow",
	       "a.test", "--secret", "K@a.test:0", "true");
	REJECT("is not a host name or an IPv6 address", "--allow", "a.test",
	       "--inspect", "a.test:443", "true");
	REJECT("only file:PATH is accepted", "--allow", "a.test", "--secret",
	       "K=sk-123456789@a.test", "true");
	REJECT("--inspect: '*.a.test' is not a host name", "--allow", "a.test",
	       "--inspect", "*.a.test", "true");
	REJECT("they need --allow", "--secret", "K@a.test", "true");
	REJECT("they need --allow", "--inspect", "a.test", "true");
	REJECT("it needs --secret, --inspect or an https --allow-http rule",
	       "--allow", "a.test", "--upstream-ca", "/x.pem", "true");
	REJECT("--upstream-ca given twice", "--allow", "a.test", "--inspect",
	       "a.test", "--upstream-ca", "/x", "--upstream-ca", "/y", "true");
	assert_non_null(strstr(jr_usage_text, "--secret NAME@HOST"));
	assert_non_null(strstr(jr_usage_text, "--inspect HOST"));
	assert_non_null(strstr(jr_usage_text, "--upstream-ca FILE"));
	assert_non_null(strstr(jr_usage_text, "--secret-allow-plaintext"));
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
		cmocka_unit_test(test_lane_and_publish),
		cmocka_unit_test(test_control),
		cmocka_unit_test(test_ask_tty),
		cmocka_unit_test(test_usage_mentions_every_option),
		cmocka_unit_test(test_network_modes),
		cmocka_unit_test(test_config_options),
		cmocka_unit_test(test_allow_http_option),
		cmocka_unit_test(test_secret_options),
		cmocka_unit_test(test_limits_options),
		cmocka_unit_test(test_label),
		cmocka_unit_test(test_each_option_reaches_its_own_rule),
		cmocka_unit_test(test_each_flag_sets_its_own_member),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
