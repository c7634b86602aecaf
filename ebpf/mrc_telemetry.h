/* SPDX-License-Identifier: GPL-2.0 OR MIT */
/*
 * mrc_telemetry.h - layout of the telemetry maps shared by
 * mrc_telemetry.bpf.c (writer) and mrcstat (reader).
 *
 * The maps are pinned under a bpffs directory (default /sys/fs/bpf/mrc):
 *
 *   mrc_ev      HASH  mrc_tel_ev_key    -> mrc_tel_ev_val     per (conn, EV)
 *   mrc_plane   HASH  mrc_tel_plane_key -> mrc_tel_plane_val  per (netns, plane)
 *   mrc_conn    HASH  mrc_tel_conn_key  -> mrc_tel_conn_val   per connection
 *   mrc_events  RINGBUF of struct mrc_tel_event               path-state events
 *   mrc_tel_stat ARRAY[1] of struct mrc_tel_stat              the telemetry's own
 *
 * All counters are updated with atomic adds: every reader sees the same
 * totals, and a quiescent connection's totals are exact.
 */
#ifndef MRC_TELEMETRY_BPF_H
#define MRC_TELEMETRY_BPF_H

#ifndef __VMLINUX_H__
#include <linux/types.h>
#endif

#define MRC_TEL_PIN_DIR		"/sys/fs/bpf/mrc"
#define MRC_TEL_HIST_BUCKETS	32	/* log2 RTT buckets, see below */
#define MRC_TEL_NACK_SLOTS	8
#define MRC_TEL_MAX_EVS		16384
#define MRC_TEL_MAX_PLANES	1024	/* (netns, plane) pairs */
#define MRC_TEL_MAX_CONNS	4096
#define MRC_TEL_RINGBUF_BYTES	(1024 * 1024)

/*
 * RTT histogram bucket of a sample in ns: 0 for rtt < 2, else
 * floor(log2(rtt)), capped at MRC_TEL_HIST_BUCKETS - 1 (>= 2.1 s).
 * Bucket b holds [2^b, 2^(b+1)) ns.
 */

/*
 * NACK reason -> slot of mrc_tel_counters.nack_reason (the reason codes
 * of enum mrc_nack_reason; anything else counts as "other").
 */
enum mrc_tel_nack_slot {
	MRC_TEL_NACK_TRIMMED = 0,		/* 0x01 */
	MRC_TEL_NACK_TRIMMED_LASTHOP = 1,	/* 0x02 */
	MRC_TEL_NACK_NO_BITMAP = 2,		/* 0x06 */
	MRC_TEL_NACK_NO_PKT_BUFFER = 3,		/* 0x07 */
	MRC_TEL_NACK_NO_RESOURCE = 4,		/* 0x0a */
	MRC_TEL_NACK_PSN_OOR = 5,		/* 0x0b */
	MRC_TEL_NACK_UNEXP_EVENT = 6,		/* 0x19 */
	MRC_TEL_NACK_OTHER = 7,
};

/* Counters kept per (conn, EV), per plane and per connection. */
struct mrc_tel_counters {
	__u64 pkts;		/* data packets sent, retransmissions included */
	__u64 bytes;		/* payload bytes of those */
	__u64 rtx;		/* retransmitted data packets */
	__u64 ctl_pkts;		/* SACK/NACK/probe packets sent */
	__u64 sacked;		/* SACKs received echoing the EV (not probe answers) */
	__u64 ecn;		/* ... with an ECN summary */
	__u64 nacked;		/* NACKs received echoing the EV, any reason */
	__u64 trimmed;		/* ... TRIMMED or TRIMMED_LASTHOP */
	__u64 nack_reason[MRC_TEL_NACK_SLOTS];
	__u64 timeouts;		/* retransmit timeouts of packets sent on the EV */
	__u64 probes;		/* probes sent */
	__u64 probes_ok;	/* probes answered */
	__u64 ev_changes;	/* EV state changes */
	__u64 rtt_samples;	/* RTT samples */
	__u64 rtt_sum_ns;	/* sum of the samples (mean = sum / samples) */
	__u64 rtt_hist[MRC_TEL_HIST_BUCKETS];
};

struct mrc_tel_ev_key {
	__u32 netns;
	__u32 qpn;
	__u32 ev;
};

struct mrc_tel_ev_val {
	struct mrc_tel_counters c;
	__u64 last_change_ns;	/* bpf_ktime_get_ns() of the last state change */
	__u16 conn;
	__u16 index;		/* EV index (valid once a state event was seen) */
	__u8 plane;
	__u8 state;		/* enum mrc_ev_state, GOOD until told otherwise */
	__u8 active;
	__u8 pad;
};

struct mrc_tel_plane_key {
	__u32 netns;
	__u32 plane;
};

struct mrc_tel_plane_val {
	struct mrc_tel_counters c;
	__u32 n_bad;		/* EVs currently ASSUMED_BAD (as seen by events) */
	__u8 down;		/* last plane event said down */
	__u8 pad[3];
};

struct mrc_tel_conn_key {
	__u32 netns;
	__u32 qpn;
};

struct mrc_tel_conn_val {
	struct mrc_tel_counters c;
	__u64 srtt_ns;		/* smoothed RTT of the last sample */
	__u64 since_ns;		/* bpf_ktime_get_ns() of the last up/down */
	__s32 err;		/* errno of the last failure, 0 */
	__u16 conn;
	__u8 up;		/* 1 established, 0 down, 2 never seen */
	__u8 pad;
};

/* Ring buffer record types. */
enum mrc_tel_event_type {
	MRC_TEL_E_EV_STATE = 1,
	MRC_TEL_E_PLANE = 2,
	MRC_TEL_E_PROBE_SENT = 3,
	MRC_TEL_E_PROBE_ANSWERED = 4,
	MRC_TEL_E_RTO = 5,	/* only with mrcstat attach --rto-events */
	MRC_TEL_E_CONN = 6,
};

struct mrc_tel_event {
	__u64 ts_ns;		/* bpf_ktime_get_ns() (CLOCK_MONOTONIC) */
	__u64 rtt_ns;		/* PROBE_ANSWERED */
	__u32 netns;
	__u32 qpn;
	__u32 ev;		/* EV_STATE, PROBE_*, RTO */
	__u32 psn;		/* RTO */
	__s32 err;		/* CONN */
	__u16 conn;
	__u16 index;		/* EV_STATE */
	__u8 type;		/* enum mrc_tel_event_type */
	__u8 plane;
	__u8 old_state;		/* EV_STATE */
	__u8 new_state;		/* EV_STATE */
	__u8 cause;		/* EV_STATE: enum mrc_ev_cause */
	__u8 active;		/* EV_STATE */
	__u8 up;		/* PLANE, CONN */
	__u8 count;		/* RTO: timeouts of the packet */
};

/* The telemetry's own health. */
struct mrc_tel_stat {
	__u64 ringbuf_drops;	/* events lost to a full ring buffer */
	__u64 map_full;		/* updates lost to a full hash map */
	__u64 attached_ns;	/* unused by BPF; reserved */
};

#endif /* MRC_TELEMETRY_BPF_H */
