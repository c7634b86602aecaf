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

/*
 * net.mrc.rx_steer_min_bytes: the default (0 turns steering off). At MTU
 * 1500 an MRC packet is 1,280 to 1,462 bytes, so this is 8 packets there,
 * as the packet count it replaces was; at MTU 9000 it is 2, where a
 * flowcell holds 6 or 7 (its 60 KiB cap) and a floor of 8 never steered.
 */
#define MRC_RX_STEER_MIN_BYTES_DEF	10240

void mrc_steer_note_reader(struct mrc_sock *ms);
bool mrc_steer_rx(struct net *net, struct mrc_sock *ms, struct sk_buff *skb,
		  u32 len);
int mrc_steer_init_module(void);
void mrc_steer_exit_module(void);

#endif /* MRC_STEER_H */
