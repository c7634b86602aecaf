// A real client/server run over TCP on the loopback of the build machine:
// the whole path (HELLO, windows, acks, RESULT, JSON report) without the VM.
#include <gtest/gtest.h>

#include <atomic>
#include <future>
#include <sstream>
#include <thread>

#include "json.h"
#include "net.h"
#include "run.h"

namespace mrcperf {
namespace {

class Loopback : public ::testing::Test {
  protected:
    void SetUp() override {
        try {
            Fd probe = OpenSocket(Transport::kTcp);
        } catch (const Error& e) {
            GTEST_SKIP() << e.what();
        }
        Config s;
        s.mode = Mode::kServer;
        s.transport = Transport::kTcp;
        s.bind = "::1";
        s.port = 0;  // any free port
        s.quiet = true;
        s.json = true;
        std::promise<uint16_t> port;
        auto fut = port.get_future();
        server_ = std::jthread([this, s, &port]() {
            server_rc_ = RunServer(s, server_out_, server_err_, &stop_,
                                   [&](uint16_t p) { port.set_value(p); });
        });
        if (fut.wait_for(std::chrono::seconds(5)) != std::future_status::ready) {
            stop_ = true;
            GTEST_SKIP() << "server did not start: " << server_err_.str();
        }
        port_ = fut.get();
    }
    void TearDown() override {
        stop_ = true;
        if (server_.joinable()) server_.join();
    }

    JsonValue RunJson(std::vector<std::string> args, int expect_rc = 0) {
        args.insert(args.end(), {"--peer", "::1", "--port", std::to_string(port_), "--json",
                                 "--quiet", "--transport", "tcp"});
        ParseResult pr = ParseArgs(args);
        EXPECT_EQ(pr.error, "");
        std::ostringstream out, err;
        EXPECT_EQ(RunClient(pr.cfg, out, err), expect_rc) << err.str();
        std::string perr;
        auto v = ParseJson(out.str(), &perr);
        EXPECT_TRUE(v) << perr << ": " << out.str();
        return v ? *v : JsonValue{};
    }

    std::atomic<bool> stop_{false};
    std::jthread server_;
    std::ostringstream server_out_, server_err_;
    int server_rc_ = -1;
    uint16_t port_ = 0;
};

TEST_F(Loopback, BulkByCountMatchesOnBothEnds) {
    JsonValue v =
        RunJson({"bulk", "-k", "500", "-l", "3000", "--window", "8", "--interval-ms", "10"});
    ASSERT_TRUE(v.Path("ok"));
    EXPECT_TRUE(v.Path("ok")->boolean);
    EXPECT_EQ(v.Path("result.msgs_sent")->ToText(), "500");
    EXPECT_EQ(v.Path("result.server_msgs")->ToText(), "500");
    EXPECT_EQ(v.Path("result.server_bytes")->ToText(), "1500000");
    EXPECT_GT(v.Path("result.goodput_mbps")->number, 0);
    EXPECT_EQ(v.Path("transport")->text, "tcp");
    EXPECT_TRUE(v.Path("transport_info.total_retrans"));
    ASSERT_TRUE(v.Path("intervals"));
}

TEST_F(Loopback, BulkByTimeWithLargeMessages) {
    JsonValue v = RunJson({"bulk", "-t", "300ms", "-l", "1m", "--window", "4"});
    EXPECT_TRUE(v.Path("ok")->boolean);
    EXPECT_GT(v.Path("result.server_msgs")->number, 0);
    EXPECT_EQ(v.Path("result.server_msgs")->ToText(), v.Path("result.msgs_sent")->ToText());
}

TEST_F(Loopback, CpuAccountedAndServiceDemand) {
    // Long enough for /proc/stat's 10 ms ticks to see the busy loop.
    JsonValue v = RunJson({"bulk", "-t", "400ms", "-l", "64k", "--window", "8"});
    ASSERT_TRUE(v.Path("cpu.valid"));
    EXPECT_TRUE(v.Path("cpu.valid")->boolean);
    EXPECT_GT(v.Path("cpu.ncpu")->number, 0);
    EXPECT_GT(v.Path("cpu.busy_s")->number, 0);
    EXPECT_GT(v.Path("cpu.utilisation")->number, 0);
    EXPECT_LE(v.Path("cpu.utilisation")->number, 1.0);
    // Busy CPU-seconds per MB moved, as the tool computed it.
    const double mb = v.Path("result.measured_bytes")->number / 1e6;
    ASSERT_GT(mb, 0);
    const double want = v.Path("cpu.busy_s")->number * 1e6 / mb;
    EXPECT_NEAR(v.Path("cpu.service_demand_us_per_mb")->number, want,
                1e-4 * want);  // JSON rounding
}

TEST_F(Loopback, CpuUnreadableIsReportedNotInvented) {
    JsonValue v =
        RunJson({"bulk", "-k", "20", "-l", "4k", "--proc-stat", "/nonexistent/proc/stat"});
    EXPECT_TRUE(v.Path("ok")->boolean);
    EXPECT_FALSE(v.Path("cpu.valid")->boolean);
    EXPECT_FALSE(v.Path("cpu.service_demand_us_per_mb"));
}

TEST_F(Loopback, ParallelConnectionsAreSummed) {
    JsonValue v = RunJson({"bulk", "-k", "200", "-l", "8k", "--window", "8", "-P", "3"});
    EXPECT_TRUE(v.Path("ok")->boolean);
    EXPECT_EQ(v.Path("result.connections")->ToText(), "3");
    EXPECT_EQ(v.Path("result.msgs_sent")->ToText(), "600");
    EXPECT_EQ(v.Path("result.server_msgs")->ToText(), "600");
    EXPECT_EQ(v.Path("result.server_bytes")->ToText(), std::to_string(600 * 8192));
    ASSERT_TRUE(v.Path("streams.2.server_msgs"));
    EXPECT_EQ(v.Path("streams.2.server_msgs")->ToText(), "200");
    EXPECT_FALSE(v.Path("streams.3"));
}

TEST_F(Loopback, RepeatReportsEveryRunAndTheSpread) {
    JsonValue v = RunJson({"bulk", "-k", "100", "-l", "8k", "--repeat", "3"});
    EXPECT_TRUE(v.Path("ok")->boolean);
    ASSERT_TRUE(v.Path("runs.2.result.goodput_mbps"));
    EXPECT_FALSE(v.Path("runs.3"));
    EXPECT_EQ(v.Path("summary.goodput_mbps.count")->ToText(), "3");
    const double lo = v.Path("summary.goodput_mbps.min")->number;
    const double hi = v.Path("summary.goodput_mbps.max")->number;
    const double med = v.Path("summary.goodput_mbps.median")->number;
    EXPECT_LE(lo, med);
    EXPECT_LE(med, hi);
    // "result" is the median run.
    EXPECT_DOUBLE_EQ(v.Path("result.goodput_mbps")->number, med);
}

TEST_F(Loopback, RateLimitedSenderKeepsItsRate) {
    // 8 Mbit/s for 64 KiB messages: ~15 messages per second, 0.5 s -> ~8.
    JsonValue v = RunJson({"bulk", "-t", "500ms", "-l", "64k", "-b", "8M"});
    EXPECT_TRUE(v.Path("ok")->boolean);
    const double sent = v.Path("result.msgs_sent")->number;
    EXPECT_GE(sent, 5);
    EXPECT_LE(sent, 12);
}

TEST_F(Loopback, OmitLeavesTheWarmUpOut) {
    // 1 s at 16 Mbit/s with the first 0.5 s omitted: about half the bytes
    // sent are measured, over about half the time.
    JsonValue v = RunJson({"bulk", "-t", "1s", "-O", "500ms", "-l", "16k", "-b", "16M"});
    EXPECT_TRUE(v.Path("ok")->boolean);
    const double sent = v.Path("result.bytes_sent")->number;
    const double measured = v.Path("result.measured_bytes")->number;
    EXPECT_GT(measured, 0.3 * sent);
    EXPECT_LT(measured, 0.7 * sent);
    EXPECT_LT(v.Path("result.seconds")->number, 0.9);
    EXPECT_NEAR(v.Path("result.goodput_mbps")->number, 16, 6);
}

TEST_F(Loopback, ReverseBulkServerSendsClientCounts) {
    // 3 MB at 200 Mbit/s (the rate goes to the sender): about 120 ms.
    JsonValue v = RunJson({"bulk", "-R", "-k", "300", "-l", "10000", "--window", "8",
                           "--interval-ms", "20", "-b", "200M"});
    EXPECT_TRUE(v.Path("ok")->boolean);
    EXPECT_TRUE(v.Path("params.reverse")->boolean);
    // The server sent, the client received: both counts, and they agree.
    EXPECT_EQ(v.Path("result.msgs_sent")->ToText(), "300");
    EXPECT_EQ(v.Path("result.server_msgs")->ToText(), "300");
    EXPECT_EQ(v.Path("result.server_bytes")->ToText(), "3000000");
    EXPECT_GT(v.Path("result.goodput_mbps")->number, 0);
    EXPECT_LT(v.Path("result.goodput_mbps")->number, 260);  // the sender kept to -b
    EXPECT_TRUE(v.Path("cpu.valid")->boolean);
    ASSERT_TRUE(v.Path("intervals.0.t_s"));
    stop_ = true;
    server_.join();
    std::string perr;
    auto sv = ParseJson(server_out_.str(), &perr);
    ASSERT_TRUE(sv) << perr << ": " << server_out_.str();
    EXPECT_TRUE(sv->Path("reverse")->boolean);
    EXPECT_TRUE(sv->Path("ok")->boolean);
    EXPECT_EQ(sv->Path("result.msgs")->ToText(), "300");
}

// --bidir: -P connections each way at once, both counted and reported apart.
TEST_F(Loopback, BidirBothDirectionsAtOnce) {
    JsonValue v = RunJson({"bulk", "--bidir", "-P", "2", "-k", "200", "-l", "8k", "--window", "8"});
    EXPECT_TRUE(v.Path("ok")->boolean);
    EXPECT_TRUE(v.Path("params.bidir")->boolean);
    EXPECT_EQ(v.Path("result.connections")->ToText(), "4");
    // 2 x 200 messages of 8 KiB each way, every one counted by its receiver.
    EXPECT_EQ(v.Path("result.server_msgs")->ToText(), "800");
    EXPECT_EQ(v.Path("result.bidir.client_to_server_bytes")->ToText(), "3276800");
    EXPECT_EQ(v.Path("result.bidir.server_to_client_bytes")->ToText(), "3276800");
    const double fwd = v.Path("result.bidir.client_to_server_mbps")->number;
    const double rev = v.Path("result.bidir.server_to_client_mbps")->number;
    EXPECT_GT(fwd, 0);
    EXPECT_GT(rev, 0);
    EXPECT_NEAR(v.Path("result.goodput_mbps")->number, fwd + rev, 1e-6 * (fwd + rev) + 1e-9);
    EXPECT_EQ(v.Path("streams.0.direction")->text, "client_to_server");
    EXPECT_EQ(v.Path("streams.3.direction")->text, "server_to_client");
    EXPECT_EQ(v.Path("streams.2.peer")->text, v.Path("streams.0.peer")->text);
}

// --load: the latency test beside bulk connections to the same server.
TEST_F(Loopback, PingpongUnderLoad) {
    JsonValue v = RunJson({"pingpong", "-k", "200", "--load", "2"});
    EXPECT_TRUE(v.Path("ok")->boolean);
    EXPECT_EQ(v.Path("result.round_trips")->ToText(), "200");
    EXPECT_EQ(v.Path("result.load.connections")->ToText(), "2");
    EXPECT_GT(v.Path("result.load.bytes")->number, 65536 * 2);
    EXPECT_GT(v.Path("result.load.goodput_mbps")->number, 0);
    EXPECT_TRUE(v.Path("result.load.counts_ok")->boolean);
    EXPECT_FALSE(v.Path("result.bidir"));
    JsonValue plain = RunJson({"pingpong", "-k", "50"});
    EXPECT_FALSE(plain.Path("result.load"));
}

TEST_F(Loopback, ReverseBulkByTime) {
    JsonValue v = RunJson({"bulk", "-R", "-t", "300ms", "-l", "64k", "--window", "4"});
    EXPECT_TRUE(v.Path("ok")->boolean);
    EXPECT_GT(v.Path("result.server_msgs")->number, 0);
    EXPECT_EQ(v.Path("result.server_msgs")->ToText(), v.Path("result.msgs_sent")->ToText());
}

TEST_F(Loopback, PingpongLatency) {
    JsonValue v = RunJson({"pingpong", "-k", "300"});
    EXPECT_TRUE(v.Path("ok")->boolean);
    EXPECT_EQ(v.Path("result.round_trips")->ToText(), "300");
    EXPECT_EQ(v.Path("result.latency_us.count")->ToText(), "300");
    EXPECT_GT(v.Path("result.latency_us.p50")->number, 0);
    EXPECT_GE(v.Path("result.latency_us.p999")->number, v.Path("result.latency_us.p50")->number);
}

TEST_F(Loopback, RpcConcurrent) {
    JsonValue v = RunJson(
        {"rpc", "-k", "400", "--concurrency", "16", "--req-size", "100", "--resp-size", "70000"});
    EXPECT_TRUE(v.Path("ok")->boolean);
    EXPECT_EQ(v.Path("result.round_trips")->ToText(), "400");
    EXPECT_EQ(v.Path("result.resp_bytes")->ToText(), "28000000");
    EXPECT_EQ(v.Path("params.concurrency")->ToText(), "16");
}

TEST_F(Loopback, ServerReportsEachSession) {
    RunJson({"pingpong", "-k", "10"});
    stop_ = true;
    server_.join();
    std::string perr;
    auto v = ParseJson(server_out_.str(), &perr);
    ASSERT_TRUE(v) << perr << ": " << server_out_.str();
    EXPECT_EQ(v->Path("role")->text, "server");
    EXPECT_EQ(v->Path("result.msgs")->ToText(), "10");
    EXPECT_TRUE(v->Path("ok")->boolean);
}

TEST_F(Loopback, ConnectRefusedIsAnError) {
    Config c;
    ParseResult pr = ParseArgs(
        {"bulk", "-c", "::1", "-p", "1", "-k", "1", "--connect-timeout", "200ms", "--json", "-q"});
    std::ostringstream out, err;
    EXPECT_EQ(RunClient(pr.cfg, out, err), kExitFail);
    auto v = ParseJson(out.str(), nullptr);
    ASSERT_TRUE(v);
    EXPECT_FALSE(v->Path("ok")->boolean);
    EXPECT_NE(v->Path("error")->text.find("connect"), std::string::npos);
}

}  // namespace
}  // namespace mrcperf
