// SPDX-License-Identifier: GPL-2.0 OR MIT
//
// ev_path_test.cc - verdicts on whole paths (kmod/core/mrc_ev_path.c): a
// dead path retired once two of its EVs fell silent, revived with the first
// answer; a gray path demoted for its loss rate and held, with hysteresis;
// each rule off with its bit of cfg.failover.
#include <gtest/gtest.h>

#include <cstdlib>
#include <vector>

#include "ev_fixture.h"

namespace {

constexpr u64 kMs = 1000000;

class EvPathTest : public EvFixture {
  protected:
    // 4 planes x 2 paths (the bench's fabric: one path per spine), @evs
    // EVs a plane (the host's profile: 32), three quarters active.
    void make(u8 failover = MRC_FO_ALL, unsigned paths = 2, unsigned evs = 16) {
        destroy();
        mrc_conn_cfg_init(&cfg_, 4);
        cfg_.ev_per_plane = static_cast<u16>(evs);
        cfg_.ev_active_per_plane = static_cast<u16>(evs * 3 / 4);
        cfg_.ev_min_active = 6;
        cfg_.paths_per_plane = 16;  // as the host gives it: a multiple of the paths
        for (unsigned p = 0; p < 4; p++) cfg_.plane_paths[p] = static_cast<u16>(paths);
        cfg_.failover = failover;
        start(11, 4096);
    }

    // EVs of @plane on path @path (entropy % paths).
    std::vector<int> on_path(u8 plane, u32 path) const {
        std::vector<int> v;

        for (u16 i = 0; i < m_.n_ev; i++)
            if (m_.ev[i].plane == plane && mrc_ev_entropy(m_.ev[i].value) % 2 == path)
                v.push_back(i);
        return v;
    }
    int count(const std::vector<int>& v, u8 state) const {
        int n = 0;

        for (int i : v) n += m_.ev[i].state == state;
        return n;
    }
    int active_good(u8 plane) const {
        int n = 0;

        for (u16 i = 0; i < m_.n_rot; i++) {
            const mrc_ev_entry& e = m_.ev[m_.rot[i]];
            n += e.plane == plane && e.state == MRC_EV_GOOD;
        }
        return n;
    }
    // Every EV of the connection delivered a packet sent at @tx.
    void deliver_all(u64 tx) {
        for (u16 i = 0; i < m_.n_ev; i++) mrc_ev_path_delivered(&m_, i, tx);
    }
    // The other path of plane 0 keeps delivering what was sent at @tx.
    void deliver_path(u8 plane, u32 path, u64 tx) {
        for (int i : on_path(plane, path)) mrc_ev_path_delivered(&m_, i, tx);
    }
};

// A spine dies at t=10 ms: the packets sent on plane 0 path 0 after it are
// never acknowledged, those on the other path are. Two of the dead path's
// EVs time out: the whole path is ASSUMED_BAD, quiet but for those two,
// and the plane keeps its other path in the rotation.
TEST_F(EvPathTest, TwoSilentEvsRetireTheirWholePath) {
    make();
    deliver_all(5 * kMs);
    auto dead = on_path(0, 0);
    auto live = on_path(0, 1);
    ASSERT_GE(dead.size(), 4u);
    deliver_path(0, 1, 12 * kMs);
    mrc_ev_on_timeout(&m_, 20 * kMs, dead[0], 11 * kMs, 4 * kMs);
    EXPECT_EQ(count(dead, MRC_EV_ASSUMED_BAD), 1) << "one silent EV is not the path";
    mrc_ev_on_timeout(&m_, 21 * kMs, dead[1], 11 * kMs, 4 * kMs);
    EXPECT_EQ(count(dead, MRC_EV_ASSUMED_BAD), static_cast<int>(dead.size()));
    EXPECT_EQ(count(live, MRC_EV_GOOD), static_cast<int>(live.size()));
    EXPECT_EQ(m_.paths_retired, 1u);
    int quiet = 0;
    for (int i : dead) quiet += m_.ev[i].by_path;
    EXPECT_EQ(quiet, static_cast<int>(dead.size()) - 2) << "the two silent EVs probe for the path";
    // Probes: only the two, never a quiet one.
    for (u64 t = 21 * kMs; t < 200 * kMs; t += kMs) {
        const int p = mrc_ev_probe_due(&m_, t);
        if (p < 0) continue;
        EXPECT_TRUE(p == dead[0] || p == dead[1]) << "probe of quiet EV " << p;
        mrc_ev_probe_sent(&m_, t, p);
    }
    EXPECT_GE(active_good(0), static_cast<int>(live.size()) - 1);
    // The link comes back: the first answer revives the path, and the
    // plane's rotation is shared by its two paths again.
    mrc_ev_probe_answered(&m_, 300 * kMs, dead[1]);
    EXPECT_EQ(count(dead, MRC_EV_GOOD), static_cast<int>(dead.size()) - 1);
    EXPECT_EQ(m_.ev[dead[0]].state, MRC_EV_ASSUMED_BAD) << "it answers for itself";
    int act[2] = {0, 0};
    for (int i : dead) act[0] += m_.ev[i].active;
    for (int i : live) act[1] += m_.ev[i].active;
    EXPECT_LE(std::abs(act[0] - act[1]), 1) << act[0] << " vs " << act[1] << " active";
    EXPECT_EQ(act[0] + act[1], 12);
}

// Plane 0's port dies at t=10 ms and the announcement comes late: path 0
// was retired meanwhile for silence that began after the plane last
// delivered (5 ms), which the port explains: the path and its EVs are back
// (cause port), masked with the plane. Plane 1's path 0, retired for a
// spine that died while its other path kept delivering, stays retired.
TEST_F(EvPathTest, PortDownExplainsTheDeadPathsOfItsPlane) {
    make();
    deliver_all(5 * kMs);
    deliver_path(2, 0, 12 * kMs);  // the connection delivers elsewhere
    auto p0 = on_path(0, 0);
    mrc_ev_on_timeout(&m_, 20 * kMs, p0[0], 11 * kMs, 4 * kMs);
    mrc_ev_on_timeout(&m_, 21 * kMs, p0[1], 11 * kMs, 4 * kMs);
    auto p1 = on_path(1, 0);
    deliver_path(1, 1, 13 * kMs);
    mrc_ev_on_timeout(&m_, 22 * kMs, p1[0], 11 * kMs, 4 * kMs);
    mrc_ev_on_timeout(&m_, 23 * kMs, p1[1], 11 * kMs, 4 * kMs);
    ASSERT_EQ(m_.paths_retired, 2u);
    ASSERT_EQ(count(p0, MRC_EV_ASSUMED_BAD), static_cast<int>(p0.size()));
    drain();
    mrc_ev_set_plane_up(&m_, 24 * kMs, 0, false);
    EXPECT_EQ(count(p0, MRC_EV_GOOD), static_cast<int>(p0.size()));
    EXPECT_EQ(mrc_ev_path_verdict(&m_, p0[0]), 0);
    int port = 0;
    for (const auto& e : drain())
        port += e.type == MRC_EVT_EV_STATE && e.u.ev.cause == MRC_EVC_PORT &&
                e.u.ev.new_state == MRC_EV_GOOD;
    EXPECT_EQ(port, static_cast<int>(p0.size()));
    // Masked: none of plane 0 is picked or probed while the port is down.
    for (int i = 0; i < 100; i++) EXPECT_NE(m_.ev[mrc_ev_pick(&m_, 25 * kMs, -1)].plane, 0);
    mrc_ev_set_plane_up(&m_, 26 * kMs, 1, false);
    EXPECT_EQ(count(p1, MRC_EV_ASSUMED_BAD), static_cast<int>(p1.size()));
    EXPECT_EQ(mrc_ev_path_verdict(&m_, p1[0]), MRC_EVC_PATH);
}

TEST_F(EvPathTest, RetireOffJudgesEachEvAlone) {
    make(MRC_FO_ALL & ~MRC_FO_PATH_RETIRE);
    deliver_all(5 * kMs);
    auto dead = on_path(0, 0);
    deliver_path(0, 1, 12 * kMs);
    mrc_ev_on_timeout(&m_, 20 * kMs, dead[0], 11 * kMs, 4 * kMs);
    mrc_ev_on_timeout(&m_, 21 * kMs, dead[1], 11 * kMs, 4 * kMs);
    EXPECT_EQ(count(dead, MRC_EV_ASSUMED_BAD), 2);
    EXPECT_EQ(m_.paths_retired, 0u);
}

// Silence is not a dead path while the path delivers packets sent after
// the lost ones, nor when nothing sent later was delivered anywhere (the
// host or the peer stalled), nor when the two silences are far apart.
TEST_F(EvPathTest, NoRetirementWithoutProof) {
    make();
    deliver_all(5 * kMs);
    auto path0 = on_path(0, 0);
    // The path delivers later packets on a third EV: two losses are bad luck.
    mrc_ev_path_delivered(&m_, path0[2], 13 * kMs);
    deliver_path(0, 1, 13 * kMs);
    mrc_ev_on_timeout(&m_, 20 * kMs, path0[0], 11 * kMs, 4 * kMs);
    mrc_ev_on_timeout(&m_, 21 * kMs, path0[1], 11 * kMs, 4 * kMs);
    EXPECT_EQ(m_.paths_retired, 0u);
    // Plane 1: nothing sent after 5 ms delivered anywhere: a stall.
    auto path1 = on_path(1, 0);
    mrc_ev_on_timeout(&m_, 30 * kMs, path1[0], 14 * kMs, 4 * kMs);
    mrc_ev_on_timeout(&m_, 31 * kMs, path1[1], 14 * kMs, 4 * kMs);
    EXPECT_EQ(m_.paths_retired, 0u);
    EXPECT_EQ(count(path1, MRC_EV_ASSUMED_BAD), 2);
    // Plane 2: the silences are further apart than the window.
    auto path2 = on_path(2, 1);
    deliver_path(2, 0, 60 * kMs);
    mrc_ev_on_timeout(&m_, 40 * kMs, path2[0], 15 * kMs, 4 * kMs);
    mrc_ev_on_timeout(&m_, 50 * kMs, path2[1], 15 * kMs, 4 * kMs);
    EXPECT_EQ(m_.paths_retired, 0u);
}

// A timer pass that runs late (a stalled guest) times out the flowcells in
// flight on every path at once, two EVs of a live path among them, while
// the acknowledgments that would have saved them wait in a queue: those
// silences are one event, not two EVs' proof. Each EV still answers for
// itself (ASSUMED_BAD); the path is retired only by a silence of another
// pass, as a dead path gives it one flowcell rotation later.
TEST_F(EvPathTest, SilencesOfOneTimerPassAreOneEvidence) {
    make();
    deliver_all(5 * kMs);
    auto path = on_path(0, 0);
    ASSERT_GE(path.size(), 3u);
    deliver_path(0, 1, 12 * kMs);
    mrc_ev_on_timeout(&m_, 20 * kMs, path[0], 11 * kMs, 4 * kMs);
    mrc_ev_on_timeout(&m_, 20 * kMs, path[1], 11 * kMs, 4 * kMs);
    EXPECT_EQ(count(path, MRC_EV_ASSUMED_BAD), 2) << "each silent EV is judged";
    EXPECT_EQ(m_.paths_retired, 0u) << "one pass condemned both: one event";
    mrc_ev_on_timeout(&m_, 21 * kMs, path[2], 11 * kMs, 4 * kMs);
    EXPECT_EQ(count(path, MRC_EV_ASSUMED_BAD), static_cast<int>(path.size()));
    EXPECT_EQ(m_.paths_retired, 1u) << "a silence of a second pass retires the path";
}

// A late acknowledgment of a packet sent before the losses that retired
// the path says nothing of the path now (its ack died on the way back);
// one of a packet sent after them proves the path alive: everything
// comes back.
TEST_F(EvPathTest, LateAckRevivesTheRetiredPath) {
    make();
    deliver_all(5 * kMs);
    auto dead = on_path(0, 0);
    deliver_path(0, 1, 12 * kMs);
    mrc_ev_on_timeout(&m_, 20 * kMs, dead[0], 11 * kMs, 4 * kMs);
    mrc_ev_on_timeout(&m_, 21 * kMs, dead[1], 11 * kMs, 4 * kMs);
    ASSERT_EQ(m_.paths_retired, 1u);
    mrc_ev_on_late_ack(&m_, 22 * kMs, dead[0], 10 * kMs);
    EXPECT_EQ(count(dead, MRC_EV_ASSUMED_BAD), static_cast<int>(dead.size()))
        << "sent before the failure: no news";
    mrc_ev_on_late_ack(&m_, 22 * kMs, dead[0], 11 * kMs + 1);
    EXPECT_EQ(count(dead, MRC_EV_ASSUMED_BAD), 1) << "only the other silent EV waits for its probe";
    EXPECT_EQ(m_.ev[dead[1]].by_path, 0);
}

// Feed @n rounds of one packet per path: plane 0's path 0 loses one in
// @every_gray (0: none), every other path one in @every_rest.
class EvGrayTest : public EvPathTest {
  protected:
    void traffic(u64 t0, unsigned n, unsigned every_gray, unsigned every_rest) {
        for (unsigned k = 0; k < n; k++) {
            const u64 t = t0 + k * 10000;
            for (u8 pl = 0; pl < 4; pl++)
                for (u32 path = 0; path < 2; path++) {
                    auto evs = on_path(pl, path);
                    const int i = evs[k % evs.size()];
                    const unsigned every = pl == 0 && path == 0 ? every_gray : every_rest;
                    // Each path's losses at its own phase.
                    if (every && (k + pl * 2 + path) % every == 0)
                        mrc_ev_path_lost(&m_, t, i, t);
                    else
                        mrc_ev_path_delivered(&m_, i, t);
                }
        }
    }
};

// Per-packet spraying (ev_burst=1) over a dead spine: each of the path's
// 16 EVs loses one packet in a rotation, enough samples for the gray
// verdict before any EV loses a second. Nothing sent on the path since
// the first loss was delivered while the other paths delivered later
// packets: the path is dead, retired as such (its in-flight packets are
// resent, the first answer revives it), not held as gray.
TEST_F(EvGrayTest, DeadPathFoundByItsLossesIsRetiredDead) {
    make(MRC_FO_ALL, 2, 32);
    traffic(0, 300, 0, 0);
    const u64 t0 = 4 * kMs;
    auto dead = on_path(0, 0);
    for (unsigned k = 0; k < dead.size(); k++) {
        const u64 t = t0 + k * 1000;
        mrc_ev_path_lost(&m_, t + 500 * 1000, dead[k], t);
        for (u8 pl = 0; pl < 4; pl++)
            for (u32 path = 0; path < 2; path++)
                if (pl || path) mrc_ev_path_delivered(&m_, on_path(pl, path)[k], t + 500);
    }
    EXPECT_EQ(m_.paths_gray, 0u);
    EXPECT_EQ(m_.paths_retired, 1u);
    EXPECT_EQ(mrc_ev_path_verdict(&m_, dead[0]), MRC_EVC_PATH);
    EXPECT_EQ(count(dead, MRC_EV_ASSUMED_BAD), static_cast<int>(dead.size()));
    EXPECT_TRUE(m_.dead_pending) << "what is in flight there goes again at once";
    // A path that still delivers packets sent after its losses is gray.
    make();
    traffic(0, 400, 7, 0);
    EXPECT_EQ(m_.paths_gray, 1u);
    EXPECT_EQ(m_.paths_retired, 0u);
}

// A spine that drops about 15 % (one in 7) is demoted within a few hundred
// of its packets; the plane's other path carries on; nothing comes back
// before the hold, whatever its probes say.
TEST_F(EvGrayTest, LossyPathIsDemotedAndHeld) {
    make();
    traffic(0, 400, 7, 0);
    auto gray = on_path(0, 0);
    EXPECT_EQ(m_.paths_gray, 1u);
    EXPECT_EQ(count(gray, MRC_EV_ASSUMED_BAD), static_cast<int>(gray.size()));
    EXPECT_EQ(count(on_path(0, 1), MRC_EV_GOOD), static_cast<int>(on_path(0, 1).size()));
    const u64 t = 5 * kMs;
    mrc_ev_probe_answered(&m_, t, gray[0]);
    EXPECT_EQ(count(gray, MRC_EV_ASSUMED_BAD), static_cast<int>(gray.size()))
        << "an answer within the hold revives nothing";
    // One EV probes at the end of the hold (probe_max_interval, 64 ms).
    int due = -1;
    u64 at = 0;
    for (u64 s = t; s < t + 200 * kMs && due < 0; s += kMs) {
        due = mrc_ev_probe_due(&m_, s);
        at = s;
    }
    ASSERT_GE(due, 0);
    EXPECT_GE(at, cfg_.probe_max_interval_ns);
    mrc_ev_probe_sent(&m_, at, due);
    mrc_ev_probe_answered(&m_, at + kMs, due);
    EXPECT_EQ(count(gray, MRC_EV_GOOD), static_cast<int>(gray.size()));
    // Still dropping: judged again within a few hundred packets, held
    // twice as long (hysteresis in time).
    traffic(at + 2 * kMs, 300, 7, 0);
    EXPECT_EQ(m_.paths_gray, 2u);
    EXPECT_EQ(m_.path[m_.plane[0].path_first].gray_hold_ns, 2 * cfg_.probe_max_interval_ns);
}

// The one EV that probes for a held path (the sentinel) may hear an answer
// within the hold: to a probe or a packet it sent before the verdict. It
// stays the sentinel and probes when the hold ends; were it made quiet
// like the others, no EV of the path would ever probe again and the path
// would stay retired for good (seen in mrc_fabric_xfer.sh: the 16 EVs of
// a restored spine still ASSUMED_BAD 10 s after link up).
TEST_F(EvGrayTest, SentinelAnsweredWithinTheHoldStillProbes) {
    make();
    traffic(0, 400, 7, 0);
    auto gray = on_path(0, 0);
    ASSERT_EQ(m_.paths_gray, 1u);
    int sentinel = -1;
    for (int i : gray)
        if (!m_.ev[i].by_path) sentinel = i;
    ASSERT_GE(sentinel, 0) << "one EV of the held path probes";
    const u64 t = 5 * kMs;
    mrc_ev_on_late_ack(&m_, t, sentinel, 3 * kMs);
    mrc_ev_probe_answered(&m_, t + kMs, sentinel);
    EXPECT_EQ(count(gray, MRC_EV_ASSUMED_BAD), static_cast<int>(gray.size()));
    int due = -1;
    u64 at = 0;
    for (u64 s = t; s < t + 300 * kMs && due < 0; s += kMs) {
        due = mrc_ev_probe_due(&m_, s);
        at = s;
    }
    ASSERT_EQ(due, sentinel) << "the held path still has its sentinel";
    EXPECT_GE(at, cfg_.probe_max_interval_ns);
    mrc_ev_probe_sent(&m_, at, due);
    mrc_ev_probe_answered(&m_, at + kMs, due);
    EXPECT_EQ(count(gray, MRC_EV_GOOD), static_cast<int>(gray.size()));
}

// A slow path (a deep queue, a stalled guest's vCPU) whose packets time
// out and are then acknowledged lost nothing: each late ack takes its
// loss sample back (the requester's req_late_ack()), and the path that
// loses one in 7 only on the timer's say is not gray. The same timeouts
// left standing make it gray.
TEST_F(EvGrayTest, LateAcksTakeTheirLossSamplesBack) {
    for (bool undo : {true, false}) {
        make();
        for (unsigned k = 0; k < 400; k++) {
            const u64 t = k * 10000;
            for (u8 pl = 0; pl < 4; pl++)
                for (u32 path = 0; path < 2; path++) {
                    auto evs = on_path(pl, path);
                    const int i = evs[k % evs.size()];
                    if (pl == 0 && path == 0 && k % 7 == 0 && mrc_ev_path_lost(&m_, t, i, t) &&
                        undo)
                        mrc_ev_path_lost_undo(&m_, i);
                    mrc_ev_path_delivered(&m_, i, t);
                }
        }
        EXPECT_EQ(m_.paths_gray, undo ? 0u : 1u) << (undo ? "taken back" : "left standing");
        if (undo) EXPECT_EQ(m_.path[m_.plane[0].path_first].loss_fp, 0u);
    }
}

TEST_F(EvGrayTest, GrayOffKeepsTheLossyPath) {
    make(MRC_FO_ALL & ~MRC_FO_GRAY);
    traffic(0, 400, 7, 0);
    EXPECT_EQ(m_.paths_gray, 0u);
    EXPECT_EQ(count(on_path(0, 0), MRC_EV_ASSUMED_BAD), 0);
}

// Random loss on every path (1 %, then 3 %: the bench's lossy fabric and
// worse) is the fabric's, not a gray path's: nothing is demoted.
TEST_F(EvGrayTest, UniformLossIsNotGray) {
    make();
    traffic(0, 5000, 100, 100);
    traffic(50 * kMs, 5000, 33, 33);
    EXPECT_EQ(m_.paths_gray, 0u);
}

// A flowcell lost whole (a stalled guest, a burst: 32 packets of one EV in
// a row) is one loss event, not 32 samples of the path's loss rate.
TEST_F(EvGrayTest, AFlowcellLostWholeIsOneSample) {
    make();
    traffic(0, 300, 0, 0);
    const int x = on_path(0, 0)[0];
    for (int k = 0; k < 32; k++) mrc_ev_path_lost(&m_, 4 * kMs, x, 3 * kMs);
    EXPECT_EQ(m_.paths_gray, 0u);
    EXPECT_LT(m_.path[m_.plane[0].path_first].loss_fp, 65536u / 100) << "one sample of 1/256";
}

// The plane's last live path is never demoted for loss: losing 15 % costs
// retransmissions, losing the plane costs its whole share.
TEST_F(EvGrayTest, LastLivePathOfAPlaneStays) {
    make(MRC_FO_ALL, 1);
    for (unsigned k = 0; k < 400; k++) {
        const int a = m_.plane[0].first + static_cast<int>(k % 16);
        if (k % 7 == 0)
            mrc_ev_path_lost(&m_, k * 10000, a, k * 10000);
        else
            mrc_ev_path_delivered(&m_, a, k * 10000);
        mrc_ev_path_delivered(&m_, m_.plane[1].first + static_cast<int>(k % 16), k * 10000);
    }
    EXPECT_EQ(m_.paths_gray, 0u);
}

}  // namespace
