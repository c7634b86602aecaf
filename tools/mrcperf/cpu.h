// CPU accounting of a run: the whole machine's CPU time from /proc/stat
// (every CPU, every category) sampled at the start and the end of the
// measured interval. A software transport spends most of its time in
// softirq (receive, timers) and in system calls, much of it on CPUs other
// than the one running mrcperf, so per-process rusage would miss it; the
// machine-wide delta is what netperf reports as "service demand" too.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace mrcperf {

// Jiffies of one /proc/stat "cpu" line, by category.
struct CpuTimes {
    uint64_t user = 0, nice = 0, system = 0, idle = 0, iowait = 0, irq = 0, softirq = 0, steal = 0;
    uint64_t Busy() const { return user + nice + system + irq + softirq + steal; }
    uint64_t Total() const { return Busy() + idle + iowait; }
};

struct CpuSample {
    CpuTimes all;                // the aggregate "cpu" line
    std::vector<CpuTimes> cpus;  // "cpu0", "cpu1", ...
};

// Parses the text of /proc/stat; nullopt if it has no aggregate cpu line.
std::optional<CpuSample> ParseProcStat(std::string_view text);
// Reads and parses a file in /proc/stat's format; nullopt if unreadable.
std::optional<CpuSample> ReadCpuSample(const std::string& path);

// What the machine's CPUs did between two samples.
struct CpuUsage {
    bool valid = false;
    unsigned ncpu = 0;
    double tick_s = 0.01;  // seconds per jiffy (USER_HZ)
    // Seconds of CPU time per category, summed over every CPU.
    double user_s = 0, system_s = 0, irq_s = 0, softirq_s = 0, idle_s = 0, other_s = 0;
    double busy_s = 0;   // user + nice + system + irq + softirq + steal
    double total_s = 0;  // busy + idle + iowait
    // busy / total, 0..1: 1.0 means every CPU was busy all the time.
    double Utilisation() const { return total_s > 0 ? busy_s / total_s : 0; }
    // Busy CPU-microseconds per megabyte (10^6 B) moved; 0 if no bytes.
    double ServiceDemandUsPerMB(uint64_t bytes) const {
        return bytes ? busy_s * 1e6 / (double(bytes) / 1e6) : 0;
    }
    double max_cpu_util = 0;  // the busiest single CPU, 0..1
};

CpuUsage CpuDelta(const CpuSample& a, const CpuSample& b, double tick_s);

// Seconds per jiffy of /proc/stat (sysconf(_SC_CLK_TCK)).
double ClockTick();

}  // namespace mrcperf
