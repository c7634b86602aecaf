// SPDX-License-Identifier: GPL-2.0 OR MIT
//
// ev_test.cc - unit tests of the EV manager (kmod/core/mrc_ev.c): every
// transition of GOOD / SKIP / ASSUMED_BAD / DENIED, the rotation, same-plane
// replacement, the ev_min_active floor, probes, planes and room.
#include <gtest/gtest.h>

#include <algorithm>
#include <map>
#include <set>
#include <vector>

#include "ev_fixture.h"

namespace {

class EvTest : public EvFixture {
  protected:
    void make(unsigned planes, unsigned per, unsigned active, unsigned min_active, u64 seed = 7,
              u32 paths = 0) {
        destroy();
        mrc_conn_cfg_init(&cfg_, static_cast<u8>(planes));
        cfg_.ev_per_plane = static_cast<u16>(per);
        cfg_.ev_active_per_plane = static_cast<u16>(active);
        cfg_.ev_min_active = static_cast<u16>(min_active);
        cfg_.paths_per_plane = paths;
        cfg_.seed = seed;
        start(seed);
    }

    // Events of type EV_STATE for @idx.
    static std::vector<mrc_event> for_idx(const std::vector<mrc_event>& v, int idx) {
        std::vector<mrc_event> out;

        for (const auto& e : v)
            if (e.type == MRC_EVT_EV_STATE && e.u.ev.index == idx) out.push_back(e);
        return out;
    }
    int active_in_plane(u8 plane) const {
        int n = 0;

        for (u16 i = 0; i < m_.n_rot; i++) n += m_.ev[m_.rot[i]].plane == plane;
        return n;
    }
    int first_active() const { return m_.rot[0]; }
    int first_backup(u8 plane) const {
        for (u16 i = 0; i < m_.n_ev; i++)
            if (m_.ev[i].plane == plane && !m_.ev[i].active) return i;
        return -1;
    }
};

TEST_F(EvTest, InitLayoutValuesDistinctPlaneBits) {
    make(4, 16, 12, 4);
    EXPECT_EQ(m_.n_ev, 64);
    EXPECT_EQ(m_.n_rot, 48);
    std::set<u32> seen;
    for (u16 i = 0; i < m_.n_ev; i++) {
        const mrc_ev_entry& e = m_.ev[i];
        EXPECT_EQ(e.value >> 24, e.plane);  // plane in bits 31-24
        EXPECT_EQ(e.plane, i / 16);
        EXPECT_EQ(e.state, MRC_EV_GOOD);
        EXPECT_TRUE(seen.insert(e.value).second);
        EXPECT_EQ(mrc_ev_find(&m_, e.value), i);
    }
    for (u8 p = 0; p < 4; p++) {
        EXPECT_EQ(active_in_plane(p), 12);
        EXPECT_EQ(m_.plane[p].n_active, 12);
    }
    EXPECT_EQ(mrc_ev_find(&m_, 0xdeadbe05u), -1);
    EXPECT_EQ(mrc_ev_usable(&m_), 48u);
    EXPECT_TRUE(drain().empty());
}

// The low 16 bits of an EV are the UDP source port, the first thing every
// ECMP hash sees: all sixteen bits must vary, and no EV may use port 0, a
// well-known port or 4791 (a capture decoded port 513 as rwho).
TEST_F(EvTest, SourcePortsCarryEntropyNeverReserved) {
    for (u32 paths : {0u, 1u, 2u, 3u, 1024u}) {
        SCOPED_TRACE(paths);
        make(8, 128, 16, 8, 11 + paths, paths);
        u32 ones = 0, zeros = 0;
        for (u16 i = 0; i < m_.n_ev; i++) {
            const u16 sport = static_cast<u16>(m_.ev[i].value);
            EXPECT_GE(sport, 1024) << i;
            EXPECT_NE(sport, MRC_UDP_PORT) << i;
            EXPECT_TRUE(mrc_ev_sport_ok(sport));
            ones |= sport;
            zeros |= static_cast<u16>(~sport);
        }
        EXPECT_EQ(ones, 0xffffu);
        EXPECT_EQ(zeros, 0xffffu);
        // the port rule keeps the path rule: a plane's first EVs take
        // distinct paths
        if (paths > 1 && paths <= 128) {
            std::set<u32> seen;
            for (u16 i = 0; i < paths; i++)
                EXPECT_TRUE(seen.insert(mrc_ev_entropy(m_.ev[i].value) % paths).second);
        }
    }
    EXPECT_FALSE(mrc_ev_sport_ok(0));
    EXPECT_FALSE(mrc_ev_sport_ok(513));
    EXPECT_FALSE(mrc_ev_sport_ok(1023));
    EXPECT_FALSE(mrc_ev_sport_ok(4791));
    EXPECT_TRUE(mrc_ev_sport_ok(1024));
}

TEST_F(EvTest, PathsPerPlaneGivesDistinctPaths) {
    make(2, 32, 24, 4, 3, 40);
    for (u8 p = 0; p < 2; p++) {
        std::set<u32> paths;
        for (u16 i = p * 32; i < p * 32 + 32; i++)
            EXPECT_TRUE(paths.insert((m_.ev[i].value & 0xffffff) % 40).second);
    }
    // More EVs than paths: every path is used, values still distinct.
    make(1, 20, 10, 2, 3, 8);
    std::set<u32> paths, vals;
    for (u16 i = 0; i < 20; i++) {
        paths.insert((m_.ev[i].value & 0xffffff) % 8);
        EXPECT_TRUE(vals.insert(m_.ev[i].value).second);
    }
    EXPECT_EQ(paths.size(), 8u);
}

// More EVs than paths: every block of K EVs covers the K paths once, so
// the EVs and the active set (the first EVs of each plane) are spread
// evenly, not binomially.
TEST_F(EvTest, ManyEvsPerPathSpreadEvenly) {
    for (u64 seed : {1, 2, 3}) {
        make(2, 64, 48, 4, seed, 4);
        for (u8 p = 0; p < 2; p++) {
            std::map<u32, int> all, active;
            for (u16 i = p * 64; i < p * 64 + 64; i++) {
                const u32 path = (m_.ev[i].value & 0xffffff) % 4;
                all[path]++;
                active[path] += m_.ev[i].active;
            }
            ASSERT_EQ(all.size(), 4u);
            for (const auto& [path, n] : all) {
                EXPECT_EQ(n, 16) << "plane " << int(p) << " path " << path;
                EXPECT_EQ(active[path], 12) << "plane " << int(p) << " path " << path;
            }
        }
    }
}

// A demoted EV's replacement goes to the least-loaded path (active EVs on
// it once the victim has left), not back to the victim's (suspect) path
// while another path has a backup: a random pick could double one path's
// load while others sit empty.
TEST_F(EvTest, ReplacementKeepsPathLoadBalanced) {
    // 6 paths, 12 EVs (two per path), 4 active: two paths start empty.
    make(1, 12, 4, 1, 11, 6);
    auto path = [&](int i) { return (m_.ev[i].value & 0xffffff) % 6; };
    int spread_rounds = 0;
    for (int round = 0; round < 6; round++) {
        const int victim = first_active();
        std::vector<int> load(6, 0);
        for (u16 i = 0; i < m_.n_ev; i++)
            if (m_.ev[i].active && i != victim) load[path(i)]++;
        // The best a replacement can do: the least-loaded path with a GOOD
        // backup, other than the victim's.
        int best = 1 << 30;
        for (u16 i = 0; i < m_.n_ev; i++)
            if (!m_.ev[i].active && m_.ev[i].state == MRC_EV_GOOD && path(i) != path(victim))
                best = std::min(best, load[path(i)]);
        mrc_ev_on_loss(&m_, 100 + round, victim, 0, 10);  // a second loss: condemned
        mrc_ev_on_loss(&m_, 101 + round, victim, 0, 10);
        int promoted = -1;
        for (const auto& e : drain())
            if (e.type == MRC_EVT_EV_STATE && e.u.ev.cause == MRC_EVC_PROMOTE)
                promoted = e.u.ev.index;
        ASSERT_GE(promoted, 0) << "round " << round;
        EXPECT_NE(path(promoted), path(victim)) << "round " << round;
        EXPECT_EQ(load[path(promoted)], best) << "round " << round;
        spread_rounds += load[path(promoted)] == 0;
    }
    // The two empty paths (and those the victims left) were filled first.
    EXPECT_GE(spread_rounds, 4);
}

TEST_F(EvTest, DeterministicForSeed) {
    make(2, 8, 6, 2, 42);
    std::vector<u32> a;
    for (u16 i = 0; i < m_.n_ev; i++) a.push_back(m_.ev[i].value);
    std::vector<int> pa;
    for (int i = 0; i < 30; i++) pa.push_back(mrc_ev_pick(&m_, 0, -1));
    make(2, 8, 6, 2, 42);
    for (u16 i = 0; i < m_.n_ev; i++) EXPECT_EQ(m_.ev[i].value, a[i]);
    for (int i = 0; i < 30; i++) EXPECT_EQ(mrc_ev_pick(&m_, 0, -1), pa[i]);
    make(2, 8, 6, 2, 43);
    bool differ = false;
    for (u16 i = 0; i < m_.n_ev; i++) differ |= m_.ev[i].value != a[i];
    EXPECT_TRUE(differ);
}

TEST_F(EvTest, RotationVisitsEveryActiveOnceAndReshuffles) {
    make(2, 16, 12, 2);
    const int n = m_.n_rot;
    std::vector<int> r1, r2;
    for (int i = 0; i < n; i++) r1.push_back(mrc_ev_pick(&m_, 0, -1));
    for (int i = 0; i < n; i++) r2.push_back(mrc_ev_pick(&m_, 0, -1));
    std::vector<int> s1 = r1, s2 = r2;
    std::sort(s1.begin(), s1.end());
    std::sort(s2.begin(), s2.end());
    EXPECT_EQ(std::unique(s1.begin(), s1.end()), s1.end());
    EXPECT_EQ(s1, s2);
    EXPECT_EQ(static_cast<int>(s1.size()), n);
    for (int idx : s1) EXPECT_TRUE(m_.ev[idx].active);
    EXPECT_NE(r1, r2);                 // re-randomised at the wrap
    EXPECT_NE(r1.back(), r2.front());  // no back-to-back repeat
    EXPECT_EQ(m_.reshuffles, 1u);
}

TEST_F(EvTest, ReshuffleEveryNPicks) {
    make(1, 64, 64, 2);
    m_.reshuffle_pkts = 10;
    for (int i = 0; i < 35; i++) ASSERT_GE(mrc_ev_pick(&m_, 0, -1), 0);
    EXPECT_EQ(m_.reshuffles, 3u);
}

// A host whose queues are full closes every room and keeps asking (each
// transmit pass polls once more): the rotation must not move meanwhile, or
// its wraps reshuffle it and the EVs stop taking even turns.
TEST_F(EvTest, NoRoomAnywhereLeavesTheRotationAlone) {
    make(4, 8, 8, 2);
    for (int i = 0; i < 5; i++) ASSERT_GE(mrc_ev_pick(&m_, 0, -1), 0);
    const u16 cursor = m_.cursor;
    const u64 reshuffles = m_.reshuffles;
    const std::vector<u16> rot(m_.rot, m_.rot + m_.n_rot);
    mrc_ev_set_room(&m_, 0);
    for (int i = 0; i < 100; i++) ASSERT_EQ(mrc_ev_pick(&m_, 0, -1), -1);
    EXPECT_EQ(m_.cursor, cursor);
    EXPECT_EQ(m_.reshuffles, reshuffles);
    EXPECT_EQ(std::vector<u16>(m_.rot, m_.rot + m_.n_rot), rot);
    // Reopened: the next pick is the one the closure interrupted.
    mrc_ev_set_room(&m_, ~0u);
    EXPECT_EQ(mrc_ev_pick(&m_, 0, -1), static_cast<int>(rot[cursor]));
}

TEST_F(EvTest, RoomMaskAndPlaneDown) {
    make(3, 8, 6, 2);
    mrc_ev_set_room(&m_, 0x2);
    for (int i = 0; i < 40; i++) {
        int idx = mrc_ev_pick(&m_, 0, -1);
        ASSERT_GE(idx, 0);
        EXPECT_EQ(m_.ev[idx].plane, 1);
    }
    mrc_ev_set_room(&m_, 0);
    EXPECT_EQ(mrc_ev_pick(&m_, 0, -1), -1);
    mrc_ev_set_room(&m_, ~0u);

    mrc_ev_set_plane_up(&m_, 5, 0, false);
    auto ev = drain();
    ASSERT_EQ(ev.size(), 1u);
    EXPECT_EQ(ev[0].type, MRC_EVT_PLANE);
    EXPECT_EQ(ev[0].u.plane.plane, 0);
    EXPECT_EQ(ev[0].u.plane.up, 0);
    EXPECT_EQ(mrc_ev_usable(&m_), 12u);
    for (int i = 0; i < 40; i++) EXPECT_NE(m_.ev[mrc_ev_pick(&m_, 0, -1)].plane, 0);
    // Same state again: no event.
    mrc_ev_set_plane_up(&m_, 6, 0, false);
    EXPECT_TRUE(drain().empty());
    mrc_ev_set_plane_up(&m_, 7, 0, true);
    ev = drain();
    ASSERT_EQ(ev.size(), 1u);
    EXPECT_EQ(ev[0].u.plane.up, 1);
    EXPECT_EQ(mrc_ev_usable(&m_), 18u);
    // Plane states survive: EVs kept GOOD throughout.
    for (u16 i = 0; i < 8; i++) EXPECT_EQ(m_.ev[i].state, MRC_EV_GOOD);
}

TEST_F(EvTest, EcnSkipOnceThenGoodAfterOnePass) {
    make(1, 8, 8, 2);
    int idx = first_active();
    mrc_ev_on_sack(&m_, 10, idx, MRC_ECN_SKIP_ONCE);
    EXPECT_EQ(m_.ev[idx].state, MRC_EV_SKIP);
    EXPECT_EQ(m_.ev[idx].cnt.ecn, 1u);
    EXPECT_EQ(m_.ev[idx].cnt.sacked, 1u);
    auto ev = for_idx(drain(), idx);
    ASSERT_EQ(ev.size(), 1u);
    EXPECT_EQ(ev[0].u.ev.old_state, MRC_EV_GOOD);
    EXPECT_EQ(ev[0].u.ev.new_state, MRC_EV_SKIP);
    EXPECT_EQ(ev[0].u.ev.cause, MRC_EVC_ECN);
    // One full pass: it is not handed out, and it is GOOD at the end.
    for (int i = 0; i < 7; i++) EXPECT_NE(mrc_ev_pick(&m_, 11, -1), idx);
    EXPECT_EQ(m_.ev[idx].state, MRC_EV_GOOD);
    ev = for_idx(drain(), idx);
    ASSERT_EQ(ev.size(), 1u);
    EXPECT_EQ(ev[0].u.ev.cause, MRC_EVC_SKIP_DONE);
    // Next pass it is used again.
    bool used = false;
    for (int i = 0; i < 8; i++) used |= mrc_ev_pick(&m_, 12, -1) == idx;
    EXPECT_TRUE(used);
}

// MRC 1.0: ALWAYS_SKIP means the path is assumed bad, not a longer SKIP:
// out of the rotation, a backup takes its place, and only a probe revives it.
TEST_F(EvTest, AlwaysSkipIsAssumedBad) {
    make(1, 8, 4, 1);
    int idx = first_active();
    mrc_ev_on_sack(&m_, 1, idx, MRC_ECN_ALWAYS_SKIP);
    EXPECT_EQ(m_.ev[idx].state, MRC_EV_ASSUMED_BAD);
    EXPECT_FALSE(m_.ev[idx].active);
    auto ev = for_idx(drain(), idx);
    ASSERT_EQ(ev.size(), 1u);
    EXPECT_EQ(ev[0].u.ev.cause, MRC_EVC_ECN);
    EXPECT_EQ(ev[0].u.ev.new_state, MRC_EV_ASSUMED_BAD);
    for (int i = 0; i < 100; i++) EXPECT_NE(mrc_ev_pick(&m_, 2, -1), idx);
    // More SACKs (packets sent before) do not revive it; a probe answer does.
    mrc_ev_on_sack(&m_, 3, idx, MRC_ECN_NONE);
    EXPECT_EQ(m_.ev[idx].state, MRC_EV_ASSUMED_BAD);
    EXPECT_EQ(mrc_ev_probe_due(&m_, 3 + cfg_.probe_interval_ns), idx);
}

TEST_F(EvTest, NackReasons) {
    make(1, 8, 8, 2);
    int idx = first_active();
    mrc_ev_on_nack(&m_, 1, idx, MRC_NACK_TRIMMED_LASTHOP);
    EXPECT_EQ(m_.ev[idx].state, MRC_EV_GOOD);
    mrc_ev_on_nack(&m_, 1, idx, MRC_NACK_NO_RESOURCE);
    mrc_ev_on_nack(&m_, 1, idx, MRC_NACK_NO_PKT_BUFFER);
    mrc_ev_on_nack(&m_, 1, idx, MRC_NACK_PSN_OOR_WINDOW);
    EXPECT_EQ(m_.ev[idx].state, MRC_EV_GOOD);
    EXPECT_TRUE(drain().empty());
    mrc_ev_on_nack(&m_, 1, idx, MRC_NACK_TRIMMED);
    EXPECT_EQ(m_.ev[idx].state, MRC_EV_SKIP);
    auto ev = for_idx(drain(), idx);
    ASSERT_EQ(ev.size(), 1u);
    EXPECT_EQ(ev[0].u.ev.cause, MRC_EVC_TRIM);
    EXPECT_EQ(m_.ev[idx].cnt.nacked, 5u);
    EXPECT_EQ(m_.ev[idx].cnt.trimmed, 2u);
    // A second trim on a SKIP EV: no new event.
    mrc_ev_on_nack(&m_, 2, idx, MRC_NACK_TRIMMED);
    EXPECT_TRUE(for_idx(drain(), idx).empty());
}

TEST_F(EvTest, TimeoutReplacedBySamePlaneBackup) {
    make(4, 8, 4, 2);
    for (int round = 0; round < 4; round++) {
        int idx = first_active();
        u8 plane = m_.ev[idx].plane;
        mrc_ev_on_timeout(&m_, 100, idx, 0, 0);
        EXPECT_EQ(m_.ev[idx].state, MRC_EV_ASSUMED_BAD);
        EXPECT_FALSE(m_.ev[idx].active);
        EXPECT_EQ(active_in_plane(plane), 4);
        auto ev = drain();
        int promoted = -1;
        for (const auto& e : ev)
            if (e.type == MRC_EVT_EV_STATE && e.u.ev.cause == MRC_EVC_PROMOTE)
                promoted = e.u.ev.index;
        ASSERT_GE(promoted, 0);
        EXPECT_EQ(m_.ev[promoted].plane, plane);
        EXPECT_TRUE(m_.ev[promoted].active);
        auto mine = for_idx(ev, idx);
        ASSERT_EQ(mine.size(), 1u);
        EXPECT_EQ(mine[0].u.ev.new_state, MRC_EV_ASSUMED_BAD);
        EXPECT_EQ(mine[0].u.ev.cause, MRC_EVC_TIMEOUT);
        EXPECT_EQ(mine[0].u.ev.active, 0);
    }
    EXPECT_EQ(mrc_ev_usable(&m_), 16u);
}

TEST_F(EvTest, TimeoutWithoutBackupShrinksAboveFloor) {
    make(2, 4, 4, 2);
    int idx = first_active();
    u8 plane = m_.ev[idx].plane;
    mrc_ev_on_timeout(&m_, 1, idx, 0, 0);
    EXPECT_EQ(m_.ev[idx].state, MRC_EV_ASSUMED_BAD);
    EXPECT_EQ(active_in_plane(plane), 3);
    EXPECT_EQ(m_.plane[plane].n_active, 3);
    EXPECT_EQ(m_.n_rot, 7);
    // Timeout on an already bad EV: counted, nothing else.
    drain();
    mrc_ev_on_timeout(&m_, 2, idx, 0, 0);
    EXPECT_EQ(m_.ev[idx].cnt.timeouts, 2u);
    EXPECT_TRUE(drain().empty());
}

TEST_F(EvTest, FloorBorrowsBackupFromAnotherPlane) {
    make(2, 6, 4, 8);
    // Exhaust plane 0's backups with two timeouts.
    for (int k = 0; k < 2; k++) {
        int idx = -1;
        for (u16 i = 0; i < m_.n_rot && idx < 0; i++)
            if (m_.ev[m_.rot[i]].plane == 0) idx = m_.rot[i];
        mrc_ev_on_timeout(&m_, 1, idx, 0, 0);
        EXPECT_EQ(active_in_plane(0), 4);
    }
    // Next plane-0 timeout: no plane-0 backup, usable would drop to 7 < 8:
    // a plane-1 backup is borrowed.
    int idx = -1;
    for (u16 i = 0; i < m_.n_rot && idx < 0; i++)
        if (m_.ev[m_.rot[i]].plane == 0) idx = m_.rot[i];
    mrc_ev_on_timeout(&m_, 1, idx, 0, 0);
    EXPECT_EQ(m_.ev[idx].state, MRC_EV_ASSUMED_BAD);
    EXPECT_EQ(active_in_plane(0), 3);
    EXPECT_EQ(active_in_plane(1), 5);
    EXPECT_EQ(mrc_ev_usable(&m_), 8u);
}

TEST_F(EvTest, FloorHoldKeepsEvWhenNothingLeft) {
    make(1, 4, 4, 4);
    int idx = first_active();
    mrc_ev_on_timeout(&m_, 1, idx, 0, 0);
    EXPECT_EQ(m_.ev[idx].state, MRC_EV_GOOD);
    EXPECT_TRUE(m_.ev[idx].active);
    EXPECT_EQ(m_.floor_holds, 1u);
    auto ev = for_idx(drain(), idx);
    ASSERT_EQ(ev.size(), 1u);
    EXPECT_EQ(ev[0].u.ev.cause, MRC_EVC_FLOOR_HOLD);
    EXPECT_EQ(ev[0].u.ev.old_state, ev[0].u.ev.new_state);
    EXPECT_EQ(mrc_ev_usable(&m_), 4u);
    EXPECT_EQ(m_.probe_deadline, MRC_NO_DEADLINE);
}

TEST_F(EvTest, ProbeScheduleBackoffAndRecovery) {
    make(1, 8, 4, 2);
    cfg_.probe_interval_ns = 1000;
    m_.probe_interval_ns = 1000;
    m_.probe_max_ns = 3000;
    int idx = first_active();
    mrc_ev_on_timeout(&m_, 500, idx, 0, 0);
    EXPECT_EQ(mrc_ev_probe_due(&m_, 1499), -1);
    EXPECT_EQ(m_.probe_deadline, 1500u);
    EXPECT_EQ(mrc_ev_probe_due(&m_, 1500), idx);
    mrc_ev_probe_sent(&m_, 1500, idx);
    EXPECT_EQ(m_.ev[idx].cnt.probes, 1u);
    EXPECT_EQ(mrc_ev_probe_due(&m_, 2499), -1);
    EXPECT_EQ(mrc_ev_probe_due(&m_, 2500), idx);
    mrc_ev_probe_sent(&m_, 2500, idx);
    EXPECT_EQ(m_.probe_deadline, 4500u);  // interval doubled
    mrc_ev_probe_sent(&m_, 4500, idx);
    EXPECT_EQ(m_.probe_deadline, 7500u);  // capped at 3000
    drain();
    // The plane is full (replacement happened): it recovers as a backup.
    EXPECT_EQ(mrc_ev_probe_answered(&m_, 7600, idx), 3100u);
    EXPECT_EQ(m_.ev[idx].state, MRC_EV_GOOD);
    EXPECT_FALSE(m_.ev[idx].active);
    EXPECT_EQ(m_.ev[idx].cnt.probes_ok, 1u);
    EXPECT_EQ(m_.probe_deadline, MRC_NO_DEADLINE);
    auto ev = for_idx(drain(), idx);
    ASSERT_EQ(ev.size(), 1u);
    EXPECT_EQ(ev[0].u.ev.cause, MRC_EVC_PROBE_OK);
    EXPECT_EQ(ev[0].u.ev.old_state, MRC_EV_ASSUMED_BAD);
}

// Every EV bad and the peer silent (or this host's egress refusing): the
// connection's probes are paced as one once MRC_EV_QUIET_PROBES_FREE (8) go
// unanswered, doubling from 1 ms to 64 ms, instead of each of 128 EVs
// backing off on its own (about 2,000 probes a second); anything
// acknowledged opens the gate again.
TEST_F(EvTest, ProbesOfASilentConnectionArePacedAsOne) {
    make(4, 32, 24, 2);
    const u64 ms = 1000000;
    // Time out whatever is in the rotation until nothing but the floor is left.
    for (int round = 0; round < 64; round++)
        for (u16 i = 0; i < m_.n_rot; i++) mrc_ev_on_timeout(&m_, 0, m_.rot[i], 0, 0);
    u32 bad = 0;
    for (u16 i = 0; i < m_.n_ev; i++) bad += m_.ev[i].state == MRC_EV_ASSUMED_BAD;
    ASSERT_GE(bad, 100u);
    // Two seconds, the host timer run every 100 us or at the probe deadline.
    auto run = [&](u64 from, u64 to, bool sacks) {
        u32 sent = 0;
        for (u64 t = from; t < to; t += 100000) {
            int idx;
            while ((idx = mrc_ev_probe_due(&m_, t)) >= 0) {
                mrc_ev_probe_sent(&m_, t, idx);
                sent++;
            }
            if (sacks && t % ms == 0) mrc_ev_on_sack(&m_, t, m_.rot[0], MRC_ECN_NONE);
        }
        return sent;
    };
    const u32 quiet = run(ms, 2001 * ms, false);
    // 8 free, 7 doubling (1..64 ms), then one per 64 ms: about 45.
    EXPECT_GE(quiet, 30u);
    EXPECT_LE(quiet, 60u);
    EXPECT_GT(m_.probe_gate_ns, 0u);
    EXPECT_GE(m_.probe_deadline, m_.probe_gate_ns);
    // A SACK from the floor's EV: the gate opens, each EV is on its own.
    mrc_ev_on_sack(&m_, 2001 * ms, m_.rot[0], MRC_ECN_NONE);
    EXPECT_EQ(m_.probe_gate_ns, 0u);
    EXPECT_EQ(m_.quiet_probes, 0u);
    // Acknowledged every millisecond, every due probe leaves: one per bad
    // EV per 64 ms (their own backoff is at its cap), about 3,000 in 2 s.
    const u32 heard = run(2001 * ms, 4001 * ms, true);
    EXPECT_GE(heard, bad * 20);
}

TEST_F(EvTest, ProbeRecoveryRejoinsShortPlane) {
    make(1, 4, 4, 1);
    int idx = first_active();
    mrc_ev_on_timeout(&m_, 0, idx, 0, 0);
    EXPECT_EQ(m_.n_rot, 3);
    drain();
    mrc_ev_probe_answered(&m_, 10, idx);
    EXPECT_TRUE(m_.ev[idx].active);
    EXPECT_EQ(m_.n_rot, 4);
    auto ev = for_idx(drain(), idx);
    ASSERT_EQ(ev.size(), 2u);
    EXPECT_EQ(ev[0].u.ev.cause, MRC_EVC_PROBE_OK);
    EXPECT_EQ(ev[1].u.ev.cause, MRC_EVC_PROMOTE);
    EXPECT_EQ(ev[1].u.ev.active, 1);
    // An answer for a GOOD EV only counts.
    drain();
    mrc_ev_probe_answered(&m_, 11, idx);
    EXPECT_TRUE(drain().empty());
}

TEST_F(EvTest, SackNeverRevivesBadEv) {
    make(1, 4, 4, 1);
    int idx = first_active();
    mrc_ev_on_timeout(&m_, 0, idx, 0, 0);
    mrc_ev_on_sack(&m_, 1, idx, MRC_ECN_NONE);
    mrc_ev_on_sack(&m_, 1, idx, MRC_ECN_SKIP_ONCE);
    mrc_ev_on_nack(&m_, 1, idx, MRC_NACK_TRIMMED);
    EXPECT_EQ(m_.ev[idx].state, MRC_EV_ASSUMED_BAD);
}

TEST_F(EvTest, ProbesOnlyOnUsablePlanes) {
    make(2, 4, 2, 1);
    int idx = -1;
    for (u16 i = 0; i < m_.n_rot && idx < 0; i++)
        if (m_.ev[m_.rot[i]].plane == 1) idx = m_.rot[i];
    mrc_ev_on_timeout(&m_, 0, idx, 10, 0);
    // The plane delivered a later packet: the port's failure does not
    // explain this verdict, which stands (PortDownExplains... below).
    int other = -1;
    for (u16 i = 0; i < m_.n_ev && other < 0; i++)
        if (m_.ev[i].plane == 1 && i != idx) other = i;
    mrc_ev_path_delivered(&m_, other, 20);
    const u64 due = m_.ev[idx].next_probe_ns;
    mrc_ev_set_plane_up(&m_, 1, 1, false);
    EXPECT_EQ(m_.ev[idx].state, MRC_EV_ASSUMED_BAD);
    EXPECT_EQ(m_.probe_deadline, MRC_NO_DEADLINE);
    EXPECT_EQ(mrc_ev_probe_due(&m_, due), -1);
    mrc_ev_set_plane_up(&m_, 2, 1, true);
    EXPECT_EQ(m_.probe_deadline, due);
    mrc_ev_set_room(&m_, 0x1);
    EXPECT_EQ(mrc_ev_probe_due(&m_, due), -1);
    mrc_ev_set_room(&m_, 0x3);
    EXPECT_EQ(mrc_ev_probe_due(&m_, due), idx);
}

// A port announced down explains the silence of its plane's EVs since the
// plane last delivered: those are GOOD again (masked with the plane) and
// carry traffic as soon as the port returns; a verdict the plane outlived,
// another plane's, and a non-silence verdict (ECN) stand.
TEST_F(EvTest, PortDownExplainsSilenceSinceLastDelivery) {
    make(2, 4, 4, 1);  // no backups: the plane is short after the verdicts
    std::vector<int> p1;
    for (u16 i = 0; i < m_.n_rot; i++)
        if (m_.ev[m_.rot[i]].plane == 1) p1.push_back(m_.rot[i]);
    int p0 = -1;
    for (u16 i = 0; i < m_.n_rot && p0 < 0; i++)
        if (m_.ev[m_.rot[i]].plane == 0) p0 = m_.rot[i];
    ASSERT_EQ(p1.size(), 4u);
    // Before the cut: p1[0] fell silent for a packet sent at 100, and the
    // plane delivered one sent at 200 on p1[3].
    mrc_ev_on_timeout(&m_, 150, p1[0], 100, 0);
    mrc_ev_path_delivered(&m_, p1[3], 200);
    // The cut: p1[1] times out, p1[2] loses twice, for packets sent after
    // 200; p1[3] gets the receiver's ALWAYS_SKIP; plane 0 loses one EV too.
    mrc_ev_on_timeout(&m_, 400, p1[1], 300, 0);
    mrc_ev_on_loss(&m_, 410, p1[2], 310, 1000);
    mrc_ev_on_loss(&m_, 420, p1[2], 320, 1000);
    mrc_ev_on_sack(&m_, 430, p1[3], MRC_ECN_ALWAYS_SKIP);
    mrc_ev_on_timeout(&m_, 440, p0, 330, 0);
    for (int i : p1) ASSERT_EQ(m_.ev[i].state, MRC_EV_ASSUMED_BAD);
    drain();
    mrc_ev_set_plane_up(&m_, 500, 1, false);
    EXPECT_EQ(m_.ev[p1[0]].state, MRC_EV_ASSUMED_BAD);
    EXPECT_EQ(m_.ev[p1[1]].state, MRC_EV_GOOD);
    EXPECT_EQ(m_.ev[p1[2]].state, MRC_EV_GOOD);
    EXPECT_EQ(m_.ev[p1[3]].state, MRC_EV_ASSUMED_BAD);
    EXPECT_EQ(m_.ev[p0].state, MRC_EV_ASSUMED_BAD);
    auto ev = drain();
    int port = 0;
    for (const auto& e : ev)
        if (e.type == MRC_EVT_EV_STATE && e.u.ev.cause == MRC_EVC_PORT) {
            port++;
            EXPECT_TRUE(e.u.ev.index == p1[1] || e.u.ev.index == p1[2]);
        }
    EXPECT_EQ(port, 2);
    // Masked with the plane, carrying traffic once the port returns.
    for (int i = 0; i < 40; i++) EXPECT_NE(m_.ev[mrc_ev_pick(&m_, 600, -1)].plane, 1);
    mrc_ev_set_plane_up(&m_, 700, 1, true);
    std::set<int> picked;
    for (int i = 0; i < 200; i++) picked.insert(mrc_ev_pick(&m_, 800, -1));
    EXPECT_TRUE(picked.count(p1[1]));
    EXPECT_TRUE(picked.count(p1[2]));
    EXPECT_FALSE(picked.count(p1[0]));
    EXPECT_FALSE(picked.count(p1[3]));
}

TEST_F(EvTest, DeniedAndReadmitted) {
    make(2, 4, 2, 4);
    int idx = first_active();
    u8 plane = m_.ev[idx].plane;
    ASSERT_EQ(mrc_ev_set_denied(&m_, 1, idx, true), MRC_OK);
    EXPECT_EQ(m_.ev[idx].state, MRC_EV_DENIED);
    EXPECT_FALSE(m_.ev[idx].active);
    EXPECT_EQ(active_in_plane(plane), 2);  // replaced in-plane
    for (int i = 0; i < 20; i++) EXPECT_NE(mrc_ev_pick(&m_, 2, -1), idx);
    auto ev = for_idx(drain(), idx);
    ASSERT_EQ(ev.size(), 1u);
    EXPECT_EQ(ev[0].u.ev.cause, MRC_EVC_ADMIN);
    // Feedback never moves a DENIED EV.
    mrc_ev_on_timeout(&m_, 3, idx, 0, 0);
    mrc_ev_on_sack(&m_, 3, idx, MRC_ECN_SKIP_ONCE);
    mrc_ev_probe_answered(&m_, 3, idx);
    EXPECT_EQ(m_.ev[idx].state, MRC_EV_DENIED);
    EXPECT_EQ(mrc_ev_set_denied(&m_, 4, idx, true), MRC_OK);  // idempotent
    ASSERT_EQ(mrc_ev_set_denied(&m_, 5, idx, false), MRC_OK);
    EXPECT_EQ(m_.ev[idx].state, MRC_EV_GOOD);
    EXPECT_FALSE(m_.ev[idx].active);  // plane full: a GOOD backup
    EXPECT_EQ(mrc_ev_set_denied(&m_, 5, 99, true), MRC_E_INVAL);
    EXPECT_EQ(mrc_ev_set_denied(&m_, 5, -1, true), MRC_E_INVAL);
    // Denying everything ignores the floor.
    for (u16 i = 0; i < m_.n_ev; i++) mrc_ev_set_denied(&m_, 6, i, true);
    EXPECT_EQ(m_.n_rot, 0);
    EXPECT_EQ(mrc_ev_pick(&m_, 7, -1), -1);
    // Readmitting one refills the rotation.
    mrc_ev_set_denied(&m_, 8, 0, false);
    EXPECT_EQ(mrc_ev_pick(&m_, 9, -1), 0);
}

TEST_F(EvTest, AvoidIsOnlyAFallback) {
    make(1, 4, 4, 1);
    int avoid = first_active();
    for (int i = 0; i < 20; i++) EXPECT_NE(mrc_ev_pick(&m_, 0, avoid), avoid);
    make(1, 1, 1, 1);
    EXPECT_EQ(mrc_ev_pick(&m_, 0, 0), 0);
}

TEST_F(EvTest, AllSkipStillPicks) {
    make(1, 4, 4, 1);
    for (u16 i = 0; i < 4; i++) mrc_ev_on_sack(&m_, 0, i, MRC_ECN_SKIP_ONCE);
    int idx = mrc_ev_pick(&m_, 1, -1);
    EXPECT_GE(idx, 0);
    EXPECT_EQ(m_.ev[idx].state, MRC_EV_GOOD);
}

TEST_F(EvTest, CountersAndPlaneInfo) {
    make(2, 4, 2, 1);
    for (int i = 0; i < 10; i++) mrc_ev_on_sent(&m_, mrc_ev_pick(&m_, 0, -1));
    int idx = first_active();
    mrc_ev_on_sack(&m_, 0, idx, MRC_ECN_SKIP_ONCE);
    mrc_ev_on_nack(&m_, 0, idx, MRC_NACK_TRIMMED);
    mrc_ev_on_timeout(&m_, 0, idx, 0, 0);
    mrc_plane_info pi[2];
    u64 sent = 0;
    for (u8 p = 0; p < 2; p++) {
        mrc_ev_get_plane(&m_, p, &pi[p]);
        sent += pi[p].cnt.sent;
        EXPECT_EQ(pi[p].n_ev, 4);
        EXPECT_EQ(pi[p].up, 1);
        EXPECT_EQ(pi[p].room, 1);
    }
    EXPECT_EQ(sent, 10u);
    u8 plane = m_.ev[idx].plane;
    EXPECT_EQ(pi[plane].n_bad, 1);
    EXPECT_EQ(pi[plane].cnt.ecn, 1u);
    EXPECT_EQ(pi[plane].cnt.trimmed, 1u);
    EXPECT_EQ(pi[plane].cnt.timeouts, 1u);
    mrc_ev_info info;
    mrc_ev_get_info(&m_, idx, &info);
    EXPECT_EQ(info.state, MRC_EV_ASSUMED_BAD);
    EXPECT_EQ(info.ev, m_.ev[idx].value);
    EXPECT_EQ(info.cnt.sacked, 1u);
}

TEST_F(EvTest, EventQueueOverflowIsCountedAndMasked) {
    make(1, 64, 64, 1);
    evq_.cap = 4;
    for (u16 i = 0; i < 10; i++) mrc_ev_on_sack(&m_, 0, i, MRC_ECN_SKIP_ONCE);
    EXPECT_EQ(evq_.count, 4u);
    EXPECT_EQ(evq_.dropped, 6u);
    drain();
    evq_.mask = 0;
    mrc_ev_on_sack(&m_, 0, 20, MRC_ECN_SKIP_ONCE);
    EXPECT_EQ(evq_.count, 0u);
    EXPECT_EQ(evq_.dropped, 6u);
}

}  // namespace

// One inferred loss is random (the EV stays in use); a second on the same
// EV within the window condemns it; losses further apart do not.
TEST_F(EvTest, SecondLossWithinWindowCondemns) {
    make(2, 8, 6, 2, 7);
    const int v = first_active();
    mrc_ev_on_loss(&m_, 1000, v, 0, 100);
    EXPECT_EQ(m_.ev[v].state, MRC_EV_GOOD);
    mrc_ev_on_loss(&m_, 1200, v, 0, 100);  // 200 ns later: a new first strike
    EXPECT_EQ(m_.ev[v].state, MRC_EV_GOOD);
    mrc_ev_on_loss(&m_, 1250, v, 0, 100);
    EXPECT_EQ(m_.ev[v].state, MRC_EV_ASSUMED_BAD);
    EXPECT_EQ(m_.ev[v].cnt.lost, 3u);
}
