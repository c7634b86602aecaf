/* SPDX-License-Identifier: GPL-2.0 OR MIT */
/*
 * mrc_core.h - private definitions shared by the engine's .c files.
 *
 * struct mrc_conn is opaque to hosts (mrc_engine.h); it is defined here for
 * mrc_conn.c (API, event polling), mrc_req.c, mrc_req_ack.c and
 * mrc_req_loss.c (requester) and mrc_resp.c (responder). Every array is
 * sized at mrc_conn_create() from the configuration and never grows:
 * nothing the peer sends can make the engine allocate.
 */
#ifndef MRC_CORE_H
#define MRC_CORE_H

#include "mrc_engine.h"
#include "mrc_evq.h"
#include "mrc_rand.h"
#include "mrc_ev.h"
#include "mrc_cc.h"

/* Packets of one message (PSN arithmetic stays unambiguous). */
#define MRC_MSG_PKTS_MAX	0x400000u
/* Pending SACK chunks and queued NACK/probe answers at the responder. */
#define MRC_SACK_PEND_MAX	8
#define MRC_CTL_Q_LEN		32
/* The receiver's bitmap is reported in 64-PSN chunks. */
#define MRC_CHUNK		MRC_SACK_BITS

/**
 * enum mrc_tx_pkt_state - send-side state of one PSN.
 * @MRC_TXP_FREE: not in flight (acked, or not sent yet)
 * @MRC_TXP_SENT: in flight, retransmit deadline armed
 * @MRC_TXP_LOST: declared lost, waiting in the retransmit queue
 * @MRC_TXP_SACKED: selectively acknowledged, waiting for the cumulative ack
 */
enum mrc_tx_pkt_state {
	MRC_TXP_FREE = 0,
	MRC_TXP_SENT = 1,
	MRC_TXP_LOST = 2,
	MRC_TXP_SACKED = 3,
};

/**
 * enum mrc_rtx_cause - why a packet is queued for retransmission.
 * @MRC_RTX_TIMEOUT: its retransmit timer expired
 * @MRC_RTX_NACK: NACKed (trim, or resource after the back-off delay)
 * @MRC_RTX_PLANE_DOWN: its plane went down
 * @MRC_RTX_LOCAL: the sending host's own queue refused it (a local drop)
 * @MRC_RTX_INFERRED: packets sent after it were delivered and it was not,
 *	for longer than the reordering window (mrc_req_loss.c)
 * @MRC_RTX_TLP: tail-loss probe: nothing was acknowledged for a probe
 *	timeout; the newest packet in flight goes again (not declared lost)
 * @MRC_RTX_PMTU: larger than a path MTU that shrank while it was in
 *	flight (mrc_conn_set_mtu()): dropped by a router, not by congestion
 *	or a failed path; the host fragments the retransmission
 * @MRC_RTX_PATH: in flight on a path retired as dead: resent at once
 *	(MRC_FO_RESEND)
 */
enum mrc_rtx_cause {
	MRC_RTX_TIMEOUT = 0,
	MRC_RTX_NACK = 1,
	MRC_RTX_PLANE_DOWN = 2,
	MRC_RTX_LOCAL = 3,
	MRC_RTX_INFERRED = 4,
	MRC_RTX_TLP = 5,
	MRC_RTX_PMTU = 6,
	MRC_RTX_PATH = 7,
};

/**
 * struct mrc_tx_pkt - metadata of one PSN in flight.
 * @tx_ns: time of the last transmission
 * @deadline_ns: SENT: retransmit deadline
 * @offset: byte offset in the message
 * @len: payload bytes
 * @msg_slot: index of the message in the send ring
 * @ev_idx: EV of the last transmission
 * @state: enum mrc_tx_pkt_state
 * @opcode: enum mrc_opcode
 * @tries: transmissions so far
 * @timeouts: timeouts suffered (drives the backoff)
 * @nack_wait: SENT after a resource NACK: the deadline is a back-off delay,
 *	not a loss timer (no penalty, no budget)
 * @rtx_cause: enum mrc_rtx_cause (LOST)
 * @sampled: an RTT sample was taken from this transmission
 * @tx_ts: TSETH timestamp of the last transmission
 * @to_tx_ns: send time of the last transmission that timed out or was
 *	inferred lost (0: none); kept until the PSN is acknowledged, to
 *	recognise a spurious loss
 * @to_rto_ns: the time it waited before it was declared lost
 * @to_tx_ts: its TSETH timestamp
 * @to_ev_idx: its EV
 * @to_cause: MRC_RTX_TIMEOUT or MRC_RTX_INFERRED: how it was declared lost
 * @to_sampled: that loss was a sample of its path's loss rate, taken back
 *	if the transmission turns out delivered (mrc_ev_path_lost_undo())
 */
struct mrc_tx_pkt {
	u64 tx_ns;
	u64 deadline_ns;
	u64 to_tx_ns;
	u64 to_rto_ns;
	u32 offset;
	u32 len;
	u16 msg_slot;
	u16 ev_idx;
	u8 state;
	u8 opcode;
	u8 tries;
	u8 timeouts;
	u8 nack_wait;
	u8 rtx_cause;
	u8 sampled;
	u16 tx_ts;
	u16 to_tx_ts;
	u16 to_ev_idx;
	u8 to_cause;
	u8 to_sampled;
};

/**
 * struct mrc_tx_msg - one message on the send side.
 * @cookie: host handle
 * @len: bytes
 * @imm: immediate data
 * @first_psn: PSN of its first packet (valid once segmentation started)
 * @npkts: packets it takes (recomputed when the MTU drops mid-message)
 * @seg_pkts: packets handed out so far
 * @seg_off: bytes handed out so far (the next packet's offset)
 * @msn: message sequence number
 * @has_imm: carries @imm
 */
struct mrc_tx_msg {
	u64 cookie;
	u32 len;
	u32 imm;
	u32 first_psn;
	u32 npkts;
	u32 seg_pkts;
	u32 seg_off;
	u16 msn;
	u8 has_imm;
};

/**
 * struct mrc_req - requester (send side).
 * @pkts: per-PSN metadata ring, index psn & @ring_mask
 * @ring_mask: ring size - 1 (size: power of two >= cfg.mpr)
 * @rtxq: FIFO of PSNs to retransmit (same size as @pkts)
 * @rtxq_head: first entry
 * @rtxq_count: entries
 * @msgs: message ring
 * @msg_cap: its size (cfg.tx_max_msgs)
 * @msg_head: oldest message not yet reported complete
 * @msg_count: messages in the ring
 * @msg_seg: messages (from @msg_head) fully segmented
 * @next_msn: MSN of the next message queued
 * @snd_una: oldest unacknowledged PSN
 * @snd_nxt: next new PSN
 * @send_wnd: PSNs the receiver accepts beyond cack (min(cfg.mpr, peer's))
 * @inflight_bytes: payload bytes SENT
 * @inflight_pkts: packets SENT
 * @retry_left: remaining retry budget
 * @rto_deadline: earliest deadline among SENT packets (may be early)
 * @srtt_ns: smoothed RTT (0: no sample yet)
 * @rttvar_ns: RTT variance used by the RTO: rises with @mdev_max at once,
 *	decays towards it at most once per smoothed RTT
 * @mdev_ns: mean deviation of the RTT samples (EWMA 1/4)
 * @mdev_max_ns: largest @mdev_ns in the current RTT period
 * @var_period_ns: end of the current RTT period
 * @min_rtt_ns: minimum RTT
 * @spurious_pass: a spurious timeout was found by the SACK being processed
 * @fill_areq_psn: PSN of the last new packet that asked for a SACK because
 *	it filled the window; another window-fill request waits until it is
 *	acknowledged (a cwnd-limited sender is "full" on almost every packet)
 * @fill_areq_live: @fill_areq_psn is valid
 * @rnr: receiver-not-ready mode: a resource NACK (NO_RESOURCE and
 *	friends) arrived; no new data, NACKed packets held, one probe at a
 *	time after an exponentially growing delay (RDMA's RNR NAK, TCP's
 *	zero-window probe)
 * @rnr_backoff: current delay exponent (delay = base RTO << it)
 * @rnr_probe_psn: the probe: the first refused packet; the others are
 *	held (nack_wait, no deadline) until it is acknowledged
 * @rnr_probe_slot: message slot of the probe (its held packets go with it)
 * @nack_waiting: SENT packets with nack_wait set (held or delayed)
 * @progress_ns: last forward progress (or when data became outstanding)
 * @heard_ns: last valid SACK or NACK from the peer
 * @orphan: the application closed: NACKs do not count as life
 * @rack_tx_ns: send time of the most recently sent packet known delivered
 *	(0: none yet); any packet sent before it and not delivered within the
 *	reordering window is lost (mrc_req_loss.c)
 * @rack_rtt_ns: that packet's round-trip time
 * @rack_deadline: when the oldest such packet's reordering window ends
 * @reo_mult: reordering window multiplier; grows with every loss inference
 *	proven spurious, decays by one per @reo_decay_left clean recoveries
 * @reo_decay_left: inferred losses left before @reo_mult decays
 * @tlp_base_ns: last new transmission or acknowledgment: the tail-loss
 *	probe is due a probe timeout after it
 * @tlp_out: a tail-loss probe is out, unanswered; no other until an
 *	acknowledgment
 * @peer_rcvd: the receiver's rcvd_bytes counter in the newest SACK (24
 *	bits, MRC_CC_BYTES_UNIT units)
 * @peer_rcvd_seen: @peer_rcvd holds a value
 */
struct mrc_req {
	struct mrc_tx_pkt *pkts;
	u32 ring_mask;
	u32 *rtxq;
	u32 rtxq_head;
	u32 rtxq_count;
	struct mrc_tx_msg *msgs;
	u32 msg_cap;
	u32 msg_head;
	u32 msg_count;
	u32 msg_seg;
	u16 next_msn;
	u32 snd_una;
	u32 snd_nxt;
	u32 send_wnd;
	u32 inflight_bytes;
	u32 inflight_pkts;
	u32 retry_left;
	u64 rto_deadline;
	u64 srtt_ns;
	u64 rttvar_ns;
	u64 mdev_ns;
	u64 mdev_max_ns;
	u64 var_period_ns;
	u64 min_rtt_ns;
	u8 spurious_pass;
	u32 fill_areq_psn;
	u8 fill_areq_live;
	u8 rnr;
	u8 rnr_backoff;
	u32 rnr_probe_psn;
	u16 rnr_probe_slot;
	u32 nack_waiting;
	u64 progress_ns;
	u64 heard_ns;
	u8 orphan;
	u64 rack_tx_ns;
	u64 rack_rtt_ns;
	u64 rack_deadline;
	u8 reo_mult;
	u8 reo_decay_left;
	u64 tlp_base_ns;
	u8 tlp_out;
	u32 peer_rcvd;
	u8 peer_rcvd_seen;
};

/**
 * struct mrc_rx_msg - one message on the receive side.
 * @len: message length (RETH.dma_len of its packets)
 * @rcvd: payload bytes received
 * @imm: immediate data
 * @msn: message sequence number
 * @used: slot holds a message
 * @has_imm: its last packet carried immediate data
 * @last_seen: its LAST/ONLY packet arrived
 */
struct mrc_rx_msg {
	u32 len;
	u32 rcvd;
	u32 imm;
	u16 msn;
	u8 used;
	u8 has_imm;
	u8 last_seen;
};

/**
 * struct mrc_sack_pend - a 64-PSN chunk that owes the sender a SACK.
 * @base: first PSN of the chunk
 * @trig_psn: latest packet of the chunk (the SACK's trigger)
 * @ev: EV to echo (sticks to a CE-marked packet once one arrived)
 * @ts: TSETH tx_ts of the trigger, echoed
 * @ecn: enum mrc_ecn_summary
 * @restore: a spurious retransmission arrived (restore_cwnd)
 * @keep: a packet arrived whose echo may prove a timeout spurious, so the
 *	SACK is never merged into a later one (resp_merge_covered()): a
 *	duplicate, or one out of order or filling a hole (a late original)
 */
struct mrc_sack_pend {
	u32 base;
	u32 trig_psn;
	u32 ev;
	u16 ts;
	u8 ecn;
	u8 restore;
	u8 keep;
};

/**
 * struct mrc_ctl_item - a queued NACK or probe answer.
 * @kind: MRC_TX_NACK, or MRC_TX_SACK for a probe answer (pr=1)
 * @reason: NACK reason
 * @probe_id: probe answer: the probe id
 * @psn: NACK: PSN
 * @ev: EV to echo (and to send on)
 * @ts: timestamp to echo
 * @ecn: probe answer: CE seen on the probe
 */
struct mrc_ctl_item {
	u8 kind;
	u8 reason;
	u16 probe_id;
	u32 psn;
	u32 ev;
	u16 ts;
	u8 ecn;
};

/**
 * struct mrc_resp - responder (receive side).
 * @bitmap: received PSNs beyond @cack, bit psn & @win_mask
 * @win_mask: bitmap size in bits - 1 (power of two >= cfg.mpr)
 * @mpr: receive window in PSNs
 * @cack: last PSN received in order
 * @msgs: message slots, index msn % @msg_cap
 * @msg_cap: cfg.rx_max_msgs
 * @msgs_used: slots in use
 * @next_msn: next MSN to deliver
 * @pend: chunks owing a SACK, @n_pend used (FIFO)
 * @n_pend: entries in @pend
 * @sack_now: a trigger fired: flush @pend
 * @unacked_pkts: data packets since the last SACK
 * @unacked_bytes: payload bytes since the last SACK
 * @sack_deadline: delayed-SACK deadline
 * @ctlq: NACKs and probe answers to send
 * @ctl_head: first entry
 * @ctl_count: entries
 * @last_oor_ns: when the last PSN_OOR_WINDOW NACK was queued
 * @oor_nacked: a PSN_OOR_WINDOW NACK was ever queued
 * @ooo_count: packets received out of order (wraps at 2^15)
 * @bytes_rcvd: payload bytes received (wraps)
 */
struct mrc_resp {
	u64 *bitmap;
	u32 win_mask;
	u32 mpr;
	u32 cack;
	struct mrc_rx_msg *msgs;
	u32 msg_cap;
	u32 msgs_used;
	u16 next_msn;
	struct mrc_sack_pend pend[MRC_SACK_PEND_MAX];
	u32 n_pend;
	u8 sack_now;
	u32 unacked_pkts;
	u32 unacked_bytes;
	u64 sack_deadline;
	struct mrc_ctl_item ctlq[MRC_CTL_Q_LEN];
	u32 ctl_head;
	u32 ctl_count;
	u64 last_oor_ns;
	u8 oor_nacked;
	u32 ooo_count;
	u64 bytes_rcvd;
};

/**
 * struct mrc_conn - one connection endpoint.
 * @cfg: configuration (validated copy)
 * @rng: PRNG
 * @evq: informational events
 * @evm: EV manager
 * @cc: congestion control
 * @req: requester
 * @resp: responder
 * @st: counters
 * @now: latest time seen by any call
 * @error: enum mrc_conn_error; non-zero: failed
 * @error_reported: MRC_EVT_CONN_ERROR was returned
 * @rto_base_ns: configured RTO (1.024 us << rto_exp)
 */
struct mrc_conn {
	struct mrc_conn_cfg cfg;
	struct mrc_rng rng;
	struct mrc_evq evq;
	struct mrc_ev_mgr evm;
	struct mrc_cc cc;
	struct mrc_req req;
	struct mrc_resp resp;
	struct mrc_conn_stats st;
	u64 now;
	u8 error;
	u8 error_reported;
	u64 rto_base_ns;
};

static inline struct mrc_tx_pkt *mrc_txp(const struct mrc_req *r, u32 psn)
{
	return &r->pkts[psn & r->ring_mask];
}

/* PSN is in [snd_una, snd_nxt). */
static inline bool mrc_req_in_flight(const struct mrc_req *r, u32 psn)
{
	s32 a = mrc_psn_diff(psn, r->snd_una);

	return a >= 0 && a < mrc_psn_diff(r->snd_nxt, r->snd_una);
}

/* @p leaves the nack_wait state (retransmitted, acknowledged or lost). */
static inline void mrc_req_clear_nack_wait(struct mrc_req *r,
					   struct mrc_tx_pkt *p)
{
	if (!p->nack_wait)
		return;
	p->nack_wait = 0;
	r->nack_waiting--;
}

static inline u16 mrc_ts16(u64 now)
{
	return (u16)(now / MRC_TS_UNIT_NS);
}

void mrc_conn_fail(struct mrc_conn *c, u8 reason);

int mrc_req_init(struct mrc_conn *c);
void mrc_req_destroy(struct mrc_conn *c);
int mrc_req_queue(struct mrc_conn *c, u32 len, u32 imm, bool has_imm,
		  u64 cookie, u16 *msn_out);
int mrc_req_poll_tx(struct mrc_conn *c, u64 now, struct mrc_tx_desc *d);
u32 mrc_req_poll_burst(struct mrc_conn *c, u64 now, struct mrc_tx_desc *d,
		       u32 max);
int mrc_req_on_sack(struct mrc_conn *c, u64 now, const struct mrc_sack *s);
int mrc_req_on_nack(struct mrc_conn *c, u64 now, const struct mrc_nack *n);
void mrc_req_on_timer(struct mrc_conn *c, u64 now);
void mrc_req_mark_lost(struct mrc_conn *c, u32 psn, u8 cause);
void mrc_req_note_lost_tx(struct mrc_tx_pkt *p, u64 waited_ns, u8 cause);
void mrc_loss_note_delivered(struct mrc_conn *c, u64 now,
			     const struct mrc_tx_pkt *p);
void mrc_loss_detect(struct mrc_conn *c, u64 now);
void mrc_loss_after_verdicts(struct mrc_conn *c, u64 now);
u64 mrc_loss_silence_window(const struct mrc_conn *c);
void mrc_loss_on_spurious(struct mrc_conn *c);
void mrc_loss_tlp_arm(struct mrc_conn *c, u64 now);
void mrc_loss_tlp_fire(struct mrc_conn *c, u64 now);
u64 mrc_loss_deadline(const struct mrc_conn *c);
void mrc_req_plane_down(struct mrc_conn *c, u8 plane, bool was_up);
int mrc_req_on_local_drop(struct mrc_conn *c, u64 now, u32 psn, u32 ev);
int mrc_req_set_mtu(struct mrc_conn *c, u32 mtu);
u64 mrc_req_deadline(const struct mrc_conn *c);
u64 mrc_req_rto(const struct mrc_conn *c);
bool mrc_req_poll_completion(struct mrc_conn *c, struct mrc_event *ev);

int mrc_resp_init(struct mrc_conn *c);
void mrc_resp_destroy(struct mrc_conn *c);
int mrc_resp_on_data(struct mrc_conn *c, u64 now, const struct mrc_pkt *pkt,
		     u32 rx_ev, u32 rx_flags);
int mrc_resp_on_probe(struct mrc_conn *c, u64 now, const struct mrc_pkt *pkt,
		      u32 rx_ev, u32 rx_flags);
int mrc_resp_poll_tx(struct mrc_conn *c, u64 now, struct mrc_tx_desc *d);
void mrc_resp_on_timer(struct mrc_conn *c, u64 now);
void mrc_resp_flush(struct mrc_conn *c);
u64 mrc_resp_deadline(const struct mrc_conn *c);
bool mrc_resp_poll_delivery(struct mrc_conn *c, struct mrc_event *ev);
u8 mrc_resp_penalty(const struct mrc_conn *c);

#endif /* MRC_CORE_H */
