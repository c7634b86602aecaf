// SPDX-License-Identifier: GPL-2.0
/*
 * mrc_port_status.c - MRC 1.0's port-status update, both ways.
 *
 * When our NIC port of a plane goes down or up (mrc_conn_plane_state(),
 * mrc_path.c, on a plane event of the configuration notifier chain), every
 * established connection using the plane announces our ports' state to
 * its peer (ERTH PORT_STATUS_UPDATE, bit n = our port of plane n up), so
 * that the peer stops sending into the dead port at once instead of
 * finding out by timeouts. The peer answers (EETH, timestamp
 * echoed); until it does, the update is sent again, doubling its deadline,
 * a bounded number of times. In the other direction, a peer's update
 * takes the planes it names down out of use for that one connection (and
 * back) and is answered.
 *
 * Every update and answer names its connection by the token in BTH.PSN,
 * as every endpoint packet of ours does: one that matches no connection
 * of its source is counted and changes nothing.
 *
 * Locking: each function below runs with the named connection's lock held
 * (ms->lock), taken by its caller: the plane notifier (the configuration
 * chain's consumer in mrc_path.c), the connection's timer, or the receive
 * softirq through mrc_lookup_for_peer().
 */
#include <linux/skbuff.h>

#include "mrc_impl.h"
#include "mrc_conn_k.h"
#include "mrc_lookup.h"
#include "mrc_net.h"
#include "mrc_output.h"
#include "mrc_path.h"
#include "mrc_port_status.h"
#include "mrc_sock.h"

/*
 * Unanswered updates: resent after 4 ms, doubling, 7 sends in all (the last
 * at 252 ms, given up at 508 ms). The first resend must come well before
 * the engine's first timeouts (the RTO floor, 16.8 ms: MRC_K_RTO_EXP), or
 * the EVs with packets in flight on the dead plane time out one by one
 * while the lost announcement waits, which is what announcing avoids (with
 * 20 ms, 10 of 32 EVs once did). A needless resend costs one small packet
 * and an idempotent answer.
 */
#define MRC_K_PS_RTO_NS		(4 * NSEC_PER_MSEC)
#define MRC_K_PS_TRIES		7

/*
 * One port-status update (ERTH PORT_STATUS_UPDATE) with our ports' state
 * now; the retransmission deadline doubles with each send. Connection
 * lock held.
 */
static bool mrc_ps_xmit(struct mrc_sock *ms, u64 now, struct sk_buff_head *q)
{
	struct mrc_pkt pkt;
	struct sk_buff *skb;
	u32 i, mask = 0;

	for (i = 0; i < ms->mp->nplanes; i++)
		if (READ_ONCE(ms->mp->plane[i].up) && ms->mp->plane[i].id < 32)
			mask |= BIT(ms->mp->plane[i].id);
	mrc_pkt_init(&pkt, MRC_OP_EP_REQ, MRC_QPN_EP);
	pkt.ep.kind = MRC_EP_PORT_STATUS;
	pkt.ep.token = ms->token;
	pkt.ep.port_mask = mask;
	pkt.ep.tx_ts = (u16)(now / MRC_TS_UNIT_NS);
	pkt.ep.ftype = MRC_TS_FTYPE;
	ms->ps_tx_ts = pkt.ep.tx_ts;
	ms->ps_deadline = now + (MRC_K_PS_RTO_NS << ms->ps_tries);
	ms->ps_tries++;
	skb = mrc_build_pkt(ms, &pkt, mrc_ep_udp_sport(pkt.ep.token), NULL, 0);
	if (!skb)
		return false;
	__skb_queue_tail(q, skb);
	return true;
}

/**
 * mrc_conn_send_port_status() - queue a port-status update to the peer;
 * connection lock held
 * @ms: an established connection on a configured route
 * @q: where the skb goes (sent by the caller after unlocking)
 *
 * MRC 1.0's ERTH PORT_STATUS_UPDATE: bit n of the mask set when our port
 * of plane n is up. Plane ids are the namespace's (mrcctl plane add id N):
 * a multi-plane fabric numbers its planes alike on every host, so the peer
 * reads bit n as its own plane n. It leaves on the first plane that is up.
 * BTH.PSN carries the connection's token (as on every endpoint packet of
 * ours): the peer applies the update to that connection only.
 *
 * The peer answers with an EETH echoing the update's timestamp; until it
 * does, the update (with the ports' state at that time) is sent again
 * after MRC_K_PS_RTO_NS, doubling, MRC_K_PS_TRIES times in all: one lost
 * announcement no longer leaves the peer to find the dead plane by
 * timeouts. A newer change restarts the count.
 */
void mrc_conn_send_port_status(struct mrc_sock *ms, struct sk_buff_head *q)
{
	lockdep_assert_held(&ms->lock);
	ms->ps_tries = 0;
	if (mrc_ps_xmit(ms, mrc_now(), q))
		mrc_net_count(mrc_net(sock_net(&ms->sk)), MRC_CNT_TX_PORT_STATUS);
}

/**
 * mrc_conn_port_status_due() - send an unanswered port-status update again
 * if its deadline passed; connection lock held (the connection's timer)
 * @ms: the connection
 * @now: mrc_now()
 * @q: where the skb goes
 */
void mrc_conn_port_status_due(struct mrc_sock *ms, u64 now,
			      struct sk_buff_head *q)
{
	lockdep_assert_held(&ms->lock);
	if (!ms->ps_tries || now < ms->ps_deadline)
		return;
	if (ms->ps_tries >= MRC_K_PS_TRIES) {
		/* The peer will learn from its timeouts, as without us. */
		ms->ps_tries = 0;
		return;
	}
	mrc_net_count(mrc_net(sock_net(&ms->sk)), MRC_CNT_PORT_STATUS_RTX);
	mrc_ps_xmit(ms, now, q);
}

/**
 * mrc_conn_port_status_answer() - queue the answer to a peer's port-status
 * update (EETH, its timestamp echoed); connection lock held
 * @ms: the connection the update named
 * @tx_ts: the update's timestamp
 * @q: where the skb goes
 */
static void mrc_conn_port_status_answer(struct mrc_sock *ms, u16 tx_ts,
					struct sk_buff_head *q)
{
	struct mrc_pkt pkt;
	struct sk_buff *skb;

	lockdep_assert_held(&ms->lock);
	mrc_pkt_init(&pkt, MRC_OP_EP_RESP, MRC_QPN_EP);
	pkt.ep.kind = MRC_EP_PORT_STATUS;
	pkt.ep.token = ms->token;
	pkt.ep.tx_ts = tx_ts;
	skb = mrc_build_pkt(ms, &pkt, mrc_ep_udp_sport(pkt.ep.token), NULL, 0);
	if (skb)
		__skb_queue_tail(q, skb);
}

/**
 * mrc_conn_port_status_acked() - the peer answered a port-status update;
 * connection lock held
 * @ms: the connection whose token the answer carries
 * @tx_ts: the timestamp it echoes
 *
 * Return: true if it answers the update we are retransmitting (which then
 * stops), false for an answer to an older one.
 */
static bool mrc_conn_port_status_acked(struct mrc_sock *ms, u16 tx_ts)
{
	lockdep_assert_held(&ms->lock);
	if (!ms->ps_tries || tx_ts != ms->ps_tx_ts)
		return false;
	ms->ps_tries = 0;
	return true;
}

/* A port-status update names its connection by the token in BTH.PSN. */
static bool mrc_peer_ports_one(struct mrc_sock *ms, void *arg,
			       struct sk_buff_head *q)
{
	const struct mrc_ep *ep = arg;
	u32 i, down;
	u64 now;

	if (ms->token != ep->token || ms->dead || !ms->conn ||
	    ms->state != MRC_ST_ESTABLISHED)
		return false;
	/* Answered even when nothing changes: the peer stops resending. */
	mrc_conn_port_status_answer(ms, ep->tx_ts, q);
	if (!ms->mp)
		return true;
	down = 0;
	for (i = 0; i < ms->mp->nplanes; i++)
		if (ms->mp->plane[i].id < 32 &&
		    !(ep->port_mask & BIT(ms->mp->plane[i].id)))
			down |= BIT(i);
	if (down != ms->peer_planes_down) {
		ms->peer_planes_down = down;
		now = mrc_now();
		for (i = 0; i < ms->mp->nplanes; i++)
			mrc_mp_plane_apply(ms, i, now);
		mrc_conn_drain(ms, now, q);
	}
	return true;
}

/* The answer to one of ours: it stops the retransmissions. */
static bool mrc_peer_ports_acked_one(struct mrc_sock *ms, void *arg,
				     struct sk_buff_head *q)
{
	const struct mrc_ep *ep = arg;

	if (ms->token != ep->token || ms->dead)
		return false;
	if (mrc_conn_port_status_acked(ms, ep->tx_ts))
		mrc_net_count(mrc_net(sock_net(&ms->sk)),
			      MRC_CNT_PORT_STATUS_ACKED);
	else
		mrc_net_count(mrc_net(sock_net(&ms->sk)), MRC_CNT_RX_STALE);
	return true;
}

/**
 * mrc_conn_peer_ports() - a peer announced the state of its NIC ports, or
 * answered our announcement
 * @net: namespace
 * @saddr: the peer's address (the inner source of the ERTH/EETH)
 * @ep: the endpoint header: kind MRC_EP_PORT_STATUS, the connection's
 *	token, port_mask (bit n set = its port of plane n is up, MRC 1.0
 *	PORT_STATUS_UPDATE) and the timestamp
 * @req: an update (ERTH); false: an answer (EETH)
 *
 * Softirq. An update applies to the one established connection to @saddr
 * whose token it carries: on a configured route, each of its planes whose
 * id is not in the mask is taken out of use at once (in-flight packets on
 * it are retransmitted elsewhere, no timeout is spent finding out), and
 * back when the bit returns. Plane ids of 32 and above cannot be announced
 * and are left alone. Our own port state is never overridden. The update
 * is answered (EETH, timestamp echoed). One that names no connection of
 * its source (an off-path guess needs the source address and the 16-bit
 * token) is counted as PortStatusUnmatched and changes nothing.
 */
void mrc_conn_peer_ports(struct net *net, const struct in6_addr *saddr,
			 const struct mrc_ep *ep, bool req)
{
	struct mrc_net *mn = mrc_net(net);
	u32 n;

	n = mrc_lookup_for_peer(net, saddr, req ? mrc_peer_ports_one :
				mrc_peer_ports_acked_one, (void *)ep);
	if (!n)
		mrc_net_count(mn, MRC_CNT_PORT_STATUS_UNMATCHED);
	else if (req)
		mrc_net_count(mn, MRC_CNT_RX_PORT_STATUS);
}
