// SPDX-License-Identifier: GPL-2.0 OR MIT
//
// fabric_patterns.cc - see fabric_patterns.h.
#include "fabric_patterns.h"

#include <cmath>
#include <map>
#include <stdexcept>
#include <utility>

namespace mrc::sim {

std::vector<unsigned> permutation(unsigned hosts, unsigned hosts_per_t0, std::uint64_t seed) {
    Rng rng(seed ^ 0x9e3779b9ULL);
    const bool cross = hosts / hosts_per_t0 > 1;
    auto ok = [&](unsigned a, unsigned b) {
        return a != b && (!cross || a / hosts_per_t0 != b / hosts_per_t0);
    };
    std::vector<unsigned> p(hosts);
    for (unsigned i = 0; i < hosts; i++) p[i] = i;
    for (unsigned i = hosts; i > 1; i--) std::swap(p[i - 1], p[rng.upto(i - 1)]);
    // Repair: swap a bad target with one that suits both ends.
    for (int pass = 0; pass < 100; pass++) {
        bool bad = false;
        for (unsigned i = 0; i < hosts; i++) {
            if (ok(i, p[i])) continue;
            bad = true;
            for (int tries = 0; tries < 10000; tries++) {
                const auto j = static_cast<unsigned>(rng.upto(hosts - 1));
                if (ok(i, p[j]) && ok(j, p[i])) {
                    std::swap(p[i], p[j]);
                    break;
                }
            }
        }
        if (!bad) return p;
    }
    throw std::runtime_error("fabric: no permutation found");
}

std::vector<FlowSpec> all_to_all(unsigned hosts, std::uint32_t msg_bytes, std::uint32_t msgs) {
    std::vector<FlowSpec> out;
    out.reserve(static_cast<std::size_t>(hosts) * (hosts ? hosts - 1 : 0));
    for (unsigned s = 0; s < hosts; s++)
        for (unsigned d = 0; d < hosts; d++)
            if (s != d) out.push_back({s, d, msg_bytes, msgs, 0, {}, -1});
    return out;
}

std::vector<unsigned> ring_order(unsigned hosts, unsigned hosts_per_t0) {
    if (!hosts_per_t0 || hosts % hosts_per_t0)
        throw std::invalid_argument("fabric: hosts must fill whole T0s");
    const unsigned t0s = hosts / hosts_per_t0;
    std::vector<unsigned> ring(hosts);
    for (unsigned p = 0; p < hosts; p++) ring[p] = (p % t0s) * hosts_per_t0 + p / t0s;
    return ring;
}

std::vector<FlowSpec> ring_allreduce(const std::vector<unsigned>& ring, std::uint64_t bytes,
                                     std::size_t first) {
    const auto n = static_cast<unsigned>(ring.size());
    if (n < 2) throw std::invalid_argument("fabric: a ring needs two hosts");
    const std::uint64_t chunk = (bytes + n - 1) / n;
    if (!chunk || chunk > UINT32_MAX) throw std::invalid_argument("fabric: bad all-reduce size");
    std::vector<FlowSpec> out;
    for (unsigned i = 0; i < n; i++) {
        FlowSpec f;
        f.src = ring[i];
        f.dst = ring[(i + 1) % n];
        f.msg_bytes = static_cast<std::uint32_t>(chunk);
        f.msgs = 2 * (n - 1);
        // The flow into ring[i] is the one out of its predecessor.
        f.after = static_cast<long>(first + (i + n - 1) % n);
        out.push_back(f);
    }
    return out;
}

std::vector<FlowSpec> open_loop(unsigned hosts, double load, double line_Bps,
                                std::uint32_t msg_bytes, Time duration, std::uint64_t seed) {
    if (hosts < 2 || load <= 0 || line_Bps <= 0 || !msg_bytes)
        throw std::invalid_argument("fabric: bad open-loop load");
    Rng rng(seed ^ 0x6f70656e6c6f6f70ULL);
    const double mean_ns = static_cast<double>(msg_bytes) * 1e9 / (load * line_Bps);
    std::map<std::pair<unsigned, unsigned>, std::vector<Time>> pairs;
    for (unsigned s = 0; s < hosts; s++) {
        double t = 0;
        for (;;) {
            t += -std::log(1.0 - rng.uniform()) * mean_ns;
            if (t >= static_cast<double>(duration)) break;
            auto d = static_cast<unsigned>(rng.upto(hosts - 2));
            d += d >= s;
            pairs[{s, d}].push_back(static_cast<Time>(t));
        }
    }
    std::vector<FlowSpec> out;
    for (auto& [sd, arr] : pairs) {
        FlowSpec f;
        f.src = sd.first;
        f.dst = sd.second;
        f.msg_bytes = msg_bytes;
        f.msgs = static_cast<std::uint32_t>(arr.size());
        f.arrivals = std::move(arr);
        out.push_back(std::move(f));
    }
    return out;
}

}  // namespace mrc::sim
