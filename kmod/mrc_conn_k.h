/* SPDX-License-Identifier: GPL-2.0 */
/*
 * mrc_conn_k.h - connections around the engine: set-up, the host contract
 * (drain, timer), teardown (mrc_conn_k.c). Finding a connection is
 * mrc_lookup.h's, the connection timer mrc_timer.h's.
 */
#ifndef MRC_CONN_K_H
#define MRC_CONN_K_H

#include <linux/skbuff.h>
#include <linux/types.h>

#include "core/mrc_engine.h"

struct mrc_sock;
struct mrc_trace_ids;
struct net;
struct sock;

void mrc_conn_sock_init(struct mrc_sock *ms);
void mrc_conn_ids(const struct mrc_sock *ms, struct mrc_trace_ids *ids);
void mrc_conn_read_tclass(struct mrc_sock *ms);
int mrc_conn_build(struct mrc_sock *ms, bool may_sleep,
		   struct mrc_conn **connp);
void mrc_conn_install(struct mrc_sock *ms, struct mrc_conn *conn, u64 now);
int mrc_conn_start_client(struct mrc_sock *ms, u64 now);
void mrc_conn_drain(struct mrc_sock *ms, u64 now, struct sk_buff_head *q);
int mrc_conn_route(struct net *net, struct mrc_sock *ms);
void mrc_fill_ep(struct mrc_sock *ms, u8 kind, struct mrc_ep *ep);
void mrc_conn_teardown(struct mrc_sock *ms);
int mrc_conn_connect(struct mrc_sock *ms);
void mrc_conn_send_req(struct mrc_sock *ms, u8 kind, struct sk_buff_head *q);
void mrc_conn_close_due(struct mrc_sock *ms, struct sk_buff_head *q);
/* What mrc_conn_drain() calls once the engine's events are consumed. */
#define MRC_WAKE_READ	BIT(0)	/* sk_data_ready: a message was queued */
#define MRC_WAKE_WRITE	BIT(1)	/* mrc_sock_write_space(): a send completed */

void mrc_conn_wake(struct sock *sk, int band);
u32 mrc_mtu_for(u32 path_mtu);

void mrc_sk_fail(struct mrc_sock *ms, int err);

#endif /* MRC_CONN_K_H */
