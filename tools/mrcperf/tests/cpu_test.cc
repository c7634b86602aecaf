// CPU accounting: /proc/stat parsing, deltas, service demand.
#include "cpu.h"

#include <gtest/gtest.h>

#include <cstdio>
#include <fstream>

namespace mrcperf {
namespace {

constexpr char kStatA[] =
    "cpu  100 5 200 1000 10 3 50 2 0 0\n"
    "cpu0 60 5 100 400 5 2 40 1 0 0\n"
    "cpu1 40 0 100 600 5 1 10 1 0 0\n"
    "intr 12345 0 0\n"
    "ctxt 999\n";
// Both CPUs 1 s later (USER_HZ 100): cpu0 fully busy in softirq, cpu1 idle
// but for 10 ticks of system time.
constexpr char kStatB[] =
    "cpu  100 5 210 1090 10 3 150 2 0 0\n"
    "cpu0 60 5 100 400 5 2 140 1 0 0\n"
    "cpu1 40 0 110 690 5 1 10 1 0 0\n";

TEST(Cpu, ParsesAggregateAndPerCpuLines) {
    auto s = ParseProcStat(kStatA);
    ASSERT_TRUE(s);
    EXPECT_EQ(s->all.user, 100u);
    EXPECT_EQ(s->all.softirq, 50u);
    EXPECT_EQ(s->all.steal, 2u);
    ASSERT_EQ(s->cpus.size(), 2u);
    EXPECT_EQ(s->cpus[1].idle, 600u);
    EXPECT_EQ(s->all.Busy(), 100u + 5 + 200 + 3 + 50 + 2);
}

TEST(Cpu, RejectsTextWithoutTheAggregateLine) {
    EXPECT_FALSE(ParseProcStat(""));
    EXPECT_FALSE(ParseProcStat("cpu0 1 2 3 4 5 6 7 8\n"));
    EXPECT_FALSE(ParseProcStat("cpu 1 2 3\n"));  // too few fields
}

TEST(Cpu, DeltaByCategoryUtilisationAndServiceDemand) {
    auto a = ParseProcStat(kStatA), b = ParseProcStat(kStatB);
    ASSERT_TRUE(a && b);
    CpuUsage u = CpuDelta(*a, *b, 0.01);
    ASSERT_TRUE(u.valid);
    EXPECT_EQ(u.ncpu, 2u);
    EXPECT_DOUBLE_EQ(u.softirq_s, 1.0);
    EXPECT_DOUBLE_EQ(u.system_s, 0.1);
    EXPECT_DOUBLE_EQ(u.user_s, 0.0);
    EXPECT_DOUBLE_EQ(u.idle_s, 0.9);
    EXPECT_DOUBLE_EQ(u.busy_s, 1.1);
    EXPECT_DOUBLE_EQ(u.total_s, 2.0);
    EXPECT_DOUBLE_EQ(u.Utilisation(), 0.55);
    EXPECT_DOUBLE_EQ(u.max_cpu_util, 1.0);
    // 1.1 CPU-seconds for 110 MB: 10,000 CPU-us per MB.
    EXPECT_DOUBLE_EQ(u.ServiceDemandUsPerMB(110'000'000), 10'000.0);
    EXPECT_DOUBLE_EQ(u.ServiceDemandUsPerMB(0), 0.0);
}

TEST(Cpu, CountersThatGoBackwardsCountAsZero) {
    auto a = ParseProcStat(kStatB), b = ParseProcStat(kStatA);
    CpuUsage u = CpuDelta(*a, *b, 0.01);
    EXPECT_FALSE(u.valid);
    EXPECT_DOUBLE_EQ(u.busy_s, 0.0);
}

TEST(Cpu, ReadsTheRealProcStat) {
    auto s = ReadCpuSample("/proc/stat");
    ASSERT_TRUE(s) << "this machine's /proc/stat did not parse";
    EXPECT_GT(s->all.Total(), 0u);
    EXPECT_GE(s->cpus.size(), 1u);
    EXPECT_FALSE(ReadCpuSample("/nonexistent/stat"));
    EXPECT_GT(ClockTick(), 0.0);
}

}  // namespace
}  // namespace mrcperf
