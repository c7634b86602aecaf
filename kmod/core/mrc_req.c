// SPDX-License-Identifier: GPL-2.0 OR MIT
/*
 * mrc_req.c - the requester: messages out (SACK/NACK in: mrc_req_ack.c).
 *
 * Messages are cut into MTU-sized WRITE packets on demand (at the moment a
 * packet may leave), so a queued message costs one ring slot, not one entry
 * per packet. Each PSN in flight has a struct mrc_tx_pkt in a ring indexed
 * by psn & ring_mask; the ring is as large as the receive window, which
 * the sender never exceeds, so it cannot overflow.
 *
 * Packet lifecycle (mrc.rst has the diagram):
 *
 *   FREE --send--> SENT --SACK bit--> SACKED --cumulative ack--> FREE
 *                  SENT --cumulative ack--> FREE
 *                  SENT --timeout | NACK TRIMMED | plane down--> LOST
 *                  SENT --resource NACK--> SENT (nack_wait, delayed)
 *
 * Receiver not ready (a resource NACK: NO_RESOURCE, NO_BITMAP,
 * NO_PKT_BUFFER, PSN_OOR_WINDOW): the sender stops sending new data, holds
 * every NACKed packet, and retransmits one of them as a probe after the
 * base RTO; every refusal of the probe doubles the delay (up to
 * rto_max_backoff). Its acknowledgment releases the held packets of its
 * message (the receiver gave that message a buffer) and sends the first
 * held packet of the next message as the next probe at once, its delay
 * growing from the base RTO again (the receiver made progress); the mode
 * ends when nothing is held (req_rnr_next(), mrc_req_ack.c). A receiver
 * whose reader sleeps costs one packet per delay, not a window per base
 * RTO (RDMA's RNR NAK, TCP's zero-window probe). Progress: with data
 * outstanding, progress_timeout_ns without an acknowledgment and (unless
 * orphaned) without any SACK or NACK fails the connection, however many
 * packets are in flight.
 *                  LOST --retransmit on a fresh EV--> SENT
 *                  LOST --SACK bit / cumulative ack--> SACKED / FREE
 */
#include "mrc_core.h"

/**
 * mrc_req_init() - allocate the requester's rings.
 * @c: connection with a validated cfg
 *
 * Return: MRC_OK or MRC_E_NOMEM.
 */
int mrc_req_init(struct mrc_conn *c)
{
	struct mrc_req *r = &c->req;
	u32 size = 1;

	while (size < c->cfg.mpr)
		size <<= 1;
	r->ring_mask = size - 1;
	r->pkts = mrc_plat_zalloc(sizeof(*r->pkts) * size,
				  c->cfg.alloc_may_sleep);
	r->rtxq = mrc_plat_zalloc(sizeof(*r->rtxq) * size,
				  c->cfg.alloc_may_sleep);
	r->msg_cap = c->cfg.tx_max_msgs;
	r->msgs = mrc_plat_zalloc(sizeof(*r->msgs) * r->msg_cap,
				  c->cfg.alloc_may_sleep);
	if (!r->pkts || !r->rtxq || !r->msgs) {
		mrc_req_destroy(c);
		return MRC_E_NOMEM;
	}
	r->snd_una = c->cfg.local_init_psn & MRC_PSN_MASK;
	r->snd_nxt = r->snd_una;
	r->send_wnd = c->cfg.mpr;
	r->retry_left = c->cfg.retry_budget;
	r->rto_deadline = MRC_NO_DEADLINE;
	r->rack_deadline = MRC_NO_DEADLINE;
	r->reo_mult = 1;
	return MRC_OK;
}

/**
 * mrc_req_destroy() - free the requester's rings.
 * @c: connection
 */
void mrc_req_destroy(struct mrc_conn *c)
{
	struct mrc_req *r = &c->req;

	mrc_plat_free(r->pkts);
	mrc_plat_free(r->rtxq);
	mrc_plat_free(r->msgs);
	r->pkts = NULL;
	r->rtxq = NULL;
	r->msgs = NULL;
}

/**
 * mrc_req_queue() - queue a message.
 * @c: connection
 * @len: bytes
 * @imm: immediate data
 * @has_imm: @imm is sent (WRITE_*_IMM)
 * @cookie: host handle, returned in MRC_EVT_MSG_COMPLETED and tx descs
 * @msn_out: if not NULL, the MSN given to the message
 *
 * Return: MRC_OK, MRC_E_AGAIN (ring full) or MRC_E_TOOBIG.
 */
int mrc_req_queue(struct mrc_conn *c, u32 len, u32 imm, bool has_imm,
		  u64 cookie, u16 *msn_out)
{
	struct mrc_req *r = &c->req;
	struct mrc_tx_msg *m;
	u32 npkts;

	npkts = len ? (u32)mrc_div64((u64)len + c->cfg.mtu - 1, c->cfg.mtu) : 1;
	if (npkts > MRC_MSG_PKTS_MAX)
		return MRC_E_TOOBIG;
	if (r->msg_count >= r->msg_cap)
		return MRC_E_AGAIN;
	m = &r->msgs[(r->msg_head + r->msg_count) % r->msg_cap];
	mrc_memset(m, 0, sizeof(*m));
	m->cookie = cookie;
	m->len = len;
	m->imm = imm;
	m->has_imm = has_imm;
	m->npkts = npkts;
	m->msn = r->next_msn++;
	r->msg_count++;
	if (msn_out)
		*msn_out = m->msn;
	return MRC_OK;
}

/**
 * mrc_req_rto() - the base retransmit timeout now (no backoff).
 * @c: connection
 *
 * Return: max(configured RTO, srtt + 4 rttvar).
 */
u64 mrc_req_rto(const struct mrc_conn *c)
{
	const struct mrc_req *r = &c->req;

	if (r->srtt_ns && r->srtt_ns + 4 * r->rttvar_ns > c->rto_base_ns)
		return r->srtt_ns + 4 * r->rttvar_ns;
	return c->rto_base_ns;
}

static u64 req_rto(const struct mrc_conn *c, u8 timeouts)
{
	/* The configured RTO is a floor: never time out faster than the path. */
	u64 base = mrc_req_rto(c);
	u32 shift = 0;

	/* The first rto_linear_retries retransmissions wait the base RTO too. */
	if (timeouts > c->cfg.rto_linear_retries) {
		shift = timeouts - c->cfg.rto_linear_retries;
		if (shift > c->cfg.rto_max_backoff)
			shift = c->cfg.rto_max_backoff;
	}
	return base << shift;
}

static void rtxq_rebuild(struct mrc_req *r)
{
	u32 psn;

	r->rtxq_head = 0;
	r->rtxq_count = 0;
	for (psn = r->snd_una; psn != r->snd_nxt; psn = mrc_psn_add(psn, 1))
		if (mrc_txp(r, psn)->state == MRC_TXP_LOST)
			r->rtxq[r->rtxq_count++] = psn;
}

/**
 * mrc_req_mark_lost() - @psn was SENT: it waits for a retransmission now.
 * @c: connection
 * @psn: a SENT packet
 * @cause: enum mrc_rtx_cause
 */
void mrc_req_mark_lost(struct mrc_conn *c, u32 psn, u8 cause)
{
	struct mrc_req *r = &c->req;
	struct mrc_tx_pkt *p = mrc_txp(r, psn);

	p->state = MRC_TXP_LOST;
	p->rtx_cause = cause;
	mrc_req_clear_nack_wait(r, p);
	r->inflight_bytes -= p->len;
	r->inflight_pkts--;
	mrc_ev_inflight_sub(&c->evm, p->ev_idx, p->len);
	if (r->rtxq_count > r->ring_mask) {
		/* Only stale entries can fill it: rebuild from the ring. */
		rtxq_rebuild(r);
		return;
	}
	r->rtxq[(r->rtxq_head + r->rtxq_count) & r->ring_mask] = psn;
	r->rtxq_count++;
}

static bool req_cwnd_ok(const struct mrc_conn *c, u32 len)
{
	const struct mrc_req *r = &c->req;

	return !r->inflight_bytes ||
	       (u64)r->inflight_bytes + len <= mrc_cc_cwnd(&c->cc);
}

static u8 req_opcode(const struct mrc_tx_msg *m, u32 seg)
{
	if (m->npkts == 1)
		return m->has_imm ? MRC_OP_WRITE_ONLY_IMM : MRC_OP_WRITE_ONLY;
	if (!seg)
		return MRC_OP_WRITE_FIRST;
	if (seg == m->npkts - 1)
		return m->has_imm ? MRC_OP_WRITE_LAST_IMM : MRC_OP_WRITE_LAST;
	return MRC_OP_WRITE_MIDDLE;
}

/* Fill @d for a (re)transmission of @psn on EV @ev_idx and account it. */
static void req_emit(struct mrc_conn *c, u64 now, u32 psn, int ev_idx,
		     bool rtx, bool ack_req, struct mrc_tx_desc *d)
{
	struct mrc_req *r = &c->req;
	struct mrc_tx_pkt *p = mrc_txp(r, psn);
	const struct mrc_tx_msg *m = &r->msgs[p->msg_slot];
	struct mrc_pkt *k = &d->pkt;
	u64 dl;

	mrc_memset(d, 0, sizeof(*d));
	d->kind = MRC_TX_DATA;
	d->ev = c->evm.ev[ev_idx].value;
	d->plane = mrc_ev_plane(d->ev);
	d->cookie = m->cookie;
	d->msn = m->msn;
	d->msg_offset = p->offset;
	d->payload_len = p->len;
	d->rtx = rtx;
	k->bth.opcode = p->opcode;
	k->bth.pad_cnt = mrc_pad_for(p->len);
	k->bth.tver = MRC_TVER;
	k->bth.pkey = c->cfg.pkey;
	k->bth.dest_qp = c->cfg.peer_qpn;
	k->bth.ack_req = ack_req;
	k->bth.rtx = rtx;
	k->bth.ts = !!c->cfg.use_tseth;
	k->bth.psn = psn;
	k->meth.msn = m->msn;
	k->meth.rqmsn = r->msgs[r->msg_head].msn;
	k->tseth.tx_ts = mrc_ts16(now);
	k->tseth.ftype = MRC_TS_FTYPE;
	k->reth.va = p->offset;
	k->reth.rkey = c->cfg.rkey;
	k->reth.dma_len = m->len;
	if (mrc_op_has_imm(p->opcode))
		k->imm = m->imm;
	k->payload_len = p->len;

	p->tx_ns = now;
	p->tx_ts = k->tseth.tx_ts;
	p->ev_idx = (u16)ev_idx;
	if (p->tries < 0xff)
		p->tries++;
	p->state = MRC_TXP_SENT;
	mrc_req_clear_nack_wait(r, p);
	p->sampled = 0;
	dl = now + req_rto(c, p->timeouts);
	p->deadline_ns = dl;
	if (dl < r->rto_deadline)
		r->rto_deadline = dl;
	r->inflight_bytes += p->len;
	r->inflight_pkts++;
	mrc_ev_inflight_add(&c->evm, ev_idx, p->len);
	mrc_ev_on_sent(&c->evm, ev_idx);
	c->st.tx_data_pkts++;
	c->st.tx_data_bytes += p->len;
}

static int req_send_probe(struct mrc_conn *c, u64 now, int idx,
			  struct mrc_tx_desc *d)
{
	struct mrc_pkt *k = &d->pkt;
	struct mrc_event ev;

	mrc_memset(d, 0, sizeof(*d));
	d->kind = MRC_TX_PROBE;
	d->ev = c->evm.ev[idx].value;
	d->plane = mrc_ev_plane(d->ev);
	k->bth.opcode = MRC_OP_PROBE;
	k->bth.tver = MRC_TVER;
	k->bth.pkey = c->cfg.pkey;
	k->bth.dest_qp = c->cfg.peer_qpn;
	k->bth.psn = 0;		/* reserved in a probe */
	k->probe.probe_id = (u16)idx;
	k->probe.src_conn = c->cfg.local_conn_id;
	k->probe.dst_conn = c->cfg.peer_conn_id;
	k->probe.tx_ts = mrc_ts16(now);
	k->probe.ftype = MRC_TS_FTYPE;
	mrc_ev_probe_sent(&c->evm, now, idx);
	c->st.tx_probes++;
	mrc_memset(&ev, 0, sizeof(ev));
	ev.type = MRC_EVT_PROBE_SENT;
	ev.time_ns = now;
	ev.u.probe.ev = d->ev;
	ev.u.probe.probe_id = (u16)idx;
	mrc_evq_push(&c->evq, &ev);
	return MRC_OK;
}

static int req_send_rtx(struct mrc_conn *c, u64 now, struct mrc_tx_desc *d)
{
	struct mrc_req *r = &c->req;
	struct mrc_tx_pkt *p;
	u32 psn;
	int ev;

	/*
	 * The receiver-not-ready probe goes first and whatever the window:
	 * the held packets it stands for count as in flight, so a FIFO head
	 * waiting for window room would wait for the probe, which waits
	 * behind it. Its queue entry is skipped later (no longer LOST).
	 */
	if (r->rnr && mrc_req_in_flight(r, r->rnr_probe_psn) &&
	    mrc_txp(r, r->rnr_probe_psn)->state == MRC_TXP_LOST) {
		psn = r->rnr_probe_psn;
		p = mrc_txp(r, psn);
		ev = mrc_ev_pick(&c->evm, now, p->ev_idx);
		if (ev < 0)
			return MRC_E_AGAIN;
		c->st.tx_rtx_pkts++;
		c->st.tx_rtx_nack++;
		req_emit(c, now, psn, ev, true, true, d);
		return MRC_OK;
	}
	while (r->rtxq_count) {
		psn = r->rtxq[r->rtxq_head];
		p = mrc_txp(r, psn);
		if (!mrc_req_in_flight(r, psn) || p->state != MRC_TXP_LOST) {
			r->rtxq_head = (r->rtxq_head + 1) & r->ring_mask;
			r->rtxq_count--;
			continue;
		}
		/*
		 * In receiver-not-ready mode the window is full of held packets
		 * that the receiver refused and that are not in the network;
		 * a lost packet of an earlier message must not wait for room
		 * behind them: the receiver frees nothing until that message
		 * is complete, and the probe is refused until then (a
		 * deadlock a silent path failure during a stall produced).
		 */
		if (!r->rnr && !req_cwnd_ok(c, p->len))
			return MRC_E_AGAIN;
		/* A fresh EV: never the one the packet was lost on. */
		ev = mrc_ev_pick(&c->evm, now, p->ev_idx);
		if (ev < 0)
			return MRC_E_AGAIN;
		r->rtxq_head = (r->rtxq_head + 1) & r->ring_mask;
		r->rtxq_count--;
		c->st.tx_rtx_pkts++;
		if (p->rtx_cause == MRC_RTX_TIMEOUT)
			c->st.tx_rtx_timeout++;
		else if (p->rtx_cause == MRC_RTX_NACK)
			c->st.tx_rtx_nack++;
		else if (p->rtx_cause == MRC_RTX_LOCAL)
			c->st.tx_rtx_local++;
		else if (p->rtx_cause == MRC_RTX_INFERRED)
			c->st.tx_rtx_inferred++;
		else if (p->rtx_cause == MRC_RTX_TLP)
			c->st.tx_rtx_tlp++;
		else if (p->rtx_cause == MRC_RTX_PMTU)
			c->st.tx_rtx_pmtu++;
		else if (p->rtx_cause == MRC_RTX_PATH)
			c->st.tx_rtx_path++;
		else
			c->st.tx_rtx_plane_down++;
		req_emit(c, now, psn, ev, true, true, d);
		return MRC_OK;
	}
	return MRC_E_STALE;	/* nothing to retransmit */
}

/*
 * Slot of the message the next new packet belongs to, if the receiver
 * window, the receiver's readiness and the congestion window let one go
 * now; -1 otherwise. @len is set to that packet's payload length.
 */
static int req_new_slot(struct mrc_conn *c, u32 *len)
{
	struct mrc_req *r = &c->req;
	const struct mrc_tx_msg *m;
	u32 slot, off;

	if (r->msg_seg >= r->msg_count)
		return -1;
	/* The receiver refuses data: nothing new until the probe gets in. */
	if (r->rnr)
		return -1;
	/* Receiver window: PSNs cack+1 .. cack+MPR-1, cack = snd_una - 1. */
	if (mrc_psn_diff(r->snd_nxt, r->snd_una) + 1 >= (s32)r->send_wnd)
		return -1;
	slot = (r->msg_head + r->msg_seg) % r->msg_cap;
	m = &r->msgs[slot];
	off = m->seg_off;
	*len = m->len - off < c->cfg.mtu ? m->len - off : c->cfg.mtu;
	mrc_cc_share_on_tx(&c->cc);
	if (!req_cwnd_ok(c, *len))
		return -1;
	return (int)slot;
}

/* Emit the next new packet, of message @slot, on EV @ev. */
static void req_new_emit(struct mrc_conn *c, u64 now, u32 slot, u32 len,
			 int ev, struct mrc_tx_desc *d)
{
	struct mrc_req *r = &c->req;
	struct mrc_tx_msg *m = &r->msgs[slot];
	struct mrc_tx_pkt *p;
	bool last, full;
	u32 psn;

	psn = r->snd_nxt;
	/* Data outstanding from now: the progress clock starts. */
	if (r->snd_una == r->snd_nxt) {
		r->progress_ns = now;
		r->heard_ns = now;
	}
	p = mrc_txp(r, psn);
	mrc_memset(p, 0, sizeof(*p));
	p->offset = m->seg_off;
	p->len = len;
	p->msg_slot = (u16)slot;
	p->opcode = req_opcode(m, m->seg_pkts);
	if (!m->seg_pkts)
		m->first_psn = psn;
	m->seg_pkts++;
	m->seg_off += len;
	last = m->seg_pkts == m->npkts;
	if (last)
		r->msg_seg++;
	r->snd_nxt = mrc_psn_add(psn, 1);
	mrc_loss_tlp_arm(c, now);
	/*
	 * Ask for a SACK at message ends and when this fills a window (no
	 * room left for another packet of this size after it), but
	 * for a full window only once until that request is acknowledged: a
	 * cwnd-limited sender is "full" on nearly every packet, and a SACK per
	 * packet costs the receiver and the fabric as much as the data.
	 */
	full = (u64)r->inflight_bytes + 2ull * len > mrc_cc_cwnd(&c->cc) ||
	       mrc_psn_diff(r->snd_nxt, r->snd_una) + 1 >= (s32)r->send_wnd;
	if (full && r->fill_areq_live &&
	    mrc_psn_diff(r->fill_areq_psn, r->snd_una) >= 0)
		full = false;
	if (full) {
		r->fill_areq_psn = psn;
		r->fill_areq_live = 1;
	}
	req_emit(c, now, psn, ev, false, last || full, d);
}

static int req_send_new(struct mrc_conn *c, u64 now, struct mrc_tx_desc *d)
{
	u32 len;
	int slot, ev;

	slot = req_new_slot(c, &len);
	if (slot < 0)
		return MRC_E_AGAIN;
	ev = mrc_ev_pick(&c->evm, now, -1);
	if (ev < 0)
		return MRC_E_AGAIN;
	req_new_emit(c, now, (u32)slot, len, ev, d);
	return MRC_OK;
}

/**
 * req_burst_next() - the next packet of a flowcell, if it can go now.
 * @c: connection
 * @now: current time
 * @prev: the packet before it in the burst (a first transmission)
 * @d: filled on success
 *
 * The packet after @prev, of the same message, on the same EV, if nothing
 * else waits (no retransmission queued), the windows allow it, the EV is
 * still GOOD on a plane with room, and its encoded size is not larger
 * than @prev's (a burst is laid out as equal segments, the last one may be
 * shorter).
 *
 * Return: MRC_OK with @d filled, or MRC_E_AGAIN (the burst ends here).
 */
static int req_burst_next(struct mrc_conn *c, u64 now,
			  const struct mrc_tx_desc *prev, struct mrc_tx_desc *d)
{
	struct mrc_req *r = &c->req;
	const struct mrc_ev_entry *e;
	const struct mrc_tx_msg *m;
	u32 len, hlen;
	int slot, ev;

	if (prev->kind != MRC_TX_DATA || prev->rtx || r->rtxq_count)
		return MRC_E_AGAIN;
	slot = req_new_slot(c, &len);
	if (slot < 0)
		return MRC_E_AGAIN;
	m = &r->msgs[slot];
	if (m->msn != prev->msn)
		return MRC_E_AGAIN;
	ev = mrc_txp(r, prev->pkt.bth.psn)->ev_idx;
	e = &c->evm.ev[ev];
	if (e->state != MRC_EV_GOOD || !mrc_ev_plane_usable(&c->evm, e->plane))
		return MRC_E_AGAIN;
	/* Same headers as @prev, plus ImmDt on a WRITE_LAST_IMM. */
	hlen = mrc_pkt_hdr_len(&prev->pkt);
	if (req_opcode(m, m->seg_pkts) == MRC_OP_WRITE_LAST_IMM &&
	    !mrc_op_has_imm(prev->pkt.bth.opcode))
		hlen += MRC_IMM_LEN;
	if (hlen + len + mrc_pad_for(len) >
	    mrc_pkt_hdr_len(&prev->pkt) + prev->payload_len +
	    prev->pkt.bth.pad_cnt)
		return MRC_E_AGAIN;
	req_new_emit(c, now, (u32)slot, len, ev, d);
	return MRC_OK;
}

/**
 * mrc_req_poll_tx() - the requester's next packet.
 * @c: connection
 * @now: current time
 * @d: filled on success
 *
 * Order: due probes, then retransmissions (fresh EV, within the window),
 * then new data (within the receiver window and the congestion window).
 *
 * Return: MRC_OK with @d filled, or MRC_E_AGAIN.
 */
int mrc_req_poll_tx(struct mrc_conn *c, u64 now, struct mrc_tx_desc *d)
{
	int idx, rc;

	idx = mrc_ev_probe_due(&c->evm, now);
	if (idx >= 0)
		return req_send_probe(c, now, idx, d);
	rc = req_send_rtx(c, now, d);
	if (rc != MRC_E_STALE)
		return rc;
	return req_send_new(c, now, d);
}

/**
 * mrc_req_poll_burst() - extend a burst begun by mrc_req_poll_tx().
 * @c: connection
 * @now: current time
 * @d: @d[0] the burst's first packet; @d[1..@max-1] filled
 * @max: descriptors at @d
 *
 * Return: descriptors in the burst, @d[0] included (1..@max).
 */
u32 mrc_req_poll_burst(struct mrc_conn *c, u64 now, struct mrc_tx_desc *d,
		       u32 max)
{
	u32 n = 1;

	while (n < max && req_burst_next(c, now, &d[n - 1], &d[n]) == MRC_OK)
		n++;
	return n;
}

/* When the progress timeout fires (MRC_NO_DEADLINE: not armed). */
static u64 req_progress_deadline(const struct mrc_conn *c)
{
	const struct mrc_req *r = &c->req;
	u64 last = r->progress_ns;

	if (!c->cfg.progress_timeout_ns || r->snd_una == r->snd_nxt)
		return MRC_NO_DEADLINE;
	/* A peer that answers is alive, unless it answers an orphan. */
	if (!r->orphan && r->heard_ns > last)
		last = r->heard_ns;
	return last + c->cfg.progress_timeout_ns;
}

static bool req_progress_expired(const struct mrc_conn *c, u64 now)
{
	return now >= req_progress_deadline(c);
}

/* MRC_EVT_TIMEOUT for one timed-out packet (telemetry: mrc:mrc_rto). */
static void req_timeout_event(struct mrc_conn *c, u64 now, u32 psn,
			      const struct mrc_tx_pkt *p)
{
	struct mrc_event e;

	if (!mrc_evq_wants(&c->evq, MRC_EVT_TIMEOUT))
		return;
	mrc_memset(&e, 0, sizeof(e));
	e.type = MRC_EVT_TIMEOUT;
	e.time_ns = now;
	e.u.timeout.ev = c->evm.ev[p->ev_idx].value;
	e.u.timeout.index = p->ev_idx;
	e.u.timeout.psn = psn;
	e.u.timeout.count = p->timeouts;
	mrc_evq_push(&c->evq, &e);
}

/*
 * A timeout a path failure explains (MRC_FO_BLAME_PATH): its path is
 * retired (this timeout's verdict or an earlier one; see loss_blame() in
 * mrc_req_loss.c for why one EV's verdict is not enough) while packets
 * sent after it were delivered on other paths. The connection still
 * delivers: one path died, the window is not to blame. A timeout with
 * nothing delivered since (every path silent: congestion collapse, a
 * stalled peer) is not explained, and the pass cuts the window.
 */
static bool req_timeout_explained(const struct mrc_conn *c, u16 ev_idx,
				  u64 tx_ns)
{
	return (c->cfg.failover & MRC_FO_BLAME_PATH) &&
	       mrc_ev_path_verdict(&c->evm, ev_idx) &&
	       c->evm.delivered_tx_ns > tx_ns;
}

/*
 * Timeouts of one timer pass, judged at its end: a silent EV that retires
 * its path (the second of the path, in a pass of its own:
 * mrc_ev_path_silent()) explains the pass's other timeouts on the path
 * too. More than fit here is no single path's failure.
 */
#define MRC_TO_PASS_MAX	16
struct req_to_pass {
	u16 ev_idx[MRC_TO_PASS_MAX];
	u64 tx_ns[MRC_TO_PASS_MAX];
	u32 n;
};

/*
 * Does the pass cut the window: a timeout in it that no path explains?
 * *@only is set to the path of those timeouts when they are all on one
 * (the cut is undone if that path is retired soon after:
 * mrc_loss_after_verdicts()), else NULL.
 */
static bool req_to_pass_cuts(struct mrc_conn *c, const struct req_to_pass *tp,
			     struct mrc_ev_path **only)
{
	struct mrc_ev_path *p;
	bool cut = false;
	u32 i;

	*only = NULL;
	if (tp->n > MRC_TO_PASS_MAX)
		return true;
	for (i = 0; i < tp->n; i++) {
		if (req_timeout_explained(c, tp->ev_idx[i], tp->tx_ns[i]))
			continue;
		p = mrc_ev_path_of(&c->evm, tp->ev_idx[i]);
		*only = !cut || *only == p ? p : NULL;
		cut = true;
	}
	return cut;
}

/**
 * mrc_req_on_timer() - expire retransmit deadlines.
 * @c: connection
 * @now: current time
 *
 * Losses whose reordering window ended are declared first
 * (mrc_loss_detect()). Each SENT packet past its deadline is lost: its EV
 * is reported silent (-> ASSUMED_BAD), one unit of the retry budget goes,
 * and it waits for a retransmission with its backoff advanced. A timeout
 * with the budget at zero fails the connection. The congestion control
 * hears about a pass with timeouts once, unless a path failure explains
 * every one of them (req_timeout_explained()). A pass without timeouts may
 * send the tail-loss probe (mrc_loss_tlp_fire()). What is still in flight
 * on paths retired meanwhile goes again (mrc_loss_after_verdicts()).
 */
void mrc_req_on_timer(struct mrc_conn *c, u64 now)
{
	struct mrc_req *r = &c->req;
	u64 next = MRC_NO_DEADLINE, window;
	struct mrc_ev_path *only;
	struct req_to_pass tp;
	struct mrc_tx_pkt *p;
	u32 psn;

	if (req_progress_expired(c, now)) {
		mrc_conn_fail(c, MRC_CONN_ERR_PROGRESS);
		return;
	}
	if (now >= r->rack_deadline)
		mrc_loss_detect(c, now);
	if (now < r->rto_deadline) {
		mrc_loss_tlp_fire(c, now);
		return;
	}
	window = mrc_loss_silence_window(c);
	if (window < mrc_req_rto(c))
		window = mrc_req_rto(c);
	tp.n = 0;
	for (psn = r->snd_una; psn != r->snd_nxt; psn = mrc_psn_add(psn, 1)) {
		p = mrc_txp(r, psn);
		if (p->state != MRC_TXP_SENT)
			continue;
		if (p->deadline_ns > now) {
			if (p->deadline_ns < next)
				next = p->deadline_ns;
			continue;
		}
		if (p->nack_wait) {
			/* Held packets never get here (no deadline). */
			if (r->rnr && psn == r->rnr_probe_psn)
				c->st.rnr_probes++;
			mrc_req_mark_lost(c, psn, MRC_RTX_NACK);
			continue;
		}
		c->st.timeouts++;
		if (!r->retry_left) {
			mrc_conn_fail(c, MRC_CONN_ERR_RETRY);
			return;
		}
		r->retry_left--;
		if (p->timeouts < 0xff)
			p->timeouts++;
		mrc_req_note_lost_tx(p, p->deadline_ns - p->tx_ns,
				     MRC_RTX_TIMEOUT);
		req_timeout_event(c, now, psn, p);
		p->to_sampled = mrc_ev_on_timeout(&c->evm, now, p->ev_idx,
						  p->tx_ns, window);
		if (tp.n < MRC_TO_PASS_MAX) {
			tp.ev_idx[tp.n] = p->ev_idx;
			tp.tx_ns[tp.n] = p->tx_ns;
		}
		tp.n++;
		mrc_req_mark_lost(c, psn, MRC_RTX_TIMEOUT);
	}
	r->rto_deadline = next;
	if (!tp.n) {
		mrc_loss_tlp_fire(c, now);
	} else if (!req_to_pass_cuts(c, &tp, &only)) {
		c->st.cwnd_cuts_spared++;
	} else {
		mrc_cc_on_timeout(&c->cc, now);
		if (only)
			only->to_cut_ns = now ? now : 1;
	}
	mrc_loss_after_verdicts(c, now);
}

/*
 * A plane went down: the window now drains through the planes left, and
 * the queueing part of the RTT (srtt - min RTT) grows by 1/@up, @up the
 * planes left up, before the estimator has seen a sample of it. Spraying
 * makes every plane's queue alike (the balance rule, MRC_FO_BALANCE, all
 * the more), so the RTT spread, rttvar, can be far below that growth. In
 * the simulator's model of the bench's plane-down cell (a 256 KiB window
 * on 4 planes of 50 Mbit/s, SRH headers, 12 ms srtt) the rule kept rttvar
 * near 1 ms, against 8 ms with the planes' uneven queues without it; the
 * RTO, at its 16.8 ms floor, fell below the 16.5-17.5 ms RTT that came
 * once the plane went down, and 39 packets timed out spuriously, together:
 * the window cut, their EVs condemned, duplicates in the queues (the
 * bench: 118.6 Mbit/s during the outage with the rule, 128.2 without;
 * uSID's smaller headers kept the RTT under the floor). The growth goes
 * into rttvar, which the RTO (mrc_req_rto()) and the loss inference
 * (mrc_req_loss.c) take four times; it decays as the samples show the new
 * RTT settle (req_rtt_update(), mrc_req_ack.c).
 */
static void req_plane_down_rtt(struct mrc_conn *c)
{
	struct mrc_req *r = &c->req;
	u32 up = 0;
	u64 v;
	u8 pl;

	for (pl = 0; pl < c->cfg.n_planes; pl++)
		up += (c->evm.plane_up >> pl) & 1u;
	if (!up || r->srtt_ns <= r->min_rtt_ns)
		return;
	v = r->rttvar_ns + mrc_div64(r->srtt_ns - r->min_rtt_ns, up);
	/* A flapping port adds up: at most srtt (an RTO of 5 srtt) from here. */
	if (v > r->srtt_ns)
		v = r->rttvar_ns > r->srtt_ns ? r->rttvar_ns : r->srtt_ns;
	r->rttvar_ns = v;
}

/**
 * mrc_req_plane_down() - re-send what is in flight on a dead plane.
 * @c: connection
 * @plane: the plane that went down
 * @was_up: it was up until now (not a repeated notification)
 *
 * Packets SENT on the plane are declared lost at once (no timeout, no EV
 * penalty, no retry budget) and retransmitted on the other planes. A plane
 * that was up until now also widens the RTT variance by the growth of the
 * queueing delay on the planes left (req_plane_down_rtt()).
 */
void mrc_req_plane_down(struct mrc_conn *c, u8 plane, bool was_up)
{
	struct mrc_req *r = &c->req;
	struct mrc_tx_pkt *p;
	u32 psn;

	if (was_up)
		req_plane_down_rtt(c);
	for (psn = r->snd_una; psn != r->snd_nxt; psn = mrc_psn_add(psn, 1)) {
		p = mrc_txp(r, psn);
		if (p->state == MRC_TXP_SENT &&
		    c->evm.ev[p->ev_idx].plane == plane)
			mrc_req_mark_lost(c, psn, MRC_RTX_PLANE_DOWN);
	}
}

/**
 * mrc_req_on_local_drop() - the host could not send @psn on @ev.
 * @c: connection
 * @now: current time
 * @psn: PSN of the data packet mrc_conn_poll_tx() gave the host
 * @ev: the EV it was given with
 *
 * The sending host's own queue (a full qdisc or device) refused the
 * packet: it never reached the network, so the path is not to blame and
 * waiting for a timeout would cost an RTO and an EV penalty for nothing.
 * The packet is lost now and retransmitted at the next poll_tx(); the
 * window shrinks by its size, as for a switch trimming it (our own egress
 * is the congested queue).
 *
 * Return: MRC_OK, or MRC_E_STALE if @psn is not a packet in flight last
 * sent on @ev (already acknowledged, or reported twice).
 */
int mrc_req_on_local_drop(struct mrc_conn *c, u64 now, u32 psn, u32 ev)
{
	struct mrc_req *r = &c->req;
	struct mrc_tx_pkt *p;

	psn &= MRC_PSN_MASK;
	if (!mrc_req_in_flight(r, psn))
		return MRC_E_STALE;
	p = mrc_txp(r, psn);
	if (p->state != MRC_TXP_SENT || c->evm.ev[p->ev_idx].value != ev)
		return MRC_E_STALE;
	c->st.tx_local_drops++;
	mrc_cc_on_nack(&c->cc, now, MRC_NACK_TRIMMED, p->len);
	mrc_req_mark_lost(c, psn, MRC_RTX_LOCAL);
	if (p->to_tx_ns) {
		/*
		 * The refused copy was the retransmission for a loss verdict
		 * still open: it never left, so the transmission that verdict
		 * was for is again the last one out there, and an ack of it
		 * proves the verdict spurious (req_check_spurious(),
		 * mrc_req_ack.c).
		 */
		p->tx_ns = p->to_tx_ns;
		p->tx_ts = p->to_tx_ts;
	}
	return MRC_OK;
}

/* Packets a message still needs: those handed out and the rest at @mtu. */
static u32 req_msg_pkts(const struct mrc_tx_msg *m, u32 mtu)
{
	u32 rest = m->len - m->seg_off;

	if (!m->len)
		return 1;
	return m->seg_pkts + (u32)mrc_div64((u64)rest + mtu - 1, mtu);
}

/**
 * mrc_req_set_mtu() - the path MTU dropped: smaller packets from now on.
 * @c: connection
 * @mtu: payload bytes per packet, below the current one
 *
 * Packets not yet cut from their message are cut at @mtu, also the rest
 * of a message half sent (offsets stay contiguous: the receiver places by
 * RETH.va and counts bytes, so packets of one message may differ in
 * size). A PSN keeps its size for life, so the packets in flight that are
 * larger than @mtu are declared lost at once, without EV penalty, window
 * cut or retry budget: a router dropped them for their size, which says
 * nothing about the path's health or its load; the host fragments their
 * retransmissions. Some of them may have passed on other paths: the
 * receiver drops those copies as duplicates (one window, once per drop).
 *
 * A flowcell's shorter last packet goes too when the packets before it in
 * its burst are too big: a flowcell leaves as one segmentation-offload
 * datagram, and a Linux router that forwards it whole (a veth fabric, or
 * GRO on the router's input) drops it whole with one Packet Too Big, the
 * small last segment included. Left alone, that segment cost a timeout
 * and its EV's standing (mrc_pmtu.sh: one timeout on plane 0 per dropped
 * flowcell, 2026-12-02). Its burst is known by what bursts share
 * (req_burst_next()): the message, the EV and the send time.
 *
 * Return: packets declared lost (>= 0), or MRC_E_INVAL (@mtu not below
 * the current MTU, below MRC_MTU_MIN, not a multiple of 4, or too small
 * for a queued message's packet count).
 */
int mrc_req_set_mtu(struct mrc_conn *c, u32 mtu)
{
	struct mrc_req *r = &c->req;
	bool big = false, tail;
	u16 big_slot = 0, big_ev = 0;
	struct mrc_tx_pkt *p;
	struct mrc_tx_msg *m;
	u64 big_tx = 0;
	u32 i, psn;
	int n = 0;

	if (mtu < MRC_MTU_MIN || mtu >= c->cfg.mtu || (mtu & 3))
		return MRC_E_INVAL;
	for (i = r->msg_seg; i < r->msg_count; i++) {
		m = &r->msgs[(r->msg_head + i) % r->msg_cap];
		if (req_msg_pkts(m, mtu) > MRC_MSG_PKTS_MAX)
			return MRC_E_INVAL;
	}
	for (i = r->msg_seg; i < r->msg_count; i++) {
		m = &r->msgs[(r->msg_head + i) % r->msg_cap];
		m->npkts = req_msg_pkts(m, mtu);
	}
	c->cfg.mtu = mtu;
	for (psn = r->snd_una; psn != r->snd_nxt; psn = mrc_psn_add(psn, 1)) {
		p = mrc_txp(r, psn);
		/* Sent right after a too-big packet of its own burst. */
		tail = big && p->tries == 1 && p->msg_slot == big_slot &&
		       p->ev_idx == big_ev && p->tx_ns == big_tx;
		big = false;
		if (p->state != MRC_TXP_SENT || (p->len <= mtu && !tail))
			continue;
		if (p->len > mtu && p->tries == 1) {
			big = true;
			big_slot = p->msg_slot;
			big_ev = p->ev_idx;
			big_tx = p->tx_ns;
		}
		mrc_req_mark_lost(c, psn, MRC_RTX_PMTU);
		n++;
	}
	return n;
}

/**
 * mrc_req_deadline() - the requester's next timer deadline.
 * @c: connection
 *
 * Return: earliest retransmit deadline (possibly early: a wake-up that
 * finds nothing due just recomputes it), or MRC_NO_DEADLINE.
 */
u64 mrc_req_deadline(const struct mrc_conn *c)
{
	u64 rto = c->req.inflight_pkts ? c->req.rto_deadline : MRC_NO_DEADLINE;
	u64 prog = req_progress_deadline(c);
	u64 loss = mrc_loss_deadline(c);

	if (loss < rto)
		rto = loss;
	return rto < prog ? rto : prog;
}

/**
 * mrc_req_poll_completion() - the oldest message, if fully acknowledged.
 * @c: connection
 * @ev: filled with MRC_EVT_MSG_COMPLETED
 *
 * Return: true if @ev was filled (the message leaves the ring).
 */
bool mrc_req_poll_completion(struct mrc_conn *c, struct mrc_event *ev)
{
	struct mrc_req *r = &c->req;
	const struct mrc_tx_msg *m;
	u32 last;

	if (!r->msg_seg)
		return false;
	m = &r->msgs[r->msg_head];
	last = mrc_psn_add(m->first_psn, m->npkts - 1);
	if (!mrc_psn_before(last, r->snd_una))
		return false;
	mrc_memset(ev, 0, sizeof(*ev));
	ev->type = MRC_EVT_MSG_COMPLETED;
	ev->time_ns = c->now;
	ev->u.msg.cookie = m->cookie;
	ev->u.msg.msn = m->msn;
	ev->u.msg.len = m->len;
	ev->u.msg.imm = m->imm;
	ev->u.msg.has_imm = m->has_imm;
	r->msg_head = (r->msg_head + 1) % r->msg_cap;
	r->msg_count--;
	r->msg_seg--;
	c->st.tx_msgs_completed++;
	return true;
}
