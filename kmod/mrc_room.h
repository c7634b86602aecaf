/* SPDX-License-Identifier: GPL-2.0 */
/*
 * mrc_room.h - transmit room on this host: planes closed by local refusals
 * and the small-queue limit (mrc_room.c).
 */
#ifndef MRC_ROOM_H
#define MRC_ROOM_H

#include <linux/skbuff.h>
#include <linux/types.h>

struct mrc_local_drop;
struct mrc_sock;

void mrc_conn_apply_room(struct mrc_sock *ms);
void mrc_conn_room_timer(struct mrc_sock *ms, u64 now);
void mrc_conn_local_drops(struct mrc_sock *ms, const struct mrc_local_drop *d,
			  u32 n, bool full, struct sk_buff_head *q);
void mrc_conn_local_congestion(struct mrc_sock *ms, u32 pkts, u32 bytes,
			       u32 planes, bool full);

#endif /* MRC_ROOM_H */
