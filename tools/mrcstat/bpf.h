// SPDX-License-Identifier: GPL-2.0
// mrcstat's side of libbpf: load/attach/pin (attach), unpin (detach), and
// reading the pinned maps (show, -j, events). Errors carry mrcstat's exit
// status (see Documentation/man/mrcstat.8).
#pragma once

#include <chrono>
#include <functional>
#include <memory>
#include <stdexcept>
#include <string>

#include "report.h"

struct ring_buffer;

namespace mrcstat {

enum Exit : int {
    kExitOk = 0,
    kExitError = 1,
    kExitUsage = 2,
    kExitNoModule = 3,    // mrc.ko not loaded
    kExitNoBpf = 4,       // bpf() unavailable, no privileges, no bpffs
    kExitNotAttached = 5  // nothing pinned: run "mrcstat attach"
};

class Error : public std::runtime_error {
  public:
    Error(int code, const std::string& what) : std::runtime_error(what), code_(code) {}
    int code() const { return code_; }

  private:
    int code_;
};

// An owned file descriptor.
class Fd {
  public:
    Fd() = default;
    explicit Fd(int fd) : fd_(fd) {}
    Fd(Fd&& o) noexcept : fd_(o.release()) {}
    Fd& operator=(Fd&& o) noexcept;
    Fd(const Fd&) = delete;
    Fd& operator=(const Fd&) = delete;
    ~Fd();
    int get() const { return fd_; }
    int release() {
        int f = fd_;
        fd_ = -1;
        return f;
    }
    explicit operator bool() const { return fd_ >= 0; }

  private:
    int fd_ = -1;
};

// Names of the pinned objects (relative to the pin directory).
extern const char* const kMapNames[5];  // mrc_ev, mrc_plane, mrc_conn, mrc_events, mrc_tel_stat

// Load the programs, attach them to the mrc:* tracepoints, pin maps and
// links under `dir`. Returns false (and does nothing) if already attached.
bool Attach(const std::string& dir, bool rto_events = false);
// Unpin everything under `dir` and remove it: the programs detach once the
// last reader closes its descriptors.
void Detach(const std::string& dir);
// Whether `dir` holds a complete set of pins.
bool Attached(const std::string& dir);

// Read access to the pinned maps (read-only descriptors).
class Reader {
  public:
    explicit Reader(const std::string& dir);
    Snapshot Read() const;

  private:
    Fd ev_, plane_, conn_, stat_;
};

// Streams the ring buffer. Only one consumer at a time (a BPF ring buffer
// has a single consumer position): an exclusive flock on the pin directory.
class EventStream {
  public:
    using Handler = std::function<bool(const mrc_tel_event&)>;  // false: stop
    EventStream(const std::string& dir, Handler h);
    ~EventStream();
    EventStream(const EventStream&) = delete;
    EventStream& operator=(const EventStream&) = delete;
    // Waits up to `timeout` and delivers what arrived; false once the
    // handler asked to stop.
    bool Poll(std::chrono::milliseconds timeout);

  private:
    struct RbFree {
        void operator()(ring_buffer* rb) const;
    };
    static int Callback(void* ctx, void* data, size_t size);
    Fd lock_, map_;
    Handler handler_;
    bool stop_ = false;
    std::unique_ptr<ring_buffer, RbFree> rb_;
};

uint64_t MonotonicNs();

}  // namespace mrcstat
