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
                                 "--quiet", "-t", "tcp"});
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
    JsonValue v = RunJson({"bulk", "-n", "500", "-s", "3000", "-w", "8", "-i", "10"});
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
    JsonValue v = RunJson({"bulk", "-d", "300ms", "-s", "1m", "-w", "4"});
    EXPECT_TRUE(v.Path("ok")->boolean);
    EXPECT_GT(v.Path("result.server_msgs")->number, 0);
    EXPECT_EQ(v.Path("result.server_msgs")->ToText(), v.Path("result.msgs_sent")->ToText());
}

TEST_F(Loopback, PingpongLatency) {
    JsonValue v = RunJson({"pingpong", "-n", "300"});
    EXPECT_TRUE(v.Path("ok")->boolean);
    EXPECT_EQ(v.Path("result.round_trips")->ToText(), "300");
    EXPECT_EQ(v.Path("result.latency_us.count")->ToText(), "300");
    EXPECT_GT(v.Path("result.latency_us.p50")->number, 0);
    EXPECT_GE(v.Path("result.latency_us.p999")->number, v.Path("result.latency_us.p50")->number);
}

TEST_F(Loopback, RpcConcurrent) {
    JsonValue v =
        RunJson({"rpc", "-n", "400", "-P", "16", "--req-size", "100", "--resp-size", "70000"});
    EXPECT_TRUE(v.Path("ok")->boolean);
    EXPECT_EQ(v.Path("result.round_trips")->ToText(), "400");
    EXPECT_EQ(v.Path("result.resp_bytes")->ToText(), "28000000");
    EXPECT_EQ(v.Path("params.concurrency")->ToText(), "16");
}

TEST_F(Loopback, ServerReportsEachSession) {
    RunJson({"pingpong", "-n", "10"});
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
        {"bulk", "-c", "::1", "-p", "1", "-n", "1", "--connect-timeout", "200ms", "--json", "-q"});
    std::ostringstream out, err;
    EXPECT_EQ(RunClient(pr.cfg, out, err), kExitFail);
    auto v = ParseJson(out.str(), nullptr);
    ASSERT_TRUE(v);
    EXPECT_FALSE(v->Path("ok")->boolean);
    EXPECT_NE(v->Path("error")->text.find("connect"), std::string::npos);
}

}  // namespace
}  // namespace mrcperf
