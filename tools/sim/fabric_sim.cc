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

// RC packets: to_conn = kRc | (kToSender for ACK/NAK) | flow; the segment
// rides in the cookie (psn << 20 | len << 2 | kind).
constexpr std::uint32_t kRc = 1u << 31;
constexpr std::uint32_t kToSender = 1u << 30;
constexpr std::uint32_t kRcHdr = 58;  // BTH + RETH + ICRC, about

std::uint64_t rc_cookie(const RcSegment& s) {
    return s.psn << 20 | static_cast<std::uint64_t>(s.len) << 2 | s.kind;
}

RcSegment rc_segment(std::uint64_t c) {
    RcSegment s;
    s.kind = static_cast<RcSegment::Kind>(c & 3);
    s.len = static_cast<std::uint32_t>((c >> 2) & 0x3ffff);
    s.psn = c >> 20;
    return s;
}

}  // namespace

double FlowResult::goodput_bps() const {
    if (!delivered_bytes || last_delivery <= spec.start) return 0;
    return static_cast<double>(delivered_bytes) * 8e9 /
           static_cast<double>(last_delivery - spec.start);
}

FabricSim::FabricSim(const FabricSimConfig& cfg)
    : cfg_(cfg),
      net_(cfg.net),
      room_(cfg.net.hosts, ~0u),
      host_conns_(cfg.net.hosts),
      iw_shares_(std::make_unique<mrc_iw_share[]>(cfg.net.hosts)) {}

mrc_conn_cfg FabricSim::conn_cfg(std::size_t flow, std::uint32_t self, std::uint32_t peer,
                                 bool sender) const {
    const FabricConfig& n = cfg_.net;
    mrc_conn_cfg c;
    mrc_conn_cfg_init(&c, static_cast<u8>(n.planes));
    c.local_conn_id = static_cast<u16>(self + 1);
    c.peer_conn_id = static_cast<u16>(peer + 1);
    c.peer_qpn = (0x1000u + peer) & 0xffffffu;
    c.paths_per_plane = n.t1_per_plane;
    // A source route pins EV e to T1 (e % t1_per_plane) (FabricNet::spine_of()).
    if (n.routing == Routing::Srv6)
        for (unsigned p = 0; p < n.planes; p++) c.plane_paths[p] = static_cast<u16>(n.t1_per_plane);
    c.failover = cfg_.failover;
    c.seed = cfg_.seed * 1000003u + self + 1;
    c.event_mask = 0;  // completions and deliveries are always reported
    c.rto_exp = cfg_.rto_exp;
    c.mtu = cfg_.mtu;
    if (cfg_.mpr) c.mpr = cfg_.mpr;
    c.cc_algo = cfg_.cc_algo;
    c.cc.init_wnd_bytes = cfg_.init_wnd_bytes;
    const FlowSpec& spec = flows_[flow].spec;
    if (cfg_.iw_share) c.iw_share = &iw_shares_[sender ? spec.src : spec.dst];
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
    if (!f.arrivals.empty() &&
        (f.arrivals.size() != f.msgs || !std::is_sorted(f.arrivals.begin(), f.arrivals.end())))
        throw std::invalid_argument("fabric: arrivals must be sorted, one per message");
    const std::size_t idx = flows_.size();
    if (f.after == static_cast<long>(idx))
        throw std::invalid_argument("fabric: a flow cannot wait for itself");
    if (cfg_.rc_baseline && (!f.arrivals.empty() || f.after >= 0))
        throw std::invalid_argument("fabric: the RoCE-like baseline sends whole flows");
    if (cfg_.rc_baseline) {
        const FabricConfig& n = cfg_.net;
        std::uint32_t w = cfg_.rc_window;
        if (!w) {
            // 1.5 x one port's BDP over 4 hops each way.
            const double wire = cfg_.mtu + kRcHdr + n.overhead_bytes;
            const double rtt_ns = 8.0 * (static_cast<double>(n.link_delay_ns) +
                                         wire * 1e9 / static_cast<double>(n.host_rate_Bps));
            w = static_cast<std::uint32_t>(
                1.5 * rtt_ns * static_cast<double>(n.host_rate_Bps) / 1e9 / cfg_.mtu + 1);
        }
        Flow fl;
        fl.spec = f;
        fl.rc = static_cast<int>(rcs_.size());
        const std::uint64_t h = mix(cfg_.seed ^ (idx << 8));
        fl.rc_ev = static_cast<std::uint32_t>((h % n.planes) << 24 | ((h >> 8) & 0xffffff));
        rcs_.emplace_back(static_cast<std::uint64_t>(f.msg_bytes) * f.msgs, cfg_.mtu, w,
                          (Time{1} << cfg_.rto_exp) * 1024);
        flows_.push_back(fl);
        at(std::max(f.start, now_), [idx](FabricSim& sim) {
            sim.rc_out_.clear();
            sim.rcs_[sim.flows_[idx].rc].pump(sim.now_, sim.rc_out_);
            if (sim.flows_[idx].first_send == kNever) sim.flows_[idx].first_send = sim.now_;
            sim.rc_send(idx, sim.now_, sim.rc_out_, true);
            sim.rc_arm(idx);
        });
        return idx;
    }
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
        mrc_conn_set_tx_room(mc, room_[k.host]);
        host_conns_[k.host].push_back(s + i);
        conns_.push_back(std::move(k));
    }
    // A ring's first flow waits for its last: link whichever comes second.
    if (f.after >= 0) waits_.emplace_back(static_cast<std::size_t>(f.after), s);
    for (auto it = waits_.begin(); it != waits_.end();) {
        if (it->first >= flows_.size()) {
            ++it;
            continue;
        }
        flows_[it->first].released.push_back(it->second);
        it = waits_.erase(it);
    }
    at(std::max(f.start, now_), [s](FabricSim& sim) { sim.service(s); });
    return idx;
}

void FabricSim::at(Time t, std::function<void(FabricSim&)> fn) {
    actions_.emplace(std::make_pair(t, action_seq_++), std::move(fn));
}

void FabricSim::announce_plane(unsigned plane, unsigned first, unsigned n, bool up) {
    auto ours = [first, n](unsigned h) { return h >= first && h < first + n; };
    for (std::uint32_t k = 0; k < conns_.size(); k++) {
        Conn& c = conns_[k];
        if (!ours(c.host) && !ours(c.peer_host)) continue;
        mrc_conn_set_plane_up(c.c.get(), now_, static_cast<u8>(plane), up);
        service(k);
    }
}

void FabricSim::set_nic_up(unsigned plane, unsigned host, bool up, Time t, bool announced) {
    at(t, [plane, host, up, announced](FabricSim& sim) {
        sim.net_.set_nic_up(plane, host, up);
        if (announced) sim.announce_plane(plane, host, 1, up);
    });
}

void FabricSim::set_t0_up(unsigned plane, unsigned t0, bool up, Time t, bool announced) {
    at(t, [plane, t0, up, announced](FabricSim& sim) {
        sim.net_.set_t0_up(plane, t0, up);
        const unsigned k = sim.net_.config().hosts_per_t0;
        if (announced) sim.announce_plane(plane, t0 * k, k, up);
    });
}

bool FabricSim::pump_app(std::uint32_t k) {
    Conn& c = conns_[k];
    Flow& f = flows_[c.flow];
    bool any = false;
    while (c.to_send && now_ >= f.spec.start) {
        if (!f.spec.arrivals.empty() && f.spec.arrivals[c.sent] > now_) {
            if (c.wake_for != c.sent + 1) {
                c.wake_for = c.sent + 1;
                at(f.spec.arrivals[c.sent], [k](FabricSim& sim) { sim.service(k); });
            }
            break;
        }
        // Released by the flow it waits for (drain_events() services us).
        if (f.spec.after >= 0 && c.sent &&
            (static_cast<std::size_t>(f.spec.after) >= flows_.size() ||
             flows_[static_cast<std::size_t>(f.spec.after)].delivered_msgs < c.sent))
            break;
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
        p.data = data;
        p.ev = d.ev;
        p.src = static_cast<std::uint16_t>(c.host);
        p.dst = static_cast<std::uint16_t>(c.peer_host);
        p.to_conn = c.peer;
        data_pkts_ += data;
        net_.send(now_, std::move(p));
        if (data && cfg_.nic_room_bytes) check_nic_room(c.host, d.ev >> 24);
    }
    return any;
}

void FabricSim::check_nic_room(unsigned host, unsigned plane) {
    const std::uint32_t port = net_.nic_port(plane, host);
    if (!(room_[host] >> plane & 1) || net_.backlog(port, now_) < cfg_.nic_room_bytes) return;
    room_[host] &= ~(1u << plane);
    for (std::uint32_t k : host_conns_[host]) mrc_conn_set_tx_room(conns_[k].c.get(), room_[host]);
    at(net_.drained_to(port, cfg_.nic_room_bytes / 2, now_), [host, plane](FabricSim& sim) {
        sim.room_[host] |= 1u << plane;
        for (std::uint32_t k : sim.host_conns_[host]) {
            mrc_conn_set_tx_room(sim.conns_[k].c.get(), sim.room_[host]);
            sim.service(k);
        }
    });
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
            f.msg_done.push_back(now_);
            flows_done_ += f.delivered_msgs == f.spec.msgs;
            // Not serviced from here: this engine's drain is in progress.
            for (std::uint32_t w : f.released) at(now_, [w](FabricSim& sim) { sim.service(w); });
        } else if (ev.type == MRC_EVT_CONN_ERROR) {
            if (!stuck_) error_ = {c.flow, ev.u.error.reason, now_, k % 2 == 0};
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

void FabricSim::rc_send(std::size_t flow, Time now, const std::vector<RcSegment>& segs,
                        bool to_rx) {
    const Flow& f = flows_[flow];
    for (const RcSegment& s : segs) {
        FabricPacket p;
        std::memset(&p.pkt, 0, sizeof(p.pkt));
        const bool data = s.kind == RcSegment::Data;
        p.data = data;
        p.wire_len = kRcHdr + cfg_.net.overhead_bytes + (data ? s.len : 0);
        p.trim_len = 0;  // a RoCE fabric drops
        p.ev = f.rc_ev;
        p.src = static_cast<std::uint16_t>(to_rx ? f.spec.src : f.spec.dst);
        p.dst = static_cast<std::uint16_t>(to_rx ? f.spec.dst : f.spec.src);
        p.to_conn = kRc | (to_rx ? 0 : kToSender) | static_cast<std::uint32_t>(flow);
        p.cookie = rc_cookie(s);
        data_pkts_ += data;
        net_.send(now, std::move(p));
    }
}

void FabricSim::rc_arm(std::size_t flow) {
    Flow& f = flows_[flow];
    const Time d = rcs_[f.rc].deadline();
    if (d < f.rc_armed) {
        f.rc_armed = d;
        timers_.push({d, kRc | static_cast<std::uint32_t>(flow)});
    }
}

void FabricSim::rc_check_done(std::size_t flow) {
    Flow& f = flows_[flow];
    const RcFlow& rc = rcs_[f.rc];
    f.delivered_bytes = rc.delivered_bytes();
    f.last_delivery = rc.last_delivery();
    if (rc.done() && f.delivered_msgs < f.spec.msgs) {
        f.delivered_msgs = f.spec.msgs;
        flows_done_++;
    }
}

void FabricSim::rc_deliver(FabricPacket& p) {
    const std::size_t flow = p.to_conn & ~(kRc | kToSender);
    RcFlow& rc = rcs_[flows_[flow].rc];
    const RcSegment s = rc_segment(p.cookie);
    rc_out_.clear();
    if (p.to_conn & kToSender) {
        rc.on_control(now_, s, rc_out_);
        rc_send(flow, now_, rc_out_, true);
        rc_arm(flow);
    } else {
        rc.on_data(now_, s, rc_out_);
        rc_send(flow, now_, rc_out_, false);
        rc_check_done(flow);
    }
}

void FabricSim::deliver(FabricPacket& p) {
    if (p.to_conn & kRc) {
        rc_deliver(p);
        return;
    }
    Conn& c = conns_[p.to_conn];
    u32 rxf = 0;
    if (p.ce) rxf |= MRC_RXF_ECN_CE;
    if (p.trimmed) rxf |= MRC_RXF_TRIMMED | (p.lasthop ? MRC_RXF_LASTHOP : 0);
    p.pkt.trimmed = p.trimmed;
    const int rc = mrc_conn_rx(c.c.get(), now_, &p.pkt, p.ev, rxf);
    if ((rc == MRC_RX_PLACE || rc == MRC_RX_PLACE_NEW) && !p.trimmed) {
        c.placed[p.pkt.meth.msn] += p.pkt.payload_len;
        flows_[c.flow].placed_bytes += p.pkt.payload_len;
    }
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
        if (tm.conn & kRc) {
            const std::size_t flow = tm.conn & ~kRc;
            Flow& f = flows_[flow];
            if (f.rc_armed != tm.t) continue;
            f.rc_armed = kNever;
            rc_out_.clear();
            rcs_[f.rc].on_timer(now_, rc_out_);
            rc_send(flow, now_, rc_out_, true);
            rc_arm(flow);
            continue;
        }
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
    r.msg_done = f.msg_done;
    std::memset(&r.tx, 0, sizeof(r.tx));
    if (f.rc >= 0) {
        const RcFlow& rc = rcs_[f.rc];
        r.tx.timeouts = rc.timeouts();
        r.tx.tx_rtx_pkts = rc.retransmits();
        r.tx.rx_nacks = rc.naks();
        return r;
    }
    const mrc_conn* s = conns_[2 * i].c.get();
    r.failed = mrc_conn_failed(s) || mrc_conn_failed(conns_[2 * i + 1].c.get());
    mrc_conn_get_stats(s, &r.tx);
    return r;
}

std::uint64_t FabricSim::delivered_bytes(std::size_t flow) const {
    return flows_[flow].delivered_bytes;
}

std::uint64_t FabricSim::placed_bytes(std::size_t flow) const {
    const Flow& f = flows_[flow];
    return f.rc >= 0 ? f.delivered_bytes : f.placed_bytes;
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
