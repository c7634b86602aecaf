// SPDX-License-Identifier: GPL-2.0 OR MIT
/*
 * mrc_ev.c - entropy-value (path) manager.
 *
 * "Silence means failure, a trim means congestion." Feedback about a path
 * arrives as the EV echoed by SACKs and NACKs and as packet timeouts; this
 * file turns it into the per-EV state machine:
 *
 *   GOOD --ECN mark / NACK TRIMMED--> SKIP --rotation passes it--> GOOD
 *   GOOD|SKIP --timeout--> ASSUMED_BAD --probe answered--> GOOD
 *   any --admin deny--> DENIED --admin allow--> GOOD
 *
 * and keeps the active rotation filled from backups of the same plane.
 * Verdicts on the whole path an EV shares with others (a dead or a gray
 * spine) are mrc_ev_path.c's.
 */
#include "mrc_ev.h"

#define MRC_EV_HASH_MULT	0x9E3779B1u
#define MRC_EV_PROBE_BACKOFF_MAX 20
/*
 * Probes a connection sends while its peer acknowledges nothing before
 * they are paced as one: each further probe waits probe_interval << k (k
 * the probes past these, up to probe_max) after the previous one,
 * whichever EV it is for. Each EV backs off on its own (1 ms doubling to
 * 64 ms by default), but a connection has 128 of them: when every one is
 * bad at once (the peer, or this host's egress, silent; a CPU too busy to
 * forward), that was ~2,000 probes a second, each answered if it arrived,
 * on a host already short of time. While anything is acknowledged (one
 * plane or spine dead, the others carrying traffic) the gate stays open.
 */
#define MRC_EV_QUIET_PROBES_FREE 8
#define MRC_EV_GEN_TRIES	16
/* Path counts up to this balance replacements by path load (find_backup()). */
#define MRC_EV_BALANCE_PATHS	64
#define MRC_EV_ENTROPY_SPACE	0x1000000u	/* 24 bits */
/* Deterministic steps of gen_value(): see there. */
#define MRC_EV_GEN_STEPS	(2 * MRC_EV_MAX + 1026)

static u32 ev_hash(const struct mrc_ev_mgr *m, u32 value)
{
	return (value * MRC_EV_HASH_MULT) >> 7 & m->hash_mask;
}

/**
 * mrc_ev_find() - look an EV value up.
 * @m: manager
 * @value: EV as echoed by the peer (untrusted)
 *
 * Return: the EV index, or -1 if @value is not one of ours.
 */
int mrc_ev_find(const struct mrc_ev_mgr *m, u32 value)
{
	u32 h = ev_hash(m, value);
	u32 i;

	for (i = 0; i <= m->hash_mask; i++) {
		u16 slot = m->hash[(h + i) & m->hash_mask];

		if (!slot)
			return -1;
		if (m->ev[slot - 1].value == value)
			return slot - 1;
	}
	return -1;
}

static void ev_hash_insert(struct mrc_ev_mgr *m, u32 value, u16 idx)
{
	u32 h = ev_hash(m, value);
	u32 i;

	for (i = 0; i <= m->hash_mask; i++) {
		u16 *slot = &m->hash[(h + i) & m->hash_mask];

		if (!*slot) {
			*slot = idx + 1;
			return;
		}
	}
}

static void ev_emit(struct mrc_ev_mgr *m, u64 now, int idx, u8 old, u8 cause)
{
	const struct mrc_ev_entry *e = &m->ev[idx];
	struct mrc_event ev;

	mrc_memset(&ev, 0, sizeof(ev));
	ev.type = MRC_EVT_EV_STATE;
	ev.time_ns = now;
	ev.u.ev.ev = e->value;
	ev.u.ev.index = (u16)idx;
	ev.u.ev.plane = e->plane;
	ev.u.ev.old_state = old;
	ev.u.ev.new_state = e->state;
	ev.u.ev.active = e->active;
	ev.u.ev.cause = cause;
	mrc_evq_push(m->evq, &ev);
}

/**
 * mrc_ev_set_state() - move an EV to @state and tell the event queue.
 * @m: manager
 * @now: current time
 * @idx: EV index
 * @state: enum mrc_ev_state
 * @cause: enum mrc_ev_cause
 *
 * Every change ends a retirement with the path (@by_path: the path code
 * sets it again after its own demotions).
 */
void mrc_ev_set_state(struct mrc_ev_mgr *m, u64 now, int idx, u8 state,
		      u8 cause)
{
	struct mrc_ev_entry *e = &m->ev[idx];
	u8 old = e->state;

	e->state = state;
	e->by_path = 0;
	e->silent_tx_ns = 0;
	ev_emit(m, now, idx, old, cause);
}

/* A usable EV carries traffic when its plane is up: GOOD or SKIP, active. */
static bool ev_usable(const struct mrc_ev_mgr *m, const struct mrc_ev_entry *e)
{
	return e->active && (e->state == MRC_EV_GOOD || e->state == MRC_EV_SKIP) &&
	       ((m->plane_up >> e->plane) & 1u);
}

/**
 * mrc_ev_usable() - count the EVs the floor protects.
 * @m: manager
 *
 * Return: active EVs in state GOOD or SKIP whose plane is up.
 */
u32 mrc_ev_usable(const struct mrc_ev_mgr *m)
{
	u32 n = 0;
	u16 i;

	for (i = 0; i < m->n_rot; i++)
		if (ev_usable(m, &m->ev[m->rot[i]]))
			n++;
	return n;
}

static void rot_shuffle(struct mrc_ev_mgr *m)
{
	u16 i, j, t;

	for (i = m->n_rot; i > 1; i--) {
		j = (u16)mrc_rng_below(m->rng, i);
		t = m->rot[i - 1];
		m->rot[i - 1] = m->rot[j];
		m->rot[j] = t;
	}
	/* Never hand out the same EV twice in a row across the boundary. */
	if (m->n_rot > 1 && m->last_pick >= 0 && m->rot[0] == m->last_pick) {
		t = m->rot[0];
		m->rot[0] = m->rot[m->n_rot - 1];
		m->rot[m->n_rot - 1] = t;
	}
	for (i = 0; i < m->n_rot; i++)
		m->ev[m->rot[i]].rot_pos = i;
	m->cursor = 0;
	m->picks = 0;
	m->reshuffles++;
}

static void rot_add(struct mrc_ev_mgr *m, int idx)
{
	struct mrc_ev_entry *e = &m->ev[idx];

	e->rot_pos = m->n_rot;
	e->active = 1;
	m->rot[m->n_rot++] = (u16)idx;
	m->plane[e->plane].n_active++;
}

static void rot_remove(struct mrc_ev_mgr *m, int idx)
{
	struct mrc_ev_entry *e = &m->ev[idx];
	u16 pos = e->rot_pos;
	u16 last = m->rot[m->n_rot - 1];

	m->rot[pos] = last;
	m->ev[last].rot_pos = pos;
	m->n_rot--;
	e->active = 0;
	m->plane[e->plane].n_active--;
}

/* @rep (a backup) takes @idx's place in the rotation. */
static void rot_replace(struct mrc_ev_mgr *m, int idx, int rep)
{
	struct mrc_ev_entry *e = &m->ev[idx];
	struct mrc_ev_entry *r = &m->ev[rep];

	r->rot_pos = e->rot_pos;
	r->active = 1;
	m->rot[e->rot_pos] = (u16)rep;
	e->active = 0;
	m->plane[e->plane].n_active--;
	m->plane[r->plane].n_active++;
}

/* The path (of its plane) an EV lands on, when the host told the count. */
static u32 ev_path(const struct mrc_ev_mgr *m, const struct mrc_ev_entry *e)
{
	return mrc_ev_entropy(e->value) % m->paths_per_plane;
}

/*
 * A GOOD backup of @plane to take the place of @victim (an active EV of
 * that plane, or -1), scanning from a random start; -1 if none.
 *
 * With the plane's path count known (paths_per_plane, up to
 * MRC_EV_BALANCE_PATHS), the backup goes to the path with the fewest
 * active EVs once @victim has left, and not to @victim's own path while
 * another has a backup: @victim is leaving for a loss, a timeout or the
 * receiver's verdict, so its path is suspect, and a random pick could
 * double one path's load (issue 16). The least-loaded choice also undoes
 * the drift those exclusions cause: the next demotion elsewhere refills
 * the path that lost an EV.
 */
static int find_backup(struct mrc_ev_mgr *m, u8 plane, int victim)
{
	const struct mrc_ev_plane *p = &m->plane[plane];
	u8 load[MRC_EV_BALANCE_PATHS];
	bool balance = m->paths_per_plane &&
		       m->paths_per_plane <= MRC_EV_BALANCE_PATHS;
	u32 vpath = ~0u, path, best_load = ~0u;
	int best = -1, best_same = -1;
	u16 start, k, idx;

	if (!p->count)
		return -1;
	if (balance) {
		mrc_memset(load, 0, sizeof(load));
		for (k = 0; k < p->count; k++) {
			idx = p->first + k;
			if (!m->ev[idx].active || idx == victim)
				continue;
			path = ev_path(m, &m->ev[idx]);
			if (load[path] < 0xff)
				load[path]++;
		}
		if (victim >= 0)
			vpath = ev_path(m, &m->ev[victim]);
	}
	start = (u16)mrc_rng_below(m->rng, p->count);
	for (k = 0; k < p->count; k++) {
		const struct mrc_ev_entry *e;

		idx = p->first + (u16)((start + k) % p->count);
		e = &m->ev[idx];
		if (e->active || e->state != MRC_EV_GOOD)
			continue;
		if (!balance)
			return idx;
		path = ev_path(m, e);
		if (path == vpath) {
			if (best_same < 0)
				best_same = idx;
			continue;
		}
		if (load[path] < best_load) {
			best_load = load[path];
			best = idx;
		}
	}
	return best >= 0 ? best : best_same;
}

/* A GOOD backup of any other up plane; -1 if none. */
static int find_backup_any(struct mrc_ev_mgr *m, u8 except)
{
	u8 start, k, pl;
	int rep;

	start = (u8)mrc_rng_below(m->rng, m->n_planes);
	for (k = 0; k < m->n_planes; k++) {
		pl = (u8)((start + k) % m->n_planes);
		if (pl == except || !((m->plane_up >> pl) & 1u))
			continue;
		rep = find_backup(m, pl, -1);
		if (rep >= 0)
			return rep;
	}
	return -1;
}

/*
 * probe_interval << @k (@k at most MRC_EV_PROBE_BACKOFF_MAX), capped at
 * probe_max and against the shift overflowing: one EV's backoff after @k
 * probes, and the connection's pacing after @k unacknowledged ones.
 */
static u64 ev_probe_ival(const struct mrc_ev_mgr *m, u32 k)
{
	u64 ival;

	if (k > MRC_EV_PROBE_BACKOFF_MAX)
		k = MRC_EV_PROBE_BACKOFF_MAX;
	ival = m->probe_interval_ns << k;
	if (ival > m->probe_max_ns || (ival >> k) != m->probe_interval_ns)
		ival = m->probe_max_ns;
	return ival;
}

/**
 * mrc_ev_probe_recompute() - refresh the cached probe deadline.
 * @m: manager
 *
 * The earliest probe of an ASSUMED_BAD EV on an up plane, not one retired
 * with its path (those are probed through the EVs that condemned it), and
 * not before the connection's probe gate.
 */
void mrc_ev_probe_recompute(struct mrc_ev_mgr *m)
{
	u64 d = MRC_NO_DEADLINE;
	u16 i;

	for (i = 0; i < m->n_ev; i++) {
		const struct mrc_ev_entry *e = &m->ev[i];

		if (e->state == MRC_EV_ASSUMED_BAD && !e->by_path &&
		    ((m->plane_up >> e->plane) & 1u) && e->next_probe_ns < d)
			d = e->next_probe_ns;
	}
	if (d != MRC_NO_DEADLINE && d < m->probe_gate_ns)
		d = m->probe_gate_ns;
	m->probe_deadline = d;
}

/*
 * The peer acknowledged something we sent: the connection's probes are
 * no longer paced as one (MRC_EV_QUIET_PROBES_FREE).
 */
static void ev_peer_heard(struct mrc_ev_mgr *m)
{
	if (!m->quiet_probes)
		return;
	m->quiet_probes = 0;
	if (m->probe_gate_ns) {
		m->probe_gate_ns = 0;
		mrc_ev_probe_recompute(m);
	}
}

/**
 * mrc_ev_demote() - take an EV out of the rotation into @state.
 * @m: manager
 * @now: current time
 * @idx: EV index
 * @state: the state it goes to (ASSUMED_BAD or DENIED)
 * @cause: enum mrc_ev_cause
 * @floor: obey the ev_min_active floor
 *
 * A GOOD backup of the same plane takes its slot. With @floor, if no such
 * backup exists and the usable count would fall below min_active, a GOOD
 * backup of another plane is borrowed; if there is none either the
 * demotion is refused.
 *
 * Return: true if @idx was demoted.
 */
bool mrc_ev_demote(struct mrc_ev_mgr *m, u64 now, int idx, u8 state,
		   u8 cause, bool floor)
{
	struct mrc_ev_entry *e = &m->ev[idx];
	u32 usable_after;
	int rep;

	if (!e->active) {
		mrc_ev_set_state(m, now, idx, state, cause);
		return true;
	}
	rep = find_backup(m, e->plane, idx);
	if (rep < 0) {
		usable_after = mrc_ev_usable(m) - (ev_usable(m, e) ? 1 : 0);
		if (floor && usable_after < m->min_active) {
			rep = find_backup_any(m, e->plane);
			if (rep < 0) {
				m->floor_holds++;
				ev_emit(m, now, idx, e->state,
					MRC_EVC_FLOOR_HOLD);
				return false;
			}
		}
	}
	if (rep >= 0) {
		rot_replace(m, idx, rep);
		ev_emit(m, now, rep, m->ev[rep].state, MRC_EVC_PROMOTE);
	} else {
		rot_remove(m, idx);
	}
	e->skip_left = 0;
	mrc_ev_set_state(m, now, idx, state, cause);
	return true;
}

/**
 * mrc_ev_maybe_promote() - a GOOD EV out of the rotation may rejoin it.
 * @m: manager
 * @now: current time
 * @idx: EV index, just made GOOD
 *
 * It rejoins if its plane is short of its target or the connection is
 * below the floor; otherwise it stays a GOOD backup.
 */
void mrc_ev_maybe_promote(struct mrc_ev_mgr *m, u64 now, int idx)
{
	struct mrc_ev_entry *e = &m->ev[idx];
	const struct mrc_ev_plane *p = &m->plane[e->plane];

	if (e->active)
		return;
	if (p->n_active < p->target_active || mrc_ev_usable(m) < m->min_active) {
		rot_add(m, idx);
		ev_emit(m, now, idx, e->state, MRC_EVC_PROMOTE);
	}
}

/*
 * A path index not used yet by the EVs first..first+@j-1 of the plane's
 * current block of k_paths EVs.
 */
static u32 gen_path(struct mrc_ev_mgr *m, u16 first, u16 j, u32 k_paths)
{
	u32 path = 0, tries, i, e;
	bool dup;

	/*
	 * Past the first k_paths EVs, each further block of k_paths gets the
	 * paths once more: the EVs (and, the active ones being the first of
	 * the plane, the active set) spread evenly over the paths.
	 */
	if (j >= k_paths) {
		first += (u16)(j / k_paths * k_paths);
		j %= k_paths;
	}
	/* Random tries, then a linear scan: a free path exists (j < k_paths). */
	for (tries = 0; tries < MRC_EV_GEN_TRIES + k_paths; tries++) {
		if (tries < MRC_EV_GEN_TRIES)
			path = mrc_rng_below(m->rng, k_paths);
		else
			path = (path + 1) % k_paths;
		dup = false;
		for (i = 0; i < j && !dup; i++) {
			e = mrc_ev_entropy(m->ev[first + i].value);
			dup = e % k_paths == path;
		}
		if (!dup)
			break;
	}
	return path;
}

/*
 * An EV value of @plane on @path not in the table yet and whose source
 * port is allowed (mrc_ev_sport_ok()): random tries, then deterministic
 * steps of k_paths (which keep the path). The steps cycle the source port
 * through 65536 / gcd(k_paths, 65536) values, of which at most two are
 * forbidden (one below 1024, MRC_UDP_PORT), so unless k_paths is a multiple
 * of 65536 at most half the steps are forbidden, at most MRC_EV_MAX values
 * are taken, and MRC_EV_GEN_STEPS steps always find a good one. A path
 * count that pins the port (simulator configurations only: the kernel's
 * is at most MRC_EV_MAX) can force a forbidden port; the value is still
 * unique.
 */
static u32 gen_value(struct mrc_ev_mgr *m, u8 plane, u32 path, u32 k_paths)
{
	u32 step = k_paths ? k_paths : 1;
	u32 ent = 0, v = 0, spare = 0, tries;
	bool have_spare = false;

	for (tries = 0; tries < MRC_EV_GEN_TRIES + MRC_EV_GEN_STEPS; tries++) {
		if (tries < MRC_EV_GEN_TRIES) {
			if (k_paths)
				ent = path + k_paths *
				      mrc_rng_below(m->rng, MRC_EV_ENTROPY_SPACE / k_paths);
			else
				ent = mrc_rng_u32(m->rng);
		} else {
			ent += step;
		}
		v = mrc_ev_make(plane, ent);
		if (mrc_ev_find(m, v) >= 0)
			continue;
		if (mrc_ev_sport_ok(mrc_ev_to_udp_sport(v)))
			return v;
		if (!have_spare) {
			spare = v;
			have_spare = true;
		}
	}
	return have_spare ? spare : v;
}

static void gen_values(struct mrc_ev_mgr *m, const struct mrc_conn_cfg *cfg)
{
	u32 k_paths = cfg->paths_per_plane;
	u16 first, j, idx;
	u32 path;
	u8 pl;

	for (pl = 0; pl < cfg->n_planes; pl++) {
		first = (u16)(pl * cfg->ev_per_plane);
		for (j = 0; j < cfg->ev_per_plane; j++) {
			idx = first + j;
			path = k_paths ? gen_path(m, first, j, k_paths) : 0;
			m->ev[idx].value = gen_value(m, pl, path, k_paths);
			m->ev[idx].plane = pl;
			m->ev[idx].state = MRC_EV_GOOD;
			m->ev[idx].next_probe_ns = MRC_NO_DEADLINE;
			ev_hash_insert(m, m->ev[idx].value, idx);
		}
	}
}

/**
 * mrc_ev_init() - build the EV table and the initial rotation.
 * @m: manager (zeroed by the caller)
 * @cfg: validated connection configuration
 * @rng: the connection's PRNG (used for values and rotation order)
 * @evq: where EV events go
 *
 * Return: MRC_OK or MRC_E_NOMEM.
 */
int mrc_ev_init(struct mrc_ev_mgr *m, const struct mrc_conn_cfg *cfg,
		struct mrc_rng *rng, struct mrc_evq *evq)
{
	u32 n = (u32)cfg->n_planes * cfg->ev_per_plane;
	u32 hsize = 1;
	u16 pl, j;

	while (hsize < 2 * n)
		hsize <<= 1;
	m->rng = rng;
	m->evq = evq;
	m->n_ev = (u16)n;
	m->n_planes = cfg->n_planes;
	m->min_active = cfg->ev_min_active;
	m->plane_up = cfg->plane_up_mask;
	m->room = ~0u;
	m->reshuffle_pkts = cfg->ev_reshuffle_pkts;
	m->probe_interval_ns = cfg->probe_interval_ns;
	m->probe_max_ns = cfg->probe_max_interval_ns;
	m->probe_deadline = MRC_NO_DEADLINE;
	m->probe_gate_ns = 0;
	m->quiet_probes = 0;
	m->paths_per_plane = cfg->paths_per_plane;
	m->failover = cfg->failover;
	m->balance_slack = 2 * cfg->mtu;
	m->last_pick = -1;
	m->hash_mask = hsize - 1;
	m->ev = mrc_plat_zalloc(sizeof(*m->ev) * n, cfg->alloc_may_sleep);
	m->rot = mrc_plat_zalloc(sizeof(*m->rot) * n, cfg->alloc_may_sleep);
	m->hash = mrc_plat_zalloc(sizeof(*m->hash) * hsize,
				  cfg->alloc_may_sleep);
	if (!m->ev || !m->rot || !m->hash ||
	    mrc_ev_paths_init(m, cfg, cfg->alloc_may_sleep) != MRC_OK) {
		mrc_ev_destroy(m);
		return MRC_E_NOMEM;
	}
	gen_values(m, cfg);
	for (pl = 0; pl < cfg->n_planes; pl++) {
		m->plane[pl].first = (u16)(pl * cfg->ev_per_plane);
		m->plane[pl].count = cfg->ev_per_plane;
		m->plane[pl].target_active = cfg->ev_active_per_plane;
		for (j = 0; j < cfg->ev_active_per_plane; j++)
			rot_add(m, m->plane[pl].first + j);
	}
	rot_shuffle(m);
	m->reshuffles = 0;
	return MRC_OK;
}

/**
 * mrc_ev_destroy() - free the EV table.
 * @m: manager (may be partially initialised)
 */
void mrc_ev_destroy(struct mrc_ev_mgr *m)
{
	mrc_plat_free(m->ev);
	mrc_plat_free(m->rot);
	mrc_plat_free(m->hash);
	mrc_ev_paths_destroy(m);
	m->ev = NULL;
	m->rot = NULL;
	m->hash = NULL;
}

/*
 * Bytes in flight above which a plane is passed over (MRC_FO_BALANCE):
 * the least loaded usable plane's, plus balance_slack, plus an eighth of
 * the mean. ~0 (no limit) with the rule off or fewer than two usable
 * planes to balance.
 *
 * Why: the rotation gives each plane a share in proportion to its active
 * EVs. A plane that lost a path (16 of 32 EVs retired) keeps only the
 * other path's EVs and gets 16 turns where the others get 24, though its
 * port and its surviving spine can carry as much as theirs: the others'
 * queues then hold the connection to 88/96 of its rate for as long as
 * the path stays dead (the silent cut of make bench, 0.89-0.94). Bytes in
 * flight measure what a plane holds, not what it was given: a plane that
 * drains faster (shorter queue) runs lower and takes the turns the others
 * are denied, until the queues are even. With every plane alike the
 * limit only catches a plane that a run of picks put ahead by more than
 * the slack; that plane waits a turn, and each plane still carries a
 * quarter (EvBalanceTest.AlikePlanesCarryAlike).
 */
static u32 ev_balance_limit(const struct mrc_ev_mgr *m)
{
	u32 lo = ~0u, n = 0, b;
	u64 sum = 0;
	u8 pl;

	if (!(m->failover & MRC_FO_BALANCE))
		return ~0u;
	for (pl = 0; pl < m->n_planes; pl++) {
		if (!mrc_ev_plane_usable(m, pl) || !m->plane[pl].n_active)
			continue;
		b = m->plane[pl].inflight_bytes;
		if (b < lo)
			lo = b;
		sum += b;
		n++;
	}
	if (n < 2)
		return ~0u;
	return lo + m->balance_slack + (u32)(sum / (8 * n));
}

/**
 * mrc_ev_pick() - choose the EV for the next packet.
 * @m: manager
 * @now: current time
 * @avoid: EV index to avoid (the one a retransmitted packet last used),
 *	or -1
 *
 * Walks the rotation from the cursor. EVs on planes that are down or have
 * no transmit room are passed over without consuming anything. With no
 * plane usable at all (the host closed every room: its queues are full)
 * the rotation is not walked: a host that asks again and again while it
 * waits would otherwise reshuffle it at every wrap, and the EVs would no
 * longer take their turns evenly. A SKIP EV
 * is passed over and its skip count consumed (GOOD again at zero). The
 * rotation is reshuffled at every wrap and after reshuffle_pkts picks.
 * An EV of a plane that runs ahead of the others in bytes in flight
 * (ev_balance_limit()) is passed over unless nothing else can go.
 * @avoid is only returned when it is the single usable EV.
 *
 * Return: EV index, or -1 if no EV can be used now.
 */
int mrc_ev_pick(struct mrc_ev_mgr *m, u64 now, int avoid)
{
	struct mrc_ev_entry *e;
	int fallback = -1, ahead = -1;
	u32 i, limit, cap;
	u16 idx;

	if (!m->n_rot || !(m->plane_up & m->room))
		return -1;
	cap = ev_balance_limit(m);
	if (m->reshuffle_pkts && m->picks >= m->reshuffle_pkts)
		rot_shuffle(m);
	limit = 2u * m->n_rot + 1;
	for (i = 0; i < limit; i++) {
		if (m->cursor >= m->n_rot)
			rot_shuffle(m);
		idx = m->rot[m->cursor++];
		e = &m->ev[idx];
		if (!mrc_ev_plane_usable(m, e->plane))
			continue;
		if (e->state == MRC_EV_SKIP) {
			if (e->skip_left)
				e->skip_left--;
			if (!e->skip_left)
				mrc_ev_set_state(m, now, idx, MRC_EV_GOOD,
						 MRC_EVC_SKIP_DONE);
			continue;
		}
		if (e->state != MRC_EV_GOOD)
			continue;
		if (idx == avoid) {
			fallback = idx;
			continue;
		}
		if (m->plane[e->plane].inflight_bytes > cap) {
			if (ahead < 0)
				ahead = idx;
			continue;
		}
		m->picks++;
		m->last_pick = idx;
		return idx;
	}
	if (ahead >= 0)
		fallback = ahead;
	if (fallback >= 0) {
		m->picks++;
		m->last_pick = fallback;
	}
	return fallback;
}

/**
 * mrc_ev_on_sent() - count a data packet sent on an EV.
 * @m: manager
 * @idx: EV index
 */
void mrc_ev_on_sent(struct mrc_ev_mgr *m, int idx)
{
	m->ev[idx].cnt.sent++;
}

static void ev_skip(struct mrc_ev_mgr *m, u64 now, int idx, u8 rounds,
		    u8 cause)
{
	struct mrc_ev_entry *e = &m->ev[idx];

	if (e->state != MRC_EV_GOOD && e->state != MRC_EV_SKIP)
		return;
	if (e->skip_left < rounds)
		e->skip_left = rounds;
	if (e->state == MRC_EV_GOOD)
		mrc_ev_set_state(m, now, idx, MRC_EV_SKIP, cause);
}

/*
 * GOOD/SKIP -> ASSUMED_BAD, replaced in the rotation by a backup of the
 * same plane, subject to the ev_min_active floor (see mrc_ev_demote()),
 * and probed from probe_interval_ns on. A verdict of silence (@tx_ns: the
 * send time of the packet that was never acknowledged, 0 for other
 * causes) also counts against the EV's path (mrc_ev_path_silent()).
 */
static void ev_assume_bad(struct mrc_ev_mgr *m, u64 now, int idx, u8 cause,
			  u64 tx_ns, u64 window_ns)
{
	struct mrc_ev_entry *e = &m->ev[idx];

	if (e->state != MRC_EV_GOOD && e->state != MRC_EV_SKIP)
		return;
	if (!mrc_ev_demote(m, now, idx, MRC_EV_ASSUMED_BAD, cause, true))
		return;
	e->silent_tx_ns = tx_ns;
	e->probe_backoff = 0;
	e->probe_sent_ns = 0;
	e->next_probe_ns = now + m->probe_interval_ns;
	/* What mrc_ev_probe_recompute() would find, without the walk. */
	if (e->next_probe_ns < m->probe_deadline &&
	    ((m->plane_up >> e->plane) & 1u))
		m->probe_deadline = e->next_probe_ns > m->probe_gate_ns ?
				    e->next_probe_ns : m->probe_gate_ns;
	if (tx_ns)
		mrc_ev_path_silent(m, now, idx, tx_ns, window_ns);
}

/**
 * mrc_ev_on_sack() - a SACK echoed this EV.
 * @m: manager
 * @now: current time
 * @idx: EV index
 * @ecn: enum mrc_ecn_summary of the SACK (its M field)
 *
 * SKIP_ONCE makes a GOOD EV SKIP for one rotation pass. ALWAYS_SKIP is the
 * receiver's verdict that the path is bad: as in the public description of
 * MRC 1.0 the EV becomes ASSUMED_BAD (out of the rotation, probed back). A
 * SACK never revives an ASSUMED_BAD EV (it may acknowledge a packet sent
 * before the EV failed); only a probe does.
 */
void mrc_ev_on_sack(struct mrc_ev_mgr *m, u64 now, int idx, u8 ecn)
{
	struct mrc_ev_entry *e = &m->ev[idx];

	e->cnt.sacked++;
	ev_peer_heard(m);
	if (ecn == MRC_ECN_NONE)
		return;
	e->cnt.ecn++;
	if (ecn == MRC_ECN_ALWAYS_SKIP)
		ev_assume_bad(m, now, idx, MRC_EVC_ECN, 0, 0);
	else
		ev_skip(m, now, idx, 1, MRC_EVC_ECN);
}

/**
 * mrc_ev_on_nack() - a NACK echoed this EV.
 * @m: manager
 * @now: current time
 * @idx: EV index
 * @reason: enum mrc_nack_reason
 *
 * Only TRIMMED penalises the EV (SKIP for one pass): TRIMMED_LASTHOP and
 * the receiver-resource reasons are not the path's fault.
 */
void mrc_ev_on_nack(struct mrc_ev_mgr *m, u64 now, int idx, u8 reason)
{
	struct mrc_ev_entry *e = &m->ev[idx];

	e->cnt.nacked++;
	ev_peer_heard(m);
	if (reason == MRC_NACK_TRIMMED || reason == MRC_NACK_TRIMMED_LASTHOP)
		e->cnt.trimmed++;
	if (reason == MRC_NACK_TRIMMED)
		ev_skip(m, now, idx, 1, MRC_EVC_TRIM);
}

/**
 * mrc_ev_on_timeout() - a packet sent on this EV timed out (silent loss).
 * @m: manager
 * @now: current time
 * @idx: EV index
 * @tx_ns: when the packet was sent
 * @window_ns: silences of other EVs of its path within this long of each
 *	other retire the path (mrc_ev_path_silent())
 *
 * GOOD/SKIP -> ASSUMED_BAD, replaced in the rotation by a backup of the
 * same plane, subject to the ev_min_active floor (see mrc_ev_demote()).
 *
 * Return: the loss was a sample of its path's loss rate (to take back with
 * mrc_ev_path_lost_undo() if the packet turns out delivered).
 */
bool mrc_ev_on_timeout(struct mrc_ev_mgr *m, u64 now, int idx, u64 tx_ns,
		       u64 window_ns)
{
	bool sampled;

	m->ev[idx].cnt.timeouts++;
	sampled = mrc_ev_path_lost(m, now, idx, tx_ns);
	ev_assume_bad(m, now, idx, MRC_EVC_TIMEOUT, tx_ns ? tx_ns : 1,
		      window_ns);
	return sampled;
}

/**
 * mrc_ev_on_loss() - a packet sent on this EV was inferred lost.
 * @m: manager
 * @now: current time
 * @idx: EV index
 * @tx_ns: when the lost packet was sent
 * @window_ns: a second loss within this long of the previous one condemns
 *	the EV
 *
 * Deliveries on other EVs of packets sent after it show the path dropped
 * it (mrc_req_loss.c). One loss is not a path failure: at 1 % random loss
 * (bit errors, a congested hop) a verdict per loss kept a rotating third of
 * the EVs ASSUMED_BAD and cost 39 % of the goodput on the fabric model,
 * while a dead path loses every packet sent on it. So the second loss on
 * the same EV within @window_ns gives the timeout's verdict, sooner:
 * GOOD/SKIP -> ASSUMED_BAD, replaced by a backup, probed back; a late
 * acknowledgment revives it (mrc_ev_on_late_ack()). A sparse EV whose
 * losses are further apart is left to the timeout.
 *
 * Return: as mrc_ev_on_timeout().
 */
bool mrc_ev_on_loss(struct mrc_ev_mgr *m, u64 now, int idx, u64 tx_ns,
		    u64 window_ns)
{
	struct mrc_ev_entry *e = &m->ev[idx];
	bool repeat = e->last_loss_ns && now - e->last_loss_ns <= window_ns;
	bool sampled;

	e->cnt.lost++;
	e->last_loss_ns = now ? now : 1;
	sampled = mrc_ev_path_lost(m, now, idx, tx_ns);
	if (repeat)
		ev_assume_bad(m, now, idx, MRC_EVC_LOSS, tx_ns ? tx_ns : 1,
			      window_ns);
	return sampled;
}

/**
 * mrc_ev_probe_due() - an ASSUMED_BAD EV whose probe is due.
 * @m: manager
 * @now: current time
 *
 * Only EVs of planes that are up and have transmit room are probed.
 *
 * Return: EV index, or -1.
 */
int mrc_ev_probe_due(struct mrc_ev_mgr *m, u64 now)
{
	u16 i;

	if (m->probe_deadline > now || m->probe_gate_ns > now)
		return -1;
	for (i = 0; i < m->n_ev; i++) {
		const struct mrc_ev_entry *e = &m->ev[i];

		if (e->state == MRC_EV_ASSUMED_BAD && !e->by_path &&
		    mrc_ev_plane_usable(m, e->plane) && e->next_probe_ns <= now)
			return i;
	}
	return -1;
}

/**
 * mrc_ev_probe_sent() - a probe left on this EV.
 * @m: manager
 * @now: current time
 * @idx: EV index
 *
 * The next probe is scheduled after probe_interval << (probes so far),
 * capped at probe_max_interval. Past MRC_EV_QUIET_PROBES_FREE probes with
 * nothing acknowledged, the connection's next probe (any EV) waits as long
 * again, doubling per probe.
 */
void mrc_ev_probe_sent(struct mrc_ev_mgr *m, u64 now, int idx)
{
	struct mrc_ev_entry *e = &m->ev[idx];

	e->cnt.probes++;
	e->probe_sent_ns = now;
	e->next_probe_ns = now + ev_probe_ival(m, e->probe_backoff);
	if (e->probe_backoff < MRC_EV_PROBE_BACKOFF_MAX)
		e->probe_backoff++;
	if (m->quiet_probes < 0xffff)
		m->quiet_probes++;
	if (m->quiet_probes > MRC_EV_QUIET_PROBES_FREE)
		m->probe_gate_ns = now + ev_probe_ival(m, m->quiet_probes -
						       MRC_EV_QUIET_PROBES_FREE);
	mrc_ev_probe_recompute(m);
}

/**
 * mrc_ev_swap_active() - a backup takes an active EV's rotation slot.
 * @m: manager
 * @now: current time
 * @out: active EV, stays in its state as a backup
 * @in: inactive EV of the same plane
 */
void mrc_ev_swap_active(struct mrc_ev_mgr *m, u64 now, int out, int in)
{
	rot_replace(m, out, in);
	ev_emit(m, now, in, m->ev[in].state, MRC_EVC_PROMOTE);
}

/**
 * mrc_ev_revive() - an ASSUMED_BAD EV is GOOD again.
 * @m: manager
 * @now: current time
 * @idx: EV index
 * @cause: enum mrc_ev_cause (an answered probe, a late ack, its path)
 *
 * Its probes stop; it rejoins the rotation where its plane is short of
 * active EVs (mrc_ev_maybe_promote()). The caller refreshes the probe
 * deadline (mrc_ev_probe_recompute()), once for several EVs.
 */
void mrc_ev_revive(struct mrc_ev_mgr *m, u64 now, int idx, u8 cause)
{
	struct mrc_ev_entry *e = &m->ev[idx];

	e->next_probe_ns = MRC_NO_DEADLINE;
	e->probe_sent_ns = 0;
	e->probe_backoff = 0;
	mrc_ev_set_state(m, now, idx, MRC_EV_GOOD, cause);
	mrc_ev_maybe_promote(m, now, idx);
}

/**
 * mrc_ev_probe_answered() - a SACK with pr=1 echoed this EV.
 * @m: manager
 * @now: current time
 * @idx: EV index
 *
 * ASSUMED_BAD -> GOOD; it rejoins the rotation if its plane is short of
 * active EVs (or the connection is below the floor), else it becomes a
 * GOOD backup.
 *
 * Return: RTT of the probe in ns, 0 if no probe was outstanding.
 */
u64 mrc_ev_probe_answered(struct mrc_ev_mgr *m, u64 now, int idx)
{
	struct mrc_ev_entry *e = &m->ev[idx];
	u64 rtt = 0;

	if (e->probe_sent_ns && now >= e->probe_sent_ns)
		rtt = now - e->probe_sent_ns;
	e->cnt.probes_ok++;
	e->probe_sent_ns = 0;
	ev_peer_heard(m);
	/* A probe leaves only while its EV is bad: it is news of now. */
	if (e->state != MRC_EV_ASSUMED_BAD ||
	    !mrc_ev_path_answered(m, now, idx, now))
		return rtt;
	mrc_ev_revive(m, now, idx, MRC_EVC_PROBE_OK);
	mrc_ev_probe_recompute(m);
	return rtt;
}

/**
 * mrc_ev_on_late_ack() - a packet that timed out on this EV was acknowledged.
 * @m: manager
 * @now: current time
 * @idx: EV index
 * @tx_ns: when that transmission was sent
 *
 * The transmission reached the receiver after all: the timeout was
 * spurious (a slow path, not a dead one). An EV that timeout demoted to
 * ASSUMED_BAD is GOOD again at once, as if its probe had been answered;
 * waiting for a probe would only shrink the active set for nothing.
 */
void mrc_ev_on_late_ack(struct mrc_ev_mgr *m, u64 now, int idx, u64 tx_ns)
{
	struct mrc_ev_entry *e = &m->ev[idx];

	e->cnt.late_acks++;
	ev_peer_heard(m);
	if (e->state != MRC_EV_ASSUMED_BAD ||
	    !mrc_ev_path_answered(m, now, idx, tx_ns))
		return;
	mrc_ev_revive(m, now, idx, MRC_EVC_LATE_ACK);
	mrc_ev_probe_recompute(m);
}

/**
 * mrc_ev_set_denied() - administrative exclusion.
 * @m: manager
 * @now: current time
 * @idx: EV index
 * @denied: true: -> DENIED (ignores the floor); false: DENIED -> GOOD
 *
 * Return: MRC_OK, or MRC_E_INVAL for a bad index.
 */
int mrc_ev_set_denied(struct mrc_ev_mgr *m, u64 now, int idx, bool denied)
{
	struct mrc_ev_entry *e;

	if (idx < 0 || idx >= m->n_ev)
		return MRC_E_INVAL;
	e = &m->ev[idx];
	if (denied) {
		if (e->state == MRC_EV_DENIED)
			return MRC_OK;
		mrc_ev_demote(m, now, idx, MRC_EV_DENIED, MRC_EVC_ADMIN, false);
		e->next_probe_ns = MRC_NO_DEADLINE;
		e->probe_sent_ns = 0;
		mrc_ev_probe_recompute(m);
		return MRC_OK;
	}
	if (e->state != MRC_EV_DENIED)
		return MRC_OK;
	e->skip_left = 0;
	mrc_ev_set_state(m, now, idx, MRC_EV_GOOD, MRC_EVC_ADMIN);
	mrc_ev_maybe_promote(m, now, idx);
	return MRC_OK;
}

/**
 * mrc_ev_set_plane_up() - a plane's port went up or down.
 * @m: manager
 * @now: current time
 * @plane: plane index (< n_planes)
 * @up: new state
 *
 * A down plane is masked: its EVs keep their states and their rotation
 * slots but are passed over by mrc_ev_pick() and not probed, and do not
 * count towards the floor. Emits MRC_EVT_PLANE.
 *
 * The port's failure explains the silence of the plane's EVs that fell
 * silent after it last delivered: the announcement can arrive after some
 * of them timed out or lost twice (a lost update waits for its resend;
 * with a flowcell of one packet every EV of the plane carries one per
 * rotation), and such an EV, left ASSUMED_BAD, would wait for its probes
 * once the port returns. Those whose unacknowledged packet was sent after
 * the newest one the plane delivered are GOOD again (cause MRC_EVC_PORT),
 * masked with the plane, and so are the paths retired dead for such
 * silence, with their quiet EVs (mrc_ev_path_port_down()); earlier
 * verdicts (the plane delivered later packets: something else failed),
 * gray verdicts and ECN ones stand.
 */
void mrc_ev_set_plane_up(struct mrc_ev_mgr *m, u64 now, u8 plane, bool up)
{
	const struct mrc_ev_plane *pl = &m->plane[plane];
	struct mrc_event ev;
	u32 bit = 1u << plane;
	u16 i;

	if (!!(m->plane_up & bit) == up)
		return;
	if (up)
		m->plane_up |= bit;
	else
		m->plane_up &= ~bit;
	if (!up) {
		mrc_ev_path_port_down(m, now, plane);
		for (i = pl->first; i < pl->first + pl->count; i++)
			if (m->ev[i].state == MRC_EV_ASSUMED_BAD &&
			    m->ev[i].silent_tx_ns > pl->delivered_tx_ns &&
			    !mrc_ev_path_verdict(m, i))
				mrc_ev_revive(m, now, i, MRC_EVC_PORT);
	}
	mrc_memset(&ev, 0, sizeof(ev));
	ev.type = MRC_EVT_PLANE;
	ev.time_ns = now;
	ev.u.plane.plane = plane;
	ev.u.plane.up = up;
	mrc_evq_push(m->evq, &ev);
	mrc_ev_probe_recompute(m);
}

/**
 * mrc_ev_set_room() - planes on which the host can transmit now.
 * @m: manager
 * @mask: bit p = plane p has room
 */
void mrc_ev_set_room(struct mrc_ev_mgr *m, u32 mask)
{
	m->room = mask;
}

/**
 * mrc_ev_get_info() - snapshot one EV.
 * @m: manager
 * @idx: valid EV index
 * @info: filled
 */
void mrc_ev_get_info(const struct mrc_ev_mgr *m, int idx,
		     struct mrc_ev_info *info)
{
	const struct mrc_ev_entry *e = &m->ev[idx];

	info->ev = e->value;
	info->plane = e->plane;
	info->state = e->state;
	info->active = e->active;
	info->cnt = e->cnt;
}

static void cnt_add(struct mrc_ev_counters *d, const struct mrc_ev_counters *s)
{
	d->sent += s->sent;
	d->sacked += s->sacked;
	d->nacked += s->nacked;
	d->trimmed += s->trimmed;
	d->timeouts += s->timeouts;
	d->ecn += s->ecn;
	d->probes += s->probes;
	d->probes_ok += s->probes_ok;
	d->late_acks += s->late_acks;
	d->lost += s->lost;
}

/**
 * mrc_ev_get_plane() - snapshot one plane.
 * @m: manager
 * @plane: valid plane index
 * @info: filled
 */
void mrc_ev_get_plane(const struct mrc_ev_mgr *m, u8 plane,
		      struct mrc_plane_info *info)
{
	const struct mrc_ev_plane *p = &m->plane[plane];
	u16 i;

	mrc_memset(info, 0, sizeof(*info));
	info->up = (m->plane_up >> plane) & 1u;
	info->room = (m->room >> plane) & 1u;
	info->n_ev = p->count;
	info->n_active = p->n_active;
	for (i = p->first; i < p->first + p->count; i++) {
		const struct mrc_ev_entry *e = &m->ev[i];

		if (e->state == MRC_EV_GOOD)
			info->n_good++;
		else if (e->state == MRC_EV_ASSUMED_BAD)
			info->n_bad++;
		cnt_add(&info->cnt, &e->cnt);
	}
}
