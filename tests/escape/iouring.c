// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * iouring - escape probe for tests/escape/escape.sh: open and connect a TCP
 * socket through io_uring alone (IORING_OP_SOCKET + IORING_OP_CONNECT), with
 * raw syscalls (no liburing), so neither socket(2) nor connect(2) is ever
 * called. Prints one RESULT line per step; exit 0 whenever the probe ran.
 *
 *   iouring ADDR PORT
 */
#include <arpa/inet.h>
#include <errno.h>
#include <linux/io_uring.h>
#include <netinet/in.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/socket.h>
#include <sys/syscall.h>
#include <unistd.h>

static const char *ename(int e)
{
	switch (e) {
	case ENOSYS:
		return "ENOSYS";
	case EPERM:
		return "EPERM";
	case EACCES:
		return "EACCES";
	case EINVAL:
		return "EINVAL";
	case EBADF:
		return "EBADF";
	case ECONNREFUSED:
		return "ECONNREFUSED";
	case ENETUNREACH:
		return "ENETUNREACH";
	case EHOSTUNREACH:
		return "EHOSTUNREACH";
	case ETIMEDOUT:
		return "ETIMEDOUT";
	case EAFNOSUPPORT:
		return "EAFNOSUPPORT";
	default:
		return strerror(e);
	}
}

struct ring {
	int fd;
	unsigned *sq_tail, *sq_mask, *sq_array;
	unsigned *cq_head, *cq_tail, *cq_mask;
	struct io_uring_sqe *sqes;
	struct io_uring_cqe *cqes;
};

/* Submit one SQE and wait for its completion; the CQE's res. */
static int submit_one(struct ring *r, const struct io_uring_sqe *sqe)
{
	unsigned tail = __atomic_load_n(r->sq_tail, __ATOMIC_ACQUIRE);
	unsigned idx = tail & *r->sq_mask;
	unsigned head;
	int res;

	r->sqes[idx] = *sqe;
	r->sq_array[idx] = idx;
	__atomic_store_n(r->sq_tail, tail + 1, __ATOMIC_RELEASE);
	if (syscall(__NR_io_uring_enter, r->fd, 1, 1, IORING_ENTER_GETEVENTS,
		    NULL, 0) < 0)
		return -errno;
	head = __atomic_load_n(r->cq_head, __ATOMIC_ACQUIRE);
	if (head == __atomic_load_n(r->cq_tail, __ATOMIC_ACQUIRE))
		return -EAGAIN;
	res = r->cqes[head & *r->cq_mask].res;
	__atomic_store_n(r->cq_head, head + 1, __ATOMIC_RELEASE);
	return res;
}

int main(int argc, char **argv)
{
	struct io_uring_params p;
	struct ring r;
	struct io_uring_sqe sqe;
	struct sockaddr_in sin;
	size_t sq_len, cq_len;
	uint8_t *sq, *cq;
	int sfd, res;

	if (argc != 3) {
		fprintf(stderr, "usage: iouring ADDR PORT\n");
		return 2;
	}
	/* The two other io_uring syscalls: a filter answers before the fd is
	 * looked at (ENOSYS), the kernel says EBADF. */
	errno = 0;
	syscall(__NR_io_uring_enter, -1, 0, 0, 0, NULL, 0);
	printf("RESULT io_uring_enter(-1) %s\n", ename(errno));
	errno = 0;
	syscall(__NR_io_uring_register, -1, 0, NULL, 0);
	printf("RESULT io_uring_register(-1) %s\n", ename(errno));

	memset(&p, 0, sizeof(p));
	r.fd = (int)syscall(__NR_io_uring_setup, 8, &p);
	if (r.fd < 0) {
		printf("RESULT io_uring_setup %s\n", ename(errno));
		return 0;
	}
	printf("RESULT io_uring_setup CREATED fd=%d\n", r.fd);
	sq_len = p.sq_off.array + p.sq_entries * sizeof(unsigned);
	cq_len = p.cq_off.cqes + p.cq_entries * sizeof(struct io_uring_cqe);
	if ((p.features & IORING_FEAT_SINGLE_MMAP) && cq_len > sq_len)
		sq_len = cq_len;
	sq = mmap(NULL, sq_len, PROT_READ | PROT_WRITE,
		  MAP_SHARED | MAP_POPULATE, r.fd, IORING_OFF_SQ_RING);
	cq = (p.features & IORING_FEAT_SINGLE_MMAP)
		 ? sq
		 : mmap(NULL, cq_len, PROT_READ | PROT_WRITE,
			MAP_SHARED | MAP_POPULATE, r.fd, IORING_OFF_CQ_RING);
	r.sqes = mmap(NULL, p.sq_entries * sizeof(struct io_uring_sqe),
		      PROT_READ | PROT_WRITE, MAP_SHARED | MAP_POPULATE, r.fd,
		      IORING_OFF_SQES);
	if (sq == MAP_FAILED || cq == MAP_FAILED || r.sqes == MAP_FAILED) {
		printf("RESULT io_uring mmap %s\n", ename(errno));
		return 0;
	}
	r.sq_tail = (unsigned *)(sq + p.sq_off.tail);
	r.sq_mask = (unsigned *)(sq + p.sq_off.ring_mask);
	r.sq_array = (unsigned *)(sq + p.sq_off.array);
	r.cq_head = (unsigned *)(cq + p.cq_off.head);
	r.cq_tail = (unsigned *)(cq + p.cq_off.tail);
	r.cq_mask = (unsigned *)(cq + p.cq_off.ring_mask);
	r.cqes = (struct io_uring_cqe *)(cq + p.cq_off.cqes);

	/* IORING_OP_SOCKET: fd = domain, off = type, len = protocol. */
	memset(&sqe, 0, sizeof(sqe));
	sqe.opcode = IORING_OP_SOCKET;
	sqe.fd = AF_INET;
	sqe.off = SOCK_STREAM;
	sqe.len = 0;
	res = submit_one(&r, &sqe);
	if (res < 0) {
		printf("RESULT io_uring socket %s\n", ename(-res));
		return 0;
	}
	sfd = res;
	printf("RESULT io_uring socket fd=%d\n", sfd);

	memset(&sin, 0, sizeof(sin));
	sin.sin_family = AF_INET;
	sin.sin_port = htons((uint16_t)atoi(argv[2]));
	if (inet_pton(AF_INET, argv[1], &sin.sin_addr) != 1) {
		fprintf(stderr, "iouring: bad address %s\n", argv[1]);
		return 2;
	}
	/* IORING_OP_CONNECT: addr = sockaddr, off = its length. */
	memset(&sqe, 0, sizeof(sqe));
	sqe.opcode = IORING_OP_CONNECT;
	sqe.fd = sfd;
	sqe.addr = (uint64_t)(uintptr_t)&sin;
	sqe.off = sizeof(sin);
	res = submit_one(&r, &sqe);
	if (res < 0)
		printf("RESULT io_uring connect %s:%s %s\n", argv[1], argv[2],
		       ename(-res));
	else
		printf("RESULT io_uring connect %s:%s CONNECTED\n", argv[1],
		       argv[2]);
	return 0;
}
