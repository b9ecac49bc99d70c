// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * control_client.c - `jailrun ctl PATH|NAME allow|remove ENTRY [--close] |
 * lock | status | list | pending | approve ID [--always] | deny ID`.
 *
 * Theory of operation
 *
 * A target with a '/' is the socket's path (./job.sock for one here); one
 * without is a live sandbox's name, and the socket is its NAME.ctl (made
 * by jailrun start ... --ask, liveproto.h).
 *
 * Builds the one request line with the JSON writer (so an entry with a
 * quote in it is escaped, not spliced), sends it, reads one answer line
 * and prints it. The server writes "ok" first in every answer, so the
 * exit status comes from the answer's first member. Every wait is
 * bounded: the connect is to a local socket, and the answer must come
 * within CLIENT_TIMEOUT_MS, or the client says so and exits 125.
 */
#include <errno.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <unistd.h>

#include "cleanup.h"
#include "control_client.h"
#include "control_proto.h"
#include "exitcode.h"
#include "io.h"
#include "json.h"
#include "liveproto.h"

#define CLIENT_TIMEOUT_MS 10000
#define CLIENT_ANSWER_MAX (4u << 20) /* a list of 4096 entries fits */

static int usage(const char *why)
{
	fprintf(
	    stderr,
	    "jailrun ctl: %s\n"
	    "usage: jailrun ctl PATH|NAME allow ENTRY | remove ENTRY [--close] | "
	    "lock | status | list | pending | approve ID [--always] | "
	    "deny ID\n",
	    why);
	return JR_EXIT_FAILURE;
}

/* Does op @op take an argument (ENTRY or ID)? */
static bool takes_arg(const char *op)
{
	return !strcmp(op, "allow") || !strcmp(op, "remove") ||
	       !strcmp(op, "approve") || !strcmp(op, "deny");
}

/* The flag an op may end with ("--close", "--always"), or NULL. */
static const char *op_flag(const char *op)
{
	if (!strcmp(op, "remove"))
		return "--close";
	if (!strcmp(op, "approve"))
		return "--always";
	return NULL;
}

/* The request line for argv (after PATH), or NULL after usage(). */
static char *build_request(int argc, char **argv, int *status)
{
	struct jr_json j;
	const char *op = argv[0], *text, *flag = op_flag(op);
	bool arg = takes_arg(op);
	bool id = !strcmp(op, "approve") || !strcmp(op, "deny");
	bool flag_on = false;
	char *line = NULL;

	if (arg && argc < 2) {
		*status = usage(id ? "this op needs an ID (see 'pending')"
				   : "this op needs an ENTRY");
		return NULL;
	}
	if (!arg && strcmp(op, "lock") && strcmp(op, "status") &&
	    strcmp(op, "list") && strcmp(op, "pending")) {
		*status = usage("unknown op");
		return NULL;
	}
	if (flag && argc == 3 && !strcmp(argv[2], flag))
		flag_on = true;
	else if (argc > (arg ? 2 : 1)) {
		*status = usage("too many arguments");
		return NULL;
	}
	jr_json_init(&j);
	jr_json_object_begin(&j);
	jr_json_key(&j, "op");
	jr_json_string(&j, op);
	if (arg) {
		jr_json_key(&j, id ? "id" : "entry");
		jr_json_string(&j, argv[1]);
	}
	if (flag_on) {
		jr_json_key(&j, flag + 2); /* "close", "always" */
		jr_json_bool(&j, true);
	}
	jr_json_object_end(&j);
	text = jr_json_finish(&j);
	if (text && asprintf(&line, "%s\n", text) < 0)
		line = NULL;
	jr_json_release(&j);
	if (!line)
		*status = usage("out of memory");
	return line;
}

int jr_control_client_main(int argc, char **argv)
{
	struct sockaddr_un sun = { .sun_family = AF_UNIX };
	_cleanup_close_ int fd = -1;
	_cleanup_free_ char *req = NULL, *ans = NULL;
	size_t len = 0, cap = 0;
	int status = 0;

	if (argc < 3)
		return usage(
		    "expected PATH (or a live sandbox's NAME) and an op");
	if (!strchr(argv[1], '/')) {
		struct jr_err err = { 0 };

		if (jr_live_name_check(argv[1], &err) < 0 ||
		    jr_live_control_path(geteuid(), getenv("XDG_RUNTIME_DIR"),
					 argv[1], sun.sun_path,
					 sizeof(sun.sun_path), &err) < 0) {
			fprintf(
			    stderr,
			    "jailrun ctl: %s (a PATH has a '/': ./%s for a socket here)\n",
			    err.msg, argv[1]);
			return JR_EXIT_FAILURE;
		}
	} else if (strlen(argv[1]) >= sizeof(sun.sun_path)) {
		return usage("PATH is too long for a unix socket");
	} else {
		strcpy(sun.sun_path, argv[1]);
	}
	req = build_request(argc - 2, argv + 2, &status);
	if (!req)
		return status;
	fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
	if (fd < 0 || connect(fd, (struct sockaddr *)&sun, sizeof(sun)) < 0) {
		fprintf(stderr, "jailrun ctl: cannot connect to %s: %s%s%s%s\n",
			sun.sun_path, strerror(errno),
			strchr(argv[1], '/') ? "" : " (is ",
			strchr(argv[1], '/') ? "" : argv[1],
			strchr(argv[1], '/')
			    ? ""
			    : " a live sandbox started with --ask?)");
		return JR_EXIT_FAILURE;
	}
	/* A refused client gets its answer and a close before it writes: a
	 * failed send is not the end, the answer may be waiting. */
	if (send(fd, req, strlen(req), MSG_NOSIGNAL) < 0 && errno != EPIPE &&
	    errno != ECONNRESET) {
		fprintf(stderr, "jailrun ctl: %s: %s\n", argv[1],
			strerror(errno));
		return JR_EXIT_FAILURE;
	}
	for (;;) {
		struct pollfd p = { .fd = fd, .events = POLLIN };
		char *nl;
		ssize_t n;
		int pr = poll(&p, 1, CLIENT_TIMEOUT_MS);

		if (pr < 0 && errno == EINTR)
			continue;
		if (pr <= 0) {
			fprintf(stderr,
				"jailrun ctl: %s: no answer within %d s\n",
				argv[1], CLIENT_TIMEOUT_MS / 1000);
			return JR_EXIT_FAILURE;
		}
		if (len + 4096 > cap) {
			char *nb;

			if (cap >= CLIENT_ANSWER_MAX) {
				fprintf(
				    stderr,
				    "jailrun ctl: %s: the answer is too long\n",
				    argv[1]);
				return JR_EXIT_FAILURE;
			}
			cap = cap ? cap * 2 : 8192;
			nb = realloc(ans, cap);
			if (!nb)
				return usage("out of memory");
			ans = nb;
		}
		n = recv(fd, ans + len, cap - len - 1, 0);
		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0) {
			fprintf(stderr,
				"jailrun ctl: %s: the connection ended "
				"without an answer%s%s\n",
				argv[1], n < 0 ? ": " : "",
				n < 0 ? strerror(errno) : "");
			return JR_EXIT_FAILURE;
		}
		len += (size_t)n;
		ans[len] = '\0';
		nl = memchr(ans, '\n', len);
		if (nl) {
			nl[1] = '\0';
			break;
		}
	}
	fputs(ans, stdout);
	fflush(stdout);
	return strncmp(ans, "{\"ok\":true", 10) == 0 ? 0 : 1;
}
