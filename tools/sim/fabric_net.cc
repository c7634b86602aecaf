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
    busy_ps_.assign(n, 0);
    up_.assign(n, true);
    loss_.assign(n, 0.0);
    ctr_.assign(n, {});
    rate_.resize(n);
    for (std::uint32_t id = 0; id < n; id++) {
        const PortKind k = kind(id);
        rate_[id] =
            k == PortKind::Nic || k == PortKind::T0Down ? cfg.host_rate_Bps : cfg.fabric_rate_Bps;
    }
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

void FabricNet::set_link_loss(unsigned plane, unsigned t0, unsigned t1, double p) {
    loss_[t0_up_port(plane, t0, t1)] = p;
}

int FabricNet::spine_of(unsigned a, unsigned b, std::uint32_t ev) const {
    if (t0_of(a) == t0_of(b)) return -1;
    if (cfg_.routing == Routing::Srv6)
        return static_cast<int>((ev & 0xffffffu) % cfg_.t1_per_plane);
    std::uint64_t h = (static_cast<std::uint64_t>(a) << 40) ^
                      (static_cast<std::uint64_t>(b) << 20) ^ ev ^ cfg_.seed;
    return static_cast<int>(Rng::splitmix64(h) % cfg_.t1_per_plane);
}

void FabricNet::route(FabricPacket& p) const {
    const unsigned plane = p.plane;
    const int s = spine_of(p.src, p.dst, p.ev);
    std::uint8_t n = 0;
    p.route[n++] = nic_port(plane, p.src);
    if (s >= 0) {
        p.route[n++] = t0_up_port(plane, t0_of(p.src), static_cast<unsigned>(s));
        p.route[n++] = t1_down_port(plane, static_cast<unsigned>(s), t0_of(p.dst));
    }
    p.route[n++] = t0_down_port(plane, p.dst);
    p.nhops = n;
    p.hop = 0;
}

std::uint32_t FabricNet::alloc(FabricPacket&& p) {
    if (!free_.empty()) {
        const std::uint32_t id = free_.back();
        free_.pop_back();
        pool_[id] = std::move(p);
        return id;
    }
    pool_.push_back(std::move(p));
    return static_cast<std::uint32_t>(pool_.size() - 1);
}

void FabricNet::send(Time now, FabricPacket&& p) {
    p.plane = static_cast<std::uint8_t>(mrc_ev_plane(p.ev));
    if (p.plane >= cfg_.planes || p.src >= cfg_.hosts || p.dst >= cfg_.hosts)
        throw std::invalid_argument("fabric: packet outside the topology");
    route(p);
    enqueue(now, alloc(std::move(p)));
}

void FabricNet::enqueue(Time now, std::uint32_t id) {
    FabricPacket& p = pool_[id];
    const std::uint32_t port = p.route[p.hop];
    PortCounters& c = ctr_[port];
    if (!up_[port]) {
        c.drops++;
        free_.push_back(id);
        return;
    }
    if ((loss_[port] > 0 && rng_.chance(loss_[port])) ||
        (cfg_.loss > 0 && kind(port) == PortKind::T0Up && rng_.chance(cfg_.loss))) {
        c.lost++;
        free_.push_back(id);
        return;
    }
    const std::uint64_t rate = rate_[port];
    const std::uint64_t now_ps = now * 1000;
    const std::uint64_t busy = std::max(busy_ps_[port], now_ps);
    const std::uint64_t backlog = rate ? (busy - now_ps) * rate / kPsPerSec : 0;
    const bool data = p.trim_len && !p.trimmed;
    std::uint64_t depart;
    if (data && cfg_.trim_bytes && backlog + p.wire_len > cfg_.trim_bytes) {
        p.trimmed = true;
        p.wire_len = p.trim_len;
        p.lasthop = kind(port) == PortKind::T0Down;
        c.trims++;
    } else if (data && backlog + p.wire_len > cfg_.queue_bytes) {
        c.drops++;
        free_.push_back(id);
        return;
    }
    if (!data || p.trimmed) {
        // Control packets and trimmed headers: a priority class, serialised
        // but never queued behind data.
        depart = now_ps + ser_ps(p.wire_len, rate);
    } else {
        if (cfg_.ecn_kmax_bytes && backlog > cfg_.ecn_kmin_bytes) {
            const double prob = static_cast<double>(backlog - cfg_.ecn_kmin_bytes) /
                                static_cast<double>(cfg_.ecn_kmax_bytes - cfg_.ecn_kmin_bytes);
            if (prob >= 1.0 || rng_.chance(prob)) {
                p.ce = true;
                c.marks++;
            }
        }
        busy_ps_[port] = busy + ser_ps(p.wire_len, rate);
        depart = busy_ps_[port];
        c.max_backlog = std::max(c.max_backlog, backlog + p.wire_len);
    }
    c.pkts++;
    c.bytes += p.wire_len;
    heap_.push({(depart + 999) / 1000 + cfg_.link_delay_ns, seq_++, id});
}

std::optional<FabricPacket> FabricNet::pop_due(Time now) {
    while (!heap_.empty() && heap_.top().t <= now) {
        const Ev e = heap_.top();
        heap_.pop();
        events_++;
        FabricPacket& p = pool_[e.pkt];
        if (++p.hop == p.nhops) {
            FabricPacket out = std::move(p);
            free_.push_back(e.pkt);
            return out;
        }
        enqueue(e.t, e.pkt);
    }
    return std::nullopt;
}

}  // namespace mrc::sim
