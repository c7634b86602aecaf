// SPDX-License-Identifier: GPL-2.0 OR MIT
//
// netmodel.cc - see netmodel.h.
#include "netmodel.h"

#include <algorithm>
#include <cstdio>
#include <stdexcept>

namespace mrc::sim {

// ---------------------------------------------------------------- Rng

std::uint64_t Rng::splitmix64(std::uint64_t& state) {
    std::uint64_t z = (state += 0x9e3779b97f4a7c15ULL);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
    return z ^ (z >> 31);
}

void Rng::reseed(std::uint64_t seed) {
    std::uint64_t st = seed;
    for (auto& w : s_) w = splitmix64(st);
}

static inline std::uint64_t rotl(std::uint64_t x, int k) { return (x << k) | (x >> (64 - k)); }

std::uint64_t Rng::next() {
    const std::uint64_t result = rotl(s_[1] * 5, 7) * 9;
    const std::uint64_t t = s_[1] << 17;
    s_[2] ^= s_[0];
    s_[3] ^= s_[1];
    s_[1] ^= s_[2];
    s_[0] ^= s_[3];
    s_[2] ^= t;
    s_[3] = rotl(s_[3], 45);
    return result;
}

bool Rng::chance(double p) {
    if (p <= 0.0) return false;
    if (p >= 1.0) return true;
    return uniform() < p;
}

std::uint64_t Rng::upto(std::uint64_t n) {
    if (n == 0) return 0;
    if (n == std::numeric_limits<std::uint64_t>::max()) return next();
    // Lemire's nearly-divisionless bounded draw on [0, n].
    const std::uint64_t range = n + 1;
    unsigned __int128 m = static_cast<unsigned __int128>(next()) * range;
    auto low = static_cast<std::uint64_t>(m);
    if (low < range) {
        const std::uint64_t thresh = (0 - range) % range;
        while (low < thresh) {
            m = static_cast<unsigned __int128>(next()) * range;
            low = static_cast<std::uint64_t>(m);
        }
    }
    return static_cast<std::uint64_t>(m >> 64);
}

// ---------------------------------------------------------- counters

std::uint64_t LinkCounters::offered_total() const {
    std::uint64_t n = 0;
    for (auto v : offered_pkts) n += v;
    return n;
}

std::uint64_t LinkCounters::delivered_total() const {
    std::uint64_t n = 0;
    for (auto v : delivered_pkts) n += v;
    return n;
}

LinkCounters& LinkCounters::operator+=(const LinkCounters& o) {
    for (std::size_t i = 0; i < kKinds; i++) {
        offered_pkts[i] += o.offered_pkts[i];
        duplicated_pkts[i] += o.duplicated_pkts[i];
        delivered_pkts[i] += o.delivered_pkts[i];
    }
    offered_bytes += o.offered_bytes;
    delivered_bytes += o.delivered_bytes;
    dropped_loss += o.dropped_loss;
    dropped_queue += o.dropped_queue;
    dropped_down += o.dropped_down;
    dropped_blackhole += o.dropped_blackhole;
    ecn_marked += o.ecn_marked;
    trimmed += o.trimmed;
    duplicated += o.duplicated;
    max_backlog_bytes = std::max(max_backlog_bytes, o.max_backlog_bytes);
    return *this;
}

// ----------------------------------------------------------- Network

Network::Network(const NetworkConfig& cfg) : planes_(cfg.planes), paths_(cfg.paths_per_plane) {
    if (planes_ < 1 || planes_ > 256)
        throw std::invalid_argument("netmodel: planes must be 1..256");
    if (paths_ < 1) throw std::invalid_argument("netmodel: paths_per_plane must be >= 1");
    links_.resize(std::size_t{planes_} * paths_ * 2);
    for (unsigned p = 0; p < planes_; p++)
        for (unsigned k = 0; k < paths_; k++)
            for (Dir d : {Dir::AtoB, Dir::BtoA}) {
                Link& l = L(p, k, d);
                l.cfg = cfg.link;
                // Independent stream per link, derived from the seed.
                std::uint64_t st = cfg.seed ^ (0x5851f42d4c957f2dULL * (index(p, k, d) + 1));
                l.rng.reseed(Rng::splitmix64(st));
            }
    path_admin_up_.assign(std::size_t{planes_} * paths_, true);
    plane_admin_up_.assign(planes_, true);
}

std::size_t Network::index(unsigned plane, unsigned path, Dir dir) const {
    return (std::size_t{plane} * paths_ + path) * 2 + static_cast<std::size_t>(dir);
}

void Network::check(unsigned plane, unsigned path) const {
    if (plane >= planes_ || path >= paths_) throw std::out_of_range("netmodel: no such plane/path");
}

std::uint32_t Network::make_ev(unsigned plane, unsigned path, std::uint32_t salt) const {
    check(plane, path);
    // Entropy field is 24 bits; choose a multiple of K plus path so that
    // (ev & 0xffffff) % K == path for any salt.
    const std::uint32_t max_mult = ((1u << 24) - 1 - path) / paths_;
    const std::uint32_t ent = (salt % (max_mult + 1)) * paths_ + path;
    return (static_cast<std::uint32_t>(plane) << 24) | ent;
}

LinkConfig& Network::link(unsigned plane, unsigned path, Dir dir) {
    check(plane, path);
    return L(plane, path, dir).cfg;
}

const LinkConfig& Network::link(unsigned plane, unsigned path, Dir dir) const {
    check(plane, path);
    return L(plane, path, dir).cfg;
}

void Network::configure_path(unsigned plane, unsigned path, const LinkConfig& c) {
    link(plane, path, Dir::AtoB) = c;
    link(plane, path, Dir::BtoA) = c;
}

void Network::blackhole_path(unsigned plane, unsigned path, Time at) {
    link(plane, path, Dir::AtoB).blackhole_at = at;
    link(plane, path, Dir::BtoA).blackhole_at = at;
}

void Network::schedule(StateChange c) {
    c.seq = seq_++;
    auto pos = std::upper_bound(changes_.begin(), changes_.end(), c,
                                [](const StateChange& a, const StateChange& b) {
                                    return a.at != b.at ? a.at < b.at : a.seq < b.seq;
                                });
    changes_.insert(pos, c);
}

void Network::set_path_up(unsigned plane, unsigned path, bool up, Time at) {
    check(plane, path);
    schedule({at, 0, false, up, plane, path});
}

void Network::set_plane_up(unsigned plane, bool up, Time at) {
    check(plane, 0);
    schedule({at, 0, true, up, plane, 0});
}

void Network::apply_changes(Time now) {
    std::size_t n = 0;
    while (n < changes_.size() && changes_[n].at <= now) {
        const StateChange& c = changes_[n++];
        if (!c.up) history_.push_back(c);
        if (c.whole_plane)
            plane_admin_up_[c.plane] = c.up;
        else
            path_admin_up_[std::size_t{c.plane} * paths_ + c.path] = c.up;
    }
    changes_.erase(changes_.begin(), changes_.begin() + static_cast<std::ptrdiff_t>(n));
}

bool Network::went_down(unsigned plane, unsigned path, Time from, Time to) const {
    for (const auto& c : history_)
        if (c.plane == plane && (c.whole_plane || c.path == path) && c.at > from && c.at <= to)
            return true;
    return false;
}

bool Network::path_up(unsigned plane, unsigned path) const {
    check(plane, path);
    return plane_admin_up_[plane] && path_admin_up_[std::size_t{plane} * paths_ + path];
}

bool Network::plane_up(unsigned plane) const {
    check(plane, 0);
    return plane_admin_up_[plane];
}

Time Network::serialise(const Link& l, std::size_t bytes) const {
    if (l.cfg.rate_Bps == 0) return 0;
    const unsigned __int128 num = static_cast<unsigned __int128>(bytes) * kSec;
    return static_cast<Time>((num + l.cfg.rate_Bps - 1) / l.cfg.rate_Bps);
}

std::uint64_t Network::backlog(unsigned plane, unsigned path, Dir dir, Time now) const {
    check(plane, path);
    const Link& l = L(plane, path, dir);
    if (l.cfg.rate_Bps == 0 || l.busy_until <= now) return 0;
    const unsigned __int128 num =
        static_cast<unsigned __int128>(l.busy_until - now) * l.cfg.rate_Bps;
    return static_cast<std::uint64_t>((num + kSec - 1) / kSec);
}

void Network::push(Event e) {
    e.seq = seq_++;
    events_.push_back(std::move(e));
    std::push_heap(events_.begin(), events_.end(), Later{});
}

bool Network::send(Time now, Dir dir, Packet pkt) {
    apply_changes(now);
    const unsigned plane = ev_plane(pkt.ev);
    if (plane >= planes_) {
        bad_plane_++;
        return false;
    }
    const unsigned path = ev_path(pkt.ev);
    Link& l = L(plane, path, dir);
    LinkCounters& c = l.ctr;
    c.offered_pkts[static_cast<std::size_t>(pkt.kind)]++;
    c.offered_bytes += pkt.wire_len();
    pkt.trimmed = false;
    pkt.ecn_ce = false;

    if (now >= l.cfg.blackhole_at) {
        c.dropped_blackhole++;
        return false;
    }
    if (!path_up(plane, path)) {
        c.dropped_down++;
        return false;
    }

    const std::uint64_t q = backlog(plane, path, dir, now);
    c.max_backlog_bytes = std::max(c.max_backlog_bytes, q);

    // Draw order is fixed: trim, ecn, loss, jitter, dup, dup-jitter.
    bool trim = (l.cfg.trim_threshold_bytes && q >= l.cfg.trim_threshold_bytes);
    trim = l.rng.chance(l.cfg.trim_prob) || trim;
    if (trim && (pkt.trim_keep == 0 || pkt.trim_keep >= pkt.wire_len()))
        trim = false;  // not trimmable: normal queueing (and maybe tail drop)
    if (trim) {
        pkt.bytes.resize(pkt.trim_keep);
        pkt.omitted = 0;
        pkt.trimmed = true;
        c.trimmed++;
    } else if (l.cfg.queue_limit_bytes && q + pkt.wire_len() > l.cfg.queue_limit_bytes) {
        c.dropped_queue++;
        return false;
    }

    const bool mark = (l.cfg.ecn_threshold_bytes && q >= l.cfg.ecn_threshold_bytes);
    if (l.rng.chance(l.cfg.ecn_prob) || mark) {
        pkt.ecn_ce = true;
        c.ecn_marked++;
    }

    Time done;
    if (pkt.trimmed) {
        // Priority queue for trimmed headers: they do not wait behind data.
        done = now + serialise(l, pkt.wire_len());
    } else {
        const Time start = std::max(now, l.busy_until);
        done = start + serialise(l, pkt.wire_len());
        l.busy_until = done;
    }

    if (l.rng.chance(l.cfg.loss)) {
        c.dropped_loss++;  // lost on the wire: it still used the link
        return false;
    }

    const Time arrive = done + l.cfg.delay_ns + l.rng.upto(l.cfg.jitter_ns);
    const bool dup = l.rng.chance(l.cfg.dup);
    std::optional<Event> copy;
    if (dup) {
        c.duplicated++;
        c.duplicated_pkts[static_cast<std::size_t>(pkt.kind)]++;
        const Time arrive2 = done + l.cfg.delay_ns + l.rng.upto(l.cfg.jitter_ns);
        copy = Event{arrive2, 0, now, true, dir, static_cast<std::uint8_t>(plane), path, pkt};
    }
    push(Event{arrive, 0, now, false, dir, static_cast<std::uint8_t>(plane), path, std::move(pkt)});
    if (copy) push(std::move(*copy));
    return true;
}

Time Network::next_event() const {
    Time t = kNever;
    if (!events_.empty()) t = events_.front().at;
    if (!changes_.empty()) t = std::min(t, changes_.front().at);
    return t;
}

std::optional<Delivery> Network::pop_due(Time now) {
    while (!events_.empty() && events_.front().at <= now) {
        std::pop_heap(events_.begin(), events_.end(), Later{});
        Event e = std::move(events_.back());
        events_.pop_back();
        apply_changes(e.at);
        Link& l = L(e.plane, e.path, e.dir);
        if (e.at >= l.cfg.blackhole_at) {
            l.ctr.dropped_blackhole++;
            continue;
        }
        if (went_down(e.plane, e.path, e.sent, e.at)) {
            l.ctr.dropped_down++;  // went down while the packet was in flight
            continue;
        }
        l.ctr.delivered_pkts[static_cast<std::size_t>(e.pkt.kind)]++;
        l.ctr.delivered_bytes += e.pkt.wire_len();
        return Delivery{e.at, e.dir, e.plane, e.path, e.duplicate, std::move(e.pkt)};
    }
    apply_changes(now);
    return std::nullopt;
}

const LinkCounters& Network::counters(unsigned plane, unsigned path, Dir dir) const {
    check(plane, path);
    return L(plane, path, dir).ctr;
}

LinkCounters Network::plane_counters(unsigned plane, Dir dir) const {
    LinkCounters sum;
    for (unsigned k = 0; k < paths_; k++) sum += counters(plane, k, dir);
    return sum;
}

LinkCounters Network::total_counters(Dir dir) const {
    LinkCounters sum;
    for (unsigned p = 0; p < planes_; p++) sum += plane_counters(p, dir);
    return sum;
}

static void json_counters(std::string& out, const LinkCounters& c) {
    char buf[512];
    std::snprintf(buf, sizeof(buf),
                  "{\"offered\":%llu,\"offered_data\":%llu,\"offered_ack\":%llu,"
                  "\"offered_probe\":%llu,\"offered_bytes\":%llu,\"delivered\":%llu,"
                  "\"delivered_bytes\":%llu,\"dropped_loss\":%llu,\"dropped_queue\":%llu,"
                  "\"dropped_down\":%llu,\"dropped_blackhole\":%llu,\"ecn_marked\":%llu,"
                  "\"trimmed\":%llu,\"duplicated\":%llu,\"max_backlog_bytes\":%llu}",
                  (unsigned long long)c.offered_total(), (unsigned long long)c.offered_pkts[0],
                  (unsigned long long)c.offered_pkts[1], (unsigned long long)c.offered_pkts[2],
                  (unsigned long long)c.offered_bytes, (unsigned long long)c.delivered_total(),
                  (unsigned long long)c.delivered_bytes, (unsigned long long)c.dropped_loss,
                  (unsigned long long)c.dropped_queue, (unsigned long long)c.dropped_down,
                  (unsigned long long)c.dropped_blackhole, (unsigned long long)c.ecn_marked,
                  (unsigned long long)c.trimmed, (unsigned long long)c.duplicated,
                  (unsigned long long)c.max_backlog_bytes);
    out += buf;
}

std::string Network::counters_json() const {
    std::string out = "[";
    bool first = true;
    for (unsigned p = 0; p < planes_; p++)
        for (unsigned k = 0; k < paths_; k++)
            for (Dir d : {Dir::AtoB, Dir::BtoA}) {
                if (!first) out += ",";
                first = false;
                char head[96];
                std::snprintf(head, sizeof(head),
                              "{\"plane\":%u,\"path\":%u,\"dir\":\"%s\",\"c\":", p, k,
                              d == Dir::AtoB ? "a2b" : "b2a");
                out += head;
                json_counters(out, counters(p, k, d));
                out += "}";
            }
    out += "]";
    return out;
}

}  // namespace mrc::sim
