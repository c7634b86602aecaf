/* SPDX-License-Identifier: GPL-2.0 */
/*
 * mrc_input.h - the namespace's UDP socket and the receive front end
 * (mrc_input.c).
 */
#ifndef MRC_INPUT_H
#define MRC_INPUT_H

#include <linux/types.h>

struct mrc_net;
struct net;
struct sk_buff;
struct sock;

/*
 * SO_RCVBUF of a namespace's UDP socket: mrc_udp_data_ready() empties its
 * queue in the softirq that fills it, so this only bounds what several
 * CPUs queue at the same instant (a flowcell is up to 64 KiB).
 */
#define MRC_UDP_RCVBUF		(4 << 20)

int mrc_udp_get(struct net *net);
void mrc_udp_net_exit(struct mrc_net *mn);
int mrc_rx_deferred(struct sock *sk, struct sk_buff *skb);

#endif /* MRC_INPUT_H */
