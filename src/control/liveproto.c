// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * liveproto.c - encoding and checking the messages of live sandboxes
 * (liveproto.h). Pure: no I/O, so both ends, the unit tests and a fuzzer
 * share one reader.
 *
 * Why a head of counts and a run of NUL-terminated strings rather than
 * the control socket's JSON line: argv words and environment values are
 * arbitrary bytes (newlines, quotes, non-UTF-8), which a JSON string
 * would have to escape and the reader unescape; here the only byte a
 * string cannot hold is NUL, which execve(2) cannot pass either. The
 * reader checks that the counts match the strings exactly, so a
 * message that says less or more than it carries is refused whole.
 */

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "liveproto.h"

static bool name_char(char c)
{
	return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') ||
	       (c >= '0' && c <= '9') || c == '.' || c == '_' || c == '-';
}

int jr_live_name_check(const char *name, struct jr_err *err)
{
	size_t n = strlen(name);

	if (n == 0 || n > JR_LIVE_NAME_MAX || name[0] == '.' || name[0] == '-')
		goto bad;
	for (size_t i = 0; i < n; i++)
		if (!name_char(name[i]))
			goto bad;
	return 0;
bad:
	return jr_err_set(
	    err, EINVAL,
	    "sandbox name '%.80s': a name is 1 to %d characters of A-Z a-z 0-9 . _ - and does not start with '.' or '-'",
	    name, JR_LIVE_NAME_MAX);
}

int jr_live_env_check(const char *entry, struct jr_err *err)
{
	const char *eq = strchr(entry, '=');

	if (!eq || eq == entry || (entry[0] >= '0' && entry[0] <= '9'))
		goto bad;
	for (const char *p = entry; p < eq; p++)
		if (!((*p >= 'a' && *p <= 'z') || (*p >= 'A' && *p <= 'Z') ||
		      (*p >= '0' && *p <= '9') || *p == '_'))
			goto bad;
	return 0;
bad:
	return jr_err_set(
	    err, EINVAL,
	    "--env '%.80s': expected NAME=VALUE, NAME of A-Z a-z 0-9 _ not starting with a digit",
	    entry);
}

int jr_live_socket_path(unsigned int euid, const char *xdg, const char *name,
			char *out, size_t size, struct jr_err *err)
{
	int n;

	if (euid != 0 && (!xdg || xdg[0] != '/'))
		return jr_err_set(
		    err, ENOENT,
		    "XDG_RUNTIME_DIR is not set (or not an absolute path): live sandboxes of a user keep their sockets in $XDG_RUNTIME_DIR/jailrun; set it (a directory only you can write, as systemd's /run/user/UID)");
	if (euid == 0)
		n = snprintf(out, size, "%s%s%s%s", JR_LIVE_ROOT_DIR,
			     name ? "/" : "", name ? name : "",
			     name ? ".sock" : "");
	else
		n = snprintf(out, size, "%s/jailrun%s%s%s", xdg,
			     name ? "/" : "", name ? name : "",
			     name ? ".sock" : "");
	if (n < 0 || (size_t)n >= size)
		return jr_err_set(
		    err, ENAMETOOLONG,
		    "the live sandbox socket path under %s is too long for a unix socket (at most %zu bytes): use a shorter XDG_RUNTIME_DIR or name",
		    euid == 0 ? JR_LIVE_ROOT_DIR : xdg, size - 1);
	return 0;
}

/* NAME@suffix beside NAME.sock; @what names it in a message. */
static int side_path(unsigned int euid, const char *xdg, const char *name,
		     const char *suffix, const char *what, char *out,
		     size_t size, struct jr_err *err)
{
	char dir[108];
	int n = jr_live_socket_path(euid, xdg, NULL, dir, sizeof(dir), err);

	if (n < 0)
		return n;
	n = snprintf(out, size, "%s/%s%s", dir, name, suffix);
	if (n < 0 || (size_t)n >= size)
		return jr_err_set(
		    err, ENAMETOOLONG,
		    "the live sandbox's %s %s/%s%s is too long (at most %zu bytes): use a shorter XDG_RUNTIME_DIR or name",
		    what, dir, name, suffix, size - 1);
	return 0;
}

int jr_live_control_path(unsigned int euid, const char *xdg, const char *name,
			 char *out, size_t size, struct jr_err *err)
{
	return side_path(euid, xdg, name, ".ctl", "policy socket", out, size,
			 err);
}

int jr_live_log_path(unsigned int euid, const char *xdg, const char *name,
		     char *out, size_t size, struct jr_err *err)
{
	return side_path(euid, xdg, name, ".log", "log", out, size, err);
}

/* Append string @s (with its NUL) at *@off of @buf. */
static int put_string(char *buf, size_t size, size_t *off, const char *s,
		      struct jr_err *err)
{
	size_t n = strlen(s) + 1;

	if (n > size - *off)
		return jr_err_set(
		    err, E2BIG,
		    "the command and its environment take more than %d bytes: pass large data through stdin or a file",
		    JR_LIVE_MSG_MAX - 1);
	memcpy(buf + *off, s, n);
	*off += n;
	return 0;
}

int jr_live_req_encode(const struct jr_live_req *req, void *buf, size_t size,
		       struct jr_err *err)
{
	struct jr_live_hdr h = {
		.magic = JR_LIVE_MAGIC,
		.type = req->type,
		.id = req->id,
		.signo = req->signo,
		.argc = (uint32_t)req->argc,
		.n_env = (uint32_t)req->n_env,
		.has_cwd = req->cwd != NULL,
		.flags = req->flags,
	};
	size_t off = sizeof(h);
	char *out = buf;

	if (size > JR_LIVE_MSG_MAX)
		size = JR_LIVE_MSG_MAX;
	if (size < sizeof(h))
		return jr_err_set(err, E2BIG, "no room for a request");
	if (req->argc > JR_LIVE_ARGV_MAX || req->n_env > JR_LIVE_ENV_MAX)
		return jr_err_set(
		    err, E2BIG,
		    "at most %d arguments and %d --env entries per command",
		    JR_LIVE_ARGV_MAX, JR_LIVE_ENV_MAX);
	for (size_t i = 0; i < req->argc; i++)
		if (put_string(out, size, &off, req->argv[i], err) < 0)
			return -E2BIG;
	for (size_t i = 0; i < req->n_env; i++)
		if (put_string(out, size, &off, req->env[i], err) < 0)
			return -E2BIG;
	if (req->cwd && put_string(out, size, &off, req->cwd, err) < 0)
		return -E2BIG;
	h.len = (uint32_t)(off - sizeof(h));
	memcpy(out, &h, sizeof(h));
	return (int)off;
}

/* The next NUL-terminated string at *@off, or NULL past the end. */
static const char *take_string(const char *s, size_t len, size_t *off)
{
	const char *nul;

	if (*off >= len)
		return NULL;
	nul = memchr(s + *off, '\0', len - *off);
	if (!nul)
		return NULL;
	s += *off;
	*off += (size_t)(nul - s) + 1;
	return s;
}

/* EXEC's strings: exactly argc + n_env (+ cwd) of them, nothing after. */
static int decode_strings(const char *s, size_t len,
			  const struct jr_live_hdr *h, struct jr_live_req *req,
			  struct jr_err *err)
{
	size_t off = 0;

	if (h->argc == 0 || h->argc > JR_LIVE_ARGV_MAX ||
	    h->n_env > JR_LIVE_ENV_MAX || h->has_cwd > 1 ||
	    (h->flags & ~(uint32_t)JR_LIVE_F_ALL))
		return jr_err_set(
		    err, EBADMSG,
		    "exec request: bad counts or flags (argc %u, env %u, flags %#x)",
		    h->argc, h->n_env, h->flags);
	req->flags = h->flags;
	for (uint32_t i = 0; i < h->argc; i++)
		if (!(req->argv[req->argc++] = take_string(s, len, &off)))
			goto short_msg;
	req->argv[req->argc] = NULL;
	if (!req->argv[0][0])
		return jr_err_set(err, EINVAL, "the command name is empty");
	for (uint32_t i = 0; i < h->n_env; i++) {
		if (!(req->env[req->n_env] = take_string(s, len, &off)))
			goto short_msg;
		if (jr_live_env_check(req->env[req->n_env++], err) < 0)
			return -EINVAL;
	}
	if (h->has_cwd) {
		if (!(req->cwd = take_string(s, len, &off)))
			goto short_msg;
		if (req->cwd[0] != '/')
			return jr_err_set(
			    err, EINVAL,
			    "--cwd '%.200s': the directory must be an absolute path",
			    req->cwd);
	}
	if (off != len)
		return jr_err_set(err, EBADMSG,
				  "exec request: %zu bytes after its strings",
				  len - off);
	return 0;
short_msg:
	return jr_err_set(err, EBADMSG,
			  "exec request: fewer strings than its counts say");
}

int jr_live_req_decode(char *buf, size_t len, struct jr_live_req *req,
		       struct jr_err *err)
{
	struct jr_live_hdr h;

	memset(req, 0, sizeof(*req));
	if (len < sizeof(h) || len >= JR_LIVE_MSG_MAX)
		return jr_err_set(err, EBADMSG, "request of %zu bytes", len);
	memcpy(&h, buf, sizeof(h));
	if (h.magic != JR_LIVE_MAGIC || h.len != len - sizeof(h))
		return jr_err_set(err, EBADMSG,
				  "not a jailrun live request (version?)");
	req->type = h.type;
	req->id = h.id;
	req->signo = h.signo;
	switch (h.type) {
	case JR_LIVE_EXEC:
		return decode_strings(buf + sizeof(h), h.len, &h, req, err);
	case JR_LIVE_SIGNAL:
		if (h.signo <= 0 || h.signo >= 65)
			return jr_err_set(err, EINVAL, "signal %d", h.signo);
		/* fall through */
	case JR_LIVE_STATUS:
	case JR_LIVE_STOP:
		if (h.len || h.argc || h.n_env || h.has_cwd || h.flags)
			return jr_err_set(err, EBADMSG,
					  "%s request with strings",
					  jr_live_type_name(h.type));
		return 0;
	default:
		return jr_err_set(err, EBADMSG, "unknown request type %u",
				  h.type);
	}
}

const char *jr_live_type_name(enum jr_live_type type)
{
	static const char *const names[] = {
		[JR_LIVE_EXEC] = "exec",	 [JR_LIVE_SIGNAL] = "signal",
		[JR_LIVE_STATUS] = "status",	 [JR_LIVE_STOP] = "stop",
		[JR_LIVE_STARTED] = "started",	 [JR_LIVE_FAILED] = "failed",
		[JR_LIVE_EXITED] = "exited",	 [JR_LIVE_STATE] = "state",
		[JR_LIVE_STOPPING] = "stopping", [JR_LIVE_REFUSED] = "refused",
		[JR_LIVE_ENDED] = "ended",
	};

	if ((size_t)type < sizeof(names) / sizeof(names[0]) && names[type])
		return names[type];
	return "?";
}

/* Is @opts[@i] the value of --json, --log or --control (or
 * --json=... itself)? */
bool jr_pool_path_value(char **opts, int i, const char **value)
{
	static const char *const names[] = { "--json", "--log", "--control" };

	for (size_t k = 0; k < sizeof(names) / sizeof(names[0]); k++) {
		size_t n = strlen(names[k]);

		if (i > 0 && strcmp(opts[i - 1], names[k]) == 0) {
			*value = opts[i];
			return true;
		}
		if (strncmp(opts[i], names[k], n) == 0 && opts[i][n] == '=') {
			*value = opts[i] + n + 1;
			return true;
		}
	}
	return false;
}

/*
 * --json, --log and --control must say where each sandbox's file or
 * socket goes: {n}. One inherited --control-fd cannot be split among the
 * sandboxes: which of them a client reached would be chance.
 */
int jr_pool_check_paths(char **opts, int nopts, struct jr_err *err)
{
	const char *v;

	for (int i = 0; i < nopts; i++) {
		if (strcmp(opts[i], "--control-fd") == 0 ||
		    strncmp(opts[i], "--control-fd=", 13) == 0)
			return jr_err_set(
			    err, EINVAL,
			    "--pool: --control-fd cannot be shared by the pool's sandboxes: give --control PATH with {n} (each sandbox's number), e.g. --control /run/user/1000/task-{n}.sock");
		if (jr_pool_path_value(opts, i, &v) && !strstr(v, "{n}"))
			return jr_err_set(
			    err, EINVAL,
			    "--pool: --json/--log/--control '%s' has no {n}: each of the pool's sandboxes has its own file and socket, name it with {n} (its number), e.g. --json /var/log/task-{n}.json",
			    v);
	}
	return 0;
}

/* @s with each {n} replaced by @seq, malloc'd. */
char *jr_pool_with_seq(const char *s, uint32_t seq)
{
	size_t cap = strlen(s) * 4 + 16, o = 0;
	char *out = malloc(cap);

	if (!out)
		return NULL;
	while (*s) {
		if (strncmp(s, "{n}", 3) == 0) {
			o += (size_t)snprintf(out + o, cap - o, "%u", seq);
			s += 3;
		} else {
			out[o++] = *s++;
		}
	}
	out[o] = '\0';
	return out;
}
