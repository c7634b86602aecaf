// SPDX-License-Identifier: GPL-2.0
// mrcctl - configure MRC (planes, routes, profiles) through the "mrc" generic
// netlink family. See Documentation/man/mrcctl.8.
#include <fcntl.h>
#include <linux/mrc.h>
#include <sched.h>
#include <signal.h>
#include <unistd.h>

#include <array>
#include <cerrno>
#include <cstdio>
#include <cstring>
#include <ctime>
#include <fstream>
#include <iostream>
#include <sstream>
#include <string>
#include <vector>

#include "grammar.h"
#include "netlink.h"
#include "output.h"

namespace mrcctl {
namespace {

volatile bool g_stop = false;

void OnSignal(int) { g_stop = true; }

// -n NETNS: like "ip -n", enter /run/netns/NETNS before opening the socket.
void EnterNetns(const std::string& name) {
    std::string path = "/run/netns/" + name;
    int fd = open(path.c_str(), O_RDONLY | O_CLOEXEC);
    if (fd < 0) {
        path = "/var/run/netns/" + name;
        fd = open(path.c_str(), O_RDONLY | O_CLOEXEC);
    }
    if (fd < 0)
        throw UsageError("cannot open network namespace \"" + name + "\": " + std::strerror(errno));
    int err = setns(fd, CLONE_NEWNET);
    int saved = errno;
    close(fd);
    if (err) throw std::runtime_error("setns " + name + ": " + std::strerror(saved));
}

// ---- decoding replies and events -------------------------------------

Plane DecodePlane(nlmsghdr* nlh) {
    Plane p;
    nl::ForEachAttr(nlh, [&](nlattr* a) {
        switch (nla_type(a)) {
            case MRC_ATTR_PLANE_ID:
                p.id = nla_get_u32(a);
                break;
            case MRC_ATTR_IFINDEX:
                p.ifindex = nla_get_u32(a);
                break;
            case MRC_ATTR_IFNAME:
                p.dev = nla_get_string(a);
                break;
            case MRC_ATTR_SADDR:
                p.addr = nl::GetAddr(a);
                break;
            case MRC_ATTR_ADMIN_UP:
                p.admin_up = nla_get_u8(a);
                break;
            case MRC_ATTR_OPER_UP:
                p.oper_up = nla_get_u8(a);
                break;
        }
    });
    return p;
}

Route DecodeRoute(nlmsghdr* nlh) {
    Route r;
    nl::ForEachAttr(nlh, [&](nlattr* a) {
        switch (nla_type(a)) {
            case MRC_ATTR_DST:
                r.dst = nl::GetAddr(a);
                break;
            case MRC_ATTR_DST_LEN:
                r.len = nla_get_u8(a);
                break;
            case MRC_ATTR_ENCAP:
                r.encap = nla_get_u8(a);
                break;
            case MRC_ATTR_PATH: {
                Path p;
                nl::ForEachNested(a, [&](nlattr* pa) {
                    switch (nla_type(pa)) {
                        case MRC_PATH_ATTR_PLANE:
                            p.plane = nla_get_u32(pa);
                            break;
                        case MRC_PATH_ATTR_USID:
                            p.usid = nl::GetAddr(pa);
                            break;
                        case MRC_PATH_ATTR_SEGS:
                            nl::ForEachNested(pa, [&](nlattr* s) {
                                if (nla_type(s) == MRC_SEG_ATTR_SID)
                                    p.segs.push_back(nl::GetAddr(s));
                            });
                            break;
                    }
                });
                r.paths.push_back(std::move(p));
                break;
            }
        }
    });
    return r;
}

Profile DecodeProfile(nlmsghdr* nlh) {
    Profile p;
    nl::ForEachAttr(nlh, [&](nlattr* a) {
        switch (nla_type(a)) {
            case MRC_ATTR_PROFILE_ID:
                p.id = nla_get_u32(a);
                break;
            case MRC_ATTR_PROFILE_EV:
                nl::ForEachNested(a, [&](nlattr* e) {
                    uint32_t v = static_cast<uint32_t>(nl::GetUint(e));
                    switch (nla_type(e)) {
                        case MRC_EV_ATTR_COUNT:
                            p.ev_count = v;
                            break;
                        case MRC_EV_ATTR_ACTIVE_PER_PLANE:
                            p.ev_active = v;
                            break;
                        case MRC_EV_ATTR_MIN_ACTIVE:
                            p.ev_min_active = v;
                            break;
                        case MRC_EV_ATTR_BURST:
                            p.burst = v;
                            break;
                        case MRC_EV_ATTR_DSCP:
                            p.dscp = v;
                            break;
                        case MRC_EV_ATTR_DSCP_CTL:
                            p.dscp_ctl = v;
                            break;
                    }
                });
                break;
            case MRC_ATTR_PROFILE_CC:
                nl::ForEachNested(a, [&](nlattr* c) {
                    uint32_t v = static_cast<uint32_t>(nl::GetUint(c));
                    switch (nla_type(c)) {
                        case MRC_CC_ATTR_ALGO:
                            p.cc_algo = static_cast<uint8_t>(v);
                            break;
                        case MRC_CC_ATTR_TARGET_DELAY_PM:
                            p.target_delay = v;
                            break;
                        case MRC_CC_ATTR_GAMMA_PM:
                            p.gamma = v;
                            break;
                        case MRC_CC_ATTR_MAX_MD_PM:
                            p.max_md = v;
                            break;
                        case MRC_CC_ATTR_MAX_WND_PM:
                            p.max_wnd = v;
                            break;
                        case MRC_CC_ATTR_INIT_WND_PM:
                            p.init_wnd = v;
                            break;
                        case MRC_CC_ATTR_LINK_MBPS:
                            p.link_mbps = v;
                            break;
                        case MRC_CC_ATTR_INIT_WND_SHARED:
                            p.init_wnd_shared = v != 0;
                            break;
                    }
                });
                break;
        }
    });
    return p;
}

constexpr std::array<const char*, __MRC_STATS_ATTR_CNT> kStatNames = {
    nullptr,
    nullptr,
    "planes",
    "routes",
    "profiles",
    "changes",
    "rejected_inval",
    "rejected_noent",
    "rejected_exist",
    "rejected_nodev",
    "rejected_nospc",
    "rejected_busy",
    "rejected_nomem",
    "rejected_other",
    "events",
    "sock_created",
    "sock_released",
    "bind_ok",
    "bind_bad_addr",
    "bind_addr_notavail",
    "bind_addr_inuse",
    "sock_bad_type",
    "rx_pkts",
    "rx_truncated",
    "rx_bad_icrc",
    "rx_bad_opcode",
    "rx_bad_header",
    "rx_unknown_qpn",
    "rx_wrong_source",
    "rx_not_ready",
    "rx_stale",
    "rx_proto_error",
    "rx_out_of_window",
    "rx_duplicate",
    "rx_no_buffer",
    "rx_bad_handshake",
    "rx_no_memory",
    "rx_bad_address",
    "tx_pkts",
    "tx_errors",
    "tx_no_route",
    "connect_requests",
    "connect_request_retrans",
    "connect_responses",
    "connect_refused",
    "connect_backlog_drops",
    "conn_established",
    "connect_timeouts",
    "conn_failed",
    "conn_closed",
    "rx_bad_srh",
    "timer_stalls",
    "tx_port_status",
    "rx_port_status",
    "conn_aborted",
    "tx_local_drops",
    "tx_mem_limit",
    "rx_mem_limit",
    "connect_icmp_errors",
    "connect_cookies_sent",
    "connect_cookies_bad",
    "handshake_answers_limited",
    "pkt_too_big",
    "pkt_too_big_ignored",
    "pmtu_retransmits",
    "orphans_aborted",
    "idle_children_aborted",
    "port_status_retransmits",
    "port_status_acked",
    "port_status_unmatched",
    "rx_flowcells",
    "rx_held",
    "rx_copied",
    "ev_probes_answered",
    "rcvbuf_grown",
    "sndbuf_grown",
    "tx_local_congestion",
    "tx_queue_throttled",
    "timer_idle",
    "tx_pages_reused",
    "tx_frag_pages_reused",
    "rx_backlog",
    "rx_steered",
    "ev_probes_sent",
    "ev_probes_replied",
    "tx_flowcells_in_place",
    "tx_flowcells_autosized",
};
static_assert(MRC_STATS_ATTR_TX_FLOWCELLS_AUTOSIZED == kStatNames.size() - 1,
              "a name for every stats attribute");

Stats DecodeStats(nlmsghdr* nlh) {
    Stats s;
    nl::ForEachAttr(nlh, [&](nlattr* a) {
        if (nla_type(a) != MRC_ATTR_STATS) return;
        nl::ForEachNested(a, [&](nlattr* c) {
            int t = nla_type(c);
            if (t < static_cast<int>(kStatNames.size()) && kStatNames[t])
                s.emplace_back(kStatNames[t], nl::GetUint(c));
        });
    });
    return s;
}

// The reply of MRC_CMD_EV_PROBE.
Probe DecodeProbe(nlmsghdr* nlh) {
    Probe p;
    nl::ForEachAttr(nlh, [&](nlattr* top) {
        if (nla_type(top) == MRC_ATTR_PROBE_PEER) p.peer = nl::GetAddr(top);
        if (nla_type(top) != MRC_ATTR_PROBE_RESULT) return;
        ProbeResult r;
        nl::ForEachNested(top, [&](nlattr* a) {
            const uint64_t v = nl::GetUint(a);
            switch (nla_type(a)) {
                case MRC_PROBE_ATTR_PLANE:
                    r.plane = static_cast<uint32_t>(v);
                    break;
                case MRC_PROBE_ATTR_PATH:
                    r.path = static_cast<uint32_t>(v);
                    break;
                case MRC_PROBE_ATTR_EV:
                    r.ev = static_cast<uint32_t>(v);
                    break;
                case MRC_PROBE_ATTR_RTT_NS:
                    r.rtt_ns = v;
                    break;
                case MRC_PROBE_ATTR_ERROR:
                    r.error = static_cast<uint32_t>(v);
                    break;
                default:
                    break;
            }
        });
        p.results.push_back(r);
    });
    return p;
}

// One part of a connection (MRC_CMD_CONN_GET reply) merged into `conns`: a
// connection with many EVs comes as several messages with the same QPN.
void DecodeConnPart(nlmsghdr* nlh, std::vector<Conn>& conns) {
    nl::ForEachAttr(nlh, [&](nlattr* top) {
        if (nla_type(top) != MRC_ATTR_CONN) return;
        Conn c;
        std::vector<ConnPath> paths;
        std::vector<ConnPlane> planes;
        nl::ForEachNested(top, [&](nlattr* a) {
            switch (nla_type(a)) {
                case MRC_CONN_ATTR_QPN:
                    c.qpn = static_cast<uint32_t>(nl::GetUint(a));
                    break;
                case MRC_CONN_ATTR_PEER_QPN:
                    c.peer_qpn = static_cast<uint32_t>(nl::GetUint(a));
                    break;
                case MRC_CONN_ATTR_LOCAL_ADDR:
                    c.local = nl::GetAddr(a);
                    break;
                case MRC_CONN_ATTR_PEER_ADDR:
                    c.peer = nl::GetAddr(a);
                    break;
                case MRC_CONN_ATTR_LOCAL_SERVICE:
                    c.local_service = static_cast<uint16_t>(nl::GetUint(a));
                    break;
                case MRC_CONN_ATTR_PEER_SERVICE:
                    c.peer_service = static_cast<uint16_t>(nl::GetUint(a));
                    break;
                case MRC_CONN_ATTR_LOCAL_CONN_ID:
                    c.local_conn_id = static_cast<uint16_t>(nl::GetUint(a));
                    break;
                case MRC_CONN_ATTR_PEER_CONN_ID:
                    c.peer_conn_id = static_cast<uint16_t>(nl::GetUint(a));
                    break;
                case MRC_CONN_ATTR_STATE:
                    c.state = static_cast<uint8_t>(nl::GetUint(a));
                    break;
                case MRC_CONN_ATTR_CWND:
                    c.cwnd = static_cast<uint32_t>(nl::GetUint(a));
                    break;
                case MRC_CONN_ATTR_SRTT_NS:
                    c.srtt_ns = nl::GetUint(a);
                    break;
                case MRC_CONN_ATTR_RETRANSMITS:
                    c.retransmits = nl::GetUint(a);
                    break;
                case MRC_CONN_ATTR_TIMEOUTS:
                    c.timeouts = nl::GetUint(a);
                    break;
                case MRC_CONN_ATTR_TX_PKTS:
                    c.tx_pkts = nl::GetUint(a);
                    break;
                case MRC_CONN_ATTR_TX_BYTES:
                    c.tx_bytes = nl::GetUint(a);
                    break;
                case MRC_CONN_ATTR_EVENTS_DROPPED:
                    c.events_dropped = nl::GetUint(a);
                    break;
                case MRC_CONN_ATTR_N_EVS:
                    c.n_evs = static_cast<uint32_t>(nl::GetUint(a));
                    break;
                case MRC_CONN_ATTR_ERROR:
                    c.error = static_cast<uint32_t>(nl::GetUint(a));
                    break;
                case MRC_CONN_ATTR_EV_LOST:
                    c.ev_lost = static_cast<uint32_t>(nl::GetUint(a));
                    break;
                case MRC_CONN_ATTR_RMEM_ALLOC:
                    c.rmem_alloc = nl::GetUint(a);
                    break;
                case MRC_CONN_ATTR_RMEM_UNREAD:
                    c.rmem_unread = nl::GetUint(a);
                    break;
                case MRC_CONN_ATTR_WMEM_QUEUED:
                    c.wmem_queued = nl::GetUint(a);
                    break;
                case MRC_CONN_ATTR_WMEM_KEPT:
                    c.wmem_kept = nl::GetUint(a);
                    break;
                case MRC_CONN_ATTR_MEM_CHARGED:
                    c.mem_charged = nl::GetUint(a);
                    break;
                case MRC_CONN_ATTR_FWD_ALLOC:
                    c.fwd_alloc = static_cast<uint32_t>(nl::GetUint(a));
                    break;
                case MRC_CONN_ATTR_WMEM_ALLOC:
                    c.wmem_alloc = static_cast<uint32_t>(nl::GetUint(a));
                    break;
                case MRC_CONN_ATTR_RCVBUF:
                    c.rcvbuf = static_cast<uint32_t>(nl::GetUint(a));
                    break;
                case MRC_CONN_ATTR_SNDBUF:
                    c.sndbuf = static_cast<uint32_t>(nl::GetUint(a));
                    break;
                case MRC_CONN_ATTR_PLANE: {
                    ConnPlane p;
                    nl::ForEachNested(a, [&](nlattr* f) {
                        uint64_t v = nl::GetUint(f);
                        switch (nla_type(f)) {
                            case MRC_CONN_PLANE_ATTR_ID:
                                p.id = static_cast<uint8_t>(v);
                                break;
                            case MRC_CONN_PLANE_ATTR_UP:
                                p.up = v;
                                break;
                            case MRC_CONN_PLANE_ATTR_N_EVS:
                                p.n_evs = static_cast<uint32_t>(v);
                                break;
                            case MRC_CONN_PLANE_ATTR_N_ACTIVE:
                                p.n_active = static_cast<uint32_t>(v);
                                break;
                            case MRC_CONN_PLANE_ATTR_N_GOOD:
                                p.n_good = static_cast<uint32_t>(v);
                                break;
                            case MRC_CONN_PLANE_ATTR_N_BAD:
                                p.n_bad = static_cast<uint32_t>(v);
                                break;
                            case MRC_CONN_PLANE_ATTR_SENT:
                                p.sent = v;
                                break;
                            case MRC_CONN_PLANE_ATTR_SACKED:
                                p.sacked = v;
                                break;
                            case MRC_CONN_PLANE_ATTR_NACKED:
                                p.nacked = v;
                                break;
                            case MRC_CONN_PLANE_ATTR_TIMEOUTS:
                                p.timeouts = v;
                                break;
                        }
                    });
                    planes.push_back(p);
                    break;
                }
                case MRC_CONN_ATTR_EV: {
                    ConnPath p;
                    nl::ForEachNested(a, [&](nlattr* f) {
                        uint64_t v = nl::GetUint(f);
                        switch (nla_type(f)) {
                            case MRC_CONN_EV_ATTR_INDEX:
                                p.index = static_cast<uint32_t>(v);
                                break;
                            case MRC_CONN_EV_ATTR_VALUE:
                                p.value = static_cast<uint32_t>(v);
                                break;
                            case MRC_CONN_EV_ATTR_PLANE:
                                p.plane = static_cast<uint8_t>(v);
                                break;
                            case MRC_CONN_EV_ATTR_STATE:
                                p.state = static_cast<uint8_t>(v);
                                break;
                            case MRC_CONN_EV_ATTR_ACTIVE:
                                p.active = v;
                                break;
                            case MRC_CONN_EV_ATTR_SENT:
                                p.sent = v;
                                break;
                            case MRC_CONN_EV_ATTR_SACKED:
                                p.sacked = v;
                                break;
                            case MRC_CONN_EV_ATTR_NACKED:
                                p.nacked = v;
                                break;
                            case MRC_CONN_EV_ATTR_TIMEOUTS:
                                p.timeouts = v;
                                break;
                            case MRC_CONN_EV_ATTR_ECN:
                                p.ecn = v;
                                break;
                            case MRC_CONN_EV_ATTR_LOSSES:
                                p.losses = v;
                                break;
                        }
                    });
                    paths.push_back(p);
                    break;
                }
            }
        });
        if (conns.empty() || conns.back().qpn != c.qpn) {
            c.planes = std::move(planes);
            c.paths = std::move(paths);
            conns.push_back(std::move(c));
        } else {
            Conn& prev = conns.back();
            prev.paths.insert(prev.paths.end(), paths.begin(), paths.end());
            if (prev.planes.empty()) prev.planes = std::move(planes);
        }
    });
}

// ---- commands ----------------------------------------------------------

void PutPlaneArgs(nl::Request& req, const PlaneArgs& p) {
    if (p.id) req.PutU32(MRC_ATTR_PLANE_ID, *p.id, "id");
    if (p.ifindex) req.PutU32(MRC_ATTR_IFINDEX, *p.ifindex, "ifindex");
    if (p.dev) req.PutString(MRC_ATTR_IFNAME, *p.dev, "dev");
    if (p.addr) req.PutAddr(MRC_ATTR_SADDR, *p.addr, "addr");
    if (p.up) req.PutU8(MRC_ATTR_ADMIN_UP, *p.up, "up/down");
}

void PutRouteArgs(nl::Request& req, const RouteArgs& r) {
    req.PutAddr(MRC_ATTR_DST, r.dst, r.has_len ? "prefix" : "address");
    if (r.has_len) req.PutU8(MRC_ATTR_DST_LEN, r.len, "prefix length");
    if (r.encap) req.PutU8(MRC_ATTR_ENCAP, *r.encap, "encap");
    for (size_t i = 0; i < r.paths.size(); i++) {
        const PathArgs& p = r.paths[i];
        std::string n = "path " + std::to_string(i + 1);
        nlattr* nest = req.BeginNest(MRC_ATTR_PATH, n);
        req.PutU32(MRC_PATH_ATTR_PLANE, p.plane, n + " plane");
        if (!p.segs.empty()) {
            nlattr* segs = req.BeginNest(MRC_PATH_ATTR_SEGS, n + " segs");
            for (size_t k = 0; k < p.segs.size(); k++)
                req.PutAddr(MRC_SEG_ATTR_SID, p.segs[k], n + " SID " + std::to_string(k + 1));
            req.EndNest(segs);
        }
        if (p.usid) req.PutAddr(MRC_PATH_ATTR_USID, *p.usid, n + " usid");
        req.EndNest(nest);
    }
    if (r.replace) req.PutFlag(MRC_ATTR_REPLACE, "replace");
}

void PutProfileArgs(nl::Request& req, const ProfileArgs& p) {
    req.PutU32(MRC_ATTR_PROFILE_ID, *p.id, "id");
    if (p.has_ev()) {
        nlattr* ev = req.BeginNest(MRC_ATTR_PROFILE_EV, "ev");
        if (p.ev_count) req.PutU32(MRC_EV_ATTR_COUNT, *p.ev_count, "ev-count");
        if (p.ev_active) req.PutU32(MRC_EV_ATTR_ACTIVE_PER_PLANE, *p.ev_active, "ev-active");
        if (p.ev_min_active) req.PutU32(MRC_EV_ATTR_MIN_ACTIVE, *p.ev_min_active, "ev-min-active");
        if (p.burst) req.PutU32(MRC_EV_ATTR_BURST, *p.burst, "burst");
        if (p.dscp) req.PutU32(MRC_EV_ATTR_DSCP, *p.dscp, "dscp");
        if (p.dscp_ctl) req.PutU32(MRC_EV_ATTR_DSCP_CTL, *p.dscp_ctl, "dscp-ctl");
        req.EndNest(ev);
    }
    if (p.has_cc()) {
        nlattr* cc = req.BeginNest(MRC_ATTR_PROFILE_CC, "cc");
        if (p.cc_algo) req.PutU8(MRC_CC_ATTR_ALGO, *p.cc_algo, "cc-algo");
        if (p.target_delay)
            req.PutU32(MRC_CC_ATTR_TARGET_DELAY_PM, *p.target_delay, "target-delay");
        if (p.gamma) req.PutU32(MRC_CC_ATTR_GAMMA_PM, *p.gamma, "gamma");
        if (p.max_md) req.PutU32(MRC_CC_ATTR_MAX_MD_PM, *p.max_md, "max-md");
        if (p.max_wnd) req.PutU32(MRC_CC_ATTR_MAX_WND_PM, *p.max_wnd, "max-wnd");
        if (p.init_wnd) req.PutU32(MRC_CC_ATTR_INIT_WND_PM, *p.init_wnd, "init-wnd");
        if (p.link_mbps) req.PutU32(MRC_CC_ATTR_LINK_MBPS, *p.link_mbps, "link-rate");
        if (p.init_wnd_shared)
            req.PutU8(MRC_CC_ATTR_INIT_WND_SHARED, *p.init_wnd_shared ? 1 : 0, "init-wnd-shared");
        req.EndNest(cc);
    }
}

// Show commands: collect, then print text lines or one JSON array.
template <typename T, typename Decode, typename Text, typename Json>
void Show(nl::Client& cl, const nl::Request& req, const Command& c, Decode decode, Text text,
          Json to_json) {
    std::vector<T> objs;
    cl.Run(req, [&](nlmsghdr* nlh) { objs.push_back(decode(nlh)); });
    if (c.json) {
        JsonWriter j(std::cout);
        j.Pretty(c.pretty);  // -p; monitor keeps one event per line
        j.BeginArray();
        for (const auto& o : objs) to_json(j, o);
        j.EndArray();
        std::cout << '\n';
    } else {
        for (const auto& o : objs) text(std::cout, o);
    }
}

const char* EventName(uint8_t cmd) {
    switch (cmd) {
        case MRC_CMD_PLANE_ADD_NTF:
            return "plane-add";
        case MRC_CMD_PLANE_DEL_NTF:
            return "plane-del";
        case MRC_CMD_PLANE_CHANGE_NTF:
            return "plane-change";
        case MRC_CMD_ROUTE_ADD_NTF:
            return "route-add";
        case MRC_CMD_ROUTE_DEL_NTF:
            return "route-del";
        case MRC_CMD_ROUTE_CHANGE_NTF:
            return "route-change";
        case MRC_CMD_CONN_UP_NTF:
            return "conn-up";
        case MRC_CMD_CONN_DOWN_NTF:
            return "conn-down";
        case MRC_CMD_PATH_CHANGE_NTF:
            return "path-change";
        default:
            return nullptr;
    }
}

void PrintEvent(std::ostream& os, nlmsghdr* nlh, bool json) {
    auto* gh = static_cast<genlmsghdr*>(nlmsg_data(nlh));
    const char* name = EventName(gh->cmd);
    bool is_plane = gh->cmd == MRC_CMD_PLANE_ADD_NTF || gh->cmd == MRC_CMD_PLANE_DEL_NTF ||
                    gh->cmd == MRC_CMD_PLANE_CHANGE_NTF;
    bool is_conn = gh->cmd == MRC_CMD_CONN_UP_NTF || gh->cmd == MRC_CMD_CONN_DOWN_NTF ||
                   gh->cmd == MRC_CMD_PATH_CHANGE_NTF;
    if (name && is_conn) {
        std::vector<Conn> conns;
        DecodeConnPart(nlh, conns);
        Conn c = conns.empty() ? Conn{} : conns.front();
        if (json) {
            JsonWriter j(os);
            JsonConnEvent(j, name, c);
            os << '\n';
        } else {
            PrintConnEvent(os, name, c);
        }
    } else if (!name) {
        // A newer kernel's event: say so rather than dropping it silently.
        if (json) {
            JsonWriter j(os);
            j.BeginObject().Field("event", "unknown").Field("cmd", unsigned(gh->cmd)).EndObject();
            os << '\n';
        } else {
            os << "[unknown event " << unsigned(gh->cmd) << "]\n";
        }
    } else if (json) {
        JsonWriter j(os);
        j.BeginObject().Key("event").String(name);
        if (is_plane) {
            j.Key("plane");
            JsonPlane(j, DecodePlane(nlh));
        } else {
            j.Key("route");
            JsonRoute(j, DecodeRoute(nlh));
        }
        j.EndObject();
        os << '\n';
    } else {
        os << '[' << name << "] ";
        if (is_plane)
            PrintPlane(os, DecodePlane(nlh));
        else
            PrintRoute(os, DecodeRoute(nlh));
    }
    os.flush();
}

// Which "monitor OBJECT" an event belongs to.
Object EventObject(uint8_t cmd) {
    switch (cmd) {
        case MRC_CMD_PLANE_ADD_NTF:
        case MRC_CMD_PLANE_DEL_NTF:
        case MRC_CMD_PLANE_CHANGE_NTF:
            return Object::kPlane;
        case MRC_CMD_ROUTE_ADD_NTF:
        case MRC_CMD_ROUTE_DEL_NTF:
        case MRC_CMD_ROUTE_CHANGE_NTF:
            return Object::kRoute;
        default:
            return Object::kConn;  // conn-up, conn-down, path-change, newer ones
    }
}

// "2026-11-25T14:30:01.123456Z": UTC, so that logs of several hosts compare.
std::string Timestamp() {
    timespec ts{};
    clock_gettime(CLOCK_REALTIME, &ts);
    tm t{};
    gmtime_r(&ts.tv_sec, &t);
    char buf[64];
    size_t n = std::strftime(buf, sizeof(buf), "%Y-%m-%dT%H:%M:%S", &t);
    std::snprintf(buf + n, sizeof(buf) - n, ".%06ldZ", ts.tv_nsec / 1000);
    return buf;
}

// One event as monitor prints it: filtered by OBJECT, with -t its time (a
// "[TIME] " prefix, or a leading "time" member in JSON).
void MonitorEvent(const Command& c, nlmsghdr* nlh) {
    auto* gh = static_cast<genlmsghdr*>(nlmsg_data(nlh));
    if (c.monitor_only && EventObject(gh->cmd) != *c.monitor_only) return;
    std::ostringstream ev;
    PrintEvent(ev, nlh, c.json);
    std::string line = ev.str();
    if (c.timestamp && !line.empty()) {
        if (c.json)
            line = "{\"time\":\"" + Timestamp() + "\"," + line.substr(1);
        else
            line = "[" + Timestamp() + "] " + line;
    }
    std::cout << line;
    std::cout.flush();
}

// "OBJECT flush": every object of a dump deleted, one request each (the
// family has no bulk delete). Profile 0 is the namespace default and stays.
void Flush(nl::Client& cl, int fam, Object o) {
    switch (o) {
        case Object::kPlane: {
            std::vector<Plane> v;
            cl.Run(nl::Request(fam, MRC_CMD_PLANE_GET, true),
                   [&](nlmsghdr* nlh) { v.push_back(DecodePlane(nlh)); });
            for (const Plane& p : v) {
                nl::Request r(fam, MRC_CMD_PLANE_DEL, false);
                r.PutU32(MRC_ATTR_PLANE_ID, p.id, "id");
                cl.Run(r, nullptr);
            }
            break;
        }
        case Object::kRoute: {
            std::vector<Route> v;
            cl.Run(nl::Request(fam, MRC_CMD_ROUTE_GET, true),
                   [&](nlmsghdr* nlh) { v.push_back(DecodeRoute(nlh)); });
            for (const Route& rt : v) {
                RouteArgs a;
                a.has_prefix = true;
                a.dst = rt.dst;
                a.len = rt.len;
                nl::Request r(fam, MRC_CMD_ROUTE_DEL, false);
                PutRouteArgs(r, a);
                cl.Run(r, nullptr);
            }
            break;
        }
        case Object::kProfile: {
            std::vector<Profile> v;
            cl.Run(nl::Request(fam, MRC_CMD_PROFILE_GET, true),
                   [&](nlmsghdr* nlh) { v.push_back(DecodeProfile(nlh)); });
            for (const Profile& p : v) {
                if (p.id == 0) continue;
                nl::Request r(fam, MRC_CMD_PROFILE_DEL, false);
                r.PutU32(MRC_ATTR_PROFILE_ID, p.id, "id");
                cl.Run(r, nullptr);
            }
            break;
        }
        default:
            break;
    }
}

// "mrcctl save": the namespace's configuration as a batch file that
// "mrcctl -b" applies to a namespace without one (planes first: profiles
// and routes name them; profile 0 always exists, so it is "set").
void Save(nl::Client& cl, int fam) {
    std::vector<Plane> planes;
    std::vector<Profile> profiles;
    std::vector<Route> routes;
    cl.Run(nl::Request(fam, MRC_CMD_PLANE_GET, true),
           [&](nlmsghdr* nlh) { planes.push_back(DecodePlane(nlh)); });
    cl.Run(nl::Request(fam, MRC_CMD_PROFILE_GET, true),
           [&](nlmsghdr* nlh) { profiles.push_back(DecodeProfile(nlh)); });
    cl.Run(nl::Request(fam, MRC_CMD_ROUTE_GET, true),
           [&](nlmsghdr* nlh) { routes.push_back(DecodeRoute(nlh)); });
    std::cout << "# mrcctl save (mrcctl " MRC_VERSION "): restore with mrcctl -b FILE\n";
    for (const Plane& p : planes) {
        std::cout << "plane add ";
        PrintPlane(std::cout, p);
    }
    for (const Profile& p : profiles) {
        std::cout << (p.id == 0 ? "profile set " : "profile add ");
        PrintProfile(std::cout, p);
    }
    for (const Route& r : routes) {
        std::cout << "route add ";
        PrintRoute(std::cout, r);
    }
    std::cout.flush();
}

int Execute(const Command& c) {
    if (c.object == Object::kHelp) {
        std::cout << UsageText(c.help_topic);
        return kExitOk;
    }
    if (!c.netns.empty()) EnterNetns(c.netns);
    nl::Client cl;
    const int fam = cl.family();
    const bool show = c.verb == Verb::kShow;
    if (c.verb == Verb::kFlush) {
        Flush(cl, fam, c.object);
        return kExitOk;
    }

    switch (c.object) {
        case Object::kPlane: {
            static constexpr std::array<uint8_t, 5> kCmd = {0, MRC_CMD_PLANE_ADD, MRC_CMD_PLANE_DEL,
                                                            MRC_CMD_PLANE_SET, MRC_CMD_PLANE_GET};
            bool dump = show && !c.plane.id;
            nl::Request req(fam, kCmd[static_cast<int>(c.verb)], dump);
            PutPlaneArgs(req, c.plane);
            if (show)
                Show<Plane>(cl, req, c, DecodePlane, PrintPlane, JsonPlane);
            else
                cl.Run(req, nullptr);
            break;
        }
        case Object::kRoute: {
            uint8_t cmd = c.verb == Verb::kAdd   ? MRC_CMD_ROUTE_ADD
                          : c.verb == Verb::kDel ? MRC_CMD_ROUTE_DEL
                                                 : MRC_CMD_ROUTE_GET;
            bool dump = show && !c.route.has_prefix;
            nl::Request req(fam, cmd, dump);
            if (!dump) PutRouteArgs(req, c.route);
            if (show || c.verb == Verb::kGet)
                Show<Route>(cl, req, c, DecodeRoute, PrintRoute, JsonRoute);
            else
                cl.Run(req, nullptr);
            break;
        }
        case Object::kProfile: {
            static constexpr std::array<uint8_t, 5> kCmd = {
                0, MRC_CMD_PROFILE_ADD, MRC_CMD_PROFILE_DEL, MRC_CMD_PROFILE_SET,
                MRC_CMD_PROFILE_GET};
            bool dump = show && !c.profile.id;
            nl::Request req(fam, kCmd[static_cast<int>(c.verb)], dump);
            if (!dump) PutProfileArgs(req, c.profile);
            if (show)
                Show<Profile>(cl, req, c, DecodeProfile, PrintProfile, JsonProfile);
            else
                cl.Run(req, nullptr);
            break;
        }
        case Object::kStats: {
            nl::Request req(fam, MRC_CMD_STATS_GET, false);
            Stats st;
            cl.Run(req, [&](nlmsghdr* nlh) { st = DecodeStats(nlh); });
            if (c.json) {
                JsonWriter j(std::cout);
                j.Pretty(c.pretty);
                JsonStats(j, st);
                std::cout << '\n';
            } else {
                PrintStats(std::cout, st);
            }
            break;
        }
        case Object::kConn:
        case Object::kPath: {
            nl::Request req(fam, MRC_CMD_CONN_GET, true);
            if (c.qpn) req.PutU32(MRC_ATTR_CONN_QPN, *c.qpn, "qpn");
            std::vector<Conn> conns;
            cl.Run(req, [&](nlmsghdr* nlh) { DecodeConnPart(nlh, conns); });
            const bool paths = c.object == Object::kPath;
            if (c.json) {
                JsonWriter j(std::cout);
                j.Pretty(c.pretty);
                j.BeginArray();
                for (const auto& o : conns) JsonConn(j, o, paths);
                j.EndArray();
                std::cout << '\n';
            } else {
                for (const auto& o : conns) {
                    if (paths)
                        PrintConnPaths(std::cout, o);
                    else
                        PrintConn(std::cout, o);
                }
            }
            break;
        }
        case Object::kMonitor: {
            struct sigaction sa = {};
            sa.sa_handler = OnSignal;  // no SA_RESTART: poll() returns EINTR
            sigaction(SIGINT, &sa, nullptr);
            sigaction(SIGTERM, &sa, nullptr);
            cl.Monitor([&](nlmsghdr* nlh) { MonitorEvent(c, nlh); }, &g_stop,
                       [&] {
                           // Like "ip monitor": report the gap, keep listening.
                           if (c.json) {
                               JsonWriter j(std::cout);
                               j.BeginObject().Field("event", "overrun").EndObject();
                               std::cout << '\n';
                           } else {
                               std::cout << "[overrun] events lost, resynchronise with show\n";
                           }
                           std::cout.flush();
                       });
            break;
        }
        case Object::kSave:
            Save(cl, fam);
            break;
        case Object::kProbe: {
            nl::Request req(fam, MRC_CMD_EV_PROBE, false);
            req.PutAddr(MRC_ATTR_PROBE_PEER, c.probe.peer, "address");
            if (c.probe.evs) req.PutU32(MRC_ATTR_PROBE_EVS, *c.probe.evs, "evs");
            if (c.probe.timeout_ms)
                req.PutU32(MRC_ATTR_PROBE_TIMEOUT_MS, *c.probe.timeout_ms, "timeout");
            Probe p;
            cl.Run(req, [&](nlmsghdr* nlh) { p = DecodeProbe(nlh); });
            if (c.json) {
                JsonWriter j(std::cout);
                j.Pretty(c.pretty);
                JsonProbe(j, p);
                std::cout << '\n';
            } else {
                PrintProbe(std::cout, p);
            }
            // As ping(8): a script learns of a silent path from the status.
            if (p.results.empty() || p.Answered() != p.results.size()) return kExitProbeLost;
            break;
        }
        case Object::kHelp:
        case Object::kVersion:
        case Object::kBatch:
            break;
    }
    return kExitOk;
}

// Runs one parsed command; errors are printed prefixed with `where` (empty,
// or "FILE:LINE: " in a batch). Returns the exit code.
int RunOne(const Command& cmd, const std::string& where) {
    try {
        return Execute(cmd);
    } catch (const nl::KernelError& e) {
        std::cerr << "mrcctl: " << where << CommandName(cmd) << ": " << e.what();
        if (!e.extack().empty()) std::cerr << ": " << e.extack();
        if (!e.attr().empty()) {
            std::cerr << " (" << e.attr();
            if (!e.range().empty()) std::cerr << ", " << e.range();
            std::cerr << ')';
        }
        std::cerr << '\n';
        return kExitRejected;
    } catch (const nl::FamilyMissing& e) {
        std::cerr << "mrcctl: " << where << e.what() << '\n';
        return kExitNoFamily;
    } catch (const UsageError& e) {
        std::cerr << "mrcctl: " << where << e.what() << '\n';
        return kExitUsage;
    } catch (const std::exception& e) {
        std::cerr << "mrcctl: " << where << CommandName(cmd) << ": " << e.what() << '\n';
        return kExitRejected;
    }
}

// Closes a file descriptor on scope exit.
class Fd {
  public:
    explicit Fd(int fd) : fd_(fd) {}
    Fd(const Fd&) = delete;
    Fd& operator=(const Fd&) = delete;
    ~Fd() {
        if (fd_ >= 0) close(fd_);
    }
    int get() const { return fd_; }

  private:
    int fd_;
};

// mrcctl -b FILE: one command per line, as "ip -b". The command line's -j
// and -n apply to every line that does not give its own; a line's -n lasts
// for that line only. The first error stops the batch (its exit code is
// mrcctl's) unless -force, which runs every line and exits with the first
// error's code.
int RunBatch(const Command& opts) {
    std::ifstream file;
    std::istream* in = &std::cin;
    const std::string name = opts.batch == "-" ? "<stdin>" : opts.batch;
    if (opts.batch != "-") {
        file.open(opts.batch);
        if (!file) {
            std::cerr << "mrcctl: cannot open batch file \"" << opts.batch
                      << "\": " << std::strerror(errno) << '\n';
            return kExitUsage;
        }
        in = &file;
    }
    Fd home(open("/proc/self/ns/net", O_RDONLY | O_CLOEXEC));
    if (home.get() < 0) {
        std::cerr << "mrcctl: /proc/self/ns/net: " << std::strerror(errno) << '\n';
        return kExitRejected;
    }
    int rc = kExitOk;
    std::string line;
    for (unsigned n = 1; std::getline(*in, line); ++n) {
        const std::string where = name + ":" + std::to_string(n) + ": ";
        int r;
        try {
            const std::vector<std::string> words = SplitBatchLine(line);
            if (words.empty()) continue;
            Command cmd = Parse(words);
            if (cmd.object == Object::kBatch) throw UsageError("-b inside a batch file");
            if (cmd.object == Object::kMonitor)
                throw UsageError("monitor does not end; it has no place in a batch");
            cmd.json = cmd.json || opts.json;
            cmd.pretty = cmd.pretty || opts.pretty;
            if (cmd.netns.empty()) cmd.netns = opts.netns;
            r = RunOne(cmd, where);
            if (!cmd.netns.empty() && setns(home.get(), CLONE_NEWNET)) {
                std::cerr << "mrcctl: " << where << "setns back: " << std::strerror(errno) << '\n';
                return kExitRejected;
            }
        } catch (const UsageError& e) {
            std::cerr << "mrcctl: " << where << e.what() << '\n';
            r = kExitUsage;
        }
        if (r != kExitOk) {
            if (!opts.force) return r;
            if (rc == kExitOk) rc = r;
        }
    }
    return rc;
}

}  // namespace
}  // namespace mrcctl

int main(int argc, char** argv) {
    using namespace mrcctl;
    std::vector<std::string> args(argv + 1, argv + argc);
    Command cmd;
    try {
        cmd = Parse(args);
    } catch (const UsageError& e) {
        std::cerr << "mrcctl: " << e.what() << '\n' << UsageText();
        return kExitUsage;
    }
    if (cmd.object == Object::kVersion) {
        std::cout << "mrcctl " MRC_VERSION "\n";
        return kExitOk;
    }
    if (cmd.object == Object::kBatch) return RunBatch(cmd);
    return RunOne(cmd, "");
}
