// SPDX-License-Identifier: GPL-2.0 OR MIT
/*
 * mrc_resp.c - the responder: data in, SACK/NACK out, messages delivered.
 *
 * Receive window: PSNs cack+1 .. cack+MPR-1 ([cack+1, cack+MPR)). A bit per
 * PSN in a ring of MPR (rounded up to a power of two) bits records what
 * arrived beyond cack; cack advances over consecutive set bits, clearing
 * them. Per-message state (bytes received, length, immediate) lives in
 * rx_max_msgs slots indexed by MSN; a message is delivered when all its
 * bytes and its last packet arrived, strictly in MSN order.
 *
 * Acknowledgements: every accepted or duplicate packet records its 64-PSN
 * chunk in a short pending list (the EV and timestamp to echo, the ECN
 * summary). The list is flushed - one SACK per chunk - when a trigger
 * fires: ack-request bit, retransmission, CE mark, duplicate, every
 * sack_every_pkts packets or sack_every_bytes bytes, or sack_delay_ns
 * after the first unacknowledged arrival.
 */
#include "mrc_core.h"

static bool bm_test(const struct mrc_resp *s, u32 psn)
{
	u32 b = psn & s->win_mask;

	return (s->bitmap[b >> 6] >> (b & 63)) & 1;
}

static void bm_set(struct mrc_resp *s, u32 psn)
{
	u32 b = psn & s->win_mask;

	s->bitmap[b >> 6] |= 1ull << (b & 63);
}

static void bm_clear(struct mrc_resp *s, u32 psn)
{
	u32 b = psn & s->win_mask;

	s->bitmap[b >> 6] &= ~(1ull << (b & 63));
}

/**
 * mrc_resp_init() - allocate the responder's bitmap and message slots.
 * @c: connection with a validated cfg
 *
 * Return: MRC_OK or MRC_E_NOMEM.
 */
int mrc_resp_init(struct mrc_conn *c)
{
	struct mrc_resp *s = &c->resp;
	u32 size = 64;

	while (size < c->cfg.mpr)
		size <<= 1;
	s->win_mask = size - 1;
	s->mpr = c->cfg.mpr;
	s->bitmap = mrc_plat_zalloc(sizeof(*s->bitmap) * (size / 64),
				    c->cfg.alloc_may_sleep);
	s->msg_cap = c->cfg.rx_max_msgs;
	s->msgs = mrc_plat_zalloc(sizeof(*s->msgs) * s->msg_cap,
				  c->cfg.alloc_may_sleep);
	if (!s->bitmap || !s->msgs) {
		mrc_resp_destroy(c);
		return MRC_E_NOMEM;
	}
	s->cack = mrc_psn_add(c->cfg.peer_init_psn, MRC_PSN_MASK);
	s->sack_deadline = MRC_NO_DEADLINE;
	return MRC_OK;
}

/**
 * mrc_resp_destroy() - free the responder's state.
 * @c: connection
 */
void mrc_resp_destroy(struct mrc_conn *c)
{
	struct mrc_resp *s = &c->resp;

	mrc_plat_free(s->bitmap);
	mrc_plat_free(s->msgs);
	s->bitmap = NULL;
	s->msgs = NULL;
}

/**
 * mrc_resp_penalty() - receiver window penalty for the SACK CC state.
 * @c: connection
 *
 * 0 while at most half of the message slots are busy, then rising linearly
 * to 127 when all are: tells the sender's congestion control that the
 * receiving host (not the network) is the bottleneck.
 *
 * Return: 0..127.
 */
u8 mrc_resp_penalty(const struct mrc_conn *c)
{
	const struct mrc_resp *s = &c->resp;
	u32 half = s->msg_cap / 2;
	u32 top = s->msg_cap - half;

	if (s->msgs_used <= half || !top)
		return 0;
	return (u8)((s->msgs_used - half) * MRC_CC_PENALTY_MAX / top);
}

static u32 chunk_base(const struct mrc_conn *c, u32 psn)
{
	u32 off = (psn - c->cfg.peer_init_psn) & (MRC_CHUNK - 1);

	return mrc_psn_add(psn, (u32)0 - off);
}

static void resp_arm(struct mrc_conn *c, u64 now)
{
	struct mrc_resp *s = &c->resp;

	if (s->sack_now || s->sack_deadline != MRC_NO_DEADLINE)
		return;
	if (!c->cfg.sack_delay_ns)
		s->sack_now = 1;
	else
		s->sack_deadline = now + c->cfg.sack_delay_ns;
}

/*
 * Record that the chunk of @psn owes a SACK whose trigger is @trig (the
 * packet that arrived, echoed with @ev and @ts); @keep: it was not a plain
 * in-order arrival (struct mrc_sack_pend).
 */
static void resp_note(struct mrc_conn *c, u64 now, u32 psn, u32 trig, u32 ev,
		      u16 ts, bool ce, bool restore, bool keep)
{
	struct mrc_resp *s = &c->resp;
	struct mrc_sack_pend *p = NULL;
	u32 base = chunk_base(c, psn);
	u32 i;

	for (i = 0; i < s->n_pend; i++)
		if (s->pend[i].base == base)
			p = &s->pend[i];
	if (!p) {
		if (s->n_pend == MRC_SACK_PEND_MAX) {
			/* Full: the oldest chunk loses its SACK (counted). */
			for (i = 1; i < s->n_pend; i++)
				s->pend[i - 1] = s->pend[i];
			s->n_pend--;
			c->st.ctl_dropped++;
			s->sack_now = 1;
		}
		p = &s->pend[s->n_pend++];
		mrc_memset(p, 0, sizeof(*p));
		p->base = base;
	}
	/* The echoed EV sticks to a CE-marked packet once one arrived. */
	if (ce || p->ecn == MRC_ECN_NONE) {
		p->trig_psn = trig;
		p->ev = ev;
		p->ts = ts;
	}
	if (ce)
		p->ecn = MRC_ECN_SKIP_ONCE;
	if (restore)
		p->restore = 1;
	if (keep)
		p->keep = 1;
	resp_arm(c, now);
}

static bool resp_ctl_push(struct mrc_conn *c, const struct mrc_ctl_item *it)
{
	struct mrc_resp *s = &c->resp;

	if (s->ctl_count >= MRC_CTL_Q_LEN) {
		c->st.ctl_dropped++;
		return false;
	}
	s->ctlq[(s->ctl_head + s->ctl_count) % MRC_CTL_Q_LEN] = *it;
	s->ctl_count++;
	return true;
}

static void resp_nack(struct mrc_conn *c, u32 psn, u8 reason, u32 ev, u16 ts)
{
	struct mrc_ctl_item it;

	mrc_memset(&it, 0, sizeof(it));
	it.kind = MRC_TX_NACK;
	it.reason = reason;
	it.psn = psn;
	it.ev = ev;
	it.ts = ts;
	resp_ctl_push(c, &it);
}

/* Fatal protocol violation by the peer: tell it and fail. */
static int resp_violation(struct mrc_conn *c, u32 psn, u32 ev, u16 ts)
{
	c->st.rx_proto_err++;
	resp_nack(c, psn, MRC_NACK_UNEXP_EVENT, ev, ts);
	mrc_conn_fail(c, MRC_CONN_ERR_PROTO);
	return MRC_E_PROTO;
}

/* Data packet at or behind cack, or already in the bitmap. */
static int resp_dup(struct mrc_conn *c, u64 now, const struct mrc_pkt *pkt,
		    u32 ev, u16 ts, bool ce)
{
	struct mrc_resp *s = &c->resp;
	u32 psn = pkt->bth.psn & MRC_PSN_MASK;
	u32 chunk = psn;

	c->st.rx_dup_pkts++;
	if (pkt->bth.rtx)
		c->st.spurious_rtx++;
	/* Behind cack: report the window's first chunk. */
	if (mrc_psn_diff(psn, s->cack) <= 0)
		chunk = mrc_psn_add(s->cack, 1);
	resp_note(c, now, chunk, psn, ev, ts, ce, pkt->bth.rtx, true);
	s->sack_now = 1;
	return MRC_RX_CONSUMED;
}

static void resp_advance(struct mrc_resp *s)
{
	u32 i, next;

	for (i = 0; i < s->mpr; i++) {
		next = mrc_psn_add(s->cack, 1);
		if (!bm_test(s, next))
			break;
		bm_clear(s, next);
		s->cack = next;
	}
}

/**
 * mrc_resp_on_data() - a data (WRITE) packet arrived.
 * @c: connection
 * @now: current time
 * @pkt: decoded packet (pkt->trimmed, or MRC_RXF_TRIMMED: payload cut)
 * @rx_ev: EV it arrived with
 * @rx_flags: MRC_RXF_*
 *
 * Trimmed: NACK TRIMMED (TRIMMED_LASTHOP with MRC_RXF_LASTHOP), nothing
 * recorded. Behind cack or already received: duplicate, re-acked at once,
 * never placed again. Beyond the window: dropped; a NACK PSN_OOR_WINDOW at
 * most once per nack_oor_interval_ns. No message slot for its MSN: NACK
 * NO_RESOURCE (the sender retries after a delay). Inconsistent message
 * length, bytes beyond it, a message longer than rx_max_msg_len or an MSN
 * already delivered: NACK UNEXP_EVENT and connection error.
 *
 * Return: enum mrc_rx_verdict, or MRC_E_PROTO.
 */
int mrc_resp_on_data(struct mrc_conn *c, u64 now, const struct mrc_pkt *pkt,
		     u32 rx_ev, u32 rx_flags)
{
	struct mrc_resp *s = &c->resp;
	bool ce = rx_flags & MRC_RXF_ECN_CE;
	bool trimmed = pkt->trimmed || (rx_flags & MRC_RXF_TRIMMED);
	u32 psn = pkt->bth.psn & MRC_PSN_MASK;
	u16 ts = pkt->bth.ts ? pkt->tseth.tx_ts : 0;
	u32 len = trimmed ? 0 : pkt->payload_len;
	u32 off = (u32)pkt->reth.va;
	struct mrc_rx_msg *m;
	bool fresh = false, in_order;
	s32 d, md;

	c->st.rx_data_pkts++;
	if (ce)
		c->st.rx_ecn_ce++;
	d = mrc_psn_diff(psn, s->cack);
	if (d <= 0 || (d < (s32)s->mpr && bm_test(s, psn)))
		return resp_dup(c, now, pkt, rx_ev, ts, ce);
	if (d >= (s32)s->mpr) {
		c->st.rx_oor_pkts++;
		if (!s->oor_nacked ||
		    now - s->last_oor_ns >= c->cfg.nack_oor_interval_ns) {
			s->oor_nacked = 1;
			s->last_oor_ns = now;
			c->st.rx_oor_nacks++;
			resp_nack(c, psn, MRC_NACK_PSN_OOR_WINDOW, rx_ev, ts);
		}
		return MRC_RX_CONSUMED;
	}
	if (trimmed) {
		c->st.rx_trimmed++;
		resp_nack(c, psn, (rx_flags & MRC_RXF_LASTHOP) ?
			  MRC_NACK_TRIMMED_LASTHOP : MRC_NACK_TRIMMED, rx_ev, ts);
		return MRC_RX_CONSUMED;
	}
	if (pkt->reth.dma_len > c->cfg.rx_max_msg_len ||
	    pkt->reth.va > pkt->reth.dma_len ||
	    (u64)off + len > pkt->reth.dma_len)
		return resp_violation(c, psn, rx_ev, ts);
	md = mrc_msn_diff(pkt->meth.msn, s->next_msn);
	if (md < 0)
		return resp_violation(c, psn, rx_ev, ts);
	if (md >= (s32)s->msg_cap) {
		c->st.rx_no_resource++;
		resp_nack(c, psn, MRC_NACK_NO_RESOURCE, rx_ev, ts);
		return MRC_RX_CONSUMED;
	}
	m = &s->msgs[pkt->meth.msn % s->msg_cap];
	if (!m->used) {
		mrc_memset(m, 0, sizeof(*m));
		m->used = 1;
		m->msn = pkt->meth.msn;
		m->len = pkt->reth.dma_len;
		s->msgs_used++;
		fresh = true;
	} else if (m->len != pkt->reth.dma_len ||
		   (u64)m->rcvd + len > m->len ||
		   (m->last_seen && mrc_op_is_last(pkt->bth.opcode))) {
		return resp_violation(c, psn, rx_ev, ts);
	}
	m->rcvd += len;
	if (mrc_op_is_last(pkt->bth.opcode)) {
		m->last_seen = 1;
		if (mrc_op_has_imm(pkt->bth.opcode)) {
			m->has_imm = 1;
			m->imm = pkt->imm;
		}
	}
	bm_set(s, psn);
	if (d != 1)
		s->ooo_count++;
	resp_advance(s);
	/*
	 * In order: the next PSN, and nothing after it had come. Else it may
	 * be a late original whose timeout its echo proves spurious.
	 */
	in_order = d == 1 && s->cack == psn;
	s->bytes_rcvd += len;
	c->st.rx_data_bytes += len;
	s->unacked_pkts++;
	s->unacked_bytes += len;
	resp_note(c, now, psn, psn, rx_ev, ts, ce, false, !in_order);
	if (pkt->bth.ack_req || pkt->bth.rtx || ce ||
	    s->unacked_pkts >= c->cfg.sack_every_pkts ||
	    (c->cfg.sack_every_bytes &&
	     s->unacked_bytes >= c->cfg.sack_every_bytes))
		s->sack_now = 1;
	return fresh ? MRC_RX_PLACE_NEW : MRC_RX_PLACE;
}

/**
 * mrc_resp_on_probe() - a probe arrived: queue a SACK with pr=1.
 * @c: connection
 * @now: current time
 * @pkt: decoded probe
 * @rx_ev: EV it arrived with (the EV it probes; the answer echoes it)
 * @rx_flags: MRC_RXF_*
 *
 * Return: MRC_RX_CONSUMED or MRC_E_STALE (other connection).
 */
int mrc_resp_on_probe(struct mrc_conn *c, u64 now, const struct mrc_pkt *pkt,
		      u32 rx_ev, u32 rx_flags)
{
	struct mrc_ctl_item it;

	(void)now;
	if (pkt->probe.dst_conn != c->cfg.local_conn_id) {
		c->st.rx_stale++;
		return MRC_E_STALE;
	}
	c->st.rx_probes++;
	mrc_memset(&it, 0, sizeof(it));
	it.kind = MRC_TX_SACK;
	it.probe_id = pkt->probe.probe_id;
	it.ev = rx_ev;
	it.ts = pkt->probe.tx_ts;
	it.ecn = (rx_flags & MRC_RXF_ECN_CE) ? MRC_ECN_SKIP_ONCE : MRC_ECN_NONE;
	resp_ctl_push(c, &it);
	return MRC_RX_CONSUMED;
}

/* EV to send a control packet on: the echoed one unless its plane is down. */
static u32 resp_tx_ev(struct mrc_conn *c, u64 now, u32 ev)
{
	u8 plane = mrc_ev_plane(ev);
	int idx;

	if (plane < c->cfg.n_planes && ((c->evm.plane_up >> plane) & 1u))
		return ev;
	idx = mrc_ev_pick(&c->evm, now, -1);
	return idx >= 0 ? c->evm.ev[idx].value : ev;
}

static void resp_ctl_hdr(struct mrc_conn *c, u64 now, u8 op, u32 ev,
			 struct mrc_tx_desc *d)
{
	mrc_memset(d, 0, sizeof(*d));
	d->ev = resp_tx_ev(c, now, ev);
	d->plane = mrc_ev_plane(d->ev);
	d->pkt.bth.opcode = op;
	d->pkt.bth.tver = MRC_TVER;
	d->pkt.bth.pkey = c->cfg.pkey;
	d->pkt.bth.dest_qp = c->cfg.peer_qpn;
	d->pkt.bth.psn = c->resp.cack;
}

static void resp_fill_sack(struct mrc_conn *c, u64 now, u32 base, u32 trig,
			   u32 ev, u16 ts, u8 ecn, bool restore, bool pr,
			   u16 probe_id, struct mrc_tx_desc *d)
{
	struct mrc_resp *s = &c->resp;
	struct mrc_sack *k;
	s32 off;
	u32 i, psn;

	resp_ctl_hdr(c, now, MRC_OP_SACK, ev, d);
	d->kind = MRC_TX_SACK;
	k = &d->pkt.sack;
	k->ecn = ecn;
	k->pr = pr;
	if (pr) {
		k->ack_psn_off = (s16)probe_id;
	} else {
		off = mrc_psn_diff(trig, s->cack);
		k->ack_psn_off = (off >= -32768 && off <= 32767) ? (s16)off : 0;
	}
	k->ev = ev;
	k->src_conn = c->cfg.local_conn_id;
	k->dst_conn = c->cfg.peer_conn_id;
	k->cack_psn = s->cack;
	k->cc_type = c->cfg.cc_algo & 0xf;
	k->mpr = (u8)(s->mpr / MRC_MPR_UNIT);
	if (mrc_psn_diff(base, s->cack) < 1)
		base = mrc_psn_add(s->cack, 1);
	k->sack_offset = (s16)mrc_psn_diff(base, s->cack);
	for (i = 0; i < MRC_SACK_BITS; i++) {
		psn = mrc_psn_add(base, i);
		if (mrc_psn_diff(psn, s->cack) < (s32)s->mpr && bm_test(s, psn))
			k->bitmap |= 1ull << i;
	}
	k->cc.echoed_ts = ts;
	k->cc.ooo_count = (u16)(s->ooo_count & 0x7fff);
	k->cc.restore_cwnd = restore;
	k->cc.rwnd_penalty = mrc_resp_penalty(c);
	k->cc.bytes_rcvd = (u32)(s->bytes_rcvd / MRC_CC_BYTES_UNIT) & 0xffffff;
	c->st.tx_sacks++;
}

/*
 * Whether pending chunk @p, the oldest, can go without a SACK of its own
 * because @q, the next, says all it would: the cumulative ack has passed
 * @p whole (its SACK's bitmap would start at cack + 1, as @q's does or
 * beyond, and every chunk in between that owes a SACK is pending itself),
 * @q echoes the same EV, so the sender's per-EV feedback and RTT sample
 * still come, and @p carries no signal of its own: no CE mark, no
 * restore_cwnd, no echo that could prove a timeout spurious (a duplicate,
 * a packet out of order or filling a hole: mrc_sack_pend.keep).
 * A flowcell of one EV that spans two chunks is then acknowledged once.
 */
static bool resp_merge_covered(const struct mrc_conn *c,
			       const struct mrc_sack_pend *p,
			       const struct mrc_sack_pend *q)
{
	u32 last = mrc_psn_add(p->base, MRC_CHUNK - 1);

	return mrc_psn_diff(last, c->resp.cack) <= 0 && p->ev == q->ev &&
	       p->ecn == MRC_ECN_NONE && !p->restore && !p->keep;
}

/**
 * mrc_resp_poll_tx() - the responder's next control packet.
 * @c: connection
 * @now: current time
 * @d: filled on success
 *
 * NACKs and probe answers first (in arrival order), then, if a trigger
 * fired, one SACK per pending chunk, but for chunks the next one's SACK
 * covers (resp_merge_covered(); counted in tx_sacks_merged).
 *
 * Return: MRC_OK with @d filled, or MRC_E_AGAIN.
 */
int mrc_resp_poll_tx(struct mrc_conn *c, u64 now, struct mrc_tx_desc *d)
{
	struct mrc_resp *s = &c->resp;
	struct mrc_sack_pend p;
	struct mrc_ctl_item it;
	struct mrc_nack *n;
	u32 i;

	if (s->ctl_count) {
		it = s->ctlq[s->ctl_head];
		s->ctl_head = (s->ctl_head + 1) % MRC_CTL_Q_LEN;
		s->ctl_count--;
		if (it.kind == MRC_TX_SACK) {
			resp_fill_sack(c, now, mrc_psn_add(s->cack, 1), 0, it.ev,
				       it.ts, it.ecn, false, true, it.probe_id, d);
			return MRC_OK;
		}
		resp_ctl_hdr(c, now, MRC_OP_NACK, it.ev, d);
		d->kind = MRC_TX_NACK;
		n = &d->pkt.nack;
		n->reason = it.reason;
		n->tx_ts = it.ts;
		n->ev = it.ev;
		n->src_conn = c->cfg.local_conn_id;
		n->dst_conn = c->cfg.peer_conn_id;
		n->nack_psn = it.psn;
		n->cc_type = c->cfg.cc_algo & 0xf;
		c->st.tx_nacks++;
		return MRC_OK;
	}
	if (!s->sack_now)
		return MRC_E_AGAIN;
	if (!s->n_pend) {
		s->sack_now = 0;
		return MRC_E_AGAIN;
	}
	while (s->n_pend > 1 &&
	       resp_merge_covered(c, &s->pend[0], &s->pend[1])) {
		for (i = 1; i < s->n_pend; i++)
			s->pend[i - 1] = s->pend[i];
		s->n_pend--;
		c->st.tx_sacks_merged++;
	}
	p = s->pend[0];
	for (i = 1; i < s->n_pend; i++)
		s->pend[i - 1] = s->pend[i];
	s->n_pend--;
	if (!s->n_pend) {
		s->sack_now = 0;
		s->unacked_pkts = 0;
		s->unacked_bytes = 0;
		s->sack_deadline = MRC_NO_DEADLINE;
	}
	resp_fill_sack(c, now, p.base, p.trig_psn, p.ev, p.ts, p.ecn, p.restore,
		       false, 0, d);
	return MRC_OK;
}

/**
 * mrc_resp_on_timer() - the delayed-SACK deadline.
 * @c: connection
 * @now: current time
 */
void mrc_resp_on_timer(struct mrc_conn *c, u64 now)
{
	struct mrc_resp *s = &c->resp;

	if (s->sack_deadline <= now) {
		s->sack_deadline = MRC_NO_DEADLINE;
		s->sack_now = 1;
	}
}

/**
 * mrc_resp_flush() - make every SACK still held back by coalescing due now.
 * @c: connection
 */
void mrc_resp_flush(struct mrc_conn *c)
{
	struct mrc_resp *s = &c->resp;

	if (s->n_pend)
		s->sack_now = 1;
}

/**
 * mrc_resp_deadline() - the responder's next timer deadline.
 * @c: connection
 *
 * Return: delayed-SACK deadline, or MRC_NO_DEADLINE.
 */
u64 mrc_resp_deadline(const struct mrc_conn *c)
{
	return c->resp.sack_deadline;
}

/**
 * mrc_resp_poll_delivery() - the next message in MSN order, if complete.
 * @c: connection
 * @ev: filled with MRC_EVT_MSG_DELIVERED
 *
 * Return: true if @ev was filled (the slot is released).
 */
bool mrc_resp_poll_delivery(struct mrc_conn *c, struct mrc_event *ev)
{
	struct mrc_resp *s = &c->resp;
	struct mrc_rx_msg *m = &s->msgs[s->next_msn % s->msg_cap];

	if (!m->used || m->msn != s->next_msn || !m->last_seen ||
	    m->rcvd != m->len)
		return false;
	mrc_memset(ev, 0, sizeof(*ev));
	ev->type = MRC_EVT_MSG_DELIVERED;
	ev->time_ns = c->now;
	ev->u.msg.msn = m->msn;
	ev->u.msg.len = m->len;
	ev->u.msg.imm = m->imm;
	ev->u.msg.has_imm = m->has_imm;
	mrc_memset(m, 0, sizeof(*m));
	s->msgs_used--;
	s->next_msn++;
	c->st.rx_msgs_delivered++;
	return true;
}
