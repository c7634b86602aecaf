// SPDX-License-Identifier: GPL-2.0 OR MIT
//
// fabric_rc.h - a RoCE-like reliable connection for the fabric simulator:
// the baseline the MRC paper compares with, not the MRC engine.
//
// One path (one entropy value on one plane, so one ECMP hash), packets of
// one MTU numbered from 0, a fixed window of `window` packets (no
// congestion control: DCQCN is not modelled), and go-back-N recovery as an
// RC queue pair does it: the receiver accepts only the next expected
// packet, answers each with a cumulative ACK, and the first packet out of
// sequence with one NAK naming the expected one (again only after progress);
// the sender goes back to the NAKed packet, or to its oldest unacknowledged
// one when its retransmit timer (reset by progress) expires. Its packets
// are never trimmed (a RoCE fabric drops). Sans-IO: the owner hands it time
// and packets, it returns what to send and when its timer is due.
#ifndef MRC_SIM_FABRIC_RC_H
#define MRC_SIM_FABRIC_RC_H

#include <cstdint>
#include <vector>

#include "netmodel.h"

namespace mrc::sim {

struct RcSegment {
    enum Kind : std::uint8_t { Data = 0, Ack = 1, Nak = 2 } kind = Data;
    std::uint64_t psn = 0;  // data: its number; ACK/NAK: the next expected
    std::uint32_t len = 0;  // payload bytes (data)
};

class RcFlow {
  public:
    RcFlow(std::uint64_t bytes, std::uint32_t mtu, std::uint32_t window, Time rto);

    // Sender: data segments the window lets go now.
    void pump(Time now, std::vector<RcSegment>& out);
    // Sender: an ACK or NAK arrived.
    void on_control(Time now, const RcSegment& s, std::vector<RcSegment>& out);
    // Sender: the retransmit timer, if due.
    void on_timer(Time now, std::vector<RcSegment>& out);
    Time deadline() const { return deadline_; }
    // Receiver: a data segment arrived; the answer is appended to `out`.
    void on_data(Time now, const RcSegment& s, std::vector<RcSegment>& out);

    bool done() const { return expected_ == npkts_; }
    std::uint64_t delivered_bytes() const { return delivered_; }
    Time last_delivery() const { return last_delivery_; }
    std::uint64_t retransmits() const { return rtx_; }
    std::uint64_t timeouts() const { return timeouts_; }
    std::uint64_t naks() const { return naks_; }

  private:
    std::uint32_t seg_len(std::uint64_t psn) const;

    std::uint64_t bytes_;
    std::uint32_t mtu_;
    std::uint64_t npkts_;
    std::uint32_t window_;
    Time rto_;
    // sender
    std::uint64_t snd_una_ = 0;
    std::uint64_t snd_nxt_ = 0;
    std::uint64_t high_ = 0;  // highest number ever sent + 1
    Time deadline_ = kNever;
    // receiver
    std::uint64_t expected_ = 0;
    bool nak_sent_ = false;
    std::uint64_t delivered_ = 0;
    Time last_delivery_ = 0;
    // counters
    std::uint64_t rtx_ = 0;
    std::uint64_t timeouts_ = 0;
    std::uint64_t naks_ = 0;
};

}  // namespace mrc::sim

#endif  // MRC_SIM_FABRIC_RC_H
