// SPDX-License-Identifier: GPL-2.0
/*
 * AF_MRC connections end to end: connect/listen/accept, messages of every
 * size, the errno contract of the datapath calls, poll/epoll, timeouts,
 * shutdown, close, MRC_INFO. Every test runs twice: over loopback in the
 * test's namespace, and over a veth pair between two namespaces.
 */
#define _GNU_SOURCE
#include <arpa/inet.h>
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <sched.h>
#include <signal.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/epoll.h>
#include <sys/socket.h>
#include <sys/time.h>
#include <time.h>
#include <unistd.h>

#include "kselftest_harness.h"
#include "mrc_family.h"

#define SRV_PORT	5000
#define NS_SRV		"mrcct-srv"
#define NS_CLI		"mrcct-cli"

static struct sockaddr_mrc mrc_addr(int fam, unsigned short port, const char *ip6)
{
	struct sockaddr_mrc sa;

	memset(&sa, 0, sizeof(sa));
	sa.smrc_family = fam;
	sa.smrc_port = htons(port);
	if (ip6)
		inet_pton(AF_INET6, ip6, sa.smrc_addr);
	return sa;
}

static int open_ns(const char *name)
{
	char path[128];

	snprintf(path, sizeof(path), "/run/netns/%s", name);
	return open(path, O_RDONLY | O_CLOEXEC);
}

/* A socket created in namespace @nsfd (-1: the current one). */
static int socket_in(int nsfd, int home, int fam)
{
	int fd;

	if (nsfd >= 0 && setns(nsfd, CLONE_NEWNET))
		return -1;
	fd = socket(fam, SOCK_SEQPACKET, 0);
	if (nsfd >= 0 && setns(home, CLONE_NEWNET)) {
		close(fd);
		return -1;
	}
	return fd;
}

static double now_s(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

static void fill(unsigned char *p, size_t n, unsigned int seed)
{
	size_t i;

	for (i = 0; i < n; i++)
		p[i] = (unsigned char)((i * 131 + seed * 7 + (i >> 12)) & 0xff);
}

/* recv() a whole message into @buf of @cap bytes, with a 60 s timeout. */
static ssize_t recv_msg(int fd, void *buf, size_t cap, int flags)
{
	struct pollfd p = { .fd = fd, .events = POLLIN };

	if (poll(&p, 1, 60000) != 1)
		return -2;
	return recv(fd, buf, cap, flags | MSG_DONTWAIT);
}

static int get_info(int fd, struct mrc_info *mi)
{
	socklen_t len = sizeof(*mi);

	memset(mi, 0, sizeof(*mi));
	return getsockopt(fd, SOL_MRC, MRC_INFO, mi, &len);
}

FIXTURE(conn) {
	int fam;
	int home;
	int ns_srv;
	int ns_cli;
	int lfd;
	int cfd;
	int afd;
	struct sockaddr_mrc srv;
};

FIXTURE_VARIANT(conn) {
	bool veth;
	const char *srv_ip;
	const char *cli_ip;
};

FIXTURE_VARIANT_ADD(conn, loopback) {
	.veth = false,
	.srv_ip = "::1",
	.cli_ip = "::1",
};

FIXTURE_VARIANT_ADD(conn, veth) {
	.veth = true,
	.srv_ip = "fd00:6d72::1",
	.cli_ip = "fd00:6d72::2",
};

static void veth_down(void)
{
	if (system("ip netns del " NS_SRV " 2>/dev/null; ip netns del " NS_CLI " 2>/dev/null"))
		return;
}

static int veth_up(void)
{
	veth_down();
	return system("set -e; ip netns add " NS_SRV "; ip netns add " NS_CLI ";"
		      "ip -n " NS_SRV " link set dev lo up; ip -n " NS_CLI " link set dev lo up;"
		      "ip link add name mrcct0 netns " NS_SRV " type veth peer name mrcct1 netns " NS_CLI ";"
		      "ip -n " NS_SRV " addr add fd00:6d72::1/64 dev mrcct0 nodad;"
		      "ip -n " NS_CLI " addr add fd00:6d72::2/64 dev mrcct1 nodad;"
		      "ip -n " NS_SRV " link set dev mrcct0 up; ip -n " NS_CLI " link set dev mrcct1 up");
}

FIXTURE_SETUP(conn)
{
	struct sockaddr_mrc sa;

	self->fam = mrc_family();
	ASSERT_GT(self->fam, 0) TH_LOG("mrc.ko not loaded");
	self->home = open("/proc/self/ns/net", O_RDONLY | O_CLOEXEC);
	ASSERT_LE(0, self->home);
	self->ns_srv = -1;
	self->ns_cli = -1;
	self->lfd = self->cfd = self->afd = -1;
	if (variant->veth) {
		ASSERT_EQ(0, veth_up());
		self->ns_srv = open_ns(NS_SRV);
		self->ns_cli = open_ns(NS_CLI);
		ASSERT_LE(0, self->ns_srv);
		ASSERT_LE(0, self->ns_cli);
	}
	self->lfd = socket_in(self->ns_srv, self->home, self->fam);
	ASSERT_LE(0, self->lfd);
	sa = mrc_addr(self->fam, SRV_PORT, NULL);
	ASSERT_EQ(0, bind(self->lfd, (struct sockaddr *)&sa, sizeof(sa)));
	ASSERT_EQ(0, listen(self->lfd, 8));
	self->srv = mrc_addr(self->fam, SRV_PORT, variant->srv_ip);
	self->cfd = socket_in(self->ns_cli, self->home, self->fam);
	ASSERT_LE(0, self->cfd);
	ASSERT_EQ(0, connect(self->cfd, (struct sockaddr *)&self->srv, sizeof(self->srv)))
		TH_LOG("connect: %s", strerror(errno));
	self->afd = accept(self->lfd, NULL, NULL);
	ASSERT_LE(0, self->afd) TH_LOG("accept: %s", strerror(errno));
}

FIXTURE_TEARDOWN(conn)
{
	if (self->afd >= 0)
		close(self->afd);
	if (self->cfd >= 0)
		close(self->cfd);
	if (self->lfd >= 0)
		close(self->lfd);
	if (variant->veth) {
		close(self->ns_srv);
		close(self->ns_cli);
		veth_down();
	}
	close(self->home);
}

TEST_F(conn, connect_accept_getpeername)
{
	struct sockaddr_mrc peer, local, sa;
	socklen_t len = sizeof(peer);
	struct mrc_info mi;

	ASSERT_EQ(0, getpeername(self->cfd, (struct sockaddr *)&peer, &len));
	EXPECT_EQ(sizeof(peer), len);
	EXPECT_EQ(self->fam, peer.smrc_family);
	EXPECT_EQ(htons(SRV_PORT), peer.smrc_port);
	EXPECT_EQ(0, memcmp(peer.smrc_addr, self->srv.smrc_addr, 16));
	len = sizeof(local);
	ASSERT_EQ(0, getsockname(self->cfd, (struct sockaddr *)&local, &len));
	EXPECT_NE(0, local.smrc_port);	/* autobound */
	len = sizeof(peer);
	ASSERT_EQ(0, getpeername(self->afd, (struct sockaddr *)&peer, &len));
	EXPECT_EQ(local.smrc_port, peer.smrc_port);
	sa = mrc_addr(self->fam, 0, variant->cli_ip);
	EXPECT_EQ(0, memcmp(peer.smrc_addr, sa.smrc_addr, 16));
	len = sizeof(local);
	ASSERT_EQ(0, getsockname(self->afd, (struct sockaddr *)&local, &len));
	EXPECT_EQ(htons(SRV_PORT), local.smrc_port);
	/* The listener has no peer. */
	len = sizeof(peer);
	EXPECT_EQ(-1, getpeername(self->lfd, (struct sockaddr *)&peer, &len));
	EXPECT_EQ(ENOTCONN, errno);
	ASSERT_EQ(0, get_info(self->cfd, &mi));
	EXPECT_EQ((__u32)MRC_INFO_ESTABLISHED, mi.mi_state);
	ASSERT_EQ(0, get_info(self->afd, &mi));
	EXPECT_EQ((__u32)MRC_INFO_ESTABLISHED, mi.mi_state);
	/* A second connect is refused. */
	EXPECT_EQ(-1, connect(self->cfd, (struct sockaddr *)&self->srv, sizeof(self->srv)));
	EXPECT_EQ(EISCONN, errno);
}

TEST_F(conn, connection_refused)
{
	struct sockaddr_mrc sa = self->srv;
	int fd = socket_in(self->ns_cli, self->home, self->fam);

	ASSERT_LE(0, fd);
	sa.smrc_port = htons(SRV_PORT + 1);
	EXPECT_EQ(-1, connect(fd, (struct sockaddr *)&sa, sizeof(sa)));
	EXPECT_EQ(ECONNREFUSED, errno);
	close(fd);
}

TEST_F(conn, message_sizes_both_ways)
{
	struct mrc_info mi;
	size_t sizes[9];
	unsigned char *tx, *rx;
	size_t i, n = 0;
	ssize_t r;

	ASSERT_EQ(0, get_info(self->cfd, &mi));
	ASSERT_GT(mi.mi_mtu, 64u);
	sizes[n++] = 0;
	sizes[n++] = 1;
	sizes[n++] = mi.mi_mtu - 1;
	sizes[n++] = mi.mi_mtu;
	sizes[n++] = mi.mi_mtu + 1;
	sizes[n++] = 65537;
	sizes[n++] = 1 << 20;
	sizes[n++] = MRC_MSG_MAX;
	tx = malloc(MRC_MSG_MAX);
	rx = malloc(MRC_MSG_MAX + 1);
	ASSERT_TRUE(tx && rx);
	for (i = 0; i < n; i++) {
		int a = (i & 1) ? self->afd : self->cfd;
		int b = (i & 1) ? self->cfd : self->afd;

		fill(tx, sizes[i], i);
		ASSERT_EQ((ssize_t)sizes[i], send(a, tx, sizes[i], 0))
			TH_LOG("send %zu: %s", sizes[i], strerror(errno));
		r = recv_msg(b, rx, MRC_MSG_MAX + 1, 0);
		ASSERT_EQ((ssize_t)sizes[i], r) TH_LOG("size %zu: got %zd (%s)",
						       sizes[i], r, strerror(errno));
		EXPECT_EQ(0, memcmp(tx, rx, sizes[i])) TH_LOG("size %zu corrupt", sizes[i]);
	}
	/* Beyond the maximum. */
	EXPECT_EQ(-1, send(self->cfd, tx, MRC_MSG_MAX + 1, 0));
	EXPECT_EQ(EMSGSIZE, errno);
	free(tx);
	free(rx);
}

TEST_F(conn, message_trunc)
{
	char big[100], small[10];
	struct msghdr mh = { 0 };
	struct iovec iov = { .iov_base = small, .iov_len = sizeof(small) };

	fill((unsigned char *)big, sizeof(big), 3);
	ASSERT_EQ(100, send(self->cfd, big, sizeof(big), 0));
	ASSERT_EQ(100, send(self->cfd, big, sizeof(big), 0));
	mh.msg_iov = &iov;
	mh.msg_iovlen = 1;
	ASSERT_EQ(100, recv_msg(self->afd, NULL, 0, MSG_PEEK | MSG_TRUNC));
	ASSERT_EQ(10, recvmsg(self->afd, &mh, 0));
	EXPECT_TRUE(mh.msg_flags & MSG_TRUNC);
	EXPECT_TRUE(mh.msg_flags & MSG_EOR);
	EXPECT_EQ(0, memcmp(small, big, sizeof(small)));
	/* MSG_TRUNC returns the real length; the rest of the message is gone. */
	EXPECT_EQ(100, recv_msg(self->afd, small, sizeof(small), MSG_TRUNC));
	EXPECT_EQ(-1, recv(self->afd, small, sizeof(small), MSG_DONTWAIT));
	EXPECT_EQ(EAGAIN, errno);
}

TEST_F(conn, dontwait_poll_epoll)
{
	struct pollfd p = { .fd = self->afd, .events = POLLIN | POLLOUT };
	struct epoll_event ev = { .events = EPOLLIN }, out;
	char buf[16];
	int ep;

	EXPECT_EQ(-1, recv(self->afd, buf, sizeof(buf), MSG_DONTWAIT));
	EXPECT_EQ(EAGAIN, errno);
	ASSERT_EQ(1, poll(&p, 1, 0));
	EXPECT_EQ(POLLOUT, p.revents);
	ep = epoll_create1(0);
	ASSERT_LE(0, ep);
	ASSERT_EQ(0, epoll_ctl(ep, EPOLL_CTL_ADD, self->afd, &ev));
	EXPECT_EQ(0, epoll_wait(ep, &out, 1, 0));
	ASSERT_EQ(5, send(self->cfd, "hello", 5, 0));
	ASSERT_EQ(1, epoll_wait(ep, &out, 1, 30000));
	EXPECT_NE(0u, out.events & (__u32)EPOLLIN);
	p.revents = 0;
	ASSERT_EQ(1, poll(&p, 1, 0));
	EXPECT_TRUE(p.revents & POLLIN);
	EXPECT_EQ(5, recv(self->afd, buf, sizeof(buf), MSG_DONTWAIT));
	EXPECT_EQ(0, memcmp(buf, "hello", 5));
	EXPECT_EQ(0, epoll_wait(ep, &out, 1, 0));
	close(ep);
	/* A listener is readable when a connection waits. */
	p.fd = self->lfd;
	p.events = POLLIN;
	EXPECT_EQ(0, poll(&p, 1, 0));
}

TEST_F(conn, rcvtimeo)
{
	struct timeval tv = { .tv_sec = 0, .tv_usec = 300000 };
	char buf[8];
	double t0, dt;

	ASSERT_EQ(0, setsockopt(self->afd, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof(tv)));
	t0 = now_s();
	EXPECT_EQ(-1, recv(self->afd, buf, sizeof(buf), 0));
	EXPECT_EQ(EAGAIN, errno);
	dt = now_s() - t0;
	EXPECT_GE(dt, 0.25);
	EXPECT_LT(dt, 10.0);
}

TEST_F(conn, buffers_settable)
{
	int v = 1 << 20, got;
	socklen_t len = sizeof(got);

	ASSERT_EQ(0, setsockopt(self->cfd, SOL_SOCKET, SO_SNDBUF, &v, sizeof(v)));
	ASSERT_EQ(0, getsockopt(self->cfd, SOL_SOCKET, SO_SNDBUF, &got, &len));
	EXPECT_GT(got, 0);
	ASSERT_EQ(0, setsockopt(self->afd, SOL_SOCKET, SO_RCVBUF, &v, sizeof(v)));
	ASSERT_EQ(0, getsockopt(self->afd, SOL_SOCKET, SO_RCVBUF, &got, &len));
	EXPECT_GT(got, 0);
}

TEST_F(conn, shutdown_wr_gives_eof)
{
	char buf[32];

	ASSERT_EQ(3, send(self->cfd, "abc", 3, 0));
	ASSERT_EQ(0, shutdown(self->cfd, SHUT_WR));
	EXPECT_EQ(-1, send(self->cfd, "x", 1, MSG_NOSIGNAL));
	EXPECT_EQ(EPIPE, errno);
	EXPECT_EQ(3, recv_msg(self->afd, buf, sizeof(buf), 0));
	EXPECT_EQ(0, recv_msg(self->afd, buf, sizeof(buf), 0));
	/* Half close: the other direction still works. */
	ASSERT_EQ(2, send(self->afd, "ok", 2, 0));
	EXPECT_EQ(2, recv_msg(self->cfd, buf, sizeof(buf), 0));
	/* Once the peer is closed for good, sends towards it fail. */
	close(self->cfd);
	self->cfd = -1;
	usleep(300000);
	EXPECT_EQ(-1, send(self->afd, "x", 1, MSG_NOSIGNAL));
	EXPECT_EQ(EPIPE, errno);
}

TEST_F(conn, close_delivers_queued_messages)
{
	const size_t sz = 256 << 10;
	unsigned char *tx = malloc(sz), *rx = malloc(sz);
	int i, big = 2 << 20;

	ASSERT_TRUE(tx && rx);
	/* All four queued at once, the peer not reading: room for them. */
	ASSERT_EQ(0, setsockopt(self->cfd, SOL_SOCKET, SO_SNDBUFFORCE, &big, sizeof(big)));
	for (i = 0; i < 4; i++) {
		fill(tx, sz, 100 + i);
		ASSERT_EQ((ssize_t)sz, send(self->cfd, tx, sz, 0));
	}
	close(self->cfd);
	self->cfd = -1;
	for (i = 0; i < 4; i++) {
		fill(tx, sz, 100 + i);
		ASSERT_EQ((ssize_t)sz, recv_msg(self->afd, rx, sz, 0)) TH_LOG("msg %d", i);
		EXPECT_EQ(0, memcmp(tx, rx, sz));
	}
	EXPECT_EQ(0, recv_msg(self->afd, rx, sz, 0));
	free(tx);
	free(rx);
}

/*
 * Messages the peer cannot take: its receive buffer shrunk to the minimum
 * and nobody reading, every message after the first stays unacknowledged.
 */
static int fill_unread(int cfd, int afd)
{
	const size_t sz = 64 << 10;
	unsigned char *tx = malloc(sz);
	int small = 4096, i, sent = 0;

	if (!tx || setsockopt(afd, SOL_SOCKET, SO_RCVBUF, &small, sizeof(small)))
		goto out;
	for (i = 0; i < 16; i++) {
		fill(tx, sz, 300 + i);
		if (send(cfd, tx, sz, MSG_DONTWAIT) != (ssize_t)sz)
			break;
		sent++;
	}
out:
	free(tx);
	return sent;
}

TEST_F(conn, so_linger_waits_for_acks)
{
	struct linger lg = { .l_onoff = 1, .l_linger = 1 };
	char buf[16];
	double t0, dt;

	/* Everything acknowledged: close() returns at once. */
	ASSERT_EQ(0, setsockopt(self->afd, SOL_SOCKET, SO_LINGER, &lg, sizeof(lg)));
	ASSERT_EQ(2, send(self->afd, "hi", 2, 0));
	ASSERT_EQ(2, recv_msg(self->cfd, buf, sizeof(buf), 0));
	usleep(200000);	/* the SACK of "hi" */
	t0 = now_s();
	EXPECT_EQ(0, close(self->afd));
	self->afd = -1;
	EXPECT_LT(now_s() - t0, 0.5);

	/* Unacknowledged messages: close() waits for the linger time. */
	close(self->cfd);
	self->cfd = socket_in(self->ns_cli, self->home, self->fam);
	ASSERT_LE(0, self->cfd);
	ASSERT_EQ(0, connect(self->cfd, (struct sockaddr *)&self->srv, sizeof(self->srv)));
	self->afd = accept(self->lfd, NULL, NULL);
	ASSERT_LE(0, self->afd);
	ASSERT_LT(1, fill_unread(self->cfd, self->afd));
	ASSERT_EQ(0, setsockopt(self->cfd, SOL_SOCKET, SO_LINGER, &lg, sizeof(lg)));
	t0 = now_s();
	EXPECT_EQ(0, close(self->cfd));
	dt = now_s() - t0;
	self->cfd = -1;
	TH_LOG("close() with SO_LINGER 1 s and a stalled reader: %.3f s", dt);
	EXPECT_GE(dt, 0.9);
	EXPECT_LT(dt, 5.0);
}

TEST_F(conn, so_linger_zero_aborts)
{
	struct linger lg = { .l_onoff = 1, .l_linger = 0 };
	struct timeval tv = { .tv_sec = 10 };
	const size_t sz = 64 << 10;
	unsigned char *rx = malloc(sz);
	double t0, dt;
	ssize_t n = 0;
	int i;

	ASSERT_TRUE(rx != NULL);
	ASSERT_LT(1, fill_unread(self->cfd, self->afd));
	ASSERT_EQ(0, setsockopt(self->cfd, SOL_SOCKET, SO_LINGER, &lg, sizeof(lg)));
	t0 = now_s();
	EXPECT_EQ(0, close(self->cfd));
	dt = now_s() - t0;
	self->cfd = -1;
	EXPECT_LT(dt, 0.5);
	/* The peer reads what it had, then the abort: ECONNRESET, as TCP's RST. */
	ASSERT_EQ(0, setsockopt(self->afd, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof(tv)));
	for (i = 0; i < 32; i++) {
		n = recv(self->afd, rx, sz, 0);
		if (n <= 0)
			break;
	}
	EXPECT_EQ(-1, n);
	EXPECT_EQ(ECONNRESET, errno) TH_LOG("recv after the peer's abort: %s",
					    n < 0 ? strerror(errno) : "EOF");
	free(rx);
}

static volatile sig_atomic_t sigio_seen;

static void on_sigio(int sig)
{
	(void)sig;
	sigio_seen++;
}

TEST_F(conn, o_async_sigio)
{
	struct sigaction sa = { .sa_handler = on_sigio };
	struct pollfd p = { .fd = self->afd, .events = POLLIN };
	char buf[8];
	int fl, r;

	ASSERT_EQ(0, sigaction(SIGIO, &sa, NULL));
	sigio_seen = 0;
	ASSERT_EQ(0, fcntl(self->afd, F_SETOWN, getpid()));
	fl = fcntl(self->afd, F_GETFL);
	ASSERT_EQ(0, fcntl(self->afd, F_SETFL, fl | O_ASYNC));
	EXPECT_EQ(0, sigio_seen);
	ASSERT_EQ(3, send(self->cfd, "sig", 3, 0));
	do {
		r = poll(&p, 1, 30000);
	} while (r < 0 && errno == EINTR);
	ASSERT_EQ(1, r);
	/* Sent by the wakeup that made it readable: handled by now. */
	EXPECT_LE(1, sigio_seen);
	EXPECT_EQ(3, recv(self->afd, buf, sizeof(buf), 0));
}

TEST_F(conn, info_sane)
{
	struct mrc_info mi;
	__u64 rx_sacks;
	socklen_t len = sizeof(__u32);
	char buf[4096];
	int i;

	/* Extensible: a short buffer gets a prefix, mi_size tells the rest. */
	memset(&mi, 0, sizeof(mi));
	ASSERT_EQ(0, getsockopt(self->cfd, SOL_MRC, MRC_INFO, &mi, &len));
	EXPECT_EQ(sizeof(__u32), len);
	EXPECT_EQ(sizeof(struct mrc_info), mi.mi_size);
	len = 2;
	EXPECT_EQ(-1, getsockopt(self->cfd, SOL_MRC, MRC_INFO, &mi, &len));
	EXPECT_EQ(EINVAL, errno);
	for (i = 0; i < 20; i++)
		ASSERT_EQ((ssize_t)sizeof(buf), send(self->cfd, buf, sizeof(buf), 0));
	for (i = 0; i < 20; i++)
		ASSERT_EQ((ssize_t)sizeof(buf), recv_msg(self->afd, buf, sizeof(buf), 0));
	/* Completions come back with the acknowledgements. */
	for (i = 0; i < 100; i++) {
		ASSERT_EQ(0, get_info(self->cfd, &mi));
		if (mi.mi_tx_msgs == 20)
			break;
		usleep(50000);
	}
	EXPECT_EQ(20u, mi.mi_tx_msgs);
	EXPECT_EQ((__u32)MRC_INFO_ESTABLISHED, mi.mi_state);
	EXPECT_GE(mi.mi_tx_bytes, 20 * sizeof(buf));
	EXPECT_GT(mi.mi_cwnd, 0u);
	EXPECT_GT(mi.mi_srtt_ns, 0u);
	EXPECT_GT(mi.mi_min_rtt_ns, 0u);
	EXPECT_LE(mi.mi_min_rtt_ns, mi.mi_srtt_ns + mi.mi_rttvar_ns * 4 + 1000000000ull);
	EXPECT_EQ(1u, mi.mi_n_planes);
	EXPECT_EQ((__u32)MRC_EV_COUNT_DEFAULT, mi.mi_ev_good + mi.mi_ev_skip + mi.mi_ev_bad +
		  mi.mi_ev_denied);
	EXPECT_EQ((__u32)MRC_EV_COUNT_DEFAULT, mi.mi_planes[0].evs);
	EXPECT_GE(mi.mi_planes[0].tx_pkts, 20u);
	EXPECT_NE(0u, mi.mi_qpn);
	EXPECT_NE(0u, mi.mi_peer_qpn);
	/* The completions came with SACKs; the client sent no data back. */
	EXPECT_GE(mi.mi_rx_sacks, 1u);
	rx_sacks = mi.mi_rx_sacks;
	ASSERT_EQ(0, get_info(self->afd, &mi));
	EXPECT_EQ(20u, mi.mi_rx_msgs);
	EXPECT_GE(mi.mi_rx_bytes, 20 * sizeof(buf));
	/* Every SACK the client took, the server sent; it got none back. */
	EXPECT_GE(mi.mi_tx_sacks, rx_sacks);
	EXPECT_EQ(0u, mi.mi_rx_sacks);
	/* A program built against version 7 gets version 7's prefix. */
	len = MRC_INFO_SIZE_V7;
	ASSERT_EQ(0, getsockopt(self->afd, SOL_MRC, MRC_INFO, &mi, &len));
	EXPECT_EQ((socklen_t)MRC_INFO_SIZE_V7, len);
	EXPECT_EQ((__u32)MRC_INFO_SIZE_V8, mi.mi_size);
}

/* MRC_INFO version 8: what a connection pins, as its buffers hold it. */
TEST_F(conn, info_memory)
{
	long page = sysconf(_SC_PAGESIZE);
	struct mrc_info mi;
	socklen_t len;
	char buf[4096];
	int i, rcv, snd;

	memset(buf, 0x5a, sizeof(buf));
	len = sizeof(rcv);
	ASSERT_EQ(0, getsockopt(self->afd, SOL_SOCKET, SO_RCVBUF, &rcv, &len));
	len = sizeof(snd);
	ASSERT_EQ(0, getsockopt(self->afd, SOL_SOCKET, SO_SNDBUF, &snd, &len));
	ASSERT_EQ(0, get_info(self->afd, &mi));
	EXPECT_EQ((__u32)rcv, mi.mi_rcvbuf);
	EXPECT_EQ((__u32)snd, mi.mi_sndbuf);
	/* Two messages delivered and not read: the server holds them. */
	for (i = 0; i < 2; i++)
		ASSERT_EQ((ssize_t)sizeof(buf), send(self->cfd, buf, sizeof(buf), 0));
	for (i = 0; i < 100; i++) {
		ASSERT_EQ(0, get_info(self->afd, &mi));
		if (mi.mi_rx_msgs == 2)
			break;
		usleep(50000);
	}
	ASSERT_EQ(2u, mi.mi_rx_msgs);
	EXPECT_GE(mi.mi_rmem_unread, 2 * sizeof(buf));
	EXPECT_GE(mi.mi_rmem_alloc, mi.mi_rmem_unread);
	EXPECT_LE(mi.mi_rmem_alloc, (__u64)mi.mi_rcvbuf + 2 * sizeof(buf) + page);
	/* One snapshot: whole pages, at most what the buffers hold. */
	EXPECT_GE(mi.mi_mem_charged, mi.mi_rmem_unread);
	EXPECT_LE(mi.mi_mem_charged, mi.mi_rmem_alloc + mi.mi_wmem_queued + mi.mi_wmem_kept);
	EXPECT_EQ(0u, (mi.mi_mem_charged + mi.mi_fwd_alloc) % page);
	EXPECT_LT(mi.mi_fwd_alloc, (__u32)page);
	for (i = 0; i < 2; i++)
		ASSERT_EQ((ssize_t)sizeof(buf), recv_msg(self->afd, buf, sizeof(buf), 0));
	ASSERT_EQ(0, get_info(self->afd, &mi));
	EXPECT_EQ(0u, mi.mi_rmem_unread);
	EXPECT_EQ(0u, (mi.mi_mem_charged + mi.mi_fwd_alloc) % page);
	/* The sender's messages are acknowledged: nothing queued any more. */
	for (i = 0; i < 100; i++) {
		ASSERT_EQ(0, get_info(self->cfd, &mi));
		if (mi.mi_tx_msgs == 2 && !mi.mi_wmem_queued)
			break;
		usleep(50000);
	}
	EXPECT_EQ(2u, mi.mi_tx_msgs);
	EXPECT_EQ(0u, mi.mi_wmem_queued);
	EXPECT_EQ(0u, (mi.mi_mem_charged + mi.mi_fwd_alloc) % page);
}

TEST_F(conn, options_validated)
{
	struct mrc_profile_opt prof = { 0 };
	int fd = socket_in(self->ns_cli, self->home, self->fam);
	struct mrc_info mi;
	__u32 v = 200;
	int afd;

	ASSERT_LE(0, fd);
	EXPECT_EQ(0, setsockopt(fd, SOL_MRC, MRC_EV_SET_SIZE, &v, sizeof(v)));
	v = 5;
	EXPECT_EQ(-1, setsockopt(fd, SOL_MRC, MRC_EV_SET_SIZE, &v, sizeof(v)));
	EXPECT_EQ(EINVAL, errno);
	prof.reserved = 1;
	EXPECT_EQ(-1, setsockopt(fd, SOL_MRC, MRC_PROFILE, &prof, sizeof(prof)));
	EXPECT_EQ(EINVAL, errno);
	prof.reserved = 0;
	EXPECT_EQ(0, setsockopt(fd, SOL_MRC, MRC_PROFILE, &prof, sizeof(prof)));
	/* An established connection refuses connection options. */
	v = 128;
	EXPECT_EQ(-1, setsockopt(self->cfd, SOL_MRC, MRC_EV_SET_SIZE, &v, sizeof(v)));
	EXPECT_EQ(EISCONN, errno);
	/* The EV set size applies to the next connection. */
	v = 200;
	ASSERT_EQ(0, connect(fd, (struct sockaddr *)&self->srv, sizeof(self->srv)));
	afd = accept(self->lfd, NULL, NULL);
	ASSERT_LE(0, afd);
	ASSERT_EQ(0, get_info(fd, &mi));
	EXPECT_EQ(200u, mi.mi_planes[0].evs);
	close(afd);
	close(fd);
}

TEST_F(conn, many_messages_pipelined)
{
	char buf[2000];
	int i, got = 0;
	ssize_t r;

	/* Non-blocking sender, interleaved reader: SO_SNDBUF back-pressure. */
	for (i = 0; i < 2000; i++) {
		memset(buf, i & 0xff, sizeof(buf));
		while (send(self->cfd, buf, sizeof(buf), MSG_DONTWAIT) < 0) {
			ASSERT_EQ(EAGAIN, errno);
			r = recv_msg(self->afd, buf, sizeof(buf), 0);
			ASSERT_EQ((ssize_t)sizeof(buf), r);
			EXPECT_EQ(got & 0xff, (unsigned char)buf[0]);
			got++;
			memset(buf, i & 0xff, sizeof(buf));
		}
	}
	while (got < 2000) {
		r = recv_msg(self->afd, buf, sizeof(buf), 0);
		ASSERT_EQ((ssize_t)sizeof(buf), r);
		EXPECT_EQ(got & 0xff, (unsigned char)buf[0]);
		got++;
	}
}

/*
 * connect() failures: nobody answers (ETIMEDOUT), nobody at an on-link
 * address (EHOSTUNREACH from this host's neighbour discovery, as TCP), a
 * namespace without MRC (ECONNREFUSED from its ICMPv6 port unreachable), no
 * listener (ECONNREFUSED from MRC's reject), blocking and not.
 */
TEST(connect_failures)
{
	int fam = mrc_family(), home, ns, srv_ns, fd, lfd, err = 0;
	struct pollfd p = { .events = POLLOUT };
	socklen_t len = sizeof(err);
	struct sockaddr_mrc sa;
	double t0;

	ASSERT_GT(fam, 0);
	home = open("/proc/self/ns/net", O_RDONLY | O_CLOEXEC);
	ASSERT_EQ(0, veth_up());
	ns = open_ns(NS_CLI);
	fd = socket_in(ns, home, fam);
	ASSERT_LE(0, fd);
	/*
	 * Nobody answers (a neighbour entry for a MAC address nobody has):
	 * retransmitted, then ETIMEDOUT.
	 */
	ASSERT_EQ(0, system("ip -n " NS_CLI " neigh replace fd00:6d72::98 "
			    "lladdr 02:00:00:6d:72:98 dev mrcct1 nud permanent"));
	sa = mrc_addr(fam, SRV_PORT, "fd00:6d72::98");
	t0 = now_s();
	EXPECT_EQ(-1, connect(fd, (struct sockaddr *)&sa, sizeof(sa)));
	EXPECT_EQ(ETIMEDOUT, errno);
	EXPECT_GT(now_s() - t0, 2.0);
	close(fd);
	/*
	 * On-link, but nobody answers neighbour discovery: its ICMPv6
	 * address unreachable (after 3 solicitations, 1 s apart) fails the
	 * connect with EHOSTUNREACH, before the handshake gives up.
	 */
	fd = socket_in(ns, home, fam);
	ASSERT_LE(0, fd);
	sa = mrc_addr(fam, SRV_PORT, "fd00:6d72::99");
	t0 = now_s();
	EXPECT_EQ(-1, connect(fd, (struct sockaddr *)&sa, sizeof(sa)));
	EXPECT_EQ(EHOSTUNREACH, errno);
	EXPECT_LT(now_s() - t0, 5.0);
	close(fd);
	/*
	 * The server's namespace has never used MRC: its UDP port is not
	 * bound, the ICMPv6 port unreachable refuses the connect at once.
	 */
	fd = socket_in(ns, home, fam);
	ASSERT_LE(0, fd);
	sa = mrc_addr(fam, SRV_PORT, "fd00:6d72::1");
	t0 = now_s();
	EXPECT_EQ(-1, connect(fd, (struct sockaddr *)&sa, sizeof(sa)));
	EXPECT_EQ(ECONNREFUSED, errno);
	EXPECT_LT(now_s() - t0, 1.0);
	close(fd);
	/*
	 * Non-blocking: EINPROGRESS, then the error through SO_ERROR. The
	 * server's namespace answers (a reject: nobody listens on SRV_PORT)
	 * once it has used MRC (its UDP port is bound on first listen()).
	 */
	srv_ns = open_ns(NS_SRV);
	lfd = socket_in(srv_ns, home, fam);
	ASSERT_LE(0, lfd);
	sa = mrc_addr(fam, SRV_PORT + 1, NULL);
	ASSERT_EQ(0, bind(lfd, (struct sockaddr *)&sa, sizeof(sa)));
	ASSERT_EQ(0, listen(lfd, 1));
	fd = socket_in(ns, home, fam);
	ASSERT_LE(0, fd);
	sa = mrc_addr(fam, SRV_PORT, "fd00:6d72::1");
	ASSERT_EQ(0, fcntl(fd, F_SETFL, O_NONBLOCK));
	p.fd = fd;
	EXPECT_EQ(-1, connect(fd, (struct sockaddr *)&sa, sizeof(sa)));
	EXPECT_EQ(EINPROGRESS, errno);
	ASSERT_EQ(1, poll(&p, 1, 30000));
	EXPECT_TRUE(p.revents & POLLERR);
	ASSERT_EQ(0, getsockopt(fd, SOL_SOCKET, SO_ERROR, &err, &len));
	EXPECT_EQ(ECONNREFUSED, err);
	close(fd);
	close(lfd);
	close(srv_ns);
	close(ns);
	veth_down();
	close(home);
}

TEST_HARNESS_MAIN
