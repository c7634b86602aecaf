#include "framing.h"

#include <algorithm>

namespace mrcperf {

namespace {

void Put32(uint8_t* p, uint32_t v) {
    p[0] = static_cast<uint8_t>(v >> 24);
    p[1] = static_cast<uint8_t>(v >> 16);
    p[2] = static_cast<uint8_t>(v >> 8);
    p[3] = static_cast<uint8_t>(v);
}

uint32_t Get32(const uint8_t* p) {
    return (uint32_t{p[0]} << 24) | (uint32_t{p[1]} << 16) | (uint32_t{p[2]} << 8) | p[3];
}

}  // namespace

void EncodeHeader(const Header& h, std::span<uint8_t, kHeaderSize> out) {
    Put32(out.data(), kMagic);
    Put32(out.data() + 4, static_cast<uint32_t>(h.type));
    Put32(out.data() + 8, static_cast<uint32_t>(h.seq >> 32));
    Put32(out.data() + 12, static_cast<uint32_t>(h.seq));
}

std::optional<Header> DecodeHeader(std::span<const uint8_t> in) {
    if (in.size() < kHeaderSize || Get32(in.data()) != kMagic) return std::nullopt;
    Header h;
    h.type = static_cast<MsgType>(Get32(in.data() + 4));
    h.seq = (uint64_t{Get32(in.data() + 8)} << 32) | Get32(in.data() + 12);
    return h;
}

void EncodeLength(uint32_t len, std::span<uint8_t, kLenPrefixSize> out) { Put32(out.data(), len); }

bool FrameDecoder::Feed(std::span<const uint8_t> data, const Sink& sink) {
    if (broken_) return false;
    size_t i = 0;
    while (i < data.size()) {
        if (!in_body_) {
            size_t n = std::min(kLenPrefixSize - len_have_, data.size() - i);
            std::copy_n(data.begin() + static_cast<std::ptrdiff_t>(i), n, len_buf_ + len_have_);
            len_have_ += n;
            i += n;
            if (len_have_ < kLenPrefixSize) break;
            total_ = Get32(len_buf_);
            len_have_ = 0;
            if (total_ == 0 || total_ > max_len_) {
                broken_ = true;
                return false;
            }
            remaining_ = total_;
            head_.clear();
            in_body_ = true;
            continue;
        }
        size_t n = std::min(remaining_, data.size() - i);
        if (head_.size() < keep_) {
            size_t k = std::min(n, keep_ - head_.size());
            head_.insert(head_.end(), data.begin() + static_cast<std::ptrdiff_t>(i),
                         data.begin() + static_cast<std::ptrdiff_t>(i + k));
        }
        remaining_ -= n;
        i += n;
        if (remaining_ == 0) {
            in_body_ = false;
            sink(head_, total_);
        }
    }
    return true;
}

}  // namespace mrcperf
