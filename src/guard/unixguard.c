// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * unixguard.c - no pathname unix socket of the host is connectable from
 * inside the sandbox.
 *
 * Theory of operation. A unix socket bound to a path is found by its inode
 * (unix_find_bsd() in net/unix/af_unix.c): not by network namespace, and
 * with only a write-permission check on the socket inode that ignores
 * read-only mounts. So neither the worker netns nor a read-only mount
 * keeps the command from tmux, ssh-agent, dockerd, nscd or an X server of
 * the same user, wherever their sockets live and whenever they appear.
 * Landlock's LANDLOCK_ACCESS_FS_RESOLVE_UNIX would (the kernel refusing
 * the lookup itself), but Linux 6.18 lacks it; --check names the layer in
 * use, and this is the fallback.
 *
 * The command's seccomp filter (seccomp.c) answers connect(2), sendmsg(2),
 * sendmmsg(2) and sendto(2) with a non-NULL address with
 * SECCOMP_RET_USER_NOTIF; the pre-exec child loads it with
 * SECCOMP_FILTER_FLAG_NEW_LISTENER, tells the runner the listener's fd
 * number over the runner-init protocol socket with write(2) (a sendmsg
 * would trap into the filter nobody serves yet) and waits; the runner takes the
 * fd with pidfd_getfd(2) and serves it in a thread of its own, outside every
 * namespace of the sandbox. bind(2) is not trapped: binding creates a new
 * inode (EADDRINUSE on an existing one), it never reaches a host socket.
 *
 * Per notification (seccomp_unotify(2)). Nothing is ever answered with
 * SECCOMP_USER_NOTIF_FLAG_CONTINUE: that has the kernel re-read the
 * task's fd table and memory, and a second thread could by then have
 * dup2()ed an AF_UNIX socket over the fd number and written a host
 * socket's path into the address (tests/integration/unixsock.sh: "race"
 * won that for connects, "swaprace" for sends on a UDP socket, before
 * each was run on behalf). Whatever cannot be looked at (pidfd_getfd
 * refused, not a socket) is answered with an error:
 *  1. Take the task's socket with pidfd_getfd(2); SO_DOMAIN and SO_TYPE of
 *     that file decide, not anything in the task's memory, and the call
 *     is run on that socket (4.), so the socket checked is the socket
 *     used. A connect or send on a socket that is not AF_UNIX, and a
 *     send on a unix stream or seqpacket socket (which ignore or refuse
 *     an address: unix_stream_sendmsg, unix_seqpacket_sendmsg), is run
 *     on behalf (4.) with our copies of the address, bytes and control
 *     data (the kernel validates the address and checks the executor's,
 *     that is the command's, rights; the network policy is nft's, and
 *     the socket is the sandbox's, in its netns).
 *  2. Read the address (and a send's bytes and control data) from the
 *     task (process_vm_readv), then check the notification is still
 *     valid (SECCOMP_IOCTL_NOTIF_ID_VALID): the pid could have been
 *     reused by then, and what we send must be the task's.
 *  3. Pathname: resolve it in the task's view (openat2 on /proc/PID/root
 *     with RESOLVE_IN_ROOT for an absolute path, from /proc/PID/cwd for a
 *     relative one), pin the inode with an O_PATH fd, and decide on that
 *     inode: a socket bound inside the sandbox, or one of the --expose'd
 *     sockets, is allowed; anything else gets ECONNREFUSED, the answer of
 *     a socket nobody listens on, and so does jailrun's own --control
 *     socket, whatever names it. The --expose'd sockets are pinned by
 *     inode once, before the command runs (pin_exposed()): resolving the
 *     exposed name again at each connect let a command that renamed its
 *     directory and put a symlink there reach any host socket (issue 21).
 *  4. Allowed: the executor (unixguard_behalf.c), a process with exactly
 *     the command's ids and no capability, makes the call on the task's
 *     socket, addressed "/proc/self/fd/N" of the pinned O_PATH fd passed
 *     to it, so the inode connected is the inode checked (a path swapped
 *     meanwhile changes nothing), and we reply with its result. Never the
 *     runner itself: the kernel checks the caller's rights (capabilities
 *     for rtnetlink and SO_MARK, the fsuid for the socket's write
 *     permission), and the runner owns the sandbox's user namespace. A
 *     non-pathname address of an AF_UNIX socket (abstract, unnamed, AF_UNSPEC)
 *     is also run on behalf, with our copy of it, so that memory rewritten
 *     after our read cannot turn it into a path. Abstract names are per network
 *     namespace, and the task's socket is in the worker netns: the host's
 *     abstract sockets are out of reach without us.
 *
 * "Bound inside the sandbox": a socket belongs to the network namespace of
 * the process that created it, and the sandbox always has its own. init
 * opens a NETLINK_SOCK_DIAG socket in the worker netns and hands it over;
 * a unix_diag dump with UDIAG_SHOW_VFS through it lists exactly the
 * sandbox's sockets with the (device, inode) they are bound to. No bind
 * needs tracking, a daemon that re-creates its socket is still a host
 * socket, and one that starts after the sandbox is refused as well.
 *
 * Why not CONTINUE for an allowed path: between our check and the kernel's
 * own lookup the task may replace the path (rename, symlink) with a host
 * socket. Doing the call ourselves on the pinned inode has no such window.
 * The result of a call run on behalf is the one the task gets; with a
 * non-blocking socket ours is non-blocking too (same open file).
 *
 * The cost: every UDP send with an address and every sendmsg(2) on a TCP
 * socket is a round trip through this thread plus copies (pidfd_open,
 * pidfd_getfd, two getsockopt, process_vm_readv, the send), most of it
 * the round trip itself: docs/architecture.md has the figures.
 *
 * The supervisor's own descriptor table. Every notification costs the
 * thread a few descriptors (the pidfd, the task's socket, root, cwd, the
 * pinned inode), and a blocking connect run on behalf holds two of them
 * until it completes. In the runner's table they would compete with the
 * relay: at the runner's RLIMIT_NOFILE, the relay frees its one reserve
 * descriptor to accept a waiting connection and answer it 503, and a
 * guard allocating at that moment took the slot, so the relay could only
 * pause until header timeouts freed others, while the guard sat in a
 * connect to the relay's full backlog (tests/integration/faults.sh, the
 * descriptor-limit case, saw no 503 at all). So the thread first calls
 * unshare(CLONE_FILES): it gets a table of its own, closes in it every
 * descriptor but the sock_diag socket, the user namespace and stdio (the
 * copy would otherwise keep the runner's sockets and pipes open), and from
 * then on nothing it opens or holds is one of the runner's. RLIMIT_NOFILE
 * bounds each table's numbers separately, and ours holds a handful. The
 * pinned inode is therefore named through /proc/thread-self, not
 * /proc/self (the thread group leader's table).
 *
 * Start-up in two steps, for the command's start-up time: the thread is
 * started right after GO (jr_unixguard_prestart()) and makes its table
 * and forks the executor while init runs its self-check and the pre-exec
 * child its steps (the fork and the table copy were about a millisecond
 * on the way to the command's start when they followed the hand-over).
 * At the hand-over (jr_unixguard_attach()) the thread takes the listener
 * into its own table with pidfd_getfd(2), so the runner's table never
 * holds it, and attach() waits until it serves, or fails closed if the
 * table, the executor or the listener could not be had.
 *
 * Connects of other families run on behalf. The socket's O_NONBLOCK is in
 * the open file we share with the task, so a non-blocking connect answers
 * EINPROGRESS at once and the task waits for it itself; a blocking one
 * holds this thread (and every trapped call of the sandbox) until it
 * completes, which is short: inside, every TCP destination is local (the
 * relay on the veth, or loopback) or answered at once with a reset by
 * nft. AF_UNSPEC (disconnect) is run as it is. Landlock's TCP connect rule
 * (landlock.c, ABI >= 4) applies to the task, not to the runner: the
 * guard gets the same port list and answers EACCES, Landlock's own
 * answer, for a TCP connect to a port not in it.
 *
 * Sends. Every trapped send (sendmsg(2) and sendmmsg(2) always,
 * sendto(2) with an address; send(2) goes to the connected peer, vetted
 * at connect time, and is not trapped) is run on behalf, whatever the
 * socket's family and type:
 *  - On an AF_UNIX datagram socket a path is checked and pinned as for a
 *    connect; a sendmsg(2) whose msghdr had no address when we read it is
 *    sent with none (its msg_namelen is in the task's memory: the "send
 *    race" won 14 of 3000 when that was CONTINUEd).
 *  - A send the task made blocking is first tried with MSG_DONTWAIT; one
 *    that would block, or that sent only part of a stream send, is
 *    finished by a worker thread (hand_off(), up to JR_UG_WORKERS at
 *    once, beyond that this thread waits), which polls the socket and
 *    sends the rest with MSG_DONTWAIT through its own executor slot (the
 *    executor itself never blocks in a send) and answers the
 *    notification itself, so a full receiver never stalls the sandbox's
 *    other trapped calls.
 *  - Bytes: at most JR_UG_MAX_SEND (256 KiB) are copied from the task per
 *    call (one process_vm_readv(2), straight into the executor's shared
 *    slot). A stream send beyond that is cut there and answered with the
 *    short count, which send(2) may give anyway; a datagram beyond it is
 *    refused with EMSGSIZE, as the kernel refuses one above the default
 *    send buffer. sendmmsg(2) copies every message first, 256 KiB in all
 *    across the messages (a short count), and writes each msg_len back as
 *    the kernel does.
 *  - Control data: walked as the kernel walks it, every length checked
 *    against our copy (unixguard_parse.c; a cmsg_len trusted past the
 *    copy was a heap overflow). On a unix socket only SCM_RIGHTS, passed
 *    with our pidfd_getfd(2) copies of the task's descriptors. On other
 *    families it passes as the task gave it, but only messages the kernel
 *    checks against the socket (IP_PKTINFO, IP_TTL, IP_TOS, their IPv6
 *    kin, UDP_SEGMENT, SO_TIMESTAMPING, SCM_TXTIME); those checked against
 *    the sender's capabilities (SO_MARK, SO_PRIORITY, IP options, IPv6
 *    extension headers) get EPERM here, as the command itself would get
 *    from the kernel; SCM_RIGHTS and SCM_CREDENTIALS the kernel's EINVAL.
 *  - SIGPIPE. The kernel raises SIGPIPE in whoever sends, here the
 *    guard, so we always send with MSG_NOSIGNAL; when the task's own
 *    flags lacked it and the answer is EPIPE, the guard sends SIGPIPE to
 *    the task with pidfd_send_signal(2) just before answering. The task
 *    waits killable (below), so the signal does not interrupt the call:
 *    it is delivered as the call returns EPIPE, as the kernel's own
 *    would be; its default action still kills the task, a handler still
 *    runs, SIG_IGN still ignores it. It goes to the thread on Linux >=
 *    6.9 (PIDFD_THREAD), to the thread group before. On a listener
 *    without WAIT_KILLABLE_RECV it is sent just after the answer instead
 *    (before, it would restart the call it belongs to): then it lands a
 *    few instructions after the call returns.
 *  - Signals. The filter is loaded with
 *    SECCOMP_FILTER_FLAG_WAIT_KILLABLE_RECV (seccomp.c; Linux 5.19): once
 *    we have received a notification, only a fatal signal ends the task's
 *    wait. Without it a handled signal (Go's SIGURG, an SA_RESTART timer)
 *    arriving while we run a call would have the kernel restart the call
 *    after we had run it: a duplicate send on a TCP stream, EISCONN on a
 *    connect ("sigdup" in unixsock.sh). The price: a blocking send run on
 *    behalf to a receiver that never reads cannot be interrupted by a
 *    handled signal, only by a fatal one (SIGKILL, or SIGINT/SIGTERM left
 *    at their default). A kernel that refuses the flag gets the listener
 *    without it, said at -v.
 *
 * Limits, said plainly:
 *  - Refused with EPERM: sendmmsg(2) on an AF_UNIX datagram socket (its
 *    addresses would each need checking), SCM_CREDENTIALS (it would be
 *    checked against the runner's ids), any control data of a compat
 *    task (another cmsg layout).
 *  - A blocking sendmmsg(2) that blocks holds this thread, and with it
 *    every trapped call of the sandbox, until it completes (glibc's
 *    resolver, its main user, sends on non-blocking sockets).
 *  - An unbound netlink socket that sends first is bound by the kernel to
 *    a port id taken from the sender's pid: the executor's, not the
 *    task's (glibc binds before it sends).
 *  - A call run on behalf is the executor's: the peer's SO_PEERCRED names
 *    the command's uid and gid but the executor's pid (0 inside: it is
 *    in the host's PID namespace); so do the SCM_CREDENTIALS a receiver
 *    with SO_PASSCRED gets with a stream or datagram sent on behalf.
 *  - An --expose'd socket is the inode its path led to when the sandbox
 *    started: a daemon that re-creates its socket later is not reached
 *    (restart the sandbox); one that did not exist then is never.
 *    A blocking connect to an inside listener whose backlog is full holds
 *    this thread until it is accepted.
 *  - A relative path is resolved from the task's cwd, but an absolute
 *    symlink met on the way is resolved in the runner's view; the verdict
 *    is on the inode reached, so this can refuse a socket, never open one.
 *  - i386 socketcall(2) carries its arguments in memory: refused (ENOSYS).
 *    The filter already keeps socketcall users from creating sockets.
 */

#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <time.h>
#include <poll.h>
#include <pthread.h>
#include <sched.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <sys/syscall.h>
#include <sys/uio.h>
#include <sys/un.h>
#include <unistd.h>
#include <arpa/inet.h>
#include <netinet/in.h>
#include <netinet/udp.h>
#include <linux/audit.h>
#include <linux/netlink.h>
#include <linux/openat2.h>
#include <linux/rtnetlink.h>
#include <linux/seccomp.h>
#include <linux/sock_diag.h>
#include <linux/unix_diag.h>
#include <seccomp.h> /* libseccomp's: syscall numbers per ABI */

#include "cleanup.h"
#include "io.h"
#include "initproto.h"
#include "log.h"
#include "unixguard.h"
#include "unixguard_behalf.h"

#define JR_UG_MAX_IOV 1024 /* UIO_MAXIOV */
/* Sends that would block, finished by worker threads at once. */
#define JR_UG_WORKERS 8
#define JR_X32_SYSCALL_BIT 0x40000000U
/* Interrupts the supervisor's blocking SECCOMP_IOCTL_NOTIF_RECV to stop. */
#define JR_UG_STOP_SIGNAL (SIGRTMIN + 3)

/* Linux 6.6; older uapi headers lack them. */
#ifndef SECCOMP_IOCTL_NOTIF_SET_FLAGS
#define SECCOMP_IOCTL_NOTIF_SET_FLAGS SECCOMP_IOW(4, __u64)
#endif
#ifndef SECCOMP_USER_NOTIF_FD_SYNC_WAKE_UP
#define SECCOMP_USER_NOTIF_FD_SYNC_WAKE_UP (1UL << 0)
#endif

/* ------------------------------------------------------------------ */
/* The supervisor                                                      */

/* One ABI's numbers for the trapped calls. */
struct abi_nrs {
	uint32_t arch;
	bool x32; /* x32: AUDIT_ARCH_X86_64 with the x32 bit in nr */
	bool compat;
	int nr[JR_UG_OTHER];
};

/* A socket inode, as stat(2) names it. */
struct ug_inode {
	dev_t dev;
	ino_t ino;
};

struct jr_unixguard {
	int listener; /* in the thread's table only (await_listener()) */
	int diag;
	int userns; /* the sandbox's user namespace, for the executor */
	struct jr_ids ids;
	struct jr_behalf *behalf; /* runs every call made on behalf */
	pthread_t thread;
	bool running;
	bool stopping; /* atomic */
	/* The --expose'd sockets, pinned before the command ran. */
	struct ug_inode *exposed;
	size_t n_exposed;
	/* jailrun's own control socket: never reachable from inside. */
	struct ug_inode control;
	bool has_control;
	bool tcp; /* Landlock's TCP connect rule, emulated */
	uint16_t *ports;
	size_t n_ports;
	struct abi_nrs abis[3];
	size_t n_abis;
	struct seccomp_notif_sizes sizes;
	uint32_t diag_seq;
	struct jr_unixguard_stats stats;
	bool out_of_fds; /* this notification met EMFILE/ENFILE */
	/* The thread's start-up, which attach() waits for: its own table. */
	pthread_mutex_t lock;
	pthread_cond_t cond;
	int table; /* 1 ours, -errno failed, 0 not yet */
	/* The hand-over (jr_unixguard_attach()), under @lock: the task and
	 * its listener's fd number, then the thread's answer. */
	bool want;
	pid_t task;
	int fdnum;
	int attached;		     /* 1 serving, -errno failed, 0 not yet */
	struct jr_err start_err;     /* why, when table < 0 */
	struct seccomp_notif *notif; /* allocated before the thread starts */
	struct seccomp_notif_resp *resp;
	struct ug_worker *workers; /* JR_UG_WORKERS of them (hand_off()) */
	bool handed; /* this notification is a worker's to answer */
	int sigpipe; /* the task's pidfd: SIGPIPE with the answer, or -1 */
	bool interruptible; /* the listener lacks WAIT_KILLABLE_RECV */
};

static const char *const call_names[JR_UG_OTHER] = {
	[JR_UG_CONNECT] = "connect",
	[JR_UG_SENDTO] = "sendto",
	[JR_UG_SENDMSG] = "sendmsg",
	[JR_UG_SENDMMSG] = "sendmmsg",
};

static void add_abi(struct jr_unixguard *g, uint32_t token, uint32_t arch,
		    bool x32, bool compat)
{
	struct abi_nrs *a = &g->abis[g->n_abis];

	a->arch = arch;
	a->x32 = x32;
	a->compat = compat;
	for (int c = 0; c < JR_UG_OTHER; c++) {
		int nr =
		    seccomp_syscall_resolve_name_arch(token, call_names[c]);

		if (nr >= 0 && x32)
			nr |= (int)JR_X32_SYSCALL_BIT;
		a->nr[c] = nr;
	}
	g->n_abis++;
}

static void init_abis(struct jr_unixguard *g)
{
#if defined(__x86_64__)
	add_abi(g, SCMP_ARCH_X86_64, AUDIT_ARCH_X86_64, false, false);
	add_abi(g, SCMP_ARCH_X86, AUDIT_ARCH_I386, false, true);
	add_abi(g, SCMP_ARCH_X32, AUDIT_ARCH_X86_64, true, true);
#else
	add_abi(g, SCMP_ARCH_NATIVE, seccomp_arch_native(), false, false);
#endif
}

static enum jr_ug_call which_call(const struct jr_unixguard *g,
				  const struct seccomp_data *d, bool *compat)
{
	*compat = false;
	for (size_t i = 0; i < g->n_abis; i++) {
		const struct abi_nrs *a = &g->abis[i];

		if (a->arch != d->arch)
			continue;
		if (a->arch == AUDIT_ARCH_X86_64 &&
		    a->x32 != !!((uint32_t)d->nr & JR_X32_SYSCALL_BIT))
			continue;
		for (int c = 0; c < JR_UG_OTHER; c++)
			if (a->nr[c] == d->nr) {
				*compat = a->compat;
				return (enum jr_ug_call)c;
			}
	}
	return JR_UG_OTHER;
}

#ifndef PIDFD_THREAD
#define PIDFD_THREAD O_EXCL /* Linux 6.9 */
#endif

/*
 * task_pidfd - a pidfd for the notifying task @tid, which may be any
 * thread (Go runs every goroutine's syscalls on some thread). Linux >= 6.9
 * takes a thread id with PIDFD_THREAD; before that, its thread group's
 * leader, which shares the fd table we want (threads made with
 * CLONE_FILES, which is what pthreads are).
 */
static int task_pidfd(pid_t tid)
{
	char path[64], line[128];
	FILE *f;
	int fd = (int)syscall(SYS_pidfd_open, tid, PIDFD_THREAD);
	pid_t tgid = 0;

	if (fd >= 0 || errno != EINVAL)
		return fd;
	fd = (int)syscall(SYS_pidfd_open, tid, 0);
	if (fd >= 0 || errno != EINVAL)
		return fd; /* @tid is a thread group leader */
	snprintf(path, sizeof(path), "/proc/%d/status", (int)tid);
	f = fopen(path, "re");
	if (!f)
		return -1;
	while (fgets(line, sizeof(line), f))
		if (sscanf(line, "Tgid: %d", &tgid) == 1)
			break;
	fclose(f);
	if (tgid <= 0)
		return -1;
	return (int)syscall(SYS_pidfd_open, tgid, 0);
}

/* Read @len bytes at @addr of task @pid. Return: 0 or -errno. */
static int read_task(pid_t pid, uint64_t addr, void *buf, size_t len)
{
	struct iovec local = { .iov_base = buf, .iov_len = len };
	struct iovec remote = { .iov_base = (void *)(uintptr_t)addr,
				.iov_len = len };
	ssize_t n;

	if (len == 0)
		return 0;
	n = process_vm_readv(pid, &local, 1, &remote, 1, 0);
	if (n < 0)
		return -errno;
	return (size_t)n == len ? 0 : -EFAULT;
}

static bool id_valid(const struct jr_unixguard *g, uint64_t id)
{
	return ioctl(g->listener, SECCOMP_IOCTL_NOTIF_ID_VALID, &id) == 0;
}

/*
 * diag_has_inode - is a unix socket of the worker netns bound to (@dev,
 * @ino)? One unix_diag dump (net/unix/diag.c lists only the sockets of the
 * netlink socket's own netns). Return: 1, 0, or -errno (fail closed).
 */
static int diag_has_inode(struct jr_unixguard *g, dev_t dev, ino_t ino)
{
	struct {
		struct nlmsghdr nlh;
		struct unix_diag_req req;
	} rq = {
		.nlh = { .nlmsg_len = sizeof(rq),
			 .nlmsg_type = SOCK_DIAG_BY_FAMILY,
			 .nlmsg_flags = NLM_F_REQUEST | NLM_F_DUMP,
			 .nlmsg_seq = ++g->diag_seq },
		.req = { .sdiag_family = AF_UNIX,
			 .udiag_states = ~0U,
			 .udiag_show = UDIAG_SHOW_VFS },
	};
	union {
		char buf[32768];
		struct nlmsghdr align;
	} u;
	int found = 0;

	if (send(g->diag, &rq, sizeof(rq), 0) != (ssize_t)sizeof(rq))
		return -errno;
	for (;;) {
		struct sockaddr_nl from;
		socklen_t fromlen = sizeof(from);
		ssize_t n = recvfrom(g->diag, u.buf, sizeof(u.buf), 0,
				     (struct sockaddr *)&from, &fromlen);
		struct nlmsghdr *h;

		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0)
			return n < 0 ? -errno : -EIO;
		/* Only the kernel (port 0) answers a dump: anything else
		 * sent to our port is not an answer (fail closed). */
		if (fromlen < sizeof(from) || from.nl_family != AF_NETLINK ||
		    from.nl_pid != 0)
			return -EPROTO;
		for (h = &u.align; NLMSG_OK(h, (size_t)n);
		     h = NLMSG_NEXT(h, n)) {
			struct unix_diag_msg *m;
			struct rtattr *a;
			int alen;

			if (h->nlmsg_seq != g->diag_seq)
				continue; /* a late answer to an old dump */
			if (h->nlmsg_type == NLMSG_DONE)
				return found;
			if (h->nlmsg_type == NLMSG_ERROR)
				return -EIO;
			if (h->nlmsg_len < NLMSG_LENGTH(sizeof(*m)))
				return -EIO;
			m = NLMSG_DATA(h);
			alen = (int)(h->nlmsg_len - NLMSG_LENGTH(sizeof(*m)));
			for (a = (struct rtattr *)(m + 1); RTA_OK(a, alen);
			     a = RTA_NEXT(a, alen)) {
				struct unix_diag_vfs v;

				if (a->rta_type != UNIX_DIAG_VFS ||
				    RTA_PAYLOAD(a) < (int)sizeof(v))
					continue;
				memcpy(&v, RTA_DATA(a), sizeof(v));
				if (v.udiag_vfs_ino == ino &&
				    jr_unixguard_kdev_matches(v.udiag_vfs_dev,
							      dev))
					found = 1;
			}
		}
	}
}

static int open_in(int dirfd, const char *path, uint64_t resolve)
{
	struct open_how how = { .flags = O_PATH | O_CLOEXEC,
				.resolve = resolve | RESOLVE_NO_MAGICLINKS };
	int fd = (int)syscall(SYS_openat2, dirfd, path, &how, sizeof(how));

	return fd < 0 ? -errno : fd;
}

/* Remember that an fd could not be had for lack of descriptors. */
static bool fd_shortage(struct jr_unixguard *g, int e)
{
	if (e == EMFILE || e == ENFILE)
		g->out_of_fds = true;
	return g->out_of_fds;
}

static bool same_inode(const struct ug_inode *i, const struct stat *st)
{
	return i->dev == st->st_dev && i->ino == st->st_ino;
}

/*
 * exposed - is @st one of the --expose'd sockets? They were pinned by
 * inode before the command ran (pin_exposed()); what a name leads to now
 * does not matter: a command that renames the directory and puts a
 * symlink to another socket at the exposed path reaches nothing new.
 */
static bool exposed(const struct jr_unixguard *g, const struct stat *st)
{
	for (size_t i = 0; i < g->n_exposed; i++)
		if (same_inode(&g->exposed[i], st))
			return true;
	return false;
}

/*
 * pin_path - resolve @path in the view of task @pid and decide. Return: an
 * O_PATH fd of an allowed socket inode, or -errno to answer (ECONNREFUSED
 * for a host socket).
 */
static int pin_path(struct jr_unixguard *g, const struct seccomp_notif *n,
		    const char *path)
{
	_cleanup_close_ int rootfd = -1, cwdfd = -1, fd = -1;
	char proc[64], shown[JR_LOG_ESCAPED(JR_UG_PATH_MAX)];
	struct stat st;
	int r;

	snprintf(proc, sizeof(proc), "/proc/%" PRIu32 "/root", n->pid);
	rootfd = open(proc, O_PATH | O_CLOEXEC);
	if (rootfd < 0)
		return fd_shortage(g, errno) ? -EMFILE : -ESRCH;
	if (path[0] == '/') {
		fd = open_in(rootfd, path, RESOLVE_IN_ROOT);
	} else {
		snprintf(proc, sizeof(proc), "/proc/%" PRIu32 "/cwd", n->pid);
		cwdfd = open(proc, O_PATH | O_CLOEXEC);
		if (cwdfd < 0)
			return fd_shortage(g, errno) ? -EMFILE : -ESRCH;
		fd = open_in(cwdfd, path, 0);
	}
	/* The pid named our task when we opened its root and cwd. */
	if (!id_valid(g, n->id))
		return -ESRCH;
	if (fd < 0 && fd_shortage(g, -fd))
		return -EMFILE;
	if (fd < 0) {
		jr_debug("unix socket %s (task %" PRIu32 "): %s",
			 jr_log_escape(path, shown, sizeof(shown)), n->pid,
			 strerror(-fd));
		return fd; /* ENOENT, EACCES, ELOOP...: what connect says */
	}
	if (fstat(fd, &st) < 0)
		return -errno;
	if (!S_ISSOCK(st.st_mode))
		return -ECONNREFUSED; /* unix_find_bsd() */
	if (g->has_control && same_inode(&g->control, &st)) {
		jr_verbose("unix socket %s: jailrun's control socket, refused",
			   jr_log_escape(path, shown, sizeof(shown)));
		return -ECONNREFUSED;
	}
	if (exposed(g, &st)) {
		jr_debug("unix socket %s: exposed, allowed",
			 jr_log_escape(path, shown, sizeof(shown)));
		return steal_fd(&fd);
	}
	if (g->out_of_fds)
		return -EMFILE;
	r = diag_has_inode(g, st.st_dev, st.st_ino);
	if (r < 0) {
		jr_warn("unix socket %s: cannot ask sock_diag (%s): refused",
			jr_log_escape(path, shown, sizeof(shown)),
			strerror(-r));
		return -ECONNREFUSED;
	}
	if (r == 0) {
		jr_verbose("unix socket %s: a host socket, refused",
			   jr_log_escape(path, shown, sizeof(shown)));
		return -ECONNREFUSED;
	}
	jr_debug("unix socket %s: made inside the sandbox, allowed",
		 jr_log_escape(path, shown, sizeof(shown)));
	return steal_fd(&fd);
}

/* An address as a send or connect gives it: room for any family. */
union ug_addr {
	struct sockaddr_storage ss;
	struct sockaddr_un un;
};

/*
 * One send run on behalf, everything copied out of the task: the bytes
 * and control data into a slot of the executor's arena, the address into
 * @to, the descriptors SCM_RIGHTS passes as our pidfd_getfd(2) copies.
 */
struct ug_send {
	size_t slot; /* the executor slot the bytes and control are in */
	int sfd;     /* the task's socket (ours: pidfd_getfd) */
	int pinned;  /* the O_PATH fd of the unix socket to reach, or -1 */
	int pidfd;   /* the task, for SIGPIPE (see "Limits"), or -1 */
	size_t boff; /* the bytes: slot bytes [boff, boff + len) */
	size_t len;
	size_t off;  /* already sent by an earlier, non-blocking try */
	size_t coff; /* the control: slot control [coff, coff + controllen) */
	size_t controllen;
	bool stream; /* SOCK_STREAM: a short count is legal */
	int flags;   /* the task's */
	union ug_addr to;
	socklen_t tolen;
	int fds[JR_UG_MAX_FDS]; /* our copies of the SCM_RIGHTS fds */
	size_t n_fds;
};

static void ug_send_init(struct ug_send *s)
{
	memset(s, 0, sizeof(*s));
	s->sfd = s->pinned = s->pidfd = -1;
}

static void ug_send_free(struct ug_send *s)
{
	if (s->sfd >= 0)
		close(s->sfd);
	if (s->pinned >= 0)
		close(s->pinned);
	if (s->pidfd >= 0)
		close(s->pidfd);
	for (size_t i = 0; i < s->n_fds; i++)
		close(s->fds[i]);
	ug_send_init(s);
}

/*
 * gather - copy the task's bytes at the @n remote iovecs @rv (their
 * copies in our memory) into @s's slot at @s->boff, at most @budget bytes,
 * with one process_vm_readv(2). Beyond @budget a stream send is cut (a
 * short count, which send(2) may give anyway), anything else is refused
 * with EMSGSIZE, as the kernel refuses a datagram above its send buffer.
 * A fault after some bytes of a stream send sends those, as tcp_sendmsg()
 * does. Return: 0 or -errno.
 */
static int gather(struct jr_unixguard *g, pid_t pid, struct iovec *rv, size_t n,
		  size_t budget, struct ug_send *s)
{
	size_t total = 0, cnt = 0;
	ssize_t got;

	for (size_t i = 0; i < n; i++) {
		size_t len = rv[i].iov_len;

		if (len == 0)
			continue;
		if (total == budget || len > budget - total) {
			if (!s->stream)
				return -EMSGSIZE;
			len = budget - total;
		}
		if (len == 0)
			break;
		rv[cnt].iov_base = rv[i].iov_base;
		rv[cnt].iov_len = len;
		cnt++;
		total += len;
	}
	s->len = 0;
	if (total == 0)
		return 0;
	{
		struct iovec local = { .iov_base =
					   jr_behalf_bytes(g->behalf, s->slot) +
					   s->boff,
				       .iov_len = total };

		got = process_vm_readv(pid, &local, 1, rv, cnt, 0);
	}
	if (got < 0)
		return -errno;
	if ((size_t)got < total && (!s->stream || got == 0))
		return -EFAULT;
	s->len = (size_t)got;
	return 0;
}

/* The task's iovec array, then its bytes (gather()). Return: 0 or -errno. */
static int read_iov(struct jr_unixguard *g, pid_t pid, uint64_t iov,
		    uint64_t iovlen, bool compat, size_t budget,
		    struct ug_send *s)
{
	_cleanup_free_ struct iovec *rv = NULL;
	int r;

	if (iovlen > JR_UG_MAX_IOV)
		return -EMSGSIZE; /* ____sys_sendmsg(): UIO_MAXIOV */
	rv = calloc(iovlen ? iovlen : 1, sizeof(*rv));
	if (!rv)
		return -ENOMEM;
	if (compat) {
		_cleanup_free_ uint32_t *c =
		    calloc(iovlen ? iovlen : 1, 2 * sizeof(uint32_t));

		if (!c)
			return -ENOMEM;
		r = read_task(pid, iov, c, iovlen * 2 * sizeof(uint32_t));
		for (uint64_t i = 0; r == 0 && i < iovlen; i++) {
			rv[i].iov_base = (void *)(uintptr_t)c[2 * i];
			rv[i].iov_len = c[2 * i + 1];
		}
	} else {
		r = read_task(pid, iov, rv, iovlen * sizeof(*rv));
	}
	if (r < 0)
		return r;
	return gather(g, pid, rv, (size_t)iovlen, budget, s);
}

static int read_msghdr(pid_t pid, uint64_t addr, bool compat,
		       struct jr_ug_msghdr *h)
{
	union {
		struct msghdr native;
		char compat[JR_UG_COMPAT_MSGHDR_SIZE];
	} raw;
	int r = read_task(pid, addr, &raw, jr_ug_msghdr_size(compat));

	if (r < 0)
		return r;
	jr_ug_msghdr_decode(&raw, compat, h);
	return 0;
}

/*
 * read_msg_name - a msghdr's address, read as ____sys_sendmsg() reads it:
 * none when msg_name is NULL or msg_namelen 0, EINVAL for a negative
 * length, a longer one cut to a sockaddr_storage.
 */
static int read_msg_name(pid_t pid, const struct jr_ug_msghdr *h,
			 union ug_addr *sa, size_t *salen)
{
	uint64_t len = h->namelen;
	int r;

	*salen = 0;
	if (!h->name || !len)
		return 0;
	if ((int32_t)h->namelen < 0)
		return -EINVAL;
	if (len > sizeof(sa->ss))
		len = sizeof(sa->ss);
	r = read_task(pid, h->name, sa, (size_t)len);
	if (r < 0)
		return r;
	*salen = (size_t)len;
	return 0;
}

/* The address a send names: sendto's, or the msghdr's (read into @h). */
static int read_send_addr(pid_t pid, enum jr_ug_call call,
			  const struct seccomp_data *d, bool compat,
			  union ug_addr *sa, size_t *salen,
			  struct jr_ug_msghdr *h)
{
	uint64_t ptr, len;
	int r;

	memset(h, 0, sizeof(*h));
	*salen = 0;
	if (call == JR_UG_SENDMSG) {
		r = read_msghdr(pid, d->args[1], compat, h);
		if (r < 0)
			return r;
		return read_msg_name(pid, h, sa, salen);
	}
	ptr = d->args[4];
	len = (uint32_t)d->args[5];
	if (!ptr || !len)
		return 0;
	if (len > sizeof(sa->ss))
		return -EINVAL; /* move_addr_to_kernel() */
	r = read_task(pid, ptr, sa, (size_t)len);
	if (r < 0)
		return r;
	*salen = (size_t)len;
	return 0;
}

/*
 * ug_send_run - have the executor send what is left of @s, @extra flags
 * added (it always adds MSG_NOSIGNAL: the task gets its SIGPIPE from us,
 * see "Limits"). Return: bytes or -errno.
 */
static ssize_t ug_send_run(struct jr_unixguard *g, struct ug_send *s, int extra)
{
	struct jr_behalf_req rq = {
		.op = JR_BEHALF_SEND,
		.flags = s->flags | extra,
		.pinned = s->pinned >= 0,
		.off = s->boff + s->off,
		.len = s->len - s->off,
		.control_off = s->coff,
		.controllen = s->controllen,
	};

	if (s->pinned < 0 && s->tolen) {
		memcpy(&rq.addr, &s->to, s->tolen);
		rq.addrlen = s->tolen;
	}
	return jr_behalf_call(g->behalf, s->slot, &rq, s->sfd, s->pinned,
			      s->fds, s->n_fds);
}

/* The SIGPIPE the kernel would have sent the task for this answer. */
static bool wants_sigpipe(ssize_t res, int flags)
{
	return res == -EPIPE && !(flags & MSG_NOSIGNAL);
}

/*
 * sigpipe - send SIGPIPE to the task behind @pidfd, just before its call
 * is answered (after, on a listener without WAIT_KILLABLE_RECV, where the
 * signal would restart the call): a thread pidfd (Linux >= 6.9) gets it
 * thread-directed, as the kernel's send_sig() in sk_stream_error() would;
 * before 6.9 the pidfd names the thread group (process-directed).
 */
static void sigpipe(int pidfd)
{
	if (pidfd >= 0 &&
	    syscall(SYS_pidfd_send_signal, pidfd, SIGPIPE, NULL, 0) < 0)
		jr_debug("unix socket guard: SIGPIPE to the command: %s",
			 strerror(errno));
}

/*
 * take_control - copy the task's control data for a send on behalf into
 * @s's slot at @s->coff, at most @budget bytes. The walk is the kernel's
 * (jr_ug_cmsg_next(): every length checked against the copy), each
 * message must pass jr_unixguard_cmsg_check(), and each descriptor of an
 * SCM_RIGHTS message is taken from the task with pidfd_getfd(2), so that
 * what is passed is what the task holds (the executor puts its copies in
 * place of the numbers). Anything of a compat task (another cmsg layout)
 * is refused. Return: 0 or -errno.
 */
static int take_control(struct jr_unixguard *g, pid_t pid, int pidfd,
			bool compat, int domain, const struct jr_ug_msghdr *h,
			size_t budget, struct ug_send *s)
{
	char *ctl = jr_behalf_control(g->behalf, s->slot) + s->coff;
	struct jr_ug_cmsg c;
	size_t pos = 0;
	int r;

	if (!h->controllen)
		return 0;
	if (compat || h->controllen > JR_UG_MAX_CONTROL)
		return -EPERM;
	if (h->controllen > budget)
		return -ENOBUFS; /* as above optmem_max */
	r = read_task(pid, h->control, ctl, h->controllen);
	if (r < 0)
		return r;
	s->controllen = h->controllen;
	while ((r = jr_ug_cmsg_next(ctl, s->controllen, &pos, &c)) == 1) {
		r = jr_unixguard_cmsg_check(domain, c.level, c.type);
		if (r < 0)
			return r;
		if (domain != AF_UNIX)
			continue;
		for (size_t i = 0; i < c.data_len / sizeof(int); i++) {
			int tfd, ours;

			if (s->n_fds == JR_UG_MAX_FDS)
				return -ETOOMANYREFS; /* SCM_MAX_FD */
			memcpy(&tfd, ctl + c.data_off + i * sizeof(int),
			       sizeof(int));
			ours = (int)syscall(SYS_pidfd_getfd, pidfd, tfd, 0);
			if (ours < 0) {
				fd_shortage(g, errno);
				return errno == EBADF ? -EBADF : -EPERM;
			}
			s->fds[s->n_fds++] = ours;
		}
	}
	return r;
}

/* Copy the bytes and control of a msghdr of the task into @s. */
static int take_msg(struct jr_unixguard *g, pid_t pid, int pidfd, bool compat,
		    int domain, const struct jr_ug_msghdr *h, size_t budget,
		    size_t cbudget, struct ug_send *s)
{
	int r = read_iov(g, pid, h->iov, h->iovlen, compat, budget, s);

	if (r < 0)
		return r;
	return take_control(g, pid, pidfd, compat, domain, h, cbudget, s);
}

/* Copy the bytes (and control) of the task's sendto or sendmsg into @s.
 * Return: 0 or -errno. */
static int take_send(struct jr_unixguard *g, pid_t pid, int pidfd,
		     enum jr_ug_call call, const struct seccomp_data *d,
		     bool compat, int domain, int type,
		     const struct jr_ug_msghdr *h, struct ug_send *s)
{
	s->stream = type == SOCK_STREAM;
	if (call == JR_UG_SENDTO) {
		struct iovec rv = { .iov_base = (void *)(uintptr_t)d->args[1],
				    .iov_len = (size_t)d->args[2] };

		s->flags = (int)d->args[3];
		return gather(g, pid, &rv, 1, JR_UG_MAX_SEND, s);
	}
	s->flags = (int)d->args[2];
	return take_msg(g, pid, pidfd, compat, domain, h, JR_UG_MAX_SEND,
			JR_UG_MAX_CONTROL, s);
}

/* A worker: one send that would block, run to its end. */
struct ug_worker {
	struct jr_unixguard *g;
	pthread_t thread;
	bool used;
	bool done; /* atomic */
	uint64_t id;
	struct ug_send s;
	struct seccomp_notif_resp *resp; /* allocated at start */
};

/*
 * finish_send - what a blocking send does, for @s: wait until the socket
 * takes more, send (never blocking the executor, MSG_DONTWAIT), until a
 * datagram went or a stream send is complete. Our copy of the socket
 * shares the task's open file, so poll(2) sees what a blocking send
 * would wait for. The stop signal breaks the wait.
 * Return: bytes in all, or -errno.
 */
static ssize_t finish_send(struct jr_unixguard *g, struct ug_send *s)
{
	for (;;) {
		struct pollfd p = { .fd = s->sfd, .events = POLLOUT };
		ssize_t n;

		if (poll(&p, 1, -1) < 0)
			return s->off ? (ssize_t)s->off : -errno;
		n = ug_send_run(g, s, MSG_DONTWAIT);
		if (n == -EAGAIN || n == -EWOULDBLOCK)
			continue;
		if (n < 0)
			return s->off ? (ssize_t)s->off : n;
		s->off += (size_t)n;
		if (!s->stream || s->off >= s->len)
			return (ssize_t)s->off;
		if (__atomic_load_n(&g->stopping, __ATOMIC_ACQUIRE))
			return (ssize_t)s->off;
	}
}

static void *worker_run(void *arg)
{
	struct ug_worker *w = arg;
	struct jr_unixguard *g = w->g;
	struct seccomp_notif_resp *resp = w->resp;
	ssize_t n = finish_send(g, &w->s);
	bool sp = wants_sigpipe(n, w->s.flags);

	memset(resp, 0, g->sizes.seccomp_notif_resp);
	resp->id = w->id;
	if (n < 0)
		resp->error = (int)n;
	else
		resp->val = n;
	if (sp && !g->interruptible)
		sigpipe(w->s.pidfd);
	if (ioctl(g->listener, SECCOMP_IOCTL_NOTIF_SEND, resp) < 0) {
		if (errno != ENOENT)
			jr_debug("unix socket guard: reply: %s",
				 strerror(errno));
	} else if (sp && g->interruptible) {
		sigpipe(w->s.pidfd);
	}
	ug_send_free(&w->s);
	__atomic_store_n(&w->done, true, __ATOMIC_RELEASE);
	return NULL;
}

/*
 * stop_join - interrupt thread @t with JR_UG_STOP_SIGNAL and join it. The
 * signal may land just before the thread enters its blocking call, so it
 * is sent again every 5 ms until the thread has left. The wait is a join
 * with a deadline, not a sleep: it returns the moment the thread is gone
 * (a fixed 5 ms sleep was most of the runner's teardown after every run).
 */
static void stop_join(pthread_t t)
{
	for (;;) {
		struct timespec ts;

		pthread_kill(t, JR_UG_STOP_SIGNAL);
		clock_gettime(CLOCK_MONOTONIC, &ts);
		ts.tv_nsec += 5 * 1000 * 1000;
		if (ts.tv_nsec >= 1000000000L) {
			ts.tv_sec++;
			ts.tv_nsec -= 1000000000L;
		}
		if (pthread_clockjoin_np(t, NULL, CLOCK_MONOTONIC, &ts) !=
		    ETIMEDOUT)
			return;
	}
}

/* Wait for worker @w to end, interrupting a send it is blocked in. */
static void worker_reap(struct ug_worker *w)
{
	if (__atomic_load_n(&w->done, __ATOMIC_ACQUIRE))
		pthread_join(w->thread, NULL);
	else
		stop_join(w->thread);
	w->used = false;
}

/*
 * hand_off - finish the blocking send @s (taken over) in a worker thread,
 * which replies for notification @id itself, so that this thread, and
 * every other trapped call of the sandbox, does not wait for a receiver
 * to drain its queue. The bytes and control move to the worker's own
 * executor slot. Workers are made by this thread, after it took a table
 * of its own, so they share that table. Return: true if handed off;
 * false if every worker is busy (the caller waits itself).
 */
static bool hand_off(struct jr_unixguard *g, uint64_t id, struct ug_send *s)
{
	struct ug_worker *w = NULL;
	size_t slot = 0;

	for (size_t i = 0; i < JR_UG_WORKERS; i++) {
		struct ug_worker *c = &g->workers[i];

		if (c->used && __atomic_load_n(&c->done, __ATOMIC_ACQUIRE))
			worker_reap(c);
		if (!c->used && !w) {
			w = c;
			slot = i + 1;
		}
	}
	if (!w)
		return false;
	memcpy(jr_behalf_bytes(g->behalf, slot),
	       jr_behalf_bytes(g->behalf, s->slot) + s->boff, s->len);
	memcpy(jr_behalf_control(g->behalf, slot),
	       jr_behalf_control(g->behalf, s->slot) + s->coff, s->controllen);
	w->g = g;
	w->id = id;
	w->s = *s;
	w->s.slot = slot;
	w->s.boff = 0;
	w->s.coff = 0;
	w->done = false;
	if (pthread_create(&w->thread, NULL, worker_run, w) != 0) {
		ug_send_init(&w->s);
		return false;
	}
	w->used = true;
	ug_send_init(s);
	return true;
}

/*
 * send_on_behalf - run the send in @s (its socket, address and bytes our
 * copies). A send the task made blocking is first tried with
 * MSG_DONTWAIT; if it would block, or sent only part of a stream send, a
 * worker finishes it (hand_off()), as a blocking send would have.
 * Return: bytes, -errno, or 1 with *@handed set (the worker replies).
 */
static ssize_t send_on_behalf(struct jr_unixguard *g, uint64_t id,
			      struct ug_send *s, bool *handed)
{
	int fl = fcntl(s->sfd, F_GETFL);
	bool blocking =
	    !(s->flags & MSG_DONTWAIT) && fl >= 0 && !(fl & O_NONBLOCK);
	ssize_t n = ug_send_run(g, s, blocking ? MSG_DONTWAIT : 0);

	*handed = false;
	if (!blocking)
		return n;
	if (n >= 0 && !(s->stream && (size_t)n < s->len))
		return n;
	if (n < 0 && n != -EAGAIN && n != -EWOULDBLOCK)
		return n;
	if (n > 0)
		s->off = (size_t)n;
	if (hand_off(g, id, s)) {
		*handed = true;
		return 1;
	}
	return finish_send(g, s);
}

/*
 * mmsg_on_behalf - sendmmsg(2) on a socket that is not a unix datagram
 * one, run on behalf: every message is copied first (address, bytes,
 * control, one after the other in this thread's slot), the notification
 * checked still valid, then each is sent in order and its msg_len written
 * back into the task's mmsghdr, as __sys_sendmmsg() does. As the kernel,
 * an error after the first message ends the call with the count so far;
 * the copies stop at JR_UG_MAX_SEND bytes and JR_UG_MAX_CONTROL control in
 * all (a short count, which a caller must handle anyway). Each send is
 * made as the task asked; one that blocks holds this thread (see
 * "Limits"). Return: messages sent, or -errno; *@last the last send's
 * result.
 */
static ssize_t mmsg_on_behalf(struct jr_unixguard *g,
			      const struct seccomp_notif *n, int pidfd, int sfd,
			      bool compat, int domain, int type, ssize_t *last)
{
	const struct seccomp_data *d = &n->data;
	uint64_t vlen = (uint32_t)d->args[2];
	const size_t stride = compat ? 32 : sizeof(struct mmsghdr);
	const size_t lenoff = compat ? 28 : offsetof(struct mmsghdr, msg_len);
	int flags = (int)d->args[3];
	_cleanup_free_ struct ug_send *m = NULL;
	size_t taken = 0, bytes = 0, cbytes = 0;
	ssize_t ret = 0;

	*last = 0;
	if (vlen > JR_UG_MAX_IOV)
		vlen = JR_UG_MAX_IOV; /* __sys_sendmmsg(): UIO_MAXIOV */
	if (vlen == 0)
		return 0;
	m = calloc((size_t)vlen, sizeof(*m));
	if (!m)
		return -ENOMEM;
	for (uint64_t i = 0; i < vlen; i++) {
		struct ug_send *s = &m[taken];
		struct jr_ug_msghdr h;
		size_t salen = 0;
		int r;

		ug_send_init(s);
		s->stream = type == SOCK_STREAM;
		s->flags = flags;
		s->boff = bytes;
		s->coff = cbytes;
		r = read_msghdr(n->pid, d->args[1] + i * stride, compat, &h);
		if (r == 0)
			r = read_msg_name(n->pid, &h, &s->to, &salen);
		/* A message that no longer fits ends the batch early. */
		if (r == 0 && taken && bytes == JR_UG_MAX_SEND)
			r = -EMSGSIZE;
		if (r == 0)
			r = take_msg(g, n->pid, pidfd, compat, domain, &h,
				     JR_UG_MAX_SEND - bytes,
				     JR_UG_MAX_CONTROL - cbytes, s);
		if (r == 0 && g->tcp && (flags & MSG_FASTOPEN) &&
		    !jr_unixguard_tcp_port_allowed(g->ports, g->n_ports, domain,
						   type, &s->to, salen))
			r = -EACCES;
		if (r < 0) {
			ug_send_free(s);
			if (taken == 0)
				ret = r;
			break;
		}
		s->tolen = (socklen_t)salen;
		bytes += s->len;
		cbytes += s->controllen;
		taken++;
	}
	if (taken && !id_valid(g, n->id))
		ret = -ESRCH;
	for (size_t i = 0; ret >= 0 && i < taken; i++) {
		ssize_t x;
		uint32_t len;
		struct iovec local = { .iov_base = &len,
				       .iov_len = sizeof(len) };
		struct iovec remote = {
			.iov_base = (void *)(uintptr_t)(d->args[1] +
							i * stride + lenoff),
			.iov_len = sizeof(len),
		};

		m[i].sfd = sfd;
		x = ug_send_run(g, &m[i], 0);
		m[i].sfd = -1;
		*last = x;
		if (x < 0) {
			if (i == 0)
				ret = x;
			break;
		}
		len = (uint32_t)x;
		if (process_vm_writev(n->pid, &local, 1, &remote, 1, 0) !=
		    (ssize_t)sizeof(len)) {
			ret = i ? ret : -EFAULT;
			break;
		}
		ret = (ssize_t)i + 1;
	}
	for (size_t i = 0; i < taken; i++)
		ug_send_free(&m[i]);
	return ret;
}

/*
 * One notification as handle() learns it, phase by phase: the call, the
 * task's socket, what was read of its arguments, and the decision's pin.
 */
struct ug_notif {
	enum jr_ug_call call;
	bool compat;
	int pidfd;  /* the task */
	int sfd;    /* its socket, our pidfd_getfd(2) copy */
	int pinned; /* the checked unix socket's O_PATH fd, or -1 */
	int domain; /* SO_DOMAIN and SO_TYPE of @sfd */
	int type;
	union ug_addr sa; /* the address, our copy */
	size_t salen;	  /* 0: none, or the executor names @pinned */
	struct jr_ug_msghdr h;
	struct ug_send snd; /* a sendto's or sendmsg's bytes and control */
	char path[JR_UG_PATH_MAX + 1];
};

/* Same order as handle()'s locals went out of scope: the send's copies,
 * then the pin, the socket and the pidfd. */
static void ug_notif_free(struct ug_notif *c)
{
	ug_send_free(&c->snd);
	jr_closep(&c->pinned);
	jr_closep(&c->sfd);
	jr_closep(&c->pidfd);
}

/*
 * take_socket - phase 1: the task (a pidfd), still the one the
 * notification names, and its socket, by pidfd_getfd(2), with SO_DOMAIN
 * and SO_TYPE of that file. Return: true to go on; false when @resp is
 * filled, or left to handle_checked() when out of descriptors.
 */
static bool take_socket(struct jr_unixguard *g, const struct seccomp_notif *n,
			struct ug_notif *c, struct seccomp_notif_resp *resp)
{
	socklen_t ol = sizeof(int);

	c->pidfd = task_pidfd(n->pid);
	if (c->pidfd < 0 && fd_shortage(g, errno))
		return false;
	if (c->pidfd < 0 || !id_valid(g, n->id)) {
		resp->error = -ESRCH; /* the task is gone: nobody reads it */
		return false;
	}
	/*
	 * Never CONTINUE, and never when we could not look: the fd could be
	 * made a unix socket between now and the kernel's re-read. The task
	 * gets the answer the kernel would give for what we saw (EBADF,
	 * ENOTSOCK).
	 */
	c->sfd =
	    (int)syscall(SYS_pidfd_getfd, c->pidfd, (int)n->data.args[0], 0);
	if (c->sfd < 0 && fd_shortage(g, errno))
		return false;
	if (c->sfd < 0) {
		resp->error = errno == EBADF ? -EBADF : -EPERM;
		if (errno != EBADF)
			jr_warn("unix socket guard: pidfd_getfd: %s: refused",
				strerror(errno));
		return false;
	}
	if (getsockopt(c->sfd, SOL_SOCKET, SO_DOMAIN, &c->domain, &ol) < 0 ||
	    getsockopt(c->sfd, SOL_SOCKET, SO_TYPE, &c->type, &ol) < 0) {
		resp->error = errno == ENOTSOCK ? -ENOTSOCK : -EPERM;
		return false;
	}
	return true;
}

/*
 * read_args - phase 2: copy out of the task what the call names: a
 * connect's address; a sendto's or sendmsg's address, bytes and control
 * (a sendmmsg's are read later, message by message, by mmsg_on_behalf()).
 * The caller checks the notification still valid after this. Return:
 * true to go on; false with @resp->error set.
 */
static bool read_args(struct jr_unixguard *g, const struct seccomp_notif *n,
		      struct ug_notif *c, struct seccomp_notif_resp *resp)
{
	const struct seccomp_data *d = &n->data;
	int r;

	if (c->call == JR_UG_CONNECT) {
		uint64_t len = (uint32_t)d->args[2];

		/* move_addr_to_kernel(): the kernel's own limits and errors
		 * (EINVAL above a sockaddr_storage, EFAULT unreadable). */
		if (len > sizeof(c->sa.ss)) {
			resp->error = -EINVAL;
			return false;
		}
		r = read_task(n->pid, d->args[1], &c->sa, (size_t)len);
		if (r < 0) {
			resp->error = r;
			return false;
		}
		c->salen = (size_t)len;
	} else if (c->call != JR_UG_SENDMMSG) {
		/* The bytes too: all of it is read before the validity
		 * check in handle(), so none of it can be another process's. */
		r = read_send_addr(n->pid, c->call, d, c->compat, &c->sa,
				   &c->salen, &c->h);
		if (r == 0)
			r = take_send(g, n->pid, c->pidfd, c->call, d,
				      c->compat, c->domain, c->type, &c->h,
				      &c->snd);
		if (r < 0) {
			ug_send_free(&c->snd);
			resp->error = r;
			return false;
		}
	}
	return true;
}

/*
 * decide - phase 3: what may be done with the address read, for this
 * call on this socket: refuse; pin the unix socket a path leads to and
 * check that inode (@c->pinned, @c->salen cleared); or run it on behalf,
 * TCP within Landlock's ports. Return: true to act; false when @resp is
 * filled, or left to handle_checked() when out of descriptors.
 */
static bool decide(struct jr_unixguard *g, const struct seccomp_notif *n,
		   struct ug_notif *c, struct seccomp_notif_resp *resp)
{
	enum jr_ug_addr kind;

	kind = jr_unixguard_parse_addr(c->salen ? &c->sa : NULL, c->salen,
				       c->path);
	switch (jr_unixguard_decide(c->call, c->domain, c->type, kind)) {
	case JR_UG_REFUSE:
		/* A bad address gets the kernel's EINVAL; a sendmmsg on a
		 * unix datagram socket is not run on behalf (see the top). */
		resp->error = c->call == JR_UG_SENDMMSG ? -EPERM : -EINVAL;
		g->stats.refused++;
		ug_send_free(&c->snd);
		return false;
	case JR_UG_CHECK_PATH:
		c->pinned = pin_path(g, n, c->path);
		if (c->pinned < 0 && g->out_of_fds) {
			ug_send_free(&c->snd);
			return false;
		}
		if (c->pinned < 0) {
			resp->error = c->pinned;
			if (c->pinned == -ECONNREFUSED)
				g->stats.refused++;
			ug_send_free(&c->snd);
			return false;
		}
		c->salen = 0; /* the executor names the pinned inode itself */
		break;
	case JR_UG_ON_BEHALF:
		/* The executor is not under the command's Landlock domain:
		 * its TCP rule is applied here, with Landlock's answer. A
		 * TCP Fast Open send connects as well. */
		if ((c->call == JR_UG_CONNECT ||
		     (c->call != JR_UG_SENDMMSG &&
		      (c->snd.flags & MSG_FASTOPEN))) &&
		    g->tcp &&
		    !jr_unixguard_tcp_port_allowed(g->ports, g->n_ports,
						   c->domain, c->type, &c->sa,
						   c->salen)) {
			jr_debug("unix socket guard: TCP connect to a port "
				 "Landlock does not allow: EACCES");
			resp->error = -EACCES;
			g->stats.refused++;
			ug_send_free(&c->snd);
			return false;
		}
		break;
	}
	return true;
}

/*
 * connect_on_behalf - phase 4 for a connect: the executor connects the
 * task's socket, to the pinned inode or to our copy of the address.
 *
 * @c->sfd shares the task's open file, O_NONBLOCK included: a
 * non-blocking connect answers EINPROGRESS at once and the task waits for
 * it itself. A blocking one holds the executor and this thread (and every
 * other trapped call of the sandbox) until it completes. Inside the
 * sandbox that is short: every TCP destination is local (the relay on the
 * veth, or loopback) or gets an immediate reset from nft, and a unix one
 * is a socket of the sandbox or an --expose'd one.
 */
static void connect_on_behalf(struct jr_unixguard *g, struct ug_notif *c,
			      struct seccomp_notif_resp *resp)
{
	struct jr_behalf_req rq = { .op = JR_BEHALF_CONNECT,
				    .pinned = c->pinned >= 0 };
	ssize_t res;

	if (c->pinned < 0 && c->salen) {
		memcpy(&rq.addr, &c->sa, c->salen);
		rq.addrlen = (uint32_t)c->salen;
	}
	res = jr_behalf_call(g->behalf, 0, &rq, c->sfd, c->pinned, NULL, 0);
	if (res == -ECHILD)
		jr_warn("unix socket guard: its executor is gone: "
			"the command's connects fail");
	resp->error = res < 0 ? (int)(res == -ECHILD ? -EPERM : res) : 0;
}

/*
 * sends_on_behalf - phase 4 for a send: a sendmmsg message by message, a
 * sendto or sendmsg with the copies read in phase 2 (its descriptors move
 * into the send, which may go to a worker). The task's pidfd is kept in
 * g->sigpipe when the kernel would have sent it SIGPIPE.
 * Return: as mmsg_on_behalf() or send_on_behalf(); *@handed as the latter.
 */
static ssize_t sends_on_behalf(struct jr_unixguard *g,
			       const struct seccomp_notif *n,
			       struct ug_notif *c, bool *handed)
{
	ssize_t res;

	if (c->call == JR_UG_SENDMMSG) {
		ssize_t last;

		res = mmsg_on_behalf(g, n, c->pidfd, c->sfd, c->compat,
				     c->domain, c->type, &last);
		if (wants_sigpipe(last, (int)n->data.args[3]))
			g->sigpipe = steal_fd(&c->pidfd);
		return res;
	}
	c->snd.sfd = steal_fd(&c->sfd);
	c->snd.pinned = steal_fd(&c->pinned);
	c->snd.pidfd = steal_fd(&c->pidfd);
	if (c->salen)
		memcpy(&c->snd.to, &c->sa, c->salen);
	c->snd.tolen = (socklen_t)c->salen;
	res = send_on_behalf(g, n->id, &c->snd, handed);
	if (!*handed && wants_sigpipe(res, c->snd.flags))
		g->sigpipe = steal_fd(&c->snd.pidfd);
	ug_send_free(&c->snd);
	return res;
}

/*
 * handle - handle one notification and fill @resp (see the top): take the
 * task's socket, read the call's arguments, check the notification is
 * still valid, decide, then act on behalf and answer with the result.
 */
static void handle(struct jr_unixguard *g, const struct seccomp_notif *n,
		   struct seccomp_notif_resp *resp)
{
	_cleanup_(ug_notif_free) struct ug_notif c;
	bool handed = false;
	ssize_t res;

	memset(&c, 0, sizeof(c));
	c.pidfd = c.sfd = c.pinned = -1;
	ug_send_init(&c.snd);
	resp->id = n->id;
	resp->val = 0;
	resp->error = 0;
	resp->flags = 0;
	g->stats.notifications++;

	c.call = which_call(g, &n->data, &c.compat);
	if (c.call == JR_UG_OTHER) {
		resp->error = -ENOSYS;
		g->stats.refused++;
		return;
	}
	if (!take_socket(g, n, &c, resp) || !read_args(g, n, &c, resp))
		return;
	/* What we read belongs to the task the notification names. */
	if (!id_valid(g, n->id)) {
		ug_send_free(&c.snd);
		resp->error = -ESRCH;
		return;
	}
	if (!decide(g, n, &c, resp))
		return;

	g->stats.on_behalf++;
	if (c.call == JR_UG_CONNECT) {
		connect_on_behalf(g, &c, resp);
		return;
	}
	res = sends_on_behalf(g, n, &c, &handed);
	if (handed) {
		g->handed = true; /* the worker answers */
		return;
	}
	if (res == -ECHILD) {
		jr_warn("unix socket guard: its executor is gone: the "
			"command's sends fail");
		res = -EPERM;
	}
	if (res < 0)
		resp->error = (int)res;
	else
		resp->val = res;
}

/*
 * handle_checked - handle(); if it could not get a descriptor, which in
 * the thread's own table (see the top) takes an RLIMIT_NOFILE below what
 * the runner needs to set up at all, answer EPERM: fail closed, we never
 * answer without having looked.
 */
static void handle_checked(struct jr_unixguard *g,
			   const struct seccomp_notif *n,
			   struct seccomp_notif_resp *resp)
{
	g->out_of_fds = false;
	g->handed = false;
	g->sigpipe = -1;
	handle(g, n, resp);
	if (g->out_of_fds && !g->handed) {
		jr_warn(
		    "unix socket guard: out of file descriptors: a connect or send of the command is refused");
		resp->id = n->id;
		resp->flags = 0;
		resp->error = -EPERM;
		resp->val = 0;
		g->stats.refused++;
	}
}

/*
 * own_table - give the calling thread a descriptor table of its own and
 * keep in it only stdio, the listener and the sock_diag socket (see the
 * top). Return: 0 or -errno.
 */
static int own_table(const struct jr_unixguard *g)
{
	int keep[] = { g->diag, g->userns };

	if (unshare(CLONE_FILES) < 0)
		return -errno;
	return jr_close_all_but(keep, sizeof(keep) / sizeof(keep[0]));
}

/*
 * start_behalf - fork the executor from this thread, whose table now
 * holds only the listener, the sock_diag socket and the user namespace
 * (so that is all the child has to close), then close our copy of the
 * namespace. One executor slot for this thread, one per worker. The
 * executor's descriptors live in this thread's table only: it is stopped
 * here too (end_serve()), never from the runner's main thread, where the
 * same numbers name other files.
 */
static int start_behalf(struct jr_unixguard *g)
{
	struct jr_behalf_config cfg = {
		.userns = g->userns,
		.ids = &g->ids,
		.n_slots = 1 + JR_UG_WORKERS,
	};
	int r = jr_behalf_spawn(&cfg, &g->behalf, &g->start_err);

	/* Our table's copy; the runner's own is closed by stop(). */
	close(g->userns);
	return r;
}

/*
 * end_serve - as this thread leaves: the sends its workers still wait on
 * are interrupted, then the executor goes, both from this thread's table.
 */
static void end_serve(struct jr_unixguard *g)
{
	for (size_t i = 0; i < JR_UG_WORKERS; i++)
		if (g->workers[i].used)
			worker_reap(&g->workers[i]);
	jr_behalf_stop(g->behalf);
	g->behalf = NULL;
}

static void table_ready(struct jr_unixguard *g, int r)
{
	pthread_mutex_lock(&g->lock);
	g->table = r < 0 ? r : 1;
	pthread_cond_broadcast(&g->cond);
	pthread_mutex_unlock(&g->lock);
}

/*
 * await_listener - with its table and executor ready, the thread waits
 * for the hand-over (jr_unixguard_attach()) and takes the listener into
 * its own table itself, so that the runner's table never holds it.
 * Return: 0 serving, or <0: stopped first, or the fetch failed (the
 * reason in g->start_err, for attach()).
 */
static int await_listener(struct jr_unixguard *g)
{
	struct jr_err err = { 0 };
	int r;

	pthread_mutex_lock(&g->lock);
	while (!g->want && !__atomic_load_n(&g->stopping, __ATOMIC_ACQUIRE))
		pthread_cond_wait(&g->cond, &g->lock);
	pthread_mutex_unlock(&g->lock);
	if (!g->want)
		return -ECANCELED;
	r = jr_unixguard_fetch_listener(g->task, g->fdnum, &err);
	if (r >= 0) {
		g->listener = r;
		/* Faster round trips where the kernel has it (see serve()). */
		if (ioctl(g->listener, SECCOMP_IOCTL_NOTIF_SET_FLAGS,
			  SECCOMP_USER_NOTIF_FD_SYNC_WAKE_UP) < 0)
			jr_debug(
			    "unix socket guard: no synchronous wake-ups (%s)",
			    strerror(errno));
	}
	pthread_mutex_lock(&g->lock);
	if (r < 0)
		g->start_err = err;
	g->attached = r < 0 ? r : 1;
	pthread_cond_broadcast(&g->cond);
	pthread_mutex_unlock(&g->lock);
	return r < 0 ? r : 0;
}

static void stop_signal_handler(int sig)
{
	(void)sig; /* only here to interrupt the ioctl (no SA_RESTART) */
}

/*
 * orphaned - every task the filter was attached to has exited. The kernel
 * then answers each SECCOMP_IOCTL_NOTIF_RECV with ENOENT at once instead
 * of waiting (recv_wait_event() sees no users), so a loop that retried
 * ENOENT spun on a CPU from the command's exit to jr_unixguard_stop(),
 * through the whole teardown. The listener polls POLLHUP in that state
 * (seccomp_notify_poll()); a filter gains tasks only by fork from one of
 * its own, so nothing can arrive any more.
 */
static bool orphaned(int listener)
{
	struct pollfd p = { .fd = listener, .events = POLLIN };

	return poll(&p, 1, 0) == 1 && (p.revents & POLLHUP);
}

/*
 * serve - the supervisor thread. It waits in SECCOMP_IOCTL_NOTIF_RECV
 * itself rather than in poll(2): with SECCOMP_USER_NOTIF_FD_SYNC_WAKE_UP
 * (Linux 6.6) the kernel then hands the CPU straight from the trapped task
 * to this thread and back, instead of two ordinary wake-ups, which on a
 * busy machine cost most of a notification's round trip. Stopping sends
 * JR_UG_STOP_SIGNAL to this thread, which breaks the wait with EINTR.
 */
static void *serve(void *arg)
{
	struct jr_unixguard *g = arg;
	struct seccomp_notif *n = g->notif;
	struct seccomp_notif_resp *resp = g->resp;
	sigset_t stop;
	int r;

	r = own_table(g);
	if (r < 0)
		jr_err_set(
		    &g->start_err, -r,
		    "unix socket guard: cannot give its thread a descriptor table of its own (unshare CLONE_FILES: %s)",
		    strerror(-r));
	else
		r = start_behalf(g);
	table_ready(g, r);
	if (r < 0)
		return NULL;
	if (await_listener(g) < 0) {
		end_serve(g);
		return NULL;
	}
	sigemptyset(&stop);
	sigaddset(&stop, JR_UG_STOP_SIGNAL);
	pthread_sigmask(SIG_UNBLOCK, &stop, NULL);
	while (!__atomic_load_n(&g->stopping, __ATOMIC_ACQUIRE)) {
		memset(n, 0, g->sizes.seccomp_notif);
		if (ioctl(g->listener, SECCOMP_IOCTL_NOTIF_RECV, n) < 0) {
			if (errno == ENOENT && orphaned(g->listener))
				break; /* the sandbox is gone */
			if (errno == EINTR || errno == ENOENT)
				continue; /* stopping, or the task went first */
			jr_error("unix socket guard: cannot receive (%s)",
				 strerror(errno));
			break;
		}
		memset(resp, 0, g->sizes.seccomp_notif_resp);
		handle_checked(g, n, resp);
		if (g->handed)
			continue;
		if (g->sigpipe >= 0 && !g->interruptible)
			sigpipe(g->sigpipe);
		if (ioctl(g->listener, SECCOMP_IOCTL_NOTIF_SEND, resp) < 0) {
			if (errno != ENOENT)
				jr_debug("unix socket guard: reply: %s",
					 strerror(errno));
		} else if (g->sigpipe >= 0 && g->interruptible) {
			sigpipe(g->sigpipe);
		}
		if (g->sigpipe >= 0)
			close(g->sigpipe);
		g->sigpipe = -1;
	}
	end_serve(g);
	return NULL;
}

int jr_unixguard_fetch_listener(pid_t pid, int fdnum, struct jr_err *err)
{
	_cleanup_close_ int pidfd = -1, fd = -1;
	char link[64], target[64];
	ssize_t n;

	pidfd = (int)syscall(SYS_pidfd_open, pid, 0);
	if (pidfd < 0)
		return jr_err_set(err, errno,
				  "unix socket guard: pidfd_open: %s",
				  strerror(errno));
	fd = (int)syscall(SYS_pidfd_getfd, pidfd, fdnum, 0);
	if (fd < 0)
		return jr_err_set(
		    err, errno,
		    "unix socket guard: cannot take the seccomp listener from the command (pidfd_getfd: %s; a Yama ptrace_scope of 3 forbids it)",
		    strerror(errno));
	/* thread-self: the guard's thread calls this, in its own table. */
	snprintf(link, sizeof(link), "/proc/thread-self/fd/%d", fd);
	n = readlink(link, target, sizeof(target) - 1);
	if (n < 0)
		n = 0;
	target[n] = '\0';
	if (strcmp(target, "anon_inode:seccomp notify") != 0)
		return jr_err_set(
		    err, EPROTO,
		    "unix socket guard: fd %d of the command is \"%s\", not a seccomp listener",
		    fdnum, target);
	return steal_fd(&fd);
}

/*
 * pin_exposed - resolve each --expose path once, in the view of @task
 * (the pre-exec child, blocked: the command has not run yet), and keep
 * the socket inode it leads to. Later connects are judged by inode
 * (exposed()), never by resolving the name again in a view the command
 * can change. A path with no socket at start pins nothing (the layout
 * does not pass it through either). Return: 0 or -errno, @err set.
 */
static int pin_exposed(struct jr_unixguard *g,
		       const struct jr_unixguard_listener *cfg,
		       struct jr_err *err)
{
	_cleanup_close_ int rootfd = -1;
	char proc[64];

	g->exposed = calloc(cfg->n_expose + 1, sizeof(*g->exposed));
	if (!g->exposed)
		return jr_err_set(err, ENOMEM, "out of memory");
	if (!cfg->n_expose)
		return 0;
	snprintf(proc, sizeof(proc), "/proc/%d/root", (int)cfg->task);
	rootfd = open(proc, O_PATH | O_CLOEXEC);
	if (rootfd < 0)
		return jr_err_set(
		    err, errno,
		    "unix socket guard: cannot see the sandbox's root to pin --expose sockets (%s)",
		    strerror(errno));
	for (size_t i = 0; i < cfg->n_expose; i++) {
		_cleanup_close_ int fd =
		    open_in(rootfd, cfg->expose[i], RESOLVE_IN_ROOT);
		struct stat st;

		if (fd < 0 || fstat(fd, &st) < 0 || !S_ISSOCK(st.st_mode)) {
			jr_verbose("--expose %s: no socket there at start: "
				   "nothing passed through",
				   cfg->expose[i]);
			continue;
		}
		g->exposed[g->n_exposed++] =
		    (struct ug_inode){ .dev = st.st_dev, .ino = st.st_ino };
	}
	return 0;
}

/*
 * alloc_notif - the kernel's notification sizes, and everything a
 * notification needs allocated now: an allocation failing later would
 * leave a trapped call unanswered. Return: 0 or -errno, @err set.
 */
static int alloc_notif(struct jr_unixguard *g, struct jr_err *err)
{
	if (syscall(SYS_seccomp, SECCOMP_GET_NOTIF_SIZES, 0, &g->sizes) < 0)
		return jr_err_set(
		    err, errno,
		    "unix socket guard: SECCOMP_GET_NOTIF_SIZES: %s",
		    strerror(errno));
	if (g->sizes.seccomp_notif < sizeof(struct seccomp_notif))
		g->sizes.seccomp_notif = sizeof(struct seccomp_notif);
	if (g->sizes.seccomp_notif_resp < sizeof(struct seccomp_notif_resp))
		g->sizes.seccomp_notif_resp = sizeof(struct seccomp_notif_resp);
	g->notif = calloc(1, g->sizes.seccomp_notif);
	g->resp = calloc(1, g->sizes.seccomp_notif_resp);
	if (!g->notif || !g->resp)
		return jr_err_set(err, ENOMEM, "out of memory");
	for (size_t i = 0; i < JR_UG_WORKERS; i++) {
		g->workers[i].resp = calloc(1, g->sizes.seccomp_notif_resp);
		if (!g->workers[i].resp)
			return jr_err_set(err, ENOMEM, "out of memory");
	}
	return 0;
}

/* pin_control - jailrun's own --control socket, by inode, if there is
 * one: never reachable from inside, whatever names it. */
static void pin_control(struct jr_unixguard *g,
			const struct jr_unixguard_listener *cfg)
{
	struct stat st;

	if (cfg->control_path && stat(cfg->control_path, &st) == 0 &&
	    S_ISSOCK(st.st_mode)) {
		g->control =
		    (struct ug_inode){ .dev = st.st_dev, .ino = st.st_ino };
		g->has_control = true;
	}
}

/* copy_ports - Landlock's TCP connect ports, when the guard applies that
 * rule itself (connects on behalf escape the command's domain). */
static int copy_ports(struct jr_unixguard *g,
		      const struct jr_unixguard_config *cfg, struct jr_err *err)
{
	if (!cfg->tcp)
		return 0;
	g->ports = calloc(cfg->n_ports + 1, sizeof(*g->ports));
	if (!g->ports)
		return jr_err_set(err, ENOMEM, "out of memory");
	if (cfg->n_ports)
		memcpy(g->ports, cfg->ports, cfg->n_ports * sizeof(*g->ports));
	g->n_ports = cfg->n_ports;
	g->tcp = true;
	return 0;
}

/*
 * jr_unixguard_prestart - everything but the listener: the allocations,
 * then the thread, which makes its own table and forks the executor
 * without being waited for. The fork and the table copy cost about a
 * millisecond on a busy VM; started before GO, they run beside init's
 * self-check and the pre-exec child's steps instead of after the
 * child's hand-over, on the way to the command's start.
 */
int jr_unixguard_prestart(const struct jr_unixguard_config *cfg,
			  struct jr_unixguard **out, struct jr_err *err)
{
	_cleanup_close_ int diag = cfg->diag, userns = cfg->userns;
	struct sigaction sa = { .sa_handler = stop_signal_handler };
	struct jr_unixguard *g;
	struct timeval tv = { .tv_sec = 2 };
	int r;

	*out = NULL;
	g = calloc(1, sizeof(*g));
	if (!g)
		return jr_err_set(err, ENOMEM, "out of memory");
	g->listener = g->diag = g->userns = g->sigpipe = -1;
	g->ids = *cfg->ids;
	g->workers = calloc(JR_UG_WORKERS, sizeof(*g->workers));
	if (!g->workers) {
		free(g);
		return jr_err_set(err, ENOMEM, "out of memory");
	}
	pthread_mutex_init(&g->lock, NULL);
	pthread_cond_init(&g->cond, NULL);
	r = alloc_notif(g, err);
	if (r < 0)
		goto fail;
	/* A dump that never ends must not stall every connect: fail closed. */
	if (setsockopt(diag, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof(tv)) < 0) {
		r = jr_err_set(err, errno, "unix socket guard: SO_RCVTIMEO: %s",
			       strerror(errno));
		goto fail;
	}
	r = copy_ports(g, cfg, err);
	if (r < 0)
		goto fail;
	init_abis(g);
	sigemptyset(&sa.sa_mask);
	if (sigaction(JR_UG_STOP_SIGNAL, &sa, NULL) < 0) {
		r = jr_err_set(err, errno, "unix socket guard: sigaction: %s",
			       strerror(errno));
		goto fail;
	}
	g->diag = steal_fd(&diag);
	g->userns = steal_fd(&userns);
	r = pthread_create(&g->thread, NULL, serve, g);
	if (r != 0) {
		r = jr_err_set(err, r, "unix socket guard: pthread_create: %s",
			       strerror(r));
		goto fail;
	}
	g->running = true;
	*out = g;
	return 0;
fail:
	jr_unixguard_stop(g, NULL);
	return r;
}

/*
 * hand_over - give the thread the listener (@l->fdnum of @l->task) and
 * wait until it serves it, or failed to start or to take it: fail closed.
 * Return: 0 or -errno, @err set.
 */
static int hand_over(struct jr_unixguard *g,
		     const struct jr_unixguard_listener *l, struct jr_err *err)
{
	int r;

	pthread_mutex_lock(&g->lock);
	g->task = l->task;
	g->fdnum = l->fdnum;
	g->want = true;
	pthread_cond_broadcast(&g->cond);
	while (g->table >= 0 && g->attached == 0)
		pthread_cond_wait(&g->cond, &g->lock);
	r = g->table < 0 ? g->table : g->attached;
	pthread_mutex_unlock(&g->lock);
	if (r < 0) {
		*err = g->start_err;
		return r;
	}
	return 0;
}

int jr_unixguard_attach(struct jr_unixguard *g,
			const struct jr_unixguard_listener *l,
			struct jr_err *err)
{
	int r;

	if (g->want)
		return jr_err_set(err, EPROTO,
				  "unexpected seccomp listener hand-over");
	/* Read by the thread only once it has the listener (the lock). */
	r = pin_exposed(g, l, err);
	if (r < 0)
		return r;
	pin_control(g, l);
	g->interruptible = l->interruptible;
	if (l->interruptible)
		jr_verbose(
		    "unix socket guard: the kernel refused SECCOMP_FILTER_FLAG_WAIT_KILLABLE_RECV (Linux < 5.19): a signal that interrupts a call the guard already ran has the command run it again");
	return hand_over(g, l, err);
}

void jr_unixguard_stop(struct jr_unixguard *g, struct jr_unixguard_stats *stats)
{
	if (!g)
		return;
	if (g->running) {
		/* Under the lock: the thread may wait for its listener. */
		pthread_mutex_lock(&g->lock);
		__atomic_store_n(&g->stopping, true, __ATOMIC_RELEASE);
		pthread_cond_broadcast(&g->cond);
		pthread_mutex_unlock(&g->lock);
		stop_join(g->thread);
	}
	/* The workers and the executor were stopped by the thread
	 * (end_serve()), in its own table. */
	for (size_t i = 0; i < JR_UG_WORKERS; i++)
		free(g->workers[i].resp);
	free(g->workers);
	if (stats)
		*stats = g->stats;
	pthread_mutex_destroy(&g->lock);
	pthread_cond_destroy(&g->cond);
	/* The listener was only ever in the thread's table, gone with it. */
	if (g->diag >= 0)
		close(g->diag);
	if (g->userns >= 0)
		close(g->userns);
	free(g->notif);
	free(g->resp);
	free(g->exposed);
	free(g->ports);
	free(g);
}

int jr_unixguard_handover(int proto, int listener, bool interruptible,
			  struct jr_err *err)
{
	struct jr_initproto_msg m;
	ssize_t n;

	memset(&m, 0, sizeof(m));
	m.type = JR_INITPROTO_UNOTIFY;
	m.code = listener;
	m.status = interruptible ? JR_UG_WAIT_INTERRUPTIBLE : 0;
	do {
		n = write(proto, &m, sizeof(m));
	} while (n < 0 && errno == EINTR);
	if (n != (ssize_t)sizeof(m)) {
		close(listener);
		return jr_err_set(err, n < 0 ? errno : EIO,
				  "cannot hand the seccomp listener over: %s",
				  n < 0 ? strerror(errno) : "short write");
	}
	do {
		n = read(proto, &m, sizeof(m));
	} while (n < 0 && errno == EINTR);
	/* The runner holds its own copy now (or gave up): ours goes. */
	close(listener);
	if (n != (ssize_t)sizeof(m))
		return jr_err_set(
		    err, EIO,
		    "the runner did not answer the seccomp listener hand-over");
	m.msg[sizeof(m.msg) - 1] = '\0';
	if (m.type != JR_INITPROTO_UNOTIFY_OK)
		return jr_err_set(
		    err, m.code ? m.code : EPROTO, "%s",
		    m.msg[0] ? m.msg : "the unix socket guard did not start");
	return 0;
}
