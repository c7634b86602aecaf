/* SPDX-License-Identifier: GPL-2.0 */
/*
 * mrc_output.h - skbs, routes, encapsulation, transmit, local drops
 * (mrc_tx_skb.c builds the skbs, mrc_output.c sends them).
 */
#ifndef MRC_OUTPUT_H
#define MRC_OUTPUT_H

#include <linux/in6.h>
#include <linux/ipv6.h>
#include <linux/netdevice.h>
#include <linux/skbuff.h>
#include <linux/types.h>
#include <linux/udp.h>
#include <linux/mrc.h>

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

/*
 * Between mrc_tx_skb.c (the build step) and mrc_output.c (the transmit
 * path) only.
 */

/* Headroom of every MRC skb: link layer, outer IPv6 + SRH, IPv6, UDP. */
#define MRC_SRH_MAX		(8 + 16 * MRC_SEGS_MAX)
#define MRC_HEADROOM		(LL_MAX_HEADER + 2 * sizeof(struct ipv6hdr) + \
				 MRC_SRH_MAX + sizeof(struct udphdr))

/* What the transmit path needs from the build step. */
struct mrc_skb_cb {
	u32 ev;
	u32 psn;	/* data packets: reported if the local stack refuses it */
	u8 plane;
	bool hs;	/* endpoint (handshake) packet: the handshake plane */
	bool data;
	u8 tclass;	/* IPv6 traffic class, inner and outer */
	u8 segs;	/* MRC packets in the skb: > 1 for a flowcell */
	u16 seg_len;	/* flowcell: bytes of each MRC packet but the last */
};

static inline struct mrc_skb_cb *mrc_cb(struct sk_buff *skb)
{
	BUILD_BUG_ON(sizeof(struct mrc_skb_cb) > sizeof(skb->cb));
	return (struct mrc_skb_cb *)skb->cb;
}

/**
 * struct mrc_frag_cursor - reads and writes into an skb in offset order
 * @skb: the skb
 * @frag: the frag holding the last byte reached, or the next one
 * @start: offset in @skb of frag @frag's first byte
 *
 * A flowcell's headers, pads and ICRCs sit between its payloads in up to
 * MAX_SKB_FRAGS frags. skb_store_bits() and skb_copy_bits() look for the
 * frag of every access from the first one, so a flowcell of n packets
 * costs O(n * frags) frag steps (2 % of a bulk run's samples in
 * skb_store_bits() alone, Documentation/networking/mrc-bench.rst). The
 * cursor goes on from where the last access was: O(n + frags).
 */
struct mrc_frag_cursor {
	struct sk_buff *skb;
	u32 frag;
	u32 start;
};

void mrc_frag_cursor_init(struct mrc_frag_cursor *fc, struct sk_buff *skb);
int mrc_frag_cursor_copy(struct mrc_frag_cursor *fc, u32 off, void *buf,
			 u32 len, bool write);

#endif /* MRC_OUTPUT_H */
