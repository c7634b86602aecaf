// SPDX-License-Identifier: GPL-2.0
// What the kernel reports (decoded), and how mrcctl prints it: one text line
// per object, or JSON (an array per show, one object per line for monitor).
#pragma once

#include <netinet/in.h>

#include <cstdint>
#include <optional>
#include <ostream>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "json_writer.h"

namespace mrcctl {

struct Plane {
    uint32_t id = 0;
    uint32_t ifindex = 0;
    std::string dev;  // empty: the device is gone
    in6_addr addr{};
    bool admin_up = false;
    bool oper_up = false;
};

struct Path {
    uint32_t plane = 0;
    std::vector<in6_addr> segs;
    std::optional<in6_addr> usid;
};

struct Route {
    in6_addr dst{};
    uint8_t len = 0;
    uint8_t encap = 0;
    std::vector<Path> paths;
};

struct Profile {
    uint32_t id = 0;
    uint32_t ev_count = 0, ev_active = 0, ev_min_active = 0, burst = 0;
    uint8_t cc_algo = 0;
    uint32_t target_delay = 0, gamma = 0, max_md = 0, max_wnd = 0, init_wnd = 0;
    uint32_t dscp = 0, dscp_ctl = 0;  // EV part; after the CC part for aggregate initialisers
    uint32_t link_mbps = 0;           // CC part, added last
    bool init_wnd_shared = true;      // CC part, added after link_mbps
};

// One EV (path) of a connection (MRC_CONN_ATTR_EV).
struct ConnPath {
    uint32_t index = 0, value = 0;
    uint8_t plane = 0, state = 0;
    bool active = false;
    uint64_t sent = 0, sacked = 0, nacked = 0, timeouts = 0, ecn = 0, losses = 0;
};

// Per-plane summary of a connection (MRC_CONN_ATTR_PLANE).
struct ConnPlane {
    uint8_t id = 0;
    bool up = false;
    uint32_t n_evs = 0, n_active = 0, n_good = 0, n_bad = 0;
    uint64_t sent = 0, sacked = 0, nacked = 0, timeouts = 0;
};

// A connection (MRC_ATTR_CONN); the EVs of all the parts of a dump merged.
struct Conn {
    uint32_t qpn = 0, peer_qpn = 0;
    in6_addr local{}, peer{};
    uint16_t local_service = 0, peer_service = 0, local_conn_id = 0, peer_conn_id = 0;
    uint8_t state = 0;
    uint32_t cwnd = 0, n_evs = 0;
    uint64_t srtt_ns = 0, retransmits = 0, timeouts = 0, tx_pkts = 0, tx_bytes = 0;
    uint64_t events_dropped = 0;
    // What the connection pins, bytes (MRC_INFO's memory fields).
    uint64_t rmem_alloc = 0, rmem_unread = 0, wmem_queued = 0, wmem_kept = 0, mem_charged = 0;
    uint32_t fwd_alloc = 0, wmem_alloc = 0, rcvbuf = 0, sndbuf = 0;
    uint32_t error = 0;    // conn-down event: errno, 0 for a close
    uint32_t ev_lost = 0;  // path-change event: changes left out
    std::vector<ConnPlane> planes;
    std::vector<ConnPath> paths;
};

// One EV probe of "mrcctl probe" (MRC_ATTR_PROBE_RESULT).
struct ProbeResult {
    std::optional<uint32_t> plane;  // absent: the host's route (no MRC route)
    std::optional<uint32_t> path;   // absent: a route without paths, or none
    uint32_t ev = 0;
    std::optional<uint64_t> rtt_ns;  // absent: not answered in time
    uint32_t error = 0;              // errno of a probe not sent
};

struct Probe {
    in6_addr peer{};
    std::vector<ProbeResult> results;
    uint32_t Sent() const;
    uint32_t Answered() const;
};

// Counter name -> value, in kernel attribute order.
using Stats = std::vector<std::pair<std::string, uint64_t>>;

// JSON goes through the tools' shared writer (tools/common/json_writer.h).
using mrc::JsonWriter;

void PrintPlane(std::ostream& os, const Plane& p);
void PrintRoute(std::ostream& os, const Route& r);
void PrintProfile(std::ostream& os, const Profile& p);
void PrintStats(std::ostream& os, const Stats& s);

void JsonPlane(JsonWriter& j, const Plane& p);
void JsonRoute(JsonWriter& j, const Route& r);
void JsonProfile(JsonWriter& j, const Profile& p);
void JsonStats(JsonWriter& j, const Stats& s);

// conn show: one line per connection, one with the memory it pins (+ one
// per plane); path show: a table of the EVs of each connection.
void PrintConn(std::ostream& os, const Conn& c);
void PrintConnPaths(std::ostream& os, const Conn& c);
void JsonConn(JsonWriter& j, const Conn& c, bool with_paths);

// probe: a summary line as ping's, then one line per probe.
void PrintProbe(std::ostream& os, const Probe& p);
void JsonProbe(JsonWriter& j, const Probe& p);

// monitor: a connection event ("conn-up", "conn-down", "path-change").
void PrintConnEvent(std::ostream& os, std::string_view event, const Conn& c);
void JsonConnEvent(JsonWriter& j, std::string_view event, const Conn& c);

}  // namespace mrcctl
