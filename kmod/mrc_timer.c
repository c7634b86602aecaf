// SPDX-License-Identifier: GPL-2.0
/*
 * mrc_timer.c - the connection timer: the one hrtimer of every socket
 * (mrc_sock.timer), its set-up (mrc_timer_init()), the deadline it is
 * armed at (mrc_timer_deadline()), its arming (mrc_timer_arm()) and what
 * an expiry does (mrc_timer_fn()): retransmit the connect request of a
 * connecting socket, reap a listener's idle children
 * (mrc_listen_reap_idle()), and give an established connection's engine
 * and socket their timeouts, after a grace for a host that stalled
 * (mrc_timer_stalled()).
 *
 * One timer per connection, at the earliest of every deadline. The engine
 * (kmod/core/) is sans-IO: it keeps its own timeouts (retransmission,
 * loss detection and progress on the requester's side, the delayed SACK
 * on the responder's, EV probes) and tells the host the next one only
 * (mrc_conn_next_deadline()). The socket has its own: a closed socket's
 * linger (mrc_linger.c), the grace after a peer's RESET (reset_deadline),
 * the reopening of the planes a local queue closed (mrc_room.c), the
 * port-status retransmission (mrc_port_status.c). Each of them is served
 * by the same pass under the connection lock: the room's and the engine's
 * timer inputs, then mrc_conn_drain(), which checks the socket's
 * deadlines, queues what is due and re-arms the timer at the earliest
 * deadline left. So one hrtimer serves them all, with one lock hold and
 * one drain per expiry, where a timer per deadline would add expiries,
 * passes over the connection and cancellations; and teardown has one
 * timer to cancel. The same timer retransmits a connecting socket's
 * connect request and reaps a listener's idle children.
 *
 * Locking and context:
 *
 *  - The timer is CLOCK_MONOTONIC, HRTIMER_MODE_ABS_SOFT: mrc_timer_fn()
 *    runs in softirq (the hrtimer softirq), never in hard interrupt
 *    context. It takes the connection lock with spin_lock() (bottom halves
 *    are off there), queues the packets it builds in a local sk_buff_head
 *    and sends them once the lock is dropped (mrc_xmit_queue()). It always
 *    returns HRTIMER_NORESTART: a pass that needs the timer again re-arms
 *    it with hrtimer_start() under the lock (mrc_timer_arm(), or the stall
 *    grace).
 *  - mrc_timer_arm() and mrc_timer_deadline() are called with the
 *    connection lock held, in process context (spin_lock_bh()) or in
 *    softirq (spin_lock(): the receive path, the transmit side's reports,
 *    the timer's own callback); mrc_timer_arm() also on a socket not
 *    shared yet. A listener's timer is armed with the listener's lock
 *    held. Arming while the callback runs (it may be spinning on the lock
 *    the caller holds) is safe: the hrtimer core queues the timer again
 *    under its own base lock, and a pass that finds nothing due yet
 *    changes nothing but the timer (an established connection's is
 *    counted as TimerIdle).
 *  - Teardown (mrc_conn_teardown()) marks the socket dead under the
 *    connection lock: from then on mrc_timer_arm() does nothing and a
 *    callback that runs returns at once. Only then, with the lock dropped
 *    (the callback takes it), does it cancel the timer with
 *    hrtimer_cancel(), which waits for a running callback.
 */
#include <linux/hrtimer.h>
#include <linux/skbuff.h>

#include "mrc_impl.h"
#include "mrc_conn_k.h"
#include "mrc_linger.h"
#include "mrc_net.h"
#include "mrc_output.h"
#include "mrc_room.h"
#include "mrc_sock.h"
#include "mrc_timer.h"

/* A timer this late means the host stalled; grace before timeouts count. */
#define MRC_K_STALL_NS		(2 * NSEC_PER_MSEC)
#define MRC_K_STALL_GRACE_NS	(1 * NSEC_PER_MSEC)

/**
 * mrc_timer_deadline() - when the connection timer is due; connection
 * lock held
 * @ms: an established connection
 *
 * Return: the earliest of the engine's deadline and the socket's own
 * (linger, reset grace, local room, port status), or MRC_NO_DEADLINE.
 */
u64 mrc_timer_deadline(const struct mrc_sock *ms)
{
	u64 t = mrc_conn_next_deadline(ms->conn);

	if (ms->orphan && ms->linger_deadline)
		t = min(t, ms->linger_deadline);
	if (ms->reset_deadline)
		t = min(t, ms->reset_deadline);
	if (ms->room_deadline)
		t = min(t, ms->room_deadline);
	if (ms->ps_tries)
		t = min(t, ms->ps_deadline);
	return t;
}

/**
 * mrc_timer_arm() - make the connection timer fire at @when, and only then
 * @ms: the socket (connection lock held, or the socket not yet shared)
 * @when: absolute CLOCK_MONOTONIC ns, or MRC_NO_DEADLINE: cancel
 */
void mrc_timer_arm(struct mrc_sock *ms, u64 when)
{
	if (ms->dead)
		return;
	if (when == MRC_NO_DEADLINE) {
		/*
		 * Nothing is due: a deadline left queued (a retransmission
		 * timeout or tail-loss probe of a message the peer has since
		 * acknowledged) would still fire, an interrupt and a pass
		 * over the connection for nothing: 1.2 times per round trip
		 * of a pingpong. Free when the timer is idle (a lockless
		 * check); -1, harmlessly, from its own callback.
		 */
		hrtimer_try_to_cancel(&ms->timer);
		return;
	}
	hrtimer_start(&ms->timer, ns_to_ktime(when), HRTIMER_MODE_ABS_SOFT);
}

/*
 * A timer that fires long after its expiry means this host did not run
 * (a busy or virtualised CPU): the acknowledgements that would have
 * cancelled the deadlines may be sitting unprocessed in a receive queue.
 * Declaring the packets lost now would turn the host's stall into path
 * failures (EVs ASSUMED_BAD, spurious retransmissions). Give the receive
 * path one grace period first; the deadline after it is final.
 */
static bool mrc_timer_stalled(struct mrc_sock *ms, struct hrtimer *t, u64 now)
{
	u64 expiry = ktime_to_ns(hrtimer_get_expires(t));

	if (ms->timer_stall_deferred || now < expiry ||
	    now - expiry < MRC_K_STALL_NS) {
		ms->timer_stall_deferred = false;
		return false;
	}
	ms->timer_stall_deferred = true;
	mrc_net_count(mrc_net(sock_net(&ms->sk)), MRC_CNT_TIMER_STALLS);
	hrtimer_start(&ms->timer, ns_to_ktime(now + MRC_K_STALL_GRACE_NS),
		      HRTIMER_MODE_ABS_SOFT);
	return true;
}

static enum hrtimer_restart mrc_timer_fn(struct hrtimer *t)
{
	struct mrc_sock *ms = container_of(t, struct mrc_sock, timer);
	struct net *net = sock_net(&ms->sk);
	struct sk_buff_head q;
	u32 rto;
	u64 now;

	__skb_queue_head_init(&q);
	spin_lock(&ms->lock);
	if (ms->dead)
		goto out;
	now = mrc_now();
	switch (ms->state) {
	case MRC_ST_CONNECTING:
		if (now < ms->hs_deadline) {
			mrc_timer_arm(ms, ms->hs_deadline);
			break;
		}
		if (ms->hs_tries >= MRC_HS_TRIES) {
			mrc_net_count(mrc_net(net), MRC_CNT_CONN_TIMEDOUT);
			mrc_sk_fail(ms, ETIMEDOUT);
			break;
		}
		rto = min(MRC_HS_RTO_MS << ms->hs_tries, MRC_HS_RTO_MAX_MS);
		ms->hs_tries++;
		ms->hs_deadline = now + (u64)rto * NSEC_PER_MSEC;
		mrc_conn_send_req(ms, MRC_EP_CONNECT, &q);
		mrc_net_count(mrc_net(net), MRC_CNT_CONN_REQ_RTX);
		mrc_timer_arm(ms, ms->hs_deadline);
		break;
	case MRC_ST_ESTABLISHED:
		if (mrc_timer_stalled(ms, t, now))
			break;
		if (now < mrc_timer_deadline(ms))
			mrc_net_count(mrc_net(net), MRC_CNT_TIMER_IDLE);
		mrc_conn_room_timer(ms, now);
		mrc_conn_on_timer(ms->conn, now);
		mrc_conn_drain(ms, now, &q);
		break;
	case MRC_ST_LISTEN:
		mrc_listen_reap_idle(ms, now);
		break;
	default:
		break;
	}
out:
	spin_unlock(&ms->lock);
	mrc_xmit_queue(net, ms, &q);
	return HRTIMER_NORESTART;
}

/**
 * mrc_timer_init() - set up the connection timer of a new socket, unarmed
 * @ms: the socket, not shared yet
 */
void mrc_timer_init(struct mrc_sock *ms)
{
	hrtimer_init(&ms->timer, CLOCK_MONOTONIC, HRTIMER_MODE_ABS_SOFT);
	ms->timer.function = mrc_timer_fn;
}
