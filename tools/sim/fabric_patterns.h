// SPDX-License-Identifier: GPL-2.0 OR MIT
//
// fabric_patterns.h - the traffic of the paper's experiments and of the
// collectives an AI fabric carries, as flows for FabricSim (fabric_sim.h).
//
// Every builder is deterministic for its arguments (and seed); none looks at
// the fabric beyond the host count and the hosts under one T0.
#ifndef MRC_SIM_FABRIC_PATTERNS_H
#define MRC_SIM_FABRIC_PATTERNS_H

#include <cstddef>
#include <cstdint>
#include <vector>

#include "fabric_sim.h"

namespace mrc::sim {

// A permutation: host i sends to perm[i], no host to itself and, when the
// fabric has more than one T0, never under its own T0 (every flow crosses
// the spines). Deterministic for a seed.
std::vector<unsigned> permutation(unsigned hosts, unsigned hosts_per_t0, std::uint64_t seed);

// All-to-all (an expert-parallel exchange): every host sends `msgs`
// messages of `msg_bytes` to every other host, all from time 0:
// hosts x (hosts - 1) flows, source-major.
std::vector<FlowSpec> all_to_all(unsigned hosts, std::uint32_t msg_bytes, std::uint32_t msgs);

// A ring in which every host's successor is under another T0 (when there
// are several), so every step of a ring collective crosses the spines:
// position p holds host (p mod T) x hosts_per_t0 + p / T, T the T0 count.
std::vector<unsigned> ring_order(unsigned hosts, unsigned hosts_per_t0);

// Ring all-reduce of `bytes` per host over `ring`: 2 (N - 1) steps
// (reduce-scatter, then all-gather); in each step every host sends one chunk
// of bytes / N to its successor, and sends step s's chunk only once it has
// received step s - 1's from its predecessor. One flow per ring edge, of
// 2 (N - 1) messages; the flow out of ring[i] waits for the flow into it.
// `first` is the index add_flow() will give the first returned flow (they
// must be added in order).
std::vector<FlowSpec> ring_allreduce(const std::vector<unsigned>& ring, std::uint64_t bytes,
                                     std::size_t first);

// Open-loop arrivals: on every host, messages of `msg_bytes` arrive as a
// Poisson process at `load` x `line_Bps` (payload bytes per second) during
// [0, duration), each to a destination drawn uniformly among the other
// hosts. One flow per (source, destination) pair that got messages, its
// arrival times in FlowSpec::arrivals.
std::vector<FlowSpec> open_loop(unsigned hosts, double load, double line_Bps,
                                std::uint32_t msg_bytes, Time duration, std::uint64_t seed);

}  // namespace mrc::sim

#endif  // MRC_SIM_FABRIC_PATTERNS_H
