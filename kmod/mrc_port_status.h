/* SPDX-License-Identifier: GPL-2.0 */
/*
 * mrc_port_status.h - port-status updates sent, retransmitted, applied
 * (mrc_port_status.c).
 */
#ifndef MRC_PORT_STATUS_H
#define MRC_PORT_STATUS_H

#include <linux/types.h>

struct in6_addr;
struct mrc_ep;
struct mrc_sock;
struct net;
struct sk_buff_head;

void mrc_conn_send_port_status(struct mrc_sock *ms, struct sk_buff_head *q);
void mrc_conn_port_status_due(struct mrc_sock *ms, u64 now,
			      struct sk_buff_head *q);
void mrc_conn_peer_ports(struct net *net, const struct in6_addr *saddr,
			 const struct mrc_ep *ep, bool req);

#endif /* MRC_PORT_STATUS_H */
