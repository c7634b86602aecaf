/* SPDX-License-Identifier: GPL-2.0 */
/*
 * mrc_ev_probe.h - a spec peer's connectionless EV probes, answered
 * (mrc_ev_probe.c).
 */
#ifndef MRC_EV_PROBE_H
#define MRC_EV_PROBE_H

struct mrc_pkt;
struct net;
struct sk_buff;

void mrc_ev_probe_rcv(struct net *net, const struct sk_buff *skb,
		      const struct mrc_pkt *pkt, int oif);

#endif /* MRC_EV_PROBE_H */
