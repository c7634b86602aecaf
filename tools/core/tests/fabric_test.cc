// SPDX-License-Identifier: GPL-2.0 OR MIT
//
// The multi-host fabric model (tools/sim/fabric_net.h) and the engines
// running over it (fabric_sim.h): the model's own mechanics first, then the
// claims of issue 16 item 6 as regression tests (permutation share, incast
// victim, one NIC port of eight down, incast fairness).
#include <gtest/gtest.h>

#include <algorithm>
#include <cstdio>
#include <cstring>

#include "fabric_patterns.h"
#include "fabric_settle.h"

using namespace mrc::sim;

namespace {

FabricPacket data_pkt(unsigned src, unsigned dst, std::uint32_t ev, std::uint32_t len = 4000) {
    FabricPacket p;
    std::memset(&p.pkt, 0, sizeof(p.pkt));
    p.ev = ev;
    p.src = static_cast<std::uint16_t>(src);
    p.dst = static_cast<std::uint16_t>(dst);
    p.wire_len = len;
    p.trim_len = 100;
    p.data = true;
    return p;
}

FabricConfig small_fabric() {
    FabricConfig c;
    c.hosts = 8;
    c.planes = 2;
    c.hosts_per_t0 = 2;
    c.t1_per_plane = 4;
    c.host_rate_Bps = 1'000'000'000;  // 1 byte per ns
    c.fabric_rate_Bps = 1'000'000'000;
    c.link_delay_ns = 100;
    c.queue_bytes = 20000;
    return c;
}

// Arrival time of every delivery, in order.
std::vector<std::pair<Time, FabricPacket>> drain(FabricNet& n) {
    std::vector<std::pair<Time, FabricPacket>> out;
    for (Time t = n.next_event(); t != kNever; t = n.next_event())
        while (auto p = n.pop_due(t)) out.emplace_back(t, *p);
    return out;
}

}  // namespace

TEST(FabricNet, RoutesBySpineAndServesFifo) {
    FabricNet n(small_fabric());
    // Same T0: NIC port, T0 -> host.
    EXPECT_EQ(n.spine_of(0, 1, 5), -1);
    // SRv6: the EV's path index picks the spine.
    EXPECT_EQ(n.spine_of(0, 4, 6), 2);
    EXPECT_EQ(n.spine_of(0, 4, (1u << 24) | 7), 3);
    n.send(0, data_pkt(0, 1, 0));
    n.send(0, data_pkt(0, 4, 1));  // queued behind the first at the NIC port
    auto d = drain(n);
    ASSERT_EQ(d.size(), 2u);
    // 4000 B at 1 B/ns, 100 ns per hop: 2 hops = 8000 + 200.
    EXPECT_EQ(d[0].first, 8200u);
    // The second waited 4000 ns at the NIC port, then 4 hops.
    EXPECT_EQ(d[1].first, 4000u + 4 * (4000 + 100));
    EXPECT_EQ(n.port(n.t0_up_port(0, 0, 1)).pkts, 1u);
    EXPECT_EQ(n.port(n.t1_down_port(0, 1, 2)).pkts, 1u);
    EXPECT_EQ(n.in_flight(), 0u);
}

TEST(FabricNet, EcmpHashesFlowsOntoSpines) {
    FabricConfig c = small_fabric();
    c.routing = Routing::Ecmp;
    FabricNet n(c);
    std::vector<int> hits(4, 0);
    for (std::uint32_t ev = 0; ev < 400; ev++) {
        const int s = n.spine_of(0, 4, ev);
        ASSERT_GE(s, 0);
        EXPECT_EQ(n.spine_of(0, 4, ev), s);  // deterministic
        hits[static_cast<std::size_t>(s)]++;
    }
    for (int h : hits) EXPECT_GT(h, 50);  // every spine used, none by all
}

TEST(FabricNet, TrimsAboveThresholdAndFlagsLastHop) {
    FabricConfig c = small_fabric();
    c.trim_bytes = 8000;
    FabricNet n(c);
    // Three hosts under other T0s send to host 1 at once: the T0 -> host 1
    // port (the last hop) takes 4000 B each while busy; NIC ports and
    // spines (EV 0, 1, 2) are separate, so only the last hop queues.
    const unsigned senders[] = {4, 6, 2};
    for (unsigned k = 0; k < 3; k++) n.send(0, data_pkt(senders[k], 1, k));
    n.send(0, data_pkt(0, 1, 0));
    auto d = drain(n);
    ASSERT_EQ(d.size(), 4u);
    unsigned trimmed = 0;
    for (auto& [t, p] : d) {
        if (!p.trimmed) continue;
        trimmed++;
        EXPECT_TRUE(p.lasthop);
        EXPECT_EQ(p.wire_len, 100u);
    }
    EXPECT_GE(trimmed, 1u);
    EXPECT_EQ(n.port(n.t0_down_port(0, 1)).trims, trimmed);
    EXPECT_EQ(n.port(n.t0_down_port(0, 1)).drops, 0u);
}

TEST(FabricNet, TailDropsMarksAndDownPorts) {
    FabricConfig c = small_fabric();
    c.hosts_per_t0 = 8;  // one T0: NIC port, then T0 -> host
    c.ecn_kmin_bytes = 1;
    c.ecn_kmax_bytes = 2;  // anything queued is marked
    FabricNet n(c);
    for (unsigned s = 1; s < 8; s++) n.send(0, data_pkt(s, 0, 0));
    auto d = drain(n);
    // Seven packets reach the T0 -> host 0 port together; 20000 B of queue
    // take five (0, 4000 .. 16000 queued), two are dropped; all but the
    // first found a backlog and were marked.
    EXPECT_EQ(d.size(), 5u);
    EXPECT_EQ(n.port(n.t0_down_port(0, 0)).drops, 2u);
    EXPECT_EQ(n.port(n.t0_down_port(0, 0)).marks, 4u);
    EXPECT_FALSE(d[0].second.ce);
    EXPECT_TRUE(d[4].second.ce);
    // A host's own NIC port queues its burst: no drop, no mark, no trim.
    c.trim_bytes = 8000;
    FabricNet m(c);
    for (int i = 0; i < 8; i++) m.send(0, data_pkt(0, 1, 0));
    EXPECT_EQ(drain(m).size(), 8u);
    EXPECT_EQ(m.port(m.nic_port(0, 0)).drops + m.port(m.nic_port(0, 0)).marks +
                  m.port(m.nic_port(0, 0)).trims,
              0u);
    FabricNet f(small_fabric());
    f.set_t1_up(1, 2, false);
    f.send(0, data_pkt(0, 4, (1u << 24) | 2));  // plane 1, spine 2
    f.send(0, data_pkt(0, 4, (1u << 24) | 3));  // plane 1, spine 3
    d = drain(f);
    ASSERT_EQ(d.size(), 1u);
    EXPECT_EQ(f.spine_of(0, 4, d[0].second.ev), 3);
    EXPECT_EQ(f.port(f.t0_up_port(1, 0, 2)).drops, 1u);
}

namespace {

FabricSimConfig fabric_cfg(unsigned hosts, unsigned planes) {
    FabricSimConfig c;
    c.net.hosts = hosts;
    c.net.planes = planes;
    c.net.hosts_per_t0 = 4;
    c.net.t1_per_plane = 4;
    c.net.trim_bytes = 64 * 1024;
    c.net.ecn_kmin_bytes = 32 * 1024;
    c.net.ecn_kmax_bytes = 64 * 1024;
    return c;
}

// Payload goodput one 100G NIC port can carry (headers, ICRC, outer IP/UDP).
double port_payload_gbps(const FabricSimConfig& c) {
    const double wire = c.mtu + 60.0 + c.net.overhead_bytes;  // BTH..RETH + ICRC, about
    return static_cast<double>(c.net.host_rate_Bps) * 8 / 1e9 * c.mtu / wire;
}

std::vector<double> run_permutation(const FabricSimConfig& c, std::uint32_t msgs) {
    FabricSim sim(c);
    const auto p = permutation(c.net.hosts, c.net.hosts_per_t0, c.seed);
    for (unsigned h = 0; h < c.net.hosts; h++) sim.add_flow({h, p[h], 1 << 20, msgs, 0, {}, -1});
    const RunResult r = sim.run(50 * kMs);
    EXPECT_TRUE(r.done) << r.why;
    std::vector<double> g;
    for (std::size_t i = 0; i < sim.flows(); i++) {
        const FlowResult f = sim.flow(i);
        EXPECT_EQ(f.bad_msgs, 0u);
        g.push_back(f.goodput_bps() / 1e9);
    }
    return g;
}

}  // namespace

TEST(FabricSim, PermutationEveryFlowNearLineRateWithSrv6) {
    FabricSimConfig c = fabric_cfg(32, 8);
    const auto g = run_permutation(c, 16);
    const double line = 8 * port_payload_gbps(c);
    const double lo = *std::min_element(g.begin(), g.end());
    EXPECT_GE(lo, 0.9 * line) << "slowest flow " << lo << " of " << line << " Gb/s";
    EXPECT_GE(jain(g), 0.99);
}

// The baseline: one path per flow, hashed. Collisions leave some flows with
// half a port or less, which is what the paper reports for RoCE.
TEST(FabricSim, PermutationSinglePathEcmpCollides) {
    FabricSimConfig c = fabric_cfg(32, 8);
    c.single_path = true;
    c.net.routing = Routing::Ecmp;
    const auto g = run_permutation(c, 4);
    const double line = port_payload_gbps(c);
    const double lo = *std::min_element(g.begin(), g.end());
    EXPECT_LT(lo, 0.75 * line) << "slowest flow " << lo << " of " << line << " Gb/s";
}

namespace {

struct IncastRun {
    double victim_gbps = 0;
    double victim_steady_gbps = 0;  // from kSteady on: the incast has converged
    std::vector<double> senders_gbps;
    Time end = 0;
};

constexpr Time kSteady = 100 * kUs;

// `n` senders under other T0s -> host 0; a victim flow into host 1 (host
// 0's T0: it shares the spines' downlinks with the incast) from host 31.
IncastRun run_incast(unsigned n, std::uint32_t msgs) {
    FabricSimConfig c = fabric_cfg(32, 8);
    FabricSim sim(c);
    for (unsigned k = 0; k < n; k++) sim.add_flow({30 - k, 0, 1 << 20, msgs, 0, {}, -1});
    const std::size_t victim = sim.add_flow({31, 1, 1 << 20, msgs, 0, {}, -1});
    std::uint64_t at_steady = 0;
    sim.at(kSteady, [&](FabricSim& s) { at_steady = s.delivered_bytes(victim); });
    const RunResult r = sim.run(50 * kMs);
    EXPECT_TRUE(r.done) << r.why;
    IncastRun out;
    for (std::size_t i = 0; i < sim.flows(); i++) {
        const FlowResult f = sim.flow(i);
        EXPECT_EQ(f.bad_msgs, 0u);
        if (i == victim) {
            out.victim_gbps = f.goodput_bps() / 1e9;
            out.victim_steady_gbps = static_cast<double>(f.delivered_bytes - at_steady) * 8 /
                                     static_cast<double>(f.last_delivery - kSteady);
        } else
            out.senders_gbps.push_back(f.goodput_bps() / 1e9);
    }
    out.end = r.end;
    return out;
}

}  // namespace

// 7 -> 1 incast next to a victim flow into the incast receiver's T0: the
// victim keeps its goodput within 10 % of running alone, once the incast
// has converged (100 us) and over the whole run. (Without the NICs'
// transmit room, FabricSimConfig::nic_room_bytes, the whole run kept 82 %:
// the seven first windows, 1.5 BDP each, left the senders at once and
// overloaded the spines' downlinks into that T0; mrc-sim.rst.)
TEST(FabricSim, IncastLeavesTheVictimAlone) {
    const IncastRun solo = run_incast(0, 32);
    const IncastRun with = run_incast(7, 32);
    EXPECT_GE(with.victim_steady_gbps, 0.9 * solo.victim_steady_gbps)
        << with.victim_steady_gbps << " vs " << solo.victim_steady_gbps << " Gb/s alone";
    // Over the whole run too, first windows included (93 %: the senders'
    // NICs take their first windows a port's room at a time).
    EXPECT_GE(with.victim_gbps, 0.9 * solo.victim_gbps)
        << with.victim_gbps << " vs " << solo.victim_gbps << " Gb/s alone";
    // The incast itself fills the receiver's eight ports.
    double sum = 0;
    for (double g : with.senders_gbps) sum += g;
    EXPECT_GE(sum, 0.9 * 8 * port_payload_gbps(fabric_cfg(32, 8)));
}

// Two flows into one receiver share it fairly (NSCC's closed loop: ECN,
// delay and trims of one bottleneck). With four to fifteen the shares
// spread more (Jain 0.90-0.99 by seed, mrc-sim.rst): not asserted here.
TEST(FabricSim, TwoFlowIncastIsFair) {
    const IncastRun two = run_incast(2, 64);
    ASSERT_EQ(two.senders_gbps.size(), 2u);
    EXPECT_GE(jain(two.senders_gbps), 0.95)
        << two.senders_gbps[0] << " and " << two.senders_gbps[1] << " Gb/s";
}

namespace {

// One flow, 64 MiB, host 31 -> host 1; host 31's NIC port of plane 3 goes
// down 50 us in (fail) and the run reports the flow.
FlowResult run_port_down(bool fail, bool announced) {
    FabricSimConfig c = fabric_cfg(32, 8);
    FabricSim sim(c);
    sim.add_flow({31, 1, 1 << 20, 64, 0, {}, -1});
    if (fail) sim.set_nic_up(3, 31, false, 50 * kUs, announced);
    const RunResult r = sim.run(50 * kMs);
    EXPECT_TRUE(r.done) << r.why;
    return sim.flow(0);
}

}  // namespace

// One NIC port of eight down: the flow keeps about 7/8 of its goodput, with
// the port announced (the engines stop using the plane at once) and silent
// (losses found from later deliveries, no timeout needed).
// settle() on a made-up series: 1 byte/ns, nothing for 8 us after the
// failure at 20 us, then 0.875 byte/ns: the rates, the worst window and
// the end of the last window below 90 % of the settled rate.
TEST(FabricSettle, ReadsTheDipAroundAFailure) {
    std::vector<DeliverySample> s;
    std::uint64_t b = 0;
    for (Time t = 0; t <= 100 * kUs; t += kUs) {
        s.push_back({t, b});
        if (t < 20 * kUs)
            b += 1000;
        else if (t >= 28 * kUs)
            b += 875;
    }
    const Settle st = settle(s, 20 * kUs, 5 * kUs);
    EXPECT_DOUBLE_EQ(st.before_gbps, 8.0);
    EXPECT_DOUBLE_EQ(st.after_gbps, 7.0);
    EXPECT_DOUBLE_EQ(st.min_gbps, 0.0);
    // The windows starting from 20 to 27 us hold part of the gap; the last,
    // [27, 32) us, carries 4 of 5 us at 7 Gb/s: 5.6 < 6.3.
    EXPECT_EQ(st.settle_ns, 12 * kUs);
}

// ... and the goodput settles at its 7/8 within microseconds: every 5 us
// window from 20 us after the failure on carries >= 90 % of the settled
// rate, no window falls below 60 % of the rate before, either way.
TEST(FabricSim, OneNicPortOfEightDownSettlesWithinMicroseconds) {
    for (bool announced : {true, false}) {
        SCOPED_TRACE(announced ? "announced" : "silent");
        FabricSim sim(fabric_cfg(32, 8));
        sim.add_flow({31, 1, 1 << 20, 64, 0, {}, -1});
        sim.set_nic_up(3, 31, false, 50 * kUs, announced);
        std::vector<DeliverySample> samples;
        sample_deliveries(sim, kUs, &samples);
        ASSERT_TRUE(sim.run(50 * kMs).done);
        const Settle st = settle(samples, 50 * kUs, 5 * kUs);
        EXPECT_GE(st.after_gbps, 0.85 * st.before_gbps)
            << st.after_gbps << " of " << st.before_gbps;
        EXPECT_GE(st.min_gbps, 0.6 * st.before_gbps) << st.min_gbps << " of " << st.before_gbps;
        EXPECT_LE(st.settle_ns, 20 * kUs);
    }
}

TEST(FabricSim, OneNicPortOfEightDownKeepsSevenEighths) {
    const FlowResult base = run_port_down(false, false);
    for (bool announced : {true, false}) {
        SCOPED_TRACE(announced ? "announced" : "silent");
        const FlowResult f = run_port_down(true, announced);
        EXPECT_EQ(f.bad_msgs, 0u);
        EXPECT_GE(f.goodput_bps(), 0.85 * base.goodput_bps())
            << f.goodput_bps() / 1e9 << " vs " << base.goodput_bps() / 1e9 << " Gb/s";
        EXPECT_EQ(f.tx.timeouts, 0u);
    }
}

// The hosts' NIC ports are what a plane's EVs share: with the port down,
// nothing is sent on that plane after the engines learn it.
TEST(FabricSim, AnnouncedPortDownMovesTrafficOffThePlane) {
    FabricSimConfig c = fabric_cfg(32, 8);
    FabricSim sim(c);
    sim.add_flow({31, 1, 1 << 20, 16, 0, {}, -1});
    std::uint64_t before = 0;
    sim.set_nic_up(3, 31, false, 20 * kUs, true);
    sim.at(20 * kUs + 1,
           [&](FabricSim& s) { before = s.net().port(s.net().nic_port(3, 31)).drops; });
    const RunResult r = sim.run(50 * kMs);
    EXPECT_TRUE(r.done) << r.why;
    // Only what was already queued behind the port when it failed is lost.
    EXPECT_EQ(sim.net().port(sim.net().nic_port(3, 31)).drops, before);
}

// A T0 switch of plane 3 dies 50 us in: hosts 28-31 under it lose that
// plane. Two flows cross it (31 -> 1 out of it, 0 -> 30 into it), one does
// not (5 -> 9). Announced (their links go dark, their NICs say so) or
// silent, every message arrives, the crossing flows keep about 7/8 of
// their goodput without a timeout, the other flow loses nothing; announced,
// nothing sent after the announcement reaches the dead switch, and less
// is lost there than when nobody announces it.
TEST(FabricSim, T0SwitchDownCostsItsHostsOnePlane) {
    auto run = [](int fail) {  // 0: no failure, 1: announced, 2: silent
        FabricSimConfig c = fabric_cfg(32, 8);
        FabricSim sim(c);
        sim.add_flow({31, 1, 1 << 20, 64, 0, {}, -1});
        sim.add_flow({0, 30, 1 << 20, 64, 0, {}, -1});
        sim.add_flow({5, 9, 1 << 20, 64, 0, {}, -1});
        if (fail) sim.set_t0_up(3, 7, false, 50 * kUs, fail == 1);
        // Drops at the dead switch's ports right after the failure.
        auto dead_drops = [](const FabricNet& n) {
            std::uint64_t d = 0;
            for (unsigned h = 28; h < 32; h++)
                d += n.port(n.nic_port(3, h)).drops + n.port(n.t0_down_port(3, h)).drops;
            for (unsigned t = 0; t < 4; t++)
                d += n.port(n.t0_up_port(3, 7, t)).drops + n.port(n.t1_down_port(3, t, 7)).drops;
            return d;
        };
        // What was already on its way to the dead switch when it died is
        // lost there within one fabric transit (queues of at most 1 MiB at
        // 100G: 84 us); nothing sent after the announcement is.
        std::uint64_t after_announce = 0;
        sim.at(150 * kUs, [&](FabricSim& s) { after_announce = dead_drops(s.net()); });
        const RunResult r = sim.run(50 * kMs);
        EXPECT_TRUE(r.done) << r.why;
        std::vector<FlowResult> f;
        for (std::size_t i = 0; i < sim.flows(); i++) f.push_back(sim.flow(i));
        if (fail == 1) EXPECT_EQ(dead_drops(sim.net()), after_announce);
        return std::make_pair(f, dead_drops(sim.net()));
    };
    const auto base = run(0).first;
    std::uint64_t lost[3] = {};
    for (int fail : {1, 2}) {
        SCOPED_TRACE(fail == 1 ? "announced" : "silent");
        const auto [f, drops] = run(fail);
        lost[fail] = drops;
        for (std::size_t i = 0; i < f.size(); i++) {
            EXPECT_EQ(f[i].bad_msgs, 0u);
            EXPECT_EQ(f[i].tx.timeouts, 0u) << "flow " << i;
            const double kept = f[i].goodput_bps() / base[i].goodput_bps();
            EXPECT_GE(kept, i < 2 ? 0.85 : 0.97) << "flow " << i;
            if (i < 2) EXPECT_LE(kept, 0.95) << "flow " << i << " lost no plane?";
        }
    }
    // Silent, the engines send into the dead switch until they find out.
    EXPECT_GT(lost[2], lost[1]);
}

// The RoCE-like baseline's transport: go-back-N on a NAK, on the timer
// for a lost tail; the receiver takes only the next expected packet.
TEST(RcFlow, GoBackNOnNakAndTimer) {
    RcFlow rc(10 * 1000, 1000, 4, 100 * kUs);  // 10 packets, window 4
    std::vector<RcSegment> out, ans;
    rc.pump(0, out);
    ASSERT_EQ(out.size(), 4u);
    EXPECT_EQ(rc.deadline(), 100 * kUs);
    // Packet 1 is lost: 0 is acknowledged, 2 draws the NAK, 3 nothing.
    rc.on_data(10, out[0], ans);
    rc.on_data(11, out[2], ans);
    rc.on_data(12, out[3], ans);
    ASSERT_EQ(ans.size(), 2u);
    EXPECT_EQ(ans[0].kind, RcSegment::Ack);
    EXPECT_EQ(ans[0].psn, 1u);
    EXPECT_EQ(ans[1].kind, RcSegment::Nak);
    EXPECT_EQ(ans[1].psn, 1u);
    out.clear();
    rc.on_control(20, ans[0], out);  // ACK 1: one more fits (4)
    ASSERT_EQ(out.size(), 1u);
    EXPECT_EQ(out[0].psn, 4u);
    out.clear();
    rc.on_control(21, ans[1], out);  // NAK 1: back to 1, the window again
    ASSERT_EQ(out.size(), 4u);
    EXPECT_EQ(out[0].psn, 1u);
    EXPECT_EQ(out[3].psn, 4u);
    EXPECT_EQ(rc.naks(), 1u);
    EXPECT_EQ(rc.retransmits(), 4u);  // 1..4 were all sent before
    // A lost tail has nothing behind it to draw a NAK: the timer.
    RcFlow tail(2 * 1000, 1000, 4, 100 * kUs);
    out.clear();
    ans.clear();
    tail.pump(0, out);
    ASSERT_EQ(out.size(), 2u);
    tail.on_data(10, out[0], ans);  // packet 1 lost
    std::vector<RcSegment> none;
    tail.on_control(20, ans[0], none);
    EXPECT_TRUE(none.empty());
    EXPECT_EQ(tail.deadline(), 20 + 100 * kUs);
    tail.on_timer(tail.deadline() - 1, none);
    EXPECT_TRUE(none.empty());
    tail.on_timer(tail.deadline(), none);
    ASSERT_EQ(none.size(), 1u);
    EXPECT_EQ(none[0].psn, 1u);
    EXPECT_EQ(tail.timeouts(), 1u);
    ans.clear();
    tail.on_data(200 * kUs, none[0], ans);
    EXPECT_TRUE(tail.done());
    EXPECT_EQ(tail.delivered_bytes(), 2000u);
}

// The baseline over the fabric: one hashed path, loss recovered by going
// back, every byte delivered.
TEST(FabricSim, RoceBaselineRecoversLossByGoingBack) {
    FabricSimConfig c = fabric_cfg(32, 8);
    c.rc_baseline = true;
    c.net.routing = Routing::Ecmp;
    c.net.loss = 0.01;
    FabricSim sim(c);
    sim.add_flow({31, 1, 1 << 20, 8, 0, {}, -1});
    const RunResult r = sim.run(50 * kMs);
    ASSERT_TRUE(r.done) << r.why;
    const FlowResult f = sim.flow(0);
    EXPECT_EQ(f.delivered_bytes, 8u << 20);
    EXPECT_GT(f.tx.rx_nacks, 0u);
    EXPECT_GT(f.tx.tx_rtx_pkts, f.tx.rx_nacks);  // a NAK costs the window behind it
    // One 100G port at most.
    EXPECT_LT(f.goodput_bps(), 100e9);
}

namespace {

struct CollectiveRun {
    RunResult r;
    std::vector<FlowResult> flows;
    std::uint64_t timeouts = 0;
    std::uint64_t max_nic_backlog = 0;
    std::uint64_t trims = 0;
    std::uint64_t share_cuts = 0;
    Time end = 0;
};

CollectiveRun run_flows(const FabricSimConfig& c, const std::vector<FlowSpec>& specs) {
    FabricSim sim(c);
    for (const FlowSpec& f : specs) sim.add_flow(f);
    CollectiveRun out;
    out.r = sim.run(50 * kMs);
    for (std::size_t i = 0; i < sim.flows(); i++) {
        out.flows.push_back(sim.flow(i));
        out.timeouts += out.flows.back().tx.timeouts;
        out.share_cuts += out.flows.back().tx.iw_share_cuts;
        out.end = std::max(out.end, out.flows.back().last_delivery);
    }
    for (std::uint32_t p = 0; p < sim.net().port_count(); p++) out.trims += sim.net().port(p).trims;
    for (unsigned p = 0; p < c.net.planes; p++)
        for (unsigned h = 0; h < c.net.hosts; h++)
            out.max_nic_backlog =
                std::max(out.max_nic_backlog, sim.net().port(sim.net().nic_port(p, h)).max_backlog);
    return out;
}

}  // namespace

TEST(FabricPatterns, BuildWhatTheySay) {
    EXPECT_EQ(all_to_all(16, 4096, 2).size(), 16u * 15u);
    // Every ring neighbour is under another T0; every host once.
    const auto ring = ring_order(32, 4);
    std::vector<unsigned> sorted = ring;
    std::sort(sorted.begin(), sorted.end());
    for (unsigned h = 0; h < 32; h++) EXPECT_EQ(sorted[h], h);
    for (unsigned i = 0; i < 32; i++) EXPECT_NE(ring[i] / 4, ring[(i + 1) % 32] / 4) << i;
    const auto ar = ring_allreduce(ring, 32 << 20, 5);
    ASSERT_EQ(ar.size(), 32u);
    EXPECT_EQ(ar[0].msgs, 62u);
    EXPECT_EQ(ar[0].msg_bytes, 1u << 20);
    EXPECT_EQ(ar[0].after, 5 + 31);
    EXPECT_EQ(ar[7].after, 5 + 6);
    // Open loop: the offered load is what was asked (within 10 % over
    // ~2,000 messages), no host sends to itself, arrivals in the window.
    const double line_Bps = 100e9;
    const auto ol = open_loop(16, 0.5, line_Bps, 64 << 10, 300 * kUs, 3);
    double bytes = 0;
    for (const FlowSpec& f : ol) {
        EXPECT_NE(f.src, f.dst);
        EXPECT_EQ(f.arrivals.size(), f.msgs);
        EXPECT_TRUE(std::is_sorted(f.arrivals.begin(), f.arrivals.end()));
        EXPECT_LT(f.arrivals.back(), 300 * kUs);
        bytes += static_cast<double>(f.msgs) * f.msg_bytes;
    }
    const double offered = bytes / 16 / 300e-6;
    EXPECT_NEAR(offered, 0.5 * line_Bps, 0.1 * 0.5 * line_Bps);
}

// A host's NIC takes packets as its port can send them: in an all-to-all
// (every host 15 MiB to 15 peers at once) no host queues more than its
// transmit room in its own ports, and no packet times out. Unbounded
// (nic_room_bytes 0), each host queued its engines' first windows, 7 MiB,
// and the retransmit timers fired on packets still waiting in the sender.
TEST(FabricSim, AllToAllWithinTheNicsRoomWithoutTimeouts) {
    FabricSimConfig c = fabric_cfg(16, 8);
    const CollectiveRun a = run_flows(c, all_to_all(16, 1 << 20, 1));
    ASSERT_TRUE(a.r.done) << a.r.why;
    for (const FlowResult& f : a.flows) EXPECT_EQ(f.delivered_msgs, 1u);
    EXPECT_EQ(a.timeouts, 0u);
    EXPECT_LE(a.max_nic_backlog, c.nic_room_bytes + 2 * (c.mtu + 200));
}

// A host's engines split one initial window while they start (struct
// mrc_iw_share): in an all-to-all (every host 256 KiB to each of 15 peers
// at once) fewer than half as many packets are trimmed as with a window per
// engine (about 3,800 against 8,400), and the exchange ends no later. A
// host with one flow (a permutation) sends exactly as it did without.
TEST(FabricSim, AllToAllSharesEachHostsInitialWindow) {
    FabricSimConfig c = fabric_cfg(16, 8);
    c.iw_share = false;
    const CollectiveRun own = run_flows(c, all_to_all(16, 256 << 10, 1));
    c.iw_share = true;
    const CollectiveRun shared = run_flows(c, all_to_all(16, 256 << 10, 1));
    ASSERT_TRUE(own.r.done && shared.r.done);
    for (const FlowResult& f : shared.flows) EXPECT_EQ(f.delivered_msgs, 1u);
    EXPECT_EQ(own.share_cuts, 0u);
    EXPECT_GE(shared.share_cuts, 16u * 14u);
    EXPECT_LT(shared.trims, own.trims / 2) << shared.trims << " against " << own.trims;
    EXPECT_LE(shared.end, own.end);
    EXPECT_EQ(shared.timeouts, 0u);

    FabricSimConfig p = fabric_cfg(32, 8);
    p.iw_share = false;
    const auto g_own = run_permutation(p, 4);
    p.iw_share = true;
    EXPECT_EQ(run_permutation(p, 4), g_own);
}

// Ring all-reduce: a host sends step s's chunk only after it received
// step s - 1's, and the ring keeps most of the line rate (bus bandwidth
// >= 70 % of 8 ports: each of the 14 steps pays a round trip).
TEST(FabricSim, RingAllReduceStepsWaitForTheirPredecessor) {
    FabricSimConfig c = fabric_cfg(8, 8);
    const auto ring = ring_order(8, 4);
    // One host starts 50 us late: everyone's later steps wait for it.
    auto late = ring_allreduce(ring, 32 << 20, 0);
    late[0].start = 50 * kUs;
    const CollectiveRun w = run_flows(c, late);
    ASSERT_TRUE(w.r.done) << w.r.why;
    for (std::size_t i = 0; i < w.flows.size(); i++) {
        const FlowResult& f = w.flows[i];
        const FlowResult& pred = w.flows[static_cast<std::size_t>(f.spec.after)];
        ASSERT_EQ(f.msg_done.size(), 14u);
        // Step s arrived at least one crossing (4 hops) after step s - 1
        // arrived at its sender.
        for (std::size_t s = 1; s < f.msg_done.size(); s++)
            EXPECT_GE(f.msg_done[s], pred.msg_done[s - 1] + 4 * c.net.link_delay_ns)
                << "flow " << i << " step " << s;
    }
    const CollectiveRun a = run_flows(c, ring_allreduce(ring, 32 << 20, 0));
    ASSERT_TRUE(a.r.done) << a.r.why;
    Time end = 0;
    for (const FlowResult& f : a.flows) end = std::max(end, f.last_delivery);
    const double busbw = 2.0 * 7 / 8 * (32 << 20) * 8 / static_cast<double>(end);
    EXPECT_GE(busbw, 0.7 * 8 * port_payload_gbps(c)) << busbw << " Gb/s";
}

// Open-loop arrivals: no message leaves before it arrives, and at 30 %
// load messages finish close to alone (p99 slowdown below 3: 64 KiB at
// 8 ports is 0.7 us, plus 2 us of propagation).
TEST(FabricSim, OpenLoopMessagesLeaveAtTheirArrival) {
    FabricSimConfig c = fabric_cfg(16, 8);
    const double line_Bps = 8 * port_payload_gbps(c) * 1e9 / 8;
    const CollectiveRun a = run_flows(c, open_loop(16, 0.3, line_Bps, 64 << 10, 200 * kUs, 1));
    ASSERT_TRUE(a.r.done) << a.r.why;
    const double alone = (64 << 10) * 1e9 / line_Bps + 4.0 * c.net.link_delay_ns;
    std::vector<double> slow;
    for (const FlowResult& f : a.flows) {
        ASSERT_EQ(f.msg_done.size(), f.spec.msgs);
        for (std::size_t m = 0; m < f.msg_done.size(); m++) {
            EXPECT_GE(f.msg_done[m], f.spec.arrivals[m] + 4 * c.net.link_delay_ns);
            slow.push_back(static_cast<double>(f.msg_done[m] - f.spec.arrivals[m]) / alone);
        }
    }
    ASSERT_GT(slow.size(), 500u);
    std::sort(slow.begin(), slow.end());
    EXPECT_LT(slow[slow.size() * 99 / 100], 3.0);
    EXPECT_EQ(a.timeouts, 0u);
}

// Random loss on every T0 -> T1 link (the paper's loss sweep), one flow of
// 64 MiB over 8 planes: MRC keeps >= 90 % of its loss-free goodput at 0.1 %
// and at 1 % (the paper: line rate at 0.1 %, a third at 1 %), without a
// timeout, and keeps more of it than the RoCE-like baseline (one hashed
// path, go-back-N) keeps of its own at 1 %.
TEST(FabricSim, RandomLossKeepsTheGoodput) {
    auto goodput = [](double loss, bool roce) {
        FabricSimConfig c = fabric_cfg(32, 8);
        c.net.loss = loss;
        if (roce) {
            c.rc_baseline = true;
            c.net.routing = Routing::Ecmp;
        }
        const CollectiveRun a = run_flows(c, {{31, 1, 1 << 20, 64, 0, {}, -1}});
        EXPECT_TRUE(a.r.done) << a.r.why;
        if (!roce) EXPECT_EQ(a.timeouts, 0u) << "loss " << loss;
        return a.flows[0].goodput_bps();
    };
    const double clean = goodput(0, false);
    const double at01 = goodput(0.001, false) / clean;
    const double at1 = goodput(0.01, false) / clean;
    const double roce1 = goodput(0.01, true) / goodput(0, true);
    EXPECT_GE(at01, 0.9);
    EXPECT_GE(at1, 0.9);
    EXPECT_GT(at1, roce1) << "RoCE-like keeps " << roce1;
    std::printf("[ figures  ] kept at 0.1 %%: %.3f, at 1 %%: %.3f (RoCE-like %.3f)\n", at01, at1,
                roce1);
}
