// SPDX-License-Identifier: GPL-2.0 OR MIT
//
// conn_test.cc - two engines wired back to back through the wire codec
// (mrc_pkt_encode -> bytes -> mrc_pkt_decode), with a tiny deterministic
// network in between (delay per path, loss, trimming, ECN, duplication,
// blackholes), plus configuration and API tests of kmod/core/mrc_conn.c.
#include <gtest/gtest.h>

#include <algorithm>
#include <cstring>
#include <functional>
#include <map>
#include <random>
#include <vector>

extern "C" {
#include "mrc_core.h"
}

namespace {

constexpr u64 kUs = 1000;
constexpr u64 kMs = 1000 * kUs;

enum Fate { kDeliver, kDrop, kTrim, kMark, kDup };

u8 pattern(u64 cookie, u32 off) { return static_cast<u8>(cookie * 131 + off * 7 + (off >> 8)); }

struct Pair {
    struct Pkt {
        u64 at;
        u64 seq;
        int to;
        std::vector<u8> bytes;
        u32 hdr_len;
        u32 ev;
        bool ce;
        bool trimmed;
    };

    mrc_conn_cfg cfg[2]{};
    mrc_conn* c[2]{};
    u64 now = 0;
    u64 seq = 0;
    u64 base_delay = 4 * kUs;
    std::vector<Pkt> q;
    std::function<Fate(int from, const mrc_tx_desc&)> fate;
    std::map<u64, std::vector<u8>> tx_msgs[2];
    std::map<u16, std::vector<u8>> rx_bufs[2];
    std::vector<std::vector<u8>> delivered[2];
    std::vector<u64> completed[2];
    std::vector<mrc_event> events[2];
    std::vector<mrc_tx_desc> sent[2];
    bool drain_deliveries[2] = {true, true};
    bool hold_events[2] = {false, false};
    u64 next_cookie = 1;
    u64 tx_by_plane[2][MRC_MAX_PLANES]{};

    explicit Pair(u8 planes = 4) {
        for (int i = 0; i < 2; i++) {
            mrc_conn_cfg_init(&cfg[i], planes);
            cfg[i].local_conn_id = static_cast<u16>(10 + i);
            cfg[i].peer_conn_id = static_cast<u16>(11 - i);
            cfg[i].seed = 100 + i;
            cfg[i].mtu = 1024;
            cfg[i].rto_exp = 7;  // 131 us
            cfg[i].probe_interval_ns = 300 * kUs;
            cfg[i].probe_max_interval_ns = 2 * kMs;
            cfg[i].sack_delay_ns = 10 * kUs;
            cfg[i].cc.base_rtt_ns = 10 * kUs;
            cfg[i].event_queue_len = 4096;
        }
    }
    ~Pair() {
        for (auto* x : c) mrc_conn_destroy(x);
    }
    void create() {
        for (int i = 0; i < 2; i++) ASSERT_EQ(mrc_conn_create(&cfg[i], now, &c[i]), MRC_OK);
    }
    u64 send(int from, u32 len, bool imm = false) {
        u64 cookie = next_cookie++;
        std::vector<u8> b(len);

        for (u32 j = 0; j < len; j++) b[j] = pattern(cookie, j);
        int rc = mrc_conn_send(c[from], now, len, static_cast<u32>(cookie), imm ? MRC_SEND_IMM : 0,
                               cookie, nullptr);
        if (rc != MRC_OK) return 0;
        tx_msgs[from][cookie] = std::move(b);
        return cookie;
    }
    u64 delay_of(u32 ev) const { return base_delay + ((ev & 0xffffff) % 5) * 300; }

    void flush(int i) {
        mrc_tx_desc d;

        while (mrc_conn_poll_tx(c[i], now, &d) == MRC_OK) {
            std::vector<u8> buf(128 + d.payload_len);
            if (d.kind == MRC_TX_DATA) {
                auto& m = tx_msgs[i].at(d.cookie);
                d.pkt.payload = m.data() + d.msg_offset;
            }
            int n = mrc_pkt_encode(&d.pkt, buf.data(), static_cast<u32>(buf.size()));
            ASSERT_GT(n, 0) << mrc_wire_strerror(n);
            buf.resize(n);
            sent[i].push_back(d);
            tx_by_plane[i][d.plane]++;
            Fate f = fate ? fate(i, d) : kDeliver;
            if (f == kDrop) continue;
            Pkt p{now + delay_of(d.ev),    seq++, 1 - i,      buf,
                  mrc_pkt_hdr_len(&d.pkt), d.ev,  f == kMark, false};
            if (f == kTrim && d.kind == MRC_TX_DATA) p.trimmed = true;
            if (f == kDup) {
                Pkt p2 = p;
                p2.seq = seq++;
                p2.at += 700;
                q.push_back(p2);
            }
            q.push_back(p);
        }
    }
    void drain(int i) {
        mrc_event e;

        if (hold_events[i]) return;
        while (true) {
            if (!drain_deliveries[i]) {
                // Only informational events and completions.
                if (!mrc_evq_pop(&c[i]->evq, &e) && !mrc_req_poll_completion(c[i], &e)) break;
            } else if (mrc_conn_poll_event(c[i], &e) != MRC_OK) {
                break;
            }
            events[i].push_back(e);
            if (e.type == MRC_EVT_MSG_COMPLETED) {
                completed[i].push_back(e.u.msg.cookie);
                tx_msgs[i].erase(e.u.msg.cookie);
            } else if (e.type == MRC_EVT_MSG_DELIVERED) {
                auto it = rx_bufs[i].find(e.u.msg.msn);
                ASSERT_NE(it, rx_bufs[i].end());
                ASSERT_EQ(it->second.size(), e.u.msg.len);
                delivered[i].push_back(std::move(it->second));
                rx_bufs[i].erase(it);
            }
        }
    }
    void deliver(Pkt& p) {
        mrc_pkt pkt;
        u32 flags = p.ce ? MRC_RXF_ECN_CE : 0;
        int rc;

        if (p.trimmed)
            rc = mrc_pkt_decode_flags(p.bytes.data(), p.hdr_len, MRC_DECODE_TRIMMED, &pkt);
        else
            rc = mrc_pkt_decode(p.bytes.data(), static_cast<u32>(p.bytes.size()), &pkt);
        ASSERT_EQ(rc, 0) << mrc_wire_strerror(rc);
        rc = mrc_conn_rx(c[p.to], now, &pkt, p.ev, flags);
        if (rc == MRC_RX_PLACE_NEW) rx_bufs[p.to][pkt.meth.msn].assign(pkt.reth.dma_len, 0);
        if (rc == MRC_RX_PLACE || rc == MRC_RX_PLACE_NEW) {
            auto& b = rx_bufs[p.to].at(pkt.meth.msn);
            ASSERT_LE(pkt.reth.va + pkt.payload_len, b.size());
            if (pkt.payload_len) std::memcpy(b.data() + pkt.reth.va, pkt.payload, pkt.payload_len);
        }
    }
    void pump() {
        for (int i = 0; i < 2; i++) {
            flush(i);
            drain(i);
        }
    }
    // Advance to the next event; false when nothing is left before @limit.
    bool step(u64 limit) {
        u64 next = MRC_NO_DEADLINE;

        for (const auto& p : q) next = std::min(next, p.at);
        for (int i = 0; i < 2; i++) next = std::min(next, mrc_conn_next_deadline(c[i]));
        if (next == MRC_NO_DEADLINE || next > limit) return false;
        now = std::max(now, next);
        std::sort(q.begin(), q.end(), [](const Pkt& a, const Pkt& b) {
            return a.at != b.at ? a.at < b.at : a.seq < b.seq;
        });
        size_t k = 0;
        while (k < q.size() && q[k].at <= now) {
            deliver(q[k]);
            k++;
        }
        q.erase(q.begin(), q.begin() + k);
        for (int i = 0; i < 2; i++)
            if (mrc_conn_next_deadline(c[i]) <= now) mrc_conn_on_timer(c[i], now);
        pump();
        return true;
    }
    void run(u64 until) {
        pump();
        while (step(until))
            ;
        if (now < until) now = until;
    }
    mrc_conn_stats stats(int i) const {
        mrc_conn_stats st;

        mrc_conn_get_stats(c[i], &st);
        return st;
    }
    size_t count(int i, u8 type) const {
        size_t n = 0;

        for (const auto& e : events[i]) n += e.type == type;
        return n;
    }
    // Content of every delivered message matches what was sent, in order.
    void check_delivered(int to, const std::vector<u64>& cookies) const {
        ASSERT_EQ(delivered[to].size(), cookies.size());
        for (size_t k = 0; k < cookies.size(); k++) {
            const auto& b = delivered[to][k];
            for (u32 j = 0; j < b.size(); j++)
                ASSERT_EQ(b[j], pattern(cookies[k], j)) << "msg " << k << " byte " << j;
        }
    }
};

std::vector<u32> sizes(size_t n, u64 seed, u32 max) {
    std::mt19937_64 r(seed);
    std::vector<u32> v;

    for (size_t i = 0; i < n; i++) v.push_back(static_cast<u32>(r() % (max + 1)));
    return v;
}

// Queue as many of @lens as fit, then keep refilling while running.
std::vector<u64> transfer(Pair& net, int from, const std::vector<u32>& lens, u64 until) {
    std::vector<u64> cookies;
    const size_t done0 = net.completed[from].size();
    const size_t got0 = net.delivered[1 - from].size();
    size_t next = 0;

    while (net.now < until) {
        while (next < lens.size()) {
            u64 k = net.send(from, lens[next], next % 3 == 0);
            if (!k) break;
            cookies.push_back(k);
            next++;
        }
        net.pump();
        if (!net.step(until)) break;
        if (next == lens.size() && net.completed[from].size() - done0 == lens.size() &&
            net.delivered[1 - from].size() - got0 == lens.size())
            break;
    }
    return cookies;
}

TEST(ConnTest, LosslessTransferBothDirections) {
    Pair net;
    net.create();
    auto la = sizes(300, 1, 20000);
    auto lb = sizes(100, 2, 5000);
    std::vector<u64> ca, cb;
    for (u32 len : lb) {
        u64 k = net.send(1, len);
        ASSERT_NE(k, 0u);
        cb.push_back(k);
    }
    ca = transfer(net, 0, la, 200 * kMs);
    net.run(net.now + 5 * kMs);
    ASSERT_EQ(ca.size(), la.size());
    net.check_delivered(1, ca);
    net.check_delivered(0, cb);
    EXPECT_EQ(net.completed[0], ca);
    EXPECT_EQ(net.completed[1], cb);
    for (int i = 0; i < 2; i++) {
        auto st = net.stats(i);
        EXPECT_EQ(st.timeouts, 0u);
        EXPECT_EQ(st.tx_rtx_pkts, 0u);
        EXPECT_EQ(st.error, 0);
        EXPECT_EQ(st.inflight_pkts, 0u);
        EXPECT_EQ(st.rx_proto_err, 0u);
        EXPECT_GT(net.count(i, MRC_EVT_RTT_SAMPLE), 0u);
        EXPECT_GT(st.srtt_ns, 0u);
        // Every plane carried data.
        for (u8 p = 0; p < 4; p++) EXPECT_GT(net.tx_by_plane[i][p], 0u);
        // Per-EV counters add up to the connection's.
        u64 sum = 0;
        for (u16 e = 0; e < mrc_conn_num_evs(net.c[i]); e++) {
            mrc_ev_info info;
            ASSERT_EQ(mrc_conn_get_ev(net.c[i], e, &info), MRC_OK);
            sum += info.cnt.sent;
        }
        EXPECT_EQ(sum, st.tx_data_pkts);
        EXPECT_EQ(mrc_conn_next_deadline(net.c[i]), MRC_NO_DEADLINE);
    }
}

TEST(ConnTest, RandomLossAndDuplicationRecovered) {
    Pair net;
    std::mt19937_64 r(7);
    net.fate = [&](int, const mrc_tx_desc&) {
        u64 x = r() % 1000;
        return x < 30 ? kDrop : x < 40 ? kDup : kDeliver;
    };
    net.create();
    auto la = sizes(200, 3, 16000);
    auto ca = transfer(net, 0, la, 2000 * kMs);
    net.run(net.now + 20 * kMs);
    ASSERT_EQ(ca.size(), la.size());
    net.check_delivered(1, ca);
    EXPECT_EQ(net.completed[0], ca);
    auto sa = net.stats(0), sb = net.stats(1);
    EXPECT_GT(sa.tx_rtx_pkts, 0u);
    // Losses are found from later deliveries, not by waiting for timeouts.
    EXPECT_GT(sa.lost_inferred, 0u);
    EXPECT_GT(sa.tx_rtx_inferred, sa.tx_rtx_timeout);
    EXPECT_GT(sb.rx_dup_pkts, 0u);
    EXPECT_EQ(sa.error, 0);
    EXPECT_EQ(sb.error, 0);
    EXPECT_EQ(sa.inflight_pkts, 0u);
}

TEST(ConnTest, TrimmingUsesFastRetransmitNotTimeouts) {
    Pair net;
    std::mt19937_64 r(9);
    net.fate = [&](int from, const mrc_tx_desc& d) {
        return from == 0 && d.kind == MRC_TX_DATA && r() % 100 < 5 ? kTrim : kDeliver;
    };
    net.create();
    auto la = sizes(150, 4, 12000);
    auto ca = transfer(net, 0, la, 1000 * kMs);
    net.run(net.now + 5 * kMs);
    ASSERT_EQ(ca.size(), la.size());
    net.check_delivered(1, ca);
    auto sa = net.stats(0), sb = net.stats(1);
    EXPECT_GT(sb.rx_trimmed, 0u);
    EXPECT_EQ(sb.tx_nacks, sb.rx_trimmed);
    EXPECT_EQ(sa.tx_rtx_nack, sb.rx_trimmed);
    EXPECT_EQ(sa.timeouts, 0u);
    // Trims turned EVs SKIP, never ASSUMED_BAD.
    size_t skips = 0;
    for (const auto& e : net.events[0])
        if (e.type == MRC_EVT_EV_STATE) {
            EXPECT_NE(e.u.ev.new_state, MRC_EV_ASSUMED_BAD);
            skips += e.u.ev.cause == MRC_EVC_TRIM;
        }
    EXPECT_GT(skips, 0u);
}

TEST(ConnTest, BlackholedPathsAreAvoidedThenProbedBack) {
    Pair net(2);
    // Timeouts alone (no loss inference): the silence path stays covered.
    for (auto& c : net.cfg) c.reo_wnd_pm = 0, c.tlp = 0;
    net.create();
    // Blackhole three of A's active EVs (both directions of those paths).
    std::vector<u32> dead;
    for (u16 e = 0; e < mrc_conn_num_evs(net.c[0]) && dead.size() < 3; e++) {
        mrc_ev_info info;
        mrc_conn_get_ev(net.c[0], e, &info);
        if (info.active) dead.push_back(info.ev);
    }
    bool blackhole = true;
    net.fate = [&](int, const mrc_tx_desc& d) {
        bool hit = std::find(dead.begin(), dead.end(), d.ev) != dead.end();
        return blackhole && hit ? kDrop : kDeliver;
    };
    auto la = sizes(100, 5, 8000);
    auto ca = transfer(net, 0, la, 500 * kMs);
    ASSERT_EQ(ca.size(), la.size());
    net.check_delivered(1, ca);
    for (u32 ev : dead) {
        mrc_ev_info info;
        mrc_conn_get_ev(net.c[0], static_cast<u16>(mrc_conn_find_ev(net.c[0], ev)), &info);
        EXPECT_EQ(info.state, MRC_EV_ASSUMED_BAD);
        EXPECT_FALSE(info.active);
        EXPECT_GT(info.cnt.timeouts, 0u);
    }
    auto sa = net.stats(0);
    EXPECT_GE(sa.timeouts, 3u);
    // Once bad, the dead EVs carry no more data, only probes.
    auto on_dead = [&]() {
        u64 n = 0;
        for (const auto& d : net.sent[0])
            n += d.kind == MRC_TX_DATA && std::find(dead.begin(), dead.end(), d.ev) != dead.end();
        return n;
    };
    const u64 dead_data = on_dead();
    const u64 timeouts = sa.timeouts;
    auto lb = sizes(100, 15, 8000);
    auto cb = transfer(net, 0, lb, net.now + 500 * kMs);
    ASSERT_EQ(cb.size(), lb.size());
    EXPECT_EQ(on_dead(), dead_data);
    EXPECT_EQ(net.stats(0).timeouts, timeouts);
    net.run(net.now + 2 * kMs);
    EXPECT_GT(net.stats(0).tx_probes, 0u);
    EXPECT_EQ(net.count(0, MRC_EVT_PROBE_ANSWERED), 0u);
    ca.insert(ca.end(), cb.begin(), cb.end());
    net.check_delivered(1, ca);
    // Repair: the next probes come back and the EVs are GOOD again.
    blackhole = false;
    net.run(net.now + 10 * kMs);
    for (u32 ev : dead) {
        mrc_ev_info info;
        mrc_conn_get_ev(net.c[0], static_cast<u16>(mrc_conn_find_ev(net.c[0], ev)), &info);
        EXPECT_EQ(info.state, MRC_EV_GOOD);
        EXPECT_GT(info.cnt.probes_ok, 0u);
    }
    EXPECT_EQ(net.count(0, MRC_EVT_PROBE_ANSWERED), 3u);
    EXPECT_EQ(net.stats(1).rx_probes, net.count(0, MRC_EVT_PROBE_ANSWERED));
}

TEST(ConnTest, PlaneDownMidTransfer) {
    Pair net(4);
    net.create();
    bool down = false;
    net.fate = [&](int, const mrc_tx_desc& d) { return down && d.plane == 2 ? kDrop : kDeliver; };
    auto la = sizes(60, 6, 30000);
    std::vector<u64> ca;
    for (size_t i = 0; i < 30; i++) ca.push_back(net.send(0, la[i]));
    net.pump();
    net.step(net.now + 1 * kMs);
    down = true;
    ASSERT_EQ(mrc_conn_set_plane_up(net.c[0], net.now, 2, false), MRC_OK);
    ASSERT_EQ(mrc_conn_set_plane_up(net.c[1], net.now, 2, false), MRC_OK);
    const u64 before = net.tx_by_plane[0][2];
    std::vector<u32> rest(la.begin() + 30, la.end());
    auto more = transfer(net, 0, rest, net.now + 500 * kMs);
    ca.insert(ca.end(), more.begin(), more.end());
    net.run(net.now + 5 * kMs);
    ASSERT_EQ(ca.size(), la.size());
    net.check_delivered(1, ca);
    EXPECT_EQ(net.tx_by_plane[0][2], before);  // nothing more on plane 2
    EXPECT_EQ(net.stats(0).timeouts, 0u);
    EXPECT_GT(net.stats(0).tx_rtx_plane_down, 0u);
    EXPECT_EQ(net.count(0, MRC_EVT_PLANE), 1u);
}

TEST(ConnTest, PsnWrapEndToEnd) {
    Pair net(2);
    net.cfg[0].local_init_psn = 0xffff00;
    net.cfg[1].peer_init_psn = 0xffff00;
    net.cfg[1].local_init_psn = 0xfffff0;
    net.cfg[0].peer_init_psn = 0xfffff0;
    net.create();
    auto la = sizes(120, 8, 6000);
    auto ca = transfer(net, 0, la, 500 * kMs);
    ASSERT_EQ(ca.size(), la.size());
    net.check_delivered(1, ca);
    auto sa = net.stats(0);
    EXPECT_LT(sa.snd_nxt, 0x10000u);  // wrapped
    EXPECT_EQ(sa.snd_una, sa.snd_nxt);
    EXPECT_EQ(net.stats(1).rcv_cack, (sa.snd_nxt - 1) & MRC_PSN_MASK);
}

TEST(ConnTest, TotalBlackoutExhaustsRetryBudget) {
    Pair net(2);
    net.cfg[0].retry_budget = 20;
    net.create();
    net.fate = [](int, const mrc_tx_desc&) { return kDrop; };
    for (int i = 0; i < 4; i++) net.send(0, 4000);
    net.run(10000 * kMs);
    EXPECT_TRUE(mrc_conn_failed(net.c[0]));
    ASSERT_EQ(net.count(0, MRC_EVT_CONN_ERROR), 1u);
    for (const auto& e : net.events[0])
        if (e.type == MRC_EVT_CONN_ERROR) EXPECT_EQ(e.u.error.reason, MRC_CONN_ERR_RETRY);
    EXPECT_EQ(net.stats(0).timeouts, 21u);
    EXPECT_EQ(mrc_conn_next_deadline(net.c[0]), MRC_NO_DEADLINE);
    EXPECT_TRUE(net.completed[0].empty());
    // The floor kept usable EVs in the rotation throughout.
    EXPECT_GE(mrc_ev_usable(&net.c[0]->evm), net.cfg[0].ev_min_active);
}

TEST(ConnTest, EcnMarkedPathsCarryLess) {
    Pair net(1);
    for (auto& cf : net.cfg) {
        cf.ev_per_plane = 16;
        cf.ev_active_per_plane = 16;
        cf.cc_algo = MRC_CC_FIXED;
        cf.cc.fixed_wnd_bytes = 64 * 1024;
        cf.sack_every_pkts = 1;
    }
    net.create();
    std::vector<u32> hot;
    for (u16 e = 0; e < 2; e++) {
        mrc_ev_info info;
        mrc_conn_get_ev(net.c[0], e, &info);
        hot.push_back(info.ev);
    }
    net.fate = [&](int from, const mrc_tx_desc& d) {
        return from == 0 && std::find(hot.begin(), hot.end(), d.ev) != hot.end() ? kMark : kDeliver;
    };
    auto la = sizes(200, 10, 8000);
    auto ca = transfer(net, 0, la, 500 * kMs);
    ASSERT_EQ(ca.size(), la.size());
    std::map<u32, u64> per_ev;
    for (const auto& d : net.sent[0])
        if (d.kind == MRC_TX_DATA) per_ev[d.ev]++;
    u64 total = 0;
    for (auto& kv : per_ev) total += kv.second;
    const double fair = static_cast<double>(total) / 16;
    for (u32 ev : hot) {
        EXPECT_LT(per_ev[ev], fair * 0.75);
        mrc_ev_info info;
        mrc_conn_get_ev(net.c[0], static_cast<u16>(mrc_conn_find_ev(net.c[0], ev)), &info);
        EXPECT_GT(info.cnt.ecn, 0u);
    }
    EXPECT_GT(net.stats(1).rx_ecn_ce, 0u);
}

TEST(ConnTest, ReceiverBackPressureWithSlowDeliveryDrain) {
    Pair net(2);
    net.cfg[1].rx_max_msgs = 4;
    net.create();
    net.drain_deliveries[1] = false;
    auto la = sizes(12, 11, 3000);
    std::vector<u64> ca;
    for (u32 len : la) ca.push_back(net.send(0, len));
    net.run(net.now + 2 * kMs);
    EXPECT_GT(net.stats(1).rx_no_resource, 0u);
    EXPECT_TRUE(net.delivered[1].empty());
    net.drain_deliveries[1] = true;
    net.run(net.now + 50 * kMs);
    net.check_delivered(1, ca);
    EXPECT_EQ(net.completed[0], ca);
    EXPECT_EQ(net.stats(0).error, 0);
}

TEST(ConnTest, DeterministicForSeeds) {
    auto trace = [](u64 seed) {
        Pair net(4);
        net.cfg[0].seed = seed;
        std::mt19937_64 r(3);
        net.fate = [&](int, const mrc_tx_desc&) { return r() % 100 < 3 ? kDrop : kDeliver; };
        net.create();
        auto la = sizes(50, 12, 9000);
        transfer(net, 0, la, 500 * kMs);
        std::vector<u64> t;
        for (const auto& d : net.sent[0]) t.push_back((u64)d.ev << 32 | d.pkt.bth.psn);
        return t;
    };
    auto a = trace(5), b = trace(5), c = trace(6);
    EXPECT_EQ(a, b);
    EXPECT_NE(a, c);
}

TEST(ConnTest, EventMaskAndOverflow) {
    Pair net(2);
    net.cfg[0].event_mask = MRC_EVT_MASK_ALL & ~(1u << MRC_EVT_RTT_SAMPLE);
    net.cfg[1].event_queue_len = 2;
    net.create();
    auto la = sizes(30, 13, 4000);
    auto ca = transfer(net, 0, la, 100 * kMs);
    net.check_delivered(1, ca);
    EXPECT_EQ(net.count(0, MRC_EVT_RTT_SAMPLE), 0u);
    EXPECT_EQ(net.completed[0].size(), la.size());
    // B only sent SACKs: no informational event, nothing dropped.
    EXPECT_EQ(net.stats(1).events_dropped, 0u);
    EXPECT_EQ(mrc_event_type_name(MRC_EVT_RTT_SAMPLE), std::string("rtt_sample"));
    EXPECT_EQ(mrc_event_type_name(200), std::string("?"));
    EXPECT_EQ(mrc_ev_state_name(MRC_EV_ASSUMED_BAD), std::string("assumed_bad"));
    EXPECT_EQ(mrc_ev_state_name(9), std::string("?"));
}

TEST(ConnTest, EventOverflowNeverLosesCompletions) {
    Pair net(1);
    net.cfg[0].event_queue_len = 1;
    net.create();
    // Send and acknowledge without draining A's events.
    net.hold_events[0] = true;
    std::vector<u64> ca;
    for (int i = 0; i < 10; i++) ca.push_back(net.send(0, 500));
    net.run(net.now + 10 * kMs);
    EXPECT_GT(net.stats(0).events_dropped, 0u);
    net.hold_events[0] = false;
    net.drain(0);
    EXPECT_EQ(net.completed[0], ca);
}

TEST(ConnTest, ConfigValidation) {
    mrc_conn_cfg cfg;
    mrc_conn* c = nullptr;

    mrc_conn_cfg_init(&cfg, 0);
    EXPECT_EQ(cfg.n_planes, 1);
    EXPECT_EQ(cfg.ev_per_plane, 128);
    EXPECT_EQ(cfg.ev_active_per_plane, 96);
    EXPECT_EQ(cfg.ev_min_active, 12);
    EXPECT_EQ(mrc_conn_cfg_check(&cfg), MRC_OK);
    mrc_conn_cfg_init(&cfg, 200);
    EXPECT_EQ(cfg.n_planes, 32);
    EXPECT_EQ(cfg.plane_up_mask, 0xffffffffu);
    EXPECT_EQ(cfg.ev_per_plane, 4);
    EXPECT_EQ(mrc_conn_cfg_check(&cfg), MRC_OK);
    mrc_conn_cfg_init(&cfg, 8);
    EXPECT_EQ(cfg.ev_per_plane, 16);
    EXPECT_EQ(cfg.ev_active_per_plane, 12);
    EXPECT_EQ(mrc_conn_cfg_check(&cfg), MRC_OK);
    EXPECT_EQ(mrc_conn_cfg_check(nullptr), MRC_E_INVAL);

    std::vector<std::function<void(mrc_conn_cfg&)>> bad = {
        [](mrc_conn_cfg& x) { x.n_planes = 0; },
        [](mrc_conn_cfg& x) { x.n_planes = 33; },
        [](mrc_conn_cfg& x) { x.ev_per_plane = 0; },
        [](mrc_conn_cfg& x) { x.ev_per_plane = 129; },  // 8 x 129 > 1024
        [](mrc_conn_cfg& x) { x.ev_active_per_plane = 0; },
        [](mrc_conn_cfg& x) { x.ev_active_per_plane = 17; },
        [](mrc_conn_cfg& x) { x.ev_min_active = 0; },
        [](mrc_conn_cfg& x) { x.ev_min_active = 97; },
        [](mrc_conn_cfg& x) { x.plane_up_mask = 0x100; },
        [](mrc_conn_cfg& x) { x.paths_per_plane = (1u << 24) + 1; },
        [](mrc_conn_cfg& x) { x.probe_interval_ns = 0; },
        [](mrc_conn_cfg& x) { x.probe_max_interval_ns = 1; },
        [](mrc_conn_cfg& x) { x.mtu = 63; },
        [](mrc_conn_cfg& x) { x.mtu = 65537; },
        [](mrc_conn_cfg& x) { x.mpr = 100; },
        [](mrc_conn_cfg& x) { x.mpr = 200; },
        [](mrc_conn_cfg& x) { x.mpr = 16384 + 128; },
        [](mrc_conn_cfg& x) { x.local_init_psn = 1u << 24; },
        [](mrc_conn_cfg& x) { x.peer_init_psn = 1u << 24; },
        [](mrc_conn_cfg& x) { x.tx_max_msgs = 0; },
        [](mrc_conn_cfg& x) { x.tx_max_msgs = 4097; },
        [](mrc_conn_cfg& x) { x.rx_max_msgs = 1; },
        [](mrc_conn_cfg& x) { x.rx_max_msgs = 100; },
        [](mrc_conn_cfg& x) { x.rx_max_msgs = 8192; },
        [](mrc_conn_cfg& x) { x.rto_exp = 25; },
        [](mrc_conn_cfg& x) { x.rto_max_backoff = 17; },
        [](mrc_conn_cfg& x) { x.sack_every_pkts = 0; },
        [](mrc_conn_cfg& x) { x.event_queue_len = 0; },
        [](mrc_conn_cfg& x) { x.event_queue_len = 4097; },
        [](mrc_conn_cfg& x) { x.peer_qpn = MRC_QPN_EP; },
        [](mrc_conn_cfg& x) { x.peer_qpn = 1u << 24; },
        [](mrc_conn_cfg& x) { x.cc_algo = MRC_CC_NR; },
    };
    for (size_t i = 0; i < bad.size(); i++) {
        SCOPED_TRACE(i);
        mrc_conn_cfg_init(&cfg, 8);
        bad[i](cfg);
        EXPECT_EQ(mrc_conn_cfg_check(&cfg), MRC_E_INVAL);
        EXPECT_EQ(mrc_conn_create(&cfg, 0, &c), MRC_E_INVAL);
        EXPECT_EQ(c, nullptr);
    }
    mrc_conn_cfg_init(&cfg, 2);
    EXPECT_EQ(mrc_conn_create(&cfg, 0, nullptr), MRC_E_INVAL);
    cfg.mpr = MRC_MPR_MAX;
    cfg.n_planes = 8;
    cfg.plane_up_mask = 0xff;
    cfg.ev_per_plane = 128;
    cfg.ev_active_per_plane = 100;
    cfg.tx_max_msgs = MRC_MSGS_MAX;
    cfg.rx_max_msgs = MRC_MSGS_MAX;
    cfg.event_queue_len = MRC_EVQ_MAX;
    ASSERT_EQ(mrc_conn_create(&cfg, 0, &c), MRC_OK);
    EXPECT_EQ(mrc_conn_num_evs(c), 1024);
    mrc_ev_info info;
    EXPECT_EQ(mrc_conn_get_ev(c, 1024, &info), MRC_E_INVAL);
    EXPECT_EQ(mrc_conn_find_ev(c, 0xffffffffu), MRC_E_INVAL);
    EXPECT_EQ(mrc_conn_ev_set_denied(c, 0, 1024, true), MRC_E_INVAL);
    EXPECT_EQ(mrc_conn_ev_set_denied(c, 0, 3, true), MRC_OK);
    ASSERT_EQ(mrc_conn_get_ev(c, 3, &info), MRC_OK);
    EXPECT_EQ(info.state, MRC_EV_DENIED);
    mrc_conn_destroy(c);
    mrc_conn_destroy(nullptr);
}

}  // namespace

// A client creates its engine before it knows the peer's QPN, connection id
// and first PSN (the kernel: where it may sleep, before the connect request
// leaves) and learns them from the answer: mrc_conn_set_peer(). The
// transfer then works both ways, the peer's first PSN near the wrap.
TEST(ConnTest, PeerSetAfterCreation) {
    Pair net;
    net.cfg[1].local_init_psn = MRC_PSN_MASK - 5;
    net.cfg[0].peer_init_psn = MRC_PSN_MASK - 5;
    mrc_conn_cfg placeholder = net.cfg[0];
    placeholder.peer_qpn = 0x999;
    placeholder.peer_conn_id = 0;
    placeholder.peer_init_psn = 0;
    ASSERT_EQ(mrc_conn_create(&placeholder, net.now, &net.c[0]), MRC_OK);
    ASSERT_EQ(mrc_conn_create(&net.cfg[1], net.now, &net.c[1]), MRC_OK);
    EXPECT_EQ(mrc_conn_set_peer(net.c[0], MRC_QPN_MASK + 1, 11, 0), MRC_E_INVAL);
    EXPECT_EQ(mrc_conn_set_peer(net.c[0], MRC_QPN_EP, 11, 0), MRC_E_INVAL);
    EXPECT_EQ(mrc_conn_set_peer(net.c[0], 0x100, 11, MRC_PSN_MASK + 1), MRC_E_INVAL);
    ASSERT_EQ(mrc_conn_set_peer(net.c[0], net.cfg[0].peer_qpn, net.cfg[0].peer_conn_id,
                                net.cfg[0].peer_init_psn),
              MRC_OK);
    auto la = sizes(50, 3, 9000);
    std::vector<u64> cb;
    for (u32 len : sizes(20, 4, 3000)) cb.push_back(net.send(1, len));
    auto ca = transfer(net, 0, la, 200 * kMs);
    net.run(net.now + 5 * kMs);
    ASSERT_EQ(ca.size(), la.size());
    net.check_delivered(1, ca);
    net.check_delivered(0, cb);
    for (int i = 0; i < 2; i++) {
        auto st = net.stats(i);
        EXPECT_EQ(st.rx_stale, 0u);
        EXPECT_EQ(st.rx_proto_err, 0u);
        EXPECT_EQ(st.timeouts, 0u);
    }
    // Once packets moved, the receive window is anchored: refused.
    EXPECT_EQ(mrc_conn_set_peer(net.c[0], 0x100, 11, 0), MRC_E_INVAL);
}

// mrc_conn_app_limited(): a connection with nothing in flight is below its
// window (the host grows SO_SNDBUF then); with a window's worth sent and
// unacknowledged it is not.
TEST(ConnTest, AppLimitedReportsWindow) {
    Pair net;
    net.create();
    u32 cwnd = 0;
    EXPECT_TRUE(mrc_conn_app_limited(net.c[0], &cwnd));
    EXPECT_GT(cwnd, 0u);
    for (int i = 0; i < 64; i++) ASSERT_NE(net.send(0, 64 * 1024), 0u);
    mrc_tx_desc d;
    while (mrc_conn_poll_tx(net.c[0], net.now, &d) == MRC_OK) {
    }
    u32 cwnd2 = 0;
    auto st = net.stats(0);
    EXPECT_FALSE(mrc_conn_app_limited(net.c[0], &cwnd2))
        << "inflight " << st.inflight_bytes << " pkts " << st.inflight_pkts << " cwnd "
        << st.cwnd_bytes << " wnd " << st.send_window;
    EXPECT_EQ(cwnd2, cwnd);
}

// A host's starting connections split one initial window (struct
// mrc_iw_share): the n-th to start gets init / n, the earlier ones are held
// to the new share from their next packet, and each stops counting at its
// first acknowledgment, its first timeout or its destruction.
namespace {

constexpr u32 kShareInit = 60 * 1024;

void share_cfg(Pair& p, mrc_iw_share* share) {
    for (auto& cfg : p.cfg) {
        cfg.cc.init_wnd_bytes = kShareInit;
        cfg.cc.max_wnd_bytes = 1 << 20;
        cfg.iw_share = share;
    }
}

// Create the pair, queue one long message on end 0 and send what the
// window lets out.
void start(Pair& p) {
    p.create();
    ASSERT_NE(p.send(0, 400 * 1024), 0u);
    p.pump();
}

}  // namespace

TEST(ConnTest, StartingConnectionsSplitTheHostsInitialWindow) {
    mrc_iw_share share{};
    Pair a, b, c, alone;
    share_cfg(a, &share);
    share_cfg(b, &share);
    share_cfg(c, &share);
    share_cfg(alone, nullptr);

    start(a);
    EXPECT_EQ(mrc_plat_atomic_read(&share.starting), 1);
    EXPECT_EQ(a.stats(0).inflight_bytes, kShareInit);
    start(b);
    EXPECT_EQ(mrc_plat_atomic_read(&share.starting), 2);
    EXPECT_EQ(b.stats(0).inflight_bytes, kShareInit / 2);
    EXPECT_EQ(b.stats(0).iw_share_cuts, 1u);
    start(c);
    EXPECT_EQ(mrc_plat_atomic_read(&share.starting), 3);
    EXPECT_EQ(c.stats(0).inflight_bytes, kShareInit / 3);
    // A receiving end sends no data: it never counts.
    EXPECT_EQ(a.stats(1).iw_share_cuts, 0u);
    // Without a share, the whole window whatever the host does.
    start(alone);
    EXPECT_EQ(alone.stats(0).inflight_bytes, kShareInit);
    EXPECT_EQ(alone.stats(0).iw_share_cuts, 0u);

    // The first is held to the new share at its next try to send.
    EXPECT_EQ(a.stats(0).cwnd_bytes, kShareInit);
    a.pump();
    EXPECT_EQ(a.stats(0).cwnd_bytes, kShareInit / 3);
    EXPECT_EQ(a.stats(0).iw_share_cuts, 1u);
    EXPECT_EQ(a.stats(0).inflight_bytes, kShareInit);

    // Its first acknowledgment ends its start; the algorithm grows its
    // window from there, and the message arrives whole.
    a.run(a.now + 5 * kMs);
    EXPECT_EQ(mrc_plat_atomic_read(&share.starting), 2);
    EXPECT_EQ(a.delivered[1].size(), 1u);
    EXPECT_EQ(a.stats(0).timeouts, 0u);

    // A connection destroyed while starting stops counting.
    mrc_conn_destroy(c.c[0]);
    c.c[0] = nullptr;
    EXPECT_EQ(mrc_plat_atomic_read(&share.starting), 1);
    b.run(b.now + 5 * kMs);
    EXPECT_EQ(mrc_plat_atomic_read(&share.starting), 0);
    EXPECT_EQ(b.delivered[1].size(), 1u);

    // Alone again: a new connection gets the whole window.
    Pair d;
    share_cfg(d, &share);
    start(d);
    EXPECT_EQ(d.stats(0).inflight_bytes, kShareInit);
    EXPECT_EQ(d.stats(0).iw_share_cuts, 0u);
}

TEST(ConnTest, ATimeoutEndsTheStart) {
    mrc_iw_share share{};
    Pair a;
    share_cfg(a, &share);
    a.fate = [](int, const mrc_tx_desc&) { return kDrop; };
    start(a);
    EXPECT_EQ(mrc_plat_atomic_read(&share.starting), 1);
    a.run(a.now + 1 * kMs);
    EXPECT_GT(a.stats(0).timeouts, 0u);
    EXPECT_EQ(mrc_plat_atomic_read(&share.starting), 0);
}
