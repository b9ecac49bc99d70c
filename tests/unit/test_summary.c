// SPDX-License-Identifier: GPL-2.0-or-later
/* Unit tests for summary.c: the --json contract, field by field. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "options.h"
#include "summary.h"
#include "cleanup.h"

static void test_exited(void **state)
{
	char *const cmd[] = { "sh", "-c", "exit \"3\"", NULL };
	struct jr_summary s = {
		.run_id = "00112233445566778899aabbccddeeff",
		.started_unix_ms = 1795953600123ULL,
		.ended_unix_ms = 1795953601000ULL,
		.command = cmd,
		.command_argc = 3,
		.ended = JR_END_EXITED,
		.exit_status = 3,
		.wall_ms = 42,
		.net_mode = "hermetic",
		.rules_verified = true,
		.nft_chains = 3,
		.nft_rules = 2,
		.uid = 65534,
		.gid = 65534,
		.host_uid = 65534,
		.host_gid = 65534,
		.rootless = false,
	};
	char *out = NULL;

	assert_int_equal(jr_summary_to_json(&s, &out), 0);
	assert_string_equal(
	    out,
	    "{\"version\":1,\"jailrun_version\":\"" PACKAGE_VERSION "\","
	    "\"run_id\":\"00112233445566778899aabbccddeeff\",\"label\":null,"
	    "\"started_at\":\"2026-11-29T12:00:00.123Z\","
	    "\"ended_at\":\"2026-11-29T12:00:01.000Z\","
	    "\"command\":[\"sh\",\"-c\",\"exit \\\"3\\\"\"],"
	    "\"exit_status\":3,\"ended\":\"exited\",\"signal\":null,"
	    "\"limits_hit\":[],\"wall_time_ms\":42,"
	    "\"namespaces\":[\"user\",\"net\",\"pid\",\"mnt\",\"ipc\",\"uts\"],"
	    "\"network\":{\"mode\":\"hermetic\",\"rules_verified\":true,\"nft_chains\":3,\"nft_rules\":2,"
	    "\"firewall_refused\":0,\"allow_entries\":0,\"allowed\":0,\"denied\":0,\"denied_destinations\":[],"
	    "\"synthetic_names\":0,\"control_changes\":0,\"http_rule_denied\":0,"
	    "\"ask\":{\"approved\":0,\"denied\":0,\"timed_out\":0},"
	    "\"tamper_events\":0,\"restores\":0,\"max_restore_us\":0},"
	    "\"user\":{\"uid\":65534,\"gid\":65534,\"host_uid\":65534,\"host_gid\":65534,\"rootless\":false},"
	    "\"filesystem\":null,"
	    "\"error\":null,\"startup_us\":null,\"teardown_us\":null,\"limits\":null,"
	    "\"policy\":null}\n");
	free(out);
}

/* The "filesystem" object: mode, the writable roots only (not --ro,
 * --tmpfs or --expose), those idmapped, the hidden count, the tmpfs size, landlock null
 * until that layer reports. */
static void test_filesystem(void **state)
{
	char *const cmd[] = { "x", NULL };
	struct jr_fs_op ops[] = {
		{ .kind = JR_FS_OP_RW, .path = "/work", .idmap_fd = -1 },
		{ .kind = JR_FS_OP_RO, .path = "/work/ro", .idmap_fd = -1 },
		{ .kind = JR_FS_OP_TMPFS,
		  .path = "/work/cache",
		  .idmap_fd = -1 },
		{ .kind = JR_FS_OP_RW,
		  .path = "/data",
		  .idmap_fd = 7 /* an idmapped clone */ },
		{ .kind = JR_FS_OP_EXPOSE,
		  .path = "/run/x.sock",
		  .idmap_fd = -1 },
	};
	struct jr_fs_plan fs = {
		.mode = JR_FS_ISOLATED,
		.ops = ops,
		.n_ops = 5,
		.n_hidden = 7,
		.tmpfs_size = 1048576,
	};
	struct jr_summary s = { .command = cmd,
				.command_argc = 1,
				.net_mode = "hermetic",
				.fs = &fs };
	char *out = NULL;

	assert_int_equal(jr_summary_to_json(&s, &out), 0);
	assert_non_null(strstr(
	    out,
	    "\"filesystem\":{\"mode\":\"isolated\",\"writable\":[\"/work\","
	    "\"/data\"],\"idmapped\":[\"/data\"],\"hidden\":7,"
	    "\"tmpfs_size\":1048576,"
	    "\"git_quarantined\":0,\"landlock\":null},"));
	free(out);
	s.landlock_abi = 6;
	assert_int_equal(jr_summary_to_json(&s, &out), 0);
	assert_non_null(strstr(out, "\"git_quarantined\":0,\"landlock\":6},"));
	free(out);
	fs.mode = JR_FS_HOST;
	assert_int_equal(jr_summary_to_json(&s, &out), 0);
	assert_non_null(strstr(out, "\"filesystem\":{\"mode\":\"host\","
				    "\"writable\":[],"));
	free(out);
}

static void test_signaled_and_failed(void **state)
{
	char *const cmd[] = { "x", NULL };
	struct jr_summary s = {
		.command = cmd,
		.command_argc = 1,
		.ended = JR_END_SIGNALED,
		.exit_status = 137,
		.signal = 9,
		.net_mode = "hermetic",
	};
	char *out = NULL;

	assert_int_equal(jr_summary_to_json(&s, &out), 0);
	assert_non_null(strstr(out, "\"ended\":\"signaled\",\"signal\":9"));
	free(out);

	s.ended = JR_END_SETUP_FAILED;
	s.exit_status = 125;
	s.error = "cannot write the sandbox uid_map: Operation not permitted";
	assert_int_equal(jr_summary_to_json(&s, &out), 0);
	assert_non_null(
	    strstr(out, "\"ended\":\"setup-failed\",\"signal\":null"));
	assert_non_null(strstr(out, "\"rules_verified\":false"));
	assert_non_null(
	    strstr(out, "\"error\":\"cannot write the sandbox uid_map"));
	free(out);
}

static void test_relay_counts(void **state)
{
	char *const cmd[] = { "agent", NULL };
	struct jr_audit a;
	struct jr_err e = { 0 };
	struct jr_audit_record d = { .via = "proxy",
				     .host = "denied.test",
				     .port = 443 };
	struct jr_audit_record ok = {
		.via = "proxy", .host = "ok.test", .port = 443, .allowed = true
	};
	struct jr_summary s = {
		.command = cmd,
		.command_argc = 1,
		.net_mode = "allowlist",
		.audit = &a,
		.allow_entries = 2,
	};
	char *out = NULL;

	assert_int_equal(jr_audit_open(&a, NULL, -1, NULL, &e), 0);
	jr_audit_connection(&a, &d);
	jr_audit_connection(&a, &d);
	jr_audit_connection(&a, &ok);
	assert_int_equal(jr_summary_to_json(&s, &out), 0);
	assert_non_null(strstr(
	    out,
	    "\"allow_entries\":2,\"allowed\":1,\"denied\":2,"
	    "\"denied_destinations\":[{\"destination\":\"denied.test:443\",\"count\":2}],"
	    "\"synthetic_names\":0,"));
	free(out);
	a.synthetic_names = 7; /* what the relay leaves when it stops */
	assert_int_equal(jr_summary_to_json(&s, &out), 0);
	assert_non_null(strstr(out, "\"synthetic_names\":7,"));
	free(out);
	a.control_changes = 3; /* likewise, with --control */
	a.ask_approved = 4;    /* and with --ask */
	a.ask_denied = 5;
	a.ask_timed_out = 6;
	assert_int_equal(jr_summary_to_json(&s, &out), 0);
	assert_non_null(strstr(out, "\"control_changes\":3,"));
	free(out);
	/* Refusals by the HTTP rules, whichever of their three reasons; a
	 * not-allowed or secret refusal is not one. */
	{
		static const char *const reasons[] = {
			"http-rule", "http-path", "http-rules-need-inspection",
			"secret-misuse", "not-allowed"
		};

		for (size_t i = 0; i < ARRAY_SIZE(reasons); i++) {
			d.reason = reasons[i];
			jr_audit_connection(&a, &d);
		}
	}
	assert_int_equal(jr_summary_to_json(&s, &out), 0);
	assert_non_null(strstr(out, "\"control_changes\":3,"
				    "\"http_rule_denied\":3,"
				    "\"ask\":{\"approved\":4,\"denied\":5,"
				    "\"timed_out\":6},"));
	free(out);
	jr_audit_close(&a);
}

/*
 * "firewall_refused": the packets the nft counters counted, 0 when no
 * sandbox was made, and null (never 0) when they were there but could not
 * be read. Fails if the field is missing, misplaced or lies about a failed
 * read.
 */
static void test_firewall_refused(void **state)
{
	char *const cmd[] = { "agent", NULL };
	struct jr_summary s = {
		.command = cmd,
		.command_argc = 1,
		.net_mode = "allowlist",
		.nft_rules = 9,
		.firewall_refused = 5,
	};
	char *out = NULL;

	(void)state;
	assert_int_equal(jr_summary_to_json(&s, &out), 0);
	assert_non_null(strstr(out, "\"nft_rules\":9,\"firewall_refused\":5,"));
	free(out);
	s.firewall_refused_unread = true;
	assert_int_equal(jr_summary_to_json(&s, &out), 0);
	assert_non_null(strstr(out, "\"firewall_refused\":null,"));
	free(out);
}

/* A finished start-up: every phase by its documented name, in order. */
static void test_startup_phases(void **state)
{
	char *const cmd[] = { "true", NULL };
	struct jr_startup st = { .complete = true,
				 .total_us = 9000,
				 .teardown_us = 77 };
	struct jr_summary s = {
		.command = cmd,
		.command_argc = 1,
		.net_mode = "allowlist",
		.startup = &st,
	};
	char *out = NULL;

	for (int p = 0; p < JR_PHASE_COUNT; p++)
		st.us[p] = 100 + (uint64_t)p;
	assert_int_equal(jr_summary_to_json(&s, &out), 0);
	assert_non_null(
	    strstr(out, "\"error\":null,\"startup_us\":{\"prepare\":100,"
			"\"seccomp\":101,\"clone\":102,\"maps\":103,"
			"\"mounts\":104,\"init_setup\":105,\"relaynet\":106,"
			"\"nft\":107,\"relay\":108,\"selfcheck\":109,"
			"\"exec\":110,\"parallel\":0,"
			"\"total\":9000},\"teardown_us\":77,\"limits\":null,"
			"\"policy\":null}\n"));
	free(out);

	/* The command never started: no total, so no breakdown either. */
	st.complete = false;
	assert_int_equal(jr_summary_to_json(&s, &out), 0);
	assert_non_null(strstr(
	    out, "\"startup_us\":null,\"teardown_us\":null,\"limits\":null,"));
	free(out);
}

/*
 * init's finish after SETUP_OK can begin while the runner's nft lap still
 * runs (init sent SETUP_OK while the runner was descheduled before it read
 * the early sockets). A timeline CI saw, in µs: the runner's seccomp lap
 * [2192, 2855], nft [3400, 3566], relay [3650, 3713]; init's setup span
 * [2860, 3300], its finish [3310, 3700]; command started 3560 after
 * begin. Counting the finish only against the relay lap (50 µs) summed
 * the phases to 3718 µs, more than the total; against every lap it is
 * 216 µs in parallel and a sum of 3552.
 */
static void test_startup_finish_beside_nft(void **state)
{
	const struct jr_startup_span laps[] = { { 2192, 2855 },
						{ 3400, 3566 },
						{ 3650, 3713 } };
	struct jr_startup st = { .begin = 1000,
				 .total_us = 3560,
				 .complete = true };

	(void)state;
	st.us[JR_PHASE_PREPARE] = 436;
	st.us[JR_PHASE_CLONE] = 718;
	st.us[JR_PHASE_MAPS] = 38;
	st.us[JR_PHASE_SECCOMP] = 663;
	st.us[JR_PHASE_NFT] = 166;
	st.us[JR_PHASE_MOUNTS] = 200;
	st.us[JR_PHASE_INIT_SETUP] = 240 + 390; /* setup's rest + finish */
	st.us[JR_PHASE_RELAY] = 63;
	st.us[JR_PHASE_EXEC] = 854;
	jr_startup_beside(&st, 2860, 3300, laps, 3); /* SETUP_OK's span */
	assert_int_equal(st.parallel_us, 0);
	jr_startup_beside(&st, 3310, 3700, laps, 3); /* EXEC_OK's span */
	assert_int_equal(st.parallel_us, 166 + 50);
	assert_int_equal(jr_startup_sum(&st), 3552);
	assert_true(jr_startup_sum(&st) <= st.total_us);
	/* A lap not taken yet overlaps nothing. */
	jr_startup_beside(&st, 0, 10000,
			  (const struct jr_startup_span[]){ { 0, 0 } }, 1);
	assert_int_equal(st.parallel_us, 216);
}

/* Laps cover the time since begin exactly once; init's reports are added
 * inside a wait, not on top of it. */
static void test_startup_accounting(void **state)
{
	struct jr_startup st;
	char line[512];

	jr_startup_begin(&st, jr_clock_us());
	jr_startup_lap(&st, JR_PHASE_PREPARE);
	jr_startup_lap(&st, JR_PHASE_CLONE);
	jr_startup_lap(&st, JR_PHASE_PREPARE);
	assert_int_equal(jr_startup_sum(&st), st.last - st.begin);
	assert_int_equal(st.us[JR_PHASE_MAPS], 0);

	jr_startup_wait_done(&st, JR_PHASE_SELFCHECK, 5, JR_PHASE_EXEC, 7);
	assert_int_equal(st.us[JR_PHASE_SELFCHECK], 5);
	assert_int_equal(st.us[JR_PHASE_EXEC], 7);
	jr_startup_complete(&st);
	assert_true(st.complete);
	assert_true(st.total_us >= st.last - st.begin);

	/* Not begun: nothing is timed, nothing is complete. */
	memset(&st, 0, sizeof(st));
	jr_startup_lap(&st, JR_PHASE_CLONE);
	jr_startup_complete(&st);
	assert_false(st.complete);
	assert_int_equal(jr_startup_sum(&st), 0);

	st = (struct jr_startup){ .total_us = 3000 };
	st.us[JR_PHASE_NFT] = 1500;
	st.us[JR_PHASE_EXEC] = 250;
	jr_startup_format(&st, line, sizeof(line));
	assert_non_null(strstr(line, "prepare 0.00, "));
	assert_non_null(strstr(line, "nft 1.50, "));
	assert_non_null(strstr(
	    line, "exec 0.25, parallel -0.00, waiting 1.25, total 3.00 ms"));

	/* The runner's nft beside init's setup: counted once. */
	st.us[JR_PHASE_MOUNTS] = 1000;
	st.begin = 1;
	jr_startup_overlap(&st, 100, 1100, 600, 2100); /* 500 inside */
	jr_startup_overlap(&st, 100, 1100, 0, 50);     /* none inside */
	jr_startup_overlap(&st, 100, 1100, 200, 300);  /* 100 inside */
	assert_int_equal(st.parallel_us, 600);
	assert_int_equal(jr_startup_sum(&st), 1500 + 250 + 1000 - 600);
	jr_startup_format(&st, line, sizeof(line));
	assert_non_null(strstr(
	    line, "exec 0.25, parallel -0.60, waiting 0.85, total 3.00 ms"));
	jr_startup_format(&st, line, 8);
	assert_int_equal(strlen(line), 7);
	for (int p = 0; p < JR_PHASE_COUNT; p++)
		assert_string_not_equal(jr_startup_phase_name(p), "unknown");
}

static void test_end_names(void **state)
{
	assert_string_equal(jr_end_name(JR_END_EXITED), "exited");
	assert_string_equal(jr_end_name(JR_END_SIGNALED), "signaled");
	assert_string_equal(jr_end_name(JR_END_TIMEOUT), "timeout");
	assert_string_equal(jr_end_name(JR_END_SETUP_FAILED), "setup-failed");
	assert_string_equal(jr_end_name(JR_END_EXEC_FAILED), "exec-failed");
	assert_string_equal(jr_end_name(JR_END_TAMPER), "tamper-killed");
	assert_string_equal(jr_end_name(JR_END_OOM), "oom-killed");
	assert_string_equal(jr_end_name(JR_END_STOPPED), "stopped");
}

/* An OOM kill reads "oom-killed", never "exited" 137 (issue 23). */
static void test_oom_end(void **state)
{
	struct jr_cgroup_report oom = { .used = true,
					.have_oom_kills = true,
					.oom_kills = 1 };
	struct jr_cgroup_report none = { .used = true, .have_oom_kills = true };

	/* killed by SIGKILL, or a shell reporting 128+9 */
	assert_int_equal(jr_end_with_oom(JR_END_SIGNALED, 137, &oom),
			 JR_END_OOM);
	assert_int_equal(jr_end_with_oom(JR_END_EXITED, 137, &oom), JR_END_OOM);
	/* a child was OOM-killed, the command went on and exited 1 */
	assert_int_equal(jr_end_with_oom(JR_END_EXITED, 1, &oom),
			 JR_END_EXITED);
	/* SIGKILL without an OOM kill (kill -9 from inside) */
	assert_int_equal(jr_end_with_oom(JR_END_SIGNALED, 137, &none),
			 JR_END_SIGNALED);
	assert_int_equal(jr_end_with_oom(JR_END_SIGNALED, 137, NULL),
			 JR_END_SIGNALED);
	oom.have_oom_kills = false;
	assert_int_equal(jr_end_with_oom(JR_END_SIGNALED, 137, &oom),
			 JR_END_SIGNALED);
	oom.have_oom_kills = true;
	/* other ends stay what they are */
	assert_int_equal(jr_end_with_oom(JR_END_TIMEOUT, 124, &oom),
			 JR_END_TIMEOUT);
	assert_int_equal(jr_end_with_oom(JR_END_TAMPER, 125, &oom),
			 JR_END_TAMPER);
}

/* "limits_hit": memory, pids, timeout, in that order, from what was seen. */
static void test_limits_hit(void **state)
{
	char *const cmd[] = { "x", NULL };
	struct jr_cgroup_report rep = { .used = true,
					.have_oom_kills = true,
					.oom_kills = 2,
					.have_pids_refused = true,
					.pids_refused = 1 };
	struct jr_summary s = { .command = cmd, .command_argc = 1 };
	char *out = NULL;

	assert_int_equal(jr_limits_hit_of(JR_END_EXITED, NULL), 0);
	assert_int_equal(jr_limits_hit_of(JR_END_TIMEOUT, NULL),
			 JR_LIMIT_HIT_TIMEOUT);
	assert_int_equal(jr_limits_hit_of(JR_END_OOM, NULL),
			 JR_LIMIT_HIT_MEMORY);
	assert_int_equal(jr_limits_hit_of(JR_END_TIMEOUT, &rep),
			 JR_LIMIT_HIT_MEMORY | JR_LIMIT_HIT_PIDS |
			     JR_LIMIT_HIT_TIMEOUT);
	rep.oom_kills = 0;
	rep.have_pids_refused = false; /* not counted: not "hit" */
	assert_int_equal(jr_limits_hit_of(JR_END_EXITED, &rep), 0);

	s.ended = JR_END_OOM;
	s.signal = 9;
	s.exit_status = 137;
	s.limits_hit = jr_limits_hit_of(
	    JR_END_TIMEOUT,
	    &(struct jr_cgroup_report){ .have_pids_refused = true,
					.pids_refused = 4,
					.have_oom_kills = true,
					.oom_kills = 1 });
	assert_int_equal(jr_summary_to_json(&s, &out), 0);
	assert_non_null(strstr(
	    out, "\"exit_status\":137,\"ended\":\"oom-killed\",\"signal\":9,"
		 "\"limits_hit\":[\"memory\",\"pids\",\"timeout\"]"));
	free(out);
}

/* A set-up failure before the user was known: "user" is null, not uid 0;
 * the label, the stamps and the policy are there. */
static void test_setup_failed_fields(void **state)
{
	char *argv[] = { "jailrun",
			 "--allow",
			 "a.test:443",
			 "--allow-private",
			 "10.0.0.0/8",
			 "--lane",
			 "model.test:4000",
			 "--fs",
			 "host",
			 "--timeout",
			 "30",
			 "--label",
			 "t-1",
			 "--user",
			 "nobody",
			 "--",
			 "true",
			 NULL };
	struct jr_options o;
	struct jr_err e = { 0 };
	struct jr_summary s = { 0 };
	char *out = NULL;

	assert_int_equal(jr_options_parse(17, argv, &o, &e), 0);
	s.run_id = "ffeeddccbbaa99887766554433221100";
	s.label = o.label;
	s.policy = &o;
	s.command = o.command;
	s.command_argc = o.command_argc;
	s.ended = JR_END_SETUP_FAILED;
	s.exit_status = 125;
	s.user_unknown = true;
	s.error = "no such user";
	assert_int_equal(jr_summary_to_json(&s, &out), 0);
	assert_non_null(strstr(out,
			       "\"label\":\"t-1\",\"started_at\":null,"
			       "\"ended_at\":null,\"command\":[\"true\"]"));
	assert_non_null(strstr(out, "\"user\":null,"));
	assert_non_null(strstr(
	    out, "\"policy\":{\"net\":\"allowlist\",\"allow\":[\"a.test:443\"],"
		 "\"allow_files\":[],\"allow_private\":[\"10.0.0.0/8\"],"
		 "\"allow_http\":[],\"lanes\":[\"model.test:4000\"],"
		 "\"fs\":\"host\",\"user\":\"nobody\",\"timeout_ms\":30000,"
		 "\"seccomp\":true}}\n"));
	free(out);
	jr_options_release(&o);
}

/* "network"."mode" is named by jr_options_net_mode(), from the options. */
static void test_network_mode_names(void **state)
{
	static const struct {
		char *argv[6];
		const char *want;
	} cases[] = {
		{ { "jailrun", "true" }, "\"network\":{\"mode\":\"hermetic\"" },
		{ { "jailrun", "--net", "none", "true" },
		  "\"network\":{\"mode\":\"hermetic\"" },
		{ { "jailrun", "--allow", "a.test", "true" },
		  "\"network\":{\"mode\":\"allowlist\"" },
		{ { "jailrun", "--net", "public", "true" },
		  "\"network\":{\"mode\":\"public\"" },
		{ { "jailrun", "--learn", "f", "true" },
		  "\"network\":{\"mode\":\"public\"" },
	};

	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		struct jr_options o;
		struct jr_err e = { 0 };
		struct jr_summary s = { 0 };
		char *out = NULL;
		int argc = 0;

		while (cases[i].argv[argc])
			argc++;
		assert_int_equal(
		    jr_options_parse(argc, (char **)cases[i].argv, &o, &e), 0);
		s.net_mode = jr_options_net_mode(&o);
		assert_int_equal(jr_summary_to_json(&s, &out), 0);
		if (!strstr(out, cases[i].want))
			fail_msg("case %zu: %s not in %s", i, cases[i].want,
				 out);
		free(out);
		jr_options_release(&o);
	}
}

/* "limits": each figure, null where not asked for or not counted. */
static void test_limits(void **state)
{
	char *const cmd[] = { "true", NULL };
	struct jr_limits l = { .memory = 64ULL << 20, .pids = 20 };
	struct jr_cgroup_report rep = {
		.used = true,
		.layout = "v1",
		.have_memory_peak = true,
		.memory_peak = 1234,
		.have_oom_kills = true,
		.oom_kills = 1,
		.have_pids_peak = false,
		.have_pids_refused = true,
		.pids_refused = 3,
		.removed = true,
	};
	struct jr_summary s = {
		.command = cmd,
		.command_argc = 1,
		.net_mode = "none",
		.limits = &l,
		.limits_report = &rep,
	};
	char *out = NULL;

	l.rlimit_set[JR_RLIMIT_NOFILE] = true;
	l.rlimit[JR_RLIMIT_NOFILE] = 64;
	l.rlimit_set[JR_RLIMIT_CORE] = true;
	l.rlimit[JR_RLIMIT_CORE] = JR_RLIMIT_UNLIMITED;
	assert_int_equal(jr_summary_to_json(&s, &out), 0);
	assert_non_null(
	    strstr(out, "\"limits\":{\"cgroup\":\"v1\",\"memory_max\":67108864,"
			"\"memory_peak\":1234,\"oom_kills\":1,\"pids_max\":20,"
			"\"pids_peak\":null,\"pids_refused\":3,"
			"\"cpu_quota_us\":null,\"cpu_period_us\":null,"
			"\"cgroup_removed\":true,"
			"\"rlimits\":{\"nofile\":64,\"core\":\"unlimited\"}},"
			"\"policy\":null}\n"));
	free(out);
	/* rlimits only: no cgroup was made. */
	memset(&l, 0, sizeof(l));
	l.rlimit_set[JR_RLIMIT_FSIZE] = true;
	l.rlimit[JR_RLIMIT_FSIZE] = 4096;
	l.cpus_milli = 500;
	s.limits_report = NULL;
	assert_int_equal(jr_summary_to_json(&s, &out), 0);
	assert_non_null(strstr(out, "\"limits\":{\"cgroup\":null,"));
	assert_non_null(strstr(out, "\"cpu_quota_us\":50000,"
				    "\"cpu_period_us\":100000,"
				    "\"cgroup_removed\":null,"
				    "\"rlimits\":{\"fsize\":4096}},"
				    "\"policy\":null}\n"));
	free(out);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_exited),
		cmocka_unit_test(test_filesystem),
		cmocka_unit_test(test_signaled_and_failed),
		cmocka_unit_test(test_relay_counts),
		cmocka_unit_test(test_firewall_refused),
		cmocka_unit_test(test_startup_phases),
		cmocka_unit_test(test_startup_finish_beside_nft),
		cmocka_unit_test(test_startup_accounting),
		cmocka_unit_test(test_end_names),
		cmocka_unit_test(test_oom_end),
		cmocka_unit_test(test_limits_hit),
		cmocka_unit_test(test_setup_failed_fields),
		cmocka_unit_test(test_network_mode_names),
		cmocka_unit_test(test_limits),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
