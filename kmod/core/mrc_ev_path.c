// SPDX-License-Identifier: GPL-2.0 OR MIT
/*
 * mrc_ev_path.c - verdicts on whole paths, from the EVs that share them.
 *
 * An EV names one path: the host sends EV e of plane p on path
 * entropy(e) % plane_paths[p] of the route (mrc_output.c), so every EV of
 * a path crosses the same spine. The EV machine (mrc_ev.c) judges each EV
 * alone, from its own packets: with 16 EVs on a dead spine each has to
 * lose its own packets before it leaves the rotation, one flowcell after
 * another for a whole rotation, and a spine that drops 15 % keeps its EVs
 * flapping between a loss verdict and the next answered probe. Here the
 * EVs of a path are judged together (cfg.failover, enum mrc_failover):
 *
 * Dead path (MRC_FO_PATH_RETIRE). When MRC_PATH_DEAD_EVS EVs of one path
 * fell silent (timeout, or a repeated inferred loss) in as many separate
 * events (timer passes, SACKs) within a window, no
 * packet sent on the path since the first of those losses was delivered,
 * and the connection delivered packets sent later on other paths (the
 * network works, this path does not: not a stalled host), every EV of the
 * path is ASSUMED_BAD at once (cause MRC_EVC_PATH). Those that fell silent
 * keep their own probes, backing off as before; the others are quiet
 * (@by_path), so a dead spine costs the probes of two EVs, not of sixteen.
 * The first answer (or late acknowledgment) of any EV of the path revives
 * the quiet ones with it. The EVs one timer pass condemns count as one: a
 * pass that runs late (the guest did not run; mrc_timer_stalled() gives
 * the receive path only one grace period) times out the flowcells in
 * flight on every path at once, two EVs of a live path among them, while
 * their acknowledgments wait in a queue. A dead path condemns its EVs one
 * flowcell rotation apart, each in a pass of its own, so the rule costs a
 * real failure at most one more rotation. Live paths are still retired
 * when their queue outlasts the RTO and two EVs time out in separate
 * passes; a late acknowledgment revives them within the millisecond (7
 * times in one silent cut of the bench). Waiting for a window of silence
 * before that verdict was tried and not shown to pay (mrc-bench.rst).
 *
 * Gray path (MRC_FO_GRAY). Each path keeps a loss-rate estimate, an EWMA
 * over its packets (1/256 each: delivered 0, lost 1), and the connection
 * one over all of them (1/1024). The path's weight sets its noise: at 3 %
 * random loss on every path its estimate spreads by 0.75 % (one standard
 * deviation), so the verdict below sits four of them away; from the
 * revived estimate a path dropping 15 % reaches it in about 90 packets.
 * A path whose estimate reaches MRC_GRAY_HI_PM
 * per mille and MRC_GRAY_RATIO times the connection's, after
 * MRC_GRAY_WARMUP samples, while its plane keeps another live path, is
 * demoted whole (cause MRC_EVC_GRAY) for a hold time: probe_max_interval
 * at first, doubling (up to MRC_GRAY_HOLD_MAX_SHIFT doublings) when it is
 * found gray again within four holds of coming back. One EV of the path
 * probes at the end of the hold; answers before it keep the EVs quiet.
 * Back, the path's estimate starts at MRC_GRAY_LO_PM, below the verdict
 * (hysteresis) but close enough that a path still dropping 15 % is judged
 * again within about 90 of its packets. Random loss spread over every
 * path (a lossy fabric) moves the connection's estimate with the path's:
 * the ratio keeps such paths in use.
 *
 * Paths are tracked per plane up to MRC_EV_PATHS_MAX; a plane with more
 * (or with an unknown count) gets no path verdicts, only the EV machine.
 */
#include "mrc_ev.h"

/* Paths tracked per plane; more leave the plane to per-EV verdicts. */
#define MRC_EV_PATHS_MAX	64
/* EVs of one path that must fall silent before the path is retired. */
#define MRC_PATH_DEAD_EVS	2
/* Gray verdict: loss rate per mille, and times the connection's. */
#define MRC_GRAY_HI_PM		50
#define MRC_GRAY_RATIO		2
/* A path back from gray starts its estimate here (hysteresis). */
#define MRC_GRAY_LO_PM		10
/* Samples of a path before its estimate is judged. */
#define MRC_GRAY_WARMUP		128
/* EWMA weights: 1 / 2^shift per packet of the path, of the connection. */
#define MRC_GRAY_EWMA_SHIFT	8
#define MRC_LOSS_ALL_SHIFT	10
/* The gray hold doubles at most this many times (probe_max << 6). */
#define MRC_GRAY_HOLD_MAX_SHIFT	6

#define MRC_FP_ONE		65536u
#define MRC_PM_TO_FP(pm)	((u32)(pm) * MRC_FP_ONE / 1000u)

/**
 * mrc_ev_paths_init() - size the per-path state from cfg.plane_paths.
 * @m: manager (n_planes and the probe intervals set)
 * @cfg: configuration
 * @may_sleep: the allocation may sleep
 *
 * Return: MRC_OK or MRC_E_NOMEM.
 */
int mrc_ev_paths_init(struct mrc_ev_mgr *m, const struct mrc_conn_cfg *cfg,
		      bool may_sleep)
{
	u32 n = 0, k, i;
	u8 pl;

	m->path = NULL;
	m->n_path = 0;
	for (pl = 0; pl < cfg->n_planes; pl++) {
		k = cfg->plane_paths[pl];
		if (k > MRC_EV_PATHS_MAX)
			k = 0;
		m->plane[pl].path_first = (u16)n;
		m->plane[pl].n_paths = (u16)k;
		n += k;
	}
	if (!n)
		return MRC_OK;
	m->path = mrc_plat_zalloc(sizeof(*m->path) * n, may_sleep);
	if (!m->path)
		return MRC_E_NOMEM;
	m->n_path = (u16)n;
	for (i = 0; i < n; i++)
		m->path[i].gray_hold_ns = m->probe_max_ns;
	return MRC_OK;
}

/**
 * mrc_ev_paths_destroy() - free the per-path state.
 * @m: manager
 */
void mrc_ev_paths_destroy(struct mrc_ev_mgr *m)
{
	mrc_plat_free(m->path);
	m->path = NULL;
	m->n_path = 0;
}

/**
 * mrc_ev_path_of() - the path an EV is sent on.
 * @m: manager
 * @idx: EV index
 *
 * Return: its path, or NULL where the plane's paths are not tracked.
 */
struct mrc_ev_path *mrc_ev_path_of(const struct mrc_ev_mgr *m, int idx)
{
	const struct mrc_ev_entry *e = &m->ev[idx];
	const struct mrc_ev_plane *pl = &m->plane[e->plane];

	if (!pl->n_paths || !m->path)
		return NULL;
	return &m->path[pl->path_first +
			mrc_ev_entropy(e->value) % pl->n_paths];
}

/* The EVs of @p's plane that are on @p, in index order, from *@i on. */
static int path_next_ev(const struct mrc_ev_mgr *m,
			const struct mrc_ev_path *p, u8 plane, u16 *i)
{
	const struct mrc_ev_plane *pl = &m->plane[plane];

	for (; *i < pl->first + pl->count; (*i)++)
		if (mrc_ev_path_of(m, *i) == p)
			return (*i)++;
	return -1;
}

/* Another path of @plane than @p that is not retired. */
static bool plane_has_other_live_path(const struct mrc_ev_mgr *m, u8 plane,
				      const struct mrc_ev_path *p)
{
	const struct mrc_ev_plane *pl = &m->plane[plane];
	u16 k;

	for (k = 0; k < pl->n_paths; k++) {
		const struct mrc_ev_path *q = &m->path[pl->path_first + k];

		if (q != p && !q->retired)
			return true;
	}
	return false;
}

/*
 * A path came back: its EVs rejoined the rotation only where the plane was
 * short, so the plane's other paths keep the slots they took while it was
 * out (a plane of two paths ran 16 EVs on one and 8 on the other, twice
 * the load on one spine, until other verdicts churned it). Slots move
 * from the plane's busiest live path to its least busy one, a GOOD active
 * EV out for a GOOD backup in, until they differ by at most one.
 */
static void path_rebalance(struct mrc_ev_mgr *m, u64 now, u8 plane)
{
	const struct mrc_ev_plane *pl = &m->plane[plane];
	u8 n[MRC_EV_PATHS_MAX];
	int out, in, busy, idle;
	u16 i, k, round;

	if (pl->n_paths < 2)
		return;
	for (round = 0; round < pl->count; round++) {
		mrc_memset(n, 0, sizeof(n));
		for (i = pl->first; i < pl->first + pl->count; i++)
			if (m->ev[i].active)
				n[mrc_ev_path_of(m, i) - m->path - pl->path_first]++;
		busy = -1;
		idle = -1;
		for (k = 0; k < pl->n_paths; k++) {
			if (m->path[pl->path_first + k].retired)
				continue;
			if (busy < 0 || n[k] > n[busy])
				busy = k;
			if (idle < 0 || n[k] < n[idle])
				idle = k;
		}
		if (busy < 0 || n[busy] <= n[idle] + 1)
			return;
		out = -1;
		in = -1;
		for (i = pl->first; i < pl->first + pl->count; i++) {
			k = mrc_ev_path_of(m, i) - m->path - pl->path_first;
			if (m->ev[i].state != MRC_EV_GOOD)
				continue;
			if (k == busy && m->ev[i].active)
				out = i;
			else if (k == idle && !m->ev[i].active)
				in = i;
		}
		if (out < 0 || in < 0)
			return;
		mrc_ev_swap_active(m, now, out, in);
	}
}

/*
 * Retire every GOOD/SKIP EV of @p (the backups first, so that none of them
 * replaces an active one of the same path), quiet: no probes of their own.
 * A gray path keeps one sentinel EV that probes at the end of the hold.
 */
static void path_retire(struct mrc_ev_mgr *m, u64 now, struct mrc_ev_path *p,
			u8 plane, u8 cause)
{
	struct mrc_ev_entry *e;
	int idx, sentinel = -1;
	u16 i;
	u8 pass;

	p->retired = cause;
	p->silent = 0;
	p->silent_since_ns = 0;
	if (cause == MRC_EVC_GRAY) {
		m->paths_gray++;
		if (p->revived_ns && now - p->revived_ns < 4 * p->gray_hold_ns) {
			if (p->gray_hold_ns < m->probe_max_ns << MRC_GRAY_HOLD_MAX_SHIFT)
				p->gray_hold_ns <<= 1;
		} else {
			p->gray_hold_ns = m->probe_max_ns;
		}
		p->gray_until_ns = now + p->gray_hold_ns;
	} else {
		m->paths_retired++;
		m->dead_pending = 1;
	}
	for (pass = 0; pass < 2; pass++) {
		i = m->plane[plane].first;
		while ((idx = path_next_ev(m, p, plane, &i)) >= 0) {
			e = &m->ev[idx];
			if (!!e->active != !!pass)
				continue;
			if (e->state != MRC_EV_GOOD && e->state != MRC_EV_SKIP) {
				/* Silent on its own: it keeps probing. */
				if (cause == MRC_EVC_GRAY &&
				    e->state == MRC_EV_ASSUMED_BAD) {
					e->by_path = 1;
					if (sentinel < 0)
						sentinel = idx;
				}
				continue;
			}
			if (!mrc_ev_demote(m, now, idx, MRC_EV_ASSUMED_BAD,
					   cause, true))
				continue;
			e->by_path = 1;
			e->probe_sent_ns = 0;
			e->next_probe_ns = MRC_NO_DEADLINE;
			if (sentinel < 0)
				sentinel = idx;
		}
	}
	if (cause == MRC_EVC_GRAY && sentinel >= 0) {
		e = &m->ev[sentinel];
		e->by_path = 0;
		e->probe_backoff = 0;
		e->probe_sent_ns = 0;
		e->next_probe_ns = p->gray_until_ns;
	}
	mrc_ev_probe_recompute(m);
}

/**
 * mrc_ev_path_verdict() - what the EV's path was found to be.
 * @m: manager
 * @idx: EV index
 *
 * Return: 0 (live, or paths not tracked), MRC_EVC_PATH (dead) or
 * MRC_EVC_GRAY (lossy).
 */
u8 mrc_ev_path_verdict(const struct mrc_ev_mgr *m, int idx)
{
	const struct mrc_ev_path *p = mrc_ev_path_of(m, idx);

	return p ? p->retired : 0;
}

/**
 * mrc_ev_path_delivered() - a packet sent on this EV was acknowledged.
 * @m: manager
 * @idx: EV index of the transmission acknowledged
 * @tx_ns: its send time
 *
 * A loss-estimator sample of 0 for the connection and the path, whose
 * delivery frontier moves to @tx_ns if later.
 */
void mrc_ev_path_delivered(struct mrc_ev_mgr *m, int idx, u64 tx_ns)
{
	struct mrc_ev_path *p = mrc_ev_path_of(m, idx);
	struct mrc_ev_plane *pl = &m->plane[m->ev[idx].plane];

	m->ev[idx].lost_run = 0;
	m->loss_all_fp -= m->loss_all_fp >> MRC_LOSS_ALL_SHIFT;
	if (tx_ns > m->delivered_tx_ns)
		m->delivered_tx_ns = tx_ns;
	if (tx_ns > pl->delivered_tx_ns)
		pl->delivered_tx_ns = tx_ns;
	if (!p)
		return;
	if (tx_ns > p->delivered_tx_ns)
		p->delivered_tx_ns = tx_ns;
	p->loss_fp -= p->loss_fp >> MRC_GRAY_EWMA_SHIFT;
	if (p->samples < 0xffff)
		p->samples++;
}

/*
 * A path that reached the gray verdict but delivered nothing sent since
 * its first loss, while the connection delivered later packets elsewhere,
 * is dead, not lossy: with a flowcell of one packet (ev_burst=1) each of
 * a dead spine's 16 EVs loses one packet within a rotation, 16 samples
 * that reach the gray threshold before any EV loses its second (the
 * silence rule). Held as gray it kept its in-flight packets waiting for
 * their timeouts, its revival waiting for the hold, and MRC_INFO counted
 * no dead path (paths_retired 0 in mrc_fabric_xfer.sh, CI of 812e957).
 */
static bool path_dead_by_losses(const struct mrc_ev_mgr *m,
				const struct mrc_ev_path *p)
{
	return (m->failover & MRC_FO_PATH_RETIRE) &&
	       p->lost_tx_ns > p->delivered_tx_ns &&
	       m->delivered_tx_ns > p->lost_tx_ns;
}

/**
 * mrc_ev_path_lost() - a packet sent on this EV was lost (timeout or
 * inferred).
 * @m: manager
 * @now: current time
 * @idx: EV index
 * @tx_ns: when the lost packet was sent
 *
 * A loss-estimator sample of 1, once per run of losses on the EV: a
 * flowcell (up to 32 packets on one EV) lost whole to a stalled guest or
 * a burst is one event, not 32 samples of the path's loss rate, which
 * is about packets lost one by one (a spine dropping 15 %). A path that
 * turns gray is demoted, retired as dead if it delivered nothing since
 * (path_dead_by_losses()).
 *
 * Return: a sample of 1 was taken (mrc_ev_path_lost_undo() takes it back).
 */
bool mrc_ev_path_lost(struct mrc_ev_mgr *m, u64 now, int idx, u64 tx_ns)
{
	struct mrc_ev_path *p = mrc_ev_path_of(m, idx);
	u8 plane = m->ev[idx].plane;

	if (p && tx_ns > p->delivered_tx_ns &&
	    (p->lost_tx_ns <= p->delivered_tx_ns || tx_ns < p->lost_tx_ns))
		p->lost_tx_ns = tx_ns;
	if (m->ev[idx].lost_run)
		return false;
	m->ev[idx].lost_run = 1;
	m->loss_all_fp += (MRC_FP_ONE - m->loss_all_fp) >> MRC_LOSS_ALL_SHIFT;
	if (!p)
		return true;
	p->loss_fp += (MRC_FP_ONE - p->loss_fp) >> MRC_GRAY_EWMA_SHIFT;
	if (p->samples < 0xffff)
		p->samples++;
	if (!(m->failover & MRC_FO_GRAY) || p->retired ||
	    p->samples < MRC_GRAY_WARMUP ||
	    p->loss_fp < MRC_PM_TO_FP(MRC_GRAY_HI_PM) ||
	    p->loss_fp < (u64)MRC_GRAY_RATIO * m->loss_all_fp ||
	    !plane_has_other_live_path(m, plane, p))
		return true;
	if (path_dead_by_losses(m, p)) {
		p->first_lost_tx_ns = p->lost_tx_ns;
		path_retire(m, now, p, plane, MRC_EVC_PATH);
		return true;
	}
	path_retire(m, now, p, plane, MRC_EVC_GRAY);
	return true;
}

/**
 * mrc_ev_path_lost_undo() - a packet whose loss was sampled was delivered.
 * @m: manager
 * @idx: EV index of the transmission declared lost
 *
 * A spurious timeout or reordering verdict (the requester's late ack)
 * took a sample of 1 where the truth was 0. The difference, one EWMA gain
 * (1/2^shift of MRC_FP_ONE) when taken, has decayed by every sample since:
 * taking back the whole gain over-corrects by at most that decay, within
 * the few round trips a late ack comes in, and never below 0. Without it a
 * TCG guest's stalls (92-322 spurious timeouts a bench run) raised the
 * loss estimates the gray verdict compares, and a slow path that lost
 * nothing could be judged gray for its late acks alone.
 */
void mrc_ev_path_lost_undo(struct mrc_ev_mgr *m, int idx)
{
	struct mrc_ev_path *p = mrc_ev_path_of(m, idx);
	u32 gain = MRC_FP_ONE >> MRC_LOSS_ALL_SHIFT;

	m->loss_all_fp = m->loss_all_fp > gain ? m->loss_all_fp - gain : 0;
	if (!p)
		return;
	gain = MRC_FP_ONE >> MRC_GRAY_EWMA_SHIFT;
	p->loss_fp = p->loss_fp > gain ? p->loss_fp - gain : 0;
}

/**
 * mrc_ev_path_silent() - an EV of the path was condemned by silence.
 * @m: manager
 * @now: current time
 * @idx: EV index (just made ASSUMED_BAD)
 * @tx_ns: send time of the packet that was never acknowledged
 * @window_ns: silences further apart start a new count
 *
 * Retires the path when MRC_PATH_DEAD_EVS of its EVs fell silent within
 * @window_ns, at as many distinct times @now (the EVs one timer pass or
 * one SACK condemns count once), nothing sent on it since the first of
 * those packets was delivered, and something sent later on another path
 * was.
 */
void mrc_ev_path_silent(struct mrc_ev_mgr *m, u64 now, int idx, u64 tx_ns,
			u64 window_ns)
{
	struct mrc_ev_path *p = mrc_ev_path_of(m, idx);

	if (!(m->failover & MRC_FO_PATH_RETIRE) || !p || p->retired)
		return;
	if (!p->silent_since_ns || now - p->silent_since_ns > window_ns) {
		p->silent_since_ns = now ? now : 1;
		p->silent = 0;
		p->first_lost_tx_ns = tx_ns;
	}
	if (tx_ns < p->first_lost_tx_ns)
		p->first_lost_tx_ns = tx_ns;
	if (p->silent && p->silent_pass_ns == now)
		return;
	p->silent_pass_ns = now;
	if (p->silent < 0xffff)
		p->silent++;
	if (p->silent < MRC_PATH_DEAD_EVS ||
	    p->delivered_tx_ns >= p->first_lost_tx_ns ||
	    m->delivered_tx_ns <= p->first_lost_tx_ns)
		return;
	path_retire(m, now, p, m->ev[idx].plane, MRC_EVC_PATH);
}

/*
 * @p is live again: its silence count starts over and its quiet EVs but
 * @except (-1: none) are GOOD (@cause). The caller rebalances the plane
 * (path_rebalance()) and refreshes the probe deadline.
 */
static void path_come_back(struct mrc_ev_mgr *m, u64 now,
			   struct mrc_ev_path *p, u8 plane, u8 cause,
			   int except)
{
	u16 i = m->plane[plane].first;
	int k;

	p->retired = 0;
	p->silent = 0;
	p->silent_since_ns = 0;
	while ((k = path_next_ev(m, p, plane, &i)) >= 0)
		if (k != except && m->ev[k].state == MRC_EV_ASSUMED_BAD &&
		    m->ev[k].by_path)
			mrc_ev_revive(m, now, k, cause);
}

/**
 * mrc_ev_path_port_down() - the plane's port was announced down.
 * @m: manager
 * @now: current time
 * @plane: plane index
 *
 * The port's failure explains a dead-path verdict whose silence began
 * after the plane last delivered (mrc_ev_set_plane_up() does the same for
 * single EVs): the path is live again, its quiet EVs GOOD (cause
 * MRC_EVC_PORT), masked with the plane. A verdict the plane outlived
 * (it delivered a packet sent after the path's first loss) and a gray
 * verdict stand.
 */
void mrc_ev_path_port_down(struct mrc_ev_mgr *m, u64 now, u8 plane)
{
	const struct mrc_ev_plane *pl = &m->plane[plane];
	struct mrc_ev_path *p;
	bool back = false;
	u16 k;

	for (k = 0; k < pl->n_paths; k++) {
		p = &m->path[pl->path_first + k];
		if (p->retired != MRC_EVC_PATH ||
		    p->first_lost_tx_ns <= pl->delivered_tx_ns)
			continue;
		path_come_back(m, now, p, plane, MRC_EVC_PORT, -1);
		back = true;
	}
	if (back)
		path_rebalance(m, now, plane);
}

/*
 * An EV of a held gray path was heard from before the hold ends. An EV
 * that probes on its own account (the sentinel path_retire() chose, or one
 * condemned again since) probes next at the end of the hold: the answer
 * may be to what it sent before the verdict, and a sentinel made quiet
 * would leave the path without a probe, retired for good. The others stay
 * quiet.
 */
static void path_hold_answered(struct mrc_ev_mgr *m,
			       const struct mrc_ev_path *p, int idx)
{
	struct mrc_ev_entry *e = &m->ev[idx];

	if (e->by_path)
		return;
	e->probe_backoff = 0;
	e->probe_sent_ns = 0;
	e->next_probe_ns = p->gray_until_ns;
	mrc_ev_probe_recompute(m);
}

/**
 * mrc_ev_path_answered() - an ASSUMED_BAD EV was heard from (its probe
 * answered, or its lost packet acknowledged late).
 * @m: manager
 * @now: current time
 * @idx: EV index
 * @tx_ns: when what was answered left (the probe, the packet)
 *
 * A retired path comes back with it: its quiet EVs are GOOD again (cause
 * of the retirement) and rejoin the rotation where their plane is short.
 * Not for a packet sent before the losses that retired a dead path: it
 * crossed the path before it failed (its acknowledgment was what got
 * lost, on the way back), which says nothing of the path now. A gray path
 * does not come back before its hold ends: the EV stays ASSUMED_BAD (the
 * sentinel probes at the end of the hold, path_hold_answered()). In both
 * cases the caller must leave the EV as it is.
 *
 * Return: true if the caller may make @idx GOOD.
 */
bool mrc_ev_path_answered(struct mrc_ev_mgr *m, u64 now, int idx,
			  u64 tx_ns)
{
	struct mrc_ev_path *p = mrc_ev_path_of(m, idx);
	u8 plane = m->ev[idx].plane, cause;

	if (!p || !p->retired)
		return true;
	cause = p->retired;
	if (cause == MRC_EVC_PATH && tx_ns <= p->first_lost_tx_ns)
		return false;
	if (cause == MRC_EVC_GRAY && now < p->gray_until_ns) {
		path_hold_answered(m, p, idx);
		return false;
	}
	if (cause == MRC_EVC_GRAY) {
		p->revived_ns = now ? now : 1;
		p->loss_fp = MRC_PM_TO_FP(MRC_GRAY_LO_PM);
		p->samples = MRC_GRAY_WARMUP;
	}
	path_come_back(m, now, p, plane, cause, idx);
	path_rebalance(m, now, plane);
	mrc_ev_probe_recompute(m);
	return true;
}
