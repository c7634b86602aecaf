// SPDX-License-Identifier: GPL-2.0 OR MIT
//
// fabric_rc.cc - see fabric_rc.h.
#include "fabric_rc.h"

#include <algorithm>

namespace mrc::sim {

RcFlow::RcFlow(std::uint64_t bytes, std::uint32_t mtu, std::uint32_t window, Time rto)
    : bytes_(bytes),
      mtu_(mtu),
      npkts_((bytes + mtu - 1) / mtu),
      window_(std::max<std::uint32_t>(window, 1)),
      rto_(rto) {}

std::uint32_t RcFlow::seg_len(std::uint64_t psn) const {
    return psn + 1 < npkts_ ? mtu_ : static_cast<std::uint32_t>(bytes_ - psn * mtu_);
}

void RcFlow::pump(Time now, std::vector<RcSegment>& out) {
    while (snd_nxt_ < npkts_ && snd_nxt_ - snd_una_ < window_) {
        rtx_ += snd_nxt_ < high_;
        out.push_back({RcSegment::Data, snd_nxt_, seg_len(snd_nxt_)});
        snd_nxt_++;
        high_ = std::max(high_, snd_nxt_);
        if (deadline_ == kNever) deadline_ = now + rto_;
    }
}

void RcFlow::on_control(Time now, const RcSegment& s, std::vector<RcSegment>& out) {
    if (s.psn < snd_una_ || s.psn > high_) return;  // stale
    if (s.kind == RcSegment::Nak) {
        naks_++;
        snd_una_ = s.psn;
        snd_nxt_ = s.psn;  // go back N
    } else if (s.psn > snd_una_) {
        snd_una_ = s.psn;
        if (snd_nxt_ < snd_una_) snd_nxt_ = snd_una_;
    } else {
        return;
    }
    deadline_ = snd_una_ < high_ ? now + rto_ : kNever;
    pump(now, out);
}

void RcFlow::on_timer(Time now, std::vector<RcSegment>& out) {
    if (deadline_ == kNever || now < deadline_) return;
    deadline_ = kNever;
    if (snd_una_ >= high_) return;
    timeouts_++;
    snd_nxt_ = snd_una_;
    pump(now, out);
    if (deadline_ == kNever) deadline_ = now + rto_;
}

void RcFlow::on_data(Time now, const RcSegment& s, std::vector<RcSegment>& out) {
    if (s.psn == expected_) {
        expected_++;
        nak_sent_ = false;
        delivered_ += s.len;
        last_delivery_ = now;
        out.push_back({RcSegment::Ack, expected_, 0});
    } else if (s.psn > expected_) {
        if (!nak_sent_) {
            nak_sent_ = true;
            out.push_back({RcSegment::Nak, expected_, 0});
        }
    } else {
        out.push_back({RcSegment::Ack, expected_, 0});  // duplicate
    }
}

}  // namespace mrc::sim
