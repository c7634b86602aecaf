// SPDX-License-Identifier: GPL-2.0 OR MIT
//
// resp_test.cc - unit tests of the responder (kmod/core/mrc_resp.c) through
// the public API: window edges, duplicates, wrap, SACK generation and
// contents, NACKs, probes, message placement and in-order delivery.
#include <gtest/gtest.h>

#include <vector>

extern "C" {
#include "mrc_core.h"
}

namespace {

constexpr u64 kUs = 1000;
constexpr u32 kEv = 0x00123456;   // plane 0
constexpr u32 kEv2 = 0x01567890;  // plane 1

class RespTest : public ::testing::Test {
  protected:
    void SetUp() override {
        mrc_conn_cfg_init(&cfg_, 2);
        cfg_.local_conn_id = 7;
        cfg_.peer_conn_id = 9;
        cfg_.mtu = 1024;
        cfg_.mpr = 256;
        cfg_.rx_max_msgs = 8;
        cfg_.sack_every_pkts = 4;
        cfg_.sack_delay_ns = 20 * kUs;
    }
    void TearDown() override { mrc_conn_destroy(c_); }
    void create() {
        mrc_conn_destroy(c_);
        c_ = nullptr;
        ASSERT_EQ(mrc_conn_create(&cfg_, 0, &c_), MRC_OK);
    }
    static mrc_pkt data(u32 psn, u16 msn, u32 off, u32 len, u32 mlen, bool ack = false,
                        bool rtx = false) {
        mrc_pkt p{};
        bool first = off == 0, last = off + len == mlen;

        if (first && last)
            p.bth.opcode = MRC_OP_WRITE_ONLY;
        else if (first)
            p.bth.opcode = MRC_OP_WRITE_FIRST;
        else if (last)
            p.bth.opcode = MRC_OP_WRITE_LAST;
        else
            p.bth.opcode = MRC_OP_WRITE_MIDDLE;
        p.bth.psn = psn & MRC_PSN_MASK;
        p.bth.ack_req = ack;
        p.bth.rtx = rtx;
        p.bth.ts = true;
        p.bth.dest_qp = 0x100;
        p.tseth.tx_ts = static_cast<u16>(psn * 3 + 1);
        p.meth.msn = msn;
        p.reth.va = off;
        p.reth.dma_len = mlen;
        p.payload_len = len;
        return p;
    }
    // A one-packet message of 100 bytes at @psn with MSN @msn.
    static mrc_pkt only(u32 psn, u16 msn, bool ack = false) {
        return data(psn, msn, 0, 100, 100, ack);
    }
    int rx(u64 now, const mrc_pkt& p, u32 ev = kEv, u32 flags = 0) {
        return mrc_conn_rx(c_, now, &p, ev, flags);
    }
    std::vector<mrc_tx_desc> poll(u64 now) {
        std::vector<mrc_tx_desc> v;
        mrc_tx_desc d;

        while (mrc_conn_poll_tx(c_, now, &d) == MRC_OK) {
            u8 buf[256];
            EXPECT_GT(mrc_pkt_encode_hdr(&d.pkt, buf, sizeof(buf)), 0);
            v.push_back(d);
        }
        return v;
    }
    std::vector<mrc_event> delivered() {
        std::vector<mrc_event> v;
        mrc_event e;

        while (mrc_conn_poll_event(c_, &e) == MRC_OK)
            if (e.type == MRC_EVT_MSG_DELIVERED || e.type == MRC_EVT_CONN_ERROR) v.push_back(e);
        return v;
    }
    mrc_conn_stats stats() {
        mrc_conn_stats st;

        mrc_conn_get_stats(c_, &st);
        return st;
    }

    mrc_conn_cfg cfg_{};
    mrc_conn* c_ = nullptr;
};

TEST_F(RespTest, InOrderMessageDeliveredWithSack) {
    create();
    EXPECT_EQ(rx(1, data(0, 0, 0, 1024, 2500)), MRC_RX_PLACE_NEW);
    EXPECT_EQ(rx(2, data(1, 0, 1024, 1024, 2500)), MRC_RX_PLACE);
    EXPECT_TRUE(delivered().empty());
    EXPECT_TRUE(poll(2).empty());
    EXPECT_EQ(rx(3, data(2, 0, 2048, 452, 2500, true), kEv2), MRC_RX_PLACE);
    auto d = delivered();
    ASSERT_EQ(d.size(), 1u);
    EXPECT_EQ(d[0].u.msg.msn, 0);
    EXPECT_EQ(d[0].u.msg.len, 2500u);
    EXPECT_EQ(d[0].u.msg.has_imm, 0);
    auto t = poll(3);
    ASSERT_EQ(t.size(), 1u);
    EXPECT_EQ(t[0].kind, MRC_TX_SACK);
    EXPECT_EQ(t[0].ev, kEv2);
    EXPECT_EQ(t[0].plane, 1);
    const mrc_sack& s = t[0].pkt.sack;
    EXPECT_EQ(t[0].pkt.bth.opcode, MRC_OP_SACK);
    EXPECT_EQ(t[0].pkt.bth.dest_qp, cfg_.peer_qpn);
    EXPECT_EQ(s.cack_psn, 2u);
    EXPECT_EQ(s.sack_offset, 1);
    EXPECT_EQ(s.bitmap, 0u);
    EXPECT_EQ(s.ev, kEv2);
    EXPECT_EQ(mrc_sack_trigger_psn(&s), 2u);
    EXPECT_EQ(s.cc.echoed_ts, 7);
    EXPECT_EQ(s.src_conn, 7);
    EXPECT_EQ(s.dst_conn, 9);
    EXPECT_EQ(s.mpr, 2);
    EXPECT_EQ(s.ecn, MRC_ECN_NONE);
    EXPECT_FALSE(s.pr);
    EXPECT_EQ(s.cc.bytes_rcvd, 2500u / 256);
    EXPECT_EQ(s.cc.ooo_count, 0);
    EXPECT_EQ(s.cc.rwnd_penalty, 0);
    EXPECT_EQ(s.cc_type, MRC_CC_NSCC);
    auto st = stats();
    EXPECT_EQ(st.rcv_cack, 2u);
    EXPECT_EQ(st.rx_data_bytes, 2500u);
    EXPECT_EQ(st.rx_msgs_delivered, 1u);
    EXPECT_EQ(st.tx_sacks, 1u);
    EXPECT_EQ(mrc_conn_next_deadline(c_), MRC_NO_DEADLINE);
}

TEST_F(RespTest, OutOfOrderBitmapAndDeliveryOrder) {
    create();
    EXPECT_EQ(rx(1, only(0, 0)), MRC_RX_PLACE_NEW);
    EXPECT_EQ(rx(1, only(2, 2)), MRC_RX_PLACE_NEW);
    EXPECT_EQ(rx(1, only(5, 5, true)), MRC_RX_PLACE_NEW);
    auto d = delivered();
    ASSERT_EQ(d.size(), 1u);
    EXPECT_EQ(d[0].u.msg.msn, 0);
    auto t = poll(1);
    ASSERT_EQ(t.size(), 1u);
    const mrc_sack& s = t[0].pkt.sack;
    EXPECT_EQ(s.cack_psn, 0u);
    EXPECT_EQ(s.sack_offset, 1);
    EXPECT_EQ(s.bitmap, (1ull << 1) | (1ull << 4));  // PSNs 2 and 5
    EXPECT_EQ(mrc_sack_trigger_psn(&s), 5u);
    EXPECT_EQ(s.cc.ooo_count, 2);
    EXPECT_EQ(rx(2, only(1, 1, true)), MRC_RX_PLACE_NEW);
    EXPECT_EQ(stats().rcv_cack, 2u);
    d = delivered();
    ASSERT_EQ(d.size(), 2u);
    EXPECT_EQ(d[0].u.msg.msn, 1);
    EXPECT_EQ(d[1].u.msg.msn, 2);
    t = poll(2);
    ASSERT_EQ(t.size(), 1u);
    EXPECT_EQ(t[0].pkt.sack.cack_psn, 2u);
    EXPECT_EQ(t[0].pkt.sack.bitmap, 1ull << 2);  // PSN 5 from 3
}

TEST_F(RespTest, DuplicatesReackedNeverRedelivered) {
    create();
    EXPECT_EQ(rx(1, only(0, 0)), MRC_RX_PLACE_NEW);
    EXPECT_EQ(delivered().size(), 1u);
    EXPECT_EQ(rx(2, only(0, 0)), MRC_RX_CONSUMED);  // behind cack
    EXPECT_TRUE(delivered().empty());
    auto t = poll(2);
    ASSERT_EQ(t.size(), 1u);
    EXPECT_EQ(t[0].pkt.sack.cack_psn, 0u);
    EXPECT_FALSE(t[0].pkt.sack.cc.restore_cwnd);
    // A duplicate in the bitmap (beyond cack), sent as a retransmission.
    EXPECT_EQ(rx(3, only(3, 3)), MRC_RX_PLACE_NEW);
    poll(3);
    mrc_pkt p = only(3, 3);
    p.bth.rtx = true;
    EXPECT_EQ(rx(4, p), MRC_RX_CONSUMED);
    t = poll(4);
    ASSERT_EQ(t.size(), 1u);
    EXPECT_TRUE(t[0].pkt.sack.cc.restore_cwnd);
    EXPECT_EQ(t[0].pkt.sack.bitmap, 1ull << 2);
    auto st = stats();
    EXPECT_EQ(st.rx_dup_pkts, 2u);
    EXPECT_EQ(st.spurious_rtx, 1u);
    EXPECT_EQ(st.rx_msgs_delivered, 1u);
    EXPECT_EQ(st.rx_data_bytes, 200u);
}

TEST_F(RespTest, WindowEdgesAndOutOfWindowNackRateLimit) {
    cfg_.nack_oor_interval_ns = 50 * kUs;
    create();
    const u32 mlen = 300 * 1024;
    // cack = 0xffffff: PSNs 0 .. 254 are in [cack+1, cack+MPR).
    EXPECT_EQ(rx(1, data(254, 0, 254 * 1024, 1024, mlen)), MRC_RX_PLACE_NEW);
    EXPECT_EQ(rx(1, data(255, 0, 255 * 1024, 1024, mlen), kEv2), MRC_RX_CONSUMED);
    auto t = poll(1);
    ASSERT_EQ(t.size(), 1u);
    EXPECT_EQ(t[0].kind, MRC_TX_NACK);
    EXPECT_EQ(t[0].pkt.nack.reason, MRC_NACK_PSN_OOR_WINDOW);
    EXPECT_EQ(t[0].pkt.nack.nack_psn, 255u);
    EXPECT_EQ(t[0].pkt.nack.ev, kEv2);
    EXPECT_EQ(t[0].ev, kEv2);
    EXPECT_EQ(t[0].pkt.nack.tx_ts, static_cast<u16>(255 * 3 + 1));
    EXPECT_EQ(t[0].pkt.nack.src_conn, 7);
    EXPECT_EQ(t[0].pkt.nack.dst_conn, 9);
    // Rate limited.
    EXPECT_EQ(rx(10 * kUs, data(300, 0, 0, 1024, mlen)), MRC_RX_CONSUMED);
    EXPECT_TRUE(poll(10 * kUs).empty());
    EXPECT_EQ(rx(51 * kUs, data(0x7ffffe, 0, 0, 1024, mlen)), MRC_RX_CONSUMED);
    t = poll(51 * kUs);
    ASSERT_EQ(t.size(), 1u);
    EXPECT_EQ(t[0].pkt.nack.nack_psn, 0x7ffffeu);
    auto st = stats();
    EXPECT_EQ(st.rx_oor_pkts, 3u);
    EXPECT_EQ(st.rx_oor_nacks, 2u);
    EXPECT_EQ(st.rcv_cack, 0xffffffu);
}

TEST_F(RespTest, PsnWrap) {
    cfg_.peer_init_psn = 0xfffffe;
    create();
    EXPECT_EQ(stats().rcv_cack, 0xfffffdu);
    EXPECT_EQ(rx(1, data(0, 0, 2048, 100, 2148)), MRC_RX_PLACE_NEW);
    EXPECT_EQ(rx(1, data(0xffffff, 0, 1024, 1024, 2148)), MRC_RX_PLACE);
    EXPECT_EQ(rx(1, data(0xfffffe, 0, 0, 1024, 2148)), MRC_RX_PLACE);
    EXPECT_EQ(stats().rcv_cack, 0u);
    EXPECT_EQ(delivered().size(), 1u);
    EXPECT_EQ(rx(1, only(2, 2, true)), MRC_RX_PLACE_NEW);
    auto t = poll(1);
    ASSERT_EQ(t.size(), 1u);
    EXPECT_EQ(t[0].pkt.sack.cack_psn, 0u);
    EXPECT_EQ(t[0].pkt.sack.bitmap, 1ull << 1);
    EXPECT_EQ(rx(1, only(1, 1)), MRC_RX_PLACE_NEW);
    EXPECT_EQ(stats().rcv_cack, 2u);
    EXPECT_EQ(delivered().size(), 2u);
    // Behind the wrapped cack: duplicate.
    EXPECT_EQ(rx(1, only(0xffffff, 0)), MRC_RX_CONSUMED);
    EXPECT_EQ(stats().rx_dup_pkts, 1u);
}

TEST_F(RespTest, CoalescingByCountBytesAndDelay) {
    create();
    for (u32 i = 0; i < 3; i++) rx(1, only(i, static_cast<u16>(i)));
    EXPECT_TRUE(poll(1).empty());
    EXPECT_EQ(mrc_conn_next_deadline(c_), 1 + 20 * kUs);
    mrc_conn_on_timer(c_, 20 * kUs);
    EXPECT_TRUE(poll(20 * kUs).empty());
    mrc_conn_on_timer(c_, 1 + 20 * kUs);
    auto t = poll(1 + 20 * kUs);
    ASSERT_EQ(t.size(), 1u);
    EXPECT_EQ(t[0].pkt.sack.cack_psn, 2u);
    EXPECT_EQ(mrc_conn_next_deadline(c_), MRC_NO_DEADLINE);
    // Four packets: SACK at the fourth.
    delivered();
    for (u32 i = 3; i < 6; i++) rx(100 * kUs, only(i, static_cast<u16>(i)));
    EXPECT_TRUE(poll(100 * kUs).empty());
    delivered();
    rx(100 * kUs, only(6, 6));
    t = poll(100 * kUs);
    ASSERT_EQ(t.size(), 1u);
    EXPECT_EQ(t[0].pkt.sack.cack_psn, 6u);
    // By bytes.
    cfg_.sack_every_pkts = 100;
    cfg_.sack_every_bytes = 2000;
    create();
    rx(1, data(0, 0, 0, 1024, 4096));
    EXPECT_TRUE(poll(1).empty());
    rx(1, data(1, 0, 1024, 1024, 4096));
    EXPECT_EQ(poll(1).size(), 1u);
    // Delay 0: every packet is acknowledged at once.
    cfg_.sack_every_bytes = 0;
    cfg_.sack_delay_ns = 0;
    create();
    rx(1, only(0, 0));
    EXPECT_EQ(poll(1).size(), 1u);
}

TEST_F(RespTest, FlushAcksEmitsHeldBackSacksAtOnce) {
    create();
    // Nothing owed: a flush emits nothing.
    mrc_conn_flush_acks(c_);
    EXPECT_TRUE(poll(0).empty());
    // One packet, held back by coalescing (every 4 packets or 20 us).
    EXPECT_EQ(rx(1, only(0, 0)), MRC_RX_PLACE_NEW);
    EXPECT_TRUE(poll(1).empty());
    EXPECT_NE(mrc_conn_next_deadline(c_), MRC_NO_DEADLINE);
    mrc_conn_flush_acks(c_);
    auto t = poll(1);
    ASSERT_EQ(t.size(), 1u);
    EXPECT_EQ(t[0].kind, MRC_TX_SACK);
    EXPECT_EQ(t[0].pkt.sack.cack_psn, 0u);
    EXPECT_EQ(mrc_conn_next_deadline(c_), MRC_NO_DEADLINE);
    // Once sent, a second flush has nothing left.
    mrc_conn_flush_acks(c_);
    EXPECT_TRUE(poll(1).empty());
}

TEST_F(RespTest, RetransmissionTriggersSack) {
    create();
    mrc_pkt p = only(1, 1);
    p.bth.rtx = true;
    EXPECT_EQ(rx(1, p), MRC_RX_PLACE_NEW);
    auto t = poll(1);
    ASSERT_EQ(t.size(), 1u);
    EXPECT_EQ(t[0].pkt.sack.bitmap, 1ull << 1);
    EXPECT_EQ(t[0].pkt.sack.cack_psn, 0xffffffu);
    EXPECT_FALSE(t[0].pkt.sack.cc.restore_cwnd);  // not a duplicate
}

TEST_F(RespTest, EcnMarkedPacketSacksAtOnceAndKeepsItsEv) {
    create();
    rx(1, only(0, 0), kEv, 0);
    rx(1, only(1, 1), kEv2, MRC_RXF_ECN_CE);
    auto t = poll(1);
    ASSERT_EQ(t.size(), 1u);
    EXPECT_EQ(t[0].pkt.sack.ecn, MRC_ECN_SKIP_ONCE);
    EXPECT_EQ(t[0].pkt.sack.ev, kEv2);
    EXPECT_EQ(mrc_sack_trigger_psn(&t[0].pkt.sack), 1u);
    // Sticky within one pending chunk: a later clean packet does not move
    // the echo (nor the trigger) away from the marked EV.
    cfg_.sack_every_pkts = 100;
    create();
    rx(1, only(0, 0), kEv2, MRC_RXF_ECN_CE);
    rx(1, only(1, 1), kEv, 0);
    t = poll(1);
    ASSERT_EQ(t.size(), 1u);
    EXPECT_EQ(t[0].pkt.sack.ev, kEv2);
    EXPECT_EQ(t[0].pkt.sack.ecn, MRC_ECN_SKIP_ONCE);
    EXPECT_EQ(mrc_sack_trigger_psn(&t[0].pkt.sack), 0u);
    EXPECT_EQ(t[0].pkt.sack.cack_psn, 1u);
    EXPECT_EQ(stats().rx_ecn_ce, 1u);
}

TEST_F(RespTest, TrimmedPacketsAreNacked) {
    create();
    mrc_pkt p = data(0, 0, 0, 1024, 2048);
    p.trimmed = true;
    p.payload_len = 0;
    EXPECT_EQ(rx(1, p, kEv2), MRC_RX_CONSUMED);
    auto t = poll(1);
    ASSERT_EQ(t.size(), 1u);
    EXPECT_EQ(t[0].kind, MRC_TX_NACK);
    EXPECT_EQ(t[0].pkt.nack.reason, MRC_NACK_TRIMMED);
    EXPECT_EQ(t[0].pkt.nack.nack_psn, 0u);
    EXPECT_EQ(t[0].pkt.nack.ev, kEv2);
    EXPECT_EQ(t[0].pkt.nack.tx_ts, 1);
    p.trimmed = false;
    EXPECT_EQ(rx(2, p, kEv, MRC_RXF_TRIMMED | MRC_RXF_LASTHOP), MRC_RX_CONSUMED);
    t = poll(2);
    ASSERT_EQ(t.size(), 1u);
    EXPECT_EQ(t[0].pkt.nack.reason, MRC_NACK_TRIMMED_LASTHOP);
    EXPECT_EQ(stats().rcv_cack, 0xffffffu);
    EXPECT_EQ(stats().rx_trimmed, 2u);
    // The full retransmission is accepted.
    mrc_pkt full = data(0, 0, 0, 1024, 2048, false, true);
    EXPECT_EQ(rx(3, full), MRC_RX_PLACE_NEW);
    EXPECT_EQ(stats().rcv_cack, 0u);
    EXPECT_EQ(stats().tx_nacks, 2u);
}

TEST_F(RespTest, ProbesAreAnswered) {
    create();
    rx(1, only(0, 0));
    mrc_pkt p{};
    p.bth.opcode = MRC_OP_PROBE;
    p.probe.probe_id = 42;
    p.probe.src_conn = 9;
    p.probe.dst_conn = 7;
    p.probe.tx_ts = 777;
    // no EV field: the answer echoes the EV the probe arrived on
    EXPECT_EQ(rx(2, p, kEv2, MRC_RXF_ECN_CE), MRC_RX_CONSUMED);
    auto t = poll(2);
    ASSERT_EQ(t.size(), 1u);  // the pending data SACK waits for its trigger
    EXPECT_EQ(t[0].kind, MRC_TX_SACK);
    EXPECT_TRUE(t[0].pkt.sack.pr);
    EXPECT_EQ(t[0].pkt.sack.ack_psn_off, 42);
    EXPECT_EQ(t[0].pkt.sack.ev, kEv2);
    EXPECT_EQ(t[0].ev, kEv2);
    EXPECT_EQ(t[0].pkt.sack.cc.echoed_ts, 777);
    EXPECT_EQ(t[0].pkt.sack.cack_psn, 0u);
    EXPECT_EQ(t[0].pkt.sack.ecn, MRC_ECN_SKIP_ONCE);
    p.probe.dst_conn = 8;
    EXPECT_EQ(rx(3, p), MRC_E_STALE);
    EXPECT_TRUE(poll(3).empty());
    EXPECT_EQ(stats().rx_probes, 1u);
}

TEST_F(RespTest, MessageSlotsExhaustedNackNoResource) {
    cfg_.rx_max_msgs = 2;
    create();
    EXPECT_EQ(rx(1, data(0, 0, 0, 1024, 2048)), MRC_RX_PLACE_NEW);
    EXPECT_EQ(rx(1, only(2, 1)), MRC_RX_PLACE_NEW);
    EXPECT_EQ(rx(1, only(3, 2), kEv2), MRC_RX_CONSUMED);
    auto t = poll(1);
    ASSERT_EQ(t.size(), 1u);
    EXPECT_EQ(t[0].pkt.nack.reason, MRC_NACK_NO_RESOURCE);
    EXPECT_EQ(t[0].pkt.nack.nack_psn, 3u);
    EXPECT_EQ(stats().rx_no_resource, 1u);
    EXPECT_TRUE(delivered().empty());
    EXPECT_EQ(rx(2, data(1, 0, 1024, 1024, 2048, true)), MRC_RX_PLACE);
    auto d = delivered();
    ASSERT_EQ(d.size(), 2u);
    EXPECT_EQ(d[0].u.msg.msn, 0);
    EXPECT_EQ(d[1].u.msg.msn, 1);
    EXPECT_EQ(rx(3, only(3, 2)), MRC_RX_PLACE_NEW);
    EXPECT_EQ(delivered().size(), 1u);
    EXPECT_EQ(stats().rcv_cack, 3u);
}

TEST_F(RespTest, WindowPenaltyFollowsBusySlots) {
    create();
    // Five incomplete messages out of eight slots.
    for (u32 i = 0; i < 5; i++) rx(1, data(2 * i, static_cast<u16>(i), 0, 1024, 2048));
    rx(1, data(11, 5, 0, 100, 100, true));
    auto t = poll(1);
    ASSERT_EQ(t.size(), 1u);
    EXPECT_EQ(t[0].pkt.sack.cc.rwnd_penalty, (6 - 4) * 127 / 4);
    EXPECT_EQ(mrc_resp_penalty(c_), (6 - 4) * 127 / 4);
}

TEST_F(RespTest, ImmediateAndZeroLengthMessages) {
    create();
    mrc_pkt p = data(0, 0, 0, 0, 0);
    EXPECT_EQ(p.bth.opcode, MRC_OP_WRITE_ONLY);
    EXPECT_EQ(rx(1, p), MRC_RX_PLACE_NEW);
    p = data(1, 1, 0, 64, 64);
    p.bth.opcode = MRC_OP_WRITE_ONLY_IMM;
    p.imm = 0xabcdef;
    EXPECT_EQ(rx(1, p), MRC_RX_PLACE_NEW);
    p = data(2, 2, 0, 1024, 1500);
    EXPECT_EQ(rx(1, p), MRC_RX_PLACE_NEW);
    p = data(3, 2, 1024, 476, 1500);
    p.bth.opcode = MRC_OP_WRITE_LAST_IMM;
    p.imm = 5;
    EXPECT_EQ(rx(1, p), MRC_RX_PLACE);
    auto d = delivered();
    ASSERT_EQ(d.size(), 3u);
    EXPECT_EQ(d[0].u.msg.len, 0u);
    EXPECT_EQ(d[0].u.msg.has_imm, 0);
    EXPECT_EQ(d[1].u.msg.has_imm, 1);
    EXPECT_EQ(d[1].u.msg.imm, 0xabcdefu);
    EXPECT_EQ(d[2].u.msg.len, 1500u);
    EXPECT_EQ(d[2].u.msg.imm, 5u);
}

TEST_F(RespTest, ViolationsFailTheConnection) {
    cfg_.rx_max_msg_len = 1u << 20;
    auto expect_failed = [&](int rc) {
        EXPECT_EQ(rc, MRC_E_PROTO);
        EXPECT_TRUE(mrc_conn_failed(c_));
        auto d = delivered();
        ASSERT_FALSE(d.empty());
        EXPECT_EQ(d[0].type, MRC_EVT_CONN_ERROR);
        EXPECT_EQ(d[0].u.error.reason, MRC_CONN_ERR_PROTO);
        EXPECT_EQ(stats().rx_proto_err, 1u);
        EXPECT_EQ(rx(9, only(9, 9)), MRC_E_CONN);
        // The peer is told: the UNEXP_EVENT NACK still goes out.
        mrc_tx_desc t;
        ASSERT_EQ(mrc_conn_poll_tx(c_, 9, &t), MRC_OK);
        EXPECT_EQ(t.kind, MRC_TX_NACK);
        EXPECT_EQ(t.pkt.nack.reason, MRC_NACK_UNEXP_EVENT);
        EXPECT_EQ(mrc_conn_poll_tx(c_, 9, &t), MRC_E_CONN);
    };
    {
        SCOPED_TRACE("message length changes");
        create();
        EXPECT_EQ(rx(1, data(0, 0, 0, 1024, 4096)), MRC_RX_PLACE_NEW);
        expect_failed(rx(2, data(1, 0, 1024, 1024, 8192)));
    }
    {
        SCOPED_TRACE("message too long");
        create();
        expect_failed(rx(1, data(0, 0, 0, 1024, 2u << 20)));
    }
    {
        SCOPED_TRACE("MSN already delivered");
        create();
        EXPECT_EQ(rx(1, only(0, 0)), MRC_RX_PLACE_NEW);
        EXPECT_EQ(delivered().size(), 1u);
        expect_failed(rx(2, only(1, 0)));
    }
    {
        SCOPED_TRACE("bytes beyond the message length");
        create();
        EXPECT_EQ(rx(1, data(0, 0, 0, 1024, 2048)), MRC_RX_PLACE_NEW);
        mrc_pkt dup = data(1, 0, 0, 1024, 2048);
        dup.bth.opcode = MRC_OP_WRITE_MIDDLE;
        EXPECT_EQ(rx(2, dup), MRC_RX_PLACE);
        expect_failed(rx(3, data(2, 0, 1024, 1024, 2048)));
    }
    {
        SCOPED_TRACE("two last packets");
        create();
        EXPECT_EQ(rx(1, data(0, 0, 1024, 0, 1024)), MRC_RX_PLACE_NEW);
        expect_failed(rx(2, data(1, 0, 1024, 0, 1024)));
    }
}

TEST_F(RespTest, PendingChunkOverflowForcesSacks) {
    cfg_.mpr = 1024;
    cfg_.rx_max_msgs = 16;
    cfg_.sack_every_pkts = 1000;
    create();
    const u32 mlen = 1024 * 1024;
    // Nine packets in nine different 64-PSN chunks, message 0 only.
    for (u32 k = 1; k <= 9; k++) rx(1, data(64 * k, 0, 64 * k * 1024, 1024, mlen));
    auto t = poll(1);
    ASSERT_EQ(t.size(), 8u);
    EXPECT_EQ(stats().ctl_dropped, 1u);
    for (size_t i = 0; i < t.size(); i++) {
        const mrc_sack& s = t[i].pkt.sack;
        u32 psn = 64 * (static_cast<u32>(i) + 2);
        EXPECT_EQ(s.cack_psn, 0xffffffu);
        EXPECT_EQ(s.sack_offset, psn + 1);  // base = cack + offset = psn
        EXPECT_EQ(s.bitmap, 1ull);
        EXPECT_EQ(mrc_sack_trigger_psn(&s), psn);
    }
}

// A flowcell: packets 60..67 of one message on one EV, in one receive batch,
// spanning chunks [0, 64) and [64, 128). The cumulative ack passes the first
// chunk whole, so the second chunk's SACK says all the first's would: one
// SACK, not two.
class RespMergeTest : public RespTest {
  protected:
    void SetUp() override {
        RespTest::SetUp();
        cfg_.rx_max_msgs = 16;
        cfg_.sack_every_pkts = 1000;
    }
    // PSNs [from, to) of message 0 (80 packets of 1,024 bytes), on @ev(psn).
    template <typename Ev>
    void cell(u32 from, u32 to, Ev ev) {
        for (u32 psn = from; psn < to; psn++)
            EXPECT_GE(rx(1, data(psn, 0, psn * 1024, 1024, 80 * 1024), ev(psn)), 0);
    }
    // ... all on kEv.
    void cell(u32 from, u32 to) {
        cell(from, to, [](u32) { return kEv; });
    }
    // A connection whose PSNs [0, @to) arrived and were acknowledged by one
    // SACK, nothing pending.
    void acked_up_to(u32 to) {
        create();
        cell(0, to);
        mrc_conn_flush_acks(c_);
        ASSERT_EQ(poll(1).size(), 1u);
    }
    static constexpr u32 kFirstChunkEnd = 64;
};

TEST_F(RespMergeTest, FlowcellAcrossTwoChunksIsAckedOnce) {
    ASSERT_NO_FATAL_FAILURE(acked_up_to(60));
    cell(60, 68);
    mrc_conn_flush_acks(c_);
    auto t = poll(1);
    ASSERT_EQ(t.size(), 1u);
    const mrc_sack& s = t[0].pkt.sack;
    EXPECT_EQ(s.cack_psn, 67u);
    EXPECT_EQ(mrc_sack_trigger_psn(&s), 67u);
    EXPECT_EQ(s.ev, kEv);
    EXPECT_EQ(stats().tx_sacks, 2u);
    EXPECT_EQ(stats().tx_sacks_merged, 1u);
}

TEST_F(RespMergeTest, NotMergedAcrossEvsOrWhenTheOlderChunkHasAHole) {
    create();
    // The two chunks' last arrivals came on different EVs: each EV hears.
    cell(0, 68, [](u32 psn) { return psn < kFirstChunkEnd ? kEv : kEv2; });
    mrc_conn_flush_acks(c_);
    auto t = poll(1);
    ASSERT_EQ(t.size(), 2u);
    EXPECT_EQ(t[0].pkt.sack.ev, kEv);
    EXPECT_EQ(t[1].pkt.sack.ev, kEv2);
    EXPECT_EQ(stats().tx_sacks_merged, 0u);
    // PSN 70 missing: chunk 64 is not passed whole, its SACK stays.
    cell(68, 70);
    cell(71, 80);
    mrc_conn_flush_acks(c_);
    t = poll(1);
    ASSERT_EQ(t.size(), 1u);
    EXPECT_EQ(t[0].pkt.sack.cack_psn, 69u);
    EXPECT_EQ(stats().tx_sacks_merged, 0u);
}

TEST_F(RespMergeTest, DuplicateInTheOlderChunkKeepsItsSack) {
    ASSERT_NO_FATAL_FAILURE(acked_up_to(60));
    // A late original of PSN 10 (a duplicate: its echo may prove a timeout
    // spurious) noted in the window's first chunk, then the flowcell.
    EXPECT_EQ(rx(1, data(10, 0, 10 * 1024, 1024, 80 * 1024)), MRC_RX_CONSUMED);
    cell(60, 68);
    mrc_conn_flush_acks(c_);
    EXPECT_EQ(poll(1).size(), 2u);
    EXPECT_EQ(stats().tx_sacks_merged, 0u);
}

TEST_F(RespMergeTest, LateOriginalInTheOlderChunkKeepsItsSack) {
    create();
    cell(0, 60);
    cell(61, 64);
    mrc_conn_flush_acks(c_);
    ASSERT_EQ(poll(1).size(), 1u);
    // PSN 60 comes late and fills the hole (the sender may have timed it
    // out: the echo of its timestamp proves that timeout spurious), then
    // the next flowcell on the same EV.
    cell(60, 61);
    cell(64, 68);
    mrc_conn_flush_acks(c_);
    auto t = poll(1);
    ASSERT_EQ(t.size(), 2u);
    EXPECT_EQ(mrc_sack_trigger_psn(&t[0].pkt.sack), 60u);
    EXPECT_EQ(t[0].pkt.sack.cc.echoed_ts, static_cast<u16>(60 * 3 + 1));
    EXPECT_EQ(mrc_sack_trigger_psn(&t[1].pkt.sack), 67u);
    EXPECT_EQ(stats().tx_sacks_merged, 0u);
}

TEST_F(RespMergeTest, CeMarkInTheOlderChunkKeepsItsSack) {
    ASSERT_NO_FATAL_FAILURE(acked_up_to(60));
    cell(60, 62);
    EXPECT_GE(rx(1, data(62, 0, 62 * 1024, 1024, 80 * 1024), kEv, MRC_RXF_ECN_CE), 0);
    cell(63, 68);
    auto t = poll(1);
    ASSERT_EQ(t.size(), 2u);
    EXPECT_EQ(t[0].pkt.sack.ecn, MRC_ECN_SKIP_ONCE);
    EXPECT_EQ(t[1].pkt.sack.ecn, MRC_ECN_NONE);
    EXPECT_EQ(stats().tx_sacks_merged, 0u);
}

TEST_F(RespTest, ControlUsesAnotherEvWhenEchoPlaneIsDown) {
    create();
    ASSERT_EQ(mrc_conn_set_plane_up(c_, 0, 0, false), MRC_OK);
    rx(1, only(0, 0, true), kEv);
    auto t = poll(1);
    ASSERT_EQ(t.size(), 1u);
    EXPECT_EQ(t[0].pkt.sack.ev, kEv);  // still echoed
    EXPECT_NE(t[0].ev, kEv);           // but sent on plane 1
    EXPECT_EQ(t[0].plane, 1);
    EXPECT_GE(mrc_conn_find_ev(c_, t[0].ev), 0);
}

}  // namespace
