#include "cpu.h"

#include <unistd.h>

#include <algorithm>
#include <fstream>
#include <sstream>

namespace mrcperf {

namespace {

std::optional<CpuTimes> ParseCpuFields(std::istringstream& in) {
    CpuTimes t;
    uint64_t* fields[] = {&t.user,   &t.nice, &t.system,  &t.idle,
                          &t.iowait, &t.irq,  &t.softirq, &t.steal};
    size_t n = 0;
    for (uint64_t* f : fields) {
        if (!(in >> *f)) break;
        ++n;
    }
    // Kernels since 2.6.11 print at least user..steal; older ones are
    // not worth a second path.
    if (n < 8) return std::nullopt;
    return t;
}

}  // namespace

std::optional<CpuSample> ParseProcStat(std::string_view text) {
    CpuSample s;
    bool have_all = false;
    std::istringstream lines{std::string(text)};
    std::string line;
    while (std::getline(lines, line)) {
        if (!line.starts_with("cpu")) continue;
        std::istringstream in(line);
        std::string name;
        in >> name;
        auto t = ParseCpuFields(in);
        if (!t) return std::nullopt;
        if (name == "cpu") {
            s.all = *t;
            have_all = true;
        } else {
            s.cpus.push_back(*t);
        }
    }
    if (!have_all) return std::nullopt;
    return s;
}

std::optional<CpuSample> ReadCpuSample(const std::string& path) {
    std::ifstream f(path);
    if (!f) return std::nullopt;
    std::ostringstream text;
    text << f.rdbuf();
    return ParseProcStat(text.str());
}

CpuUsage CpuDelta(const CpuSample& a, const CpuSample& b, double tick_s) {
    CpuUsage u;
    u.tick_s = tick_s;
    // Counters only grow; a smaller one means another source (CPU hotplug).
    auto d = [](uint64_t x, uint64_t y) { return y >= x ? y - x : 0; };
    const CpuTimes &x = a.all, &y = b.all;
    u.ncpu = static_cast<unsigned>(std::max(a.cpus.size(), b.cpus.size()));
    u.user_s = double(d(x.user, y.user) + d(x.nice, y.nice)) * tick_s;
    u.system_s = double(d(x.system, y.system)) * tick_s;
    u.irq_s = double(d(x.irq, y.irq)) * tick_s;
    u.softirq_s = double(d(x.softirq, y.softirq)) * tick_s;
    u.idle_s = double(d(x.idle, y.idle) + d(x.iowait, y.iowait)) * tick_s;
    u.other_s = double(d(x.steal, y.steal)) * tick_s;
    u.busy_s = u.user_s + u.system_s + u.irq_s + u.softirq_s + u.other_s;
    u.total_s = u.busy_s + u.idle_s;
    u.valid = u.total_s > 0;
    if (a.cpus.size() == b.cpus.size()) {
        for (size_t i = 0; i < a.cpus.size(); ++i) {
            uint64_t busy = d(a.cpus[i].Busy(), b.cpus[i].Busy());
            uint64_t total = d(a.cpus[i].Total(), b.cpus[i].Total());
            if (total) u.max_cpu_util = std::max(u.max_cpu_util, double(busy) / double(total));
        }
    }
    return u;
}

double ClockTick() {
    long hz = ::sysconf(_SC_CLK_TCK);
    return hz > 0 ? 1.0 / double(hz) : 0.01;
}

}  // namespace mrcperf
