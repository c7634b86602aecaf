// Command line of mrcperf.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace mrcperf {

enum class Mode { kHelp, kVersion, kServer, kBulk, kPingpong, kRpc, kJson };
enum class Transport { kMrc, kTcp, kMptcp };

// AF_MRC socket options (level SOL_MRC), set before connect().
struct MrcSockOpts {
    std::optional<uint32_t> ev_set_size;  // MRC_EV_SET_SIZE
    std::optional<uint32_t> plane_mask;   // MRC_PLANE_MASK
    std::optional<uint16_t> cc_profile;   // MRC_PROFILE.cc_profile
    std::optional<uint16_t> ev_profile;   // MRC_PROFILE.ev_profile
};

struct Config {
    Mode mode = Mode::kHelp;
    Transport transport = Transport::kTcp;
    std::string peer;  // client: server address (the first of peers)
    std::string bind;  // local address ("" = any; the first of binds)
    // Client: --peer/--bind take comma-separated lists; connection i of -P
    // goes to peers[i % size] from binds[i % size] (one per plane).
    std::vector<std::string> peers;
    std::vector<std::string> binds;
    uint32_t parallel = 1;   // -P: connections run at once, figures summed
    bool per_plane = false;  // --per-plane: -P = number of peers
    double omit_s = 0;       // -O: warm-up left out of the figures
    uint32_t repeat = 1;     // --repeat: whole runs, median and spread
    uint64_t rate_bps = 0;   // -b: bulk sender's rate limit per connection, 0 = none
    bool reverse = false;    // -R: bulk from the server to the client
    bool bidir = false;      // --bidir: -P connections each way at once
    uint32_t load = 0;       // --load N: pingpong/rpc beside N bulk connections (64 KiB messages)
    std::string proc_stat = "/proc/stat";  // CPU accounting source
    MrcSockOpts mrc;
    uint16_t port = 7471;    // TCP/MPTCP port or MRC service id
    double duration_s = 10;  // run time (client)
    bool duration_set = false;
    uint64_t count = 0;      // messages (bulk) or round trips (pingpong/rpc); 0 = by time
    uint32_t size = 65536;   // bulk message size; pingpong message size
    uint32_t window = 32;    // bulk: messages sent and not yet acknowledged
    uint32_t ack_every = 0;  // bulk: receiver acks every N messages, 0 = window/4
    uint32_t req_size = 256;
    uint32_t resp_size = 4096;
    uint32_t concurrency = 8;  // rpc: requests in flight
    uint32_t interval_ms = 0;  // time series of throughput; 0 = off
    double connect_timeout_s = 5;
    bool json = false;
    bool quiet = false;
    bool once = false;  // server: exit after one session
    std::string label;  // copied into the JSON report
    // mode json: FILE [PATH...]
    std::string json_file;
    std::vector<std::string> json_paths;
};

struct ParseResult {
    Config cfg;
    std::string error;  // non-empty: usage error
};

// args without argv[0].
ParseResult ParseArgs(const std::vector<std::string>& args);
std::string_view UsageText();

std::string_view ModeName(Mode m);
std::string_view TransportName(Transport t);
std::optional<Transport> ParseTransport(std::string_view s);
// "64", "64k", "1m", "1g" (binary multiples).
std::optional<uint64_t> ParseSize(std::string_view s);
// Bit rates as iperf3 writes them: "500", "100k", "2.5M", "1G" (decimal).
std::optional<uint64_t> ParseRate(std::string_view s);
// "10" (seconds), "1.5s", "500ms".
std::optional<double> ParseDuration(std::string_view s);

}  // namespace mrcperf
