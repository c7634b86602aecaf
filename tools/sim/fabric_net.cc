// SPDX-License-Identifier: GPL-2.0 OR MIT
//
// fabric_net.cc - see fabric_net.h.
#include "fabric_net.h"

#include <algorithm>
#include <stdexcept>
#include <utility>

namespace mrc::sim {

namespace {

constexpr std::uint64_t kPsPerSec = 1'000'000'000'000ULL;

// Picoseconds to serialise `bytes` at `rate` bytes/s (rounded up).
std::uint64_t ser_ps(std::uint64_t bytes, std::uint64_t rate) {
    return rate ? (bytes * kPsPerSec + rate - 1) / rate : 0;
}

}  // namespace

FabricNet::FabricNet(const FabricConfig& cfg) : cfg_(cfg), rng_(cfg.seed ^ 0xfab41cULL) {
    if (!cfg.hosts || !cfg.planes || !cfg.hosts_per_t0 || !cfg.t1_per_plane ||
        cfg.hosts % cfg.hosts_per_t0 || cfg.planes > MRC_MAX_PLANES || cfg.hosts > 65535 ||
        !cfg.link_delay_ns)
        throw std::invalid_argument("fabric: bad topology");
    if (cfg.ecn_kmax_bytes && cfg.ecn_kmax_bytes <= cfg.ecn_kmin_bytes)
        throw std::invalid_argument("fabric: ecn_kmax_bytes must exceed ecn_kmin_bytes");
    t0s_ = cfg.hosts / cfg.hosts_per_t0;
    per_plane_ = 2 * cfg.hosts + 2 * t0s_ * cfg.t1_per_plane;
    const std::size_t n = static_cast<std::size_t>(per_plane_) * cfg.planes;
    ports_.resize(n);
    for (std::uint32_t id = 0; id < n; id++) {
        Port& p = ports_[id];
        p.kind = kind(id);
        p.rate = p.kind == PortKind::Nic || p.kind == PortKind::T0Down ? cfg.host_rate_Bps
                                                                       : cfg.fabric_rate_Bps;
    }
}

std::uint64_t FabricNet::backlog(std::uint32_t port, Time now) const {
    const std::uint64_t now_ps = now * 1000;
    const Port& p = ports_[port];
    const std::uint64_t busy = std::max(p.busy_ps, now_ps);
    return p.rate ? (busy - now_ps) * p.rate / kPsPerSec : 0;
}

Time FabricNet::drained_to(std::uint32_t port, std::uint64_t bytes, Time now) const {
    const Port& p = ports_[port];
    const std::uint64_t left_ps = p.rate ? bytes * kPsPerSec / p.rate : 0;
    const std::uint64_t busy = p.busy_ps;
    if (busy <= left_ps) return now;
    return std::max(now, (busy - left_ps + 999) / 1000);
}

std::uint32_t FabricNet::nic_port(unsigned plane, unsigned host) const {
    return plane * per_plane_ + host;
}

std::uint32_t FabricNet::t0_down_port(unsigned plane, unsigned host) const {
    return plane * per_plane_ + cfg_.hosts + host;
}

std::uint32_t FabricNet::t0_up_port(unsigned plane, unsigned t0, unsigned t1) const {
    return plane * per_plane_ + 2 * cfg_.hosts + t0 * cfg_.t1_per_plane + t1;
}

std::uint32_t FabricNet::t1_down_port(unsigned plane, unsigned t1, unsigned t0) const {
    return plane * per_plane_ + 2 * cfg_.hosts + t0s_ * cfg_.t1_per_plane + t1 * t0s_ + t0;
}

PortKind FabricNet::kind(std::uint32_t port) const {
    const std::uint32_t off = port % per_plane_;
    if (off < cfg_.hosts) return PortKind::Nic;
    if (off < 2 * cfg_.hosts) return PortKind::T0Down;
    if (off < 2 * cfg_.hosts + t0s_ * cfg_.t1_per_plane) return PortKind::T0Up;
    return PortKind::T1Down;
}

void FabricNet::set_nic_up(unsigned plane, unsigned host, bool up) {
    set_port_up(nic_port(plane, host), up);
    set_port_up(t0_down_port(plane, host), up);
}

void FabricNet::set_link_up(unsigned plane, unsigned t0, unsigned t1, bool up) {
    set_port_up(t0_up_port(plane, t0, t1), up);
    set_port_up(t1_down_port(plane, t1, t0), up);
}

void FabricNet::set_t1_up(unsigned plane, unsigned t1, bool up) {
    for (unsigned t = 0; t < t0s_; t++) set_link_up(plane, t, t1, up);
}

void FabricNet::set_t0_up(unsigned plane, unsigned t0, bool up) {
    const unsigned first = t0 * cfg_.hosts_per_t0;
    for (unsigned h = first; h < std::min(cfg_.hosts, first + cfg_.hosts_per_t0); h++)
        set_nic_up(plane, h, up);
    for (unsigned t = 0; t < cfg_.t1_per_plane; t++) set_link_up(plane, t0, t, up);
}

void FabricNet::set_link_loss(unsigned plane, unsigned t0, unsigned t1, double p) {
    ports_[t0_up_port(plane, t0, t1)].loss = p;
}

int FabricNet::spine_of(unsigned a, unsigned b, std::uint32_t ev) const {
    if (t0_of(a) == t0_of(b)) return -1;
    if (cfg_.routing == Routing::Srv6)
        return static_cast<int>((ev & 0xffffffu) % cfg_.t1_per_plane);
    std::uint64_t h = (static_cast<std::uint64_t>(a) << 40) ^
                      (static_cast<std::uint64_t>(b) << 20) ^ ev ^ cfg_.seed;
    return static_cast<int>(Rng::splitmix64(h) % cfg_.t1_per_plane);
}

void FabricNet::route(FabricPacket& p, Hot& h) const {
    const unsigned plane = p.plane;
    const int s = spine_of(p.src, p.dst, p.ev);
    std::uint8_t n = 0;
    h.route[n++] = nic_port(plane, p.src);
    if (s >= 0) {
        h.route[n++] = t0_up_port(plane, t0_of(p.src), static_cast<unsigned>(s));
        h.route[n++] = t1_down_port(plane, static_cast<unsigned>(s), t0_of(p.dst));
    }
    h.route[n++] = t0_down_port(plane, p.dst);
    h.nhops = n;
    h.hop = 0;
}

void FabricNet::Lane::push(LaneEv e) {
    if (count == ring.size()) {
        std::vector<LaneEv> bigger(ring.empty() ? 16 : 2 * ring.size());
        for (std::uint32_t i = 0; i < count; i++) bigger[i] = ring[(head + i) & (ring.size() - 1)];
        ring.swap(bigger);
        head = 0;
    }
    ring[(head + count++) & (ring.size() - 1)] = e;
}

void FabricNet::Lane::drop_front() {
    head = (head + 1) & static_cast<std::uint32_t>(ring.size() - 1);
    count--;
}

std::uint32_t FabricNet::alloc(FabricPacket&& p) {
    if (!free_.empty()) {
        const std::uint32_t id = free_.back();
        free_.pop_back();
        pool_[id] = std::move(p);
        return id;
    }
    pool_.push_back(std::move(p));
    hot_.emplace_back();
    return static_cast<std::uint32_t>(pool_.size() - 1);
}

void FabricNet::send(Time now, FabricPacket&& p) {
    p.plane = static_cast<std::uint8_t>(mrc_ev_plane(p.ev));
    if (p.plane >= cfg_.planes || p.src >= cfg_.hosts || p.dst >= cfg_.hosts)
        throw std::invalid_argument("fabric: packet outside the topology");
    const std::uint32_t id = alloc(std::move(p));
    Hot& h = hot_[id];
    route(pool_[id], h);
    h.wire_len = pool_[id].wire_len;
    h.trim_len = pool_[id].trim_len;
    h.data = pool_[id].data;
    h.trimmed = pool_[id].trimmed;
    h.ce = pool_[id].ce;
    h.lasthop = pool_[id].lasthop;
    enqueue(now, id);
}

// A lane's arrivals stay in time order: a FIFO's are by construction; the
// priority class's could invert by a few ns between sizes, and are held to
// the order they were scheduled in.
void FabricNet::schedule(std::uint32_t lane, Time t, std::uint32_t id) {
    Lane& l = this->lane(lane);
    if (l.count) {
        l.push({std::max(t, l.tail_t()), id});
        return;
    }
    l.push({t, id});
    heap_.push({t, lane, id});
}

void FabricNet::enqueue(Time now, std::uint32_t id) {
    Hot& p = hot_[id];
    const std::uint32_t port = p.route[p.hop];
    Port& pt = ports_[port];
    PortCounters& c = pt.ctr;
    if (!pt.up) {
        c.drops++;
        free_.push_back(id);
        return;
    }
    if ((pt.loss > 0 && rng_.chance(pt.loss)) ||
        (cfg_.loss > 0 && pt.kind == PortKind::T0Up && rng_.chance(cfg_.loss))) {
        c.lost++;
        free_.push_back(id);
        return;
    }
    const std::uint64_t rate = pt.rate;
    const std::uint64_t now_ps = now * 1000;
    const std::uint64_t busy = std::max(pt.busy_ps, now_ps);
    const std::uint64_t backlog = this->backlog(port, now);
    // A host's own NIC port queues what its engines send (the window bounds
    // it): a NIC does not trim, mark or drop its own traffic.
    const bool nic = pt.kind == PortKind::Nic;
    const bool data = p.data && !p.trimmed;
    std::uint64_t depart;
    if (nic) {
        // queued below, whatever the backlog
    } else if (data && p.trim_len && cfg_.trim_bytes && backlog + p.wire_len > cfg_.trim_bytes) {
        p.trimmed = true;
        p.wire_len = p.trim_len;
        p.lasthop = pt.kind == PortKind::T0Down;
        c.trims++;
    } else if (data && backlog + p.wire_len > cfg_.queue_bytes) {
        c.drops++;
        free_.push_back(id);
        return;
    }
    const bool prio = !data || p.trimmed;
    if (prio) {
        // Control packets and trimmed headers: a priority class, serialised
        // but never queued behind data.
        depart = now_ps + ser_ps(p.wire_len, rate);
    } else {
        if (!nic && cfg_.ecn_kmax_bytes && backlog > cfg_.ecn_kmin_bytes) {
            const double prob = static_cast<double>(backlog - cfg_.ecn_kmin_bytes) /
                                static_cast<double>(cfg_.ecn_kmax_bytes - cfg_.ecn_kmin_bytes);
            if (prob >= 1.0 || rng_.chance(prob)) {
                p.ce = true;
                c.marks++;
            }
        }
        pt.busy_ps = busy + ser_ps(p.wire_len, rate);
        depart = pt.busy_ps;
        c.max_backlog = std::max(c.max_backlog, backlog + p.wire_len);
    }
    c.pkts++;
    c.bytes += p.wire_len;
    schedule(2 * port + prio, (depart + 999) / 1000 + cfg_.link_delay_ns, id);
}

std::optional<FabricPacket> FabricNet::pop_due(Time now) {
    while (!heap_.empty() && heap_.top().t <= now) {
        const Head e = heap_.top();
        heap_.pop();
        Lane& l = lane(e.lane);
        l.drop_front();
        if (l.count) heap_.push({l.front().t, e.lane, l.front().pkt});
        if (!heap_.empty()) {
            __builtin_prefetch(&hot_[heap_.top().pkt], 1);
            __builtin_prefetch(&lane(heap_.top().lane), 1);
        }
        events_++;
        Hot& h = hot_[e.pkt];
        if (++h.hop == h.nhops) {
            // Built in place and returned by name: one copy of the packet.
            std::optional<FabricPacket> out(std::in_place, std::move(pool_[e.pkt]));
            out->wire_len = h.wire_len;
            out->trimmed = h.trimmed;
            out->ce = h.ce;
            out->lasthop = h.lasthop;
            out->hop = h.hop;
            out->nhops = h.nhops;
            std::copy(std::begin(h.route), std::end(h.route), std::begin(out->route));
            free_.push_back(e.pkt);
            return out;
        }
        enqueue(e.t, e.pkt);
    }
    return std::nullopt;
}

}  // namespace mrc::sim
