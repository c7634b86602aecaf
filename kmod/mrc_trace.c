// SPDX-License-Identifier: GPL-2.0
/*
 * mrc_trace.c - the mrc:* tracepoints and the helpers that translate engine
 * descriptors, events and received control packets into them.
 *
 * mrc_telemetry.h says where the datapath calls each helper; the events
 * are an ABI described in Documentation/networking/mrc-telemetry.rst.
 */
#include "mrc_telemetry.h"

#define CREATE_TRACE_POINTS
#include "mrc_trace.h"

/**
 * mrc_trace_tx_desc() - mrc:mrc_pkt_sent for one engine transmit descriptor
 * @ids: the connection
 * @d: a descriptor returned by mrc_conn_poll_tx()
 *
 * Call once per descriptor in the mrc_conn_poll_tx() loop (through
 * mrc_tel_tx()). bytes is the payload length (data packets, 0 otherwise).
 */
void mrc_trace_tx_desc(const struct mrc_trace_ids *ids,
		       const struct mrc_tx_desc *d)
{
	u32 bytes = d->kind == MRC_TX_DATA ? d->payload_len : 0;

	trace_mrc_pkt_sent(ids->netns, ids->qpn, ids->conn, d->ev, d->plane,
			   d->kind, d->pkt.bth.psn, bytes, d->rtx);
}

/**
 * mrc_trace_engine_event() - the tracepoint of one engine event
 * @ids: the connection
 * @e: an event returned by mrc_conn_poll_event()
 *
 * Call once per event in the mrc_conn_poll_event() loop (through
 * mrc_tel_event()). Message and error events fire nothing here.
 */
void mrc_trace_engine_event(const struct mrc_trace_ids *ids,
			    const struct mrc_event *e)
{
	switch (e->type) {
	case MRC_EVT_EV_STATE:
		trace_mrc_ev_state(ids->netns, ids->qpn, ids->conn, e->u.ev.ev,
				   e->u.ev.index, e->u.ev.plane,
				   e->u.ev.old_state, e->u.ev.new_state,
				   e->u.ev.cause, e->u.ev.active);
		break;
	case MRC_EVT_PLANE:
		trace_mrc_plane_state(ids->netns, ids->qpn, ids->conn,
				      e->u.plane.plane, e->u.plane.up);
		break;
	case MRC_EVT_PROBE_SENT:
	case MRC_EVT_PROBE_ANSWERED:
		trace_mrc_probe(ids->netns, ids->qpn, ids->conn, e->u.probe.ev,
				mrc_ev_plane(e->u.probe.ev),
				e->type == MRC_EVT_PROBE_ANSWERED,
				e->u.probe.rtt_ns);
		break;
	case MRC_EVT_RTT_SAMPLE:
		trace_mrc_rtt(ids->netns, ids->qpn, ids->conn, e->u.rtt.ev,
			      mrc_ev_plane(e->u.rtt.ev), e->u.rtt.psn,
			      e->u.rtt.rtt_ns, e->u.rtt.srtt_ns,
			      e->u.rtt.cwnd, e->u.rtt.inflight);
		break;
	case MRC_EVT_TIMEOUT:
		trace_mrc_rto(ids->netns, ids->qpn, ids->conn, e->u.timeout.ev,
			      mrc_ev_plane(e->u.timeout.ev), e->u.timeout.psn,
			      e->u.timeout.count);
		break;
	default:
		break;
	}
}

/**
 * mrc_trace_rx_ctl() - mrc:mrc_ack_rcvd for a SACK or NACK the engine took
 * @ids: the connection
 * @pkt: the decoded packet given to mrc_conn_rx()
 * @rx_ret: what mrc_conn_rx() returned; negative (stale, protocol error,
 *	connection failed): nothing is traced, as the engine counted nothing
 *
 * Call right after mrc_conn_rx() (through mrc_tel_rx()), for every packet:
 * data and probes are ignored here. A SACK answering a probe is traced
 * with kind MRC_TX_PROBE and the probe id as psn.
 */
void mrc_trace_rx_ctl(const struct mrc_trace_ids *ids,
		      const struct mrc_pkt *pkt, int rx_ret)
{
	if (rx_ret < 0)
		return;
	if (pkt->bth.opcode == MRC_OP_SACK) {
		const struct mrc_sack *s = &pkt->sack;

		trace_mrc_ack_rcvd(ids->netns, ids->qpn, ids->conn, s->ev,
				   mrc_ev_plane(s->ev),
				   s->pr ? MRC_TX_PROBE : MRC_TX_SACK, 0,
				   s->pr ? MRC_ECN_NONE : s->ecn,
				   s->pr ? (u16)s->ack_psn_off : s->cack_psn);
	} else if (pkt->bth.opcode == MRC_OP_NACK) {
		const struct mrc_nack *n = &pkt->nack;

		trace_mrc_ack_rcvd(ids->netns, ids->qpn, ids->conn, n->ev,
				   mrc_ev_plane(n->ev), MRC_TX_NACK, n->reason,
				   MRC_ECN_NONE, n->nack_psn);
	}
}
