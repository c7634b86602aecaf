// SPDX-License-Identifier: GPL-2.0 OR MIT
//
// Seed-corpus generator for the wire fuzzers: writes one valid input per
// opcode (and per header) into OUTDIR/<fuzz target>/, in the input format
// each target expects. Usage: mrc_fuzz_seedgen OUTDIR
// ctest runs it into the build tree; `cmake --build B --target
// mrc_fuzz_corpus` runs it into tools/fuzz/corpus/ (git-ignored).
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <string>
#include <vector>

extern "C" {
#include "mrc_wire.h"
}

namespace fs = std::filesystem;

namespace {

int write_file(const fs::path& dir, const std::string& name, u8 prefix, const u8* buf, size_t len) {
    std::FILE* f = std::fopen((dir / name).c_str(), "wb");

    if (!f) return 1;
    std::fputc(prefix, f);
    if (len) std::fwrite(buf, 1, len, f);
    return std::fclose(f) ? 1 : 0;
}

mrc_pkt base(u8 op) {
    mrc_pkt p;

    std::memset(&p, 0, sizeof(p));
    p.bth.opcode = op;
    p.bth.pkey = MRC_PKEY_DEFAULT;
    p.bth.dest_qp = (op == MRC_OP_EP_REQ || op == MRC_OP_EP_RESP) ? MRC_QPN_EP : 0x42;
    return p;
}

}  // namespace

int main(int argc, char** argv) {
    static const u8 payload[] = "0123456789abcdefghijklmnopqrstuvwxyz";
    std::vector<mrc_pkt> pkts;
    u8 buf[512];
    int err = 0;

    if (argc != 2) {
        std::fprintf(stderr, "usage: %s OUTDIR\n", argv[0]);
        return 2;
    }
    const fs::path out(argv[1]);
    const fs::path pd = out / "fuzz_pkt_decode", hd = out / "fuzz_hdr_decode";
    fs::create_directories(pd);
    fs::create_directories(hd);

    struct {
        u8 op;
        u64 va;
        u32 dma_len, plen;
        bool ts;
    } data[] = {
        {MRC_OP_WRITE_FIRST, 0, 64, 16, false}, {MRC_OP_WRITE_MIDDLE, 16, 64, 16, true},
        {MRC_OP_WRITE_LAST, 48, 64, 16, false}, {MRC_OP_WRITE_LAST_IMM, 48, 64, 16, true},
        {MRC_OP_WRITE_ONLY, 0, 13, 13, true},   {MRC_OP_WRITE_ONLY_IMM, 0, 0, 0, false},
    };
    for (auto& d : data) {
        mrc_pkt p = base(d.op);
        p.bth.ts = d.ts;
        p.bth.psn = 0x123456;
        p.bth.pad_cnt = mrc_pad_for(d.plen);
        p.reth.va = d.va;
        p.reth.dma_len = d.dma_len;
        p.payload = payload;
        p.payload_len = d.plen;
        pkts.push_back(p);
    }
    mrc_pkt p = base(MRC_OP_ACK);
    p.aeth.msn = 7;
    pkts.push_back(p);
    p = base(MRC_OP_SACK);
    p.sack.ecn = MRC_ECN_SKIP_ONCE;
    p.sack.ev = 0x12345678;
    p.sack.cack_psn = 0x100;
    p.sack.mpr = 8;
    p.sack.bitmap = 0xf0f0;
    p.sack.cc.bytes_rcvd = 1000;
    pkts.push_back(p);
    p = base(MRC_OP_NACK);
    p.nack.reason = MRC_NACK_TRIMMED;
    p.nack.ev = 0xabcd;
    pkts.push_back(p);
    p = base(MRC_OP_PROBE);
    p.probe.probe_id = 3;
    p.probe.ftype = MRC_TS_FTYPE;
    p.bth.psn = 0;  // reserved in a probe
    pkts.push_back(p);
    p = base(MRC_OP_EP_REQ);
    p.ep.kind = MRC_EP_PORT_STATUS;
    p.ep.port_mask = 0xff;
    p.ep.token = 1;
    pkts.push_back(p);
    p = base(MRC_OP_EP_RESP);
    p.ep.kind = MRC_EP_EV_PROBE;
    p.ep.token = 2;
    pkts.push_back(p);
    p = base(MRC_OP_EP_REQ);
    p.ep.kind = MRC_EP_CONNECT;
    p.ep.token = 3;
    p.ep.conn.src_qpn = 0x42;
    p.ep.conn.init_psn = 0x100;
    pkts.push_back(p);

    int i = 0;
    for (const mrc_pkt& q : pkts) {
        int n = mrc_pkt_encode(&q, buf, sizeof(buf));
        std::string name = std::string(mrc_opcode_name(q.bth.opcode));

        if (n < 0) {
            std::fprintf(stderr, "encode %s: %s\n", name.c_str(), mrc_wire_strerror(n));
            return 1;
        }
        err |= write_file(pd, std::to_string(i) + "_" + name, 0, buf, static_cast<size_t>(n));
        if (mrc_op_is_data(q.bth.opcode))
            err |= write_file(pd, std::to_string(i) + "_" + name + "_trimmed", MRC_DECODE_TRIMMED,
                              buf, mrc_pkt_hdr_len(&q));
        // per-header seeds: selector = decoder index in fuzz_hdr_decode
        u32 off = MRC_BTH_LEN;
        err |= write_file(hd, std::to_string(i) + "_bth", 0, buf, MRC_BTH_LEN);
        if (mrc_op_is_data(q.bth.opcode)) {
            err |= write_file(hd, std::to_string(i) + "_meth", 1, buf + off, MRC_METH_LEN);
            off += MRC_METH_LEN;
            if (q.bth.ts) {
                err |= write_file(hd, std::to_string(i) + "_tseth", 2, buf + off, MRC_TSETH_LEN);
                off += MRC_TSETH_LEN;
            }
            err |= write_file(hd, std::to_string(i) + "_reth", 3, buf + off, MRC_RETH_LEN);
            off += MRC_RETH_LEN;
            if (mrc_op_has_imm(q.bth.opcode))
                err |= write_file(hd, std::to_string(i) + "_imm", 4, buf + off, MRC_IMM_LEN);
        } else {
            static const struct {
                u8 op, sel;
            } sel[] = {{MRC_OP_ACK, 5},   {MRC_OP_SACK, 6},   {MRC_OP_NACK, 7},
                       {MRC_OP_PROBE, 8}, {MRC_OP_EP_REQ, 9}, {MRC_OP_EP_RESP, 9}};
            for (auto& s : sel)
                if (s.op == q.bth.opcode)
                    err |= write_file(hd, std::to_string(i) + "_body", s.sel, buf + off,
                                      static_cast<size_t>(n) - off - MRC_ICRC_LEN);
        }
        i++;
    }
    if (err) {
        std::fprintf(stderr, "cannot write seeds under %s\n", argv[1]);
        return 1;
    }
    return 0;
}
