// mrcperf wire format: the 16-byte header every message starts with, and the
// 4-byte length prefix that gives TCP/MPTCP byte streams the message
// boundaries AF_MRC (SOCK_SEQPACKET) keeps by itself.
#pragma once

#include <cstddef>
#include <cstdint>
#include <functional>
#include <optional>
#include <span>
#include <vector>

namespace mrcperf {

enum class MsgType : uint32_t {
    kHello = 1,    // client -> server: "key=value ..." parameters after the header
    kHelloOk = 2,  // server -> client
    kData = 3,     // bulk payload, seq = message number from 0
    kAck = 4,      // seq = messages received so far (cumulative)
    kEnd = 5,      // client is done sending
    kResult = 6,   // server's counts, "msgs=N bytes=N" after the header
    kReq = 7,      // rpc/pingpong request, seq = request number
    kResp = 8,     // its response, same seq
};

constexpr uint32_t kMagic = 0x4d524350;  // "MRCP"
constexpr size_t kHeaderSize = 16;
constexpr size_t kLenPrefixSize = 4;
constexpr size_t kMaxMessage = 16u << 20;  // MRC_MSG_MAX

struct Header {
    MsgType type = MsgType::kData;
    uint64_t seq = 0;
};

// Big-endian: magic(4) type(4) seq(8).
void EncodeHeader(const Header& h, std::span<uint8_t, kHeaderSize> out);
// nullopt when shorter than a header or the magic is wrong.
std::optional<Header> DecodeHeader(std::span<const uint8_t> in);

void EncodeLength(uint32_t len, std::span<uint8_t, kLenPrefixSize> out);

// Splits a byte stream of [u32 length][payload] frames into messages. Only
// the first keep_bytes of each payload are kept (what DecodeHeader and the
// text parameters need); the rest is counted and dropped, so a 1 MiB
// message costs no copy.
class FrameDecoder {
  public:
    using Sink = std::function<void(std::span<const uint8_t> head, size_t total_len)>;

    explicit FrameDecoder(size_t keep_bytes = 4096, size_t max_len = kMaxMessage)
        : keep_(keep_bytes), max_len_(max_len) {}

    // Feeds bytes; calls sink once per complete message. False on a framing
    // error (length 0 or above max_len); the decoder is then unusable.
    bool Feed(std::span<const uint8_t> data, const Sink& sink);
    bool Idle() const { return !in_body_ && len_have_ == 0; }

  private:
    size_t keep_;
    size_t max_len_;
    uint8_t len_buf_[kLenPrefixSize] = {};
    size_t len_have_ = 0;
    bool in_body_ = false;
    size_t total_ = 0;
    size_t remaining_ = 0;
    std::vector<uint8_t> head_;
    bool broken_ = false;
};

}  // namespace mrcperf
