// SPDX-License-Identifier: GPL-2.0
/*
 * AF_MRC socket API: creation, bind, getsockname, close, and the errno of
 * every bad argument, plus the per-namespace counters that record them.
 */
#define _GNU_SOURCE
#include <arpa/inet.h>
#include <errno.h>
#include <netinet/in.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#include "kselftest_harness.h"
#include "mrc_family.h"

/* Read one counter of /proc/net/mrc ("Name value" lines); -1 if absent. */
static long long proc_counter(const char *name)
{
	FILE *f = fopen("/proc/net/mrc", "r");
	char key[64];
	long long val, found = -1;

	if (!f)
		return -1;
	while (fscanf(f, "%63s %lld", key, &val) == 2)
		if (!strcmp(key, name))
			found = val;
	fclose(f);
	return found;
}

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

FIXTURE(mrc) {
	int fam;
	int fd;
};

FIXTURE_SETUP(mrc)
{
	self->fam = mrc_family();
	ASSERT_GT(self->fam, 0) TH_LOG("mrc.ko not loaded: %s unreadable", MRC_FAMILY_SYSFS);
	self->fd = socket(self->fam, SOCK_SEQPACKET, 0);
	ASSERT_LE(0, self->fd) TH_LOG("socket(AF_MRC): %s", strerror(errno));
}

FIXTURE_TEARDOWN(mrc)
{
	if (self->fd >= 0)
		close(self->fd);
}

TEST_F(mrc, domain_type_protocol_reported)
{
	int v;
	socklen_t len = sizeof(v);

	ASSERT_EQ(0, getsockopt(self->fd, SOL_SOCKET, SO_DOMAIN, &v, &len));
	EXPECT_EQ(self->fam, v);
	ASSERT_EQ(0, getsockopt(self->fd, SOL_SOCKET, SO_TYPE, &v, &len));
	EXPECT_EQ(SOCK_SEQPACKET, v);
	ASSERT_EQ(0, getsockopt(self->fd, SOL_SOCKET, SO_PROTOCOL, &v, &len));
	EXPECT_EQ(0, v);
}

TEST_F(mrc, wrong_types_rejected)
{
	const int types[] = { SOCK_STREAM, SOCK_DGRAM, SOCK_RAW, SOCK_RDM };
	long long before = proc_counter("SocketBadTypeOrProtocol");
	unsigned int i;

	for (i = 0; i < sizeof(types) / sizeof(types[0]); i++) {
		errno = 0;
		EXPECT_EQ(-1, socket(self->fam, types[i], 0));
		EXPECT_EQ(ESOCKTNOSUPPORT, errno) TH_LOG("type %d", types[i]);
	}
	EXPECT_EQ(before + 4, proc_counter("SocketBadTypeOrProtocol"));
}

TEST_F(mrc, wrong_protocols_rejected)
{
	const int protos[] = { 1, IPPROTO_TCP, IPPROTO_UDP, 255, -1 };
	unsigned int i;

	for (i = 0; i < sizeof(protos) / sizeof(protos[0]); i++) {
		errno = 0;
		EXPECT_EQ(-1, socket(self->fam, SOCK_SEQPACKET, protos[i]));
		EXPECT_EQ(EPROTONOSUPPORT, errno) TH_LOG("protocol %d", protos[i]);
	}
}

TEST_F(mrc, bind_short_sockaddr_einval)
{
	struct sockaddr_mrc sa = mrc_addr(self->fam, 0, NULL);
	long long before = proc_counter("BindBadAddress");

	EXPECT_EQ(-1, bind(self->fd, (struct sockaddr *)&sa, sizeof(sa) - 1));
	EXPECT_EQ(EINVAL, errno);
	EXPECT_EQ(-1, bind(self->fd, (struct sockaddr *)&sa, sizeof(sa_family_t)));
	EXPECT_EQ(EINVAL, errno);
	EXPECT_EQ(before + 2, proc_counter("BindBadAddress"));
}

TEST_F(mrc, bind_wrong_family_eafnosupport)
{
	struct sockaddr_mrc sa = mrc_addr(AF_INET6, 0, NULL);

	EXPECT_EQ(-1, bind(self->fd, (struct sockaddr *)&sa, sizeof(sa)));
	EXPECT_EQ(EAFNOSUPPORT, errno);
	sa.smrc_family = AF_UNSPEC;
	EXPECT_EQ(-1, bind(self->fd, (struct sockaddr *)&sa, sizeof(sa)));
	EXPECT_EQ(EAFNOSUPPORT, errno);
}

TEST_F(mrc, bind_reserved_fields_einval)
{
	struct sockaddr_mrc sa = mrc_addr(self->fam, 0, NULL);

	sa.smrc_flags = 1;
	EXPECT_EQ(-1, bind(self->fd, (struct sockaddr *)&sa, sizeof(sa)));
	EXPECT_EQ(EINVAL, errno);
	sa.smrc_flags = 0;
	sa.smrc_reserved = 0x80000000u;
	EXPECT_EQ(-1, bind(self->fd, (struct sockaddr *)&sa, sizeof(sa)));
	EXPECT_EQ(EINVAL, errno);
	/* A rejected bind leaves the socket unbound and usable. */
	sa.smrc_reserved = 0;
	EXPECT_EQ(0, bind(self->fd, (struct sockaddr *)&sa, sizeof(sa)));
}

TEST_F(mrc, bind_ephemeral_and_getsockname)
{
	struct sockaddr_mrc sa = mrc_addr(self->fam, 0, NULL), got;
	socklen_t len = sizeof(got);
	unsigned short port;

	ASSERT_EQ(0, bind(self->fd, (struct sockaddr *)&sa, sizeof(sa)));
	ASSERT_EQ(0, getsockname(self->fd, (struct sockaddr *)&got, &len));
	EXPECT_EQ(sizeof(got), len);
	EXPECT_EQ(self->fam, got.smrc_family);
	port = ntohs(got.smrc_port);
	EXPECT_GE(port, MRC_PORT_EPHEMERAL_MIN);
	EXPECT_LE(port, MRC_PORT_EPHEMERAL_MAX);
	/* Bound already. */
	EXPECT_EQ(-1, bind(self->fd, (struct sockaddr *)&sa, sizeof(sa)));
	EXPECT_EQ(EINVAL, errno);
	/* Not connected. */
	EXPECT_EQ(-1, getpeername(self->fd, (struct sockaddr *)&got, &len));
	EXPECT_EQ(ENOTCONN, errno);
}

TEST_F(mrc, bind_port_in_use_then_free_after_close)
{
	struct sockaddr_mrc sa = mrc_addr(self->fam, 4791, "::1");
	long long inuse = proc_counter("BindAddrInUse");
	int fd2;

	ASSERT_EQ(0, bind(self->fd, (struct sockaddr *)&sa, sizeof(sa)));
	fd2 = socket(self->fam, SOCK_SEQPACKET, 0);
	ASSERT_LE(0, fd2);
	EXPECT_EQ(-1, bind(fd2, (struct sockaddr *)&sa, sizeof(sa)));
	EXPECT_EQ(EADDRINUSE, errno);
	/* The wildcard address conflicts with every specific one. */
	sa = mrc_addr(self->fam, 4791, NULL);
	EXPECT_EQ(-1, bind(fd2, (struct sockaddr *)&sa, sizeof(sa)));
	EXPECT_EQ(EADDRINUSE, errno);
	EXPECT_EQ(inuse + 2, proc_counter("BindAddrInUse"));
	close(self->fd);
	self->fd = -1;
	EXPECT_EQ(0, bind(fd2, (struct sockaddr *)&sa, sizeof(sa)));
	close(fd2);
}

TEST_F(mrc, bind_non_local_address_eaddrnotavail)
{
	struct sockaddr_mrc sa = mrc_addr(self->fam, 0, "2001:db8::1");

	EXPECT_EQ(-1, bind(self->fd, (struct sockaddr *)&sa, sizeof(sa)));
	EXPECT_EQ(EADDRNOTAVAIL, errno);
	sa = mrc_addr(self->fam, 0, "ff02::1");
	EXPECT_EQ(-1, bind(self->fd, (struct sockaddr *)&sa, sizeof(sa)));
	EXPECT_EQ(EADDRNOTAVAIL, errno);
	/* Link-local without an interface is ambiguous. */
	sa = mrc_addr(self->fam, 0, "fe80::1");
	EXPECT_EQ(-1, bind(self->fd, (struct sockaddr *)&sa, sizeof(sa)));
	EXPECT_EQ(EINVAL, errno);
	sa = mrc_addr(self->fam, 0, "::1");
	sa.smrc_scope_id = 0x7fffffff;
	EXPECT_EQ(-1, bind(self->fd, (struct sockaddr *)&sa, sizeof(sa)));
	EXPECT_EQ(ENODEV, errno);
	sa.smrc_scope_id = 0;
	EXPECT_EQ(0, bind(self->fd, (struct sockaddr *)&sa, sizeof(sa)));
}

/*
 * The connection calls exist since the datapath landed (mrc_conn_test has
 * the full contract); here: their answers on a socket that is not connected.
 */
TEST_F(mrc, datapath_calls_on_unconnected_socket)
{
	struct sockaddr_mrc sa = mrc_addr(self->fam, 1, "::1");
	char buf[8] = { 0 };

	EXPECT_EQ(-1, send(self->fd, buf, sizeof(buf), MSG_DONTWAIT));
	EXPECT_EQ(ENOTCONN, errno);
	EXPECT_EQ(-1, recv(self->fd, buf, sizeof(buf), MSG_DONTWAIT));
	EXPECT_EQ(ENOTCONN, errno);
	EXPECT_EQ(-1, shutdown(self->fd, SHUT_WR));
	EXPECT_EQ(ENOTCONN, errno);
	EXPECT_EQ(-1, accept(self->fd, NULL, NULL));
	EXPECT_EQ(EINVAL, errno);
	/* Nobody listens on service 1 of ::1: the peer answers with a reject. */
	EXPECT_EQ(-1, connect(self->fd, (struct sockaddr *)&sa, sizeof(sa)));
	EXPECT_EQ(ECONNREFUSED, errno);
}

TEST(many_sockets_accounted)
{
	int fam = mrc_family();
	struct sockaddr_mrc sa;
	long long live0, created0, bound0;
	int fds[1000];
	unsigned int i;

	ASSERT_GT(fam, 0);
	live0 = proc_counter("Sockets");
	created0 = proc_counter("SocketsCreated");
	bound0 = proc_counter("Bound");
	sa = mrc_addr(fam, 0, NULL);
	for (i = 0; i < 1000; i++) {
		fds[i] = socket(fam, SOCK_SEQPACKET, 0);
		ASSERT_LE(0, fds[i]);
		ASSERT_EQ(0, bind(fds[i], (struct sockaddr *)&sa, sizeof(sa)));
	}
	EXPECT_EQ(live0 + 1000, proc_counter("Sockets"));
	EXPECT_EQ(bound0 + 1000, proc_counter("Bound"));
	for (i = 0; i < 1000; i++)
		close(fds[i]);
	EXPECT_EQ(live0, proc_counter("Sockets"));
	EXPECT_EQ(created0 + 1000, proc_counter("SocketsCreated"));
	EXPECT_EQ(bound0, proc_counter("Bound"));
}

TEST_HARNESS_MAIN
