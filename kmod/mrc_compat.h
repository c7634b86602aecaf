/* SPDX-License-Identifier: GPL-2.0 */
/*
 * mrc_compat.h - every difference between the kernels mrc.ko is built for
 * (Debian 12's 6.1 and 6.12), in one place. Each entry names the upstream
 * change that made it and is guarded at the release we believe it landed
 * in; only 6.1 and 6.12 are built and tested (make check KVER=...), a
 * kernel in between may need a guard moved.
 */
#ifndef MRC_COMPAT_H
#define MRC_COMPAT_H

#include <linux/version.h>
#include <linux/net.h>
#include <linux/sysctl.h>
#include <linux/udp.h>
#include <net/genetlink.h>
#include <net/inet_sock.h>
#include <net/net_namespace.h>

/*
 * proc_handler: 6.11 ("sysctl: treewide: constify the ctl_table argument
 * of proc_handlers") passes the table const.
 */
#if LINUX_VERSION_CODE >= KERNEL_VERSION(6, 11, 0)
#define MRC_PROC_HANDLER_TABLE const struct ctl_table
#else
#define MRC_PROC_HANDLER_TABLE struct ctl_table
#endif

/*
 * register_net_sysctl(): since 6.6 ("networking: Update to
 * register_net_sysctl_sz") a macro taking ARRAY_SIZE() of its table (an
 * array, not a per-namespace copy); register_net_sysctl_sz() takes the
 * size without the sentinel. Before, the function counts up to the
 * sentinel. @n is the table's size with its sentinel.
 */
#ifdef register_net_sysctl
#define mrc_register_net_sysctl(net, path, t, n) \
	register_net_sysctl_sz(net, path, t, (n) - 1)
#else
#define mrc_register_net_sysctl(net, path, t, n) register_net_sysctl(net, path, t)
#endif

/*
 * proto_ops.accept: 6.10 ("net: have do_accept() take a struct
 * proto_accept_arg argument") passes flags and kern in a struct.
 * MRC_DEFINE_ACCEPT(name, fn) defines @name with the kernel's prototype,
 * calling int fn(struct socket *, struct socket *, int flags, bool kern).
 */
#if LINUX_VERSION_CODE >= KERNEL_VERSION(6, 10, 0)
#define MRC_DEFINE_ACCEPT(name, fn)					\
static int name(struct socket *sock, struct socket *newsock,		\
		struct proto_accept_arg *arg)				\
{									\
	return fn(sock, newsock, arg->flags, arg->kern);		\
}
#else
#define MRC_DEFINE_ACCEPT(name, fn)					\
static int name(struct socket *sock, struct socket *newsock, int flags,	\
		bool kern)						\
{									\
	return fn(sock, newsock, flags, kern);				\
}
#endif

/*
 * udp_sock.encap_err_rcv: 6.1 passes the offset of the quoted UDP header
 * from skb->data (the quoted IPv6 header); 6.2 ("rxrpc: Use the core
 * ICMP/ICMP6 parsers") passes the errno, port, info and a pointer just past
 * that UDP header. MRC_DEFINE_ENCAP_ERR_RCV(name,
 * fn) defines @name with the kernel's prototype, calling
 * void fn(struct sock *, struct sk_buff *, unsigned int udp_offset).
 */
#if LINUX_VERSION_CODE >= KERNEL_VERSION(6, 2, 0)
#define MRC_DEFINE_ENCAP_ERR_RCV(name, fn)				\
static void name(struct sock *sk, struct sk_buff *skb, int err,	\
		 __be16 port, u32 info, u8 *payload)			\
{									\
	fn(sk, skb, payload - skb->data - sizeof(struct udphdr));	\
}
#else
#define MRC_DEFINE_ENCAP_ERR_RCV(name, fn)				\
static void name(struct sock *sk, struct sk_buff *skb,			\
		 unsigned int udp_offset)				\
{									\
	fn(sk, skb, udp_offset);					\
}
#endif

/*
 * inet_sock flags: 6.6 ("inet: move inet->mc_loop to inet->inet_frags")
 * turned the bitfields into atomic flag bits.
 */
static inline void mrc_inet_clear_mc_loop(struct sock *sk)
{
#if LINUX_VERSION_CODE >= KERNEL_VERSION(6, 6, 0)
	inet_clear_bit(MC_LOOP, sk);
#else
	inet_sk(sk)->mc_loop = 0;
#endif
}

/*
 * Generic netlink: 6.2 ("genetlink: introduce split op representation")
 * gives pre_doit a struct genl_split_ops; 6.5 ("genetlink: add struct
 * genl_info to struct genl_dumpit_info") moves a dump's parsed attributes
 * into its struct genl_info.
 */
#if LINUX_VERSION_CODE >= KERNEL_VERSION(6, 2, 0)
#define MRC_GENL_PRE_OPS struct genl_split_ops
#else
#define MRC_GENL_PRE_OPS struct genl_ops
#endif

static inline struct nlattr **
mrc_genl_dump_attrs(const struct genl_dumpit_info *info)
{
#if LINUX_VERSION_CODE >= KERNEL_VERSION(6, 5, 0)
	return info->info.attrs;
#else
	return info->attrs;
#endif
}

/*
 * UDP GSO skbs delivered whole to a socket: a bit of udp_sk()->udp_flags
 * since 6.5 ("udp: introduce udp->udp_flags"; Debian's 6.1 has it
 * backported), a bitfield before.
 */
#ifdef udp_set_bit
#define mrc_udp_accept_gso_l4(sk) udp_set_bit(ACCEPT_L4, sk)
#else
#define mrc_udp_accept_gso_l4(sk) (udp_sk(sk)->accept_udp_l4 = 1)
#endif

#endif /* MRC_COMPAT_H */
