// SPDX-License-Identifier: GPL-2.0 OR MIT
//
// fabric_sim.cc - see fabric_sim.h.
#include "fabric_sim.h"

extern "C" {
#include "mrc_wire.h"
}

#include <algorithm>
#include <cstring>
#include <stdexcept>
#include <utility>

namespace mrc::sim {

namespace {

std::uint64_t mix(std::uint64_t z) { return Rng::splitmix64(z); }

}  // namespace

double FlowResult::goodput_bps() const {
    if (!delivered_bytes || last_delivery <= spec.start) return 0;
    return static_cast<double>(delivered_bytes) * 8e9 /
           static_cast<double>(last_delivery - spec.start);
}

FabricSim::FabricSim(const FabricSimConfig& cfg) : cfg_(cfg), net_(cfg.net) {}

mrc_conn_cfg FabricSim::conn_cfg(std::size_t flow, std::uint32_t self, std::uint32_t peer,
                                 bool sender) const {
    const FabricConfig& n = cfg_.net;
    mrc_conn_cfg c;
    mrc_conn_cfg_init(&c, static_cast<u8>(n.planes));
    c.local_conn_id = static_cast<u16>(self + 1);
    c.peer_conn_id = static_cast<u16>(peer + 1);
    c.peer_qpn = (0x1000u + peer) & 0xffffffu;
    c.paths_per_plane = n.t1_per_plane;
    c.seed = cfg_.seed * 1000003u + self + 1;
    c.event_mask = 0;  // completions and deliveries are always reported
    c.rto_exp = cfg_.rto_exp;
    c.mtu = cfg_.mtu;
    if (cfg_.mpr) c.mpr = cfg_.mpr;
    c.cc_algo = cfg_.cc_algo;
    const std::uint64_t psn_fwd = mix(cfg_.seed ^ (flow * 2 + 1)) & MRC_PSN_MASK;
    const std::uint64_t psn_rev = mix(cfg_.seed ^ (flow * 2 + 2)) & MRC_PSN_MASK;
    c.local_init_psn = static_cast<u32>(sender ? psn_fwd : psn_rev);
    c.peer_init_psn = static_cast<u32>(sender ? psn_rev : psn_fwd);
    const std::uint64_t port_mbps = n.host_rate_Bps * 8 / 1'000'000;
    if (cfg_.single_path) {
        const unsigned plane = static_cast<unsigned>(mix(cfg_.seed ^ (flow << 8)) % n.planes);
        c.plane_up_mask = 1u << plane;
        c.ev_per_plane = 1;
        c.ev_active_per_plane = 1;
        c.ev_min_active = 1;
        c.cc.link_mbps = static_cast<u32>(port_mbps);
    } else {
        c.cc.link_mbps = static_cast<u32>(port_mbps * n.planes);
    }
    return c;
}

std::size_t FabricSim::add_flow(const FlowSpec& f) {
    if (f.src >= cfg_.net.hosts || f.dst >= cfg_.net.hosts || f.src == f.dst)
        throw std::invalid_argument("fabric: bad flow");
    const std::size_t idx = flows_.size();
    const auto s = static_cast<std::uint32_t>(conns_.size());
    Flow fl;
    fl.spec = f;
    flows_.push_back(fl);
    for (int i = 0; i < 2; i++) {
        const bool sender = i == 0;
        Conn k;
        mrc_conn_cfg c = conn_cfg(idx, s + i, s + 1 - i, sender);
        mrc_conn* mc = nullptr;
        const int rc = mrc_conn_create(&c, now_, &mc);
        if (rc != MRC_OK || !mc)
            throw std::runtime_error("fabric: mrc_conn_create failed: " + std::to_string(rc));
        k.c.reset(mc);
        k.host = sender ? f.src : f.dst;
        k.peer_host = sender ? f.dst : f.src;
        k.peer = s + 1 - i;
        k.flow = idx;
        k.to_send = sender ? f.msgs : 0;
        conns_.push_back(std::move(k));
    }
    at(std::max(f.start, now_), [s](FabricSim& sim) { sim.service(s); });
    return idx;
}

void FabricSim::at(Time t, std::function<void(FabricSim&)> fn) {
    actions_.emplace(std::make_pair(t, action_seq_++), std::move(fn));
}

void FabricSim::set_nic_up(unsigned plane, unsigned host, bool up, Time t, bool announced) {
    at(t, [plane, host, up, announced](FabricSim& sim) {
        sim.net_.set_nic_up(plane, host, up);
        if (!announced) return;
        for (std::uint32_t k = 0; k < sim.conns_.size(); k++) {
            Conn& c = sim.conns_[k];
            if (c.host != host && c.peer_host != host) continue;
            mrc_conn_set_plane_up(c.c.get(), sim.now_, static_cast<u8>(plane), up);
            sim.service(k);
        }
    });
}

bool FabricSim::pump_app(std::uint32_t k) {
    Conn& c = conns_[k];
    Flow& f = flows_[c.flow];
    bool any = false;
    while (c.to_send && now_ >= f.spec.start) {
        u16 msn = 0;
        const int rc = mrc_conn_send(c.c.get(), now_, f.spec.msg_bytes, c.sent, MRC_SEND_IMM,
                                     c.sent + 1, &msn);
        if (rc != MRC_OK) {
            stuck_ = stuck_ || (rc != MRC_E_AGAIN && rc != MRC_E_CONN);
            break;
        }
        if (f.first_send == kNever) f.first_send = now_;
        c.sent++;
        c.to_send--;
        any = true;
    }
    return any;
}

bool FabricSim::drain_tx(std::uint32_t k) {
    Conn& c = conns_[k];
    bool any = false;
    for (;;) {
        mrc_tx_desc d;
        std::memset(&d, 0, sizeof(d));
        if (mrc_conn_poll_tx(c.c.get(), now_, &d) != MRC_OK) break;
        any = true;
        FabricPacket p;
        p.pkt = d.pkt;
        p.pkt.payload = nullptr;
        const bool data = d.kind == MRC_TX_DATA;
        if (data) p.pkt.payload_len = d.payload_len;
        const std::uint32_t hdr = mrc_pkt_hdr_len(&p.pkt) + MRC_ICRC_LEN + cfg_.net.overhead_bytes;
        p.wire_len = hdr + (data ? d.payload_len + d.pkt.bth.pad_cnt : 0);
        p.trim_len = data ? hdr : 0;
        p.ev = d.ev;
        p.src = static_cast<std::uint16_t>(c.host);
        p.dst = static_cast<std::uint16_t>(c.peer_host);
        p.to_conn = c.peer;
        data_pkts_ += data;
        net_.send(now_, std::move(p));
    }
    return any;
}

bool FabricSim::drain_events(std::uint32_t k) {
    Conn& c = conns_[k];
    Flow& f = flows_[c.flow];
    bool any = false;
    for (;;) {
        mrc_event ev;
        std::memset(&ev, 0, sizeof(ev));
        if (mrc_conn_poll_event(c.c.get(), &ev) != MRC_OK) break;
        any = true;
        if (ev.type == MRC_EVT_MSG_DELIVERED) {
            auto it = c.placed.find(ev.u.msg.msn);
            const std::uint64_t placed = it == c.placed.end() ? 0 : it->second;
            if (it != c.placed.end()) c.placed.erase(it);
            if (placed != ev.u.msg.len || ev.u.msg.len != f.spec.msg_bytes || !ev.u.msg.has_imm ||
                ev.u.msg.imm != f.delivered_msgs + f.bad_msgs) {
                f.bad_msgs++;
                stuck_ = true;  // a wrong delivery ends the run
                continue;
            }
            f.delivered_msgs++;
            f.delivered_bytes += ev.u.msg.len;
            f.last_delivery = now_;
            flows_done_ += f.delivered_msgs == f.spec.msgs;
        } else if (ev.type == MRC_EVT_CONN_ERROR) {
            stuck_ = true;
        }
    }
    return any;
}

void FabricSim::service(std::uint32_t k) {
    for (int guard = 0; guard < 1000; guard++) {
        bool any = pump_app(k);
        any |= drain_tx(k);
        any |= drain_events(k);
        if (!any) break;
    }
    Conn& c = conns_[k];
    const Time d = mrc_conn_next_deadline(c.c.get());
    if (d < c.armed) {
        c.armed = d;
        timers_.push({d, k});
    }
}

void FabricSim::deliver(FabricPacket& p) {
    Conn& c = conns_[p.to_conn];
    u32 rxf = 0;
    if (p.ce) rxf |= MRC_RXF_ECN_CE;
    if (p.trimmed) rxf |= MRC_RXF_TRIMMED | (p.lasthop ? MRC_RXF_LASTHOP : 0);
    p.pkt.trimmed = p.trimmed;
    const int rc = mrc_conn_rx(c.c.get(), now_, &p.pkt, p.ev, rxf);
    if ((rc == MRC_RX_PLACE || rc == MRC_RX_PLACE_NEW) && !p.trimmed)
        c.placed[p.pkt.meth.msn] += p.pkt.payload_len;
    service(p.to_conn);
}

Time FabricSim::next_time() const {
    Time t = net_.next_event();
    if (!timers_.empty()) t = std::min(t, timers_.top().t);
    if (!actions_.empty()) t = std::min(t, actions_.begin()->first.first);
    return t;
}

bool FabricSim::step() {
    Time t = next_time();
    if (t == kNever) return false;
    if (t <= now_) {
        t = now_;
        if (++same_instant_ > 1'000'000) {
            stuck_ = true;
            return false;
        }
    } else {
        same_instant_ = 0;
    }
    now_ = t;
    while (!actions_.empty() && actions_.begin()->first.first <= now_) {
        auto fn = std::move(actions_.begin()->second);
        actions_.erase(actions_.begin());
        fn(*this);
    }
    while (auto p = net_.pop_due(now_)) deliver(*p);
    while (!timers_.empty() && timers_.top().t <= now_) {
        const Timer tm = timers_.top();
        timers_.pop();
        Conn& c = conns_[tm.conn];
        if (c.armed != tm.t) continue;  // superseded by an earlier deadline
        c.armed = kNever;
        if (mrc_conn_next_deadline(c.c.get()) <= now_) mrc_conn_on_timer(c.c.get(), now_);
        service(tm.conn);
    }
    return true;
}

bool FabricSim::all_done() const { return flows_done_ == flows_.size(); }

RunResult FabricSim::run(Time deadline) {
    RunResult r;
    for (;;) {
        if (stuck_) {
            r.error = true;
            r.why = "connection error, wrong delivery or livelock";
            break;
        }
        if (all_done()) {
            r.done = true;
            r.why = "done";
            break;
        }
        if (next_time() > deadline) {
            r.done = all_done();
            r.why = r.done ? "done" : next_time() == kNever ? "idle" : "deadline";
            break;
        }
        if (!step()) {
            r.done = all_done();
            r.why = r.done ? "done" : "idle";
            break;
        }
        r.steps++;
    }
    r.end = now_;
    return r;
}

FlowResult FabricSim::flow(std::size_t i) const {
    const Flow& f = flows_[i];
    FlowResult r;
    r.spec = f.spec;
    r.delivered_bytes = f.delivered_bytes;
    r.delivered_msgs = f.delivered_msgs;
    r.bad_msgs = f.bad_msgs;
    r.first_send = f.first_send;
    r.last_delivery = f.last_delivery;
    const mrc_conn* s = conns_[2 * i].c.get();
    r.failed = mrc_conn_failed(s) || mrc_conn_failed(conns_[2 * i + 1].c.get());
    std::memset(&r.tx, 0, sizeof(r.tx));
    mrc_conn_get_stats(s, &r.tx);
    return r;
}

std::uint64_t FabricSim::delivered_bytes(std::size_t flow) const {
    return flows_[flow].delivered_bytes;
}

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

double jain(const std::vector<double>& x) {
    double s = 0, s2 = 0;
    for (double v : x) {
        s += v;
        s2 += v * v;
    }
    return s2 > 0 ? s * s / (static_cast<double>(x.size()) * s2) : 0;
}

}  // namespace mrc::sim
