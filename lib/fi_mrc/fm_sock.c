// SPDX-License-Identifier: LGPL-2.1-or-later OR MIT
/*
 * The sockets under the provider. Normally AF_MRC through libmrc: a fabric
 * address is a struct sockaddr_in6 whose sin6_port is the MRC service id,
 * turned into a struct sockaddr_mrc here and nowhere else.
 *
 * FI_MRC_BACKEND=unix selects a test backend instead: AF_UNIX
 * SOCK_SEQPACKET sockets in the abstract namespace, named by the service id
 * alone ("\0fi-mrc/PORT"; every address is ::1), so that the provider's
 * logic runs on a build host that cannot load mrc.ko. Its messages are
 * limited by the socket buffer (64 KiB here). Never used unless asked for.
 * Abstract names belong to a network namespace; with FI_MRC_UNIX_DIR=DIR
 * the sockets are named by paths instead, "DIR/fi-mrc-PORT", which any
 * namespace sharing the file system reaches (the host rehearsal of an MPI
 * job across two namespaces). Those files are left behind: use a new DIR
 * per run and remove it afterwards.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <time.h>
#include <unistd.h>

#include <libmrc.h>

#include "fi_mrc.h"

#define FM_UNIX_MSG_MAX	(64u << 10)

static bool fm_unix(void)
{
	const char *b = getenv("FI_MRC_BACKEND");

	return b && !strcmp(b, "unix");
}

bool fm_sock_available(void)
{
	return fm_unix() || mrc_family() >= 0;
}

size_t fm_sock_max_msg(void)
{
	return (fm_unix() ? FM_UNIX_MSG_MAX : MRC_MSG_MAX) - FM_HDR_LEN;
}

static void to_mrc(const struct sockaddr_in6 *sin6, struct sockaddr_mrc *sa)
{
	memset(sa, 0, sizeof(*sa));
	sa->smrc_family = (uint16_t)mrc_family();
	sa->smrc_port = sin6->sin6_port;
	memcpy(sa->smrc_addr, &sin6->sin6_addr, 16);
	if (IN6_IS_ADDR_LINKLOCAL(&sin6->sin6_addr))
		sa->smrc_scope_id = sin6->sin6_scope_id;
}

static void from_mrc(const struct sockaddr_mrc *sa, struct sockaddr_in6 *sin6)
{
	memset(sin6, 0, sizeof(*sin6));
	sin6->sin6_family = AF_INET6;
	sin6->sin6_port = sa->smrc_port;
	memcpy(&sin6->sin6_addr, sa->smrc_addr, 16);
	sin6->sin6_scope_id = sa->smrc_scope_id;
}

static const char *unix_dir(void)
{
	const char *d = getenv("FI_MRC_UNIX_DIR");

	return d && *d ? d : NULL;
}

static socklen_t unix_name(uint16_t port, struct sockaddr_un *sun)
{
	const char *dir = unix_dir();
	int n;

	memset(sun, 0, sizeof(*sun));
	sun->sun_family = AF_UNIX;
	if (dir) {
		/* too long a DIR: the name is cut, binds and connects fail */
		n = snprintf(sun->sun_path, sizeof(sun->sun_path),
			     "%s/fi-mrc-%u", dir, port);
		if (n >= (int)sizeof(sun->sun_path))
			n = (int)sizeof(sun->sun_path) - 1;
		return (socklen_t)(offsetof(struct sockaddr_un, sun_path) + n + 1);
	}
	n = snprintf(sun->sun_path + 1, sizeof(sun->sun_path) - 1,
		     "fi-mrc/%u", port);
	return (socklen_t)(offsetof(struct sockaddr_un, sun_path) + 1 + n);
}

static int unix_port(int fd, bool peer, struct sockaddr_in6 *sin6)
{
	struct sockaddr_un sun;
	socklen_t len = sizeof(sun);
	unsigned int port = 0;
	int ret;

	ret = peer ? getpeername(fd, (struct sockaddr *)&sun, &len) :
		     getsockname(fd, (struct sockaddr *)&sun, &len);
	if (ret)
		return -errno;
	memset(sin6, 0, sizeof(*sin6));
	sin6->sin6_family = AF_INET6;
	if (len > offsetof(struct sockaddr_un, sun_path) + 1) {
		const char *base = strrchr(sun.sun_path, '/');

		if (sun.sun_path[0])
			sscanf(base ? base + 1 : sun.sun_path, "fi-mrc-%u", &port);
		else
			sscanf(sun.sun_path + 1, "fi-mrc/%u", &port);
	}
	sin6->sin6_port = htons((uint16_t)port);
	sin6->sin6_addr = in6addr_loopback;
	return 0;
}

/* The test backend's ephemeral ports, as AF_MRC's range. */
static int unix_bind_any(int fd)
{
	static unsigned int seed;
	struct sockaddr_un sun;

	if (!seed)
		seed = (unsigned int)time(NULL) ^ (unsigned int)getpid();
	for (int i = 0; i < 1000; i++) {
		uint16_t port = (uint16_t)(MRC_PORT_EPHEMERAL_MIN +
			rand_r(&seed) % (MRC_PORT_EPHEMERAL_MAX -
					 MRC_PORT_EPHEMERAL_MIN + 1));
		socklen_t len = unix_name(port, &sun);

		if (!bind(fd, (struct sockaddr *)&sun, len))
			return 0;
		if (errno != EADDRINUSE)
			return -errno;
	}
	return -EADDRINUSE;
}

int fm_sock_open(void)
{
	int fd;

	if (fm_unix()) {
		int sz = 4 * FM_UNIX_MSG_MAX;

		fd = socket(AF_UNIX, SOCK_SEQPACKET | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
		if (fd >= 0) {
			setsockopt(fd, SOL_SOCKET, SO_SNDBUF, &sz, sizeof(sz));
			setsockopt(fd, SOL_SOCKET, SO_RCVBUF, &sz, sizeof(sz));
		}
	} else {
		fd = mrc_socket(SOCK_NONBLOCK | SOCK_CLOEXEC);
	}
	return fd < 0 ? -errno : fd;
}

int fm_sock_bind(int fd, const struct sockaddr_in6 *sin6)
{
	struct sockaddr_mrc sa;

	if (fm_unix()) {
		struct sockaddr_un sun;
		socklen_t len;

		if (!sin6->sin6_port)
			return unix_bind_any(fd);
		len = unix_name(ntohs(sin6->sin6_port), &sun);
		return bind(fd, (struct sockaddr *)&sun, len) ? -errno : 0;
	}
	to_mrc(sin6, &sa);
	return bind(fd, (struct sockaddr *)&sa, sizeof(sa)) ? -errno : 0;
}

int fm_sock_connect(int fd, const struct sockaddr_in6 *sin6)
{
	struct sockaddr_mrc sa;
	int ret;

	if (fm_unix()) {
		struct sockaddr_un sun;
		socklen_t len;

		ret = unix_bind_any(fd);
		if (ret)
			return ret;
		len = unix_name(ntohs(sin6->sin6_port), &sun);
		ret = connect(fd, (struct sockaddr *)&sun, len);
		/* AF_UNIX answers ECONNREFUSED at once; AF_MRC later. */
		return ret ? -errno : 0;
	}
	to_mrc(sin6, &sa);
	ret = connect(fd, (struct sockaddr *)&sa, sizeof(sa));
	return ret ? -errno : 0;
}

int fm_sock_listen(int fd, int backlog)
{
	return listen(fd, backlog) ? -errno : 0;
}

int fm_sock_accept(int fd)
{
	int cfd = accept4(fd, NULL, NULL, SOCK_NONBLOCK | SOCK_CLOEXEC);

	return cfd < 0 ? -errno : cfd;
}

int fm_sock_name(int fd, struct sockaddr_in6 *sin6)
{
	struct sockaddr_mrc sa;

	if (fm_unix())
		return unix_port(fd, false, sin6);
	if (mrc_local_addr(fd, &sa))
		return -errno;
	from_mrc(&sa, sin6);
	return 0;
}

int fm_sock_peer(int fd, struct sockaddr_in6 *sin6)
{
	struct sockaddr_mrc sa;

	if (fm_unix())
		return unix_port(fd, true, sin6);
	if (mrc_peer_addr(fd, &sa))
		return -errno;
	from_mrc(&sa, sin6);
	return 0;
}
