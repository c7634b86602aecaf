/* SPDX-License-Identifier: LGPL-2.1-or-later OR MIT */
/*
 * libmrc - the few things every AF_MRC program needs and should not write
 * again: the family number (a module parameter, not a constant), endpoint
 * text in both directions, sockets bound or connected in one call, the
 * SOL_MRC options and MRC_INFO.
 *
 * Conventions: like the socket calls they wrap, functions return a file
 * descriptor or 0 on success and -1 with errno set on failure; nothing
 * allocates, nothing prints, nothing keeps state between calls, so every
 * function is safe to call from any thread.
 */
#ifndef MRC_LIBMRC_H
#define MRC_LIBMRC_H

#include <stddef.h>
#include <stdint.h>
#include <sys/socket.h>
#include <linux/mrc.h>

#ifdef __cplusplus
extern "C" {
#endif

/* Version of the library (the project's, e.g. "0.3"). */
const char *mrc_lib_version(void);

/**
 * mrc_family() - the AF_MRC number of the running mrc.ko
 *
 * Read from MRC_FAMILY_SYSFS. When the module is not loaded, a socket of
 * the default family is opened once so that the kernel autoloads the module
 * through its net-pf alias, and the file is read again.
 *
 * Return: the family, or -1 with errno EAFNOSUPPORT (no module).
 */
int mrc_family(void);

/**
 * mrc_socket() - socket(AF_MRC, SOCK_SEQPACKET | @flags, 0)
 * @flags: SOCK_CLOEXEC and/or SOCK_NONBLOCK, or 0
 */
int mrc_socket(int flags);

/* Longest text mrc_addr_format() writes, NUL included:
 * "[" IPv6 "%" interface "]:" port.
 */
#define MRC_ADDRSTRLEN (46 + 16 + 9)

/**
 * mrc_addr_parse() - endpoint text to a struct sockaddr_mrc
 * @text:         "[ADDR]:PORT", "[ADDR%IFNAME]:PORT", "A.B.C.D:PORT", or an
 *                address alone ("fd00::2", "fe80::1%eth0", "10.0.0.1");
 *                an empty address ("", "[]:7471", ":7471") is any address.
 *                IFNAME may also be an interface index. IPv4 addresses are
 *                written as IPv4-mapped IPv6 (::ffff:a.b.c.d).
 * @default_port: port when @text has none
 * @sa:           filled in, smrc_family included
 *
 * Return: 0, or -1 with errno EINVAL (malformed text or port out of range),
 * ENODEV (unknown interface) or EAFNOSUPPORT (no module).
 */
int mrc_addr_parse(const char *text, uint16_t default_port,
		   struct sockaddr_mrc *sa);

/*
 * mrc_addr_parse_family() - mrc_addr_parse() with the family given, for
 * programs that already know it or build addresses before the module is
 * loaded; never touches sysfs.
 */
int mrc_addr_parse_family(const char *text, uint16_t default_port, int family,
			  struct sockaddr_mrc *sa);

/**
 * mrc_addr_format() - struct sockaddr_mrc to "[ADDR%IFNAME]:PORT"
 * @sa:  the endpoint
 * @buf: at least MRC_ADDRSTRLEN bytes for any endpoint
 * @len: size of @buf
 *
 * IPv4-mapped addresses are printed as IPv6 (::ffff:10.0.0.1). The
 * interface is printed by name, or by index if it has none.
 *
 * Return: 0, or -1 with errno ENOSPC.
 */
int mrc_addr_format(const struct sockaddr_mrc *sa, char *buf, size_t len);

/**
 * struct mrc_conn_opts - SOL_MRC options applied before connect()/listen()
 * @ev_set_size: MRC_EV_SET_SIZE, 0 = leave the profile's
 * @plane_mask:  MRC_PLANE_MASK, 0 = all planes
 * @cc_profile:  MRC_PROFILE cc_profile (0 = the namespace default)
 * @ev_profile:  MRC_PROFILE ev_profile (0 = the namespace default)
 * @flags:       socket flags for mrc_socket() (SOCK_CLOEXEC, SOCK_NONBLOCK)
 *
 * A zeroed struct (or NULL) means the defaults.
 */
struct mrc_conn_opts {
	uint32_t ev_set_size;
	uint32_t plane_mask;
	uint16_t cc_profile;
	uint16_t ev_profile;
	int flags;
};

/* mrc_apply_opts() - set the non-default fields of @opts on @fd */
int mrc_apply_opts(int fd, const struct mrc_conn_opts *opts);

/**
 * mrc_connect_to() - a connected AF_MRC socket
 * @peer:  endpoint text, as mrc_addr_parse() reads it
 * @port:  port when @peer has none
 * @local: local endpoint to bind first, or NULL
 * @opts:  options, or NULL
 *
 * With SOCK_NONBLOCK in @opts->flags the connection may still be in
 * progress on return (errno EINPROGRESS is not a failure then).
 *
 * Return: the socket, or -1 with errno (the socket is closed).
 */
int mrc_connect_to(const char *peer, uint16_t port, const char *local,
		   const struct mrc_conn_opts *opts);

/**
 * mrc_listen_on() - a listening AF_MRC socket
 * @local:   endpoint text; port 0 lets the kernel pick an ephemeral one
 * @backlog: listen() backlog
 * @opts:    options inherited by the accepted connections, or NULL
 */
int mrc_listen_on(const char *local, int backlog,
		  const struct mrc_conn_opts *opts);

/* getsockname()/getpeername() into a struct sockaddr_mrc. */
int mrc_local_addr(int fd, struct sockaddr_mrc *sa);
int mrc_peer_addr(int fd, struct sockaddr_mrc *sa);

/* One SOL_MRC option each; profiles are set together as the ABI has them. */
int mrc_set_ev_set_size(int fd, uint32_t evs);
int mrc_set_plane_mask(int fd, uint32_t mask);
int mrc_set_profiles(int fd, uint16_t cc_profile, uint16_t ev_profile);

/**
 * mrc_get_info() - getsockopt(SOL_MRC, MRC_INFO)
 * @fd: the socket
 * @mi: zeroed and filled; mi->mi_size tells how much the kernel knew
 *      (fields past it stay zero on an older module)
 */
int mrc_get_info(int fd, struct mrc_info *mi);

/* "closed", "listen", "connecting", "established", "failed" or "unknown". */
const char *mrc_state_name(uint32_t state);

#ifdef __cplusplus
}
#endif

#endif /* MRC_LIBMRC_H */
