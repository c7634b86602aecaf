#include "stats.h"

#include <algorithm>
#include <cmath>

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
