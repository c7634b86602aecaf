#include "options.h"

#include <charconv>
#include <cmath>
#include <cstdlib>

#include "framing.h"

namespace mrcperf {

namespace {

constexpr std::string_view kUsage =
    "Usage: mrcperf server [OPTIONS]\n"
    "       mrcperf bulk|pingpong|rpc --peer ADDR[,ADDR...] [OPTIONS]\n"
    "       mrcperf json FILE [PATH...]\n"
    "Letters are iperf3's where iperf3 has the option.\n"
    "Transports (same on both ends):\n"
    "      --mrc | --tcp | -m, --mptcp   AF_MRC SOCK_SEQPACKET, TCP (default), MPTCP\n"
    "      --transport mrc|tcp|mptcp     the same, by name\n"
    "Addresses:\n"
    "  -c, --peer ADDR[,...]  server address(es); connection i uses the (i mod n)th\n"
    "  -B, --bind ADDR[,...]  local address(es) (default any), same rule\n"
    "  -p, --port N           TCP/MPTCP port or MRC service id (default 7471)\n"
    "Test:\n"
    "  -t, --time DUR         run time: 10, 2.5s, 500ms (default 10s)\n"
    "  -k, --blockcount N     messages (bulk) or round trips (pingpong, rpc), per connection\n"
    "  -l, --length BYTES     message size: bulk (default 64k), pingpong (default 64)\n"
    "      --window N         bulk: messages in flight, unacknowledged (default 32)\n"
    "      --ack-every N      bulk: receiver acknowledges every N messages (default window/4)\n"
    "  -b, --bitrate RATE     bulk: limit each connection's sender to RATE bit/s (k/M/G)\n"
    "      --req-size BYTES   rpc request size (default 256)\n"
    "      --resp-size BYTES  rpc response size (default 4096)\n"
    "      --concurrency N    rpc: requests in flight per connection (default 8)\n"
    "  -R, --reverse          bulk: the server sends, the client receives\n"
    "      --bidir            bulk: both at once, -P connections each way (iperf3's)\n"
    "      --load N           pingpong, rpc: latency under load, beside N bulk connections\n"
    "                         to the same server (64 KiB messages, as fast as they go)\n"
    "  -P, --parallel N       N connections at once (default 1), figures summed\n"
    "      --per-plane        one connection per --peer address (-P = their number)\n"
    "  -O, --omit DUR         leave the first DUR (warm-up) out of every figure\n"
    "      --repeat N         N runs: each reported, plus median, min/max, 95% interval\n"
    "  -i, --interval SECS    record throughput every SECS (time series, also in --json)\n"
    "      --connect-timeout DUR   (default 5s)\n"
    "AF_MRC socket options (set before connect):\n"
    "      --ev-set-size N    MRC_EV_SET_SIZE: EVs per connection (128..256)\n"
    "      --plane-mask MASK  MRC_PLANE_MASK: planes the connection may use (0x..)\n"
    "      --cc-profile ID    MRC_PROFILE: congestion-control profile\n"
    "      --ev-profile ID    MRC_PROFILE: EV profile\n"
    "Output:\n"
    "  -J, -j, --json         one JSON object on stdout (server: one per session)\n"
    "  -q, --quiet            no progress lines on stderr\n"
    "      --label TEXT       copied into the JSON report\n"
    "      --proc-stat FILE   CPU accounting source (default /proc/stat)\n"
    "Server:\n"
    "  -1, --one-off          exit after one session\n"
    "Every client run reports the machine's CPU time over the measured interval\n"
    "(/proc/stat: user, system, irq, softirq) as utilisation and service demand\n"
    "(CPU-us per MB). Sizes take k/m/g (binary), rates k/M/G (decimal).\n"
    "-V, --version prints the version (as mrcctl -V and mrcstat -V).\n"
    "Exit: 0 ok, 1 run failed, 2 usage, 3 AF_MRC unavailable.\n";

template <typename T>
std::optional<T> ParseUint(std::string_view s) {
    T v{};
    auto r = std::from_chars(s.data(), s.data() + s.size(), v);
    if (s.empty() || r.ec != std::errc() || r.ptr != s.data() + s.size()) return std::nullopt;
    return v;
}

std::vector<std::string> SplitList(const std::string& s) {
    std::vector<std::string> out;
    size_t start = 0;
    for (;;) {
        size_t comma = s.find(',', start);
        out.push_back(s.substr(start, comma - start));
        if (comma == std::string::npos) break;
        start = comma + 1;
    }
    return out;
}

}  // namespace

std::string_view UsageText() { return kUsage; }

std::string_view ModeName(Mode m) {
    switch (m) {
        case Mode::kHelp:
            return "help";
        case Mode::kVersion:
            return "version";
        case Mode::kServer:
            return "server";
        case Mode::kBulk:
            return "bulk";
        case Mode::kPingpong:
            return "pingpong";
        case Mode::kRpc:
            return "rpc";
        case Mode::kJson:
            return "json";
    }
    return "?";
}

std::string_view TransportName(Transport t) {
    switch (t) {
        case Transport::kMrc:
            return "mrc";
        case Transport::kTcp:
            return "tcp";
        case Transport::kMptcp:
            return "mptcp";
    }
    return "?";
}

std::optional<Transport> ParseTransport(std::string_view s) {
    if (s == "mrc") return Transport::kMrc;
    if (s == "tcp") return Transport::kTcp;
    if (s == "mptcp") return Transport::kMptcp;
    return std::nullopt;
}

std::optional<uint64_t> ParseSize(std::string_view s) {
    uint64_t mult = 1;
    if (!s.empty()) {
        switch (s.back()) {
            case 'k':
            case 'K':
                mult = 1ull << 10;
                break;
            case 'm':
            case 'M':
                mult = 1ull << 20;
                break;
            case 'g':
            case 'G':
                mult = 1ull << 30;
                break;
        }
        if (mult != 1) s.remove_suffix(1);
    }
    auto v = ParseUint<uint64_t>(s);
    if (!v || *v > UINT64_MAX / mult) return std::nullopt;
    return *v * mult;
}

std::optional<uint64_t> ParseRate(std::string_view s) {
    double mult = 1;
    if (!s.empty()) {
        switch (s.back()) {
            case 'k':
            case 'K':
                mult = 1e3;
                break;
            case 'm':
            case 'M':
                mult = 1e6;
                break;
            case 'g':
            case 'G':
                mult = 1e9;
                break;
        }
        if (mult != 1) s.remove_suffix(1);
    }
    if (s.empty()) return std::nullopt;
    std::string str(s);
    char* end = nullptr;
    double v = std::strtod(str.c_str(), &end);
    if (end != str.c_str() + str.size() || !std::isfinite(v) || v <= 0 || v * mult > 1e15)
        return std::nullopt;
    return static_cast<uint64_t>(v * mult);
}

std::optional<double> ParseDuration(std::string_view s) {
    double scale = 1;
    if (s.ends_with("ms")) {
        scale = 1e-3;
        s.remove_suffix(2);
    } else if (s.ends_with("s")) {
        s.remove_suffix(1);
    }
    if (s.empty()) return std::nullopt;
    std::string str(s);
    char* end = nullptr;
    double v = std::strtod(str.c_str(), &end);
    if (end != str.c_str() + str.size() || !std::isfinite(v) || v < 0) return std::nullopt;
    return v * scale;
}

ParseResult ParseArgs(const std::vector<std::string>& args) {
    ParseResult r;
    Config& c = r.cfg;
    if (args.empty()) {
        r.error = "missing mode";
        return r;
    }
    const std::string& m = args[0];
    if (m == "server") {
        c.mode = Mode::kServer;
    } else if (m == "bulk") {
        c.mode = Mode::kBulk;
    } else if (m == "pingpong") {
        c.mode = Mode::kPingpong;
        c.size = 64;
    } else if (m == "rpc") {
        c.mode = Mode::kRpc;
    } else if (m == "json") {
        c.mode = Mode::kJson;
        if (args.size() < 2) {
            r.error = "json needs a FILE (- for stdin)";
            return r;
        }
        c.json_file = args[1];
        c.json_paths.assign(args.begin() + 2, args.end());
        return r;
    } else if (m == "-h" || m == "--help" || m == "help") {
        c.mode = Mode::kHelp;
        return r;
    } else if (m == "-V" || m == "--version" || m == "version") {
        c.mode = Mode::kVersion;
        return r;
    } else {
        r.error = "unknown mode \"" + m + "\"";
        return r;
    }

    bool size_set = false;
    for (size_t i = 1; i < args.size(); ++i) {
        std::string opt = args[i];
        std::string val;
        bool has_inline = false;
        if (opt.starts_with("--")) {
            if (auto eq = opt.find('='); eq != std::string::npos) {
                val = opt.substr(eq + 1);
                opt.resize(eq);
                has_inline = true;
            }
        }
        auto flag = [&](std::string_view s, std::string_view l) { return opt == s || opt == l; };
        auto value = [&]() -> std::optional<std::string> {
            if (has_inline) return val;
            if (i + 1 >= args.size()) return std::nullopt;
            return args[++i];
        };
        auto need = [&](std::optional<std::string>& v) {
            if (!v) r.error = "option " + opt + " needs a value";
            return v.has_value();
        };
        auto u32 = [&](uint32_t& dst, uint64_t lo, uint64_t hi, bool sized) {
            auto v = value();
            if (!need(v)) return false;
            auto n = sized ? ParseSize(*v) : ParseUint<uint64_t>(*v);
            if (!n || *n < lo || *n > hi) {
                r.error = "bad value \"" + *v + "\" for " + opt + " (" + std::to_string(lo) + ".." +
                          std::to_string(hi) + ")";
                return false;
            }
            dst = static_cast<uint32_t>(*n);
            return true;
        };
        auto dur = [&](double& dst) {
            auto v = value();
            if (!need(v)) return false;
            auto d = ParseDuration(*v);
            if (!d || *d <= 0) {
                r.error = "bad duration \"" + *v + "\" for " + opt;
                return false;
            }
            dst = *d;
            return true;
        };

        bool ok = true;
        if (flag("", "--mrc") || flag("", "--tcp") || flag("-m", "--mptcp")) {
            // iperf3's transport flags (its -m/--mptcp, --sctp), plus ours.
            c.transport = opt == "--mrc"   ? Transport::kMrc
                          : opt == "--tcp" ? Transport::kTcp
                                           : Transport::kMptcp;
        } else if (flag("", "--transport")) {
            auto v = value();
            ok = need(v);
            if (ok) {
                auto t = ParseTransport(*v);
                if (!t) {
                    r.error = "unknown transport \"" + *v + "\" (mrc, tcp, mptcp)";
                    ok = false;
                } else {
                    c.transport = *t;
                }
            }
        } else if (flag("-c", "--peer")) {
            auto v = value();
            ok = need(v);
            if (ok) c.peers = SplitList(*v);
        } else if (flag("-B", "--bind")) {
            auto v = value();
            ok = need(v);
            if (ok) c.binds = SplitList(*v);
        } else if (flag("-p", "--port")) {
            uint32_t p = 0;
            ok = u32(p, 1, 65535, false);
            c.port = static_cast<uint16_t>(p);
        } else if (flag("-t", "--time")) {
            ok = dur(c.duration_s);
            c.duration_set = true;
        } else if (flag("-k", "--blockcount") || flag("", "--count")) {
            auto v = value();
            ok = need(v);
            if (ok) {
                auto n = ParseUint<uint64_t>(*v);
                if (!n || *n == 0) {
                    r.error = "bad count \"" + *v + "\"";
                    ok = false;
                } else {
                    c.count = *n;
                }
            }
        } else if (flag("-l", "--length") || flag("", "--size")) {
            ok = u32(c.size, kHeaderSize, kMaxMessage, true);
            size_set = true;
        } else if (flag("", "--window")) {
            ok = u32(c.window, 1, 65536, false);
        } else if (flag("", "--ack-every")) {
            ok = u32(c.ack_every, 1, 65536, false);
        } else if (flag("", "--req-size")) {
            ok = u32(c.req_size, kHeaderSize, kMaxMessage, true);
        } else if (flag("", "--resp-size")) {
            ok = u32(c.resp_size, kHeaderSize, kMaxMessage, true);
        } else if (flag("", "--concurrency")) {
            ok = u32(c.concurrency, 1, 65536, false);
        } else if (flag("-P", "--parallel")) {
            ok = u32(c.parallel, 1, 128, false);
        } else if (flag("-R", "--reverse")) {
            c.reverse = true;
        } else if (flag("", "--bidir")) {
            c.bidir = true;
        } else if (flag("", "--load")) {
            ok = u32(c.load, 1, 128, false);
        } else if (flag("", "--per-plane")) {
            c.per_plane = true;
        } else if (flag("-O", "--omit")) {
            ok = dur(c.omit_s);
        } else if (flag("", "--repeat")) {
            ok = u32(c.repeat, 1, 1000, false);
        } else if (flag("-b", "--bitrate")) {
            auto v = value();
            ok = need(v);
            if (ok) {
                auto rate = ParseRate(*v);
                if (!rate) {
                    r.error = "bad rate \"" + *v + "\" for " + opt + " (e.g. 500M)";
                    ok = false;
                } else {
                    c.rate_bps = *rate;
                }
            }
        } else if (flag("", "--proc-stat")) {
            auto v = value();
            ok = need(v);
            if (ok) c.proc_stat = *v;
        } else if (flag("", "--ev-set-size")) {
            uint32_t n = 0;
            ok = u32(n, 128, 256, false);
            c.mrc.ev_set_size = n;
        } else if (flag("", "--plane-mask")) {
            auto v = value();
            ok = need(v);
            if (ok) {
                char* end = nullptr;
                unsigned long long m = std::strtoull(v->c_str(), &end, 0);
                if (v->empty() || *end || m > 0xffffffffull) {
                    r.error = "bad plane mask \"" + *v + "\" (e.g. 0x5)";
                    ok = false;
                } else {
                    c.mrc.plane_mask = static_cast<uint32_t>(m);
                }
            }
        } else if (flag("", "--cc-profile") || flag("", "--ev-profile")) {
            uint32_t id = 0;
            bool cc = opt == "--cc-profile";
            ok = u32(id, 0, 65535, false);
            (cc ? c.mrc.cc_profile : c.mrc.ev_profile) = static_cast<uint16_t>(id);
        } else if (flag("-i", "--interval")) {
            // iperf3's: seconds (fractions allowed, as its 0.1 minimum).
            double secs = 0;
            ok = dur(secs);
            if (ok && (secs < 0.001 || secs > 3600)) {
                r.error = "bad interval for " + opt + " (0.001..3600 s)";
                ok = false;
            }
            if (ok) c.interval_ms = static_cast<uint32_t>(std::lround(secs * 1000));
        } else if (flag("", "--interval-ms")) {
            ok = u32(c.interval_ms, 1, 3600000, false);
        } else if (flag("", "--connect-timeout")) {
            ok = dur(c.connect_timeout_s);
        } else if (flag("-J", "--json") || flag("-j", "-j")) {
            c.json = true;
        } else if (flag("-q", "--quiet")) {
            c.quiet = true;
        } else if (flag("-1", "--one-off") || flag("", "--once")) {
            c.once = true;
        } else if (flag("", "--label")) {
            auto v = value();
            ok = need(v);
            if (ok) c.label = *v;
        } else {
            r.error = "unknown option \"" + args[i] + "\"";
            ok = false;
        }
        if (!ok) return r;
    }

    for (const auto& list : {c.peers, c.binds})
        for (const auto& a : list)
            if (a.empty() && list.size() > 1) {
                r.error = "empty address in a --peer/--bind list";
                return r;
            }
    if (!c.binds.empty()) c.bind = c.binds.front();
    if (c.mode == Mode::kServer) {
        if (c.binds.size() > 1) r.error = "server takes one --bind address";
        return r;
    }
    if (c.peers.empty() || c.peers.front().empty()) {
        r.error = std::string(ModeName(c.mode)) + " needs --peer ADDR";
        return r;
    }
    c.peer = c.peers.front();
    if (c.per_plane) c.parallel = static_cast<uint32_t>(c.peers.size());
    if (c.reverse && c.mode != Mode::kBulk) {
        r.error = "--reverse applies to bulk only";
        return r;
    }
    if (c.load && c.mode == Mode::kBulk) {
        r.error = "--load applies to pingpong and rpc (the latency beside a bulk flow)";
        return r;
    }
    if (c.bidir && (c.mode != Mode::kBulk || c.reverse)) {
        r.error = "--bidir applies to bulk only, without --reverse";
        return r;
    }
    if (c.rate_bps && c.mode != Mode::kBulk) {
        r.error = "--bitrate applies to bulk only";
        return r;
    }
    if (c.mode == Mode::kPingpong) {
        c.req_size = c.resp_size = c.size;
        c.concurrency = 1;
    }
    if (c.mode == Mode::kRpc && size_set) {
        r.error = "rpc takes --req-size/--resp-size, not --size";
        return r;
    }
    if (c.mode == Mode::kBulk && c.ack_every == 0) c.ack_every = c.window >= 4 ? c.window / 4 : 1;
    if (c.mode == Mode::kBulk && c.ack_every > c.window) {
        r.error = "--ack-every must not exceed --window (the sender would stall)";
        return r;
    }
    if (c.count && !c.duration_set) c.duration_s = 0;  // by count only
    if (c.omit_s > 0 && c.duration_s > 0 && c.omit_s >= c.duration_s) {
        r.error = "--omit must be shorter than --time";
        return r;
    }
    if (c.omit_s > 0 && c.duration_s == 0) {
        r.error = "--omit needs a run by time (--time), not by --count";
        return r;
    }
    return r;
}

}  // namespace mrcperf
