// SPDX-License-Identifier: GPL-2.0
/*
 * mrc_tsq.c - small queues: the bytes one connection may have in this
 * host's queues (qdiscs, device rings, the stack below MRC) at once.
 *
 * A connection's engine hands out what its windows allow, and on a fabric
 * of deep windows that is far more than a host uplink's qdisc holds. The
 * excess used to be refused (NET_XMIT_DROP) or dropped by the qdisc
 * (NET_XMIT_CN): resent by the engine, and each refusal closed planes for
 * a timed back-off (mrc_conn_local_drops()) that left the queue idle once
 * it had drained. TCP bounds the bytes a socket has below it (TCP Small
 * Queues: tcp_small_queue_check(), tcp_wfree()); this is that idea here:
 *
 *  - Every packet a connection sends is owned by its socket
 *    (skb_set_owner_w() in mrc_xmit_outer()), so sk_wmem_alloc counts the
 *    bytes below us until the skb is freed or orphaned: a veth forwards
 *    it, a device completes it, a qdisc drops it. UDP segmentation offload
 *    hands sock_wfree on to every segment (__udp_gso_segment()), so a
 *    flowcell a qdisc cuts into packets stays counted until they leave.
 *  - The transmit pass (mrc_conn_drain_tx(), connection lock held) asks
 *    the engine for no more packets once those bytes plus the ones the pass
 *    built reach net.mrc.limit_output_bytes: mrc_tsq_check() closes every
 *    plane's room in the engine (control packets still go; data, probes
 *    and retransmissions wait), sets MRC_TSQ_THROTTLED and counts
 *    TxQueueThrottled.
 *  - sock_wfree() calls sk_write_space() for each packet freed (the socket
 *    does not set SOCK_USE_WRITE_QUEUE). Ours, mrc_tsq_write_space(), sees
 *    the flag and, once the bytes below us are at most half the limit,
 *    clears it and schedules the socket's tasklet with a reference on the
 *    socket (none if the socket is already going: nothing is sent for it).
 *    The tasklet (softirq) reopens the rooms and runs the transmit pass.
 *  - A lost wake-up costs a timer tick, not the connection: every transmit
 *    pass (timer, receive, sendmsg) first reopens the rooms if the flag is
 *    clear or the bytes below us are at most half the limit.
 *
 * The rooms closed here and those a refusal closed (mrc_sock.room_closed)
 * are one mask for the engine: mrc_conn_apply_room(). Throttling does not
 * touch the congestion window nor any EV: nothing was lost.
 *
 * Locking: mrc_sock.tsq_flags is changed with atomic bit operations only
 * (softirq, process context, whatever context frees an skb);
 * mrc_sock.tsq_closed and mrc_sock.tsq_wake are written under the
 * connection lock (tsq_wake read without it, READ_ONCE). The flag is set
 * before the bytes are read again (smp_mb__after_atomic()), and the bytes
 * are released before the flag is read (sock_wfree()'s refcount_sub(),
 * then smp_mb__after_atomic()): a packet freed between the pass's first
 * reading and the flag is seen by one side or the other.
 */
#include <linux/interrupt.h>
#include <net/sock.h>

#include "mrc_impl.h"
#include "mrc_conn_k.h"
#include "mrc_net.h"
#include "mrc_output.h"
#include "mrc_room.h"
#include "mrc_sock.h"
#include "mrc_tsq.h"

/* The tasklet: a freed packet took the connection below half its limit. */
static void mrc_tsq_run(struct tasklet_struct *t)
{
	struct mrc_sock *ms = from_tasklet(ms, t, tsq_tasklet);
	struct sk_buff_head q;

	__skb_queue_head_init(&q);
	/*
	 * A wake-up from now on schedules the tasklet again; the flag is
	 * clear before this pass reads the bytes below us (mrc_tsq_reopen()).
	 */
	clear_bit(MRC_TSQ_QUEUED, &ms->tsq_flags);
	smp_mb__after_atomic();	/* the flag before the bytes, as above */
	spin_lock(&ms->lock);
	if (!ms->dead && ms->conn && ms->state == MRC_ST_ESTABLISHED)
		mrc_conn_drain(ms, mrc_now(), &q);
	spin_unlock(&ms->lock);
	mrc_xmit_queue(sock_net(&ms->sk), ms, &q);
	sock_put(&ms->sk);	/* mrc_tsq_write_space()'s */
}

/**
 * mrc_tsq_init() - a socket's small-queue state (socket set-up)
 * @ms: the socket
 */
void mrc_tsq_init(struct mrc_sock *ms)
{
	ms->tsq_flags = 0;
	ms->tsq_closed = false;
	ms->tsq_wake = 0;
	tasklet_setup(&ms->tsq_tasklet, mrc_tsq_run);
}

/**
 * mrc_tsq_write_space() - sk_write_space: sock_wfree() freed a packet
 * @sk: its socket
 *
 * Any context that frees an skb (softirq mostly: a veth's forward, a
 * device's completion, a qdisc's drop; process context for a qdisc
 * reset). sk_wmem_alloc still holds one byte of the packet, so the socket
 * cannot be freed under us. The application's writability is not ours to
 * signal here: it follows the send queue (mrc_sock_write_space()).
 */
void mrc_tsq_write_space(struct sock *sk)
{
	struct mrc_sock *ms = mrc_sk(sk);

	/* sock_wfree() released the bytes before calling us. */
	smp_mb__after_atomic();
	if (!test_bit(MRC_TSQ_THROTTLED, &ms->tsq_flags))
		return;
	if (sk_wmem_alloc_get(sk) > READ_ONCE(ms->tsq_wake))
		return;
	if (!test_and_clear_bit(MRC_TSQ_THROTTLED, &ms->tsq_flags))
		return;
	/* A socket nobody holds any more has nothing left to send. */
	if (!refcount_inc_not_zero(&sk->sk_refcnt))
		return;
	if (test_and_set_bit(MRC_TSQ_QUEUED, &ms->tsq_flags)) {
		/* Scheduled already: it runs the pass for us. */
		sock_put(sk);
		return;
	}
	tasklet_schedule(&ms->tsq_tasklet);
}

/**
 * mrc_tsq_reopen() - a transmit pass begins; connection lock held
 * @ms: the connection
 *
 * Reopens the rooms the limit closed when a freed packet cleared the flag,
 * when the bytes below us fell to half the limit meanwhile (a wake-up
 * lost to a packet dropped before it was charged) or when the limit was
 * lifted.
 */
void mrc_tsq_reopen(struct mrc_sock *ms)
{
	lockdep_assert_held(&ms->lock);
	/* The common case, and the only test of a pass nothing throttled. */
	if (!ms->tsq_closed)
		return;
	if (test_bit(MRC_TSQ_THROTTLED, &ms->tsq_flags) &&
	    READ_ONCE(mrc_net(sock_net(&ms->sk))->limit_output_bytes) &&
	    sk_wmem_alloc_get(&ms->sk) > ms->tsq_wake)
		return;
	clear_bit(MRC_TSQ_THROTTLED, &ms->tsq_flags);
	ms->tsq_closed = false;
	mrc_conn_apply_room(ms);
}

/**
 * mrc_tsq_check() - after each flowcell the pass built; lock held
 * @ms: the connection
 * @built: bytes (truesize) of the skbs this pass built, not yet sent
 *
 * Closes every plane's room in the engine once the bytes below us and
 * @built reach the namespace's limit, so that the pass's next polls return
 * control packets only.
 */
void mrc_tsq_check(struct mrc_sock *ms, u32 built)
{
	struct mrc_net *mn;
	int limit;

	lockdep_assert_held(&ms->lock);
	/* Tested before the namespace is looked up: once per flowcell. */
	if (ms->tsq_closed)
		return;
	mn = mrc_net(sock_net(&ms->sk));
	limit = READ_ONCE(mn->limit_output_bytes);
	if (limit <= 0)
		return;
	if (sk_wmem_alloc_get(&ms->sk) + built < limit)
		return;
	WRITE_ONCE(ms->tsq_wake, limit / 2);
	set_bit(MRC_TSQ_THROTTLED, &ms->tsq_flags);
	/* The flag before the second reading: see the file's comment. */
	smp_mb__after_atomic();
	if (sk_wmem_alloc_get(&ms->sk) + built < limit) {
		clear_bit(MRC_TSQ_THROTTLED, &ms->tsq_flags);
		return;
	}
	ms->tsq_closed = true;
	mrc_conn_apply_room(ms);
	mrc_net_count(mn, MRC_CNT_TX_QUEUE_THROTTLED);
}
