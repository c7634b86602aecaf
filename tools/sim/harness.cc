// SPDX-License-Identifier: GPL-2.0 OR MIT
//
// harness.cc - see harness.h.
#include "harness.h"

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <stdexcept>

namespace mrc::sim {

namespace {

constexpr std::uint64_t kMul = 0x9e3779b97f4a7c15ULL;

inline std::uint64_t mix(std::uint64_t z) {
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
    return z ^ (z >> 31);
}

Kind kind_of(std::uint8_t k) {
    switch (k) {
        case MRC_TX_DATA:
            return Kind::Data;
        case MRC_TX_SACK:
        case MRC_TX_NACK:
            return Kind::Ack;
        case MRC_TX_PROBE:
            return Kind::Probe;
        default:
            return Kind::Other;
    }
}

}  // namespace

std::uint64_t digest(std::span<const std::uint8_t> data) {
    std::uint64_t h = 0x243f6a8885a308d3ULL ^ (data.size() * kMul);
    std::size_t i = 0;
    for (; i + 8 <= data.size(); i += 8) {
        std::uint64_t w;
        std::memcpy(&w, data.data() + i, 8);
        h = mix(h ^ w) + kMul;
    }
    std::uint64_t tail = 0;
    for (std::size_t j = 0; i + j < data.size(); j++)
        tail |= static_cast<std::uint64_t>(data[i + j]) << (8 * j);
    return mix(h ^ tail ^ 0xa5a5a5a5a5a5a5a5ULL);
}

void fill_payload(std::span<std::uint8_t> out, std::uint64_t seed) {
    std::uint64_t st = seed;
    std::size_t i = 0;
    for (; i + 8 <= out.size(); i += 8) {
        std::uint64_t w = Rng::splitmix64(st);
        std::memcpy(out.data() + i, &w, 8);
    }
    if (i < out.size()) {
        std::uint64_t w = Rng::splitmix64(st);
        std::memcpy(out.data() + i, &w, out.size() - i);
    }
}

HarnessConfig default_config(unsigned planes, unsigned paths_per_plane, std::uint64_t seed) {
    HarnessConfig h;
    h.net.planes = planes;
    h.net.paths_per_plane = paths_per_plane;
    h.net.seed = seed;
    for (int i = 0; i < 2; i++) {
        mrc_conn_cfg& c = h.ep[i];
        mrc_conn_cfg_init(&c, static_cast<u8>(planes));
        c.local_conn_id = static_cast<u16>(0x100 + i);
        c.peer_conn_id = static_cast<u16>(0x100 + (1 - i));
        c.peer_qpn = 0x1000u + static_cast<u32>(1 - i);
        c.paths_per_plane = paths_per_plane;
        c.seed = seed * 2 + static_cast<u64>(i) + 1;
        c.event_mask = MRC_EVT_MASK_ALL;
    }
    set_initial_psn(h, 0, static_cast<std::uint32_t>(mix(seed) & MRC_PSN_MASK));
    set_initial_psn(h, 1, static_cast<std::uint32_t>(mix(seed + 1) & MRC_PSN_MASK));
    return h;
}

void set_initial_psn(HarnessConfig& cfg, int from_ep, std::uint32_t psn) {
    cfg.ep[from_ep].local_init_psn = psn & MRC_PSN_MASK;
    cfg.ep[1 - from_ep].peer_init_psn = psn & MRC_PSN_MASK;
}

// ------------------------------------------------------------------ Harness

Harness::Harness(const HarnessConfig& cfg) : cfg_(cfg), net_(cfg.net) {
    for (int i = 0; i < 2; i++) {
        mrc_conn* c = nullptr;
        const int rc = mrc_conn_create(&cfg_.ep[i], 0, &c);
        if (rc != MRC_OK || !c)
            throw std::runtime_error("harness: mrc_conn_create failed: " + std::to_string(rc));
        eps_[i].conn.reset(c);
        eps_[i].out = i == 0 ? Dir::AtoB : Dir::BtoA;
    }
    txbuf_.resize(MRC_DATA_HDR_MAX + MRC_MTU_MAX + 8 + MRC_ICRC_LEN);
    for (int i = 0; i < 2; i++) service(i);
}

void Harness::enqueue(std::uint32_t len, int from) {
    Endpoint& e = eps_[from];
    MessageRecord r;
    r.len = len;
    r.enqueued = now_;
    e.msgs.push_back(r);
    e.backlog.push_back(e.msgs.size() - 1);
    first_enqueue_[from] = std::min(first_enqueue_[from], now_);
    service(from);
}

void Harness::at(Time t, std::function<void(Harness&)> fn) {
    actions_.emplace(std::make_pair(t, action_seq_++), std::move(fn));
}

void Harness::set_plane_up(unsigned plane, bool up, Time t) {
    net_.set_plane_up(plane, up, t);
    if (!cfg_.notify_plane_changes) return;
    at(t, [plane, up](Harness& h) {
        for (int i = 0; i < 2; i++) {
            mrc_conn_set_plane_up(h.conn(i), h.now_, static_cast<u8>(plane), up);
            h.service(i);
        }
    });
}

bool Harness::pump_app(int ep) {
    Endpoint& e = eps_[ep];
    bool any = false;
    while (!e.backlog.empty()) {
        const std::size_t idx = e.backlog.front();
        MessageRecord& r = e.msgs[idx];
        const std::uint64_t cookie = idx + 1;
        u16 msn = 0;
        const int rc = mrc_conn_send(e.conn.get(), now_, r.len, static_cast<u32>(idx), MRC_SEND_IMM,
                                     cookie, &msn);
        if (rc == MRC_E_AGAIN) break;
        if (rc != MRC_OK) {
            e.hc.conn_errors += rc == MRC_E_CONN;
            stuck_ = stuck_ || rc != MRC_E_CONN;
            break;
        }
        TxMsg m;
        m.len = r.len;
        if (!cfg_.headers_only) {
            m.data.resize(r.len);
            fill_payload(m.data,
                         cfg_.payload_seed ^ mix((idx + 1) * 2 + static_cast<std::uint64_t>(ep)));
            r.digest = digest(m.data);
        }
        r.msn = msn;
        r.accepted = now_;
        r.accepted_ok = true;
        m.rec = idx;
        e.tx.emplace(cookie, std::move(m));
        e.backlog.pop_front();
        any = true;
    }
    return any;
}

void Harness::emit(int ep, mrc_tx_desc& d) {
    Endpoint& e = eps_[ep];
    HostCounters& hc = e.hc;
    if (d.kind < hc.tx_by_kind.size()) hc.tx_by_kind[d.kind]++;
    if (d.plane != mrc_ev_plane(d.ev)) hc.plane_mismatch++;
    std::uint32_t trim_keep = 0;
    const bool hdr_only = cfg_.headers_only && d.kind == MRC_TX_DATA;
    if (d.kind == MRC_TX_DATA) {
        auto it = e.tx.find(d.cookie);
        if (it == e.tx.end() ||
            static_cast<std::uint64_t>(d.msg_offset) + d.payload_len > it->second.len) {
            hc.unknown_cookie++;
            return;
        }
        d.pkt.payload = hdr_only ? nullptr : it->second.data.data() + d.msg_offset;
        d.pkt.payload_len = d.payload_len;
        trim_keep = mrc_pkt_hdr_len(&d.pkt);
        const std::uint32_t psn = d.pkt.bth.psn;
        if (d.rtx) {
            hc.tx_data_rtx++;
        } else {
            if (!hc.sent_data) {
                hc.first_data_psn = psn;
                hc.sent_data = true;
            } else if (psn < hc.last_new_psn && hc.last_new_psn - psn > MRC_PSN_HALF) {
                hc.new_data_psn_wraps++;
            }
            hc.last_new_psn = psn;
        }
    }
    const int n = hdr_only
                      ? mrc_pkt_encode_hdr(&d.pkt, txbuf_.data(), static_cast<u32>(txbuf_.size()))
                      : mrc_pkt_encode(&d.pkt, txbuf_.data(), static_cast<u32>(txbuf_.size()));
    if (n < 0) {
        hc.encode_errors++;
        return;
    }
    Packet p;
    p.bytes.assign(txbuf_.begin(), txbuf_.begin() + n);
    if (hdr_only) p.omitted = d.payload_len + d.pkt.bth.pad_cnt + MRC_ICRC_LEN;
    hc.tx_bytes += p.wire_len();
    p.ev = d.ev;
    p.kind = kind_of(d.kind);
    p.trim_keep = trim_keep;
    net_.send(now_, e.out, std::move(p));
}

bool Harness::drain_tx(int ep) {
    bool any = false;
    for (;;) {
        mrc_tx_desc d;
        std::memset(&d, 0, sizeof(d));
        const int rc = mrc_conn_poll_tx(eps_[ep].conn.get(), now_, &d);
        if (rc != MRC_OK) break;
        emit(ep, d);
        any = true;
    }
    return any;
}

bool Harness::drain_events(int ep) {
    Endpoint& e = eps_[ep];
    Endpoint& peer = eps_[1 - ep];
    bool any = false;
    for (;;) {
        mrc_event ev;
        std::memset(&ev, 0, sizeof(ev));
        if (mrc_conn_poll_event(e.conn.get(), &ev) != MRC_OK) break;
        any = true;
        switch (ev.type) {
            case MRC_EVT_MSG_COMPLETED: {
                const std::uint64_t cookie = ev.u.msg.cookie;
                if (cookie == 0 || cookie > e.msgs.size()) {
                    e.hc.completed_out_of_order++;
                    break;
                }
                const std::size_t idx = cookie - 1;
                if (idx != e.next_completed) e.hc.completed_out_of_order++;
                e.next_completed = idx + 1;
                e.msgs[idx].completed = now_;
                e.tx.erase(cookie);
                e.hc.completed_msgs++;
                break;
            }
            case MRC_EVT_MSG_DELIVERED: {
                e.hc.delivered_msgs++;
                if (cfg_.headers_only) {
                    deliver_headers_only(e, peer, ev);
                    break;
                }
                auto it = e.rx.find(ev.u.msg.msn);
                const std::size_t idx = e.next_delivered++;
                const bool known = idx < peer.msgs.size();
                bool ok = known && it != e.rx.end();
                if (ok) {
                    MessageRecord& r = peer.msgs[idx];
                    ok = r.accepted_ok && r.msn == ev.u.msg.msn && r.len == ev.u.msg.len &&
                         it->second.size() == r.len && digest(it->second) == r.digest &&
                         ev.u.msg.has_imm && ev.u.msg.imm == static_cast<u32>(idx);
                    r.delivered = now_;
                    r.delivered_ok = ok;
                } else if (known && ev.u.msg.len == 0 && peer.msgs[idx].len == 0 &&
                           peer.msgs[idx].msn == ev.u.msg.msn) {
                    // A zero-length message may have no buffer set up.
                    ok = true;
                    peer.msgs[idx].delivered = now_;
                    peer.msgs[idx].delivered_ok = true;
                }
                if (!ok) e.hc.delivered_bad++;
                if (it != e.rx.end()) e.rx.erase(it);
                break;
            }
            case MRC_EVT_CONN_ERROR:
                e.hc.conn_errors++;
                break;
            default:
                break;
        }
        if (cfg_.log_events) events_.push_back({now_, ep, ev});
        if (on_event) on_event(*this, ep, ev);
    }
    return any;
}

// MRC_EVT_MSG_DELIVERED without payload bytes: the message is the next one
// the peer's application sent, with its MSN, length and immediate data, and
// exactly its length in payload was placed (a duplicate placed twice, or a
// byte range missed, would not add up).
void Harness::deliver_headers_only(Endpoint& e, Endpoint& peer, const mrc_event& ev) {
    const std::size_t idx = e.next_delivered++;
    auto it = e.rx_placed.find(ev.u.msg.msn);
    const std::uint64_t placed = it == e.rx_placed.end() ? 0 : it->second;
    bool ok = idx < peer.msgs.size();
    if (ok) {
        MessageRecord& r = peer.msgs[idx];
        ok = r.accepted_ok && r.msn == ev.u.msg.msn && r.len == ev.u.msg.len && placed == r.len &&
             ev.u.msg.has_imm && ev.u.msg.imm == static_cast<u32>(idx);
        r.delivered = now_;
        r.delivered_ok = ok;
    }
    if (!ok) e.hc.delivered_bad++;
    if (it != e.rx_placed.end()) e.rx_placed.erase(it);
}

void Harness::service(int ep) {
    // Host contract: drain tx, then events; completions free message slots,
    // so repeat until nothing moves.
    for (int guard = 0; guard < 1000; guard++) {
        bool any = pump_app(ep);
        any |= drain_tx(ep);
        any |= drain_events(ep);
        if (!any) return;
    }
    stuck_ = true;
}

void Harness::deliver(Delivery& d) {
    const int ep = d.dir == Dir::AtoB ? 1 : 0;
    Endpoint& e = eps_[ep];
    HostCounters& hc = e.hc;
    hc.rx_pkts++;
    hc.rx_trimmed += d.pkt.trimmed;
    hc.rx_ce += d.pkt.ecn_ce;
    mrc_pkt pkt;
    std::memset(&pkt, 0, sizeof(pkt));
    u32 dflags = 0;
    if (d.pkt.trimmed) dflags |= MRC_DECODE_TRIMMED;
    if (!cfg_.verify_icrc) dflags |= MRC_DECODE_NO_ICRC;
    // Headers only: the decoder reads the headers at bytes and takes the
    // rest of the wire length on trust (as the kernel's skb receive does).
    if (d.pkt.omitted) dflags |= MRC_DECODE_HDR_ONLY;
    if (mrc_pkt_decode_flags(d.pkt.bytes.data(), static_cast<u32>(d.pkt.wire_len()), dflags,
                             &pkt) != MRC_WIRE_OK) {
        hc.decode_errors++;
        return;
    }
    u32 rxf = 0;
    if (d.pkt.ecn_ce) rxf |= MRC_RXF_ECN_CE;
    if (d.pkt.trimmed) rxf |= MRC_RXF_TRIMMED;
    const int rc = mrc_conn_rx(e.conn.get(), now_, &pkt, d.pkt.ev, rxf);
    if (rc < 0) {
        const std::size_t i = static_cast<std::size_t>(-rc);
        hc.rx_rc[std::min(i, hc.rx_rc.size() - 1)]++;
    } else {
        hc.rx_rc[0]++;
    }
    if (rc == MRC_RX_PLACE || rc == MRC_RX_PLACE_NEW) {
        if (pkt.trimmed || !mrc_op_is_data(pkt.bth.opcode)) {
            hc.place_anomalies++;
        } else if (cfg_.headers_only) {
            auto [it, fresh] = e.rx_placed.try_emplace(pkt.meth.msn, 0);
            if (fresh != (rc == MRC_RX_PLACE_NEW)) hc.place_anomalies++;
            it->second += pkt.payload_len;
            hc.placed_pkts++;
            hc.placed_bytes += pkt.payload_len;
        } else {
            auto it = e.rx.find(pkt.meth.msn);
            if (rc == MRC_RX_PLACE_NEW) {
                if (it != e.rx.end()) hc.place_anomalies++;  // stale buffer for a reused MSN
                it =
                    e.rx.insert_or_assign(pkt.meth.msn, std::vector<std::uint8_t>(pkt.reth.dma_len))
                        .first;
            }
            if (it == e.rx.end() || pkt.reth.va + pkt.payload_len > it->second.size()) {
                hc.place_anomalies++;
            } else {
                if (pkt.payload_len)
                    std::memcpy(it->second.data() + pkt.reth.va, pkt.payload, pkt.payload_len);
                hc.placed_pkts++;
                hc.placed_bytes += pkt.payload_len;
            }
        }
    }
    service(ep);
}

Time Harness::next_time() const {
    Time t = net_.next_event();
    for (const auto& e : eps_) t = std::min<Time>(t, mrc_conn_next_deadline(e.conn.get()));
    if (!actions_.empty()) t = std::min(t, actions_.begin()->first.first);
    return t;
}

bool Harness::step() {
    Time t = next_time();
    if (t == kNever) return false;
    if (t <= now_) {
        t = now_;
        if (++same_instant_steps_ > 100000) {
            stuck_ = true;
            return false;
        }
    } else {
        same_instant_steps_ = 0;
    }
    now_ = t;
    while (!actions_.empty() && actions_.begin()->first.first <= now_) {
        auto fn = std::move(actions_.begin()->second);
        actions_.erase(actions_.begin());
        fn(*this);
    }
    while (auto d = net_.pop_due(now_)) deliver(*d);
    for (int i = 0; i < 2; i++) {
        if (mrc_conn_next_deadline(eps_[i].conn.get()) <= now_) {
            mrc_conn_on_timer(eps_[i].conn.get(), now_);
            service(i);
        }
    }
    return true;
}

bool Harness::all_done() const {
    for (int i = 0; i < 2; i++) {
        const Endpoint& e = eps_[i];
        if (!e.backlog.empty() || e.next_completed < e.msgs.size() ||
            eps_[1 - i].next_delivered < e.msgs.size())
            return false;
    }
    return true;
}

RunResult Harness::run(Time deadline) {
    RunResult r;
    for (;;) {
        if (all_done()) {
            r.done = true;
            r.why = "done";
            break;
        }
        if (mrc_conn_failed(eps_[0].conn.get()) || mrc_conn_failed(eps_[1].conn.get())) {
            r.error = true;
            r.why = "connection error";
            break;
        }
        if (stuck_) {
            r.error = true;
            r.why = "livelock (no progress at one instant)";
            break;
        }
        if (next_time() > deadline) {
            r.why = next_time() == kNever ? "idle" : "deadline";
            break;
        }
        if (!step()) {
            r.why = "idle";
            break;
        }
        r.steps++;
    }
    r.end = now_;
    return r;
}

mrc_conn_stats Harness::stats(int ep) const {
    mrc_conn_stats st;
    std::memset(&st, 0, sizeof(st));
    mrc_conn_get_stats(eps_[ep].conn.get(), &st);
    return st;
}

std::vector<mrc_ev_info> Harness::ev_infos(int ep) const {
    std::vector<mrc_ev_info> v;
    const mrc_conn* c = eps_[ep].conn.get();
    const u16 n = mrc_conn_num_evs(c);
    for (u16 i = 0; i < n; i++) {
        mrc_ev_info info;
        std::memset(&info, 0, sizeof(info));
        if (mrc_conn_get_ev(c, i, &info) == MRC_OK) v.push_back(info);
    }
    return v;
}

std::uint64_t Harness::delivered_bytes(int from) const {
    std::uint64_t n = 0;
    for (const auto& m : eps_[from].msgs)
        if (m.delivered != kNever) n += m.len;
    return n;
}

Time Harness::last_delivery(int from) const {
    Time t = 0;
    for (const auto& m : eps_[from].msgs)
        if (m.delivered != kNever) t = std::max(t, m.delivered);
    return t;
}

double Harness::goodput_Bps(int from) const {
    const Time t0 = first_enqueue_[from];
    const Time t1 = last_delivery(from);
    if (t0 == kNever || t1 <= t0) return 0.0;
    return static_cast<double>(delivered_bytes(from)) * 1e9 / static_cast<double>(t1 - t0);
}

static void kv(std::string& o, const char* k, unsigned long long v, bool comma = true) {
    char b[96];
    std::snprintf(b, sizeof(b), "\"%s\":%llu%s", k, v, comma ? "," : "");
    o += b;
}

std::string Harness::json() const {
    std::string o = "{";
    kv(o, "now_ns", now_);
    {
        char b[64];
        std::snprintf(b, sizeof(b), "\"goodput_Bps\":%.0f,", goodput_Bps(0));
        o += b;
    }
    kv(o, "delivered_bytes", delivered_bytes(0));
    kv(o, "last_delivery_ns", last_delivery(0));
    o += "\"endpoints\":[";
    for (int i = 0; i < 2; i++) {
        const HostCounters& h = eps_[i].hc;
        const mrc_conn_stats s = stats(i);
        o += i ? ",{" : "{";
        kv(o, "msgs_sent", eps_[i].msgs.size());
        kv(o, "completed", h.completed_msgs);
        kv(o, "completed_out_of_order", h.completed_out_of_order);
        kv(o, "delivered", h.delivered_msgs);
        kv(o, "delivered_bad", h.delivered_bad);
        kv(o, "tx_data", h.tx_by_kind[MRC_TX_DATA]);
        kv(o, "tx_data_rtx", h.tx_data_rtx);
        kv(o, "tx_sack", h.tx_by_kind[MRC_TX_SACK]);
        kv(o, "tx_nack", h.tx_by_kind[MRC_TX_NACK]);
        kv(o, "tx_probe", h.tx_by_kind[MRC_TX_PROBE]);
        kv(o, "rx_pkts", h.rx_pkts);
        kv(o, "rx_trimmed", h.rx_trimmed);
        kv(o, "rx_ce", h.rx_ce);
        kv(o, "decode_errors", h.decode_errors);
        kv(o, "place_anomalies", h.place_anomalies);
        kv(o, "psn_wraps", h.new_data_psn_wraps);
        kv(o, "eng_timeouts", s.timeouts);
        kv(o, "eng_rtx_timeout", s.tx_rtx_timeout);
        kv(o, "eng_rtx_nack", s.tx_rtx_nack);
        kv(o, "eng_lost_inferred", s.lost_inferred);
        kv(o, "eng_spurious_losses", s.spurious_losses);
        kv(o, "eng_rtx_inferred", s.tx_rtx_inferred);
        kv(o, "eng_rtx_tlp", s.tx_rtx_tlp);
        kv(o, "eng_spurious_timeouts", s.spurious_timeouts);
        kv(o, "eng_rx_dup", s.rx_dup_pkts);
        kv(o, "eng_rx_trimmed", s.rx_trimmed);
        kv(o, "eng_spurious_rtx", s.spurious_rtx);
        kv(o, "eng_cwnd", s.cwnd_bytes);
        kv(o, "eng_srtt_ns", s.srtt_ns);
        kv(o, "eng_error", s.error, false);
        o += "}";
    }
    o += "],\"paths\":";
    o += net_.counters_json();
    o += "}";
    return o;
}

}  // namespace mrc::sim
