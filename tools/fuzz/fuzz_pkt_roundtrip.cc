// SPDX-License-Identifier: GPL-2.0 OR MIT
//
// libFuzzer target: encoder/decoder agreement, structure-aware.
//
// The input fills a struct mrc_pkt field by field (any values, in or out of
// range). Whatever mrc_pkt_encode() accepts, mrc_pkt_decode() must accept
// and give back field for field; whatever the encoder refuses must not
// have written past its capacity. The headers alone must also decode with
// MRC_DECODE_TRIMMED.
#include <fuzzer/FuzzedDataProvider.h>

#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <vector>

extern "C" {
#include "mrc_wire.h"
}

namespace {

const u8 kOps[] = {
    MRC_OP_WRITE_FIRST, MRC_OP_WRITE_MIDDLE,   MRC_OP_WRITE_LAST, MRC_OP_WRITE_LAST_IMM,
    MRC_OP_WRITE_ONLY,  MRC_OP_WRITE_ONLY_IMM, MRC_OP_ACK,        MRC_OP_EP_REQ,
    MRC_OP_EP_RESP,     MRC_OP_SACK,           MRC_OP_NACK,       MRC_OP_PROBE};

#define REQ(x)             \
    do {                   \
        if (!(x)) abort(); \
    } while (0)

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
    FuzzedDataProvider fdp(data, size);
    mrc_pkt p;

    std::memset(&p, 0, sizeof(p));
    // mostly valid opcodes, sometimes anything
    p.bth.opcode = fdp.ConsumeBool() ? fdp.ConsumeIntegral<u8>() : fdp.PickValueInArray(kOps);
    p.bth.se = fdp.ConsumeBool();
    p.bth.m = fdp.ConsumeBool();
    p.bth.pad_cnt = fdp.ConsumeIntegralInRange<u8>(0, 4);
    p.bth.tver = fdp.ConsumeIntegralInRange<u8>(0, 1);
    p.bth.pkey = fdp.ConsumeIntegral<u16>();
    p.bth.dest_qp = fdp.ConsumeIntegralInRange<u32>(0, 0x1000000);
    p.bth.ack_req = fdp.ConsumeBool();
    p.bth.rtx = fdp.ConsumeBool();
    p.bth.ts = fdp.ConsumeBool();
    p.bth.psn = fdp.ConsumeIntegralInRange<u32>(0, 0x1000000);
    p.meth.rqmsn = fdp.ConsumeIntegral<u16>();
    p.meth.msn = fdp.ConsumeIntegral<u16>();
    p.tseth.tx_ts = fdp.ConsumeIntegral<u16>();
    p.tseth.tsr = fdp.ConsumeBool();
    p.tseth.ftype = fdp.ConsumeIntegralInRange<u8>(0, 16);
    p.reth.dma_len = fdp.ConsumeIntegralInRange<u32>(0, 4096);
    p.reth.va = fdp.ConsumeIntegralInRange<u64>(0, p.reth.dma_len + 1ull);
    p.reth.rkey = fdp.ConsumeIntegral<u32>();
    p.imm = fdp.ConsumeIntegral<u32>();
    switch (p.bth.opcode) {
        case MRC_OP_ACK:
            p.aeth.syndrome = fdp.ConsumeIntegral<u8>();
            p.aeth.msn = fdp.ConsumeIntegralInRange<u32>(0, 0x1000000);
            break;
        case MRC_OP_SACK:
            p.sack.ecn = fdp.ConsumeIntegralInRange<u8>(0, 3);
            p.sack.pr = fdp.ConsumeBool();
            p.sack.ack_psn_off = fdp.ConsumeIntegral<s16>();
            p.sack.ev = fdp.ConsumeIntegral<u32>();
            p.sack.src_conn = fdp.ConsumeIntegral<u16>();
            p.sack.dst_conn = fdp.ConsumeIntegral<u16>();
            p.sack.cack_psn = fdp.ConsumeIntegralInRange<u32>(0, 0x1000000);
            p.sack.cc_type = fdp.ConsumeIntegralInRange<u8>(0, 16);
            p.sack.cc_flags = fdp.ConsumeIntegralInRange<u8>(0, 16);
            p.sack.mpr = fdp.ConsumeIntegral<u8>();
            p.sack.sack_offset = fdp.ConsumeIntegral<s16>();
            p.sack.bitmap = fdp.ConsumeIntegral<u64>();
            p.sack.cc.echoed_ts = fdp.ConsumeIntegral<u16>();
            p.sack.cc.ooo_count = fdp.ConsumeIntegralInRange<u16>(0, 0x8000);
            p.sack.cc.restore_cwnd = fdp.ConsumeBool();
            p.sack.cc.rwnd_penalty = fdp.ConsumeIntegralInRange<u8>(0, 128);
            p.sack.cc.bytes_rcvd = fdp.ConsumeIntegralInRange<u32>(0, 0x1000000);
            break;
        case MRC_OP_NACK:
            p.nack.reason = fdp.ConsumeIntegral<u8>();
            p.nack.vendor = fdp.ConsumeIntegral<u8>();
            p.nack.tx_ts = fdp.ConsumeIntegral<u16>();
            p.nack.ev = fdp.ConsumeIntegral<u32>();
            p.nack.src_conn = fdp.ConsumeIntegral<u16>();
            p.nack.dst_conn = fdp.ConsumeIntegral<u16>();
            p.nack.nack_psn = fdp.ConsumeIntegralInRange<u32>(0, 0x1000000);
            p.nack.cc_type = fdp.ConsumeIntegralInRange<u8>(0, 16);
            p.nack.cc_flags = fdp.ConsumeIntegralInRange<u8>(0, 16);
            break;
        case MRC_OP_PROBE:
            p.probe.probe_id = fdp.ConsumeIntegral<u16>();
            p.probe.src_conn = fdp.ConsumeIntegral<u16>();
            p.probe.dst_conn = fdp.ConsumeIntegral<u16>();
            p.probe.tx_ts = fdp.ConsumeIntegral<u16>();
            p.probe.vendor = fdp.ConsumeIntegral<u8>();
            p.probe.tsr = fdp.ConsumeBool();
            p.probe.ftype = fdp.ConsumeIntegralInRange<u8>(0, 16);
            break;
        case MRC_OP_EP_REQ:
        case MRC_OP_EP_RESP:
            p.ep.kind = fdp.PickValueInArray<u8>(
                {MRC_EP_PORT_STATUS, MRC_EP_EV_PROBE, MRC_EP_CONNECT, MRC_EP_CLOSE, 2, 0x12});
            p.ep.token = fdp.ConsumeIntegral<u16>();
            p.ep.port_mask = fdp.ConsumeBool() ? 0 : fdp.ConsumeIntegral<u32>();
            p.ep.tx_ts = fdp.ConsumeIntegral<u16>();
            p.ep.tsr = fdp.ConsumeBool() && fdp.ConsumeBool();
            p.ep.ftype = fdp.ConsumeIntegralInRange<u8>(0, 16);
            p.ep.conn.src_qpn = fdp.ConsumeIntegralInRange<u32>(0, 0x1000000);
            p.ep.conn.init_psn = fdp.ConsumeIntegralInRange<u32>(0, 0x1000000);
            p.ep.conn.status = fdp.ConsumeIntegralInRange<u8>(0, MRC_EP_ST_NR);
            break;
        default:
            break;
    }
    if (fdp.ConsumeBool()) p.bth.dest_qp = MRC_QPN_EP;
    std::vector<u8> payload = fdp.ConsumeRemainingBytes<u8>();
    if (mrc_op_is_data(p.bth.opcode) && payload.size() > p.reth.dma_len - p.reth.va &&
        p.reth.va <= p.reth.dma_len)
        payload.resize(static_cast<size_t>(p.reth.dma_len - p.reth.va));
    p.payload = payload.data();
    p.payload_len = static_cast<u32>(payload.size());

    const u32 cap = MRC_DATA_HDR_MAX + MRC_SACK_LEN + 8192;
    std::vector<u8> buf(cap);
    int n = mrc_pkt_encode(&p, buf.data(), cap);
    if (n < 0) return 0;
    REQ(static_cast<u32>(n) == mrc_pkt_hdr_len(&p) + p.payload_len + p.bth.pad_cnt + MRC_ICRC_LEN);
    buf.resize(static_cast<size_t>(n));

    mrc_pkt d;
    REQ(mrc_pkt_decode(buf.data(), static_cast<u32>(n), &d) == 0);
    REQ(d.bth.opcode == p.bth.opcode && d.bth.se == p.bth.se && d.bth.m == p.bth.m &&
        d.bth.pad_cnt == p.bth.pad_cnt && d.bth.tver == p.bth.tver && d.bth.pkey == p.bth.pkey &&
        d.bth.dest_qp == p.bth.dest_qp && d.bth.ack_req == p.bth.ack_req &&
        d.bth.rtx == p.bth.rtx && d.bth.ts == p.bth.ts);
    // an endpoint op's BTH.PSN is its token
    const bool ep = p.bth.opcode == MRC_OP_EP_REQ || p.bth.opcode == MRC_OP_EP_RESP;
    REQ(d.bth.psn == (ep ? p.ep.token : p.bth.psn));
    REQ(d.payload_len == p.payload_len);
    REQ(!p.payload_len || !std::memcmp(d.payload, p.payload, p.payload_len));
    if (mrc_op_is_data(p.bth.opcode)) {
        REQ(d.meth.rqmsn == p.meth.rqmsn && d.meth.msn == p.meth.msn);
        REQ(!p.bth.ts || (d.tseth.tx_ts == p.tseth.tx_ts && d.tseth.tsr == p.tseth.tsr &&
                          d.tseth.ftype == p.tseth.ftype));
        REQ(d.reth.va == p.reth.va && d.reth.rkey == p.reth.rkey &&
            d.reth.dma_len == p.reth.dma_len);
        REQ(!mrc_op_has_imm(p.bth.opcode) || d.imm == p.imm);
        // the headers alone decode as a trimmed packet
        u32 h = mrc_pkt_hdr_len(&p);
        std::vector<u8> cut(buf.begin(), buf.begin() + h);
        REQ(mrc_pkt_decode_flags(cut.data(), h, MRC_DECODE_TRIMMED, &d) == 0);
        REQ(d.trimmed && d.reth.va == p.reth.va);
    } else {
        // re-encoding the decoded control packet is byte-identical
        std::vector<u8> again(static_cast<size_t>(n));
        REQ(mrc_pkt_encode(&d, again.data(), static_cast<u32>(n)) == n);
        REQ(again == buf);
    }
    return 0;
}
