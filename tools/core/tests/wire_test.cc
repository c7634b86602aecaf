// SPDX-License-Identifier: GPL-2.0 OR MIT
//
// Unit tests of the MRC wire codec (kmod/core/mrc_wire.c).
//
// Known-answer vectors are assembled by hand, byte by byte, from the public
// MRC 1.0 layouts (../shared/design/WIRE-MRC1.md, restated in
// Documentation/networking/mrc-wire.rst), never from the codec's output; the
// ICRCs come from scripts/mrc_icrc.py (zlib.crc32 over the masked bytes),
// an implementation of the RoCEv2 rule that shares no code with the codec.
// Every decoder is run on exact-size heap copies of truncated input, so the
// ASan build reports any read past `len`.

#include <gtest/gtest.h>

#include <cstdint>
#include <cstring>
#include <random>
#include <set>
#include <string>
#include <vector>

extern "C" {
#include "mrc_wire.h"
}

namespace {

using Bytes = std::vector<u8>;

Bytes hex(const char* s) {
    Bytes out;
    auto nib = [](char c) -> int {
        if (c >= '0' && c <= '9') return c - '0';
        if (c >= 'a' && c <= 'f') return c - 'a' + 10;
        if (c >= 'A' && c <= 'F') return c - 'A' + 10;
        return -1;
    };
    int hi = -1;
    for (; *s; s++) {
        int v = nib(*s);
        if (v < 0) continue;
        if (hi < 0) {
            hi = v;
        } else {
            out.push_back(static_cast<u8>(hi << 4 | v));
            hi = -1;
        }
    }
    return out;
}

// Exact-size heap copy of the first n bytes: ASan flags any overread.
Bytes prefix(const Bytes& b, size_t n) {
    return Bytes(b.begin(), b.begin() + static_cast<std::ptrdiff_t>(n));
}

// ICRC without an IP context, least significant byte first (RoCEv2 order).
void put_icrc(Bytes& b) {
    u32 c = mrc_icrc(nullptr, b.data(), static_cast<u32>(b.size() - 4));

    b[b.size() - 4] = static_cast<u8>(c);
    b[b.size() - 3] = static_cast<u8>(c >> 8);
    b[b.size() - 2] = static_cast<u8>(c >> 16);
    b[b.size() - 1] = static_cast<u8>(c >> 24);
}

int decode(const Bytes& b, mrc_pkt* p, u32 flags = 0) {
    return mrc_pkt_decode_flags(b.data(), static_cast<u32>(b.size()), flags, p);
}

// ---- hand-written vectors ----

const char* const kBthHex = "CA A0 FFFF 00 123456 B0 ABCDEF";

mrc_bth kat_bth() {
    mrc_bth h{};
    h.opcode = MRC_OP_WRITE_ONLY;
    h.se = true;
    h.pad_cnt = 2;
    h.pkey = 0xffff;
    h.dest_qp = 0x123456;
    h.ack_req = true;
    h.rtx = true;
    h.ts = true;
    h.psn = 0xabcdef;
    return h;
}

// SETH (type 1, next header 1 = CC_STATE): byte 0 = 0x10, byte 1 = 0x80
// (next-header bit 0) | M=SKIP_ONCE << 5 | pr << 1 = 0xA2; ack_psn_offset
// -2; EV; conn ids; reserved; cack; cc 3/A; MPR; sack_offset -3; bitmap.
// CC_STATE: echoed ts; ooo_count 0x7fff; r_c=1 | penalty 0x55 = 0xD5; bytes.
const char* const kSackHex =
    "10 A2 FFFE 89ABCDEF 1111 2222 00 00FFFE 3A 40 FFFD 8000000000000001"
    "4321 7FFF D5 123456";

mrc_sack kat_sack() {
    mrc_sack s{};
    s.ecn = MRC_ECN_SKIP_ONCE;
    s.pr = true;
    s.ack_psn_off = -2;
    s.ev = 0x89abcdef;
    s.src_conn = 0x1111;
    s.dst_conn = 0x2222;
    s.cack_psn = 0x00fffe;
    s.cc_type = 3;
    s.cc_flags = 0xa;
    s.mpr = 0x40;
    s.sack_offset = -3;
    s.bitmap = 0x8000000000000001ull;
    s.cc.echoed_ts = 0x4321;
    s.cc.ooo_count = 0x7fff;
    s.cc.restore_cwnd = true;
    s.cc.rwnd_penalty = 0x55;
    s.cc.bytes_rcvd = 0x123456;
    return s;
}

// NETH (type 2, next header 0): reason PSN_OOR_WINDOW, vendor 7E, EV, conn
// ids, reserved, nack_psn, cc F/1, reserved, echoed tx timestamp.
const char* const kNackHex = "20 00 0B 7E 00010002 0102 0304 00 000001 F1 00 A5A5";

mrc_nack kat_nack() {
    mrc_nack n{};
    n.reason = MRC_NACK_PSN_OOR_WINDOW;
    n.vendor = 0x7e;
    n.tx_ts = 0xa5a5;
    n.ev = 0x00010002;
    n.src_conn = 0x0102;
    n.dst_conn = 0x0304;
    n.nack_psn = 1;
    n.cc_type = 0xf;
    n.cc_flags = 1;
    return n;
}

// PETH (type 3): reserved, vendor 5C, probe id, reserved, conn ids, tx ts,
// tsr=1 | ftype 1.
const char* const kProbeHex = "30 00 00 5C CAFE 0000 0A0B 0C0D 0E0F 8001";

mrc_probe kat_probe() {
    mrc_probe p{};
    p.vendor = 0x5c;
    p.probe_id = 0xcafe;
    p.src_conn = 0x0a0b;
    p.dst_conn = 0x0c0d;
    p.tx_ts = 0x0e0f;
    p.tsr = true;
    p.ftype = 1;
    return p;
}

// ERTH (type 4), op 0 PORT_STATUS_UPDATE: mask FF, tx ts, ftype 1.
const char* const kEpHex = "40 00 00 00 000000FF 00000000 1357 0001";

mrc_ep kat_ep() {
    mrc_ep e{};
    e.kind = MRC_EP_PORT_STATUS;
    e.token = 0x5a5a;
    e.port_mask = 0xff;
    e.tx_ts = 0x1357;
    e.ftype = 1;
    return e;
}

// EETH (type 5), op 1 EV_PROBE in byte 1 bits 5-4, echoed ts at 28-29.
const char* const kEpRespHex =
    "50 10 0000 000000000000000000000000000000000000000000000000 1357 000000000000";

mrc_ep kat_ep_resp() {
    mrc_ep e{};
    e.kind = MRC_EP_EV_PROBE;
    e.token = 0x5a5a;
    e.tx_ts = 0x1357;
    return e;
}

// Our handshake as a vendor operation: ERTH type 4 with next header 0x1F
// (byte 0 = 0x4F, byte 1 bit 7), op 3, vendor info 0x10 (connect), then
// the 24-byte body: services, src QPN, status, dst QPN, resv, conn ids,
// initial PSN, resv, max message length.
const char* const kConnReqHex =
    "4F 83 00 10 00000000 00000000 0A0B 0001"
    "1234 5678 0000AB 00 000000 00 0007 0000 123456 00 00100000";

mrc_ep kat_conn_req() {
    mrc_ep e{};
    e.kind = MRC_EP_CONNECT;
    e.token = 0x0102;
    e.tx_ts = 0x0a0b;
    e.ftype = 1;
    e.conn.dst_service = 0x1234;
    e.conn.src_service = 0x5678;
    e.conn.src_qpn = 0xab;
    e.conn.src_conn = 7;
    e.conn.init_psn = 0x123456;
    e.conn.max_msg_len = 0x100000;
    return e;
}

// The accept: EETH type 5, op 3 in bits 5-4 (0x30), vendor info 0x10, the
// body in bytes 4-27, echoed ts, reserved.
const char* const kConnRespHex =
    "50 30 00 10 5678 1234 0000CD 00 0000AB 00 0009 0007 654321 00 00100000"
    "0A0B 000000000000";

mrc_ep kat_conn_resp() {
    mrc_ep e{};
    e.kind = MRC_EP_CONNECT;
    e.token = 0x0102;
    e.tx_ts = 0x0a0b;
    e.conn.dst_service = 0x5678;
    e.conn.src_service = 0x1234;
    e.conn.src_qpn = 0xcd;
    e.conn.dst_qpn = 0xab;
    e.conn.src_conn = 9;
    e.conn.dst_conn = 7;
    e.conn.init_psn = 0x654321;
    e.conn.max_msg_len = 0x100000;
    return e;
}

// WRITE_ONLY_IMM, ts=1, A=1, "hello" + 3 pad bytes; TSETH ftype 1. ICRC
// (no IP) from scripts/mrc_icrc.py noip: 0x5b3675dd, least significant first.
const char* const kWriteOnlyImmHex =
    "CB 30 FFFF 00 000007 90 000010"      // BTH
    "0001 0002"                           // METH
    "0064 0001"                           // TSETH
    "0000000000000000 00000000 00000005"  // RETH
    "DEADBEEF"                            // ImmDt
    "68656C6C6F 000000"                   // payload + pad
    "DD75365B";                           // ICRC

// SACK to QP 7 carrying kSackHex; ICRC (no IP) 0x843412cb.
const char* const kSackPktHex =
    "DC 00 FFFF 00 000007 00 000000"
    "10A2FFFE89ABCDEF11112222 0000FFFE3A40FFFD8000000000000001 43217FFFD5123456"
    "CB123484";

// The same SACK in IPv6/UDP fd00::1 -> fd00::2, source port 0xC123, to
// 4791: scripts/mrc_icrc.py ip6 fd00::1 fd00::2 0xc123 4791 gives 0x557aa07c.
const u32 kSackPktIp6Icrc = 0x557aa07cu;

mrc_icrc_ip6 kat_ip6() {
    mrc_icrc_ip6 ip{};
    ip.saddr[0] = 0xfd;
    ip.saddr[15] = 1;
    ip.daddr[0] = 0xfd;
    ip.daddr[15] = 2;
    ip.sport = 0xc123;
    ip.dport = 4791;
    return ip;
}

mrc_pkt data_pkt(u8 op, u64 va, u32 dma_len, const Bytes& payload, bool ts = false) {
    mrc_pkt p{};
    p.bth.opcode = op;
    p.bth.pkey = MRC_PKEY_DEFAULT;
    p.bth.dest_qp = 0x42;
    p.bth.psn = 0x123;
    p.bth.ts = ts;
    p.meth.rqmsn = 3;
    p.meth.msn = 4;
    p.tseth.tx_ts = 0x77;
    p.reth.va = va;
    p.reth.rkey = 0x99;
    p.reth.dma_len = dma_len;
    p.imm = 0x01020304;
    p.payload = payload.data();
    p.payload_len = static_cast<u32>(payload.size());
    return p;
}

mrc_pkt ctl_pkt(u8 op) {
    mrc_pkt p{};
    p.bth.opcode = op;
    p.bth.pkey = MRC_PKEY_DEFAULT;
    p.bth.dest_qp = 0x42;
    switch (op) {
        case MRC_OP_ACK:
            p.aeth.syndrome = 0x1f;
            p.aeth.msn = 9;
            break;
        case MRC_OP_SACK:
            p.sack = kat_sack();
            break;
        case MRC_OP_NACK:
            p.nack = kat_nack();
            break;
        case MRC_OP_PROBE:
            p.probe = kat_probe();
            break;
        case MRC_OP_EP_REQ:
            p.bth.dest_qp = MRC_QPN_EP;
            p.ep = kat_ep();
            break;
        default:
            p.bth.dest_qp = MRC_QPN_EP;
            p.ep = kat_ep_resp();
            break;
    }
    return p;
}

Bytes encode(const mrc_pkt& p) {
    Bytes b(4096);
    int n = mrc_pkt_encode(&p, b.data(), static_cast<u32>(b.size()));

    EXPECT_GT(n, 0) << mrc_wire_strerror(n);
    b.resize(n > 0 ? static_cast<size_t>(n) : 0);
    return b;
}

const u8 kAllOps[] = {
    MRC_OP_WRITE_FIRST, MRC_OP_WRITE_MIDDLE,   MRC_OP_WRITE_LAST, MRC_OP_WRITE_LAST_IMM,
    MRC_OP_WRITE_ONLY,  MRC_OP_WRITE_ONLY_IMM, MRC_OP_ACK,        MRC_OP_EP_REQ,
    MRC_OP_EP_RESP,     MRC_OP_SACK,           MRC_OP_NACK,       MRC_OP_PROBE,
};
const u8 kCtlOps[] = {MRC_OP_ACK,  MRC_OP_EP_REQ, MRC_OP_EP_RESP,
                      MRC_OP_SACK, MRC_OP_NACK,   MRC_OP_PROBE};

// A valid packet of each opcode, for whole-packet tests.
std::vector<Bytes> sample_packets() {
    static const Bytes pl = {1, 2, 3, 4, 5, 6, 7};
    std::vector<Bytes> v;

    v.push_back(encode(data_pkt(MRC_OP_WRITE_FIRST, 0, 100, pl)));
    v.push_back(encode(data_pkt(MRC_OP_WRITE_MIDDLE, 7, 100, pl, true)));
    v.push_back(encode(data_pkt(MRC_OP_WRITE_LAST, 93, 100, pl)));
    v.push_back(encode(data_pkt(MRC_OP_WRITE_LAST_IMM, 93, 100, pl, true)));
    v.push_back(encode(data_pkt(MRC_OP_WRITE_ONLY, 0, 7, pl)));
    v.push_back(encode(data_pkt(MRC_OP_WRITE_ONLY_IMM, 0, 7, pl, true)));
    for (u8 op : kCtlOps) v.push_back(encode(ctl_pkt(op)));
    return v;
}

// ---- error strings, names ----

TEST(WireNames, StrerrorDistinct) {
    std::set<std::string> seen;

    for (int e = 0; e > -MRC_WIRE_ERR_COUNT; e--) {
        std::string s = mrc_wire_strerror(e);
        EXPECT_NE(s, "unknown error") << e;
        EXPECT_TRUE(seen.insert(s).second) << "duplicate text for " << e;
    }
    EXPECT_STREQ(mrc_wire_strerror(1), "unknown error");
    EXPECT_STREQ(mrc_wire_strerror(-MRC_WIRE_ERR_COUNT), "unknown error");
    EXPECT_STREQ(mrc_wire_strerror(-1000), "unknown error");
    EXPECT_STREQ(mrc_wire_strerror(MRC_WIRE_EICRC), "ICRC mismatch");
}

TEST(WireNames, OpcodesAndReasons) {
    int valid = 0, reasons = 0;

    for (int op = 0; op < 256; op++) {
        bool v = mrc_op_valid(static_cast<u8>(op));
        valid += v;
        EXPECT_EQ(v, std::string(mrc_opcode_name(static_cast<u8>(op))) != "UNKNOWN");
        if (mrc_op_is_data(static_cast<u8>(op))) EXPECT_TRUE(v);
        if (v) EXPECT_EQ(op & 0xe0, 0xc0) << op;  // top three bits 110
    }
    EXPECT_EQ(valid, 12);
    for (int r = 0; r < 256; r++) {
        bool v = mrc_nack_reason_valid(static_cast<u8>(r));
        reasons += v;
        EXPECT_EQ(v, std::string(mrc_nack_reason_name(static_cast<u8>(r))) != "UNKNOWN");
    }
    EXPECT_EQ(reasons, 7);
    EXPECT_STREQ(mrc_opcode_name(MRC_OP_WRITE_LAST_IMM), "WRITE_LAST_IMM");
    EXPECT_STREQ(mrc_nack_reason_name(MRC_NACK_TRIMMED_LASTHOP), "TRIMMED_LASTHOP");
    EXPECT_TRUE(mrc_op_has_imm(MRC_OP_WRITE_ONLY_IMM));
    EXPECT_FALSE(mrc_op_has_imm(MRC_OP_WRITE_ONLY));
    EXPECT_TRUE(mrc_op_is_first(MRC_OP_WRITE_ONLY_IMM));
    EXPECT_FALSE(mrc_op_is_first(MRC_OP_WRITE_MIDDLE));
    EXPECT_TRUE(mrc_op_is_last(MRC_OP_WRITE_LAST));
    EXPECT_FALSE(mrc_op_is_last(MRC_OP_WRITE_FIRST));
}

// ---- per-header known answers ----

TEST(WireBth, KnownAnswer) {
    Bytes want = hex(kBthHex), got(MRC_BTH_LEN);
    mrc_bth h = kat_bth(), d{};

    ASSERT_EQ(want.size(), static_cast<size_t>(MRC_BTH_LEN));
    EXPECT_EQ(mrc_bth_encode(&h, got.data(), MRC_BTH_LEN), MRC_BTH_LEN);
    EXPECT_EQ(got, want);
    ASSERT_EQ(mrc_bth_decode(want.data(), MRC_BTH_LEN, &d), MRC_BTH_LEN);
    EXPECT_EQ(d.opcode, MRC_OP_WRITE_ONLY);
    EXPECT_TRUE(d.se);
    EXPECT_FALSE(d.m);
    EXPECT_EQ(d.pad_cnt, 2);
    EXPECT_EQ(d.tver, MRC_TVER);
    EXPECT_EQ(d.pkey, 0xffff);
    EXPECT_EQ(d.dest_qp, 0x123456u);
    EXPECT_TRUE(d.ack_req);
    EXPECT_TRUE(d.rtx);
    EXPECT_TRUE(d.ts);
    EXPECT_EQ(d.psn, 0xabcdefu);

    // M bit alone, everything else clear
    h = mrc_bth{};
    h.opcode = MRC_OP_ACK;
    h.m = true;
    EXPECT_EQ(mrc_bth_encode(&h, got.data(), MRC_BTH_LEN), MRC_BTH_LEN);
    EXPECT_EQ(got, hex("D1 40 0000 00 000000 00 000000"));
}

TEST(WireBth, DecodeRejects) {
    Bytes b = hex(kBthHex);
    mrc_bth d{};

    for (u8 bit : {0x01, 0x02, 0x04, 0x08, 0x40}) {
        Bytes c = b;
        c[8] |= bit;
        EXPECT_EQ(mrc_bth_decode(c.data(), MRC_BTH_LEN, &d), MRC_WIRE_ERESV) << int(bit);
    }
    for (int v = 1; v < 16; v++) {
        Bytes c = b;
        c[1] = static_cast<u8>((c[1] & 0xf0) | v);
        EXPECT_EQ(mrc_bth_decode(c.data(), MRC_BTH_LEN, &d), MRC_WIRE_EVERSION);
    }
    for (int r = 1; r < 256; r++) {
        Bytes c = b;
        c[4] = static_cast<u8>(r);
        EXPECT_EQ(mrc_bth_decode(c.data(), MRC_BTH_LEN, &d), MRC_WIRE_ERESV);
    }
    for (int op = 0; op < 256; op++) {
        Bytes c = b;
        c[0] = static_cast<u8>(op);
        int want = mrc_op_valid(static_cast<u8>(op)) ? MRC_BTH_LEN : MRC_WIRE_EOPCODE;
        EXPECT_EQ(mrc_bth_decode(c.data(), MRC_BTH_LEN, &d), want) << op;
    }
}

TEST(WireBth, EncodeRejects) {
    u8 buf[MRC_BTH_LEN];
    mrc_bth h = kat_bth();

    h.psn = 0x1000000;
    EXPECT_EQ(mrc_bth_encode(&h, buf, sizeof(buf)), MRC_WIRE_ERANGE);
    h = kat_bth();
    h.dest_qp = 0x1000000;
    EXPECT_EQ(mrc_bth_encode(&h, buf, sizeof(buf)), MRC_WIRE_ERANGE);
    h = kat_bth();
    h.pad_cnt = 4;
    EXPECT_EQ(mrc_bth_encode(&h, buf, sizeof(buf)), MRC_WIRE_ERANGE);
    h = kat_bth();
    h.tver = 1;
    EXPECT_EQ(mrc_bth_encode(&h, buf, sizeof(buf)), MRC_WIRE_EVERSION);
    h = kat_bth();
    h.opcode = 0xc5;
    EXPECT_EQ(mrc_bth_encode(&h, buf, sizeof(buf)), MRC_WIRE_EOPCODE);
    h = kat_bth();
    EXPECT_EQ(mrc_bth_encode(&h, buf, MRC_BTH_LEN - 1), MRC_WIRE_ENOSPC);
}

TEST(WireSmallHeaders, KnownAnswers) {
    u8 buf[MRC_RETH_LEN];

    mrc_meth m{0x0102, 0xfedc}, md{};
    ASSERT_EQ(mrc_meth_encode(&m, buf, sizeof(buf)), MRC_METH_LEN);
    EXPECT_EQ(Bytes(buf, buf + MRC_METH_LEN), hex("0102 FEDC"));
    ASSERT_EQ(mrc_meth_decode(buf, MRC_METH_LEN, &md), MRC_METH_LEN);
    EXPECT_EQ(md.rqmsn, 0x0102);
    EXPECT_EQ(md.msn, 0xfedc);

    // TSETH: tx ts | tsr (byte 2 bit 7), 11 reserved bits, ftype (byte 3 3-0)
    mrc_tseth t{0x1234, true, 1}, td{};
    ASSERT_EQ(mrc_tseth_encode(&t, buf, sizeof(buf)), MRC_TSETH_LEN);
    EXPECT_EQ(Bytes(buf, buf + MRC_TSETH_LEN), hex("1234 8001"));
    ASSERT_EQ(mrc_tseth_decode(buf, MRC_TSETH_LEN, &td), MRC_TSETH_LEN);
    EXPECT_EQ(td.tx_ts, 0x1234);
    EXPECT_TRUE(td.tsr);
    EXPECT_EQ(td.ftype, 1);
    for (u16 resv = 0x10; resv < 0x8000; resv <<= 1) {
        u8 b2[4] = {0x12, 0x34, static_cast<u8>(resv >> 8), static_cast<u8>(resv)};
        EXPECT_EQ(mrc_tseth_decode(b2, 4, &td), MRC_WIRE_ERESV) << resv;
    }
    t.ftype = 16;
    EXPECT_EQ(mrc_tseth_encode(&t, buf, sizeof(buf)), MRC_WIRE_ERANGE);

    mrc_reth r{0x10, 0xdeadbeef, 0x00010000}, rd{};
    ASSERT_EQ(mrc_reth_encode(&r, buf, sizeof(buf)), MRC_RETH_LEN);
    EXPECT_EQ(Bytes(buf, buf + MRC_RETH_LEN), hex("0000000000000010 DEADBEEF 00010000"));
    ASSERT_EQ(mrc_reth_decode(buf, MRC_RETH_LEN, &rd), MRC_RETH_LEN);
    EXPECT_EQ(rd.va, 0x10u);
    EXPECT_EQ(rd.rkey, 0xdeadbeefu);
    EXPECT_EQ(rd.dma_len, 0x10000u);
    // va > dma_len, both directions; 64-bit va assembled from both words
    Bytes bad = hex("0000000100000000 00000000 FFFFFFFF");
    EXPECT_EQ(mrc_reth_decode(bad.data(), MRC_RETH_LEN, &rd), MRC_WIRE_ERETH);
    r.va = 0x100000000ull;
    r.dma_len = 0xffffffffu;
    EXPECT_EQ(mrc_reth_encode(&r, buf, sizeof(buf)), MRC_WIRE_ERETH);

    u32 imm = 0;
    ASSERT_EQ(mrc_imm_encode(0xdeadbeef, buf, sizeof(buf)), MRC_IMM_LEN);
    EXPECT_EQ(Bytes(buf, buf + MRC_IMM_LEN), hex("DEADBEEF"));
    ASSERT_EQ(mrc_imm_decode(buf, MRC_IMM_LEN, &imm), MRC_IMM_LEN);
    EXPECT_EQ(imm, 0xdeadbeefu);

    // AETH (IBTA): syndrome 8 | MSN 24
    mrc_aeth a{0x1f, 0xabcdef}, ad{};
    ASSERT_EQ(mrc_aeth_encode(&a, buf, sizeof(buf)), MRC_AETH_LEN);
    EXPECT_EQ(Bytes(buf, buf + MRC_AETH_LEN), hex("1F ABCDEF"));
    ASSERT_EQ(mrc_aeth_decode(buf, MRC_AETH_LEN, &ad), MRC_AETH_LEN);
    EXPECT_EQ(ad.syndrome, 0x1f);
    EXPECT_EQ(ad.msn, 0xabcdefu);
    a.msn = 1u << 24;
    EXPECT_EQ(mrc_aeth_encode(&a, buf, sizeof(buf)), MRC_WIRE_ERANGE);
}

TEST(WireSack, KnownAnswer) {
    Bytes want = hex(kSackHex), got(MRC_SACK_LEN);
    mrc_sack s = kat_sack(), d{};

    ASSERT_EQ(want.size(), static_cast<size_t>(MRC_SACK_LEN));
    EXPECT_EQ(mrc_sack_encode(&s, got.data(), MRC_SACK_LEN), MRC_SACK_LEN);
    EXPECT_EQ(got, want);
    ASSERT_EQ(mrc_sack_decode(want.data(), MRC_SACK_LEN, &d), MRC_SACK_LEN);
    EXPECT_EQ(d.ecn, MRC_ECN_SKIP_ONCE);
    EXPECT_TRUE(d.pr);
    EXPECT_EQ(d.ack_psn_off, -2);
    EXPECT_EQ(d.ev, 0x89abcdefu);
    EXPECT_EQ(d.src_conn, 0x1111);
    EXPECT_EQ(d.dst_conn, 0x2222);
    EXPECT_EQ(d.cack_psn, 0xfffeu);
    EXPECT_EQ(d.cc_type, 3);
    EXPECT_EQ(d.cc_flags, 0xa);
    EXPECT_EQ(d.mpr, 0x40);
    EXPECT_EQ(d.sack_offset, -3);
    EXPECT_EQ(mrc_sack_bitmap_base(&d), 0xfffbu);
    EXPECT_EQ(d.bitmap, 0x8000000000000001ull);
    EXPECT_EQ(d.cc.echoed_ts, 0x4321);
    EXPECT_EQ(d.cc.ooo_count, 0x7fff);
    EXPECT_TRUE(d.cc.restore_cwnd);
    EXPECT_EQ(d.cc.rwnd_penalty, 0x55);
    EXPECT_EQ(d.cc.bytes_rcvd, 0x123456u);

    // ALWAYS_SKIP, no pr, ooo 1 without restore, penalty 127
    s.ecn = MRC_ECN_ALWAYS_SKIP;
    s.pr = false;
    s.cc.ooo_count = 1;
    s.cc.restore_cwnd = false;
    s.cc.rwnd_penalty = 127;
    EXPECT_EQ(mrc_sack_encode(&s, got.data(), MRC_SACK_LEN), MRC_SACK_LEN);
    EXPECT_EQ(got[1], 0xC0);  // next-header bit | M=2 << 5
    EXPECT_EQ(got[30], 0x00);
    EXPECT_EQ(got[31], 0x01);
    EXPECT_EQ(got[32], 0x7f);
}

TEST(WireSack, Rejects) {
    Bytes b = hex(kSackHex), c;
    mrc_sack d{}, s;
    u8 buf[MRC_SACK_LEN];

    c = b;
    c[1] |= 0x60;  // M = 3
    EXPECT_EQ(mrc_sack_decode(c.data(), MRC_SACK_LEN, &d), MRC_WIRE_EVALUE);
    for (int v = 0; v < 256; v++) {  // header type / next header
        if (v == 0x10) continue;
        c = b;
        c[0] = static_cast<u8>(v);
        EXPECT_EQ(mrc_sack_decode(c.data(), MRC_SACK_LEN, &d), MRC_WIRE_EVALUE) << v;
    }
    c = b;
    c[1] &= 0x7f;  // next header 0: no CC_STATE announced
    EXPECT_EQ(mrc_sack_decode(c.data(), MRC_SACK_LEN, &d), MRC_WIRE_EVALUE);
    for (u8 bit : {0x01, 0x04, 0x08, 0x10}) {
        c = b;
        c[1] |= bit;
        EXPECT_EQ(mrc_sack_decode(c.data(), MRC_SACK_LEN, &d), MRC_WIRE_ERESV) << int(bit);
    }
    c = b;
    c[12] = 1;
    EXPECT_EQ(mrc_sack_decode(c.data(), MRC_SACK_LEN, &d), MRC_WIRE_ERESV);
    c = b;
    c[30] |= 0x80;
    EXPECT_EQ(mrc_sack_decode(c.data(), MRC_SACK_LEN, &d), MRC_WIRE_ERESV);

    s = kat_sack();
    s.ecn = 3;
    EXPECT_EQ(mrc_sack_encode(&s, buf, sizeof(buf)), MRC_WIRE_EVALUE);
    s = kat_sack();
    s.cack_psn = 0x1000000;
    EXPECT_EQ(mrc_sack_encode(&s, buf, sizeof(buf)), MRC_WIRE_ERANGE);
    s = kat_sack();
    s.cc_type = 16;
    EXPECT_EQ(mrc_sack_encode(&s, buf, sizeof(buf)), MRC_WIRE_ERANGE);
    s = kat_sack();
    s.cc_flags = 16;
    EXPECT_EQ(mrc_sack_encode(&s, buf, sizeof(buf)), MRC_WIRE_ERANGE);
    s = kat_sack();
    s.cc.ooo_count = 0x8000;
    EXPECT_EQ(mrc_sack_encode(&s, buf, sizeof(buf)), MRC_WIRE_ERANGE);
    s = kat_sack();
    s.cc.rwnd_penalty = 128;
    EXPECT_EQ(mrc_sack_encode(&s, buf, sizeof(buf)), MRC_WIRE_ERANGE);
    s = kat_sack();
    s.cc.bytes_rcvd = 0x1000000;
    EXPECT_EQ(mrc_sack_encode(&s, buf, sizeof(buf)), MRC_WIRE_ERANGE);
    s = kat_sack();
    EXPECT_EQ(mrc_sack_encode(&s, buf, MRC_SACK_LEN - 1), MRC_WIRE_ENOSPC);
}

TEST(WireSack, TriggerPsn) {
    mrc_sack s{};

    s.cack_psn = 5;
    s.ack_psn_off = -2;
    EXPECT_EQ(mrc_sack_trigger_psn(&s), 3u);
    s.cack_psn = 0;
    s.ack_psn_off = -1;  // wraps below zero
    EXPECT_EQ(mrc_sack_trigger_psn(&s), 0xffffffu);
    s.cack_psn = 0xfffff0;
    s.ack_psn_off = 0x20;  // +32 wraps above 2^24
    EXPECT_EQ(mrc_sack_trigger_psn(&s), 0x10u);
    s.ack_psn_off = 0x7fff;
    EXPECT_EQ(mrc_sack_trigger_psn(&s), mrc_psn_add(0xfffff0, 0x7fff));
    s.ack_psn_off = -0x8000;
    EXPECT_EQ(mrc_sack_trigger_psn(&s), mrc_psn_add(0xfffff0, static_cast<u32>(-0x8000)));
    // sack_offset is signed too: the bitmap may start below cack
    s.cack_psn = 2;
    s.sack_offset = -5;
    EXPECT_EQ(mrc_sack_bitmap_base(&s), 0xfffffdu);
    s.sack_offset = 0x7fff;
    EXPECT_EQ(mrc_sack_bitmap_base(&s), 0x8001u);
}

TEST(WireNack, KnownAnswerAndRejects) {
    Bytes want = hex(kNackHex), got(MRC_NACK_LEN), c;
    mrc_nack n = kat_nack(), d{};

    ASSERT_EQ(want.size(), static_cast<size_t>(MRC_NACK_LEN));
    EXPECT_EQ(mrc_nack_encode(&n, got.data(), MRC_NACK_LEN), MRC_NACK_LEN);
    EXPECT_EQ(got, want);
    ASSERT_EQ(mrc_nack_decode(want.data(), MRC_NACK_LEN, &d), MRC_NACK_LEN);
    EXPECT_EQ(d.reason, MRC_NACK_PSN_OOR_WINDOW);
    EXPECT_EQ(d.vendor, 0x7e);
    EXPECT_EQ(d.tx_ts, 0xa5a5);
    EXPECT_EQ(d.ev, 0x00010002u);
    EXPECT_EQ(d.src_conn, 0x0102);
    EXPECT_EQ(d.dst_conn, 0x0304);
    EXPECT_EQ(d.nack_psn, 1u);
    EXPECT_EQ(d.cc_type, 0xf);
    EXPECT_EQ(d.cc_flags, 1);

    for (int r = 0; r < 256; r++) {
        c = want;
        c[2] = static_cast<u8>(r);
        int exp = mrc_nack_reason_valid(static_cast<u8>(r)) ? MRC_NACK_LEN : MRC_WIRE_EREASON;
        EXPECT_EQ(mrc_nack_decode(c.data(), MRC_NACK_LEN, &d), exp) << r;
        n = kat_nack();
        n.reason = static_cast<u8>(r);
        exp = mrc_nack_reason_valid(static_cast<u8>(r)) ? MRC_NACK_LEN : MRC_WIRE_EREASON;
        EXPECT_EQ(mrc_nack_encode(&n, got.data(), MRC_NACK_LEN), exp) << r;
    }
    for (int i : {1, 12, 17}) {  // byte 1 below the next-header bit, 12, 17
        c = want;
        c[i] = 0x10;
        EXPECT_EQ(mrc_nack_decode(c.data(), MRC_NACK_LEN, &d), MRC_WIRE_ERESV) << i;
    }
    for (int v : {0x10, 0x21, 0x30, 0x00}) {  // header type / next header
        c = want;
        c[0] = static_cast<u8>(v);
        EXPECT_EQ(mrc_nack_decode(c.data(), MRC_NACK_LEN, &d), MRC_WIRE_EVALUE) << v;
    }
    n = kat_nack();
    n.nack_psn = 0x1000000;
    EXPECT_EQ(mrc_nack_encode(&n, got.data(), MRC_NACK_LEN), MRC_WIRE_ERANGE);
    n = kat_nack();
    n.cc_type = 0x10;
    EXPECT_EQ(mrc_nack_encode(&n, got.data(), MRC_NACK_LEN), MRC_WIRE_ERANGE);
    n = kat_nack();
    EXPECT_EQ(mrc_nack_encode(&n, got.data(), MRC_NACK_LEN - 1), MRC_WIRE_ENOSPC);
}

TEST(WireProbe, KnownAnswerAndRejects) {
    Bytes want = hex(kProbeHex), got(MRC_PROBE_LEN), c;
    mrc_probe p = kat_probe(), d{};

    ASSERT_EQ(want.size(), static_cast<size_t>(MRC_PROBE_LEN));
    EXPECT_EQ(mrc_probe_encode(&p, got.data(), MRC_PROBE_LEN), MRC_PROBE_LEN);
    EXPECT_EQ(got, want);
    ASSERT_EQ(mrc_probe_decode(want.data(), MRC_PROBE_LEN, &d), MRC_PROBE_LEN);
    EXPECT_EQ(d.probe_id, 0xcafe);
    EXPECT_EQ(d.src_conn, 0x0a0b);
    EXPECT_EQ(d.dst_conn, 0x0c0d);
    EXPECT_EQ(d.tx_ts, 0x0e0f);
    EXPECT_EQ(d.vendor, 0x5c);
    EXPECT_TRUE(d.tsr);
    EXPECT_EQ(d.ftype, 1);
    for (int i : {1, 2, 6, 7, 14}) {
        c = want;
        c[i] |= 1;
        EXPECT_EQ(mrc_probe_decode(c.data(), MRC_PROBE_LEN, &d), MRC_WIRE_ERESV) << i;
    }
    c = want;
    c[15] |= 0x10;  // lowest reserved bit above ftype
    EXPECT_EQ(mrc_probe_decode(c.data(), MRC_PROBE_LEN, &d), MRC_WIRE_ERESV);
    c = want;
    c[0] = 0x20;  // a NETH's type
    EXPECT_EQ(mrc_probe_decode(c.data(), MRC_PROBE_LEN, &d), MRC_WIRE_EVALUE);
    EXPECT_EQ(mrc_probe_encode(&p, got.data(), MRC_PROBE_LEN - 1), MRC_WIRE_ENOSPC);
}

TEST(WireEp, RequestKnownAnswersAndRejects) {
    Bytes want = hex(kEpHex), got(64), c;
    mrc_ep e = kat_ep(), d{};

    ASSERT_EQ(want.size(), static_cast<size_t>(MRC_EP_LEN));
    EXPECT_EQ(mrc_erth_encode(&e, got.data(), MRC_EP_LEN), MRC_EP_LEN);
    EXPECT_EQ(Bytes(got.begin(), got.begin() + MRC_EP_LEN), want);
    ASSERT_EQ(mrc_erth_decode(want.data(), MRC_EP_LEN, &d), MRC_EP_LEN);
    EXPECT_EQ(d.kind, MRC_EP_PORT_STATUS);
    EXPECT_EQ(d.port_mask, 0xffu);
    EXPECT_EQ(d.tx_ts, 0x1357);
    EXPECT_EQ(d.ftype, 1);

    // EV probe: op 1 in byte 1 bits 1-0, no mask
    e = mrc_ep{};
    e.kind = MRC_EP_EV_PROBE;
    e.tx_ts = 2;
    e.ftype = 1;
    EXPECT_EQ(mrc_erth_encode(&e, got.data(), MRC_EP_LEN), MRC_EP_LEN);
    EXPECT_EQ(Bytes(got.begin(), got.begin() + MRC_EP_LEN),
              hex("40 01 00 00 00000000 00000000 0002 0001"));

    // op 2 is undefined; op 3 is only ours with our vendor codes
    c = want;
    c[1] = 0x02;
    EXPECT_EQ(mrc_erth_decode(c.data(), MRC_EP_LEN, &d), MRC_WIRE_EVALUE);
    c = hex(kConnReqHex);
    c[3] = 0x42;  // another vendor's operation
    EXPECT_EQ(mrc_erth_decode(c.data(), static_cast<u32>(c.size()), &d), MRC_WIRE_EVALUE);
    for (int i : {2, 8, 11}) {
        c = want;
        c[i] = 1;
        EXPECT_EQ(mrc_erth_decode(c.data(), MRC_EP_LEN, &d), MRC_WIRE_ERESV) << i;
    }
    c = want;
    c[1] |= 0x04;  // reserved bit of byte 1
    EXPECT_EQ(mrc_erth_decode(c.data(), MRC_EP_LEN, &d), MRC_WIRE_ERESV);
    c = hex("40 01 00 00 00000001 00000000 0002 0001");  // mask on an EV probe
    EXPECT_EQ(mrc_erth_decode(c.data(), MRC_EP_LEN, &d), MRC_WIRE_ERESV);
    c = want;
    c[0] = 0x50;  // EETH's type in a request
    EXPECT_EQ(mrc_erth_decode(c.data(), MRC_EP_LEN, &d), MRC_WIRE_EVALUE);
    for (u8 k : {2, 3, 0x12, 0xff}) {
        e = kat_ep();
        e.kind = k;
        EXPECT_EQ(mrc_erth_encode(&e, got.data(), 64), MRC_WIRE_EVALUE) << int(k);
    }
    e = kat_ep();
    e.kind = MRC_EP_EV_PROBE;
    EXPECT_EQ(mrc_erth_encode(&e, got.data(), 64), MRC_WIRE_ERESV);  // mask kept
    e = kat_ep();
    EXPECT_EQ(mrc_erth_encode(&e, got.data(), MRC_EP_LEN - 1), MRC_WIRE_ENOSPC);
}

TEST(WireEp, ResponseKnownAnswerAndRejects) {
    Bytes want = hex(kEpRespHex), got(MRC_EETH_LEN), c;
    mrc_ep e = kat_ep_resp(), d{};

    ASSERT_EQ(want.size(), static_cast<size_t>(MRC_EETH_LEN));
    EXPECT_EQ(mrc_eeth_encode(&e, got.data(), MRC_EETH_LEN), MRC_EETH_LEN);
    EXPECT_EQ(got, want);
    ASSERT_EQ(mrc_eeth_decode(want.data(), MRC_EETH_LEN, &d), MRC_EETH_LEN);
    EXPECT_EQ(d.kind, MRC_EP_EV_PROBE);
    EXPECT_EQ(d.tx_ts, 0x1357);
    for (int i : {2, 4, 27, 30, 35}) {
        c = want;
        c[i] = 1;
        EXPECT_EQ(mrc_eeth_decode(c.data(), MRC_EETH_LEN, &d), MRC_WIRE_ERESV) << i;
    }
    e = kat_ep_resp();
    e.port_mask = 1;
    EXPECT_EQ(mrc_eeth_encode(&e, got.data(), MRC_EETH_LEN), MRC_WIRE_ERESV);
    e = kat_ep_resp();
    e.ftype = 1;
    EXPECT_EQ(mrc_eeth_encode(&e, got.data(), MRC_EETH_LEN), MRC_WIRE_ERESV);
    e = kat_ep_resp();
    EXPECT_EQ(mrc_eeth_encode(&e, got.data(), MRC_EETH_LEN - 1), MRC_WIRE_ENOSPC);
}

// ---- the handshake, our extension as an ERTH/EETH vendor operation ----

TEST(WireEpConn, KnownAnswersAndRejects) {
    const u32 len = MRC_EP_LEN + MRC_EP_CONN_LEN;
    Bytes want = hex(kConnReqHex), got(64), c;
    mrc_ep e = kat_conn_req(), d{};

    ASSERT_EQ(want.size(), static_cast<size_t>(len));
    EXPECT_EQ(mrc_erth_encode(&e, got.data(), len), static_cast<int>(len));
    EXPECT_EQ(Bytes(got.begin(), got.begin() + len), want);
    ASSERT_EQ(mrc_erth_decode(want.data(), len, &d), static_cast<int>(len));
    EXPECT_EQ(d.kind, MRC_EP_CONNECT);
    EXPECT_EQ(d.conn.dst_service, 0x1234);
    EXPECT_EQ(d.conn.src_service, 0x5678);
    EXPECT_EQ(d.conn.src_qpn, 0xabu);
    EXPECT_EQ(d.conn.status, MRC_EP_ST_OK);
    EXPECT_EQ(d.conn.src_conn, 7);
    EXPECT_EQ(d.conn.init_psn, 0x123456u);
    EXPECT_EQ(d.conn.max_msg_len, 0x100000u);
    for (u32 n = MRC_EP_LEN; n < len; n++)
        EXPECT_EQ(mrc_erth_decode(want.data(), n, &d), MRC_WIRE_ETRUNC) << n;
    EXPECT_EQ(mrc_erth_encode(&e, got.data(), len - 1), MRC_WIRE_ENOSPC);
    for (int i : {MRC_EP_LEN + 11, MRC_EP_LEN + 19, 4}) {
        c = want;
        c[i] = 1;
        EXPECT_EQ(mrc_erth_decode(c.data(), len, &d), MRC_WIRE_ERESV) << i;
    }
    c = want;
    c[1] &= 0x7f;  // vendor body not announced by the next header
    EXPECT_EQ(mrc_erth_decode(c.data(), len, &d), MRC_WIRE_EVALUE);
    c = want;
    c[MRC_EP_LEN + 7] = MRC_EP_ST_NR;
    EXPECT_EQ(mrc_erth_decode(c.data(), len, &d), MRC_WIRE_EVALUE);
    e = kat_conn_req();
    e.conn.status = MRC_EP_ST_NR;
    EXPECT_EQ(mrc_erth_encode(&e, got.data(), len), MRC_WIRE_EVALUE);
    e = kat_conn_req();
    e.conn.src_qpn = 1u << 24;
    EXPECT_EQ(mrc_erth_encode(&e, got.data(), len), MRC_WIRE_ERANGE);
    e = kat_conn_req();
    e.conn.init_psn = 1u << 24;
    EXPECT_EQ(mrc_erth_encode(&e, got.data(), len), MRC_WIRE_ERANGE);

    // The accept, in an EETH
    want = hex(kConnRespHex);
    e = kat_conn_resp();
    ASSERT_EQ(want.size(), static_cast<size_t>(MRC_EETH_LEN));
    EXPECT_EQ(mrc_eeth_encode(&e, got.data(), MRC_EETH_LEN), MRC_EETH_LEN);
    EXPECT_EQ(Bytes(got.begin(), got.begin() + MRC_EETH_LEN), want);
    ASSERT_EQ(mrc_eeth_decode(want.data(), MRC_EETH_LEN, &d), MRC_EETH_LEN);
    EXPECT_EQ(d.kind, MRC_EP_CONNECT);
    EXPECT_EQ(d.conn.src_qpn, 0xcdu);
    EXPECT_EQ(d.conn.dst_qpn, 0xabu);
    EXPECT_EQ(d.conn.src_conn, 9);
    EXPECT_EQ(d.conn.dst_conn, 7);
    EXPECT_EQ(d.conn.init_psn, 0x654321u);
    EXPECT_EQ(d.tx_ts, 0x0a0b);
}

// The stateless cookie answer (status 5, RETRY): the 40-bit cookie
// 0xC0FFEE_BEEF in src QPN and src conn, the client's ids as usual; and
// the request that echoes it in dst QPN and dst conn. Hand-assembled.
TEST(WireEpConn, CookieRetryAndEchoKnownAnswers) {
    const Bytes retry =
        hex("50 30 00 10 5678 1234 C0FFEE 05 0000AB 00 BEEF 0007 000000 00 00000000"
            "0A0B 000000000000");
    mrc_ep d{};
    ASSERT_EQ(mrc_eeth_decode(retry.data(), MRC_EETH_LEN, &d), MRC_EETH_LEN);
    EXPECT_EQ(d.conn.status, MRC_EP_ST_RETRY);
    EXPECT_EQ(d.conn.src_qpn, 0xc0ffeeu);
    EXPECT_EQ(d.conn.src_conn, 0xbeef);
    EXPECT_EQ(d.conn.dst_qpn, 0xabu);
    EXPECT_EQ(d.conn.dst_conn, 7);
    Bytes got(64);
    EXPECT_EQ(mrc_eeth_encode(&d, got.data(), MRC_EETH_LEN), MRC_EETH_LEN);
    EXPECT_EQ(Bytes(got.begin(), got.begin() + MRC_EETH_LEN), retry);

    const u32 len = MRC_EP_LEN + MRC_EP_CONN_LEN;
    const Bytes echo =
        hex("4F 83 00 10 00000000 00000000 0A0B 0001"
            "1234 5678 0000AB 00 C0FFEE 00 0007 BEEF 123456 00 00100000");
    mrc_ep e = kat_conn_req();
    e.conn.dst_qpn = 0xc0ffee;
    e.conn.dst_conn = 0xbeef;
    EXPECT_EQ(mrc_erth_encode(&e, got.data(), len), static_cast<int>(len));
    EXPECT_EQ(Bytes(got.begin(), got.begin() + len), echo);
    ASSERT_EQ(mrc_erth_decode(echo.data(), len, &d), static_cast<int>(len));
    EXPECT_EQ(d.conn.dst_qpn, 0xc0ffeeu);
    EXPECT_EQ(d.conn.dst_conn, 0xbeef);
}

TEST(WireEpConn, WholePacketRoundTrip) {
    for (u8 op : {MRC_OP_EP_REQ, MRC_OP_EP_RESP}) {
        for (u8 kind : {MRC_EP_CONNECT, MRC_EP_CLOSE}) {
            mrc_pkt p{}, d{};
            u8 buf[128];
            int n;
            u32 body = op == MRC_OP_EP_REQ ? MRC_EP_LEN + MRC_EP_CONN_LEN : MRC_EETH_LEN;

            p.bth.opcode = op;
            p.bth.tver = MRC_TVER;
            p.bth.pkey = MRC_PKEY_DEFAULT;
            p.bth.dest_qp = MRC_QPN_EP;
            p.ep = op == MRC_OP_EP_REQ ? kat_conn_req() : kat_conn_resp();
            p.ep.kind = kind;
            p.ep.conn.status = op == MRC_OP_EP_RESP ? MRC_EP_ST_REFUSED : 0;
            EXPECT_EQ(mrc_pkt_hdr_len(&p), MRC_BTH_LEN + body);
            n = mrc_pkt_encode(&p, buf, sizeof(buf));
            ASSERT_EQ(n, static_cast<int>(MRC_BTH_LEN + body + MRC_ICRC_LEN));
            // the token rides in BTH.PSN bits 15-0
            EXPECT_EQ(buf[9], 0);
            EXPECT_EQ(buf[10], 0x01);
            EXPECT_EQ(buf[11], 0x02);
            ASSERT_EQ(mrc_pkt_decode(buf, static_cast<u32>(n), &d), 0);
            EXPECT_EQ(d.ep.kind, kind);
            EXPECT_EQ(d.ep.token, 0x0102);
            EXPECT_EQ(d.ep.conn.src_qpn, p.ep.conn.src_qpn);
            EXPECT_EQ(d.ep.conn.status, p.ep.conn.status);
            if (op == MRC_OP_EP_REQ)  // an ERTH without its body is truncated
                EXPECT_EQ(mrc_pkt_decode(buf, MRC_BTH_LEN + MRC_EP_LEN + MRC_ICRC_LEN, &d),
                          MRC_WIRE_ETRUNC);
            for (int len = 0; len < n; len++) {
                Bytes b(buf, buf + len);
                EXPECT_NE(mrc_pkt_decode(b.data(), static_cast<u32>(b.size()), &d), 0) << len;
            }
        }
    }
    // BTH.PSN bits 23-16 of an endpoint op are reserved
    mrc_pkt p = ctl_pkt(MRC_OP_EP_REQ), d;
    Bytes b = encode(p);
    b[9] = 1;
    put_icrc(b);
    EXPECT_EQ(decode(b, &d), MRC_WIRE_ERESV);
}

// Every header decoder, truncated at every length, on exact-size heap copies.
TEST(WireHeaders, TruncateEveryLength) {
    struct {
        const char* name;
        Bytes full;
        int (*dec)(const Bytes& b);
    } cases[] = {
        {"bth", hex(kBthHex),
         [](const Bytes& b) {
             mrc_bth h;
             return mrc_bth_decode(b.data(), static_cast<u32>(b.size()), &h);
         }},
        {"meth", hex("01020304"),
         [](const Bytes& b) {
             mrc_meth h;
             return mrc_meth_decode(b.data(), static_cast<u32>(b.size()), &h);
         }},
        {"tseth", hex("01028001"),
         [](const Bytes& b) {
             mrc_tseth h;
             return mrc_tseth_decode(b.data(), static_cast<u32>(b.size()), &h);
         }},
        {"reth", hex("0000000000000010 DEADBEEF 00010000"),
         [](const Bytes& b) {
             mrc_reth h;
             return mrc_reth_decode(b.data(), static_cast<u32>(b.size()), &h);
         }},
        {"imm", hex("DEADBEEF"),
         [](const Bytes& b) {
             u32 v;
             return mrc_imm_decode(b.data(), static_cast<u32>(b.size()), &v);
         }},
        {"aeth", hex("1F00BEEF"),
         [](const Bytes& b) {
             mrc_aeth h;
             return mrc_aeth_decode(b.data(), static_cast<u32>(b.size()), &h);
         }},
        {"sack", hex(kSackHex),
         [](const Bytes& b) {
             mrc_sack h;
             return mrc_sack_decode(b.data(), static_cast<u32>(b.size()), &h);
         }},
        {"nack", hex(kNackHex),
         [](const Bytes& b) {
             mrc_nack h;
             return mrc_nack_decode(b.data(), static_cast<u32>(b.size()), &h);
         }},
        {"probe", hex(kProbeHex),
         [](const Bytes& b) {
             mrc_probe h;
             return mrc_probe_decode(b.data(), static_cast<u32>(b.size()), &h);
         }},
        {"erth", hex(kEpHex),
         [](const Bytes& b) {
             mrc_ep h;
             return mrc_erth_decode(b.data(), static_cast<u32>(b.size()), &h);
         }},
        {"erth+conn", hex(kConnReqHex),
         [](const Bytes& b) {
             mrc_ep h;
             return mrc_erth_decode(b.data(), static_cast<u32>(b.size()), &h);
         }},
        {"eeth", hex(kConnRespHex),
         [](const Bytes& b) {
             mrc_ep h;
             return mrc_eeth_decode(b.data(), static_cast<u32>(b.size()), &h);
         }},
    };
    for (auto& c : cases) {
        EXPECT_EQ(c.dec(c.full), static_cast<int>(c.full.size())) << c.name;
        for (size_t n = 0; n < c.full.size(); n++)
            EXPECT_EQ(c.dec(prefix(c.full, n)), MRC_WIRE_ETRUNC) << c.name << " len " << n;
    }
}

// ---- ICRC ----

TEST(WireIcrc, CrcPrimitive) {
    const char* s9 = "123456789";
    const u8* p = reinterpret_cast<const u8*>(s9);

    // CRC-32/IEEE check value, split or whole
    EXPECT_EQ(~mrc_icrc_update(0xffffffffu, p, 9), 0xcbf43926u);
    u32 st = mrc_icrc_update(0xffffffffu, p, 4);
    st = mrc_icrc_update(st, nullptr, 0);
    EXPECT_EQ(~mrc_icrc_update(st, p + 4, 5), 0xcbf43926u);
    // the masked LRH: eight 0xff bytes from ~0 leave 0xdebb20e3 (rxe's seed)
    Bytes lrh(8, 0xff);
    EXPECT_EQ(mrc_icrc_update(0xffffffffu, lrh.data(), 8), MRC_ICRC_LRH_STATE);
}

TEST(WireIcrc, PacketKnownAnswers) {
    Bytes w = hex(kWriteOnlyImmHex), s = hex(kSackPktHex);
    mrc_pkt p;

    ASSERT_EQ(decode(w, &p), 0);
    ASSERT_EQ(decode(s, &p), 0);
    EXPECT_EQ(mrc_icrc(nullptr, w.data(), static_cast<u32>(w.size() - 4)), 0x5b3675ddu);
    EXPECT_EQ(mrc_icrc(nullptr, s.data(), static_cast<u32>(s.size() - 4)), 0x843412cbu);
}

// The RoCEv2 rule with the IPv6/UDP pseudo-header, against the Python
// reference; what the rule masks does not matter, what it covers does.
TEST(WireIcrc, Ip6KnownAnswerAndCoverage) {
    Bytes s = hex(kSackPktHex);
    mrc_icrc_ip6 ip = kat_ip6();
    const u32 n = static_cast<u32>(s.size() - 4);
    mrc_pkt p;

    EXPECT_EQ(mrc_icrc(&ip, s.data(), n), kSackPktIp6Icrc);
    // resv8a is masked: any value gives the same CRC
    Bytes r = s;
    r[4] = 0x5a;
    EXPECT_EQ(mrc_icrc(&ip, r.data(), n), kSackPktIp6Icrc);
    // the packet carries it LSB first; verify and decode with the context
    r = s;
    r[n] = 0x7c;
    r[n + 1] = 0xa0;
    r[n + 2] = 0x7a;
    r[n + 3] = 0x55;
    EXPECT_TRUE(mrc_pkt_icrc_ok(&ip, r.data(), static_cast<u32>(r.size())));
    EXPECT_EQ(mrc_pkt_decode_ip6(&ip, r.data(), static_cast<u32>(r.size()), 0, &p), 0);
    EXPECT_EQ(decode(r, &p), MRC_WIRE_EICRC);  // without the context: no
    // addresses and both ports are covered
    for (int which = 0; which < 4; which++) {
        mrc_icrc_ip6 o = ip;
        if (which == 0) o.saddr[15] ^= 1;
        if (which == 1) o.daddr[0] ^= 0x80;
        if (which == 2) o.sport ^= 1;
        if (which == 3) o.dport ^= 1;
        EXPECT_NE(mrc_icrc(&o, s.data(), n), kSackPktIp6Icrc) << which;
    }
    // finish writes it LSB first
    Bytes f = s;
    ASSERT_EQ(mrc_pkt_finish(&ip, f.data(), n, static_cast<u32>(f.size())),
              static_cast<int>(f.size()));
    EXPECT_EQ(f, r);
}

TEST(WireIcrc, EveryBitFlipDetected) {
    for (const Bytes& good : sample_packets()) {
        for (size_t i = 0; i < good.size(); i++) {
            for (int bit = 0; bit < 8; bit++) {
                Bytes c = good;
                mrc_pkt p;
                c[i] ^= static_cast<u8>(1u << bit);
                int r = decode(c, &p);
                EXPECT_NE(r, 0) << "byte " << i << " bit " << bit;
                // a flip that keeps the header chain the same length
                // is caught by the ICRC before any field check (opcode,
                // BTH.ts and an ERTH's op decide that length)
                bool len_bit = i == 0 || (i == 8 && bit == 4) ||
                               (good[0] == MRC_OP_EP_REQ && i == 13 && bit < 2);
                // resv8a is masked out of the ICRC (RoCEv2): the BTH
                // decoder's reserved check catches it instead
                if (i == 4)
                    EXPECT_EQ(r, MRC_WIRE_ERESV);
                else if (!len_bit)
                    EXPECT_EQ(r, MRC_WIRE_EICRC) << "byte " << i;
            }
        }
    }
}

// ---- whole packets ----

TEST(WirePkt, WriteOnlyImmKnownAnswer) {
    Bytes want = hex(kWriteOnlyImmHex);
    static const Bytes hello = {'h', 'e', 'l', 'l', 'o'};
    mrc_pkt p = data_pkt(MRC_OP_WRITE_ONLY_IMM, 0, 5, hello, true), d;

    p.bth.pad_cnt = 3;
    p.bth.dest_qp = 7;
    p.bth.ack_req = true;
    p.bth.psn = 0x10;
    p.meth = {1, 2};
    p.tseth = {100, false, MRC_TS_FTYPE};
    p.reth.rkey = 0;
    p.imm = 0xdeadbeef;
    EXPECT_EQ(mrc_pkt_hdr_len(&p), 40u);
    EXPECT_EQ(encode(p), want);

    ASSERT_EQ(decode(want, &d), 0);
    EXPECT_EQ(d.bth.opcode, MRC_OP_WRITE_ONLY_IMM);
    EXPECT_EQ(d.bth.pad_cnt, 3);
    EXPECT_TRUE(d.bth.ack_req);
    EXPECT_TRUE(d.bth.ts);
    EXPECT_FALSE(d.bth.rtx);
    EXPECT_EQ(d.bth.dest_qp, 7u);
    EXPECT_EQ(d.bth.psn, 0x10u);
    EXPECT_EQ(d.meth.rqmsn, 1);
    EXPECT_EQ(d.meth.msn, 2);
    EXPECT_EQ(d.tseth.tx_ts, 100);
    EXPECT_EQ(d.reth.va, 0u);
    EXPECT_EQ(d.reth.dma_len, 5u);
    EXPECT_EQ(d.imm, 0xdeadbeefu);
    EXPECT_FALSE(d.trimmed);
    ASSERT_EQ(d.payload_len, 5u);
    EXPECT_EQ(d.payload, want.data() + 40);
    EXPECT_EQ(0, std::memcmp(d.payload, "hello", 5));
}

TEST(WirePkt, SackKnownAnswer) {
    Bytes want = hex(kSackPktHex);
    mrc_pkt p = ctl_pkt(MRC_OP_SACK), d;

    p.bth.dest_qp = 7;
    EXPECT_EQ(encode(p), want);
    ASSERT_EQ(decode(want, &d), 0);
    EXPECT_EQ(d.bth.opcode, MRC_OP_SACK);
    EXPECT_EQ(d.sack.bitmap, 0x8000000000000001ull);
    EXPECT_EQ(d.sack.cc.bytes_rcvd, 0x123456u);
    EXPECT_EQ(d.payload_len, 0u);
}

TEST(WirePkt, HdrLen) {
    struct {
        u8 op;
        bool ts;
        u32 len;
    } t[] = {
        {MRC_OP_WRITE_FIRST, false, 32},    {MRC_OP_WRITE_FIRST, true, 36},
        {MRC_OP_WRITE_MIDDLE, false, 32},   {MRC_OP_WRITE_LAST, false, 32},
        {MRC_OP_WRITE_LAST_IMM, false, 36}, {MRC_OP_WRITE_ONLY, true, 36},
        {MRC_OP_WRITE_ONLY_IMM, true, 40},  {MRC_OP_ACK, false, 16},
        {MRC_OP_EP_REQ, false, 28},         {MRC_OP_EP_RESP, false, 48},
        {MRC_OP_SACK, false, 48},           {MRC_OP_NACK, false, 32},
        {MRC_OP_PROBE, false, 28},          {0x00, false, 0},
    };
    for (auto& c : t) {
        mrc_pkt p{};
        p.bth.opcode = c.op;
        p.bth.ts = c.ts;
        EXPECT_EQ(mrc_pkt_hdr_len(&p), c.len) << int(c.op);
    }
    EXPECT_EQ(MRC_DATA_HDR_MAX, 40);
    // The room a message's wire layout leaves (mrc_mb_alloc_tx() in the
    // module): what a middle WRITE packet with a TSETH encodes to.
    mrc_pkt mid{};
    mid.bth.opcode = MRC_OP_WRITE_MIDDLE;
    mid.bth.ts = true;
    EXPECT_EQ(mrc_pkt_hdr_len(&mid), u32{MRC_DATA_HDR_TS_LEN});
}

TEST(WirePkt, RoundTripEveryOpcode) {
    std::set<int> ops;

    for (const Bytes& b : sample_packets()) {
        mrc_pkt d;
        ASSERT_EQ(decode(b, &d), 0) << int(b[0]);
        ops.insert(d.bth.opcode);
        // canonical: decode -> encode gives the same bytes
        EXPECT_EQ(encode(d), b) << int(b[0]);
        EXPECT_EQ(mrc_pkt_hdr_len(&d) + d.payload_len + d.bth.pad_cnt + MRC_ICRC_LEN, b.size());
    }
    for (u8 op : kAllOps) EXPECT_TRUE(ops.count(op)) << int(op);
    EXPECT_EQ(ops.size(), 12u);
}

TEST(WirePkt, TruncateEveryLength) {
    for (const Bytes& b : sample_packets()) {
        mrc_pkt tmp{};
        tmp.bth.opcode = b[0];
        tmp.bth.ts = b[8] & 0x10;
        size_t hdr = mrc_pkt_hdr_len(&tmp);

        for (size_t n = 0; n < b.size(); n++) {
            Bytes c = prefix(b, n);
            mrc_pkt p;
            int r = decode(c, &p);

            if (n < hdr + MRC_ICRC_LEN)
                EXPECT_EQ(r, MRC_WIRE_ETRUNC) << int(b[0]) << " len " << n;
            else
                EXPECT_EQ(r, MRC_WIRE_EICRC) << int(b[0]) << " len " << n;
            // same truncation with a valid ICRC: a shorter payload is
            // still a valid FIRST/MIDDLE, never a valid LAST/ONLY
            if (n >= hdr + MRC_ICRC_LEN) {
                put_icrc(c);
                EXPECT_EQ(decode(c, &p), mrc_op_is_last(b[0]) ? MRC_WIRE_ERETH : 0)
                    << int(b[0]) << " " << n;
            }
        }
    }
}

TEST(WirePkt, ControlExtraBytes) {
    for (u8 op : kCtlOps) {
        Bytes b = encode(ctl_pkt(op));
        mrc_pkt p;

        b.push_back(0);
        put_icrc(b);
        EXPECT_EQ(decode(b, &p), MRC_WIRE_ELEN) << int(op);
    }
}

TEST(WirePkt, ControlFlagsAndPad) {
    for (u8 op : kCtlOps) {
        Bytes good = encode(ctl_pkt(op));
        mrc_pkt p, e;

        for (int which = 0; which < 5; which++) {
            Bytes c = good;
            static const u8 bit[] = {0x80, 0x80, 0x20, 0x10, 0x10};
            static const int idx[] = {1, 8, 8, 8, 1};
            c[idx[which]] |= bit[which];  // SE, A, rtx, ts, pad_cnt=1
            put_icrc(c);
            EXPECT_EQ(decode(c, &p), which == 4 ? MRC_WIRE_EPAD : MRC_WIRE_EFLAGS)
                << int(op) << " " << which;
        }
        e = ctl_pkt(op);
        e.bth.se = true;
        u8 buf[128];
        EXPECT_EQ(mrc_pkt_encode_hdr(&e, buf, sizeof(buf)), MRC_WIRE_EFLAGS);
        e = ctl_pkt(op);
        e.bth.pad_cnt = 1;
        EXPECT_EQ(mrc_pkt_encode_hdr(&e, buf, sizeof(buf)), MRC_WIRE_EPAD);
        e = ctl_pkt(op);
        e.payload_len = 1;
        EXPECT_EQ(mrc_pkt_encode_hdr(&e, buf, sizeof(buf)), MRC_WIRE_ELEN);
        // M bit is carried on every opcode
        e = ctl_pkt(op);
        e.bth.m = true;
        Bytes m = encode(e);
        ASSERT_EQ(decode(m, &p), 0);
        EXPECT_TRUE(p.bth.m);
    }
}

TEST(WirePkt, EndpointQpn) {
    mrc_pkt p = ctl_pkt(MRC_OP_EP_REQ), d;
    u8 buf[128];

    p.bth.dest_qp = 5;
    EXPECT_EQ(mrc_pkt_encode_hdr(&p, buf, sizeof(buf)), MRC_WIRE_EQPN);
    p = ctl_pkt(MRC_OP_SACK);
    p.bth.dest_qp = MRC_QPN_EP;
    EXPECT_EQ(mrc_pkt_encode_hdr(&p, buf, sizeof(buf)), MRC_WIRE_EQPN);

    Bytes b = encode(ctl_pkt(MRC_OP_EP_RESP));
    b[7] = 3;  // dest_qp 2 -> 3
    put_icrc(b);
    EXPECT_EQ(decode(b, &d), MRC_WIRE_EQPN);
    b = encode(data_pkt(MRC_OP_WRITE_ONLY, 0, 0, {}));
    b[5] = b[6] = 0;
    b[7] = MRC_QPN_EP;
    put_icrc(b);
    EXPECT_EQ(decode(b, &d), MRC_WIRE_EQPN);
}

TEST(WirePkt, Padding) {
    static const Bytes pl = {9, 8, 7, 6, 5};
    for (u8 pad = 0; pad < 4; pad++) {
        mrc_pkt p = data_pkt(MRC_OP_WRITE_ONLY, 0, 5, pl), d;
        p.bth.pad_cnt = pad;
        Bytes b = encode(p);
        ASSERT_EQ(b.size(), 32u + 5 + pad + 4);
        ASSERT_EQ(decode(b, &d), 0);
        EXPECT_EQ(d.payload_len, 5u);
        EXPECT_EQ(d.bth.pad_cnt, pad);
        if (pad) {
            Bytes c = b;
            c[c.size() - 5] = 1;  // last pad byte not zero
            put_icrc(c);
            EXPECT_EQ(decode(c, &d), MRC_WIRE_EPAD);
        }
    }
    // pad larger than the bytes after the headers
    Bytes b = encode(data_pkt(MRC_OP_WRITE_ONLY, 0, 0, {}));
    b[1] |= 0x10;
    put_icrc(b);
    mrc_pkt d;
    EXPECT_EQ(decode(b, &d), MRC_WIRE_EPAD);
    // pad bytes counted out of the payload
    b = encode(data_pkt(MRC_OP_WRITE_ONLY, 0, 2, {0, 0}));
    b[1] |= 0x20;
    put_icrc(b);
    EXPECT_EQ(decode(b, &d), MRC_WIRE_ERETH);  // 0 data bytes, dma_len 2
    EXPECT_EQ(mrc_pad_for(0), 0);
    EXPECT_EQ(mrc_pad_for(1), 3);
    EXPECT_EQ(mrc_pad_for(2), 2);
    EXPECT_EQ(mrc_pad_for(3), 1);
    EXPECT_EQ(mrc_pad_for(4), 0);
}

// RETH placement rules, checked by both encoder and decoder.
TEST(WirePkt, RethRules) {
    struct {
        u8 op;
        u64 va;
        u32 dma_len;
        u32 plen;
        bool ok;
    } t[] = {
        {MRC_OP_WRITE_ONLY, 0, 10, 10, true},
        {MRC_OP_WRITE_ONLY, 0, 0, 0, true},  // empty message
        {MRC_OP_WRITE_ONLY_IMM, 0, 0, 0, true},
        {MRC_OP_WRITE_ONLY, 0, 11, 10, false},  // short
        {MRC_OP_WRITE_ONLY, 1, 11, 10, false},  // not at 0
        {MRC_OP_WRITE_FIRST, 0, 11, 10, true},
        {MRC_OP_WRITE_FIRST, 0, 10, 10, false},  // would be ONLY
        {MRC_OP_WRITE_FIRST, 1, 20, 10, false},
        {MRC_OP_WRITE_MIDDLE, 10, 30, 10, true},
        {MRC_OP_WRITE_MIDDLE, 0, 30, 10, false},   // at start
        {MRC_OP_WRITE_MIDDLE, 20, 30, 10, false},  // reaches end
        {MRC_OP_WRITE_MIDDLE, 25, 30, 10, false},  // past end
        {MRC_OP_WRITE_LAST, 20, 30, 10, true},
        {MRC_OP_WRITE_LAST_IMM, 20, 30, 10, true},
        {MRC_OP_WRITE_LAST, 19, 30, 10, false},
        {MRC_OP_WRITE_LAST, 0, 10, 10, false},  // at start
        {MRC_OP_WRITE_LAST, 31, 30, 0, false},  // va past dma_len
        {MRC_OP_WRITE_LAST, 0xffffffffull, 0xffffffffu, 0, true},
        {MRC_OP_WRITE_LAST, 0xfffffff0ull, 0xffffffffu, 16, false},
        {MRC_OP_WRITE_MIDDLE, 0xffffffff00000000ull, 0xffffffffu, 1, false},
    };
    for (auto& c : t) {
        Bytes pl(c.plen, 0xab);
        mrc_pkt p = data_pkt(c.op, c.va, c.dma_len, pl), d;
        u8 hdr[64];
        int r = mrc_pkt_encode_hdr(&p, hdr, sizeof(hdr));
        std::string what = std::string(mrc_opcode_name(c.op)) + " va " + std::to_string(c.va) +
                           " len " + std::to_string(c.dma_len) + " plen " + std::to_string(c.plen);

        EXPECT_EQ(r, c.ok ? 32 + (mrc_op_has_imm(c.op) ? 4 : 0) : MRC_WIRE_ERETH) << what;
        // build the same packet bypassing the checks: header by header,
        // RETH by hand (its encoder refuses va > dma_len)
        Bytes b(64 + c.plen);
        u32 off = 0;
        ASSERT_EQ(mrc_bth_encode(&p.bth, b.data(), 64), 12);
        off = 12;
        off += mrc_meth_encode(&p.meth, b.data() + off, 64);
        for (int i = 0; i < 8; i++) b[off + i] = static_cast<u8>(c.va >> (56 - 8 * i));
        b[off + 11] = 0x99;  // rkey
        for (int i = 0; i < 4; i++) b[off + 12 + i] = static_cast<u8>(c.dma_len >> (24 - 8 * i));
        off += 16;
        if (mrc_op_has_imm(c.op)) off += mrc_imm_encode(p.imm, b.data() + off, 64);
        std::memset(b.data() + off, 0xab, c.plen);
        off += c.plen;
        b.resize(off + 4);
        put_icrc(b);
        EXPECT_EQ(decode(b, &d), c.ok ? 0 : MRC_WIRE_ERETH) << what;
    }
}

TEST(WirePkt, Trimmed) {
    static const Bytes pl(100, 0x5a);
    Bytes full = encode(data_pkt(MRC_OP_WRITE_MIDDLE, 100, 1000, pl, true));
    mrc_pkt d;
    size_t hdr = 36;

    // the fabric cut everything after the headers (ICRC included)
    Bytes cut = prefix(full, hdr);
    EXPECT_EQ(decode(cut, &d), MRC_WIRE_ETRUNC);
    ASSERT_EQ(decode(cut, &d, MRC_DECODE_TRIMMED), 0);
    EXPECT_TRUE(d.trimmed);
    EXPECT_EQ(d.payload, nullptr);
    EXPECT_EQ(d.payload_len, 0u);
    EXPECT_EQ(d.bth.psn, 0x123u);
    EXPECT_EQ(d.reth.va, 100u);
    EXPECT_EQ(d.tseth.tx_ts, 0x77);
    // remnants after the headers are ignored
    ASSERT_EQ(decode(prefix(full, hdr + 17), &d, MRC_DECODE_TRIMMED), 0);
    EXPECT_EQ(d.payload_len, 0u);
    for (size_t n = 0; n < hdr; n++)
        EXPECT_EQ(decode(prefix(full, n), &d, MRC_DECODE_TRIMMED), MRC_WIRE_ETRUNC) << n;
    // header rules still apply
    Bytes bad = cut;
    bad[4] = 1;
    EXPECT_EQ(decode(bad, &d, MRC_DECODE_TRIMMED), MRC_WIRE_ERESV);
    bad = cut;
    bad[0] = MRC_OP_WRITE_FIRST;  // FIRST with va 100
    EXPECT_EQ(decode(bad, &d, MRC_DECODE_TRIMMED), MRC_WIRE_ERETH);
    // control packets ignore the flag: still fully verified
    Bytes s = encode(ctl_pkt(MRC_OP_SACK));
    EXPECT_EQ(decode(s, &d, MRC_DECODE_TRIMMED), 0);
    EXPECT_FALSE(d.trimmed);
    s.back() ^= 1;
    EXPECT_EQ(decode(s, &d, MRC_DECODE_TRIMMED), MRC_WIRE_EICRC);
    EXPECT_EQ(decode(prefix(s, s.size() - 1), &d, MRC_DECODE_TRIMMED), MRC_WIRE_ETRUNC);
}

TEST(WirePkt, NoIcrcFlagAndArgs) {
    Bytes b = encode(ctl_pkt(MRC_OP_NACK));
    mrc_pkt d;

    b.back() ^= 0xff;
    EXPECT_EQ(decode(b, &d), MRC_WIRE_EICRC);
    EXPECT_EQ(decode(b, &d, MRC_DECODE_NO_ICRC), 0);
    EXPECT_EQ(d.nack.reason, MRC_NACK_PSN_OOR_WINDOW);
    EXPECT_EQ(decode(prefix(b, b.size() - 1), &d, MRC_DECODE_NO_ICRC), MRC_WIRE_ETRUNC);
    EXPECT_EQ(decode(b, &d, 0x8), MRC_WIRE_EINVAL);
    EXPECT_EQ(mrc_pkt_decode(b.data(), static_cast<u32>(b.size()), nullptr), MRC_WIRE_EINVAL);
    EXPECT_EQ(mrc_pkt_decode(nullptr, 5, &d), MRC_WIRE_EINVAL);
    EXPECT_EQ(mrc_pkt_decode(nullptr, 0, &d), MRC_WIRE_ETRUNC);
}

// MRC_DECODE_HDR_ONLY: a host whose payload lies in skb frags hands over
// the headers only; the decoder must not read the pad or the ICRC.
TEST(WirePkt, HeaderOnlyDecode) {
    Bytes pl(61, 0x5a);
    mrc_pkt p = data_pkt(MRC_OP_WRITE_ONLY, 0, 61, pl);
    p.bth.pad_cnt = 3;
    Bytes b = encode(p);
    mrc_pkt full, hdr;

    ASSERT_EQ(decode(b, &full), 0);
    ASSERT_EQ(full.bth.pad_cnt, 3);
    const u32 hlen = mrc_pkt_hdr_len(&full);
    // Bad pad and ICRC: only a header-only decode accepts them (the host
    // checks both), and it reads nothing past the headers.
    Bytes bad = b;
    bad[hlen + 61] = 1;
    bad.back() ^= 0xff;
    EXPECT_EQ(decode(bad, &hdr, MRC_DECODE_NO_ICRC), MRC_WIRE_EPAD);
    std::vector<u8> only(b.begin(), b.begin() + hlen);
    ASSERT_EQ(
        mrc_pkt_decode_flags(only.data(), static_cast<u32>(b.size()), MRC_DECODE_HDR_ONLY, &hdr),
        0);
    EXPECT_EQ(hdr.payload_len, 61u);
    EXPECT_EQ(hdr.payload - only.data(), static_cast<long>(hlen));
    EXPECT_EQ(hdr.bth.psn, full.bth.psn);
    EXPECT_EQ(hdr.reth.dma_len, full.reth.dma_len);
    // Control packets are still decoded (and their ICRC skipped) whole.
    Bytes s = encode(ctl_pkt(MRC_OP_SACK));
    s.back() ^= 1;
    EXPECT_EQ(decode(s, &hdr, MRC_DECODE_HDR_ONLY), 0);
}

// mrc_icrc_bth() + mrc_icrc_update() over pieces equal the ICRC of the
// contiguous packet (the kernel computes it over skb frags this way).
TEST(WirePkt, IcrcInPieces) {
    Bytes pl(1000);
    for (size_t i = 0; i < pl.size(); i++) pl[i] = static_cast<u8>(i * 7);
    Bytes b = encode(data_pkt(MRC_OP_WRITE_MIDDLE, 1000, 4000, pl));
    const u32 len = static_cast<u32>(b.size()) - MRC_ICRC_LEN;
    mrc_icrc_ip6 ip{};
    ip.saddr[15] = 1;
    ip.daddr[15] = 2;
    ip.sport = 49152;
    ip.dport = MRC_UDP_PORT;
    u32 st = mrc_icrc_bth(mrc_icrc_seed(&ip, len + MRC_ICRC_LEN), b.data());
    st = mrc_icrc_update(st, b.data() + MRC_BTH_LEN, 100);
    st = mrc_icrc_update(st, b.data() + MRC_BTH_LEN + 100, len - MRC_BTH_LEN - 100);
    EXPECT_EQ(~st, mrc_icrc(&ip, b.data(), len));
}

TEST(WirePkt, UnknownOpcode) {
    Bytes b = encode(ctl_pkt(MRC_OP_PROBE));
    mrc_pkt d;

    for (int op = 0; op < 256; op++) {
        if (mrc_op_valid(static_cast<u8>(op))) continue;
        Bytes c = b;
        c[0] = static_cast<u8>(op);
        put_icrc(c);
        EXPECT_EQ(decode(c, &d), MRC_WIRE_EOPCODE) << op;
    }
    mrc_pkt p = ctl_pkt(MRC_OP_PROBE);
    u8 buf[64];
    p.bth.opcode = 0xdf;
    EXPECT_EQ(mrc_pkt_encode_hdr(&p, buf, sizeof(buf)), MRC_WIRE_EOPCODE);
}

TEST(WirePkt, EncodeCapacity) {
    static const Bytes pl(33, 1);
    for (mrc_pkt p : {data_pkt(MRC_OP_WRITE_ONLY_IMM, 0, 33, pl, true), ctl_pkt(MRC_OP_SACK),
                      ctl_pkt(MRC_OP_ACK)}) {
        Bytes ref = encode(p);
        for (u32 cap = 0; cap < ref.size(); cap++) {
            Bytes buf(cap);
            EXPECT_EQ(mrc_pkt_encode(&p, buf.data(), cap), MRC_WIRE_ENOSPC) << cap;
        }
        Bytes buf(ref.size());
        EXPECT_EQ(mrc_pkt_encode(&p, buf.data(), static_cast<u32>(buf.size())),
                  static_cast<int>(ref.size()));
        EXPECT_EQ(buf, ref);
    }
    u8 one[3] = {};
    u8 twelve[12] = {};
    EXPECT_EQ(mrc_pkt_finish(nullptr, twelve, 12, 12), MRC_WIRE_ENOSPC);
    EXPECT_EQ(mrc_pkt_finish(nullptr, one, 0, 3), MRC_WIRE_EINVAL);  // no BTH
    EXPECT_EQ(mrc_pkt_finish(nullptr, one, 0xfffffffcu, 0xffffffffu), MRC_WIRE_ERANGE);
    EXPECT_EQ(mrc_pkt_finish(nullptr, one, 0xffff - 8 - 3, 0xffffffffu), MRC_WIRE_ERANGE);
    mrc_pkt p = data_pkt(MRC_OP_WRITE_ONLY, 0, 5, {});
    p.payload_len = 5;  // no payload pointer
    p.payload = nullptr;
    u8 buf[64];
    EXPECT_EQ(mrc_pkt_encode(&p, buf, sizeof(buf)), MRC_WIRE_EINVAL);
}

TEST(WirePkt, EncodeInPlacePayloadAndSplitFinish) {
    u8 buf[128] = {};
    mrc_pkt p = data_pkt(MRC_OP_WRITE_LAST, 4, 10, {});

    // encode_hdr needs payload_len (RETH rules), never the payload itself
    p.payload_len = 6;
    ASSERT_EQ(mrc_pkt_encode_hdr(&p, buf, sizeof(buf)), 32);
    std::memcpy(buf + 32, "abcdef", 6);
    p.payload = buf + 32;
    Bytes ref = encode(p);
    ASSERT_EQ(mrc_pkt_encode(&p, buf, sizeof(buf)), 42);
    EXPECT_EQ(Bytes(buf, buf + 42), ref);
    // encode_hdr + append + finish is the same as encode
    u8 b2[128] = {};
    ASSERT_EQ(mrc_pkt_encode_hdr(&p, b2, sizeof(b2)), 32);
    std::memcpy(b2 + 32, "abcdef", 6);
    ASSERT_EQ(mrc_pkt_finish(nullptr, b2, 38, sizeof(b2)), 42);
    EXPECT_EQ(Bytes(b2, b2 + 42), ref);
}

// Random garbage: never crashes, and whatever decodes re-encodes to itself.
TEST(WirePkt, RandomInputCanonical) {
    std::mt19937 rng(12345);
    std::vector<Bytes> seeds = sample_packets();
    int ok = 0;

    for (int iter = 0; iter < 20000; iter++) {
        Bytes b = seeds[rng() % seeds.size()];
        int flips = 1 + static_cast<int>(rng() % 3);
        for (int i = 0; i < flips; i++) b[rng() % b.size()] ^= static_cast<u8>(1u << (rng() % 8));
        if (rng() % 4 == 0) b.resize(rng() % (b.size() + 1));
        if (b.size() >= 4 && rng() % 2) put_icrc(b);
        mrc_pkt d;
        if (decode(b, &d) == 0) {
            ok++;
            EXPECT_EQ(encode(d), b);
        }
    }
    EXPECT_GT(ok, 100);
}

// ---- PSN arithmetic ----

TEST(WirePsn, Wrap) {
    EXPECT_EQ(mrc_psn_add(0xffffff, 1), 0u);
    EXPECT_EQ(mrc_psn_add(0xfffffe, 5), 3u);
    EXPECT_EQ(mrc_psn_add(0, static_cast<u32>(-1)), 0xffffffu);
    EXPECT_EQ(mrc_psn_add(5, static_cast<u32>(-7)), 0xfffffeu);
    EXPECT_EQ(mrc_psn_add(0x123456, 0x1000000), 0x123456u);

    EXPECT_EQ(mrc_psn_diff(0, 0xffffff), 1);
    EXPECT_EQ(mrc_psn_diff(0xffffff, 0), -1);
    EXPECT_EQ(mrc_psn_diff(0x7fffff, 0), 0x7fffff);
    EXPECT_EQ(mrc_psn_diff(0x800000, 0), -0x800000);
    EXPECT_EQ(mrc_psn_diff(0, 0x800000), -0x800000);
    EXPECT_EQ(mrc_psn_diff(0x800001, 1), -0x800000);
    EXPECT_EQ(mrc_psn_diff(0x3, 0xfffffd), 6);
    EXPECT_EQ(mrc_psn_diff(42, 42), 0);

    EXPECT_TRUE(mrc_psn_before(0xffffff, 0));
    EXPECT_TRUE(mrc_psn_after(0, 0xffffff));
    EXPECT_FALSE(mrc_psn_before(7, 7));
    EXPECT_FALSE(mrc_psn_after(7, 7));
    EXPECT_TRUE(mrc_psn_after(0x7fffff, 0));
    EXPECT_TRUE(mrc_psn_before(0x800000, 0));  // exactly half: "before"

    std::mt19937 rng(7);
    for (int i = 0; i < 100000; i++) {
        u32 a = rng() & MRC_PSN_MASK;
        s32 d = static_cast<s32>(rng() % 0x1000000) - 0x800000;
        u32 b = mrc_psn_add(a, static_cast<u32>(d));
        ASSERT_EQ(mrc_psn_diff(b, a), d) << a << " " << d;
        ASSERT_EQ(mrc_psn_after(b, a), d > 0);
        ASSERT_EQ(mrc_psn_before(b, a), d < 0);
    }
}

TEST(WirePsn, Msn) {
    EXPECT_EQ(mrc_msn_diff(0, 0xffff), 1);
    EXPECT_EQ(mrc_msn_diff(0xffff, 0), -1);
    EXPECT_EQ(mrc_msn_diff(0x7fff, 0), 0x7fff);
    EXPECT_EQ(mrc_msn_diff(0x8000, 0), -0x8000);
}

// ---- EV on the wire ----

TEST(WireEv, Mapping) {
    EXPECT_EQ(mrc_ev_to_udp_sport(0x89abcdef), 0xcdef);
    EXPECT_EQ(mrc_ev_to_flowlabel(0x89abcdef), 0x89abu);
    EXPECT_EQ(mrc_ev_from_wire(0xcdef, 0x89ab), 0x89abcdefu);
    // the top 4 bits of the 20-bit flow label are not part of the EV
    EXPECT_EQ(mrc_ev_from_wire(0xcdef, 0xf89ab), 0x89abcdefu);
    EXPECT_LE(mrc_ev_to_flowlabel(0xffffffff), 0xfffffu);
    std::mt19937 rng(3);
    for (int i = 0; i < 10000; i++) {
        u32 ev = rng();
        EXPECT_EQ(mrc_ev_from_wire(mrc_ev_to_udp_sport(ev), mrc_ev_to_flowlabel(ev)), ev);
    }
}

}  // namespace
