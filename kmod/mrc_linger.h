/* SPDX-License-Identifier: GPL-2.0 */
/*
 * mrc_linger.h - connections no application holds: lingering orphans and
 * idle children (mrc_linger.c).
 */
#ifndef MRC_LINGER_H
#define MRC_LINGER_H

#include <linux/types.h>

struct mrc_sock;

void mrc_conn_close_child(struct mrc_sock *child, bool abort);
void mrc_listen_reap_idle(struct mrc_sock *lst, u64 now);
bool mrc_conn_linger(struct mrc_sock *ms);
bool mrc_orphan_done(struct mrc_sock *ms, u64 now);

#endif /* MRC_LINGER_H */
