// SPDX-License-Identifier: GPL-2.0
#include "output.h"

#include <algorithm>
#include <cstdio>
#include <cstring>

#include "grammar.h"

namespace mrcctl {

namespace {

std::string Segs(const std::vector<in6_addr>& segs) {
    std::string s;
    for (const auto& a : segs) {
        if (!s.empty()) s += ',';
        s += AddrToString(a);
    }
    return s;
}

}  // namespace

// The words "plane add" takes, then what only the kernel sets as a batch
// comment: "mrcctl save" is these lines after "plane add ".
void PrintPlane(std::ostream& os, const Plane& p) {
    os << "id " << p.id;
    if (p.dev.empty())
        os << " ifindex " << p.ifindex;
    else
        os << " dev " << p.dev;
    os << " addr " << AddrToString(p.addr) << (p.admin_up ? " up" : " down") << " # ifindex "
       << p.ifindex << " oper " << (p.oper_up ? "up" : "down") << '\n';
}

// The same words "route add" takes, so a line can be fed back.
void PrintRoute(std::ostream& os, const Route& r) {
    os << AddrToString(r.dst) << '/' << unsigned(r.len) << " encap " << EncapName(r.encap);
    for (const auto& p : r.paths) {
        os << " plane " << p.plane;
        if (!p.segs.empty()) os << " segs " << Segs(p.segs);
        if (p.usid) os << " usid " << AddrToString(*p.usid);
    }
    os << '\n';
}

// The words "profile add" (or "set") takes.
void PrintProfile(std::ostream& os, const Profile& p) {
    os << "id " << p.id << " ev-count " << p.ev_count << " ev-active " << p.ev_active
       << " ev-min-active " << p.ev_min_active << " burst " << p.burst << " dscp " << p.dscp
       << " dscp-ctl " << p.dscp_ctl << " cc-algo " << CcAlgoName(p.cc_algo) << " target-delay "
       << p.target_delay << " gamma " << p.gamma << " max-md " << p.max_md << " max-wnd "
       << p.max_wnd << " init-wnd " << p.init_wnd << " link-rate " << LinkRate(p.link_mbps)
       << " init-wnd-shared " << (p.init_wnd_shared ? "on" : "off") << '\n';
}

void PrintStats(std::ostream& os, const Stats& s) {
    for (const auto& [k, v] : s) os << k << ' ' << v << '\n';
}

void JsonPlane(JsonWriter& j, const Plane& p) {
    j.BeginObject();
    j.Key("id").Uint(p.id);
    j.Key("ifindex").Uint(p.ifindex);
    if (!p.dev.empty()) j.Key("dev").String(p.dev);
    j.Key("addr").String(AddrToString(p.addr));
    j.Key("admin").String(p.admin_up ? "up" : "down");
    j.Key("oper").String(p.oper_up ? "up" : "down");
    j.EndObject();
}

void JsonRoute(JsonWriter& j, const Route& r) {
    j.BeginObject();
    j.Key("dst").String(AddrToString(r.dst) + "/" + std::to_string(r.len));
    j.Key("encap").String(EncapName(r.encap));
    j.Key("paths").BeginArray();
    for (const auto& p : r.paths) {
        j.BeginObject();
        j.Key("plane").Uint(p.plane);
        if (!p.segs.empty()) {
            j.Key("segs").BeginArray();
            for (const auto& a : p.segs) j.String(AddrToString(a));
            j.EndArray();
        }
        if (p.usid) j.Key("usid").String(AddrToString(*p.usid));
        j.EndObject();
    }
    j.EndArray();
    j.EndObject();
}

void JsonProfile(JsonWriter& j, const Profile& p) {
    j.BeginObject();
    j.Key("id").Uint(p.id);
    j.Key("ev").BeginObject();
    j.Key("count").Uint(p.ev_count);
    j.Key("active_per_plane").Uint(p.ev_active);
    j.Key("min_active").Uint(p.ev_min_active);
    j.Key("burst").Uint(p.burst);
    j.Key("dscp").Uint(p.dscp);
    j.Key("dscp_ctl").Uint(p.dscp_ctl);
    j.EndObject();
    j.Key("cc").BeginObject();
    j.Key("algo").String(CcAlgoName(p.cc_algo));
    j.Key("target_delay_pm").Uint(p.target_delay);
    j.Key("gamma_pm").Uint(p.gamma);
    j.Key("max_md_pm").Uint(p.max_md);
    j.Key("max_wnd_pm").Uint(p.max_wnd);
    j.Key("init_wnd_pm").Uint(p.init_wnd);
    j.Key("link_mbps").Uint(p.link_mbps);
    j.Key("init_wnd_shared").Bool(p.init_wnd_shared);
    j.EndObject();
    j.EndObject();
}

void JsonStats(JsonWriter& j, const Stats& s) {
    j.BeginObject();
    for (const auto& [k, v] : s) j.Key(k).Uint(v);
    j.EndObject();
}

namespace {

std::string Endpoint(const in6_addr& a, uint16_t service) {
    return "[" + AddrToString(a) + "]:" + std::to_string(service);
}

}  // namespace

void PrintConn(std::ostream& os, const Conn& c) {
    os << "conn qpn " << c.qpn << " peer-qpn " << c.peer_qpn << " local "
       << Endpoint(c.local, c.local_service) << " peer " << Endpoint(c.peer, c.peer_service)
       << " id " << c.local_conn_id << " peer-id " << c.peer_conn_id << " state "
       << ConnStateName(c.state) << " cwnd " << c.cwnd << " srtt-ns " << c.srtt_ns << " tx-pkts "
       << c.tx_pkts << " tx-bytes " << c.tx_bytes << " retransmits " << c.retransmits
       << " timeouts " << c.timeouts << " evs " << c.n_evs << '\n';
    os << "  mem rmem-alloc " << c.rmem_alloc << " rmem-unread " << c.rmem_unread << " rcvbuf "
       << c.rcvbuf << " wmem-queued " << c.wmem_queued << " wmem-kept " << c.wmem_kept
       << " wmem-alloc " << c.wmem_alloc << " sndbuf " << c.sndbuf << " charged " << c.mem_charged
       << " fwd-alloc " << c.fwd_alloc << '\n';
    for (const auto& p : c.planes)
        os << "  plane " << unsigned(p.id) << (p.up ? " up" : " down") << " evs " << p.n_evs
           << " active " << p.n_active << " good " << p.n_good << " bad " << p.n_bad << " sent "
           << p.sent << " sacked " << p.sacked << " nacked " << p.nacked << " timeouts "
           << p.timeouts << '\n';
}

void PrintConnPaths(std::ostream& os, const Conn& c) {
    char line[224];
    os << "conn qpn " << c.qpn << " state " << ConnStateName(c.state) << " evs " << c.n_evs << '\n';
    os << "  INDEX  EV          PLANE  STATE        ACT          SENT        SACKED"
          "        NACKED      TIMEOUTS           ECN        LOSSES\n";
    for (const auto& p : c.paths) {
        std::snprintf(
            line, sizeof(line),
            "  %5u  0x%08x  %5u  %-11s  %-3s  %12llu  %12llu  %12llu  %12llu  %12llu  %12llu\n",
            p.index, p.value, unsigned(p.plane), std::string(PathStateName(p.state)).c_str(),
            p.active ? "yes" : "no", static_cast<unsigned long long>(p.sent),
            static_cast<unsigned long long>(p.sacked), static_cast<unsigned long long>(p.nacked),
            static_cast<unsigned long long>(p.timeouts), static_cast<unsigned long long>(p.ecn),
            static_cast<unsigned long long>(p.losses));
        os << line;
    }
}

void JsonConn(JsonWriter& j, const Conn& c, bool with_paths) {
    j.BeginObject();
    j.Key("qpn").Uint(c.qpn);
    j.Key("peer_qpn").Uint(c.peer_qpn);
    j.Key("local").String(AddrToString(c.local));
    j.Key("local_service").Uint(c.local_service);
    j.Key("peer").String(AddrToString(c.peer));
    j.Key("peer_service").Uint(c.peer_service);
    j.Key("conn_id").Uint(c.local_conn_id);
    j.Key("peer_conn_id").Uint(c.peer_conn_id);
    j.Key("state").String(ConnStateName(c.state));
    j.Key("cwnd").Uint(c.cwnd);
    j.Key("srtt_ns").Uint(c.srtt_ns);
    j.Key("tx_pkts").Uint(c.tx_pkts);
    j.Key("tx_bytes").Uint(c.tx_bytes);
    j.Key("retransmits").Uint(c.retransmits);
    j.Key("timeouts").Uint(c.timeouts);
    j.Key("events_dropped").Uint(c.events_dropped);
    j.Key("n_evs").Uint(c.n_evs);
    j.Key("rmem_alloc").Uint(c.rmem_alloc);
    j.Key("rmem_unread").Uint(c.rmem_unread);
    j.Key("wmem_queued").Uint(c.wmem_queued);
    j.Key("wmem_kept").Uint(c.wmem_kept);
    j.Key("mem_charged").Uint(c.mem_charged);
    j.Key("fwd_alloc").Uint(c.fwd_alloc);
    j.Key("wmem_alloc").Uint(c.wmem_alloc);
    j.Key("rcvbuf").Uint(c.rcvbuf);
    j.Key("sndbuf").Uint(c.sndbuf);
    j.Key("planes").BeginArray();
    for (const auto& p : c.planes) {
        j.BeginObject();
        j.Key("id").Uint(p.id);
        j.Key("up").Bool(p.up);
        j.Key("evs").Uint(p.n_evs);
        j.Key("active").Uint(p.n_active);
        j.Key("good").Uint(p.n_good);
        j.Key("bad").Uint(p.n_bad);
        j.Key("sent").Uint(p.sent);
        j.Key("sacked").Uint(p.sacked);
        j.Key("nacked").Uint(p.nacked);
        j.Key("timeouts").Uint(p.timeouts);
        j.EndObject();
    }
    j.EndArray();
    if (with_paths) {
        j.Key("paths").BeginArray();
        for (const auto& p : c.paths) {
            j.BeginObject();
            j.Key("index").Uint(p.index);
            j.Key("ev").Uint(p.value);
            j.Key("plane").Uint(p.plane);
            j.Key("state").String(PathStateName(p.state));
            j.Key("active").Bool(p.active);
            j.Key("sent").Uint(p.sent);
            j.Key("sacked").Uint(p.sacked);
            j.Key("nacked").Uint(p.nacked);
            j.Key("timeouts").Uint(p.timeouts);
            j.Key("ecn").Uint(p.ecn);
            j.Key("losses").Uint(p.losses);
            j.EndObject();
        }
        j.EndArray();
    }
    j.EndObject();
}

void PrintConnEvent(std::ostream& os, std::string_view event, const Conn& c) {
    os << '[' << event << "] qpn " << c.qpn << " peer-qpn " << c.peer_qpn << " local "
       << Endpoint(c.local, c.local_service) << " peer " << Endpoint(c.peer, c.peer_service)
       << " id " << c.local_conn_id << " peer-id " << c.peer_conn_id << " state "
       << ConnStateName(c.state);
    if (event == "conn-down") os << " error " << c.error;
    for (const auto& p : c.paths)
        os << " ev " << p.index << ' ' << PathStateName(p.state) << (p.active ? "" : " inactive");
    if (c.ev_lost) os << " lost " << c.ev_lost;
    os << '\n';
}

void JsonConnEvent(JsonWriter& j, std::string_view event, const Conn& c) {
    j.BeginObject();
    j.Key("event").String(event);
    j.Key("qpn").Uint(c.qpn);
    j.Key("peer_qpn").Uint(c.peer_qpn);
    j.Key("local").String(AddrToString(c.local));
    j.Key("local_service").Uint(c.local_service);
    j.Key("peer").String(AddrToString(c.peer));
    j.Key("peer_service").Uint(c.peer_service);
    j.Key("conn_id").Uint(c.local_conn_id);
    j.Key("peer_conn_id").Uint(c.peer_conn_id);
    j.Key("state").String(ConnStateName(c.state));
    if (event == "conn-down") j.Key("error").Uint(c.error);
    if (event == "path-change") {
        j.Key("paths").BeginArray();
        for (const auto& p : c.paths) {
            j.BeginObject();
            j.Key("index").Uint(p.index);
            j.Key("ev").Uint(p.value);
            j.Key("plane").Uint(p.plane);
            j.Key("state").String(PathStateName(p.state));
            j.Key("active").Bool(p.active);
            j.EndObject();
        }
        j.EndArray();
        j.Key("lost").Uint(c.ev_lost);
    }
    j.EndObject();
}

uint32_t Probe::Sent() const {
    return static_cast<uint32_t>(std::count_if(results.begin(), results.end(),
                                               [](const ProbeResult& r) { return !r.error; }));
}

uint32_t Probe::Answered() const {
    return static_cast<uint32_t>(std::count_if(
        results.begin(), results.end(), [](const ProbeResult& r) { return r.rtt_ns.has_value(); }));
}

namespace {

std::string Millis(uint64_t ns) {
    char buf[32];
    std::snprintf(buf, sizeof(buf), "%.3f", static_cast<double>(ns) / 1e6);
    return buf;
}

// "plane 0 path 1", "plane 0", "host route".
std::string ProbeWhere(const ProbeResult& r) {
    if (!r.plane) return "host route";
    std::string s = "plane " + std::to_string(*r.plane);
    if (r.path) s += " path " + std::to_string(*r.path);
    return s;
}

}  // namespace

void PrintProbe(std::ostream& os, const Probe& p) {
    os << "probe " << AddrToString(p.peer) << ": " << p.Sent() << " sent, " << p.Answered()
       << " answered";
    uint64_t lo = UINT64_MAX, hi = 0, sum = 0;
    for (const ProbeResult& r : p.results) {
        if (!r.rtt_ns) continue;
        lo = std::min(lo, *r.rtt_ns);
        hi = std::max(hi, *r.rtt_ns);
        sum += *r.rtt_ns;
    }
    if (p.Answered())
        os << ", rtt min/avg/max " << Millis(lo) << '/' << Millis(sum / p.Answered()) << '/'
           << Millis(hi) << " ms";
    os << '\n';
    char ev[16];
    for (const ProbeResult& r : p.results) {
        std::snprintf(ev, sizeof(ev), "0x%08x", r.ev);
        os << "  " << ProbeWhere(r) << " ev " << ev << " sport " << (r.ev & 0xffff);
        if (r.error)
            os << " not sent: " << std::strerror(static_cast<int>(r.error));
        else if (r.rtt_ns)
            os << " rtt " << Millis(*r.rtt_ns) << " ms";
        else
            os << " lost";
        os << '\n';
    }
}

void JsonProbe(JsonWriter& j, const Probe& p) {
    j.BeginObject();
    j.Key("peer").String(AddrToString(p.peer));
    j.Key("sent").Uint(p.Sent());
    j.Key("answered").Uint(p.Answered());
    j.Key("probes").BeginArray();
    for (const ProbeResult& r : p.results) {
        j.BeginObject();
        if (r.plane) j.Key("plane").Uint(*r.plane);
        if (r.path) j.Key("path").Uint(*r.path);
        j.Key("ev").Uint(r.ev);
        j.Key("sport").Uint(r.ev & 0xffff);
        if (r.rtt_ns) j.Key("rtt_ns").Uint(*r.rtt_ns);
        if (r.error) j.Key("error").String(std::strerror(static_cast<int>(r.error)));
        j.EndObject();
    }
    j.EndArray();
    j.EndObject();
}

}  // namespace mrcctl
