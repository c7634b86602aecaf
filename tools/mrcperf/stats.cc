#include "stats.h"

#include <algorithm>
#include <cmath>
#include <iterator>

namespace mrcperf {

uint64_t PercentileSorted(const std::vector<uint64_t>& sorted, double p) {
    if (sorted.empty()) return 0;
    p = std::clamp(p, 0.0, 100.0);
    const double n = static_cast<double>(sorted.size());
    // 1e-9 keeps exact ranks exact: 99.9% of 1000 is rank 999, not 1000.
    auto rank = static_cast<size_t>(std::ceil(p / 100.0 * n - 1e-9));
    rank = std::clamp<size_t>(rank, 1, sorted.size());
    return sorted[rank - 1];
}

LatencySummary Summarize(std::vector<uint64_t>& samples_ns) {
    LatencySummary s;
    if (samples_ns.empty()) return s;
    std::sort(samples_ns.begin(), samples_ns.end());
    long double sum = 0;
    for (uint64_t v : samples_ns) sum += static_cast<long double>(v);
    auto us = [](uint64_t ns) { return static_cast<double>(ns) / 1000.0; };
    s.count = samples_ns.size();
    s.min_us = us(samples_ns.front());
    s.max_us = us(samples_ns.back());
    s.mean_us = static_cast<double>(sum / static_cast<long double>(samples_ns.size()) / 1000.0L);
    s.p50_us = us(PercentileSorted(samples_ns, 50));
    s.p90_us = us(PercentileSorted(samples_ns, 90));
    s.p99_us = us(PercentileSorted(samples_ns, 99));
    s.p999_us = us(PercentileSorted(samples_ns, 99.9));
    return s;
}

namespace {

// Two-sided 95 % quantiles of Student's t for 1..30 degrees of freedom.
constexpr double kT975[] = {12.706, 4.303, 3.182, 2.776, 2.571, 2.447, 2.365, 2.306, 2.262, 2.228,
                            2.201,  2.179, 2.160, 2.145, 2.131, 2.120, 2.110, 2.101, 2.093, 2.086,
                            2.080,  2.074, 2.069, 2.064, 2.060, 2.056, 2.052, 2.048, 2.045, 2.042};

}  // namespace

Spread SummarizeRuns(std::vector<double> v) {
    Spread s;
    if (v.empty()) return s;
    std::sort(v.begin(), v.end());
    const size_t n = v.size();
    s.count = n;
    s.min = v.front();
    s.max = v.back();
    s.median = n % 2 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2;
    double sum = 0;
    for (double x : v) sum += x;
    s.mean = sum / double(n);
    s.ci95_low = s.ci95_high = s.mean;
    if (n < 2) return s;
    double ss = 0;
    for (double x : v) ss += (x - s.mean) * (x - s.mean);
    s.stdev = std::sqrt(ss / double(n - 1));
    const double t = n - 1 <= std::size(kT975) ? kT975[n - 2] : 1.96;
    const double half = t * s.stdev / std::sqrt(double(n));
    s.ci95_low = s.mean - half;
    s.ci95_high = s.mean + half;
    return s;
}

double Mbps(uint64_t bytes, double seconds) {
    if (seconds <= 0) return 0;
    return static_cast<double>(bytes) * 8.0 / seconds / 1e6;
}

size_t IntervalSeries::Update(double t, uint64_t total_bytes, uint64_t total_msgs) {
    size_t closed = 0;
    while (t >= NextDeadline()) {
        IntervalSample s;
        s.t_s = NextDeadline();
        // Everything seen by now is charged to the first interval that
        // closes; intervals with no update in them show 0.
        s.bytes = total_bytes - last_bytes_;
        s.msgs = total_msgs - last_msgs_;
        s.mbps = Mbps(s.bytes, interval_s_);
        last_bytes_ = total_bytes;
        last_msgs_ = total_msgs;
        samples_.push_back(s);
        ++closed;
    }
    return closed;
}

}  // namespace mrcperf
