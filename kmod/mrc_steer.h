/* SPDX-License-Identifier: GPL-2.0 */
/*
 * mrc_steer.h - flowcells received on one CPU, processed on the reader's
 * (mrc_steer.c).
 */
#ifndef MRC_STEER_H
#define MRC_STEER_H

#include <linux/types.h>

struct mrc_sock;
struct net;
struct sk_buff;

/* net.mrc.rx_steer_min_pkts: the default (0 turns steering off). */
#define MRC_RX_STEER_MIN_PKTS_DEF	8

void mrc_steer_note_reader(struct mrc_sock *ms);
bool mrc_steer_rx(struct net *net, struct mrc_sock *ms, struct sk_buff *skb,
		  u32 len);
int mrc_steer_init_module(void);
void mrc_steer_exit_module(void);

#endif /* MRC_STEER_H */
