/* SPDX-License-Identifier: GPL-2.0 */
/*
 * mrc_tsq.h - small queues: the bytes one connection may have in this
 * host's queues at once (net.mrc.limit_output_bytes). See mrc_tsq.c.
 */
#ifndef MRC_TSQ_H
#define MRC_TSQ_H

#include <linux/types.h>

struct mrc_sock;
struct sock;

/* Bits of mrc_sock.tsq_flags (atomic bit operations, no lock). */
enum {
	MRC_TSQ_THROTTLED,	/* rooms closed, a freed packet must wake us */
	MRC_TSQ_QUEUED,		/* the tasklet is scheduled (holds a ref) */
};

void mrc_tsq_init(struct mrc_sock *ms);
void mrc_tsq_write_space(struct sock *sk);
void mrc_tsq_reopen(struct mrc_sock *ms);
void mrc_tsq_check(struct mrc_sock *ms, u32 built);

#endif /* MRC_TSQ_H */
