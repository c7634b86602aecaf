// SPDX-License-Identifier: GPL-2.0 OR MIT
//
// libFuzzer target: every per-header decoder of mrc_wire.h.
//
// Input: byte 0 picks the decoder, the rest is the header bytes (an
// exact-size heap copy, so ASan sees any read past len). A header that
// decodes must re-encode to exactly the bytes it was decoded from, a
// decoder must never claim more bytes than it was given, and every shorter
// prefix of an accepted header must fail with MRC_WIRE_ETRUNC.
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <vector>

extern "C" {
#include "mrc_wire.h"
}

namespace {

template <typename H>
void check(const std::vector<u8>& in, int (*dec)(const u8*, u32, H*),
           int (*enc)(const H*, u8*, u32)) {
    H h;
    int n = dec(in.data(), static_cast<u32>(in.size()), &h);

    if (n < 0) return;
    if (static_cast<size_t>(n) > in.size()) abort();
    std::vector<u8> out(static_cast<size_t>(n));
    if (enc(&h, out.data(), static_cast<u32>(n)) != n) abort();
    if (memcmp(out.data(), in.data(), static_cast<size_t>(n))) abort();
    // one byte less of room must be refused
    if (n > 0 && enc(&h, out.data(), static_cast<u32>(n - 1)) != MRC_WIRE_ENOSPC) abort();
    // every truncation of an accepted header is refused as truncated,
    // without reading past the (exact-size) copy
    for (int k = 0; k < n; k++) {
        std::vector<u8> cut(in.begin(), in.begin() + k);
        if (dec(cut.data(), static_cast<u32>(k), &h) != MRC_WIRE_ETRUNC) abort();
    }
}

int imm_dec(const u8* b, u32 l, u32* v) { return mrc_imm_decode(b, l, v); }

int imm_enc(const u32* v, u8* b, u32 c) { return mrc_imm_encode(*v, b, c); }

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
    if (size < 1 || size > 4096) return 0;
    std::vector<u8> in(data + 1, data + size);

    switch (data[0] % 11) {
        case 0:
            check<mrc_bth>(in, mrc_bth_decode, mrc_bth_encode);
            break;
        case 1:
            check<mrc_meth>(in, mrc_meth_decode, mrc_meth_encode);
            break;
        case 2:
            check<mrc_tseth>(in, mrc_tseth_decode, mrc_tseth_encode);
            break;
        case 3:
            check<mrc_reth>(in, mrc_reth_decode, mrc_reth_encode);
            break;
        case 4:
            check<u32>(in, imm_dec, imm_enc);
            break;
        case 5:
            check<mrc_aeth>(in, mrc_aeth_decode, mrc_aeth_encode);
            break;
        case 6:
            check<mrc_sack>(in, mrc_sack_decode, mrc_sack_encode);
            break;
        case 7:
            check<mrc_nack>(in, mrc_nack_decode, mrc_nack_encode);
            break;
        case 8:
            check<mrc_probe>(in, mrc_probe_decode, mrc_probe_encode);
            break;
        case 9:
            check<mrc_ep>(in, mrc_erth_decode, mrc_erth_encode);
            break;
        default:
            check<mrc_ep>(in, mrc_eeth_decode, mrc_eeth_encode);
            break;
    }
    return 0;
}
