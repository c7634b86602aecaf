/* SPDX-License-Identifier: GPL-2.0 OR MIT */
/*
 * mrc_engine.h - public API of the MRC protocol engine (sans-IO).
 *
 * One struct mrc_conn is one MRC connection endpoint: a requester (sends
 * messages as WRITE / WRITE_IMM packets) and a responder (receives the
 * peer's messages, answers with SACK/NACK) sharing one EV set, one
 * congestion controller and one event queue. The engine never touches a
 * socket, a buffer, a timer or a clock:
 *
 *   host -> engine: mrc_conn_send()          queue a message (metadata only)
 *                   mrc_conn_rx()            a decoded packet arrived
 *                   mrc_conn_on_timer()      the host timer fired
 *                   mrc_conn_set_tx_room()   per-plane transmit room changed
 *                   mrc_conn_tx_dropped()    the host's own queue refused a
 *                                            data packet poll_tx gave it
 *                   mrc_conn_tx_congested()  the host's own queue took data
 *                                            packets but dropped others
 *                   mrc_conn_set_plane_up()  a plane's port went up/down
 *                   mrc_conn_set_mtu()       the path MTU dropped
 *                   mrc_conn_ev_set_denied() administrative EV exclusion
 *                   mrc_conn_flush_acks()    owed SACKs due now (before close)
 *   engine -> host: mrc_conn_poll_tx()       next packet to emit
 *                   mrc_conn_poll_tx_burst() next packets, as a flowcell
 *                   mrc_conn_poll_event()    next event (EV change, completion,
 *                                            delivery, error, probe, RTT)
 *                   mrc_conn_next_deadline() when to call on_timer() next
 *
 * Host contract: after every input call, drain mrc_conn_poll_tx() until it
 * returns MRC_E_AGAIN, drain mrc_conn_poll_event() until it returns
 * MRC_E_AGAIN, then (re)arm the single host timer at
 * mrc_conn_next_deadline(). No function sleeps, allocates (except
 * mrc_conn_create()) or calls back into the host, so every call may be made
 * from softirq context under the connection's spinlock.
 *
 * Time is u64 nanoseconds from any monotonic origin, never decreasing.
 *
 * The host owns payload bytes; the engine owns metadata. A data packet
 * returned by mrc_conn_poll_tx() names the message (cookie, MSN) and the
 * byte range (msg_offset, payload_len) the host copies after the headers.
 * On receive, mrc_conn_rx() tells the host whether to place the payload at
 * pkt->reth.va within message pkt->meth.msn.
 *
 * EV value convention (fixed): bits 31..24 = plane index, bits 23..0 = path
 * entropy (mrc_ev_plane(), mrc_ev_entropy()). The host maps the entropy to
 * a path inside the plane.
 */
#ifndef MRC_ENGINE_H
#define MRC_ENGINE_H

#include "mrc_platform.h"

#ifdef __cplusplus
extern "C" {
#endif

#include "mrc_wire.h"

/* Limits of the configuration (enforced by mrc_conn_cfg_check()). */
#define MRC_MAX_PLANES		32
#define MRC_EV_MAX		1024	/* n_planes * ev_per_plane */
#define MRC_MPR_MIN		128
#define MRC_MPR_MAX		16384	/* PSNs; multiple of MRC_MPR_UNIT */
#define MRC_MSGS_MAX		4096	/* tx_max_msgs, rx_max_msgs */
#define MRC_EVQ_MAX		4096	/* event_queue_len */
#define MRC_MTU_MIN		64
#define MRC_MTU_MAX		65536
#define MRC_RTO_EXP_MAX		24
/*
 * The fewest packets mrc_conn_burst_autosize() cuts a flowcell to:
 * MRC_BURST_AUTOSIZE_MIN, or as many as hold MRC_BURST_AUTOSIZE_MIN_BYTES
 * where that is fewer (jumbo frames), but never fewer than
 * MRC_BURST_AUTOSIZE_MIN_PKTS (tcp_min_tso_segs' 2).
 */
#define MRC_BURST_AUTOSIZE_MIN		8
#define MRC_BURST_AUTOSIZE_MIN_BYTES	12000	/* 8 frames of 1,500 */
#define MRC_BURST_AUTOSIZE_MIN_PKTS	2
/* The longest interval it sizes a flowcell to, in ns (2^30, about 1 s). */
#define MRC_BURST_AUTOSIZE_INTERVAL_MAX	(1024ull * 1024 * 1024)
/* Reordering window, per mille of the minimum RTT (cfg.reo_wnd_pm). */
#define MRC_REO_WND_PM_DEFAULT	250
#define MRC_REO_WND_PM_MAX	4000
#define MRC_NO_DEADLINE		(~(u64)0)

/*
 * EV value layout (ours: MRC 1.0 leaves the EV opaque to the network):
 * bits 31-24 the plane index, bits 23-0 the entropy. On the wire EV bits
 * 15-0 are the UDP source port and bits 31-16 the low 16 bits of the flow
 * label (mrc_wire.h), so all sixteen source-port bits vary, which is what
 * every ECMP hash sees first, and the plane rides in the flow label. The
 * generator (mrc_ev.c) never makes an EV whose source port is below 1024
 * or MRC_UDP_PORT (mrc_ev_sport_ok()).
 */
#define MRC_EV_PLANE_SHIFT	24
#define MRC_EV_ENTROPY_MASK	0xffffffu

static inline u8 mrc_ev_plane(u32 ev)
{
	return (u8)(ev >> MRC_EV_PLANE_SHIFT);
}

static inline u32 mrc_ev_entropy(u32 ev)
{
	return ev & MRC_EV_ENTROPY_MASK;
}

static inline u32 mrc_ev_make(u8 plane, u32 entropy)
{
	return (u32)plane << MRC_EV_PLANE_SHIFT | (entropy & MRC_EV_ENTROPY_MASK);
}

/* May an EV with this UDP source port go on the wire? */
static inline bool mrc_ev_sport_ok(u16 sport)
{
	return sport >= 1024 && sport != MRC_UDP_PORT;
}

/**
 * enum mrc_err - engine return codes (negative; 0 is success).
 *
 * Not errno values; the kernel glue maps them.
 * @MRC_OK: success
 * @MRC_E_AGAIN: nothing to do now / queue full: retry after progress
 * @MRC_E_INVAL: bad argument or configuration
 * @MRC_E_NOMEM: allocation failed (mrc_conn_create() only)
 * @MRC_E_CONN: the connection has failed (see MRC_EVT_CONN_ERROR);
 *	it refuses all further work
 * @MRC_E_PROTO: the packet violates the protocol; dropped and counted
 * @MRC_E_STALE: the packet is valid but not for this state (old, unknown
 *	EV, wrong connection id); dropped and counted
 * @MRC_E_TOOBIG: message longer than the configured maximum
 */
enum mrc_err {
	MRC_OK = 0,
	MRC_E_AGAIN = -1,
	MRC_E_INVAL = -2,
	MRC_E_NOMEM = -3,
	MRC_E_CONN = -4,
	MRC_E_PROTO = -5,
	MRC_E_STALE = -6,
	MRC_E_TOOBIG = -7,
};

/**
 * enum mrc_cc_algo - congestion-control algorithm ids (registry keys, also
 * the 4-bit cc_type of SACK/NACK).
 * @MRC_CC_NSCC: NSCC-style window control (default)
 * @MRC_CC_FIXED: fixed window (tests, lab)
 * @MRC_CC_UEC: NSCC as Ultra Ethernet 1.0 specifies it (mrc_cc_uec.c)
 * @MRC_CC_NR: number of ids
 */
enum mrc_cc_algo {
	MRC_CC_NSCC = 0,
	MRC_CC_FIXED = 1,
	MRC_CC_UEC = 2,
	MRC_CC_NR,
};

/**
 * struct mrc_cc_profile - congestion-control parameters (all integers).
 *
 * Zero in a "0: derived" field means the default derivation in brackets.
 * @base_rtt_ns: base (unloaded) RTT [0: learned as the minimum RTT sample]
 * @link_mbps: bottleneck rate in Mbit/s, for the BDP
 * @mtu: payload bytes per packet [0: the connection's mtu]
 * @target_qdelay_pm: target queueing delay, per mille of base RTT [750]
 * @max_wnd_bytes: window ceiling [0: 1.5 x BDP]
 * @init_wnd_bytes: initial window [0: max_wnd_bytes]
 * @min_wnd_bytes: window floor [0: one mtu]
 * @gamma_pm: multiplicative-decrease gain, per mille [800]
 * @max_md_pm: largest single decrease, per mille of the window [500]
 * @pi_gain_pm: proportional increase per RTT at zero delay, per mille
 *	of the window [500]
 * @fi_bytes: fair (additive) increase per RTT [0: one mtu]
 * @fixed_wnd_bytes: window of MRC_CC_FIXED [0: max_wnd_bytes]
 */
struct mrc_cc_profile {
	u32 base_rtt_ns;
	u32 link_mbps;
	u32 mtu;
	u32 target_qdelay_pm;
	u32 max_wnd_bytes;
	u32 init_wnd_bytes;
	u32 min_wnd_bytes;
	u32 gamma_pm;
	u32 max_md_pm;
	u32 pi_gain_pm;
	u32 fi_bytes;
	u32 fixed_wnd_bytes;
};

/**
 * struct mrc_iw_share - one initial window for all of a host's starting
 * connections (mrc_cc_share.c).
 * @starting: connections that name this share and are starting: they sent
 *	data and none of it was acknowledged yet, nor did any time out
 *
 * A window of init_wnd_bytes per connection is a guess about an empty
 * fabric, made once per connection: a host that opens 31 connections at
 * once (an all-to-all) puts 31 such windows on the fabric in its first
 * round trip. Connections that name the same share split one: while n of
 * them are starting, none sends more than init_wnd_bytes / n (at least
 * min_wnd_bytes), and a lone connection keeps its whole window. The host
 * owns the share (one per host; the kernel: one per network namespace),
 * zeroes it before the first connection names it and keeps it until the
 * last such connection is destroyed.
 */
struct mrc_iw_share {
	struct mrc_plat_atomic starting;
};

/**
 * enum mrc_failover - failover rules of a connection (mrc_conn_cfg.failover).
 * @MRC_FO_BLAME_PATH: a loss or timeout on a retired path (dead or gray;
 *	other paths deliver) does not cut the congestion window, and the cuts
 *	of a dead path's recent losses (and a timeout cut it alone took) are
 *	given back when it is retired; one EV's verdict is not enough
 * @MRC_FO_PATH_RETIRE: once MRC_PATH_DEAD_EVS EVs of one path fell silent
 *	(timeout, repeated loss) and nothing sent on the path since was
 *	delivered, every EV of the path is retired at once, probed through
 *	those that fell silent, revived together when one answers
 * @MRC_FO_RESEND: the packets in flight on a path retired as dead are
 *	resent on live EVs at once, not after their own verdicts
 * @MRC_FO_GRAY: a path whose loss rate (per-path estimate) exceeds
 *	MRC_GRAY_HI_PM per mille and MRC_GRAY_RATIO times the connection's is
 *	demoted as a whole for a hold time that doubles while it stays gray
 * @MRC_FO_BALANCE: planes share the window by what they carry, not by how
 *	many EVs each has left: a plane whose bytes in flight run ahead of
 *	the least loaded usable plane's is passed over (mrc_ev_pick())
 * @MRC_FO_ALL: every rule (the default)
 */
enum mrc_failover {
	MRC_FO_BLAME_PATH = 1u << 0,
	MRC_FO_PATH_RETIRE = 1u << 1,
	MRC_FO_RESEND = 1u << 2,
	MRC_FO_GRAY = 1u << 3,
	MRC_FO_BALANCE = 1u << 4,
	MRC_FO_ALL = 0x1f,
};

/**
 * struct mrc_conn_cfg - everything a connection is created from.
 *
 * Fill with mrc_conn_cfg_init() and override; mrc_conn_create() validates.
 * @local_conn_id: our id (src_conn of our SACK/NACK/probes; the peer's
 *	control packets must carry it as dst_conn)
 * @peer_conn_id: the peer's id (dst_conn of our control packets)
 * @peer_qpn: BTH.dest_qp of every packet we send (24 bits)
 * @pkey: BTH.pkey of every packet we send
 * @rkey: RETH.rkey of every data packet we send
 * @n_planes: number of planes, 1..MRC_MAX_PLANES
 * @plane_up_mask: initial up planes (bit p = plane p)
 * @ev_per_plane: EVs per plane; n_planes * ev_per_plane <= MRC_EV_MAX
 * @ev_active_per_plane: of these, how many start in the active rotation;
 *	the rest are backups of the same plane (>= 1, <= ev_per_plane)
 * @ev_min_active: floor of usable active EVs (see mrc.rst) (>= 1)
 * @ev_reshuffle_pkts: re-randomise the rotation after this many picks even
 *	if it did not wrap (0: only at each full rotation)
 * @paths_per_plane: paths the host has per plane (0: unknown). When known,
 *	the EVs of a plane get distinct (entropy % paths_per_plane), i.e. a
 *	random subset of distinct paths while ev_per_plane <= paths_per_plane
 * @plane_paths: per plane, the paths the host spreads its EVs over, EV e
 *	on path (entropy(e) % plane_paths[plane]) (0: unknown). The EVs of
 *	one path share every hop of it: the failover rules of @failover
 *	judge a path by all of them (mrc_ev.c, "Paths")
 * @failover: enum mrc_failover bits: which failover rules run (default
 *	MRC_FO_ALL; 0 is the behaviour before they existed)
 * @probe_interval_ns: first probe of an ASSUMED_BAD EV this long after it
 *	went bad, then doubling per unanswered probe ...
 * @probe_max_interval_ns: ... up to this interval
 * @mtu: payload bytes per data packet (MRC_MTU_MIN..MRC_MTU_MAX)
 * @mpr: our receive window in PSNs (multiple of 128); the send window is
 *	min(mpr, the peer's advertised MPR)
 * @local_init_psn: first PSN we send
 * @peer_init_psn: first PSN we expect from the peer
 * @tx_max_msgs: messages queued or in flight on the send side
 * @rx_max_msgs: messages partially received or awaiting delivery
 * @rx_max_msg_len: longest message accepted from the peer (bytes)
 * @rto_exp: retransmit timeout = 1.024 us << rto_exp (0..24)
 * @rto_linear_retries: retransmissions of one packet that still wait the
 *	base RTO; the k-th retransmission after that waits base << k
 * @rto_max_backoff: cap of the backoff exponent (RTO <= base << cap)
 * @retry_budget: timeouts the connection tolerates without forward
 *	progress; one more is a connection error (MRC_CONN_ERR_RETRY)
 * @reo_wnd_pm: loss inference: a packet not delivered when packets sent
 *	after it were is lost once the reordering window has passed, this many
 *	per mille of the minimum RTT (widened by spurious inferences, at most
 *	the base RTO); 0: off, losses are found by timeouts alone
 * @tlp: send a tail-loss probe (the newest packet in flight, again) when
 *	nothing was acknowledged for two smoothed RTTs plus sack_delay_ns
 * @progress_timeout_ns: data outstanding and, for this long, neither
 *	forward progress nor (unless orphaned, see mrc_conn_set_orphan())
 *	any SACK or NACK from the peer: connection error
 *	(MRC_CONN_ERR_PROGRESS); 0: off. Bounds the time to fail whatever
 *	the number of packets in flight, where @retry_budget counts timeouts
 * @sack_every_pkts: coalescing: SACK at least every N data packets (>= 1)
 * @sack_every_bytes: ... or every N payload bytes (0: off)
 * @sack_delay_ns: ... or this long after an unacknowledged arrival
 * @nack_oor_interval_ns: at most one PSN_OOR_WINDOW NACK per interval;
 *	other out-of-window packets are dropped silently (counted)
 * @use_tseth: put a TSETH (tx timestamp) in every data packet
 * @cc_algo: enum mrc_cc_algo
 * @cc: congestion-control profile
 * @iw_share: split the initial window with the host's other starting
 *	connections that name this share (NULL: a window of its own)
 * @seed: PRNG seed (EV entropy, rotation order)
 * @event_mask: bit (1 << enum mrc_event_type) enables that event
 * @event_queue_len: informational event queue length (1..MRC_EVQ_MAX)
 * @alloc_may_sleep: mrc_conn_create() is called where the host may sleep
 *	(the kernel: process context, no spinlock held); its allocations
 *	may then wait for memory and need not be physically contiguous.
 *	0: they must not sleep (softirq)
 */
struct mrc_conn_cfg {
	u16 local_conn_id;
	u16 peer_conn_id;
	u32 peer_qpn;
	u16 pkey;
	u32 rkey;

	u8 n_planes;
	u32 plane_up_mask;
	u16 ev_per_plane;
	u16 ev_active_per_plane;
	u16 ev_min_active;
	u32 ev_reshuffle_pkts;
	u32 paths_per_plane;
	u16 plane_paths[MRC_MAX_PLANES];
	u8 failover;
	u64 probe_interval_ns;
	u64 probe_max_interval_ns;

	u32 mtu;
	u32 mpr;
	u32 local_init_psn;
	u32 peer_init_psn;
	u16 tx_max_msgs;
	u16 rx_max_msgs;
	u32 rx_max_msg_len;

	u8 rto_exp;
	u8 rto_linear_retries;
	u8 rto_max_backoff;
	u32 retry_budget;
	u16 reo_wnd_pm;
	u8 tlp;
	u64 progress_timeout_ns;

	u16 sack_every_pkts;
	u32 sack_every_bytes;
	u64 sack_delay_ns;
	u64 nack_oor_interval_ns;
	u8 use_tseth;

	u8 cc_algo;
	struct mrc_cc_profile cc;
	struct mrc_iw_share *iw_share;

	u64 seed;
	u32 event_mask;
	u16 event_queue_len;
	u8 alloc_may_sleep;
};

/**
 * enum mrc_ev_state - health of one entropy value (path).
 * @MRC_EV_GOOD: usable
 * @MRC_EV_SKIP: congested (ECN SKIP_ONCE, NACK TRIMMED): passed over by
 *	the rotation for one rotation
 * @MRC_EV_ASSUMED_BAD: silent loss, or the receiver's ALWAYS_SKIP: out of
 *	the rotation until a probe on it is answered
 * @MRC_EV_DENIED: administratively excluded
 */
enum mrc_ev_state {
	MRC_EV_GOOD = 0,
	MRC_EV_SKIP = 1,
	MRC_EV_ASSUMED_BAD = 2,
	MRC_EV_DENIED = 3,
};

/**
 * enum mrc_ev_cause - why an EV event happened.
 * @MRC_EVC_ECN: M field SKIP_ONCE (-> SKIP) or ALWAYS_SKIP (-> ASSUMED_BAD)
 * @MRC_EVC_TRIM: NACK TRIMMED
 * @MRC_EVC_SKIP_DONE: the rotation passed a SKIP EV enough times
 * @MRC_EVC_TIMEOUT: a packet on this EV timed out
 * @MRC_EVC_PROBE_OK: a probe on this EV was answered
 * @MRC_EVC_ADMIN: mrc_conn_ev_set_denied()
 * @MRC_EVC_PROMOTE: a backup joined the active rotation (state unchanged)
 * @MRC_EVC_FLOOR_HOLD: a timeout would have dropped the usable active EVs
 *	below ev_min_active and no backup was left: the EV stays as it was
 * @MRC_EVC_LATE_ACK: the packet whose timeout demoted the EV was acknowledged
 *	after all: the path delivers, it was slow, not dead
 * @MRC_EVC_LOSS: a packet on this EV was inferred lost (packets sent after
 *	it on other EVs were delivered, it was not, for longer than the
 *	reordering window): silent loss, found before its timeout
 * @MRC_EVC_PATH: the EV's path was retired as a whole (other EVs of it fell
 *	silent, MRC_FO_PATH_RETIRE) or revived with it (one of them answered)
 * @MRC_EVC_GRAY: the EV's path loses too many packets (MRC_FO_GRAY):
 *	demoted with it, or back with it after the hold
 * @MRC_EVC_PORT: its plane's port was announced down: the failure explains
 *	the EV's silence since the plane last delivered (mrc_ev_set_plane_up())
 */
enum mrc_ev_cause {
	MRC_EVC_ECN = 0,
	MRC_EVC_TRIM = 1,
	MRC_EVC_SKIP_DONE = 2,
	MRC_EVC_TIMEOUT = 3,
	MRC_EVC_PROBE_OK = 4,
	MRC_EVC_ADMIN = 5,
	MRC_EVC_PROMOTE = 6,
	MRC_EVC_FLOOR_HOLD = 7,
	MRC_EVC_LATE_ACK = 8,
	MRC_EVC_LOSS = 9,
	MRC_EVC_PATH = 10,
	MRC_EVC_GRAY = 11,
	MRC_EVC_PORT = 12,
};

/**
 * enum mrc_conn_error - reasons carried by MRC_EVT_CONN_ERROR.
 * @MRC_CONN_ERR_NONE: no error
 * @MRC_CONN_ERR_RETRY: retry budget exhausted
 * @MRC_CONN_ERR_PEER: the peer NACKed with UNEXP_EVENT
 * @MRC_CONN_ERR_PROTO: the peer's data violated the protocol (message
 *	length changed, offset beyond length, message too long)
 * @MRC_CONN_ERR_PROGRESS: no forward progress for progress_timeout_ns
 *	(peer silent, or an orphan whose peer does not read)
 */
enum mrc_conn_error {
	MRC_CONN_ERR_NONE = 0,
	MRC_CONN_ERR_RETRY = 1,
	MRC_CONN_ERR_PEER = 2,
	MRC_CONN_ERR_PROTO = 3,
	MRC_CONN_ERR_PROGRESS = 4,
};

/**
 * enum mrc_event_type - what mrc_conn_poll_event() returns.
 * @MRC_EVT_NONE: no event (never returned)
 * @MRC_EVT_EV_STATE: an EV changed state or active membership (u.ev)
 * @MRC_EVT_PLANE: a plane went up or down (u.plane)
 * @MRC_EVT_MSG_COMPLETED: sender: every packet of a message is
 *	cumulatively acknowledged; in send order (u.msg)
 * @MRC_EVT_MSG_DELIVERED: receiver: a complete message, in MSN order (u.msg)
 * @MRC_EVT_CONN_ERROR: the connection failed (u.error); reported once
 * @MRC_EVT_PROBE_SENT: a probe left on an ASSUMED_BAD EV (u.probe)
 * @MRC_EVT_PROBE_ANSWERED: a probe came back (u.probe)
 * @MRC_EVT_RTT_SAMPLE: an RTT sample fed the estimator (u.rtt)
 * @MRC_EVT_TIMEOUT: a packet's retransmit timer expired (u.timeout); one
 *	per timed-out packet, before the EV_STATE change it may cause
 * @MRC_EVT_NR: number of types
 */
enum mrc_event_type {
	MRC_EVT_NONE = 0,
	MRC_EVT_EV_STATE = 1,
	MRC_EVT_PLANE = 2,
	MRC_EVT_MSG_COMPLETED = 3,
	MRC_EVT_MSG_DELIVERED = 4,
	MRC_EVT_CONN_ERROR = 5,
	MRC_EVT_PROBE_SENT = 6,
	MRC_EVT_PROBE_ANSWERED = 7,
	MRC_EVT_RTT_SAMPLE = 8,
	MRC_EVT_TIMEOUT = 9,
	MRC_EVT_NR,
};

#define MRC_EVT_MASK_ALL	((1u << MRC_EVT_NR) - 1)

/**
 * struct mrc_event - one event.
 * @type: enum mrc_event_type
 * @time_ns: when the engine generated it
 * @u: the payload selected by @type
 * @u.ev: MRC_EVT_EV_STATE
 * @u.ev.ev: EV value
 * @u.ev.index: EV index (0..n_evs-1, stable for the connection's life)
 * @u.ev.plane: its plane
 * @u.ev.old_state: enum mrc_ev_state before
 * @u.ev.new_state: enum mrc_ev_state after
 * @u.ev.active: member of the active rotation after the change
 * @u.ev.cause: enum mrc_ev_cause
 * @u.plane: MRC_EVT_PLANE
 * @u.plane.plane: plane index
 * @u.plane.up: 1 up, 0 down
 * @u.msg: MRC_EVT_MSG_COMPLETED / MRC_EVT_MSG_DELIVERED
 * @u.msg.cookie: completed: the cookie given to mrc_conn_send(); 0 when
 *	delivered
 * @u.msg.msn: message sequence number
 * @u.msg.len: message length in bytes
 * @u.msg.imm: immediate data (if @u.msg.has_imm)
 * @u.msg.has_imm: the message carried immediate data
 * @u.error: MRC_EVT_CONN_ERROR
 * @u.error.reason: enum mrc_conn_error
 * @u.probe: MRC_EVT_PROBE_SENT / MRC_EVT_PROBE_ANSWERED
 * @u.probe.ev: EV probed
 * @u.probe.probe_id: probe id (the EV index)
 * @u.probe.rtt_ns: answered: round-trip time, 0 if unknown
 * @u.rtt: MRC_EVT_RTT_SAMPLE
 * @u.rtt.rtt_ns: the sample
 * @u.rtt.srtt_ns: smoothed RTT after it
 * @u.rtt.ev: EV the sampled packet travelled on
 * @u.rtt.psn: PSN of the sampled packet
 * @u.rtt.cwnd: congestion window (bytes) when the sample was taken
 * @u.rtt.inflight: payload bytes in flight then
 * @u.timeout: MRC_EVT_TIMEOUT
 * @u.timeout.ev: EV the packet was last sent on
 * @u.timeout.index: index of that EV
 * @u.timeout.psn: PSN of the packet
 * @u.timeout.count: timeouts of this packet so far (this one included)
 */
struct mrc_event {
	u8 type;
	u64 time_ns;
	union {
		struct {
			u32 ev;
			u16 index;
			u8 plane;
			u8 old_state;
			u8 new_state;
			u8 active;
			u8 cause;
		} ev;
		struct {
			u8 plane;
			u8 up;
		} plane;
		struct {
			u64 cookie;
			u16 msn;
			u32 len;
			u32 imm;
			u8 has_imm;
		} msg;
		struct {
			u8 reason;
		} error;
		struct {
			u32 ev;
			u16 probe_id;
			u64 rtt_ns;
		} probe;
		struct {
			u64 rtt_ns;
			u64 srtt_ns;
			u32 ev;
			u32 psn;
			u32 cwnd;
			u32 inflight;
		} rtt;
		struct {
			u32 ev;
			u16 index;
			u32 psn;
			u8 count;
		} timeout;
	} u;
};

/**
 * enum mrc_tx_kind - what a struct mrc_tx_desc asks the host to send.
 * @MRC_TX_DATA: a WRITE packet: headers + payload bytes of a message
 * @MRC_TX_SACK: a SACK (pkt.sack)
 * @MRC_TX_NACK: a NACK (pkt.nack)
 * @MRC_TX_PROBE: a probe (pkt.probe)
 */
enum mrc_tx_kind {
	MRC_TX_DATA = 1,
	MRC_TX_SACK = 2,
	MRC_TX_NACK = 3,
	MRC_TX_PROBE = 4,
};

/**
 * struct mrc_tx_desc - one packet to emit, fully decided.
 * @kind: enum mrc_tx_kind
 * @plane: plane to send on (== mrc_ev_plane(@ev))
 * @ev: entropy value (UDP source port + flow label, or path template)
 * @pkt: every header field; mrc_pkt_encode_hdr() it, append the payload
 *	(DATA), mrc_pkt_finish(). pkt.payload is NULL: the host supplies it.
 * @cookie: DATA: cookie of the message (from mrc_conn_send())
 * @msn: DATA: message sequence number
 * @msg_offset: DATA: byte offset of the payload in the message
 * @payload_len: DATA: payload bytes (== pkt.payload_len)
 * @rtx: DATA: this is a retransmission (== pkt.bth.rtx)
 */
struct mrc_tx_desc {
	u8 kind;
	u8 plane;
	u32 ev;
	struct mrc_pkt pkt;
	u64 cookie;
	u16 msn;
	u32 msg_offset;
	u32 payload_len;
	u8 rtx;
};

/* mrc_conn_rx() flags. */
#define MRC_RXF_ECN_CE		0x1u	/* IP ECN field was CE */
#define MRC_RXF_TRIMMED		0x2u	/* payload trimmed (same as pkt->trimmed) */
#define MRC_RXF_LASTHOP		0x4u	/* the trim happened at our last hop */

/**
 * enum mrc_rx_verdict - what the host does with a received data payload.
 * @MRC_RX_CONSUMED: nothing to place (control packet, duplicate, dropped)
 * @MRC_RX_PLACE: copy payload_len bytes to offset pkt->reth.va of message
 *	pkt->meth.msn
 * @MRC_RX_PLACE_NEW: as MRC_RX_PLACE, and this is the first packet seen of
 *	that message: set up a buffer of pkt->reth.dma_len bytes first
 */
enum mrc_rx_verdict {
	MRC_RX_CONSUMED = 0,
	MRC_RX_PLACE = 1,
	MRC_RX_PLACE_NEW = 2,
};

/**
 * struct mrc_ev_counters - per-EV (and per-plane summed) counters.
 * @sent: data packets sent (first transmissions and retransmissions)
 * @sacked: SACKs echoing this EV
 * @nacked: NACKs echoing this EV (any reason)
 * @trimmed: NACK TRIMMED / TRIMMED_LASTHOP echoing this EV
 * @timeouts: packets sent on this EV that timed out
 * @ecn: SACKs echoing this EV with an ECN summary
 * @probes: probes sent on this EV
 * @probes_ok: probes on this EV answered
 * @late_acks: packets that timed out on this EV and were acknowledged after
 *	all (spurious timeouts)
 * @lost: packets sent on this EV inferred lost before their timeout
 */
struct mrc_ev_counters {
	u64 sent;
	u64 sacked;
	u64 nacked;
	u64 trimmed;
	u64 timeouts;
	u64 ecn;
	u64 probes;
	u64 probes_ok;
	u64 late_acks;
	u64 lost;
};

/**
 * struct mrc_ev_info - snapshot of one EV.
 * @ev: value
 * @plane: plane
 * @state: enum mrc_ev_state
 * @active: in the active rotation
 * @cnt: counters
 */
struct mrc_ev_info {
	u32 ev;
	u8 plane;
	u8 state;
	u8 active;
	struct mrc_ev_counters cnt;
};

/**
 * struct mrc_plane_info - snapshot of one plane.
 * @up: port up
 * @room: host said it has transmit room
 * @n_ev: EVs of the plane
 * @n_active: of these in the active rotation
 * @n_good: of these GOOD
 * @n_bad: of these ASSUMED_BAD
 * @cnt: counters summed over the plane's EVs
 */
struct mrc_plane_info {
	u8 up;
	u8 room;
	u16 n_ev;
	u16 n_active;
	u16 n_good;
	u16 n_bad;
	struct mrc_ev_counters cnt;
};

/**
 * struct mrc_conn_stats - connection counters and estimator state.
 * @tx_data_pkts: data packets sent (incl. retransmissions)
 * @tx_data_bytes: payload bytes sent (incl. retransmissions)
 * @tx_rtx_pkts: retransmissions
 * @tx_rtx_timeout: ... caused by a timeout
 * @tx_rtx_nack: ... caused by a NACK
 * @tx_rtx_plane_down: ... caused by a plane going down
 * @tx_rtx_local: ... caused by a local drop (mrc_conn_tx_dropped())
 * @tx_rtx_inferred: ... caused by a loss inferred before its timeout
 * @tx_rtx_tlp: ... tail-loss probes
 * @tx_rtx_pmtu: ... caused by a path MTU drop (mrc_conn_set_mtu())
 * @tx_local_drops: data packets the host reported it could not send
 * @tx_local_cn: reports of a host queue that took data packets while
 *	dropping others (mrc_conn_tx_congested())
 * @tx_sacks: SACKs sent
 * @tx_sacks_merged: SACKs not sent because the next one said all they would
 *	(a chunk the cumulative ack passed whole, the same EV echoed)
 * @tx_nacks: NACKs sent
 * @tx_probes: probes sent
 * @tx_msgs_completed: messages completed (acked)
 * @rx_data_pkts: data packets received (all, before checks)
 * @rx_data_bytes: payload bytes accepted (first copies only)
 * @rx_dup_pkts: duplicates (re-acked, not re-delivered)
 * @rx_oor_pkts: outside the receive window
 * @rx_oor_nacks: ... answered with a NACK
 * @rx_trimmed: trimmed data packets (NACKed)
 * @rx_ecn_ce: CE-marked data packets
 * @rx_no_resource: dropped for lack of a message slot (NACK NO_RESOURCE)
 * @rx_proto_err: packets violating the protocol
 * @rx_stale: control packets for another connection, unknown EV, old PSN
 * @rx_sacks: SACKs received
 * @rx_nacks: NACKs received
 * @rx_probes: probes received (answered)
 * @rx_msgs_delivered: messages delivered
 * @ctl_dropped: control packets (SACK/NACK/probe answers) not queued
 *	because the control queue was full
 * @events_dropped: informational events lost to a full event queue
 * @timeouts: packet retransmit timeouts
 * @spurious_rtx: retransmissions the receiver already had
 * @spurious_timeouts: timeouts proven spurious by the acknowledgment of the
 *	transmission that timed out (sender side; see mrc_req_on_sack())
 * @lost_inferred: packets inferred lost before their timeout (packets sent
 *	after them were delivered)
 * @spurious_losses: ... of these proven spurious (acknowledged after all:
 *	reordering beyond the window, which then widens)
 * @rnr_episodes: times the receiver refused data for lack of resources
 *	(resource NACK) and the sender entered receiver-not-ready mode
 * @rnr_probes: single-packet probes sent in receiver-not-ready mode
 * @iw_share_cuts: times the window was cut to its share of the host's
 *	initial window (struct mrc_iw_share) while starting
 * @tx_rtx_path: packets in flight on a path when it was retired as dead,
 *	resent at once on live EVs (MRC_FO_RESEND)
 * @paths_retired: paths retired as a whole (MRC_FO_PATH_RETIRE)
 * @paths_gray: paths demoted for their loss rate (MRC_FO_GRAY)
 * @cwnd_cuts_spared: losses and timeout passes that did not cut the
 *	window because a path failure explained them (MRC_FO_BLAME_PATH)
 * @retry_left: remaining retry budget
 * @inflight_bytes: payload bytes in flight
 * @inflight_pkts: packets in flight
 * @cwnd_bytes: congestion window (after receiver penalty)
 * @send_window: PSNs the receiver allows beyond cack
 * @srtt_ns: smoothed RTT
 * @rttvar_ns: RTT variance
 * @min_rtt_ns: minimum RTT
 * @rto_ns: current base retransmit timeout (before backoff)
 * @snd_una: oldest unacknowledged PSN
 * @snd_nxt: next new PSN
 * @rcv_cack: last PSN received in order
 * @error: enum mrc_conn_error (0 while healthy)
 */
struct mrc_conn_stats {
	u64 tx_data_pkts;
	u64 tx_data_bytes;
	u64 tx_rtx_pkts;
	u64 tx_rtx_timeout;
	u64 tx_rtx_nack;
	u64 tx_rtx_plane_down;
	u64 tx_rtx_local;
	u64 tx_rtx_inferred;
	u64 tx_rtx_tlp;
	u64 tx_rtx_pmtu;
	u64 tx_local_drops;
	u64 tx_local_cn;
	u64 tx_sacks;
	u64 tx_sacks_merged;
	u64 tx_nacks;
	u64 tx_probes;
	u64 tx_msgs_completed;
	u64 rx_data_pkts;
	u64 rx_data_bytes;
	u64 rx_dup_pkts;
	u64 rx_oor_pkts;
	u64 rx_oor_nacks;
	u64 rx_trimmed;
	u64 rx_ecn_ce;
	u64 rx_no_resource;
	u64 rx_proto_err;
	u64 rx_stale;
	u64 rx_sacks;
	u64 rx_nacks;
	u64 rx_probes;
	u64 rx_msgs_delivered;
	u64 ctl_dropped;
	u64 events_dropped;
	u64 timeouts;
	u64 spurious_rtx;
	u64 spurious_timeouts;
	u64 lost_inferred;
	u64 spurious_losses;
	u64 rnr_episodes;
	u64 rnr_probes;
	u64 iw_share_cuts;
	u64 tx_rtx_path;
	u64 paths_retired;
	u64 paths_gray;
	u64 cwnd_cuts_spared;
	u32 retry_left;
	u32 inflight_bytes;
	u32 inflight_pkts;
	u32 cwnd_bytes;
	u32 send_window;
	u64 srtt_ns;
	u64 rttvar_ns;
	u64 min_rtt_ns;
	u64 rto_ns;
	u32 snd_una;
	u32 snd_nxt;
	u32 rcv_cack;
	u8 error;
};

struct mrc_conn;

/* mrc_conn_send() flags. */
#define MRC_SEND_IMM		0x1u	/* the message carries immediate data */

void mrc_conn_cfg_init(struct mrc_conn_cfg *cfg, u8 n_planes);
int mrc_conn_cfg_check(const struct mrc_conn_cfg *cfg);
int mrc_conn_create(const struct mrc_conn_cfg *cfg, u64 now,
		    struct mrc_conn **out);
void mrc_conn_destroy(struct mrc_conn *conn);
int mrc_conn_set_peer(struct mrc_conn *c, u32 peer_qpn, u16 peer_conn_id,
		      u32 peer_init_psn);

int mrc_conn_send(struct mrc_conn *conn, u64 now, u32 len, u32 imm,
		  u32 flags, u64 cookie, u16 *msn_out);
int mrc_conn_poll_tx(struct mrc_conn *conn, u64 now, struct mrc_tx_desc *desc);
int mrc_conn_poll_tx_burst(struct mrc_conn *conn, u64 now,
			   struct mrc_tx_desc *desc, u32 max);
u32 mrc_conn_burst_autosize(const struct mrc_conn *conn, u32 max, u32 seg,
			    u64 interval_ns);
int mrc_conn_rx(struct mrc_conn *conn, u64 now, const struct mrc_pkt *pkt,
		u32 rx_ev, u32 rx_flags);
void mrc_conn_on_timer(struct mrc_conn *conn, u64 now);
void mrc_conn_flush_acks(struct mrc_conn *conn);
u64 mrc_conn_next_deadline(const struct mrc_conn *conn);
int mrc_conn_poll_event(struct mrc_conn *conn, struct mrc_event *ev);

void mrc_conn_set_tx_room(struct mrc_conn *conn, u32 plane_mask);
int mrc_conn_tx_dropped(struct mrc_conn *conn, u64 now, u32 psn, u32 ev);
int mrc_conn_tx_congested(struct mrc_conn *conn, u64 now, u32 bytes);
int mrc_conn_set_plane_up(struct mrc_conn *conn, u64 now, u8 plane, bool up);
int mrc_conn_set_mtu(struct mrc_conn *conn, u64 now, u32 mtu);
int mrc_conn_ev_set_denied(struct mrc_conn *conn, u64 now, u16 index,
			   bool denied);

bool mrc_conn_failed(const struct mrc_conn *conn);
bool mrc_conn_tx_recent(const struct mrc_conn *conn, u32 psn);
u32 mrc_conn_tx_msgs_free(const struct mrc_conn *conn);
bool mrc_conn_app_limited(const struct mrc_conn *conn, u32 *cwnd);
void mrc_conn_get_stats(const struct mrc_conn *conn,
			struct mrc_conn_stats *st);

/**
 * mrc_conn_rx_drop_counts() - the two receive-drop counters alone.
 * @conn: connection
 * @oor: out: data packets outside the receive window (rx_oor_pkts)
 * @dup: out: duplicate data packets (rx_dup_pkts)
 *
 * What a host needs per packet to tell why mrc_conn_rx() consumed one,
 * without copying the whole struct mrc_conn_stats.
 */
void mrc_conn_rx_drop_counts(const struct mrc_conn *conn, u64 *oor, u64 *dup);

/**
 * mrc_conn_set_orphan() - the application closed the connection.
 * @conn: connection
 *
 * From now on only forward progress keeps it alive: NACKs of a receiver
 * that does not read no longer count against progress_timeout_ns.
 */
void mrc_conn_set_orphan(struct mrc_conn *conn);
u16 mrc_conn_num_evs(const struct mrc_conn *conn);
int mrc_conn_get_ev(const struct mrc_conn *conn, u16 index,
		    struct mrc_ev_info *info);
int mrc_conn_find_ev(const struct mrc_conn *conn, u32 ev);
int mrc_conn_get_plane(const struct mrc_conn *conn, u8 plane,
		       struct mrc_plane_info *info);

const char *mrc_ev_state_name(u8 state);
const char *mrc_event_type_name(u8 type);

#ifdef __cplusplus
}
#endif

#endif /* MRC_ENGINE_H */
