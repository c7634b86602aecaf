// SPDX-License-Identifier: GPL-2.0
#include "format.h"

#include <gtest/gtest.h>

#include <array>
#include <vector>

namespace mrcstat {
namespace {

TEST(Format, HumanUnits) {
    EXPECT_EQ(HumanCount(0), "0");
    EXPECT_EQ(HumanCount(999), "999");
    EXPECT_EQ(HumanCount(1234), "1.23K");
    EXPECT_EQ(HumanCount(12345678), "12.3M");
    EXPECT_EQ(HumanCount(999999), "1.00M");  // no "1000K"
    EXPECT_EQ(HumanBytes(512), "512B");
    EXPECT_EQ(HumanBytes(1500), "1.50KB");
    EXPECT_EQ(HumanBytes(3e9), "3.00GB");
    EXPECT_EQ(HumanNs(0), "-");
    EXPECT_EQ(HumanNs(850), "850ns");
    EXPECT_EQ(HumanNs(12345), "12.3us");
    EXPECT_EQ(HumanNs(4.2e6), "4.20ms");
    EXPECT_EQ(HumanNs(1.2e9), "1.20s");
    EXPECT_EQ(HumanNs(5e12), "5000s");  // seconds is the largest unit
}

int Columns(const std::string& s) {
    int n = 0;
    for (unsigned char c : s) n += (c & 0xc0) != 0x80;
    return n;
}

TEST(Format, BarsHaveFixedWidth) {
    for (double f : {-1.0, 0.0, 0.01, 0.3, 0.5, 0.999, 1.0, 7.0}) {
        EXPECT_EQ(Columns(Bar(f, 10, true)), 10) << f;
        EXPECT_EQ(Columns(Bar(f, 10, false)), 10) << f;
    }
    EXPECT_EQ(Bar(0.5, 4, false), "##  ");
    EXPECT_EQ(Bar(1.0, 3, true), "███");
    EXPECT_EQ(Bar(0.5, 1, true), "▌");           // half a cell
    EXPECT_EQ(Bar(1.0 / 16, 1, true), "▏");      // rounds to an eighth
    EXPECT_EQ(Bar(0.0 / 0.0, 3, false), "   ");  // NaN is empty
    EXPECT_EQ(Bar(0.5, 0, true), "");
}

TEST(Format, Paint) {
    EXPECT_EQ(Paint("x", Colour::kRed, false), "x");
    EXPECT_EQ(Paint("x", Colour::kRed, true), "\033[31mx\033[0m");
    EXPECT_EQ(Paint("x", Colour::kNone, true), "x");
}

TEST(Hist, BucketsAreLog2AndMatchTheBpfSide) {
    EXPECT_EQ(HistBucket(0), 0);
    EXPECT_EQ(HistBucket(1), 0);
    EXPECT_EQ(HistBucket(2), 1);
    EXPECT_EQ(HistBucket(3), 1);
    EXPECT_EQ(HistBucket(4), 2);
    EXPECT_EQ(HistBucket(1023), 9);
    EXPECT_EQ(HistBucket(1024), 10);
    EXPECT_EQ(HistBucket((1ull << 31) + 5), 31);
    EXPECT_EQ(HistBucket(1ull << 40), kHistBuckets - 1);  // clamped
    EXPECT_EQ(HistBucket(~0ull), kHistBuckets - 1);
    for (int b = 1; b < kHistBuckets; b++) {
        EXPECT_EQ(HistBucket(HistBucketLow(b)), b);
        EXPECT_EQ(HistBucket(HistBucketHigh(b) - 1), std::min(b, kHistBuckets - 1));
        EXPECT_EQ(HistBucketHigh(b - 1), HistBucketLow(b));
    }
}

TEST(Hist, QuantilesInterpolateInsideBuckets) {
    std::array<uint64_t, kHistBuckets> h{};
    EXPECT_EQ(HistQuantile(h, 0.5), 0.0);
    h[10] = 100;  // [1024, 2048)
    EXPECT_EQ(HistTotal(h), 100u);
    EXPECT_DOUBLE_EQ(HistQuantile(h, 0.0), 1024.0);
    EXPECT_DOUBLE_EQ(HistQuantile(h, 0.5), 1536.0);
    EXPECT_DOUBLE_EQ(HistQuantile(h, 1.0), 2048.0);
    h[20] = 100;  // [1Mi, 2Mi)
    EXPECT_LT(HistQuantile(h, 0.5), 2048.1);
    EXPECT_GE(HistQuantile(h, 0.99), 1048576.0);
    EXPECT_LE(HistQuantile(h, 0.99), 2097152.0);
    EXPECT_DOUBLE_EQ(HistQuantile(h, 7.0), 2097152.0);  // clamped q
    // The text says what a log2 bucket knows: an upper bound, 2 digits.
    EXPECT_EQ(HistQuantileText(h, 0.5), "<2.1us");
    EXPECT_EQ(HistQuantileBucket(h, 0.5), 10);
}

TEST(Hist, QuantileTextIsTheBucketBound) {
    std::array<uint64_t, kHistBuckets> h{};
    EXPECT_EQ(HistQuantileText(h, 0.5), "-");
    EXPECT_EQ(HistQuantileBucket(h, 0.5), -1);
    h[15] = 90;  // [32.8us, 65.5us)
    h[20] = 10;  // [1.05ms, 2.10ms)
    EXPECT_EQ(HistQuantileText(h, 0.5), "<66us");
    EXPECT_EQ(HistQuantileText(h, 0.99), "<2.1ms");
    h[15] = 0;
    h[6] = 1;  // [64ns, 128ns)
    EXPECT_EQ(HistQuantileText(h, 0.0), "<130ns");
    h.fill(0);
    h[16] = 1;  // hi 131072 ns: 131 us rounds up to 140
    EXPECT_EQ(HistQuantileText(h, 0.5), "<140us");
    h.fill(0);
    h[19] = 1;  // hi 1048576 ns
    EXPECT_EQ(HistQuantileText(h, 0.5), "<1.1ms");
    h.fill(0);
    h[9] = 1;  // hi 1024 ns -> 1.1us
    EXPECT_EQ(HistQuantileText(h, 0.5), "<1.1us");
}

TEST(Hist, DeltaAndRates) {
    std::vector<uint64_t> now(kHistBuckets, 5), before(kHistBuckets, 2);
    before[3] = 9;  // a reset map: counts from zero
    auto d = HistDelta(now, before);
    EXPECT_EQ(d[0], 3u);
    EXPECT_EQ(d[3], 5u);
    EXPECT_EQ(Delta(10, 4), 6u);
    EXPECT_EQ(Delta(3, 4), 3u);
    EXPECT_DOUBLE_EQ(Rate(50, 0.5), 100.0);
    EXPECT_DOUBLE_EQ(Rate(50, 0), 0.0);
}

TEST(Names, EnumsOfTheEngine) {
    EXPECT_EQ(EvStateName(2), "assumed_bad");
    EXPECT_EQ(EvStateName(9), "?");
    EXPECT_EQ(EvCauseName(3), "timeout");
    EXPECT_EQ(EvCauseName(7), "floor_hold");
    EXPECT_EQ(EvCauseName(8), "late_ack");
    EXPECT_EQ(EvCauseName(9), "loss");
    EXPECT_EQ(EvCauseName(10), "path");
    EXPECT_EQ(EvCauseName(11), "gray");
    EXPECT_EQ(EvCauseName(12), "port");
    EXPECT_EQ(EvCauseName(13), "?");
    EXPECT_EQ(NackSlotName(0), "trimmed");
    EXPECT_EQ(NackSlotName(7), "other");
    EXPECT_EQ(EvStateColour(2), Colour::kRed);
    EXPECT_EQ(EvHex(0x1a203), "0x1a203");
}

}  // namespace
}  // namespace mrcstat
