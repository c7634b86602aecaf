/* SPDX-License-Identifier: GPL-2.0 */
/*
 * mrc_pmtu.h - ICMPv6 Packet Too Big on every encapsulation (mrc_pmtu.c).
 */
#ifndef MRC_PMTU_H
#define MRC_PMTU_H

#include <linux/types.h>

struct in6_addr;
struct net;
struct sk_buff;

int mrc_pmtu_init_module(void);
void mrc_pmtu_exit_module(void);
void mrc_pmtu_report(struct net *net, const struct sk_buff *skb,
		     unsigned int mrc_off, const struct in6_addr *daddr,
		     u32 mtu, u32 encap);

#endif /* MRC_PMTU_H */
