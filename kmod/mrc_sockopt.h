/* SPDX-License-Identifier: GPL-2.0 */
/*
 * mrc_sockopt.h - the SOL_MRC options and MRC_INFO of an AF_MRC socket
 * (mrc_sockopt.c), the setsockopt() and getsockopt() of its proto_ops
 * (mrc_sock.c).
 */
#ifndef MRC_SOCKOPT_H
#define MRC_SOCKOPT_H

#include <linux/compiler_types.h>
#include <linux/sockptr.h>

struct socket;

int mrc_sockopt_set(struct socket *sock, int level, int optname,
		    sockptr_t optval, unsigned int optlen);
int mrc_sockopt_get(struct socket *sock, int level, int optname,
		    char __user *optval, int __user *optlen);

#endif /* MRC_SOCKOPT_H */
