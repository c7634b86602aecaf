// SPDX-License-Identifier: GPL-2.0 OR MIT
/*
 * mrc_cc_nscc.c - NSCC-style congestion control (the default).
 *
 * One window per connection, clocked by SACKs, steered by two signals: ECN
 * (the SACK's ECN summary: some packet it covers was CE-marked mid-fabric)
 * and queueing delay (RTT sample minus the base RTT) against a target of
 * target_qdelay_pm per mille of the base RTT:
 *
 *                    delay < target            delay >= target
 *   no ECN     proportional increase        fair (additive) increase
 *   ECN        hold                          multiplicative decrease
 *
 * Proportional increase: +acked * pi_gain * (target - delay) / target,
 *   i.e. up to pi_gain (per mille) of the window per RTT when the fabric
 *   is empty, fading to zero at the target.
 * Fair increase: +fi_bytes per window's worth of acked bytes (one fi_bytes
 *   per RTT, the same for every connection: converges to fairness).
 * Multiplicative decrease: -window * min(max_md, gamma * (delay - target)
 *   / delay), at most once per base RTT.
 * Trims (NACK TRIMMED / TRIMMED_LASTHOP) and losses inferred from later
 * deliveries (mrc_req_loss.c) remove the packet's bytes: a sprayed
 * connection sees single drops on one path of many (corruption, a flap),
 * and halving the window for each would cost every other path its share;
 * persistent congestion shows as delay and ECN first;
 * a timeout pass cuts by max_md, at most once per smoothed RTT (the packets
 * of one window time out in several timer passes: one loss event, one cut),
 * and remembers the old window, restored if the timeout proves spurious
 * (the receiver reports the retransmission as a duplicate, restore_cwnd, or
 * the requester sees the timed-out transmission acknowledged). The
 * receiver window penalty p (0..127) scales the usable window by
 * (128 - p) / 128. Everything is integer arithmetic.
 */
#include "mrc_cc.h"

static void nscc_init(struct mrc_cc *cc, u64 now)
{
	(void)now;
	cc->cwnd = cc->p.init_wnd_bytes;
	cc->last_md_ns = 0;
	cc->last_to_ns = 0;
	cc->avg_qdelay_ns = 0;
	cc->fi_acc = 0;
	cc->pi_acc = 0;
	mrc_cc_clamp(cc);
}

static void nscc_increase(struct mrc_cc *cc, u64 inc)
{
	u64 w = (u64)cc->cwnd + inc;

	cc->cwnd = w > cc->p.max_wnd_bytes ? cc->p.max_wnd_bytes : (u32)w;
}

static void nscc_md(struct mrc_cc *cc, u64 now, u64 frac_pm)
{
	u64 interval = cc->base_rtt_ns ? cc->base_rtt_ns : MRC_CC_DEFAULT_RTT_NS;

	if (cc->last_md_ns && now - cc->last_md_ns < interval) {
		cc->cnt.hold++;
		return;
	}
	if (frac_pm > cc->p.max_md_pm)
		frac_pm = cc->p.max_md_pm;
	cc->cwnd -= (u32)mrc_div64((u64)cc->cwnd * frac_pm, 1000);
	cc->last_md_ns = now ? now : 1;
	cc->cnt.md++;
	mrc_cc_clamp(cc);
}

static void nscc_on_ack(struct mrc_cc *cc, const struct mrc_cc_ack *a)
{
	u64 q, target, frac_pm, inc;
	bool ecn = a->ecn != MRC_ECN_NONE;

	mrc_cc_ack_receiver(cc, a);
	if (a->rtt_ns) {
		mrc_cc_learn_base(cc, a->rtt_ns);
		q = a->rtt_ns > cc->base_rtt_ns ? a->rtt_ns - cc->base_rtt_ns : 0;
		cc->avg_qdelay_ns = cc->avg_qdelay_ns - (cc->avg_qdelay_ns >> 3) +
				    (q >> 3);
	} else {
		q = cc->avg_qdelay_ns;
	}
	target = mrc_div64(cc->base_rtt_ns * cc->p.target_qdelay_pm, 1000);

	if (!ecn) {
		if (!a->acked_bytes)
			return;
		if (!cc->base_rtt_ns || q < target) {
			/* Proportional increase. */
			frac_pm = cc->p.pi_gain_pm;
			if (cc->base_rtt_ns)
				frac_pm = mrc_div64(frac_pm * (target - q), target);
			cc->pi_acc += (u64)a->acked_bytes * frac_pm;
			inc = mrc_div64(cc->pi_acc, 1000);
			cc->pi_acc -= inc * 1000;
			nscc_increase(cc, inc);
			cc->cnt.pi++;
		} else {
			/* Fair increase. */
			cc->fi_acc += (u64)cc->p.fi_bytes * a->acked_bytes;
			inc = mrc_div64(cc->fi_acc, cc->cwnd);
			cc->fi_acc -= inc * cc->cwnd;
			nscc_increase(cc, inc);
			cc->cnt.fi++;
		}
		mrc_cc_clamp(cc);
		return;
	}
	if (!cc->base_rtt_ns) {
		/* ECN without any delay information: a moderate decrease. */
		nscc_md(cc, a->now, cc->p.max_md_pm / 2);
	} else if (q >= target) {
		frac_pm = q ? mrc_div64(cc->p.gamma_pm * (q - target), q) : 0;
		nscc_md(cc, a->now, frac_pm);
	} else {
		cc->cnt.hold++;
	}
}

static void nscc_on_nack(struct mrc_cc *cc, u64 now, u8 reason, u32 bytes)
{
	(void)now;
	if (reason != MRC_NACK_TRIMMED && reason != MRC_NACK_TRIMMED_LASTHOP)
		return;
	cc->cnt.trim++;
	cc->cwnd = cc->cwnd > bytes ? cc->cwnd - bytes : 0;
	mrc_cc_clamp(cc);
}

static void nscc_on_timeout(struct mrc_cc *cc, u64 now)
{
	u64 rtt = cc->srtt_ns ? cc->srtt_ns : cc->base_rtt_ns;

	cc->cnt.timeout++;
	mrc_cc_timeout_cut(cc, now, rtt);
}

static void nscc_on_loss(struct mrc_cc *cc, u64 now, u32 bytes)
{
	(void)now;
	cc->cnt.loss++;
	cc->cwnd = cc->cwnd > bytes ? cc->cwnd - bytes : 0;
	mrc_cc_clamp(cc);
}

const struct mrc_cc_ops mrc_cc_nscc_ops = {
	.id = MRC_CC_NSCC,
	.name = "nscc",
	.init = nscc_init,
	.on_ack = nscc_on_ack,
	.on_nack = nscc_on_nack,
	.on_timeout = nscc_on_timeout,
	.on_loss = nscc_on_loss,
	.cwnd = mrc_cc_penalised_wnd,
};
