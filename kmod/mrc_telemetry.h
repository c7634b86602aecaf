/* SPDX-License-Identifier: GPL-2.0 */
/*
 * mrc_telemetry.h - how the datapath feeds the mrc:* tracepoints.
 *
 * Where each hook is called (connection lock held everywhere; all of them
 * are a patched-out static branch while no tracer or BPF program is
 * attached to the event they feed):
 *
 *  mrc_tel_tx()     in the mrc_conn_poll_tx() loop, once per descriptor,
 *                   for every kind (data, SACK, NACK, probe)
 *                   -> mrc_pkt_sent
 *  mrc_tel_event()  in the mrc_conn_poll_event() loop, once per event:
 *                   MRC_EVT_EV_STATE       -> mrc_ev_state
 *                   MRC_EVT_PLANE          -> mrc_plane_state
 *                   MRC_EVT_PROBE_SENT     -> mrc_probe (answered=0)
 *                   MRC_EVT_PROBE_ANSWERED -> mrc_probe (answered=1)
 *                   MRC_EVT_RTT_SAMPLE     -> mrc_rtt
 *                   MRC_EVT_TIMEOUT        -> mrc_rto
 *                   others: nothing
 *  mrc_tel_rx()     right after mrc_conn_rx() returned, with its return
 *                   value: for an accepted SACK/NACK -> mrc_ack_rcvd
 *  mrc_tel_conn()   when the connection is established (up=true, err=0),
 *                   fails (up=false, err=the positive errno given to the
 *                   socket) and is torn down after being established
 *                   (up=false, err=0) -> mrc_conn_state
 *
 * The engine only reports the informational events it is asked for: the
 * connection's event_mask must include MRC_TEL_EVENTS.
 */
#ifndef MRC_TELEMETRY_H
#define MRC_TELEMETRY_H

#include "core/mrc_engine.h"
#include "mrc_trace.h"

/* Engine events the telemetry hooks consume (OR into cfg.event_mask). */
#define MRC_TEL_EVENTS	((1u << MRC_EVT_EV_STATE) |		\
			 (1u << MRC_EVT_PLANE) |		\
			 (1u << MRC_EVT_PROBE_SENT) |		\
			 (1u << MRC_EVT_PROBE_ANSWERED) |	\
			 (1u << MRC_EVT_RTT_SAMPLE) |		\
			 (1u << MRC_EVT_TIMEOUT))

/**
 * struct mrc_trace_ids - identifies a connection in every mrc:* event
 * @netns: inode number of the network namespace (net->ns.inum)
 * @qpn:   local QPN
 * @conn:  local connection id
 */
struct mrc_trace_ids {
	u32 netns;
	u32 qpn;
	u16 conn;
};

void mrc_trace_tx_desc(const struct mrc_trace_ids *ids,
		       const struct mrc_tx_desc *d);
void mrc_trace_engine_event(const struct mrc_trace_ids *ids,
			    const struct mrc_event *e);
void mrc_trace_rx_ctl(const struct mrc_trace_ids *ids,
		      const struct mrc_pkt *pkt, int rx_ret);

/* True when any hook of mrc_tel_event() has a consumer. */
static inline bool mrc_tel_event_enabled(void)
{
	return trace_mrc_ev_state_enabled() || trace_mrc_plane_state_enabled() ||
	       trace_mrc_probe_enabled() || trace_mrc_rtt_enabled() ||
	       trace_mrc_rto_enabled();
}

static inline void mrc_tel_tx(const struct mrc_trace_ids *ids,
			      const struct mrc_tx_desc *d)
{
	if (trace_mrc_pkt_sent_enabled())
		mrc_trace_tx_desc(ids, d);
}

static inline void mrc_tel_event(const struct mrc_trace_ids *ids,
				 const struct mrc_event *e)
{
	if (mrc_tel_event_enabled())
		mrc_trace_engine_event(ids, e);
}

static inline void mrc_tel_rx(const struct mrc_trace_ids *ids,
			      const struct mrc_pkt *pkt, int rx_ret)
{
	if (trace_mrc_ack_rcvd_enabled())
		mrc_trace_rx_ctl(ids, pkt, rx_ret);
}

static inline void mrc_tel_conn(const struct mrc_trace_ids *ids, bool up,
				int err)
{
	trace_mrc_conn_state(ids->netns, ids->qpn, ids->conn, up, err);
}

#endif /* MRC_TELEMETRY_H */
