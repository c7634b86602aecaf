#include "run.h"

#include <poll.h>
#include <sys/socket.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <condition_variable>
#include <cstdio>
#include <cstring>
#include <list>
#include <memory>
#include <mutex>
#include <optional>
#include <sstream>
#include <thread>
#include <unordered_map>
#include <vector>

#include "cpu.h"
#include "json.h"
#include "net.h"
#include "stats.h"

namespace mrcperf {

namespace {

using Clock = std::chrono::steady_clock;

double Seconds(Clock::duration d) { return std::chrono::duration<double>(d).count(); }

Clock::time_point After(Clock::time_point t, double s) {
    return t + std::chrono::duration_cast<Clock::duration>(std::chrono::duration<double>(s));
}

std::string HeadText(std::span<const uint8_t> head) {
    if (head.size() <= kHeaderSize) return {};
    return std::string(reinterpret_cast<const char*>(head.data() + kHeaderSize),
                       head.size() - kHeaderSize);
}

// Waits for readability (if want_read) or writability (if there is something
// to send) until `until`, then sends and receives what it can. False at end
// of stream.
bool Pump(MsgConn& conn, bool want_read, Clock::time_point until, const FrameDecoder::Sink& sink) {
    pollfd p{conn.fd(), 0, 0};
    if (want_read) p.events |= POLLIN;
    if (conn.WantsWrite()) p.events |= POLLOUT;
    auto left = std::chrono::duration_cast<std::chrono::microseconds>(until - Clock::now());
    int ms = left.count() <= 0 ? 0 : static_cast<int>((left.count() + 999) / 1000);
    int n = ::poll(&p, 1, ms);
    if (n < 0 && errno != EINTR) ThrowErrno("poll", errno);
    if (n <= 0) return true;
    if (p.revents & POLLOUT) conn.Flush();
    if (p.revents & (POLLIN | POLLHUP | POLLERR)) {
        if (!conn.Receive(sink)) return false;
        conn.Flush();
    }
    return true;
}

// Counts of the peer: "msgs=N bytes=N".
struct PeerCounts {
    uint64_t msgs = 0, bytes = 0;
};
bool ParseCounts(std::string_view text, PeerCounts* c) {
    std::istringstream in{std::string(text)};
    std::string w;
    int found = 0;
    while (in >> w) {
        if (w.starts_with("msgs=")) c->msgs = std::stoull(w.substr(5)), found |= 1;
        if (w.starts_with("bytes=")) c->bytes = std::stoull(w.substr(6)), found |= 2;
    }
    return found == 3;
}

void WriteParams(JsonWriter& w, const Config& c) {
    w.Key("params").BeginObject();
    w.Field("peer", c.peer).Field("port", static_cast<unsigned>(c.port));
    if (!c.bind.empty()) w.Field("bind", c.bind);
    w.Field("duration_s", c.duration_s).Field("count", c.count);
    if (c.mode == Mode::kBulk) {
        w.Field("size", c.size).Field("window", c.window).Field("ack_every", c.ack_every);
    } else {
        w.Field("req_size", c.req_size)
            .Field("resp_size", c.resp_size)
            .Field("concurrency", c.concurrency);
    }
    w.Field("interval_ms", c.interval_ms);
    w.Field("parallel", c.parallel).Field("omit_s", c.omit_s).Field("repeat", c.repeat);
    w.Field("reverse", c.reverse);
    if (c.bidir) w.Field("bidir", true);
    if (c.rate_bps) w.Field("rate_bps", c.rate_bps);
    if (c.peers.size() > 1) {
        w.Key("peers").BeginArray();
        for (const auto& p : c.peers) w.Value(p);
        w.EndArray();
    }
    if (c.mrc.ev_set_size) w.Field("mrc_ev_set_size", *c.mrc.ev_set_size);
    if (c.mrc.plane_mask) w.Field("mrc_plane_mask", *c.mrc.plane_mask);
    if (c.mrc.cc_profile) w.Field("mrc_cc_profile", static_cast<unsigned>(*c.mrc.cc_profile));
    if (c.mrc.ev_profile) w.Field("mrc_ev_profile", static_cast<unsigned>(*c.mrc.ev_profile));
    w.EndObject();
}

void WriteLatency(JsonWriter& w, const LatencySummary& s) {
    w.Key("latency_us").BeginObject();
    w.Field("count", s.count)
        .Field("min", s.min_us)
        .Field("mean", s.mean_us)
        .Field("p50", s.p50_us)
        .Field("p90", s.p90_us)
        .Field("p99", s.p99_us)
        .Field("p999", s.p999_us)
        .Field("max", s.max_us);
    w.EndObject();
}

void WriteIntervals(JsonWriter& w, const std::vector<IntervalSample>& samples) {
    w.Key("intervals").BeginArray();
    for (const auto& s : samples)
        w.BeginObject()
            .Field("t_s", s.t_s)
            .Field("bytes", s.bytes)
            .Field("msgs", s.msgs)
            .Field("mbps", s.mbps)
            .EndObject();
    w.EndArray();
}

// What a client run measured.
struct ClientRun {
    uint64_t start_unix_ms = 0;  // wall clock of the start (to line up outside events)
    double seconds = 0;          // start to the server's result
    double send_seconds = 0;     // start to the last message queued
    uint64_t sent_msgs = 0, sent_bytes = 0;
    uint64_t acked_msgs = 0;  // bulk
    uint64_t resp_msgs = 0, resp_bytes = 0;
    PeerCounts server;
    std::vector<uint64_t> rtt_ns;
    std::string info_json;
    std::string peer, bind;  // this connection's addresses
    bool reverse = false;    // the server sent (-R, or the reverse half of --bidir)
    // The measured interval starts after the warm-up (-O): what was done
    // by then is left out of every figure.
    double omit_t = 0;
    uint64_t omit_done_msgs = 0, omit_done_bytes = 0, omit_sent_bytes = 0;
    size_t omit_rtts = 0;
};

// The measured interval of a run, shared by its connections: it opens when
// the first connection has finished its warm-up and closes when the last
// one has its result; the machine's CPU is sampled at both ends.
class MeasureWindow {
  public:
    MeasureWindow(std::string proc_stat, size_t streams)
        : path_(std::move(proc_stat)), streams_(streams) {}

    void Begin() {
        std::lock_guard<std::mutex> lock(mu_);
        begun_cv_.notify_all();
        if (begun_++) return;
        t0_ = Clock::now();
        a_ = ReadCpuSample(path_);
    }
    // Until every connection has begun measuring (it is connected and
    // sending), or `max` has passed (one failed: its error is reported
    // when its thread is joined).
    void WaitAllBegun(Clock::duration max) {
        std::unique_lock<std::mutex> lock(mu_);
        begun_cv_.wait_for(lock, max, [this] { return begun_ >= streams_; });
    }
    void End() {
        std::lock_guard<std::mutex> lock(mu_);
        if (++ended_ != streams_) return;
        t1_ = Clock::now();
        b_ = ReadCpuSample(path_);
    }
    double Seconds() const { return ended_ == streams_ && begun_ ? Seconds(t1_ - t0_) : 0; }
    // Invalid (valid == false) when /proc/stat could not be read.
    CpuUsage Usage() const {
        if (!a_ || !b_) return {};
        return CpuDelta(*a_, *b_, ClockTick());
    }
    const std::string& path() const { return path_; }

  private:
    static double Seconds(Clock::duration d) { return std::chrono::duration<double>(d).count(); }
    std::string path_;
    size_t streams_;
    std::mutex mu_;
    std::condition_variable begun_cv_;
    size_t begun_ = 0, ended_ = 0;
    Clock::time_point t0_{}, t1_{};
    std::optional<CpuSample> a_, b_;
};

class Client {
  public:
    // Connection number `index` of a run; progress lines only when it is
    // the run's only connection.
    // With --bidir, connections parallel..2*parallel-1 are the reverse half,
    // paired with the same addresses as the forward ones.
    // `stop` (may be null) ends the sending early: the --load connections
    // run until the latency test beside them is over.
    Client(const Config& c, std::ostream& err, size_t index, MeasureWindow* window,
           const std::atomic<bool>* stop = nullptr)
        : c_(c),
          stop_(stop),
          err_(err),
          window_(window),
          quiet_(c.quiet || c.parallel > 1 || c.bidir),
          reverse_(c.reverse || (c.bidir && index >= c.parallel)),
          series_(c.interval_ms ? c.interval_ms / 1000.0 : 1.0) {
        const size_t slot = c.bidir ? index % c.parallel : index;
        r_.peer = c.peers.empty() ? c.peer : c.peers[slot % c.peers.size()];
        r_.bind = c.binds.empty() ? c.bind : c.binds[slot % c.binds.size()];
        r_.reverse = reverse_;
    }

    ClientRun Run() {
        Endpoint peer = MakeEndpoint(c_.transport, r_.peer, c_.port);
        std::unique_ptr<Endpoint> local;
        if (!r_.bind.empty())
            local = std::make_unique<Endpoint>(MakeEndpoint(c_.transport, r_.bind, 0));
        conn_ = std::make_unique<MsgConn>(
            Connect(c_.transport, peer, local.get(), c_.connect_timeout_s, c_.mrc), c_.transport);
        uint32_t max_in = c_.mode == Mode::kBulk ? 4096 : c_.resp_size + 4096;
        if (reverse_) max_in = c_.size + 4096;
        conn_->SetMaxMessage(std::max<uint32_t>(max_in, 4096));
        Hello();
        return Measure();
    }

    // The server's half of -R: the same bulk sender over an accepted
    // connection whose HELLO has been answered.
    ClientRun RunAsSender(std::unique_ptr<MsgConn> conn) {
        conn_ = std::move(conn);
        conn_->SetMaxMessage(4096);
        return Measure();
    }

    ClientRun Measure() {
        start_ = Clock::now();
        r_.start_unix_ms =
            static_cast<uint64_t>(std::chrono::duration_cast<std::chrono::milliseconds>(
                                      std::chrono::system_clock::now().time_since_epoch())
                                      .count());
        last_progress_t_ = start_;
        next_progress_ = After(start_, 1.0);
        if (c_.omit_s <= 0) BeginMeasure(0, 0, 0);
        if (c_.mode == Mode::kBulk && reverse_)
            ReverseBulk();
        else if (c_.mode == Mode::kBulk)
            Bulk();
        else
            Rpc();
        JsonWriter w;
        conn_->WriteInfo(w);
        r_.info_json = w.str();
        return std::move(r_);
    }

    const IntervalSeries& series() const { return series_; }

  private:
    void Hello() {
        SessionParams p;
        p.mode = c_.mode;
        p.ack_every = c_.ack_every ? c_.ack_every : 1;
        p.resp_size = c_.resp_size;
        p.max_msg = c_.mode == Mode::kBulk ? c_.size : c_.req_size;
        if (reverse_) {
            p.reverse = true;
            p.max_msg = 4096;  // the client sends acknowledgments only
            p.size = c_.size;
            p.window = c_.window;
            p.duration_ms = static_cast<uint64_t>(c_.duration_s * 1000);
            p.count = c_.count;
            p.rate_bps = c_.rate_bps;
        }
        conn_->Queue(MakeMsg(MsgType::kHello, 0, 0, EncodeParams(p)));
        conn_->Flush();
        bool ok = false;
        auto deadline = After(Clock::now(), c_.connect_timeout_s);
        while (!ok) {
            if (Clock::now() >= deadline) throw Error("no answer to HELLO from the server");
            if (!Pump(*conn_, true, deadline, [&](std::span<const uint8_t> head, size_t len) {
                    if (ok) {
                        // -R: the server's data may follow its answer in
                        // the same read; ReverseBulk() takes it first.
                        early_.emplace_back(std::vector<uint8_t>(head.begin(), head.end()), len);
                        return;
                    }
                    auto h = DecodeHeader(head);
                    if (!h || h->type != MsgType::kHelloOk)
                        throw Error("unexpected answer to HELLO (not an mrcperf server?)");
                    ok = true;
                }))
                throw Error("server closed the connection during HELLO");
        }
    }

    bool SendingDone(Clock::time_point now, uint64_t n) const {
        if (stop_ && stop_->load()) return true;
        if (c_.count && n >= c_.count) return true;
        return c_.duration_s > 0 && now >= After(start_, c_.duration_s);
    }

    // The warm-up is over: what is done by now is left out of the figures.
    void BeginMeasure(double t, uint64_t done_msgs, uint64_t done_bytes) {
        measuring_ = true;
        r_.omit_t = t;
        r_.omit_done_msgs = done_msgs;
        r_.omit_done_bytes = done_bytes;
        r_.omit_sent_bytes = r_.sent_bytes;
        r_.omit_rtts = r_.rtt_ns.size();
        window_->Begin();
    }

    // Bulk with -b: may another message leave now? (A token bucket of one
    // message: the sender keeps sent bits <= rate x elapsed + one message.)
    bool RateAllows(Clock::time_point now) const {
        if (!c_.rate_bps) return true;
        return double(r_.sent_bytes) * 8.0 <= double(c_.rate_bps) * Seconds(now - start_);
    }

    // Next moment something must happen besides I/O.
    Clock::time_point NextWake(Clock::time_point now, bool sending) const {
        Clock::time_point w = After(now, 1.0);
        if (!measuring_) w = std::min(w, After(start_, c_.omit_s));
        if (sending && c_.rate_bps)
            w = std::min(w, After(start_, double(r_.sent_bytes) * 8.0 / double(c_.rate_bps)));
        if (!quiet_) w = std::min(w, next_progress_);
        if (c_.interval_ms) w = std::min(w, After(start_, series_.NextDeadline()));
        if (sending && c_.duration_s > 0) w = std::min(w, After(start_, c_.duration_s));
        if (sending && stop_) w = std::min(w, After(now, 0.05));
        if (end_queued_) w = std::min(w, drain_deadline_);
        return w;
    }

    void Tick(Clock::time_point now, uint64_t done_msgs, uint64_t done_bytes) {
        double t = Seconds(now - start_);
        if (!measuring_ && t >= c_.omit_s) BeginMeasure(t, done_msgs, done_bytes);
        if (c_.interval_ms) {
            size_t closed = series_.Update(t, done_bytes, done_msgs);
            if (!quiet_) {
                const auto& s = series_.samples();
                for (size_t i = s.size() - closed; i < s.size(); ++i) {
                    char line[128];
                    std::snprintf(line, sizeof(line), "mrcperf: interval %8.3f s %10.3f Mbit/s\n",
                                  s[i].t_s, s[i].mbps);
                    err_ << line;
                }
            }
        }
        if (!quiet_ && now >= next_progress_) {
            double dt = Seconds(now - last_progress_t_);
            char line[160];
            std::snprintf(line, sizeof(line), "mrcperf: [%6.1f s] %10.3f Mbit/s %10.0f msgs/s\n", t,
                          Mbps(done_bytes - last_progress_bytes_, dt),
                          dt > 0 ? double(done_msgs - last_progress_msgs_) / dt : 0.0);
            err_ << line << std::flush;
            last_progress_t_ = now;
            last_progress_bytes_ = done_bytes;
            last_progress_msgs_ = done_msgs;
            while (next_progress_ <= now) next_progress_ = After(next_progress_, 1.0);
        }
    }

    void QueueEnd(Clock::time_point now) {
        // The counts ride along: a -R client checks what it received.
        conn_->Queue(MakeMsg(
            MsgType::kEnd, 0, 0,
            "msgs=" + std::to_string(r_.sent_msgs) + " bytes=" + std::to_string(r_.sent_bytes)));
        conn_->Flush();
        end_queued_ = true;
        r_.send_seconds = Seconds(now - start_);
        // However long the network stalls, the run ends: the send time again
        // (at least 10 s) for the last messages and the result.
        drain_deadline_ = After(now, std::max(10.0, r_.send_seconds));
    }

    void OnResult(std::span<const uint8_t> head) {
        if (!ParseCounts(HeadText(head), &r_.server)) throw Error("malformed RESULT from server");
        got_result_ = true;
        r_.seconds = Seconds(Clock::now() - start_);
        // A run by count can end before its warm-up would have.
        if (!measuring_) BeginMeasure(0, 0, 0);
        window_->End();
    }

    void Loop(const std::function<void(Clock::time_point)>& fill, const FrameDecoder::Sink& sink,
              const std::function<uint64_t()>& done_msgs,
              const std::function<uint64_t()>& done_bytes) {
        while (!got_result_) {
            auto now = Clock::now();
            Tick(now, done_msgs(), done_bytes());
            if (!end_queued_) fill(now);
            if (end_queued_ && now >= drain_deadline_)
                throw Error("timed out waiting for the server's result (" +
                            std::to_string(done_msgs()) + " of " + std::to_string(r_.sent_msgs) +
                            " messages confirmed)");
            if (!Pump(*conn_, true, NextWake(now, !end_queued_), sink))
                throw Error("server closed the connection");
        }
        Tick(Clock::now(), done_msgs(), done_bytes());
    }

    void Bulk() {
        const uint32_t size = c_.size;
        auto fill = [&](Clock::time_point now) {
            if (SendingDone(now, r_.sent_msgs)) {
                QueueEnd(now);
                return;
            }
            while (r_.sent_msgs - r_.acked_msgs < c_.window && !SendingDone(now, r_.sent_msgs) &&
                   RateAllows(now)) {
                conn_->Queue(MakeMsg(MsgType::kData, r_.sent_msgs, size));
                ++r_.sent_msgs;
                r_.sent_bytes += size;
            }
            conn_->Flush();
        };
        auto sink = [&](std::span<const uint8_t> head, size_t) {
            auto h = DecodeHeader(head);
            if (!h) throw Error("malformed message from server");
            if (h->type == MsgType::kAck) {
                if (h->seq > r_.sent_msgs) throw Error("server acknowledged unsent messages");
                r_.acked_msgs = std::max(r_.acked_msgs, h->seq);
            } else if (h->type == MsgType::kResult) {
                OnResult(head);
            } else {
                throw Error("unexpected message type " +
                            std::to_string(static_cast<uint32_t>(h->type)) + " from server");
            }
        };
        Loop(
            fill, sink, [&] { return r_.acked_msgs; },
            [&] { return r_.acked_msgs * uint64_t{size}; });
    }

    // -R: receive the server's messages, acknowledge every ack_every, and
    // at its END (which carries what it sent) answer with what arrived.
    void ReverseBulk() {
        const uint32_t ack_every = c_.ack_every ? c_.ack_every : 1;
        uint64_t msgs = 0, bytes = 0;
        uint32_t since_ack = 0;
        PeerCounts sent;
        bool ended = false;
        auto sink = [&](std::span<const uint8_t> head, size_t len) {
            auto h = DecodeHeader(head);
            if (!h) throw Error("malformed message from server");
            if (ended) throw Error("message after END");
            if (h->type == MsgType::kData) {
                ++msgs;
                bytes += len;
                if (++since_ack >= ack_every) {
                    conn_->Queue(MakeMsg(MsgType::kAck, msgs, 0));
                    since_ack = 0;
                }
            } else if (h->type == MsgType::kEnd) {
                if (!ParseCounts(HeadText(head), &sent)) throw Error("malformed END from server");
                conn_->Queue(MakeMsg(MsgType::kAck, msgs, 0));
                conn_->Queue(
                    MakeMsg(MsgType::kResult, 0, 0,
                            "msgs=" + std::to_string(msgs) + " bytes=" + std::to_string(bytes)));
                ended = true;
            } else {
                throw Error("unexpected message type " +
                            std::to_string(static_cast<uint32_t>(h->type)) + " from server");
            }
        };
        for (const auto& [head, len] : early_) sink(head, len);
        early_.clear();
        // A sender that stops sending for 10 s is gone (or not a -R server).
        auto last_rx = Clock::now();
        uint64_t last_msgs = msgs;
        while (!ended) {
            auto now = Clock::now();
            Tick(now, msgs, bytes);
            if (msgs != last_msgs) last_msgs = msgs, last_rx = now;
            if (now >= After(last_rx, 10.0))
                throw Error("no data from the server for 10 s (" + std::to_string(msgs) +
                            " messages received)");
            if (!Pump(*conn_, true, std::min(NextWake(now, false), After(last_rx, 10.0)), sink))
                throw Error("server closed the connection before END");
        }
        conn_->Flush();
        r_.seconds = Seconds(Clock::now() - start_);
        r_.send_seconds = r_.seconds;
        if (!measuring_) BeginMeasure(0, 0, 0);
        window_->End();
        Tick(Clock::now(), msgs, bytes);
        // In the sender's terms: what it sent, and what the receiver got.
        r_.sent_msgs = sent.msgs;
        r_.sent_bytes = sent.bytes;
        r_.server.msgs = msgs;
        r_.server.bytes = bytes;
        r_.acked_msgs = msgs;
        // Wait for the server to close (it has our RESULT then).
        auto linger = After(Clock::now(), 10.0);
        bool open = true;
        while (open && Clock::now() < linger)
            open = Pump(*conn_, true, linger, [&](std::span<const uint8_t>, size_t) {
                throw Error("message after END");
            });
    }

    void Rpc() {
        std::unordered_map<uint64_t, Clock::time_point> inflight;
        auto fill = [&](Clock::time_point now) {
            if (SendingDone(now, r_.sent_msgs)) {
                if (inflight.empty()) QueueEnd(now);
                return;
            }
            while (inflight.size() < c_.concurrency && !SendingDone(now, r_.sent_msgs)) {
                conn_->Queue(MakeMsg(MsgType::kReq, r_.sent_msgs, c_.req_size));
                inflight.emplace(r_.sent_msgs, Clock::now());
                ++r_.sent_msgs;
                r_.sent_bytes += c_.req_size;
            }
            conn_->Flush();
        };
        auto sink = [&](std::span<const uint8_t> head, size_t len) {
            auto now = Clock::now();
            auto h = DecodeHeader(head);
            if (!h) throw Error("malformed message from server");
            if (h->type == MsgType::kResp) {
                auto it = inflight.find(h->seq);
                if (it == inflight.end()) throw Error("response to an unknown request");
                if (len != c_.resp_size)
                    throw Error("response of " + std::to_string(len) + " bytes, expected " +
                                std::to_string(c_.resp_size));
                r_.rtt_ns.push_back(static_cast<uint64_t>(
                    std::chrono::duration_cast<std::chrono::nanoseconds>(now - it->second)
                        .count()));
                inflight.erase(it);
                ++r_.resp_msgs;
                r_.resp_bytes += len;
                // Keep the pipeline full without waiting for the next wake.
                if (!end_queued_) fill(now);
            } else if (h->type == MsgType::kAck) {
                // final count before RESULT
            } else if (h->type == MsgType::kResult) {
                OnResult(head);
            } else {
                throw Error("unexpected message type " +
                            std::to_string(static_cast<uint32_t>(h->type)) + " from server");
            }
        };
        Loop(
            fill, sink, [&] { return r_.resp_msgs; }, [&] { return r_.resp_bytes; });
    }

    const Config& c_;
    const std::atomic<bool>* stop_;
    std::ostream& err_;
    MeasureWindow* window_;
    bool quiet_;
    bool reverse_;
    bool measuring_ = false;
    std::unique_ptr<MsgConn> conn_;
    ClientRun r_;
    IntervalSeries series_;
    Clock::time_point start_{};
    Clock::time_point next_progress_{};
    Clock::time_point last_progress_t_{};
    uint64_t last_progress_bytes_ = 0, last_progress_msgs_ = 0;
    bool end_queued_ = false;
    bool got_result_ = false;
    // Messages that arrived with the answer to HELLO (-R).
    std::vector<std::pair<std::vector<uint8_t>, size_t>> early_;
    Clock::time_point drain_deadline_{};
};

void WriteHeader(JsonWriter& w, const Config& c, std::string_view role) {
    w.Field("tool", "mrcperf").Field("version", 1);
    w.Field("role", role).Field("mode", ModeName(c.mode));
    w.Field("transport", TransportName(c.transport));
    if (!c.label.empty()) w.Field("label", c.label);
}

}  // namespace

std::string EncodeParams(const SessionParams& p) {
    std::string t =
        "mode=" + std::string(ModeName(p.mode)) + " ack_every=" + std::to_string(p.ack_every) +
        " resp_size=" + std::to_string(p.resp_size) + " max_msg=" + std::to_string(p.max_msg);
    if (p.reverse)
        t += " reverse=1 size=" + std::to_string(p.size) + " window=" + std::to_string(p.window) +
             " duration_ms=" + std::to_string(p.duration_ms) + " count=" + std::to_string(p.count) +
             " rate=" + std::to_string(p.rate_bps);
    return t;
}

bool DecodeParams(std::string_view text, SessionParams* p) {
    std::istringstream in{std::string(text)};
    std::string w;
    int found = 0;
    try {
        while (in >> w) {
            auto eq = w.find('=');
            if (eq == std::string::npos) continue;
            std::string k = w.substr(0, eq), v = w.substr(eq + 1);
            if (k == "mode") {
                if (v == "bulk")
                    p->mode = Mode::kBulk;
                else if (v == "pingpong")
                    p->mode = Mode::kPingpong;
                else if (v == "rpc")
                    p->mode = Mode::kRpc;
                else
                    return false;
                found |= 1;
            } else if (k == "ack_every") {
                p->ack_every = static_cast<uint32_t>(std::stoul(v));
                found |= 2;
            } else if (k == "resp_size") {
                p->resp_size = static_cast<uint32_t>(std::stoul(v));
                found |= 4;
            } else if (k == "max_msg") {
                p->max_msg = static_cast<uint32_t>(std::stoul(v));
                found |= 8;
            } else if (k == "reverse") {
                p->reverse = v == "1";
            } else if (k == "size") {
                p->size = static_cast<uint32_t>(std::stoul(v));
            } else if (k == "window") {
                p->window = static_cast<uint32_t>(std::stoul(v));
            } else if (k == "duration_ms") {
                p->duration_ms = std::stoull(v);
            } else if (k == "count") {
                p->count = std::stoull(v);
            } else if (k == "rate") {
                p->rate_bps = std::stoull(v);
            }
        }
    } catch (const std::exception&) {
        return false;
    }
    if (found != 15 || p->ack_every == 0 || p->max_msg > kMaxMessage || p->resp_size > kMaxMessage)
        return false;
    if (p->mode != Mode::kBulk && p->resp_size < kHeaderSize) return false;
    if (p->reverse &&
        (p->mode != Mode::kBulk || p->size < kHeaderSize || p->size > kMaxMessage || !p->window ||
         p->window > 65536 || (!p->duration_ms && !p->count) || p->duration_ms > 86'400'000))
        return false;
    return true;
}

namespace {

// One run: every connection of -P, their measured interval and CPU.
struct RunResult {
    std::vector<ClientRun> streams;
    std::vector<IntervalSample> intervals;  // summed over the connections
    double seconds = 0;                     // the measured interval
    CpuUsage cpu;
    std::string info_json;  // transport counters of the first connection
    // --load: the bulk connections beside the latency test.
    std::vector<ClientRun> load;
};

// The figures of a run, what the report and the summary are made of.
struct Figures {
    bool counts_ok = true;
    uint64_t msgs_sent = 0, bytes_sent = 0, server_msgs = 0, server_bytes = 0;
    uint64_t measured_bytes = 0, measured_msgs = 0;  // after the warm-up
    uint64_t round_trips = 0, resp_bytes = 0;
    double goodput_mbps = 0, msgs_per_s = 0, round_trips_per_s = 0;
    double send_seconds = 0;
    LatencySummary lat;
    // --load: what the bulk connections beside the test moved.
    uint64_t load_bytes = 0;
    double load_seconds = 0, load_mbps = 0;
    bool load_counts_ok = true;
    // --bidir: the measured bytes and goodput of each direction.
    uint64_t fwd_bytes = 0, rev_bytes = 0;
    double fwd_mbps = 0, rev_mbps = 0;
};

// The --load connections: bulk beside the latency test, until `stop`.
Config LoadConfig(const Config& c) {
    Config l = c;
    l.mode = Mode::kBulk;
    l.size = 64 * 1024;
    l.window = 32;
    l.ack_every = 8;
    l.reverse = l.bidir = false;
    l.parallel = c.load;
    l.count = 0;
    l.duration_s = 0;  // until stopped
    l.omit_s = 0;
    l.interval_ms = 0;
    l.rate_bps = 0;
    l.quiet = true;
    l.load = 0;
    return l;
}

RunResult RunOnce(const Config& c, std::ostream& err) {
    const size_t n = c.parallel * (c.bidir ? 2 : 1);
    // Load first, so that the latency test starts beside a running flow
    // (its -O leaves the ramp-up out).
    const Config lc = LoadConfig(c);
    MeasureWindow load_window(c.proc_stat, c.load);
    std::atomic<bool> stop_load{false};
    std::vector<std::unique_ptr<Client>> loaders;
    std::vector<ClientRun> load_runs(c.load);
    std::vector<std::exception_ptr> load_errors(c.load);
    std::vector<std::jthread> load_threads;
    for (size_t i = 0; i < c.load; ++i) {
        loaders.push_back(std::make_unique<Client>(lc, err, i, &load_window, &stop_load));
        load_threads.emplace_back([&, i] {
            try {
                load_runs[i] = loaders[i]->Run();
            } catch (...) {
                load_errors[i] = std::current_exception();
            }
        });
    }
    // The latency test starts once every load connection is sending: with
    // 2 cores a short test could otherwise finish before a loader ran.
    if (c.load) load_window.WaitAllBegun(std::chrono::seconds(10));
    struct StopLoad {
        std::atomic<bool>& stop;
        std::vector<std::jthread>& threads;
        ~StopLoad() {
            stop = true;
            threads.clear();  // joins
        }
    } stop_guard{stop_load, load_threads};
    MeasureWindow window(c.proc_stat, n);
    std::vector<std::unique_ptr<Client>> clients;
    for (size_t i = 0; i < n; ++i) clients.push_back(std::make_unique<Client>(c, err, i, &window));
    RunResult r;
    r.streams.resize(n);
    std::vector<std::exception_ptr> errors(n);
    {
        std::vector<std::jthread> threads;
        for (size_t i = 1; i < n; ++i)
            threads.emplace_back([&, i] {
                try {
                    r.streams[i] = clients[i]->Run();
                } catch (...) {
                    errors[i] = std::current_exception();
                }
            });
        try {
            r.streams[0] = clients[0]->Run();
        } catch (...) {
            errors[0] = std::current_exception();
        }
    }
    for (size_t i = 0; i < n; ++i) {
        if (!errors[i]) continue;
        if (n == 1) std::rethrow_exception(errors[i]);
        try {
            std::rethrow_exception(errors[i]);
        } catch (const Error& e) {
            throw Error(
                "connection " + std::to_string(i) + " (" + r.streams[i].peer + "): " + e.what(),
                e.code());
        } catch (const std::exception& e) {
            throw Error("connection " + std::to_string(i) + ": " + e.what());
        }
    }
    r.seconds = window.Seconds();
    r.cpu = window.Usage();
    r.info_json = r.streams[0].info_json;
    stop_load = true;
    load_threads.clear();  // joins: every load connection has its result
    for (size_t i = 0; i < c.load; ++i) {
        if (!load_errors[i]) continue;
        try {
            std::rethrow_exception(load_errors[i]);
        } catch (const std::exception& e) {
            throw Error("load connection " + std::to_string(i) + ": " + e.what());
        }
    }
    r.load = std::move(load_runs);
    for (const auto& cl : clients) {
        const auto& iv = cl->series().samples();
        if (r.intervals.size() < iv.size()) r.intervals.resize(iv.size());
        for (size_t k = 0; k < iv.size(); ++k) {
            r.intervals[k].t_s = iv[k].t_s;
            r.intervals[k].bytes += iv[k].bytes;
            r.intervals[k].msgs += iv[k].msgs;
            r.intervals[k].mbps += iv[k].mbps;
        }
    }
    return r;
}

Figures Compute(const Config& c, const RunResult& r) {
    Figures f;
    std::vector<uint64_t> rtts;
    for (const auto& s : r.streams) {
        f.counts_ok &= s.server.msgs == s.sent_msgs && s.server.bytes == s.sent_bytes;
        f.msgs_sent += s.sent_msgs;
        f.bytes_sent += s.sent_bytes;
        f.server_msgs += s.server.msgs;
        f.server_bytes += s.server.bytes;
        f.round_trips += s.resp_msgs;
        f.resp_bytes += s.resp_bytes;
        f.send_seconds = std::max(f.send_seconds, s.send_seconds);
        if (c.mode == Mode::kBulk) {
            const uint64_t b = s.server.bytes - std::min(s.server.bytes, s.omit_done_bytes);
            f.measured_bytes += b;
            (s.reverse ? f.rev_bytes : f.fwd_bytes) += b;
            f.measured_msgs += s.server.msgs - std::min(s.server.msgs, s.omit_done_msgs);
        } else {
            f.measured_bytes += s.sent_bytes + s.resp_bytes - s.omit_sent_bytes - s.omit_done_bytes;
            f.measured_msgs += s.resp_msgs - s.omit_done_msgs;
            rtts.insert(rtts.end(), s.rtt_ns.begin() + static_cast<ptrdiff_t>(s.omit_rtts),
                        s.rtt_ns.end());
        }
    }
    f.goodput_mbps = Mbps(f.measured_bytes, r.seconds);
    for (const auto& s : r.load) {
        f.load_bytes += s.server.bytes;
        f.load_seconds = std::max(f.load_seconds, s.seconds);
        f.load_counts_ok &= s.server.msgs == s.sent_msgs && s.server.bytes == s.sent_bytes;
    }
    f.load_mbps = Mbps(f.load_bytes, f.load_seconds);
    f.counts_ok &= f.load_counts_ok;
    f.fwd_mbps = Mbps(f.fwd_bytes, r.seconds);
    f.rev_mbps = Mbps(f.rev_bytes, r.seconds);
    const double per_s = r.seconds > 0 ? double(f.measured_msgs) / r.seconds : 0.0;
    if (c.mode == Mode::kBulk) {
        f.msgs_per_s = per_s;
    } else {
        f.round_trips_per_s = per_s;
        f.lat = Summarize(rtts);
    }
    return f;
}

void WriteCpu(JsonWriter& w, const CpuUsage& u, uint64_t bytes, const std::string& source) {
    w.Key("cpu").BeginObject();
    w.Field("source", source).Field("valid", u.valid);
    if (u.valid) {
        w.Field("ncpu", u.ncpu)
            .Field("user_s", u.user_s)
            .Field("system_s", u.system_s)
            .Field("irq_s", u.irq_s)
            .Field("softirq_s", u.softirq_s)
            .Field("steal_s", u.other_s)
            .Field("idle_s", u.idle_s)
            .Field("busy_s", u.busy_s)
            .Field("utilisation", u.Utilisation())
            .Field("busiest_cpu_utilisation", u.max_cpu_util)
            .Field("service_demand_us_per_mb", u.ServiceDemandUsPerMB(bytes));
    }
    w.EndObject();
}

void WriteResult(JsonWriter& w, const Config& c, const RunResult& r, const Figures& f) {
    w.Key("result").BeginObject();
    w.Field("start_unix_ms", r.streams[0].start_unix_ms);
    w.Field("seconds", r.seconds).Field("send_seconds", f.send_seconds);
    w.Field("omit_s", c.omit_s).Field("connections", static_cast<uint64_t>(r.streams.size()));
    w.Field("msgs_sent", f.msgs_sent).Field("bytes_sent", f.bytes_sent);
    w.Field("server_msgs", f.server_msgs).Field("server_bytes", f.server_bytes);
    w.Field("measured_bytes", f.measured_bytes);
    w.Field("goodput_mbps", f.goodput_mbps);
    if (c.load) {
        w.Key("load").BeginObject();
        w.Field("connections", static_cast<uint64_t>(r.load.size()));
        w.Field("size", 65536u).Field("bytes", f.load_bytes).Field("seconds", f.load_seconds);
        w.Field("goodput_mbps", f.load_mbps).Field("counts_ok", f.load_counts_ok);
        w.EndObject();
    }
    if (c.bidir) {
        // goodput_mbps is both directions together, as iperf3's sums.
        w.Key("bidir").BeginObject();
        w.Field("client_to_server_mbps", f.fwd_mbps).Field("server_to_client_mbps", f.rev_mbps);
        w.Field("client_to_server_bytes", f.fwd_bytes).Field("server_to_client_bytes", f.rev_bytes);
        w.EndObject();
    }
    if (c.mode == Mode::kBulk) {
        w.Field("msgs_per_s", f.msgs_per_s);
    } else {
        w.Field("round_trips", f.round_trips);
        w.Field("round_trips_per_s", f.round_trips_per_s);
        w.Field("resp_bytes", f.resp_bytes);
        WriteLatency(w, f.lat);
    }
    w.EndObject();
    WriteCpu(w, r.cpu, f.measured_bytes, c.proc_stat);
    if (r.streams.size() > 1) {
        w.Key("streams").BeginArray();
        for (const auto& s : r.streams) {
            const double secs = s.seconds - s.omit_t;
            const uint64_t bytes =
                c.mode == Mode::kBulk
                    ? s.server.bytes - std::min(s.server.bytes, s.omit_done_bytes)
                    : s.sent_bytes + s.resp_bytes - s.omit_sent_bytes - s.omit_done_bytes;
            w.BeginObject()
                .Field("peer", s.peer)
                .Field("bind", s.bind)
                .Field("direction", s.reverse ? "server_to_client" : "client_to_server")
                .Field("server_msgs", s.server.msgs)
                .Field("server_bytes", s.server.bytes)
                .Field("seconds", secs)
                .Field("goodput_mbps", Mbps(bytes, secs))
                .EndObject();
        }
        w.EndArray();
    }
}

void WriteSpread(JsonWriter& w, std::string_view key, const Spread& s) {
    w.Key(key).BeginObject();
    w.Field("count", static_cast<uint64_t>(s.count))
        .Field("median", s.median)
        .Field("min", s.min)
        .Field("max", s.max)
        .Field("mean", s.mean)
        .Field("stdev", s.stdev)
        .Field("ci95_low", s.ci95_low)
        .Field("ci95_high", s.ci95_high);
    w.EndObject();
}

std::string TextLine(const Config& c, const RunResult& r, const Figures& f) {
    char line[512];
    const std::string t(TransportName(c.transport));
    const std::string conns =
        r.streams.size() > 1 ? " x" + std::to_string(r.streams.size()) + " connections" : "";
    if (c.mode == Mode::kBulk) {
        std::snprintf(line, sizeof(line),
                      "%s bulk%s: %llu msgs of %u bytes in %.3f s: %.3f Mbit/s (%.0f msgs/s)\n",
                      t.c_str(), conns.c_str(), static_cast<unsigned long long>(f.measured_msgs),
                      c.size, r.seconds, f.goodput_mbps, f.msgs_per_s);
    } else {
        std::snprintf(line, sizeof(line),
                      "%s %s%s: %llu round trips (%u/%u bytes, %u in flight) in %.3f s, %.0f/s; "
                      "latency us p50 %.1f p99 %.1f p999 %.1f max %.1f\n",
                      t.c_str(), std::string(ModeName(c.mode)).c_str(), conns.c_str(),
                      static_cast<unsigned long long>(f.measured_msgs), c.req_size, c.resp_size,
                      c.concurrency, r.seconds, f.round_trips_per_s, f.lat.p50_us, f.lat.p99_us,
                      f.lat.p999_us, f.lat.max_us);
    }
    std::string text = line;
    if (c.bidir) {
        std::snprintf(line, sizeof(line),
                      "  client->server %.3f Mbit/s, server->client %.3f Mbit/s\n", f.fwd_mbps,
                      f.rev_mbps);
        text += line;
    }
    if (c.load) {
        std::snprintf(line, sizeof(line),
                      "  under load: %zu bulk connection(s) beside it moved %.3f Mbit/s\n",
                      r.load.size(), f.load_mbps);
        text += line;
    }
    const CpuUsage& u = r.cpu;
    if (u.valid) {
        std::snprintf(line, sizeof(line),
                      "  cpu: %.1f%% of %u CPUs (busiest %.1f%%), %.0f CPU-us/MB; user %.3f s, "
                      "system %.3f s, softirq %.3f s, irq %.3f s\n",
                      100 * u.Utilisation(), u.ncpu, 100 * u.max_cpu_util,
                      u.ServiceDemandUsPerMB(f.measured_bytes), u.user_s, u.system_s, u.softirq_s,
                      u.irq_s);
    } else {
        std::snprintf(line, sizeof(line), "  cpu: not measured (%s unreadable)\n",
                      c.proc_stat.c_str());
    }
    return text + line;
}

std::string SpreadText(std::string_view what, const Spread& s, std::string_view unit) {
    char line[256];
    std::snprintf(line, sizeof(line),
                  "  %s: median %.3f %s, min %.3f, max %.3f, 95%% interval of the mean "
                  "%.3f..%.3f\n",
                  std::string(what).c_str(), s.median, std::string(unit).c_str(), s.min, s.max,
                  s.ci95_low, s.ci95_high);
    return line;
}

}  // namespace

int RunClient(const Config& c, std::ostream& out, std::ostream& err) {
    std::vector<RunResult> runs;
    try {
        for (uint32_t i = 0; i < c.repeat; ++i) {
            runs.push_back(RunOnce(c, err));
            if (!c.quiet && c.repeat > 1)
                err << "mrcperf: run " << i + 1 << " of " << c.repeat << " done\n" << std::flush;
        }
    } catch (const std::exception& ex) {
        const auto* me = dynamic_cast<const Error*>(&ex);
        const Error e(ex.what(), me ? me->code() : kExitFail);
        err << "mrcperf: " << TransportName(c.transport) << " " << ModeName(c.mode) << ": "
            << e.what() << "\n";
        if (c.json) {
            JsonWriter w;
            w.BeginObject();
            WriteHeader(w, c, "client");
            WriteParams(w, c);
            w.Field("ok", false).Field("exit_code", e.code()).Field("error", e.what());
            w.EndObject();
            out << w.str() << "\n";
        }
        return e.code();
    }

    std::vector<Figures> figs;
    bool counts_ok = true;
    for (const auto& r : runs) {
        figs.push_back(Compute(c, r));
        counts_ok &= figs.back().counts_ok;
    }
    // The run reported as "result": the median by goodput (bulk) or by
    // round trips per second.
    std::vector<size_t> order(runs.size());
    for (size_t i = 0; i < order.size(); ++i) order[i] = i;
    auto key = [&](size_t i) {
        return c.mode == Mode::kBulk ? figs[i].goodput_mbps : figs[i].round_trips_per_s;
    };
    std::sort(order.begin(), order.end(), [&](size_t a, size_t b) { return key(a) < key(b); });
    const size_t med = order[(order.size() - 1) / 2];

    std::vector<double> goodput, sd, util, rtps, p50, p99;
    for (size_t i = 0; i < runs.size(); ++i) {
        goodput.push_back(figs[i].goodput_mbps);
        if (runs[i].cpu.valid) {
            sd.push_back(runs[i].cpu.ServiceDemandUsPerMB(figs[i].measured_bytes));
            util.push_back(runs[i].cpu.Utilisation());
        }
        rtps.push_back(figs[i].round_trips_per_s);
        p50.push_back(figs[i].lat.p50_us);
        p99.push_back(figs[i].lat.p99_us);
    }

    JsonWriter w;
    w.BeginObject();
    WriteHeader(w, c, "client");
    WriteParams(w, c);
    w.Field("ok", counts_ok);
    if (!counts_ok) w.Field("error", "message counts differ between client and server");
    WriteResult(w, c, runs[med], figs[med]);
    if (c.interval_ms) WriteIntervals(w, runs[med].intervals);
    if (runs.size() > 1) {
        w.Field("median_run", static_cast<uint64_t>(med));
        w.Key("runs").BeginArray();
        for (size_t i = 0; i < runs.size(); ++i) {
            w.BeginObject();
            WriteResult(w, c, runs[i], figs[i]);
            w.EndObject();
        }
        w.EndArray();
        w.Key("summary").BeginObject();
        WriteSpread(w, "goodput_mbps", SummarizeRuns(goodput));
        WriteSpread(w, "service_demand_us_per_mb", SummarizeRuns(sd));
        WriteSpread(w, "utilisation", SummarizeRuns(util));
        if (c.mode != Mode::kBulk) {
            WriteSpread(w, "round_trips_per_s", SummarizeRuns(rtps));
            WriteSpread(w, "latency_p50_us", SummarizeRuns(p50));
            WriteSpread(w, "latency_p99_us", SummarizeRuns(p99));
        }
        w.EndObject();
    }
    // info_json is a complete object written by MsgConn::WriteInfo.
    w.Key("transport_info").Raw(runs[med].info_json).EndObject();

    if (c.json) {
        out << w.str() << "\n";
    } else {
        for (size_t i = 0; i < runs.size(); ++i) {
            if (runs.size() > 1) out << "[run " << i + 1 << "/" << runs.size() << "] ";
            out << TextLine(c, runs[i], figs[i]);
        }
        if (runs.size() > 1) {
            out << runs.size() << " runs:\n";
            out << SpreadText("goodput", SummarizeRuns(goodput), "Mbit/s");
            if (!sd.empty()) out << SpreadText("service demand", SummarizeRuns(sd), "CPU-us/MB");
            if (c.mode != Mode::kBulk) {
                out << SpreadText("round trips", SummarizeRuns(rtps), "/s");
                out << SpreadText("latency p99", SummarizeRuns(p99), "us");
            }
        }
    }
    if (!counts_ok) {
        for (const auto& r : runs)
            for (const auto& s : r.streams)
                if (s.server.msgs != s.sent_msgs || s.server.bytes != s.sent_bytes)
                    err << "mrcperf: message counts differ (" << s.peer << "): sent " << s.sent_msgs
                        << " msgs/" << s.sent_bytes << " bytes, server got " << s.server.msgs << "/"
                        << s.server.bytes << "\n";
        return kExitFail;
    }
    return kExitOk;
}

// ---- server ----------------------------------------------------------------

namespace {

class Server {
  public:
    Server(const Config& c, std::ostream& out, std::ostream& err) : c_(c), out_(out), err_(err) {}

    // One session; returns true when it completed (END seen, RESULT sent).
    bool Serve(Fd fd, const std::string& peer) {
        TuneConnected(c_.transport, fd);
        auto connp = std::make_unique<MsgConn>(std::move(fd), c_.transport);
        MsgConn& conn = *connp;
        SessionParams p;
        uint64_t msgs = 0, bytes = 0;
        uint32_t since_ack = 0;
        bool hello = false, ended = false, complete = false;
        Clock::time_point start = Clock::now(), end_t = start;
        std::string error;
        try {
            auto sink = [&](std::span<const uint8_t> head, size_t len) {
                auto h = DecodeHeader(head);
                if (!h) throw Error("malformed message from client");
                if (!hello) {
                    if (h->type != MsgType::kHello || !DecodeParams(HeadText(head), &p))
                        throw Error("bad HELLO from client");
                    hello = true;
                    conn.SetMaxMessage(std::max<size_t>(p.max_msg, 4096));
                    conn.Queue(MakeMsg(MsgType::kHelloOk, 0, 0));
                    start = Clock::now();
                    return;
                }
                if (ended) throw Error("message after END");
                switch (h->type) {
                    case MsgType::kData:
                        ++msgs;
                        bytes += len;
                        if (++since_ack >= p.ack_every) {
                            conn.Queue(MakeMsg(MsgType::kAck, msgs, 0));
                            since_ack = 0;
                        }
                        break;
                    case MsgType::kReq:
                        ++msgs;
                        bytes += len;
                        conn.Queue(MakeMsg(MsgType::kResp, h->seq, p.resp_size));
                        break;
                    case MsgType::kEnd:
                        end_t = Clock::now();
                        conn.Queue(MakeMsg(MsgType::kAck, msgs, 0));
                        conn.Queue(MakeMsg(
                            MsgType::kResult, 0, 0,
                            "msgs=" + std::to_string(msgs) + " bytes=" + std::to_string(bytes)));
                        ended = true;
                        break;
                    default:
                        throw Error("unexpected message type " +
                                    std::to_string(static_cast<uint32_t>(h->type)));
                }
            };
            auto hello_deadline = After(Clock::now(), 10.0);
            while (!hello) {
                if (Clock::now() >= hello_deadline) throw Error("no HELLO from client");
                if (!Pump(conn, true, hello_deadline, sink))
                    throw Error("client closed before HELLO");
            }
            if (p.reverse) {
                // -R: this end is the bulk sender, with the client's parameters.
                conn.Flush();
                Config sc = c_;
                sc.mode = Mode::kBulk;
                sc.size = p.size;
                sc.window = p.window;
                sc.duration_s = double(p.duration_ms) / 1000.0;
                sc.count = p.count;
                sc.rate_bps = p.rate_bps;
                sc.quiet = true;
                sc.interval_ms = 0;
                sc.omit_s = 0;
                sc.parallel = 1;
                sc.proc_stat = "";
                MeasureWindow w("", 1);
                Client sender(sc, err_, 0, &w);
                ClientRun r = sender.RunAsSender(std::move(connp));
                end_t = Clock::now();
                msgs = r.sent_msgs;
                bytes = r.sent_bytes;
                ended = true;
                complete = r.server.msgs == r.sent_msgs && r.server.bytes == r.sent_bytes;
                if (!complete) error = "the client received other counts than were sent";
            }
            // Stop reading while a lot is queued (the client is not reading).
            while (!ended && !p.reverse) {
                bool more =
                    Pump(conn, conn.QueuedBytes() < (4u << 20), After(Clock::now(), 0.5), sink);
                if (!more) throw Error("client closed the connection before END");
            }
            // Send the result, then wait for the client to close so that
            // nothing queued is cut off by our close.
            if (!p.reverse) {
                auto linger = After(Clock::now(), 10.0);
                bool open = true;
                while (open && Clock::now() < linger)
                    open = Pump(conn, !conn.WantsWrite(), linger,
                                [&](std::span<const uint8_t>, size_t) {
                                    throw Error("message after END");
                                });
                complete = !conn.WantsWrite();
                if (!complete) error = "could not deliver the result";
            }
        } catch (const std::exception& e) {
            error = e.what();
            if (!ended) end_t = Clock::now();
        }
        double secs = Seconds(end_t - start);
        std::lock_guard<std::mutex> lock(mu_);
        if (c_.json) {
            JsonWriter w;
            w.BeginObject();
            WriteHeader(w, c_, "server");
            w.Field("session_mode", ModeName(p.mode)).Field("peer", peer);
            w.Field("reverse", p.reverse);
            w.Field("ok", complete);
            if (!error.empty()) w.Field("error", error);
            w.Key("result").BeginObject();
            w.Field("msgs", msgs).Field("bytes", bytes).Field("seconds", secs);
            w.Field("goodput_mbps", Mbps(bytes, secs));
            w.EndObject().EndObject();
            out_ << w.str() << "\n" << std::flush;
        }
        if (!c_.quiet || !error.empty()) {
            char line[200];
            std::snprintf(line, sizeof(line),
                          "mrcperf: server: %s %s from %s: %llu msgs, %llu bytes, %.3f s, %.3f "
                          "Mbit/s%s%s\n",
                          std::string(TransportName(c_.transport)).c_str(),
                          std::string(ModeName(p.mode)).c_str(), peer.c_str(),
                          static_cast<unsigned long long>(msgs),
                          static_cast<unsigned long long>(bytes), secs, Mbps(bytes, secs),
                          error.empty() ? "" : ": ", error.c_str());
            err_ << line << std::flush;
        }
        return complete;
    }

  private:
    const Config& c_;
    std::ostream& out_;
    std::ostream& err_;
    std::mutex mu_;
};

struct Session {
    std::jthread thread;
    std::shared_ptr<std::atomic<bool>> done;
};

}  // namespace

int RunServer(const Config& c, std::ostream& out, std::ostream& err, const std::atomic<bool>* stop,
              const std::function<void(uint16_t)>& on_listening) {
    Fd lfd;
    try {
        lfd = Listen(c.transport, MakeEndpoint(c.transport, c.bind, c.port));
    } catch (const Error& e) {
        err << "mrcperf: server: " << e.what() << "\n";
        return e.code();
    }
    uint16_t port = LocalPort(c.transport, lfd);
    if (!c.quiet)
        err << "mrcperf: server listening on " << (c.bind.empty() ? "[::]" : c.bind) << " port "
            << port << " (" << TransportName(c.transport) << ")\n"
            << std::flush;
    if (on_listening) on_listening(port);

    Server server(c, out, err);
    std::list<Session> sessions;
    for (;;) {
        if (stop && stop->load()) break;
        pollfd p{lfd.get(), POLLIN, 0};
        int n = ::poll(&p, 1, 200);
        if (n < 0 && errno != EINTR) {
            err << "mrcperf: server: poll: " << std::strerror(errno) << "\n";
            return kExitFail;
        }
        sessions.remove_if([](const Session& s) { return s.done->load(); });
        if (n <= 0) continue;
        Endpoint peer;
        peer.len = sizeof(peer.ss);
        int fd =
            ::accept4(lfd.get(), reinterpret_cast<sockaddr*>(&peer.ss), &peer.len, SOCK_CLOEXEC);
        if (fd < 0) {
            if (errno == EINTR || errno == EAGAIN || errno == ECONNABORTED) continue;
            err << "mrcperf: server: accept: " << std::strerror(errno) << "\n";
            return kExitFail;
        }
        Fd conn(fd);
        std::string who = EndpointText(c.transport, peer);
        if (c.once) return server.Serve(std::move(conn), who) ? kExitOk : kExitFail;
        auto done = std::make_shared<std::atomic<bool>>(false);
        sessions.push_back(Session{std::jthread(
                                       [&server, done, who](Fd f) {
                                           server.Serve(std::move(f), who);
                                           done->store(true);
                                       },
                                       std::move(conn)),
                                   done});
    }
    return kExitOk;
}

}  // namespace mrcperf
