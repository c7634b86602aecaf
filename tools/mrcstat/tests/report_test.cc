// SPDX-License-Identifier: GPL-2.0
#include "report.h"

#include <gtest/gtest.h>

#include <string>

namespace mrcstat {
namespace {

Snapshot Sample() {
    Snapshot s;
    s.mono_ns = 5000000000ull;
    PlaneRow p;
    p.key = {.netns = 4026532000u, .plane = 0};
    p.val.c.pkts = 300;
    p.val.c.bytes = 300 * 1024;
    p.val.n_bad = 1;
    s.planes.push_back(p);
    ConnRow c;
    c.key = {.netns = 4026532000u, .qpn = 17};
    c.val.conn = 5;
    c.val.up = 1;
    c.val.c.pkts = 300;
    c.val.c.bytes = 300 * 1024;
    c.val.c.timeouts = 2;
    c.val.c.rtt_samples = 2;
    c.val.c.rtt_sum_ns = 3000;
    c.val.c.rtt_hist[10] = 2;
    s.conns.push_back(c);
    EvRow e;
    e.key = {.netns = 4026532000u, .qpn = 17, .ev = 0x1200};
    e.val.index = 1;
    e.val.state = 2;  // assumed_bad
    e.val.c.pkts = 100;
    e.val.c.timeouts = 2;
    e.val.c.nack_reason[0] = 4;
    s.evs.push_back(e);
    e.key.ev = 0x3400;
    e.val.index = 0;
    e.val.state = 0;
    e.val.active = 1;
    e.val.c = {};
    e.val.c.pkts = 200;
    s.evs.push_back(e);
    s.Sort();
    return s;
}

TEST(Report, SortByIndex) {
    auto s = Sample();
    EXPECT_EQ(s.evs[0].key.ev, 0x3400u);
    EXPECT_EQ(s.evs[1].key.ev, 0x1200u);
}

TEST(Report, JsonSnapshot) {
    const std::string j = RenderJson(Sample());
    EXPECT_EQ(j.rfind(R"({"version":1,"time_ns":5000000000,"telemetry":{"ringbuf_drops":0,)", 0),
              0u);
    EXPECT_NE(j.find(R"("netns":4026532000,"netns_name":"","qpn":17,"conn":5,"state":"up")"),
              std::string::npos);
    EXPECT_NE(j.find(R"("ev":4608,"plane":0,"index":1,"state":"assumed_bad","active":false)"),
              std::string::npos);
    EXPECT_NE(j.find(R"("nack_reason":{"trimmed":4,)"), std::string::npos);
    // Connection RTT: two samples of 1500 ns in bucket [1024, 2048).
    EXPECT_NE(j.find(R"("rtt":{"samples":2,"mean_ns":1500,"p50_ns":1536,)"), std::string::npos);
    EXPECT_NE(j.find(R"("p50_bucket_ns":[1024,2048],"p99_bucket_ns":[1024,2048])"),
              std::string::npos);
    EXPECT_NE(j.find(R"("evs_bad":1)"), std::string::npos);
    EXPECT_EQ(j.back(), '}');
    EXPECT_EQ(j.find('\n'), std::string::npos);
}

TEST(Report, TextShowsPlanesConnsAndPaths) {
    TextOptions o;
    const std::string t = RenderText(Sample(), nullptr, o);
    EXPECT_NE(t.find("1 plane(s), 1 connection(s), 2 path(s)"), std::string::npos);
    EXPECT_NE(t.find("conn netns 4026532000 qpn 17 id 5 up"), std::string::npos);
    EXPECT_NE(t.find("0x1200"), std::string::npos);
    EXPECT_NE(t.find("assumed_bad"), std::string::npos);
    EXPECT_EQ(t.find("\033["), std::string::npos);  // no colour unless asked
    o.colour = true;
    EXPECT_NE(RenderText(Sample(), nullptr, o).find("\033[31massumed_bad"), std::string::npos);
    o.show_evs = false;
    EXPECT_EQ(RenderText(Sample(), nullptr, o).find("0x1200"), std::string::npos);
}

// Namespaces by the names ip netns gives them; the inode when unnamed.
TEST(Report, NetnsNames) {
    Snapshot s = Sample();
    s.planes[0].val.c.rtt_hist[10] = 3;  // 3 samples in [1024, 2048) ns
    TextOptions o;
    EXPECT_NE(RenderText(s, nullptr, o).find("conn netns 4026532000 qpn 17"), std::string::npos);
    s.netns_names[4026532000u] = "blue";
    const std::string t = RenderText(s, nullptr, o);
    EXPECT_NE(t.find("conn netns blue qpn 17"), std::string::npos);
    EXPECT_NE(t.find("\nblue "), std::string::npos);  // the plane table's first column
    EXPECT_NE(RenderJson(s).find(R"("netns":4026532000,"netns_name":"blue","qpn":17)"),
              std::string::npos);
    // RTT quantiles are printed as the bucket bound, not a made-up value.
    EXPECT_NE(t.find("<2.1us"), std::string::npos);
    EXPECT_EQ(t.find("1.54us"), std::string::npos);
}

TEST(Report, RatesFromTwoSnapshots) {
    Snapshot a = Sample(), b = Sample();
    b.mono_ns += 2000000000ull;  // 2 s later
    b.planes[0].val.c.pkts += 2000;
    b.planes[0].val.c.bytes += 2000000;
    TextOptions o;
    const std::string t = RenderText(b, &a, o);
    EXPECT_NE(t.find("interval 2.0s"), std::string::npos);
    EXPECT_NE(t.find("1.00K"), std::string::npos);   // 1000 pkt/s
    EXPECT_NE(t.find("1.00MB"), std::string::npos);  // 1 MB/s
    EXPECT_NE(RenderText(a, nullptr, o).find(" - "), std::string::npos);
}

TEST(Report, EmptyAndLossReported) {
    Snapshot s;
    s.stat.ringbuf_drops = 3;
    TextOptions o;
    const std::string t = RenderText(s, nullptr, o);
    EXPECT_NE(t.find("events lost 3"), std::string::npos);
    EXPECT_NE(t.find("no MRC traffic"), std::string::npos);
    const std::string j = RenderJson(s);
    EXPECT_TRUE(j.ends_with(R"("planes":[],"conns":[]})")) << j;
}

TEST(Report, Events) {
    mrc_tel_event e{};
    e.ts_ns = 1500000000ull;
    e.type = MRC_TEL_E_EV_STATE;
    e.netns = 7;
    e.qpn = 17;
    e.conn = 5;
    e.ev = 0x1200;
    e.index = 3;
    e.old_state = 0;
    e.new_state = 2;
    e.cause = 3;
    EXPECT_EQ(EventJson(e),
              R"({"ts_ns":1500000000,"type":"ev_state","netns":7,"qpn":17,"conn":5,"ev":4608,)"
              R"("plane":0,"index":3,"old":"good","new":"assumed_bad","cause":"timeout",)"
              R"("active":false})");
    EXPECT_EQ(EventText(e, false),
              "1.500000000 ev_state       netns 7 qpn 17 conn 5 ev 0x1200 plane 0 index 3 "
              "good -> assumed_bad cause timeout");
    e = {};
    e.type = MRC_TEL_E_CONN;
    e.err = 110;
    EXPECT_EQ(EventJson(e),
              R"({"ts_ns":0,"type":"conn","netns":0,"qpn":0,"conn":0,"up":false,"err":110})");
    e.type = MRC_TEL_E_RTO;
    e.psn = 42;
    e.count = 2;
    EXPECT_NE(EventText(e, false).find("rto            netns 0 qpn 0 conn 0 ev 0x0 plane 0 psn 42 "
                                       "count 2"),
              std::string::npos);
    EXPECT_EQ(EventTypeName(99), "?");
}

}  // namespace
}  // namespace mrcstat
