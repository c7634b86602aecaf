// SPDX-License-Identifier: GPL-2.0 OR MIT
//
// libFuzzer target: mrc_pkt_decode_flags() on arbitrary bytes.
//
// Input: byte 0 selects the decode flags (bit 0 MRC_DECODE_TRIMMED, bit 1
// MRC_DECODE_NO_ICRC, so the fuzzer reaches past the ICRC check), the rest
// is the UDP payload. Beyond "no crash, no overread" (ASan/UBSan) it checks:
//  - a decoded payload lies inside the input;
//  - every prefix shorter than the headers (+ ICRC) fails with ETRUNC;
//  - the encoding is canonical: an accepted packet re-encodes to exactly the
//    input bytes (ICRC excepted when it was not verified);
//  - MRC_DECODE_HDR_ONLY on a data opcode reads nothing past the data
//    headers (given an exact-size copy of at most MRC_DATA_HDR_MAX bytes
//    and the whole length) and, where the whole packet decodes, agrees
//    with it.
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <vector>

extern "C" {
#include "mrc_wire.h"
}

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
    if (size < 1 || size > 65536) return 0;
    const u32 flags = data[0] & 3u;
    // exact-size heap copy: any overread hits the ASan redzone
    std::vector<u8> in(data + 1, data + size);
    const u32 len = static_cast<u32>(in.size());
    mrc_pkt p, h;
    int hrc = -1;

    if (len && mrc_op_is_data(in[0])) {
        std::vector<u8> hdr(in.begin(),
                            in.begin() + (len < MRC_DATA_HDR_MAX ? len : MRC_DATA_HDR_MAX));
        hrc = mrc_pkt_decode_flags(hdr.data(), len, flags | MRC_DECODE_HDR_ONLY, &h);
    }
    if (mrc_pkt_decode_flags(in.data(), len, flags, &p) != 0) return 0;
    if (hrc >= 0 && !p.trimmed &&
        (hrc != 0 || h.payload_len != p.payload_len || h.bth.psn != p.bth.psn ||
         h.reth.va != p.reth.va || h.meth.msn != p.meth.msn))
        abort();
    if (p.payload_len && (p.payload < in.data() || p.payload + p.payload_len > in.data() + len))
        abort();
    // every prefix too short for the headers (+ ICRC) is refused as truncated
    const u32 need = mrc_pkt_hdr_len(&p) + (p.trimmed ? 0 : MRC_ICRC_LEN);
    for (u32 k = 0; k < need && k < len; k++) {
        std::vector<u8> cut(in.begin(), in.begin() + k);
        mrc_pkt q;
        if (mrc_pkt_decode_flags(cut.data(), k, flags, &q) != MRC_WIRE_ETRUNC) abort();
    }
    if (p.trimmed) {
        if (p.payload || p.payload_len || !(flags & MRC_DECODE_TRIMMED)) abort();
        // the headers alone re-encode to the input's first bytes
        std::vector<u8> hdr(MRC_DATA_HDR_MAX);
        p.payload_len = static_cast<u32>(p.reth.dma_len - p.reth.va);
        if (!mrc_op_is_last(p.bth.opcode)) return 0;  // the cut payload length is unknown
        int h = mrc_pkt_encode_hdr(&p, hdr.data(), static_cast<u32>(hdr.size()));
        if (h <= 0 || static_cast<u32>(h) > len ||
            memcmp(hdr.data(), in.data(), static_cast<size_t>(h)))
            abort();
        return 0;
    }
    std::vector<u8> out(len);
    int n = mrc_pkt_encode(&p, out.data(), len);
    if (n < 0 || static_cast<u32>(n) != len) abort();
    u32 cmp = (flags & MRC_DECODE_NO_ICRC) ? len - MRC_ICRC_LEN : len;
    if (memcmp(out.data(), in.data(), cmp)) abort();
    return 0;
}
