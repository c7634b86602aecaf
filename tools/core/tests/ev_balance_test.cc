// SPDX-License-Identifier: GPL-2.0 OR MIT
//
// ev_balance_test.cc - planes share the window by what they carry
// (MRC_FO_BALANCE, mrc_ev_pick()): a plane that lost a path keeps its
// share of the traffic when its port can carry it; alike planes are
// served alike with the rule on or off.
#include <gtest/gtest.h>

#include <array>

#include "ev_fixture.h"

namespace {

constexpr u32 kMtu = 4096;
constexpr unsigned kPlanes = 4;

class EvBalanceTest : public EvFixture {
  protected:
    void make(u8 failover) {
        destroy();
        mrc_conn_cfg_init(&cfg_, kPlanes);
        cfg_.mtu = kMtu;
        cfg_.ev_per_plane = 16;
        cfg_.ev_active_per_plane = 12;
        cfg_.ev_min_active = 6;
        cfg_.paths_per_plane = 16;
        for (unsigned p = 0; p < kPlanes; p++) cfg_.plane_paths[p] = 2;
        cfg_.failover = failover;
        start(7, 8192);
    }

    // Plane 0 loses the EVs of its path 0 (a dead spine): 8 of its 16
    // are left, all of them active, against 12 on every other plane.
    void lose_half_of_plane0() {
        const struct mrc_ev_plane& p = m_.plane[0];

        for (u16 i = p.first; i < p.first + p.count; i++)
            if (mrc_ev_entropy(m_.ev[i].value) % 2 == 0) mrc_ev_set_denied(&m_, 0, i, true);
        ASSERT_EQ(m_.plane[0].n_active, 8);
    }

    // A window of @window packets over ports that each deliver one packet
    // per tick (the bench's fabric: the host's uplinks are the
    // bottleneck, every plane alike): per tick, every plane with packets
    // in flight delivers one, then picks refill the window. Returns the
    // packets each plane delivered.
    std::array<u64, kPlanes> run(unsigned ticks, unsigned window) {
        std::array<u64, kPlanes> done{};
        std::array<u32, kPlanes> q{};
        unsigned inflight = 0;

        for (unsigned t = 0; t < ticks; t++) {
            for (unsigned p = 0; p < kPlanes; p++) {
                if (!q[p]) continue;
                q[p]--;
                inflight--;
                done[p]++;
                mrc_ev_inflight_sub(&m_, m_.plane[p].first, kMtu);
            }
            while (inflight < window) {
                const int idx = mrc_ev_pick(&m_, t, -1);
                if (idx < 0) break;
                const u8 p = m_.ev[idx].plane;
                q[p]++;
                inflight++;
                mrc_ev_inflight_add(&m_, idx, kMtu);
            }
        }
        return done;
    }
};

// 8 EVs against 12 gave plane 0 8/44 of the picks and the other ports
// the queue: the connection ran at 3.67 packets a tick of 4. Balanced by
// bytes in flight, plane 0 takes the turns the others are denied.
TEST_F(EvBalanceTest, PlaneThatLostAPathKeepsItsShare) {
    make(MRC_FO_ALL);
    lose_half_of_plane0();
    auto d = run(20000, 64);
    const double others = (d[1] + d[2] + d[3]) / 3.0;
    EXPECT_GE(static_cast<double>(d[0]), 0.97 * others) << d[0] << " vs " << others;
    EXPECT_GE(d[0] + d[1] + d[2] + d[3], 0.97 * 4 * 20000);

    make(MRC_FO_ALL & ~MRC_FO_BALANCE);
    lose_half_of_plane0();
    d = run(20000, 64);
    const double off = (d[1] + d[2] + d[3]) / 3.0;
    EXPECT_LT(static_cast<double>(d[0]), 0.75 * off)
        << "the rule off: plane 0 gets 8/12 of a share";
}

// Planes alike: each carries a quarter either way.
TEST_F(EvBalanceTest, AlikePlanesCarryAlike) {
    for (u8 fo : {static_cast<u8>(MRC_FO_ALL), static_cast<u8>(MRC_FO_ALL & ~MRC_FO_BALANCE)}) {
        make(fo);
        auto d = run(20000, 64);
        for (unsigned p = 0; p < kPlanes; p++)
            EXPECT_GE(d[p], 0.98 * 20000) << "plane " << p << " failover " << unsigned(fo);
    }
}

// One usable plane left (the others down): nothing to balance against,
// its EVs are picked whatever they hold.
TEST_F(EvBalanceTest, LastUsablePlaneIsAlwaysPicked) {
    make(MRC_FO_ALL);
    for (u8 p = 1; p < kPlanes; p++) mrc_ev_set_plane_up(&m_, 0, p, false);
    mrc_ev_inflight_add(&m_, m_.plane[0].first, 1u << 30);
    const int idx = mrc_ev_pick(&m_, 0, -1);
    ASSERT_GE(idx, 0);
    EXPECT_EQ(m_.ev[idx].plane, 0);
}

}  // namespace
