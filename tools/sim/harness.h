// SPDX-License-Identifier: GPL-2.0 OR MIT
//
// harness.h - two MRC protocol engines talking through the network model.
//
// The harness is the "host" of two struct mrc_conn (kmod/core/mrc_engine.h),
// endpoint 0 ("A") and endpoint 1 ("B"). A's packets travel Dir::AtoB,
// B's Dir::BtoA. For each endpoint it
//   - owns the application's message buffers: payload bytes are generated
//     deterministically per message, their digest remembered, and copied into
//     each data packet at the (msg_offset, payload_len) the engine names;
//   - encodes every packet the engine emits with the wire codec
//     (mrc_pkt_encode, ICRC included) and hands it to the model with the EV
//     the engine chose; data packets are trimmable down to their headers;
//   - decodes what the model delivers (MRC_DECODE_TRIMMED for a trimmed
//     packet: the model's `trimmed` flag plays the role of the DSCP/trim
//     code point a real switch sets), feeds mrc_conn_rx() with the EV the
//     packet travelled on and MRC_RXF_ECN_CE / MRC_RXF_TRIMMED, and places
//     the payload at pkt.reth.va of message pkt.meth.msn when told to;
//   - on MRC_EVT_MSG_DELIVERED compares length and digest with the message
//     the peer's application sent at that position (delivery is in order);
//   - follows the host contract: after every input, drain poll_tx, then
//     poll_event, then re-read next_deadline.
//
// Time is virtual (u64 ns) and jumps to the next instant anything happens:
// a packet arrival, an engine deadline or a scheduled harness action.
#ifndef MRC_SIM_HARNESS_H
#define MRC_SIM_HARNESS_H

#include "netmodel.h"

extern "C" {
#include "mrc_engine.h"
#include "mrc_wire.h"
}

#include <array>
#include <cstdint>
#include <deque>
#include <functional>
#include <map>
#include <memory>
#include <span>
#include <string>
#include <unordered_map>
#include <vector>

namespace mrc::sim {

// 64-bit digest of a byte string (word-at-a-time multiply/xorshift mix).
std::uint64_t digest(std::span<const std::uint8_t> data);
// Deterministic payload bytes for (seed, stream, index).
void fill_payload(std::span<std::uint8_t> out, std::uint64_t seed);

struct ConnDeleter {
    void operator()(mrc_conn* c) const { mrc_conn_destroy(c); }
};
using ConnPtr = std::unique_ptr<mrc_conn, ConnDeleter>;

struct HarnessConfig {
    NetworkConfig net;
    std::array<mrc_conn_cfg, 2> ep{};  // engine configs of A and B
    // When the model's plane changes state, also tell both engines
    // (mrc_conn_set_plane_up) at that instant: this is a NIC port going
    // down, which the host sees as link state. When false, the engines only
    // learn of it from timeouts.
    bool notify_plane_changes = true;
    std::uint64_t payload_seed = 0x6d7263;  // "mrc"
    bool log_events = true;                 // keep every engine event in events()
    bool verify_icrc = true;                // decode with ICRC check (else NO_ICRC)
    // Headers only: data packets carry their headers and no payload bytes
    // (the model still serialises their full wire length, Packet::omitted);
    // no ICRC is computed or checked and delivery is verified by length,
    // MSN and immediate data instead of a digest of the bytes. For speed:
    // what the engine sees is the same, byte copies and CRCs are skipped.
    bool headers_only = false;
};

// A config for A and B that agree with each other and with the model:
// connection ids, QPNs, initial PSNs, n_planes = net.planes,
// paths_per_plane = net.paths_per_plane, all events enabled.
HarnessConfig default_config(unsigned planes, unsigned paths_per_plane, std::uint64_t seed);
// Set A's first PSN (and B's expectation of it).
void set_initial_psn(HarnessConfig& cfg, int from_ep, std::uint32_t psn);

struct MessageRecord {
    std::uint32_t len = 0;
    std::uint64_t digest = 0;
    std::uint16_t msn = 0;
    Time enqueued = 0;        // handed to the harness
    Time accepted = 0;        // accepted by mrc_conn_send()
    Time completed = kNever;  // sender: MRC_EVT_MSG_COMPLETED
    Time delivered = kNever;  // receiver: MRC_EVT_MSG_DELIVERED
    bool accepted_ok = false;
    bool delivered_ok = false;  // length + digest + msn matched
};

struct TimedEvent {
    Time at;
    int ep;
    mrc_event ev;
};

// Host-side counters per endpoint (the engine's own are in mrc_conn_stats).
struct HostCounters {
    std::array<std::uint64_t, 5> tx_by_kind{};  // index enum mrc_tx_kind
    std::uint64_t tx_data_rtx = 0;
    std::uint64_t tx_bytes = 0;
    std::uint64_t encode_errors = 0;
    std::uint64_t plane_mismatch = 0;  // desc.plane != mrc_ev_plane(ev)
    std::uint64_t unknown_cookie = 0;  // data desc for a message we don't hold
    std::uint64_t rx_pkts = 0;
    std::uint64_t rx_trimmed = 0;
    std::uint64_t rx_ce = 0;
    std::uint64_t decode_errors = 0;
    std::array<std::uint64_t, 8> rx_rc{};  // mrc_conn_rx() result, index -rc (0..7)
    std::uint64_t placed_pkts = 0;
    std::uint64_t placed_bytes = 0;
    std::uint64_t place_anomalies = 0;  // verdict/buffer/bounds inconsistency
    std::uint64_t delivered_msgs = 0;
    std::uint64_t delivered_bad = 0;  // length/digest/msn mismatch or unexpected
    std::uint64_t completed_msgs = 0;
    std::uint64_t completed_out_of_order = 0;
    std::uint64_t conn_errors = 0;
    std::uint64_t new_data_psn_wraps = 0;  // first transmissions whose PSN went 2^24-1 -> 0
    std::uint32_t first_data_psn = 0;
    std::uint32_t last_new_psn = 0;
    bool sent_data = false;
};

struct RunResult {
    bool done = false;   // every enqueued message completed and delivered
    bool error = false;  // a connection error, livelock or anomaly stop
    Time end = 0;        // virtual time at return
    std::uint64_t steps = 0;
    std::string why;
};

class Harness {
  public:
    explicit Harness(const HarnessConfig& cfg);
    Harness(const Harness&) = delete;
    Harness& operator=(const Harness&) = delete;

    Network& net() { return net_; }
    const Network& net() const { return net_; }
    mrc_conn* conn(int ep) { return eps_[ep].conn.get(); }
    const mrc_conn* conn(int ep) const { return eps_[ep].conn.get(); }
    Time now() const { return now_; }

    // Application: queue a message of `len` bytes from endpoint `from` to
    // the other one. Payload is materialised when the engine accepts it.
    void enqueue(std::uint32_t len, int from = 0);
    // Run `fn` at virtual time `at` (before deliveries/timers of that instant).
    void at(Time at, std::function<void(Harness&)> fn);
    // Plane up/down in the model at `at`, and (cfg.notify_plane_changes) in
    // both engines at the same instant.
    void set_plane_up(unsigned plane, bool up, Time at);
    // Called for every engine event as it is polled (after the harness's
    // own bookkeeping), e.g. to snapshot counters at an EV state change.
    std::function<void(Harness&, int ep, const mrc_event&)> on_event;

    // Process the next instant. False when nothing is left to happen.
    bool step();
    // Step until every enqueued message is completed and delivered, a
    // connection fails, nothing is left to happen, or `deadline`.
    RunResult run(Time deadline);
    bool all_done() const;

    const std::vector<MessageRecord>& messages(int from = 0) const { return eps_[from].msgs; }
    const std::vector<TimedEvent>& events() const { return events_; }
    const HostCounters& host(int ep) const { return eps_[ep].hc; }
    mrc_conn_stats stats(int ep) const;
    std::vector<mrc_ev_info> ev_infos(int ep) const;

    // Sum of delivered bytes over the messages from `from`, and the time
    // the last one was delivered.
    std::uint64_t delivered_bytes(int from = 0) const;
    Time last_delivery(int from = 0) const;
    // Goodput of direction `from` in bytes/s over [first enqueue, last delivery].
    double goodput_Bps(int from = 0) const;

    // JSON object with everything above (used by mrcsim).
    std::string json() const;

  private:
    struct TxMsg {
        std::vector<std::uint8_t> data;  // empty with headers_only
        std::uint32_t len = 0;
        std::size_t rec = 0;
    };
    struct Endpoint {
        ConnPtr conn;
        Dir out = Dir::AtoB;
        std::deque<std::size_t> backlog;                                  // record indices
        std::unordered_map<std::uint64_t, TxMsg> tx;                      // cookie -> buffer
        std::unordered_map<std::uint16_t, std::vector<std::uint8_t>> rx;  // msn -> buffer
        std::unordered_map<std::uint16_t, std::uint64_t> rx_placed;  // headers_only: msn -> bytes
        std::vector<MessageRecord> msgs;                             // sent by this endpoint
        std::size_t next_completed = 0;
        std::size_t next_delivered = 0;  // index into the *peer's* msgs
        HostCounters hc;
    };
    struct Action {
        Time at;
        std::uint64_t seq;
        std::function<void(Harness&)> fn;
    };

    void service(int ep);
    bool pump_app(int ep);
    bool drain_tx(int ep);
    bool drain_events(int ep);
    void emit(int ep, mrc_tx_desc& d);
    void deliver(Delivery& d);
    void deliver_headers_only(Endpoint& e, Endpoint& peer, const mrc_event& ev);
    Time next_time() const;

    HarnessConfig cfg_;
    Network net_;
    std::array<Endpoint, 2> eps_;
    std::multimap<std::pair<Time, std::uint64_t>, std::function<void(Harness&)>> actions_;
    std::uint64_t action_seq_ = 0;
    std::vector<TimedEvent> events_;
    Time now_ = 0;
    Time first_enqueue_[2] = {kNever, kNever};
    std::vector<std::uint8_t> txbuf_;
    std::uint64_t same_instant_steps_ = 0;
    bool stuck_ = false;
};

}  // namespace mrc::sim

#endif  // MRC_SIM_HARNESS_H
