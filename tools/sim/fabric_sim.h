// SPDX-License-Identifier: GPL-2.0 OR MIT
//
// fabric_sim.h - many MRC connections between the hosts of a FabricNet.
//
// Each flow is a pair of unmodified engines (kmod/core): a sender connection
// on its source host and a receiver connection on its destination host. The
// simulator is the host of all of them: it queues the application's
// messages, hands every packet the engine emits to the fabric at the
// source's NIC port of the EV's plane, feeds deliveries to mrc_conn_rx()
// with CE / trimmed / last-hop flags, and runs each engine's timer at its
// deadline (one heap of timers, stale entries skipped). Headers only: the
// engines' structures travel, no payload bytes and no ICRC; a delivered
// message is checked by the bytes placed for its MSN against its length.
//
// Traffic is a list of flows (source, destination, message size, message
// count, start time, optionally each message's arrival time, optionally a
// flow whose deliveries release this one's messages); the patterns
// (fabric_patterns.h: permutation, all-to-all, ring all-reduce, open-loop
// arrivals; N -> 1 incast with a victim) are built from it by the callers. Failures are
// scheduled actions on the fabric; an announced NIC port failure is also
// told to every engine of that host and of its peers (the port-status
// update MRC 1.0 sends), a silent one is found by the engines. With
// FabricSimConfig::rc_baseline every flow is instead a RoCE-like RcFlow
// (fabric_rc.h) over the same fabric, for comparison.
#ifndef MRC_SIM_FABRIC_SIM_H
#define MRC_SIM_FABRIC_SIM_H

#include <functional>
#include <map>
#include <memory>
#include <string>
#include <unordered_map>
#include <vector>

#include "fabric_net.h"
#include "fabric_rc.h"
#include "harness.h"

namespace mrc::sim {

struct FabricSimConfig {
    FabricConfig net;
    // RoCE-like baseline: every connection uses one EV on one plane (chosen
    // by a hash of the flow), routed by ECMP. Its loss recovery is still
    // MRC's selective one, so the figures it gives are an upper bound for
    // go-back-N RoCE.
    bool single_path = false;
    // The RoCE-like baseline proper: every flow is an RcFlow (fabric_rc.h:
    // one hashed path, go-back-N, fixed window of rc_window packets, RTO
    // the engine's floor), not an MRC engine pair.
    bool rc_baseline = false;
    std::uint32_t rc_window = 0;  // packets; 0: 1.5 x one port's BDP
    std::uint8_t rto_exp = 7;     // RTO floor 2^exp * 1.024 us
    std::uint32_t mtu = 4096;     // payload bytes per packet
    std::uint32_t mpr = 0;        // 0: the engine default
    std::uint8_t cc_algo = MRC_CC_NSCC;
    std::uint32_t init_wnd_bytes = 0;  // 0: the engine default (its maximum window)
    // The engines of one host split one initial window while they start
    // (struct mrc_iw_share, as the kernel does per network namespace).
    bool iw_share = true;
    // The engines' failover rules (mrc_conn_cfg.failover, enum
    // mrc_failover); under SRv6 routing the engines know each plane's
    // paths (one per T1), as the kernel does from its route.
    std::uint8_t failover = MRC_FO_ALL;
    std::uint64_t seed = 1;
    // Transmit room of a host's NIC port: once this much data waits in it,
    // the host's engines are told the plane has no room
    // (mrc_conn_set_tx_room()) until it has drained to half. A NIC takes
    // a packet when its port can send it soon, not a whole window at once:
    // without it an all-to-all queued 30 MiB in each host's own ports and
    // the engines' retransmit timers fired on packets still in the host.
    // 0: unbounded.
    std::uint64_t nic_room_bytes = 64 << 10;
};

struct FlowSpec {
    unsigned src = 0;
    unsigned dst = 0;
    std::uint32_t msg_bytes = 1 << 20;
    std::uint32_t msgs = 16;
    Time start = 0;
    // Open loop: message m is handed to the engine no earlier than
    // arrivals[m] (sorted; empty: all at `start`, as fast as the engine
    // takes them). When set, its size must be `msgs`.
    std::vector<Time> arrivals;
    // A step of a collective: message m (m >= 1) is handed to the engine
    // only once flow `after` (an index add_flow() returned) has delivered m
    // messages, as a ring all-reduce step waits for its predecessor's chunk
    // (the flow may be added later: a ring's first waits for its last).
    long after = -1;
};

struct FlowResult {
    FlowSpec spec;
    std::uint64_t delivered_bytes = 0;
    std::uint32_t delivered_msgs = 0;
    std::uint32_t bad_msgs = 0;  // placed bytes did not add up to the length
    Time first_send = kNever;
    Time last_delivery = 0;
    bool failed = false;
    mrc_conn_stats tx{};         // the sender's engine counters
    std::vector<Time> msg_done;  // when each message was delivered (MRC flows)
    // Goodput over [start, last delivery], bits/s (0 before anything arrived).
    double goodput_bps() const;
};

class FabricSim {
  public:
    explicit FabricSim(const FabricSimConfig& cfg);
    FabricSim(const FabricSim&) = delete;
    FabricSim& operator=(const FabricSim&) = delete;

    FabricNet& net() { return net_; }
    const FabricNet& net() const { return net_; }
    Time now() const { return now_; }

    // A flow; returns its index.
    std::size_t add_flow(const FlowSpec& f);
    // Run `fn` at virtual time `at`.
    void at(Time at, std::function<void(FabricSim&)> fn);
    // Host `host`'s NIC port on `plane` goes down or up at `at`; announced:
    // every connection of that host and of its peers learns it at once.
    void set_nic_up(unsigned plane, unsigned host, bool up, Time at, bool announced);
    // T0 switch `t0` of `plane` goes down or up at `at`: its hosts lose
    // that plane. announced: their NICs see their links drop, as when a
    // port dies, and every connection of those hosts and of their peers
    // learns it at once (each host's port-status update).
    void set_t0_up(unsigned plane, unsigned t0, bool up, Time at, bool announced);

    // Step until every flow is delivered, a connection fails, or `deadline`.
    RunResult run(Time deadline);
    bool all_done() const;

    FlowResult flow(std::size_t i) const;
    std::size_t flows() const { return flows_.size(); }
    std::uint64_t delivered_bytes(std::size_t flow) const;
    // Payload bytes the receiver placed, packet by packet (delivered_bytes
    // moves a whole message at a time); the RoCE-like baseline's delivered.
    std::uint64_t placed_bytes(std::size_t flow) const;
    std::uint64_t data_pkts() const { return data_pkts_; }
    // The connection error that ended a run, if one did.
    struct Error {
        std::size_t flow = 0;
        std::uint8_t reason = 0;  // enum mrc_conn_error; 0: none
        Time at = 0;
        bool sender = false;
    };
    const Error& error() const { return error_; }
    // A flow's sender engine (MRC flows only, not rc_baseline).
    mrc_conn* sender(std::size_t flow) { return conns_[2 * flow].c.get(); }

  private:
    struct Conn {
        ConnPtr c;
        unsigned host = 0;
        unsigned peer_host = 0;
        std::uint32_t peer = 0;  // the other engine of the flow
        std::size_t flow = 0;
        std::uint32_t to_send = 0;  // messages not yet accepted
        std::uint32_t sent = 0;
        std::uint32_t wake_for = 0;  // 1 + the message an arrival wake-up is set for
        Time armed = kNever;
        std::unordered_map<std::uint16_t, std::uint64_t> placed;  // receiver: msn -> bytes
    };
    struct Flow {
        FlowSpec spec;
        int rc = -1;  // index into rcs_ (rc_baseline)
        std::uint32_t rc_ev = 0;
        Time rc_armed = kNever;
        std::uint64_t delivered_bytes = 0;
        std::uint64_t placed_bytes = 0;  // first copies, as packets arrive
        std::uint32_t delivered_msgs = 0;
        std::uint32_t bad_msgs = 0;
        Time first_send = kNever;
        Time last_delivery = 0;
        std::vector<Time> msg_done;
        std::vector<std::uint32_t> released;  // sender conns waiting on this flow
    };
    struct Timer {
        Time t;
        std::uint32_t conn;
        bool operator>(const Timer& o) const { return t != o.t ? t > o.t : conn > o.conn; }
    };

    // Flow `flow` must already be in flows_ (its ends name the hosts).
    mrc_conn_cfg conn_cfg(std::size_t flow, std::uint32_t self, std::uint32_t peer,
                          bool sender) const;
    void service(std::uint32_t k);
    // Every connection with an end among hosts [first, first + n) is told
    // that `plane` went down or up (mrc_conn_set_plane_up()).
    void announce_plane(unsigned plane, unsigned first, unsigned n, bool up);
    bool pump_app(std::uint32_t k);
    bool drain_tx(std::uint32_t k);
    bool drain_events(std::uint32_t k);
    void check_nic_room(unsigned host, unsigned plane);
    void deliver(FabricPacket& p);
    void rc_send(std::size_t flow, Time now, const std::vector<RcSegment>& segs, bool to_rx);
    void rc_deliver(FabricPacket& p);
    void rc_arm(std::size_t flow);
    void rc_check_done(std::size_t flow);
    Time next_time() const;
    bool step();

    FabricSimConfig cfg_;
    FabricNet net_;
    std::vector<Conn> conns_;
    std::vector<Flow> flows_;
    std::vector<RcFlow> rcs_;
    std::vector<std::uint32_t> room_;                     // per host: planes with room
    std::vector<std::vector<std::uint32_t>> host_conns_;  // per host: its engines
    // Per host: the initial window its engines split; sized once, so that
    // the engines' pointers into it stay valid.
    std::unique_ptr<mrc_iw_share[]> iw_shares_;
    std::vector<std::pair<std::size_t, std::uint32_t>> waits_;  // (flow not yet added, conn)
    std::vector<RcSegment> rc_out_;
    std::priority_queue<Timer, std::vector<Timer>, std::greater<Timer>> timers_;
    std::multimap<std::pair<Time, std::uint64_t>, std::function<void(FabricSim&)>> actions_;
    std::uint64_t action_seq_ = 0;
    std::uint64_t data_pkts_ = 0;
    std::size_t flows_done_ = 0;  // flows whose every message was delivered
    std::uint64_t same_instant_ = 0;
    Time now_ = 0;
    bool stuck_ = false;
    Error error_;
};

// Jain's fairness index of a set of rates.
double jain(const std::vector<double>& x);

}  // namespace mrc::sim

#endif  // MRC_SIM_FABRIC_SIM_H
