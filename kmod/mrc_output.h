/* SPDX-License-Identifier: GPL-2.0 */
/*
 * mrc_output.h - skbs, routes, encapsulation, transmit, local drops
 * (mrc_output.c).
 */
#ifndef MRC_OUTPUT_H
#define MRC_OUTPUT_H

#include <linux/in6.h>
#include <linux/types.h>

#include "core/mrc_engine.h"

struct dst_cache;
struct dst_entry;
struct flowi6;
struct mrc_cfg_path;
struct mrc_cfg_plane;
struct mrc_mp_plane;
struct mrc_msgbuf;
struct mrc_sock;
struct net;
struct sk_buff;
struct sk_buff_head;
struct sock;

u16 mrc_udp_sport(u32 ev);
int mrc_route(struct net *net, struct mrc_sock *ms, struct dst_cache *dc,
	      struct flowi6 *fl6, struct dst_entry **dstp);
void mrc_pkt_init(struct mrc_pkt *pkt, u8 opcode, u32 dest_qp);
struct sk_buff *mrc_build_pkt(struct mrc_sock *ms, const struct mrc_pkt *pkt,
			      u32 ev, const struct mrc_msgbuf *mb, u32 off);
u32 mrc_burst_max(u32 mtu, u32 burst);
struct sk_buff *mrc_build_burst(struct mrc_sock *ms,
				const struct mrc_tx_desc *d, u32 n,
				struct mrc_msgbuf *mb);
void mrc_xmit_queue(struct net *net, struct mrc_sock *ms,
		    struct sk_buff_head *q);
int mrc_mp_path_mtu(struct net *net, const struct mrc_sock *ms,
		    const struct mrc_mp_plane *mpp, u32 slot);
void mrc_flow_policy(const struct sock *sk, struct flowi6 *fl6);
int mrc_send_ev_probe(struct net *net, const struct in6_addr *daddr,
		      const struct mrc_cfg_plane *pl, u8 encap,
		      const struct mrc_cfg_path *path, u32 ev,
		      const struct mrc_ep *ep);
void mrc_send_ep(struct net *net, struct sock *sk, const struct in6_addr *saddr,
		 const struct in6_addr *daddr, int oif, u8 op,
		 const struct mrc_ep *ep, u8 tclass);

/* A data packet the local stack refused to send (mrc_xmit_queue()). */
struct mrc_local_drop {
	u32 psn;
	u32 ev;
	u8 plane;
};

#endif /* MRC_OUTPUT_H */
