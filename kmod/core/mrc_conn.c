// SPDX-License-Identifier: GPL-2.0 OR MIT
/*
 * mrc_conn.c - the engine's public API: configuration, lifecycle, the
 * input dispatch and the output polls of struct mrc_conn.
 */
#include "mrc_core.h"

/**
 * mrc_conn_cfg_init() - a configuration with the documented defaults.
 * @cfg: filled
 * @n_planes: planes (clamped to 1..MRC_MAX_PLANES)
 *
 * 128 EVs split equally over the planes (at least 2 per plane), 3/4 of
 * them active; MTU 4096; MPR 1024; RTO 1.024 us << 10 (about 1 ms) with 3
 * linear retries and backoff up to x64; NSCC with the UEC defaults.
 */
void mrc_conn_cfg_init(struct mrc_conn_cfg *cfg, u8 n_planes)
{
	u32 per, act, total;

	if (n_planes < 1)
		n_planes = 1;
	if (n_planes > MRC_MAX_PLANES)
		n_planes = MRC_MAX_PLANES;
	mrc_memset(cfg, 0, sizeof(*cfg));
	cfg->local_conn_id = 1;
	cfg->peer_conn_id = 1;
	cfg->peer_qpn = 0x100;
	cfg->pkey = MRC_PKEY_DEFAULT;
	cfg->n_planes = n_planes;
	cfg->plane_up_mask = n_planes == 32 ? ~0u : (1u << n_planes) - 1;
	per = 128 / n_planes;
	if (per < 2)
		per = 2;
	act = per * 3 / 4;
	if (act < 1)
		act = 1;
	total = act * n_planes;
	cfg->ev_per_plane = (u16)per;
	cfg->ev_active_per_plane = (u16)act;
	cfg->ev_min_active = (u16)(total / 8 > 2 ? total / 8 : (total < 2 ? total : 2));
	cfg->failover = MRC_FO_ALL;
	cfg->probe_interval_ns = 1000000;
	cfg->probe_max_interval_ns = 64000000;
	cfg->mtu = 4096;
	cfg->mpr = 1024;
	cfg->tx_max_msgs = 256;
	cfg->rx_max_msgs = 256;
	cfg->rx_max_msg_len = 64u << 20;
	cfg->rto_exp = 10;
	cfg->rto_linear_retries = 3;
	cfg->rto_max_backoff = 6;
	cfg->retry_budget = 256;
	cfg->reo_wnd_pm = MRC_REO_WND_PM_DEFAULT;
	cfg->tlp = 1;
	cfg->progress_timeout_ns = 10000000000ull;
	cfg->sack_every_pkts = 4;
	cfg->sack_delay_ns = 20000;
	cfg->nack_oor_interval_ns = 100000;
	cfg->use_tseth = 1;
	cfg->cc_algo = MRC_CC_NSCC;
	mrc_cc_profile_defaults(&cfg->cc);
	cfg->seed = 1;
	cfg->event_mask = MRC_EVT_MASK_ALL;
	cfg->event_queue_len = 256;
}

/**
 * mrc_conn_cfg_check() - validate a configuration.
 * @cfg: configuration
 *
 * Return: MRC_OK or MRC_E_INVAL.
 */
int mrc_conn_cfg_check(const struct mrc_conn_cfg *cfg)
{
	u32 total, planes_mask;

	if (!cfg || cfg->n_planes < 1 || cfg->n_planes > MRC_MAX_PLANES)
		return MRC_E_INVAL;
	planes_mask = cfg->n_planes == 32 ? ~0u : (1u << cfg->n_planes) - 1;
	total = (u32)cfg->n_planes * cfg->ev_per_plane;
	if (!cfg->ev_per_plane || total > MRC_EV_MAX ||
	    !cfg->ev_active_per_plane ||
	    cfg->ev_active_per_plane > cfg->ev_per_plane ||
	    !cfg->ev_min_active ||
	    cfg->ev_min_active > (u32)cfg->ev_active_per_plane * cfg->n_planes ||
	    (cfg->plane_up_mask & ~planes_mask) ||
	    cfg->paths_per_plane > (1u << 24) ||
	    (cfg->failover & ~(u32)MRC_FO_ALL) ||
	    !cfg->probe_interval_ns ||
	    cfg->probe_max_interval_ns < cfg->probe_interval_ns)
		return MRC_E_INVAL;
	if (cfg->mtu < MRC_MTU_MIN || cfg->mtu > MRC_MTU_MAX ||
	    cfg->mpr < MRC_MPR_MIN || cfg->mpr > MRC_MPR_MAX ||
	    cfg->mpr % MRC_MPR_UNIT ||
	    cfg->local_init_psn > MRC_PSN_MASK ||
	    cfg->peer_init_psn > MRC_PSN_MASK)
		return MRC_E_INVAL;
	if (!cfg->tx_max_msgs || cfg->tx_max_msgs > MRC_MSGS_MAX ||
	    cfg->rx_max_msgs < 2 || cfg->rx_max_msgs > MRC_MSGS_MAX ||
	    (cfg->rx_max_msgs & (cfg->rx_max_msgs - 1)))
		return MRC_E_INVAL;
	if (cfg->rto_exp > MRC_RTO_EXP_MAX || cfg->rto_max_backoff > 16 ||
	    cfg->reo_wnd_pm > MRC_REO_WND_PM_MAX || cfg->tlp > 1 ||
	    !cfg->sack_every_pkts || !cfg->event_queue_len ||
	    cfg->event_queue_len > MRC_EVQ_MAX ||
	    cfg->peer_qpn > MRC_QPN_MASK || cfg->peer_qpn == MRC_QPN_EP ||
	    !mrc_cc_find(cfg->cc_algo))
		return MRC_E_INVAL;
	return MRC_OK;
}

/**
 * mrc_conn_create() - allocate and start a connection.
 * @cfg: configuration (copied)
 * @now: current time
 * @out: the new connection
 *
 * The only function that allocates; everything is sized here.
 *
 * Return: MRC_OK, MRC_E_INVAL or MRC_E_NOMEM.
 */
int mrc_conn_create(const struct mrc_conn_cfg *cfg, u64 now,
		    struct mrc_conn **out)
{
	struct mrc_conn *c;
	int rc;

	if (!out)
		return MRC_E_INVAL;
	*out = NULL;
	rc = mrc_conn_cfg_check(cfg);
	if (rc)
		return rc;
	c = mrc_plat_zalloc(sizeof(*c), cfg->alloc_may_sleep);
	if (!c)
		return MRC_E_NOMEM;
	c->cfg = *cfg;
	c->now = now;
	c->rto_base_ns = 1024ull << cfg->rto_exp;
	mrc_rng_seed(&c->rng, cfg->seed);
	c->evq.cap = cfg->event_queue_len;
	c->evq.mask = cfg->event_mask;
	c->evq.ring = mrc_plat_zalloc(sizeof(*c->evq.ring) * c->evq.cap,
				      cfg->alloc_may_sleep);
	if (!c->evq.ring) {
		mrc_conn_destroy(c);
		return MRC_E_NOMEM;
	}
	rc = mrc_ev_init(&c->evm, cfg, &c->rng, &c->evq);
	if (!rc)
		rc = mrc_cc_init(&c->cc, cfg->cc_algo, &cfg->cc, cfg->mtu, now);
	c->cc.share = cfg->iw_share;
	c->cc.share_state = cfg->iw_share ? MRC_CC_SHARE_IDLE :
					    MRC_CC_SHARE_DONE;
	if (!rc)
		rc = mrc_req_init(c);
	if (!rc)
		rc = mrc_resp_init(c);
	if (rc) {
		mrc_conn_destroy(c);
		return rc;
	}
	*out = c;
	return MRC_OK;
}

/**
 * mrc_conn_set_peer() - the peer's identifiers, learnt after creation.
 * @c: connection that has neither sent nor received anything yet
 * @peer_qpn: the peer's QPN (BTH.dest_qp of what we send)
 * @peer_conn_id: the peer's connection id
 * @peer_init_psn: the first PSN the peer sends
 *
 * A client knows these only from the answer to its connect request, which
 * arrives where the host cannot sleep; creating the engine there would
 * take its large allocations atomically. The host creates it beforehand,
 * where it may sleep, with placeholders (any valid values), and fills in
 * the peer's when the answer comes.
 *
 * Return: MRC_OK, or MRC_E_INVAL (a value out of range, or the connection
 * already moved a packet: its receive window is anchored at the PSN).
 */
int mrc_conn_set_peer(struct mrc_conn *c, u32 peer_qpn, u16 peer_conn_id,
		      u32 peer_init_psn)
{
	const struct mrc_conn_stats *st;

	if (!c || peer_qpn > MRC_QPN_MASK || peer_qpn == MRC_QPN_EP ||
	    peer_init_psn > MRC_PSN_MASK)
		return MRC_E_INVAL;
	st = &c->st;
	if (st->tx_data_pkts || st->tx_sacks || st->tx_nacks || st->tx_probes ||
	    st->rx_data_pkts || st->rx_sacks || st->rx_nacks || st->rx_probes ||
	    st->rx_stale || st->rx_proto_err)
		return MRC_E_INVAL;
	c->cfg.peer_qpn = peer_qpn;
	c->cfg.peer_conn_id = peer_conn_id;
	c->cfg.peer_init_psn = peer_init_psn;
	c->resp.cack = mrc_psn_add(peer_init_psn, MRC_PSN_MASK);
	return MRC_OK;
}

/**
 * mrc_conn_destroy() - free a connection and everything it owns.
 * @conn: connection, or NULL
 */
void mrc_conn_destroy(struct mrc_conn *conn)
{
	if (!conn)
		return;
	mrc_cc_share_leave(&conn->cc);
	mrc_resp_destroy(conn);
	mrc_req_destroy(conn);
	mrc_ev_destroy(&conn->evm);
	mrc_plat_free(conn->evq.ring);
	mrc_plat_free(conn);
}

/**
 * mrc_conn_fail() - move the connection to the failed state.
 * @c: connection
 * @reason: enum mrc_conn_error
 *
 * The first reason sticks; MRC_EVT_CONN_ERROR reports it once.
 */
void mrc_conn_fail(struct mrc_conn *c, u8 reason)
{
	if (!c->error)
		c->error = reason;
}

static void conn_tick(struct mrc_conn *c, u64 now)
{
	if (now > c->now)
		c->now = now;
}

/**
 * mrc_conn_send() - queue a message.
 * @conn: connection
 * @now: current time
 * @len: message length in bytes (0 allowed: one empty packet)
 * @imm: immediate data, sent if @flags has MRC_SEND_IMM
 * @flags: MRC_SEND_*
 * @cookie: host handle: in every data tx desc and in the completion
 * @msn_out: if not NULL, the message's MSN
 *
 * Only metadata is queued; the host keeps the bytes until the
 * MRC_EVT_MSG_COMPLETED event for this message.
 *
 * Return: MRC_OK, MRC_E_AGAIN (tx_max_msgs messages pending), MRC_E_TOOBIG,
 * MRC_E_INVAL or MRC_E_CONN.
 */
int mrc_conn_send(struct mrc_conn *conn, u64 now, u32 len, u32 imm,
		  u32 flags, u64 cookie, u16 *msn_out)
{
	if (flags & ~MRC_SEND_IMM)
		return MRC_E_INVAL;
	if (conn->error)
		return MRC_E_CONN;
	conn_tick(conn, now);
	return mrc_req_queue(conn, len, imm, flags & MRC_SEND_IMM, cookie,
			     msn_out);
}

/**
 * mrc_conn_poll_tx() - the next packet to emit.
 * @conn: connection
 * @now: current time
 * @desc: filled on success
 *
 * Control packets (NACKs, probe answers, SACKs) first, then probes,
 * retransmissions and new data. Control packets ignore the room mask; data
 * and probes only use planes with room.
 *
 * After a connection error only the queued NACKs and probe answers are
 * still returned (the UNEXP_EVENT NACK tells the peer), then MRC_E_CONN.
 *
 * Return: MRC_OK with @desc filled, MRC_E_AGAIN (nothing now) or
 * MRC_E_CONN.
 */
int mrc_conn_poll_tx(struct mrc_conn *conn, u64 now, struct mrc_tx_desc *desc)
{
	if (conn->error) {
		/* Queued NACKs (UNEXP_EVENT above all) still tell the peer. */
		if (conn->resp.ctl_count &&
		    mrc_resp_poll_tx(conn, now, desc) == MRC_OK)
			return MRC_OK;
		return MRC_E_CONN;
	}
	conn_tick(conn, now);
	if (mrc_resp_poll_tx(conn, now, desc) == MRC_OK)
		return MRC_OK;
	return mrc_req_poll_tx(conn, now, desc);
}

/**
 * mrc_conn_poll_tx_burst() - the next packets to emit, as a flowcell.
 * @conn: connection
 * @now: current time
 * @desc: at least @max descriptors; filled on success
 * @max: longest burst the host takes (1 = mrc_conn_poll_tx())
 *
 * @desc[0] is what mrc_conn_poll_tx() returns. When it is the first
 * transmission of a data packet, up to @max - 1 more follow: consecutive
 * PSNs of the same message on the same EV, as long as the windows allow
 * them now, no retransmission waits and the EV stays GOOD. Every packet of
 * a burst but the last has the same encoded size and the last is not
 * larger, so the host can send the burst as one segmentation-offload
 * datagram of that segment size (a "flowcell": one EV pick for the
 * burst). A burst of one is MRC's per-packet spraying.
 *
 * Return: number of descriptors filled (1..@max), MRC_E_AGAIN, MRC_E_CONN
 * or MRC_E_INVAL (@max is 0).
 */
int mrc_conn_poll_tx_burst(struct mrc_conn *conn, u64 now,
			   struct mrc_tx_desc *desc, u32 max)
{
	int rc;

	if (!max)
		return MRC_E_INVAL;
	rc = mrc_conn_poll_tx(conn, now, desc);
	if (rc != MRC_OK)
		return rc;
	return (int)mrc_req_poll_burst(conn, now, desc, max);
}

/**
 * mrc_conn_burst_autosize() - the longest flowcell at the connection's rate
 * @conn: connection
 * @max: the longest flowcell the host takes, in packets
 * @seg: bytes of one full packet on the wire
 * @interval_ns: how long a flowcell may last at the connection's rate
 *	(0: @max, whatever the rate)
 *
 * A flowcell is one burst onto one path. TCP sizes its TSO skbs to about a
 * millisecond of its pacing rate (tcp_tso_autosize()); a flowcell is cut
 * the same way, to @interval_ns of one plane's share of the connection's
 * rate (window over smoothed RTT, over the planes configured: a plane
 * down makes flowcells shorter than they could be, never longer). At a
 * slow path's rate a flowcell of 32 packets is milliseconds of one path's
 * line time in one go: the path's queue takes the whole burst at once,
 * and a shaper whose bucket holds less cuts it into packets again, each
 * forwarded on its own from there (tbf at 50 Mbit/s with a 32 KB bucket
 * on each of 4 planes: 71 Mbit/s with flowcells of 32 packets, 154 with
 * 16, TCP x4 160, in one boot; Documentation/networking/mrc-datapath.rst).
 *
 * The floor is MRC_BURST_AUTOSIZE_MIN packets, or as many as hold
 * MRC_BURST_AUTOSIZE_MIN_BYTES where that is fewer, but at least
 * MRC_BURST_AUTOSIZE_MIN_PKTS. A floor of 8 packets alone never cut a
 * flowcell at MTU 9000, where the host's holds 6: their 53 KB bursts into
 * one plane's queue left 149-168 of the 200 Mbit/s above, 2 packets
 * 188-192 (the same document).
 *
 * Before the first RTT sample: @max. An @interval_ns above
 * MRC_BURST_AUTOSIZE_INTERVAL_MAX (about a second) counts as that.
 *
 * Return: 1..@max (@max if it is 0).
 */
u32 mrc_conn_burst_autosize(const struct mrc_conn *conn, u32 max, u32 seg,
			    u64 interval_ns)
{
	u64 srtt = conn->req.srtt_ns, n;
	u32 least;

	if (!interval_ns || !srtt || !seg)
		return max;
	least = MRC_BURST_AUTOSIZE_MIN_BYTES / seg;
	if (least > MRC_BURST_AUTOSIZE_MIN)
		least = MRC_BURST_AUTOSIZE_MIN;
	if (least < MRC_BURST_AUTOSIZE_MIN_PKTS)
		least = MRC_BURST_AUTOSIZE_MIN_PKTS;
	if (max <= least)
		return max;
	/* cwnd <= 2^30 and interval <= 2^30 ns: the product fits in 64 bits. */
	if (interval_ns > MRC_BURST_AUTOSIZE_INTERVAL_MAX)
		interval_ns = MRC_BURST_AUTOSIZE_INTERVAL_MAX;
	n = mrc_div64(mrc_div64((u64)mrc_cc_cwnd(&conn->cc) * interval_ns,
				srtt), (u64)seg * (conn->cfg.n_planes ?: 1));
	if (n < least)
		n = least;
	return n < max ? (u32)n : max;
}

/**
 * mrc_conn_rx() - a decoded packet arrived for this connection.
 * @conn: connection
 * @now: current time
 * @pkt: decoded packet (mrc_pkt_decode*()); the host demultiplexed it by
 *	BTH.dest_qp
 * @rx_ev: EV it arrived with (UDP source port + flow label)
 * @rx_flags: MRC_RXF_* (ECN CE, trimmed, trimmed at the last hop)
 *
 * Return: enum mrc_rx_verdict (>= 0) for data packets (whether and how to
 * place the payload), MRC_RX_CONSUMED for control packets, or a negative
 * enum mrc_err: MRC_E_STALE (ignored), MRC_E_PROTO (dropped, counted),
 * MRC_E_CONN (failed connection).
 */
int mrc_conn_rx(struct mrc_conn *conn, u64 now, const struct mrc_pkt *pkt,
		u32 rx_ev, u32 rx_flags)
{
	u8 op;
	int rc;

	if (!pkt)
		return MRC_E_INVAL;
	if (conn->error)
		return MRC_E_CONN;
	conn_tick(conn, now);
	op = pkt->bth.opcode;
	if (mrc_op_is_data(op))
		return mrc_resp_on_data(conn, now, pkt, rx_ev, rx_flags);
	switch (op) {
	case MRC_OP_SACK:
		rc = mrc_req_on_sack(conn, now, &pkt->sack);
		return rc < 0 ? rc : MRC_RX_CONSUMED;
	case MRC_OP_NACK:
		rc = mrc_req_on_nack(conn, now, &pkt->nack);
		return rc < 0 ? rc : MRC_RX_CONSUMED;
	case MRC_OP_PROBE:
		return mrc_resp_on_probe(conn, now, pkt, rx_ev, rx_flags);
	default:
		/* ACK and endpoint operations are not connection traffic. */
		conn->st.rx_stale++;
		return MRC_E_STALE;
	}
}

/**
 * mrc_conn_on_timer() - the host timer fired (or any time: it is idempotent).
 * @conn: connection
 * @now: current time
 */
void mrc_conn_on_timer(struct mrc_conn *conn, u64 now)
{
	if (conn->error)
		return;
	conn_tick(conn, now);
	mrc_resp_on_timer(conn, now);
	mrc_req_on_timer(conn, now);
}

/**
 * mrc_conn_flush_acks() - make the acknowledgements coalescing holds back due
 * @conn: connection
 *
 * Every SACK still owed (waiting for sack_every_pkts, sack_every_bytes or
 * sack_delay_ns) is emitted by the next mrc_conn_poll_tx() calls. For a host
 * about to close: the peer must see them before the close notification, or
 * it would take its delivered messages for lost.
 */
void mrc_conn_flush_acks(struct mrc_conn *conn)
{
	if (conn->error)
		return;
	mrc_resp_flush(conn);
}

/**
 * mrc_conn_next_deadline() - when the host should call mrc_conn_on_timer().
 * @conn: connection
 *
 * Call after draining mrc_conn_poll_tx(). A probe that is due but blocked
 * by the room mask is left out (set_tx_room() unblocks it, then poll tx).
 *
 * Return: absolute time in ns, or MRC_NO_DEADLINE.
 */
u64 mrc_conn_next_deadline(const struct mrc_conn *conn)
{
	u64 d, t;

	if (conn->error)
		return MRC_NO_DEADLINE;
	d = mrc_req_deadline(conn);
	t = mrc_resp_deadline(conn);
	if (t < d)
		d = t;
	t = conn->evm.probe_deadline;
	if (t > conn->now && t < d)
		d = t;
	return d;
}

/**
 * mrc_conn_poll_event() - the next event.
 * @conn: connection
 * @ev: filled on success
 *
 * Order: the connection error (once), queued informational events, message
 * completions (send order), deliveries (MSN order). Completions and
 * deliveries are derived from protocol state and are never dropped;
 * informational events are dropped (counted) if the host lets the queue
 * fill.
 *
 * Return: MRC_OK with @ev filled, or MRC_E_AGAIN.
 */
int mrc_conn_poll_event(struct mrc_conn *conn, struct mrc_event *ev)
{
	if (conn->error && !conn->error_reported) {
		conn->error_reported = 1;
		mrc_memset(ev, 0, sizeof(*ev));
		ev->type = MRC_EVT_CONN_ERROR;
		ev->time_ns = conn->now;
		ev->u.error.reason = conn->error;
		return MRC_OK;
	}
	if (mrc_evq_pop(&conn->evq, ev))
		return MRC_OK;
	if (mrc_req_poll_completion(conn, ev))
		return MRC_OK;
	if (mrc_resp_poll_delivery(conn, ev))
		return MRC_OK;
	return MRC_E_AGAIN;
}

/**
 * mrc_conn_set_tx_room() - planes on which the host can transmit now.
 * @conn: connection
 * @plane_mask: bit p = plane p has room (initially all ones)
 */
void mrc_conn_set_tx_room(struct mrc_conn *conn, u32 plane_mask)
{
	mrc_ev_set_room(&conn->evm, plane_mask);
}

/**
 * mrc_conn_tx_dropped() - the host could not send a data packet.
 * @conn: connection
 * @now: current time
 * @psn: PSN of the packet (struct mrc_tx_desc pkt.bth.psn)
 * @ev: the EV it was given with (struct mrc_tx_desc ev)
 *
 * For a local refusal only (the host's qdisc or device was full): the
 * packet is retransmitted at the next mrc_conn_poll_tx() on a fresh EV,
 * the EV it was refused on is not penalised, the window shrinks by the
 * packet. A host that keeps refusing should also close the plane's room
 * (mrc_conn_set_tx_room()) for a while, so that the retransmission is not
 * refused again at once.
 *
 * Return: MRC_OK, MRC_E_STALE (not in flight on @ev) or MRC_E_CONN.
 */
int mrc_conn_tx_dropped(struct mrc_conn *conn, u64 now, u32 psn, u32 ev)
{
	if (conn->error)
		return MRC_E_CONN;
	conn_tick(conn, now);
	return mrc_req_on_local_drop(conn, now, psn, ev);
}

/**
 * mrc_conn_tx_congested() - the host's own queue took data packets but
 * dropped others to make room for them.
 * @conn: connection
 * @now: current time
 * @bytes: bytes of the data packets it took
 *
 * For NET_XMIT_CN: a queue at its limit (fq_codel, the default qdisc of
 * systemd hosts, drops from the head of its fattest flow, most likely one
 * of our EVs) took the packets and dropped others. Which ones the host
 * cannot tell, so nothing is declared lost here (loss detection finds
 * them) and no EV is blamed; the window shrinks by @bytes, as for packets
 * trimmed by a switch, since the sender's own egress is the congested
 * queue. TCP enters CWR on the same signal.
 *
 * Return: MRC_OK or MRC_E_CONN.
 */
int mrc_conn_tx_congested(struct mrc_conn *conn, u64 now, u32 bytes)
{
	if (conn->error)
		return MRC_E_CONN;
	conn_tick(conn, now);
	conn->st.tx_local_cn++;
	mrc_cc_on_nack(&conn->cc, now, MRC_NACK_TRIMMED, bytes);
	return MRC_OK;
}

/**
 * mrc_conn_set_mtu() - the path MTU dropped (an ICMPv6 Packet Too Big).
 * @conn: connection
 * @now: current time
 * @mtu: payload bytes per data packet from now on (a multiple of 4, at
 *	least MRC_MTU_MIN, below the current MTU: it never grows again)
 *
 * New packets, including the rest of a message half sent, are cut at
 * @mtu; packets in flight that are larger, and the shorter last packet of
 * a flowcell whose other packets are, are retransmitted at once (cause
 * MRC_RTX_PMTU) without blaming their EVs. The host keeps sending
 * those at their size, fragmented below the new MTU.
 *
 * Return: packets queued for retransmission (>= 0), MRC_E_INVAL or
 * MRC_E_CONN.
 */
int mrc_conn_set_mtu(struct mrc_conn *conn, u64 now, u32 mtu)
{
	if (conn->error)
		return MRC_E_CONN;
	conn_tick(conn, now);
	return mrc_req_set_mtu(conn, mtu);
}

/**
 * mrc_conn_tx_recent() - was @psn sent lately? For a host checking that an
 * ICMP error quotes a packet of this connection (a forger must guess the
 * PSN within a window, as TCP's within snd_una..snd_nxt).
 * @conn: connection
 * @psn: a PSN (BTH.psn)
 *
 * A copy of a packet that was acknowledged meanwhile (a retransmission
 * that raced its acknowledgment, a flowcell whose other packets went
 * through) still counts: the error says as much about the path.
 *
 * Return: true if @psn is one of the last ring-size PSNs handed out.
 */
bool mrc_conn_tx_recent(const struct mrc_conn *conn, u32 psn)
{
	const struct mrc_req *r = &conn->req;
	s32 d = mrc_psn_diff(r->snd_nxt, psn & MRC_PSN_MASK);

	return d > 0 && d <= (s32)r->ring_mask + 1;
}

/**
 * mrc_conn_set_plane_up() - a plane's port changed state.
 * @conn: connection
 * @now: current time
 * @plane: plane index
 * @up: new state
 *
 * Down: the plane's EVs are masked (they keep their states) and every
 * packet in flight on it is queued for retransmission on the other planes
 * at once, without EV penalty or retry budget; the RTO widens by the
 * queueing delay the planes left will add (mrc_req_plane_down()). Up: the
 * EVs are used again.
 *
 * Return: MRC_OK or MRC_E_INVAL.
 */
int mrc_conn_set_plane_up(struct mrc_conn *conn, u64 now, u8 plane, bool up)
{
	bool was_up;

	if (plane >= conn->cfg.n_planes)
		return MRC_E_INVAL;
	conn_tick(conn, now);
	was_up = (conn->evm.plane_up >> plane) & 1u;
	mrc_ev_set_plane_up(&conn->evm, now, plane, up);
	if (!up)
		mrc_req_plane_down(conn, plane, was_up);
	return MRC_OK;
}

/**
 * mrc_conn_ev_set_denied() - administratively exclude or readmit an EV.
 * @conn: connection
 * @now: current time
 * @index: EV index (0..mrc_conn_num_evs() - 1)
 * @denied: true: DENIED (leaves the rotation, a same-plane backup replaces
 *	it; the floor does not apply); false: back to GOOD
 *
 * Return: MRC_OK or MRC_E_INVAL.
 */
int mrc_conn_ev_set_denied(struct mrc_conn *conn, u64 now, u16 index,
			   bool denied)
{
	conn_tick(conn, now);
	return mrc_ev_set_denied(&conn->evm, now, index, denied);
}

/**
 * mrc_conn_failed() - has the connection failed?
 * @conn: connection
 *
 * Return: true once a connection error happened.
 */
bool mrc_conn_failed(const struct mrc_conn *conn)
{
	return conn->error != MRC_CONN_ERR_NONE;
}

/**
 * mrc_conn_tx_msgs_free() - room in the send ring.
 * @conn: connection
 *
 * Return: how many more mrc_conn_send() calls would be accepted.
 */
u32 mrc_conn_tx_msgs_free(const struct mrc_conn *conn)
{
	return conn->req.msg_cap - conn->req.msg_count;
}

/**
 * mrc_conn_get_stats() - snapshot the counters.
 * @conn: connection
 * @st: filled
 */
void mrc_conn_get_stats(const struct mrc_conn *conn, struct mrc_conn_stats *st)
{
	const struct mrc_req *r = &conn->req;

	*st = conn->st;
	st->events_dropped = conn->evq.dropped;
	st->retry_left = r->retry_left;
	st->inflight_bytes = r->inflight_bytes;
	st->inflight_pkts = r->inflight_pkts;
	st->cwnd_bytes = mrc_cc_cwnd(&conn->cc);
	st->iw_share_cuts = conn->cc.cnt.share_cuts;
	st->paths_retired = conn->evm.paths_retired;
	st->paths_gray = conn->evm.paths_gray;
	st->send_window = r->send_wnd;
	st->srtt_ns = r->srtt_ns;
	st->rttvar_ns = r->rttvar_ns;
	st->min_rtt_ns = r->min_rtt_ns;
	st->rto_ns = mrc_req_rto(conn);
	st->snd_una = r->snd_una;
	st->snd_nxt = r->snd_nxt;
	st->rcv_cack = conn->resp.cack;
	st->error = conn->error;
}

/**
 * mrc_conn_app_limited() - is the sender below its congestion window?
 * @conn: connection
 * @cwnd: out: the congestion window in bytes (after receiver penalty)
 *
 * A cheap question for the host's buffer sizing, asked as messages
 * complete: a sender with room for another full packet in its congestion
 * window and in the receiver's window (MPR) is held back by what it was
 * given to send, not by the network or the receiver.
 *
 * Return: true if both windows would let more go now.
 */
bool mrc_conn_app_limited(const struct mrc_conn *conn, u32 *cwnd)
{
	const struct mrc_req *r = &conn->req;

	*cwnd = mrc_cc_cwnd(&conn->cc);
	return (u64)r->inflight_bytes + conn->cfg.mtu <= *cwnd &&
	       mrc_psn_diff(r->snd_nxt, r->snd_una) + 1 < (s32)r->send_wnd;
}

/**
 * mrc_conn_rx_drop_counts() - the two receive-drop counters alone.
 * @conn: connection
 * @oor: out: data packets outside the receive window
 * @dup: out: duplicate data packets
 */
void mrc_conn_rx_drop_counts(const struct mrc_conn *conn, u64 *oor, u64 *dup)
{
	*oor = conn->st.rx_oor_pkts;
	*dup = conn->st.rx_dup_pkts;
}

/**
 * mrc_conn_set_orphan() - the application closed the connection.
 * @conn: connection
 */
void mrc_conn_set_orphan(struct mrc_conn *conn)
{
	conn->req.orphan = 1;
}

/**
 * mrc_conn_num_evs() - size of the EV table.
 * @conn: connection
 *
 * Return: n_planes * ev_per_plane.
 */
u16 mrc_conn_num_evs(const struct mrc_conn *conn)
{
	return conn->evm.n_ev;
}

/**
 * mrc_conn_get_ev() - snapshot one EV.
 * @conn: connection
 * @index: EV index
 * @info: filled
 *
 * Return: MRC_OK or MRC_E_INVAL.
 */
int mrc_conn_get_ev(const struct mrc_conn *conn, u16 index,
		    struct mrc_ev_info *info)
{
	if (index >= conn->evm.n_ev)
		return MRC_E_INVAL;
	mrc_ev_get_info(&conn->evm, index, info);
	return MRC_OK;
}

/**
 * mrc_conn_find_ev() - index of an EV value.
 * @conn: connection
 * @ev: EV value
 *
 * Return: the index, or MRC_E_INVAL if @ev is not one of ours.
 */
int mrc_conn_find_ev(const struct mrc_conn *conn, u32 ev)
{
	int idx = mrc_ev_find(&conn->evm, ev);

	return idx < 0 ? MRC_E_INVAL : idx;
}

/**
 * mrc_conn_get_plane() - snapshot one plane.
 * @conn: connection
 * @plane: plane index
 * @info: filled
 *
 * Return: MRC_OK or MRC_E_INVAL.
 */
int mrc_conn_get_plane(const struct mrc_conn *conn, u8 plane,
		       struct mrc_plane_info *info)
{
	if (plane >= conn->cfg.n_planes)
		return MRC_E_INVAL;
	mrc_ev_get_plane(&conn->evm, plane, info);
	return MRC_OK;
}

/**
 * mrc_ev_state_name() - printable EV state.
 * @state: enum mrc_ev_state
 *
 * Return: a static string.
 */
const char *mrc_ev_state_name(u8 state)
{
	switch (state) {
	case MRC_EV_GOOD:
		return "good";
	case MRC_EV_SKIP:
		return "skip";
	case MRC_EV_ASSUMED_BAD:
		return "assumed_bad";
	case MRC_EV_DENIED:
		return "denied";
	default:
		return "?";
	}
}

/**
 * mrc_event_type_name() - printable event type.
 * @type: enum mrc_event_type
 *
 * Return: a static string.
 */
const char *mrc_event_type_name(u8 type)
{
	static const char *const names[MRC_EVT_NR] = {
		[MRC_EVT_NONE] = "none",
		[MRC_EVT_EV_STATE] = "ev_state",
		[MRC_EVT_PLANE] = "plane",
		[MRC_EVT_MSG_COMPLETED] = "msg_completed",
		[MRC_EVT_MSG_DELIVERED] = "msg_delivered",
		[MRC_EVT_CONN_ERROR] = "conn_error",
		[MRC_EVT_PROBE_SENT] = "probe_sent",
		[MRC_EVT_PROBE_ANSWERED] = "probe_answered",
		[MRC_EVT_RTT_SAMPLE] = "rtt_sample",
		[MRC_EVT_TIMEOUT] = "timeout",
	};

	return type < MRC_EVT_NR ? names[type] : "?";
}
