// SPDX-License-Identifier: GPL-2.0 OR MIT
//
// netmodel.h - a deterministic, seedable multi-plane, multi-path network model.
//
// The model is "sans-IO" like the engine it drives: it never reads a clock.
// The caller hands it packets with `send(now, ...)` and pulls the packets that
// have arrived by virtual time `now` with `pop_due(now)`. `next_event()` says
// when something will next happen, so a harness can jump virtual time
// straight to the next interesting instant.
//
// Topology: P planes x K paths per plane. Every path has two independent
// directional links (Dir::AtoB, Dir::BtoA), each with its own FIFO queue,
// serialisation rate, delay, loss, ECN, trimming, jitter, duplication and
// blackhole settings (by default both directions share one LinkConfig).
//
// EV -> path convention (fixed, shared with the engine's tests):
//   plane = ev >> 24, path index within the plane = (ev & 0xffffff) % K
//   (the engine's layout, mrc_engine.h).
// A packet whose plane is >= P is dropped and counted (Network::stats()).
//
// Determinism: each link draws from its own splitmix64/xoshiro256** stream
// derived from (seed, plane, path, dir), so changing one link's settings does
// not perturb the random draws of any other link, and two runs with the same
// seed and the same inputs are bit-for-bit identical. Simultaneous events are
// ordered by insertion sequence number.
#ifndef MRC_SIM_NETMODEL_H
#define MRC_SIM_NETMODEL_H

#include <array>
#include <cstdint>
#include <limits>
#include <optional>
#include <span>
#include <string>
#include <vector>

namespace mrc::sim {

using Time = std::uint64_t;  // virtual nanoseconds
inline constexpr Time kNever = std::numeric_limits<Time>::max();
inline constexpr Time kUs = 1000;
inline constexpr Time kMs = 1000 * kUs;
inline constexpr Time kSec = 1000 * kMs;

// Small, fast, portable PRNG (xoshiro256** seeded through splitmix64). The
// standard <random> distributions are not specified bit-exactly across
// library versions, so the model does its own arithmetic on raw 64-bit draws.
class Rng {
  public:
    explicit Rng(std::uint64_t seed = 0) { reseed(seed); }
    void reseed(std::uint64_t seed);
    std::uint64_t next();
    // Uniform in [0, 1).
    double uniform() { return static_cast<double>(next() >> 11) * 0x1.0p-53; }
    // True with probability p (p <= 0 never draws, so a zero setting costs no
    // randomness and leaves the stream untouched).
    bool chance(double p);
    // Uniform integer in [0, n]; n == 0 returns 0 without drawing.
    std::uint64_t upto(std::uint64_t n);

    static std::uint64_t splitmix64(std::uint64_t& state);

  private:
    std::array<std::uint64_t, 4> s_{};
};

enum class Dir : std::uint8_t { AtoB = 0, BtoA = 1 };
inline constexpr Dir reverse(Dir d) { return d == Dir::AtoB ? Dir::BtoA : Dir::AtoB; }

// What the sender says the packet is; the model only uses it for counters.
enum class Kind : std::uint8_t { Data = 0, Ack = 1, Probe = 2, Other = 3 };
inline constexpr std::size_t kKinds = 4;

struct LinkConfig {
    Time delay_ns = 2 * kUs;              // one-way propagation delay
    std::uint64_t rate_Bps = 0;           // serialisation rate, bytes/s; 0 = infinite
    std::uint64_t queue_limit_bytes = 0;  // tail-drop beyond this backlog; 0 = unlimited
    double loss = 0.0;                    // independent random loss probability
    double dup = 0.0;                     // probability a packet is delivered twice
    Time jitter_ns = 0;                   // extra uniform [0, jitter] delay: reordering
    // ECN: mark CE if the backlog found at enqueue is >= threshold (0 = off),
    // and/or with a fixed probability.
    std::uint64_t ecn_threshold_bytes = 0;
    double ecn_prob = 0.0;
    // Trimming: if the backlog found at enqueue is >= threshold (0 = off) the
    // payload is cut to the packet's `trim_keep` bytes, the packet is flagged
    // `trimmed` and forwarded at high priority (it skips the data queue and
    // adds nothing to its backlog, as NDP/UET switches do).
    std::uint64_t trim_threshold_bytes = 0;
    // Force-trim with a probability regardless of the backlog (tests).
    double trim_prob = 0.0;
    Time blackhole_at = kNever;  // silently drop everything from this time
};

struct Packet {
    std::vector<std::uint8_t> bytes;
    std::uint32_t ev = 0;
    Kind kind = Kind::Data;
    // Bytes kept when trimmed (the header length); 0 means "not trimmable"
    // (a trimmable-but-over-threshold packet with trim_keep 0 is tail-dropped).
    std::uint32_t trim_keep = 0;
    bool ecn_ce = false;    // set by the model when marked
    bool trimmed = false;   // set by the model when trimmed
    std::uint64_t tag = 0;  // opaque to the model; carried to the receiver
    // Bytes on the wire after `bytes` that the sender did not materialise
    // (a headers-only simulation: payload, pad, ICRC). The model queues,
    // serialises and counts wire_len(); a trim drops them.
    std::uint32_t omitted = 0;
    std::size_t wire_len() const { return bytes.size() + omitted; }
};

struct Delivery {
    Time at = 0;
    Dir dir = Dir::AtoB;  // AtoB: arrives at B
    std::uint8_t plane = 0;
    std::uint32_t path = 0;
    bool duplicate = false;  // this is the extra copy made by `dup`
    Packet pkt;
};

struct LinkCounters {
    std::array<std::uint64_t, kKinds> offered_pkts{};  // handed to send(), by Kind
    std::uint64_t offered_bytes = 0;
    std::array<std::uint64_t, kKinds> delivered_pkts{};  // popped at the far end, by Kind
    std::uint64_t delivered_bytes = 0;
    std::uint64_t dropped_loss = 0;       // random loss
    std::uint64_t dropped_queue = 0;      // tail drop (queue limit)
    std::uint64_t dropped_down = 0;       // path or plane down (at enqueue or in flight)
    std::uint64_t dropped_blackhole = 0;  // blackhole_at reached
    std::uint64_t ecn_marked = 0;
    std::uint64_t trimmed = 0;
    std::uint64_t duplicated = 0;
    std::array<std::uint64_t, kKinds> duplicated_pkts{};  // the same, by Kind
    std::uint64_t max_backlog_bytes = 0;

    std::uint64_t offered_total() const;
    std::uint64_t delivered_total() const;
    std::uint64_t dropped_total() const {
        return dropped_loss + dropped_queue + dropped_down + dropped_blackhole;
    }
    LinkCounters& operator+=(const LinkCounters& o);
};

struct NetworkConfig {
    unsigned planes = 2;           // P, 1..256
    unsigned paths_per_plane = 4;  // K, >= 1
    std::uint64_t seed = 1;
    LinkConfig link;  // default for every link, both directions
};

class Network {
  public:
    explicit Network(const NetworkConfig& cfg);

    unsigned planes() const { return planes_; }
    unsigned paths_per_plane() const { return paths_; }

    // EV convention (see top of file).
    static constexpr std::uint8_t ev_plane(std::uint32_t ev) { return ev >> 24; }
    std::uint32_t ev_path(std::uint32_t ev) const { return (ev & 0xffffffu) % paths_; }
    // An EV that maps onto (plane, path) with the given extra entropy.
    std::uint32_t make_ev(unsigned plane, unsigned path, std::uint32_t salt = 0) const;

    // Per-link configuration. Changing it affects packets sent afterwards.
    LinkConfig& link(unsigned plane, unsigned path, Dir dir);
    const LinkConfig& link(unsigned plane, unsigned path, Dir dir) const;
    // Apply to both directions.
    void configure_path(unsigned plane, unsigned path, const LinkConfig& c);
    void blackhole_path(unsigned plane, unsigned path, Time at);

    // Administrative state changes at virtual time `at` (may be in the past of
    // the next send: they are applied in time order with everything else).
    void set_path_up(unsigned plane, unsigned path, bool up, Time at);
    void set_plane_up(unsigned plane, bool up, Time at);
    bool path_up(unsigned plane, unsigned path) const;
    bool plane_up(unsigned plane) const;

    // Offer a packet at time `now` in direction `dir`; the path comes from pkt.ev.
    // Returns false if it was dropped at once (it is still counted).
    // Calls to send() must have non-decreasing `now`. A packet in flight when
    // its path or plane goes down is lost (counted in dropped_down).
    bool send(Time now, Dir dir, Packet pkt);

    // Earliest pending event (delivery or state change), or kNever.
    Time next_event() const;
    // Apply every state change due by `now` and return the next delivery due
    // by `now`, in time order; nullopt when nothing more is due.
    std::optional<Delivery> pop_due(Time now);
    // No packet in flight (pending state changes do not count).
    bool idle() const { return events_.empty(); }

    const LinkCounters& counters(unsigned plane, unsigned path, Dir dir) const;
    LinkCounters plane_counters(unsigned plane, Dir dir) const;
    LinkCounters total_counters(Dir dir) const;
    std::uint64_t dropped_bad_plane() const { return bad_plane_; }

    // Current backlog (bytes not yet serialised) of a link at `now`.
    std::uint64_t backlog(unsigned plane, unsigned path, Dir dir, Time now) const;

    // Human/JSON-friendly dump of all counters.
    std::string counters_json() const;

  private:
    struct Link {
        LinkConfig cfg;
        Rng rng;
        Time busy_until = 0;
        LinkCounters ctr;
    };
    struct Event {
        Time at;
        std::uint64_t seq;
        Time sent;
        bool duplicate = false;
        Dir dir = Dir::AtoB;
        std::uint8_t plane = 0;
        std::uint32_t path = 0;
        Packet pkt;
    };
    struct Later {
        bool operator()(const Event& a, const Event& b) const {
            return a.at != b.at ? a.at > b.at : a.seq > b.seq;
        }
    };
    struct StateChange {
        Time at;
        std::uint64_t seq;
        bool whole_plane;
        bool up;
        unsigned plane;
        unsigned path;
    };

    std::size_t index(unsigned plane, unsigned path, Dir dir) const;
    Link& L(unsigned plane, unsigned path, Dir dir) { return links_[index(plane, path, dir)]; }
    const Link& L(unsigned plane, unsigned path, Dir dir) const {
        return links_[index(plane, path, dir)];
    }
    void push(Event e);
    void check(unsigned plane, unsigned path) const;
    void apply_changes(Time now);
    bool went_down(unsigned plane, unsigned path, Time from, Time to) const;
    void schedule(StateChange c);
    Time serialise(const Link& l, std::size_t bytes) const;

    unsigned planes_;
    unsigned paths_;
    std::vector<Link> links_;
    std::vector<bool> path_admin_up_;   // [plane * K + path]
    std::vector<bool> plane_admin_up_;  // [plane]
    std::vector<Event> events_;         // binary heap ordered by Later
    std::vector<StateChange> changes_;  // pending, sorted by (at, seq)
    std::vector<StateChange> history_;  // applied down-transitions
    std::uint64_t seq_ = 0;
    std::uint64_t bad_plane_ = 0;
};

}  // namespace mrc::sim

#endif  // MRC_SIM_NETMODEL_H
