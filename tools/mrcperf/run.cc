#include "run.h"

#include <poll.h>
#include <sys/socket.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <list>
#include <memory>
#include <mutex>
#include <sstream>
#include <thread>
#include <unordered_map>
#include <vector>

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

void WriteIntervals(JsonWriter& w, const IntervalSeries& series) {
    w.Key("intervals").BeginArray();
    for (const auto& s : series.samples())
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
};

class Client {
  public:
    Client(const Config& c, std::ostream& err)
        : c_(c), err_(err), series_(c.interval_ms ? c.interval_ms / 1000.0 : 1.0) {}

    ClientRun Run() {
        Endpoint peer = MakeEndpoint(c_.transport, c_.peer, c_.port);
        std::unique_ptr<Endpoint> local;
        if (!c_.bind.empty())
            local = std::make_unique<Endpoint>(MakeEndpoint(c_.transport, c_.bind, 0));
        conn_ = std::make_unique<MsgConn>(
            Connect(c_.transport, peer, local.get(), c_.connect_timeout_s), c_.transport);
        const uint32_t max_in = c_.mode == Mode::kBulk ? 4096 : c_.resp_size + 4096;
        conn_->SetMaxMessage(std::max<uint32_t>(max_in, 4096));
        Hello();
        start_ = Clock::now();
        r_.start_unix_ms =
            static_cast<uint64_t>(std::chrono::duration_cast<std::chrono::milliseconds>(
                                      std::chrono::system_clock::now().time_since_epoch())
                                      .count());
        last_progress_t_ = start_;
        next_progress_ = After(start_, 1.0);
        if (c_.mode == Mode::kBulk)
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
        conn_->Queue(MakeMsg(MsgType::kHello, 0, 0, EncodeParams(p)));
        conn_->Flush();
        bool ok = false;
        auto deadline = After(Clock::now(), c_.connect_timeout_s);
        while (!ok) {
            if (Clock::now() >= deadline) throw Error("no answer to HELLO from the server");
            if (!Pump(*conn_, true, deadline, [&](std::span<const uint8_t> head, size_t) {
                    auto h = DecodeHeader(head);
                    if (!h || h->type != MsgType::kHelloOk)
                        throw Error("unexpected answer to HELLO (not an mrcperf server?)");
                    ok = true;
                }))
                throw Error("server closed the connection during HELLO");
        }
    }

    bool SendingDone(Clock::time_point now, uint64_t n) const {
        if (c_.count && n >= c_.count) return true;
        return c_.duration_s > 0 && now >= After(start_, c_.duration_s);
    }

    // Next moment something must happen besides I/O.
    Clock::time_point NextWake(Clock::time_point now, bool sending) const {
        Clock::time_point w = After(now, 1.0);
        if (!c_.quiet) w = std::min(w, next_progress_);
        if (c_.interval_ms) w = std::min(w, After(start_, series_.NextDeadline()));
        if (sending && c_.duration_s > 0) w = std::min(w, After(start_, c_.duration_s));
        if (end_queued_) w = std::min(w, drain_deadline_);
        return w;
    }

    void Tick(Clock::time_point now, uint64_t done_msgs, uint64_t done_bytes) {
        double t = Seconds(now - start_);
        if (c_.interval_ms) {
            size_t closed = series_.Update(t, done_bytes, done_msgs);
            if (!c_.quiet) {
                const auto& s = series_.samples();
                for (size_t i = s.size() - closed; i < s.size(); ++i) {
                    char line[128];
                    std::snprintf(line, sizeof(line), "mrcperf: interval %8.3f s %10.3f Mbit/s\n",
                                  s[i].t_s, s[i].mbps);
                    err_ << line;
                }
            }
        }
        if (!c_.quiet && now >= next_progress_) {
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
        conn_->Queue(MakeMsg(MsgType::kEnd, 0, 0));
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
            while (r_.sent_msgs - r_.acked_msgs < c_.window && !SendingDone(now, r_.sent_msgs)) {
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
    std::ostream& err_;
    std::unique_ptr<MsgConn> conn_;
    ClientRun r_;
    IntervalSeries series_;
    Clock::time_point start_{};
    Clock::time_point next_progress_{};
    Clock::time_point last_progress_t_{};
    uint64_t last_progress_bytes_ = 0, last_progress_msgs_ = 0;
    bool end_queued_ = false;
    bool got_result_ = false;
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
    return "mode=" + std::string(ModeName(p.mode)) + " ack_every=" + std::to_string(p.ack_every) +
           " resp_size=" + std::to_string(p.resp_size) + " max_msg=" + std::to_string(p.max_msg);
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
            }
        }
    } catch (const std::exception&) {
        return false;
    }
    if (found != 15 || p->ack_every == 0 || p->max_msg > kMaxMessage || p->resp_size > kMaxMessage)
        return false;
    if (p->mode != Mode::kBulk && p->resp_size < kHeaderSize) return false;
    return true;
}

int RunClient(const Config& c, std::ostream& out, std::ostream& err) {
    Client client(c, err);
    ClientRun r;
    try {
        r = client.Run();
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

    bool counts_ok = r.server.msgs == r.sent_msgs && r.server.bytes == r.sent_bytes;
    JsonWriter w;
    w.BeginObject();
    WriteHeader(w, c, "client");
    WriteParams(w, c);
    w.Field("ok", counts_ok);
    if (!counts_ok) w.Field("error", "message counts differ between client and server");
    w.Key("result").BeginObject();
    w.Field("start_unix_ms", r.start_unix_ms);
    w.Field("seconds", r.seconds).Field("send_seconds", r.send_seconds);
    w.Field("msgs_sent", r.sent_msgs).Field("bytes_sent", r.sent_bytes);
    w.Field("server_msgs", r.server.msgs).Field("server_bytes", r.server.bytes);
    LatencySummary lat;
    if (c.mode == Mode::kBulk) {
        w.Field("goodput_mbps", Mbps(r.server.bytes, r.seconds));
        w.Field("msgs_per_s", r.seconds > 0 ? double(r.server.msgs) / r.seconds : 0.0);
    } else {
        lat = Summarize(r.rtt_ns);
        w.Field("round_trips", r.resp_msgs);
        w.Field("round_trips_per_s", r.seconds > 0 ? double(r.resp_msgs) / r.seconds : 0.0);
        w.Field("resp_bytes", r.resp_bytes);
        w.Field("goodput_mbps", Mbps(r.sent_bytes + r.resp_bytes, r.seconds));
        WriteLatency(w, lat);
    }
    w.EndObject();
    if (c.interval_ms) WriteIntervals(w, client.series());
    // info_json is a complete object written by MsgConn::WriteInfo.
    w.Key("transport_info").Raw(r.info_json).EndObject();

    if (c.json) {
        out << w.str() << "\n";
    } else {
        char line[256];
        if (c.mode == Mode::kBulk) {
            std::snprintf(line, sizeof(line),
                          "%s bulk: %llu msgs of %u bytes in %.3f s: %.3f Mbit/s (%.0f msgs/s)\n",
                          std::string(TransportName(c.transport)).c_str(),
                          static_cast<unsigned long long>(r.server.msgs), c.size, r.seconds,
                          Mbps(r.server.bytes, r.seconds),
                          r.seconds > 0 ? double(r.server.msgs) / r.seconds : 0.0);
        } else {
            std::snprintf(line, sizeof(line),
                          "%s %s: %llu round trips (%u/%u bytes, %u in flight) in %.3f s, %.0f/s; "
                          "latency us p50 %.1f p99 %.1f p999 %.1f max %.1f\n",
                          std::string(TransportName(c.transport)).c_str(),
                          std::string(ModeName(c.mode)).c_str(),
                          static_cast<unsigned long long>(r.resp_msgs), c.req_size, c.resp_size,
                          c.concurrency, r.seconds,
                          r.seconds > 0 ? double(r.resp_msgs) / r.seconds : 0.0, lat.p50_us,
                          lat.p99_us, lat.p999_us, lat.max_us);
        }
        out << line;
    }
    if (!counts_ok) {
        err << "mrcperf: message counts differ: sent " << r.sent_msgs << " msgs/" << r.sent_bytes
            << " bytes, server got " << r.server.msgs << "/" << r.server.bytes << "\n";
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
        MsgConn conn(std::move(fd), c_.transport);
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
            // Stop reading while a lot is queued (the client is not reading).
            while (!ended) {
                bool more =
                    Pump(conn, conn.QueuedBytes() < (4u << 20), After(Clock::now(), 0.5), sink);
                if (!more) throw Error("client closed the connection before END");
            }
            // Send the result, then wait for the client to close so that
            // nothing queued is cut off by our close.
            auto linger = After(Clock::now(), 10.0);
            bool open = true;
            while (open && Clock::now() < linger)
                open = Pump(
                    conn, !conn.WantsWrite(), linger,
                    [&](std::span<const uint8_t>, size_t) { throw Error("message after END"); });
            complete = !conn.WantsWrite();
            if (!complete) error = "could not deliver the result";
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
