// SPDX-License-Identifier: GPL-2.0
#include "output.h"

#include <gtest/gtest.h>
#include <linux/mrc.h>

#include <cerrno>
#include <sstream>

#include "grammar.h"

namespace mrcctl {
namespace {

// The writer's own tests (escaping, nesting) are in tools/common/tests.

Route SampleRoute() {
    Route r;
    r.dst = ParseAddr("fc00:b::", "t");
    r.len = 64;
    r.encap = MRC_ENCAP_SRH;
    r.paths.push_back(Path{0, ParseAddrList("fc00:1::,fc00:2::", "t"), {}});
    return r;
}

Probe SampleProbe() {
    Probe p;
    p.peer = ParseAddr("fc00:b::2", "t");
    p.results.push_back(ProbeResult{0, 0, 0x1234c001, 250000, 0});
    p.results.push_back(ProbeResult{1, 1, 0x0000c002, 750000, 0});
    p.results.push_back(ProbeResult{1, 1, 0xabcdc003, {}, 0});
    p.results.push_back(ProbeResult{2, {}, 0x0000c004, {}, ENETDOWN});
    return p;
}

TEST(Output, ProbeText) {
    std::ostringstream os;
    PrintProbe(os, SampleProbe());
    EXPECT_EQ(os.str(),
              "probe fc00:b::2: 3 sent, 2 answered, rtt min/avg/max 0.250/0.500/0.750 ms\n"
              "  plane 0 path 0 ev 0x1234c001 sport 49153 rtt 0.250 ms\n"
              "  plane 1 path 1 ev 0x0000c002 sport 49154 rtt 0.750 ms\n"
              "  plane 1 path 1 ev 0xabcdc003 sport 49155 lost\n"
              "  plane 2 ev 0x0000c004 sport 49156 not sent: Network is down\n");
    Probe host;
    host.peer = ParseAddr("fc00:b::2", "t");
    host.results.push_back(ProbeResult{{}, {}, 0x0000c005, {}, 0});
    os.str("");
    PrintProbe(os, host);
    EXPECT_EQ(os.str(),
              "probe fc00:b::2: 1 sent, 0 answered\n"
              "  host route ev 0x0000c005 sport 49157 lost\n");
}

TEST(Output, ProbeJson) {
    std::ostringstream os;
    JsonWriter j(os);
    JsonProbe(j, SampleProbe());
    const std::string s = os.str();
    EXPECT_EQ(s.find("{\"peer\":\"fc00:b::2\",\"sent\":3,\"answered\":2,\"probes\":["), 0u);
    EXPECT_NE(s.find("{\"plane\":0,\"path\":0,\"ev\":305446913,\"sport\":49153,\"rtt_ns\":250000}"),
              std::string::npos);
    EXPECT_NE(s.find("{\"plane\":2,\"ev\":49156,\"sport\":49156,\"error\":\"Network is down\"}"),
              std::string::npos);
}

TEST(Output, RouteTextIsValidInput) {
    std::ostringstream os;
    PrintRoute(os, SampleRoute());
    EXPECT_EQ(os.str(), "fc00:b::/64 encap srh plane 0 segs fc00:1::,fc00:2::\n");
    // The line parses back as "route add LINE".
    std::vector<std::string> args{"route", "add"};
    std::istringstream in(os.str());
    for (std::string w; in >> w;) args.push_back(w);
    Command c = Parse(args);
    EXPECT_EQ(c.route.paths.size(), 1u);
}

TEST(Output, RouteJson) {
    std::ostringstream os;
    JsonWriter j(os);
    JsonRoute(j, SampleRoute());
    EXPECT_EQ(os.str(), R"({"dst":"fc00:b::/64","encap":"srh","paths":[{"plane":0,)"
                        R"("segs":["fc00:1::","fc00:2::"]}]})");
}

TEST(Output, PlaneJsonAndText) {
    Plane p{3, 7, "pl3", ParseAddr("2001:db8::3", "t"), true, false};
    std::ostringstream js;
    JsonWriter j(js);
    JsonPlane(j, p);
    EXPECT_EQ(
        js.str(),
        R"({"id":3,"ifindex":7,"dev":"pl3","addr":"2001:db8::3","admin":"up","oper":"down"})");
    std::ostringstream ts;
    PrintPlane(ts, p);
    EXPECT_EQ(ts.str(), "id 3 dev pl3 addr 2001:db8::3 up # ifindex 7 oper down\n");
    p.dev.clear();
    std::ostringstream gone;
    JsonWriter g(gone);
    JsonPlane(g, p);
    EXPECT_EQ(gone.str().find("dev"), std::string::npos);
}

// What show prints is what add takes: the line after "plane add " (or
// "profile add ", "route add ") parses back to the same object, as
// "mrcctl save" relies on.
// A printed line as a batch file holds it: without its newline.
std::vector<std::string> BatchWords(const std::string& prefix, const std::ostringstream& os) {
    std::string line = prefix + os.str();
    if (!line.empty() && line.back() == '\n') line.pop_back();
    return SplitBatchLine(line);
}

TEST(Output, ShowLinesPasteBackIntoAdd) {
    Plane p{3, 7, "pl3", ParseAddr("2001:db8::3", "t"), false, true};
    std::ostringstream ps;
    PrintPlane(ps, p);
    Command c = Parse(BatchWords("plane add ", ps));
    EXPECT_EQ(c.verb, Verb::kAdd);
    EXPECT_EQ(*c.plane.id, 3u);
    EXPECT_EQ(*c.plane.dev, "pl3");
    EXPECT_FALSE(c.plane.ifindex);
    EXPECT_EQ(AddrToString(*c.plane.addr), "2001:db8::3");
    EXPECT_FALSE(*c.plane.up);
    p.dev.clear();  // a device without a name: by index
    std::ostringstream pi;
    PrintPlane(pi, p);
    EXPECT_EQ(*Parse(BatchWords("plane add ", pi)).plane.ifindex, 7u);

    Profile f{4, 256, 12, 3, 8, MRC_CC_ALGO_FIXED, 700, 600, 400, 1300, 1200, 26, 46, 200, false};
    std::ostringstream fs;
    PrintProfile(fs, f);
    ProfileArgs a = Parse(BatchWords("profile add ", fs)).profile;
    EXPECT_EQ(*a.id, 4u);
    EXPECT_EQ(*a.ev_count, 256u);
    EXPECT_EQ(*a.ev_active, 12u);
    EXPECT_EQ(*a.ev_min_active, 3u);
    EXPECT_EQ(*a.burst, 8u);
    EXPECT_EQ(*a.dscp, 26u);
    EXPECT_EQ(*a.dscp_ctl, 46u);
    EXPECT_EQ(*a.cc_algo, MRC_CC_ALGO_FIXED);
    EXPECT_EQ(*a.target_delay, 700u);
    EXPECT_EQ(*a.gamma, 600u);
    EXPECT_EQ(*a.max_md, 400u);
    EXPECT_EQ(*a.max_wnd, 1300u);
    EXPECT_EQ(*a.init_wnd, 1200u);
    EXPECT_EQ(*a.link_mbps, 200u);
    EXPECT_FALSE(*a.init_wnd_shared);

    std::ostringstream rs;
    PrintRoute(rs, SampleRoute());
    RouteArgs r = Parse(BatchWords("route add ", rs)).route;
    EXPECT_EQ(AddrToString(r.dst), "fc00:b::");
    EXPECT_EQ(r.len, 64);
    ASSERT_EQ(r.paths.size(), 1u);
    EXPECT_EQ(r.paths[0].segs.size(), 2u);
}

TEST(Output, ProfileAndStats) {
    Profile p{0, 128, 0, 0, 16, MRC_CC_ALGO_NSCC, 750, 800, 500, 1500, 1500, 0, 48, 100000};
    std::ostringstream ts;
    PrintProfile(ts, p);
    EXPECT_EQ(
        ts.str(),
        "id 0 ev-count 128 ev-active 0 ev-min-active 0 burst 16 dscp 0 dscp-ctl 48 cc-algo nscc "
        "target-delay 750 "
        "gamma 800 max-md 500 max-wnd 1500 init-wnd 1500 link-rate 100gbit init-wnd-shared on\n");
    std::ostringstream js;
    JsonWriter j(js);
    JsonStats(j, Stats{{"planes", 2}, {"routes", 0}});
    EXPECT_EQ(js.str(), R"({"planes":2,"routes":0})");
}

Conn SampleConn() {
    Conn c;
    c.qpn = 4660;
    c.peer_qpn = 22136;
    c.local = ParseAddr("fd00::1", "t");
    c.peer = ParseAddr("fd00::2", "t");
    c.local_service = 7000;
    c.peer_service = 7001;
    c.local_conn_id = 5;
    c.peer_conn_id = 6;
    c.state = MRC_INFO_ESTABLISHED;
    c.cwnd = 65536;
    c.srtt_ns = 1000;
    c.tx_pkts = 10;
    c.tx_bytes = 8000;
    c.retransmits = 2;
    c.timeouts = 1;
    c.n_evs = 2;
    c.rmem_alloc = 138240;
    c.rmem_unread = 69632;
    c.wmem_queued = 73728;
    c.wmem_kept = 4096;
    c.mem_charged = 216064;
    c.fwd_alloc = 1024;
    c.wmem_alloc = 9000;
    c.rcvbuf = 131072;
    c.sndbuf = 262144;
    c.planes.push_back(ConnPlane{0, true, 2, 2, 1, 1, 10, 8, 0, 1});
    c.paths.push_back(ConnPath{0, 0x100, 0, MRC_PATH_GOOD, true, 6, 6, 0, 0});
    c.paths.push_back(ConnPath{1, 0x200, 0, MRC_PATH_ASSUMED_BAD, false, 4, 2, 0, 1});
    return c;
}

TEST(Output, ConnText) {
    std::ostringstream os;
    PrintConn(os, SampleConn());
    EXPECT_EQ(os.str(),
              "conn qpn 4660 peer-qpn 22136 local [fd00::1]:7000 peer [fd00::2]:7001 id 5 "
              "peer-id 6 state established cwnd 65536 srtt-ns 1000 tx-pkts 10 tx-bytes 8000 "
              "retransmits 2 timeouts 1 evs 2\n"
              "  mem rmem-alloc 138240 rmem-unread 69632 rcvbuf 131072 wmem-queued 73728 "
              "wmem-kept 4096 wmem-alloc 9000 sndbuf 262144 charged 216064 fwd-alloc 1024\n"
              "  plane 0 up evs 2 active 2 good 1 bad 1 sent 10 sacked 8 nacked 0 timeouts 1\n");
}

TEST(Output, PathTable) {
    std::ostringstream os;
    PrintConnPaths(os, SampleConn());
    const std::string s = os.str();
    EXPECT_EQ(s.substr(0, s.find('\n')), "conn qpn 4660 state established evs 2");
    EXPECT_NE(s.find("      1  0x00000200      0  assumed_bad  no              4             2"
                     "             0             1             0             0\n"),
              std::string::npos)
        << s;
}

TEST(Output, ConnJson) {
    std::ostringstream os;
    JsonWriter j(os);
    JsonConn(j, SampleConn(), false);
    EXPECT_EQ(os.str(),
              R"({"qpn":4660,"peer_qpn":22136,"local":"fd00::1","local_service":7000,)"
              R"("peer":"fd00::2","peer_service":7001,"conn_id":5,"peer_conn_id":6,)"
              R"("state":"established","cwnd":65536,"srtt_ns":1000,"tx_pkts":10,)"
              R"("tx_bytes":8000,"retransmits":2,"timeouts":1,"events_dropped":0,"n_evs":2,)"
              R"("rmem_alloc":138240,"rmem_unread":69632,"wmem_queued":73728,"wmem_kept":4096,)"
              R"("mem_charged":216064,"fwd_alloc":1024,"wmem_alloc":9000,"rcvbuf":131072,)"
              R"("sndbuf":262144,"planes":[{"id":0,"up":true,"evs":2,"active":2,"good":1,)"
              R"("bad":1,"sent":10,"sacked":8,"nacked":0,"timeouts":1}]})");
    std::ostringstream ps;
    JsonWriter k(ps);
    JsonConn(k, SampleConn(), true);
    EXPECT_NE(ps.str().find(R"("paths":[{"index":0,"ev":256,"plane":0,"state":"good",)"
                            R"("active":true,"sent":6,"sacked":6,"nacked":0,"timeouts":0,)"
                            R"("ecn":0,"losses":0},{"index":1,"ev":512,"plane":0,)"
                            R"("state":"assumed_bad","active":false,"sent":4,"sacked":2,)"
                            R"("nacked":0,"timeouts":1,"ecn":0,"losses":0}]})"),
              std::string::npos)
        << ps.str();
}

TEST(Output, StateNames) {
    EXPECT_EQ(ConnStateName(MRC_INFO_FAILED), "failed");
    EXPECT_EQ(ConnStateName(200), "unknown");
    EXPECT_EQ(PathStateName(MRC_PATH_DENIED), "denied");
    EXPECT_EQ(PathStateName(9), "unknown");
}

TEST(Output, ConnEvents) {
    Conn c = SampleConn();
    c.error = 110;
    std::ostringstream os;
    PrintConnEvent(os, "conn-down", c);
    EXPECT_EQ(os.str().substr(0, os.str().find(" ev ")),
              "[conn-down] qpn 4660 peer-qpn 22136 local [fd00::1]:7000 peer [fd00::2]:7001 id 5 "
              "peer-id 6 state established error 110");
    std::ostringstream js;
    JsonWriter j(js);
    c.paths.resize(1);
    c.ev_lost = 3;
    JsonConnEvent(j, "path-change", c);
    EXPECT_EQ(js.str(), R"({"event":"path-change","qpn":4660,"peer_qpn":22136,"local":"fd00::1",)"
                        R"("local_service":7000,"peer":"fd00::2","peer_service":7001,"conn_id":5,)"
                        R"("peer_conn_id":6,"state":"established","paths":[{"index":0,"ev":256,)"
                        R"("plane":0,"state":"good","active":true}],"lost":3})");
    std::ostringstream up;
    JsonWriter k(up);
    JsonConnEvent(k, "conn-up", c);
    EXPECT_EQ(up.str().find("error"), std::string::npos);
    EXPECT_EQ(up.str().find("paths"), std::string::npos);
}

}  // namespace
}  // namespace mrcctl
