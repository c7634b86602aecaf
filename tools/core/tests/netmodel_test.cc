// SPDX-License-Identifier: GPL-2.0 OR MIT
//
// Unit tests of the deterministic network model (tools/sim/netmodel.h).
#include "netmodel.h"

#include <gtest/gtest.h>

#include <cmath>
#include <vector>

using namespace mrc::sim;

namespace {

Packet pkt(std::uint32_t ev, std::size_t len, Kind kind = Kind::Data, std::uint64_t tag = 0,
           std::uint32_t trim_keep = 0) {
    Packet p;
    p.ev = ev;
    p.bytes.assign(len, static_cast<std::uint8_t>(tag));
    p.kind = kind;
    p.tag = tag;
    p.trim_keep = trim_keep;
    return p;
}

std::vector<Delivery> drain(Network& n, Time until = kNever) {
    std::vector<Delivery> out;
    for (;;) {
        Time t = n.next_event();
        if (t == kNever || t > until) break;
        while (auto d = n.pop_due(t)) out.push_back(std::move(*d));
    }
    return out;
}

NetworkConfig base(unsigned planes = 2, unsigned paths = 4, std::uint64_t seed = 7) {
    NetworkConfig c;
    c.planes = planes;
    c.paths_per_plane = paths;
    c.seed = seed;
    c.link.delay_ns = 5 * kUs;
    return c;
}

}  // namespace

TEST(NetModel, EvConvention) {
    Network n(base(4, 3));
    for (unsigned p = 0; p < 4; p++)
        for (unsigned k = 0; k < 3; k++)
            for (std::uint32_t salt : {0u, 1u, 12345u, 0xffffffu}) {
                std::uint32_t ev = n.make_ev(p, k, salt);
                EXPECT_EQ(Network::ev_plane(ev), p);
                EXPECT_EQ(n.ev_path(ev), k);
                EXPECT_EQ(ev >> 24, p);
                EXPECT_EQ((ev & 0xffffff) % 3, k);
            }
    // Plane 9 does not exist: dropped and counted, nothing delivered.
    EXPECT_FALSE(n.send(0, Dir::AtoB, pkt(0x09000001, 100)));
    EXPECT_EQ(n.dropped_bad_plane(), 1u);
    EXPECT_TRUE(n.idle());
}

TEST(NetModel, DelayExact) {
    Network n(base());
    const std::uint32_t ev = n.make_ev(1, 2);
    ASSERT_TRUE(n.send(1000, Dir::AtoB, pkt(ev, 1500)));
    EXPECT_EQ(n.next_event(), 1000 + 5 * kUs);
    EXPECT_FALSE(n.pop_due(1000 + 5 * kUs - 1).has_value());
    auto d = n.pop_due(1000 + 5 * kUs);
    ASSERT_TRUE(d.has_value());
    EXPECT_EQ(d->at, 1000 + 5 * kUs);
    EXPECT_EQ(d->plane, 1);
    EXPECT_EQ(d->path, 2u);
    EXPECT_EQ(d->dir, Dir::AtoB);
    EXPECT_EQ(d->pkt.bytes.size(), 1500u);
    EXPECT_FALSE(d->pkt.ecn_ce);
    EXPECT_FALSE(d->pkt.trimmed);
    const auto& c = n.counters(1, 2, Dir::AtoB);
    EXPECT_EQ(c.offered_pkts[0], 1u);
    EXPECT_EQ(c.delivered_pkts[0], 1u);
    EXPECT_EQ(c.delivered_bytes, 1500u);
    EXPECT_EQ(n.counters(1, 2, Dir::BtoA).offered_total(), 0u);
}

TEST(NetModel, RateSerialisesFifo) {
    auto cfg = base(1, 1);
    cfg.link.rate_Bps = 1'000'000'000;  // 1 GB/s: 1000 B = 1 us
    Network n(cfg);
    const std::uint32_t ev = n.make_ev(0, 0);
    for (int i = 0; i < 10; i++) ASSERT_TRUE(n.send(0, Dir::AtoB, pkt(ev, 1000, Kind::Data, i)));
    EXPECT_EQ(n.backlog(0, 0, Dir::AtoB, 0), 10'000u);
    EXPECT_EQ(n.backlog(0, 0, Dir::AtoB, 4 * kUs), 6'000u);
    auto ds = drain(n);
    ASSERT_EQ(ds.size(), 10u);
    for (int i = 0; i < 10; i++) {
        EXPECT_EQ(ds[i].pkt.tag, static_cast<std::uint64_t>(i));
        EXPECT_EQ(ds[i].at, (i + 1) * kUs + 5 * kUs);
    }
    // Throughput over a long run equals the configured rate.
    Network m(cfg);
    for (int i = 0; i < 5000; i++) m.send(0, Dir::AtoB, pkt(ev, 4000));
    auto all = drain(m);
    ASSERT_EQ(all.size(), 5000u);
    EXPECT_EQ(all.back().at, 20 * kMs + 5 * kUs);
}

TEST(NetModel, QueueLimitTailDrops) {
    auto cfg = base(1, 1);
    cfg.link.rate_Bps = 1'000'000'000;
    cfg.link.queue_limit_bytes = 5000;
    Network n(cfg);
    const std::uint32_t ev = n.make_ev(0, 0);
    int ok = 0;
    for (int i = 0; i < 10; i++) ok += n.send(0, Dir::AtoB, pkt(ev, 1000));
    EXPECT_EQ(ok, 5);
    EXPECT_EQ(n.counters(0, 0, Dir::AtoB).dropped_queue, 5u);
    EXPECT_EQ(drain(n).size(), 5u);
}

TEST(NetModel, LossRateWithinTolerance) {
    auto cfg = base(2, 2, 42);
    cfg.link.loss = 0.05;
    Network n(cfg);
    const int N = 40000;
    for (int i = 0; i < N; i++) n.send(i, Dir::AtoB, pkt(n.make_ev(i % 2, (i / 2) % 2), 64));
    auto ds = drain(n);
    const double lost = 1.0 - static_cast<double>(ds.size()) / N;
    EXPECT_NEAR(lost, 0.05, 0.005);
    auto tot = n.total_counters(Dir::AtoB);
    EXPECT_EQ(tot.dropped_loss + ds.size(), static_cast<std::uint64_t>(N));
    // Every link individually within a looser band.
    for (unsigned p = 0; p < 2; p++)
        for (unsigned k = 0; k < 2; k++) {
            const auto& c = n.counters(p, k, Dir::AtoB);
            EXPECT_NEAR(static_cast<double>(c.dropped_loss) / c.offered_total(), 0.05, 0.01);
        }
}

TEST(NetModel, DeterministicForSeed) {
    auto run = [](std::uint64_t seed) {
        auto cfg = base(2, 3, seed);
        cfg.link.rate_Bps = 10'000'000'000ULL;
        cfg.link.loss = 0.1;
        cfg.link.dup = 0.05;
        cfg.link.jitter_ns = 3 * kUs;
        cfg.link.ecn_prob = 0.1;
        cfg.link.trim_prob = 0.05;
        Network n(cfg);
        std::vector<std::pair<Time, std::uint64_t>> seq;
        for (int i = 0; i < 3000; i++) {
            n.send(i * 100, i & 1 ? Dir::BtoA : Dir::AtoB,
                   pkt(n.make_ev(i % 2, i % 3, i), 200 + i % 1000, Kind::Data, i, 64));
            while (auto d = n.pop_due(i * 100))
                seq.emplace_back(
                    d->at, d->pkt.tag * 8 + d->pkt.ecn_ce * 4 + d->pkt.trimmed * 2 + d->duplicate);
        }
        for (auto& d : drain(n))
            seq.emplace_back(d.at,
                             d.pkt.tag * 8 + d.pkt.ecn_ce * 4 + d.pkt.trimmed * 2 + d.duplicate);
        return std::make_pair(seq, n.counters_json());
    };
    auto a = run(1234), b = run(1234), c = run(1235);
    EXPECT_EQ(a.first, b.first);
    EXPECT_EQ(a.second, b.second);
    EXPECT_NE(a.first, c.first);
}

TEST(NetModel, PerLinkStreamsAreIndependent) {
    // Changing path 1's loss must not change what path 0 delivers.
    auto run = [](double loss1) {
        auto cfg = base(1, 2, 99);
        cfg.link.loss = 0.2;
        Network n(cfg);
        n.link(0, 1, Dir::AtoB).loss = loss1;
        std::vector<std::uint64_t> tags;
        for (int i = 0; i < 2000; i++)
            n.send(i, Dir::AtoB, pkt(n.make_ev(0, i % 2), 64, Kind::Data, i));
        for (auto& d : drain(n))
            if (d.path == 0) tags.push_back(d.pkt.tag);
        return tags;
    };
    EXPECT_EQ(run(0.2), run(0.9));
}

TEST(NetModel, JitterReordersAndDupCopies) {
    auto cfg = base(1, 1, 5);
    cfg.link.jitter_ns = 10 * kUs;
    cfg.link.dup = 0.1;
    Network n(cfg);
    const int N = 5000;
    for (int i = 0; i < N; i++)
        n.send(i * 500, Dir::AtoB, pkt(n.make_ev(0, 0), 100, Kind::Data, i));
    auto ds = drain(n);
    int inversions = 0, dups = 0;
    for (std::size_t i = 1; i < ds.size(); i++) inversions += ds[i].pkt.tag < ds[i - 1].pkt.tag;
    for (auto& d : ds) dups += d.duplicate;
    EXPECT_GT(inversions, N / 10);
    EXPECT_NEAR(static_cast<double>(dups) / N, 0.1, 0.015);
    EXPECT_EQ(ds.size(), static_cast<std::size_t>(N + dups));
    EXPECT_EQ(n.counters(0, 0, Dir::AtoB).duplicated, static_cast<std::uint64_t>(dups));
    EXPECT_EQ(n.counters(0, 0, Dir::AtoB).duplicated_pkts[0], static_cast<std::uint64_t>(dups));
    for (std::size_t i = 1; i < ds.size(); i++) EXPECT_GE(ds[i].at, ds[i - 1].at);
}

TEST(NetModel, EcnThresholdMarksQueuedPackets) {
    auto cfg = base(1, 2);
    cfg.link.rate_Bps = 1'000'000'000;
    Network n(cfg);
    n.link(0, 1, Dir::AtoB).ecn_threshold_bytes = 3000;
    for (int i = 0; i < 10; i++) {
        n.send(0, Dir::AtoB, pkt(n.make_ev(0, 0), 1000));
        n.send(0, Dir::AtoB, pkt(n.make_ev(0, 1), 1000));
    }
    // Path 1: backlog at enqueue 0,1000,...; >= 3000 for packets 3..9.
    EXPECT_EQ(n.counters(0, 1, Dir::AtoB).ecn_marked, 7u);
    EXPECT_EQ(n.counters(0, 0, Dir::AtoB).ecn_marked, 0u);
    int ce = 0;
    for (auto& d : drain(n)) ce += d.pkt.ecn_ce;
    EXPECT_EQ(ce, 7);
}

TEST(NetModel, TrimmingCutsPayloadAndJumpsQueue) {
    auto cfg = base(1, 1);
    cfg.link.rate_Bps = 1'000'000'000;
    cfg.link.trim_threshold_bytes = 4000;
    Network n(cfg);
    const std::uint32_t ev = n.make_ev(0, 0);
    for (int i = 0; i < 8; i++) n.send(0, Dir::AtoB, pkt(ev, 1000, Kind::Data, i, 48));
    // A non-trimmable packet (trim_keep 0) over the threshold just queues.
    n.send(0, Dir::AtoB, pkt(ev, 1000, Kind::Ack, 8, 0));
    auto ds = drain(n);
    ASSERT_EQ(ds.size(), 9u);
    EXPECT_EQ(n.counters(0, 0, Dir::AtoB).trimmed, 4u);
    int trimmed = 0;
    for (auto& d : ds) {
        if (d.pkt.trimmed) {
            trimmed++;
            EXPECT_EQ(d.pkt.bytes.size(), 48u);
            EXPECT_GE(d.pkt.tag, 4u);
            EXPECT_LT(d.at, 1 * kUs + 5 * kUs);  // overtook the queued data
        } else {
            EXPECT_EQ(d.pkt.bytes.size(), 1000u);
        }
    }
    EXPECT_EQ(trimmed, 4);
    EXPECT_EQ(ds.back().pkt.tag, 8u);
    EXPECT_EQ(ds.back().at, 5 * kUs + 5 * kUs);
}

TEST(NetModel, BlackholeAndUpDown) {
    auto cfg = base(2, 2);
    Network n(cfg);
    n.blackhole_path(0, 1, 100 * kUs);
    n.set_path_up(1, 0, false, 50 * kUs);
    n.set_path_up(1, 0, true, 80 * kUs);
    n.set_plane_up(1, false, 200 * kUs);
    auto ev = [&](unsigned p, unsigned k) { return n.make_ev(p, k); };
    for (Time t = 0; t < 300 * kUs; t += 10 * kUs) {
        for (unsigned p = 0; p < 2; p++)
            for (unsigned k = 0; k < 2; k++) {
                n.send(t, Dir::AtoB, pkt(ev(p, k), 100));
                n.send(t, Dir::BtoA, pkt(ev(p, k), 10, Kind::Ack));
            }
        while (n.pop_due(t)) {
        }
    }
    drain(n);
    // 30 sends per link. Blackhole from 100us: sends at 0..90 (10) and the one
    // at 90 arrives at 95 < 100 -> 10 delivered, 20 dropped.
    const auto& bh = n.counters(0, 1, Dir::AtoB);
    EXPECT_EQ(bh.delivered_total(), 10u);
    EXPECT_EQ(bh.dropped_blackhole, 20u);
    EXPECT_EQ(n.counters(0, 1, Dir::BtoA).dropped_blackhole, 20u);
    EXPECT_EQ(n.counters(0, 0, Dir::AtoB).delivered_total(), 30u);
    // Path (1,0) down for [50, 80): the sends at 50,60,70 fail at enqueue,
    // the one at 40 arrives at 45 (fine); plane 1 down from 200: 10 more.
    const auto& dn = n.counters(1, 0, Dir::AtoB);
    EXPECT_EQ(dn.dropped_down, 3u + 10u);
    EXPECT_EQ(dn.delivered_total(), 17u);
    EXPECT_EQ(n.counters(1, 1, Dir::AtoB).dropped_down, 10u);
    EXPECT_FALSE(n.plane_up(1));
    EXPECT_TRUE(n.path_up(0, 0));
    EXPECT_FALSE(n.path_up(1, 1));
}

TEST(NetModel, InFlightPacketsDieWhenPathGoesDown) {
    Network n(base(1, 1));
    n.send(0, Dir::AtoB, pkt(n.make_ev(0, 0), 100));
    n.set_path_up(0, 0, false, 2 * kUs);  // before the 5us arrival
    EXPECT_TRUE(drain(n).empty());
    EXPECT_EQ(n.counters(0, 0, Dir::AtoB).dropped_down, 1u);
}
