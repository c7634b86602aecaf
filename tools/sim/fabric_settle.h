// SPDX-License-Identifier: GPL-2.0 OR MIT
//
// fabric_settle.h - how long the fabric's goodput takes to settle after a
// failure (issue 16: "one NIC port of 8 down -> share of capacity kept and
// time to settle").
//
// A sampler records the payload bytes every flow's receiver placed (packet
// by packet) at a fixed interval;
// settle() reads the series around the failure: the rate before it, the
// rate it settles at (the second half of what follows), the worst window in
// between, and when the windows stop falling below 90 % of the settled
// rate.
#ifndef MRC_SIM_FABRIC_SETTLE_H
#define MRC_SIM_FABRIC_SETTLE_H

#include <cstdint>
#include <vector>

#include "fabric_sim.h"

namespace mrc::sim {

// Payload bytes placed by all flows' receivers together at one instant.
struct DeliverySample {
    Time at = 0;
    std::uint64_t bytes = 0;
};

// Record the bytes placed every `every` ns into *out, from now until the
// run ends (the sampler never keeps a run alive). *out must outlive the run.
void sample_deliveries(FabricSim& sim, Time every, std::vector<DeliverySample>* out);

struct Settle {
    double before_gbps = 0;  // over the `window`s before the failure
    double after_gbps = 0;   // over the second half of the run after it
    double min_gbps = 0;     // the worst `window` after the failure
    Time settle_ns = 0;      // from the failure to the last window below 90 % of after_gbps
};

// Over `samples` (in time order), a failure at `fail`, windows of `window`
// ns (a multiple of the sampling interval). The last window before the last
// sample is left out of min_gbps and settle_ns (the transfer's end drains
// it); a run shorter than three windows past the failure gives zeros.
Settle settle(const std::vector<DeliverySample>& samples, Time fail, Time window);

}  // namespace mrc::sim

#endif  // MRC_SIM_FABRIC_SETTLE_H
