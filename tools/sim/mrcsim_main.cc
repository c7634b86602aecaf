// SPDX-License-Identifier: GPL-2.0 OR MIT
//
// mrcsim - run one two-endpoint MRC scenario through the network model and
// print JSON statistics. See Documentation/networking/mrc-sim.rst.
#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "harness.h"

using namespace mrc::sim;

namespace {

const char kUsage[] =
    "usage: mrcsim [options]\n"
    "  topology:  --planes P (2) --paths K (4)\n"
    "  links:     --rate-gbps G (0=inf) --delay-us D (2) --queue-kb Q (0=inf)\n"
    "             --loss p --dup p --jitter-us J --ecn-prob p --ecn-kb T\n"
    "             --trim-kb T --trim-prob p\n"
    "  one path:  --path-ecn-prob PL:PA:p --path-loss PL:PA:p\n"
    "  failures:  --blackhole PL:PA@US --path-down PL:PA@US[-US] --plane-down PL@US[-US]\n"
    "             --no-notify (engines learn of plane failures only by timeouts)\n"
    "  workload:  --messages N (100) --size-min B (1) --size-max B (65536)\n"
    "             (log-uniform sizes) --seed S (1) --deadline-ms MS (10000)\n"
    "  engine:    --mtu B --ev-per-plane E --ev-active A --rto-exp X --init-psn N\n"
    "             --mpr N --cc nscc|fixed|uec --window-kb W\n"
    "             --reo-pm N (reordering window, per mille of min RTT; 0: losses\n"
    "             found by timeouts only) --tlp 0|1 (tail-loss probe)\n"
    "  speed:     --headers-only (no payload bytes, no ICRC: delivery checked by\n"
    "             length, MSN and immediate data)\n"
    "  output:    --per-path (per-path counters) --events (EV state events)\n";

struct Opts {
    unsigned planes = 2, paths = 4;
    double rate_gbps = 0, delay_us = 2, queue_kb = 0, loss = 0, dup = 0, jitter_us = 0;
    double ecn_prob = 0, ecn_kb = 0, trim_kb = 0, trim_prob = 0;
    unsigned messages = 100;
    std::uint64_t size_min = 1, size_max = 65536, seed = 1;
    double deadline_ms = 10000;
    long mtu = -1, ev_per_plane = -1, ev_active = -1, rto_exp = -1, init_psn = -1, mpr = -1;
    long window_kb = -1, reo_pm = -1, tlp = -1;
    std::string cc;
    bool notify = true, show_paths = false, show_events = false, headers_only = false;
    struct PathSet {
        unsigned plane, path;
        double v;
    };
    std::vector<PathSet> path_ecn, path_loss;
    struct Fail {
        unsigned plane, path;
        double from_us, to_us;  // to_us < 0: forever
    };
    std::vector<Fail> blackholes, path_downs, plane_downs;
};

[[noreturn]] void die(const std::string& msg) {
    std::fprintf(stderr, "mrcsim: %s\n%s", msg.c_str(), kUsage);
    std::exit(2);
}

double num(const char* s) {
    char* end = nullptr;
    const double v = std::strtod(s, &end);
    if (!end || *end || end == s) die(std::string("not a number: ") + s);
    return v;
}

// "PL:PA:v"
Opts::PathSet path_value(const char* s) {
    unsigned pl = 0, pa = 0;
    double v = 0;
    if (std::sscanf(s, "%u:%u:%lf", &pl, &pa, &v) != 3)
        die(std::string("expected PLANE:PATH:VALUE, got ") + s);
    return {pl, pa, v};
}

// "PL:PA@US[-US]" or (plane_only) "PL@US[-US]"
Opts::Fail failure(const char* s, bool plane_only) {
    Opts::Fail f{0, 0, 0, -1};
    int n;
    if (plane_only)
        n = std::sscanf(s, "%u@%lf-%lf", &f.plane, &f.from_us, &f.to_us) + 1;
    else
        n = std::sscanf(s, "%u:%u@%lf-%lf", &f.plane, &f.path, &f.from_us, &f.to_us);
    if (n < 3) die(std::string("bad failure spec: ") + s);
    if (n == 3) f.to_us = -1;
    return f;
}

Opts parse(int argc, char** argv) {
    Opts o;
    for (int i = 1; i < argc; i++) {
        std::string_view a = argv[i];
        auto val = [&]() -> const char* {
            if (i + 1 >= argc) die(std::string("missing value for ") + argv[i]);
            return argv[++i];
        };
        if (a == "-h" || a == "--help") {
            std::fputs(kUsage, stdout);
            std::exit(0);
        } else if (a == "--planes")
            o.planes = static_cast<unsigned>(num(val()));
        else if (a == "--paths")
            o.paths = static_cast<unsigned>(num(val()));
        else if (a == "--rate-gbps")
            o.rate_gbps = num(val());
        else if (a == "--delay-us")
            o.delay_us = num(val());
        else if (a == "--queue-kb")
            o.queue_kb = num(val());
        else if (a == "--loss")
            o.loss = num(val());
        else if (a == "--dup")
            o.dup = num(val());
        else if (a == "--jitter-us")
            o.jitter_us = num(val());
        else if (a == "--ecn-prob")
            o.ecn_prob = num(val());
        else if (a == "--ecn-kb")
            o.ecn_kb = num(val());
        else if (a == "--trim-kb")
            o.trim_kb = num(val());
        else if (a == "--trim-prob")
            o.trim_prob = num(val());
        else if (a == "--path-ecn-prob")
            o.path_ecn.push_back(path_value(val()));
        else if (a == "--path-loss")
            o.path_loss.push_back(path_value(val()));
        else if (a == "--blackhole")
            o.blackholes.push_back(failure(val(), false));
        else if (a == "--path-down")
            o.path_downs.push_back(failure(val(), false));
        else if (a == "--plane-down")
            o.plane_downs.push_back(failure(val(), true));
        else if (a == "--no-notify")
            o.notify = false;
        else if (a == "--messages")
            o.messages = static_cast<unsigned>(num(val()));
        else if (a == "--size-min")
            o.size_min = static_cast<std::uint64_t>(num(val()));
        else if (a == "--size-max")
            o.size_max = static_cast<std::uint64_t>(num(val()));
        else if (a == "--seed")
            o.seed = static_cast<std::uint64_t>(num(val()));
        else if (a == "--deadline-ms")
            o.deadline_ms = num(val());
        else if (a == "--mtu")
            o.mtu = static_cast<long>(num(val()));
        else if (a == "--ev-per-plane")
            o.ev_per_plane = static_cast<long>(num(val()));
        else if (a == "--ev-active")
            o.ev_active = static_cast<long>(num(val()));
        else if (a == "--rto-exp")
            o.rto_exp = static_cast<long>(num(val()));
        else if (a == "--init-psn")
            o.init_psn = static_cast<long>(num(val()));
        else if (a == "--mpr")
            o.mpr = static_cast<long>(num(val()));
        else if (a == "--reo-pm")
            o.reo_pm = static_cast<long>(num(val()));
        else if (a == "--tlp")
            o.tlp = static_cast<long>(num(val()));
        else if (a == "--window-kb")
            o.window_kb = static_cast<long>(num(val()));
        else if (a == "--cc")
            o.cc = val();
        else if (a == "--headers-only")
            o.headers_only = true;
        else if (a == "--per-path")
            o.show_paths = true;
        else if (a == "--events")
            o.show_events = true;
        else
            die("unknown option " + std::string(a));
    }
    if (o.size_min < 1 || o.size_max < o.size_min || o.size_max > (64u << 20))
        die("need 1 <= size-min <= size-max <= 64 MiB");
    return o;
}

}  // namespace

int main(int argc, char** argv) {
    const Opts o = parse(argc, argv);
    HarnessConfig cfg;
    try {
        cfg = default_config(o.planes, o.paths, o.seed);
    } catch (const std::exception& e) {
        die(e.what());
    }
    LinkConfig& l = cfg.net.link;
    l.delay_ns = static_cast<Time>(o.delay_us * 1000);
    l.rate_Bps = static_cast<std::uint64_t>(o.rate_gbps * 1e9 / 8);
    l.queue_limit_bytes = static_cast<std::uint64_t>(o.queue_kb * 1024);
    l.loss = o.loss;
    l.dup = o.dup;
    l.jitter_ns = static_cast<Time>(o.jitter_us * 1000);
    l.ecn_prob = o.ecn_prob;
    l.ecn_threshold_bytes = static_cast<std::uint64_t>(o.ecn_kb * 1024);
    l.trim_threshold_bytes = static_cast<std::uint64_t>(o.trim_kb * 1024);
    l.trim_prob = o.trim_prob;
    cfg.notify_plane_changes = o.notify;
    cfg.log_events = o.show_events;
    cfg.headers_only = o.headers_only;
    for (auto& c : cfg.ep) {
        if (o.mtu > 0) c.mtu = static_cast<u32>(o.mtu);
        if (o.ev_per_plane > 0) c.ev_per_plane = static_cast<u16>(o.ev_per_plane);
        if (o.ev_active > 0) c.ev_active_per_plane = static_cast<u16>(o.ev_active);
        if (o.rto_exp >= 0) c.rto_exp = static_cast<u8>(o.rto_exp);
        if (o.mpr > 0) c.mpr = static_cast<u32>(o.mpr);
        if (o.reo_pm >= 0) c.reo_wnd_pm = static_cast<u16>(o.reo_pm);
        if (o.tlp >= 0) c.tlp = static_cast<u8>(o.tlp);
        if (o.cc == "fixed")
            c.cc_algo = MRC_CC_FIXED;
        else if (o.cc == "nscc")
            c.cc_algo = MRC_CC_NSCC;
        else if (o.cc == "uec")
            c.cc_algo = MRC_CC_UEC;
        else if (!o.cc.empty())
            die("unknown --cc " + o.cc);
        if (o.window_kb > 0) {
            c.cc.max_wnd_bytes = static_cast<u32>(o.window_kb * 1024);
            c.cc.fixed_wnd_bytes = c.cc.max_wnd_bytes;
        }
        if (o.rate_gbps > 0)
            c.cc.link_mbps = static_cast<u32>(o.rate_gbps * 1000 * o.paths * o.planes);
        if (c.rx_max_msg_len < o.size_max) c.rx_max_msg_len = static_cast<u32>(o.size_max);
    }
    if (o.init_psn >= 0) set_initial_psn(cfg, 0, static_cast<std::uint32_t>(o.init_psn));
    for (int i = 0; i < 2; i++)
        if (mrc_conn_cfg_check(&cfg.ep[i]) != MRC_OK)
            die("engine configuration rejected by mrc_conn_cfg_check()");

    std::unique_ptr<Harness> hp;
    try {
        hp = std::make_unique<Harness>(cfg);
        Harness& h = *hp;
        for (auto& p : o.path_ecn) {
            h.net().link(p.plane, p.path, Dir::AtoB).ecn_prob = p.v;
        }
        for (auto& p : o.path_loss) {
            h.net().link(p.plane, p.path, Dir::AtoB).loss = p.v;
            h.net().link(p.plane, p.path, Dir::BtoA).loss = p.v;
        }
        for (auto& f : o.blackholes)
            h.net().blackhole_path(f.plane, f.path, static_cast<Time>(f.from_us * 1000));
        for (auto& f : o.path_downs) {
            h.net().set_path_up(f.plane, f.path, false, static_cast<Time>(f.from_us * 1000));
            if (f.to_us >= 0)
                h.net().set_path_up(f.plane, f.path, true, static_cast<Time>(f.to_us * 1000));
        }
        for (auto& f : o.plane_downs) {
            h.set_plane_up(f.plane, false, static_cast<Time>(f.from_us * 1000));
            if (f.to_us >= 0) h.set_plane_up(f.plane, true, static_cast<Time>(f.to_us * 1000));
        }
    } catch (const std::exception& e) {
        die(e.what());
    }
    Harness& h = *hp;

    Rng rng(o.seed ^ 0x51ced);
    const double lmin = std::log(static_cast<double>(o.size_min));
    const double lmax = std::log(static_cast<double>(o.size_max) + 1);
    for (unsigned i = 0; i < o.messages; i++) {
        auto len = static_cast<std::uint32_t>(std::exp(lmin + (lmax - lmin) * rng.uniform()));
        len = std::clamp<std::uint32_t>(len, static_cast<std::uint32_t>(o.size_min),
                                        static_cast<std::uint32_t>(o.size_max));
        h.enqueue(len);
    }
    const auto wall0 = std::chrono::steady_clock::now();
    const RunResult r = h.run(static_cast<Time>(o.deadline_ms * 1e6));
    const double wall =
        std::chrono::duration<double>(std::chrono::steady_clock::now() - wall0).count();
    std::uint64_t data_pkts = 0;
    for (int i = 0; i < 2; i++) data_pkts += h.host(i).tx_by_kind[MRC_TX_DATA];

    std::string out = "{\"result\":{";
    char b[256];
    std::snprintf(b, sizeof(b),
                  "\"done\":%s,\"error\":%s,\"why\":\"%s\",\"end_ns\":%llu,\"steps\":%llu},",
                  r.done ? "true" : "false", r.error ? "true" : "false", r.why.c_str(),
                  static_cast<unsigned long long>(r.end), static_cast<unsigned long long>(r.steps));
    out += b;
    // Simulator speed: data packets handled per wall-clock second.
    std::snprintf(b, sizeof(b),
                  "\"wall\":{\"seconds\":%.3f,\"data_pkts\":%llu,\"data_pkts_per_s\":%.0f},", wall,
                  static_cast<unsigned long long>(data_pkts), wall > 0 ? data_pkts / wall : 0.0);
    out += b;
    std::string hj = h.json();
    if (!o.show_paths) {
        auto pos = hj.find(",\"paths\":");
        if (pos != std::string::npos) hj = hj.substr(0, pos) + "}";
    }
    out += "\"run\":" + hj;
    if (o.show_events) {
        out += ",\"ev_events\":[";
        bool first = true;
        for (const auto& e : h.events()) {
            if (e.ev.type != MRC_EVT_EV_STATE) continue;
            std::snprintf(b, sizeof(b),
                          "%s{\"t\":%llu,\"ep\":%d,\"ev\":%u,\"plane\":%u,\"old\":\"%s\","
                          "\"new\":\"%s\",\"active\":%u,\"cause\":%u}",
                          first ? "" : ",", static_cast<unsigned long long>(e.at), e.ep,
                          e.ev.u.ev.ev, e.ev.u.ev.plane, mrc_ev_state_name(e.ev.u.ev.old_state),
                          mrc_ev_state_name(e.ev.u.ev.new_state), e.ev.u.ev.active,
                          e.ev.u.ev.cause);
            out += b;
            first = false;
        }
        out += "]";
    }
    out += "}\n";
    std::fputs(out.c_str(), stdout);
    bool ok = r.done;
    for (int i = 0; i < 2; i++)
        ok = ok && h.host(i).delivered_bad == 0 && h.host(i).decode_errors == 0 &&
             h.host(i).place_anomalies == 0;
    return ok ? 0 : 1;
}
