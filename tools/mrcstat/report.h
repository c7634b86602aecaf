// SPDX-License-Identifier: GPL-2.0
// A snapshot of the pinned telemetry maps and how mrcstat shows it: the
// live text view, the JSON snapshot, and one ring-buffer event as text or
// as a JSON line. Pure functions of the data (tests/report_test.cc).
#pragma once

#include <cstdint>
#include <map>
#include <string>
#include <vector>

#include "mrc_telemetry.h"

namespace mrcstat {

struct EvRow {
    mrc_tel_ev_key key{};
    mrc_tel_ev_val val{};
};
struct PlaneRow {
    mrc_tel_plane_key key{};
    mrc_tel_plane_val val{};
};
struct ConnRow {
    mrc_tel_conn_key key{};
    mrc_tel_conn_val val{};
};

struct Snapshot {
    uint64_t mono_ns = 0;  // CLOCK_MONOTONIC when read
    std::vector<EvRow> evs;
    std::vector<PlaneRow> planes;
    std::vector<ConnRow> conns;
    mrc_tel_stat stat{};
    // Names of network namespaces by inode (ip netns names, "init"); the
    // maps key namespaces by inode, which no user recognises.
    std::map<uint32_t, std::string> netns_names;
    // Sort every table by key (netns, qpn, EV index, EV / plane).
    void Sort();
    // The name, or "" when the namespace has none.
    std::string NetnsName(uint32_t inum) const;
    // The name, else the inode number: what the text view prints.
    std::string NetnsLabel(uint32_t inum) const;
};

struct TextOptions {
    bool colour = false;
    bool unicode = false;  // block-element bars
    bool show_evs = true;  // per-path (EV) rows under each connection
    int bar_width = 16;
};

// The live view: per-plane table, then each connection with its EVs.
// Rates come from `before` (same pins, earlier read); without it the
// rate columns show "-".
std::string RenderText(const Snapshot& now, const Snapshot* before, const TextOptions& o);
// One JSON object (no newline): {"version":1,"time_ns":..,"telemetry":{..},
// "planes":[..],"conns":[{..,"evs":[..]}]}; totals only.
std::string RenderJson(const Snapshot& s);

std::string EventText(const mrc_tel_event& e, bool colour);
std::string EventJson(const mrc_tel_event& e);
std::string_view EventTypeName(unsigned type);

}  // namespace mrcstat
