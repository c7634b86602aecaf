#include "stats.h"

#include <gtest/gtest.h>

#include <numeric>

namespace mrcperf {
namespace {

TEST(Stats, SpreadOfRepeatedRuns) {
    Spread s = SummarizeRuns({10, 12, 11, 13, 9});
    EXPECT_EQ(s.count, 5u);
    EXPECT_DOUBLE_EQ(s.median, 11);
    EXPECT_DOUBLE_EQ(s.min, 9);
    EXPECT_DOUBLE_EQ(s.max, 13);
    EXPECT_DOUBLE_EQ(s.mean, 11);
    EXPECT_NEAR(s.stdev, 1.5811, 1e-4);
    // t(0.975, 4) = 2.776: 11 -+ 2.776 * 1.5811 / sqrt(5)
    EXPECT_NEAR(s.ci95_low, 9.0371, 1e-3);
    EXPECT_NEAR(s.ci95_high, 12.9629, 1e-3);
    Spread even = SummarizeRuns({4, 1, 3, 2});
    EXPECT_DOUBLE_EQ(even.median, 2.5);
    Spread one = SummarizeRuns({7});
    EXPECT_DOUBLE_EQ(one.ci95_low, 7);
    EXPECT_DOUBLE_EQ(one.stdev, 0);
    EXPECT_EQ(SummarizeRuns({}).count, 0u);
}

TEST(Stats, NearestRankPercentiles) {
    std::vector<uint64_t> v(1000);
    std::iota(v.begin(), v.end(), 1);  // 1..1000
    EXPECT_EQ(PercentileSorted(v, 50), 500u);
    EXPECT_EQ(PercentileSorted(v, 99), 990u);
    EXPECT_EQ(PercentileSorted(v, 99.9), 999u);
    EXPECT_EQ(PercentileSorted(v, 100), 1000u);
    EXPECT_EQ(PercentileSorted(v, 0), 1u);
    EXPECT_EQ(PercentileSorted(v, 0.1), 1u);
}

TEST(Stats, SmallSamples) {
    std::vector<uint64_t> one{42};
    EXPECT_EQ(PercentileSorted(one, 50), 42u);
    EXPECT_EQ(PercentileSorted(one, 99.9), 42u);
    std::vector<uint64_t> ten{1, 2, 3, 4, 5, 6, 7, 8, 9, 10};
    EXPECT_EQ(PercentileSorted(ten, 50), 5u);
    EXPECT_EQ(PercentileSorted(ten, 99), 10u);  // tail of a short run is its max
    EXPECT_EQ(PercentileSorted({}, 50), 0u);
}

TEST(Stats, SummarizeSortsAndConvertsToMicroseconds) {
    std::vector<uint64_t> ns{5000, 1000, 3000, 2000, 4000};
    LatencySummary s = Summarize(ns);
    EXPECT_EQ(s.count, 5u);
    EXPECT_DOUBLE_EQ(s.min_us, 1.0);
    EXPECT_DOUBLE_EQ(s.max_us, 5.0);
    EXPECT_DOUBLE_EQ(s.mean_us, 3.0);
    EXPECT_DOUBLE_EQ(s.p50_us, 3.0);
    EXPECT_DOUBLE_EQ(s.p999_us, 5.0);
    std::vector<uint64_t> none;
    EXPECT_EQ(Summarize(none).count, 0u);
}

TEST(Stats, Mbps) {
    EXPECT_DOUBLE_EQ(Mbps(125000000, 10), 100.0);
    EXPECT_DOUBLE_EQ(Mbps(1, 0), 0.0);
}

TEST(Stats, IntervalSeriesClosesEveryElapsedInterval) {
    IntervalSeries s(0.1);
    EXPECT_EQ(s.Update(0.05, 100, 1), 0u);
    EXPECT_EQ(s.Update(0.10, 1250000, 10), 1u);  // 1.25 MB in 100 ms
    ASSERT_EQ(s.samples().size(), 1u);
    EXPECT_NEAR(s.samples()[0].mbps, 100.0, 1e-9);
    EXPECT_EQ(s.samples()[0].msgs, 10u);
    // A stall: three intervals close at once, the later ones empty.
    EXPECT_EQ(s.Update(0.42, 1250000 + 500, 11), 3u);
    ASSERT_EQ(s.samples().size(), 4u);
    EXPECT_EQ(s.samples()[1].bytes, 500u);
    EXPECT_EQ(s.samples()[2].bytes, 0u);
    EXPECT_EQ(s.samples()[3].bytes, 0u);
    EXPECT_NEAR(s.samples()[3].t_s, 0.4, 1e-9);
    EXPECT_NEAR(s.NextDeadline(), 0.5, 1e-9);
}

}  // namespace
}  // namespace mrcperf
