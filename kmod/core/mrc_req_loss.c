// SPDX-License-Identifier: GPL-2.0 OR MIT
/*
 * mrc_req_loss.c - the requester finds losses before their timeout.
 *
 * A sprayed connection cannot count duplicate acknowledgments: packets
 * take paths of different delays and arrive in any order, so "three later
 * PSNs were acknowledged" says nothing. Send times and paths can (RACK,
 * RFC 8985, with the SACK bitmap as the delivery record). Without this,
 * every loss waited for the retransmit timeout, whose floor (cfg.rto_exp)
 * is many RTTs, and held the receive window meanwhile: at 0.1 % loss the
 * window stalls behind one hole after another.
 *
 * State: @rack_tx_ns (struct mrc_req), the send time of the most recently
 * sent packet known delivered, and @rack_rtt_ns, its RTT; per EV,
 * @delivered_tx_ns (struct mrc_ev_entry), the same for the packets of that
 * EV. After every SACK, and when @rack_deadline (the earliest pending
 * verdict) passes, each packet in flight sent before @rack_tx_ns is lost
 *
 *   same path: a packet sent after it on its EV was delivered (one path
 *              is one FIFO), at tx_ns + rack_rtt + reo_wnd;
 *   any path:  else at tx_ns + srtt + 4 rttvar + reo_wnd: it is late
 *              by more than the RTT spread the estimator has seen, while
 *              the connection still delivers (the RTO without its floor).
 *
 * The first rule is the fast one and does not depend on how much the
 * paths' delays differ (queues of several RTTs on some paths do not make
 * it fire while each path delivers in order); the second finds a dead
 * path, whose packets never have a delivered successor on it. reo_wnd,
 * which covers SACKs reordered on their own way back, is reo_wnd_pm /
 * 1000 x @reo_mult x the larger of the min RTT and the queueing delay
 * (srtt - min RTT), at most the base RTO. Sprayed paths differ by their
 * queues: where queues hold many base RTTs (the VM rig's drop-tail
 * planes: base 150 us, srtt 5-17 ms), a window of a quarter of the base
 * made both rules misfire when the queues moved (a plane failing: 68-472
 * inferences per run proven wrong, 20-93 % of them; with the queueing
 * delay as the unit, 16-70). A loss inferred wrongly (the packet is
 * acknowledged after all, the test of req_check_spurious() in mrc_req_ack.c)
 * raises @reo_mult by one, up to MRC_REO_MULT_MAX; MRC_REO_DECAY
 * inferences in a row that were not disproved lower it by one.
 *
 * A lost packet is retransmitted on a fresh EV; its EV is ASSUMED_BAD as
 * after a timeout when it is the EV's second loss within
 * MRC_LOSS_REPEAT_RTTS smoothed RTTs (mrc_ev_on_loss(): one loss is
 * random, a dead path loses everything) and the window loses the
 * packet's bytes (mrc_cc_on_loss()), unless its path is retired
 * (MRC_FO_BLAME_PATH, loss_blame(): the path failed, and the cuts of its
 * recent losses come back). No retry budget is
 * spent: a later packet got through, the connection makes progress.
 * What is still in flight on a path once it is retired as dead goes again
 * at once (MRC_FO_RESEND, mrc_loss_after_verdicts()).
 *
 * Tail-loss probe: a loss among the last packets of a burst has no later
 * delivery to reveal it. When nothing has been acknowledged for a probe
 * timeout (PTO = 2 srtt + sack_delay_ns) since the last new packet or
 * acknowledgment, the newest packet in flight is sent again on a fresh EV
 * (cause MRC_RTX_TLP: no EV verdict, no window cut, no budget), once until
 * the next acknowledgment. Its SACK either acknowledges the tail or, as a
 * delivery sent after the others, lets the rule above find their losses.
 */
#include "mrc_core.h"

/* Widest reordering window, in multiples of the configured one. */
#define MRC_REO_MULT_MAX	16
/* Correct inferences after which the window narrows one step. */
#define MRC_REO_DECAY		16
/* Two losses on one EV within this many smoothed RTTs: the path is bad. */
#define MRC_LOSS_REPEAT_RTTS	4

/* The reordering window now (its unit: the base or the queueing delay). */
static u64 loss_reo_wnd(const struct mrc_conn *c)
{
	const struct mrc_req *r = &c->req;
	u64 unit = r->min_rtt_ns ? r->min_rtt_ns : r->rack_rtt_ns;
	u64 w, cap = mrc_req_rto(c);

	if (r->min_rtt_ns && r->srtt_ns > 2 * r->min_rtt_ns)
		unit = r->srtt_ns - r->min_rtt_ns;
	w = mrc_div64(unit * c->cfg.reo_wnd_pm, 1000) * r->reo_mult;

	return w < cap ? w : cap;
}

/**
 * mrc_loss_note_delivered() - a packet in flight was acknowledged.
 * @c: connection
 * @now: current time
 * @p: the packet, SENT or LOST, before its state changes
 *
 * Moves the delivery frontier (@rack_tx_ns) to its send time if later.
 * A retransmitted packet acknowledged sooner than the minimum RTT after
 * its last transmission was delivered by an earlier copy: its send time is
 * unknown, it moves nothing.
 */
void mrc_loss_note_delivered(struct mrc_conn *c, u64 now,
			     const struct mrc_tx_pkt *p)
{
	struct mrc_req *r = &c->req;
	struct mrc_ev_entry *e = &c->evm.ev[p->ev_idx];

	if (now < p->tx_ns)
		return;
	if (p->tries > 1 && now - p->tx_ns < r->min_rtt_ns)
		return;
	mrc_ev_path_delivered(&c->evm, p->ev_idx, p->tx_ns);
	if (!c->cfg.reo_wnd_pm)
		return;
	if (p->tx_ns > e->delivered_tx_ns)
		e->delivered_tx_ns = p->tx_ns;
	if (p->tx_ns <= r->rack_tx_ns)
		return;
	r->rack_tx_ns = p->tx_ns;
	r->rack_rtt_ns = now - p->tx_ns;
}

/**
 * mrc_loss_silence_window() - how close two losses of one EV (or two
 * silent EVs of one path) must be to count as one failure.
 * @c: connection
 *
 * Return: MRC_LOSS_REPEAT_RTTS smoothed RTTs (the minimum RTT before a
 * sample).
 */
u64 mrc_loss_silence_window(const struct mrc_conn *c)
{
	const struct mrc_req *r = &c->req;

	return MRC_LOSS_REPEAT_RTTS * (r->srtt_ns ? r->srtt_ns : r->min_rtt_ns);
}

/*
 * The window pays for @p's loss unless a path failure explains it
 * (MRC_FO_BLAME_PATH): the packet's path is retired, dead or gray (two of
 * its EVs fell silent while other paths delivered, or it loses packets at
 * several times the connection's rate). One EV's losses are no such proof:
 * a queue that overflows drops the tail of a flowcell, several packets of
 * one EV, and that is congestion. The cuts of a path's recent losses are
 * kept (@cut_bytes) and given back when it is retired
 * (mrc_loss_after_verdicts()).
 */
static void loss_blame(struct mrc_conn *c, u64 now, struct mrc_tx_pkt *p,
		       u64 window)
{
	struct mrc_ev_path *path = mrc_ev_path_of(&c->evm, p->ev_idx);

	if ((c->cfg.failover & MRC_FO_BLAME_PATH) && path && path->retired) {
		c->st.cwnd_cuts_spared++;
		return;
	}
	mrc_cc_on_loss(&c->cc, now, p->len);
	if (!path)
		return;
	if (now - path->cut_ns > window)
		path->cut_bytes = 0;
	path->cut_ns = now;
	if (path->cut_bytes < 0x7fffffff - p->len)
		path->cut_bytes += p->len;
}

/* @psn is lost: packets sent after it were delivered, long enough ago. */
static void loss_infer(struct mrc_conn *c, u64 now, u32 psn,
		       struct mrc_tx_pkt *p)
{
	struct mrc_req *r = &c->req;
	u64 window = mrc_loss_silence_window(c);

	c->st.lost_inferred++;
	mrc_req_note_lost_tx(p, now - p->tx_ns, MRC_RTX_INFERRED);
	p->to_sampled = mrc_ev_on_loss(&c->evm, now, p->ev_idx, p->tx_ns,
				       window);
	loss_blame(c, now, p, window);
	mrc_req_mark_lost(c, psn, MRC_RTX_INFERRED);
	if (r->reo_mult > 1 && !--r->reo_decay_left) {
		r->reo_mult--;
		r->reo_decay_left = MRC_REO_DECAY;
	}
}

/**
 * mrc_loss_detect() - declare the packets whose reordering window ended.
 * @c: connection
 * @now: current time
 *
 * Scans from snd_una and stops at the first packet first sent at or after
 * the delivery frontier (every later PSN was first sent later still).
 * Re-arms @rack_deadline at the earliest window still open.
 */
void mrc_loss_detect(struct mrc_conn *c, u64 now)
{
	struct mrc_req *r = &c->req;
	u64 next = MRC_NO_DEADLINE, reo, late, due;
	struct mrc_tx_pkt *p;
	u32 psn;

	if (!c->cfg.reo_wnd_pm || !r->rack_tx_ns) {
		r->rack_deadline = MRC_NO_DEADLINE;
		return;
	}
	reo = loss_reo_wnd(c);
	/* The RTO's adaptive part, without its configured floor. */
	late = r->srtt_ns + 4 * r->rttvar_ns;
	if (late < r->rack_rtt_ns)
		late = r->rack_rtt_ns;
	for (psn = r->snd_una; psn != r->snd_nxt; psn = mrc_psn_add(psn, 1)) {
		p = mrc_txp(r, psn);
		if (p->tx_ns >= r->rack_tx_ns) {
			if (p->tries <= 1)
				break;
			continue;
		}
		/* Held by a resource NACK: not in the network. */
		if (p->state != MRC_TXP_SENT || p->nack_wait)
			continue;
		if (c->evm.ev[p->ev_idx].delivered_tx_ns > p->tx_ns)
			due = p->tx_ns + r->rack_rtt_ns + reo;
		else
			due = p->tx_ns + late + reo;
		if (due > now) {
			if (due < next)
				next = due;
			continue;
		}
		loss_infer(c, now, psn, p);
	}
	r->rack_deadline = next;
	mrc_loss_after_verdicts(c, now);
}

/**
 * mrc_loss_after_verdicts() - act on the paths retired as dead since the
 * last call.
 * @c: connection
 * @now: current time
 *
 * Runs after every pass that may condemn (loss detection, the timer) and
 * does something only when a path was retired (@dead_pending). The
 * window cuts of the path's recent losses come back, and the last timeout
 * cut if a timeout of that path alone took it (MRC_FO_BLAME_PATH: they
 * were a failure, not congestion). The packets still in flight on
 * the path were sent into the same failure: waiting for each one's verdict
 * costs a reordering window or an RTO apiece while the receiver's window
 * holds behind them, so they are lost now (MRC_FO_RESEND; cause
 * MRC_RTX_PATH: no verdict of their own, no window cut, no retry budget)
 * and go again on live EVs. A late acknowledgment of one of them revives
 * its path if it was sent after the path's first loss (req_late_ack()).
 */
void mrc_loss_after_verdicts(struct mrc_conn *c, u64 now)
{
	struct mrc_ev_mgr *m = &c->evm;
	struct mrc_req *r = &c->req;
	struct mrc_tx_pkt *p;
	u32 psn, i;

	if (!m->dead_pending)
		return;
	m->dead_pending = 0;
	for (i = 0; i < m->n_path; i++) {
		struct mrc_ev_path *pa = &m->path[i];

		if (pa->retired != MRC_EVC_PATH)
			continue;
		if (c->cfg.failover & MRC_FO_BLAME_PATH) {
			if (pa->cut_bytes)
				mrc_cc_refund(&c->cc, pa->cut_bytes);
			if (pa->to_cut_ns &&
			    now - pa->to_cut_ns <= mrc_loss_silence_window(c) +
						   mrc_req_rto(c))
				mrc_cc_undo_timeout(&c->cc);
		}
		pa->cut_bytes = 0;
		pa->to_cut_ns = 0;
	}
	if (!(c->cfg.failover & MRC_FO_RESEND))
		return;
	for (psn = r->snd_una; psn != r->snd_nxt; psn = mrc_psn_add(psn, 1)) {
		p = mrc_txp(r, psn);
		if (p->state != MRC_TXP_SENT || p->nack_wait ||
		    mrc_ev_path_verdict(m, p->ev_idx) != MRC_EVC_PATH)
			continue;
		mrc_req_note_lost_tx(p, now - p->tx_ns, MRC_RTX_PATH);
		mrc_req_mark_lost(c, psn, MRC_RTX_PATH);
	}
}

/**
 * mrc_loss_on_spurious() - an inferred loss was acknowledged after all.
 * @c: connection
 *
 * The paths reorder more than the window allowed: widen it.
 */
void mrc_loss_on_spurious(struct mrc_conn *c)
{
	struct mrc_req *r = &c->req;

	c->st.spurious_losses++;
	if (r->reo_mult < MRC_REO_MULT_MAX)
		r->reo_mult++;
	r->reo_decay_left = MRC_REO_DECAY;
}

/* Probe timeout: two smoothed RTTs and the receiver's SACK delay. */
static u64 loss_pto(const struct mrc_conn *c)
{
	return 2 * c->req.srtt_ns + c->cfg.sack_delay_ns;
}

/* A tail-loss probe may be armed: enabled, none out, data in the network. */
static bool loss_tlp_armed(const struct mrc_conn *c)
{
	const struct mrc_req *r = &c->req;

	return c->cfg.tlp && !r->tlp_out && !r->rnr && r->srtt_ns &&
	       r->inflight_pkts > r->nack_waiting;
}

/**
 * mrc_loss_tlp_arm() - restart the probe timeout (new packet or ack).
 * @c: connection
 * @now: current time
 */
void mrc_loss_tlp_arm(struct mrc_conn *c, u64 now)
{
	c->req.tlp_base_ns = now;
}

/**
 * mrc_loss_tlp_fire() - send the tail-loss probe if it is due.
 * @c: connection
 * @now: current time
 *
 * The newest SENT packet (not held by a resource NACK) is queued for
 * retransmission with cause MRC_RTX_TLP.
 */
void mrc_loss_tlp_fire(struct mrc_conn *c, u64 now)
{
	struct mrc_req *r = &c->req;
	const struct mrc_tx_pkt *p;
	u32 psn;

	if (!loss_tlp_armed(c) || now < r->tlp_base_ns + loss_pto(c))
		return;
	r->tlp_out = 1;
	psn = r->snd_nxt;
	while (psn != r->snd_una) {
		psn = mrc_psn_add(psn, MRC_PSN_MASK);	/* psn - 1 */
		p = mrc_txp(r, psn);
		if (p->state == MRC_TXP_SENT && !p->nack_wait) {
			mrc_req_mark_lost(c, psn, MRC_RTX_TLP);
			return;
		}
	}
}

/**
 * mrc_loss_deadline() - when loss detection wants the timer.
 * @c: connection
 *
 * Return: the earliest of the open reordering windows and the probe
 * timeout, or MRC_NO_DEADLINE.
 */
u64 mrc_loss_deadline(const struct mrc_conn *c)
{
	const struct mrc_req *r = &c->req;
	u64 d = r->rack_deadline, t;

	if (loss_tlp_armed(c)) {
		t = r->tlp_base_ns + loss_pto(c);
		if (t < d)
			d = t;
	}
	return d;
}
