// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * control.c - the runner's side of the live policy socket (see control.h).
 *
 * Theory of operation
 *
 * The socket is made by the runner, in its own mount namespace, before
 * the sandbox exists, so the path is the caller's path. Its file mode is
 * set at birth: bind(2) creates the file with the process umask applied,
 * so the umask is 0177 around the bind (the runner has one thread at this
 * point; umask is per process) and the result is checked with lstat(): a
 * socket, mode 0600, our uid, or we refuse to run. Connecting to a unix
 * socket needs write permission on it (unix(7)), so only the owner (and
 * root, who passes any mode) can connect; the relay then also compares
 * each client's SO_PEERCRED uid with ours, which turns root away from a
 * user's socket too. Started by root, the socket is root's and only root
 * may use it; to let another user drive a sandbox started by root, hand
 * over a socket with --control-fd.
 *
 * An inherited --control-fd is the caller's: any unix stream socket,
 * listening (each accepted connection is a client) or connected (the one
 * client). It gets FD_CLOEXEC at once, before anything can fork.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdbool.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <unistd.h>

#include "cleanup.h"
#include "control.h"

/* Is @path a socket nobody listens on? (a runner killed before it could
 * remove it) */
static bool stale_socket(const struct sockaddr_un *sun)
{
	_cleanup_close_ int fd = -1;
	struct stat st;

	if (lstat(sun->sun_path, &st) < 0 || !S_ISSOCK(st.st_mode) ||
	    st.st_uid != geteuid())
		return false;
	fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
	if (fd < 0)
		return false;
	return connect(fd, (const struct sockaddr *)sun, sizeof(*sun)) < 0 &&
	       errno == ECONNREFUSED;
}

int jr_control_listen(const char *path, struct jr_err *err)
{
	struct sockaddr_un sun = { .sun_family = AF_UNIX };
	_cleanup_close_ int fd = -1;
	struct stat st;
	mode_t old;
	int r, e;

	if (strlen(path) >= sizeof(sun.sun_path))
		return jr_err_set(err, ENAMETOOLONG,
				  "--control %s: the path is too long for a "
				  "unix socket (at most %zu bytes)",
				  path, sizeof(sun.sun_path) - 1);
	strcpy(sun.sun_path, path);
	fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
	if (fd < 0)
		return jr_err_set(err, errno, "--control %s: socket: %s", path,
				  strerror(errno));
	old = umask(0177);
	r = bind(fd, (struct sockaddr *)&sun, sizeof(sun));
	e = errno;
	if (r < 0 && e == EADDRINUSE && stale_socket(&sun) &&
	    unlink(path) == 0) {
		r = bind(fd, (struct sockaddr *)&sun, sizeof(sun));
		e = errno;
	}
	umask(old);
	if (r < 0)
		return jr_err_set(
		    err, e, "--control %s: cannot create the socket: %s%s",
		    path, strerror(e),
		    e == EADDRINUSE
			? " (something is there, or a jailrun serves it; "
			  "remove it or choose another path)"
			: "");
	if (lstat(path, &st) < 0 || !S_ISSOCK(st.st_mode) ||
	    (st.st_mode & 07777) != 0600 || st.st_uid != geteuid()) {
		unlink(path);
		return jr_err_set(err, EPERM,
				  "--control %s: the socket is not mode 0600 "
				  "and ours after bind; refusing to serve it",
				  path);
	}
	if (listen(fd, 8) < 0) {
		e = errno;
		unlink(path);
		return jr_err_set(err, e, "--control %s: listen: %s", path,
				  strerror(e));
	}
	return steal_fd(&fd);
}

int jr_control_adopt_fd(int fd, struct jr_err *err)
{
	struct sockaddr_storage ss;
	socklen_t len = sizeof(ss);
	int type = 0;
	socklen_t tlen = sizeof(type);

	if (fcntl(fd, F_SETFD, FD_CLOEXEC) < 0)
		return jr_err_set(err, errno,
				  "--control-fd %d: not an open file "
				  "descriptor: %s",
				  fd, strerror(errno));
	if (getsockname(fd, (struct sockaddr *)&ss, &len) < 0 ||
	    ss.ss_family != AF_UNIX ||
	    getsockopt(fd, SOL_SOCKET, SO_TYPE, &type, &tlen) < 0 ||
	    type != SOCK_STREAM)
		return jr_err_set(err, ENOTSOCK,
				  "--control-fd %d: expected a unix stream "
				  "socket, listening or connected",
				  fd);
	return 0;
}

void jr_control_unlink(const char *path)
{
	struct stat st;

	if (path && lstat(path, &st) == 0 && S_ISSOCK(st.st_mode) &&
	    st.st_uid == geteuid())
		unlink(path);
}
