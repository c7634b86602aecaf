// SPDX-License-Identifier: GPL-2.0 OR MIT
//
// cc_ack.h - the acknowledgment a congestion-control test feeds its
// controller (cc_test.cc, cc_uec_test.cc).
#ifndef MRC_TESTS_CC_ACK_H
#define MRC_TESTS_CC_ACK_H

extern "C" {
#include "mrc_cc.h"
}

// `bytes` newly acknowledged at `now`, measured over `rtt`, with the ECN
// codepoint the receiver saw; every other field zero.
inline mrc_cc_ack ack(u64 now, u32 bytes, u64 rtt, u8 ecn = MRC_ECN_NONE) {
    mrc_cc_ack a{};

    a.now = now;
    a.acked_bytes = bytes;
    a.rtt_ns = rtt;
    a.ecn = ecn;
    return a;
}

#endif  // MRC_TESTS_CC_ACK_H
