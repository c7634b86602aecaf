// SPDX-License-Identifier: GPL-2.0 OR MIT
/*
 * mrc_req_ack.c - the requester hears back: SACK and NACK in.
 *
 * mrc_req.c sends (messages cut into packets, retransmissions, probes) and
 * keeps the deadlines; this file takes what the responder says of them:
 *
 *   - RTT samples (the echoed timestamps) for the RTO estimator, per
 *     connection and per EV;
 *   - acknowledgments, cumulative and selective, that free the ring's
 *     slots, complete messages and feed congestion control, the EVs'
 *     verdicts and the loss detector (mrc_req_loss.c);
 *   - the proofs that a loss verdict was wrong: an acknowledgment of the
 *     original transmission of a packet retransmitted or about to be
 *     (req_check_spurious(), req_late_ack());
 *   - NACKs: a trimmed or dropped packet is lost at once; a resource NACK
 *     holds the packet and enters receiver-not-ready mode (the probe and
 *     its backoff: mrc_req.c's header, req_rnr_next() here).
 *
 * Every function runs under the connection's lock (the host's; the engine
 * has none of its own), like the rest of the engine.
 */
#include "mrc_core.h"

/*
 * RTT estimator for the RTO: srtt is the usual 1/8 EWMA; the variance term
 * follows the largest mean deviation seen within the last smoothed RTT at
 * once and falls back towards it only once per smoothed RTT. A per-sample
 * decay (RFC 6298) forgets a delay spike within a few SACKs when dozens
 * arrive per RTT, and the next spike then fires a burst of spurious
 * timeouts; software hosts (and a TCG guest above all) see such spikes.
 */
static void req_rtt_update(struct mrc_req *r, u64 now, u64 rtt)
{
	u64 delta;

	if (!r->srtt_ns) {
		r->srtt_ns = rtt;
		r->mdev_ns = rtt / 2;
		r->mdev_max_ns = r->mdev_ns;
		r->rttvar_ns = r->mdev_ns;
		r->var_period_ns = now + rtt;
		return;
	}
	delta = r->srtt_ns > rtt ? r->srtt_ns - rtt : rtt - r->srtt_ns;
	r->mdev_ns = (3 * r->mdev_ns + delta) / 4;
	r->srtt_ns = (7 * r->srtt_ns + rtt) / 8;
	if (r->mdev_ns > r->mdev_max_ns)
		r->mdev_max_ns = r->mdev_ns;
	if (r->mdev_max_ns > r->rttvar_ns)
		r->rttvar_ns = r->mdev_max_ns;
	if (now >= r->var_period_ns) {
		if (r->mdev_max_ns < r->rttvar_ns)
			r->rttvar_ns -= (r->rttvar_ns - r->mdev_max_ns) / 4;
		r->mdev_max_ns = 0;
		r->var_period_ns = now + r->srtt_ns;
	}
}

static void req_rtt_sample(struct mrc_conn *c, u64 now, u64 rtt, u32 ev,
			   u32 psn)
{
	struct mrc_req *r = &c->req;
	struct mrc_event e;

	req_rtt_update(r, now, rtt);
	if (!r->srtt_ns)
		r->srtt_ns = 1;
	if (!r->min_rtt_ns || rtt < r->min_rtt_ns)
		r->min_rtt_ns = rtt;
	mrc_memset(&e, 0, sizeof(e));
	e.type = MRC_EVT_RTT_SAMPLE;
	e.time_ns = now;
	e.u.rtt.rtt_ns = rtt;
	e.u.rtt.srtt_ns = r->srtt_ns;
	e.u.rtt.ev = ev;
	e.u.rtt.psn = psn;
	e.u.rtt.cwnd = c->cc.cwnd;
	e.u.rtt.inflight = r->inflight_bytes;
	mrc_evq_push(&c->evq, &e);
}

/* RTT of the SACK's trigger packet: Karn's rule, or an exact TSETH match. */
static u64 req_sack_rtt(struct mrc_conn *c, u64 now, const struct mrc_sack *s,
			u32 *ev_out, u32 *psn_out)
{
	struct mrc_req *r = &c->req;
	struct mrc_tx_pkt *p;
	u32 psn;

	if (s->pr)
		return 0;
	psn = mrc_sack_trigger_psn(s);
	if (!mrc_req_in_flight(r, psn))
		return 0;
	p = mrc_txp(r, psn);
	if (p->state == MRC_TXP_FREE || p->state == MRC_TXP_LOST || p->sampled ||
	    now < p->tx_ns)
		return 0;
	if (p->tries > 1 && !(c->cfg.use_tseth && p->tx_ts == s->cc.echoed_ts))
		return 0;
	p->sampled = 1;
	*ev_out = c->evm.ev[p->ev_idx].value;
	*psn_out = psn;
	return now - p->tx_ns ? now - p->tx_ns : 1;
}

/**
 * mrc_req_note_lost_tx() - remember the transmission being declared lost.
 * @p: a SENT packet, about to be marked lost
 * @waited_ns: how long after it was sent it was declared lost
 * @cause: MRC_RTX_TIMEOUT or MRC_RTX_INFERRED
 *
 * Kept until the PSN is acknowledged, so that an acknowledgment of this
 * very transmission proves the verdict spurious (req_check_spurious()).
 */
void mrc_req_note_lost_tx(struct mrc_tx_pkt *p, u64 waited_ns, u8 cause)
{
	p->to_tx_ns = p->tx_ns ? p->tx_ns : 1;
	p->to_rto_ns = waited_ns;
	p->to_tx_ts = p->tx_ts;
	p->to_ev_idx = p->ev_idx;
	p->to_cause = cause;
	p->to_sampled = 0;
}

/*
 * A transmission declared lost (@exact: the SACK that tells echoes its
 * timestamp) arrived after all. Count it, take its delay as an RTT sample
 * (exact when the SACK it triggered timed it, else the time it waited
 * before it was declared lost: a lower bound, as a late cumulative ack may
 * wait for a hole) and give its EV back. A timeout has its window cut
 * undone; an inferred loss widens the reordering window instead (its cut
 * was one packet's bytes).
 */
static void req_late_ack(struct mrc_conn *c, u64 now, u32 psn,
			 struct mrc_tx_pkt *p, bool exact)
{
	u64 rtt = now - p->to_tx_ns;

	if (!exact && rtt > p->to_rto_ns)
		rtt = p->to_rto_ns;
	if (p->to_cause == MRC_RTX_INFERRED) {
		mrc_loss_on_spurious(c);
	} else if (p->to_cause == MRC_RTX_TIMEOUT) {
		c->st.spurious_timeouts++;
		c->req.spurious_pass = 1;
	}
	/*
	 * A packet resent with its condemned EV (MRC_RTX_PATH) waited no
	 * timer of its own: how long it waited bounds nothing.
	 */
	if (exact || p->to_cause != MRC_RTX_PATH)
		req_rtt_sample(c, now, rtt, c->evm.ev[p->to_ev_idx].value, psn);
	if (p->to_sampled)
		mrc_ev_path_lost_undo(&c->evm, p->to_ev_idx);
	mrc_ev_on_late_ack(&c->evm, now, p->to_ev_idx, p->to_tx_ns);
	p->to_tx_ns = 0;
}

/*
 * A SACK with restore_cwnd answers a retransmission the receiver already
 * had, and names it as its trigger: if that PSN's retransmission was for a
 * timeout, the timeout was spurious, even though the PSN was acknowledged
 * (by the first copy) before anything could tell. Its slot is intact until
 * the ring reuses it, a full ring of PSNs later.
 */
static void req_dup_reported(struct mrc_conn *c, u64 now,
			     const struct mrc_sack *s)
{
	struct mrc_req *r = &c->req;
	u32 psn = mrc_sack_trigger_psn(s);
	s32 back = mrc_psn_diff(r->snd_nxt, psn);
	struct mrc_tx_pkt *p;

	if (back <= 0 || (u32)back > r->ring_mask)
		return;
	p = mrc_txp(r, psn);
	if (p->to_tx_ns && now >= p->to_tx_ns && p->tries > 1)
		req_late_ack(c, now, psn, p, false);
}

/*
 * Was the timeout this acknowledged PSN suffered spurious? Certainly if it
 * has not been sent again since (LOST, waiting for its retransmission, or
 * for another after the host's queue refused one: mrc_req_on_local_drop());
 * also if the SACK echoes the timestamp of the transmission that timed
 * out, or arrives sooner after the retransmission than any RTT seen (an
 * ack that early cannot be for the retransmission). Then the transmission
 * that timed out arrived: its delay is an RTT sample the estimator missed
 * (the RTO was too short for it), its EV is not dead, and the window cut
 * of that timeout pass is undone. (Eifel-style detection, RFC 3522, with
 * the TSETH timestamp in the role of the TCP timestamp option.)
 */
static void req_check_spurious(struct mrc_conn *c, u64 now, u32 psn,
			       struct mrc_tx_pkt *p, const struct mrc_sack *s)
{
	struct mrc_req *r = &c->req;
	bool exact, late;

	if (!p->to_tx_ns || now < p->to_tx_ns)
		return;
	exact = s && !s->pr && c->cfg.use_tseth &&
		mrc_sack_trigger_psn(s) == psn && p->tx_ts != p->to_tx_ts;
	if (exact)
		/* The echoed timestamp names the transmission acknowledged. */
		late = s->cc.echoed_ts == p->to_tx_ts;
	else
		late = (p->state == MRC_TXP_LOST &&
			(p->rtx_cause == p->to_cause ||
			 p->rtx_cause == MRC_RTX_LOCAL) &&
			(p->tx_ns ? p->tx_ns : 1) == p->to_tx_ns) ||
		       (r->min_rtt_ns && now >= p->tx_ns &&
			now - p->tx_ns < r->min_rtt_ns);
	if (late)
		req_late_ack(c, now, psn, p, exact);
	else if (exact)
		p->to_tx_ns = 0;	/* the retransmission was what arrived */
}

/* Acknowledge one PSN (cumulatively or selectively). Return bytes newly acked. */
static u32 req_ack_one(struct mrc_conn *c, u64 now, u32 psn, bool cumulative,
		       const struct mrc_sack *s)
{
	struct mrc_req *r = &c->req;
	struct mrc_tx_pkt *p = mrc_txp(r, psn);
	u32 bytes = 0;

	if (p->state == MRC_TXP_SENT || p->state == MRC_TXP_LOST) {
		mrc_loss_note_delivered(c, now, p);
		req_check_spurious(c, now, psn, p, s);
	}
	if (p->state == MRC_TXP_SENT) {
		r->inflight_bytes -= p->len;
		r->inflight_pkts--;
		mrc_ev_inflight_sub(&c->evm, p->ev_idx, p->len);
		mrc_req_clear_nack_wait(r, p);
		bytes = p->len ? p->len : 1;
	} else if (p->state == MRC_TXP_LOST) {
		bytes = p->len ? p->len : 1;
	}
	if (cumulative)
		p->state = MRC_TXP_FREE;
	else if (p->state != MRC_TXP_FREE)
		p->state = MRC_TXP_SACKED;
	return bytes;
}

static void req_update_wnd(struct mrc_conn *c, u8 mpr)
{
	u32 w = (u32)mpr * MRC_MPR_UNIT;

	if (!w)
		return;
	c->req.send_wnd = w < c->cfg.mpr ? w : c->cfg.mpr;
}

/*
 * The probe got in: its message now has a buffer at the receiver, so the
 * held packets of that message go at once. The receiver may still have no
 * room for the next message: the first held packet of the next one is the
 * next probe, sent at once (no delay: if the reader is back, the window
 * drains one message per round trip, at full rate for large messages),
 * and only its refusal waits, at the current back-off. With nothing held
 * any more, the mode ends and new data flows.
 */
static void req_rnr_next(struct mrc_conn *c)
{
	struct mrc_req *r = &c->req;
	u16 slot = r->rnr_probe_slot;
	struct mrc_tx_pkt *p;
	bool found = false;
	u32 psn;

	for (psn = r->snd_una; psn != r->snd_nxt && r->nack_waiting;
	     psn = mrc_psn_add(psn, 1)) {
		p = mrc_txp(r, psn);
		if (p->state != MRC_TXP_SENT || !p->nack_wait)
			continue;
		if (p->msg_slot == slot) {
			mrc_req_mark_lost(c, psn, MRC_RTX_NACK);
		} else if (!found) {
			found = true;
			r->rnr_probe_psn = psn;
			r->rnr_probe_slot = p->msg_slot;
		}
	}
	/*
	 * Progress restarts the back-off (RDMA's RNR timer is per NAK): the
	 * receiver took a message, so its reader is back or it still had
	 * room, and the messages that fit must not each wait up to a
	 * second; a reader still asleep refuses the next probe at once and
	 * the delay grows from the base again.
	 */
	r->rnr_backoff = 0;
	if (!found) {
		r->rnr = 0;
		return;
	}
	c->st.rnr_probes++;
	mrc_req_mark_lost(c, r->rnr_probe_psn, MRC_RTX_NACK);
}

/* A refused packet that stops being the probe waits for req_rnr_next(). */
static void req_rnr_hold(struct mrc_req *r, u32 psn)
{
	struct mrc_tx_pkt *p = mrc_txp(r, psn);

	if (mrc_req_in_flight(r, psn) && p->state == MRC_TXP_SENT && p->nack_wait)
		p->deadline_ns = MRC_NO_DEADLINE;
}

/* After a SACK: did the probe get in? */
static void req_rnr_check(struct mrc_conn *c)
{
	struct mrc_req *r = &c->req;
	const struct mrc_tx_pkt *p;

	if (!r->rnr)
		return;
	p = mrc_txp(r, r->rnr_probe_psn);
	if (mrc_req_in_flight(r, r->rnr_probe_psn) &&
	    (p->state == MRC_TXP_SENT || p->state == MRC_TXP_LOST))
		return;	/* the probe is not acknowledged yet */
	req_rnr_next(c);
}

/*
 * Bytes the receiver got since the newest SACK before this one, from its
 * 24-bit rcvd_bytes counter (units of MRC_CC_BYTES_UNIT, wraps): a SACK
 * that was lost does not lose the bytes it reported. An older SACK
 * overtaken by a newer one (the counter went back) reports nothing.
 */
static u32 req_peer_rcvd(struct mrc_req *r, u32 units)
{
	u32 d = (units - r->peer_rcvd) & 0xffffff;

	if (!r->peer_rcvd_seen) {
		r->peer_rcvd_seen = 1;
		r->peer_rcvd = units;
		return 0;
	}
	if (d >= 0x800000)
		return 0;
	r->peer_rcvd = units;
	return d * MRC_CC_BYTES_UNIT;
}

/**
 * mrc_req_on_sack() - process a SACK.
 * @c: connection
 * @now: current time
 * @s: decoded SACK
 *
 * Cumulative ack, then the bitmap (base cack + sack_offset), then the EV
 * feedback (ECN summary -> SKIP, pr=1 -> probe answered), the RTT sample
 * and the congestion control. Any newly acknowledged PSN refills the
 * retry budget.
 *
 * Return: MRC_OK, MRC_E_STALE (other connection) or MRC_E_PROTO (acks
 * PSNs never sent).
 */
int mrc_req_on_sack(struct mrc_conn *c, u64 now, const struct mrc_sack *s)
{
	struct mrc_req *r = &c->req;
	struct mrc_cc_ack a;
	u32 acked = 0, ev_val = 0, spsn = 0, psn, base, cack;
	struct mrc_event e;
	s32 adv;
	u64 rtt;
	int idx, i;

	if (s->dst_conn != c->cfg.local_conn_id) {
		c->st.rx_stale++;
		return MRC_E_STALE;
	}
	cack = s->cack_psn & MRC_PSN_MASK;
	adv = mrc_psn_diff(mrc_psn_add(cack, 1), r->snd_una);
	if (adv > mrc_psn_diff(r->snd_nxt, r->snd_una)) {
		c->st.rx_proto_err++;
		return MRC_E_PROTO;
	}
	c->st.rx_sacks++;
	r->heard_ns = now;
	rtt = req_sack_rtt(c, now, s, &ev_val, &spsn);
	r->spurious_pass = 0;
	if (s->cc.restore_cwnd && !s->pr)
		req_dup_reported(c, now, s);
	for (; adv > 0; adv--) {
		acked += req_ack_one(c, now, r->snd_una, true, s);
		r->snd_una = mrc_psn_add(r->snd_una, 1);
	}
	base = mrc_sack_bitmap_base(s);
	for (i = 0; i < MRC_SACK_BITS; i++) {
		if (!((s->bitmap >> i) & 1))
			continue;
		psn = mrc_psn_add(base, (u32)i);
		if (mrc_req_in_flight(r, psn))
			acked += req_ack_one(c, now, psn, false, s);
	}
	req_update_wnd(c, s->mpr);
	if (acked) {
		r->retry_left = c->cfg.retry_budget;
		r->progress_ns = now;
		r->tlp_out = 0;
		mrc_loss_tlp_arm(c, now);
	}
	req_rnr_check(c);
	idx = mrc_ev_find(&c->evm, s->ev);
	if (idx < 0) {
		c->st.rx_stale++;
	} else if (s->pr) {
		if (idx == (u16)s->ack_psn_off) {
			mrc_memset(&e, 0, sizeof(e));
			e.type = MRC_EVT_PROBE_ANSWERED;
			e.time_ns = now;
			e.u.probe.ev = s->ev;
			e.u.probe.probe_id = (u16)idx;
			e.u.probe.rtt_ns = mrc_ev_probe_answered(&c->evm, now, idx);
			mrc_evq_push(&c->evq, &e);
			/* The answer's M still judges the probed path. */
			if (s->ecn != MRC_ECN_NONE)
				mrc_ev_on_sack(&c->evm, now, idx, s->ecn);
		} else {
			c->st.rx_stale++;
		}
	} else {
		mrc_ev_on_sack(&c->evm, now, idx, s->ecn);
	}
	if (rtt)
		req_rtt_sample(c, now, rtt, ev_val, spsn);
	/* With this SACK's deliveries and RTT sample: what is lost now? */
	mrc_loss_detect(c, now);
	mrc_memset(&a, 0, sizeof(a));
	a.now = now;
	a.acked_bytes = acked;
	a.rtt_ns = rtt;
	a.ecn = s->pr ? MRC_ECN_NONE : s->ecn;
	a.rwnd_penalty = s->cc.rwnd_penalty;
	a.restore = s->cc.restore_cwnd || r->spurious_pass;
	a.srtt_ns = r->srtt_ns;
	a.inflight = r->inflight_bytes;
	if (!s->pr)
		a.rcvd_bytes = req_peer_rcvd(r, s->cc.bytes_rcvd);
	mrc_cc_on_ack(&c->cc, &a);
	return MRC_OK;
}

/**
 * mrc_req_on_nack() - process a NACK.
 * @c: connection
 * @now: current time
 * @n: decoded NACK
 *
 * TRIMMED / TRIMMED_LASTHOP: fast retransmit (no timeout) on a fresh EV;
 * only TRIMMED penalises the EV. NO_BITMAP / NO_PKT_BUFFER / NO_RESOURCE /
 * PSN_OOR_WINDOW: the receiver is short of resources: retransmit after one
 * base RTO, no EV penalty, no retry budget. UNEXP_EVENT: connection error,
 * only from the peer's connection id and for a packet in flight (else
 * stale: a forged one cannot fail the connection). The packet is only
 * acted on if the NACK names its latest transmission
 * (same EV) and it is still SENT.
 *
 * Return: MRC_OK, MRC_E_STALE or MRC_E_CONN.
 */
int mrc_req_on_nack(struct mrc_conn *c, u64 now, const struct mrc_nack *n)
{
	struct mrc_req *r = &c->req;
	struct mrc_tx_pkt *p = NULL;
	u32 psn = n->nack_psn & MRC_PSN_MASK;
	int idx;

	if (n->dst_conn != c->cfg.local_conn_id) {
		c->st.rx_stale++;
		return MRC_E_STALE;
	}
	c->st.rx_nacks++;
	r->heard_ns = now;
	if (n->reason == MRC_NACK_UNEXP_EVENT) {
		/*
		 * Fatal, so a blind attacker must not be able to forge it with
		 * the QPN and our connection id alone: the peer's id must match
		 * too, and the NACK must name a packet still in flight (a
		 * receiver rejects a violating packet without acknowledging
		 * it, so a genuine one always does).
		 */
		if (n->src_conn != c->cfg.peer_conn_id ||
		    !mrc_req_in_flight(r, psn) ||
		    mrc_txp(r, psn)->state != MRC_TXP_SENT) {
			c->st.rx_stale++;
			return MRC_E_STALE;
		}
		mrc_conn_fail(c, MRC_CONN_ERR_PEER);
		return MRC_E_CONN;
	}
	idx = mrc_ev_find(&c->evm, n->ev);
	if (idx >= 0)
		mrc_ev_on_nack(&c->evm, now, idx, n->reason);
	if (mrc_req_in_flight(r, psn))
		p = mrc_txp(r, psn);
	if (!p || p->state != MRC_TXP_SENT || idx != p->ev_idx || p->nack_wait) {
		c->st.rx_stale++;
		return MRC_E_STALE;
	}
	switch (n->reason) {
	case MRC_NACK_TRIMMED:
	case MRC_NACK_TRIMMED_LASTHOP:
		mrc_cc_on_nack(&c->cc, now, n->reason, p->len);
		mrc_req_mark_lost(c, psn, MRC_RTX_NACK);
		return MRC_OK;
	case MRC_NACK_NO_BITMAP:
	case MRC_NACK_NO_PKT_BUFFER:
	case MRC_NACK_NO_RESOURCE:
	case MRC_NACK_PSN_OOR_WINDOW:
		mrc_cc_on_nack(&c->cc, now, n->reason, p->len);
		p->nack_wait = 1;
		r->nack_waiting++;
		if (!r->rnr) {
			/* The first refused packet is the probe. */
			r->rnr = 1;
			r->rnr_backoff = 0;
			r->rnr_probe_psn = psn;
			r->rnr_probe_slot = p->msg_slot;
			c->st.rnr_episodes++;
		} else if (psn == r->rnr_probe_psn) {
			/* The probe was refused again: wait twice as long. */
			if (r->rnr_backoff < c->cfg.rto_max_backoff)
				r->rnr_backoff++;
		} else if (mrc_psn_before(psn, r->rnr_probe_psn)) {
			/*
			 * NACKs travel different paths and arrive out of
			 * order, but the receiver admits messages in MSN
			 * order: the oldest refused packet must be the probe,
			 * or a probe of a later message is refused forever
			 * while the earlier one is held.
			 */
			req_rnr_hold(r, r->rnr_probe_psn);
			r->rnr_probe_psn = psn;
			r->rnr_probe_slot = p->msg_slot;
		} else {
			/* Held until the probe gets in (req_rnr_next()). */
			p->deadline_ns = MRC_NO_DEADLINE;
			return MRC_OK;
		}
		p->deadline_ns = now + (c->rto_base_ns << r->rnr_backoff);
		if (p->deadline_ns < r->rto_deadline)
			r->rto_deadline = p->deadline_ns;
		return MRC_OK;
	default:
		c->st.rx_stale++;
		return MRC_E_STALE;
	}
}
