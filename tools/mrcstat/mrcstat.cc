// SPDX-License-Identifier: GPL-2.0
// mrcstat: per-plane / per-path telemetry of MRC from BPF maps pinned by
// "mrcstat attach". See Documentation/man/mrcstat.8.
#include <bpf/libbpf.h>
#include <signal.h>
#include <unistd.h>

#include <cerrno>
#include <chrono>
#include <cstdarg>
#include <cstdio>
#include <iostream>
#include <string>
#include <thread>
#include <vector>

#include "bpf.h"
#include "netns.h"
#include "options.h"
#include "report.h"

namespace {

volatile sig_atomic_t g_stop = 0;
bool g_verbose = false;

void OnSignal(int) { g_stop = 1; }

int LibbpfPrint(enum libbpf_print_level level, const char* fmt, va_list ap) {
    (void)level;
    if (!g_verbose) return 0;  // mrcstat reports errors itself
    return std::vfprintf(stderr, fmt, ap);
}

void InstallSignals() {
    struct sigaction sa {};
    sa.sa_handler = OnSignal;
    sigemptyset(&sa.sa_mask);
    sa.sa_flags = 0;  // no SA_RESTART: interrupt the waits
    sigaction(SIGINT, &sa, nullptr);
    sigaction(SIGTERM, &sa, nullptr);
    signal(SIGPIPE, SIG_IGN);
}

// Sleep up to `secs`, waking early on a signal.
void Nap(double secs) {
    const auto until = std::chrono::steady_clock::now() + std::chrono::duration<double>(secs);
    while (!g_stop && std::chrono::steady_clock::now() < until) {
        std::this_thread::sleep_for(std::chrono::milliseconds(50));
    }
}

bool Emit(const std::string& s) {
    if (std::fwrite(s.data(), 1, s.size(), stdout) != s.size()) return false;
    return std::fflush(stdout) == 0;
}

int Show(const mrcstat::Options& o) {
    const mrcstat::Reader reader(o.pin_dir);
    const bool tty = isatty(STDOUT_FILENO) == 1;
    mrcstat::TextOptions to;
    to.colour = o.colour.value_or(tty && !std::getenv("NO_COLOR"));
    to.unicode = tty;
    to.show_evs = o.show_evs;
    // A terminal refreshes until interrupted; a pipe gets one frame (or -c).
    const uint64_t frames = o.count.value_or(o.json || !tty ? 1 : UINT64_MAX);
    const bool live = tty && !o.json && frames > 1;
    mrcstat::Snapshot prev;
    bool have_prev = false;
    if (frames > 1 && !o.json) {
        prev = reader.Read();  // the first frame already shows rates
        have_prev = true;
        Nap(std::min(o.interval_s, 1.0));
    }
    for (uint64_t f = 0; f < frames && !g_stop; f++) {
        if (f) Nap(o.interval_s);
        if (g_stop) break;
        mrcstat::Snapshot s = reader.Read();
        s.netns_names = mrcstat::NetnsNames();
        std::string out;
        if (o.json) {
            out = mrcstat::RenderJson(s) + "\n";
        } else {
            out = mrcstat::RenderText(s, have_prev ? &prev : nullptr, to);
            if (live)
                out = "\033[H\033[2J" + out;
            else if (f + 1 < frames)
                out += "\n";
        }
        if (!Emit(out)) return errno == EPIPE ? 0 : 1;
        prev = std::move(s);
        have_prev = true;
    }
    return 0;
}

int Events(const mrcstat::Options& o) {
    const bool tty = isatty(STDOUT_FILENO) == 1;
    const bool colour = o.colour.value_or(tty && !std::getenv("NO_COLOR"));
    uint64_t seen = 0;
    bool out_ok = true;
    mrcstat::EventStream es(o.pin_dir, [&](const mrc_tel_event& e) {
        std::string line = o.json ? mrcstat::EventJson(e) : mrcstat::EventText(e, colour);
        line += '\n';
        out_ok = Emit(line);
        seen++;
        return out_ok && !(o.count && seen >= *o.count);
    });
    const auto start = std::chrono::steady_clock::now();
    while (!g_stop) {
        if (o.duration_s && std::chrono::steady_clock::now() - start >=
                                std::chrono::duration<double>(*o.duration_s)) {
            break;
        }
        if (!es.Poll(std::chrono::milliseconds(100))) break;
    }
    return out_ok ? 0 : 1;
}

}  // namespace

int main(int argc, char** argv) {
    std::vector<std::string> args(argv + 1, argv + argc);
    std::string err;
    auto opts = mrcstat::ParseArgs(args, err);
    if (!opts) {
        std::cerr << "mrcstat: " << err << "\n" << mrcstat::kUsage;
        return mrcstat::kExitUsage;
    }
    const mrcstat::Options& o = *opts;
    g_verbose = o.verbose;
    libbpf_set_print(LibbpfPrint);
    InstallSignals();
    try {
        switch (o.cmd) {
            case mrcstat::Command::kHelp:
                std::cout << mrcstat::kUsage;
                return 0;
            case mrcstat::Command::kVersion:
                std::cout << "mrcstat " MRC_VERSION "\n";
                return 0;
            case mrcstat::Command::kAttach:
                if (mrcstat::Attach(o.pin_dir, o.rto_events)) {
                    std::cout << "mrcstat: attached, maps and links pinned under " << o.pin_dir
                              << "\n";
                } else {
                    std::cout << "mrcstat: already attached (" << o.pin_dir << ")\n";
                }
                return 0;
            case mrcstat::Command::kDetach:
                mrcstat::Detach(o.pin_dir);
                std::cout << "mrcstat: detached, " << o.pin_dir << " removed\n";
                return 0;
            case mrcstat::Command::kEvents:
                return Events(o);
            case mrcstat::Command::kShow:
                return Show(o);
        }
    } catch (const mrcstat::Error& e) {
        std::cerr << "mrcstat: " << e.what() << "\n";
        return e.code();
    } catch (const std::exception& e) {
        std::cerr << "mrcstat: " << e.what() << "\n";
        return mrcstat::kExitError;
    }
    return 0;
}
