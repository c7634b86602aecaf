// SPDX-License-Identifier: GPL-2.0 OR MIT
//
// mrcfabric: one fabric scenario from flags (fabric_sim.h), JSON on stdout.
//
//   mrcfabric --hosts 64 --planes 8 --pattern permutation --routing srv6
//   mrcfabric --pattern incast --incast 7 --trim-kb 100 --ecn-kb 50:100
//   mrcfabric --pattern ring --msg-kb 65536     (one ring all-reduce of 64 MiB)
//   mrcfabric --pattern openloop --load 0.5 --duration-us 500 --msg-kb 64
//
// Exit status: 0 when every flow's messages were delivered intact, 1 when
// the run ended otherwise (deadline, connection error), 2 on bad flags.
#include <algorithm>
#include <array>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <vector>

#include "fabric_patterns.h"
#include "fabric_settle.h"

using namespace mrc::sim;

namespace {

[[noreturn]] void usage() {
    std::fprintf(stderr,
                 "usage: mrcfabric [--hosts N] [--planes P] [--hosts-per-t0 K] [--t1 S]\n"
                 "  [--rate-gbps R] [--fabric-gbps F] [--delay-ns D] [--queue-kb Q]\n"
                 "  [--ecn-kb KMIN:KMAX] [--trim-kb T] [--loss P] [--routing srv6|ecmp]\n"
                 "  [--single-path] [--roce] [--link-loss PLANE:T0:T1:P]\n"
                 "  [--pattern permutation|incast|alltoall|ring|openloop] [--incast N]\n"
                 "  [--msg-kb M] [--msgs C] [--load L] [--duration-us D]\n"
                 "  [--fail nic:PLANE:HOST@US[:silent]] [--fail link:PLANE:T0:T1@US]\n"
                 "  [--fail t1:PLANE:T1@US] [--fail t0:PLANE:T0@US[:silent]]\n"
                 "  [--cc nscc|uec] [--mpr N] [--rto-exp E] [--seed S] [--failover MASK]\n"
                 "  [--nic-room-kb K] [--init-wnd-kb W] [--iw-share 0|1]\n"
                 "  [--deadline-ms MS]\n");
    std::exit(2);
}

double num(const std::string& s) {
    char* end = nullptr;
    const double v = std::strtod(s.c_str(), &end);
    if (s.empty() || *end) usage();
    return v;
}

std::vector<std::string> split(const std::string& s, char sep) {
    std::vector<std::string> out;
    std::size_t b = 0;
    for (std::size_t e; (e = s.find(sep, b)) != std::string::npos; b = e + 1)
        out.push_back(s.substr(b, e - b));
    out.push_back(s.substr(b));
    return out;
}

struct Failure {
    std::string what;
    std::vector<unsigned> args;
    Time at = 0;
    bool silent = false;
};

double pct(std::vector<double> v, double q) {
    if (v.empty()) return 0;
    std::sort(v.begin(), v.end());
    return v[static_cast<std::size_t>(q * static_cast<double>(v.size() - 1) + 0.5)];
}

}  // namespace

int main(int argc, char** argv) {
    FabricSimConfig cfg;
    std::string pattern = "permutation";
    unsigned incast = 7;
    std::uint32_t msg_kb = 1024, msgs = 8;
    double deadline_ms = 1000;
    double load = 0.5, duration_us = 500;  // openloop
    std::vector<Failure> fails;
    std::vector<std::array<double, 4>> link_loss;  // plane, t0, t1, p
    for (int i = 1; i < argc; i++) {
        const std::string a = argv[i];
        auto val = [&]() -> std::string {
            if (i + 1 >= argc) usage();
            return argv[++i];
        };
        if (a == "--hosts")
            cfg.net.hosts = static_cast<unsigned>(num(val()));
        else if (a == "--planes")
            cfg.net.planes = static_cast<unsigned>(num(val()));
        else if (a == "--hosts-per-t0")
            cfg.net.hosts_per_t0 = static_cast<unsigned>(num(val()));
        else if (a == "--t1")
            cfg.net.t1_per_plane = static_cast<unsigned>(num(val()));
        else if (a == "--rate-gbps")
            cfg.net.host_rate_Bps = static_cast<std::uint64_t>(num(val()) * 1e9 / 8);
        else if (a == "--fabric-gbps")
            cfg.net.fabric_rate_Bps = static_cast<std::uint64_t>(num(val()) * 1e9 / 8);
        else if (a == "--delay-ns")
            cfg.net.link_delay_ns = static_cast<Time>(num(val()));
        else if (a == "--queue-kb")
            cfg.net.queue_bytes = static_cast<std::uint64_t>(num(val()) * 1024);
        else if (a == "--ecn-kb") {
            const auto v = split(val(), ':');
            if (v.size() != 2) usage();
            cfg.net.ecn_kmin_bytes = static_cast<std::uint64_t>(num(v[0]) * 1024);
            cfg.net.ecn_kmax_bytes = static_cast<std::uint64_t>(num(v[1]) * 1024);
        } else if (a == "--link-loss") {
            const auto v = split(val(), ':');
            if (v.size() != 4) usage();
            link_loss.push_back({num(v[0]), num(v[1]), num(v[2]), num(v[3])});
        } else if (a == "--loss")
            cfg.net.loss = num(val());
        else if (a == "--trim-kb")
            cfg.net.trim_bytes = static_cast<std::uint64_t>(num(val()) * 1024);
        else if (a == "--routing") {
            const std::string r = val();
            if (r != "srv6" && r != "ecmp") usage();
            cfg.net.routing = r == "srv6" ? Routing::Srv6 : Routing::Ecmp;
        } else if (a == "--roce") {
            cfg.rc_baseline = true;
            cfg.net.routing = Routing::Ecmp;
        } else if (a == "--single-path") {
            cfg.single_path = true;
            cfg.net.routing = Routing::Ecmp;
        } else if (a == "--pattern") {
            pattern = val();
            if (pattern != "permutation" && pattern != "incast" && pattern != "alltoall" &&
                pattern != "ring" && pattern != "openloop")
                usage();
        } else if (a == "--load")
            load = num(val());
        else if (a == "--duration-us")
            duration_us = num(val());
        else if (a == "--incast")
            incast = static_cast<unsigned>(num(val()));
        else if (a == "--msg-kb")
            msg_kb = static_cast<std::uint32_t>(num(val()));
        else if (a == "--msgs")
            msgs = static_cast<std::uint32_t>(num(val()));
        else if (a == "--cc") {
            const std::string c = val();
            if (c != "nscc" && c != "uec") usage();
            cfg.cc_algo = c == "nscc" ? MRC_CC_NSCC : MRC_CC_UEC;
        } else if (a == "--mpr")
            cfg.mpr = static_cast<std::uint32_t>(num(val()));
        else if (a == "--rto-exp")
            cfg.rto_exp = static_cast<std::uint8_t>(num(val()));
        else if (a == "--init-wnd-kb")
            cfg.init_wnd_bytes = static_cast<std::uint32_t>(num(val()) * 1024);
        else if (a == "--iw-share")
            cfg.iw_share = num(val()) != 0;
        else if (a == "--nic-room-kb")
            cfg.nic_room_bytes = static_cast<std::uint64_t>(num(val()) * 1024);
        else if (a == "--failover")
            cfg.failover =
                static_cast<std::uint8_t>(static_cast<unsigned>(num(val())) & MRC_FO_ALL);
        else if (a == "--seed")
            cfg.seed = cfg.net.seed = static_cast<std::uint64_t>(num(val()));
        else if (a == "--deadline-ms")
            deadline_ms = num(val());
        else if (a == "--fail") {
            const auto at = split(val(), '@');
            if (at.size() != 2) usage();
            const auto w = split(at[0], ':');
            const auto t = split(at[1], ':');
            Failure f;
            f.what = w[0];
            for (std::size_t k = 1; k < w.size(); k++)
                f.args.push_back(static_cast<unsigned>(num(w[k])));
            f.at = static_cast<Time>(num(t[0]) * kUs);
            f.silent = t.size() > 1 && t[1] == "silent";
            const std::size_t want = f.what == "link" ? 3 : 2;
            if ((f.what != "nic" && f.what != "link" && f.what != "t1" && f.what != "t0") ||
                f.args.size() != want)
                usage();
            fails.push_back(f);
        } else {
            usage();
        }
    }
    // Every failure names a plane, switch or host of this fabric.
    const unsigned n_t0 = cfg.net.hosts_per_t0
                              ? (cfg.net.hosts + cfg.net.hosts_per_t0 - 1) / cfg.net.hosts_per_t0
                              : 0;
    for (const Failure& f : fails) {
        const unsigned second = f.what == "nic"  ? cfg.net.hosts
                                : f.what == "t1" ? cfg.net.t1_per_plane
                                                 : n_t0;  // link: T0 first, t0
        if (f.args[0] >= cfg.net.planes || f.args[1] >= second ||
            (f.what == "link" && f.args[2] >= cfg.net.t1_per_plane)) {
            std::fprintf(stderr, "mrcfabric: --fail %s: no such plane, host or switch\n",
                         f.what.c_str());
            return 2;
        }
    }
    const auto t0 = std::chrono::steady_clock::now();
    // The victim's goodput from kSteady on, once the incast has converged.
    constexpr Time kSteady = 100 * kUs;
    std::size_t victim = 0;
    std::uint64_t victim_at_steady = 0;
    double line_Bps = 0;
    try {
        FabricSim sim(cfg);
        const unsigned H = cfg.net.hosts;
        const std::uint32_t bytes = msg_kb * 1024;
        if (pattern == "permutation") {
            const auto p = permutation(H, cfg.net.hosts_per_t0, cfg.seed);
            for (unsigned h = 0; h < H; h++) sim.add_flow({h, p[h], bytes, msgs, 0, {}, -1});
        } else if (pattern == "alltoall") {
            for (const FlowSpec& f : all_to_all(H, bytes, msgs)) sim.add_flow(f);
        } else if (pattern == "ring") {
            // --msg-kb is the buffer each host reduces.
            const auto ring = ring_order(H, cfg.net.hosts_per_t0);
            for (const FlowSpec& f : ring_allreduce(ring, bytes, 0)) sim.add_flow(f);
        } else if (pattern == "openloop") {
            // --load of each host's payload line rate (its ports' rate less
            // the headers of a full packet).
            const double hdr = 60.0 + cfg.net.overhead_bytes;  // BTH, METH, RETH, ICRC: about
            line_Bps = static_cast<double>(cfg.net.host_rate_Bps) * cfg.net.planes * cfg.mtu /
                       (cfg.mtu + hdr);
            for (const FlowSpec& f : open_loop(H, load, line_Bps, bytes,
                                               static_cast<Time>(duration_us * kUs), cfg.seed))
                sim.add_flow(f);
        } else {
            // N -> host 0 from other T0s; a victim flow into host 1 (host 0's
            // T0, sharing its spine downlinks) from the last host.
            if (incast + 2 > H) usage();
            for (unsigned k = 0; k < incast; k++)
                sim.add_flow({H - 2 - k, 0, bytes, msgs, 0, {}, -1});
            victim = sim.add_flow({H - 1, 1, bytes, msgs, 0, {}, -1});
            sim.at(kSteady, [&](FabricSim& s) { victim_at_steady = s.delivered_bytes(victim); });
        }
        for (const auto& l : link_loss)
            sim.net().set_link_loss(static_cast<unsigned>(l[0]), static_cast<unsigned>(l[1]),
                                    static_cast<unsigned>(l[2]), l[3]);
        for (const Failure& f : fails) {
            if (f.what == "nic") {
                sim.set_nic_up(f.args[0], f.args[1], false, f.at, !f.silent);
            } else if (f.what == "link") {
                sim.at(f.at, [f](FabricSim& s) {
                    s.net().set_link_up(f.args[0], f.args[1], f.args[2], false);
                });
            } else if (f.what == "t0") {
                sim.set_t0_up(f.args[0], f.args[1], false, f.at, !f.silent);
            } else {
                sim.at(f.at, [f](FabricSim& s) { s.net().set_t1_up(f.args[0], f.args[1], false); });
            }
        }
        // With a failure: the goodput around it, sampled every microsecond.
        std::vector<DeliverySample> samples;
        Time first_fail = kNever;
        for (const Failure& f : fails) first_fail = std::min(first_fail, f.at);
        if (first_fail != kNever) sample_deliveries(sim, kUs, &samples);
        const RunResult r = sim.run(static_cast<Time>(deadline_ms * kMs));
        const double wall =
            std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
        std::vector<double> gbps;
        std::uint64_t timeouts = 0, rtx = 0, trims = 0, drops = 0, marks = 0, lost = 0;
        for (std::size_t i = 0; i < sim.flows(); i++) {
            const FlowResult fr = sim.flow(i);
            gbps.push_back(fr.goodput_bps() / 1e9);
            timeouts += fr.tx.timeouts;
            rtx += fr.tx.tx_rtx_pkts;
        }
        // Per port kind (NIC, T0 up, T1 down, T0 down): where the fabric
        // queued, marked and trimmed.
        std::array<PortCounters, 4> kinds{};
        for (std::uint32_t p = 0; p < sim.net().port_count(); p++) {
            const PortCounters& pc = sim.net().port(p);
            trims += pc.trims;
            drops += pc.drops;
            lost += pc.lost;
            marks += pc.marks;
            PortCounters& k = kinds[static_cast<std::size_t>(sim.net().kind(p))];
            k.bytes += pc.bytes;
            k.trims += pc.trims;
            k.marks += pc.marks;
            k.drops += pc.drops;
            k.max_backlog = std::max(k.max_backlog, pc.max_backlog);
        }
        double sum = 0;
        for (double g : gbps) sum += g;
        std::printf(
            "{\"done\":%s,\"why\":\"%s\",\"virtual_us\":%.1f,\"flows\":%zu,"
            "\"goodput_gbps\":{\"min\":%.2f,\"p10\":%.2f,\"median\":%.2f,\"max\":%.2f,"
            "\"mean\":%.2f,\"jain\":%.4f},",
            r.done ? "true" : "false", r.why.c_str(), static_cast<double>(r.end) / 1e3, sim.flows(),
            pct(gbps, 0), pct(gbps, 0.1), pct(gbps, 0.5), pct(gbps, 1),
            gbps.empty() ? 0 : sum / static_cast<double>(gbps.size()), jain(gbps));
        std::printf("\"flow_gbps\":[");
        for (std::size_t i = 0; i < gbps.size(); i++) std::printf("%s%.2f", i ? "," : "", gbps[i]);
        std::printf("],");
        if (first_fail != kNever) {
            // All flows together, in windows of 5 us (the failure's dip at
            // 800G: about 120 packets of 4 KiB per window).
            const Settle st = settle(samples, first_fail, 5 * kUs);
            std::printf(
                "\"settle\":{\"fail_us\":%.1f,\"before_gbps\":%.2f,\"after_gbps\":%.2f,"
                "\"min_gbps\":%.2f,\"settle_us\":%.1f},",
                static_cast<double>(first_fail) / 1e3, st.before_gbps, st.after_gbps, st.min_gbps,
                static_cast<double>(st.settle_ns) / 1e3);
        }
        if (pattern == "incast") {
            const std::vector<double> senders(gbps.begin(), gbps.end() - 1);
            const FlowResult v = sim.flow(victim);
            const double steady = v.last_delivery > kSteady
                                      ? static_cast<double>(v.delivered_bytes - victim_at_steady) *
                                            8 / static_cast<double>(v.last_delivery - kSteady)
                                      : 0.0;
            std::printf(
                "\"victim_gbps\":%.2f,\"victim_steady_gbps\":%.2f,"
                "\"incast_jain\":%.4f,",
                gbps.back(), steady, senders.empty() ? 0.0 : jain(senders));
        }
        if (pattern == "alltoall" || pattern == "ring" || pattern == "openloop") {
            // Collectives: when the last byte arrived; open loop: every
            // message's completion time (arrival to delivery) and its
            // slowdown against the message alone on an idle fabric (its
            // payload at line rate plus 4 hops of propagation).
            Time end = 0;
            std::vector<double> fct, slow;
            const double alone_ns = line_Bps > 0
                                        ? static_cast<double>(bytes) * 1e9 / line_Bps +
                                              4.0 * static_cast<double>(cfg.net.link_delay_ns)
                                        : 0;
            for (std::size_t i = 0; i < sim.flows(); i++) {
                const FlowResult fr = sim.flow(i);
                end = std::max(end, fr.last_delivery);
                for (std::size_t m = 0; m < fr.msg_done.size() && !fr.spec.arrivals.empty(); m++) {
                    const double ns = static_cast<double>(fr.msg_done[m] - fr.spec.arrivals[m]);
                    fct.push_back(ns / 1e3);
                    slow.push_back(ns / alone_ns);
                }
            }
            std::printf("\"completion_us\":%.2f,", static_cast<double>(end) / 1e3);
            if (pattern == "ring") {
                // NCCL's bus bandwidth: what each host's links carried per second.
                const double n = H;
                std::printf("\"busbw_gbps\":%.2f,",
                            end ? 2 * (n - 1) / n * bytes * 8 / static_cast<double>(end) : 0.0);
            }
            if (pattern == "openloop")
                std::printf(
                    "\"messages\":%zu,\"offered_gbps\":%.2f,\"fct_us\":{\"p50\":%.2f,"
                    "\"p99\":%.2f,\"max\":%.2f},\"slowdown\":{\"p50\":%.2f,\"p99\":%.2f,"
                    "\"max\":%.2f},",
                    fct.size(), load * line_Bps * 8 / 1e9, pct(fct, 0.5), pct(fct, 0.99),
                    pct(fct, 1), pct(slow, 0.5), pct(slow, 0.99), pct(slow, 1));
        }
        std::printf("\"ports\":{");
        static const char* const kKindName[] = {"nic", "t0_up", "t1_down", "t0_down"};
        for (std::size_t k = 0; k < kinds.size(); k++)
            std::printf(
                "%s\"%s\":{\"bytes\":%llu,\"trims\":%llu,\"ce_marks\":%llu,\"drops\":%llu,"
                "\"max_backlog\":%llu}",
                k ? "," : "", kKindName[k], static_cast<unsigned long long>(kinds[k].bytes),
                static_cast<unsigned long long>(kinds[k].trims),
                static_cast<unsigned long long>(kinds[k].marks),
                static_cast<unsigned long long>(kinds[k].drops),
                static_cast<unsigned long long>(kinds[k].max_backlog));
        std::printf("},");
        if (sim.error().reason)
            std::printf("\"error\":{\"flow\":%zu,\"side\":\"%s\",\"reason\":%u,\"at_us\":%.2f},",
                        sim.error().flow, sim.error().sender ? "sender" : "receiver",
                        sim.error().reason, static_cast<double>(sim.error().at) / 1e3);
        std::printf(
            "\"steps\":%llu,\"timeouts\":%llu,\"retransmits\":%llu,\"trims\":%llu,\"drops\":%llu,"
            "\"lost\":%llu,\"ce_marks\":%llu,\"wall\":{\"seconds\":%.3f,\"data_pkts\":%llu,"
            "\"data_pkts_per_s\":%.0f,\"hop_events\":%llu}}\n",
            static_cast<unsigned long long>(r.steps), static_cast<unsigned long long>(timeouts),
            static_cast<unsigned long long>(rtx), static_cast<unsigned long long>(trims),
            static_cast<unsigned long long>(drops), static_cast<unsigned long long>(lost),
            static_cast<unsigned long long>(marks), wall,
            static_cast<unsigned long long>(sim.data_pkts()),
            wall > 0 ? static_cast<double>(sim.data_pkts()) / wall : 0,
            static_cast<unsigned long long>(sim.net().events()));
        return r.done ? 0 : 1;
    } catch (const std::exception& e) {
        std::fprintf(stderr, "mrcfabric: %s\n", e.what());
        return 2;
    }
}
