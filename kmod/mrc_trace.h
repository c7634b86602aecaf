/* SPDX-License-Identifier: GPL-2.0 */
/*
 * mrc_trace.h - tracepoints of mrc.ko (TRACE_SYSTEM mrc).
 *
 * Every argument is a plain scalar, in the order below, so that raw_tp BPF
 * programs (which see the TP_PROTO arguments, not the trace entry) and the
 * tracefs format stay an ABI that does not depend on internal structures.
 * Documentation/networking/mrc-telemetry.rst describes each event. The
 * identifiers shared by all events:
 *
 *   netns: inode number of the network namespace (net->ns.inum)
 *   qpn:   local QPN of the connection (unique within the namespace)
 *   conn:  local connection id
 *
 * Call them through the helpers of mrc_telemetry.h; only mrc_trace.c
 * defines CREATE_TRACE_POINTS.
 */
#undef TRACE_SYSTEM
#define TRACE_SYSTEM mrc

#if !defined(_MRC_TRACE_H) || defined(TRACE_HEADER_MULTI_READ)
#define _MRC_TRACE_H

#include <linux/tracepoint.h>

TRACE_EVENT(mrc_pkt_sent,
	    TP_PROTO(u32 netns, u32 qpn, u16 conn, u32 ev, u8 plane, u8 kind,
		     u32 psn, u32 bytes, u8 rtx),
	    TP_ARGS(netns, qpn, conn, ev, plane, kind, psn, bytes, rtx),
	    TP_STRUCT__entry(__field(u32, netns)
			     __field(u32, qpn)
			     __field(u16, conn)
			     __field(u32, ev)
			     __field(u8, plane)
			     __field(u8, kind)
			     __field(u32, psn)
			     __field(u32, bytes)
			     __field(u8, rtx)),
	    TP_fast_assign(__entry->netns = netns;
			   __entry->qpn = qpn;
			   __entry->conn = conn;
			   __entry->ev = ev;
			   __entry->plane = plane;
			   __entry->kind = kind;
			   __entry->psn = psn;
			   __entry->bytes = bytes;
			   __entry->rtx = rtx;),
	    TP_printk("netns=%u qpn=%u conn=%u ev=0x%x plane=%u kind=%s psn=%u bytes=%u rtx=%u",
		      __entry->netns, __entry->qpn, __entry->conn, __entry->ev,
		      __entry->plane,
		      __print_symbolic(__entry->kind,
				       { 1, "data" }, { 2, "sack" },
				       { 3, "nack" }, { 4, "probe" }),
		      __entry->psn, __entry->bytes, __entry->rtx)
);

TRACE_EVENT(mrc_ack_rcvd,
	    TP_PROTO(u32 netns, u32 qpn, u16 conn, u32 ev, u8 plane, u8 kind,
		     u8 reason, u8 ecn, u32 psn),
	    TP_ARGS(netns, qpn, conn, ev, plane, kind, reason, ecn, psn),
	    TP_STRUCT__entry(__field(u32, netns)
			     __field(u32, qpn)
			     __field(u16, conn)
			     __field(u32, ev)
			     __field(u8, plane)
			     __field(u8, kind)
			     __field(u8, reason)
			     __field(u8, ecn)
			     __field(u32, psn)),
	    TP_fast_assign(__entry->netns = netns;
			   __entry->qpn = qpn;
			   __entry->conn = conn;
			   __entry->ev = ev;
			   __entry->plane = plane;
			   __entry->kind = kind;
			   __entry->reason = reason;
			   __entry->ecn = ecn;
			   __entry->psn = psn;),
	    TP_printk("netns=%u qpn=%u conn=%u ev=0x%x plane=%u kind=%s reason=0x%x ecn=%u psn=%u",
		      __entry->netns, __entry->qpn, __entry->conn, __entry->ev,
		      __entry->plane,
		      __print_symbolic(__entry->kind,
				       { 1, "data" }, { 2, "sack" },
				       { 3, "nack" }, { 4, "probe" }),
		      __entry->reason, __entry->ecn, __entry->psn)
);

TRACE_EVENT(mrc_rtt,
	    TP_PROTO(u32 netns, u32 qpn, u16 conn, u32 ev, u8 plane, u32 psn,
		     u64 rtt_ns, u64 srtt_ns, u32 cwnd, u32 inflight),
	    TP_ARGS(netns, qpn, conn, ev, plane, psn, rtt_ns, srtt_ns, cwnd,
		    inflight),
	    TP_STRUCT__entry(__field(u32, netns)
			     __field(u32, qpn)
			     __field(u16, conn)
			     __field(u32, ev)
			     __field(u8, plane)
			     __field(u32, psn)
			     __field(u64, rtt_ns)
			     __field(u64, srtt_ns)
			     __field(u32, cwnd)
			     __field(u32, inflight)),
	    TP_fast_assign(__entry->netns = netns;
			   __entry->qpn = qpn;
			   __entry->conn = conn;
			   __entry->ev = ev;
			   __entry->plane = plane;
			   __entry->psn = psn;
			   __entry->rtt_ns = rtt_ns;
			   __entry->srtt_ns = srtt_ns;
			   __entry->cwnd = cwnd;
			   __entry->inflight = inflight;),
	    TP_printk("netns=%u qpn=%u conn=%u ev=0x%x plane=%u psn=%u rtt_ns=%llu srtt_ns=%llu cwnd=%u inflight=%u",
		      __entry->netns, __entry->qpn, __entry->conn, __entry->ev,
		      __entry->plane, __entry->psn, __entry->rtt_ns,
		      __entry->srtt_ns, __entry->cwnd, __entry->inflight)
);

TRACE_EVENT(mrc_ev_state,
	    TP_PROTO(u32 netns, u32 qpn, u16 conn, u32 ev, u16 index, u8 plane,
		     u8 old_state, u8 new_state, u8 cause, u8 active),
	    TP_ARGS(netns, qpn, conn, ev, index, plane, old_state, new_state,
		    cause, active),
	    TP_STRUCT__entry(__field(u32, netns)
			     __field(u32, qpn)
			     __field(u16, conn)
			     __field(u32, ev)
			     __field(u16, index)
			     __field(u8, plane)
			     __field(u8, old_state)
			     __field(u8, new_state)
			     __field(u8, cause)
			     __field(u8, active)),
	    TP_fast_assign(__entry->netns = netns;
			   __entry->qpn = qpn;
			   __entry->conn = conn;
			   __entry->ev = ev;
			   __entry->index = index;
			   __entry->plane = plane;
			   __entry->old_state = old_state;
			   __entry->new_state = new_state;
			   __entry->cause = cause;
			   __entry->active = active;),
	    TP_printk("netns=%u qpn=%u conn=%u ev=0x%x index=%u plane=%u %s->%s cause=%s active=%u",
		      __entry->netns, __entry->qpn, __entry->conn, __entry->ev,
		      __entry->index, __entry->plane,
		      __print_symbolic(__entry->old_state,
				       { 0, "good" }, { 1, "skip" },
				       { 2, "assumed_bad" }, { 3, "denied" }),
		      __print_symbolic(__entry->new_state,
				       { 0, "good" }, { 1, "skip" },
				       { 2, "assumed_bad" }, { 3, "denied" }),
		      __print_symbolic(__entry->cause,
				       { 0, "ecn" }, { 1, "trim" },
				       { 2, "skip_done" }, { 3, "timeout" },
				       { 4, "probe_ok" }, { 5, "admin" },
				       { 6, "promote" }, { 7, "floor_hold" },
				       { 8, "late_ack" }, { 9, "loss" },
				       { 10, "path" }, { 11, "gray" }),
		      __entry->active)
);

TRACE_EVENT(mrc_rto,
	    TP_PROTO(u32 netns, u32 qpn, u16 conn, u32 ev, u8 plane, u32 psn,
		     u8 count),
	    TP_ARGS(netns, qpn, conn, ev, plane, psn, count),
	    TP_STRUCT__entry(__field(u32, netns)
			     __field(u32, qpn)
			     __field(u16, conn)
			     __field(u32, ev)
			     __field(u8, plane)
			     __field(u32, psn)
			     __field(u8, count)),
	    TP_fast_assign(__entry->netns = netns;
			   __entry->qpn = qpn;
			   __entry->conn = conn;
			   __entry->ev = ev;
			   __entry->plane = plane;
			   __entry->psn = psn;
			   __entry->count = count;),
	    TP_printk("netns=%u qpn=%u conn=%u ev=0x%x plane=%u psn=%u count=%u",
		      __entry->netns, __entry->qpn, __entry->conn, __entry->ev,
		      __entry->plane, __entry->psn, __entry->count)
);

TRACE_EVENT(mrc_probe,
	    TP_PROTO(u32 netns, u32 qpn, u16 conn, u32 ev, u8 plane,
		     u8 answered, u64 rtt_ns),
	    TP_ARGS(netns, qpn, conn, ev, plane, answered, rtt_ns),
	    TP_STRUCT__entry(__field(u32, netns)
			     __field(u32, qpn)
			     __field(u16, conn)
			     __field(u32, ev)
			     __field(u8, plane)
			     __field(u8, answered)
			     __field(u64, rtt_ns)),
	    TP_fast_assign(__entry->netns = netns;
			   __entry->qpn = qpn;
			   __entry->conn = conn;
			   __entry->ev = ev;
			   __entry->plane = plane;
			   __entry->answered = answered;
			   __entry->rtt_ns = rtt_ns;),
	    TP_printk("netns=%u qpn=%u conn=%u ev=0x%x plane=%u %s rtt_ns=%llu",
		      __entry->netns, __entry->qpn, __entry->conn, __entry->ev,
		      __entry->plane, __entry->answered ? "answered" : "sent",
		      __entry->rtt_ns)
);

TRACE_EVENT(mrc_plane_state,
	    TP_PROTO(u32 netns, u32 qpn, u16 conn, u8 plane, u8 up),
	    TP_ARGS(netns, qpn, conn, plane, up),
	    TP_STRUCT__entry(__field(u32, netns)
			     __field(u32, qpn)
			     __field(u16, conn)
			     __field(u8, plane)
			     __field(u8, up)),
	    TP_fast_assign(__entry->netns = netns;
			   __entry->qpn = qpn;
			   __entry->conn = conn;
			   __entry->plane = plane;
			   __entry->up = up;),
	    TP_printk("netns=%u qpn=%u conn=%u plane=%u %s",
		      __entry->netns, __entry->qpn, __entry->conn,
		      __entry->plane, __entry->up ? "up" : "down")
);

TRACE_EVENT(mrc_conn_state,
	    TP_PROTO(u32 netns, u32 qpn, u16 conn, u8 up, int err),
	    TP_ARGS(netns, qpn, conn, up, err),
	    TP_STRUCT__entry(__field(u32, netns)
			     __field(u32, qpn)
			     __field(u16, conn)
			     __field(u8, up)
			     __field(int, err)),
	    TP_fast_assign(__entry->netns = netns;
			   __entry->qpn = qpn;
			   __entry->conn = conn;
			   __entry->up = up;
			   __entry->err = err;),
	    TP_printk("netns=%u qpn=%u conn=%u %s err=%d",
		      __entry->netns, __entry->qpn, __entry->conn,
		      __entry->up ? "up" : "down", __entry->err)
);

#endif /* _MRC_TRACE_H */

/* Out of tree: define_trace.h finds this file through -I$(src). */
#undef TRACE_INCLUDE_PATH
#define TRACE_INCLUDE_PATH .
#undef TRACE_INCLUDE_FILE
#define TRACE_INCLUDE_FILE mrc_trace
#include <trace/define_trace.h>
