// SPDX-License-Identifier: GPL-2.0-or-later
/* Unit tests for conffile.c and managed.c: the file grammar, includes, the
 * merge with the command line, the managed policy's deny and require, and
 * --print-config. Files are served from memory by a test reader. */
#include <arpa/inet.h>
#include <errno.h>
#include <getopt.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "cleanup.h"
#include "conffile.h"
#include "managed.h"
#include "policy.h"

/* File tables list { path, text } and add an id only where it differs. */
#pragma GCC diagnostic ignored "-Wmissing-field-initializers"

struct memfile {
	const char *path;
	const char *text;
	const char *id; /* NULL: the path (another name of the same file) */
};

static const struct memfile *files;

static int mem_reader(void *ctx, const char *path, char **text, size_t *len,
		      char **identity, struct jr_err *err)
{
	for (const struct memfile *f = files; f && f->path; f++)
		if (strcmp(f->path, path) == 0) {
			*text = strdup(f->text);
			*identity = strdup(f->id ? f->id : path);
			*len = strlen(f->text);
			return 0;
		}
	return jr_err_set(err, ENOENT, "cannot read %s: no such file", path);
}

static void cfg_init(struct jr_config *cfg, const struct memfile *fs)
{
	jr_config_init(cfg);
	cfg->reader = mem_reader;
	files = fs;
}

#define ARGV(...) ((char *[]){ "jailrun", __VA_ARGS__, NULL })
#define ARGC(...)                                                              \
	((int)(sizeof((char *[]){ "jailrun", __VA_ARGS__ }) / sizeof(char *)))
#define BUILD(cfg, o, e, ...)                                                  \
	jr_config_build((cfg), NULL, ARGC(__VA_ARGS__), ARGV(__VA_ARGS__),     \
			(o), (e))

static void expect_msg(const struct jr_err *e, const char *needle)
{
	if (!strstr(e->msg, needle))
		fail_msg("message '%s' does not contain '%s'", e->msg, needle);
}

static void test_split(void **state)
{
	char l1[] = "  allow   api.example.com   # why\r";
	char l2[] = "# a comment";
	char l3[] = "allow-nested";
	char l4[] = "rw \" /a dir #1 \"  # c";
	char l5[] = "rw /a#b";
	char l6[] = "Allow x";
	char l7[] = "rw \"open";
	char l8[] = "rw \"a\" b";
	char l9[] = "rw a\001b";
	char *kw, *v;
	const char *why;

	assert_int_equal(jr_conf_split(l1, &kw, &v, &why), 1);
	assert_string_equal(kw, "allow");
	assert_string_equal(v, "api.example.com");
	assert_int_equal(jr_conf_split(l2, &kw, &v, &why), 0);
	assert_int_equal(jr_conf_split(l3, &kw, &v, &why), 1);
	assert_null(v);
	assert_int_equal(jr_conf_split(l4, &kw, &v, &why), 1);
	assert_string_equal(v, " /a dir #1 ");
	/* '#' inside a word is not a comment */
	assert_int_equal(jr_conf_split(l5, &kw, &v, &why), 1);
	assert_string_equal(v, "/a#b");
	assert_int_equal(jr_conf_split(l6, &kw, &v, &why), -EINVAL);
	assert_int_equal(jr_conf_split(l7, &kw, &v, &why), -EINVAL);
	assert_int_equal(jr_conf_split(l8, &kw, &v, &why), -EINVAL);
	assert_int_equal(jr_conf_split(l9, &kw, &v, &why), -EINVAL);
}

static void test_bad_lines_name_file_and_line(void **state)
{
	static const struct {
		const char *text, *needle;
	} cases[] = {
		{ "\n\nfrobnicate 1\n",
		  "f.conf:3: unknown keyword 'frobnicate'" },
		{ "seccomp maybe\n",
		  "f.conf:1: --seccomp maybe: expected on or off" },
		{ "allow foo.*.com\n", "f.conf:1: --allow" },
		{ "# ok\nhelp\n", "f.conf:2: 'help' cannot be set" },
		{ "config other.conf\n", "f.conf:1: 'config' cannot be set" },
		{ "print-config\n", "f.conf:1: 'print-config' cannot be set" },
		{ "allow-nested maybe\n", "f.conf:1: allow-nested is a flag" },
		{ "timeout\n", "f.conf:1: timeout needs a value" },
		{ "deny x.test\n",
		  "f.conf:1: 'deny' belongs in the managed policy" },
		{ "include\n", "f.conf:1: include needs a file name" },
		{ "include nope.conf\n",
		  "f.conf:1: include: cannot read nope.conf" },
		{ "allow a\0b\n", "f.conf:1: a NUL byte" },
	};

	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		struct jr_config cfg;
		struct jr_err e = { 0 };
		size_t len = strlen(cases[i].text);

		if (strstr(cases[i].needle, "NUL"))
			len = 10;
		cfg_init(&cfg, NULL);
		assert_true(jr_config_parse_text(&cfg, "f.conf", cases[i].text,
						 len, &e) < 0);
		expect_msg(&e, cases[i].needle);
		jr_config_release(&cfg);
	}
}

static void test_include_relative_loop_depth(void **state)
{
	static const struct memfile fs[] = {
		{ "d/a.conf", "allow a.test\ninclude sub/b.conf\n" },
		{ "d/sub/b.conf", "allow b.test\ninclude ../a.conf\n" },
		{ "d/sub/../a.conf", "allow a.test\ninclude sub/b.conf\n",
		  "d/a.conf" },
		{ "d/ok.conf", "include sub/c.conf\ninclude sub/c.conf\n" },
		{ "d/sub/c.conf", "allow c.test\n" },
		{ "deep.conf", "include deep2.conf\n" },
		{ NULL, NULL },
	};
	struct jr_config cfg;
	struct jr_err e = { 0 };

	/* a loop: named at the line that closes it */
	cfg_init(&cfg, fs);
	assert_int_equal(jr_config_load_file(&cfg, "d/a.conf", &e), -ELOOP);
	expect_msg(&e, "d/sub/b.conf:2: include loop: d/sub/../a.conf");
	jr_config_release(&cfg);
	/* the same file twice, not nested, is no loop */
	cfg_init(&cfg, fs);
	assert_int_equal(jr_config_load_file(&cfg, "d/ok.conf", &e), 0);
	assert_int_equal(cfg.n, 2);
	assert_string_equal(cfg.set[1].origin, "d/sub/c.conf:1");
	jr_config_release(&cfg);
}

static int self_reader(void *ctx, const char *path, char **text, size_t *len,
		       char **identity, struct jr_err *err)
{
	/* every file includes a new one: only the depth bound stops it */
	static int n;

	*text = strdup("include next.conf\n");
	*len = strlen(*text);
	if (asprintf(identity, "id%d", n++) < 0)
		return -ENOMEM;
	return 0;
}

static void test_include_depth_bound(void **state)
{
	struct jr_config cfg;
	struct jr_err e = { 0 };

	jr_config_init(&cfg);
	cfg.reader = self_reader;
	assert_int_equal(jr_config_load_file(&cfg, "x.conf", &e), -ELOOP);
	expect_msg(&e, "nested deeper than 8");
	jr_config_release(&cfg);
}

static void test_merge(void **state)
{
	static const struct memfile fs[] = {
		{ "one.conf", "allow one.test\nuser nobody\nseccomp off\n"
			      "timeout 5\nallow-nested\nquiet\n" },
		{ "two.conf", "allow two.test\ntimeout 7\nallow-nested no\n" },
		{ NULL, NULL },
	};
	struct jr_config cfg;
	struct jr_options o;
	struct jr_err e = { 0 };

	cfg_init(&cfg, fs);
	/* lists accumulate in order; later files win; the command line wins
	 * last; a file's --user does not trip "--user given twice"; a file's
	 * quiet yields to the command line's -v */
	assert_int_equal(BUILD(&cfg, &o, &e, "--config", "one.conf", "--config",
			       "two.conf", "--user", "root", "--seccomp", "on",
			       "-v", "--allow", "cmd.test", "--", "true"),
			 0);
	assert_int_equal(o.n_allow, 3);
	assert_string_equal(o.allow[0], "one.test");
	assert_string_equal(o.allow[1], "two.test");
	assert_string_equal(o.allow[2], "cmd.test");
	assert_string_equal(o.user, "root");
	assert_true(o.seccomp);
	assert_int_equal(o.timeout_ms, 7000);
	assert_false(o.allow_nested); /* "no" in the later file */
	assert_int_equal(o.verbosity, 1);
	assert_int_equal(o.net, JR_NET_ALLOWLIST);
	assert_string_equal(o.command[0], "true");
	jr_options_release(&o);
	jr_config_release(&cfg);

	/* without the command line's, the files' settings hold */
	cfg_init(&cfg, fs);
	assert_int_equal(BUILD(&cfg, &o, &e, "--config", "one.conf", "true"),
			 0);
	assert_string_equal(o.user, "nobody");
	assert_false(o.seccomp);
	assert_true(o.allow_nested);
	assert_int_equal(o.verbosity, -1);
	jr_options_release(&o);
	jr_config_release(&cfg);

	/* an unreadable --config is an error */
	cfg_init(&cfg, fs);
	assert_true(BUILD(&cfg, &o, &e, "--config", "none.conf", "true") < 0);
	expect_msg(&e, "cannot read none.conf");
	jr_config_release(&cfg);
}

/* "ask tty" in a file is --ask tty; "--ask tty" on the command line does
 * not end the walk of the options (conffile.c's scan): a walk that took
 * "tty" for the command would miss the command line's --user and trip
 * "given twice" on the file's. */
static void test_ask_tty(void **state)
{
	static const struct memfile fs[] = {
		{ "a.conf", "allow a.test\nask tty\nuser nobody\n" },
		{ "b.conf", "allow a.test\nask maybe\n" },
		{ NULL, NULL },
	};
	struct jr_config cfg;
	struct jr_options o;
	struct jr_err e = { 0 };

	(void)state;
	cfg_init(&cfg, fs);
	assert_int_equal(BUILD(&cfg, &o, &e, "--config", "a.conf", "true"), 0);
	assert_true(o.ask_tty);
	assert_string_equal(o.user, "nobody");
	assert_string_equal(o.command[0], "true");
	jr_options_release(&o);
	jr_config_release(&cfg);

	cfg_init(&cfg, fs);
	assert_int_equal(BUILD(&cfg, &o, &e, "--config", "a.conf", "--ask",
			       "tty", "--user", "root", "--", "true"),
			 0);
	assert_true(o.ask_tty);
	assert_string_equal(o.user, "root");
	jr_options_release(&o);
	jr_config_release(&cfg);

	cfg_init(&cfg, fs);
	assert_true(BUILD(&cfg, &o, &e, "--config", "b.conf", "true") < 0);
	expect_msg(&e, "ask is a flag");
	jr_config_release(&cfg);
}

/*
 * Options that need another (--control and --ask need an allowlist and
 * each other, --inspect and --allow-private need --allow): each line of a
 * file was checked alone against those rules, so none of them could be
 * set in a file at all. The rules hold for the merged settings.
 */
static void test_rules_between_lines(void **state)
{
	static const struct memfile fs[] = {
		{ "r.conf", "allow a.test\ninspect a.test\n"
			    "control /run/x.sock\nask\n"
			    "allow-private 10.0.0.0/8\n" },
		{ "c.conf", "control /run/x.sock\n" },
		{ "a.conf", "allow a.test\n" },
		{ NULL, NULL },
	};
	struct jr_config cfg;
	struct jr_options o;
	struct jr_err e = { 0 };

	(void)state;
	cfg_init(&cfg, fs);
	assert_int_equal(BUILD(&cfg, &o, &e, "--config", "r.conf", "true"), 0);
	assert_int_equal(o.setup_err.code, 0);
	assert_true(o.ask);
	assert_string_equal(o.control_path, "/run/x.sock");
	jr_options_release(&o);
	jr_config_release(&cfg);

	/* The rest from another file, or from the command line */
	cfg_init(&cfg, fs);
	assert_int_equal(BUILD(&cfg, &o, &e, "--config", "c.conf", "--config",
			       "a.conf", "true"),
			 0);
	assert_int_equal(o.setup_err.code, 0);
	jr_options_release(&o);
	jr_config_release(&cfg);
	cfg_init(&cfg, fs);
	assert_int_equal(BUILD(&cfg, &o, &e, "--config", "c.conf", "--allow",
			       "b.test", "true"),
			 0);
	assert_int_equal(o.setup_err.code, 0);
	jr_options_release(&o);
	jr_config_release(&cfg);

	/* ... and without it, the rule still holds, on the merged run */
	cfg_init(&cfg, fs);
	if (BUILD(&cfg, &o, &e, "--config", "c.conf", "true") == 0) {
		assert_int_not_equal(o.setup_err.code, 0);
		expect_msg(&o.setup_err, "need --net allowlist");
		jr_options_release(&o);
	} else {
		expect_msg(&e, "need --net allowlist");
	}
	jr_config_release(&cfg);
}

static void test_overlap(void **state)
{
	static const struct {
		const char *a, *b;
		bool overlap;
	} cases[] = {
		{ "api.example.com", "*.example.com", true },
		{ "example.com", "*.example.com", false }, /* the apex */
		{ "*.example.com", "api.example.com", true },
		{ "*.a.example.com", "*.example.com", true },
		{ "*.example.com", "*.example.com", true },
		{ "*.example.org", "*.example.com", false },
		{ "x.com", "x.com:22", true },
		{ "x.com:443", "x.com:22", false },
		{ "x.com:22", "x.com:22", true },
		{ "notexample.com", "*.example.com", false },
		{ "192.0.2.7", "192.0.2.0/24", true },
		{ "192.0.2.0/23", "192.0.2.128/25", true },
		{ "192.0.3.0/24", "192.0.2.0/24", false },
		{ "2001:db8::1", "2001:db8::/32", true },
		{ "192.0.2.7", "2001:db8::/32", false },
		{ "example.com", "192.0.2.0/24", false }, /* decided later */
	};

	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		struct jr_policy p;
		struct jr_err e = { 0 };

		jr_policy_init(&p);
		assert_int_equal(jr_policy_add(&p, cases[i].a, &e), 0);
		assert_int_equal(jr_policy_add(&p, cases[i].b, &e), 0);
		if (jr_allow_entries_overlap(&p.entries[0], &p.entries[1]) !=
			cases[i].overlap ||
		    jr_allow_entries_overlap(&p.entries[1], &p.entries[0]) !=
			cases[i].overlap)
			fail_msg("%s vs %s: want overlap=%d", cases[i].a,
				 cases[i].b, cases[i].overlap);
		jr_policy_free(&p);
	}
}

static const char policy_text[] = "# managed\n"
				  "deny *.example.com\n"
				  "deny 10.0.0.0/8\n"
				  "require seccomp on\n"
				  "require net allowlist|none\n";

static void test_managed_deny(void **state)
{
	static const struct memfile fs[] = {
		{ "p.conf", "allow api.example.com\n" },
		{ NULL, NULL },
	};
	struct jr_config cfg;
	struct jr_options o;
	struct jr_policy p;
	struct jr_err e = { 0 };

	cfg_init(&cfg, fs);
	assert_int_equal(jr_managed_parse_text(&cfg.managed, "/etc/pol",
					       policy_text, strlen(policy_text),
					       &e),
			 0);
	assert_int_equal(BUILD(&cfg, &o, &e, "--config", "p.conf", "--allow",
			       "ok.test", "true"),
			 0);
	jr_policy_init(&p);
	for (size_t i = 0; i < o.n_allow; i++)
		assert_int_equal(jr_policy_add(&p, o.allow[i], &e), 0);
	/* both named, with their origins */
	assert_int_equal(jr_config_check_allow(&cfg, &p, &e), -EPERM);
	expect_msg(&e, "allow api.example.com (p.conf:1)");
	expect_msg(&e, "'deny *.example.com' (/etc/pol:2)");
	jr_policy_free(&p);

	/* at decision time too (what resolution or a live addition brings) */
	jr_policy_init(&p);
	assert_int_equal(jr_policy_add(&p, "ok.test", &e), 0);
	assert_int_equal(jr_policy_add(&p, "*.example.com", &e), 0);
	p.deny = &cfg.managed.deny;
	assert_int_equal(jr_policy_check_name(&p, "ok.test", 443), JR_ALLOWED);
	assert_int_equal(jr_policy_check_name(&p, "a.example.com", 443),
			 JR_DENY_MANAGED);
	assert_false(jr_policy_name_allowed(&p, "a.example.com"));
	assert_string_equal(jr_deny_reason_name(JR_DENY_MANAGED),
			    "managed-deny");
	{
		struct sockaddr_in sin = { .sin_family = AF_INET };

		sin.sin_addr.s_addr = htonl(0x0a000001); /* 10.0.0.1 */
		assert_int_equal(
		    jr_policy_check_address(&p, (struct sockaddr *)&sin, 443),
		    JR_DENY_MANAGED);
	}
	jr_policy_free(&p);
	jr_options_release(&o);
	jr_config_release(&cfg);
}

static void test_managed_deny_port_any(void **state)
{
	struct jr_managed m;
	struct jr_policy p;
	struct jr_err e = { 0 };
	const char *t = "deny x.test:22\n";

	jr_managed_init(&m);
	assert_int_equal(jr_managed_parse_text(&m, "pol", t, strlen(t), &e), 0);
	jr_policy_init(&p);
	assert_int_equal(jr_policy_add(&p, "x.test:443", &e), 0);
	p.deny = &m.deny;
	/* a deny of port 22 must not hide x.test from DNS */
	assert_true(jr_policy_name_allowed(&p, "x.test"));
	assert_int_equal(jr_policy_check_name(&p, "x.test", 22),
			 JR_DENY_MANAGED);
	assert_int_equal(jr_policy_check_name(&p, "x.test", 443), JR_ALLOWED);
	jr_policy_free(&p);
	jr_managed_release(&m);
}

/*
 * A host lane (--lane ADDR:PORT) is connected without asking the policy,
 * so the managed denies are asked at start (issue 21: a lane reached an
 * address the managed policy denied). Address and port as at decision
 * time, IPv4-carrying IPv6 forms as their IPv4 address; the message names
 * the lane with its origin and the deny with its line.
 */
static void test_managed_deny_lanes(void **state)
{
	static const char t[] = "deny 127.0.0.0/8\n"
				"deny ::1\n"
				"deny 192.0.2.7:22\n"
				"deny *.example.com\n";
	static const struct memfile fs[] = {
		{ "l.conf", "lane 127.0.0.53:4000\n" },
		{ NULL, NULL },
	};
	static const struct {
		const char *lane;
		bool refused;
		const char *deny;
	} cases[] = {
		{ "127.0.0.1:8080", true, "'deny 127.0.0.0/8' (/etc/pol:1)" },
		{ "[::ffff:127.0.0.1]:8080", true, "'deny 127.0.0.0/8'" },
		{ "[::1]:4000", true, "'deny ::1' (/etc/pol:2)" },
		{ "192.0.2.7:22", true, "'deny 192.0.2.7:22' (/etc/pol:3)" },
		{ "192.0.2.7:2222", false, NULL },
		{ "[::2]:4000", false, NULL },
		{ "198.51.100.1:80", false, NULL },
		/* a name lane is an allow entry: the allowlist's check */
		{ "api.example.com:443", false, NULL },
	};
	struct jr_config cfg;
	struct jr_options o;
	struct jr_err e = { 0 };

	(void)state;
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		char lane[64];

		snprintf(lane, sizeof(lane), "%s", cases[i].lane);
		cfg_init(&cfg, fs);
		assert_int_equal(jr_managed_parse_text(&cfg.managed, "/etc/pol",
						       t, strlen(t), &e),
				 0);
		assert_int_equal(BUILD(&cfg, &o, &e, "--lane", lane, "true"),
				 0);
		if (cases[i].refused) {
			char want[128];

			assert_int_equal(
			    jr_config_check_lanes(&cfg, &o.lanes, &e), -EPERM);
			snprintf(want, sizeof(want), "lane %s (command line)",
				 cases[i].lane);
			expect_msg(&e, want);
			expect_msg(&e, cases[i].deny);
		} else if (jr_config_check_lanes(&cfg, &o.lanes, &e) != 0) {
			fail_msg("--lane %s refused: %s", cases[i].lane, e.msg);
		}
		jr_options_release(&o);
		jr_config_release(&cfg);
	}
	/* from a file: the file's line is the lane's origin */
	cfg_init(&cfg, fs);
	assert_int_equal(
	    jr_managed_parse_text(&cfg.managed, "/etc/pol", t, strlen(t), &e),
	    0);
	assert_int_equal(BUILD(&cfg, &o, &e, "--config", "l.conf", "true"), 0);
	assert_int_equal(jr_config_check_lanes(&cfg, &o.lanes, &e), -EPERM);
	expect_msg(&e, "lane 127.0.0.53:4000 (l.conf:1) is refused");
	jr_options_release(&o);
	jr_config_release(&cfg);
	/* a name lane's allow check names it as the lane it is */
	{
		struct jr_policy p;

		cfg_init(&cfg, NULL);
		assert_int_equal(jr_managed_parse_text(&cfg.managed, "/etc/pol",
						       t, strlen(t), &e),
				 0);
		assert_int_equal(BUILD(&cfg, &o, &e, "--lane",
				       "api.example.com:443", "true"),
				 0);
		jr_policy_init(&p);
		assert_int_equal(jr_policy_add(&p, o.lanes.lane[0].text, &e),
				 0);
		assert_int_equal(jr_config_check_allow(&cfg, &p, &e), -EPERM);
		expect_msg(&e, "lane api.example.com:443 (command line)");
		expect_msg(&e, "'deny *.example.com' (/etc/pol:4)");
		jr_policy_free(&p);
		jr_options_release(&o);
		jr_config_release(&cfg);
	}
	/* no managed policy: nothing to check */
	cfg_init(&cfg, NULL);
	assert_int_equal(BUILD(&cfg, &o, &e, "--lane", "127.0.0.1:1", "true"),
			 0);
	assert_int_equal(jr_config_check_lanes(&cfg, &o.lanes, &e), 0);
	jr_options_release(&o);
	jr_config_release(&cfg);
}

static void test_managed_require(void **state)
{
	struct jr_config cfg;
	struct jr_options o;
	struct jr_err e = { 0 };

	cfg_init(&cfg, NULL);
	assert_int_equal(jr_managed_parse_text(&cfg.managed, "/etc/pol",
					       policy_text, strlen(policy_text),
					       &e),
			 0);
	assert_true(BUILD(&cfg, &o, &e, "--seccomp", "off", "true") < 0);
	expect_msg(
	    &e,
	    "requires seccomp on (/etc/pol:4), but it is off (command line)");
	jr_config_release(&cfg);

	cfg_init(&cfg, NULL);
	assert_int_equal(jr_managed_parse_text(&cfg.managed, "/etc/pol",
					       policy_text, strlen(policy_text),
					       &e),
			 0);
	assert_int_equal(BUILD(&cfg, &o, &e, "true"), 0); /* defaults pass */
	jr_options_release(&o);
	jr_config_release(&cfg);

	/* an option that is not set at all does not meet a require */
	cfg_init(&cfg, NULL);
	{
		const char *t = "require user nobody|root\n";

		assert_int_equal(jr_managed_parse_text(&cfg.managed, "pol", t,
						       strlen(t), &e),
				 0);
	}
	assert_true(BUILD(&cfg, &o, &e, "true") < 0);
	expect_msg(&e, "but it is not set (default)");
	jr_config_release(&cfg);
	cfg_init(&cfg, NULL);
	{
		const char *t = "require user nobody|root\n";

		assert_int_equal(jr_managed_parse_text(&cfg.managed, "pol", t,
						       strlen(t), &e),
				 0);
	}
	assert_int_equal(BUILD(&cfg, &o, &e, "--user", "root", "true"), 0);
	jr_options_release(&o);
	jr_config_release(&cfg);
}

static void test_managed_bad_lines(void **state)
{
	static const struct {
		const char *text, *needle;
	} cases[] = {
		{ "allow x.test\n", "pol:1: unknown keyword 'allow'" },
		{ "deny foo.*.com\n", "pol:1: deny:" },
		{ "require seccomp\n", "pol:1: require needs an option" },
		{ "require frob on\n", "pol:1: require frob: not an option" },
		{ "require help yes\n", "pol:1: require help: not an option" },
		{ "require seccomp maybe\n",
		  "pol:1: require seccomp: --seccomp maybe" },
		{ "require net allowlist||none\n", "an empty value" },
		{ "require allow-nested on\n", "allow-nested is a flag" },
		{ "\n\ndeny\n", "pol:3: deny needs a value" },
	};

	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		struct jr_managed m;
		struct jr_err e = { 0 };

		jr_managed_init(&m);
		assert_true(jr_managed_parse_text(&m, "pol", cases[i].text,
						  strlen(cases[i].text),
						  &e) < 0);
		expect_msg(&e, cases[i].needle);
		jr_managed_release(&m);
	}
}

static void test_print_config(void **state)
{
	static const struct memfile fs[] = {
		{ "p.conf", "allow a.test\ntimeout 3\nrw \"/x #y\"\n" },
		{ NULL, NULL },
	};
	struct jr_config cfg;
	struct jr_options o;
	struct jr_err e = { 0 };
	char *out = NULL;
	size_t len = 0;
	FILE *f;

	cfg_init(&cfg, fs);
	assert_int_equal(jr_managed_parse_text(&cfg.managed, "/etc/pol",
					       policy_text, strlen(policy_text),
					       &e),
			 0);
	assert_int_equal(BUILD(&cfg, &o, &e, "--config", "p.conf",
			       "--print-config", "--allow", "b.test"),
			 0);
	assert_int_equal(o.action, JR_ACTION_PRINT_CONFIG);
	f = open_memstream(&out, &len);
	assert_non_null(f);
	jr_config_print(&cfg, &o, NULL, f);
	fclose(f);
	if (!strstr(out, "allow a.test\t# p.conf:1\n") ||
	    !strstr(out, "allow b.test\t# command line\n") ||
	    !strstr(out, "timeout 3\t# p.conf:2\n") ||
	    !strstr(
		out,
		"rw \"/x #y\"\t# p.conf:3; MISSING: /x #y does not exist\n") ||
	    !strstr(out, "seccomp on\t# default\n") ||
	    !strstr(out, "net allowlist\t# default (allow entries given)\n") ||
	    !strstr(out,
		    "deny *.example.com\t# /etc/pol:2 (managed policy)\n") ||
	    !strstr(out, "require net allowlist|none\t# /etc/pol:5"))
		fail_msg("--print-config output:\n%s", out);
	/* its output reads back as a file */
	{
		struct jr_config again;

		cfg_init(&again, NULL);
		if (jr_config_parse_text(&again, "out", out, len, &e) == 0)
			fail_msg("deny lines are the managed policy's only");
		jr_config_release(&again);
	}
	free(out);
	jr_options_release(&o);
	jr_config_release(&cfg);
}

/* A typo gets the keyword (or option) it most likely meant. */
static void test_did_you_mean(void **state)
{
	static const struct {
		const char *text, *needle;
	} cases[] = {
		{ "alow a.test\n",
		  "f.conf:1: unknown keyword 'alow': did you mean 'allow'?" },
		{ "timout 3\n", "did you mean 'timeout'?" },
		{ "allowfile x\n", "did you mean 'allow-file'?" },
		{ "wr /x\n", "did you mean 'rw'?" },
		{ "inclde x.conf\n", "did you mean 'include'?" },
		{ "allow=a.test\n",
		  "f.conf:1: a keyword and its value are separated by white space, not '=' or ':': write the keyword, a space, then the value" },
		{ "allow: a.test\n",
		  "write the keyword, a space, then the value" },
	};
	struct jr_options o;
	struct jr_err e = { 0 };

	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		struct jr_config cfg;

		cfg_init(&cfg, NULL);
		assert_true(jr_config_parse_text(&cfg, "f.conf", cases[i].text,
						 strlen(cases[i].text),
						 &e) < 0);
		expect_msg(&e, cases[i].needle);
		jr_config_release(&cfg);
	}
	/* nothing near: no guess */
	{
		struct jr_config cfg;

		cfg_init(&cfg, NULL);
		assert_true(jr_config_parse_text(&cfg, "f.conf",
						 "frobnicate 1\n", 13, &e) < 0);
		assert_null(strstr(e.msg, "did you mean"));
		jr_config_release(&cfg);
	}
	assert_string_equal(jr_options_suggest("seccom", NULL), "seccomp");
	assert_string_equal(jr_options_suggest("lnae", NULL), "lane");
	assert_null(jr_options_suggest("xyz", NULL));
	assert_null(jr_options_suggest("publicity", NULL));
	/* the command line too */
	assert_true(jr_options_parse(4,
				     (char *[]){ "jailrun", "--alow=a.test",
						 "--", "true", NULL },
				     &o, &e) < 0);
	expect_msg(&e, "unknown option '--alow=a.test'; did you mean --allow?");
	assert_true(jr_options_parse(
			3,
			(char *[]){ "jailrun", "--qwertyuiop", "true", NULL },
			&o, &e) < 0);
	assert_null(strstr(e.msg, "did you mean"));
}

/* "~" and "$HOME" at the start of a path value are the caller's home. */
static void test_home_expansion(void **state)
{
	static const struct memfile fs[] = {
		{ "/h/me/inc.conf", "ro ~/inc\n" },
		{ NULL, NULL },
	};
	static const char text[] = "rw ~/.npm\n"
				   "ro $HOME\n"
				   "hide ${HOME}/.aws\n"
				   "tmpfs ~\n"
				   "workdir ~/proj\n"
				   "allow-file $HOME/allow.txt\n"
				   "log ~/jr.log\n"
				   "json ~/jr.json\n"
				   "expose ~/sock\n"
				   "rw /a/~/b\n"
				   "ro $HOMER/x\n"
				   "deny-message ~/not-a-path\n"
				   "setenv npm_config_cache=~/.npm\n"
				   "setenv GOCACHE=$HOME\n"
				   "setenv X=a~/b\n"
				   "include ~/inc.conf\n";
	static const char *const want[][2] = {
		{ "rw", "/h/me/.npm" },
		{ "ro", "/h/me" },
		{ "hide", "/h/me/.aws" },
		{ "tmpfs", "/h/me" },
		{ "workdir", "/h/me/proj" },
		{ "allow-file", "/h/me/allow.txt" },
		{ "log", "/h/me/jr.log" },
		{ "json", "/h/me/jr.json" },
		{ "expose", "/h/me/sock" },
		{ "rw", "/a/~/b" },
		{ "ro", "$HOMER/x" },
		{ "deny-message", "~/not-a-path" },
		/* a setenv value is a path for a tool: expanded the same way */
		{ "setenv", "npm_config_cache=/h/me/.npm" },
		{ "setenv", "GOCACHE=/h/me" },
		{ "setenv", "X=a~/b" },
		{ "ro", "/h/me/inc" },
	};
	_cleanup_free_ char *saved =
	    getenv("HOME") ? strdup(getenv("HOME")) : NULL;
	struct jr_config cfg;
	struct jr_err e = { 0 };

	setenv("HOME", "/h/me", 1);
	cfg_init(&cfg, fs);
	if (jr_config_parse_text(&cfg, "f.conf", text, strlen(text), &e) < 0)
		fail_msg("%s", e.msg);
	assert_int_equal(cfg.n, sizeof(want) / sizeof(want[0]));
	for (size_t i = 0; i < cfg.n; i++) {
		assert_string_equal(cfg.set[i].name, want[i][0]);
		assert_string_equal(cfg.set[i].value, want[i][1]);
	}
	jr_config_release(&cfg);
	/* ~USER is not expanded: said, not taken as a relative path */
	cfg_init(&cfg, NULL);
	assert_true(
	    jr_config_parse_text(&cfg, "f.conf", "rw ~bob/x\n", 10, &e) < 0);
	expect_msg(&e, "f.conf:1: rw ~bob/x: only '~' and '~/' are expanded");
	jr_config_release(&cfg);
	if (saved)
		setenv("HOME", saved, 1);
	else
		unsetenv("HOME");
}

/* --print-config: the runner's user and workdir, and missing paths. */
static void test_print_config_effective(void **state)
{
	struct jr_config_effective eff = { .user = "nobody",
					   .user_note = "uid 65534 inside",
					   .workdir = "/" };
	struct jr_config cfg;
	struct jr_options o;
	struct jr_err e = { 0 };
	char *out = NULL;
	size_t len = 0, missing;
	FILE *f;

	cfg_init(&cfg, NULL);
	assert_int_equal(BUILD(&cfg, &o, &e, "--print-config", "--rw",
			       "/nonexistent-jr/a", "--ro", "/", "--log",
			       "/nonexistent-jr/x.log", "--json", "/tmp/x.json",
			       "--hide", "/nonexistent-jr/h"),
			 0);
	f = open_memstream(&out, &len);
	assert_non_null(f);
	missing = jr_config_print(&cfg, &o, &eff, f);
	fclose(f);
	if (!strstr(out, "user nobody\t# default (uid 65534 inside)\n") ||
	    !strstr(out, "workdir /\t# default (the current directory)\n") ||
	    !strstr(out, "gateway 100.64.77.1/30\t# default\n") ||
	    !strstr(
		out,
		"rw /nonexistent-jr/a\t# command line; MISSING: /nonexistent-jr/a does not exist\n") ||
	    !strstr(out, "ro /\t# command line\n") ||
	    !strstr(
		out,
		"log /nonexistent-jr/x.log\t# command line; MISSING: its directory /nonexistent-jr does not exist\n") ||
	    !strstr(out, "json /tmp/x.json\t# command line\n") ||
	    !strstr(out, "hide /nonexistent-jr/h\t# command line\n"))
		fail_msg("--print-config output:\n%s", out);
	assert_int_equal(missing, 2);
	free(out);
	jr_options_release(&o);
	jr_config_release(&cfg);
}

/* --print-config: a missing --rw/--tmpfs below HOME is created by a run,
 * so it is said so, not counted MISSING; outside HOME it is. */
static void test_print_config_created(void **state)
{
	struct jr_config_effective eff = { .user = "nobody", .workdir = "/" };
	_cleanup_free_ char *saved =
	    getenv("HOME") ? strdup(getenv("HOME")) : NULL;
	struct jr_config cfg;
	struct jr_options o;
	struct jr_err e = { 0 };
	char *out = NULL;
	size_t len = 0, missing;
	FILE *f;

	setenv("HOME", "/nonexistent-jr-home", 1);
	cfg_init(&cfg, NULL);
	assert_int_equal(BUILD(&cfg, &o, &e, "--print-config", "--rw",
			       "/nonexistent-jr-home/.npm", "--tmpfs",
			       "/nonexistent-jr-home/.cache/x", "--rw",
			       "/nonexistent-jr-home/../x"),
			 0);
	f = open_memstream(&out, &len);
	assert_non_null(f);
	missing = jr_config_print(&cfg, &o, &eff, f);
	fclose(f);
	if (!strstr(
		out,
		"rw /nonexistent-jr-home/.npm\t# command line; created (0700) when the run starts\n") ||
	    !strstr(
		out,
		"tmpfs /nonexistent-jr-home/.cache/x\t# command line; created (0700) when the run starts\n") ||
	    !strstr(out,
		    "rw /nonexistent-jr-home/../x\t# command line; MISSING"))
		fail_msg("--print-config output:\n%s", out);
	assert_int_equal(missing, 1);
	free(out);
	jr_options_release(&o);
	jr_config_release(&cfg);
	if (saved)
		setenv("HOME", saved, 1);
	else
		unsetenv("HOME");
}

/* Every option in the getopt table has its keyword in jailrun.conf(5). */
static void test_man_page_lists_every_keyword(void **state)
{
	const char *top = getenv("JR_TOP_SRCDIR");
	char path[4096], *text = NULL, needle[128];
	size_t len = 0;
	FILE *f;

	if (!top)
		top = ".";
	snprintf(path, sizeof(path), "%s/man/jailrun.conf.5", top);
	f = fopen(path, "re");
	if (!f)
		fail_msg("cannot read %s (set JR_TOP_SRCDIR)", path);
	text = calloc(1, 1 << 20);
	assert_non_null(text);
	len = fread(text, 1, (1 << 20) - 1, f);
	fclose(f);
	assert_true(len > 0);
	for (const struct option *o = jr_options_long_table(); o->name; o++) {
		if (!strcmp(o->name, "help") || !strcmp(o->name, "version") ||
		    !strcmp(o->name, "check") || !strcmp(o->name, "config") ||
		    !strcmp(o->name, "profile") ||
		    !strcmp(o->name, "print-config"))
			continue;
		/* roff escapes '-' as "\-" */
		char esc[100];
		size_t k = 0;

		for (const char *c = o->name; *c && k < sizeof(esc) - 2; c++) {
			if (*c == '-')
				esc[k++] = '\\';
			esc[k++] = *c;
		}
		esc[k] = '\0';
		snprintf(needle, sizeof(needle), ".It Cm %s", esc);
		if (!strstr(text, needle)) {
			snprintf(needle, sizeof(needle), "\n.B %s\n", esc);
			if (!strstr(text, needle))
				fail_msg(
				    "keyword '%s' (--%s) is missing from man/jailrun.conf.5 (add a '.B %s' entry)",
				    o->name, o->name, esc);
		}
	}
	free(text);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_split),
		cmocka_unit_test(test_bad_lines_name_file_and_line),
		cmocka_unit_test(test_include_relative_loop_depth),
		cmocka_unit_test(test_include_depth_bound),
		cmocka_unit_test(test_merge),
		cmocka_unit_test(test_ask_tty),
		cmocka_unit_test(test_rules_between_lines),
		cmocka_unit_test(test_overlap),
		cmocka_unit_test(test_managed_deny),
		cmocka_unit_test(test_managed_deny_port_any),
		cmocka_unit_test(test_managed_deny_lanes),
		cmocka_unit_test(test_managed_require),
		cmocka_unit_test(test_managed_bad_lines),
		cmocka_unit_test(test_print_config),
		cmocka_unit_test(test_did_you_mean),
		cmocka_unit_test(test_home_expansion),
		cmocka_unit_test(test_print_config_effective),
		cmocka_unit_test(test_print_config_created),
		cmocka_unit_test(test_man_page_lists_every_keyword),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
