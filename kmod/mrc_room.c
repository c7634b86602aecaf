// SPDX-License-Identifier: GPL-2.0
/*
 * mrc_room.c - transmit room on this host: which planes the engine may
 * put packets on. A local queue (qdisc, device) that refuses a packet
 * (NET_XMIT_DROP) or takes it while dropping others (NET_XMIT_CN) closes
 * the planes it answered for, for a back-off, and the engine learns of
 * each refused packet at once as a local drop (no timeout, no EV penalty);
 * the small-queue limit (mrc_tsq.c) closes every plane while it holds.
 * mrc_output.c reports, the connection timer reopens.
 */
#include <linux/bitops.h>
#include <linux/skbuff.h>

#include "mrc_impl.h"
#include "mrc_conn_k.h"
#include "mrc_net.h"
#include "mrc_output.h"
#include "mrc_room.h"
#include "mrc_sock.h"
#include "mrc_timer.h"

/*
 * A plane whose local queue (qdisc, device) refused a packet gets no new
 * packets for this long: the queue drains meanwhile (a 64-packet qdisc at
 * 1 Gbit/s needs ~0.5 ms for 64 KiB) and the retransmission is not refused
 * at once again. Short against an RTO (16.8 ms), which is what the loss
 * cost before (the engine learned of it by timing out).
 */
#define MRC_K_ROOM_BACKOFF_NS	(250 * NSEC_PER_USEC)
/*
 * A queue that still refuses the first packet tried after the planes
 * reopened is not draining (a CPU too busy to forward, a shaper far below
 * the window): each such closure is twice the previous one, up to this.
 * It is what bounds the attempts against a queue that refuses everything
 * (about 60 a second instead of one per 250 us, each of which cost the CPU
 * that was already short), and it stays below the RTO floor, so a plane
 * whose queue drains again is back within one RTO. A closure that begins
 * this long after the last reopening starts again from the shortest.
 */
#define MRC_K_ROOM_BACKOFF_MAX_NS	(16 * NSEC_PER_MSEC)

/**
 * mrc_conn_apply_room() - tell the engine which planes may take packets;
 * connection lock held
 * @ms: the connection
 *
 * None while the connection is at its small-queue limit (mrc_tsq.c),
 * else every plane no local refusal closed (mrc_conn_close_room()).
 */
void mrc_conn_apply_room(struct mrc_sock *ms)
{
	lockdep_assert_held(&ms->lock);
	mrc_conn_set_tx_room(ms->conn, ms->tsq_closed ? 0 : ~ms->room_closed);
}

/*
 * Closes @planes to new packets for ms->room_backoff from @now, whatever a
 * later report names (see mrc_conn_local_drops()); the timer opens every
 * plane again at ms->room_deadline. Planes already closed stay closed, and
 * the deadline moves on: the queue that refused is still full. A new
 * closure doubles the last one (up to MRC_K_ROOM_BACKOFF_MAX_NS) when the
 * queues took nothing of the transmit call that met the refusal (@full)
 * and the planes reopened less than MRC_K_ROOM_BACKOFF_MAX_NS ago;
 * otherwise it lasts MRC_K_ROOM_BACKOFF_NS. What the queues took, not how
 * soon they refused: a host slow enough to spend the shortest closure
 * building the next packet would never see the queue refuse "soon".
 */
static void mrc_conn_close_room(struct mrc_sock *ms, u64 now, u32 planes,
				bool full)
{
	lockdep_assert_held(&ms->lock);
	if (!ms->room_deadline) {
		if (full && ms->room_reopened &&
		    now - ms->room_reopened < MRC_K_ROOM_BACKOFF_MAX_NS)
			ms->room_backoff = min_t(u64, ms->room_backoff * 2,
						 MRC_K_ROOM_BACKOFF_MAX_NS);
		else
			ms->room_backoff = MRC_K_ROOM_BACKOFF_NS;
	}
	ms->room_closed |= planes;
	mrc_conn_apply_room(ms);
	ms->room_deadline = now + ms->room_backoff;
}

/**
 * mrc_conn_local_drops() - tell the engine which data packets this host
 * refused to send (NET_XMIT_DROP: a full qdisc or device queue)
 * @ms: the connection
 * @d: the refused packets (PSN, EV, engine plane)
 * @n: how many
 * @full: the queues took no data packet of this transmit call before
 *	refusing (mrc_conn_close_room())
 * @q: what the engine sends instead (retransmissions on planes with room),
 *	or NULL: nothing now, the timer sends when the planes reopen
 *
 * Called without the connection lock, bottom halves disabled. Each packet
 * is lost at once for the engine (no timeout, no EV penalty, the window
 * shrinks by it) and its plane gets no new packets for a closure
 * (mrc_conn_close_room(): 250 us, doubling up to 16 ms while the queues
 * keep refusing), after which the timer opens every plane again.
 * A plane stays closed until then whatever later batches name: were it
 * reopened by the next report, the engine would resend on it, the caller
 * would report those as refused again, and so on, in softirq, for as long
 * as the qdisc stays full.
 */
void mrc_conn_local_drops(struct mrc_sock *ms, const struct mrc_local_drop *d,
			  u32 n, bool full, struct sk_buff_head *q)
{
	u32 i, planes = 0;
	u64 now;

	spin_lock(&ms->lock);
	if (ms->dead || !ms->conn || ms->state != MRC_ST_ESTABLISHED)
		goto out;
	now = mrc_now();
	for (i = 0; i < n; i++) {
		mrc_conn_tx_dropped(ms->conn, now, d[i].psn, d[i].ev);
		if (d[i].plane < 32)
			planes |= BIT(d[i].plane);
	}
	mrc_conn_close_room(ms, now, planes, full);
	if (q)
		mrc_conn_drain(ms, now, q);
	else
		mrc_timer_arm(ms, mrc_timer_deadline(ms));
out:
	spin_unlock(&ms->lock);
}

/**
 * mrc_conn_local_congestion() - tell the engine a local queue took data
 * packets while dropping others (NET_XMIT_CN)
 * @ms: the connection
 * @pkts: MRC packets it took in those skbs
 * @bytes: their bytes
 * @planes: the engine planes whose queues answered so (bit p: plane p)
 * @full: no data packet of this transmit call was taken without that
 *	answer (mrc_conn_close_room())
 *
 * Called without the connection lock, bottom halves disabled, once per
 * mrc_xmit_queue() call that met the signal: the window shrinks by
 * @bytes (mrc_conn_tx_congested()) and, as for a refusal, those planes
 * get no new packets for a closure (mrc_conn_close_room()), the time the
 * queue needs to drain what it holds instead of dropping more.
 */
void mrc_conn_local_congestion(struct mrc_sock *ms, u32 pkts, u32 bytes,
			       u32 planes, bool full)
{
	u64 now;

	spin_lock(&ms->lock);
	if (ms->dead || !ms->conn || ms->state != MRC_ST_ESTABLISHED)
		goto out;
	now = mrc_now();
	if (mrc_conn_tx_congested(ms->conn, now, bytes) != MRC_OK)
		goto out;
	mrc_net_add(mrc_net(sock_net(&ms->sk)), MRC_CNT_TX_LOCAL_CN, pkts);
	mrc_conn_close_room(ms, now, planes, full);
	mrc_timer_arm(ms, mrc_timer_deadline(ms));
out:
	spin_unlock(&ms->lock);
}

/**
 * mrc_conn_room_timer() - the connection timer fired: reopen the planes
 * whose closure is over; connection lock held
 * @ms: the connection
 * @now: mrc_now()
 */
void mrc_conn_room_timer(struct mrc_sock *ms, u64 now)
{
	lockdep_assert_held(&ms->lock);
	if (!ms->room_deadline || now < ms->room_deadline)
		return;
	/* The local queues had time to drain: send again. */
	ms->room_deadline = 0;
	ms->room_closed = 0;
	ms->room_reopened = now;
	mrc_conn_apply_room(ms);
}
