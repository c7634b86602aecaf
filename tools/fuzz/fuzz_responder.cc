// SPDX-License-Identifier: GPL-2.0 OR MIT
//
// libFuzzer target: arbitrary packet sequences into one connection, the way
// a hostile or broken peer would send them.
//
// The engine is driven exactly as a host drives it (decode with the codec,
// mrc_conn_rx(), then drain poll_tx and poll_event, honour next_deadline),
// and the host's view of placement is emulated so that the engine's
// instructions can be checked, not just survived.
//
// Input layout:
//   byte 0..3   set-up: initial PSN low bits, planes, messages to queue on
//               the requester side (so SACK/NACK/probe handling has data in
//               flight), rx_max_msg_len selector
//   then records, at most kMaxRecords:
//     u8 type | u8 dt (virtual time advance, 256 ns units, 0 = same instant)
//     type % 6 == 0: raw packet   u8 flags | u16 len | len bytes
//                    flags bit0 MRC_DECODE_TRIMMED, bit1 MRC_DECODE_NO_ICRC
//                    (so the fuzzer reaches past the ICRC), bit2 CE,
//                    bit3 LASTHOP; u32 ev
//     type % 6 == 1: structured data packet (valid encoding, PSN near the
//                    expected one, fields from the input)
//     type % 6 == 2: structured SACK
//     type % 6 == 3: structured NACK
//     type % 6 == 4: structured probe
//     type % 6 == 5: timer: fire on_timer at the deadline if one is set
//
// Invariants (abort() on violation, on top of ASan/UBSan):
//  - every packet the engine emits encodes, decodes back, names a plane that
//    matches its EV, and a DATA descriptor's range lies inside the message;
//  - a PLACE verdict is only given for an untrimmed data packet, inside a
//    buffer the host set up on PLACE_NEW, within the message length and
//    rx_max_msg_len; PLACE_NEW is only for a message without a buffer;
//  - deliveries come in consecutive MSN order, with the length the packets
//    announced; completions only for messages we queued, in order;
//  - after on_timer(now) and draining, next_deadline() > now;
//  - the connection never reports more delivered messages than it received
//    data packets for, and once failed it stays failed.
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <map>
#include <vector>

extern "C" {
#include "mrc_engine.h"
#include "mrc_wire.h"
}

namespace {

constexpr unsigned kMaxRecords = 256;
constexpr u32 kMtu = 256;

struct Reader {
    const uint8_t* p;
    size_t n;
    size_t off = 0;
    bool ok() const { return off < n; }
    uint8_t u8() { return off < n ? p[off++] : 0; }
    uint16_t u16() { return static_cast<uint16_t>(u8() | (u8() << 8)); }
    uint32_t u32() { return static_cast<uint32_t>(u16() | (static_cast<uint32_t>(u16()) << 16)); }
    uint64_t u64() { return u32() | (static_cast<uint64_t>(u32()) << 32); }
};

#define CHECK(c)           \
    do {                   \
        if (!(c)) abort(); \
    } while (0)

struct Host {
    mrc_conn* c = nullptr;
    u64 now = 1000;
    u8 planes = 1;
    u32 rx_max = 0;
    // Emulated placement buffers: msn -> message length.
    std::map<u16, u32> bufs;
    bool have_delivered = false;
    u16 next_deliver_msn = 0;
    u64 queued = 0;
    u64 completed = 0;
    bool failed = false;
    std::vector<u8> out = std::vector<u8>(MRC_DATA_HDR_MAX + 65536 + 8);
    std::vector<u8> payload = std::vector<u8>(65536);
    std::vector<u32> msg_len;  // by cookie - 1

    void drain() {
        for (int guard = 0; guard < 100000; guard++) {
            mrc_tx_desc d;
            memset(&d, 0, sizeof(d));
            if (mrc_conn_poll_tx(c, now, &d) != MRC_OK) break;
            CHECK(d.plane == mrc_ev_plane(d.ev));
            CHECK(d.plane < planes);
            if (d.kind == MRC_TX_DATA) {
                CHECK(d.cookie >= 1 && d.cookie <= msg_len.size());
                CHECK(static_cast<u64>(d.msg_offset) + d.payload_len <= msg_len[d.cookie - 1]);
                CHECK(d.payload_len <= kMtu);
                d.pkt.payload = payload.data();
                d.pkt.payload_len = d.payload_len;
            } else {
                CHECK(d.kind == MRC_TX_SACK || d.kind == MRC_TX_NACK || d.kind == MRC_TX_PROBE);
            }
            int n = mrc_pkt_encode(&d.pkt, out.data(), static_cast<u32>(out.size()));
            CHECK(n > 0);
            mrc_pkt back;
            CHECK(mrc_pkt_decode(out.data(), static_cast<u32>(n), &back) == MRC_WIRE_OK);
            CHECK(back.bth.opcode == d.pkt.bth.opcode && back.bth.psn == d.pkt.bth.psn);
        }
        for (int guard = 0; guard < 100000; guard++) {
            mrc_event ev;
            memset(&ev, 0, sizeof(ev));
            if (mrc_conn_poll_event(c, &ev) != MRC_OK) break;
            CHECK(ev.type > MRC_EVT_NONE && ev.type < MRC_EVT_NR);
            switch (ev.type) {
                case MRC_EVT_MSG_DELIVERED: {
                    if (have_delivered) CHECK(ev.u.msg.msn == static_cast<u16>(next_deliver_msn));
                    have_delivered = true;
                    next_deliver_msn = static_cast<u16>(ev.u.msg.msn + 1);
                    auto it = bufs.find(ev.u.msg.msn);
                    if (it != bufs.end()) {
                        CHECK(it->second == ev.u.msg.len);
                        bufs.erase(it);
                    } else {
                        CHECK(ev.u.msg.len == 0);
                    }
                    CHECK(ev.u.msg.len <= rx_max);
                    break;
                }
                case MRC_EVT_MSG_COMPLETED:
                    CHECK(ev.u.msg.cookie == completed + 1);
                    CHECK(completed < queued);
                    completed++;
                    break;
                case MRC_EVT_EV_STATE:
                    CHECK(ev.u.ev.plane < planes);
                    CHECK(ev.u.ev.new_state <= MRC_EV_DENIED);
                    break;
                case MRC_EVT_CONN_ERROR:
                    failed = true;
                    break;
                default:
                    break;
            }
        }
        if (failed) CHECK(mrc_conn_failed(c));
    }

    void rx(const mrc_pkt& p, u32 ev, u32 flags) {
        const int v = mrc_conn_rx(c, now, &p, ev, flags);
        if (v == MRC_RX_PLACE || v == MRC_RX_PLACE_NEW) {
            CHECK(mrc_op_is_data(p.bth.opcode));
            CHECK(!p.trimmed && !(flags & MRC_RXF_TRIMMED));
            CHECK(p.reth.dma_len <= rx_max);
            CHECK(static_cast<u64>(p.reth.va) + p.payload_len <= p.reth.dma_len);
            auto it = bufs.find(p.meth.msn);
            if (v == MRC_RX_PLACE_NEW) {
                CHECK(it == bufs.end());
                bufs[p.meth.msn] = p.reth.dma_len;
            } else {
                CHECK(it != bufs.end());
                CHECK(it->second == p.reth.dma_len);
            }
            // The host never holds more buffers than messages in progress.
            CHECK(bufs.size() <= MRC_MSGS_MAX);
        } else {
            CHECK(v == MRC_RX_CONSUMED || v < 0);
        }
        drain();
    }
};

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
    if (size < 4 || size > 1 << 16) return 0;
    Reader r{data, size};
    Host h;
    const u32 init_psn_sel = r.u8();
    const u8 setup = r.u8();
    const u8 nmsgs = r.u8() % 8;
    const u8 lensel = r.u8();

    mrc_conn_cfg cfg;
    h.planes = static_cast<u8>(1 + (setup & 3));
    mrc_conn_cfg_init(&cfg, h.planes);
    cfg.local_conn_id = 0x22;
    cfg.peer_conn_id = 0x11;
    cfg.peer_qpn = 0x77;
    cfg.mtu = kMtu;
    cfg.ev_per_plane = static_cast<u16>(2 + ((setup >> 2) & 7));
    cfg.ev_active_per_plane = static_cast<u16>(1 + ((setup >> 5) & 1));
    cfg.ev_min_active = 1;
    cfg.paths_per_plane = (setup & 0x80) ? 4 : 0;
    // PSNs just below the wrap half of the time: exercises 2^24 arithmetic.
    const u32 base = (init_psn_sel & 1) ? (MRC_PSN_MASK - 40u) : 100u;
    cfg.peer_init_psn = (base + (init_psn_sel >> 1)) & MRC_PSN_MASK;
    cfg.local_init_psn = (MRC_PSN_MASK - 10u + init_psn_sel) & MRC_PSN_MASK;
    cfg.rx_max_msg_len = 1u + (static_cast<u32>(lensel) << 6);
    cfg.rx_max_msgs = 8;
    cfg.tx_max_msgs = 8;
    cfg.event_mask = MRC_EVT_MASK_ALL;
    cfg.seed = setup;
    h.rx_max = cfg.rx_max_msg_len;
    if (mrc_conn_cfg_check(&cfg) != MRC_OK) return 0;
    if (mrc_conn_create(&cfg, h.now, &h.c) != MRC_OK || !h.c) return 0;

    for (u8 i = 0; i < nmsgs; i++) {
        const u32 len = 1u + i * 300u;
        u16 msn = 0;
        if (mrc_conn_send(h.c, h.now, len, i, 0, i + 1u, &msn) == MRC_OK) {
            h.msg_len.push_back(len);
            h.queued++;
        }
    }
    h.drain();

    u32 expect_psn = cfg.peer_init_psn;
    u16 expect_msn = 0;
    std::vector<u8> pktbuf;
    std::vector<u8> pl(kMtu * 4);
    for (size_t i = 0; i < pl.size(); i++) pl[i] = static_cast<u8>(i * 7);

    for (unsigned rec = 0; rec < kMaxRecords && r.ok(); rec++) {
        const u8 type = r.u8();
        h.now += static_cast<u64>(r.u8()) * 256;
        const bool was_failed = mrc_conn_failed(h.c);
        switch (type % 6) {
            case 0: {  // raw bytes
                const u8 fl = r.u8();
                u32 len = r.u16() % 2048;
                const u32 ev = r.u32();
                len = static_cast<u32>(std::min<size_t>(len, r.n - r.off));
                pktbuf.assign(r.p + r.off, r.p + r.off + len);
                r.off += len;
                mrc_pkt p;
                const u32 dfl = fl & (MRC_DECODE_TRIMMED | MRC_DECODE_NO_ICRC);
                if (mrc_pkt_decode_flags(pktbuf.data(), len, dfl, &p) != MRC_WIRE_OK) break;
                u32 rxf = 0;
                if (fl & 4) rxf |= MRC_RXF_ECN_CE;
                if (p.trimmed) rxf |= MRC_RXF_TRIMMED;
                if (fl & 8) rxf |= MRC_RXF_LASTHOP;
                h.rx(p, ev, rxf);
                break;
            }
            case 1: {  // structured data packet
                mrc_pkt p;
                memset(&p, 0, sizeof(p));
                const u8 f = r.u8();
                const s32 dpsn = static_cast<s8>(r.u8());
                const u16 dmsn = r.u8() % 4;
                const u32 dma_len = r.u16() % (kMtu * 4 + 1);
                const u32 va = dma_len ? (r.u16() % dma_len) : 0;
                u32 plen = r.u16() % (kMtu + 1);
                const u32 ev = r.u32();
                bool first = va == 0;
                plen = std::min(plen, dma_len - va);
                bool last = va + plen == dma_len;
                u8 op;
                if (first && last)
                    op = (f & 1) ? MRC_OP_WRITE_ONLY_IMM : MRC_OP_WRITE_ONLY;
                else if (first)
                    op = MRC_OP_WRITE_FIRST;
                else if (last)
                    op = (f & 1) ? MRC_OP_WRITE_LAST_IMM : MRC_OP_WRITE_LAST;
                else
                    op = MRC_OP_WRITE_MIDDLE;
                p.bth.opcode = op;
                p.bth.pkey = MRC_PKEY_DEFAULT;
                p.bth.dest_qp = (f & 2) ? 0x123 : 0;
                p.bth.ack_req = f & 4;
                p.bth.rtx = f & 8;
                p.bth.ts = f & 16;
                p.bth.psn = mrc_psn_add(expect_psn, static_cast<u32>(dpsn));
                p.bth.pad_cnt = mrc_pad_for(plen);
                p.meth.msn = static_cast<u16>(expect_msn + dmsn);
                p.tseth.tx_ts = static_cast<u16>(h.now >> 7);
                p.reth.va = va;
                p.reth.dma_len = dma_len;
                p.imm = 0xabcd;
                p.payload = pl.data();
                p.payload_len = plen;
                pktbuf.resize(MRC_DATA_HDR_MAX + plen + 8);
                const int n = mrc_pkt_encode(&p, pktbuf.data(), static_cast<u32>(pktbuf.size()));
                if (n < 0) break;
                mrc_pkt d;
                const bool trim = f & 32;
                if (mrc_pkt_decode_flags(pktbuf.data(),
                                         trim ? mrc_pkt_hdr_len(&p) : static_cast<u32>(n),
                                         trim ? MRC_DECODE_TRIMMED : 0, &d) != MRC_WIRE_OK)
                    abort();  // the codec must accept what it encoded
                u32 rxf = (f & 64) ? MRC_RXF_ECN_CE : 0;
                if (trim) rxf |= MRC_RXF_TRIMMED | ((f & 128) ? MRC_RXF_LASTHOP : 0);
                h.rx(d, ev, rxf);
                // Mostly walk forward like a real sender.
                if (dpsn == 0) expect_psn = mrc_psn_add(expect_psn, 1);
                if (last && dmsn == 0) expect_msn++;
                break;
            }
            case 2:
            case 3:
            case 4: {  // structured control packet
                mrc_pkt p;
                memset(&p, 0, sizeof(p));
                p.bth.pkey = MRC_PKEY_DEFAULT;
                p.bth.dest_qp = 0x22;
                const u32 ev = r.u32();
                const u32 psn =
                    mrc_psn_add(cfg.local_init_psn, static_cast<u32>(static_cast<s8>(r.u8())));
                if (type % 6 == 2) {
                    p.bth.opcode = MRC_OP_SACK;
                    p.sack.ecn = r.u8() % 3;
                    p.sack.pr = r.u8() & 1;
                    p.sack.ack_psn_off = static_cast<s16>(r.u16());
                    p.sack.ev = r.u8() & 1 ? ev : r.u32();
                    p.sack.src_conn = 0x11;
                    p.sack.dst_conn = r.u8() & 1 ? 0x22 : r.u16();
                    p.sack.cack_psn = psn;
                    p.sack.cc_type = r.u8() & 15;
                    p.sack.cc_flags = r.u8() & 15;
                    p.sack.mpr = r.u8();
                    p.sack.sack_offset = static_cast<s16>(r.u16());
                    p.sack.bitmap = r.u64();
                    p.sack.cc.echoed_ts = r.u16();
                    p.sack.cc.ooo_count = r.u16() & 0x7fff;
                    p.sack.cc.restore_cwnd = r.u8() & 1;
                    p.sack.cc.rwnd_penalty = r.u8() & 127;
                    p.sack.cc.bytes_rcvd = r.u32() & 0xffffff;
                } else if (type % 6 == 3) {
                    p.bth.opcode = MRC_OP_NACK;
                    static const u8 reasons[] = {MRC_NACK_TRIMMED,     MRC_NACK_TRIMMED_LASTHOP,
                                                 MRC_NACK_NO_BITMAP,   MRC_NACK_NO_PKT_BUFFER,
                                                 MRC_NACK_NO_RESOURCE, MRC_NACK_PSN_OOR_WINDOW,
                                                 MRC_NACK_UNEXP_EVENT};
                    p.nack.reason = reasons[r.u8() % 7];
                    p.nack.vendor = r.u8();
                    p.nack.tx_ts = r.u16();
                    p.nack.ev = r.u8() & 1 ? ev : r.u32();
                    p.nack.src_conn = 0x11;
                    p.nack.dst_conn = 0x22;
                    p.nack.nack_psn = psn;
                    p.nack.cc_type = r.u8() & 15;
                } else {
                    p.bth.opcode = MRC_OP_PROBE;
                    p.bth.psn = 0;  // reserved in a probe
                    p.probe.probe_id = r.u16();
                    p.probe.src_conn = 0x11;
                    p.probe.dst_conn = 0x22;
                    p.probe.tx_ts = r.u16();
                }
                pktbuf.resize(64);
                const int n = mrc_pkt_encode(&p, pktbuf.data(), static_cast<u32>(pktbuf.size()));
                if (n < 0) break;
                mrc_pkt d;
                if (mrc_pkt_decode(pktbuf.data(), static_cast<u32>(n), &d) != MRC_WIRE_OK) abort();
                h.rx(d, ev, 0);
                break;
            }
            default: {  // timer
                const u64 dl = mrc_conn_next_deadline(h.c);
                if (dl == MRC_NO_DEADLINE) break;
                if (dl > h.now) h.now = dl;
                mrc_conn_on_timer(h.c, h.now);
                h.drain();
                CHECK(mrc_conn_next_deadline(h.c) > h.now);
                break;
            }
        }
        if (was_failed) CHECK(mrc_conn_failed(h.c));
        mrc_conn_stats st;
        mrc_conn_get_stats(h.c, &st);
        CHECK(st.rx_msgs_delivered <= st.rx_data_pkts);
        CHECK(st.tx_msgs_completed <= h.queued);
        CHECK(h.bufs.size() <= cfg.rx_max_msgs);
    }
    mrc_conn_destroy(h.c);
    return 0;
}
