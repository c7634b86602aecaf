// SPDX-License-Identifier: GPL-2.0
#include "options.h"

#include <charconv>
#include <cmath>
#include <cstdlib>

namespace mrcstat {

const char kUsage[] =
    "usage: mrcstat [show] [-i SECONDS] [-c COUNT] [-j] [--no-evs] [--[no-]color] [-d DIR]\n"
    "       mrcstat attach [--rto-events] [-d DIR]\n"
    "       mrcstat detach [-d DIR]\n"
    "       mrcstat events [-j] [-c COUNT] [-t SECONDS] [-d DIR]\n"
    "       mrcstat -V | --version\n"
    "\n"
    "Per-plane and per-path telemetry of MRC from the mrc:* tracepoints.\n"
    "  attach        load the BPF programs, attach them, pin maps and links\n"
    "  detach        unpin everything: the programs detach\n"
    "  show          live per-plane / per-path view (default command)\n"
    "  events        stream path-state events (EV state, probes, RTOs, planes)\n"
    "  -i SECONDS    refresh interval (default 1)\n"
    "  -c COUNT      show: number of refreshes; events: stop after COUNT events\n"
    "  -t SECONDS    events: stop after this long\n"
    "  -j, --json    JSON: show prints a snapshot, events one object per line\n"
    "  --rto-events  attach: also put every retransmit timeout in the event stream\n"
    "  --no-evs      show: planes and connections only, no per-path rows\n"
    "  -d, --pin-dir DIR   bpffs directory of the pins (default /sys/fs/bpf/mrc)\n"
    "  -v            libbpf diagnostics on stderr\n"
    "Exit status: 0 ok, 1 error, 2 usage, 3 mrc.ko not loaded, 4 BPF unavailable or\n"
    "not permitted, 5 not attached (run mrcstat attach).\n";

namespace {

bool ParseDouble(const std::string& s, double& out) {
    char* end = nullptr;
    out = std::strtod(s.c_str(), &end);
    return !s.empty() && end && *end == '\0' && std::isfinite(out);
}

bool ParseU64(const std::string& s, uint64_t& out) {
    auto [p, ec] = std::from_chars(s.data(), s.data() + s.size(), out);
    return ec == std::errc() && p == s.data() + s.size() && !s.empty();
}

}  // namespace

std::optional<Options> ParseArgs(const std::vector<std::string>& args, std::string& err) {
    Options o;
    bool have_cmd = false;
    for (size_t i = 0; i < args.size(); i++) {
        const std::string& a = args[i];
        auto value = [&](std::string& v) {
            if (i + 1 >= args.size()) {
                err = "option " + a + " needs a value";
                return false;
            }
            v = args[++i];
            return true;
        };
        std::string v;
        if (a == "-h" || a == "--help") {
            o.cmd = Command::kHelp;
            return o;
        } else if (a == "-V" || a == "--version") {
            o.cmd = Command::kVersion;
            return o;
        } else if (a == "-j" || a == "--json") {
            o.json = true;
        } else if (a == "-v" || a == "--verbose") {
            o.verbose = true;
        } else if (a == "--rto-events") {
            o.rto_events = true;
        } else if (a == "--no-evs") {
            o.show_evs = false;
        } else if (a == "--color" || a == "--colour") {
            o.colour = true;
        } else if (a == "--no-color" || a == "--no-colour") {
            o.colour = false;
        } else if (a == "-i" || a == "--interval") {
            if (!value(v)) return std::nullopt;
            if (!ParseDouble(v, o.interval_s) || o.interval_s < 0.05 || o.interval_s > 3600) {
                err = "bad interval '" + v + "' (0.05 to 3600 seconds)";
                return std::nullopt;
            }
            o.interval_set = true;
        } else if (a == "-c" || a == "--count") {
            uint64_t n = 0;
            if (!value(v)) return std::nullopt;
            if (!ParseU64(v, n) || n == 0) {
                err = "bad count '" + v + "' (a positive integer)";
                return std::nullopt;
            }
            o.count = n;
        } else if (a == "-t" || a == "--time") {
            double t = 0;
            if (!value(v)) return std::nullopt;
            if (!ParseDouble(v, t) || t <= 0) {
                err = "bad duration '" + v + "' (positive seconds)";
                return std::nullopt;
            }
            o.duration_s = t;
        } else if (a == "-d" || a == "--pin-dir") {
            if (!value(v)) return std::nullopt;
            if (v.empty() || v[0] != '/') {
                err = "pin directory must be an absolute path";
                return std::nullopt;
            }
            while (v.size() > 1 && v.back() == '/') v.pop_back();
            o.pin_dir = v;
        } else if (!a.empty() && a[0] == '-') {
            err = "unknown option " + a;
            return std::nullopt;
        } else if (!have_cmd) {
            have_cmd = true;
            if (a == "show") {
                o.cmd = Command::kShow;
            } else if (a == "attach") {
                o.cmd = Command::kAttach;
            } else if (a == "detach") {
                o.cmd = Command::kDetach;
            } else if (a == "events") {
                o.cmd = Command::kEvents;
            } else if (a == "help") {
                o.cmd = Command::kHelp;
            } else {
                err = "unknown command " + a;
                return std::nullopt;
            }
        } else {
            err = "unexpected argument " + a;
            return std::nullopt;
        }
    }
    if (o.rto_events && o.cmd != Command::kAttach) {
        err = "--rto-events is for mrcstat attach";
        return std::nullopt;
    }
    if (o.duration_s && o.cmd != Command::kEvents) {
        err = "-t is for mrcstat events";
        return std::nullopt;
    }
    return o;
}

}  // namespace mrcstat
