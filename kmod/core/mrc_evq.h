/* SPDX-License-Identifier: GPL-2.0 OR MIT */
/*
 * mrc_evq.h - bounded queue of informational engine events.
 *
 * Only informational events (EV state changes, plane changes, probes, RTT
 * samples) go through this ring. When it is full the new event is dropped
 * and counted: the engine never blocks on the host. Message completions,
 * deliveries and the connection error are not queued here: they are derived
 * from bounded protocol state by mrc_conn_poll_event(), so they can never be
 * lost.
 */
#ifndef MRC_EVQ_H
#define MRC_EVQ_H

#include "mrc_engine.h"

struct mrc_evq {
	struct mrc_event *ring;
	u32 cap;
	u32 head;
	u32 count;
	u32 mask;
	u64 dropped;
};

static inline bool mrc_evq_wants(const struct mrc_evq *q, u8 type)
{
	return (q->mask >> type) & 1u;
}

static inline void mrc_evq_push(struct mrc_evq *q, const struct mrc_event *e)
{
	u32 tail;

	if (!mrc_evq_wants(q, e->type))
		return;
	if (q->count >= q->cap) {
		q->dropped++;
		return;
	}
	tail = q->head + q->count;
	if (tail >= q->cap)
		tail -= q->cap;
	q->ring[tail] = *e;
	q->count++;
}

static inline bool mrc_evq_pop(struct mrc_evq *q, struct mrc_event *e)
{
	if (!q->count)
		return false;
	*e = q->ring[q->head];
	q->head++;
	if (q->head >= q->cap)
		q->head = 0;
	q->count--;
	return true;
}

#endif /* MRC_EVQ_H */
