// SPDX-License-Identifier: GPL-2.0
#include "report.h"

#include <algorithm>
#include <array>
#include <cstdio>
#include <map>
#include <span>
#include <tuple>

#include "format.h"
#include "json_writer.h"

namespace mrcstat {
namespace {

std::array<uint64_t, MRC_TEL_HIST_BUCKETS> Hist(const mrc_tel_counters& c) {
    std::array<uint64_t, MRC_TEL_HIST_BUCKETS> h{};
    for (size_t i = 0; i < h.size(); i++) h[i] = c.rtt_hist[i];
    return h;
}

std::string Fmt(const char* fmt, auto... args) {
    char buf[256];
    std::snprintf(buf, sizeof(buf), fmt, args...);
    return buf;
}

// Right-aligned to `w` columns, counting UTF-8 code points.
std::string Pad(const std::string& s, int w) {
    int cols = 0;
    for (unsigned char c : s) cols += (c & 0xc0) != 0x80;
    return cols >= w ? s : std::string(w - cols, ' ') + s;
}

void Counters(mrc::JsonWriter& j, const mrc_tel_counters& c) {
    j.Field("pkts", c.pkts).Field("bytes", c.bytes).Field("rtx", c.rtx);
    j.Field("ctl_pkts", c.ctl_pkts).Field("sacked", c.sacked).Field("ecn", c.ecn);
    j.Field("nacked", c.nacked).Field("trimmed", c.trimmed);
    j.Key("nack_reason").BeginObject();
    for (unsigned i = 0; i < MRC_TEL_NACK_SLOTS; i++) j.Field(NackSlotName(i), c.nack_reason[i]);
    j.EndObject();
    j.Field("timeouts", c.timeouts).Field("probes", c.probes).Field("probes_ok", c.probes_ok);
    j.Field("ev_changes", c.ev_changes);
    const auto h = Hist(c);
    j.Key("rtt").BeginObject();
    j.Field("samples", c.rtt_samples);
    j.Field("mean_ns", c.rtt_samples ? c.rtt_sum_ns / c.rtt_samples : 0);
    j.Field("p50_ns", static_cast<uint64_t>(HistQuantile(h, 0.5)));
    j.Field("p99_ns", static_cast<uint64_t>(HistQuantile(h, 0.99)));
    // What the histogram really knows: the log2 bucket [lo, hi) of each.
    for (auto [key, q] : {std::pair{"p50_bucket_ns", 0.5}, std::pair{"p99_bucket_ns", 0.99}}) {
        const int b = HistQuantileBucket(h, q);
        j.Key(key).BeginArray();
        j.Uint(b < 0 ? 0 : HistBucketLow(b)).Uint(b < 0 ? 0 : HistBucketHigh(b));
        j.EndArray();
    }
    j.Key("hist_log2_ns").BeginArray();
    for (uint64_t v : h) j.Uint(v);
    j.EndArray().EndObject();
}

std::string RateCol(uint64_t now, const __u64* before, double secs, bool bytes) {
    if (!before) return "-";
    const double r = Rate(Delta(now, *before), secs);
    return bytes ? HumanBytes(r) : HumanCount(r);
}

}  // namespace

std::string Snapshot::NetnsName(uint32_t inum) const {
    auto it = netns_names.find(inum);
    return it != netns_names.end() ? it->second : std::string();
}

std::string Snapshot::NetnsLabel(uint32_t inum) const {
    std::string n = NetnsName(inum);
    return n.empty() ? std::to_string(inum) : n;
}

void Snapshot::Sort() {
    std::sort(evs.begin(), evs.end(), [](const EvRow& a, const EvRow& b) {
        return std::tie(a.key.netns, a.key.qpn, a.val.index, a.key.ev) <
               std::tie(b.key.netns, b.key.qpn, b.val.index, b.key.ev);
    });
    std::sort(planes.begin(), planes.end(), [](const PlaneRow& a, const PlaneRow& b) {
        return std::tie(a.key.netns, a.key.plane) < std::tie(b.key.netns, b.key.plane);
    });
    std::sort(conns.begin(), conns.end(), [](const ConnRow& a, const ConnRow& b) {
        return std::tie(a.key.netns, a.key.qpn) < std::tie(b.key.netns, b.key.qpn);
    });
}

std::string_view EventTypeName(unsigned type) {
    switch (type) {
        case MRC_TEL_E_EV_STATE:
            return "ev_state";
        case MRC_TEL_E_PLANE:
            return "plane";
        case MRC_TEL_E_PROBE_SENT:
            return "probe_sent";
        case MRC_TEL_E_PROBE_ANSWERED:
            return "probe_answered";
        case MRC_TEL_E_RTO:
            return "rto";
        case MRC_TEL_E_CONN:
            return "conn";
        default:
            return "?";
    }
}

std::string RenderJson(const Snapshot& s) {
    mrc::JsonWriter j;
    j.BeginObject().Field("version", 1u).Field("time_ns", s.mono_ns);
    j.Key("telemetry").BeginObject();
    j.Field("ringbuf_drops", s.stat.ringbuf_drops).Field("map_full", s.stat.map_full);
    j.EndObject();
    j.Key("planes").BeginArray();
    for (const auto& p : s.planes) {
        j.BeginObject().Field("netns", p.key.netns);
        j.Field("netns_name", s.NetnsName(p.key.netns)).Field("plane", p.key.plane);
        j.Field("up", !p.val.down).Field("evs_bad", p.val.n_bad);
        Counters(j, p.val.c);
        j.EndObject();
    }
    j.EndArray();
    j.Key("conns").BeginArray();
    for (const auto& c : s.conns) {
        j.BeginObject()
            .Field("netns", c.key.netns)
            .Field("netns_name", s.NetnsName(c.key.netns))
            .Field("qpn", c.key.qpn)
            .Field("conn", c.val.conn);
        j.Field("state", c.val.up == 1 ? "up" : c.val.up == 0 ? "down" : "unknown");
        j.Field("err", c.val.err).Field("srtt_ns", c.val.srtt_ns);
        Counters(j, c.val.c);
        j.Key("evs").BeginArray();
        for (const auto& e : s.evs) {
            if (e.key.netns != c.key.netns || e.key.qpn != c.key.qpn) continue;
            j.BeginObject().Field("ev", e.key.ev).Field("plane", e.val.plane);
            j.Field("index", e.val.index).Field("state", EvStateName(e.val.state));
            j.Field("active", e.val.active != 0);
            Counters(j, e.val.c);
            j.EndObject();
        }
        j.EndArray().EndObject();
    }
    j.EndArray().EndObject();
    return j.str();
}

std::string RenderText(const Snapshot& now, const Snapshot* before, const TextOptions& o) {
    const double secs =
        before && now.mono_ns > before->mono_ns ? (now.mono_ns - before->mono_ns) / 1e9 : 0;
    std::map<std::tuple<uint32_t, uint32_t>, const mrc_tel_plane_val*> pb;
    std::map<std::tuple<uint32_t, uint32_t>, const mrc_tel_conn_val*> cb;
    std::map<std::tuple<uint32_t, uint32_t, uint32_t>, const mrc_tel_ev_val*> eb;
    if (before) {
        for (const auto& p : before->planes) pb[{p.key.netns, p.key.plane}] = &p.val;
        for (const auto& c : before->conns) cb[{c.key.netns, c.key.qpn}] = &c.val;
        for (const auto& e : before->evs) eb[{e.key.netns, e.key.qpn, e.key.ev}] = &e.val;
    }
    const auto bold = [&](const std::string& s) { return Paint(s, Colour::kBold, o.colour); };
    std::string out;
    out += bold(Fmt("mrcstat: %zu plane(s), %zu connection(s), %zu path(s)", now.planes.size(),
                    now.conns.size(), now.evs.size()));
    if (secs > 0) out += Fmt("   interval %.1fs", secs);
    if (now.stat.ringbuf_drops || now.stat.map_full) {
        out += Paint(Fmt("   events lost %llu, map full %llu",
                         static_cast<unsigned long long>(now.stat.ringbuf_drops),
                         static_cast<unsigned long long>(now.stat.map_full)),
                     Colour::kRed, o.colour);
    }
    out += "\n\n";

    // Planes: share of the data packets of their namespace in the interval
    // (or in total without an interval).
    std::map<uint32_t, uint64_t> ns_pkts;
    auto plane_pkts = [&](const PlaneRow& p) {
        auto it = pb.find({p.key.netns, p.key.plane});
        return it != pb.end() ? Delta(p.val.c.pkts, it->second->c.pkts) : p.val.c.pkts;
    };
    for (const auto& p : now.planes) ns_pkts[p.key.netns] += plane_pkts(p);
    out += bold(Fmt("%-11s %5s %5s %8s %9s %10s %7s %7s %7s %6s %6s %5s %8s %8s  %s", "NETNS",
                    "PLANE", "LINK", "PKT/s", "BYTES/s", "PKTS", "RTX", "SACK", "NACK", "TRIM",
                    "TMO", "BAD", "RTT-p50", "RTT-p99", "SHARE"));
    out += "\n";
    for (const auto& p : now.planes) {
        auto it = pb.find({p.key.netns, p.key.plane});
        const mrc_tel_plane_val* b = it != pb.end() ? it->second : nullptr;
        const auto& c = p.val.c;
        const uint64_t tot = ns_pkts[p.key.netns];
        const double share = tot ? static_cast<double>(plane_pkts(p)) / tot : 0;
        out += Fmt("%-11s %5u ", now.NetnsLabel(p.key.netns).c_str(), p.key.plane);
        out += Paint(Pad(p.val.down ? "down" : "up", 5), p.val.down ? Colour::kRed : Colour::kGreen,
                     o.colour);
        out += " " + Pad(RateCol(c.pkts, b ? &b->c.pkts : nullptr, secs, false), 8);
        out += " " + Pad(RateCol(c.bytes, b ? &b->c.bytes : nullptr, secs, true), 9);
        out += " " + Pad(HumanCount(c.pkts), 10) + " " + Pad(HumanCount(c.rtx), 7);
        out += " " + Pad(HumanCount(c.sacked), 7) + " " + Pad(HumanCount(c.nacked), 7);
        out += " " + Pad(HumanCount(c.trimmed), 6) + " " + Pad(HumanCount(c.timeouts), 6);
        out += " " + Paint(Pad(std::to_string(p.val.n_bad), 5),
                           p.val.n_bad ? Colour::kRed : Colour::kNone, o.colour);
        out += " " + Pad(HistQuantileText(Hist(c), 0.5), 8);
        out += " " + Pad(HistQuantileText(Hist(c), 0.99), 8);
        out += "  " + Bar(share, o.bar_width, o.unicode) + Fmt(" %3.0f%%", share * 100) + "\n";
    }

    for (const auto& cn : now.conns) {
        auto it = cb.find({cn.key.netns, cn.key.qpn});
        const mrc_tel_conn_val* b = it != cb.end() ? it->second : nullptr;
        const auto& c = cn.val.c;
        const char* st = cn.val.up == 1 ? "up" : cn.val.up == 0 ? "down" : "?";
        out += "\n";
        out += bold(Fmt("conn netns %s qpn %u id %u", now.NetnsLabel(cn.key.netns).c_str(),
                        cn.key.qpn, cn.val.conn));
        out += " " + Paint(st,
                           cn.val.up == 1   ? Colour::kGreen
                           : cn.val.up == 0 ? (cn.val.err ? Colour::kRed : Colour::kGrey)
                                            : Colour::kNone,
                           o.colour);
        if (cn.val.err) out += Fmt(" err %d", cn.val.err);
        out += Fmt("  pkts %s (%s/s)  bytes %s (%s/s)  rtx %s  timeouts %s  srtt %s\n",
                   HumanCount(c.pkts).c_str(),
                   RateCol(c.pkts, b ? &b->c.pkts : nullptr, secs, false).c_str(),
                   HumanBytes(c.bytes).c_str(),
                   RateCol(c.bytes, b ? &b->c.bytes : nullptr, secs, true).c_str(),
                   HumanCount(c.rtx).c_str(), HumanCount(c.timeouts).c_str(),
                   HumanNs(cn.val.srtt_ns).c_str());
        if (!o.show_evs) continue;
        out += Fmt("  %-10s %5s %5s %-11s %3s %8s %10s %7s %7s %6s %6s %8s  %s\n", "EV", "PLANE",
                   "INDEX", "STATE", "ACT", "PKT/s", "PKTS", "SACK", "NACK", "TRIM", "TMO",
                   "RTT-p50", "SHARE");
        for (const auto& e : now.evs) {
            if (e.key.netns != cn.key.netns || e.key.qpn != cn.key.qpn) continue;
            auto eit = eb.find({e.key.netns, e.key.qpn, e.key.ev});
            const mrc_tel_ev_val* evb = eit != eb.end() ? eit->second : nullptr;
            const auto& ec = e.val.c;
            const uint64_t cp = b ? Delta(c.pkts, b->c.pkts) : c.pkts;
            const uint64_t ep = evb ? Delta(ec.pkts, evb->c.pkts) : ec.pkts;
            const double share = cp ? static_cast<double>(ep) / cp : 0;
            std::string state(EvStateName(e.val.state));
            state.resize(std::max<size_t>(state.size(), 11), ' ');
            out += Fmt("  %-10s %5u %5u ", EvHex(e.key.ev).c_str(), e.val.plane, e.val.index);
            out += Paint(state, EvStateColour(e.val.state), o.colour);
            out += Fmt(" %3s", e.val.active ? "*" : "");
            out += " " + Pad(RateCol(ec.pkts, evb ? &evb->c.pkts : nullptr, secs, false), 8);
            out += " " + Pad(HumanCount(ec.pkts), 10) + " " + Pad(HumanCount(ec.sacked), 7);
            out += " " + Pad(HumanCount(ec.nacked), 7) + " " + Pad(HumanCount(ec.trimmed), 6);
            out += " " + Pad(HumanCount(ec.timeouts), 6);
            out += " " + Pad(HistQuantileText(Hist(ec), 0.5), 8);
            out += "  " + Bar(share, o.bar_width, o.unicode) + "\n";
        }
    }
    if (now.planes.empty() && now.conns.empty()) out += "(no MRC traffic seen since attach)\n";
    return out;
}

std::string EventText(const mrc_tel_event& e, bool colour) {
    std::string out = Fmt("%llu.%09llu %-14s netns %u qpn %u conn %u",
                          static_cast<unsigned long long>(e.ts_ns / 1000000000ull),
                          static_cast<unsigned long long>(e.ts_ns % 1000000000ull),
                          std::string(EventTypeName(e.type)).c_str(), e.netns, e.qpn, e.conn);
    switch (e.type) {
        case MRC_TEL_E_EV_STATE:
            out += Fmt(" ev %s plane %u index %u ", EvHex(e.ev).c_str(), e.plane, e.index);
            out += Paint(EvStateName(e.old_state), EvStateColour(e.old_state), colour) + " -> ";
            out += Paint(EvStateName(e.new_state), EvStateColour(e.new_state), colour);
            out += Fmt(" cause %s%s", std::string(EvCauseName(e.cause)).c_str(),
                       e.active ? " active" : "");
            break;
        case MRC_TEL_E_PLANE:
            out += Fmt(" plane %u ", e.plane);
            out += Paint(e.up ? "up" : "down", e.up ? Colour::kGreen : Colour::kRed, colour);
            break;
        case MRC_TEL_E_PROBE_SENT:
            out += Fmt(" ev %s plane %u", EvHex(e.ev).c_str(), e.plane);
            break;
        case MRC_TEL_E_PROBE_ANSWERED:
            out += Fmt(" ev %s plane %u rtt %s", EvHex(e.ev).c_str(), e.plane,
                       HumanNs(static_cast<double>(e.rtt_ns)).c_str());
            break;
        case MRC_TEL_E_RTO:
            out += Fmt(" ev %s plane %u psn %u count %u", EvHex(e.ev).c_str(), e.plane, e.psn,
                       e.count);
            break;
        case MRC_TEL_E_CONN:
            out += " " + Paint(e.up ? "up" : "down", e.up ? Colour::kGreen : Colour::kRed, colour);
            if (e.err) out += Fmt(" err %d", e.err);
            break;
        default:
            break;
    }
    return out;
}

std::string EventJson(const mrc_tel_event& e) {
    mrc::JsonWriter j;
    j.BeginObject().Field("ts_ns", e.ts_ns).Field("type", EventTypeName(e.type));
    j.Field("netns", e.netns).Field("qpn", e.qpn).Field("conn", e.conn);
    switch (e.type) {
        case MRC_TEL_E_EV_STATE:
            j.Field("ev", e.ev).Field("plane", e.plane).Field("index", e.index);
            j.Field("old", EvStateName(e.old_state)).Field("new", EvStateName(e.new_state));
            j.Field("cause", EvCauseName(e.cause)).Field("active", e.active != 0);
            break;
        case MRC_TEL_E_PLANE:
            j.Field("plane", e.plane).Field("up", e.up != 0);
            break;
        case MRC_TEL_E_PROBE_SENT:
            j.Field("ev", e.ev).Field("plane", e.plane);
            break;
        case MRC_TEL_E_PROBE_ANSWERED:
            j.Field("ev", e.ev).Field("plane", e.plane).Field("rtt_ns", e.rtt_ns);
            break;
        case MRC_TEL_E_RTO:
            j.Field("ev", e.ev).Field("plane", e.plane).Field("psn", e.psn);
            j.Field("count", e.count);
            break;
        case MRC_TEL_E_CONN:
            j.Field("up", e.up != 0).Field("err", e.err);
            break;
        default:
            break;
    }
    j.EndObject();
    return j.str();
}

}  // namespace mrcstat
