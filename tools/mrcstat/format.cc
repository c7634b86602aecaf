// SPDX-License-Identifier: GPL-2.0
#include "format.h"

#include <algorithm>
#include <cmath>
#include <cstdio>

namespace mrcstat {
namespace {

std::string Scaled(double v, const char* const* units, int n, double base, bool int_first) {
    int u = 0;
    double a = std::fabs(v);
    while (a >= base * 0.9995 && u < n - 1) {
        v /= base;
        a /= base;
        u++;
    }
    char buf[32];
    if (u == 0 && int_first) {
        std::snprintf(buf, sizeof(buf), "%.0f%s", v, units[0]);
    } else if (a >= 99.95) {
        std::snprintf(buf, sizeof(buf), "%.0f%s", v, units[u]);
    } else if (a >= 9.995) {
        std::snprintf(buf, sizeof(buf), "%.1f%s", v, units[u]);
    } else {
        std::snprintf(buf, sizeof(buf), "%.2f%s", v, units[u]);
    }
    return buf;
}

}  // namespace

std::string HumanCount(double v) {
    static const char* const units[] = {"", "K", "M", "G", "T", "P"};
    return Scaled(v, units, 6, 1000.0, true);
}

std::string HumanBytes(double v) {
    static const char* const units[] = {"B", "KB", "MB", "GB", "TB", "PB"};
    return Scaled(v, units, 6, 1000.0, true);
}

std::string HumanNs(double ns) {
    if (ns <= 0) return "-";
    static const char* const units[] = {"ns", "us", "ms", "s"};
    return Scaled(ns, units, 4, 1000.0, true);
}

std::string Bar(double frac, int width, bool unicode) {
    if (width <= 0) return {};
    if (!(frac > 0)) frac = 0;  // NaN too
    frac = std::min(frac, 1.0);
    std::string out;
    if (!unicode) {
        int full = static_cast<int>(std::lround(frac * width));
        out.append(full, '#');
        out.append(width - full, ' ');
        return out;
    }
    static const char* const eighths[] = {"", "▏", "▎", "▍", "▌", "▋", "▊", "▉"};
    int units = static_cast<int>(std::lround(frac * width * 8));
    int full = units / 8, rem = units % 8;
    for (int i = 0; i < full; i++) out += "█";
    int cells = full;
    if (rem && cells < width) {
        out += eighths[rem];
        cells++;
    }
    out.append(width - cells, ' ');
    return out;
}

std::string Paint(std::string_view text, Colour c, bool on) {
    if (!on || c == Colour::kNone) return std::string(text);
    const char* code = "";
    switch (c) {
        case Colour::kGreen:
            code = "\033[32m";
            break;
        case Colour::kYellow:
            code = "\033[33m";
            break;
        case Colour::kRed:
            code = "\033[31m";
            break;
        case Colour::kGrey:
            code = "\033[90m";
            break;
        case Colour::kBold:
            code = "\033[1m";
            break;
        case Colour::kNone:
            break;
    }
    return std::string(code) + std::string(text) + "\033[0m";
}

int HistBucket(uint64_t ns) {
    if (ns < 2) return 0;
    int b = 63 - __builtin_clzll(ns);
    return std::min(b, kHistBuckets - 1);
}

uint64_t HistBucketLow(int b) { return b <= 0 ? 0 : (1ull << b); }

uint64_t HistBucketHigh(int b) { return 1ull << (std::clamp(b, 0, 62) + 1); }

uint64_t HistTotal(std::span<const uint64_t> h) {
    uint64_t t = 0;
    for (uint64_t v : h) t += v;
    return t;
}

namespace {

// Where quantile q falls: its log2 bucket and how far into it (0..1) the
// rank goes. Bucket -1 for an empty histogram.
struct QuantilePos {
    int bucket;
    double frac;
};

QuantilePos LocateQuantile(std::span<const uint64_t> h, double q) {
    const uint64_t total = HistTotal(h);
    if (!total) return {-1, 0};
    const double rank = std::clamp(q, 0.0, 1.0) * static_cast<double>(total);
    double seen = 0;
    for (size_t b = 0; b < h.size(); b++) {
        if (!h[b]) continue;
        if (seen + h[b] >= rank)
            return {static_cast<int>(b), (rank - seen) / static_cast<double>(h[b])};
        seen += h[b];
    }
    return {static_cast<int>(h.size()) - 1, 1.0};
}

}  // namespace

double HistQuantile(std::span<const uint64_t> h, double q) {
    const QuantilePos p = LocateQuantile(h, q);
    if (p.bucket < 0) return 0;
    const double lo = HistBucketLow(p.bucket);
    const double hi = HistBucketHigh(p.bucket);
    return lo + p.frac * (hi - lo);
}

int HistQuantileBucket(std::span<const uint64_t> h, double q) {
    return LocateQuantile(h, q).bucket;
}

std::string HistQuantileText(std::span<const uint64_t> h, double q) {
    const int b = HistQuantileBucket(h, q);
    if (b < 0) return "-";
    static const char* const units[] = {"ns", "us", "ms", "s"};
    double v = static_cast<double>(HistBucketHigh(b));
    int u = 0;
    while (v >= 1000.0 && u < 3) {
        v /= 1000.0;
        u++;
    }
    // Two significant digits, rounded up so that "<" stays true.
    const double scale = v >= 100 ? 10 : v >= 10 ? 1 : 0.1;
    v = std::ceil(v / scale - 1e-9) * scale;
    if (v >= 1000.0 && u < 3) {
        v /= 1000.0;
        u++;
    }
    char buf[32];
    std::snprintf(buf, sizeof(buf), v < 10 ? "<%.1f%s" : "<%.0f%s", v, units[u]);
    return buf;
}

std::array<uint64_t, kHistBuckets> HistDelta(std::span<const uint64_t> now,
                                             std::span<const uint64_t> before) {
    std::array<uint64_t, kHistBuckets> d{};
    for (size_t b = 0; b < d.size() && b < now.size(); b++) {
        d[b] = Delta(now[b], b < before.size() ? before[b] : 0);
    }
    return d;
}

std::string_view EvStateName(unsigned s) {
    switch (s) {
        case 0:
            return "good";
        case 1:
            return "skip";
        case 2:
            return "assumed_bad";
        case 3:
            return "denied";
        default:
            return "?";
    }
}

std::string_view EvCauseName(unsigned c) {
    static constexpr std::string_view names[] = {
        "ecn",        "trim",     "skip_done", "timeout", "probe_ok", "admin", "promote",
        "floor_hold", "late_ack", "loss",      "path",    "gray",     "port"};
    return c < std::size(names) ? names[c] : "?";
}

std::string_view NackSlotName(unsigned slot) {
    static constexpr std::string_view names[] = {
        "trimmed",     "trimmed_lasthop", "no_bitmap",   "no_pkt_buffer",
        "no_resource", "psn_oor_window",  "unexp_event", "other"};
    return slot < std::size(names) ? names[slot] : "?";
}

Colour EvStateColour(unsigned s) {
    switch (s) {
        case 0:
            return Colour::kGreen;
        case 1:
            return Colour::kYellow;
        case 2:
            return Colour::kRed;
        default:
            return Colour::kGrey;
    }
}

std::string EvHex(uint32_t ev) {
    char buf[16];
    std::snprintf(buf, sizeof(buf), "0x%x", ev);
    return buf;
}

}  // namespace mrcstat
