// SPDX-License-Identifier: GPL-2.0
// Network namespace names for the inode numbers the telemetry maps carry:
// what "ip netns" calls them (bind mounts under /run/netns), and "init" for
// the namespace of PID 1.
#pragma once

#include <cstdint>
#include <map>
#include <string>

namespace mrcstat {

// Inode -> name for every entry of `run_dir` (ip netns's directory) that
// can be stat()ed, plus "init" for `init_ns` unless it has an ip netns name.
// Unreadable entries are left out: a missing name only costs readability.
std::map<uint32_t, std::string> NetnsNames(const std::string& run_dir = "/run/netns",
                                           const std::string& init_ns = "/proc/1/ns/net");

}  // namespace mrcstat
