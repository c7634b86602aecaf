// SPDX-License-Identifier: GPL-2.0 OR MIT
//
// fabric_net.h - a multi-host, multi-plane fabric: N hosts x P planes, each
// plane a two-tier Clos of output-queued switches.
//
// Topology of one plane (every plane is the same and independent):
//
//       T1[0] ... T1[S-1]            spines: S = t1_per_plane
//        |  \  /  |                  every T0 has one link to every T1
//       T0[0] ... T0[H/k-1]          leaves: k = hosts_per_t0 hosts each
//       |..|      |..|
//      host ... host                 each host has ONE NIC port per plane,
//                                    shared by all of that plane's EVs
//
// Every directed link is an output port with a FIFO: serialisation at its
// rate, then propagation delay. The backlog a packet finds is the port's
// unfinished serialisation time times its rate, so a port costs two integers
// and no per-packet queue. At enqueue a data packet may be
//   - trimmed to its headers (backlog + size > trim_bytes, when set): the
//     header is forwarded in a priority lane (serialised, never queued) and
//     flagged last-hop when the port is a T0 -> host downlink, as a switch
//     that trims and sets the trimmed code point does;
//   - dropped (backlog + size > queue_bytes: tail drop; without trimming);
//   - CE-marked, RED-like: probability 0 at ecn_kmin_bytes rising linearly
//     to 1 at ecn_kmax_bytes.
// Control packets (SACK, NACK, probes: `data` false) are never trimmed or
// marked; data with trim_len 0 is dropped instead of trimmed. Every
// packet crossing a T0 -> T1 link is lost with probability `loss` (bit
// errors, a flapping optic: what the paper's loss sweep injects).
//
// Routing of a packet from host a to host b with entropy value ev: plane =
// mrc_ev_plane(ev). Under the same T0: NIC port, T0 -> b. Otherwise the
// spine is chosen
//   - Routing::Srv6: explicitly, by the EV's path index (ev & 0xffffff) %
//     t1_per_plane (the engine's paths_per_plane layout): the source routes
//     each EV onto a spine, as MRC's SRv6 segment lists do;
//   - Routing::Ecmp: by a hash of (a, b, ev): what a switch hashing the
//     5-tuple does; EVs collide on spines at random.
//
// Failures are port states: a NIC port (both directions), a T0-T1 link (both
// directions), a whole T1 switch (all its links) or a whole T0 switch (its
// hosts' links and its links to every T1 of the plane). A packet reaching a
// down port is dropped silently; telling the hosts is the caller's business.
//
// Events: every port keeps the arrivals it scheduled at the next hop in two
// time-ordered rings (its data FIFO and its priority class), and one binary
// heap orders the rings by their heads, so the heap holds at most two
// entries per port whatever the packets in flight. Packets live in a pool
// with a free list, split hot (route, size, flags: what a hop touches) and
// cold (the engine's structure): no allocation per packet in steady state.
#ifndef MRC_SIM_FABRIC_NET_H
#define MRC_SIM_FABRIC_NET_H

#include "netmodel.h"

extern "C" {
#include "mrc_engine.h"
}

#include <cstdint>
#include <optional>
#include <queue>
#include <vector>

namespace mrc::sim {

enum class Routing : std::uint8_t { Srv6 = 0, Ecmp = 1 };

struct FabricConfig {
    unsigned hosts = 16;
    unsigned planes = 8;
    unsigned hosts_per_t0 = 4;
    unsigned t1_per_plane = 4;
    std::uint64_t host_rate_Bps = 100'000'000'000 / 8;    // NIC port and T0 -> host
    std::uint64_t fabric_rate_Bps = 100'000'000'000 / 8;  // T0 <-> T1
    Time link_delay_ns = 500;                             // per hop
    std::uint64_t queue_bytes = 1 << 20;                  // per port
    std::uint64_t ecn_kmin_bytes = 0;                     // RED marking; 0 = off
    std::uint64_t ecn_kmax_bytes = 0;
    std::uint64_t trim_bytes = 0;  // trim data above this backlog; 0 = tail drop
    double loss = 0;               // random loss on every T0 -> T1 link (corruption)
    Routing routing = Routing::Srv6;
    std::uint32_t overhead_bytes = 48;  // outer IPv6 + UDP per packet
    std::uint64_t seed = 1;
};

enum class PortKind : std::uint8_t { Nic = 0, T0Up = 1, T1Down = 2, T0Down = 3 };

struct PortCounters {
    std::uint64_t pkts = 0;
    std::uint64_t bytes = 0;
    std::uint64_t drops = 0;  // tail drops and drops on a down port
    std::uint64_t lost = 0;   // random loss (FabricConfig::loss)
    std::uint64_t trims = 0;
    std::uint64_t marks = 0;
    std::uint64_t max_backlog = 0;
};

// A packet as the fabric carries it: the engine's structure (the payload
// bytes are never materialised) and its wire size.
struct FabricPacket {
    mrc_pkt pkt;
    std::uint32_t ev = 0;
    std::uint32_t wire_len = 0;
    std::uint32_t trim_len = 0;  // its size once trimmed; 0: not trimmable
    std::uint32_t to_conn = 0;   // the receiving connection (the caller's index)
    std::uint64_t cookie = 0;    // the caller's, carried untouched
    std::uint16_t src = 0;
    std::uint16_t dst = 0;
    std::uint8_t plane = 0;
    std::uint8_t hop = 0;
    std::uint8_t nhops = 0;
    bool data = false;  // data class (queued, marked, trimmed or dropped); else priority
    bool trimmed = false;
    bool ce = false;
    bool lasthop = false;
    std::uint32_t route[4] = {};
};

class FabricNet {
  public:
    explicit FabricNet(const FabricConfig& cfg);

    const FabricConfig& config() const { return cfg_; }
    unsigned t0_of(unsigned host) const { return host / cfg_.hosts_per_t0; }
    unsigned t0_count() const { return t0s_; }

    // Port ids.
    std::uint32_t nic_port(unsigned plane, unsigned host) const;
    std::uint32_t t0_down_port(unsigned plane, unsigned host) const;
    std::uint32_t t0_up_port(unsigned plane, unsigned t0, unsigned t1) const;
    std::uint32_t t1_down_port(unsigned plane, unsigned t1, unsigned t0) const;
    PortKind kind(std::uint32_t port) const;

    // Failures (take effect for packets reaching the port from `now` on).
    void set_port_up(std::uint32_t port, bool up) { ports_[port].up = up; }
    void set_nic_up(unsigned plane, unsigned host, bool up);
    void set_link_up(unsigned plane, unsigned t0, unsigned t1, bool up);
    void set_t1_up(unsigned plane, unsigned t1, bool up);
    // A T0 switch: for its hosts, the loss of that plane (as of their NIC
    // ports); for everyone else, of the paths to them on it.
    void set_t0_up(unsigned plane, unsigned t0, bool up);
    // A gray link: the T0 -> T1 direction of one link loses `p` of what
    // crosses it (on top of FabricConfig::loss), e.g. one EV's path at 20 %.
    void set_link_loss(unsigned plane, unsigned t0, unsigned t1, double p);

    // Which spine a packet from a to b on `ev` crosses (-1: same T0).
    int spine_of(unsigned a, unsigned b, std::uint32_t ev) const;

    // Inject at a's NIC port at `now`. The packet's ev, src, dst, wire_len,
    // trim_len and to_conn must be set.
    void send(Time now, FabricPacket&& p);
    // Next hop arrival or delivery time, kNever if nothing is in flight.
    Time next_event() const { return heap_.empty() ? kNever : heap_.top().t; }
    // Advance one hop event due at or before `now`; a packet that reached
    // its destination host is returned.
    std::optional<FabricPacket> pop_due(Time now);

    // A port's data backlog at `now` (bytes), and when it will have drained
    // to `bytes` if nothing more is queued (now or later).
    std::uint64_t backlog(std::uint32_t port, Time now) const;
    Time drained_to(std::uint32_t port, std::uint64_t bytes, Time now) const;
    const PortCounters& port(std::uint32_t id) const { return ports_[id].ctr; }
    std::uint32_t port_count() const { return static_cast<std::uint32_t>(ports_.size()); }
    std::uint64_t in_flight() const { return pool_.size() - free_.size(); }
    std::uint64_t events() const { return events_; }

  private:
    // What a hop needs of a packet (32 bytes); the rest (the engine's
    // structure) stays cold in pool_ until delivery.
    struct Hot {
        std::uint32_t route[4];
        std::uint32_t wire_len;
        std::uint32_t trim_len;
        std::uint8_t hop;
        std::uint8_t nhops;
        bool data;
        bool trimmed;
        bool ce;
        bool lasthop;
    };
    // One arrival scheduled at the next hop.
    struct LaneEv {
        Time t;
        std::uint32_t pkt;
    };
    // The arrivals a port's class (data FIFO or priority) scheduled, in
    // time order: a FIFO port's departures never overtake each other.
    struct Lane {
        std::vector<LaneEv> ring;  // power-of-two capacity
        std::uint32_t head = 0;
        std::uint32_t count = 0;
        void push(LaneEv e);
        void drop_front();
        const LaneEv& front() const { return ring[head]; }
        Time tail_t() const { return ring[(head + count - 1) & (ring.size() - 1)].t; }
    };
    // The heap holds each non-empty lane once, keyed by its head, whose
    // packet it names: popping an event reads the heap only, and the next
    // event's packet is prefetched while this one is handled.
    struct Head {
        Time t;
        std::uint32_t lane;
        std::uint32_t pkt;
        bool operator>(const Head& o) const { return t != o.t ? t > o.t : lane > o.lane; }
    };

    void route(FabricPacket& p, Hot& h) const;
    // The packet enters port route[hop] at `now`: queue, trim, mark or drop.
    void enqueue(Time now, std::uint32_t id);
    void schedule(std::uint32_t lane, Time t, std::uint32_t id);
    std::uint32_t alloc(FabricPacket&& p);

    FabricConfig cfg_;
    unsigned t0s_ = 0;
    std::uint32_t per_plane_ = 0;
    // Everything a hop touches of its port, in one record (a few adjacent
    // cache lines) rather than one array per field: at 1,024 hosts a hop
    // missed the cache once per array.
    struct Port {
        std::uint64_t busy_ps = 0;  // end of serialisation, picoseconds
        std::uint64_t rate = 0;     // bytes/s
        double loss = 0;            // random loss probability
        PortKind kind = PortKind::Nic;
        bool up = true;
        Lane lanes[2];  // data, priority
        PortCounters ctr;
    };
    Lane& lane(std::uint32_t id) { return ports_[id / 2].lanes[id % 2]; }
    std::vector<FabricPacket> pool_;  // cold: the engine's packet
    std::vector<Hot> hot_;            // same index
    std::vector<std::uint32_t> free_;
    std::vector<Port> ports_;  // lane ids: 2 x port (+ 1: priority)
    std::priority_queue<Head, std::vector<Head>, std::greater<Head>> heap_;
    std::uint64_t events_ = 0;
    Rng rng_;
};

}  // namespace mrc::sim

#endif  // MRC_SIM_FABRIC_NET_H
