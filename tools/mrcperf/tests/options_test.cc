#include "options.h"

#include <gtest/gtest.h>

namespace mrcperf {
namespace {

ParseResult P(std::vector<std::string> a) { return ParseArgs(a); }

TEST(Options, Sizes) {
    EXPECT_EQ(ParseSize("64"), 64u);
    EXPECT_EQ(ParseSize("64k"), 65536u);
    EXPECT_EQ(ParseSize("1M"), 1u << 20);
    EXPECT_EQ(ParseSize("2g"), 2ull << 30);
    EXPECT_FALSE(ParseSize(""));
    EXPECT_FALSE(ParseSize("k"));
    EXPECT_FALSE(ParseSize("1x"));
    EXPECT_FALSE(ParseSize("-1"));
}

TEST(Options, Durations) {
    EXPECT_DOUBLE_EQ(*ParseDuration("10"), 10);
    EXPECT_DOUBLE_EQ(*ParseDuration("2.5s"), 2.5);
    EXPECT_DOUBLE_EQ(*ParseDuration("500ms"), 0.5);
    EXPECT_FALSE(ParseDuration("ms"));
    EXPECT_FALSE(ParseDuration("1h"));
    EXPECT_FALSE(ParseDuration("-1"));
}

TEST(Options, Rates) {
    EXPECT_EQ(ParseRate("500"), 500u);
    EXPECT_EQ(ParseRate("100k"), 100'000u);
    EXPECT_EQ(ParseRate("2.5M"), 2'500'000u);
    EXPECT_EQ(ParseRate("1G"), 1'000'000'000u);
    EXPECT_FALSE(ParseRate(""));
    EXPECT_FALSE(ParseRate("M"));
    EXPECT_FALSE(ParseRate("0"));
    EXPECT_FALSE(ParseRate("-5M"));
}

TEST(Options, ParallelPerPlaneOmitRepeatRate) {
    auto r = P({"bulk", "-c", "fd00::1,fd00::2,fd00::3", "-B", "fd01::1,fd01::2,fd01::3",
                "--per-plane", "-O", "1s", "-t", "5", "--repeat", "5", "-b", "40M"});
    ASSERT_EQ(r.error, "");
    EXPECT_EQ(r.cfg.parallel, 3u);
    EXPECT_EQ(r.cfg.peers.size(), 3u);
    EXPECT_EQ(r.cfg.peer, "fd00::1");
    EXPECT_EQ(r.cfg.bind, "fd01::1");
    EXPECT_EQ(r.cfg.binds[2], "fd01::3");
    EXPECT_DOUBLE_EQ(r.cfg.omit_s, 1.0);
    EXPECT_EQ(r.cfg.repeat, 5u);
    EXPECT_EQ(r.cfg.rate_bps, 40'000'000u);
    EXPECT_EQ(P({"bulk", "-c", "::1", "-P", "4"}).cfg.parallel, 4u);
    EXPECT_NE(P({"bulk", "-c", "::1", "-P", "0"}).error, "");
    EXPECT_NE(P({"bulk", "-c", "::1,", "-P", "2"}).error, "");
    EXPECT_NE(P({"bulk", "-c", "::1", "-O", "5", "-t", "5"}).error, "");
    EXPECT_NE(P({"bulk", "-c", "::1", "-O", "1", "-k", "10"}).error, "");
    EXPECT_NE(P({"pingpong", "-c", "::1", "-b", "1M"}).error, "");
    EXPECT_TRUE(P({"bulk", "-c", "::1", "-R"}).cfg.reverse);
    EXPECT_NE(P({"rpc", "-c", "::1", "-R"}).error, "");
}

TEST(Options, MrcSocketOptions) {
    auto r = P({"bulk", "-c", "::1", "--transport", "mrc", "--ev-set-size", "256", "--plane-mask",
                "0x5", "--cc-profile", "3", "--ev-profile", "4"});
    ASSERT_EQ(r.error, "");
    EXPECT_EQ(r.cfg.mrc.ev_set_size, 256u);
    EXPECT_EQ(r.cfg.mrc.plane_mask, 5u);
    EXPECT_EQ(r.cfg.mrc.cc_profile, 3u);
    EXPECT_EQ(r.cfg.mrc.ev_profile, 4u);
    EXPECT_NE(P({"bulk", "-c", "::1", "--ev-set-size", "64"}).error, "");
    EXPECT_NE(P({"bulk", "-c", "::1", "--plane-mask", "x"}).error, "");
}

TEST(Options, BulkDefaultsAndOverrides) {
    auto r = P({"bulk", "--peer", "2001:db8::1", "--transport", "mptcp", "--size", "16k",
                "--window", "64", "--time=3", "--json", "-i", "0.1", "--label", "clean"});
    ASSERT_EQ(r.error, "");
    const Config& c = r.cfg;
    EXPECT_EQ(c.mode, Mode::kBulk);
    EXPECT_EQ(c.transport, Transport::kMptcp);
    EXPECT_EQ(c.peer, "2001:db8::1");
    EXPECT_EQ(c.size, 16384u);
    EXPECT_EQ(c.window, 64u);
    EXPECT_EQ(c.ack_every, 16u);  // window / 4
    EXPECT_DOUBLE_EQ(c.duration_s, 3);
    EXPECT_TRUE(c.json);
    EXPECT_EQ(c.interval_ms, 100u);
    EXPECT_EQ(c.label, "clean");
    EXPECT_EQ(c.port, 7471);
}

TEST(Options, PingpongIsOneInFlightOfEqualSizes) {
    auto r = P({"pingpong", "-c", "10.0.0.1", "-k", "1000"});
    ASSERT_EQ(r.error, "");
    EXPECT_EQ(r.cfg.size, 64u);
    EXPECT_EQ(r.cfg.req_size, 64u);
    EXPECT_EQ(r.cfg.resp_size, 64u);
    EXPECT_EQ(r.cfg.concurrency, 1u);
    EXPECT_EQ(r.cfg.count, 1000u);
    EXPECT_DOUBLE_EQ(r.cfg.duration_s, 0);  // by count only
    auto t = P({"pingpong", "-c", "::1", "-k", "1000", "-t", "2"});
    EXPECT_DOUBLE_EQ(t.cfg.duration_s, 2);  // both: whichever comes first
}

TEST(Options, Rpc) {
    auto r = P({"rpc", "-c", "::1", "--req-size", "1k", "--resp-size", "64k", "--concurrency", "16",
                "--transport", "mrc"});
    ASSERT_EQ(r.error, "");
    EXPECT_EQ(r.cfg.req_size, 1024u);
    EXPECT_EQ(r.cfg.resp_size, 65536u);
    EXPECT_EQ(r.cfg.concurrency, 16u);
    EXPECT_EQ(r.cfg.transport, Transport::kMrc);
    EXPECT_NE(P({"rpc", "-c", "::1", "--size", "100"}).error, "");
}

// The letters an iperf3 user types mean what they mean in iperf3.
TEST(Options, Iperf3Letters) {
    auto r = P({"bulk", "-c",  "::1", "-m", "-t", "7",  "-l", "128k", "-k", "50",
                "-i",   "0.5", "-P",  "2",  "-R", "-O", "1",  "-b",   "1G", "-J"});
    ASSERT_EQ(r.error, "");
    EXPECT_EQ(r.cfg.transport, Transport::kMptcp);
    EXPECT_DOUBLE_EQ(r.cfg.duration_s, 7);
    EXPECT_EQ(r.cfg.size, 131072u);
    EXPECT_EQ(r.cfg.count, 50u);
    EXPECT_EQ(r.cfg.interval_ms, 500u);
    EXPECT_EQ(r.cfg.parallel, 2u);
    EXPECT_TRUE(r.cfg.reverse);
    EXPECT_TRUE(r.cfg.json);
    EXPECT_EQ(P({"bulk", "-c", "::1", "--mrc"}).cfg.transport, Transport::kMrc);
    EXPECT_EQ(P({"bulk", "-c", "::1", "--mrc", "--tcp"}).cfg.transport, Transport::kTcp);
    EXPECT_TRUE(P({"bulk", "-c", "::1", "-j"}).cfg.json);  // mrcctl's and mrcstat's letter
    EXPECT_TRUE(P({"server", "-1"}).cfg.once);
    EXPECT_TRUE(P({"server", "--one-off"}).cfg.once);
    EXPECT_EQ(P({"-V"}).cfg.mode, Mode::kVersion);  // -V as in mrcctl and mrcstat
    // The old letters are gone, not silently reinterpreted.
    EXPECT_NE(P({"bulk", "-c", "::1", "-t", "mrc"}).error, "");  // -t is a time now
    EXPECT_NE(P({"bulk", "-c", "::1", "-d", "5"}).error, "");
    EXPECT_NE(P({"bulk", "-c", "::1", "-s", "64k"}).error, "");
    EXPECT_NE(P({"bulk", "-c", "::1", "-n", "5"}).error, "");
    EXPECT_NE(P({"bulk", "-c", "::1", "-i", "0"}).error, "");
    EXPECT_NE(P({"bulk", "-c", "::1", "-i", "0.0001"}).error, "");
}

TEST(Options, Load) {
    EXPECT_EQ(P({"pingpong", "-c", "::1", "--load", "2"}).cfg.load, 2u);
    EXPECT_EQ(P({"rpc", "-c", "::1", "--load", "1"}).cfg.load, 1u);
    EXPECT_NE(P({"bulk", "-c", "::1", "--load", "1"}).error, "");
    EXPECT_NE(P({"pingpong", "-c", "::1", "--load", "0"}).error, "");
}

TEST(Options, Bidir) {
    auto r = P({"bulk", "-c", "::1", "--bidir", "-P", "3"});
    ASSERT_EQ(r.error, "");
    EXPECT_TRUE(r.cfg.bidir);
    EXPECT_EQ(r.cfg.parallel, 3u);
    EXPECT_NE(P({"bulk", "-c", "::1", "--bidir", "-R"}).error, "");
    EXPECT_NE(P({"pingpong", "-c", "::1", "--bidir"}).error, "");
}

TEST(Options, Server) {
    auto r = P({"server", "--transport", "tcp", "-p", "9000", "--once", "-q", "-B", "::"});
    ASSERT_EQ(r.error, "");
    EXPECT_EQ(r.cfg.mode, Mode::kServer);
    EXPECT_EQ(r.cfg.port, 9000);
    EXPECT_TRUE(r.cfg.once);
    EXPECT_TRUE(r.cfg.quiet);
    EXPECT_EQ(r.cfg.bind, "::");
}

TEST(Options, JsonMode) {
    auto r = P({"json", "out.json", "result.goodput_mbps", "ok"});
    ASSERT_EQ(r.error, "");
    EXPECT_EQ(r.cfg.mode, Mode::kJson);
    EXPECT_EQ(r.cfg.json_file, "out.json");
    EXPECT_EQ(r.cfg.json_paths.size(), 2u);
}

TEST(Options, Errors) {
    EXPECT_NE(P({}).error, "");
    EXPECT_NE(P({"blast"}).error, "");
    EXPECT_NE(P({"bulk"}).error, "");  // no peer
    EXPECT_NE(P({"bulk", "-c", "::1", "--transport", "udp"}).error, "");
    EXPECT_NE(P({"bulk", "-c", "::1", "--size", "8"}).error, "");  // below the header
    EXPECT_NE(P({"bulk", "-c", "::1", "--size", "17m"}).error, "");
    EXPECT_NE(P({"bulk", "-c", "::1", "--window", "0"}).error, "");
    EXPECT_NE(P({"bulk", "-c", "::1", "--window", "4", "--ack-every", "8"}).error, "");
    EXPECT_NE(P({"bulk", "-c", "::1", "-p", "70000"}).error, "");
    EXPECT_NE(P({"bulk", "-c", "::1", "-t", "0"}).error, "");
    EXPECT_NE(P({"bulk", "-c", "::1", "-k", "0"}).error, "");
    EXPECT_NE(P({"bulk", "-c", "::1", "--frobnicate"}).error, "");
    EXPECT_NE(P({"bulk", "-c"}).error, "");  // missing value
    EXPECT_NE(P({"json"}).error, "");
}

TEST(Options, Names) {
    EXPECT_EQ(TransportName(Transport::kMptcp), "mptcp");
    EXPECT_EQ(ModeName(Mode::kPingpong), "pingpong");
    EXPECT_EQ(ParseTransport("mrc"), Transport::kMrc);
    EXPECT_FALSE(ParseTransport("MRC"));
}

}  // namespace
}  // namespace mrcperf
