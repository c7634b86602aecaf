// SPDX-License-Identifier: GPL-2.0
/*
 * mrc_conn_rx.c - received packets into their connection: the source
 * check after the QPN lookup, SO_RCVBUF and memory admission in front of
 * the engine (mrc_rx_prepare()), placement of the payload (the skb held
 * per message, or copied), a receive batch per datagram under one lock
 * hold with one drain (struct mrc_rx_batch). Called by the receive front
 * end (mrc_input.c) in the UDP socket's softirq.
 */
#include <linux/skbuff.h>
#include <net/ipv6.h>

#include "mrc_impl.h"
#include "mrc_conn_k.h"
#include "mrc_conn_rx.h"
#include "mrc_mem.h"
#include "mrc_msg.h"
#include "mrc_net.h"
#include "mrc_output.h"
#include "mrc_sock.h"
#include "mrc_telemetry.h"

/* Free the buffer mrc_rx_prepare() created for @msn. Connection lock held. */
static void mrc_rx_unfresh(struct mrc_sock *ms, u16 msn)
{
	struct mrc_msgbuf **slot = &ms->rxm[msn % ms->rx_cap];

	lockdep_assert_held(&ms->lock);
	if (*slot) {
		ms->rx_inprog -= (*slot)->charge;
		mrc_mem_uncharge(ms, (*slot)->mem);
		mrc_mb_free(*slot);
		*slot = NULL;
	}
}

/*
 * May @skb stay held by @mb for one of its packets (mrc_msg.c)? Within the
 * message's charge, yes; beyond it, if SO_RCVBUF (grown if it may be,
 * mrc_rcvbuf_grow()), the global limit and the memory cgroup take the
 * excess, which is then part of the message's charge (*@extra, given
 * back by mrc_rx_unhold() if the engine does not take the packet).
 * Otherwise the packet is copied. Connection lock held.
 */
static bool mrc_rx_try_hold(struct mrc_sock *ms, struct mrc_msgbuf *mb,
			    const struct sk_buff *skb, u32 *extra)
{
	lockdep_assert_held(&ms->lock);
	if (!mrc_mb_can_hold(mb, skb, extra) ||
	    mrc_mb_hold_reserve(mb, GFP_ATOMIC))
		return false;
	if (!*extra)
		return true;
	if ((ms->rx_queued + ms->rx_inprog + *extra >
	     (u64)READ_ONCE(ms->sk.sk_rcvbuf) &&
	     !mrc_rcvbuf_grow(ms, ms->rx_queued + ms->rx_inprog + *extra)) ||
	    !mrc_mem_charge(ms, *extra, SK_MEM_RECV)) {
		*extra = 0;
		return false;
	}
	mb->charge += *extra;
	mb->mem += *extra;
	ms->rx_inprog += *extra;
	return true;
}

/* Give back what mrc_rx_try_hold() charged for a packet not placed. */
static void mrc_rx_unhold(struct mrc_sock *ms, u16 msn, u32 extra)
{
	struct mrc_msgbuf *mb = ms->rxm[msn % ms->rx_cap];

	if (!mb || !extra)
		return;
	mb->charge -= extra;
	mb->mem -= extra;
	ms->rx_inprog -= extra;
	mrc_mem_uncharge(ms, extra);
}

/*
 * Before the engine sees a data packet: make sure its bytes can be placed,
 * held in @skb (*@hold set, *@extra charged for it) or copied into pages
 * that exist. The engine records a packet as received as soon as it
 * accepts it, so every refusal must happen here. A new message is admitted while the
 * bytes charged for delivered-but-unread and partially received messages
 * stay within SO_RCVBUF; the next message in order is always admitted when
 * nothing delivered is waiting, so one message larger than SO_RCVBUF still
 * gets through and later messages can never starve an earlier one.
 *
 * Return: 0 (go on; *@fresh set if a buffer was created for this packet),
 * -ENOBUFS (over SO_RCVBUF) or -ENOMEM. Connection lock held.
 */
static int mrc_rx_prepare(struct mrc_sock *ms, const struct mrc_pkt *pkt,
			  const struct sk_buff *skb, bool *fresh, bool *hold,
			  u32 *extra)
{
	struct sock *sk = &ms->sk;
	u16 msn = pkt->meth.msn;
	s32 d = (s16)(u16)(msn - ms->rx_next_msn);
	u32 len = pkt->reth.dma_len;
	struct mrc_msgbuf *mb, **slot;
	u32 charge, mem;

	lockdep_assert_held(&ms->lock);
	*fresh = false;
	*hold = false;
	*extra = 0;
	/* Out of the slot range or too long: the engine rejects it. */
	if (d < 0 || d >= ms->rx_cap || len > MRC_MSG_MAX)
		return 0;
	slot = &ms->rxm[msn % ms->rx_cap];
	mb = *slot;
	if (mb && (mb->msn != msn || mb->len != len))
		return 0;
	if (!mb) {
		charge = mrc_mb_truesize(len);
		if (ms->rx_queued + ms->rx_inprog + charge >
		    (u64)READ_ONCE(sk->sk_rcvbuf) &&
		    !(d == 0 && !ms->rx_queued) &&
		    !mrc_rcvbuf_grow(ms, ms->rx_queued + ms->rx_inprog + charge))
			return -ENOBUFS;
		/*
		 * The global limit and the memory cgroup: as a full buffer,
		 * with the same exemption as SO_RCVBUF's: the next message
		 * in order, when nothing delivered waits, is admitted
		 * uncharged (at most one per connection), so that every
		 * connection progresses at the limit. Charged memory of
		 * unacknowledged sends on this host could otherwise leave
		 * no receiver able to take anything.
		 */
		mem = charge;
		if (!mrc_mem_charge(ms, charge, SK_MEM_RECV)) {
			mrc_net_count(mrc_net(sock_net(sk)), MRC_CNT_RX_MEM_LIMIT);
			if (!(d == 0 && !ms->rx_queued))
				return -ENOBUFS;
			mem = 0;
		}
		mb = mrc_mb_alloc(len, GFP_ATOMIC);
		if (!mb) {
			mrc_mem_uncharge(ms, mem);
			return -ENOMEM;
		}
		mb->msn = msn;
		mb->charge = charge;
		mb->mem = mem;
		*slot = mb;
		ms->rx_inprog += charge;
		*fresh = true;
	}
	if (!pkt->payload_len)
		return 0;
	if (mrc_rx_try_hold(ms, mb, skb, extra)) {
		*hold = true;
		return 0;
	}
	if (mrc_mb_fill(mb, (u32)pkt->reth.va, pkt->payload_len, GFP_ATOMIC)) {
		/*
		 * A buffer made for this packet must not outlive the refusal:
		 * its length came from this packet alone, and a later packet
		 * of the same MSN is checked against it.
		 */
		if (*fresh) {
			mrc_rx_unfresh(ms, msn);
			*fresh = false;
		}
		return -ENOMEM;
	}
	return 0;
}

/*
 * The receiver cannot take the packet now: answer NACK NO_RESOURCE, which
 * the sender handles as flow control (retransmit after one base RTO, no EV
 * penalty, no retry budget) instead of a silent drop that would look like
 * path failure.
 */
static void mrc_rx_nack_nores(struct mrc_sock *ms, const struct mrc_pkt *pkt,
			      u32 ev, struct sk_buff_head *q)
{
	struct mrc_pkt n;
	struct sk_buff *skb;

	mrc_pkt_init(&n, MRC_OP_NACK, ms->peer_qpn);
	n.bth.psn = pkt->bth.psn;
	n.nack.reason = MRC_NACK_NO_RESOURCE;
	n.nack.tx_ts = pkt->bth.ts ? pkt->tseth.tx_ts : 0;
	n.nack.ev = ev;
	n.nack.src_conn = ms->local_conn_id;
	n.nack.dst_conn = ms->peer_conn_id;
	n.nack.nack_psn = pkt->bth.psn;
	n.nack.cc_type = ms->cc_algo & 0xf;
	skb = mrc_build_pkt(ms, &n, ev, NULL, 0);
	if (skb)
		__skb_queue_tail(q, skb);
}

/* Receive-drop counters of the engine, before mrc_conn_rx(). */
struct mrc_rx_drops {
	u64 oor;
	u64 dup;
};

/* Data packet the engine did not place: duplicate or out of window? */
static void mrc_rx_count_consumed(struct mrc_sock *ms, struct mrc_net *mn,
				  const struct mrc_rx_drops *before)
{
	struct mrc_rx_drops after;

	mrc_conn_rx_drop_counts(ms->conn, &after.oor, &after.dup);
	if (after.oor != before->oor)
		mrc_net_count(mn, MRC_CNT_RX_OOW);
	else if (after.dup != before->dup)
		mrc_net_count(mn, MRC_CNT_RX_DUP);
}

/**
 * mrc_rx_batch_init() - an empty receive batch
 * @b: the batch
 */
void mrc_rx_batch_init(struct mrc_rx_batch *b)
{
	b->ms = NULL;
	b->hint = NULL;
	b->drain = false;
	__skb_queue_head_init(&b->q);
}

/**
 * mrc_rx_batch_end() - finish what a receive batch holds: one engine drain
 * for all of its packets (SACKs, deliveries, new data), the connection
 * unlocked, what it gave to send sent
 * @net: namespace of the UDP socket
 * @b: the batch; empty again afterwards
 */
void mrc_rx_batch_end(struct net *net, struct mrc_rx_batch *b)
{
	struct mrc_sock *ms = b->ms;

	if (!ms)
		return;
	if (b->drain)
		mrc_conn_drain(ms, b->now, &b->q);
	spin_unlock(&ms->lock);
	mrc_xmit_queue(net, ms, &b->q);
	sock_put(&ms->sk);
	mrc_rx_batch_init(b);
}

/**
 * mrc_conn_rcv() - a decoded packet for a connection (softirq, RCU)
 * @net: namespace of the UDP socket
 * @ms: the connection @pkt's QPN names (mrc_lookup_rx(), in the caller's
 *      RCU read section; no reference taken yet)
 * @skb: the packet (IPv6 header for the source check); freed by the
 *       caller, after a message took a reference to keep a payload in it
 * @pkt: decoded MRC packet
 * @poff: offset of its payload in @skb (from skb->data; linear or not)
 * @ev: EV it arrived with
 * @rx_flags: MRC_RXF_*
 * @b: the receive batch: the packets of one flowcell (or a lone datagram)
 *     go to their connection under one lock, the engine drained once,
 *     by mrc_rx_batch_end(); a packet for another connection ends the
 *     batch first
 */
void mrc_conn_rcv(struct net *net, struct mrc_sock *ms, struct sk_buff *skb,
		  const struct mrc_pkt *pkt, int poff, u32 ev, u32 rx_flags,
		  struct mrc_rx_batch *b)
{
	struct mrc_net *mn = mrc_net(net);
	bool data, fresh = false, hold = false;
	struct mrc_rx_drops before = {};
	struct mrc_msgbuf *mb;
	u32 extra = 0;
	int v, err;

	if (!ipv6_addr_equal(&ipv6_hdr(skb)->saddr,
			     (struct in6_addr *)ms->peer.smrc_addr)) {
		mrc_net_count(mn, MRC_CNT_RX_WRONG_SRC);
		return;
	}
	if (ms != b->ms) {
		mrc_rx_batch_end(net, b);
		if (!refcount_inc_not_zero(&ms->sk.sk_refcnt)) {
			mrc_net_count(mn, MRC_CNT_RX_UNKNOWN_QPN);
			return;
		}
		spin_lock(&ms->lock);
		b->ms = ms;
		b->now = mrc_now();
	}
	lockdep_assert_held(&ms->lock);
	if (ms->dead || !ms->conn || ms->state != MRC_ST_ESTABLISHED) {
		mrc_net_count(mn, MRC_CNT_RX_NOT_READY);
		return;
	}
	b->drain = true;
	data = mrc_op_is_data(pkt->bth.opcode) && !(rx_flags & MRC_RXF_TRIMMED);
	if (data) {
		err = mrc_rx_prepare(ms, pkt, skb, &fresh, &hold, &extra);
		if (err) {
			mrc_net_count(mn, err == -ENOBUFS ? MRC_CNT_RX_NOBUF :
				      MRC_CNT_RX_NOMEM);
			mrc_rx_nack_nores(ms, pkt, ev, &b->q);
			return;
		}
		mrc_conn_rx_drop_counts(ms->conn, &before.oor, &before.dup);
	}
	v = mrc_conn_rx(ms->conn, b->now, pkt, ev, rx_flags);
	if (trace_mrc_ack_rcvd_enabled()) {
		struct mrc_trace_ids ids;

		mrc_conn_ids(ms, &ids);
		mrc_tel_rx(&ids, pkt, v);
	}
	switch (v) {
	case MRC_RX_PLACE:
	case MRC_RX_PLACE_NEW:
		if (!pkt->payload_len)
			break;
		mb = ms->rxm[pkt->meth.msn % ms->rx_cap];
		/*
		 * mrc_rx_prepare() made the slot and its pages exist, but only
		 * for a buffer of this MSN and length: never write into one
		 * made for another message or another length.
		 */
		if (!mb || mb->msn != pkt->meth.msn ||
		    mb->len != pkt->reth.dma_len ||
		    (u64)pkt->reth.va + pkt->payload_len > mb->len) {
			mrc_net_count(mn, MRC_CNT_RX_PROTO);
			break;
		}
		if (hold) {
			mrc_mb_hold_skb(mb, (u32)pkt->reth.va, skb, poff,
					pkt->payload_len);
			mrc_net_count(mn, MRC_CNT_RX_HELD);
		} else {
			mrc_mb_write_skb(mb, (u32)pkt->reth.va, skb, poff,
					 pkt->payload_len);
			mrc_net_count(mn, MRC_CNT_RX_COPIED);
		}
		break;
	case MRC_RX_CONSUMED:
		if (data)
			mrc_rx_count_consumed(ms, mn, &before);
		if (fresh)
			mrc_rx_unfresh(ms, pkt->meth.msn);
		else
			mrc_rx_unhold(ms, pkt->meth.msn, extra);
		break;
	default:
		mrc_net_count(mn, v == MRC_E_STALE ? MRC_CNT_RX_STALE :
			      v == MRC_E_PROTO ? MRC_CNT_RX_PROTO :
			      MRC_CNT_RX_NOT_READY);
		if (fresh)
			mrc_rx_unfresh(ms, pkt->meth.msn);
		else
			mrc_rx_unhold(ms, pkt->meth.msn, extra);
		break;
	}
}
