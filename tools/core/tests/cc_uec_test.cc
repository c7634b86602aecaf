// SPDX-License-Identifier: GPL-2.0 OR MIT
//
// cc_uec_test.cc - NSCC as Ultra Ethernet 1.0 specifies it
// (kmod/core/mrc_cc_uec.c): scaled constants, additive fair and
// proportional increase per window, fast increase, multiplicative decrease
// once per base RTT (per smoothed RTT when longer) on the average delay,
// QuickAdapt after a trim, batched adjustment with eta, the receiver's
// byte count.
#include <gtest/gtest.h>

#include "cc_ack.h"

namespace {

constexpr u32 kMtu = 4096;
constexpr u64 kBase = 10000;  // 10 us
constexpr u64 kTarget = 7500;

class UecTest : public ::testing::Test {
  protected:
    void init(u32 init_wnd = 100000) {
        mrc_cc_profile p;
        mrc_cc_profile_defaults(&p);
        p.base_rtt_ns = kBase;  // 100 Gbit/s x 10 us
        p.init_wnd_bytes = init_wnd;
        cc_ = mrc_cc{};
        ASSERT_EQ(mrc_cc_init(&cc_, MRC_CC_UEC, &p, kMtu, 0), MRC_OK);
    }
    // One window's worth of acks of one MTU each, `gap` ns apart from `t`.
    u64 window(u64 t, u64 rtt, u64 gap = 10, u8 ecn = MRC_ECN_NONE) {
        const u32 w = cc_.cwnd;
        for (u32 done = 0; done < w; done += kMtu) {
            mrc_cc_ack a = ack(t, kMtu, rtt, ecn);
            mrc_cc_on_ack(&cc_, &a);
            t += gap;
        }
        return t;
    }
    mrc_cc cc_{};
};

}  // namespace

TEST_F(UecTest, RegisteredAndScaledToTheNetwork) {
    ASSERT_NE(mrc_cc_find(MRC_CC_UEC), nullptr);
    EXPECT_STREQ(mrc_cc_find(MRC_CC_UEC)->name, "uec");
    init();
    // BDP 125,000 B: a = 0.833; target 7.5 us: b = 0.625.
    EXPECT_EQ(cc_.u.target_ns, kTarget);
    EXPECT_EQ(cc_.u.pi_bytes, 8529u);   // 4 mss a b
    EXPECT_EQ(cc_.u.fi_bytes, 17059u);  // 5 mss a
    EXPECT_EQ(cc_.u.eta_bytes, 511u);   // 0.15 mss a
    EXPECT_EQ(cc_.u.fast_pm, 208u);     // 0.25 a
    EXPECT_EQ(cc_.u.fast_ns, 833u);     // base / 12
    EXPECT_EQ(mrc_cc_cwnd(&cc_), 100000u);
}

// Above the target without ECN: + fi_bytes per window of acks, whatever
// the window (additive, UEC), not a fraction of it. Four windows, since
// the last acks of each wait for the next batched adjustment.
TEST_F(UecTest, FairIncreaseIsAdditivePerWindow) {
    for (u32 w0 : {40000u, 100000u}) {
        SCOPED_TRACE(w0);
        init(w0);
        u64 t = 1000;
        for (int k = 0; k < 4; k++) t = window(t, kBase + 8000);  // delay 8 us >= target
        const double grown = static_cast<double>(cc_.cwnd) - w0;
        EXPECT_GT(grown, 3.2 * 17059);
        EXPECT_LT(grown, 4.4 * 17059);
        EXPECT_GT(cc_.cnt.fi, 0u);
        EXPECT_EQ(cc_.cnt.pi, 0u);
        EXPECT_GT(cc_.cnt.adjust, 4u);  // batched, several times per window
    }
}

// Below the target: pi_bytes x headroom per window, twice as much with
// twice the headroom.
TEST_F(UecTest, ProportionalIncreaseFollowsTheHeadroom) {
    auto grow = [&](u64 delay) {
        init(60000);
        u64 t = 1000;
        for (int k = 0; k < 4; k++) t = window(t, kBase + delay);
        return static_cast<double>(cc_.cwnd) - 60000;
    };
    const double wide = grow(1000);    // headroom 6.5 us of 7.5
    const double narrow = grow(4250);  // headroom 3.25 us
    EXPECT_NEAR(wide, 4 * 8529.0 * 6.5 / 7.5, 4 * 8529.0 * 0.2);
    EXPECT_NEAR(wide / narrow, 2.0, 0.25);
    EXPECT_EQ(cc_.cnt.fast, 0u);
}

// An empty fabric (delay below base / 12) for a whole window: fast
// increase, a quarter of a x each ack's bytes at once.
TEST_F(UecTest, FastIncreaseAfterAWindowOfEmptyFabric) {
    init(40000);
    u64 t = window(1000, kBase);  // the first window: proportional
    EXPECT_EQ(cc_.cnt.fast, 0u);
    // The window grew meanwhile: a few acks more until a window's worth.
    mrc_cc_ack a{};
    u32 before = 0;
    for (int i = 0; i < 8 && !cc_.cnt.fast; i++, t += 10) {
        before = cc_.cwnd;
        a = ack(t, kMtu, kBase);
        mrc_cc_on_ack(&cc_, &a);
    }
    EXPECT_EQ(cc_.cnt.fast, 1u);
    EXPECT_GE(cc_.cwnd, before + kMtu * 208 / 1000);
    // Queueing again ends it.
    a = ack(t + 10, kMtu, kBase + 2000);
    mrc_cc_on_ack(&cc_, &a);
    EXPECT_EQ(cc_.u.fast, 0);
}

// ECN with the average delay above the target: one cut per base RTT, by
// gamma x (avg - target) / avg; ECN below the target holds.
TEST_F(UecTest, MultiplicativeDecreaseOncePerBaseRtt) {
    init(150000);
    u64 t = 1000;
    for (int i = 0; i < 300; i++, t += 20) {  // 6 us of marked acks, 20 us queues
        mrc_cc_ack a = ack(t, 0, kBase + 20000, MRC_ECN_SKIP_ONCE);
        mrc_cc_on_ack(&cc_, &a);
    }
    EXPECT_GT(cc_.u.avg_delay_ns, kTarget);
    EXPECT_EQ(cc_.cnt.md, 1u);  // within one base RTT
    EXPECT_LT(cc_.cwnd, 150000u);
    const u32 w = cc_.cwnd;
    mrc_cc_ack a = ack(t + kBase, 0, kBase + 20000, MRC_ECN_SKIP_ONCE);
    mrc_cc_on_ack(&cc_, &a);
    EXPECT_EQ(cc_.cnt.md, 2u);
    EXPECT_LT(cc_.cwnd, w);
    EXPECT_GE(cc_.cwnd, w / 2);  // max_md 0.5
    const u64 holds = cc_.cnt.hold;
    a = ack(t + kBase + 5, kMtu, kBase + 1000, MRC_ECN_SKIP_ONCE);
    mrc_cc_on_ack(&cc_, &a);
    EXPECT_EQ(cc_.cnt.hold, holds + 1);
}

// Behind a queue that holds the RTT at 40 base RTTs, marks keep coming
// for a round trip after a decrease: the next decrease waits for the
// smoothed RTT, not the base RTT (spaced by the base RTT, the round trip
// below made 40 decreases and left the window at its floor).
TEST_F(UecTest, MultiplicativeDecreaseOncePerSmoothedRtt) {
    constexpr u64 kSrtt = 40 * kBase;
    init(150000);
    auto marked = [&](u64 t) {
        // An MTU per ack: the path carries far more than QuickAdapt's
        // gate per round trip, so only the decrease acts.
        mrc_cc_ack a = ack(t, kMtu, kSrtt, MRC_ECN_SKIP_ONCE);
        a.srtt_ns = kSrtt;
        mrc_cc_on_ack(&cc_, &a);
    };
    u64 t = 1000;
    for (; t < 1000 + kSrtt; t += 100)  // a round trip of marked acks
        marked(t);
    EXPECT_GT(cc_.u.avg_delay_ns, kTarget);
    EXPECT_EQ(cc_.cnt.md, 1u);
    EXPECT_GE(cc_.cwnd, 75000u);  // one cut, max_md 0.5
    marked(t + kBase);            // a round trip after the first cut
    EXPECT_EQ(cc_.cnt.md, 2u);
}

// A trim after a period in which little got through: the window becomes
// what was acknowledged in that period (QuickAdapt), not window - packet;
// the marks and trims of what was then in flight are ignored; once that is
// acknowledged, a trim in the same period only removes its packet.
TEST_F(UecTest, QuickAdaptAfterATrim) {
    init(150000);
    mrc_cc_ack a = ack(1000, kMtu, kBase + 2000);  // opens a period (ends 18.5 us)
    a.inflight = 40000;
    mrc_cc_on_ack(&cc_, &a);
    a = ack(5000, 3 * kMtu, kBase + 2000);
    a.inflight = 40000;
    mrc_cc_on_ack(&cc_, &a);
    mrc_cc_on_nack(&cc_, 20000, MRC_NACK_TRIMMED, kMtu);
    EXPECT_EQ(cc_.cnt.qa, 1u);
    EXPECT_EQ(cc_.cwnd, 3 * kMtu);
    // Marks on the 40,000 bytes that were in flight: ignored.
    a = ack(20100, kMtu, kBase + 30000, MRC_ECN_SKIP_ONCE);
    mrc_cc_on_ack(&cc_, &a);
    EXPECT_EQ(cc_.cnt.md, 0u);
    EXPECT_EQ(cc_.cwnd, 3 * kMtu);
    mrc_cc_on_nack(&cc_, 20200, MRC_NACK_TRIMMED, kMtu);
    EXPECT_EQ(cc_.cnt.qa, 1u);
    EXPECT_EQ(cc_.cwnd, 3 * kMtu);
    a = ack(20300, 40000, kBase + 8000);
    mrc_cc_on_ack(&cc_, &a);
    const u32 w = cc_.cwnd;
    mrc_cc_on_nack(&cc_, 20400, MRC_NACK_TRIMMED, kMtu);
    EXPECT_EQ(cc_.cnt.qa, 1u);
    EXPECT_EQ(cc_.cwnd, w - kMtu);
}

// A period in which the sender ran out of data says nothing about the
// path: an ack that leaves nothing in flight ends the period unjudged, so
// a trim in the next burst (a ring all-reduce step after waiting for its
// predecessor) does not reset the window to the few bytes acknowledged
// around the idle gap. The same trim after a busy period still does.
TEST_F(UecTest, QuickAdaptSkipsAPeriodThatRanOutOfData) {
    init(150000);
    mrc_cc_ack a = ack(1000, kMtu, kBase + 2000);  // opens a period (ends 18.5 us)
    a.inflight = 40000;
    mrc_cc_on_ack(&cc_, &a);
    a = ack(5000, 3 * kMtu, kBase + 2000);  // the last of the burst: idle
    mrc_cc_on_ack(&cc_, &a);
    mrc_cc_on_nack(&cc_, 20000, MRC_NACK_TRIMMED, kMtu);
    EXPECT_EQ(cc_.cnt.qa, 0u);
    EXPECT_EQ(cc_.cwnd, 150000u - kMtu);
}

// QuickAdapt measures what the path carried over a real round trip: behind
// a drop-tail queue the smoothed RTT is 40 base RTTs (the VM rig's shaped
// planes: base ~120 us, RTT 5 ms), and bytes acknowledged over base +
// target (17.5 us here) would be a 23rd of the path's round trip, so
// the window would collapse at every loss or long delay. Over the smoothed
// RTT, a path that carries a window per round trip keeps it; one that
// carried little over a round trip still has its window reset.
TEST_F(UecTest, QuickAdaptMeasuresOverTheSmoothedRtt) {
    constexpr u64 kSrtt = 40 * kBase;
    auto run = [&](u64 gap) {
        init(150000);
        u64 t = 1000;
        for (; t < 1000 + 3 * kSrtt; t += gap) {
            mrc_cc_ack a = ack(t, kMtu, kSrtt);  // delay far above 4 x target
            a.srtt_ns = kSrtt;
            a.inflight = 150000;
            mrc_cc_on_ack(&cc_, &a);
        }
        mrc_cc_on_loss(&cc_, t, kMtu);
        mrc_cc_ack a = ack(t + kSrtt, kMtu, kSrtt);  // the next period's first ack
        a.srtt_ns = kSrtt;
        mrc_cc_on_ack(&cc_, &a);
    };
    // One MTU per 10 us: 164 KB per round trip, above max_wnd / 8 (23 KB).
    run(10000);
    EXPECT_EQ(cc_.cnt.qa, 0u);
    EXPECT_GT(cc_.cwnd, 140000u);
    // One MTU per 100 us: 16 KB per round trip, below it: reset to that.
    run(100000);
    EXPECT_GE(cc_.cnt.qa, 1u);
    EXPECT_LE(cc_.cwnd, 5 * kMtu);
}

// eta: once per base RTT at an adjustment, on top of the increases.
TEST_F(UecTest, EtaOncePerBaseRtt) {
    init(60000);
    mrc_cc_ack a = ack(kBase + 1, 0, kBase + 8000);  // nothing acked: only time
    mrc_cc_on_ack(&cc_, &a);
    EXPECT_EQ(cc_.cwnd, 60000u + 511u);
    a = ack(kBase + 2, 0, kBase + 8000);
    mrc_cc_on_ack(&cc_, &a);
    EXPECT_EQ(cc_.cwnd, 60000u + 511u);
}

// The receiver's byte count stands in for acknowledged PSNs (a lost SACK
// does not lose its bytes).
TEST_F(UecTest, ReceiverByteCountDrivesTheIncrease) {
    init(60000);
    u64 t = 1000;
    for (int i = 0; i < 15; i++, t += 10) {
        mrc_cc_ack a = ack(t, 0, kBase + 8000);
        a.rcvd_bytes = 4 * kMtu;  // every other SACK lost: twice the bytes
        mrc_cc_on_ack(&cc_, &a);
    }
    // 60 MTUs = 245,760 B reported: about four windows of fair increase.
    EXPECT_GT(cc_.cwnd, 60000u + 3 * 17059u);
}
