// Sockets of the three transports and a message connection on top of them:
// AF_MRC keeps message boundaries itself (SOCK_SEQPACKET); TCP and MPTCP
// carry the same messages behind a 4-byte length prefix.
#pragma once

#include <sys/socket.h>

#include <cstdint>
#include <deque>
#include <stdexcept>
#include <string>
#include <vector>

#include "framing.h"
#include "json.h"
#include "options.h"

namespace mrcperf {

// Exit codes.
constexpr int kExitOk = 0;
constexpr int kExitFail = 1;
constexpr int kExitUsage = 2;
constexpr int kExitNoMrc = 3;

// A failure with the exit code it maps to.
class Error : public std::runtime_error {
  public:
    explicit Error(const std::string& what, int code = kExitFail)
        : std::runtime_error(what), code_(code) {}
    int code() const { return code_; }

  private:
    int code_;
};

// "what: strerror(errno)"
[[noreturn]] void ThrowErrno(const std::string& what, int err);

// Owns one file descriptor.
class Fd {
  public:
    Fd() = default;
    explicit Fd(int fd) : fd_(fd) {}
    Fd(Fd&& o) noexcept : fd_(o.release()) {}
    Fd& operator=(Fd&& o) noexcept {
        if (this != &o) reset(o.release());
        return *this;
    }
    Fd(const Fd&) = delete;
    Fd& operator=(const Fd&) = delete;
    ~Fd() { reset(); }

    int get() const { return fd_; }
    bool valid() const { return fd_ >= 0; }
    int release() {
        int f = fd_;
        fd_ = -1;
        return f;
    }
    void reset(int fd = -1);

  private:
    int fd_ = -1;
};

// The AF_MRC number from /sys/module/mrc/parameters/family; throws an
// Error with kExitNoMrc when mrc.ko is not loaded.
int MrcFamily();

struct Endpoint {
    sockaddr_storage ss{};
    socklen_t len = 0;
};

// addr "" = any. IPv4 addresses become ::ffff:a.b.c.d.
Endpoint MakeEndpoint(Transport t, const std::string& addr, uint16_t port);
std::string EndpointText(Transport t, const Endpoint& ep);

Fd OpenSocket(Transport t);
Fd Listen(Transport t, const Endpoint& local, int backlog = 64);
// The port or service id a listener got (useful with port 0).
uint16_t LocalPort(Transport t, const Fd& fd);
// Connects, retrying refused connections until timeout_s (the server may be
// starting). AF_MRC sockets get the options in mrc (if any) before connect().
Fd Connect(Transport t, const Endpoint& peer, const Endpoint* local, double timeout_s,
           const MrcSockOpts& mrc = {});
// Sets the SOL_MRC options that are present; throws an Error naming the
// option the kernel refused.
void ApplyMrcOptions(const MrcSockOpts& o, const Fd& fd);
// Per-socket options the tests want (TCP_NODELAY on streams).
void TuneConnected(Transport t, const Fd& fd);

// One outgoing message: header, optional text, zero filling up to size.
struct OutMsg {
    uint8_t pre[kLenPrefixSize + kHeaderSize] = {};
    std::string extra;
    uint32_t size = 0;  // payload bytes (header + extra + filling)
};
OutMsg MakeMsg(MsgType type, uint64_t seq, uint32_t size, std::string extra = {});

class MsgConn {
  public:
    MsgConn(Fd fd, Transport t);

    int fd() const { return fd_.get(); }
    Transport transport() const { return t_; }
    // Largest message this end expects to receive.
    void SetMaxMessage(size_t n);

    void Queue(OutMsg m);
    // Sends what the socket takes without blocking; throws on errors.
    void Flush();
    bool WantsWrite() const { return !q_.empty(); }
    size_t QueuedBytes() const { return queued_bytes_; }

    // Reads what is available without blocking and calls sink per message
    // with its first bytes and its length. False at end of stream.
    bool Receive(const FrameDecoder::Sink& sink);

    // Transport counters for the report (TCP_INFO, MPTCP_INFO, MRC_INFO).
    void WriteInfo(JsonWriter& w) const;

  private:
    Fd fd_;
    Transport t_;
    bool stream_;
    std::deque<OutMsg> q_;
    size_t sent_ = 0;  // bytes of q_.front() already written (streams)
    size_t queued_bytes_ = 0;
    std::vector<uint8_t> rx_;
    FrameDecoder dec_;
};

}  // namespace mrcperf
