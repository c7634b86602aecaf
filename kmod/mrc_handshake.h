/* SPDX-License-Identifier: GPL-2.0 */
/*
 * mrc_handshake.h - connect and close requests, their answers, ICMPv6 errors
 * about them (mrc_handshake.c).
 */
#ifndef MRC_HANDSHAKE_H
#define MRC_HANDSHAKE_H

struct in6_addr;
struct mrc_pkt;
struct net;
struct sk_buff;

void mrc_conn_rcv_ep(struct net *net, struct sk_buff *skb, const struct mrc_pkt *pkt);
void mrc_conn_icmp_err(struct net *net, const struct in6_addr *daddr,
		       const struct mrc_pkt *pkt, int err);

#endif /* MRC_HANDSHAKE_H */
