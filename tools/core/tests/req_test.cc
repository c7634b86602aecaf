// SPDX-License-Identifier: GPL-2.0 OR MIT
//
// req_test.cc - unit tests of the requester (kmod/core/mrc_req*.c) through
// the public API: segmentation, windows, SACK/NACK processing, selective
// retransmission on fresh EVs, RTO backoff, retry budget, probes, RTT.
#include <gtest/gtest.h>

#include <algorithm>
#include <initializer_list>
#include <set>
#include <string>
#include <vector>

extern "C" {
#include "mrc_core.h"
}

namespace {

constexpr u64 kUs = 1000;

class ReqTest : public ::testing::Test {
  protected:
    void SetUp() override {
        mrc_conn_cfg_init(&cfg_, 2);
        cfg_.local_conn_id = 7;
        cfg_.peer_conn_id = 9;
        cfg_.mtu = 1024;
        cfg_.mpr = 256;
        cfg_.ev_per_plane = 8;
        cfg_.ev_active_per_plane = 4;
        cfg_.ev_min_active = 2;
        cfg_.rto_exp = 7;  // 131.072 us
        cfg_.probe_interval_ns = 500 * kUs;
        cfg_.cc_algo = MRC_CC_FIXED;
        cfg_.cc.fixed_wnd_bytes = 1u << 24;
    }
    void TearDown() override { mrc_conn_destroy(c_); }
    void create(u64 now = 0) {
        mrc_conn_destroy(c_);
        c_ = nullptr;
        ASSERT_EQ(mrc_conn_create(&cfg_, now, &c_), MRC_OK);
    }
    u64 rto() const { return 1024ull << cfg_.rto_exp; }

    std::vector<mrc_tx_desc> poll(u64 now, size_t max = 100000) {
        std::vector<mrc_tx_desc> v;
        mrc_tx_desc d;

        while (v.size() < max && mrc_conn_poll_tx(c_, now, &d) == MRC_OK) {
            u8 buf[256];
            // Every descriptor must encode.
            EXPECT_GT(mrc_pkt_encode_hdr(&d.pkt, buf, sizeof(buf)), 0);
            v.push_back(d);
        }
        return v;
    }
    // PSN 0 timed by its SACK (min RTT 10 us), then PSN 1 sent at 2000
    // (*sent), timed out at *t and retransmitted once (*rtx), nothing acked.
    void timed_out_once(mrc_tx_desc* sent, mrc_tx_desc* rtx, u64* t) {
        create();
        ASSERT_EQ(mrc_conn_send(c_, 0, 1024, 0, 0, 1, nullptr), MRC_OK);
        auto d = poll(1000);
        ASSERT_FALSE(d.empty());
        mrc_pkt s = sack(0);
        s.sack.ack_psn_off = 0;  // trigger: PSN 0
        s.sack.cc.echoed_ts = d[0].pkt.tseth.tx_ts;
        rx(1000 + 10 * kUs, s);  // min RTT 10 us
        ASSERT_EQ(mrc_conn_send(c_, 0, 1024, 0, 0, 2, nullptr), MRC_OK);
        d = poll(2000);
        ASSERT_EQ(d.size(), 1u);
        *t = 2000 + 2 * rto();
        mrc_conn_on_timer(c_, *t);
        auto r = poll(*t);
        ASSERT_EQ(r.size(), 1u);
        *sent = d[0];
        *rtx = r[0];
    }
    std::vector<mrc_event> events() {
        std::vector<mrc_event> v;
        mrc_event e;

        while (mrc_conn_poll_event(c_, &e) == MRC_OK) v.push_back(e);
        return v;
    }
    static size_t count(const std::vector<mrc_event>& v, u8 type) {
        size_t n = 0;

        for (const auto& e : v) n += e.type == type;
        return n;
    }
    mrc_pkt sack(u32 cack, u64 bitmap = 0, u16 off = 1, u32 ev = 0, u8 ecn = MRC_ECN_NONE) {
        mrc_pkt p{};

        p.bth.opcode = MRC_OP_SACK;
        p.sack.cack_psn = cack & MRC_PSN_MASK;
        p.sack.sack_offset = off;
        p.sack.bitmap = bitmap;
        p.sack.ev = ev;
        p.sack.ecn = ecn;
        p.sack.src_conn = 9;
        p.sack.dst_conn = 7;
        p.sack.mpr = static_cast<u8>(cfg_.mpr / MRC_MPR_UNIT);
        p.sack.ack_psn_off = 0x8000;  // far away: no RTT sample
        return p;
    }
    mrc_pkt nack(u32 psn, u8 reason, u32 ev) {
        mrc_pkt p{};

        p.bth.opcode = MRC_OP_NACK;
        p.nack.reason = reason;
        p.nack.nack_psn = psn;
        p.nack.ev = ev;
        p.nack.src_conn = 9;
        p.nack.dst_conn = 7;
        return p;
    }
    int rx(u64 now, const mrc_pkt& p) { return mrc_conn_rx(c_, now, &p, 0, 0); }
    // One message whose only packet times out: the EV it went on (now
    // ASSUMED_BAD) and, in *idx, that EV's index.
    u32 time_out_first_ev(int* idx) {
        EXPECT_EQ(mrc_conn_send(c_, 0, 1024, 0, 0, 1, nullptr), MRC_OK);
        auto d = poll(0);
        const u32 ev = d.empty() ? 0 : d[0].ev;
        *idx = mrc_conn_find_ev(c_, ev);
        mrc_conn_on_timer(c_, rto());
        return ev;
    }
    mrc_conn_stats stats() {
        mrc_conn_stats st;

        mrc_conn_get_stats(c_, &st);
        return st;
    }
    u8 ev_state(u32 ev) {
        mrc_ev_info info;

        EXPECT_EQ(mrc_conn_get_ev(c_, static_cast<u16>(mrc_conn_find_ev(c_, ev)), &info), MRC_OK);
        return info.state;
    }

    mrc_conn_cfg cfg_{};
    mrc_conn* c_ = nullptr;
};

TEST_F(ReqTest, SegmentsMessagesIntoOpcodes) {
    create();
    u16 msn = 99;
    ASSERT_EQ(mrc_conn_send(c_, 0, 2500, 0, 0, 0xc0ffee, &msn), MRC_OK);
    EXPECT_EQ(msn, 0);
    ASSERT_EQ(mrc_conn_send(c_, 0, 100, 0x1234, MRC_SEND_IMM, 2, &msn), MRC_OK);
    EXPECT_EQ(msn, 1);
    ASSERT_EQ(mrc_conn_send(c_, 0, 2048, 0x55, MRC_SEND_IMM, 3, nullptr), MRC_OK);
    ASSERT_EQ(mrc_conn_send(c_, 0, 0, 0, 0, 4, nullptr), MRC_OK);
    auto d = poll(1);
    ASSERT_EQ(d.size(), 7u);
    const u8 ops[] = {MRC_OP_WRITE_FIRST,    MRC_OP_WRITE_MIDDLE, MRC_OP_WRITE_LAST,
                      MRC_OP_WRITE_ONLY_IMM, MRC_OP_WRITE_FIRST,  MRC_OP_WRITE_LAST_IMM,
                      MRC_OP_WRITE_ONLY};
    const u32 offs[] = {0, 1024, 2048, 0, 0, 1024, 0};
    const u32 lens[] = {1024, 1024, 452, 100, 1024, 1024, 0};
    const u32 mlen[] = {2500, 2500, 2500, 100, 2048, 2048, 0};
    const u16 msns[] = {0, 0, 0, 1, 2, 2, 3};
    for (size_t i = 0; i < d.size(); i++) {
        SCOPED_TRACE(i);
        EXPECT_EQ(d[i].kind, MRC_TX_DATA);
        EXPECT_EQ(d[i].pkt.bth.opcode, ops[i]);
        EXPECT_EQ(d[i].pkt.bth.psn, i);
        EXPECT_EQ(d[i].pkt.reth.va, offs[i]);
        EXPECT_EQ(d[i].msg_offset, offs[i]);
        EXPECT_EQ(d[i].payload_len, lens[i]);
        EXPECT_EQ(d[i].pkt.payload_len, lens[i]);
        EXPECT_EQ(d[i].pkt.reth.dma_len, mlen[i]);
        EXPECT_EQ(d[i].pkt.meth.msn, msns[i]);
        EXPECT_EQ(d[i].msn, msns[i]);
        EXPECT_EQ(d[i].pkt.bth.pad_cnt, mrc_pad_for(lens[i]));
        EXPECT_EQ(d[i].pkt.bth.dest_qp, cfg_.peer_qpn);
        EXPECT_TRUE(d[i].pkt.bth.ts);
        EXPECT_FALSE(d[i].pkt.bth.rtx);
        EXPECT_EQ(d[i].plane, d[i].ev >> 24);  // plane in EV bits 31-24
        EXPECT_GE(mrc_conn_find_ev(c_, d[i].ev), 0);
        EXPECT_EQ(d[i].pkt.meth.rqmsn, 0);
    }
    EXPECT_EQ(d[0].cookie, 0xc0ffeeu);
    EXPECT_EQ(d[3].pkt.imm, 0x1234u);
    EXPECT_EQ(d[5].pkt.imm, 0x55u);
    // ack_req at message ends.
    EXPECT_FALSE(d[0].pkt.bth.ack_req);
    EXPECT_TRUE(d[2].pkt.bth.ack_req);
    EXPECT_TRUE(d[3].pkt.bth.ack_req);
    EXPECT_TRUE(d[6].pkt.bth.ack_req);
    // Consecutive packets use different EVs.
    for (size_t i = 1; i < d.size(); i++) EXPECT_NE(d[i].ev, d[i - 1].ev);
    auto st = stats();
    EXPECT_EQ(st.tx_data_pkts, 7u);
    EXPECT_EQ(st.inflight_pkts, 7u);
    EXPECT_EQ(st.inflight_bytes, 2500u + 100 + 2048);
    EXPECT_EQ(st.snd_nxt, 7u);
}

TEST_F(ReqTest, SendRingBackPressureAndLimits) {
    cfg_.tx_max_msgs = 3;
    create();
    EXPECT_EQ(mrc_conn_tx_msgs_free(c_), 3u);
    for (int i = 0; i < 3; i++) ASSERT_EQ(mrc_conn_send(c_, 0, 10, 0, 0, i, nullptr), MRC_OK);
    EXPECT_EQ(mrc_conn_send(c_, 0, 10, 0, 0, 3, nullptr), MRC_E_AGAIN);
    EXPECT_EQ(mrc_conn_tx_msgs_free(c_), 0u);
    EXPECT_EQ(mrc_conn_send(c_, 0, 10, 0, 0x80, 3, nullptr), MRC_E_INVAL);
    auto d = poll(1);
    ASSERT_EQ(d.size(), 3u);
    mrc_pkt s = sack(0);
    EXPECT_EQ(rx(2, s), MRC_RX_CONSUMED);
    auto ev = events();
    ASSERT_EQ(count(ev, MRC_EVT_MSG_COMPLETED), 1u);
    EXPECT_EQ(mrc_conn_tx_msgs_free(c_), 1u);
    EXPECT_EQ(mrc_conn_send(c_, 3, 10, 0, 0, 3, nullptr), MRC_OK);

    cfg_.mtu = 64;
    create();
    EXPECT_EQ(mrc_conn_send(c_, 0, 0xffffffffu, 0, 0, 0, nullptr), MRC_E_TOOBIG);
}

TEST_F(ReqTest, ReceiverWindowLimitsPsns) {
    cfg_.mpr = 128;
    create();
    ASSERT_EQ(mrc_conn_send(c_, 0, 1024 * 300, 0, 0, 1, nullptr), MRC_OK);
    auto d = poll(1);
    // PSNs cack+1 .. cack+MPR-1: 127 packets.
    ASSERT_EQ(d.size(), 127u);
    EXPECT_TRUE(d.back().pkt.bth.ack_req);  // window full
    EXPECT_EQ(stats().send_window, 128u);
    mrc_pkt s = sack(9);  // acks PSNs 0..9
    rx(2, s);
    d = poll(3);
    ASSERT_EQ(d.size(), 10u);
    EXPECT_EQ(d[0].pkt.bth.psn, 127u);
    EXPECT_EQ(d.back().pkt.bth.psn, 136u);
}

TEST_F(ReqTest, PeerMprShrinksWindow) {
    cfg_.mpr = 512;
    create();
    ASSERT_EQ(mrc_conn_send(c_, 0, 1024 * 600, 0, 0, 1, nullptr), MRC_OK);
    auto d = poll(1, 1);
    mrc_pkt s = sack(0);
    s.sack.mpr = 1;  // peer allows 128 PSNs
    rx(2, s);
    EXPECT_EQ(stats().send_window, 128u);
    d = poll(3);
    EXPECT_EQ(d.size(), 127u);  // PSN 1 .. 127
    s = sack(0);
    s.sack.mpr = 0;  // 0: no change
    rx(4, s);
    EXPECT_EQ(stats().send_window, 128u);
    s.sack.mpr = 255;  // more than ours: ours
    rx(4, s);
    EXPECT_EQ(stats().send_window, 512u);
}

TEST_F(ReqTest, CongestionWindowLimitsBytes) {
    cfg_.cc.fixed_wnd_bytes = 3 * 1024;
    create();
    ASSERT_EQ(mrc_conn_send(c_, 0, 1024 * 10, 0, 0, 1, nullptr), MRC_OK);
    auto d = poll(1);
    ASSERT_EQ(d.size(), 3u);
    EXPECT_TRUE(d[2].pkt.bth.ack_req);
    EXPECT_EQ(stats().cwnd_bytes, 3u * 1024);
    mrc_pkt s = sack(0);
    rx(2, s);
    d = poll(3);
    ASSERT_EQ(d.size(), 1u);
    EXPECT_EQ(d[0].pkt.bth.psn, 3u);
}

// A cwnd-limited sender is "window full" on nearly every packet once the
// window is open; it must still ask for a SACK only once per window fill
// until that request is acknowledged, not on every packet (issue 12).
TEST_F(ReqTest, WindowFullAsksForOneSackUntilAcknowledged) {
    cfg_.cc.fixed_wnd_bytes = 8 * 1024;
    create();
    ASSERT_EQ(mrc_conn_send(c_, 0, 1024 * 40, 0, 0, 1, nullptr), MRC_OK);
    auto areqs = [](const std::vector<mrc_tx_desc>& v) {
        size_t n = 0;
        for (const auto& d : v) n += d.pkt.bth.ack_req;
        return n;
    };
    auto d = poll(1);
    ASSERT_EQ(d.size(), 8u);
    EXPECT_EQ(areqs(d), 1u);
    EXPECT_TRUE(d[7].pkt.bth.ack_req);  // the packet that filled the window
    // Two packets acknowledged, the request (PSN 7) not yet: the window is
    // full again after two more packets, but nobody asks again.
    mrc_pkt s = sack(1);
    rx(2, s);
    d = poll(3);
    ASSERT_EQ(d.size(), 2u);
    EXPECT_EQ(areqs(d), 0u);
    s = sack(3);
    rx(4, s);
    d = poll(5);
    ASSERT_EQ(d.size(), 2u);
    EXPECT_EQ(areqs(d), 0u);
    // The request is acknowledged: the next fill asks again, once.
    s = sack(9);
    rx(6, s);
    d = poll(7);
    ASSERT_EQ(d.size(), 6u);
    EXPECT_EQ(areqs(d), 1u);
    EXPECT_TRUE(d[5].pkt.bth.ack_req);
}

TEST_F(ReqTest, PsnWrapAndCompletion) {
    cfg_.local_init_psn = 0xfffffe;
    create();
    ASSERT_EQ(mrc_conn_send(c_, 0, 1024 * 3, 0, 0, 11, nullptr), MRC_OK);
    ASSERT_EQ(mrc_conn_send(c_, 0, 1024 * 2, 0, 0, 12, nullptr), MRC_OK);
    auto d = poll(1);
    ASSERT_EQ(d.size(), 5u);
    const u32 psns[] = {0xfffffe, 0xffffff, 0, 1, 2};
    for (size_t i = 0; i < 5; i++) EXPECT_EQ(d[i].pkt.bth.psn, psns[i]);
    mrc_pkt s = sack(0xffffff);
    rx(2, s);
    EXPECT_EQ(count(events(), MRC_EVT_MSG_COMPLETED), 0u);
    s = sack(0);
    rx(3, s);
    auto ev = events();
    ASSERT_EQ(count(ev, MRC_EVT_MSG_COMPLETED), 1u);
    for (const auto& e : ev)
        if (e.type == MRC_EVT_MSG_COMPLETED) {
            EXPECT_EQ(e.u.msg.cookie, 11u);
            EXPECT_EQ(e.u.msg.len, 3072u);
            EXPECT_EQ(e.u.msg.msn, 0);
        }
    s = sack(2);
    rx(4, s);
    ev = events();
    ASSERT_EQ(count(ev, MRC_EVT_MSG_COMPLETED), 1u);
    EXPECT_EQ(stats().snd_una, 3u);
    EXPECT_EQ(stats().inflight_pkts, 0u);
    EXPECT_EQ(stats().tx_msgs_completed, 2u);
}

TEST_F(ReqTest, CompletionsStayInSendOrder) {
    create();
    ASSERT_EQ(mrc_conn_send(c_, 0, 1024, 0, 0, 1, nullptr), MRC_OK);
    ASSERT_EQ(mrc_conn_send(c_, 0, 1024, 0, 0, 2, nullptr), MRC_OK);
    poll(1);
    mrc_pkt s = sack(0xffffff, 0x2);  // only PSN 1 (message 2)
    rx(2, s);
    EXPECT_EQ(count(events(), MRC_EVT_MSG_COMPLETED), 0u);
    EXPECT_EQ(stats().inflight_pkts, 1u);
    s = sack(1);
    rx(3, s);
    auto ev = events();
    ASSERT_EQ(count(ev, MRC_EVT_MSG_COMPLETED), 2u);
    std::vector<u64> order;
    for (const auto& e : ev)
        if (e.type == MRC_EVT_MSG_COMPLETED) order.push_back(e.u.msg.cookie);
    EXPECT_EQ(order, (std::vector<u64>{1, 2}));
}

TEST_F(ReqTest, SackBitmapHolesRetransmitOnlyHolesOnFreshEvs) {
    create();
    ASSERT_EQ(mrc_conn_send(c_, 0, 1024 * 8, 0, 0, 1, nullptr), MRC_OK);
    auto d = poll(0);
    ASSERT_EQ(d.size(), 8u);
    // PSNs 0,1,3,5 arrived (base = cack 0xffffff + 1 = 0).
    mrc_pkt s = sack(0xffffff, 0b101011);
    rx(10 * kUs, s);
    auto st = stats();
    EXPECT_EQ(st.inflight_pkts, 4u);
    EXPECT_EQ(st.snd_una, 0u);
    EXPECT_EQ(poll(11 * kUs).size(), 0u);
    EXPECT_EQ(mrc_conn_next_deadline(c_), rto());
    mrc_conn_on_timer(c_, rto());
    auto r = poll(rto());
    ASSERT_EQ(r.size(), 4u);
    const u32 holes[] = {2, 4, 6, 7};
    for (size_t i = 0; i < 4; i++) {
        SCOPED_TRACE(i);
        EXPECT_EQ(r[i].pkt.bth.psn, holes[i]);
        EXPECT_TRUE(r[i].pkt.bth.rtx);
        EXPECT_TRUE(r[i].rtx);
        EXPECT_TRUE(r[i].pkt.bth.ack_req);
        EXPECT_NE(r[i].ev, d[holes[i]].ev);
        EXPECT_EQ(r[i].pkt.bth.opcode, d[holes[i]].pkt.bth.opcode);
        EXPECT_EQ(r[i].msg_offset, d[holes[i]].msg_offset);
        EXPECT_EQ(ev_state(d[holes[i]].ev), MRC_EV_ASSUMED_BAD);
    }
    st = stats();
    EXPECT_EQ(st.timeouts, 4u);
    EXPECT_EQ(st.tx_rtx_timeout, 4u);
    EXPECT_EQ(st.retry_left, cfg_.retry_budget - 4);
    auto ev = events();
    EXPECT_GE(count(ev, MRC_EVT_EV_STATE), 4u);
    // Bits for PSNs already sacked or never sent are ignored.
    s = sack(0xffffff, ~0ull);
    rx(rto() + 1, s);
    EXPECT_EQ(stats().inflight_pkts, 0u);
    EXPECT_EQ(stats().retry_left, cfg_.retry_budget);
}

TEST_F(ReqTest, SackValidation) {
    create();
    ASSERT_EQ(mrc_conn_send(c_, 0, 1024 * 2, 0, 0, 1, nullptr), MRC_OK);
    poll(0);
    mrc_pkt s = sack(5);  // acks PSNs never sent
    EXPECT_EQ(rx(1, s), MRC_E_PROTO);
    s = sack(1);
    s.sack.dst_conn = 8;
    EXPECT_EQ(rx(1, s), MRC_E_STALE);
    s = sack(0x800000);  // far behind: harmless
    EXPECT_EQ(rx(1, s), MRC_RX_CONSUMED);
    s = sack(0, 0, 1, 0xdead00);  // unknown EV: acks still count
    EXPECT_EQ(rx(1, s), MRC_RX_CONSUMED);
    auto st = stats();
    EXPECT_EQ(st.snd_una, 1u);
    EXPECT_EQ(st.rx_proto_err, 1u);
    EXPECT_EQ(st.rx_stale, 3u);  // dst_conn, EV 0, EV 0xdead00
    mrc_pkt ack{};
    ack.bth.opcode = MRC_OP_ACK;
    EXPECT_EQ(rx(1, ack), MRC_E_STALE);
    EXPECT_EQ(mrc_conn_rx(c_, 1, nullptr, 0, 0), MRC_E_INVAL);
}

TEST_F(ReqTest, NackTrimmedFastRetransmitOnFreshEv) {
    cfg_.cc_algo = MRC_CC_NSCC;
    cfg_.cc.base_rtt_ns = 10 * kUs;
    create();
    ASSERT_EQ(mrc_conn_send(c_, 0, 1024 * 4, 0, 0, 1, nullptr), MRC_OK);
    auto d = poll(0);
    ASSERT_EQ(d.size(), 4u);
    const u32 cw = stats().cwnd_bytes;
    mrc_pkt n = nack(1, MRC_NACK_TRIMMED, d[1].ev);
    EXPECT_EQ(rx(5 * kUs, n), MRC_RX_CONSUMED);
    EXPECT_EQ(ev_state(d[1].ev), MRC_EV_SKIP);
    EXPECT_EQ(stats().cwnd_bytes, cw - 1024);
    auto r = poll(5 * kUs);
    ASSERT_EQ(r.size(), 1u);
    EXPECT_EQ(r[0].pkt.bth.psn, 1u);
    EXPECT_TRUE(r[0].pkt.bth.rtx);
    EXPECT_NE(r[0].ev, d[1].ev);
    auto st = stats();
    EXPECT_EQ(st.tx_rtx_nack, 1u);
    EXPECT_EQ(st.timeouts, 0u);
    EXPECT_EQ(st.rx_nacks, 1u);
    // The same NACK again names the old transmission: stale.
    EXPECT_EQ(rx(6 * kUs, n), MRC_E_STALE);
    EXPECT_TRUE(poll(6 * kUs).empty());
    // NACK for a PSN not in flight.
    n = nack(50, MRC_NACK_TRIMMED, d[0].ev);
    EXPECT_EQ(rx(6 * kUs, n), MRC_E_STALE);
    n.nack.dst_conn = 1;
    EXPECT_EQ(rx(6 * kUs, n), MRC_E_STALE);
}

TEST_F(ReqTest, NackTrimmedLastHopDoesNotPenalise) {
    create();
    ASSERT_EQ(mrc_conn_send(c_, 0, 1024 * 2, 0, 0, 1, nullptr), MRC_OK);
    auto d = poll(0);
    mrc_pkt n = nack(0, MRC_NACK_TRIMMED_LASTHOP, d[0].ev);
    rx(1, n);
    EXPECT_EQ(ev_state(d[0].ev), MRC_EV_GOOD);
    auto r = poll(1);
    ASSERT_EQ(r.size(), 1u);
    EXPECT_NE(r[0].ev, d[0].ev);
    mrc_ev_info info;
    mrc_conn_get_ev(c_, static_cast<u16>(mrc_conn_find_ev(c_, d[0].ev)), &info);
    EXPECT_EQ(info.cnt.trimmed, 1u);
    EXPECT_EQ(info.cnt.nacked, 1u);
}

// Receiver not ready: each refusal of the same (probe) packet doubles the
// delay before it is tried again; no EV penalty, no retry budget.
TEST_F(ReqTest, ResourceNackBacksOffWithoutPenaltyOrBudget) {
    create();
    ASSERT_EQ(mrc_conn_send(c_, 0, 1024, 0, 0, 1, nullptr), MRC_OK);
    auto d = poll(0);
    const u8 reasons[] = {MRC_NACK_NO_RESOURCE, MRC_NACK_NO_PKT_BUFFER, MRC_NACK_NO_BITMAP,
                          MRC_NACK_PSN_OOR_WINDOW};
    u64 now = 10;
    u32 ev = d[0].ev;
    u32 shift = 0;
    for (u8 reason : reasons) {
        SCOPED_TRACE(reason);
        const u64 wait = rto() << shift;
        mrc_pkt n = nack(0, reason, ev);
        EXPECT_EQ(rx(now, n), MRC_RX_CONSUMED);
        EXPECT_TRUE(poll(now).empty());  // not immediately
        EXPECT_LE(mrc_conn_next_deadline(c_), now + wait);
        // A second NACK while waiting is stale.
        EXPECT_EQ(rx(now, n), MRC_E_STALE);
        mrc_conn_on_timer(c_, now + wait - 1);
        EXPECT_TRUE(poll(now + wait - 1).empty());
        EXPECT_EQ(mrc_conn_next_deadline(c_), now + wait);
        mrc_conn_on_timer(c_, now + wait);
        auto r = poll(now + wait);
        ASSERT_EQ(r.size(), 1u);
        EXPECT_TRUE(r[0].pkt.bth.rtx);
        EXPECT_EQ(ev_state(ev), MRC_EV_GOOD);
        ev = r[0].ev;
        now += wait + 10;
        ++shift;
    }
    EXPECT_EQ(stats().rnr_episodes, 1u);
    EXPECT_EQ(stats().rnr_probes, 4u);
    auto st = stats();
    EXPECT_EQ(st.timeouts, 0u);
    EXPECT_EQ(st.retry_left, cfg_.retry_budget);
    EXPECT_EQ(st.tx_rtx_nack, 4u);
}

TEST_F(ReqTest, UnexpectedEventNackFailsConnection) {
    create();
    ASSERT_EQ(mrc_conn_send(c_, 0, 1024, 0, 0, 1, nullptr), MRC_OK);
    auto d = poll(0);
    mrc_pkt n = nack(0, MRC_NACK_UNEXP_EVENT, d[0].ev);
    EXPECT_EQ(rx(1, n), MRC_E_CONN);
    EXPECT_TRUE(mrc_conn_failed(c_));
    auto ev = events();
    ASSERT_EQ(count(ev, MRC_EVT_CONN_ERROR), 1u);
    EXPECT_EQ(ev[0].type, MRC_EVT_CONN_ERROR);
    EXPECT_EQ(ev[0].u.error.reason, MRC_CONN_ERR_PEER);
    EXPECT_EQ(mrc_conn_send(c_, 2, 10, 0, 0, 1, nullptr), MRC_E_CONN);
    mrc_tx_desc t;
    EXPECT_EQ(mrc_conn_poll_tx(c_, 2, &t), MRC_E_CONN);
    EXPECT_EQ(rx(2, sack(0)), MRC_E_CONN);
    EXPECT_EQ(mrc_conn_next_deadline(c_), MRC_NO_DEADLINE);
    EXPECT_EQ(count(events(), MRC_EVT_CONN_ERROR), 0u);  // reported once
    EXPECT_EQ(stats().error, MRC_CONN_ERR_PEER);
}

// A blind attacker knows the QPN and our connection id; a forged
// UNEXP_EVENT with the wrong peer id, or naming a PSN not in flight, must
// not fail the connection (issue 13).
TEST_F(ReqTest, ForgedUnexpectedEventNacksAreStale) {
    create();
    ASSERT_EQ(mrc_conn_send(c_, 0, 3 * 1024, 0, 0, 1, nullptr), MRC_OK);
    auto d = poll(0);
    ASSERT_EQ(d.size(), 3u);
    mrc_pkt n = nack(1, MRC_NACK_UNEXP_EVENT, d[1].ev);
    n.nack.src_conn = 10;  // not the peer's id
    EXPECT_EQ(rx(1, n), MRC_E_STALE);
    n = nack(200, MRC_NACK_UNEXP_EVENT, d[1].ev);  // never sent
    EXPECT_EQ(rx(1, n), MRC_E_STALE);
    EXPECT_EQ(stats().rx_stale, 2u);
    rx(2, sack(0));
    const u64 stale = stats().rx_stale;
    n = nack(0, MRC_NACK_UNEXP_EVENT, d[0].ev);  // already acknowledged
    EXPECT_EQ(rx(3, n), MRC_E_STALE);
    EXPECT_FALSE(mrc_conn_failed(c_));
    EXPECT_EQ(stats().rx_stale, stale + 1);
    // The genuine one still fails it.
    n = nack(1, MRC_NACK_UNEXP_EVENT, d[1].ev);
    EXPECT_EQ(rx(4, n), MRC_E_CONN);
    EXPECT_TRUE(mrc_conn_failed(c_));
}

// A receiver whose reader stopped: the whole window is refused. The sender
// holds it, sends nothing new, and tries one probe at a time, each refusal
// doubling the delay; when the probe gets in, everything goes at once.
TEST_F(ReqTest, ReceiverNotReadyProbesOnePacketThenResumes) {
    cfg_.retry_budget = 4;  // RNR must not spend it
    create();
    ASSERT_EQ(mrc_conn_send(c_, 0, 8 * 1024, 0, 0, 1, nullptr), MRC_OK);
    auto d = poll(0);
    ASSERT_EQ(d.size(), 8u);
    for (u32 i = 0; i < 8; i++)
        EXPECT_EQ(rx(1, nack(i, MRC_NACK_NO_RESOURCE, d[i].ev)), MRC_RX_CONSUMED);
    ASSERT_EQ(mrc_conn_send(c_, 1, 4 * 1024, 0, 0, 2, nullptr), MRC_OK);
    EXPECT_TRUE(poll(1).empty());  // no new data into a full receiver
    u64 now = 1, wait = rto();
    u32 probe = 0, probe_ev = 0;
    size_t sent = 0;
    for (int round = 0; round < 5; round++) {
        SCOPED_TRACE(round);
        mrc_conn_on_timer(c_, now + wait - 1);
        EXPECT_TRUE(poll(now + wait - 1).empty());
        mrc_conn_on_timer(c_, now + wait);
        auto r = poll(now + wait);
        ASSERT_EQ(r.size(), 1u);  // one probe, not the window
        sent += r.size();
        probe = r[0].pkt.bth.psn;
        probe_ev = r[0].ev;
        now += wait;
        EXPECT_EQ(rx(now + 1, nack(probe, MRC_NACK_NO_RESOURCE, probe_ev)), MRC_RX_CONSUMED);
        now += 1;
        wait *= 2;
    }
    EXPECT_EQ(sent, 5u);
    EXPECT_EQ(stats().rnr_episodes, 1u);
    EXPECT_EQ(stats().rnr_probes, 5u);
    EXPECT_FALSE(mrc_conn_failed(c_));
    // The reader is back: the next probe is accepted (SACKed): the held
    // window and the new message go at once, without waiting for timers.
    mrc_conn_on_timer(c_, now + wait);
    auto r = poll(now + wait);
    ASSERT_EQ(r.size(), 1u);
    now += wait;
    rx(now + 1, sack(r[0].pkt.bth.psn == 0 ? 0 : 0xffffff, r[0].pkt.bth.psn == 0 ? 0 : 1,
                     static_cast<u16>(r[0].pkt.bth.psn + 1)));
    r = poll(now + 1);
    EXPECT_EQ(r.size(), 7u + 4u);
    EXPECT_EQ(stats().timeouts, 0u);
    EXPECT_EQ(stats().retry_left, 4u);
}

// The probe of message 1 was refused twice (the delay grew to four base
// RTOs), then got in: the receiver made progress. The probe of message 2,
// sent at once, is refused: its second refusal (the first held it), so it
// waits two base RTOs as in a fresh episode, not eight (the messages that
// still fit each waited up to a second in the VM, and a stall test counted
// their packets as a storm).
TEST_F(ReqTest, ReceiverNotReadyBackoffRestartsOnProgress) {
    create();
    ASSERT_EQ(mrc_conn_send(c_, 0, 2 * 1024, 0, 0, 1, nullptr), MRC_OK);  // PSN 0-1
    ASSERT_EQ(mrc_conn_send(c_, 0, 2 * 1024, 0, 0, 2, nullptr), MRC_OK);  // PSN 2-3
    auto d = poll(0);
    ASSERT_EQ(d.size(), 4u);
    for (u32 i = 0; i < 4; i++)
        EXPECT_EQ(rx(1, nack(i, MRC_NACK_NO_RESOURCE, d[i].ev)), MRC_RX_CONSUMED);
    u64 now = 1, wait = rto();
    std::vector<mrc_tx_desc> r;
    for (int round = 0; round < 3; round++) {
        SCOPED_TRACE(round);
        now += wait;
        mrc_conn_on_timer(c_, now);
        r = poll(now);
        ASSERT_EQ(r.size(), 1u);
        ASSERT_EQ(r[0].pkt.bth.psn, 0u);
        if (round < 2) {
            EXPECT_EQ(rx(now + 1, nack(0, MRC_NACK_NO_RESOURCE, r[0].ev)), MRC_RX_CONSUMED);
            now += 1;
            wait *= 2;
        }
    }
    rx(now + 1, sack(0, 0, 1, r[0].ev));  // the probe got in
    r = poll(now + 1);
    ASSERT_EQ(r.size(), 2u);  // the probe of message 2 first, the rest of message 1
    EXPECT_EQ(r[0].pkt.bth.psn, 2u);
    EXPECT_EQ(r[1].pkt.bth.psn, 1u);
    rx(now + 2, sack(1, 0, 1, r[1].ev));
    EXPECT_EQ(rx(now + 2, nack(2, MRC_NACK_NO_RESOURCE, r[0].ev)), MRC_RX_CONSUMED);
    mrc_conn_on_timer(c_, now + 1 + 2 * rto());
    EXPECT_TRUE(poll(now + 1 + 2 * rto()).empty());
    mrc_conn_on_timer(c_, now + 2 + 2 * rto());
    r = poll(now + 2 + 2 * rto());
    ASSERT_EQ(r.size(), 1u);
    EXPECT_EQ(r[0].pkt.bth.psn, 2u);
    EXPECT_EQ(stats().rnr_episodes, 1u);
}

// A stalled reader refused a window's worth, so the window is full of held
// packets; meanwhile a packet of the message before them was lost on a dead
// path. Its retransmission must go although the window is full: the
// receiver frees nothing until that message is complete (a capture of the
// fabric deadlocked exactly so).
TEST_F(ReqTest, ReceiverNotReadyLostEarlierPacketStillRetransmitted) {
    cfg_.cc_algo = MRC_CC_NSCC;  // congestion shrinks the window below the held bytes
    create();
    ASSERT_EQ(mrc_conn_send(c_, 0, 16 * 1024, 0, 0, 1, nullptr), MRC_OK);  // PSN 0-15
    ASSERT_EQ(mrc_conn_send(c_, 0, 16 * 1024, 0, 0, 2, nullptr), MRC_OK);  // PSN 16-31
    auto d = poll(0);
    ASSERT_EQ(d.size(), 32u);
    // message 2 is refused (its packets held); message 1 arrives but for
    // PSN 15, lost silently, and its SACKs report ECN marks
    for (u32 i = 16; i < 32; i++)
        EXPECT_EQ(rx(1, nack(i, MRC_NACK_NO_RESOURCE, d[i].ev)), MRC_RX_CONSUMED);
    for (u32 i = 0; i < 15; i++) {
        mrc_pkt s = sack(i, 0, 0, d[i].ev);
        s.sack.ecn = MRC_ECN_SKIP_ONCE;
        s.sack.ack_psn_off = 0;
        rx(2 + i * kUs, s);
    }
    EXPECT_LT(stats().cwnd_bytes, stats().inflight_bytes);  // held bytes fill it
    // PSN 15 times out: it must be retransmitted despite the full window
    bool seen = false;
    for (u64 t = rto(); t < 8 * rto() && !seen; t += rto() / 4) {
        mrc_conn_on_timer(c_, t);
        for (const auto& x : poll(t)) seen |= x.pkt.bth.psn == 15;
    }
    EXPECT_TRUE(seen);
}

// NACKs come back over different paths, out of order; the receiver admits
// messages in order, so the probe must be the oldest refused packet, not the
// first refusal heard: a probe of message 3 would be refused for as long as
// message 1 is held.
TEST_F(ReqTest, ReceiverNotReadyProbeIsOldestRefusal) {
    create();
    for (u64 m = 1; m <= 3; m++) ASSERT_EQ(mrc_conn_send(c_, 0, 1024, 0, 0, m, nullptr), MRC_OK);
    auto d = poll(0);
    ASSERT_EQ(d.size(), 3u);
    EXPECT_EQ(rx(1, nack(2, MRC_NACK_NO_RESOURCE, d[2].ev)), MRC_RX_CONSUMED);
    EXPECT_EQ(rx(2, nack(0, MRC_NACK_NO_RESOURCE, d[0].ev)), MRC_RX_CONSUMED);
    EXPECT_EQ(rx(3, nack(1, MRC_NACK_NO_RESOURCE, d[1].ev)), MRC_RX_CONSUMED);
    mrc_conn_on_timer(c_, 2 + rto());
    auto r = poll(2 + rto());
    ASSERT_EQ(r.size(), 1u);
    EXPECT_EQ(r[0].pkt.bth.psn, 0u);  // message 1, not message 3
    // while the probe is unanswered only the probe goes again, never the
    // held later messages
    for (u64 t = 2 + rto(); t < 64 * rto(); t += rto()) {
        mrc_conn_on_timer(c_, t);
        for (const auto& x : poll(t)) EXPECT_EQ(x.pkt.bth.psn, 0u);
    }
}

// The probe's message got a buffer at the receiver: the rest of that
// message goes at once, and the next message's first packet is the next
// probe, also at once; a refusal of that one waits again. The receiver,
// not a timer, paces a reader that frees room one message at a time.
TEST_F(ReqTest, ReceiverNotReadyReleasesOneMessageAtATime) {
    create();
    for (u64 i = 0; i < 3; i++)
        ASSERT_EQ(mrc_conn_send(c_, 0, 2 * 1024, 0, 0, i + 1, nullptr), MRC_OK);
    auto d = poll(0);
    ASSERT_EQ(d.size(), 6u);
    for (u32 i = 0; i < 6; i++) rx(1, nack(i, MRC_NACK_NO_RESOURCE, d[i].ev));
    mrc_conn_on_timer(c_, 1 + rto());
    auto r = poll(1 + rto());
    ASSERT_EQ(r.size(), 1u);
    EXPECT_EQ(r[0].pkt.bth.psn, 0u);
    u64 now = 2 + rto();
    rx(now, sack(0));  // message 1 admitted
    r = poll(now);
    // The probe of message 2 first (it bypasses the queue), then the rest
    // of message 1.
    ASSERT_EQ(r.size(), 2u);
    EXPECT_EQ(r[0].pkt.bth.psn, 2u);
    EXPECT_EQ(r[1].pkt.bth.psn, 1u);
    rx(now + 1, sack(1));                                 // message 1 complete
    rx(now + 1, nack(2, MRC_NACK_NO_RESOURCE, r[0].ev));  // no room for message 2
    EXPECT_TRUE(poll(now + 1).empty());
    // Still not ready: the back-off goes on from where it was (2 x RTO).
    mrc_conn_on_timer(c_, now + 1 + rto());
    EXPECT_TRUE(poll(now + 1 + rto()).empty());
    mrc_conn_on_timer(c_, now + 1 + 2 * rto());
    r = poll(now + 1 + 2 * rto());
    ASSERT_EQ(r.size(), 1u);
    EXPECT_EQ(r[0].pkt.bth.psn, 2u);
    now += 2 + 2 * rto();
    rx(now, sack(2));
    r = poll(now);
    ASSERT_EQ(r.size(), 2u);  // psn 3 (message 2) and the probe of message 3
    rx(now + 1, sack(4));
    r = poll(now + 1);
    ASSERT_EQ(r.size(), 1u);  // psn 5, then nothing is held: the mode ends
    EXPECT_EQ(r[0].pkt.bth.psn, 5u);
    ASSERT_EQ(mrc_conn_send(c_, now + 1, 1024, 0, 0, 9, nullptr), MRC_OK);
    EXPECT_EQ(poll(now + 1).size(), 1u);  // new data flows again
    EXPECT_EQ(stats().timeouts, 0u);
}

// A peer that vanished: the connection fails after progress_timeout_ns
// whatever the retry budget and the number of packets in flight.
TEST_F(ReqTest, NoProgressFailsWithinTheProgressTimeout) {
    cfg_.progress_timeout_ns = 200'000'000;  // 200 ms
    cfg_.retry_budget = 100000;              // far from exhausted
    create();
    ASSERT_EQ(mrc_conn_send(c_, 0, 1024, 0, 0, 1, nullptr), MRC_OK);
    poll(0);
    u64 now = 0;
    while (!mrc_conn_failed(c_) && now < 1'000'000'000) {
        now = mrc_conn_next_deadline(c_);
        ASSERT_NE(now, MRC_NO_DEADLINE);
        mrc_conn_on_timer(c_, now);
        poll(now);
    }
    ASSERT_TRUE(mrc_conn_failed(c_));
    EXPECT_EQ(now, 200'000'000u);  // on the dot: the deadline is armed
    EXPECT_EQ(stats().error, MRC_CONN_ERR_PROGRESS);
}

// A peer that answers with NACKs is alive (RNR), unless we are an orphan.
TEST_F(ReqTest, RefusingPeerKeepsALiveConnectionButNotAnOrphan) {
    cfg_.progress_timeout_ns = 200'000'000;
    create();
    ASSERT_EQ(mrc_conn_send(c_, 0, 1024, 0, 0, 1, nullptr), MRC_OK);
    auto d = poll(0);
    u64 now = 0;
    u32 psn = 0, ev = d[0].ev;
    auto refuse_until = [&](u64 end) {
        while (!mrc_conn_failed(c_) && now < end) {
            rx(now + 1, nack(psn, MRC_NACK_NO_RESOURCE, ev));
            now = mrc_conn_next_deadline(c_);
            mrc_conn_on_timer(c_, now);
            auto r = poll(now);
            if (!r.empty()) ev = r[0].ev, psn = r[0].pkt.bth.psn;
        }
    };
    refuse_until(600'000'000);
    EXPECT_FALSE(mrc_conn_failed(c_));
    mrc_conn_set_orphan(c_);
    const u64 orphaned = now;
    refuse_until(orphaned + 1'000'000'000);
    ASSERT_TRUE(mrc_conn_failed(c_));
    EXPECT_EQ(stats().error, MRC_CONN_ERR_PROGRESS);
    EXPECT_LE(now, orphaned + 200'000'000);
}

TEST_F(ReqTest, RtoLinearThenExponentialBackoff) {
    cfg_.rto_linear_retries = 2;
    cfg_.rto_max_backoff = 3;
    cfg_.ev_min_active = 1;
    cfg_.probe_interval_ns = 10000000000ull;  // keep probes out of the way
    cfg_.probe_max_interval_ns = cfg_.probe_interval_ns;
    create();
    ASSERT_EQ(mrc_conn_send(c_, 0, 1024, 0, 0, 1, nullptr), MRC_OK);
    poll(0);
    u64 now = 0;
    std::vector<u64> gaps;
    for (int i = 0; i < 6; i++) {
        u64 dl = mrc_conn_next_deadline(c_);
        gaps.push_back(dl - now);
        now = dl;
        mrc_conn_on_timer(c_, now);
        ASSERT_EQ(poll(now).size(), 1u);
    }
    const u64 b = rto();
    EXPECT_EQ(gaps, (std::vector<u64>{b, b, b, 2 * b, 4 * b, 8 * b}));
    mrc_conn_on_timer(c_, now + 8 * b);
    EXPECT_EQ(stats().timeouts, 7u);
}

TEST_F(ReqTest, TimeoutEventNamesEvAndPsnBeforeStateChange) {
    create();
    ASSERT_EQ(mrc_conn_send(c_, 0, 1024 * 2, 0, 0, 1, nullptr), MRC_OK);
    auto d = poll(0);
    ASSERT_EQ(d.size(), 2u);
    events();
    mrc_conn_on_timer(c_, rto());
    auto ev = events();
    ASSERT_EQ(count(ev, MRC_EVT_TIMEOUT), 2u);
    std::vector<mrc_event> to;
    for (const auto& e : ev) {
        if (e.type == MRC_EVT_TIMEOUT) to.push_back(e);
    }
    for (size_t i = 0; i < to.size(); i++) {
        EXPECT_EQ(to[i].u.timeout.ev, d[i].ev);
        EXPECT_EQ(to[i].u.timeout.psn, d[i].pkt.bth.psn);
        EXPECT_EQ(to[i].u.timeout.index, mrc_conn_find_ev(c_, d[i].ev));
        EXPECT_EQ(to[i].u.timeout.count, 1u);
    }
    // The timeout is reported before the EV state change it causes.
    ASSERT_EQ(ev[0].type, MRC_EVT_TIMEOUT);
    EXPECT_EQ(mrc_event_type_name(MRC_EVT_TIMEOUT), std::string("timeout"));
    // Masked: no event, same behaviour.
    cfg_.event_mask = MRC_EVT_MASK_ALL & ~(1u << MRC_EVT_TIMEOUT);
    create();
    ASSERT_EQ(mrc_conn_send(c_, 0, 1024, 0, 0, 1, nullptr), MRC_OK);
    poll(0);
    mrc_conn_on_timer(c_, rto());
    EXPECT_EQ(count(events(), MRC_EVT_TIMEOUT), 0u);
    EXPECT_EQ(stats().timeouts, 1u);
}

TEST_F(ReqTest, RetryBudgetExhaustedFailsAndProgressRefills) {
    cfg_.retry_budget = 3;
    cfg_.rto_linear_retries = 10;
    cfg_.probe_interval_ns = 10000000000ull;
    cfg_.probe_max_interval_ns = cfg_.probe_interval_ns;
    create();
    ASSERT_EQ(mrc_conn_send(c_, 0, 1024 * 2, 0, 0, 1, nullptr), MRC_OK);
    poll(0);
    u64 now = rto();
    mrc_conn_on_timer(c_, now);  // two timeouts
    EXPECT_EQ(stats().retry_left, 1u);
    poll(now);
    mrc_pkt s = sack(0);  // progress: budget refilled
    rx(now + 1, s);
    EXPECT_EQ(stats().retry_left, 3u);
    for (int i = 0; i < 3; i++) {
        now = mrc_conn_next_deadline(c_);
        mrc_conn_on_timer(c_, now);
        EXPECT_FALSE(mrc_conn_failed(c_));
        poll(now);
    }
    EXPECT_EQ(stats().retry_left, 0u);
    now = mrc_conn_next_deadline(c_);
    mrc_conn_on_timer(c_, now);
    EXPECT_TRUE(mrc_conn_failed(c_));
    auto ev = events();
    ASSERT_GE(ev.size(), 1u);
    EXPECT_EQ(ev[0].type, MRC_EVT_CONN_ERROR);
    EXPECT_EQ(ev[0].u.error.reason, MRC_CONN_ERR_RETRY);
}

// The answer's M field still judges the probed path: a congested path comes
// back as SKIP, not GOOD.
TEST_F(ReqTest, ProbeAnswerHonoursM) {
    create();
    int bad_idx;
    const u32 bad = time_out_first_ev(&bad_idx);
    poll(rto());
    rx(rto() + 5, sack(0));
    const u64 due = rto() + cfg_.probe_interval_ns;
    ASSERT_EQ(poll(due).size(), 1u);
    mrc_pkt a = sack(0, 0, 1, bad);
    a.sack.pr = true;
    a.sack.ack_psn_off = static_cast<s16>(bad_idx);
    a.sack.ecn = MRC_ECN_SKIP_ONCE;
    rx(due + 20 * kUs, a);
    EXPECT_EQ(ev_state(bad), MRC_EV_SKIP);
}

TEST_F(ReqTest, ProbeRecoversAssumedBadEv) {
    create();
    int bad_idx;
    const u32 bad = time_out_first_ev(&bad_idx);
    EXPECT_EQ(ev_state(bad), MRC_EV_ASSUMED_BAD);
    auto r = poll(rto());
    ASSERT_EQ(r.size(), 1u);
    const u32 snd_nxt = stats().snd_nxt;
    events();
    // Probe due probe_interval after the timeout.
    const u64 due = rto() + cfg_.probe_interval_ns;
    EXPECT_EQ(mrc_conn_next_deadline(c_), rto() + rto());  // RTO first
    rx(rto() + 5, sack(0));                                // retransmission acked
    EXPECT_EQ(mrc_conn_next_deadline(c_), due);
    EXPECT_TRUE(poll(due - 1).empty());
    auto p = poll(due);
    ASSERT_EQ(p.size(), 1u);
    EXPECT_EQ(p[0].kind, MRC_TX_PROBE);
    EXPECT_EQ(p[0].ev, bad);
    EXPECT_EQ(p[0].pkt.bth.opcode, MRC_OP_PROBE);
    EXPECT_EQ(p[0].pkt.probe.probe_id, bad_idx);
    EXPECT_EQ(p[0].pkt.bth.psn, 0u);  // reserved in a probe (MRC 1.0)
    EXPECT_EQ(p[0].pkt.probe.ftype, MRC_TS_FTYPE);
    EXPECT_EQ(p[0].pkt.probe.src_conn, 7);
    EXPECT_EQ(p[0].pkt.probe.dst_conn, 9);
    EXPECT_EQ(stats().snd_nxt, snd_nxt);  // no PSN consumed
    auto ev = events();
    ASSERT_EQ(count(ev, MRC_EVT_PROBE_SENT), 1u);
    // Unanswered: probed again after the interval (then doubling).
    EXPECT_EQ(mrc_conn_next_deadline(c_), due + cfg_.probe_interval_ns);
    // Answer with the wrong probe id: ignored.
    mrc_pkt a = sack(0, 0, 1, bad);
    a.sack.pr = true;
    a.sack.ack_psn_off = static_cast<s16>(bad_idx + 1);
    rx(due + 10 * kUs, a);
    EXPECT_EQ(ev_state(bad), MRC_EV_ASSUMED_BAD);
    a.sack.ack_psn_off = static_cast<s16>(bad_idx);
    rx(due + 20 * kUs, a);
    EXPECT_EQ(ev_state(bad), MRC_EV_GOOD);
    ev = events();
    ASSERT_EQ(count(ev, MRC_EVT_PROBE_ANSWERED), 1u);
    for (const auto& e : ev)
        if (e.type == MRC_EVT_PROBE_ANSWERED) {
            EXPECT_EQ(e.u.probe.ev, bad);
            EXPECT_EQ(e.u.probe.rtt_ns, 20 * kUs);
        }
    EXPECT_EQ(stats().tx_probes, 1u);
}

TEST_F(ReqTest, RttSamplesKarnAndTimestamp) {
    create();
    ASSERT_EQ(mrc_conn_send(c_, 0, 1024 * 3, 0, 0, 1, nullptr), MRC_OK);
    auto d = poll(1000);
    mrc_pkt s = sack(0xffffff, 0b1);
    s.sack.ack_psn_off = 1;  // trigger = cack + 1 = PSN 0
    rx(1000 + 7 * kUs, s);
    auto ev = events();
    ASSERT_EQ(count(ev, MRC_EVT_RTT_SAMPLE), 1u);
    EXPECT_EQ(ev[0].u.rtt.rtt_ns, 7 * kUs);
    EXPECT_EQ(ev[0].u.rtt.psn, 0u);
    EXPECT_EQ(ev[0].u.rtt.ev, d[0].ev);
    EXPECT_EQ(stats().srtt_ns, 7 * kUs);
    EXPECT_EQ(stats().min_rtt_ns, 7 * kUs);
    // Same trigger again: no second sample.
    rx(1000 + 9 * kUs, s);
    EXPECT_EQ(count(events(), MRC_EVT_RTT_SAMPLE), 0u);
    // PSN 1 and 2 retransmitted after a timeout. A SACK echoing the
    // timestamp of the transmission that timed out proves the timeout
    // spurious: the late arrival is an RTT sample (now - first send), the
    // EV it went on is GOOD again at once.
    mrc_conn_on_timer(c_, 1000 + rto());
    auto r = poll(1000 + rto());
    ASSERT_EQ(r.size(), 2u);
    events();
    s = sack(0xffffff, 0b11);
    s.sack.ack_psn_off = 2;  // PSN 1
    s.sack.cc.echoed_ts = d[1].pkt.tseth.tx_ts;
    ASSERT_NE(s.sack.cc.echoed_ts, r[0].pkt.tseth.tx_ts);
    rx(1000 + rto() + 3 * kUs, s);
    ev = events();
    ASSERT_EQ(count(ev, MRC_EVT_RTT_SAMPLE), 1u);
    for (const auto& e : ev)
        if (e.type == MRC_EVT_RTT_SAMPLE) {
            EXPECT_EQ(e.u.rtt.psn, 1u);
            EXPECT_EQ(e.u.rtt.rtt_ns, rto() + 3 * kUs);
        }
    EXPECT_EQ(stats().spurious_timeouts, 1u);
    EXPECT_EQ(ev_state(d[1].ev), MRC_EV_GOOD);
    // An echo of the retransmission's timestamp: a normal sample, and the
    // timeout stays a real one.
    s = sack(0xffffff, 0b111);
    s.sack.ack_psn_off = 3;  // PSN 2, retransmitted
    s.sack.cc.echoed_ts = r[1].pkt.tseth.tx_ts;
    rx(1000 + rto() + 4 * kUs, s);
    ev = events();
    ASSERT_EQ(count(ev, MRC_EVT_RTT_SAMPLE), 1u);
    EXPECT_EQ(ev.back().u.rtt.rtt_ns, 4 * kUs);
    EXPECT_EQ(stats().spurious_timeouts, 1u);
    // RTO adapts upwards to srtt + 4 rttvar when that exceeds the floor.
    EXPECT_LT(stats().srtt_ns, rto());
}

TEST_F(ReqTest, SpuriousTimeoutBeforeRetransmission) {
    create();
    ASSERT_EQ(mrc_conn_send(c_, 0, 1024 * 2, 0, 0, 1, nullptr), MRC_OK);
    auto d = poll(1000);
    ASSERT_EQ(d.size(), 2u);
    ASSERT_EQ(c_->evm.loss_all_fp, 0u);
    mrc_conn_on_timer(c_, 1000 + rto());
    EXPECT_EQ(stats().timeouts, 2u);
    EXPECT_EQ(ev_state(d[0].ev), MRC_EV_ASSUMED_BAD);
    EXPECT_EQ(ev_state(d[1].ev), MRC_EV_ASSUMED_BAD);
    EXPECT_GT(c_->evm.loss_all_fp, 0u) << "two loss samples";
    events();
    // Both arrive late, before anything was retransmitted: the timeouts
    // were spurious. Each late arrival is an RTT sample (a cumulative ack
    // does not time the arrival: the sample is the RTO that fired, a lower
    // bound), the EVs are GOOD again (cause late_ack) and nothing is
    // retransmitted.
    rx(1000 + rto() + 5 * kUs, sack(1));
    auto ev = events();
    EXPECT_EQ(stats().spurious_timeouts, 2u);
    EXPECT_EQ(count(ev, MRC_EVT_RTT_SAMPLE), 2u);
    size_t late = 0;
    for (const auto& e : ev) {
        if (e.type == MRC_EVT_RTT_SAMPLE) EXPECT_EQ(e.u.rtt.rtt_ns, rto());
        if (e.type == MRC_EVT_EV_STATE && e.u.ev.cause == MRC_EVC_LATE_ACK) {
            EXPECT_EQ(e.u.ev.new_state, MRC_EV_GOOD);
            late++;
        }
    }
    EXPECT_EQ(late, 2u);
    EXPECT_EQ(ev_state(d[0].ev), MRC_EV_GOOD);
    EXPECT_EQ(ev_state(d[1].ev), MRC_EV_GOOD);
    EXPECT_TRUE(poll(1000 + rto() + 6 * kUs).empty());
    EXPECT_EQ(stats().tx_rtx_pkts, 0u);
    // Both packets were delivered: the loss samples are taken back, the
    // connection's loss estimate is what two deliveries make of it.
    EXPECT_EQ(c_->evm.loss_all_fp, 0u);
    // The RTO now covers the delay that fooled it.
    EXPECT_GT(stats().srtt_ns + 4 * stats().rttvar_ns, rto() + 5 * kUs);
}

TEST_F(ReqTest, RealTimeoutIsNotSpurious) {
    mrc_tx_desc sent, rtx;
    u64 t;
    ASSERT_NO_FATAL_FAILURE(timed_out_once(&sent, &rtx, &t));
    EXPECT_NE(rtx.ev, sent.ev);
    // Acked 10 us after the retransmission (a full RTT), no timestamp of the
    // timed-out transmission: the retransmission got through.
    rx(t + 10 * kUs, sack(1));
    EXPECT_EQ(stats().spurious_timeouts, 0u);
    EXPECT_EQ(ev_state(sent.ev), MRC_EV_ASSUMED_BAD);
}

TEST_F(ReqTest, RefusedRetransmissionKeepsTimeoutSpurious) {
    mrc_tx_desc sent, rtx;
    u64 t;
    ASSERT_NO_FATAL_FAILURE(timed_out_once(&sent, &rtx, &t));
    // The host's queue refuses the retransmission: it never left, so the
    // transmission that timed out is still the only one out there.
    ASSERT_EQ(mrc_conn_tx_dropped(c_, t, rtx.pkt.bth.psn, rtx.ev), MRC_OK);
    // A plain cumulative ack a full RTT later can only be for that one: the
    // timeout was spurious (a slow guest's acks late beyond the RTO, whose
    // retransmissions its full qdisc refused, read as genuine timeouts).
    rx(t + 20 * kUs, sack(1));
    EXPECT_EQ(stats().spurious_timeouts, 1u);
    EXPECT_EQ(ev_state(sent.ev), MRC_EV_GOOD);
    EXPECT_TRUE(poll(t + 30 * kUs).empty());
}

TEST_F(ReqTest, RefusedThenSentRetransmissionIsNotSpurious) {
    mrc_tx_desc sent, rtx;
    u64 t;
    ASSERT_NO_FATAL_FAILURE(timed_out_once(&sent, &rtx, &t));
    ASSERT_EQ(mrc_conn_tx_dropped(c_, t, rtx.pkt.bth.psn, rtx.ev), MRC_OK);
    // Resent, and this time the queue takes it: an ack a full RTT after
    // cannot tell which copy arrived.
    ASSERT_EQ(poll(t + kUs).size(), 1u);
    rx(t + 21 * kUs, sack(1));
    EXPECT_EQ(stats().spurious_timeouts, 0u);
    EXPECT_EQ(ev_state(sent.ev), MRC_EV_ASSUMED_BAD);
}

TEST_F(ReqTest, DuplicateReportProvesTimeoutSpurious) {
    mrc_tx_desc sent, rtx;
    u64 t;
    ASSERT_NO_FATAL_FAILURE(timed_out_once(&sent, &rtx, &t));
    // A plain cumulative ack a full RTT later cannot tell which copy arrived.
    rx(t + 20 * kUs, sack(1));
    EXPECT_EQ(stats().spurious_timeouts, 0u);
    EXPECT_EQ(ev_state(sent.ev), MRC_EV_ASSUMED_BAD);
    // Then the receiver reports the retransmission as a duplicate: the
    // first copy had arrived, the timeout was spurious.
    mrc_pkt s = sack(1);
    s.sack.ack_psn_off = 0;  // trigger: PSN 1
    s.sack.cc.restore_cwnd = 1;
    rx(t + 30 * kUs, s);
    EXPECT_EQ(stats().spurious_timeouts, 1u);
    EXPECT_EQ(ev_state(sent.ev), MRC_EV_GOOD);
    // Reported once only.
    rx(t + 40 * kUs, s);
    EXPECT_EQ(stats().spurious_timeouts, 1u);
}

TEST_F(ReqTest, RttVarianceHoldsForOneRtt) {
    cfg_.rto_exp = 14;
    create();
    u64 t = 0;
    // sample(send, rtt): one packet sent at @send, acked (trigger) rtt later.
    auto sample = [&](u64 send, u64 rtt) {
        ASSERT_EQ(mrc_conn_send(c_, send, 1024, 0, 0, 1, nullptr), MRC_OK);
        auto d = poll(send);
        ASSERT_EQ(d.size(), 1u);
        mrc_pkt s = sack(d[0].pkt.bth.psn);
        s.sack.ack_psn_off = 0;
        s.sack.cc.echoed_ts = d[0].pkt.tseth.tx_ts;
        rx(send + rtt, s);
        t = send + rtt;
    };
    sample(0, 100 * kUs);
    sample(t, 1000 * kUs);  // a delay spike
    const u64 spike_var = stats().rttvar_ns;
    EXPECT_GT(spike_var, 200 * kUs);
    // Quiet samples within the same smoothed RTT: the variance the RTO uses
    // does not forget the spike.
    const u64 period_end = t + stats().srtt_ns;
    for (int i = 0; i < 6; i++) sample(t, 10 * kUs);
    ASSERT_LT(t, period_end);
    EXPECT_EQ(stats().rttvar_ns, spike_var);
    // Past the period it decays, by a quarter of the gap per period.
    sample(period_end, 10 * kUs);
    EXPECT_LT(stats().rttvar_ns, spike_var);
    EXPECT_GT(stats().rttvar_ns, spike_var / 2);
}

TEST_F(ReqTest, EcnSackSkipsEv) {
    create();
    ASSERT_EQ(mrc_conn_send(c_, 0, 1024 * 2, 0, 0, 1, nullptr), MRC_OK);
    auto d = poll(0);
    mrc_pkt s = sack(0, 0, 1, d[0].ev, MRC_ECN_SKIP_ONCE);
    rx(1, s);
    EXPECT_EQ(ev_state(d[0].ev), MRC_EV_SKIP);
    mrc_ev_info info;
    mrc_conn_get_ev(c_, static_cast<u16>(mrc_conn_find_ev(c_, d[0].ev)), &info);
    EXPECT_EQ(info.cnt.ecn, 1u);
    EXPECT_EQ(info.cnt.sacked, 1u);
}

TEST_F(ReqTest, LocalDropRetransmitsAtOnceWithoutEvPenalty) {
    create();
    ASSERT_EQ(mrc_conn_send(c_, 0, 1024 * 4, 0, 0, 1, nullptr), MRC_OK);
    auto d = poll(0);
    ASSERT_EQ(d.size(), 4u);
    const u32 psn = d[1].pkt.bth.psn;
    // The wrong EV, or a packet that is not in flight, is stale.
    EXPECT_EQ(mrc_conn_tx_dropped(c_, 1, psn, d[2].ev == d[1].ev ? d[1].ev + 1 : d[2].ev),
              MRC_E_STALE);
    EXPECT_EQ(mrc_conn_tx_dropped(c_, 1, psn + 100, d[1].ev), MRC_E_STALE);
    EXPECT_EQ(mrc_conn_tx_dropped(c_, 1, psn, d[1].ev), MRC_OK);
    EXPECT_EQ(mrc_conn_tx_dropped(c_, 1, psn, d[1].ev), MRC_E_STALE);  // reported twice
    // Resent by the next poll, long before any timeout, on another EV.
    auto r = poll(2);
    ASSERT_EQ(r.size(), 1u);
    EXPECT_TRUE(r[0].rtx);
    EXPECT_EQ(r[0].pkt.bth.psn, psn);
    EXPECT_NE(r[0].ev, d[1].ev);
    // The EV it was refused on is not blamed.
    EXPECT_EQ(ev_state(d[1].ev), MRC_EV_GOOD);
    auto st = stats();
    EXPECT_EQ(st.tx_local_drops, 1u);
    EXPECT_EQ(st.tx_rtx_local, 1u);
    EXPECT_EQ(st.tx_rtx_timeout, 0u);
    EXPECT_EQ(st.timeouts, 0u);
    EXPECT_EQ(st.retry_left, cfg_.retry_budget);
    // Everything acknowledged: the message completes once.
    rx(3, sack(d[3].pkt.bth.psn));
    EXPECT_EQ(count(events(), MRC_EVT_MSG_COMPLETED), 1u);
}

TEST_F(ReqTest, LocalDropShrinksTheWindowByThePacket) {
    cfg_.cc_algo = MRC_CC_NSCC;
    create();
    ASSERT_EQ(mrc_conn_send(c_, 0, 1024 * 2, 0, 0, 1, nullptr), MRC_OK);
    auto d = poll(0);
    ASSERT_EQ(d.size(), 2u);
    const u32 cwnd0 = stats().cwnd_bytes;
    ASSERT_EQ(mrc_conn_tx_dropped(c_, 1, d[0].pkt.bth.psn, d[0].ev), MRC_OK);
    EXPECT_EQ(stats().cwnd_bytes, cwnd0 - 1024);
}

TEST_F(ReqTest, LocalCongestionShrinksTheWindowWithoutLossOrBlame) {
    cfg_.cc_algo = MRC_CC_NSCC;
    create();
    ASSERT_EQ(mrc_conn_send(c_, 0, 1024 * 4, 0, 0, 1, nullptr), MRC_OK);
    auto d = poll(0);
    ASSERT_EQ(d.size(), 4u);
    const u32 cwnd0 = stats().cwnd_bytes;
    // A qdisc took two packets while dropping others (NET_XMIT_CN).
    EXPECT_EQ(mrc_conn_tx_congested(c_, 1, 2048), MRC_OK);
    EXPECT_EQ(stats().cwnd_bytes, cwnd0 - 2048);
    EXPECT_EQ(stats().tx_local_cn, 1u);
    // Nothing is declared lost (the host cannot tell which were dropped)
    // and no EV is blamed.
    EXPECT_TRUE(poll(2).empty());
    EXPECT_EQ(stats().tx_rtx_pkts, 0u);
    for (const auto& p : d) EXPECT_EQ(ev_state(p.ev), MRC_EV_GOOD);
    // Acknowledged as sent: the message completes.
    rx(3, sack(d[3].pkt.bth.psn));
    EXPECT_EQ(count(events(), MRC_EVT_MSG_COMPLETED), 1u);
}

TEST_F(ReqTest, PathMtuDropCutsTheRestSmallerAndResendsBigPacketsWithoutBlame) {
    cfg_.cc_algo = MRC_CC_NSCC;
    create();
    // A: 4 full packets and 100 bytes; B: 3000 bytes. Three of A go out.
    ASSERT_EQ(mrc_conn_send(c_, 0, 1024 * 4 + 100, 0, 0, 1, nullptr), MRC_OK);
    ASSERT_EQ(mrc_conn_send(c_, 0, 3000, 0, 0, 2, nullptr), MRC_OK);
    auto d = poll(0, 3);
    ASSERT_EQ(d.size(), 3u);
    const u32 cwnd0 = stats().cwnd_bytes;
    EXPECT_TRUE(mrc_conn_tx_recent(c_, d[0].pkt.bth.psn));
    EXPECT_TRUE(mrc_conn_tx_recent(c_, d[2].pkt.bth.psn));
    EXPECT_FALSE(mrc_conn_tx_recent(c_, d[2].pkt.bth.psn + 1));     // not sent yet
    EXPECT_FALSE(mrc_conn_tx_recent(c_, d[0].pkt.bth.psn - 4096));  // long ago
    // Never up, never unaligned, never below the floor.
    EXPECT_EQ(mrc_conn_set_mtu(c_, 1, 1024), MRC_E_INVAL);
    EXPECT_EQ(mrc_conn_set_mtu(c_, 1, 510), MRC_E_INVAL);
    EXPECT_EQ(mrc_conn_set_mtu(c_, 1, MRC_MTU_MIN - 4), MRC_E_INVAL);
    // The three in flight are too big now: resent at once.
    EXPECT_EQ(mrc_conn_set_mtu(c_, 1, 512), 3);
    EXPECT_EQ(mrc_conn_set_mtu(c_, 1, 512), MRC_E_INVAL);
    EXPECT_EQ(stats().cwnd_bytes, cwnd0);  // not congestion: no window cut
    auto r = poll(2);
    ASSERT_EQ(r.size(), 3u + 3u + 6u);
    for (size_t i = 0; i < 3; i++) {
        EXPECT_TRUE(r[i].rtx);
        EXPECT_EQ(r[i].pkt.bth.psn, d[i].pkt.bth.psn);
        EXPECT_EQ(r[i].payload_len, 1024u);  // a PSN keeps its size
        EXPECT_EQ(r[i].msg_offset, d[i].msg_offset);
    }
    // The rest of A at 512, contiguous, ending with its LAST packet.
    const u32 a_off[] = {3072, 3584, 4096}, a_len[] = {512, 512, 100};
    for (size_t i = 0; i < 3; i++) {
        EXPECT_FALSE(r[3 + i].rtx);
        EXPECT_EQ(r[3 + i].msg_offset, a_off[i]);
        EXPECT_EQ(r[3 + i].payload_len, a_len[i]);
        EXPECT_EQ(r[3 + i].pkt.bth.opcode, i == 2 ? MRC_OP_WRITE_LAST : MRC_OP_WRITE_MIDDLE);
    }
    // B, queued before the drop, cut at 512 from its first byte.
    for (size_t i = 0; i < 6; i++) {
        EXPECT_EQ(r[6 + i].msg_offset, 512 * i);
        EXPECT_EQ(r[6 + i].payload_len, i == 5 ? 440u : 512u);
    }
    EXPECT_EQ(r[6].pkt.bth.opcode, MRC_OP_WRITE_FIRST);
    EXPECT_EQ(r[11].pkt.bth.opcode, MRC_OP_WRITE_LAST);
    // No EV blamed, no timeout, no budget spent; both messages complete.
    for (const auto& x : d) EXPECT_EQ(ev_state(x.ev), MRC_EV_GOOD);
    auto st = stats();
    EXPECT_EQ(st.tx_rtx_pmtu, 3u);
    EXPECT_EQ(st.timeouts, 0u);
    EXPECT_EQ(st.retry_left, cfg_.retry_budget);
    rx(3, sack(r.back().pkt.bth.psn));
    EXPECT_EQ(count(events(), MRC_EVT_MSG_COMPLETED), 2u);
}

TEST_F(ReqTest, PlaneDownRetransmitsInFlightElsewhere) {
    create();
    ASSERT_EQ(mrc_conn_send(c_, 0, 1024 * 16, 0, 0, 1, nullptr), MRC_OK);
    auto d = poll(0);
    ASSERT_EQ(d.size(), 16u);
    size_t on0 = 0;
    for (const auto& x : d) on0 += x.plane == 0;
    ASSERT_GT(on0, 0u);
    EXPECT_EQ(mrc_conn_set_plane_up(c_, 5, 0, false), MRC_OK);
    EXPECT_EQ(mrc_conn_set_plane_up(c_, 5, 9, false), MRC_E_INVAL);
    auto r = poll(5);
    ASSERT_EQ(r.size(), on0);
    for (const auto& x : r) {
        EXPECT_EQ(x.plane, 1);
        EXPECT_TRUE(x.rtx);
    }
    auto st = stats();
    EXPECT_EQ(st.tx_rtx_plane_down, on0);
    EXPECT_EQ(st.timeouts, 0u);
    EXPECT_EQ(st.retry_left, cfg_.retry_budget);
    auto ev = events();
    ASSERT_EQ(count(ev, MRC_EVT_PLANE), 1u);
    mrc_plane_info pi;
    ASSERT_EQ(mrc_conn_get_plane(c_, 0, &pi), MRC_OK);
    EXPECT_EQ(pi.up, 0);
    EXPECT_EQ(pi.n_bad, 0);
    EXPECT_EQ(mrc_conn_get_plane(c_, 2, &pi), MRC_E_INVAL);
}

// The window's bytes drain through one plane fewer once a plane is down:
// the queueing part of the RTT grows by 1/(planes left) before any
// sample shows it. Planes whose queues are alike (spraying, the balance
// rule) leave rttvar far below that growth, and the RTO armed on the next
// packets fired before their acknowledgment (the bench's plane-down cell:
// dozens of spurious timeouts at once). A plane down widens rttvar by it.
TEST_F(ReqTest, PlaneDownWidensTheRtoByTheQueueingDelayItAdds) {
    const mrc_conn_cfg two = cfg_;
    mrc_conn_cfg_init(&cfg_, 4);
    cfg_.local_conn_id = two.local_conn_id;
    cfg_.peer_conn_id = two.peer_conn_id;
    cfg_.mtu = two.mtu;
    cfg_.mpr = two.mpr;
    cfg_.ev_per_plane = two.ev_per_plane;
    cfg_.ev_active_per_plane = two.ev_active_per_plane;
    cfg_.ev_min_active = two.ev_min_active;
    cfg_.rto_exp = two.rto_exp;  // 131 us: srtt + 4 rttvar rules
    cfg_.probe_interval_ns = two.probe_interval_ns;
    cfg_.cc_algo = two.cc_algo;
    cfg_.cc.fixed_wnd_bytes = two.cc.fixed_wnd_bytes;
    create();
    constexpr u64 kBase = 100 * kUs, kQueued = 1200 * kUs;
    u64 t = 1000;
    u32 psn = 0;
    // One sample of the base RTT (the min), then a long run of samples
    // through queues alike: srtt 1.2 ms, rttvar next to nothing.
    auto sample = [&](u64 rtt) {
        ASSERT_EQ(mrc_conn_send(c_, t, 1024, 0, 0, psn, nullptr), MRC_OK);
        auto d = poll(t);
        ASSERT_EQ(d.size(), 1u);
        mrc_pkt s = sack(psn);
        s.sack.ack_psn_off = 0;
        s.sack.cc.echoed_ts = d[0].pkt.tseth.tx_ts;
        t += rtt;
        rx(t, s);
        events();  // the completion frees its send slot
        psn++;
        t += 10 * kUs;
    };
    sample(kBase);
    for (int i = 0; i < 400; i++) sample(kQueued);
    ASSERT_NEAR(static_cast<double>(c_->req.srtt_ns), kQueued, 5 * kUs);
    ASSERT_LT(mrc_req_rto(c_), kQueued + 100 * kUs);

    // Plane 0 goes: the 1.1 ms of queue now drains through 3 planes.
    const u64 after = kBase + (kQueued - kBase) * 4 / 3;
    ASSERT_EQ(mrc_conn_set_plane_up(c_, t, 0, false), MRC_OK);
    EXPECT_GE(mrc_req_rto(c_), after + 2 * (after - kQueued));
    // A repeated notification is not a second plane lost.
    const u64 rto_down = mrc_req_rto(c_);
    ASSERT_EQ(mrc_conn_set_plane_up(c_, t, 0, false), MRC_OK);
    EXPECT_EQ(mrc_req_rto(c_), rto_down);

    // The next packet, acknowledged after the longer queue, does not
    // time out on the way.
    ASSERT_EQ(mrc_conn_send(c_, t, 1024, 0, 0, psn, nullptr), MRC_OK);
    auto d = poll(t);
    ASSERT_EQ(d.size(), 1u);
    EXPECT_NE(d[0].plane, 0);
    mrc_conn_on_timer(c_, t + after);
    EXPECT_TRUE(poll(t + after).empty());
    EXPECT_EQ(stats().timeouts, 0u);
    mrc_pkt s = sack(psn);
    s.sack.ack_psn_off = 0;
    s.sack.cc.echoed_ts = d[0].pkt.tseth.tx_ts;
    rx(t + after, s);
    EXPECT_EQ(stats().timeouts, 0u);
    EXPECT_EQ(stats().inflight_pkts, 0u);

    // A flapping port widens it again at each loss, up to srtt.
    for (int i = 0; i < 20; i++) {
        ASSERT_EQ(mrc_conn_set_plane_up(c_, t + after, 1, false), MRC_OK);
        ASSERT_EQ(mrc_conn_set_plane_up(c_, t + after, 1, true), MRC_OK);
    }
    EXPECT_LE(c_->req.rttvar_ns, c_->req.srtt_ns);
    EXPECT_GT(mrc_req_rto(c_), rto_down);
}

TEST_F(ReqTest, RoomMaskBlocksAndResumes) {
    create();
    ASSERT_EQ(mrc_conn_send(c_, 0, 1024 * 4, 0, 0, 1, nullptr), MRC_OK);
    mrc_conn_set_tx_room(c_, 0);
    EXPECT_TRUE(poll(0).empty());
    mrc_conn_set_tx_room(c_, 0x2);
    auto d = poll(0);
    ASSERT_EQ(d.size(), 4u);
    for (const auto& x : d) EXPECT_EQ(x.plane, 1);
}

TEST_F(ReqTest, DeadlinesWhenIdle) {
    create();
    EXPECT_EQ(mrc_conn_next_deadline(c_), MRC_NO_DEADLINE);
    ASSERT_EQ(mrc_conn_send(c_, 0, 10, 0, 0, 1, nullptr), MRC_OK);
    poll(100);
    EXPECT_EQ(mrc_conn_next_deadline(c_), 100 + rto());
    rx(200, sack(0));
    EXPECT_EQ(mrc_conn_next_deadline(c_), MRC_NO_DEADLINE);
    mrc_conn_on_timer(c_, 100 + rto());  // spurious wake-up: harmless
    EXPECT_TRUE(poll(100 + rto()).empty());
    EXPECT_EQ(stats().timeouts, 0u);
}

// ---- flowcells: mrc_conn_poll_tx_burst() ----

// Encoded size of a descriptor's MRC packet (headers, payload, pad).
static u32 wire_len(const mrc_tx_desc& d) {
    return mrc_pkt_hdr_len(&d.pkt) + d.payload_len + d.pkt.bth.pad_cnt;
}

class BurstTest : public ReqTest {
  protected:
    // Every burst until the engine has nothing more to send now.
    std::vector<std::vector<mrc_tx_desc>> bursts(u64 now, u32 max) {
        std::vector<std::vector<mrc_tx_desc>> v;
        std::vector<mrc_tx_desc> d(max);
        int n;

        while ((n = mrc_conn_poll_tx_burst(c_, now, d.data(), max)) > 0)
            v.emplace_back(d.begin(), d.begin() + n);
        EXPECT_EQ(n, MRC_E_AGAIN);
        return v;
    }
    // The properties every burst has: one message, one EV, consecutive
    // PSNs and offsets, equal segments but a shorter-or-equal last one.
    static void check_burst(const std::vector<mrc_tx_desc>& b) {
        for (size_t i = 1; i < b.size(); i++) {
            EXPECT_EQ(b[i].kind, MRC_TX_DATA);
            EXPECT_EQ(b[i].ev, b[0].ev);
            EXPECT_EQ(b[i].msn, b[0].msn);
            EXPECT_EQ(b[i].cookie, b[0].cookie);
            EXPECT_FALSE(b[i].rtx);
            EXPECT_EQ(b[i].pkt.bth.psn, (b[i - 1].pkt.bth.psn + 1) & MRC_PSN_MASK);
            EXPECT_EQ(b[i].msg_offset, b[i - 1].msg_offset + b[i - 1].payload_len);
            if (i + 1 < b.size())
                EXPECT_EQ(wire_len(b[i]), wire_len(b[0]));
            else
                EXPECT_LE(wire_len(b[i]), wire_len(b[0]));
        }
    }
};

TEST_F(BurstTest, MessageGoesOutInBurstsOfOneEvEach) {
    create();
    ASSERT_EQ(mrc_conn_send(c_, 0, 10 * 1024 - 100, 0, 0, 1, nullptr), MRC_OK);
    auto v = bursts(0, 4);
    ASSERT_EQ(v.size(), 3u);
    EXPECT_EQ(v[0].size(), 4u);
    EXPECT_EQ(v[1].size(), 4u);
    EXPECT_EQ(v[2].size(), 2u);
    for (const auto& b : v) check_burst(b);
    // One EV pick per burst: the rotation moves on between bursts.
    EXPECT_NE(v[0][0].ev, v[1][0].ev);
    EXPECT_NE(v[1][0].ev, v[2][0].ev);
    EXPECT_EQ(v[2][1].payload_len, 1024u - 100u);
    EXPECT_TRUE(v[2][1].pkt.bth.ack_req);  // the message's end asks
    EXPECT_EQ(stats().tx_data_pkts, 10u);
}

// A router that forwards a flowcell whole drops it whole for its size
// (one Packet Too Big): the burst's shorter last packet, small enough for
// the new MTU, is resent with the big ones instead of timing out. A small
// message that only followed on another EV is not.
TEST_F(BurstTest, PathMtuDropResendsAFlowcellsShortLastPacket) {
    create();
    ASSERT_EQ(mrc_conn_send(c_, 0, 4 * 1024 + 100, 0, 0, 1, nullptr), MRC_OK);
    ASSERT_EQ(mrc_conn_send(c_, 0, 100, 0, 0, 2, nullptr), MRC_OK);
    auto v = bursts(0, 8);
    ASSERT_EQ(v.size(), 2u);
    ASSERT_EQ(v[0].size(), 5u);
    check_burst(v[0]);
    EXPECT_EQ(v[0][4].payload_len, 100u);
    ASSERT_EQ(v[1].size(), 1u);
    EXPECT_EQ(mrc_conn_set_mtu(c_, 1, 512), 5);
    auto r = poll(2);
    std::set<u32> resent;
    for (const auto& x : r)
        if (x.rtx) resent.insert(x.pkt.bth.psn);
    EXPECT_EQ(resent.size(), 5u);
    for (const auto& x : v[0]) EXPECT_TRUE(resent.count(x.pkt.bth.psn));
    EXPECT_FALSE(resent.count(v[1][0].pkt.bth.psn));
    EXPECT_EQ(stats().timeouts, 0u);
    for (const auto& x : v[0]) EXPECT_EQ(ev_state(x.ev), MRC_EV_GOOD);
}

TEST_F(BurstTest, BurstOfOneIsPerPacketSpraying) {
    create();
    ASSERT_EQ(mrc_conn_send(c_, 0, 8 * 1024, 0, 0, 1, nullptr), MRC_OK);
    auto v = bursts(0, 1);
    ASSERT_EQ(v.size(), 8u);
    std::set<u32> evs;
    for (const auto& b : v) evs.insert(b[0].ev);
    EXPECT_EQ(evs.size(), 8u);  // 8 active EVs, one packet each
    std::vector<mrc_tx_desc> d(1);
    EXPECT_EQ(mrc_conn_poll_tx_burst(c_, 0, d.data(), 0), MRC_E_INVAL);
}

TEST_F(BurstTest, BurstEndsAtTheMessage) {
    create();
    for (u64 k = 1; k <= 3; k++)
        ASSERT_EQ(mrc_conn_send(c_, 0, 2 * 1024, 0, 0, k, nullptr), MRC_OK);
    auto v = bursts(0, 16);
    ASSERT_EQ(v.size(), 3u);
    for (size_t i = 0; i < v.size(); i++) {
        EXPECT_EQ(v[i].size(), 2u);
        EXPECT_EQ(v[i][0].cookie, i + 1);
        check_burst(v[i]);
    }
}

TEST_F(BurstTest, BurstStopsAtTheCongestionWindow) {
    cfg_.cc.fixed_wnd_bytes = 3 * 1024;
    create();
    ASSERT_EQ(mrc_conn_send(c_, 0, 8 * 1024, 0, 0, 1, nullptr), MRC_OK);
    auto v = bursts(0, 16);
    ASSERT_EQ(v.size(), 1u);
    EXPECT_EQ(v[0].size(), 3u);
    check_burst(v[0]);
    // The SACK of the first two opens room for two more: one burst.
    ASSERT_GE(rx(10 * kUs, sack(1)), 0);
    v = bursts(10 * kUs, 16);
    ASSERT_EQ(v.size(), 1u);
    EXPECT_EQ(v[0].size(), 2u);
    EXPECT_EQ(v[0][0].pkt.bth.psn, 3u);
}

TEST_F(BurstTest, LargerLastPacketEndsTheBurst) {
    create();
    // WRITE_LAST_IMM carries ImmDt: with a full payload it is 4 bytes
    // longer than the segments before it, so it goes on its own.
    ASSERT_EQ(mrc_conn_send(c_, 0, 3 * 1024, 0xabcd, MRC_SEND_IMM, 1, nullptr), MRC_OK);
    auto v = bursts(0, 16);
    ASSERT_EQ(v.size(), 2u);
    EXPECT_EQ(v[0].size(), 2u);
    EXPECT_EQ(v[1].size(), 1u);
    EXPECT_EQ(v[1][0].pkt.bth.opcode, MRC_OP_WRITE_LAST_IMM);
    check_burst(v[0]);
}

TEST_F(BurstTest, RetransmissionsAreNotBursts) {
    create();
    ASSERT_EQ(mrc_conn_send(c_, 0, 8 * 1024, 0, 0, 1, nullptr), MRC_OK);
    auto v = bursts(0, 8);
    ASSERT_EQ(v.size(), 1u);
    ASSERT_EQ(v[0].size(), 8u);
    const u32 first_ev = v[0][0].ev;
    // PSNs 1 and 2 NACKed: each comes back alone, on another EV.
    ASSERT_GE(rx(10 * kUs, nack(1, MRC_NACK_TRIMMED, v[0][1].ev)), 0);
    ASSERT_GE(rx(10 * kUs, nack(2, MRC_NACK_TRIMMED, v[0][2].ev)), 0);
    ASSERT_EQ(mrc_conn_send(c_, 10 * kUs, 4 * 1024, 0, 0, 2, nullptr), MRC_OK);
    v = bursts(10 * kUs, 8);
    ASSERT_GE(v.size(), 3u);
    EXPECT_EQ(v[0].size(), 1u);
    EXPECT_TRUE(v[0][0].rtx);
    EXPECT_NE(v[0][0].ev, first_ev);  // a fresh EV
    EXPECT_EQ(v[1].size(), 1u);
    EXPECT_TRUE(v[1][0].rtx);
    EXPECT_EQ(v[2].size(), 4u);
    EXPECT_EQ(v[2][0].cookie, 2u);
    check_burst(v[2]);
}

// A flowcell lasts at most an interval at one plane's share of the
// connection's rate, window over smoothed RTT over the 2 planes of the
// fixture (mrc_conn_burst_autosize(), tcp_tso_autosize()'s rule).
class BurstAutosizeTest : public BurstTest {
  protected:
    // A 256 KiB window and one RTT sample of @rtt (PSN 0's SACK).
    void with_rtt(u64 rtt) {
        cfg_.cc.fixed_wnd_bytes = 256 * 1024;
        create();
        ASSERT_EQ(mrc_conn_send(c_, 0, 4 * 1024, 0, 0, 1, nullptr), MRC_OK);
        bursts(0, 4);
        mrc_pkt s = sack(0, 0, 1);
        s.sack.ack_psn_off = 0;  // trigger = cack = PSN 0
        ASSERT_GE(rx(rtt, s), 0);
        ASSERT_EQ(stats().srtt_ns, rtt);
    }
    static constexpr u64 kMs = 1000 * kUs;
};

TEST_F(BurstAutosizeTest, FlowcellIsAMillisecondOfAPlanesShare) {
    // 256 KiB per 10 ms: 26,214 bytes per ms, 13,107 per plane, 12
    // packets of 1,088 bytes.
    with_rtt(10 * kMs);
    EXPECT_EQ(mrc_conn_burst_autosize(c_, 32, 1088, kMs), 12u);
    // Twice the interval, twice the packets, up to the host's longest.
    EXPECT_EQ(mrc_conn_burst_autosize(c_, 32, 1088, 2 * kMs), 24u);
    EXPECT_EQ(mrc_conn_burst_autosize(c_, 32, 1088, 4 * kMs), 32u);
}

TEST_F(BurstAutosizeTest, FastConnectionKeepsTheLongestFlowcell) {
    with_rtt(100 * kUs);  // 2.6 GB/s
    EXPECT_EQ(mrc_conn_burst_autosize(c_, 32, 1088, kMs), 32u);
}

TEST_F(BurstAutosizeTest, SlowConnectionKeepsTheFloor) {
    with_rtt(1000 * kMs);  // 262 bytes per ms
    EXPECT_EQ(mrc_conn_burst_autosize(c_, 32, 1088, kMs), u32{MRC_BURST_AUTOSIZE_MIN});
    // A host that takes fewer than the floor gets what it takes.
    EXPECT_EQ(mrc_conn_burst_autosize(c_, 4, 1088, kMs), 4u);
    EXPECT_EQ(mrc_conn_burst_autosize(c_, 1, 1088, kMs), 1u);
}

TEST_F(BurstAutosizeTest, JumboFramesFloorIsTwoPackets) {
    // 262 bytes per ms: the floor. Packets of 9,000 bytes: the 8 of the
    // floor would be more than a host's flowcell of 6 holds, so none
    // would ever be cut; 12,000 bytes' worth is 1, raised to 2.
    with_rtt(1000 * kMs);
    EXPECT_EQ(mrc_conn_burst_autosize(c_, 6, 9000, kMs), u32{MRC_BURST_AUTOSIZE_MIN_PKTS});
    // 4,000 bytes: 3 packets hold 12,000.
    EXPECT_EQ(mrc_conn_burst_autosize(c_, 14, 4000, kMs), 3u);
    // A host that takes no more than the floor gets what it takes.
    EXPECT_EQ(mrc_conn_burst_autosize(c_, 2, 9000, kMs), 2u);
    EXPECT_EQ(mrc_conn_burst_autosize(c_, 1, 9000, kMs), 1u);
    // At the rate of the first test (13,107 bytes per ms and plane): 1
    // packet's worth, the floor.
    with_rtt(10 * kMs);
    EXPECT_EQ(mrc_conn_burst_autosize(c_, 6, 9000, kMs), 2u);
    // Four times the interval: 5 packets.
    EXPECT_EQ(mrc_conn_burst_autosize(c_, 6, 9000, 4 * kMs), 5u);
}

TEST_F(BurstAutosizeTest, LongIntervalIsASecondNotAnOverflow) {
    // 256 KiB x 2^50 ns overflows 64 bits (to 0: the floor); the engine
    // takes a second at most, whoever calls it.
    with_rtt(10 * kMs);
    EXPECT_EQ(mrc_conn_burst_autosize(c_, 32, 1088, u64{1} << 50), 32u);
    EXPECT_EQ(mrc_conn_burst_autosize(c_, 32, 1088, ~u64{0}), 32u);
}

TEST_F(BurstAutosizeTest, OffOrBeforeAnRttSampleTheHostsLongest) {
    with_rtt(10 * kMs);
    EXPECT_EQ(mrc_conn_burst_autosize(c_, 32, 1088, 0), 32u);
    create();  // no sample yet
    EXPECT_EQ(mrc_conn_burst_autosize(c_, 32, 1088, kMs), 32u);
}

// Loss detection before the timeout (kmod/core/mrc_req_loss.c).
class LossTest : public ReqTest {
  protected:
    // One 16-packet message, packet i sent alone at i microseconds, so
    // that every packet has its own send time.
    std::vector<mrc_tx_desc> send_spaced(u64 t0 = 0, u32 pkts = 16) {
        std::vector<mrc_tx_desc> v;

        EXPECT_EQ(mrc_conn_send(c_, t0, pkts * 1024, 0, 0, 1, nullptr), MRC_OK);
        for (u32 i = 0; i < pkts; i++) {
            auto d = poll(t0 + i * kUs, 1);
            EXPECT_EQ(d.size(), 1u);
            if (!d.empty()) v.push_back(d[0]);
        }
        return v;
    }
    // A SACK of every packet of @d in @got (cack stays before PSN 0),
    // whose trigger is packet @trig of @d (an RTT sample when that packet
    // was sent once).
    mrc_pkt sack_of(const std::vector<mrc_tx_desc>& d, const std::vector<u32>& got, u32 trig) {
        u64 bits = 0;

        for (u32 i : got) bits |= 1ull << d[i].pkt.bth.psn;
        mrc_pkt s = sack(0xffffff, bits);
        s.sack.ack_psn_off = static_cast<s16>(d[trig].pkt.bth.psn + 1);
        return s;
    }
    // Indexes 0..n-1 of the packets of @d that arrive: all but @lost.
    static std::vector<u32> all_but(const std::vector<mrc_tx_desc>& d,
                                    std::initializer_list<size_t> lost) {
        std::vector<u32> got;

        for (u32 k = 0; k < d.size(); k++)
            if (std::find(lost.begin(), lost.end(), k) == lost.end()) got.push_back(k);
        return got;
    }
    // Index of a packet after @i sent on the same EV as @i (-1: none).
    static int later_on_same_ev(const std::vector<mrc_tx_desc>& d, size_t i) {
        for (size_t j = i + 1; j < d.size(); j++)
            if (d[j].ev == d[i].ev) return static_cast<int>(j);
        return -1;
    }
};

TEST_F(LossTest, LaterDeliveryOnTheSamePathFindsTheLossBeforeItsTimeout) {
    create();
    auto d = send_spaced();
    const int j = later_on_same_ev(d, 0);
    ASSERT_GT(j, 0) << "8 active EVs carry 16 packets: each EV twice";
    // Everything but PSN 0 arrives; the SACK of the last packet comes back
    // after one RTT of 10 us.
    std::vector<u32> got = all_but(d, {0});
    events();
    rx(25 * kUs, sack_of(d, got, 15));
    auto st = stats();
    EXPECT_EQ(st.lost_inferred, 1u);
    EXPECT_EQ(st.timeouts, 0u);
    // One loss is random: its EV stays in use (a second within 4 RTTs
    // would condemn it, EvTest.SecondLossWithinWindowCondemns).
    bool by_loss = false;
    for (const auto& e : events())
        by_loss |= e.type == MRC_EVT_EV_STATE && e.u.ev.ev == d[0].ev &&
                   e.u.ev.new_state == MRC_EV_ASSUMED_BAD && e.u.ev.cause == MRC_EVC_LOSS;
    EXPECT_FALSE(by_loss) << "one loss does not condemn its EV";
    EXPECT_EQ(ev_state(d[0].ev), MRC_EV_GOOD);
    auto r = poll(25 * kUs);
    ASSERT_EQ(r.size(), 1u);
    EXPECT_TRUE(r[0].rtx);
    EXPECT_EQ(r[0].pkt.bth.psn, d[0].pkt.bth.psn);
    EXPECT_NE(r[0].ev, d[0].ev);
    EXPECT_EQ(stats().tx_rtx_inferred, 1u);
    EXPECT_LT(25 * kUs, rto() / 4) << "found within a fraction of the RTO";
}

TEST_F(LossTest, OffMeansTimeoutsOnly) {
    cfg_.reo_wnd_pm = 0;
    cfg_.tlp = 0;
    create();
    auto d = send_spaced();
    std::vector<u32> got = all_but(d, {0});
    rx(25 * kUs, sack_of(d, got, 15));
    EXPECT_EQ(stats().lost_inferred, 0u);
    EXPECT_TRUE(poll(25 * kUs).empty());
    EXPECT_EQ(mrc_conn_next_deadline(c_), rto());
    mrc_conn_on_timer(c_, rto());
    EXPECT_EQ(stats().timeouts, 1u);
}

TEST_F(LossTest, ReorderingAcrossPathsWaitsForTheRttSpread) {
    create();
    auto d = send_spaced();
    // Packet i and the next one on its EV, j, are not delivered (j not the
    // newest packet, so that later deliveries can reveal it).
    size_t i = 0;
    int j = -1;
    for (; i < d.size(); i++) {
        j = later_on_same_ev(d, i);
        if (j > 0 && j < 15) break;
    }
    ASSERT_LT(i, d.size());
    std::vector<u32> got = all_but(d, {i, static_cast<size_t>(j)});
    // The newest packet's SACK, one RTT sample of 10 us. Packet i's EV has
    // nothing delivered after it: only the any-path rule applies, which
    // waits srtt + 4 rttvar + the reordering window.
    rx(25 * kUs, sack_of(d, got, 15));
    EXPECT_EQ(stats().lost_inferred, 0u) << "a path slower by one RTT is not lossy";
    const u64 due = mrc_conn_next_deadline(c_);
    EXPECT_GT(due, 25 * kUs);
    EXPECT_LT(due, rto() / 2);
    // Packet i arrives late, just before its verdict: nothing is lost.
    got.push_back(static_cast<u32>(i));
    rx(due - 1, sack_of(d, got, 15));
    mrc_conn_on_timer(c_, due);
    EXPECT_EQ(stats().lost_inferred, 0u);
    // Packet j never arrives: lost once its own window has passed, by the
    // any-path rule too (nothing sent after it on its EV was delivered).
    const u64 due_j = mrc_conn_next_deadline(c_);
    EXPECT_EQ(due_j, due + (j - i) * kUs) << "sent j - i us later";
    mrc_conn_on_timer(c_, due_j);
    EXPECT_EQ(stats().lost_inferred, 1u);
    EXPECT_EQ(stats().timeouts, 0u);
    auto r = poll(due_j);
    ASSERT_EQ(r.size(), 1u);
    EXPECT_EQ(r[0].pkt.bth.psn, d[j].pkt.bth.psn);
}

TEST_F(LossTest, SpuriousInferenceWidensTheWindow) {
    create();
    auto d = send_spaced();
    std::vector<u32> got = all_but(d, {0});
    rx(25 * kUs, sack_of(d, got, 15));
    ASSERT_EQ(stats().lost_inferred, 1u);
    EXPECT_EQ(c_->req.reo_mult, 1u);
    // PSN 0 arrives after all, before its retransmission left: the path
    // was slow. Its EV is GOOD again and the window doubles.
    events();
    got.push_back(0);
    rx(26 * kUs, sack_of(d, got, 15));
    EXPECT_EQ(stats().spurious_losses, 1u);
    EXPECT_EQ(stats().spurious_timeouts, 0u);
    EXPECT_EQ(ev_state(d[0].ev), MRC_EV_GOOD);
    EXPECT_EQ(c_->req.reo_mult, 2u);
    EXPECT_TRUE(poll(26 * kUs).empty()) << "nothing left to retransmit";
}

// Where queues hold many base RTTs, the reordering window is a fraction of
// the queueing delay, not of the base: packets of one path may arrive out
// of order by more than a quarter of a 10 us base when every packet waits
// 190 us in queues.
TEST_F(LossTest, QueueingDelaySizesTheReorderingWindow) {
    create();
    // One sample of the 10 us base, then eight of 200 us (queues).
    u64 t = 0;
    for (u32 k = 0; k < 9; k++, t += 1000 * kUs) {
        auto one = send_spaced(t, 1);
        rx(t + (k ? 200 : 10) * kUs, sack_of(one, {0}, 0));
    }
    auto st = stats();
    ASSERT_EQ(st.min_rtt_ns, 10 * kUs);
    ASSERT_GT(st.srtt_ns, 100 * kUs);
    // A burst; its first packet comes late, after a later one of its EV.
    auto d = send_spaced(t);
    const int j = later_on_same_ev(d, 0);
    ASSERT_GT(j, 0);
    // (The wake-up the first round left finds nothing due.)
    if (mrc_conn_next_deadline(c_) < t) mrc_conn_on_timer(c_, t + 15 * kUs);
    ASSERT_EQ(stats().timeouts, 0u);
    std::vector<u32> got = all_but(d, {0});
    // The newest packet's SACK after 200 us: a quarter of the base (2.5
    // us) past its send time + 200 us has gone by, a quarter of the
    // queueing delay has not.
    rx(t + 15 * kUs + 200 * kUs, sack_of(d, got, 15));
    EXPECT_EQ(stats().lost_inferred, 0u) << "reordered by less than the queues hold";
    const u64 due = mrc_conn_next_deadline(c_);
    EXPECT_GE(due, t + 200 * kUs + (st.srtt_ns - 10 * kUs) / 4);
    EXPECT_LT(due, t + st.srtt_ns + 4 * st.rttvar_ns) << "before its timeout";
    // It arrives just before that deadline: nothing is lost.
    got.push_back(0);
    rx(due - 1, sack_of(d, got, 15));
    mrc_conn_on_timer(c_, due);
    EXPECT_EQ(stats().lost_inferred, 0u);
    EXPECT_EQ(stats().spurious_losses, 0u);
    EXPECT_EQ(stats().timeouts, 0u);
}

TEST_F(LossTest, TailLossProbeBeforeTheTimeout) {
    create();
    // One RTT sample of 10 us first.
    auto d = send_spaced(0, 1);
    rx(10 * kUs, sack_of(d, {0}, 0));
    ASSERT_EQ(stats().srtt_ns, 10 * kUs);
    // Four packets, all lost: nothing can reveal the loss but a probe.
    const u64 t = 100 * kUs;
    ASSERT_EQ(mrc_conn_send(c_, t, 4 * 1024, 0, 0, 2, nullptr), MRC_OK);
    auto tail = poll(t);
    ASSERT_EQ(tail.size(), 4u);
    const u64 pto = t + 2 * 10 * kUs + cfg_.sack_delay_ns;
    // (An early wake-up left by the first packet's deadline finds nothing.)
    if (mrc_conn_next_deadline(c_) < pto) mrc_conn_on_timer(c_, mrc_conn_next_deadline(c_));
    EXPECT_TRUE(poll(pto - 1).empty());
    EXPECT_EQ(mrc_conn_next_deadline(c_), pto);
    EXPECT_LT(pto, t + rto());
    const u32 cwnd = stats().cwnd_bytes;
    mrc_conn_on_timer(c_, pto);
    auto r = poll(pto);
    ASSERT_EQ(r.size(), 1u);
    EXPECT_TRUE(r[0].rtx);
    EXPECT_EQ(r[0].pkt.bth.psn, tail[3].pkt.bth.psn) << "the newest packet";
    EXPECT_NE(r[0].ev, tail[3].ev);
    auto st = stats();
    EXPECT_EQ(st.tx_rtx_tlp, 1u);
    EXPECT_EQ(st.timeouts, 0u);
    EXPECT_EQ(st.cwnd_bytes, cwnd);
    EXPECT_EQ(ev_state(tail[3].ev), MRC_EV_GOOD) << "a probe is no verdict on the path";
    // One probe until something is acknowledged: the next deadline is the RTO.
    EXPECT_EQ(mrc_conn_next_deadline(c_), t + rto());
    // The probe's SACK, a delivery sent after the other three (out for 50
    // us, more than srtt + 4 rttvar + the window), has them found lost at
    // once, without their timeouts.
    mrc_pkt s = sack(d[0].pkt.bth.psn, 1ull << 3);
    s.sack.ack_psn_off = 4;  // trigger: the probe
    rx(pto + 10 * kUs, s);
    EXPECT_EQ(stats().lost_inferred, 3u);
    EXPECT_EQ(poll(pto + 10 * kUs).size(), 3u);
    EXPECT_EQ(stats().timeouts, 0u);
}

// ---- failover rules (cfg.failover, enum mrc_failover): each test also
// runs with its rule off and expects the behaviour before it. The
// connection knows 2 paths per plane (a source route), as the kernel's
// connections over an SRv6 route do.
class FailoverTest : public LossTest {
  protected:
    void SetUp() override {
        LossTest::SetUp();
        cfg_.plane_paths[0] = cfg_.plane_paths[1] = 2;
        cfg_.cc_algo = MRC_CC_NSCC;
    }
    static u32 path_of(const mrc_tx_desc& x) { return x.plane * 2 + mrc_ev_entropy(x.ev) % 2; }
    // 32 spaced packets; every one arrives but those on the path (plane,
    // spine) of the first packet whose path carries two EVs or more and
    // none of the newest four packets (*lost: their indexes); the newest
    // packet's SACK at 40 us.
    std::vector<mrc_tx_desc> lose_path(std::vector<size_t>* lost) {
        auto d = send_spaced(0, 32);
        u32 dead = ~0u;
        for (const auto& a : d) {
            std::set<u32> evs;
            bool late = false;
            for (size_t k = 0; k < d.size(); k++) {
                if (path_of(d[k]) != path_of(a)) continue;
                evs.insert(d[k].ev);
                late |= k >= d.size() - 4;
            }
            if (evs.size() >= 2 && !late) {
                dead = path_of(a);
                break;
            }
        }
        EXPECT_NE(dead, ~0u) << "no path to kill";
        std::vector<u32> got;
        for (u32 k = 0; k < d.size(); k++) {
            if (path_of(d[k]) == dead)
                lost->push_back(k);
            else
                got.push_back(k);
        }
        rx(40 * kUs, sack_of(d, got, 31));
        return d;
    }
    // Run the timer until the path is retired (or 64 passes).
    u64 until_retired() {
        u64 t = 0;
        for (int k = 0; k < 64 && !stats().paths_retired; k++) {
            t = mrc_conn_next_deadline(c_);
            if (t == MRC_NO_DEADLINE) break;
            mrc_conn_on_timer(c_, t);
        }
        return t;
    }
};

// A spine dies: two EVs of its path fall silent while the other paths
// deliver, and the path is retired. The window keeps what it had (the
// cuts of the path's first losses come back) and what was still in
// flight on the path goes again at once.
TEST_F(FailoverTest, DeadPathKeepsTheWindowAndResendsItsPackets) {
    for (u8 fo : {static_cast<u8>(MRC_FO_ALL), static_cast<u8>(MRC_FO_ALL & ~MRC_FO_BLAME_PATH),
                  static_cast<u8>(MRC_FO_ALL & ~MRC_FO_RESEND)}) {
        cfg_.failover = fo;
        create();
        std::vector<size_t> lost;
        auto d = lose_path(&lost);
        const u64 t = until_retired();
        ASSERT_EQ(stats().paths_retired, 1u);
        EXPECT_EQ(stats().timeouts, 0u) << "found by loss inference";
        // The path's first losses were cut from the window as they were
        // found; the rule gives them back once the path is retired, and
        // spares the losses found after: the full window again. (The
        // SACK's own increase, which follows its losses, hides the cuts
        // in the window itself: the counters tell.)
        EXPECT_GT(c_->cc.cnt.loss, 0u);
        if (fo & MRC_FO_BLAME_PATH) {
            EXPECT_GT(c_->cc.cnt.refund, 0u);
            EXPECT_GT(stats().cwnd_cuts_spared, 0u);
            EXPECT_LT(c_->cc.cnt.loss, stats().lost_inferred);
            EXPECT_EQ(c_->cc.cwnd, c_->cc.p.max_wnd_bytes) << "fo " << int(fo);
        } else {
            EXPECT_EQ(c_->cc.cnt.refund, 0u);
            EXPECT_EQ(stats().cwnd_cuts_spared, 0u);
            EXPECT_EQ(c_->cc.cnt.loss, stats().lost_inferred) << "every loss cut";
        }
        auto r = poll(t);
        if (fo & MRC_FO_RESEND) {
            EXPECT_EQ(r.size(), lost.size()) << "every packet of the dead path, at once";
            EXPECT_GT(stats().tx_rtx_path, 0u);
        } else {
            EXPECT_LT(r.size(), lost.size()) << "some wait for their own verdicts";
            EXPECT_EQ(stats().tx_rtx_path, 0u);
        }
        for (const auto& x : r) EXPECT_NE(path_of(x), path_of(d[lost[0]]));
    }
}

// Losses on one EV while its path keeps delivering on the others: a queue
// that dropped a flowcell's tail, congestion. The window pays, rule or not.
TEST_F(FailoverTest, OneEvsLossesStillCutTheWindow) {
    create();
    auto d = send_spaced(0, 32);
    // An EV with two packets or more, none among the newest four.
    u32 x = 0;
    for (const auto& a : d) {
        int n = 0;
        bool late = false;
        for (size_t k = 0; k < d.size(); k++)
            if (d[k].ev == a.ev) {
                n++;
                late |= k >= d.size() - 4;
            }
        if (n >= 2 && !late) {
            x = a.ev;
            break;
        }
    }
    ASSERT_NE(x, 0u);
    std::vector<u32> got;
    size_t nlost = 0;
    for (u32 k = 0; k < d.size(); k++) {
        if (d[k].ev == x)
            nlost++;
        else
            got.push_back(k);
    }
    rx(40 * kUs, sack_of(d, got, 31));
    for (int k = 0; k < 64 && stats().lost_inferred < nlost; k++)
        mrc_conn_on_timer(c_, mrc_conn_next_deadline(c_));
    ASSERT_EQ(stats().lost_inferred, nlost);
    EXPECT_EQ(ev_state(x), MRC_EV_ASSUMED_BAD);
    EXPECT_EQ(stats().paths_retired, 0u);
    EXPECT_EQ(c_->cc.cnt.loss, nlost) << "every loss cut";
    EXPECT_EQ(c_->cc.cnt.refund, 0u);
    EXPECT_EQ(stats().cwnd_cuts_spared, 0u);
}

// Timeouts alone (loss inference off): the dead path's first timeout cuts
// the window before anything can tell; the second EV's retires the path
// and the cut is undone. With nothing delivered anywhere the pass cuts and
// stays cut, rule or not.
TEST_F(FailoverTest, DeadPathTimeoutCutIsUndoneSilenceOfAllIsNot) {
    for (u8 fo : {static_cast<u8>(MRC_FO_ALL), static_cast<u8>(MRC_FO_ALL & ~MRC_FO_BLAME_PATH)}) {
        cfg_.failover = fo;
        cfg_.reo_wnd_pm = 0;  // timeouts only
        cfg_.tlp = 0;
        create();
        std::vector<size_t> lost;
        lose_path(&lost);
        const u32 cwnd0 = c_->cc.cwnd;
        until_retired();
        ASSERT_EQ(stats().paths_retired, 1u);
        EXPECT_GT(stats().timeouts, 0u);
        EXPECT_GT(c_->cc.cnt.timeout, 0u) << "the first timeout cut";
        if (fo & MRC_FO_BLAME_PATH)
            EXPECT_EQ(c_->cc.cwnd, cwnd0) << "undone";
        else
            EXPECT_LT(c_->cc.cwnd, cwnd0);
        // Everything silent: a new connection whose packets all time out.
        create();
        send_spaced();
        const u32 cwnd1 = stats().cwnd_bytes;
        for (int k = 0; k < 8 && !stats().timeouts; k++)
            mrc_conn_on_timer(c_, mrc_conn_next_deadline(c_));
        EXPECT_GT(stats().timeouts, 0u);
        EXPECT_LT(stats().cwnd_bytes, cwnd1);
        EXPECT_EQ(stats().paths_retired, 0u);
    }
}

}  // namespace
