/* SPDX-License-Identifier: GPL-2.0 */
/*
 * mrc_timer.h - the connection timer: one hrtimer per socket, armed at the
 * earliest of the engine's deadline and the socket's own (mrc_timer.c).
 */
#ifndef MRC_TIMER_H
#define MRC_TIMER_H

#include <linux/types.h>

struct mrc_sock;

void mrc_timer_init(struct mrc_sock *ms);
u64 mrc_timer_deadline(const struct mrc_sock *ms);
void mrc_timer_arm(struct mrc_sock *ms, u64 when);

#endif /* MRC_TIMER_H */
