// Figures of a run: latency percentiles and throughput arithmetic.
#pragma once

#include <cstddef>
#include <cstdint>
#include <vector>

namespace mrcperf {

// Nearest-rank percentile (p in [0, 100]) of an ascending vector; 0 if empty.
// p = 0 gives the minimum, p = 100 the maximum.
uint64_t PercentileSorted(const std::vector<uint64_t>& sorted, double p);

struct LatencySummary {
    uint64_t count = 0;
    double min_us = 0, mean_us = 0, p50_us = 0, p90_us = 0, p99_us = 0, p999_us = 0, max_us = 0;
};

// Takes samples in nanoseconds (sorted in place).
LatencySummary Summarize(std::vector<uint64_t>& samples_ns);

// Spread of one figure over repeated runs.
struct Spread {
    size_t count = 0;
    double median = 0, min = 0, max = 0, mean = 0, stdev = 0;
    // 95 % confidence interval of the mean (Student's t, n - 1 degrees of
    // freedom); equal to the mean when there is a single run.
    double ci95_low = 0, ci95_high = 0;
};
Spread SummarizeRuns(std::vector<double> values);

// Megabits per second (10^6 bit/s); 0 when seconds <= 0.
double Mbps(uint64_t bytes, double seconds);

struct IntervalSample {
    double t_s = 0;      // end of the interval, seconds since the start
    uint64_t bytes = 0;  // payload bytes the receiver confirmed in the interval
    uint64_t msgs = 0;
    double mbps = 0;
};

// Cuts a monotonically growing counter into fixed intervals.
class IntervalSeries {
  public:
    explicit IntervalSeries(double interval_s) : interval_s_(interval_s) {}
    // Called with the counter's totals at time t (seconds since the start);
    // closes every interval that ended by t. Returns how many were closed.
    size_t Update(double t, uint64_t total_bytes, uint64_t total_msgs);
    const std::vector<IntervalSample>& samples() const { return samples_; }
    double NextDeadline() const { return (static_cast<double>(samples_.size()) + 1) * interval_s_; }

  private:
    double interval_s_;
    uint64_t last_bytes_ = 0, last_msgs_ = 0;
    std::vector<IntervalSample> samples_;
};

}  // namespace mrcperf
