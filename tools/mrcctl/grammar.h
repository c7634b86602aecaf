// SPDX-License-Identifier: GPL-2.0
// mrcctl command-line grammar: argv -> Command. No netlink here, so that the
// whole grammar is unit-tested (tests/grammar_test.cc). Only syntax is checked
// (numbers, addresses, keywords); value ranges are the kernel's business and
// come back as extack messages.
#pragma once

#include <netinet/in.h>

#include <cstdint>
#include <optional>
#include <stdexcept>
#include <string>
#include <string_view>
#include <vector>

namespace mrcctl {

// Thrown for every malformed command line; mrcctl exits with kExitUsage.
class UsageError : public std::runtime_error {
  public:
    using std::runtime_error::runtime_error;
};

// Exit codes a script can rely on.
inline constexpr int kExitOk = 0;
inline constexpr int kExitRejected = 1;   // the kernel refused the request
inline constexpr int kExitUsage = 2;      // bad command line
inline constexpr int kExitNoFamily = 3;   // mrc.ko not loaded / family missing
inline constexpr int kExitProbeLost = 4;  // probe: a probe unanswered or not sent

enum class Object {
    kHelp,
    kVersion,
    kBatch,
    kPlane,
    kRoute,
    kProfile,
    kStats,
    kMonitor,
    kConn,
    kPath,
    kSave,
    kProbe
};
// Appended only: kAdd..kShow index the per-object command tables.
enum class Verb { kNone, kAdd, kDel, kSet, kShow, kGet, kFlush };

struct PlaneArgs {
    std::optional<uint32_t> id;
    std::optional<std::string> dev;
    std::optional<uint32_t> ifindex;
    std::optional<in6_addr> addr;
    std::optional<bool> up;
};

struct PathArgs {
    uint32_t plane = 0;
    std::vector<in6_addr> segs;
    std::optional<in6_addr> usid;
};

struct RouteArgs {
    bool has_prefix = false;
    in6_addr dst{};
    uint8_t len = 0;
    bool has_len = true;  // false: "route get ADDR" (longest-prefix lookup)
    std::optional<uint8_t> encap;
    std::vector<PathArgs> paths;
    bool replace = false;
};

struct ProfileArgs {
    std::optional<uint32_t> id;
    std::optional<uint32_t> ev_count, ev_active, ev_min_active, burst, dscp, dscp_ctl;
    std::optional<uint8_t> cc_algo;
    std::optional<uint32_t> target_delay, gamma, max_md, max_wnd, init_wnd, link_mbps;
    std::optional<bool> init_wnd_shared;
    bool has_ev() const {
        return ev_count || ev_active || ev_min_active || burst || dscp || dscp_ctl;
    }
    bool has_cc() const {
        return cc_algo || target_delay || gamma || max_md || max_wnd || init_wnd || link_mbps ||
               init_wnd_shared;
    }
};

struct ProbeArgs {
    in6_addr peer{};
    std::optional<uint32_t> evs, timeout_ms;
};

struct Command {
    bool json = false;
    bool pretty = false;     // -p: indented JSON (implies -j)
    bool timestamp = false;  // -t: monitor prefixes each event with its time
    std::string netns;
    Object object = Object::kHelp;
    Verb verb = Verb::kNone;
    PlaneArgs plane;
    RouteArgs route;
    ProfileArgs profile;
    ProbeArgs probe;
    std::optional<uint32_t> qpn;  // conn/path show: only this local QPN
    std::string batch;            // -b FILE ("-": standard input)
    bool force = false;           // -force: a batch goes on after an error
    std::string help_topic;       // help OBJECT / OBJECT help: that object only
    // monitor OBJECT: only plane, route or conn (conn-*, path-change) events.
    std::optional<Object> monitor_only;
};

// Parses argv[1..]; throws UsageError.
Command Parse(const std::vector<std::string>& args);

// One line of a batch file (mrcctl -b) as words: blank-separated, '...'
// and "..." quote, a '#' that starts a word comments out the rest of the
// line. An empty result is a line to skip. Throws UsageError on an
// unterminated quote.
std::vector<std::string> SplitBatchLine(std::string_view line);

// "object verb" as shown in error messages: "plane add", "stats".
std::string CommandName(const Command& cmd);

// Value parsers, exposed for the tests. All throw UsageError naming `what`.
uint32_t ParseU32(std::string_view s, std::string_view what);
// A link rate as tc(8) writes one, in Mbit/s: "50mbit", "100gbit", "2tbit",
// or a bare number of Mbit/s. Whole Mbit/s only; the kernel checks the range.
uint32_t ParseLinkRate(std::string_view s);
// The same rate as ParseLinkRate() reads it back: "100gbit", "50mbit".
std::string LinkRate(uint32_t mbps);
in6_addr ParseAddr(std::string_view s, std::string_view what);
// "ADDR/LEN" or "ADDR" (then len 128, or has_len false when allow_bare).
void ParsePrefix(std::string_view s, in6_addr& addr, uint8_t& len);
std::vector<in6_addr> ParseAddrList(std::string_view s, std::string_view what);

// Names of enum values (uapi/linux/mrc.h) and back.
std::string_view EncapName(uint8_t encap);
std::optional<uint8_t> EncapFromName(std::string_view name);
std::string_view CcAlgoName(uint8_t algo);
std::optional<uint8_t> CcAlgoFromName(std::string_view name);

std::string AddrToString(const in6_addr& a);
// enum mrc_info_state and enum mrc_path_state names ("established", "good").
std::string_view ConnStateName(uint8_t state);
std::string_view PathStateName(uint8_t state);

// The usage text printed by "mrcctl help" and on usage errors.
std::string_view UsageText();
// The usage of one object ("route"), or all of it for "".
std::string UsageText(std::string_view topic);

}  // namespace mrcctl
