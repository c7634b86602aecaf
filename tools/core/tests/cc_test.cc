// SPDX-License-Identifier: GPL-2.0 OR MIT
//
// cc_test.cc - unit tests of the congestion-control registry, the NSCC
// quadrants and signals (kmod/core/mrc_cc_nscc.c) and the fixed window.
#include <gtest/gtest.h>

#include "cc_ack.h"

namespace {

constexpr u32 kMtu = 4096;
constexpr u32 kBase = 10000;   // 10 us
constexpr u32 kTarget = 7500;  // 0.75 x base

mrc_cc_profile profile() {
    mrc_cc_profile p;

    mrc_cc_profile_defaults(&p);
    p.base_rtt_ns = kBase;
    return p;
}

class CcTest : public ::testing::Test {
  protected:
    void init(const mrc_cc_profile& p, u8 id = MRC_CC_NSCC) {
        cc_ = mrc_cc{};
        ASSERT_EQ(mrc_cc_init(&cc_, id, &p, kMtu, 0), MRC_OK);
    }
    mrc_cc cc_{};
};

TEST_F(CcTest, RegistryById) {
    ASSERT_NE(mrc_cc_find(MRC_CC_NSCC), nullptr);
    EXPECT_STREQ(mrc_cc_find(MRC_CC_NSCC)->name, "nscc");
    EXPECT_EQ(mrc_cc_find(MRC_CC_NSCC)->id, MRC_CC_NSCC);
    ASSERT_NE(mrc_cc_find(MRC_CC_FIXED), nullptr);
    EXPECT_STREQ(mrc_cc_find(MRC_CC_FIXED)->name, "fixed");
    EXPECT_EQ(mrc_cc_find(MRC_CC_NR), nullptr);
    EXPECT_EQ(mrc_cc_find(15), nullptr);
    mrc_cc cc{};
    mrc_cc_profile p = profile();
    EXPECT_EQ(mrc_cc_init(&cc, 9, &p, kMtu, 0), MRC_E_INVAL);
}

TEST_F(CcTest, PublishedDefaults) {
    mrc_cc_profile p;

    mrc_cc_profile_defaults(&p);
    EXPECT_EQ(p.target_qdelay_pm, 750u);
    EXPECT_EQ(p.gamma_pm, 800u);
    EXPECT_EQ(p.max_md_pm, 500u);
    EXPECT_EQ(p.link_mbps, 100000u);
    EXPECT_EQ(p.base_rtt_ns, 0u);
    init(p);
    // 1.5 x BDP of 100 Gbit/s x 10 us (assumed until measured) = 187500 B.
    EXPECT_EQ(cc_.p.max_wnd_bytes, 187500u);
    EXPECT_EQ(cc_.p.init_wnd_bytes, 187500u);
    EXPECT_EQ(mrc_cc_cwnd(&cc_), 187500u);
    EXPECT_EQ(cc_.p.min_wnd_bytes, kMtu);
    EXPECT_EQ(cc_.p.fi_bytes, kMtu);
    EXPECT_EQ(cc_.p.mtu, kMtu);
    EXPECT_TRUE(cc_.learn_base);
    EXPECT_TRUE(cc_.auto_max);
    EXPECT_EQ(mrc_cc_bdp_wnd(&cc_.p, 20000), 375000u);
}

TEST_F(CcTest, ProportionalIncreaseScalesWithDistanceToTarget) {
    mrc_cc_profile p = profile();
    p.init_wnd_bytes = 100000;
    init(p);
    EXPECT_EQ(cc_.cwnd, 100000u);
    mrc_cc_ack a = ack(1, 10000, kBase);  // zero queueing
    mrc_cc_on_ack(&cc_, &a);
    EXPECT_EQ(cc_.cwnd, 105000u);            // + acked x 0.5
    a = ack(2, 10000, kBase + kTarget / 2);  // half way to the target
    mrc_cc_on_ack(&cc_, &a);
    EXPECT_EQ(cc_.cwnd, 107500u);  // + acked x 0.25
    EXPECT_EQ(cc_.cnt.pi, 2u);
    // Never above the ceiling.
    for (int i = 0; i < 100; i++) {
        a = ack(3 + i, 100000, kBase);
        mrc_cc_on_ack(&cc_, &a);
    }
    EXPECT_EQ(cc_.cwnd, cc_.p.max_wnd_bytes);
}

TEST_F(CcTest, FairIncreaseAboveTargetWithoutEcn) {
    mrc_cc_profile p = profile();
    p.max_wnd_bytes = 1u << 20;
    p.init_wnd_bytes = 64 * kMtu;
    init(p);
    // One window's worth of acks at high delay: about one fi_bytes more.
    for (int i = 0; i < 64; i++) {
        mrc_cc_ack a = ack(1 + i, kMtu, kBase + 2 * kTarget);
        mrc_cc_on_ack(&cc_, &a);
    }
    EXPECT_GE(cc_.cwnd, 64 * kMtu + kMtu - 64);
    EXPECT_LE(cc_.cwnd, 64 * kMtu + kMtu);
    EXPECT_EQ(cc_.cnt.fi, 64u);
    EXPECT_EQ(cc_.cnt.pi, 0u);
}

TEST_F(CcTest, MultiplicativeDecreaseOncePerBaseRtt) {
    mrc_cc_profile p = profile();
    init(p);
    const u32 w0 = cc_.cwnd;
    // delay = 2 x target: gamma x (q - t) / q = 0.8 x 0.5 = 0.4.
    mrc_cc_ack a = ack(100000, kMtu, kBase + 2 * kTarget, MRC_ECN_SKIP_ONCE);
    mrc_cc_on_ack(&cc_, &a);
    EXPECT_EQ(cc_.cwnd, w0 - w0 * 400 / 1000);
    EXPECT_EQ(cc_.cnt.md, 1u);
    // Within one base RTT: held.
    const u32 w1 = cc_.cwnd;
    a = ack(100000 + kBase - 1, kMtu, kBase + 2 * kTarget, MRC_ECN_SKIP_ONCE);
    mrc_cc_on_ack(&cc_, &a);
    EXPECT_EQ(cc_.cwnd, w1);
    EXPECT_EQ(cc_.cnt.hold, 1u);
    // Huge delay: capped at max_md (0.5).
    a = ack(100000 + kBase, kMtu, kBase + 100 * kTarget, MRC_ECN_ALWAYS_SKIP);
    mrc_cc_on_ack(&cc_, &a);
    EXPECT_EQ(cc_.cwnd, w1 - w1 / 2);
    EXPECT_EQ(cc_.cnt.md, 2u);
}

TEST_F(CcTest, EcnWithLowDelayHolds) {
    mrc_cc_profile p = profile();
    init(p);
    const u32 w0 = cc_.cwnd;
    mrc_cc_ack a = ack(1, kMtu, kBase + kTarget / 2, MRC_ECN_SKIP_ONCE);
    mrc_cc_on_ack(&cc_, &a);
    EXPECT_EQ(cc_.cwnd, w0);
    EXPECT_EQ(cc_.cnt.hold, 1u);
    EXPECT_EQ(cc_.cnt.md, 0u);
}

TEST_F(CcTest, EcnWithoutAnyRttDecreasesModerately) {
    mrc_cc_profile p;
    mrc_cc_profile_defaults(&p);
    init(p);
    const u32 w0 = cc_.cwnd;
    mrc_cc_ack a = ack(1, kMtu, 0, MRC_ECN_SKIP_ONCE);
    mrc_cc_on_ack(&cc_, &a);
    EXPECT_EQ(cc_.cwnd, w0 - w0 / 4);
}

TEST_F(CcTest, AckWithoutSampleUsesAverageDelay) {
    mrc_cc_profile p = profile();
    p.init_wnd_bytes = 100000;
    init(p);
    // Feed high delay samples so the average climbs above the target.
    for (int i = 0; i < 40; i++) {
        mrc_cc_ack a = ack(1 + i, 0, kBase + 4 * kTarget);
        mrc_cc_on_ack(&cc_, &a);
    }
    EXPECT_GT(cc_.avg_qdelay_ns, kTarget);
    const u64 fi = cc_.cnt.fi;
    mrc_cc_ack a = ack(100, kMtu, 0);
    mrc_cc_on_ack(&cc_, &a);
    EXPECT_EQ(cc_.cnt.fi, fi + 1);  // fair increase, not proportional
}

TEST_F(CcTest, TrimsRemoveBytesAndClampAtMinimum) {
    mrc_cc_profile p = profile();
    p.init_wnd_bytes = 10 * kMtu;
    init(p);
    mrc_cc_on_nack(&cc_, 1, MRC_NACK_TRIMMED, kMtu);
    EXPECT_EQ(cc_.cwnd, 9 * kMtu);
    mrc_cc_on_nack(&cc_, 1, MRC_NACK_TRIMMED_LASTHOP, kMtu);
    EXPECT_EQ(cc_.cwnd, 8 * kMtu);
    mrc_cc_on_nack(&cc_, 1, MRC_NACK_NO_RESOURCE, kMtu);
    EXPECT_EQ(cc_.cwnd, 8 * kMtu);
    for (int i = 0; i < 20; i++) mrc_cc_on_nack(&cc_, 1, MRC_NACK_TRIMMED, kMtu);
    EXPECT_EQ(cc_.cwnd, kMtu);
    EXPECT_EQ(cc_.cnt.trim, 22u);
}

TEST_F(CcTest, TimeoutCutsAndSpuriousRestore) {
    mrc_cc_profile p = profile();
    init(p);
    const u32 w0 = cc_.cwnd;
    mrc_cc_on_timeout(&cc_, 5);
    EXPECT_EQ(cc_.cwnd, w0 / 2);
    // Another timer pass within the same RTT: the same loss event, no cut.
    mrc_cc_on_timeout(&cc_, 6);
    EXPECT_EQ(cc_.cwnd, w0 / 2);
    mrc_cc_on_timeout(&cc_, 6 + kBase);
    EXPECT_EQ(cc_.cwnd, w0 / 4);
    EXPECT_EQ(cc_.saved_cwnd, w0);
    mrc_cc_ack a = ack(7 + kBase, kMtu, kBase + 2 * kTarget);
    a.restore = 1;
    mrc_cc_on_ack(&cc_, &a);
    EXPECT_GE(cc_.cwnd, w0);
    EXPECT_EQ(cc_.saved_cwnd, 0u);
    EXPECT_EQ(cc_.cnt.restore, 1u);
    EXPECT_EQ(cc_.cnt.timeout, 3u);
}

TEST_F(CcTest, ReceiverPenaltyScalesWindow) {
    mrc_cc_profile p = profile();
    p.init_wnd_bytes = 128 * kMtu;
    p.max_wnd_bytes = 128 * kMtu;
    init(p);
    mrc_cc_ack a = ack(1, 0, 0);
    a.rwnd_penalty = 64;
    mrc_cc_on_ack(&cc_, &a);
    EXPECT_EQ(mrc_cc_cwnd(&cc_), 64 * kMtu);
    a.rwnd_penalty = 200;  // clamped to 127
    mrc_cc_on_ack(&cc_, &a);
    EXPECT_EQ(mrc_cc_cwnd(&cc_), kMtu);
    a.rwnd_penalty = 0;
    mrc_cc_on_ack(&cc_, &a);
    EXPECT_EQ(mrc_cc_cwnd(&cc_), 128 * kMtu);
}

TEST_F(CcTest, LearnsBaseRttAndCeiling) {
    mrc_cc_profile p;
    mrc_cc_profile_defaults(&p);
    init(p);
    mrc_cc_ack a = ack(1, 0, 20000);
    mrc_cc_on_ack(&cc_, &a);
    EXPECT_EQ(cc_.base_rtt_ns, 20000u);
    EXPECT_EQ(cc_.p.max_wnd_bytes, 375000u);
    a = ack(2, 0, 12000);
    mrc_cc_on_ack(&cc_, &a);
    EXPECT_EQ(cc_.base_rtt_ns, 12000u);
    EXPECT_EQ(cc_.p.max_wnd_bytes, 225000u);
    EXPECT_LE(cc_.cwnd, 225000u);
    a = ack(3, 0, 30000);
    mrc_cc_on_ack(&cc_, &a);
    EXPECT_EQ(cc_.base_rtt_ns, 12000u);
    // A configured base RTT is never replaced.
    init(profile());
    a = ack(1, 0, 3000);
    mrc_cc_on_ack(&cc_, &a);
    EXPECT_EQ(cc_.base_rtt_ns, kBase);
}

TEST_F(CcTest, FixedWindowIgnoresEverything) {
    mrc_cc_profile p = profile();
    p.fixed_wnd_bytes = 12345;
    init(p, MRC_CC_FIXED);
    EXPECT_EQ(mrc_cc_cwnd(&cc_), 12345u);
    mrc_cc_ack a = ack(1, 100000, kBase + 10 * kTarget, MRC_ECN_SKIP_ONCE);
    a.rwnd_penalty = 100;
    mrc_cc_on_ack(&cc_, &a);
    mrc_cc_on_nack(&cc_, 2, MRC_NACK_TRIMMED, kMtu);
    mrc_cc_on_timeout(&cc_, 3);
    EXPECT_EQ(mrc_cc_cwnd(&cc_), 12345u);
    EXPECT_EQ(cc_.cnt.trim, 1u);
    EXPECT_EQ(cc_.cnt.timeout, 1u);
    // Unset: the ceiling.
    p.fixed_wnd_bytes = 0;
    init(p, MRC_CC_FIXED);
    EXPECT_EQ(mrc_cc_cwnd(&cc_), cc_.p.max_wnd_bytes);
}

TEST_F(CcTest, ProfileOverridesAreKept) {
    mrc_cc_profile p = profile();
    p.max_wnd_bytes = 50000;
    p.init_wnd_bytes = 80000;  // above max: clamped
    p.min_wnd_bytes = 2 * kMtu;
    p.fi_bytes = 100;
    p.max_md_pm = 2000;  // invalid: default
    init(p);
    EXPECT_EQ(cc_.p.max_wnd_bytes, 50000u);
    EXPECT_EQ(cc_.p.init_wnd_bytes, 50000u);
    EXPECT_EQ(cc_.p.min_wnd_bytes, 2 * kMtu);
    EXPECT_EQ(cc_.p.fi_bytes, 100u);
    EXPECT_EQ(cc_.p.max_md_pm, 500u);
    EXPECT_FALSE(cc_.auto_max);
}

}  // namespace
