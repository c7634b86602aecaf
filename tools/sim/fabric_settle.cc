// SPDX-License-Identifier: GPL-2.0 OR MIT
//
// fabric_settle.cc - see fabric_settle.h.
#include "fabric_settle.h"

#include <algorithm>

namespace mrc::sim {

namespace {

std::uint64_t placed(const FabricSim& sim) {
    std::uint64_t b = 0;
    for (std::size_t i = 0; i < sim.flows(); i++) b += sim.placed_bytes(i);
    return b;
}

// Bytes per ns between samples i and j, as Gbit/s.
double gbps(const std::vector<DeliverySample>& s, std::size_t i, std::size_t j) {
    if (j <= i || s[j].at <= s[i].at) return 0;
    return static_cast<double>(s[j].bytes - s[i].bytes) * 8 /
           static_cast<double>(s[j].at - s[i].at);
}

// One sample, then the next one scheduled: a plain value that schedules a
// copy of itself, so that nothing refers to itself and the pending one
// goes with the simulator.
struct Sampler {
    Time every;
    std::vector<DeliverySample>* out;
    void operator()(FabricSim& s) const {
        out->push_back({s.now(), placed(s)});
        s.at(s.now() + every, *this);
    }
};

}  // namespace

void sample_deliveries(FabricSim& sim, Time every, std::vector<DeliverySample>* out) {
    sim.at(sim.now(), Sampler{every, out});
}

Settle settle(const std::vector<DeliverySample>& s, Time fail, Time window) {
    Settle r;
    if (s.size() < 2) return r;
    const Time step = s[1].at - s[0].at;
    const std::size_t w = std::max<std::size_t>(1, static_cast<std::size_t>(window / step));
    // First sample at or after the failure.
    std::size_t f = 0;
    while (f < s.size() && s[f].at < fail) f++;
    const std::size_t last = s.size() - 1;
    if (f + 3 * w > last) return r;
    r.before_gbps = gbps(s, f >= w ? f - w : 0, f);
    r.after_gbps = gbps(s, f + (last - f) / 2, last);
    r.min_gbps = gbps(s, f, f + w);
    std::size_t below = f;  // start of the last window below 90 %
    bool any = false;
    // The last window is left out: the transfer's end drains it.
    for (std::size_t i = f; i + 2 * w <= last; i++) {
        const double g = gbps(s, i, i + w);
        r.min_gbps = std::min(r.min_gbps, g);
        if (g < 0.9 * r.after_gbps) {
            below = i + w;
            any = true;
        }
    }
    r.settle_ns = any ? s[below].at - fail : 0;
    return r;
}

}  // namespace mrc::sim
