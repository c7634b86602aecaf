/* SPDX-License-Identifier: GPL-2.0 OR MIT */
/*
 * mrc_cc.h - pluggable congestion control of the MRC engine.
 *
 * One sender-side window per connection (bytes of payload in flight),
 * shared by all EVs and planes, clocked by SACKs. Algorithms are entries of
 * a constant registry indexed by enum mrc_cc_algo; each implements struct
 * mrc_cc_ops over the shared struct mrc_cc state.
 */
#ifndef MRC_CC_H
#define MRC_CC_H

#include "mrc_engine.h"

/* Base RTT assumed for the BDP while none is configured or measured. */
#define MRC_CC_DEFAULT_RTT_NS	10000u
#define MRC_CC_PENALTY_MAX	127u

/**
 * struct mrc_cc_ack - what one SACK tells the congestion control.
 * @now: current time
 * @acked_bytes: payload bytes newly acknowledged (cumulatively or selectively)
 * @rtt_ns: RTT sample carried by this SACK, 0 if none
 * @ecn: enum mrc_ecn_summary of the SACK
 * @rwnd_penalty: receiver window penalty 0..127
 * @restore: the receiver saw a spurious retransmission (restore_cwnd)
 * @inflight: payload bytes in flight after the ack
 * @srtt_ns: the requester's smoothed RTT (0: none yet)
 * @rcvd_bytes: payload bytes the receiver got since its previous SACK, from
 *	its rcvd_bytes counter (robust to lost SACKs; 0 if not known)
 */
struct mrc_cc_ack {
	u64 now;
	u32 acked_bytes;
	u32 rcvd_bytes;
	u64 rtt_ns;
	u8 ecn;
	u8 rwnd_penalty;
	u8 restore;
	u32 inflight;
	u64 srtt_ns;
};

/**
 * struct mrc_cc_counters - decisions taken, for tests and telemetry.
 * @pi: proportional increases (no ECN, delay below target)
 * @fi: fair increases (no ECN, delay above target)
 * @md: multiplicative decreases (ECN, delay above target)
 * @hold: holds (ECN, delay below target)
 * @trim: window cuts for trims
 * @timeout: window cuts for timeouts
 * @loss: window cuts for losses inferred before their timeout
 * @restore: windows restored after a spurious timeout
 * @qa: QuickAdapt window resets (uec)
 * @fast: fast increases (uec)
 * @adjust: batched window adjustments (uec)
 * @share_cuts: window cuts to the host's initial-window share
 * @refund: loss and timeout cuts given back because a path failure
 *	explained them
 */
struct mrc_cc_counters {
	u64 pi;
	u64 fi;
	u64 md;
	u64 hold;
	u64 trim;
	u64 timeout;
	u64 loss;
	u64 restore;
	u64 qa;
	u64 fast;
	u64 adjust;
	u64 share_cuts;
	u64 refund;
};

/**
 * struct mrc_cc_uec - UEC NSCC state and parameters derived from the base
 * RTT and link rate (mrc_cc_uec.c has the algorithm).
 * @target_ns: target queueing delay (target_qdelay_pm of the base RTT)
 * @fast_ns: queueing delay below which the fabric counts as empty
 * @pi_bytes: proportional increase per window of acks at zero delay
 *	(4 mss x scaling_a x scaling_b)
 * @fi_bytes: fair increase per window of acks (5 mss x scaling_a)
 * @eta_bytes: additive increase per adjustment period (0.15 mss x a)
 * @fast_pm: fast increase, per mille of the acked bytes (250 x a)
 * @inc_acc: increases accumulated until the next adjustment, bytes x bytes
 *	(the adjustment divides by the window)
 * @avg_delay_ns: EWMA (1/80) of queueing delay samples
 * @achieved: bytes acknowledged in the current QuickAdapt period
 * @received: bytes acknowledged since the last adjustment
 * @to_ignore: after a QuickAdapt, congestion signals are ignored for the
 *	bytes then in flight
 * @ignored: bytes acknowledged since that QuickAdapt
 * @fi_count: bytes acknowledged in a row at a near-zero delay
 * @qa_end_ns: end of the current QuickAdapt period
 * @last_adjust_ns: time of the last eta increase
 * @base_seen_ns: base RTT the parameters were derived from
 * @inflight: bytes in flight at the last ack (a trim's QuickAdapt ignores
 *	the signals of what was then in flight)
 * @trigger_qa: a trim or loss since the last QuickAdapt check
 * @fast: in fast increase
 */
struct mrc_cc_uec {
	u64 target_ns;
	u64 fast_ns;
	u64 pi_bytes;
	u64 fi_bytes;
	u64 eta_bytes;
	u64 fast_pm;
	u64 inc_acc;
	u64 avg_delay_ns;
	u64 achieved;
	u64 received;
	u64 to_ignore;
	u64 ignored;
	u64 fi_count;
	u64 qa_end_ns;
	u64 last_adjust_ns;
	u64 base_seen_ns;
	u32 inflight;
	u8 trigger_qa;
	u8 fast;
};

struct mrc_cc;

/**
 * struct mrc_cc_ops - one congestion-control algorithm.
 * @id: enum mrc_cc_algo
 * @name: short name
 * @init: set the initial window from cc->p (already resolved)
 * @on_ack: a SACK acknowledged data
 * @on_nack: a NACK (enum mrc_nack_reason) for a packet of @bytes payload
 * @on_timeout: one or more packets timed out at @now (called once per
 *	timer pass, not per packet)
 * @on_loss: a packet of @bytes payload was inferred lost: packets sent
 *	after it were delivered (called per packet)
 * @cwnd: current window in payload bytes (>= cc->p.min_wnd_bytes)
 */
struct mrc_cc_ops {
	u8 id;
	const char *name;
	void (*init)(struct mrc_cc *cc, u64 now);
	void (*on_ack)(struct mrc_cc *cc, const struct mrc_cc_ack *a);
	void (*on_nack)(struct mrc_cc *cc, u64 now, u8 reason, u32 bytes);
	void (*on_timeout)(struct mrc_cc *cc, u64 now);
	void (*on_loss)(struct mrc_cc *cc, u64 now, u32 bytes);
	u32 (*cwnd)(const struct mrc_cc *cc);
};

/**
 * struct mrc_cc - per-connection congestion-control state.
 * @ops: the algorithm
 * @p: profile with every default resolved
 * @cwnd: window in bytes, before the receiver penalty
 * @penalty: last receiver window penalty (0..127)
 * @saved_cwnd: window before the last timeout cut (0: none)
 * @base_rtt_ns: configured, else minimum RTT seen (0: unknown)
 * @learn_base: @base_rtt_ns is learned
 * @auto_max: max_wnd_bytes follows 1.5 x BDP of the learned base RTT
 * @avg_qdelay_ns: EWMA (1/8) of queueing delay samples
 * @last_md_ns: time of the last multiplicative decrease
 * @last_to_ns: time of the last window cut for a timeout
 * @srtt_ns: the requester's smoothed RTT, from the last SACK
 * @fi_acc: fair-increase remainder (bytes * bytes)
 * @pi_acc: proportional-increase remainder
 * @share: the host's initial-window share (NULL: none)
 * @share_state: enum mrc_cc_share_state
 * @u: state of MRC_CC_UEC only (mrc_cc_uec.c)
 * @cnt: counters
 */
struct mrc_cc {
	const struct mrc_cc_ops *ops;
	struct mrc_cc_profile p;
	u32 cwnd;
	u32 penalty;
	u32 saved_cwnd;
	u64 base_rtt_ns;
	u8 learn_base;
	u8 auto_max;
	u64 avg_qdelay_ns;
	u64 last_md_ns;
	u64 last_to_ns;
	u64 srtt_ns;
	u64 fi_acc;
	u64 pi_acc;
	struct mrc_iw_share *share;
	u8 share_state;
	struct mrc_cc_uec u;
	struct mrc_cc_counters cnt;
};

/**
 * enum mrc_cc_share_state - a connection's part in its host's initial
 * window (struct mrc_iw_share).
 * @MRC_CC_SHARE_IDLE: no data sent yet: not counted
 * @MRC_CC_SHARE_STARTING: data sent, none acknowledged or timed out:
 *	counted in the share's @starting, window held to its share
 * @MRC_CC_SHARE_DONE: the first window is over (or no share): the
 *	algorithm alone sets the window from now on
 */
enum mrc_cc_share_state {
	MRC_CC_SHARE_IDLE = 0,
	MRC_CC_SHARE_STARTING = 1,
	MRC_CC_SHARE_DONE = 2,
};

extern const struct mrc_cc_ops mrc_cc_nscc_ops;
extern const struct mrc_cc_ops mrc_cc_fixed_ops;
extern const struct mrc_cc_ops mrc_cc_uec_ops;

const struct mrc_cc_ops *mrc_cc_find(u8 id);
void mrc_cc_profile_defaults(struct mrc_cc_profile *p);
int mrc_cc_init(struct mrc_cc *cc, u8 id, const struct mrc_cc_profile *prof,
		u32 mtu, u64 now);
void mrc_cc_on_ack(struct mrc_cc *cc, const struct mrc_cc_ack *a);
void mrc_cc_on_nack(struct mrc_cc *cc, u64 now, u8 reason, u32 bytes);
void mrc_cc_on_timeout(struct mrc_cc *cc, u64 now);
void mrc_cc_on_loss(struct mrc_cc *cc, u64 now, u32 bytes);
void mrc_cc_refund(struct mrc_cc *cc, u32 bytes);
void mrc_cc_undo_timeout(struct mrc_cc *cc);
u32 mrc_cc_cwnd(const struct mrc_cc *cc);
u32 mrc_cc_bdp_wnd(const struct mrc_cc_profile *p, u64 rtt_ns);
void mrc_cc_clamp(struct mrc_cc *cc);
bool mrc_cc_learn_base(struct mrc_cc *cc, u64 rtt);
void mrc_cc_ack_receiver(struct mrc_cc *cc, const struct mrc_cc_ack *a);
void mrc_cc_timeout_cut(struct mrc_cc *cc, u64 now, u64 rtt);
u32 mrc_cc_penalised_wnd(const struct mrc_cc *cc);
void mrc_cc_share_on_tx(struct mrc_cc *cc);
void mrc_cc_share_leave(struct mrc_cc *cc);

#endif /* MRC_CC_H */
