/* SPDX-License-Identifier: GPL-2.0 */
/*
 * mrc_conn_rx.h - received packets into their connection (mrc_conn_rx.c).
 */
#ifndef MRC_CONN_RX_H
#define MRC_CONN_RX_H

#include <linux/skbuff.h>
#include <linux/types.h>

struct mrc_pkt;
struct mrc_sock;
struct net;

/**
 * struct mrc_rx_batch - packets of one datagram (a flowcell's, or a lone
 * one) on their way to a connection, its lock held from the first to the
 * last (softirq; on the stack of mrc_udp_rcv())
 * @ms: the connection whose lock is held (and a reference), or NULL
 * @hint: the connection the receive front end found for the datagram's
 *	first packet (mrc_rx_elsewhere()), in the same RCU read section and
 *	with no reference held, or NULL; cleared once that packet is through
 * @now: the time, taken once when the lock was
 * @drain: a packet reached the engine: drain it before unlocking
 * @q: what to send once the lock is dropped (NACKs, the drain's packets)
 */
struct mrc_rx_batch {
	struct mrc_sock *ms;
	struct mrc_sock *hint;
	u64 now;
	bool drain;
	struct sk_buff_head q;
};

void mrc_rx_batch_init(struct mrc_rx_batch *b);
void mrc_rx_batch_end(struct net *net, struct mrc_rx_batch *b);
void mrc_conn_rcv(struct net *net, struct mrc_sock *ms, struct sk_buff *skb,
		  const struct mrc_pkt *pkt, int poff, u32 ev, u32 rx_flags,
		  struct mrc_rx_batch *b);

#endif /* MRC_CONN_RX_H */
