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

/*
 * No two events have the same fields, so no event class could serve two
 * of them without changing a format. What they share leads each of them,
 * with the same names, types and format: the connection (netns, qpn,
 * conn) and, in the events of one packet or one EV, the EV and its plane.
 * The wrappers below put these first, as SVC_RQST_ENDPOINT_* do in
 * sunrpc's trace header: MRC_TP_CONN_STRUCT__entry(fields) is
 * TP_STRUCT__entry() with the connection's fields before @fields, and so
 * on for TP_fast_assign() and TP_printk() (whose format and arguments
 * follow the connection's, after a space); the MRC_TP_EV_* ones add ev and
 * plane. They read the arguments of TP_PROTO by name, which each event
 * keeps spelled out (the raw_tp ABI): u32 netns, u32 qpn, u16 conn, then
 * u32 ev, u8 plane for MRC_TP_EV_*. An edit here edits every event's
 * format, which ebpf/, scripts/ and the selftests parse.
 */
#define MRC_TP_CONN_STRUCT__entry(fields...)				\
	TP_STRUCT__entry(__field(u32, netns)				\
			 __field(u32, qpn)				\
			 __field(u16, conn)				\
			 fields)

#define MRC_TP_CONN_fast_assign(assign...)				\
	TP_fast_assign(__entry->netns = netns;				\
		       __entry->qpn = qpn;				\
		       __entry->conn = conn;				\
		       assign)

#define MRC_TP_CONN_printk(fmt, args...)				\
	TP_printk("netns=%u qpn=%u conn=%u " fmt,			\
		  __entry->netns, __entry->qpn, __entry->conn, args)

#define MRC_TP_EV_STRUCT__entry(fields...)				\
	MRC_TP_CONN_STRUCT__entry(__field(u32, ev)			\
				  __field(u8, plane)			\
				  fields)

#define MRC_TP_EV_fast_assign(assign...)				\
	MRC_TP_CONN_fast_assign(__entry->ev = ev;			\
				__entry->plane = plane;			\
				assign)

#define MRC_TP_EV_printk(fmt, args...)					\
	MRC_TP_CONN_printk("ev=0x%x plane=%u " fmt,			\
			   __entry->ev, __entry->plane, args)

/* enum mrc_tx_kind: a packet sent, or an acknowledgment received. */
#define show_mrc_tx_kind(kind)						\
	__print_symbolic(kind,						\
			 { 1, "data" }, { 2, "sack" },			\
			 { 3, "nack" }, { 4, "probe" })

/* enum mrc_ev_state */
#define show_mrc_ev_state(state)					\
	__print_symbolic(state,						\
			 { 0, "good" }, { 1, "skip" },			\
			 { 2, "assumed_bad" }, { 3, "denied" })

/* enum mrc_ev_cause: why an EV changed state. */
#define show_mrc_ev_cause(cause)					\
	__print_symbolic(cause,						\
			 { 0, "ecn" }, { 1, "trim" },			\
			 { 2, "skip_done" }, { 3, "timeout" },		\
			 { 4, "probe_ok" }, { 5, "admin" },		\
			 { 6, "promote" }, { 7, "floor_hold" },		\
			 { 8, "late_ack" }, { 9, "loss" },		\
			 { 10, "path" }, { 11, "gray" },		\
			 { 12, "port" })

TRACE_EVENT(mrc_pkt_sent,
	    TP_PROTO(u32 netns, u32 qpn, u16 conn, u32 ev, u8 plane, u8 kind,
		     u32 psn, u32 bytes, u8 rtx),
	    TP_ARGS(netns, qpn, conn, ev, plane, kind, psn, bytes, rtx),
	    MRC_TP_EV_STRUCT__entry(__field(u8, kind)
				    __field(u32, psn)
				    __field(u32, bytes)
				    __field(u8, rtx)),
	    MRC_TP_EV_fast_assign(__entry->kind = kind;
				  __entry->psn = psn;
				  __entry->bytes = bytes;
				  __entry->rtx = rtx;),
	    MRC_TP_EV_printk("kind=%s psn=%u bytes=%u rtx=%u",
			     show_mrc_tx_kind(__entry->kind),
			     __entry->psn, __entry->bytes, __entry->rtx)
);

TRACE_EVENT(mrc_ack_rcvd,
	    TP_PROTO(u32 netns, u32 qpn, u16 conn, u32 ev, u8 plane, u8 kind,
		     u8 reason, u8 ecn, u32 psn),
	    TP_ARGS(netns, qpn, conn, ev, plane, kind, reason, ecn, psn),
	    MRC_TP_EV_STRUCT__entry(__field(u8, kind)
				    __field(u8, reason)
				    __field(u8, ecn)
				    __field(u32, psn)),
	    MRC_TP_EV_fast_assign(__entry->kind = kind;
				  __entry->reason = reason;
				  __entry->ecn = ecn;
				  __entry->psn = psn;),
	    MRC_TP_EV_printk("kind=%s reason=0x%x ecn=%u psn=%u",
			     show_mrc_tx_kind(__entry->kind),
			     __entry->reason, __entry->ecn, __entry->psn)
);

TRACE_EVENT(mrc_rtt,
	    TP_PROTO(u32 netns, u32 qpn, u16 conn, u32 ev, u8 plane, u32 psn,
		     u64 rtt_ns, u64 srtt_ns, u32 cwnd, u32 inflight),
	    TP_ARGS(netns, qpn, conn, ev, plane, psn, rtt_ns, srtt_ns, cwnd,
		    inflight),
	    MRC_TP_EV_STRUCT__entry(__field(u32, psn)
				    __field(u64, rtt_ns)
				    __field(u64, srtt_ns)
				    __field(u32, cwnd)
				    __field(u32, inflight)),
	    MRC_TP_EV_fast_assign(__entry->psn = psn;
				  __entry->rtt_ns = rtt_ns;
				  __entry->srtt_ns = srtt_ns;
				  __entry->cwnd = cwnd;
				  __entry->inflight = inflight;),
	    MRC_TP_EV_printk("psn=%u rtt_ns=%llu srtt_ns=%llu cwnd=%u inflight=%u",
			     __entry->psn, __entry->rtt_ns, __entry->srtt_ns,
			     __entry->cwnd, __entry->inflight)
);

/* The EV's index sits between the EV and its plane: MRC_TP_CONN_*. */
TRACE_EVENT(mrc_ev_state,
	    TP_PROTO(u32 netns, u32 qpn, u16 conn, u32 ev, u16 index, u8 plane,
		     u8 old_state, u8 new_state, u8 cause, u8 active),
	    TP_ARGS(netns, qpn, conn, ev, index, plane, old_state, new_state,
		    cause, active),
	    MRC_TP_CONN_STRUCT__entry(__field(u32, ev)
				      __field(u16, index)
				      __field(u8, plane)
				      __field(u8, old_state)
				      __field(u8, new_state)
				      __field(u8, cause)
				      __field(u8, active)),
	    MRC_TP_CONN_fast_assign(__entry->ev = ev;
				    __entry->index = index;
				    __entry->plane = plane;
				    __entry->old_state = old_state;
				    __entry->new_state = new_state;
				    __entry->cause = cause;
				    __entry->active = active;),
	    MRC_TP_CONN_printk("ev=0x%x index=%u plane=%u %s->%s cause=%s active=%u",
			       __entry->ev, __entry->index, __entry->plane,
			       show_mrc_ev_state(__entry->old_state),
			       show_mrc_ev_state(__entry->new_state),
			       show_mrc_ev_cause(__entry->cause),
			       __entry->active)
);

TRACE_EVENT(mrc_rto,
	    TP_PROTO(u32 netns, u32 qpn, u16 conn, u32 ev, u8 plane, u32 psn,
		     u8 count),
	    TP_ARGS(netns, qpn, conn, ev, plane, psn, count),
	    MRC_TP_EV_STRUCT__entry(__field(u32, psn)
				    __field(u8, count)),
	    MRC_TP_EV_fast_assign(__entry->psn = psn;
				  __entry->count = count;),
	    MRC_TP_EV_printk("psn=%u count=%u",
			     __entry->psn, __entry->count)
);

TRACE_EVENT(mrc_probe,
	    TP_PROTO(u32 netns, u32 qpn, u16 conn, u32 ev, u8 plane,
		     u8 answered, u64 rtt_ns),
	    TP_ARGS(netns, qpn, conn, ev, plane, answered, rtt_ns),
	    MRC_TP_EV_STRUCT__entry(__field(u8, answered)
				    __field(u64, rtt_ns)),
	    MRC_TP_EV_fast_assign(__entry->answered = answered;
				  __entry->rtt_ns = rtt_ns;),
	    MRC_TP_EV_printk("%s rtt_ns=%llu",
			     __entry->answered ? "answered" : "sent",
			     __entry->rtt_ns)
);

TRACE_EVENT(mrc_plane_state,
	    TP_PROTO(u32 netns, u32 qpn, u16 conn, u8 plane, u8 up),
	    TP_ARGS(netns, qpn, conn, plane, up),
	    MRC_TP_CONN_STRUCT__entry(__field(u8, plane)
				      __field(u8, up)),
	    MRC_TP_CONN_fast_assign(__entry->plane = plane;
				    __entry->up = up;),
	    MRC_TP_CONN_printk("plane=%u %s",
			       __entry->plane, __entry->up ? "up" : "down")
);

TRACE_EVENT(mrc_conn_state,
	    TP_PROTO(u32 netns, u32 qpn, u16 conn, u8 up, int err),
	    TP_ARGS(netns, qpn, conn, up, err),
	    MRC_TP_CONN_STRUCT__entry(__field(u8, up)
				      __field(int, err)),
	    MRC_TP_CONN_fast_assign(__entry->up = up;
				    __entry->err = err;),
	    MRC_TP_CONN_printk("%s err=%d",
			       __entry->up ? "up" : "down", __entry->err)
);

#endif /* _MRC_TRACE_H */

/* Out of tree: define_trace.h finds this file through -I$(src). */
#undef TRACE_INCLUDE_PATH
#define TRACE_INCLUDE_PATH .
#undef TRACE_INCLUDE_FILE
#define TRACE_INCLUDE_FILE mrc_trace
#include <trace/define_trace.h>
