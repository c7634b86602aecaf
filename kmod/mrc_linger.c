// SPDX-License-Identifier: GPL-2.0
/*
 * mrc_linger.c - connections no application holds any more: a closed
 * socket lingering until its messages complete and the peer closes (at
 * most net.mrc.max_orphans of them, each at most MRC_K_LINGER_NS after its
 * last completion), and the children a listener aborts because nobody
 * accepted them and they sent nothing (net.mrc.child_idle_timeout_ms).
 *
 * Both end in a work item (mrc_wq) that tears the connection down in
 * process context: teardown cancels the timer and may sleep, so neither
 * the timer nor the receive path that notices the end can do it.
 */
#include <linux/workqueue.h>
#include <net/sock.h>

#include "mrc_impl.h"
#include "mrc_conn_k.h"
#include "mrc_linger.h"
#include "mrc_net.h"
#include "mrc_output.h"
#include "mrc_sock.h"
#include "mrc_timer.h"

/* A closed socket waits this long for the peer's close request. */
#define MRC_K_LINGER_NS		(2 * NSEC_PER_SEC)
/* Idle children whose deadlines fall this close are aborted together. */
#define MRC_K_REAP_SLACK_NS	(100 * NSEC_PER_MSEC)

/**
 * mrc_conn_close_child() - close a child no application will accept; no
 * lock held
 * @child: unlinked from its listener's accept queue, whose reference the
 *	caller passes on
 * @abort: as close() with SO_LINGER 0 (the peer fails with ECONNRESET
 *	without waiting for our messages' acknowledgements); false: as a
 *	plain close() of an accepted socket
 *
 * The peer is told first: the child is marked released and its close
 * request queued under the child's lock, then sent once the lock is
 * dropped, before the engine goes and the socket is freed.
 */
void mrc_conn_close_child(struct mrc_sock *child, bool abort)
{
	struct sk_buff_head q;

	__skb_queue_head_init(&q);
	spin_lock_bh(&child->lock);
	child->released = true;
	if (abort)
		child->abort = true;
	mrc_conn_close_due(child, &q);
	spin_unlock_bh(&child->lock);
	mrc_xmit_queue(sock_net(&child->sk), child, &q);
	mrc_conn_teardown(child);
	mrc_sock_free_child(&child->sk);
}

/* A child its listener unlinked for idleness (mrc_listen_reap_idle()). */
static void mrc_idle_child_work(struct work_struct *w)
{
	mrc_conn_close_child(container_of(w, struct mrc_sock, destroy_work),
			     true);
}

/**
 * mrc_listen_reap_idle() - the listener's timer: unlink the children whose
 * idle deadline passed and hand each to a work item that aborts it;
 * listener lock held (softirq)
 * @lst: the listener
 * @now: mrc_now()
 *
 * A child's deadline is cleared when it delivers a message, and accept()
 * takes it off the queue, so only a connection that sent nothing and was
 * not accepted goes (net.mrc.child_idle_timeout_ms). The queue is in
 * creation order and every deadline is creation + the timeout read then,
 * so the walk stops at the first deadline still ahead (a later sysctl
 * change applies to later children); deadlines due within
 * MRC_K_REAP_SLACK_NS are taken together, so a burst of children costs a
 * few timer runs, not one each. The timer is re-armed for the next one.
 */
void mrc_listen_reap_idle(struct mrc_sock *lst, u64 now)
{
	struct mrc_net *mn = mrc_net(sock_net(&lst->sk));
	struct mrc_sock *child, *tmp;
	u64 next = MRC_NO_DEADLINE, dl;

	lockdep_assert_held(&lst->lock);
	list_for_each_entry_safe(child, tmp, &lst->accept_q, accept_node) {
		spin_lock_nested(&child->lock, SINGLE_DEPTH_NESTING);
		dl = child->idle_deadline;
		spin_unlock(&child->lock);
		if (!dl)
			continue;
		if (dl > now + MRC_K_REAP_SLACK_NS) {
			next = dl;
			break;
		}
		list_del_init(&child->accept_node);
		child->parent = NULL;
		sk_acceptq_removed(&lst->sk);
		mrc_net_count(mn, MRC_CNT_IDLE_CHILDREN_ABORTED);
		INIT_WORK(&child->destroy_work, mrc_idle_child_work);
		queue_work(mrc_wq, &child->destroy_work);
	}
	mrc_timer_arm(lst, next);
}

/* The last message of a lingering close completed (or failed). */
static void mrc_orphan_work(struct work_struct *w)
{
	struct mrc_sock *ms = container_of(w, struct mrc_sock, destroy_work);

	atomic_dec(&mrc_net(sock_net(&ms->sk))->orphans);
	mrc_conn_teardown(ms);
	sock_put(&ms->sk);
}

/**
 * mrc_conn_linger() - close() before the close handshake is over: keep the
 * connection until our messages complete and the peer's close request
 * arrives (or MRC_K_LINGER_NS after the last completion), or until it
 * fails; socket lock held
 * @ms: the socket, about to be orphaned
 *
 * Staying until the peer closes too lets the connection keep acknowledging
 * the peer's last packets: a SACK lost or overtaken at the very end would
 * otherwise leave the peer retransmitting into a QPN that no longer exists
 * until its retry budget runs out.
 *
 * At most net.mrc.max_orphans connections of a namespace linger, as TCP's
 * tcp_max_orphans: a close() beyond that aborts (the peer is told at once
 * and fails with ECONNRESET; what it had not acknowledged is lost), so that
 * a program that opens and closes connections to a stalled peer cannot
 * leave an unbounded number of them behind.
 *
 * Return: true if the connection lingers (it holds a socket reference and
 * tears itself down), false if the caller tears it down now.
 */
bool mrc_conn_linger(struct mrc_sock *ms)
{
	struct mrc_net *mn = mrc_net(sock_net(&ms->sk));
	bool linger;

	spin_lock_bh(&ms->lock);
	linger = ms->state == MRC_ST_ESTABLISHED && !ms->dead &&
		 (ms->tx_pending || !ms->peer_closed);
	if (linger && atomic_inc_return(&mn->orphans) >
		      READ_ONCE(mn->max_orphans)) {
		atomic_dec(&mn->orphans);
		mrc_net_count(mn, MRC_CNT_ORPHANS_ABORTED);
		ms->abort = true;
		linger = false;
	}
	if (linger) {
		INIT_WORK(&ms->destroy_work, mrc_orphan_work);
		ms->orphan = true;
		/* A peer that refuses our data no longer keeps us alive. */
		mrc_conn_set_orphan(ms->conn);
		WRITE_ONCE(ms->shut_wr, true);
		sock_hold(&ms->sk);
	}
	spin_unlock_bh(&ms->lock);
	return linger;
}

/**
 * mrc_orphan_done() - is a lingering orphan done? Connection lock held
 * @ms: the socket
 * @now: mrc_now()
 *
 * Schedules the teardown (the socket is dead from here on) if so.
 *
 * Return: true if the connection is done and must not be touched further.
 */
bool mrc_orphan_done(struct mrc_sock *ms, u64 now)
{
	lockdep_assert_held(&ms->lock);
	if (!ms->orphan)
		return false;
	if (ms->state == MRC_ST_ESTABLISHED) {
		if (ms->tx_pending)
			return false;
		if (!ms->linger_deadline)
			ms->linger_deadline = now + MRC_K_LINGER_NS;
		if (!ms->peer_closed && now < ms->linger_deadline)
			return false;
	}
	ms->orphan = false;
	ms->dead = true;
	queue_work(mrc_wq, &ms->destroy_work);
	return true;
}
