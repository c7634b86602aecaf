// SPDX-License-Identifier: GPL-2.0 OR MIT
/*
 * mrc_cc.c - congestion-control registry, common helpers and the fixed
 * window algorithm.
 *
 * The registry is a constant table indexed by enum mrc_cc_algo: no global
 * mutable state, nothing to lock. Adding an algorithm means adding an ops
 * table and an entry here.
 */
#include "mrc_cc.h"

#define MRC_CC_WND_CAP		0x40000000u	/* 1 GiB */
#define MRC_CC_DEF_LINK_MBPS	100000u

static const struct mrc_cc_ops *const mrc_cc_registry[MRC_CC_NR] = {
	[MRC_CC_NSCC] = &mrc_cc_nscc_ops,
	[MRC_CC_FIXED] = &mrc_cc_fixed_ops,
	[MRC_CC_UEC] = &mrc_cc_uec_ops,
};

/**
 * mrc_cc_find() - look an algorithm up by id.
 * @id: enum mrc_cc_algo
 *
 * Return: its ops, or NULL if @id is unknown.
 */
const struct mrc_cc_ops *mrc_cc_find(u8 id)
{
	if (id >= MRC_CC_NR)
		return NULL;
	return mrc_cc_registry[id];
}

/**
 * mrc_cc_profile_defaults() - the published NSCC defaults (UEC 1.0.3).
 * @p: filled; derived fields are left 0 ("derive at init")
 *
 * Target queueing delay 0.75 x base RTT, window ceiling 1.5 x BDP (also the
 * initial window), gamma 0.8, largest multiplicative decrease 0.5, on a
 * 100 Gbit/s link with the base RTT learned from measurements.
 */
void mrc_cc_profile_defaults(struct mrc_cc_profile *p)
{
	mrc_memset(p, 0, sizeof(*p));
	p->link_mbps = MRC_CC_DEF_LINK_MBPS;
	p->target_qdelay_pm = 750;
	p->gamma_pm = 800;
	p->max_md_pm = 500;
	p->pi_gain_pm = 500;
}

/**
 * mrc_cc_bdp_wnd() - 1.5 x bandwidth-delay product.
 * @p: profile (link_mbps, min_wnd_bytes used)
 * @rtt_ns: round-trip time
 *
 * Return: the window in bytes, within [min_wnd_bytes, 2^30].
 */
u32 mrc_cc_bdp_wnd(const struct mrc_cc_profile *p, u64 rtt_ns)
{
	/* Mbit/s * ns / 8000 = bytes; * 3 / 2 = 1.5 BDP. */
	u64 w = mrc_div64((u64)p->link_mbps * rtt_ns * 3, 16000);

	if (w > MRC_CC_WND_CAP)
		w = MRC_CC_WND_CAP;
	if (w < p->min_wnd_bytes)
		w = p->min_wnd_bytes;
	return (u32)w;
}

/**
 * mrc_cc_init() - resolve the profile and start an algorithm.
 * @cc: state (zeroed by the caller)
 * @id: enum mrc_cc_algo
 * @prof: profile (0 fields take their derived defaults)
 * @mtu: the connection's payload bytes per packet
 * @now: current time
 *
 * Return: MRC_OK, or MRC_E_INVAL for an unknown @id.
 */
int mrc_cc_init(struct mrc_cc *cc, u8 id, const struct mrc_cc_profile *prof,
		u32 mtu, u64 now)
{
	struct mrc_cc_profile *p = &cc->p;

	cc->ops = mrc_cc_find(id);
	if (!cc->ops)
		return MRC_E_INVAL;
	*p = *prof;
	if (!p->mtu)
		p->mtu = mtu;
	if (!p->link_mbps)
		p->link_mbps = MRC_CC_DEF_LINK_MBPS;
	if (!p->target_qdelay_pm)
		p->target_qdelay_pm = 750;
	if (!p->gamma_pm)
		p->gamma_pm = 800;
	if (!p->max_md_pm || p->max_md_pm > 1000)
		p->max_md_pm = 500;
	if (!p->pi_gain_pm)
		p->pi_gain_pm = 500;
	if (!p->fi_bytes)
		p->fi_bytes = p->mtu;
	if (!p->min_wnd_bytes)
		p->min_wnd_bytes = p->mtu;
	cc->base_rtt_ns = p->base_rtt_ns;
	cc->learn_base = !p->base_rtt_ns;
	cc->auto_max = !p->max_wnd_bytes;
	if (!p->max_wnd_bytes)
		p->max_wnd_bytes = mrc_cc_bdp_wnd(p, p->base_rtt_ns ?
						  p->base_rtt_ns :
						  MRC_CC_DEFAULT_RTT_NS);
	if (p->max_wnd_bytes < p->min_wnd_bytes)
		p->max_wnd_bytes = p->min_wnd_bytes;
	if (!p->init_wnd_bytes || p->init_wnd_bytes > p->max_wnd_bytes)
		p->init_wnd_bytes = p->max_wnd_bytes;
	if (p->init_wnd_bytes < p->min_wnd_bytes)
		p->init_wnd_bytes = p->min_wnd_bytes;
	if (!p->fixed_wnd_bytes)
		p->fixed_wnd_bytes = p->max_wnd_bytes;
	cc->ops->init(cc, now);
	return MRC_OK;
}

/**
 * mrc_cc_on_ack() - feed a SACK to the algorithm.
 * @cc: state
 * @a: what the SACK said
 */
void mrc_cc_on_ack(struct mrc_cc *cc, const struct mrc_cc_ack *a)
{
	if (a->srtt_ns)
		cc->srtt_ns = a->srtt_ns;
	if (a->acked_bytes)
		mrc_cc_share_leave(cc);
	cc->ops->on_ack(cc, a);
}

/**
 * mrc_cc_on_nack() - feed a NACK to the algorithm.
 * @cc: state
 * @now: current time
 * @reason: enum mrc_nack_reason
 * @bytes: payload bytes of the NACKed packet
 */
void mrc_cc_on_nack(struct mrc_cc *cc, u64 now, u8 reason, u32 bytes)
{
	cc->ops->on_nack(cc, now, reason, bytes);
}

/**
 * mrc_cc_on_timeout() - tell the algorithm a timer pass expired packets.
 * @cc: state
 * @now: current time
 */
void mrc_cc_on_timeout(struct mrc_cc *cc, u64 now)
{
	mrc_cc_share_leave(cc);
	cc->ops->on_timeout(cc, now);
}

/**
 * mrc_cc_on_loss() - tell the algorithm a packet was inferred lost.
 * @cc: state
 * @now: current time
 * @bytes: payload bytes of the lost packet
 */
void mrc_cc_on_loss(struct mrc_cc *cc, u64 now, u32 bytes)
{
	cc->ops->on_loss(cc, now, bytes);
}

/**
 * mrc_cc_refund() - give back a loss cut that a path failure explained.
 * @cc: state
 * @bytes: what mrc_cc_on_loss() took for those losses
 *
 * The requester blames a path, not the window, once the loss turns out
 * to be a failure of the path it was sent on (MRC_FO_BLAME_PATH). Clamped
 * to the profile's window bounds.
 */
void mrc_cc_refund(struct mrc_cc *cc, u32 bytes)
{
	cc->cnt.refund++;
	cc->cwnd += bytes;
	mrc_cc_clamp(cc);
}

/**
 * mrc_cc_undo_timeout() - undo the last timeout cut: a path failure
 * explained it after all.
 * @cc: state
 *
 * The window before the cut (kept for a spurious timeout, see
 * mrc_cc_timeout_cut()) comes back if larger.
 */
void mrc_cc_undo_timeout(struct mrc_cc *cc)
{
	if (!cc->saved_cwnd)
		return;
	if (cc->saved_cwnd > cc->cwnd)
		cc->cwnd = cc->saved_cwnd;
	cc->saved_cwnd = 0;
	cc->cnt.refund++;
}

/**
 * mrc_cc_cwnd() - the window the requester obeys.
 * @cc: state
 *
 * Return: payload bytes that may be in flight.
 */
u32 mrc_cc_cwnd(const struct mrc_cc *cc)
{
	return cc->ops->cwnd(cc);
}

/* ---- helpers shared by the NSCC algorithms (nscc, uec) ---- */

/**
 * mrc_cc_clamp() - keep the window within [min_wnd_bytes, max_wnd_bytes].
 * @cc: state
 */
void mrc_cc_clamp(struct mrc_cc *cc)
{
	if (cc->cwnd > cc->p.max_wnd_bytes)
		cc->cwnd = cc->p.max_wnd_bytes;
	if (cc->cwnd < cc->p.min_wnd_bytes)
		cc->cwnd = cc->p.min_wnd_bytes;
}

/**
 * mrc_cc_learn_base() - an RTT sample below the learned base RTT becomes
 * the base (and, with auto_max, sets max_wnd_bytes to 1.5 x the BDP of
 * the new base, the window clamped to it).
 * @cc: state
 * @rtt: the RTT sample, ns
 *
 * A configured base RTT (profile base_rtt_ns) is never replaced.
 *
 * Return: true if the base RTT changed (what the algorithm derives from it
 * is then due again).
 */
bool mrc_cc_learn_base(struct mrc_cc *cc, u64 rtt)
{
	if (!cc->learn_base || (cc->base_rtt_ns && rtt >= cc->base_rtt_ns))
		return false;
	cc->base_rtt_ns = rtt;
	if (cc->auto_max) {
		cc->p.max_wnd_bytes = mrc_cc_bdp_wnd(&cc->p, rtt);
		mrc_cc_clamp(cc);
	}
	return true;
}

/**
 * mrc_cc_ack_receiver() - what every SACK says besides acknowledgments:
 * the receiver window penalty, and restore_cwnd (spurious timeout).
 * @cc: state
 * @a: the SACK
 */
void mrc_cc_ack_receiver(struct mrc_cc *cc, const struct mrc_cc_ack *a)
{
	cc->penalty = a->rwnd_penalty > MRC_CC_PENALTY_MAX ?
		      MRC_CC_PENALTY_MAX : a->rwnd_penalty;
	if (a->restore && cc->saved_cwnd) {
		if (cc->saved_cwnd > cc->cwnd)
			cc->cwnd = cc->saved_cwnd;
		cc->saved_cwnd = 0;
		cc->cnt.restore++;
	}
}

/**
 * mrc_cc_timeout_cut() - cut the window by max_md for a timeout pass, at
 * most once per @rtt, remembering the window before (restored if the
 * timeout proves spurious).
 * @cc: state
 * @now: current time
 * @rtt: the smoothed RTT, else the base RTT
 */
void mrc_cc_timeout_cut(struct mrc_cc *cc, u64 now, u64 rtt)
{
	if (cc->last_to_ns && now >= cc->last_to_ns && now - cc->last_to_ns < rtt)
		return;
	cc->last_to_ns = now ? now : 1;
	if (!cc->saved_cwnd || cc->cwnd > cc->saved_cwnd)
		cc->saved_cwnd = cc->cwnd;
	cc->cwnd -= (u32)mrc_div64((u64)cc->cwnd * cc->p.max_md_pm, 1000);
	mrc_cc_clamp(cc);
}

/**
 * mrc_cc_penalised_wnd() - the window scaled by the receiver penalty p,
 * cwnd x (128 - p) / 128, never below min_wnd_bytes.
 * @cc: state
 *
 * Return: payload bytes that may be in flight.
 */
u32 mrc_cc_penalised_wnd(const struct mrc_cc *cc)
{
	u64 w = mrc_div64((u64)cc->cwnd * (128 - cc->penalty), 128);

	return w < cc->p.min_wnd_bytes ? cc->p.min_wnd_bytes : (u32)w;
}

/* ---- MRC_CC_FIXED: a constant window, ignores every signal ---- */

static void fixed_init(struct mrc_cc *cc, u64 now)
{
	(void)now;
	cc->cwnd = cc->p.fixed_wnd_bytes;
}

static void fixed_on_ack(struct mrc_cc *cc, const struct mrc_cc_ack *a)
{
	(void)cc;
	(void)a;
}

static void fixed_on_nack(struct mrc_cc *cc, u64 now, u8 reason, u32 bytes)
{
	(void)now;
	(void)bytes;
	if (reason == MRC_NACK_TRIMMED || reason == MRC_NACK_TRIMMED_LASTHOP)
		cc->cnt.trim++;
}

static void fixed_on_timeout(struct mrc_cc *cc, u64 now)
{
	(void)now;
	cc->cnt.timeout++;
}

static void fixed_on_loss(struct mrc_cc *cc, u64 now, u32 bytes)
{
	(void)now;
	(void)bytes;
	cc->cnt.loss++;
}

static u32 fixed_cwnd(const struct mrc_cc *cc)
{
	return cc->cwnd;
}

const struct mrc_cc_ops mrc_cc_fixed_ops = {
	.id = MRC_CC_FIXED,
	.name = "fixed",
	.init = fixed_init,
	.on_ack = fixed_on_ack,
	.on_nack = fixed_on_nack,
	.on_timeout = fixed_on_timeout,
	.on_loss = fixed_on_loss,
	.cwnd = fixed_cwnd,
};
