/* SPDX-License-Identifier: GPL-2.0 */
/*
 * mrc_lookup.h - finding a namespace's connections: the QPN hash and the
 * walk of one peer's connections (mrc_lookup.c).
 */
#ifndef MRC_LOOKUP_H
#define MRC_LOOKUP_H

#include <linux/skbuff.h>
#include <linux/types.h>

struct in6_addr;
struct mrc_net;
struct mrc_rx_batch;
struct mrc_sock;
struct net;

struct mrc_sock *mrc_lookup_qpn(struct mrc_net *mn, u32 qpn);
struct mrc_sock *mrc_lookup_rx(struct mrc_net *mn, u32 qpn,
			       const struct mrc_rx_batch *b);
int mrc_lookup_hash(struct mrc_net *mn, struct mrc_sock *ms);
void mrc_lookup_unhash(struct mrc_net *mn, struct mrc_sock *ms);
u32 mrc_lookup_for_peer(struct net *net, const struct in6_addr *peer,
			bool (*fn)(struct mrc_sock *ms, void *arg,
				   struct sk_buff_head *q),
			void *arg);

#endif /* MRC_LOOKUP_H */
