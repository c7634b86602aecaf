// The tests: the server's sessions and the client modes bulk, pingpong, rpc.
#pragma once

#include <atomic>
#include <cstdint>
#include <functional>
#include <ostream>
#include <string>
#include <string_view>

#include "options.h"

namespace mrcperf {

// Parameters the client announces in its HELLO ("key=value" words).
struct SessionParams {
    Mode mode = Mode::kBulk;
    uint32_t ack_every = 1;
    uint32_t resp_size = 0;
    uint32_t max_msg = 0;  // largest message the client sends
    // Bulk with -R: the server sends, the client receives and acknowledges;
    // what the sender needs to know.
    bool reverse = false;
    uint32_t size = 0, window = 0;
    uint64_t duration_ms = 0, count = 0, rate_bps = 0;
};
std::string EncodeParams(const SessionParams& p);
bool DecodeParams(std::string_view text, SessionParams* p);

// Runs a client mode; prints the report (JSON or text) on out and progress on
// err. Returns the exit code; errors are reported, not thrown.
int RunClient(const Config& c, std::ostream& out, std::ostream& err);

// Serves sessions until stop is set (checked every 200 ms) or, with
// c.once, after one session. on_listening gets the port or service id.
int RunServer(const Config& c, std::ostream& out, std::ostream& err,
              const std::atomic<bool>* stop = nullptr,
              const std::function<void(uint16_t)>& on_listening = {});

}  // namespace mrcperf
