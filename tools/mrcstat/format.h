// SPDX-License-Identifier: GPL-2.0
// Pure helpers of mrcstat: units, bars, colours, the log2 RTT histogram
// math and the names of the engine's enumerations. No BPF, no I/O: unit
// tested in tests/format_test.cc.
#pragma once

#include <array>
#include <cstdint>
#include <span>
#include <string>
#include <string_view>

namespace mrcstat {

// 1234 -> "1.23K", 12345678 -> "12.3M" (SI, three significant digits).
std::string HumanCount(double v);
// Bytes with binary-free SI units: "512B", "1.50KB", "3.00MB".
std::string HumanBytes(double v);
// Nanoseconds: "850ns", "12.3us", "4.20ms", "1.20s"; 0 -> "-".
std::string HumanNs(double ns);
// A bar of `width` cells filled to `frac` (clamped to [0,1]), with eighth
// blocks when `unicode`, '#' otherwise; always exactly `width` columns.
std::string Bar(double frac, int width, bool unicode);

// ANSI colour, or the text unchanged when `on` is false.
enum class Colour { kNone, kGreen, kYellow, kRed, kGrey, kBold };
std::string Paint(std::string_view text, Colour c, bool on);

// The RTT histogram of the BPF maps (MRC_TEL_HIST_BUCKETS log2 buckets):
// bucket b holds [2^b, 2^(b+1)) ns, bucket 0 also holds 0 and 1, the last
// bucket everything above.
constexpr int kHistBuckets = 32;
int HistBucket(uint64_t ns);
uint64_t HistBucketLow(int b);   // smallest value of bucket b
uint64_t HistBucketHigh(int b);  // first value past bucket b
uint64_t HistTotal(std::span<const uint64_t> h);
// Value below which a fraction q (0..1) of the samples lie, interpolated
// linearly inside the bucket; 0 when there are no samples.
double HistQuantile(std::span<const uint64_t> h, double q);
// The log2 bucket holding quantile q (-1 for an empty histogram).
int HistQuantileBucket(std::span<const uint64_t> h, double q);
// A quantile as the histogram knows it: "<66us" is "in the bucket that ends
// at 65.5 us" (so at least half that); 2 significant digits, rounded up,
// because a log2 bucket knows no more. "-" when empty.
std::string HistQuantileText(std::span<const uint64_t> h, double q);
// Per-bucket difference now - before (counters never decrease; a reset
// map reads as "now").
std::array<uint64_t, kHistBuckets> HistDelta(std::span<const uint64_t> now,
                                             std::span<const uint64_t> before);

// Names of enum mrc_ev_state, enum mrc_ev_cause, NACK reason slots.
std::string_view EvStateName(unsigned s);
std::string_view EvCauseName(unsigned c);
std::string_view NackSlotName(unsigned slot);
Colour EvStateColour(unsigned s);

// Counter difference, a reset (now < before) counts from zero.
inline uint64_t Delta(uint64_t now, uint64_t before) { return now >= before ? now - before : now; }
// Rate per second of a delta over `secs` (0 when secs <= 0).
inline double Rate(uint64_t delta, double secs) { return secs > 0 ? delta / secs : 0.0; }

// "0x1203" form of an EV value (plane in bits 31-24, entropy in 23-0).
std::string EvHex(uint32_t ev);

}  // namespace mrcstat
