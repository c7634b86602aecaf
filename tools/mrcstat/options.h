// SPDX-License-Identifier: GPL-2.0
// Command line of mrcstat (pure: tests/options_test.cc).
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace mrcstat {

enum class Command { kShow, kAttach, kDetach, kEvents, kHelp, kVersion };

struct Options {
    Command cmd = Command::kShow;
    std::string pin_dir = "/sys/fs/bpf/mrc";
    double interval_s = 1.0;
    bool interval_set = false;
    std::optional<uint64_t> count;     // -c: frames (show) or events (events)
    std::optional<double> duration_s;  // -t: events: stop after this long
    bool json = false;
    bool show_evs = true;
    std::optional<bool> colour;  // --color / --no-color; default: a tty
    bool verbose = false;
    bool rto_events = false;  // attach --rto-events
};

// argv without the program name. On error returns nullopt and sets err.
std::optional<Options> ParseArgs(const std::vector<std::string>& args, std::string& err);

extern const char kUsage[];

}  // namespace mrcstat
