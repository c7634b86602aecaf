// SPDX-License-Identifier: GPL-2.0
/*
 * Small AF_MRC client for the shell selftests.
 *
 *   mrc_sock_helper bind PORT [ADDR]   bind, print "bound PORT", exit 0
 *   mrc_sock_helper hold PORT [ADDR]   bind, print "ready", wait for a signal
 *   mrc_sock_helper listen PORT [ADDR] bind, listen (backlog 128, or
 *                                      $MRC_BACKLOG), print "ready", wait
 *                                      for a signal; never accepts
 *   mrc_sock_helper close N PORT ADDR  N connections to ADDR:PORT, 64 KiB
 *                                      sent on each, print "sent", wait
 *                                      for SIGUSR1, close them all (data
 *                                      maybe unacknowledged), print
 *                                      "closed"
 *   mrc_sock_helper idle N BYTES PORT ADDR
 *                                      N connections to ADDR:PORT, BYTES
 *                                      (0 .. 65536) sent on each, print
 *                                      "connected N", wait for SIGUSR1,
 *                                      print "reset K": how many of them
 *                                      failed with ECONNRESET (SO_ERROR)
 *   mrc_sock_helper start N BYTES PORT ADDR
 *                                      N connections to ADDR:PORT, then
 *                                      BYTES (1 .. 65536) sent on each
 *                                      one after the other, so that their
 *                                      first windows overlap; 2 s later
 *                                      print "cuts C1 .. CN" and "timeouts
 *                                      T1 .. TN" (MRC_INFO of each, in
 *                                      the order they sent)
 *
 * On failure it prints "error <errno name>" and exits 1, so a script can
 * assert the exact errno.
 */
#define _GNU_SOURCE
#include <arpa/inet.h>
#include <errno.h>
#include <signal.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#include "mrc_family.h"

static int fail(void)
{
	printf("error %s\n", strerrorname_np(errno));
	return 1;
}

static void on_usr1(int sig)
{
	(void)sig;
}

/* @sa: AF_MRC address ADDR:PORT; -1 with errno EINVAL if ADDR is not IPv6. */
static int peer_addr(struct sockaddr_mrc *sa, int fam, const char *port,
		     const char *addr)
{
	memset(sa, 0, sizeof(*sa));
	sa->smrc_family = fam;
	sa->smrc_port = htons(atoi(port));
	if (inet_pton(AF_INET6, addr, sa->smrc_addr) != 1) {
		errno = EINVAL;
		return -1;
	}
	return 0;
}

/*
 * close N PORT ADDR and idle N BYTES PORT ADDR: see the top of the file.
 * @bytes < 0: close mode (64 KiB each).
 */
static int connect_many(int fam, int n, int bytes, const char *port,
			const char *addr)
{
	static char msg[65536];
	bool closer = bytes < 0;
	struct sockaddr_mrc sa;
	sigset_t set, old;
	int i, fd[256], err, reset = 0;
	socklen_t elen = sizeof(err);

	if (closer)
		bytes = sizeof(msg);
	if (n < 1 || n > 256 || bytes > (int)sizeof(msg)) {
		errno = EINVAL;
		return fail();
	}
	if (peer_addr(&sa, fam, port, addr))
		return fail();
	/* SIGUSR1 blocked until sigsuspend(): one sent early is not lost. */
	signal(SIGUSR1, on_usr1);
	sigemptyset(&set);
	sigaddset(&set, SIGUSR1);
	sigprocmask(SIG_BLOCK, &set, &old);
	for (i = 0; i < n; i++) {
		fd[i] = socket(fam, SOCK_SEQPACKET, 0);
		if (fd[i] < 0 ||
		    connect(fd[i], (struct sockaddr *)&sa, sizeof(sa)) ||
		    (bytes && send(fd[i], msg, bytes, 0) != bytes))
			return fail();
	}
	printf(closer ? "sent %d\n" : "connected %d\n", n);
	fflush(stdout);
	sigsuspend(&old);
	if (!closer) {
		for (i = 0; i < n; i++) {
			if (getsockopt(fd[i], SOL_SOCKET, SO_ERROR, &err, &elen))
				return fail();
			reset += err == ECONNRESET;
		}
		printf("reset %d\n", reset);
		return 0;
	}
	for (i = 0; i < n; i++)
		if (close(fd[i]))
			return fail();
	printf("closed %d\n", n);
	return 0;
}

/* start N BYTES PORT ADDR: see the top of the file. */
static int start_many(int fam, int n, int bytes, const char *port,
		      const char *addr)
{
	static char msg[65536];
	struct sockaddr_mrc sa;
	struct mrc_info mi[16];
	int i, fd[16];

	if (n < 1 || n > 16 || bytes < 1 || bytes > (int)sizeof(msg)) {
		errno = EINVAL;
		return fail();
	}
	if (peer_addr(&sa, fam, port, addr))
		return fail();
	for (i = 0; i < n; i++) {
		fd[i] = socket(fam, SOCK_SEQPACKET, 0);
		if (fd[i] < 0 ||
		    connect(fd[i], (struct sockaddr *)&sa, sizeof(sa)))
			return fail();
	}
	for (i = 0; i < n; i++)
		if (send(fd[i], msg, bytes, 0) != bytes)
			return fail();
	sleep(2);
	for (i = 0; i < n; i++)
		if (mrc_get_info(fd[i], &mi[i]))
			return fail();
	printf("cuts");
	for (i = 0; i < n; i++)
		printf(" %llu", (unsigned long long)mi[i].mi_iw_share_cuts);
	printf("\ntimeouts");
	for (i = 0; i < n; i++)
		printf(" %llu", (unsigned long long)mi[i].mi_timeouts);
	printf("\n");
	return 0;
}

int main(int argc, char **argv)
{
	struct sockaddr_mrc sa;
	socklen_t len = sizeof(sa);
	bool closer = argc == 5 && !strcmp(argv[1], "close");
	bool idler = argc == 6 && !strcmp(argv[1], "idle");
	bool starter = argc == 6 && !strcmp(argv[1], "start");
	int fam = mrc_family(), fd;

	if (!closer && !idler && !starter &&
	    (argc < 3 || (strcmp(argv[1], "bind") && strcmp(argv[1], "hold") &&
			  strcmp(argv[1], "listen")))) {
		fprintf(stderr, "usage: %s bind|hold|listen PORT [ADDR]\n"
			"       %s close N PORT ADDR\n"
			"       %s idle N BYTES PORT ADDR\n"
			"       %s start N BYTES PORT ADDR\n",
			argv[0], argv[0], argv[0], argv[0]);
		return 2;
	}
	/* Before the module is loaded there is no sysfs file to read: the
	 * autoload test names the family (MRC_FAMILY=12) to let socket()
	 * load the module through its net-pf-12 alias.
	 */
	if (getenv("MRC_FAMILY"))
		fam = atoi(getenv("MRC_FAMILY"));
	if (fam <= 0) {
		errno = EAFNOSUPPORT;
		return fail();
	}
	if (closer)
		return connect_many(fam, atoi(argv[2]), -1, argv[3], argv[4]);
	if (idler)
		return connect_many(fam, atoi(argv[2]), atoi(argv[3]), argv[4],
				    argv[5]);
	if (starter)
		return start_many(fam, atoi(argv[2]), atoi(argv[3]), argv[4],
				  argv[5]);
	fd = socket(fam, SOCK_SEQPACKET, 0);
	if (fd < 0)
		return fail();
	memset(&sa, 0, sizeof(sa));
	sa.smrc_family = fam;
	sa.smrc_port = htons(atoi(argv[2]));
	if (argc > 3 && inet_pton(AF_INET6, argv[3], sa.smrc_addr) != 1) {
		errno = EINVAL;
		return fail();
	}
	if (bind(fd, (struct sockaddr *)&sa, sizeof(sa)) ||
	    getsockname(fd, (struct sockaddr *)&sa, &len))
		return fail();
	if (!strcmp(argv[1], "bind")) {
		printf("bound %u\n", ntohs(sa.smrc_port));
		return close(fd) ? fail() : 0;
	}
	if (!strcmp(argv[1], "listen") &&
	    listen(fd, getenv("MRC_BACKLOG") ? atoi(getenv("MRC_BACKLOG")) : 128))
		return fail();
	printf("ready %u\n", ntohs(sa.smrc_port));
	fflush(stdout);
	pause();
	return 0;
}
