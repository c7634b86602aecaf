// SPDX-License-Identifier: LGPL-2.1-or-later OR MIT
/*
 * libmrc: see libmrc.h. Plain C11 over libc so that it links into the
 * selftests, the C++ tools and (through ctypes) Python alike.
 */
#include "libmrc.h"

#include <arpa/inet.h>
#include <errno.h>
#include <limits.h>
#include <net/if.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#ifndef MRC_VERSION
#error "MRC_VERSION must be defined (the build takes it from kmod/mrc_main.c)"
#endif

const char *mrc_lib_version(void)
{
	return MRC_VERSION;
}

static int read_family(void)
{
	FILE *f = fopen(MRC_FAMILY_SYSFS, "re");
	int fam = -1;

	if (!f)
		return -1;
	if (fscanf(f, "%d", &fam) != 1 || fam <= 0)
		fam = -1;
	fclose(f);
	return fam;
}

int mrc_family(void)
{
	int fam = read_family(), fd;

	if (fam > 0)
		return fam;
	/* Not loaded: socket() of the default family makes the kernel load
	 * the module through its "net-pf-12" alias (when it is installed);
	 * the module may then have been told another number, so read again.
	 */
	fd = socket(AF_MRC_DEFAULT, SOCK_SEQPACKET | SOCK_CLOEXEC, 0);
	if (fd >= 0)
		close(fd);
	fam = read_family();
	if (fam > 0)
		return fam;
	errno = EAFNOSUPPORT;
	return -1;
}

int mrc_socket(int flags)
{
	int fam;

	if (flags & ~(SOCK_CLOEXEC | SOCK_NONBLOCK)) {
		errno = EINVAL;
		return -1;
	}
	fam = mrc_family();
	if (fam < 0)
		return -1;
	return socket(fam, SOCK_SEQPACKET | flags, MRC_PROTO_DEFAULT);
}

/* "7471" -> 7471; the whole string, 0..65535. */
static int parse_port(const char *s, uint16_t *port)
{
	unsigned long v;
	char *end;

	if (!*s || *s == '-' || *s == '+' || *s == ' ')
		return -1;
	errno = 0;
	v = strtoul(s, &end, 10);
	if (errno || *end || v > 65535)
		return -1;
	*port = (uint16_t)v;
	return 0;
}

/* "eth0" or "3" -> interface index. */
static int parse_scope(const char *s, uint32_t *scope)
{
	unsigned long v;
	char *end;

	if (!*s)
		return -1;
	if (*s >= '0' && *s <= '9') {
		errno = 0;
		v = strtoul(s, &end, 10);
		if (errno || *end || v > UINT32_MAX)
			return -1;
		*scope = (uint32_t)v;
		return 0;
	}
	*scope = if_nametoindex(s);
	if (!*scope) {
		errno = ENODEV;
		return -2;
	}
	return 0;
}

/* ADDR[%SCOPE] (no brackets, no port) into @sa. */
static int parse_host(const char *host, struct sockaddr_mrc *sa)
{
	char buf[INET6_ADDRSTRLEN + IF_NAMESIZE + 2];
	struct in_addr v4;
	char *pct;
	int r;

	if (strlen(host) >= sizeof(buf))
		return -1;
	strcpy(buf, host);
	pct = strchr(buf, '%');
	if (pct) {
		*pct = '\0';
		r = parse_scope(pct + 1, &sa->smrc_scope_id);
		if (r)
			return r;
	}
	if (!buf[0])
		return pct ? -1 : 0;	/* "" is any address, "%eth0" is not */
	if (inet_pton(AF_INET6, buf, sa->smrc_addr) == 1)
		return 0;
	if (inet_pton(AF_INET, buf, &v4) == 1 && !pct) {
		memset(sa->smrc_addr, 0, 10);
		sa->smrc_addr[10] = 0xff;
		sa->smrc_addr[11] = 0xff;
		memcpy(&sa->smrc_addr[12], &v4, 4);
		return 0;
	}
	return -1;
}

int mrc_addr_parse_family(const char *text, uint16_t default_port, int family,
			  struct sockaddr_mrc *sa)
{
	char host[INET6_ADDRSTRLEN + IF_NAMESIZE + 2];
	const char *port_s = NULL, *colon, *close_br;
	uint16_t port = default_port;
	size_t hlen;
	int r;

	if (!text || !sa || family <= 0 || family > UINT16_MAX) {
		errno = EINVAL;
		return -1;
	}
	memset(sa, 0, sizeof(*sa));
	if (text[0] == '[') {
		close_br = strchr(text, ']');
		if (!close_br)
			goto inval;
		hlen = (size_t)(close_br - text - 1);
		if (close_br[1] == ':')
			port_s = close_br + 2;
		else if (close_br[1])
			goto inval;
		if (hlen >= sizeof(host))
			goto inval;
		memcpy(host, text + 1, hlen);
		host[hlen] = '\0';
	} else {
		/* A single colon separates a port from an IPv4 address or
		 * from nothing (":7471"); more colons are an IPv6 address
		 * without a port, which needs brackets to carry one.
		 */
		colon = strchr(text, ':');
		if (colon && !strchr(colon + 1, ':')) {
			port_s = colon + 1;
			hlen = (size_t)(colon - text);
		} else {
			hlen = strlen(text);
		}
		if (hlen >= sizeof(host))
			goto inval;
		memcpy(host, text, hlen);
		host[hlen] = '\0';
	}
	if (port_s && parse_port(port_s, &port))
		goto inval;
	r = parse_host(host, sa);
	if (r == -2)
		return -1;	/* errno ENODEV */
	if (r)
		goto inval;
	sa->smrc_family = (uint16_t)family;
	sa->smrc_port = htons(port);
	return 0;
inval:
	memset(sa, 0, sizeof(*sa));
	errno = EINVAL;
	return -1;
}

int mrc_addr_parse(const char *text, uint16_t default_port,
		   struct sockaddr_mrc *sa)
{
	int fam = mrc_family();

	if (fam < 0)
		return -1;
	return mrc_addr_parse_family(text, default_port, fam, sa);
}

int mrc_addr_format(const struct sockaddr_mrc *sa, char *buf, size_t len)
{
	char addr[INET6_ADDRSTRLEN], scope[IF_NAMESIZE + 12] = "";
	char ifname[IF_NAMESIZE];
	int n;

	if (!sa || !buf) {
		errno = EINVAL;
		return -1;
	}
	if (!inet_ntop(AF_INET6, sa->smrc_addr, addr, sizeof(addr)))
		return -1;
	if (sa->smrc_scope_id) {
		if (if_indextoname(sa->smrc_scope_id, ifname))
			snprintf(scope, sizeof(scope), "%%%s", ifname);
		else
			snprintf(scope, sizeof(scope), "%%%u", sa->smrc_scope_id);
	}
	n = snprintf(buf, len, "[%s%s]:%u", addr, scope, ntohs(sa->smrc_port));
	if (n < 0 || (size_t)n >= len) {
		errno = ENOSPC;
		return -1;
	}
	return 0;
}

static int setopt(int fd, int opt, const void *val, socklen_t len)
{
	return setsockopt(fd, SOL_MRC, opt, val, len);
}

int mrc_set_ev_set_size(int fd, uint32_t evs)
{
	return setopt(fd, MRC_EV_SET_SIZE, &evs, sizeof(evs));
}

int mrc_set_plane_mask(int fd, uint32_t mask)
{
	return setopt(fd, MRC_PLANE_MASK, &mask, sizeof(mask));
}

int mrc_set_profiles(int fd, uint16_t cc_profile, uint16_t ev_profile)
{
	struct mrc_profile_opt p = {
		.cc_profile = cc_profile,
		.ev_profile = ev_profile,
	};

	return setopt(fd, MRC_PROFILE, &p, sizeof(p));
}

int mrc_apply_opts(int fd, const struct mrc_conn_opts *opts)
{
	if (!opts)
		return 0;
	if (opts->ev_set_size && mrc_set_ev_set_size(fd, opts->ev_set_size))
		return -1;
	if (opts->plane_mask && mrc_set_plane_mask(fd, opts->plane_mask))
		return -1;
	if ((opts->cc_profile || opts->ev_profile) &&
	    mrc_set_profiles(fd, opts->cc_profile, opts->ev_profile))
		return -1;
	return 0;
}

/* Close @fd keeping the errno of the failure that made us give up. */
static int fail_close(int fd)
{
	int err = errno;

	close(fd);
	errno = err;
	return -1;
}

int mrc_connect_to(const char *peer, uint16_t port, const char *local,
		   const struct mrc_conn_opts *opts)
{
	struct sockaddr_mrc to, from;
	int fd;

	if (mrc_addr_parse(peer, port, &to))
		return -1;
	if (local && mrc_addr_parse(local, 0, &from))
		return -1;
	fd = mrc_socket(opts ? opts->flags : 0);
	if (fd < 0)
		return -1;
	if (mrc_apply_opts(fd, opts))
		return fail_close(fd);
	if (local && bind(fd, (const struct sockaddr *)&from, sizeof(from)))
		return fail_close(fd);
	if (connect(fd, (const struct sockaddr *)&to, sizeof(to)) &&
	    !(errno == EINPROGRESS && opts && (opts->flags & SOCK_NONBLOCK)))
		return fail_close(fd);
	return fd;
}

int mrc_listen_on(const char *local, int backlog,
		  const struct mrc_conn_opts *opts)
{
	struct sockaddr_mrc sa;
	int fd;

	if (mrc_addr_parse(local ? local : "", 0, &sa))
		return -1;
	fd = mrc_socket(opts ? opts->flags : 0);
	if (fd < 0)
		return -1;
	if (mrc_apply_opts(fd, opts) ||
	    bind(fd, (const struct sockaddr *)&sa, sizeof(sa)) ||
	    listen(fd, backlog))
		return fail_close(fd);
	return fd;
}

static int check_len(socklen_t len)
{
	if (len != sizeof(struct sockaddr_mrc)) {
		errno = EAFNOSUPPORT;	/* not an AF_MRC socket */
		return -1;
	}
	return 0;
}

/* getsockname() or getpeername() into @sa, which must be AF_MRC's size. */
static int name_of(int fd, struct sockaddr_mrc *sa,
		   int (*get)(int, struct sockaddr *, socklen_t *))
{
	socklen_t len = sizeof(*sa);

	memset(sa, 0, sizeof(*sa));
	if (get(fd, (struct sockaddr *)sa, &len))
		return -1;
	return check_len(len);
}

int mrc_local_addr(int fd, struct sockaddr_mrc *sa)
{
	return name_of(fd, sa, getsockname);
}

int mrc_peer_addr(int fd, struct sockaddr_mrc *sa)
{
	return name_of(fd, sa, getpeername);
}

int mrc_get_info(int fd, struct mrc_info *mi)
{
	socklen_t len = sizeof(*mi);

	memset(mi, 0, sizeof(*mi));
	mi->mi_size = sizeof(*mi);
	return getsockopt(fd, SOL_MRC, MRC_INFO, mi, &len);
}

const char *mrc_state_name(uint32_t state)
{
	switch (state) {
	case MRC_INFO_CLOSED:
		return "closed";
	case MRC_INFO_LISTEN:
		return "listen";
	case MRC_INFO_CONNECTING:
		return "connecting";
	case MRC_INFO_ESTABLISHED:
		return "established";
	case MRC_INFO_FAILED:
		return "failed";
	}
	return "unknown";
}
