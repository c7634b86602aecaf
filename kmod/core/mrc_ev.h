/* SPDX-License-Identifier: GPL-2.0 OR MIT */
/*
 * mrc_ev.h - entropy-value (path) manager of one connection.
 *
 * Owns the EV table (n_planes * ev_per_plane entries, fixed at creation),
 * the GOOD/SKIP/ASSUMED_BAD/DENIED machine of every EV, the active rotation,
 * same-plane backup replacement, the ev_min_active floor, probe scheduling
 * and the per-EV counters. Documentation/networking/mrc.rst has the state
 * diagram.
 *
 * Internal to kmod/core: the host only sees it through mrc_engine.h.
 */
#ifndef MRC_EV_H
#define MRC_EV_H

#include "mrc_engine.h"
#include "mrc_evq.h"
#include "mrc_rand.h"

/**
 * struct mrc_ev_entry - one entropy value.
 * @value: the EV (plane in bits 31..24, entropy below)
 * @plane: plane index
 * @state: enum mrc_ev_state
 * @active: member of the rotation (rot[rot_pos] == this index)
 * @skip_left: SKIP: rotation passes still to sit out
 * @probe_backoff: probes sent since it went bad (interval doubling)
 * @rot_pos: position in the rotation when @active
 * @next_probe_ns: ASSUMED_BAD: when to probe next
 * @probe_sent_ns: when the last probe left (0: none outstanding)
 * @delivered_tx_ns: send time of the newest packet sent on this EV known
 *	delivered (the requester's loss detection, mrc_req_loss.c)
 * @last_loss_ns: when a loss on this EV was last inferred (0: none)
 * @by_path: ASSUMED_BAD with its path (retired or gray), not on its own:
 *	no probes of its own, revived with the path (mrc_ev_path.c)
 * @lost_run: its last packet known was lost: a further loss in the same
 *	run is not another sample of its path's loss rate (mrc_ev_path.c)
 * @silent_tx_ns: ASSUMED_BAD by its own silence (a timeout, a repeated
 *	loss): send time of the packet never acknowledged; 0 for any other
 *	state or cause (mrc_ev_set_plane_up())
 * @cnt: counters
 */
struct mrc_ev_entry {
	u32 value;
	u8 plane;
	u8 state;
	u8 active;
	u8 skip_left;
	u8 probe_backoff;
	u16 rot_pos;
	u64 next_probe_ns;
	u64 probe_sent_ns;
	u64 delivered_tx_ns;
	u64 last_loss_ns;
	u8 by_path;
	u8 lost_run;
	u64 silent_tx_ns;
	struct mrc_ev_counters cnt;
};

/**
 * struct mrc_ev_path - one path of a plane: the EVs that share its hops.
 * @silent_since_ns: first EV of the path condemned by silence in the
 *	current window (0: none)
 * @first_lost_tx_ns: earliest send time of the packets whose silence
 *	condemned them in that window
 * @silent_pass_ns: time of the event (timer pass, SACK) that last counted
 *	in @silent: the EVs one event condemns count once
 * @delivered_tx_ns: newest send time of a packet delivered on the path
 * @lost_tx_ns: send time of the earliest packet lost on the path since
 *	the newest one delivered (stale unless after @delivered_tx_ns)
 * @gray_until_ns: gray: its EVs are not revived before this time
 * @gray_hold_ns: the next gray hold (doubles while the path stays gray)
 * @revived_ns: when the path last came back from gray (0: never)
 * @cut_bytes: window the path's recent losses cut (given back when the
 *	path is retired, MRC_FO_BLAME_PATH; mrc_req_loss.c)
 * @cut_ns: when the last of them was (older than a silence window: the
 *	count starts again)
 * @to_cut_ns: a timer pass cut the window for timeouts on this path alone
 *	at this time (0: none since the last verdict); undone when the path
 *	is retired
 * @loss_fp: loss-rate estimate, 1/65536 units (EWMA over its packets)
 * @samples: estimator samples since the path was last judged, saturating
 * @silent: events that condemned EVs of the path by silence in the
 *	current window
 * @retired: 0 live, MRC_EVC_PATH (dead) or MRC_EVC_GRAY (lossy)
 */
struct mrc_ev_path {
	u64 silent_since_ns;
	u64 first_lost_tx_ns;
	u64 silent_pass_ns;
	u64 delivered_tx_ns;
	u64 lost_tx_ns;
	u64 gray_until_ns;
	u64 gray_hold_ns;
	u64 revived_ns;
	u32 cut_bytes;
	u64 cut_ns;
	u64 to_cut_ns;
	u32 loss_fp;
	u16 samples;
	u16 silent;
	u8 retired;
};

/**
 * struct mrc_ev_plane - per-plane bookkeeping.
 * @first: index of the plane's first EV (its EVs are contiguous)
 * @count: EVs of the plane
 * @target_active: configured active EVs of the plane
 * @n_active: EVs of the plane currently in the rotation
 * @path_first: index of the plane's first path in mrc_ev_mgr.path
 * @n_paths: paths of the plane tracked (0: unknown, no path verdicts)
 * @inflight_bytes: payload bytes the requester has in flight on the
 *	plane's EVs (sent, neither acknowledged nor declared lost)
 * @delivered_tx_ns: newest send time of a packet delivered on the plane
 */
struct mrc_ev_plane {
	u16 first;
	u16 count;
	u16 target_active;
	u16 n_active;
	u16 path_first;
	u16 n_paths;
	u32 inflight_bytes;
	u64 delivered_tx_ns;
};

/**
 * struct mrc_ev_mgr - the EV manager.
 * @ev: EV table
 * @rot: the active rotation (EV indices), @n_rot used
 * @hash: open-addressing value -> index+1 table, @hash_mask + 1 slots
 * @hash_mask: table size - 1
 * @n_ev: EVs in @ev
 * @n_rot: EVs in the rotation
 * @cursor: next rotation position to consider
 * @min_active: ev_min_active floor
 * @n_planes: planes
 * @plane_up: bit p: plane p's port is up
 * @room: bit p: the host has transmit room on plane p
 * @reshuffle_pkts: picks between forced reshuffles (0: off)
 * @paths_per_plane: cfg.paths_per_plane (0: unknown)
 * @picks: picks since the last reshuffle
 * @last_pick: index returned by the last pick (-1: none)
 * @balance_slack: bytes in flight by which a plane may lead the least
 *	loaded one before mrc_ev_pick() passes it over (MRC_FO_BALANCE)
 * @probe_interval_ns: first probe delay
 * @probe_max_ns: probe interval cap
 * @probe_deadline: min next_probe_ns over probe-able EVs, not before
 *	@probe_gate_ns (cache)
 * @probe_gate_ns: no probe of the connection leaves before this time
 *	(0: none); set once the peer has stayed silent for a run of probes
 * @quiet_probes: probes sent since the peer last acknowledged anything
 *	(a SACK, a NACK, a probe answer), saturating
 * @floor_holds: demotions refused by the floor
 * @reshuffles: rotation re-randomisations
 * @path: per-path state (mrc_ev_path.c), @n_path entries
 * @n_path: paths tracked, over every plane
 * @failover: cfg.failover (enum mrc_failover)
 * @loss_all_fp: the connection's loss-rate estimate (1/65536 units)
 * @delivered_tx_ns: newest send time of a packet delivered on any EV
 * @dead_pending: a path was retired as dead since the requester last
 *	acted on it (mrc_loss_after_verdicts(): refunds, resends)
 * @paths_retired: paths retired as a whole
 * @paths_gray: paths demoted as gray
 * @plane: per-plane bookkeeping
 * @rng: the connection's PRNG
 * @evq: the connection's event queue
 */
struct mrc_ev_mgr {
	struct mrc_ev_entry *ev;
	u16 *rot;
	u16 *hash;
	u32 hash_mask;
	u16 n_ev;
	u16 n_rot;
	u16 cursor;
	u16 min_active;
	u8 n_planes;
	u32 plane_up;
	u32 room;
	u32 reshuffle_pkts;
	u32 paths_per_plane;
	u32 picks;
	u32 balance_slack;
	int last_pick;
	u64 probe_interval_ns;
	u64 probe_max_ns;
	u64 probe_deadline;
	u64 probe_gate_ns;
	u16 quiet_probes;
	u64 floor_holds;
	u64 reshuffles;
	struct mrc_ev_path *path;
	u16 n_path;
	u8 failover;
	u32 loss_all_fp;
	u64 delivered_tx_ns;
	u8 dead_pending;
	u64 paths_retired;
	u64 paths_gray;
	struct mrc_ev_plane plane[MRC_MAX_PLANES];
	struct mrc_rng *rng;
	struct mrc_evq *evq;
};

int mrc_ev_init(struct mrc_ev_mgr *m, const struct mrc_conn_cfg *cfg,
		struct mrc_rng *rng, struct mrc_evq *evq);
void mrc_ev_destroy(struct mrc_ev_mgr *m);
int mrc_ev_find(const struct mrc_ev_mgr *m, u32 value);
int mrc_ev_pick(struct mrc_ev_mgr *m, u64 now, int avoid);
void mrc_ev_on_sent(struct mrc_ev_mgr *m, int idx);
void mrc_ev_on_sack(struct mrc_ev_mgr *m, u64 now, int idx, u8 ecn);
void mrc_ev_on_nack(struct mrc_ev_mgr *m, u64 now, int idx, u8 reason);
bool mrc_ev_on_timeout(struct mrc_ev_mgr *m, u64 now, int idx, u64 tx_ns,
		       u64 window_ns);
u64 mrc_ev_probe_answered(struct mrc_ev_mgr *m, u64 now, int idx);
void mrc_ev_on_late_ack(struct mrc_ev_mgr *m, u64 now, int idx, u64 tx_ns);
bool mrc_ev_on_loss(struct mrc_ev_mgr *m, u64 now, int idx, u64 tx_ns,
		    u64 window_ns);
int mrc_ev_probe_due(struct mrc_ev_mgr *m, u64 now);
void mrc_ev_probe_sent(struct mrc_ev_mgr *m, u64 now, int idx);
int mrc_ev_set_denied(struct mrc_ev_mgr *m, u64 now, int idx, bool denied);
void mrc_ev_set_plane_up(struct mrc_ev_mgr *m, u64 now, u8 plane, bool up);
void mrc_ev_set_room(struct mrc_ev_mgr *m, u32 mask);

/* Shared by mrc_ev.c and mrc_ev_path.c only. */
void mrc_ev_set_state(struct mrc_ev_mgr *m, u64 now, int idx, u8 state,
		      u8 cause);
bool mrc_ev_demote(struct mrc_ev_mgr *m, u64 now, int idx, u8 state,
		   u8 cause, bool floor);
void mrc_ev_maybe_promote(struct mrc_ev_mgr *m, u64 now, int idx);
void mrc_ev_revive(struct mrc_ev_mgr *m, u64 now, int idx, u8 cause);
void mrc_ev_swap_active(struct mrc_ev_mgr *m, u64 now, int out, int in);
void mrc_ev_probe_recompute(struct mrc_ev_mgr *m);

/* mrc_ev_path.c: verdicts on whole paths. */
int mrc_ev_paths_init(struct mrc_ev_mgr *m, const struct mrc_conn_cfg *cfg,
		      bool may_sleep);
void mrc_ev_paths_destroy(struct mrc_ev_mgr *m);
struct mrc_ev_path *mrc_ev_path_of(const struct mrc_ev_mgr *m, int idx);
void mrc_ev_path_delivered(struct mrc_ev_mgr *m, int idx, u64 tx_ns);
bool mrc_ev_path_lost(struct mrc_ev_mgr *m, u64 now, int idx, u64 tx_ns);
void mrc_ev_path_lost_undo(struct mrc_ev_mgr *m, int idx);
void mrc_ev_path_silent(struct mrc_ev_mgr *m, u64 now, int idx, u64 tx_ns,
			u64 window_ns);
void mrc_ev_path_port_down(struct mrc_ev_mgr *m, u64 now, u8 plane);
bool mrc_ev_path_answered(struct mrc_ev_mgr *m, u64 now, int idx,
			  u64 tx_ns);
u8 mrc_ev_path_verdict(const struct mrc_ev_mgr *m, int idx);
u32 mrc_ev_usable(const struct mrc_ev_mgr *m);
void mrc_ev_get_info(const struct mrc_ev_mgr *m, int idx,
		     struct mrc_ev_info *info);
void mrc_ev_get_plane(const struct mrc_ev_mgr *m, u8 plane,
		      struct mrc_plane_info *info);

static inline bool mrc_ev_plane_usable(const struct mrc_ev_mgr *m, u8 plane)
{
	return ((m->plane_up & m->room) >> plane) & 1u;
}

/* @len payload bytes went out on EV @idx (first transmission or resend). */
static inline void mrc_ev_inflight_add(struct mrc_ev_mgr *m, int idx, u32 len)
{
	m->plane[m->ev[idx].plane].inflight_bytes += len;
}

/* @len payload bytes sent on EV @idx left the flight: acked or lost. */
static inline void mrc_ev_inflight_sub(struct mrc_ev_mgr *m, int idx, u32 len)
{
	u32 *b = &m->plane[m->ev[idx].plane].inflight_bytes;

	*b = *b > len ? *b - len : 0;
}

#endif /* MRC_EV_H */
