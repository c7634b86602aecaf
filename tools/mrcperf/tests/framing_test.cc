#include "framing.h"

#include <gtest/gtest.h>

#include <random>
#include <string>
#include <vector>

namespace mrcperf {
namespace {

std::vector<uint8_t> Frame(MsgType t, uint64_t seq, uint32_t size, const std::string& extra = {}) {
    std::vector<uint8_t> f(kLenPrefixSize + size, 0);
    EncodeLength(size, std::span<uint8_t, kLenPrefixSize>(f.data(), kLenPrefixSize));
    EncodeHeader(Header{t, seq},
                 std::span<uint8_t, kHeaderSize>(f.data() + kLenPrefixSize, kHeaderSize));
    std::copy(extra.begin(), extra.end(), f.begin() + kLenPrefixSize + kHeaderSize);
    return f;
}

TEST(Framing, HeaderRoundTripIsBigEndian) {
    uint8_t buf[kHeaderSize];
    EncodeHeader(Header{MsgType::kAck, 0x0102030405060708ull}, buf);
    EXPECT_EQ(buf[0], 'M');
    EXPECT_EQ(buf[3], 'P');
    EXPECT_EQ(buf[7], 4);
    EXPECT_EQ(buf[8], 1);
    EXPECT_EQ(buf[15], 8);
    auto h = DecodeHeader(buf);
    ASSERT_TRUE(h);
    EXPECT_EQ(h->type, MsgType::kAck);
    EXPECT_EQ(h->seq, 0x0102030405060708ull);
}

TEST(Framing, HeaderRejectsShortAndBadMagic) {
    uint8_t buf[kHeaderSize];
    EncodeHeader(Header{MsgType::kData, 1}, buf);
    EXPECT_FALSE(DecodeHeader(std::span<const uint8_t>(buf, kHeaderSize - 1)));
    buf[0] ^= 1;
    EXPECT_FALSE(DecodeHeader(buf));
}

TEST(Framing, DecoderSplitsArbitraryChunks) {
    // Messages of many sizes, cut into random chunks: every message comes out
    // once, with its length and its header.
    std::mt19937 rng(7);
    std::vector<uint8_t> stream;
    std::vector<uint32_t> sizes;
    for (int i = 0; i < 300; ++i) {
        uint32_t size = kHeaderSize + rng() % (i % 10 == 0 ? 200000 : 300);
        sizes.push_back(size);
        auto f = Frame(MsgType::kData, static_cast<uint64_t>(i), size);
        stream.insert(stream.end(), f.begin(), f.end());
    }
    FrameDecoder dec(64);
    size_t got = 0;
    auto sink = [&](std::span<const uint8_t> head, size_t len) {
        ASSERT_LT(got, sizes.size());
        EXPECT_EQ(len, sizes[got]);
        EXPECT_EQ(head.size(), std::min<size_t>(64, len));
        auto h = DecodeHeader(head);
        ASSERT_TRUE(h);
        EXPECT_EQ(h->seq, got);
        ++got;
    };
    size_t off = 0;
    while (off < stream.size()) {
        size_t n = std::min<size_t>(stream.size() - off, 1 + rng() % 5000);
        ASSERT_TRUE(dec.Feed(std::span<const uint8_t>(stream.data() + off, n), sink));
        off += n;
    }
    EXPECT_EQ(got, sizes.size());
    EXPECT_TRUE(dec.Idle());
}

TEST(Framing, DecoderByteByByteKeepsText) {
    auto f = Frame(MsgType::kResult, 0, kHeaderSize + 16, "msgs=3 bytes=48 ");
    FrameDecoder dec;
    int n = 0;
    for (uint8_t b : f) {
        ASSERT_TRUE(dec.Feed(std::span<const uint8_t>(&b, 1), [&](auto head, size_t len) {
            EXPECT_EQ(len, kHeaderSize + 16);
            EXPECT_EQ(std::string(head.begin() + kHeaderSize, head.end()), "msgs=3 bytes=48 ");
            ++n;
        }));
        if (n == 0) {
            EXPECT_FALSE(dec.Idle());
        }
    }
    EXPECT_EQ(n, 1);
}

TEST(Framing, DecoderRejectsZeroAndOversizedLengths) {
    auto noop = [](std::span<const uint8_t>, size_t) {};
    uint8_t zero[4] = {0, 0, 0, 0};
    FrameDecoder a;
    EXPECT_FALSE(a.Feed(zero, noop));
    EXPECT_FALSE(a.Feed(zero, noop));  // stays broken
    uint8_t big[4];
    EncodeLength(1000, big);
    FrameDecoder b(4096, 999);
    EXPECT_FALSE(b.Feed(big, noop));
}

}  // namespace
}  // namespace mrcperf
